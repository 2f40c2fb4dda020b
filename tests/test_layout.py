"""The engine's layout: one package per stage, each importable on its own, no cycles."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"


def module_name(path: Path) -> str:
    """`engine/read/parse.py` -> `chunkscope.engine.read.parse`."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["chunkscope", *parts])


ENGINE_MODULES = sorted(module_name(p) for p in ENGINE.rglob("*.py"))


def unit(module: str) -> str:
    """The part of the engine a module belongs to: its package, or itself when flat."""
    parts = module.split(".")
    return ".".join(parts[:3])


def imports(path: Path) -> set[str]:
    """The chunkscope modules a file imports when it runs (at any depth, lazily or not;
    not those under `if TYPE_CHECKING:`, which only the type checker reads)."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return {m for m in found if m.startswith("chunkscope.")}


def test_each_engine_package_says_what_it_holds() -> None:
    packages = sorted(p.parent for p in ENGINE.rglob("__init__.py"))
    assert ENGINE / "read" in packages and ENGINE / "inject" / "agents" in packages
    for package in packages:
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 5, f"{package.relative_to(ROOT)}: no docstring"


def test_no_cycles_between_the_engine_packages() -> None:
    graph: dict[str, set[str]] = {}
    for path in ENGINE.rglob("*.py"):
        src = unit(module_name(path))
        deps = {unit(m) for m in imports(path) if m.startswith("chunkscope.engine.")}
        if src == "chunkscope.engine":
            continue  # the engine's own __init__: it names its exports, loaded on first use
        graph.setdefault(src, set()).update(deps - {src})
    assert "chunkscope.engine.read" in graph and "chunkscope.engine.segment" in graph

    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            cycle = [*path[path.index(node) :], node]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if node in done:
            return
        for dep in sorted(graph.get(node, ())):
            visit(dep, [*path, node])
        done.add(node)

    for node in sorted(graph):
        visit(node, [])


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    # the same walk over a made-up graph with a cycle must fail
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}

    def has_cycle(node: str, path: list[str]) -> bool:
        return node in path or any(has_cycle(d, [*path, node]) for d in graph[node])

    assert has_cycle("a", [])


PROBE = """
import importlib, sys
names = sys.argv[1:]
for name in names:
    for loaded in [m for m in sys.modules if m == "chunkscope" or m.startswith("chunkscope.")]:
        del sys.modules[loaded]
    importlib.import_module(name)
import chunkscope.tui.app, chunkscope.engine.pipeline  # everything, once more
twice = sorted(m for m in sys.modules if m.split(".")[0] in ("engine", "tui", "themes"))
assert not twice, f"imported under a second name: {twice}"
print("ok", len(names))
"""


def test_every_engine_module_imports_on_its_own_and_once() -> None:
    """Each module imports from a cold start (a cycle would fail one of them), and no
    file is imported twice under two names (`engine.x` beside `chunkscope.engine.x`)."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *ENGINE_MODULES, "chunkscope.themes"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["ok", str(len(ENGINE_MODULES) + 1)]
