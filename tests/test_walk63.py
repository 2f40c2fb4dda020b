"""Walk 63's findings on the workbench: F1 (with the Search panel open, `]` to a
strategy column left the merged run's ``⌕rank`` marks on the strategy's cards, by
index), F2 (after enter on a search result, esc did not close the Search panel whose
border says ``esc closes``), F3 (two of three ↓ sent in one burst from the search
question were lost), F4 (the Summary body was a Tab stop that did nothing when the
summary fits) and F5 (at 100 columns `z` on the Summary or Recap tab hid which chunk it
is: the zoomed panel had no title); F6 (with the llm summarizer failed, a slider step left
the Recap's title at ``updating…`` for good); F8 (the compare view's strips beside the
key panel at 100 columns cut the names of the marks row's ``◆`` and of the red spurious
cuts, and said the cap and the scale).

Each test fails on the code before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.search_panel import SearchPanel
from tests.pilot import ROOT, burst, make_app, settled, until, wait_for

pytestmark = pytest.mark.usefixtures("isolated")

DOCS = ROOT / "sample_logs" / "docs_cleanup.jsonl"
WIDE, NARROW = (160, 48), (100, 30)


async def _ask(pilot: Any, app: ChunkscopeApp, question: str) -> SearchPanel:
    """`/`, `question`, enter; the panel, once its answer is drawn."""
    bench = app.workbench
    assert bench is not None
    await pilot.press("slash", *question, "enter")
    await until(pilot, lambda: app.search_answer is not None and app.search_view is bench.view)
    panel = bench.query_one(SearchPanel)
    await until(pilot, lambda: panel.row is not None)
    return panel


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
async def test_f1_a_strategy_column_shows_no_search_marks(size: tuple[int, int]) -> None:
    app = make_app(DOCS)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await _ask(pilot, app, "where do the how-to guides go")
        merged = bench.query_one("#merged", ChunkList)
        assert merged._hits
        merged.focus()
        await pilot.press("right_square_bracket")  # the right column: a strategy
        await until(pilot, lambda: app.column_specs["right"] is not None)
        await until(pilot, lambda: app.column_result("right") is not None)
        await pilot.pause()
        assert bench.query_one(SearchPanel).display
        assert merged._hits == {}
        assert not any("⌕" in line for line in merged.rendered_lines())
        # back to the merged run: its marks come back
        for _ in range(20):
            if app.column_specs["right"] is None:
                break
            await pilot.press("right_square_bracket")
        await until(pilot, lambda: app.column_specs["right"] is None)
        await pilot.pause()
        answer = app.search_answer
        assert answer is not None
        assert merged._hits == {r.chunk: r.rank for r in answer.results}


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
async def test_f2_esc_closes_the_search_after_enter_on_a_result(size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        panel = await _ask(pilot, app, "why did the merge view crash")
        answer = app.search_answer
        assert answer is not None and len(answer.results) > 2
        await pilot.press("down", "down", "enter")  # results, row 2: enter goes to its chunk
        merged = bench.query_one("#merged", ChunkList)
        await until(pilot, lambda: app.focused is merged)
        chosen = answer.results[1].chunk
        assert bench.selected == chosen
        await pilot.press("escape")
        await until(pilot, lambda: not app.search_open)
        await pilot.pause()
        assert merged._hits == {}
        assert app.focused is merged and bench.selected == chosen
        if size == WIDE:
            assert not panel.display and bench.query_one("#lower").display
        else:
            from textual.widgets import TabbedContent

            assert bench.query_one(TabbedContent).active == "tab-merge"


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
async def test_f3_a_burst_of_downs_from_the_question_moves_as_many_rows(
    size: tuple[int, int],
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        panel = await _ask(pilot, app, "why did the merge view crash")
        answer = app.search_answer
        assert answer is not None and len(answer.results) > 3
        assert app.focused is panel.input and panel.row == 0
        burst(app, "down", "down", "down")
        await until(pilot, lambda: app.focused is panel.results)
        await wait_for(pilot, lambda: panel.row == 2, 3)
        await pilot.pause()
        # the first ↓ goes to the results (row 1), the two after it move two rows
        assert panel.row == 2
        assert app.workbench is not None and app.workbench.selected == answer.results[2].chunk


async def test_f4_the_summary_body_is_a_focus_stop_only_when_it_scrolls() -> None:
    from textual.widgets import TabbedContent

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        body = bench.query_one("#summary-scroll")
        assert body.max_scroll_y == 0  # the summary fits: nothing to scroll
        assert body not in bench.focus_chain
        budget = bench.query_one("#budget")
        assert budget in bench.focus_chain
        # tab from the last merge control goes on to the recap budget
        chain = bench.focus_chain
        bench.set_focus(chain[chain.index(budget) - 1])
        await pilot.press("tab")
        assert app.focused is budget
    app = make_app(DOCS)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        bench.query_one(TabbedContent).active = "tab-summary"
        body = bench.query_one("#summary-scroll")
        for chunk in range(len(bench.query_one("#merged", ChunkList).chunks)):
            bench.select_merged(chunk)  # (chunk 20's is longer than the tab)
            await pilot.pause()
            if await wait_for(pilot, lambda: body.max_scroll_y > 0, 0.05):
                break
        assert body.max_scroll_y > 0  # a summary longer than the tab: its body is a stop
        assert body in bench.focus_chain


def _screen_lines(app: ChunkscopeApp) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


async def test_f5_a_zoomed_summary_or_recap_tab_says_what_it_shows() -> None:
    from textual.widgets import TabbedContent

    app = make_app(DOCS)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        tabs = bench.query_one(TabbedContent)
        tabs.active = "tab-summary"
        body = bench.query_one("#summary-scroll")
        for chunk in range(len(bench.query_one("#merged", ChunkList).chunks)):
            bench.select_merged(chunk)  # one whose summary scrolls: its body a focus stop
            await pilot.pause()
            if await wait_for(pilot, lambda: body.max_scroll_y > 0, 0.05):
                break
        bench.set_focus(body)
        await pilot.press("z")
        summary = bench.query_one("#summary")
        await until(pilot, lambda: bench.maximized is summary)
        await pilot.pause()
        lines = _screen_lines(app)
        assert any(f"SUMMARY · chunk {bench.selected}" in line for line in lines), lines[:3]
        await pilot.press("z")
        await until(pilot, lambda: bench.maximized is None)
        tabs.active = "tab-recap"
        await pilot.pause()
        bench.set_focus(bench.query_one("#budget"))
        await pilot.press("z")
        recap = bench.query_one("#recap")
        await until(pilot, lambda: bench.maximized is recap)
        await pilot.pause()
        lines = _screen_lines(app)
        assert any("RECAP · " in line and " kept" in line for line in lines), lines[:3]


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
async def test_f6_no_updating_in_the_recap_title_when_the_summaries_failed(
    size: tuple[int, int],
) -> None:
    from chunkscope.tui.widgets.recap_panel import RecapPanel
    from chunkscope.tui.widgets.slider import Slider

    app = make_app(DOCS)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        app.use_summarizer("llm")  # no model in the config: it fails
        await until(pilot, lambda: app.recap_state == "failed")
        await until(pilot, app.workers_idle)
        recap = bench.query_one(RecapPanel)
        before = str(recap.border_title)
        assert "updating" not in before
        generation = app.run_generation
        slider = bench.query_one("#topic-chunk-tokens", Slider)
        bench.set_focus(slider)
        await pilot.press("left")
        await until(pilot, lambda: app.run_generation > generation)
        await until(pilot, app.workers_idle)
        await pilot.pause(0.3)
        assert app.recap_state == "failed"
        assert str(recap.border_title) == before
        assert not any("updating" in label for label in recap._tab_choices)


@pytest.mark.paints  # the strips fit their legends as they are drawn
async def test_f8_beside_the_key_panel_the_strips_name_every_glyph_drawn(tmp_path: Any) -> None:
    import json

    from textual.widgets import HelpPanel

    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [1, 60], "partial": False}), encoding="utf-8")
    app = make_app(DOCS, gold=str(gold))
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        app.set_column_strategy("left", "merge:seed")
        app.set_column_strategy("right", "merge:topic")
        await until(
            pilot,
            lambda: (
                app.column_result("left") is not None and app.column_result("right") is not None
            ),
        )
        app.action_show_help_panel()
        await until(pilot, lambda: bool(bench.query(HelpPanel)) and bench.keys_open)
        strips = list(bench.query(".column-strip").results(SimilarityStrip))
        await until(pilot, lambda: all(s.legend_rows and s.border_subtitle for s in strips))
        await pilot.pause(0.3)
        for strip in strips:
            assert "◆" in "".join(strip.rendered_lines())
            assert "spurious" in strip.verdicts
            border = strip.border_subtitle
            legend = ["".join(seg.text for seg in line) for line in strip._legend_lines]
            legend.append(getattr(border, "plain", str(border)))
            said = " ".join(legend)
            assert "missed" in said and "spurious cut" in said, (strip.id, legend)
            assert not any(line.endswith("…") for line in legend), (strip.id, legend)
