"""Walk 60: real public session files (sources in the walk's sources.md), the findings
fixed here: F1 (``git branch`` options and a bare ``git branch X`` read as the session's
branch), F2 (mini-swe-agent's text mode: a ```python block's closing fence read as the
opening of the command), F3 (a mini-swe-agent submission's files, and scratch files the
agent deleted, in Files changed), F4 (``rm reproduce_issue.py`` taken as the last check),
F5 (mini-swe-agent 1.x's format error read as the user's words), F11 (a file written
with ``sudo tee``, ``tee -a`` or a quoted text over several lines).

Each test builds a small input modelled on the real file and fails on the code before
its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.sections import Section, extract_sections
from chunkscope.tui.cli import main

SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
DONE = "<returncode>0</returncode>\n<output>\n{}\n</output>"


def _traj(tmp_path: Path, messages: list[dict[str, str]], **info: str) -> Path:
    """A mini-swe-agent 1.15 trajectory (text mode: ```bash blocks) of `messages`,
    opening on its system message and a SWE-bench task."""
    path = tmp_path / "run.traj.json"
    head = [
        {"role": "system", "content": "You are a helpful assistant."},
        {
            "role": "user",
            "content": "<pr_description>\nConsider the following PR description:\n"
            "ModelChoiceIteratorValue is not hashable.\n</pr_description>\n"
            "<instructions>\nlong\n</instructions>",
        },
    ]
    doc = {"info": {"exit_status": "Submitted", "submission": "", "mini_version": "1.15.0", **info}}
    path.write_text(json.dumps({**doc, "messages": head + messages}, indent=2), encoding="utf-8")
    return path


def _bot(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def _out(text: str = "", code: int = 0) -> dict[str, str]:
    """mini-swe-agent's observation of a command: its return code, then its output."""
    return {"role": "user", "content": DONE.format(text).replace(">0<", f">{code}<", 1)}


def _by_name(sections: list[Section]) -> dict[str, tuple[str, ...]]:
    return {s.name: s.lines for s in sections}


#: gruckion/mini-swe-agent@d12a71af django__django-14915.traj.json, message 10: a
#: ```python block quoted, prose, then the one ```bash block that ran.
_QUOTED_THEN_RUN = (
    "THOUGHT: I see the class definition.\n\n"
    "```python\nclass ModelChoiceIteratorValue:\n    def __eq__(self, other):\n"
    "        return self.value == other\n```\n\n"
    "Because `__eq__` is defined but `__hash__` is not, the class is not hashable.\n\n"
    "I'll create a file named `reproduce_issue.py`.\n\n"
    "```bash\ncat <<'EOF' > reproduce_issue.py\nprint({value: 1})\nEOF\n```"
)


def test_a_quoted_code_block_s_close_is_no_opening_of_the_command(tmp_path: Path) -> None:
    """F2: with the fence's name optional, the ```python block's closing fence was taken
    as an unnamed shell block up to the ```bash line: the prose ran as ``$ Because ...``
    and the real command (``cat <<'EOF' > reproduce_issue.py``) was shown as text; the
    recap said ``Ran ``Because ...````. The command is the one ```bash block, as
    mini-swe-agent's ``action_regex`` picks it; the prose and the python block stay the
    bot's text."""
    path = _traj(tmp_path, [_bot(_QUOTED_THEN_RUN), _out()])
    bot = [t.text for t in load(path).turns if t.role == "Bot"]
    assert bot == [
        "THOUGHT: I see the class definition.\n\n"
        "```python\nclass ModelChoiceIteratorValue:\n    def __eq__(self, other):\n"
        "        return self.value == other\n```\n\n"
        "Because `__eq__` is defined but `__hash__` is not, the class is not hashable.\n\n"
        "I'll create a file named `reproduce_issue.py`.\n"
        "$ cat <<'EOF' > reproduce_issue.py\nprint({value: 1})\nEOF"
    ]
    # the recap's own reading of text-mode blocks (messages not from the reader)
    raw = [
        {"role": "user", "content": "Make ModelChoiceIteratorValue hashable."},
        _bot(_QUOTED_THEN_RUN),
        _out("Failed to use as dict key: unhashable type", 1),
        _bot("THOUGHT: Check it.\n\n```python\nx = 1\n```\n\nNow run it.\n\n```bash\nls\n```"),
        _out("reproduce_issue.py"),
    ]
    told = "\n".join(s for lines in _by_name(extract_sections(raw)).values() for s in lines)
    assert "`Because" not in told and "`Now run it" not in told
    assert "reproduce_issue.py (written)" in told


#: mini-swe-agent 1.15's ``format_error_template`` as the trajectory holds it.
_FORMAT_ERROR = (
    "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.\n\n"
    "Please format your action in triple backticks as shown in <response_example>.\n\n"
    "<response_example>\nHere are some thoughts about why you want to perform the action."
    "\n\n```bash\n<action>\n```\n</response_example>\n\n"
    "If you have completed your assignment, please consult the first message about how to\n"
    "submit your solution (you will not be able to continue working on this task after that)."
)


def test_mini_swe_agent_s_format_error_is_the_harness_s_answer(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F5: gruckion/mini-swe-agent@d12a71af pydata__xarray-6938.traj.json, messages
    56-57: a message with two ```bash blocks, then the harness's "Please always provide
    EXACTLY ONE action ..." (a user-role message nobody typed), shown as ``You:`` and
    told in What happened as a paragraph of its own. It is the harness's answer to a
    malformed message: a tool's result, and nothing of the recap."""
    two = (
        "THOUGHT: Let's check the type.\n\n```bash\ncat <<'EOF' > check_type.py\n"
        "print(type(ds['y'].variable))\nEOF\n```\n\n```bash\npython check_type.py\n```"
    )
    path = _traj(
        isolated,
        [
            _bot(two),
            {"role": "user", "content": _FORMAT_ERROR},
            _bot("THOUGHT: Run the script.\n\n```bash\npython check_type.py\n```"),
            _out("<class 'xarray.core.variable.Variable'>"),
        ],
    )
    turns = [(t.role, t.text) for t in load(path).turns]
    assert turns[2:] == [
        ("Bot", two),
        ("Tool", _FORMAT_ERROR),
        ("Bot", "THOUGHT: Run the script.\n$ python check_type.py"),
        ("Tool", DONE.format("<class 'xarray.core.variable.Variable'>")),
    ]
    assert main(["recap", str(path)]) == 0
    recap = capsys.readouterr().out
    assert "EXACTLY ONE" not in recap and "Please format" not in recap
