"""Tool-call collapsing (log-format.md section 6): every row of the table, robustness."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns
from chunkscope.engine.model import Turn
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import Message
from chunkscope.engine.recap.collapse import (
    collapse_call,
    collapse_messages,
    collapsed_tool,
    consequential_indices,
    count_consequential,
    is_consequential,
)

TS = "2026-02-13T11:25:17"


def call(cid: str | None, name: str | None, arguments: Any, ts: str = TS) -> dict[str, Any]:
    tc: dict[str, Any] = {"type": "function", "function": {"arguments": arguments}}
    if cid is not None:
        tc["id"] = cid
    if name is not None:
        tc["function"]["name"] = name
    return {"role": "assistant", "content": "", "tool_calls": [tc], "timestamp": ts}


def result(cid: str | None, content: Any, ts: str = "2026-02-13T11:25:19") -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "tool", "content": content, "timestamp": ts}
    if cid is not None:
        msg["tool_call_id"] = cid
    return msg


def one(name: str, args: Any, content: Any) -> str | None:
    """The single Tool sentence a call + result collapse to (None when dropped)."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    turns = collapse_messages([call("c1", name, arguments), result("c1", content)])
    tool = [t for t in turns if t.role == "Tool"]
    assert len(tool) <= 1
    return tool[0].text if tool else None


# --------------------------------------------------------------------------- the table


def test_status_is_dropped() -> None:
    assert one("status", {}, "Session 14 | budget 1,180,000 tokens") is None


def test_read_counts_result_lines() -> None:
    assert one("read", {"path": "foo.py"}, "a\nb\nc") == "Read foo.py (3 lines)."
    assert one("read", {"path": "foo.py"}, "a\nb\nc\n") == "Read foo.py (3 lines)."
    assert one("read", {"path": "x.md"}, "only") == "Read x.md (1 line)."


def test_ls_shows_first_five_non_blank_lines() -> None:
    listing = "a\n\nb\n  c  \nd\ne\nf\ng"
    assert one("ls", {"path": "src"}, listing) == "Listed src: a, b, c, d, e, ..."
    assert one("ls", {"path": "src"}, "a\nb\n") == "Listed src: a, b"
    assert one("ls", {}, "a\nb\nc\nd\ne") == "Listed .: a, b, c, d, e"


def test_recall_counts_memories() -> None:
    header = "Recalled 3 memories:\n#1 one\n#2 two\n#3 three"
    assert one("recall", {"query": "cache"}, header) == "Recalled 3 memories about 'cache'."
    numbered = "#88 (2026-02-06) one\n#91 (2026-02-09) two"
    assert one("recall", {"query": "q"}, numbered) == "Recalled 2 memories about 'q'."
    dashed = "result1\n---\nresult2\n---\nresult3"
    assert one("recall", {"query": "python"}, dashed) == "Recalled 3 memories about 'python'."
    assert one("recall", {"query": "q"}, "Recalled 1 memory:\n#64 x") == (
        "Recalled 1 memory about 'q'."
    )
    assert one("recall", {"query": "q"}, "") == "Recalled 0 memories about 'q'."


def test_recall_detail() -> None:
    assert one("recall_detail", {"chunk_id": 42}, "full text") == (
        "Retrieved full text of memory #42."
    )
    assert one("recall_detail", {"chunk_id": "7"}, "x") == "Retrieved full text of memory #7."


def test_edit() -> None:
    args = {"path": "bar.py", "old": "x", "new": "y"}
    assert one("edit", args, "Edited bar.py: replaced 1 occurrence") == "Edited bar.py."


def test_write_counts_written_lines() -> None:
    args = {"path": "new.py", "content": "x\ny\nz\n"}
    assert one("write", args, "Wrote 3 lines to new.py") == "Wrote new.py (3 lines)."
    assert one("write", {"path": "e.txt", "content": ""}, "ok") == "Wrote e.txt (0 lines)."


def test_remember_keeps_the_whole_abstract() -> None:
    abstract = "A long abstract " * 20
    assert one("remember", {"abstract": abstract, "text": "t"}, "Stored memory #98.") == (
        f"Remembered: '{abstract}'."
    )
    assert one("remember", {"text": "only text"}, "ok") == "Remembered: 'only text'."


def test_ask_cuts_the_response_at_120_chars() -> None:
    short = one("ask", {"message": "what next?"}, "do X")
    assert short == "Asked user: 'what next?'. Response: 'do X'."
    long_answer = "word " * 60
    text = one("ask", {"message": "where?"}, long_answer)
    assert text is not None
    response = text.split("Response: '", 1)[1][: -len("'.")]
    assert response.endswith("...")
    assert len(response) == 120 + 3
    exactly = "y" * 120
    assert one("ask", {"message": "m"}, exactly) == f"Asked user: 'm'. Response: '{exactly}'."


def test_run_cuts_the_result_and_folds_newlines() -> None:
    out = "....F. [100%]\n" + "=" * 200
    text = one("run", {"command": "pytest -q"}, out)
    assert text is not None
    assert text.startswith("Ran `pytest -q`: ....F. [100%] ===")
    assert "\n" not in text
    assert text.endswith("...")
    assert len(text) == len("Ran `pytest -q`: ") + 120 + 3
    assert one("run", {"command": "true"}, "OK\n") == "Ran `true`: OK"


def test_done_uses_the_summary() -> None:
    assert one("done", {"summary": "all done"}, "Session marked as done.") == (
        "Finished: 'all done'."
    )
    assert one("done", {}, "marked done") == "Finished: 'marked done'."


def test_any_other_tool_shows_compact_json() -> None:
    assert one("grep", {"pattern": "x", "path": "."}, "hits") == (
        'Called grep({"pattern":"x","path":"."}).'
    )


def test_the_readable_form_shows_an_other_tool_as_the_readers_do() -> None:
    """The default pipeline's form: no JSON, no doubled backslash (the seed's
    function, `collapse_messages` without `readable`, keeps the reference's text)."""
    args = json.dumps({"query": "ochre sea star \\[tag]"})
    msgs = [call("c1", "search_web", args), result("c1", "hits")]
    assert [t.text for t in collapse_messages(msgs, readable=True)] == [
        'Called search_web "ochre sea star \\[tag]".'
    ]
    assert [t.text for t in collapse_messages(msgs)] == [
        'Called search_web({"query":"ochre sea star \\\\[tag]"}).'
    ]
    # walk 18, 9: a shell of the seed's format said "Called shell: $ ls -la src." (a period
    # glued to the command, its output dropped): it runs as other readers' shells do
    sh = [call("c1", "shell", json.dumps({"command": "ls -la src"})), result("c1", "a.py\nb.py")]
    (turn,) = collapse_messages(sh, readable=True)
    assert turn.text == "Ran `ls -la src`: a.py b.py"
    (seed,) = collapse_messages(sh)
    assert seed.text == 'Called shell({"command":"ls -la src"}).'
    # another tool whose one argument is a command: the command as typed, no period after it
    ex = [call("c1", "execute", json.dumps({"command": "ls src"})), result("c1", "x")]
    (turn,) = collapse_messages(ex, readable=True)
    assert turn.text == "Called execute: $ ls src"
    assert collapsed_tool(turn) == "other"


def test_another_agent_s_question_and_mcp_calls_read_as_the_raw_view_shows_them() -> None:
    """AskUserQuestion showed its questions as JSON (``Asked user: '[{"question":...``) and
    an MCP tool its arguments as JSON: the question texts, the answers alone, and the
    arguments as `engine.toolcall.format_call` shows them."""
    mcp = collapse_call(
        "mcp__github__search_issues",
        '{"query":"login bug","repo":"acme/web"}',
        "3 issues",
        agent="claude-code",
    )
    assert mcp == 'Called search_issues on github: "login bug" repo=acme/web.'
    assert collapse_call("mcp__github__list", "{}", "", agent="claude-code") == (
        "Called list on github."
    )
    questions = {
        "questions": [
            {"question": "Which rig?", "header": "Rig", "options": [{"label": "none"}]},
            {"question": "Which tools?", "header": "Tools", "multiSelect": True},
        ]
    }
    answered = 'User has answered your questions: "Which rig?"="No rig", "Which tools?"="Credo".'
    asked = collapse_call("AskUserQuestion", json.dumps(questions), answered, agent="claude-code")
    assert asked == "Asked user: 'Which rig? Which tools?'. Response: 'No rig; Credo'."
    assert collapsed_tool(Turn(None, "Tool", asked, 1, 0)) == "ask"
    # a list argument of another agent's tool: as the raw view writes it, not JSON
    task = collapse_call("Task", {"description": ["lint", "types"]}, "ok", agent="claude-code")
    assert task == "Delegated to a subagent: '[lint, types]'. Result: 'ok'."
    # the seed's own tools keep the reference's text, bit for bit
    assert one("ask", {"message": ["a", "b"]}, "yes") == (
        """Asked user: '["a","b"]'. Response: 'yes'."""
    )


def test_the_pipeline_collapses_readably_except_in_seed_mode(tmp_path: Any) -> None:
    from dataclasses import replace

    from chunkscope.engine.pipeline import Pipeline, PipelineParams

    path = tmp_path / "s.jsonl"
    args = json.dumps({"query": "sea star"})
    lines = [call("c1", "search_web", args), result("c1", "hits")]
    path.write_text("\n".join(json.dumps(m) for m in lines) + "\n")
    pipe = Pipeline(path, PipelineParams(collapse=True))
    assert [t.text for t in pipe.turns()] == ['Called search_web "sea star".']
    seed = pipe.with_params(merge=replace(pipe.params.merge, mode="seed"))
    assert [t.text for t in seed.turns()] == ['Called search_web({"query":"sea star"}).']


# --------------------------------------------------------------------------- messages


def test_roles_order_timestamps_and_lines() -> None:
    msgs = [
        Message({"role": "system", "content": "[stats] 10 messages", "timestamp": TS}, 1),
        Message({"role": "user", "content": "Fix the cache.", "timestamp": TS}, 2),
        Message(
            {
                "role": "assistant",
                "content": "Reading it first.",
                "reasoning": "I should look at the file.",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                    }
                ],
                "timestamp": "2026-02-13T11:26:00",
            },
            3,
        ),
        Message(
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": "x\ny",
                "timestamp": "2026-02-13T11:26:02",
            },
            5,
        ),
        Message({"role": "system", "content": "Warning: 80% of token budget used"}, 6),
        Message({"role": "user", "content": "   ", "timestamp": TS}, 7),
        Message({"role": "assistant", "content": "", "timestamp": TS}, 8),
    ]
    turns = collapse_messages(msgs)
    assert [(t.role, t.text) for t in turns] == [
        ("You", "Fix the cache."),
        ("Bot thinking", "I should look at the file."),
        ("Bot", "Reading it first."),
        ("Tool", "Read a.py (2 lines)."),
    ]
    assert [t.source_line for t in turns] == [2, 3, 3, 5]
    assert [t.turn_index for t in turns] == [0, 1, 2, 3]
    assert turns[1].timestamp == datetime(2026, 2, 13, 11, 26, 0)
    assert turns[3].timestamp == datetime(2026, 2, 13, 11, 26, 2)


def test_plain_dicts_have_no_source_line() -> None:
    turns = collapse_messages([{"role": "user", "content": "hi", "timestamp": TS}])
    assert turns == [Turn(datetime(2026, 2, 13, 11, 25, 17), "You", "hi", None, 0)]


def test_every_system_message_is_dropped() -> None:
    msgs = [
        {"role": "system", "content": c}
        for c in ("[stop] done", "[stats] x", "Warning: 80%", "Reflect on your progress.")
    ]
    assert collapse_messages(msgs) == []


# --------------------------------------------------------------------------- robustness


def test_arguments_that_are_not_json() -> None:
    assert one("read", "{not json", "a\nb") == "Read ? (2 lines)."
    assert one("frob", "{not json", "") == "Called frob({not json)."


def test_arguments_that_are_json_but_not_an_object() -> None:
    assert one("edit", "[1, 2]", "ok") == "Edited ?."
    assert one("ls", '"src"', "a") == "Listed .: a"
    assert one("frob", "[1, 2]", "") == "Called frob([1,2])."


def test_arguments_missing_or_already_an_object() -> None:
    turns = collapse_messages(
        [
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "edit"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ]
    )
    assert [t.text for t in turns] == ["Edited ?."]
    turns = collapse_messages(
        [call("c1", "edit", {"path": "obj.py"}), result("c1", "ok")]  # an object, not a string
    )
    assert [t.text for t in turns] == ["Edited obj.py."]


def test_call_without_id_matches_result_without_id() -> None:
    turns = collapse_messages(
        [call(None, "edit", '{"path": "a.py"}'), result(None, "ok"), result(None, "again")]
    )
    assert [t.text for t in turns] == ["Edited a.py."]


def test_call_without_name() -> None:
    assert [t.text for t in collapse_messages([call("c1", None, "{}"), result("c1", "x")])] == [
        "Called ?({})."
    ]


def test_result_without_content() -> None:
    msgs = [call("c1", "read", '{"path": "e.md"}'), {"role": "tool", "tool_call_id": "c1"}]
    assert [t.text for t in collapse_messages(msgs)] == ["Read e.md (0 lines)."]


def test_orphan_and_duplicate_results_are_dropped() -> None:
    msgs = [
        result("nope", "file contents that must not appear"),
        call("c1", "edit", '{"path": "a.py"}'),
        result("c1", "ok"),
        result("c1", "a second answer to the same call"),
    ]
    assert [t.text for t in collapse_messages(msgs)] == ["Edited a.py."]


def test_multi_part_content() -> None:
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "part one"}, {"type": "image"}]},
        call("c1", "read", '{"path": "p.md"}'),
        result("c1", [{"type": "text", "text": "l1\nl2"}, {"type": "text", "text": "l3"}]),
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]
    assert [t.text for t in collapse_messages(msgs)] == [
        "part one",
        "Read p.md (3 lines).",
        "done",
    ]


def test_malformed_calls_and_messages_do_not_crash() -> None:
    msgs: list[Any] = [
        {"role": "assistant", "content": "hi", "tool_calls": "not a list"},
        {"role": "assistant", "content": None, "tool_calls": [None, 3, {"function": "x"}]},
        {"role": "user", "content": "bad time", "timestamp": "yesterday"},
        {"no": "role"},
        "not a message",
        {"role": "tool", "tool_call_id": "zzz", "content": "orphan without any call"},
    ]
    turns = collapse_messages(msgs)
    assert [(t.role, t.text, t.timestamp) for t in turns] == [
        ("Bot", "hi", None),
        ("You", "bad time", None),
    ]


# --------------------------------------------------------------------------- actions


def test_collapsed_tool_recognises_each_sentence() -> None:
    cases = {
        "read": ("read", {"path": "a"}, "x"),
        "ls": ("ls", {"path": "a"}, "x"),
        "recall": ("recall", {"query": "q"}, "#1 x"),
        "recall_detail": ("recall_detail", {"chunk_id": 1}, "x"),
        "edit": ("edit", {"path": "a"}, "ok"),
        "write": ("write", {"path": "a", "content": "x"}, "ok"),
        "remember": ("remember", {"abstract": "a"}, "ok"),
        "ask": ("ask", {"message": "m"}, "r"),
        "run": ("run", {"command": "c"}, "out"),
        "done": ("done", {"summary": "s"}, "ok"),
        "other": ("frob", {"x": 1}, "ok"),
    }
    for expected, (name, args, content) in cases.items():
        text = one(name, args, content)
        assert text is not None
        assert collapsed_tool(Turn(None, "Tool", text)) == expected, text
    assert collapsed_tool(Turn(None, "Bot", "Edited a.py.")) is None


def test_consequential_counts_per_chunk() -> None:
    msgs = [
        {"role": "user", "content": "go"},
        call("c1", "edit", '{"path": "a.py"}'),
        result("c1", "ok"),
        call("c2", "read", '{"path": "a.py"}'),
        result("c2", "x"),
        call("c3", "remember", json.dumps({"abstract": "first\n\nsecond paragraph"})),
        result("c3", "ok"),
        call("c4", "ask", '{"message": "ok?"}'),
        result("c4", "yes"),
        call("c5", "write", '{"path": "b.py", "content": "x"}'),
        result("c5", "ok"),
        call("c6", "run", '{"command": "pytest"}'),
        result("c6", "Wrote everything"),
    ]
    turns = collapse_messages(msgs)
    flags = [is_consequential(t) for t in turns]
    assert flags == [False, True, False, True, True, True, False]
    indices = consequential_indices(turns)
    assert indices == frozenset({1, 3, 4, 5})
    chunks = chunk_turns(turns)  # the remember turn is split in two paragraphs
    assert len(chunks) == 2
    total = sum(count_consequential(c.turns, indices) for c in chunks)
    assert total == 5  # the split remember turn counts in both chunks that hold a piece
    assert count_consequential(chunks[0].turns, indices) == 2
    assert count_consequential(chunks[1].turns, indices) == 3
    assert count_consequential(turns) == 4


# --------------------------------------------------------------------------- properties

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)
_TOOL_NAMES = "status read ls recall recall_detail edit write remember ask run done frob"
_names = st.sampled_from([*_TOOL_NAMES.split(), ""])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            _names,
            st.one_of(_json_values.map(json.dumps), st.text(max_size=30), _json_values),
            st.one_of(st.text(max_size=200), st.none(), _json_values),
            st.booleans(),
        ),
        max_size=8,
    )
)
def test_any_calls_collapse_to_recognised_one_liners(
    items: list[tuple[str, Any, Any, bool]],
) -> None:
    msgs: list[dict[str, Any]] = []
    for i, (name, arguments, content, answered) in enumerate(items):
        msgs.append(call(f"c{i}", name, arguments))
        if answered:
            msgs.append(result(f"c{i}", content))
    turns = collapse_messages(msgs)
    tools = [t for t in turns if t.role == "Tool"]
    expected = sum(1 for name, _, _, answered in items if answered and name != "status")
    assert len(tools) == expected
    assert [t.turn_index for t in turns] == list(range(len(turns)))
    for t in tools:
        assert collapsed_tool(t) is not None, t.text


def test_collapse_call_is_the_sentence_of_one_pair() -> None:
    assert collapse_call("status", "{}", "x") is None
    assert collapse_call("edit", '{"path": "p"}', "") == "Edited p."


@pytest.mark.parametrize("bad", ["", "   ", "null"])
def test_blank_or_null_arguments(bad: str) -> None:
    assert one("read", bad, "a") == "Read ? (1 line)."


SAMPLE_LOGS = sorted((Path(__file__).resolve().parents[1] / "sample_logs").glob("*.jsonl"))


@pytest.mark.parametrize("path", SAMPLE_LOGS, ids=lambda p: p.name)
def test_collapsed_turn_lines_contain_the_calls_line(path: Path) -> None:
    """Issue 35: a collapsed tool call's chunk lines start at the record holding the
    call (its ``tool_calls``) and end at its result's, in the chunks the CLI and the
    workbench show."""
    records = [json.loads(x) if x.strip() else None for x in path.read_text().splitlines()]
    call_line: dict[str, int] = {}
    for n, rec in enumerate(records, 1):
        if isinstance(rec, dict) and rec.get("role") == "assistant":
            for tc in rec.get("tool_calls") or []:
                call_line[str(tc.get("id"))] = n
    result_call = {
        n: call_line[ref]
        for n, rec in enumerate(records, 1)
        if isinstance(rec, dict)
        and rec.get("role") == "tool"
        and (ref := str(rec.get("tool_call_id"))) in call_line
    }
    pipe = Pipeline(path, PipelineParams(collapse=True))
    checked = 0
    for chunk in pipe.compacted():
        for t in chunk.turns:
            if t.role == "Tool" and t.source_line in result_call:
                lines = chunk.lines
                assert lines is not None
                call = result_call[t.source_line]
                assert lines[0] <= call <= t.source_line <= lines[1], (t, lines)
                checked += 1
    assert checked


def test_a_code_interpreter_call_shows_all_its_code_as_a_command_does() -> None:
    """Walk 18, F5: ChatGPT's code interpreter showed its code's first line alone, uncut:
    `Ran `import statistics`: 5.5` read as if the import printed 5.5. The code is folded
    and cut with an ellipsis, as a shell command is, its lines joined by ⏎ (walk 24, F10:
    joined by spaces, the lines were another program)."""
    code = "import statistics\n\nprint(statistics.mean(range(1,11)))"
    said = collapse_call("python", {"input": code}, "5.5", agent="chatgpt-export")
    assert said == "Ran `import statistics ⏎ print(statistics.mean(range(1,11)))`: 5.5"
    assert said == collapse_call("bash", {"command": code}, "5.5", agent="chatgpt-export")
    long = "import pandas as pd\n" + "\n".join(f"df{i} = pd.read_csv('f{i}.csv')" for i in range(9))
    said = collapse_call("python", {"input": long}, "", agent="chatgpt-export")
    assert said.startswith("Ran `import pandas as pd ⏎ df0 = pd.read_csv('f0.csv') ⏎ df1")
    assert "...`" in said and "df8" not in said
    # the code under another key, or none
    assert (
        collapse_call("python", {"code": "x = 1\ny = 2"}, "", agent="x")
        == "Ran `x = 1 ⏎ y = 2` (no output)."
    )
    assert collapse_call("python", {}, "3", agent="chatgpt-export") == "Ran `python`: 3"


def test_a_chatgpt_export_s_code_shows_whole_in_chunk_collapse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from chunkscope.tui.cli import main
    from tests.data.make_reader_fixtures import chatgpt_export

    convs = chatgpt_export()
    code = "import statistics\n\nprint(statistics.mean(range(1,11)))"
    convs[1]["mapping"]["a4"]["message"]["content"]["text"] = code
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(convs), encoding="utf-8")
    assert main(["chunk", str(path), "--collapse", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "Ran `import statistics ⏎ print(statistics.mean(range(1,11)))`: 3f2a" in out


def test_a_command_with_no_output_says_so() -> None:
    """walk 19, 6: ``Ran `touch a`: `` (a colon introducing nothing) in every reader's
    shell calls with empty output; the seed's own text (`--merge seed`) keeps it."""
    for name in ("run", "bash", "shell"):
        msgs = [call("c1", name, json.dumps({"command": "touch a"})), result("c1", "  \n")]
        (turn,) = collapse_messages(msgs, readable=True)
        assert turn.text == "Ran `touch a` (no output).", name
    seed = [call("c1", "run", json.dumps({"command": "touch a"})), result("c1", "")]
    (turn,) = collapse_messages(seed)
    assert turn.text == "Ran `touch a`: "
    assert collapse_call("Bash", {"command": "true"}, "", agent="claude-code") == (
        "Ran `true` (no output)."
    )
