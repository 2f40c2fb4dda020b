"""The recap's sections read from exact records: refusals and interruptions with the
user's words, the work's state (branch, commits once each, push, PR, uncommitted edits),
subagent results and verdicts, and what is not a request (another hook's message, aider's
commands). Small records of each tool's shape; one real session per reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.core import Candidate, compose
from chunkscope.engine.recap.sections import extract_sections, fit_sections, render_sections
from chunkscope.engine.summarize import Summary
from chunkscope.engine.tokens import get_counter
from tests.test_sections import bot, by_name, call, result, user

COUNTER = get_counter()
FIXTURES = Path(__file__).parent / "fixtures"
REFUSED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). "
)


def sections(msgs: list[dict[str, Any]], notes: list[str] | None = None) -> dict[str, Any]:
    return by_name(extract_sections(msgs, notes or []))


# --------------------------------------------------------------------------- refusals


def test_a_refusal_with_the_users_words() -> None:
    msgs = [
        user("Fix the flaky login test and push."),
        bot("", call("t1", "Bash", {"command": "git push origin main"})),
        result(
            "t1",
            REFUSED + "To tell you how to proceed, the user said:\nI'll take it from here",
            is_error=True,
        ),
        user("[Request interrupted by user for tool use]"),
    ]
    s = sections(msgs)
    assert s["rejections"] == ('- Rejected `git push origin main`: "I\'ll take it from here"',)
    assert "Pushed" not in "\n".join(s["state"])  # the refused push did not run
    assert all("interrupted" not in line.lower() for line in s["task"])


def test_a_refusal_takes_the_next_message_as_its_words() -> None:
    msgs = [
        user("Run the whole suite."),
        bot("", call("t1", "Bash", {"command": "pytest -q"})),
        result("t1", "3 passed in 0.1s"),
        bot("", call("t2", "Bash", {"command": "pytest -q tests/slow"})),
        result("t2", REFUSED + "STOP what you are doing and wait for the user.", is_error=True),
        user("[Request interrupted by user for tool use]"),
        user("the slow tests need the VPN, skip them for now"),
    ]
    s = sections(msgs)
    assert s["rejections"] == (
        '- Rejected `pytest -q tests/slow`: "the slow tests need the VPN, skip them for now"',
    )
    # the refused run is the last check: the earlier pass is not presented as the last word
    assert s["outcome"] == ("Last check: `pytest -q tests/slow` -> rejected by the user, not run",)


def test_an_interruption_during_a_call() -> None:
    msgs = [
        user("Find why the build is slow."),
        bot("", call("t1", "WebFetch", {"url": "https://example.org/build", "prompt": "x"})),
        user("[Request interrupted by user]"),
        user("never mind, look at the Makefile instead"),
    ]
    s = sections(msgs)
    assert s["rejections"] == (
        '- Interrupted during WebFetch (https://example.org/build): "never mind, look at '
        'the Makefile instead"',
    )


def test_other_tools_refusals() -> None:
    codex_patch = [
        user("Rename the module."),
        bot("", call("p1", "apply_patch", {"input": "*** Begin Patch\n*** Update File: a.py\n"})),
        result("p1", "patch rejected by user"),
    ]
    s = sections(codex_patch)
    assert s["rejections"] == ("- Rejected apply_patch",)
    assert s["files"] == ()
    msgs = [
        user("Clean the build folder."),
        bot("", call("c1", "shell", {"command": ["bash", "-lc", "rm -rf build"]})),
        result("c1", "exec command rejected by user"),
    ]
    assert sections(msgs)["rejections"] == ("- Rejected `rm -rf build`",)
    gemini = [
        user("Rewrite the layout."),
        bot("", call("g1", "replace", {"file_path": "/p/layout.css", "old_string": "a"})),
        result(
            "g1",
            "[Operation Cancelled] Reason: User denied execution.",
            is_error=True,
        ),
        user("I already fixed layout.css myself, go on to the header"),
    ]
    s = sections(gemini)
    assert s["rejections"] == (
        '- Rejected replace (p/layout.css): "I already fixed layout.css myself, go on to '
        'the header"',
    )
    assert s["files"] == ()  # the refused edit changed nothing


# --------------------------------------------------------------------------- work state


def test_commits_each_once_push_and_pr() -> None:
    msgs = [
        user("Add the export flag."),
        bot("", call("t1", "Bash", {"command": 'git commit -am "Add export"'})),
        result("t1", "[feat 1a2b3c4] Add export\n 1 file changed"),
        bot("", call("t2", "Bash", {"command": 'git commit -am "Add export"'})),
        result("t2", "[feat 1a2b3c4] Add export\n 1 file changed"),  # the same commit again
        bot("", call("t3", "Bash", {"command": "git push"})),
        result(
            "t3",
            "fatal: The current branch feat has no upstream branch.",
            is_error=True,
        ),
        bot("", call("t4", "Bash", {"command": "git push -u origin feat"})),
        result("t4", "To github.com:o/r.git\n * [new branch]      feat -> feat"),
        bot("", call("t5", "Bash", {"command": 'gh pr create --title "Export" --body x'})),
        result("t5", "https://github.com/o/r/pull/7"),
        bot("", call("t6", "Bash", {"command": 'git commit -am "Fix typo"'})),
        result("t6", "[feat 9f8e7d6] Fix typo\n 1 file changed"),
    ]
    state = sections(msgs, ["branch: feat"])["state"]
    assert state == (
        "Branch: feat",
        "Committed 1a2b3c4: Add export",  # the branch said once, above
        "Pushed feat (new).",
        "Opened PR https://github.com/o/r/pull/7: Export",
        "Committed 9f8e7d6: Fix typo",
        "Not pushed: 1 commit after the last push.",
    )


def test_an_amended_commit_replaces_the_one_before() -> None:
    msgs = [
        user("Commit the styles."),
        bot("", call("t1", "Bash", {"command": 'git commit -m "Add styles"'})),
        result("t1", "[main 22450e1] Add styles"),
        bot(
            "", call("t2", "Bash", {"command": "git add -f a.css && git commit --amend --no-edit"})
        ),
        result("t2", "[main 3114215] Add styles\n Date: Mon"),
    ]
    commits = [line for line in sections(msgs)["state"] if line.startswith("Committed")]
    assert commits == ["Committed 3114215 on main: Add styles (amends 22450e1)"]


def test_a_push_that_updated_a_branch_and_one_that_failed_last() -> None:
    msgs = [
        user("Ship it."),
        bot("", call("t1", "Bash", {"command": "git push"})),
        result("t1", "To github.com:o/r.git\n   05fd186..a230dbf  main -> main"),
        bot("", call("t2", "Bash", {"command": "git push --force"})),
        result("t2", " ! [rejected]        main -> main (fetch first)\nerror: failed to push"),
    ]
    state = sections(msgs)["state"]
    assert "Pushed main (05fd186..a230dbf)." in state
    assert any(line.startswith("Push failed: ! [rejected]") for line in state)


def test_uncommitted_edits_after_the_last_commit() -> None:
    msgs = [
        user("Refactor the parser."),
        bot("", call("t1", "Edit", {"file_path": "/p/src/a.py", "old_string": "x"})),
        result("t1", "updated"),
        bot("", call("t2", "Bash", {"command": 'git commit -am "Refactor"'})),
        result("t2", "[main 1111111] Refactor"),
        bot("", call("t3", "Edit", {"file_path": "/p/src/b.py", "old_string": "y"})),
        result("t3", "updated"),
        bot("", call("t4", "Edit", {"file_path": "/p/src/c.py", "old_string": "z"})),
        result("t4", REFUSED, is_error=True),  # refused: not an edit
    ]
    s = sections(msgs, ["session in /p"])
    assert s["state"][-1] == "Edited after the last commit (uncommitted): src/b.py."
    assert s["files"] == ("- src/: a.py (1 edit), b.py (1 edit)",)  # named as the state names it


def test_a_single_edited_file_is_named_by_a_path_that_exists() -> None:
    """Walk 14, 7: one file edited was named by its last three parts (``tmp/x/hello.sh``,
    no leading ``/``) in the files section and by its last two in the work state."""
    msgs = [
        user("Write hello.sh."),
        bot("", call("t1", "Write", {"file_path": "/tmp/x/hello.sh", "content": "echo"})),
        result("t1", "File created"),
    ]
    inside = sections(msgs, ["session in /tmp/x"])  # the session's folder: relative to it
    assert inside["files"] == ("- hello.sh (written)",)
    assert inside["state"][-1].endswith("after editing hello.sh.")
    for notes in ([], ["session in /home/dev/proj"]):  # else: the path as it is
        s = sections(msgs, notes)
        assert s["files"] == ("- /tmp/x/hello.sh (written)",)
    # no folder known: the edit may be the project's; outside the session's folder
    # (walk 60, F6): no commit could take it, no warning
    assert sections(msgs, [])["state"][-1].endswith("after editing /tmp/x/hello.sh.")
    assert sections(msgs, ["session in /home/dev/proj"])["state"] == ()


def test_the_session_folder_comes_from_the_claude_code_records() -> None:
    source = load(FIXTURES / "claude-code" / "hello-world-script.jsonl")
    assert "session in /tmp/tmp74wiyiny" in source.notes
    s = by_name(extract_sections(source.messages, source.notes))
    assert s["files"] == ("- hello.sh (written)",)
    assert s["state"] == ("Not committed: no commit in this session after editing hello.sh.",)
    source = load(FIXTURES / "claude-code" / "stop-hook-reflection-first-stop.jsonl")
    assert by_name(extract_sections(source.messages, source.notes))["files"] == (
        "- test.txt (1 edit)",
    )


def test_git_status_after_the_last_edit_says_the_state() -> None:
    edit = [
        user("Tidy up."),
        bot("", call("t1", "Edit", {"file_path": "/p/a.py", "old_string": "x"})),
        result("t1", "updated"),
    ]
    dirty = [
        bot("", call("t2", "Bash", {"command": "git status"})),
        result(
            "t2",
            "On branch dev\nChanges not staged for commit:\n\tmodified:   a.py\n\tmodified:   b.py",
        ),
    ]
    clean = [
        bot("", call("t3", "Bash", {"command": "git status"})),
        result("t3", "On branch dev\nnothing to commit, working tree clean"),
    ]
    assert sections(edit + dirty)["state"] == (
        "Branch: dev",
        "Uncommitted (`git status`): a.py, b.py.",
    )
    assert sections(edit + dirty + clean)["state"][-1] == "Working tree clean (`git status`)."


def test_the_claude_code_reader_notes_the_branch() -> None:
    source = load(FIXTURES / "claude-code" / "coverage-test-fix.jsonl")
    assert "branch: master" in source.notes
    state = by_name(extract_sections(source.messages, source.notes))["state"]
    assert state[0] == "Branch: master"
    assert len([line for line in state if line.startswith("Committed ")]) == len(
        {line for line in state if line.startswith("Committed ")}
    )


# --------------------------------------------------------------------------- subagents


def test_a_reviewers_verdict_is_kept() -> None:
    report = (
        "I reviewed the diff of the cache change.\n\n**Verdict: APPROVE**\n\n"
        "The key now includes the model name and the tests cover both paths.\n"
        "agentId: a1b2c3 (internal ID)"
    )
    msgs = [
        user("Have a reviewer check the cache fix."),
        bot("", call("t1", "Task", {"description": "Review cache fix", "prompt": "Review it"})),
        result("t1", report),
    ]
    (line,) = sections(msgs)["subagents"]
    assert line.startswith("- Review cache fix: verdict APPROVE: **Verdict: APPROVE**")
    assert "agentId" not in line


def test_a_background_subagents_notification() -> None:
    msgs = [
        user("Spawn an agent to audit the deps, in the background."),
        bot("", call("t1", "Task", {"description": "Audit deps", "run_in_background": True})),
        result("t1", "Async agent launched successfully.\nagentId: a9 (internal ID)"),
        user(
            "<task-notification>\n<task-id>a9</task-id>\n<status>completed</status>\n"
            '<summary>Agent "Audit deps" completed</summary>\n<result>Found 2 outdated '
            "packages: requests 2.25 and urllib3 1.26.</result>\n</task-notification>"
        ),
    ]
    s = sections(msgs)
    assert s["subagents"] == (
        "- Audit deps (completed): Found 2 outdated packages: requests 2.25 and urllib3 1.26.",
    )
    assert not any("task-notification" in line for line in s["task"])


# --------------------------------------------------------------------------- not requests


def test_a_hook_message_is_not_the_task() -> None:
    msgs = [
        user("PreToolUse:Bash hook error: [~/.claude/hooks/guard.sh]: rm -rf is blocked"),
        user("Stop hook feedback:\n[stop.sh]: # Task Completion Check\nAre you done?"),
        user("Rename the config loader to load_settings."),
        bot("Renamed it."),
        user("UserPromptSubmit operation blocked by hook: the prompt names a secret"),
    ]
    assert sections(msgs)["task"] == ("Rename the config loader to load_settings.",)


def test_aider_commands_are_not_the_task_nor_the_last_check(tmp_path: Path) -> None:
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "\n# aider chat started at 2025-02-02 18:55:32\n\n"
        "#### /add config.fish  \n> Added config.fish to the chat  \n\n"
        "#### /copy-context  \n> Copied code context to clipboard.  \n\n"
        '#### add an alias so that "v" runs nvim  \n\n'
        "Here is the edit:\n\n```fish\nalias v=nvim\n```\n\nThen run:\n\n"
        "```fish\nsource ~/.config/fish/config.fish\n```\n\n"
        "> Applied edit to config.fish  \n> source ~/.config/fish/config.fish  \n"
        "> Run shell command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]: n  \n\n"
        "#### /ask why does the alias not work in bash?  \n\nBecause it is fish syntax.\n",
        encoding="utf-8",
    )
    source = load(history)
    assert source.format == "aider"
    s = by_name(extract_sections(source.messages, source.notes))
    assert s["task"] == (
        'add an alias so that "v" runs nvim',
        "Later: why does the alias not work in bash?",
    )
    assert s["outcome"] == ()  # the suggested command was declined: no check ran
    # what the user typed next comes with the refusal
    assert s["rejections"] == (
        "- Declined to run `source ~/.config/fish/config.fish`: "
        '"why does the alias not work in bash?"',
    )


# --------------------------------------------------------------------------- budget


def test_a_short_recap_shows_a_long_request_whole() -> None:
    long_request = "Port the parser to Rust. " + " ".join(
        f"Keep rule {k} exactly as the Python one does it." for k in range(40)
    )
    msgs = [user(long_request), bot("Ported.")]
    secs = extract_sections(msgs, [])
    cand = [Candidate(index=0, summary=Summary(abstract="Ported.", summary="Ported."), score=1)]
    sel = compose(cand, secs, 2000, COUNTER)
    assert "Keep rule 39 exactly" in sel.text  # beyond the cut of 700 characters
    assert sel.used_tokens <= 2000
    tight = compose(cand, secs, 200, COUNTER)
    assert tight.used_tokens <= 200
    assert "Keep rule 39 exactly" not in tight.text


_EVENTS = st.lists(
    st.sampled_from(["edit", "commit", "push", "fail-push", "refuse", "interrupt", "review"]),
    max_size=14,
)


def _session(events: list[str]) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [user("Build the thing.")]
    for k, event in enumerate(events):
        cid = f"c{k}"
        if event == "edit":
            msgs += [bot("", call(cid, "Edit", {"file_path": f"/p/f{k}.py"})), result(cid, "ok")]
        elif event == "commit":
            msgs += [
                bot("", call(cid, "Bash", {"command": f'git commit -m "step {k}"'})),
                result(cid, f"[main {k:07x}] step {k}"),
            ]
        elif event in ("push", "fail-push"):
            out = (
                f"   {k:07x}..{k + 1:07x}  main -> main"
                if event == "push"
                else "error: failed to push some refs"
            )
            msgs += [bot("", call(cid, "Bash", {"command": "git push"})), result(cid, out)]
        elif event == "refuse":
            msgs += [
                bot("", call(cid, "Bash", {"command": f"make step{k}"})),
                result(cid, REFUSED + "the user said:\nnot now", is_error=True),
            ]
        elif event == "interrupt":
            msgs += [user("[Request interrupted by user]"), user(f"do step {k} instead")]
        else:
            msgs += [
                bot("", call(cid, "Task", {"description": f"review {k}"})),
                result(cid, f"Verdict: REQUEST CHANGES on step {k}."),
            ]
    return msgs


@settings(max_examples=40, deadline=None)
@given(_EVENTS, st.integers(min_value=0, max_value=600))
def test_no_section_exceeds_its_allowance(events: list[str], allowance: int) -> None:
    secs = extract_sections(_session(events), ["branch: main"])
    for stretch in (False, True):
        fitted = fit_sections(secs, allowance, COUNTER, stretch=stretch)
        assert COUNTER.count(render_sections(fitted)) <= allowance
    state = next(s for s in secs if s.name == "state").lines
    commits = [line for line in state if line.startswith("Committed ")]
    assert len(commits) == len(set(commits))  # each commit once


@settings(max_examples=25, deadline=None)
@given(_EVENTS, st.integers(min_value=1, max_value=1500))
def test_the_recap_is_never_over_budget(events: list[str], budget: int) -> None:
    secs = extract_sections(_session(events), ["branch: main"])
    cands = [
        Candidate(
            index=i,
            summary=Summary(abstract=f"Step {i} done.", summary=f"Step {i} done."),
            score=float(i),
        )
        for i in range(4)
    ]
    sel = compose(cands, secs, budget, COUNTER)
    # over only when nothing fits at all and the newest summary is shown alone (and said)
    assert COUNTER.count(sel.text) <= budget or (sel.newest_over_budget and not sel.prefix)


def test_the_users_answers_are_decisions_in_the_task() -> None:
    msgs = [
        user("Set up the linters."),
        bot(
            "",
            call("t1", "AskUserQuestion", {"questions": [{"question": "Which tools?"}]}),
        ),
        result(
            "t1",
            'User has answered your questions: "Which tools?"="Credo + Dialyxir", '
            '"Which rig?"="No rig". You can now continue with the user\'s answers in mind.',
        ),
    ]
    s = sections(msgs)
    assert s["task"] == (
        "Set up the linters.",
        "Answered: Which tools? -> Credo + Dialyxir",
        "Answered: Which rig? -> No rig",
    )
    assert s["questions"] == ()  # answered: not open


def test_a_short_last_message_is_shown_whole_when_there_is_room() -> None:
    last = (
        "The README.md file contains a simple heading:\n\n```markdown\n# Test Project\n```\n\n"
        "It just declares the project name."
    )
    msgs = [user("Read the README and tell me what it says."), bot(last)]
    secs = extract_sections(msgs, [])
    roomy = render_sections(fit_sections(secs, 400, COUNTER, stretch=True))
    assert "# Test Project" in roomy
    tight = fit_sections(secs, 40, COUNTER, stretch=True)
    assert COUNTER.count(render_sections(tight)) <= 40


def test_a_codex_turn_the_user_interrupted(tmp_path: Path) -> None:
    import json

    def rec(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "2026-01-01T10:00:00Z", "type": kind, "payload": payload})

    rollout = tmp_path / "rollout-2026-01-01T10-00-00-x.jsonl"
    rollout.write_text(
        "\n".join(
            [
                rec("session_meta", {"id": "x", "cwd": "/w", "git": {"branch": "feat/clock"}}),
                rec(
                    "response_item",
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "Add a cooldown clock."}],
                    },
                ),
                rec(
                    "response_item",
                    {
                        "type": "function_call",
                        "name": "shell",
                        "call_id": "c1",
                        "arguments": json.dumps({"command": ["bash", "-lc", "npm test"]}),
                    },
                ),
                rec("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
                rec(
                    "response_item",
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "skip the tests, just build"}],
                    },
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    source = load(rollout)
    assert source.format == "codex"
    s = by_name(extract_sections(source.messages, source.notes))
    assert s["rejections"] == ('- Interrupted during `npm test`: "skip the tests, just build"',)
    assert s["state"] == ("Branch: feat/clock",)
    assert s["task"] == ("Add a cooldown clock.", "Later: skip the tests, just build")


# --------------------------------------------------------------------------- the first request


def test_a_traceback_in_the_first_request_is_cut_to_its_exception() -> None:
    frames = "".join(f'  File "lib/mod{k}.py", line {k}, in f{k}\n    g{k}()\n' for k in range(30))
    issue = (
        "<pr_description>\nConsider the following PR description:\n"
        "Saving a schema with a List of DateTime fails.\n```\n"
        f"Traceback (most recent call last):\n{frames}"
        "AttributeError: 'List' object has no attribute 'opts'\n```\n"
        "Expected: the format of the parent schema is used for the inner field.\n"
        "</pr_description>"
    )
    task = sections([user(issue), bot("Looking.")])["task"]
    first = task[0]
    assert first.startswith("Saving a schema with a List")  # the framing line is left out
    assert "AttributeError: 'List' object has no attribute 'opts'" in first
    assert "Expected: the format of the parent schema" in first  # past the frames, still kept
    assert "mod3.py" not in first


def test_text_that_only_looks_like_a_traceback_is_kept() -> None:
    request = (
        "Please read the following notes: the word Traceback alone is no traceback, "
        "and File names like setup.py stay."
    )
    task = sections([user(request), bot("OK.")])["task"]
    assert task[0] == request


# --------------------------------------------------------------------------- reported counts


def test_a_count_in_the_last_message_goes_in_first_when_room_is_short() -> None:
    closing = (
        "I reworked the parser so that it reads the header lazily. "
        "The old eager path is gone and the reader no longer copies the buffer. "
        "The docs now describe the lazy header and the new error message. "
        "All 29 unit tests pass and clippy is clean."
    )
    msgs = [user("Port the parser to Rust."), bot(closing)]
    last = next(s for s in extract_sections(msgs) if s.name == "last")
    counted = [line for line, rank in zip(last.lines, last.ranks, strict=True) if rank == 0]
    assert counted == ["All 29 unit tests pass and clippy is clean."]
    # in a tight allowance the count is what is kept, and lines keep their own order
    room = COUNTER.count("## Where it stopped\nAll 29 unit tests pass and clippy is clean.")
    tight = fit_sections([last], room, COUNTER, stretch=True)
    assert tight and tight[0].lines == ("All 29 unit tests pass and clippy is clean.",)
    roomy = fit_sections([last], 1000, COUNTER)
    assert roomy[0].lines == last.lines  # all kept, in their own order


def test_a_last_message_without_counts_keeps_its_order() -> None:
    msgs = [user("Tidy the README."), bot("I rewrote the intro. The install steps are first now.")]
    last = next(s for s in extract_sections(msgs) if s.name == "last")
    assert last.ranks == tuple(range(len(last.lines)))


# --------------------------------------------------------------------------- commit hashes


def test_a_quiet_commit_takes_its_hash_from_the_log_that_follows() -> None:
    msgs = [
        user("Commit the parser fix."),
        bot("", call("t1", "Bash", {"command": 'git commit -q -am "Fix the parser"'})),
        result("t1", ""),
        bot("", call("t2", "Bash", {"command": "git log --oneline -3"})),
        result("t2", "5e6f7a8 Fix the parser\n1a2b3c4 Add the reader\n0f0f0f0 Initial"),
    ]
    commits = [line for line in sections(msgs)["state"] if line.startswith("Committed")]
    assert commits == ["Committed 5e6f7a8: Fix the parser"]


def test_a_log_after_another_commit_or_of_another_message_gives_no_hash() -> None:
    msgs = [
        user("Commit both."),
        bot("", call("t1", "Bash", {"command": 'git commit -q -m "First change"'})),
        result("t1", ""),
        bot("", call("t2", "Bash", {"command": "git log --oneline -1"})),
        result("t2", "9999999 Something else entirely"),
        bot("", call("t3", "Bash", {"command": 'git commit -q -m "Second change"'})),
        result("t3", ""),
        bot("", call("t4", "Bash", {"command": "git rev-parse --short HEAD"})),
        result("t4", "abcdef1"),
    ]
    commits = [line for line in sections(msgs)["state"] if line.startswith("Committed")]
    assert commits == ["Committed: First change", "Committed abcdef1: Second change"]


def test_a_commit_chained_before_a_push_is_one_verdict() -> None:
    """walk 15, 1: the result of ``git commit -q ... && git push`` is the push's; the
    commit was made, so the state lists it and names no file as uncommitted, and the
    outcome does not say "Committed" beside it."""
    push = "git push -q origin main"
    msgs = [
        user("Fix the typo in README.md and push it."),
        bot(
            "", call("t1", "Edit", {"file_path": "README.md", "old_string": "a", "new_string": "b"})
        ),
        result("t1", "Edited README.md."),
        bot("", call("t2", "Bash", {"command": f"git commit -q -am 'docs: fix typo' && {push}"})),
        result("t2", "To github.com:me/x.git\n   1a2b3c4..5d6e7f8  main -> main"),
    ]
    s = sections(msgs)
    assert s["state"] == ("Committed: docs: fix typo", "Pushed main (1a2b3c4..5d6e7f8).")
    assert not any(line.startswith("Commit") for line in s["outcome"])
    # an edit after it is the only one named; a push without refs is quoted from its part
    msgs[-1] = result("t2", "Triggered a workflow run.")
    msgs += [
        bot("", call("t3", "Edit", {"file_path": "NEWS.md", "old_string": "a", "new_string": "b"})),
        result("t3", "Edited NEWS.md."),
    ]
    assert sections(msgs)["state"] == (
        "Committed: docs: fix typo",
        f"Pushed: `{push}`",
        "Edited after the last commit (uncommitted): NEWS.md.",
    )
    # a chained commit whose result shows a failure, or a known non-zero exit, made none
    for bad in (
        result("t2", "nothing to commit, working tree clean"),
        result("t2", "Everything up-to-date", exit_code=1),
    ):
        msgs[4] = bad
        assert not any(line.startswith("Committed") for line in sections(msgs)["state"])


def test_a_lone_commit_with_other_output_is_one_verdict() -> None:
    """Walk 15's leftover: a lone ``git commit`` whose output held no ``[branch sha]`` line
    (a hook's lines) was not counted as a commit, and the outcome then said "Committed:"
    as if one had been made. Exit 0 counts it; a non-zero exit is a failed commit; with
    neither, the outcome says the commit is not confirmed, and the state does not list it."""
    hooks = "ruff.....................................................Passed"
    msgs = [
        user("Commit the fix."),
        bot("", call("t1", "Bash", {"command": 'git commit -am "fix: parser"'})),
        result("t1", hooks, exit_code=0),
    ]
    s = sections(msgs)
    assert s["state"] == ("Committed: fix: parser",)
    assert not any(line.startswith("Commit") for line in s["outcome"])
    msgs[-1] = result("t1", hooks + "\nmypy....Failed", exit_code=1)
    s = sections(msgs)
    assert not any(line.startswith("Committed") for line in s["state"])
    assert s["outcome"] == ("Commit failed: fix: parser (exit 1)",)
    msgs[-1] = result("t1", hooks)
    s = sections(msgs)
    assert not any(line.startswith("Committed") for line in s["state"])
    assert s["outcome"] == (
        f"Commit not confirmed: fix: parser (no new commit in its output: {hooks})",
    )


# --------------------------------------------------------------------------- file paths


def test_the_agents_own_plan_file_does_not_lengthen_the_project_paths() -> None:
    root = "/home/u/projects/worktrees/app"
    msgs = [user("Render the transcript.")]
    for k, path in enumerate(
        [
            f"{root}/lib/render.ex",
            f"{root}/test/render_test.exs",
            "/home/u/.claude/plans/drifting-whisper.md",
            f"{root}/assets/js/app.js",
        ]
    ):
        msgs += [
            bot("", call(f"t{k}", "Write", {"file_path": path, "content": "x"})),
            result(f"t{k}", "ok"),
        ]
    files = "\n".join(sections(msgs)["files"])
    assert "lib/render.ex" in files and "projects/worktrees" not in files
    assert "test/render_test.exs" in files and "assets/js/app.js" in files
    assert ".claude/plans/drifting-whisper.md" in files


def test_paths_all_under_hidden_folders_are_still_made_relative() -> None:
    msgs = [user("Tune the config.")]
    for k, path in enumerate(["/home/u/.config/app/a.toml", "/home/u/.config/app/b.toml"]):
        msgs += [
            bot("", call(f"t{k}", "Write", {"file_path": path, "content": "x"})),
            result(f"t{k}", "ok"),
        ]
    assert sections(msgs)["files"] == ("- a.toml (written)", "- b.toml (written)")


def test_a_trajectory_submitted_without_a_submit_command_says_so() -> None:
    """A mini-swe-agent run cut short before its submit command (the fixture) ends with
    the exit status Submitted: the outcome says the work was submitted (its recap said
    nothing of it once the template's own "Submit" words were left out)."""
    source = load(FIXTURES / "mini-swe-agent/pydicom-901.traj.json")
    outcome = by_name(extract_sections(source.messages, source.notes))["outcome"]
    assert "Submitted the work (the run's exit status)." in outcome
    assert not any("COMPLETE_TASK" in str(m.get("content")) for m in source.messages)


def test_a_declined_aider_command_does_not_take_the_next_request_as_its_words() -> None:
    """aider asks "Run shell command?"; the user says n, then types a new request: the
    recap said `Declined to run \\`mkdir frontend\\`: "Implement the synthetic data ..."`,
    as if the request were why (walk 7)."""
    source = load(FIXTURES / "aider" / "metadata-aider.aider.chat.history.md")
    rejections = by_name(extract_sections(source.messages, source.notes))["rejections"]
    declined = [line for line in rejections if line.startswith("- Declined to run `mkdir")]
    assert len(declined) == 3 and all(":" not in line for line in declined), declined


# --------------------------------------------------------------------------- cuts


TOLD = "To tell you how to proceed, the user said:\n"


def test_a_sections_line_over_its_limit_keeps_whole_sentences() -> None:
    """Walk 48, F4: a line over its section's limit was cut at a word, so a last short
    sentence after a long one read as a stump (``... to...``); its whole sentences are kept
    when they fill half the room, the rest left out, and a cut mid-sentence only else."""
    words = (
        "We already have a repo, so you don't need to git init. Instead stage the latest "
        "changes and use the conventional commit convention for the commit message. You can "
        "review the existing commit messages to see how they are written here."
    )
    msgs = [
        user("Commit the migration."),
        bot("", call("t1", "Bash", {"command": "git init"})),
        result("t1", REFUSED + TOLD + words, is_error=True),
    ]
    (line,) = sections(msgs)["rejections"]
    said = line.split(": ", 1)[1]
    assert said == (
        "\"We already have a repo, so you don't need to git init. Instead stage the latest "
        'changes and use the conventional commit convention for the commit message."'
    ), line
    # one long sentence has no whole sentence to keep: cut at a word
    long = "stage the latest changes " * 12
    msgs[-1] = result("t1", REFUSED + TOLD + long, is_error=True)
    (line,) = sections(msgs)["rejections"]
    assert line.endswith('..."') and len(line) < 240, line
