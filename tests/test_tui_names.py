"""One name for one thing in the workbench: a key is named as the tab and panel it
opens (review walk 6, item 19)."""

from __future__ import annotations

import pytest

from tests.pilot import make_app

pytestmark = pytest.mark.usefixtures("isolated")


async def test_the_search_key_is_named_as_its_tab_and_panel() -> None:
    from textual.widgets import Tab
    from textual.widgets._footer import FooterKey

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:  # the panels as tabs
        await pilot.pause()
        bench = app.workbench
        assert bench is not None
        keys = {k.key: k.description for k in bench.query(FooterKey)}
        tabs = {str(t.label) for t in bench.query(Tab)}
        assert keys["slash"] == "Search" and "Search" in tabs, (keys, tabs)
