"""Walk 44's findings. F1: ↓ typed fast in the merged list was lost: each ↓ posts the
card it selects, and the screen, taking an earlier one after the list had moved on,
selected that card again (the list went back over the keys it had taken). A selection a
list has since moved past is stale and taken no more; the same for the recap's list."""

from __future__ import annotations

import asyncio

import pytest

from chunkscope.tui.widgets.candidate_list import CandidateList
from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import SIZE, burst, make_app, settled

pytestmark = pytest.mark.usefixtures("isolated")


async def _keys(app: object, count: int, gap: int) -> None:
    """`count` ↓ as separate writes of a terminal: each handled by the focused list with
    `gap` turns of the loop between, so the screen takes the lists' messages in between."""
    for _ in range(count):
        burst(app, "down")  # type: ignore[arg-type]
        for _ in range(gap):
            await asyncio.sleep(0)


@pytest.mark.parametrize("gap", [1, 2, 3])
async def test_every_down_of_a_burst_in_the_merged_list_counts(gap: int) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        merged = app.screen.query_one("#merged", ChunkList)
        merged.focus()
        await pilot.pause()
        await _keys(app, 30, gap)
        await settled(pilot, app)
        assert merged.selected == app.workbench.selected == 30


@pytest.mark.parametrize("gap", [1, 3])
async def test_every_down_of_a_burst_in_the_left_list_counts(gap: int) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        before = app.screen.query_one("#before", ChunkList)
        before.focus()
        await pilot.pause()
        start = before.selected
        await _keys(app, 40, gap)
        await settled(pilot, app)
        assert before.selected == start + 40
        view = app.workbench.view
        assert view is not None and app.workbench.selected == view.owner_of_left(start + 40)


@pytest.mark.parametrize("gap", [1, 3])
async def test_every_down_of_a_burst_in_the_recap_list_counts(gap: int) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        candidates = app.screen.query_one(CandidateList)
        candidates.focus()
        await pilot.press("home")
        await settled(pilot, app)
        start = candidates.cursor
        assert start == 0 and app.workbench.selected == candidates.rows[0].index
        await _keys(app, 20, gap)
        await settled(pilot, app)
        assert candidates.cursor == start + 20
        assert app.workbench.selected == candidates.rows[start + 20].index
