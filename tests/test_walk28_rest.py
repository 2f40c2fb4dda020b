"""Walk 28's findings F8, F10, F12 and F15 (the rest of that walk): each test fails on the
code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import claude_log, codex_calls, codex_shell

pytestmark = pytest.mark.usefixtures("isolated")


def _note(agent: str, result: str) -> str:
    """A Claude Code task notification of a background subagent's end."""
    return (
        "<task-notification>\n<task-id>ac27727</task-id>\n<status>completed</status>\n"
        f'<summary>Agent "{agent}" completed</summary>\n<result>{result}</result>\n'
        "</task-notification>"
    )


def test_a_task_notification_leaves_what_follows_it_in_its_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F12: a user message of two notifications read as the first one only, and
    one of a notification and the user's words after it as the notification only (the
    request in no chunk, no "Later:"). Each notification is its own Subagent turn (with
    the line Claude Code writes after it), and the words after them are the user's, a
    request."""
    # Claude Code's own line after a subagent's notification is part of it, no one's words
    trailer = "\nFull transcript available at: /tmp/claude/tasks/ac27727.output\n"
    two = _note("Port the parser", "Ported.") + trailer + _note("Write docs", "Documented.")
    said = _note("Port the parser", "Ported.") + "\nAlso please update the README now."
    log = claude_log(
        tmp_path,
        [
            ("user", "Port the parser to Rust in the background."),
            ("assistant", "Started both."),
            ("user", two),
            ("assistant", "Both are done."),
            ("user", said),
            ("assistant", "Will do."),
        ],
    )
    assert main(["chunk", str(log), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert 'Subagent: Agent "Port the parser" completed: Ported.' in out, out
    assert 'Subagent: Agent "Write docs" completed: Documented.' in out, out
    assert "You: Also please update the README now." in out, out
    assert "<task-notification>" not in out and "You: Full transcript" not in out, out
    assert main(["recap", str(log)]) == 0
    recap = capsys.readouterr().out
    assert "Later: Also please update the README now." in recap, recap
    assert "- Write docs (completed): Documented." in recap, recap


def test_another_agent_s_subagent_is_named_by_what_it_was_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F10: the recap's Subagent results named Codex's `spawn_agent` and Gemini's
    `codebase_investigator` by the tool, where the collapsed line says what was asked; an
    empty result read `Result: ''.`, a call without a task `'?'`, and a JSON result stayed
    raw JSON. Both name it by what was asked, say "no result", leave a missing task out
    and say a JSON result's one text field."""
    log = codex_calls(
        tmp_path,
        ("spawn_agent", {"task": "Search the repo for cache invalidation"}, "Found it in a.py."),
        ("delegate", {"prompt": "Check the tests"}, ""),
        ("codebase_investigator", {"objective": "Map the modules"}, '{"summary": "3 modules"}'),
        ("spawn_agent", {}, "The cache is fine."),
        task="Find where the cache is invalidated.",
    )
    assert main(["chunk", str(log), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert "Delegated to a subagent: 'Check the tests'. No result." in out, out
    assert "Delegated to a subagent: 'Map the modules'. Result: '3 modules'." in out, out
    assert "Delegated to a subagent. Result: 'The cache is fine.'." in out, out
    assert "'?'" not in out and "''" not in out, out
    assert main(["recap", str(log)]) == 0
    recap = capsys.readouterr().out
    assert "- Search the repo for cache invalidation: Found it in a.py." in recap, recap
    assert "- Check the tests: no result" in recap, recap
    assert "- Map the modules: 3 modules" in recap, recap
    assert "- spawn_agent: The cache is fine." in recap, recap
    assert "- codebase_investigator" not in recap and "summary" not in recap, recap


def test_an_aider_command_typed_short_reads_as_its_full_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F8: aider takes any unique start of a command (`/ad` for `/add`), and one
    typed short with words after it (`/ad FILE`, `/ru CMD`, `/tes CMD`) or two in a row
    (`/comm`, `/ex`) read as the user's request; a short `/ru` or `/tes` was no command
    run (its output lost, Last check aider's question). They read as the full names do;
    a message that opens on a slash but no command (`/usr/bin ...`, or an ambiguous
    start such as `/c`) stays the user's words."""
    from chunkscope.engine.read.commands import command_request

    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "# aider chat started at 2025-05-04 17:02:36\n\n"
        "#### /ad src/calc.py  \n> Added src/calc.py to the chat  \n\n"
        "#### /ru pytest -q  \n> Add command output to the chat? (Y)es/(N)o [Yes]: y  \n\n"
        "#### Please fix the failing test in src/calc.py  \n\nDone, I guarded the division.\n\n"
        "#### /tes python -m pytest -q  \n> 3 passed in 0.1s  \n\n"
        "#### /comm  \n\n#### /ex  \n",
        encoding="utf-8",
    )
    assert main(["recap", str(history)]) == 0
    recap = capsys.readouterr().out
    assert "## Task\nPlease fix the failing test in src/calc.py\n\n" in recap, recap
    assert "Last check: `python -m pytest -q` -> 3 passed in 0.1s" in recap, recap
    assert main(["chunk", str(history), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert "Tool: Ran `python -m pytest -q`: 3 passed in 0.1s" in out, out
    assert "Tool: Ran `pytest -q` (no output)." in out, out
    # the full rule, as aider has it: a unique start, arguments or not
    assert command_request("/ad src/calc.py") is None
    assert command_request("/as how do I run it?") == "how do I run it?"  # /ask
    assert command_request("/usr/bin is missing") == "/usr/bin is missing"
    assert command_request("/c fix it") == "/c fix it"  # /clear, /code, /commit, ...


def test_aider_s_question_after_a_run_is_not_its_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F8 (also seen): a `/run` whose only output line is aider's question `Add
    command output to the chat?` said that question as the run's result in Last check,
    where the collapsed line says `(no output)`."""
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "# aider chat started at 2025-05-04 17:02:36\n\n"
        "#### Please fix the failing test in src/calc.py  \n\nDone.\n\n"
        "#### /run pytest -q  \n> Add command output to the chat? (Y)es/(N)o [Yes]: y  \n",
        encoding="utf-8",
    )
    assert main(["recap", str(history)]) == 0
    recap = capsys.readouterr().out
    assert "Last check: `pytest -q` -> no output" in recap, recap
    assert "Add command output" not in recap, recap


@pytest.mark.parametrize(
    ("command", "output", "said"),
    [
        (
            "go test ./...",
            "--- FAIL: TestX (0.00s)\n    x_test.go:9: got 1 want 2\nFAIL\n"
            "FAIL\texample.com/x\t0.003s\nok  \texample.com/y\t0.002s",
            "FAIL example.com/x 0.003s; ok example.com/y 0.002s",
        ),
        (
            "npx jest",
            "PASS src/a.test.js\nFAIL src/b.test.js\n  \u25cf b \u203a works\n"
            "Tests:       1 failed, 4 passed, 5 total\nSnapshots:   0 total\nTime:        1.2 s",
            "Tests: 1 failed, 4 passed, 5 total",
        ),
        (
            "cargo test",
            "running 4 tests\ntest a ... ok\ntest b ... FAILED\n\n"
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
        ),
        (
            "python -m pytest -q",
            "============ test session starts ============\ncollected 3 items\n\n"
            "FAILED tests/test_a.py::test_x - assert 1 == 2\n"
            "======= 1 failed, 2 passed in 0.1s =======",
            "FAILED tests/test_a.py::test_x - assert 1 == 2; 1 failed, 2 passed in 0.1s",
        ),
    ],
)
def test_a_test_run_is_said_by_its_result_lines_in_both_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, output: str, said: str
) -> None:
    """Walk 28, F15: a collapsed run said by its result lines for pytest only (`go test`
    and `jest` said from their start), and the recap's Last check picked other lines (two
    patterns). One pattern: the same lines in both, for go test, jest, cargo and pytest."""
    log = codex_shell(tmp_path, (command, f"Exit code: 1\nOutput:\n{output}\n"))
    assert main(["chunk", str(log), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert f"Ran `{command}` (exit 1): {said}\n" in out, out
    assert main(["recap", str(log)]) == 0
    recap = capsys.readouterr().out
    assert f"Last check: `{command}` -> {said} (exit 1)" in recap, recap


def test_a_collapsed_run_s_command_with_backticks_is_one_code_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F15 (also): the collapsed `Ran` line wrapped a command in one pair of
    backticks whatever it held (`Ran `echo `whoami`` (exit 0)`), where Last check makes
    a proper code span: the collapsed line does too."""
    log = codex_shell(tmp_path, ("echo `whoami`", "Exit code: 0\nOutput:\nroot\n"))
    assert main(["chunk", str(log), "--collapse"]) == 0
    assert "Ran `` echo `whoami` `` (exit 0): root" in capsys.readouterr().out
