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
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.model import Chunk, Span, Turn, chunks_from_spans
from engine.parse import Source, load
from engine.split import chunk_turns, compact_spans
from engine.tokens import DEFAULT_ENCODING, TokenCounter, get_counter

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.embed.base import Embedder
    from engine.merge import MergeParams, MergeResult

_T = TypeVar("_T")

Progress = Callable[[int, int], None]


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
    ) -> None:
        self.path = str(path)
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

    def _note(self, message: str) -> None:
        self.warnings.append(message)
        if self._warn is not None:
            self._warn(message)

    # ------------------------------------------------------------------ stages

    def _source_key(self) -> Hashable:
        return (self.params.strict, self.params.collapse)

    def source(self) -> Source:
        """The parsed file; raw messages are kept only when tool calls are collapsed."""
        p = self.params
        return self._stage(
            "parse",
            self._source_key(),
            lambda: load(self.path, strict=p.strict, keep_messages=p.collapse),
        )

    def _turns_key(self) -> Hashable:
        return self._source_key()

    def turns(self) -> list[Turn]:
        """The turns: parsed, or with tool calls collapsed when ``collapse`` is set."""

        def compute() -> list[Turn]:
            src = self.source()
            if not self.params.collapse or src.kind != "jsonl":
                return src.turns
            from engine.collapse import collapse_messages

            return collapse_messages(src.messages)

        return self._stage("turns", self._turns_key(), compute)

    def raw_chunks(self) -> list[Chunk]:
        return self._stage("chunk", self._turns_key(), lambda: chunk_turns(self.turns()))

    def _compact_key(self) -> Hashable:
        return (*self._turns_key(), self.params.min_chars)

    def compact_spans(self) -> list[Span]:
        """Spans of the compacted chunks over the raw chunks."""
        return self._stage(
            "compact",
            self._compact_key(),
            lambda: compact_spans(self.raw_chunks(), self.params.min_chars),
        )

    def compacted(self) -> list[Chunk]:
        return self._stage(
            "compacted",
            self._compact_key(),
            lambda: chunks_from_spans(self.raw_chunks(), self.compact_spans()),
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
                )
                self._embedder_spec = spec
            return self._embedder

    @property
    def cache(self) -> Any:
        """The shared on-disk cache (embeddings, summaries), opened on first use."""
        with self._lock:
            if self._cache is None:
                from engine.embed.cache import EmbeddingCache

                self._cache = EmbeddingCache(warn=self._note)
            return self._cache

    def _embed_key(self) -> Hashable:
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

    def _merge_key(self) -> Hashable:
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
