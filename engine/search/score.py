"""Retrieval scores: how well a run's chunks answer questions whose answers are known.

For each judged query (`engine.search.queries.Query`), the *right* chunks are those
whose text holds one of its answers, or whose lines overlap its ``lines``. Then:

- **hit**: the context `search` builds under the budget holds an answer (or one of its
  chunks overlaps the lines); the **hit rate** is the share of queries hit;
- **rank**: the place of the first right chunk in the ranker's order (None: the
  ranker does not rank it); **MRR** is the mean of ``1 / rank`` (0 when unranked);
- **recall@k**: the share of queries with a right chunk among the ranker's first k;
- **used tokens**: the context's size, averaged over the queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunkscope.engine.search.core import Answer, SearchIndex, SearchParams
from chunkscope.engine.search.queries import Query

__all__ = ["QueryOutcome", "RetrievalScore", "right_chunks", "score_queries"]

#: The k of recall@k.
RECALL_K = 5


def _overlaps(lines: tuple[int, int] | None, span: tuple[int, int]) -> bool:
    return lines is not None and lines[0] <= span[1] and span[0] <= lines[1]


def right_chunks(
    query: Query, texts: Sequence[str], lines: Sequence[tuple[int, int] | None]
) -> set[int]:
    """The chunks that answer `query` (see the module doc)."""
    out: set[int] = set()
    for i, text in enumerate(texts):
        if any(a in text for a in query.answers) or (
            query.lines is not None and _overlaps(lines[i], query.lines)
        ):
            out.add(i)
    return out


def _hit(query: Query, answer: Answer) -> bool:
    context = answer.context
    if any(a in context for a in query.answers):
        return True
    # a chunk cut to the budget may have lost the lines: only whole chunks answer by lines
    return query.lines is not None and any(
        _overlaps(r.lines, query.lines) for r in answer.results if not r.truncated
    )


@dataclass(frozen=True)
class QueryOutcome:
    """How one judged query fared: hit or miss, the rank of the first right chunk, the tokens
    handed over."""

    query: Query
    hit: bool
    rank: int | None  # of the first right chunk in the ranking (1-based)
    right: tuple[int, ...]  # the chunks that answer it
    used_tokens: int
    answer: Answer

    def as_json(self) -> dict[str, Any]:
        """The outcome as JSON values."""
        return {
            "query": self.query.query,
            "hit": self.hit,
            "rank": self.rank,
            "right_chunks": list(self.right),
            "used_tokens": self.used_tokens,
        }


@dataclass(frozen=True)
class RetrievalScore:
    """How well a run's chunks answer a set of judged queries."""

    outcomes: tuple[QueryOutcome, ...]
    params: SearchParams
    chunks: int
    mean_chunk_tokens: float

    @property
    def queries(self) -> int:
        """How many queries were asked."""
        return len(self.outcomes)

    @property
    def hit_rate(self) -> float:
        """The share of queries with an expected answer in the results."""
        return sum(o.hit for o in self.outcomes) / len(self.outcomes) if self.outcomes else 0.0

    @property
    def mrr(self) -> float:
        """The mean reciprocal rank of the first expected answer (0 for a miss)."""
        if not self.outcomes:
            return 0.0
        return sum(1.0 / o.rank for o in self.outcomes if o.rank) / len(self.outcomes)

    @property
    def recall_at_k(self) -> float:
        """The share of queries whose first right chunk ranks within `RECALL_K`."""
        if not self.outcomes:
            return 0.0
        return sum(1 for o in self.outcomes if o.rank and o.rank <= RECALL_K) / len(self.outcomes)

    @property
    def mean_used_tokens(self) -> float:
        """The mean number of tokens of context handed over per query."""
        if not self.outcomes:
            return 0.0
        return sum(o.used_tokens for o in self.outcomes) / len(self.outcomes)

    @property
    def unanswerable(self) -> int:
        """Queries no chunk answers (an answer cut in two, or not in the text at all)."""
        return sum(1 for o in self.outcomes if not o.right)

    def as_json(self) -> dict[str, Any]:
        """The score and its outcomes as JSON values."""
        return {
            "queries": self.queries,
            "hit_rate": round(self.hit_rate, 4),
            "mrr": round(self.mrr, 4),
            f"recall_at_{RECALL_K}": round(self.recall_at_k, 4),
            "mean_used_tokens": round(self.mean_used_tokens, 1),
            "budget": self.params.budget,
            "ranker": self.params.ranker,
            "chunks": self.chunks,
            "mean_chunk_tokens": round(self.mean_chunk_tokens, 1),
            "unanswerable": self.unanswerable,
            "per_query": [o.as_json() for o in self.outcomes],
        }


def score_queries(
    index: SearchIndex, queries: Sequence[Query], params: SearchParams | None = None
) -> RetrievalScore:
    """Search every query and score the contexts (queries that judge nothing are left
    out)."""
    p = params or SearchParams()
    judged = [q for q in queries if q.judged]
    answers = index.search_many(judged, p)
    outcomes = []
    for q, a in zip(judged, answers, strict=True):
        right = right_chunks(q, index.texts, index.lines)
        rank = next((r for r, i in enumerate(a.ranking, 1) if i in right), None)
        outcomes.append(QueryOutcome(q, _hit(q, a), rank, tuple(sorted(right)), a.used_tokens, a))
    n = len(index.chunks)
    mean = sum(index.tokens) / n if n else 0.0
    return RetrievalScore(tuple(outcomes), p, n, mean)
