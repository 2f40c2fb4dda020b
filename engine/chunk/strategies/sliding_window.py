"""Sliding window over the turns (seed 001, strategy 1).

With `preserve_message_boundaries` (the default) a window holds whole turns:
turns are added while the chunk stays within `max_tokens`, and the next window
starts with the longest run of trailing turns of the previous one that fits in
`overlap` tokens. A turn larger than `max_tokens` is a chunk of its own,
flagged ``exceeds_limit``.

Without it, the chunk text of all turns is encoded once and cut into windows of
token positions: every window but the last has the same size, and consecutive
windows share exactly `overlap` tokens. A turn cut by a window edge keeps its
role in the chunk, so windows are `max_tokens` less the longest role prefix.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkscope.engine.chunk.strategies._tokpos import TokenIndex
from chunkscope.engine.chunk.strategies.base import (
    BaseStrategy,
    Counter,
    StrategyChunk,
    StrategyResult,
    param,
    resolve_overlap,
)
from chunkscope.engine.model import Chunk, Turn, turn_part

if TYPE_CHECKING:
    from chunkscope.engine.read.source import Source


@dataclass(frozen=True)
class SlidingWindowParams:
    """The sliding-window strategy's knobs."""

    max_tokens: int = param(
        1000, "tokens per chunk at most", flag="--max-tokens", minimum=16, maximum=1_000_000
    )
    overlap: float = param(
        0.1,
        "overlap between consecutive chunks: tokens (>= 1) or a fraction of max_tokens (< 1), "
        "below max_tokens",
        flag="--overlap",
        minimum=0,
    )
    preserve_message_boundaries: bool = param(
        True,
        "keep turns whole (false: cut inside turns at token positions)",
        flag="--no-preserve-boundaries",
    )

    def __post_init__(self) -> None:
        resolve_overlap(self.overlap, self.max_tokens)

    @property
    def overlap_tokens(self) -> int:
        """The overlap in tokens (a fraction of ``max_tokens`` resolved)."""
        return resolve_overlap(self.overlap, self.max_tokens)


def _chunk_id(kind: str, first: int, last: int, text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{kind}-{first}-{last}-{digest}"


class SlidingWindowStrategy(BaseStrategy[SlidingWindowParams]):
    """Fixed-size token windows with overlap, of whole turns or cut at token positions."""

    name = "sliding-window"
    description = "fixed-size token windows with overlap, whole turns or cut at token positions"
    params_type = SlidingWindowParams

    def split(
        self, turns: Sequence[Turn], counter: Counter, *, source: Source | None = None
    ) -> StrategyResult:
        """The windows over the turns, as chunks."""
        if not turns:
            return self.result([], {"overlap_tokens": self.params.overlap_tokens})
        if self.params.preserve_message_boundaries:
            chunks = self._by_turns(turns, counter)
        else:
            chunks = self._by_tokens(turns, counter)
        total = len(chunks)
        for i, sc in enumerate(chunks):
            sc.meta["sequence"] = i + 1
            sc.meta["total_chunks"] = total
            sc.meta["id"] = _chunk_id(
                "sw", sc.meta["start_turn_index"], sc.meta["end_turn_index"], sc.text
            )
        exact = counter.count_many([sc.text for sc in chunks])
        for sc, n in zip(chunks, exact, strict=True):
            sc.meta["token_count"] = n
        return self.result(
            chunks,
            {"overlap_tokens": self.params.overlap_tokens, "tokenizer": counter.name},
        )

    # ------------------------------------------------------------------ whole turns

    def _by_turns(self, turns: Sequence[Turn], counter: Counter) -> list[StrategyChunk]:
        limit = self.params.max_tokens
        overlap = self.params.overlap_tokens
        acc = [0]
        for n_tok in counter.count_many([t.line for t in turns]):
            acc.append(acc[-1] + n_tok)

        def size(s: int, e: int) -> int:
            """Tokens of turns [s, e) joined by newlines (one token each)."""
            return acc[e] - acc[s] + (e - s - 1) if e > s else 0

        n = len(turns)
        windows: list[tuple[int, int, int]] = []  # (start, end, turns carried over)
        i = 0
        carry = 0
        while i < n:
            start = i - carry
            while carry and size(start, i + 1) > limit:  # the overlap must leave room
                carry -= 1
                start += 1
            end = i + 1  # always take the next turn, even one larger than the limit
            while end < n and size(start, end + 1) <= limit:
                end += 1
            windows.append((start, end, carry))
            i = end
            carry = 0
            if i < n:
                k = end
                while k - 1 > start and size(k - 1, end) <= overlap:
                    k -= 1
                carry = end - k
        out: list[StrategyChunk] = []
        for w, (start, end, carry) in enumerate(windows):
            nxt = windows[w + 1][2] if w + 1 < len(windows) else 0
            meta: dict[str, Any] = {
                "start_turn_index": start,
                "end_turn_index": end - 1,
                "overlap_with_previous": carry,
                "overlap_with_next": nxt,
                "overlap_tokens_with_previous": size(start, start + carry),
                "exceeds_limit": size(start, end) > limit,
            }
            reason = "token_limit" if w + 1 < len(windows) else None
            out.append(StrategyChunk(Chunk(list(turns[start:end])), meta, reason))
        return out

    # ------------------------------------------------------------------ token windows

    def _by_tokens(self, turns: Sequence[Turn], counter: Counter) -> list[StrategyChunk]:
        # Positions of each turn's text in the joined document of "role: text" lines.
        lines = [t.line for t in turns]
        doc = "\n".join(lines)
        text_start: list[int] = []
        line_end: list[int] = []
        pos = 0
        for t, line in zip(turns, lines, strict=True):
            text_start.append(pos + len(t.role) + 2)
            pos += len(line)
            line_end.append(pos)
            pos += 1
        prefix = max(counter.count(f"{role}: ") for role in {t.role for t in turns})
        window = max(self.params.max_tokens - prefix - 1, 1)
        overlap = min(self.params.overlap_tokens, window - 1)
        index = TokenIndex(doc, counter)
        n_tokens = index.n
        limit = self.params.max_tokens

        def build(s: int, e: int) -> tuple[Chunk, int, int]:
            a, b = index.offset(s), index.offset(e)
            pieces: list[Turn] = []
            for k in range(bisect_left(line_end, a), len(turns)):
                if text_start[k] - len(turns[k].role) - 2 >= b:
                    break
                t = turns[k]
                lo = max(a - text_start[k], 0)
                hi = min(b, line_end[k]) - text_start[k]
                if lo == 0 and hi >= len(t.text):
                    pieces.append(t)
                elif hi > lo:
                    pieces.append(turn_part(t, lo, hi))
            return Chunk(pieces), a, b

        # Windows of `window` tokens, each starting `overlap` tokens before the
        # previous one ends; a window whose text re-encodes to more than the
        # limit (tokenization differs at cut edges) is shortened until it fits.
        spans: list[tuple[int, int, Chunk, int, int]] = []
        s = 0
        while True:
            e = min(s + window, n_tokens)
            chunk, a, b = build(s, e)
            excess = counter.count(chunk.text) - limit
            while excess > 0 and e - s > 1:
                e = max(e - excess, s + 1)
                chunk, a, b = build(s, e)
                excess = counter.count(chunk.text) - limit
            spans.append((s, e, chunk, a, b))
            if e >= n_tokens:
                break
            s = max(e - overlap, s + 1)
        out: list[StrategyChunk] = []
        for w, (s, e, chunk, a, b) in enumerate(spans):
            ids = sorted({t.turn_index for t in chunk.turns if t.turn_index is not None})
            meta: dict[str, Any] = {
                "start_turn_index": ids[0] if ids else 0,
                "end_turn_index": ids[-1] if ids else 0,
                "start_token": s,
                "end_token": e,
                "start_char": a,
                "end_char": b,
                "window_tokens": e - s,
                "overlap_with_previous": (spans[w - 1][1] - s) if w else 0,
                "overlap_with_next": (e - spans[w + 1][0]) if w + 1 < len(spans) else 0,
                "exceeds_limit": False,
            }
            reason = "token_limit" if w + 1 < len(spans) else None
            out.append(StrategyChunk(chunk, meta, reason))
        return out
