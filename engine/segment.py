"""The topic segmenter: where the topic changes, over the compacted chunks and their vectors.

The seed's merge loop compares single neighbours, and on agent logs that signal is
weak and noisy; merging then runs until the size cap stops it, so the cap, not the
content, decides where chunks break. This segmenter, after TextTiling (Hearst 1997)
and its embedding-based successors, instead:

1. **Compares blocks.** The similarity at the gap after chunk ``i`` is the cosine of
   the mean vector of the ``topic_window`` chunks before it and of the ``window`` chunks
   after it (each chunk weighted by its size in chars, clipped, so a one-line chunk
   does not count as much as a page).
2. **Scores depth.** How far that similarity dips below the highest similarity on
   each side within ``window`` gaps: ``(left peak - s) + (right peak - s)``. A real
   topic change is a valley, not merely a low value in a low region.
3. **Prefers structure, without trusting it blindly.** A gap gets a bonus (weighted by
   ``structure``) when the chunk after it starts a user turn after the assistant
   spoke, starts a markdown heading (more for a higher level), or follows a long
   pause or a day change. The bonus adds to the depth; it never cuts on its own.
4. **Cuts the deepest gaps first.** Gaps whose score reaches the threshold (a fixed
   number, or ``adaptive``: ``mean + k * std`` of the gap scores) are taken from the
   deepest down, skipping any that would leave a segment under ``min_chars``.
5. **Respects a size cap.** A segment over ``max_chars`` is split at its deepest
   remaining gaps until it fits (``size_cap`` cuts).

Everything is vectorised numpy over the gaps; 10k chunks segment in a few ms once the
vectors exist. The result is an `engine.merge.MergeResult` (no passes), so the
command line and the workbench show topic cuts as they show merge cuts, each with
its reason: ``topic`` (its depth), ``structure`` (a structural point tipped it), or
``size_cap``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise
from typing import Literal

import numpy as np
import numpy.typing as npt

from engine.merge import CUT_CODES, MergeParams, MergeResult
from engine.model import Chunk, chunks_from_spans
from engine.params import SliderSpec, check_fields, knob

FloatArray = npt.NDArray[np.float64]

#: Structural bonuses (before the ``structure`` weight): what starts the next chunk.
USER_AFTER_BOT = 1.0
HEADING = (0.0, 1.0, 0.5, 0.3, 0.15, 0.1, 0.1)  # by heading level 1..6
LONG_PAUSE = 0.6
DAY_CHANGE = 1.0
#: A pause at least this long is a structural point.
PAUSE = timedelta(minutes=30)
#: A chunk's weight in a block is its size, clipped to this many chars.
WEIGHT_CLIP = 2000


@dataclass(frozen=True)
class TopicParams:
    """The topic segmenter's knobs (see the module docstring and `engine.params`)."""

    topic_window: int = knob(
        12,
        "chunks compared on each side of a gap",
        flag="--topic-window",
        minimum=1,
        maximum=50,
        metavar="N",
        slider=SliderSpec(1, 30, 1, 5, label="window", fmt="{:.0f}", order=110),
    )
    topic_depth: Literal["adaptive"] | float = knob(
        "adaptive",
        "a gap whose depth (plus structure) reaches this is a topic change; adaptive: "
        "mean + k * std of the gaps",
        flag="--topic-depth",
        words=("adaptive",),
        metavar="adaptive|X",
        slider=SliderSpec(
            0.0, 1.0, 0.01, 0.1, label="depth", start=0.15, order=120, choice="fixed"
        ),
    )
    topic_k: float = knob(
        1.5,
        "adaptive depth: mean + K * std of the gap scores",
        flag="--topic-k",
        minimum=-2,
        maximum=5,
        metavar="K",
        slider=SliderSpec(
            -1.0, 3.0, 0.05, 0.25, label="k", order=115, shown_when=("topic_depth", "adaptive")
        ),
    )
    topic_min_chars: int = knob(
        300,
        "no topic segment shorter than this (chars)",
        flag="--topic-min-chars",
        minimum=0,
        metavar="N",
        slider=SliderSpec(0, 5000, 50, 500, label="min size", fmt="{:.0f}", order=130),
    )
    topic_max_chars: int | None = knob(
        None,
        "split topic segments longer than this (chars; none: no cap)",
        flag="--topic-max-chars",
        minimum=1,
        none_is=0,
        metavar="N",
        slider=SliderSpec(
            1000, 64000, 1000, 8000, label="max size", fmt="{:.0f}", open_at_max=True, order=140
        ),
    )
    topic_structure: float = knob(
        3.0,
        "weight of structural cut points (a user turn after the assistant, a heading, a "
        "long pause, a day change)",
        flag="--topic-structure",
        minimum=0,
        maximum=5,
        metavar="W",
        slider=SliderSpec(0.0, 5.0, 0.1, 0.5, label="structure", order=150),
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class GapScores:
    """Per gap (after chunk ``i``): block similarity, depth, structure bonus, score."""

    similarity: FloatArray
    depth: FloatArray
    structure: FloatArray
    score: FloatArray
    threshold: float


def _block_means(v: FloatArray, w: FloatArray, window: int) -> tuple[FloatArray, FloatArray]:
    """The weighted mean vector of the `window` chunks before and after each gap."""
    n = len(v)
    weighted = v * w[:, None]
    csum = np.vstack([np.zeros((1, v.shape[1])), np.cumsum(weighted, axis=0)])
    wsum = np.concatenate([[0.0], np.cumsum(w)])
    gaps = np.arange(1, n)  # a gap before chunk g
    lo = np.maximum(0, gaps - window)
    hi = np.minimum(n, gaps + window)
    left = (csum[gaps] - csum[lo]) / np.maximum(wsum[gaps] - wsum[lo], 1e-12)[:, None]
    right = (csum[hi] - csum[gaps]) / np.maximum(wsum[hi] - wsum[gaps], 1e-12)[:, None]
    return left, right


def _cosines(a: FloatArray, b: FloatArray) -> FloatArray:
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    out: FloatArray = dots / np.maximum(na * nb, 1e-12)
    return out


def _peaks(s: FloatArray, window: int) -> tuple[FloatArray, FloatArray]:
    """The highest similarity within `window` gaps on the left and on the right."""
    n = len(s)
    pad = np.full(window, -np.inf)
    padded = np.concatenate([pad, s, pad])
    view = np.lib.stride_tricks.sliding_window_view(padded, window + 1)
    left = view[:n].max(axis=1)
    right = view[window : window + n].max(axis=1)
    return left, right


def structure_bonus(chunks: Sequence[Chunk]) -> FloatArray:
    """The structural bonus of each gap: what starts the chunk after it."""
    n = len(chunks)
    out = np.zeros(max(n - 1, 0))
    for g in range(1, n):
        before, after = chunks[g - 1], chunks[g]
        if not before.turns or not after.turns:
            continue
        first, last = after.turns[0], before.turns[-1]
        bonus = 0.0
        if first.role == "You" and last.role != "You":
            bonus = max(bonus, USER_AFTER_BOT)
        if first.role == "Doc" and first.text.startswith("#"):
            level = len(first.text) - len(first.text.lstrip("#"))
            bonus = max(bonus, HEADING[min(level, 6)])
        t0, t1 = last.timestamp, first.timestamp
        if t0 is not None and t1 is not None:
            try:
                if t1.date() != t0.date():
                    bonus = max(bonus, DAY_CHANGE)
                elif t1 - t0 >= PAUSE:
                    bonus = max(bonus, LONG_PAUSE)
            except TypeError:  # one aware, one naive: no pause is known
                pass
        out[g - 1] = bonus
    return out


def gap_scores(vectors: npt.ArrayLike, chunks: Sequence[Chunk], params: TopicParams) -> GapScores:
    """Block similarity, depth, structure and score of every gap (see the module docstring)."""
    v = np.asarray(vectors, dtype=np.float64)
    n = len(v)
    if n < 2:
        empty = np.zeros(0)
        return GapScores(empty, empty, empty, empty, 0.0)
    sizes = np.fromiter((min(c.chars, WEIGHT_CLIP) + 1 for c in chunks), dtype=np.float64, count=n)
    left, right = _block_means(v, sizes, params.topic_window)
    sim = _cosines(left, right)
    lp, rp = _peaks(sim, params.topic_window)
    depth = (lp - sim) + (rp - sim)
    struct = structure_bonus(chunks) * params.topic_structure
    score = depth + struct * max(float(np.std(depth)), 1e-3) * 4
    if isinstance(params.topic_depth, str):
        threshold = float(np.mean(score) + params.topic_k * np.std(score))
    else:
        threshold = float(params.topic_depth)
    return GapScores(sim, depth, struct, score, threshold)


def segment(
    chunks: Sequence[Chunk], vectors: npt.ArrayLike, params: TopicParams | None = None
) -> MergeResult:
    """Topic segments of `chunks` (with their unit `vectors`) as a `MergeResult`."""
    params = params or TopicParams()
    v = np.asarray(vectors, dtype=np.float64)
    n = len(chunks)
    if n == 0:
        return _result([], v, [0], {}, 0.0, params)
    scores = gap_scores(v, chunks, params)
    chars = np.fromiter((c.chars + 1 for c in chunks), dtype=np.int64, count=n)
    cum = np.concatenate([[0], np.cumsum(chars)])
    order = np.argsort(-scores.score, kind="stable")
    cuts: dict[int, str] = {}  # gap (after chunk) -> reason
    starts = [0, n]  # sorted segment starts, with n as the end

    def fits(g: int) -> bool:
        # the segment holding gap g would be split into [s, g+1) and [g+1, e)
        i = int(np.searchsorted(starts, g + 1, side="right")) - 1
        s, e = starts[i], starts[i + 1]
        return bool(
            cum[g + 1] - cum[s] >= params.topic_min_chars
            and cum[e] - cum[g + 1] >= params.topic_min_chars
        )

    for g in order.tolist():
        if scores.score[g] < scores.threshold:
            break
        if fits(g):
            starts.insert(int(np.searchsorted(starts, g + 1)), g + 1)
            tipped = scores.structure[g] > 0 and scores.depth[g] < scores.threshold
            cuts[g] = "structure" if tipped else "topic"
    if params.topic_max_chars is not None:
        _cap(starts, cuts, scores.score, cum, params.topic_max_chars)
    return _result(chunks, v, starts, cuts, scores, params)


def _cap(
    starts: list[int], cuts: dict[int, str], score: FloatArray, cum: npt.NDArray[np.int64], cap: int
) -> None:
    """Split every segment over `cap` chars at its deepest gaps until each fits."""
    i = 0
    while i < len(starts) - 1:
        s, e = starts[i], starts[i + 1]
        if cum[e] - cum[s] <= cap or e - s < 2:
            i += 1
            continue
        inner = np.arange(s, e - 1)  # gaps inside the segment
        g = int(inner[int(np.argmax(score[inner]))])
        starts.insert(i + 1, g + 1)
        cuts[g] = "size_cap"


def _result(
    chunks: Sequence[Chunk],
    v: FloatArray,
    starts: list[int],
    cuts: dict[int, str],
    scores: GapScores | float,
    params: TopicParams,
) -> MergeResult:
    bounds = np.asarray(starts, dtype=np.int64)
    spans = list(pairwise(starts))
    merged = chunks_from_spans(list(chunks), spans) if chunks else []
    dim = v.shape[1] if v.ndim == 2 else 0
    vectors = np.stack([v[s:e].mean(axis=0) for s, e in spans]) if spans else np.zeros((0, dim))
    gaps = [e - 1 for _, e in spans[:-1]]
    if isinstance(scores, GapScores):
        sims = np.asarray([scores.similarity[g] for g in gaps], dtype=np.float64)
        depths = np.asarray([scores.score[g] for g in gaps], dtype=np.float64)
        threshold = scores.threshold
    else:
        sims = depths = np.zeros(0)
        threshold = float(scores)
    codes = np.asarray([CUT_CODES[cuts[g]] for g in gaps], dtype=np.int8)
    return MergeResult(
        bounds=bounds,
        chunks=merged,
        vectors=vectors,
        passes=[],
        cut_similarities=sims,
        cut_threshold=threshold,
        cut_codes=codes,
        params=MergeParams(mode="topic"),
        cut_depths=depths,
    )
