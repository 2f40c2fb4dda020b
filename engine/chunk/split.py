"""The seed's splitting stages: paragraphs into chunks, then compaction.

Both keep the seed's names, signatures and results. `compact_spans` is the
same compaction expressed as spans over its input, which is what the pipeline
and the workbench use to link a compacted chunk to the raw chunks it holds.

`compact_unit_spans` is not the seed's: the chunks of a markdown document, each section
opening one (`chunk_turns` with `by_message`; `section_heads` says where its headings
are), compacted so that a heading starts its chunk and never ends one (a short body is
never glued to the next heading). Every chunk of a document but the seed's own
(``--merge seed``) is made so (`opens_at_headings`, `section_spans`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chunkscope.engine.model import (
    Chunk,
    Progress,
    Span,
    Turn,
    chunks_from_spans,
    gc_paused,
    piece_lines,
    solid_chars,
    text_lines,
    with_progress,
)
from chunkscope.engine.params import SliderSpec, check_fields, knob
from chunkscope.engine.read.headings import (
    DEEP_FENCE_LINES,
    FENCE_LINES,
    SOURCE_FENCE,
    after_heading,
    block_fence_after,
    deep_fence_close,
    heading_at,
)
from chunkscope.engine.read.source import DOC_ROLE

PARAGRAPH_BREAK = "\n\n"


@dataclass(frozen=True)
class CompactParams:
    """The compaction stage's knob (see `engine.params`)."""

    min_chars: int = knob(
        80,
        "compaction minimum: a chunk shorter than N chars (role prefixes counted) absorbs the next",
        flag="--min-chars",
        minimum=0,
        metavar="N",
        slider=SliderSpec(0, 1000, 10, 100, label="min chars", fmt="{:.0f}", order=50),
    )

    def __post_init__(self) -> None:
        check_fields(self)


#: The seed's compaction minimum (`compact_chunks`' default), from its declaration.
DEFAULT_MIN_CHARS: int = CompactParams().min_chars


def chunk_turns(
    turns: Sequence[Turn], progress: Progress | None = None, *, by_message: bool = False
) -> list[Chunk]:
    """Split each turn's text on blank lines; each later paragraph opens a new chunk.

    The first paragraph of a turn extends the current chunk, so turns without a
    blank line stay together. Paragraphs keep their turn's role, timestamp,
    source line and turn index. No turns give no chunks (the reference returned
    one empty chunk, which nothing downstream can use). ``progress(done, total)``
    counts turns. With `by_message` (not the seed's behaviour), every message (a new
    source line: a log message, a markdown section) also opens a chunk, so chunks
    start where a topic can change (the topic segmenter's units).
    """
    if not turns:
        return []
    chunks: list[list[Turn]] = [[]]
    with gc_paused():
        _split_into(with_progress(turns, progress), chunks, by_message)
        return [Chunk(c) for c in chunks if c] or [Chunk([])]


def fenced_paragraphs(parts: list[str], *, deep: bool = False) -> list[str]:
    """A text's paragraphs (`parts`, split at its blank lines) with those inside a fenced
    code block (aider's ``<source>`` block too) joined to the paragraph the fence opened
    in (blank lines kept): a code block is one paragraph, so no chunk starts inside it
    with a role label its code never had. With `deep` (a document's text), a list item's
    fenced block, indented 4 spaces or more, is one too when a bare marker at its
    indentation closes it (`engine.read.headings.deep_fence_close`; walk 61, F13: Astro's
    numbered steps were cut inside their code). Not the seed's split (`chunk_turns` with
    `by_message` only). reStructuredText's indented blocks are not joined: measured on the held-out
    documentation sets, joining them raised Pk (titled 0.046 -> 0.067, awscli's examples
    0.030 -> 0.117)."""
    out: list[str] = []
    fence: str | None = None
    close: re.Pattern[str] | None = None  # the closing line of an open list item's fence
    text = PARAGRAPH_BREAK.join(parts) if deep else ""
    closes: dict[str, int] = {}  # a closing line's pattern: where it was last found (-1: none)
    start = 0  # where the part is in `text`
    for part in parts:
        at = start + len(part)  # (the part scanned ends where it does)
        start = at + len(PARAGRAPH_BREAK)
        if fence is not None or close is not None:
            out[-1] += PARAGRAPH_BREAK + part
        else:
            out.append(part)
            if "`" in part or "~" in part:
                # a title's backtick or ``~`` underline opens no fence (the heading rule
                # of `engine.read.headings`: a blank line after it)
                part = after_heading(part, heading_at(part))
        if "`" in part or "~" in part or _SOURCE_TAG in part:
            at -= len(part)
            for line in part.split("\n"):
                at += len(line) + 1  # the next line's start
                if close is not None:
                    if close.match(line):
                        close = None
                    continue
                if deep and fence is None and line.startswith("    "):
                    opened = deep_fence_close(line)
                    if opened is not None and _found_after(opened, text, at, closes):
                        close = opened
                        continue
                fence = block_fence_after(line, fence)
    return out


def _found_after(pattern: re.Pattern[str], text: str, at: int, found: dict[str, int]) -> bool:
    """Whether `pattern` matches in `text` from `at` on; `found` remembers where each
    pattern last matched (-1: nowhere after the place asked), so a document with many
    list items' fences searches it once per kind of fence, not once per fence."""
    last = found.get(pattern.pattern)
    if last is not None and (last == -1 or last >= at):
        return last != -1
    m = pattern.search(text, at)
    found[pattern.pattern] = m.start() if m else -1
    return m is not None


#: What aider's ``<source>`` and ``</source>`` lines have in common.
_SOURCE_TAG = SOURCE_FENCE[2:]


def _fenced(text: str) -> bool:
    """Whether a message may hold a fenced code block (aider's ``<source>`` too)."""
    return FENCE_LINES.search(text) is not None or _SOURCE_TAG in text


def _split_into(turns: Iterable[Turn], chunks: list[list[Turn]], by_message: bool) -> None:
    for turn in turns:
        if by_message and chunks[-1] and chunks[-1][-1].source_line != turn.source_line:
            chunks.append([])
        parts = turn.text.split(PARAGRAPH_BREAK)
        skips: list[int] | None = None  # blank lines dropped before each paragraph
        if by_message and len(parts) > 1:
            doc = turn.role == DOC_ROLE
            if _fenced(turn.text) or (doc and DEEP_FENCE_LINES.search(turn.text)):
                parts = fenced_paragraphs(parts, deep=doc)
            if doc and any(not p or (p[0] in "\n \t" and _LEADING_BLANKS.match(p)) for p in parts):
                # a document's (its text is its lines; a log message's is kept as written)
                parts, skips = _without_blank_runs(parts)
        if len(parts) == 1 and skips is None:
            chunks[-1].append(turn)
            continue
        # A document section's text is its lines from `source_line` on (its
        # `last_line` is known): each paragraph gets its own first and last line, so
        # a chunk says exactly which lines it holds and a cut between two paragraphs
        # (a document that starts without a heading) is placed exactly.
        exact = turn.source_line is not None and turn.last_line is not None
        line = turn.source_line if exact or (by_message and turn.role == "Doc") else None
        last_part = len(parts) - 1
        # a message joined from records (`Turn.pieces`): each paragraph says the records
        # holding its words (walk 72, F4); `solid` counts the words' characters before it
        pieces = turn.pieces if line is None and turn.source_line is not None else None
        solid = 0
        for i, part in enumerate(parts):
            if skips is not None and line is not None:
                line += skips[i]
            if line is None:
                # a collapsed call's line stays with its first paragraph; a paragraph
                # before the calls shown after the text ends where the text does
                call = turn.call_line if i == 0 else None
                at = turn.source_line
                end = turn.end_line if i == last_part or turn.text_end is None else turn.text_end
                held = piece_lines(pieces, solid, part) if pieces else None
                if held is not None:
                    at, end = held
                    solid += solid_chars(part)
                piece = Turn(
                    turn.timestamp,
                    turn.role,
                    part,
                    at,
                    turn.turn_index,
                    call_line=call,
                    end_line=end,
                    text_start=turn.text_start,
                )
            elif exact:
                at, last = text_lines(part, line)
                piece = Turn(turn.timestamp, turn.role, part, at, turn.turn_index, last)
                line += part.count("\n") + 2
            else:  # (by_message) the paragraph's first line
                at = line + len(part) - len(part.lstrip("\n"))
                piece = Turn(turn.timestamp, turn.role, part, at, turn.turn_index)
                line += part.count("\n") + 2
            if i == 0:
                chunks[-1].append(piece)
            else:
                chunks.append([piece])


#: Blank lines (spaces allowed) at the start of a paragraph split at ``\n\n``.
_LEADING_BLANKS = re.compile(r"(?:[ \t]*\n)+")


def _without_blank_runs(parts: list[str]) -> tuple[list[str], list[int]]:
    """`parts` (a text split at ``\n\n``, fences joined) where a run of blank lines left an
    empty paragraph or one opening on blank lines: those blank lines dropped, and for each
    paragraph kept, the lines dropped before it. Not the seed's split (walk 61, F5: under
    a run of two blank lines a chunk's text opened on an empty line its lines did not
    hold, ``Doc: \nPara two``; under three, an empty ``Doc: `` paragraph ended on a blank
    line and a heading's unit with it)."""
    kept: list[str] = []
    skips: list[int] = []
    dropped = 0
    for part in parts:
        if not part or part.isspace():
            dropped += part.count("\n") + 2  # the part's lines and the break after it
            continue
        lead = _LEADING_BLANKS.match(part)
        if lead:
            dropped += lead.group().count("\n")
            part = part[lead.end() :]
        kept.append(part)
        skips.append(dropped)
        dropped = 0
    if not kept:  # (nothing but blanks: the text as it was, one paragraph)
        return ["\n\n".join(parts)], [0]
    return kept, skips


def _joined_size(a: int, b: int) -> int:
    """Chars of two chunks' texts joined by the newline between their turns."""
    if a == 0:
        return b
    if b == 0:
        return a
    return a + 1 + b


def compact_spans(
    chunks: Sequence[Chunk], min_chars: int = 80, progress: Progress | None = None
) -> list[Span]:
    """The spans over `chunks` that `compact_chunks` merges into one chunk each.

    ``progress(done, total)`` counts chunks.
    """
    if not chunks:
        return []
    spans: list[list[int]] = [[0, 1]]
    sizes: list[int] = [chunks[0].chars]
    for i in with_progress(range(1, len(chunks)), progress):
        size = chunks[i].chars
        if sizes[-1] < min_chars:
            spans[-1][1] = i + 1
            sizes[-1] = _joined_size(sizes[-1], size)
        else:
            spans.append([i, i + 1])
            sizes.append(size)
    if len(spans) >= 2 and sizes[-1] < min_chars:
        last = spans.pop()
        sizes.pop()
        spans[-1][1] = last[1]
    return [(s, e) for s, e in spans]


def compact_chunks(chunks: Sequence[Chunk], min_chars: int = DEFAULT_MIN_CHARS) -> list[Chunk]:
    """Merge undersized chunks forward, then fold a short tail back (the seed's compaction)."""
    with gc_paused():
        return chunks_from_spans(chunks, compact_spans(chunks, min_chars))


#: What a raw chunk of a document holds of a section's heading (`section_heads`): none,
#: the heading and text after it, or the heading line alone.
BODY, HEADED, HEADING_ALONE = 0, 1, 2

#: A line the reader stripped to its marks (``#`` and trailing blanks): a section's
#: heading with no title, which `engine.read.headings.heading_at` does not take.
_BARE_HEADING = re.compile(r"#{1,6}$")


def section_heads(chunks: Sequence[Chunk]) -> list[int]:
    """For each raw chunk of a markdown document (`chunk_turns` with `by_message`: one
    paragraph each), whether it opens a section with its heading (`HEADED`), is that
    heading alone (`HEADING_ALONE`) or neither (`BODY`). A section's first paragraph
    starts with its heading line (the markdown reader opens a section at a heading,
    fenced ``#`` lines aside); a later paragraph never does, whatever it holds."""
    out: list[int] = []
    previous: int | None = -1
    for c in chunks:
        head = BODY
        if c.turns:
            t = c.turns[0]
            first = t.turn_index != previous  # the first paragraph of its section
            heading = heading_at(t.text) if first and t.source_line is not None else None
            if heading is not None or (
                first and t.source_line is not None and _BARE_HEADING.match(t.text)
            ):
                # (lines of blanks after it are no text: "# H\n  " is the heading alone;
                # a setext or reStructuredText heading's underline is its own)
                taken = 1 if heading is None else heading.end
                alone = len(c.turns) == 1 and t.text.rstrip().count("\n") < taken
                head = HEADING_ALONE if alone else HEADED
            previous = c.turns[-1].turn_index
        out.append(head)
    return out


def opens_at_headings(kind: str) -> bool:
    """Whether the chunks of a source of `kind` (`Source.kind`) start at its headings
    outside the seed's own split (`engine.pipeline.PipelineParams.by_section`): a
    markdown document's, whose turns are its sections (a log's turns have no headings)."""
    return kind == "markdown"


def section_spans(
    chunks: Sequence[Chunk], min_chars: int, progress: Progress | None = None
) -> list[Span]:
    """The compaction of a document's chunks split at its headings and blank lines
    (`chunk_turns` with `by_message`): `compact_unit_spans` over their `section_heads`."""
    return compact_unit_spans(chunks, min_chars, section_heads(chunks), progress)


def split_words(*, sections: bool, messages: bool = False) -> str:
    """Where `chunk_turns` cuts, in words: at a document's headings (`sections`), at every
    message (`messages`, the topic segmenter's units), and at blank lines."""
    if sections:
        return "headings and blank lines"
    if messages:
        return "every message and blank line"
    return "blank lines"


def cut_reasons(
    chunks: Sequence[Chunk], spans: Sequence[Span], *, sections: bool
) -> list[str | None]:
    """Why each compacted chunk (`spans` over `chunks`) ends where it does: with
    `sections` (a document split at its headings), ``section`` when the next one opens a
    section with its heading (`section_heads`); else ``paragraph`` (a blank line). None
    for the last."""
    heads = section_heads(chunks) if sections else [BODY] * len(chunks)
    out: list[str | None] = []
    for i in range(len(spans)):
        if i + 1 == len(spans):
            out.append(None)
        else:
            out.append("paragraph" if heads[spans[i + 1][0]] == BODY else "section")
    return out


def compact_unit_spans(
    chunks: Sequence[Chunk],
    min_chars: int,
    heads: Sequence[int],
    progress: Progress | None = None,
) -> list[Span]:
    """`compact_spans` for a document's topic units, where `heads` (`section_heads`)
    says which chunks hold a heading: a heading starts its unit and never ends one.

    A unit ending with a heading alone takes the next chunk, whatever its size. A unit
    under `min_chars` takes the next chunk unless that opens a section; then it goes
    back into the unit before it, unless it opens a section itself (it stays short: a
    section under the minimum) or is the first (a short text before the first heading).
    The short last unit goes back into the one before unless it opens a section. With
    no heading in `heads` this is `compact_spans` exactly."""
    if not chunks:
        return []
    spans: list[list[int]] = [[0, 1]]
    sizes: list[int] = [chunks[0].chars]
    for i in with_progress(range(1, len(chunks)), progress):
        size = chunks[i].chars
        short = sizes[-1] < min_chars
        if heads[i - 1] == HEADING_ALONE or (short and heads[i] == BODY):
            spans[-1][1] = i + 1
            sizes[-1] = _joined_size(sizes[-1], size)
            continue
        if short and heads[spans[-1][0]] == BODY and len(spans) >= 2:
            last = spans.pop()  # a short body before a heading: with the text before it
            spans[-1][1] = last[1]
            own = sizes.pop()
            sizes[-1] = _joined_size(sizes[-1], own)
        spans.append([i, i + 1])
        sizes.append(size)
    if len(spans) >= 2 and sizes[-1] < min_chars and heads[spans[-1][0]] == BODY:
        last = spans.pop()
        sizes.pop()
        spans[-1][1] = last[1]
    return [(s, e) for s, e in spans]
