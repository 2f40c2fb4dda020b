"""A vertical scroll whose key steps add up however fast they come.

Textual's `VerticalScroll` takes ↓ as "one line below where the scroll is headed", but
it learns where it is headed only after the next refresh: ten ↓ in one burst (a held
key, keys pasted) all aimed at the same line and scrolled one. `SteadyScroll` moves its
target at once, so each key counts.
"""

from __future__ import annotations

from textual.actions import SkipAction
from textual.containers import VerticalScroll


class SteadyScroll(VerticalScroll):
    """`VerticalScroll` whose ↑ ↓ steps each count in a burst."""

    def action_scroll_down(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_down(immediate=True)

    def action_scroll_up(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_up(immediate=True)
