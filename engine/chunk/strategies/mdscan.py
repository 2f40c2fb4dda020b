"""Markdown structure for the markdown strategy: sections, fences, tables and lists.

`scan(text)` finds, in one regex-driven pass, the headings outside fenced code (in a
document, the setext, reStructuredText and HTML headings of `engine.read.headings` too)
(each section with its header stack and level), the fenced blocks (at any
indent, since fences nest in list items; an unclosed fence runs to the end),
and the tables and lists (kept whole by the splitter when they fit).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

from chunkscope.engine.read.headings import Heading, find_headings

TABLE_RULE = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


class Section(NamedTuple):
    """A section of a markdown text: its line range, heading path and heading level."""

    start: int
    end: int
    path: tuple[str, ...]  # the header stack, outermost first
    level: int  # heading level, 0 for text before the first heading


class Structure(NamedTuple):
    """A markdown text's sections, fenced code blocks, tables and lists, and title."""

    sections: list[Section]
    fences: list[tuple[int, int]]  # fenced code blocks [start, end), in order
    blocks: list[tuple[int, int]]  # tables and lists [start, end), in order
    title: str | None  # the first level-1 heading
    #: the ``~`` and backtick lines that adorn a title [start, end), in order: no fences
    adornments: tuple[tuple[int, int], ...] = ()


# Every pattern the scan searches with starts with a literal newline, so the
# regex engine skips ahead with a fast character search; the scan runs over
# "\n" + text, where the newline before a line sits at that line's offset in text.
_EVENT = re.compile(
    r"\n(?:"
    r"[ \t]*(`{3,}|~{3,})"  # 1: a fence, at any indent (fences nest in list items)
    r"| {0,3}(?:(#{1,6})(?:[ \t]+|(?=\n)|$)"  # 2: a heading
    r"|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|(?=\n)|$)"  # a list item
    r"|(\|)))"  # 3: a table row
)
_TABLE_ROWS = re.compile(r"(?:\n[ \t]*\|[^\n]*)*")
# A list ends at a blank line followed by a line that is neither indented nor an
# item, or at a heading or fence in the first column.
_LIST_END = re.compile(
    r"\n[ \t]*\n(?![ \t]|[-*+][ \t]|\d{1,9}[.)][ \t]|[ \t]*\n)|\n(?=#{1,6}[ \t]|```|~~~)"
)
_FENCE_LINE = re.compile(r"\n[ \t]*(?:`{3,}|~{3,})")
_TRAILING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_CLOSERS: dict[str, re.Pattern[str]] = {}


def _closer(fence: str) -> re.Pattern[str]:
    pat = _CLOSERS.get(fence)
    if pat is None:
        ch = re.escape(fence[0])
        pat = re.compile(rf"\n[ \t]*{ch}{{{len(fence)},}}[ \t]*(?=\n|$)")
        _CLOSERS[fence] = pat
    return pat


#: A line that may underline a title, or an HTML heading: `scan` looks for the headings
#: `engine.read.headings` knows besides ATX ones only in a text that has one.
_MAYBE_HEADING = re.compile(r"\n {0,3}([!-/:-@\[-`{-~])\1+[ \t]*(?=\n|$)|<h[1-6][\s>]", re.I)


def _doc_headings(text: str) -> tuple[list[Heading], list[int]]:
    """The headings of a document (`engine.read.headings.find_headings`) and the offset
    in `text` of each of its lines."""
    lines = text.split("\n")
    offsets = [0, *accumulate(len(line) + 1 for line in lines)]
    # Without the empty line after a final line break (it holds no heading), the lines
    # are the reader's: `find_headings` gives its last answer again.
    return find_headings(lines[:-1] if len(lines) > 1 and not lines[-1] else lines), offsets


def _adornments(headings: Sequence[Heading], offsets: Sequence[int]) -> list[tuple[int, int]]:
    """The lines [start, end) that adorn a title with ``~`` or backticks: such a line is
    the title's underline (or overline), never a code fence, when the heading rule says
    so (`engine.read.headings`: a blank line after it). The fence scan skips them."""
    out = []
    for h in headings:
        if h.kind == "rst" and h.style[-1:] in ("`", "~"):
            title = h.start + 1 if h.end - h.start == 3 else h.start
            out += [(offsets[j], offsets[j + 1] - 1) for j in range(h.start, h.end) if j != title]
    return out


def _other_headings(
    headings: Sequence[Heading], offsets: Sequence[int], fences: Sequence[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """(offset, level, title) of each setext, reStructuredText and HTML heading of a
    document (`_doc_headings`) outside the fenced blocks."""
    fenced = [a for a, _ in fences]
    out = []
    for h in headings:
        at = offsets[h.start]  # the line's offset in text
        k = bisect_right(fenced, at) - 1
        if h.kind != "atx" and not (k >= 0 and at < fences[k][1]):
            out.append((at, h.level, h.title))
    return out


def scan(text: str, bounds: Sequence[int] = ()) -> Structure:
    """Sections at headings outside fences, fenced blocks, tables and lists.

    Driven by one regex that finds the lines that can open a construct; the
    lines in between are never visited in Python. `bounds` (sorted offsets: where
    each message of a session starts) end a fence its message left open: a reply
    cut off inside a code block does not make the messages after it code.
    """
    sections: list[Section] = []
    fences: list[tuple[int, int]] = []
    blocks: list[tuple[int, int]] = []
    title: str | None = None
    stack: list[str] = []
    sec_start = 0
    sec_path: tuple[str, ...] = ()
    sec_level = 0
    heads: list[tuple[int, int, str]] = []  # (offset, level, title) of each heading
    n = len(text)
    t = "\n" + text  # offsets in t are one more than in text
    find = t.find
    search = _EVENT.search
    list_end = -1  # (t offset) end of the list the scan is in
    # A document's headings other than ATX ones, read first: a backtick or ``~`` line that
    # underlines a title is no fence (F1 of walk 61: Flask's quickstart.rst).
    doc: tuple[list[Heading], list[int]] | None = None
    adornments: list[tuple[int, int]] = []
    if not bounds and _MAYBE_HEADING.search(t) is not None:
        doc = _doc_headings(text)
        adornments = _adornments(*doc)
    adorned = {a for a, _ in adornments}
    m = search(t, 0)
    while m is not None:
        start = m.start()  # the line's offset in text
        me = m.end()
        eol = find("\n", me)
        if eol < 0:
            eol = n + 1
        fence, hashes, pipe = m.groups()
        nxt = eol
        if fence is not None:
            if (fence[0] == "`" and "`" in t[me:eol]) or start in adorned:
                m = search(t, eol)  # inline code or a title's underline, not a fence
                continue
            at = bisect_right(bounds, start)
            limit = bounds[at] if at < len(bounds) else n  # the next message's start
            close = _closer(fence).search(t, eol, limit + 1)
            end = limit if close is None else min(close.end(), n)  # the closing line's newline
            fences.append((start, end))
            nxt = end
            if start < list_end and end < list_end:  # a fence inside a list: the next one
                inner = _FENCE_LINE.search(t, end, list_end)
                nxt = list_end if inner is None else inner.start()
        elif hashes is not None:
            head = t[me:eol].strip()
            if head.endswith("#"):
                head = _TRAILING_HASHES.sub("", head).strip()
            heads.append((start, len(hashes), head))
        elif pipe is not None:
            rule_end = find("\n", eol + 1)
            rule = t[eol + 1 : rule_end if rule_end >= 0 else n + 1]
            if "-" in rule and TABLE_RULE.match(rule):
                rows = _TABLE_ROWS.match(t, eol)
                end = rows.end() if rows else eol
                blocks.append((start, end - 1))
                nxt = end
        elif start >= list_end:  # a list item opening a list
            stop = _LIST_END.search(t, eol)
            list_end = n + 1 if stop is None else stop.start()
            blocks.append((start, list_end - 1))
            # nothing inside a list but a fence needs the scan: skip to the first one
            inner = _FENCE_LINE.search(t, eol, list_end)
            nxt = list_end if inner is None else inner.start()
        m = search(t, nxt) if nxt <= n else None
    if doc is not None:
        heads = sorted([*heads, *_other_headings(*doc, fences)])
    for start, level, head in heads:
        if start > sec_start:
            sections.append(Section(sec_start, start, sec_path, sec_level))
        del stack[level - 1 :]
        stack.extend([""] * (level - 1 - len(stack)))
        stack.append(head)
        sec_start, sec_path, sec_level = start, tuple(stack), level
        if level == 1 and title is None and head:
            title = head
    if n > sec_start or not sections:
        sections.append(Section(sec_start, n, sec_path, sec_level))
    return Structure(sections, fences, blocks, title, tuple(adornments))
