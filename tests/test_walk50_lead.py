"""Walk 50's findings fixed in the readers and the engine (the command line's are in
`tests/test_walk50.py`): each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

from chunkscope.engine.read.parse import load


def test_a_gemini_result_s_lines_end_on_the_member_its_text_comes_from(tmp_path: Path) -> None:
    """F1: a tool result's range ran on to the call's ``resultDisplay`` line ("Search
    results for ... returned."), which the result's text does not hold: every Gemini
    session's results, and the merged chunks after them."""
    call = {
        "id": "s1",
        "name": "google_web_search",
        "args": {"query": "install on linux"},
        "result": [
            {
                "functionResponse": {
                    "id": "s1",
                    "name": "google_web_search",
                    "response": {"output": "Use the .deb package.\n\nThen run apt install."},
                }
            }
        ],
        "status": "success",
        "timestamp": "2026-01-10T01:56:00.000Z",
        "resultDisplay": 'Search results for "install on linux" returned.',
    }
    doc = {
        "sessionId": "g2",
        "projectHash": "cd",
        "startTime": "2026-01-10T01:55:00.000Z",
        "lastUpdated": "2026-01-10T01:57:00.000Z",
        "messages": [
            {"id": "u", "timestamp": "2026-01-10T01:55:00.000Z", "type": "user",
             "content": "How do I install it on Linux?"},
            {"id": "g", "timestamp": "2026-01-10T01:56:00.000Z", "type": "gemini",
             "content": "Searching.", "toolCalls": [call]},
        ],
    }  # fmt: skip
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    output_line = next(i for i, ln in enumerate(lines, 1) if "Use the .deb package" in ln)
    display_line = next(i for i, ln in enumerate(lines, 1) if '"resultDisplay"' in ln)
    tool = next(t for t in load(path).turns if t.role == "Tool")
    assert tool.text.startswith("Use the .deb package.")
    assert (tool.end_line or tool.line) == output_line < display_line, (tool, output_line)
