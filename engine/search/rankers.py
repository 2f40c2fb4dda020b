"""Rankers: one score per chunk for a question.

- ``bm25``: Okapi BM25 (Lucene's variant, k1 1.2, b 0.75) from the `bm25s` package over
  stemmed words (`terms`);
- ``embed``: the cosine of the question's vector to each chunk's, from the pipeline's
  embedder (lexical offline by default, e5, or an OpenAI-compatible endpoint; vectors
  of remote and neural embedders go through the pipeline's cache);
- ``fusion``: reciprocal rank fusion of the two (each chunk scores ``1 / (60 + rank)``
  summed over both rankings; Cormack et al. 2009), which needs no common scale.

A score of 0 (BM25: no word of the question in the chunk) ranks nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from chunkscope.engine.textutil import STOPWORDS, without_escapes

__all__ = [
    "DEFAULT_RANKER",
    "RANKERS",
    "BM25Index",
    "order",
    "rrf",
    "terms",
]

FloatArray = npt.NDArray[np.float64]

#: The rankers, declared once (CLI choices, the workbench's toggle, the bench).
RANKERS: tuple[str, ...] = ("bm25", "embed", "fusion")
#: The one that measures best on held-out questions (README, `bench/retrieval.py`).
DEFAULT_RANKER = "bm25"
#: Reciprocal rank fusion's constant.
RRF_K = 60

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    stemmed: str = _stemmer().stemWord(word)
    return stemmed


def terms(text: str) -> list[str]:
    """The words BM25 compares: lowercase ``\\w+`` words minus stop words, stemmed
    (Snowball English), with each part of a snake_case name as a word of its own too."""
    out: list[str] = []
    stop = STOPWORDS
    for w in _WORD.findall(without_escapes(text).lower()):
        if w in stop:
            continue
        out.append(_stem(w))
        if "_" in w:
            out.extend(_stem(p) for p in w.split("_") if p and p not in stop)
    return out


class BM25Index:
    """BM25 over a list of texts, built once; `scores` answers a question in
    milliseconds."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self.size = len(texts)
        self._index: Any = None
        docs = [terms(t) for t in texts]
        if any(docs):
            self._index = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
            self._index.index(docs, show_progress=False)

    def scores(self, query: str) -> FloatArray:
        """One score per text (0: no word of `query` in it)."""
        q = terms(query)
        if self._index is None or not q:
            return np.zeros(self.size)
        return np.asarray(self._index.get_scores(q), dtype=np.float64)


def order(scores: FloatArray, *, positive: bool = True) -> list[int]:
    """Indices by score, best first (ties: earlier first); with `positive`, only
    those scoring above 0."""
    idx = np.argsort(-scores, kind="stable")
    if positive:
        idx = idx[scores[idx] > 0]
    return [int(i) for i in idx]


def rrf(*rankings: Sequence[int], size: int, k: int = RRF_K) -> FloatArray:
    """Reciprocal rank fusion of `rankings` (lists of indices, best first) over `size`
    items: ``sum(1 / (k + rank))``, rank 1-based; an item no ranking lists scores 0."""
    out = np.zeros(size)
    for ranking in rankings:
        for r, i in enumerate(ranking, 1):
            out[i] += 1.0 / (k + r)
    return out


def cosine_scores(query_vector: npt.ArrayLike, vectors: npt.ArrayLike) -> FloatArray:
    """The cosine of one unit vector to each row of `vectors` (unit rows)."""
    m = np.asarray(vectors, dtype=np.float64)
    q = np.asarray(query_vector, dtype=np.float64)
    if m.size == 0 or not q.any():
        return np.zeros(len(m))
    return m @ q


EmbedQueries = Callable[[Sequence[str]], npt.NDArray[np.float32]]
