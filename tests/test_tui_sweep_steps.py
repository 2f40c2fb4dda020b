"""The sweep and "N chunks" stay on what the sliders can show: the open value (∞) of a
slider's end, the value in force as a point of the sweep, and a found threshold moved
onto the slider's steps so that the next move of another slider keeps it."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input

from chunkscope.engine.evaluate.measure import sweepable_knobs
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.screens.prompt import PromptScreen
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.merge_panel import MergePanel
from chunkscope.tui.widgets.slider import Slider
from chunkscope.tui.widgets.sweep_panel import LABEL, SweepPanel, SweepResult, sweep_text
from chunkscope.tui.workbench.sweep import on_slider_steps, sweep_values
from tests.pilot import SAMPLE, SIZE, make_app
from tests.pilot import settled as pilot_settled
from tests.pilot import until as pilot_until

until = partial(pilot_until, timeout=10.0)
settled = partial(pilot_settled, timeout=10.0)

KNOBS = {name: knob for name, (knob, _) in sweepable_knobs().items()}


def _seed(threshold: float = 0.35) -> Pipeline:
    merge = MergeParams(mode="seed", threshold=threshold)
    return Pipeline(SAMPLE, PipelineParams(collapse=True, merge=merge))


def test_sweep_values_end_on_the_open_value_and_hold_the_value_in_force() -> None:
    cap = sweep_values(KNOBS["max_chunk_chars"], None, 25)
    assert len(cap) == 25 and cap[0] == 256 and cap[-1] is None  # no cap: ∞
    never = sweep_values(KNOBS["always_merge"], 0.8, 25)
    assert len(never) == 25 and never[-1] == float("inf") and 0.8 in never
    assert never[:-1] == sorted(never[:-1])
    depth = sweep_values(KNOBS["topic_depth"], 7.0, 25)
    assert 7.0 in depth and depth == sorted(depth) and (depth[0], depth[-1]) == (0.0, 10.0)


def test_the_panel_marks_the_value_in_force_and_prints_its_numbers() -> None:
    values = sweep_values(KNOBS["max_chunk_chars"], None, 25)
    result = SweepResult(
        "max_chunk_chars", "max size", values, list(range(25, 0, -1)), None, None, "{:.0f}"
    )
    rows = sweep_text(result, width=38).plain.split("\n")
    assert rows[0].startswith("─ SWEEP max size 256 → ∞ ")
    assert rows[1].endswith("    1")  # the count at ∞, the value in force
    assert rows[2].index("▲") == LABEL + 24 and "now ∞" in rows[2]
    assert all(len(row) <= 38 for row in rows)
    # Two cells narrower (the panel's scrollbar): fewer points, the numbers kept at the
    # rows' ends (walk 54, F5).
    beside = sweep_text(result, width=36).plain.split("\n")
    assert beside[1].endswith("    1") and all(len(row) <= 36 for row in beside)
    # Too narrow for the column of numbers and `COLUMN_POINTS` points: they follow the marker.
    narrow = sweep_text(result, width=24).plain.split("\n")
    assert "now ∞: 1 chunks" in narrow[-1] or "now ∞: 1 chunks" in narrow[-2]


@pytest.mark.parametrize("n", [10, 20])
def test_a_found_threshold_moves_onto_the_slider_steps(n: int) -> None:
    pipe = _seed()
    found, count = on_slider_steps(pipe, *pipe.for_chunk_count(n), n)
    threshold = found.params.merge.threshold
    assert isinstance(threshold, float)
    assert round(threshold * 100) == pytest.approx(threshold * 100)  # a 0.01 step
    assert count == len(found.merged().chunks)
    for other in (threshold - 0.01, threshold + 0.01):  # no nearer step
        at = pipe.with_params(merge=replace(pipe.params.merge, threshold=round(other, 6)))
        assert abs(len(at.merged().chunks) - n) >= abs(count - n)


def test_a_count_out_of_reach_stays_in_the_slider_range() -> None:
    pipe = _seed()
    found, count = on_slider_steps(pipe, *pipe.for_chunk_count(1), 1)
    threshold = found.params.merge.threshold  # the bisection went below the slider
    assert isinstance(threshold, float) and 0.0 <= threshold <= 1.0
    # the fewest on the slider (the count is not monotonic here either: 0.08 gives
    # fewer than 0.0)
    assert count == min(pipe.with_count_knob(x).merged_count() for x in pipe.count_steps())


def _topic() -> Pipeline:
    return Pipeline(SAMPLE, PipelineParams(collapse=True, merge=MergeParams(mode="topic")))


def test_n_in_topic_mode_finds_a_count_the_depth_gives_though_not_monotonic() -> None:
    """The chunk size splits fewer topics into more pieces: on the sample depth 7 gives
    52 merged chunks, depth 4.6 gives 53, depth 4.4 52 again and depth 3.9 54."""
    pipe = _topic()  # a few seconds: n out of reach tries all 101 steps of the slider
    counts = {x: pipe.with_count_knob(x).merged_count() for x in (7.0, 4.6, 4.4, 3.9)}
    assert counts == {7.0: 52, 4.6: 53, 4.4: 52, 3.9: 54}
    for n in (53, 54):
        found, count = on_slider_steps(pipe, *pipe.for_chunk_count(n), n)
        assert count == n == found.merged_count()
        assert found.params.topic.topic_depth in pipe.count_steps()
        assert pipe.chunk_count_note(n, found, count).startswith("topic depth ")
    # Out of reach: the real closest, and the limit that applies is the chunk size
    # (~29k chars: the 8,192-char cap would need 4 chunks).
    found, count = on_slider_steps(pipe, *pipe.for_chunk_count(20), 20)
    assert count == pipe.fewest_chunks() < 52
    note = pipe.chunk_count_note(20, found, count)
    assert note.startswith(
        "20 merged chunks cannot fit the chunk size (topic_chunk_tokens 200, "
        f"--topic-chunk-tokens): it needs at least {count}; the closest is {count},"
    )
    said = pipe.chunk_count_note(20, found, count, flags=False)  # the workbench's words
    assert said.startswith("20 merged chunks cannot fit the chunk size (200 tokens): ")
    found, count = on_slider_steps(pipe, *pipe.for_chunk_count(55), 55)
    # no depth gives more than 54: the note says what keeps it there (walk 70, F6)
    note = pipe.chunk_count_note(55, found, count)
    assert count == 54 and note.startswith("at most 54 merged chunks with topics of at least")
    assert "split to the chunk size (topic_chunk_tokens 200" in note
    assert "; the closest is 54, at topic depth" in note


async def test_n_in_the_seed_loop_sets_a_threshold_the_slider_keeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("chunkscope.tui.workbench.sweep.SWEEP_DELAY", 0.05)  # the pace only
    app = make_app(mode="seed", threshold=0.35)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        panel = bench.query_one(SweepPanel)
        pipe = app.pipe  # the engine on the app's own file and settings (the app is idle)
        assert pipe is not None and pipe.params.merge == _seed().params.merge
        found, count = on_slider_steps(pipe, *pipe.for_chunk_count(10), 10)
        await pilot.press("n")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one("#prompt-input", Input).value = "10"
        await pilot.press("enter")
        threshold = found.params.merge.threshold
        await until(pilot, lambda: app.merge_params.threshold == threshold)
        await until(
            pilot, lambda: bench.view is not None and bench.view.params.merge.threshold == threshold
        )
        view = bench.view
        assert view is not None and len(view.result.chunks) == count
        slider = bench.query_one("#threshold", Slider)
        assert slider.value == threshold
        notes = [str(n.message) for n in app._notifications]
        assert any(n.startswith("10 chunks: ") and f"threshold {threshold:g}" in n for n in notes)
        # The sweep's numbers at the marker are the run's.
        await until(
            pilot,
            lambda: (
                panel.result is not None and panel.result.current == threshold and not panel.busy
            ),
        )
        result = panel.result
        assert result is not None
        assert result.knob == "threshold"  # the seed loop's main knob when it is fixed
        i = result.at_current()
        assert i is not None and result.values[i] == threshold and result.chunks[i] == count
        # What the controls read on the next move of another slider: the threshold
        # stays where `n` put it.
        assert bench.query_one(MergePanel).read(app.state.tuning) == app.state.tuning


async def test_keys_are_answered_while_a_sweep_runs_and_a_new_run_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunkscope.engine.evaluate.measure import tuning_merge as real

    slow = threading.Event()  # set: every point of a sweep takes 50 ms more
    points: list[float] = []

    def paced(*args: Any, **kwargs: Any) -> Any:
        inner = real(*args, **kwargs)

        def run(case: Any, values: Any) -> Any:
            points.append(values["topic_depth"])
            if slow.is_set():
                time.sleep(0.05)  # only the pace: the points are the real ones
            return inner(case, values)

        return run

    monkeypatch.setattr("chunkscope.tui.workbench.sweep.tuning_merge", paced)
    monkeypatch.setattr("chunkscope.tui.workbench.sweep.SWEEP_DELAY", 0.05)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        panel = bench.query_one(SweepPanel)
        slow.set()
        settled_points = len(points)
        app.request_run(app.state.tuning.with_values({"topic_depth": 6.0}))
        await until(pilot, lambda: panel.busy and len(points) >= settled_points + 2)
        # The sweep is under way in a thread: a key is answered before it is done (how
        # fast is measured by bench/tui.py, not here).
        merged = bench.query_one("#merged", ChunkList)
        merged.focus()
        before = merged.selected
        await pilot.press("down")
        assert merged.selected == before + 1 and panel.busy
        # A newer run: the older sweep stops at its next point, the newer one is shown.
        generation = app._sweep_generation
        app.request_run(app.state.tuning.with_values({"topic_depth": 6.5}))
        await until(pilot, lambda: app._sweep_generation > generation)
        started = len(points)
        slow.clear()
        await until(pilot, lambda: not panel.busy and panel.result is not None)
        result = panel.result
        assert result is not None and result.current == 6.5
        # The older sweep did one point more at most.
        assert len(points) <= started + 1 + len(result.values)
        await until(pilot, lambda: all(w.is_finished for w in app.workers if w.group == "sweep"))


async def test_n_out_of_reach_names_the_setting_the_cli_names(
    isolated: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`n` 5 in the workbench (tool calls raw) said "the closest is 16, at topic depth 10"
    where `chunk --embed --chunks 5` (raw too) said "... at topic depth 40": several depths
    give 16, and each named another. One rule (`Pipeline.for_chunk_count`): the slider
    step nearest the setting in force; both say the same."""
    from pathlib import Path

    from chunkscope.tui.cli import main

    path = Path(__file__).resolve().parent / "fixtures" / "claude-code" / "coverage-test-fix.jsonl"
    assert main(["chunk", str(path), "--embed", "--no-collapse", "--chunks", "5"]) == 0
    err = capsys.readouterr().err
    (cli,) = [ln for ln in err.splitlines() if ln.startswith("chunkscope: --chunks 5: ")]
    said = cli.removeprefix("chunkscope: --chunks 5: ")
    # the closest count (17) is given from depth 3.7 down: the step nearest the one in force
    assert said.endswith("the closest is 17, at topic depth 3.7")
    app = make_app(path, collapse=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("n")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one("#prompt-input", Input).value = "5"
        await pilot.press("enter")
        await until(pilot, lambda: any("5 chunks: " in str(n.message) for n in app._notifications))
        (shown,) = [str(n.message) for n in app._notifications if "5 chunks: " in str(n.message)]
        # Walk 6: the same, with the limit named as the workbench's slider is, not as the
        # command line's flag; and a count out of reach moves nothing (19 chunks where 25
        # were asked): it says where the closest is.
        depth = app.state.tuning.topic.topic_depth
        await pilot.press("n")
        app.screen.query_one("#prompt-input", Input).value = "25"
        await pilot.press("enter")
        await until(pilot, lambda: any("25 chunks: " in str(n.message) for n in app._notifications))
        (far,) = [str(n.message) for n in app._notifications if "25 chunks: " in str(n.message)]
        assert far.endswith("; topic depth left at 7 (n 19 goes there)"), far
        assert app.state.tuning.topic.topic_depth == depth
    flag = "chunk size (topic_chunk_tokens 200, --topic-chunk-tokens)"
    assert flag in said and "--" not in shown
    # and, as the closest is not at the depth in force, the depth stays where it is
    stays = "; topic depth left at 7 (n 17 goes there)"
    assert shown == f"5 chunks: {said.replace(flag, 'chunk size (200 tokens)')}{stays}"


@settings(max_examples=200, deadline=None)
@given(
    lo=st.floats(0, 50, allow_nan=False),
    span=st.floats(0.001, 5000, allow_nan=False),
    points=st.integers(2, 60),
)
def test_sweep_values_are_rounded_to_their_spacing_and_stay_apart(
    lo: float, span: float, points: int
) -> None:
    """`sweep --param topic_depth` printed 0.526316, 1.05263, 1.57895: a float knob's
    values keep two significant digits of their spacing, as few decimals as keep every
    value apart, and each is within a twentieth of the spacing of the exact one."""
    from chunkscope.engine.evaluate.measure import knob_values

    knob = KNOBS["topic_depth"]
    values = knob_values(knob, lo, lo + span, points)
    assert len(values) == points and values == sorted(set(values))
    step = span / (points - 1)
    for v, exact in zip(values, np.linspace(lo, lo + span, points), strict=True):
        assert abs(v - exact) <= step / 20 + 1e-12
    decimals = {len(f"{v:.6f}".rstrip("0").split(".")[1]) for v in values}
    assert max(decimals) <= max(0, math.ceil(-math.log10(step) - 1e-9) + 1)


def test_the_default_depth_sweep_is_printed_as_a_person_writes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from chunkscope.tui.cli import main

    assert main(["sweep", str(SAMPLE), "--param", "topic_depth", "--points", "20"]) == 0
    shown = [line.split()[0] for line in capsys.readouterr().out.splitlines()[3:23]]
    assert shown[:4] == ["0", "0.53", "1.05", "1.58"] and shown[-1] == "10"
