"""`chunkscope completion bash|zsh|fish`: a shell completion script, written by `shtab`
from the command's own parser, so it knows every subcommand, option and choice there is.

Files and folders complete where a command takes one: the arguments named in
`PATH_ARGS` (positionals by their dest, options by their flag).
"""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.tui.cli.common import write_out

#: The shells `completion` writes a script for (`shtab` writes it).
SHELLS = ("bash", "zsh", "fish")

#: Arguments that take a file ("file") or a folder ("dir"): positionals by dest,
#: options by their first long flag.
PATH_ARGS = {
    "file": "file",
    "files": "file",
    "project": "dir",
    "--output": "file",
    "--gold": "file",
    "--queries": "file",
    "--snapshot": "file",
    "--check": "file",
    "--memories": "file",
    "--settings": "file",
}

EXAMPLES = (
    "chunkscope completion bash > ~/.local/share/bash-completion/completions/chunkscope",
    "chunkscope completion zsh > ~/.zfunc/_chunkscope",
    "chunkscope completion fish > ~/.config/fish/completions/chunkscope.fish",
)


def add_completion_parser(sub: Any, root: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``completion`` to `root`'s subcommands; its script completes `root` (passed in,
    not imported: ``tui.cli`` imports this module)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh, fish)",
        description=(
            "Print the completion script of SHELL for chunkscope's subcommands, options "
            "and file arguments. Save it where your shell looks for completions, or source "
            'it from your shell\'s start-up file: eval "$(chunkscope completion bash)".'
        ),
        examples=EXAMPLES,
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(run=lambda args: _print_script(root, args.shell))
    return p


def _mark_paths(parser: argparse.ArgumentParser, marks: dict[str, Any]) -> None:
    """Tell `shtab` which arguments of `parser` and its subcommands take paths."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _mark_paths(child, marks)
            continue
        long = [o for o in action.option_strings if o.startswith("--")]
        key = long[0] if long else (action.dest if not action.option_strings else None)
        kind = PATH_ARGS.get(key or "")
        if kind is not None:
            action.complete = marks[kind]  # type: ignore[attr-defined]


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of `shell` for the whole command `parser` parses."""
    import shtab

    _mark_paths(parser, {"file": shtab.FILE, "dir": shtab.DIRECTORY})
    return str(shtab.complete(parser, shell=shell))


def _print_script(parser: argparse.ArgumentParser, shell: str) -> int:
    write_out(completion_script(parser, shell) + "\n")
    return 0
