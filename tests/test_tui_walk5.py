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


def _recording(app: ChunkscopeApp) -> list[str]:
    """Every notification `app` shows from now on (a toast expires sooner than a loaded
    machine gets to the check)."""
    shown: list[str] = []
    notify = app.notify

    def recording(message: str, *a: Any, **kw: Any) -> None:
        shown.append(str(message))
        notify(message, *a, **kw)

    app.notify = recording  # type: ignore[method-assign]
    return shown


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


async def test_a_min_size_lowered_to_fit_the_cap_comes_back_as_the_cap_rises() -> None:
    from chunkscope.tui.widgets.slider import Slider

    app = make_app(topic_min_chars=1000)
    notes = _recording(app)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        least = bench.query_one("#topic-min-chars", Slider)
        cap = bench.query_one("#max-chars", Slider)

        async def run_with(value: int) -> None:
            await until(pilot, lambda: bench.view.params.topic.topic_min_chars == value)
            await until(pilot, app.workers_idle)

        cap.focus()
        await pilot.press("home")  # 256 chars: min size 1000 lowered to fit
        await run_with(250)
        assert least.value == 250
        assert "min size set to 250 until the cap allows 1000 again" in notes[-1]
        await pilot.press("shift+right", "shift+right")  # 384, 512: as much of 1000 as fits
        await run_with(500)
        assert "as much of your 1000 as the size cap of 512 chars allows" in notes[-1]
        await pilot.press("shift+right", "shift+right")  # 768, 1024: the user's min size back
        await run_with(1000)
        assert least.value == 1000 and bench.view.params.merge.max_chunk_chars == 1024
        assert "allows min size 1000 again" in notes[-1]

        # The user's own min size, moved while lowered, is the one kept from then on.
        await pilot.press("home")
        await run_with(250)
        least.focus()
        await pilot.press("left")  # 200: the user's choice now
        await run_with(200)
        cap.focus()
        await pilot.press("end")  # no cap: nothing comes back over the user's 200
        await until(pilot, lambda: bench.view.params.merge.max_chunk_chars is None)
        await until(pilot, app.workers_idle)
        assert least.value == 200 and bench.view.params.topic.topic_min_chars == 200
