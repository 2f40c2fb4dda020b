"""The workbench's sweep panel, "N chunks" and auto-tune (issue 13): each result is what
the engine gives for the same file and settings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from chunkscope.engine.evaluate.measure import chunk_starts, line_weights, score
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.segment.segmenter import TopicParams
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.prompt import PromptScreen
from chunkscope.tui.widgets.slider import Slider
from chunkscope.tui.widgets.sweep_panel import SweepPanel
from chunkscope.tui.workbench.sweep import on_slider_steps
from tests.pilot import SAMPLE, SIZE, make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")


def _panel(app: ChunkscopeApp) -> SweepPanel:
    bench = app.workbench
    assert bench is not None
    return bench.query_one(SweepPanel)


def _engine_counts(**topic: Any) -> int:
    pipe = Pipeline(SAMPLE, PipelineParams(collapse=True))
    return len(pipe.with_params(topic=replace(TopicParams(), **topic)).merged().chunks)


def _marks(app: ChunkscopeApp, starts: tuple[int, ...]) -> None:
    assert app.file_marks is not None
    app.set_file_marks(replace(app.file_marks, starts=starts))


def _user_starts(n: int) -> tuple[int, ...]:
    """Lines of a few topic cuts of the default run: marks that can be hit."""
    pipe = Pipeline(SAMPLE, PipelineParams(collapse=True))
    return tuple(chunk_starts(pipe.merged().chunks)[1 : 1 + n])


async def test_the_sweep_follows_the_focused_knob_and_the_other_knobs() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: _panel(app).result is not None and not _panel(app).busy)
        first = _panel(app).result
        assert first is not None and first.knob == "topic_depth"
        for i in (0, len(first.values) // 2, len(first.values) - 1):
            assert first.chunks[i] == _engine_counts(topic_depth=first.values[i])
        assert first.pk is None  # no marks: no Pk row
        text = str(_panel(app).render())
        assert "SWEEP depth" in text and "▲" in text and "now 7.00" in text

        app.workbench.query_one("#topic-window").focus()  # type: ignore[union-attr]
        await until(pilot, lambda: _panel(app).result.knob == "topic_window")  # type: ignore[union-attr]
        app.request_run(app.state.tuning.with_values({"topic_structure": 2.0}))
        await until(
            pilot,
            lambda: (
                app.state.tuning.topic.topic_structure == 2.0
                and _panel(app).result is not first
                and not _panel(app).busy
                and app.workers_idle()
            ),
        )
        await until(pilot, lambda: not _panel(app).busy)
        swept = _panel(app).result
        assert swept is not None and swept.knob == "topic_window"
        i = len(swept.values) // 3
        want = _engine_counts(topic_window=swept.values[i], topic_structure=2.0)
        assert swept.chunks[i] == want

        # With topic marks the sweep scores every point.
        starts = _user_starts(2)
        _marks(app, starts)
        await until(pilot, lambda: _panel(app).result.pk is not None and not _panel(app).busy)  # type: ignore[union-attr]
        swept = _panel(app).result
        assert swept is not None and swept.pk is not None
        pipe = Pipeline(SAMPLE, PipelineParams(collapse=True)).with_params(
            topic=replace(TopicParams(), topic_window=swept.values[i], topic_structure=2.0)
        )
        found = chunk_starts(pipe.merged().topic_chunks)  # the marks are partial
        expected = score(found, [1, *starts], line_weights(SAMPLE), partial=True).pk
        assert swept.pk[i] == pytest.approx(expected)


async def test_n_chunks_moves_the_depth_to_give_them() -> None:
    app = make_app(topic_chunk_tokens=0)  # a chunk per topic: the depth gives the count
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        field = app.screen.query_one("#prompt-input")
        field.value = "zero"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)  # refused, still asking
        assert "whole number" in str(app.screen.query_one("#prompt-error").render())
        field.value = "4"  # type: ignore[attr-defined]
        await pilot.press("enter")
        base = Pipeline(
            SAMPLE, PipelineParams(collapse=True, topic=TopicParams(topic_chunk_tokens=0))
        )
        found, count = on_slider_steps(base, *base.for_chunk_count(4), 4)
        depth = found.params.topic.topic_depth
        await until(pilot, lambda: app.state.tuning.topic.topic_depth == depth)
        await until(pilot, lambda: len(app.workbench.view.result.chunks) == count)  # type: ignore[union-attr]
        assert count == 4  # on the sample log a step of the depth slider gives it
        slider = app.workbench.query_one("#topic-depth", Slider)  # type: ignore[union-attr]
        assert slider.value == depth and slider.format_value() == f"{depth:.2f}"
        notes = [str(n.message) for n in app._notifications]
        assert any(n.startswith("4 chunks: topic depth") for n in notes)


async def test_the_sweep_panel_kept_between_runs_is_looked_up_again_once_removed() -> None:
    """The app keeps the sweep panel it found (a query walks the screen at every run); a
    kept panel that left the screen is not used (its `screen` raises: the first screen of
    a big log crashed with NoScreen) and the workbench's own is found again."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        own = app._sweep_panel()
        assert own is not None and own.screen is bench
        stray = SweepPanel()
        await bench.mount(stray)
        app._sweep_panel_kept = stray
        await stray.remove()
        assert app._sweep_panel() is own
        app.schedule_sweep(0.0)  # starts with the panel found again
        await settled(pilot, app)
