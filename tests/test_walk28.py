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


def test_a_failed_patch_followed_by_a_command_changed_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F2: a Codex shell command `apply_patch <<'EOF' ... EOF && python -m pytest`
    whose patch did not apply ("Failed to find expected lines") listed the file as changed;
    the same line whose patch applied still does."""
    from tests.test_walk27 import _PATCH, _codex_shell

    failed = "Exit code: 1\nOutput:\nFailed to find expected lines in src/a.py\n"
    log = _codex_shell(tmp_path, (f"{_PATCH} && python -m pytest -q", failed))
    assert main(["recap", str(log)]) == 0
    assert "## Files changed" not in capsys.readouterr().out
    ok = "Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/a.py\n3 passed\n"
    log = _codex_shell(tmp_path, (f"{_PATCH} && python -m pytest -q", ok))
    assert main(["recap", str(log)]) == 0
    assert "- src/a.py (1 edit)" in capsys.readouterr().out
