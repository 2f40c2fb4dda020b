"""Walk 19's findings: an aider request repeated after its command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.tui.cli import main

REPEATED = """# aider chat started at 2026-01-01 10:00:00

#### /ask what does main do

#### what does main do

#### /add main.py
> Added main.py to the chat

It prints hello.
"""


def test_the_request_after_a_repeat_keeps_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """walk 19, 1: the repeat was deleted from its block, so the text after it moved up a
    line and its paragraph opened on a blank one (``You: \\n/add main.py``, lines [6, 8]
    where /add is on line 7)."""
    path = tmp_path / "rep.md"
    path.write_text(REPEATED)
    assert main(["chunk", str(path), "--embed", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    file_lines = REPEATED.split("\n")
    for chunk in out["chunks"]:
        first, last = chunk["lines"]
        assert file_lines[first - 1].strip() and file_lines[last - 1].strip()
        for line in chunk["text"].split("\n"):
            body = line.split(": ", 1)[1] if ": " in line else line
            assert body.strip(), chunk  # no label line without words
    starts = {c["text"].split("\n")[0]: c["lines"] for c in out["chunks"]}
    assert starts["You: /add main.py"] == [7, 8]
    # the header, the user's block, aider's note, the answer
    assert out["records"] == out["read"] == 4
    assert "what does main do\n" not in "".join(c["text"] for c in out["chunks"]).replace(
        "/ask what does main do", ""
    )
