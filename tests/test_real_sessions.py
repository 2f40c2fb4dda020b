"""Real sessions of each agent tool (tests/fixtures/, sources in SOURCES.md): every tool
result's first line and every command reach the chunk text, nothing encrypted shows,
and every record of the file is accounted for (read, not read with a reason, or
skipped). The held-out files (tests/fixtures/heldout/) were not looked at while the
readers were written: they are checked the same way."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks
from chunkscope.engine.read.formats import sniff
from chunkscope.engine.read.parse import load
from chunkscope.engine.read.source import Source, words_only

FIXTURES = Path(__file__).parent / "fixtures"
HELDOUT = FIXTURES / "heldout"

CASES = {
    "claude-code/coverage-test-fix.jsonl": "claude-code",
    "claude-code/stop-hook-reflection-first-stop.jsonl": "claude-code",
    "claude-code/hello-world-script.jsonl": "claude-code",
    "mini-swe-agent/pydicom-901.traj.json": "openai-messages",
    "mini-swe-agent/pvlib-1154-timeout.traj.json": "openai-messages",
    "mini-swe-agent/github_issue.traj.json": "openai-messages",
    "aider/metadata-aider.aider.chat.history.md": "aider",
    "codex/homelab-migration.jsonl": "codex",
    "codex/localpush-desktop-0.104.jsonl": "codex",
    "codex/agent-history-exec-0.135.jsonl": "codex",
    "gemini-cli/agent-history-session-01.json": "gemini-cli",
    "gemini-cli/m-gemini-cli-update-0.22.json": "gemini-cli",
    "heldout/claude-code/python-to-rust-port.jsonl": "claude-code",
    "heldout/claude-code/stop-hook-uncommitted-changes.jsonl": "claude-code",
    "heldout/mini-swe-agent/django-11039.traj.json": "openai-messages",
}

_TAG_LINE = re.compile(r"^\s*</?[\w-]+>\s*$")
_TAGS = re.compile(r"</?(?:returncode|output)>")
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def _first_line(text: str) -> str | None:
    """The first line of a tool result a reader must show (blanks, bare tags and
    system reminders aside), cut to 60 characters."""
    text = _TAGS.sub("", _REMINDER.sub("", text))
    for line in text.splitlines():
        if line.strip() and not _TAG_LINE.match(line):
            return " ".join(line.split())[:60]
    return None


def _folded(text: str) -> str:
    return " ".join(text.split())


def _chunk_text(source: Source) -> str:
    return _folded("\n".join(c.text for c in compact_chunks(chunk_turns(source.turns), 80)))


def _shown_command(command: str) -> str:
    """How a command appears: as typed (``$ command``), folded, its start."""
    return "$ " + _folded(command)[:50]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") if isinstance(b, dict) else str(b)
            for b in content
            if isinstance(b, str) or (isinstance(b, dict) and isinstance(b.get("text"), str))
        )
    return ""


def _claude_truth(path: Path) -> tuple[int, list[str], list[str], list[str]]:
    """(records, tool results' first lines, commands, encrypted strings) of a Claude
    Code session, read from the raw records."""
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    results, commands, secret = [], [], []
    for line in lines:
        rec = json.loads(line)
        if rec.get("isSidechain"):
            continue
        content = (rec.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            kind = block.get("type")
            if kind == "tool_result":
                first = _first_line(_text(block.get("content")))
                if first:
                    results.append(first)
            elif kind == "tool_use" and isinstance(block.get("input", {}).get("command"), str):
                commands.append(_shown_command(block["input"]["command"]))
            elif kind == "thinking" and block.get("signature"):
                secret.append(block["signature"][:24])
            elif kind == "redacted_thinking":
                secret.append(str(block.get("data"))[:24])
    return len(lines), results, commands, secret


def _messages_truth(path: Path) -> tuple[int, list[str], list[str], list[str]]:
    value = json.loads(path.read_text())
    messages = value if isinstance(value, list) else value["messages"]
    results, commands = [], []
    for m in messages:
        if m.get("role") == "tool":
            first = _first_line(_text(m.get("content")))
            if first:
                results.append(first)
        for call in m.get("tool_calls") or []:
            args = json.loads(call["function"]["arguments"])
            if isinstance(args.get("command"), str):
                commands.append(_shown_command(args["command"]))
        if m.get("role") == "assistant" and not m.get("tool_calls"):
            # the older text-only trajectories: the command is in a ```bash block
            for block in re.findall(
                r"```(?:bash|mswea_bash_command)\n(.*?)```", _text(m.get("content")), re.S
            ):
                commands.append(_folded(block)[:50])
    return len(messages), results, commands, []


def _codex_truth(path: Path) -> tuple[int, list[str], list[str], list[str]]:
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    results, commands, secret = [], [], []
    for line in lines:
        payload = json.loads(line).get("payload") or {}
        if payload.get("type") == "function_call_output":
            first = _first_line(str(payload.get("output")))
            if first:
                results.append(first)
        if payload.get("encrypted_content"):
            secret.append(payload["encrypted_content"][:24])
    return len(lines), results, commands, secret


def _aider_truth(path: Path) -> tuple[int, list[str], list[str], list[str]]:
    text = path.read_text()
    asked = [_folded(ln[5:])[:50] for ln in text.splitlines() if ln.startswith("#### ")]
    shown = [
        _folded(ln[2:])[:50]
        for ln in text.splitlines()
        if ln.startswith("> ") and ln[2:].strip() and "aider --" not in ln
    ]
    return -1, shown, [a for a in asked if a], []


def _gemini_truth(path: Path) -> tuple[int, list[str], list[str], list[str]]:
    messages = json.loads(path.read_text())["messages"]
    said = [_folded(_text(m["content"]))[:50] for m in messages if _text(m.get("content"))]
    return len(messages), said, [], []


TRUTH = {
    "claude-code": _claude_truth,
    "openai-messages": _messages_truth,
    "codex": _codex_truth,
    "aider": _aider_truth,
    "gemini-cli": _gemini_truth,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_real_session_is_read_whole(name: str) -> None:
    path = FIXTURES / name
    assert sniff(path) == CASES[name]
    source = load(path)
    records, results, commands, secret = TRUTH[CASES[name]](path)
    text = _chunk_text(source)
    missing = [r for r in results if _folded(r) not in text]
    assert not missing, f"tool results not shown: {missing}"
    missing = [c for c in commands if c not in text]
    assert not missing, f"commands not shown: {missing}"
    assert not [s for s in secret if s in text]  # nothing encrypted shows
    if records >= 0:
        assert source.records == records
    accounted = source.read + sum(source.not_read.values()) + len(source.skipped)
    assert accounted == source.records and source.read > 0


def test_parallel_tool_calls_of_a_real_session_keep_every_result() -> None:
    """The session of issue 24: two Reads and two Edits made at once; each result
    after its call, in call order, and no rewind (none happened)."""
    source = load(FIXTURES / "claude-code/coverage-test-fix.jsonl")
    assert "records abandoned by a rewind" not in source.not_read
    roles = [m["role"] for m in source.messages]
    assert roles.count("tool") == 13
    calls = [c["id"] for m in source.messages for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in source.messages if m["role"] == "tool"]
    assert answered == calls  # every call answered, in the order the calls were made
    meta = [t for t in source.turns if t.role == "Meta"]
    assert meta and meta[0].text.startswith("Stop hook feedback:")
    assert any(n.startswith("2 Meta turns (hook feedback") for n in source.notes)
    assert source.stripped == {"system-reminder blocks": 3}


def test_mini_swe_agent_shows_each_command_before_its_output() -> None:
    source = load(FIXTURES / "mini-swe-agent/pydicom-901.traj.json")
    bots = [t for t in source.turns if t.role == "Bot"]
    assert bots and all("\n$ " in t.text for t in bots)  # text, then the command as typed
    end = source.turns[-1]
    assert end.role == "End" and end.text.startswith("The session ended (Submitted).")
    assert "diff --git a/pydicom/config.py" in end.text


def test_a_trajectory_that_timed_out_says_so() -> None:
    source = load(FIXTURES / "mini-swe-agent/pvlib-1154-timeout.traj.json")
    assert source.turns[-1].text.startswith("The session ended (Timeout).")


def test_a_trajectory_s_template_is_left_out_and_counted() -> None:
    """mini-swe-agent's instance template wraps the task in ``<pr_description>`` with a
    framing line ("Consider the following PR description:") and follows it with the same
    ``<instructions>`` for every task ("You'll be helping implement ...", "Step 3: Submit
    (EXACT command required)"): its recaps opened on them, the picker titled the session
    ``<pr_description> Consider the following ...``, and a chunk held only the closing
    tag. The request is read as its task alone, the template counted as left out, and
    the picker's title is the same task."""
    from chunkscope.engine.read.formats.folders import file_session

    path = FIXTURES / "mini-swe-agent/pydicom-901.traj.json"
    raw = json.loads(path.read_text())["messages"][1]["content"]
    assert "<instructions>" in raw and "Step 1: Create the patch file" in raw
    assert "Consider the following PR description:" in raw
    source = load(path)
    request = next(t for t in source.turns if t.role == "You")
    assert request.text.startswith("pydicom should not define handler, formatter")
    for template in ("<pr_description>", "</pr_description>", "Consider the following", "Step 1"):
        assert template not in request.text
    assert source.stripped == {"prompt-template texts around the task": 1}
    assert "1 prompt-template text around the task" in source.accounting()
    assert file_session(path).title.startswith("pydicom should not define handler, formatter")


def test_the_older_mini_swe_agent_template_is_left_out_and_its_submission_ends_it() -> None:
    """The older instance template, ``Please solve this issue: {{task}}`` then its
    workflow, rules and ``<example_response>``: the task alone is the request (the recap's
    Task had the rules, "What happened" the example response). Its submission comes as a
    user message after the submit command: the session's end, not a later request."""
    from chunkscope.engine.read.formats.folders import file_session

    path = FIXTURES / "mini-swe-agent/github_issue.traj.json"
    source = load(path)
    requests = [t for t in source.turns if t.role == "You"]
    first = requests[0].text
    assert first.startswith("GitHub Issue: SyntaxError: invalid syntax")
    assert first.splitlines()[-2:] == ["SyntaxError: invalid syntax", "```"]  # the end
    for template in ("Please solve this issue", "Recommended Workflow", "example_response"):
        assert all(template not in t.text for t in source.turns)
    assert source.stripped == {"prompt-template texts around the task": 1}
    assert not any(t.text.startswith("diff --git") for t in requests)
    end = source.turns[-1]
    assert end.role == "End" and end.text.startswith("The session ended (Submitted).\ndiff --git")
    assert file_session(path).title.startswith("GitHub Issue: SyntaxError: invalid syntax I'm")


def test_an_older_text_only_trajectory_shows_its_commands_as_typed_and_their_output() -> None:
    """The older text-only mini-swe-agent trajectory runs the one fenced block of each
    answer (```` ```mswea_bash_command ````) and gives its output back as a user message
    (``<returncode>``...): each command showed as that fence and each output as the
    user's words (walk 17, 1). Each shows as typed (``$ cat tests/missing_colon.py``,
    a script on its lines, blank ones left out as for every call), after the answer's
    words, and its output as the tool's; the system prompt's example of the format is
    no command; every record is still accounted for."""
    path = FIXTURES / "mini-swe-agent/github_issue.traj.json"
    raw = json.loads(path.read_text())
    typed = [
        block.strip()
        for m in raw
        if m["role"] == "assistant"
        for block in re.findall(r"```mswea_bash_command\n(.*?)```", m["content"], re.S)
    ]
    outputs = [m["content"] for m in raw if m["content"].startswith("<returncode>")]
    assert len(typed) == 10 and len(outputs) == 9  # the submit command's: its end
    source = load(path)
    bots = [t.text for t in source.turns if t.role == "Bot"]
    assert len(bots) == len(typed)
    for text, command in zip(bots, typed, strict=True):
        lines = [ln for ln in command.split("\n") if ln.strip()]
        words, shown = text.split("\n$ ", 1)
        assert words.strip() and "```" not in text
        assert shown.split("\n") == lines  # as typed, a line each
    assert "$ cat tests/missing_colon.py" in bots[3].split("\n")
    assert "\n$ cat > tests/missing_colon.py << 'EOF'\n#!/usr/bin/env python3\ndef" in bots[8]
    tools = [t.text for t in source.turns if t.role == "Tool"]
    # (a run of blank lines is one: no paragraph of whitespace alone, walk 56, F9)
    assert tools == [words_only(out) for out in outputs]
    assert not any(t.text.startswith("<returncode>") for t in source.turns if t.role == "You")
    example = next(t.text for t in source.turns if "your_command_here" in t.text)
    assert "$ your_command_here" not in example
    assert sum(t.text.count("\n$ ") for t in source.turns) == len(typed)
    assert source.records == len(raw) == source.read + sum(source.not_read.values())
    end = source.turns[-1]
    assert end.role == "End" and end.text.startswith("The session ended (Submitted).")
