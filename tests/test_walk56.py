"""Walk 56: real session files chunkscope had not read before (sources in the walk's
sources.md: mini-swe-agent, Codex code mode, aider, Gemini CLI, Claude Code). The
readers' and tool-call text's findings: F3 (a fence inside a script's line), F5
(Ctrl-C sent to a process), F6 (aider's ``<blank>`` input), F7 (``--strict`` on a
cut-short JSON document), F8 (mini-swe-agent's rejection and interruption), F9
(whitespace-only paragraphs as units); and walk 55's F9 (an apostrophe in a heredoc's
body read as a shell quote).

Each test fails on the code before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.engine.read.parse import load
from chunkscope.tui.cli import main

SUBMIT = "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"


def _traj(tmp_path: Path, messages: list[dict[str, str]], **info: str) -> Path:
    """A mini-swe-agent 1.x trajectory (text mode: ```bash blocks) of `messages`."""
    path = tmp_path / "run.traj.json"
    doc = {"info": {"exit_status": "Submitted", "submission": "", "mini_version": "1.14.4", **info}}
    path.write_text(json.dumps({**doc, "messages": messages}, indent=2), encoding="utf-8")
    return path


def test_a_fence_inside_a_script_s_line_does_not_close_the_mini_swe_agent_block(
    tmp_path: Path,
) -> None:
    """F3: a ```bash block whose heredoc writes ``if content.startswith('```json'):``
    (pranay5255/YudaiV3@b66cf8ba last_mini_run.traj.json, message 24) was cut there and
    the script's rest read as the model's words; mini-swe-agent's regex needs a newline
    before the closing fence, and it ran the whole block."""
    script = (
        "cat <<'EOF' >> parse.py\nif text.startswith('```json'):\n    text = text[7:-3]\n"
        "EOF\nsed -i 's/old/new/' parse.py && python -m pytest -q"
    )
    path = _traj(
        tmp_path,
        [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Please solve this issue: strip fences in parse.py"},
            {"role": "assistant", "content": f"THOUGHT: I will add it.\n\n```bash\n{script}\n```"},
            {
                "role": "user",
                "content": "<returncode>0</returncode>\n<output>\n3 passed\n</output>",
            },
            {
                "role": "assistant",
                "content": f"THOUGHT: Done.\n\n{SUBMIT}",
            },
            {"role": "user", "content": ""},
        ],
    )
    bot = [t.text for t in load(path).turns if t.role == "Bot"]
    assert bot[0] == f"THOUGHT: I will add it.\n$ {script}"
    assert bot[1] == "THOUGHT: Done.\n$ echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _codex(tmp_path: Path, *payloads: dict[str, object]) -> Path:
    """A Codex CLI 0.144 rollout (code mode) of the user's task and `payloads`."""
    head = {"id": "s", "cwd": "/tmp/p", "originator": "codex_cli_rs", "cli_version": "0.144.1"}
    task = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Run it."}],
    }
    records = [("session_meta", head), ("response_item", task)]
    records += [("response_item", p) for p in payloads]
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-07-10T10:00:{i:02d}Z", "type": kind, "payload": p})
            + "\n"
            for i, (kind, p) in enumerate(records)
        ),
        encoding="utf-8",
    )
    return path


def _exec(call_id: str, script: str) -> dict[str, object]:
    """Code mode's ``exec`` call of `script`."""
    return {"type": "custom_tool_call", "name": "exec", "input": script, "call_id": call_id}


def test_ctrl_c_sent_to_a_process_shows_escaped(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F5: code mode's ``tools.write_stdin({"session_id":34999,"chars":"\\u0003",...})``
    (AkashJana18/edgerunner@e38ba726 codex-session.jsonl, line 789) read as ``chars=``
    and nothing (a raw ETX, taken out when shown), like an empty poll; the recap's JSON
    held the raw character. Control characters show escaped, the empty poll as ``""``."""

    from chunkscope.engine.toolcall import format_call

    def stdin(chars: str) -> str:
        args = {"session_id": 34999, "chars": chars, "yield_time_ms": 1000}
        return f"const r = await tools.write_stdin({json.dumps(args)}); text(r.output);\n"

    path = _codex(
        isolated,
        _exec("c1", stdin("\u0003")),
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "Script completed\n"},
        _exec("c2", stdin("")),
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "Script completed\n"},
    )
    source = load(path)
    calls = [t.text for t in source.turns if t.role == "Bot"]
    assert calls == [
        'write_stdin session_id=34999 chars="\\u0003" yield_time_ms=1000',
        'write_stdin session_id=34999 chars="" yield_time_ms=1000',
    ]
    assert main(["recap", str(path), "--format", "json"]) == 0
    # a prompt of several lines reads on one line, its line breaks no escapes
    # (a Claude Code Task prompt in bench/recap_sessions/spotter-4d5611e5.jsonl)
    prompt = {"prompt": "Explore it. I need:\n\n1. How it renders", "subagent_type": "Explore"}
    assert format_call("Task", prompt) == 'Task "Explore it. I need: 1. How it renders" ' + (
        "subagent_type=Explore"
    )
    recap = capsys.readouterr().out  # JSON: a raw ETX is \u0003, its escape \\u0003
    assert not re.search(r"(?<!\\)\\u0003", recap)
    assert 'chars=\\"\\\\u0003\\"' in recap


def test_aider_s_blank_input_is_no_words_of_the_user(tmp_path: Path) -> None:
    """F6: aider writes ``#### <blank>`` when the user presses Enter on an empty prompt
    (its io.py: ``<blank>`` for an empty input; Abhisekpm/JobSpeak@25a5ac71
    .aider.chat.history.md, lines 33-35): it read as the user's words, the recap's
    ``Later: <blank> can you read all the files ...``. An empty input is no message."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2025-04-02 18:40:10\n\n"
        "#### can you run my code?  \n\n"
        "Please share the code files you want to work with.\n\n"
        "> Tokens: 2.4k sent, 91 received.  \n\n"
        "#### <blank>  \n\n"
        "#### can you read all the files in the main directory?  \n\n"
        "I can only see files that you explicitly share with me in this chat.\n\n"
        "#### <blank>  \n",
        encoding="utf-8",
    )
    source = load(path)
    said = [(t.text.strip(), t.source_line) for t in source.turns if t.role == "You"]
    assert said == [
        ("can you run my code?", 4),
        ("can you read all the files in the main directory?", 12),
    ]
    assert "<blank>" not in " ".join(t.text for t in source.turns)


def test_strict_says_where_a_cut_short_json_document_breaks(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F7: a Gemini chat or a trajectory cut short (``head -c``) said the line it breaks
    on read leniently, but with ``--strict`` ``path:1: not valid JSON (Expecting property
    name ...)``, its ``{`` read as a JSON line, and with ``--input-format`` a third form.
    Every way says the same place and reason, ``path:line: reason``, exit status 2."""
    doc = {
        "sessionId": "ac6d3016",
        "projectHash": "ab",
        "startTime": "2026-01-10T01:55:00.000Z",
        "lastUpdated": "2026-01-10T01:57:00.000Z",
        "messages": [
            {"id": f"m{k}", "timestamp": "2026-01-10T01:56:00.000Z", "type": "user",
             "content": f"message number {k}"}
            for k in range(40)
        ],
    }  # fmt: skip
    text = json.dumps(doc, indent=2)
    cut = isolated / "session-2026-01-10T01-55-ac6d3016.json"
    cut.write_text(text[: text.index('"message number 30"') + 12], encoding="utf-8")
    line = text[: text.index('"message number 30"')].count("\n") + 1
    said = []
    for flags in (
        [],
        ["--strict"],
        ["--input-format", "gemini-cli"],
        ["--strict", "--format", "json"],
    ):
        assert main(["chunk", str(cut), *flags]) == 2
        said.append(capsys.readouterr().err)
    assert (
        said
        == [
            f"chunkscope: {cut}:{line}: a JSON document that does not parse (cut short, or "
            "something after it?): Unterminated string starting at column 18\n"
        ]
        * 4
    )


def test_mini_swe_agent_s_refusal_and_ctrl_c_read_as_such(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F8: mini-swe-agent's interactive mode (pranay5255/YudaiV3@b66cf8ba
    last_mini_run.traj.json, messages 4-5 and 32-35): the harness's ``Command not
    executed. The user rejected your command with the following message: go to YudaiV3``
    read as the user's request, with no "Rejected or interrupted" section; ``Interrupted
    by user: Temporary interruption caught.`` (a Ctrl-C with no words) as the session's
    end after the first submit, and the real end, after the second, had none."""
    done = "<returncode>0</returncode>\n<output>\n{}\n</output>"
    path = _traj(
        isolated,
        [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Please solve this issue: IdeasToImplement.tsx"},
            {"role": "assistant", "content": "THOUGHT: Look around.\n\n```bash\nls -la\n```"},
            {"role": "user", "content": done.format("YudaiV3\nprime-cli")},
            {
                "role": "assistant",
                "content": "THOUGHT: Explore it.\n\n```bash\nls -la prime-cli\n```",
            },
            {
                "role": "user",
                "content": "Command not executed. The user rejected your command with the "
                "following message: go to YudaiV3",
            },
            {
                "role": "assistant",
                "content": "THOUGHT: As asked.\n\n```bash\ncd YudaiV3 && ls\n```",
            },
            {"role": "user", "content": done.format("src")},
            {"role": "assistant", "content": "THOUGHT: Serve it.\n\n```bash\nnpm run dev\n```"},
            {"role": "user", "content": "Interrupted by user: it hangs, stop the server"},
            {"role": "assistant", "content": f"THOUGHT: Task complete.\n\n{SUBMIT}"},
            {"role": "user", "content": "Interrupted by user: Temporary interruption caught."},
            {"role": "assistant", "content": f"THOUGHT: Task resolved.\n\n{SUBMIT}"},
            {"role": "user", "content": ""},
        ],
        mode="confirm",
    )
    turns = [(t.role, t.text) for t in load(path).turns]
    assert turns[4:] == [
        ("Bot", "THOUGHT: Explore it.\n$ ls -la prime-cli"),
        ("Tool", "Command rejected by the user, not executed."),
        ("You", "go to YudaiV3"),
        ("Bot", "THOUGHT: As asked.\n$ cd YudaiV3 && ls"),
        ("Tool", done.format("src")),
        ("Bot", "THOUGHT: Serve it.\n$ npm run dev"),
        ("You", "[Request interrupted by user]\nit hangs, stop the server"),
        ("Bot", "THOUGHT: Task complete.\n$ echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        ("You", "[Request interrupted by user]"),
        ("Bot", "THOUGHT: Task resolved.\n$ echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        ("End", "The session ended (Submitted)."),
    ]
    assert main(["recap", str(path)]) == 0
    recap = capsys.readouterr().out
    assert (
        "## Rejected or interrupted by the user\n"
        '- Rejected `ls -la prime-cli`: "go to YudaiV3"\n'
        '- Interrupted during `npm run dev`: "it hangs, stop the server"\n'
        "- Interrupted during `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`\n"
    ) in recap
    assert "Command not executed" not in recap and "Temporary interruption" not in recap


def test_no_unit_is_a_paragraph_of_whitespace_alone(
    tmp_path: Path, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F9: a run of blank lines in a tool output (Claude Code's ``cat TODO.md``, as
    ``...cards\\n\\n\\n\\n7. Authentication`` in pranay5255/YudaiV3@b66cf8ba
    last_mini_run.traj.json) or an output that opens with a blank line (Codex code mode's
    ``npm run lint``: AkashJana18/edgerunner@e38ba726 codex-session.jsonl, line 364)
    gave a wordless ``Tool: `` paragraph: a chunk of its own at ``--min-chars 1``, or a
    chunk ending on it. The seed's log is read as the seed read it."""
    from chunkscope.engine.read.parse import parse_turns
    from tests.logs import claude_log, seed_log

    output = (
        "5. Database Optimization\n   - Add proper indexing for all query operations"
        "\n\n\n\n7. Authentication and Authorization\n   - Ensure all endpoints validate access"
    )
    log = claude_log(
        tmp_path,
        [
            ("user", "list the project's open tasks from TODO.md please"),
            ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                            "input": {"command": "cat TODO.md"}}]),
            ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": output}]),
            ("assistant", [{"type": "text", "text": "Two tasks are open."}]),
        ],
    )  # fmt: skip
    lint = 'const r = await tools.exec_command({"cmd":"npm run lint"}); text(r.output);\n'
    printed = "Script completed\nWall time 1.0 seconds\nOutput:\n\n\n> web@0.1.0 lint\n"
    codex = _codex(
        isolated,
        _exec("c1", lint),
        {"type": "custom_tool_call_output", "call_id": "c1", "output": printed},
    )
    said = {}
    for f in (log, codex):
        assert main(["chunk", str(f), "--min-chars", "1", "--format", "json"]) == 0
        said[f] = [c["text"] for c in json.loads(capsys.readouterr().out)["chunks"]]
    assert said[log] == [
        "You: list the project's open tasks from TODO.md please\nBot: $ cat TODO.md\n"
        "Tool: 5. Database Optimization\n   - Add proper indexing for all query operations",
        "Tool: 7. Authentication and Authorization\n   - Ensure all endpoints validate access"
        "\nBot: Two tasks are open.",
    ]
    assert said[codex] == ["You: Run it.\nBot: $ npm run lint\nTool: > web@0.1.0 lint\n"]
    # the seed's log is read as it stands: its chunks are the seed's (--merge seed's too)
    seed = seed_log(tmp_path, [("user", "list the open tasks"), ("tool", output)], "seed.jsonl")
    assert [t.text for t in load(seed).turns] == [t.text for t in parse_turns(seed)]
    assert parse_turns(seed)[1].text == output


def test_an_apostrophe_in_a_heredoc_s_text_is_no_shell_quote() -> None:
    """Walk 55, F9: a here-document script cut short got a closing ``'`` never typed
    (``lines = content.split('\\n')…'``): the apostrophe of ``# 2. Update the docstring
    to reflect it's now public`` in its text (mini-django-13447 in bench/recap_sessions)
    was read as a shell quote, in the chunks' ``$`` line and in the recap's sentence. A
    quotation really left open is still closed."""
    from chunkscope.engine.recap.collapse import collapse_call
    from chunkscope.engine.toolcall import COMMAND_LINES, format_call

    body = [f"x{k} = {k}" for k in range(COMMAND_LINES)]
    script = "\n".join(
        [
            "cat > apply_changes.py << 'EOF'",
            "# 2. Update the docstring to reflect it's now public",
            "lines = content.split('\\n')",
            *body,
            "EOF",
            "python apply_changes.py",
        ]
    )
    shown = format_call("bash", {"command": script})
    assert shown.endswith("\nx8 = 8…"), shown  # (its first 12 lines, then the cut)
    said = collapse_call("bash", json.dumps({"command": script}), "<returncode>0</returncode>")
    assert said is not None and "…'" not in said and "...'" not in said, said
    # the shell's own quote, after the document, is closed
    short = "cat > a.py << 'EOF'\n# it's short\nEOF\n"
    opened = short + "ssh root@host 'cd /srv && " + "x " * 400
    assert format_call("bash", {"command": opened}).endswith("…'")
    assert format_call("bash", {"command": "x=$((1<<2))\necho 'a " + "b " * 500}).endswith("…'")
