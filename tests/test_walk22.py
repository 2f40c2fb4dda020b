"""Walk 22's findings (a fresh review after walk 21's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.pilot import SAMPLE, burst, make_app, settled, wait_for

FIXTURES = Path(__file__).parent / "fixtures"

pytestmark = pytest.mark.usefixtures("isolated")


async def test_a_burst_of_arrows_and_enter_in_a_chooser_picks_what_the_arrows_reached() -> None:
    """F9: `e ↓ ↓ ⏎` typed at once exported the merged chunks as JSON, the first choice:
    the enter was read before the list had moved for the arrows queued for it. One
    workbench opens the chooser afresh for each burst."""
    from textual.widgets import OptionList

    from chunkscope.tui.screens.choose import ChooseScreen
    from chunkscope.tui.screens.prompt import PromptScreen

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.screen
        for downs, kind in ((2, "recap"), (3, "report"), (0, "json")):
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, ChooseScreen), 5)
            chooser = app.screen
            assert isinstance(chooser, ChooseScreen), kind
            assert [o.id for o in chooser.query_one(OptionList)._options][:4] == [
                "json",
                "markdown",
                "recap",
                "report",
            ]
            chosen: list[str | None] = []
            pick = chooser._pick

            def picking(value: str | None, chosen: list[str | None] = chosen, pick=pick) -> None:  # type: ignore[no-untyped-def]
                chosen.append(value)
                pick(value)

            chooser._pick = picking  # type: ignore[method-assign]
            burst(app, *["down"] * downs, "enter")
            await wait_for(pilot, lambda c=chosen: bool(c), 5)
            assert chosen == [kind]
            # the path prompt the choice opens is closed for the next burst: waited for
            # first (the chooser leaves before the prompt comes: a test that took the
            # workbench between them for the end pressed `e` with the prompt on its way)
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), 5)
            assert isinstance(app.screen, PromptScreen), (kind, app.screen)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is bench, 5)
            assert app.screen is bench, (kind, app.screen)


def test_an_argv_command_collapses_quoted_as_its_call_shows_it() -> None:
    """F7: a Codex `shell` call's argv collapsed with its words joined by spaces
    (``Ran `rg -n foo bar src/my dir```: another command); the collapsed sentence
    quotes it as the call's ``$`` line does, and a single quote reads as typed."""
    import json

    from chunkscope.engine.recap.collapse import collapse_call
    from chunkscope.engine.toolcall import format_call

    for argv, typed in [
        (["rg", "-n", "foo bar", "src/my dir"], "rg -n 'foo bar' 'src/my dir'"),
        (["python3", "-c", "print('a b')"], "python3 -c \"print('a b')\""),
        (["bash", "-lc", "ls -la | head"], "ls -la | head"),
    ]:
        arguments = json.dumps({"command": argv})
        assert format_call("shell", arguments) == f"$ {typed}"
        said = collapse_call("shell", arguments, "", exit_code=0, agent="codex")
        assert said == f"Ran `{typed}` (exit 0)."  # no output: no colon


@given(
    st.lists(st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=12), max_size=6)
)
def test_a_joined_command_reads_back_into_its_words(argv: list[str]) -> None:
    import shlex

    from chunkscope.engine.toolcall import shell_join

    assert shlex.split(shell_join(argv)) == argv


def test_a_sessions_subagent_transcripts_are_not_listed_as_sessions(tmp_path: Path) -> None:
    """F8 (in part): Claude Code 2.1.2 on keeps a subagent's transcript in
    ``<session>/subagents/agent-<id>.jsonl`` with a ``.meta.json``: the picker and
    `--latest` listed each as a session of its own (untitled) and the meta file under
    "nothing to read". A folder named so without its session beside it is walked."""
    import json
    import shutil

    from chunkscope.engine.read.formats.folders import list_sessions

    project = tmp_path / "project"
    (project / "s-1" / "subagents").mkdir(parents=True)
    shutil.copy(FIXTURES / "claude-code" / "hello-world-script.jsonl", project / "s-1.jsonl")
    agent = project / "s-1" / "subagents" / "agent-a2271d1.jsonl"
    shutil.copy(FIXTURES / "claude-code" / "coverage-test-fix.jsonl", agent)
    agent.with_suffix(".meta.json").write_text(json.dumps({"agentType": "general-purpose"}))
    listed = [Path(s.path).name for s in list_sessions(project)]
    assert listed == ["s-1.jsonl"]
    (project / "s-1.jsonl").unlink()  # no session beside it: a folder like any other
    assert "agent-a2271d1.jsonl" in [Path(s.path).name for s in list_sessions(project)]


def test_claude_code_bash_mode_reads_as_typed_and_asks_nothing(tmp_path: Path) -> None:
    """F10: a command typed in Claude Code's bash mode (``! git status --short``) read as
    ``You: <bash-input>git status --short</bash-input>`` and its output as a user turn of
    ``<bash-stdout>`` tags; the slash commands beside it read as typed."""
    import json

    from chunkscope.engine.read.parse import load
    from chunkscope.engine.segment.requests import message_kind

    def record(i: int, kind: str, content: str, **extra: object) -> dict[str, object]:
        return {
            "parentUuid": f"u{i - 1}" if i else None,
            "isSidechain": False,
            "sessionId": "s-2",
            "version": "2.1.40",
            "type": kind,
            "uuid": f"u{i}",
            "timestamp": f"2026-08-20T10:00:0{i}.000Z",
            "message": {"role": kind, "content": content},
            **extra,
        }

    path = tmp_path / "s-2.jsonl"
    records = [
        record(0, "user", "<bash-input>git status --short</bash-input>"),
        record(
            1,
            "user",
            "<bash-stdout> M src/a.ts\n?? notes.md</bash-stdout><bash-stderr></bash-stderr>",
        ),
        record(2, "user", "<bash-input>make lint</bash-input>"),
        record(3, "user", "<bash-stdout></bash-stdout><bash-stderr>make: no rule</bash-stderr>"),
        record(4, "user", "why is src/a.ts modified?"),
        record(5, "assistant", "Because of the toggle fix."),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    turns = [(t.role, t.text) for t in load(path).turns]
    assert turns == [
        ("You", "! git status --short"),
        ("system", " M src/a.ts\n?? notes.md"),
        ("You", "! make lint"),
        ("system", "make: no rule"),
        ("You", "why is src/a.ts modified?"),
        ("Bot", "Because of the toggle fix."),
    ]
    assert message_kind("! git status --short") == "none"  # the user's command, no request


def test_notes_quoting_the_log_write_no_escape_sequence_nor_a_second_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """F11: the notes made of log fields (a session's title, folder, branch) wrote the
    log's escape sequences raw (a window title set, the screen cleared) and its line
    breaks as lines without `chunkscope:`."""
    from chunkscope.tui.cli.common import note

    note("session: Title \x1b[5mBLINK\x1b[0m\nline two")
    note("session in /home/dev/\x1b]0;PWNED\x07proj\x1b[2J")
    err = capsys.readouterr().err
    assert (
        err == "chunkscope: session: Title BLINK line two\nchunkscope: session in /home/dev/proj\n"
    )


def test_a_session_titled_by_claude_code_and_renamed_says_each_once_the_rename_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F1: Claude Code 2.1 refines its `ai-title` as it goes and `/rename` writes a
    `custom-title`: the recap's Session section listed every ai-title, the rename among
    them, where the picker says the rename."""
    import json

    from chunkscope.engine.read.formats.claude import session_title
    from chunkscope.tui.cli import main

    base = {"sessionId": "s-1", "version": "2.1.40", "isSidechain": False}
    records = [
        {**base, "type": "ai-title", "aiTitle": "Empty list bug"},
        {
            **base,
            "type": "user",
            "uuid": "u0",
            "parentUuid": None,
            "timestamp": "2026-08-20T10:00:00.000Z",
            "message": {"role": "user", "content": "Why is the todo list empty after a reload?"},
        },
        {**base, "type": "custom-title", "customTitle": "toggle persistence"},
        {
            **base,
            "type": "assistant",
            "uuid": "a0",
            "parentUuid": "u0",
            "timestamp": "2026-08-20T10:00:01.000Z",
            "message": {"role": "assistant", "content": "The toggle is not saved; fixed."},
        },
        {**base, "type": "ai-title", "aiTitle": "Fix toggle persistence"},
    ]
    path = tmp_path / "s-1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["recap", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## Session\ntoggle persistence\nFix toggle persistence\n\n")
    assert "Empty list bug" not in out
    assert session_title(records) == "toggle persistence"


def test_gemini_cli_fetches_say_their_urls_and_searches_their_matches() -> None:
    """F12: Gemini CLI's `web_fetch` names its URLs in its prompt ("Fetched ?." of a real
    session), and its search says how many matches it found ("1 lines" of that line)."""
    import json

    from chunkscope.engine.recap.collapse import collapse_call

    prompt = "Summarize https://example.com/a and https://example.com/b, then compare them."
    said = collapse_call("web_fetch", json.dumps({"prompt": prompt}), "...", agent="gemini-cli")
    assert said == "Fetched https://example.com/a, https://example.com/b."
    said = collapse_call(
        "search_file_content",
        json.dumps({"pattern": "toggle(State)?", "path": "src"}),
        'Found 2 matches for pattern "toggle(State)?" in path "src":\n---\nFile: a.ts\nL3: x',
        agent="gemini-cli",
    )
    assert said == "Searched for 'toggle(State)?' in src: 2 matches."
    assert collapse_call(
        "WebFetch", json.dumps({"url": "https://x.org"}), "", agent="claude-code"
    ) == ("Fetched https://x.org.")


@pytest.mark.parametrize(("poll", "key"), [("TaskOutput", "task_id"), ("BashOutput", "bash_id")])
def test_a_poll_of_a_background_command_reads_as_that_command(
    tmp_path: Path, poll: str, key: str
) -> None:
    """F13: Claude Code's wait for a command run in the background (``TaskOutput`` in
    2.1, ``BashOutput`` in 2.0) read ``Called TaskOutput task_id=bd0afab block=true``,
    its result's tags as text and, collapsed, its exit code and output lost."""
    import json

    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.collapse import collapse_messages

    base = {"sessionId": "s", "version": "2.1.40", "isSidechain": False}

    def rec(i: int, kind: str, content: object) -> dict[str, object]:
        return {
            **base,
            "type": kind,
            "uuid": f"u{i}",
            "parentUuid": f"u{i - 1}" if i else None,
            "timestamp": f"2026-08-20T10:00:0{i}.000Z",
            "message": {"role": kind, "content": content},
        }

    def use(i: str, name: str, args: dict[str, object]) -> list[dict[str, object]]:
        return [{"type": "tool_use", "id": i, "name": name, "input": args}]

    def result(i: str, text: str) -> list[dict[str, object]]:
        return [{"type": "tool_result", "tool_use_id": i, "content": text}]

    records = [
        rec(0, "user", "Run the tests"),
        rec(1, "assistant", use("c1", "Bash", {"command": "mix test", "run_in_background": True})),
        rec(2, "user", result("c1", "Command running in background with ID: bd0afab.")),
        rec(3, "assistant", use("c2", poll, {key: "bd0afab", "block": True})),
        rec(
            4,
            "user",
            result(
                "c2",
                "<retrieval_status>success</retrieval_status>\n<task_id>bd0afab</task_id>\n"
                "<status>completed</status>\n<exit_code>0</exit_code>\n"
                "<output>\n43 tests, 0 failures\n</output>",
            ),
        ),
        rec(5, "assistant", use("c3", poll, {key: "elsewhere"})),
        rec(6, "user", result("c3", "<status>running</status>")),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    source = load(path)
    turns = [(t.role, t.text) for t in source.turns]
    # the command is the one of line 2 (walk 34, F7: its text is not the poll's line's)
    poll_text = "$ mix test  # still running: its output waited for (bd0afab, run on line 2)"
    assert ("Bot", poll_text) in turns
    assert ("Tool", "Exit code: 0\n43 tests, 0 failures") in turns
    assert ("Bot", f"{poll} {key}=elsewhere") in turns  # a task not known: as it was
    said = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert "Ran `mix test` on line 2 (exit 0): 43 tests, 0 failures" in said


def test_claude_code_task_tools_are_read_as_a_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F14: Claude Code 2.1's TaskCreate / TaskUpdate (which replace TodoWrite) were not
    read as a plan: the recap had no Plan, a call read ``Called TaskUpdate taskId=1``."""
    import json

    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.collapse import collapse_messages
    from chunkscope.engine.segment.requests import plan_step
    from chunkscope.tui.cli import main

    base = {"sessionId": "s", "version": "2.1.40", "isSidechain": False}
    records: list[dict[str, object]] = []

    def rec(kind: str, content: object) -> None:
        i = len(records)
        records.append(
            {
                **base,
                "type": kind,
                "uuid": f"u{i}",
                "parentUuid": f"u{i - 1}" if i else None,
                "timestamp": f"2026-08-20T10:00:{i:02d}.000Z",
                "message": {"role": kind, "content": content},
            }
        )

    def call(i: str, name: str, args: dict[str, object], result: str) -> None:
        rec("assistant", [{"type": "tool_use", "id": i, "name": name, "input": args}])
        rec("user", [{"type": "tool_result", "tool_use_id": i, "content": result}])

    rec("user", "Port the parser to Rust and test it")
    for n, subject in enumerate(["Write the parser", "Wire it up", "Test it"], start=1):
        call(
            f"c{n}",
            "TaskCreate",
            {"subject": subject},
            f"Task #{n} created successfully: {subject}",
        )
    call("u1", "TaskUpdate", {"taskId": "1", "status": "completed"}, "Updated task #1 status")
    call("u2", "TaskUpdate", {"taskId": "2", "status": "in_progress"}, "Updated task #2 status")
    rec("assistant", "Parser written; wiring it up next.")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))

    assert main(["recap", str(path)]) == 0
    out = capsys.readouterr().out
    assert "## Plan\n- [x] Write the parser\n- [~] Wire it up (in progress)\n- [ ] Test it\n" in out
    source = load(path)
    calls = [t.text for t in source.turns if t.text.startswith("Task")]
    assert calls[0] == 'TaskCreate 0/1 done; next: "Write the parser"\nadded: "Write the parser"'
    assert calls[-1] == 'TaskUpdate 1/3 done; in progress: "Wire it up"'
    assert plan_step(calls[-1]) == '"Wire it up"'  # the plan's step, as the topics read it
    said = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert said[-1] == "Updated the todo list (3 items, 1 done)."


def test_a_subagents_messages_kept_in_progress_records_are_read_as_its_own(
    tmp_path: Path,
) -> None:
    """F8: Claude Code 2.1 keeps a subagent's messages in the session's ``progress``
    records (``agent_progress``), not as sidechain records: its calls were read nowhere
    (a real 2.1.39 session's two WebFetch calls). Each is read once, as the subagent's."""
    import json

    from chunkscope.engine.read.parse import load

    base = {"sessionId": "s", "version": "2.1.39", "isSidechain": False}

    def progress(i: int, inner: dict[str, object]) -> dict[str, object]:
        data = {"type": "agent_progress", "agentId": "a881341", "message": inner}
        return {**base, "type": "progress", "uuid": f"p{i}", "data": data}

    asked = {
        "type": "user",
        "uuid": "s1",
        "timestamp": "2026-02-11T21:24:19.366Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "What do hooks output?"}]},
    }
    fetch = {
        "type": "assistant",
        "uuid": "s2",
        "timestamp": "2026-02-11T21:24:22.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "WebFetch",
                    "input": {"url": "https://code.claude.com/docs/en/hooks.md", "prompt": "hooks"},
                }
            ],
        },
    }
    records = [
        {
            **base,
            "type": "user",
            "uuid": "u0",
            "parentUuid": None,
            "timestamp": "2026-02-11T21:24:00.000Z",
            "message": {"role": "user", "content": "Find the hook output contract"},
        },
        progress(1, asked),
        progress(2, asked),  # written again as the subagent goes on
        progress(3, fetch),
        {**base, "type": "progress", "uuid": "p4", "data": {"type": "bash_progress"}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    source = load(path)
    said = [t.text for t in source.turns if t.role == "Subagent"]
    assert said[0] == "What do hooks output?" and len(said) == 2
    assert "WebFetch https://code.claude.com/docs/en/hooks.md" in said[1]
    assert source.not_read.get("progress records") == 1
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == source.records
