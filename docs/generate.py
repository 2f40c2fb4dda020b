"""Write the generated blocks of README.md and docs/*.md: the output of the commands they
show, run on the bundled sample logs, and tables read from the code.

A generated block is

    <!-- generated: NAME -->
    ...
    <!-- end: NAME -->

and its text is ``BLOCKS[NAME]()``. ``python docs/generate.py`` rewrites every block of
every page; ``python docs/generate.py --check`` changes nothing and exits 1 naming each
stale block (``tests/test_docs.py`` runs the check, so a figure the docs quote cannot drift
from what the code does). The commands run offline, in this process, with an empty
config, cache and data directory, so a user's profiles or cache change nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

#: The pages that hold generated blocks.
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

#: The log every example runs on (bundled, so each reader can run it too).
SAMPLE = "sample_logs/cache_refactor.jsonl"
#: The question the search examples ask of it.
QUESTION = "how are the vectors stored in SQLite?"
#: Output lines longer than this are cut (the docs read on a code host's page width).
WIDTH = 100
#: The terminal width the --help texts are formatted for.
COLUMNS = "80"

#: A generated block: its markers start their lines (an indented one, as in an example
#: of the syntax inside a list, is not a block).
BLOCK = re.compile(
    r"^(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)^(<!-- end: (?P=name) -->)",
    re.S | re.M,
)


@contextlib.contextmanager
def _quiet_world(cwd: Path = ROOT) -> Iterator[None]:
    """Empty config, cache and data directories, the repository as the current folder,
    a fixed terminal width."""
    names = ("CHUNKSCOPE_CONFIG_DIR", "CHUNKSCOPE_CACHE_DIR", "CHUNKSCOPE_DATA_DIR", "COLUMNS")
    saved = {name: os.environ.get(name) for name in names}
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names[:3]:
            os.environ[name] = str(Path(tmp) / name.lower())
        os.environ["COLUMNS"] = COLUMNS
        os.chdir(cwd)
        try:
            yield
        finally:
            os.chdir(here)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def run(*argv: str, cwd: Path = ROOT) -> str:
    """What ``chunkscope ARGV`` prints on stdout, run in `cwd` (its exit status must be 0)."""
    from chunkscope.tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _quiet_world(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as e:  # --help
            status = int(e.code or 0)
    if status != 0:
        raise RuntimeError(f"chunkscope {' '.join(argv)} exited {status}: {err.getvalue()}")
    return out.getvalue()


def _cut(text: str) -> str:
    return "\n".join(
        line if len(line) <= WIDTH else line[: WIDTH - 2] + " …" for line in text.splitlines()
    )


def _continued(line: str) -> str:
    """The indent of a wrapped line's continuation: deeper than an indented line's own."""
    lead = line[: len(line) - len(line.lstrip())]
    return lead + "    " if lead else ""


def _wrap(text: str) -> str:
    return "\n".join(
        "\n".join(
            textwrap.wrap(
                line,
                WIDTH,
                subsequent_indent=_continued(line),
                break_on_hyphens=False,
            )
        )
        if line
        else ""
        for line in text.splitlines()
    )


def _fenced(command: str, output: str, lang: str = "text", *, wrap: bool = False) -> str:
    """The command and its output in a fence, long lines cut (or `wrap`ped)."""
    shown = _wrap(output) if wrap else _cut(output)
    return f"```{lang}\n$ {command}\n{shown.rstrip()}\n```\n"


def _help() -> str:
    return _fenced("chunkscope --help", run("--help"))


def _chunk_text() -> str:
    out = run("chunk", SAMPLE)
    head = out.split("\n--- Chunk 2 ")[0]
    return _fenced(f"chunkscope chunk {SAMPLE}", head.rstrip() + "\n...")


def _chunk_json() -> str:
    doc = json.loads(run("chunk", SAMPLE, "--format", "json"))
    first = doc["chunks"][0]
    first["text"] = first["text"][:56] + "..."
    doc["chunks"] = [first]
    return "```json\n" + json.dumps(doc, indent=2, ensure_ascii=False) + "\n```\n"


def _collapse_counts() -> str:
    """The merged chunks of the sample with tool calls kept and collapsed (a figure the
    prose quotes: generated, so it follows the code)."""

    def merged(*flags: str) -> int:
        return len(
            json.loads(run("chunk", SAMPLE, "--embed", *flags, "--format", "json"))["merged"]
        )

    kept, collapsed = merged(), merged("--collapse")
    name = Path(SAMPLE).name
    return (
        _wrap(
            f"So `chunk FILE --embed` gives {kept} merged chunks of `{name}` and the workbench "
            f"{collapsed}; `chunk FILE --embed --collapse` gives the workbench's {collapsed}."
        )
        + "\n"
    )


def _seed_merge() -> str:
    out = run("chunk", SAMPLE, "--embed", "--merge", "seed")
    lines = out.splitlines()
    passes = [line for line in lines if line.startswith("pass ")]
    after = next(i for i, line in enumerate(lines) if line.startswith("=== After merging"))
    start = next(i for i in range(after, len(lines)) if lines[i].startswith("--- Chunk 1 "))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("  Cut after:"))
    merged = [lines[after], "", *lines[start : start + 2], "  ...", *lines[end - 1 : end + 1]]
    return _fenced(
        f"chunkscope chunk {SAMPLE} --embed --merge seed",
        "\n".join(["...", *passes, "", *merged, "..."]),
    )


def _recap() -> str:
    recap = run("recap", SAMPLE, "--budget", "400")
    return _fenced(f"chunkscope recap {SAMPLE} --budget 400", recap, wrap=True)


def _search() -> str:
    return _fenced(
        f'chunkscope search {SAMPLE} "{QUESTION}" --budget 400',
        run("search", SAMPLE, QUESTION, "--budget", "400"),
    )


def _sweep() -> str:
    """A sweep of the topic depth on `bench/tui.py`'s generated log, scored against its
    own topic starts."""
    from bench.tui import make_log

    with tempfile.TemporaryDirectory() as tmp:
        make_log(Path(tmp) / "session.jsonl", 600)
        argv = ("sweep", "session.jsonl", "--param", "topic-depth", "--points", "12")
        gold = ("--gold", "session.gold.json")
        out = run(*argv, *gold, cwd=Path(tmp))
    return _fenced(f"chunkscope {' '.join(argv + gold)}", out)


def _strategies() -> str:
    listed = run("chunk", "--list-strategies")
    return _fenced("chunkscope chunk --list-strategies", listed, wrap=True)


def _keys() -> str:
    """The key table of the workbench's own help screen (`tui.screens.help.HELP`)."""
    from chunkscope.tui.screens.help import HELP

    keys = HELP.split("\n## Keys\n", 1)[1]
    return "\n".join(line for line in keys.strip().splitlines() if line.startswith("|")) + "\n"


def _range(k: Any) -> str:
    if k.choices:
        return " / ".join(f"`{c}`" for c in k.choices)
    from chunkscope.engine.params import number_text

    low = "" if k.minimum is None else number_text(k.minimum)
    high = "" if k.maximum is None else number_text(k.maximum)
    words = " or ".join(f"`{w}`" for w in k.words)
    span = f"{low} .. {high}".strip() if (low or high) else ""
    return ", ".join(part for part in (span, words) if part)


def _value(value: Any) -> str:
    return (
        "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )


def _knobs() -> str:
    """Every knob a profile may hold (`engine.config.tuning`), as declared (`engine.params`)."""
    from chunkscope.engine.config.tuning import PROFILE_CLASSES
    from chunkscope.engine.params import knobs

    rows = ["| profile key | flag | default | range | what it sets |", "|---|---|---|---|---|"]
    for cls in PROFILE_CLASSES:
        for k in knobs(cls):
            flag = f"`{k.flag}`" if k.flag else ""
            helptext = k.help.replace("|", "\\|")
            rows.append(
                f"| `{k.name}` | {flag} | `{_value(k.default)}` | {_range(k)} | {helptext} |"
            )
    return "\n".join(rows) + "\n"


BLOCKS: dict[str, Callable[[], str]] = {
    "knobs": _knobs,
    "help": _help,
    "chunk-text": _chunk_text,
    "chunk-json": _chunk_json,
    "seed-merge": _seed_merge,
    "collapse-counts": _collapse_counts,
    "recap": _recap,
    "search": _search,
    "strategies": _strategies,
    "sweep": _sweep,
    "keys": _keys,
}


def regenerate(text: str, made: dict[str, str]) -> str:
    """`text` with every generated block rewritten (`made` caches each block's text)."""

    def fill(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in BLOCKS:
            raise KeyError(f"no generator for the block {name!r}")
        if name not in made:
            made[name] = BLOCKS[name]()
        # blank lines around the text: a table or a fence must not touch the markers
        return m.group(1) + "\n" + made[name] + "\n" + m.group(4)

    return BLOCK.sub(fill, text)


def stale(pages: tuple[Path, ...] = PAGES) -> list[str]:
    """`page: block` for every block whose text is not what it would be generated as."""
    made: dict[str, str] = {}
    found = []
    for page in pages:
        text = page.read_text()
        for m in BLOCK.finditer(text):
            if regenerate(m.group(0), made) != m.group(0):
                where = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
                found.append(f"{where}: {m.group('name')}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="list stale blocks, change nothing")
    args = parser.parse_args()
    if args.check:
        found = stale()
        for line in found:
            print(f"stale: {line} (run python docs/generate.py)")
        return 1 if found else 0
    made: dict[str, str] = {}
    for page in PAGES:
        text = page.read_text()
        new = regenerate(text, made)
        if new != text:
            page.write_text(new)
            print(f"rewrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
