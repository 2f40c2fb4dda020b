"""Walk 59's later findings on the workbench, the ones fixed; each test fails on the code
before its fix. F10: a resize that rebuilt the layout while a dialog was open brought the
workbench's footer back under the dialog (its keys typed into the dialog's field)."""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from tests.pilot import ROOT, make_app, settled, until

SAMPLE = ROOT / "sample_logs" / "research_notes.jsonl"


@pytest.mark.parametrize("sizes", [((160, 48), (100, 30)), ((100, 30), (160, 48))])
async def test_f10_the_footer_stays_hidden_below_a_dialog_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """F10: ``b`` (the budget prompt), then the terminal resized 160↔100 with the prompt
    open: the rebuilt workbench showed its footer (``? Help  q Quit  z Zoom …``) under
    the dialog, whose field those keys type into. It stays hidden until the dialog goes."""
    from chunkscope.tui.screens.prompt import PromptScreen

    first, then = sizes
    app = make_app(SAMPLE)
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert not any(f.visible for f in bench.query(Footer))
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        footers = list(bench.query(Footer))
        assert footers and not any(f.visible for f in footers)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is bench)
        assert all(f.visible for f in bench.query(Footer))
