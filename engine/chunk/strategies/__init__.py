"""Ways to split a source into chunks, behind one small protocol and a registry.

::

    from chunkscope.engine.chunk.strategies import STRATEGIES, get_strategy, param_specs
    strategy = get_strategy("sliding-window", {"max_tokens": 500, "overlap": 0.1})
    result = strategy.split(turns, get_counter())
    for sc in result.chunks:
        sc.chunk, sc.meta, sc.reason

`STRATEGIES` maps each name to its one-line description; `param_specs(name)`
lists a strategy's parameters with defaults, ranges and CLI flags;
`params_key` / `run_strategy` are the hashable form the `Pipeline` memoises on.
`blank-line` (the seed's split + compaction) is the default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chunkscope.engine.chunk.strategies.base import (
    BaseStrategy,
    Counter,
    ParamsPairs,
    ParamSpec,
    StrategyChunk,
    StrategyResult,
    resolve_overlap,
)
from chunkscope.engine.chunk.strategies.blank_line import BlankLineStrategy
from chunkscope.engine.chunk.strategies.boundary import BoundaryStrategy
from chunkscope.engine.chunk.strategies.episodic import EpisodicStrategy
from chunkscope.engine.chunk.strategies.markdown import MarkdownStrategy
from chunkscope.engine.chunk.strategies.sliding_window import SlidingWindowStrategy
from chunkscope.engine.model import PROGRESS_EVERY, Progress
from chunkscope.engine.params import knobs

if TYPE_CHECKING:
    from chunkscope.engine.model import Turn
    from chunkscope.engine.read.source import Source

__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "BaseStrategy",
    "Counter",
    "ParamSpec",
    "ParamsPairs",
    "StrategyChunk",
    "StrategyResult",
    "coerce_param",
    "get_strategy",
    "make_params",
    "param_specs",
    "params_key",
    "resolve_overlap",
    "run_strategy",
    "strategy_class",
]

DEFAULT_STRATEGY = "blank-line"

_CLASSES: dict[str, type[BaseStrategy[Any]]] = {
    cls.name: cls
    for cls in (
        BlankLineStrategy,
        SlidingWindowStrategy,
        BoundaryStrategy,
        MarkdownStrategy,
        EpisodicStrategy,
    )
}

#: Every strategy name with its one-line description, the default first.
STRATEGIES: dict[str, str] = {name: cls.description for name, cls in _CLASSES.items()}


def strategy_class(name: str) -> type[BaseStrategy[Any]]:
    """The class of strategy `name`; `ValueError` (listing the names) for an unknown one."""
    cls = _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(_CLASSES)}")
    return cls


def param_specs(name: str) -> list[ParamSpec]:
    """The parameters of strategy `name` (knobs): type, default, help, flag, range, choices."""
    return list(knobs(strategy_class(name).params_type))


def coerce_param(spec: ParamSpec, value: Any) -> Any:
    """`value` (a string from a flag, or a Python value) as the parameter's type, range-checked."""
    return spec.coerce(value)


def make_params(name: str, values: Mapping[str, Any] | ParamsPairs | None = None) -> Any:
    """The params dataclass of strategy `name` with `values` (unknown names are errors)."""
    cls = strategy_class(name).params_type
    given = dict(values or {})
    specs = {s.name: s for s in param_specs(name)}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise ValueError(
            f"strategy {name!r} has no parameter {', '.join(unknown)}; "
            f"it has {', '.join(specs) or 'none'}"
        )
    kwargs = {k: coerce_param(specs[k], v) for k, v in given.items()}
    return cls(**kwargs)


def params_key(values: Mapping[str, Any] | None) -> ParamsPairs:
    """The hashable form of parameter values (sorted pairs) for `PipelineParams`."""
    return tuple(sorted((values or {}).items()))


def get_strategy(
    name: str = DEFAULT_STRATEGY, params: Mapping[str, Any] | ParamsPairs | Any | None = None
) -> BaseStrategy[Any]:
    """Strategy `name` with `params` (a mapping, pairs, or its params dataclass)."""
    cls = strategy_class(name)
    if params is None or isinstance(params, Mapping | tuple):
        return cls(make_params(name, params))
    if not isinstance(params, cls.params_type):
        raise TypeError(f"{name}: expected {cls.params_type.__name__}, got {type(params)}")
    return cls(params)


def run_strategy(
    name: str,
    params: Mapping[str, Any] | ParamsPairs | None,
    turns: Sequence[Turn],
    counter: Counter,
    *,
    source: Source | None = None,
    for_pipeline: bool = False,
    progress: Progress | None = None,
) -> StrategyResult:
    """Run strategy `name` with `params` over `turns` (and `source` for document strategies).

    With `for_pipeline`, a strategy that `compacts` (`blank-line`) returns the chunks
    before compaction (the pipeline compacts them in its own, separately memoised
    stage); every other strategy returns its final chunks, which the pipeline does
    not compact.
    ``progress(done, total)`` counts the texts whose tokens have been counted, the
    bulk of a strategy's work (a callback that raises stops the strategy).
    """
    strategy = get_strategy(name, params)
    if for_pipeline and strategy.compacts:
        return strategy.split_raw(turns, progress)
    if progress is not None:
        counter = ReportingCounter(counter, progress)
    return strategy.split(turns, counter, source=source)


class ReportingCounter:
    """A token counter that calls ``progress(done, 0)`` as it counts, ``done`` being
    the texts counted or encoded so far (the total a strategy will count is not
    known): after every `PROGRESS_EVERY` texts of a `count_many` call, and every
    `PROGRESS_EVERY` single counts or encodings."""

    def __init__(self, inner: Counter, progress: Progress) -> None:
        self._inner = inner
        self._progress = progress
        self._done = 0
        self.name = inner.name
        # strategies that encode a whole document read the tiktoken encoding directly
        self._encoding = getattr(inner, "_encoding", None)

    @property
    def exact(self) -> bool:
        return self._inner.exact

    def _single(self) -> None:
        self._done += 1
        if self._done % PROGRESS_EVERY == 0:
            self._progress(self._done, 0)

    def count(self, text: str) -> int:
        self._single()
        return self._inner.count(text)

    def count_many(self, texts: list[str]) -> list[int]:
        out: list[int] = []
        for start in range(0, len(texts), PROGRESS_EVERY):
            part = texts[start : start + PROGRESS_EVERY]
            out += self._inner.count_many(part)
            self._done += len(part)
            self._progress(self._done, 0)
        return out

    def encode(self, text: str) -> list[int]:
        self._single()
        return self._inner.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._inner.decode(ids)
