"""Conversation boundaries (seed 001, strategy 2): cut where the conversation turns.

Every point between two turns is scored from the signals the seed lists:

* a user turn opens (turn-taking): ``user_turn``
* a timestamp gap of at least `gap_minutes` (more for longer gaps; a calendar
  day change counts as a gap): ``time_gap``
* an explicit topic marker at the start of the turn ("let's talk about",
  "moving on", "next, ..."): ``topic_marker``

and then the cuts are chosen by dynamic programming over all cut sets that
keep every chunk within `max_tokens` and `max_messages` turns (the message
count threshold): the fewest chunks the limits allow, balanced around the
mean size, pulled towards the best-scored points. Each cut reports its reason
(its strongest signal, or ``token_limit`` / ``message_limit`` when a limit
forced a cut where no signal was) and its score.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkscope.engine.chunk.strategies.base import (
    BaseStrategy,
    Counter,
    StrategyChunk,
    StrategyResult,
    param,
)
from chunkscope.engine.model import Chunk, Turn

if TYPE_CHECKING:
    from chunkscope.engine.read.source import Source

USER_ROLES = frozenset({"You", "user", "User", "human", "Human"})

TOPIC_MARKERS = (
    "let's talk about",
    "lets talk about",
    "let us talk about",
    "let's move on",
    "moving on",
    "next,",
    "next topic",
    "new topic",
    "switching gears",
    "on another note",
    "changing the subject",
    "change of subject",
    "different question",
    "another question",
    "unrelated,",
    "now let's",
    "now, let's",
)

WEIGHTS = {"user_turn": 1.0, "time_gap": 2.0, "topic_marker": 2.5}


@dataclass(frozen=True)
class BoundaryParams:
    """The boundary strategy's knobs."""

    max_tokens: int = param(
        2000, "tokens per chunk at most", flag="--max-tokens", minimum=16, maximum=1_000_000
    )
    max_messages: int = param(
        40,
        "turns per chunk at most (the message-count threshold)",
        flag="--max-messages",
        minimum=1,
    )
    gap_minutes: float = param(
        30.0,
        "a pause of at least this many minutes scores a cut",
        flag="--gap-minutes",
        minimum=0,
    )
    markers: str = param(
        "",
        "extra topic markers, comma-separated (added to the built-in ones)",
        flag="--topic-markers",
    )
    cut_weight: float = param(
        0.3,
        "how far a good cut point may pull chunk sizes off balance (0: pure balance)",
        flag="--cut-weight",
        minimum=0,
        maximum=10,
    )


def _marker_pattern(extra: str) -> re.Pattern[str]:
    markers = list(TOPIC_MARKERS) + [m.strip().lower() for m in extra.split(",") if m.strip()]
    alts = "|".join(re.escape(m) for m in sorted(set(markers), key=len, reverse=True))
    return re.compile(rf"^\W*(?:{alts})", re.IGNORECASE)


def score_points(
    turns: Sequence[Turn], gap_minutes: float, markers: re.Pattern[str]
) -> list[dict[str, float]]:
    """Signals of the point before each turn (index 0: before the first, always empty)."""
    out: list[dict[str, float]] = [{}]
    for prev, turn in itertools.pairwise(turns):
        sig: dict[str, float] = {}
        if turn.role in USER_ROLES and prev.role not in USER_ROLES:
            sig["user_turn"] = WEIGHTS["user_turn"]
        elif turn.role in USER_ROLES:
            sig["user_turn"] = WEIGHTS["user_turn"] / 2
        if turn.timestamp is not None and prev.timestamp is not None:
            gap = (turn.timestamp - prev.timestamp).total_seconds() / 60
            if gap_minutes > 0 and gap >= gap_minutes:
                sig["time_gap"] = WEIGHTS["time_gap"] * (1 + min(math.log2(gap / gap_minutes), 3))
            elif turn.timestamp.date() != prev.timestamp.date():
                sig["time_gap"] = WEIGHTS["time_gap"]
        if markers.search(turn.text[:200]):
            sig["topic_marker"] = WEIGHTS["topic_marker"]
        out.append(sig)
    return out


class BoundaryStrategy(BaseStrategy[BoundaryParams]):
    """Cut at user turns, long pauses and topic markers, into balanced chunks under a token
    limit."""

    name = "boundary"
    description = "cut at user turns, pauses and topic markers; balanced chunks under max_tokens"
    params_type = BoundaryParams

    def split(
        self, turns: Sequence[Turn], counter: Counter, *, source: Source | None = None
    ) -> StrategyResult:
        """Chunks cut at the best-scored boundaries, each under ``max_tokens``."""
        p = self.params
        n = len(turns)
        if n == 0:
            return self.result([], {})
        acc = [0]
        for k in counter.count_many([t.line for t in turns]):
            acc.append(acc[-1] + k + 1)

        def size(i: int, j: int) -> int:
            return acc[j] - acc[i] - 1

        signals = score_points(turns, p.gap_minutes, _marker_pattern(p.markers))
        scores = [sum(s.values()) for s in signals]
        total = size(0, n)
        k_min = max(math.ceil(total / p.max_tokens), math.ceil(n / p.max_messages), 1)
        target = max(total / k_min, 1.0)
        # best[j]: cost of the best cut set over turns [0, j); cuts before turns only.
        inf = math.inf
        best = [inf] * (n + 1)
        prev = [0] * (n + 1)
        best[0] = 0.0
        weight = p.cut_weight
        for j in range(1, n + 1):
            b = inf
            arg = j - 1
            for i in range(j - 1, max(j - p.max_messages, 0) - 1, -1):
                s = size(i, j)
                if s > p.max_tokens and i < j - 1:
                    break
                dev = (s - target) / target
                cost = best[i] + 1.0 + dev * dev - (weight * scores[i] if i else 0.0)
                if cost < b:
                    b = cost
                    arg = i
            best[j] = b
            prev[j] = arg
        cuts: list[int] = []
        j = n
        while j > 0:
            cuts.append(prev[j])
            j = prev[j]
        starts = sorted(cuts)
        bounds = [*starts, n]
        chunks: list[StrategyChunk] = []
        texts: list[str] = []
        for c, (i, j) in enumerate(itertools.pairwise(bounds)):
            chunk = Chunk(list(turns[i:j]))
            texts.append(chunk.text)
            reason = None
            cut_meta: dict[str, Any] = {}
            if j < n:
                sig = signals[j]
                if sig:
                    reason = max(sig, key=lambda k: sig[k])
                elif size(i, j + 1) > p.max_tokens:
                    reason = "token_limit"
                elif j + 1 - i > p.max_messages:
                    reason = "message_limit"
                else:
                    reason = "balance"
                cut_meta = {"cut_score": round(scores[j], 4), "cut_signals": sorted(sig)}
            meta: dict[str, Any] = {
                "sequence": c + 1,
                "start_turn_index": i,
                "end_turn_index": j - 1,
                "turns": j - i,
                "exceeds_limit": size(i, j) > p.max_tokens,
                **cut_meta,
            }
            chunks.append(StrategyChunk(chunk, meta, reason))
        for sc, k in zip(chunks, counter.count_many(texts), strict=True):
            sc.meta["token_count"] = k
            sc.meta["total_chunks"] = len(chunks)
        info = {
            "target_tokens": round(target, 1),
            "min_chunks": k_min,
            "candidates": sum(1 for s in scores if s > 0),
        }
        return self.result(chunks, info)
