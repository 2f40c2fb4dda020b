"""The embedder interface shared by every backend, and the error they raise."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from chunkscope.engine.errors import BackendError
from chunkscope.engine.model import Progress as ModelProgress

#: A matrix of embeddings: one float32 row per text.
Matrix = npt.NDArray[np.float32]

#: ``progress(done, total)``: texts done out of texts asked for (see `engine.model.Progress`).
Progress = ModelProgress

#: Receives one human-readable warning line.
Warn = Callable[[str], None]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    ``name`` is the backend ("lexical", "openai"), ``model`` the model within it,
    ``dim`` the width of the vectors (0 while not yet known: a remote backend learns
    it from its first reply). ``embed`` returns an ``(len(texts), dim)`` float32
    matrix whose rows have unit L2 norm; a blank text gets an all-zero row, never NaN.

    Optional flags an implementation may set: ``contextual`` (True when a text's
    vector depends on the other texts of the same call, as the lexical embedder's
    IDF does: embed a whole document in one call) and ``cacheable`` (False when
    vectors must not be cached per text).
    """

    # Read-only in the protocol so that both plain attributes and properties fit.
    @property
    def name(self) -> str:
        """The backend's name (``lexical``, ``openai``, ...), part of the cache key."""

    @property
    def model(self) -> str:
        """The model behind the vectors, part of the cache key."""

    @property
    def dim(self) -> int:
        """The length of each vector (0 until the backend knows it)."""

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """One unit-length row per text, in order; `progress` is called with (done, total)."""


class EmbeddingError(BackendError):
    """Embedding failed (see `BackendError` for ``endpoint`` and ``reason``)."""


def normalize_rows(matrix: npt.ArrayLike, *, copy: bool = True) -> Matrix:
    """``matrix`` as float32 with each row scaled to unit length; zero rows stay zero.

    ``copy=False`` scales a float32 matrix in place (no second matrix in memory).
    """
    out = np.array(matrix, dtype=np.float32) if copy else np.asarray(matrix, dtype=np.float32)
    if out.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {out.shape}")
    # A block of rows at a time: a row's norm depends on that row alone, so this is
    # the whole-matrix computation bit for bit, without its temporary squares
    # (as large as the matrix: 150 MB for 74k rows of 512) and in cache.
    step = max(1, _NORMALIZE_BLOCK_CELLS // max(1, out.shape[1]))
    for r0 in range(0, len(out), step):
        block = out[r0 : r0 + step]
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        np.divide(block, norms, out=block, where=norms > 0)
    return out


# Cells of a matrix normalised at a time by `normalize_rows` (256 KB of float32).
_NORMALIZE_BLOCK_CELLS = 1 << 16


def is_blank(text: str) -> bool:
    """True for a text with nothing to embed (empty or whitespace only)."""
    return not text or text.isspace()
