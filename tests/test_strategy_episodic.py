"""episodic: force split, LLM boundaries over real HTTP, offline detector, flush, merge."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.strategies import get_strategy
from chunkscope.engine.chunk.strategies.episodic import format_messages, parse_boundary_reply
from chunkscope.engine.model import Turn
from chunkscope.engine.tokens import get_counter
from tests.fakeserver import FakeOpenAIServer, Fault

COUNTER = get_counter()
T0 = datetime(2025, 3, 10, 9, 0)
TOPICS = ["login bug null pointer auth service", "lunch plans pizza place", "quarterly roadmap"]


def conversation(n: int = 12, *, day_change_at: int | None = None) -> list[Turn]:
    out = []
    for i in range(n):
        t = T0 + timedelta(minutes=i)
        if day_change_at is not None and i >= day_change_at:
            t += timedelta(days=1)
        topic = TOPICS[0] if day_change_at is None or i < day_change_at else TOPICS[1]
        out.append(Turn(t, "You" if i % 2 == 0 else "Bot", f"{topic} message {i}", i + 1, i))
    return out


def reply_with(payload: Any) -> Any:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return lambda body: text


def llm_params(url: str, **extra: Any) -> dict[str, Any]:
    return {"llm_base_url": url, "max_messages": 20, "min_chunk_tokens": 0, **extra}


def test_llm_boundaries_valid() -> None:
    reply = {"reasoning": "two topics", "boundaries": [4, 8], "should_wait": True}
    with FakeOpenAIServer(chat_reply=reply_with(reply)) as server:
        res = get_strategy("episodic", llm_params(server.base_url)).split(conversation(), COUNTER)
        (request,) = server.requests_to("/chat/completions")
    prompt = request.body["messages"][0]["content"]
    assert "[1] [2025-03-10 09:00:00] You: login bug" in prompt
    assert request.body["response_format"]["json_schema"]["schema"]["required"] == [
        "reasoning",
        "boundaries",
        "should_wait",
    ]
    assert [(c.meta["start_turn_index"], c.meta["end_turn_index"]) for c in res.chunks] == [
        (0, 3),
        (4, 7),
        (8, 11),
    ]
    assert [c.reason for c in res.chunks] == ["llm_boundary", "llm_boundary", None]
    assert res.info["detector"] == "llm" and res.info["should_wait"] is True
    assert res.chunks[-1].meta["pending"] is True


def test_llm_boundaries_out_of_range_are_filtered_and_reported() -> None:
    reply = {"reasoning": "r", "boundaries": [0, 5, 12, 99, "3", True, -1], "should_wait": False}
    with FakeOpenAIServer(chat_reply=reply_with(reply)) as server:
        res = get_strategy("episodic", llm_params(server.base_url)).split(conversation(), COUNTER)
    assert [c.meta["end_turn_index"] for c in res.chunks] == [4, 11]
    assert res.info["invalid_boundaries"] == [0, 12, 99, "3", True, -1]
    assert res.info["should_wait"] is False


def test_llm_malformed_json_falls_back_to_offline_detector() -> None:
    turns = conversation(12, day_change_at=6)
    with FakeOpenAIServer(chat_reply=reply_with("this is not json {")) as server:
        res = get_strategy("episodic", llm_params(server.base_url)).split(turns, COUNTER)
        assert len(server.requests_to("/chat/completions")) == 1
    assert res.info["detector"] == "offline (llm failed)"
    assert "not JSON" in res.info["llm_error"]
    assert [c.meta["end_turn_index"] for c in res.chunks] == [5, 11]
    assert res.chunks[0].reason == "day_change"


def test_llm_http_failure_falls_back() -> None:
    with FakeOpenAIServer() as server:
        server.always(Fault.http(500))
        res = get_strategy("episodic", llm_params(server.base_url, llm_timeout=5)).split(
            conversation(12, day_change_at=6), COUNTER
        )
    assert res.info["llm_error"] and res.info["detector"].startswith("offline")
    assert len(res.chunks) == 2


def test_flush_clears_should_wait() -> None:
    reply = {"reasoning": "r", "boundaries": [], "should_wait": True}
    with FakeOpenAIServer(chat_reply=reply_with(reply)) as server:
        res = get_strategy("episodic", llm_params(server.base_url, flush=True)).split(
            conversation(), COUNTER
        )
    assert res.info["should_wait"] is False and len(res.chunks) == 1


def test_offline_gap_needs_a_topic_drop() -> None:
    turns = [
        Turn(T0, "You", "database index tuning planner", 1, 0),
        Turn(T0 + timedelta(minutes=1), "Bot", "database index planner stats", 2, 1),
        # five hours later, same topic: no split
        Turn(T0 + timedelta(hours=5), "You", "database index planner again", 3, 2),
        # five more hours, a new topic: split
        Turn(T0 + timedelta(hours=10), "You", "weekend hiking mountains trail", 4, 3),
        Turn(T0 + timedelta(hours=10, minutes=1), "Bot", "hiking trail boots weather", 5, 4),
    ]
    params = {"max_messages": 6, "min_chunk_tokens": 0, "window": 2}
    res = get_strategy("episodic", params).split(turns, COUNTER)
    assert [c.meta["end_turn_index"] for c in res.chunks] == [2, 4]
    assert res.chunks[0].reason == "time_gap_topic_shift"


def test_force_split_halving_and_merge_small() -> None:
    turns = conversation(30)
    res = get_strategy("episodic", {"max_messages": 10, "min_chunk_tokens": 0}).split(
        turns, COUNTER
    )
    # max_messages - 1 turns per forced chunk, the rest after the last force split
    assert [c.meta["turns"] for c in res.chunks] == [9, 9, 9, 3]
    assert [c.reason for c in res.chunks] == ["message_limit"] * 3 + [None]
    merged = get_strategy("episodic", {"max_messages": 10, "min_chunk_tokens": 150}).split(
        turns, COUNTER
    )
    assert merged.info["merged"] >= 1
    assert [t for c in merged.chunks for t in c.chunk.turns] == turns


def test_token_limit_halving() -> None:
    turns = [Turn(T0, "You", "word " * 100, i + 1, i) for i in range(40)]
    res = get_strategy("episodic", {"max_tokens": 1000, "min_chunk_tokens": 0}).split(
        turns, COUNTER
    )
    for c in res.chunks[:-1]:
        assert c.reason == "token_limit"
        assert c.meta["token_count"] < 1000
    assert [t for c in res.chunks for t in c.chunk.turns] == turns


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(1, 200), min_size=1, max_size=80),
    gaps=st.lists(st.sampled_from([1, 30, 300, 1500]), min_size=80, max_size=80),
    max_tokens=st.integers(200, 3000),
    max_messages=st.integers(2, 30),
    min_chunk=st.integers(0, 400),
)
def test_cover_in_order(
    sizes: list[int], gaps: list[int], max_tokens: int, max_messages: int, min_chunk: int
) -> None:
    t = T0
    turns = []
    for i, n in enumerate(sizes):
        t += timedelta(minutes=gaps[i])
        turns.append(Turn(t, "You" if i % 2 else "Bot", f"{TOPICS[i % 3]} " + "w " * n, i, i))
    params = {"max_tokens": max_tokens, "max_messages": max_messages, "min_chunk_tokens": min_chunk}
    res = get_strategy("episodic", params).split(turns, COUNTER)
    assert [x for c in res.chunks for x in c.chunk.turns] == turns
    for c in res.chunks:
        if c.reason in ("token_limit", "message_limit") and c.meta["merged_parts"] == 1:
            assert c.meta["turns"] < max_messages
            assert c.meta["token_count"] < max_tokens or c.meta["turns"] == 1


def test_reply_parsing_and_formatting() -> None:
    got = parse_boundary_reply('```json\n{"boundaries": [2], "should_wait": false}\n```', 4)
    assert got.boundaries == [2]
    assert format_messages([Turn(None, "You", "hi", 1, 0)]) == "[1] You: hi"
