"""The merge loop: join similar neighbouring chunks until a pass merges nothing.

`merge_chunks` keeps the seed's signature and runs exactly the reference
algorithm (log-format.md section 5); `merge` is the same loop with every knob
exposed and a trace of what each pass did and why each final cut is where it is.

The reference algorithm, per pass, while two or more chunks remain:

1. ``sims[i]`` = cosine of the vectors of chunks ``i`` and ``i + 1``.
2. ``threshold = mean(sims) - 0.5 * std(sims)`` (population std).
3. Walk left to right with a current group (starting with chunk 0): chunk ``i``
   joins the group when ``sims[i - 1] >= threshold or sims[i - 1] >= 0.8`` and
   ``len(group.text) + 1 + len(chunk_i.text) <= max_chunk_chars``; the group's
   vector becomes the running mean of the pass-input vectors merged into it
   (``vec = vec + (v_i - vec) / count``). Otherwise the group is emitted and
   chunk ``i`` starts a new one with its own vector.
4. Stop when a pass merges nothing.

The similarity used for chunk ``i`` is always the pass-start similarity of
inputs ``i - 1`` and ``i``, never group-versus-next, so a pass's decisions do
not depend on the vectors it computes. That makes the loop cheap: sizes live in
an int64 array; similarities come from row norms and neighbour dot products,
and a pass reuses those of the chunks it did not merge; the walk is a
vectorised partition over cumulative sizes; `Chunk` objects are built once at
the end (`chunks_from_spans`). Group vectors replay the reference running mean
operation by operation (batched over groups), in float64, so results are
bit-for-bit those of a literal float64 implementation of the seed loop.

Sizes: with ``max_chunk_chars`` the size of a merged chunk is its text length,
``sum(part chars) + (k - 1)`` for ``k`` parts (the newline joins). With
``max_chunk_tokens`` the cap is in tokens and replaces the character cap; a
merged chunk is estimated at ``sum(part tokens) + (k - 1)``, one token per
newline join (the true count of the joined text can differ slightly).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, pairwise
from operator import attrgetter, itemgetter
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from chunkscope.engine.model import Chunk, Span, chunks_from_spans
from chunkscope.engine.parallel import default_threads, run_shared
from chunkscope.engine.params import SliderSpec, check_fields, knob

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_turns = attrgetter("turns")
_known_chars = attrgetter("_chars")  # Chunk.chars once known, else -1
_role = itemgetter(1)  # Turn is a named tuple: (timestamp, role, text, ...)
_turn_text = itemgetter(2)

CutReason = Literal[
    "threshold", "size_cap", "min_similarity", "max_passes", "topic", "structure", "chunk_size"
]
_CUT_REASONS: tuple[CutReason, ...] = (
    "min_similarity",
    "threshold",
    "size_cap",
    "max_passes",
    "topic",
    "structure",
    "chunk_size",
)
#: The cut reasons a reader names otherwise in the topic segmenter: its ``size_cap`` cut
#: splits a topic over the size cap, at the topic's best inner gap (the chunks either
#: side of it may be small), where the seed loop's is a join the cap refused.
TOPIC_CUT_NAMES: dict[str, str] = {"size_cap": "split to fit cap"}


def cut_name(reason: str, topic: bool = False) -> str:
    """A cut reason as the user reads it, everywhere one is named (the workbench's cut
    lines, strip legend and stats, the report, the text output): ``size_cap`` → ``size
    cap``, or in the topic segmenter (`topic`) ``split to fit cap``."""
    if topic and reason in TOPIC_CUT_NAMES:
        return TOPIC_CUT_NAMES[reason]
    return reason.replace("_", " ")


#: The code of each cut reason in `MergeResult.cut_codes`.
CUT_CODES: dict[str, int] = {reason: i for i, reason in enumerate(_CUT_REASONS)}
#: How chunks are merged: the seed's loop, or the topic segmenter (`engine.segment.segmenter`).
MERGE_MODES = ("seed", "topic")
_MAX_PASSES = 3

# Bytes of member vectors gathered at a time when replaying running means, so
# that a block stays in cache while it is updated.
_BLOCK_BYTES = 1 << 19
# Row work below this many bytes stays on one thread (handing it over costs more).
_PARALLEL_MIN_BYTES = 1 << 21

__all__ = [
    "CUT_CODES",
    "MERGE_MODES",
    "Cut",
    "CutReason",
    "MergeParams",
    "MergeResult",
    "PassTrace",
    "char_counts",
    "cosine_similarities",
    "cut_name",
    "merge",
    "merge_chunks",
]


@dataclass(frozen=True)
class MergeParams:
    """Knobs of the merge loop; the defaults are the reference algorithm.

    - ``threshold``: ``"adaptive"`` (``mean - std_k * std`` of each pass's
      similarities) or a number used as a fixed threshold on every pass.
    - ``always_merge``: a similarity at or above it qualifies whatever the
      threshold (still subject to the size cap and ``min_similarity``); set it
      above 1 (or to ``inf``) to switch it off.
    - ``max_chunk_chars`` / ``max_chunk_tokens``: the size cap. A merged chunk's
      size in chars is its text length, ``sum(part chars) + (k - 1)``. When
      ``max_chunk_tokens`` is set it is the cap instead (``max_chunk_chars`` is
      ignored) and `merge` needs ``token_counts``; a merged chunk is then
      estimated at ``sum(part tokens) + (k - 1)``, one token per newline join.
      Both None means no cap. A single input chunk over the cap stays alone.
    - ``max_passes``: stop after this many passes (None = run to the fixed point).
    - ``min_similarity``: pairs below it never merge, whatever the threshold or
      ``always_merge``.

    Each field is a knob (`engine.params`): its declaration here is where the
    command-line flag, the workbench slider and the profile key come from.
    """

    threshold: Literal["adaptive"] | float = knob(
        "adaptive",
        "adaptive (mean - std_k * std of each pass's similarities) or a fixed similarity",
        flag="--threshold",
        words=("adaptive",),
        metavar="adaptive|X",
        slider=SliderSpec(0.0, 1.0, 0.01, 0.1, label="fixed", start=0.35, order=20, choice="fixed"),
    )
    std_k: float = knob(
        0.5,
        "adaptive threshold: mean - K * std",
        flag="--std-k",
        minimum=0,
        metavar="K",
        slider=SliderSpec(
            0.0, 3.0, 0.05, 0.25, label="std_k", order=10, shown_when=("threshold", "adaptive")
        ),
    )
    always_merge: float = knob(
        0.8,
        "a similarity at or above X always merges (inf: never)",
        flag="--always-merge",
        finite=False,
        metavar="X",
        slider=SliderSpec(0.0, 1.05, 0.01, 0.1, label="always ≥", open_at_max=True, order=30),
    )
    max_chunk_chars: int | None = knob(
        8192,
        "size cap of a merged chunk in chars",
        flag="--max-chars",
        minimum=1,
        none_is=0,
        exclusive="size cap",
        metavar="N",
        slider=SliderSpec(
            256,
            32768,
            256,
            2048,
            label="max chars",
            fmt="{:.0f}",
            open_at_max=True,
            per_doubling=4,
            order=40,
            choice="chars",
        ),
    )
    max_chunk_tokens: int | None = knob(
        None,
        "size cap of a merged chunk in tokens (also a strategy's size with --strategy)",
        flag="--max-tokens",
        minimum=1,
        exclusive="size cap",
        metavar="N",
        slider=SliderSpec(
            64,
            8192,
            64,
            512,
            label="max tokens",
            fmt="{:.0f}",
            open_at_max=True,
            per_doubling=4,
            start=2048,
            order=41,
            choice="tokens",
        ),
    )
    max_passes: int | None = knob(
        None,
        "stop after N passes (default: to the fixed point)",
        flag="--max-passes",
        minimum=1,
        none_is=0,
        metavar="N",
        slider=SliderSpec(1, 20, 1, 5, label="passes", fmt="{:.0f}", open_at_max=True, order=60),
    )
    min_similarity: float | None = knob(
        None, "pairs below X never merge", flag="--min-similarity", finite=False, metavar="X"
    )
    mode: str = knob(
        "topic",
        "how chunks are merged: topic (the topic segmenter, see --topic-* and "
        "`chunkscope.engine.segment.segmenter`) or seed (the reference loop)",
        flag="--merge",
        choices=MERGE_MODES,
    )

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def adaptive(self) -> bool:
        """Whether the threshold adapts to each pass (a ``mean-kstd`` rule rather than a number)."""
        return isinstance(self.threshold, str)

    @property
    def cap(self) -> int | None:
        """The size cap in force (tokens when ``max_chunk_tokens`` is set, else chars)."""
        if self.max_chunk_tokens is not None:
            return int(self.max_chunk_tokens)
        return None if self.max_chunk_chars is None else int(self.max_chunk_chars)

    @property
    def cap_unit(self) -> Literal["chars", "tokens"]:
        """What the size cap counts: tokens when ``max_chunk_tokens`` is set, else chars."""
        return "tokens" if self.max_chunk_tokens is not None else "chars"

    def threshold_for(self, mean: float, std: float) -> float:
        """The threshold of a pass whose similarities have this mean and std."""
        if isinstance(self.threshold, str):
            return mean - self.std_k * std
        return float(self.threshold)


@dataclass(eq=False)
class PassTrace:
    """What one pass of the loop saw and did.

    ``index`` is the 1-based pass number (as in the log line). Pair ``i`` is the
    pair of pass-input chunks ``i`` and ``i + 1``. ``bounds`` holds the start of
    every chunk the pass produced, as an index into the original input chunks,
    followed by the number of input chunks (so the pass output as spans is
    ``zip(bounds[:-1], bounds[1:])``, see `spans`).
    """

    index: int
    similarities: FloatArray
    mean: float
    std: float
    threshold: float
    merged: list[int]
    refused_by_cap: list[int]
    chunks_in: int
    chunks_out: int
    bounds: IntArray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))

    @property
    def spans(self) -> list[Span]:
        """The pass output as half-open spans over the original input chunks."""
        b = self.bounds.tolist()
        return list(pairwise(b))


@dataclass(slots=True)
class Cut:
    """The boundary between merged chunks ``after`` and ``after + 1``, and why.

    ``similarity`` is the cosine of the two merged chunks' vectors and
    ``threshold`` the threshold a next pass would use, i.e. what the last pass
    compared when the loop reached its fixed point. ``reason``:

    - ``min_similarity``: the similarity is below ``min_similarity``;
    - ``threshold``: the similarity is below both the threshold and ``always_merge``;
    - ``size_cap``: the similarity qualifies but the joined chunk would exceed the cap;
    - ``max_passes``: the boundary would merge on a next pass, but ``max_passes`` ran out.

    The topic segmenter's: ``topic``, ``structure`` (a topic starts), ``size_cap`` (a
    topic split to fit the cap) and ``chunk_size`` (a topic split into chunks of about
    ``topic_chunk_tokens``, the size a search context takes).
    """

    after: int
    reason: CutReason
    similarity: float
    threshold: float
    depth: float | None = None
    """A topic cut's score (its depth, plus the structure bonus); None for the seed loop."""

    def __str__(self) -> str:
        """``size cap (similarity 0.4102, threshold 0.2213)``: the reason and its numbers
        (a topic cut: ``topic (depth 0.4102 >= 0.2213, block similarity 0.1200)``)."""
        if self.depth is not None:  # the topic segmenter's
            return (
                f"{cut_name(self.reason, topic=True)} (depth {self.depth:.4f}, threshold "
                f"{self.threshold:.4f}, block similarity {self.similarity:.4f})"
            )
        return (
            f"{cut_name(self.reason)} "
            f"(similarity {self.similarity:.4f}, threshold {self.threshold:.4f})"
        )


@dataclass(eq=False)
class MergeResult:
    """The merged chunks, as spans over the input, with the trace of every pass.

    ``spans`` (half-open, over the input chunks, partitioning ``0..n`` in
    order) and ``cuts`` (one per boundary, ``len(spans) - 1``) are built on first
    access from ``bounds`` and the cut arrays, so a large `merge_chunks` call
    that only wants the chunks never pays for them.
    """

    bounds: IntArray
    """Start of every merged chunk as an input-chunk index, followed by ``n``."""
    chunks: list[Chunk]
    vectors: FloatArray
    """The group vectors as the loop computed them (float64), one per merged chunk
    (given as a `LazyVectors`: computed on first read)."""
    passes: list[PassTrace]
    cut_similarities: FloatArray
    """``Cut.similarity`` of every boundary, as an array."""
    cut_threshold: float
    cut_codes: npt.NDArray[np.int8] = field(repr=False)
    params: MergeParams = field(default_factory=MergeParams)
    cut_depths: FloatArray | None = None
    """A topic segmentation's score at every cut (None for the seed loop)."""
    over_cap: BoolArray | None = None
    """Per merged chunk: one input chunk larger than the size cap, kept whole (the
    ``exceeds_limit`` of the JSON); None: none is."""
    topic_bounds: IntArray | None = None
    """The first level of a topic segmentation: where each topic starts, as an input
    chunk index, followed by ``n`` (every topic is one or more merged chunks). None:
    every merged chunk is its own topic (the seed loop)."""

    @cached_property
    def spans(self) -> list[Span]:
        """The merged chunks as half-open ranges of input chunk indices."""
        return list(pairwise(self.bounds.tolist()))

    @property
    def exceeds_limit(self) -> list[bool]:
        """Per merged chunk, whether it is one input chunk over the size cap."""
        if self.over_cap is None:
            return [False] * len(self.chunks)
        flags: list[bool] = self.over_cap.astype(bool, copy=False).tolist()
        return flags

    @cached_property
    def topic_spans(self) -> list[Span]:
        """Each topic as a half-open span over the merged chunks."""
        if self.topic_bounds is None:
            return [(i, i + 1) for i in range(len(self.chunks))]
        at = np.searchsorted(self.bounds, self.topic_bounds).tolist()
        return list(pairwise(at))

    @cached_property
    def topic_of(self) -> list[int]:
        """For every merged chunk, the index of its topic."""
        if self.topic_bounds is None:
            return list(range(len(self.chunks)))
        inner = self.topic_bounds[1:-1]
        found: list[int] = np.searchsorted(inner, self.bounds[:-1], side="right").tolist()
        return found

    @cached_property
    def topic_chunks(self) -> list[Chunk]:
        """The topics as chunks (each the merged chunks of one topic joined): what is
        scored against gold topic starts."""
        if self.topic_bounds is None or len(self.topic_bounds) == len(self.bounds):
            return self.chunks
        return chunks_from_spans(self.chunks, self.topic_spans)

    def topic_reason(self, topic: int) -> str:
        """Why topic `topic` starts where it does: the reason of the cut before its
        first merged chunk (``start`` for the first topic)."""
        first = self.topic_spans[topic][0]
        return "start" if first == 0 else self.cuts[first - 1].reason

    @property
    def cut_reasons(self) -> list[CutReason]:
        """``Cut.reason`` of every boundary, without building the `cuts`."""
        reasons = _CUT_REASONS
        return [reasons[code] for code in self.cut_codes.tolist()]

    def cut(self, j: int) -> Cut:
        """``cuts[j]``, built alone (the cuts' list is built on first access)."""
        if "cuts" in self.__dict__:
            return self.cuts[j]
        n = len(self.cut_codes)
        if not -n <= j < n:
            raise IndexError(f"cut {j} out of range 0..{n - 1}")
        j %= n
        depths = self.cut_depths
        return Cut(
            j,
            _CUT_REASONS[int(self.cut_codes[j])],
            float(self.cut_similarities[j]),
            self.cut_threshold,
            None if depths is None else float(depths[j]),
        )

    @property
    def lazy_cuts(self) -> Sequence[Cut]:
        """The `cuts` as a sequence that builds only the cuts it is asked for (a list
        drawing the lines on screen)."""
        return _LazyCuts(self)

    def reason_counts(self) -> dict[CutReason, int]:
        """How many cuts have each reason (only the reasons some cut has)."""
        codes, counts = np.unique(self.cut_codes, return_counts=True)
        return {_CUT_REASONS[int(c)]: int(k) for c, k in zip(codes, counts, strict=True)}

    @cached_property
    def cuts(self) -> list[Cut]:
        """Every gap between input chunks: whether it was cut, why, its similarity and depth."""
        threshold = self.cut_threshold
        depths = self.cut_depths.tolist() if self.cut_depths is not None else None
        return [
            Cut(j, _CUT_REASONS[code], sim, threshold, None if depths is None else depths[j])
            for j, (code, sim) in enumerate(
                zip(self.cut_codes.tolist(), self.cut_similarities.tolist(), strict=True)
            )
        ]

    @property
    def thresholds(self) -> list[float]:
        """The threshold of every pass, in order."""
        return [p.threshold for p in self.passes]

    @property
    def converged(self) -> bool:
        """True unless ``max_passes`` stopped the loop while a boundary would still merge."""
        return not bool(np.any(self.cut_codes == _MAX_PASSES))

    @property
    def owners(self) -> IntArray:
        """For every input chunk, the index of the merged chunk that holds it."""
        lengths = np.diff(self.bounds)
        return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)

    def owner(self, i: int) -> int:
        """Index of the merged chunk holding input chunk ``i``."""
        n = int(self.bounds[-1])
        if not 0 <= i < n:
            raise IndexError(f"input chunk {i} out of range 0..{n - 1}")
        return int(np.searchsorted(self.bounds, i, side="right")) - 1

    def cut_after(self, i: int) -> Cut | None:
        """The cut on the right of merged chunk ``i`` (None for the last chunk)."""
        return self.cuts[i] if 0 <= i < len(self.cut_codes) else None


# --------------------------------------------------------------------------- similarities


def _row_dots(a: FloatArray, b: FloatArray) -> FloatArray:
    """Row-wise dot products. Each row's value depends only on the two rows (the
    loop relies on this to reuse the dots and norms of rows it did not change)."""
    dots: FloatArray = np.vecdot(a, b)
    return dots


def _row_norms(w: FloatArray) -> FloatArray:
    return np.sqrt(_row_dots(w, w))


def _neighbour_dots(w: FloatArray) -> FloatArray:
    return _row_dots(w[:-1], w[1:])


def _cosines(dots: FloatArray, norms: FloatArray) -> FloatArray:
    denom = norms[:-1] * norms[1:]
    sims = np.zeros(len(dots), dtype=np.float64)
    np.divide(dots, denom, out=sims, where=denom > 0.0)
    np.clip(sims, -1.0, 1.0, out=sims)
    return sims


class LazyVectors:
    """A `MergeResult`'s ``vectors`` not computed yet: pass one (cast to the array type)
    as ``vectors=``, and the result calls it on the first read of ``vectors`` and keeps
    what it returns. A slider step never reads the merged chunks' vectors; the recap's
    salience does."""

    def __init__(self, compute: Callable[[], FloatArray]) -> None:
        self.compute = compute


def _get_vectors(self: MergeResult) -> FloatArray:
    found = self.__dict__["vectors"]
    if isinstance(found, LazyVectors):
        found = found.compute()
        self.__dict__["vectors"] = found
    return found  # type: ignore[no-any-return]


def _set_vectors(self: MergeResult, value: FloatArray) -> None:
    self.__dict__["vectors"] = value


# after the dataclass is made (its __init__ assigns ``self.vectors``, which stores the
# array or the `LazyVectors`); `vectors` reads as the array, computed on first use
MergeResult.vectors = property(_get_vectors, _set_vectors)  # type: ignore[assignment]


class _LazyCuts(Sequence[Cut]):
    """`MergeResult.lazy_cuts`."""

    def __init__(self, result: MergeResult) -> None:
        self._result = result

    def __len__(self) -> int:
        return len(self._result.cut_codes)

    @overload
    def __getitem__(self, j: int) -> Cut: ...
    @overload
    def __getitem__(self, j: slice) -> list[Cut]: ...
    def __getitem__(self, j: int | slice) -> Cut | list[Cut]:
        if isinstance(j, slice):
            return self._result.cuts[j]
        return self._result.cut(j)


def cosine_similarities(embeddings: npt.ArrayLike) -> FloatArray:
    """Cosine similarity of every row with the next one (length ``n - 1``), in float64.

    Zero-safe: a pair involving a zero vector has similarity 0.0, never NaN.
    """
    e = _as_embeddings(embeddings)
    if e.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array, got shape {e.shape}")
    if len(e) < 2:
        return np.zeros(0, dtype=np.float64)
    ws = _Workspace(e, default_threads())
    return _cosines(ws.dots, ws.norms)


def _as_embeddings(embeddings: npt.ArrayLike) -> npt.NDArray[np.floating]:
    """A C-contiguous float32 or float64 array: float32 (what the embedders return) stays
    float32 and is widened a block at a time where it is read; anything else becomes
    float64 here."""
    w = np.asarray(embeddings)
    return np.ascontiguousarray(w, dtype=w.dtype if w.dtype == np.float32 else np.float64)


# --------------------------------------------------------------------------- one pass


def _qualified(sims: FloatArray, threshold: float, params: MergeParams) -> BoolArray:
    q: BoolArray = sims >= threshold
    q |= sims >= params.always_merge
    if params.min_similarity is not None:
        q &= sims >= params.min_similarity
    return q


def _partition(
    qualified: BoolArray, prefix: IntArray, cap: int | None
) -> tuple[IntArray, IntArray]:
    """The reference walk: start of every group, and the pairs the cap refused.

    ``prefix[i]`` is the size of inputs ``0..i-1`` plus one join each, so the
    size of group ``[a, b)`` is ``prefix[b] - prefix[a] - 1``. A pair that does
    not qualify always cuts, so each run of qualifying pairs is packed on its
    own: whole when it fits the cap, else greedily left to right as the walk
    does (a group starting at ``s`` takes every input whose end still fits,
    and at least input ``s``). All over-cap runs advance together, one group
    per numpy step.
    """
    n = len(prefix) - 1
    none = np.zeros(0, dtype=np.int64)
    cuts = np.flatnonzero(~qualified) + 1
    run_starts = np.concatenate(([0], cuts)).astype(np.int64)
    if cap is None:
        return run_starts, none
    run_ends = np.concatenate((cuts, [n])).astype(np.int64)
    over = np.flatnonzero(prefix[run_ends] - prefix[run_starts] - 1 > cap)
    if len(over) == 0:
        return run_starts, none
    s, b = run_starts[over], run_ends[over]
    extra: list[IntArray] = []
    while len(s):
        e = np.searchsorted(prefix, prefix[s] + (cap + 1), side="right") - 1
        e = np.maximum(e, s + 1)
        inside = e < b
        s, b = e[inside], b[inside]
        extra.append(s)
    refused_after = np.concatenate(extra)
    starts = np.sort(np.concatenate((run_starts, refused_after)))
    return starts, np.sort(refused_after) - 1


class _Scratch:
    """One thread's reused blocks: the groups' running vectors, the members being added,
    and (for a float32 input) the narrow rows read before widening."""

    def __init__(self, rows: int, d: int, dtype: np.dtype[np.floating]) -> None:
        self.cur = np.empty((rows, d), dtype=np.float64)
        self.new = np.empty((rows, d), dtype=np.float64)
        self.narrow = np.empty((rows, d), dtype=dtype) if dtype != np.float64 else None
        self._wide: FloatArray | None = None

    def widened(self, block: npt.NDArray[np.floating]) -> FloatArray:
        """``block`` as float64: itself, or widened into a reused buffer (a fresh array
        per block would fault its pages in every time)."""
        if block.dtype == np.float64:
            return block.astype(np.float64, copy=False)  # no copy: typed as float64
        if self._wide is None or len(self._wide) < len(block):
            self._wide = np.empty(block.shape, dtype=np.float64)
        wide = self._wide[: len(block)]
        np.copyto(wide, block)
        return wide


Task = Callable[[_Scratch], None]


def _gather(
    w: npt.NDArray[np.floating], rows: IntArray, out: FloatArray, s: _Scratch
) -> FloatArray:
    """``out[:] = w[rows]`` in float64, through ``s.narrow`` when ``w`` is narrower."""
    narrow = s.narrow
    if narrow is None or w.dtype == np.float64:  # after the first pass, always
        return np.take(w, rows, axis=0, out=out, mode="clip")
    step = len(narrow)
    for r0 in range(0, len(rows), step):
        part = rows[r0 : r0 + step]
        np.take(w, part, axis=0, out=narrow[: len(part)], mode="clip")
        out[r0 : r0 + len(part)] = narrow[: len(part)]
    return out


class _Workspace:
    """Vectors, norms and neighbour dots of the current pass input, and their update.

    The first pass writes its output (one row per merged chunk) to a float64
    buffer; every later pass updates that buffer in place: a merged group's mean
    goes to the row of its first member, a chunk that merged with nothing is not
    copied, and ``rows`` says which buffer row holds each chunk of the pass input
    (late passes merge few chunks, so they cost little). Gathers go to reused
    scratch blocks. The caller's array is only read, and a float32 input is
    never copied whole: the first pass reads it a block of rows at a time, each
    block widened to float64 before any arithmetic (which is what converting the
    whole array first would give, bit for bit).

    The row work of a large pass (norms and dots, running means, copies) is cut
    into blocks shared by ``threads`` threads (`engine.parallel`): numpy releases
    the GIL inside each block's operations, and every value is computed by the
    same operations whichever thread runs its block, so the result does not
    depend on the number of threads.
    """

    def __init__(self, w: npt.NDArray[np.floating], threads: int) -> None:
        self.w = w
        self.threads = threads
        d = w.shape[1]
        rows = max(1, _BLOCK_BYTES // max(8, d * 8))
        self._scratch = [_Scratch(rows, d, w.dtype) for _ in range(max(1, threads))]
        self.norms, self.dots = self._norms_and_dots(w)
        self.rows: IntArray | None = None  # buffer row of each input chunk; None: the same
        self._buf: FloatArray | None = None  # the buffer, once the first pass has made it

    def _run(self, tasks: list[Task], nbytes: int) -> None:
        """Run every task once, on this thread alone or shared with the pool's."""
        parts = self.threads if nbytes >= _PARALLEL_MIN_BYTES else 1
        run_shared(tasks, self._scratch[:parts])

    def _norms_and_dots(
        self, w: npt.NDArray[np.floating], with_norms: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        """Row norms (unless not ``with_norms``: then empty) and neighbour dots in float64,
        reading ``w`` once in blocks shared by the threads (each block widened to float64
        first when ``w`` is float32)."""
        n = len(w)
        norms = np.empty(n if with_norms else 0, dtype=np.float64)
        dots = np.empty(max(0, n - 1), dtype=np.float64)
        # larger blocks than the running means' (a vecdot call costs microseconds to set
        # up, and a row is read once here): fastest measured, on one thread or two
        step = max(2, 4 * len(self._scratch[0].cur))

        def block(r0: int) -> Task:
            def run(s: _Scratch) -> None:
                # one row of overlap for the last dot
                rows = s.widened(w[r0 : min(n, r0 + step + 1)])
                if with_norms:
                    norms[r0 : r0 + step] = _row_norms(rows[:step])
                dots[r0 : r0 + len(rows) - 1] = _neighbour_dots(rows)

            return run

        self._run([block(r0) for r0 in range(0, n, step)], w.nbytes)
        return norms, dots

    def vectors(self) -> FloatArray:
        """The vectors of the current chunks, a float64 array of their own."""
        if self.rows is None:
            return np.array(self.w, dtype=np.float64)
        return np.take(self.w, self.rows, axis=0)

    def advance(self, starts: IntArray, counts: IntArray) -> None:
        """Replace the pass input by the pass output (groups ``starts``/``counts``).

        A chunk that did not merge keeps its vector and norm, and the dot of two
        such neighbours is the one already known (they were neighbours in the
        pass input); only merged groups and the pairs touching them are computed.
        """
        n_out = len(starts)
        merged = counts >= 2
        groups = np.flatnonzero(merged)
        singles = np.flatnonzero(~merged)
        per_block = len(self._scratch[0].cur)
        out: FloatArray
        if self._buf is not None:  # in place: singles stay where they are
            out, index = self._buf, self.rows
            new_rows = starts if index is None else index[starts]
            tasks: list[Task] = []
            nbytes = 0
        else:  # the first pass: a new buffer in output order, singles copied
            out, index, new_rows = np.empty((n_out, self.w.shape[1]), dtype=np.float64), None, None
            tasks = [
                self._copy_task(singles[r0 : r0 + per_block], starts, out)
                for r0 in range(0, len(singles), per_block)
            ]
            nbytes = len(singles) * self._row_bytes
        norms: FloatArray = self.norms[starts]
        # largest groups first, in cache-sized blocks: the groups still running at
        # step k are a prefix of their block; taking blocks in turn balances threads
        order = groups[np.argsort(-counts[groups], kind="stable")]
        tasks[:0] = [
            self._mean_task(order[b0 : b0 + per_block], starts, counts, index, out, norms)
            for b0 in range(0, len(order), per_block)
        ]
        self._run(tasks, nbytes + int(counts[groups].sum()) * self._row_bytes)
        dots = np.empty(max(0, n_out - 1), dtype=np.float64)
        if n_out >= 2:
            kept = ~(merged[:-1] | merged[1:])
            dots[kept] = self.dots[starts[:-1][kept]]
            changed = np.flatnonzero(~kept)
            if new_rows is None and 4 * len(changed) > n_out:
                dots[changed] = self._norms_and_dots(out, with_norms=False)[1][changed]
            elif len(changed):
                left = changed if new_rows is None else new_rows[changed]
                right = changed + 1 if new_rows is None else new_rows[changed + 1]
                dots[changed] = _row_dots(out[left], out[right])
        self.w = self._buf = out
        self.rows, self.norms, self.dots = new_rows, norms, dots

    @property
    def _row_bytes(self) -> int:
        return max(8, int(self.w.shape[1]) * 8)

    def _copy_task(self, singles: IntArray, starts: IntArray, out: FloatArray) -> Task:
        """Copy the vectors of chunks that merged with nothing."""
        w = self.w

        def run(s: _Scratch) -> None:
            out[singles] = _gather(w, starts[singles], s.cur[: len(singles)], s)

        return run

    def _mean_task(
        self,
        placed: IntArray,
        starts: IntArray,
        counts: IntArray,
        index: IntArray | None,
        out: FloatArray,
        norms: FloatArray,
    ) -> Task:
        """Replay the reference running mean of the merged groups ``placed`` (largest first)
        into ``out``/``norms``: at the group's place in a new buffer, or (``out`` is the
        input) at its first member's row. ``index`` maps input chunks to rows of ``w``.

        ``vec = v_1``, then ``vec = vec + (v_k - vec) / k`` for ``k = 2..count``:
        the same float64 operations in the same order as the sequential loop,
        batched over groups, so every vector is bit-identical to the reference's.
        """
        w = self.w
        first, size = starts[placed], counts[placed]
        in_place = out is self._buf  # else a new buffer in output order

        def rows_of(chunks: IntArray) -> IntArray:
            return chunks if index is None else index[chunks]

        def run(s: _Scratch) -> None:
            m, top = len(first), int(size[0])
            cur = _gather(w, rows_of(first), s.cur[:m], s)
            running = np.searchsorted(-size, -np.arange(2, top + 1), side="right").tolist()
            for k, mk in enumerate(running, start=2):
                new = _gather(w, rows_of(first[:mk] + (k - 1)), s.new[:mk], s)
                head = cur[:mk]
                np.subtract(new, head, out=new)
                if k & (k - 1):
                    np.divide(new, float(k), out=new)
                else:  # x * 2**-j is exactly x / 2**j: same rounding, cheaper
                    np.multiply(new, 1.0 / k, out=new)
                np.add(head, new, out=head)
            out[rows_of(first) if in_place else placed] = cur
            norms[placed] = _row_norms(cur)

        return run


# --------------------------------------------------------------------------- the loop


def _validate(
    chunks: Sequence[Chunk],
    embeddings: npt.ArrayLike,
    params: MergeParams,
    token_counts: Sequence[int] | None,
) -> tuple[npt.NDArray[np.floating], IntArray]:
    n = len(chunks)
    w = _as_embeddings(embeddings)
    if n == 0 and w.size == 0:
        w = w.reshape(0, w.shape[-1] if w.ndim == 2 else 0)
    if w.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array, got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"embeddings has {w.shape[0]} rows but there are {n} chunks")
    if params.max_chunk_tokens is not None:
        if token_counts is None:
            raise ValueError("max_chunk_tokens is set but no token_counts were given")
        sizes = np.asarray(token_counts, dtype=np.int64)
        if sizes.shape != (n,):
            raise ValueError(f"token_counts has {len(sizes)} entries but there are {n} chunks")
        if n and int(sizes.min()) < 0:
            raise ValueError("token_counts must be >= 0")
    else:
        sizes = char_counts(chunks)
    return w, sizes


def char_counts(chunks: Sequence[Chunk]) -> IntArray:
    """Every chunk's `Chunk.chars` (``len(text)``) as an array, without building a text.

    A chunk remembers its count once its text or `Chunk.chars` has been read (the
    token counter and the embedder read every text); the others are counted
    together by arithmetic on their turns: a line is ``role + ": " + text``, and
    the lines are joined by newlines.
    """
    n = len(chunks)
    sizes = np.fromiter(map(_known_chars, chunks), dtype=np.int64, count=n)
    unknown = np.flatnonzero(sizes < 0)
    if len(unknown) == 0:
        return sizes
    rest = [chunks[i] for i in unknown.tolist()] if len(unknown) < n else chunks
    per_chunk = list(map(_turns, rest))
    k = np.fromiter(map(len, per_chunk), dtype=np.int64, count=len(rest))
    flat = list(chain.from_iterable(per_chunk))
    m = len(flat)
    lengths = np.fromiter(map(len, map(_role, flat)), dtype=np.int64, count=m)
    lengths += np.fromiter(map(len, map(_turn_text, flat)), dtype=np.int64, count=m)
    csum = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lengths, out=csum[1:])
    ends = np.cumsum(k)
    counted = csum[ends] - csum[ends - k] + 3 * k - 1
    counted[k == 0] = 0
    sizes[unknown] = counted
    return sizes


def merge(
    chunks: Sequence[Chunk],
    embeddings: npt.ArrayLike,
    params: MergeParams = MergeParams(),
    token_counts: Sequence[int] | None = None,
    log: Callable[[str], None] | None = None,
    *,
    threads: int | None = None,
) -> MergeResult:
    """Run the merge loop on ``chunks`` (one embedding row each) and trace it.

    ``token_counts`` (one per chunk) is needed when ``params.max_chunk_tokens``
    is set. ``log`` gets one line per pass, e.g.
    ``pass 1: 137 -> 61 chunks (threshold 0.1423)``. ``threads`` share the
    vector work of large passes (default `engine.parallel.default_threads`);
    the result is the same for any number. Raises ValueError on mismatched
    lengths or non-finite embeddings.
    """
    return _merge(chunks, embeddings, params, token_counts, log, threads, with_vectors=True)


def _merge(
    chunks: Sequence[Chunk],
    embeddings: npt.ArrayLike,
    params: MergeParams,
    token_counts: Sequence[int] | None,
    log: Callable[[str], None] | None,
    threads: int | None,
    *,
    with_vectors: bool,
) -> MergeResult:
    """`merge`; without ``with_vectors`` the result's ``vectors`` are left empty (zero
    rows), for `merge_chunks`, whose caller only gets the chunks."""
    w, sizes = _validate(chunks, embeddings, params, token_counts)
    n = len(chunks)
    cap = params.cap
    ws = _Workspace(w, default_threads() if threads is None else max(1, threads))
    if not np.isfinite(ws.norms).all():
        raise ValueError("embeddings must be finite (no NaN or inf, norms must not overflow)")

    bounds = np.arange(n + 1, dtype=np.int64)  # pass input as spans over the original chunks
    passes: list[PassTrace] = []
    merged_last = False
    while len(sizes) >= 2 and (params.max_passes is None or len(passes) < params.max_passes):
        n_in = len(sizes)
        sims = _cosines(ws.dots, ws.norms)
        mean, std = float(np.mean(sims)), float(np.std(sims))
        threshold = params.threshold_for(mean, std)
        qualified = _qualified(sims, threshold, params)
        prefix = np.zeros(n_in + 1, dtype=np.int64)
        np.cumsum(sizes + 1, out=prefix[1:])
        starts, refused = _partition(qualified, prefix, cap)
        ends = np.append(starts[1:], n_in)
        counts = ends - starts
        if len(refused):
            qualified[refused] = False
        trace = PassTrace(
            index=len(passes) + 1,
            similarities=sims,
            mean=mean,
            std=std,
            threshold=threshold,
            merged=np.flatnonzero(qualified).tolist(),
            refused_by_cap=refused.tolist(),
            chunks_in=n_in,
            chunks_out=len(starts),
            bounds=np.append(bounds[starts], n),
        )
        passes.append(trace)
        if log is not None:
            log(f"pass {trace.index}: {n_in} -> {len(starts)} chunks (threshold {threshold:.4f})")
        merged_last = len(starts) < n_in
        if not merged_last:
            break
        bounds = trace.bounds
        sizes = prefix[ends] - prefix[starts] - 1
        ws.advance(starts, counts)

    codes, cut_sims, cut_threshold = _cuts(passes, ws.dots, ws.norms, sizes, params, merged_last)
    return MergeResult(
        bounds=bounds,
        chunks=chunks_from_spans(chunks, pairwise(bounds.tolist())),
        # a float64 copy: never the caller's array, nor a view of a larger buffer
        vectors=ws.vectors() if with_vectors else np.zeros((0, w.shape[1]), dtype=np.float64),
        passes=passes,
        cut_similarities=cut_sims,
        cut_threshold=cut_threshold,
        cut_codes=codes,
        params=params,
        over_cap=sizes > cap if cap is not None else None,
    )


def _cuts(
    passes: list[PassTrace],
    dots: FloatArray,
    norms: FloatArray,
    sizes: IntArray,
    params: MergeParams,
    stopped_early: bool,
) -> tuple[npt.NDArray[np.int8], FloatArray, float]:
    """Why each final boundary is there: what a pass over the final chunks would do.

    When the loop reached its fixed point that pass is the last one run (same
    vectors, same similarities, same threshold, and each group is one chunk, so
    the pairwise size check is exactly the walk's). When ``max_passes`` stopped
    it, the next pass is evaluated without being run (sizes checked pairwise).
    Returns reason codes (indices into `_CUT_REASONS`), similarities, threshold.
    """
    if len(sizes) < 2:
        return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.float64), math.nan
    if stopped_early:
        sims = _cosines(dots, norms)
        threshold = params.threshold_for(float(np.mean(sims)), float(np.std(sims)))
    else:
        sims, threshold = passes[-1].similarities, passes[-1].threshold
    # later rules win: max_passes < size_cap < threshold < min_similarity
    codes = np.full(len(sims), _MAX_PASSES, dtype=np.int8)
    if params.cap is not None:
        codes[sizes[:-1] + 1 + sizes[1:] > params.cap] = 2
    codes[(sims < threshold) & (sims < params.always_merge)] = 1
    if params.min_similarity is not None:
        codes[sims < params.min_similarity] = 0
    return codes, sims, threshold


def merge_chunks(
    chunks: list[Chunk],
    embeddings: np.ndarray,
    max_chunk_chars: int = 8192,
    log: Callable[[str], None] | None = None,
) -> list[Chunk]:
    """The seed's `merge_chunks`: the reference algorithm, returning the merged chunks.

    ``log`` gets one line per pass in the reference's words,
    ``Merge pass (137 chunks): threshold=0.1423 (mean=0.2311, std=0.1776)``
    (`merge`'s ``log`` has the richer ``pass 1: 137 -> 61 chunks ...`` line)."""
    params = MergeParams(max_chunk_chars=max_chunk_chars)
    result = _merge(chunks, embeddings, params, None, None, None, with_vectors=False)
    if log is not None:
        for p in result.passes:
            log(
                f"Merge pass ({p.chunks_in} chunks): threshold={p.threshold:.4f} "
                f"(mean={p.mean:.4f}, std={p.std:.4f})"
            )
    return result.chunks
