"""The `tui` subcommand: open the workbench (``chunkscope [tui] [FILE]``).

Textual is imported only when the workbench really opens, so `chunkscope chunk`
and `--help` stay fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from chunkscope.tui.cli.common import (
    CliError,
    add_collapse_args,
    add_embedder_args,
    add_input_args,
    add_knob_flags,
    add_profile_option,
    add_theme_option,
    add_tokenizer_arg,
    checked_knobs,
    collapse_of,
    need_terminal,
    open_latest,
    read_settings,
)


def add_tui_parser(sub: Any) -> argparse.ArgumentParser:
    from chunkscope.engine.config.tuning import PROFILE_CLASSES

    p: argparse.ArgumentParser = sub.add_parser(
        "tui",
        help="open the workbench (the same as `chunkscope FILE`)",
        description=(
            "Open the chunkscope workbench on FILE (a JSONL agent log or a markdown file). "
            "Without FILE a file picker opens at the current directory, with the bundled "
            "sample logs beside it."
        ),
        examples=(
            "chunkscope sample_logs/cache_refactor.jsonl",
            "chunkscope ~/.claude/projects/my-project",
            "chunkscope tui notes.md --merge seed --theme chunkscope-light",
        ),
    )
    p.add_argument("file", nargs="?", default=None, help="a JSONL agent log or a markdown file")
    p.add_argument(
        "--latest",
        action="store_true",
        help="FILE is a folder of sessions (the current folder without FILE): open the "
        "newest session log",
    )
    add_theme_option(p)
    p.add_argument("--strict", action="store_true", help="stop at the first malformed line")
    add_input_args(p)
    add_collapse_args(p, purpose="recap")
    add_tokenizer_arg(p)
    p.add_argument(
        "--gold",
        default=None,
        metavar="GOLD",
        help="open with a gold file's topic starts (the format of `chunkscope eval`) as "
        "FILE's topic marks",
    )
    p.add_argument(
        "--queries",
        default=None,
        metavar="Q.json",
        help="questions with what answers them (the format of `chunkscope search --queries`): "
        "the live score shows their hit rate, following every slider",
    )
    p.add_argument("--confine", default=None, help=argparse.SUPPRESS)  # `serve`'s tabs
    add_embedder_args(p)
    add_profile_option(p)
    add_knob_flags(p.add_argument_group("starting parameters"), PROFILE_CLASSES)
    p.set_defaults(run=cmd_tui)
    return p


def cmd_tui(args: argparse.Namespace) -> int:
    from chunkscope.engine.config.tuning import PROFILE_CLASSES

    folder = None
    if args.latest:
        from chunkscope.engine.read.formats.folders import newest_readable

        if args.file is not None and not Path(args.file).is_dir():
            raise CliError(f"{args.file}: --latest opens the newest session of a folder")
        open_latest(args, newest_readable)
    if args.file is not None:
        path = Path(args.file)
        if not path.exists():
            raise CliError(f"{args.file}: no such file")
        if path.is_dir():  # a folder of sessions: the picker opens there
            folder, args.file = str(path), None
        else:
            from chunkscope.engine.read.source import check_not_blank, check_text

            check_text(path)  # a binary file: one line and exit 2, no workbench
            check_not_blank(path)  # nothing to read: the same, as `chunk` says it
    if args.gold is not None:
        if args.file is None:
            raise CliError("--gold needs a FILE to open")
        from chunkscope.engine.evaluate.gold import read_gold
        from chunkscope.engine.evaluate.measure import line_weights

        read_gold(args.gold, lines=len(line_weights(args.file)))  # one line and exit 2 if bad

    queries: tuple[Any, ...] = ()
    if args.queries is not None:
        from chunkscope.engine.search import load_judged_queries

        queries = tuple(load_judged_queries(args.queries))  # one line and exit 2 if bad
    if args.profile is not None:  # as `chunk` and `recap` refuse it, before the workbench
        read_settings().profile(args.profile)  # "no profile named 'x' (known: …)", exit 2
    need_terminal()

    from chunkscope.tui.app import ChunkscopeApp, StartOptions

    options = StartOptions(
        path=args.file,
        theme=args.theme,
        strict=args.strict,
        collapse=collapse_of(args),
        tokenizer=args.tokenizer,
        embedder=args.embedder,
        model=args.model,
        base_url=args.base_url,
        profile=args.profile,
        input_format=args.input_format,
        session=args.session,
        folder=folder,
        confine=args.confine,
        exit_if_refused=True,
        gold=args.gold,
        queries=queries,
        knobs=checked_knobs(args, PROFILE_CLASSES),
    )
    app = ChunkscopeApp(options)
    app.run()
    if app.crash is not None:
        from chunkscope.tui.cli.common import note
        from chunkscope.tui.crash import EXIT_CRASH

        note(app.crash)
        return EXIT_CRASH
    if app.refused is not None:  # the file has no turns: one line, as `chunk` says it
        raise CliError(app.refused)
    return app.return_code or 0
