#!/usr/bin/env python3
"""Lay the engine out by pipeline stage and install everything as one `chunkscope` package.

Issue 36, items 4 and 5, as a script rather than a hand-made move, so that it can be run
again on the final main after other branches merge. Run it from a clean checkout of the
old layout (flat `engine/` modules, top-level `engine`/`tui`/`themes` imports):

    python tools/relayout.py            # moves, rewrites, writes the new files
    python tools/relayout.py --check    # only says whether the checkout is the old layout

What it does, in order (it touches nothing before every check has passed):

1. `git mv` the flat engine modules into one package per stage (`MOVES` below) and writes
   each new package's `__init__.py`, whose docstring says what the package holds.
2. Rewrites every reference to a module, in every tracked Python file and in the
   markdown / TOML / CI files (data folders excepted, see `DATA_DIRS`):
   - dotted names, in code and in strings (imports, ``monkeypatch.setattr("engine.x.f")``,
     ``python -m tui.cli``, ``"tui.cli:main"``): ``engine.recap.f`` becomes
     ``chunkscope.engine.recap.core.f``; only names that really are a module (or a name of
     a package's ``__init__``) are rewritten, so a variable called ``themes`` is left alone;
   - ``import engine`` and ``from engine import x`` statements (line starts only);
   - source paths (``engine/recap.py``, ``../engine/readers/``) in text and links;
   - ``Path(__file__).parent...`` chains in moved files, so they still reach the same folder.
3. Makes ``chunkscope/``: ``__init__.py``, ``__main__.py`` (``python -m chunkscope``) and
   three relative symlinks (``engine``, ``tui``, ``themes`` -> the top-level folders), and
   points pyproject.toml's wheel, editable install, console script and mypy at it.
4. Writes the tests of the new layout (tests/test_layout.py, tests/test_package.py) and
   the layout section of docs/architecture.md.

It refuses to run twice (the old layout is gone after one run) and on a dirty tree.
Deterministic: the same checkout gives the same result, byte for byte.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import io
import os
import re
import subprocess
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("engine", "tui", "themes")
PACKAGE = "chunkscope"

#: Old path (file or folder, relative to the repository) -> new path. Folders move whole.
MOVES: dict[str, str] = {
    # read: a file's bytes into turns
    "engine/parse.py": "engine/read/parse.py",
    "engine/source.py": "engine/read/source.py",
    "engine/readers": "engine/read/formats",
    # chunk: turns into chunks
    "engine/split.py": "engine/chunk/split.py",
    "engine/strategies": "engine/chunk/strategies",
    # segment: chunks into topics
    "engine/merge.py": "engine/segment/merge.py",
    "engine/segment.py": "engine/segment/segmenter.py",
    "engine/wordseg.py": "engine/segment/wordseg.py",
    "engine/docstruct.py": "engine/segment/docstruct.py",
    "engine/requests.py": "engine/segment/requests.py",
    # recap: what a resuming agent reads
    "engine/recap.py": "engine/recap/core.py",
    "engine/sections.py": "engine/recap/sections.py",
    "engine/collapse.py": "engine/recap/collapse.py",
    # inject: the recap handed to an agent tool's next session
    "engine/inject.py": "engine/inject/recaps.py",
    "engine/hook_settings.py": "engine/inject/hook_settings.py",
    "engine/agents": "engine/inject/agents",
    # evaluate: how good a segmentation is
    "engine/evaluate.py": "engine/evaluate/measure.py",
    "engine/gold.py": "engine/evaluate/gold.py",
    "engine/snapshot.py": "engine/evaluate/snapshot.py",
    # config: the config file and how a run's knobs combine
    "engine/settings.py": "engine/config/settings.py",
    "engine/tuning.py": "engine/config/tuning.py",
}

#: The docstring of each new package's __init__.py.
NEW_PACKAGES: dict[str, str] = {
    "engine/read": (
        "Reading: a log or document file into a `Source` of turns.\n\n"
        "`parse` is the entry point (`load`), `source` the pieces every reader is made of,\n"
        "and `formats` one module per input format behind one registry."
    ),
    "engine/chunk": (
        "Chunking: turns into chunks.\n\n"
        "`split` holds the seed's paragraph splitting and compaction, `strategies` the\n"
        "other ways to split (blank-line, sliding-window, boundary, markdown, episodic).\n"
        "Token counting, which every stage's budget uses, is `engine.tokens`."
    ),
    "engine/segment": (
        "Segmenting: neighbouring chunks into topics.\n\n"
        "`merge` is the seed's merge loop over chunk vectors, `segmenter` the topic\n"
        "segmenter, `docstruct` and `wordseg` what a markdown file's structure and words\n"
        "say about where a document starts, `requests` what a user's message asks for."
    ),
    "engine/recap": (
        "The session recap: what an agent resuming the session reads first.\n\n"
        "`collapse` turns tool calls into sentences, `sections` finds the procedural\n"
        "sections, `core` scores, selects within a token budget, renders and stores."
    ),
    "engine/inject": (
        "Injection: the recap handed to an agent tool's next session.\n\n"
        "`recaps` keeps recaps per session and says what a session start injects,\n"
        "`hook_settings` merges chunkscope's hooks into a tool's hooks file, and `agents`\n"
        "holds one module per agent tool (Claude Code, Codex, Gemini CLI)."
    ),
    "engine/evaluate": (
        "Evaluation: how good a segmentation is, and the knobs that make it better.\n\n"
        "`gold` reads where topics really start, `measure` scores a run against it\n"
        "(Pk, WindowDiff, F1, sweeps, tuning), `snapshot` pins a run's cuts."
    ),
    "engine/config": (
        "Configuration: the config file and how a run's knobs combine.\n\n"
        "`settings` reads and writes the config file (theme, backends, profiles),\n"
        "`tuning` layers defaults, profile and overrides into one run's parameters."
    ),
}

#: Folders whose files are data (logs, gold files, snapshots): never rewritten.
DATA_DIRS = (
    "sample_logs/",
    "tests/__snapshots__/",
    "tests/data/",
    "tests/fixtures/",
    "tests/hostile/",
    "bench/realseg/",
    "bench/recap_facts/",
    "bench/retrieval_data/",
)
#: Text files rewritten besides Python; CHANGELOG.md is history and stays as written.
TEXT_FILES = re.compile(r"(\.md|\.toml|^\.ci/run)$")
#: tests/data/make_sample_logs.py writes made-up sessions whose text names modules.
KEEP = ("CHANGELOG.md", "tools/relayout.py", "tests/data/make_sample_logs.py")


def git(*args: str) -> str:
    """Run git in the repository and return its output (stops the script on failure)."""
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def fail(message: str) -> None:
    """Stop with one readable line."""
    print(f"relayout: {message}", file=sys.stderr)
    raise SystemExit(2)


# ---------------------------------------------------------------- module names


def module_of(path: str) -> str:
    """``engine/read/parse.py`` -> ``engine.read.parse``; ``x/__init__.py`` -> ``x``."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def old_files() -> list[str]:
    """Every Python file of the three packages, as git tracks it before the move."""
    return sorted(f for f in git("ls-files", "--", *TOP).splitlines() if f.endswith(".py"))


def moved(path: str) -> str:
    """Where an old path (file or folder) is after the move."""
    for old in sorted(MOVES, key=len, reverse=True):
        if path == old or path.startswith(old + "/"):
            return MOVES[old] + path[len(old) :]
    return path


def package_members(files: list[str]) -> dict[str, set[str]]:
    """For each package, the names its ``__init__`` binds (so ``engine.Pipeline`` is a
    reference to rewrite but a variable's ``themes.items()`` is not)."""
    members: dict[str, set[str]] = {}
    for f in files:
        if not f.endswith("__init__.py"):
            continue
        tree = ast.parse((ROOT / f).read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.isidentifier()  # __all__ and lazy-export tables
            ):
                names.add(node.value)
        members[module_of(f)] = names
    return members


class Renamer:
    """Old module names and paths to new ones, and the text rewrites built on them."""

    def __init__(self, files: list[str]) -> None:
        """Index the old tree: its modules, folders and package members."""
        self.modules = {module_of(f): module_of(moved(f)) for f in files}
        self.paths = {f: moved(f) for f in files}
        for f in files:  # folders too: engine/readers -> engine/read/formats
            for parent in Path(f).parents:
                if str(parent) != ".":
                    self.paths.setdefault(str(parent), moved(str(parent)))
        self.members = package_members(files)

    # dotted names -------------------------------------------------------------

    DOTTED = re.compile(r"(?<![\w.])(?:engine|tui|themes)(?:\.[A-Za-z_]\w*)+")

    #: Before a dotted name on its line: it is code even in prose (an import, `-m`).
    CODE_BEFORE = re.compile(r"(?:\bimport\s+|\bfrom\s+|-m\s+|patch\(\s*[\"'])$")

    def dotted(self, match: re.Match[str], text: str, prose: Callable[[int], bool]) -> str:
        """``engine.recap.f`` -> ``chunkscope.engine.recap.core.f``, if it names a module.

        In prose (comments, docstrings, markdown) the name is the folder's, without the
        ``chunkscope.`` prefix, unless the line imports it or runs it with ``-m``."""
        parts = match.group().split(".")
        for n in range(len(parts), 0, -1):
            name = ".".join(parts[:n])
            if name in self.modules:
                break
        else:  # pragma: no cover - the regex only matches the three roots
            return match.group()
        if n == 1 and parts[1] not in self.members.get(name, set()):
            return match.group()  # `themes.items()` on a variable, prose like `tui.x`
        new = ".".join([self.modules[name], *parts[n:]])
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start : match.start()]
        entry_point = re.match(r":\w", text[match.end() : match.end() + 2]) is not None
        if prose(match.start()) and not self.CODE_BEFORE.search(before) and not entry_point:
            return new
        return f"{PACKAGE}.{new}"

    # import statements whose module is a bare root ----------------------------

    BARE_IMPORT = re.compile(r"^(\s*)import (engine|tui|themes)\b(?!\.)", re.M)
    FROM_ROOT = re.compile(r"^(\s*)from ([\w.]+) import (\w+)(\s+as\s+\w+)?", re.M)

    #: ``import engine`` quoted in prose: what a user types is the package's name now.
    QUOTED_IMPORT = re.compile(r"(``?)import (engine|tui|themes)(``?)")

    def from_import(self, match: re.Match[str]) -> str:
        """``from engine import source as src`` -> ``from chunkscope.engine.read import
        source as src``: a submodule imported by name whose parent package changed."""
        indent, module, name, alias = match.groups()
        if module not in self.modules:
            return match.group()
        sub = f"{module}.{name}"
        if sub in self.modules:
            new_parent, _, new_name = self.modules[sub].rpartition(".")
            if new_name != name and not alias:
                alias = f" as {name}"
            return f"{indent}from {PACKAGE}.{new_parent} import {new_name}{alias or ''}"
        if module in TOP:
            return f"{indent}from {PACKAGE}.{module} import {name}{alias or ''}"
        return match.group()  # dotted: the DOTTED pass rewrites it

    # paths --------------------------------------------------------------------

    PATH = re.compile(r"(?:(?<![\w./-])|(?<=\./))engine/(?:[\w.-]*[\w-](?:/[\w.-]*[\w-])*/?)?")

    def path(self, match: re.Match[str]) -> str:
        """``engine/recap.py`` -> ``engine/recap/core.py``; folders likewise."""
        text = match.group()
        trail = "/" if text.endswith("/") else ""
        key = text.rstrip("/")
        parts = key.split("/")
        for n in range(len(parts), 0, -1):
            prefix = "/".join(parts[:n])
            if prefix in self.paths:
                return "/".join([self.paths[prefix], *parts[n:]]) + trail
        return text

    def rewrite(self, text: str, is_python: bool) -> str:
        """Every rewrite, in an order where none sees another's output."""
        before = set(text.splitlines())
        if is_python:
            text = self.BARE_IMPORT.sub(lambda m: f"{m[1]}import {PACKAGE}.{m[2]}", text)
        text = self.FROM_ROOT.sub(self.from_import, text)
        text = self.QUOTED_IMPORT.sub(rf"\1import {PACKAGE}.\2\3", text)
        spans = prose_spans(text) if is_python else [(0, len(text))]
        starts = [a for a, _ in spans]

        def prose(offset: int) -> bool:
            i = bisect.bisect_right(starts, offset) - 1
            return i >= 0 and offset < spans[i][1]

        text = self.DOTTED.sub(lambda m: self.dotted(m, text, prose), text)
        text = self.PATH.sub(self.path, text)
        return wrap_prose(text, before) if is_python else text


def prose_spans(text: str) -> list[tuple[int, int]]:
    """Where a Python file's comments and docstrings are, as sorted (start, end) offsets."""
    line_starts = [0]
    for line in text.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def offset(row: int, col: int) -> int:
        return line_starts[row - 1] + col

    spans = []
    previous = tokenize.NEWLINE
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.COMMENT:
            spans.append((offset(*tok.start), offset(*tok.end)))
        elif tok.type == tokenize.STRING and previous in STATEMENT_START:
            following = tokens[i + 1].type if i + 1 < len(tokens) else tokenize.NEWLINE
            if following in (tokenize.NEWLINE, tokenize.ENDMARKER):  # a docstring
                spans.append((offset(*tok.start), offset(*tok.end)))
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            previous = tok.type
    return sorted(spans)


STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
LINE_LENGTH = 100


def wrap_prose(text: str, before: set[str]) -> str:
    """Split the comment and docstring lines the longer names pushed past the line length,
    at the last space that fits; the rest goes on a line of its own, indented alike.
    Lines as they were before (long ones included) and pragma comments stay as they are."""
    if not any(len(line) > LINE_LENGTH for line in text.splitlines()):
        return text
    spans = prose_spans(text)
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start, body = pos, line.rstrip("\n")
        pos += len(line)
        cut = body.rfind(" ", 0, LINE_LENGTH + 1)
        span = next((sp for sp in spans if sp[0] <= start + cut < sp[1]), None)
        pragma = re.search(r"#\s*(type:|noqa|pragma)", body)
        if len(body) <= LINE_LENGTH or body in before or span is None or pragma or cut <= 0:
            out.append(line)
            continue
        indent = re.match(r"\s*", body).group()  # type: ignore[union-attr]
        is_comment = text[span[0]] == "#"
        lead = indent + ("# " if is_comment else "")
        head, rest = body[:cut].rstrip(), body[cut + 1 :].lstrip()
        out.append(head + "\n")
        out.append(lead + rest + line[len(body) :])
    return "".join(out)


# ---------------------------------------------------------------- the steps


def check_old_layout() -> list[str]:
    """The reasons this checkout is not the old layout (none: it is)."""
    problems = []
    for old in MOVES:
        if not (ROOT / old).exists():
            problems.append(f"{old} is missing")
    for new in [*NEW_PACKAGES, PACKAGE]:
        if (ROOT / new).exists():
            problems.append(f"{new} exists already")
    return problems


FILE_PARENTS = re.compile(r"Path\(__file__\)\.resolve\(\)((?:\.parent)+)")


def fix_file_parents(old: str, new: str, text: str) -> str:
    """A moved file's ``Path(__file__).resolve().parent...`` still reaches its folder."""

    def repl(match: re.Match[str]) -> str:
        n = match.group(1).count(".parent")
        target = str(Path(old).parents[n - 1])
        target = moved(target) if target != "." else target
        for m, parent in enumerate(Path(new).parents, start=1):
            if str(parent) == target:
                return "Path(__file__).resolve()" + ".parent" * m
        fail(f"{new}: cannot keep {match.group()} pointing at {target}")
        return match.group()

    return FILE_PARENTS.sub(repl, text)


def rewritten_files() -> list[str]:
    """Tracked files to rewrite: Python anywhere, text outside the data folders."""
    out = []
    for f in git("ls-files").splitlines():
        if f in KEEP or f.startswith(("tests/__snapshots__/", "sample_logs/")):
            continue
        wanted = f.endswith(".py") or (TEXT_FILES.search(f) and not f.startswith(DATA_DIRS))
        if wanted and (ROOT / f).is_file() and not (ROOT / f).is_symlink():
            out.append(f)
    return out


#: Exact edits the generic rewrites cannot know; each must match exactly once.
EDITS: list[tuple[str, str, str]] = [
    # the boundary test: the engine's files moved and the UI is `chunkscope.tui` now
    (
        "tests/test_boundaries.py",
        'assert (ENGINE / "parse.py") in files',
        'assert (ENGINE / "read" / "parse.py") in files',
    ),
    (
        "tests/test_boundaries.py",
        r"(?:import|from)\s+(?:textual|rich|tui)\b",
        r"(?:import|from)\s+(?:textual|rich|tui|chunkscope\.tui)\b",
    ),
    (
        "tests/test_boundaries.py",
        'bad = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "tui"))',
        'ui = ("textual.", "rich.", "chunkscope.tui.")\n'
        'bad = sorted(m for m in sys.modules if (m + ".").startswith(ui))',
    ),
    (
        "tests/test_boundaries.py",
        "import chunkscope.engine, chunkscope.engine.read.parse, chunkscope.engine.chunk.split, ",
        "import chunkscope.engine, chunkscope.engine.read.parse, chunkscope.engine.chunk.split\n"
        "import ",
    ),
    (
        "tests/test_boundaries.py",
        '".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p',
        '".".join(["chunkscope", *p.relative_to(root).with_suffix("").parts])\n'
        '        .removesuffix(".__init__"): p',
    ),
]


def apply_edits() -> None:
    """The `EDITS`, each found exactly once (else the script stops and says where)."""
    for path, old, new in EDITS:
        file = ROOT / path
        text = file.read_text(encoding="utf-8")
        if text.count(old) != 1:
            fail(f"{path}: expected {old!r} once, found it {text.count(old)} times")
        file.write_text(text.replace(old, new, 1), encoding="utf-8")


def write(path: str, text: str) -> None:
    """Write a new file (LF line ends, UTF-8) and add it to git."""
    file = ROOT / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    git("add", path)


def make_package() -> None:
    """``chunkscope/``: the one installed package, its folders linked, not copied."""
    write(
        f"{PACKAGE}/__init__.py",
        '"""chunkscope: a workbench and a command line for chunking agent session logs.\n\n'
        "One installed package. Its parts live in the repository's top-level folders and\n"
        "are mapped here: `chunkscope.engine` (the pipeline, no UI), `chunkscope.tui` (the\n"
        "workbench and the command), `chunkscope.themes`. In a checkout they are symbolic\n"
        "links to those folders; the wheel ships them as plain folders in this package.\n"
        '"""\n',
    )
    write(
        f"{PACKAGE}/__main__.py",
        '"""``python -m chunkscope``: the `chunkscope` command."""\n\n'
        "import sys\n\n"
        "from chunkscope.tui.cli import main\n\n"
        "sys.exit(main())\n",
    )
    for name in TOP:
        link = ROOT / PACKAGE / name
        link.symlink_to(Path("..") / name, target_is_directory=True)
        git("add", f"{PACKAGE}/{name}")


PYPROJECT_EDITS: list[tuple[str, str]] = [
    (
        '[tool.hatch.build.targets.wheel]\npackages = ["engine", "tui", "themes"]\n\n'
        '[tool.hatch.build.targets.wheel.force-include]\n"sample_logs" = "tui/sample_logs"\n',
        "# One installed package: the top-level folders are mapped into `chunkscope`\n"
        "# (chunkscope/ holds its __init__ and __main__, and links to the folders for a\n"
        "# checkout). An editable install puts the repository on the path, so the links\n"
        "# serve: hatchling's exact editable mode cannot map a folder under a new prefix.\n"
        "# sample_logs is mapped, not force-included: an editable install would copy it.\n"
        "[tool.hatch.build.targets.wheel]\n"
        "only-include = [\n"
        '    "chunkscope/__init__.py",\n'
        '    "chunkscope/__main__.py",\n'
        '    "engine",\n'
        '    "tui",\n'
        '    "themes",\n'
        '    "sample_logs",\n'
        "]\n"
        'dev-mode-dirs = ["."]\n\n'
        "[tool.hatch.build.targets.wheel.sources]\n"
        '"engine" = "chunkscope/engine"\n'
        '"tui" = "chunkscope/tui"\n'
        '"themes" = "chunkscope/themes"\n'
        '"sample_logs" = "chunkscope/tui/sample_logs"\n',
    ),
    (
        "[[tool.mypy.overrides]]\n",
        "# `mypy engine tui themes` checks each file as `engine.x`; the imports name it\n"
        "# `chunkscope.engine.x`, which mypy reaches through the links in chunkscope/ and\n"
        "# analyses again for the types: its errors are those of the files given, already\n"
        "# reported, so the second copy stays quiet.\n"
        "[[tool.mypy.overrides]]\n"
        'module = ["chunkscope.*"]\n'
        'follow_imports = "silent"\n\n'
        "[[tool.mypy.overrides]]\n",
    ),
]


def edit_pyproject() -> None:
    """Wheel, editable install and mypy for the one package (scripts: by the rewrite)."""
    file = ROOT / "pyproject.toml"
    text = file.read_text(encoding="utf-8")
    for old, new in PYPROJECT_EDITS:
        if text.count(old) != 1:
            fail(f"pyproject.toml: expected {old.splitlines()[0]!r} once")
        text = text.replace(old, new, 1)
    if '"hatchling' not in text.split("[project.optional-dependencies]")[1].split("\n[")[0]:
        text = text.replace('    "pytest>=8",\n', '    "hatchling>=1.26",\n    "pytest>=8",\n', 1)
    file.write_text(text, encoding="utf-8")


ARCH_OLD = re.compile(r"(?ms)^engine/ {11}the pipeline.*?(?=^themes/ )")
ARCH_NEW = """\
engine/           the pipeline, pure Python + numpy, never importing textual, rich or tui;
                  installed as `chunkscope.engine`, one package per stage
  model.py, params.py, errors.py      Turn, Chunk, spans; every knob declared once; errors
  read/           parse.py (load: the entry point), source.py (what readers are made of),
                  formats/ (one module per input format, folders of sessions)
  chunk/          split.py (split, compact), strategies/ (blank-line, sliding-window,
                  boundary, markdown, episodic)
  embed/          protocol, offline lexical, OpenAI-compatible, e5, the SQLite cache
  segment/        merge.py (the seed loop), segmenter.py (topics), docstruct.py and
                  wordseg.py (markdown structure, the word model), requests.py
  summarize/      extractive, LLM
  recap/          collapse.py (tool calls to sentences), sections.py, core.py (score, select,
                  render, store)
  inject/         recaps.py (recaps kept per session for the next one), hook_settings.py
                  (our hooks in a tool's settings), agents/ (one module per agent tool)
  search/         rankers, the budgeted context, query files, scores, tuning
  evaluate/       measure.py (Pk, WindowDiff, F1, partial gold, sweeps, tuning), gold.py,
                  snapshot.py (pinned cuts)
  config/         settings.py (config file, profiles, backends), tuning.py (layering)
  shared          backend.py (one client set-up), pipeline.py (memoised stages), tokens.py
                  (token counts), fileio.py (atomic writes), textutil.py, parallel.py,
                  paths.py, jsonfmt.py
"""
ARCH_INTRO_OLD = (
    "The engine's modules, by the stage\nthey serve (today most are flat modules of "
    "`engine/`; arranging them in one package per\nstage is the next step of the layout):"
)
ARCH_INTRO_NEW = (
    "The engine has one package per stage,\nand each package's `__init__` says what it "
    "holds. All three install as parts of one\n`chunkscope` package (`chunkscope/` maps "
    "the folders; see development.md):"
)


def edit_architecture() -> None:
    """The layout section of docs/architecture.md, for the new layout."""
    file = ROOT / "docs/architecture.md"
    text = file.read_text(encoding="utf-8")
    text, n = ARCH_OLD.subn(ARCH_NEW, text)
    if n != 1 or text.count(ARCH_INTRO_OLD) != 1:
        fail("docs/architecture.md: the layout section changed; update ARCH_* in this script")
    file.write_text(text.replace(ARCH_INTRO_OLD, ARCH_INTRO_NEW, 1), encoding="utf-8")


CHANGELOG_ANCHOR = "\n### Changed\n\n"
CHANGELOG_ENTRY = """\
- **One installed package.** chunkscope installs one import package, `chunkscope`
  (`chunkscope.engine`, `chunkscope.tui`, `chunkscope.themes`), where it installed three
  top-level packages named `engine`, `tui` and `themes`, names other distributions use
  too; `python -m chunkscope` runs the command. Code that imported `engine.x` imports
  `chunkscope.engine...`, whose modules are arranged by pipeline stage
  ([architecture](docs/architecture.md#layout)).
"""
DEVELOPMENT_ANCHOR = "\n## Snapshot tests\n"
DEVELOPMENT_SECTION = """\
## One package, three folders

The repository keeps `engine/`, `tui/` and `themes/` at the top; they install as parts of
one package, `chunkscope`. The wheel maps them there (`[tool.hatch.build.targets.wheel]
sources` in pyproject.toml, `sample_logs/` as `chunkscope/tui/sample_logs`). In a
checkout, `chunkscope/` holds the package's `__init__.py` and `__main__.py` and three
relative symbolic links to the folders, so `import chunkscope.engine` works from the
repository root, from an editable install (its `.pth` file puts the root on the path) and
for mypy, which checks each file given (`mypy engine tui themes`) and reads the linked
copies quietly (`follow_imports = "silent"` for `chunkscope.*`). Import through
`chunkscope.` only: a test fails when a module is imported under a second name. Tests
build the wheel and check that `chunkscope` is its only package and that it runs unpacked.
(hatchling's exact editable mode cannot map a folder under a new prefix, hence the links;
on a system without symbolic links, git checks them out as small text files and the
checkout needs `pip install .` instead.)

"""


def edit_docs_pages() -> None:
    """The changelog's entry and development.md's section about the one package."""
    for path, anchor, text, before in (
        ("CHANGELOG.md", CHANGELOG_ANCHOR, CHANGELOG_ENTRY, False),
        ("docs/development.md", DEVELOPMENT_ANCHOR, DEVELOPMENT_SECTION, True),
    ):
        file = ROOT / path
        page = file.read_text(encoding="utf-8")
        if anchor not in page:
            fail(f"{path}: {anchor.strip()!r} not found; update this script")
        at = page.index(anchor) + (1 if before else len(anchor))
        file.write_text(page[:at] + text + page[at:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Check, move, rewrite, write; 0 when done, 2 with a reason when not."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the checkout")
    parser.add_argument("--allow-dirty", action="store_true", help="skip the clean-tree check")
    args = parser.parse_args(argv)
    problems = check_old_layout()
    if problems:
        fail("not the old layout (already applied?): " + "; ".join(problems))
    if not args.allow_dirty and git("status", "--porcelain", "--untracked-files=no"):
        fail("the work tree has uncommitted changes; commit or stash them first")
    if args.check:
        print("relayout: the old layout, ready")
        return 0

    files = old_files()
    names = Renamer(files)
    for path, new in sorted(MOVES.items()):
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", path, new)
    for package, doc in sorted(NEW_PACKAGES.items()):
        write(f"{package}/__init__.py", f'"""{doc}\n"""\n')

    for f in rewritten_files():
        file = ROOT / f
        text = file.read_text(encoding="utf-8")
        new_text = names.rewrite(text, f.endswith(".py"))
        old = next((o for o, n in names.paths.items() if n == f and o != f), None)
        if old is not None and f.endswith(".py"):
            new_text = fix_file_parents(old, f, new_text)
        if new_text != text:
            file.write_text(new_text, encoding="utf-8")

    apply_edits()
    make_package()
    edit_pyproject()
    edit_architecture()
    edit_docs_pages()
    for test, body in sorted(NEW_TESTS.items()):
        write(test, body)
    # generated docs blocks quote help text that names modules: generate them again
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "docs/generate.py"], cwd=ROOT, env=env, check=True)
    # the longer names reorder and lengthen imports: let the project's own tools settle them
    for fix in (["check", "--fix", "--select", "I", "--quiet"], ["format", "--quiet"]):
        ruff = subprocess.run([sys.executable, "-m", "ruff", *fix, "."], cwd=ROOT, check=False)
        if ruff.returncode not in (0, 1):
            fail("ruff could not be run (pip install ruff, the version the project pins)")
    git("add", "-u")
    print(f"relayout: done ({len(MOVES)} moves, {len(NEW_PACKAGES)} new packages)")
    return 0


#: The tests of the new layout, kept beside this script as plain files.
NEW_TESTS = {
    f"tests/{f.name.removesuffix('.in')}": f.read_text(encoding="utf-8")
    for f in sorted((Path(__file__).resolve().parent / "relayout_tests").glob("*.py.in"))
}

if __name__ == "__main__":
    sys.exit(main())
