"""Gemini CLI headless transcripts (``gemini -p ... --output-format stream-json``).

One event a line (packages/core/src/output/types.ts, ``JsonStreamEventType``), each with
its ``type`` and ``timestamp``:

- ``init`` (``session_id``, ``model``): the run's start, session metadata (not read,
  counted);
- ``message`` (``role`` user / assistant, ``content`` a string, ``delta``): what the user
  asked, and the model's answer as it streamed: each ``delta`` event is a piece of it,
  cut anywhere (mid-word, mid-URL), so the consecutive ``delta`` pieces of one role are
  read as one message, from the first piece's line to the last's, each piece's line kept
  (`Turn.pieces`): a paragraph of it that a chunk holds says the lines of the pieces
  holding its words, not the whole message's (walk 72, F4);
- ``tool_use`` (``tool_name``, ``tool_id``, ``parameters``): a call, under Gemini CLI's
  own tool names (``run_shell_command``, ``write_file``, ``replace``, ``read_file``, MCP
  tools), as the chat files name them;
- ``tool_result`` (``tool_id``, ``status`` success / error, ``output``: what the CLI
  showed, absent for a write; ``error``: ``{type, message}``): its call's result, its
  error's message when it has no output, a failed call when ``status`` is ``error``;
- ``error`` (``severity`` warning / error, ``message``): the CLI's note, read as the chat
  files' ``warning`` / ``error`` notes are;
- ``result`` (``status``, ``stats``, ``error``): the run's end; one that failed reads as
  its error (an ``error`` note), one that succeeded says only the run's token counts (not
  read, counted).

Harnesses that save the stream add fields of their own (a ``ts`` beside each event) and
lines of their own (the prompt as a ``message`` without a ``timestamp``): those lines are
messages like any other; the added fields are not read. Event kinds of other versions
(``retry``, ``loop_detected``) are counted by kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkscope.engine.model import solid_chars
from chunkscope.engine.read.formats.base import (
    Collected,
    ReadOptions,
    first_text,
    text_of,
    tool_call,
    tool_result,
)
from chunkscope.engine.read.formats.gemini import shell_result

NAME = "gemini-cli-stream"
#: What its files are, in words (the header's label).
LABEL = "gemini-cli stream-json"
#: The other name ``--input-format`` takes for it: the CLI's own for the output.
ALIASES = ("gemini-stream-json",)
_ROLES = ("user", "assistant")
#: The fields that make each event kind this format's (not another log's ``message``).
_EVENT_FIELDS = {
    "init": ("session_id", "model"),
    "tool_use": ("tool_name", "tool_id"),
    "tool_result": ("tool_id", "status"),
    "error": ("severity", "message"),
}


def looks_like(record: dict[str, Any]) -> bool:
    """An event of Gemini CLI's stream-json output: a ``message`` of role user /
    assistant whose ``content`` is a string (a Codex item's is a list of parts), or an
    event kind with its own fields (`_EVENT_FIELDS`; a ``result`` with its ``stats``)."""
    kind = record.get("type")
    if kind == "message":
        return (
            record.get("role") in _ROLES
            and isinstance(record.get("content"), str)
            and "payload" not in record
        )
    if kind == "result":
        return "status" in record and "stats" in record
    fields = _EVENT_FIELDS.get(kind) if isinstance(kind, str) else None
    return fields is not None and all(f in record for f in fields)


@dataclass
class _Streamed:
    """The ``delta`` pieces of one message read so far: its role, text, lines, time, and
    where each piece starts (`Turn.pieces`: the non-blank characters before it, its line)."""

    role: str
    line: int
    timestamp: Any
    parts: list[str] = field(default_factory=list)
    end_line: int = 0
    records: int = 0
    starts: list[tuple[int, int]] = field(default_factory=list)
    solid: int = 0  # the non-blank characters of `parts`

    def take(self, text: str, line: int) -> None:
        """Add the piece `text`, read on `line`."""
        self.starts.append((self.solid, line))
        self.solid += solid_chars(text)
        self.parts.append(text)
        self.end_line = line
        self.records += 1


def _flush(out: Collected, pending: _Streamed | None) -> None:
    """Read the message `pending` holds (its pieces joined, as the CLI printed them)."""
    if pending is None:
        return
    text = "".join(pending.parts)
    if not text.strip():
        out.not_read["empty messages"] += pending.records
        return
    out.read += pending.records
    role = pending.role if pending.role in _ROLES else "system"
    out.add(
        pending.line,
        {"role": role, "content": text, "timestamp": pending.timestamp},
        end_line=pending.end_line,
        pieces=tuple(pending.starts) if pending.end_line > pending.line else None,
    )


def _result_text(record: dict[str, Any]) -> str:
    """A tool result's text: what the CLI showed (``output``), else its error's message."""
    output = record.get("output")
    text = output if isinstance(output, str) else text_of(output) if output else ""
    error = record.get("error")
    said = error.get("message") if isinstance(error, dict) else None
    return said if not text.strip() and isinstance(said, str) else text


def read(path: Path, options: ReadOptions) -> Any:
    """A Gemini CLI stream-json transcript, read into turns."""
    out = Collected(path, NAME, keep_messages=options.keep_messages)
    pending: _Streamed | None = None
    for line, rec in out.objects(options):
        out.records += 1
        kind = rec.get("type")
        ts = rec.get("timestamp")
        if kind == "message":
            content = rec.get("content")
            text = content if isinstance(content, str) else text_of(content)
            role = str(rec.get("role") or "")
            delta = rec.get("delta") is True
            if delta and pending is not None and pending.role == role:
                pending.take(text, line)
                continue
            _flush(out, pending)
            pending = _Streamed(role, line, ts)
            pending.take(text, line)
            if not delta:  # a whole message: nothing joins it
                _flush(out, pending)
                pending = None
            continue
        _flush(out, pending)
        pending = None
        if kind == "tool_use":
            call = tool_call(rec.get("tool_id"), rec.get("tool_name"), rec.get("parameters"))
            out.read += 1
            message = {"role": "assistant", "content": "", "tool_calls": [call], "timestamp": ts}
            out.add(line, message)
        elif kind == "tool_result":
            text, code = shell_result(_result_text(rec))
            message = tool_result(rec.get("tool_id"), text, ts, code)
            if rec.get("status") == "error":
                message["is_error"] = True
            out.read += 1
            out.add(line, message)
        elif kind == "error" and isinstance(rec.get("message"), str) and rec["message"].strip():
            role = "warning" if rec.get("severity") == "warning" else "error"
            out.read += 1
            out.add(line, {"role": role, "content": rec["message"], "timestamp": ts})
        elif kind == "result":
            error = rec.get("error")
            said = error.get("message") if isinstance(error, dict) else None
            if rec.get("status") == "error" and isinstance(said, str) and said.strip():
                out.read += 1  # the run ended on this error
                out.add(line, {"role": "error", "content": said, "timestamp": ts})
            else:
                out.not_read["run results (token counts)"] += 1
        elif kind == "init":
            out.not_read["session metadata"] += 1
        else:
            out.not_read[f"{kind or 'untyped'} records"] += 1
    _flush(out, pending)
    return out.build(options)


def first_user_message(records: list[dict[str, Any]]) -> str:
    """The text of the transcript's first user message ("" when there is none)."""
    return first_text(
        r["content"]
        for r in records
        if r.get("type") == "message"
        and r.get("role") == "user"
        and isinstance(r.get("content"), str)
    )
