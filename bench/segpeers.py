"""Peer semantic chunkers as `Segmenter`s for ``bench/segment.py``: same units, same vectors.

Peers are never dependencies of the project: install them in a bench environment only::

    python -m venv /work/benchvenv
    /work/benchvenv/bin/pip install -e /work/main chonkie langchain-text-splitters \\
        langchain-experimental

`peers()` lists the ones importable here (a note is printed for each one that is not), as
``(name, segmenter)`` with the signature of ``topic()`` in ``bench/segment.py``: given an
`engine.evaluate.measure.Case` and a values mapping (keyword overrides of the peer's settings,
``{}`` for its defaults), the case's units merged into the peer's chunks.

**Same units.** A peer gets the texts of the case's units (the compacted chunks the
pipeline made in topic mode, one per message or section), each followed by `SEP`, an
ASCII record separator that no unit contains, and is told that `SEP` is its only sentence
delimiter; its "sentences" are then the units (or, where a peer merges short sentences, a
few whole units), and every boundary it draws falls between two units.

**Same vectors.** A peer embeds through an adapter that serves the case's own vectors (its
rows, made by chunkscope's embedder over the whole file): a text made of one unit gets that
unit's row; a text that the peer builds by joining several units (both peers embed windows
of neighbouring sentences by default) gets the normalised sum of those units' rows, which is
how chunkscope's own topic segmenter makes a block's vector. The text is never embedded
again: the lexical embedder fits its IDF on the texts of one call, so re-embedding the
windows would give vectors no other row of the table sees. A text that is not a run of
units is an error, not a silent fallback.

**Back to units.** chonkie's chunks carry character offsets into the joined text: each
chunk starts at the unit whose offset it has. LangChain's chunks are sentences re-joined
with spaces and carry none, so their units are counted by their separators.

Settings, each peer's defaults but for the delimiter:

* chonkie ``SemanticChunker``: ``threshold=0.8`` (a percentile of the smoothed similarity
  minima, not a cosine, so the default means the same for TF-IDF and neural vectors),
  ``similarity_window=3``, ``min_sentences_per_chunk=1``, ``min_characters_per_sentence=24``,
  Savitzky-Golay ``5 / 3 / 0.2``, ``skip_window=0``, ``chunk_size=2048`` tokens counted by
  chunkscope's counter (cl100k_base); ``delim=SEP``.
* LangChain ``SemanticChunker``: ``breakpoint_threshold_type="percentile"`` at 95 (cut the
  5% largest distances between neighbouring windows, again scale-free), ``buffer_size=1``,
  no ``min_chunk_size``, no ``number_of_chunks``; ``sentence_split_regex`` a zero-width
  match after `SEP`, so each sentence is one unit (with its separator) and none is dropped.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chunkscope.engine.evaluate.measure import Case, Segmenter
from chunkscope.engine.model import Chunk, chunks_from_spans
from chunkscope.engine.tokens import get_counter

#: Ends every unit in the text given to a peer, and is its only sentence delimiter.
SEP = "\x1e"

FloatArray = npt.NDArray[np.float64]


class UnitVectors:
    """The rows of a case's vectors, looked up by the text of the units they belong to."""

    def __init__(self, case: Case) -> None:
        self.texts = [c.text for c in case.chunks]
        self.vectors = np.asarray(case.vectors, dtype=np.float64)
        self.rows: dict[str, int] = {}
        for i, text in enumerate(self.texts):
            if SEP in text:
                raise ValueError(f"unit {i} contains the separator {SEP!r}")
            self.rows.setdefault(text, i)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def units(self, text: str) -> list[int]:
        """The rows of the units `text` is made of: pieces between separators, each a unit's
        text, or one with a leading space (the joiner LangChain puts between sentences)."""
        out = []
        for piece in text.split(SEP):
            if not piece:
                continue  # after the last separator
            row = self.rows.get(piece)
            if row is None and piece.startswith(" "):
                row = self.rows.get(piece[1:])
            if row is None:
                raise KeyError(f"not a run of units: {piece[:80]!r}")
            out.append(row)
        return out

    def vector(self, text: str) -> FloatArray:
        """The normalised sum of the rows of the units in `text` (zero if it is zero)."""
        v: FloatArray = self.vectors[self.units(text)].sum(axis=0)
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v


def _from_starts(case: Case, starts: Sequence[int]) -> list[Chunk]:
    """The case's units merged into chunks starting at the unit indices `starts`."""
    n = len(case.chunks)
    cuts = sorted({0, *(s for s in starts if 0 < s < n)})
    return chunks_from_spans(case.chunks, pairwise([*cuts, n]))


# --------------------------------------------------------------------------- chonkie


def chonkie_segmenter() -> Segmenter | None:
    """chonkie's ``SemanticChunker`` over the case's units and vectors, or None (with a
    printed note) when chonkie is not installed."""
    try:
        from chonkie import SemanticChunker  # type: ignore[import-not-found, unused-ignore]
        from chonkie.embeddings import (  # type: ignore[import-not-found, unused-ignore]
            BaseEmbeddings,
        )
    except ImportError:
        print("skip: chonkie is not installed (no chonkie SemanticChunker row)")
        return None

    count_tokens = get_counter().count

    class CaseEmbeddings(BaseEmbeddings):  # type: ignore[misc, unused-ignore]
        """chonkie embeddings that serve a case's vectors (see the module docstring)."""

        def __init__(self, lookup: UnitVectors) -> None:
            super().__init__()
            self.lookup = lookup

        def embed(self, text: str) -> FloatArray:
            return self.lookup.vector(text)

        def embed_batch(self, texts: list[str]) -> list[FloatArray]:
            return [self.lookup.vector(t) for t in texts]

        def similarity(self, u: FloatArray, v: FloatArray) -> np.float32:
            # the vectors are unit length or zero: the cosine, 0 against an empty text
            return np.float32(np.dot(u, v))

        @property
        def dimension(self) -> int:
            return self.lookup.dim

        def get_tokenizer(self) -> Callable[[str], int]:
            return count_tokens

    def run(case: Case, values: Mapping[str, Any]) -> list[Chunk]:
        lookup = UnitVectors(case)
        if len(lookup.texts) < 2:
            return list(case.chunks)
        chunker = SemanticChunker(
            embedding_model=CaseEmbeddings(lookup), **{"delim": SEP, **values}
        )
        pieces = [t + SEP for t in lookup.texts]
        unit_at: dict[int, int] = {}  # character offset of each unit -> its index
        offset = 0
        for i, p in enumerate(pieces):
            unit_at[offset] = i
            offset += len(p)
        starts = []
        for chunk in chunker.chunk("".join(pieces)):
            if chunk.start_index not in unit_at:
                raise AssertionError(f"chonkie cut inside a unit (offset {chunk.start_index})")
            starts.append(unit_at[chunk.start_index])
        return _from_starts(case, starts)

    return run


# --------------------------------------------------------------------------- LangChain


def langchain_segmenter() -> Segmenter | None:
    """LangChain's ``SemanticChunker`` (langchain-experimental) over the case's units and
    vectors, or None (with a printed note) when it is not installed."""
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # "being sunset"
            from langchain_core.embeddings import (  # type: ignore[import-not-found, unused-ignore]
                Embeddings,
            )
            from langchain_experimental.text_splitter import (  # type: ignore[import-not-found, unused-ignore]
                SemanticChunker,
            )
    except ImportError:
        print("skip: langchain-experimental is not installed (no LangChain SemanticChunker row)")
        return None

    class CaseEmbeddings(Embeddings):  # type: ignore[misc, unused-ignore]
        """LangChain embeddings that serve a case's vectors (see the module docstring)."""

        def __init__(self, lookup: UnitVectors) -> None:
            self.lookup = lookup

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [self.lookup.vector(t).tolist() for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in self.lookup.vector(text)]

    def run(case: Case, values: Mapping[str, Any]) -> list[Chunk]:
        lookup = UnitVectors(case)
        if len(lookup.texts) < 2:
            return list(case.chunks)
        splitter = SemanticChunker(
            CaseEmbeddings(lookup),
            **{"sentence_split_regex": f"(?<={SEP})", **values},
        )
        starts = []
        at = 0
        for text in splitter.split_text(SEP.join(lookup.texts)):
            starts.append(at)
            at += len(lookup.units(text))
        if at != len(lookup.texts):
            raise AssertionError(f"LangChain's chunks hold {at} units of {len(lookup.texts)}")
        return _from_starts(case, starts)

    return run


def peers() -> list[tuple[str, Segmenter]]:
    """``(row name, segmenter)`` of every peer importable here."""
    out = []
    for name, make in (
        ("chonkie SemanticChunker (same vectors)", chonkie_segmenter),
        ("LangChain SemanticChunker (same vectors)", langchain_segmenter),
    ):
        fn = make()
        if fn is not None:
            out.append((name, fn))
    return out
