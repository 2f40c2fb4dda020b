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
from typing import Any

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


def _act(thought: str, command: str) -> dict[str, str]:
    """An assistant's message in mini-swe-agent's format: its thought, its one command."""
    return _bot(f"THOUGHT: {thought}\n\n```bash\n{command}\n```")


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


def _codex(tmp_path: Path, *commands: tuple[str, str]) -> Path:
    """A Codex Desktop 0.128 rollout: the user's request, then each (command, output) as
    a ``shell_command`` call and its output (``Exit code``, ``Wall time``, ``Output:``)."""
    head = {"id": "s", "cwd": "/work/app", "originator": "Codex Desktop", "cli_version": "0.128.0"}
    ask = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Apply."}]}
    records: list[tuple[str, dict[str, object]]] = [("session_meta", head), ("response_item", ask)]
    for i, (command, output) in enumerate(commands):
        args = json.dumps({"command": command, "workdir": "/work/app"})
        call = {"type": "function_call", "name": "shell_command", "arguments": args}
        records.append(("response_item", {**call, "call_id": f"c{i}"}))
        text = f"Exit code: 0\nWall time: 0.4 seconds\nOutput:\n{output}"
        records.append(
            ("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": text})
        )
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-05-04T13:26:{i:02d}Z", "type": kind, "payload": p})
            + "\n"
            for i, (kind, p) in enumerate(records)
        ),
        encoding="utf-8",
    )
    return path


def _state(path: Path) -> tuple[str, ...]:
    """The Work state section the recap makes of a session file."""
    source = load(path)
    return _by_name(extract_sections(source.messages, source.notes)).get("state", ())


def test_git_branch_s_options_are_no_branch(tmp_path: Path) -> None:
    """F1: mesayanroy/Valdyum-Labs@cd9c97c0 codex-session.jsonl (Codex Desktop 0.128)
    ran ``git branch --show-current`` (line 131), and Work state said ``Branch:
    --show-current``; ``git branch -a`` gave ``Branch: -a``, ``git branch -D old`` gave
    ``Branch: -D``, and a bare ``git branch X`` (which makes X, the session staying on
    its branch) gave ``Branch: X``. An option is never a branch's name; what ``git
    branch --show-current`` printed is the branch."""
    shown = _codex(
        tmp_path,
        ("git status --short", " M client/components/Navbar.tsx\n"),
        ("git branch --show-current", "main\n"),
        ("git branch -D old-feature", "Deleted branch old-feature (was 1a2b3c4).\n"),
    )
    assert _state(shown)[:1] == ("Branch: main",)
    for command in ("git branch -a", "git branch -D old-feature", "git branch feature/x"):
        other = _codex(tmp_path, (command, "* main\n  feature/x\n"))
        assert not any(line.startswith("Branch:") for line in _state(other)), command
    switched = _codex(
        tmp_path, ("git checkout -b feature/x origin/main", "Switched to a new branch")
    )
    assert _state(switched)[:1] == ("Branch: feature/x",)


def test_a_check_is_the_program_run_never_a_file_removed(tmp_path: Path) -> None:
    """F4: gruckion/mini-swe-agent@d12a71af django__django-14915.traj.json, messages
    38-41: the tests ran OK, then the agent removed its scratch scripts (``rm
    reproduce_issue.py test_edge_cases.py``), which Last outcome took as the last check
    (a test-looking name anywhere on the line). Such a name is a check only as the
    program run (``python reproduce_issue.py``, ``./reproduce.py``)."""
    runtests = "python3 tests/runtests.py model_forms.test_modelchoicefield"
    path = _traj(
        tmp_path,
        [
            _bot("THOUGHT: Reproduce it.\n\n```bash\npython reproduce_issue.py\n```"),
            _out("Failed to use as dict key: unhashable type", 1),
            _bot(f"THOUGHT: Run the tests.\n\n```bash\n{runtests}\n```"),
            _out("Ran 24 tests in 0.045s\n\nOK"),
            _act("Remove the scripts.", "rm reproduce_issue.py test_edge_cases.py"),
            _out(),
            _act("Look at them.", "cat test_edge_cases.py | head -5 && ls tests/"),
            _out("model_forms"),
            _bot(f"THOUGHT: Submit.\n\n```bash\n{SUBMIT}\n```"),
            {"role": "user", "content": ""},
        ],
    )
    outcome = _by_name(extract_sections(load(path).messages))["outcome"]
    assert outcome[0] == f"Last check: `{runtests}` -> Ran 24 tests in 0.045s; OK (exit 0)"


def _gemini(tmp_path: Path, *commands: str) -> Path:
    """A Gemini CLI chat (``chats/session-*.json``): the user's request, then a message
    with a ``run_shell_command`` call of each command, each of which succeeded."""

    def call(i: int, command: str) -> dict[str, object]:
        output = f"Command: {command}\nDirectory: (root)\nOutput: (empty)"
        response = {"id": f"run_shell_command-{i}", "name": "run_shell_command"}
        return {
            **response,
            "args": {"command": command, "description": "Write the corrected configuration."},
            "status": "success",
            "result": [{"functionResponse": {**response, "response": {"output": output}}}],
        }

    doc = {
        "sessionId": "4eb0784d",
        "projectHash": "p",
        "startTime": "2025-12-28T03:31:00.000Z",
        "lastUpdated": "2025-12-28T04:29:00.000Z",
        "messages": [
            {
                "id": "u1",
                "timestamp": "2025-12-28T04:27:00.000Z",
                "type": "user",
                "content": "edit /boot/refind_linux.conf",
            },
            {
                "id": "g1",
                "timestamp": "2025-12-28T04:28:04.870Z",
                "type": "gemini",
                "content": "I'll use `run_shell_command` with `sudo tee`.",
                "toolCalls": [call(i, c) for i, c in enumerate(commands)],
            },
        ],
    }
    path = tmp_path / "session-2025-12-28T03-31-4eb0784d.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_a_file_written_with_sudo_tee_is_a_file_changed(tmp_path: Path) -> None:
    """F11: mischa-thisness/M-Gemini@3bad8d46 session-2025-12-28T03-31-4eb0784d.json,
    message 61: ``echo '"Boot using default options" ...⏎"Boot to terminal" ...' | sudo
    tee /boot/refind_linux.conf`` rewrote the file the user asked to edit; Files changed
    did not name it (``sudo`` before ``tee``, and the quoted text over two lines made
    the line with ``| tee`` unparseable). The same for ``sudo sed -i``, ``tee -a`` and
    ``env X=Y`` before the program."""
    entries = '"Boot using default options" "root=UUID=dccb rw quiet"\n"Boot to terminal" "rw"'
    for command, said in [
        (
            f"echo '{entries}' | sudo tee /boot/refind_linux.conf",
            "/boot/refind_linux.conf (written)",
        ),
        (
            "echo 'timeout 5' | sudo tee -a /boot/EFI/refind/refind.conf",
            "/boot/EFI/refind/refind.conf (written)",
        ),
        ("sudo sed -i 's/quiet/quiet splash/' /etc/pacman.conf", "/etc/pacman.conf (1 edit)"),
        ("env LC_ALL=C sed -i 's/a/b/' /etc/locale.conf", "/etc/locale.conf (1 edit)"),
        ("sudo -u root tee /etc/hosts.conf < hosts.txt", "/etc/hosts.conf (written)"),
    ]:
        files = _by_name(extract_sections(load(_gemini(tmp_path, command)).messages))["files"]
        assert files == (f"- {said}",), command


#: The patch pydata__xarray-6938's submission holds (one file).
_PATCH = (
    "diff --git a/xarray/core/dataset.py b/xarray/core/dataset.py\n"
    "index c775d05c..27d16e1c 100644\n--- a/xarray/core/dataset.py\n+++ b/xarray/core/dataset.py\n"
    "@@ -3773,6 +3773,8 @@ class Dataset(\n             if k in result_dims:\n"
    "                 var = v.to_index_variable()\n+                if var is v:\n"
    "+                    var = var.copy(deep=False)\n                 var.dims = dims\n"
)


def test_a_submitted_patch_s_files_are_changed_and_removed_scratch_files_are_not(
    tmp_path: Path,
) -> None:
    """F3: gruckion/mini-swe-agent@d12a71af pydata__xarray-6938.traj.json: the fix to
    ``xarray/core/dataset.py`` (made by a scratch ``apply_fix.py``) reached Files changed
    only through a ``git diff`` the agent might not run; the submission the run ended on
    (``git add -A && git diff --cached``, message 69) was not read, and the scratch
    files, removed by ``rm`` (message 62, return code 0) before submitting, were listed as
    "(written)". The submitted patch's files are "(in the diff)"; a file the session
    wrote and removed is no change; a file it edited and then removed is "deleted"."""
    fix = "cat <<'EOF' > apply_fix.py\nopen('xarray/core/dataset.py', 'w')\nEOF"
    test = "cat <<'EOF' > xarray/tests/test_swap_dims_mutation.py\ndef test_x(): pass\nEOF"
    path = _traj(
        tmp_path,
        [
            _act("Reproduce.", "cat <<'EOF' > reproduce_issue.py\nimport xarray\nEOF"),
            _out(),
            _bot(f"THOUGHT: Write the fix.\n\n```bash\n{fix}\n```"),
            _out(),
            _bot("THOUGHT: Apply it.\n\n```bash\npython apply_fix.py\n```"),
            _out(),
            _bot("THOUGHT: A note.\n\n```bash\nsed -i 's/old/new/' doc/whats-new.rst\n```"),
            _out(),
            _bot(f"THOUGHT: A regression test.\n\n```bash\n{test}\n```"),
            _out(),
            _bot(
                "THOUGHT: Clean up.\n\n```bash\nrm reproduce_issue.py apply_fix.py "
                "xarray/tests/test_swap_dims_mutation.py && rm -f doc/whats-new.rst\n```"
            ),
            _out(),
            _bot(f"THOUGHT: Submit.\n\n```bash\n{SUBMIT}\n```"),
            {"role": "user", "content": _PATCH},
        ],
    )
    files = _by_name(extract_sections(load(path).messages))["files"]
    assert files == ("- xarray/core/dataset.py (in the diff)", "- doc/whats-new.rst (deleted)")
    # a file written again after its removal is the session's
    again = json.loads(path.read_text(encoding="utf-8"))
    again["messages"][-2:-2] = [
        _bot("THOUGHT: Again.\n\n```bash\necho x > apply_fix.py\n```"),
        _out(),
    ]
    # (``git add -A`` submits it: walk 64, F3, a file the submitted diff does not hold is
    # none of the work's)
    added = "diff --git a/apply_fix.py b/apply_fix.py\nnew file mode 100644\n+x\n"
    again["messages"][-1]["content"] += added
    path.write_text(json.dumps(again), encoding="utf-8")
    files = _by_name(extract_sections(load(path).messages))["files"]
    assert any(line.startswith("- apply_fix.py (") for line in files), files


def test_system_files_outside_any_folder_keep_their_whole_path(tmp_path: Path) -> None:
    """F11, then: the same session also edited two ``.desktop`` files under
    ``~/.local/share/applications``; with ``/boot/refind_linux.conf`` read as written,
    the three paths shared the root alone and each lost its leading ``/``
    (``boot/refind_linux.conf`` reads as a path in the project). Paths that share no
    folder keep their whole path."""
    apps = "/home/mischa/.local/share/applications"
    path = _gemini(
        tmp_path,
        f"sed -i 's/Exec=a/Exec=b/' {apps}/gemini.desktop",
        f"sed -i 's/Icon=a/Icon=b/' {apps}/helium.desktop",
        "echo 'entry' | sudo tee /boot/refind_linux.conf",
    )
    files = _by_name(extract_sections(load(path).messages))["files"]
    assert files == (
        f"- {apps}/: gemini.desktop (1 edit), helium.desktop (1 edit)",
        "- /boot/refind_linux.conf (written)",
    )


def test_a_file_made_committed_and_removed_is_deleted() -> None:
    """F3, then: a file the session wrote and committed, then removed (the bench's
    cc-graph-monitor session: ``rm -rf data-capture`` after the commit that added its
    ``tsconfig.json``) is a change of the work's: said deleted, not left out."""

    def bash(cid: str, command: str) -> dict[str, Any]:
        call = {"id": cid, "type": "function", "function": {"name": "Bash"}}
        call["function"]["arguments"] = json.dumps({"command": command})
        return {"role": "assistant", "content": "", "tool_calls": [call]}

    write = {"id": "w1", "type": "function", "function": {"name": "Write"}}
    write["function"]["arguments"] = json.dumps({"file_path": "data-capture/tsconfig.json"})
    messages = [
        {"role": "user", "content": "Move data-capture to src."},
        {"role": "assistant", "content": "", "tool_calls": [write]},
        {"role": "tool", "tool_call_id": "w1", "content": "File created successfully"},
        bash("b1", "git commit -m 'refactor: typescript'"),
        {"role": "tool", "tool_call_id": "b1", "content": "[main 218fc8a] refactor: typescript"},
        bash("b2", "rm -rf data-capture"),
        {"role": "tool", "tool_call_id": "b2", "content": "", "exit_code": 0},
    ]
    files = _by_name(extract_sections(messages))["files"]
    assert files == ("- data-capture/tsconfig.json (deleted)",)
