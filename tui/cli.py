"""The `chunkscope` command: the workbench, and plain-text / JSON subcommands.

Each subcommand imports only what it needs: `chunk` never loads Textual, and
the OpenAI client loads only when a remote backend is chosen. Every error a
user can cause is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
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


def _emit(args: argparse.Namespace, text: str) -> None:
    """Write a command's output to -o (atomically) or stdout."""
    out = getattr(args, "output", None)
    if out:
        from engine.fileio import atomic_write_text

        try:
            atomic_write_text(out, text)
        except OSError as e:
            raise CliError(f"cannot write {out}: {e.strerror or e}") from None
        print(f"chunkscope: wrote {out}", file=sys.stderr)
    else:
        sys.stdout.write(_safe(text, sys.stdout))
        sys.stdout.flush()


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

    chunk = sub.add_parser("chunk", help="parse, split and compact a file; print the chunks")
    _add_source_args(chunk)
    chunk.add_argument("--format", choices=("text", "json"), default="text")
    chunk.set_defaults(run=cmd_chunk)
    return parser


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
    from engine.parse import load
    from engine.split import chunk_turns, compact_chunks
    from engine.tokens import DEFAULT_ENCODING, get_counter

    min_chars = 80 if args.min_chars is None else args.min_chars
    if min_chars < 0:
        raise CliError("--min-chars must be 0 or more")
    source = load(args.file, strict=args.strict)
    _report_skipped(source)
    chunks = compact_chunks(chunk_turns(source.turns), min_chars)
    counter = get_counter(args.tokenizer or DEFAULT_ENCODING)
    tokens = counter.count_many([c.text for c in chunks])

    if args.format == "json":
        doc = {
            "source": source.path,
            "kind": source.kind,
            "turns": len(source.turns),
            "skipped_lines": [p.as_dict() for p in source.skipped],
            "warnings": [p.as_dict() for p in source.warnings],
            "tokenizer": {"name": counter.name, "accuracy": counter.accuracy},
            "params": {"min_chars": min_chars, "strict": args.strict},
            "chunks": [_chunk_json(c, i, tokens[i]) for i, c in enumerate(chunks)],
        }
        _emit(args, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return 0

    lines = [
        f"{source.path}: {source.kind}, {len(source.turns)} turns, {len(chunks)} chunks, "
        f"tokens by {counter.name} ({counter.accuracy})"
    ]
    for i, c in enumerate(chunks):
        lines.append("")
        lines.extend(_chunk_text(c, i, tokens[i]))
    _emit(args, "\n".join(lines) + "\n")
    return 0


# --------------------------------------------------------------------------- entry point


def _normalise_argv(argv: Sequence[str]) -> list[str]:
    """`chunkscope FILE` and bare `chunkscope` mean `chunkscope tui [FILE]`."""
    argv = list(argv)
    if not argv or (argv[0] not in SUBCOMMANDS and not argv[0].startswith("-")):
        return ["tui", *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    args_list = _normalise_argv(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_list)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return run(args)
    except (CliError, ChunkscopeError) as e:
        _note(str(e))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _note("interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
