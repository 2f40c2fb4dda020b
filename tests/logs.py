"""Small logs the tests write, one way each: a seed JSONL log, a Claude Code session, a
Codex rollout of shell calls (or of any function calls), and a Claude Code project folder
for `review`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def seed_log(tmp_path: Path, turns: Sequence[tuple[str, Any]], name: str = "log.jsonl") -> Path:
    """A seed JSONL log of (role, content) messages, a minute apart."""
    f = tmp_path / name
    f.write_text(
        "".join(
            json.dumps({"role": r, "content": c, "timestamp": f"2026-01-01T10:0{i}:00"}) + "\n"
            for i, (r, c) in enumerate(turns)
        ),
        encoding="utf-8",
    )
    return f


def claude_log(tmp_path: Path, records: Sequence[tuple[str, Any]]) -> Path:
    """A Claude Code session of (type, message content) records, a second apart."""
    lines = []
    for i, (kind, content) in enumerate(records):
        record = {"type": kind, "uuid": f"u{i}", "sessionId": "s"}
        record["timestamp"] = f"2026-01-22T19:38:{i:02d}.000Z"
        lines.append(json.dumps({**record, "message": {"role": kind, "content": content}}))
    log = tmp_path / "s.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def codex_shell(
    tmp_path: Path,
    *calls: tuple[str | list[str], str],
    tool: str = "shell_command",
    task: str = "Set x to 2 and run the tests.",
) -> Path:
    """A Codex rollout: the user's `task`, then `tool` calls running each (command, its
    output); a command may be an argv list (``["apply_patch", PATCH]``)."""
    runs = [(tool, {"command": command, "workdir": "."}, output) for command, output in calls]
    return codex_calls(tmp_path, *runs, task=task)


def codex_calls(
    tmp_path: Path,
    *calls: tuple[str, dict[str, Any], str],
    task: str = "Set x to 2 and run the tests.",
) -> Path:
    """A Codex rollout: the user's `task`, then function calls (name, arguments, output)."""

    def record(kind: str, **payload: object) -> str:
        stamp = "2025-11-22T22:09:39.744Z"
        return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})

    lines = [
        record("session_meta", id="s1", timestamp="2025-11-22T20:45:35.590Z", cwd="/w"),
        record(
            "response_item",
            type="message",
            role="user",
            content=[{"type": "input_text", "text": task}],
        ),
    ]
    for i, (name, arguments, output) in enumerate(calls):
        lines.append(
            record(
                "response_item",
                type="function_call",
                name=name,
                arguments=json.dumps(arguments),
                call_id=f"c{i}",
            )
        )
        lines.append(
            record("response_item", type="function_call_output", call_id=f"c{i}", output=output)
        )
    log = tmp_path / "rollout-2025-11-22T20-45-35-s1.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def claude_project(tmp_path: Path, monkeypatch: Any) -> tuple[Path, Path]:
    """(A project folder, the folder Claude Code keeps its transcripts in) under a HOME
    of `tmp_path`'s, with no Claude Code variable set."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = (tmp_path / "proj").resolve()
    project.mkdir()
    name = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder = tmp_path / "home" / ".claude" / "projects" / name
    folder.mkdir(parents=True)
    return project, folder
