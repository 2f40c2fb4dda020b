"""Defects of a fifth review walk of the workbench (issue 35): the JSON export records
the settings that produced the run under the CLI's keys, a min size lowered to fit the
cap comes back, marks and cuts report their real lines, the compare view's labels, and
a cut's reason says what made it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.prompt import PromptScreen
from tests.pilot import SAMPLE, SIZE, make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")


def _cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    from chunkscope.tui.cli import main

    capsys.readouterr()
    code = main(["chunk", str(SAMPLE), "--embed", "--format", "json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc: dict[str, Any] = json.loads(captured.out)
    return doc


async def _export_json(app: ChunkscopeApp, pilot: Any, target: Path) -> dict[str, Any]:
    await pilot.press("e")
    await pilot.press("enter")  # the run as JSON
    assert isinstance(app.screen, PromptScreen)
    await pilot.press("enter")  # ./cache_refactor.merged.json
    await until(pilot, target.exists)
    doc: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    return doc


@pytest.mark.parametrize("mode", ["topic", "seed"])
async def test_the_json_export_is_the_clis_document_with_the_modes_own_settings(
    isolated: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    cli = _cli_json(capsys, "--merge", mode)
    app = make_app(mode=mode, collapse=False)  # as `chunk` reads the calls
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        doc = await _export_json(app, pilot, isolated / "cache_refactor.merged.json")
    merge = doc["params"]["merge"]
    assert merge["mode"] == mode
    if mode == "topic":  # the topic segmenter's knobs, none of the seed loop's
        assert merge["topic_depth"] == view.params.topic.topic_depth
        assert merge["topic_unit_chars"] == view.params.topic.topic_unit_chars
        assert "threshold" not in merge and "std_k" not in merge
    else:
        assert merge["threshold"] == view.params.merge.threshold
        assert not any(k.startswith("topic_") for k in merge)
    assert merge["max_chunk_chars"] == view.params.merge.max_chunk_chars  # both modes' cap
    assert merge == cli["params"]["merge"]  # the CLI records the same settings
    # the CLI's keys for the same things: compacted `chunks`, `merged`, `merge`, `topics`
    assert set(cli) <= set(doc)
    assert len(doc["chunks"]) == len(view.compacted) == len(cli["chunks"])
    assert [m["parts"] for m in doc["merged"]] == [m["parts"] for m in cli["merged"]]
    assert set(doc["merged"][0]) == set(cli["merged"][0]) | {"summary"}
    assert doc["merged"][0]["summary"]["abstract"]
    assert doc["topics"] == cli["topics"] and doc["merge"] == cli["merge"]
