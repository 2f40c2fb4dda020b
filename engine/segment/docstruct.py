"""Where a markdown document starts, and how deep each section heading sits in it.

The topic segmenter's units are the paragraphs of a markdown file's sections (see
`engine.chunk.split.chunk_turns`): a unit that opens a section starts with its heading line.
`document_starts` reads those units in order and says, for each one, how strongly it
opens a new *document* (0 to `MARKED`) and, when it opens a section, its heading's level
relative to the file. Files stitched from several documents rarely keep one marker per
document, so several cues count, none tied to one documentation set:

- **Front matter** (YAML between ``---`` lines, TOML between ``+++`` lines, with at
  least one ``key: value`` or ``key = value`` line and its closing line) and a pandoc
  **title line** (``% title``) always start a document (`MARKED`). A setext,
  reStructuredText or HTML heading (`engine.read.headings`) is a heading as an ATX one
  of its level is: a setext ``===`` title or an ``<h1>`` is level 1, as ``# title``
  is, and a title by convention as it is; a reStructuredText file's level 1 is only the
  first adornment style it uses (docutils' order, `engine.read.headings.style_levels`),
  no title by convention (a file of pages stitched from several conventions would take
  a page's subsections for titles).
- **Relative heading levels.** The shallowest level the file uses is its top level, so
  shifting every heading by one level changes nothing. When the top level is a title
  level (its headings are at most a third of all headings: each one heads several
  deeper sections), a top-level heading starts a document (`MARKED`); a ``#``
  heading, a title by convention, does too (1); otherwise the top level is the file's
  section level, no document start by itself (`DocStructure.level` still says how
  deep each section heading sits, for splitting a long document at its sections).
- **A repeated opening.** Documents of one set open alike ("Synopsis", "Description";
  "Installation"): the first `OPENER_HEADINGS` heading names of each document are its
  opening, and a heading whose name is in the opening of the document in progress, seen
  again later at that document's shallowest level, starts the next document
  (`RESTART`); so does the name that opened an earlier document, new to the document
  in progress once that one is past its opening (a page that opens on "Synopsis" after
  one that opened on "Description"). A name repeated deeper ("Fixed" under each
  version of a changelog) never counts, and numbers stay in names (``Version 1.2`` is
  not ``Version 1.3``).
- **An opening or a closing paragraph.** A paragraph inside a section that opens with
  badges (``[![``), a logo or a centred HTML block opens a project's page (`BANNER`);
  a paragraph made only of link reference definitions (``[name]: url``) closes a
  document, so the one after it opens the next (`AFTER_REFERENCES`).

The segmenter adds these strengths, times its ``topic_structure`` knob, to the depth of
the gap before the unit, so the vocabulary change still decides between neighbouring
candidates (only a `MARKED` start reaches the default threshold by itself). Headings
and front matter inside fenced code are not structure. Everything is one pass over the
units, done once per file (`engine.segment.segmenter.frame`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

from chunkscope.engine.read.headings import SETEXT_LEVELS, after_heading, heading_at, style_levels
from chunkscope.engine.read.source import FENCE_LINES

#: The strength of a document start the file marks itself (front matter, a title
#: line, a heading of a title level): above 1, so that with the default weights
#: (``topic_structure`` 5, ``topic_depth`` 7) it starts a topic however alike the
#: documents' words are.
MARKED = 1.4
#: The strength of a heading that repeats the opening of the document in progress.
RESTART = 1.0
#: The strength of a paragraph inside a section that opens with badges or a logo.
BANNER = 0.8
#: The strength of the paragraph after a block of link reference definitions.
AFTER_REFERENCES = 0.8
#: How many heading names make a document's opening.
OPENER_HEADINGS = 2
#: A top level with at most this share of all headings is a title level.
TITLE_SHARE = 1 / 3
#: ... and at least this share of its headings is followed by a deeper heading.
TITLE_HEADS = 0.75

_ATX = re.compile(r"(#{1,6})(?:[ \t]+(.*)|[ \t]*)$")
_FRONT = re.compile(
    r"(?:---[ \t]*\n(?:[^\n]*\n)*?[A-Za-z_][\w.-]*[ \t]*:(?:[ \t][^\n]*)?\n"
    r"(?:[^\n]*\n)*?(?:---|\.\.\.)"
    r"|\+\+\+[ \t]*\n(?:[^\n]*\n)*?[A-Za-z_][\w.-]*[ \t]*=[^\n]*\n(?:[^\n]*\n)*?\+\+\+)"
    r"[ \t]*(?:\n|\Z)"
)
_PANDOC_TITLE = re.compile(r"% \S")
_WORD = re.compile(r"[^\W_]+")
#: How many tokens of a paragraph's first line make its opening pattern.
OPENING_TOKENS = 3
_OPENING_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]+")
_CODE_SPAN = re.compile(r"`+[^`\n]*`+")
#: A paragraph that opens with badges, a logo or a centred HTML block, as a project's
#: page does.
_BANNER = re.compile(r"\[!\[|<(?:p|div|h1)\s+align=|<(?:img|picture)\b", re.I)
#: A paragraph made only of link reference definitions (``[name]: url``), which
#: markdown documents keep at their end.
_REFERENCES = re.compile(r"(?: {0,3}\[[^\]\n]+\]:[ \t]*\S+[^\n]*(?:\n|\Z))+")


class Piece(NamedTuple):
    """A unit's text and whether it opens a turn (a markdown section)."""

    text: str
    opens_turn: bool


class DocStructure(NamedTuple):
    """Per piece: how strongly it starts a document (0 to `MARKED`), and the level of the
    heading it opens with relative to the file's shallowest (0 = top; -1: none); how
    many documents the file marks itself (front matter, title lines, titles), and how
    many starts a repeated opening found."""

    strength: list[float]
    level: list[int]
    marked: int = 0
    restarts: int = 0
    #: the first marked start, as a piece index (-1: none)
    first_marked: int = -1
    #: the pieces whose start is certain, whatever the words say: front matter, a
    #: pandoc title line, a repeated opening (`engine.segment.segmenter.frame` keeps them)
    fixed: tuple[int, ...] = ()
    #: how many documents front matter, a pandoc title line or a heading of a title
    #: level starts (strength `MARKED`)
    certain: int = 0
    #: the pieces that are front matter or a pandoc title line
    opened: tuple[int, ...] = ()
    #: every section heading: (piece, level in the file, `heading_name`), in order
    heads: tuple[tuple[int, int, str], ...] = ()


def heading_name(text: str) -> str:
    """A heading's words and numbers, lower case, without markup or punctuation:
    ``### `Set-up`!`` and ``## Set up`` are both ``set up``. Numbers stay, so the
    entries of a series (``Version 1.2``, ``Version 1.3``) are not one name."""
    return " ".join(_WORD.findall(text.casefold()))


def opening_pattern(text: str) -> str:
    """How a paragraph opens: the first `OPENING_TOKENS` tokens (words, numbers, runs of
    punctuation) of its first line, lower case, a code span as one backtick and a
    number as ``#``: ``.. versionadded:: 3.1`` opens with ``.. versionadded ::`` and
    ``The following ``ls`` example`` with ``the following ```. Empty for a heading, an
    indented line (inside a list or a block), a code fence and a line of fewer than two
    tokens: no pattern."""
    line = text.lstrip("\n").split("\n", 1)[0].lower()
    if line.startswith(("#", " ", "\t", "```", "~~~")):
        return ""
    tokens = _OPENING_TOKEN.findall(_CODE_SPAN.sub("`", line))[:OPENING_TOKENS]
    if len(tokens) < 2:
        return ""
    return " ".join("#" if t.isdigit() else t for t in tokens)


def _fence_toggles(text: str) -> int:
    """How many fence lines the text has (an odd count leaves a fence open)."""
    return sum(1 for m in FENCE_LINES.finditer(text) if not _inline_backticks(text, m))


def _inline_backticks(text: str, m: re.Match[str]) -> bool:
    fence = m.group(1)
    if fence[0] != "`":
        return False
    end = text.find("\n", m.end())
    return "`" in text[m.end() : end if end >= 0 else len(text)]


def is_front_matter(text: str) -> bool:
    """Does `text` open with YAML (``---``) or TOML (``+++``) front matter?"""
    return text.startswith(("---", "+++")) and _FRONT.match(text) is not None


def document_starts(pieces: Sequence[Piece]) -> DocStructure:
    """The `DocStructure` of a markdown file's units, in order (see the module docstring)."""
    n = len(pieces)
    strength = [0.0] * n
    level = [-1] * n
    heads: list[tuple[int, int, str]] = []  # (piece, absolute level, name)
    openers: set[int] = set()  # pieces that always start a document
    banners: set[int] = set()  # paragraphs that open as a project's page does
    after_refs: set[int] = set()  # pieces after a block of link reference definitions
    in_fence = False
    styles: dict[int, str] = {}  # piece -> adornment style of its underlined heading
    for i, (text, opens) in enumerate(pieces):
        heading = None
        if opens:
            in_fence = False  # the reader never opens a section inside a fence
        if not in_fence:
            m = _ATX.match(text, 0, text.find("\n") if "\n" in text else len(text))
            heading = heading_at(text) if opens and m is None else None
            if opens and m:
                heads.append((i, len(m.group(1)), heading_name(m.group(2) or "")))
            elif heading is not None:  # setext, reStructuredText, HTML: `engine.read.headings`
                heads.append((i, heading.level, heading_name(heading.title)))
                if heading.style:
                    styles[i] = heading.style
            elif is_front_matter(text) or _PANDOC_TITLE.match(text):
                openers.add(i)
            elif not opens and _BANNER.match(text):
                banners.add(i)
            if _REFERENCES.fullmatch(text):
                after_refs.add(i + 1)
        if _fence_toggles(after_heading(text, heading)) % 2:
            in_fence = not in_fence
    docutils: set[int] = set()  # headings at docutils' levels: no title by convention
    if styles:  # underlined headings: at the file's levels of their styles
        levels = style_levels(styles.values())
        heads = [(i, levels[styles[i]] if i in styles else lv, name) for i, lv, name in heads]
        if not all(s in SETEXT_LEVELS for s in styles.values()):
            docutils = set(styles)
    for i in openers:
        strength[i] = MARKED
    for i in banners:
        strength[i] = max(strength[i], BANNER)
    for i in after_refs:
        if i < n:
            strength[i] = max(strength[i], AFTER_REFERENCES)
    if not heads:
        first = min(openers, default=-1)
        ordered = tuple(sorted(openers))
        return DocStructure(strength, level, len(openers), 0, first, ordered, len(openers), ordered)
    top = min(lv for _, lv, _ in heads)
    tops = sum(1 for _, lv, _ in heads if lv == top)
    # a title heads deeper sections: the heading after it is deeper
    headed = sum(1 for (_, a, _), (_, b, _) in pairwise(heads) if a == top and b > top)
    title_level = tops <= TITLE_SHARE * len(heads) and headed >= TITLE_HEADS * tops
    counts = Counter(name for _, _, name in heads)
    at_head = {i: (lv, name) for i, lv, name in heads}
    opening: list[str] = []
    marked = len(openers)
    restarts = 0
    first_marked = min(openers, default=-1)
    fixed = set(openers)
    shallowest = 7  # the shallowest heading level of the document in progress
    seen: set[str] = set()  # the heading names of the document in progress
    heads_in = 0  # how many headings it has had
    leaders: set[str] = set()  # the names that opened an earlier document
    for i in sorted(at_head.keys() | openers):
        if i not in at_head:  # front matter or a pandoc title: a new document
            opening, shallowest, seen, heads_in = [], 7, set(), 0
            continue
        lv, name = at_head[i]
        rel = lv - top
        level[i] = rel
        if i in openers or (rel == 0 and (title_level or (lv == 1 and i not in docutils))):
            # a title: the document's opening is what follows it
            strength[i] = MARKED if i in openers or title_level else 1.0
            marked += i not in openers
            first_marked = i if first_marked < 0 else first_marked
            opening, shallowest, seen, heads_in = [], 7, set(), 0
            continue
        # the name that opened an earlier document, new to this one once its own
        # opening is past ("Synopsis" of a page after one that opened on "Description")
        leads = name in leaders and name not in seen and heads_in >= OPENER_HEADINGS
        if name and counts[name] > 1 and (name in opening or leads) and lv <= shallowest:
            strength[i] = max(strength[i], RESTART)
            fixed.add(i)
            restarts += 1
            opening, shallowest, seen, heads_in = [], 7, set(), 0
        if heads_in == 0 and name:
            leaders.add(name)
        shallowest = min(shallowest, lv)
        seen.add(name)
        heads_in += 1
        if len(opening) < OPENER_HEADINGS and name:
            opening.append(name)
    certain = sum(1 for x in strength if x >= MARKED)
    return DocStructure(
        strength,
        level,
        marked,
        restarts,
        first_marked,
        tuple(sorted(fixed)),
        certain,
        tuple(sorted(openers)),
        tuple(heads),
    )


def heading_trails(structure: DocStructure, n: int) -> list[tuple[str, ...]]:
    """For each of the `n` pieces `structure` was read from, the names of the section
    headings it sits under, outermost first (``("install", "on windows")``), its own
    heading left out: the words a paragraph deep in a section does not repeat, which
    a search may index with it (`engine.search.core.SearchIndex`). A front matter or a
    pandoc title line starts a document afresh: no heading above it."""
    trails: list[tuple[str, ...]] = []
    open_: list[tuple[int, str]] = []  # (level, name) of the headings in force
    heads = {i: (lv, name) for i, lv, name in structure.heads}
    fresh = set(structure.opened)
    for i in range(n):
        if i in fresh:
            open_ = []
        trails.append(tuple(name for _, name in open_ if name))
        if i in heads:
            lv, name = heads[i]
            while open_ and open_[-1][0] >= lv:
                open_.pop()
            open_.append((lv, name))
    return trails
