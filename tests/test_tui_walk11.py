"""Defects of the workbench found by a review walk (issue 35, walk 9): the compare
columns keep their selection and the focus across a resize, switching to the offline
embedder opens the file the start could not, a long toast leaves a dialog's fields
alone, the picker's rows are laid out again on a resize, the narrow header says what it
leaves out, a topic run without cuts has the topic legend, the keys panel narrows the
layout and text is readable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.pilot import SIZE, make_app, recording_notifications, settled, until

if TYPE_CHECKING:
    from chunkscope.tui.app import ChunkscopeApp

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


async def _compare_right(pilot: Any, app: ChunkscopeApp) -> None:
    """`]`: blank-line in the right column, its chunks drawn."""
    await pilot.press("right_square_bracket")
    await until(pilot, lambda: app.shown_result("right")[0] is not None and app.workers_idle())
    await pilot.pause()


async def test_compare_columns_keep_selection_and_focus_across_the_breakpoint() -> None:
    """Walk 9, 1: a resize across the 130-column breakpoint put both compare columns
    back on card 0 and moved the focus off them: `c` then copied the hidden merge
    run's chunk, `m` marked another item."""
    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await _compare_right(pilot, app)
        bench = app.workbench
        assert bench is not None
        bench.query_one("#before", ChunkList).select(5)
        right = bench.query_one("#merged", ChunkList)
        right.focus()
        right.select(3)
        await pilot.pause()
        shown = recording_notifications(app)
        for size in (NARROW, SIZE, NARROW):
            await pilot.resize_terminal(*size)
            await until(pilot, lambda: app.workers_idle())
            await pilot.pause()
            bench = app.workbench
            assert bench is not None
            before = bench.query_one("#before", ChunkList)
            merged = bench.query_one("#merged", ChunkList)
            assert (before.selected, merged.selected) == (5, 3), size
            assert bench.focused is merged, (size, bench.focused)
            n = len(shown)
            await pilot.press("c")
            await until(pilot, lambda: len(shown) > n)  # noqa: B023 (awaited here)
            assert shown[-1].startswith("Copied blank-line chunk 3 "), shown[-1]
