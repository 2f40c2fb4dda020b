"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON record a line. The records read:

- ``user``: ``message.content`` is the user's text, or blocks: ``text``,
  ``tool_result`` (the result of a tool call, matched by ``tool_use_id``; the
  ``<system-reminder>`` blocks Claude Code appends are stripped, and counted),
  ``image``. Each ``<task-notification>`` a text opens with (a background task's
  report) reads as a message of its own, the words after them as another. A slash
  command (``<command-name>/x</command-name>``) reads as ``/x args``, its output
  (``<local-command-stdout>``) as a system message; a compaction summary
  (``isCompactSummary``) as a ``compaction`` message. ``isMeta`` records are the
  tool's own: hook feedback (``Stop hook feedback: ...``), a slash command's or a
  skill's body read as role ``Meta``; the local-command caveat is boilerplate, not read.
- ``assistant``: blocks ``text``, ``thinking`` (Bot thinking), ``redacted_thinking``
  (never read: it is encrypted; counted), ``tool_use`` (a tool call: name and input).
  Claude Code writes some in the model's place (``model`` ``<synthetic>``): its API
  errors (``isApiErrorMessage``) read as role ``error``, its ``No response requested.``
  after a local command (``/exit``) not read (counted).
- ``system``: kept as a system message (collapsing drops it), but a ``local_command``
  one (a slash command the tool ran, 2.1.x) reads as a user record's command and its
  output do; ``summary``, ``ai-title``, ``custom-title`` (``/rename``): the session's
  title.
- ``attachment`` ``queued_command`` (2.1.x): a message the user typed while the agent
  was working, handed to it mid-turn (``attachment.prompt``), read as the user's as a
  ``user`` record's text is; other attachments (the tool's reminders to the model) are
  not read.
- other record kinds (``progress``, ``file-history-snapshot``, ``queue-operation``,
  ...) are not read, and counted by kind.

``uuid`` / ``parentUuid`` chain the records into a tree. The results of parallel tool
calls are sibling records (each a child of its call's record), and one answer's blocks
are often several records: all are read, each result after its call, a run of results
in the order of its calls. Only a real rewind leaves records out: a message the user
typed re-parented onto an earlier point of the conversation (the chain that ends at the
last record, followed back through ``logicalParentUuid`` across a compaction); what
hangs on the branch it replaced is not read, and counted. A slash command or a memory
note is no rewind, wherever it hangs: Claude Code writes ``/export`` and a ``#`` note
onto the session's first record. A record seen twice (a
resumed session) is read once. ``isSidechain`` records are a subagent's: read as role
``Subagent`` (or left out without `ReadOptions.subagents`), its calls in its text and
kept aside (`SUBAGENT_CALLS`) to be collapsed as the main agent's are.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple

from chunkscope.engine.read.commands import command_request
from chunkscope.engine.read.formats.base import (
    BRANCH_NOTE,
    COMPACTION_ROLE,
    CWD_NOTE,
    SESSION_NOTE,
    Collected,
    ReadOptions,
    SessionInfo,
    decoded_calls,
    first_text,
    text_of,
    tool_call,
)
from chunkscope.engine.toolcall import calls_text, mcp_name

NAME = "claude-code"

#: Where Claude Code 2.1.2 on keeps a subagent's transcript: ``<session>/subagents/
#: agent-<id>.jsonl`` (and its ``.meta.json``) beside ``<session>.jsonl``, which keeps the
#: Task call and its result only. Not a session of its own (`is_subagent_folder`).
SUBAGENT_FOLDER = "subagents"


def is_subagent_folder(folder: Path) -> bool:
    """Whether `folder` holds a session's subagent transcripts (`SUBAGENT_FOLDER` in a
    folder named as a session file beside it)."""
    session = folder.parent
    return folder.name == SUBAGENT_FOLDER and (session.parent / f"{session.name}.jsonl").is_file()


SUBAGENT_ROLE = "Subagent"
#: A subagent message's tool calls (as ``tool_calls``) and its text without them: its
#: ``content`` shows the calls as text, and `engine.recap.collapse` collapses these as it
#: does the main agent's (a result keeps its ``tool_call_id``).
SUBAGENT_CALLS = "subagent_calls"
SUBAGENT_SAID = "subagent_said"
META_ROLE = "Meta"

#: A background task's report, arriving as a user message: a subagent's (its result) or
#: a background command's (its exit code).
_NOTIFICATION = re.compile(r"\A\s*<task-notification>(.*?)(?:</task-notification>|\Z)", re.S)
#: One notification of those a user message opens with, and the lines Claude Code writes
#: after it ("Read the output file to retrieve the result: ..." after a background
#: command's, "Full transcript available at: ..." after a subagent's).
_NOTIFICATION_PART = re.compile(
    r"\s*<task-notification>.*?(?:</task-notification>|\Z)"
    r"(?:\s*(?:Read the output file to retrieve the result|Full transcript available at):"
    r"[^\n]*)*",
    re.S,
)
_NOTE_FIELD = re.compile(r"<(summary|result|status)>\s*(.*?)\s*</\1>", re.S)
_AGENT_DONE = re.compile(r'\AAgent "(.+?)" (\w+)')


class Notification(NamedTuple):
    """A ``<task-notification>``: `agent` the subagent's description (None for a
    background command's notice), its `status`, `summary` and `result`."""

    agent: str | None
    status: str
    summary: str
    result: str


def notification(text: str) -> Notification | None:
    """The background task's report a user message is, or None."""
    body = _NOTIFICATION.match(text)
    if not body:
        return None
    fields = dict(_NOTE_FIELD.findall(body.group(1)))
    summary = fields.get("summary", "")
    agent = _AGENT_DONE.match(summary)
    status = fields.get("status") or (agent.group(2) if agent else "")
    return Notification(
        agent.group(1) if agent else None, status, summary, fields.get("result", "")
    )


def notification_parts(text: str) -> list[str]:
    """A user message's text cut after each task notification it opens with: each
    notification its own part, the words after them the last (walk 28, F12: the first
    notification was the whole message, a second one or the user's words after it lost);
    ``[text]`` when it opens with none."""
    parts: list[str] = []
    at = 0
    while (part := _NOTIFICATION_PART.match(text, at)) is not None:
        parts.append(part.group().strip())
        at = part.end()
    if not parts:
        return [text]
    rest = text[at:].strip()
    return [*parts, rest] if rest else parts


_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
#: The command's arguments: the user's request to it (in either order beside its name).
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_TAG_FIRST = re.compile(r"\s*<")  # a text that starts (after blanks) with a tag
_STDOUT = re.compile(
    r"<local-command-(?:stdout|stderr)>(.*?)</local-command-(?:stdout|stderr)>", re.S
)
#: Bash mode (``! git status`` typed at the prompt): the command and its output.
_BASH_INPUT = re.compile(r"\A\s*<bash-input>(.*?)</bash-input>\s*\Z", re.S)
_BASH_OUTPUT = re.compile(r"<bash-(?:stdout|stderr)>(.*?)</bash-(?:stdout|stderr)>", re.S)
#: How a bash-mode command reads: as typed at the prompt.
BASH_MODE = "! "
#: A memory note (``# always use conventional commits`` typed at the prompt, saved to
#: CLAUDE.md): the note, read as typed (`MEMORY_MODE` before it).
_MEMORY_INPUT = re.compile(r"\A\s*<user-memory-input>(.*?)</user-memory-input>\s*\Z", re.S)
MEMORY_MODE = "# "
#: The text Claude Code writes for a message with nothing in it: no message.
NO_CONTENT = "(no content)"
#: The model Claude Code names on an assistant record it wrote itself.
SYNTHETIC_MODEL = "<synthetic>"
#: What Claude Code writes as the agent's answer to a local command (``/exit``), in
#: the model's place (`SYNTHETIC_MODEL`): no answer of the model's.
NO_RESPONSE = "No response requested."


#: Record types of a Claude Code session (a file may start with many that are not read).
_RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "file-history-snapshot",
        "progress",
        "queue-operation",
    }
)


def looks_like(record: dict[str, Any]) -> bool:
    """A Claude Code record: a known ``type`` with Claude Code's own fields."""
    kind = record.get("type")
    if kind == "summary" and "leafUuid" in record:
        return True
    if kind not in _RECORD_TYPES:
        return False
    return any(k in record for k in ("parentUuid", "sessionId", "uuid", "isSidechain", "messageId"))


def _tool_result_text(block: dict[str, Any]) -> str:
    return text_of(block.get("content"))


def _server_result(block: dict[str, Any], ts: Any) -> dict[str, Any]:
    """A server tool's result block (``web_search_tool_result``, ``web_fetch_tool_result``,
    ...), which Anthropic's API puts in the calling message: the call's result, each
    search result on a line (its title and URL), an error block an error."""
    content = block.get("content")
    result: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": block.get("tool_use_id"),
        "timestamp": ts,
    }
    if isinstance(content, dict) and content.get("error_code"):
        result["content"] = f"Error: {content['error_code']}"
        result["is_error"] = True
    elif isinstance(content, dict) and ("stdout" in content or "stderr" in content):
        # code execution: what it printed, its exit code as a shell's result says it
        said = "\n".join(str(content.get(k) or "").rstrip() for k in ("stdout", "stderr"))
        code = content.get("return_code")
        result["content"] = f"Exit code: {code}\n{said.strip()}" if code is not None else said
    elif isinstance(content, dict) and isinstance(content.get("content"), dict):
        # a fetched document (web_fetch): its text
        source = content["content"].get("source")
        data = source.get("data") if isinstance(source, dict) else None
        result["content"] = str(data) if data is not None else text_of(content["content"])
    elif block.get("is_error"):
        result["content"] = text_of(content)
        result["is_error"] = True
    elif isinstance(content, list) and all(
        isinstance(item, dict) and item.get("type") == "text" for item in content
    ):
        result["content"] = text_of(content)  # an MCP tool's text blocks
    elif isinstance(content, list):
        lines = [
            " ".join(str(item.get(k) or "") for k in ("title", "url")).strip()
            for item in content
            if isinstance(item, dict)
        ]
        result["content"] = "\n".join(line for line in lines if line) or text_of(content)
    else:
        result["content"] = text_of(content)
    return result


def block_messages(
    role: str, content: Any, ts: Any, stripped: Counter[str] | None = None
) -> list[dict[str, Any]]:
    """Messages of the seed's shape for one Anthropic-style message (a string, or
    blocks): also used for Anthropic message lists saved as JSON. Encrypted blocks
    (``redacted_thinking``) are never read: counted in `stripped` when given."""
    if not isinstance(content, list):
        text = text_of(content)
        return [{"role": role, "content": text, "timestamp": ts}]
    out: list[dict[str, Any]] = []
    if role == "assistant":
        # The blocks in their order: a text after a call opens a new message, and a
        # server tool's result (in the message) follows the message of its call.
        thinking: list[str] = []
        texts: list[str] = []
        calls: list[dict[str, Any]] = []

        def flush() -> None:
            if not (thinking or texts or calls):
                return
            message: dict[str, Any] = {
                "role": "assistant",
                "content": "\n".join(texts),
                "timestamp": ts,
            }
            if thinking:
                message["reasoning"] = "\n".join(thinking)
            if calls:
                message["tool_calls"] = list(calls)
            out.append(message)
            thinking.clear()
            texts.clear()
            calls.clear()

        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(block, str) or (kind == "text" and isinstance(block.get("text"), str)):
                if calls:
                    flush()
                texts.append(block if isinstance(block, str) else block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                if calls or texts:
                    flush()
                thinking.append(block["thinking"])
            elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
                name, server = block.get("name"), block.get("server_name")
                if kind == "mcp_tool_use" and isinstance(name, str) and isinstance(server, str):
                    name = mcp_name(server, name)  # as Claude Code names it (walk 29, F4)
                calls.append(tool_call(block.get("id"), name, block.get("input")))
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                flush()
                out.append(_server_result(block, ts))
            elif kind == "redacted_thinking" and stripped is not None:
                stripped["encrypted reasoning blocks"] += 1  # encrypted: never shown
        flush()
        return out
    # in their order: the words after a tool result follow it (walk 28, F13)
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "tool_result":
                if texts:
                    out.append({"role": role, "content": "\n".join(texts), "timestamp": ts})
                    texts = []
                result: dict[str, Any] = {
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id"),
                    "content": _tool_result_text(block),
                    "timestamp": ts,
                }
                if block.get("is_error"):
                    result["is_error"] = True
                out.append(result)
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("image", "document"):
                texts.append(f"[{kind}]")
    if texts:
        out.append({"role": role, "content": "\n".join(texts), "timestamp": ts})
    return out


#: The retry count `api_error_text` ends with, as a reader of its text finds it.
API_RETRY = re.compile(r"\s*\(retry \d+ of \d+\)\s*\Z")


def api_error_text(record: dict[str, Any]) -> str:
    """What a ``system`` record of subtype ``api_error`` says (Claude Code 2.x writes one
    for each retry of a failed request): ``API error 500: MESSAGE (retry 1 of 10)``; ""
    when it names nothing (walk 51, F12: eight were "empty system records", and a
    session whose every request failed read as "hello" and nothing else)."""
    error = record.get("error")
    error = error if isinstance(error, dict) else {}
    status = error.get("status")
    inner: Any = error
    message = ""
    for _ in range(3):  # {"error": {"error": {"type", "message"}}}, however deep
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            message = inner["message"]
            break
        inner = inner.get("error") if isinstance(inner, dict) else None
    if not message and not status:
        return ""
    head = f"API error {status}" if isinstance(status, int) else "API error"
    said = f"{head}: {' '.join(message.split())}" if message else head
    attempt, most = record.get("retryAttempt"), record.get("maxRetries")
    if isinstance(attempt, int) and isinstance(most, int):
        said += f" (retry {attempt} of {most})"
    return said


def _user_messages(text: str, ts: Any) -> list[dict[str, Any]]:
    """The messages of a user record's text: each task notification it opens with one,
    the rest one, as `_user_text` reads them."""
    return [
        {"role": role, "content": said, "timestamp": ts}
        for role, said in map(_user_text, notification_parts(text))
    ]


def _user_text(text: str) -> tuple[str, str]:
    """(role, text) of a user record's text: slash commands and their output cleaned."""
    if not _TAG_FIRST.match(text):  # the usual message: no tag to look for
        return "user", text
    command = _COMMAND.search(text)
    if command and text.lstrip().startswith("<command-"):
        given = _COMMAND_ARGS.search(text)
        args = given.group(1).strip() if given else ""
        return "user", f"{command.group(1).strip()} {args}".strip()
    output = _STDOUT.search(text)
    if output and text.lstrip().startswith("<local-command-"):
        return "system", output.group(1).strip()
    # bash mode, as typed and its output as the slash commands' (walk 22, F10: the tags)
    typed = _BASH_INPUT.match(text)
    if typed:
        return "user", BASH_MODE + typed.group(1).strip()
    note = _MEMORY_INPUT.match(text)
    if note:
        return "user", MEMORY_MODE + note.group(1).strip()
    if text.lstrip().startswith("<bash-std"):
        said = [m.group(1).strip("\n") for m in _BASH_OUTPUT.finditer(text)]
        return "system", "\n".join(t for t in said if t.strip()) or "(no output)"
    return "user", text


_CAVEAT = "Caveat: The messages below were generated by the user"  # local commands
#: How a user record the tool writes for itself opens: a slash command, a memory note
#: (``#`` at the prompt). Claude Code hangs some of these on the session's first record
#: (``/export``, a memory note at the end of a session), so they are never a rewind.
_LOCAL_OPENINGS = ("<command-", "<user-memory-input>", "<bash-input>", "<bash-std")


def _local_record(record: dict[str, Any]) -> bool:
    """Is a user record a slash command or a memory note rather than a typed message?"""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = next(
            (b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"),
            None,
        )
    return isinstance(content, str) and content.lstrip().startswith(_LOCAL_OPENINGS)


_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
#: The records that title the session, and the member their title is in: ``summary``
#: (1.x), ``ai-title`` (the title 2.1.x makes itself) and ``custom-title`` (``/rename``).
_TITLES = {"summary": "summary", "ai-title": "aiTitle", "custom-title": "customTitle"}
#: What a record of a kind not read is counted as (``not_read``).
_KIND_NAMES = {
    "progress": "progress records",
    "file-history-snapshot": "file-history snapshots",
    "queue-operation": "queue operations",
    "system": "empty system records",
}


#: What an IDE extension (VS Code, JetBrains) adds to a prompt: the file the user has open,
#: the lines selected, the problems shown. The tool's words about the user's editor, not
#: the user's: stripped, and counted.
_IDE_BLOCK = re.compile(r"\s*<(ide_opened_file|ide_selection|ide_diagnostics)>.*?</\1>\s*", re.S)
IDE_BLOCKS = "IDE context blocks"


def strip_ide_blocks(text: str) -> tuple[str, int]:
    """`text` (a prompt) without the blocks an IDE extension adds (`_IDE_BLOCK`), and how
    many there were."""
    if "<ide_" not in text:
        return text, 0
    stripped, n = _IDE_BLOCK.subn("\n", text)
    return stripped.strip("\n"), n


def strip_reminders(text: str) -> tuple[str, int]:
    """`text` without the ``<system-reminder>`` blocks Claude Code appends to tool
    results, and how many there were."""
    if "<system-reminder>" not in text:
        return text, 0
    stripped, n = _REMINDER.subn("\n", text)
    return stripped.strip("\n"), n


def _meta(record: dict[str, Any], ts: Any) -> list[dict[str, Any]]:
    """An ``isMeta`` record: the local-command caveat is boilerplate (nothing); hook
    feedback, a slash command's or a skill's body read as role ``Meta``."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = text_of(content).strip()
    if not text or text.startswith(_CAVEAT):
        return []
    return [{"role": META_ROLE, "content": text, "timestamp": ts}]


def _queued(record: dict[str, Any], ts: Any) -> list[dict[str, Any]] | None:
    """An ``attachment`` record: a ``queued_command`` is a message the user typed while
    the agent worked (or a background task's notification), handed over mid-turn: read
    as a user record's text; None for the other attachments (not read)."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return None
    text = text_of(attachment.get("prompt")).strip()
    if not text:
        return []
    return _user_messages(text, ts)


def _messages(
    record: dict[str, Any],
    options: ReadOptions,
    kind: Any = None,
    stripped: Counter[str] | None = None,
) -> list[dict[str, Any]] | None:
    """The messages of one record (of ``type`` `kind`, read from it when not given);
    None when the record is not a conversation record."""
    if kind is None:
        kind = record.get("type")
    ts = record.get("timestamp")
    if kind == "system":
        if record.get("subtype") == "api_error":
            said = api_error_text(record)
            return [{"role": "error", "content": said, "timestamp": ts}] if said else []
        text = text_of(record.get("content"))
        if not text:
            return []
        # a slash command the tool ran itself (2.1.x ``local_command``): as a user
        # record's, the command as typed, its output as a system message
        role, text = _user_text(text) if record.get("subtype") == "local_command" else ("", text)
        return [{"role": role or "system", "content": text, "timestamp": ts}]
    if kind == "attachment":
        return _queued(record, ts)
    if kind not in ("user", "assistant"):
        return None
    if kind == "assistant" and record.get("isApiErrorMessage"):
        # the tool's error written in the agent's place ("Credit balance is too low",
        # `error: billing_error`): an error turn, not the agent's words (walk 53, F10)
        body = record.get("message")
        said = text_of(body.get("content")) if isinstance(body, dict) else ""
        what = record.get("error")
        if isinstance(what, str) and what.strip():
            said = f"{said} ({what.replace('_', ' ')})" if said.strip() else what
        return [{"role": "error", "content": said, "timestamp": ts}] if said.strip() else []
    if record.get("isMeta"):
        return _meta(record, ts)
    if kind == "assistant" and _no_response(record):
        return []  # the tool's, not the agent's last words (walk 69, F8)
    message = record.get("message")
    if not isinstance(message, dict):
        raise ValueError(f"'message' is {type(message).__name__}, not an object")
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise ValueError(f"'message.content' is {type(content).__name__}, not text or blocks")
    if kind == "user" and record.get("isCompactSummary"):
        return [{"role": COMPACTION_ROLE, "content": text_of(content), "timestamp": ts}]
    if isinstance(content, str) and not record.get("isSidechain"):  # the plain message
        if content.strip() == NO_CONTENT:
            return []  # the tool's placeholder (after a memory note): no message
        if kind == "user":
            return _user_messages(content, ts)
        return [{"role": kind, "content": content, "timestamp": ts}]
    out = block_messages(kind, content, ts, stripped)
    if kind == "user":
        out = [
            n
            for m in out
            for n in (
                _user_messages(m["content"], ts)
                if m["role"] == "user" and isinstance(m.get("content"), str)
                else [m]
            )
        ]
    if record.get("isSidechain"):
        if not options.subagents:
            return []
        for m in out:  # a subagent's work, its calls in its text: not the main agent's calls
            raw_calls = m.pop("tool_calls", None)
            calls = calls_text(raw_calls)
            said = text = text_of(m.get("content")) or ""
            if calls:
                text = f"{text}\n{calls}" if text.strip() else calls
            if m.get("reasoning"):
                reasoning = m.pop("reasoning")
                text = (reasoning + "\n" + text).strip()
                said = (reasoning + "\n" + said).strip()
            if calls:  # kept for collapsing, as the main agent's calls are
                m[SUBAGENT_CALLS], m[SUBAGENT_SAID] = raw_calls, said
            m["role"], m["content"] = SUBAGENT_ROLE, text
    return out


def _no_response(record: dict[str, Any]) -> bool:
    """Is an assistant record Claude Code's ``No response requested.`` (`NO_RESPONSE`),
    written in the model's place after a local command?"""
    message = record.get("message")
    if not isinstance(message, dict) or message.get("model") != SYNTHETIC_MODEL:
        return False
    return text_of(message.get("content")).strip() == NO_RESPONSE


def _why_empty(record: dict[str, Any], kind: Any, options: ReadOptions) -> str:
    """Why a conversation record gave no message (the ``not_read`` reason)."""
    if record.get("isMeta"):
        return "local-command caveats"
    if kind == "assistant" and _no_response(record):
        return f"replies the tool wrote to a local command ('{NO_RESPONSE}')"
    if record.get("isSidechain") and not options.subagents:
        return "subagent records (not asked for)"
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "redacted_thinking" for b in content
    ):
        return "encrypted reasoning"
    if isinstance(content, str) and content.strip() == NO_CONTENT:
        return f"empty messages ('{NO_CONTENT}')"
    return _KIND_NAMES.get(kind, "empty records") if kind == "system" else "empty records"


#: One record read: (uuid, parent uuid, a subagent's, a prompt)
_Node = tuple[str, str | None, bool, bool]


def _abandoned(nodes: list[_Node]) -> set[str]:
    """The uuids a real rewind abandoned.

    The conversation is the chain from the last record back to the root. Where a
    record of that chain has other children, they are kept (the results of parallel
    tool calls, the blocks of one answer written as several records) unless the
    chain goes on with a prompt: a message the user typed, re-parented onto an
    earlier point (an edited or resent message). Then what hangs on the other children
    was abandoned. A subagent's records have chains of their own and are never
    abandoned."""
    ups = [n[1] for n in nodes if n[1] is not None and not n[2]]
    if len(ups) == len(set(ups)):
        return set()  # no record has two children: nothing can be abandoned
    parent: dict[str, str | None] = {}
    children: dict[str, list[str]] = {}
    prompts: set[str] = set()
    last: str | None = None
    for uuid, up, sidechain, prompt in nodes:
        if sidechain:
            continue
        parent[uuid] = up
        if up is not None:
            children.setdefault(up, []).append(uuid)
        if prompt:
            prompts.add(uuid)
        last = uuid
    live: list[str] = []
    seen: set[str] = set()
    node = last
    while node is not None and node not in seen:
        seen.add(node)
        live.append(node)
        node = parent.get(node)
    out: set[str] = set()
    for child in live:  # each record of the chain, and the one it hangs on
        up = parent.get(child)
        if up is None or child not in prompts or len(children.get(up, ())) < 2:
            continue
        stack = [c for c in children[up] if c != child and c not in seen]
        while stack:
            n = stack.pop()
            if n not in out:
                out.add(n)
                stack.extend(children.get(n, ()))
    return out


#: A message waiting in a run of tool results: (its line, the message, its record's uuid)
_Pending = tuple[int, dict[str, Any], str]


_BACKGROUND_ID = re.compile(r"Command running in background with ID: ([\w-]+)")
_POLLS = {"TaskOutput": "task_id", "BashOutput": "bash_id"}  # 2.1's name, 2.0's
_TAG = r"<{0}>(.*?)</{0}>"


def _tagged(text: str, tag: str) -> str | None:
    m = re.search(_TAG.format(tag), text, re.S)
    return m.group(1) if m else None


class _Background:
    """Commands run in the background (``Command running in background with ID: X``)
    and the calls that wait for their output (``TaskOutput`` in 2.1, ``BashOutput`` in
    2.0): such a call reads as its command, with what it did as the comment, and its
    result, tags and all (``<status>``, ``<exit_code>``, ``<output>``), as the command's
    exit code and output, as Codex's ``write_stdin`` reads (walk 22, F13: ``Called
    TaskOutput task_id=bd0afab block=true``, the tests' result lost when collapsed)."""

    def __init__(self) -> None:
        # a Bash call's id, a background task's id -> its command and the line of its call
        self._calls: dict[str, tuple[str, int]] = {}
        self._running: dict[str, tuple[str, int]] = {}
        self._polls: set[str] = set()  # the ids of the calls rewritten

    def see(self, message: dict[str, Any], line: int) -> None:
        """Note what `message` (of the file's `line`) says of the commands; rewrite a
        poll of a known one, and its result (in place). The poll names the line the
        command was run on: its text is that line's, not the poll's (walk 34, F7)."""
        for call, name, args in decoded_calls(message):
            call_id = call.get("id")
            if not isinstance(call_id, str):
                continue
            if name == "Bash" and isinstance(args.get("command"), str):
                self._calls[call_id] = (args["command"], line)
            elif name in _POLLS and str(args.get(_POLLS[name])) in self._running:
                task = str(args[_POLLS[name]])
                command, run_on = self._running[task]
                what = {
                    "command": command,
                    "description": f"still running: its output waited for ({task}, "
                    f"run on line {run_on})",
                }
                call["function"] = {"name": "Bash", "arguments": json.dumps(what)}
                self._polls.add(call_id)
        if message.get("role") != "tool":
            return
        call_id, text = message.get("tool_call_id"), message.get("content")
        if not isinstance(text, str) or not isinstance(call_id, str):
            return
        started = _BACKGROUND_ID.search(text)
        if started and call_id in self._calls:
            self._running[started.group(1)] = self._calls[call_id]
        if call_id in self._polls:
            code = _tagged(text, "exit_code")
            status = (_tagged(text, "status") or "").strip()
            said = [
                t.strip("\n")
                for t in (_tagged(text, k) for k in ("output", "stdout", "stderr"))
                if t and t.strip()
            ]
            head = (
                f"Exit code: {code.strip()}"
                if code and code.strip().lstrip("-").isdigit()
                else f"Status: {status}"
                if status
                else ""
            )
            message["content"] = "\n".join([head, *said] if head else said) or text
            if code and code.strip().lstrip("-").isdigit():
                message["exit_code"] = int(code.strip())


#: Claude Code 2.1's task tools, which replace ``TodoWrite``: each call is read with the
#: task list as it stands after it (``tasks``), so it reads as a plan call does.
TASK_TOOLS = ("TaskCreate", "TaskUpdate")
_TASK_CREATED = re.compile(r"Task #(\w+) created")


class _Tasks:
    """The task list Claude Code 2.1 keeps through ``TaskCreate`` (its result names the
    task, ``Task #N created successfully``) and ``TaskUpdate`` (``taskId``, ``status``):
    each call gets the list as it stands after it as its ``tasks`` argument, read as
    ``TodoWrite``'s ``todos`` are (`engine.toolcall.plan_items`: the recap's Plan, the
    plan's step in the topics; walk 22, F14: no Plan, ``Called TaskUpdate taskId=1``)."""

    def __init__(self) -> None:
        self._tasks: dict[str, dict[str, str]] = {}  # id -> {"content", "status"}
        self._made: dict[str, dict[str, str]] = {}  # a create call's id -> its task

    def see(self, message: dict[str, Any]) -> None:
        for call, name, args in decoded_calls(message):
            if name not in TASK_TOOLS:
                continue
            if name == "TaskCreate":
                subject = args.get("subject") or args.get("description")
                if not isinstance(subject, str) or not subject.strip():
                    continue
                task = {"content": subject.strip(), "status": "pending"}
                key = f"new-{len(self._tasks)}"  # until its result gives its number
                self._tasks[key] = task
                if isinstance(call.get("id"), str):
                    self._made[call["id"]] = task
            else:
                updated = self._tasks.get(str(args.get("taskId", "")))
                if updated is None:
                    continue
                if isinstance(args.get("status"), str):
                    updated["status"] = args["status"]
                    if args["status"] == "deleted":
                        updated["status"] = "cancelled"
                if isinstance(args.get("subject"), str) and args["subject"].strip():
                    updated["content"] = args["subject"].strip()
            args["tasks"] = [dict(t) for t in self._tasks.values()]
            call["function"] = {
                **call["function"],
                "arguments": json.dumps(args, ensure_ascii=False),
            }
        if message.get("role") == "tool":
            created = self._made.pop(str(message.get("tool_call_id")), None)
            text = message.get("content")
            made = _TASK_CREATED.search(text) if isinstance(text, str) else None
            if created is not None and made is not None:
                found = next((k for k, t in self._tasks.items() if t is created), None)
                if found is not None:  # renamed to its number, in the same place
                    self._tasks = {
                        (made.group(1) if k == found else k): t for k, t in self._tasks.items()
                    }


def agent_message(record: dict[str, Any]) -> dict[str, Any] | None:
    """The subagent's record a ``progress`` record of ``agent_progress`` carries (Claude
    Code 2.1 keeps a subagent's messages there, and in ``<session>/subagents/``, not in
    the session's own records: walk 22, F8, a real 2.1.39 session's subagent and its two
    WebFetch calls were read nowhere), as a sidechain record; None for any other."""
    data = record.get("data")
    if not isinstance(data, dict) or data.get("type") != "agent_progress":
        return None
    inner = data.get("message")
    if not isinstance(inner, dict) or inner.get("type") not in ("user", "assistant"):
        return None
    if not isinstance(inner.get("message"), dict):
        return None
    return {**inner, "isSidechain": True, "agentId": data.get("agentId")}


def read(path: Path, options: ReadOptions) -> Any:
    """A Claude Code session file (JSON lines), read into turns."""
    out = Collected(path, NAME, keep_messages=options.keep_messages)
    titled: dict[str, str] = {}  # the last title of each 2.1.x kind (ai-title, custom-title)
    # Each record's messages become turns at once (the record itself is not kept), but
    # for runs of tool results, put in the order of their calls first (the results of
    # parallel calls are written as they finish). Which records a rewind abandoned is
    # known only at the end: each message remembers where it starts and its record's
    # uuid, and a rewind's are taken out then.
    nodes: list[_Node] = []
    starts: list[tuple[int, int, str]] = []  # (first message, first turn, record's uuid)
    seen: set[str] = set()
    not_read, stripped = out.not_read, out.stripped
    background, tasks = _Background(), _Tasks()
    turns = out.turns

    def add(line: int, m: dict[str, Any]) -> None:
        background.see(m, line)
        tasks.see(m)
        out.add(line, m)

    order: dict[Any, int] = {}  # call id: the order it was made in
    run: list[_Pending] = []
    records = read = 0
    branch = ""  # the last gitBranch a main-chain record names
    cwd = ""  # the folder the first main-chain record names: the session's

    def flush() -> None:
        if len(run) > 1:
            last = len(order)
            run.sort(key=lambda p: order.get(p[1].get("tool_call_id"), last))
        for line, m, owner in run:
            starts.append((out.added, len(turns), owner))
            add(line, m)
        run.clear()

    for line, rec in out.objects(options):
        records += 1
        get = rec.get
        kind = get("type")
        if kind in _TITLES:
            title = get(_TITLES[kind])
            if isinstance(title, str) and title.strip():
                if kind == "summary":  # 1.x: one a compaction, each said
                    out.notes.append(f"{SESSION_NOTE}{title.strip()}")
                else:  # 2.1.x: refined as it goes, the last of each kind stands
                    titled[kind] = title.strip()
            read += 1  # read as the session's title
            continue
        if kind == "progress" and (inner := agent_message(rec)) is not None:
            rec, kind, get = inner, inner.get("type"), inner.get  # a subagent's, read as one
        uuid = get("uuid")
        if uuid is not None and not isinstance(uuid, str):
            uuid = None
        if uuid is not None:
            if uuid in seen:
                not_read["records written twice"] += 1  # a resumed session
                continue
            seen.add(uuid)
        try:
            messages = _messages(rec, options, kind, stripped)
        except ValueError as e:
            out.fail(line, str(e), options)
            continue
        if messages is None:
            not_read[_KIND_NAMES.get(str(kind), f"{kind or 'untyped'} records")] += 1
            continue
        if not messages:
            not_read[_why_empty(rec, kind, options)] += 1
            continue
        read += 1
        sidechain = bool(get("isSidechain"))
        if not sidechain and isinstance(get("gitBranch"), str) and rec["gitBranch"].strip():
            branch = rec["gitBranch"].strip()
        if not sidechain and not cwd and isinstance(get("cwd"), str):
            cwd = rec["cwd"].strip()
        # the uuid a record's messages are dropped by (a subagent's: never)
        owner = uuid if uuid is not None and not sidechain else ""
        if uuid is not None:
            up = get("parentUuid") or get("logicalParentUuid")
            # a prompt: the user's text (first), and no tool result after it; a slash
            # command or a memory note is the tool's (written off the root): no rewind
            prompt = (
                kind == "user"
                and messages[0]["role"] == "user"
                and messages[-1]["role"] != "tool"
                and not _local_record(rec)
            )
            nodes.append((uuid, up if isinstance(up, str) else None, sidechain, prompt))
        for m in messages:
            role = m["role"]
            if role == "tool":
                content = m.get("content")
                if isinstance(content, str) and "<system-reminder>" in content:
                    m["content"], n = strip_reminders(content)
                    stripped["system-reminder blocks"] += n
                run.append((line, m, owner))
                continue
            if role == "user" and isinstance(m.get("content"), str) and "<ide_" in m["content"]:
                m["content"], n = strip_ide_blocks(m["content"])
                stripped[IDE_BLOCKS] += n
                if not m["content"].strip():
                    continue  # the IDE's block alone: no words of the user's
            if run:
                flush()
            if role == "assistant":
                for call in m.get("tool_calls") or ():
                    order.setdefault(call.get("id"), len(order))
            starts.append((out.added, len(turns), owner))
            add(line, m)
    flush()
    out.records = records
    gone = _abandoned(nodes)
    if gone:
        dropped = _drop_records(out, starts, gone)
        read -= dropped
        not_read["records abandoned by a rewind"] += dropped
    out.read = read
    # the name the user gave first, then the one Claude Code made, as the picker titles
    # the session (`session_title`; walk 22, F1: every ai-title was said, the rename
    # among them)
    named = list(dict.fromkeys(titled[k] for k in ("custom-title", "ai-title") if k in titled))
    out.notes[0:0] = [SESSION_NOTE + t for t in named]
    if cwd:
        out.notes.append(CWD_NOTE + cwd)
    if branch:
        out.notes.append(BRANCH_NOTE + branch)
    meta = sum(1 for t in out.turns if t.role == META_ROLE)
    if meta:
        out.notes.append(
            f"{meta} Meta turn{'s' if meta != 1 else ''} (hook feedback, command and skill "
            "bodies) read; collapsing tool calls leaves them out"
        )
    return out.build(options)


def _drop_records(out: Collected, starts: list[tuple[int, int, str]], drop: set[str]) -> int:
    """Take what the records in `drop` gave out of `out` (after a rewind); how many
    records that was."""
    bounds = [*starts, (out.added, len(out.turns), "")]
    gone = [
        (m0, m1, t0, t1)
        for (m0, t0, uuid), (m1, t1, _) in pairwise(bounds)
        if uuid and uuid in drop
    ]
    if gone:
        out.drop(gone)
    return len({uuid for _, _, uuid in starts if uuid and uuid in drop})


def first_user_message(records: list[dict[str, Any]]) -> str:
    texts = []
    for rec in records:
        if rec.get("type") == "user" and not rec.get("isMeta") and not rec.get("isSidechain"):
            message = rec.get("message")
            if isinstance(message, dict):
                for m in block_messages("user", message.get("content"), None):
                    if m["role"] == "user":
                        role, text = _user_text(m["content"])
                        request = command_request(text.strip()) if role == "user" else None
                        if request:  # a slash command that manages the tool asks nothing
                            texts.append(request)
    return first_text(texts)


def session_title(records: list[dict[str, Any]]) -> str:
    """The session's title: the last one ``/rename`` gave, else the last one Claude Code
    made (``ai-title``), else the first ``summary``, else its first user message."""
    found: dict[str, str] = {}
    for rec in records:
        kind = rec.get("type")
        title = rec.get(_TITLES[kind]) if kind in _TITLES else None
        first = kind != "summary" or kind not in found  # the first summary; the last others
        if isinstance(title, str) and title.strip() and first:
            found[str(kind)] = title.strip()
    for kind in ("custom-title", "ai-title", "summary"):
        if kind in found:
            return found[kind]
    return first_user_message(records)


__all__ = ["NAME", "SessionInfo", "block_messages", "looks_like", "read"]
