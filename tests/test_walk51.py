"""Walk 51: real Codex CLI and Gemini CLI sessions the readers had not met. The records
below keep the shape of real ones (trimmed, names changed):

- Codex 0.144 code mode and ``request_user_input``: inspi-writer001/gildore-arena
  ``codex-session.jsonl`` (commit cf7c302a55828b36764163c49a71f95137992c7f);
- Codex Desktop 0.118's command results: kunalcode12/openclaw_agent
  ``codex-session.jsonl`` (cebcb5a83053ee2b5003a9795850c23257ec738e);
- a Gemini CLI chat of June 2026 (``<session_context>``, plan mode's notes, the newer
  shell results): bhanu7410/personal_finance ``gemini_session.json``
  (2a9f6c37d5feb22f8144ebf24882b9e1bc4372f7).

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.read.formats.codex import code_mode_calls
from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.collapse import collapse_messages
from chunkscope.engine.recap.sections import extract_sections
from tests.test_reader_versions import _accounted, _item, _jsonl, _text

T = "2026-07-18T11:54:{:02d}.000Z".format
CWD = "/home/dev/arena"


def _script(call: str) -> str:
    return f"const r = await tools.{call};\ntext(r.output);"


def _script_output(cid: str, text: str, head: str = "Script completed") -> dict[str, Any]:
    parts = [
        {"type": "input_text", "text": f"{head}\nWall time 0.2 seconds\nOutput:\n"},
        {"type": "input_text", "text": text},
    ]
    return {"type": "custom_tool_call_output", "call_id": cid, "output": parts}


def _exec(cid: str, script: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": cid,
        "name": "exec",
        "input": script,
    }


def codex_code_mode(path: Path) -> Path:
    cmd = {
        "cmd": "sed -n '1,40p' README.md && printf '\\n--- repo ---\\n'",
        "workdir": CWD,
        "yield_time_ms": 10000,
    }
    questions = {
        "questions": [
            {
                "id": "deadline",
                "header": "Deadline",
                "question": "Which deadline?",
                "options": [{"label": "1 August (Recommended)"}, {"label": "15 August"}],
            },
            {
                "id": "kpi",
                "header": "KPI",
                "question": "Which KPI?",
                "options": [{"label": "Deposits"}, {"label": "Users"}],
            },
        ]
    }
    answers = {
        "answers": {
            "kpi": {"answers": ["Users"]},
            "deadline": {"answers": ["1 August (Recommended)"]},
        }
    }
    records = [
        _item(T(0), {"id": "s1", "cwd": CWD, "cli_version": "0.144.5"}, "session_meta"),
        _item(T(1), _text("user", "Rewrite the grant application for the arena.")),
        _item(T(2), _exec("c1", _script(f"exec_command({json.dumps(cmd)})"))),
        _item(T(3), _script_output("c1", "# Arena\nAn agentic trading arena.\n")),
        # a literal as a script writes it: a bare key, single quotes
        _item(
            T(4),
            _exec("c2", _script("exec_command({cmd: 'git status --short', yield_time_ms: 1000,})")),
        ),
        _item(T(5), _script_output("c2", json.dumps({"exit_code": 1, "output": "fatal: no repo"}))),
        _item(
            T(6),
            _exec(
                "c3",
                'const r = await tools.web__run({"open":[{"ref_id":"https://example.org/grants"}],"response_length":"medium"});\ntext(JSON.stringify(r));',
            ),
        ),
        _item(T(7), _script_output("c3", '"Grants | Example (https://example.org/grants)"')),
        _item(T(8), _exec("c4", "let n = 0;\nfor (const f of files) n += f.size;\ntext(n);")),
        _item(T(9), _script_output("c4", "ReferenceError: files is not defined", "Script failed")),
        _item(
            T(10),
            {
                "type": "function_call",
                "name": "request_user_input",
                "call_id": "c5",
                "arguments": json.dumps(questions),
            },
        ),
        _item(
            T(11), {"type": "function_call_output", "call_id": "c5", "output": json.dumps(answers)}
        ),
        _item(T(12), _text("assistant", "The draft is ready with the August deadline.")),
    ]
    return _jsonl(path, records)


def test_codex_code_mode_calls_read_as_the_tools_the_script_calls(tmp_path: Path) -> None:
    """F1: code mode's ``exec`` (a JavaScript script calling the real tools) read as a
    shell call with no command: every command of the session was ``Ran `?```, its
    output under the script's ``Script completed / Wall time / Output:``."""
    source = load(codex_code_mode(tmp_path / "rollout.jsonl"))
    assert _accounted(source)
    calls = [
        t.text for t in source.turns if t.role == "Bot" and t.text.startswith(("$", "web", "exec"))
    ]
    assert calls[0].startswith("$ sed -n '1,40p' README.md && printf '\\n--- repo ---\\n'"), calls
    assert calls[1].startswith("$ git status --short"), calls
    assert calls[2] == "web_fetch https://example.org/grants", calls
    assert calls[3].startswith("exec_js\n") and "for (const f of files)" in calls[3], calls
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools[:4] == [
        "Ran `sed -n '1,40p' README.md && printf '\\n--- repo ---\\n'`: "
        "# Arena An agentic trading arena.",
        "Ran `git status --short` (exit 1): fatal: no repo",
        "Fetched https://example.org/grants.",
        tools[3],
    ], tools
    assert "Script" not in "\n".join(tools[:3]) and "?" not in tools[0]
    assert "failed" in tools[3] and "ReferenceError: files is not defined" in tools[3], tools


def test_codex_request_user_input_answers_are_read_as_the_users_decisions(tmp_path: Path) -> None:
    """F8: the answers to ``request_user_input`` reached neither the collapsed text (a bare
    call) nor the recap's Task (no ``Answered:`` line)."""
    source = load(codex_code_mode(tmp_path / "rollout.jsonl"), keep_messages=True)
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert (
        "Asked user: 'Which deadline? Which KPI?'. Response: '1 August (Recommended); Users'."
        in tools
    ), tools
    task = next(s for s in extract_sections(source.messages, []) if s.name == "task")
    assert "Answered: Which deadline? -> 1 August (Recommended)" in task.lines, task.lines
    assert "Answered: Which KPI? -> Users" in task.lines, task.lines


def test_codex_desktop_s_command_line_before_the_output_is_left_out(tmp_path: Path) -> None:
    """F2: Codex Desktop writes the ``Command:`` it ran before ``Chunk ID``; the header was
    kept whole and the exit code not read."""
    out = (
        "Command: /bin/zsh -lc 'git log --oneline -2'\nChunk ID: c8a1b9\n"
        "Wall time: 0.0000 seconds\n"
        "Process exited with code 0\nOriginal token count: 26\nOutput:\na292c02 Improve price\n"
    )
    path = _jsonl(
        tmp_path / "rollout.jsonl",
        [
            _item(T(0), {"id": "s2", "cwd": CWD, "originator": "Codex Desktop"}, "session_meta"),
            _item(T(1), _text("user", "What changed lately?")),
            _item(
                T(2),
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "call_id": "c1",
                    "arguments": json.dumps({"cmd": "git log --oneline -2"}),
                },
            ),
            _item(T(3), {"type": "function_call_output", "call_id": "c1", "output": out}),
        ],
    )
    source = load(path)
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools == ["Ran `git log --oneline -2` (exit 0): a292c02 Improve price"], tools


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
        st.one_of(st.text(max_size=30), st.integers(), st.booleans(), st.none()),
        max_size=4,
    ),
    st.sampled_from(["exec_command", "mcp__fs__read", "apply_patch"]),
)
def test_a_code_mode_call_s_arguments_read_back_whatever_they_hold(
    args: dict[str, Any], name: str
) -> None:
    """Property: a script of one ``tools.NAME(ARGS)`` call, its arguments written as JSON
    (quotes, braces, backslashes in its strings), reads back as that call."""
    script = f"const r = await tools.{name}({json.dumps(args)});\ntext(r.output);"
    assert code_mode_calls(script) == [(name, args)]


def test_a_code_mode_script_that_computes_its_arguments_is_kept_whole() -> None:
    assert code_mode_calls("await tools.exec_command({cmd: `ls ${dir}`})") is None
    assert code_mode_calls("await tools.exec_command(args)") is None
    assert code_mode_calls("text(1 + 1)") is None


# --- Gemini CLI, June 2026 ----------------------------------------------------------

CONTEXT = (
    "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
    "Today's date is Sunday, 14 June 2026.\nMy operating system is: darwin\n"
    "- **Directory Structure:**\n/Users/dev/finance/\n├───.gitignore\n├───app/\n</session_context>"
)
SWITCH = (
    "User has manually exited Plan Mode. "
    "Switching to Default mode (edits will require confirmation)."
)


def _shell(
    cid: str, command: str, response: dict[str, Any], status: str = "success"
) -> dict[str, Any]:
    fr = {"functionResponse": {"id": cid, "name": "run_shell_command", "response": response}}
    return {
        "id": cid,
        "name": "run_shell_command",
        "args": {"command": command},
        "result": [fr],
        "status": status,
    }


def gemini_june(path: Path) -> Path:
    t = "2026-06-14T12:0{}:00.000Z".format
    messages = [
        {"id": "m0", "timestamp": t(0), "type": "user", "content": [{"text": CONTEXT}]},
        {"id": "m1", "timestamp": t(1), "type": "user", "content": [{"text": SWITCH}]},
        {
            "id": "m2",
            "timestamp": t(2),
            "type": "user",
            "content": [{"text": "check the update and get ready for the groups page"}],
        },
        {
            "id": "m3",
            "timestamp": t(3),
            "type": "gemini",
            "content": "",
            "toolCalls": [
                _shell(
                    "s1",
                    "mkdir -p app/groups && ls -d app/groups",
                    {"output": "Output: app/groups\nProcess Group PGID: 93201"},
                ),
                _shell(
                    "s2",
                    "rm app/groups/old.tsx",
                    {"output": "Output: (empty)\nProcess Group PGID: 35372"},
                ),
                _shell(
                    "s3",
                    "git diff app/groups",
                    {"error": 'Tool "run_shell_command" not found.'},
                    "error",
                ),
            ],
        },
        {"id": "m4", "timestamp": t(4), "type": "gemini", "content": "The groups folder is ready."},
    ]
    doc = {
        "sessionId": "g1",
        "projectHash": "ab",
        "startTime": t(0),
        "lastUpdated": t(4),
        "kind": "main",
        "messages": messages,
    }
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def test_gemini_s_session_context_and_plan_mode_notes_are_not_the_users_requests(
    tmp_path: Path,
) -> None:
    """F4, F5: the ``<session_context>`` the CLI opens a chat with was read as the user's
    first request (the recap's Task: a directory tree), and plan mode's exit note as a
    later request."""
    source = load(gemini_june(tmp_path / "session.json"), keep_messages=True)
    assert _accounted(source)
    assert source.not_read.get("context the CLI wrote (<session_context>)") == 1
    you = [t.text for t in source.turns if t.role == "You"]
    assert you == ["check the update and get ready for the groups page"], you
    assert [t.text for t in source.turns if t.role == "info"] == [SWITCH]
    task = next(s for s in extract_sections(source.messages, []) if s.name == "task")
    assert task.lines == ("check the update and get ready for the groups page",), task.lines


def test_gemini_s_newer_shell_results_read_as_the_older_ones(tmp_path: Path) -> None:
    """F6, F7: the newer shell result (``Output: ...`` then ``Process Group PGID:`` only)
    kept the CLI's lines, ``(empty)`` was no "no output", and a failed call said
    ``(failed)`` without the error's words."""
    source = load(gemini_june(tmp_path / "session.json"), keep_messages=True)
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools == [
        "Ran `mkdir -p app/groups && ls -d app/groups`: app/groups",
        "Ran `rm app/groups/old.tsx` (no output).",
        'Ran `git diff app/groups` (failed): Tool "run_shell_command" not found.',
    ], tools


def test_an_output_that_opens_with_output_is_not_taken_for_the_cli_s_lines() -> None:
    from chunkscope.engine.read.formats.gemini import shell_result

    assert shell_result("Output: 3 files\nDone") == ("Output: 3 files\nDone", None)
    assert shell_result("Output: x\nExit Code: 2\nProcess Group PGID: 9") == ("Exit code: 2\nx", 2)


def test_crlf_inside_a_message_s_text_is_a_line_end_to_every_reader(tmp_path: Path) -> None:
    """F11: a Windows tool's output kept its CRLF inside the JSON string: no blank line
    split it (codex-rave: one chunk of 71,989 tokens) and ``^M`` showed in the text. The
    seed's own reader (`parse_turns`) keeps the text as the reference read it."""
    from chunkscope.engine.chunk.split import chunk_turns
    from chunkscope.engine.read.source import parse_turns

    para = "PS C:\\repo> dir\r\n    Directory: C:\\repo\r\n\r\nMode  Name\r\n----  ----\r\n"
    rollout = _jsonl(
        tmp_path / "rollout.jsonl",
        [
            _item(T(0), {"id": "s3", "cwd": "C:\\repo"}, "session_meta"),
            _item(T(1), _text("user", "List the folder, please.\r\n\r\nThen stop.")),
            _item(
                T(2),
                {
                    "type": "function_call",
                    "name": "shell_command",
                    "call_id": "c1",
                    "arguments": json.dumps({"command": "dir\r\nls"}),
                },
            ),
            _item(T(3), {"type": "function_call_output", "call_id": "c1", "output": para * 3}),
        ],
    )
    seed = tmp_path / "log.jsonl"
    seed.write_text(json.dumps({"role": "user", "content": "one\r\n\r\ntwo\r\n\r\nthree"}) + "\n")
    for path in (rollout, seed):
        source = load(path)
        assert not any("\r" in t.text for t in source.turns), path
        texts = [c.text for c in chunk_turns(source.turns)]
        assert not any("\r" in t for t in texts)
    assert len(chunk_turns(load(seed).turns)) == 3  # three paragraphs: three chunks
    tool = next(t for t in load(rollout).turns if t.role == "Tool")
    assert tool.text.count("\n\n") == 3, tool.text
    assert [t.text for t in parse_turns(seed)] == ["one\r\n\r\ntwo\r\n\r\nthree"]


def test_a_file_the_shell_refused_to_write_is_no_file_changed() -> None:
    """F3: a skill's telemetry line (``echo ... >> ~/.superstack/telemetry.jsonl``) the
    sandbox refused (``zsh:11: operation not permitted: ...``) was listed as a file
    written and warned of as not committed; a write that ran is still listed."""
    from tests.test_sections import bot, by_name, call, result, user

    refused = "zsh:11: operation not permitted: /Users/dev/.superstack/telemetry.jsonl"
    msgs = [
        user("Draft the grant application."),
        bot("", call("t1", "exec_command", {"cmd": 'echo "$EV" >> ~/.superstack/telemetry.jsonl'})),
        result("t1", f"Exit code: 1\n{refused}"),
        bot("", call("t2", "exec_command", {"cmd": "cat > notes.md <<'EOF'\nDraft\nEOF"})),
        result("t2", "Exit code: 0"),
    ]
    s = by_name(extract_sections(msgs, []))
    assert s["files"] == ("- notes.md (written)",), s["files"]


def test_a_claude_code_session_whose_requests_failed_says_so(tmp_path: Path) -> None:
    """F12 (and F9): Claude Code's ``api_error`` system records (one per retry) were
    "empty system records", and the recap of a session whose request got no answer said
    "hello" and nothing more; the errors read as such, and "Where it stopped" says no
    answer came, and why."""
    base = {"sessionId": "s", "cwd": "C:\\\\Users\\\\dev", "version": "2.1.76", "gitBranch": "main"}
    records: list[dict[str, Any]] = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-04-13T05:31:30.339Z",
            "message": {"role": "user", "content": "Add a login page to the app."},
        },
    ]
    parent = "u1"
    for k in range(1, 4):
        error = {
            "status": 500,
            "error": {
                "type": "error",
                "error": {
                    "type": "api_error",
                    "message": "your current token plan not support model",
                },
            },
        }
        records.append(
            {
                **base,
                "type": "system",
                "subtype": "api_error",
                "level": "error",
                "error": error,
                "retryAttempt": k,
                "maxRetries": 10,
                "uuid": f"e{k}",
                "parentUuid": parent,
                "timestamp": f"2026-04-13T05:31:3{k}.000Z",
            }
        )
        parent = f"e{k}"
    source = load(_jsonl(tmp_path / "s.jsonl", records), keep_messages=True)
    assert _accounted(source) and not source.not_read, source.not_read
    errors = [t.text for t in source.turns if t.role == "error"]
    assert errors[0] == "API error 500: your current token plan not support model (retry 1 of 10)"
    last = next(s for s in extract_sections(source.messages, []) if s.name == "last")
    assert last.lines == (
        # (what was asked quoted: walk 64, F17)
        'No answer to the user\'s last message ("Add a login page to the app."): API error 500: '
        "your current token plan not support model (3 attempts).",
    ), last.lines


def test_a_log_of_roles_whose_text_is_named_text_is_read(tmp_path: Path) -> None:
    """F16: JSON lines of ``role`` and ``text`` (a sanitized export of a session) gave
    `chunk` turns of bare role labels and `recap` no turns at all; the seed's own reader
    keeps reading ``content`` alone, as the reference did."""
    from chunkscope.engine.read.source import parse_turns

    rows = [
        {"type": "message", "role": "user", "text": "Create three landing pages."},
        {"type": "message", "role": "assistant", "text": "Here are the three variants."},
    ]
    path = _jsonl(tmp_path / "export.jsonl", rows)
    assert [t.text for t in load(path).turns] == [r["text"] for r in rows]
    assert [t.text for t in parse_turns(path)] == ["", ""]


def test_a_heading_of_the_last_message_is_no_stump_in_where_it_stopped() -> None:
    """F13: "Where it stopped" said a heading of the agent's last message as a sentence
    (``## FW-007 — recommendation`` as ``FW-007 — recommendation.``)."""
    from tests.test_sections import bot, by_name, user

    msgs = [
        user("Pick up FW-005 and help decide FW-007."),
        bot(
            "Both commits landed.\n\n---\n\n## FW-007 — recommendation\n\n"
            "**Source currency: future-only.** Half-shipping it is the riskiest path."
        ),
    ]
    last = by_name(extract_sections(msgs, []))["last"]
    assert not any("recommendation" in line for line in last), last
    assert "Both commits landed." in last, last


def test_a_code_mode_script_nested_past_any_depth_is_kept_whole() -> None:
    """Hostile input: a literal nested thousands deep made the JSON parser raise
    RecursionError out of the reader; such a script is kept as it is."""
    deep = "await tools.x(" + '{"a":' * 3000 + "1" + "}" * 3000 + ")"
    assert code_mode_calls(deep) is None
    assert code_mode_calls("await tools.x({a: " + "[" * 3000 + "]" * 3000 + "})") is None
