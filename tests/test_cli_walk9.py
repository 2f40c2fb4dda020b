"""Walk 9's CLI findings: `-o -` is stdout (#13), the wording of errors and metrics (#14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
LOG = str(ROOT / "sample_logs" / "cache_refactor.jsonl")


@pytest.mark.parametrize(
    ("command", "extra", "expected"),
    [
        ("chunk", [], "--- Chunk 0 "),
        ("recap", [], "## "),
        ("search", ["sqlite cache"], "lines"),
        ("report", [], "<!DOCTYPE html>"),
    ],
)
def test_dash_output_is_stdout(
    command: str,
    extra: list[str],
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`-o -` writes to stdout, as `-` means in most tools; no file named `-` (walk 9 #13)."""
    monkeypatch.chdir(tmp_path)
    assert main([command, LOG, *extra, "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert expected in out
    assert list(tmp_path.iterdir()) == []


def test_hook_refuses_dash_output_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook answers its agent on stdout: `-o -` is refused, exit 2, one line."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(["hook", "session-end", "-o", "-"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "give a file" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "flag", "words"),
    [
        (["search", LOG, "q", "--top", "x"], "--top", "a whole number"),  # a knob's flag
        (["chunk", LOG, "--max-chars", "abc"], "--max-chars", "a whole number"),
        (["chunk", LOG, "--session", "x"], "--session", "a whole number"),  # a type=int flag
        (["tune", LOG, "--top", "x"], "--top", "a whole number"),
        (["chunk", LOG, "--strategy", "markdown", "--overlap", "x"], "--overlap", "a number"),
    ],
)
def test_bad_numbers_are_worded_one_way(
    args: list[str], flag: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`expected a whole number, got 'x'`, never `expected a int` nor argparse's
    `invalid int value` (walk 9 #14)."""
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        f"argument {flag}: expected {words}, got 'x' (see --help)".replace("'x'", repr(args[-1]))
    )
    assert "a int" not in err and "invalid" not in err
