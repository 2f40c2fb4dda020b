"""The seed's split: paragraphs of each turn, then compaction of short chunks (the default).

A markdown document's chunks also start at its headings (`engine.chunk.split.section_spans`);
the seed's own, bit for bit, are the pipeline's under ``--merge seed``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkscope.engine.chunk.split import (
    DEFAULT_MIN_CHARS,
    chunk_turns,
    compact_spans,
    cut_reasons,
    opens_at_headings,
    section_spans,
    split_words,
)
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
    """`chunk_turns` then `compact_chunks` (a document's: at its headings too, each kept
    first): identical to the pipeline's stages outside the topic merge."""

    name = "blank-line"
    description = "split turns at blank lines and headings, then merge chunks under min_chars"
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
        """The seed's split: paragraphs, compacted so none is under ``min_chars``; a
        markdown `source`'s split at its headings too, each heading first in its chunk."""
        sections = source is not None and opens_at_headings(source.kind)
        raw = chunk_turns(turns, by_message=sections)
        min_chars = self.params.min_chars
        spans = section_spans(raw, min_chars) if sections else compact_spans(raw, min_chars)
        compacted = chunks_from_spans(raw, spans)
        reasons = cut_reasons(raw, spans, sections=sections)
        out: list[StrategyChunk] = []
        for chunk, (start, end), reason in zip(compacted, spans, reasons, strict=True):
            out.append(StrategyChunk(chunk, {"raw_chunks": [start, end]}, reason))
        info = {"compacted": True, "raw_chunks": len(raw), "split": split_words(sections=sections)}
        return self.result(out, info)
