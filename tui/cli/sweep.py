"""`chunkscope sweep FILE --param NAME [--gold GOLD]`: one knob across its range.

Runs the pipeline once (chunks and vectors), then the merge at each value of one merge
or topic knob (`engine.pipeline.Pipeline.with_params` shares every memo, so only the
merge runs again), and prints the merged chunk count at each value, with Pk,
WindowDiff and boundary F1 when a gold file is given: a table, and a plot of each
column drawn in the terminal (`engine.evaluate.measure.sparkline`); with ``--queries Q.json``
the hit rate and MRR of the questions at each value (`engine.search`). The range is the
knob's slider range unless ``--from``/``--to`` say otherwise.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from chunkscope.engine.params import Knob
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

EXAMPLES = (
    "chunkscope sweep sample_logs/architecture_guide.md --param topic-depth",
    "chunkscope sweep docs.md --param topic-chunk-tokens --queries questions.json",
    "chunkscope sweep notes.md --param max-chars --merge seed --from 512 --to 8192 --points 9",
)

#: At most this many points (each is one merge run).
MAX_POINTS = 500
DEFAULT_POINTS = 20


def _sweepable() -> dict[str, tuple[Knob, str]]:
    from chunkscope.engine.evaluate.measure import sweepable_knobs

    return sweepable_knobs()


def add_sweep_parser(sub: Any) -> argparse.ArgumentParser:
    names = ", ".join(_sweepable())
    p: argparse.ArgumentParser = sub.add_parser(
        "sweep",
        help="chunk count, Pk or hit rate across one knob's range",
        description=(
            "Merge FILE at each value of one knob and print the merged chunk count (with "
            "--gold: Pk, WindowDiff and boundary F1) as a table and as terminal plots. "
            f"Knobs: {names}. A seed-loop knob sweeps with --merge seed, a topic knob "
            "with --merge topic, the size cap in the mode in force. With --queries: the "
            "hit rate and MRR of the questions."
        ),
        examples=EXAMPLES,
    )
    add_source_args(p)
    p.add_argument("--param", required=True, metavar="NAME", help="the knob to move (name or flag)")
    p.add_argument("--from", dest="start", type=float, metavar="X", help="first value")
    p.add_argument("--to", dest="stop", type=float, metavar="X", help="last value")
    p.add_argument(
        "--points",
        type=int,
        default=DEFAULT_POINTS,
        metavar="N",
        help=f"values, evenly spaced (default {DEFAULT_POINTS}, at most {MAX_POINTS})",
    )
    add_gold_args(p, required=False, help="gold segment starts: adds Pk, WindowDiff, F1")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_queries_args(p)
    add_embed_args(p, flag=False)
    add_profile_option(p)
    p.set_defaults(run=cmd_sweep)
    return p


def _find_knob(name: str) -> tuple[Knob, str]:
    from chunkscope.engine.params import find_knob

    known = _sweepable()
    knob = find_knob(name, (k for k, _ in known.values()))
    if knob is not None:
        return known[knob.name]
    raise CliError(f"--param {name}: not a knob a sweep can move; one of: {', '.join(known)}")


def sweep_values(knob: Knob, start: float | None, stop: float | None, points: int) -> list[Any]:
    """`points` values of `knob` from `start` to `stop` (`engine.evaluate.measure.knob_values`)."""
    from chunkscope.engine.evaluate.measure import knob_values

    if not 2 <= points <= MAX_POINTS:
        raise CliError(f"--points {points}: between 2 and {MAX_POINTS}")
    try:
        return knob_values(knob, start, stop, points)
    except ValueError as e:
        raise CliError(f"--param {knob.name}: {e}") from None


def cmd_sweep(args: argparse.Namespace) -> int:
    from chunkscope.engine.config.tuning import SHARED_KNOBS
    from chunkscope.engine.evaluate.gold import read_gold_file
    from chunkscope.engine.evaluate.measure import (
        chunk_starts,
        first_item_line,
        line_weights,
        marked_stretch,
        met_gold,
        score,
    )
    from chunkscope.engine.params import knob_map, replace_knobs
    from chunkscope.engine.segment.merge import MergeParams

    knob, mode = _find_knob(args.param)
    mode_flag = getattr(args, knob_map(MergeParams)["mode"].dest, None)
    shared = knob.name in SHARED_KNOBS  # the size cap: swept in the mode in force
    if not shared and mode_flag is not None and mode_flag != mode:
        raise CliError(f"--param {knob.name} acts in --merge {mode}, not --merge {mode_flag}")
    values = sweep_values(knob, args.start, args.stop, args.points)
    searching = search_params(args)
    queries = None
    if args.queries:
        from chunkscope.engine.search import load_judged_queries

        queries = load_judged_queries(args.queries)
    pipe, _ = build_pipeline(args)
    if shared:
        mode = pipe.params.merge.mode
    pipe = pipe.with_params(merge=replace(pipe.params.merge, mode=mode))
    source = pipe.source()
    report_skipped(source)
    weights = line_weights(args.file) if args.gold else None
    gold = read_gold_file(args.gold, lines=len(weights)) if weights is not None else None
    rows: list[dict[str, Any]] = []
    for v in values:
        p = pipe.with_params(
            merge=replace_knobs(pipe.params.merge, {knob.name: v}),
            topic=replace_knobs(pipe.params.topic, {knob.name: v}),
        )
        result = p.merged()
        merged, topics = result.chunks, result.topic_chunks
        row: dict[str, Any] = {"value": v, "chunks": len(merged), "topics": len(topics)}
        if gold is not None and weights is not None:  # the topic starts are scored
            s = score(
                chunk_starts(topics),
                met_gold(gold.starts, first_item_line(topics), partial=gold.partial),
                weights,
                chunks=len(merged),
                tolerance=args.tolerance,
                partial=gold.partial,
            )
            row.update(pk=round(s.pk, 6), windowdiff=round(s.windowdiff, 6), f1=round(s.f1, 6))
        if queries is not None:
            from chunkscope.engine.search import retrieval_score

            r = retrieval_score(p, queries, searching)
            row.update(hit_rate=round(r.hit_rate, 6), mrr=round(r.mrr, 6))
        rows.append(row)
    stretch = None
    if gold is not None and weights is not None and gold.partial:
        stretch = marked_stretch(gold.starts, len(weights), args.tolerance)
    if args.format == "json":
        doc: dict[str, Any] = {
            "param": knob.name,
            "merge": mode,
            "embedder": pipe.params.embedder.label(),
            "source": source.path,
            "points": rows,
        }
        if stretch is not None:
            doc["stretch"] = list(stretch)  # partial gold: the lines scored
        if queries is not None:
            doc["search"] = {"ranker": searching.ranker, "budget": searching.budget}
        text = json.dumps(doc, indent=2) + "\n"
    else:
        text = _table(knob, mode, source.path, pipe.params.embedder.label(), rows)
        if stretch is not None:
            text += f"partial gold: scored over lines {stretch[0]}-{stretch[1]}\n"
    emit(args, text)
    return 0


def _table(knob: Knob, mode: str, path: str, embedder: str, rows: list[dict[str, Any]]) -> str:
    from chunkscope.engine.evaluate.measure import SCORE_NAMES, score_text, sparkline

    cols = [
        c
        for c in ("chunks", "topics", "pk", "windowdiff", "f1", "hit_rate", "mrr")
        if c in rows[0] and (c != "topics" or mode == "topic")  # the seed's are its chunks
    ]
    shown = [f"{r['value']:g}" for r in rows]
    width = max(len(knob.name), *(len(v) for v in shown))
    name = one_line_name(path)  # on one line, as the workbench shows it
    lines = [f"{name}: {knob.name} across {len(rows)} values (merge {mode}, {embedder})", ""]
    names = {c: SCORE_NAMES.get(c, c) for c in cols}
    lines.append(f"{knob.name:>{width}}  " + "  ".join(f"{names[c]:>10}" for c in cols))
    for r, value in zip(rows, shown, strict=True):
        cells = [
            f"{r[c]:>10,}" if isinstance(r[c], int) else f"{score_text(r[c]):>10}" for c in cols
        ]
        lines.append(f"{value:>{width}}  " + "  ".join(cells))
    lines.append("")
    first, last = shown[0], shown[-1]
    for c in cols:
        series = [float(r[c]) for r in rows]
        counts = all(isinstance(r[c], int) for r in rows)  # the range as the table says it
        low, high = (f"{v:,.0f}" if counts else score_text(v) for v in (min(series), max(series)))
        lines.append(
            f"{names[c]:>10}  {sparkline(series, len(series))}  "
            f"{low} .. {high}  ({knob.name} {first} -> {last})"
        )
    return "\n".join(lines) + "\n"
