"""Topic marks and the live score: what they are and how a run is judged against them.

A mark is a 1-based source line. `m` toggles one at the item selected in the left
column (its first line); the marks are saved at once, atomically, in the user data
directory under the SHA-256 of the file's content (`engine.evaluate.gold`), so they survive a
crash, a rename or a move, and load again when the file opens. ``chunkscope FILE --gold
GOLD`` opens with a gold file's starts instead; `M` exports the marks in that format.

Marks are *partial* (some of the topic starts: every one between the first mark and
the last, none claimed elsewhere) unless the user says they are all the topics (`a`
toggles; the flag is saved with them). With marks, every run's topic starts are scored
against them (`engine.evaluate.measure.score`: Pk, WindowDiff, boundary F1 within
`engine.evaluate.measure.TOLERANCE` lines; partial marks over the stretch they cover) and each
cut between topics is a *hit* (a mark near it), *spurious*, or, with partial marks,
*outside* the stretch (not scored); each unmatched mark is a *miss* (a cut the size cap
made inside a topic is not judged): `MarksReport` holds what
the columns, the strip and the merge panel draw. The app's part that keeps them is
`tui.workbench.marks`.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from chunkscope.engine.evaluate.measure import (
    TOLERANCE,
    Scores,
    marked_stretch,
    match_boundaries,
    met_gold,
    score,
    score_text,
    segment_starts,
)

if TYPE_CHECKING:
    from chunkscope.engine.model import Chunk
    from chunkscope.tui.workbench.runs import RunView


@dataclass(frozen=True)
class FileMarks:
    """The marks of the open file: where they are kept, and what they are."""

    path: str
    digest: str
    starts: tuple[int, ...] = ()
    origin: str = "saved"  # saved | gold (opened with --gold GOLD)
    partial: bool = True  # some of the topics (scored over their stretch), or all of them
    _weights: list[Any] = field(default_factory=list, repr=False, compare=False)

    def weights(self) -> Any:
        """What each source line weighs in Pk (`engine.evaluate.measure.line_weights`), read
        once."""
        if not self._weights:
            from chunkscope.engine.evaluate.measure import line_weights

            self._weights.append(line_weights(self.path))
        return self._weights[0]


def read_file_marks(path: str, gold: str | None = None) -> tuple[FileMarks, str | None]:
    """The marks of `path` (a gold file's starts when `gold` is given, else the saved
    ones), and a problem to report (the file's marks are then empty)."""
    from chunkscope.engine.evaluate.gold import (
        GoldError,
        content_hash,
        load_file_marks,
        read_gold_file,
    )

    digest = content_hash(path)
    base = FileMarks(path, digest)  # its line weights are read when first scored
    try:
        if gold is not None:
            found = read_gold_file(gold, lines=len(base.weights()))
            starts, origin = found.starts, "gold"
        else:
            found = load_file_marks(path, digest)
            starts, origin = found.starts, "saved"
        return replace(base, starts=clean_marks(starts), origin=origin, partial=found.partial), None
    except GoldError as e:
        return base, str(e)


def clean_marks(starts: Sequence[int]) -> tuple[int, ...]:
    """Marks as kept: sorted, unique, without line 1 (a topic always starts there)."""
    return tuple(sorted({s for s in starts if s > 1}))


# `_first_lines` of the last few lists asked for (the compacted units and the left
# column's items are the same list at every run): (the list, its first lines) by id
_FIRST_LINES: dict[int, tuple[Sequence[Chunk], list[int]]] = {}


_Lines = TypeVar("_Lines", bound=Sized)


def _remembered(
    store: dict[int, tuple[Sequence[Chunk], _Lines]],
    chunks: Sequence[Chunk],
    compute: Callable[[Sequence[Chunk]], _Lines],
) -> _Lines:
    """`compute(chunks)`, remembered in `store` for the list (by its identity; the last
    few lists asked for)."""
    hit = store.get(id(chunks))
    if hit is not None and hit[0] is chunks and len(chunks) == len(hit[1]):
        return hit[1]
    out = compute(chunks)
    if len(store) >= 8:
        store.clear()
    store[id(chunks)] = (chunks, out)
    return out


def _first_lines(chunks: Sequence[Chunk]) -> list[int]:
    """Each chunk's first source line (one without lines takes the previous one's)."""
    return _remembered(_FIRST_LINES, chunks, _first_lines_of)


def _first_lines_of(chunks: Sequence[Chunk]) -> list[int]:
    out: list[int] = []
    last = 1
    for c in chunks:
        lines = c.lines
        if lines is not None:
            last = lines[0]
        out.append(last)
    return out


def holder(first: Sequence[int], line: int) -> int:
    """The item (of those whose first lines are `first`, in order) where a topic marked
    at `line` starts: the first item starting at that line (several can: the thinking
    blocks of one record; `m` on any of them marks the line, where the first begins),
    else the last one starting before it, which holds the line."""
    i = bisect.bisect_left(first, line)
    if i < len(first) and first[i] == line:
        return i
    return max(0, i - 1)


def starting_at(items: Sequence[Chunk], line: int) -> range:
    """The items (in a left column's order) whose first source line is `line`: a mark
    there is drawn on the first of them (`holder`). Two or more when the line holds
    several (a record's thinking and its tool call, collapsed with its result)."""
    first = _first_lines(items)
    lo = bisect.bisect_left(first, line)
    hi = lo
    while hi < len(first) and first[hi] == line:
        hi += 1
    return range(lo, hi)


def holders(first: Sequence[int], lines: Sequence[int]) -> list[int]:
    """`holder` of each of `lines`, at once (one search of an array when `first` is in
    order, as it is unless a chunk's lines start before the one before's)."""
    arr = np.asarray(first, dtype=np.int64)
    if len(arr) == 0 or np.any(arr[1:] < arr[:-1]):
        return [holder(first, line) for line in lines]
    want = np.asarray(lines, dtype=np.int64)
    i = np.searchsorted(arr, want, side="left")
    exact = (i < len(arr)) & (arr[np.minimum(i, len(arr) - 1)] == want)
    found: list[int] = np.where(exact, i, np.maximum(i - 1, 0)).tolist()
    return found


def topics_against_marks(s: Scores) -> str:
    """How many topics the run makes against how many are marked (over the marked
    stretch when the marks are partial): an over-cutting setting shows here when Pk,
    with its extra pieces small, does not."""
    marks = s.gold_segments - 1  # n marks cut the file (the marked stretch) in n + 1
    where = "the marked stretch's" if s.partial else "the file's"
    return (
        f"{s.chunks} topic{'s' if s.chunks != 1 else ''} vs {where} {s.gold_segments} "
        f"({marks} mark{'s' if marks != 1 else ''} split it)"
    )


@dataclass(frozen=True)
class MarksReport:
    """A run scored against the marks, and where each verdict is drawn."""

    scores: Scores
    hits: int
    spurious: int
    missed: int
    # per merged cut (after chunk i): hit | spurious | "" (size cap; a line judged already)
    cut_verdicts: list[str]
    merged_flags: dict[int, str]  # merged chunk -> "miss" when it hides an unmatched mark
    left_flags: dict[int, str]  # left-column item -> "mark" when a mark starts in it
    strip_marks: list[tuple[int, str]]  # (pair over compacted chunks, hit | miss)

    def summary(self) -> str:
        s = self.scores
        marks = s.gold_segments - 1
        scope = "partial" if s.partial else "all topics"  # `a` toggles
        return (
            f"{marks} topic mark{'s' if marks != 1 else ''} ({scope}) · F1 {score_text(s.f1)}\n"
            f"Pk {score_text(s.pk)} · WindowDiff {score_text(s.windowdiff)}\n"
            f"{topics_against_marks(s)}\n"
            f"{self.hits} hit · {self.missed} missed · {self.spurious} spurious"
        )


@dataclass(frozen=True)
class ChunksVerdict:
    """Chunks scored against the marks: the scores, a verdict per cut (after chunk i:
    hit | spurious), the chunks hiding a missed mark, and the marks a cut found."""

    scores: Scores
    # hit | spurious | outside (partial marks: not scored) | "" (its line's first cut has it)
    cut_verdicts: list[str]
    flags: dict[int, str]
    found: frozenset[int]


@dataclass(frozen=True)
class ColumnMarks:
    """A compare column against the marks (`MarksDriver.column_marks`)."""

    verdict: ChunksVerdict
    flags: dict[int, str]  # its list's: item -> "mark" (◆), or chunk -> "miss" (✗)
    strip: list[tuple[int, str]]  # its strip's marks row: (pair, hit | miss)


def judge_chunks(chunks: Sequence[Chunk], marks: FileMarks) -> ChunksVerdict:
    """Any chunking of the file (the merged run, a strategy's column) against `marks`."""
    return _judge_first(_first_lines(chunks), marks)


def _judge_first(first: Sequence[int], marks: FileMarks) -> ChunksVerdict:
    """`judge_chunks` of the chunks whose first lines (`_first_lines`) are `first`."""
    n = len(first)  # the chunks
    gold = met_gold([1, *marks.starts], first[0] if first else 1, partial=marks.partial)
    # the boundaries eval scores: the lines the cuts are on, several cuts on one line
    # one boundary (`segment_starts`)
    found = segment_starts(first)
    weights = marks.weights()
    scores = score(found, gold, weights, chunks=n, partial=marks.partial)
    matched = match_boundaries(found, gold, TOLERANCE)
    stretch = marked_stretch(gold, len(weights)) if marks.partial else None

    judged: set[int] = set()  # a line's first cut has its verdict, the others none

    def verdict(line: int) -> str:
        if line in judged:
            return ""
        judged.add(line)
        if line in matched:
            return "hit"
        if stretch is not None and not stretch[0] <= line <= stretch[1]:
            return "outside"
        return "spurious"

    verdicts = [verdict(first[i + 1]) for i in range(n - 1)]
    hit_gold = frozenset(matched.values())
    flags = dict.fromkeys(holders(first, [g for g in marks.starts if g not in hit_gold]), "miss")
    return ChunksVerdict(scores, verdicts, flags, hit_gold)


def inner_cuts(result: Any) -> list[bool]:
    """Per cut of a `MergeResult`: whether it falls inside a topic (the size cap's)."""
    topic_of = np.asarray(result.topic_of, dtype=np.int64)
    inner: list[bool] = (topic_of[1:] == topic_of[:-1]).tolist()
    return inner


def judge_topics(
    chunks: Sequence[Chunk],
    inner: Sequence[bool],
    marks: FileMarks,
    own: npt.NDArray[np.int64] | None = None,
) -> ChunksVerdict:
    """`judge_chunks` of the topics `chunks` make when the cuts flagged `inner` (``inner[i]``:
    the cut after chunk ``i`` is the size cap's, inside a topic) start no topic: the topic
    starts are judged, those cuts get no verdict (``""``), and a missed mark is flagged on
    the chunk that holds it. `own`: the chunks' `_own_first_lines`, when known."""
    if not any(inner):
        return judge_chunks(chunks, marks)
    between = np.flatnonzero(~np.asarray(inner, dtype=bool)) + 1  # the cuts between topics
    starts = [0, *between.tolist(), len(chunks)]
    if own is None:
        own = _own_first_lines(chunks)
    judged = _judge_first(_joined_first_lines(own, starts[:-1]), marks)
    verdicts = [""] * max(len(chunks) - 1, 0)
    for j, verdict in enumerate(judged.cut_verdicts):
        verdicts[starts[j + 1] - 1] = verdict
    first = _joined_first_lines(own, range(len(chunks)))
    missed = [g for g in marks.starts if g not in judged.found]
    flags = dict.fromkeys(holders(first, missed), "miss")
    return ChunksVerdict(judged.scores, verdicts, flags, judged.found)


_NO_LINE = np.iinfo(np.int64).max  # `_own_first_lines` of a chunk without lines


def _own_first_lines(chunks: Sequence[Chunk]) -> npt.NDArray[np.int64]:
    """Each chunk's first source line (`_NO_LINE` for a chunk without lines)."""
    return np.fromiter(
        (_NO_LINE if (lines := c.lines) is None else lines[0] for c in chunks),
        dtype=np.int64,
        count=len(chunks),
    )


# `_own_first_lines` of the compacted units of the last few runs: (the list, its lines) by id
_OWN_LINES: dict[int, tuple[Sequence[Chunk], npt.NDArray[np.int64]]] = {}


def _units_own_first_lines(units: Sequence[Chunk]) -> npt.NDArray[np.int64]:
    """`_own_first_lines(units)`, remembered for the list (the same at every run)."""
    return _remembered(_OWN_LINES, units, _own_first_lines)


def _joined_first_lines(own: npt.NDArray[np.int64], starts: Sequence[int]) -> list[int]:
    """`_first_lines` of the chunks `chunks_from_spans(chunks, spans)` would build for the
    spans that start at `starts` (and run to the next start, the last to the end), from
    the chunks' own first lines (`_own_first_lines`), without building them: a joined
    chunk's first line is the least of its parts' (`join_chunks`); one without lines
    takes the previous one's (the first: line 1)."""
    if not len(starts):
        return []
    least = np.minimum.reduceat(own, np.asarray(starts, dtype=np.int64))
    # where a span has no line, the index of the last span before it that has one
    known = least != _NO_LINE
    last = np.maximum.accumulate(np.where(known, np.arange(len(least)), -1))
    out: list[int] = np.where(last >= 0, least[np.maximum(last, 0)], 1).tolist()
    return out


# `mark_flags` of the last few lists asked for (the left column's items are the same list
# at every run): (the list, the marks, the flags) by id
_MARK_FLAGS: dict[int, tuple[Sequence[Chunk], int, tuple[int, ...], dict[int, str]]] = {}


def mark_flags(items: Sequence[Chunk], marks: FileMarks) -> dict[int, str]:
    """The items (a left column's turns or units) where a marked topic starts: ``◆``
    (remembered for the list and the marks: a run keeps both)."""
    hit = _MARK_FLAGS.get(id(items))
    if hit is not None and hit[0] is items and hit[1:3] == (len(items), marks.starts):
        return dict(hit[3])
    first = _first_lines(items)
    flags = dict.fromkeys(holders(first, marks.starts), "mark")
    if len(_MARK_FLAGS) >= 8:
        _MARK_FLAGS.clear()
    _MARK_FLAGS[id(items)] = (items, len(items), marks.starts, flags)
    return dict(flags)


def strip_marks(
    units: Sequence[Chunk], marks: FileMarks, found: frozenset[int]
) -> list[tuple[int, str]]:
    """The marks on a similarity strip's axis (the compacted `units`): (the pair before
    the unit where each starts, hit when a cut of the run found it (`found`), else miss);
    a mark in the first unit has no pair and is not drawn."""
    unit_first = np.asarray(_first_lines(units), dtype=np.int64)
    starts = list(marks.starts)
    at = np.searchsorted(unit_first, np.asarray(starts, dtype=np.int64), side="left").tolist()
    return [
        (p - 1, "hit" if g in found else "miss") for g, p in zip(starts, at, strict=True) if p > 0
    ]


def marks_report(view: RunView, marks: FileMarks) -> MarksReport | None:
    """`view` scored against `marks` (None without marks)."""
    if not marks.starts:
        return None
    result = view.result
    # the topic starts are judged, not the cuts the size cap made inside a topic
    # the merged chunks' first lines from the units' (a merged chunk's is the least of
    # its units', as `join_chunks` takes them): the units are the same list at every run
    units, bounds = view.compacted, result.bounds
    own = None
    if len(bounds) >= 2 and len(bounds) - 1 == len(result.chunks) and bounds[-1] == len(units):
        own = np.minimum.reduceat(_units_own_first_lines(units), bounds[:-1])
    judged = judge_topics(result.chunks, inner_cuts(result), marks, own)
    scores, verdicts, hit_gold = judged.scores, judged.cut_verdicts, judged.found
    missed = [g for g in marks.starts if g not in hit_gold]
    merged_flags = judged.flags
    return MarksReport(
        scores=scores,
        hits=len(hit_gold),
        spurious=verdicts.count("spurious"),
        missed=len(missed),
        cut_verdicts=verdicts,
        merged_flags=merged_flags,
        left_flags=mark_flags(view.left_items, marks),
        strip_marks=strip_marks(view.compacted, marks, hit_gold),
    )
