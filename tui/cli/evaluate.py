"""`chunkscope eval FILE --gold GOLD`: how well the merged chunks find the topics.

Runs the pipeline as ``chunk --embed`` does (every chunk, merge and topic option),
then scores the merged chunks' starts against the gold segment starts
(`engine.evaluate`): Pk and WindowDiff over characters, boundary precision, recall
and F1 within a tolerance, chunk counts. A partial gold file (``"partial": true``) is
scored over the stretch its starts cover, with the same keys.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tui.cli.common import (
    add_embed_args,
    add_gold_args,
    add_profile_option,
    add_source_args,
    build_pipeline,
    report_skipped,
    safe,
)


def add_eval_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "eval",
        help="score the merged chunks against gold topic starts (Pk, WindowDiff, F1)",
        description=(
            "Merge FILE as `chunk --embed` would, then compare where the merged chunks start "
            'with GOLD: JSON {"starts": [...]} or one 1-based source line a line, where '
            'each topic starts. With {"starts": [...], "partial": true} the starts are some '
            "of the topic starts, every one between the first and the last: the scores are "
            "over that stretch only (cuts outside it are not counted)."
        ),
    )
    add_source_args(p)
    add_gold_args(p, required=True, help="the gold segment starts")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_embed_args(p, flag=False)
    add_profile_option(p)
    p.set_defaults(run=cmd_eval)
    return p


def cmd_eval(args: argparse.Namespace) -> int:
    from engine.evaluate import chunk_starts, line_weights, score
    from engine.gold import read_gold_file

    pipe, tuning = build_pipeline(args)
    source = pipe.source()
    report_skipped(source)
    weights = line_weights(args.file)
    gold = read_gold_file(args.gold, lines=len(weights))
    merged = pipe.merged()
    topics = len(merged.topic_spans)
    scores = score(  # the topic starts: the size cap splits topics, never moves them
        chunk_starts(merged.topic_chunks),
        gold.starts,
        weights,
        chunks=len(merged.chunks),
        tolerance=args.tolerance,
        partial=gold.partial,
    )
    if args.format == "json":
        doc = {
            **scores.as_dict(),
            "topics": topics,
            "file_chunks": len(merged.chunks),
            "tolerance": args.tolerance,
            "merge": tuning.merge.mode,
            "embedder": pipe.params.embedder.label(),
            "source": source.path,
        }
        text = json.dumps(doc, indent=2) + "\n"
    else:
        where = ""
        if scores.stretch is not None:
            first, last = scores.stretch
            where = (
                f"partial gold: scored over lines {first}-{last} ({scores.chunks} of the "
                f"topics and {scores.gold_segments} gold segments meet it)\n"
            )
        text = (
            f"{source.path}: {topics} topic{'s' if topics != 1 else ''} in {len(merged.chunks)} "
            f"merged chunks, {scores.gold_segments} gold segments "
            f"(merge {tuning.merge.mode}, {pipe.params.embedder.label()})\n"
            f"{where}"
            f"Pk          {scores.pk:.4f}  (k = {scores.k:,} chars; 0 is perfect)\n"
            f"WindowDiff  {scores.windowdiff:.4f}\n"
            f"boundaries  precision {scores.precision:.3f}  recall {scores.recall:.3f}  "
            f"F1 {scores.f1:.3f}  (within {args.tolerance} lines)\n"
        )
    sys.stdout.write(safe(text, sys.stdout))
    return 0
