"""Walk 62's findings on the workbench: F1 (a resize put the search results' cursor back
on the first result, the chunk chosen lost), F2 (a recap empty because no chunk has a
summary was previewed blank and written without a word why), F4 (a resize that rebuilds
the layout while a panel is zoomed left the screen hatched, the zoomed panel gone) and
F5 (an expanded card folded back at the same resize); F7 (a summary said one question
twice, reworded).

Each test fails on the code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import ROOT, make_app, recording_notifications, settled, until, wait_for

SIZES = [((160, 48), (100, 30)), ((100, 30), (160, 48))]


@pytest.mark.parametrize("sizes", SIZES, ids=["narrower", "wider"])
async def test_f4_a_zoomed_panel_stays_zoomed_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    first, then = sizes
    app = make_app()
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        bench.query_one("#merged", ChunkList).focus()
        await pilot.press("z")
        await until(pilot, lambda: bench.maximized is not None)
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        merged = bench.query_one("#merged", ChunkList)
        assert await wait_for(pilot, lambda: bench.maximized is merged, 5), bench.maximized
        assert merged.region.height > then[1] // 2  # it fills the screen, drawn
        await pilot.press("z")
        assert await wait_for(pilot, lambda: bench.maximized is None, 5)


@pytest.mark.parametrize("sizes", SIZES, ids=["narrower", "wider"])
async def test_f5_an_expanded_card_stays_expanded_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    first, then = sizes
    app = make_app()
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        merged = bench.query_one("#merged", ChunkList)
        merged.focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: merged.is_expanded(1))
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        rebuilt = bench.query_one("#merged", ChunkList)
        assert rebuilt is not merged
        assert await wait_for(pilot, lambda: rebuilt.is_expanded(1), 5)
        assert not rebuilt.is_expanded(0)


NO_SUMMARY = "No merged chunk has a summary"


def test_f2_a_recap_of_chunks_without_summaries_says_why_it_is_empty(tmp_path: Path) -> None:
    """The command line says it too, after its count of chunks without one."""
    from chunkscope.tui.cli import main

    path = tmp_path / "codeonly.md"
    path.write_text("# Setup\n\n```bash\npip install chunkscope\n```\n", encoding="utf-8")
    from chunkscope.engine.pipeline import Pipeline

    selection = Pipeline(str(path)).recap()
    assert selection.text == ""
    assert selection.empty_why.startswith("no merged chunk has a summary")
    assert main(["recap", str(path), "-o", str(tmp_path / "r.md")]) == 0


async def test_f2_the_workbench_says_why_a_recap_without_summaries_is_empty(
    isolated: Path,
) -> None:
    """A markdown file of a title and a code block: the preview was blank and ``w`` wrote
    a 0-byte file without a word why."""
    from textual.widgets import TextArea

    from chunkscope.tui.screens.prompt import PromptScreen

    path = isolated / "codeonly.md"
    path.write_text("# Setup\n\n```bash\npip install chunkscope\n```\n", encoding="utf-8")
    app = make_app(path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        preview = bench.query_one("#recap-preview", TextArea)
        assert await wait_for(pilot, lambda: NO_SUMMARY in preview.text, 5), preview.text
        shown = recording_notifications(app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("enter")
        await until(pilot, lambda: any("Wrote" in s for s in shown))
        assert any(NO_SUMMARY in s for s in shown), shown


@pytest.mark.parametrize("sizes", SIZES, ids=["narrower", "wider"])
async def test_f1_the_search_result_moved_to_stays_chosen_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """research_notes, ``/ tide pool``, ↓ to the fourth result (chunk 56): after a resize
    `c` copied the first result's chunk, the cursor back on row 0."""
    from chunkscope.tui.widgets.search_panel import SearchPanel

    first, then = sizes
    app = make_app(ROOT / "sample_logs" / "research_notes.jsonl")
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("slash", *"tide pool", "enter")
        panel = bench.query_one(SearchPanel)
        await until(pilot, lambda: panel.row == 0)
        await pilot.press("down", "down", "down")
        await until(pilot, lambda: panel.row == 2)
        chosen = bench.query_one("#merged", ChunkList).selected
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        rebuilt = bench.query_one(SearchPanel)
        assert rebuilt is not panel
        assert await wait_for(pilot, lambda: rebuilt.row == 2, 5), rebuilt.row
        await pilot.pause()
        assert bench.query_one("#merged", ChunkList).selected == chosen


def test_f7_a_question_asked_again_reworded_is_said_once() -> None:
    """mini-pvlib-1707 (the bench's recap sessions): the summary said "Now we must also
    consider the case where n != 1 but aoi >= 90?" and "... also handle the case ..."
    and left out the decision between them."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    text = (
        "Bot thinking: Now we must also consider the case where n != 1 but aoi >= 90? "
        "The physical model probably still expects zero transmission. So we can simply "
        "set iam = 0 for abs(aoi) >= 90.\n\nBot thinking: Now we must also handle the case "
        "where n != 1 but aoi > 90? We follow the same rule as ashrae."
    )
    summary = ExtractiveSummarizer().summarize(text).summary
    assert summary.count("Now we must also") == 1, summary


def test_f7_sentences_of_one_template_about_different_things_are_both_said() -> None:
    """One word apart but short, their differing word the point: two sentences."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    text = (
        "Bot: I changed the docs code so the docs problem is fixed.\n\n"
        "Bot: I changed the theme code so the theme problem is fixed."
    )
    summary = ExtractiveSummarizer().summarize(text).summary
    assert "docs" in summary and "theme" in summary
