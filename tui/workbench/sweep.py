"""The sweep, "N chunks" and auto-tune: the app's part that asks the engine for settings.

- **The sweep** (`tui.widgets.sweep_panel`): after every run, and whenever another
  merge slider is focused, a worker merges the open file at each of ~30 values of that
  slider's knob (the others as they are) and the panel plots the chunk count, and Pk
  against the topic marks when there are some. It reuses the run's chunks, vectors and
  topic frame, so a point costs one merge; a newer request makes an older sweep stop at
  its next point.
- **N chunks** (`n`): the threshold (seed) or topic depth (topic) that gives N merged
  chunks (`engine.pipeline.Pipeline.for_chunk_count`), found in a worker and applied.
- **Auto-tune** (`A`): `engine.evaluate.measure.tune` on the open file and its marks, in a
  modal screen (`tui.screens.tune`).
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Any

from textual.worker import get_current_worker

from chunkscope.engine.evaluate.measure import (
    Case,
    chunk_starts,
    first_item_line,
    knob_values,
    met_gold,
    score,
    tuning_merge,
)
from chunkscope.engine.textutil import plural
from chunkscope.tui.widgets.slider import knob_value
from chunkscope.tui.workbench.messages import Notice, WorkFailed
from chunkscope.tui.workbench.state import WorkbenchHost

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.params import Knob
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.tui.widgets.sweep_panel import SweepPanel, SweepResult

#: A sweep starts this long after the last run or focus change (a slider drag or a tab
#: walk through the sliders makes one sweep, not many).
SWEEP_DELAY = 0.3
#: Points of a sweep: as many as the panel has room for (a column each, beside the row
#: labels and the numbers at the value in force), within these bounds.
SWEEP_POINTS = (24, 50)
#: No background sweep above this many units (each point is a whole merge; "N chunks"
#: and auto-tune, asked for, still run).
SWEEP_MAX_UNITS = 10_000
#: The knob a sweep follows until a slider is focused, per merge mode.
DEFAULT_SWEEP = {"topic": "topic_depth", "seed": "std_k"}
#: The most merged chunks `n` takes.
MAX_CHUNK_COUNT = 1_000_000


def sweep_values(knob: Knob, current: Any, points: int) -> list[Any]:
    """`points` values of `knob` over its slider's range, the last one the open value (∞)
    when the slider's end stands for it, and the value in force (`current`) one of them,
    so the panel's numbers at the marker are the run's, not a neighbouring point's."""

    def spread(n: int) -> list[Any]:
        values = knob_values(knob, None, None, n)
        if knob.slider is not None and knob.slider.open_at_max:
            values[-1] = knob_value(knob, knob.slider.hi)
        return values

    values = spread(points)
    finite = [v for v in values if isinstance(v, int | float) and not math.isinf(v)]
    if (
        isinstance(current, int | float)
        and finite
        and finite[0] < current < finite[-1]
        and current not in finite
    ):
        values = spread(points - 1)
        finite = [v for v in values if isinstance(v, int | float) and not math.isinf(v)]
        bisect.insort(values, current, hi=len(finite))
    return values


def on_slider_steps(pipe: Pipeline, found: Pipeline, count: int, n: int) -> tuple[Pipeline, int]:
    """`pipe.for_chunk_count(n)`'s `found` moved onto its knob's slider (the threshold's
    or the topic depth's): inside the slider's range and on one of its steps, so the
    slider shows the value in force and the next move of another slider keeps it. The
    step whose count is nearest `n`, of equal ones the nearest the setting in force, as
    for a count out of reach (`Pipeline.for_chunk_count`; `Pipeline.on_count_steps`: the
    count need not be monotonic in the knob, so every step may be tried): the note of a
    count out of reach names the setting `n` of its closest count then goes to (walk 66,
    F2: it said depth 2.2 and `n 37` went to 0, the bisection's first value giving 37)."""
    value = found.count_knob_value()
    if not isinstance(value, int | float):
        return found, count
    now = pipe.count_knob_value()
    near = now if isinstance(now, int | float) else value
    return pipe.on_count_steps(n, float(near))


class SweepDriver(WorkbenchHost):
    """See the module docstring."""

    sweep_knob: str | None = None
    _sweep_timer: Any = None
    _sweep_generation: int = 0
    _sweep_panel_kept: SweepPanel | None = None

    # ------------------------------------------------------------------ the sweep

    def sweep_target(self) -> Knob | None:
        """The knob to sweep: the focused slider's when it acts in the current mode (the
        size cap acts in both; of its chars and tokens, the one in force, as the unit may
        have been switched since the slider had the focus), else the mode's main knob."""
        from chunkscope.engine.config.tuning import exclusive_group, knob_modes
        from chunkscope.engine.evaluate.measure import sweepable_knobs

        known = sweepable_knobs()
        mode = self.state.tuning.merge.mode
        name = self.sweep_knob
        if name is None or name not in known or mode not in knob_modes(name):
            name = DEFAULT_SWEEP[mode]
            if mode == "seed" and not isinstance(self.state.tuning.merge.threshold, str):
                name = "threshold"  # a fixed threshold is the seed loop's main knob
        values = self.state.tuning.values()
        if values.get(name) is None:
            name = next((k for k in exclusive_group(name) if values.get(k) is not None), name)
        return known[name][0] if name in known else None

    def follow_knob(self, name: str) -> None:
        """A merge slider got the focus: sweep its knob once the focus stays there
        (`SWEEP_DELAY`: tab walking through the sliders starts no sweep at each one)."""
        if name != self.sweep_knob:
            self.sweep_knob = name
            self.schedule_sweep()

    def schedule_sweep(self, delay: float | None = None) -> None:
        if self._sweep_timer is not None:
            self._sweep_timer.stop()
        self._sweep_generation += 1
        self._sweep_timer = self.set_timer(
            SWEEP_DELAY if delay is None else max(delay, 0.001), self._start_sweep
        )
        panel = self._sweep_panel()
        if panel is not None:
            panel.set_busy(True)  # what it shows is the last run's until the sweep is done

    def _sweep_panel(self) -> SweepPanel | None:
        from chunkscope.tui.widgets.sweep_panel import SweepPanel

        bench = self.workbench
        if bench is None or not bench.is_mounted:
            return None
        kept = self._sweep_panel_kept  # asked for at every run: a query walks the screen
        if kept is not None and kept.is_attached and _on_screen(kept, bench):
            return kept
        found = bench.query(SweepPanel)
        self._sweep_panel_kept = found.first() if found else None
        return self._sweep_panel_kept

    def _start_sweep(self) -> None:
        from chunkscope.tui.widgets.sweep_panel import LABEL, NUMBER

        self._sweep_timer = None
        pipe, knob, panel = self.pipe, self.sweep_target(), self._sweep_panel()
        if panel is None:
            return
        if pipe is None or knob is None:
            panel.set_busy(False)
            return
        bench = self.workbench
        units = len(bench.view.compacted) if bench is not None and bench.view is not None else 0
        if units > SWEEP_MAX_UNITS:
            panel.off(f"off above {SWEEP_MAX_UNITS:,} units ({units:,} here); n and A still work")
            return
        if panel.reason is not None or not panel.busy:
            panel.show(panel.result, busy=True)
        room = (panel.content_size.width or 38) - LABEL - 1 - NUMBER
        points = min(max(room, SWEEP_POINTS[0]), SWEEP_POINTS[1])
        marks = self.file_marks
        gold = [1, *marks.starts] if marks is not None and marks.starts else []
        weights = marks.weights() if gold and marks is not None else None
        partial = marks.partial if marks is not None else False
        generation = self._sweep_generation
        tuning = self.state.tuning  # the run's, not whatever is in force when it starts

        def work() -> None:
            self._sweep_work(pipe, tuning, knob, gold, weights, generation, points, partial)

        self.run_worker(work, thread=True, exclusive=True, group="sweep", description="sweep")

    def _sweep_work(
        self,
        pipe: Pipeline,
        tuning: Tuning,
        knob: Knob,
        gold: list[int],
        weights: Any,
        generation: int,
        points: int = SWEEP_POINTS[0],
        partial: bool = False,
    ) -> None:
        from chunkscope.tui.widgets.sweep_panel import SweepResult

        worker = get_current_worker()

        def stale() -> bool:
            return worker.is_cancelled or generation != self._sweep_generation

        try:
            values = sweep_values(knob, tuning.values().get(knob.name), points)
            case = Case.of_pipeline(pipe, gold, weights)
            mode = tuning.merge.mode
            tokens = None
            if tuning.merge.max_chunk_tokens is not None or knob.name == "max_chunk_tokens":
                # a cap in tokens in force, or at the sweep's points (from its ∞ end, walk
                # 21 F4: the seed merge refused a cap in tokens without counts)
                tokens = pipe.token_counts(case.chunks)
            run = tuning_merge(tuning, mode, tokens)
            counts: list[int] = []
            pks: list[float] = []
            for v in values:
                if stale():
                    return
                run_v = run(case, {knob.name: v})
                counts.append(len(run_v.chunks))  # merged chunks; topic starts are scored
                if gold:
                    found = chunk_starts(run_v.topic_chunks)
                    met = met_gold(gold, first_item_line(case.chunks), partial=partial)
                    pks.append(score(found, met, weights, partial=partial).pk)
        except Exception as e:  # a sweep is a view: it reports and the app goes on
            self.post_message(WorkFailed(e, "Sweep failed"))
            self.call_from_thread(self._sweep_failed, generation)
            return
        current = tuning.values().get(knob.name)
        fmt = knob.slider.fmt if knob.slider is not None else "{:g}"
        label = knob.slider.label if knob.slider is not None else knob.name
        result = SweepResult(knob.name, label, values, counts, pks if gold else None, current, fmt)
        if not stale():
            self.call_from_thread(self._sweep_ready, result, generation)

    def _sweep_ready(self, result: SweepResult, generation: int) -> None:
        """Show a finished sweep."""
        panel = self._sweep_panel()
        if generation != self._sweep_generation or panel is None:
            return
        panel.show(result)

    def _sweep_failed(self, generation: int) -> None:
        """A sweep that failed (its notification says why): the panel says so, not the
        last sweep's numbers under a run they are not of (walk 21, F4)."""
        panel = self._sweep_panel()
        if generation == self._sweep_generation and panel is not None:
            panel.off("failed for this run (the notification says why); n and A still work")

    # ------------------------------------------------------------------ N chunks

    def action_chunk_count(self) -> None:
        """Type a number of merged chunks; the threshold moves to give it."""
        from chunkscope.tui.screens.prompt import PromptScreen

        if self.pipe is None:
            self.notify("Open a file first (ctrl+o).", markup=False)
            return

        def validate(text: str) -> str | None:
            if not text.strip().isdecimal() or not 1 <= int(text) <= MAX_CHUNK_COUNT:
                return f"A whole number of merged chunks, from 1 to {MAX_CHUNK_COUNT:,}."
            return None

        def typed(value: str | None) -> None:
            if value and self.pipe is not None:
                pipe = self.pipe
                self.run_worker(
                    lambda: self._chunk_count_work(pipe, int(value)),
                    thread=True,
                    exclusive=True,
                    group="chunk-count",
                    description="chunk count",
                )

        knob = self.pipe.count_knob().replace("_", " ")
        bench = self.workbench
        view = bench.view if bench is not None else None
        now = "" if view is None else str(len(view.result.chunks))  # the current count
        self.push_screen(
            PromptScreen(
                f"Merged chunks wanted (the {knob} moves to give them)", now, validate=validate
            ),
            typed,
        )

    def _chunk_count_work(self, pipe: Pipeline, n: int) -> None:
        try:
            found, count = pipe.for_chunk_count(n)
            exact = count == n
            found, count = on_slider_steps(pipe, found, count, n)
        except Exception as e:
            self.post_message(WorkFailed(e, "N chunks failed"))
            return
        note = pipe.chunk_count_note(n, found, count, flags=False)
        name = pipe.count_knob()
        knob, values = name.replace("_", " "), {name: found.count_knob_value()}
        if exact and count != n:
            note = (
                f"the {knob} that gives them lies between the slider's steps; the closest "
                f"is {count}, at {knob} {values[name]:g}"
            )
        elif count != n:  # out of reach: the setting stays, the closest may be far from it
            now = pipe.count_knob_value()
            if values[name] != now:
                shown = f"{now:g}" if isinstance(now, int | float) else str(now)
                note += f"; {knob} left at {shown} (n {count} goes there)"
            values = {}
        self.call_from_thread(self._apply_chunk_count, pipe, values, n, note)

    def _apply_chunk_count(self, pipe: Pipeline, values: dict[str, Any], n: int, note: str) -> None:
        if self.pipe is None or not self.pipe.same_file(pipe):
            return  # another file was opened meanwhile
        if values:
            self.apply_tuning(self.state.tuning.with_values(values))
        self.post_message(Notice(f"{plural(n, 'chunk')}: {note}"))

    # ------------------------------------------------------------------ auto-tune

    def action_auto_tune(self) -> None:
        """Search the tune grid on the open file against its topic marks."""
        from chunkscope.tui.screens.tune import TuneScreen

        marks = self.file_marks
        if self.pipe is None:
            self.notify("Open a file first (ctrl+o).", markup=False)
            return
        if marks is None or not marks.starts:
            bench = self.workbench
            word = bench.view.source.turn_word if bench and bench.view else "turn"
            self.notify(
                "Auto-tune scores settings against your topic marks: mark where topics start "
                f"first (v for the {word} view, then m on a {word}), or open with --gold GOLD.",
                severity="warning",
                timeout=8,
                markup=False,
            )
            return
        tuning = self.state.tuning
        if tuning.merge.mode == "seed" and tuning.merge.max_chunk_tokens is not None:
            self.notify(
                "Auto-tune searches the seed loop with a size cap in chars: switch the cap "
                "to chars first.",
                severity="warning",
                markup=False,
            )
            return

        def chosen(result: Tuning | None) -> None:
            if result is not None:
                self.apply_tuning(result)

        screen = TuneScreen(
            self.pipe, tuning, [1, *marks.starts], marks.weights(), partial=marks.partial
        )
        self.push_screen(screen, chosen)


def _on_screen(widget: Any, screen: Any) -> bool:
    """Whether `widget` is on `screen` (a widget removed from it has none: False)."""
    from textual.dom import NoScreen

    try:
        return bool(widget.screen is screen)
    except NoScreen:
        return False
