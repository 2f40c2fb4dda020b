"""An embedder that asks its cache first and the wrapped embedder only for what is missing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chunkscope.engine.embed.base import Embedder, EmbeddingError, Matrix, Progress, is_blank
from chunkscope.engine.embed.cache import EmbeddingCache

#: JSON namespace remembering each model's native width, so a new process can look
#: vectors up before the endpoint has told it the width (which would cost a request).
DIM_NAMESPACE = "embedder-dim"


@dataclass
class CacheStats:
    """Counts for one `CachedEmbedder.embed` call, or summed over all calls.

    ``requests``: non-blank texts asked for; ``hits`` of them came from the cache,
    ``misses`` did not; ``batches``: calls made to the wrapped embedder (for a remote
    one, HTTP requests before retries); ``sent``: distinct texts sent in them.
    """

    requests: int = 0
    hits: int = 0
    misses: int = 0
    batches: int = 0
    sent: int = 0

    def add(self, other: CacheStats) -> None:
        """Add another call's counts to these."""
        self.requests += other.requests
        self.hits += other.hits
        self.misses += other.misses
        self.batches += other.batches
        self.sent += other.sent

    def summary(self) -> str:
        """For a header line: ``cache 398/412``."""
        return f"cache {self.hits}/{self.requests}"


class CachedEmbedder:
    """Wraps `inner` with `cache`; see the module docstring.

    Missing texts are deduplicated and sent to `inner` in slices of ``batch_size``
    (default: the inner embedder's own ``batch_size``, else 256), and each slice is
    stored as soon as it comes back: if slice 3 of 5 fails, slices 1 and 2 are kept
    and a rerun sends only the rest.

    The counters (`requests`, `hits`, `misses`, `batches`) add up over all calls;
    `last` holds those of the latest call. Embedders whose vectors depend on the
    other texts of the call (``cacheable = False``, e.g. the lexical one) are refused.
    """

    def __init__(
        self, inner: Embedder, cache: EmbeddingCache, *, batch_size: int | None = None
    ) -> None:
        if not getattr(inner, "cacheable", True) or getattr(inner, "contextual", False):
            raise ValueError(
                f"the {inner.name} embedder's vectors depend on the whole document "
                "and cannot be cached"
            )
        self.inner = inner
        self.cache = cache
        size = batch_size if batch_size is not None else getattr(inner, "batch_size", 256)
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {size!r}")
        self.batch_size = size
        self.total = CacheStats()
        self.last = CacheStats()

    # The embedder interface, delegated.
    @property
    def name(self) -> str:
        """The wrapped backend's name."""
        return self.inner.name

    @property
    def model(self) -> str:
        """The wrapped backend's model."""
        return self.inner.model

    @property
    def dim(self) -> int:
        """The vector length: the backend's, else the one stored with cached vectors."""
        return self.inner.dim or self._remembered_dim()

    @property
    def cacheable(self) -> bool:
        """Always true: this wrapper is the cache."""
        return True

    @property
    def contextual(self) -> bool:
        """False: each text's vector depends on that text alone, so it can be cached."""
        return False

    @property
    def requests(self) -> int:
        """Texts asked for, over every call."""
        return self.total.requests

    @property
    def hits(self) -> int:
        """Texts answered from the cache, over every call."""
        return self.total.hits

    @property
    def misses(self) -> int:
        """Texts the backend had to embed, over every call."""
        return self.total.misses

    @property
    def batches(self) -> int:
        """Requests sent to the backend, over every call."""
        return self.total.batches

    def summary(self) -> str:
        """``cache <hits>/<requests>`` of the latest call."""
        return self.last.summary()

    def stop(self) -> None:
        """Stop the inner embedder's requests, if it sends any (`engine.backend.RetryWait`)."""
        from chunkscope.engine.backend import stop_requests  # only on quit: not at start-up

        stop_requests(self.inner)

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, {self.cache!r})"

    @property
    def _cache_model(self) -> str:
        model = getattr(self.inner, "cache_model", None)
        return model if isinstance(model, str) and model else self.inner.model

    @property
    def _dim_key(self) -> str:
        return f"{self.inner.name}\x1f{self._cache_model}"

    def _remembered_dim(self) -> int:
        value = self.cache.get_json(DIM_NAMESPACE, self._dim_key)
        return value if isinstance(value, int) and value > 0 else 0

    def _endpoint(self) -> str:
        endpoint = getattr(self.inner, "endpoint", None)
        return endpoint if isinstance(endpoint, str) else self.inner.name

    def embed_queries(self, queries: Sequence[str]) -> Matrix:
        """Questions to search with, as the wrapped embedder reads them (not cached:
        a question is asked once; e5 reads it with its own prefix)."""
        own = getattr(self.inner, "embed_queries", None)
        if own is not None:
            return np.asarray(own(queries), dtype=np.float32)
        return self.embed(queries)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """The vectors of `texts`: cached ones read back, the others embedded by the backend in
        batches and stored; blank texts get zero vectors."""
        n = len(texts)
        stats = CacheStats()
        self.last = stats
        backend, model = self.inner.name, self._cache_model
        live = [i for i, t in enumerate(texts) if not is_blank(t)]
        stats.requests = len(live)

        dim = self.dim
        vectors: dict[str, npt.NDArray[np.float32]] = {}
        if dim and live:
            found = self.cache.get_many(backend, model, dim, [texts[i] for i in live])
            for j, vec in found.items():
                vectors[texts[live[j]]] = vec

        pending = Counter(texts[i] for i in live if texts[i] not in vectors)
        stats.misses = sum(pending.values())
        stats.hits = stats.requests - stats.misses
        missing = list(pending)
        done = n - stats.misses
        if progress is not None:
            progress(done, n)
        try:
            for start in range(0, len(missing), self.batch_size):
                chunk = missing[start : start + self.batch_size]
                matrix = self.inner.embed(chunk)
                stats.batches += 1
                stats.sent += len(chunk)
                if matrix.ndim != 2 or matrix.shape[0] != len(chunk):
                    raise EmbeddingError(
                        self._endpoint(),
                        f"wrong number of vectors: sent {len(chunk)}, got {matrix.shape[0]}",
                    )
                width = int(matrix.shape[1])
                if dim and width != dim:
                    raise EmbeddingError(
                        self._endpoint(),
                        f"dimension {width} differs from {dim} of the cached vectors for "
                        f"{self.inner.model}; clear the embedding cache if the model changed",
                    )
                if not dim:
                    dim = width
                    self.cache.put_json(DIM_NAMESPACE, self._dim_key, dim)
                self.cache.put_many(backend, model, dim, chunk, matrix)
                for text, row in zip(chunk, matrix, strict=True):
                    vectors[text] = row
                done += sum(pending[t] for t in chunk)
                if progress is not None:
                    progress(done, n)
        finally:
            self.total.add(stats)

        out = np.zeros((n, dim), dtype=np.float32)
        for i in live:
            out[i] = vectors[texts[i]]
        return out
