"""The recap's procedural sections (engine.recap.sections) and their place in the recap
(engine.recap.core.compose): each extractor on small generated message lists of every
reader's shape and on trimmed real sessions read by the real readers; property tests of
the budget, repeated sentences, pins and exclusions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.core import SUMMARIES_HEADING, Candidate, compose
from chunkscope.engine.recap.sections import (
    Section,
    extract_sections,
    fit_sections,
    render_sections,
)
from chunkscope.engine.summarize import Summary
from chunkscope.engine.summarize.extractive import sentences_of
from chunkscope.engine.tokens import get_counter

FIXTURES = Path(__file__).parent / "fixtures" / "recap"
COUNTER = get_counter()


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": cid,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def bot(text: str = "", *calls: dict[str, Any]) -> dict[str, Any]:
    m: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        m["tool_calls"] = list(calls)
    return m


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def result(cid: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": text, **extra}


def by_name(sections: list[Section]) -> dict[str, tuple[str, ...]]:
    return {s.name: s.lines for s in sections}


# --------------------------------------------------------------------------- per format


def test_claude_code_shapes() -> None:
    msgs = [
        user("Add a --json flag to the export command."),
        bot(
            "",
            call(
                "t1",
                "TodoWrite",
                {
                    "todos": [
                        {"content": "Add flag", "status": "completed", "activeForm": "Adding"},
                        {
                            "content": "Write tests",
                            "status": "in_progress",
                            "activeForm": "Writing",
                        },
                        {"content": "Update docs", "status": "pending", "activeForm": "Updating"},
                    ]
                },
            ),
        ),
        result("t1", "Todos have been modified successfully."),
        bot("", call("t2", "Edit", {"file_path": "/home/u/proj/src/export.py", "old_string": "a"})),
        result("t2", "The file has been updated."),
        bot("", call("t3", "Edit", {"file_path": "/home/u/proj/src/export.py", "old_string": "b"})),
        result("t3", "ok"),
        bot(
            "",
            call("t4", "Write", {"file_path": "/home/u/proj/tests/test_export.py", "content": "x"}),
        ),
        result("t4", "File created."),
        bot("", call("t5", "Bash", {"command": "python -m pytest -q tests/test_export.py"})),
        result("t5", "....\n4 passed in 0.12s"),
        bot("", call("t6", "Bash", {"command": 'git commit -m "Add --json to export"'})),
        result("t6", "[main 1a2b3c4] Add --json to export\n 2 files changed"),
        bot("", call("t7", "Bash", {"command": 'gh pr create --title "Export as JSON" --body x'})),
        result("t7", "https://github.com/o/r/pull/42"),
        bot("The flag works and 4 tests pass. Should I also add a --yaml flag?"),
    ]
    s = by_name(extract_sections(msgs, ["session: Export JSON flag"]))
    assert s["session"] == ("Export JSON flag",)
    assert s["task"] == ("Add a --json flag to the export command.",)
    assert s["plan"] == (
        "- [x] Add flag",
        "- [~] Write tests (in progress)",
        "- [ ] Update docs",
    )
    assert s["files"] == ("- src/export.py (2 edits)", "- tests/test_export.py (written)")
    outcome = "\n".join(s["outcome"])
    assert "Last check: `python -m pytest -q tests/test_export.py` -> 4 passed in 0.12s" in outcome
    state = "\n".join(s["state"])
    assert "Committed 1a2b3c4 on main: Add --json to export" in state
    assert "Opened PR https://github.com/o/r/pull/42: Export as JSON" in state
    assert s["questions"] == ("Should I also add a --yaml flag?",)
    assert s["last"] == ("The flag works and 4 tests pass.",)


def test_codex_shapes() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: app/main.py\n@@\n-a\n+b\n"
        "*** Add File: app/new.py\n+x\n*** End Patch"
    )
    msgs = [
        user("Fix the crash on start."),
        bot(
            "",
            call(
                "c1",
                "update_plan",
                {
                    "explanation": "Crash fix",
                    "plan": [
                        {"step": "Reproduce", "status": "completed"},
                        {"step": "Patch main.py", "status": "in_progress"},
                    ],
                },
            ),
        ),
        result("c1", "Plan updated"),
        bot("", call("c2", "apply_patch", {"input": patch})),
        result("c2", "Success. Updated the following files:\nM app/main.py\nA app/new.py"),
        bot("", call("c3", "shell", {"command": ["bash", "-lc", "cargo test"]})),
        result("c3", "test result: FAILED. 3 passed; 1 failed", exit_code=101),
        user("continue"),
        bot("Still one failing test in app/main.py; the parser rejects empty input."),
    ]
    s = by_name(extract_sections(msgs))
    assert s["plan"] == ("- [x] Reproduce", "- [~] Patch main.py (in progress)", "Crash fix")
    assert s["files"] == ("- app/: main.py (1 edit), new.py (1 edit)",)  # a folder said once
    assert s["outcome"] == (
        "Last check: `cargo test` -> test result: FAILED. 3 passed; 1 failed (exit 101)",
    )
    assert s["task"] == ("Fix the crash on start.",)  # "continue" is no request
    assert s["questions"] == ()


def test_gemini_cli_shapes() -> None:
    msgs = [
        user("Rename the config loader."),
        bot(
            "",
            call(
                "g1",
                "write_todos",
                {
                    "todos": [
                        {"description": "Rename loader", "status": "completed"},
                        {"description": "Fix imports", "status": "pending"},
                    ]
                },
            ),
        ),
        result("g1", "ok"),
        bot("", call("g2", "replace", {"file_path": "src/config.ts", "old_string": "a"})),
        result("g2", "ok"),
        bot("", call("g3", "write_file", {"file_path": "src/loader.ts", "content": "x"})),
        result("g3", "ok"),
        bot("", call("g4", "run_shell_command", {"command": "npm test"})),
        result("g4", "Tests: 12 passed, 12 total"),
    ]
    s = by_name(extract_sections(msgs))
    assert s["plan"] == ("- [x] Rename loader", "- [ ] Fix imports")
    assert s["files"] == ("- src/: config.ts (1 edit), loader.ts (written)",)
    assert s["outcome"] == ("Last check: `npm test` -> Tests: 12 passed, 12 total",)


def _text_actions() -> list[dict[str, Any]]:
    """An older text-only mini-swe-agent trajectory: each command fenced in the answer,
    its output a user message."""
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        user(
            "<pr_description>\nParser drops the last line.\n</pr_description>\n"
            "<instructions>long</instructions>"
        ),
        bot("THOUGHT: edit it.\n\n```bash\nsed -i 's/a/b/' src/parse.py\n```"),
        user("<returncode>0</returncode>\n<output>\n</output>"),
        bot("THOUGHT: test.\n\n```bash\npython -m pytest tests/test_parse.py\n```"),
        user("<returncode>1</returncode>\n<output>\n1 failed, 9 passed in 0.3s\n</output>"),
        bot("```bash\ngit diff\n```"),
        user(
            "<returncode>0</returncode>\n<output>\ndiff --git a/src/lib.py b/src/lib.py\n</output>"
        ),
        bot("```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```"),
    ]


#: What the recap says of `_text_actions`.
_TEXT_ACTIONS_SAID = {
    "task": ("Parser drops the last line.",),
    # a file a diff shows comes first: it is what the work leaves changed
    "files": ("- src/: lib.py (in the diff), parse.py (1 edit)",),
    "outcome": (
        "Last check: `python -m pytest tests/test_parse.py` -> 1 failed, 9 passed in 0.3s (exit 1)",
        "Submitted the work (the agent's final action).",
    ),
}


def test_mini_swe_agent_text_actions() -> None:
    s = by_name(extract_sections(_text_actions()))
    assert {k: s[k] for k in _TEXT_ACTIONS_SAID} == _TEXT_ACTIONS_SAID


def test_mini_swe_agent_output_of_a_call_is_read_like_the_text_actions() -> None:
    """A newer trajectory's call gets the same output back (``<returncode>``, then
    ``<output>``): the outcome said "-> </output>" (its last line), never the return code."""
    msgs = [
        user("Fix L003."),
        bot("", call("c1", "bash", {"command": "pytest test/rules -x 2>&1 | tail -30"})),
        result(
            "c1", "<returncode>0</returncode>\n<output>\nE   SyntaxError: bad f-string\n</output>"
        ),
    ]
    assert by_name(extract_sections(msgs))["outcome"] == (
        "Last check: `pytest test/rules -x 2>&1 | tail -30` -> "
        "E SyntaxError: bad f-string (exit 0)",
    )


def test_mini_swe_agent_commands_read_as_calls_say_the_same(tmp_path: Path) -> None:
    """The reader gives the fenced commands that ran as calls and their outputs as the
    tool's (walk 17, 1), as newer trajectories hold them: the recap reads the same
    commands, outputs and return codes from them as from the text."""
    path = tmp_path / "old.traj.json"
    path.write_text(json.dumps(_text_actions()))
    messages = load(path).messages
    assert [m["role"] for m in messages].count("tool") == 3
    assert sum(len(m.get("tool_calls") or []) for m in messages) == 4
    s = by_name(extract_sections(messages))
    assert {k: s[k] for k in _TEXT_ACTIONS_SAID} == _TEXT_ACTIONS_SAID


def test_code_blocks_are_actions_only_in_a_log_without_tool_calls() -> None:
    msgs = [
        user("Add the exporter."),
        bot("", call("e1", "Edit", {"file_path": "src/export.py", "old_string": "a"})),
        result("e1", "ok"),
        bot("Done. To try it:\n\n```bash\ncat > demo.txt <<'EOF'\nx\nEOF\npytest -q\n```"),
    ]
    s = by_name(extract_sections(msgs))
    assert s["files"] == ("- src/export.py (1 edit)",)
    assert s["outcome"] == ()


def test_seed_tools() -> None:
    msgs = [
        user("Write the notes file."),
        bot("", call("s1", "write", {"path": "notes.md", "content": "a\nb"})),
        result("s1", "ok"),
        bot("", call("s2", "edit", {"path": "notes.md", "old": "a", "new": "c"})),
        result("s2", "ok"),
        bot("", call("s3", "done", {"summary": "Wrote notes.md with two sections."})),
        result("s3", ""),
        bot("", call("s4", "ask", {"message": "Keep the old notes?"})),
    ]
    s = by_name(extract_sections(msgs))
    assert s["files"] == ("- notes.md (2 edits)",)
    assert s["outcome"] == ("Finished: Wrote notes.md with two sections.",)
    assert s["questions"] == ("Keep the old notes?",)


def test_failed_commit_and_answered_question() -> None:
    msgs = [
        user("Commit it."),
        bot("", call("a", "Bash", {"command": "git commit -m 'wip'"})),
        result("a", "error: pre-commit hook failed", is_error=True),
        bot("Done? Anything else?"),
        user("No, thanks for the work so far."),
        bot("", call("b", "AskUserQuestion", {"questions": [{"question": "Push now?"}]})),
        result("b", "yes"),
    ]
    s = by_name(extract_sections(msgs))
    assert s["outcome"][0].startswith("Commit failed: wip")
    assert s["questions"] == ()  # answered, and the earlier question was before a reply


def test_requests_are_cleaned() -> None:
    msgs = [
        user("<system-reminder>be nice</system-reminder>Refactor the cache."),
        user("/clear"),
        user("<task-notification><status>completed</status></task-notification>"),
        user("yes"),
        user("Also move the tests into tests/cache/."),
    ]
    s = by_name(extract_sections(msgs))
    assert s["task"] == ("Refactor the cache.", "Later: Also move the tests into tests/cache/.")


def test_report_before_a_notification_is_where_it_stopped() -> None:
    msgs = [
        user("Ship the release."),
        bot("Released v2.1.0: 157 tests pass and the tag is pushed."),
        user("<task-notification><status>completed</status></task-notification>"),
        bot("That notification is from an old background run; no action needed."),
    ]
    s = by_name(extract_sections(msgs))
    assert s["last"][0] == "Released v2.1.0: 157 tests pass and the tag is pushed."


def test_aider_history(tmp_path: Path) -> None:
    from tests.data.make_reader_fixtures import make_fixtures

    source = load(make_fixtures(tmp_path)["aider"])
    assert source.format == "aider"
    s = by_name(extract_sections(source.messages, source.notes))
    assert "- engine/cache.py (1 edit)" in s["files"]
    outcome = "\n".join(s["outcome"])
    assert "Committed 1a2b3c4: fix: include the model in the cache key" in s["state"]
    assert "Last check: `pytest -q` -> " in outcome
    assert all(not line.startswith("Later: /run") for line in s["task"])


# --------------------------------------------------------------------------- real sessions


def test_real_claude_code_session() -> None:
    source = load(FIXTURES / "claude_spotter_tool_heavy.jsonl")
    s = by_name(extract_sections(source.messages, source.notes))
    assert s["task"][0] == "start phoenix in background"
    assert any("xterm.js" in line for line in s["task"][1:])
    assert all("/mcp" not in line for line in s["task"])  # a bare slash command


def test_real_codex_session() -> None:
    source = load(FIXTURES / "codex_rtchess_tail.jsonl")
    assert source.format == "codex"
    s = by_name(extract_sections(source.messages, source.notes))
    assert "cooldown" in s["task"][0]
    assert "export_development_history.py" in s["task"][-1]
    assert s["files"][0].startswith("- export_development_history.py")


def test_real_mini_swe_agent_trajectory() -> None:
    source = load(FIXTURES / "mini_swe_django_11099.traj.json")
    s = by_name(extract_sections(source.messages, source.notes))
    # the issue itself, without the line that introduces it
    assert s["task"][0].startswith("UsernameValidator allows trailing newline")
    assert s["files"][0] == "- django/contrib/auth/validators.py (in the diff)"
    assert "Submitted the work (the agent's final action)." in s["outcome"]


# --------------------------------------------------------------------------- fitting


def test_fit_sections_keeps_priorities_within_the_allowance() -> None:
    sections = [
        Section("task", ("Build the exporter for every format we read.",), (0,)),
        Section("files", tuple(f"- src/f{i}.py (1 edit)" for i in range(40))),
        Section("plan", ("- [x] old step", "- [~] current step (in progress)"), (2, 0)),
    ]
    fitted = fit_sections(sections, 200, COUNTER)
    text = render_sections(fitted)
    assert COUNTER.count(text) <= 200
    assert "Build the exporter" in text and "current step" in text
    assert "- src/f0.py" in text and "- src/f39.py" not in text
    assert fit_sections(sections, 0, COUNTER) == []


def test_a_long_first_request_is_cut_not_dropped() -> None:
    request = "Port the parser to Rust and keep every test passing. " * 20
    sections = [Section("task", (request.strip(),), (0,)), Section("files", ("- a.py (1 edit)",))]
    fitted = fit_sections(sections, 120, COUNTER)
    task = next(s for s in fitted if s.name == "task")
    assert task.lines[0].startswith("Port the parser to Rust") and task.lines[0].endswith("...")
    assert COUNTER.count(render_sections(fitted)) <= 120


# --------------------------------------------------------------------------- properties

_WORDS = st.sampled_from(
    [
        "cache",
        "parser",
        "vector",
        "budget",
        "merge",
        "token",
        "sqlite",
        "theme",
        "file",
        "test",
        "commit",
        "plan",
    ]
)
_SENTENCE = st.lists(_WORDS, min_size=2, max_size=9).map(lambda w: " ".join(w).capitalize() + ".")
_LINES = st.lists(_SENTENCE, min_size=0, max_size=6)
_NAMES = st.sampled_from(["task", "plan", "files", "outcome", "last", "questions", "session"])


@st.composite
def _recaps(draw: st.DrawFn) -> tuple[list[Candidate], list[Section], int, set[int], set[int]]:
    sections = [
        Section(name, tuple(draw(_LINES)))
        for name in draw(st.lists(_NAMES, unique=True, max_size=7))
    ]
    n = draw(st.integers(0, 6))
    cands = []
    for i in range(n):
        text = " ".join(draw(st.lists(_SENTENCE, min_size=1, max_size=4)))
        cands.append(Candidate(i, Summary(text, text), (i + 1) / n, "09:00:00 - 09:01:00"))
    pinned = set(draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=2))) if n else set()
    excluded = set(draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=2))) if n else set()
    return cands, sections, draw(st.integers(1, 400)), pinned, excluded


def _sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.strip().lstrip("-#*> ").strip()
        line = re.sub(r"^[A-Z][\w ]{0,24}: ", "", line)
        if line and not re.fullmatch(r"\d\d:\d\d:\d\d - \d\d:\d\d:\d\d", line):
            out += [" ".join(s.lower().split()).rstrip(".") for s in sentences_of(line)]
    return out


@settings(max_examples=60, deadline=None)
@given(_recaps(), st.booleans())
def test_compose_properties(
    case: tuple[list[Candidate], list[Section], int, set[int], set[int]], headings: bool
) -> None:
    cands, sections, budget, pinned, excluded = case
    sel = compose(cands, sections, budget, COUNTER, pinned, excluded, headings)
    # the budget holds whatever the sections (only a lone summary may be forced in)
    if sel.newest_over_budget:
        assert not sel.sections  # no section fits: the seed's rule for a lone summary
    else:
        assert COUNTER.count(sel.text) <= budget
        assert sel.used_tokens == COUNTER.count(sel.text)
    # no sentence twice
    said = _sentences(sel.text)
    assert len(said) == len(set(said)), sel.text
    # exclusions are never shown; a pin that fits on its own is shown
    picked = {c.index for c in sel.selected}
    assert not picked & excluded
    for c in sel.candidates:
        if c.index in excluded:
            assert c.reason == "excluded"
    # the task comes before anything else: it is shown, or (not even its first word
    # fits) nothing is, and the recap says so
    if any(s.name == "task" and s.lines for s in sections):
        assert sel.task_left_out or "## Task\n" in sel.text, sel.text
        assert not sel.task_left_out or sel.text == ""
    pins = sorted(pinned - excluded)
    if pins and not any(s.name == "task" and s.lines for s in sections):  # the task first
        alone = compose([cands[i] for i in pins], [], budget, COUNTER, pins, [], headings)
        if not alone.newest_over_budget and all(c.selected for c in alone.candidates):
            shown = {c.index: c.reason for c in sel.candidates}
            for i in pins:  # picked, or said already (every sentence in the sections)
                assert i in picked or shown[i] == "said already", (i, sel.text)
    # the sections shown are the ones reported, in the text
    for s in sel.sections:
        assert s.render() in sel.text
    if any(c.text for c in sel.selected) and sel.sections:
        assert SUMMARIES_HEADING in sel.text


# Characters where markdown's line patterns and tiktoken's pieces meet (issue 34).
_MARKS = [*"aZ1 #=-*>.'!\t\r\n\x1b\u202e", "## ", "- ", "1. ", "> ", "===", "---", "'s", "😀"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_MARKS), max_size=10).map("".join), max_size=6))
def test_a_line_made_literal_alone_is_as_among_the_others(lines: list[str]) -> None:
    """`literal_markdown_line` makes each line what `literal_markdown` makes of it in the
    joined text, or says it cannot (a line that is not printable)."""
    from chunkscope.engine.textutil import literal_markdown, literal_markdown_line

    made = [literal_markdown_line(line, among_others=len(lines) > 1) for line in lines]
    if all(m is not None for m in made):
        assert "\n".join(m for m in made if m is not None) == literal_markdown("\n".join(lines))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([*_MARKS, "\n\n", "<|endoftext|>"]), max_size=8).map("".join),
        max_size=6,
    ),
    st.lists(st.sampled_from(["\n", "\n\n", " \n", "\t\n", " ", ""]), max_size=6),
)
def test_counts_joined_from_their_parts_are_the_whole_texts(
    texts: list[str], joins: list[str]
) -> None:
    """`TokenCounter.count_joined` gives the count of the joined text, exact and
    approximate, whatever the texts and joins (it adds the parts' counts only where the
    pieces fall apart)."""
    from chunkscope.engine.tokens import TokenCounter

    seps = (joins + ["\n"] * len(texts))[: max(len(texts) - 1, 0)]
    whole = "".join(t + j for t, j in zip(texts, [*seps, ""][: len(texts)], strict=True))
    for counter in (get_counter(), TokenCounter("no_such_encoding")):
        assert counter.count_joined(texts, seps) == counter.count(whole)
        if texts:
            assert counter.count_joined(texts) == counter.count("\n\n".join(texts))


def test_fitting_counts_the_recap_from_its_lines() -> None:
    """`fit_sections` counts a trial from its lines' counts (`TokenCounter.count_joined`),
    not by encoding the whole recap again at each of its trials, and keeps the same
    lines as counting each trial whole does."""
    from chunkscope.engine.tokens import TokenCounter

    lines = tuple(
        f"- step {i}: build parser {i} for {i * 7} files, then run check {i}" for i in range(60)
    )
    sections = [Section("task", lines, tuple(range(60))), Section("last", ("- done.",), (0,))]

    class Spy:
        """The encoding, counting the characters it encodes."""

        def __init__(self, encoding: Any) -> None:
            self.encoding, self.chars = encoding, 0

        def encode(self, text: str, **kwargs: Any) -> Any:
            self.chars += len(text)
            return self.encoding.encode(text, **kwargs)

    class Whole:
        """A counter without `count_joined`: each trial's text counted whole."""

        def __init__(self) -> None:
            self.counter = TokenCounter()

        def count(self, text: str) -> int:
            return self.counter.count(text)

    whole = Whole()
    whole_spy = whole.counter._encoding = Spy(whole.counter._encoding)
    want = render_sections(fit_sections(sections, 400, whole))
    joined = TokenCounter()
    joined_spy = joined._encoding = Spy(joined._encoding)
    assert render_sections(fit_sections(sections, 400, joined)) == want
    assert joined_spy.chars * 3 < whole_spy.chars
