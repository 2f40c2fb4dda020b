"""A chunk's time range across midnight carries the date: it never seems to end before
it starts (aider's sessions of two days in one history)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks
from chunkscope.engine.model import Chunk, Turn, clock_range
from chunkscope.engine.read.parse import load
from chunkscope.tui.cli import main
from chunkscope.tui.widgets.chunk_list import short_time_range

HISTORY = """# aider chat started at 2024-05-01 21:49:22

#### fix the failing test in tests/test_cache.py

The test expects the cache to persist; I changed the fixture.

> Applied edit to tests/test_cache.py

# aider chat started at 2024-05-02 17:04:56

#### now add a benchmark

I added bench/cache.py.
"""


def _clock(text: str) -> tuple[str, str]:
    a, b = text.split(" - ")
    return a, b


def test_an_aider_history_across_midnight_carries_the_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY)
    whole = Chunk(load(path).turns)
    assert whole.time_range == "2024-05-01 21:49:22 - 2024-05-02 17:04:56"
    assert short_time_range(whole) == "21:49:22–17:04:56+1d"
    for chunk in compact_chunks(chunk_turns(load(path).turns), 10_000):
        a, b = _clock(chunk.time_range)
        assert a <= b, chunk.time_range
    assert main(["chunk", str(path), "--min-chars", "10000"]) == 0
    out = capsys.readouterr().out
    assert "[2024-05-01 21:49:22 - 2024-05-02 17:04:56]" in out
    assert "21:49:22 - 17:04:56" not in out


@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
    st.timedeltas(
        min_value=timedelta(0),
        max_value=timedelta(days=40),
    ),
)
def test_a_clock_range_never_ends_before_it_starts(start: datetime, length: object) -> None:
    end = start + length  # type: ignore[operator]
    a, b = _clock(clock_range(start, end))
    assert len(a) == len(b) and a <= b
    chunk = Chunk([Turn(start, "You", "a"), Turn(end, "Bot", "b")])
    assert chunk.time_range == clock_range(start, end)


@given(
    st.lists(
        st.one_of(
            st.none(), st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1))
        ),
        min_size=1,
        max_size=8,
    )
)
def test_a_chunk_spans_its_earliest_to_its_latest_time_in_any_order(
    times: list[datetime | None],
) -> None:
    # parallel tool results are logged out of time order (walk 13, 2: a merged chunk of a
    # Claude Code session read '21:55:07 - 21:55:05')
    chunk = Chunk([Turn(t, "Tool", f"result {i}") for i, t in enumerate(times)])
    known = [t for t in times if t is not None]
    if not known:
        assert chunk.start is None and chunk.end is None
        return
    assert (chunk.start, chunk.end) == (min(known), max(known))
    a, b = _clock(chunk.time_range)
    assert len(a) == len(b) and a <= b
    assert all(chunk.start <= t <= chunk.end for t in known)


def test_times_that_cannot_be_compared_fall_back_to_file_order() -> None:
    naive, aware = (
        datetime(2024, 5, 1, 12, 0, 0),
        datetime(2024, 5, 1, 9, 0, 0, tzinfo=UTC),
    )
    chunk = Chunk([Turn(naive, "You", "a"), Turn(aware, "Bot", "b")])
    assert (chunk.start, chunk.end) == (naive, aware)
    assert chunk.time_range  # drawn, never raised


def test_a_merged_chunk_of_parallel_tool_results_never_ends_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Claude Code turn that runs two tools at once: the first call's result comes last
    def record(i: int, kind: str, second: int, content: object) -> str:
        return json.dumps(
            {
                "type": kind,
                "uuid": f"u{i}",
                "sessionId": "s1",
                "timestamp": f"2025-06-01T21:55:{second:02d}Z",
                "message": {"role": kind, "content": content},
            }
        )

    def read(tool_id: str, name: str) -> dict[str, object]:
        return {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": name}}

    def result(tool_id: str, text: str) -> list[dict[str, str]]:
        return [{"type": "tool_result", "tool_use_id": tool_id, "content": text}]

    path = tmp_path / "parallel.jsonl"
    records = [
        record(0, "user", 0, "read both files"),
        record(1, "assistant", 1, [read("a", "/x/a.py"), read("b", "/x/b.py")]),
        record(2, "user", 5, result("b", "b = 2")),
        record(3, "user", 7, result("a", "a = 1")),
    ]
    path.write_text("\n".join(records) + "\n")
    assert main(["chunk", str(path), "--min-chars", "10000"]) == 0
    out = capsys.readouterr().out
    ranges = re.findall(r"--- Chunk \d+ \[([^\]]+)\]", out)
    assert ranges, out
    for r in ranges:
        a, b = _clock(r)
        assert a <= b, r
    assert "21:55:00 - 21:55:07" in ranges
