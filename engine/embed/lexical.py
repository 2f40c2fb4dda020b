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
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from chunkscope.engine.embed.base import Matrix, Progress, is_blank, normalize_rows
from chunkscope.engine.textutil import STOPWORDS, without_escapes

_WORD = re.compile(r"\w+")


# Distinct words remembered with their hash, across calls; cleared past this many.
_HASH_CACHE_LIMIT = 1 << 20
_PROGRESS_EVERY = 2048
# Cells of the (texts x dim) matrix summed at once in float64 (32 MB).
_BLOCK_CELLS = 1 << 22

# Keys ``feature * n + text`` must stay below this (int64).
_KEY_LIMIT = (1 << 63) - 1
# ASCII bytes to themselves when they are word characters (``\w``: letters, digits,
# underscore; upper case to lower case) and to a space otherwise.
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if chr(c).isalnum() or c == 95 else 32 for c in range(128)
) + bytes(range(128, 256))
_STOP_BYTES = frozenset(w.encode("utf-8") for w in STOPWORDS)

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
    return _bytes_hash(word.encode("utf-8", "surrogatepass"))


def _bytes_hash(word: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(word, digest_size=8).digest(), "little")


def features(text: str) -> list[str]:
    """The features of `text` as strings, for inspection: unigrams, then bigrams ("a b")."""
    words = _WORD.findall(without_escapes(text).lower())
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
        self._hashes: dict[bytes, int] = {}

    def __repr__(self) -> str:
        return f"LexicalEmbedder(dim={self.dim})"

    def _word_hashes(self, words: Iterable[bytes]) -> npt.NDArray[np.uint64]:
        cache = self._hashes
        if len(cache) > _HASH_CACHE_LIMIT:
            cache.clear()
        out: list[int] = []
        append = out.append
        for word in words:
            h = cache.get(word)
            if h is None:
                h = cache[word] = _bytes_hash(word)
            append(h)
        return np.array(out, dtype=np.uint64)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """The hashed TF-IDF vectors of `texts` (words and word pairs), computed offline; the
        texts are their own corpus."""
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        result = self._vectors(texts, progress)
        if progress is not None:
            progress(n, n)
        return result

    def _vectors(self, texts: Sequence[str], progress: Progress | None) -> Matrix:
        """The unit vectors of ``texts``.

        Every (feature, text) pair is found by sorting one integer key per
        occurrence, ``feature * n + text``, where a unigram is its word id and a
        bigram the integer ``first * n_words + second``: equal keys are one pair
        (their count is its term frequency) and a feature's pairs are adjacent
        (their count is its document frequency). Sorting plain integers in place
        is fast and needs no index array, unlike grouping the 64-bit hashes
        with an inverse permutation (several times slower at a million texts).
        Large arrays are released as soon as they are used, so the peak is a
        few integers per word on top of the (n, dim) result.
        """
        n, dim = len(texts), self.dim
        vocab_ids, ids, lengths = _tokenize(texts, progress)
        if not ids:
            return np.zeros((n, dim), dtype=np.float32)
        vocab = list(vocab_ids)
        del vocab_ids
        n_words = len(vocab)
        hashes = self._word_hashes(vocab)
        stop = np.fromiter((w in _STOP_BYTES for w in vocab), dtype=bool, count=n_words)
        del vocab
        word_ids = np.frombuffer(ids, dtype=np.int64)
        doc_of_word = np.repeat(np.arange(n, dtype=np.int64), lengths)

        # Unigrams: every word that is not a stopword.
        keep = ~stop[word_ids]
        uni_keys = word_ids[keep]
        uni_keys *= n
        uni_keys += doc_of_word[keep]
        del keep
        # Bigrams: adjacent words of the same text, unless both are stopwords.
        ok = doc_of_word[:-1] == doc_of_word[1:]
        ok &= ~(stop[word_ids[:-1]] & stop[word_ids[1:]])
        bigrams = word_ids[:-1][ok]
        bigrams *= n_words
        bigrams += word_ids[1:][ok]
        bi_docs = doc_of_word[:-1][ok]
        del ok, word_ids, doc_of_word, ids

        box = [uni_keys]
        del uni_keys
        uni_feature, flat_u, weight_u = _pairs(box, n)
        for sl in _slices(len(flat_u)):
            _to_cells(hashes[uni_feature[sl]], flat_u[sl], weight_u[sl], dim)
        del uni_feature

        # A key must fit in int64: past that, number the distinct pairs of words
        # first (slower: that sorts with an inverse permutation).
        distinct: IntArray | None = None
        if len(bigrams) and int(bigrams.max()) * n + n > _KEY_LIMIT:
            distinct, bigrams = np.unique(bigrams, return_inverse=True)
        bigrams *= n
        bigrams += bi_docs
        del bi_docs
        box = [bigrams]
        del bigrams
        bi_feature, flat_b, weight_b = _pairs(box, n)
        weight_b *= self.bigram_weight
        for sl in _slices(len(flat_b)):
            pair = bi_feature[sl] if distinct is None else distinct[bi_feature[sl]]
            first, second = np.divmod(pair, n_words)
            h = hashes[first]
            h *= _GOLDEN
            h += hashes[second]
            _to_cells(_mix64(h), flat_b[sl], weight_b[sl], dim)
        del bi_feature, distinct

        sums = _blocked_sums([(flat_u, weight_u), (flat_b, weight_b)], n, dim)
        del flat_u, weight_u, flat_b, weight_b
        # In place: a copy would hold a second (n, dim) matrix at the peak.
        return normalize_rows(sums, copy=False)


IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# Pairs turned into cells at a time (bounds the temporaries of hashing).
_SLICE = 1 << 18


def _slices(m: int) -> Iterator[slice]:
    return (slice(i, min(m, i + _SLICE)) for i in range(0, m, _SLICE))


def _pairs(box: list[IntArray], n: int) -> tuple[IntArray, IntArray, FloatArray]:
    """Group ``feature * n + text`` keys (one per occurrence) into distinct pairs.

    ``box`` holds the keys and is emptied, so that they are freed here as soon
    as they are no longer needed. Returns, per pair (sorted by feature, then
    text), the feature, the text and ``(1 + log tf) * idf`` with
    ``idf = log((1 + n) / (1 + df)) + 1``.
    """
    keys = box.pop()
    keys.sort()
    starts = _run_starts(keys)
    weight = np.log(np.diff(starts, append=len(keys)))  # log of the term frequency
    weight += 1.0
    feature = keys[starts]
    del keys, starts
    doc = feature % n
    feature //= n
    firsts = _run_starts(feature)
    df = np.diff(firsts, append=len(feature))
    del firsts
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    weight *= np.repeat(idf, df)
    return feature, doc, weight


def _run_starts(sorted_values: IntArray) -> IntArray:
    """Index of the first element of every run of equal values."""
    m = len(sorted_values)
    boundary = np.empty(m, dtype=bool)
    if m:
        boundary[0] = True
        np.not_equal(sorted_values[1:], sorted_values[:-1], out=boundary[1:])
    return np.flatnonzero(boundary)


def _to_cells(
    feature_hash: npt.NDArray[np.uint64], doc: IntArray, weight: FloatArray, dim: int
) -> None:
    """In place: ``doc`` becomes the flat cell ``text * dim + bucket`` and ``weight``
    takes the sign, both picked by the feature's hash (bucket = hash mod dim, sign
    = top bit)."""
    doc *= dim
    doc += (feature_hash % np.uint64(dim)).astype(np.int64)
    negative = (feature_hash >> np.uint64(63)).astype(bool)
    np.negative(weight, out=weight, where=negative)


def _blocked_sums(parts: list[tuple[IntArray, FloatArray]], n: int, dim: int) -> Matrix:
    """The (n, dim) float32 matrix of the weights summed per cell (``flat`` indices),
    in float64 a block of texts at a time: never a float64 (n, dim) matrix (850 MB
    for 200k texts). Within a cell, weights add up in the order of ``parts``."""
    rows = max(1, _BLOCK_CELLS // dim)
    n_blocks = -(-n // rows)
    orders: list[tuple[IntArray, IntArray]] = []
    for flat, _ in parts:
        block = flat // (rows * dim)
        if n_blocks <= 1 << 16:
            block = block.astype(np.uint16)
        # a stable sort of small integers is a radix sort: linear
        order = np.argsort(block, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(np.bincount(block, minlength=n_blocks))))
        orders.append((order, bounds))
        del block
    sums = np.empty((n, dim), dtype=np.float32)
    for k in range(n_blocks):
        row, end = k * rows, min(n, (k + 1) * rows)
        flats, weights = [], []
        for (flat, weight), (order, bounds) in zip(parts, orders, strict=True):
            part = order[bounds[k] : bounds[k + 1]]
            flats.append(flat[part])
            weights.append(weight[part])
        block_sums = np.bincount(
            np.concatenate(flats) - row * dim,
            weights=np.concatenate(weights),
            minlength=(end - row) * dim,
        )
        sums[row:end] = block_sums.reshape(end - row, dim)
    return sums


def _tokenize(
    texts: Sequence[str], progress: Progress | None
) -> tuple[dict[bytes, int], array.array[int], IntArray]:
    """The words of every text as ids into a vocabulary (first-occurrence order).

    Returns the vocabulary (UTF-8 words), the ids of all words of all texts as
    8-byte integers (a tenth of the memory of a list of strings on a large log)
    and the number of words of each text. An ASCII text is split without the
    regex engine (bytes translate and split: about 2.5x faster, same words).
    """
    n = len(texts)
    vocab: defaultdict[bytes, int] = defaultdict()
    vocab.default_factory = vocab.__len__  # a new word gets the next id
    word_id = vocab.__getitem__
    ids = array.array("q")
    lengths = np.zeros(n, dtype=np.int64)
    findall = _WORD.findall
    for i, text in enumerate(texts):
        if not is_blank(text):
            text = without_escapes(text)  # the words the views show (walk 29, F5)
            if text.isascii():
                words = text.encode("ascii").translate(_ASCII_WORDS).split()
            else:
                words = [w.encode("utf-8", "surrogatepass") for w in findall(text.lower())]
            ids.extend(map(word_id, words))
            lengths[i] = len(words)
        if progress is not None and (i + 1) % _PROGRESS_EVERY == 0 and i + 1 < n:
            progress(i + 1, n)
    return vocab, ids, lengths
