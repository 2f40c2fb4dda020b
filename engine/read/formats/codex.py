"""OpenAI Codex CLI session files.

**Rollouts** (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): one record a line,
``{"timestamp", "type", "payload"}``. Read: ``response_item`` payloads (below) and
``compacted`` (the summary a compaction left, as a ``compaction`` message).
``session_meta`` and ``turn_context`` describe the session (its git branch is noted as
``branch: NAME``); ``event_msg`` records repeat what the response items say (user and
agent messages, reasoning) and are not read twice, except ``turn_aborted`` with reason
``interrupted``: the user stopped the turn, read as a user message
``[Request interrupted by user]``; other record kinds are counted once in a note.

**Older logs**: each line is a bare payload (``{"type": "message", "role": ...}``,
``function_call``, ``reasoning``, ...) without a timestamp, after an optional header
line (``{"id", "timestamp", "instructions"}``; 0.2x-0.3x: ``{"id", "timestamp", "cwd",
"originator", "cli_version", "git"}``, its folder and branch noted as a rollout's
``session_meta``); ``record_type`` lines are state.

Payloads: ``message`` (``input_text`` / ``output_text`` parts; what the CLI writes
itself is left out: the ``developer`` messages of newer versions (permissions,
collaboration mode, ...) and the user messages ``<environment_context>``,
``<user_instructions>``, ``# AGENTS.md instructions``, a skill's body ``<skill>`` and
``<turn_aborted>``, the note of an interruption the ``turn_aborted`` event gives once),
``reasoning`` (its ``summary`` is Bot thinking; ``encrypted_content`` is never
read), ``function_call`` / ``function_call_output``, ``custom_tool_call`` /
``custom_tool_call_output`` (``apply_patch``), ``local_shell_call``,
``web_search_call`` (its ``action``: a ``search`` by its query, ``open_page`` as a
fetch of its URL, ``find_in_page`` by its pattern). A tool output that is JSON
``{"output", "metadata": {"exit_code"}}`` is read as its output, and its exit code
kept for the collapsed sentence; so is a command's output under the lines Codex puts
before it (``Exit code``, ``Wall time``, ``Chunk ID``, ``Process exited with code``,
``Original token count``, then ``Output:``), read as ``Exit code: N`` (or ``Process
running with session ID N``) and the output; a ``write_stdin`` to a command still
running as that command (`_RunningCommands`); an output object ``{"content", "success": false}``
(a failure, as older versions wrote it) as its content, a failed call.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import json5

from chunkscope.engine.read.commands import command_request
from chunkscope.engine.read.formats.base import (
    BRANCH_NOTE,
    COMPACTION_ROLE,
    CWD_NOTE,
    Collected,
    ReadOptions,
    decoded_calls,
    first_text,
    text_of,
    tool_call,
    tool_result,
)

NAME = "codex"
#: What a turn the user interrupted (``event_msg`` ``turn_aborted``, reason
#: ``interrupted``) reads as: Claude Code's own words for it.
INTERRUPTED = "[Request interrupted by user]"

PAYLOAD_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)
_CLI_WRITTEN = (
    "<environment_context>",
    "<user_instructions>",
    "<user_instructions ",
    "# AGENTS.md instructions for ",
    "<skill>",
    "<permissions instructions>",
    "<permissions_instructions>",
    "<collaboration_mode>",
    "<turn_aborted>",
)
#: The role of the messages newer versions (0.7x on) write for the model's instructions
#: (permissions, collaboration mode, personality, apps): the CLI's, never the user's.
_DEVELOPER = "developer"
_ROLLOUT_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)


def looks_like_rollout(record: dict[str, Any]) -> bool:
    """Whether a record is of Codex's rollout format (``type`` plus ``payload``)."""
    return record.get("type") in _ROLLOUT_TYPES and isinstance(record.get("payload"), dict)


#: The fields of an older log's header line besides its ``id`` and ``timestamp``: 0.1x
#: wrote ``instructions``, 0.2x-0.3x the session's ``cwd``, ``originator``, ``cli_version``.
_HEADER_KEYS = ("instructions", "cwd", "originator", "cli_version")


def _legacy_header(record: dict[str, Any]) -> bool:
    """An older log's first line: the session's fields, with no ``type``."""
    return (
        "type" not in record
        and {"id", "timestamp"} <= set(record)
        and any(k in record for k in _HEADER_KEYS)
    )


def _bare_item(record: dict[str, Any]) -> bool:
    """A payload written bare (an older log's line): a known item ``type`` with no
    ``payload``; a ``message`` holds its ``content`` as a list of parts, as Codex writes
    it: one whose content is a string is another log's (Gemini CLI's stream-json
    ``message`` events, walk 71, F2), never read as Codex's."""
    if record.get("type") not in PAYLOAD_TYPES or "payload" in record:
        return False
    return record.get("type") != "message" or isinstance(record.get("content"), list)


def looks_like_legacy(record: dict[str, Any]) -> bool:
    """Whether a record is of Codex's older format (payload fields at the top level)."""
    return _bare_item(record) or _legacy_header(record) or "record_type" in record


#: The lines Codex puts before a command's output for the model (``shell_command``:
#: ``Exit code: N``, ``Wall time: S seconds``, ``Total output lines: N``; unified exec,
#: ``exec_command`` / ``write_stdin``: ``Chunk ID``, ``Wall time``, ``Process exited
#: with code N`` or ``Process running with session ID N``, ``Original token count``;
#: Codex Desktop first the ``Command:`` it ran),
#: then ``Output:``.
_EXEC_HEAD = re.compile(
    r"\A((?:(?:Command:|(?:Chunk ID|Wall time|Process exited with code"
    r"|Process running with session ID|Original token count|Exit code|Total output lines)\b)"
    r"[^\n]*\n)+)Output:(?:\n|\Z)"
)
_EXEC_EXIT = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.M)
_EXEC_RUNNING = re.compile(r"^Process running with session ID .*$", re.M)


def _exec_output(text: str) -> tuple[str, int | None]:
    """A command's output without the lines Codex put before it for the model (their
    wall time, chunk id, token count): its exit code (``Exit code: N`` opens the text,
    as in every version), or that it still runs, then the output."""
    head = _EXEC_HEAD.match(text)
    if head is None:
        return text, None
    code = _EXEC_EXIT.search(head.group(1))
    running = _EXEC_RUNNING.search(head.group(1))
    first = f"Exit code: {code.group(1)}" if code else running.group(0) if running else ""
    body = text[head.end() :]
    return (f"{first}\n{body}" if first else body), int(code.group(1)) if code else None


def _output(raw: Any) -> tuple[str, int | None]:
    """A tool output's text and exit code (from a JSON ``{"output", "metadata"}``, or
    the lines before a command's output, `_exec_output`)."""
    if isinstance(raw, dict) and "output" not in raw and "content" in raw:
        return text_of(raw["content"]), None  # a failure, as older versions wrote it
    if isinstance(raw, dict):
        data: Any = raw
    elif isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            data = json.loads(raw)
        except ValueError:
            return raw, None
    elif isinstance(raw, str):
        return _exec_output(raw)
    else:
        return text_of(raw), None
    if not isinstance(data, dict) or "output" not in data:
        return raw if isinstance(raw, str) else json.dumps(raw), None
    meta = data.get("metadata")
    # (code mode's command result has its exit code beside its output)
    code = meta.get("exit_code") if isinstance(meta, dict) else data.get("exit_code")
    output = text_of(data.get("output"))
    if not isinstance(code, int) or isinstance(code, bool):
        return output, None
    # the exit code said as the newer versions' outputs say it (walk 23, F3: a failed
    # command's result read as its output alone, one with no output as no turn at all)
    return (f"Exit code: {code}\n{output}" if output.strip() else f"Exit code: {code}"), code


#: Code mode (Codex 0.14x): the model's one tool is ``exec``, whose input is a
#: JavaScript script calling the real tools, ``await tools.exec_command({...})``.
CODE_MODE_TOOL = "exec"
#: A code-mode script that calls no tool this reader can name (a computation of its own,
#: a loop): the call keeps the script, under this name (not a shell: no ``$`` line).
CODE_MODE_SCRIPT = "exec_js"
_TOOLS_CALL = re.compile(r"\btools\.([A-Za-z_$][\w$]*)\s*\(\s*(?=\{)")
#: A code-mode call of a tool whose input is text (``apply_patch``): its argument a
#: string literal, or the name of one the script bound (``const patch = "..."``).
_TEXT_TOOLS_CALL = re.compile(
    r"\btools\.(apply_patch)\s*\(\s*(?:(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
    r"|([A-Za-z_$][\w$]*))\s*\)",
    re.S,
)
_STRING_BINDING = r"\b(?:const|let|var)\s+{name}\s*=\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
#: The lines code mode puts before a script's output: how it ended (``completed``,
#: ``failed``, ``running with cell ID N``), its wall time, then ``Output:``.
_SCRIPT_HEAD = re.compile(
    r"\AScript (completed|failed|running with cell ID (\S+))\n"
    r"(?:Wall time[^\n]*\n)?Output:(?:\n|\Z)"
)
_QUOTES = "\"'`"


def _object_end(script: str, start: int) -> int | None:
    """Where the object literal opened at ``script[start]`` (``{``) ends (the index after
    its ``}``), its strings' brackets skipped; None when it does not."""
    depth, i, n = 0, start, len(script)
    while i < n:
        ch = script[i]
        if ch in _QUOTES:
            i += 1
            while i < n and script[i] != ch:
                i += 2 if script[i] == "\\" else 1
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _literal(text: str) -> Any:
    """A JavaScript object literal's value: JSON, else JSON5 (bare keys, single quotes,
    trailing commas, as a script writes them); None when it is neither (it computes)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return json5.loads(text)
    except (ValueError, RecursionError):  # (nested past the parser's depth: no literal)
        return None


def code_mode_calls(script: str) -> list[tuple[str, dict[str, Any]]] | None:
    """The tool calls a code-mode script makes, in order (name, arguments): each
    ``tools.NAME({...})`` whose arguments are a literal; None when the script makes none,
    or one whose arguments it computes (the script is then shown as it is)."""
    calls: list[tuple[int, str, dict[str, Any]]] = []
    for m in _TOOLS_CALL.finditer(script):
        end = _object_end(script, m.end())
        args = _literal(script[m.end() : end]) if end is not None else None
        if not isinstance(args, dict):
            return None
        calls.append((m.start(), *_web_run(m.group(1), args)))
    for m in _TEXT_TOOLS_CALL.finditer(script):
        text = _text_argument(script, m)
        if text is None:
            return None
        calls.append((m.start(), m.group(1), {"input": text}))
    return [(name, args) for _, name, args in sorted(calls, key=lambda c: c[0])] or None


def _text_argument(script: str, m: re.Match[str]) -> str | None:
    """The text a code-mode ``tools.apply_patch(...)`` call passes: its string literal,
    or the literal the script bound to the name it passes (walk 56: code mode's patches
    read as a script, ``Called exec_js``, where a patch read as the files it edits)."""
    literal = m.group(2)
    if literal is None:
        bound = re.search(_STRING_BINDING.format(name=re.escape(m.group(3))), script, re.S)
        literal = bound.group(1) if bound else None
    value = _literal(literal) if literal is not None else None
    return value if isinstance(value, str) else None


def _web_run(name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A code-mode web tool call (``web__run``) as the fetch or search it is: its pages
    opened (``open``: ``ref_id`` URLs), else its queries (``search_query``: ``q``)."""
    if name not in ("web__run", "web_run", "web.run"):
        return name, args
    opened = [o.get("ref_id") for o in args.get("open") or [] if isinstance(o, dict)]
    urls = [u for u in opened if isinstance(u, str) and u.strip()]
    if (
        urls
        and len(urls) == len(args.get("open") or [])
        and set(args) <= {"open", "response_length"}
    ):
        return "web_fetch", {"url": urls[0]} if len(urls) == 1 else {"urls": urls}
    queries = [q.get("q") for q in args.get("search_query") or [] if isinstance(q, dict)]
    found = [q for q in queries if isinstance(q, str) and q.strip()]
    if found and set(args) <= {"search_query", "response_length"}:
        return "web_search", {"query": "; ".join(found)}
    return name, args


def _code_mode(payload: dict[str, Any], ts: Any) -> list[dict[str, Any]]:
    """A code-mode ``exec`` call as the tool calls its script makes (`code_mode_calls`):
    the first takes the call's id, so the script's output is its result; a script
    that makes none it can name is kept whole as `CODE_MODE_SCRIPT`."""
    script = payload.get("input")
    found = code_mode_calls(script) if isinstance(script, str) else None
    cid = payload.get("call_id")
    if found is None:
        calls = [tool_call(cid, CODE_MODE_SCRIPT, {"input": script})]
    else:
        calls = [
            tool_call(cid if k == 0 or not cid else f"{cid}#{k + 1}", name, args)
            for k, (name, args) in enumerate(found)
        ]
    return [{"role": "assistant", "content": "", "tool_calls": calls, "timestamp": ts}]


def _script_output(text: str) -> tuple[str, int | None, bool]:
    """A code-mode script's output without the lines code mode put before it: the
    output as a command's (`_output`: a JSON result's exit code, a command's header),
    with ``Script running with cell ID N`` kept when it runs on; whether it failed."""
    head = _SCRIPT_HEAD.match(text)
    if head is None:
        return text, None, False
    body, code = _output(text[head.end() :])
    if head.group(2) is not None:
        body = f"Script running with cell ID {head.group(2)}\n{body}"
    return body, code, head.group(1) == "failed"


def payload_messages(payload: dict[str, Any], ts: Any) -> list[dict[str, Any]] | None:
    """Messages of the seed's shape for one payload; None for a kind not read."""
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        text = text_of(payload.get("content"))
        if role == _DEVELOPER or (role == "user" and text.lstrip().startswith(_CLI_WRITTEN)):
            return []
        if role not in ("user", "assistant"):
            role = "system"
        return [{"role": role, "content": text, "timestamp": ts}] if text.strip() else []
    if kind == "reasoning":
        summary = text_of(payload.get("summary"))
        if not summary.strip():
            summary = text_of(payload.get("content"))  # plain reasoning text, if any
        if not summary.strip():
            return []
        return [{"role": "assistant", "content": "", "reasoning": summary, "timestamp": ts}]
    if kind == "custom_tool_call" and payload.get("name") == CODE_MODE_TOOL:
        return _code_mode(payload, ts)
    if kind in ("function_call", "custom_tool_call"):
        args = (
            payload.get("arguments") if kind == "function_call" else {"input": payload.get("input")}
        )
        call = tool_call(payload.get("call_id"), payload.get("name"), args)
        return [{"role": "assistant", "content": "", "tool_calls": [call], "timestamp": ts}]
    if kind == "local_shell_call":
        action = payload.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        call = tool_call(payload.get("call_id"), "local_shell", {"command": command})
        return [{"role": "assistant", "content": "", "tool_calls": [call], "timestamp": ts}]
    if kind == "web_search_call":
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        query = action.get("query") or action.get("pattern")
        queries = action.get("queries")
        if not query and isinstance(queries, list) and queries:
            query = "; ".join(str(q) for q in queries)
        # the action's URL when it names one: an ``open_page`` with none says no ``url``
        # (walk 64, F9: ``web_fetch url=null``, collapsed to ``Fetched ?.``)
        url = action.get("url")
        page = {"url": url} if isinstance(url, str) and url.strip() else {}
        if action.get("type") == "open_page":  # the search opened a page it found
            name, args = "web_fetch", page
        else:
            name, args = "web_search", {"query": query}
            if action.get("type") == "find_in_page":
                args |= page
        call = tool_call(payload.get("id") or "web_search", name, args)
        result = {"role": "tool", "tool_call_id": call["id"], "content": "", "timestamp": ts}
        if payload.get("status") == "failed":  # the search did not run
            result["is_error"] = True
        return [{"role": "assistant", "content": "", "tool_calls": [call], "timestamp": ts}, result]
    if kind in ("function_call_output", "custom_tool_call_output"):
        raw = payload.get("output")
        text, code = _output(raw)
        text, script_code, failed = _script_output(text)
        message = tool_result(
            payload.get("call_id"), text, ts, code if code is not None else script_code
        )
        if failed or (isinstance(raw, dict) and raw.get("success") is False):
            message["is_error"] = True
        return [message]
    return None


_RUNNING_ID = re.compile(
    r"^(?:(Process running with session|Script running with cell) ID (\S+)"
    # a code-mode script's own line for the session its command runs on, the way its
    # scripts print it (``text(`SESSION_ID=${r.session_id}`)``: codex-edgerunner's
    # ``write_stdin`` polls read ``Called write_stdin session_id=4622 chars=""``)
    r"|SESSION_ID=(\d+)$)",
    re.M,
)
#: The calls that wait for a command still running, by what names it: unified exec's
#: ``write_stdin`` its session, code mode's ``wait`` its cell.
_WAITS = {"write_stdin": ("session_id", "session"), "wait": ("cell_id", "cell")}


class _RunningCommands:
    """Unified exec's commands that run on (``Process running with session ID N``; code
    mode's ``Script running with cell ID N``) and the ``write_stdin`` (``wait``) calls
    that wait for their output or send them input: such a
    call reads as its command, with what it did as the comment
    (``$ pytest -q  # still running: its output waited for (session 7)``), so its
    output, the command's last and its exit code, is the command's (the recap's last
    check was the first lines of a test run still going, ``pytest -q -> ..F``)."""

    def __init__(self) -> None:
        # call id, "session N" / "cell N" -> the command it ran (still running) and its
        # call's line
        self._calls: dict[str, tuple[str, int]] = {}
        self._running: dict[str, tuple[str, int]] = {}

    def see(self, message: dict[str, Any], line: int) -> None:
        """Note what `message` (of the file's `line`) says of the commands, and rewrite a
        ``write_stdin`` call of a command known to run on (in place), naming the line
        the command was run on: its text is that line's (walk 34, F7)."""
        for call, name, args in decoded_calls(message):
            if name == "exec_command" and isinstance(args.get("cmd"), str) and call.get("id"):
                self._calls[call["id"]] = (args["cmd"], line)
            elif name in _WAITS:
                key, what = _WAITS[name]
                known = self._running.get(f"{what} {args.get(key)}")
                if known is None:
                    continue
                command, started = known
                chars = args.get("chars")
                did = (
                    f"input sent to it: {json.dumps(chars, ensure_ascii=False)}"
                    if isinstance(chars, str) and chars
                    else "still running: its output waited for"
                )
                where = f"{what} {args[key]}, run on line {started}"
                rewritten = {"cmd": command, "description": f"{did} ({where})"}
                call["function"] = {"name": "exec_command", "arguments": json.dumps(rewritten)}
                if call.get("id"):
                    self._calls[call["id"]] = known
        if message.get("role") == "tool":
            called = self._calls.get(str(message.get("tool_call_id")))
            text = message.get("content")
            running = _RUNNING_ID.search(text) if isinstance(text, str) else None
            if called is not None and running is not None:
                if running.group(3) is not None:
                    self._running[f"session {running.group(3)}"] = called
                else:
                    what = "session" if running.group(1).startswith("Process") else "cell"
                    self._running[f"{what} {running.group(2)}"] = called


def _why_empty(payload: dict[str, Any]) -> str:
    """Why a payload gave no message (the ``not_read`` reason)."""
    kind = payload.get("type")
    if kind == "reasoning":
        return "encrypted reasoning" if payload.get("encrypted_content") else "empty reasoning"
    if kind == "message" and payload.get("role") == _DEVELOPER:
        return "instructions the CLI wrote (developer messages)"
    if kind == "message" and payload.get("role") == "user":
        if text_of(payload.get("content")).lstrip().startswith("<turn_aborted>"):
            return "interruption notes (read from the turn_aborted event)"
        return "context the CLI wrote (environment, instructions)"
    return "empty messages"


def read(path: Path, options: ReadOptions) -> Any:
    """A Codex session file (rollout or older JSON lines), read into turns."""
    out = Collected(path, NAME, keep_messages=options.keep_messages)
    not_read = out.not_read
    running = _RunningCommands()
    # calls and their outputs, and commands' end events: an event is the result of a call
    # the file has no output for (a rollout saved mid-turn: walk 53, F12)
    called: list[str] = []
    answered: set[str] = set()
    ended: dict[str, tuple[int, dict[str, Any], Any]] = {}
    for line, rec in out.objects(options):
        out.records += 1
        kind = rec.get("type")
        ts = rec.get("timestamp")
        if kind == "response_item" or _bare_item(rec):
            payload = rec.get("payload") if kind == "response_item" else rec
            if not isinstance(payload, dict):
                out.fail(line, "'payload' is not an object", options)
                continue
            messages = payload_messages(payload, ts)
            if messages is None:
                not_read[f"{payload.get('type', 'untyped')} items"] += 1
                continue
            if not messages:
                not_read[_why_empty(payload)] += 1
                continue
            if payload.get("encrypted_content"):
                out.stripped["encrypted reasoning"] += 1  # its summary is read
            out.read += 1
            for m in messages:
                running.see(m, line)
                out.add(line, m)
                called += [c["id"] for c in m.get("tool_calls") or [] if c.get("id")]
                if m.get("role") == "tool" and m.get("tool_call_id"):
                    answered.add(str(m["tool_call_id"]))
        elif kind == "compacted":
            payload = rec.get("payload")
            text = payload.get("message") if isinstance(payload, dict) else None
            if isinstance(text, str) and text.strip():
                out.read += 1
                out.add(line, {"role": COMPACTION_ROLE, "content": text, "timestamp": ts})
            else:
                not_read["empty compactions"] += 1
        elif kind == "session_meta" or _legacy_header(rec):
            meta = rec.get("payload") if kind == "session_meta" else rec
            if isinstance(meta, dict) and isinstance(meta.get("cwd"), str):
                out.notes.append(CWD_NOTE + meta["cwd"])
            git = meta.get("git") if isinstance(meta, dict) else None
            if isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"]:
                out.notes.append(BRANCH_NOTE + git["branch"])
            not_read["session metadata"] += 1
        elif kind == "turn_context" or "record_type" in rec:
            not_read["session metadata"] += 1  # settings, an older log's state
        elif kind == "event_msg":
            payload = rec.get("payload")
            if (
                isinstance(payload, dict)
                and payload.get("type") == "turn_aborted"
                and payload.get("reason") == "interrupted"
            ):  # the user stopped the turn (Esc / Ctrl-C): said as Claude Code says it
                out.read += 1
                out.add(line, {"role": "user", "content": INTERRUPTED, "timestamp": ts})
                continue
            if (
                isinstance(payload, dict)
                and payload.get("type") == "exec_command_end"
                and isinstance(payload.get("call_id"), str)
            ):
                ended[payload["call_id"]] = (line, payload, ts)
            not_read["events (repeat the response items)"] += 1
        else:
            not_read[f"{kind or 'untyped'} records"] += 1
    for cid in called:
        if cid in answered or cid not in ended:
            continue
        line, event, ts = ended[cid]
        code = event.get("exit_code")
        text, exit_code = _output(
            {"output": event.get("aggregated_output") or "", "metadata": {"exit_code": code}}
        )
        not_read["events (repeat the response items)"] -= 1
        out.read += 1
        out.add(line, tool_result(cid, text, ts, exit_code))
    return out.build(options)


def first_user_message(records: list[dict[str, Any]]) -> str:
    """The text of the session's first user message ("" when there is none)."""
    texts = []
    for rec in records:
        payload = rec.get("payload") if rec.get("type") == "response_item" else rec
        if not isinstance(payload, dict) or payload.get("type") != "message":
            continue
        if payload.get("role") == "user":
            text = text_of(payload.get("content")).strip()
            request = None if text.startswith(_CLI_WRITTEN) else command_request(text)
            if request:  # not the CLI's own context, nor a slash command that manages it
                texts.append(request)
    return first_text(texts)
