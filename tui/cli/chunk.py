"""`chunkscope chunk FILE`: parse, split and compact (and with --embed, merge); print
the chunks as text or as the JSON contract."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from chunkscope.engine.chunk.strategies import DEFAULT_STRATEGY
from chunkscope.engine.model import gc_paused
from chunkscope.engine.runjson import add_merge, run_json
from chunkscope.engine.textutil import plural
from chunkscope.tui.cells import one_line_name
from chunkscope.tui.cli.common import (
    CliError,
    SnapshotCheck,
    add_chunks_arg,
    add_embed_args,
    add_profile_option,
    add_snapshot_args,
    add_source_args,
    build_pipeline,
    emit,
    json_pieces,
    report_skipped,
    resolve_latest,
    with_chunk_count,
)
from chunkscope.tui.cli.strategy import (
    SHARED_FLAGS,
    add_strategy_args,
    check_token_cap,
    note_over_cap,
    strategy_choice,
    strategy_json,
)


def add_chunk_parser(sub: Any) -> argparse.ArgumentParser:
    chunk: argparse.ArgumentParser = sub.add_parser(
        "chunk",
        help="parse, split and compact a file; print the chunks",
        examples=(
            "chunkscope chunk sample_logs/cache_refactor.jsonl",
            "chunkscope chunk session.jsonl --embed --format json -o chunks.json",
            "chunkscope chunk sample_logs/shell_cookbook.md --strategy markdown --max-tokens 450",
        ),
    )
    add_source_args(chunk, folders=True)
    chunk.add_argument("--format", choices=("text", "json"), default="text")
    add_embed_args(chunk, flag=True)
    add_profile_option(chunk)
    add_strategy_args(chunk)
    add_snapshot_args(chunk)
    add_chunks_arg(chunk)
    chunk.set_defaults(run=cmd_chunk)
    return chunk


def _chunk_text(
    chunk: Any,
    index: int,
    tokens: int,
    *,
    clock: bool = True,
    part_word: str = "turn",
    note: str = "",
) -> list[str]:
    """A chunk as text: a header line, then its turns (with their clock time unless the
    file is a document, whose turns all carry the file's date)."""
    # a session's chunk counts its turns (the seed's "(k turns)"); a document's, its
    # paragraphs (`Source.part_word`; its turns are sections: the header line counts those)
    parts = plural(len(chunk.turns), part_word)
    when = f"[{chunk.time_range}] " if clock else ""
    out = [f"--- Chunk {index} {when}({parts}, {chunk.chars} chars, {tokens} tokens){note} ---"]
    for t in chunk.turns:
        body = t.text.replace("\n", "\n    ")
        if clock:
            hms = t.timestamp.strftime("%H:%M:%S") if t.timestamp else "--:--:--"
            out.append(f"  {hms} {t.role}: {body}")
        else:
            out.append(f"  {t.role}: {body}")
    return out


#: The flags of `chunk` that set the merge besides its knobs' (`merge_flags`).
_MERGE_OPTIONS = ("--chunks", "--topics", "--merge-max-tokens")


def merge_flags(args: argparse.Namespace) -> list[str]:
    """The flags given that set the merge, which only ``--embed`` runs: ``--merge``, the
    merge's and the topic segmenter's knobs (a strategy's size, ``--max-tokens``, is not
    one), ``--merge-max-tokens``, ``--chunks`` and ``--topics``."""
    from chunkscope.engine.params import knobs
    from chunkscope.engine.segment.merge import MergeParams
    from chunkscope.engine.segment.segmenter import TopicParams

    flags = [
        k.flag
        for cls in (MergeParams, TopicParams)
        for k in knobs(cls)
        if k.flag is not None
        and k.flag not in SHARED_FLAGS
        and getattr(args, k.dest, None) is not None
    ]
    given = [f for f in _MERGE_OPTIONS if getattr(args, f[2:].replace("-", "_"), None) is not None]
    return [*given, *flags]


def cmd_chunk(args: argparse.Namespace) -> int:
    # Tens of thousands of acyclic objects (chunks, their JSON dicts and text): no
    # collector passes over them, as the workbench's load (`engine.model.gc_paused`).
    with gc_paused():
        return _chunk(args)


def _chunk(args: argparse.Namespace) -> int:
    resolve_latest(args)
    if not args.embed:  # without a merge these would change nothing: said, not ignored
        for flag in merge_flags(args):
            raise CliError(f"{flag} sets the merge, which runs only with --embed: add --embed")
        if getattr(args, "strategy", None) is None:
            check_token_cap(args, DEFAULT_STRATEGY)
    pipe, _ = build_pipeline(args, strategy=strategy_choice(args))
    snap = SnapshotCheck(args)
    pipe.prepare()  # the markdown strategy's tokenizer pass runs while the file is parsed
    source = pipe.source()
    report_skipped(source)
    pipe = with_chunk_count(args, pipe)
    chunks = pipe.compacted()
    note_over_cap(pipe, args)
    counter = pipe.counter
    tokens = pipe.token_counts(chunks)
    merged = sims = None
    if args.embed:
        merged = pipe.merged()
        sims = pipe.similarities()

    if args.format == "json":
        doc = run_json(source, pipe.params, counter, chunks, tokens)
        strategy_json(pipe, args, doc)
        if merged is not None and sims is not None:
            add_merge(doc, pipe.params, merged, sims, pipe.token_counts(merged.chunks))
        emit(args, json_pieces(doc), json=True)
        return _finish(snap, pipe, chunks, merged)

    mtokens = pipe.token_counts(merged.chunks) if merged is not None else []
    # Everything that can fail has run: the text is written a chunk at a time.
    emit(args, _chunk_report(args, pipe, source, chunks, tokens, sims, merged, mtokens))
    return _finish(snap, pipe, chunks, merged)


def _finish(snap: SnapshotCheck, pipe: Any, chunks: list[Any], merged: Any) -> int:
    """``--snapshot``/``--check`` on the run's final chunks: the merged ones with
    ``--embed``, the compacted ones without."""
    about = {"source": Path(pipe.path).name, "merge": None, "embedder": None}
    if merged is None:
        return snap.finish(chunks, about)
    about.update(merge=pipe.params.merge.mode, embedder=pipe.params.embedder.label())
    return snap.finish(merged.chunks, about, merged.topic_chunks)


def tool_calls_said(args: argparse.Namespace, pipe: Any, source: Any) -> str:
    """What the header line says of a log's tool calls: collapsed (to how many turns) or
    kept, and the flag that does the other; nothing for a document."""
    from chunkscope.engine.recap.collapse import ACTIONS_APART, COLLAPSE_FLAG, NO_COLLAPSE_FLAG

    if source.kind != "jsonl":
        return ""
    if pipe.params.collapse:
        kept = len(pipe.turns())
        turns = plural(kept, source.turn_word)
        apart = f", {ACTIONS_APART}" if kept > len(source.turns) else ""
        return f"; tool calls collapsed to {turns}{apart} ({NO_COLLAPSE_FLAG} keeps them)"
    if args.collapse is False:
        return f"; tool calls kept as turns ({NO_COLLAPSE_FLAG})"
    return (
        "; tool calls kept as turns, every word findable "
        f"({COLLAPSE_FLAG} collapses them, as the recap and the workbench do)"
    )


def _what_the_chunks_are(
    args: argparse.Namespace, pipe: Any, source: Any, chunks: list[Any]
) -> list[str]:
    """The line that says what the chunks counted are: how many the split gave, where it
    cut (a document's at its headings too, `PipelineParams.split_at`) and the minimum
    they were compacted to. The topic merge (`--embed`, `--merge topic`) splits at every
    message too, with a minimum of its own, so its units are more than the chunks of
    `chunk` alone (or of the seed's merge, `--merge seed`): the line gives both."""
    if not pipe.compacts:
        return []
    n, raw, p, kind = len(chunks), len(pipe.raw_chunks()), pipe.params, source.kind
    if not p.by_message:
        return [
            f"{plural(n, 'chunk')}: {raw} split at {p.split_at(kind)}, compacted to at least "
            f"{p.compact_min} chars (--min-chars)"
        ]
    part = "section" if source.kind == "markdown" else "message"
    alone = pipe.with_params(merges=False)
    seed = pipe.with_params(merge=replace(p.merge, mode="seed"))
    minimum = f"compacted to at least {alone.params.compact_min} chars, --min-chars"
    n_alone = plural(len(alone.compacted()), "chunk")
    if alone.params.split_at(kind) == seed.params.split_at(kind):
        other = (
            f"`chunk` without --embed, and --merge seed: {n_alone}, split at blank lines only "
            f"and {minimum}"
        )
    else:  # a document: `chunk` alone splits at its headings, the seed's merge does not
        other = (
            f"`chunk` without --embed: {n_alone}, split at {alone.params.split_at(kind)}; "
            f"--merge seed: {plural(len(seed.compacted()), 'chunk')}, at blank lines only; "
            f"both {minimum}"
        )
    return [
        f"{plural(n, 'chunk')}: {raw} split at every {part} and blank line, compacted to "
        f"at least {p.compact_min} chars (--topic-unit-chars), so that a topic can start at "
        f"any {part}",
        f"({other})",
    ]


def _chunk_report(
    args: argparse.Namespace,
    pipe: Any,
    source: Any,
    chunks: list[Any],
    tokens: list[int],
    sims: Any,
    merged: Any,
    mtokens: list[int],
) -> Iterator[str]:
    """The text output of `chunkscope chunk`, in pieces of one chunk or so each."""
    from chunkscope.engine.segment.segmenter import splits_below_cap

    counter = pipe.counter
    clock = source.has_clock
    dated = ""
    if not clock:
        from chunkscope.engine.model import first_timestamp

        stamp = first_timestamp(source.turns)
        dated = f" dated {stamp:%Y-%m-%d}," if stamp is not None else ""
    turns = plural(len(source.turns), source.turn_word)
    name = one_line_name(source.path)  # on one line, as the workbench shows it
    head = [
        f"{name}: {source.kind_label},{dated} {turns}, {plural(len(chunks), 'chunk')}, "
        f"tokens by {counter.name} ({counter.accuracy}){tool_calls_said(args, pipe, source)}"
    ]
    if merged is None:
        head += _what_the_chunks_are(args, pipe, source, chunks)
    elif sims is not None:
        if pipe.params.by_message and pipe.compacts:
            head += ["", "=== Before merging: the topic merge's units ==="]
            head += _what_the_chunks_are(args, pipe, source, chunks)
        else:  # the seed's stages (--merge seed): its chunks, as the seed printed them
            head += ["", "=== Before merging ==="]
    yield "\n".join(head) + "\n"
    for i, c in enumerate(chunks):
        lines = ["", *_chunk_text(c, i, tokens[i], clock=clock, part_word=source.part_word)]
        if sims is not None and i < len(sims):
            lines.append(f"  Similarity to next chunk: {sims[i]:.4f}")
        yield "\n".join(lines) + "\n"
    if merged is None:
        return
    emb = pipe.embedder
    lines = ["", f"embedder {emb.name}:{emb.model} ({emb.dim} dims)"]
    for p in merged.passes:
        lines.append(
            f"pass {p.index}: {p.chunks_in} -> {p.chunks_out} chunks, threshold "
            f"{p.threshold:.4f} (mean {p.mean:.4f}, std {p.std:.4f}), {len(p.merged)} merges, "
            f"{len(p.refused_by_cap)} refused by the size cap"
        )
    n_topics = len(merged.topic_spans)
    cap = merged.params
    limit = f"size cap {cap.cap:,} {cap.cap_unit}" if cap.cap is not None else "no size cap"
    target = pipe.params.topic.topic_chunk_tokens
    if pipe.params.merge.mode == "topic" and splits_below_cap(target, cap):
        limit = f"chunks of at most {target:,} tokens; {limit}"
    over = sum(merged.exceeds_limit)
    if over:
        limit += f"; {over} over it, each one unit kept whole"
    lines += [
        "",
        f"=== After merging ({len(merged.chunks)} chunk{'s' if len(merged.chunks) != 1 else ''} "
        f"in {n_topics} topic{'s' if n_topics != 1 else ''}; {limit}) ===",
    ]
    yield "\n".join(lines) + "\n"
    topic_of, flags = merged.topic_of, merged.exceeds_limit
    for i, c in enumerate(merged.chunks):
        note = f" [topic {topic_of[i]}]" + (" [exceeds the size cap]" if flags[i] else "")
        lines = [
            "",
            *_chunk_text(c, i, mtokens[i], clock=clock, part_word=source.part_word, note=note),
        ]
        start, end = merged.spans[i]
        lines.append(f"  Parts: compacted chunks {start}..{end - 1}")
        cut = merged.cut_after(i)
        if cut is not None:
            lines.append(f"  Cut after: {cut}")
        yield "\n".join(lines) + "\n"
