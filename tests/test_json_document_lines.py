"""A session saved as one JSON document (a mini-swe-agent / openai-messages trajectory,
a Gemini CLI chat, a ChatGPT export): every chunk's `lines` hold the lines its text is
on in the file (JSON-escaped), not only the line of each message's opening ``{``
(issue 35, walk 8 finding 11)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.model import Chunk
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.collapse import NO_RESULT
from tests.data.make_reader_fixtures import make_fixtures

ROOT = Path(__file__).resolve().parents[1]

#: (name, params) of the runs checked: the default pipeline (topic merge), the seed's
#: merge, the sliding-window strategy, each also with tool calls collapsed.
RUNS: list[tuple[str, dict[str, Any]]] = [
    ("topic", {}),
    ("seed", {"merge": "seed"}),
    ("sliding-window", {"strategy": "sliding-window"}),
]

#: The runs whose chunks hold whole messages, so a chunk's range ends on its text (a
#: strategy's window may end inside a message and keep the message's last line).
ENDS_CHECKED = ("topic", "seed")


def _escaped(line: str) -> set[str]:
    """How a line of text can be written inside a JSON string."""
    return {json.dumps(line, ensure_ascii=False)[1:-1], json.dumps(line)[1:-1]}


def text_outside(chunk: Chunk, file_lines: list[str], whole: str) -> list[str]:
    """The text lines of `chunk` that are in the file (JSON-escaped) but not within its
    `lines` first..last."""
    lines = chunk.lines
    span = "" if lines is None else "\n".join(file_lines[lines[0] - 1 : lines[1]])
    out = []
    for turn in chunk.turns:
        for line in turn.text.split("\n"):
            line = line.strip()
            if len(line) < 3:
                continue
            forms = [e for e in _escaped(line) if e in whole]
            if forms and not any(e in span for e in forms):
                out.append(line)
    return out


def ends_on_text(chunk: Chunk, file_lines: list[str]) -> bool:
    """Whether the last line of `chunk`'s `lines` holds some of its text (a range does
    not run past its text: walk 16 finding 3): one of its text lines JSON-escaped
    (twice: a call's command in its ``arguments``), or one of the tags the generated
    text and commands carry (``a0p1l2``, ``d01``), or the return code a collapsed call
    says (``Ran `ls` (exit 0).``: its output's ``<returncode>0</returncode>``)."""
    if chunk.lines is None:
        return True
    last = file_lines[chunk.lines[1] - 1]
    texts = {ln.strip() for t in chunk.turns for ln in t.text.split("\n") if len(ln.strip()) >= 3}
    tags = set(re.findall(r"\b[a-z]+\d+[a-z\d]*\b", chunk.text))
    forms = {f for ln in texts for e in _escaped(ln.removeprefix("$ ")) for f in (e, *_escaped(e))}
    codes = {f"<returncode>{c}</returncode>" for c in re.findall(r"\(exit (-?\d+)\)", chunk.text)}
    return (
        any(f in last for f in forms)
        or any(re.search(rf"\b{tag}\b", last) for tag in tags)
        or any(c in last for c in codes)
    )


def chunks_of(path: Path, collapse: bool, run: dict[str, Any]) -> list[Chunk]:
    params = PipelineParams(collapse=collapse)
    if "strategy" in run:
        pipe = Pipeline(str(path), PipelineParams(collapse=collapse, strategy=run["strategy"]))
        return list(pipe.strategy_result().chunk_list)
    pipe = Pipeline(str(path), params)
    if "merge" in run:
        pipe = pipe.with_params(merge=pipe.params.merge.__class__(mode=run["merge"]))
    return [*pipe.compacted(), *pipe.merged().chunks]


def assert_within(
    path: Path, runs: list[tuple[str, dict[str, Any]]] = RUNS, ends: bool = False
) -> None:
    """Every chunk's `lines` hold its text; with `ends`, the runs of whole messages
    (`ENDS_CHECKED`: the generated messages are never cut into parts, whose range is
    their message's) end on a line of the chunk's text."""
    whole = path.read_text(encoding="utf-8")
    file_lines = whole.split("\n")
    for collapse in (False, True):
        for name, run in runs:
            for chunk in chunks_of(path, collapse, run):
                lines = chunk.lines
                assert lines is None or 1 <= lines[0] <= lines[1] <= len(file_lines)
                outside = text_outside(chunk, file_lines, whole)
                assert not outside, (name, collapse, chunk.lines, outside[:3])
                if ends and name in ENDS_CHECKED:
                    assert ends_on_text(chunk, file_lines), (name, collapse, lines, chunk.text)


# --------------------------------------------------------------------------- generated

_word = st.text(st.sampled_from("abcdefgh"), min_size=3, max_size=7)
_indent = st.sampled_from([1, 2, 4, "\t"])


@st.composite
def _text(draw: st.DrawFn, tag: str) -> str:
    """Some lines of words, each line unique in the file (it holds `tag`)."""
    n = draw(st.integers(1, 4))
    return "\n".join(
        f"{tag}l{i} "
        + " ".join(draw(st.lists(_word, min_size=1, max_size=6)))
        + draw(st.sampled_from(["", '"quoted"', "tab\there", "é ü"]))
        for i in range(n)
    )


@st.composite
def _content(draw: st.DrawFn, tag: str) -> Any:
    """A message's content: a string, or a list of text parts."""
    if draw(st.booleans()):
        return draw(_text(tag))
    parts = draw(st.integers(1, 3))
    return [{"type": "text", "text": draw(_text(f"{tag}p{i}"))} for i in range(parts)]


#: The fences an older text-only trajectory's command is in (mini-swe-agent's own, and
#: the first versions' ``bash``, which ran when its output follows).
FENCES = ("mswea_bash_command", "bash")


@st.composite
def trajectories(draw: st.DrawFn) -> str:
    """A mini-swe-agent trajectory or a SWE-agent one (its ``history``): openai
    messages, tool calls and their results, pretty-printed; or the older text-only
    kind, a command fenced in the answer (`FENCES`) and its output a user message."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": draw(_text("sys"))},
        {"role": "user", "content": draw(_content("task"))},
    ]
    for i in range(draw(st.integers(1, 6))):
        message: dict[str, Any] = {"role": "assistant", "content": draw(_content(f"a{i}"))}
        fence = draw(st.sampled_from([None, *FENCES]))
        if fence is not None:  # the older text-only kind: its one action, then its output
            command = draw(
                st.sampled_from([f"ls d{i}", f"cd d{i} && cat <<'EOF' > f{i}\nx{i}\nEOF"])
            )
            message["content"] = f"{draw(_text(f'a{i}'))}\n\n```{fence}\n{command}\n```"
            messages.append(message)
            if fence == "bash" or draw(st.booleans()):  # mini-swe-agent's own fence: it ran
                output = draw(_text(f"out{i}"))
                messages.append(
                    {
                        "role": "user",
                        "content": f"<returncode>0</returncode>\n<output>\n{output}\n</output>",
                    }
                )
            continue
        if draw(st.booleans()):
            function = {"name": "bash", "arguments": json.dumps({"command": f"ls d{i}"})}
            call: dict[str, Any] = {"id": f"call{i}", "type": "function", "function": function}
            if draw(st.booleans()):  # litellm's order: the call's id and type after it
                call = {"index": 0, "function": function, "id": f"call{i}", "type": "function"}
            message["tool_calls"] = [call]
        if draw(st.booleans()):  # litellm writes these after the text, null or empty
            message["function_call"] = None
            message["provider_specific_fields"] = draw(st.sampled_from([None, {}]))
        if draw(st.booleans()):
            message["extra"] = {"response": {"id": f"r{i}", "usage": {"tokens": i}}}
        messages.append(message)
        if "tool_calls" in message:
            messages.append(
                {"role": "tool", "tool_call_id": f"call{i}", "content": draw(_text(f"out{i}"))}
            )
        elif draw(st.booleans()):
            messages.append({"role": "user", "content": draw(_content(f"u{i}"))})
    value: dict[str, Any] = (
        {
            "info": {"exit_status": "Submitted", "mini_version": "1.0"},
            "messages": messages,
            "trajectory_format": "mini-swe-agent-1",
        }
        if draw(st.booleans())
        else {"environment": "swe_main", "trajectory": [], "history": messages}  # SWE-agent
    )
    return json.dumps(value, indent=draw(_indent), ensure_ascii=draw(st.booleans()))


@st.composite
def gemini_chats(draw: st.DrawFn) -> str:
    """A Gemini CLI chat file (thoughts, tool calls with their results), pretty-printed."""
    messages: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 6))):
        ts = f"2026-06-05T04:{10 + i}:00.000Z"
        messages.append(
            {"id": f"u{i}", "timestamp": ts, "type": "user", "content": draw(_content(f"u{i}"))}
        )
        reply: dict[str, Any] = {
            "id": f"g{i}",
            "timestamp": ts,
            "type": "gemini",
            "content": draw(_content(f"g{i}")),
        }
        if draw(st.booleans()):
            reply["thoughts"] = [
                {"subject": f"Plan{i}", "description": draw(_text(f"th{i}")), "timestamp": ts}
            ]
        if draw(st.booleans()):
            reply["toolCalls"] = [
                {
                    "id": f"c{i}{j}",
                    "name": "run_shell_command",
                    "args": {"command": f"ls d{i}{j}"},
                    "result": [
                        {
                            "functionResponse": {
                                "id": f"c{i}{j}",
                                "name": "run_shell_command",
                                "response": {"output": draw(_text(f"r{i}{j}"))},
                            }
                        }
                    ]
                    if draw(st.booleans())
                    else [],  # a call whose result is empty
                    "status": "success",  # after the result, as Gemini CLI writes it
                }
                for j in range(draw(st.integers(1, 3)))
            ]
        reply["tokens"] = {"input": 10, "output": 5}
        reply["model"] = "gemini-2.5-pro"
        messages.append(reply)
    value = {
        "sessionId": "s1",
        "projectHash": "abc",
        "startTime": "2026-06-05T04:09:00.000Z",
        "messages": messages,
    }
    return json.dumps(value, indent=draw(_indent), ensure_ascii=draw(st.booleans()))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.one_of(trajectories(), gemini_chats()))
def test_generated_json_sessions_chunks_hold_their_text_lines(tmp_path: Path, text: str) -> None:
    path = tmp_path / "session.json"
    path.write_text(text, encoding="utf-8")
    assert_within(path, ends=True)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=trajectories())
def test_generated_trajectories_show_each_command_as_typed(tmp_path: Path, text: str) -> None:
    """Each command, a tool call's or the older kind's fenced one, shows as typed after
    its answer's words, each output as the tool's (never the user's); every record is
    accounted for."""
    path = tmp_path / "session.json"
    path.write_text(text, encoding="utf-8")
    value = json.loads(text)
    messages = value.get("messages") or value["history"]
    commands = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            commands.append(json.loads(call["function"]["arguments"])["command"])
        if m["role"] == "assistant" and isinstance(m["content"], str):
            commands += re.findall(
                r"```(?:mswea_bash_command|bash)\n(.*?)\n```", m["content"], re.S
            )
    outputs = [m for m in messages if m["role"] == "tool" or "<returncode>" in str(m["content"])]
    source = load(path)
    bots = [t.text for t in source.turns if t.role == "Bot"]
    shown = [b.split("\n$ ", 1)[1] for b in bots if "\n$ " in b]
    assert shown == commands
    assert all("```" not in b for b in bots)
    assert len([t for t in source.turns if t.role == "Tool"]) == len(outputs)
    assert not any("<returncode>" in t.text for t in source.turns if t.role == "You")
    assert source.records == len(messages)
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == len(messages)


# --------------------------------------------------------------------------- real files


def test_trajectory_search_example_reaches_the_content_line() -> None:
    """The example of the finding: the task's chunk said `lines 11` (the `{` of the
    user message); its text is on line 13."""
    path = ROOT / "tests/fixtures/recap/mini_swe_django_11099.traj.json"
    file_lines = path.read_text(encoding="utf-8").split("\n")
    task = next(i for i, ln in enumerate(file_lines, 1) if "UsernameValidator allows" in ln)
    pipe = Pipeline(str(path), PipelineParams(collapse=True))
    holding = [c for c in pipe.compacted() if "UsernameValidator allows" in c.text]
    assert holding and all(c.lines and c.lines[0] <= task <= c.lines[1] for c in holding)


def test_gemini_chat_merged_chunk_reaches_the_assistant_text() -> None:
    """`merged 0 [7, 17]` before: the assistant's text is on line 21."""
    path = ROOT / "tests/fixtures/gemini-cli/agent-history-session-01.json"
    file_lines = path.read_text(encoding="utf-8").split("\n")
    line = next(i for i, ln in enumerate(file_lines, 1) if "[REDACTED_ASSISTANT_TEXT]" in ln)
    merged = Pipeline(str(path), PipelineParams()).merged().chunks
    assert merged[0].lines is not None and merged[0].lines[0] <= line <= merged[0].lines[1]


@pytest.mark.parametrize(
    "name",
    [
        "tests/fixtures/recap/mini_swe_django_11099.traj.json",
        "tests/fixtures/gemini-cli/agent-history-session-01.json",
    ],
)
def test_real_json_sessions_chunks_hold_their_text_lines(name: str) -> None:
    others = [(s, {"strategy": s}) for s in ("markdown", "blank-line", "boundary")]
    assert_within(ROOT / name, [*RUNS, *others])


def test_reader_fixtures_of_json_documents_hold_their_text_lines(tmp_path: Path) -> None:
    """The readers' own fixtures: openai messages, a trajectory, a ChatGPT export."""
    paths = make_fixtures(tmp_path)
    for name in ("openai-messages", "trajectory", "chatgpt-export"):
        assert load(paths[name]).format in ("openai-messages", "chatgpt-export")
        assert_within(paths[name], RUNS[1:])


def test_collapsed_call_spans_its_call_to_its_result_text() -> None:
    """A collapsed tool call's lines run from its call's message to its result's text."""
    path = ROOT / "tests/fixtures/recap/mini_swe_django_11099.traj.json"
    source = load(path)
    file_lines = path.read_text(encoding="utf-8").split("\n")
    pipe = Pipeline(str(path), PipelineParams(collapse=True))
    tools = [t for c in pipe.compacted() for t in c.turns if t.role == "Tool"]
    assert tools
    for t in tools:
        if t.text.endswith(f"({NO_RESULT})."):  # the submitting command: no result (walk 24)
            assert t.source_line is not None and t.end_line is not None
            assert t.source_line < t.end_line  # its call's message
            continue
        assert t.call_line is not None and t.end_line is not None
        assert t.call_line < t.source_line < t.end_line  # type: ignore[operator]
        # the result's text: the `content` line of the message starting at source_line
        content = next(
            i
            for i in range(t.source_line, len(file_lines) + 1)  # type: ignore[arg-type]
            if file_lines[i - 1].lstrip().startswith('"content"')
        )
        assert content <= t.end_line
    assert source.turns


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=gemini_chats())
def test_gemini_tool_results_start_within_their_call(tmp_path: Path, text: str) -> None:
    """A Gemini CLI tool result is read from its call, inside a message: its lines start
    there, not at the message's ``{`` (walk 36, F3: a result claimed the message's
    words and thoughts), and the message's own range ends with its calls' arguments,
    not at the tool's description or the results after them."""
    path = tmp_path / "session.json"
    path.write_text(text, encoding="utf-8")
    file_lines = text.split("\n")
    ids = [c["id"] for m in json.loads(text)["messages"] for c in m.get("toolCalls", [])]
    first = {}  # a call's id line: the first line naming it
    for n, line in enumerate(file_lines, 1):
        for call in ids:
            if call not in first and f'"id": "{call}"' in line:
                first[call] = n
    for turn in load(path).turns:
        if turn.role != "Tool":
            continue
        tag = re.search(r"\br(\d\d)l", turn.text)  # the output's words name their call
        assert tag is not None
        lines = Chunk([turn]).lines  # what a chunk of this result alone says
        assert lines is not None
        assert first[f"c{tag[1]}"] < lines[0] <= lines[1]
        assert any(f"r{tag[1]}l" in ln for ln in file_lines[lines[0] - 1 : lines[1]])
