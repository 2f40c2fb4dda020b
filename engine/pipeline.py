"""The one object the command line and the workbench drive.

A `Pipeline` holds a source file and the parameters of every stage (immutable:
`with_params` gives another pipeline over the same file, sharing every memo), and
computes each stage on demand, memoised by the parameters that stage depends
on (`STAGE_INPUTS`)::

    source -> turns -> raw chunks -> compacted -> embeddings -> merged

Changing a merge parameter re-runs the merge and nothing before it; changing
the compaction minimum re-runs compaction, then finds the embeddings of texts
it has seen before in memory (and, for remote backends, on disk). `runs`
counts how often each stage really ran, which the tests assert on.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from chunkscope.engine.chunk.split import (
    DEFAULT_MIN_CHARS,
    compact_spans,
    opens_at_headings,
    section_spans,
    split_words,
)
from chunkscope.engine.model import Chunk, Progress, Span, Turn, chunks_from_spans
from chunkscope.engine.read.parse import load
from chunkscope.engine.read.source import Source
from chunkscope.engine.tokens import DEFAULT_ENCODING, TokenCounter, get_counter

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from chunkscope.engine.chunk.strategies import BaseStrategy, StrategyResult
    from chunkscope.engine.embed.base import Embedder
    from chunkscope.engine.params import Knob
    from chunkscope.engine.recap.core import Candidate, Selection
    from chunkscope.engine.recap.sections import Section
    from chunkscope.engine.search.core import SearchIndex
    from chunkscope.engine.segment.merge import MergeParams, MergeResult
    from chunkscope.engine.segment.segmenter import TopicFrame, TopicParams
    from chunkscope.engine.summarize import Summarizer, Summary

_T = TypeVar("_T")


@dataclass(frozen=True)
class EmbedderSpec:
    """Which embedder to use; the embedder itself is built on first use."""

    name: str = "lexical"
    model: str | None = None
    base_url: str | None = None
    batch_size: int = 256
    use_cache: bool = True

    def label(self) -> str:
        """``name`` or ``name:model``, as shown in status lines."""
        return self.name if not self.model else f"{self.name}:{self.model}"


@dataclass(frozen=True)
class SummarizerSpec:
    """Which summarizer to use ("extractive" or "llm"); built on first use.

    The API key is never part of the parameters: the LLM summarizer reads
    ``$OPENAI_API_KEY`` (and ``$OPENAI_BASE_URL`` when `base_url` is None).
    """

    name: str = "extractive"
    model: str | None = None
    base_url: str | None = None
    workers: int = 4
    use_cache: bool = True

    def label(self) -> str:
        """``name`` or ``name:model``, as shown in status lines."""
        return self.name if not self.model else f"{self.name}:{self.model}"


def _default_merge() -> MergeParams:
    from chunkscope.engine.segment.merge import MergeParams

    return MergeParams()


def _default_topic() -> TopicParams:
    from chunkscope.engine.segment.segmenter import TopicParams

    return TopicParams()


#: A seed threshold above any cosine similarity: the seed loop merges only what always
#: merges (`MergeParams.always_merge`), so it gives the most merged chunks.
_SEED_NO_MERGE = 1.0001


def _knob_words(k: Knob, value: int, unit: str, flags: bool) -> str:
    """Knob `k` at `value` in words: as its slider names it (``the chunk size (200
    tokens)``) or, with `flags`, with its name and flag as the command line takes it
    (``the chunk size (topic_chunk_tokens 200, --topic-chunk-tokens)``)."""
    label = k.slider.label if k.slider is not None else k.name
    if not flags:
        return f"the {label} ({value:,} {unit})"
    return f"the {label} ({k.name} {value:,}, {k.flag})"


@dataclass(frozen=True)
class PipelineParams:
    """Every parameter of every stage; a stage is keyed by the ones it reads."""

    strict: bool = False
    #: Tool calls collapsed (`engine.recap.collapse`). A library caller reads the log as
    #: it is unless it asks; every front end asks as `collapse_by_default` says (the one
    #: default of the commands and the workbench, declared there).
    collapse: bool = False
    input_format: str | None = None  # None: found from the content (`engine.read.formats`)
    session: int | None = None  # of a file holding several; None: the newest
    min_chars: int = DEFAULT_MIN_CHARS
    tokenizer: str = DEFAULT_ENCODING
    embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    merge: MergeParams = field(default_factory=_default_merge)
    topic: TopicParams = field(default_factory=_default_topic)
    strategy: str = "blank-line"
    strategy_params: tuple[tuple[str, Any], ...] = ()  # sorted (name, value) pairs
    summarizer: SummarizerSpec = field(default_factory=SummarizerSpec)
    #: False: the run ends at the compacted chunks (`chunk` without ``--embed``), so no
    #: merge mode shapes them: the split and compaction of `chunk` alone.
    merges: bool = True

    @property
    def by_message(self) -> bool:
        """The topic segmenter's units start at every message (`engine.chunk.split.chunk_turns`)."""
        return self.merges and self.merge.mode == "topic"

    @property
    def seed_split(self) -> bool:
        """The seed's own split and compaction, bit for bit: the input of the seed's merge
        (``--merge seed``), where a document's headings open no chunk of their own."""
        return self.merges and self.merge.mode == "seed"

    def by_section(self, kind: str) -> bool:
        """Whether the chunks of a source of `kind` (`Source.kind`) start at its headings:
        each section opens a chunk and compaction keeps every heading first
        (`engine.chunk.split.section_spans`). A markdown document's
        (`engine.chunk.split.opens_at_headings`), in every run but the seed's (`seed_split`)."""
        return opens_at_headings(kind) and not self.seed_split

    def split_at(self, kind: str) -> str:
        """Where the split (`blank-line`) cuts a source of `kind`, in words."""
        return split_words(sections=self.by_section(kind), messages=self.by_message)

    def collapses(self, kind: str) -> bool:
        """Whether tool calls are collapsed in a source of `kind` (`Source.kind`): with
        ``collapse`` set, in a log only (a document has no calls)."""
        return self.collapse and kind == "jsonl"

    @property
    def seed_calls(self) -> bool:
        """Collapsed tool calls read as the seed's reference says them (``--merge seed``);
        else as the readers show a call (`engine.recap.collapse.collapse_call`)."""
        return self.merge.mode == "seed"

    @property
    def compact_min(self) -> int:
        """The compaction minimum in force: ``min_chars``, or in topic mode the topic
        segmenter's own (its units stay small, so a cut can fall on any message)."""
        return self.topic.topic_unit_chars if self.by_message else self.min_chars

    def __post_init__(self) -> None:
        if self.min_chars < 0:
            raise ValueError(f"min_chars must be >= 0, got {self.min_chars}")


class _Memo:
    """A small LRU of one stage's results, keyed by that stage's inputs."""

    def __init__(self, size: int = 8) -> None:
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._size = size

    def get(self, key: Hashable) -> Any:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        return _MISSING

    def put(self, key: Hashable, value: Any) -> None:
        self._items[key] = value
        if len(self._items) > self._size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


_MISSING = object()


#: The parameters each stage depends on (its memo key), declared once: a stage re-runs
#: only when one of these changes.
STAGE_INPUTS: dict[str, tuple[str, ...]] = {
    # the seed's split reads a document's sections as the seed's parser cut them
    "parse": ("strict", "collapse", "input_format", "session", "seed_split"),
}
STAGE_INPUTS["turns"] = (*STAGE_INPUTS["parse"], "seed_calls")
# the sections read the log's messages whether or not its tool calls are collapsed
STAGE_INPUTS["sections"] = tuple(n for n in STAGE_INPUTS["parse"] if n != "collapse")
STAGE_INPUTS["strategy"] = (*STAGE_INPUTS["turns"], "strategy", "strategy_params", "tokenizer")
STAGE_INPUTS["chunk"] = (*STAGE_INPUTS["strategy"], "by_message", "seed_split")
STAGE_INPUTS["compact"] = (*STAGE_INPUTS["chunk"], "compact_min")
STAGE_INPUTS["compacted"] = STAGE_INPUTS["compact"]
STAGE_INPUTS["compact_tokens"] = (*STAGE_INPUTS["compact"], "tokenizer")
STAGE_INPUTS["embed"] = (*STAGE_INPUTS["compact"], "embedder")
STAGE_INPUTS["similarities"] = STAGE_INPUTS["embed"]
STAGE_INPUTS["topic_frame"] = STAGE_INPUTS["embed"]
STAGE_INPUTS["merge"] = (*STAGE_INPUTS["embed"], "merge", "topic")
STAGE_INPUTS["actions"] = STAGE_INPUTS["merge"]
STAGE_INPUTS["novelty"] = STAGE_INPUTS["merge"]
STAGE_INPUTS["summarize"] = (*STAGE_INPUTS["merge"], "summarizer")
STAGE_INPUTS["floors"] = STAGE_INPUTS["summarize"]
STAGE_INPUTS["search"] = (*STAGE_INPUTS["merge"], "tokenizer")


def _each_text_once(
    emb: Embedder,
    texts: list[str],
    known: dict[tuple[str, str], npt.NDArray[np.float32]],
    progress: Progress | None = None,
) -> npt.NDArray[np.float32]:
    """One vector per text, each distinct text embedded once per file: `known` (the
    file's vectors by embedder and text) first, then `emb` for the rest, remembered."""
    import numpy as np

    ident = emb.name + ":" + emb.model
    missing = list(dict.fromkeys(t for t in texts if (ident, t) not in known))
    if missing:
        vectors = emb.embed(missing, progress=progress)
        for t, v in zip(missing, vectors, strict=True):
            known[(ident, t)] = v
    return np.stack([known[(ident, t)] for t in texts])


class _Shared:
    """What every `Pipeline` over one file shares, whatever its parameters: the memo of
    each stage, the embedders and summarizers built, known vectors and summaries, the
    disk cache, and the counts of real runs. Guarded by one lock."""

    def __init__(
        self,
        path: str,
        embedder: Embedder | None,
        embedder_spec: EmbedderSpec | None,
        cache: Any | None,
        warn: Callable[[str], None] | None,
        api_keys: Mapping[str, str | None],
    ) -> None:
        self.path = path
        self.lock = threading.RLock()
        self.memo: dict[str, _Memo] = {}
        self.runs: Counter[str] = Counter()
        self.last_timings: dict[str, float] = {}
        self.embedders: dict[EmbedderSpec, Embedder] = {}
        if embedder is not None and embedder_spec is not None:
            self.embedders[embedder_spec] = embedder
        self.summarizers: dict[SummarizerSpec, Summarizer] = {}
        self.cache = cache
        self.vectors: dict[tuple[str, str], npt.NDArray[np.float32]] = {}
        self.summaries: dict[tuple[str, str], Summary] = {}
        self.summary_lock = threading.Lock()
        self.summarized = 0
        self.warn = warn
        self.warnings: list[str] = []
        #: counts of the compacted chunks' tokens started (`Pipeline.count_tokens_later`)
        self.counting: dict[tuple[Hashable, ...], Callable[[], list[int]]] = {}
        self.api_keys = {k: v for k, v in api_keys.items() if v}


class Pipeline:
    """Memoised stages over one source file, with one set of parameters.

    The parameters never change in place: `with_params` gives another pipeline over
    the same file that shares every memo and cache, so a slider step asks
    ``pipe.with_params(merge=...)`` and only the merge (and what follows) runs again.
    Thread-safe without an outside lock: the workbench runs stages in worker threads,
    one stage computation at a time. Embedders and the disk cache are built lazily, so
    a pipeline that never embeds never imports numpy's callers or `openai`.
    """

    def __init__(
        self,
        path: str | Path,
        params: PipelineParams | None = None,
        *,
        embedder: Embedder | None = None,
        cache: Any | None = None,
        warn: Callable[[str], None] | None = None,
        api_keys: Mapping[str, str | None] | None = None,
        _shared: _Shared | None = None,
    ) -> None:
        """`api_keys` may hold keys for the "embedder" and the "summarizer" (from the
        config file); without one, the backends read ``OPENAI_API_KEY``. Keys are kept
        out of the parameters, so they never reach memo keys, caches or reprs."""
        self._params = params or PipelineParams()
        if _shared is None:
            spec = self._params.embedder if embedder is not None else None
            _shared = _Shared(str(path), embedder, spec, cache, warn, api_keys or {})
        self._shared = _shared

    # ------------------------------------------------------------------ parameters

    @property
    def params(self) -> PipelineParams:
        """The parameters this pipeline runs with."""
        return self._params

    @property
    def path(self) -> str:
        """The file the pipeline reads."""
        return self._shared.path

    @property
    def runs(self) -> Counter[str]:
        """How often each stage really ran (memo misses), over every pipeline of the file."""
        return self._shared.runs

    @property
    def warnings(self) -> list[str]:
        """Warnings met so far (reader problems, backend fallbacks), shared by the file's
        pipelines."""
        return self._shared.warnings

    @property
    def last_timings(self) -> dict[str, float]:
        """Seconds each stage took in the latest run."""
        return self._shared.last_timings

    @property
    def summarized(self) -> int:
        """Chunk texts handed to a summarizer (not found in memory or on disk before)."""
        return self._shared.summarized

    def with_params(self, **changes: Any) -> Pipeline:
        """This file with some parameters changed; every memo and cache is shared."""
        if not changes:
            return self
        return Pipeline(self.path, replace(self._params, **changes), _shared=self._shared)

    def same_file(self, other: Pipeline | None) -> bool:
        """Whether `other` is this file's pipeline (any parameters): it shares the memos."""
        return other is not None and other._shared is self._shared

    def _key(self, stage: str) -> tuple[Hashable, ...]:
        p = self._params
        return tuple(getattr(p, name) for name in STAGE_INPUTS[stage])

    def _stage(self, name: str, compute: Callable[[], _T], extra: Hashable = ()) -> _T:
        shared = self._shared
        key = (self._key(name), extra)
        with shared.lock:
            memo = shared.memo.setdefault(name, _Memo())
            value = memo.get(key)
            if value is _MISSING:
                import time

                t0 = time.perf_counter()
                value = compute()
                shared.last_timings[name] = time.perf_counter() - t0
                shared.runs[name] += 1
                memo.put(key, value)
            return value  # type: ignore[no-any-return]

    def _notes(self) -> Callable[[str], None]:
        """A callback that records a warning (in `warnings`, and through `warn`) without
        referring to the pipeline, for objects the pipeline holds: a bound method would
        make a reference cycle, and a pipeline must be freed as soon as it is dropped."""
        warnings, warn = self._shared.warnings, self._shared.warn

        def note(message: str) -> None:
            warnings.append(message)
            if warn is not None:
                warn(message)

        return note

    # ------------------------------------------------------------------ stages

    # Every stage takes an optional ``progress(done, total)`` callback (see
    # `engine.model.Progress`), passed to the work that stage does itself (not to
    # the earlier stages it needs, which report through their own call). A
    # callback that raises stops the stage, and nothing is memoised.

    def source(self, progress: Progress | None = None) -> Source:
        """The parsed file; raw messages are kept only when tool calls are collapsed.

        ``progress`` counts bytes read.
        """
        p = self.params
        return self._stage(
            "parse",
            lambda: load(
                self.path,
                strict=p.strict,
                keep_messages=p.collapse,
                progress=progress,
                input_format=p.input_format,
                session=p.session,
                seed_headings=p.seed_split,
            ),
        )

    def prepare(self) -> None:
        """Start what the strategy does with the file alone, before `source` parses it, so
        that the two overlap: the markdown strategy's tokenizer pass over a markdown
        document, on other threads (`BaseStrategy.prepare`); nothing for another strategy
        or input. A file that cannot be read is left for `source` to report."""
        from chunkscope.engine.chunk.strategies import strategy_class
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.read.formats import source_kind

        p = self.params
        if strategy_class(p.strategy).input != "document":
            return
        try:
            if source_kind(self.path, p.input_format) == "markdown":
                self._strategy().prepare(str(self.path), self.counter)
        except (ChunkscopeError, OSError, ValueError):
            return

    def turns(self, progress: Progress | None = None) -> list[Turn]:
        """The turns: parsed, or with tool calls collapsed when ``collapse`` is set
        (``progress`` then counts messages)."""

        def compute() -> list[Turn]:
            src = self.source()
            if not self.params.collapses(src.kind):
                return src.turns
            from chunkscope.engine.recap.collapse import collapse_messages

            return collapse_messages(src.messages, progress, readable=not self.params.seed_calls)

        return self._stage("turns", compute)

    def _strategy(self) -> BaseStrategy[Any]:
        from chunkscope.engine.chunk.strategies import get_strategy

        return get_strategy(self.params.strategy, self.params.strategy_params)

    def _compacts(self) -> bool:
        from chunkscope.engine.chunk.strategies import strategy_class

        return strategy_class(self.params.strategy).compacts

    @property
    def compacts(self) -> bool:
        """Whether the pipeline compacts the strategy's chunks (`blank-line`): the
        compacted chunks are then `raw_chunks` joined to at least `compact_min` chars."""
        return self._compacts()

    def strategy_result(self, progress: Progress | None = None) -> StrategyResult:
        """The chunking strategy's chunks with their metadata (see `engine.chunk.strategies`).

        For a strategy whose chunks the pipeline compacts (`blank-line`) these are the
        chunks before compaction; every other strategy's chunks are final.
        ``progress`` counts the texts whose tokens the strategy has counted.
        """
        from chunkscope.engine.chunk.strategies import run_strategy

        p = self.params

        def run() -> StrategyResult:
            counter = self.counter
            result = run_strategy(
                p.strategy,
                p.strategy_params,
                self.turns(),
                counter,
                source=self.source(),
                for_pipeline=True,
                progress=progress,
            )
            if result.known_counts is not None:  # the chunks are counted next
                counter.remember(result.known_counts())
                result.known_counts = None
            return result

        return self._stage("strategy", run)

    def raw_chunks(self, progress: Progress | None = None) -> list[Chunk]:
        """The chunks of the strategy, before compaction: a strategy whose chunks the
        pipeline compacts (`BaseStrategy.compacts`) gives them cheaply
        (`BaseStrategy.raw_chunks`; ``progress`` counts turns), any other its final
        chunks (``progress`` counts the texts it has counted tokens of)."""
        if self._compacts():
            strategy = self._strategy()
            p = self.params

            def split() -> list[Chunk]:
                # a document's sections open chunks as messages do (`by_section`)
                by_message = p.by_message or p.by_section(self.source().kind)
                return strategy.raw_chunks(self.turns(), progress, by_message=by_message)

            return self._stage("chunk", split)
        return self._stage("chunk", lambda: self.strategy_result(progress).chunk_list)

    def compact_spans(self, progress: Progress | None = None) -> list[Span]:
        """Spans of the compacted chunks over the raw chunks: one raw chunk each unless
        the strategy's chunks are compacted (`BaseStrategy.compacts`); ``progress``
        counts raw chunks. A document's chunks (`by_section`) keep each heading at the
        start of its chunk (`section_spans`); the seed's (``--merge seed``) and a log's
        are compacted as the seed did (`compact_spans`)."""

        def compute() -> list[Span]:
            raw = self.raw_chunks()
            if not self._compacts():
                return [(i, i + 1) for i in range(len(raw))]
            p = self.params
            if p.by_section(self.source().kind):
                return section_spans(raw, p.compact_min, progress)
            return compact_spans(raw, p.compact_min, progress)

        return self._stage("compact", compute)

    def compacted(self, progress: Progress | None = None) -> list[Chunk]:
        """The compacted chunks; ``progress`` counts the chunks built."""
        return self._stage(
            "compacted",
            lambda: chunks_from_spans(self.raw_chunks(), self.compact_spans(), progress),
        )

    # ------------------------------------------------------------------ tokens

    @property
    def counter(self) -> TokenCounter:
        """The token counter of the run's tokenizer."""
        return get_counter(self.params.tokenizer)

    def token_counts(self, chunks: list[Chunk]) -> list[int]:
        """The token count of each chunk, by the run's counter."""
        return self.counter.count_many([c.text for c in chunks])

    def compacted_tokens(self) -> list[int]:
        """The token count of each compacted chunk (what a token cap and the topics'
        chunk size count), memoised: a merge step does not count them again. Taken
        from the count `count_tokens_later` started, if one did."""

        def compute() -> list[int]:
            with self._shared.lock:
                started = self._shared.counting.pop(self._key("compact_tokens"), None)
            return started() if started is not None else self.token_counts(self.compacted())

        return self._stage("compact_tokens", compute)

    def count_tokens_later(self) -> None:
        """Start counting the compacted chunks' tokens on the shared threads
        (`TokenCounter.count_many_later`: tiktoken lets go of the GIL) when the merge
        will count them (`merge_counts_tokens`) and they are not known yet, so that the
        embedding and the topic frame run beside the count; `compacted_tokens` takes it."""
        if not self.merge_counts_tokens():
            return
        shared = self._shared
        key = self._key("compact_tokens")
        with shared.lock:
            memo = shared.memo.get("compact_tokens")
            if key in shared.counting or (memo is not None and memo.get((key, ())) is not _MISSING):
                return
            texts = [c.text for c in self.compacted()]
            shared.counting[key] = self.counter.count_many_later(texts)

    def merge_counts_tokens(self) -> bool:
        """Whether the merge counts the compacted chunks' tokens: a token cap, or the
        topics' chunk size."""
        mp = self.params.merge
        counts_tokens = mp.mode == "topic" and self.params.topic.topic_chunk_tokens > 0
        return mp.max_chunk_tokens is not None or counts_tokens

    # ------------------------------------------------------------------ embeddings

    @property
    def embedder(self) -> Embedder:
        """The embedder for the current spec, built (and kept) on first use."""
        shared = self._shared
        spec = self.params.embedder
        with shared.lock:
            built = shared.embedders.get(spec)
            if built is None:
                from chunkscope.engine.embed import make_embedder

                cache = None
                if spec.name != "lexical" and spec.use_cache:
                    cache = self.cache
                built = shared.embedders[spec] = make_embedder(
                    spec.name,
                    model=spec.model,
                    base_url=spec.base_url,
                    batch_size=spec.batch_size,
                    cache=cache,
                    api_key=shared.api_keys.get("embedder"),
                )
            return built

    @property
    def cache(self) -> Any:
        """The shared on-disk cache (embeddings, summaries), opened on first use."""
        shared = self._shared
        with shared.lock:
            if shared.cache is None:
                from chunkscope.engine.embed.cache import EmbeddingCache

                shared.cache = EmbeddingCache(warn=self._notes())
            return shared.cache

    @property
    def cache_stats(self) -> tuple[int, int] | None:
        """(hits, misses) of the disk cache, if it has been opened."""
        cache = self._shared.cache
        return None if cache is None else (cache.hits, cache.misses)

    def embeddings(self, progress: Progress | None = None) -> npt.NDArray[np.float32]:
        """One unit vector per compacted chunk.

        Embedders whose vectors depend on the whole document (the lexical one
        fits its IDF on the document) are run on all texts at once; for the
        others every distinct text is embedded once per file.
        """

        def compute() -> npt.NDArray[np.float32]:
            self.count_tokens_later()  # the merge that follows counts them: beside this
            texts = [c.text for c in self.compacted()]
            emb = self.embedder
            if getattr(emb, "contextual", False) or not texts:
                return emb.embed(texts, progress=progress)
            return _each_text_once(emb, texts, self._shared.vectors, progress)

        return self._stage("embed", compute)

    def similarities(self) -> npt.NDArray[np.float64]:
        """Cosine similarity of each compacted chunk to the next (before merging)."""
        from chunkscope.engine.segment.merge import cosine_similarities

        return self._stage("similarities", lambda: cosine_similarities(self.embeddings()))

    def topic_frame(self) -> TopicFrame:
        """What the topic segmenter needs whatever its knobs (`engine.segment.segmenter.frame`):
        built once per file and embedder, so a topic slider step redoes only the rest."""
        from chunkscope.engine.segment.segmenter import frame

        return self._stage("topic_frame", lambda: frame(self.compacted(), self.embeddings()))

    def merged(self, progress: Progress | None = None) -> MergeResult:
        """The merged chunks: the seed loop over the compacted chunks, with its trace, or
        (``--merge topic``) the topic segmenter's topics split to fit the same size cap."""

        def compute() -> MergeResult:
            from chunkscope.engine.segment.merge import merge

            chunks = self.compacted()
            self.count_tokens_later()  # beside the embedding and the topic frame
            vectors = self.embeddings(progress=progress)
            mp = self.params.merge
            if mp.mode == "topic":  # topics, then merged chunks within the same cap
                from chunkscope.engine.segment.segmenter import segment

                prepared = self.topic_frame()
                return segment(
                    chunks,
                    vectors,
                    self.params.topic,
                    prepared,
                    max_chars=mp.max_chunk_chars,
                    max_tokens=mp.max_chunk_tokens,
                    token_counts=self.compacted_tokens() if counts_tokens else None,
                )
            tokens = self.compacted_tokens() if counts_tokens else None
            return merge(chunks, vectors, mp, token_counts=tokens)

        # A token cap, or the topics' chunk size, counts with the tokenizer: part of the
        # key only then.
        mp = self.params.merge
        counts_tokens = self.merge_counts_tokens()
        topic_tokens = mp.mode == "topic" and self.params.topic.topic_chunk_tokens > 0
        cap_tokens = self.params.tokenizer if mp.max_chunk_tokens or topic_tokens else None
        return self._stage("merge", compute, cap_tokens)

    def search_index(self) -> SearchIndex:
        """The merged chunks ready for questions (`engine.search.SearchIndex`): BM25 built
        on first use, vectors for the ``embed`` and ``fusion`` rankers from this run's
        embedder (through its cache). Memoised with the merge."""
        from chunkscope.engine.search.core import SearchIndex

        def compute() -> SearchIndex:
            result = self.merged()
            return SearchIndex(
                result.chunks, result.topic_of, self.counter, embed=self._query_embedder()
            )

        return self._stage("search", compute)

    def _query_embedder(
        self,
    ) -> Callable[[Sequence[str]], tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]:
        """Embeds questions, and the merged chunks they are compared with: with an
        embedder whose vectors depend on the whole call (lexical), the chunks and the
        questions in one call; otherwise each chunk text once per file (known vectors,
        then the disk cache), the questions as queries where the embedder tells them
        apart (e5)."""
        known = self._shared.vectors
        emb = self.embedder
        merged = self.merged()
        texts = [c.text for c in merged.chunks]

        def embed(
            queries: Sequence[str],
        ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
            import numpy as np

            if getattr(emb, "contextual", False):
                both = emb.embed([*texts, *queries])
                return both[len(texts) :], both[: len(texts)]
            chunk_vectors = (
                _each_text_once(emb, texts, known)
                if texts
                else np.zeros((0, emb.dim), dtype=np.float32)
            )
            ask = getattr(emb, "embed_queries", None)
            qv = ask(list(queries)) if ask is not None else emb.embed(list(queries))
            return np.asarray(qv, dtype=np.float32), chunk_vectors

        return embed

    def for_chunk_count(
        self, n: int, *, steps: int = 40, topics: bool = False
    ) -> tuple[Pipeline, int]:
        """This pipeline with the threshold that gives `n` merged chunks (with `topics`,
        `n` topics: each is then split to fit the size cap), or the count closest to it,
        and that count: the seed loop's ``threshold`` (a higher one merges less) or the
        topic segmenter's ``topic_depth`` (a higher one cuts less), found by bisection,
        one merge per step, then, when the bisection misses `n`, on the knob's slider
        steps (`on_count_steps`, the step nearest the setting in force of those as close
        as any): the count of merged chunks need not be monotonic in the knob (the chunk
        size splits fewer topics into more pieces). Other knobs stay as
        they are, so a size cap or a chunk size may keep `n` out of reach
        (`chunk_count_note` says which)."""
        if n < 1:
            raise ValueError(f"a chunk count must be at least 1, got {n}")
        topic = self.params.merge.mode == "topic"
        lo, hi = (-20.0, 100.0) if topic else (-1.0, _SEED_NO_MERGE)

        def at(x: float) -> tuple[Pipeline, int]:
            pipe = self.with_count_knob(x)
            return pipe, pipe.merged_count(topics=topics)

        best: tuple[int, Pipeline, int] | None = None
        for _ in range(steps):
            mid = (lo + hi) / 2
            pipe, count = at(round(mid, 6))
            if best is None or abs(count - n) < best[0]:
                best = (abs(count - n), pipe, count)
            if count == n:
                break
            more = count < n  # wanted: more chunks
            if more == topic:  # topic: a lower depth; seed: a lower threshold gives fewer
                hi = mid
            else:
                lo = mid
        assert best is not None
        if best[0]:
            # `n` is out of reach: of the values that come as close, the slider step
            # nearest the setting in force (one rule for the CLI's --chunks and the
            # workbench's n, which can only set a step); a value off the slider only
            # when it comes strictly closer.
            now = self.count_knob_value()
            near = now if isinstance(now, int | float) else best[1].count_knob_value()
            stepped, count = self.on_count_steps(n, float(near), topics=topics)
            if abs(count - n) <= best[0]:
                return stepped, count
        return best[1], best[2]

    def count_steps(self) -> list[float]:
        """The values of `count_knob` on its slider, from its low end to its high one."""
        spec = self._count_knob_spec().slider
        assert spec is not None
        last = round((spec.hi - spec.lo) / spec.step)
        return [round(spec.lo + i * spec.step, 6) for i in range(last + 1)]

    def on_count_steps(self, n: int, near: float, *, topics: bool = False) -> tuple[Pipeline, int]:
        """This pipeline with `count_knob` on the slider step whose count of merged chunks
        (`topics`: topics) is nearest `n`, and that count; of equal ones the step nearest
        `near`. Steps are tried outwards from `near` and the search stops at the first
        that gives `n`; otherwise every step is tried (the count need not be monotonic)."""
        values = sorted(self.count_steps(), key=lambda x: abs(x - near))
        best: tuple[int, Pipeline, int] | None = None
        for x in values:
            pipe = self.with_count_knob(x)
            count = pipe.merged_count(topics=topics)
            if best is None or abs(count - n) < best[0]:
                best = (abs(count - n), pipe, count)
            if count == n:
                break
        assert best is not None
        return best[1], best[2]

    def merged_count(self, *, topics: bool = False) -> int:
        """How many merged chunks (or topics) this pipeline's merge gives."""
        result = self.merged()
        return len(result.topic_spans) if topics else len(result.chunks)

    def fewest_chunks(self) -> int:
        """The fewest merged chunks any threshold (topic depth) gives under this size cap
        and chunk size: the seed loop with everything that may merge merged; the topic
        segmenter at the fewest topics or on any slider step (fewer topics may be split
        into more pieces by the chunk size)."""
        if self.params.merge.mode != "topic":
            return self.with_count_knob(-1.0).merged_count()
        counts = [self.with_count_knob(x).merged_count() for x in (100.0, *self.count_steps())]
        return min(counts)

    def most_chunks(self, *, topics: bool = False) -> int:
        """The most merged chunks (with `topics`: topics) any threshold (topic depth)
        gives: never more than the compacted units; fewer when units alike enough always
        merge (seed), or as the topics' min size and chunk size allow (topic: the lowest
        depth or any slider step, the count not being monotonic)."""
        if self.params.merge.mode != "topic":
            return self.with_count_knob(_SEED_NO_MERGE).merged_count(topics=topics)
        steps = (-20.0, *self.count_steps())
        return max(self.with_count_knob(x).merged_count(topics=topics) for x in steps)

    def count_knob(self) -> str:
        """The knob `for_chunk_count` moves: ``topic_depth`` (topic), ``threshold`` (seed)."""
        return "topic_depth" if self.params.merge.mode == "topic" else "threshold"

    def _count_knob_spec(self) -> Knob:
        from chunkscope.engine.params import knob_map
        from chunkscope.engine.segment.merge import MergeParams
        from chunkscope.engine.segment.segmenter import TopicParams

        cls = TopicParams if self.params.merge.mode == "topic" else MergeParams
        return knob_map(cls)[self.count_knob()]

    def count_knob_value(self) -> Any:
        """This pipeline's value of `count_knob`."""
        params = self.params.topic if self.params.merge.mode == "topic" else self.params.merge
        return getattr(params, self.count_knob())

    def with_count_knob(self, x: float) -> Pipeline:
        """This pipeline with `count_knob` at `x`."""
        if self.params.merge.mode == "topic":
            return self.with_params(topic=replace(self.params.topic, topic_depth=x))
        return self.with_params(merge=replace(self.params.merge, threshold=x))

    def count_limit(self, *, flags: bool = True) -> str | None:
        """The size limit that sets the fewest merged chunks, in words: in topic mode the
        chunk size when it splits below the cap (``the chunk size (topic_chunk_tokens
        200, --topic-chunk-tokens)``; without `flags`, as the workbench's slider says it,
        ``the chunk size (200 tokens)``), else the size cap (``the size cap (8,192
        chars)``); None without either."""
        from chunkscope.engine.params import knob_map
        from chunkscope.engine.segment.segmenter import TopicParams, splits_below_cap

        mp = self.params.merge
        target = self.params.topic.topic_chunk_tokens
        if mp.mode == "topic" and splits_below_cap(target, mp):
            return _knob_words(knob_map(TopicParams)["topic_chunk_tokens"], target, "tokens", flags)
        if mp.cap is not None:
            return f"the size cap ({mp.cap:,} {mp.cap_unit})"
        return None

    def count_ceiling(self, *, topics: bool = False, flags: bool = True) -> str | None:
        """What keeps the merged chunks (`topics`: topics) below the compacted units at
        any threshold (topic depth), in words after ``at most N with``: in seed mode the
        similarity at which neighbours always merge (``neighbours of similarity 0.8 or
        more always merged (always_merge 0.8, --always-merge)``), in topic mode the
        topics' min size and the chunk size they are split to (``topics of at least the
        min size (500 chars) split to the chunk size (200 tokens)``; of topics, ``no
        topic shorter than the min size (500 chars)``); None when neither applies."""
        from chunkscope.engine.params import knob_map
        from chunkscope.engine.segment.merge import MergeParams
        from chunkscope.engine.segment.segmenter import TopicParams, splits_below_cap

        mp = self.params.merge
        if mp.mode != "topic":
            at = mp.always_merge
            if not at <= 1.0:  # never reached by a cosine similarity
                return None
            k = knob_map(MergeParams)["always_merge"]
            given = f"{k.name} {at:g}, {k.flag}" if flags else f"always ≥ {at:.2f}"
            return f"neighbours of similarity {at:g} or more always merged ({given})"
        tp, knobs = self.params.topic, knob_map(TopicParams)
        least, target = tp.topic_min_chars, tp.topic_chunk_tokens
        splits = not topics and splits_below_cap(target, mp)
        if not least and not splits:
            return None
        if topics:  # (`least`: the chunk size does not split topics)
            return "no topic shorter than " + _knob_words(
                knobs["topic_min_chars"], least, "chars", flags
            )
        words = "topics"
        if least:
            words += " of at least " + _knob_words(knobs["topic_min_chars"], least, "chars", flags)
        if splits:
            size = _knob_words(knobs["topic_chunk_tokens"], target, "tokens", flags)
            words += f" split to {size}"
        return words

    def chunk_count_note(
        self, n: int, found: Pipeline, count: int, *, topics: bool = False, flags: bool = True
    ) -> str:
        """What `for_chunk_count(n)` found, in words (``topic depth 7.19 gives 4 merged
        chunks``, or the closest count when `n` is out of reach, and why when a size limit
        (`count_limit`: the chunk size or the size cap) is the reason, or for more than
        any setting gives, the compacted units and `count_ceiling`). The CLI's
        ``--chunks`` and the workbench's ``n`` (without `flags`: the limit named as its
        slider is) both say it."""
        knob, value = self.count_knob().replace("_", " "), found.count_knob_value()
        what = "topic" if topics else "merged chunk"
        if count == n:
            return f"{knob} {value:g} gives {count} {what}{'s' if count > 1 else ''}"
        closest = f"the closest is {count}, at {knob} {value:g}"
        limit = self.count_limit(flags=flags)
        if not topics and count > n and limit is not None:
            fewest = self.fewest_chunks()
            if fewest > n:
                return (
                    f"{n} merged chunk{'s' if n > 1 else ''} cannot fit {limit}: "
                    f"it needs at least {fewest}; {closest}"
                )
        if count < n:
            # more than there can be: no more than the compacted units, and fewer as the
            # knobs that merge them at any threshold allow (not "size limits or ties":
            # walk 70, F6)
            units, most = len(self.compacted()), self.most_chunks(topics=topics)
            ceiling = self.count_ceiling(topics=topics, flags=flags) if most < n else None
            if n > units:
                only = f"there are only {units} compacted units (at most {units} {what}s)"
                if most < units and ceiling is not None:
                    only += f", and at most {most} with {ceiling}"
                return f"{only}; {closest}"
            if ceiling is not None:
                return f"at most {most} {what}s with {ceiling}; {closest}"
        return f"no {knob} gives exactly {n} {what}s (size limits or ties); {closest}"

    # ------------------------------------------------------------------ summaries

    @property
    def summarizer(self) -> Summarizer:
        """The summarizer for the current spec, built on first use (see `set_summarizer`)."""
        shared = self._shared
        spec = self.params.summarizer
        with shared.lock:
            built = shared.summarizers.get(spec)
            if built is None:
                from chunkscope.engine.summarize import make_summarizer

                built = shared.summarizers[spec] = make_summarizer(
                    spec.name,
                    model=spec.model,
                    base_url=spec.base_url,
                    workers=spec.workers,
                    api_key=shared.api_keys.get("summarizer"),
                )
            return built

    def stop_requests(self) -> None:
        """Tell the remote clients built for this file (embedders, summarizers) to send no
        more requests: a wait between retries ends now and the work in progress fails
        (`engine.backend.RetryWait`). The workbench calls it when it quits. It takes no
        lock, since a stage may hold one for as long as a request lasts."""
        from chunkscope.engine.backend import stop_requests  # only on quit: not at start-up

        shared = self._shared
        for client in [*list(shared.embedders.values()), *list(shared.summarizers.values())]:
            stop_requests(client)

    def set_summarizer(self, summarizer: Summarizer) -> None:
        """Use `summarizer` for this summarizer spec (tests, custom backends)."""
        with self._shared.lock:
            self._shared.summarizers[self.params.summarizer] = summarizer

    def _summarize_texts(self, texts: list[str], progress: Progress | None = None) -> list[Summary]:
        """Summaries of `texts`, from memory when known; others from the disk cache or
        the summarizer. One summarization runs at a time, outside the stage lock, so
        the other stages stay available while a remote model works."""
        from chunkscope.engine.summarize import cache_namespace, summarize_chunks

        shared = self._shared
        summarizer = self.summarizer
        spec = self.params.summarizer
        ident = cache_namespace(summarizer)
        with shared.summary_lock:
            distinct = list(dict.fromkeys(texts))
            missing = [t for t in distinct if (ident, t) not in shared.summaries]
            if missing:
                known = len(distinct) - len(missing)
                report: Progress | None = None
                if progress is not None:
                    outer = progress

                    def report(done: int, total: int) -> None:
                        outer(known + done, len(distinct))

                cache = None
                if spec.use_cache and getattr(summarizer, "cacheable", True):
                    cache = self.cache
                results = summarize_chunks(
                    missing, summarizer, cache=cache, workers=spec.workers, progress=report
                )
                shared.summarized += len(missing)
                for t, summary in zip(missing, results, strict=True):
                    shared.summaries[(ident, t)] = summary
            elif progress is not None and distinct:
                progress(len(distinct), len(distinct))
            return [shared.summaries[(ident, t)] for t in texts]

    def summaries(self, progress: Progress | None = None) -> list[Summary]:
        """One summary per merged chunk, in order.

        Memoised by the merged chunks and the summarizer; on a miss only texts never
        summarized before (for this file, or on disk for the LLM) cost a call, so a
        slider move that leaves a merged chunk's text as it was costs nothing for
        that chunk. The summarization runs outside the stage lock.
        """
        from chunkscope.engine.summarize import summary_input

        shared = self._shared
        key = (self._key("summarize"), id(self.summarizer))
        with shared.lock:
            memo = shared.memo.setdefault("summarize", _Memo())
            value = memo.get(key)
            if value is not _MISSING:
                return value  # type: ignore[no-any-return]
            texts = [summary_input(c) for c in self.merged().chunks]
        import time

        t0 = time.perf_counter()
        result = self._summarize_texts(texts, progress)
        with shared.lock:
            shared.last_timings["summarize"] = time.perf_counter() - t0
            shared.runs["summarize"] += 1
            memo.put(key, result)
        return result

    def summary_for(self, index: int) -> Summary:
        """The summary of merged chunk `index` alone (what the workbench shows for a
        selected chunk); summarizes that chunk only, if it is not known yet."""
        from chunkscope.engine.summarize import summary_input

        chunks = self.merged().chunks
        if not 0 <= index < len(chunks):
            raise IndexError(f"merged chunk {index} out of range 0..{len(chunks) - 1}")
        return self._summarize_texts([summary_input(chunks[index])])[0]

    def known_summary(self, index: int) -> Summary | None:
        """The summary of merged chunk `index` if it is already known, else None (never
        summarizes: safe to call from a UI thread)."""
        from chunkscope.engine.summarize import cache_namespace, summary_input

        chunks = self.merged().chunks
        if not 0 <= index < len(chunks):
            return None
        shared = self._shared
        with shared.summary_lock:
            key = (cache_namespace(self.summarizer), summary_input(chunks[index]))
            return shared.summaries.get(key)

    # ------------------------------------------------------------------ recap

    def consequential_counts(self) -> list[int]:
        """Consequential tool calls (write, edit, remember, ask) in each merged chunk.

        Meaningful when tool calls are collapsed (``collapse=True``).
        """
        from chunkscope.engine.recap.collapse import consequential_indices, count_consequential

        def compute() -> list[int]:
            indices = consequential_indices(self.turns())
            return [count_consequential(c.turns, indices) for c in self.merged().chunks]

        return self._stage("actions", compute)

    def novelty(self, memories: tuple[str, ...] = ()) -> list[float]:
        """``1 - max cosine`` of each merged chunk to existing memory texts (1.0 without).

        The chunk texts and the memories are embedded together with the pipeline's
        embedder, so both are in the same space (the lexical embedder fits its
        IDF on the texts of one call).
        """
        from chunkscope.engine.recap.core import novelty_scores

        memories = tuple(m for m in memories if m.strip())

        def compute() -> list[float]:
            texts = [c.text for c in self.merged().chunks]
            if not memories or not texts:
                return [1.0] * len(texts)
            vectors = self.embedder.embed([*texts, *memories])
            n = len(texts)
            return [float(x) for x in novelty_scores(vectors[:n], vectors[n:])]

        return self._stage("novelty", compute, memories)

    def scores(
        self,
        scorer: str = "recency",
        *,
        memories: tuple[str, ...] = (),
        alpha: float = 0.0,
    ) -> list[float]:
        """One score per merged chunk (`engine.recap.core.score_chunks`): the pipeline gives
        the merged vectors, the novelty and the consequential counts it needs."""
        from chunkscope.engine.recap.core import score_chunks

        merged = self.merged()
        salience = scorer == "salience"
        return score_chunks(
            scorer,
            len(merged.chunks),
            vectors=merged.vectors if salience else None,
            novelty=self.novelty(tuple(memories)) if salience else None,
            consequential=self.consequential_counts() if salience and alpha else None,
            alpha=alpha,
        )

    def candidates(
        self,
        scorer: str = "recency",
        *,
        memories: tuple[str, ...] = (),
        alpha: float = 0.0,
        progress: Progress | None = None,
    ) -> list[Candidate]:
        """Every merged chunk as a recap candidate: summary, score, time range."""
        chunks = self.merged().chunks
        summaries = self.summaries(progress=progress)
        scores = self.scores(scorer, memories=memories, alpha=alpha)
        return self._candidates(range(len(chunks)), summaries, scores)

    def _candidates(
        self, indices: Iterable[int], summaries: Sequence[Summary], scores: Sequence[float]
    ) -> list[Candidate]:
        """The candidates of merged chunks `indices`, with their summaries (in that order)."""
        from chunkscope.engine.recap.core import Candidate

        chunks = self.merged().chunks
        clock = self.source().has_clock
        return [
            Candidate(
                index=i,
                summary=summary,
                score=scores[i],
                time_range=chunks[i].time_range if clock else "",
                start=chunks[i].start,
                end=chunks[i].end,
            )
            for i, summary in zip(indices, summaries, strict=True)
        ]

    def summary_floors(self) -> list[int] | None:
        """Per merged chunk, 0 when its summary is empty, else tokens no recap paragraph
        of it is under (`ExtractiveSummarizer.floor`), without summarizing; None when the
        summarizer or the token counter cannot tell (`engine.recap.core.compose_lazy`)."""
        from chunkscope.engine.summarize import summary_input

        floor = getattr(self.summarizer, "floor", None)
        if floor is None or not isinstance(self.counter, TokenCounter):
            return None

        def compute() -> list[int]:
            return [floor(summary_input(c)) for c in self.merged().chunks]

        return self._stage("floors", compute)

    def recap(
        self,
        budget: int | None = None,
        scorer: str = "recency",
        pinned: tuple[int, ...] | list[int] = (),
        excluded: tuple[int, ...] | list[int] = (),
        headings: bool = False,
        *,
        memories: tuple[str, ...] = (),
        alpha: float = 0.0,
        progress: Progress | None = None,
        plain: bool = False,
        every_summary: bool = True,
    ) -> Selection:
        """The recap within `budget` tokens of the pipeline's counter (None: the declared
        default, `engine.recap.core.RecapParams`): the procedural sections read from the
        log's records (`engine.recap.sections`: task, plan, files changed, last outcome, where
        it stopped, open question; at most `engine.recap.core.SECTIONS_SHARE` of the budget,
        less the pinned summaries), then the merged chunks' summaries in what is left.
        `plain` leaves the sections out (the seed's recap). No sentence is said twice.

        Summaries and scores are memoised, so changing the budget, the pins or
        the exclusions re-runs only the (fast) selection. The recap pipeline
        expects ``collapse=True`` (tool calls collapsed before chunking); with raw
        tool calls the summaries are of the raw turns, the sections the same.

        With ``every_summary=False`` only the chunks that could be in the recap are
        summarized (`engine.recap.core.compose_lazy`, when the summarizer can tell
        `summary_floors`): the same recap, its `Selection.candidates` those summarized.
        """
        import math

        from chunkscope.engine.recap.core import DEFAULT_BUDGET, compose, compose_lazy
        from chunkscope.engine.summarize import summary_input

        budget = DEFAULT_BUDGET if budget is None else budget
        sections = [] if plain else self.sections()
        if not every_summary:
            floors = self.summary_floors()
            scores = self.scores(scorer, memories=memories, alpha=alpha)
            if floors is not None and all(map(math.isfinite, scores)):
                chunks = self.merged().chunks

                def candidates_of(indices: list[int]) -> list[Candidate]:
                    texts = [summary_input(chunks[i]) for i in indices]
                    return self._candidates(indices, self._summarize_texts(texts, progress), scores)

                return compose_lazy(
                    len(chunks),
                    scores,
                    floors,
                    candidates_of,
                    sections,
                    budget,
                    self.counter,
                    pinned,
                    excluded,
                    headings,
                    plain=plain,
                )
        candidates = self.candidates(scorer, memories=memories, alpha=alpha, progress=progress)
        return compose(
            candidates, sections, budget, self.counter, pinned, excluded, headings, plain=plain
        )

    def sections(self) -> list[Section]:
        """The recap's procedural sections of the log (`engine.recap.sections`), unfitted:
        the same whether tool calls are collapsed or not (a raw parse keeps no messages,
        so they are read once more for the sections, and not kept)."""
        from chunkscope.engine.recap.sections import extract_sections

        def compute() -> list[Section]:
            p = self.params
            if p.collapse:
                source = self.source()
            else:  # raw tool calls: the parse kept no messages; read them once, unkept
                source = load(
                    self.path,
                    strict=p.strict,
                    keep_messages=True,
                    input_format=p.input_format,
                    session=p.session,
                )
            return extract_sections(source.messages, source.notes)

        return self._stage("sections", compute)
