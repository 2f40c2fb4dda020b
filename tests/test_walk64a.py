"""Walk 64 (fixer a): the CLI on new real public files (sources in the walk's
sources.md), the findings fixed here:

- F15: aider 0.50 writes a blank line of the user's message as ``####`` alone; it was
  read as the model saying ``####``, cutting the user's message into pieces;
- F2: the prompt aider writes after a ``/help Q`` (``# Question:``, ``# Relevant docs:``,
  its ``<doc>`` pages) was read as the user's words, a ``<doc>`` among the Task's requests;
- F3: a file the agent put back with ``git checkout FILE`` / ``git restore FILE`` was in
  "Files changed", and a trajectory's list disagreed with its submitted diff;
- F17: at the default budget a long first request took the Task's share and every
  ``Later:`` request was dropped, the unanswered last one too; "No answer to the user's
  last message: ERROR" did not say what was asked;
- F14: a recap of an aider history of aider's notices alone gave two contradicting
  reasons for being empty;
- F9: a Codex web search's ``open_page`` without a URL was ``web_fetch url=null``,
  collapsed to ``Fetched ?.``.

Each test builds a small input modelled on the real file and fails on the code before
its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chunkscope.engine.read.parse import load

AIDER_BLANKS = """# aider chat started at 2024-08-20 11:24:03

#### jak zprovoznit přihlašování ? An error occured

####

#### invalid_request

####

#### prosím oprav to

Přihlašování opravíme v souboru app/routes/account.tsx.
"""


def _aider(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_f15_a_bare_hashes_line_is_the_user_s_blank_line(tmp_path: Path) -> None:
    turns = load(_aider(tmp_path, AIDER_BLANKS)).turns
    said = [(t.role, t.text) for t in turns]
    assert not any(text.strip() == "####" for _, text in said), said
    # one message of the user's (its lines where the file has them), then the answer
    assert [role for role, _ in said] == ["You", "Bot"], said
    words = "jak zprovoznit přihlašování ? An error occured invalid_request prosím oprav to"
    assert said[0][1].split() == words.split()
    assert (turns[0].source_line, turns[0].last_line) == (3, 11)


AIDER_HELP = """# aider chat started at 2024-08-20 11:24:03

#### /help jak mám určit co ukládat do repository map

#### # Question: jak mám určit co ukládat do repository map

####

#### # Relevant docs:

####

#### <doc>

#### Repository map

####

#### Aider uses a **concise map of your whole git repository**

#### </doc>

####

#### <doc>

#### parent: More info nav_order: 800 description: Aider is tightly integrated with git.

#### </doc>

####

#### # Announcement lines from when this session of aider was launched:

####

#### Aider v0.50.1

To choose what goes into the repository map, add the files you work on to the chat.

> Tokens: 7,031 sent, 326 received. Cost: $0.0011 message, $0.0018 session.

#### uprav to ale nerozbij kod

Upravím jen styly.
"""


def test_f2_aider_s_help_prompt_is_aider_s_not_the_user_s(tmp_path: Path) -> None:
    source = load(_aider(tmp_path, AIDER_HELP))
    users = [t for t in source.turns if t.role == "You"]
    assert [t.text for t in users] == [
        "/help jak mám určit co ukládat do repository map",
        "uprav to ale nerozbij kod",
    ]
    # the prompt's lines are accounted: left out of the record read, whose turn spans them
    assert source.stripped == {"prompts aider writes after a /help question (its docs pages)": 1}
    assert (users[0].source_line, users[0].last_line) == (3, 37)
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == source.records


def test_f2_the_help_question_is_a_request_of_the_task(tmp_path: Path) -> None:
    from chunkscope.engine.segment.requests import request_text

    assert request_text("/help jak mám určit co ukládat do repository map") == (
        "jak mám určit co ukládat do repository map"
    )
    assert request_text("/help") is None  # aider's list of commands: no request


SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"


def _traj(tmp_path: Path, steps: list[tuple[str, str]], submission: str) -> Path:
    """A mini-swe-agent 1.x trajectory (```bash blocks): each step a command and its
    output, then the submission it ended on."""
    import json

    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {
            "role": "user",
            "content": "<pr_description>\nhist() ignores range=...\n</pr_description>",
        },
    ]
    for command, output in steps:
        messages.append(
            {"role": "assistant", "content": f"THOUGHT: Go.\n\n```bash\n{command}\n```"}
        )
        messages.append(
            {
                "role": "user",
                "content": f"<returncode>0</returncode>\n<output>\n{output}\n</output>",
            }
        )
    messages.append({"role": "assistant", "content": f"THOUGHT: Submit.\n\n```bash\n{SUBMIT}\n```"})
    messages.append({"role": "user", "content": submission})
    info = {"exit_status": "Submitted", "submission": submission, "mini_version": "1.15.0"}
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps({"info": info, "messages": messages}), encoding="utf-8")
    return path


def _files(path: Path) -> tuple[str, ...]:
    from chunkscope.engine.recap.sections import extract_sections

    return next(s.lines for s in extract_sections(load(path).messages) if s.name == "files")


def _diff(*paths: str) -> str:
    return "".join(
        f"diff --git a/{p} b/{p}\nindex 4b73d52..bc5461a 100644\n--- a/{p}\n+++ b/{p}\n"
        "@@ -1 +1 @@\n-density = bool(density) or bool(normed)\n+density = bool(density)\n"
        for p in paths
    )


AXES = "lib/matplotlib/axes/_axes.py"
TEST = "lib/matplotlib/tests/test_axes.py"


def test_f3_a_file_put_back_with_git_checkout_is_no_change(tmp_path: Path) -> None:
    """mini-mpl-13989: a test appended with ``cat >>``, then ``git checkout FILE``
    (message 52); the submission holds only _axes.py."""
    steps = [
        (f"sed -i 's/density = bool(density) or bool(normed)/density = bool(density)/' {AXES}", ""),
        (f"cat <<'EOF' >> {TEST}\ndef test_hist_range(): pass\nEOF", ""),
        (f"git checkout {TEST}", "Updated 1 path from the index"),
    ]
    assert _files(_traj(tmp_path, steps, _diff(AXES))) == (f"- {AXES} (1 edit)",)
    # without a submitted diff too: the put back file is no change (git checkout --, git
    # restore); git restore --staged only unstages, the change stays
    for put_back in (f"git checkout -- {TEST}", f"cd /testbed && git restore {TEST}"):
        steps[-1] = (put_back, "")
        assert _files(_traj(tmp_path, steps, "")) == (f"- {AXES} (1 edit)",), put_back
    steps[-1] = (f"git restore --staged {TEST}", "")
    assert _files(_traj(tmp_path, steps, "")) == (f"- {AXES} (1 edit)", f"- {TEST} (written)")


def test_f3_a_file_a_diff_showed_then_put_back_is_no_change(tmp_path: Path) -> None:
    """mini-astropy-14365: ``git diff`` showed pyproject.toml beside qdp.py, then ``git
    checkout pyproject.toml`` (message 38); the submission is qdp.py alone."""
    qdp = "astropy/io/ascii/qdp.py"
    steps = [
        (f"sed -i 's/READ SERR/(?i)READ SERR/' {qdp}", ""),
        ("git diff", _diff(qdp, "pyproject.toml")),
        ("git checkout pyproject.toml", "Updated 1 path from the index"),
    ]
    assert _files(_traj(tmp_path, steps, _diff(qdp))) == (f"- {qdp} (1 edit)",)
    assert _files(_traj(tmp_path, steps, "")) == (f"- {qdp} (1 edit)",)


def test_f3_the_files_agree_with_the_submitted_diff(tmp_path: Path) -> None:
    """An edit the submission does not hold is said not submitted; a scratch script the
    shell wrote and the submission does not hold is none of the work's."""
    other = "lib/matplotlib/cbook/__init__.py"
    steps = [
        (f"sed -i 's/density = bool(density) or bool(normed)/density = bool(density)/' {AXES}", ""),
        (f"sed -i 's/np.Inf/np.inf/' {other}", ""),
        ("cat <<'EOF' > reproduce_issue.py\nimport matplotlib\nEOF", ""),
    ]
    assert _files(_traj(tmp_path, steps, _diff(AXES))) == (
        f"- {AXES} (1 edit)",
        f"- {other} (1 edit, not submitted)",
    )
    # (with no diff submitted, every file as before)
    assert _files(_traj(tmp_path, steps, "")) == (
        f"- {AXES} (1 edit)",
        f"- {other} (1 edit)",
        "- reproduce_issue.py (written)",
    )


def _claude(tmp_path: Path, turns: list[tuple[str, str]]) -> Path:
    """A Claude Code 2.1 session of (role, text) turns; role "error" is an API error record
    in the agent's place (``isApiErrorMessage``)."""
    import json

    base = {"sessionId": "s", "cwd": "/w/polydot", "version": "2.1.79"}
    rows = []
    for n, (role, text) in enumerate(turns):
        row = {
            **base,
            "type": "user" if role == "user" else "assistant",
            "uuid": f"m{n}",
            "parentUuid": f"m{n - 1}" if n else None,
            "timestamp": f"2026-03-01T10:{n:02d}:00Z",
            "message": {
                "role": "user" if role == "user" else "assistant",
                "content": text if role == "user" else [{"type": "text", "text": text}],
            },
        }
        if role == "error":
            row |= {"isApiErrorMessage": True, "error": "invalid_request"}
        rows.append(row)
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


#: A first request the size of cc-solsmile's spec (its link list): over the Task's share.
SPEC = "PolyDot — Complete Build Specification: read every page below before coding. " + " ".join(
    f"{k}. https://docs.polkadot.com/smart-contracts/page-{k}/;" for k in range(1, 60)
)
LAST = "deploy the contract i have updated env with tokens"


def test_f17_the_unanswered_last_request_is_kept_before_the_spec_s_tail(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    from chunkscope.tui.cli import main

    for name in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"CHUNKSCOPE_{name}_DIR", str(tmp_path / name.lower()))
    path = _claude(
        tmp_path,
        [
            ("user", SPEC),
            ("assistant", "The contracts and the frontend are built; all 69 tests pass."),
            ("user", "continue please and make sure you test deploy everything"),
            ("assistant", "The deploy script ran on the local node; the testnet needs funds."),
            ("user", LAST),
            ("error", "API Error: 400 Invalid model: claude-sonnet-4.6."),
        ],
    )
    from chunkscope.engine.recap.sections import extract_sections, fit_sections
    from chunkscope.engine.tokens import get_counter

    # the Task's share of the allowance the default budget leaves the sections, as the
    # other sections of cc-solsmile (a plan, files, the work state) left it: the spec
    # first, cut, and the last request kept
    task = next(s for s in extract_sections(load(path).messages) if s.name == "task")
    fitted = fit_sections([task], 800, get_counter())[0].lines
    assert fitted[0].startswith("PolyDot — Complete Build Specification: read every page")
    assert fitted[0].endswith("...") and fitted[-1] == f"Later: {LAST}", fitted
    assert main(["recap", str(path)]) == 0
    recap = capsys.readouterr().out
    stopped = recap.split("## Where it stopped\n", 1)[1].split("\n\n", 1)[0]
    assert stopped.startswith(f'No answer to the user\'s last message ("{LAST}"): '), stopped


def test_f14_a_history_of_aider_s_notices_says_one_true_reason(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """aider-localfit: two ``# aider chat started`` headers, each with aider's notice;
    `chunk` reads 2 turns, the recap said "the file has no turns" and "no merged chunk
    has a summary" at once."""
    from chunkscope.tui.cli import main

    for name in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"CHUNKSCOPE_{name}_DIR", str(tmp_path / name.lower()))
    notice = "> You can skip this check with --no-gitignore  \n"
    path = _aider(
        tmp_path,
        f"\n# aider chat started at 2025-06-01 10:00:00\n\n{notice}"
        f"\n# aider chat started at 2025-06-01 10:05:00\n\n{notice}",
    )
    assert len(load(path).turns) == 2
    assert main(["recap", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    notes = err.splitlines()[1:]
    assert notes == [
        "chunkscope: no turn to tell: the file's turns are the tool's own output, no words of "
        "the user's or the agent's: the recap is empty"
    ], err


def test_f9_a_codex_open_page_without_a_url_says_only_what_the_log_has(tmp_path: Path) -> None:
    """codex-trezo line 49: ``{"type":"web_search_call","status":"completed","action":
    {"type":"open_page"}}``, no ``url`` key: shown ``web_fetch url=null`` and collapsed to
    ``Fetched ?.``."""
    import json

    from chunkscope.engine.recap.collapse import collapse_messages

    head = {"id": "s", "cwd": "/work/trezo", "originator": "codex_cli_rs", "cli_version": "0.120.0"}
    ask = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Apply."}]}
    actions = [
        {"type": "open_page", "url": "https://superteam.fun/earn/grants/agentic-engineering"},
        {"type": "open_page"},
        {"type": "find_in_page", "pattern": "typeform"},
    ]
    records = [("session_meta", head), ("response_item", ask)] + [
        ("response_item", {"type": "web_search_call", "status": "completed", "action": a})
        for a in actions
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-04-10T10:19:{i:02d}Z", "type": kind, "payload": p})
            + "\n"
            for i, (kind, p) in enumerate(records)
        ),
        encoding="utf-8",
    )
    source = load(path)
    calls = [t.text for t in source.turns if t.role == "Bot"]
    assert not any("null" in c or "None" in c for c in calls), calls
    said = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert said == [
        "Fetched https://superteam.fun/earn/grants/agentic-engineering.",
        "Fetched a web page (no URL in the log).",
        "Searched the web for 'typeform'.",
    ]
