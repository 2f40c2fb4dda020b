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


def test_a_search_cut_of_a_json_document_s_message_keeps_the_lines_of_its_text(
    tmp_path: Path,
) -> None:
    """F4: a chunk cut to the budget counted the line breaks of its kept text from the
    message's first line, the object's ``{``: a Gemini answer cut short said the ``{`` line
    alone, not the line its text is on."""
    from chunkscope.engine.chunk.split import chunk_turns
    from chunkscope.engine.search.core import prefix_lines

    answer = (
        "1. **If the key is present:** it asks for a touch.\n"
        "2. **If it is missing:** the check fails."
    )
    doc = {
        "sessionId": "g3",
        "projectHash": "ef",
        "startTime": "2026-01-10T01:55:00.000Z",
        "lastUpdated": "2026-01-10T01:57:00.000Z",
        "messages": [
            {"id": "g", "timestamp": "2026-01-10T01:56:00.000Z", "type": "gemini",
             "content": answer},
        ],
    }  # fmt: skip
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    text_line = next(i for i, ln in enumerate(lines, 1) if "If the key is present" in ln)
    (chunk,) = [c for c in chunk_turns(load(path).turns) if "the key is present" in c.text]
    assert chunk.lines is not None and chunk.lines[1] == text_line
    assert prefix_lines(chunk, 40) == chunk.lines  # the cut's text is on the text's line
