"""The `chunkscope` command: the workbench, and plain-text / JSON subcommands.

Each subcommand imports only what it needs: `chunk` never loads Textual, and
the OpenAI client loads only when a remote backend is chosen. Every error a
user can cause is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TextIO

from engine import __version__
from engine.errors import ChunkscopeError

EXIT_USAGE = 2
SUBCOMMANDS = ("chunk", "recap", "cache", "profile", "tui")


class CliError(Exception):
    """A user-facing error: printed as ``chunkscope: message``, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see --help)\n")


# --------------------------------------------------------------------------- output helpers


def _safe(text: str, stream: TextIO) -> str:
    """Neutralise terminal escape sequences when writing log text to a terminal."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        from engine.textutil import strip_control

        return strip_control(text)
    return text


def _emit(args: argparse.Namespace, text: str | Iterable[str]) -> None:
    """Write a command's output (one string, or pieces written as they come) to -o
    (atomically) or stdout."""
    out = getattr(args, "output", None)
    if out:
        from engine.fileio import atomic_write_text

        try:
            atomic_write_text(out, text)
        except OSError as e:
            raise CliError(f"cannot write {out}: {e.strerror or e}") from None
        print(f"chunkscope: wrote {out}", file=sys.stderr)
    else:
        for piece in [text] if isinstance(text, str) else text:
            sys.stdout.write(_safe(piece, sys.stdout))
        sys.stdout.flush()


def json_pieces(doc: dict[str, Any]) -> Iterator[str]:
    """``json.dumps(doc, ensure_ascii=False, indent=2) + "\\n"``, in pieces: a top-level
    list goes out one element at a time, so a large document is never one string."""

    def nested(value: Any, depth: int) -> str:
        # json.dumps escapes newlines inside strings: every raw newline is layout.
        return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + "  " * depth)

    if not doc:
        yield "{}\n"
        return
    yield "{\n"
    last = len(doc) - 1
    for k, (key, value) in enumerate(doc.items()):
        end = ",\n" if k < last else "\n"
        prefix = f"  {json.dumps(key, ensure_ascii=False)}: "
        if isinstance(value, list) and value:
            yield prefix + "[\n"
            final = len(value) - 1
            for j, item in enumerate(value):
                yield "    " + nested(item, 2) + (",\n" if j < final else "\n")
            yield "  ]" + end
        else:
            yield prefix + nested(value, 1) + end
    yield "}\n"


def _note(message: str) -> None:
    print(f"chunkscope: {message}", file=sys.stderr)


def _report_skipped(source: Any) -> None:
    if source.skipped:
        first = source.skipped[0]
        n = len(source.skipped)
        _note(
            f"skipped {n} malformed line{'s' if n != 1 else ''} "
            f"(first: {source.path}:{first.line}: {first.reason})"
        )
    for w in source.warnings[:3]:
        _note(f"{source.path}:{w.line}: {w.reason}")


def _iso(ts: Any) -> str | None:
    return ts.isoformat() if ts is not None else None


# --------------------------------------------------------------------------- arguments


def _add_source_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a JSONL agent log or a markdown file")
    p.add_argument("--strict", action="store_true", help="stop at the first malformed line")
    p.add_argument(
        "--min-chars", type=int, default=None, metavar="N", help="compaction minimum (80)"
    )
    p.add_argument("--tokenizer", default=None, metavar="ENC", help="tiktoken encoding")
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of stdout")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chunkscope",
        description=(
            "A workbench for the chunking pipeline of agent session logs and markdown. "
            "`chunkscope FILE` opens the workbench; the subcommands print plain text or JSON."
        ),
    )
    parser.add_argument("--version", action="version", version=f"chunkscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    from tui.cli_profile import add_profile_option, add_profile_parser

    chunk = sub.add_parser("chunk", help="parse, split and compact a file; print the chunks")
    _add_source_args(chunk)
    chunk.add_argument("--format", choices=("text", "json"), default="text")
    _add_embed_args(chunk, flag=True)
    add_profile_option(chunk)
    chunk.set_defaults(run=cmd_chunk)

    cache = sub.add_parser("cache", help="show or clear the on-disk embedding/summary cache")
    cache.add_argument("action", choices=("info", "clear"))
    cache.add_argument("--format", choices=("text", "json"), default="text")
    cache.set_defaults(run=cmd_cache)
    add_profile_parser(sub)
    from tui.cli_recap import add_recap_parser

    add_profile_option(add_recap_parser(sub))
    from tui.cli_tui import add_tui_parser

    add_tui_parser(sub)
    from tui.cli_strategy import add_strategy_args

    add_strategy_args(chunk)
    return parser


# --------------------------------------------------------------------------- merge options


def _float_or_adaptive(value: str) -> str | float:
    if value == "adaptive":
        return value
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'adaptive' or a number, got {value!r}"
        ) from None


def _add_embed_args(p: argparse.ArgumentParser, *, flag: bool) -> None:
    g = p.add_argument_group("embedding and merging")
    if flag:
        g.add_argument("--embed", action="store_true", help="embed the chunks and merge them")
    g.add_argument(
        "--embedder",
        choices=("lexical", "openai"),
        default=None,
        help="lexical (offline, default) or an OpenAI-compatible endpoint",
    )
    g.add_argument("--model", default=None, help="embedding model of the openai backend")
    g.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)",
    )
    g.add_argument(
        "--threshold",
        type=_float_or_adaptive,
        default=None,
        metavar="adaptive|X",
        help="adaptive (mean - std_k * std) or a fixed similarity",
    )
    g.add_argument("--std-k", type=float, default=None, metavar="K", help="adaptive k (0.5)")
    g.add_argument(
        "--always-merge",
        type=float,
        default=None,
        metavar="X",
        help="similarity that always merges (0.8)",
    )
    cap = g.add_mutually_exclusive_group()
    cap.add_argument(
        "--max-chars",
        type=int,
        default=None,
        metavar="N",
        help="size cap of a merged chunk in chars (8192)",
    )
    cap.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        metavar="N",
        help="size cap of a merged chunk in tokens (also a strategy's size with --strategy)",
    )
    g.add_argument(
        "--merge-max-tokens",
        type=int,
        default=None,
        metavar="N",
        help="size cap of a merged chunk in tokens, for the merge only (wins over --max-tokens)",
    )
    g.add_argument(
        "--max-passes",
        type=int,
        default=None,
        metavar="N",
        help="stop after N passes (default: to the fixed point)",
    )
    g.add_argument(
        "--min-similarity", type=float, default=None, metavar="X", help="pairs below X never merge"
    )
    g.add_argument("--no-cache", action="store_true", help="do not use the on-disk cache")


def _merge_params(args: argparse.Namespace, base: Any = None) -> Any:
    from engine.merge import MergeParams

    base = base or MergeParams()
    changes: dict[str, Any] = {}
    for arg, fieldname in (
        ("threshold", "threshold"),
        ("std_k", "std_k"),
        ("always_merge", "always_merge"),
        ("max_passes", "max_passes"),
        ("min_similarity", "min_similarity"),
    ):
        value = getattr(args, arg, None)
        if value is not None:
            changes[fieldname] = value
    if getattr(args, "max_chars", None) is not None:
        changes["max_chunk_chars"] = args.max_chars
        changes["max_chunk_tokens"] = None
    if getattr(args, "max_tokens", None) is not None:
        changes["max_chunk_tokens"] = args.max_tokens
    merge_tokens = getattr(args, "merge_max_tokens", None)
    if merge_tokens is not None:
        if getattr(args, "max_chars", None) is not None:
            raise CliError("--merge-max-tokens and --max-chars both set the merge's size cap")
        changes["max_chunk_tokens"] = merge_tokens
    try:
        from dataclasses import replace

        return replace(base, **changes)
    except ValueError as e:
        raise CliError(str(e)) from None


def _pipeline(args: argparse.Namespace, *, collapse: bool = False) -> Any:
    from engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
    from engine.tokens import DEFAULT_ENCODING
    from tui.cli_profile import apply_profile

    if getattr(args, "profile", None) and getattr(args, "loaded_profile", None) is None:
        apply_profile(args)
    profile = getattr(args, "loaded_profile", None)

    min_chars = 80 if args.min_chars is None else args.min_chars
    if min_chars < 0:
        raise CliError("--min-chars must be 0 or more")
    backend = configured_backend(
        "embedder",
        getattr(args, "embedder", None),
        getattr(args, "model", None),
        getattr(args, "base_url", None),
        default="lexical",
    )
    spec = EmbedderSpec(
        name=backend.name,
        model=backend.model,
        base_url=backend.base_url,
        use_cache=not getattr(args, "no_cache", False),
    )
    params = PipelineParams(
        strict=args.strict,
        collapse=collapse,
        min_chars=min_chars,
        tokenizer=args.tokenizer or DEFAULT_ENCODING,
        embedder=spec,
        merge=_merge_params(args, profile.to_merge_params() if profile is not None else None),
    )
    keys = {
        "embedder": backend.api_key,
        "summarizer": getattr(args, "summarizer_api_key", None),
    }
    return Pipeline(args.file, params, warn=_note, api_keys=keys)


@dataclass(frozen=True)
class Backend:
    """A stage's backend after flags and the config file are combined."""

    name: str
    model: str | None
    base_url: str | None
    api_key: str | None = field(default=None, repr=False)


def configured_backend(
    section: str,
    name: str | None,
    model: str | None,
    base_url: str | None,
    *,
    default: str,
    settings: Any = None,
) -> Backend:
    """Flags win; the config file's ``[embedder]`` / ``[summarizer]`` fills what they leave.

    The config's model, URL and key apply only while the backend is the one it names, so
    ``--embedder lexical`` never inherits an OpenAI model.
    """
    from engine.settings import load_settings

    cfg = getattr(settings if settings is not None else load_settings(), section)
    chosen = name or cfg.name or default
    same = cfg.name is None or cfg.name == chosen
    return Backend(
        name=chosen,
        model=model or (cfg.model if same else None),
        base_url=base_url or (cfg.base_url if same else None),
        api_key=cfg.api_key if same else None,
    )


def _merge_json(params: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(params)


# --------------------------------------------------------------------------- chunk


def _chunk_json(chunk: Any, index: int, tokens: int) -> dict[str, Any]:
    lines = chunk.lines
    return {
        "index": index,
        "text": chunk.text,
        "chars": chunk.chars,
        "tokens": tokens,
        "start": _iso(chunk.start),
        "end": _iso(chunk.end),
        "lines": list(lines) if lines else None,
        "turn_count": len(chunk.turns),
    }


def _chunk_text(chunk: Any, index: int, tokens: int) -> list[str]:
    n = len(chunk.turns)
    out = [
        f"--- Chunk {index} [{chunk.time_range}] ({n} turn{'s' if n != 1 else ''}, "
        f"{chunk.chars} chars, {tokens} tokens) ---"
    ]
    for t in chunk.turns:
        hms = t.timestamp.strftime("%H:%M:%S") if t.timestamp else "--:--:--"
        body = t.text.replace("\n", "\n    ")
        out.append(f"  {hms} {t.role}: {body}")
    return out


def cmd_chunk(args: argparse.Namespace) -> int:
    from tui.cli_strategy import apply_strategy, strategy_json

    pipe = apply_strategy(_pipeline(args), args)
    source = pipe.source()
    _report_skipped(source)
    chunks = pipe.compacted()
    counter = pipe.counter
    tokens = pipe.token_counts(chunks)
    merged = sims = None
    if args.embed:
        merged = pipe.merged()
        sims = pipe.similarities()

    if args.format == "json":
        doc: dict[str, Any] = {
            "source": source.path,
            "kind": source.kind,
            "turns": len(source.turns),
            "skipped_lines": [p.as_dict() for p in source.skipped],
            "warnings": [p.as_dict() for p in source.warnings],
            "tokenizer": {"name": counter.name, "accuracy": counter.accuracy},
            "params": {"min_chars": pipe.params.min_chars, "strict": args.strict},
            "chunks": [_chunk_json(c, i, tokens[i]) for i, c in enumerate(chunks)],
        }
        strategy_json(pipe, args, doc)
        if merged is not None and sims is not None:
            doc["params"]["embedder"] = pipe.params.embedder.label()
            doc["params"]["merge"] = _merge_json(pipe.params.merge)
            doc["similarities"] = [round(float(x), 6) for x in sims]
            doc["merge"] = {
                "passes": len(merged.passes),
                "thresholds": [round(t, 6) for t in merged.thresholds],
                "cuts": [
                    {
                        "after": c.after,
                        "reason": c.reason,
                        "similarity": round(c.similarity, 6),
                        "threshold": round(c.threshold, 6),
                    }
                    for c in merged.cuts
                ],
            }
            mtokens = pipe.token_counts(merged.chunks)
            doc["merged"] = [
                {**_chunk_json(c, i, mtokens[i]), "parts": list(range(*merged.spans[i]))}
                for i, c in enumerate(merged.chunks)
            ]
        _emit(args, json_pieces(doc))
        return 0

    mtokens = pipe.token_counts(merged.chunks) if merged is not None else []
    # Everything that can fail has run: the text is written a chunk at a time.
    _emit(args, _chunk_report(pipe, source, chunks, tokens, sims, merged, mtokens))
    return 0


def _chunk_report(
    pipe: Any,
    source: Any,
    chunks: list[Any],
    tokens: list[int],
    sims: Any,
    merged: Any,
    mtokens: list[int],
) -> Iterator[str]:
    """The text output of `chunkscope chunk`, in pieces of one chunk or so each."""
    counter = pipe.counter
    head = [
        f"{source.path}: {source.kind}, {len(source.turns)} turns, {len(chunks)} chunks, "
        f"tokens by {counter.name} ({counter.accuracy})"
    ]
    if merged is not None and sims is not None:
        head += ["", "=== Before merging ==="]
    yield "\n".join(head) + "\n"
    for i, c in enumerate(chunks):
        lines = ["", *_chunk_text(c, i, tokens[i])]
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
    lines += ["", f"=== After merging ({len(merged.chunks)} chunks) ==="]
    yield "\n".join(lines) + "\n"
    for i, c in enumerate(merged.chunks):
        lines = ["", *_chunk_text(c, i, mtokens[i])]
        start, end = merged.spans[i]
        lines.append(f"  Parts: compacted chunks {start}..{end - 1}")
        cut = merged.cut_after(i)
        if cut is not None:
            lines.append(f"  Cut after: {cut}")
        yield "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- cache


def cmd_cache(args: argparse.Namespace) -> int:
    from engine.embed.cache import EmbeddingCache

    with EmbeddingCache(warn=_note) as cache:
        if args.action == "clear":
            removed = cache.clear()
            print(f"removed {removed} entries from {cache.path}")
            return 0
        info = cache.info()
    if args.format == "json":
        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"cache: {info['path']}" + ("" if info["persistent"] else " (in memory)"))
    print(f"size: {info['size_bytes'] / 1024:.1f} KiB")
    for row in info["vectors"]:
        print(f"  {row['count']:>8} vectors  {row['backend']}:{row['model']} ({row['dim']} dims)")
    print(f"  {info['json_entries']:>8} other entries (summaries)")
    return 0


# --------------------------------------------------------------------------- entry point


def _normalise_argv(argv: Sequence[str]) -> list[str]:
    """`chunkscope FILE` and bare `chunkscope` mean `chunkscope tui [FILE]`."""
    argv = list(argv)
    if not argv or (argv[0] not in SUBCOMMANDS and not argv[0].startswith("-")):
        return ["tui", *argv]
    return argv


def _tolerant_output() -> None:
    """Text a terminal or pipe cannot encode (an ASCII or Latin-1 locale, a Windows console)
    is shown as ``?`` instead of ending the command with a UnicodeEncodeError traceback.
    UTF-8 streams are left as they are; ``-o`` files are always UTF-8."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        reconfigure = getattr(stream, "reconfigure", None)
        if encoding != "utf8" and getattr(stream, "errors", None) == "strict" and reconfigure:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = _normalise_argv(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_list)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return EXIT_USAGE
    _tolerant_output()
    try:
        return run(args)
    except (CliError, ChunkscopeError) as e:
        # One readable line, whatever the message quotes (a server's error text, a file
        # name): no terminal escape sequences, no line breaks.
        from engine.textutil import strip_control

        _note(" ".join(strip_control(str(e)).splitlines()).replace("\t", " "))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _note("interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
