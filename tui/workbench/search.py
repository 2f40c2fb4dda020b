"""The app's part that asks the merged chunks questions: the Search panel and the live
hit rate of a query file.

- **The Search panel** (`/`, `tui.widgets.search_panel`): the question typed there is
  answered by `engine.search` over the run's merged chunks (`Pipeline.search_index`,
  memoised with the merge) in a thread worker; the answer's chunks are highlighted in
  the merged column and on the similarity strip. While the panel is open with a
  question, every run (a slider step) asks it again.
- **A query file** (``chunkscope FILE --queries Q.json``): after every run a worker
  scores its judged queries (`engine.search.score_queries`, BM25 at the panel's budget)
  and the live score shows the hit rate beside Pk / F1; the compare view shows each
  column's hit rate in its title.

Workers only read the pipeline and answer with Messages (`SearchReady`,
`RetrievalReady`, `ColumnHitsReady`); an answer for a run no longer on screen is dropped
(the next run asks again). The app's lock is held to fetch the run's index (a memoised
stage) and for the rankers that embed, not for BM25: a search of a few hundred chunks
takes up to ~0.1 s, which the next slider step's run need not wait for. The query file
applies to the file it was given with, as ``--gold`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import get_current_worker

from chunkscope.tui.workbench.messages import (
    ColumnHitsReady,
    RetrievalReady,
    SearchReady,
    WorkFailed,
)
from chunkscope.tui.workbench.state import WorkbenchHost

if TYPE_CHECKING:
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.search import Answer, Query, RetrievalScore, SearchIndex, SearchParams
    from chunkscope.tui.workbench.runs import RunView

#: Compare-column scores kept (by the identity of the column's chunk list).
COLUMN_HITS_KEPT = 16


class SearchDriver(WorkbenchHost):
    """See the module docstring."""

    def _init_search(self) -> None:
        from chunkscope.engine.search import DEFAULT_RANKER

        self.search_open = False  # the panel is open: its answer is drawn and followed
        self.search_query = ""
        self.search_ranker = DEFAULT_RANKER
        self.search_answer: Answer | None = None
        self.search_view: RunView | None = None  # the run the answer is about
        self.queries: tuple[Query, ...] = tuple(self.options.queries)
        self.retrieval: RetrievalScore | None = None
        self.retrieval_view: RunView | None = None
        self._column_hits: dict[int, tuple[Any, RetrievalScore | None]] = {}
        self._column_hits_pending: set[int] = set()

    def search_params(self) -> SearchParams:
        """The panel's search: its ranker, the other knobs at their defaults."""
        from chunkscope.engine.search import SearchParams

        return SearchParams(ranker=self.search_ranker)

    def retrieval_params(self) -> SearchParams:
        """The query file's score: BM25 at the panel's budget."""
        from chunkscope.engine.search import SearchParams

        return SearchParams(budget=self.search_params().budget)

    # ------------------------------------------------------------------ the panel

    def search(self, query: str) -> None:
        """Ask `query` of the run on screen (an empty one clears the answer)."""
        self.search_query = query.strip()
        if not self.search_query:
            self.clear_search_answer()
            return
        bench = self.workbench
        if self.pipe is None or bench is None or bench.view is None:
            self.notify("Open a file first (ctrl+o).", severity="warning", markup=False)
            return
        self.search_answer = None  # the old answer is not this question's
        bench.show_search()
        self._search(self.pipe, bench.view, self.search_query, self.search_params())

    def set_search_ranker(self, ranker: str) -> None:
        if ranker != self.search_ranker:
            self.search_ranker = ranker
            if self.search_open and self.search_query:
                self.search(self.search_query)

    def clear_search_answer(self) -> None:
        self.workers.cancel_group(self, "search")
        self.search_answer = None
        self.search_view = None
        bench = self.workbench
        if bench is not None:
            bench.show_search()

    def _current_index(self, pipe: Pipeline, view: RunView) -> SearchIndex | None:
        """The index of `view`'s run, built under the app's lock (None: a newer run is on
        screen, or the worker was cancelled meanwhile)."""
        with self.lock:
            if not self._current(pipe, view):
                return None
            index = pipe.search_index()
        return None if get_current_worker().is_cancelled else index

    @work(thread=True, exclusive=True, group="search", description="_search")
    def _search(self, pipe: Pipeline, view: RunView, query: str, params: SearchParams) -> None:
        worker = get_current_worker()
        try:
            index = self._current_index(pipe, view)
            if index is None:
                return
            if params.ranker == "bm25":  # the index's own words: no pipeline state
                answer = index.search(query, params)
            else:  # embeds the question through the pipeline's embedder and its cache
                with self.lock:
                    answer = index.search(query, params)
        except Exception as e:
            self.post_message(WorkFailed(e, "Search failed"))
            return
        if not worker.is_cancelled:
            self.post_message(SearchReady(view, answer, params))

    def on_search_ready(self, message: SearchReady) -> None:
        bench = self.workbench
        if bench is None or bench.view is not message.view or not self.search_open:
            return  # a newer run asks again
        if message.answer.query.query != self.search_query:
            return
        if message.params != self.search_params():
            return  # asked under another ranker
        self.search_answer = message.answer
        self.search_view = message.view
        bench.show_search()

    # ------------------------------------------------------------------ after a run

    def search_follow(self, view: RunView) -> None:
        """A run is on screen: ask the open question again, score the query file."""
        if self.pipe is None:
            return
        if self.search_open and self.search_query:
            self._search(self.pipe, view, self.search_query, self.search_params())
        if self.queries_apply():
            self._score_queries(self.pipe, view, self.queries, self.retrieval_params())

    def queries_apply(self) -> bool:
        """Whether the query file is about the open file (the one it was given with)."""
        from pathlib import Path

        first = self.options.path
        if not self.queries or self.pipe is None or first is None:
            return False
        return Path(self.pipe.path).resolve() == Path(first).resolve()

    @work(thread=True, exclusive=True, group="retrieval", description="_score_queries")
    def _score_queries(
        self, pipe: Pipeline, view: RunView, queries: Sequence[Query], params: SearchParams
    ) -> None:
        from chunkscope.engine.search import score_queries

        worker = get_current_worker()
        try:
            index = self._current_index(pipe, view)
            if index is None:
                return
            score = score_queries(index, queries, params)  # BM25: outside the lock
        except Exception as e:
            self.post_message(WorkFailed(e, "Scoring the queries failed"))
            return
        if not worker.is_cancelled:
            self.post_message(RetrievalReady(view, score))

    def on_retrieval_ready(self, message: RetrievalReady) -> None:
        bench = self.workbench
        if bench is None or bench.view is not message.view:
            return
        self.retrieval = message.score
        self.retrieval_view = message.view
        bench.show_marks()

    def retrieval_text(self) -> str:
        """The live score's line for the query file ("" without one)."""
        if not self.queries_apply():
            return ""
        s = self.retrieval
        bench = self.workbench
        if s is None or bench is None or self.retrieval_view is not bench.view:
            return "queries: hit … (scoring)"  # the score shown is the run's on screen
        return f"hit {s.hit_rate:.2f} · MRR {s.mrr:.2f} · {s.queries} queries"

    # ------------------------------------------------------------------ compare columns

    def column_hit(self, chunks: Sequence[Any], owner: object = None) -> RetrievalScore | None:
        """The query file's score on a compare column's chunks: known, or asked for in a
        worker (the columns are drawn again when it answers) and None meanwhile. Kept
        under `owner` (what the chunks come from, when the list is made on each call)."""
        if not self.queries_apply() or self.pipe is None or not chunks:
            return None
        key = owner if owner is not None else chunks
        hit = self._column_hits.get(id(key))
        if hit is not None and hit[0] is key:
            return hit[1]
        if id(key) not in self._column_hits_pending:
            self._column_hits_pending.add(id(key))
            self._score_columns(self.pipe, key, chunks, self.queries, self.retrieval_params())
        return None

    @work(thread=True, group="column-hits", description="_score_columns")
    def _score_columns(
        self,
        pipe: Pipeline,
        key: object,
        chunks: Sequence[Any],
        queries: Sequence[Query],
        params: Any,
    ) -> None:
        """A column's chunks as a search index of their own (each chunk its own topic:
        a strategy knows no topics; the merged column, the run's index) and scored."""
        from chunkscope.engine.search import SearchIndex, score_queries

        score: RetrievalScore | None
        try:
            with self.lock:
                merged = chunks is pipe.merged().chunks
                index = pipe.search_index() if merged else None
            if index is None:
                index = SearchIndex(chunks, range(len(chunks)), pipe.counter)
            score = score_queries(index, queries, params)
        except Exception as e:
            self.post_message(WorkFailed(e, "Scoring the queries failed"))
            score = None
        self.post_message(ColumnHitsReady({id(key): (key, score)}))

    def on_column_hits_ready(self, message: ColumnHitsReady) -> None:
        if len(self._column_hits) > COLUMN_HITS_KEPT:
            self._column_hits.clear()
        self._column_hits.update(message.scores)
        self._column_hits_pending.difference_update(message.scores)
        bench = self.workbench
        if bench is not None and self.comparing:
            bench.draw_columns()
