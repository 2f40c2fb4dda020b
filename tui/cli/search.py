"""`chunkscope search FILE QUERY`: the file's chunks ranked for a question, and the
context they make under a token budget.

The chunks are the merged chunks of a ``chunk --embed`` run with the same options
(every chunk, strategy, merge, topic and profile option applies); `engine.search`
ranks them (``--ranker``) and takes them in order while they fit ``--budget`` tokens,
never more. ``--queries Q.json`` asks many questions in one run; where they say what
answers them, the run is also scored (hit rate, MRR, recall@k), as ``eval --queries``.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from chunkscope.tui.cli.common import (
    LATE_POSITIONAL,
    CliError,
    add_embed_args,
    add_profile_option,
    add_queries_args,
    add_source_args,
    build_pipeline,
    emit,
    json_pieces,
    report_skipped,
    resolve_latest,
    search_params,
)
from chunkscope.tui.cli.strategy import add_strategy_args, strategy_choice

EXAMPLES = (
    'chunkscope search sample_logs/cache_refactor.jsonl "how are the vectors stored in SQLite?"',
    'chunkscope search docs.md "how do I turn the cache off" --budget 500 --format json',
    "chunkscope search session.jsonl --queries questions.json --ranker fusion",
)

#: Lines of each chunk the text output shows.
PREVIEW_LINES = 3


def add_search_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "search",
        help="the chunks that answer a question, within a token budget",
        description=(
            "Chunk and merge FILE as `chunk --embed` would, rank the merged chunks for "
            "QUERY and print what a context of --budget tokens would receive: the best "
            "chunks in rank order while they fit (a top chunk's neighbours in its topic "
            "count too), never over the budget. With --queries Q.json "
            '({"queries": [{"query": "...", "answers": ["exact text"]}]}) every query is '
            "answered, and scored where it says what answers it."
        ),
        examples=EXAMPLES,
    )
    add_source_args(p, folders=True, file_optional=False)  # FILE QUERY: FILE comes first
    p.add_argument("query", nargs="?", default=None, help="the question (or use --queries)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_queries_args(p, help="many questions, scored where they say what answers them")
    add_embed_args(p, flag=False)
    add_profile_option(p)
    add_strategy_args(p)
    p.set_defaults(run=cmd_search, **{LATE_POSITIONAL: "query"})
    return p


def _queries(args: argparse.Namespace) -> list[Any]:
    from chunkscope.engine.search import Query, load_queries

    if args.queries and args.query:
        raise CliError("give a QUERY or --queries Q.json, not both")
    if args.queries:
        return load_queries(args.queries)
    if not args.query or not args.query.strip():
        raise CliError("no question: give a QUERY or --queries Q.json")
    return [Query(args.query.strip())]


def _preview(text: str, width: int = 96) -> list[str]:
    """The first lines of a result, each shortened to `width` visible characters: split at
    newlines only (a carriage return inside a line is not a line break, as `chunk` shows
    it), escape sequences and control characters left out before the cut, so the cut
    counts what a terminal shows (walk 13, 8). The whole text is in ``--format json``."""
    from chunkscope.engine.textutil import strip_control

    lines = [ln for ln in (strip_control(ln) for ln in text.split("\n")) if ln.strip()]
    return [textwrap.shorten(ln, width, placeholder=" …") for ln in lines[:PREVIEW_LINES]]


def _lines(lines: tuple[int, int] | None) -> str:
    if not lines:
        return "-"
    return f"{lines[0]}" if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


def answer_text(answer: Any, chunks: int) -> str:
    """One answer as the text output shows it."""
    out = [
        f"query: {answer.query.query}",
        f"context: {answer.used_tokens} of {answer.budget} tokens, "
        f"{len(answer.results)} of {chunks} chunks",
    ]
    if not answer.results and answer.left_out is None:  # else the rest note says why
        out.append("  (no chunk matches)")
    if answer.rest_note:
        out.append(f"  ({answer.rest_note})")
    if answer.order_notes:
        out.append(f"  ({answer.order_notes[0]})")
    for r in answer.results:
        how = f"  beside #{r.via}" if r.via is not None else ""
        cut = "  [cut to the budget]" if r.truncated else ""
        out.append(
            f"{r.rank:>3}. score {r.score:.3f}  chunk #{r.chunk}  topic {r.topic}  "
            f"lines {_lines(r.lines)}  {r.tokens} tokens{how}{cut}"
        )
        out.extend(f"       {ln}" for ln in _preview(r.text))
    return "\n".join(out) + "\n"


def score_text(score: Any) -> str:
    from chunkscope.engine.search import RECALL_K

    return (
        f"scored {score.queries} queries (ranker {score.params.ranker}, budget "
        f"{score.params.budget}): hit rate {score.hit_rate:.3f}  MRR {score.mrr:.3f}  "
        f"recall@{RECALL_K} {score.recall_at_k:.3f}  mean tokens used "
        f"{score.mean_used_tokens:.0f}  ({score.chunks} chunks of "
        f"{score.mean_chunk_tokens:.0f} tokens on average)\n"
    )


def cmd_search(args: argparse.Namespace) -> int:
    from chunkscope.engine.search import score_queries

    resolve_latest(args)
    queries = _queries(args)
    params = search_params(args)
    pipe, _ = build_pipeline(args, strategy=strategy_choice(args))
    report_skipped(pipe.source())
    index = pipe.search_index()
    judged = [q for q in queries if q.judged]
    score = score_queries(index, judged, params) if judged else None
    answers = index.search_many(queries, params)
    if args.format == "json":
        doc: dict[str, Any] = {
            "source": pipe.source().path,
            "ranker": params.ranker,
            "budget": params.budget,
            "chunks": len(index.chunks),
            "queries": [a.as_json() for a in answers],
        }
        if score is not None:
            doc["score"] = {k: v for k, v in score.as_json().items() if k != "per_query"}
            by_query = {id(o.query): o for o in score.outcomes}
            for q, entry in zip(queries, doc["queries"], strict=True):
                o = by_query.get(id(q))
                if o is not None:
                    entry.update(hit=o.hit, rank=o.rank)
        emit(args, json_pieces(doc), json=True)
        return 0
    parts = [answer_text(a, len(index.chunks)) for a in answers]
    if score is not None:
        parts.append(score_text(score))
    emit(args, "\n".join(parts))
    return 0
