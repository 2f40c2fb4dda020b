"""Walk 72 (fixer j): Gemini CLI stream-json transcripts (``gemini-cli-stream``), the
findings fixed here, on the real metaphi-agent figma-eval transcripts:

- F1: a transcript of two runs (two ``init`` records: the harness ran the agent again
  after an API error, sending the same prompt) had the recap's Task say the request
  twice, ``Later:`` repeating it word for word; a request repeated verbatim is said once
  (the file still reads as one session: the first run's work is the session's too);
- F4: a chunk holding a part of a streamed answer (one message joined from the ``delta``
  records of lines 84-90) said the whole message's lines, [84, 90] for each of its
  paragraphs; each part now says the records holding its words (84-87, 87-90, ...), as a
  part of a Claude Code message says its own record's line.

Each test builds a small input modelled on the real files and fails on the code before
its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.chunk.split import chunk_turns
from chunkscope.engine.model import Chunk, turn_part
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.collapse import collapse_messages
from chunkscope.engine.recap.sections import extract_sections


def _jsonl(tmp_path: Path, records: list[dict[str, Any]], name: str = "transcript.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _delta(text: str, second: int) -> dict[str, Any]:
    return {
        "type": "message",
        "timestamp": f"2026-01-30T06:26:{second:02}.000Z",
        "role": "assistant",
        "content": text,
        "delta": True,
    }


# --------------------------------------------------------------------------- F4

# lines 84-90 of gemini-figma010-transcript.jsonl, shorter: an answer streamed in four
# pieces cut mid-word and mid-URL, its paragraphs starting inside a piece (a run of
# blank lines in one, as the reader's tidying squeezes it)
STREAMED = [
    {"type": "message", "role": "user", "content": "Convert the Figma design."},
    _delta("I have converted the design.\n\n**Deliverables:**\n- **Repo", 16),
    _delta(":** `https://github.com/metaphi-agent/figma`\n- **Preview:** `https://pre", 17),
    _delta("view.modal.host` (Verified running)\n\n\n\n**Implementat", 18),
    _delta("ion Details:**\n- React 19, Vite\n\nThe project is built in `./dist`.", 19),
    {
        "type": "result",
        "timestamp": "2026-01-30T06:26:20.000Z",
        "status": "success",
        "stats": {"total_tokens": 100},
    },
]
#: each paragraph's first and last line (the first also holds the prompt, line 1)
PARAGRAPH_LINES = [(1, 2), (2, 4), (4, 5), (5, 5)]


@pytest.mark.parametrize("collapse", [False, True], ids=["turns", "collapsed"])
@pytest.mark.parametrize("by_message", [False, True], ids=["seed", "by-message"])
def test_f4_each_paragraph_of_a_streamed_answer_says_its_own_records(
    tmp_path: Path, collapse: bool, by_message: bool
) -> None:
    source = load(_jsonl(tmp_path, STREAMED))
    turns = collapse_messages(source.messages, readable=True) if collapse else source.turns
    chunks = chunk_turns(turns, by_message=by_message)
    if by_message:  # the prompt a chunk of its own
        assert chunks[0].lines == (1, 1)
        chunks = chunks[1:]
        expected = [(2, 2), *PARAGRAPH_LINES[1:]]
    else:
        expected = PARAGRAPH_LINES
    assert [c.text.split("\n")[-1][:20] for c in chunks] == [
        "Bot: I have converte",
        "- **Preview:** `http",
        "- React 19, Vite",
        "Bot: The project is ",
    ]
    assert [c.lines for c in chunks] == expected


def test_f4_the_pipelines_chunks_of_a_streamed_answer(tmp_path: Path) -> None:
    """As ``chunk --format json`` gives them: the answer's later paragraphs are not said
    to start on its first record, nor its first to end on its last."""
    path = _jsonl(tmp_path, STREAMED)
    for collapse in (False, True):
        chunks = Pipeline(str(path), PipelineParams(collapse=collapse)).compacted()
        said = [(c.lines, c.text.split("\n")[0][:24]) for c in chunks]
        assert said == [
            ((1, 1), "You: Convert the Figma d"),
            ((2, 2), "Bot: I have converted th"),
            ((2, 4), "Bot: **Deliverables:**"),
            ((4, 5), "Bot: **Implementation De"),
            ((5, 5), "Bot: The project is buil"),
        ], collapse


def test_f4_a_part_cut_at_a_token_says_its_records(tmp_path: Path) -> None:
    """A part the sliding window cuts anywhere in the answer (`turn_part`): the lines of
    the records holding its words."""
    answer = load(_jsonl(tmp_path, STREAMED)).turns[-1]
    text = answer.text
    assert (answer.source_line, answer.end_line) == (2, 5)

    def lines(lo: str, hi: str) -> tuple[int, int] | None:
        return Chunk([turn_part(answer, text.index(lo), text.index(hi))]).lines

    assert lines("**Preview", "view.modal") == (3, 3)
    assert lines("**Preview", "**Implementation") == (3, 4)
    assert lines("Details", "The project") == (5, 5)
    assert lines("I have", "Details") == (2, 5)


# --------------------------------------------------------------------------- F1

# line 1 (and 99) of gemini-figma49b-transcript.jsonl: longer than a later request's line
PROMPT = (
    "Figma URL: https://www.figma.com/design/mLzr95Yi2kwGyZBc44QiV7/SAAS-Dashboard--Community-"
    "\n\nDesign: Saas Dashboard\n\nContext: This is a SaaS dashboard design which is highly "
    "valuable for training Figma-to-code models as dashboards are commonly built by "
    "developers and contain rich UI components like charts, tables, navigation, and data "
    "visualization elements. Despite the lack of description, the name clearly indicates "
    "it's a complete dashboard interface rather than just wireframes or components."
)
EXPANDED = "You are an expert frontend engineer. Write React code for the design.\n\n" + PROMPT


def _run(session: str, day: str, end: dict[str, Any]) -> list[dict[str, Any]]:
    """One run as the harness saves it: its prompt (no ``timestamp``), the CLI's
    ``init`` and the prompt it sent, a call and its result, the run's end."""
    return [
        {"type": "message", "role": "user", "content": PROMPT},
        {"type": "init", "timestamp": f"{day}T06:12:28Z", "session_id": session, "model": "m"},
        {"type": "message", "timestamp": f"{day}T06:12:29Z", "role": "user", "content": EXPANDED},
        {
            "type": "tool_use",
            "timestamp": f"{day}T06:12:30Z",
            "tool_name": "run_shell_command",
            "tool_id": f"{session}-1",
            "parameters": {"command": "npm run build"},
        },
        {
            "type": "tool_result",
            "timestamp": f"{day}T06:12:31Z",
            "tool_id": f"{session}-1",
            "status": "success",
            "output": "built in 7.01s",
        },
        end,
    ]


TWO_RUNS = [
    *_run(
        "66268ffc",
        "2026-01-30",
        {
            "type": "result",
            "timestamp": "2026-01-30T06:29:13Z",
            "status": "error",
            "error": {"type": "Error", "message": "[API Error: 400 invalid argument]"},
            "stats": {"total_tokens": 1},
        },
    ),
    *_run(
        "8491166e",
        "2026-01-31",
        _delta("The dashboard is built and pushed.", 40),
    ),
]


def test_f1_a_request_two_runs_repeat_is_said_once(tmp_path: Path) -> None:
    source = load(_jsonl(tmp_path, TWO_RUNS))
    assert source.format == "gemini-cli-stream"
    task = next(s for s in extract_sections(source.messages) if s.name == "task")
    said = [line for line in task.lines if "Figma URL" in line or "You are" in line]
    assert said[0].startswith("Figma URL: https://www.figma.com/design/mLzr95Yi2kwGyZBc44QiV7")
    # the prompt once, the CLI's expanded prompt once (each run sent both)
    assert len(said) == 2, task.lines
    assert said[1].startswith("Later: You are an expert frontend engineer.")
