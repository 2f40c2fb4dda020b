"""Walk 59's findings on the workbench at 160x48 and 100x30, the ones fixed. F5: at 100
columns a question typed in a burst right after → onto the Search tab ran as the
workbench's keys (`w` opened the recap writer, `t` switched the theme). F3: a resize
that changed the layout dropped the focus from a compare column's slider. F2: the merge
panel's live score counted two topic cuts on one line twice, a lower F1 than eval's and
auto-tune's for the same run. F4: a resize wiped a question typed and not asked yet.
F1: at 100 columns a long file name lost its start, the part telling it from its twin,
while the header kept the ``chunkscope`` badge and the turns' long form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pilot import ROOT, burst, make_app, settled, until, wait_for

SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"
NARROW = (100, 30)


async def test_f5_a_question_typed_in_a_burst_after_right_onto_search_is_the_questions(
    isolated: Path,
) -> None:
    """F5: the tab bar on the Recap tab, then ``→ w h y`` in one burst: the Search tab
    opened and ``w`` opened "Write the recap to" with ``hy`` in its path. The letters
    are the question's, as they are typed one at a time; no dialog, no theme switched."""
    from textual.widgets import TabbedContent, Tabs

    from chunkscope.tui.screens.workbench import WorkbenchScreen
    from chunkscope.tui.widgets.search_panel import SearchPanel

    app = make_app(SAMPLE)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        tabbed = bench.query_one(TabbedContent)
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, Tabs))
        await pilot.press("right", "right")
        await until(pilot, lambda: tabbed.active == "tab-recap")
        theme = app.theme
        field = bench.query_one(SearchPanel).input
        burst(app, "right", "w", "h", "y", "t", "e")
        await until(pilot, lambda: field.value == "whyte")
        await pilot.pause(0.2)
        assert isinstance(app.screen, WorkbenchScreen), app.screen
        assert app.focused is field and tabbed.active == "tab-search"
        assert app.theme == theme and field.value == "whyte"


async def _slider_stepped(pilot: Any, app: Any, slider: Any) -> None:
    """→ on the focused `slider`: its value moves on (the focus is on it)."""
    value = slider.value
    await pilot.press("right")
    assert await wait_for(pilot, lambda: slider.value != value, 5), "the slider did not move"


@pytest.mark.parametrize("sizes", [((100, 30), (160, 48)), ((160, 48), (100, 30))])
async def test_f3_a_compare_columns_slider_keeps_the_focus_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """F3: ``]`` (the right column: blank-line), the focus on its ``min chars`` slider,
    then the terminal widened from 100 to 160 columns: the focus was gone (→ moved
    nothing, the next tab started from the top). The same slider of the new layout has
    it, in either direction, as the merge panel's sliders do."""
    from chunkscope.tui.widgets.strategy_panel import StrategyPanel

    first, then = sizes
    app = make_app(SAMPLE)
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("]")
        await until(pilot, lambda: bench.query_one(StrategyPanel).slider_for("right", "min_chars"))
        slider = bench.query_one(StrategyPanel).slider_for("right", "min_chars")
        assert slider is not None
        bench.set_focus(slider)
        await _slider_stepped(pilot, app, slider)
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        moved = bench.query_one(StrategyPanel).slider_for("right", "min_chars")
        assert moved is not None and moved is not slider
        assert await wait_for(pilot, lambda: app.focused is moved, 5), app.focused
        await _slider_stepped(pilot, app, moved)


async def test_f2_the_live_score_is_eval_and_auto_tunes_score_of_the_run(tmp_path: Path) -> None:
    """F2: one mark at line 8 (all topics), topic window 1500, depth 1, min chars 500,
    chunk size 750: two topic cuts start on line 53 (merged chunks 5 and 6), and the
    merge panel counted both, ``13 spurious · F1 0.133``, where auto-tune's ``now`` row
    (and ``chunkscope eval``) count 13 boundary lines, F1 0.143. One run, one score:
    the lines the cuts are on, the second cut on a line judged with the first."""
    from chunkscope.engine.evaluate.measure import score_text
    from tests.pilot import auto_tune

    gold = tmp_path / "gold.json"
    gold.write_text('{"starts": [8], "partial": false}')
    app = make_app(
        SAMPLE,
        gold=str(gold),
        topic_window=1500,
        topic_depth=1.0,
        topic_min_chars=500,
        topic_chunk_tokens=750,
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        report = bench.driver.marks_report(bench.view)
        assert report is not None
        firsts = [c.lines[0] for c in bench.view.result.chunks if c.lines is not None]
        assert len(firsts) != len(set(firsts))  # the case: two cuts on one line
        screen = await auto_tune(pilot, app)
        now = screen.current
        assert now is not None
        assert score_text(report.scores.f1) == score_text(now.f1) == "0.143", report.summary()
        assert report.scores.precision == now.precision
        assert (report.hits, report.missed, report.spurious) == (1, 0, 12), report.summary()
        assert report.cut_verdicts.count("") == 4  # 3 size cap cuts, line 53's second


@pytest.mark.parametrize("sizes", [((160, 48), (100, 30)), ((100, 30), (160, 48))])
async def test_f4_a_question_typed_but_not_asked_survives_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """F4: ``/``, ``why sqlite`` typed, no enter, then the terminal resized (160↔100):
    the field came back empty with its placeholder (the asked question and the ranker
    survived, not the typing); what was typed next showed alone. It keeps what was typed."""
    from chunkscope.tui.widgets.search_panel import SearchPanel

    first, then = sizes
    app = make_app(SAMPLE)
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("slash")
        field = bench.query_one(SearchPanel).input
        await until(pilot, lambda: app.focused is field)
        await pilot.press(*"why sqlite")
        await until(pilot, lambda: field.value == "why sqlite")
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        moved = bench.query_one(SearchPanel).input
        assert moved is not field
        assert moved.value == "why sqlite", moved.value
        assert await wait_for(pilot, lambda: app.focused is moved, 5), app.focused
        await pilot.press(*" cache")
        await until(pilot, lambda: moved.value == "why sqlite cache")
        assert app.search_query == ""  # typed, not asked


async def test_f1_a_long_name_keeps_its_end_before_the_badge_and_the_turns_long_form(
    tmp_path: Path,
) -> None:
    """F1: at 100 columns a 77-character file name (two files told apart only by its
    middle, ``number-1`` / ``number-2``) was cut to its last 26 characters while the
    ``chunkscope`` badge and ``199 turns · 127 after collapse`` stayed. The turns go
    short first, then the badge, then the name's start: the part telling it from its
    twin is shown, the format and the tool calls' state still there."""
    import shutil

    from chunkscope.tui.widgets.header_line import HeaderLine

    name = "a-very-long-session-name-number-2-with-many-words-in-it-to-test-the-cut.jsonl"
    path = tmp_path / name
    shutil.copy(ROOT / "sample_logs" / "research_notes.jsonl", path)
    app = make_app(path)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        line = bench.query_one(HeaderLine).render().plain
        assert len(line) <= NARROW[0], line
        assert "number-2-with-many-words-in-it-to-test-the-cut.jsonl" in line, line
        assert "chunkscope" not in line and "after collapse" not in line, line
        assert " · jsonl · T: collapsed · " in line and " → " in line, line
