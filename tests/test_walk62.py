"""Walk 62's findings on the workbench: F4 (a resize that rebuilds the layout while a
panel is zoomed left the screen hatched, the zoomed panel gone) and F5 (an expanded card
folded back at the same resize).

Each test fails on the code before its fix."""

from __future__ import annotations

import pytest

from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import make_app, settled, until, wait_for

SIZES = [((160, 48), (100, 30)), ((100, 30), (160, 48))]


@pytest.mark.parametrize("sizes", SIZES, ids=["narrower", "wider"])
async def test_f4_a_zoomed_panel_stays_zoomed_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    first, then = sizes
    app = make_app()
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        bench.query_one("#merged", ChunkList).focus()
        await pilot.press("z")
        await until(pilot, lambda: bench.maximized is not None)
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        merged = bench.query_one("#merged", ChunkList)
        assert await wait_for(pilot, lambda: bench.maximized is merged, 5), bench.maximized
        assert merged.region.height > then[1] // 2  # it fills the screen, drawn
        await pilot.press("z")
        assert await wait_for(pilot, lambda: bench.maximized is None, 5)


@pytest.mark.parametrize("sizes", SIZES, ids=["narrower", "wider"])
async def test_f5_an_expanded_card_stays_expanded_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    first, then = sizes
    app = make_app()
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        merged = bench.query_one("#merged", ChunkList)
        merged.focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: merged.is_expanded(1))
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        rebuilt = bench.query_one("#merged", ChunkList)
        assert rebuilt is not merged
        assert await wait_for(pilot, lambda: rebuilt.is_expanded(1), 5)
        assert not rebuilt.is_expanded(0)
