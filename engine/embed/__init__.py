"""Embedding backends: offline lexical vectors, or any OpenAI-compatible endpoint.

``make_embedder("lexical")`` needs nothing but numpy; ``make_embedder("openai", ...)``
talks to ``/v1/embeddings`` (the ``openai`` package is imported only then). With an
`EmbeddingCache`, remote embedders are wrapped in a `CachedEmbedder`, so a rerun on
the same texts sends no requests. The lexical embedder is never cached on disk: its
vectors depend on the whole document (IDF is fitted per call) and it is fast.

Every embedder returns ``(n, dim)`` float32 matrices of unit-length rows (zero rows
for blank texts) and raises `EmbeddingError` (one readable line) when it fails.
"""

from __future__ import annotations

from chunkscope.engine.embed.base import (
    Embedder,
    EmbeddingError,
    Matrix,
    Progress,
    Warn,
    is_blank,
    normalize_rows,
)
from chunkscope.engine.embed.cache import EmbeddingCache, default_cache_path
from chunkscope.engine.embed.cached import CachedEmbedder, CacheStats
from chunkscope.engine.embed.lexical import LexicalEmbedder
from chunkscope.engine.embed.openai import DEFAULT_MODEL, OpenAIEmbedder

__all__ = [
    "BACKENDS",
    "CacheStats",
    "CachedEmbedder",
    "Embedder",
    "EmbeddingCache",
    "EmbeddingError",
    "LexicalEmbedder",
    "Matrix",
    "OpenAIEmbedder",
    "Progress",
    "Warn",
    "default_cache_path",
    "is_blank",
    "make_embedder",
    "normalize_rows",
]

#: The names `make_embedder` accepts ("e5" needs the e5 extra: ``pip install 'chunkscope[e5]'``).
BACKENDS = ("lexical", "openai", "e5")


def make_embedder(
    name: str = "lexical",
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    dim: int | None = None,
    batch_size: int = 256,
    cache: EmbeddingCache | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    max_input_tokens: int = 8191,
    warn: Warn | None = None,
) -> Embedder:
    """An embedder by backend name.

    * ``"lexical"``: `LexicalEmbedder` of width `dim` (default 512). `model`,
      `base_url`, `api_key` and `cache` do not apply and are ignored.
    * ``"openai"``: `OpenAIEmbedder` for `model` (default ``text-embedding-3-small``)
      at `base_url` (default ``$OPENAI_BASE_URL``, then OpenAI's API); `dim`, when
      given, is sent as the ``dimensions`` parameter. Wrapped in a `CachedEmbedder`
      when `cache` is given. `timeout` / `max_retries` default to
      ``$CHUNKSCOPE_HTTP_TIMEOUT`` / ``$CHUNKSCOPE_MAX_RETRIES``, then 30 s / 3.

    Raises `EmbeddingError` for an unknown name or an unusable configuration (for
    OpenAI's own API without a key).
    """
    key = name.strip().lower()
    if key == "lexical":
        return LexicalEmbedder(dim if dim is not None else 512)
    if key == "e5":
        from chunkscope.engine.embed.e5 import E5Embedder

        e5: Embedder = E5Embedder()
        return e5 if cache is None else CachedEmbedder(e5, cache)
    if key == "openai":
        inner = OpenAIEmbedder(
            model or DEFAULT_MODEL,
            base_url=base_url,
            api_key=api_key,
            batch_size=batch_size,
            timeout=timeout,
            max_retries=max_retries,
            max_input_tokens=max_input_tokens,
            dimensions=dim,
            warn=warn,
        )
        if cache is None:
            return inner
        return CachedEmbedder(inner, cache)
    raise EmbeddingError("", f"unknown embedder {name!r} (choose one of: {', '.join(BACKENDS)})")
