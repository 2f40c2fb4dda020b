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


async def test_m_after_arrows_in_the_turn_view_marks_the_turn_they_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 41, F1: in the turn view, `↓ ↓ ↓ m` in one burst reached merged chunk 3, all
    of whose text is inside a message chunk 2 starts (split between them): the left
    selection stayed on item 0 and `m` said "A topic always starts at line 1". The
    chunk's item is the one holding its text, burst or not."""
    from tests.pilot import SAMPLE, burst, make_app, recording_notifications, settled, wait_for

    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHUNKSCOPE_CONFIG_DIR", str(tmp_path / "cfg"))
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("v")
        await wait_for(pilot, lambda: bench.view is not None and bench.view.left_kind == "turns")
        await pilot.pause()
        a, b = bench.view.left_range(3)  # type: ignore[union-attr]
        assert a == b > 0  # (what the finding needs: chunk 3 owns no turn of its own)
        said = recording_notifications(app)
        burst(app, "down", "down", "down", "m")
        await wait_for(pilot, lambda: bool(said), 5)
        await pilot.pause()
        assert said and said[0].startswith("Topic mark: a topic starts at line 14"), said
        held = bench.view.result.chunks[3].lines  # type: ignore[union-attr]
        item = bench.left_items()[a - 1]
        assert held is not None and item.lines is not None and item.lines[0] <= held[0]


async def test_a_compare_columns_card_over_the_cap_is_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 42, F1: a merge column's card larger than the size cap (one unit kept whole)
    had no `over cap!` flag, which the same chunk has in the main view."""
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from tests.logs import seed_log
    from tests.pilot import make_app, settled, wait_for

    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHUNKSCOPE_CONFIG_DIR", str(tmp_path / "cfg"))
    huge = " ".join(f"word{i}" for i in range(2500))  # one paragraph over 8192 chars
    log = seed_log(
        tmp_path,
        [
            ("user", "Please paste the whole generated list here for me."),
            ("assistant", huge),
            ("user", "Thanks, now sum it up in one line please."),
            ("assistant", "It is a list of numbered words, nothing else."),
        ],
    )
    app = make_app(log)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        app.set_column_strategy("left", "merge:seed")  # type: ignore[attr-defined]
        lst = bench.query_one("#before", ChunkList)
        await wait_for(pilot, lambda: any(len(c.text) > 8192 for c in lst.chunks), 20)
        await pilot.pause()
        big = next(i for i, c in enumerate(lst.chunks) if len(c.text) > 8192)
        assert lst._over is not None and bool(lst._over[big])
        assert "over cap!" in "".join(s.text for s in lst.render_line(0)) or any(
            "over cap!" in "".join(s.text for s in lst.render_line(y)) for y in range(20)
        )


def test_a_markdown_overlap_never_starts_inside_inline_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 42, F2: the markdown strategy's overlap began between `chess.js` and its
    closing backtick: the chunk opened with a stray backtick, the source's span open.
    It starts after the span instead."""
    import json
    import re

    from chunkscope.engine.textutil import code_spans

    words = " ".join(
        f"Step {i} vendors `chess{i}.js` or `board{i}.ts`, then renders it." for i in range(150)
    )
    doc = tmp_path / "spans.md"
    doc.write_text(f"# Notes\n\n{words}\n", encoding="utf-8")
    loose_firsts = []
    for overlap in range(5, 45, 3):
        argv = ["chunk", str(doc), "--strategy", "markdown", "--max-tokens", "60"]
        assert main([*argv, "--overlap", str(overlap), "--format", "json"]) == 0
        chunks = json.loads(capsys.readouterr().out)["chunks"]
        assert len(chunks) > 10
        for c in chunks:
            line = c["text"].split("\n", 1)[0]
            spans = code_spans(line)
            if any(not any(a <= m.start() < b for a, b in spans) for m in re.finditer("`", line)):
                loose_firsts.append((overlap, line[:40]))
    assert loose_firsts == []
