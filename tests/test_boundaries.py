"""The engine stays free of the UI: no Textual, no Rich, no `tui` imports."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"

OPTIONAL_MODULES = [
    "chunkscope.engine.segment.merge",
    "chunkscope.engine.embed",
    "chunkscope.engine.pipeline",
    "chunkscope.engine.recap.core",
    "chunkscope.engine.summarize",
    "chunkscope.engine.recap.collapse",
    "chunkscope.engine.chunk.strategies",
]

PROBE = f"""
import importlib, importlib.util, sys
import chunkscope.engine, chunkscope.engine.read.parse, chunkscope.engine.chunk.split
import chunkscope.engine.tokens, chunkscope.engine.model
for name in {OPTIONAL_MODULES!r}:
    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        found = False
    if found:
        importlib.import_module(name)
        print("imported", name)
ui = ("textual.", "rich.", "chunkscope.tui.")
bad = sorted(m for m in sys.modules if (m + ".").startswith(ui))
assert not bad, bad
print("ok")
"""


def test_engine_imports_do_not_load_ui() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "ok"


FORBIDDEN = re.compile(r"^\s*(?:import|from)\s+(?:textual|rich|tui|chunkscope\.tui)\b", re.M)


def test_no_ui_imports_in_engine_sources() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert (ENGINE / "read" / "parse.py") in files
    offenders = []
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        for m in FORBIDDEN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            offenders.append(f"{f.relative_to(ROOT)}:{line}: {m.group().strip()}")
    assert offenders == []


def test_forbidden_pattern_catches_the_imports_it_should() -> None:
    for bad in [
        "import textual",
        "from textual.app import App",
        "import rich.console",
        "    from rich import print",
        "from chunkscope.tui.cli import main",
        "import tui",
    ]:
        assert FORBIDDEN.search(bad), bad
    for fine in ["import richtext", "from engine import tui_helpers", "# import rich later"]:
        assert not FORBIDDEN.search(fine), fine


# --------------------------------------------------------------------------- import graph

PACKAGES = ("engine", "tui", "themes")


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports (every import statement, lazy ones and
    those under ``TYPE_CHECKING`` included), read from the sources."""
    import ast

    paths = {
        ".".join(["chunkscope", *p.relative_to(root).with_suffix("").parts]).removesuffix(
            ".__init__"
        ): p
        for d in PACKAGES
        for p in (root / d).rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            out.update(t for t in targets if t in paths and t != name)
        graph[name] = out
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert "chunkscope.tui.cli.chunk" in graph and "chunkscope.engine.segment.merge" in graph
    assert cycles(graph) == []


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_only_the_command_line_imports_the_command_line() -> None:
    graph = import_graph()
    offenders = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if not (module == "chunkscope.tui.cli" or module.startswith("chunkscope.tui.cli."))
        for target in targets
        if target == "chunkscope.tui.cli" or target.startswith("chunkscope.tui.cli.")
    )
    assert offenders == []
