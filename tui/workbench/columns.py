"""Two chunkings side by side: a chunking strategy per column, and the cuts that differ.

Each column of the workbench shows, by default, what it always showed (the left: the
items before the merge; the right: the merged chunks). A `ColumnSpec` replaces a column
with the chunks of one strategy of `engine.chunk.strategies` (with its parameters), computed
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
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chunkscope.engine.pipeline import Pipeline

SIDES = ("left", "right")
DEFAULT_LABEL = {"left": "before merge", "right": "merged"}

#: Columns that show a merge mode instead of a strategy: the merged chunks of the seed
#: loop or of the topic segmenter over the open file's chunks and vectors, with the
#: mode's own knobs (from their defaults), so the two can be compared side by side.
MERGE_COLUMNS = {"merge:seed": "seed", "merge:topic": "topic"}
MERGE_COLUMN_HELP = {
    "merge:seed": "the seed's merge loop, with its own sliders",
    "merge:topic": "the topic segmenter, with its own sliders",
}


def column_names() -> list[str]:
    """What a column can show besides its default: every strategy, then the merge modes."""
    from chunkscope.engine.chunk.strategies import STRATEGIES

    return [*STRATEGIES, *MERGE_COLUMNS]


def column_param_specs(name: str) -> list[Any]:
    """The parameters (knobs) of what column `name` shows: a strategy's, or for a merge
    column its mode's knobs that have a slider and a numeric default."""
    if name in MERGE_COLUMNS:
        from chunkscope.engine.config.tuning import MODE_PARAMS
        from chunkscope.engine.params import knobs

        return [
            k
            for k in knobs(MODE_PARAMS[MERGE_COLUMNS[name]])
            if k.slider is not None and isinstance(k.default, int | float)
        ]
    from chunkscope.engine.chunk.strategies import param_specs

    return param_specs(name)


def check_column_name(name: str) -> None:
    """A ValueError listing the names for a column `name` that does not exist."""
    if name not in MERGE_COLUMNS:
        from chunkscope.engine.chunk.strategies import strategy_class

        strategy_class(name)


def run_merge_column(pipe: Pipeline, spec: ColumnSpec) -> Any:
    """The merged chunks of a merge column (`MERGE_COLUMNS`) as a `StrategyResult`: the
    open file's chunks and vectors (memoised), the mode's defaults and the column's
    values."""
    from dataclasses import replace

    from chunkscope.engine.chunk.strategies import StrategyChunk, StrategyResult
    from chunkscope.engine.params import replace_knobs
    from chunkscope.engine.segment.merge import MergeParams
    from chunkscope.engine.segment.segmenter import TopicParams

    mode = MERGE_COLUMNS[spec.name]
    values = dict(spec.params)
    if mode == "seed":
        merge = replace_knobs(MergeParams(mode="seed"), values)
        topic = pipe.params.topic
    else:
        merge = replace(pipe.params.merge, mode="topic")
        topic = replace_knobs(TopicParams(), values)
    result = pipe.with_params(merge=merge, topic=topic).merged()
    reasons = [c.reason for c in result.cuts]
    chunks = [
        StrategyChunk(chunk, {}, reasons[i] if i < len(reasons) else None)
        for i, chunk in enumerate(result.chunks)
    ]
    # the merge's own cuts (their numbers), so the column's cut lines read as the main view's
    return StrategyResult(spec.name, values, chunks, {"mode": mode, "cuts": result.cuts})


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
        default = {s.name: s.default for s in column_param_specs(self.name)}.get(key)
        values = dict(self.params)
        if value == default:
            values.pop(key, None)
        else:
            values[key] = value
        return ColumnSpec(self.name, tuple(sorted(values.items())))

    def value(self, key: str) -> Any:
        given = dict(self.params)
        if key in given:
            return given[key]
        return {s.name: s.default for s in column_param_specs(self.name)}[key]

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

    pipe: Pipeline
    spec: ColumnSpec
    result: Any  # engine.chunk.strategies.StrategyResult
    tokens: list[int]
    seconds: float

    @property
    def chunks(self) -> list[Any]:
        return self.result.chunk_list  # type: ignore[no-any-return]

    def points(self) -> list[Point]:
        return self.result.cut_points()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class CutMark:
    """A cut line for `ChunkList` (it reads `reason`, `similarity`, `threshold`, `depth`)."""

    reason: str
    similarity: Any = field(default=None)
    threshold: Any = None
    depth: Any = None


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
    """(minimum, maximum, step, big step, format) of a main numeric parameter, else None.
    A knob that declares its slider (a merge column's) uses that declaration."""
    declared = getattr(spec, "slider", None)
    if spec.name not in MAIN_PARAMS and declared is not None:
        return (
            float(declared.lo),
            float(declared.hi),
            float(declared.step),
            float(declared.big),
            declared.fmt,
        )
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
