"""`chunkscope recap FILE`: the session recap on the command line.

Runs the recap pipeline (collapse tool calls, chunk, compact, embed + merge,
summarize, score, select within the token budget) and prints the recap, or
writes it atomically to ``-o PATH``. Progress and messages go to stderr only.

Model options: ``--model`` / ``--base-url`` come from the shared merge options
and name the *embedding* model when ``--embedder openai``. The summarizer has
its own ``--summary-model`` / ``--summary-base-url``. For the reference's
``mindloop-recap --model M`` habit, when ``--summarizer llm`` is used with the
offline (lexical) embedder, ``--model`` / ``--base-url`` name the summarizer's
model and endpoint instead (nothing else could use them). When both stages are
remote, ``--summary-base-url`` defaults to ``--base-url`` and
``--summary-model`` is required.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkscope.engine.read.source import HEAD_BYTES, binary_reason, read_side_file
from chunkscope.engine.textutil import plural
from chunkscope.tui.cli.common import (
    CliError,
    SnapshotCheck,
    add_chunks_arg,
    add_embed_args,
    add_knob_flags,
    add_profile_option,
    add_snapshot_args,
    add_source_args,
    build_pipeline,
    note,
    read_settings,
    report_skipped,
    resolve_latest,
    with_chunk_count,
    write_out,
)

if TYPE_CHECKING:
    from chunkscope.engine.config.settings import Settings
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.pipeline import Pipeline, SummarizerSpec
    from chunkscope.engine.read.parse import Source
    from chunkscope.engine.recap.core import Selection
    from chunkscope.engine.segment.merge import MergeResult


def _int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {n}")
        return n

    return parse


_positive_int = _int_at_least(1)


def _indices(value: str) -> list[int]:
    out: list[int] = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            out.append(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected chunk indices like 3 or 1,4, got {value!r}"
            ) from None
    return out


def add_recap_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``recap`` subcommand to `sub` (the subparsers of the main parser)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "recap",
        help="summarize a session log into a recap within a token budget",
        description=(
            "Collapse tool calls, chunk, merge, summarize and pick the highest-scoring "
            "summaries that fit the token budget; print the recap (or write it with -o)."
        ),
        examples=(
            "chunkscope recap sample_logs/cache_refactor.jsonl",
            "chunkscope recap ~/.claude/projects/my-project --latest -o _recap.md",
            "chunkscope recap session.jsonl --budget 600 --format json",
        ),
    )
    g = add_recap_args(p)
    g.add_argument("--format", choices=("markdown", "json"), default="markdown")
    add_snapshot_args(p)
    p.set_defaults(run=cmd_recap)
    return p


def add_recap_args(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Every option of a run of the recap pipeline (`run_recap`): the source, the
    recap's knobs and summarizer, pins and exclusions, the embedder and merge, the
    profile, ``--chunks``. Returns the "recap" group (a command adds its output
    options there)."""
    from chunkscope.engine.recap.core import RecapParams
    from chunkscope.engine.summarize import SUMMARIZERS

    add_source_args(p, folders=True, purpose="recap")
    g = p.add_argument_group("recap")
    add_knob_flags(g, [RecapParams])
    g.add_argument(
        "--summarizer",
        choices=SUMMARIZERS,
        default=None,
        help=f"{SUMMARIZERS[0]} (offline, default) or llm (an OpenAI-compatible chat endpoint); "
        "default: the config file's [summarizer]",
    )
    g.add_argument(
        "--summary-model",
        default=None,
        metavar="M",
        help="chat model of the llm summarizer (also --model with the lexical embedder)",
    )
    g.add_argument(
        "--summary-base-url",
        default=None,
        metavar="URL",
        help="endpoint of the llm summarizer (default: --base-url, then $OPENAI_BASE_URL)",
    )
    g.add_argument(
        "--workers",
        type=_positive_int,
        default=4,
        metavar="N",
        help="chunks summarized at once by the llm summarizer (4)",
    )
    g.add_argument(
        "--headings",
        action="store_true",
        help="put a '## HH:MM:SS - HH:MM:SS' heading above each paragraph",
    )
    g.add_argument(
        "--pin",
        type=_indices,
        action="append",
        default=[],
        metavar="I[,J]",
        help="merged chunk(s) to keep first (repeatable)",
    )
    g.add_argument(
        "--exclude",
        type=_indices,
        action="append",
        default=[],
        metavar="I[,J]",
        help="merged chunk(s) never to include (repeatable)",
    )
    g.add_argument(
        "--memories",
        default=None,
        metavar="PATH",
        help="salience: a text file of existing memories, one per line (novelty)",
    )
    add_embed_args(p, flag=False)
    add_profile_option(p)
    add_chunks_arg(p)
    return g


def _summarizer_spec(
    args: argparse.Namespace, settings: Settings
) -> tuple[SummarizerSpec, str | None, argparse.Namespace]:
    """The summarizer spec, its key, and the arguments left for the embedder."""
    from chunkscope.engine.config.settings import resolve_backend
    from chunkscope.engine.pipeline import SummarizerSpec

    embed_args = argparse.Namespace(**vars(args))
    backend = resolve_backend(
        "summarizer", args.summarizer, default=SummarizerSpec().name, settings=settings
    )
    name = backend.name
    model = args.summary_model or backend.model
    base_url = args.summary_base_url or backend.base_url
    if name == "llm":
        remote_embedder = args.embedder is not None and args.embedder != "lexical"
        if not remote_embedder:
            model = model or args.model
            base_url = base_url or args.base_url
            embed_args.model = None
            embed_args.base_url = None
        else:
            base_url = base_url or args.base_url
        if not model:
            hint = "--summary-model" if remote_embedder else "--summary-model (or --model)"
            raise CliError(f"--summarizer llm needs a chat model: give {hint}")
    elif model or base_url:
        note("--summary-model/--summary-base-url apply to --summarizer llm only; ignored")
        model = base_url = None
    spec = SummarizerSpec(
        name=name,
        model=model,
        base_url=base_url,
        workers=args.workers,
        use_cache=not args.no_cache,
    )
    return spec, backend.api_key, embed_args


def _read_memories(path: str | None) -> tuple[str, ...]:
    if path is None:
        return ()
    try:
        raw = read_side_file(path)
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror or e}") from None
    # refused as every input is (walk 21, F6: a program's bytes were scored as memories)
    reason = binary_reason(raw[:HEAD_BYTES], "a memories file")
    if reason is not None:
        raise CliError(f"{path}: {reason}")
    lines = io.StringIO(raw.decode("utf-8", errors="replace"), newline=None)  # as open() reads
    return tuple(line.strip() for line in lines if line.strip())


def _check_indices(name: str, values: list[int], n: int) -> tuple[int, ...]:
    for i in values:
        if not 0 <= i < n:
            where = f"0..{n - 1}" if n else "none"
            raise CliError(f"--{name} {i}: no merged chunk {i} (there are {n}: {where})")
    return tuple(dict.fromkeys(values))


def _check_pin_exclude(args: argparse.Namespace) -> None:
    """A chunk both pinned and excluded is refused: one of them would be ignored."""
    pinned = {i for group in args.pin for i in group}
    both = sorted(pinned & {i for group in args.exclude for i in group})
    if both:
        which = ", ".join(map(str, both))
        raise CliError(f"--pin and --exclude both name chunk {which}: give each chunk one")


class _Progress:
    """Summarizing progress on stderr: a live counter on a terminal, else nothing."""

    def __init__(self) -> None:
        self.live = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.live and total:
            sys.stderr.write(f"\rchunkscope: summarizing {done}/{total} chunks")
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _write(args: argparse.Namespace, text: str) -> None:
    if args.output:
        from chunkscope.engine.fileio import cannot_write
        from chunkscope.engine.recap.core import save_recap

        try:
            save_recap(args.output, text)
        except OSError as e:
            raise CliError(cannot_write(args.output, e)) from None
        note(f"wrote {args.output}")
        return
    write_out(text, json=args.format == "json")


@dataclass(frozen=True)
class RecapRun:
    """What one run of the recap pipeline gives: the pipeline (with the parameters it
    ran with), its parameters, the source, the merge and the selection."""

    pipe: Pipeline
    tuning: Tuning
    source: Source
    merged: MergeResult
    selection: Selection


def run_recap(
    args: argparse.Namespace,
    strategy: tuple[str, tuple[tuple[str, Any], ...]] | None = None,
    every_summary: bool = True,
) -> RecapRun:
    """Run the recap pipeline as `chunkscope recap` does:
    collapse, chunk (with `strategy`, else the default), merge, summarize, select.
    `recap_notes` says what it kept, once the output is written. Without
    `every_summary`, only the chunks that could be in the recap are summarized (the
    same recap; the selection lists only those: `Pipeline.recap`)."""
    resolve_latest(args)
    _check_pin_exclude(args)
    settings = read_settings()
    spec, key, embed_args = _summarizer_spec(args, settings)
    pipe, tuning = build_pipeline(
        embed_args,
        settings=settings,
        summarizer=spec,
        summarizer_key=key,
        strategy=strategy,
    )
    recap = tuning.recap
    memories = _read_memories(args.memories)
    salience = recap.scorer == "salience"
    if (memories or recap.alpha) and not salience:
        note("--memories/--alpha apply to --scorer salience only; ignored")
    try:
        source = pipe.source()
        report_skipped(source)
        pipe = with_chunk_count(args, pipe)
        merged = pipe.merged()
        n = len(merged.chunks)
        pinned = _check_indices("pin", [i for group in args.pin for i in group], n)
        excluded = _check_indices("exclude", [i for group in args.exclude for i in group], n)
        progress = _Progress()
        try:
            selection = pipe.recap(
                budget=recap.budget,
                scorer=recap.scorer,
                pinned=pinned,
                excluded=excluded,
                headings=args.headings,
                memories=memories if salience else (),
                alpha=recap.alpha if salience else 0.0,
                progress=progress,
                plain=recap.plain,
                every_summary=every_summary,
            )
        finally:
            progress.close()
    except ValueError as e:
        raise CliError(str(e)) from None
    return RecapRun(pipe, tuning, source, merged, selection)


def recap_notes(run: RecapRun) -> None:
    """What the recap kept, on stderr (after the output is written)."""
    pipe, selection, n = run.pipe, run.selection, len(run.merged.chunks)
    counter = pipe.counter
    kept = len(selection.selected)
    flagged = sum(1 for c in selection.candidates if c.summary.flagged)
    note(
        f"recap: {kept} of {n} summaries, {selection.used_tokens}/{selection.budget} tokens "
        f"({counter.name}, {counter.accuracy})"
    )
    empty = sum(1 for c in selection.candidates if c.reason == "no summary")
    empty += selection.unlisted_empty
    if empty:
        from chunkscope.engine.recap.core import NO_SUMMARY_WHY

        note(f"{plural(empty, 'merged chunk')} with no summary, {NO_SUMMARY_WHY}: not in the recap")
    if flagged:
        note(
            f"{flagged} summar{'y' if flagged == 1 else 'ies'} could not be parsed from the "
            "model's replies; the extractive summary stands in"
        )
    if selection.empty_why:
        note(selection.empty_why)
    if selection.newest_over_budget:
        note(
            f"the newest summary alone is over the budget ({selection.used_tokens} > "
            f"{plural(selection.budget, 'token')}); it is included anyway"
        )


def cmd_recap(args: argparse.Namespace) -> int:
    snap = SnapshotCheck(args)
    # the JSON lists every candidate with its summary; the text needs only those it shows
    run = run_recap(args, every_summary=args.format == "json")
    selection = run.selection
    if args.format == "json":
        # what of the file was read, as chunk's JSON says it
        doc = {**selection.as_dict(), **run.source.reading()}
        _write(args, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    else:
        _write(args, selection.text)
    recap_notes(run)
    pipe = run.pipe
    about = {
        "source": Path(pipe.path).name,
        "merge": pipe.params.merge.mode,
        "embedder": pipe.params.embedder.label(),
    }
    return snap.finish(run.merged.chunks, about, run.merged.topic_chunks)
