"""Gemini CLI chat files (``~/.gemini/tmp/<project hash>/chats/session-*.json``).

One JSON document ``{"sessionId", "projectHash", "startTime", "lastUpdated",
"messages": [...]}``, or (newer versions) the same as JSON lines: a header line with
the session's fields, then one message a line, ``{"$set": {...}}`` lines updating the
header, and a message written again (same ``id``) when its tool calls finish: the last
copy is the message.

A ``{"$rewindTo": ID}`` line (``/rewind``) takes back the messages from that one on, as
the CLI does (counted); ``$set`` lines (the session's fields, the history the CLI
re-syncs) are not read, but for the summary a ``/compress`` left in the history
(``<state_snapshot>``, in no other line), read where it was made as a ``compaction``
message.

A message: ``{"id", "timestamp", "type", "content", "displayContent", "thoughts",
"toolCalls", "model", "tokens"}``. ``type`` ``user`` is what the user typed
(``displayContent`` when there is one: ``content`` then adds the files the prompt
names; a string or parts ``[{"text"}]``); ``gemini`` the model's answer, its
``thoughts`` (``subject`` and ``description``) read as Bot thinking and its
``toolCalls`` (``name``, ``args``, ``result`` as ``[{"functionResponse": {"response":
{"output" | "error"}}}]``, ``status``, ``resultDisplay``) as tool calls each followed
by its result; ``info``, ``error`` and ``warning`` are the CLI's own notes, read as
roles of those names, but for an ``error`` when no request is open (`CommandNotes`): the
CLI's reply to a slash command (it writes no user message for one), read as ``system``,
as Claude Code's local command output is. What the CLI writes as a user message is not
the user's: the ``<session_context>`` a chat opens with and the editor's state (IDE) are
not read (counted), a switch of approval mode (``User has manually exited Plan Mode.
Switching to ...``) is read as ``info``. Newer versions (0.4x on) also write the results
the CLI sent the model back as a ``user`` message of ``functionResponse`` parts: not read
again (counted), but a call whose own ``result`` is empty is read with the text found
there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chunkscope.engine.errors import SourceError
from chunkscope.engine.read.formats.base import (
    COMPACTION_ROLE,
    Collected,
    ReadOptions,
    first_text,
    text_of,
    tool_call,
    tool_result,
)
from chunkscope.engine.read.formats.jsondoc import Document
from chunkscope.engine.read.source import BOM, NO_PART_ENDS, PartEnds, _open_binary

NAME = "gemini-cli"
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
_HEADER_KEYS = ("projectHash", "startTime", "lastUpdated")
#: How the context Gemini CLI writes as a chat's first user turn opens (its date, OS,
#: folders and memory: environmentContext.ts), before and since the tag: the CLI's.
CONTEXT = ("<session_context>", "This is the Gemini CLI. We are setting up the context")
#: The model's turn the CLI writes after that context (environmentContext.ts): the CLI's.
CONTEXT_REPLY = "Got it. Thanks for the context!"
#: The prompt the CLI sends itself after a broken stream (client.ts), in the user's place.
RETRY_PROMPT = "System: Please continue."
#: Why such a user message gave no turn (the ``not_read`` reason).
RETRY_NOT_READ = "retry prompts the CLI sent (System: Please continue.)"
#: Why the context the CLI opens a chat with gave no turn (the ``not_read`` reason).
CONTEXT_NOT_READ = "context the CLI wrote (<session_context>)"
#: What the CLI writes as a user message when the approval mode changes (plan mode's
#: exit, `getPlanModeExitMessage`): the CLI's note, read as ``info``, no request.
_MODE_SWITCH = re.compile(
    r"\A(?:User has manually exited Plan Mode\.|Plan approved\.) Switching to "
)
#: The note the CLI writes when the user cancels a request (Esc): the request ends there.
CANCELLED = "Request cancelled."
#: The role of an ``error`` the CLI writes when no request is open (`CommandNotes`).
COMMAND_NOTE_ROLE = "system"
#: What the CLI sends as a user message of the IDE's state (ideContext): not read.
IDE_CONTEXT = "Here is a summary of changes in the user's editor context"
IDE_NOT_READ = "editor context the CLI sent (IDE)"


def looks_like(record: dict[str, Any]) -> bool:
    """A record of a Gemini CLI chat file written as JSON lines."""
    if "$set" in record or ("sessionId" in record and "projectHash" in record):
        return True
    return (
        record.get("type") in MESSAGE_TYPES
        and "id" in record
        and "content" in record
        and "message" not in record  # Claude Code's records keep theirs in 'message'
        and "role" not in record
    )


def is_document(value: Any) -> bool:
    """A Gemini CLI chat saved as one JSON document."""
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    if any(k in value for k in _HEADER_KEYS) and "sessionId" in value:
        return True
    first = next((m for m in value["messages"] if isinstance(m, dict)), None)
    return first is not None and looks_like(first)


def refusal(value: Any) -> str:
    """Why a JSON document is not a Gemini CLI chat."""
    if not isinstance(value, dict):
        return "not an object"
    if not isinstance(value.get("messages"), list):
        return "no 'messages' list"
    return "no 'sessionId' / 'projectHash', and its messages have no 'type' user / gemini"


def _text(content: Any) -> str:
    """A message's content: a string, or parts (``{"text"}``; other parts left out)."""
    if isinstance(content, list):
        return text_of([p for p in content if isinstance(p, dict | str)])
    return text_of(content)


def _result(call: dict[str, Any]) -> str:
    """The text of a tool call's result (what the model was given), else what the CLI
    showed (``resultDisplay``), else its error."""
    return _result_from(call)[0]


def _result_from(call: dict[str, Any]) -> tuple[str, str | None]:
    """`_result`'s text and the member of the call it comes from (one of `RESULT_KEYS`;
    None when there is none): its lines are that member's (walk 50, F1: a result's
    range ran on to the ``resultDisplay`` line after it, which it does not hold)."""
    parts: list[str] = []
    result = call.get("result")
    for item in result if isinstance(result, list) else [result]:
        if not isinstance(item, dict):
            continue
        fr = item.get("functionResponse")
        response = fr.get("response") if isinstance(fr, dict) else None
        if isinstance(response, dict):
            value = response.get("output", response.get("error"))
            if value is None:
                value = response.get("content")
            if value is not None:
                parts.append(value if isinstance(value, str) else text_of(value))
        elif isinstance(item.get("text"), str):
            parts.append(item["text"])
    if parts:
        return "\n".join(parts), "result"
    display = call.get("resultDisplay")
    if isinstance(display, str):
        return display, "resultDisplay"
    if isinstance(display, dict) and isinstance(display.get("fileDiff"), str):
        return display["fileDiff"], "resultDisplay"
    if isinstance(call.get("error"), str):
        return call["error"], "error"
    return "", None


#: The text Gemini CLI's shell tool gives the model (packages/core shell.ts): the command,
#: its folder, ``Output:`` and the output, then ``Error:``, ``Exit Code:``, ``Signal:``,
#: ``Background PIDs:``, ``Process Group PGID:`` (``(none)`` where there is none).
#: Newer versions (2026) write ``Output:`` and the output, then only the lines that say
#: something (``Error:``, ``Exit Code:`` when not 0, ``Process Group PGID:``).
_SHELL_RESULT = re.compile(
    r"\A(?:Command: .*?\n(?:Directory: [^\n]*\n)?)?Output: (?P<output>.*?)"
    r"(?:\nError: (?P<error>[^\n]*))?(?:\nExit Code: (?P<code>[^\n]*))?"
    r"(?P<tail>(?:\n(?:Signal|Background PIDs|Process Group PGID): [^\n]*)*)\s*\Z",
    re.S,
)
_NONE = "(none)"


def shell_result(text: str) -> tuple[str, int | None]:
    """A shell command's result as the other readers give it: ``Exit code: N`` (the
    collapsed sentence's exit code), an error the CLI names, then the output, without
    the lines the CLI writes around it for the model (walk 22: ``Error: (none)`` was
    read as the last check's result, a pushed commit as failed); other text as it is."""
    m = _SHELL_RESULT.match(text)
    if m is None or not (text.startswith("Command: ") or m.group("code") or m.group("tail")):
        return text, None  # (an output alone that opens with "Output: " is that output)
    code = (m.group("code") or "").strip()
    exit_code = int(code) if re.fullmatch(r"-?\d+", code) else None
    output = m.group("output")
    output = "" if output.strip() == "(empty)" else output
    error = (m.group("error") or "").strip()
    lines = [f"Exit code: {exit_code}"] if exit_code is not None else []
    if error and error != _NONE:
        lines.append(f"Error: {error}")
    if output.strip():
        lines.append(output)
    return "\n".join(lines), exit_code


def _responses(records: Any) -> dict[str, str]:
    """The tool results newer versions (0.4x on) also write as a ``user`` message of
    ``functionResponse`` parts, by call id: a call whose own ``result`` is empty is
    read with its text."""
    found: dict[str, str] = {}
    for record in records if isinstance(records, list) else []:
        if not isinstance(record, dict) or record.get("type") != "user":
            continue
        parts = record.get("content")
        for part in parts if isinstance(parts, list) else []:
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(fr, dict) and isinstance(fr.get("id"), str):
                text = _result({"result": [part]})
                if text:
                    found.setdefault(fr["id"], text)
    return found


def _only_responses(record: dict[str, Any]) -> bool:
    """A ``user`` message of tool results only (what the CLI sent the model back)."""
    parts = record.get("content")
    return (
        record.get("type") == "user"
        and isinstance(parts, list)
        and bool(parts)
        and all(isinstance(p, dict) and "functionResponse" in p for p in parts)
    )


#: Line breaks a thought's description opens with, written out (``\\n\\n`` as text,
#: escaped once too often) or not: the subject runs on into its first words.
_OPENING_BREAKS = re.compile(r"\A(?:\s|\\[nr])+")


def _thinking(thoughts: Any) -> str:
    """A message's thoughts, each ``subject: description``: a description that opens with
    line breaks written out as text (``"\\\\n\\\\n\\n\\nI'm starting ..."``) begins at its
    words (a summary's sentence was ``Reviewing the File Access: \\n\\n``: walk 45, F3); a
    subject that ends in a colon takes no second one."""
    out = []
    for t in thoughts if isinstance(thoughts, list) else []:
        if not isinstance(t, dict):
            continue
        subject = str(t.get("subject") or "").strip()
        description = _OPENING_BREAKS.sub("", str(t.get("description") or "")).strip()
        if subject and description:
            # (a subject may end in its own colon: "Compiling a Report:", walk 70, F2)
            out.append(f"{subject.rstrip(':').rstrip()}: {description}")
        elif subject or description:
            out.append(subject or description)
    return "\n".join(out)


def _cli_written(text: str) -> str | None:
    """Why a user message is the CLI's, not read (the ``not_read`` reason): its retry
    prompt (walk 22, F5), the context it opens a chat with (walk 51, F4: read as the
    Task), the editor's state; else None."""
    head = text.lstrip()
    if head.rstrip() == RETRY_PROMPT:
        return RETRY_NOT_READ
    if head.startswith(CONTEXT):
        return CONTEXT_NOT_READ
    if head.startswith(IDE_CONTEXT):
        return IDE_NOT_READ
    return None


class CommandNotes:
    """Which ``error`` records answer no request: the CLI writes every note it shows
    (``info``, ``error``) in the chat alike, and a slash command the user typed none of
    its own, so its reply is known by where it comes. A request is open from a user
    message (and while the model answers it) until an error (the CLI shows one a
    failed request) or the user's cancel (`CANCELLED`); an error after that, before the
    model or the user says more, is the CLI's reply to a command (walk 69, F3:
    ``/directory add`` with no path, "Please provide at least one path to add.", said as
    the answer to a request whose call the user had cancelled). The model's message after
    an error opens it again: that error was the CLI's own, mid-request ("Automatic update
    failed"), not the request's."""

    def __init__(self) -> None:
        self.open = False

    def role(self, record: dict[str, Any]) -> str | None:
        """The role an ``error`` record is read as (None for any other record), and the
        request's state after `record`."""
        kind = record.get("type")
        if kind in ("user", "gemini"):
            self.open = True
        elif kind == "info" and _text(record.get("content")).strip() == CANCELLED:
            self.open = False
        elif kind == "error":
            role = "error" if self.open else COMMAND_NOTE_ROLE
            self.open = False
            return role
        return None


def messages_of(
    record: dict[str, Any],
    responses: dict[str, str] | None = None,
    notes: CommandNotes | None = None,
) -> list[dict[str, Any]] | None:
    """Messages of the seed's shape for one chat message; None for a kind not read.
    `responses`: tool results by call id, for a call whose own result is empty; `notes`:
    the records read so far, for the role of an ``error`` (`CommandNotes`)."""
    kind = record.get("type")
    ts = record.get("timestamp")
    role = notes.role(record) if notes else None
    if kind == _SNAPSHOT_TYPE:
        return [{"role": COMPACTION_ROLE, "content": record.get("content"), "timestamp": ts}]
    if kind not in MESSAGE_TYPES:
        return None
    text = _text(record.get("content"))
    if kind == "user":
        shown = _text(record.get("displayContent"))
        if shown.strip():  # what the user typed; `content` adds the files it names
            text = shown
        if _cli_written(text):  # the CLI's, not the user's
            return []
        role = "info" if _MODE_SWITCH.match(text.lstrip()) else "user"  # (walk 51, F5)
        return [{"role": role, "content": text, "timestamp": ts}] if text.strip() else []
    if kind != "gemini":
        return [{"role": role or kind, "content": text, "timestamp": ts}] if text.strip() else []
    message: dict[str, Any] = {"role": "assistant", "content": text, "timestamp": ts}
    thinking = _thinking(record.get("thoughts"))
    if thinking:
        message["reasoning"] = thinking
    calls = record.get("toolCalls")
    results: list[dict[str, Any]] = []
    if isinstance(calls, list) and calls:
        tool_calls = []
        for i, call in enumerate(c for c in calls if isinstance(c, dict)):
            call_id = call.get("id") or f"{record.get('id')}-{i}"
            tool_calls.append(tool_call(call_id, call.get("name"), call.get("args")))
            text = _result(call)
            if not text and responses and isinstance(call.get("id"), str):
                text = responses.get(call["id"], "")
            text, exit_code = shell_result(text)
            result = tool_result(tool_calls[-1]["id"], text, call.get("timestamp") or ts, exit_code)
            if call.get("status") not in (None, "success"):
                result["is_error"] = True
            results.append(result)
        message["tool_calls"] = tool_calls
    if not (text.strip() or thinking or results):
        return []
    return [message, *results]


#: The members a chat message's text comes from, at any depth (its content, parts,
#: thoughts and its tool calls' arguments): its turn's lines end at the last.
TEXT_KEYS = ("content", "thoughts", "toolCalls", "text", "subject", "description", "args")
#: The members its content and calls are read from: a call's text is its arguments
#: (`args`, whole), never the tool's own `description` after them.
OWN_KEYS = ("content", "toolCalls", "text", "args")
#: The members of a tool call its result's text comes from (`_result`).
RESULT_KEYS = ("result", "resultDisplay", "error")

#: The (first, last) line of the text of each message `messages_of` makes of a record
#: (first: `Turn.text_start`, None when it is the record's line; last: None when not known).
Spans = list[tuple[int | None, int | None]]


def _spans(doc: Document, start: int | None, end: int | None, record: Any) -> Spans:
    """The lines of the text of each message `messages_of` makes of `record` (at
    ``doc.text[start:end]``): the message's own, from the record's line to the end of its
    content and calls' arguments, then each tool call's result, the lines of the member
    its text comes from (`_result_from`; none here, read from elsewhere, `_responses`, or
    none at all: the lines of the call's arguments, which say what ran)."""
    if start is None or end is None or not isinstance(record, dict):
        return []
    own = doc.part_end(start, record, ("content", "toolCalls"), OWN_KEYS)
    calls = (
        doc.member_span(start, "toolCalls") if isinstance(record.get("toolCalls"), list) else None
    )
    results: Spans = []
    for cstart, cend, call in doc.element_spans(calls[0]) if calls else []:
        if isinstance(call, dict):
            member = _result_from(call)[1]
            keys = (member,) if member is not None else RESULT_KEYS
            found = doc.text_end(cstart, cend, call, keys)
            if found is None:  # no result: the call it says ran (``Ran `ls` (no output).``)
                results.append(
                    (doc.part_start(cstart, ("args",)), doc.part_end(cstart, call, ("args",), ()))
                )
            else:
                results.append((doc.part_start(cstart, keys), doc.line(found - 1)))
    return [(None, own or doc.last_line(start, end, record, TEXT_KEYS)), *results]


def _add(
    out: Collected,
    line: int,
    record: dict[str, Any],
    spans: Spans | None = None,
    part_ends: PartEnds = NO_PART_ENDS,
    responses: dict[str, str] | None = None,
    notes: CommandNotes | None = None,
) -> None:
    messages = messages_of(record, responses, notes)
    if messages is None:
        out.not_read[f"{record.get('type') or 'untyped'} records"] += 1
    elif not messages:
        if _only_responses(record):
            out.not_read["tool results (read with their calls)"] += 1
        elif record.get("type") == "user" and (why := _cli_written(_text(record.get("content")))):
            out.not_read[why] += 1
        else:
            out.not_read["empty messages"] += 1
    else:
        out.read += 1
        spans = spans or []
        for i, m in enumerate(messages):
            first, last = spans[i] if i < len(spans) else (None, None)
            parts = part_ends if i == 0 else NO_PART_ENDS
            out.add(line, m, last, parts, text_start=first)


def read(path: Path, options: ReadOptions) -> Any:
    """A Gemini CLI session (a JSON chat file or JSON lines), read into turns."""
    if _is_jsonl(path):
        return _read_jsonl(path, options)
    doc = Document(path, options)
    out = Collected(path, NAME, warnings=doc.warnings, keep_messages=options.keep_messages)
    value = doc.value
    if not is_document(value):  # forced with --input-format
        raise SourceError(path, "not a Gemini CLI chat (no 'messages' list of chat messages)")
    responses = _responses(value.get("messages"))
    notes = CommandNotes()
    for start, end, record in doc.array_elements("messages"):
        out.records += 1
        line = 1 if start is None else doc.line(start)
        if not isinstance(record, dict):
            out.fail(line, f"not a JSON object (got {type(record).__name__})", options)
            continue
        parts = doc.part_ends(start, record, ("thoughts",), ("content",), TEXT_KEYS)
        _add(out, line, record, _spans(doc, start, end, record), parts, responses, notes)
    return out.build(options)


def _is_jsonl(path: Path) -> bool:
    """JSON lines (a header line, then one object a line) rather than one document:
    the first line is a whole object without the ``messages`` of a document."""
    with _open_binary(path) as fh:
        first = fh.readline(1 << 20).decode("utf-8", errors="replace").removeprefix(BOM).strip()
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and "messages" not in value


#: What a compression's summary opens with (chatCompressionService.ts), and the `type`
#: it is read as: a ``compaction`` message, as Claude Code's and Codex's are.
SNAPSHOT = "<state_snapshot>"
_SNAPSHOT_TYPE = "$state_snapshot"


def _snapshot(update: Any, seen: dict[str, int]) -> dict[str, Any] | None:
    """The summary a compression left in a ``$set`` of the history (``messages``, the
    CLI's re-sync after ``/compress``: the summary is a new user message there and
    nowhere else), as a record of `_SNAPSHOT_TYPE`; None when there is none."""
    messages = update.get("messages") if isinstance(update, dict) else None
    for m in messages if isinstance(messages, list) else []:
        if not isinstance(m, dict) or not isinstance(m.get("id"), str) or m["id"] in seen:
            continue
        text = _text(m.get("content"))
        if m.get("type") == "user" and text.lstrip().startswith(SNAPSHOT):
            return {**m, "type": _SNAPSHOT_TYPE, "content": text}
    return None


def _read_jsonl(path: Path, options: ReadOptions) -> Any:
    out = Collected(path, NAME, keep_messages=options.keep_messages, container="jsonl")
    # A message is written again when its tool calls finish: the last copy counts, in
    # the place of the first.
    order: list[tuple[int, dict[str, Any]]] = []
    where: dict[str, int] = {}
    for line, record in out.objects(options):
        out.records += 1
        if "$set" in record:
            snapshot = _snapshot(record["$set"], where)
            if snapshot is None:
                out.not_read["session updates ($set)"] += 1
            else:  # a /compress: its summary, where it was made
                where[snapshot["id"]] = len(order)
                order.append((line, snapshot))
            continue
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            # /rewind: the messages from this one on are taken back, as the CLI does
            # (an id not read takes nothing back: the file's messages stay)
            out.not_read["rewinds ($rewindTo)"] += 1
            i = where.get(rewind)
            if i is not None:
                out.not_read["messages taken back by a rewind"] += len(order) - i
                del order[i:]
                where = {k: v for k, v in where.items() if v < i}
            continue
        if "type" not in record and "sessionId" in record:
            out.not_read["session metadata"] += 1
            continue
        key = record.get("id")
        if isinstance(key, str) and key in where:
            out.not_read["earlier copies of a message"] += 1
            i = where[key]
            order[i] = (line, record)
            continue
        if isinstance(key, str):
            where[key] = len(order)
        order.append((line, record))
    responses = _responses([record for _, record in order])
    notes = CommandNotes()
    for line, record in order:
        _add(out, line, record, responses=responses, notes=notes)
    return out.build(options)


_FIRST_USER = re.compile(r'"type"\s*:\s*"user"')
_STRING = re.compile(r'"(?:text|content)"\s*:\s*("(?:[^"\\]|\\.)*")')
#: What a user message shows as typed (newer chats), a string or its first text part.
_DISPLAY = re.compile(r'"displayContent"\s*:\s*(?:\[\s*\{\s*"text"\s*:\s*)?("(?:[^"\\]|\\.)*")')
_NEXT_RECORD = re.compile(r'"type"\s*:|\n\{')


def first_user_message(
    head: str, user: re.Pattern[str] = _FIRST_USER, task: Callable[[str], str] = str
) -> str:
    """The first user message of a chat file (or of any JSON document whose user
    messages `user` finds), from its first bytes; `task`: what of it is shown (a
    trajectory's request: its task without the prompt template's words)."""
    found = user.search(head)
    while found:
        end = _NEXT_RECORD.search(head, found.end())
        shown = _DISPLAY.search(head, found.end(), end.start() if end else len(head))
        text = shown or _STRING.search(head, found.end())
        if text:
            try:
                value = json.loads(text.group(1))
            except ValueError:
                value = ""
            line = first_text([task(value)]) if isinstance(value, str) else ""
            if line and not (_cli_written(line) or _MODE_SWITCH.match(line)):
                return line
        found = user.search(head, found.end())
    return ""
