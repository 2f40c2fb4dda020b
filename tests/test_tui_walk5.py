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
from tests.pilot import SAMPLE, SIZE, make_app, recording_notifications, settled, until

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
    cli = _cli_json(capsys, "--merge", mode, "--no-collapse")
    app = make_app(mode=mode, collapse=False)  # the calls kept, in both modes
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
    notes = recording_notifications(app)
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
        # a step is two of the grid's on this track (walk 16, 12: one moved no knob)
        await pilot.press("right", "right")  # 384, 512: as much of 1000 as fits
        await run_with(500)
        assert "as much of your 1000 as the size cap of 512 chars allows" in notes[-1]
        await pilot.press("right", "right")  # 768, 1024: the user's min size back
        await run_with(1000)
        assert least.value == 1000 and bench.view.params.merge.max_chunk_chars == 1024
        assert "allows min size 1000 again" in notes[-1]

        # The user's own min size, moved while lowered, is the one kept from then on.
        await pilot.press("home")
        await run_with(250)
        least.focus()
        # one step down (300 on this track, walk 16, 12: to 0): the user's choice now
        mine = int(max(least.minimum, 250 - least.visible_step()))
        await pilot.press("left")
        await run_with(mine)
        cap.focus()
        await pilot.press("end")  # no cap: nothing comes back over the user's choice
        await until(pilot, lambda: bench.view.params.merge.max_chunk_chars is None)
        await until(pilot, app.workers_idle)
        assert least.value == mine and bench.view.params.topic.topic_min_chars == mine


async def _mark_item(pilot: Any, app: ChunkscopeApp, index: int) -> int:
    from chunkscope.tui.widgets.chunk_list import ChunkList

    before = app.workbench.query_one("#before", ChunkList)
    before.focus()
    before.select(index, post=True)
    await pilot.pause()
    await pilot.press("m")
    await pilot.pause()
    return int(app.workbench.view.left_items[index].lines[0])


async def test_marks_are_drawn_where_they_were_set_and_auto_tune_names_their_lines(
    isolated: Path, tmp_path: Path
) -> None:
    import shutil

    from chunkscope.tui.screens.tune import TuneScreen
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        view = bench.view
        firsts = [c.lines[0] if c.lines else 0 for c in view.left_items]
        # an item sharing its first line with the next (thinking blocks of one record)
        shared = next(
            i for i in range(1, len(firsts) - 1) if firsts[i - 1] < firsts[i] == firsts[i + 1]
        )
        line = await _mark_item(pilot, app, shared)
        assert app.marks == (line,) and line == firsts[shared]  # the item's own first line
        report = app.marks_report(bench.view)
        assert report is not None
        assert report.left_flags == {shared: "mark"}  # on the item marked, not a later one
        before = bench.query_one("#before", ChunkList)
        assert before._flags == {shared: "mark"}

        # Two marks in one column of the strip: their count, and the legend says so.
        strip = bench.query_one(SimilarityStrip)
        units = [c.lines[0] if c.lines else 0 for c in view.compacted]
        width = strip.size.width

        def column(mark: int) -> int:
            p = next(i for i, first in enumerate(units) if first >= mark)
            return strip.column_of(p - 1, width)

        await _mark_item(pilot, app, shared)  # off again
        assert app.marks == ()
        a, b = next(
            (i, j)
            for i in range(1, len(firsts))
            for j in range(i + 1, min(i + 6, len(firsts)))
            if firsts[i - 1] < firsts[i] < firsts[j] and column(firsts[i]) == column(firsts[j])
        )
        line = await _mark_item(pilot, app, a)
        second = await _mark_item(pilot, app, b)
        assert app.marks == (line, second)
        await pilot.pause()
        rows = strip.rendered_lines()
        marks_row = next(r for r in rows if r.startswith("marks"))
        assert "2" in marks_row and "◆" not in marks_row, marks_row
        # the legend: its rows under the size row, and the border when it wraps there
        at = next(i for i, row in enumerate(rows) if row.startswith("size"))
        border = strip._border_subtitle.plain if strip._border_subtitle else ""
        legend = " ".join(" ".join([*rows[at + 1 :], border]).split())
        assert "2 2 marks in one column" in legend, legend

        # Auto-tune names the marks' own lines, and the stretch scored around them.
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, TuneScreen))
        title = str(app.screen.query_one("Label").render())
        lo, hi = max(2, line - 2), second + 2
        assert f"at lines {line}, {second}; partial: scored over lines {lo}-{hi}" in title
        await pilot.press("escape")


@pytest.mark.paints
@pytest.mark.parametrize("size", [SIZE, (100, 30)])
async def test_compare_strips_say_the_cuts_and_the_cap_in_force(size: tuple[int, int]) -> None:
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        await pilot.press("right_square_bracket", "right_square_bracket")  # sliding-window
        await until(pilot, lambda: "sliding-window" in str(app.column_specs["right"]))
        await until(pilot, app.workers_idle)
        await pilot.pause()
        right = bench.query_one("#strip-right", SimilarityStrip)
        await until(pilot, lambda: bool(right.cuts))  # the column drawn
        assert (right.cap, right.cap_unit) == (1000, "tokens")  # its max tokens
        said = " ".join(right.rendered_lines()) + str(right.border_subtitle or "")
        assert "cap 1000t" in said and "no cap" not in said, said
        left = bench.query_one("#strip-left", SimilarityStrip)
        cuts_row = next(r for r in left.rendered_lines() if r.startswith("cuts"))
        assert cuts_row[len("cuts") :].strip(), "an empty cuts row"
        assert "not merged: a cut after every unit" in cuts_row  # the units it plots


async def test_a_topic_split_to_fit_the_cap_is_named_so_wherever_cuts_are_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip
    from tests.test_tui_walk import _cut_row

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        result = bench.view.result
        assert result.params.mode == "topic"
        split = [
            i for i in range(len(result.chunks) - 1) if result.cut_after(i).reason == "size_cap"
        ]
        assert split, "the sample's topics fit the cap: no split to check"
        merged = bench.query_one("#merged", ChunkList)
        line = _cut_row(merged, split[0], 200)
        assert "┄ cut: split to fit cap · same topic, at its best gap" in line, line
        stats = str(bench.query_one("#merge-stats").render())
        assert f"{len(split)} split to fit cap" in " ".join(stats.split()), stats
        legend = " ".join(bench.query_one(SimilarityStrip).rendered_lines()[-1].split())
        assert "╳ split to fit cap" in legend, legend
        for said in (line, stats, legend):
            assert "size cap" not in said, said  # read as two small chunks that hit the cap

    from chunkscope.tui.cli import main

    capsys.readouterr()
    assert main(["chunk", str(SAMPLE), "--embed"]) == 0
    out = capsys.readouterr().out
    assert "Cut after: split to fit cap (depth" in out and "Cut after: size cap" not in out
