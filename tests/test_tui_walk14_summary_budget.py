"""Defects of the workbench found by a review walk (issue 35, walk 14): the Summary tab
at 100x30 scrolls a summary longer than the tab, and the budget slider shows the budget
typed with `b`, however large."""

from __future__ import annotations

import pytest

from tests.pilot import make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


async def test_the_summary_tab_scrolls_a_summary_longer_than_it() -> None:
    """Walk 14, 3: at 100x30 chunk 0's summary was cut after "to persist across" with no
    scrollbar and nothing to focus; now its body takes the focus and scrolls to the end."""
    from textual.containers import VerticalScroll
    from textual.widgets import TabbedContent

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await until(pilot, lambda: "restarts without" in _body(app))
        bench.query_one(TabbedContent).active = "tab-summary"
        await pilot.pause()
        scroll = bench.query_one("#summary-scroll", VerticalScroll)
        assert scroll.max_scroll_y > 0, "the fixture's summary must overflow the tab"
        assert scroll.show_vertical_scrollbar
        scroll.focus()
        await pilot.pause()
        assert app.focused is scroll
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        last = scroll.region.height + int(scroll.scroll_y)
        body = bench.query_one("#summary-body")
        assert body.virtual_region.height <= last


def _body(app: object) -> str:
    bench = getattr(app, "workbench", None)
    if bench is None:
        return ""
    return str(bench.query_one("#summary-body").render())
