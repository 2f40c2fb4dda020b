"""The seed's split: paragraphs of each turn, then compaction of short chunks (the default)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkscope.engine.chunk.split import DEFAULT_MIN_CHARS, chunk_turns, compact_spans
from chunkscope.engine.chunk.strategies.base import (
    BaseStrategy,
    Counter,
    StrategyChunk,
    StrategyResult,
    param,
)
from chunkscope.engine.model import Chunk, Progress, Turn, chunks_from_spans

if TYPE_CHECKING:
    from chunkscope.engine.read.source import Source


@dataclass(frozen=True)
class BlankLineParams:
    """The blank-line strategy's knobs."""

    min_chars: int = param(
        DEFAULT_MIN_CHARS,
        "compaction minimum: shorter chunks merge forward",
        flag="--min-chars",
        minimum=0,
    )


class BlankLineStrategy(BaseStrategy[BlankLineParams]):
    """`chunk_turns` then `compact_chunks`: identical to the pipeline's default stages."""

    name = "blank-line"
    description = "split turns at blank lines, then merge chunks under min_chars (the seed's)"
    params_type = BlankLineParams
    compacts = True

    def raw_chunks(
        self, turns: Sequence[Turn], progress: Progress | None = None, *, by_message: bool = False
    ) -> list[Chunk]:
        """The paragraphs before compaction (what the pipeline's ``chunk`` stage holds)."""
        return chunk_turns(turns, progress, by_message=by_message)

    def split_raw(self, turns: Sequence[Turn], progress: Progress | None = None) -> StrategyResult:
        """The paragraphs before compaction, with their index as metadata."""
        paragraphs = self.raw_chunks(turns, progress)
        chunks = [StrategyChunk(c, {"paragraph": i}) for i, c in enumerate(paragraphs)]
        return self.result(chunks, {"compacted": False})

    def split(
        self, turns: Sequence[Turn], counter: Counter, *, source: Source | None = None
    ) -> StrategyResult:
        """The seed's split: paragraphs, compacted so none is under ``min_chars``."""
        raw = chunk_turns(turns)
        spans = compact_spans(raw, self.params.min_chars)
        compacted = chunks_from_spans(raw, spans)
        out: list[StrategyChunk] = []
        for i, (chunk, (start, end)) in enumerate(zip(compacted, spans, strict=True)):
            reason = "paragraph" if i < len(spans) - 1 else None
            out.append(StrategyChunk(chunk, {"raw_chunks": [start, end]}, reason))
        return self.result(out, {"compacted": True, "raw_chunks": len(raw)})
