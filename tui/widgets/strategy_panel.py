"""The sliders of the columns' strategies (shown only while a column has a strategy).

For each column with a strategy: a title line (``left · sliding-window``) and one
`Slider` per main numeric parameter (`tui.workbench.columns.MAIN_PARAMS`). A change posts
`StrategyPanel.Changed` with the column, the parameter and the value in its type.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from chunkscope.tui.widgets.control_stack import ControlStack
from chunkscope.tui.widgets.slider import Slider
from chunkscope.tui.workbench.columns import (
    SIDES,
    ColumnSpec,
    column_param_specs,
    param_label,
    slider_range,
    slider_value,
)

LABEL_WIDTH = 11


class StrategyPanel(ControlStack):
    """The compare columns' sliders (↑ ↓ move between them: `ControlStack`)."""

    DEFAULT_CSS = """
    StrategyPanel {
        height: auto;
        display: none;
        margin-bottom: 1;
        & > .strategy-title { color: $accent; text-style: bold; }
        & > Slider { margin: 0; }
    }
    StrategyPanel.-active { display: block; }
    """

    class Changed(Message):
        def __init__(self, panel: StrategyPanel, side: str, key: str, value: Any) -> None:
            self.panel = panel
            self.side = side
            self.key = key
            self.value = value
            super().__init__()

        @property
        def control(self) -> StrategyPanel:
            return self.panel

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[tuple[str, str | None], ...] = ()
        self._owners: dict[int, tuple[str, Any]] = {}  # id(slider) -> (side, ParamSpec)

    def show(self, specs: dict[str, ColumnSpec | None]) -> bool:
        """Rebuild the sliders when a column's strategy changes (not on a value change);
        whether they were rebuilt (a slider focused is gone then)."""
        shown = tuple((side, spec.name if spec else None) for side, spec in specs.items())
        if shown == self._shown:
            return False
        self._shown = shown
        self._owners.clear()
        self.set_class(any(name for _, name in shown), "-active")
        widgets: list[Any] = []
        for side in SIDES:
            spec = specs.get(side)
            if spec is None:
                continue
            widgets.append(
                Static(f"{side.upper()} · {spec.name}", classes="strategy-title", markup=False)
            )
            for p in column_param_specs(spec.name):
                rng = slider_range(p)
                if rng is None:
                    continue
                lo, hi, step, big, fmt = rng
                slider = Slider(
                    float(spec.value(p.name)),
                    lo,
                    hi,
                    step,
                    big_step=big,
                    label=param_label(p)[: LABEL_WIDTH - 1],
                    fmt=fmt,
                    label_width=LABEL_WIDTH,
                    value_width=6,
                    # a merge column's size cap steps as the merge panel's does
                    per_doubling=p.slider.per_doubling if p.slider is not None else 0,
                    classes=f"strategy-slider -{side}",
                )
                slider.tooltip = Text(p.help)  # plain text, never markup
                self._owners[id(slider)] = (side, p)
                widgets.append(slider)
        self.remove_children()
        if widgets:
            self.mount(*widgets)
        return True

    def slider_for(self, side: str, key: str) -> Slider | None:
        for slider in self.query(Slider):
            owner = self._owners.get(id(slider))
            if owner is not None and owner[0] == side and owner[1].name == key:
                return slider
        return None

    def first_slider(self, side: str | None = None) -> Slider | None:
        """The first slider of column `side` (of any column when None), if it has one."""
        for slider in self.query(Slider):
            owner = self._owners.get(id(slider))
            if owner is not None and side in (None, owner[0]):
                return slider
        return None

    def slider_key(self, slider: object) -> tuple[str, str] | None:
        """The column and parameter of `slider` when it is one of this panel's: the
        same slider of a panel rebuilt for another layout is `slider_for` them (the
        sliders have no id: rebuilt in place, a new one would meet the old one's)."""
        owner = self._owners.get(id(slider))
        return None if owner is None else (owner[0], owner[1].name)

    def on_slider_changed(self, event: Slider.Changed) -> None:
        owner = self._owners.get(id(event.slider))
        if owner is None:
            return
        event.stop()
        side, spec = owner
        self.post_message(self.Changed(self, side, spec.name, slider_value(spec, event.value)))
