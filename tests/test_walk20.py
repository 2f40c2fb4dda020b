"""Walk 20's findings (a fresh review of the workbench and the commands): each test fails
on the code before its fix."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from chunkscope.tui.widgets.merge_panel import MergePanel
from tests.pilot import SAMPLE, SIZE, burst, make_app, settled, wait_for

NARROW = (100, 30)

pytestmark = pytest.mark.usefixtures("isolated")


@pytest.mark.parametrize("size", [SIZE, NARROW], ids=["wide", "narrow"])
async def test_a_burst_of_arrows_moves_through_the_merge_controls_key_by_key(
    size: tuple[int, int],
) -> None:
    """F1: three ↓ typed at once moved the focus one control: each took its target from
    the focus, which `focus()` moves only later."""
    app = make_app(SAMPLE)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        panel = app.screen.query_one(MergePanel)
        controls = [w for w in app.screen.focus_chain if panel in w.ancestors]
        if not panel.region.height:  # narrow: the controls are a tab of their own
            app.screen.query_one(TabbedContent).active = "tab-merge"
            await pilot.pause()
            controls = [w for w in app.screen.focus_chain if panel in w.ancestors]
        assert len(controls) >= 4
        app.screen.set_focus(controls[0])
        await pilot.pause()
        burst(app, "down", "down", "down")
        await wait_for(pilot, lambda: app.screen.focused is controls[3], 3)
        await pilot.pause()
        assert app.screen.focused is controls[3]
        burst(app, "up", "up")
        await wait_for(pilot, lambda: app.screen.focused is controls[1], 3)
        await pilot.pause()
        assert app.screen.focused is controls[1]


@pytest.mark.parametrize(
    "argv",
    [
        ["search", str(SAMPLE), "--budget", "500", "sqlite cache"],
        ["search", str(SAMPLE.parent), "--latest", "sqlite cache"],
        ["search", "--budget", "500", str(SAMPLE), "sqlite cache"],
    ],
)
def test_the_question_may_come_after_the_options(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """F2: `search DIR --latest QUERY` was refused ("unrecognized arguments")."""
    from chunkscope.tui.cli import main

    assert main(argv) == 0
    assert "query: sqlite cache" in capsys.readouterr().out


def test_a_word_left_over_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from chunkscope.tui.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["search", str(SAMPLE), "sqlite", "cache"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "chunkscope: unrecognized arguments: cache (see --help)"
    )
