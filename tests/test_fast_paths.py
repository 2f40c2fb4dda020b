"""The faster paths of a slider step (issue 34) against the plain versions they replaced:
each gives the same result, on any input hypothesis draws."""

from __future__ import annotations

import bisect
from datetime import datetime
from itertools import pairwise

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.model import Chunk, Turn, chunks_from_spans
from chunkscope.engine.segment.segmenter import HEADING_ONLY_RANK, _keep_together, fit_cap
from chunkscope.tui.workbench.runs import _sum_spans
from chunkscope.tui.workbench.topics import (
    FileMarks,
    _first_lines_of,
    _own_first_lines,
    holder,
    holders,
    judge_chunks,
    judge_topics,
)


def plain_fit_cap(
    topics: list[int], prefix: npt.NDArray[np.int64], cap: int, ranks: list[int], score: list[float]
) -> list[int]:
    """`fit_cap` one part at a time: split the part at its best gap (fewest chunks, then
    the best rank and score, the first of equals; a heading-only gap only in a part with
    no other), then each side again."""
    out = set(topics)
    stack = list(pairwise(topics))
    while stack:
        a, b = stack.pop()
        if b - a < 2 or prefix[b] - prefix[a] - 1 <= cap:
            continue
        gaps = list(range(a + 1, b))
        good = [g for g in gaps if ranks[g - 1] != HEADING_ONLY_RANK]
        pool = good or gaps

        pieces = {
            g: int(-(-(prefix[g] - prefix[a] - 1) // cap) + -(-(prefix[b] - prefix[g] - 1) // cap))
            for g in pool
        }
        fewest = min(pieces.values())
        best = [g for g in pool if pieces[g] == fewest]
        keys = [ranks[g - 1] * 1e6 + min(max(score[g - 1], -1e5), 1e5) for g in best]
        cut = best[keys.index(max(keys))]
        out.add(cut)
        stack += [(a, cut), (cut, b)]
    return sorted(out)


def plain_keep_together(
    split: list[int],
    fixed: list[int],
    ranks: list[int],
    prefix: npt.NDArray[np.int64],
    cap: int | None,
) -> list[int]:
    """`_keep_together` as a loop over every start."""
    keep = set(fixed)
    out = [split[0]]
    for i in range(1, len(split) - 1):
        b = split[i]
        joinable = b not in keep and ranks[b - 1] <= HEADING_ONLY_RANK
        if joinable and (cap is None or prefix[split[i + 1]] - prefix[out[-1]] - 1 <= cap):
            continue
        out.append(b)
    out.append(split[-1])
    return out


Units = tuple[list[int], npt.NDArray[np.int64], int, list[int], list[float]]


@st.composite
def capped_units(draw: st.DrawFn) -> Units:
    n = draw(st.integers(2, 60))
    sizes = draw(st.lists(st.integers(0, 300), min_size=n, max_size=n))
    prefix = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.asarray(sizes, dtype=np.int64) + 1, out=prefix[1:])
    cap = draw(st.integers(1, 900))
    ranks = draw(st.lists(st.integers(0, 3), min_size=n - 1, max_size=n - 1))
    # few distinct scores, so equal keys (the first of equals) come up
    score = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5]), min_size=n - 1, max_size=n - 1))
    inner = draw(st.sets(st.integers(1, n - 1), max_size=n // 3))
    return [0, *sorted(inner), n], prefix, cap, ranks, score


@settings(max_examples=100, deadline=None)
@given(capped_units())
def test_fit_cap_is_the_plain_split_one_part_at_a_time(
    case: Units,
) -> None:
    topics, prefix, cap, ranks, score = case
    got = fit_cap(topics, prefix, cap, np.asarray(ranks, dtype=np.int8), np.asarray(score))
    assert got == plain_fit_cap(topics, prefix, cap, ranks, score)


@settings(max_examples=100, deadline=None)
@given(capped_units(), st.one_of(st.none(), st.integers(1, 900)), st.data())
def test_keep_together_is_the_plain_loop(
    case: Units,
    cap: int | None,
    data: st.DataObject,
) -> None:
    split, prefix, _, ranks, _ = case
    fixed = [0, *data.draw(st.sets(st.sampled_from(split))), split[-1]]
    rank = np.asarray(ranks, dtype=np.int8)
    assert _keep_together(split, sorted(set(fixed)), rank, prefix, cap) == plain_keep_together(
        split, sorted(set(fixed)), ranks, prefix, cap
    )


@given(st.lists(st.integers(0, 50), max_size=40), st.data())
def test_sum_spans_over_bounds_is_the_sum_of_each_span(
    values: list[int], data: st.DataObject
) -> None:
    n = len(values)
    inner = sorted(data.draw(st.sets(st.integers(1, max(1, n - 1)))) - {n}) if n > 1 else []
    bounds = np.asarray([0, *inner, n] if n else [0], dtype=np.int64)
    want = [sum(values[a:b]) + (b - a - 1) for a, b in pairwise(bounds.tolist())]
    assert _sum_spans(np.asarray(values, dtype=np.int64), bounds, 1).tolist() == want


@pytest.fixture(scope="module")
def log_400(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A file of 400 lines: what the marks' line weights are read from."""
    path = tmp_path_factory.mktemp("marks") / "log.jsonl"
    path.write_text("".join(f'{{"role": "user", "content": "line {i}"}}\n' for i in range(400)))
    return str(path)


def _chunk(lines: list[int | None]) -> Chunk:
    t = datetime(2026, 1, 1)
    return Chunk([Turn(t, "user", f"text {i}", source_line=line) for i, line in enumerate(lines)])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.integers(1, 400)), max_size=3), min_size=2, max_size=30
    ),
    st.data(),
)
def test_judging_topics_is_judging_the_joined_chunks(
    log_400: str, per_chunk: list[list[int | None]], data: st.DataObject
) -> None:
    """`judge_topics` scores the topics from the merged chunks' own first lines; the plain
    way builds each topic's chunk (`chunks_from_spans`) and judges those: the same
    scores, verdicts, flags and marks found."""
    chunks = [_chunk(lines) for lines in per_chunk]
    n = len(chunks)
    inner = data.draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1))
    starts = sorted(data.draw(st.sets(st.integers(2, 400), min_size=1, max_size=8)))
    marks = FileMarks(log_400, "digest", tuple(starts), partial=data.draw(st.booleans()))
    got = judge_topics(chunks, inner, marks)
    if not any(inner):
        assert got == judge_chunks(chunks, marks)
        return
    topic_starts = [0, *(i + 1 for i, within in enumerate(inner) if not within), n]
    spans = list(pairwise(topic_starts))
    plain = judge_chunks(chunks_from_spans(chunks, spans), marks)
    assert got.scores == plain.scores
    assert got.found == plain.found
    verdicts = [""] * (n - 1)
    for j, verdict in enumerate(plain.cut_verdicts):
        verdicts[spans[j + 1][0] - 1] = verdict
    assert got.cut_verdicts == verdicts
    first = _first_lines_of(chunks)
    missed = [g for g in starts if g not in plain.found]
    assert got.flags == {_holder(first, g): "miss" for g in missed}


def _holder(first: list[int], line: int) -> int:
    i = bisect.bisect_left(first, line)
    return i if i < len(first) and first[i] == line else max(0, i - 1)


@given(
    st.lists(st.integers(1, 60), max_size=30),
    st.lists(st.integers(0, 70), max_size=12),
    st.booleans(),
)
def test_holders_is_holder_of_each_line(first: list[int], lines: list[int], ordered: bool) -> None:
    """The items' first lines in order (as they are) or not: `holders` is `holder` of each."""
    if ordered:
        first = sorted(first)
    assert holders(first, lines) == [holder(first, line) for line in lines]


@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.integers(1, 400)), max_size=3), min_size=1, max_size=30
    ),
    st.data(),
)
def test_a_merged_chunks_first_line_is_the_least_of_its_units(
    per_unit: list[list[int | None]], data: st.DataObject
) -> None:
    """What `marks_report` takes from the units (the least of a merged chunk's units' own
    first lines) is the merged chunk's own first line."""
    units = [_chunk(lines) for lines in per_unit]
    n = len(units)
    inner = sorted(data.draw(st.sets(st.integers(1, n - 1))) if n > 1 else set())
    bounds = np.asarray([0, *inner, n], dtype=np.int64)
    merged = chunks_from_spans(units, pairwise(bounds.tolist()))
    from_units = np.minimum.reduceat(_own_first_lines(units), bounds[:-1])
    assert from_units.tolist() == _own_first_lines(merged).tolist()


# Words and marks where the user-message and phase tests look (issue 34, third round).
_SAID = [
    *" \n\t.,'!?$", "\u00a0", "\u212a", "ſ", "let me", "Let's", "I will", "we need to", "now ",
    "fix", "the fix", "changes", "work", "works", "verify", "test", "make sure", "check that",
    "edit the", "apply the fix", "issue", "\n$ ", "word", "x" * 30, "ok",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_SAID), max_size=40).map("".join))
def test_phase_cue_is_the_patterns_alone(text: str) -> None:
    """`phase_cue` skips a pattern only when a word it needs is missing: the same cue as
    running both patterns on the message's words."""
    from chunkscope.engine.segment import requests as rq

    head = rq._COMMAND_LINE.split(text[:400], 1)[0]
    plain = (
        None
        if not rq._may_hold(head, rq._PHASE_NEEDS)
        else "fix"
        if rq._FIX_PHASE.search(head)
        else "verify"
        if rq._VERIFY_PHASE.search(head)
        else None
    )
    assert rq.phase_cue(text) == plain


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_SAID), max_size=60).map("".join))
def test_word_counts_and_openings_split_no_more_than_they_need(text: str) -> None:
    """`is_request`, `is_follow_up` and `echoes` read a long message's words only as far
    as they need: the same answers as splitting all of it."""
    from chunkscope.engine.segment import requests as rq

    assert rq._squeezed(text) == " ".join(text.split())[: rq.ECHO_CHARS]
    words = len(text.split())
    assert (len(text.split(None, 1)) >= 2) == (words >= 2)
    assert (len(text.split(None, rq.SHORT_WORDS)) <= rq.SHORT_WORDS) == (words <= rq.SHORT_WORDS)
    if text.strip() and len(text.split()) <= rq.SHORT_WORDS:
        assert rq.is_follow_up(text)
