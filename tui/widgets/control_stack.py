"""A panel of one-line controls stacked (sliders, toggles): ↑ ↓ move between them.

The merge controls and the compare columns' sliders (`MergePanel`, `StrategyPanel`) both
are one: ↑ ↓ move the focus to the previous / next control shown, as in a list, stopping
at the panel's ends; ← → adjust the focused one (`Slider`, `ChoiceToggle`).
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical


class ControlStack(Vertical):
    """One-line controls stacked: ↑ ↓ move between them (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move_focus(-1)", "previous control", show=False),
        Binding("down", "move_focus(1)", "next control", show=False),
    ]

    def action_move_focus(self, delta: int) -> None:
        """Focus the previous / next control shown in the panel; none past its ends."""
        controls = [w for w in self.screen.focus_chain if self in w.ancestors]
        focused = self.screen.focused
        if focused not in controls:
            return
        at = controls.index(focused) + delta
        if 0 <= at < len(controls):
            # at once, not as `focus()` does it (after the queued messages): the next ↓ of
            # a burst typed ahead moves on from this control (walk 20, F1)
            self.screen.set_focus(controls[at])
