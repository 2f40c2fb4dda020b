"""What walk 28 left open, fixed in the session after it (each test fails on the code
before its fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pilot import SAMPLE


def _flag_rows(html: str) -> dict[str, str]:
    from tests.test_report import _texts

    cells = _texts(html, "td")
    return {cells[i]: cells[i + 1] for i in range(len(cells) - 1) if cells[i].startswith("--")}


@pytest.mark.parametrize(
    ("argv", "knob", "default"),
    [
        (("--topics", "5"), "--topic-depth", "7"),
        (("--chunks", "12", "--merge", "seed"), "--threshold", "adaptive"),
    ],
)
def test_the_knob_a_count_sets_shows_the_value_the_page_was_made_at(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    knob: str,
    default: str,
) -> None:
    """Walk 28, F6: with `--topics 5` the flags table said `--topic-depth 7` (the
    setting's default) for a page made at the depth that gives 5 topics; a reader who
    reran with it got another page."""
    from tests.test_report import report

    code, html = report(tmp_path, capsys, str(SAMPLE), *argv)
    assert code == 0
    rows = _flag_rows(html)
    assert rows[knob] != default, rows
    float(rows[knob])  # a value a flag takes
    assert rows[argv[0]] == argv[1]


def test_an_empty_strategy_parameter_says_an_empty_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F6: `--topic-markers` unset showed an empty cell, where every other value
    is JSON-style (`--max-passes null`)."""
    from tests.test_report import report

    code, html = report(tmp_path, capsys, str(SAMPLE), "--strategy", "boundary")
    assert code == 0
    assert _flag_rows(html)["--topic-markers"] == '""'
