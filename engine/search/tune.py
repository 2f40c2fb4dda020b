"""Tuning the chunks for retrieval: the merge settings whose chunks answer questions best.

`tune_retrieval` runs each setting of a grid over several files, each with its query
file (`engine.search.queries`): the merge runs again per setting (the pipeline's memos
keep everything before it), the run's `SearchIndex` answers the questions, and the
settings rank by `RetrievalTuned.objective`: mean hit rate at the budget first, then
mean MRR. A setting ranks above the settings in force only when it answers clearly more
questions, at least `min_gain` of them (2, or 2% of the questions when that is more):
one question either way is noise on a few files, and a setting chosen by it answered
fewer held-out questions in `bench/retrieval.py`. The others rank by how near they are
to the settings in force (`engine.config.tuning.setting_distance`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from chunkscope.engine.search.core import SearchParams
from chunkscope.engine.search.queries import Query
from chunkscope.engine.search.score import RetrievalScore, score_queries

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.pipeline import Pipeline

__all__ = ["RETRIEVAL_GRIDS", "RetrievalTuned", "min_gain", "retrieval_score", "tune_retrieval"]

#: The default grid of `tune --queries`, per merge mode: the knobs that shape the chunks.
RETRIEVAL_GRIDS: dict[str, dict[str, list[Any]]] = {
    "topic": {
        "topic_chunk_tokens": [0, 100, 150, 200, 250, 300, 400, 600],
        "topic_depth": [5.0, 7.0, 9.0],
    },
    "seed": {
        "max_chunk_chars": [512, 1024, 2048, 4096, 8192],
        "std_k": [0.0, 0.5, 1.0],
    },
}


def retrieval_score(
    pipe: Pipeline, queries: Sequence[Query], params: SearchParams | None = None
) -> RetrievalScore:
    """How well the run of `pipe` answers `queries` (`score_queries` on its index)."""
    return score_queries(pipe.search_index(), queries, params)


def _run(pipe: Pipeline, tuning: Tuning, values: Mapping[str, Any]) -> Pipeline:
    t = tuning.with_values(values)
    return pipe.with_params(merge=t.merge, topic=t.topic, min_chars=t.min_chars)


class RetrievalTuned(NamedTuple):
    """One setting with its mean scores over the files."""

    values: dict[str, Any]
    hit_rate: float
    mrr: float
    recall_at_k: float
    mean_chunk_tokens: float
    chunks: float
    hits: int  # questions answered, over every file

    @classmethod
    def of(cls, values: dict[str, Any], scores: Sequence[RetrievalScore]) -> RetrievalTuned:
        """One setting's result over several files: the mean of each score."""
        n = len(scores) or 1
        return cls(
            values,
            sum(s.hit_rate for s in scores) / n,
            sum(s.mrr for s in scores) / n,
            sum(s.recall_at_k for s in scores) / n,
            sum(s.mean_chunk_tokens for s in scores) / n,
            sum(s.chunks for s in scores) / n,
            sum(sum(o.hit for o in s.outcomes) for s in scores),
        )

    def objective(self) -> tuple[float, float]:
        """What `tune_retrieval` minimises: hit rate first, then MRR (highest first)."""
        return (-round(self.hit_rate, 9), -round(self.mrr, 9))


def min_gain(queries: int) -> int:
    """How many more questions a setting must answer to replace the one in force."""
    return max(2, math.ceil(0.02 * queries))


def tune_retrieval(
    cases: Sequence[tuple[Pipeline, Sequence[Query]]],
    tuning: Tuning,
    grid: Mapping[str, Sequence[Any]],
    params: SearchParams | None = None,
    *,
    top: int = 5,
    prefer: Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[RetrievalTuned]:
    """The `top` settings of `grid` by `RetrievalTuned.objective` over `cases` (each a
    file's pipeline and its queries), best first. With `prefer` (the settings in force,
    among the grid's values), only a setting that answers `min_gain` more questions than
    it ranks above it; the rest follow it, by the objective, then by how near they are
    to it."""
    from chunkscope.engine.config.tuning import setting_distance

    names = list(grid)
    settings = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grid.values())]
    results = []
    for i, values in enumerate(settings):
        scores = [retrieval_score(_run(p, tuning, values), qs, params) for p, qs in cases]
        results.append(RetrievalTuned.of(values, scores))
        if progress is not None:
            progress(i + 1, len(settings))
    if prefer is None:
        results.sort(key=RetrievalTuned.objective)
        return results[:top]
    near = prefer
    current = next((t for t in results if all(t.values[k] == near.get(k) for k in names)), None)
    if current is None:  # the settings in force are off the grid: score them too
        values = {k: near[k] for k in names if k in near}
        scores = [retrieval_score(_run(p, tuning, values), qs, params) for p, qs in cases]
        current = RetrievalTuned.of(values, scores)
    gain = min_gain(sum(len(qs) for _, qs in cases))

    def key(t: RetrievalTuned) -> tuple[Any, ...]:
        distance = setting_distance(t.values, near)
        if current is None or t.hits >= current.hits + gain:
            return (0, t.objective(), distance)
        if all(t.values[k] == current.values.get(k) for k in names):
            return (1, distance, t.objective())  # the settings in force
        return (2, t.objective(), distance)

    results.sort(key=key)
    return results[:top]
