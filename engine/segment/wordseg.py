"""Where the documents of a file change, by their words alone.

A file stitched from documents that mark none of their starts (no front matter, no
title, no repeated opening: `engine.segment.docstruct`) still changes its words where a new
document begins: each document has its own subject, its own names. `document_words`
finds the most likely documents of such a file under a Bayesian model of the kind of
Utiyama and Isahara (2001) and Eisenstein and Barzilay (2008, "Bayesian unsupervised
topic segmentation"), the methods that do best on stitched texts without training:
every document draws its words from a distribution of its own, itself drawn from a
symmetric Dirichlet prior (`DOC_PRIOR` per word of the file's vocabulary), so a word
costs less each time its document uses it again: the ``k``-th use of a word costs
``log((n + V * prior) / (k + prior))`` nats, after ``n`` words of the document and
with ``V`` words in the file's vocabulary. A segmentation costs its words plus
`DOC_PENALTY` times ``log(words in the file)`` per document (the prior on how many
there are), and the cheapest one is found by dynamic programming over the units: no
window is assumed, so a document of 1,500 characters and one of 40,000 are found
alike, where a comparison of windows misses documents shorter than its window.

Words are runs of three letters or more outside `engine.textutil.STOPWORDS`, lower case.
A document is at most `DOC_MAX_WORDS` words long (the dynamic programme's band), and a
file of more than `DOC_MAX_BLOCKS` units is read in about that many blocks of consecutive
units, plus one at every unit the caller spares (starts then fall on block starts).
Everything is numpy over the words, about ``units x band`` operations, done once per
file (`engine.segment.segmenter.frame`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from chunkscope.engine.textutil import STOPWORDS

IntArray = npt.NDArray[np.int64]

#: The cost of one more document, in units of ``log(words in the file)``: the prior
#: that keeps the model from splitting a document wherever two of its sections use
#: different words. Chosen with `DOC_PRIOR` on the development sets only
#: (`bench/segment.py`; about as good from 6 to 10).
DOC_PENALTY = 8.0
#: The Dirichlet prior of a document's word distribution, per word of the vocabulary:
#: below 1 a word a document has used is much likelier to come again in it (0.3 to
#: 0.7 score alike on the development sets).
DOC_PRIOR = 0.5
#: The longest document the dynamic programme considers, in words (stop words not
#: counted): about 60,000 characters of prose.
DOC_MAX_WORDS = 8000
#: A file of more units than this is read in this many blocks of consecutive units.
DOC_MAX_BLOCKS = 2000

_WORD = re.compile(r"[^\W\d_]{3,}")


def _words(texts: Sequence[str]) -> tuple[IntArray, IntArray]:
    """Every counted word of `texts` as an id (in order), and how many each text has."""
    ids: dict[str, int] = {}
    words: list[int] = []
    counts = np.zeros(len(texts), dtype=np.int64)
    for i, text in enumerate(texts):
        found = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
        counts[i] = len(found)
        words += [ids.setdefault(w, len(ids)) for w in found]
    return np.asarray(words, dtype=np.int64), counts


def _blocks(counts: IntArray, max_blocks: int, keep: IntArray) -> IntArray:
    """The first unit of each block when the units are grouped into about `max_blocks`
    runs of equal word counts (every unit its own block when few); the units in
    `keep` always start a block."""
    n = len(counts)
    if n <= max_blocks:
        return np.arange(n, dtype=np.int64)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if n else 0
    # a block starts at the first unit whose preceding words reach each step
    steps = np.linspace(0, total, max_blocks, endpoint=False)
    starts = np.searchsorted(ends - counts, steps, side="left")
    return np.unique(np.concatenate(([0], starts[starts < n], keep))).astype(np.int64)


def document_words(
    texts: Sequence[str],
    penalty: float = DOC_PENALTY,
    max_words: int = DOC_MAX_WORDS,
    max_blocks: int = DOC_MAX_BLOCKS,
    prior: float = DOC_PRIOR,
    spared: Sequence[float] | npt.NDArray[np.float64] | None = None,
) -> list[int]:
    """The units (indices into `texts`, ascending, never 0) where the most likely
    documents after the first start (see the module docstring). `spared` (one per
    text, 0 to 1): how much of the per-document cost a document starting there is
    spared, where the file itself marks a start."""
    discount = np.zeros(len(texts)) if spared is None else np.asarray(spared, dtype=np.float64)
    if discount.shape != (len(texts),):
        raise ValueError(f"spared has {discount.size} values for {len(texts)} texts")
    if not np.isfinite(discount).all():
        raise ValueError("spared values must be finite")
    discount = np.clip(discount, 0.0, 1.0)
    words, counts = _words(texts)
    total = len(words)
    if len(texts) < 2 or total == 0:
        return []
    firsts = _blocks(counts, max_blocks, np.flatnonzero(discount > 0))
    m = len(firsts)
    # words before each block, and at the end
    unit_ends = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=unit_ends[1:])
    ends = np.append(unit_ends[firsts], total)
    vocab = int(words.max()) + 1
    # how many times each word occurred before this one
    order = np.argsort(words, kind="stable")
    run = np.r_[0, np.flatnonzero(np.diff(words[order])) + 1]
    rank = np.empty(total, dtype=np.int64)
    rank[order] = np.arange(total) - np.repeat(run, np.diff(np.r_[run, total]))
    # a document's cost: sum(log(i + V * prior) for its n words) - sum(log(k + prior)
    # for the k-th use of each word): running sums of both, indexed by n and by k
    k = np.arange(total + 1, dtype=np.float64)
    saving = np.log(k + prior)
    length = np.zeros(total + 2)
    np.cumsum(np.log(k + vocab * prior), out=length[1:])
    step = penalty * math.log(max(total, 2)) * (1.0 - discount[firsts])
    best = np.full(m + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(m + 1, dtype=np.int64)
    seen = np.zeros(vocab, dtype=np.int64)  # uses of each word before the block in hand
    for a in range(m):
        t0 = int(ends[a])
        t1 = max(min(total, t0 + max_words), int(ends[a + 1]))  # one block at least
        span = words[t0:t1]
        saved = np.zeros(t1 - t0 + 1)
        np.cumsum(saving[rank[t0:t1] - seen[span]], out=saved[1:])
        # the documents [a, b) for the blocks b after a within the band (at least one)
        hi = int(np.searchsorted(ends, t1, side="right")) - 1
        after = np.arange(a + 1, hi + 1)
        size = ends[after] - t0
        cost = best[a] + length[size] - saved[size] + step[a]
        better = cost < best[after]
        best[after[better]] = cost[better]
        back[after[better]] = a
        np.add.at(seen, words[t0 : int(ends[a + 1])], 1)
    starts: list[int] = []
    block = int(back[m])
    while block > 0:
        starts.append(int(firsts[block]))
        block = int(back[block])
    return starts[::-1]
