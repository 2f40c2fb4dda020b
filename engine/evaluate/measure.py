"""How good a segmentation is, against gold segment starts (`engine.evaluate.gold`).

Positions are characters of the source file: each source line weighs its length
(plus its newline), so a long message counts for more than a short one, whatever the
format. A segmentation is the list of 1-based source lines where its segments start.

- **Pk** (Beeferman et al. 1999): the chance that two positions ``k`` characters
  apart are wrongly said to be in the same segment or in different ones; ``k`` is half
  the mean gold segment length. 0 is perfect; one segment for the whole file scores
  about the share of gold boundaries a window crosses.
- **WindowDiff** (Pevzner & Hearst 2002): the share of windows of ``k`` characters in
  which the number of boundaries differs.
- **Boundary precision, recall, F1**: a boundary found matches a gold one within
  `tolerance` source lines (each gold boundary matched once).

**Partial gold** (``"partial": true``, and the workbench's marks unless the user says
they are all the topics) names some topic starts, and claims only that no other topic
starts between the first mark (a start after line 1) and the last. It is scored over
that *stretch*, from ``tolerance`` lines before the first mark to ``tolerance`` lines
after the last (`marked_stretch`): a cut outside it is neither right nor wrong and
changes no score; a cut inside it that matches no mark is spurious. Pk and WindowDiff
count the windows that reach into the stretch (``k`` is half the mean length of the
marked segments, between consecutive marks), with the cuts outside dropped: the text
just before the first mark and after the last is taken to have no other start within
``k``, as Pk assumes anywhere. ``chunks`` and ``gold_segments`` count the segments
the stretch touches.

`sweep` and `tune` run a segmentation over a knob's range or a grid of settings, with
the vectors computed once per file. `tune` ranks settings by `Tuned.objective`:
finding the gold starts first (mean boundary F1, highest first), then mean Pk, then
mean WindowDiff; a setting that finds none of the starts (F1 0) never ranks above one
that finds some, and one that cuts everywhere loses on precision. Settings that score
the same rank by how near they are to the settings in force.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from chunkscope.engine.model import Chunk

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.params import Knob
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.segment.merge import MergeResult
    from chunkscope.engine.segment.segmenter import TopicFrame

IntArray = npt.NDArray[np.int64]

#: Boundaries within this many source lines of a gold one count as found.
TOLERANCE = 2


#: Each score's name where a person reads it (eval, sweep, tune, the report, the
#: workbench), by its key in JSON output and in `Scores` / `Tuned`.
SCORE_NAMES = {
    "pk": "Pk",
    "windowdiff": "WindowDiff",
    "precision": "precision",
    "recall": "recall",
    "f1": "F1",
    "hit_rate": "hit rate",
    "mrr": "MRR",
}
#: A score's short name, where a table has no room for `SCORE_NAMES`' (the workbench's
#: auto-tune table); the table says it in full beside it.
SCORE_SHORT = {"windowdiff": "WD"}


def score_text(value: float) -> str:
    """A score as every output writes it (eval, tune, sweep, the report, the workbench's
    marks line, compare titles and auto-tune): Pk, WindowDiff, and the boundaries'
    precision, recall and F1, each three decimals, ``0.021``."""
    return f"{value:.3f}"


@dataclass(frozen=True)
class Scores:
    """The scores of one segmentation (the JSON of ``chunkscope eval``)."""

    pk: float
    windowdiff: float
    precision: float
    recall: float
    f1: float
    chunks: int
    gold_segments: int
    k: int
    partial: bool = False
    stretch: tuple[int, int] | None = None  # the lines scored, when partial

    def as_dict(self) -> dict[str, Any]:
        """The scores as JSON values, floats rounded to six places."""
        out = {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}
        out["stretch"] = list(self.stretch) if self.stretch is not None else None
        return out


def line_weights(path: str | Path) -> IntArray:
    """The length in characters (plus one for the newline) of every line of `path`
    (decompressed if it is gzip); what each line weighs in Pk and WindowDiff."""
    from chunkscope.engine.read.source import _iter_lines

    weights = [len(line) + 1 for _, line in _iter_lines(Path(path), [])]
    return np.asarray(weights or [1], dtype=np.int64)


def chunk_starts(chunks: Sequence[Chunk]) -> list[int]:
    """The 1-based source line where each chunk starts (sorted, unique; always 1).
    The first chunk starts the file at line 1 whatever line its text comes from: the
    lines before it (a log's metadata records, blank lines) are no segment of their own."""
    return segment_starts(c.lines[0] for c in chunks if c.lines is not None)


def segment_starts(first_lines: Iterable[int]) -> list[int]:
    """The segment starts scored (`score`) of segments whose first source lines are
    `first_lines`, in order: sorted, unique, always 1 (the first segment's start is the
    file's, whatever line it is on). Several segments starting on one line (two topic
    cuts in one record) are one boundary: what eval, sweep, tune and the workbench's
    live score count, one score for one run (walk 59, F2: the workbench counted each
    cut, one more spurious cut and a lower F1 than auto-tune's row of the same run)."""
    lines = iter(first_lines)
    next(lines, None)
    return sorted({1, *lines})


def first_item_line(chunks: Sequence[Chunk]) -> int:
    """The line the first chunk with a source line starts at (1 when none has one): the
    start of the file's first segment, which `chunk_starts` counts as line 1."""
    return next((c.lines[0] for c in chunks if c.lines is not None), 1)


def met_gold(gold: Sequence[int], head: int, *, partial: bool = False) -> list[int]:
    """`gold` as chunks whose first starts at line `head` (`first_item_line`) can meet
    it: a start at or before that line is the file's own start, line 1, as
    `chunk_starts` counts that chunk (walk 29, F1: a mark on a Codex log's first turn,
    line 3 after its metadata, was a cut no setting could find, and every score was
    ranked against it). A `partial` gold whose every start is so is kept as given: it
    is scored over the stretch of its starts, and would have none."""
    met = sorted({1 if s <= head else s for s in gold})
    if partial and len(met) == 1 and any(s > 1 for s in gold):
        return sorted(set(gold))
    return met


def _boundary_offsets(starts: Sequence[int], offsets: IntArray) -> IntArray:
    """Where each segment after the first starts, in characters (sorted, unique)."""
    n_lines = len(offsets) - 1
    lines = np.unique(np.asarray([s for s in starts if 1 < s <= n_lines], dtype=np.int64))
    return offsets[lines - 1]


def pk_windowdiff(
    hypothesis: Sequence[int],
    gold: Sequence[int],
    weights: IntArray,
    k: int | None = None,
    *,
    windows: tuple[int, int] | None = None,
) -> tuple[float, float, int]:
    """(Pk, WindowDiff, k) of `hypothesis` against `gold` (starts, 1-based lines).

    Over every character position ``i`` of the file (``i + k`` inside it), Pk counts
    where "a boundary lies in ``(i, i + k]``" differs between the two, WindowDiff where
    the number of boundaries there differs. Both counts change only ``k`` characters
    before and at each boundary, so they are summed over the runs between those points:
    the cost grows with the number of boundaries, not with the size of the file (a
    slider step in the workbench scores a run at once). `windows` (``lo, hi``) counts
    only the windows starting at ``lo <= i < hi`` (a partial gold's stretch)."""
    offsets = _offsets(weights)
    n = int(offsets[-1])
    ref = _boundary_offsets(gold, offsets)
    hyp = _boundary_offsets(hypothesis, offsets)
    if k is None:
        k = max(1, round(n / (len(ref) + 1) / 2))
    if n <= k:
        return 0.0, 0.0, k
    lo, hi = (0, n - k) if windows is None else (max(0, windows[0]), min(n - k, windows[1]))
    if hi <= lo:
        return 0.0, 0.0, k
    # A boundary at b is inside (i, i + k] for i in [b - k, b): +1 at b - k, -1 at b.
    points = np.unique(np.clip(np.concatenate([[lo, hi], ref - k, ref, hyp - k, hyp]), lo, hi))
    left = points[:-1]
    length = np.diff(points)
    ref_in = np.searchsorted(ref - k, left, side="right") - np.searchsorted(ref, left, "right")
    hyp_in = np.searchsorted(hyp - k, left, side="right") - np.searchsorted(hyp, left, "right")
    pk = float(np.sum(length[(ref_in == 0) != (hyp_in == 0)])) / (hi - lo)
    wd = float(np.sum(length[ref_in != hyp_in])) / (hi - lo)
    return pk, wd, k


def _offsets(weights: IntArray) -> IntArray:
    """Where each line starts in characters (and, last, the file's length)."""
    offsets = np.zeros(len(weights) + 1, dtype=np.int64)
    np.cumsum(weights, out=offsets[1:])
    return offsets


def match_boundaries(
    hypothesis: Sequence[int], gold: Sequence[int], tolerance: int = TOLERANCE
) -> dict[int, int]:
    """The boundaries found (starts after line 1) matched one-to-one to gold ones within
    `tolerance` lines, nearest pairs first: ``{found line: gold line}``. Each gold
    boundary matches at most one found line; the boundaries left out of it are the
    spurious ones and the missed ones."""
    hyp = sorted(s for s in set(hypothesis) if s > 1)
    ref = sorted(s for s in set(gold) if s > 1)
    pairs: list[tuple[int, int, int]] = []
    for h in hyp:
        lo = bisect.bisect_left(ref, h - tolerance)
        pairs.extend((abs(g - h), h, g) for g in ref[lo : bisect.bisect_right(ref, h + tolerance)])
    used: set[int] = set()
    out: dict[int, int] = {}
    for _, h, g in sorted(pairs):
        if h not in out and g not in used:
            used.add(g)
            out[h] = g
    return out


def boundary_f1(
    hypothesis: Sequence[int], gold: Sequence[int], tolerance: int = TOLERANCE
) -> tuple[float, float, float]:
    """(precision, recall, F1) of the boundaries (starts after line 1), within `tolerance`.
    Every cut counts, several at one line too (paragraphs of one record): one of them
    at most matches a mark, the others are spurious."""
    n_hyp = len([s for s in hypothesis if s > 1])
    n_ref = len({s for s in gold if s > 1})
    if not n_hyp and not n_ref:
        return 1.0, 1.0, 1.0
    hits = len(match_boundaries(hypothesis, gold, tolerance))
    precision = hits / n_hyp if n_hyp else 0.0
    recall = hits / n_ref if n_ref else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def marked_stretch(
    gold: Sequence[int], lines: int, tolerance: int = TOLERANCE
) -> tuple[int, int] | None:
    """The source lines a partial gold is scored over: from `tolerance` lines before
    its first start after line 1 to `tolerance` lines after its last (None: it has no
    start after line 1)."""
    marks = [s for s in gold if 1 < s <= lines]
    if not marks:
        return None
    return max(2, min(marks) - tolerance), min(lines, max(marks) + tolerance)


def score(
    hypothesis: Sequence[int],
    gold: Sequence[int],
    weights: IntArray,
    *,
    chunks: int | None = None,
    tolerance: int = TOLERANCE,
    partial: bool = False,
) -> Scores:
    """Every score of `hypothesis` against `gold` (both: segment start lines); with
    `partial`, over the marked stretch only (see the module docstring)."""
    if partial:
        return _score_partial(hypothesis, gold, weights, tolerance)
    pk, wd, k = pk_windowdiff(hypothesis, gold, weights)
    p, r, f = boundary_f1(hypothesis, gold, tolerance)
    n_hyp = chunks if chunks is not None else len(set(hypothesis) | {1})
    return Scores(pk, wd, p, r, f, n_hyp, len(set(gold) | {1}), k)


def _score_partial(
    hypothesis: Sequence[int], gold: Sequence[int], weights: IntArray, tolerance: int
) -> Scores:
    stretch = marked_stretch(gold, len(weights), tolerance)
    if stretch is None:
        raise ValueError("partial gold needs a topic start after line 1")
    lo, hi = stretch
    marks = sorted({s for s in gold if 1 < s <= len(weights)})
    cuts = sorted(s for s in hypothesis if lo <= s <= hi)  # every cut, one line or not
    offsets = _offsets(weights)
    first, last = int(offsets[marks[0] - 1]), int(offsets[marks[-1] - 1])
    if len(marks) > 1:  # half the mean marked segment
        k = max(1, round((last - first) / (len(marks) - 1) / 2))
    else:  # one mark: as a complete gold with one boundary would have it
        k = max(1, round(int(offsets[-1]) / 2 / 2))
    windows = (int(offsets[lo - 1]) - k, int(offsets[hi - 1]))
    pk, wd, k = pk_windowdiff([1, *cuts], [1, *marks], weights, k, windows=windows)
    p, r, f = boundary_f1(cuts, marks, tolerance)
    return Scores(pk, wd, p, r, f, len(cuts) + 1, len(marks) + 1, k, True, stretch)


# --------------------------------------------------------------------------- sweeps and tuning


@dataclass(frozen=True)
class Case:
    """One file to segment and score: its chunks, vectors, gold starts and line weights
    (`partial`: the gold names only some starts; scored over their stretch)."""

    chunks: list[Chunk]
    vectors: Any
    gold: list[int]
    weights: IntArray
    _frame: list[TopicFrame] = field(default_factory=list, repr=False, compare=False)
    partial: bool = False

    @classmethod
    def of_pipeline(
        cls, pipe: Pipeline, gold: list[int], weights: Any, *, partial: bool = False
    ) -> Case:
        """A pipeline's compacted chunks and vectors (with its topic frame in topic mode)."""
        frames = [pipe.topic_frame()] if pipe.params.merge.mode == "topic" else []
        return cls(pipe.compacted(), pipe.embeddings(), gold, weights, frames, partial)

    def topic_frame(self) -> TopicFrame:
        """The topic segmenter's knob-independent work on this file, done once."""
        if not self._frame:
            from chunkscope.engine.segment.segmenter import frame

            self._frame.append(frame(self.chunks, self.vectors))
        return self._frame[0]


Segmenter = Callable[[Case, Mapping[str, Any]], list[Chunk]]


def evaluate(case: Case, segmenter: Segmenter, values: Mapping[str, Any]) -> Scores:
    """The scores of one setting (`values`) of `segmenter` on `case`."""
    return _evaluate(case, segmenter, values)[0]


def _evaluate(case: Case, segmenter: Segmenter, values: Mapping[str, Any]) -> tuple[Scores, int]:
    """The scores of a setting on `case`, and how many segments it gives in the whole file."""
    merged = segmenter(case, values)
    starts = chunk_starts(merged)
    gold = met_gold(case.gold, first_item_line(case.chunks), partial=case.partial)
    scored = score(starts, gold, case.weights, chunks=len(merged), partial=case.partial)
    return scored, len(merged)


def tuning_segmenter(
    tuning: Tuning, mode: str | None = None, token_counts: Sequence[int] | None = None
) -> Segmenter:
    """The `Segmenter` of a `Tuning` (in `mode`, default its own) with a setting's
    values over it: what ``chunkscope tune`` and the workbench's auto-tune and sweep
    search. Its chunks are the segments whose starts are scored: the topics in topic
    mode (the size cap splits a topic into merged chunks but never moves its start),
    the merged chunks of the seed loop. `token_counts` (the chunks') serve a seed loop
    capped in tokens."""
    from chunkscope.engine.segment.merge import merge
    from chunkscope.engine.segment.segmenter import segment

    mode = mode or tuning.merge.mode

    def run(case: Case, values: Mapping[str, Any]) -> list[Chunk]:
        t = tuning.with_values(values)
        if mode == "topic":  # topic starts are scored: the size cap never moves them
            topics = segment(case.chunks, case.vectors, t.topic, case.topic_frame(), max_chars=None)
            return topics.topic_chunks
        tokens = token_counts if t.merge.max_chunk_tokens is not None else None
        return merge(case.chunks, case.vectors, t.merge, token_counts=tokens).chunks

    return run


def tuning_merge(
    tuning: Tuning, mode: str | None = None, token_counts: Sequence[int] | None = None
) -> Callable[[Case, Mapping[str, Any]], MergeResult]:
    """The whole merge of a `Tuning` (in `mode`, default its own) with a setting's values
    over it, size cap included: both levels, the topics and the merged chunks (what the
    workbench's sweep counts). `token_counts` (the chunks') serve a cap in tokens."""
    from chunkscope.engine.config.tuning import exclusive_group
    from chunkscope.engine.segment.merge import merge
    from chunkscope.engine.segment.segmenter import segment

    mode = mode or tuning.merge.mode
    in_force = tuning.values()

    def run(case: Case, values: Mapping[str, Any]) -> MergeResult:
        # The open value of a cap (None: no cap in tokens) leaves the group's other
        # knobs as they are in force when they are open too: `with_values` would put
        # their defaults back (8192 chars), and the sweep's ∞ was not the run's
        opened = {
            other: None
            for name, value in values.items()
            if value is None
            for other in exclusive_group(name)
            if in_force.get(other) is None and other not in values
        }
        t = tuning.with_values({**opened, **values})
        m = t.merge
        tokens = token_counts if m.max_chunk_tokens is not None else None
        if mode == "topic":
            return segment(
                case.chunks,
                case.vectors,
                t.topic,
                case.topic_frame(),
                max_chars=m.max_chunk_chars,
                max_tokens=m.max_chunk_tokens,
                token_counts=tokens,
            )
        return merge(case.chunks, case.vectors, m, token_counts=tokens)

    return run


def sweepable_knobs() -> dict[str, tuple[Knob, str]]:
    """The knobs a sweep can move, by name, with the merge mode they act in: the seed
    loop's (`MergeParams`) and the topic segmenter's (`TopicParams`) numeric knobs."""
    from chunkscope.engine.config.tuning import MODE_PARAMS
    from chunkscope.engine.params import knobs

    out: dict[str, tuple[Knob, str]] = {}
    for mode, cls in MODE_PARAMS.items():
        for k in knobs(cls):
            if k.kind in ("int", "float"):
                out[k.name] = (k, mode)
    return out


def spacing_decimals(step: float) -> int:
    """The decimals that write values `step` apart with two significant digits of the
    step (0.526 apart: 2, ``0.53``; 0.05: 3; 5: 1; 500: 0): rounded so, values stay
    apart (each moves less than a twentieth of the step)."""
    if not math.isfinite(step) or step <= 0:
        return 6
    # (a step a hair under a power of ten, 0.9999999999999996, is that power's)
    return max(0, min(6, math.ceil(-math.log10(step) - 1e-9) + 1))


def knob_values(knob: Knob, start: float | None, stop: float | None, points: int) -> list[Any]:
    """`points` values of `knob` from `start` to `stop` (default: its slider's range),
    rounded to its type; an int knob's repeated values are dropped. A float knob's are
    rounded to two significant digits of their spacing (``0.53, 1.05, 1.58``, not
    ``0.526316, 1.05263``): as few decimals as keep them apart, the same for each. A
    range the knob cannot take is a ValueError saying why.

    A knob whose slider steps geometrically (`SliderSpec.track`: the size cap, from 256
    to 32768 chars) is swept on that log scale, as its slider moves: evenly spaced in
    the logarithm, each on one of the slider's positions when the range is the
    slider's own (linearly, the points past 2k chars took all but one, and the range
    where the count changes was one point: walk 11, 7)."""
    lo = start if start is not None else (knob.slider.lo if knob.slider else None)
    hi = stop if stop is not None else (knob.slider.hi if knob.slider else None)
    if lo is None or hi is None:
        raise ValueError("it has no default range: give --from and --to")
    if lo > hi:
        raise ValueError(f"--from {lo:g} is above --to {hi:g}")
    track = knob.slider.track if knob.slider is not None else None
    if track is not None and lo > 0:  # the slider's own positions on its own range only
        own = start is None and stop is None
        return _geometric_values(knob, lo, hi, points, track if own else [])
    values: list[Any] = []
    decimals = spacing_decimals((hi - lo) / (points - 1)) if points > 1 else 6
    for x in np.linspace(lo, hi, points):
        v: Any = round(float(x)) if knob.kind == "int" else round(float(x), decimals)
        v = knob.coerce(v)
        if v not in values:
            values.append(v)
    return values


def _geometric_values(
    knob: Knob, lo: float, hi: float, points: int, track: list[float]
) -> list[Any]:
    """`knob_values` on a log scale: `points` values from `lo` to `hi` evenly spaced in
    the logarithm, each moved to the nearest (in ratio) of the slider's positions
    `track` (none: a range given, its ends kept), repeats dropped."""
    on_track = [v for v in track if lo <= v <= hi]
    values: list[Any] = []
    for x in np.geomspace(lo, hi, points) if points > 1 else [lo]:
        v: float = float(x)
        if len(on_track) > 1:
            v = min(on_track, key=lambda t: abs(math.log(t / v)))
        coerced = knob.coerce(round(v) if knob.kind == "int" else float(f"{v:.3g}"))
        if coerced not in values:
            values.append(coerced)
    return values


def covering_values(params: type[Any], name: str, points: int) -> list[Any]:
    """`points` values of knob `name` of `params` across the range its slider offers,
    one in the middle of each of `points` equal parts of it (`knob_values`): every value
    the slider can take is within half a part of one, the ends too. A grid's knob
    declared so searches what the workbench lets the user try (walk 54, F4: auto-tune
    searched topic depths 5 to 8 of the slider's 0 to 10, and said no setting found the
    marks that depth 2 finds)."""
    from chunkscope.engine.params import knob_map

    knob = knob_map(params)[name]
    assert knob.slider is not None, f"{name} has no slider"
    half = (knob.slider.hi - knob.slider.lo) / (2 * points)
    return knob_values(knob, knob.slider.lo + half, knob.slider.hi - half, points)


def _tune_grids() -> dict[str, dict[str, list[Any]]]:
    from chunkscope.engine.segment.segmenter import TopicParams

    return {
        "topic": {
            "topic_window": [1000, 1500, 2500, 4000],
            "topic_depth": covering_values(TopicParams, "topic_depth", 5),
            "topic_structure": [3.5, 5.0, 6.5],
            "topic_min_chars": [300, 500],
        },
        "seed": {
            "threshold": ["adaptive", 0.05, 0.1, 0.15, 0.2, 0.3],
            "std_k": [0.0, 0.5, 1.0],
            "max_chunk_chars": [2048, 4096, 8192, 16384],
        },
    }


#: The settings `tune` tries by default, per merge mode (``chunkscope tune``, the
#: workbench's auto-tune and ``bench/segment.py``): every combination, so keep the
#: product small. The topic depth, the knob that decides most where topics start, spans
#: its slider's range (`covering_values`).
TUNE_GRIDS: dict[str, dict[str, list[Any]]] = _tune_grids()


def grid_words(grid: Mapping[str, Sequence[Any]]) -> str:
    """The ranges `grid` searches, as the advice under a search says them:
    ``topic_window 1000-4000, topic_depth 1.0-9.0, ...`` (a knob's words, such as
    ``adaptive``, named before its numbers; one value alone)."""
    parts = []
    for name, values in grid.items():
        words = [str(v) for v in values if isinstance(v, str)]
        numbers = sorted(v for v in values if not isinstance(v, str) and v is not None)
        if numbers:
            lo, hi = numbers[0], numbers[-1]
            words.append(f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}")
        parts.append(f"{name} {', '.join(words)}")
    return ", ".join(parts)


def sweep(
    case: Case, segmenter: Segmenter, name: str, values: Iterable[Any], base: Mapping[str, Any]
) -> list[tuple[Any, Scores]]:
    """The scores of the segmentation at each value of knob `name` (others from `base`)."""
    return [(v, evaluate(case, segmenter, {**base, name: v})) for v in values]


def grid_size(grid: Mapping[str, Sequence[Any]]) -> int:
    """How many settings `grid` has (every combination)."""
    return math.prod(len(v) for v in grid.values())


class Tuned(NamedTuple):
    """One setting of a search, with its mean scores over the files (as `Scores`, over
    the marked stretch when the gold is partial) and the mean number of segments it
    gives in the whole files (`chunks`: the segmenter's, topics in topic mode)."""

    values: dict[str, Any]
    pk: float
    windowdiff: float
    precision: float
    recall: float
    f1: float
    chunks: float

    @classmethod
    def of(cls, values: dict[str, Any], scores: Sequence[Scores], chunks: Sequence[int]) -> Tuned:
        """One setting's result over several cases: the mean of each score."""

        def mean(name: str) -> float:
            return float(np.mean([getattr(s, name) for s in scores]))

        return cls(
            values,
            mean("pk"),
            mean("windowdiff"),
            mean("precision"),
            mean("recall"),
            mean("f1"),
            float(np.mean(chunks)),
        )

    def objective(self) -> tuple[float, float, float]:
        """What `tune` minimises: finding the gold starts first (F1, highest first),
        then Pk, then WindowDiff."""
        return (-round(self.f1, 9), round(self.pk, 9), round(self.windowdiff, 9))


def no_mark_found(
    rows: Sequence[Tuned], grid: Mapping[str, Sequence[Any]], marks: int
) -> str | None:
    """What to say under a search's `rows` (the best and the current setting) when none
    finds a single one of the `marks` topic marks (F1 0 for all, so `tune` ranked them by
    Pk alone): the workbench's auto-tune and `chunkscope tune` say it alike, with the
    ranges of `grid` searched (a setting outside them may find the marks: walk 54, F4);
    None when some row finds a mark."""
    if not rows or any(t.f1 > 0 for t in rows):
        return None
    which = "the one topic mark" if marks == 1 else f"any of the {marks:,} topic marks"
    return (
        f"No setting of the {grid_size(grid):,} tried ({grid_words(grid)}) finds {which} "
        f"({SCORE_NAMES['f1']} {score_text(0)} for all): the rows are ranked by "
        f"{SCORE_NAMES['pk']} alone. A setting outside those ranges may find them; "
        "else check the marks, or try the other merge mode."
    )


def tune(
    cases: Sequence[Case],
    segmenter: Segmenter,
    grid: Mapping[str, Sequence[Any]],
    *,
    top: int = 5,
    progress: Callable[[int, int], None] | None = None,
    prefer: Mapping[str, Any] | None = None,
) -> list[Tuned]:
    """The `top` settings of `grid` by `Tuned.objective` over `cases` (mean boundary F1
    first, then mean Pk and WindowDiff), best first. Of settings that score the same
    (with a few marks, many find them all and cut nothing else between them), the one
    nearest `prefer` (the settings in force; `setting_distance`) comes first, else the
    grid's order: nothing moves that does not score better."""
    names = list(grid)
    settings = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grid.values())]
    results = []
    for i, values in enumerate(settings):
        scored = [_evaluate(case, segmenter, values) for case in cases]
        results.append(Tuned.of(values, [s for s, _ in scored], [n for _, n in scored]))
        if progress is not None:
            progress(i + 1, len(settings))
    if prefer is None:
        results.sort(key=Tuned.objective)
    else:
        from chunkscope.engine.config.tuning import setting_distance

        results.sort(key=lambda t: (t.objective(), setting_distance(t.values, prefer)))
    return results[:top]


def sparkline(values: Sequence[float], width: int = 50) -> str:
    """A one-line plot of `values` (terminal blocks), low to high."""
    blocks = "▁▂▃▄▅▆▇█"
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = hi - lo or 1.0
    return "".join(blocks[min(7, int((v - lo) / span * 7.999))] for v in values)
