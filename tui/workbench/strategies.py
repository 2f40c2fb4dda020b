"""Running the column strategies of the workbench in thread workers (a part of the app).

Each column may show one strategy of `engine.chunk.strategies` (a `ColumnSpec`); a worker per
column computes its result, one run at a time per column, the newest parameters running
once the current run is done.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, WorkerState, get_current_worker

from chunkscope.tui.workbench.columns import (
    MERGE_COLUMNS,
    RETRY_DELAY,
    SIDES,
    ColumnResult,
    ColumnSpec,
    check_column_name,
    column_names,
    run_merge_column,
)
from chunkscope.tui.workbench.messages import StrategyReady, WorkFailed
from chunkscope.tui.workbench.runs import Cancelled
from chunkscope.tui.workbench.state import WorkbenchHost

if TYPE_CHECKING:
    from chunkscope.engine.pipeline import Pipeline


class StrategyDriver(WorkbenchHost):
    """Runs the column strategies in thread workers; mixed into the app."""

    def _init_columns(self) -> None:
        self.column_specs: dict[str, ColumnSpec | None] = dict.fromkeys(SIDES)
        self.column_results: dict[str, ColumnResult | None] = dict.fromkeys(SIDES)
        self.strategy_runs: Counter[str] = Counter()  # by side: what the tests assert on
        self._strategy_pending: dict[str, tuple[Any, ColumnSpec, Worker[None]]] = {}
        self._strategy_timer = None
        # by side: the min size a topic merge column's user chose, lowered to its cap
        self._column_min_chosen: dict[str, int] = {}

    @property
    def comparing(self) -> bool:
        return any(s is not None for s in self.column_specs.values())

    def shown_result(self, side: str) -> tuple[ColumnResult | None, bool]:
        """What to draw in column `side`: its result, or while a parameter change runs the
        previous result of the same strategy (and True: it is being updated)."""
        res = self.column_results[side]
        spec = self.column_specs[side]
        if (
            spec is None
            or res is None
            or not res.pipe.same_file(self.pipe)
            or res.spec.name != spec.name
        ):
            return None, False
        return res, res.spec != spec

    def column_result(self, side: str) -> ColumnResult | None:
        """The result for `side`'s strategy on the open pipeline, if it is in."""
        spec = self.column_specs[side]
        res = self.column_results[side]
        if spec is None or res is None or not res.pipe.same_file(self.pipe) or res.spec != spec:
            return None
        return res

    def set_column_strategy(self, side: str, name: str | None) -> None:
        """Show strategy `name` (None: the default view) in column `side`."""
        if name is not None:
            check_column_name(name)  # an unknown name is a ValueError
        current = self.column_specs[side]
        if (current.name if current else None) == name:
            return
        self.column_specs[side] = ColumnSpec(name) if name is not None else None
        self._column_min_chosen.pop(side, None)  # a new column starts from its defaults
        self._columns_changed(side)

    def set_column_param(self, side: str, key: str, value: Any) -> None:
        self.controls_applied_at = time.monotonic()
        spec = self.column_specs[side]
        if spec is None or spec.value(key) == value:
            return
        new = spec.with_param(key, value)
        if new.name not in MERGE_COLUMNS:
            from chunkscope.engine.chunk.strategies import make_params

            try:  # parameters that cannot work together (an overlap over max_tokens)
                make_params(new.name, new.params)
            except ValueError as e:
                # refused before a run: the column keeps the setting its chunks were made
                # with (walk 15: a failed run left the title naming the refused value)
                kept = spec.value(key)
                self.notify(f"{new.name}: {e}; {key} stays at {kept}", markup=False)
                bench = self.workbench
                if bench is not None:
                    bench.put_column_value(side, key, kept)
                return
        new = self._min_size_in_cap(side, new, key)
        self.column_specs[side] = new
        self._columns_changed(side, params_only=True)

    def _min_size_in_cap(self, side: str, spec: ColumnSpec, key: str) -> ColumnSpec:
        """A topic merge column's `spec` with its min size within its size cap, as the
        merge panel keeps it (`engine.config.tuning.fit_min_size`, said with the column's
        name), the user's own value remembered for the column. Moving the min size
        (`key`) makes the new value the user's."""
        from chunkscope.engine.config.tuning import fit_min_size, layer

        chosen_by_side = self._column_min_chosen
        if key == "topic_min_chars" or MERGE_COLUMNS.get(spec.name) != "topic":
            chosen_by_side.pop(side, None)
        if MERGE_COLUMNS.get(spec.name) != "topic":
            return spec
        fit = fit_min_size(layer({"mode": "topic", **dict(spec.params)}), chosen_by_side.get(side))
        if fit is None:
            return spec
        if fit.chosen is None:
            chosen_by_side.pop(side, None)
        else:
            chosen_by_side[side] = fit.chosen
        said = f"{spec.name}: {fit.said}"
        if fit.warning:
            self.notify(said, severity="warning", markup=False)
        else:
            self.notify(said, markup=False)
        bench = self.workbench
        if bench is not None:
            bench.put_column_value(side, "topic_min_chars", fit.now)
        return spec.with_param("topic_min_chars", fit.now)

    def cycle_column_strategy(self, side: str, delta: int = 1) -> None:
        names: list[str | None] = [None, *column_names()]
        spec = self.column_specs[side]
        i = names.index(spec.name if spec else None)
        self.set_column_strategy(side, names[(i + delta) % len(names)])

    def _columns_changed(self, side: str, *, params_only: bool = False) -> None:
        bench = self.workbench
        if bench is not None:
            bench.columns_changed(params_only=params_only)
        self.ensure_columns([side])

    def ensure_columns(self, sides: Sequence[str] = SIDES) -> None:
        """Start a worker for each column of `sides` whose strategy result is not in."""
        if self.pipe is None:
            return
        for side in sides:
            spec = self.column_specs[side]
            if spec is None:
                self.workers.cancel_group(self, f"strategy-{side}")
                continue
            if self.column_result(side) is not None:
                continue
            pending = self._strategy_pending.get(side)
            if pending is not None and pending[2].state in (
                WorkerState.PENDING,
                WorkerState.RUNNING,
            ):
                if pending[0].same_file(self.pipe) and pending[1] == spec:
                    continue  # already on its way: a redraw does not restart it
                if pending[2].state == WorkerState.RUNNING:
                    # A strategy cannot be stopped half way: one run per column at a
                    # time, and the newest parameters run once it is done (a slider
                    # drag costs one run, not one per step).
                    self._retry_columns()
                    continue
            worker = self._start_strategy(side, self.pipe, spec)
            self._strategy_pending[side] = (self.pipe, spec, worker)

    def _retry_columns(self) -> None:
        if self._strategy_timer is not None:
            return

        def fire() -> None:
            self._strategy_timer = None
            self.ensure_columns()

        self._strategy_timer = self.set_timer(RETRY_DELAY, fire)

    def _start_strategy(self, side: str, pipe: Pipeline, spec: ColumnSpec) -> Worker[None]:
        def work() -> None:
            self._strategy_work(side, pipe, spec)

        return self.run_worker(
            work,
            thread=True,
            exclusive=True,
            group=f"strategy-{side}",
            description=f"_strategy_work {side}",
        )

    def _strategy_work(self, side: str, pipe: Pipeline, spec: ColumnSpec) -> None:
        from chunkscope.engine.chunk.strategies import run_strategy

        worker = get_current_worker()
        t0 = time.perf_counter()

        def stop_if_cancelled(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise Cancelled

        try:
            with self.lock:
                turns = pipe.turns()
                source = pipe.source()
                counter = pipe.counter
            if spec.name in MERGE_COLUMNS:
                result = run_merge_column(pipe, spec)
            else:
                result = run_strategy(
                    spec.name,
                    spec.params,
                    turns,
                    counter,
                    source=source,
                    progress=stop_if_cancelled,
                )
            if worker.is_cancelled:
                return
            tokens = counter.count_many([c.text for c in result.chunk_list])
        except Cancelled:
            return
        except Exception as e:
            self.post_message(WorkFailed(e, f"{spec.name} failed"))
            return
        if worker.is_cancelled:
            return
        done = ColumnResult(pipe, spec, result, tokens, time.perf_counter() - t0)
        self.post_message(StrategyReady(side, done))

    def on_strategy_ready(self, message: StrategyReady) -> None:
        self._strategy_ready(message.side, message.result)

    def _strategy_ready(self, side: str, done: ColumnResult) -> None:
        if not done.pipe.same_file(self.pipe) or self.column_specs[side] != done.spec:
            return
        self.column_results[side] = done
        self.strategy_runs[side] += 1
        bench = self.workbench
        if bench is not None:
            bench.draw_columns()
