"""The command's own documentation: every --help ends with examples that parse, the top
level lists `chunkscope FILE` and one line per subcommand, -V prints the installed
version, and `chunkscope completion bash` completes in a real bash."""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from chunkscope.tui.cli import SUBCOMMANDS, _normalise_argv, build_parser, main
from chunkscope.tui.cli.common import EXAMPLES_HEADING, Parser
from chunkscope.tui.cli.hook import hook_parser

ROOT = Path(__file__).resolve().parent.parent


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def _argv(example: str) -> list[str]:
    """An example's arguments, without the shell's redirections."""
    words = shlex.split(example)
    for stop in ("<", ">", "|"):
        if stop in words:
            words = words[: words.index(stop)]
    assert words[0] == "chunkscope", example
    return words[1:]


ALL = [*_parsers(build_parser()), *_parsers(hook_parser())]


@pytest.mark.parametrize("parser", ALL, ids=[p.prog for p in ALL])
def test_every_help_ends_with_examples_that_parse(parser: argparse.ArgumentParser) -> None:
    assert isinstance(parser, Parser)
    assert 2 <= len(parser.examples) <= 3, parser.prog
    text = parser.format_help()
    tail = text[text.rindex(EXAMPLES_HEADING) :].splitlines()
    assert tail[1:] == [f"  {e}" for e in parser.examples], "the examples close the help"
    for example in parser.examples:
        argv = _normalise_argv(_argv(example))
        if argv[0] == "hook":
            args = hook_parser().parse_args(argv[1:])
            assert args.hook_command, example
        else:
            args = build_parser().parse_args(argv)
            assert args.run, example


@pytest.mark.parametrize("name", [n for n in SUBCOMMANDS if n not in ("completion", "hook")])
def test_one_subcommands_parser_parses_as_the_whole_parser(name: str) -> None:
    """`main` builds only the parser of the subcommand it runs: the same help, and the
    same arguments from each of its examples."""
    whole = build_parser()
    alone = build_parser(only=name)
    prefix = f"chunkscope {name}"
    children = [p for p in _parsers(whole) if f"{p.prog} ".startswith(f"{prefix} ")]
    singles = [p for p in _parsers(alone) if p is not alone]
    assert [p.format_help() for p in singles] == [p.format_help() for p in children]
    for example in [e for p in children for e in p.examples]:
        argv = _normalise_argv(_argv(example))
        assert vars(alone.parse_args(argv)) == vars(whole.parse_args(argv)), example


def test_top_level_help_shows_file_and_one_line_per_subcommand(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: chunkscope [FILE | DIR]")
    lines = out.splitlines()
    block = lines[lines.index("commands:") + 1 :]
    block = block[: block.index("")]
    listed = [line.split()[0] for line in block]
    assert listed == list(SUBCOMMANDS), "each subcommand on one line, in order, nothing else"
    assert all(len(line) <= 80 for line in lines)


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version("chunkscope") == declared
    for flag in ("-V", "--version"):
        with pytest.raises(SystemExit) as done:
            main([flag])
        assert done.value.code == 0
        assert capsys.readouterr().out == f"chunkscope {declared}\n"


def test_completion_scripts_name_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    for shell in ("zsh", "fish"):
        assert main(["completion", shell]) == 0
        script = capsys.readouterr().out
        assert all(name in script for name in SUBCOMMANDS), shell
    with pytest.raises(SystemExit) as refused:  # not offered
        main(["completion", "tcsh"])
    assert refused.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


BASH_COMPLETE = r"""
source "$1"
cd "$2"
c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"
      COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _shtab_chunkscope
      printf '%s|' "${COMPREPLY[@]}"; echo; }
complete -p chunkscope
c chunkscope se
c chunkscope search --ran
c chunkscope search x --ranker ''
c chunkscope completion ''
c chunkscope chunk ses
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on PATH")
def test_bash_completion_completes_in_bash(tmp_path: Path) -> None:
    script = tmp_path / "chunkscope.bash"
    made = subprocess.run(
        [sys.executable, "-m", "chunkscope.tui.cli", "completion", "bash"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    script.write_text(made.stdout)
    (tmp_path / "session.jsonl").write_text("")
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", BASH_COMPLETE, "bash", str(script), tmp_path],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "complete -o bashdefault -F _shtab_chunkscope chunkscope"
    assert lines[1:] == [
        "search|serve|",
        "--ranker|",
        "bm25|embed|fusion|",
        "bash|zsh|fish|",
        "session.jsonl|",
    ]


@pytest.mark.parametrize("name", ["cache", "profile"])
def test_a_commands_one_line_help_names_only_its_real_actions(name: str) -> None:
    """``cache  show or clear ...`` while `cache show` was refused (the action is
    `info`): the actions a command's line names are the ones it takes."""
    import re

    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    line = next(str(c.help) for c in top._choices_actions if c.dest == name)
    parser = top.choices[name]
    taken: set[str] = set()
    for action in parser._actions:
        subcommands = isinstance(action, argparse._SubParsersAction)
        if subcommands or (not action.option_strings and action.choices):
            taken |= set(action.choices or ())
    lead = re.match(r"[a-z]+(?:, [a-z]+)*(?: or [a-z]+)?", line)
    assert lead is not None, line
    named = re.split(r", | or ", lead.group(0))
    assert len(named) >= 2 and set(named) <= taken, (line, taken)
