"""The sweep panel: the merged chunk count (and Pk, with topic marks) across the range
of the knob the user is tuning, with the current value marked.

It only draws a `SweepResult`; the app computes one in a worker
(`tui.workbench.sweep.SweepDriver`) after every run and whenever another slider is
focused. Plain text, never markup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from chunkscope.engine.evaluate.measure import score_text, sparkline
from chunkscope.tui.widgets.rows import put_text

LABEL = 7  # "chunks " / "Pk     "
NUMBER = 5  # the column of the numbers at the value in force ("0.573")
#: The fewest points a row shows to keep the numbers at its end; a narrower panel gives
#: the row every point it has room for and the numbers follow the marker.
COLUMN_POINTS = 12


@dataclass(frozen=True)
class SweepResult:
    """One sweep: the knob, its values, the chunk count (and Pk) at each, and the value
    in force."""

    knob: str
    label: str
    values: list[Any]
    chunks: list[int]
    pk: list[float] | None
    current: Any
    fmt: str = "{:g}"

    def at_current(self) -> int | None:
        """The point nearest the value in force (None when it is a word: ``adaptive``).
        The open value of a slider's last position (∞: None or inf) is the last point."""
        if _is_open(self.current):
            return len(self.values) - 1 if self.values and _is_open(self.values[-1]) else None
        points = [i for i, v in enumerate(self.values) if not _is_open(v)]
        if not isinstance(self.current, int | float) or not points:
            return None
        return min(points, key=lambda i: abs(self.values[i] - self.current))


def _is_open(value: Any) -> bool:
    """The open value a slider's last position stands for (no cap: None, never: inf)."""
    return value is None or (isinstance(value, float) and math.isinf(value))


def _show(fmt: str, value: Any) -> str:
    if _is_open(value):
        return "∞"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def _rule(title: str, width: int) -> Text:
    """A rule with `title`: it parts the sweep from the merge panel's lines above
    without a blank row (the column is full when topic marks add the score)."""
    text = Text("─ ", style="dim")
    text.append(title, style="bold")
    text.append(" " + "─" * max(0, width - len(title) - 3), style="dim")
    return text


def shown_points(count: int, room: int, keep: int | None) -> list[int]:
    """Which of `count` points a row of `room` cells shows: all when they fit, else
    `room` of them evenly spread, `keep` (the point in force) always among them."""
    if count <= room:
        return list(range(count))
    room = max(room, 1)
    picks = sorted({round(k * (count - 1) / max(room - 1, 1)) for k in range(room)})
    if keep is not None and keep not in picks:
        nearest = min(range(len(picks)), key=lambda p: abs(picks[p] - keep))
        picks[nearest] = keep
        picks.sort()
    return picks


def sweep_picks(result: SweepResult, width: int) -> tuple[list[int], bool]:
    """The points of `result` a panel `width` cells wide shows, and whether the numbers
    at the value in force end their rows (the column). The column comes first: a row
    too short for every point and the numbers gives up points, evenly spread, the one
    in force kept (`shown_points`), as long as `COLUMN_POINTS` are left. Beside the
    merge panel's scrollbar the rows are two cells narrower than the sweep was made for,
    and the numbers were the ones left out (walk 54, F5)."""
    i = result.at_current()
    count = len(result.values)
    room = width - LABEL
    if i is not None and count + 1 + NUMBER > room and room - 1 - NUMBER >= COLUMN_POINTS:
        room -= 1 + NUMBER
    picks = shown_points(count, room, i)
    return picks, i is not None and LABEL + len(picks) + 1 + NUMBER <= width


def sweep_text(result: SweepResult | None, busy: bool = False, width: int = 38) -> Text:
    """The panel's text for `result`, fitted to `width` cells."""
    if result is None:
        return _rule("SWEEP computing…" if busy else "SWEEP", width)
    lo, hi = result.values[0], result.values[-1]
    head = f"SWEEP {result.label} {_show(result.fmt, lo)} → {_show(result.fmt, hi)}"
    text = _rule(head + (" …" if busy else ""), width)
    i = result.at_current()
    # a sweep made for a wider panel (the terminal made smaller, the tab become a side
    # column, the panel's scrollbar shown) shows as many of its points as fit beside the
    # numbers at the value in force, the one in force among them
    picks, column = sweep_picks(result, width)
    series = [("chunks", [float(result.chunks[p]) for p in picks], "")]
    if result.pk is not None:
        series.append(("Pk", [result.pk[p] for p in picks], ""))
    if i is not None:
        series[0] = (*series[0][:2], str(result.chunks[i]))
        if result.pk is not None:
            series[1] = (*series[1][:2], score_text(result.pk[i]))
    # The numbers at the value in force end their series' rows (`sweep_picks`); in a
    # panel too narrow for them and `COLUMN_POINTS` points they follow the marker.
    for name, values, number in series:
        text.append(f"\n{name:<{LABEL}}")
        text.append(sparkline(values), style="bold")
        if column:
            text.append(f" {number:>{NUMBER}}")
    now = f"now {_show(result.fmt, result.current)}"
    if i is None:
        text.append(f"\n{now}: no point of the sweep", style="dim")
        return text
    if not column:
        now += f": {result.chunks[i]} chunks"
        if result.pk is not None:
            now += f" · Pk {score_text(result.pk[i])}"
    # The value goes beside the marker, on the side with room, else on a row of its own.
    at = LABEL + picks.index(i)
    if at + 2 + len(now) <= width:
        text.append("\n" + " " * at + "▲", style="bold")
        text.append(" " + now, style="dim")
    elif len(now) + 1 <= at:
        text.append("\n" + now, style="dim")
        text.append(" " * (at - len(now)) + "▲", style="bold")
    else:
        text.append("\n" + " " * at + "▲", style="bold")
        text.append("\n" + now, style="dim")
    return text


#: What a sweep panel shows (`SweepPanel.state`): its result, busy, why it is off.
SweepState = tuple[SweepResult | None, bool, str | None]


class SweepPanel(Static):
    DEFAULT_CSS = """
    SweepPanel { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.result: SweepResult | None = None
        self.busy = False
        self.reason: str | None = None  # why there is no sweep (`off`)

    def state(self) -> SweepState:
        return self.result, self.busy, self.reason

    def restore(self, state: SweepState) -> None:
        """Show what another panel's `state` was (the panel rebuilt by a re-layout)."""
        result, busy, reason = state
        if reason is not None:
            self.off(reason)
        else:
            self.show(result, busy=busy)

    def show(self, result: SweepResult | None, *, busy: bool = False) -> None:
        self.result, self.busy, self.reason = result, busy, None
        width = self.content_size.width or 38
        put_text(self, sweep_text(result, busy, width))

    def set_busy(self, busy: bool) -> None:
        """Say a sweep is on its way (or no longer). A panel that says why there is no
        sweep (`off`) keeps saying it until a sweep starts (`show`): a slider step on a
        file too big to sweep turned it to "computing" and back, each a layout of the
        screen that repainted every column."""
        if busy != self.busy and self.reason is None:
            self.show(self.result, busy=busy)

    def off(self, reason: str) -> None:
        """No sweep for this run, and why (plain text)."""
        if reason == self.reason:
            return
        self.result, self.busy, self.reason = None, False, reason
        put_text(self, Text(f"sweep: {reason}", style="dim"))

    def on_resize(self) -> None:
        self.restore(self.state())  # refit the rows to the new width
