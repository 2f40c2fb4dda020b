"""boundary: cuts within limits, in order, at the signals; reasons reported."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.strategies import get_strategy
from chunkscope.engine.model import Turn
from chunkscope.engine.tokens import get_counter

COUNTER = get_counter()
T0 = datetime(2025, 3, 1, 9, 0)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def conversations(draw: st.DrawFn) -> list[Turn]:
    n = draw(st.integers(1, 60))
    turns: list[Turn] = []
    t = T0
    for i in range(n):
        t += timedelta(minutes=draw(st.sampled_from([1, 2, 5, 45, 300])))
        role = "You" if i % 2 == 0 else "Bot"
        words = draw(st.integers(1, 120))
        lead = draw(st.sampled_from(["", "", "", "Moving on, ", "Let's talk about "]))
        turns.append(Turn(t, role, lead + " ".join(["word"] * words), i + 1, i))
    return turns


@SETTINGS
@given(turns=conversations(), max_tokens=st.integers(60, 800), max_messages=st.integers(2, 20))
def test_cover_in_order_within_limits(
    turns: list[Turn], max_tokens: int, max_messages: int
) -> None:
    params = {"max_tokens": max_tokens, "max_messages": max_messages}
    res = get_strategy("boundary", params).split(turns, COUNTER)
    got = [t for sc in res.chunks for t in sc.chunk.turns]
    assert got == turns  # every turn once, in order, no overlap
    for sc in res.chunks:
        m = sc.meta
        assert m["turns"] <= max_messages
        if m["exceeds_limit"]:
            assert m["turns"] == 1
        else:
            assert m["token_count"] <= max_tokens
    assert res.chunks[-1].reason is None
    allowed = {"user_turn", "time_gap", "topic_marker", "token_limit", "message_limit", "balance"}
    assert all(sc.reason in allowed for sc in res.chunks[:-1])


def test_prefers_topic_markers_and_gaps() -> None:
    turns = []
    t = T0
    for i in range(40):
        t += timedelta(minutes=2 if i != 20 else 180)
        lead = "Moving on, let's discuss the deploy. " if i == 20 else ""
        turns.append(Turn(t, "You" if i % 2 == 0 else "Bot", lead + "word " * 30, i, i))
    res = get_strategy("boundary", {"max_tokens": 800, "max_messages": 40}).split(turns, COUNTER)
    assert len(res.chunks) == 2
    first = res.chunks[0]
    assert first.meta["end_turn_index"] == 19
    assert first.reason in ("topic_marker", "time_gap")
    assert set(first.meta["cut_signals"]) >= {"topic_marker", "time_gap", "user_turn"}


def test_small_conversation_is_one_chunk() -> None:
    turns = [Turn(T0, "You", "hi", 1, 0), Turn(T0, "Bot", "hello", 2, 1)]
    res = get_strategy("boundary").split(turns, COUNTER)
    assert len(res.chunks) == 1 and res.chunks[0].reason is None
    assert get_strategy("boundary").split([], COUNTER).chunks == []
