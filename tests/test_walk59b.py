"""Walk 59's findings on the workbench that the lead fixed: F7 (two Enters of one burst
in a dialog blanked the workbench for good: the second dismissed the screen under the
dialog).

Each test fails on the code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.screens.workbench import WorkbenchScreen
from tests.pilot import burst, make_app, palette_listed, settled, until, wait_for


@pytest.mark.parametrize(
    "keys",
    [
        ("b", "backspace", "backspace", "backspace", "backspace", "5", "0", "0", "enter", "enter"),
        ("n", "enter", "enter"),
        ("ctrl+s", "d", "b", "l", "2", "enter", "enter"),
    ],
)
async def test_f7_a_second_enter_of_a_burst_leaves_the_workbench_on_screen(
    isolated: Path, keys: tuple[str, ...]
) -> None:
    """``b Enter Enter`` (the brief's burst ``n ... Enter b ... Enter`` too): the screen
    went blank, only quitting got out."""
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        burst(app, *keys)
        await pilot.pause(0.3)
        await until(pilot, lambda: app.workers_idle())
        await pilot.pause()
        assert isinstance(app.screen, WorkbenchScreen), app.screen_stack
        assert len(app.screen_stack) == 1 + app.screen_stack.index(app.screen), app.screen_stack
        assert app.workbench is not None and app.workbench.is_attached
        # and it still answers keys
        await pilot.press("b")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, WorkbenchScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WorkbenchScreen))


async def test_f7_a_palette_command_with_two_enters_leaves_the_workbench(isolated: Path) -> None:
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+p", *"chunk: copy")
        await until(pilot, lambda: palette_listed(app))
        burst(app, "enter", "enter")
        await pilot.pause(0.3)
        await pilot.pause()
        assert isinstance(app.screen, WorkbenchScreen), app.screen_stack
