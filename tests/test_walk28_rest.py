"""Walk 28's findings F8, F10, F12 and F15 (the rest of that walk): each test fails on the
code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import claude_log, codex_calls

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
    request in no chunk, no "Later:"). Each notification is its own Subagent turn, and
    the words after them are the user's, a request."""
    two = _note("Port the parser", "Ported.") + "\n" + _note("Write docs", "Documented.")
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
    assert "<task-notification>" not in out, out
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
