"""What a heading line of a document is, declared once.

Four kinds of heading open a section of a document:

- **ATX** (``# Title`` .. ``###### Title``): the seed's markdown heading (`ATX`), the
  only kind the seed's parser knows (`engine.read.source.markdown_sections`);
- **setext** (markdown): a single-line title over a line of ``=`` or ``-``;
- **reStructuredText** section titles: a single-line title under a line of one repeated
  punctuation character (``= - ~ ^ " ' ` # * + : . _`` ...) at least as long as the
  title, or between two such lines of the same character and length (over- and
  underlined);
- **HTML** headings alone on their line (``<h3 id="faq">How do I ...?</h3>``), or their
  opening tag ending a line and their closing tag ending one of the next four: their
  title is their inner text, tags and entities resolved.

An underlined (or over- and underlined) heading's level is markdown's in a file whose
only adornments are setext's (``=`` level 1, ``-`` level 2, in whatever order they first
appear); in a file with any other (reStructuredText), the order in which its style first
appears in the file, as docutils decides (`style_levels`). An ATX or HTML heading's level
is its own number. What is never a heading: anything inside a fenced code block or YAML /
TOML front matter at the file's start, an indented line of an reStructuredText literal
block (after a line ending in ``::``), a ``---`` after a blank line (a thematic break),
an underline under a list item, a table row, a quote or a paragraph of several lines
(only a title alone on its line, after a blank line, is taken), a ``~~~`` or backtick
line that may open a code fence unless a blank line follows it, and an HTML heading
with no text (a logo in a README's ``<h1 align="center">``).

`find_headings(lines)` finds every heading of a file; `heading_at(text)` says whether a
text (a paragraph, a unit of the segmenter) opens with one, for code that reads
paragraphs after the reader cut the file into sections.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from chunkscope.engine.textutil import FENCE as _FENCE
from chunkscope.engine.textutil import FENCE_LINES as _FENCE_LINES
from chunkscope.engine.textutil import fence_after as _fence_after

#: The seed's heading (`engine.read.source.markdown_sections`): ``#`` to ``######``, then
#: a blank, at the start of the line.
ATX = re.compile(r"^(#{1,6})\s+(.*)")
# A code fence's line and the fence open after a line are `engine.textutil`'s (a tool
# call's cut closes a fence too, and engine.toolcall is read below engine.read).
FENCE = _FENCE
FENCE_LINES = _FENCE_LINES
fence_after = _fence_after


#: A fence line indented 4 spaces or more: in a document, a list item's fenced block
#: (``2. Import it.`` then ````    ```ts````), its indentation and marker the groups; a
#: block only when a bare marker at the same indentation closes it (`deep_fence_close`).
DEEP_FENCE = re.compile(r"^( {4,})(`{3,}|~{3,})")
DEEP_FENCE_LINES = re.compile(DEEP_FENCE.pattern, re.M)


def deep_fence_close(line: str) -> re.Pattern[str] | None:
    """For a `DEEP_FENCE` line that opens a block (a backtick fence's info string holds no
    backtick), the pattern of the line closing it: a bare marker of its character, at
    least as long, at the same indentation (multiline, to find it in a text); else None."""
    m = DEEP_FENCE.match(line)
    if m is None:
        return None
    indent, mark = m.groups()
    if mark[0] == "`" and "`" in line[m.end() :]:
        return None
    return re.compile(f"^{indent}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$", re.M)


#: aider's other fence, for a file that holds ``` itself: a ``<source>python`` line
#: opens a code block that a ``</source>`` line closes (`block_fence_after`).
SOURCE_OPEN = re.compile(r"^\s*<source>[\w+#.-]*\s*$")
SOURCE_CLOSE = re.compile(r"^\s*</source>\s*$")
#: The marker `block_fence_after` gives while such a block is open.
SOURCE_FENCE = "</source>"


def block_fence_after(line: str, fence: str | None) -> str | None:
    """`fence_after` in a log's message, where aider's ``<source>`` block is a fenced
    code block too (`SOURCE_FENCE` while it is open). Not in a document: there such a
    tag is the document's HTML."""
    if fence == SOURCE_FENCE:
        return None if SOURCE_CLOSE.match(line) else fence
    if fence is None and SOURCE_OPEN.match(line):
        return SOURCE_FENCE
    return fence_after(line, fence)


#: A line of one repeated punctuation character (an underline or overline), up to 3
#: spaces before it.
ADORNMENT = re.compile(r"^ {0,3}([!-/:-@\[-`{-~])\1+[ \t]*$")
#: An HTML heading alone on its line: its level and inner HTML.
HTML_HEADING = re.compile(r"^ {0,3}<h([1-6])(?:\s[^>]*)?>(.*?)</h\1\s*>[ \t]*$", re.I)
#: An HTML heading's opening tag that ends its line, its text on the next lines and its
#: closing tag ending a line at most `HTML_LINES` lines below (``<h3 name="x">``, the
#: question, ``</h3>``).
HTML_OPEN = re.compile(r"^ {0,3}<h([1-6])(?:\s[^>]*)?>[ \t]*$", re.I)
HTML_LINES = 4
_TAG = re.compile(r"<[^>]*>")
#: A line that cannot be a setext or reStructuredText title: a list item, a quote, a
#: table row, an HTML block, an ATX heading, a fence, a directive or comment
#: (``.. note::``).
_NOT_TITLE = re.compile(
    r" {0,3}(?:[-*+][ \t]|\d{1,9}[.)](?:[ \t]|$)|>|\||<|#{1,6}(?:\s|$)|```|~~~|\.\.(?:\s|$))"
)
_WORD = re.compile(r"\w")
#: A reStructuredText explicit markup line: a directive (``.. code-block:: sh``, its name
#: the group), a comment, a target or a footnote (``.. _x:``, ``.. [1]``); never ``...``.
RST_EXPLICIT = re.compile(r"^\s*\.\.(?!\.)(?:\s+([\w:-]+?)::(?:\s|$)|\s|$)")


def opens_literal_block(line: str) -> bool:
    """Whether `line` ends a paragraph that opens a reStructuredText literal block (it ends
    in ``::``): the indented lines after it are code."""
    return line.rstrip().endswith("::")


#: What a text opening with a heading starts with (`heading_at`'s quick refusal): a hash,
#: an HTML heading's tag, a line then an adornment line, or an overline.
_MAYBE = re.compile(
    r"#| {0,3}<[hH][1-6]|[^\n]*\n {0,3}([!-/:-@\[-`{-~])\1+[ \t]*(?:\n|\Z)"
    r"| {0,3}([!-/:-@\[-`{-~])\2+[ \t]*\n"
)
#: Front matter at a file's start: its opening line, and the closing line of each kind.
_FRONT_OPEN = {"---": ("---", "..."), "+++": ("+++",)}
_FRONT_KEY = re.compile(r"[A-Za-z_][\w.-]*[ \t]*[:=]")

KINDS = ("atx", "setext", "rst", "html")


class Heading(NamedTuple):
    """A heading: its lines ``start`` to ``end`` (0-based, ``end`` excluded: its
    overline and underline are its own), its level (1 to 6), its title (an HTML
    heading's inner text), its kind (`KINDS`) and, underlined, its adornment style
    (``=``, ``-``, ``over*`` for a ``*`` over- and underline; empty otherwise)."""

    start: int
    end: int
    level: int
    title: str
    kind: str
    style: str = ""


#: The levels of markdown's setext headings (underlined, never overlined).
SETEXT_LEVELS = {"=": 1, "-": 2}


def style_levels(styles: Iterable[str]) -> dict[str, int]:
    """The level of each adornment style of a file, given in the order they appear:
    markdown's (`SETEXT_LEVELS`) when every style is setext's, else the order of first
    appearance (docutils'), at most 6."""
    order = list(dict.fromkeys(styles))
    if all(s in SETEXT_LEVELS for s in order):
        return {s: SETEXT_LEVELS[s] for s in order}
    return {s: min(i + 1, 6) for i, s in enumerate(order)}


def with_levels(headings: list[Heading]) -> list[Heading]:
    """`headings` (a file's, in order) with each underlined one at its `style_levels`
    level."""
    levels = style_levels(h.style for h in headings if h.style)
    return [h._replace(level=levels[h.style]) if h.style else h for h in headings]


def _html_heading(lines: Sequence[str], i: int) -> Heading | None:
    """The HTML heading at line `i`: alone on its line, or opened there and closed on one
    of the next `HTML_LINES` lines (none of them blank); None without text."""
    line = lines[i]
    tag = HTML_HEADING.match(line)
    if tag is not None:
        title = html_title(tag.group(2))
        return Heading(i, i + 1, int(tag.group(1)), title, "html") if title else None
    opened = HTML_OPEN.match(line)
    if opened is None:
        return None
    close = re.compile(rf"(.*?)</h{opened.group(1)}\s*>[ \t]*$", re.I)
    for j in range(i + 1, min(i + 1 + HTML_LINES, len(lines))):
        if not lines[j].strip():
            return None
        end = close.match(lines[j])
        if end is not None:
            title = html_title(" ".join([*lines[i + 1 : j], end.group(1)]))
            return Heading(i, j + 1, int(opened.group(1)), title, "html") if title else None
    return None


def html_title(inner: str) -> str:
    """An HTML heading's text: its inner HTML without tags, entities resolved, blanks
    collapsed."""
    return " ".join(html.unescape(_TAG.sub("", inner)).split())


def _title_line(line: str) -> bool:
    """Can `line` be the title of an underlined heading?"""
    return (
        bool(line.strip())
        and len(line) - len(line.lstrip(" ")) <= 3
        and not line.startswith("\t")
        and _NOT_TITLE.match(line) is None
        and ADORNMENT.match(line) is None
        and _WORD.search(line) is not None
    )


def _width(line: str) -> int:
    return len(line.strip())


def _underlined(lines: Sequence[str], i: int) -> tuple[int, str] | None:
    """(lines it takes, style) of an underlined or over- and underlined heading at line
    `i` (which follows a blank line or starts the file); None when there is none."""
    n = len(lines)
    line = lines[i]
    over = ADORNMENT.match(line)
    if over is not None:
        # over- and underlined: the same run of one character, as wide as the title or more
        if i + 2 < n and lines[i + 2].strip() == line.strip():
            title = lines[i + 1]
            if (
                title.strip()
                and ADORNMENT.match(title) is None
                and _WORD.search(title) is not None
                and _width(line) >= _width(title)
            ):
                return 3, "over" + over.group(1)
        return None
    if i + 1 >= n or not _title_line(line):
        return None
    under = ADORNMENT.match(lines[i + 1])
    if under is None or ATX.match(lines[i + 1]):
        return None  # none, or an ATX heading of its own ("## "), never an underline
    char = under.group(1)
    width = _width(lines[i + 1])
    if char in "=-":
        if width < 3 and width < _width(line):
            return None
    elif width < _width(line):
        return None
    if char in "~`" and i + 2 < n and lines[i + 2].strip():
        return None  # may open a code fence: a title's underline has a blank line after it
    return 2, char


def _front_matter_end(lines: Sequence[str]) -> int:
    """The index after the front matter (YAML between ``---``, TOML between ``+++``,
    with a ``key:`` / ``key =`` line) that opens the file; 0 when it has none."""
    if not lines:
        return 0
    closers = _FRONT_OPEN.get(lines[0].rstrip())
    if closers is None:
        return 0
    keyed = False
    for j in range(1, len(lines)):
        line = lines[j].rstrip()
        if line in closers:
            return j + 1 if keyed else 0
        keyed = keyed or _FRONT_KEY.match(line) is not None
    return 0


#: The lines `find_headings` must look at, in ``"\n"`` + a file's lines joined by
#: ``"\n"``: an adornment line (group 1; an underline, which brings the line before it,
#: or an overline), a fence, an HTML heading's opening tag and an ATX heading. Each
#: starts with a blank or punctuation (the lookahead refuses every other line at once).
#: Every other line only moves the state `find_headings` keeps (blank or not, indented
#: or not), which it reads when needed.
_EVENT_LINE = re.compile(
    r"\n(?=[ !-/:-@\[-`{-~])(?:( {0,3}([!-/:-@\[-`{-~])\2+[ \t]*(?=\n|\Z))"
    r"| {0,3}(?:`{3}|~{3}|<[hH][1-6])|#{1,6}[^\S\n])"
)
#: The end of a line that opens a reStructuredText literal block (`opens_literal_block`).
_LITERAL_OPENER = re.compile(r"::[^\S\n]*(?=\n|\Z)")


def _event_lines(joined: str, first: int) -> list[int]:
    """The indexes (from `first` on, in order) of the lines of `joined` (a file's lines
    joined by "\n") `find_headings` must read: those of `_EVENT_LINE` (an underline
    with the line before it) and of `_LITERAL_OPENER`."""
    # Over "\n" + the text, each line is found at the newline before it, which the
    # regex engine skips to with a fast character search.
    text = "\n" + joined
    starts: dict[int, bool] = {
        m.start(): m.group(1) is not None for m in _EVENT_LINE.finditer(text)
    }
    rfind = text.rfind
    for m in _LITERAL_OPENER.finditer(text):
        starts.setdefault(rfind("\n", 0, m.start()), False)
    out: list[int] = []
    row, at = 0, 0
    count = text.count
    for pos in sorted(starts):
        row += count("\n", at, pos)  # the line's index: the newlines before its own
        at = pos
        if starts[pos] and row > first and (not out or out[-1] < row - 1):
            out.append(row - 1)
        if row >= first:
            out.append(row)
    return out


def _literal_goes_on(lines: Sequence[str], a: int, b: int) -> bool:
    """Whether a literal block open before line `a` is still open at line `b`: every
    line between is blank or indented."""
    for j in range(a, b):
        line = lines[j]
        if line[:1] not in (" ", "\t") and line.strip():
            return False
    return True


#: The last text `find_headings` read and its headings: the reader finds a document's
#: sections and the markdown strategy its setext and HTML headings in the same lines.
_last: tuple[str, list[Heading]] = ("", [])


def find_headings(lines: Sequence[str]) -> list[Heading]:
    """Every heading of a file's lines, in order (see the module docstring).

    Only the lines of `_event_lines` are read one by one (a regex finds them): what the
    lines between do to the state (a fence stays as it is; the line before says blank
    or not; a literal block ends at a line neither blank nor indented) is read at the
    next one."""
    global _last
    joined = "\n".join(lines)
    text, found = _last
    if joined != text or not joined:
        found = _find_headings(lines, joined)
        _last = (joined, found)
    return list(found)


def _find_headings(lines: Sequence[str], joined: str) -> list[Heading]:
    out: list[Heading] = []
    i = _front_matter_end(lines)
    fence: str | None = None
    literal = False  # after a line ending in "::": indented lines are a literal block
    after_blank = True  # the line before `i` is blank (or there is none)
    for at in _event_lines(joined, i):
        if at < i:
            continue  # a line of the heading just taken
        if at > i:  # lines i..at-1 hold no event
            if fence is None:
                if literal:
                    literal = _literal_goes_on(lines, i, at)
                after_blank = not lines[at - 1].strip()
            else:
                after_blank = False
            i = at
        line = lines[i]
        if fence is not None:
            fence = fence_after(line, fence)
            i += 1
            after_blank = False
            continue
        if not line.strip():
            after_blank = True
            i += 1
            continue
        if literal:
            if line[:1] in (" ", "\t"):
                i += 1
                after_blank = False
                continue
            literal = False
        atx = ATX.match(line)
        if atx is not None:
            out.append(Heading(i, i + 1, len(atx.group(1)), atx.group(2).strip(), "atx"))
            i += 1
            after_blank = True
            continue
        tag = _html_heading(lines, i) if "<" in line[:4] else None
        if tag is not None:
            out.append(tag)
            i = tag.end
            after_blank = True
            continue
        if after_blank:
            found = _underlined(lines, i)
            if found is not None:
                taken, style = found
                title = lines[i + taken // 2 if taken == 3 else i].strip()
                out.append(_underlined_heading(i, taken, title, style))
                i += taken
                after_blank = True
                continue
        fence = fence_after(line, None)
        if fence is None and opens_literal_block(line):
            literal = True
        after_blank = False
        i += 1
    return with_levels(out)


def _underlined_heading(start: int, taken: int, title: str, style: str) -> Heading:
    """An underlined heading at its provisional level: setext's, else 1 (`with_levels`
    and `style_levels` give the file's)."""
    kind = "setext" if style in SETEXT_LEVELS else "rst"
    return Heading(start, start + taken, SETEXT_LEVELS.get(style, 1), title, kind, style)


def heading_at(text: str) -> Heading | None:
    """The heading `text` opens with (a paragraph, or a section the reader cut at its
    heading), as `find_headings` would find it at a file's line after a blank line;
    None when it opens with none. An underlined heading's level is provisional
    (setext's, else 1): the file's are `style_levels` of the styles of its headings in
    order."""
    if _MAYBE.match(text) is None:
        return None  # one regex for what most paragraphs are: no heading
    first = text[:1]
    if not first or first in "\n\t":
        return None
    end = text.find("\n")
    line = text if end < 0 else text[:end]
    if first == "#":
        atx = ATX.match(line)
        if atx is not None:
            return Heading(0, 1, len(atx.group(1)), atx.group(2).strip(), "atx")
    if "<" in line[:4]:
        if end < 0:
            return _html_heading([line], 0)
        return _html_heading(text.split("\n", HTML_LINES + 1)[: HTML_LINES + 1], 0)
    if end < 0:
        return None
    nxt = text.find("\n", end + 1)
    second = text[end + 1 :] if nxt < 0 else text[end + 1 : nxt]
    if ADORNMENT.match(second) is None and ADORNMENT.match(line) is None:
        return None  # cheap: most paragraphs stop here
    found = _underlined(text.split("\n", 3)[:4], 0)
    if found is None:
        return None
    taken, style = found
    return _underlined_heading(0, taken, (second if taken == 3 else line).strip(), style)


def after_heading(text: str, heading: Heading | None) -> str:
    """`text` without the lines of the heading it opens with (`heading_at`): what a fence
    count may read (a ``~~~~`` underline opens no fence)."""
    if heading is None or heading.end == 1:
        return text if heading is None else text.partition("\n")[2]
    parts = text.split("\n", heading.end)
    return parts[heading.end] if len(parts) > heading.end else ""
