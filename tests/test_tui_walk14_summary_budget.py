"""Defects of the workbench found by a review walk (issue 35, walk 14): the Summary tab
at 100x30 scrolls a summary longer than the tab, and the budget knob has a maximum the
slider holds exactly: `b` past it is refused, saying the range."""

from __future__ import annotations

import pytest

from tests.pilot import SIZE, make_app, settled, until

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
        plain = scroll.styles.background
        scroll.focus()
        await pilot.pause()
        assert app.focused is scroll
        assert scroll.styles.background != plain  # the focus shows (no border to light)
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


def test_the_budget_knob_has_a_maximum_said_in_digits() -> None:
    """Walk 14, 6: the budget's maximum, declared on the knob, is what `--budget` takes
    and what the slider holds exactly (a float: 2**53 + 1 showed as 2**53)."""
    from chunkscope.engine.params import number_text
    from chunkscope.tui.widgets.recap_panel import BUDGET

    hi = BUDGET.maximum
    assert hi is not None and hi < 2**53
    assert BUDGET.coerce(str(int(hi))) == hi
    with pytest.raises(ValueError, match=rf"<= {int(hi)}, got 9007199254740993$"):
        BUDGET.coerce("9007199254740993")
    assert number_text(1_000_000.0) == "1000000" and number_text(0.5) == "0.5"


async def test_a_typed_budget_is_the_same_number_on_the_slider_title_and_meter() -> None:
    """Walk 14, 6: `b` with 20 nines showed 100000000000000000000 on the slider (and
    9007199254740993 as ...992) while the title and meter showed what was typed. Past the
    knob's maximum the prompt stays open and says the range; the maximum itself is shown
    the same everywhere."""
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen
    from chunkscope.tui.widgets.recap_panel import BUDGET, RecapPanel
    from chunkscope.tui.widgets.slider import Slider
    from chunkscope.tui.widgets.token_meter import TokenMeter

    hi = BUDGET.maximum
    assert hi is not None
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        recap = bench.query_one(RecapPanel)
        for typed in ("99999999999999999999", "9007199254740993", str(int(hi) + 1)):
            await pilot.press("b")
            assert isinstance(app.screen, PromptScreen)
            app.screen.query_one("#prompt-input", Input).value = typed
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, PromptScreen), typed  # refused, still asking
            assert f"from 1 to {int(hi)}" in app.screen.title_text
            await pilot.press("escape")
        for typed in (str(int(hi)), str(int(hi) - 1)):
            await pilot.press("b")
            app.screen.query_one("#prompt-input", Input).value = typed
            old = app.selection
            await pilot.press("enter")
            await until(pilot, lambda old=old: app.selection is not old and app.workers_idle())
            assert app.budget == int(typed)
            assert recap.query_one("#budget", Slider).format_value() == typed
            assert f"budget {typed} tokens" in str(recap.border_title)
            assert f"/{typed} tokens" in str(recap.query_one(TokenMeter).render())
