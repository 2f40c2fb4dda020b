"""The Slider widget: keys, mouse, snapping, messages and rendering."""

from __future__ import annotations

import itertools

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.events import MouseScrollDown, MouseScrollUp
from textual.pilot import Pilot

from chunkscope.tui.widgets import Slider


class SliderApp(App[None]):
    """One slider on a 60-cell line, recording every Changed message."""

    def __init__(self, slider: Slider) -> None:
        super().__init__()
        self.slider = slider
        self.changes: list[tuple[str | None, float]] = []

    def compose(self) -> ComposeResult:
        yield self.slider

    def on_slider_changed(self, message: Slider.Changed) -> None:
        assert message.control is message.slider
        self.changes.append((message.slider.id, message.value))


def make(**kwargs: object) -> Slider:
    options: dict[str, object] = {
        "value": 0.5,
        "minimum": 0.0,
        "maximum": 1.0,
        "step": 0.1,
        "label": "std_k",
        "label_width": 10,
        "id": "s",
    }
    options.update(kwargs)
    return Slider(**options)  # type: ignore[arg-type]


async def _ready(pilot: Pilot[None], app: SliderApp) -> None:
    app.slider.focus()
    await pilot.pause()
    app.changes.clear()


# At width 60 with label_width=10 and value "0.50" (4 cells) after a 2-cell gap,
# the track is cells 10..53 (44 cells): cell 10 is the minimum, 53 the maximum.
TRACK_START, TRACK_END = 10, 53


async def test_keys_step_and_clamp() -> None:
    app = SliderApp(make())
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        await pilot.press("right")
        assert app.slider.value == 0.6
        await pilot.press("left", "left")
        assert app.slider.value == 0.4
        for _ in range(8):
            await pilot.press("right")
        assert app.slider.value == 1.0  # clamped at the maximum
        await pilot.press("right")
        assert app.slider.value == 1.0


async def test_shift_arrows_take_big_steps() -> None:
    app = SliderApp(make(value=5, minimum=0, maximum=100, step=1, big_step=25, fmt="{:.0f}"))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        await pilot.press("shift+right")
        assert app.slider.value == 30
        await pilot.press("shift+left", "shift+left")
        assert app.slider.value == 0  # clamped
        for _ in range(5):
            await pilot.press("shift+right")
        assert app.slider.value == 100


async def test_default_big_step_is_ten_steps() -> None:
    app = SliderApp(make(value=0.0, step=0.01))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        await pilot.press("shift+right")
        assert app.slider.value == 0.1


async def test_home_and_end() -> None:
    app = SliderApp(make(minimum=0.2, maximum=0.9))
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        assert app.changes == []  # mounting posts nothing
        await _ready(pilot, app)
        await pilot.press("end")
        assert app.slider.value == 0.9
        await pilot.press("home")
        assert app.slider.value == 0.2
        assert app.changes == [("s", 0.9), ("s", 0.2)]


async def test_float_steps_stay_clean() -> None:
    app = SliderApp(make(value=0.0, step=0.1))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        seen = []
        for _ in range(10):
            await pilot.press("right")
            seen.append(app.slider.value)
        # No 0.30000000000000004 or 0.7999999999999999.
        assert seen == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def test_values_snap_to_the_step_and_clamp() -> None:
    s = make(step=0.05)
    s.value = 0.43
    assert s.value == 0.45
    s.value = 0.1 + 0.2
    assert s.value == 0.3
    s.value = -3
    assert s.value == 0.0
    s.value = 7
    assert s.value == 1.0
    s.value = float("nan")
    assert s.value == 0.0
    odd = make(value=0.37, minimum=0.02, maximum=0.97, step=0.05)
    assert odd.value == 0.37  # 0.02 + 7 * 0.05, on the grid
    odd.value = 0.4
    assert odd.value == 0.42
    assert make(value=0.33).value == 0.3  # the constructor snaps too


def test_an_off_grid_maximum_is_reachable_and_stepping_down_lands_on_the_grid() -> None:
    s = make(value=0.0, step=0.3)  # grid 0, 0.3, 0.6, 0.9, then the maximum 1.0
    s.value = 1.0
    assert s.value == 1.0
    s.action_step(-1)
    assert s.value == 0.9
    s.action_step(1)
    assert s.value == 1.0
    s.value = 0.97
    assert s.value == 1.0  # nearer the maximum than 0.9


def test_invalid_ranges_are_rejected() -> None:
    with pytest.raises(ValueError, match="below its minimum"):
        Slider(0, 1, 0, 0.1)
    with pytest.raises(ValueError, match="step must be > 0"):
        Slider(0, 0, 1, 0)


async def test_click_on_the_track_sets_the_value_at_that_cell() -> None:
    app = SliderApp(make(value=0.0, step=0.01))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        assert app.slider.knob_cell() == TRACK_START
        # Cell 32 is 22 of 43 cells along: 22/43 = 0.5116... -> 0.51.
        await pilot.click(Slider, offset=(32, 0))
        assert app.slider.value == 0.51
        assert app.slider.knob_cell() == 32
        await pilot.click(Slider, offset=(TRACK_END, 0))
        assert app.slider.value == 1.0
        # The label is not the track: a click there changes nothing.
        await pilot.click(Slider, offset=(3, 0))
        assert app.slider.value == 1.0
        await pilot.click(Slider, offset=(TRACK_START, 0))
        assert app.slider.value == 0.0
        assert app.changes == [("s", 0.51), ("s", 1.0), ("s", 0.0)]


async def test_click_focuses_the_slider() -> None:
    app = SliderApp(make())
    async with app.run_test(size=(60, 5)) as pilot:
        app.set_focus(None)
        await pilot.pause()
        await pilot.click(Slider, offset=(20, 0))
        assert app.slider.has_focus


async def test_drag_moves_the_value_and_release_stops_it() -> None:
    app = SliderApp(make(value=0.0, step=0.01))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        await pilot.mouse_down(Slider, offset=(TRACK_START, 0))
        assert app.mouse_captured is app.slider
        await pilot.hover(Slider, offset=(TRACK_START + 10, 0))  # 10/43 = 0.2325...
        assert app.slider.value == 0.23
        await pilot.hover(Slider, offset=(TRACK_START + 30, 0))  # 30/43 = 0.6976...
        assert app.slider.value == 0.7
        # Past the end of the track (over the value) still drags, clamped to the maximum.
        await pilot.hover(Slider, offset=(58, 0))
        assert app.slider.value == 1.0
        await pilot.mouse_up(Slider, offset=(58, 0))
        assert app.mouse_captured is None
        await pilot.hover(Slider, offset=(TRACK_START + 5, 0))
        assert app.slider.value == 1.0  # no longer dragging
        assert [v for _, v in app.changes] == [0.23, 0.7, 1.0]


async def test_mouse_wheel_steps() -> None:
    app = SliderApp(make())
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        await pilot._post_mouse_events([MouseScrollUp], Slider, offset=(20, 0))
        assert app.slider.value == 0.6
        await pilot._post_mouse_events([MouseScrollDown], Slider, offset=(20, 0))
        await pilot._post_mouse_events([MouseScrollDown], Slider, offset=(20, 0))
        assert app.slider.value == 0.4
        await pilot._post_mouse_events([MouseScrollUp], Slider, offset=(20, 0), shift=True)
        assert app.slider.value == 1.0  # shift: a big step, clamped


async def test_changed_is_posted_once_per_change_with_the_value() -> None:
    app = SliderApp(make())
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        await pilot.press("right", "right", "left")
        await pilot.pause()
        assert app.changes == [("s", 0.6), ("s", 0.7), ("s", 0.6)]
        app.changes.clear()
        await pilot.press("home", "home", "left")  # at the minimum: nothing changes
        await pilot.pause()
        assert app.changes == [("s", 0.0)]
        app.changes.clear()
        app.slider.value = 0.0  # same value: no message
        app.slider.value = 0.0001  # snaps to 0.0: no message
        app.slider.value = 0.8
        await pilot.pause()
        assert app.changes == [("s", 0.8)]


async def test_setting_without_a_message() -> None:
    app = SliderApp(make())
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        with app.slider.prevent(Slider.Changed):
            app.slider.value = 0.9
        app.slider.set_value(0.2, notify=False)
        await pilot.pause()
        assert app.slider.value == 0.2
        assert app.changes == []
        app.slider.set_value(0.3)
        await pilot.pause()
        assert app.changes == [("s", 0.3)]


async def test_disabled_slider_ignores_keys_and_mouse() -> None:
    app = SliderApp(make(disabled=True))
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.press("right", "end")
        await pilot.click(Slider, offset=(40, 0))
        await pilot.pause()
        assert app.slider.value == 0.5
        assert app.changes == []


async def test_rendered_line_holds_label_track_and_value() -> None:
    app = SliderApp(make(step=0.05, value=0.25))
    async with app.run_test(size=(60, 5)):
        line = app.slider.render().plain
        assert len(line) == 60
        assert line.startswith("std_k     ━")
        assert line.endswith("  0.25")
        assert line.count("●") == 1
        knob = line.index("●")
        assert knob == app.slider.knob_cell() == TRACK_START + round(0.25 * 43)
        assert set(line[TRACK_START:knob] + line[knob + 1 : TRACK_END + 1]) == {"━"}


async def test_infinity_at_the_maximum_and_callable_formats() -> None:
    passes = make(value=20, minimum=1, maximum=20, step=1, fmt="{:.0f}", inf_at_max=True)
    app = SliderApp(passes)
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        assert app.slider.render().plain.endswith(" ∞")
        assert app.slider.at_maximum
        await pilot.press("left")
        assert app.slider.value == 19
        assert app.slider.render().plain.endswith(" 19")
        app.slider._fmt = lambda v: f"{v:.0f} passes"
        assert app.slider.render().plain.endswith(" 19 passes")


async def test_value_column_is_right_aligned_and_stable() -> None:
    app = SliderApp(make(value=5, minimum=0, maximum=1000, step=5, fmt="{:.0f}"))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        before = app.slider.render().plain
        assert before.endswith("     5")
        await pilot.press("end")
        after = app.slider.render().plain
        assert after.endswith("  1000")
        # The track keeps its width whatever the value's width.
        assert before.rindex("━") == after.index("●") == TRACK_END


async def test_focus_colours_the_track_with_the_accent() -> None:
    app = SliderApp(make())
    async with app.run_test(size=(60, 5)) as pilot:
        app.set_focus(None)
        await pilot.pause()
        accent = Color.parse(app.theme_variables["accent"]).rich_color
        unfocused = app.slider.get_component_rich_style("slider--knob").color
        assert unfocused != accent
        app.slider.focus()
        await pilot.pause()
        assert app.slider.get_component_rich_style("slider--knob").color == accent
        assert app.slider.get_component_rich_style("slider--filled").color == accent


async def test_narrow_slider_keeps_a_track() -> None:
    app = SliderApp(make(label="a very long label", label_width=20))
    async with app.run_test(size=(20, 5)):
        line = app.slider.render().plain
        assert len(line) == 20
        assert "●" in line
        assert line.endswith("0.50")


async def test_configure_reclamps_the_value_and_reports_it() -> None:
    app = SliderApp(make(value=0.8))
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        app.slider.configure(maximum=0.5, step=0.25)
        await pilot.pause()
        assert app.slider.value == 0.5
        assert app.changes == [("s", 0.5)]
        await pilot.press("left")
        assert app.slider.value == 0.25
        assert app.slider.render().plain.endswith("  0.25")


async def test_sliders_with_one_label_width_line_up() -> None:
    class Two(App[None]):
        def compose(self) -> ComposeResult:
            yield Slider(0.0, label="k", label_width=12, id="a")
            yield Slider(0.0, label="max size", label_width=12, id="b")

    app = Two()
    async with app.run_test(size=(60, 5)):
        a, b = (app.query_one(f"#{i}", Slider).render().plain for i in "ab")
        assert a.index("●") == b.index("●") == 12


async def test_exact_values_stay_between_steps_until_a_key_moves_to_the_grid() -> None:
    app = SliderApp(
        # a range whose steps of 50 each move the knob on this track (walk 16, 12)
        make(value=1234, minimum=100, maximum=2000, step=50, fmt="{:.0f}", exact_values=True)
    )
    async with app.run_test(size=(60, 5)) as pilot:
        await _ready(pilot, app)
        slider = app.slider
        assert slider.value == 1234  # the constructor keeps it
        assert slider.format_value() == "1234"
        slider.set_value(1321, notify=False)
        assert slider.value == 1321 and app.changes == []
        await pilot.press("right")
        assert slider.value == 1350  # the next step up, not 1371
        slider.set_value(1321, notify=False)
        await pilot.press("left")
        assert slider.value == 1300  # the next step down
        slider.value = 99_999
        assert slider.value == 2000  # still clamped
        slider.value = float("nan")
        assert slider.value == 100
    assert make(value=0.33).value == 0.3  # without exact_values, values snap


async def test_a_size_cap_steps_visibly_and_big_steps_come_back() -> None:
    """Issue 35: the size cap in chars (256 to 32768) on the 160x48 panel's track: six
    steps down each move the knob, and big steps down then as many up come back to
    8192 (equal steps of 256 moved the knob less than a cell, and a big step of 2048
    stopped at the minimum on its way down). Walk 16, 12: a step of the grid (8192 to
    7168) still moved no knob on this 19-cell track: a step is two of the grid's here,
    the fewest that always move it (8192, 6144, 4096, 3072, ...). Walk 34, F6: a big step
    was a doubling here, so eight of them stopped at the minimum and eight up went to
    no cap; it is half a doubling, as on a wider track, and eight come back."""
    from chunkscope.engine.params import knob_map
    from chunkscope.engine.segment.merge import MergeParams
    from chunkscope.tui.widgets.slider import knob_slider

    k = knob_map(MergeParams)["max_chunk_chars"]
    app = SliderApp(knob_slider(k, k.default, label_width=11, value_width=6, id="s"))
    async with app.run_test(size=(38, 3)) as pilot:
        await _ready(pilot, app)
        slider = app.slider
        assert slider.value == 8192
        cells, shown = [slider.knob_cell()], [slider.format_value()]
        for _ in range(6):
            await pilot.press("left")
            cells.append(slider.knob_cell())
            shown.append(slider.format_value())
        # Every step shows a new value and moves the knob (19 cells for 29 grid points)
        assert shown == ["8192", "6144", "4096", "3072", "2048", "1536", "1024"], shown
        assert all(a > b for a, b in itertools.pairwise(cells)), cells
        await pilot.press("end")
        await pilot.press("home", "right")
        assert slider.value == 384  # 256 * 1.5: two of the grid's steps keep the ratio
        slider.value = 8192
        await pilot.press(*["shift+left"] * 4)
        assert slider.value == 2048
        await pilot.press(*["shift+left"] * 4)
        assert slider.value == 512
        await pilot.press(*["shift+right"] * 8)
        assert slider.value == 8192
        slider.value = 5000  # a profile's value between steps snaps to the nearest
        assert slider.value == 5120
