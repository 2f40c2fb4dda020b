"""sliding-window: coverage, limits and overlaps, whole turns and token windows."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.strategies import get_strategy
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.tokens import get_counter

COUNTER = get_counter()
T0 = datetime(2025, 1, 1, 9, 0, 0)

_text = st.text(
    alphabet=st.sampled_from(list("abcdefghij klmnop\n.,!é€😀`#")), min_size=1, max_size=300
)


@st.composite
def turn_lists(draw: st.DrawFn, max_turns: int = 25) -> list[Turn]:
    texts = draw(st.lists(_text, min_size=1, max_size=max_turns))
    roles = draw(
        st.lists(st.sampled_from(["You", "Bot", "Tool"]), min_size=len(texts), max_size=len(texts))
    )
    return [
        Turn(T0 + timedelta(minutes=i), r, t, i + 1, i)
        for i, (r, t) in enumerate(zip(roles, texts, strict=True))
    ]


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(turns=turn_lists(), max_tokens=st.integers(30, 200), overlap=st.integers(0, 25))
def test_whole_turns_cover_in_order_within_limits(
    turns: list[Turn], max_tokens: int, overlap: int
) -> None:
    strat = get_strategy("sliding-window", {"max_tokens": max_tokens, "overlap": overlap})
    res = strat.split(turns, COUNTER)
    chunks = res.chunks
    assert chunks[0].meta["start_turn_index"] == 0
    assert chunks[-1].meta["end_turn_index"] == len(turns) - 1
    for i, sc in enumerate(chunks):
        m = sc.meta
        assert sc.chunk.turns == turns[m["start_turn_index"] : m["end_turn_index"] + 1]
        assert m["sequence"] == i + 1 and m["total_chunks"] == len(chunks)
        assert m["token_count"] == COUNTER.count(sc.text)
        if m["exceeds_limit"]:
            assert len(sc.chunk.turns) == 1
        else:
            assert m["token_count"] <= max_tokens
        assert m["overlap_tokens_with_previous"] <= overlap
        if i:
            prev = chunks[i - 1].meta
            # each chunk starts right after the previous one, less the carried turns
            assert m["start_turn_index"] == prev["end_turn_index"] + 1 - m["overlap_with_previous"]
            assert prev["overlap_with_next"] == m["overlap_with_previous"]
            assert m["overlap_with_previous"] < len(chunks[i - 1].chunk.turns)
    assert [sc.reason for sc in chunks] == ["token_limit"] * (len(chunks) - 1) + [None]


@SETTINGS
@given(turns=turn_lists(), max_tokens=st.integers(20, 200), frac=st.floats(0.0, 0.5))
def test_token_windows_overlap_exactly(turns: list[Turn], max_tokens: int, frac: float) -> None:
    params = {"max_tokens": max_tokens, "overlap": frac, "preserve_message_boundaries": False}
    res = get_strategy("sliding-window", params).split(turns, COUNTER)
    doc = Chunk(turns).text
    chunks = res.chunks
    assert chunks[0].meta["start_char"] == 0 and chunks[0].meta["start_token"] == 0
    assert chunks[-1].meta["end_char"] == len(doc)
    n_tokens = len(COUNTER.encode(doc))
    assert chunks[-1].meta["end_token"] == n_tokens
    window = chunks[0].meta["window_tokens"]
    configured = min(round(frac * max_tokens), window - 1)
    rebuilt = ""
    for i, sc in enumerate(chunks):
        m = sc.meta
        assert m["token_count"] <= max_tokens
        assert 0 < m["window_tokens"] <= window
        if i:
            prev = chunks[i - 1].meta
            assert m["overlap_with_previous"] == prev["end_token"] - m["start_token"]
            if prev["window_tokens"] > configured:
                assert m["overlap_with_previous"] == configured
            assert m["start_char"] <= prev["end_char"]
            assert m["start_token"] > prev["start_token"]
        rebuilt += doc[max(len(rebuilt), m["start_char"]) : m["end_char"]]
        # the pieces are the turns' texts within the window, role kept
        for piece in sc.chunk.turns:
            assert piece.text in turns[piece.turn_index].text  # type: ignore[index]
    assert rebuilt == doc


def test_oversize_turn_is_its_own_flagged_chunk() -> None:
    turns = [
        Turn(T0, "You", "short question", 1, 0),
        Turn(T0, "Bot", "word " * 400, 2, 1),
        Turn(T0, "You", "thanks", 3, 2),
    ]
    res = get_strategy("sliding-window", {"max_tokens": 100, "overlap": 10}).split(turns, COUNTER)
    flagged = [sc for sc in res.chunks if sc.meta["exceeds_limit"]]
    assert len(flagged) == 1
    assert flagged[0].chunk.turns == [turns[1]]
    assert flagged[0].meta["overlap_with_previous"] == 0


def test_fraction_overlap_and_validation() -> None:
    strat = get_strategy("sliding-window", {"max_tokens": 500, "overlap": "0.1"})
    assert strat.params.overlap_tokens == 50
    with pytest.raises(ValueError):
        get_strategy("sliding-window", {"max_tokens": 100, "overlap": 100})
    with pytest.raises(ValueError):
        get_strategy("sliding-window", {"max_tokens": 2})
    assert get_strategy("sliding-window").split([], COUNTER).chunks == []
