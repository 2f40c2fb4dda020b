"""Walk 50: the command line on real data (chunk, recap, report, search, serve, hostile
input). The findings of the command line's own code (tui/): the report's chart
(F5), the serve token's length (F6), and flag values refused before the session is
read (F10).

Each test fails on the code before its fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
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
