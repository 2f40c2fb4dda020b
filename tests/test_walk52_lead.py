"""Walk 52's findings fixed in the engine (the workbench's are in `tests/test_walk52.py`):
each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

from chunkscope.engine.read.formats.folders import file_session


def test_the_picker_finds_a_codex_request_after_a_long_preamble(tmp_path: Path) -> None:
    """F6: Codex 0.14x writes 70-90 KB of instructions and context before the first
    request, past the head the picker read: its row had no first request. A log of role
    and text (an export) had none either."""
    item = lambda ts, payload: {"timestamp": ts, "type": "response_item", "payload": payload}  # noqa: E731
    preamble = "You are Codex. " * 7000  # about 100 KB of the CLI's instructions
    records = [
        {"timestamp": "2026-07-18T11:54:00Z", "type": "session_meta", "payload": {"id": "s"}},
        item("2026-07-18T11:54:01Z", {"type": "message", "role": "developer",
             "content": [{"type": "input_text", "text": preamble}]}),
        item("2026-07-18T11:54:02Z", {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "Reapply for the grant, please."}]}),
    ]  # fmt: skip
    rollout = tmp_path / "rollout-2026-07-18T11-54-00-s.jsonl"
    rollout.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert file_session(rollout).title == "Reapply for the grant, please."
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps({"role": "user", "text": "Make three landing pages."}) + "\n")
    assert file_session(export).title == "Make three landing pages."
