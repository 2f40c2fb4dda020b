"""The `chunkscope` command: the workbench, and plain-text / JSON subcommands.

One module per subcommand (`chunk`, `recap`, `report`, `evaluate` for ``eval``, `search`,
`sweep`, `tune`, `cache`, `profile`, `workbench` for ``tui``, `serve`, `hook`, `review`,
`completion`), and `common` for what they share.
Subcommands are imported when the parser is built (``hook`` skips that). Each subcommand
imports only what it needs: `chunk` never loads Textual, and the OpenAI client loads
only when a remote backend is chosen. Every error a user can cause is one line on stderr and exit
status 2, never a traceback. The workbench never imports this package.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.tui.cli.common import (
    EXIT_USAGE,
    LATE_POSITIONAL,
    CliError,
    Parser,
    json_pieces,
    note,
)

__all__ = ["CliError", "build_parser", "json_pieces", "main"]

#: `chunkscope`'s own options; any other leading option is the workbench's (`tui`).
VERSION_FLAGS = ("-V", "--version")
TOP_OPTIONS = ("-h", "--help", *VERSION_FLAGS)

SUBCOMMANDS = (
    "tui",
    "chunk",
    "recap",
    "search",
    "report",
    "serve",
    "eval",
    "sweep",
    "tune",
    "hook",
    "review",
    "profile",
    "cache",
    "completion",
)

USAGE = """chunkscope [FILE | DIR] [options]   the workbench (options: tui --help)
       chunkscope COMMAND ...            (see chunkscope COMMAND --help)"""

EXAMPLES = (
    "chunkscope sample_logs/cache_refactor.jsonl",
    "chunkscope recap session.jsonl -o _recap.md",
    'chunkscope search session.jsonl "why did the migration fail?"',
)


class _Version(argparse.Action):
    """``-V`` / ``--version``: the installed version, looked up only when asked for (the
    package metadata costs tens of milliseconds that no other command should pay)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help="print the version"
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from chunkscope.engine import __version__

        assert isinstance(parser, Parser)
        parser.print_and_exit(f"chunkscope {__version__}\n")  # on stdout, as argparse's does


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The `chunkscope` parser; with `only`, a subcommand's name, the parser of that
    subcommand alone: it parses that subcommand's command lines as the whole parser
    does, without importing the others (``completion`` needs them all)."""
    # The subcommands are imported here, not at the top: `chunkscope hook` (run by an
    # agent tool at every session start) skips this parser and all of them.
    parser = _top_parser()
    sub = parser.add_subparsers(**_SUB_OPTIONS)
    if only is not None and only in _ADDERS:
        _add(only, sub)
        return parser
    for name in SUBCOMMANDS:  # the order --help lists them in
        if name == "completion":
            from chunkscope.tui.cli.completion import add_completion_parser

            add_completion_parser(sub, parser)
        else:
            _add(name, sub)
    return parser


def _top_parser() -> Parser:
    parser = Parser(
        prog="chunkscope",
        usage=USAGE,
        description=(
            "A workbench for the chunking pipeline of agent session logs and markdown. "
            "`chunkscope FILE` opens the workbench; the subcommands print plain text or JSON."
        ),
        examples=EXAMPLES,
    )
    parser.add_argument(*VERSION_FLAGS, action=_Version)
    return parser


_SUB_OPTIONS: dict[str, Any] = {
    "title": "commands",
    "prog": "chunkscope",
    "dest": "command",
    "metavar": "COMMAND",
    "parser_class": Parser,
}


#: The module of `tui.cli` and the function that adds each subcommand's parser but
#: ``completion``'s (which takes the whole parser too).
_ADDERS: dict[str, tuple[str, str]] = {
    "tui": ("workbench", "add_tui_parser"),
    "chunk": ("chunk", "add_chunk_parser"),
    "recap": ("recap", "add_recap_parser"),
    "search": ("search", "add_search_parser"),
    "report": ("report", "add_report_parser"),
    "serve": ("serve", "add_serve_parser"),
    "eval": ("evaluate", "add_eval_parser"),
    "sweep": ("sweep", "add_sweep_parser"),
    "tune": ("tune", "add_tune_parser"),
    "hook": ("hook", "add_hook_parser"),
    "review": ("review", "add_review_parser"),
    "profile": ("profile", "add_profile_parser"),
    "cache": ("cache", "add_cache_parser"),
}


def _add(name: str, sub: Any) -> None:
    """Add subcommand `name`'s parser to `sub`, importing its module."""
    import importlib

    module, function = _ADDERS[name]
    getattr(importlib.import_module(f"chunkscope.tui.cli.{module}"), function)(sub)


def _normalise_argv(argv: Sequence[str]) -> list[str]:
    """`chunkscope FILE`, `chunkscope --latest`, `chunkscope --theme NAME ...` (any of the
    workbench's options) and bare `chunkscope` mean `chunkscope tui ...`."""
    argv = list(argv)
    if not argv or argv[0] not in (*SUBCOMMANDS, *TOP_OPTIONS):
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
    try:
        return _main(argv)
    except BrokenPipeError:  # a reader that left (`| head`): nothing more to say
        return 0


def _main(argv: Sequence[str] | None) -> int:
    args_list = _normalise_argv(sys.argv[1:] if argv is None else argv)
    run: Callable[[argparse.Namespace], int] | None
    if args_list[0] == "hook":
        # The fast path of an agent tool's hooks: only `tui.cli.hook` is imported.
        from chunkscope.tui.cli.hook import cmd_hook, hook_parser

        args = hook_parser().parse_args(args_list[1:])
        run = cmd_hook
    else:
        parser = build_parser(only=args_list[0])
        args, extra = parser.parse_known_args(args_list)
        late = getattr(args, LATE_POSITIONAL, None)
        if late and getattr(args, late) is None and len(extra) == 1 and extra[0][:1] != "-":
            # an optional positional written after the options (`search DIR --latest Q`):
            # argparse fills it, empty, with the one before them (walk 20, F2)
            setattr(args, late, extra.pop())
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        run = getattr(args, "run", None)
        if run is None:
            parser.print_help()
            return EXIT_USAGE
        args.command_line = args_list  # the command as run (the report shows it)
    _tolerant_output()
    try:
        return run(args)
    except (CliError, ChunkscopeError) as e:
        # One readable line, whatever the message quotes (a server's error text, a file
        # name): no terminal escape sequences, no line breaks.
        from chunkscope.engine.textutil import strip_control

        note(" ".join(strip_control(str(e)).splitlines()).replace("\t", " "))
        return EXIT_USAGE
    except KeyboardInterrupt:
        note("interrupted")
        return 130
    except BrokenPipeError:
        raise
    except Exception as e:  # a bug: one line and the path of a full report
        from chunkscope.tui.crash import EXIT_CRASH, crash_message, write_report

        note(crash_message(e, write_report(e)))
        return EXIT_CRASH


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
