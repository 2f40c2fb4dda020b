"""Walk 66's findings on the workbench: F1 (beside the key panel at 100 columns a
strategy's ``sim`` row cut its note inside a word: ``no scores: sliding-wind…``), F2 (`n`
said the closest count was at topic depth 2.2 and ``n 37 goes there``, and ``n 37`` then
went to depth 0, another chunking), F3 (``Good!`` as a summary's second sentence), F4 (a
search result moved to or entered with a strategy in the right column did nothing, and
nothing said why).

Each test fails on the code before its fix."""

from __future__ import annotations

import re

import pytest

from tests.pilot import ROOT, burst, make_app, recording_notifications, settled, wait_for

DOCS = ROOT / "sample_logs" / "docs_cleanup.jsonl"


async def test_f2_n_goes_where_the_note_of_a_count_out_of_reach_said() -> None:
    app = make_app(DOCS, topic_chunk_tokens=325)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        burst(app, "n", "ctrl+u", *"40", "enter")
        assert await wait_for(pilot, lambda: any("goes there" in s for s in shown), 20), shown
        said = next(s for s in shown if "goes there" in s)
        found = re.search(
            r"the closest is (\d+), at topic depth ([\d.]+);.*\(n (\d+) goes there\)", said
        )
        assert found, said
        count, depth = int(found.group(1)), float(found.group(2))
        await settled(pilot, app)
        burst(app, "n", "ctrl+u", *str(count), "enter")
        assert await wait_for(pilot, lambda: len(shown) >= 2, 20), shown
        await settled(pilot, app)
        assert app.state.tuning.topic.topic_depth == pytest.approx(depth), (said, shown[-1])
        assert len(app.workbench.view.result.chunks) == count


@pytest.mark.paints
async def test_f1_a_strategy_s_sim_note_is_never_cut_inside_a_word() -> None:
    from textual.widgets import HelpPanel

    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app(DOCS)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        app.action_show_help_panel()
        await wait_for(pilot, lambda: bool(bench.query(HelpPanel)) and bench.keys_open, 10)
        seen = 0
        for _ in range(5):  # blank-line, sliding-window, ... on the right
            await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: app.column_result("right") is not None, 10)
            await wait_for(pilot, app.workers_idle, 10)
            await pilot.pause(0.2)
            strip = bench.query_one("#strip-right", SimilarityStrip)
            row = next((r for r in strip.rendered_lines() if r.startswith("sim")), "")
            if "no scores" not in row:
                continue
            seen += 1
            text = row.rstrip()
            assert not re.search(r"\w…$", text), text  # "…" only after a whole word
        assert seen, "no strategy's sim row said it has no scores"


def test_f3_filler_never_makes_up_a_summary_s_second_sentence() -> None:
    """``Good!`` after a tool's sentence was the summary's second sentence (the Summary
    panel's "summary" part read ``Good!``)."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    text = (
        'Bot: Good!\nTool: Ran `find . -name "*.py" | grep -i validator` (exit 0):'
        " ./django/contrib/auth/validators.py"
    )
    summary = ExtractiveSummarizer().summarize(text)
    assert "Good" not in summary.summary, summary.summary
    assert summary.summary.startswith("Ran `find .")
    alone = ExtractiveSummarizer().summarize("Bot: Perfect!")  # nothing else: still said
    assert alone.summary == "Perfect!"


async def test_f4_a_search_result_with_a_strategy_in_the_right_column_says_where_it_is() -> None:
    from chunkscope.tui.widgets.summary_panel import SummaryPanel

    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        await pilot.press("right_square_bracket")  # the right column: a strategy
        await wait_for(pilot, lambda: app.column_result("right") is not None, 10)
        shown = recording_notifications(app)
        await pilot.press("slash")
        burst(app, *"vectors stored in sqlite", "enter")
        await wait_for(pilot, lambda: app.search_answer is not None, 10)
        await pilot.pause()
        answer = app.search_answer
        assert answer is not None and len(answer.results) >= 2
        burst(app, "down", "down", "enter")
        await wait_for(pilot, lambda: any("merged run's" in s for s in shown), 10)
        second = answer.results[1].chunk
        title = str(bench.query_one(SummaryPanel).border_title)
        assert f"chunk {second}" in title, title


def test_walk67_f1_filler_is_no_abstract_when_the_chunk_has_more() -> None:
    """Walk 67, F1: "Good! Let me examine the L031 rule file ..." had "Good!" as its
    abstract (the Summary panel's first line)."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    summary = ExtractiveSummarizer().summarize(
        "Bot: Good! Let me examine the L031 rule file to understand its implementation:"
    )
    assert summary.abstract.startswith("Let me examine the L031 rule file"), summary
    assert "Good" not in summary.summary
