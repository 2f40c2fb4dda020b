"""Walk 69 (summaries and the recap's Where it stopped), the findings fixed here.

F2: a summary kept the closing ``*`` of a span in italics whose opening it cut off
(``... you will see something like `/dev/sdc1`.* *(Replace ...).*``, M-Gemini's
dea67935 session). F4: Where it stopped kept a list item's state ("The **Windows Time**
service was stopped.") and dropped the sentence saying what was done ("I changed its
startup type to **Automatic** and started it."). F5: mini-swe-agent: Where it stopped
said the PR text the agent quoted in ``> `` lines as the agent's own state. F10: Where it
stopped on one line kept a fenced block indented in a list item as literal
"```bash lsblk ```". F13: Gemini thoughts: one subject label said twice in one summary
("Verifying Installation Success: ... Verifying Installation Success: ..."). F11:
reStructuredText ``.. attribute:: name`` descriptions were said without their names.

Each test fails on the code before its fix; inputs are modelled on the walk's real files
(/tmp/walk69/files), made small."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.recap.sections import extract_sections
from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, split_sentences
from chunkscope.tui.cli import main

#: A single ``*`` (not bold's): what opens or closes italics.
LONE_STAR = re.compile(r"(?<!\*)\*(?!\*)")

DRIVE_STEPS = (
    "You: how do I format E: to ext4?\n"
    "Bot: Here is how to format the drive from CachyOS.\n\n"
    "1.  **Find the device name:**\n"
    "    Run the list block devices command:\n"
    "    ```bash\n    lsblk\n    ```\n"
    "    *Look for a drive that matches the size of your Disk 2. It will likely be "
    "`/dev/sdc` or `/dev/sdd`. If it has an existing partition (like your old E:), you "
    "will see something like `/dev/sdc1`.*\n\n"
    "2.  **Format the partition:**\n"
    "    Assuming the partition is `sdc1`, run:\n\n"
    "    ```bash\n    sudo mkfs.ext4 /dev/sdc1\n    ```\n"
    "    *(Replace `sdc1` with your actual identifier found in the previous step).*\n"
)


def test_f2_a_sentence_cut_out_of_italics_keeps_both_marks() -> None:
    for s in split_sentences(DRIVE_STEPS):
        assert len(LONE_STAR.findall(s.text)) % 2 == 0, s.text
    summary = ExtractiveSummarizer().summarize(DRIVE_STEPS)
    for said in (summary.abstract, summary.summary):
        assert len(LONE_STAR.findall(said)) % 2 == 0, said
        assert ".* *(" not in said, said


def test_f2_a_glob_and_a_product_are_no_italics() -> None:
    said = [s.text for s in split_sentences("Bot: Use 2 * 3 here. Then *.py files. Run *all* now.")]
    assert said == ["Use 2 * 3 here.", "Then *.py files.", "Run *all* now."]


def recap_json(path: Path, capsys: pytest.CaptureFixture[str], budget: int) -> dict[str, Any]:
    assert main(["recap", str(path), "--budget", str(budget), "--format", "json"]) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def stopped(answer: dict[str, Any]) -> list[str]:
    """Where it stopped's lines."""
    lines: list[str] = next(s["lines"] for s in answer["sections"] if s["name"] == "last")
    return lines


SUBMIT = (
    "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached\n```"
)
#: The end of gruckion/mini-swe-agent's scikit-learn-12585 trajectory: the agent quotes
#: the PR in ``> `` lines, then says it did that and submits.
CLONE_TRAJECTORY = {
    "info": {"exit_status": "Submitted", "mini_version": "1.15.0"},
    "trajectory_format": "mini-swe-agent-1",
    "instance_id": "scikit-learn__scikit-learn-12585",
    "messages": [
        {"role": "system", "content": "You are a helpful assistant that can use a shell."},
        {
            "role": "user",
            "content": "<pr_description>\nConsider the following PR description:\n"
            "clone fails for parameters that are estimator types\n`clone` fails when one or "
            "more instance parameters are estimator types (i.e. not instances, but classes)."
            "\n</pr_description>",
        },
        {
            "role": "assistant",
            "content": "THOUGHT: I will edit line 51 of `sklearn/base.py`.\n\n```bash\n"
            'sed -i \'51s/.*/    elif not hasattr(estimator, "get_params") or '
            "isinstance(estimator, type):/' sklearn/base.py\n```",
        },
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"},
        {
            "role": "assistant",
            "content": "THOUGHT: The changes look correct and follow the instructions.\n\n"
            "One final check: The PR description says:\n> `clone` fails when one or more "
            "instance parameters are estimator types (i.e. not instances, but classes).\n\n"
            "And the fix:\n> Change `base.py`, line 51 to:\n> `elif not hasattr(estimator, "
            "'get_params') or isinstance(estimator, type):`\n\nThis is exactly what I did."
            "\n\nI'm ready to submit.\n\n" + SUBMIT,
        },
        {"role": "user", "content": "diff --git a/sklearn/base.py b/sklearn/base.py\n"},
    ],
}


def test_f5_where_it_stopped_says_no_quoted_line_as_the_agents_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scikit-learn__scikit-learn-12585.traj.json"
    path.write_text(json.dumps(CLONE_TRAJECTORY), encoding="utf-8")
    lines = stopped(recap_json(path, capsys, 200))
    said = " ".join(lines)
    assert "This is exactly what I did." in said, lines
    assert "`clone` fails when" not in said, lines
    assert "Change `base.py`, line 51 to" not in said, lines


def gemini_session(answer: str) -> dict[str, Any]:
    """A Gemini CLI session of one request and `answer`."""
    return {
        "sessionId": "dea67935",
        "projectHash": "y",
        "startTime": "2025-12-03T04:51:00.000Z",
        "lastUpdated": "2025-12-03T04:59:00.000Z",
        "messages": [
            {
                "id": "1",
                "timestamp": "2025-12-03T04:51:00.000Z",
                "type": "user",
                "content": "how do I format E: to ext4 from WSL?",
            },
            {
                "id": "2",
                "timestamp": "2025-12-03T04:52:00.000Z",
                "type": "gemini",
                "content": answer,
            },
        ],
    }


#: M-Gemini's dea67935 answer, made small: a top-level block, then a list item's blocks.
FORMAT_ANSWER = (
    "Here is how to format the drive.\n\n### Step 1: Mount\nRun this in PowerShell:\n\n"
    "```powershell\nwsl --mount \\\\.\\PHYSICALDRIVE2 --bare\n```\n\n### Step 2: Format\n"
    "1.  **Find the device name:**\n    Run the list block devices command:\n"
    "    ```bash\n    lsblk\n    ```\n"
    "    *Look for a drive that matches the size of your disk.*\n\n"
    "2.  **Format it:**\n    ```bash\n    sudo mkfs.ext4 /dev/sdc1\n    ```\n"
)


def test_f10_a_list_items_block_is_folded_like_one_at_the_margin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "session-dea67935.json"
    path.write_text(json.dumps(gemini_session(FORMAT_ANSWER)), encoding="utf-8")
    said = " ".join(stopped(recap_json(path, capsys, 1000)))
    assert "`wsl --mount \\\\.\\PHYSICALDRIVE2 --bare`" in said, said
    assert "```" not in said, said
    assert "`lsblk`" in said and "`sudo mkfs.ext4 /dev/sdc1`" in said, said


#: M-Gemini's e0f194ce chunk 9: two messages' thoughts of one subject (its call left out).
INSTALL_CHUNK = (
    "Tool: added 2 packages in 8s\n"
    "Tool: 1 package is looking for funding\n    run `npm fund` for details\n"
    "Bot thinking: Verifying Installation Success: The npm installation completed "
    "successfully, which is a great start. My next step will be to confirm the successful "
    "installation, ensuring all dependencies are correctly configured and accessible. I'll "
    "run a few diagnostic checks to validate everything is as it should be.\n"
    "Tool: 2.0.60 (Claude Code)\n"
    "Bot thinking: Verifying Installation Success: The installation is confirmed. I've "
    "switched gears and am now ready to relay success. Given the PowerShell script's "
    "failure, I'm focusing on npm as the verified path. I'll tell the user that `claude` is "
    "ready, and they can proceed.\n"
    "Bot: The Claude Code CLI has been successfully installed via `npm` (version 2.0.60).\n"
)


def test_f13_a_thoughts_subject_is_said_once() -> None:
    summary = ExtractiveSummarizer().summarize(INSTALL_CHUNK).summary
    assert summary.count("Verifying Installation Success:") == 1, summary
    assert "The installation is confirmed." in summary, summary


def test_f13_another_subject_is_said() -> None:
    text = (
        "Bot thinking: Checking Ports: Port `8080` is taken by `nginx` (pid 42).\n"
        "Bot thinking: Restarting Nginx: Port `8080` is free now and the app answers 200.\n"
    )
    summary = ExtractiveSummarizer().summarize(text).summary
    assert "Checking Ports: Port" in summary and "Restarting Nginx: Port" in summary, summary


#: M-Gemini's b25b948c last answer (its closing paragraph left out).
TIME_ANSWER = (
    "I have applied the following fixes to ensure your time stays correct:\n\n"
    "1.  **Registry Update**: Switched the `RealTimeIsUniversal` registry key from `DWORD` to "
    "`QWORD`. Windows 11 (x64) sometimes ignores the 32-bit `DWORD` version, which caused it "
    "to misinterpret the hardware clock (UTC) as Local Time on boot.\n"
    "2.  **Service Fix**: The **Windows Time** service was stopped. I changed its startup "
    "type to **Automatic** and started it.\n"
    "3.  **Time Sync**: Forced a successful time synchronization with `time.windows.com`.\n"
)


def test_f4_an_items_state_is_said_with_what_was_done() -> None:
    messages = [
        {"role": "user", "content": "fix the clock drift between CachyOS and Windows"},
        {"role": "assistant", "content": TIME_ANSWER},
    ]
    (lines,) = [s.lines for s in extract_sections(messages) if s.name == "last"]
    stopped_line = next(line for line in lines if "service was stopped" in line)
    assert "I changed its startup type to **Automatic** and started it." in stopped_line, lines


def test_f5_a_summary_says_no_line_the_agent_quotes() -> None:
    final = CLONE_TRAJECTORY["messages"][4]["content"]  # type: ignore[index]
    text = "Bot: " + final.removeprefix("THOUGHT: ").split("```")[0]
    summary = ExtractiveSummarizer().summarize(text)
    for said in (summary.abstract, summary.summary):
        assert "`clone` fails when" not in said, said
        assert "Change `base.py`, line 51 to" not in said, said


#: pallets/jinja docs/extensions.rst, the parser's attributes (as `chunk` gives them).
ATTRIBUTES = (
    "Doc:     .. attribute:: filename\n"
    "Doc:         The filename of the template the parser processes.  This is **not**\n"
    "        the load name of the template.  For the load name see :attr:`name`.\n"
    "Doc:     .. attribute:: name\n"
    "Doc:         The load name of the template.\n"
    "Doc:     .. attribute:: stream\n"
    "Doc:         The current :class:`~jinja2.lexer.TokenStream`\n"
    "Doc:     .. py:method:: Parser.fail(msg, lineno=None)\n"
    "Doc:         Convenience method that raises an exception.\n"
)


def test_f11_a_directives_description_is_said_with_its_name() -> None:
    said = [s.text for s in split_sentences(ATTRIBUTES)]
    assert said == [
        "`filename`: The filename of the template the parser processes.",
        "This is **not** the load name of the template.",
        "For the load name see :attr:`name`.",
        "`name`: The load name of the template.",
        "`stream`: The current :class:`~jinja2.lexer.TokenStream`",
        "`Parser.fail`: Convenience method that raises an exception.",
    ]


def test_f11_a_paragraph_after_another_directive_is_as_it_was() -> None:
    text = "Doc: .. note::\nDoc:    The filename is relative.\n"
    assert [s.text for s in split_sentences(text)] == ["The filename is relative."]
