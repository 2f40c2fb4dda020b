"""Review walk 16, findings 6, 7, 8 and 12: a topic mark on a line two items share, a key
burst while the picker opens, a notification under a dialog, and slider steps that move
no knob."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from tests.pilot import (
    SAMPLE,
    SIZE,
    drawn_toasts,
    make_app,
    open_dialog,
    picker_listed,
    recording_notifications,
    until,
)

NARROW = (100, 30)


@pytest.mark.parametrize("size", [SIZE, NARROW], ids=["wide", "narrow"])
async def test_a_toast_under_a_dialog_shows_the_whole_reason(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Walk 16, 8: served (`tui --confine`), a path typed in the picker outside the folder
    was refused in a toast 60 cells wide at 160 columns, cut before the reason (``…
    outside the folder this …``); at 100 columns one row cut a long path's. Under a
    dialog a toast is as wide as the screen and wraps to the rows it has, off the dialog."""
    from textual.widgets import Input

    from chunkscope.tui.screens.open_file import OpenFileScreen

    shown_dir = tmp_path / "a-served-folder"
    shown_dir.mkdir()
    shutil.copy(SAMPLE, shown_dir / "log.jsonl")
    app = make_app(shown_dir / "log.jsonl", confine=str(shown_dir))
    app.NOTIFICATION_TIMEOUT = 60  # on screen for the whole test
    shown = recording_notifications(app)
    async with app.run_test(size=size, notifications=True) as pilot:
        await until(pilot, lambda: app.pipe is not None and app.workers_idle())
        await pilot.press("ctrl+o")
        screen = await picker_listed(pilot, app)
        field = screen.query_one("#path", Input)
        field.focus()
        field.value = "../outside.txt"
        await pilot.press("enter")
        await until(pilot, lambda: any("outside the folder" in m for m in shown))
        assert isinstance(app.screen, OpenFileScreen)
        await until(pilot, lambda: bool(drawn_toasts(app)))
        await pilot.pause()
        message = next(m for m in shown if "outside the folder" in m)
        assert len(message) > size[0] - 10  # longer than a row: it must wrap
        (toast,) = drawn_toasts(app)
        box = toast.content_region
        assert math.ceil(len(message) / box.width) <= box.height, (len(message), box)
        assert not toast.region.overlaps(open_dialog(app).region)


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_an_escape_typed_while_the_picker_opens_closes_it(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Walk 16, 7: ``ctrl+o`` then at once ``escape b ⌫⌫⌫⌫⌫ 555 ⏎`` (the picker slow to
    open on a big folder) left the picker open with ``555`` in its path field: the
    escape, typed before the dialog was ready, was lost. Keys typed ahead of the picker
    are applied to it in order: the escape closes it, the rest go to the workbench."""
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from tests.pilot import settled
    from tests.test_first_hour import _burst

    for i in range(300):  # a folder that takes the picker a moment
        (tmp_path / f"f{i:03}.txt").write_text("x\n")
    app = make_app(folder=tmp_path)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        _burst(app, "ctrl+o", "escape", "b", *["backspace"] * 5, *"555", "enter")
        await until(pilot, lambda: app.budget == 555 or isinstance(app.screen, OpenFileScreen))
        await pilot.pause()
        await until(pilot, lambda: app.budget == 555, 5)
        assert not isinstance(app.screen, OpenFileScreen)
