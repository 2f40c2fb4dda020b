"""Walk 38: a file name with a line break is shown on one line everywhere, as the
picker's rows show it (F2); writing to a folder from the workbench is refused as every
other write is, ``cannot write PATH: Is a directory`` (F4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.pilot import ROOT, make_app, picker_listed, recording_notifications, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)
NAME = "nl\nname.jsonl"
SHOWN = "nl name.jsonl"  # as the picker's row shows it


def _named(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / NAME
    shutil.copy(ROOT / "sample_logs" / "docs_cleanup.jsonl", path)
    return path


async def test_a_line_break_in_a_name_cuts_neither_the_picker_nor_the_header(
    tmp_path: Path,
) -> None:
    """Walk 38, F2: the name under the picker's list read ``nl`` (its border cut at the
    line break, the counts gone), and once the file was open the header was
    `` chunkscope  nl``, its format, tool calls and turns gone."""
    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.widgets.header_line import HeaderLine

    folder = tmp_path / "names"
    _named(folder)
    app = ChunkscopeApp(
        StartOptions(folder=str(folder), fixed_timings=True, loading_dialog_delay=60.0)
    )
    async with app.run_test(size=NARROW) as pilot:
        screen = await picker_listed(pilot, app)
        box = screen.query_one("#sessions", OptionList)
        await until(pilot, lambda: box.highlighted is not None)
        await pilot.pause()
        drawn = [strip.text for strip in app.screen._compositor.render_strips()]
        bottom = drawn[box.region.bottom - 1]  # the list's border, the name on it
        assert f" {SHOWN} · 1 session ─╯" in bottom, bottom
        rows = [line for line in drawn if SHOWN in line]
        assert len(rows) == 3, drawn  # the tree's row, the list's row, the border: alike

        box.focus()
        await pilot.press("enter")
        await settled(pilot, app)
        header = app.screen.query_one(HeaderLine)
        line = "".join(seg.text for seg in header.render_line(0))
        said = header.render().plain
        assert "\n" not in said, said
        assert line.startswith(f" chunkscope  {SHOWN} · jsonl · "), line
        assert "214 turns" in line, line


def test_the_commands_name_the_file_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 38, F2: ``chunkscope chunk`` (and ``sweep``, ``eval``) printed the path with
    its line break, its first line cut in two; a note naming the file is one line too."""
    path = _named(tmp_path / "names")
    shown = str(path).replace("\n", " ")
    assert main(["chunk", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{shown}: jsonl, 214 turns, "), first

    assert main(["sweep", str(path), "--param", "threshold", "--points", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{shown}: threshold across 2 values"), first

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [1, 100]}), encoding="utf-8")
    assert main(["eval", str(path), "--gold", str(gold)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{shown}: "), first

    # a note that names the file: one line, the name as the first line says it
    with path.open("a", encoding="utf-8") as f:
        f.write("{not json\n")
    assert main(["chunk", str(path), "-o", str(tmp_path / "out.txt")]) == 0
    err = capsys.readouterr().err
    notes = err.splitlines()
    assert notes and all(n.startswith("chunkscope: ") for n in notes), err
    assert any(f"(first: {shown}:" in n for n in notes), notes
    head = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith(f"{shown}: jsonl, "), head
    # JSON keeps the path as it is: data, not a line to read
    assert main(["chunk", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == str(path)


async def test_writing_to_a_folder_is_refused_as_every_write_is(tmp_path: Path) -> None:
    """Walk 38, F4: ``w`` with a folder said ``/tmp/x/adir is a directory.``; the
    dialog's other failures and the commands say ``cannot write PATH: reason``."""
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen

    folder = tmp_path / "adir"
    folder.mkdir()
    app = make_app()
    shown = recording_notifications(app)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        prompt = app.screen
        prompt.query_one(Input).value = str(folder)
        await pilot.press("enter")
        said = f"cannot write {folder}: Is a directory"
        await until(pilot, lambda: bool(shown))
        assert shown == [said], shown
        # the dialog comes back with the path typed, to be corrected
        await until(
            pilot, lambda: app.screen is not prompt and isinstance(app.screen, PromptScreen)
        )
        assert app.screen.query_one(Input).value == str(folder)
        assert list(folder.iterdir()) == []
