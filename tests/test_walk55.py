"""Walk 55 (the command line on the bench sessions) and walk 56 (real session files not
read before): the recap's sections and collapsed tool calls. Findings 55 F1, F2, F4, F6,
F7, F8, F10, F12 and 56 F1, F2, F4; each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.sections import Section, extract_sections

_BASE = {"sessionId": "s1", "cwd": "/tmp/proj"}


def _claude(tmp_path: Path, steps: list[tuple[str, Any]]) -> list[Section]:
    """The sections of a Claude Code log made of `steps`: ("user", text),
    ("bot", text) or ("bash", (command, output))."""
    rows: list[dict[str, Any]] = []
    parent = None
    for n, (kind, what) in enumerate(steps):
        uid = f"r{n}"
        stamp = f"2026-01-01T10:{n // 60:02d}:{n % 60:02d}Z"
        if kind == "user":
            message: dict[str, Any] = {"role": "user", "content": what}
            rows.append(
                {
                    **_BASE,
                    "type": "user",
                    "uuid": uid,
                    "parentUuid": parent,
                    "timestamp": stamp,
                    "message": message,
                }
            )
        elif kind == "bot":
            message = {"role": "assistant", "content": [{"type": "text", "text": what}]}
            rows.append(
                {
                    **_BASE,
                    "type": "assistant",
                    "uuid": uid,
                    "parentUuid": parent,
                    "timestamp": stamp,
                    "message": message,
                }
            )
        else:
            name, args, output = what
            use = {"type": "tool_use", "id": f"t{n}", "name": name, "input": args}
            rows.append(
                {
                    **_BASE,
                    "type": "assistant",
                    "uuid": uid,
                    "parentUuid": parent,
                    "timestamp": stamp,
                    "message": {"role": "assistant", "content": [use]},
                }
            )
            parent = uid
            uid = f"r{n}b"
            result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output}
            rows.append(
                {
                    **_BASE,
                    "type": "user",
                    "uuid": uid,
                    "parentUuid": parent,
                    "timestamp": stamp,
                    "message": {"role": "user", "content": [result]},
                }
            )
        parent = uid
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    source = load(path, keep_messages=True)
    return extract_sections(source.messages, source.notes)


def _lines(sections: list[Section], name: str) -> tuple[str, ...]:
    return next(s for s in sections if s.name == name).lines


def test_a_git_config_key_named_commit_is_no_commit(tmp_path: Path) -> None:
    """55 F1: ``git config --global commit.gpgsign true`` was read as a commit
    ("Committed: git config ..."), and files edited later as "after the last commit"."""
    sections = _claude(
        tmp_path,
        [
            ("user", "Please enable commit signing."),
            ("bash", ("Bash", {"command": "git config --global commit.gpgsign true"}, "")),
            ("bash", ("Bash", {"command": "git -C /tmp/proj commit -m 'Sign'"}, "")),
        ],
    )
    state = _lines(sections, "state")
    assert state == ("Committed: Sign",), state
    sections = _claude(
        tmp_path,
        [
            ("user", "Please enable commit signing."),
            ("bash", ("Bash", {"command": "git config --global commit.gpgsign true"}, "")),
        ],
    )
    assert not any("ommit" in ln for ln in _lines(sections, "state")), sections


def _gemini(tmp_path: Path, calls: list[tuple[str, dict[str, Any], str]]) -> list[Section]:
    """The sections of a Gemini CLI chat (no session folder noted) asking one thing and
    making `calls` (name, args, output), one message each."""
    messages: list[dict[str, Any]] = [
        {
            "id": "u",
            "timestamp": "2026-01-11T00:00:00.000Z",
            "type": "user",
            "content": "Build the dashboard.",
        }
    ]
    for n, (name, args, output) in enumerate(calls):
        cid = f"{name}-{n}"
        response = {"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}
        messages.append(
            {
                "id": f"g{n}",
                "timestamp": f"2026-01-11T00:01:{n:02d}.000Z",
                "type": "gemini",
                "content": "",
                "toolCalls": [
                    {
                        "id": cid,
                        "name": name,
                        "args": args,
                        "result": [response],
                        "status": "success",
                    }
                ],
            }
        )
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"sessionId": "g", "messages": messages}), encoding="utf-8")
    source = load(path, keep_messages=True)
    return extract_sections(source.messages, source.notes)


def test_a_file_named_by_its_absolute_and_its_relative_path_is_one_file(tmp_path: Path) -> None:
    """55 F2: a Gemini chat (no session folder noted) edited ``/home/u/M/dash/main.py``
    and ``M/dash/main.py`` (relative to /home/u): Files changed listed main.py twice, in
    two folders, with two counts, and Work state named it twice."""
    edit = "replace"
    sections = _gemini(
        tmp_path,
        [
            ("write_file", {"file_path": "M/dash/main.py", "content": "x\n"}, "Created."),
            ("write_file", {"file_path": "M/dash/api.py", "content": "y\n"}, "Created."),
            (
                edit,
                {"file_path": "/home/u/M/dash/main.py", "old_string": "x", "new_string": "z"},
                "Edited.",
            ),
            (
                edit,
                {"file_path": "/home/u/M/dash/api.py", "old_string": "y", "new_string": "w"},
                "Edited.",
            ),
            (
                edit,
                {"file_path": "M/dash/main.py", "old_string": "z", "new_string": "q"},
                "Edited.",
            ),
        ],
    )
    files = _lines(sections, "files")
    assert files == ("- M/dash/: main.py (3 edits), api.py (2 edits)",), files
    state = _lines(sections, "state")
    assert state == (
        "Not committed: no commit in this session after editing M/dash/main.py, M/dash/api.py.",
    ), state


def test_work_state_names_a_file_as_files_changed_does(tmp_path: Path) -> None:
    """55 F6: of one file edited outside the agent's own folder, Work state named it
    by its full path (``/home/u/.config/app/keys``), Files changed by its short one."""
    sections = _gemini(
        tmp_path,
        [
            ("write_file", {"file_path": "/home/u/.config/app/keys", "content": "k\n"}, "Ok."),
            (
                "write_file",
                {"file_path": "/home/u/.gemini/tmp/ab12/scratch", "content": "s"},
                "Ok.",
            ),
        ],
    )
    named = [ln for ln in _lines(sections, "files") if "keys" in ln]
    assert named == ["- .config/app/keys (written)"], _lines(sections, "files")
    assert _lines(sections, "state") == (
        "Not committed: no commit in this session after editing .config/app/keys.",
    ), _lines(sections, "state")


def test_one_earlier_commit_is_said_in_the_singular(tmp_path: Path) -> None:
    """55 F7: of seven commits, Work state said "(1 earlier commits)"."""
    steps: list[tuple[str, Any]] = [("user", "Commit each step.")]
    for n in range(7):
        out = f"[main {n + 1:07x}] Step {n}\n 1 file changed"
        steps.append(("bash", ("Bash", {"command": f"git commit -am 'Step {n}'"}, out)))
    state = _lines(_claude(tmp_path, steps), "state")
    assert state[0] == "(1 earlier commit)", state


def test_a_list_cut_to_fit_loses_its_last_items_never_a_middle_one(tmp_path: Path) -> None:
    """55 F4: Where it stopped kept items 1-4 and 6 of the agent's numbered list (6 says
    a count, so it went in first, and it is short) and dropped the long item 5, with no
    mark: 5 read as not done. A list cut to fit keeps its first items and says how many
    more it had."""
    from chunkscope.engine.recap.sections import fit_sections
    from chunkscope.engine.tokens import get_counter

    items = [
        "**task.1** - dependencies and the bootstrap",
        "**task.2** - header propagation in the hook scripts",
        "**task.3** - controller instrumentation and error spans",
        "**task.4** - the config and trace correlation through the job arguments",
        "**task.5** - the LiveView telemetry handler, the channel's span events for join, "
        "input, resize and the whole stream lifecycle, each with its attributes",
        "**task.6** - 12 new tests",
    ]
    last = "The whole epic is complete.\n\n**Completed:**\n\n" + "\n".join(
        f"{n}. {item}" for n, item in enumerate(items, 1)
    )
    sections = _claude(tmp_path, [("user", "Finish the epic."), ("bot", last)])
    (where,) = (s for s in sections if s.name == "last")
    counter = get_counter()
    marked = False
    for allowance in range(20, 200, 2):
        fitted = fit_sections([where], allowance, counter)
        lines = fitted[0].lines if fitted else ()
        # (the first item's line opens with the list's lead-in, "**Completed:**")
        said = [n for n, item in enumerate(items) if any(item in ln for ln in lines)]
        assert said == list(range(len(said))), (allowance, lines)
        more = [ln for ln in lines if ln.startswith("(and ")]
        if said and len(said) < len(items):
            marked = marked or more == [f"(and {len(items) - len(said)} more items)"]
    assert marked


def test_where_it_stopped_keeps_what_it_refers_back_to(tmp_path: Path) -> None:
    """55 F10: "The patch looks good. It adds support for ..." was said as "It adds
    support for ...": the sentence naming "it" (no content of its own) was dropped."""
    last = (
        "The patch looks good. It adds support for the `header_rows` parameter in the RST "
        "writer class."
    )
    sections = _claude(tmp_path, [("user", "Fix the RST writer."), ("bot", last)])
    assert _lines(sections, "last") == (last,), _lines(sections, "last")


def test_a_subagent_s_line_keeps_what_its_it_refers_back_to(tmp_path: Path) -> None:
    """55 F8: a subagent's result said only its item 3's second sentence, "It won CNN's
    poll in 2011": the sentence naming "it" was dropped."""
    result = (
        "Based on my web search, **Green Curry** and **Red Curry** appear to be the most "
        "popular Thai curries.\n\n## Key Findings\n\n"
        "1. **Green Curry** - Often cited as the most popular Thai curry globally.\n\n"
        "2. **Massaman Curry** - Extremely popular, especially in Western countries. It won "
        "CNN's \"World's 50 Most Delicious Foods\" poll in 2011, ranking #1.\n"
    )
    task = {"description": "Search popular Thai curry", "prompt": "Which curry?"}
    sections = _claude(
        tmp_path,
        [("user", "Which Thai curry is the most popular?"), ("bash", ("Task", task, result))],
    )
    (line,) = _lines(sections, "subagents")
    # the report's answer opens its line (walk 72, F2); "It won" only with what it names
    assert line.startswith("- Search popular Thai curry: Based on my web search,"), line
    assert "It won" not in line or (
        "**Massaman Curry** - Extremely popular, especially in Western countries. It won" in line
    ), line


def test_the_last_check_is_said_once() -> None:
    """55 F12: the last check was said in Last outcome ("Last check: `X` -> 12 passed")
    and again, the same run, in What happened ("Good! Ran `X` (exit 0): 12 passed."); a
    summary left with its filler alone ("Good!") says nothing either. A run of the
    command that printed something else (an earlier one) is still said, and so is a
    command cut short in both (spotter-8463c716's ``bd close``)."""
    from chunkscope.engine.recap.core import Candidate, _deduped
    from chunkscope.engine.summarize import Summary

    command = "cd /testbed && python -m pytest tests/test_raw.py -v 2>&1 | tail -20"
    prefix = f"## Last outcome\nLast check: `{command}` -> 12 passed in 0.21s (exit 0)"

    def said(text: str) -> str:
        (kept,) = _deduped([Candidate(0, Summary(text, text), 1.0)], prefix)
        return kept.summary.summary

    assert said(f"Good! Ran `{command}` (exit 0): 12 passed in 0.21s.") == ""
    two = f"Ran `{command}` (exit 0): 12 passed in 0.21s. 12 tests (was 9), all passing."
    assert said(two) == "12 tests (was 9), all passing."
    earlier = f"Ran `{command}` (exit 1): 3 failed, 9 passed in 0.30s."
    assert said(earlier) == earlier
    other = "Ran `cd /testbed && python -m pytest tests/test_raw.py -x` (exit 0): 12 passed."
    assert said(other) == other
    long = 'bd close spotter-fum.4 --reason="Added regression tests: 9 renderer edge case tests'
    prefix = f"Last check: `{long}...` -> ✓ Closed spotter-fum.4: Added regression tests..."
    cut = f'Ran `{long}, 12 LiveView..."`: ✓ Closed spotter-fum.4: Added regression tests, 12...'
    assert said(cut) == ""


def _codex(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    """A Codex rollout of `items` (response items), after a user's request."""
    user = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Build the operator dashboard."}],
    }
    rows = [
        {"timestamp": f"2026-07-10T18:07:{n:02d}Z", "type": "response_item", "payload": p}
        for n, p in enumerate([user, *items])
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_refused_request_user_input_is_no_answer(tmp_path: Path) -> None:
    """56 F1: Codex's ``request_user_input is unavailable in Default mode`` (the tool's
    refusal: the user never saw the question) read as the user's answer: ``Answered: Q
    -> request_user_input is unavailable ...`` in Task, ``Response: '...'`` collapsed."""
    from chunkscope.engine.recap.collapse import collapse_messages

    question = "Set up custom brand guidelines before I build the operator dashboard?"
    args = {"questions": [{"id": "brand", "question": question, "options": []}]}
    call = {
        "type": "function_call",
        "name": "request_user_input",
        "arguments": json.dumps(args),
        "call_id": "c1",
    }
    out = {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "request_user_input is unavailable in Default mode",
    }
    source = load(_codex(tmp_path, [call, out]), keep_messages=True)
    task = _lines(extract_sections(source.messages, source.notes), "task")
    assert not any(line.startswith("Answered:") for line in task), task
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools == [
        f"Called request_user_input to ask '{question}': request_user_input is unavailable "
        "in Default mode."
    ], tools


def _suite(n: int, failed: int = 0) -> str:
    verdict = "FAILED" if failed else "ok"
    return (
        f"running {n + failed} tests\n\ntest result: {verdict}. {n} passed; {failed} failed; "
        "0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n"
    )


def test_a_multi_suite_cargo_test_says_its_total_or_its_first_failure(tmp_path: Path) -> None:
    """56 F2: Last outcome quoted cargo's last two ``test result:`` lines, the empty
    doc-tests' ``0 passed``, though three suites had passed 2, 3 and 8 tests."""
    from chunkscope.engine.recap.collapse import collapse_call

    command = "cargo fmt --all -- --check && cargo test --workspace"
    out = "Exit code: 0\n" + _suite(2) + _suite(3) + _suite(8) + _suite(0) + _suite(0)
    sections = _claude(
        tmp_path, [("user", "Run the tests."), ("bash", ("Bash", {"command": command}, out))]
    )
    total = "test result: ok. 13 passed; 0 failed; 0 ignored (5 suites)"
    assert _lines(sections, "outcome") == (f"Last check: `{command}` -> {total} (exit 0)",)
    said = collapse_call("Bash", json.dumps({"command": command}), out, agent="claude-code")
    assert said == f"Ran `{command}` (exit 0): {total}", said
    out = "Exit code: 101\n" + _suite(2) + _suite(2, failed=1) + _suite(8) + _suite(0)
    said = collapse_call("Bash", json.dumps({"command": command}), out, agent="claude-code")
    assert said == (
        f"Ran `{command}` (exit 101): test result: FAILED. 2 passed; 1 failed; 0 ignored; "
        "0 measured; 0 filtered out; finished in 0.00s"
    ), said


def test_a_code_mode_web_run_opening_pages_says_them(tmp_path: Path) -> None:
    """56 F4: Codex code mode's ``web__run({"open": [{"ref_id": ...}, ...]})`` read as
    ``Fetched ?.`` (a summary of no words the recap kept): the pages it opened, each
    whole, as a single URL's fetch reads."""
    from chunkscope.engine.recap.collapse import collapse_messages

    pages = [
        "turn5search11",
        "turn5search7",
        "https://solana.com/news/dflow-prediction-markets-api",
        "https://github.com/txodds/tx-on-chain",
        "https://txline.txodds.com/documentation/quickstart",
    ]
    script = (
        "const r = await tools.web__run("
        + json.dumps({"open": [{"ref_id": p} for p in pages], "response_length": "long"})
        + "); text(r);\n"
    )
    call = {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": script}
    out = {"type": "custom_tool_call_output", "call_id": "c1", "output": "Script completed"}
    source = load(_codex(tmp_path, [call, out]), keep_messages=True)
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools == [
        "Fetched turn5search11, turn5search7, https://solana.com/news/dflow-prediction-markets"
        "-api, https://github.com/txodds/tx-on-chain and 1 more."
    ], tools
