"""Walk 28's findings (a fresh review after walk 27's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import claude_log, claude_project, codex_shell
from tests.pilot import SAMPLE

pytestmark = pytest.mark.usefixtures("isolated")


def test_the_same_run_shows_a_name_starting_with_a_dash_as_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 28, F7: Claude Code's project folders are named `-home-USER-PROJECT`, and "The
    same run" of `report --latest` named one bare, `chunkscope report --latest
    -home-u-proj`, which argparse reads as `-h`: the command shown printed the help. It is
    shown as `./-home-u-proj`, and the command runs."""
    import re
    import shutil

    folder = tmp_path / "projects" / "-home-u-proj"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "s.jsonl")
    out = tmp_path / "r.html"
    assert main(["report", "--latest", str(folder), "-o", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    same = re.search(r"chunkscope report [^<]*-o r\.html", page)
    assert same is not None, page[-2000:]
    command = same.group(0).replace("&#x27;", "'")
    assert "./-home-u-proj" in command, command
    monkeypatch.chdir(folder.parent)  # where the name is: the command runs as shown
    argv = shlex.split(command)[1:]
    argv[argv.index("-o") + 1] = str(tmp_path / "again.html")
    assert main(argv) == 0
    assert (tmp_path / "again.html").is_file()


def test_a_failed_patch_followed_by_a_command_changed_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F2: a Codex shell command `apply_patch <<'EOF' ... EOF && python -m pytest`
    whose patch did not apply ("Failed to find expected lines") listed the file as changed;
    the same line whose patch applied still does."""
    from tests.test_walk27 import _PATCH

    failed = "Exit code: 1\nOutput:\nFailed to find expected lines in src/a.py\n"
    log = codex_shell(tmp_path, (f"{_PATCH} && python -m pytest -q", failed))
    assert main(["recap", str(log)]) == 0
    assert "## Files changed" not in capsys.readouterr().out
    ok = "Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/a.py\n3 passed\n"
    log = codex_shell(tmp_path, (f"{_PATCH} && python -m pytest -q", ok))
    assert main(["recap", str(log)]) == 0
    assert "- src/a.py (1 edit)" in capsys.readouterr().out


def test_a_session_ending_on_a_task_notification_says_its_last_message_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F11: a Claude Code session whose last record is a background task's
    notification said its last assistant message twice in "Where it stopped"."""
    note = (
        "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n"
        '<summary>Agent "Port the parser" completed</summary>\n'
        "<result>Ported; 12 tests pass.</result>\n</task-notification>"
    )
    records = [
        ("user", "Port the parser to Rust in the background."),
        ("assistant", "Started the port in the background."),
        ("user", note),
    ]
    log = claude_log(tmp_path, records)
    assert main(["recap", str(log)]) == 0
    out = capsys.readouterr().out
    stopped = out.split("## Where it stopped\n", 1)[1].split("\n\n", 1)[0].strip()
    assert stopped == "Started the port in the background.", stopped


def test_mini_swe_agent_s_timeout_notice_reads_as_a_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F9: mini-swe-agent's own timeout notice ("The last command <command>...
    </command> timed out and has been killed.") read as output: collapsed, the raw tags;
    in "Last check", a line of the killed run's partial output. A run whose own output
    holds an `<exception>` tag is no harness error."""
    notice = (
        "The last command <command>cd /testbed && pytest -q</command> timed out and has been "
        "killed.\nThe output of the command was:\n <output>\n=== test session starts ===\n"
        "collected 1874 items\n\ntests/test_a.py ........\n</output>\nPlease try another "
        "command and make sure to avoid those requiring interactive input."
    )
    messages = [
        {"role": "user", "content": "Fix the failing test."},
        {
            "role": "assistant",
            "content": "Run the tests.\n\n```bash\ncd /testbed && pytest -q\n```",
        },
        {"role": "user", "content": notice},
    ]
    traj = tmp_path / "t.traj.json"
    traj.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    assert main(["chunk", str(traj), "--collapse"]) == 0
    said = capsys.readouterr().out
    assert "Ran `cd /testbed && pytest -q` (timed out)." in said, said
    assert "<command>" not in said
    assert main(["recap", str(traj)]) == 0
    assert "Last check: `cd /testbed && pytest -q` -> timed out" in capsys.readouterr().out


def test_an_anthropic_message_s_blocks_and_server_results_are_all_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F13: in Anthropic messages, a user message's text showed before the tool
    result that came first; an `mcp_tool_use` call was dropped (its result alone); the
    results of the `web_fetch` and `code_execution` server tools were never said."""
    fetched = {
        "type": "web_fetch_result",
        "url": "https://example.com/rel",
        "content": {"type": "document", "source": {"type": "text", "data": "Release 2.0."}},
    }
    ran = {"type": "code_execution_result", "stdout": "2\n", "stderr": "", "return_code": 0}
    assistant = [
        {"type": "server_tool_use", "id": "s1", "name": "web_fetch", "input": {"url": "x"}},
        {"type": "web_fetch_tool_result", "tool_use_id": "s1", "content": fetched},
        {"type": "server_tool_use", "id": "s2", "name": "code_execution", "input": {"code": "1+1"}},
        {"type": "code_execution_tool_result", "tool_use_id": "s2", "content": ran},
        {"type": "mcp_tool_use", "id": "m1", "name": "list_issues", "input": {"repo": "o/r"}},
        {
            "type": "mcp_tool_result",
            "tool_use_id": "m1",
            "content": [{"type": "text", "text": "#1 crash on start"}],
        },
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}},
    ]
    user = [
        {"type": "tool_result", "tool_use_id": "t1", "content": "3 passed"},
        {"type": "text", "text": "Thanks, now bump the version."},
    ]
    messages = [
        {"role": "user", "content": "What does release 2.0 add?"},
        {"role": "assistant", "content": assistant},
        {"role": "user", "content": user},
    ]
    f = tmp_path / "chat.json"
    f.write_text(json.dumps(messages), encoding="utf-8")
    assert main(["chunk", str(f), "--no-collapse"]) == 0
    out = capsys.readouterr().out
    order = ["Tool: Release 2.0.", "Exit code: 0", "list_issues", "Tool: #1 crash on start"]
    order += ["Tool: 3 passed", "You: Thanks, now bump the version."]
    at = [out.find(part) for part in order]
    assert -1 not in at and at == sorted(at), (at, out)
    assert main(["chunk", str(f), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert "Ran `1+1` (exit 0): 2" in out and "Called list_issues repo=o/r." in out, out


def test_review_passes_over_an_empty_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 28, F14: `review` and a session start took the newest transcript even when it
    was empty (a session killed at once), and the workbench failed on it ("no turns");
    the older session beside it is the one to review."""
    import os
    import shutil

    from chunkscope.tui.cli.review import review_options
    from tests.test_hooks import POEMS

    project, folder = claude_project(tmp_path, monkeypatch)
    session = folder / "s0.jsonl"
    shutil.copyfile(POEMS, session)
    os.utime(session, (1_700_000_000, 1_700_000_000))
    (folder / "s4.jsonl").write_bytes(b"")
    assert Path(review_options(str(project)).path) == session


def test_codex_s_argv_patch_form_reads_as_a_patch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F19: `shell {"command": ["apply_patch", "*** Begin Patch ..."]}`, the form
    Codex's own prompt asks for, read `Ran `apply_patch '*** Begin Patch ⏎ ...'``, and a
    failed one was counted as an edit."""

    delete = "*** Begin Patch\n*** Delete File: old.js\n*** End Patch\n"
    update = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch\n"
    log = codex_shell(
        tmp_path,
        (["apply_patch", delete], "Exit code: 0\nOutput:\nSuccess.\n"),
        (["apply_patch", update], "Exit code: 1\nOutput:\nFailed"),
        tool="shell",
        task="Drop old.js and set y.",
    )
    assert main(["chunk", str(log), "--collapse"]) == 0
    said = capsys.readouterr().out
    assert "Tool: Deleted old.js." in said and "Patch of src/a.py failed" in said, said
    assert main(["recap", str(log)]) == 0
    files = capsys.readouterr().out.split("## Files changed\n", 1)[1].split("\n\n", 1)[0]
    assert files.strip() == "- old.js (deleted)", files


def test_a_backslash_path_has_one_spelling_in_the_recap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F16: "Files changed" said `src/app/main.py` and "Work state" the same
    file `src\\app\\main.py`."""
    chat = tmp_path / "w.aider.chat.history.md"
    chat.write_text(
        "# aider chat started at 2024-05-01 10:00:00\n\n#### fix main\n\nDone.\n\n"
        "> Applied edit to src\\app\\main.py\n",
        encoding="utf-8",
    )
    assert main(["recap", str(chat)]) == 0
    state = capsys.readouterr().out.split("## Where it stopped", 1)[0]  # the sections
    assert "src/app/main.py" in state and "src\\app\\main.py" not in state, state


@pytest.mark.parametrize("encoding", ["shift_jis", "gb18030"])
def test_a_session_log_in_a_legacy_encoding_is_refused_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    """Walk 28, F17: a JSONL log in Shift_JIS or GB18030 was read as U+FFFD text (its ASCII
    keys kept it under the refusal threshold), and its recap was empty, exit 0. A Latin-1
    file, whose accents stand alone, is still read with warnings."""
    words = (
        "キャッシュをデータベースに移しました"
        if encoding == "shift_jis"
        else "我们比较了两种缓存的延迟"
    )
    lines = [
        json.dumps(  # ASCII keys and values around the words, as a real log's records
            {"role": "user", "content": f"{words} {i}", "timestamp": "2026-01-22T19:38:00Z"}
            | {"sessionId": "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68", "cwd": "/home/u/proj"},
            ensure_ascii=False,
        )
        for i in range(12)
    ]
    log = tmp_path / "s.jsonl"
    log.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    assert main(["recap", str(log)]) == 2
    assert "looks like text in another encoding than UTF-8" in capsys.readouterr().err
    latin = tmp_path / "fr.md"
    latin.write_bytes(
        ("# Café\n\nLe café est très bon. Où est la bibliothèque?\n" * 30).encode("latin-1")
    )
    assert main(["chunk", str(latin)]) == 0
    assert "invalid UTF-8" in capsys.readouterr().err


def test_the_report_s_flags_table_has_the_count_and_search_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F6: `--topics N`, `--dedup` and the other options the page's figures
    depend on had no row in the flags table."""
    from tests.test_report import _texts, report

    code, html = report(tmp_path, capsys, str(SAMPLE), "--topics", "5", "--dedup")
    assert code == 0
    cells = _texts(html, "td")
    rows = {cells[i]: cells[i + 1] for i in range(len(cells) - 1) if cells[i].startswith("--")}
    assert rows.get("--topics") == "5" and rows.get("--dedup") == "true", rows


def test_a_background_run_s_end_is_its_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F20: a background run that failed, told by its task notification, left
    "Last check" saying its launch message ("Command running in background with ID")."""
    note = (
        "<task-notification>\n<task-id>b9</task-id>\n<status>failed</status>\n"
        '<summary>Background command "pytest -q" failed with exit code 1</summary>\n'
        "</task-notification>"
    )
    call = {"type": "tool_use", "id": "t1", "name": "Bash"}
    call["input"] = {"command": "pytest -q", "run_in_background": True}
    launched = "Command running in background with ID: b9. Output is being written to: /tmp/b9"
    records = [
        ("user", "Run the tests in the background."),
        ("assistant", [call]),
        ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": launched}]),
        ("assistant", "Started the tests."),
        ("user", note),
    ]
    log = claude_log(tmp_path, records)
    assert main(["recap", str(log)]) == 0
    out = capsys.readouterr().out
    assert "Last check: `pytest -q` -> failed (exit 1)" in out, out


def test_hindi_s_danda_ends_a_sentence_and_cjk_ends_with_its_own_stop() -> None:
    """Walk 28, F3: the Devanagari danda `।` ended no sentence and got an ASCII period
    after it (`हैं।.`); a Chinese sentence without its stop got an ASCII one."""
    from chunkscope.engine.summarize.extractive import sentences_of, terminated

    parts = sentences_of("सभी परीक्षण पास हो रहे हैं। हम कल रिलीज़ करेंगे।")
    assert parts == ["सभी परीक्षण पास हो रहे हैं।", "हम कल रिलीज़ करेंगे।"]
    assert terminated(parts[0]) == parts[0]
    assert terminated("请修复缓存模块中的错误") == "请修复缓存模块中的错误。"
    assert terminated("Run the tests") == "Run the tests."
