"""The agent's own plan as its phases (`engine.segment.requests.plan_step`,
`engine.segment.segmenter`): a plan call (Claude Code's ``TodoWrite``, Codex's
``update_plan``, Gemini CLI's ``write_todos``) shows its progress and its item in
progress (`engine.toolcall.plan_text`); an item turning in progress after the request's
first starts a topic when a long stretch of work follows it, and a step of a minute does
not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.segment.requests import PLAN, PLAN_STRETCH, plan_step
from chunkscope.engine.segment.segmenter import structure_points
from chunkscope.engine.toolcall import VALUE_CUT, format_call

_TODOS = [
    {"content": "Update package.json files to use ESM", "status": "completed"},
    {"content": "Create tsconfig.json files", "status": "completed"},
    {"content": "Test the migration", "status": "in_progress"},
    {"content": "Commit", "status": "pending"},
]


def test_a_plan_call_shows_its_progress_and_its_step_in_each_format() -> None:
    # Claude Code: the tool_use input as it is (an object)
    todo = format_call("TodoWrite", {"todos": _TODOS})
    assert todo == 'TodoWrite 2/4 done; in progress: "Test the migration"'
    assert plan_step(todo) == '"Test the migration"'
    # Codex: the arguments as a JSON string, its explanation on a line of its own
    args = {
        "explanation": "Board renders; moving on to the clocks.",
        "plan": [
            {"step": "Render the board", "status": "completed"},
            {"step": "Add the\nclocks", "status": "in_progress"},
        ],
    }
    plan = format_call("update_plan", json.dumps(args))
    assert plan == (
        'update_plan 1/2 done; in progress: "Add the clocks"\n'
        "Board renders; moving on to the clocks."
    )
    assert plan_step(plan) == '"Add the clocks"'
    # Gemini CLI: descriptions; a cancelled item is counted apart, not as to do
    gemini = format_call(
        "write_todos",
        {
            "todos": [
                {"description": "Port the yaml loader", "status": "cancelled"},
                {"description": "Port the json loader", "status": "pending"},
            ]
        },
    )
    assert gemini == 'write_todos 0/1 done (1 dropped); next: "Port the json loader"'
    assert plan_step(gemini) is None  # nothing in progress yet
    # a to-do list's text in full at every update crowded its chunks: one item, cut
    long = format_call("TodoWrite", {"todos": [{"content": "x" * 500, "status": "in_progress"}]})
    assert len(long) < len("TodoWrite 0/1 done; in progress: ") + VALUE_CUT + 3


@pytest.mark.parametrize(
    "text",
    [
        "TodoWrite todos=[content=a, status=in_progress]",  # the old way, or another tool
        'Now I will mark "Test the migration" as in progress: 2/4 done',  # words
        'Read 2/4 done; in progress: "x"',  # not a plan tool
        "",
    ],
)
def test_no_step_in_other_text(text: str) -> None:
    assert plan_step(text) is None


_ITEM = st.fixed_dictionaries(
    {
        "content": st.text(min_size=1, max_size=120),
        "status": st.sampled_from(["pending", "in_progress", "completed", "cancelled", "odd"]),
    }
)


@settings(max_examples=100, deadline=None)
@given(
    tool=st.sampled_from(["TodoWrite", "update_plan", "write_todos"]),
    items=st.lists(_ITEM, max_size=8),
    other=st.text(max_size=60),
)
def test_the_step_read_back_is_the_item_in_progress(
    tool: str, items: list[dict[str, str]], other: str
) -> None:
    """Whatever the items' texts (quotes, newlines, a plan tool's name), the step read
    back from a call is there exactly when an item is in progress, follows that item's
    text, and text around the call (the agent's words before it) changes nothing."""
    text = format_call(tool, {"todos": items})
    active = [i["content"] for i in items if i["status"] == "in_progress" and i["content"].strip()]
    step = plan_step(text)
    assert (step is not None) == bool(active)
    if active:
        changed = [
            {**i, "content": "zz " + i["content"]} if i["status"] == "in_progress" else i
            for i in items
        ]
        assert plan_step(format_call(tool, {"todos": changed})) != step
        words = " ".join(other.split())  # the agent's words on the line before the call
        assert plan_step(f"{words}\n{text}") == step


_JSON = st.recursive(
    st.none() | st.text(max_size=20) | st.integers() | st.booleans(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["content", "step", "status", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(args=st.dictionaries(st.sampled_from(["todos", "plan", "explanation", "x"]), _JSON))
def test_any_arguments_of_a_plan_tool_read_without_error(args: dict[str, Any]) -> None:
    """A plan call's arguments are data from the log: any shape reads as some text, and
    a step is read back only from an item in progress."""
    text = format_call("TodoWrite", args)
    assert isinstance(text, str) and text
    if plan_step(text) is not None:
        assert "in_progress" in json.dumps(args)


# -- sessions of each format whose agent works through its plan ------------------------

_WORDS = ["package", "module", "import", "export", "tsconfig", "strict", "build", "node", "type"]


def _out(rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(_WORDS, n))


def _steps() -> list[tuple[str, int]]:
    """The plan's items and how many tool calls each takes: two steps of a minute, then
    a long one (running and fixing), then a short last one."""
    return [
        ("Update package.json", 1),
        ("Create tsconfig.json", 1),
        ("Test the migration", 14),
        ("Write the summary", 1),
    ]


def _todos(current: int) -> list[dict[str, str]]:
    return [
        {
            "content": name,
            "status": "completed" if k < current else "in_progress" if k == current else "pending",
        }
        for k, (name, _) in enumerate(_steps())
    ]


def _claude(path: Path) -> None:
    rng = np.random.default_rng(5)
    records: list[dict[str, Any]] = []

    def add(kind: str, content: Any) -> None:
        uid = f"u{len(records)}"
        records.append(
            {
                "type": kind,
                "uuid": uid,
                "parentUuid": records[-1]["uuid"] if records else None,
                "sessionId": "s",
                "timestamp": f"2025-07-22T23:{len(records) // 60:02d}:{len(records) % 60:02d}Z",
                "message": {"role": kind, "content": content},
            }
        )

    add("user", "Migrate the project from CommonJS to TypeScript and ESM")
    for k, (_, calls) in enumerate(_steps()):
        add(
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": f"t{k}",
                    "name": "TodoWrite",
                    "input": {"todos": _todos(k)},
                }
            ],
        )
        add(
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": f"t{k}",
                    "content": "Todos have been modified successfully.",
                }
            ],
        )
        for c in range(calls):
            cid = f"b{k}-{c}"
            add(
                "assistant",
                [
                    {"type": "text", "text": "Let me run it: " + _out(rng, 12)},
                    {
                        "type": "tool_use",
                        "id": cid,
                        "name": "Bash",
                        "input": {"command": "npm start"},
                    },
                ],
            )
            add("user", [{"type": "tool_result", "tool_use_id": cid, "content": _out(rng, 60)}])
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _codex(path: Path) -> None:
    rng = np.random.default_rng(5)
    lines: list[dict[str, Any]] = [
        {
            "timestamp": "2025-11-22T20:45:35Z",
            "type": "session_meta",
            "payload": {"id": "x", "cwd": "/repo", "originator": "codex_cli_rs"},
        },
        {
            "timestamp": "2025-11-22T20:45:36Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "Migrate the project from CommonJS to TypeScript",
                    }
                ],
            },
        },
    ]

    def item(payload: dict[str, Any]) -> None:
        n = len(lines)
        stamp = f"2025-11-22T21:{n // 60:02d}:{n % 60:02d}Z"
        lines.append({"timestamp": stamp, "type": "response_item", "payload": payload})

    for k, (_, calls) in enumerate(_steps()):
        plan = [{"step": t["content"], "status": t["status"]} for t in _todos(k)]
        item(
            {
                "type": "function_call",
                "name": "update_plan",
                "call_id": f"p{k}",
                "arguments": json.dumps({"plan": plan}),
            }
        )
        item({"type": "function_call_output", "call_id": f"p{k}", "output": "Plan updated"})
        for c in range(calls):
            cid = f"c{k}-{c}"
            item(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Running it: " + _out(rng, 12)}],
                }
            )
            item(
                {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": cid,
                    "arguments": json.dumps({"command": ["bash", "-lc", "npm start"]}),
                }
            )
            item({"type": "function_call_output", "call_id": cid, "output": _out(rng, 60)})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))


def _gemini(path: Path) -> None:
    rng = np.random.default_rng(5)
    messages: list[dict[str, Any]] = [
        {
            "id": "m0",
            "timestamp": "2026-06-05T04:59:42Z",
            "type": "user",
            "content": [{"text": "Migrate the project from CommonJS to TypeScript"}],
        },
    ]

    def say(text: str, name: str, args: dict[str, Any], output: str) -> None:
        n = len(messages)
        messages.append(
            {
                "id": f"m{n}",
                "timestamp": f"2026-06-05T05:{n // 60:02d}:{n % 60:02d}Z",
                "type": "gemini",
                "content": text,
                "model": "gemini-2.5-pro",
                "toolCalls": [
                    {
                        "id": f"c{n}",
                        "name": name,
                        "args": args,
                        "status": "success",
                        "result": [
                            {
                                "functionResponse": {
                                    "id": f"c{n}",
                                    "name": name,
                                    "response": {"output": output},
                                }
                            }
                        ],
                    }
                ],
            }
        )

    for k, (_, calls) in enumerate(_steps()):
        todos = [{"description": t["content"], "status": t["status"]} for t in _todos(k)]
        say("", "write_todos", {"todos": todos}, "Updated the todo list")
        for _ in range(calls):
            say(
                "Running it: " + _out(rng, 12),
                "run_shell_command",
                {"command": "npm start"},
                _out(rng, 60),
            )
    # the JSON lines form (newer versions): the header's fields, then a message a line
    head = {
        "sessionId": "s",
        "projectHash": "h",
        "startTime": "2026-06-05T04:59:42Z",
        "lastUpdated": "2026-06-05T06:00:00Z",
    }
    path.write_text("".join(json.dumps(r) + "\n" for r in [head, *messages]))


def _plan_points(path: Path) -> list[str]:
    """The item each plan-strength structural point starts (by its call's text)."""
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    chunks = Pipeline(str(path), params).compacted()
    points = structure_points(chunks)
    out = []
    for gap in np.flatnonzero(points == PLAN).tolist():
        text = next(t.text for t in chunks[gap + 1].turns if t.role == "Bot")
        step = plan_step(text)
        assert step is not None, text
        out.append(step)
    return out


@pytest.mark.parametrize(
    ("make", "name"),
    [(_claude, "session.jsonl"), (_codex, "rollout.jsonl"), (_gemini, "session-1.jsonl")],
)
def test_the_plans_long_step_starts_a_topic_in_each_format(
    make: Any, name: str, tmp_path: Path
) -> None:
    path = tmp_path / name
    make(path)
    assert PLAN > 1 and PLAN_STRETCH > 1000
    # the first item (the request opened the topic) and the steps of a minute: no point
    assert _plan_points(path) == ['"Test the migration"']
