"""`chunkscope report FILE -o REPORT.html`: a run as one self-contained page to share.

Runs the recap pipeline as `chunkscope recap` does (every option of `recap`, and
`chunk`'s ``--strategy``; ``--gold`` scores the merged chunks as `eval` does), then
writes the page of `tui.report` atomically. Without ``-o`` the page goes to stdout,
unless stdout is a terminal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from chunkscope.tui.cli.common import (
    NO_FILE,
    CliError,
    add_gold_args,
    add_queries_args,
    emit,
    search_params,
)
from chunkscope.tui.cli.recap import add_recap_args, recap_notes, run_recap
from chunkscope.tui.cli.strategy import add_strategy_args, strategy_choice


def add_report_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "report",
        help="a run as one self-contained HTML page: chunks, cuts, recap",
        description=(
            "Chunk, merge, summarize and recap FILE as `chunkscope recap` does, and write "
            "one HTML page that needs nothing else to open (no network, no script): the "
            "file's facts and parameters, a plot of the similarity along the file with the "
            "cuts, the merged chunks with their sizes and cut reasons, and the recap with "
            "what fit the budget. --gold adds the score and the gold marks; --queries the "
            "questions the merged chunks answer (hit rate within 1,000 tokens, MRR)."
        ),
        examples=(
            "chunkscope report sample_logs/cache_refactor.jsonl -o report.html",
            "chunkscope report session.jsonl --merge seed --budget 600 --gold gold.json -o r.html",
            "chunkscope report docs.md --queries questions.json -o docs.html",
        ),
    )
    add_recap_args(p)
    add_gold_args(p, required=False, help="gold topic starts to score against and to mark")
    # --budget is the recap's here: the search context keeps its default
    add_queries_args(p, skip=("budget",))
    add_strategy_args(p)
    p.add_argument(
        "--full-path",
        action="store_true",
        help="show the input's full path on the page (default: its name; paths on the "
        "command line shown that are absolute or outside the current folder by their name)",
    )
    p.set_defaults(run=cmd_report)
    return p


def _given_paths(args: argparse.Namespace) -> list[str]:
    """The paths given on the command line (the input, -o, --gold, --queries, --memories:
    every argument `PATH_ARGS` names), which the page shows by their names only."""
    from chunkscope.tui.cli.completion import PATH_ARGS

    out: list[str] = []
    for arg in PATH_ARGS:
        value = getattr(args, arg.lstrip("-").replace("-", "_"), None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and path:
                out.append(path)
    given = getattr(args, "latest_from", None)  # FILE was a folder --latest looked in
    if isinstance(given, str) and given:
        out.append(given)
    return out


#: The options a page's figures depend on, each said with its value when given.
_FIGURE_OPTIONS = (
    "chunks",
    "topics",
    "queries",
    "ranker",
    "top",
    "enrich",
    "adjacent",
    "neighbours",
    "profile",
)


def _given_flags(args: argparse.Namespace) -> list[str]:
    """The options given that are not knobs (the command the page shows repeats the
    knobs from their values): the reader, the tokenizer, the backends, the strategy."""
    out: list[str] = ["--strict"] if args.strict else []
    for dest in (
        "input_format",
        "session",
        "tokenizer",
        "embedder",
        "model",
        "summarizer",
        "summary_model",
        "strategy",
    ):
        value = getattr(args, dest, None)
        if value is not None:
            out += [f"--{dest.replace('_', '-')}", str(value)]
    if getattr(args, "collapse", None) is not None:
        out.append("--collapse" if args.collapse else "--no-collapse")
    for flag in ("headings", "no_cache"):
        if getattr(args, flag, False):
            out.append(f"--{flag.replace('_', '-')}")
    if getattr(args, "gold", None) is not None:
        out += ["--gold", str(args.gold)]
        from chunkscope.engine.evaluate.measure import TOLERANCE

        if args.tolerance != TOLERANCE:
            out += ["--tolerance", str(args.tolerance)]
    # the options a page's figures depend on, when given (walk 28, F6)
    for dest in _FIGURE_OPTIONS:
        value = getattr(args, dest, None)
        if value is not None:
            out += [f"--{dest}", str(value)]
    if getattr(args, "dedup", False):
        from chunkscope.engine.chunk.strategies.dedup import COSINE_THRESHOLD

        out.append("--dedup")  # the threshold when given (walk 29: said, not given)
        if args.dedup_threshold != COSINE_THRESHOLD:
            out += ["--dedup-threshold", str(args.dedup_threshold)]
    if getattr(args, "full_path", False):
        out.append("--full-path")
    if args.strategy is not None:
        from chunkscope.engine.chunk.strategies import param_specs
        from chunkscope.tui.cli.strategy import _flag_dest

        for spec in param_specs(args.strategy):
            given = getattr(args, _flag_dest(spec.flag), None) if spec.flag else None
            if spec.flag and given not in (None, False):
                out += [spec.flag] if given is True else [spec.flag, str(given)]
    return out


def cmd_report(args: argparse.Namespace) -> int:
    from chunkscope.engine.evaluate.gold import read_gold_file
    from chunkscope.tui.report import gather, render_html

    if args.file is None and not args.latest:
        raise CliError(NO_FILE)
    if not args.output and sys.stdout.isatty():
        raise CliError("give -o REPORT.html (the page is HTML, not for a terminal)")
    gold = None
    partial = False
    weights = None
    if args.gold is not None:
        from chunkscope.engine.evaluate.measure import line_weights

        if args.latest:
            raise CliError("--gold scores one file: give the file, not --latest")
        weights = line_weights(args.file)
        found = read_gold_file(args.gold, lines=len(weights))
        gold, partial = list(found.starts), found.partial
    queries = None
    if args.queries:
        from chunkscope.engine.search import load_judged_queries

        if args.latest:
            raise CliError("--queries asks about one file: give the file, not --latest")
        queries = load_judged_queries(args.queries)
    searching = search_params(args)
    run = run_recap(args, strategy=strategy_choice(args))
    command = None
    argv = getattr(args, "command_line", None)
    paths = _given_paths(args)
    if argv is not None:
        from chunkscope.tui.report import command_as_run

        command = command_as_run(argv, [p for p in paths if p], args.full_path)
    report = gather(
        run.pipe,
        run.source,
        run.merged,
        run.selection,
        run.tuning,
        gold=gold,
        partial=partial,
        tolerance=args.tolerance,
        extra_args=_given_flags(args),
        weights=weights,
        queries=queries,
        search=searching,
        command=command,
        full_path=args.full_path,
        output=args.output,
        paths=paths,
    )
    emit(args, render_html(report))
    recap_notes(run)
    return 0
