"""Defects of an eighth review walk of the workbench (issue 35): a strip counts the
items its view shows and names them, compare titles count the topic marks and fit, the
header keeps the format and the collapse state, the picker names files, an empty file is
refused before the app starts, and the budget in force is said."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.pilot import SAMPLE, SIZE, make_app, picker_listed, settled, until

if TYPE_CHECKING:
    from chunkscope.tui.widgets.header_line import HeaderInfo

pytestmark = pytest.mark.usefixtures("isolated")


async def _compare(pilot: object, app: object) -> None:
    await pilot.press("right_square_bracket")  # type: ignore[attr-defined]
    await until(pilot, lambda: app.column_result("right") is not None)  # type: ignore[attr-defined]
    await until(pilot, app.workers_idle)  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


async def test_the_before_merge_strip_counts_and_names_the_units_it_plots() -> None:
    """Its numbers, its cuts row and its scale in the compacted units its rows plot, named,
    whatever the column shows (turns here: walk 6, 12 found "neighbours 165 · 135 cuts,
    one per item" beside "1 column = 2.0 turns")."""
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("v")  # the left column shows the turns
        await until(pilot, lambda: bench.left_kind == "turns")
        await settled(pilot, app)
        await _compare(pilot, app)
        turns = len(bench.query_one("#before", ChunkList)._chunks)
        left = bench.query_one("#strip-left", SimilarityStrip)
        units = len(bench.view.compacted)  # type: ignore[union-attr]
        assert turns < len(left.sizes) == units  # the axis plots more units than the turns
        await until(pilot, lambda: f"({units - 1})" in " ".join(left.rendered_lines()))
        cuts_row = next(r for r in left.rendered_lines() if r.startswith("cuts"))
        assert f"a cut after every unit ({units - 1})" in cuts_row, cuts_row
        title = str(left.border_title)
        assert f"{units} units · neighbours {units - 1} · mean" in title, title
        legend = " ".join(left.rendered_lines()) + str(left.border_subtitle or "")
        assert re.search(r"1 column = [\d.]+ units", legend), legend
        cols = left.size.width - 7  # the label's 6 cells and the one after the bars
        assert f"1 column = {units / cols:.1f} units" in legend, legend
        assert str(turns) not in title + legend and str(turns - 1) not in title + legend
        main = bench.query_one("#strip", SimilarityStrip)
        assert main.scale_noun == "unit"  # the main strip plots the compacted units
        right = bench.query_one("#strip-right", SimilarityStrip)
        said = " ".join(right.rendered_lines()) + str(right.border_subtitle or "")
        assert "chunk" in said and "unit" not in said, said


@pytest.mark.parametrize("size", [(240, 48), SIZE, (100, 30)])
async def test_compare_titles_with_marks_count_the_marks_and_fit(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    from rich.cells import cell_len

    gold = tmp_path / "session.gold.json"
    gold.write_text(json.dumps({"starts": [1, 16, 53, 90], "partial": False}) + "\n")
    app = make_app(SAMPLE, gold=str(gold))
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await _compare(pilot, app)
        for lid in ("#before-col", "#merged"):
            lst = bench.query_one(lid)
            await until(pilot, lambda lst=lst: "Pk " in str(lst.border_title))
            title = str(lst.border_title)
            assert cell_len(title) <= lst.size.width - 6, (size, title)
            assert "marked" not in title and "4 marks" not in title, title
            if size[0] >= 240:  # room for the whole score: the marks counted as marks
                assert "topics/3 marks" in title, title

        # walk 6, 16: a merge column with a parameter set (the walk's `merge:seed
        # std_k=3`) keeps its F1 at 100 wide, its parameters left to the panel; the
        # strips' titles are whole at every width (a shorter form, never `0.…`)
        from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

        app.set_column_strategy("left", "merge:seed")
        app.set_column_param("left", "std_k", 3.0)
        await until(pilot, lambda: app.column_result("left") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        lst = bench.query_one("#before-col")
        await until(pilot, lambda: "Pk " in str(lst.border_title))
        title = str(lst.border_title)
        assert cell_len(title) <= lst.size.width - 6 and "F1 " in title, (size, title)
        assert "merge:seed" in title, title
        for sid in ("#strip-left", "#strip-right"):
            strip = bench.query_one(sid, SimilarityStrip)
            said = str(strip.border_title)
            assert cell_len(said) <= strip.outer_size.width - 6, (size, said)
            assert not re.search(r"\d\.…|\d…|· …", said), (size, said)  # no number cut
            whole = strip._title[1][0]  # what the widest title says
            if size[0] >= 240:
                assert said.endswith(whole), (said, whole)


async def _header_at(info: HeaderInfo, width: int) -> tuple[str, object]:
    """The header line drawing `info` at `width` cells, alone in an app: its text and
    its tooltip."""
    from textual.app import App, ComposeResult

    from chunkscope.tui.widgets.header_line import HeaderLine

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield HeaderLine(id="header")

    app = One()
    async with app.run_test(size=(width, 10)) as pilot:
        header = app.query_one(HeaderLine)
        header.set_info(info)
        await pilot.pause()
        return header.render().plain, header.tooltip


@pytest.mark.parametrize("width", [160, 100, 80])
async def test_a_long_path_leaves_the_header_its_format_and_collapse_state(width: int) -> None:
    """A long path in the header: its name, the turns, the format and the tool calls'
    state kept (in short at 100 wide); the run's time is the first to go."""
    from chunkscope.tui.widgets.header_line import HeaderInfo

    folder = "/home/someone/projects/chunkscope/tests/fixtures/aider/"
    info = HeaderInfo(
        path=folder + "metadata-aider.aider.chat.history.md",
        kind="jsonl",
        state="tool calls: raw (T)",
        state_short="T: raw",
        turns=211,
        collapsed_turns=None,
        tokenizer="cl100k_base",
        accuracy="exact",
        embedder="lexical · extractive",
        last_run="run 09:09:54",
    )
    line, tooltip = await _header_at(info, width)
    assert "metadata-aider.aider.chat.history.md" in line, line
    assert " · jsonl · " in line and "211 turns" in line, line
    assert "tool calls: raw (T)" in line or (width < 160 and "T: raw" in line), line
    if "run 09:09:54" in line:
        assert "lexical" in line and "cl100k_base" in line, line
    assert len(line) <= width, line
    # Walk 6: the path was cut mid-folder (``…ain/bench/…``) and the parts left out
    # went silently: whole folders are cut, and what is left out is said (what, or
    # how many more), all of it on hover.
    shown = line.removeprefix(" chunkscope ").removeprefix(" ").split(" · ")[0]
    full = info.path
    assert shown == full or (shown.startswith("…/") and full.endswith(shown[1:])), line
    left_out = [w for w in ("lexical", "cl100k_base", "run 09:09:54") if w not in line]
    if left_out:  # at 80 too (walk 11, 3): the badge gives way to say it
        assert re.search(r" · \+(\d more|\d| [a-z ,]+)$", line), line
    if left_out or shown != full:
        tip = str(tooltip)
        assert full in tip and "cl100k_base" in tip and "run 09:09:54" in tip, tip
    else:
        assert tooltip is None


@pytest.mark.parametrize("width", [160, 100])
async def test_a_long_format_name_is_said_short_in_a_narrow_header(width: int) -> None:
    """At 100 wide the header dropped ``mini-swe-agent trajectory (json)`` altogether: the
    format is said in short (the tool's name) before it is left out."""
    from chunkscope.engine.read.parse import load
    from chunkscope.tui.widgets.header_line import HeaderInfo
    from tests.pilot import ROOT

    source = load(ROOT / "tests/fixtures/heldout/mini-swe-agent/django-11039.traj.json")
    assert source.kind_label == "mini-swe-agent trajectory (json)"
    assert source.kind_short == "mini-swe-agent"
    # every format has a short form: the tool's name, without how the file holds it
    from dataclasses import replace

    from chunkscope.engine.read.formats import READERS

    labels = {r.label for r in READERS.values()} | {"SWE-agent trajectory", "agent trajectory"}
    for name, reader in READERS.items():
        for label in labels:
            said = replace(source, format=name, label=label, container=reader.container)
            assert said.kind_short and "(" not in said.kind_short, (name, label)
            assert len(said.kind_short) <= len(said.kind_label), (name, label)

    info = HeaderInfo(
        path="bench/recap_sessions/mini-django-11099.traj.json",
        kind=source.kind_label,
        kind_short=source.kind_short,
        state="tool calls: collapsed (T)",
        state_short="T: collapsed",
        turns=86,
        collapsed_turns=77,
        tokenizer="cl100k_base",
        accuracy="exact",
    )
    line, _ = await _header_at(info, width)
    assert "mini-django-11099.traj.json" in line, line
    assert "86 turns · 77 after collapse" in line or "86 → 77 turns" in line, line  # walk 9
    said = "mini-swe-agent trajectory (json)" if width == 160 else " mini-swe-agent "
    assert said in line, line
    assert len(line) <= width, line


@pytest.mark.parametrize("content", ["", "  \n\n\t\n"], ids=["empty", "whitespace"])
def test_an_empty_file_is_refused_before_the_workbench_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    """No frame drawn before the error: the same one line as `chunk`, exit 2."""
    import os
    import subprocess
    import sys

    from chunkscope.tui.cli import main
    from tests.pilot import ROOT

    empty = tmp_path / "empty.jsonl"
    empty.write_text(content)
    assert main(["chunk", str(empty)]) == 2
    said = capsys.readouterr().err.strip()
    assert said.endswith("no turns: the file is empty or has nothing to read"), said
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "chunkscope", str(empty)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode == 2, run
    assert run.stdout == "", run.stdout[:200]  # no workbench frame
    assert run.stderr.strip() == said


@pytest.mark.parametrize("size", [SIZE, (100, 30)])
async def test_the_picker_rows_name_their_files(tmp_path: Path, size: tuple[int, int]) -> None:
    """Markdown files alike in their first heading: each row says its file's name (the
    heading after it when there is room), not "Task" on every row. Walk 6: at 100x30 the
    names were cut to about 10 cells (``stop-hook-…`` twice), and at 160 the format shown
    on some rows only put the names out of line: the names have the room first, in one
    column, a long one cut in its middle."""
    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions

    names = [f"notes-{i:02d}-a-rather-long-name.md" for i in range(10)]
    names += ["stop-hook-uncommitted-changes-in-the-tree.md", "stop-hook-reflection-first-stop.md"]
    for name in names:
        (tmp_path / name).write_text("# Task\n\nDo the thing, then the other.\n")
    app = ChunkscopeApp(StartOptions(folder=str(tmp_path), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        screen = await picker_listed(pilot, app)
        await pilot.pause()
        box = screen.query_one("#sessions", OptionList)
        shown = ["".join(seg.text for seg in box.render_line(y)) for y in range(box.size.height)]
        rows = [r.strip("│ ▁▂▃▄▅▆▇█") for r in shown if re.search(r"\d\d:\d\d", r)]
        assert len(rows) == len(names), shown
        starts = set()
        for row in rows:
            said = [
                (n, row.index(token))
                for token in row.split()
                for n in names
                if token == n
                or (  # cut in its middle: its start and its end kept
                    (cut := token.partition("…"))[1]
                    and min(len(cut[0]), len(cut[2])) >= 6
                    and n.startswith(cut[0])
                    and n.endswith(cut[2])
                )
            ]
            assert len(said) == 1, (row, said)  # each row names one file, told apart
            starts.add(said[0][1])
        assert len(starts) == 1, rows  # the names in one column
        assert "sessions, newest first (~: file time)" in str(box.border_title)
        if size == SIZE:
            assert all("Task" in row for row in rows if "stop-hook" not in row), rows


async def test_a_budget_set_with_b_is_the_sessions_and_the_recap_says_it() -> None:
    """The budget typed with `b` stays when another file is opened (the session's, as
    docs/workbench.md says); the recap's title says the budget in force beside its kept
    count whenever it is not the default."""
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen
    from chunkscope.tui.widgets.recap_panel import BUDGET, RecapPanel
    from tests.pilot import ROOT

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        recap = bench.query_one(RecapPanel)
        assert "budget" not in str(recap.border_title)  # the default: not said
        await pilot.press("b")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one("#prompt-input", Input).value = "300"
        old = app.selection
        await pilot.press("enter")
        await until(pilot, lambda: app.selection is not old and app.workers_idle())
        said = f"kept · budget 300 tokens (default {BUDGET.default})"
        await until(pilot, lambda: said in str(recap.border_title))
        old = app.selection
        app.open_path(str(ROOT / "sample_logs" / "markup_injection.jsonl"))
        await until(pilot, lambda: app.selection is not old)
        await settled(pilot, app)
        assert app.budget == 300 and app.selection.budget == 300  # the session's
        recap = app.workbench.query_one(RecapPanel)
        assert said in str(recap.border_title), recap.border_title

        # Walk 6: `b` takes the knob's range, as `recap --budget` does (it took only the
        # slider's 100-8000): beyond either end of the slider it is taken and the slider
        # shows it; below the knob's minimum the prompt stays open and says the range.
        from chunkscope.tui.widgets.slider import Slider

        slider = recap.query_one("#budget", Slider)
        assert BUDGET.minimum == 1 and BUDGET.slider is not None and BUDGET.slider.lo > 20
        for typed in ("20000", "20"):
            await pilot.press("b")
            app.screen.query_one("#prompt-input", Input).value = typed
            old = app.selection
            await pilot.press("enter")
            await until(pilot, lambda old=old: app.selection is not old and app.workers_idle())
            assert app.budget == int(typed) and app.selection.budget == int(typed)
            assert slider.format_value() == typed
        await pilot.press("b")
        app.screen.query_one("#prompt-input", Input).value = "0"
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen) and "from 1 to" in app.screen.title_text
