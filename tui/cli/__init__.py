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
from chunkscope.tui.cli.common import EXIT_USAGE, CliError, Parser, json_pieces, note

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

        print(f"chunkscope {__version__}")  # on stdout, as argparse's version action does
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    # The subcommands are imported here, not at the top: `chunkscope hook` (run by an
    # agent tool at every session start) skips this parser and all of them.
    from chunkscope.tui.cli.cache import add_cache_parser
    from chunkscope.tui.cli.chunk import add_chunk_parser
    from chunkscope.tui.cli.completion import add_completion_parser
    from chunkscope.tui.cli.evaluate import add_eval_parser
    from chunkscope.tui.cli.hook import add_hook_parser
    from chunkscope.tui.cli.profile import add_profile_parser
    from chunkscope.tui.cli.recap import add_recap_parser
    from chunkscope.tui.cli.report import add_report_parser
    from chunkscope.tui.cli.review import add_review_parser
    from chunkscope.tui.cli.search import add_search_parser
    from chunkscope.tui.cli.serve import add_serve_parser
    from chunkscope.tui.cli.sweep import add_sweep_parser
    from chunkscope.tui.cli.tune import add_tune_parser
    from chunkscope.tui.cli.workbench import add_tui_parser

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
    sub = parser.add_subparsers(
        title="commands", prog="chunkscope", dest="command", metavar="COMMAND", parser_class=Parser
    )
    # in the order of SUBCOMMANDS, which is the order --help lists them in
    add_tui_parser(sub)
    add_chunk_parser(sub)
    add_recap_parser(sub)
    add_search_parser(sub)
    add_report_parser(sub)
    add_serve_parser(sub)
    add_eval_parser(sub)
    add_sweep_parser(sub)
    add_tune_parser(sub)
    add_hook_parser(sub)
    add_review_parser(sub)
    add_profile_parser(sub)
    add_cache_parser(sub)
    add_completion_parser(sub, parser)
    return parser


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
    args_list = _normalise_argv(sys.argv[1:] if argv is None else argv)
    run: Callable[[argparse.Namespace], int] | None
    if args_list[0] == "hook":
        # The fast path of an agent tool's hooks: only `tui.cli.hook` is imported.
        from chunkscope.tui.cli.hook import cmd_hook, hook_parser

        args = hook_parser().parse_args(args_list[1:])
        run = cmd_hook
    else:
        parser = build_parser()
        args = parser.parse_args(args_list)
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
        return 0
    except Exception as e:  # a bug: one line and the path of a full report
        from chunkscope.tui.crash import EXIT_CRASH, crash_message, write_report

        note(crash_message(e, write_report(e)))
        return EXIT_CRASH


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
