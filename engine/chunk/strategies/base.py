"""The strategy protocol and the values every strategy returns.

A strategy turns the turns of a source (or, for document strategies, the
source's text) into `StrategyChunk`s: a `Chunk` (so the rest of the pipeline
can use it unchanged) plus the strategy's per-chunk metadata and the reason of
the cut after it. Parameters are frozen dataclasses whose fields carry their
documentation, CLI flag and range in the field metadata (`param`), which is
what the command line and the workbench build their controls from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from chunkscope.engine.model import Chunk, Progress, Turn
from chunkscope.engine.params import Knob, knob

if TYPE_CHECKING:
    from chunkscope.engine.read.source import Source


class Counter(Protocol):
    """What strategies need of `engine.tokens.TokenCounter`."""

    name: str

    @property
    def exact(self) -> bool:
        """Whether counts are a real tokenizer's, not an approximation."""

    def count(self, text: str) -> int:
        """The token count of `text`."""

    def count_many(self, texts: list[str]) -> list[int]:
        """The token count of each text."""

    def encode(self, text: str) -> list[int]:
        """The token ids of `text`."""

    def decode(self, ids: list[int]) -> str:
        """The text of token ids."""


ParamsPairs = tuple[tuple[str, Any], ...]
"""A frozen, hashable form of a strategy's parameters (sorted name/value pairs)."""


#: A strategy parameter: a knob, which the CLI and the workbench read (`engine.params`).
param = knob


#: One parameter of a strategy, for building a control or a flag: a knob.
ParamSpec = Knob


@dataclass(slots=True)
class StrategyChunk:
    """One chunk of a strategy: the chunk, its metadata, the reason of the cut after it."""

    chunk: Chunk
    meta: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None

    @property
    def text(self) -> str:
        """The chunk's text."""
        return self.chunk.text


@dataclass(slots=True)
class StrategyResult:
    """The chunks of one run of a strategy, plus document-level information.

    `info` holds what is not per chunk: the markdown integrity score, the
    episodic `should_wait`, filtered LLM boundaries, warnings, ...
    """

    strategy: str
    params: dict[str, Any]
    chunks: list[StrategyChunk]
    info: dict[str, Any] = field(default_factory=dict)
    #: When the strategy can tell each chunk text's own token count cheaply (read off
    #: its tokenization of the whole text), this gives ``(text, count)`` pairs on
    #: request; the pipeline hands them to its counter (`TokenCounter.remember`), so
    #: counting the chunks does not encode the document a second time.
    known_counts: Callable[[], list[tuple[str, int]]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def chunk_list(self) -> list[Chunk]:
        """The plain chunks, without the strategy's metadata."""
        return [c.chunk for c in self.chunks]

    @property
    def cuts(self) -> list[str | None]:
        """The reason of each cut: ``cuts[i]`` is the cut after chunk ``i``."""
        return [c.reason for c in self.chunks[:-1]]

    def cut_points(self) -> list[tuple[int | None, int | None]]:
        """Where each chunk after the first starts, as (turn index, source line) of its
        first turn: a coordinate two results over the same turns share, so a view can
        tell the cuts two strategies (or two parameter sets) agree on from the others."""
        out: list[tuple[int | None, int | None]] = []
        for sc in self.chunks[1:]:
            first = sc.chunk.turns[0] if sc.chunk.turns else None
            out.append((None, None) if first is None else (first.turn_index, first.source_line))
        return out

    def __len__(self) -> int:
        return len(self.chunks)


P = TypeVar("P")


class BaseStrategy(Generic[P]):
    """The shared part of every strategy; subclasses set the class attributes and `split`.

    ``input`` is "turns" for strategies over the turns of a log, "document" for
    strategies that read the text of the source (they still accept turns and
    then treat the turns' texts as the document).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    input: ClassVar[str] = "turns"
    params_type: ClassVar[type[Any]]
    #: The pipeline compacts this strategy's chunks (`raw_chunks`, then its own
    #: compaction stage); every other strategy's chunks are final.
    compacts: ClassVar[bool] = False

    def __init__(self, params: P | None = None) -> None:
        self.params: P = params if params is not None else self.params_type()

    def prepare(self, path: str, counter: Counter) -> None:
        """Start, on other threads, work that `split` of the markdown document at `path`
        will need and that needs only the file (while the file is parsed): nothing but
        for a strategy that reads the document itself."""

    def split(
        self, turns: Sequence[Turn], counter: Counter, *, source: Source | None = None
    ) -> StrategyResult:
        """Split the turns into chunks; `source` gives strategies that need it the file's
        structure."""
        raise NotImplementedError

    def raw_chunks(
        self, turns: Sequence[Turn], progress: Progress | None = None, *, by_message: bool = False
    ) -> list[Chunk]:
        """A compacting strategy's chunks before compaction (see `compacts`); with
        `by_message` every message opens a chunk too."""
        raise NotImplementedError(f"{self.name} does not leave compaction to the pipeline")

    def split_raw(self, turns: Sequence[Turn], progress: Progress | None = None) -> StrategyResult:
        """`raw_chunks` as a result with per-chunk metadata (a compacting strategy)."""
        raise NotImplementedError(f"{self.name} does not leave compaction to the pipeline")

    def result(
        self, chunks: list[StrategyChunk], info: Mapping[str, Any] | None = None
    ) -> StrategyResult:
        """The result of a split: its chunks, the strategy's name and parameters, and `info`."""
        params = dataclasses.asdict(self.params)  # type: ignore[call-overload]
        return StrategyResult(self.name, params, chunks, dict(info or {}))


def resolve_overlap(overlap: float, max_tokens: int) -> int:
    """Overlap in tokens: a value below 1 is a fraction of `max_tokens`, else a token count."""
    if overlap < 0:
        raise ValueError(f"overlap must be >= 0, got {overlap}")
    tokens = round(overlap * max_tokens) if overlap < 1 else int(overlap)
    if tokens >= max_tokens:
        raise ValueError(f"overlap ({tokens} tokens) must be below max_tokens ({max_tokens})")
    return tokens


#: The parameter that caps a strategy's chunk size, in tokens (sliding-window, boundary,
#: episodic and markdown have one; blank-line has none).
SIZE_CAP_PARAM = "max_tokens"


def strategy_size_cap(params: Mapping[str, Any]) -> int | None:
    """The size cap in tokens a strategy's parameters put on its chunks, or None."""
    value = params.get(SIZE_CAP_PARAM)
    return int(value) if isinstance(value, int | float) and value > 0 else None
