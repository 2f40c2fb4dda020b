"""Walk 50: the command line on real data (chunk, recap, report, search, serve, hostile
input). The findings of the command line's own code (tui/): the report's chart
(F5), the serve token's length (F6), and flag values refused before the session is
read (F10).

Each test fails on the code before its fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.pilot import SAMPLE


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
