"""The engine stays free of the UI: no Textual, no Rich, no `tui` imports."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"

OPTIONAL_MODULES = [
    "engine.merge",
    "engine.embed",
    "engine.pipeline",
    "engine.recap",
    "engine.summarize",
    "engine.collapse",
    "engine.strategies",
]

PROBE = f"""
import importlib, importlib.util, sys
import engine, engine.parse, engine.split, engine.tokens, engine.model
for name in {OPTIONAL_MODULES!r}:
    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        found = False
    if found:
        importlib.import_module(name)
        print("imported", name)
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "tui"))
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


FORBIDDEN = re.compile(r"^\s*(?:import|from)\s+(?:textual|rich|tui)\b", re.M)


def test_no_ui_imports_in_engine_sources() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert (ENGINE / "parse.py") in files
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
        "from tui.cli import main",
        "import tui",
    ]:
        assert FORBIDDEN.search(bad), bad
    for fine in ["import richtext", "from engine import tui_helpers", "# import rich later"]:
        assert not FORBIDDEN.search(fine), fine
