"""`chunk --format json` with the markdown strategy, as recorded in tests/golden/: on two
documents and a session (the strategy over its turns), every chunk's text, token count,
lines and metadata are those recorded, byte for byte. The speed work on this path keeps
every output as it was; a change that means to alter one regenerates the records with
``python tests/test_chunk_golden.py`` and shows the difference in its commit."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"

CASES: dict[str, list[str]] = {
    "shell_cookbook_markdown": ["shell_cookbook.md", "--strategy", "markdown"],
    "architecture_guide_120_0.2": [
        "architecture_guide.md",
        *("--strategy", "markdown", "--max-tokens", "120", "--overlap", "0.2"),
    ],
    "markup_injection_100_enrich": [
        "markup_injection.jsonl",
        *("--strategy", "markdown", "--max-tokens", "100", "--enrich"),
    ],
}


def _lines(name: str) -> list[str]:
    """The run's JSON as records: the document without its chunks, then one chunk a line
    (the source's path as its name; a document's chunk times, its file's modification
    time, as a mark)."""
    path, *flags = CASES[name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["chunk", str(ROOT / "sample_logs" / path), *flags, "--format", "json"]) == 0
    doc: dict[str, Any] = json.loads(out.getvalue())
    doc["source"] = Path(doc["source"]).name
    chunks = doc.pop("chunks")
    if doc["kind"] == "markdown":
        for c in chunks:
            c["start"] = c["end"] = "<mtime>"
    dump = json.dumps
    return [dump(doc, ensure_ascii=False), *(dump(c, ensure_ascii=False) for c in chunks)]


@pytest.mark.parametrize("name", list(CASES))
def test_markdown_strategy_json_is_as_recorded(name: str) -> None:
    recorded = (GOLDEN / f"chunk_{name}.jsonl").read_text(encoding="utf-8").splitlines()
    got = _lines(name)
    assert len(got) == len(recorded), name
    for i, (line, want) in enumerate(zip(got, recorded, strict=True)):
        assert line == want, f"{name}: record {i} differs"


if __name__ == "__main__":  # regenerate the records
    for case in CASES:
        text = "\n".join(_lines(case)) + "\n"
        (GOLDEN / f"chunk_{case}.jsonl").write_text(text, encoding="utf-8")
        print(f"tests/golden/chunk_{case}.jsonl", file=sys.stderr)
