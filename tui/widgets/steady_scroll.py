"""A vertical scroll whose key steps add up however fast they come.

Textual's `VerticalScroll` takes ↓ as "one line below where the scroll is headed", but
it learns where it is headed only after the next refresh: ten ↓ in one burst (a held
key, keys pasted) all aimed at the same line and scrolled one. Its page keys go a page
from where the scroll *is*, mid-animation: twenty ⇟ in a burst went a few pages (walk
45, F7). `SteadyScroll` moves its target at once, from the last target, so each key
counts.
"""

from __future__ import annotations

from textual.actions import SkipAction
from textual.containers import VerticalScroll


class SteadyScroll(VerticalScroll):
    """`VerticalScroll` whose ↑ ↓ and page steps each count in a burst."""

    def action_scroll_down(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_down(immediate=True)

    def action_scroll_up(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_up(immediate=True)

    def action_page_down(self) -> None:
        self._page(1)

    def action_page_up(self) -> None:
        self._page(-1)

    def _page(self, direction: int) -> None:
        """A page from where the last step headed, at once (no animation to start from)."""
        if not self.allow_vertical_scroll:
            raise SkipAction()
        page = self.scrollable_content_region.height
        self.scroll_to(y=self.scroll_target_y + direction * page, animate=False, immediate=True)
