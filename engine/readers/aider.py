"""aider's chat history (``.aider.chat.history.md``).

``# aider chat started at 2024-05-01 10:00:00`` opens a session and gives its time;
``#### `` lines are what the user typed; ``> `` lines are aider's own output (files
added, edits applied, commits, command output), read as tool results; everything
else is the model's answer. Each turn keeps the line it starts on.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.readers.base import Collected, ReadOptions
from engine.source import _check_regular_file, _iter_lines

NAME = "aider"
STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")


def looks_like(first_line: str) -> bool:
    return bool(STARTED.match(first_line.strip()))


def read(path: Path, options: ReadOptions) -> Any:
    _check_regular_file(path)
    out = Collected(path, NAME)
    role: str | None = None
    kind: str | None
    start = 0
    lines: list[str] = []
    ts: str | None = None

    def flush() -> None:
        text = "\n".join(lines).strip("\n")
        if role is not None and text.strip():
            message: dict[str, Any] = {"role": role, "content": text, "timestamp": ts}
            if role == "tool":
                message["tool_call_id"] = None
                message["role"] = "aider"
            out.add(start, message)
            out.records += 1

    for lineno, line in _iter_lines(path, out.warnings, options.progress):
        started = STARTED.match(line)
        if started:
            flush()
            role, lines = None, []
            ts = started.group(1).replace(" ", "T")
            continue
        if line.startswith("#### "):
            kind, text = "user", line[5:]
        elif line == ">" or line.startswith("> "):
            kind, text = "tool", line[2:]
        else:
            kind, text = ("assistant" if line.strip() else role), line
        if kind != role:
            flush()
            role, start, lines = kind, lineno, []
        lines.append(text)
    flush()
    return out.build(options)
