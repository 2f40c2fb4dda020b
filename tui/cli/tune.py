"""`chunkscope tune FILE... --gold GOLD... | --queries Q.json... [--save-profile NAME]`.

Searches a grid of merge (or topic) settings over several labelled files
(`engine.evaluate.measure.tune`): each file is read, split and embedded once, then only the
merge runs at each setting. Settings rank by finding the gold starts first (mean
boundary F1), then mean Pk and WindowDiff (`engine.evaluate.measure.Tuned.objective`); a
partial gold file is scored over the stretch its starts cover. Prints the best few
settings with their scores next to the run's own settings, and with ``--save-profile``
saves the best as a profile that ``chunk``, ``recap``, ``eval`` and the workbench use
(``--profile NAME``). With ``--queries`` (one query file per FILE) the settings rank by
how well their chunks answer the questions instead (`engine.search.tune_retrieval`: mean
hit rate at the budget, then mean MRR), over a grid of the knobs that shape the chunks.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from typing import Any

from chunkscope.engine.evaluate.measure import SCORE_NAMES, grid_size, score_text
from chunkscope.engine.textutil import plural
from chunkscope.tui.cli.common import (
    CliError,
    add_embed_args,
    add_profile_option,
    add_queries_args,
    add_source_args,
    build_pipeline,
    emit,
    note,
    report_skipped,
    search_params,
)

EXAMPLES = (
    "chunkscope tune a.jsonl b.jsonl --gold a.gold.json b.gold.json",
    "chunkscope tune docs.md notes.md --queries docs.q.json notes.q.json --save-profile rag",
    "chunkscope tune a.jsonl --gold a.gold.json --grid topic-depth=5,6,7 --format json",
)

#: At most this many settings in one search (each is one merge per file).
MAX_SETTINGS = 5000


def add_tune_parser(sub: Any) -> argparse.ArgumentParser:
    from chunkscope.engine.evaluate.measure import TUNE_GRIDS
    from chunkscope.engine.search import RETRIEVAL_GRIDS

    def describe(grids: dict[str, dict[str, list[Any]]]) -> str:
        return "; ".join(
            f"{mode}: " + ", ".join(f"{k} {'/'.join(map(str, v))}" for k, v in grid.items())
            for mode, grid in grids.items()
        )

    grids = describe(TUNE_GRIDS)
    p: argparse.ArgumentParser = sub.add_parser(
        "tune",
        help="the settings that best find labelled topics or answers",
        description=(
            "Segment each FILE at every setting of a grid and rank the settings against the "
            "GOLD files (one per FILE, in order): by mean boundary F1 (finding the topic "
            "starts), then mean Pk, then WindowDiff. A partial GOLD "
            '({"starts": [...], "partial": true}) is scored over the stretch it covers. '
            "Default grids: "
            f"{grids}. With --grid NAME=V1,V2 (repeatable) only the knobs named are "
            "searched; the others keep the run's values (flags, --profile, defaults). "
            "With --queries Q.json... (one per FILE) instead of --gold, the settings rank by "
            "the questions their chunks answer: mean hit rate within --budget, then MRR "
            "(the settings in force first unless another answers 2 more questions, or 2 in 100); "
            f"default grids: {describe(RETRIEVAL_GRIDS)}."
        ),
        examples=EXAMPLES,
    )
    add_source_args(p)
    p.add_argument("more", nargs="*", default=[], metavar="FILE", help="more labelled files")
    p.add_argument(
        "--gold",
        nargs="+",
        default=None,
        metavar="GOLD",
        help="the gold segment starts of each FILE, in the same order",
    )
    # its --top is the settings shown: the context's chunks keep their default
    add_queries_args(
        p, many=True, help="the query file of each FILE, in the same order", skip=("top",)
    )
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="search these values of one knob instead of the default grid (repeatable)",
    )
    p.add_argument("--top", type=int, default=5, metavar="N", help="settings shown (5)")
    p.add_argument("--save-profile", metavar="NAME", help="save the best setting as a profile")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_embed_args(p, flag=False)
    add_profile_option(p)
    p.set_defaults(run=cmd_tune)
    return p


def _grid(
    mode: str, overrides: list[str], defaults: dict[str, dict[str, list[Any]]] | None = None
) -> dict[str, list[Any]]:
    """The default grid of `mode` (of `defaults`, else `TUNE_GRIDS`), or the knobs of
    ``--grid NAME=V1,V2`` (checked)."""
    from chunkscope.engine.config.tuning import MODE_PARAMS
    from chunkscope.engine.evaluate.measure import TUNE_GRIDS
    from chunkscope.engine.params import find_knob, knob_map

    own = knob_map(MODE_PARAMS[mode])
    own.pop("mode", None)
    base = (defaults or TUNE_GRIDS)[mode]
    grid = {} if overrides else {k: list(v) for k, v in base.items()}
    for item in overrides:
        name, sep, values = item.partition("=")
        knob = find_knob(name, own.values())
        if not sep or knob is None:
            raise CliError(
                f"--grid {item}: expected NAME=V1,V2 with NAME one of {', '.join(own)} "
                f"(--merge {mode})"
            )
        grid[knob.name] = []
        for v in values.split(","):
            if not v:
                continue
            try:
                value = knob.convert(v)
            except ValueError:  # (Python's `invalid literal for int()`: walk 40, F4)
                raise CliError(f"--grid {item}: expected {knob.expected}, got {v!r}") from None
            try:
                grid[knob.name].append(knob.coerce(value))
            except ValueError as e:
                raise CliError(f"--grid {item}: {e}") from None
        if not grid[knob.name]:
            raise CliError(f"--grid {item}: no values")
    size = grid_size(grid)
    if size > MAX_SETTINGS:
        raise CliError(f"the grid has {size:,} settings; at most {MAX_SETTINGS:,}")
    return grid


def _pipelines(args: argparse.Namespace, files: list[str], pipe: Any) -> list[Any]:
    """A pipeline per file, with the run's options (`pipe` is the first file's)."""
    out = []
    for path in files:
        p = (
            pipe
            if path == args.file
            else build_pipeline(argparse.Namespace(**{**vars(args), "file": path}))[0]
        )
        report_skipped(p.source())
        out.append(p)
    return out


def _save_best(args: argparse.Namespace, tuning: Any, values: Mapping[str, Any]) -> Any:
    """Save the best setting as ``--save-profile``'s profile (its path; None without)."""
    from chunkscope.engine.config.settings import Profile, save_profile

    if not args.save_profile:
        return None
    mode = tuning.merge.mode
    return save_profile(
        args.save_profile, Profile.from_tuning(tuning.with_values({**values, "mode": mode}))
    )


def _ranked(
    title: str,
    header: str,
    names: list[str],
    best: list[Any],
    current: Mapping[str, Any],
    baseline: Any,
    scores: Callable[[Any], str],
) -> str:
    """The text table of a search: a row per setting, best first, then the current one."""

    def row(label: str, values: Mapping[str, Any], t: Any) -> str:
        cells = "  ".join(f"{values[n]!s:>{len(n)}}" for n in names)
        return f"{label:8}{scores(t)}  {cells}"

    lines = [title, "", f"{'':8}{header}  " + "  ".join(names)]
    lines += [row(f"#{i}", t.values, t) for i, t in enumerate(best, 1)]
    lines.append(row("current", current, baseline))
    return "\n".join(lines) + "\n"


def _header(columns: list[tuple[str, int]]) -> str:
    """The table's score columns, each (key, width) under its name (`SCORE_NAMES`)."""
    return "".join(f"{SCORE_NAMES.get(key, key):>{width}}" for key, width in columns)


def _finish(args: argparse.Namespace, text: str, saved: Any) -> int:
    emit(args, text)
    if saved is not None:
        note(
            f"saved profile {args.save_profile!r} to {saved}: "
            f"use it with --profile {args.save_profile}"
        )
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    from chunkscope.engine.config.settings import check_profile_name
    from chunkscope.engine.evaluate.gold import read_gold_file
    from chunkscope.engine.evaluate.measure import (
        Case,
        Tuned,
        line_weights,
        no_mark_found,
        tune,
        tuning_segmenter,
    )

    files = [args.file, *args.more]
    if args.gold and args.queries:
        raise CliError(
            "--gold and --queries: give one of them, not both (tune ranks by one objective; "
            "eval and sweep take both)"
        )
    if not args.gold and not args.queries:
        raise CliError("give --gold GOLD... (topic starts) or --queries Q.json... (questions)")
    labels = args.gold or args.queries
    what = "gold file" if args.gold else "query file"
    if len(labels) != len(files):
        raise CliError(
            f"{plural(len(files), 'file')} but {plural(len(labels), what)}: give one per file"
        )
    if args.top < 1:
        raise CliError(f"--top {args.top}: at least 1")
    if args.save_profile:
        check_profile_name(args.save_profile)
    pipe, tuning = build_pipeline(args)
    mode = tuning.merge.mode
    if mode == "seed" and tuning.merge.max_chunk_tokens is not None:
        raise CliError("tune searches the seed loop with a size cap in chars: drop --max-tokens")
    if args.queries:
        return _tune_queries(args, files, pipe, tuning)
    grid = _grid(mode, args.grid)
    cases = []
    for path, gold_path, p in zip(files, args.gold, _pipelines(args, files, pipe), strict=True):
        weights = line_weights(path)
        gold = read_gold_file(gold_path, lines=len(weights))
        cases.append(
            Case(p.compacted(), p.embeddings(), list(gold.starts), weights, partial=gold.partial)
        )

    segmenter = tuning_segmenter(tuning, mode)

    in_force = tuning.values()
    current = {k: in_force[k] for k in grid}
    baseline = tune(cases, segmenter, {k: [v] for k, v in current.items()}, top=1)[0]
    best = tune(cases, segmenter, grid, top=args.top, prefer=current)
    settings = grid_size(grid)

    saved = _save_best(args, tuning, best[0].values)

    partial = sum(c.partial for c in cases)

    def entry(t: Tuned) -> dict[str, Any]:
        scores = {k: round(v, 6) for k, v in t._asdict().items() if k not in ("values", "chunks")}
        return {"values": t.values, **scores, "chunks": round(t.chunks, 3)}

    if args.format == "json":
        doc = {
            "merge": mode,
            "embedder": pipe.params.embedder.label(),
            "files": files,
            "partial": [c.partial for c in cases],
            "settings": settings,
            "current": entry(baseline),
            "best": [entry(t) for t in best],
            "profile": args.save_profile,
        }
        text = json.dumps(doc, indent=2) + "\n"
    else:
        scope = f"; {partial} partial, over their marked stretch" if partial else ""
        segments = "topics" if mode == "topic" else "chunks"  # the segments scored
        text = _ranked(
            f"tune: {settings:,} settings of --merge {mode} on {plural(len(files), 'file')} "
            f"({pipe.params.embedder.label()}{scope}), by mean F1, then Pk",
            _header([("f1", 6), ("recall", 8), ("pk", 8), ("windowdiff", 12), (segments, 8)]),
            list(grid),
            best,
            current,
            baseline,
            lambda t: (
                f"{score_text(t.f1):>6}{score_text(t.recall):>8}{score_text(t.pk):>8}"
                f"{score_text(t.windowdiff):>12}"
                f"{t.chunks:8.4g}"
            ),
        )
    marks = sum(1 for c in cases for line in set(c.gold) if line > 1)
    said = no_mark_found([*best, baseline], grid, marks)
    if said is not None and args.format == "json":
        note(said)
    elif said is not None:
        text += "\n" + said + "\n"
    return _finish(args, text, saved)


def _tune_queries(args: argparse.Namespace, files: list[str], pipe: Any, tuning: Any) -> int:
    """``tune --queries``: the settings whose chunks answer the questions best."""
    from chunkscope.engine.search import (
        RECALL_K,
        RETRIEVAL_GRIDS,
        RetrievalTuned,
        load_judged_queries,
        tune_retrieval,
    )
    from chunkscope.engine.search.tune import min_gain

    mode = tuning.merge.mode
    grid = _grid(mode, args.grid, RETRIEVAL_GRIDS)
    params = search_params(args)
    queries_of = [load_judged_queries(q) for q in args.queries]
    cases = list(zip(_pipelines(args, files, pipe), queries_of, strict=True))
    in_force = tuning.values()
    current = {k: in_force[k] for k in grid}
    baseline = tune_retrieval(cases, tuning, {k: [v] for k, v in current.items()}, params)[0]
    best = tune_retrieval(cases, tuning, grid, params, top=args.top, prefer=current)
    settings = grid_size(grid)
    saved = _save_best(args, tuning, best[0].values)
    queries = sum(len(qs) for _, qs in cases)

    def entry(t: RetrievalTuned) -> dict[str, Any]:
        return {
            "values": t.values,
            **{k: round(v, 6) for k, v in t._asdict().items() if k != "values"},
        }

    if args.format == "json":
        doc = {
            "merge": mode,
            "embedder": pipe.params.embedder.label(),
            "files": files,
            "queries": queries,
            "ranker": params.ranker,
            "budget": params.budget,
            "settings": settings,
            "current": entry(baseline),
            "best": [entry(t) for t in best],
            "profile": args.save_profile,
        }
        text = json.dumps(doc, indent=2) + "\n"
    else:
        text = _ranked(
            f"tune: {settings:,} settings of --merge {mode} on {plural(len(files), 'file')}, "
            f"{queries} queries (ranker {params.ranker}, budget {params.budget} tokens), "
            "by mean hit rate, then MRR; the settings in force first unless one answers "
            f"{min_gain(queries)} more questions",
            _header(
                [
                    ("hit_rate", 9),
                    ("mrr", 7),
                    (f"recall@{RECALL_K}", 10),
                    ("tokens", 8),
                    ("chunks", 8),
                ]
            ),
            list(grid),
            best,
            current,
            baseline,
            lambda t: (
                f"{score_text(t.hit_rate):>9}{score_text(t.mrr):>7}{score_text(t.recall_at_k):>10}"
                f"{t.mean_chunk_tokens:8.0f}{t.chunks:8.4g}"
            ),
        )
    return _finish(args, text, saved)
