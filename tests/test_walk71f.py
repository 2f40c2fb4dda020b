"""Walk 71 (fixer f): new real public files (sources in the walk's sources.md), the
findings fixed here:

- F2: Gemini CLI's headless ``--output-format stream-json`` transcripts (``init``,
  ``message`` with ``delta`` pieces, ``tool_use``, ``tool_result``, ``result`` events,
  as metaphi-agent/figma-eval-*-gemini_cli's ``transcript.jsonl`` saves them) were read
  as Codex's older bare items: each streamed piece a turn of its own (words and URLs cut
  in two), every tool call dropped, so the recap had no Files changed, Last outcome nor
  Work state. They are a format of their own now (``gemini-cli-stream``): the pieces of
  one message joined, the calls read under Gemini CLI's tool names;
- F9: a Codex ``apply_patch`` in the argv form (``["apply_patch", "*** Begin Patch
  ..."]``) adding a test file was the recap's "Last check" (its patch's ``vitest``
  read as a test run); an apply_patch in any form is an edit. (``npm run -s test``, the
  real check before it, was no check either: npm's options before the script.)

Each test builds a small input modelled on the real files and fails on the code before
its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.errors import SourceError
from chunkscope.engine.read.formats import (
    READERS,
    codex,
    gemini_stream,
    list_input_formats,
    read,
    sniff,
)
from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.collapse import collapse_messages
from chunkscope.engine.recap.sections import extract_sections

ROOT = Path(__file__).resolve().parent.parent
STREAM_FIXTURE = ROOT / "tests/fixtures/gemini-cli/walk71-stream-json.jsonl"
STREAM = "gemini-cli-stream"

# /tmp/walk71/syn/gemini-stream.jsonl: the shape of the real transcripts' events
BUILD_FIX = [
    {
        "type": "init",
        "timestamp": "2026-01-30T06:18:17.750Z",
        "session_id": "6727b31e",
        "model": "gemini-3-pro-preview",
    },
    {
        "type": "message",
        "timestamp": "2026-01-30T06:18:17.751Z",
        "role": "user",
        "content": "Fix the failing build in app.ts and push it.",
    },
    {
        "type": "tool_use",
        "timestamp": "2026-01-30T06:18:22.937Z",
        "tool_name": "run_shell_command",
        "tool_id": "run_shell_command-1",
        "parameters": {"command": "npm run build"},
    },
    {
        "type": "tool_result",
        "timestamp": "2026-01-30T06:18:25.000Z",
        "tool_id": "run_shell_command-1",
        "status": "success",
        "output": "error TS2304: Cannot find name 'foo'.",
    },
    {
        "type": "tool_use",
        "timestamp": "2026-01-30T06:18:30.369Z",
        "tool_name": "replace",
        "tool_id": "replace-2",
        "parameters": {"file_path": "app.ts", "old_string": "foo()", "new_string": "bar()"},
    },
    {
        "type": "tool_result",
        "timestamp": "2026-01-30T06:18:30.381Z",
        "tool_id": "replace-2",
        "status": "success",
        "output": "Successfully modified file: app.ts (1 replacements).",
    },
    {
        "type": "message",
        "timestamp": "2026-01-30T06:26:16.149Z",
        "role": "assistant",
        "content": (
            "I fixed the build: the call to `foo` in app.ts now calls `bar`, and the build pas"
        ),
        "delta": True,
    },
    {
        "type": "message",
        "timestamp": "2026-01-30T06:26:16.183Z",
        "role": "assistant",
        "content": "ses. The change is pushed to origin/main.",
        "delta": True,
    },
    {
        "type": "result",
        "timestamp": "2026-01-30T06:26:17.000Z",
        "status": "success",
        "stats": {"total_tokens": 100},
    },
]
ANSWER = (
    "I fixed the build: the call to `foo` in app.ts now calls `bar`, and the build passes. "
    "The change is pushed to origin/main."
)


def _jsonl(tmp_path: Path, records: list[dict[str, Any]], name: str = "transcript.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _section(path: Path, name: str) -> list[str]:
    """The lines of the recap section `name` of the file at `path` ([] when it has none)."""
    found = (s.lines for s in extract_sections(load(path).messages) if s.name == name)
    return list(next(found, ()))


# --------------------------------------------------------------------------- F2


def test_f2_stream_json_is_its_own_format_with_its_deltas_joined(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, BUILD_FIX)
    assert sniff(path) == STREAM
    source = load(path)
    assert source.format == STREAM and source.kind_label == "gemini-cli stream-json (jsonl)"
    bots = [t for t in source.turns if t.role == "Bot"]
    # one answer, not two turns cut in "pas" / "ses" (walk 71, F2)
    assert [t.text for t in bots if "fixed" in t.text] == [ANSWER]
    answer = next(t for t in bots if "fixed" in t.text)
    assert (answer.source_line, answer.end_line) == (7, 8)
    # every record accounted: 8 read (the two pieces both), init and result counted
    assert source.records == 9 and source.read == 7
    assert source.not_read == {"session metadata": 1, "run results (token counts)": 1}
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == source.records


def test_f2_tool_calls_are_typed_calls_with_their_outputs(tmp_path: Path) -> None:
    source = load(_jsonl(tmp_path, BUILD_FIX))
    said = [(t.role, t.text, t.source_line) for t in source.turns]
    assert ("Bot", "$ npm run build", 3) in said
    assert ("Tool", "error TS2304: Cannot find name 'foo'.", 4) in said
    assert ("Bot", "replace app.ts old_string=foo() new_string=bar()", 5) in said
    collapsed = [t.text for t in collapse_messages(source.messages, readable=True)]
    assert "Edited app.ts." in collapsed
    assert any(t.startswith("Ran `npm run build`") for t in collapsed)


def test_f2_the_recap_reads_the_calls(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, BUILD_FIX)
    assert _section(path, "files") == ["- app.ts (1 edit)"]
    assert _section(path, "outcome") == [
        "Last check: `npm run build` -> error TS2304: Cannot find name 'foo'."
    ]
    assert " ".join(_section(path, "last")) == ANSWER
    assert any("app.ts" in line for line in _section(path, "state"))


def test_f2_real_shape_fixture(tmp_path: Path) -> None:
    """The transcript a harness saves (a ``ts`` beside each event, the prompt first
    without a ``timestamp``): a failed call, a read and writes with no output, an answer
    in three pieces cut mid-word and mid-URL."""
    source = load(STREAM_FIXTURE)
    assert source.format == STREAM
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == source.records
    assert source.records == 19 and not source.skipped
    last = source.turns[-1]
    assert last.role == "Bot" and (last.source_line, last.end_line) == (16, 18)
    assert "`src/utils/date.test.ts` checks formatDate" in last.text
    assert "`https://preview.example.com/dashboard`" in last.text
    collapsed = [t.text for t in collapse_messages(source.messages, readable=True)]
    assert any(t.startswith("activate_skill name=frontend failed: Skill") for t in collapsed)
    assert "Wrote src/utils/date.test.ts (8 lines)." in collapsed
    assert _section(STREAM_FIXTURE, "files") == [
        "- src/utils/: date.ts (1 edit), date.test.ts (written)"
    ]
    assert _section(STREAM_FIXTURE, "outcome")[0].startswith(
        "Last check: `npm run build && npx vitest run` -> Test Files 1 passed"
    )


API_ERROR = "[API Error: Request contains an invalid argument.]"


def test_f2_a_failed_run_and_the_cli_notes(tmp_path: Path) -> None:
    """A ``result`` that failed reads as its error (the run ended there); an ``error``
    event as the CLI's note; a kind of another version is counted by kind."""
    records = [
        BUILD_FIX[1],
        {"type": "error", "timestamp": "t", "severity": "warning", "message": "Loop detected"},
        {"type": "retry", "timestamp": "t", "attempt": 2},
        {
            "type": "result",
            "timestamp": "2026-01-30T06:29:13.195Z",
            "status": "error",
            "error": {"type": "Error", "message": API_ERROR},
            "stats": {"total_tokens": 1},
        },
    ]
    source = load(_jsonl(tmp_path, records))
    assert source.format == STREAM
    roles = [(t.role, t.text) for t in source.turns]
    assert ("warning", "Loop detected") in roles
    assert ("error", API_ERROR) in roles
    assert source.not_read == {"retry records": 1}


def test_f2_codex_is_still_codex_and_neither_takes_the_other(tmp_path: Path) -> None:
    for rec in BUILD_FIX:
        assert not codex.looks_like_legacy(rec) and not codex.looks_like_rollout(rec), rec
    # an older Codex log of bare items (content as a list of parts), and a rollout
    legacy = [
        {"id": "s", "timestamp": "2025-09-01T10:00:00Z", "instructions": ""},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "k"}]},
    ]
    for rec in legacy:
        assert not gemini_stream.looks_like(rec), rec
    assert sniff(_jsonl(tmp_path, legacy, "old.jsonl")) == "codex"
    for fixture in sorted((ROOT / "tests/fixtures/codex").glob("*.jsonl")):
        assert sniff(fixture) == "codex", fixture
    # told to read the transcript as Codex's: nothing matched, it names the format
    with pytest.raises(SourceError, match="it looks like gemini-cli-stream"):
        read(_jsonl(tmp_path, BUILD_FIX), "codex")
    with pytest.raises(SourceError, match="it looks like gemini-cli-stream"):
        read(_jsonl(tmp_path, BUILD_FIX), "gemini-cli")


def test_f2_listed_with_its_example_and_alias(tmp_path: Path) -> None:
    assert STREAM in READERS and READERS[STREAM].aliases == ("gemini-stream-json",)
    listed = list_input_formats()
    assert f"{STREAM}: Gemini CLI headless output" in listed
    assert f"example file: {STREAM_FIXTURE}" in listed
    assert read(_jsonl(tmp_path, BUILD_FIX), "gemini-stream-json").format == STREAM


def test_f2_picker_title_is_the_first_request(tmp_path: Path) -> None:
    from chunkscope.engine.read.formats.folders import list_sessions

    _jsonl(tmp_path, BUILD_FIX)
    (found,) = list_sessions(tmp_path)
    assert found.format == STREAM
    assert found.title == "Fix the failing build in app.ts and push it."


# --------------------------------------------------------------------------- F9


def _rollout(tmp_path: Path, patch_call: dict[str, Any]) -> Path:
    """A codex_cli_rs 0.58 rollout (syn/codex-addtest.jsonl): ``npm run -s test`` passes,
    then a patch adds a test file; the agent says it has not run the suite since."""

    def item(payload: dict[str, Any], ts: str) -> dict[str, Any]:
        return {"timestamp": f"2025-11-17T21:{ts}Z", "type": "response_item", "payload": payload}

    def output(call_id: str, text: str) -> dict[str, Any]:
        body = json.dumps({"output": text, "metadata": {"exit_code": 0}})
        return {"type": "function_call_output", "call_id": call_id, "output": body}

    def shell(call_id: str, command: list[str]) -> dict[str, Any]:
        args = json.dumps({"command": command, "workdir": "/home/u/app"})
        return {"type": "function_call", "name": "shell", "arguments": args, "call_id": call_id}

    records = [
        {
            "timestamp": "2025-11-17T21:30:28.664Z",
            "type": "session_meta",
            "payload": {"id": "s", "cwd": "/home/u/app", "cli_version": "0.58.0"},
        },
        item(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Add a test and keep the suite green."}],
            },
            "30:45.000",
        ),
        item(shell("c1", ["bash", "-lc", "npm run -s test"]), "31:00.000"),
        item(output("c1", " Test Files  1 passed (1)\n      Tests  2 passed (2)\n"), "31:05.000"),
        item(patch_call, "32:00.000"),
        item(
            output("c2", "Success. Updated the following files:\nA " + TEST_FILE + "\n"),
            "32:01.000",
        ),
        item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "I added the test; not run since."}],
            },
            "32:10.000",
        ),
    ]
    return _jsonl(tmp_path, records, "rollout.jsonl")


TEST_FILE = "src/utils/__tests__/functionFiltersGeneric.test.ts"
PATCH = (
    f"*** Begin Patch\n*** Add File: {TEST_FILE}\n"
    "+import { describe, it, expect } from 'vitest'\n"
    "+describe('generic', () => { it('works', () => expect(1).toBe(1)) })\n*** End Patch"
)


@pytest.mark.parametrize(
    "command",
    [
        ["apply_patch", PATCH],  # the argv form: was the last check
        ["bash", "-lc", f"apply_patch <<'PATCH'\n{PATCH}\nPATCH"],
        ["bash", "-lc", f"cd /home/u/app && apply_patch <<'PATCH'\n{PATCH}\nPATCH"],
    ],
    ids=["argv", "heredoc", "cd-heredoc"],
)
def test_f9_apply_patch_is_an_edit_never_the_last_check(tmp_path: Path, command: list[str]) -> None:
    args = json.dumps({"command": command, "workdir": "/home/u/app"})
    call = {"type": "function_call", "name": "shell", "arguments": args, "call_id": "c2"}
    path = _rollout(tmp_path, call)
    outcome = _section(path, "outcome")
    assert not any("apply_patch" in line or "Begin Patch" in line for line in outcome), outcome
    # the real check before it is the last one (npm's own options before the script)
    assert outcome == [
        "Last check: `npm run -s test` -> Test Files 1 passed (1); Tests 2 passed (2) (exit 0)"
    ]
    assert _section(path, "files") == [f"- {TEST_FILE} (1 edit)"]


def test_f9_npm_options_before_the_script_still_run_it() -> None:
    from chunkscope.engine.recap.sections import _is_check

    assert _is_check("npm run -s typecheck && npm run -s test -- --pool=threads")
    assert _is_check("npm run --silent build")
    assert not _is_check("npm run -s dev")
    assert not _is_check(f"apply_patch '{PATCH}'")
