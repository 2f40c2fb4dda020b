"""Walk 60: real public session files (sources in the walk's sources.md), the recap
findings fixed: F6 (files outside the session's folder warned of as "Not committed" and
named as if in the project), F8 (Where it stopped said an earlier request's answer when
the last message got none: a usage limit before it, or tool work with no words), F9 (a
sentence Where it stopped holds cut short said again whole in What happened), F10 (the
agent's question to itself taken as asked of the user) and F13 (a sentence pointing
back at the one before with "copying that" kept without it).

The inputs are small synthetic logs modelled on the real files. Each test fails on the
code before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.sections import Section, extract_sections

_CWD = "/home/ann/work/lokal"


class _Claude:
    """A Claude Code 2.1 log (JSONL) built record by record, each the child of the one
    before, as the real files chain them."""

    def __init__(self, cwd: str = _CWD) -> None:
        self.rows: list[dict[str, Any]] = []
        self.base = {"sessionId": "s1", "cwd": cwd, "version": "2.1.126", "gitBranch": "main"}

    def _add(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        n = len(self.rows)
        row = {
            **self.base,
            "type": kind,
            "uuid": f"r{n}",
            "parentUuid": f"r{n - 1}" if n else None,
            "timestamp": f"2026-05-01T17:{n // 60:02d}:{n % 60:02d}Z",
            "message": message,
            **extra,
        }
        self.rows.append(row)

    def user(self, text: str) -> _Claude:
        self._add("user", {"role": "user", "content": text})
        return self

    def bot(self, text: str) -> _Claude:
        self._add("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]})
        return self

    def tool(self, name: str, args: dict[str, Any], result: str) -> _Claude:
        tid = f"toolu_{len(self.rows)}"
        use = {"type": "tool_use", "id": tid, "name": name, "input": args}
        self._add("assistant", {"role": "assistant", "content": [use]})
        done = {"type": "tool_result", "tool_use_id": tid, "content": result}
        self._add("user", {"role": "user", "content": [done]})
        return self

    def api_error(self, text: str, error: str = "rate_limit") -> _Claude:
        """Claude Code's API error record: an assistant message of the tool's own."""
        content = [{"type": "text", "text": text}]
        self._add(
            "assistant",
            {"role": "assistant", "model": "<synthetic>", "content": content},
            isApiErrorMessage=True,
            error=error,
            apiErrorStatus=429,
        )
        return self

    def sections(self, tmp_path: Path) -> dict[str, Section]:
        path = tmp_path / "claude-session.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in self.rows), encoding="utf-8")
        source = load(path, keep_messages=True)
        return {s.name: s for s in extract_sections(source.messages, source.notes)}


_PREAMBLE = "_TEL_TIER=$(cat ~/.superstack/config.json 2>/dev/null || echo anonymous)"


def test_f8_a_usage_limit_before_the_last_message_is_where_it_stopped(tmp_path: Path) -> None:
    """F8 (cc-lokal.jsonl, sempervincere/lokal): the agent said it would run a skill, ran
    it, and Claude Code's usage limit stopped it (an API error record); the user typed
    "continue generating" 17 minutes later and the log ends. Where it stopped said the
    agent's sentence from before the skill ran; it says the message got no answer and
    the error the agent had stopped on."""
    log = (
        _Claude()
        .user("Help me apply for the agentic engineering grant with docs/PRD.md.")
        .bot("Now I have all data needed. Let me invoke the apply-grant skill with full context.")
        .tool("Skill", {"skill": "apply-grant", "args": "Project: LOKAL"}, "Launching skill")
        .tool("Bash", {"command": _PREAMBLE}, "TELEMETRY: anonymous")
        .api_error("You're out of extra usage · resets May 4, 3am (Asia/Jakarta)")
        .user("continue generating")
    )
    last = log.sections(tmp_path)["last"]
    assert last.lines == (
        'No answer to the user\'s last message ("continue generating"); the agent had '
        "stopped on: You're out of extra usage · resets May 4, 3am (Asia/Jakarta) "
        "(rate limit).",
    ), last.lines


def test_f8_an_error_the_agent_went_on_after_is_no_stop(tmp_path: Path) -> None:
    """F8's limit: an error the agent got past (it spoke after it) is not where it
    stopped, and a last message with an answer keeps the answer."""
    log = (
        _Claude()
        .user("Apply for the grant with docs/PRD.md.")
        .api_error("Overloaded", "overloaded")
        .bot("The draft is in grant.md, 3 sections filled from docs/PRD.md.")
        .user("continue generating")
    )
    last = log.sections(tmp_path)["last"]
    assert last.lines == ("The draft is in grant.md, 3 sections filled from docs/PRD.md.",)


def test_f8_a_last_request_taken_up_with_tools_alone_is_said_started(tmp_path: Path) -> None:
    """F8 (cc-bhavana.jsonl, ikihin/bhavana): the user's last request was taken up (a
    skill launched, its preamble run) and the log ends with no words of the agent's on
    it; Where it stopped said the closing table of the request before. It says the last
    request was started and the calls run on it."""
    log = (
        _Claude("/home/ann")
        .user("Build the Bhavana frontend with a wallet connect and a portfolio page.")
        .tool("Write", {"file_path": "/home/ann/bhavana/src/App.tsx", "content": "x"}, "ok")
        .bot("Done. Dark navy bg `#0F1923`, 6 components written in src/components.")
        .user("help me apply for the agentic engineering grant by Superteam for Bhavana")
        .tool("Skill", {"skill": "apply-grant", "args": "Bhavana"}, "Launching skill")
        .tool("Bash", {"command": _PREAMBLE}, "TELEMETRY: anonymous")
    )
    (line,) = log.sections(tmp_path)["last"].lines
    assert line.startswith(
        "Started on the user's last request (\"help me apply for the agentic engineering "
        'grant by Superteam for Bhavana") with 2 tool calls and no words on it yet: '
        "Skill (apply-grant); `_TEL_TIER="
    ), line
    assert "navy" not in line


def test_f6_files_outside_the_session_s_folder_are_no_uncommitted_work(tmp_path: Path) -> None:
    """F6 (cc-x402.jsonl, SublyFi/privacy-x402; cc-flux.jsonl, YatharthPnwr/Flux): a
    session in ``~/work/subly`` wrote one-off scripts in ``/tmp``, Claude Code's memory
    of the project (``~/.claude/projects/*/memory``) and a skill's telemetry log
    (``echo ... >> ~/.superstack/telemetry.jsonl``); Work state warned "Not committed"
    of them and Files changed named them as the project's (``count_demo.mjs``). No
    commit could take them: no warning, and each keeps its folder (the home as ``~``)."""
    memory = "/home/ann/.claude/projects/-home-ann-work-subly/memory/MEMORY.md"
    log = (
        _Claude("/home/ann/work/subly")
        .user("Count the deposits of the x402 program on devnet.")
        .tool("Write", {"file_path": "/tmp/count_demo.mjs", "content": "x"}, "File created")
        .tool(
            "Edit", {"file_path": "/tmp/count_demo.mjs", "old_string": "a", "new_string": "b"}, "ok"
        )
        .tool("Write", {"file_path": memory, "content": "x"}, "File created")
        .tool("Bash", {"command": "echo '{}' >> ~/.superstack/telemetry.jsonl"}, "")
        .bot("There are 14 deposits and 2 failed ones on devnet.")
    )
    sections = log.sections(tmp_path)
    assert sections["state"].lines == ("Branch: main",), sections["state"].lines
    assert sections["files"].lines == (
        "- /tmp/count_demo.mjs (2 edits)",
        "- ~/.claude/projects/-home-ann-work-subly/memory/MEMORY.md (written)",
        "- ~/.superstack/telemetry.jsonl (written)",
    ), sections["files"].lines


def test_f6_a_file_of_the_project_is_still_uncommitted_work(tmp_path: Path) -> None:
    """F6's limit: a file in the session's folder, or in a sibling folder that may be the
    same repository's (``~/work/repo/api`` of a session in ``~/work/repo/web``), is
    still warned of, named as before; a hidden folder of the home is outside the project
    even of a session run in the home itself (cc-bhavana.jsonl)."""
    log = (
        _Claude("/home/ann/work/repo/web")
        .user("Add the login page and its API route.")
        .tool("Write", {"file_path": "/home/ann/work/repo/web/login.tsx", "content": "x"}, "ok")
        .tool("Write", {"file_path": "/home/ann/work/repo/api/login.py", "content": "x"}, "ok")
        .bot("The login page and its route are written.")
    )
    (_, warned) = log.sections(tmp_path)["state"].lines
    assert warned == (
        "Not committed: no commit in this session after editing login.tsx, "
        "/home/ann/work/repo/api/login.py."
    ), warned
    home = (
        _Claude("/home/ann")
        .user("Build the Bhavana frontend with a wallet connect page.")
        .tool("Write", {"file_path": "/home/ann/bhavana/src/App.tsx", "content": "x"}, "ok")
        .tool("Bash", {"command": "echo '{}' >> ~/.superstack/telemetry.jsonl"}, "")
        .bot("The wallet connect page is in bhavana/src/App.tsx.")
    )
    sections = home.sections(tmp_path)
    assert sections["state"].lines[-1] == (
        "Not committed: no commit in this session after editing bhavana/src/App.tsx."
    ), sections["state"].lines
    assert "- ~/.superstack/telemetry.jsonl (written)" in sections["files"].lines


_CONFLICT = (
    '**The Conflict:** Because the browser has it registered as "Installed", it won\'t '
    'offer the "Install Gemini" option again, even though the desktop shortcut '
    "(`.desktop` file) is missing from your system."
)
_RIGHT_CLICK = '**Right-click** the icon and select **"Remove from Helium"** (or "Uninstall").'


def test_f9_a_sentence_where_it_stopped_says_cut_short_is_said_already() -> None:
    """F9 (gemini-mg-d5169a00.json, mischa-thisness/M-Gemini): Where it stopped said the
    last message's list items on one line, cut at its limit inside item 3 ("it...") and
    inside a step ("select..."); What happened gave both again whole, at its end. A
    sentence a section says cut short is said already, as a whole one is; one the cut
    line does not reach is kept."""
    from chunkscope.engine.recap.core import Candidate, _deduped
    from chunkscope.engine.summarize import Summary

    prefix = (
        "## Where it stopped\n"
        "Here is the situation: **Network:** Connectivity to Google is fine; **App State:** "
        "I found the internal App ID registered in your Helium profile; **The Conflict:** "
        'Because the browser has it registered as "Installed", it...\n'
        "Since the browser interface is controlling this, you need to remove the stuck "
        "registration manually: Open **Helium**; Look for the **Gemini** icon in the grid "
        "of installed apps; **Right-click** the icon and select..."
    )
    other = "The troubleshooting shows that Helium still thinks the Gemini App is installed."
    cands = [
        Candidate(0, Summary(other, other), 1.0),
        Candidate(1, Summary(_CONFLICT, _CONFLICT), 1.0),
        Candidate(2, Summary(_RIGHT_CLICK, f"{_RIGHT_CLICK} Then open Gemini again."), 1.0),
    ]
    out = [c.summary.summary for c in _deduped(cands, prefix)]
    assert out == [other, "", "Then open Gemini again."], out


def test_f10_a_question_the_agent_asks_itself_is_no_open_question(tmp_path: Path) -> None:
    """F10 (gemini-mg-4eb0784d.json, mischa-thisness/M-Gemini): the last message thought
    aloud, "Wait, I should also check if the user wants the "biggest" icons, maybe I
    should check if there are 1024 icons? (Unlikely)." then "Actually, `512` is already
    huge."; the recap showed it as the Open question to the user. A question that names
    the user in the third person, or that the next sentence answers, asks the user
    nothing; a question to the user still is one."""
    thinking = (
        "I'll update the menuentry for CachyOS to match the new kernel parameters.\n\n"
        'Wait, I should also check if the user wants the "biggest" icons, maybe I should '
        "check if there are 1024 icons? (Unlikely).\nActually, `512` is already huge.\n\n"
        "I'll update /boot/EFI/refind/refind.conf with the new options."
    )
    answered = (
        "The refind.conf entry now boots CachyOS with the new options. Should I also raise "
        "the timeout to 10 seconds? Probably not, 5 seconds is what the old entry used."
    )
    question = "Do you want the 1024 icons as well?"
    asking = f"The refind.conf entry is updated. {question}"
    for last, open_question in ((thinking, ()), (answered, ()), (asking, (question,))):
        log = _Claude().user("Use the biggest icons in the rEFInd theme.").bot(last)
        questions = log.sections(tmp_path)["questions"]
        assert questions.lines == open_question, (last, questions.lines)


def test_f13_a_sentence_whose_object_points_back_keeps_what_it_points_at(
    tmp_path: Path,
) -> None:
    """F13 (codex-firststep.jsonl, iamaanahmad/firststep): at a small budget Where it
    stopped kept "I'm copying that into the project root now ..." and dropped "I found
    the latest Codex session log under ..." that says what "that" is. A sentence whose
    object, in its first words, points back ("copying that", "run it") is said with the
    sentence before it, on its line; "that" as a conjunction or with its noun is not."""
    found = "I found the latest Codex session log under `~/.codex/sessions/2026/04/30/`."
    copying = (
        "I’m copying that into the project root now so you have the proof-of-AI-work file "
        "the grant asks for."
    )
    log = _Claude().user("Help me apply for the grant.").bot(f"{found} {copying}")
    assert log.sections(tmp_path)["last"].lines == (f"{found} {copying}",)
    said = "I checked that the grant needs a transcript file in the project root."
    log = _Claude().user("Help me apply for the grant.").bot(f"{found} {said}")
    assert log.sections(tmp_path)["last"].lines == (said,)
