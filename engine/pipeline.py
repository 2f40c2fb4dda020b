"""The one object the command line and the workbench drive.

A `Pipeline` holds a source file and the parameters of every stage, and
computes each stage on demand, memoised by the parameters that stage depends
on::

    source -> turns -> raw chunks -> compacted -> embeddings -> merged

Changing a merge parameter re-runs the merge and nothing before it; changing
the compaction minimum re-runs compaction, then finds the embeddings of texts
it has seen before in memory (and, for remote backends, on disk). `runs`
counts how often each stage really ran, which the tests assert on.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.model import Chunk, Progress, Span, Turn, chunks_from_spans
from engine.parse import Source, load
from engine.split import chunk_turns, compact_spans
from engine.tokens import DEFAULT_ENCODING, TokenCounter, get_counter

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.embed.base import Embedder
    from engine.merge import MergeParams, MergeResult
    from engine.recap import Candidate, Scorer, Selection
    from engine.strategies import StrategyResult
    from engine.summarize import Summarizer, Summary

_T = TypeVar("_T")


@dataclass(frozen=True)
class EmbedderSpec:
    """Which embedder to use; the embedder itself is built on first use."""

    name: str = "lexical"
    model: str | None = None
    base_url: str | None = None
    batch_size: int = 256
    use_cache: bool = True

    def label(self) -> str:
        return self.name if not self.model else f"{self.name}:{self.model}"


@dataclass(frozen=True)
class SummarizerSpec:
    """Which summarizer to use ("extractive" or "llm"); built on first use.

    The API key is never part of the parameters: the LLM summarizer reads
    ``$OPENAI_API_KEY`` (and ``$OPENAI_BASE_URL`` when `base_url` is None).
    """

    name: str = "extractive"
    model: str | None = None
    base_url: str | None = None
    workers: int = 4
    use_cache: bool = True

    def label(self) -> str:
        return self.name if not self.model else f"{self.name}:{self.model}"


def _default_merge() -> MergeParams:
    from engine.merge import MergeParams

    return MergeParams()


@dataclass(frozen=True)
class PipelineParams:
    """Every parameter of every stage; a stage is keyed by the ones it reads."""

    strict: bool = False
    collapse: bool = False
    min_chars: int = 80
    tokenizer: str = DEFAULT_ENCODING
    embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    merge: MergeParams = field(default_factory=_default_merge)
    strategy: str = "blank-line"
    strategy_params: tuple[tuple[str, Any], ...] = ()  # sorted (name, value) pairs
    summarizer: SummarizerSpec = field(default_factory=SummarizerSpec)

    def __post_init__(self) -> None:
        if self.min_chars < 0:
            raise ValueError(f"min_chars must be >= 0, got {self.min_chars}")


class _Memo:
    """A small LRU of one stage's results, keyed by that stage's inputs."""

    def __init__(self, size: int = 8) -> None:
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._size = size

    def get(self, key: Hashable) -> Any:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        return _MISSING

    def put(self, key: Hashable, value: Any) -> None:
        self._items[key] = value
        if len(self._items) > self._size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


_MISSING = object()


class Pipeline:
    """Memoised stages over one source file.

    Thread-safe: the workbench runs stages in worker threads; one stage
    computation runs at a time. Embedders and the disk cache are built lazily,
    so a pipeline that never embeds never imports numpy's callers or `openai`.
    """

    def __init__(
        self,
        path: str | Path,
        params: PipelineParams | None = None,
        *,
        embedder: Embedder | None = None,
        cache: Any | None = None,
        warn: Callable[[str], None] | None = None,
        api_keys: Mapping[str, str | None] | None = None,
    ) -> None:
        """`api_keys` may hold keys for the "embedder" and the "summarizer" (from the
        config file); without one, the backends read ``OPENAI_API_KEY``. Keys are kept
        out of the parameters, so they never reach memo keys, caches or reprs."""
        self.path = str(path)
        self._api_keys = {k: v for k, v in (api_keys or {}).items() if v}
        self.params = params or PipelineParams()
        self.runs: Counter[str] = Counter()
        self._lock = threading.RLock()
        self._memo: dict[str, _Memo] = {}
        self._embedder = embedder
        self._embedder_spec: EmbedderSpec | None = (
            None if embedder is None else self.params.embedder
        )
        self._cache = cache
        self._vectors: dict[tuple[str, str], npt.NDArray[np.float32]] = {}
        self._warn = warn
        self.warnings: list[str] = []
        self.last_timings: dict[str, float] = {}
        # Summaries: built lazily; known summaries by (summarizer identity, chunk text).
        self._summarizer: Summarizer | None = None
        self._summarizer_spec: SummarizerSpec | None = None
        self._summaries: dict[tuple[str, str], Summary] = {}
        self._summary_lock = threading.Lock()
        #: Chunk texts handed to a summarizer (not found in memory or on disk before).
        self.summarized = 0

    # ------------------------------------------------------------------ parameters

    def configure(self, **changes: Any) -> PipelineParams:
        """Replace some parameters; later stage calls recompute only what depends on them."""
        with self._lock:
            self.params = replace(self.params, **changes)
            return self.params

    def set_merge(self, merge: MergeParams) -> None:
        self.configure(merge=merge)

    def _stage(self, name: str, key: Hashable, compute: Callable[[], _T]) -> _T:
        with self._lock:
            memo = self._memo.setdefault(name, _Memo())
            value = memo.get(key)
            if value is _MISSING:
                import time

                t0 = time.perf_counter()
                value = compute()
                self.last_timings[name] = time.perf_counter() - t0
                self.runs[name] += 1
                memo.put(key, value)
            return value  # type: ignore[no-any-return]

    def _notes(self) -> Callable[[str], None]:
        """A callback that records a warning (in `warnings`, and through `warn`) without
        referring to the pipeline, for objects the pipeline holds: a bound method would
        make a reference cycle, and a pipeline must be freed as soon as it is dropped."""
        warnings, warn = self.warnings, self._warn

        def note(message: str) -> None:
            warnings.append(message)
            if warn is not None:
                warn(message)

        return note

    # ------------------------------------------------------------------ stages

    def _source_key(self) -> tuple[Hashable, ...]:
        return (self.params.strict, self.params.collapse)

    # Every stage takes an optional ``progress(done, total)`` callback (see
    # `engine.model.Progress`), passed to the work that stage does itself (not to
    # the earlier stages it needs, which report through their own call). A
    # callback that raises stops the stage, and nothing is memoised.

    def source(self, progress: Progress | None = None) -> Source:
        """The parsed file; raw messages are kept only when tool calls are collapsed.

        ``progress`` counts bytes read.
        """
        p = self.params
        return self._stage(
            "parse",
            self._source_key(),
            lambda: load(self.path, strict=p.strict, keep_messages=p.collapse, progress=progress),
        )

    def _turns_key(self) -> tuple[Hashable, ...]:
        return self._source_key()

    def turns(self, progress: Progress | None = None) -> list[Turn]:
        """The turns: parsed, or with tool calls collapsed when ``collapse`` is set
        (``progress`` then counts messages)."""

        def compute() -> list[Turn]:
            src = self.source()
            if not self.params.collapse or src.kind != "jsonl":
                return src.turns
            from engine.collapse import collapse_messages

            return collapse_messages(src.messages, progress)

        return self._stage("turns", self._turns_key(), compute)

    def _chunk_key(self) -> tuple[Hashable, ...]:
        p = self.params
        if p.strategy == "blank-line" and not p.strategy_params:
            return self._turns_key()
        return (*self._turns_key(), p.strategy, p.strategy_params, p.tokenizer)

    def strategy_result(self, progress: Progress | None = None) -> StrategyResult:
        """The chunking strategy's chunks with their metadata (see `engine.strategies`).

        For `blank-line` these are the paragraphs before compaction; every other
        strategy's chunks are final (compaction leaves them as they are).
        ``progress`` counts the texts whose tokens the strategy has counted.
        """
        from engine.strategies import run_strategy

        p = self.params
        return self._stage(
            "strategy",
            self._chunk_key(),
            lambda: run_strategy(
                p.strategy,
                p.strategy_params,
                self.turns(),
                self.counter,
                source=self.source(),
                for_pipeline=True,
                progress=progress,
            ),
        )

    def raw_chunks(self, progress: Progress | None = None) -> list[Chunk]:
        """The chunks of the strategy; ``progress`` counts turns for `blank-line`, else
        the texts the strategy has counted tokens of."""
        if self.params.strategy == "blank-line":
            return self._stage(
                "chunk", self._chunk_key(), lambda: chunk_turns(self.turns(), progress)
            )
        return self._stage(
            "chunk", self._chunk_key(), lambda: self.strategy_result(progress).chunk_list
        )

    def _compact_key(self) -> tuple[Hashable, ...]:
        return (*self._turns_key(), self._chunk_key(), self.params.min_chars)

    def compact_spans(self, progress: Progress | None = None) -> list[Span]:
        """Spans of the compacted chunks over the raw chunks (one each unless `blank-line`);
        ``progress`` counts raw chunks."""
        if self.params.strategy != "blank-line":
            return self._stage(
                "compact",
                self._compact_key(),
                lambda: [(i, i + 1) for i in range(len(self.raw_chunks()))],
            )
        return self._stage(
            "compact",
            self._compact_key(),
            lambda: compact_spans(self.raw_chunks(), self.params.min_chars, progress),
        )

    def compacted(self, progress: Progress | None = None) -> list[Chunk]:
        """The compacted chunks; ``progress`` counts the chunks built."""
        return self._stage(
            "compacted",
            self._compact_key(),
            lambda: chunks_from_spans(self.raw_chunks(), self.compact_spans(), progress),
        )

    # ------------------------------------------------------------------ tokens

    @property
    def counter(self) -> TokenCounter:
        return get_counter(self.params.tokenizer)

    def token_counts(self, chunks: list[Chunk]) -> list[int]:
        return self.counter.count_many([c.text for c in chunks])

    # ------------------------------------------------------------------ embeddings

    @property
    def embedder(self) -> Embedder:
        """The embedder for the current spec, built (and cached) on first use."""
        with self._lock:
            spec = self.params.embedder
            if self._embedder is None or self._embedder_spec != spec:
                from engine.embed import make_embedder

                cache = None
                if spec.name != "lexical" and spec.use_cache:
                    cache = self.cache
                self._embedder = make_embedder(
                    spec.name,
                    model=spec.model,
                    base_url=spec.base_url,
                    batch_size=spec.batch_size,
                    cache=cache,
                    api_key=self._api_keys.get("embedder"),
                )
                self._embedder_spec = spec
            return self._embedder

    @property
    def cache(self) -> Any:
        """The shared on-disk cache (embeddings, summaries), opened on first use."""
        with self._lock:
            if self._cache is None:
                from engine.embed.cache import EmbeddingCache

                self._cache = EmbeddingCache(warn=self._notes())
            return self._cache

    def _embed_key(self) -> tuple[Hashable, ...]:
        return (*self._compact_key(), self.params.embedder)

    def embeddings(self, progress: Progress | None = None) -> npt.NDArray[np.float32]:
        """One unit vector per compacted chunk.

        Embedders whose vectors depend on the whole document (the lexical one
        fits its IDF on the document) are run on all texts at once; for the
        others every distinct text is embedded once per pipeline.
        """

        def compute() -> npt.NDArray[np.float32]:
            import numpy as np

            texts = [c.text for c in self.compacted()]
            emb = self.embedder
            if getattr(emb, "contextual", False) or not texts:
                return emb.embed(texts, progress=progress)
            ident = emb.name + ":" + emb.model
            missing = list(dict.fromkeys(t for t in texts if (ident, t) not in self._vectors))
            if missing:
                vectors = emb.embed(missing, progress=progress)
                for t, v in zip(missing, vectors, strict=True):
                    self._vectors[(ident, t)] = v
            return np.stack([self._vectors[(ident, t)] for t in texts])

        return self._stage("embed", self._embed_key(), compute)

    def similarities(self) -> npt.NDArray[np.float64]:
        """Cosine similarity of each compacted chunk to the next (before merging)."""
        from engine.merge import cosine_similarities

        return self._stage(
            "similarities", self._embed_key(), lambda: cosine_similarities(self.embeddings())
        )

    def _merge_key(self) -> tuple[Hashable, ...]:
        return (*self._embed_key(), self.params.merge, self.params.tokenizer)

    def merged(self, progress: Progress | None = None) -> MergeResult:
        """The merge loop over the compacted chunks, with its trace."""

        def compute() -> MergeResult:
            from engine.merge import merge

            chunks = self.compacted()
            vectors = self.embeddings(progress=progress)
            tokens = None
            if self.params.merge.max_chunk_tokens is not None:
                tokens = self.token_counts(chunks)
            return merge(chunks, vectors, self.params.merge, token_counts=tokens)

        return self._stage("merge", self._merge_key(), compute)

    # ------------------------------------------------------------------ summaries

    @property
    def summarizer(self) -> Summarizer:
        """The summarizer for the current spec, built on first use (see `set_summarizer`)."""
        with self._lock:
            spec = self.params.summarizer
            if self._summarizer is None or self._summarizer_spec != spec:
                from engine.summarize import make_summarizer

                self._summarizer = make_summarizer(
                    spec.name,
                    model=spec.model,
                    base_url=spec.base_url,
                    workers=spec.workers,
                    api_key=self._api_keys.get("summarizer"),
                )
                self._summarizer_spec = spec
            return self._summarizer

    def set_summarizer(self, summarizer: Summarizer) -> None:
        """Use `summarizer` until the summarizer spec changes (tests, custom backends)."""
        with self._lock:
            self._summarizer = summarizer
            self._summarizer_spec = self.params.summarizer

    def _summary_key(self) -> tuple[Hashable, ...]:
        return (*self._merge_key(), self.params.summarizer, id(self.summarizer))

    def _summarize_texts(self, texts: list[str], progress: Progress | None = None) -> list[Summary]:
        """Summaries of `texts`, from memory when known; others from the disk cache or
        the summarizer. One summarization runs at a time, outside the stage lock, so
        the other stages stay available while a remote model works."""
        from engine.summarize import cache_namespace, summarize_chunks

        summarizer = self.summarizer
        spec = self.params.summarizer
        ident = cache_namespace(summarizer)
        with self._summary_lock:
            distinct = list(dict.fromkeys(texts))
            missing = [t for t in distinct if (ident, t) not in self._summaries]
            if missing:
                known = len(distinct) - len(missing)
                report: Progress | None = None
                if progress is not None:
                    outer = progress

                    def report(done: int, total: int) -> None:
                        outer(known + done, len(distinct))

                cache = None
                if spec.use_cache and getattr(summarizer, "cacheable", True):
                    cache = self.cache
                results = summarize_chunks(
                    missing, summarizer, cache=cache, workers=spec.workers, progress=report
                )
                self.summarized += len(missing)
                for t, summary in zip(missing, results, strict=True):
                    self._summaries[(ident, t)] = summary
            elif progress is not None and distinct:
                progress(len(distinct), len(distinct))
            return [self._summaries[(ident, t)] for t in texts]

    def summaries(self, progress: Progress | None = None) -> list[Summary]:
        """One summary per merged chunk, in order.

        Memoised by the merged chunks and the summarizer spec; on a miss only
        texts never summarized before (in this pipeline, or on disk for the LLM)
        cost a call, so a slider move that leaves a merged chunk's text as it was
        costs nothing for that chunk.
        """
        key = self._summary_key()
        with self._lock:
            memo = self._memo.setdefault("summarize", _Memo())
            value = memo.get(key)
            if value is not _MISSING:
                return value  # type: ignore[no-any-return]
            texts = [c.text for c in self.merged().chunks]
        import time

        t0 = time.perf_counter()
        result = self._summarize_texts(texts, progress)
        with self._lock:
            self.last_timings["summarize"] = time.perf_counter() - t0
            self.runs["summarize"] += 1
            memo.put(key, result)
        return result

    def summary_for(self, index: int) -> Summary:
        """The summary of merged chunk `index` alone (what the workbench shows for a
        selected chunk); summarizes that chunk only, if it is not known yet."""
        chunks = self.merged().chunks
        if not 0 <= index < len(chunks):
            raise IndexError(f"merged chunk {index} out of range 0..{len(chunks) - 1}")
        return self._summarize_texts([chunks[index].text])[0]

    def known_summary(self, index: int) -> Summary | None:
        """The summary of merged chunk `index` if it is already known, else None (never
        summarizes: safe to call from a UI thread)."""
        from engine.summarize import cache_namespace

        chunks = self.merged().chunks
        if not 0 <= index < len(chunks):
            return None
        with self._summary_lock:
            return self._summaries.get((cache_namespace(self.summarizer), chunks[index].text))

    # ------------------------------------------------------------------ recap

    def consequential_counts(self) -> list[int]:
        """Consequential tool calls (write, edit, remember, ask) in each merged chunk.

        Meaningful when tool calls are collapsed (``collapse=True``).
        """
        from engine.collapse import consequential_indices, count_consequential

        def compute() -> list[int]:
            indices = consequential_indices(self.turns())
            return [count_consequential(c.turns, indices) for c in self.merged().chunks]

        return self._stage("actions", self._merge_key(), compute)

    def novelty(self, memories: tuple[str, ...] = ()) -> list[float]:
        """``1 - max cosine`` of each merged chunk to existing memory texts (1.0 without).

        The chunk texts and the memories are embedded together with the pipeline's
        embedder, so both are in the same space (the lexical embedder fits its
        IDF on the texts of one call).
        """
        from engine.recap import novelty_scores

        memories = tuple(m for m in memories if m.strip())

        def compute() -> list[float]:
            texts = [c.text for c in self.merged().chunks]
            if not memories or not texts:
                return [1.0] * len(texts)
            vectors = self.embedder.embed([*texts, *memories])
            n = len(texts)
            return [float(x) for x in novelty_scores(vectors[:n], vectors[n:])]

        return self._stage("novelty", (*self._merge_key(), memories), compute)

    def scores(
        self,
        scorer: Scorer = "recency",
        *,
        memories: tuple[str, ...] = (),
        alpha: float = 0.0,
    ) -> list[float]:
        """One score per merged chunk: ``recency`` or ``salience`` (see `engine.recap`)."""
        from engine.recap import recency_scores, salience_scores

        n = len(self.merged().chunks)
        if scorer == "recency":
            return recency_scores(n)
        if scorer != "salience":
            raise ValueError(f"unknown scorer {scorer!r} (recency or salience)")
        return salience_scores(
            self.merged().vectors,
            novelty=self.novelty(tuple(memories)),
            consequential=self.consequential_counts() if alpha else None,
            alpha=alpha,
        )

    def candidates(
        self,
        scorer: Scorer = "recency",
        *,
        memories: tuple[str, ...] = (),
        alpha: float = 0.0,
        progress: Progress | None = None,
    ) -> list[Candidate]:
        """Every merged chunk as a recap candidate: summary, score, time range."""
        from engine.recap import Candidate

        chunks = self.merged().chunks
        summaries = self.summaries(progress=progress)
        scores = self.scores(scorer, memories=memories, alpha=alpha)
        return [
            Candidate(
                index=i,
                summary=summaries[i],
                score=scores[i],
                time_range=c.time_range,
                start=c.start,
                end=c.end,
            )
            for i, c in enumerate(chunks)
        ]

    def recap(
        self,
        budget: int = 1000,
        scorer: Scorer = "recency",
        pinned: tuple[int, ...] | list[int] = (),
        excluded: tuple[int, ...] | list[int] = (),
        headings: bool = False,
        *,
        memories: tuple[str, ...] = (),
        alpha: float = 0.0,
        progress: Progress | None = None,
    ) -> Selection:
        """The recap of the merged chunks within `budget` tokens of the pipeline's counter.

        Summaries and scores are memoised, so changing the budget, the pins or
        the exclusions re-runs only the (fast) selection. The recap pipeline
        expects ``collapse=True`` (tool calls collapsed before chunking).
        """
        from engine.recap import select

        candidates = self.candidates(scorer, memories=memories, alpha=alpha, progress=progress)
        return select(candidates, budget, self.counter, pinned, excluded, headings)
