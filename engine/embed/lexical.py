"""An offline embedder: hashed TF-IDF over word unigrams and bigrams, numpy only.

Each text becomes the bag of its lowercase ``\\w+`` words (minus a short English
stopword list) and of its adjacent word pairs (a pair of two stopwords is
dropped). Each word is hashed with BLAKE2b, which unlike Python's ``hash()`` is
the same in every process; a pair's hash mixes its two word hashes (SplitMix64).
A feature's 64-bit hash picks a bucket in ``[0, dim)`` and a sign, so colliding
features tend to cancel rather than pile up. A feature's weight is
``(1 + log tf) * idf`` with ``idf = log((1 + N) / (1 + df)) + 1`` fitted on the
texts of the same ``embed()`` call: the document being embedded is its own corpus.
Bigrams count ``bigram_weight`` (default 0.5) times as much as words: they are rarely
shared between two texts, so at full weight they mostly add hashing noise to the
similarity of related texts, while still telling "pod network" from "network pod".

Because of that, a text's vector depends on the other texts it is embedded with,
so these vectors are never cached on disk (`cacheable` is False); they are cheap
to recompute anyway (10,000 texts of ~300 characters take a fraction of a second).
"""

from __future__ import annotations

import array
import hashlib
import itertools
import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from engine.embed.base import Matrix, Progress, is_blank, normalize_rows
from engine.textutil import STOPWORDS

_WORD = re.compile(r"\w+")


# Distinct words remembered with their hash, across calls; cleared past this many.
_HASH_CACHE_LIMIT = 1 << 20
_PROGRESS_EVERY = 2048
# Cells of the (texts x dim) matrix summed at once in float64 (32 MB).
_BLOCK_CELLS = 1 << 22

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix64(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The SplitMix64 finaliser: a fixed, well-spread 64-bit to 64-bit hash."""
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def word_hash(word: str) -> int:
    """A stable 64-bit hash of one word (the same in every process, unlike ``hash()``)."""
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


def features(text: str) -> list[str]:
    """The features of `text` as strings, for inspection: unigrams, then bigrams ("a b")."""
    words = _WORD.findall(text.lower())
    stop = STOPWORDS
    unigrams = [w for w in words if w not in stop]
    bigrams = [f"{a} {b}" for a, b in itertools.pairwise(words) if a not in stop or b not in stop]
    return unigrams + bigrams


class LexicalEmbedder:
    """Deterministic hashed TF-IDF vectors of width `dim`; see the module docstring."""

    name = "lexical"
    model = "hashed-tfidf"
    #: Vectors depend on the other texts of the call: embed a document in one call,
    #: and do not cache them per text.
    contextual = True
    cacheable = False

    def __init__(self, dim: int = 512, *, bigram_weight: float = 0.5) -> None:
        if dim < 2:
            raise ValueError(f"dim must be at least 2, got {dim}")
        if bigram_weight < 0:
            raise ValueError(f"bigram_weight must not be negative, got {bigram_weight}")
        self.dim = dim
        self.bigram_weight = bigram_weight
        self._hashes: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"LexicalEmbedder(dim={self.dim})"

    def _word_hashes(self, words: Iterable[str]) -> npt.NDArray[np.uint64]:
        cache = self._hashes
        if len(cache) > _HASH_CACHE_LIMIT:
            cache.clear()
        out: list[int] = []
        append = out.append
        for word in words:
            h = cache.get(word)
            if h is None:
                h = cache[word] = word_hash(word)
            append(h)
        return np.array(out, dtype=np.uint64)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        n = len(texts)
        dim = self.dim
        if n == 0:
            return np.zeros((0, dim), dtype=np.float32)

        # The words of all texts as ids into `vocab` (first occurrence order), kept as
        # 8-byte integers rather than a list of strings (a tenth of the memory on a
        # large log); `lengths[i]` is the number of words of text i.
        vocab: dict[str, int] = {}
        ids = array.array("q")
        lengths = np.zeros(n, dtype=np.int64)
        findall = _WORD.findall
        for i, text in enumerate(texts):
            if not is_blank(text):
                words = findall(text.lower())
                for w in words:
                    if w not in vocab:
                        vocab[w] = len(vocab)
                ids.extend(map(vocab.__getitem__, words))
                lengths[i] = len(words)
            if progress is not None and (i + 1) % _PROGRESS_EVERY == 0 and i + 1 < n:
                progress(i + 1, n)

        if ids:
            word_ids = np.frombuffer(ids, dtype=np.int64)
            doc_of_word = np.repeat(np.arange(n, dtype=np.int64), lengths)
            hashes = self._word_hashes(vocab)
            stop = np.fromiter((w in STOPWORDS for w in vocab), dtype=bool, count=len(vocab))

            # Unigrams: every non-stopword. Bigrams: adjacent words of the same text,
            # unless both are stopwords; hashed by mixing the two word hashes.
            keep = ~stop[word_ids]
            uni_hash = hashes[word_ids[keep]]
            uni_doc = doc_of_word[keep]
            first, second = word_ids[:-1], word_ids[1:]
            pair_ok = (doc_of_word[:-1] == doc_of_word[1:]) & ~(stop[first] & stop[second])
            bi_hash = _mix64(hashes[first[pair_ok]] * _GOLDEN + hashes[second[pair_ok]])
            bi_doc = doc_of_word[:-1][pair_ok]
            feat_hash = np.concatenate([uni_hash, bi_hash])
            feat_doc = np.concatenate([uni_doc, bi_doc])
            n_uni = len(uni_hash)
            del word_ids, doc_of_word, keep, uni_hash, uni_doc, first, second, pair_ok
            del bi_hash, bi_doc

            # Term frequency per (text, feature), document frequency per feature.
            distinct, feat_id = np.unique(feat_hash, return_inverse=True)
            n_feat = len(distinct)
            scale = np.ones(n_feat, dtype=np.float64)
            scale[feat_id[n_uni:]] = self.bigram_weight
            pairs, tf = np.unique(feat_doc * n_feat + feat_id, return_counts=True)
            del feat_hash, feat_doc, feat_id
            doc_of, feat_of = pairs // n_feat, pairs % n_feat
            del pairs
            df = np.bincount(feat_of, minlength=n_feat)
            idf = np.log((1.0 + n) / (1.0 + df)) + 1.0

            h = distinct[feat_of]
            bucket = (h % np.uint64(dim)).astype(np.int64)
            sign = 1.0 - 2.0 * (h >> np.uint64(63)).astype(np.float64)
            weights = (1.0 + np.log(tf)) * idf[feat_of] * scale[feat_of] * sign
            flat = doc_of * dim + bucket
            # The sums per (text, bucket), a block of texts at a time: float64 for one
            # block, never for the whole (n, dim) matrix (850 MB for 200k texts).
            # `doc_of` is sorted (np.unique sorted the pairs text first).
            rows = max(1, _BLOCK_CELLS // dim)
            bounds = np.searchsorted(doc_of, np.arange(0, n + rows, rows))
            del h, bucket, sign, doc_of, feat_of, tf
            sums = np.empty((n, dim), dtype=np.float32)
            for k, row in enumerate(range(0, n, rows)):
                end = min(n, row + rows)
                lo, hi = bounds[k], bounds[k + 1]
                block = np.bincount(
                    flat[lo:hi] - row * dim, weights=weights[lo:hi], minlength=(end - row) * dim
                )
                sums[row:end] = block.reshape(end - row, dim)
            del flat, weights
            # In place: a copy would hold a second (n, dim) matrix at the peak.
            result = normalize_rows(sums, copy=False)
        else:
            result = np.zeros((n, dim), dtype=np.float32)
        if progress is not None:
            progress(n, n)
        return result
