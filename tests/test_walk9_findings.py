"""Walk 9's workbench findings: the picker sets apart what `--latest` passes over (#11),
the report's command says the pins and excludes (#4), one rule for the save paths (#15)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.errors import NotText
from chunkscope.engine.textutil import file_size
from chunkscope.tui.app import ChunkscopeApp
from tests.pilot import SAMPLE, until


def _corpus(folder: Path) -> Path:
    """A real session, and newer: an empty file, a blank one, one of garbage."""
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "real.jsonl")
    os.utime(folder / "real.jsonl", (1_000_000_000, 1_000_000_000))
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "blank.jsonl").write_text("\n   \n\n", encoding="utf-8")
    (folder / "garbage.jsonl").write_text("[1]\n[2]\n3\n{bad\n", encoding="utf-8")
    return folder


def test_the_picker_and_latest_set_apart_the_same_files(tmp_path: Path) -> None:
    """One rule (`set_apart`, `nothing_to_read`): what `--latest` passes over is what the
    picker lists last, as nothing to read."""
    from chunkscope.engine.read.formats.folders import list_sessions, newest_readable, set_apart

    folder = _corpus(tmp_path / "logs")
    sessions, documents, unread = set_apart(list_sessions(folder))
    newest, passed = newest_readable(folder)
    assert [s.path for s in sessions] == [newest.path]
    assert sorted(s.path for s, _ in unread) == sorted(s.path for s, _ in passed)
    assert {Path(s.path).name: why for s, why in unread}["empty.jsonl"] == "empty"
    assert documents == []


async def test_the_picker_lists_files_with_nothing_to_read_last_and_apart(
    tmp_path: Path,
) -> None:
    """The picker listed empty, blank and unreadable files first among the sessions (a
    20-byte file as 0.0 KB) while `--latest` passed over them (walk 9 #11)."""
    from textual.widgets import OptionList

    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.screens.open_file import OpenFileScreen, SessionRow

    folder = _corpus(tmp_path / "logs")
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, OpenFileScreen))
        screen = app.screen
        assert isinstance(screen, OpenFileScreen)
        await until(pilot, lambda: screen.listed)
        assert [Path(s.path).name for s in screen.sessions] == ["real.jsonl"]
        assert sorted(Path(s.path).name for s, _ in screen.unread) == [
            "blank.jsonl",
            "empty.jsonl",
            "garbage.jsonl",
        ]
        box = screen.query_one("#sessions", OptionList)
        assert box.get_option_at_index(0).id == "session:0"  # the real one first
        rows = [box.get_option_at_index(i) for i in range(box.option_count)]
        texts = [str(o.prompt) for o in rows]
        heading = texts.index("nothing to read (3)")
        last = rows[heading + 1 :]
        # not opened, but reachable by the keys: Enter says why (walk 26, F4)
        assert all(
            str(o.id).startswith("unread:") and isinstance(o.prompt, SessionRow) for o in last
        )
        garbage = next(str(o.prompt) for o in last if "garbage" in str(o.prompt))
        size = (folder / "garbage.jsonl").stat().st_size
        assert f"{size} B" in garbage and "0.0 KB" not in garbage and "(no turns" in garbage
        assert "3 with nothing to read" in str(box.border_subtitle)


def _unreadable_corpus(folder: Path) -> dict[str, str]:
    """A real session and, newer, files that cannot be read at all: the hostile corpus's
    random bytes and binary markdown, a zip archive named .jsonl; {name: why listed}."""
    import random

    from tests.hostile.make_corpus import CASES, SEED

    folder.mkdir()
    shutil.copy(SAMPLE, folder / "real.jsonl")
    os.utime(folder / "real.jsonl", (1_000_000_000, 1_000_000_000))
    why = {}
    for case in ("random_bytes", "md_binaryish"):
        name, generate, _what = CASES[case]
        data = generate(random.Random(f"{SEED}:{case}"))
        (folder / name).write_bytes(data)
        why[name] = f"looks like a binary file (NUL bytes at byte {data.find(bytes(1))})"
    (folder / "export.jsonl").write_bytes(b"PK\x03\x04" + bytes(60))
    why["export.jsonl"] = "looks like a zip archive"
    return why


def test_files_that_cannot_be_read_are_listed_as_nothing_to_read(tmp_path: Path) -> None:
    """Walk 13, 6: `list_sessions` left out every file `sniff` refuses, so a binary
    `.jsonl` was in neither the picker's lists nor `--latest`'s passed-over note; it is
    listed, with why in the commands' words, and `--latest` names it (a markdown file is
    no session for `--latest`: the picker alone lists a binary one)."""
    from chunkscope.engine.read.formats.folders import list_sessions, newest_readable, set_apart
    from chunkscope.engine.read.source import check_text

    folder = tmp_path / "logs"
    why = _unreadable_corpus(folder)
    sessions, documents, unread = set_apart(list_sessions(folder))
    assert [Path(s.path).name for s in sessions] == ["real.jsonl"] and documents == []
    assert {Path(s.path).name: w for s, w in unread} == why
    for name, reason in why.items():  # the words the commands refuse the file in
        if "binary" in reason:
            with pytest.raises(NotText, match=re.escape(f"{reason}, not a log or markdown")):
                check_text(folder / name)
    newest, passed = newest_readable(folder)
    assert Path(newest.path).name == "real.jsonl"
    assert sorted(Path(s.path).name for s, _ in passed) == ["export.jsonl", "random_bytes.jsonl"]


async def test_the_picker_lists_binary_files_as_nothing_to_read(tmp_path: Path) -> None:
    from textual.widgets import OptionList

    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.screens.open_file import OpenFileScreen

    folder = tmp_path / "logs"
    why = _unreadable_corpus(folder)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, OpenFileScreen))
        screen = app.screen
        assert isinstance(screen, OpenFileScreen)
        await until(pilot, lambda: screen.listed)
        box = screen.query_one("#sessions", OptionList)
        texts = [str(box.get_option_at_index(i).prompt) for i in range(box.option_count)]
        heading = texts.index("nothing to read (3)")
        for name, reason in why.items():
            (row,) = [t for t in texts[heading + 1 :] if name in t]
            assert row.endswith(f"{name}  ({reason.removeprefix('looks like ')})"), row
        assert "1 session · 3 with nothing to read" in str(box.border_subtitle)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1 << 40))
def test_a_file_size_is_never_zero_for_a_file_that_is_not_empty(n: int) -> None:
    shown = file_size(n)
    number = float(shown.split()[0].replace(",", ""))
    assert (number == 0) == (n == 0)
    assert shown.split()[1] == ("B" if n < 1024 else "KB" if n < 1 << 20 else "MB")


async def test_every_writer_proposes_a_file_in_the_current_folder(
    isolated: Path, tmp_path: Path
) -> None:
    """`M` proposed an absolute path next to the log, `w` and `e` one in the current
    folder: one rule (`save_path`), `./NAME` (walk 9 #15)."""
    from tests.pilot import make_app, settled

    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)
    gold = tmp_path / "session.gold.json"
    gold.write_text('{"starts": [1, 16, 53]}\n')
    app = make_app(log, gold=str(gold))
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        proposed = []
        for key in ("M", "w"):
            await pilot.press(key)
            await until(pilot, lambda: app.screen.query("#prompt-input"))
            proposed.append(app.screen.query_one("#prompt-input").value)  # type: ignore[attr-defined]
            await pilot.press("escape")
            await until(pilot, lambda: not app.screen.query("#prompt-input"))
        assert proposed == ["./session.gold.json", "./_recap.md"]
