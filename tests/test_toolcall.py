"""Tool calls read as typed in every reader: one formatting (`engine.toolcall`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks
from chunkscope.engine.read.parse import load, parse_turns
from chunkscope.engine.toolcall import ELLIPSIS, VALUE_CUT, calls_text, format_call
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.mark.parametrize(
    ("name", "arguments", "shown"),
    [
        ("bash", {"command": 'find . -name "*.py"'}, '$ find . -name "*.py"'),
        ("bash", json.dumps({"command": 'find . -name "*.py"'}), '$ find . -name "*.py"'),
        ("Bash", {"command": "ls -la", "description": "List files"}, "$ ls -la  # List files"),
        ("shell", {"command": ["bash", "-lc", "git status"]}, "$ git status"),
        ("shell", {"command": ["git", "log", "--format=%h %s"]}, "$ git log '--format=%h %s'"),
        ("Read", {"file_path": "src/cache.py"}, "Read src/cache.py"),
        ("Read", {"file_path": "a.py", "offset": 10, "limit": 20}, "Read a.py offset=10 limit=20"),
        ("Grep", {"pattern": "def main"}, 'Grep "def main"'),
        ("Glob", {"pattern": "**/*.py"}, "Glob **/*.py"),
        ("ask", {"message": "Where?", "urgent": True}, "ask message=Where? urgent=true"),
        ("todo", {"items": [1, 2], "done": None}, "todo items=[1, 2] done=null"),
        ("x", {"opts": {"a": 1, "b": "two words"}}, 'x opts=(a=1, b="two words")'),
        ("run", "{}", "run()"),
        ("run", "", "run()"),
        (None, {"x": 1}, "? x=1"),
        ("bash", "not json at all", "$ not json at all"),
    ],
)
def test_a_call_shows_as_typed(name: object, arguments: object, shown: str) -> None:
    assert format_call(name, arguments) == shown


def test_a_multi_line_value_shows_its_lines_and_quotes_stay_as_typed() -> None:
    content = '#!/bin/bash\necho "Hello world"\n'
    shown = format_call("Write", {"file_path": "/tmp/hello.sh", "content": content})
    assert shown == 'Write /tmp/hello.sh content:\n#!/bin/bash\necho "Hello world"'
    assert "\\" not in shown
    # a second multi-line value is its first line, cut; a quote needs no escape
    two = format_call("edit", {"old": "x\ny", "new": "one\ntwo", "c": 'say "hi"'})
    assert two == f'edit old="x"{ELLIPSIS} c=\'say "hi"\' new:\none\ntwo'


def test_a_script_keeps_its_lines_and_a_long_one_is_cut() -> None:
    script = "cat > x.py << 'EOF'\nimport sys\n\nprint(sys.argv)\nEOF\npython x.py"
    assert format_call("bash", {"command": script}) == (
        "$ cat > x.py << 'EOF'\nimport sys\nprint(sys.argv)\nEOF\npython x.py"
    )
    long = "\n".join(f"echo {i}" for i in range(40))
    shown = format_call("bash", {"command": long})
    assert shown.startswith("$ echo 0\necho 1\n") and shown.endswith(ELLIPSIS)
    assert shown.count("\n") < 15
    wide = format_call("bash", {"command": "echo " + "x" * 5000})
    assert len(wide) < 900 and wide.endswith(ELLIPSIS)
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch"
    assert format_call("apply_patch", {"input": patch}) == "apply_patch\n" + patch


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(name=st.none() | st.text(max_size=10) | st.integers(), args=_json | _json.map(json.dumps))
@example(name=None, args={"\n\n": None})  # an argument's name holding newlines
@example(name="edit", args={"a\n\nb": "x\ny"})
def test_any_arguments_give_a_bounded_text(name: object, args: object) -> None:
    shown = format_call(name, args)
    assert shown and len(shown) < 2000
    assert "\n\n" not in shown  # one paragraph: no chunker cuts a call in two


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        st.characters(codec="utf-8", exclude_characters="\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
        min_size=1,
        max_size=200,
    )
)
def test_a_command_appears_as_typed(command: str) -> None:
    if not command.strip():
        return
    shown = format_call("bash", {"command": command})
    lines = [ln for ln in command.strip("\n").split("\n") if ln.strip()]
    if len(lines) <= 12 and len("\n".join(lines)) < 800:
        assert shown == "$ " + "\n".join(lines)


def _commands(path: Path) -> list[str]:
    value = json.loads(path.read_text())
    messages = value["messages"] if isinstance(value, dict) else value
    return [
        json.loads(c["function"]["arguments"])["command"]
        for m in messages
        for c in m.get("tool_calls") or []
    ]


TRAJECTORIES = [
    FIXTURES / "mini-swe-agent" / "pydicom-901.traj.json",
    FIXTURES / "heldout" / "mini-swe-agent" / "django-11039.traj.json",
    FIXTURES / "recap" / "mini_swe_django_11099.traj.json",
]


def test_chunk_of_mini_swe_agent_trajectories_shows_every_command_as_typed(
    capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    total = 0
    for path in TRAJECTORIES:
        assert main(["chunk", str(path)]) == 0
        out = capsys.readouterr().out
        # the chunk listing indents a turn's later lines; undo that to compare
        text = re.sub(r"\n {4}", "\n", out)
        for command in _commands(path):
            first = next(ln for ln in command.split("\n") if ln.strip())
            assert f"$ {first}" in text, first
            assert "\\n" not in first or "\\n" in command
            total += 1
        assert "bash({" not in out
    assert total == 42  # 15 + 20 + 7 commands


def test_a_list_of_objects_reads_as_written_not_as_json() -> None:
    """TodoWrite showed ``todos=[{"content":"Initialize Rust…","status":…`` (JSON quotes
    and braces): a list of objects reads as ``key=value`` items, one after another."""
    todos = [
        {"content": "Init crate", "status": "done"},
        {"content": "Port", "tags": ["a", "b c"]},
    ]
    # (a plan tool's call shows its progress instead: tests/test_segment_plan.py)
    assert format_call("Track", {"todos": todos}) == (
        'Track todos=[content="Init crate", status=done; content=Port, tags=[a, "b c"]]'
    )
    # a value like any other, cut at VALUE_CUT: a long to-do list in full at every update
    # crowded its chunks (held-out search hit 78.0 -> 75.6 with lists to 240 characters)
    many = format_call("Track", {"todos": todos * 50})
    assert many.endswith(f"; {ELLIPSIS}]")  # whole items, then the ellipsis, closed
    assert len(many) <= len("Track todos=") + VALUE_CUT + 3
    assert format_call("x", [{"a": "b"}]) == "x [a=b]"


@settings(max_examples=200, deadline=None)
@given(args=st.dictionaries(st.text(min_size=1, max_size=8), _json, min_size=1, max_size=3))
def test_no_structured_argument_shows_json_braces(args: dict[str, object]) -> None:
    """Structured values never show as JSON: no ``{"`` or ``":`` unless a text holds it."""
    shown = format_call("tool", args)
    # a text holding "{" is quoted when it holds a space too: ' {' shows as '" {"'
    assert '{"' not in shown or any("{" in t for t in _texts(args))


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [str(k) for k in value] + [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def test_the_embedding_and_summaries_see_the_readable_form() -> None:
    path = FIXTURES / "mini-swe-agent" / "pydicom-901.traj.json"
    chunks = compact_chunks(chunk_turns(load(path).turns), 80)
    text = "\n".join(c.text for c in chunks)
    assert "$ cat ./pydicom/config.py" in text and 'bash({"command"' not in text


def test_a_subagent_keeps_its_tool_calls(tmp_path: Path) -> None:
    base = {"sessionId": "s", "timestamp": "2025-07-01T10:00:00Z"}
    records = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None,
         "message": {"role": "user", "content": "Find the tests"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "isSidechain": True,
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "Looking."},
             {"type": "tool_use", "id": "t1", "name": "Bash",
              "input": {"command": 'find . -name "test_*.py"'}},
         ]}},
    ]  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    sub = [t for t in load(path).turns if t.role == "Subagent"]
    assert [t.text for t in sub] == ['Looking.\n$ find . -name "test_*.py"']


def test_the_seed_keeps_its_own_text(tmp_path: Path) -> None:
    """The seed's reader keeps every message's content as it is; only the calls after it
    are formatted, and the seed's `parse_turns` shows the content alone."""
    content = 'Run {"command": "x"} and\n\nthen  this'
    call = {"id": "c", "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": "ls"})}}  # fmt: skip
    path = tmp_path / "seed.jsonl"
    path.write_text(json.dumps({"role": "assistant", "content": content, "tool_calls": [call]}))
    assert [t.text for t in parse_turns(path)] == [content]
    assert [t.text for t in load(path).turns] == [content + "\n$ ls"]
    assert calls_text([call]) == "$ ls"


def test_an_argv_list_keeps_the_tools_name_unless_the_tool_is_a_shell() -> None:
    """`grep` called with ``["not", "an", "object"]`` read ``$ not an object``: the list
    is the tool's arguments, not a command of its own."""
    assert format_call("grep", '["not", "an", "object"]') == "grep not an object"
    assert format_call("shell", ["bash", "-lc", "ls -la"]) == "$ ls -la"
    assert format_call("exec_command", ["git", "status"]) == "$ git status"
