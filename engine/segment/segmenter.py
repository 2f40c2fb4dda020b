"""The topic segmenter: where the topic changes, over the compacted chunks and their vectors.

The seed's merge loop compares single neighbours, and on agent logs that signal is
weak and noisy; merging then runs until the size cap stops it, so the cap, not the
content, decides where chunks break. This segmenter, after TextTiling (Hearst 1997)
and its embedding-based successors, instead:

1. **Compares blocks.** The similarity at a gap is the cosine of the summed (unit)
   vectors of the chunks within ``topic_window`` characters before it and after it
   (at least one chunk each side), so short messages and long sections weigh by
   their text. It is measured at three scales (half, once and twice the window) so
   one window fits both short episodes and long documents.
2. **Scores depth.** At each scale the similarities become z-scores (so the same
   numbers work for TF-IDF and for neural vectors, whose cosines sit near 1), and a
   gap's depth is how far it dips below the highest similarity on each side within
   twice the window: ``(left peak - s) + (right peak - s)``. The depths of the three
   scales are averaged. A real topic change is a valley, not merely a low value.
3. **Prefers structure, without trusting it blindly.** ``topic_structure`` is added
   where the message after the gap is a user's new request after the assistant spoke
   (a follow-up on the goal in course, a background agent's report or a command of
   the tool is none: `engine.segment.requests`), or follows a pause of 30 minutes or a day
   change; ``LANDED`` times it at the agent's first message after its work landed (a
   commit, a push, a pull request) when a task follows; ``PHASE`` at the agent's own
   announcement of its task's next phase (the fix after an investigation, then its
   verification, the fix again once it proves wrong: `engine.segment.requests.next_phase`,
   in the first paragraph of a message or any of its thinking); ``PLAN`` where the agent's plan
   puts its next item in progress and a long stretch of the request follows
   (`engine.segment.requests.plan_step`); no topic starts before a
   session's first request (its preamble: `TopicFrame.lead`), nor inside an answer of the
   agent's that the tool passes on as the next message (`TopicFrame.held`); in markdown,
   times the strength
   with which the unit after the gap starts a document (`engine.segment.docstruct`: front
   matter, a title, a repeated opening section, a banner; and, in a file that does
   not mark its documents for certain, the documents its words make most likely,
   `engine.segment.wordseg`, with those marks as cheaper starts: `document_structure`). A
   section heading alone is no hint.
4. **Cuts the deepest dips first.** Only the best gap within half a window is a
   candidate (one per valley), except that every markdown document start of full
   strength is one (short documents lie within half a window of each other);
   candidates whose score reaches ``topic_depth`` (a
   number, or ``adaptive``: mean + std/2 of the candidates) are taken best first,
   skipping any that would leave a segment under ``topic_min_chars``.
5. **Then fits the size cap.** The topics are the first level; the second is the
   merged chunks, which keep the seed's promise: each fits the one size cap of both
   modes (`engine.segment.merge.MergeParams`: ``max_chunk_chars``, 8192 by default, or
   ``max_chunk_tokens``). A topic over the cap is split (``size_cap`` cuts) at its best
   inner points (`split_ranks`: a heading, a user turn, another message, a paragraph
   gap, never inside a fenced code block while another point fits; the highest score,
   i.e. the lowest similarity, among equals), in as few chunks as the cap allows. A
   single unit over the cap stays whole and is flagged (`MergeResult.over_cap`).

Its units are the compacted chunks of a pipeline in topic mode, which start at every
message (`engine.chunk.split.chunk_turns` with ``by_message``), so a cut can fall exactly
where a user's question or a document begins. Everything is vectorised numpy over
the gaps (a sparse table for the range maxima). The result is an
`engine.segment.merge.MergeResult` (no passes) whose ``topic_bounds`` say where each topic
starts, so the command line and the workbench show topic cuts as they show merge cuts,
each with its reason: ``topic`` (its depth), ``structure`` (a structural point tipped
it), or ``size_cap`` (inside a topic).
"""

from __future__ import annotations

import bisect
import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from chunkscope.engine.model import Chunk, Span, Turn, chunks_from_spans
from chunkscope.engine.params import SliderSpec, check_fields, knob
from chunkscope.engine.read.headings import Heading, after_heading, heading_at, style_levels
from chunkscope.engine.read.source import DOC_ROLE, FENCE_LINES, THINKING_ROLE
from chunkscope.engine.segment.docstruct import (
    MARKED,
    DocStructure,
    Piece,
    document_starts,
    opening_pattern,
)
from chunkscope.engine.segment.merge import (
    CUT_CODES,
    LazyVectors,
    MergeParams,
    MergeResult,
    char_counts,
)
from chunkscope.engine.segment.requests import (
    ECHO_CHARS,
    FOLLOW_UP,
    LANDED,
    LANDED_STRETCH,
    PHASE,
    PLAN,
    PLAN_SHARE,
    PLAN_STRETCH,
    REPEAT_WINDOW,
    Phase,
    echoes,
    is_tool_call,
    lands_work,
    message_kind,
    next_phase,
    plan_step,
    request_text,
    words,
)
from chunkscope.engine.segment.wordseg import DOC_PENALTY, document_words

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The scales of the window the depth is averaged over.
SCALES = (0.5, 1.0, 2.0)
#: A pause of this many seconds between two messages is a structural point.
PAUSE_SECONDS = 30 * 60
#: The roles whose prose is the agent's own words, where it announces a phase or turns to
#: its next task: its messages, and its thinking (a reasoning model, e.g. a DeepSeek
#: reasoner run of mini-swe-agent, says what it does next there, and its message is only
#: the command it runs).
_AGENT_WORDS = frozenset({"Bot", THINKING_ROLE})
#: How strongly a document start found by its words (`engine.segment.wordseg`) counts, in a
#: markdown file whose documents are not all marked for certain (`frame`).
DOC_WORDS = 1.0
#: A markdown file in which front matter, title lines or headings of a title level
#: start this many documents is trusted to mark them all: its words add nothing; if
#: front matter or title lines alone start this many, only they and title-level
#: headings start documents.
EXPLICIT_STARTS = 2
#: In the word model, each start a file marks (after its first unit: a title, a
#: repeated opening) makes a start it does not mark this much dearer (times
#: `engine.segment.wordseg.DOC_PENALTY`): the more documents a file marks itself, the less
#: likely it leaves one unmarked.
TITLE_WEIGHT = 0.5
#: How many units before a repeated opening may open its document (`document_structure`).
LEAD_UNITS = 3
#: How much of the per-document cost a unit that opens as the file's first document
#: opens (`engine.segment.docstruct.opening_pattern`) is spared: documents of one set often
#: open alike (".. versionadded::", "The following example ...").
OPENING_SPARED = 1.0
#: The size cap of a merged chunk in chars by default: the seed's (`MergeParams`).
DEFAULT_MAX_CHARS: int | None = MergeParams().max_chunk_chars


@dataclass(frozen=True)
class TopicParams:
    """The topic segmenter's knobs (see the module docstring and `engine.params`)."""

    topic_window: int = knob(
        1500,
        "chars compared on each side of a gap (at least one chunk each side)",
        flag="--topic-window",
        minimum=1,
        metavar="N",
        slider=SliderSpec(200, 10000, 100, 1000, label="window", fmt="{:.0f}", order=110),
    )
    topic_depth: Literal["adaptive"] | float = knob(
        7.0,
        "a gap whose depth plus structure reaches this (z units) is a topic change; "
        "adaptive: mean + std/2 of the candidate gaps",
        flag="--topic-depth",
        words=("adaptive",),
        metavar="adaptive|X",
        slider=SliderSpec(0.0, 10.0, 0.1, 1.0, label="depth", start=7.0, order=120, choice="fixed"),
    )
    topic_min_chars: int = knob(
        500,
        "no topic segment shorter than this (chars)",
        flag="--topic-min-chars",
        minimum=0,
        metavar="N",
        slider=SliderSpec(0, 5000, 50, 500, label="min size", fmt="{:.0f}", order=130),
    )
    topic_unit_chars: int = knob(
        20,
        "in topic mode the compaction minimum: a unit shorter than this absorbs the next "
        "(--min-chars is the seed mode's)",
        flag="--topic-unit-chars",
        minimum=0,
        metavar="N",
    )
    topic_chunk_tokens: int = knob(
        200,
        "merged chunks of about this size: each topic is split in halves, each at its best "
        "inner point among those that leave the fewest chunks of at most N tokens (the run's "
        "tokenizer, the unit of a search context's budget; 0: a topic is one chunk unless "
        "over the size cap), until every part fits; chunks a search context can hold",
        flag="--topic-chunk-tokens",
        minimum=0,
        metavar="N",
        slider=SliderSpec(
            0, 2000, 25, 125, label="chunk size", fmt="{:.0f}", order=140, at_lo="whole"
        ),
    )
    topic_structure: float = knob(
        5.0,
        "added to a gap's score at a user turn after the assistant, a long pause, a day "
        "change, or times its strength where a markdown document starts (z units)",
        flag="--topic-structure",
        minimum=0,
        maximum=10,
        metavar="W",
        slider=SliderSpec(0.0, 8.0, 0.1, 1.0, label="structure", order=150),
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class GapScores:
    """Per gap (after chunk ``i``): block similarity, depth, structure bonus, score,
    whether it is the best gap of its valley, and the threshold in force."""

    similarity: FloatArray
    depth: FloatArray
    structure: FloatArray
    score: FloatArray
    candidate: npt.NDArray[np.bool_]
    threshold: float


def _reach(prefix: IntArray, width: float) -> tuple[IntArray, IntArray]:
    """For every boundary ``b = 1..n-1``: the first chunk within ``width`` chars on
    its left and the end of those on its right (at least one chunk each side)."""
    n = len(prefix) - 1
    b = np.arange(1, n, dtype=np.int64)
    lo = np.minimum(np.searchsorted(prefix, prefix[b] - width, side="left"), b - 1)
    hi = np.maximum(np.searchsorted(prefix, prefix[b] + width, side="right") - 1, b + 1)
    return np.maximum(lo, 0).astype(np.int64), np.minimum(hi, n).astype(np.int64)


def _gap_reach(prefix: IntArray, width: float) -> tuple[IntArray, IntArray]:
    """For every gap: the range ``[lo, hi)`` of gaps within ``width`` chars of it."""
    n = len(prefix) - 1
    bpos = prefix[1:n]
    lo = np.searchsorted(bpos, bpos - width, side="left")
    hi = np.searchsorted(bpos, bpos + width, side="right")
    return lo.astype(np.int64), hi.astype(np.int64)


# Rows of the running sums added up at a time: a block's rows stay in cache while each
# takes the one above it (summing down whole columns of a large array is slower).
_PREFIX_BLOCK = 16
# Gaps whose block cosines are computed at a time (their rows stay in cache, and the
# temporaries are a block's, never the whole file's).
_COSINE_BLOCK = 1024


def _unit_prefix(vectors: FloatArray) -> npt.NDArray[np.float32]:
    """Cumulative sums of the row-normalised vectors (float32: half the memory traffic;
    block sums accurate to about 1e-4, far below the differences that matter): row ``i``
    is the sum of the first ``i`` unit vectors, each added in turn, so a block of rows
    at a time gives the same numbers as one running sum down the columns."""
    w = np.asarray(vectors).astype(np.float32, copy=False)
    norms = np.sqrt(np.einsum("ij,ij->i", w, w, dtype=np.float64))
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0).astype(np.float32)
    cum = np.empty((len(w) + 1, w.shape[1]), dtype=np.float32)
    cum[0] = 0.0
    np.multiply(w, scale[:, None], out=cum[1:])
    for r0 in range(1, len(cum), _PREFIX_BLOCK):
        block = cum[r0 : r0 + _PREFIX_BLOCK]
        block[0] += cum[r0 - 1]
        np.add.accumulate(block, axis=0, out=block)
    return cum


def _block_cosines(cum: npt.NDArray[np.float32], lo: IntArray, hi: IntArray) -> FloatArray:
    n = len(cum) - 2  # gaps
    sims = np.zeros(n, dtype=np.float64)
    for g0 in range(0, n, _COSINE_BLOCK):
        g1 = min(n, g0 + _COSINE_BLOCK)
        base = cum[g0 + 1 : g1 + 1]  # the sums up to each gap: a view, no copy
        left = base - cum[lo[g0:g1]]
        right = cum[hi[g0:g1]] - base
        # Dot products in float32 (a relative error near 1e-7 here, far below what moves
        # a cut): four times faster than casting every element to float64.
        dots = np.einsum("ij,ij->i", left, right).astype(np.float64)
        den = np.sqrt(
            np.einsum("ij,ij->i", left, left).astype(np.float64)
            * np.einsum("ij,ij->i", right, right).astype(np.float64)
        )
        np.divide(dots, den, out=sims[g0:g1], where=den > 0)
    out: FloatArray = np.clip(sims, -1.0, 1.0)
    return out


class _RangeMax:
    """The maximum of ``values[lo:hi]`` for arrays of ranges (a sparse table)."""

    def __init__(self, values: FloatArray) -> None:
        self.levels = [values]
        size = 1
        while 2 * size <= len(values):
            prev = self.levels[-1]
            self.levels.append(np.maximum(prev[:-size], prev[size:]))
            size *= 2

    def query(self, lo: IntArray, hi: IntArray) -> FloatArray:
        length = np.maximum(hi - lo, 1)
        k = np.floor(np.log2(length)).astype(np.int64)
        out = np.empty(len(lo), dtype=np.float64)
        for level in np.unique(k).tolist():
            sel = k == level
            table = self.levels[level]
            a, b = lo[sel], hi[sel] - (1 << level)
            out[sel] = np.maximum(table[a], table[np.maximum(b, a)])
        return out


def _depths(sims: FloatArray, lo: IntArray, hi: IntArray) -> FloatArray:
    """``(max of sims[lo..i] - s) + (max of sims[i..hi-1] - s)`` of the z-scores."""
    std = float(np.std(sims))
    z = (sims - float(np.mean(sims))) / (std if std > 1e-12 else 1.0)
    table = _RangeMax(z)
    idx = np.arange(len(z), dtype=np.int64)
    left = table.query(np.minimum(lo, idx), idx + 1)
    right = table.query(idx, np.maximum(hi, idx + 1))
    out: FloatArray = (left - z) + (right - z)
    return out


def structure_points(chunks: Sequence[Chunk], sizes: IntArray | None = None) -> FloatArray:
    """The strength of the structural point at each gap (see the module docstring): 1
    at a user's new request after the assistant spoke (`engine.segment.requests.message_kind`;
    `engine.segment.requests.FOLLOW_UP` at a follow-up, nothing at a report or a command), a
    long pause or a day change; `engine.segment.requests.LANDED` at the agent's first message
    after its work landed, when a task follows (at least
    `engine.segment.requests.LANDED_STRETCH` characters before more work lands);
    `engine.segment.requests.PLAN` where the agent's plan puts its next item in progress
    and the item lasts `engine.segment.requests.PLAN_STRETCH` characters and
    `engine.segment.requests.PLAN_SHARE` of its request; for markdown,
    how strongly the unit after the gap starts a document (0 to
    `engine.segment.docstruct.MARKED`, `engine.segment.docstruct.document_starts`).

    A message starts where the turn index changes. When one starts inside a chunk
    (compaction merged a short chunk into it), the point goes on the gap before that
    chunk when the text before the message is the smaller part of it, else on the gap
    after it; so does a markdown paragraph. `sizes` (each chunk's ``chars``) saves
    computing them again."""
    return _structure(chunks, sizes)[0]


class _DocGaps(NamedTuple):
    """Per gap of a markdown file: the relative level of the heading after it
    (`TopicFrame.headings`), whether the document start there is certain
    (`DocStructure.fixed`), and whether it is front matter or a title line
    (`DocStructure.opened`)."""

    headings: IntArray
    fixed: npt.NDArray[np.bool_]
    opened: npt.NDArray[np.bool_]


def _user_texts(chunks: Sequence[Chunk]) -> dict[int, str]:
    """The whole text of each user message, by turn index (`chunk_turns` cuts a
    message into paragraphs that share its index)."""
    texts: dict[int, list[str]] = {}
    for chunk in chunks:
        for t in chunk.turns:
            if t.role == "You" and t.turn_index is not None:
                texts.setdefault(t.turn_index, []).append(t.text)
    return {i: "\n\n".join(parts) for i, parts in texts.items()}


def _structure(
    chunks: Sequence[Chunk], sizes: IntArray | None = None
) -> tuple[FloatArray, DocStructure | None, _DocGaps, int, npt.NDArray[np.bool_]]:
    """`structure_points`, the `DocStructure` of the markdown units (None if none),
    what it says per gap (`_DocGaps`), how many gaps open the file before its first
    user request (no topic starts there: `TopicFrame.lead`), and the gaps inside an
    answer the tool passes on (`TopicFrame.held`)."""
    n = len(chunks)
    out = np.zeros(max(n - 1, 0))
    totals = (sizes if sizes is not None else char_counts(chunks)).tolist()
    user_texts = _user_texts(chunks)
    prev_role: str | None = None
    prev_index: object = object()
    prev_ts = None
    asked = False  # the last user message was a request or a follow-up, not a report
    lead: int | None = None  # the gap before the first user request (-1: none)
    recent: list[frozenset[str]] = []  # the words of the user's requests so far
    landed = False  # a commit, push or pull request since the agent last spoke
    lands: list[int] = []  # the units where work landed
    turns_to: list[tuple[int, int]] = []  # (gap, unit) where the agent turned after
    starts: list[int] = _offsets(np.asarray(totals, dtype=np.int64)).tolist()
    phase: Phase | None = None  # the agent's phase of the request in course (`phase_cue`)
    phase_from = 0  # where it began (a char offset)
    said: tuple[int, int] | None = None  # (gap, unit) where the agent's last words began
    said_text: str | None = None  # the opening of the agent's last message (`echoes`)
    said_index: object = None  # that message's turn index
    held = np.zeros(max(n - 1, 0), dtype=bool)  # no topic starts there (`TopicFrame.held`)
    step: str | None = None  # the item of the agent's plan in progress, in this request
    steps: list[tuple[int, int]] = []  # (gap, unit) where another item of the plan began
    step_ends: list[int] = []  # the units where a plan's item or a request began
    asks: list[int] = []  # the units where a request began
    pieces: list[Piece] = []
    piece_gaps: list[int] = []
    for j, chunk in enumerate(chunks):
        offset = 0
        total = max(1, totals[j])
        for t in chunk.turns:
            gap = j - 1 if 2 * offset <= total else j
            opens = t.turn_index is None or t.turn_index != prev_index
            if t.role == "Bot" and (now := plan_step(t.text)) is not None:
                # the plan's next item in progress (in any paragraph of a message; its
                # first one opens no topic: the request did), weighed once its length
                # is known (below)
                if step is not None and now != step:
                    step_ends.append(j)
                    if 0 <= gap < n - 1:
                        steps.append((gap, j))
                step = now
            if t.role == "Doc":
                pieces.append(Piece(t.text, opens))
                piece_gaps.append(gap)
            elif opens:
                point = 0.0
                if t.role == "You":
                    text = (
                        user_texts.get(t.turn_index, t.text) if t.turn_index is not None else t.text
                    )
                    echo = said_text is not None and echoes(text, said_text)
                    kind = (
                        "none"  # the agent's answer passed on by the tool
                        if echo
                        else message_kind(text, recent[-REPEAT_WINDOW:])
                    )
                    if kind == "request":
                        recent.append(words(request_text(text) or ""))
                    if kind == "none" and said is not None and echo:
                        # the tool passing the agent's answer on: from inside that
                        # answer to its echo, one topic
                        held[max(said[0] + 1, 0) : max(gap + 1, 0)] = True
                    if kind == "none":
                        # a report, an interruption, a command: the topic in course
                        prev_role, prev_index, asked = t.role, t.turn_index, False
                        offset += len(t.role) + len(t.text) + 3
                        continue
                    start = 1.0 if kind == "request" else FOLLOW_UP
                    landed = False
                    if kind == "request":
                        phase, phase_from = None, int(starts[j])
                        step = None
                        step_ends.append(j)
                        asks.append(j)
                    if lead is None:
                        lead = gap if prev_role is not None else -1
                    if prev_role is not None and (prev_role != "You" or not asked):
                        point = start
                    asked = True
                elif t.role == "Tool" and lands_work(t.text):
                    landed = True
                    lands.append(j)
                elif t.role in _AGENT_WORDS and not is_tool_call(t.text):
                    if landed:
                        landed = False  # the agent turns to its next task (kept below)
                        if 0 <= gap < n - 1:
                            turns_to.append((gap, j))
                    said = (gap, j)
                    if t.role == "Bot":
                        said_text, said_index = t.text, t.turn_index
                    turn = next_phase(phase, t.text, t.role == THINKING_ROLE)
                    if turn is not None and starts[j] - phase_from >= turn[1]:
                        phase, phase_from = turn[0], int(starts[j])
                        point = PHASE
                if t.timestamp is not None and prev_ts is not None:
                    with contextlib.suppress(TypeError):  # aware against naive: unknown
                        if (
                            t.timestamp.date() != prev_ts.date()
                            or (t.timestamp - prev_ts).total_seconds() >= PAUSE_SECONDS
                        ):
                            point = 1.0
                if point > 0 and 0 <= gap < n - 1:
                    out[gap] = max(out[gap], point)
            elif (
                t.role == "Bot"
                and said_text is not None
                and t.turn_index == said_index
                and len(said_text) < ECHO_CHARS
            ):
                # the answer's next paragraph: its opening, as far as an echo is compared
                said_text += "\n\n" + t.text
            elif said is not None and t.role == THINKING_ROLE:
                # a later paragraph of the agent's thinking (a reasoning model thinks in
                # many; a message says what it does next in its first): its announcement
                # opens the phase where the message began
                turn = next_phase(phase, t.text, True)
                at_gap, at = said
                if turn is not None and starts[at] - phase_from >= turn[1]:
                    phase, phase_from = turn[0], int(starts[at])
                    if 0 <= at_gap < n - 1:
                        out[at_gap] = max(out[at_gap], PHASE)
            prev_role, prev_index = t.role, t.turn_index
            if t.timestamp is not None and t.role != "Doc":
                prev_ts = t.timestamp
            offset += len(t.role) + len(t.text) + 3
    if turns_to:
        for gap, j in turns_to:
            # a task follows, not the wrap-up (more commits and pushes, a summary)
            k = bisect.bisect_right(lands, j)
            end = lands[k] if k < len(lands) else n
            if starts[end] - starts[j] >= LANDED_STRETCH:
                out[gap] = max(out[gap], LANDED)
    for gap, j in steps:
        # a phase of the plan, not a step of a minute: a long stretch until the next
        # item, and a good share of its request's (file reads and diffs make short
        # steps long in characters too)
        k = bisect.bisect_right(step_ends, j)
        end = step_ends[k] if k < len(step_ends) else n
        r = bisect.bisect_right(asks, j)
        ask_from = asks[r - 1] if r > 0 else 0
        ask_to = asks[r] if r < len(asks) else n
        length = starts[end] - starts[j]
        if length >= PLAN_STRETCH and length >= PLAN_SHARE * (starts[ask_to] - starts[ask_from]):
            out[gap] = max(out[gap], PLAN)
    headings = np.full(max(n - 1, 0), -1, dtype=np.int64)
    fixed = np.zeros(max(n - 1, 0), dtype=bool)
    opened = np.zeros(max(n - 1, 0), dtype=bool)
    first = 0 if lead is None else max(lead + 1, 0)
    if not pieces:
        return out, None, _DocGaps(headings, fixed, opened), first, held
    found = document_starts(pieces)
    for gap, strength, level in zip(piece_gaps, found.strength, found.level, strict=True):
        if 0 <= gap < n - 1:
            if strength > 0:
                out[gap] = max(out[gap], strength)
            if level >= 0 and (headings[gap] < 0 or level < headings[gap]):
                headings[gap] = level
    for pieces_of, mask in ((found.fixed, fixed), (found.opened, opened)):
        for piece in pieces_of:
            if 0 <= piece_gaps[piece] < n - 1:
                mask[piece_gaps[piece]] = True
    return out, found, _DocGaps(headings, fixed, opened), first, held


#: `split_ranks`' values: a heading of level L ranks ``HEADING_RANK - L`` (a level-1
#: heading 9, a level-6 one 4).
HEADING_RANK = 10
USER_RANK = 8  # a user turn after another role spoke
MESSAGE_RANK = 3  # any other message (or document section) starts
PARAGRAPH_RANK = 2  # a blank line inside one message
HEADING_ONLY_RANK = 1  # right after a unit that is only a heading (it would be orphaned)
FENCED_RANK = 0  # a blank line inside a fenced code block


def _only_heading(text: str, heading: Heading | None) -> bool:
    """Is `text`, which opens with `heading`, nothing but that heading (its lines)?"""
    return heading is not None and text.strip().count("\n") < heading.end


def _heading_only(chunk: Chunk) -> bool:
    """Is the chunk nothing but one heading (`engine.read.headings`: its underline too)?"""
    turns = chunk.turns
    if len(turns) != 1:
        return False
    return _only_heading(turns[0].text, paragraph_heading(turns[0].text, turns[0].role))


#: A log message's paragraph that opens with a markdown ATX heading.
_ATX_PARAGRAPH = re.compile(r"(#{1,6})[ \t]")


def paragraph_heading(text: str, role: str) -> Heading | None:
    """The heading a paragraph opens with: in a document's section (`DOC_ROLE`) any kind
    `engine.read.headings` knows; in a log's message only an ATX one (a tool's output
    underlines its own tables and banners with ``----`` and ``====``)."""
    if role == DOC_ROLE:
        return heading_at(text)
    m = _ATX_PARAGRAPH.match(text)
    return None if m is None else Heading(0, 1, len(m.group(1)), "", "atx")


def split_ranks(chunks: Sequence[Chunk]) -> npt.NDArray[np.int8]:
    """How good each gap (after chunk ``i``) is as a place to split a topic over the
    size cap: the rank of what starts after it (`HEADING_RANK` minus a markdown
    heading's level, `USER_RANK`, `MESSAGE_RANK`, `PARAGRAPH_RANK`), or `FENCED_RANK`
    when the gap falls between two paragraphs of one fenced code block, or
    `HEADING_ONLY_RANK` right after a unit that is nothing but a heading (a cut there
    would part a heading from its text). Units never start mid-paragraph, so every gap
    is at least a paragraph break."""
    n = len(chunks)
    ranks = [PARAGRAPH_RANK] * max(n - 1, 0)
    fenced = False
    prev_role: str | None = None
    prev_key: tuple[object, object] | None = None
    heading_only = False  # `_heading_only` of the chunk before
    styled: list[tuple[int, str]] = []  # (gap, style) of each gap before an underlined heading
    order: list[str] = []  # the styles of the underlined headings, in order
    for j, chunk in enumerate(chunks):
        turns = chunk.turns
        for k, t in enumerate(turns):
            # The paragraphs of one turn share its index and role; each has its own line
            # (`engine.chunk.split`), so the line never tells a new message.
            key = (t.turn_index, t.role)
            new = prev_key is None or key != prev_key or t.turn_index is None
            if new:
                fenced = False
            text = t.text
            if k == 0:
                heading = None if fenced else paragraph_heading(text, t.role)
                if heading is not None and heading.style:
                    order.append(heading.style)
                if j > 0:
                    if fenced:
                        rank = FENCED_RANK
                    elif heading is not None:
                        rank = HEADING_RANK - heading.level
                    elif new and t.role == "You" and prev_role not in (None, "You"):
                        rank = USER_RANK
                    else:
                        rank = MESSAGE_RANK if new else PARAGRAPH_RANK
                    if heading_only:
                        rank = min(rank, HEADING_ONLY_RANK)
                    elif not fenced and heading is not None and heading.style:
                        styled.append((j - 1, heading.style))
                    ranks[j - 1] = rank
                # as `_heading_only(chunk)`, its heading matched once
                heading_only = len(turns) == 1 and _only_heading(text, heading)
            if "```" in text or "~~~" in text:
                body = after_heading(text, heading) if k == 0 else text
                fenced ^= len(FENCE_LINES.findall(body)) % 2 == 1
            prev_role, prev_key = t.role, key
        if not turns:
            heading_only = False
    if styled:  # underlined headings rank at the file's levels of their styles
        levels = style_levels(order)
        for gap, style in styled:
            ranks[gap] = HEADING_RANK - levels[style]
    return np.asarray(ranks, dtype=np.int8)


def _as_vectors(vectors: npt.ArrayLike) -> FloatArray:
    """The vectors as an array, float32 or float64 as given (no copy when they are)."""
    v = np.asarray(vectors)
    if v.dtype not in (np.float32, np.float64):
        v = v.astype(np.float64)
    return v


def _offsets(sizes: IntArray) -> IntArray:
    """Where each chunk starts in the text (one newline between chunks), and the end."""
    chars = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes + 1, out=chars[1:])
    return chars


@dataclass(frozen=True, eq=False)
class TopicFrame:
    """What the segmenter needs of the chunks and vectors whatever its knobs: each
    chunk's size and start, the running sum of the unit vectors and the structural
    points. Built once per file (`frame`), it makes a slider step or a sweep point
    only the knob-dependent work."""

    chunks: Sequence[Chunk]
    vectors: FloatArray
    sizes: IntArray
    chars: IntArray
    cum: npt.NDArray[np.float32]
    structure: FloatArray
    ranks: npt.NDArray[np.int8]
    """`split_ranks`: how good each gap is as a place to split a topic over the cap."""
    #: per gap, the level of the markdown heading that opens the unit after it,
    #: relative to the file's shallowest (0 = a top-level section; -1: no heading):
    #: where a long document splits best (`engine.segment.docstruct`)
    headings: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: how many gaps open the file before its first user request: a session's preamble
    #: (system prompt, instructions, a tool's banner) belongs to the first topic
    lead: int = 0
    #: per gap of a markdown file: a document starts there at full strength (1 or more:
    #: front matter, a title, a repeated opening, a document its words find); it is a
    #: candidate even when a deeper gap lies within half a window (short documents)
    documents: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: per gap of a session: inside an answer of the agent's that the tool passes on as
    #: the next user message (aider's architect mode hands its plan to the editor model),
    #: from the answer's second unit to that message: no topic starts there
    held: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: the block similarity and depth of every gap by topic window (`window_depths`):
    #: a step of another knob (depth, structure, min size, the cap) or a sweep over one
    #: reuses them; filled as windows are asked for, read-only arrays
    _by_window: dict[float, tuple[FloatArray, FloatArray, IntArray, IntArray]] = field(
        default_factory=dict, init=False, repr=False
    )
    #: the merged chunk and the mean vector of every span ``(start, end)`` of the last
    #: segmentations (`segment` after the first: a slider step keeps most of the spans
    #: of the step before, and their chunks and means are the same objects and bits);
    #: ``"spans"`` holds them (replaced, never changed in place, so threads sharing the
    #: frame read one or the other), ``"runs"`` counts the segmentations
    _span_memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def window_depths(self, window: float) -> tuple[FloatArray, FloatArray, IntArray, IntArray]:
        """(similarity at the window, depth averaged over the `SCALES`) of every gap, and
        the first and last gap within half a window of each (where a candidate is the
        deepest)."""
        found = self._by_window.get(window)
        if found is None:
            chars, cum = self.chars, self.cum
            n = len(self.sizes)
            depth = np.zeros(n - 1)
            sims = np.zeros(n - 1)
            for scale in SCALES:
                width = window * scale
                s = _block_cosines(cum, *_reach(chars, width))
                if scale == 1.0:
                    sims = s
                depth += _depths(s, *_gap_reach(chars, 2 * width))
            depth /= len(SCALES)
            lo, hi = _gap_reach(chars, window / 2)
            for a in (sims, depth, lo, hi):
                a.setflags(write=False)
            found = self._by_window[window] = (sims, depth, lo, hi)
        return found


def _trusted(docs: DocStructure) -> bool:
    """Does a markdown file mark all its documents for certain? Front matter, title
    lines or headings of a title level start at least `EXPLICIT_STARTS` of them
    (`DocStructure.certain`), or it is one titled document: one marked start, which
    opens the file, and no repeated opening. (A file where front matter or title lines
    alone start that many is read by those alone: `frame`.)"""
    if docs.certain >= EXPLICIT_STARTS:
        return True
    return docs.marked == 1 and docs.restarts == 0 and 0 <= docs.first_marked <= 1


def document_structure(
    chunks: Sequence[Chunk],
    structure: FloatArray,
    fixed: npt.NDArray[np.bool_],
    headings: IntArray,
) -> FloatArray:
    """The document starts of a markdown file that does not mark them all for certain,
    as structure strengths per gap: the most likely documents by their words
    (`engine.segment.wordseg.document_words`), where a document starting at a marked point
    (a title, a banner, the end of a block of link references) is spared that much of
    the per-document cost (all of it at a certain start: front matter, a repeated
    opening), and an unmarked start costs `TITLE_WEIGHT` more per start the file marks.
    The certain starts keep their strength, each document the words find gets at least
    `DOC_WORDS`, and a marked point they do not take is no start.

    A repeated opening is a heading, and a document often opens with a paragraph or two
    before it: the units between the heading before it and it (at most `LEAD_UNITS`)
    are spared too, and when the words start a document at one of them, it starts there
    with the repeated opening's strength, and the heading stays a start only if the
    words take it too (then both are starts). A unit that opens as the file's first
    document opens (its first paragraph's `opening_pattern`, not a heading) is spared
    `OPENING_SPARED`."""
    n = len(chunks)
    spared = np.zeros(n)
    spared[1:] = np.where(fixed, 1.0, np.minimum(structure, 1.0))
    # each unit's own first paragraph (the file's name, a line of no file, is none)
    firsts = [next((t.text for t in c.turns if t.source_line is not None), "") for c in chunks]
    first = next((i for i, text in enumerate(firsts) if text.strip()), n)
    opening = opening_pattern(firsts[first]) if first < n else ""
    if opening:
        for u in range(first + 1, n):
            # a paragraph right under a heading belongs to that section
            if not _heading_only(chunks[u - 1]) and opening_pattern(firsts[u]) == opening:
                spared[u] = max(spared[u], OPENING_SPARED)
    titles = int(np.count_nonzero(structure[1:] >= 1.0))
    lead: dict[int, int] = {}  # a unit that may open the document of a repeated opening
    heads = np.flatnonzero(headings >= 0) + 1  # units that open with a heading
    for g in np.flatnonzero(fixed & (headings >= 0)).tolist():
        u = g + 1
        k = int(np.searchsorted(heads, u))
        first = max(int(heads[k - 1]) + 1 if k else 1, u - LEAD_UNITS)
        for v in range(first, u):
            if not fixed[v - 1]:
                lead[v] = u
                spared[v] = 1.0
    texts = ["\n".join(t.text for t in c.turns) for c in chunks]
    found = document_words(texts, DOC_PENALTY * (1.0 + TITLE_WEIGHT * titles), spared=spared)
    out = np.where(fixed, structure, 0.0)
    for u in found:
        if u in lead:  # the document of a repeated opening opens a little earlier
            out[u - 1] = max(out[u - 1], structure[lead[u] - 1])
            out[lead[u] - 1] = 0.0
        else:
            out[u - 1] = max(out[u - 1], structure[u - 1], DOC_WORDS)
    return out


def frame(chunks: Sequence[Chunk], vectors: npt.ArrayLike) -> TopicFrame:
    """The `TopicFrame` of `chunks` and their `vectors`."""
    v = _as_vectors(vectors)
    sizes = char_counts(chunks)
    cum = _unit_prefix(v) if len(chunks) >= 2 else np.zeros((0, 0), dtype=np.float32)
    chars = _offsets(sizes)
    structure, docs, gaps, lead, held = _structure(chunks, sizes)
    if docs is not None and len(chunks) >= 2:
        if len(docs.opened) >= EXPLICIT_STARTS:
            # front matter (or title lines) marks the documents: only they and
            # title-level headings (`MARKED`) start one
            structure = np.where(gaps.opened | (structure >= MARKED), structure, 0.0)
        elif not _trusted(docs):
            structure = document_structure(chunks, structure, gaps.fixed, gaps.headings)
    headings = gaps.headings
    documents = structure >= 1.0 if docs is not None else np.zeros(0, dtype=bool)
    return TopicFrame(
        chunks,
        v,
        sizes,
        chars,
        cum,
        structure,
        split_ranks(chunks),
        headings,
        lead,
        documents,
        held,
    )


def gap_scores(
    vectors: npt.ArrayLike,
    chunks: Sequence[Chunk],
    params: TopicParams,
    prepared: TopicFrame | None = None,
) -> GapScores:
    """Block similarity, depth, structure and score of every gap (the module docstring).
    `prepared` (the `frame` of these chunks and vectors) saves computing it again."""
    n = len(chunks)
    if n < 2:
        empty = np.zeros(0)
        return GapScores(empty, empty, empty, empty, np.zeros(0, dtype=bool), 0.0)
    f = prepared if prepared is not None else frame(chunks, vectors)
    sims, depth, lo, hi = f.window_depths(params.topic_window)
    struct = f.structure * params.topic_structure
    score = depth + struct
    if len(f.held) == n - 1 and f.held.any():
        score = np.where(f.held, np.minimum(score, 0.0), score)  # no topic starts there
    candidate = score >= _RangeMax(score).query(lo, hi)
    if len(f.documents) == n - 1:
        candidate |= f.documents  # each document start its own, however short
    if isinstance(params.topic_depth, str):
        pool = score[candidate & (depth > 0)]
        threshold = float(np.mean(pool) + 0.5 * np.std(pool)) if len(pool) else np.inf
    else:
        threshold = float(params.topic_depth)
    return GapScores(sims, depth, struct, score, candidate, threshold)


def segment(
    chunks: Sequence[Chunk],
    vectors: npt.ArrayLike,
    params: TopicParams | None = None,
    prepared: TopicFrame | None = None,
    *,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    max_tokens: int | None = None,
    token_counts: Sequence[int] | None = None,
) -> MergeResult:
    """Topic segments of `chunks` (with their `vectors`), each split into merged chunks
    that fit the size cap, as a `MergeResult` (its ``topic_bounds`` are the topics).
    `prepared` (their `frame`, built once) leaves only the work that depends on the
    knobs. The cap is `max_chars` (the seed's 8192 by default; None: no cap) or, when
    given, `max_tokens`; as in the seed loop a merged chunk's size is ``sum(part sizes)
    + (parts - 1)``. A token cap and the chunk size (``topic_chunk_tokens``) count
    `token_counts` (one per chunk; without them, the default tokenizer's counts)."""
    params = params or TopicParams()
    size = MergeParams(mode="topic", max_chunk_chars=max_chars, max_chunk_tokens=max_tokens)
    n = len(chunks)
    if n == 0:
        return _result([], _as_vectors(vectors), [0], [0], np.zeros(0, np.int8), None, None, size)
    f = prepared if prepared is not None else frame(chunks, vectors)
    if len(f.sizes) != n:
        raise ValueError(f"the frame has {len(f.sizes)} chunks, not {n}")
    v = f.vectors
    scores, chosen, cuts = _topics(f, chunks, params)
    chars = f.chars
    cap = size.cap
    bounds = chosen
    over = None
    target = params.topic_chunk_tokens
    splits = splits_below_cap(target, size)
    tokens = _token_offsets(f, chunks, token_counts) if splits or max_tokens is not None else None
    if cap is not None:
        prefix = chars
        if tokens is not None and max_tokens is not None:
            prefix = tokens
        knobs = (cap, params.topic_window, params.topic_structure)  # the score's, the cap
        bounds = _fit_kept(f, "fit-cap", knobs, chosen, prefix, cap, scores.score)
        b_arr = np.asarray(bounds, dtype=np.int64)
        _cut_where_none(cuts, b_arr, CUT_CODES["size_cap"])
        over = (prefix[b_arr[1:]] - prefix[b_arr[:-1]] - 1) > cap
    if splits and tokens is not None:
        # retrieval-sized chunks inside the topics, in tokens as a context's budget is
        # (only ever splits further: the cap holds)
        knobs = (target, params.topic_window, params.topic_structure)
        split = _fit_kept(f, "fit-size", knobs, bounds, tokens, target, scores.score)
        bounds = _keep_together(split, bounds, f.ranks, chars if cap is None else prefix, cap)
        b_arr = np.asarray(bounds, dtype=np.int64)
        _cut_where_none(cuts, b_arr, CUT_CODES["chunk_size"])
        if over is not None and cap is not None:
            over = (prefix[b_arr[1:]] - prefix[b_arr[:-1]] - 1) > cap
    return _result(chunks, v, bounds, chosen, cuts, scores, over, size, f)


def _token_offsets(
    f: TopicFrame, chunks: Sequence[Chunk], token_counts: Sequence[int] | None
) -> IntArray:
    """`_offsets` of `_token_counts`, remembered in the frame for the list of counts
    given (a pipeline gives the same list at every step); read-only."""
    found = f._span_memo.get("tokens")
    if (
        found is not None
        and token_counts is not None
        and found[0] is token_counts
        and len(found[1]) == len(token_counts) + 1
    ):
        kept: IntArray = found[1]
        return kept
    out = _offsets(_token_counts(chunks, token_counts))
    out.setflags(write=False)
    if token_counts is not None:
        f._span_memo["tokens"] = (token_counts, out)
    return out


def _topics(
    f: TopicFrame, chunks: Sequence[Chunk], params: TopicParams
) -> tuple[GapScores, list[int], npt.NDArray[np.int8]]:
    """`_choose_topics`, remembered in the frame for the last topic knobs: a step of the
    size cap (or of the chunk size) keeps the topics, and splits them anew. A new list of
    starts and array of cut codes each call (`segment` adds the cap's cuts to them)."""
    memo = f._span_memo
    found = memo.get("topics")
    if found is None or found[0] != params:
        found = (params, _choose_topics(f, chunks, params))
        memo["topics"] = found
    scores, chosen, cuts = found[1]
    return scores, list(chosen), cuts.copy()


def _choose_topics(
    f: TopicFrame, chunks: Sequence[Chunk], params: TopicParams
) -> tuple[GapScores, list[int], npt.NDArray[np.int8]]:
    """The gap scores, the topic starts (and the end) and the reason of the cut after
    every gap (a code of `CUT_CODES`; -1: no cut) that the topic knobs give."""
    n = len(chunks)
    scores = gap_scores(f.vectors, chunks, params, f)
    chars = f.chars
    chosen = [0, n]
    cuts = np.full(n - 1, -1, dtype=np.int8)
    if n >= 2:
        cand = np.flatnonzero(scores.candidate & (scores.score >= scores.threshold))
        cand = cand[cand >= f.lead]  # no topic starts within the preamble
        order = cand[np.argsort(-scores.score[cand], kind="stable")]
        least = params.topic_min_chars
        # each candidate's start, and the text before and after it, as Python ints
        at = (order + 1).tolist()
        offset = chars.tolist()
        taken: list[int] = []
        for i, b in enumerate(at):
            k = bisect.bisect_left(chosen, b)
            here = offset[b]
            if here - offset[chosen[k - 1]] < least or offset[chosen[k]] - here < least:
                continue
            chosen.insert(k, b)
            taken.append(i)
        gaps = order[taken]
        tipped = (scores.structure[gaps] > 0) & (scores.depth[gaps] < scores.threshold)
        cuts[gaps] = np.where(tipped, CUT_CODES["structure"], CUT_CODES["topic"])
    return scores, chosen, cuts


def _token_counts(chunks: Sequence[Chunk], token_counts: Sequence[int] | None) -> IntArray:
    """`token_counts` checked (one per chunk, none negative), or, when None, the chunks
    counted with the default tokenizer."""
    if token_counts is None:
        from chunkscope.engine.tokens import get_counter

        token_counts = get_counter().count_many([c.text for c in chunks])
    counts = np.asarray(token_counts, dtype=np.int64)
    if counts.shape != (len(chunks),):
        raise ValueError(
            f"token_counts has {len(counts)} entries but there are {len(chunks)} chunks"
        )
    return counts


def _keep_together(
    split: list[int], fixed: Sequence[int], ranks: npt.ArrayLike, prefix: IntArray, cap: int | None
) -> list[int]:
    """`split` (the chunk-size pass's starts) without its cuts that would leave a heading
    alone or cut a code block (`split_ranks` at `HEADING_ONLY_RANK` or below) where the
    joined chunk still fits the `cap` (in `prefix`'s unit): the chunk size is a target,
    the cap a promise. The starts in `fixed` (topics, the cap's) all stay."""
    rank = np.asarray(ranks)
    inner = np.asarray(split[1:-1], dtype=np.int64)
    # the starts that may go: not fixed, after a gap of such a rank (the rest all stay)
    joinable = (rank[inner - 1] <= HEADING_ONLY_RANK) & ~np.isin(inner, fixed)
    if not joinable.any():
        return list(split)
    may_go = joinable.tolist()
    offset = None if cap is None else prefix[np.asarray(split, dtype=np.int64)].tolist()
    out = [split[0]]
    last = 0  # index in `split` of the last start kept
    for i in range(1, len(split) - 1):
        if may_go[i - 1] and (offset is None or offset[i + 1] - offset[last] - 1 <= cap):
            continue
        out.append(split[i])
        last = i
    out.append(split[-1])
    return out


def _cut_where_none(cuts: npt.NDArray[np.int8], bounds: IntArray, code: int) -> None:
    """Give every cut at `bounds` (a merge's starts and end) that has no reason yet in
    `cuts` (-1) the reason `code`."""
    gaps = bounds[1:-1] - 1
    cuts[gaps[cuts[gaps] < 0]] = code


def splits_below_cap(target: int, size: MergeParams) -> bool:
    """Whether a chunk size of `target` tokens splits topics further than the size cap
    of `size` does (a cap in chars: always; in tokens: when the target is below it)."""
    cap = size.cap
    return target > 0 and (cap is None or size.cap_unit == "chars" or target < cap)


def fit_cap(
    topics: Sequence[int], prefix: IntArray, cap: int, ranks: npt.ArrayLike, score: FloatArray
) -> list[int]:
    """The starts of the chunks that split each topic (``topics``: starts and the end)
    so that every chunk fits `cap`: a chunk ``[a, b)`` has size ``prefix[b] - prefix[a]
    - 1`` (`prefix`: running sums of the sizes plus one). A topic over the cap is split
    at the gap that keeps the fewest chunks possible (``ceil(left / cap) + ceil(right /
    cap)``), of the best rank (`split_ranks`), of the highest score (the first of equals),
    and its parts again until they fit; a single chunk over the cap stays whole. A gap
    ranked `HEADING_ONLY_RANK` or below (after a lone heading, inside a code block) is
    taken only in a part that has no other, however few chunks it would make.

    Every part waiting to be split at one depth is split at once (segmented minima and
    maxima over the concatenated gaps), so the work is a few array operations per level
    of the recursion, not per cut."""
    bounds = np.asarray(topics, dtype=np.int64)
    added = _fit_parts(bounds[:-1], bounds[1:], prefix, cap, ranks, score)
    if not added:
        return list(topics)
    # every cut is inside a part (between two starts), so none repeats a start
    out: list[int] = np.sort(np.concatenate([bounds, *added])).tolist()
    return out


def _fit_parts(
    a: IntArray, b: IntArray, prefix: IntArray, cap: int, ranks: npt.ArrayLike, score: FloatArray
) -> list[IntArray]:
    """The cuts `fit_cap` adds inside the parts ``[a[i], b[i])`` (in order, none
    overlapping; not necessarily one after the other), each part on its own."""
    rank = np.asarray(ranks, dtype=np.float64)
    key = rank * 1e6 + np.clip(score, -1e5, 1e5)
    whole = rank != HEADING_ONLY_RANK  # the gaps that part no heading from its text
    added: list[IntArray] = []
    while True:
        todo = (b - a >= 2) & (prefix[b] - prefix[a] - 1 > cap)
        a, b = a[todo], b[todo]
        if not len(a):
            break
        lengths = b - a - 1  # inner gaps of each part
        offsets = np.zeros(len(a), dtype=np.int64)
        np.cumsum(lengths[:-1], out=offsets[1:])
        part = np.repeat(np.arange(len(a), dtype=np.int64), lengths)
        inner = np.arange(len(part), dtype=np.int64) - offsets[part] + a[part] + 1
        left = prefix[inner] - prefix[a][part] - 1
        right = prefix[b][part] - prefix[inner] - 1
        pieces = -(-left // cap) + -(-right // cap)
        # a gap that would leave a heading alone or cut a code block is taken only in a
        # part that has no other (fewer pieces do not outweigh a title torn from its text)
        good = whole[inner - 1]
        has_good = np.maximum.reduceat(good.astype(np.int8), offsets) > 0
        eligible = good | ~has_good[part]
        pieces = np.where(eligible, pieces, np.iinfo(np.int64).max)
        fewest = np.minimum.reduceat(pieces, offsets)
        k = np.where(eligible & (pieces == fewest[part]), key[inner - 1], -np.inf)
        best = np.maximum.reduceat(k, offsets)
        hit = np.flatnonzero(k == best[part])
        # the first of equals: ``part[hit]`` is sorted, so each part's first hit is
        # where it changes (what ``np.unique(part[hit], return_index=True)`` finds)
        owner = part[hit]
        first = np.flatnonzero(np.diff(owner, prepend=-1))
        cut = inner[hit[first]]
        added.append(cut)
        a, b = np.concatenate([a, cut]), np.concatenate([cut, b])
    return added


def _fit_kept(
    f: TopicFrame,
    name: str,
    key: tuple[object, ...],
    topics: Sequence[int],
    prefix: IntArray,
    cap: int,
    score: FloatArray,
) -> list[int]:
    """`fit_cap(topics, prefix, cap, f.ranks, score)`, each part's cuts remembered in the
    frame under `name` while `key` (what the score depends on, the cap) and `prefix`
    stay: a part splits alone, so a depth step splits only the topics it changed."""
    memo = f._span_memo.get(name)
    parts: dict[tuple[int, int], list[int]] = {}
    if memo is not None and memo[0] == key and memo[1] is prefix and len(memo[2]) < 4 * len(topics):
        parts = memo[2]
    spans = list(pairwise(topics))
    todo = [span for span in spans if span not in parts]
    if todo:
        a = np.asarray([s for s, _ in todo], dtype=np.int64)
        b = np.asarray([e for _, e in todo], dtype=np.int64)
        cuts = np.sort(
            np.concatenate([np.zeros(0, np.int64), *_fit_parts(a, b, prefix, cap, f.ranks, score)])
        )
        owner = np.searchsorted(a, cuts, side="right") - 1
        split = np.searchsorted(owner, np.arange(len(todo) + 1))
        found = cuts.tolist()
        for i, span in enumerate(todo):
            parts[span] = found[split[i] : split[i + 1]]
    f._span_memo[name] = (key, prefix, parts)
    out = [topics[0]]
    for span in spans:
        out.extend(parts[span])
        out.append(span[1])
    return out


# Groups whose sums `_segment_sums` adds up at a time (bounds its scratch rows).
_SUM_BLOCK = 4096
# The most rows whose sum reduceat adds in order: from 9 (8 after the first) its inner
# loop sums pairwise (eight running sums), another order, so longer segments go to it.
_IN_ORDER_ROWS = 8


def _segment_sums(v: FloatArray, bounds: IntArray) -> FloatArray:
    """The float64 sum of the rows of every segment ``bounds[i]:bounds[i + 1]``: the same
    numbers, bit for bit, as ``np.add.reduceat(v, bounds[:-1], axis=0, dtype=np.float64)``,
    several times faster on float32 rows (what the embedders return), where reduceat
    widens them a row at a time.

    For float32 rows of a segment of at most `_IN_ORDER_ROWS` rows, reduceat adds the
    widened rows after the first in order and then adds that sum to the first row,
    ``v0 + ((v1 + v2) + v3)`` (a test holds this to reduceat itself, signed zeros
    included); here the same additions run batched over those segments, largest first
    in blocks, so each step is one numpy call over the segments still running. Longer
    segments (reduceat sums them pairwise) and float64 rows go to reduceat itself, one
    segment at a time (the same bits as over the whole array)."""
    starts, counts = bounds[:-1], np.diff(bounds)
    if v.dtype != np.float32:
        sums: FloatArray = np.add.reduceat(v, starts, axis=0, dtype=np.float64)
        return sums
    out = v[starts].astype(np.float64)
    for i in np.flatnonzero(counts > _IN_ORDER_ROWS).tolist():
        a, b = int(starts[i]), int(starts[i] + counts[i])
        out[i] = np.add.reduceat(v[a:b], [0], axis=0, dtype=np.float64)[0]
    multi = np.flatnonzero((counts >= 2) & (counts <= _IN_ORDER_ROWS))
    order = multi[np.argsort(-counts[multi], kind="stable")]
    for b0 in range(0, len(order), _SUM_BLOCK):
        block = order[b0 : b0 + _SUM_BLOCK]
        first, size = starts[block], counts[block]
        rest = v[first + 1].astype(np.float64)
        running = np.searchsorted(-size, -np.arange(3, int(size[0]) + 1), side="right")
        for k, mk in enumerate(running.tolist(), start=2):
            rest[:mk] += v[first[:mk] + k]  # float32 widened exactly, then added
        out[block] += rest
    return out


def _memo_chunks(
    f: TopicFrame, chunks: list[Chunk], bounds: IntArray, spans: list[Span]
) -> list[Chunk]:
    """`chunks_from_spans(chunks, spans)`, with the chunks of the spans the frame's last
    segmentation had taken from it (the same chunk objects: a slider step keeps most of
    the step before's). The frame remembers the spans of this call from its second
    segmentation on (a one-off `segment` keeps nothing)."""
    memo = f._span_memo
    last: tuple[IntArray, list[Chunk]] | None = memo.get("last")
    keep = memo.get("runs", 0) >= 1
    memo["runs"] = memo.get("runs", 0) + 1
    # a span as one number (start, end): sorted like the spans, as the bounds are
    keys = bounds[:-1] * (len(chunks) + 1) + bounds[1:]
    found = np.zeros(len(spans), dtype=bool)
    if last is not None and len(last[0]):
        at = np.minimum(np.searchsorted(last[0], keys), len(last[0]) - 1)
        found = last[0][at] == keys
    if not found.any():
        merged = _join_spans(f, chunks, bounds[:-1], bounds[1:])
    else:
        assert last is not None
        old = last[1]
        merged = [chunks[0]] * len(spans)
        hit = np.flatnonzero(found)
        for i, r in zip(hit.tolist(), at[hit].tolist(), strict=True):
            merged[i] = old[r]
        missing = np.flatnonzero(~found)
        made = _join_spans(f, chunks, bounds[missing], bounds[missing + 1])
        for i, chunk in zip(missing.tolist(), made, strict=True):
            merged[i] = chunk
    if keep:
        memo["last"] = (keys, merged)
    return merged


_NO_FIRST = np.iinfo(np.int64).max  # `_unit_lines` of a unit without lines
_NO_LAST = -1


def _unit_turns(f: TopicFrame) -> tuple[list[Turn], list[int], IntArray, IntArray]:
    """(every unit's turns in order, where each unit's start in that list and the end,
    each unit's first and last source line: `_NO_FIRST` and `_NO_LAST` for a unit without
    lines), built once per frame: `_join_spans` joins a span's units with one slice."""
    found: tuple[list[Turn], list[int], IntArray, IntArray] | None = f._span_memo.get("units")
    if found is None:
        flat: list[Turn] = []
        offsets = [0]
        first = np.full(len(f.chunks), _NO_FIRST, dtype=np.int64)
        last = np.full(len(f.chunks), _NO_LAST, dtype=np.int64)
        for i, c in enumerate(f.chunks):
            flat.extend(c.turns)
            offsets.append(len(flat))
            lines = c.lines
            if lines is not None:
                first[i], last[i] = lines
        found = f._span_memo["units"] = (flat, offsets, first, last)
    return found


def _join_spans(
    f: TopicFrame, chunks: list[Chunk], starts: IntArray, ends: IntArray
) -> list[Chunk]:
    """`chunks_from_spans(chunks, zip(starts, ends))` (the frame's units; spans in order,
    none overlapping): a one-unit span is that unit, a longer one a new chunk of its
    units' turns with their lines (the least first line and the greatest last, as
    `join_chunks` takes them), every span's lines at once."""
    if not len(starts):
        return []
    flat, offsets, first, last = _unit_turns(f)
    # reduce over [start, end) of each span: every other segment of the interleaved bounds
    # (an end is at most the unit count: the arrays get one more element)
    cuts = np.stack([starts, ends], axis=1).ravel()
    lo = np.minimum.reduceat(np.append(first, _NO_FIRST), cuts)[::2].tolist()
    hi = np.maximum.reduceat(np.append(last, _NO_LAST), cuts)[::2].tolist()
    out: list[Chunk] = []
    append = out.append
    for a, b, x, y in zip(starts.tolist(), ends.tolist(), lo, hi, strict=True):
        if b - a == 1:
            append(chunks[a])
            continue
        chunk = Chunk(flat[offsets[a] : offsets[b]])
        chunk._lines = None if x == _NO_FIRST else (x, y)
        append(chunk)
    return out


def _mean_vectors(v: FloatArray, bounds: IntArray) -> FloatArray:
    """Each merged chunk's mean vector, every chunk's at once."""
    vectors = _segment_sums(v, bounds)
    np.divide(vectors, np.diff(bounds).astype(np.float64)[:, None], out=vectors)
    return vectors


def _result(
    chunks: Sequence[Chunk],
    v: FloatArray,
    starts: list[int],
    topic_starts: list[int],
    cuts: npt.NDArray[np.int8],
    scores: GapScores | None,
    over: npt.NDArray[np.bool_] | None,
    size: MergeParams,
    f: TopicFrame | None = None,
) -> MergeResult:
    bounds = np.asarray(starts, dtype=np.int64)
    spans = list(pairwise(starts))
    dim = v.shape[1] if v.ndim == 2 else 0
    if f is not None and spans:
        merged = _memo_chunks(f, list(chunks), bounds, spans)
    else:
        merged = chunks_from_spans(list(chunks), spans) if chunks else []
    vectors: FloatArray
    if spans:  # computed when first read (a slider step never reads them)
        vectors = cast("FloatArray", LazyVectors(lambda: _mean_vectors(v, bounds)))
    else:
        vectors = np.zeros((0, dim))
    gap_at = bounds[1:-1] - 1  # the gap before every merged chunk after the first
    if scores is not None:
        sims = np.asarray(scores.similarity, dtype=np.float64)[gap_at]
        depths = np.asarray(scores.score, dtype=np.float64)[gap_at]
        threshold = scores.threshold
    else:
        sims = depths = np.zeros(0)
        threshold = 0.0
    return MergeResult(
        bounds=bounds,
        chunks=merged,
        vectors=vectors,
        passes=[],
        cut_similarities=sims,
        cut_threshold=threshold,
        cut_codes=cuts[gap_at],
        params=size,
        cut_depths=depths,
        over_cap=over if over is not None else np.zeros(len(spans), dtype=bool),
        topic_bounds=np.asarray(topic_starts, dtype=np.int64),
    )
