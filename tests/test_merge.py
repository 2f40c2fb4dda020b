"""Tests of the merge loop (engine/segment/merge.py) against the seed's algorithm.

The literal reference below is the seed loop written step by step (one Chunk per
merge, ``len(text)`` checks, a numpy running mean per group); it uses the
engine's `cosine_similarities` for the per-pass similarities so that the two can
be compared exactly, and `test_cosine_similarities_*` check that function
against a naive per-pair cosine.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.segment.merge import (
    Cut,
    MergeParams,
    MergeResult,
    char_counts,
    cosine_similarities,
    merge,
    merge_chunks,
)

FloatArray = npt.NDArray[np.float64]
PREFIX = len("user: ")

# --------------------------------------------------------------------------- helpers


def chunk_of(chars: int, tag: str = "x") -> Chunk:
    """A one-turn chunk whose text is exactly ``chars`` characters long."""
    assert chars > PREFIX
    return Chunk([Turn(None, "user", (tag * chars)[: chars - PREFIX])])


def chunks_of(sizes: Sequence[int]) -> list[Chunk]:
    return [chunk_of(s, chr(ord("a") + i % 26)) for i, s in enumerate(sizes)]


def unit_vectors(degrees: npt.ArrayLike) -> FloatArray:
    """2-D unit vectors at these angles: neighbour cosines are cos(angle gaps)."""
    rad = np.radians(np.asarray(degrees, dtype=np.float64))
    return np.stack([np.cos(rad), np.sin(rad)], axis=1)


def with_gaps(gaps: npt.ArrayLike) -> FloatArray:
    """Unit vectors whose consecutive angles differ by ``gaps`` degrees."""
    return unit_vectors(np.concatenate(([0.0], np.cumsum(gaps))))


def spans_from_merged(merged: Sequence[Chunk]) -> list[tuple[int, int]]:
    """Spans of merged chunks built from one-turn input chunks."""
    spans, start = [], 0
    for c in merged:
        spans.append((start, start + len(c.turns)))
        start += len(c.turns)
    return spans


def literal_merge(
    chunks: Sequence[Chunk],
    embeddings: FloatArray,
    *,
    max_chunk_chars: int | None = 8192,
    threshold: float | None = None,
    std_k: float = 0.5,
    always_merge: float = 0.8,
    min_similarity: float | None = None,
    max_passes: int | None = None,
) -> tuple[list[Chunk], list[FloatArray], list[float]]:
    """The seed loop, literally: returns merged chunks, their vectors, thresholds by pass."""
    current = list(chunks)
    vectors = [np.asarray(v, dtype=np.float64) for v in embeddings]
    thresholds: list[float] = []
    while len(current) >= 2 and (max_passes is None or len(thresholds) < max_passes):
        sims = cosine_similarities(np.array(vectors))
        thr = float(np.mean(sims) - std_k * np.std(sims)) if threshold is None else threshold
        thresholds.append(thr)
        out_chunks, out_vectors, count, merged_any = [current[0]], [vectors[0]], 1, False
        for i in range(1, len(current)):
            sim = sims[i - 1]
            qualifies = (sim >= thr or sim >= always_merge) and (
                min_similarity is None or sim >= min_similarity
            )
            fits = max_chunk_chars is None or (
                len(out_chunks[-1].text) + 1 + len(current[i].text) <= max_chunk_chars
            )
            if qualifies and fits:
                out_chunks[-1] = Chunk(turns=out_chunks[-1].turns + current[i].turns)
                count += 1
                out_vectors[-1] = out_vectors[-1] + (vectors[i] - out_vectors[-1]) / count
                merged_any = True
            else:
                out_chunks.append(current[i])
                out_vectors.append(vectors[i])
                count = 1
        current, vectors = out_chunks, out_vectors
        if not merged_any:
            break
    return current, vectors, thresholds


def check_partition(result: MergeResult, n: int) -> None:
    starts = [s for s, _ in result.spans]
    ends = [e for _, e in result.spans]
    if n == 0:
        assert result.spans == []
        return
    assert starts[0] == 0 and ends[-1] == n
    assert starts[1:] == ends[:-1]
    assert all(e > s for s, e in result.spans)
    assert len(result.chunks) == len(result.spans) == len(result.vectors)
    assert len(result.cuts) == len(result.spans) - 1
    assert [c.after for c in result.cuts] == list(range(len(result.cuts)))


# --------------------------------------------------------------------------- cosine


def test_cosine_similarities_matches_naive_and_is_zero_safe() -> None:
    rng = np.random.default_rng(1)
    e = rng.standard_normal((7, 5))
    e[3] = 0.0
    sims = cosine_similarities(e)
    assert sims.dtype == np.float64 and sims.shape == (6,)
    for i in range(6):
        a, b = e[i], e[i + 1]
        denom = np.linalg.norm(a) * np.linalg.norm(b)
        expected = 0.0 if denom == 0 else float(a @ b / denom)
        assert sims[i] == pytest.approx(expected, abs=1e-12)
    assert sims[2] == 0.0 and sims[3] == 0.0
    assert cosine_similarities(np.zeros((0, 3))).shape == (0,)
    assert cosine_similarities(np.ones((1, 3))).shape == (0,)
    assert np.all(cosine_similarities(np.zeros((4, 3))) == 0.0)


def test_cosine_similarities_stay_in_range() -> None:
    e = np.tile([[0.1, 0.2, 0.3]], (5, 1)) * np.array([[1.0], [3.0], [7.0], [1e-3], [1e5]])
    sims = cosine_similarities(e)
    assert np.all(sims <= 1.0) and np.all(sims >= -1.0)
    assert sims == pytest.approx(np.ones(4))


# --------------------------------------------------------------------------- seed cases


def test_all_similar_merge_into_one_chunk() -> None:
    chunks = chunks_of([20] * 12)
    emb = np.tile([[1.0, 2.0, 3.0]], (12, 1)) + np.linspace(0, 0.01, 12)[:, None]
    result = merge(chunks, emb)
    assert result.spans == [(0, 12)]
    assert result.chunks[0].text == "\n".join(c.text for c in chunks)
    assert result.cuts == []
    assert merge_chunks(chunks, emb)[0].text == result.chunks[0].text


def test_size_cap_holds() -> None:
    rng = np.random.default_rng(7)
    sizes = rng.integers(10, 60, size=60).tolist()
    chunks = chunks_of(sizes)
    emb = np.ones((60, 4)) + 0.01 * rng.standard_normal((60, 4))  # all very similar
    cap = 150
    result = merge(chunks, emb, MergeParams(max_chunk_chars=cap))
    assert len(result.spans) < 30  # it did merge
    for (s, e), c in zip(result.spans, result.chunks, strict=True):
        if e - s > 1:
            assert len(c.text) <= cap
    # with everything similar, only the cap stops a merge: neighbours don't fit together
    for cut in result.cuts:
        assert cut.reason == "size_cap"
        left, right = result.chunks[cut.after], result.chunks[cut.after + 1]
        assert len(left.text) + 1 + len(right.text) > cap
    assert [c.text for c in merge_chunks(chunks, emb, cap)] == [c.text for c in result.chunks]


def test_single_chunk_over_the_cap_stays_alone() -> None:
    chunks = chunks_of([100, 20, 20, 300, 20])
    emb = np.ones((5, 3))
    result = merge(chunks, emb, MergeParams(max_chunk_chars=50))
    assert result.spans == [(0, 1), (1, 3), (3, 4), (4, 5)]
    assert result.chunks[0] is chunks[0] and result.chunks[2] is chunks[3]


def test_similarity_at_or_above_always_merge_merges_below_the_threshold() -> None:
    # cosines 0.99, 0.99, 0.85, 0.99, 0.99: the adaptive threshold is above 0.85
    gaps = np.degrees(np.arccos([0.99, 0.99, 0.85, 0.99, 0.99]))
    emb = with_gaps(gaps)
    chunks = chunks_of([10] * 6)
    one = merge(chunks, emb, MergeParams(max_passes=1))
    assert one.passes[0].threshold > 0.85
    assert one.passes[0].similarities[2] == pytest.approx(0.85)
    assert one.passes[0].merged == [0, 1, 2, 3, 4]
    assert one.spans == [(0, 6)]
    # control: without the 0.8 rule the 0.85 pair is below the threshold and cuts
    control = merge(chunks, emb, MergeParams(max_passes=1, always_merge=0.9))
    assert control.passes[0].merged == [0, 1, 3, 4]
    assert control.spans == [(0, 3), (3, 6)]


def four_chunks_two_topics() -> FloatArray:
    """A-B close, C-D close, B-C far apart: pass 1 gives [AB][CD]."""
    return with_gaps([10, 80, 10])


def test_fixed_point_over_several_passes() -> None:
    # 8 chunks in pairs, pairs in quads: pass 1 pairs them, pass 2 joins pairs into
    # quads, pass 3 would join the quads but the cap refuses, so pass 3 merges nothing
    emb = with_gaps([2, 70, 2, 90, 2, 70, 2])
    chunks = chunks_of([10] * 8)  # a quad is 4*10 + 3 = 43 chars
    lines: list[str] = []
    result = merge(chunks, emb, MergeParams(max_chunk_chars=60), log=lines.append)
    assert [(p.chunks_in, p.chunks_out) for p in result.passes] == [(8, 4), (4, 2), (2, 2)]
    assert result.passes[0].merged == [0, 2, 4, 6]
    assert result.passes[1].merged == [0, 2]
    assert result.passes[2].merged == [] and result.passes[2].refused_by_cap == [0]
    assert result.spans == [(0, 4), (4, 8)]
    assert [c.reason for c in result.cuts] == ["size_cap"]
    assert result.converged
    literal, _, thresholds = literal_merge(chunks, emb, max_chunk_chars=60)
    assert spans_from_merged(literal) == result.spans
    assert thresholds == result.thresholds
    assert len(lines) == 3


def test_log_called_once_per_pass_with_counts() -> None:
    emb = with_gaps([2, 70, 2, 90, 2, 70, 2])
    chunks = chunks_of([10] * 8)
    lines: list[str] = []
    merged = merge_chunks(chunks, emb, max_chunk_chars=60, log=lines.append)
    assert len(merged) == 2
    result = merge(chunks, emb, MergeParams(max_chunk_chars=60))
    # merge_chunks logs in the reference's words (programs written against the seed parse it)
    assert lines == [
        f"Merge pass ({p.chunks_in} chunks): threshold={p.threshold:.4f} "
        f"(mean={p.mean:.4f}, std={p.std:.4f})"
        for p in result.passes
    ]
    assert lines[0].startswith("Merge pass (8 chunks): threshold=")
    assert lines[-1].startswith("Merge pass (2 chunks): threshold=")
    assert re.fullmatch(
        r"Merge pass \(\d+ chunks\): threshold=-?\d+\.\d{4} "
        r"\(mean=-?\d+\.\d{4}, std=\d+\.\d{4}\)",
        lines[1],
    )
    # merge keeps the richer line
    rich: list[str] = []
    merge(chunks, emb, MergeParams(max_chunk_chars=60), log=rich.append)
    assert rich[0].startswith("pass 1: 8 -> 4 chunks (threshold ")


def test_chunk_chars_is_the_length_of_its_text() -> None:
    turns = [Turn(None, "user", "héllo"), Turn(None, "assistant", ""), Turn(None, "", "x\ny")]
    for k in range(len(turns) + 1):
        fresh = Chunk(turns=turns[:k])
        assert fresh.chars == len(Chunk(turns=turns[:k]).text)
        assert fresh.chars == len(fresh.text)  # and after the text is cached


def test_fixed_threshold_mode() -> None:
    # cosines 0.9, 0.3, 0.6, 0.55
    gaps = np.degrees(np.arccos([0.9, 0.3, 0.6, 0.55]))
    emb = with_gaps(gaps)
    chunks = chunks_of([10] * 5)
    result = merge(chunks, emb, MergeParams(threshold=0.58, max_passes=1))
    assert result.thresholds == [0.58]
    assert result.passes[0].merged == [0, 2]
    assert result.spans == [(0, 2), (2, 4), (4, 5)]
    # the adaptive threshold (about 0.47) would have taken pair 3 (0.55) too
    adaptive = merge(chunks, emb, MergeParams(max_passes=1))
    assert adaptive.passes[0].merged == [0, 2, 3]
    full = merge(chunks, emb, MergeParams(threshold=0.58))
    literal, _, _ = literal_merge(chunks, emb, threshold=0.58)
    assert spans_from_merged(literal) == full.spans
    assert all(t == 0.58 for t in full.thresholds)


def test_min_similarity_blocks_even_always_merge_pairs() -> None:
    gaps = np.degrees(np.arccos([0.99, 0.9, 0.99]))
    emb = with_gaps(gaps)
    chunks = chunks_of([10] * 4)
    free = merge(chunks, emb)
    assert free.spans == [(0, 4)]
    blocked = merge(chunks, emb, MergeParams(min_similarity=0.95))
    assert blocked.spans == [(0, 2), (2, 4)]
    assert [c.reason for c in blocked.cuts] == ["min_similarity"]
    assert blocked.cuts[0].similarity < 0.95


def test_max_passes_stops_early_and_cuts_say_so() -> None:
    emb = four_chunks_two_topics()
    chunks = chunks_of([10] * 4)
    full = merge(chunks, emb)
    assert full.spans == [(0, 4)] and len(full.passes) == 2
    one = merge(chunks, emb, MergeParams(max_passes=1))
    assert len(one.passes) == 1
    assert one.spans == [(0, 2), (2, 4)]
    assert [c.reason for c in one.cuts] == ["max_passes"]
    assert not one.converged
    # the cut's similarity is the one the next pass would use: the final vectors' cosine
    expected = cosine_similarities(one.vectors)[0]
    assert one.cuts[0].similarity == expected
    assert one.cuts[0].threshold == expected  # a single pair is its own threshold
    # when the next pass would merge nothing, stopping there is not "max_passes"
    capped = merge(chunks, emb, MergeParams(max_passes=1, max_chunk_chars=25))
    assert [c.reason for c in capped.cuts] == ["size_cap"] and capped.converged


def test_trace_contents() -> None:
    rng = np.random.default_rng(3)
    n = 40
    topics = rng.standard_normal((6, 8))
    emb = topics[np.arange(n) // 7] + 0.8 * rng.standard_normal((n, 8))
    chunks = chunks_of(rng.integers(10, 40, size=n).tolist())
    for std_k in (0.5, 1.0, 0.0):
        params = MergeParams(std_k=std_k, max_chunk_chars=200)
        result = merge(chunks, emb, params)
        _, _, literal_thresholds = literal_merge(chunks, emb, max_chunk_chars=200, std_k=std_k)
        assert result.thresholds == literal_thresholds
        vectors = emb
        for index, p in enumerate(result.passes, start=1):
            assert p.index == index
            naive = np.array(
                [
                    float(vectors[i] @ vectors[i + 1])
                    / (np.linalg.norm(vectors[i]) * np.linalg.norm(vectors[i + 1]))
                    for i in range(len(vectors) - 1)
                ]
            )
            assert p.similarities.dtype == np.float64
            np.testing.assert_allclose(p.similarities, naive, atol=1e-12)
            assert p.mean == pytest.approx(naive.mean(), abs=1e-12)
            assert p.std == pytest.approx(naive.std(), abs=1e-12)
            assert p.threshold == pytest.approx(naive.mean() - std_k * naive.std(), abs=1e-12)
            assert p.threshold == p.mean - std_k * p.std
            qualified = [i for i, s in enumerate(p.similarities) if s >= p.threshold or s >= 0.8]
            assert sorted(p.merged + p.refused_by_cap) == qualified
            assert p.chunks_out == p.chunks_in - len(p.merged)
            assert len(p.spans) == p.chunks_out
            # the next pass input: each group's vector is the mean of its pass-input vectors
            groups, start = [], 0
            for i in range(p.chunks_in):
                if i == p.chunks_in - 1 or i not in p.merged:
                    groups.append(vectors[start : i + 1].mean(axis=0))
                    start = i + 1
            vectors = np.array(groups)
        np.testing.assert_allclose(result.vectors, vectors, atol=1e-12)
        assert result.passes[-1].merged == []


def test_cut_reasons_size_cap_and_threshold() -> None:
    # X-Y very similar but too big together, Y-Z dissimilar: a fixed point at once
    gaps = np.degrees(np.arccos([0.9, 0.1]))
    emb = with_gaps(gaps)
    chunks = chunks_of([60, 60, 10])
    result = merge(chunks, emb, MergeParams(max_chunk_chars=100))
    assert result.spans == [(0, 1), (1, 2), (2, 3)]
    assert len(result.passes) == 1
    assert result.passes[0].refused_by_cap == [0] and result.passes[0].merged == []
    assert result.cuts == [
        Cut(0, "size_cap", result.passes[0].similarities[0], result.passes[0].threshold),
        Cut(1, "threshold", result.passes[0].similarities[1], result.passes[0].threshold),
    ]
    assert result.cuts[1].similarity < result.cuts[1].threshold
    assert result.cut_after(1) is result.cuts[1] and result.cut_after(2) is None


def test_zero_vectors_never_give_nan() -> None:
    chunks = chunks_of([10] * 6)
    zeros = np.zeros((6, 3))
    result = merge(chunks, zeros)
    assert all(np.all(np.isfinite(p.similarities)) for p in result.passes)
    assert all(math.isfinite(t) for t in result.thresholds)
    assert result.passes[0].similarities.tolist() == [0.0] * 5
    assert result.spans == [(0, 6)]  # every sim is 0.0 >= threshold 0.0
    mixed = np.array([[1.0, 0, 0], [0, 0, 0], [1.0, 0.1, 0], [0, 0, 0], [0, 1.0, 0], [0, 1, 0.1]])
    result = merge(chunks, mixed, MergeParams(max_chunk_chars=30))
    assert np.all(np.isfinite(result.vectors))
    assert all(np.all(np.isfinite(p.similarities)) for p in result.passes)
    assert all(math.isfinite(c.similarity) for c in result.cuts)
    literal, _, _ = literal_merge(chunks, mixed, max_chunk_chars=30)
    assert spans_from_merged(literal) == result.spans


def test_token_cap() -> None:
    chunks = chunks_of([500] * 4)  # big in chars: the char cap must not apply
    emb = np.ones((4, 3))
    params = MergeParams(max_chunk_tokens=10, max_chunk_chars=100)
    result = merge(chunks, emb, params, token_counts=[4, 4, 4, 4])
    # 4 + 1 + 4 = 9 fits, 9 + 1 + 4 = 14 does not; two pairs cannot join (19 > 10)
    assert result.spans == [(0, 2), (2, 4)]
    assert [c.reason for c in result.cuts] == ["size_cap"]
    assert merge(chunks, emb, params, token_counts=[4, 4, 4, 5]).spans == [(0, 2), (2, 4)]
    assert merge(chunks, emb, params, token_counts=[5, 5, 4, 4]).spans == [(0, 1), (1, 3), (3, 4)]
    with pytest.raises(ValueError, match="token_counts"):
        merge(chunks, emb, params)
    with pytest.raises(ValueError, match="token_counts"):
        merge(chunks, emb, params, token_counts=[1, 2, 3])


# --------------------------------------------------------------------------- edges, errors


def test_no_chunk_and_one_chunk() -> None:
    empty = merge([], np.zeros((0, 4)))
    assert empty.spans == [] and empty.chunks == [] and empty.passes == [] and empty.cuts == []
    assert empty.vectors.shape == (0, 4)
    assert merge_chunks([], np.zeros((0, 4))) == []
    one_chunk = chunks_of([30])
    one = merge(one_chunk, np.array([[1.0, 2.0]]))
    assert one.spans == [(0, 1)] and one.chunks == one_chunk and one.passes == []
    lines: list[str] = []
    assert merge_chunks(one_chunk, np.array([[1.0, 2.0]]), log=lines.append) == one_chunk
    assert lines == []


def test_result_vectors_are_a_copy_and_owner_helpers() -> None:
    emb = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    before = emb.copy()
    chunks = chunks_of([60, 60, 60])
    result = merge(chunks, emb, MergeParams(max_chunk_chars=100))  # nothing fits together
    assert result.spans == [(0, 1), (1, 2), (2, 3)]
    assert not np.shares_memory(result.vectors, emb)
    result.vectors[0, 0] = 5.0
    assert np.array_equal(emb, before)
    grouped = merge(chunks_of([10] * 5), with_gaps([10, 80, 10, 10]), MergeParams(max_passes=1))
    assert grouped.spans == [(0, 2), (2, 5)]
    assert grouped.owners.tolist() == [0, 0, 1, 1, 1]
    assert [grouped.owner(i) for i in range(5)] == [0, 0, 1, 1, 1]
    with pytest.raises(IndexError):
        grouped.owner(5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"std_k": -0.1}, "std_k"),
        ({"std_k": float("nan")}, "std_k"),
        ({"threshold": "fixed"}, "threshold"),
        ({"threshold": float("nan")}, "threshold"),
        ({"always_merge": float("nan")}, "always_merge"),
        ({"max_chunk_chars": 0}, "max_chunk_chars"),
        ({"max_chunk_chars": 1.5}, "max_chunk_chars"),
        ({"max_chunk_tokens": -3}, "max_chunk_tokens"),
        ({"max_passes": 0}, "max_passes"),
        ({"max_passes": True}, "max_passes"),
        ({"min_similarity": float("nan")}, "min_similarity"),
    ],
)
def test_params_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MergeParams(**kwargs)  # type: ignore[arg-type]


def test_params_accept_valid_values() -> None:
    p = MergeParams(threshold=0.3, std_k=0, always_merge=float("inf"), max_chunk_chars=None)
    assert p.cap is None and not p.adaptive
    assert MergeParams(max_chunk_tokens=512).cap == 512
    assert MergeParams(max_chunk_tokens=512).cap_unit == "tokens"


def test_input_errors() -> None:
    chunks = chunks_of([10, 10, 10])
    with pytest.raises(ValueError, match="rows"):
        merge(chunks, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="2-D"):
        merge(chunks, np.zeros(3))
    bad = np.ones((3, 2))
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        merge(chunks, bad)
    bad[1, 0] = np.inf
    with pytest.raises(ValueError, match="finite"):
        merge(chunks, bad)


def test_engine_merge_imports_no_terminal_library() -> None:
    code = (
        "import sys, chunkscope.engine.segment.merge; "
        "print(sorted(m for m in ('textual', 'rich', 'tui') if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- properties

# Small integer coordinates make zero vectors, repeated vectors and exact ties
# common, which is where a reimplementation drifts from the reference.
coordinates = st.one_of(
    st.integers(-2, 2).map(float),
    st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False, width=64),
)


@st.composite
def merge_inputs(draw: st.DrawFn) -> tuple[list[Chunk], FloatArray, int]:
    n = draw(st.integers(0, 24))
    dims = draw(st.integers(1, 4))
    values = draw(st.lists(coordinates, min_size=n * dims, max_size=n * dims))
    emb = np.array(values, dtype=np.float64).reshape(n, dims)
    sizes = draw(st.lists(st.integers(PREFIX + 1, 40), min_size=n, max_size=n))
    cap = draw(st.integers(PREFIX + 1, 160))
    return chunks_of(sizes), emb, cap


fast = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(merge_inputs(), st.sampled_from([None, 1, 2]), st.sampled_from([None, 0.1, 0.5]))
def test_spans_partition_the_input_and_respect_the_cap(
    data: tuple[list[Chunk], FloatArray, int], max_passes: int | None, min_sim: float | None
) -> None:
    chunks, emb, cap = data
    params = MergeParams(max_chunk_chars=cap, max_passes=max_passes, min_similarity=min_sim)
    result = merge(chunks, emb, params)
    check_partition(result, len(chunks))
    for (s, e), merged in zip(result.spans, result.chunks, strict=True):
        assert merged.turns == [t for c in chunks[s:e] for t in c.turns]
        if e - s > 1:
            assert len(merged.text) <= cap
    assert result.owners.tolist() == [
        i for i, (s, e) in enumerate(result.spans) for _ in range(s, e)
    ]
    assert np.all(np.isfinite(result.vectors))
    if max_passes is not None:
        assert len(result.passes) <= max_passes
    for p in result.passes:
        assert np.all(np.isfinite(p.similarities))
        assert p.chunks_out == p.chunks_in - len(p.merged)
        assert not set(p.merged) & set(p.refused_by_cap)


@fast
@given(merge_inputs(), st.data())
def test_token_cap_holds(data: tuple[list[Chunk], FloatArray, int], draw: st.DataObject) -> None:
    chunks, emb, _ = data
    tokens = draw.draw(st.lists(st.integers(0, 12), min_size=len(chunks), max_size=len(chunks)))
    cap = draw.draw(st.integers(1, 30))
    result = merge(chunks, emb, MergeParams(max_chunk_tokens=cap), token_counts=tokens)
    check_partition(result, len(chunks))
    for s, e in result.spans:
        if e - s > 1:
            assert sum(tokens[s:e]) + (e - s - 1) <= cap
    for cut in result.cuts:
        if cut.reason == "size_cap":
            s0, e1 = result.spans[cut.after][0], result.spans[cut.after + 1][1]
            assert sum(tokens[s0:e1]) + (e1 - s0 - 1) > cap


@fast
@given(merge_inputs(), st.sampled_from([0.0, 0.5, 1.5]))
def test_one_pass_equals_one_literal_pass(
    data: tuple[list[Chunk], FloatArray, int], std_k: float
) -> None:
    chunks, emb, cap = data
    result = merge(chunks, emb, MergeParams(max_chunk_chars=cap, max_passes=1, std_k=std_k))
    literal, vectors, thresholds = literal_merge(
        chunks, emb, max_chunk_chars=cap, max_passes=1, std_k=std_k
    )
    assert result.spans == spans_from_merged(literal)
    assert result.thresholds == thresholds
    if len(chunks) >= 2:
        assert np.array_equal(result.passes[0].similarities, cosine_similarities(emb))
        assert np.array_equal(result.vectors, np.array(vectors))


@fast
@given(merge_inputs())
def test_merge_chunks_equals_the_literal_seed_loop(
    data: tuple[list[Chunk], FloatArray, int],
) -> None:
    chunks, emb, cap = data
    lines: list[str] = []
    merged = merge_chunks(chunks, emb, max_chunk_chars=cap, log=lines.append)
    literal, vectors, thresholds = literal_merge(chunks, emb, max_chunk_chars=cap)
    assert [c.turns for c in merged] == [c.turns for c in literal]
    assert [c.text for c in merged] == [c.text for c in literal]
    assert len(lines) == len(thresholds)
    result = merge(chunks, emb, MergeParams(max_chunk_chars=cap))
    assert result.thresholds == thresholds
    if chunks:
        assert np.array_equal(result.vectors, np.array(vectors))


@fast
@given(
    merge_inputs(),
    st.one_of(st.just("adaptive"), st.floats(-1.0, 1.0)),
    st.sampled_from([0.8, 0.95, float("inf")]),
    st.sampled_from([None, 0.0, 0.3]),
)
def test_merge_equals_the_literal_loop_for_any_params(
    data: tuple[list[Chunk], FloatArray, int],
    threshold: str | float,
    always: float,
    min_sim: float | None,
) -> None:
    chunks, emb, cap = data
    params = MergeParams(
        threshold=threshold,  # type: ignore[arg-type]
        always_merge=always,
        min_similarity=min_sim,
        max_chunk_chars=cap,
    )
    result = merge(chunks, emb, params)
    literal, _, thresholds = literal_merge(
        chunks,
        emb,
        max_chunk_chars=cap,
        threshold=None if threshold == "adaptive" else float(threshold),
        always_merge=always,
        min_similarity=min_sim,
    )
    assert result.spans == spans_from_merged(literal)
    assert result.thresholds == thresholds
    # at the fixed point no cut says max_passes, and each reason matches its numbers
    for cut in result.cuts:
        assert cut.reason != "max_passes"
        if cut.reason == "threshold":
            assert cut.similarity < cut.threshold and cut.similarity < always
        if cut.reason == "min_similarity":
            assert min_sim is not None and cut.similarity < min_sim
        if cut.reason == "size_cap":
            left, right = result.chunks[cut.after], result.chunks[cut.after + 1]
            assert len(left.text) + 1 + len(right.text) > cap


@fast
@given(merge_inputs())
def test_float32_input_equals_the_literal_loop_on_its_float64_widening(
    data: tuple[list[Chunk], FloatArray, int],
) -> None:
    chunks, emb, cap = data
    emb32 = emb.astype(np.float32)
    result = merge(chunks, emb32, MergeParams(max_chunk_chars=cap))
    literal, vectors, thresholds = literal_merge(
        chunks, emb32.astype(np.float64), max_chunk_chars=cap
    )
    assert result.spans == spans_from_merged(literal)
    assert result.thresholds == thresholds
    assert result.vectors.dtype == np.float64
    if chunks:
        assert np.array_equal(result.vectors, np.array(vectors))


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("block_bytes", [8, 40, 1 << 19])
def test_float32_input_read_in_blocks_is_bit_identical(
    monkeypatch: pytest.MonkeyPatch, block_bytes: int, threads: int
) -> None:
    """The first pass reads a float32 input a block of rows at a time (never a whole
    float64 copy); with blocks of one or a few rows, shared by several threads
    (every pass large enough to be shared), the result must not change."""
    import chunkscope.engine.segment.merge as merge_module

    rng = np.random.default_rng(7)
    n, dims = 600, 5
    # two-level structure so that several passes merge groups of many sizes
    emb32 = np.repeat(rng.normal(size=(40, dims)), 15, axis=0) + rng.normal(size=(n, dims)) * 0.4
    emb32 = emb32.astype(np.float32)
    chunks = chunks_of(rng.integers(PREFIX + 1, 60, size=n).tolist())
    monkeypatch.setattr(merge_module, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(merge_module, "_PARALLEL_MIN_BYTES", 0)
    result = merge(chunks, emb32, MergeParams(max_chunk_chars=600), threads=threads)
    literal, vectors, thresholds = literal_merge(
        chunks, emb32.astype(np.float64), max_chunk_chars=600
    )
    assert len(thresholds) >= 2 and len(result.chunks) < n / 3
    assert result.spans == spans_from_merged(literal)
    assert result.thresholds == thresholds
    assert np.array_equal(result.vectors, np.array(vectors))
    # the caller's array is neither copied into nor changed
    assert emb32.dtype == np.float32 and not np.shares_memory(result.vectors, emb32)


@fast
@given(merge_inputs(), st.integers(2, 4), st.sampled_from([8, 64, 1 << 19]))
def test_threads_share_the_work_and_change_nothing(
    data: tuple[list[Chunk], FloatArray, int], threads: int, block_bytes: int
) -> None:
    """Every pass shared by 2-4 threads (blocks of one row up to the default) gives the
    literal loop's spans, thresholds and vectors, bit for bit."""
    import chunkscope.engine.segment.merge as merge_module

    chunks, emb, cap = data
    saved = merge_module._PARALLEL_MIN_BYTES, merge_module._BLOCK_BYTES
    merge_module._PARALLEL_MIN_BYTES, merge_module._BLOCK_BYTES = 0, block_bytes
    try:
        result = merge(chunks, emb, MergeParams(max_chunk_chars=cap), threads=threads)
    finally:
        merge_module._PARALLEL_MIN_BYTES, merge_module._BLOCK_BYTES = saved
    literal, vectors, thresholds = literal_merge(chunks, emb, max_chunk_chars=cap)
    assert result.spans == spans_from_merged(literal)
    assert result.thresholds == thresholds
    if chunks:
        assert np.array_equal(result.vectors, np.array(vectors))


def test_threads_give_the_one_thread_result_on_a_large_input() -> None:
    """Passes above the sharing threshold (several MB of vectors) merge alike on 1 and 2
    threads, float64 and float32."""
    rng = np.random.default_rng(11)
    n, dims = 3000, 256
    topics = rng.normal(size=(n // 20, dims))
    emb = np.repeat(topics, 20, axis=0) + rng.normal(size=(n, dims))
    chunks = chunks_of(rng.integers(PREFIX + 1, 400, size=n).tolist())
    for e in (emb, emb.astype(np.float32)):
        one = merge(chunks, e, MergeParams(max_chunk_chars=4000), threads=1)
        two = merge(chunks, e, MergeParams(max_chunk_chars=4000), threads=2)
        assert len(one.passes) >= 2 and len(one.chunks) < n / 5
        assert one.spans == two.spans and one.thresholds == two.thresholds
        assert np.array_equal(one.vectors, two.vectors)


@fast
@given(
    st.lists(
        st.lists(st.tuples(st.text(max_size=6), st.text(max_size=12)), max_size=4),
        max_size=6,
    ),
    st.lists(st.booleans(), max_size=6),
)
def test_char_counts_are_the_text_lengths(
    spec: list[list[tuple[str, str]]], built: list[bool]
) -> None:
    """With every text built, none, or some (the arithmetic path)."""
    chunks = [Chunk(turns=[Turn(None, r, t) for r, t in turns]) for turns in spec]
    for chunk, build in zip(chunks, built, strict=False):
        if build:
            _ = chunk.text
    expected = ["\n".join(f"{t.role}: {t.text}" for t in c.turns) for c in chunks]
    assert char_counts(chunks).tolist() == [len(e) for e in expected]
    assert [c.chars for c in chunks] == [len(e) for e in expected]
    # now every count is remembered (by .chars or .text), and the text agrees with it
    assert char_counts(chunks).tolist() == [len(e) for e in expected]
    assert [c.text for c in chunks] == expected and [c.chars for c in chunks] == [
        len(e) for e in expected
    ]
