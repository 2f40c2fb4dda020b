"""Sessions saved as one JSON document (pretty-printed or not).

- **OpenAI chat messages**: a list of messages, or ``{"messages": [...]}`` (also an
  agent trajectory ``{"info": ..., "messages": [...]}``): ``system``, ``user``,
  ``assistant`` (with ``tool_calls``), ``tool`` (``tool_call_id``), the older
  ``function`` role; content as text, as parts, or as Anthropic-style blocks
  (``tool_use`` / ``tool_result``). No timestamps: turns without a time are fine
  everywhere. Each message's line is the line its object starts on. An older
  mini-swe-agent trajectory of text only (each command fenced in the model's answer,
  its output given back as a user message opening ``<returncode>``) is read as the
  newer ones are: the command that ran a ``bash`` call, its output that call's result.
- **Codex's older JSON sessions**: ``{"session": {...}, "items": [payloads]}``.
- **ChatGPT's data export** (``conversations.json``): a list of conversations, each a
  ``mapping`` tree followed from ``current_node`` back to the root (edited and
  regenerated branches are not the conversation). Each conversation is a session;
  the newest is read unless `ReadOptions.session` picks another.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import chunkscope.engine.read.formats.claude as claude
import chunkscope.engine.read.formats.codex as codex
import chunkscope.engine.read.formats.gemini as gemini
from chunkscope.engine.errors import SourceError
from chunkscope.engine.read.formats.base import (
    Collected,
    ReadOptions,
    SessionInfo,
    first_text,
    text_of,
    tool_call,
    tool_result,
)
from chunkscope.engine.read.formats.jsondoc import Document
from chunkscope.engine.read.source import NO_PART_ENDS, PartEnds
from chunkscope.engine.toolcall import decode_arguments

MESSAGES = "openai-messages"
CHATGPT = "chatgpt-export"
#: The agents whose trajectories `read_messages` names (`Source.label`): also names of
#: the format (`Reader.aliases`), so the name the header shows can be passed back.
MINI_SWE_AGENT = "mini-swe-agent"
SWE_AGENT = "SWE-agent"


# --------------------------------------------------------------------------- what it is


#: The keys of an object document that hold its list of messages, in the order tried.
MESSAGE_KEYS = ("messages", "history")


def _messages_list(items: list[Any]) -> bool:
    """A list of chat messages (or Codex items): its first object has a ``role`` (or is
    a Codex item); an empty list is one too."""
    first = next((x for x in items if isinstance(x, dict)), None)
    if first is None:
        return not items
    return "role" in first or first.get("type") in codex.PAYLOAD_TYPES


def messages_key(value: dict[str, Any]) -> str | None:
    """The key of an object document's message list (``messages``, SWE-agent's
    ``history``), or None."""
    for key in MESSAGE_KEYS:
        items = value.get(key)
        if isinstance(items, list) and _messages_list(items):
            return key
    return None


def kind_of(value: Any) -> str | None:
    """Which document format a decoded JSON value is (None: none of these)."""
    if gemini.is_document(value):
        return gemini.NAME
    if isinstance(value, dict):
        if messages_key(value) is not None:
            return MESSAGES
        if isinstance(value.get("items"), list) and "session" in value:
            return MESSAGES
        if "mapping" in value and "current_node" in value:
            return CHATGPT  # one conversation
    if isinstance(value, list):
        first = next((x for x in value if isinstance(x, dict)), None)
        if first is not None and "mapping" in first:
            return CHATGPT
        if _messages_list(value):
            return MESSAGES
    return None


def refusals(value: Any) -> list[str]:
    """Why each document format refuses a decoded JSON value (one reason each)."""
    if isinstance(value, dict):
        found = [k for k in MESSAGE_KEYS if isinstance(value.get(k), list)]
        if found:
            messages = f"its {found[0]!r} items have no 'role'"
        else:
            messages = "no 'messages' list of objects with a 'role'"
        chatgpt = "no 'mapping' and 'current_node'"
    elif isinstance(value, list):
        messages = "its items have no 'role'"
        chatgpt = "its items have no 'mapping'"
    else:
        messages = chatgpt = f"{type(value).__name__}, not a list or an object"
    return [
        f"{MESSAGES}: {messages}",
        f"{CHATGPT}: {chatgpt}",
        f"{gemini.NAME}: {gemini.refusal(value)}",
    ]


# --------------------------------------------------------------------------- messages


#: The role an agent trajectory's last message has when the run ended (mini-swe-agent).
EXIT_ROLE = "exit"
#: The role its turn is shown with: the session's end, with how it ended.
END_ROLE = "End"
# The prompt templates an agent harness writes its task into, each declared here once:
# what of the request is the task (the user's words) and what is the template (the
# harness's words, the same for every task). The reader keeps the task only
# (`strip_template`, counted in `Source.stripped`); the recap's Task (`task_of`) and a
# picker's title (`engine.read.formats.folders`) take the same text.

#: SWE-bench style (mini-swe-agent's ``swebench`` config): the request opens on the task
#: wrapped in a tag, ``<pr_description>`` / ``<issue>`` / ...: its tag, its text.
TASK_TAG = re.compile(
    r"\A\s*<(pr_description|issue|task|problem_statement|problem|issue_description)>"
    r"(.*?)</\1>",
    re.S,
)
#: ... the tagged text's first line when it frames what follows ("Consider the following
#: PR description:") ...
_FRAMING = re.compile(
    r"\A(?:consider|here is|here's|below is|read|see) the following [\w -]{0,40}:\s*", re.I
)
#: ... and the standing instructions after it (``<instructions>`` ... ``</instructions>``);
#: a block cut short (no closing tag) runs to the end. Other text after the tag is kept.
_TEMPLATE_INSTRUCTIONS = re.compile(r"<instructions>.*?(?:</instructions>|\Z)", re.S)
#: mini-swe-agent's default (its ``mini`` and ``github_issue`` configs): ``Please solve
#: this issue: {{task}}``, then its workflow, rules and example response, which open on
#: the line below. Without that line the request is someone's own words.
_SOLVE_ISSUE = "Please solve this issue:"
_SOLVE_ISSUE_RULES = (
    "You can execute bash commands and edit files to implement the necessary changes."
)
#: What `strip_template` leaves out, as `Source.stripped` counts it.
TEMPLATE_STRIPPED = "prompt-template texts around the task"


def template_task(text: str) -> str | None:
    """The task of a request written from one of the prompt templates above, without the
    template's words; None when the request is not written from one (or its task is
    blank)."""
    tagged = TASK_TAG.match(text)
    if tagged:
        task = _FRAMING.sub("", tagged.group(2).strip(), count=1).strip()
        rest = _TEMPLATE_INSTRUCTIONS.sub("\n\n", text[tagged.end() :]).strip()
        if task:
            return f"{task}\n\n{rest}" if rest else task
        return None
    head = text.lstrip()
    if head.startswith(_SOLVE_ISSUE):
        task, rules, _ = head[len(_SOLVE_ISSUE) :].partition(_SOLVE_ISSUE_RULES)
        if rules and task.rstrip(" \t").endswith("\n") and task.strip():
            return task.strip()
    return None


def task_of(text: str) -> str:
    """A request's task: `template_task` when it is written from a prompt template, else
    the request as it is."""
    task = template_task(text)
    return text if task is None else task


def strip_template(message: dict[str, Any]) -> int:
    """Keep only the task of a user's request written from a prompt template
    (`template_task`); how many template texts were left out (0: none, the message as
    it was)."""
    text = message.get("content")
    if message.get("role") != "user" or not isinstance(text, str):
        return 0
    task = template_task(text)
    if task is None:
        return 0
    message["content"] = task
    return 1


def _timestamp(raw: dict[str, Any]) -> Any:
    ts = raw.get("timestamp") or raw.get("created_at")
    if ts is None:  # mini-swe-agent keeps the time of an observation in 'extra'
        extra = raw.get("extra")
        ts = extra.get("timestamp") if isinstance(extra, dict) else None
    return ts


def _ended(raw: dict[str, Any], ts: Any, status: Any) -> list[dict[str, Any]]:
    """mini-swe-agent's last message (role ``exit``): the session's end, how it ended
    (``Submitted``, ``LimitsExceeded``, an error) and what it left (the submission)."""
    extra = raw.get("extra")
    if isinstance(extra, dict) and extra.get("exit_status"):
        status = extra["exit_status"]
    text = text_of(raw.get("content")).strip()
    head = f"The session ended ({status})." if status else "The session ended."
    return [{"role": END_ROLE, "content": f"{head}\n{text}" if text else head, "timestamp": ts}]


GEMINI_CHECKPOINT = "Gemini CLI checkpoint"


def gemini_context(raw: dict[str, Any]) -> bool:
    """A Gemini ``Content`` of the CLI's own context, or the model's reply the CLI
    writes after it (``Got it. Thanks for the context!``: walk 22, F4), not read."""
    parts = raw.get("parts")
    first = parts[0] if isinstance(parts, list) and parts else None
    text = first.get("text") if isinstance(first, dict) else None
    if not isinstance(text, str):
        return False
    if raw.get("role") == "model":
        return isinstance(parts, list) and len(parts) == 1 and text.strip() == gemini.CONTEXT_REPLY
    return raw.get("role") == "user" and text.lstrip().startswith(gemini.CONTEXT)


def _gemini_contents(items: Any) -> bool:
    """Items of Gemini API ``Content`` (a Gemini CLI checkpoint's history)."""
    first = (
        next((i for i in items if isinstance(i, dict)), None) if isinstance(items, list) else None
    )
    return first is not None and isinstance(first.get("parts"), list) and "content" not in first


def _parts(role: str, parts: list[Any], ts: Any) -> list[dict[str, Any]]:
    """A Gemini API ``Content`` (``{"role": "user" | "model", "parts": [...]}``, as a
    Gemini CLI checkpoint saves it): text parts (``thought`` ones as its reasoning),
    ``functionCall`` parts as tool calls, ``functionResponse`` parts as their results."""
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            (thoughts if part.get("thought") else texts).append(part["text"])
        call, response = part.get("functionCall"), part.get("functionResponse")
        if isinstance(call, dict):
            calls.append(tool_call(call.get("id"), call.get("name"), call.get("args")))
        if isinstance(response, dict):
            output = response.get("response")
            if isinstance(output, dict):
                output = output.get("output", output.get("error", output))
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            shown, exit_code = gemini.shell_result(text)
            results.append(tool_result(response.get("id"), shown, ts, exit_code))
    out: list[dict[str, Any]] = []
    text = "\n".join(texts)
    thinking = "\n".join(t for t in thoughts if t.strip())
    if text.strip() or calls or thinking:
        message: dict[str, Any] = {
            "role": "assistant" if role == "model" else role,
            "content": text,
            "timestamp": ts,
        }
        if thinking:
            message["reasoning"] = thinking
        if calls:
            message["tool_calls"] = calls
        out.append(message)
    return out + results


def _response_output(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """A Responses API response kept whole as a message (mini-swe-agent's response
    models, ``litellm_response_model``): its output items (reasoning, messages, function
    calls) read as a Codex rollout's are."""
    ts = _timestamp(raw)
    out: list[dict[str, Any]] = []
    for item in raw["output"]:
        if isinstance(item, dict):
            out.extend(codex.payload_messages(item, ts) or ())
    return out


#: The blocks that make a message an Anthropic one (read by `claude.block_messages`).
_ANTHROPIC_BLOCKS = frozenset(
    {"tool_use", "tool_result", "thinking", "server_tool_use", "mcp_tool_use"}
    | {"redacted_thinking"}
)


def _custom_call(call: Any) -> Any:
    """A tool call as the seed's shape reads it: a custom one (the Chat Completions form
    of a free-form tool, ``{"type": "custom", "custom": {"name", "input"}}``) as a call
    whose argument is its ``input``, as Codex's ``custom_tool_call`` is read; any other
    as it is."""
    custom = call.get("custom") if isinstance(call, dict) else None
    if not isinstance(custom, dict) or isinstance(call.get("function"), dict):
        return call
    return tool_call(call.get("id"), custom.get("name"), {"input": custom.get("input")})


def _message(raw: dict[str, Any], status: Any = None) -> list[dict[str, Any]]:
    role = raw.get("role")
    if not isinstance(role, str):
        raise ValueError("missing 'role'")
    ts = _timestamp(raw)
    content = raw.get("content")
    if role == EXIT_ROLE:
        return _ended(raw, ts, status)
    if content is None and isinstance(raw.get("parts"), list):
        return [] if gemini_context(raw) else _parts(role, raw["parts"], ts)
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") in _ANTHROPIC_BLOCKS for b in content
    ):
        return claude.block_messages(role, content, ts)
    if role == "function":  # the older function-calling result
        return [
            {"role": "tool", "tool_call_id": None, "content": text_of(content), "timestamp": ts}
        ]
    message: dict[str, Any] = {"role": role, "content": text_of(content), "timestamp": ts}
    for key in ("reasoning", "reasoning_content", "tool_call_id"):
        if raw.get(key) is not None:
            message[key] = raw[key]
    if role == "tool" and "tool_call_id" not in message:  # SWE-agent: 'tool_call_ids'
        ids = raw.get("tool_call_ids")
        if isinstance(ids, list) and ids:
            message["tool_call_id"] = ids[0]
    calls = raw.get("tool_calls")
    if isinstance(calls, list):
        message["tool_calls"] = [_custom_call(c) for c in calls]
    elif isinstance(raw.get("function_call"), dict):
        fc = raw["function_call"]
        message["tool_calls"] = [tool_call(None, fc.get("name"), fc.get("arguments"))]
    if not (message["content"].strip() or message.get("tool_calls")) and not any(
        message.get(k) for k in ("reasoning", "reasoning_content")
    ):
        return [] if role != "tool" else [message]  # a tool's empty output is its result
    return [message]


def trajectory_label(value: dict[str, Any]) -> str:
    """What an agent's trajectory is called: mini-swe-agent's says so (its
    ``trajectory_format``, its ``info.mini_version``)."""
    info = value.get("info")
    form = value.get("trajectory_format")
    if (isinstance(form, str) and form.startswith(MINI_SWE_AGENT)) or (
        isinstance(info, dict) and "mini_version" in info
    ):
        return f"{MINI_SWE_AGENT} trajectory"
    return "agent trajectory"


#: mini-swe-agent's marks of the command to submit (its prompt asks for ``echo MARK``),
#: 1.x's and 0.x's (walk 69, F12: ``echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A &&
#: git diff --cached`` was no call, its diff the user's words): older trajectories, with
#: no ``exit`` message, give what the command printed after it (the submission) as a
#: user message, which is the session's end, not a request. The recap looks for them
#: too (`submits`).
SUBMIT_MARKS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")


def submits(command: str) -> bool:
    """Does a command (or any text of one) hold a submit mark (`SUBMIT_MARKS`)?"""
    return any(mark in command for mark in SUBMIT_MARKS)


#: How a command's output (an observation) opens in such a trajectory: its return code
#: (mini-swe-agent's ``<returncode>0</returncode>``, then ``<output>``), or its notice
#: of a command that timed out (``The last command <command>...</command> timed out``).
OBSERVATION = re.compile(r"\A\s*(?:<returncode>|The last command <command>)")


#: A fenced block of an assistant's text: the name its opening fence gives (the rest of
#: that line) and its text. Fences pair from the start of the text, so a block's closing
#: fence never opens the next one (walk 60, F2: a ```python block's close was read as an
#: unnamed shell block up to the ```bash line). A closing fence opens a line, as
#: mini-swe-agent's own ``action_regex`` needs (a newline before it): a script's
#: ``startswith('```json')`` is no fence (walk 56, F3).
_FENCED = re.compile(r"```([^\n]*)\n(.*?)\n```", re.S)
#: The names of a fenced shell command in an assistant's text (mini-swe-agent's text
#: mode: its ``bash`` blocks, later `ACTION_FENCE`); a block with no name may be one too.
SHELL_NAMES = frozenset({"bash", "sh", "shell", "console"})
#: The fence only mini-swe-agent's actions are named with: such a block ran (no output
#: needs to show it).
ACTION_FENCE = "mswea_bash_command"


def shell_blocks(text: str) -> list[re.Match[str]]:
    """The fenced blocks of a text (`_FENCED`) that may be a shell command: named with
    a shell's name (`SHELL_NAMES`, `ACTION_FENCE`) or with none. Group 1 of each is its
    name as written, group 2 its text."""
    return [
        b
        for b in _FENCED.finditer(text)
        if (name := b.group(1).strip()) in SHELL_NAMES or name in ("", ACTION_FENCE)
    ]


def text_action(text: str) -> re.Match[str] | None:
    """The command an assistant's text runs in mini-swe-agent's text mode, as its
    ``action_regex`` picks it: the one block named `ACTION_FENCE`; without such a name,
    the one block named with a shell's name (``bash``); without those, the one unnamed
    block. None when that block is blank or not the only one (the harness answers with
    a format error: nothing ran). The prose and the other blocks stay the text's. The
    reader shows the command as the call it was when it did run (`read_messages`); the
    recap reads it in a log with no tool calls at all."""
    blocks = shell_blocks(text)
    for tier in (
        [b for b in blocks if b.group(1).strip() == ACTION_FENCE],
        [b for b in blocks if b.group(1).strip() in SHELL_NAMES],
        blocks,
    ):
        if tier:
            return tier[0] if len(tier) == 1 and tier[0].group(2).strip() else None
    return None


def _submits(message: dict[str, Any]) -> bool:
    """Does an assistant's message run mini-swe-agent's submit command (in its one
    fenced action, or in a tool call)?"""
    if message.get("role") != "assistant":
        return False
    calls = message.get("tool_calls")
    if isinstance(calls, list) and submits(json.dumps(calls, default=str)):
        return True
    text = message.get("content")
    if not isinstance(text, str) or not submits(text):
        return False
    action = text_action(text)
    return action is not None and submits(action.group(2))


def _text_action(message: dict[str, Any]) -> re.Match[str] | None:
    """The command of an assistant's text-only message (`text_action`), or None."""
    text = message.get("content")
    if message.get("role") != "assistant" or message.get("tool_calls"):
        return None
    if not isinstance(text, str) or "```" not in text:
        return None
    return text_action(text)


def _observes(message: dict[str, Any]) -> bool:
    """Is a user message the output the harness gave back for the command before it?"""
    text = message.get("content")
    return message.get("role") == "user" and isinstance(text, str) and bool(OBSERVATION.match(text))


def _ran(message: dict[str, Any], block: re.Match[str], call_id: str) -> None:
    """An assistant's fenced command that ran, as the call it was: its text without the
    block, then the command as typed (``$ ls -la``, as a tool call shows), as the
    trajectories with tool calls give it. The command is the block's text as the harness
    ran it (stripped)."""
    text: str = message["content"]
    before, after = text[: block.start()].rstrip(), text[block.end() :].strip()
    message["content"] = f"{before}\n\n{after}" if before and after else before or after
    message["tool_calls"] = [tool_call(call_id, "bash", {"command": block.group(2).strip()})]


#: What mini-swe-agent's interactive mode (``mini``, confirming each command) writes in
#: the user's place when the user refuses the command (with the words typed, or to type
#: commands themselves: ``/u``), and when the user presses Ctrl-C (the words typed then,
#: or `_NO_WORDS`): the harness's sentences, no request of the user's (walk 56, F8).
_REFUSED = re.compile(
    r"\ACommand not executed\. (?:The user rejected your command with the following "
    r"message: (.*)|Switching to human mode\.?)\Z",
    re.S,
)
_STOPPED = re.compile(r"\AInterrupted by user: (.*)\Z", re.S)
_NO_WORDS = "Temporary interruption caught."
#: A refused command's result as the recap reads a refusal (`engine.recap.collapse`
#: ``REJECTED_RESULT``, Codex's "exec command rejected by user"): it did not run.
REFUSED_RESULT = "Command rejected by the user, not executed."


#: What mini-swe-agent 1.x (text mode) writes in the user's place when a message holds
#: no command or several (its ``format_error_template``: "Please always provide EXACTLY
#: ONE action in triple backticks, found 2 actions."): the harness's answer to a
#: malformed message, read as a tool's result (`_format_error`), no words of the user's
#: (walk 60, F5). Nothing ran.
_FORMAT_ERROR = re.compile(r"\A\s*Please always provide EXACTLY ONE action in triple backticks")


def _format_error(message: dict[str, Any]) -> dict[str, Any] | None:
    """mini-swe-agent's format error (`_FORMAT_ERROR`) in a user message, read as the
    harness's answer: a tool's failed result that answers no call (the message before
    ran nothing), so the recap, which drops such a result, tells nothing of it; None
    for any other message."""
    text = message.get("content")
    if message.get("role") != "user" or not isinstance(text, str):
        return None
    if not _FORMAT_ERROR.match(text):
        return None
    return {**message, "role": "tool", "tool_call_id": None, "is_error": True}


def _interactive(message: dict[str, Any]) -> tuple[str, str] | None:
    """mini-swe-agent's note of a refusal ("refused") or a Ctrl-C ("stopped") in a user
    message, with the words the user typed with it ("" for none), or None."""
    text = message.get("content")
    if message.get("role") != "user" or not isinstance(text, str):
        return None
    text = text.strip()
    if refused := _REFUSED.match(text):
        return "refused", (refused.group(1) or "").strip()
    if stopped := _STOPPED.match(text):
        words = stopped.group(1).strip()
        return "stopped", "" if words == _NO_WORDS else words
    return None


def _submitted(message: dict[str, Any]) -> dict[str, Any]:
    """The user message after the submit command that is its submission (not an
    observation: a failed submit shows its return code; nor a refusal or a Ctrl-C, after
    which the agent goes on), as the session's end."""
    text = message.get("content")
    if message.get("role") != "user" or not isinstance(text, str):
        return message
    if OBSERVATION.match(text) or _interactive(message) is not None:
        return message
    head = "The session ended (Submitted)."
    body = text.strip()
    return {**message, "role": END_ROLE, "content": f"{head}\n{body}" if body else head}


#: The members of a message object (chat messages, SWE-agent's history, Codex
#: response items) that its turns' text comes from: a turn's lines end at the last.
MESSAGE_TEXT_KEYS = (
    "content",
    "parts",
    "tool_calls",
    "function_call",
    "reasoning",
    "reasoning_content",
    "arguments",
    "output",
    "summary",
    "function",
    "text",
)
#: Of those, the members a message's reasoning comes from (its ``Bot thinking`` turn) and
#: its content alone (without its tool calls); `TEXT_KEYS`: its turn with its calls.
REASONING_KEYS = ("reasoning", "reasoning_content")
CONTENT_KEYS = ("content", "parts")
TEXT_KEYS = tuple(k for k in MESSAGE_TEXT_KEYS if k not in REASONING_KEYS)


def read_messages(path: Path, options: ReadOptions) -> Any:
    """A JSON document holding a list of chat messages, read into turns."""
    doc = Document(path, options)
    out = Collected(path, MESSAGES, warnings=doc.warnings, keep_messages=options.keep_messages)
    value = doc.value
    key = None if isinstance(value, list) else (messages_key(value) or "items")
    info = value.get("info") if isinstance(value, dict) else None
    status = info.get("exit_status") if isinstance(info, dict) else None
    if isinstance(info, dict):
        out.notes.append("an agent trajectory: its messages are read")
        out.label = trajectory_label(value)
    elif _gemini_contents(value if key is None else value.get(key)):
        out.label = GEMINI_CHECKPOINT
    elif key == "history":
        out.label = f"{SWE_AGENT} trajectory"
    submitting = False  # the last message ran the submit command (`SUBMIT_MARKS`)
    # An assistant's text-only message with one fenced command (`_text_action`) waits
    # for the next message, which says whether the command ran: (its line, the
    # message, its end, its parts, the block, whether it ran anyway).
    held: tuple[int, dict[str, Any], int | None, PartEnds, re.Match[str], bool] | None = None
    actions = 0  # fenced commands read as calls (their ids)

    def release(answered: bool) -> str | None:
        """Add the held message: its command as the call it was when it ran (its fence
        is mini-swe-agent's own, it submits, or the harness `answered` it); that call's
        id, or None."""
        nonlocal held, actions
        if held is None:
            return None
        at, action, action_end, action_parts, block, sure = held
        held = None
        call_id = None
        if sure or answered:
            actions += 1
            call_id = f"text-action-{actions}"
            _ran(action, block, call_id)
        out.add(at, action, action_end, action_parts)
        return call_id

    for start, stop, raw in doc.array_elements(key):
        out.records += 1
        line = 1 if start is None else doc.line(start)
        end = None if start is None or stop is None else doc.last_line(start, stop, raw, TEXT_KEYS)
        part_ends = NO_PART_ENDS
        if not isinstance(raw, dict):
            out.fail(line, f"not a JSON object (got {type(raw).__name__})", options)
            continue
        try:
            if (raw.get("type") in codex.PAYLOAD_TYPES and "role" not in raw) or key == "items":
                messages = codex.payload_messages(raw, _timestamp(raw))
                if messages is None:
                    out.not_read[f"{raw.get('type', 'untyped')} items"] += 1
                    continue
            elif raw.get("object") == "response" and isinstance(raw.get("output"), list):
                messages = _response_output(raw)
            else:
                messages = _message(raw, status)
                # a chat message: where its reasoning and its content alone end
                part_ends = doc.part_ends(
                    start, raw, REASONING_KEYS, CONTENT_KEYS, MESSAGE_TEXT_KEYS
                )
        except ValueError as e:
            out.fail(line, str(e), options)
            continue
        if not messages and submitting and raw.get("role") == "user" and not raw.get("content"):
            # mini-swe-agent 1.x's submission, empty: still the session's end
            messages = [{"role": "user", "content": "", "timestamp": _timestamp(raw)}]
        if not messages:
            context = gemini_context(raw)
            out.not_read["context the CLI wrote" if context else "empty messages"] += 1
            continue
        out.read += 1
        for m in messages:
            said = _interactive(m)
            if said is not None:
                # a refusal is the held command's result, the user's words after it; a
                # Ctrl-C reads as Claude Code's (Codex's) interruption, with any words,
                # after the command it stopped (it ran, or waited to be confirmed)
                submitting = False
                how, words = said
                ts = m.get("timestamp")
                if how == "refused" and (call_id := release(True)) is not None:
                    result = {"role": "tool", "tool_call_id": call_id, "is_error": True}
                    out.add(line, {**result, "content": REFUSED_RESULT, "timestamp": ts}, end)
                    if words:
                        out.add(line, {"role": "user", "content": words, "timestamp": ts}, end)
                    continue
                if how == "stopped":  # (the command held was run, or about to be)
                    release(True)
                    text = f"{codex.INTERRUPTED}\n{words}" if words else codex.INTERRUPTED
                    m = {**m, "content": text}
            rejected = _format_error(m)
            if rejected is not None:  # the held block did not run: the harness found
                release(False)  # none or several
                m = rejected
            answer = False  # the harness's answer to a command: its output, its submission
            if submitting:
                ended = _submitted(m)
                answer, m = ended is not m, ended
            if n := strip_template(m):
                out.stripped[TEMPLATE_STRIPPED] += n
            submitting = _submits(m)
            observed = _observes(m)
            call_id = release(answer or observed)
            if call_id is not None and observed:  # the command's output: the tool's
                m = {**m, "role": "tool", "tool_call_id": call_id}
            block = _text_action(m)
            if block is not None:
                held = (
                    line,
                    m,
                    end,
                    part_ends,
                    block,
                    block.group(1).strip() == ACTION_FENCE or submitting,
                )
                continue
            out.add(line, m, end, part_ends)
    release(False)
    return out.build(options)


# --------------------------------------------------------------------------- ChatGPT


def _epoch(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value), tz=UTC).isoformat()
    return None


def _conversations(doc: Document) -> list[tuple[int, dict[str, Any]]]:
    if isinstance(doc.value, dict):
        return [(1, doc.value)]
    return [(line, c) for line, c in doc.array_items(None) if isinstance(c, dict)]


def _newest_first(convs: list[tuple[int, dict[str, Any]]]) -> list[int]:
    def when(i: int) -> float:
        c = convs[i][1]
        t = c.get("update_time") or c.get("create_time") or 0
        return float(t) if isinstance(t, int | float) else 0.0

    return sorted(range(len(convs)), key=when, reverse=True)


def _branch(conv: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes from the root to ``current_node`` (the conversation as last shown)."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise ValueError("'mapping' is not an object")
    node_id = conv.get("current_node")
    if node_id not in mapping:  # no current node: the last node of the longest chain
        leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]
        node_id = leaves[-1] if leaves else None
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        chain.append(node)
        node_id = node.get("parent")
    return chain[::-1]


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _chatgpt_messages(node: dict[str, Any]) -> list[dict[str, Any]]:
    msg = node.get("message")
    if not isinstance(msg, dict):
        return []
    meta = _obj(msg.get("metadata"))
    if meta.get("is_visually_hidden_from_conversation"):
        return []
    author = _obj(msg.get("author"))
    role = author.get("role")
    content = _obj(msg.get("content"))
    ctype = content.get("content_type")
    ts = _epoch(msg.get("create_time"))
    if ctype in ("user_editable_context", "model_editable_context"):
        return []
    if ctype == "thoughts":
        thoughts = content.get("thoughts")
        parts = [
            f"{t.get('summary', '')}\n{t.get('content', '')}".strip()
            for t in thoughts or []
            if isinstance(t, dict)
        ]
        text = "\n\n".join(p for p in parts if p)
        return (
            [{"role": "assistant", "content": "", "reasoning": text, "timestamp": ts}]
            if text
            else []
        )
    if ctype == "reasoning_recap":
        return []
    if ctype in ("text", "multimodal_text"):
        text = text_of(content.get("parts"))
    elif ctype in ("code", "execution_output", "tether_quote", "system_error"):
        text = str(content.get("text") or "")
    else:
        text = text_of(content.get("parts")) or str(content.get("text") or "")
    recipient = msg.get("recipient")
    if role == "assistant" and isinstance(recipient, str) and recipient != "all":
        call = tool_call(None, recipient, _chatgpt_arguments(recipient, text))  # output next
        return [{"role": "assistant", "content": "", "tool_calls": [call], "timestamp": ts}]
    if role == "tool":
        return [
            {
                "role": "tool",
                "tool_call_id": None,
                "content": text,
                "timestamp": ts,
                "name": author.get("name"),
            }
        ]
    if not text.strip() or role not in ("user", "assistant", "system"):
        return []
    return [{"role": role, "content": text, "timestamp": ts}]


def _chatgpt_arguments(recipient: str, text: str) -> Any:
    """A ChatGPT call's arguments from the message's text: a JSON object as its arguments
    (canvas, ``dalle.text2im``, ``web.run``: ``name=... content:`` as the other readers
    show them, never a quoted JSON string), the code interpreter's code as its ``input``,
    any other text (``browser``'s ``search("...")``, ``bio``'s note) as it is."""
    if recipient == "python":
        return {"input": text}
    value = decode_arguments(text)
    return value if isinstance(value, dict) else text


def read_chatgpt(path: Path, options: ReadOptions) -> Any:
    """A ChatGPT export (conversations.json), read into turns."""
    doc = Document(path, options)
    out = Collected(path, CHATGPT, warnings=doc.warnings)
    convs = _conversations(doc)
    if not convs:
        return out.build(options)
    order = _newest_first(convs)
    index = options.session if options.session is not None else order[0]
    if not 0 <= index < len(convs):
        raise SourceError(
            path, f"no session {index} (the file holds {len(convs)}: 0..{len(convs) - 1})"
        )
    line, conv = convs[index]
    title = conv.get("title") if isinstance(conv.get("title"), str) else ""
    if len(convs) > 1:
        out.notes.append(
            f"session {index} of {len(convs)}: {title or 'untitled'}"
            + (" (the newest; --session N picks another)" if options.session is None else "")
        )
    offsets = _line_spans(doc, conv, line)
    try:
        nodes = _branch(conv)
    except ValueError as e:
        out.records += 1
        out.fail(line, str(e), options)
        return out.build(options)
    mapping = conv["mapping"]
    # the records of a conversation are the nodes of its tree: those of the branch shown
    # are read (or said why not), the others belong to edited or regenerated branches
    out.records = len(mapping)
    out.not_read["nodes of other branches (edited or regenerated)"] = len(mapping) - len(nodes)
    for node in nodes:
        messages = _chatgpt_messages(node)
        if not messages:
            out.not_read[_why_hidden(node)] += 1
            continue
        out.read += 1
        first, last = offsets.get(str(node.get("id")), (line, line))
        for m in messages:
            out.add(first, m, last)
    out.not_read = +out.not_read  # drop the zero counts
    source = out.build(options)
    source.sessions = [(i, _title(convs[i][1])) for i in order]
    return source


def _why_hidden(node: dict[str, Any]) -> str:
    msg = node.get("message")
    if not isinstance(msg, dict):
        return "nodes without a message (the root)"
    if _obj(msg.get("metadata")).get("is_visually_hidden_from_conversation"):
        return "hidden messages"
    ctype = _obj(msg.get("content")).get("content_type")
    if ctype in ("user_editable_context", "model_editable_context"):
        return "custom instructions and memory"
    if ctype == "reasoning_recap":
        return "reasoning recaps"
    return "empty messages"


def _title(conv: dict[str, Any]) -> str:
    title = conv.get("title")
    return title if isinstance(title, str) and title else "untitled"


def _line_spans(doc: Document, conv: dict[str, Any], line: int) -> dict[str, tuple[int, int]]:
    """The first and last line of each node of a conversation: from where its id first
    appears as a key to the end of its ``message`` (its text)."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        return {}
    offset = doc.offset(line)
    out: dict[str, tuple[int, int]] = {}
    for node_id in mapping:
        key = re.compile(rf'"{re.escape(str(node_id))}"\s*:\s*\{{')
        found = key.search(doc.text, offset)
        if found:
            end = doc.object_end(found.end() - 1, ("message", *MESSAGE_TEXT_KEYS))
            out[str(node_id)] = (doc.line(found.start()), end)
        else:
            out[str(node_id)] = (line, line)
    return out


def chatgpt_sessions(path: Path) -> list[SessionInfo]:
    """The conversations in a ChatGPT export, one `SessionInfo` each."""
    doc = Document(path, ReadOptions())
    convs = _conversations(doc)
    size = path.stat().st_size
    infos = []
    for i in _newest_first(convs):
        conv = convs[i][1]
        when = conv.get("update_time") or conv.get("create_time") or 0
        title = conv.get("title") if isinstance(conv.get("title"), str) else ""
        if not title:
            texts = [
                m["content"]
                for n in _branch(conv)
                for m in _chatgpt_messages(n)
                if m["role"] == "user"
            ]
            title = first_text(texts)
        infos.append(
            SessionInfo(
                str(path),
                i,
                CHATGPT,
                float(when) if isinstance(when, int | float) else 0.0,
                size,
                title,
            )
        )
    return infos
