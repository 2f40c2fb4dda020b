"""Walk 59's findings on the workbench at 160x48 and 100x30. F5: at 100 columns a
question typed in a burst right after → onto the Search tab ran as the workbench's keys
(`w` opened the recap writer, `t` switched the theme)."""

from __future__ import annotations

from pathlib import Path

from tests.pilot import ROOT, burst, make_app, settled, until

SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"
NARROW = (100, 30)


async def test_f5_a_question_typed_in_a_burst_after_right_onto_search_is_the_questions(
    isolated: Path,
) -> None:
    """F5: the tab bar on the Recap tab, then ``→ w h y`` in one burst: the Search tab
    opened and ``w`` opened "Write the recap to" with ``hy`` in its path. The letters
    are the question's, as they are typed one at a time; no dialog, no theme switched."""
    from textual.widgets import TabbedContent, Tabs

    from chunkscope.tui.screens.workbench import WorkbenchScreen
    from chunkscope.tui.widgets.search_panel import SearchPanel

    app = make_app(SAMPLE)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        tabbed = bench.query_one(TabbedContent)
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, Tabs))
        await pilot.press("right", "right")
        await until(pilot, lambda: tabbed.active == "tab-recap")
        theme = app.theme
        field = bench.query_one(SearchPanel).input
        burst(app, "right", "w", "h", "y", "t", "e")
        await until(pilot, lambda: field.value == "whyte")
        await pilot.pause(0.2)
        assert isinstance(app.screen, WorkbenchScreen), app.screen
        assert app.focused is field and tabbed.active == "tab-search"
        assert app.theme == theme and field.value == "whyte"
