"""Review walk 16, findings 6, 7, 8 and 12: a topic mark on a line two items share, a key
burst while the picker opens, a notification under a dialog, and slider steps that move
no knob."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

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
    from tests.pilot import burst, settled

    for i in range(300):  # a folder that takes the picker a moment
        (tmp_path / f"f{i:03}.txt").write_text("x\n")
    app = make_app(folder=tmp_path)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        burst(app, "ctrl+o", "escape", "b", *["backspace"] * 5, *"555", "enter")
        await until(pilot, lambda: app.budget == 555 or isinstance(app.screen, OpenFileScreen))
        await pilot.pause()
        await until(pilot, lambda: app.budget == 555, 5)
        assert not isinstance(app.screen, OpenFileScreen)


async def _steps_all_show(pilot: Any, slider: Any, key: str, presses: int) -> list[float]:
    """`key` pressed `presses` times on the focused `slider` (or until an end): the values
    passed through, each press checked to move the knob."""
    values = [slider.value]
    for _ in range(presses):
        cell, value = slider.knob_cell(), slider.value
        await pilot.press(key)
        await pilot.pause()
        if slider.value == value:
            break  # an end
        assert slider.knob_cell() != cell, (key, values, slider.value, cell)
        values.append(slider.value)
    return values


@pytest.mark.parametrize("size", [SIZE, NARROW], ids=["wide", "narrow"])
async def test_every_slider_step_moves_its_knob_and_steps_back(size: tuple[int, int]) -> None:
    """Walk 16, 12: the compare columns' sliders stepped by their parameter's unit on a
    track of a few cells (sliding-window ``max tokens`` by 16 tokens: 1000, 872, 856, 840
    on one cell; markdown ``overlap`` 50 to 40), and the merge controls' ``max chars``
    8192 to 7168 moved nothing on a 17-cell track. Every step moves the knob, a step and
    a step back come back, and ↑ ↓ move between the columns' sliders as in the merge
    controls."""
    from chunkscope.tui.widgets.merge_panel import MergePanel
    from chunkscope.tui.widgets.slider import Slider
    from chunkscope.tui.widgets.strategy_panel import StrategyPanel
    from tests.pilot import settled

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None

        async def steps_come_back(slider: Any, presses: int = 0) -> None:
            """Steps down then as many up (short of the minimum, where a step is cut)."""
            assert isinstance(slider, Slider)
            slider.focus()
            await pilot.pause()
            start = slider.value
            if not presses:  # the steps before the minimum (the declared step's, once)
                step = getattr(slider, "visible_step", lambda: slider.step)()
                presses = max(1, min(3, int((start - slider.minimum) // step)))
            down = await _steps_all_show(pilot, slider, "left", presses)
            assert len(down) >= 2, down  # a step at least (then an end, or a refused value)
            up = await _steps_all_show(pilot, slider, "right", len(down) - 1)
            assert up == down[::-1], (slider.label, down, up)
            assert slider.value == start

        # 8192 chars, three steps down (from 256 to 32768: not to the minimum)
        await steps_come_back(bench.query_one(MergePanel).query_one("#max-chars", Slider), 3)
        app.set_column_strategy("left", "sliding-window")
        app.set_column_strategy("right", "markdown")
        await settled(pilot, app)
        panel = bench.query_one(StrategyPanel)
        sliders = [
            panel.slider_for("left", "max_tokens"),
            panel.slider_for("left", "overlap"),
            panel.slider_for("right", "max_tokens"),
            panel.slider_for("right", "overlap"),
        ]
        for slider in sliders:
            await steps_come_back(slider)
        # ↑ ↓ move between the columns' sliders, as in the merge controls
        first = sliders[0]
        assert first is not None
        first.focus()
        await pilot.press("down")
        assert app.screen.focused is sliders[1]
        await pilot.press("up")
        assert app.screen.focused is first


async def test_a_mark_on_a_line_two_items_share_says_where_its_diamond_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 16, 6: in the turns view of cache_refactor.jsonl, `m` on item 133 (a Tool turn,
    its call's record on line 166 collapsed with its result) said "a topic starts at item
    133 (line 166 of the file)" and drew the ◆ on item 132 (a Think turn on line 166 too).
    A mark is a line of the file (a gold file's start, as eval scores it; the cut before
    either item is at that line), drawn on the first item starting there: the note names
    the line, the items sharing it and the one with the ◆, marked and unmarked."""
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from tests.pilot import settled

    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path))  # marks saved apart
    app = make_app()
    shown = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("v")  # the turns view
        bench = app.workbench
        assert bench is not None
        await until(pilot, lambda: bench.view is not None and bench.view.left_kind == "turns")
        lst = bench.query_one("#before", ChunkList)
        card = lst.chunks[133]
        assert card.lines is not None and card.lines[0] == 166
        assert lst.chunks[132].lines is not None and lst.chunks[132].lines[0] == 166
        lst.focus()
        lst.select(133)
        await pilot.pause()
        await pilot.press("m")
        await until(pilot, lambda: 166 in app.marks)
        note = next(m for m in shown if m.startswith("Topic mark"))
        assert "line 166 of the file, where items 132–133 start" in note, note
        assert "◆ shows on item 132" in note, note
        assert "item 133 (line 166" not in note
        await until(pilot, lambda: lst._flags.get(132) == "mark")
        assert 133 not in lst._flags
        await pilot.press("m")  # from the same item: the line's mark is gone
        await until(pilot, lambda: 166 not in app.marks)
        assert "◆ is gone from item 132" in shown[-1], shown[-1]
        await until(pilot, lambda: 132 not in lst._flags)
