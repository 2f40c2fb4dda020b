"""A chunk's time range across midnight carries the date: it never seems to end before
it starts (aider's sessions of two days in one history)."""

from __future__ import annotations

from datetime import datetime, timedelta
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
