"""Episodic chunking (seed 003): force split, boundary detection, flush, merge small.

1. Force split: while what remains holds at least `max_tokens` tokens or
   `max_messages` turns, cut a chunk off its front with the seed's halving
   search (start at ``max_messages - 1`` turns, halve while the tokens reach
   the limit).
2. Boundary detection on what remains: an OpenAI-compatible chat endpoint
   with the seed's prompt and JSON schema (1-based boundaries, "split after
   message N", and `should_wait`) when `llm_base_url` is set; boundaries out of
   range or not integers are dropped and reported. Without an endpoint, or
   when the endpoint fails or answers malformed JSON, the offline detector
   decides: a calendar day change, or a pause of more than `gap_minutes`
   followed by a drop in lexical similarity.
3. Flush: with `flush`, the tail is packed into the last chunk and
   `should_wait` is cleared; otherwise `should_wait` says whether the last
   episode may still be growing.
4. Chunks under `min_chunk_tokens` merge with the next one (the seed's rule).

Token counts are the counter's (exact with tiktoken), of ``role: text`` lines.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections import Counter as Bag
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chunkscope.engine.backend import (
    ENV_API_KEY,
    RetryPolicy,
    make_client,
    resolve_key,
    retry_after,
    retryable,
    scrub,
)
from chunkscope.engine.chunk.strategies.base import (
    BaseStrategy,
    Counter,
    StrategyChunk,
    StrategyResult,
    param,
)
from chunkscope.engine.chunk.strategies.episodic_prompt import BOUNDARY_PROMPT, BOUNDARY_SCHEMA
from chunkscope.engine.model import Chunk, Turn

if TYPE_CHECKING:
    from chunkscope.engine.read.source import Source


SHORT_REPLIES = frozenset(
    [
        "ok",
        "okay",
        "k",
        "sure",
        "yes",
        "no",
        "yep",
        "nope",
        "thanks",
        "thx",
        "ty",
        "cool",
        "nice",
        "great",
        "fine",
        "lol",
        "haha",
        "👍",
        "😂",
        "🙏",
        "noted",
    ]
) | {"got it", "thank you", "sounds good", "will do", "ok thanks"}
_PLACEHOLDER = re.compile(r"^(?:\s*\[(?:image|video|file|audio|sticker)\]\s*)+$", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "i",
        "you",
        "we",
        "they",
        "he",
        "she",
        "me",
        "my",
        "your",
        "our",
        "do",
        "does",
        "did",
        "not",
        "no",
        "so",
        "if",
        "then",
        "than",
        "as",
        "by",
        "from",
        "can",
        "will",
        "just",
        "what",
        "how",
        "why",
        "when",
        "where",
        "which",
    ]
)


@dataclass(frozen=True)
class EpisodicParams:
    """The episodic strategy's knobs."""

    max_tokens: int = param(
        8000, "force a split at this many tokens", flag="--max-tokens", minimum=16
    )
    max_messages: int = param(
        500, "force a split at this many turns", flag="--max-messages", minimum=2
    )
    min_chunk_tokens: int = param(
        300,
        "chunks under this many tokens merge with the next",
        flag="--min-chunk-tokens",
        minimum=0,
    )
    gap_minutes: float = param(
        240.0,
        "offline detector: a pause longer than this (and a topic drop) splits",
        flag="--gap-minutes",
        minimum=0,
    )
    similarity_drop: float = param(
        0.2,
        "offline detector: lexical similarity across a long pause below this splits",
        flag="--similarity-drop",
        minimum=0,
        maximum=1,
    )
    window: int = param(
        4,
        "offline detector: turns on each side compared for similarity",
        flag="--window",
        minimum=1,
    )
    flush: bool = param(
        False, "pack the tail into the last chunk; clear should_wait", flag="--flush"
    )
    llm_base_url: str | None = param(
        None,
        "OpenAI-compatible base URL for LLM boundary detection (none: offline)",
        flag="--llm-base-url",
    )
    llm_model: str = param("gpt-4o-mini", "chat model for boundary detection", flag="--llm-model")
    llm_timeout: float = param(30.0, "seconds per LLM request", flag="--llm-timeout", minimum=0.1)


@dataclass
class BoundaryResult:
    """Boundaries (1-based: split after message N) of one detection, with its diagnostics."""

    boundaries: list[int] = field(default_factory=list)
    should_wait: bool = False
    reasons: dict[int, str] = field(default_factory=dict)
    invalid: list[Any] = field(default_factory=list)
    reasoning: str = ""


class BoundaryReplyError(ValueError):
    """The endpoint answered, but not with the JSON object the schema asks for."""


# ----------------------------------------------------------------------------- formatting


def _time_str(ts: datetime | None) -> str:
    if ts is None:
        return ""
    return ts.isoformat(sep=" ", timespec="seconds")


def format_messages(turns: Sequence[Turn]) -> str:
    """``[N] [YYYY-MM-DD HH:MM:SS+TZ] role: content`` with 1-based N (the seed's format)."""
    lines: list[str] = []
    for i, t in enumerate(turns, start=1):
        if not t.text:
            continue
        ts = _time_str(t.timestamp)
        lines.append(f"[{i}] [{ts}] {t.role}: {t.text}" if ts else f"[{i}] {t.role}: {t.text}")
    return "\n".join(lines)


def parse_boundary_reply(content: str | None, n_messages: int) -> BoundaryResult:
    """The boundaries of a reply; invalid ones (not ints, out of ``1..n-1``) are dropped
    and listed. Raises `BoundaryReplyError` when the reply is not the schema's object."""
    if content is None:
        raise BoundaryReplyError("empty reply")
    text = content.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BoundaryReplyError(f"not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("boundaries"), list):
        raise BoundaryReplyError("no 'boundaries' list in the reply")
    raw = data["boundaries"]
    valid = sorted(
        {b for b in raw if isinstance(b, int) and not isinstance(b, bool) and 1 <= b < n_messages}
    )
    invalid = [
        b
        for b in raw
        if not (isinstance(b, int) and not isinstance(b, bool)) or not 1 <= b < n_messages
    ]
    return BoundaryResult(
        boundaries=valid,
        should_wait=bool(data.get("should_wait", False)),
        reasons={b: "llm_boundary" for b in valid},
        invalid=invalid,
        reasoning=str(data.get("reasoning", "")),
    )


# ----------------------------------------------------------------------------- detectors


def _bag(turns: Sequence[Turn]) -> Bag[str]:
    words = _WORD.findall(" ".join(t.text for t in turns).lower())
    return Bag(w for w in words if w not in _STOP and len(w) > 1)


def lexical_similarity(a: Sequence[Turn], b: Sequence[Turn]) -> float:
    """Cosine of the word counts (stop words dropped) of two runs of turns."""
    x, y = _bag(a), _bag(b)
    if not x or not y:
        return 0.0
    dot = sum(v * y.get(k, 0) for k, v in x.items())
    return dot / math.sqrt(sum(v * v for v in x.values()) * sum(v * v for v in y.values()))


def _is_waiting_turn(turn: Turn) -> bool:
    text = turn.text.strip().lower().rstrip("!.")
    return (
        not text
        or text in SHORT_REPLIES
        or bool(_PLACEHOLDER.match(text))
        or turn.role.lower() in ("system", "tool")
    )


def offline_boundaries(
    turns: Sequence[Turn], gap_minutes: float, similarity_drop: float, window: int
) -> BoundaryResult:
    """A day change, or a pause over `gap_minutes` followed by a lexical topic drop."""
    out = BoundaryResult()
    for k in range(1, len(turns)):
        a, b = turns[k - 1].timestamp, turns[k].timestamp
        if a is None or b is None:
            continue
        if a.date() != b.date():
            out.boundaries.append(k)
            out.reasons[k] = "day_change"
            continue
        gap = (b - a).total_seconds() / 60
        if gap > gap_minutes:
            sim = lexical_similarity(turns[max(k - window, 0) : k], turns[k : k + window])
            if sim < similarity_drop:
                out.boundaries.append(k)
                out.reasons[k] = "time_gap_topic_shift"
    if turns:
        last = turns[-1]
        out.should_wait = _is_waiting_turn(last)
        if not out.should_wait and len(turns) >= 2:
            a, b = turns[-2].timestamp, last.timestamp
            if a is not None and b is not None:
                gap = (b - a).total_seconds() / 60
                # an ambiguous pause before the last turn: it may open a new episode
                out.should_wait = 30 <= gap <= gap_minutes and len(turns) - 1 not in out.reasons
    return out


#: Retries of one boundary request (the detector falls back to the offline one anyway).
LLM_RETRIES = 1


def llm_boundaries(
    turns: Sequence[Turn],
    base_url: str,
    model: str,
    timeout: float,
    *,
    retry: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> BoundaryResult:
    """Ask an OpenAI-compatible chat endpoint (the seed's prompt and JSON schema).

    Transient failures are retried by `engine.backend`'s policy (`LLM_RETRIES` by
    default); any error left is raised with the key scrubbed from its text."""
    import openai

    policy = retry or RetryPolicy(max_retries=LLM_RETRIES)
    key = resolve_key(None, base_url)
    client = make_client(base_url, key, timeout)
    prompt = BOUNDARY_PROMPT.format(messages=format_messages(turns))
    try:
        attempt = 0
        while True:
            asked: float | None = None
            try:
                reply = client.chat.completions.create(
                    model=model,
                    messages=[{"role": "user", "content": prompt}],
                    temperature=0,
                    response_format={
                        "type": "json_schema",
                        "json_schema": {"name": "episode_boundaries", "schema": BOUNDARY_SCHEMA},
                    },
                )
                break
            except openai.APIStatusError as e:
                if not retryable(e.status_code) or attempt >= policy.max_retries:
                    raise
                asked = retry_after(e.response.headers)
            except (openai.APITimeoutError, openai.APIConnectionError):
                if attempt >= policy.max_retries:
                    raise
            sleep(policy.delay(attempt, asked))
            attempt += 1
        content = reply.choices[0].message.content if reply.choices else None
    finally:
        client.close()
    return parse_boundary_reply(content, len(turns))


# ----------------------------------------------------------------------------- strategy


class EpisodicStrategy(BaseStrategy[EpisodicParams]):
    """Episodes: split at hard limits, at boundaries an LLM (or the offline detector) finds, then
    merge the small ones."""

    name = "episodic"
    description = "episodes: force split at limits, LLM or offline boundaries, merge small"
    params_type = EpisodicParams

    def split(
        self, turns: Sequence[Turn], counter: Counter, *, source: Source | None = None
    ) -> StrategyResult:
        """The session's episodes as chunks, with the boundary detector's notes in the result's
        info."""
        p = self.params
        n = len(turns)
        info: dict[str, Any] = {
            "detector": "llm" if p.llm_base_url else "offline",
            "should_wait": False,
            "force_splits": 0,
            "invalid_boundaries": [],
            "llm_error": None,
            "small_batch": False,
            "merged": 0,
        }
        if n == 0:
            return self.result([], info)
        acc = [0]
        for k in counter.count_many([t.line for t in turns]):
            acc.append(acc[-1] + k)

        def tokens(i: int, j: int) -> int:
            return acc[j] - acc[i]

        # (start, end, reason of the cut after it) over turn indices
        pieces: list[tuple[int, int, str | None]] = []
        if self._is_small_batch(tokens(0, n), n):
            info["small_batch"] = True
            info["should_wait"] = not p.flush
            return self._finish([(0, n, None)], turns, tokens, info)
        pos = 0
        while pos < n:
            over_tokens = tokens(pos, n) >= p.max_tokens
            over_count = n - pos >= p.max_messages
            if not over_tokens and not over_count:
                break
            split_at = self._force_split_point(pos, n, tokens)
            pieces.append((pos, pos + split_at, "token_limit" if over_tokens else "message_limit"))
            info["force_splits"] += 1
            pos += split_at
        if pos < n:
            rest = turns[pos:]
            found: BoundaryResult | None = None
            if p.llm_base_url:
                try:
                    found = llm_boundaries(rest, p.llm_base_url, p.llm_model, p.llm_timeout)
                    info["invalid_boundaries"] = found.invalid
                    info["llm_reasoning"] = found.reasoning
                except Exception as e:  # any failure: the offline detector decides
                    error = " ".join(f"{type(e).__name__}: {e}".split())
                    # Servers echo a rejected key ("Incorrect API key provided: sk-...").
                    error = scrub(error, os.environ.get(ENV_API_KEY))
                    info["llm_error"] = error[:300]
                    info["detector"] = "offline (llm failed)"
            if found is None:
                found = offline_boundaries(rest, p.gap_minutes, p.similarity_drop, p.window)
            prev = 0
            for b in found.boundaries:
                if b > prev:
                    pieces.append((pos + prev, pos + b, found.reasons.get(b, "boundary")))
                    prev = b
            pieces.append((pos + prev, n, None))
            info["should_wait"] = found.should_wait and not p.flush
        return self._finish(pieces, turns, tokens, info)

    def _is_small_batch(self, total: int, count: int) -> bool:
        """The seed's test for a batch too small to chunk."""
        p = self.params
        return not (total >= p.max_tokens * 0.3 or count >= p.max_messages * 0.3)

    def _force_split_point(self, start: int, end: int, tokens: Any) -> int:
        """The seed's halving search: turns to cut off the front, 1 .. len - 1."""
        n = end - start
        if n <= 1:
            return n
        candidate = min(self.params.max_messages - 1, n - 1)
        while candidate > 1 and tokens(start, start + candidate) >= self.params.max_tokens:
            candidate = max(1, candidate // 2)
        return int(candidate)

    def _finish(
        self,
        pieces: list[tuple[int, int, str | None]],
        turns: Sequence[Turn],
        tokens: Any,
        info: dict[str, Any],
    ) -> StrategyResult:
        # the seed's merge: a chunk under the minimum joins the next one
        merged: list[tuple[int, int, str | None, int]] = []
        i = 0
        min_tokens = self.params.min_chunk_tokens
        while i < len(pieces):
            s, e, reason = pieces[i]
            if tokens(s, e) < min_tokens and i + 1 < len(pieces):
                _, e2, reason2 = pieces[i + 1]
                merged.append((s, e2, reason2, 2))
                info["merged"] += 1
                i += 2
            else:
                merged.append((s, e, reason, 1))
                i += 1
        chunks: list[StrategyChunk] = []
        for k, (s, e, reason, parts) in enumerate(merged):
            last = k == len(merged) - 1
            meta: dict[str, Any] = {
                "episode": k + 1,
                "start_turn_index": s,
                "end_turn_index": e - 1,
                "turns": e - s,
                "token_count": tokens(s, e),
                "merged_parts": parts,
                "exceeds_limit": tokens(s, e) > self.params.max_tokens,
                "pending": bool(last and info["should_wait"]),
            }
            chunks.append(StrategyChunk(Chunk(list(turns[s:e])), meta, None if last else reason))
        return self.result(chunks, info)
