"""Walk 69: what the recap reads as the agent's (or its tool's) in four session formats,
the findings fixed here. F3: a Gemini CLI ``error`` record written for a slash command
the user typed after cancelling a call (``/directory add`` -> "Please provide at least
one path to add.") was said as the answer to that request. F6: a project's own test
runner (sympy's ``bin/test``) was no check, so Last check named an earlier failed
``pytest``. F8: Claude Code's synthetic "No response requested." after ``/exit`` was
said as the agent's last words. F12: mini-swe-agent 0.x's submit (``echo
MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff --cached``) was not read as a
call, its diff read as the user's words.

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.cli import main


def recap_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["recap", str(path), "--format", "json"]) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def section(answer: dict[str, Any], name: str) -> list[str]:
    """The lines of the recap's section `name` ([] when it has none)."""
    found = [s["lines"] for s in answer["sections"] if s["name"] == name]
    return list(found[0]) if found else []


# --------------------------------------------------------------------------- F3


CANCELLED_CALL = "[Operation Cancelled] Reason: User cancelled the operation."


def record(key: str, kind: str, content: str) -> dict[str, Any]:
    """A Gemini CLI chat message of `kind` (its timestamp: any)."""
    return {"id": key, "timestamp": "2025-12-06T08:36:26Z", "type": kind, "content": content}


def gemini_chat(tmp_path: Path, *after: dict[str, Any]) -> Path:
    """A Gemini CLI chat (modelled on M-Gemini's session-2025-12-06T07-22-e0f194ce):
    a request answered, then one whose shell call the user cancelled, then `after`."""
    messages: list[dict[str, Any]] = [
        record("1", "user", "find my router"),
        record("2", "gemini", "It is at 192.168.8.1."),
        record("3", "user", "ssh into my router"),
        {
            "id": "4",
            "timestamp": "2025-12-06T08:36:26Z",
            "type": "gemini",
            "content": "",
            "toolCalls": [
                {
                    "id": "r1",
                    "name": "run_shell_command",
                    "args": {"command": "ssh root@192.168.8.1"},
                    "result": [
                        {
                            "functionResponse": {
                                "id": "r1",
                                "name": "run_shell_command",
                                "response": {"error": CANCELLED_CALL},
                            }
                        }
                    ],
                    "status": "cancelled",
                }
            ],
        },
        record("5", "info", "Request cancelled."),
        *after,
    ]
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"sessionId": "x", "projectHash": "y", "messages": messages}))
    return path


COMMAND_ERROR = record("6", "error", "Please provide at least one path to add.")


def test_f3_a_slash_command_error_after_a_cancel_answers_no_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    last = section(recap_json(gemini_chat(tmp_path, COMMAND_ERROR), capsys), "last")
    assert not any("Please provide" in line for line in last), last
    # as without that record: the call the user cancelled is where it stopped
    assert last == section(recap_json(gemini_chat(tmp_path), capsys), "last")
    assert "`ssh root@192.168.8.1`" in last[0], last


def test_f3_a_requests_own_error_still_answers_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error while the request is open (an API error after the user's message) is its
    answer, and a command's error after it is not counted as another try."""
    again = record("7", "user", "try again")
    failed = record("8", "error", "[API Error: fetch failed sending request]")
    path = gemini_chat(tmp_path, again, failed, {**COMMAND_ERROR, "id": "9"})
    last = section(recap_json(path, capsys), "last")
    said = "[API Error: fetch failed sending request]"
    assert last == [f'No answer to the user\'s last message ("try again"): {said}.'], last


def test_f3_the_command_error_is_read_as_the_clis_note(tmp_path: Path) -> None:
    from chunkscope.engine.read.parse import load

    source = load(gemini_chat(tmp_path, COMMAND_ERROR), keep_messages=True)
    notes = [(m["role"], m["content"]) for m in source.messages]
    roles = [(role, text) for role, text in notes if role not in ("user", "assistant", "tool")]
    assert roles == [("info", "Request cancelled."), ("system", COMMAND_ERROR["content"])], roles


def test_f3_an_error_the_model_goes_on_after_leaves_the_request_open(tmp_path: Path) -> None:
    """The CLI's own error mid-request ("Automatic update failed", M-Gemini's
    session-2025-12-28 4eb0784d) is followed by the model's next step: the request is
    still open, and an API error after that step is the request's."""
    from chunkscope.engine.read.parse import load

    messages = [
        record("1", "user", "create a shortcut"),
        record("2", "error", "Automatic update failed. Please try updating manually"),
        record("3", "gemini", "I'll check if the command is named `gemini`."),
        record("4", "error", "[API Error: fetch failed sending request]"),
    ]
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"sessionId": "x", "projectHash": "y", "messages": messages}))
    roles = [m["role"] for m in load(path, keep_messages=True).messages]
    assert roles == ["user", "error", "assistant", "error"], roles


# --------------------------------------------------------------------------- F6 / F12


def bot(thought: str, command: str) -> dict[str, str]:
    """A mini-swe-agent step: the model's thought and its one bash block."""
    return {"role": "assistant", "content": f"THOUGHT: {thought}\n\n```bash\n{command}\n```"}


def ran(code: int, output: str) -> dict[str, str]:
    """The output mini-swe-agent hands back for a command."""
    return {
        "role": "user",
        "content": f"<returncode>{code}</returncode>\n<output>\n{output}\n</output>",
    }


DIFF = (
    "diff --git a/sympy/core/symbol.py b/sympy/core/symbol.py\n"
    "index f4a555c13f..2aca8bab27 100644\n--- a/sympy/core/symbol.py\n"
    "+++ b/sympy/core/symbol.py\n@@ -791,7 +791,7 @@ def literal(s):\n"
    "-            result.append(symbols(name, **args))\n"
    "+            result.append(symbols(name, cls=cls, **args))\n"
)


def trajectory(tmp_path: Path, steps: list[dict[str, str]], marker: str) -> Path:
    """A mini-swe-agent trajectory (modelled on gruckion/mini-swe-agent's
    sympy__sympy-23534): its task, `steps`, then the submit of `marker` and the diff."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant that can run bash."},
        {
            "role": "user",
            "content": "<pr_description>\nConsider the following PR description:\n"
            "Using symbols to create functions doesn't work with an extra layer of "
            "parentheses.\n</pr_description>",
        },
        *steps,
        bot("I am ready to submit.", f"echo {marker} && git add -A && git diff --cached"),
        {"role": "user", "content": DIFF},
    ]
    info = {"exit_status": "Submitted", "submission": DIFF}
    path = tmp_path / "task.traj.json"
    path.write_text(json.dumps({"info": info, "messages": messages}))
    return path


SUBMIT_1X = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def test_f6_a_projects_own_test_runner_is_the_last_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [
        bot("I will run the tests.", "pytest sympy/core/tests/test_symbol.py"),
        ran(127, "bash: line 1: pytest: command not found"),
        bot("`pytest` is not in the path. Let's check bin/.", "ls bin/"),
        ran(0, "doctest\nisympy\ntest"),
        bot("There is a `bin/test` script.", "bin/test sympy/core/tests/test_symbol.py"),
        ran(
            0,
            "sympy/core/tests/test_symbol.py[13] .............   [OK]\n"
            "================== tests finished: 13 passed, in 0.34 seconds ==================",
        ),
    ]
    outcome = section(recap_json(trajectory(tmp_path, steps, SUBMIT_1X), capsys), "outcome")
    assert outcome[0] == (
        "Last check: `bin/test sympy/core/tests/test_symbol.py` -> "
        "tests finished: 13 passed, in 0.34 seconds (exit 0)"
    ), outcome


@pytest.mark.parametrize(
    ("command", "check"),
    [
        ("bin/test sympy/core/tests/test_symbol.py", True),
        ("./bin/test sympy/core", True),
        ("cd /testbed && bin/doctest sympy/core/symbol.py", True),
        ("./run_tests.sh -v", True),
        ("script/test", True),
        ("python3 tests/runtests.py model_forms", True),
        ("ls bin/", False),
        ("cat bin/test", False),
        ("ls bin/tests", False),
        ("chmod +x bin/test", False),
        ("/testbed/bin/test sympy/core", True),
        ("/usr/bin/test -f setup.py && echo yes", False),
        ("[ -d x ] || /bin/test -x run.sh", False),
        ("/bin/test -f setup.py", False),
    ],
)
def test_f6_what_runs_a_projects_test_runner(command: str, check: bool) -> None:
    from chunkscope.engine.recap.sections import _is_check

    assert _is_check(command) is check


# --------------------------------------------------------------------------- F8


def cc_record(n: int, kind: str, content: Any, **more: Any) -> dict[str, Any]:
    """A Claude Code record, the `n`th of a chain."""
    message: dict[str, Any] = {"role": kind, "content": content}
    if "model" in more:
        message["model"] = more.pop("model")
    return {
        "parentUuid": f"u{n - 1}" if n > 1 else None,
        "isSidechain": False,
        "type": kind,
        "message": message,
        "uuid": f"u{n}",
        "timestamp": f"2026-04-10T14:00:{n:02d}.000Z",
        "sessionId": "s",
        **more,
    }


def cc_session(tmp_path: Path, last: dict[str, Any]) -> Path:
    """A Claude Code session (modelled on Reinhartsamuel/TokenForge's): a question, the
    answer, ``/exit`` and its output, then `last`, written by Claude Code itself."""
    answer = [{"type": "text", "text": "**Net Asset Value** is the per-token price of an asset."}]
    records = [
        cc_record(1, "user", "quick, what is nav?"),
        cc_record(2, "assistant", answer, model="claude-sonnet-4-6"),
        cc_record(3, "user", "<command-name>/exit</command-name>\n<command-args></command-args>"),
        cc_record(4, "user", "<local-command-stdout>Catch you later!</local-command-stdout>"),
        last,
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def synthetic(text: str, **more: Any) -> dict[str, Any]:
    return cc_record(5, "assistant", [{"type": "text", "text": text}], model="<synthetic>", **more)


def test_f8_no_response_requested_is_not_the_agents_last_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = cc_session(tmp_path, synthetic("No response requested.", isApiErrorMessage=False))
    answer = recap_json(path, capsys)
    assert "No response requested" not in answer["recap"], answer["recap"]
    assert section(answer, "last") == ["**Net Asset Value** is the per-token price of an asset."]
    assert answer["not_read"] == {
        "replies the tool wrote to a local command ('No response requested.')": 1
    }


def test_f8_other_synthetic_records_are_still_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = synthetic(
        "Not logged in · Please run /login", isApiErrorMessage=True, error="authentication_failed"
    )
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(cc_record(1, "user", "quick, what is nav?")) + "\n")
    path.write_text(path.read_text() + json.dumps({**said, "parentUuid": "u1"}) + "\n")
    last = section(recap_json(path, capsys), "last")
    assert last == [
        'No answer to the user\'s last message ("quick, what is nav?"): '
        "Not logged in · Please run /login (authentication failed)."
    ], last


# --------------------------------------------------------------------------- F12


@pytest.mark.parametrize("marker", ["MINI_SWE_AGENT_FINAL_OUTPUT", SUBMIT_1X])
def test_f12_either_versions_submit_is_a_call_and_the_sessions_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    """mini-swe-agent 0.x's list-form trajectory (its test data github_issue.traj.json):
    no ``info``, the submit ``echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff
    --cached`` then the diff it printed, read as 1.x's mark is."""
    from chunkscope.engine.read.parse import load

    path = trajectory(
        tmp_path, [bot("Fix the call.", "sed -i 's/x/y/' sympy/core/symbol.py")], marker
    )
    messages = json.loads(path.read_text())["messages"]
    path.write_text(json.dumps(messages))  # 0.x: the messages alone, no exit status
    turns = load(path).turns
    submit = f"$ echo {marker} && git add -A && git diff --cached"
    assert any(t.role == "Bot" and t.text.endswith(submit) for t in turns), turns[-3:]
    assert not any(t.role == "You" and "diff --git" in t.text for t in turns), turns[-3:]
    outcome = section(recap_json(path, capsys), "outcome")
    assert "Submitted the work (the agent's final action)." in outcome, outcome
