"""Walk 40's findings: a multi-line text inside a call's list shows as its lines (F2),
a quoted argument's stop ends a collapsed call's sentence (F3), `tune --grid` says a
bad value in the CLI's words (F4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.engine.toolcall import format_call
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
CANVAS = ROOT / "tests" / "fixtures" / "chatgpt" / "walk25-tool-bodies.json"


def test_a_nested_multi_line_text_shows_as_its_lines() -> None:
    """ChatGPT's canvas update holds its new text in `updates=[...]`: it showed only its
    first line (`replacement="# Tides"…`), "In, out." nowhere in the chunk, though the
    header says every word is findable."""
    shown = format_call(
        "canmore.update_textdoc",
        {"updates": [{"pattern": ".*", "multiple": False, "replacement": "# Tides\n\nIn, out."}]},
    )
    assert shown.endswith("replacement:\n# Tides\nIn, out.")
    assert shown.count("\n") == 2  # the pairs on one line, then the text's two lines
    # a text at the top keeps its own block; a one-line nested text stays in the pairs
    assert format_call("edit", {"edits": [{"new": "x"}]}) == "edit edits=[new=x]"


def test_the_canvas_update_is_in_the_chunk_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", str(CANVAS)]) == 0
    assert "In, out." in capsys.readouterr().out


def test_a_quoted_arguments_stop_ends_the_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    """`Called bio "User likes haiku.".` had two stops; other sentences one."""
    assert main(["chunk", str(CANVAS), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert 'Called bio "User likes haiku."\n' in out or out.rstrip().endswith(
        'Called bio "User likes haiku."'
    )
    assert '"User likes haiku.".' not in out


@pytest.mark.parametrize(
    ("grid", "said"),
    [
        ("topic_window=1.5,2", "expected a whole number, got '1.5'"),
        ("topic_depth=a,b", "expected a number, got 'a'"),
    ],
)
def test_a_bad_grid_value_is_said_in_the_clis_words(
    grid: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`invalid literal for int() with base 10: '1.5'` was Python's wording."""
    gold = tmp_path / "g.gold"
    gold.write_text('{"starts": [1, 40]}')
    log = str(ROOT / "sample_logs" / "cache_refactor.jsonl")
    assert main(["tune", log, "--gold", str(gold), "--grid", grid]) == 2
    assert capsys.readouterr().err == f"chunkscope: --grid {grid}: {said}\n"
