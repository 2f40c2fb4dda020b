"""The chunk list repaints only the lines whose content changes when its data does (a
slider step that keeps the cards on screen draws none of them again), and what it
shows is then what a full repaint shows: no line is left stale."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region

from chunkscope.engine.model import Chunk, Turn
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.rows import put_border_title


@dataclass
class _Cut:
    reason: str
    similarity: float
    threshold: float
    depth: float | None = None


class _ListApp(App[None]):
    CSS = "ChunkList { border: round $primary; }"

    def compose(self) -> ComposeResult:
        yield ChunkList(id="list")


T0 = datetime(2026, 2, 13, 9, 0, 0)


def _chunk(i: int, words: str = "cache") -> Chunk:
    text = f"{words} {i} " * 8 + f"\n\nsecond line of {i}"
    return Chunk([Turn(T0 + timedelta(seconds=i), "You" if i % 3 else "Bot", text, i + 1)])


def _painted(lst: ChunkList) -> list[str]:
    """The widget's lines as painted: Textual's cached lines, re-rendered where dirty."""
    size = lst.outer_size
    return [strip.text for strip in lst.render_lines(Region(0, 0, size.width, size.height))]


def _fresh(lst: ChunkList) -> list[str]:
    lst._invalidate()  # every line drawn again from the data
    return _painted(lst)


@pytest.mark.paints
async def test_new_data_repaints_the_changed_lines_only_and_leaves_none_stale() -> None:
    app = _ListApp()
    async with app.run_test(size=(70, 30)) as pilot:
        lst = app.query_one("#list", ChunkList)
        lst.border_title = "MERGED"
        units = [_chunk(i) for i in range(40)]
        a = list(units)
        cuts_a = [_Cut("topic", 0.1 * (i % 7), 7.0, 8.0 + i) for i in range(len(a) - 1)]

        def show(chunks: list[Chunk], cuts: list[_Cut], threshold: float = 7.0) -> None:
            lst.set_items(
                chunks,
                tokens=[len(c.text) // 4 for c in chunks],
                bands=np.arange(len(chunks)),
                cuts=[_Cut(c.reason, c.similarity, threshold, c.depth) for c in cuts],
            )

        show(a, cuts_a)
        await pilot.pause()
        first = _painted(lst)
        assert first == _fresh(lst)

        drawn: list[int] = []
        render_line = lst.render_line

        def counting(y: int) -> Any:
            drawn.append(y)
            return render_line(y)

        lst.render_line = counting  # type: ignore[method-assign]

        # the same cards, one cut's threshold changed: only the cut rows are drawn again
        show(a, cuts_a, threshold=7.5)
        await pilot.pause()
        painted = _painted(lst)
        height = lst.scrollable_content_region.height
        assert 0 < len(set(drawn)) < height
        assert all("cut" in painted[y + 1] for y in set(drawn))  # (+1: the top border)
        assert painted == _fresh(lst)

        # card 3 on split in two: the cards before it are not drawn again
        b = [*a[:3], _chunk(3, "tides"), _chunk(100, "tides"), *a[4:]]
        cuts_b = [*cuts_a[:3], _Cut("size_cap", 0.5, 7.0, 3.0), *cuts_a[3:]]
        drawn.clear()
        show(b, cuts_b, threshold=7.5)
        await pilot.pause()
        assert min(drawn) == 12  # cards 0-2: a header, two text rows and a cut each
        assert _painted(lst) == _fresh(lst)

        # a new title: the top border row alone is drawn again
        drawn.clear()
        put_border_title(lst, "MERGED (41)")
        await pilot.pause()
        assert not drawn
        assert "MERGED (41)" in _painted(lst)[0]
        assert _painted(lst) == _fresh(lst)

        # marks, search hits, tokens and bands, one at a time, then back again
        lst.set_marks({5: "miss"}, ["hit", "spurious"] * 20)
        await pilot.pause()
        assert _painted(lst) == _fresh(lst)
        lst.set_hits({1: 1, 6: 2})
        await pilot.pause()
        assert _painted(lst) == _fresh(lst)
        lst.set_tokens([7] * len(b), approx=True)
        await pilot.pause()
        assert _painted(lst) == _fresh(lst)
        lst.set_bands(np.arange(len(b)) // 2)
        await pilot.pause()
        assert _painted(lst) == _fresh(lst)
        lst.set_marks({}, [])
        lst.set_hits({})
        put_border_title(lst, "MERGED")
        show(a, cuts_a)
        await pilot.pause()
        assert _painted(lst) == first

        # two changes before a paint, and a scroll between them
        show(b, cuts_b)
        lst.scroll_to(y=5, animate=False, immediate=True)
        show(a, cuts_a, threshold=6.0)
        await pilot.pause()
        assert _painted(lst) == _fresh(lst)
