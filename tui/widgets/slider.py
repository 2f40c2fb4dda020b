"""A one-line slider for float values (Textual has none).

    std_k     ━━━━━━━━●━━━━━━━━━━  0.50

Keys: left / right one step, shift+left / shift+right a big step, home / end the ends.
A step always moves the knob a cell at least: on a track narrower than the range has
steps, it is the least whole number of steps that does (`Slider.visible_step`), taken
from the value shown, so a step and a step back come back to it.
Mouse: click on the track to jump there, drag the knob, scroll the wheel to step.
Every change of `value` posts ``Slider.Changed``; set a value without one with
``with slider.prevent(Slider.Changed): slider.value = x`` (or ``set_value(x, notify=False)``).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from chunkscope.engine.params import Knob, geometric_grid
from chunkscope.tui.keys import control_moved

Formatter = Callable[[float], str] | str

_MAX_DECIMALS = 12
_GAP_AFTER_LABEL = 1
_GAP_BEFORE_VALUE = 2
_MIN_TRACK = 3


def _decimals(x: float) -> int:
    """How many decimals `x` needs (0.05 -> 2, 1e-07 -> 7, 3.0 -> 0)."""
    if not math.isfinite(x):
        return 0
    try:
        exponent = Decimal(repr(x)).normalize().as_tuple().exponent
    except InvalidOperation:  # pragma: no cover - repr of a finite float always parses
        return _MAX_DECIMALS
    if not isinstance(exponent, int) or exponent >= 0:
        return 0
    return min(-exponent, _MAX_DECIMALS)


class Slider(Widget, can_focus=True):
    """A horizontal slider over ``[minimum, maximum]`` in steps of `step`.

    Component classes (style them in CSS as ``Slider > .slider--filled`` etc.):

    | class | part |
    |---|---|
    | ``slider--label`` | the label on the left |
    | ``slider--filled`` | the track left of the knob |
    | ``slider--knob`` | the knob |
    | ``slider--track`` | the track right of the knob |
    | ``slider--value`` | the formatted value on the right |
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "slider--label",
        "slider--filled",
        "slider--knob",
        "slider--track",
        "slider--value",
    }

    DEFAULT_CSS = """
    Slider {
        width: 1fr;
        height: 1;
        min-width: 12;

        & > .slider--label { color: $foreground-muted; }
        & > .slider--filled { color: $primary; }
        & > .slider--knob { color: $foreground; text-style: bold; }
        & > .slider--track { color: $foreground 30%; }
        & > .slider--value { color: $foreground; }

        &:hover {
            & > .slider--knob { color: $accent; }
            & > .slider--label { color: $foreground; }
        }
        &:focus {
            & > .slider--label { color: $foreground; text-style: bold; }
            & > .slider--filled { color: $accent; }
            & > .slider--knob { color: $accent; text-style: bold; }
            & > .slider--track { color: $foreground 42%; }
            & > .slider--value { color: $text-accent; text-style: bold; }
        }
        &:disabled {
            & > .slider--label { color: $foreground-disabled; text-style: none; }
            & > .slider--filled { color: $foreground-disabled; }
            & > .slider--knob { color: $foreground-disabled; text-style: none; }
            & > .slider--track { color: $foreground 10%; }
            & > .slider--value { color: $foreground-disabled; text-style: none; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "less", show=False),
        Binding("right", "step(1)", "more", show=False),
        Binding("shift+left", "big_step(-1)", "much less", show=False),
        Binding("shift+right", "big_step(1)", "much more", show=False),
        Binding("home", "to_minimum", "minimum", show=False),
        Binding("end", "to_maximum", "maximum", show=False),
    ]

    class Changed(Message):
        """The slider's value changed (by the user or by code)."""

        def __init__(self, slider: Slider, value: float) -> None:
            self.slider = slider
            self.value = value
            super().__init__()

        @property
        def control(self) -> Slider:
            """The slider that changed (for ``@on(Slider.Changed, "#id")``)."""
            return self.slider

    value: reactive[float] = reactive(0.0, init=False)
    """The current value: always within ``[minimum, maximum]``, and on a step unless
    ``exact_values`` let the program set one between steps."""

    label: reactive[str] = reactive("", layout=False)
    """The text on the left."""

    label_width: reactive[int | None] = reactive(None)
    """Cells given to the label column (None: the label's width plus one)."""

    def __init__(
        self,
        value: float = 0.0,
        minimum: float = 0.0,
        maximum: float = 1.0,
        step: float = 0.01,
        *,
        big_step: float | None = None,
        label: str = "",
        fmt: Formatter = "{:.2f}",
        label_width: int | None = None,
        value_width: int | None = None,
        inf_at_max: bool = False,
        exact_values: bool = False,
        per_doubling: int = 0,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """A slider.

        Args:
            value: The initial value (clamped and snapped to a step).
            minimum: The smallest value.
            maximum: The largest value (always reachable, even when off the step grid).
            step: One step (left / right, the wheel); values snap to ``minimum + k * step``.
            big_step: One big step (shift+left / shift+right); default ``10 * step``.
            label: Text shown on the left.
            fmt: A format string such as ``"{:.2f}"`` or a function of the value.
            label_width: Cells for the label column; give sliders stacked in one panel the
                same width so their tracks line up.
            value_width: Cells for the value column (default: wide enough for the ends).
            inf_at_max: Show ``∞`` at the maximum (e.g. "max passes": no limit).
            exact_values: A value set by the program (``set_value``, e.g. one the user
                typed) stays as it is, between steps, instead of snapping; keys, the
                wheel and the mouse still move to steps.
            per_doubling: Geometric steps (`geometric_grid`): this many from ``minimum``
                times a power of two to the next power, the track a log scale, a big
                step half a doubling; `step` and `big_step` are then not used. For a
                range of many doublings (a size cap from 256 to 32768 chars), where
                equal steps were invisible at the small end of the track and a big
                step down and back up ended elsewhere once it had hit the minimum.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._minimum = 0.0
        self._maximum = 1.0
        self._step = 0.01
        self._big_step: float | None = None
        self._fmt: Formatter = fmt
        self._inf_at_max = inf_at_max
        self._value_width_override = value_width
        self._dragging = False
        self._exact_values = exact_values
        self._per_doubling = per_doubling
        self._grid: list[float] = []
        self._apply_range(minimum, maximum, step, big_step)
        self.set_reactive(Slider.value, self.validate_value(value))
        self.set_reactive(Slider.label, label)
        self.set_reactive(Slider.label_width, label_width)

    # ------------------------------------------------------------------ range and snapping

    @property
    def minimum(self) -> float:
        return self._minimum

    @property
    def maximum(self) -> float:
        return self._maximum

    @property
    def step(self) -> float:
        return self._step

    @property
    def big_step(self) -> float:
        return self._big_step if self._big_step is not None else 10 * self._step

    @property
    def inf_at_max(self) -> bool:
        return self._inf_at_max

    @property
    def at_maximum(self) -> bool:
        """True when the value is the maximum (``∞`` when `inf_at_max`)."""
        return self.value >= self._maximum

    def _apply_range(
        self, minimum: float, maximum: float, step: float, big_step: float | None
    ) -> None:
        minimum, maximum, step = float(minimum), float(maximum), float(step)
        if not (math.isfinite(minimum) and math.isfinite(maximum)):
            raise ValueError(f"slider bounds must be finite, got {minimum!r}..{maximum!r}")
        if maximum < minimum:
            raise ValueError(f"slider maximum {maximum!r} is below its minimum {minimum!r}")
        if not (math.isfinite(step) and step > 0):
            raise ValueError(f"slider step must be > 0, got {step!r}")
        if big_step is not None and not (math.isfinite(big_step) and big_step > 0):
            raise ValueError(f"slider big_step must be > 0, got {big_step!r}")
        self._minimum, self._maximum, self._step = minimum, maximum, step
        self._big_step = None if big_step is None else float(big_step)
        self._digits = max(_decimals(step), _decimals(minimum))
        if self._per_doubling > 0:
            if minimum <= 0:
                raise ValueError(f"a geometric slider needs a minimum > 0, got {minimum!r}")
            self._grid = geometric_grid(minimum, maximum, self._per_doubling)

    def configure(
        self,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
        step: float | None = None,
        big_step: float | None = None,
    ) -> None:
        """Change the range or steps; the value is clamped and snapped to the new grid."""
        self._apply_range(
            self._minimum if minimum is None else minimum,
            self._maximum if maximum is None else maximum,
            self._step if step is None else step,
            self._big_step if big_step is None else big_step,
        )
        self.value = self.value  # re-validate (posts Changed if it moved)
        self.refresh()

    def _clean(self, x: float) -> float:
        return round(x, self._digits) + 0.0  # + 0.0 turns -0.0 into 0.0

    def _snap(self, value: float) -> float:
        """Clamp to the range and snap to the nearest step (or to the maximum)."""
        lo, hi, step = self._minimum, self._maximum, self._step
        v = float(value)
        if math.isnan(v):
            v = lo
        v = min(max(v, lo), hi)
        if self._grid:
            grid = self._grid
            i = bisect.bisect_left(grid, v)
            if i == 0 or (i < len(grid) and grid[i] - v <= v - grid[i - 1]):
                return grid[min(i, len(grid) - 1)]
            return grid[i - 1]
        snapped = min(max(self._clean(lo + round((v - lo) / step) * step), lo), hi)
        if abs(hi - v) < abs(v - snapped):
            return hi
        return snapped

    def validate_value(self, value: float) -> float:
        if self._exact_values:
            v = float(value)
            return self._clean(
                min(max(self._minimum if math.isnan(v) else v, self._minimum), self._maximum)
            )
        return self._snap(value)

    def _grid_moved(self, steps: int) -> float:
        """The value `steps` points of the geometric grid away (from a value between two
        points, the first step lands on the point in that direction)."""
        grid, v = self._grid, self.value
        if steps > 0:
            index = bisect.bisect_right(grid, v + 1e-9) - 1 + steps
        else:
            index = bisect.bisect_left(grid, v - 1e-9) + steps
        return grid[min(max(index, 0), len(grid) - 1)]

    def _track_cells(self) -> int:
        """The track's cells as laid out (0 before the slider has a size)."""
        width = self.content_size.width
        return self._geometry(width)[2] if width > 0 else 0

    def visible_step(self) -> float:
        """The step ← → take: `step`, or on a track too narrow for the range's steps the
        least multiple of it that moves the knob a cell (a sliding window's 16 tokens on
        a range of 4000 moved nothing on a 25-cell track)."""
        cells = self._track_cells() - 1
        span = self._maximum - self._minimum
        if cells <= 0 or span <= 0:
            return self._step
        per_cell = span / cells
        return self._step * max(1, math.ceil(per_cell / self._step - 1e-9))

    def grid_stride(self) -> int:
        """How many points of the geometric grid ← → move: 1, or on a narrow track the
        fewest, from a divisor of `per_doubling` up to whole doublings (round values:
        8192 to 4096), that move the knob a cell anywhere on the track (the steps within
        a doubling are equal, so their ratios, the track's distances, shrink upwards:
        8192 to 7168 moved nothing on a 17-cell track of 256 to 32768)."""
        grid, cells = self._grid, self._track_cells() - 1
        if cells <= 0 or len(grid) < 2:
            return 1
        scale = cells / math.log(self._maximum / self._minimum)
        at = [math.log(g / self._minimum) * scale for g in grid]
        k = self._per_doubling
        strides = sorted({d for d in range(1, k + 1) if k % d == 0} | {k << j for j in range(8)})
        for m in strides:
            if m >= len(at) or all(b - a >= 1 - 1e-9 for a, b in zip(at, at[m:], strict=False)):
                return m
        return len(at) - 1

    def _moved(self, amount: float, steps: int) -> float:
        """The value `steps` grid points of size `amount` away (leaving off-grid ends)."""
        if self._grid:
            return self._grid_moved(steps)
        lo = self._minimum
        position = (self.value - lo) / amount
        if steps > 0:
            index = math.floor(position + 1e-9) + steps
        else:
            index = math.ceil(position - 1e-9) + steps
        return self._snap(lo + index * amount)

    def set_value(self, value: float, *, notify: bool = True) -> None:
        """Set the value; with ``notify=False`` no ``Changed`` is posted."""
        if notify:
            self.value = value
        else:
            with self.prevent(Slider.Changed):
                self.value = value

    def format_value(self, value: float | None = None) -> str:
        """The value as shown on the right."""
        v = self.value if value is None else value
        if self._inf_at_max and v >= self._maximum:
            return "∞"
        fmt = self._fmt
        return fmt(v) if callable(fmt) else fmt.format(v)

    # ------------------------------------------------------------------ reactive plumbing

    def watch_value(self, old: float, new: float) -> None:
        if not self._is_prevented(Slider.Changed):  # (a value put, not a move)
            control_moved(self)
        self.post_message(self.Changed(self, new))

    # ------------------------------------------------------------------ actions

    def _stepped(self, direction: int) -> float:
        """The value one step (`visible_step`, `grid_stride`) in `direction` away."""
        sign = 1 if direction > 0 else -1
        if self._grid:
            return self._grid_moved(self.grid_stride() * sign)
        step = self.visible_step()
        if step == self._step or self._snap(self.value) != self.value:
            return self._moved(step, sign)  # a value between steps: to the next one
        # from the value itself (on the steps' grid): a step and a step back come back
        return self._snap(self.value + sign * step)

    def action_step(self, direction: int) -> None:
        self.value = self._stepped(direction)

    def action_big_step(self, direction: int) -> None:
        if self._grid:  # half a doubling, or a step where that moves no knob: eight down,
            # eight up come back from the default (a doubling stopped at the minimum)
            points = max(self.grid_stride(), self._per_doubling // 2, 1)
            self.value = self._grid_moved(points * direction)
            return
        # Big steps stay on the small-step grid: move by big_step, then snap; on a
        # narrow track, two steps at least (`visible_step`).
        step = self.visible_step()
        big = self.big_step if step == self._step else max(self.big_step, 2 * step)
        target = self.value + (big if direction > 0 else -big)
        if direction > 0 and self.value < self._maximum:
            self.value = max(self._stepped(1), self._snap(target))
        elif direction < 0 and self.value > self._minimum:
            self.value = min(self._stepped(-1), self._snap(target))

    def action_to_minimum(self) -> None:
        self.value = self._minimum

    def action_to_maximum(self) -> None:
        self.value = self._maximum

    # ------------------------------------------------------------------ geometry

    def _value_width(self) -> int:
        if self._value_width_override is not None:
            return self._value_width_override
        samples = [self._minimum, self._maximum, self._snap(self._maximum - self._step), self.value]
        return max(cell_len(self.format_value(v)) for v in samples)

    def _label_width(self) -> int:
        if self.label_width is not None:
            return self.label_width
        return cell_len(self.label) + _GAP_AFTER_LABEL if self.label else 0

    def _geometry(self, width: int) -> tuple[int, int, int, int]:
        """(label cells, track start, track cells, value cells) for a line of `width`."""
        value_w = self._value_width()
        label_w = self._label_width()
        track_w = width - label_w - _GAP_BEFORE_VALUE - value_w
        if track_w < _MIN_TRACK:  # narrow: give up label cells first
            label_w = max(0, label_w - (_MIN_TRACK - track_w))
            track_w = max(1, width - label_w - _GAP_BEFORE_VALUE - value_w)
        return label_w, label_w, track_w, value_w

    def _fraction(self) -> float:
        span = self._maximum - self._minimum
        if span <= 0:
            return 0.0
        if self._grid:  # a log scale: every step the same distance along the track
            return math.log(self.value / self._minimum) / math.log(self._maximum / self._minimum)
        return (self.value - self._minimum) / span

    def _knob(self, track_w: int) -> int:
        """The knob's cell on a track of `track_w` cells: halves rounded up (a step of a
        cell from 1.5 to 2.5 moved nothing when both rounded to 2)."""
        return math.floor(self._fraction() * (track_w - 1) + 0.5)

    def knob_cell(self, width: int | None = None) -> int:
        """The knob's cell within the content line (for tests and overlays)."""
        _, start, track_w, _ = self._geometry(self.content_size.width if width is None else width)
        return start + self._knob(track_w)

    def value_at(self, x: int, width: int | None = None) -> float:
        """The value a click at content cell `x` selects (clamped to the track's ends)."""
        _, start, track_w, _ = self._geometry(self.content_size.width if width is None else width)
        if track_w <= 1:
            return self.value
        fraction = min(max((x - start) / (track_w - 1), 0.0), 1.0)
        if self._grid:
            return self._snap(self._minimum * (self._maximum / self._minimum) ** fraction)
        return self._snap(self._minimum + fraction * (self._maximum - self._minimum))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._label_width() + 20 + _GAP_BEFORE_VALUE + self._value_width()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1

    # ------------------------------------------------------------------ rendering

    def render(self) -> Text:
        width = self.content_size.width
        label_w, _, track_w, value_w = self._geometry(width)
        label_style = self.get_component_rich_style("slider--label")
        filled_style = self.get_component_rich_style("slider--filled")
        knob_style = self.get_component_rich_style("slider--knob")
        track_style = self.get_component_rich_style("slider--track")
        value_style = self.get_component_rich_style("slider--value")

        line = Text(no_wrap=True, overflow="crop", end="")
        if label_w:
            label = Text(self.label, style=label_style, no_wrap=True, overflow="ellipsis")
            label.truncate(max(label_w - _GAP_AFTER_LABEL, 1), overflow="ellipsis")
            label.pad_right(label_w - label.cell_len)
            line.append_text(label)
        knob = self._knob(track_w)
        line.append("━" * knob, filled_style)
        line.append("●", knob_style)
        line.append("━" * (track_w - knob - 1), track_style)
        shown = self.format_value()
        line.append(" " * (_GAP_BEFORE_VALUE + max(0, value_w - cell_len(shown))))
        line.append(shown, value_style)
        return line

    # ------------------------------------------------------------------ mouse

    def _content_x(self, event: events.MouseEvent) -> int:
        return event.get_content_offset_capture(self).x

    def _on_track(self, x: int) -> bool:
        _, start, track_w, _ = self._geometry(self.content_size.width)
        return start <= x < start + track_w

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if self.disabled or event.button != 1:
            return
        x = self._content_x(event)
        if not self._on_track(x):
            return
        event.stop()
        self.focus()
        self._dragging = True
        self.capture_mouse()
        self.value = self.value_at(x)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            event.stop()
            self.value = self.value_at(self._content_x(event))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            event.stop()
            self._dragging = False
            self.release_mouse()

    def on_mouse_release(self, event: events.MouseRelease) -> None:
        self._dragging = False

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.disabled:
            return
        event.stop()
        event.prevent_default()
        if event.shift:
            self.action_big_step(1)
        else:
            self.action_step(1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self.disabled:
            return
        event.stop()
        event.prevent_default()
        if event.shift:
            self.action_big_step(-1)
        else:
            self.action_step(-1)


# --------------------------------------------------------------------------- knobs


def knob_position(knob: Knob, value: Any, *, in_force: bool = True) -> float:
    """Where `knob`'s slider sits for `value` (its declared `SliderSpec`). A knob of an
    exclusive group (the size cap in chars or tokens) that is not the one `in_force`
    sits, while None, where choosing it starts (its ``start``, else its default): the
    open value would make choosing it mean no cap."""
    spec = knob.slider
    assert spec is not None, f"knob {knob.name} has no slider"
    if value is None and not in_force:
        start = spec.start if spec.start is not None else knob.default
        if isinstance(start, int | float):
            return float(start)
    if value is None or (isinstance(value, float) and math.isinf(value)):
        return spec.hi if spec.open_at_max else (spec.start if spec.start is not None else spec.lo)
    if isinstance(value, str):  # a word such as "adaptive"
        return spec.start if spec.start is not None else spec.lo
    if spec.open_at_max and value > spec.hi:
        return spec.hi
    return float(value)


def knob_value(knob: Knob, position: float) -> Any:
    """The knob's value for a slider position: the open value (None, or inf) at the end of
    a slider whose last position stands for it, else the position as the knob's type."""
    spec = knob.slider
    assert spec is not None, f"knob {knob.name} has no slider"
    if spec.open_at_max and (math.isinf(position) or position >= spec.hi - spec.step / 2):
        return None if knob.nullable else math.inf
    return round(position) if knob.kind == "int" else round(position, 4)


def knob_slider(knob: Knob, value: Any, *, in_force: bool = True, **kwargs: Any) -> Slider:
    """A slider for `knob`, from its declaration (range, steps, label, format); `in_force`
    as in `knob_position`."""
    spec = knob.slider
    assert spec is not None, f"knob {knob.name} has no slider"
    return Slider(
        knob_position(knob, value, in_force=in_force),
        spec.lo,
        spec.hi,
        spec.step,
        big_step=spec.big,
        label=spec.label or knob.name,
        fmt=spec.shown if spec.at_lo else spec.fmt,
        inf_at_max=spec.open_at_max,
        per_doubling=spec.per_doubling,
        **kwargs,
    )
