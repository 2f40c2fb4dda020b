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


GOLD = '{"starts": [1, 6, 75]}'
SCORED = {
    "eval": ["--gold", "GOLD"],
    "sweep": ["--param", "topic_depth", "--points", "2", "--gold", "GOLD"],
    "tune": ["--gold", "GOLD", "--grid", "topic_depth=7,40"],
}


@pytest.mark.parametrize("command", sorted(SCORED))
def test_scoring_commands_write_to_o_or_stdout(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`eval`, `sweep` and `tune` took -o OUT and printed to stdout all the same; now OUT
    is written (atomically, as every command's) and `-o -` is stdout (walk 9 #13)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.json").write_text(GOLD, encoding="utf-8")
    args = [command, LOG, *("g.json" if a == "GOLD" else a for a in SCORED[command])]
    assert main([*args, "-o", "-"]) == 0
    printed = capsys.readouterr().out
    assert "Pk" in printed and sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]
    assert main([*args, "-o", "out.txt"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and "wrote out.txt" in out.err
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == printed


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


def test_cache_info_of_an_empty_cache_says_no_vectors_before_other_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty cache printed only "0 other entries": other than what? (walk 9 #14)."""
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path))
    assert main(["cache", "info"]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert lines[2:] == [["0", "vectors"], ["0", "other", "entries", "(summaries)"]]


def test_eval_names_its_scores_as_sweep_and_tune_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One name per score in every command's text (`SCORE_NAMES`; walk 9 #14)."""
    from chunkscope.engine.evaluate.measure import SCORE_NAMES

    gold = tmp_path / "gold.json"
    gold.write_text('{"starts": [1, 6, 75]}', encoding="utf-8")
    assert main(["eval", LOG, "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    for key in ("pk", "windowdiff", "precision", "recall", "f1"):
        assert f"{SCORE_NAMES[key]} 0." in out or f"{SCORE_NAMES[key]}  " in out
    assert "WD " not in out


def test_sweep_plots_say_their_range_as_the_table_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 10, 6: the plots' ranges had six decimals (``0.067064 .. 0.457263``) beside a
    table of three: scores as `score_text` writes them, counts whole."""
    import re

    gold = tmp_path / "gold.json"
    gold.write_text('{"starts": [1, 6, 75]}', encoding="utf-8")
    assert main(["sweep", LOG, "--param", "topic_depth", "--gold", str(gold)]) == 0
    plots = [ln for ln in capsys.readouterr().out.splitlines() if " .. " in ln]
    assert plots
    for line in plots:
        low, high = re.search(r"(\S+) \.\. (\S+)  \(", line).groups()  # type: ignore[union-attr]
        for v in (low, high):
            assert re.fullmatch(r"\d+\.\d{3}|[\d,]+", v), line
