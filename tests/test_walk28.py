"""Walk 28's findings (a fresh review after walk 27's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.pilot import SAMPLE

pytestmark = pytest.mark.usefixtures("isolated")


def test_the_same_run_shows_a_name_starting_with_a_dash_as_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 28, F7: Claude Code's project folders are named `-home-USER-PROJECT`, and "The
    same run" of `report --latest` named one bare, `chunkscope report --latest
    -home-u-proj`, which argparse reads as `-h`: the command shown printed the help. It is
    shown as `./-home-u-proj`, and the command runs."""
    import re
    import shutil

    folder = tmp_path / "projects" / "-home-u-proj"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "s.jsonl")
    out = tmp_path / "r.html"
    assert main(["report", "--latest", str(folder), "-o", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    same = re.search(r"chunkscope report [^<]*-o r\.html", page)
    assert same is not None, page[-2000:]
    command = same.group(0).replace("&#x27;", "'")
    assert "./-home-u-proj" in command, command
    monkeypatch.chdir(folder.parent)  # where the name is: the command runs as shown
    argv = shlex.split(command)[1:]
    argv[argv.index("-o") + 1] = str(tmp_path / "again.html")
    assert main(argv) == 0
    assert (tmp_path / "again.html").is_file()
