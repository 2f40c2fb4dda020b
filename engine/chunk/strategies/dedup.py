"""Near-duplicate chunks across a strategy's output (seed 001, chunk deduplication).

Two chunks are near-duplicates when the cosine of their embeddings reaches
`cosine_threshold` (0.85, the seed's), or when their character-level
similarity (difflib's ratio) reaches `ratio_threshold`. The ratio is costly, so
only pairs whose cosine passes a cheap prefilter (`prefilter`) and whose
lengths and difflib's quick upper bounds allow the threshold are compared.
Overlapping strategies produce near-duplicate neighbours by design; those pairs
are reported with ``adjacent`` set.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from chunkscope.engine.params import Knob

if TYPE_CHECKING:
    from chunkscope.engine.embed.base import Embedder

_BLOCK = 1024


@dataclass(frozen=True, slots=True)
class DuplicatePair:
    """Two chunks found to be near-duplicates: by cosine or by character ratio, and whether they
    are neighbours."""

    a: int
    b: int
    cosine: float
    ratio: float | None
    kind: str  # "cosine" or "char_ratio"
    adjacent: bool

    def as_dict(self) -> dict[str, Any]:
        """The pair as JSON values."""
        return asdict(self)


def _char_ratio(x: str, y: str, threshold: float) -> float | None:
    """difflib's ratio when its quick upper bounds allow `threshold`, else None."""
    lx, ly = len(x), len(y)
    if not lx or not ly or 2 * min(lx, ly) / (lx + ly) < threshold:
        return None
    sm = difflib.SequenceMatcher(None, x, y, autojunk=False)
    if sm.real_quick_ratio() < threshold or sm.quick_ratio() < threshold:
        return None
    return sm.ratio()


#: The cosine at which two chunks are near-duplicates (the seed's).
COSINE_THRESHOLD = 0.85
#: It as a flag's knob (``--dedup-threshold``): a cosine of 0 to 1, as every knob is
#: checked (no NaN; 7 was taken and found nothing: walk 45, F1).
DEDUP_THRESHOLD = Knob(
    "dedup-threshold",
    "float",
    COSINE_THRESHOLD,
    "cosine of near-duplicates",
    flag="--dedup-threshold",
    minimum=0,
    maximum=1,
)


def find_duplicates(
    texts: Sequence[str],
    *,
    embedder: Embedder | None = None,
    cosine_threshold: float = COSINE_THRESHOLD,
    ratio_threshold: float = 0.9,
    prefilter: float = 0.5,
) -> list[DuplicatePair]:
    """Pairs ``a < b`` of near-duplicate texts, in order."""
    import numpy as np

    n = len(texts)
    if n < 2:
        return []
    if embedder is None:
        from chunkscope.engine.embed.lexical import LexicalEmbedder

        embedder = LexicalEmbedder()
    vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    low = min(prefilter, cosine_threshold)
    out: list[DuplicatePair] = []
    for lo in range(0, n, _BLOCK):
        block = vectors[lo : lo + _BLOCK] @ vectors.T  # (block, n) cosines of unit rows
        rows, cols = np.nonzero(block >= low)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            a = lo + r
            if c <= a:
                continue
            cos = float(block[r, c])
            if cos >= cosine_threshold:
                ratio = _char_ratio(texts[a], texts[c], ratio_threshold)
                rounded = None if ratio is None else round(ratio, 6)
                out.append(DuplicatePair(a, c, round(cos, 6), rounded, "cosine", c == a + 1))
                continue
            ratio = _char_ratio(texts[a], texts[c], ratio_threshold)
            if ratio is not None and ratio >= ratio_threshold:
                out.append(
                    DuplicatePair(a, c, round(cos, 6), round(ratio, 6), "char_ratio", c == a + 1)
                )
    out.sort(key=lambda d: (d.a, d.b))
    return out
