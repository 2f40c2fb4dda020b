"""Defects of the workbench found by a review walk (issue 35, walk 12): after a resize
drag the workbench kept laying itself out for minutes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual import events

from tests.pilot import SIZE, make_app, settled

pytestmark = pytest.mark.usefixtures("isolated")


async def test_a_resize_drag_settles_and_leaves_the_screen_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walk 12, 3: a drag from 160 to 100 columns in 10-column steps left the screen
    refitting its tab labels at each Resize of the same width, which laid it out again
    and sent another: 50-95% of a core for minutes, the screen flipping between fits and
    the keys unread. Once the drag ends, a Resize of the width already fitted does
    nothing."""
    from chunkscope.tui.screens import workbench as module

    fits: list[int] = []
    real = module.fit_tabs

    def counted(*args: object, **kwargs: object) -> None:
        fits.append(1)
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "fit_tabs", counted)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        for width in range(150, 99, -10):
            await pilot.resize_terminal(width, SIZE[1])
            await asyncio.sleep(0.05)
        await settled(pilot, app)
        await asyncio.sleep(0.5)
        await pilot.pause()
        bench = app.workbench
        assert bench is not None and bench.narrow
        before = len(fits)
        await asyncio.sleep(1.0)
        await pilot.pause()
        assert len(fits) == before, f"{len(fits) - before} refits in a second at rest"
        # what fed the loop in a terminal: the screen's layout refreshed sends it a
        # Resize of the width it has; refitting then laid it out again, and so on
        for _ in range(3):
            bench.post_message(events.Resize(bench.size, bench.virtual_size))
            await pilot.pause()
        await pilot.pause()
        assert len(fits) == before, "a Resize of the same width refitted the tabs"
        # a width it has not fitted is fitted (the guard is by width, not a lock)
        await pilot.resize_terminal(110, SIZE[1])
        await settled(pilot, app)
        await pilot.pause()
        assert len(fits) > before


async def test_the_pickers_folder_title_keeps_the_folders_own_name(tmp_path: Path) -> None:
    """Walk 12, 5: the picker's tree title was the folder's whole path cut at its end
    (``/work/wt-review/sample_lo…``), losing the folder's own name; it is cut from its
    start, as the header cuts a path (``…/the_sessions``)."""
    import shutil

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import SAMPLE, picker_listed

    folder = tmp_path / ("a_very_long_folder_name_" * 3) / "another_long_folder" / "the_sessions"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "first.jsonl")
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await picker_listed(pilot, app)
        await pilot.pause()
        tree = app.screen.query_one("#tree")
        title = str(tree.border_title)
        assert title.startswith("…/") and title.endswith("/the_sessions"), title
        assert len(title) < tree.size.width - 4, (title, tree.size.width)
