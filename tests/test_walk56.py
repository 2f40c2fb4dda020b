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
from pathlib import Path

from chunkscope.engine.read.parse import load

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
