"""Walk 53's findings (the command line on real sessions, after walk 51's fixes): each
test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

from chunkscope.engine.recap.collapse import collapse_call


def _run(command: str, result: str) -> str:
    said = collapse_call("Bash", json.dumps({"command": command}), result, agent="claude-code")
    assert said is not None
    return said


def test_a_traceback_keeps_its_angle_brackets_and_says_its_exception() -> None:
    """F11: a run's output lost every ``<word>`` (``File "<string>", line 1, in <module>``
    read ``File " ", line 1, in``: the tag rule of Claude Code's error text), and a failed
    run with a traceback said its first frames, not its exception."""
    out = (
        "Exit code: 1\nTraceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/testbed/pvlib/__init__.py", line 3, in <module>\n'
        "    from pvlib import atmosphere\n"
        "ModuleNotFoundError: No module named 'numpy'"
    )
    said = _run('python -c "import pvlib"', out)
    assert said.endswith("(exit 1): ModuleNotFoundError: No module named 'numpy'"), said
    html = _run("curl -s localhost:8000", "Exit code: 0\n<html><body>Hello page</body></html>")
    assert "<body>" in html, html


def test_a_bash_result_of_no_output_reads_as_no_output() -> None:
    """F9: Claude Code 2.1 writes ``(Bash completed with no output)`` for a command that
    printed nothing; it was said as what the command printed."""
    assert _run("chmod +x run.sh", "(Bash completed with no output)") == (
        "Ran `chmod +x run.sh` (no output)."
    )


def test_a_claude_code_api_error_in_the_agent_s_place_is_an_error(tmp_path: Path) -> None:
    """F10: Claude Code writes a billing error as an assistant record
    (``isApiErrorMessage``); the recap said it as the agent's last words ("Credit balance
    is too low"). It is an error turn, and Where it stopped says no answer came (F19: of
    the user's last message, a request or not)."""
    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.sections import extract_sections

    base = {"sessionId": "s", "cwd": "/w", "version": "2.1.117"}
    rows = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-04-22T11:00:00Z",
            "message": {"role": "user", "content": "Write the grant application."},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-04-22T11:00:02Z",
            "isApiErrorMessage": True,
            "error": "billing_error",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Credit balance is too low"}],
            },
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    source = load(path, keep_messages=True)
    assert [t.role for t in source.turns] == ["You", "error"]
    last = next(s for s in extract_sections(source.messages, []) if s.name == "last")
    assert last.lines == (
        # (what was asked quoted: walk 64, F17)
        'No answer to the user\'s last message ("Write the grant application."): Credit balance '
        "is too low (billing error).",
    ), last.lines


def test_a_codex_command_whose_output_the_rollout_lacks_reads_its_end_event(
    tmp_path: Path,
) -> None:
    """F12: a rollout saved mid-turn has a command's ``exec_command_end`` event but no
    ``function_call_output``: the event was counted as a repeat, the call said "(no
    result in the log)", its exit 1 and error lost."""
    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.collapse import collapse_messages

    def rec(kind: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": "2026-04-26T21:19:46Z", "type": kind, "payload": payload})

    call = {
        "type": "function_call",
        "name": "shell_command",
        "call_id": "c1",
        "arguments": json.dumps({"command": "git log --oneline -20"}),
    }
    end = {
        "type": "exec_command_end",
        "call_id": "c1",
        "exit_code": 1,
        "aggregated_output": "fatal: your current branch 'master' has no commits yet\n",
    }
    user = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Show the history."}],
    }
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        "\n".join([rec("response_item", user), rec("response_item", call), rec("event_msg", end)])
        + "\n"
    )
    source = load(path, keep_messages=True)
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools == [
        "Ran `git log --oneline -20` (exit 1): fatal: your current branch 'master' has no "
        "commits yet"
    ], tools
    assert source.read + sum(source.not_read.values()) == source.records == 3


def test_a_section_s_title_in_plain_text_is_no_summary() -> None:
    """F3: the titles of a plan the user pasted ("Proposed Plan", "Questions for Review",
    each on a line of its own) were chunks' whole summaries: half of a short recap's
    "What happened"."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, is_fragment
    from chunkscope.engine.summarize.extractive import split_sentences as split

    for title in ("Proposed Plan", "Questions for Review"):
        (sentence,) = split(f"You: {title}")
        assert is_fragment(sentence), title
    assert ExtractiveSummarizer().summarize("You: Proposed Plan").summary == ""
    for said in ("All tests pass", "Fix the cache.", "Ship it"):
        assert not any(is_fragment(s) for s in split(f"You: {said}")), said


def test_an_agent_s_plan_files_are_never_said_uncommitted() -> None:
    """F16: Gemini CLI's plan-mode files (``~/.gemini/tmp/<hash>/plans/x.md``) were warned
    of as not committed (no commit can take them); Files changed still lists them."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, call, result, user

    plan = "/Users/ann/.gemini/tmp/finance/1286/plans/overhaul-groups-page.md"
    msgs = [
        user("Plan the groups page, then build it."),
        bot("", call("t1", "write_file", {"file_path": plan, "content": "# Plan"})),
        result("t1", "Successfully created and wrote to new file."),
        bot(
            "",
            call(
                "t2", "write_file", {"file_path": "/Users/ann/finance/app/page.tsx", "content": "x"}
            ),
        ),
        result("t2", "Successfully created and wrote to new file."),
    ]
    s = by_name(extract_sections(msgs, []))
    assert not any("plans" in line for line in s["state"]), s["state"]
    assert any("page.tsx" in line for line in s["state"]), s["state"]


def test_a_glob_pattern_is_said_as_code() -> None:
    """F15: a Glob call was said "Listed **/*.py: ...": its ``**`` read as bold, and a
    summary cut after it "closed" it with a stray ``**``."""
    said = collapse_call(
        "Glob", json.dumps({"pattern": "**/*.py"}), "a.py\nb/c.py", agent="claude-code"
    )
    assert said == "Listed `**/*.py`: a.py, b/c.py", said
    plain = collapse_call("Glob", json.dumps({"pattern": "src"}), "src/a.py", agent="claude-code")
    assert plain == "Listed src: src/a.py", plain


def test_a_folder_s_files_are_said_on_one_line() -> None:
    """F5: a folder of seven changed files was said on two lines (six a line); at a small
    budget the second line alone was kept, as if its one file were the folder's change."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, call, result, user

    msgs = [user("Build the events pages.")]
    paths = [f"/w/app/components/events/part{k}.tsx" for k in range(7)] + ["/w/app/lib/x.ts"]
    for k, path in enumerate(paths):
        msgs += [
            bot("", call(f"t{k}", "Write", {"file_path": path, "content": "x"})),
            result(f"t{k}", "ok"),
        ]
    section = next(s for s in extract_sections(msgs, []) if s.name == "files")
    (line,) = [ln for ln in section.lines if "events" in ln]
    assert line.endswith(" and 1 more") and line.count("part") == 6, line
    assert section.full[section.lines.index(line)].count("part") == 7  # whole with room
    assert by_name(extract_sections(msgs, []))["files"] == section.lines


def test_an_aider_run_whose_output_the_user_did_not_keep_printed_nothing_we_know_of(
    tmp_path: Path,
) -> None:
    """F18: the user answered no to "Add command output to the chat?": the output is not
    in the history, and the run was said to have printed nothing, ``(no output)``."""
    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.collapse import collapse_messages

    chat = """# aider chat started at 2025-11-04 16:20:00

#### add mongo settings

Here are the settings.

> Applied edit to appsettings.json
> dotnet restore
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y
> Running dotnet restore
> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: d
> You can use /undo to undo and discard each aider commit.
"""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(chat, encoding="utf-8")
    source = load(path, keep_messages=True)
    tools = [t.text for t in collapse_messages(source.messages, readable=True) if t.role == "Tool"]
    assert "Ran `dotnet restore` (no result in the log)." in tools, tools


def test_a_web_build_is_a_check_said_by_its_result_not_its_legend() -> None:
    """F6, F7: Windows's `npm.cmd run build` was no check (no Last outcome at all); a
    passing Next.js build was said by its route table's legend ("ƒ (Dynamic)
    server-rendered on demand"), a failing one by its banner, not its type error."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, call, result, user

    passing = (
        "Exit code: 0\n> next build\n\n   ▲ Next.js 15.2.4\n ✓ Compiled successfully\n"
        "Route (app)   Size\n┌ ○ /        5 kB\n○  (Static)   prerendered as static content\n"
        "ƒ  (Dynamic)  server-rendered on demand\n"
    )
    failing = (
        "Exit code: 1\n> next build\nFailed to compile.\n\n./app/page.tsx:12:7\n"
        "Type error: Type 'number' is not assignable to type 'Timeout'.\n"
        "Next.js build worker exited with code: 1 and signal: null\n"
    )
    for out, said in ((passing, "Compiled successfully"), (failing, "Type error: Type 'number'")):
        msgs = [
            user("Build the site."),
            bot("", call("t1", "shell_command", {"command": "npm.cmd run build"})),
            result("t1", out),
        ]
        outcome = by_name(extract_sections(msgs, []))["outcome"]
        assert len(outcome) == 1 and said in outcome[0], outcome
        assert "server-rendered" not in outcome[0] and "worker exited" not in outcome[0]
