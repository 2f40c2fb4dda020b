"""Walk 50: the command line on real data (chunk, recap, report, search, serve, hostile
input). The findings of the command line's own code (tui/): the report's chart
(F5), the serve token's length (F6), and flag values refused before the session is
read (F10).

Each test fails on the code before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.hostile.proc import run_cli
from tests.pilot import SAMPLE
from tests.test_serve import needs_serve, serving_nothing


def test_the_report_s_chart_draws_the_topic_depth_the_run_used(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 50, F5: with ``--topics N`` the depth+structure chart's threshold line said
    the default ``topic depth 7.0000`` while the cuts and the Parameters table said the
    depth ``--topics`` chose."""
    from tests.test_report import _texts, report

    code, html = report(isolated, capsys, str(SAMPLE), "--topics", "3")
    assert code == 0
    drawn = re.findall(r'class="threshold"><title>topic depth ([\d.]+)</title>', html)
    assert len(drawn) == 1, drawn
    cells = _texts(html, "td")
    rows = {cells[i]: cells[i + 1] for i in range(len(cells) - 1) if cells[i].startswith("--")}
    used = float(rows["--topic-depth"])
    assert used != 7.0  # --topics moved it off the default
    assert float(drawn[0]) == pytest.approx(used, abs=1e-4)
    cut_thresholds = {round(float(t), 4) for t in re.findall(r"threshold ([\d.]+)", html)}
    assert cut_thresholds == {round(used, 4)}, cut_thresholds  # the cuts agree


@needs_serve
@pytest.mark.parametrize(
    ("token", "count"),
    [("x x x x x x x x x", "9 characters"), ("abcdefghijklmn o", "15 characters")],
)
def test_spaces_inside_a_serve_token_are_not_counted(
    token: str, count: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 50, F6: "16 characters or more, spaces not counted" discounted only the spaces
    around the token: nine characters spaced out were a token."""
    served = serving_nothing(monkeypatch)
    monkeypatch.setenv("CHUNKSCOPE_SERVE_TOKEN", token)
    assert main(["serve", str(SAMPLE)]) == 2 and not served
    assert capsys.readouterr().err == (
        f"chunkscope: $CHUNKSCOPE_SERVE_TOKEN is too short to guard the page: {count}, "
        "a token is at least 16 (unset it for a random one)\n"
    )
    # sixteen characters with spaces among them are enough
    monkeypatch.setenv("CHUNKSCOPE_SERVE_TOKEN", "abcd efgh ijkl mnop")
    assert main(["serve", str(SAMPLE)]) == 0 and served


@needs_serve
def test_a_serve_token_of_one_character_is_said_in_the_singular(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 50, F6: ``"a               "`` was refused as ``1 characters``."""
    serving_nothing(monkeypatch)
    monkeypatch.setenv("CHUNKSCOPE_SERVE_TOKEN", "a               ")
    assert main(["serve", str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert ": 1 character, a token is at least 16" in err, err


def _noted_log(tmp_path: Path) -> Path:
    """A Claude Code session whose reading says things (its folder, its branch, a record
    not read): the notes a refused flag must not follow."""
    base = {"sessionId": "s", "cwd": "/home/dev/proj", "gitBranch": "main", "version": "2.0.1"}
    lines = [{**base, "type": "progress", "uuid": "p0", "timestamp": "2026-01-22T19:38:00.000Z"}]
    for i, (role, text) in enumerate(
        [
            ("user", "Why does the build fail on the CI machine but not on mine?"),
            ("assistant", "The CI machine runs an older compiler; pin the version in the file."),
            ("user", "Pin it then, and run the tests again to be sure they pass."),
            ("assistant", "Pinned the compiler to 13.2 and the whole test suite passes now."),
        ],
        start=1,
    ):
        lines.append(
            {
                **base,
                "type": role,
                "uuid": f"u{i}",
                "timestamp": f"2026-01-22T19:38:{i:02d}.000Z",
                "message": {"role": role, "content": text},
            }
        )
    log = tmp_path / "s.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return log


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["recap", "LOG", "--topics", "0"],
            "argument --topics: topics must be a whole number >= 1",
        ),
        (
            ["chunk", "LOG", "--embed", "--chunks", "0"],
            "argument --chunks: chunks must be a whole number >= 1",
        ),
        (
            ["recap", "LOG", "--chunks", "-1"],
            "argument --chunks: chunks must be a whole number >= 1",
        ),
        (["eval", "LOG", "--gold", "/bin/ls"], "/bin/ls: looks like a binary file"),
        (
            ["chunk", "LOG", "-o", "NOWHERE/x.json"],
            "cannot write NOWHERE/x.json: No such file or directory",
        ),
    ],
)
def test_a_wrong_flag_value_is_refused_before_the_session_is_read(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    """Walk 50, F10: ``--topics 0``, ``--chunks 0``/``-1``, a binary ``--gold`` and an
    ``-o`` in a folder that does not exist were refused after the session was read, the
    error under its notes (``session in ...``, ``branch: ...``); they are refused alone,
    exit 2, as ``--budget 0`` is."""
    log = _noted_log(tmp_path)
    nowhere = str(tmp_path / "missing" / "dir")
    env = {f"CHUNKSCOPE_{d}_DIR": str(tmp_path / d.lower()) for d in ("CONFIG", "DATA", "CACHE")}
    # the session has notes to say when it is read
    read = run_cli(["chunk", str(log)], env=env)
    assert read.returncode == 0 and "session in /home/dev/proj" in read.stderr, read.describe()
    args = [str(log) if a == "LOG" else a.replace("NOWHERE", nowhere) for a in argv]
    r = run_cli(args, env=env)
    assert r.returncode == 2 and not r.stdout, r.describe()
    # one line: the flag's error, as argparse words it (``chunkscope recap: argument
    # --topics: ...``) or as a file's (``chunkscope: ...``); no note of the session
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and re.match(rf"chunkscope( {argv[0]})?: ", lines[0]), r.stderr
    assert said.replace("NOWHERE", nowhere) in lines[0], lines
    assert not (tmp_path / "missing").exists()
