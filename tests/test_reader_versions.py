"""Records of the agent tools' newer versions: each reader reads what a recent version
writes as the tool means it (the records written from the tools' own source where no
real public file shows them; the real files are in `tests/fixtures`, see SOURCES.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.read.formats import sniff
from chunkscope.engine.read.parse import load

FIXTURES = Path(__file__).parent / "fixtures"


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _accounted(source: Any) -> bool:
    counted = source.read + sum(source.not_read.values()) + len(source.skipped)
    return bool(counted == source.records)


# --- Codex CLI ------------------------------------------------------------------------


def _item(ts: str, payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def _text(role: str, text: str, **extra: Any) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}], **extra}


def codex_recent(path: Path) -> Path:
    """A rollout as Codex CLI 0.1xx writes it (codex-rs/protocol: RolloutItem,
    ResponseItem; the instruction markers of instruction_markers.rs)."""
    t = "2026-08-20T10:00:0{}.000Z".format
    interrupted = "<turn_aborted>\n  <turn_id>t1</turn_id>\n  <reason>interrupted</reason>\n"
    return _jsonl(
        path,
        [
            _item(
                t(0),
                {
                    "id": "019e",
                    "cwd": "/home/dev/proj",
                    "originator": "codex_cli_rs",
                    "cli_version": "0.148.0",
                    "git": {"branch": "main"},
                },
                "session_meta",
            ),
            _item(t(0), _text("developer", "<permissions instructions>\nSANDBOX RULES")),
            _item(
                t(0), _text("developer", "<collaboration_mode>DEFAULT MODE</collaboration_mode>")
            ),
            _item(t(0), _text("user", "# AGENTS.md instructions for /home/dev/proj\nAGENTS")),
            _item(
                t(0), _text("user", "<environment_context>\n<cwd>/x</cwd>\n</environment_context>")
            ),
            _item(t(1), {"type": "task_started", "turn_id": "t1"}, "event_msg"),
            _item(t(1), _text("user", "Fix the failing cache test.")),
            _item(
                t(1),
                {"type": "user_message", "message": "Fix the failing cache test."},
                "event_msg",
            ),
            _item(
                t(1), {"turn_id": "t1", "cwd": "/home/dev/proj", "model": "gpt-5.6"}, "turn_context"
            ),
            _item(
                t(2),
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": "Looking at the cache key."}],
                    "encrypted_content": "gAAAAB",
                },
            ),
            _item(t(2), _text("assistant", "I will run the test first.", phase="commentary")),
            _item(
                t(3),
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": "pytest -q tests/test_cache.py"}),
                    "call_id": "c1",
                },
            ),
            _item(
                t(4),
                {"type": "function_call_output", "call_id": "c1", "output": "1 failed in 0.10s"},
            ),
            _item(t(5), _text("user", interrupted + "</turn_aborted>")),
            _item(
                t(5),
                {"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted"},
                "event_msg",
            ),
            _item(t(6), {"agents_md": "AGENTS"}, "world_state"),
            _item(
                t(7),
                _text("user", "<skill>\n<name>demo</name>\n<path>s/SKILL.md</path>\nB\n</skill>"),
            ),
            _item(t(7), _text("user", "Only change the cache key.")),
            _item(
                t(8), _text("assistant", "Done: the key includes the model.", phase="final_answer")
            ),
        ],
    )


def test_codex_reads_a_recent_rollout_without_the_cli_s_own_messages(tmp_path: Path) -> None:
    path = codex_recent(tmp_path / "rollout-2026-08-20T10-00-00-019e.jsonl")
    assert sniff(path) == "codex"
    source = load(path)
    roles_texts = [(t.role, t.text) for t in source.turns]
    joined = "\n".join(t for _, t in roles_texts)
    # the developer messages, the instructions, a skill's body: the CLI's, not read
    for written in ("SANDBOX RULES", "DEFAULT MODE", "AGENTS", "<skill>", "<turn_aborted>"):
        assert written not in joined
    assert "system" not in {r for r, _ in roles_texts}
    assert [t for r, t in roles_texts if r == "You"] == [
        "Fix the failing cache test.",
        "[Request interrupted by user]",  # once, though the CLI wrote it twice
        "Only change the cache key.",
    ]
    assert any(r == "Bot thinking" for r, _ in roles_texts)
    assert source.not_read["instructions the CLI wrote (developer messages)"] == 2
    assert source.not_read["interruption notes (read from the turn_aborted event)"] == 1
    assert _accounted(source)


@pytest.mark.parametrize(
    ("name", "developer", "roles"),
    [
        ("localpush-desktop-0.104.jsonl", 4, {"You": 3, "Bot": 11, "Bot thinking": 6, "Tool": 5}),
        ("agent-history-exec-0.135.jsonl", 1, {"You": 1, "Bot": 1}),
    ],
)
def test_a_real_recent_codex_rollout_reads_no_developer_message_as_a_turn(
    name: str, developer: int, roles: dict[str, int]
) -> None:
    """Codex Desktop 0.104.0-alpha.1 and codex exec 0.135.0 (texts redacted by the
    repositories that hold them): their developer messages are instructions, not turns."""
    source = load(FIXTURES / "codex" / name)
    assert source.format == "codex"
    assert Counter(t.role for t in source.turns) == roles
    assert source.not_read["instructions the CLI wrote (developer messages)"] == developer
    assert _accounted(source)


# --- Claude Code ----------------------------------------------------------------------


def _claude(kind: str, uuid: str, parent: str | None, ts: int, **fields: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "cli",
        "cwd": "/home/dev/proj",
        "sessionId": "s-1",
        "version": "2.1.240",
        "gitBranch": "main",
        "type": kind,
        "uuid": uuid,
        "timestamp": f"2026-08-20T10:00:{ts:02d}.000Z",
        **fields,
    }


def claude_queued(path: Path) -> Path:
    """A Claude Code 2.1.2xx session where the user typed while the agent worked: the
    queue operations, then the ``queued_command`` attachment that hands the message
    over mid-turn, and an attachment of the tool's own (a reminder)."""
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "npm test"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "12 passing"}
    queued = "also add a test for the empty list"
    return _jsonl(
        path,
        [
            _claude("user", "u1", None, 0, message={"role": "user", "content": "Run the tests."}),
            _claude("assistant", "a1", "u1", 1, message={"role": "assistant", "content": [call]}),
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "sessionId": "s-1",
                "timestamp": "2026-08-20T10:00:02.000Z",
                "content": queued,
            },
            _claude("user", "r1", "a1", 3, message={"role": "user", "content": [result]}),
            {
                "type": "queue-operation",
                "operation": "remove",
                "sessionId": "s-1",
                "timestamp": "2026-08-20T10:00:04.000Z",
                "content": queued,
            },
            _claude(
                "attachment",
                "q1",
                "r1",
                2,
                attachment={
                    "type": "queued_command",
                    "prompt": queued,
                    "commandMode": "prompt",
                    "origin": {"kind": "human"},
                },
            ),
            _claude(
                "attachment",
                "q2",
                "q1",
                4,
                attachment={"type": "todo_reminder", "content": [], "itemCount": 0},
            ),
            _claude(
                "assistant",
                "a2",
                "q2",
                5,
                message={
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Tests pass; adding it."}],
                },
            ),
            _claude("system", "s1", "a2", 6, subtype="turn_duration", durationMs=6000),
        ],
    )


def test_claude_code_reads_a_message_typed_mid_turn(tmp_path: Path) -> None:
    path = claude_queued(tmp_path / "s-1.jsonl")
    assert sniff(path) == "claude-code"
    source = load(path)
    said = [t.text for t in source.turns if t.role == "You"]
    assert said == ["Run the tests.", "also add a test for the empty list"]
    assert "records abandoned by a rewind" not in source.not_read
    assert source.not_read["attachment records"] == 1  # the reminder
    assert _accounted(source)


def test_claude_code_reads_a_local_command_system_record_as_the_command_typed(
    tmp_path: Path,
) -> None:
    """Claude Code 2.1.x writes a slash command it runs itself (``/model``) as ``system``
    records of subtype ``local_command``: the command as typed, its output as a
    system message, never their XML (real records of marot/spotter's 2.1.38 session)."""
    command = (
        "<command-name>/model</command-name>\n            <command-message>model"
        "</command-message>\n            <command-args></command-args>"
    )
    stdout = "<local-command-stdout>Kept model as Default (recommended)</local-command-stdout>"
    path = _jsonl(
        tmp_path / "s-1.jsonl",
        [
            _claude("system", "c1", None, 0, subtype="local_command", content=command),
            _claude("system", "c2", "c1", 1, subtype="local_command", content=stdout),
            _claude("user", "u1", "c2", 2, message={"role": "user", "content": "Hello"}),
        ],
    )
    turns = [(t.role, t.text) for t in load(path).turns]
    assert turns == [
        ("You", "/model"),
        ("system", "Kept model as Default (recommended)"),
        ("You", "Hello"),
    ]


# --- Gemini CLI -----------------------------------------------------------------------


def gemini_rewound(path: Path) -> Path:
    """A chat as Gemini CLI 0.3x-0.5x writes it as JSON lines (ChatRecordingService):
    a header, messages (a ``gemini`` one written again when its tool call finished),
    ``$set`` updates, and a ``/rewind`` (``$rewindTo``) that takes back the last
    exchange, after which the user asks again."""
    t = "2026-08-20T10:00:{:02d}.000Z".format
    call = {
        "id": "run_shell_command-1",
        "name": "run_shell_command",
        "args": {"command": "npm test"},
        "status": "success",
        "timestamp": t(3),
        "result": [
            {
                "functionResponse": {
                    "id": "run_shell_command-1",
                    "name": "run_shell_command",
                    "response": {"output": "12 passing"},
                }
            }
        ],
    }
    gemini = {
        "id": "g1",
        "timestamp": t(2),
        "type": "gemini",
        "content": "Running the tests.",
        "model": "gemini-3-pro",
    }
    return _jsonl(
        path,
        [
            {
                "sessionId": "s-1",
                "projectHash": "ab12",
                "startTime": t(0),
                "lastUpdated": t(0),
                "kind": "main",
            },
            {
                "id": "u1",
                "timestamp": t(1),
                "type": "user",
                "content": [
                    {
                        "text": "Explain @src/a.py\n--- Content from referenced files ---\n"
                        "Content from @src/a.py:\nprint('FILE BODY')\n"
                    }
                ],
                "displayContent": [{"text": "Explain @src/a.py"}],
            },
            gemini,
            {**gemini, "toolCalls": [call]},
            {"$set": {"lastUpdated": t(4)}},
            {"id": "u2", "timestamp": t(5), "type": "user", "content": "Now delete the cache."},
            {"id": "g2", "timestamp": t(6), "type": "gemini", "content": "DELETED the cache."},
            {"$rewindTo": "u2"},
            {"id": "u3", "timestamp": t(8), "type": "user", "content": "Keep the cache."},
            {"id": "g3", "timestamp": t(9), "type": "gemini", "content": "Kept."},
        ],
    )


def test_gemini_cli_takes_back_what_a_rewind_took_back(tmp_path: Path) -> None:
    path = gemini_rewound(tmp_path / "session-2026-08-20T10-00-s1.jsonl")
    assert sniff(path) == "gemini-cli"
    source = load(path)
    turns = [(t.role, t.text) for t in source.turns]
    assert [t for r, t in turns if r == "You"] == ["Explain @src/a.py", "Keep the cache."]
    joined = "\n".join(t for _, t in turns)
    assert "DELETED" not in joined and "delete the cache" not in joined
    assert "FILE BODY" not in joined  # the file the prompt names: the CLI's, not typed
    assert "12 passing" in joined and "Kept." in joined
    assert source.not_read["messages taken back by a rewind"] == 2
    assert source.not_read["rewinds ($rewindTo)"] == 1
    assert _accounted(source)


def test_gemini_cli_reads_a_result_written_only_as_a_function_response(tmp_path: Path) -> None:
    """Gemini CLI 0.4x-0.5x records the results it sends the model back as a ``user``
    message of ``functionResponse`` parts (geminiChat.ts, recordSyntheticMessage): a
    call recorded without its result is read with that text, and the message itself
    is not read as an empty one."""
    t = "2026-08-20T10:00:{:02d}.000Z".format
    call = {
        "id": "read_file-1",
        "name": "read_file",
        "args": {"file_path": "a.py"},
        "status": "success",
        "timestamp": t(2),
        "result": None,
    }
    response = {
        "functionResponse": {
            "id": "read_file-1",
            "name": "read_file",
            "response": {"output": "print('hello')"},
        }
    }
    path = _jsonl(
        tmp_path / "session-2026-08-20T10-00-s2.jsonl",
        [
            {"sessionId": "s-2", "projectHash": "ab12", "startTime": t(0), "lastUpdated": t(0)},
            {"id": "u1", "timestamp": t(1), "type": "user", "content": [{"text": "Read a.py"}]},
            {
                "id": "g1",
                "timestamp": t(2),
                "type": "gemini",
                "content": "",
                "toolCalls": [call],
                "thoughts": [{"subject": "Reading", "description": "a.py", "timestamp": t(2)}],
            },
            {"id": "r1", "timestamp": t(3), "type": "user", "content": [response]},
            {"id": "g2", "timestamp": t(4), "type": "gemini", "content": "It prints hello."},
        ],
    )
    source = load(path)
    assert [t.text for t in source.turns if t.role == "Tool"] == ["print('hello')"]
    assert source.not_read == {
        "session metadata": 1,
        "tool results (read with their calls)": 1,
    }
    assert _accounted(source)


def test_a_gemini_cli_checkpoint_reads_its_thoughts_and_leaves_out_the_cli_s_context(
    tmp_path: Path,
) -> None:
    """``/chat save TAG`` writes ``checkpoint-TAG.json``: ``{"history": Content[]}``
    (logger.ts), the first user turn the CLI's own ``<session_context>``
    (environmentContext.ts), a model turn's ``thought`` parts its thinking."""
    context = "<session_context>\nThis is the Gemini CLI. We are setting up the context"
    history = [
        {"role": "user", "parts": [{"text": context + "\nOS: linux\n</session_context>"}]},
        {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
        {"role": "user", "parts": [{"text": "Run the tests please"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Running them."},
                {
                    "functionCall": {
                        "id": "c1",
                        "name": "run_shell_command",
                        "args": {"command": "npm test"},
                    }
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "c1",
                        "name": "run_shell_command",
                        "response": {
                            "output": "Command: npm test\nDirectory: (root)\nOutput: 12 passing"
                            "\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs:"
                            " (none)\nProcess Group PGID: 77"
                        },
                    }
                }
            ],
        },
        {
            "role": "model",
            "parts": [
                {"text": "**Checking** the output", "thought": True},
                {"text": "All 12 tests pass."},
            ],
        },
    ]
    path = tmp_path / "checkpoint-mytag.json"
    path.write_text(json.dumps({"history": history, "authType": "oauth-personal"}, indent=2))
    source = load(path)
    assert source.label == "Gemini CLI checkpoint"
    turns = [(t.role, t.text) for t in source.turns]
    assert ("Bot thinking", "**Checking** the output") in turns
    assert not any("session_context" in text or "linux" in text for _, text in turns)
    # the model's reply the CLI writes after its context is the CLI's too (walk 22, F4)
    assert turns[0] == ("You", "Run the tests please")
    assert source.not_read == {"context the CLI wrote": 2}
    # a shell result as the other readers give it (walk 22, F2: its header lines)
    assert ("Tool", "Exit code: 0\n12 passing") in turns
    assert _accounted(source)


def test_an_older_codex_log_s_header_of_0_3x_is_its_session_metadata(tmp_path: Path) -> None:
    """Codex 0.2x-0.3x wrote a header of the session's fields without ``instructions``
    (``{"id", "timestamp", "cwd", "originator", "cli_version", "git"}``), then bare
    items: the header is metadata (its folder and branch noted), not an untyped record."""
    header = {
        "id": "test-session",
        "timestamp": "2025-09-13T01:00:00.000Z",
        "cwd": "/path/to/project",
        "originator": "codex_cli_rs",
        "cli_version": "0.34.0",
        "git": {"branch": "fix-cache"},
    }
    ask = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    path = _jsonl(tmp_path / "rollout-2025-09-13T01-00-00-test.jsonl", [header, ask])
    assert sniff(path) == "codex"
    source = load(path)
    assert source.not_read == {"session metadata": 1}
    assert "session in /path/to/project" in source.notes
    assert "branch: fix-cache" in source.notes
    assert [t.text for t in source.turns] == ["hi"]


def test_claude_code_s_own_titles_and_a_rename_title_the_session(tmp_path: Path) -> None:
    """Claude Code 2.1.x titles a session with ``ai-title`` records (refined as it goes)
    and ``/rename`` with ``custom-title``, no longer ``summary``: both are the session's
    title, the name the user gave first."""
    from chunkscope.engine.read.formats.claude import session_title

    records = [
        _claude("user", "u1", None, 0, message={"role": "user", "content": "Fix the login bug"}),
        {"type": "ai-title", "aiTitle": "Login bug", "sessionId": "s-1"},
        _claude("assistant", "a1", "u1", 1, message={"role": "assistant", "content": "Done."}),
        {"type": "ai-title", "aiTitle": "Login bug fix", "sessionId": "s-1"},
        {"type": "custom-title", "customTitle": "auth work", "sessionId": "s-1"},
    ]
    path = _jsonl(tmp_path / "s-1.jsonl", records)
    source = load(path)
    assert "session: Login bug fix" in source.notes and "session: auth work" in source.notes
    assert not source.not_read and _accounted(source)
    assert session_title(records) == "auth work"
    assert session_title(records[:4]) == "Login bug fix"


def test_a_codex_failure_written_as_an_object_reads_as_its_content(tmp_path: Path) -> None:
    """FunctionCallOutputPayload: a failure was written as ``{"content", "success":
    false}`` rather than a string (codex-rs/protocol models.rs): its content is the
    result, the call failed; never the JSON."""
    call = {
        "type": "function_call",
        "name": "shell",
        "call_id": "c1",
        "arguments": json.dumps({"command": ["bash", "-lc", "make test"]}),
    }
    failed = {
        "type": "function_call_output",
        "call_id": "c1",
        "output": {"content": "sandbox denied: make", "success": False},
    }
    path = _jsonl(
        tmp_path / "rollout.jsonl",
        [_item("2025-08-01T10:00:00Z", call), _item("2025-08-01T10:00:01Z", failed)],
    )
    source = load(path)
    tool = [m for m in source.messages if m["role"] == "tool"]
    assert [(m["content"], m.get("is_error")) for m in tool] == [("sandbox denied: make", True)]


def test_codex_web_search_actions_say_what_they_did(tmp_path: Path) -> None:
    """A ``web_search_call``'s action (WebSearchAction): ``search`` (a query, or
    ``queries``), ``open_page`` (a URL), ``find_in_page`` (a pattern in a URL)."""
    actions = [
        {"type": "search", "query": "serde flatten enum"},
        {"type": "open_page", "url": "https://serde.rs/attr-flatten.html"},
        {"type": "find_in_page", "url": "https://serde.rs/attr-flatten.html", "pattern": "tag"},
        {"type": "search", "queries": ["rust serde tag", "serde content"]},
    ]
    path = _jsonl(
        tmp_path / "rollout.jsonl",
        [
            _item(
                "2026-08-01T10:00:00Z",
                {"type": "web_search_call", "id": f"ws{i}", "status": "completed", "action": a},
            )
            for i, a in enumerate(actions)
        ],
    )
    from chunkscope.engine.recap.collapse import collapse_messages

    said = [t.text for t in collapse_messages(load(path).messages) if t.role == "Tool"]
    assert said == [
        "Searched the web for 'serde flatten enum'.",
        "Fetched https://serde.rs/attr-flatten.html.",
        "Searched the web for 'tag'.",
        "Searched the web for 'rust serde tag; serde content'.",
    ]


_IDS = st.sampled_from(["a", "b", "c", "d"])
_gemini_line = st.one_of(
    st.fixed_dictionaries(
        {"id": _IDS, "type": st.sampled_from(["user", "gemini", "info", "x"])},
        optional={
            "timestamp": st.just("2026-08-20T10:00:00Z") | st.text(max_size=5),
            "content": st.text(max_size=8)
            | st.lists(
                st.fixed_dictionaries({"text": st.text(max_size=5)})
                | st.just({"functionResponse": {"id": "t1", "response": {"output": "ok"}}}),
                max_size=2,
            ),
            "displayContent": st.none() | st.text(max_size=5),
            "toolCalls": st.lists(
                st.fixed_dictionaries(
                    {"id": st.sampled_from(["t1", "t2"]), "name": st.just("read_file")},
                    optional={"result": st.none(), "status": st.sampled_from(["success", "x"])},
                ),
                max_size=2,
            ),
        },
    ),
    st.fixed_dictionaries({"$rewindTo": _IDS | st.integers()}),
    st.fixed_dictionaries({"$set": st.dictionaries(st.just("lastUpdated"), st.text(max_size=3))}),
    st.fixed_dictionaries(
        {
            "$set": st.fixed_dictionaries(
                {
                    "messages": st.lists(
                        st.fixed_dictionaries(
                            {
                                "id": _IDS | st.sampled_from(["s1", "s2"]),
                                "type": st.sampled_from(["user", "gemini"]),
                                "content": st.sampled_from(
                                    ["<state_snapshot>\ngoal", "<session_context>", "hi"]
                                ),
                            }
                        ),
                        max_size=3,
                    )
                }
            )
        }
    ),
)


@settings(max_examples=80, deadline=None)
@given(lines=st.lists(_gemini_line, min_size=1, max_size=12))
def test_any_gemini_cli_chat_lines_are_each_accounted_for(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]]
) -> None:
    header = {"sessionId": "s", "projectHash": "p", "startTime": "2026-08-20T10:00:00Z"}
    path = _jsonl(tmp_path_factory.mktemp("g") / "session-s.jsonl", [header, *lines])
    source = load(path)
    assert source.format == "gemini-cli"
    assert _accounted(source) and source.records == len(lines) + 1
    assert all(1 <= t.source_line <= len(lines) + 1 for t in source.turns if t.source_line)


# --- mini-swe-agent -------------------------------------------------------------------


def test_a_mini_swe_agent_trajectory_of_a_responses_api_model_reads_its_answers(
    tmp_path: Path,
) -> None:
    """mini-swe-agent's response models (``litellm_response_model``, 2.x) keep each
    answer as the whole Responses API response (``"object": "response"``, its
    ``output`` items) and each result as a ``function_call_output`` item, its time in
    ``extra``: the answers were skipped as malformed (no ``role``)."""
    call = {
        "type": "function_call",
        "call_id": "call_1",
        "name": "bash",
        "arguments": json.dumps({"command": "cat engine/cache.py"}),
    }
    answer = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1786000000,
        "status": "completed",
        "output": [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Read it first."}]},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Let me read the cache module."}],
            },
            call,
        ],
        "extra": {"actions": [{"command": "cat engine/cache.py", "tool_call_id": "call_1"}]},
    }
    result = {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "<returncode>0</returncode>\n<output>\ndef cache_key(text):\n</output>",
        "extra": {"returncode": 0, "timestamp": 1786000002.0},
    }
    traj = {
        "info": {"mini_version": "2.1.0", "exit_status": "Submitted", "submission": ""},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Please solve this issue: the cache key."},
            answer,
            result,
        ],
        "trajectory_format": "mini-swe-agent-1.1",
    }
    path = tmp_path / "x.traj.json"
    path.write_text(json.dumps(traj, indent=2))
    source = load(path)
    assert not source.skipped
    turns = [(t.role, t.text) for t in source.turns]
    assert ("Bot thinking", "Read it first.") in turns
    assert ("Bot", "$ cat engine/cache.py") in turns
    tool = [t for t in source.turns if t.role == "Tool"]
    assert tool and tool[0].timestamp is not None  # from the result's extra
    assert _accounted(source)


def test_the_picker_titles_a_gemini_chat_and_a_checkpoint_by_what_the_user_typed(
    tmp_path: Path,
) -> None:
    """A JSON-lines chat's title is its first prompt as typed (``displayContent``, not
    the files an ``@`` added); a checkpoint's is its first prompt after the CLI's
    ``<session_context>``."""
    from chunkscope.engine.read.formats.folders import list_sessions

    chats = tmp_path / "tmp" / "ab12" / "chats"
    chats.mkdir(parents=True)
    gemini_rewound(chats / "session-2026-08-20T10-00-s1.jsonl")
    history = [
        {"role": "user", "parts": [{"text": "<session_context>\nThis is the Gemini CLI."}]},
        {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
        {"role": "user", "parts": [{"text": "Run the tests please"}]},
    ]
    (tmp_path / "tmp" / "ab12" / "checkpoint-t.json").write_text(
        json.dumps({"history": history}, indent=2)
    )
    titles = {Path(s.path).name: s.title for s in list_sessions(tmp_path)}
    assert titles == {
        "session-2026-08-20T10-00-s1.jsonl": "Explain @src/a.py",
        "checkpoint-t.json": "Run the tests please",
    }


def test_codex_unified_exec_output_reads_as_its_exit_code_and_output(tmp_path: Path) -> None:
    """``exec_command`` (unified exec, newer versions) writes ``Chunk ID``, ``Wall
    time``, ``Process exited with code N`` (or ``Process running with session ID N``)
    and ``Original token count`` before ``Output:`` (codex-rs unified exec's formatting):
    the output reads as its exit code and the output, the call as exited with it."""
    from chunkscope.engine.recap.collapse import collapse_messages

    def call(i: int, cmd: str) -> dict[str, Any]:
        return {
            "type": "function_call",
            "name": "exec_command",
            "call_id": f"c{i}",
            "arguments": json.dumps({"cmd": cmd, "yield_time_ms": 1000}),
        }

    def out(i: int, text: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": f"c{i}", "output": text}

    t = "2026-08-20T10:00:0{}.000Z".format
    path = _jsonl(
        tmp_path / "rollout.jsonl",
        [
            _item(t(1), call(1, "pytest -q")),
            _item(
                t(2),
                out(
                    1,
                    "Chunk ID: 4a1b\nWall time: 3.1021 seconds\nProcess exited "
                    "with code 1\nOriginal token count: 9\nOutput:\n1 failed, 2 passed",
                ),
            ),
            _item(t(3), call(2, "npm run dev")),
            _item(
                t(4),
                out(
                    2,
                    "Chunk ID: 5c2d\nWall time: 1.0000 seconds\nProcess running "
                    "with session ID 7\nOriginal token count: 4\nOutput:\nready",
                ),
            ),
        ],
    )
    source = load(path)
    assert [t.text for t in source.turns if t.role == "Tool"] == [
        "Exit code: 1\n1 failed, 2 passed",
        "Process running with session ID 7\nready",
    ]
    said = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert said[0] == "Ran `pytest -q` (exit 1): 1 failed, 2 passed"
    assert "Wall time" not in said[1] and "Chunk ID" not in said[1]


def test_a_gemini_cli_compression_summary_is_read_where_it_was_made(tmp_path: Path) -> None:
    """After ``/compress`` the CLI re-syncs the history into the chat file as one
    ``$set`` of ``messages`` (chatRecordingService.ts, updateMessagesFromHistory): the
    summary (``<state_snapshot>``, a new user message) is in no other line. It reads as
    a ``compaction`` where it was made, once though the later re-syncs repeat it; the
    CLI's ``<session_context>`` and its acknowledgement in the same ``$set`` are not."""
    t = "2026-08-20T10:00:{:02d}.000Z".format
    ask = {"id": "u1", "timestamp": t(1), "type": "user", "content": "Port the parser."}
    answer = {"id": "g1", "timestamp": t(2), "type": "gemini", "content": "Ported it."}
    context = {
        "id": "env",
        "timestamp": t(3),
        "type": "user",
        "content": [{"text": "<session_context>\nThis is the Gemini CLI."}],
    }
    summary = {
        "id": "s1",
        "timestamp": t(3),
        "type": "user",
        "content": [{"text": "<state_snapshot>\nGoal: port the parser. Done."}],
    }
    ack = {
        "id": "s2",
        "timestamp": t(3),
        "type": "gemini",
        "content": [{"text": "Got it. Thanks for the additional context!"}],
    }
    history = [context, summary, ack, answer]
    later = {"id": "u2", "timestamp": t(5), "type": "user", "content": "Now the tests."}
    path = _jsonl(
        tmp_path / "session-x.jsonl",
        [
            {"sessionId": "s", "projectHash": "p", "startTime": t(0)},
            ask,
            answer,
            {"$set": {"sessionId": "s"}},
            {"$set": {"messages": history, "lastUpdated": t(4)}},
            later,
            {"$set": {"messages": [*history, later], "lastUpdated": t(6)}},
        ],
    )
    source = load(path)
    turns = [(t.role, t.text) for t in source.turns]
    assert turns == [
        ("You", "Port the parser."),
        ("Bot", "Ported it."),
        ("compaction", "<state_snapshot>\nGoal: port the parser. Done."),
        ("You", "Now the tests."),
    ]
    assert source.not_read == {"session metadata": 1, "session updates ($set)": 2}
    assert _accounted(source)


def test_codex_write_stdin_reads_as_the_command_it_waits_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Unified exec's ``write_stdin`` to a command still running (``Process running with
    session ID N``) waits for its output (``chars`` empty) or sends it input: the call
    reads as that command, with what it did, so its output (the command's last, with its
    exit code) is the command's. It read ``write_stdin session_id=7 chars=""`` and the
    recap's last check was the run's first lines (``pytest -q -> ..F``)."""
    from chunkscope.engine.recap.collapse import collapse_messages
    from chunkscope.tui.cli import main

    def call(i: int, name: str, **args: Any) -> dict[str, Any]:
        return {
            "type": "function_call",
            "name": name,
            "call_id": f"c{i}",
            "arguments": json.dumps(args),
        }

    def out(i: int, text: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": f"c{i}", "output": text}

    head = "Chunk ID: a{}\nWall time: 1.0 seconds\n{}\nOutput:\n{}".format
    t = "2026-08-20T10:00:{:02d}.000Z".format
    path = _jsonl(
        tmp_path / "rollout.jsonl",
        [
            _item(t(0), _text("user", "Run the test suite and tell me what fails")),
            _item(t(1), call(1, "exec_command", cmd="pytest -q", yield_time_ms=1000)),
            _item(t(2), out(1, head(1, "Process running with session ID 7", "..F"))),
            _item(t(3), call(2, "write_stdin", session_id=7, chars="y\n")),
            _item(t(4), out(2, head(2, "Process running with session ID 7", "..F."))),
            _item(t(5), call(3, "write_stdin", session_id=7, chars="", yield_time_ms=5000)),
            _item(t(6), out(3, head(3, "Process exited with code 1", "1 failed, 2 passed"))),
            _item(t(7), call(4, "write_stdin", session_id=9, chars="")),  # none known
            _item(t(8), out(4, "no such session")),
            _item(t(9), _text("assistant", "One test fails: test_x.")),
        ],
    )
    source = load(path)
    assert _accounted(source)
    calls = [t.text for t in source.turns if t.role == "Bot" and t.text.startswith(("$", "w"))]
    assert calls == [
        "$ pytest -q  # yield_time_ms=1000",
        '$ pytest -q  # input sent to it: "y\\n" (session 7, run on line 2)',
        "$ pytest -q  # still running: its output waited for (session 7, run on line 2)",
        'write_stdin session_id=9 chars=""',
    ]
    said = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert said[2].startswith("Ran `pytest -q` on line 2 (exit 1): ")
    assert main(["recap", str(path)]) == 0
    assert "Last check: `pytest -q` -> 1 failed, 2 passed (exit 1)" in capsys.readouterr().out


def test_gemini_shell_results_read_as_exit_code_and_output() -> None:
    """Walk 22, F2: Gemini CLI's shell tool gives the model ``Command:``, ``Directory:``,
    ``Output:``, ``Error: (none)``, ``Exit Code:``, ``Signal:``, ``Background PIDs:``,
    ``Process Group PGID:``; read as it was, the recap took ``Error: (none)`` for a
    check's result and a pushed commit for a failed one."""
    from chunkscope.engine.read.formats.gemini import shell_result
    from chunkscope.engine.recap.collapse import collapse_messages

    tail = "\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242"
    ok = "Command: git push\nDirectory: (root)\nOutput: abc..def  master -> master\nError: (none)"
    assert shell_result(ok + "\nExit Code: 0" + tail) == (
        "Exit code: 0\nabc..def  master -> master",
        0,
    )
    failed = "Command: make\nDirectory: src\nOutput: (empty)\nError: make: no rule\nExit Code: 2"
    assert shell_result(failed + tail) == ("Exit code: 2\nError: make: no rule", 2)
    lines = "Command: ls\nDirectory: (root)\nOutput: a\nb\n\nc\nError: (none)\nExit Code: (none)"
    assert shell_result(lines + "\nSignal: 15" + tail) == ("a\nb\n\nc", None)
    plain = "Output: not a shell result\nError: (none)"
    assert shell_result(plain) == (plain, None)

    source = load(FIXTURES / "gemini-cli" / "m-gemini-cli-update-0.22.json")
    results = [t.text for t in source.turns if t.role == "Tool"]
    assert results and not [r for r in results if "Directory: (root)" in r or "PGID" in r]
    said = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert any(s.startswith("Ran `which gemini` (exit 0): ") for s in said), said


def test_gemini_cli_s_own_retry_prompt_is_not_the_user_s(tmp_path: Path) -> None:
    """Walk 22, F5: after a broken stream the CLI sends "System: Please continue." in the
    user's place (client.ts); it was read as the user's, a follow-up in the recap's Task."""
    records = [
        {"sessionId": "s1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"},
        {
            "id": "u1",
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "user",
            "content": "Fix the login page",
        },
        {"id": "g1", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "On it."},
        {
            "id": "u2",
            "timestamp": "2026-01-01T00:00:03Z",
            "type": "user",
            "content": "System: Please continue.",
        },
        {"id": "g2", "timestamp": "2026-01-01T00:00:04Z", "type": "gemini", "content": "Fixed it."},
    ]
    source = load(_jsonl(tmp_path / "session-2026-01-01T00-00-s1.jsonl", records))
    assert [(t.role, t.text) for t in source.turns if t.role == "You"] == [
        ("You", "Fix the login page")
    ]
    assert source.not_read.get("retry prompts the CLI sent (System: Please continue.)") == 1
    assert _accounted(source)
