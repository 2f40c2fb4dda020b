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

from chunkscope.tui.widgets.panel_title import title_forms

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
        from chunkscope.engine.config.tuning import MODE_PARAMS, SHARED_KNOBS
        from chunkscope.engine.params import knobs
        from chunkscope.engine.segment.merge import MergeParams

        mode = MERGE_COLUMNS[name]
        own = list(knobs(MODE_PARAMS[mode]))
        if MODE_PARAMS[mode] is not MergeParams:  # the size cap is a knob of both modes
            own += [k for k in knobs(MergeParams) if k.name in SHARED_KNOBS]
        return [k for k in own if k.slider is not None and isinstance(k.default, int | float)]
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

    from chunkscope.engine.chunk.strategies import StrategyChunk, StrategyResult
    from chunkscope.engine.params import replace_knobs
    from chunkscope.engine.segment.merge import MergeParams
    from chunkscope.engine.segment.segmenter import TopicParams

    mode = MERGE_COLUMNS[spec.name]
    values = dict(spec.params)
    if mode == "seed":
        merge = replace_knobs(MergeParams(mode="seed"), values)
        topic = pipe.params.topic
    else:  # its own size cap too, from its default (walk 12, 2: it took the main view's)
        merge = replace_knobs(MergeParams(mode="topic"), values)
        topic = replace_knobs(TopicParams(), values)
    run = pipe.with_params(merge=merge, topic=topic)
    result = run.merged()
    reasons = [c.reason for c in result.cuts]
    over = result.exceeds_limit  # a unit over the cap, kept whole: `over cap!` on its card
    chunks = [
        StrategyChunk(
            chunk, {"exceeds_limit": bool(over[i])}, reasons[i] if i < len(reasons) else None
        )
        for i, chunk in enumerate(result.chunks)
    ]
    # the merge's own cuts (their numbers), so the column's cut lines read as the main
    # view's; the run itself, its units and their similarities (the seed loop and the
    # topic segmenter compact differently: the axis of the column's similarity strip)
    info = {
        "mode": mode,
        "cuts": result.cuts,
        "merge_run": result,
        "sims": run.similarities(),
        "units": run.compacted(),
    }
    return StrategyResult(spec.name, values, chunks, info)


#: A strategy's parameters its column's sliders edit, in this order (the others keep
#: their defaults), and how the sliders name them. A knob that declares its slider (a
#: merge column's) is named by that declaration (`Knob.label`).
MAIN_PARAM_LABELS = {
    "max_tokens": "max tokens",
    "overlap": "overlap",
    "max_messages": "max msgs",
    "min_chunk_tokens": "min tokens",
    "gap_minutes": "gap min",
    "min_chars": "min chars",
}
MAIN_PARAMS = tuple(MAIN_PARAM_LABELS)

Point = tuple[int | None, int | None]  # (turn index, source line), as cut_points()


def param_label(spec: Any) -> str:
    """A column's parameter (knob) as its slider names it: ``min size``, ``max tokens``."""
    return MAIN_PARAM_LABELS.get(spec.name) or str(spec.label)


def _setting(spec: Any, key: str, value: Any) -> str:
    """A changed parameter as its slider names and shows it: ``min size 5000``."""
    if spec is None:  # (not a parameter of the column: said as given)
        return f"{key} {value}"
    rng = slider_range(spec)
    if rng is not None and isinstance(value, int | float):
        return f"{param_label(spec)} {rng[4].format(value)}"
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{param_label(spec)} {shown}"


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
        """The column's name and the settings changed from their defaults, named and
        shown as its sliders show them: ``merge:topic min size 5000, max chars 256``
        (walk 39, F4: it said ``topic_min_chars=5000``, the engine's name)."""
        if not self.params:
            return self.name
        specs = {s.name: s for s in column_param_specs(self.name)}
        order = list(specs)  # the sliders' order
        given = sorted(self.params, key=lambda kv: order.index(kv[0]) if kv[0] in specs else 0)
        return f"{self.name} " + ", ".join(_setting(specs.get(k), k, v) for k, v in given)

    def labels(self) -> list[str]:
        """`label` and the bare name, longest first: a title that has no room for the
        settings keeps the run's numbers (the sliders show the settings)."""
        return list(dict.fromkeys([self.label(), self.name]))


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


@dataclass(frozen=True)
class ColumnStrip:
    """What a compare column's similarity strip draws, over the compacted units (the
    strip's axis): the column's own similarities (none for a chunking strategy: `note`
    says so), its cuts as (pair, reason), the size of its chunk holding each unit
    against its cap, the numbers of its title, and which of the column's cuts each cut
    drawn is (`cut_of`: the chunk before it, for its verdict against the marks)."""

    sims: Any  # np.ndarray
    threshold: float | None
    cuts: list[tuple[int, str]]
    sizes: Any  # np.ndarray
    cap: int | None
    unit: str
    note: str | None
    titles: list[str]  # the numbers of its title, whole to shortest (`title_forms`)
    cut_of: list[int] = field(default_factory=list)


def strip_number_forms(sims: Any, result: Any, depth: Any, cuts: str = "") -> list[str]:
    """``neighbours 165 · mean 0.14 σ 0.27 · topic depth ≥ 7.00`` (then `cuts`, a count)
    and its shorter forms: a merged run's similarities and how it cut (its topic depth,
    or its thresholds by pass, fewer of them first); without similarities, `cuts`."""
    if not len(sims):
        return [cuts]
    if result.params.mode == "topic":
        shown = depth if isinstance(depth, str) else f"{depth:.2f}"
        found = getattr(result, "cut_threshold", None)
        if isinstance(depth, str) and found is not None and math.isfinite(found):
            # the threshold the adaptive depth computed, not the word (walk 19, 9)
            how = [f"topic depth ≥ {found:.2f} ({depth})", f"depth ≥ {found:.2f}", ""]
        else:
            how = [f"topic depth ≥ {shown}", f"depth ≥ {shown}", ""]
    else:
        passes = [f"{t:.2f}" for t in result.thresholds[:12]]
        how = [
            f"thresholds by pass {' '.join(passes[:k])}"
            + (" …" if k < len(result.thresholds) else "")
            for k in range(len(passes), 0, -1)
        ] + [""]
    slots = [
        [f"neighbours {len(sims)}", ""],
        [f"mean {float(sims.mean()):.2f} σ {float(sims.std()):.2f}", ""],
        how,
        [cuts, ""],
    ]
    # the thresholds beyond the first, then the count of neighbours, the spread, the
    # cuts, and how it cut last
    order = [2] * max(0, len(how) - 2) + [0, 1, 3, 2]
    return title_forms(slots, order)


def _chunk_sizes(chunks: Sequence[Any], tokens: Sequence[int] | None, unit: str) -> Any:
    import numpy as np

    if unit == "tokens" and tokens is not None and len(tokens) == len(chunks):
        return np.asarray(tokens, dtype=np.int64)
    return np.asarray([len(c.text) for c in chunks], dtype=np.int64)


def _unit_pairs(view: Any, points: Sequence[Point]) -> list[int | None]:
    """Where each cut of a column falls on the strip's axis: the pair of compacted units
    it comes before, by the source line and then the turn index of the first turn of the
    chunk after it (a markdown paragraph has its own line in one turn; a log's turns may
    share a record's line), by the turn index alone when lines are unknown; None when
    the cut says neither or falls outside."""
    from bisect import bisect_left

    units = view.compacted
    firsts = [u.turns[0] if u.turns else None for u in units]
    by_index = [t.turn_index for t in firsts if t is not None and t.turn_index is not None]
    by_place = [
        (t.source_line, t.turn_index)
        for t in firsts
        if t is not None and t.source_line is not None and t.turn_index is not None
    ]
    use_index = len(by_index) == len(units)
    use_place = len(by_place) == len(units)
    out: list[int | None] = []
    for index, line in points:
        if line is not None and use_place:
            at = bisect_left(by_place, (line, -1 if index is None else index))
        elif index is not None and use_index:
            at = bisect_left(by_index, index)
        else:
            out.append(None)
            continue
        out.append(at - 1 if 1 <= at < len(units) else None)
    return out


def column_strip(
    view: Any, result: Any, chunks: Sequence[Any], tokens: Sequence[int] | None
) -> ColumnStrip:
    """The strip of a compare column (`ColumnStrip`): `result` is the column's
    `StrategyResult` (a merge column's holds its run), None for the items before the
    merge (the default left column: the compacted units' neighbours, no cuts yet)."""
    import numpy as np

    from chunkscope.engine.chunk.strategies.base import strategy_size_cap
    from chunkscope.engine.textutil import plural
    from chunkscope.tui.widgets.similarity_strip import cut_name

    mp = view.params.merge
    sims = view.sims
    units = len(view.compacted)
    if result is None:
        sizes = _chunk_sizes(view.compacted, view.compact_tokens, mp.cap_unit)
        # in the units the strip plots, named (the column may show turns: its title
        # counts those), not its neighbours' numbers beside the turns' cuts
        items = plural(units, "unit")
        stats = f"mean {float(sims.mean()):.2f} σ {float(sims.std()):.2f}" if len(sims) else ""
        slots = [[items], [f"neighbours {len(sims)}" if len(sims) else "", ""], [stats, ""]]
        titles = title_forms(slots, [1, 2])
        # not merged: the merge's size cap does not apply to them (sizes in its unit)
        return ColumnStrip(sims, None, [], sizes, None, mp.cap_unit, None, titles)
    merged = result.info.get("merge_run")
    if merged is not None:  # a merge column: its own run over the same units
        spans = merged.spans
        cuts = [(int(spans[c.after][1]) - 1, c.reason) for c in merged.cuts]
        cut_of = [int(c.after) for c in merged.cuts]
        own = np.asarray(result.info.get("sims", np.zeros(0)), dtype=np.float64)
        own = own if len(merged.owners) == len(own) + 1 else np.zeros(0)
        first = merged.passes[0].threshold if merged.passes else None
        unit = merged.params.cap_unit
        sizes = _chunk_sizes(merged.chunks, tokens, unit)[merged.owners]
        from chunkscope.engine.segment.segmenter import TopicParams

        depth = result.params.get("topic_depth", TopicParams().topic_depth)
        titles = strip_number_forms(own, merged, depth, plural(len(cuts), "cut"))
        note = None if len(own) else "no similarities for these units"
        return ColumnStrip(own, first, cuts, sizes, merged.params.cap, unit, note, titles, cut_of)
    # a chunking strategy: no similarity scores; its cuts where they fall
    pairs = _unit_pairs(view, result.cut_points())
    reasons = [r or "cut" for r in result.cuts]
    drawn = [(i, p, r) for i, (p, r) in enumerate(zip(pairs, reasons, strict=False))]
    cuts = [(p, r) for _, p, r in drawn if p is not None]
    cut_of = [i for i, p, _ in drawn if p is not None]
    unit = "tokens" if tokens is not None and len(tokens) == len(chunks) else "chars"
    # the strategy's own cap (its max tokens), against its chunks' tokens
    cap = strategy_size_cap(result.params) if unit == "tokens" else None
    chunk_sizes = _chunk_sizes(chunks, tokens, unit)
    starts = np.asarray(sorted(p + 1 for p, _ in cuts), dtype=np.int64)
    owner = np.searchsorted(starts, np.arange(units), side="right")
    sizes = chunk_sizes[np.minimum(owner, len(chunk_sizes) - 1)] if len(chunk_sizes) else owner
    why = ", ".join(sorted({cut_name(r) for r in reasons}))
    note = f"no scores: {result.strategy} " + (f"cuts by {why}" if why else "made no cut")
    counted = plural(len(reasons), "cut")
    slots = [
        ["no similarity scores", "no scores", ""],
        [f"{counted} ({why})" if why else counted, counted],
    ]
    # "no scores" (the row under says it too), then the reasons (the legend names them)
    titles = title_forms(slots, [0, 1, 0])
    return ColumnStrip(np.zeros(0), None, cuts, sizes, cap, unit, note, titles, cut_of)
