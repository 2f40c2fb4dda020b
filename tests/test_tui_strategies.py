"""Pilot tests of the strategy selector of each column (issue 6, "In the workbench"):
two strategies side by side, the cuts that differ, one column's parameters re-running
that column only, and the default screen back when no strategy is selected."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.chunk.strategies import StrategyResult, run_strategy
from chunkscope.engine.evaluate.measure import score_text
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.commands import WorkbenchCommands
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.slider import Slider
from chunkscope.tui.widgets.strategy_panel import StrategyPanel
from tests.pilot import ROOT, SIZE, make_app, until

LOG = ROOT / "sample_logs" / "docs_cleanup.jsonl"
MARKDOWN = ROOT / "sample_logs" / "shell_cookbook.md"


pytestmark = pytest.mark.usefixtures("isolated")


async def settled(pilot: Any, app: ChunkscopeApp) -> None:
    def done() -> bool:
        bench = app.workbench
        return (
            bench is not None
            and bench.view is not None
            and app.selection is not None
            and app.workers_idle()
            and all(
                app.column_specs[s] is None or app.column_result(s) is not None
                for s in ("left", "right")
            )
        )

    await until(pilot, done)
    await pilot.pause()


def engine_result(path: Path, name: str, **params: Any) -> StrategyResult:
    """What the engine computes for strategy `name` on the workbench's turns."""
    pipe = Pipeline(path, PipelineParams(collapse=True))
    return run_strategy(
        name, tuple(sorted(params.items())), pipe.turns(), pipe.counter, source=pipe.source()
    )


def differ_counts(a: list[Any], b: list[Any]) -> tuple[int, int]:
    """Cuts of `a` missing from `b` and the other way round, as multisets of positions."""
    ca, cb = Counter(a), Counter(b)
    return sum((ca - cb).values()), sum((cb - ca).values())


def titles(app: ChunkscopeApp) -> tuple[str, str]:
    bench = app.workbench
    assert bench is not None
    return (
        str(bench.query_one("#before-col").border_title),
        str(bench.query_one("#merged").border_title),
    )


def run_command(app: ChunkscopeApp, name: str) -> None:
    provider = WorkbenchCommands(app.screen)
    [action] = [action for title, action, _ in provider._commands() if title == name]
    action()


async def test_two_strategies_side_by_side_with_the_cuts_that_differ() -> None:
    app = make_app(LOG)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        default_titles = titles(app)
        # `[` cycles the left column: none -> blank-line (whose cuts at paragraphs
        # markdown shares in part: sliding-window's overlapping windows share none)
        await pilot.press("left_square_bracket")
        run_command(app, "strategy:right markdown")
        await settled(pilot, app)
        assert app.column_specs["left"].name == "blank-line"  # type: ignore[union-attr]
        assert app.column_specs["right"].name == "markdown"  # type: ignore[union-attr]

        a = engine_result(LOG, "blank-line")
        b = engine_result(LOG, "markdown")
        assert len(a) != len(b)
        bench = app.workbench
        left = bench.query_one("#before", ChunkList)
        right = bench.query_one("#merged", ChunkList)
        assert left.count == len(a) and right.count == len(b)
        assert [c.text for c in left.chunks] == [c.text for c in a.chunk_list]
        assert [c.text for c in right.chunks] == [c.text for c in b.chunk_list]

        only_a, only_b = differ_counts(a.cut_points(), b.cut_points())
        assert 0 < only_a < len(a) - 1  # some cuts agree, some do not
        assert 0 < only_b < len(b) - 1
        left_title, right_title = titles(app)
        assert f"blank-line ({len(a)}) · {only_a} cuts differ" in left_title
        assert f"markdown ({len(b)}) · {only_b} cuts differ" in right_title
        # Each differing cut is marked on its card's cut line (and only those).
        marked = [str(cut.reason).startswith("≠") for cut in left._cuts]  # type: ignore[union-attr]
        assert sum(marked) == only_a
        assert any("≠" in line for line in left.rendered_lines())

        # Back to none on both sides: the default screen as it was.
        run_command(app, "strategy:left none (before merge)")
        run_command(app, "strategy:right none (merged)")
        await settled(pilot, app)
        assert titles(app) == default_titles
        view = bench.view
        assert right.count == len(view.result.chunks)
        assert left.chunks is view.left_items
        assert not bench.query_one(StrategyPanel).has_class("-active")


async def test_a_strategy_parameter_reruns_its_column_only() -> None:
    app = make_app(LOG)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        app.set_column_strategy("left", "sliding-window")
        app.set_column_strategy("right", "boundary")
        await settled(pilot, app)
        runs = Counter(app.strategy_runs)
        right_before = app.column_result("right")
        left_before = app.column_result("left")
        assert right_before is not None and left_before is not None

        panel = app.workbench.query_one(StrategyPanel)
        slider = panel.slider_for("left", "max_tokens")
        assert slider is not None and slider.value == 1000
        slider.focus()
        # one big step: two of the steps that move the knob on this track (walk 16, 12:
        # 16 tokens on 4000 moved none), 1000 -> 552 tokens on the 19-cell track
        step = slider.visible_step()
        big = int(1000 - max(128, 2 * step))
        await pilot.press("shift+left")
        await settled(pilot, app)

        assert app.column_specs["left"].params == (("max_tokens", big),)  # type: ignore[union-attr]
        assert app.strategy_runs["left"] == runs["left"] + 1
        assert app.strategy_runs["right"] == runs["right"]
        assert app.column_result("right") is right_before
        expected = engine_result(LOG, "sliding-window", max_tokens=big)
        left = app.workbench.query_one("#before", ChunkList)
        assert left.count == len(expected) != len(left_before.result)
        # the setting named and shown as its slider shows it (walk 39, F4)
        assert f"sliding-window max tokens {big} ({len(expected)})" in titles(app)[0]
        only_a, only_b = differ_counts(expected.cut_points(), right_before.result.cut_points())
        assert f"{only_a} cut" in titles(app)[0] and f"{only_b} cut" in titles(app)[1]
        assert isinstance(panel.slider_for("right", "max_tokens"), Slider)

        # A burst of steps ends on the last value, the right column still untouched.
        await pilot.press("right", "right", "left")  # 552 -> 776 -> 1000 -> 776
        await settled(pilot, app)
        last = int(big + step)
        assert app.column_specs["left"].params == (("max_tokens", last),)  # type: ignore[union-attr]
        expected = engine_result(LOG, "sliding-window", max_tokens=last)
        assert [c.text for c in left.chunks] == [c.text for c in expected.chunk_list]
        assert "updating" not in titles(app)[0]
        assert app.column_result("right") is right_before
        assert app.strategy_runs["right"] == runs["right"]


async def test_markdown_strategy_against_the_compacted_chunks_of_a_markdown_file() -> None:
    app = make_app(MARKDOWN, mode="seed")  # the seed's compacted paragraphs
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        merge_runs = app.pipe.runs["merge"]
        await pilot.press(*["right_square_bracket"] * 4)  # none -> ... -> markdown
        await settled(pilot, app)
        assert app.column_specs["right"].name == "markdown"  # type: ignore[union-attr]
        assert app.column_specs["left"] is None
        b = engine_result(MARKDOWN, "markdown")
        compacted = app.workbench.view.left_items
        points = [(c.turns[0].turn_index, c.turns[0].source_line) for c in compacted[1:]]
        only_c, only_b = differ_counts(points, b.cut_points())
        left_title, right_title = titles(app)
        assert f"before merge · compacted ({len(compacted)}) · {only_c} cut" in left_title
        assert f"markdown ({len(b)}) · {only_b} cut" in right_title
        # Each side has cuts of its own (a compacted chunk starts at the paragraph it
        # starts at, rarely at a heading the markdown strategy cuts at).
        assert only_c > 0 and 0 < only_b <= len(b) - 1
        # The left column keeps its items; the merge did not re-run for a strategy.
        assert app.workbench.query_one("#before", ChunkList).count == len(compacted)
        assert app.pipe.runs["merge"] == merge_runs


async def test_the_seed_loop_and_the_topic_segmenter_side_by_side_with_their_own_sliders(
    tmp_path: Path,
) -> None:
    """Issue 13: either column shows a merge mode (its chunks equal the engine's with that
    mode's knobs); a column slider re-runs that column; with topic marks each column is
    judged on its own (Pk in its title, a verdict on each cut)."""
    from dataclasses import replace

    from chunkscope.engine.evaluate.measure import chunk_starts, line_weights, score
    from chunkscope.engine.segment.merge import MergeParams
    from chunkscope.engine.segment.segmenter import TopicParams

    app = make_app(LOG)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        run_command(app, "strategy:left merge:seed")
        run_command(app, "strategy:right merge:topic")
        await settled(pilot, app)
        base = Pipeline(LOG, PipelineParams(collapse=True))
        seed = base.with_params(merge=MergeParams(mode="seed")).merged()
        topic = base.with_params(merge=replace(base.params.merge, mode="topic")).merged()
        left, right = app.column_result("left"), app.column_result("right")
        assert left is not None and right is not None
        assert [c.text for c in left.chunks] == [c.text for c in seed.chunks]
        assert [c.text for c in right.chunks] == [c.text for c in topic.chunks]
        # each column has its mode's sliders, from the knobs' declarations
        panel = app.workbench.query_one(StrategyPanel)  # type: ignore[union-attr]
        assert panel.slider_for("left", "std_k") is not None
        assert panel.slider_for("right", "topic_depth") is not None
        assert panel.slider_for("left", "topic_depth") is None
        # the size cap is a knob of both modes: each merge column has its own (walk 12,
        # 2: the topic column had none and ran with the main view's cap)
        assert panel.slider_for("left", "max_chunk_chars") is not None
        assert panel.slider_for("right", "max_chunk_chars") is not None
        n_left = app.strategy_runs["left"]
        app.set_column_param("right", "topic_depth", 3.0)
        await settled(pilot, app)
        assert app.strategy_runs["left"] == n_left  # the other column did not re-run
        lower = base.with_params(
            merge=replace(base.params.merge, mode="topic"),
            topic=replace(TopicParams(), topic_depth=3.0),
        ).merged()
        right = app.column_result("right")
        assert right is not None
        assert [c.text for c in right.chunks] == [c.text for c in lower.chunks]
        app.set_column_param("right", "max_chunk_chars", 1024)
        await settled(pilot, app)
        capped = base.with_params(
            merge=MergeParams(mode="topic", max_chunk_chars=1024),
            topic=replace(TopicParams(), topic_depth=3.0),
        ).merged()
        right = app.column_result("right")
        assert right is not None and len(capped.chunks) > len(lower.chunks)
        assert [c.text for c in right.chunks] == [c.text for c in capped.chunks]
        app.set_column_param("right", "max_chunk_chars", 8192)
        await settled(pilot, app)
        right = app.column_result("right")
        assert right is not None
        assert [c.text for c in right.chunks] == [c.text for c in lower.chunks]
        a, b = differ_counts(left.points(), right.points())
        assert f"{a} cut" in titles(app)[0] and f"{b} cut" in titles(app)[1]

        # With marks: each column's own score in its title.
        # (the topic column is judged on its topics: a size cap's cut starts none)
        starts = chunk_starts(lower.topic_chunks)[1:3]
        app.set_file_marks(replace(app.file_marks, starts=tuple(starts)))  # type: ignore[arg-type]
        await pilot.pause()
        weights = line_weights(LOG)
        for side, chunks in (("left", left.chunks), ("right", lower.topic_chunks)):
            s = score(chunk_starts(chunks), [1, *starts], weights, partial=True)  # the default
            title = titles(app)[0 if side == "left" else 1]
            # a title too wide drops its topics/marks count, then F1 (never cut mid-word)
            assert f"Pk {score_text(s.pk)}" in title
            assert "F1" not in title or f"Pk {score_text(s.pk)} F1 {score_text(s.f1)}" in title
        merged = app.workbench.query_one("#merged", ChunkList)  # type: ignore[union-attr]
        # the card that ends where the first marked topic starts says so, on screen
        hit = list(merged._verdicts).index("hit")
        merged.select(hit)
        await pilot.pause()
        assert "· ✓" in "\n".join(merged.rendered_lines())  # its words dropped when narrow
