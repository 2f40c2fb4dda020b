"""Search: questions asked of a run's chunks, and how well the chunks answer them.

- `queries`: query files (``{"queries": [{"query", "answers" | "lines"}]}``);
- `rankers`: BM25 (`bm25s`), the embedder's cosine, and their reciprocal rank fusion;
- `core`: `SearchIndex` ranks the merged chunks and fills a context under a token
  budget (`SearchParams`: ranker, budget, top, neighbours);
- `score`: hit rate at the budget, MRR, recall@k and tokens used (`score_queries`);
- `tune`: the merge settings whose chunks answer best (`tune_retrieval`).

`engine.pipeline.Pipeline.search_index` builds the index of a run (memoised with the
merge); the command line's ``search`` and ``eval --queries``, ``sweep``/``tune`` with
``--queries`` and the workbench's Search panel all go through it.
"""

from chunkscope.engine.search.core import CONTEXT_JOIN, Answer, Result, SearchIndex, SearchParams
from chunkscope.engine.search.queries import (
    Query,
    QueryError,
    load_judged_queries,
    load_queries,
    parse_queries,
)
from chunkscope.engine.search.rankers import DEFAULT_RANKER, RANKERS
from chunkscope.engine.search.score import RECALL_K, QueryOutcome, RetrievalScore, score_queries
from chunkscope.engine.search.tune import (
    RETRIEVAL_GRIDS,
    RetrievalTuned,
    retrieval_score,
    tune_retrieval,
)

__all__ = [
    "CONTEXT_JOIN",
    "DEFAULT_RANKER",
    "RANKERS",
    "RECALL_K",
    "RETRIEVAL_GRIDS",
    "Answer",
    "Query",
    "QueryError",
    "QueryOutcome",
    "Result",
    "RetrievalScore",
    "RetrievalTuned",
    "SearchIndex",
    "SearchParams",
    "load_judged_queries",
    "load_queries",
    "parse_queries",
    "retrieval_score",
    "score_queries",
    "tune_retrieval",
]
