"""Walk 70's findings on the workbench's compare view and `n`: F4 (with the focus on a
merge slider, `]` hid the merge controls but left the focus on one of them: ← → then
switched the main run's merge mode to seed behind the columns, never the compare
column's slider the COLUMNS panel shows), F5 (at 100 columns the Merge tab kept its label
``Merge`` while its panel was the COLUMNS panel) and F6 (`n` asked for more chunks than
there are units blamed "size limits or ties").

Each test fails on the code before its fix."""

from __future__ import annotations

import pytest

from chunkscope.tui.widgets.strategy_panel import StrategyPanel
from tests.pilot import make_app, settled, until, wait_for

pytestmark = pytest.mark.usefixtures("isolated")

WIDE, NARROW = (160, 48), (100, 30)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
async def test_f4_arrows_step_the_compare_column_s_slider_never_a_hidden_merge_control(
    size: tuple[int, int],
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        depth = bench.query_one("#topic-depth")
        if size == WIDE:  # as a user gets there: tab to the merge controls, ↓ to depth
            await pilot.press("tab", *["down"] * 5)
        else:  # the Merge tab's controls
            bench.set_focus(depth)
            await pilot.pause()
        assert bench.focused is depth
        mode, topic_depth = app.state.tuning.merge.mode, app.state.tuning.topic.topic_depth
        await pilot.press("right_square_bracket")  # the right column: blank-line
        await until(pilot, lambda: app.column_result("right") is not None)
        await wait_for(pilot, app.workers_idle, 10)
        panel = bench.query_one(StrategyPanel)
        held = panel.slider_key(bench.focused)
        assert held is not None and held[0] == "right", bench.focused
        spec = app.column_specs["right"]
        assert spec is not None
        before = spec.value(held[1])
        await pilot.press("left", "left", "left")
        await wait_for(pilot, app.workers_idle, 10)
        # the main run is untouched; the slider shown stepped
        assert app.state.tuning.merge.mode == mode
        assert app.state.tuning.topic.topic_depth == topic_depth
        spec = app.column_specs["right"]
        assert spec is not None and spec.value(held[1]) < before
        # round the strategies: the focus always on a control shown, never a hidden one
        for _ in range(7):
            await pilot.press("right_square_bracket")
            await wait_for(pilot, app.workers_idle, 10)
            assert bench.focused in bench.focus_chain, bench.focused
        assert app.column_specs["right"] is None
        # the compare view closed: back on the merge control it was on
        assert bench.focused is depth
        assert app.state.tuning.merge.mode == mode


async def test_f5_the_controls_tab_says_columns_while_comparing() -> None:
    from textual.widgets import TabbedContent

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        tabs = bench.query_one(TabbedContent)

        def label() -> str:
            return tabs.get_tab("tab-merge").label.plain

        assert label() == "Merge"
        await pilot.press("right_square_bracket")  # a strategy on the right: COLUMNS
        await until(pilot, lambda: app.column_result("right") is not None)
        assert bench.query_one("#controls").border_title == "COLUMNS"
        assert label() == "Columns"
        await pilot.press("left_square_bracket")  # a strategy on the left too: the same
        await until(pilot, lambda: app.column_result("left") is not None)
        assert label() == "Columns"
        # the layout rebuilt (160 columns, then 100 again) keeps the label while comparing
        await pilot.resize_terminal(*WIDE)
        await until(pilot, lambda: not bench.narrow)
        await pilot.resize_terminal(*NARROW)
        await until(pilot, lambda: bench.narrow and bool(bench.query(TabbedContent)))
        await pilot.pause()
        tabs = bench.query_one(TabbedContent)
        assert label() == "Columns"
        for _ in range(7):  # the right column round to the merged run: Merge again
            await pilot.press("right_square_bracket")
        await until(pilot, lambda: app.column_specs["right"] is None)
        assert label() == "Merge"


async def test_f6_n_above_the_units_says_there_are_only_so_many_units() -> None:
    """`n` 500 on the sample in seed mode (39 compacted units): the notification said
    ``no threshold gives exactly 500 merged chunks (size limits or ties)``."""
    from tests.pilot import burst, recording_notifications

    app = make_app(mode="seed")
    async with app.run_test(size=WIDE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        units = len(bench.view.compacted)
        assert units < 500
        shown = recording_notifications(app)
        burst(app, "n", "ctrl+u", *"500", "enter")
        assert await wait_for(pilot, lambda: any("500" in s for s in shown), 30), shown
        said = next(s for s in shown if "500" in s)
        assert f"there are only {units} compacted units (at most {units} merged chunks)" in said
        assert "size limits or ties" not in said


def test_f6_a_count_out_of_reach_from_above_names_what_keeps_it_below() -> None:
    """Topic mode: more chunks than units, and more than the min size and the chunk size
    let the topics be split into, each said (never "size limits or ties"); the same for
    topics; a seed mode's always-merge similarity."""
    from chunkscope.engine.pipeline import Pipeline, PipelineParams
    from chunkscope.engine.segment.merge import MergeParams
    from tests.pilot import SAMPLE

    topic = Pipeline(SAMPLE, PipelineParams(collapse=True, merge=MergeParams(mode="topic")))
    units = len(topic.compacted())
    for n, topics in ((units + 10, False), (units + 10, True), (units // 2, False)):
        found, count = topic.for_chunk_count(n, topics=topics)
        most = topic.most_chunks(topics=topics)
        assert count == most < n
        note = topic.chunk_count_note(n, found, count, topics=topics, flags=False)
        assert "size limits or ties" not in note, note
        only = f"there are only {units} compacted units"
        assert (only in note) == (n > units), note
        said = "topics" if topics else "merged chunks"
        at_most = f"at most {most} " if n > units else f"at most {most} {said} "
        if topics:
            assert f"{at_most}with no topic shorter than the min size (500 chars)" in note
        else:
            assert (
                f"{at_most}with topics of at least the min size (500 chars) split to the"
                " chunk size (200 tokens)"
            ) in note, note
        assert f"; the closest is {count}, at topic depth" in note, note
    seed = Pipeline(
        SAMPLE, PipelineParams(collapse=True, merge=MergeParams(mode="seed", always_merge=0.3))
    )
    units, most = len(seed.compacted()), seed.most_chunks()
    assert most < units
    found, count = seed.for_chunk_count(units + 1)
    note = seed.chunk_count_note(units + 1, found, count, flags=False)
    assert note.startswith(
        f"there are only {units} compacted units (at most {units} merged chunks), and at"
        f" most {most} with neighbours of similarity 0.3 or more always merged (always ≥ 0.30);"
        f" the closest is {count}, at threshold "
    ), note
