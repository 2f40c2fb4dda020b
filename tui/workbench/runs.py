"""What a pipeline run hands to the screen: snapshots computed in worker threads.

Everything here runs off the UI thread and only *reads* the `Pipeline`: stage results,
their spans, and small arrays derived from them for drawing (which merged chunk owns
each item of the left column, the size of each position's merged chunk). No chunking
decision is made here; the engine makes them all.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from chunkscope.engine.model import Chunk
from chunkscope.engine.segment.merge import char_counts

if TYPE_CHECKING:
    from chunkscope.engine.pipeline import Pipeline

LEFT_KINDS = ("turns", "raw", "compacted")
TOKEN_BATCH = 50  # chunks counted per hold of the lock: a newer run waits at most one batch


class Cancelled(Exception):
    """Raised from a progress callback to stop a stage whose worker was cancelled."""


@dataclass
class RunView:
    """One run of the pipeline, ready to draw."""

    source: Any
    compacted: list[Chunk]
    compact_tokens: list[int] | None
    result: Any  # engine.segment.merge.MergeResult
    sims: np.ndarray
    owners: np.ndarray  # merged owner of each compacted chunk
    position_sizes: np.ndarray  # size (cap unit) of the merged chunk holding each position
    merged_tokens: list[int] | None  # estimated: part tokens + one per join; exact follow
    merged_tokens_exact: bool
    cut_pairs: list[tuple[int, str]]
    left_kind: str
    left_items: list[Chunk]
    left_tokens: list[int] | None
    left_owner: np.ndarray | None
    params: Any  # PipelineParams
    seconds: float
    #: The turns the run read (fewer than the file's once tool calls are collapsed).
    turn_count: int = 0

    def __repr__(self) -> str:  # the default would print every chunk
        return f"<RunView {len(self.compacted)} -> {len(self.result.chunks)} chunks>"

    def left_range(self, merged_index: int) -> tuple[int, int]:
        """The items of the left column that merged chunk `merged_index` holds."""
        if self.left_owner is None or len(self.left_owner) == 0:
            return (0, 0)
        a = int(np.searchsorted(self.left_owner, merged_index, side="left"))
        b = int(np.searchsorted(self.left_owner, merged_index, side="right"))
        return (a, b)

    def owner_of_left(self, item: int) -> int | None:
        if self.left_owner is None or not 0 <= item < len(self.left_owner):
            return None
        return int(self.left_owner[item])


class Derived:
    """Per-pipeline memo of arrays derived from stage results (keyed by identity)."""

    def __init__(self) -> None:
        self._memo: dict[tuple[str, int], Any] = {}

    def get(self, name: str, obj: object, compute: Callable[[], Any]) -> Any:
        key = (name, id(obj))
        hit = self._memo.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = compute()
        if len(self._memo) > 64:
            self._memo.clear()
        self._memo[key] = (obj, value)
        return value


def _sum_spans(values: np.ndarray, bounds: np.ndarray, join: int) -> np.ndarray:
    """Sum of `values` over each span ``bounds[i]:bounds[i + 1]`` (a merge's `bounds`:
    its spans' starts and the end), plus `join` per join between parts."""
    if len(bounds) < 2:
        return np.zeros(0, dtype=np.int64)
    prefix = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=prefix[1:])
    lo, hi = bounds[:-1], bounds[1:]
    sums: np.ndarray = prefix[hi] - prefix[lo] + join * (hi - lo - 1)
    return sums


def _turn_items(pipe: Pipeline, derived: Derived) -> list[Chunk]:
    turns = pipe.turns()
    return derived.get("turn-items", turns, lambda: [Chunk([t]) for t in turns])  # type: ignore[no-any-return]


def _turn_to_raw(pipe: Pipeline, derived: Derived) -> np.ndarray | None:
    """For each turn, the first raw chunk holding a piece of it (by turn index)."""
    turns = pipe.turns()
    raw = pipe.raw_chunks()

    def compute() -> np.ndarray | None:
        out = np.full(len(turns), -1, dtype=np.int64)
        for r, chunk in enumerate(raw):
            for t in chunk.turns:
                ti = t.turn_index
                if ti is None or not 0 <= ti < len(out):
                    return None
                if out[ti] < 0:
                    out[ti] = r
        if (out < 0).any():
            # Turns with no text of their own: attach them to the chunk before.
            last = 0
            for i in range(len(out)):
                if out[i] < 0:
                    out[i] = last
                last = out[i]
        return out

    return derived.get("turn-to-raw", raw, compute)  # type: ignore[no-any-return]


def build_view(
    pipe: Pipeline,
    left_kind: str,
    derived: Derived,
    lock: threading.Lock | threading.RLock,
    progress: Callable[[int, int], None] | None = None,
    *,
    with_tokens: bool = True,
) -> RunView:
    """Run (or fetch from the memo) every stage up to the merge, and derive what to draw.

    Without `with_tokens` no token is counted unless the merge itself needs counts (a
    cap in tokens): loading a tokenizer costs more than the rest of a first screen, so
    counts follow in `add_tokens`.
    """
    t0 = time.perf_counter()
    with lock:
        source = pipe.source()
        compacted = pipe.compacted()
        compact_spans = pipe.compact_spans()
        turn_count = len(pipe.turns())
        result = pipe.merged(progress=progress)
        sims = pipe.similarities()
        params = pipe.params
        if left_kind == "turns":
            left_items = _turn_items(pipe, derived)
        elif left_kind == "raw":
            left_items = pipe.raw_chunks()
        else:
            left_items = compacted
        turn_to_raw = _turn_to_raw(pipe, derived) if left_kind == "turns" else None

    owners = result.owners
    compact_chars = derived.get(
        "compact-chars",
        compacted,
        lambda: char_counts(compacted),
    )
    merged_chars = _sum_spans(compact_chars, result.bounds, 1)
    left_owner: np.ndarray | None
    if left_kind == "compacted":
        left_owner = owners
    else:
        lengths = derived.get(
            "compact-lengths",
            compact_spans,
            lambda: np.asarray([b - a for a, b in compact_spans], dtype=np.int64),
        )
        raw_owner = np.repeat(owners, lengths) if len(owners) else np.zeros(0, dtype=np.int64)
        if left_kind == "raw":
            left_owner = raw_owner
        else:
            left_owner = (
                None if turn_to_raw is None or not len(raw_owner) else raw_owner[turn_to_raw]
            )
    view = RunView(
        source=source,
        compacted=compacted,
        compact_tokens=None,
        result=result,
        sims=np.asarray(sims, dtype=np.float64),
        owners=owners,
        position_sizes=merged_chars[owners] if len(owners) else np.zeros(0, dtype=np.int64),
        merged_tokens=None,
        merged_tokens_exact=False,
        # (the last unit before each cut, why): cut j ends merged chunk j
        cut_pairs=list(zip((result.bounds[1:-1] - 1).tolist(), result.cut_reasons, strict=True)),
        left_kind=left_kind,
        left_items=left_items,
        left_tokens=None,
        left_owner=left_owner,
        params=params,
        seconds=0.0,
        turn_count=turn_count,
    )
    if with_tokens or params.merge.cap_unit == "tokens":
        with lock:
            add_tokens(pipe, view, derived)
    view.seconds = time.perf_counter() - t0
    return view


def add_tokens(pipe: Pipeline, view: RunView, derived: Derived) -> None:
    """Token counts of the compacted and left items, and estimates for the merged ones
    (part tokens plus one per join; `exact_tokens` replaces them)."""
    counter = pipe.counter
    compacted = view.compacted
    view.compact_tokens = derived.get(
        "compact-tokens", compacted, lambda: counter.count_many([c.text for c in compacted])
    )
    left = view.left_items
    if left is compacted:
        view.left_tokens = view.compact_tokens
    else:
        view.left_tokens = derived.get(
            f"{view.left_kind}-tokens", left, lambda: counter.count_many([c.text for c in left])
        )
    tok_arr = derived.get(
        "compact-tok-arr",
        view.compact_tokens,
        lambda: np.asarray(view.compact_tokens, dtype=np.int64),
    )
    merged_tokens = _sum_spans(tok_arr, view.result.bounds, 1)
    view.merged_tokens = merged_tokens.tolist()
    if view.params.merge.cap_unit == "tokens" and len(view.owners):
        view.position_sizes = merged_tokens[view.owners]


def exact_tokens(
    pipe: Pipeline, chunks: list[Chunk], lock: threading.Lock, cancelled: Callable[[], bool]
) -> list[int] | None:
    """Exact token counts of `chunks`, in batches so a newer run is not held up."""
    out: list[int] = []
    for start in range(0, len(chunks), TOKEN_BATCH):
        if cancelled():
            return None
        with lock:
            out.extend(pipe.token_counts(chunks[start : start + TOKEN_BATCH]))
    return out


COUNT_BATCH = 500  # texts per hold of the lock in `prefetch_tokens`


def prefetch_tokens(
    pipe: Pipeline,
    view: RunView,
    derived: Derived,
    lock: threading.Lock | threading.RLock,
    cancelled: Callable[[], bool],
) -> bool:
    """Count the tokens `add_tokens` needs (compacted and left items) in batches, the
    lock held per batch and cancellation checked between batches, and memoise them where
    `add_tokens` looks. On a huge file one `count_many` over every chunk holds the lock
    for tens of seconds, so a slider step would wait for all of it. False if cancelled."""
    wanted = [("compact-tokens", view.compacted)]
    if view.left_items is not view.compacted:
        wanted.append((f"{view.left_kind}-tokens", view.left_items))
    for name, items in wanted:
        hit = derived._memo.get((name, id(items)))
        if hit is not None and hit[0] is items:
            continue
        counts: list[int] = []
        for start in range(0, len(items), COUNT_BATCH):
            if cancelled():
                return False
            texts = [c.text for c in items[start : start + COUNT_BATCH]]
            with lock:
                counts.extend(pipe.counter.count_many(texts))
        with lock:
            derived.get(name, items, functools.partial(list, counts))
    return not cancelled()
