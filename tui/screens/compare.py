"""Two chunkings side by side: a chunking strategy per column, and the cuts that differ.

Each column of the workbench shows, by default, what it always showed (the left: the
items before the merge; the right: the merged chunks). A `ColumnSpec` replaces a column
with the chunks of one strategy of `engine.strategies` (with its parameters), computed
in a thread worker by `StrategyDriver` (mixed into the app) and kept per column.

Where a cut is, defined once for every column (`cut_keys`): the source line of the first
turn of the chunk after the cut, with that turn's parsed-turn index when both columns
know it (the markdown strategy over a markdown file does not), plus the cut's ordinal
among the cuts of its column at that same position (paragraphs of one turn share a
line). This is `StrategyResult.cut_points()` made comparable; a cut of one column whose
key the other column lacks "differs".
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from textual.worker import Worker, WorkerState, get_current_worker

from tui.screens.runs import Cancelled

SIDES = ("left", "right")
DEFAULT_LABEL = {"left": "before merge", "right": "merged"}

# Parameters a column's sliders edit, in this order (the others keep their defaults).
MAIN_PARAMS = (
    "max_tokens",
    "overlap",
    "max_messages",
    "min_chunk_tokens",
    "gap_minutes",
    "min_chars",
)

Point = tuple[int | None, int | None]  # (turn index, source line), as cut_points()


@dataclass(frozen=True)
class ColumnSpec:
    """A strategy and its parameters (sorted pairs of the values changed from the defaults)."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def with_param(self, key: str, value: Any) -> ColumnSpec:
        from engine.strategies import param_specs

        default = {s.name: s.default for s in param_specs(self.name)}.get(key)
        values = dict(self.params)
        if value == default:
            values.pop(key, None)
        else:
            values[key] = value
        return ColumnSpec(self.name, tuple(sorted(values.items())))

    def value(self, key: str) -> Any:
        from engine.strategies import param_specs

        given = dict(self.params)
        if key in given:
            return given[key]
        return {s.name: s.default for s in param_specs(self.name)}[key]

    def label(self) -> str:
        if not self.params:
            return self.name
        return (
            self.name
            + " "
            + " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.params)
        )


@dataclass
class ColumnResult:
    """One strategy run for one column: its chunks, token counts and where it cut."""

    pipe: Any
    spec: ColumnSpec
    result: Any  # engine.strategies.StrategyResult
    tokens: list[int]
    seconds: float

    @property
    def chunks(self) -> list[Any]:
        return self.result.chunk_list  # type: ignore[no-any-return]

    def points(self) -> list[Point]:
        return self.result.cut_points()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class CutMark:
    """A cut line for `ChunkList` (it reads `reason`, `similarity`, `threshold`)."""

    reason: str
    similarity: Any = field(default=None)
    threshold: Any = None


class _NoSimilarity:
    """A strategy's cut has no merge similarity: formats as a dash."""

    def __format__(self, spec: str) -> str:
        return "–"


NO_SIMILARITY = _NoSimilarity()
DIFFER = "≠ "
RETRY_DELAY = 0.05


def chunk_points(chunks: Sequence[Any]) -> list[Point]:
    """`StrategyResult.cut_points()` for a plain list of chunks (the default columns)."""
    out: list[Point] = []
    for chunk in chunks[1:]:
        first = chunk.turns[0] if chunk.turns else None
        out.append((None, None) if first is None else (first.turn_index, first.source_line))
    return out


def cut_keys(points: Sequence[Point], *, with_index: bool) -> list[Hashable]:
    """Comparable keys of a column's cuts (see the module docstring)."""
    seen: Counter[Hashable] = Counter()
    out: list[Hashable] = []
    for index, line in points:
        where: Hashable = (index, line) if with_index else line
        out.append((where, seen[where]))
        seen[where] += 1
    return out


def differing(a: Sequence[Point], b: Sequence[Point]) -> tuple[list[bool], list[bool]]:
    """For each cut of `a` and of `b`: whether the other column lacks it."""
    with_index = all(p[0] is not None for p in (*a, *b))
    ka = cut_keys(a, with_index=with_index)
    kb = cut_keys(b, with_index=with_index)
    sa, sb = set(ka), set(kb)
    return [k not in sb for k in ka], [k not in sa for k in kb]


def slider_range(spec: Any) -> tuple[float, float, float, float, str] | None:
    """(minimum, maximum, step, big step, format) of a main numeric parameter, else None."""
    if spec.name not in MAIN_PARAMS or spec.type not in ("int", "float"):
        return None
    default = float(spec.default)
    fmt = "{:.0f}"
    if spec.name == "max_tokens":
        hi = max(4000.0, default * 2)
        lo, step = 16.0, (16.0 if hi <= 4000 else 64.0)
        big = step * 8
    elif spec.name == "overlap":
        if default < 1:
            lo, hi, step, big, fmt = 0.0, 0.5, 0.05, 0.1, "{:.2f}"
        else:
            lo, hi, step, big = 0.0, 400.0, 10.0, 50.0
    elif spec.name == "max_messages":
        lo, hi, step, big = 2.0, max(1000.0, default * 2), 5.0, 50.0
    elif spec.name == "min_chunk_tokens":
        lo, hi, step, big = 0.0, max(4000.0, default * 2), 50.0, 500.0
    elif spec.name == "gap_minutes":
        lo, hi, step, big = 1.0, max(720.0, default * 2), 5.0, 60.0
    else:  # min_chars
        lo, hi, step, big = 0.0, max(1000.0, default * 2), 10.0, 100.0
    if spec.minimum is not None:
        lo = max(lo, float(spec.minimum))
    if spec.maximum is not None:
        hi = min(hi, float(spec.maximum))
    # A slider snaps to minimum + k * step: put the default on that grid.
    if lo <= default <= hi:
        lo = default - math.floor((default - lo) / step + 1e-9) * step
    return lo, hi, step, big, fmt


def slider_value(spec: Any, value: float) -> Any:
    """A slider's value as the parameter's type."""
    return round(value) if spec.type == "int" else round(value, 4)


class StrategyDriver:
    """Runs the column strategies in thread workers; mixed into the app."""

    # The app provides these.
    pipe: Any
    lock: threading.Lock

    def _init_columns(self) -> None:
        self.column_specs: dict[str, ColumnSpec | None] = dict.fromkeys(SIDES)
        self.column_results: dict[str, ColumnResult | None] = dict.fromkeys(SIDES)
        self.strategy_runs: Counter[str] = Counter()  # by side: what the tests assert on
        self._strategy_pending: dict[str, tuple[Any, ColumnSpec, Worker[None]]] = {}
        self._strategy_timer: Any = None

    @property
    def comparing(self) -> bool:
        return any(s is not None for s in self.column_specs.values())

    def shown_result(self, side: str) -> tuple[ColumnResult | None, bool]:
        """What to draw in column `side`: its result, or while a parameter change runs the
        previous result of the same strategy (and True: it is being updated)."""
        res = self.column_results[side]
        spec = self.column_specs[side]
        if spec is None or res is None or res.pipe is not self.pipe or res.spec.name != spec.name:
            return None, False
        return res, res.spec != spec

    def column_result(self, side: str) -> ColumnResult | None:
        """The result for `side`'s strategy on the open pipeline, if it is in."""
        spec = self.column_specs[side]
        res = self.column_results[side]
        if spec is None or res is None or res.pipe is not self.pipe or res.spec != spec:
            return None
        return res

    def set_column_strategy(self, side: str, name: str | None) -> None:
        """Show strategy `name` (None: the default view) in column `side`."""
        if name is not None:
            from engine.strategies import strategy_class

            strategy_class(name)  # an unknown name is a ValueError
        current = self.column_specs[side]
        if (current.name if current else None) == name:
            return
        self.column_specs[side] = ColumnSpec(name) if name is not None else None
        self._columns_changed(side)

    def set_column_param(self, side: str, key: str, value: Any) -> None:
        spec = self.column_specs[side]
        if spec is None or spec.value(key) == value:
            return
        self.column_specs[side] = spec.with_param(key, value)
        self._columns_changed(side, params_only=True)

    def cycle_column_strategy(self, side: str, delta: int = 1) -> None:
        from engine.strategies import STRATEGIES

        names: list[str | None] = [None, *STRATEGIES]
        spec = self.column_specs[side]
        i = names.index(spec.name if spec else None)
        self.set_column_strategy(side, names[(i + delta) % len(names)])

    def _columns_changed(self, side: str, *, params_only: bool = False) -> None:
        bench = self.workbench  # type: ignore[attr-defined]
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
                self.workers.cancel_group(self, f"strategy-{side}")  # type: ignore[attr-defined]
                continue
            if self.column_result(side) is not None:
                continue
            pending = self._strategy_pending.get(side)
            if pending is not None and pending[2].state in (
                WorkerState.PENDING,
                WorkerState.RUNNING,
            ):
                if pending[0] is self.pipe and pending[1] == spec:
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

        self._strategy_timer = self.set_timer(RETRY_DELAY, fire)  # type: ignore[attr-defined]

    def _start_strategy(self, side: str, pipe: Any, spec: ColumnSpec) -> Worker[None]:
        def work() -> None:
            self._strategy_work(side, pipe, spec)

        return self.run_worker(  # type: ignore[attr-defined,no-any-return]
            work,
            thread=True,
            exclusive=True,
            group=f"strategy-{side}",
            description=f"_strategy_work {side}",
        )

    def _strategy_work(self, side: str, pipe: Any, spec: ColumnSpec) -> None:
        from engine.strategies import run_strategy

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
            result = run_strategy(
                spec.name, spec.params, turns, counter, source=source, progress=stop_if_cancelled
            )
            if worker.is_cancelled:
                return
            tokens = counter.count_many([c.text for c in result.chunk_list])
        except Cancelled:
            return
        except Exception as e:
            self._ui(self._notify_error, e, f"{spec.name} failed")  # type: ignore[attr-defined]
            return
        if worker.is_cancelled:
            return
        done = ColumnResult(pipe, spec, result, tokens, time.perf_counter() - t0)
        self._ui(self._strategy_ready, side, done)  # type: ignore[attr-defined]

    def _strategy_ready(self, side: str, done: ColumnResult) -> None:
        if done.pipe is not self.pipe or self.column_specs[side] != done.spec:
            return
        self.column_results[side] = done
        self.strategy_runs[side] += 1
        bench = self.workbench  # type: ignore[attr-defined]
        if bench is not None:
            bench.draw_columns()
