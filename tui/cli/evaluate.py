"""`chunkscope eval FILE --gold GOLD | --queries Q.json`: how well the merged chunks find
the topics, and how well they answer questions.

Runs the pipeline as ``chunk --embed`` does (every chunk, merge and topic option),
then scores the topic starts against the gold segment starts (`engine.evaluate.measure`): Pk
and WindowDiff over characters, the topic starts found against the starts marked (an
over-cutting setting shows there when Pk, its extra pieces small, hides it), boundary
precision, recall and F1 within a tolerance, chunk counts. A partial gold file
(``"partial": true``) is scored over the stretch its starts cover, with the same keys.
With ``--queries`` the merged chunks answer each question through `engine.search`
(``--ranker``, ``--budget``): hit rate at the budget, MRR, recall@5, mean tokens used,
and each query's hit or miss with the rank of the chunk that answers it.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from chunkscope.engine.textutil import plural
from chunkscope.tui.cells import one_line_name
from chunkscope.tui.cli.common import (
    CliError,
    add_embed_args,
    add_gold_args,
    add_profile_option,
    add_queries_args,
    add_source_args,
    build_pipeline,
    emit,
    report_skipped,
    search_params,
)
from chunkscope.tui.cli.strategy import add_strategy_args, strategy_choice

EXAMPLES = (
    "chunkscope eval session.jsonl --gold gold.json",
    "chunkscope eval docs.md --queries questions.json --budget 1000",
    "chunkscope eval session.jsonl --gold gold.json --queries questions.json --format json",
)


def add_eval_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "eval",
        help="score the chunks: topic starts (Pk, F1), questions (hit rate)",
        description=(
            "Merge FILE as `chunk --embed` would, then compare where the merged chunks start "
            'with GOLD: JSON {"starts": [...]} or one 1-based source line a line, where '
            'each topic starts. With {"starts": [...], "partial": true} the starts are some '
            "of the topic starts, every one between the first and the last: the scores are "
            "over that stretch only (cuts outside it are not counted). With --queries Q.json "
            "the merged chunks answer each question as `search` would: the hit rate within "
            "--budget tokens, MRR and recall@5. Give --gold, --queries or both."
        ),
        examples=EXAMPLES,
    )
    add_source_args(p)
    add_gold_args(p, required=False, help="the gold segment starts")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_queries_args(p)
    add_embed_args(p, flag=False)
    add_profile_option(p)
    add_strategy_args(p)
    p.set_defaults(run=cmd_eval)
    return p


def cmd_eval(args: argparse.Namespace) -> int:
    if not args.gold and not args.queries:
        raise CliError("nothing to score against: give --gold GOLD, --queries Q.json or both")
    params = search_params(args)
    if args.gold:  # a gold file that is none is refused before the session is read, as
        # --queries are (walk 50, F10); its lines are checked against the file's later
        from chunkscope.engine.evaluate.gold import read_gold_file

        read_gold_file(args.gold)
    queries = None
    if args.queries:
        from chunkscope.engine.search import load_judged_queries

        queries = load_judged_queries(args.queries)
    pipe, tuning = build_pipeline(args, strategy=strategy_choice(args))
    source = pipe.source()
    report_skipped(source)
    merged = pipe.merged()
    topics = len(merged.topic_spans)
    doc: dict[str, Any] = {}
    name = one_line_name(source.path)  # on one line, as the workbench shows it
    parts: list[str] = [
        f"{name}: {plural(topics, 'topic')} in {plural(len(merged.chunks), 'merged chunk')} "
        f"(merge {tuning.merge.mode}, {pipe.params.embedder.label()})\n"
    ]
    if args.gold:
        doc, text = _gold_scores(args, pipe)
        parts.append(text)
    if queries is not None:
        from chunkscope.engine.search import retrieval_score

        retrieval = retrieval_score(pipe, queries, params)
        doc["retrieval"] = retrieval.as_json()
        parts.append(retrieval_text(retrieval, verbose=True))
    if args.format == "json":
        doc.update(
            topics=topics,
            file_chunks=len(merged.chunks),
            merge=tuning.merge.mode,
            embedder=pipe.params.embedder.label(),
            source=source.path,
        )
        text = json.dumps(doc, indent=2) + "\n"
    else:
        text = "".join(parts)
    emit(args, text)
    return 0


def retrieval_text(score: Any, *, verbose: bool = False) -> str:
    """The retrieval scores as text; `verbose`: a line per query (hit or miss, rank)."""
    from chunkscope.engine.evaluate.measure import SCORE_NAMES as N
    from chunkscope.engine.evaluate.measure import score_text
    from chunkscope.engine.search import RECALL_K

    p = score.params
    lines = [
        f"retrieval   {score.queries} queries, ranker {p.ranker}, budget {p.budget} tokens "
        f"({score.chunks} chunks of {score.mean_chunk_tokens:.0f} tokens on average)",
        f"{N['hit_rate']:<12}{score_text(score.hit_rate)}  (the answer within the budget)",
        f"{N['mrr']:<12}{score_text(score.mrr)}  recall@{RECALL_K} "
        f"{score_text(score.recall_at_k)}  "
        f"mean tokens used {score.mean_used_tokens:.0f}",
    ]
    if score.unanswerable:
        lines.append(
            f"            {score.unanswerable} quer{'ies' if score.unanswerable != 1 else 'y'} "
            "no chunk answers (an answer cut in two, or not in the text)"
        )
    if verbose:
        for o in score.outcomes:
            mark = "hit " if o.hit else "miss"
            rank = f"rank {o.rank}" if o.rank else "unranked"
            lines.append(f"  {mark} {rank:>9}  {o.query.query}")
    return "\n".join(lines) + "\n"


#: What eval's ``cuts`` line counts: topic starts, the file's own start left out.
CUTS_COUNTED = "topic starts; the file's start at line 1 is no cut"


def _gold_scores(args: argparse.Namespace, pipe: Any) -> tuple[dict[str, Any], str]:
    """The topic starts against the gold file: the JSON keys and the text."""
    from chunkscope.engine.evaluate.gold import read_gold_file
    from chunkscope.engine.evaluate.measure import SCORE_NAMES as N
    from chunkscope.engine.evaluate.measure import (
        chunk_starts,
        first_item_line,
        line_weights,
        met_gold,
        score,
        score_text,
    )

    weights = line_weights(args.file)
    gold = read_gold_file(args.gold, lines=len(weights))
    merged = pipe.merged()
    starts = chunk_starts(merged.topic_chunks)
    # a start at or before the first item's line is the file's own start (walk 29, F1)
    marks = met_gold(gold.starts, first_item_line(merged.topic_chunks), partial=gold.partial)
    scores = score(  # the topic starts: the size cap splits topics, never moves them
        starts,
        marks,
        weights,
        chunks=len(merged.chunks),
        tolerance=args.tolerance,
        partial=gold.partial,
    )
    # the topic starts against the marked ones (after line 1; in the stretch if partial)
    lo, hi = scores.stretch if scores.stretch is not None else (2, len(weights))
    cuts = sum(1 for s in starts if s > 1 and lo <= s <= hi)
    marked = sum(1 for g in marks if g > 1)
    doc = {**scores.as_dict(), "tolerance": args.tolerance, "cuts": cuts, "marked_cuts": marked}
    where = ""
    if scores.stretch is not None:
        first, last = scores.stretch
        where = (
            f"partial gold: scored over lines {first}-{last} ({scores.chunks} of the "
            f"topics and {scores.gold_segments} gold segments meet it)\n"
        )
    within = " in the stretch" if scores.stretch is not None else ""
    text = (
        f"{scores.gold_segments} gold segments\n"
        f"{where}"
        f"{N['pk']:<12}{score_text(scores.pk)}  (k = {scores.k:,} chars; 0 is perfect)\n"
        f"{N['windowdiff']:<12}{score_text(scores.windowdiff)}\n"
        f"cuts        {cuts} made, {marked} marked{within}  ({CUTS_COUNTED})\n"
        f"boundaries  {N['precision']} {score_text(scores.precision)}  "
        f"{N['recall']} {score_text(scores.recall)}  {N['f1']} {score_text(scores.f1)}  "
        f"(within {args.tolerance} lines)\n"
    )
    return doc, text
