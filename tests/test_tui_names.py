"""One name for one thing in the workbench: a key is named as the tab and panel it
opens (review walk 6, item 19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pilot import auto_tune, make_app

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


async def test_auto_tune_names_the_knobs_as_the_tune_command_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Auto-tune's columns said ``window depth structure min size`` where `chunkscope
    tune` (and its --grid, a profile, the note auto-tune shows on applying) says
    ``topic_window topic_depth ...``: one naming, the knobs' own, and the table still
    fits 100 columns."""
    from textual.widgets import DataTable

    from chunkscope.engine.evaluate.measure import TUNE_GRIDS
    from chunkscope.tui.cli import main
    from tests.pilot import SAMPLE
    from tests.test_tui_tune import MARKS, _mark, _ready

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [1, *MARKS], "partial": True}))
    assert main(["tune", str(SAMPLE), "--gold", str(gold)]) == 0
    header = capsys.readouterr().out.splitlines()[2].split()
    knobs = list(TUNE_GRIDS["topic"])
    assert header[-len(knobs) :] == knobs

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(pilot, app)
        _mark(app)
        screen = await auto_tune(pilot, app)
        await pilot.pause()
        table = screen.query_one(DataTable)
        labels = [c.label.plain.replace("\n", "") for c in table.columns.values()]
        assert labels[-len(knobs) :] == knobs, labels
        assert table.virtual_size.width <= table.scrollable_content_region.width
