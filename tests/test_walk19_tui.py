"""Review walk 19, findings 9, 10 and 11: the similarity strip's adaptive depth, the
markdown export of a chunk with no summary, and a burst typed into the export dialogs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pilot import SAMPLE, SIZE, make_app, settled, until

NARROW = (100, 30)


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_a_burst_through_the_export_dialogs_writes_the_typed_path(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Walk 19, 11: ``e ⏎ ⌫×30 PATH ⏎`` typed at once (tmux send-keys) often wrote
    nothing, or a path with its first characters cut: the keys typed while the chooser
    and then the path prompt were being pushed were lost or reordered. Every key reaches
    the dialog on top, in order: the file typed is written."""
    from tests.pilot import burst

    target = tmp_path / "burst.json"
    app = make_app(SAMPLE.parent / "shell_cookbook.md")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        burst(app, "e", "enter", *["backspace"] * 30, *str(target), "enter")
        await until(pilot, target.exists, 10)
        rows = json.loads(target.read_text())
        assert rows, rows
        assert app.workbench is not None and app.screen is app.workbench


async def test_the_strip_title_gives_the_depth_an_adaptive_topic_run_computed() -> None:
    """Walk 19, 9: with topic depth ``adaptive`` the strip's title said ``topic depth ≥
    adaptive``; it gives the threshold the run cut at, as the JSON's cuts do."""
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app(SAMPLE.parent / "cache_refactor.jsonl", topic_depth="adaptive")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        merged = bench.view.result
        assert merged.params.mode == "topic" and merged.cuts
        found = merged.cut_threshold
        assert all(c.threshold == pytest.approx(found) for c in merged.cuts if c.depth)
        _name, forms = bench.query_one("#strip", SimilarityStrip)._title
        assert f"topic depth ≥ {found:.2f} (adaptive)" in forms[0], forms
        assert not any("≥ adaptive" in form for form in forms), forms


def test_the_markdown_export_says_a_chunk_has_no_summary() -> None:
    """Walk 19, 10: a chunk with no summary (code only, a lead-in alone) was exported
    with ``**Abstract (the whole summary):** `` and nothing after it; it says there is
    none, in the recap's words, and leaves no label empty."""
    from types import SimpleNamespace

    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.recap.core import NO_SUMMARY_WHY
    from chunkscope.engine.summarize import Summary
    from chunkscope.engine.tokens import get_counter
    from chunkscope.tui.workbench.exports import merged_markdown

    pipe = Pipeline(SAMPLE)
    result = pipe.merged()
    first, second = result.chunks[0].text, result.chunks[1].text
    summaries = {first: Summary("", ""), second: Summary("Only this.", "Only this.")}
    view = SimpleNamespace(source=pipe.source(), result=result, merged_tokens=None)
    md = merged_markdown(view, summaries, get_counter("cl100k_base"))  # type: ignore[arg-type]
    assert f"*No summary: {NO_SUMMARY_WHY}.*" in md
    assert md.count("No summary") == 1
    assert "**Abstract (the whole summary):** Only this." in md
    assert not any(line.rstrip().endswith(":**") for line in md.splitlines()), md


def test_the_picker_lists_rst_and_txt_documents_titled_by_their_first_heading(
    tmp_path: Path,
) -> None:
    """Walk 19, 7: a folder of ``.rst`` manuals listed nothing (docs/input-formats.md
    names ``.rst`` and ``.txt`` documents), and a document's title was its first line:
    ``---`` (front matter), ``<h1 align="center">Widget</h1>``, ``===`` (an overline).
    Such documents are listed, titled by their first heading."""
    from chunkscope.engine.read.formats.folders import list_sessions, readable_name

    files = {
        "cmake.1.rst": ".. manual: x\n\n========\ncmake(1)\n========\n\nText.\n",
        "notes.txt": "Notes\n=====\n\nSome text here.\n",
        "fm.md": "---\ntitle: x\n---\n\n# Real\n\nText.\n",
        "htm.md": '<h1 align="center">Widget</h1>\n\nText.\n',
        "h2.md": "<h2>A &amp; B</h2>\n\nText.\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert all(readable_name(name) for name in files)
    titles = {Path(s.path).name: s.title for s in list_sessions(tmp_path)}
    assert titles == {
        "cmake.1.rst": "cmake(1)",
        "notes.txt": "Notes",
        "fm.md": "Real",
        "htm.md": "Widget",
        "h2.md": "A & B",
    }
