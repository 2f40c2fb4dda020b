"""The recap's procedural sections: what a resuming agent reads first.

`extract_sections(messages, notes)` reads a session's messages (`Source.messages`, the
seed's shape that every reader produces: ``role``, ``content``, ``tool_calls`` with
``function.name`` / ``function.arguments``, tool results with ``tool_call_id``) and
fills each section from the exact records the log holds:

- ``session``: the tool's own title records (Claude Code's ``summary`` records).
- ``task``: the user's requests, compressed: the first one (the text of a
  ``<pr_description>`` / ``<issue>`` / ``<task>`` block when the request wraps one),
  then the later ones that say something (not "continue", "yes", tool output), the
  latest first when the budget is short; another hook's message and aider's commands are
  not requests; the user's answers to the agent's questions follow (``Answered:``).
- ``rejections``: tool calls the user refused and requests the user interrupted, with
  the user's words (Claude Code's refusal results and ``[Request interrupted by user]``,
  other tools' "rejected by the user" results, aider's declined shell commands).
- ``plan``: the last todo list or plan (``TodoWrite``, ``update_plan``, ``write_todos``,
  ...): ``[x]`` done, ``[~]`` in progress, ``[ ]`` pending.
- ``files``: the files written or edited (``Edit``, ``Write``, ``MultiEdit``,
  ``apply_patch``, the seed's ``edit`` / ``write``, Gemini's ``replace`` /
  ``write_file``, ``sed -i`` and ``cat > f`` in shell commands), with counts.
- ``state``: the work's state: the branch (the readers' ``branch:`` note, ``git status``),
  the commits made (each once), pushed or not, a pull request (``gh pr create``), what is
  uncommitted (the last ``git status`` after the last edit, or the edits after the last
  commit).
- ``outcome``: the last test or build command and its result (a refused one: not run), a
  commit that failed with nothing after it, the seed's ``done`` summary, a trajectory's
  end on an error or a limit.
- ``subagents``: each subagent's report (a delegation call's result, a background
  subagent's task notification), its verdict first (``APPROVE``, ``Verdict: ...``).
- ``last``: the assistant's last message, its sentences with content.
- ``questions``: the assistant's closing question to the user (a question in its
  last message, or an ``ask`` call nobody answered).

Nothing here is guessed from a model: a section the log has no record for is empty and
left out. `fit_sections` keeps the most useful lines within a token allowance (exact,
with the counter given); the chunk summaries fill the rest of the recap's budget
(`engine.recap.core.select`).
"""

from __future__ import annotations

import fnmatch
import functools
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, NamedTuple, Protocol

from chunkscope.engine.read.formats.aider import AIDER_ROLE, aider_run, api_errors
from chunkscope.engine.read.formats.aider import actions as aider_actions
from chunkscope.engine.read.formats.base import BRANCH_NOTE, CWD_NOTE, SESSION_NOTE
from chunkscope.engine.read.formats.claude import API_RETRY, notification
from chunkscope.engine.read.formats.documents import (
    END_ROLE,
    OBSERVATION,
    submits,
    task_of,
    text_action,
)
from chunkscope.engine.read.headings import block_fence_after, deep_fence_close
from chunkscope.engine.read.source import FENCE, content_text
from chunkscope.engine.recap.collapse import (
    _PATCH_FILE,
    ASK_TOOLS,
    CC_REJECTED,
    REJECTED_RESULT,
    SUBAGENT_TOOLS,
    _calls,
    _command,
    _decode_arguments,
    _fold,
    answers_given,
    ask_refused,
    harness_error,
    one_line_command,
    patch_changes,
    question_text,
    result_lines,
    said_results,
    shell_patch,
    subagent_asked,
    subagent_kind,
    subagent_report,
)
from chunkscope.engine.segment.requests import (
    INTERRUPTED,
    echoes,
    message_kind,
    request_text,
)
from chunkscope.engine.summarize.base import has_words
from chunkscope.engine.summarize.extractive import (
    Sentence,
    _content_words,
    _truncate,
    has_content,
    is_fragment,
    is_markup,
    is_narration,
    sentences_of,
    split_sentences,
    terminated,
)
from chunkscope.engine.textutil import (
    COLONS,
    LEAD_IN_END,
    code_span,
    literal_markdown,
    literal_markdown_line,
    plural,
)
from chunkscope.engine.toolcall import (
    ACTIVE_STATUSES,
    DONE_STATUSES,
    DROPPED_STATUSES,
    EDITOR_NO_EDIT,
    PLAN_TOOLS,
    SHELL_TOOLS,
    editor_command,
    plan_items,
)

__all__ = [
    "SECTION_TITLES",
    "Section",
    "extract_sections",
    "fit_sections",
    "render_sections",
]

#: Each section's name and heading, in the order they are shown.
SECTION_TITLES: dict[str, str] = {
    "session": "Session",
    "task": "Task",
    "rejections": "Rejected or interrupted by the user",
    "plan": "Plan",
    "state": "Work state",
    "files": "Files changed",
    "outcome": "Last outcome",
    "subagents": "Subagent results",
    "last": "Where it stopped",
    "questions": "Open question to the user",
}

#: The heading above the chunk summaries when sections come before them.
SUMMARIES_TITLE = "What happened"

# The longest a line of each section may be (characters; cut at a word with "...").
_LINE_CHARS = {
    "task": 420,
    "plan": 160,
    "outcome": 260,
    "last": 300,
    "questions": 300,
    "rejections": 200,
    "subagents": 180,
    "state": 200,
}
_FIRST_REQUEST_CHARS = 1000
#: The most of a request shown when the recap has room for it whole.
_UNCUT_CHARS = 3000

# Share of the allowance each section may take at most.
_SHARE = {
    "session": 0.08,
    "task": 0.30,
    "plan": 0.22,
    "rejections": 0.15,
    "state": 0.18,
    "files": 0.3,
    "outcome": 0.22,
    "subagents": 0.18,
    "last": 0.22,
    "questions": 0.12,
}


class TokenCount(Protocol):
    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class Section:
    """One section: its name (a key of `SECTION_TITLES`), its lines in display order and,
    for each line, its rank (0 is kept first when the allowance is short)."""

    name: str
    lines: tuple[str, ...]
    ranks: tuple[int, ...] = ()
    source: str = "records"
    #: each line uncut ("" when it was not cut): shown instead when the recap has room
    full: tuple[str, ...] = ()
    #: the section's text whole (the last message as written): shown instead of all its
    #: lines when they were all kept and the recap has room for it
    whole: str = ""
    #: for each line, the list it is an item of (1, 2, ...; 0: none) and the item's
    #: number in it: a list cut to fit loses its last items, never one in the middle
    items: tuple[tuple[int, int], ...] = ()
    #: for each list of `items` (list 1 first): its number of items, and its title
    #: ("" none), that a "(and N more items)" counts from and names (walk 57, F1)
    lists: tuple[tuple[int, str], ...] = ()
    #: what the items of `lists` count, as "(and N more ...)" says them: ``file`` for the
    #: files section, whose item numbers count the files said up to each line (a
    #: folder's line says several: walk 71, F8)
    noun: str = "item"
    #: for each line, shorter forms of it that still say what they leave out (a folder's
    #: first files and "and N more"), longest first: tried when the line does not fit,
    #: and to make room for its list's "(and N more ...)" (walk 71, F8)
    shorter: tuple[tuple[str, ...], ...] = ()
    #: `whole` without the questions the "Open question" section says, shown instead of
    #: it when that section is said (the question said once: walk 57, F8); `whole` itself
    #: when a question is a list's item (the list keeps it: the question's line is the
    #: one left out); "" when `whole` asks nothing of the kind
    unasked: str = ""
    #: lines taken before line 0 when they fit in half the section's share: the Task's
    #: last request, kept before the first request's tail (walk 64, F17: a long first
    #: request took the share, and every later request, the unanswered last one too, was
    #: left out); line 0 is then cut to the room left
    leads: tuple[int, ...] = ()
    #: a step-by-step answer whose steps Where it stopped says with their commands
    #: (`_with_commands`), on one line: What happened leaves its sentences out, the
    #: lead-ins and the steps that section tells (walk 64, F16: "Use these steps.",
    #: "Then find the new token account." were told there again, as what happened)
    steps_of: str = ""
    #: the lists of the last message Where it stopped says, each its lead-in and its
    #: items (`_lead_in_lists`): What happened leaves out an item of one whose lead-in
    #: that section says (walk 71, F11: the lead-in said in both, an item the fit left
    #: out, counted in its "(and N more items)", told there again)
    lists_of: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def title(self) -> str:
        """The section's heading as the recap shows it."""
        return SECTION_TITLES.get(self.name, self.name)

    def render(self) -> str:
        """The section as markdown: its heading and lines ("" when it has none); the
        lines are the log's text, so none of them reads as a heading (`literal_markdown`)."""
        if not self.lines:
            return ""
        return f"## {self.title}\n" + literal_markdown("\n".join(self.lines))

    def as_dict(self, tokens: int = 0) -> dict[str, Any]:
        """The section as JSON values, with the tokens it takes in the recap."""
        return {
            "name": self.name,
            "title": self.title,
            "lines": list(self.lines),
            "text": self.render(),
            "tokens": tokens,
            "source": self.source,
        }


def render_sections(sections: Iterable[Section]) -> str:
    """The sections' text: each ``## Title`` and its lines, a blank line between."""
    return "\n\n".join(s.render() for s in sections if s.lines)


# --------------------------------------------------------------------------- helpers

_OBSERVATION = re.compile(
    r"\A\s*(?:<returncode>|<output>|<tool_response>|<observation>|observation:|"
    r"exit code:?\s*-?\d|<warning>|<error>|tool output|\[tool output)",
    re.I,
)


def _cut(text: str, limit: int) -> str:
    """`text` on one line, cut at a word to at most `limit` characters."""
    return _truncate(_fold(text), limit)


def _sentences_cut(text: str, limit: int) -> str:
    """`text` on one line in at most `limit` characters: its first whole sentences when
    they fill at least half of it, else cut at a word (walk 48, F4: a cut at the limit
    left the last sentence a stump, ``... to...``, where the sentence before read whole)."""
    line = _fold(text)
    if len(line) <= limit:
        return _cut(line, limit)
    kept: list[str] = []
    for sentence in sentences_of(line):
        if len(" ".join([*kept, sentence])) > limit - 3:  # room for what closes it
            break
        kept.append(sentence)
    while kept and kept[-1].rstrip().endswith(_COLON_END):  # an introduction to what was left out
        kept.pop()
    whole = " ".join(kept)
    return _cut(whole, limit) if len(whole) >= limit // 2 else _cut(line, limit)


def _code(text: str, limit: int) -> str:
    """A command on one line as inline code, cut at a word to at most `limit` characters
    (nothing added to close: a ``**`` glob is no bold)."""
    return code_span(_truncate(_fold(text), limit, prose=False))


def _calls_of(msg: Mapping[str, Any]) -> list[tuple[str | None, str, dict[str, Any]]]:
    return [(cid, name, _decode_arguments(raw)[0]) for cid, name, raw in _calls(msg)]


@dataclass
class _Call:
    """A tool call with its result (when the log has it)."""

    index: int  # position of the calling message
    name: str
    args: dict[str, Any]
    result: str | None = None
    exit_code: int | None = None
    failed: bool = False
    #: the user refused it (Claude Code's "doesn't want to proceed", a tool's "rejected
    #: by the user"): it did not run
    rejected: bool = False


@dataclass
class _Rejection:
    """A tool call the user refused, or a request the user interrupted, and the words the
    user gave with it (the refusal's own text, or the message typed right after)."""

    index: int
    what: str  # "Rejected `git push`", "Interrupted", "Declined to run `pytest`"
    words: str = ""
    #: still waiting for the user's next message as its words
    open: bool = True
    #: a question the tool asked (aider's "Run shell command?"): the next message is its
    #: words only when it follows up on it, never a new request of the user's
    asked: bool = False


@dataclass
class _Log:
    """The messages of a session, read once: user requests, assistant texts, calls."""

    requests: list[tuple[int, str]] = field(default_factory=list)
    texts: list[tuple[int, str]] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    last_user: int = -1
    #: commits a tool reported outside a shell call (aider's "Commit abc1234 message")
    commits: list[tuple[int, str]] = field(default_factory=list)
    rejections: list[_Rejection] = field(default_factory=list)
    #: a background subagent's report (Claude Code's task notification): (position,
    #: its name, its status, its result)
    reports: list[tuple[int, str, str, str]] = field(default_factory=list)
    #: the tool's own notes on the session (`Source.notes`: ``branch: NAME``)
    notes: list[str] = field(default_factory=list)
    #: how the run ended (a trajectory's exit record: "Submitted", an error), and its text
    ended: tuple[int, str, str] | None = None
    #: the tool's errors (role ``error``: Claude Code's API errors, Gemini CLI's): position
    #: and text
    errors: list[tuple[int, str]] = field(default_factory=list)


# aider asking before it runs a command the model suggested, and the answer typed
_AIDER_ASK = re.compile(r"^(.+)\n\s*Run shell commands?\? \(Y\)es/\(N\)o[^\n]*?:\s*(\w*)\s*$", re.M)
_AIDER_INTERRUPT = re.compile(r"^\s*\^C again to exit|^\s*KeyboardInterrupt", re.M)
_REJECT_WORDS = re.compile(r"the user said:\s*(.+)\Z", re.S | re.I)
_ENDED = re.compile(r"\AThe session ended(?: \((.*?)\))?\.")

# A command's output as mini-swe-agent gives it back (`OBSERVATION`): its return code,
# what it printed.
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_OUTPUT_TAG = re.compile(r"<output>\s*(.*?)\s*</output>", re.S)


def _observed(call: _Call, text: str) -> None:
    """A call's result from the output mini-swe-agent gave back for it: what the command
    printed (its ``<output>`` block) and its return code."""
    if harness_error(text)[0]:  # its timeout notice: the run said as timed out (walk 28, F9)
        call.result = text
        return
    code = _RETURNCODE.search(text)
    out = _OUTPUT_TAG.search(text)
    call.result = out.group(1) if out else text
    call.exit_code = int(code.group(1)) if code else None


def _reject(log: _Log, index: int, what: str, words: str = "", asked: bool = False) -> None:
    words = _sentences_cut(words, _LINE_CHARS["rejections"]) if words.strip() else ""
    log.rejections.append(_Rejection(index, what, words, open=not words, asked=asked))


def _user_words(log: _Log, index: int, text: str) -> None:
    """The user's message right after a refusal or an interruption: its words."""
    pending = [r for r in log.rejections if r.open]
    for r in pending:
        r.open = False
    if pending and pending[-1].asked and message_kind(text) == "request":
        return  # declined, then on to something else: no words about the decline
    if pending and text:
        pending[-1].words = _sentences_cut(text, _LINE_CHARS["rejections"])


def _interrupted(log: _Log, index: int) -> None:
    """The user stopped the agent ("[Request interrupted by user]"): what it was doing
    (its last call, when nothing was said after it), unless a refusal says it already."""
    last_call = log.calls[-1] if log.calls else None
    if last_call is not None and any(r.index > last_call.index for r in log.rejections):
        return  # "[Request interrupted by user for tool use]" after a refusal
    last_text = log.texts[-1][0] if log.texts else -1
    during = ""
    if last_call is not None and last_call.index >= last_text and last_call.index > log.last_user:
        during = f" during {_describe(last_call)}"
    words = ""
    if log.last_user > max(last_text, last_call.index if last_call else -1):
        before = dict(log.requests).get(log.last_user, "")  # typed just before stopping it
        words = request_text(before) or ""
    _reject(log, index, f"Interrupted{during}", words)


def _describe(call: _Call) -> str:
    """A call in a few words: `` `command` ``, ``Edit path``, ``Task (description)``."""
    name = call.name
    if name.lower() in SHELL_TOOLS:
        command = _command(call.args)
        return _code(command, 100) if command != "?" else name
    keys = ("file_path", "path", "notebook_path", "url", "query", "pattern", "description", "skill")
    for key in keys:
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            if key in ("file_path", "path", "notebook_path"):
                value = "/".join(value.replace("\\", "/").split("/")[-2:])
            return f"{name} ({_cut(value, 80)})"
    return name


#: A background command's notice: its name (the call's description or command) and how
#: it ended (``completed (exit code 0)``, ``failed with exit code 1``).
_BACKGROUND_DONE = re.compile(
    r'\ABackground command "(.+?)" (.*?)(?:exit code (-?\d+))?\)?\s*\Z', re.S
)


def _notification(log: _Log, index: int, text: str) -> None:
    """A Claude Code task notification: a background subagent's report, or a background
    command's end, which is its call's outcome (walk 28, F20: "Last check" said the
    launch message, "Command running in background ...")."""
    note = notification(text)
    if note is None:
        return
    if note.agent is not None:
        log.reports.append((index, note.agent, note.status, note.result))
        return
    done = _BACKGROUND_DONE.match(note.summary)
    if done is None:
        return
    name = done.group(1)
    for call in reversed(log.calls):
        said = (call.args.get("description"), _command(call.args))
        if call.name.lower() in SHELL_TOOLS and name in said:
            call.result = note.status or "ended"  # "failed", and its exit code after it
            if done.group(3) is not None:
                call.exit_code = int(done.group(3))
            call.failed = call.failed or note.status.lower() in ("failed", "killed")
            return


#: The lines aider writes as it starts (its version, models, repository, repo map) and
#: after an answer (its cost, an edit applied, a commit): no command of the model's.
_AIDER_OWN_LINE = re.compile(
    r"^\s*(?:Aider v\d|Main model:|Weak model:|Editor model:|Git repo:|Repo-map:|Tokens:"
    r"|Applied edit to |Commit [0-9a-f]{7}|Added .* to the chat|Cost:|/\S*aider\b)"
)


def _aider_output(log: _Log, index: int, text: str) -> None:
    """aider's own output: a suggested command declined, the user's Ctrl-C. The line
    before the question is the command when it is no line of aider's own (walk 50, F7:
    a run that began on a pending question read its banner's ``Repo-map: ...`` as it)."""
    for m in _AIDER_ASK.finditer(text):
        if m.group(2).lower().startswith("n") and not _AIDER_OWN_LINE.match(m.group(1)):
            said = _code(m.group(1).strip(), 120)
            _reject(log, index, f"Declined to run {said}", asked=True)
    if _AIDER_INTERRUPT.search(text):
        _reject(log, index, "Interrupted (Ctrl-C)")


def _read(messages: Sequence[Mapping[str, Any]], notes: Iterable[str] = ()) -> _Log:
    log = _Log(notes=list(notes))
    # Shell blocks in the assistant's text are actions only in a log without tool calls
    # (mini-swe-agent's text mode, when its messages come from elsewhere than the reader,
    # which gives the blocks that ran as calls); elsewhere they are examples in an
    # explanation, and in aider's chat they are suggestions aider asks about (`_AIDER_ASK`).
    text_mode = not any(
        isinstance(m, Mapping)
        and (m.get("role") == AIDER_ROLE or (m.get("role") == "assistant" and m.get("tool_calls")))
        for m in messages
    )
    by_id: dict[str, _Call] = {}
    anonymous: list[_Call] = []
    text_actions: list[_Call] = []  # shell blocks in text, waiting for their output
    for i, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            continue
        role = msg.get("role")
        if role == END_ROLE:  # a trajectory's exit record: how the run ended
            text = content_text(msg.get("content"))
            how = _ENDED.match(text)
            log.ended = (i, how.group(1) if how else "", text[how.end() :] if how else text)
            continue
        if role == AIDER_ROLE:  # aider's own output: edits applied, commits, command output
            text = content_text(msg.get("content"))
            if text_actions:  # a /run's output opens the block, up to aider's own next line
                ran = text_actions.pop()
                first = aider_actions(text, _command(ran.args))[0]
                ran.result = first.said if first.kept else None  # (else not in the log)
            for act in aider_actions(text):  # an edit, a commit, a command it ran
                if act.kind == "edit":
                    log.calls.append(_Call(i, "edit", {"path": act.what}))
                elif act.kind == "commit":
                    log.commits.append((i, f"Committed {act.what}: {_cut(act.said, 160)}"))
                else:  # (an output the user did not keep: no result in the log)
                    output = act.said if act.kept else None
                    log.calls.append(_Call(i, "bash", {"command": act.what}, result=output))
            _aider_output(log, i, text)
            # the model's API failing: errors of the tool's, as Claude Code's api_error
            log.errors.extend((i, said) for said in api_errors(text))
            continue
        if role == "user":
            text = content_text(msg.get("content"))
            if INTERRUPTED.search(text):
                _interrupted(log, i)
            _notification(log, i, text)
            run = aider_run(text)
            if run is not None:  # aider's /run and /test: a command, its output follows
                call = _Call(i, "bash", {"command": run})
                log.calls.append(call)
                text_actions[:] = [call]
                continue
            if _OBSERVATION.match(text) or "<returncode>" in text[:300]:
                if text_actions:
                    ran = text_actions.pop()
                    if ran not in log.calls:  # a text-mode block: run, now its output came
                        log.calls.append(ran)
                    _observed(ran, text)
                continue
            text_actions.clear()
            if log.texts and echoes(text, log.texts[-1][1]):
                continue  # the agent's answer the tool passed on (aider's architect mode
                # hands its plan to the editor as the next ``####`` message: walk 57, F7)
            words = request_text(text)
            if words is not None:
                _user_words(log, i, words)
            log.requests.append((i, text))
            log.last_user = i
        elif role == "assistant":
            text = content_text(msg.get("content"))
            calls = _calls_of(msg)
            if text.strip():
                log.texts.append((i, text))
            if text.strip() or calls:
                for r in log.rejections:  # the agent went on: the user's next words
                    r.open = False  # are about what it did since, not the refusal
            for cid, name, args in calls:
                call = _Call(i, name, args)
                log.calls.append(call)
                if cid is None:
                    anonymous.append(call)
                else:
                    by_id[cid] = call
            action = text_action(text) if text_mode and text else None
            if action is not None:  # a run once its output follows (walk 31: a block
                # only suggested in a plain chat was "Last check ... no result in the
                # log"), but for the submission that ends the run, which none follows
                call = _Call(i, "bash", {"command": action.group(2).strip()})
                if submits(call.args["command"]):
                    log.calls.append(call)
                text_actions[:] = [call]
        elif role == "error":
            text = content_text(msg.get("content"))
            if text.strip():
                log.errors.append((i, text))
        elif role == "tool":
            ref = msg.get("tool_call_id")
            found: _Call | None
            if ref in (None, ""):
                found = anonymous.pop(0) if anonymous else None
            else:
                found = by_id.pop(str(ref), None)
            if found is None:
                continue
            found.result = content_text(msg.get("content"))
            code = msg.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                found.exit_code = code
            elif OBSERVATION.match(found.result):  # mini-swe-agent's output of a command
                _observed(found, found.result)
            found.failed = bool(msg.get("is_error")) or (
                # a tool that is no shell failed when it says an exit code other than 0
                # (Codex's apply_patch: "verification failed", exit 1)
                found.exit_code not in (None, 0) and found.name.lower() not in SHELL_TOOLS
            )
            result = found.result
            refused = CC_REJECTED.match(result)
            if refused or REJECTED_RESULT.match(result):
                found.rejected = True
                said = _REJECT_WORDS.search(result) if refused else None
                _reject(log, i, f"Rejected {_describe(found)}", said.group(1) if said else "")
    return log


# --------------------------------------------------------------------------- task


_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_FRAME = re.compile(r"\s*File \"")
#: A traceback's last line: the exception's name (dotted), then what it says.
_EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure)\b")


def _squeeze_tracebacks(text: str) -> str:
    """Each Python traceback in `text` cut to its exception line: its frames (indented
    lines, ``File "..."`` lines and the code line under each) say less than the exception
    it ends on and the words around it, and they would take a cut request's room."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _TRACEBACK.search(line)
        if not m:
            out.append(line)
            i += 1
            continue
        i += 1
        after_frame = False
        while i < len(lines):
            nxt = lines[i]
            if FENCE.match(nxt) or (nxt[:1] not in " \t" and _EXCEPTION.match(nxt)):
                break  # the block closes, or the exception (a frame may have no code line)
            if _FRAME.match(nxt):
                after_frame = True
            elif not nxt.strip() or nxt[:1] in " \t" or after_frame or nxt.strip() == "...":
                after_frame = False
            else:
                break
            i += 1
        ends = i < len(lines) and FENCE.match(lines[i]) is None
        exception = lines[i].strip() if ends else ""
        out.append(f"{line[: m.start()]}Traceback: {exception}".rstrip())
        i += 1 if ends else 0  # a closing fence stays: the block is closed by it
    return "\n".join(out)


#: The markup a line folded into a recap line cannot keep: a quote's markers (a quoted
#: block's fence is a fence), a heading's, and the tags of an HTML disclosure (its block
#: would hide the rest of the line when rendered).
_QUOTE_MARKS = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)+", re.M)
#: A line a prompt or a log's marker opens (``>>> import os``, ``>>> List Refresh Signal
#: Sent.``), as typed: no quote's markers (walk 50, F19: the user's ``>>>`` were dropped).
_PROMPT_LINE = re.compile(r"^[ \t]{0,3}>>>[ \t]")
_HEADING_MARKS = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+")
_DISCLOSURE = re.compile(r"</?(?:details|summary)\b[^>]*>", re.I)
#: A thematic break (``---``, ``***``), a table's delimiter row and a table's row.
_RULE_LINE = re.compile(r"^\s{0,3}([-*_])\s*(?:\1\s*){2,}$")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
#: A line that opens with such a tag: an HTML block's, not a tag in the text or in code.
_DISCLOSURE_LINE = re.compile(r"\A[ \t]{0,3}</?(?:details|summary)\b", re.I)


def _unquoted(text: str) -> str:
    """`text` without a quote's markers on its lines outside code: a quoted block's fence
    and body lose theirs with it, a code block's own ``>>>`` lines keep them (walk 27,
    F10: a doctest's prompts were taken for quote marks), and so does a line of text
    that opens with a prompt's ``>>> `` (`_PROMPT_LINE`)."""
    out: list[str] = []
    fence: str | None = None
    quoted = False  # the open fence was quoted: its body's markers go too
    for raw in text.split("\n"):
        line = raw
        if (fence is None or quoted) and not _PROMPT_LINE.match(raw):
            line = _QUOTE_MARKS.sub("", raw, count=1)
        before, fence = fence, block_fence_after(line, fence)
        if before is None and fence is not None:  # a fence opens: quoted or not
            quoted = line != raw
        out.append(line)
    return "\n".join(out)


#: A setext heading's underline (under a line of text; ``---`` alone is a rule).
_SETEXT_LINE = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
#: A list item's marker: a bullet or a number, and a task box (``- [x]``).
_LIST_ITEM = re.compile(r"^\s{0,12}(?:[-*+]|(\d{1,9}[.)]))[ \t]+(?:\[([ xX])\][ \t]+)?")
#: A line that ends a sentence or a clause already.
_ENDS_CLAUSE = re.compile(r"[.!?:;,…。！？।॥]['\"”’)\]`*_]*\s*$")


def _cells(row: str) -> list[str]:
    """A table row's cells: parted at each pipe outside code spans and not escaped
    (walk 28, F18: ``| `a|b` | bug \\| fix |`` became ``a; b`` and ``bug \\; fix``)."""
    cells: list[str] = []
    cell: list[str] = []
    ticks = 0  # the backtick run that opened a code span, 0 outside one
    s = row.strip()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and s[i + 1 : i + 2] == "|":
            cell.append("|")
            i += 2
            continue
        if c == "`":
            run = len(s) - i - len(s[i:].lstrip("`"))
            ticks = run if ticks == 0 else (0 if run == ticks else ticks)
            cell.append(s[i : i + run])
            i += run
            continue
        if c == "|" and ticks == 0:
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(c)
        i += 1
    cells.append("".join(cell).strip())
    if cells and not cells[0]:
        cells = cells[1:]
    if cells and not cells[-1]:
        cells = cells[:-1]
    return cells


_SUMMARY_END = re.compile(r"\s*</summary>\s*", re.I)
_CLOSED_DISCLOSURE = re.compile(r"(\S?)\s*</details>", re.I)


def _closed(m: re.Match[str]) -> str:
    """A disclosure's end: what it held ends a sentence there (``12 passed</details> All
    good`` reads ``12 passed. All good``)."""
    last = m.group(1)
    return last + (" " if not last or _ENDS_CLAUSE.search(last) else ". ")


def _plain_blocks(lines: Sequence[str]) -> list[str]:
    """Lines of prose (no fenced code) without the markup of their blocks, as a folded
    line says them (walk 28, F4): a heading's marks or setext underline gone and its
    text ended with a colon; list bullets gone (numbers kept), a task box said as
    ``done:`` or ``to do:``, items parted with ``;``; a table's cells parted with ``,``
    and its rows with ``;`` (a rule and a delimiter row left out); an HTML disclosure's
    tags left out with a space (its summary ended with a colon)."""
    out: list[str] = []
    kinds: list[str] = []  # per line kept: "item", "row" or "text"
    for k, raw in enumerate(lines):
        after = lines[k + 1] if k + 1 < len(lines) else ""
        line = raw
        heading = _HEADING_MARKS.match(line) is not None
        rest = lines[k + 1 :]
        if heading:
            line = _HEADING_MARKS.sub("", line).rstrip().rstrip("#").rstrip()
        elif (
            line.strip()
            and _SETEXT_LINE.match(after)
            and not _LIST_ITEM.match(line)
            and not _TABLE_ROW.match(line)
        ):
            heading = True  # its underline is left out below
            rest = lines[k + 2 :]
        # a heading alone (a Claude Code memory note is a ``#`` line) introduces nothing:
        # no colon, which read as cut off (walk 48, F3)
        introduces = any(r.strip() and not _RULE_LINE.match(r) for r in rest)
        if _SETEXT_LINE.match(line) and out and kinds[-1] == "heading":
            continue  # the underline of the heading just said
        if _RULE_LINE.match(line) or _TABLE_DELIMITER.match(line):
            continue  # a rule, a table's delimiter row: markup of no words (walk 27, F11)
        kind = "text"
        if "![" in line or "<img" in line.lower():  # a badge, an image: no words (walk 30, F4)
            line = _EMBED.sub("", line).rstrip()
        if _TABLE_ROW.match(line):
            line, kind = ", ".join(_cells(line)), "row"
        elif (m := _LIST_ITEM.match(line)) is not None:
            box = {" ": "to do: ", "x": "done: ", "X": "done: "}.get(m.group(2) or "", "")
            number = f"{m.group(1)} " if m.group(1) else ""
            line, kind = number + box + line[m.end() :].strip(), "item"
        if _DISCLOSURE_LINE.match(line):
            line = _CLOSED_DISCLOSURE.sub(_closed, _SUMMARY_END.sub(": ", line))
            line = " ".join(_DISCLOSURE.sub(" ", line).split())
        if heading and introduces and line.strip() and not _ENDS_CLAUSE.search(line):
            line += ":"
        if out and kinds[-1] == kind and kind in ("item", "row") and line.strip():
            if not _ENDS_CLAUSE.search(out[-1]):
                out[-1] += ";"  # the next item or row of the same list or table
        elif (
            out
            and kinds[-1] in ("item", "row")
            and not _ENDS_CLAUSE.search(out[-1])
            and (not line.strip() or kind != kinds[-1])
        ):
            out[-1] += "."  # the list or table ends
        out.append(line)
        kinds.append("heading" if heading else kind if line.strip() else "blank")
    if out and kinds[-1] in ("item", "row") and not _ENDS_CLAUSE.search(out[-1]):
        out[-1] += "."
    return out


#: A shell line's continuation mark at its end: a backslash after a blank.
_CONTINUED = re.compile(r"(?<=\s)\\\s*\Z")


#: An HTML comment, on one line or over several: an issue template's guidance
#: (``<!--A short 1-2 sentences that succinctly describes the bug-->``), no words of the
#: user's and nothing the rendered markdown shows.
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


def _uncommented(lines: Sequence[str]) -> list[str]:
    """`lines` of prose (no fenced code) without their HTML comments (`_HTML_COMMENT`; one
    left open runs to the end), a line that held a comment alone left out (walk 64, F7:
    the Task folded a template's ``<!--A short 1-2 sentences ...-->`` in)."""
    if not any("<!--" in line for line in lines):
        return list(lines)
    text = _HTML_COMMENT.sub("\0", "\n".join(lines))  # (\0: where a comment was)
    return [
        line.replace("\0", "")
        for line in text.split("\n")
        if not ("\0" in line and not line.replace("\0", "").strip())
    ]


def _folded_code(body: Sequence[str], between: str = " ") -> str:
    r"""A code block's lines on one line, `between` each two (a step's commands are
    parted by ``; ``, as the shell reads them): a shell line's continuation (`` \`` at
    its end) joins the next as the shell does; kept, ``curl URL \ -H "..."`` copied from
    the line passed `` -H`` as one argument (walk 57, F13)."""
    lines: list[str] = []
    going = False  # the line before goes on on this one
    for line in body:
        said = " ".join(_CONTINUED.sub("", line).split())
        if going and lines:
            lines[-1] = f"{lines[-1]} {said}".strip()
        elif said:
            lines.append(said)
        going = _CONTINUED.search(line) is not None
    return between.join(line for line in lines if line)


#: A fenced block's language that makes it commands to run (```` ```bash ````): the
#: steps a step-by-step answer gives; an unlabelled block may be output (``git status``
#: printed) and a ```` ```python ```` one an edit.
_SHELL_FENCE = re.compile(
    r"^\s*(?:`{3,}|~{3,})\s*(?:bash|sh|shell|zsh|fish|console|shell-session|powershell|"
    r"pwsh|ps1|cmd|bat|batch)\b",
    re.I,
)


def _at_margin(lines: Sequence[str]) -> list[str]:
    """`lines` with each fenced block indented 4 spaces or more (a list item's: ``1.
    **Find the device name:**`` over ``    ```bash``) that a bare marker at its
    indentation closes (`deep_fence_close`) taken back to the margin, its fences and its
    lines: a block as one at the margin is read (walk 69, F10: Where it stopped on one
    line kept the item's as "```bash lsblk ```" and folded the top-level one to
    `` `wsl --mount ...` ``). Inside a fence at the margin (an example of markdown) and
    without a close, lines are as they stand."""
    out = list(lines)
    fence: str | None = None  # the fence at the margin the walk is in
    i = 0
    while i < len(out):
        close = deep_fence_close(out[i]) if fence is None else None
        end = next((j for j in range(i + 1, len(out)) if close.match(out[j])), -1) if close else -1
        if end < 0:
            fence = block_fence_after(out[i], fence)
            i += 1
            continue
        indent = len(out[i]) - len(out[i].lstrip(" "))
        for j in range(i, end + 1):
            line = out[j]
            cut = min(indent, len(line) - len(line.lstrip(" ")))
            out[j] = line[cut:]
        i = end + 1
    return out


def _blocks_after(text: str) -> dict[str, str]:
    """Each fenced block of commands (`_SHELL_FENCE`) of `text` that a line of prose
    leads into (blank lines between): {that line on one line: the block as inline code
    (`_folded_code`)}; a list item's block too (`_at_margin`)."""
    lines = _at_margin(text.splitlines())
    out: dict[str, str] = {}
    prose = ""  # the last line of prose before a block
    i = 0
    while i < len(lines):
        fence = block_fence_after(lines[i], None)
        if fence is None:
            if lines[i].strip():
                prose = " ".join(lines[i].split())
            i += 1
            continue
        shell = _SHELL_FENCE.match(lines[i]) is not None
        body, i = _fenced_body(lines, i, fence)
        code = _folded_code(body, "; ")
        if prose and code and shell:
            out.setdefault(prose, code_span(code))
        prose = ""
    return out


def _fenced_body(lines: Sequence[str], i: int, fence: str) -> tuple[list[str], int]:
    """The lines of the fenced block whose opening fence is ``lines[i]``, and the index
    of the line after its closing fence (the end when it is not closed, as markdown
    reads it)."""
    body: list[str] = []
    i += 1
    while i < len(lines):
        i += 1
        if block_fence_after(lines[i - 1], fence) is None:
            break
        body.append(lines[i - 1])
    return body, i


def _inline_fences(text: str) -> str:
    """Each fenced code block of `text` as inline code: a task line is one line, and a
    block folded into it read ``I run ```python division(23, 0) ``` and get``, stray
    backticks and the language's name among the words; it reads ``I run
    `division(23, 0)` and get`` now. An unclosed block runs to the end, as in markdown.
    aider's ``<source>`` block is one too. A quote's and a heading's markers, an HTML
    disclosure's tags (`_QUOTE_MARKS`) and HTML comments (`_uncommented`) are left out.
    A list item's block (indented) is folded as one at the margin (`_at_margin`)."""
    lines = _at_margin(_unquoted(text).splitlines())
    out: list[str] = []
    i = 0
    while i < len(lines):
        fence = block_fence_after(lines[i], None)
        if fence is None:  # ("```inline``` code" is inline code already, no block's start)
            start = i
            while i < len(lines) and block_fence_after(lines[i], None) is None:
                i += 1
            # prose up to the next block (or the end), its HTML comments left out
            out += _plain_blocks(_uncommented(lines[start:i]))
            continue
        body, i = _fenced_body(lines, i, fence)
        code = _folded_code(body)
        if code:
            out.append(code_span(code))
            # a sentence that starts after the block starts after a stop, not run on from
            # the code (walk 50, F17: "heading: `# Test Project` It just declares ...")
            nxt = next((ln.lstrip()[:1] for ln in lines[i:] if ln.strip()), "")
            if nxt.isupper() and not code.endswith((".", "!", "?", ":", ";")):
                out[-1] += "."
    return "\n".join(out)


def _request_body(text: str) -> str:
    """The first request as the task: its task alone when it is written from a prompt
    template (`engine.read.formats.documents.task_of`, as the reader keeps it and a
    picker titles it), tracebacks cut to their exception, code blocks inline."""
    return _inline_fences(_squeeze_tracebacks(_unquoted(task_of(text))))


def _first_request(text: str) -> str:
    return _cut(_request_body(text), _FIRST_REQUEST_CHARS)


def task_section(log: _Log) -> Section:
    requests = [(i, r) for i, t in log.requests if (r := request_text(t)) is not None]
    if not requests:
        return Section("task", ())
    lines = [_first_request(requests[0][1])]
    full = [_cut(_request_body(requests[0][1]), _UNCUT_CHARS)]
    later: dict[str, str] = {}
    # a request repeated word for word is said once: a harness that runs the agent again
    # sends the same prompt again (a Gemini CLI stream-json file of two runs: walk 72, F1)
    said = {" ".join(requests[0][1].split())}
    for _, t in requests[1:]:
        whole = " ".join(t.split())
        if whole in said:
            continue
        said.add(whole)
        t = _inline_fences(t)
        if has_words(t):  # an empty code block alone says nothing ("Later: ")
            later.setdefault(_cut(t, _LINE_CHARS["task"]), _cut(t, _UNCUT_CHARS))
    later.pop(lines[0], None)
    lines += [f"Later: {t}" for t in later]
    full += [f"Later: {t}" for t in later.values()]
    # the first request, then the later ones newest first
    ranks = [0] + [len(later) - k for k in range(len(later))]
    answers = list(dict.fromkeys(line for _, line in _answers(log)))[-4:]
    lines += answers
    full += [""] * len(answers)
    ranks += [1 + k // 2 for k in range(len(answers))][::-1]
    uncut = tuple(f if f != line else "" for f, line in zip(full, lines, strict=True))
    # the last request, where the session ended up, before the first request's tail
    leads = (len(later),) if later else ()
    return Section("task", tuple(lines), tuple(ranks), full=uncut, leads=leads)


# --------------------------------------------------------------------------- plan


def plan_section(log: _Log) -> Section:
    for call in reversed(log.calls):
        if call.name.lower() not in PLAN_TOOLS:
            continue
        items = plan_items(call.args)
        if items is None:
            continue
        lines: list[str] = []
        ranks: list[int] = []
        for status, text in items:
            if status in DROPPED_STATUSES:
                continue
            text = _cut(text, _LINE_CHARS["plan"])
            if status in DONE_STATUSES:
                lines.append(f"- [x] {text}")
                ranks.append(2)
            elif status in ACTIVE_STATUSES:
                lines.append(f"- [~] {text} (in progress)")
                ranks.append(0)
            else:
                lines.append(f"- [ ] {text}")
                ranks.append(1)
        explanation = call.args.get("explanation")
        if isinstance(explanation, str) and explanation.strip():
            lines.append(_cut(explanation, _LINE_CHARS["plan"]))
            ranks.append(3)
        if lines:
            return Section("plan", tuple(lines), tuple(ranks))
    return Section("plan", ())


# --------------------------------------------------------------------------- files

_EDIT_TOOLS = frozenset(
    {
        "edit",
        "write",
        "multiedit",
        "notebookedit",
        "replace",
        "write_file",
        "edit_file",
        "create_file",
        "str_replace",
        "insert",
        "create",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "apply_diff",
        "search_replace",
        "write_to_file",
        "replace_in_file",
    }
)
_SED_INPLACE = re.compile(r"\bsed\s+(?:-[a-zA-Z]*i[a-zA-Z]*\S*|--in-place\S*)\s+.*?(\S+)\s*$")
_REDIRECT_WRITE = re.compile(
    r"(?:\bcat|\becho|\bprintf|\btee)\b[^|;&\n]*?(?:>|\btee)\s*['\"]?([\w./-]+\.\w+)"
)


def _exit_code(call: _Call) -> int | None:
    """A call's exit code: its result's, or the one its text opens with (``Exit code: 1``)."""
    if call.exit_code is not None:
        return call.exit_code
    m = _EXIT.match(call.result or "")
    return int(m.group(1)) if m else None


def _patch_text(call: _Call) -> str:
    """The text of a call that may hold an apply_patch input (its input, or its command)."""
    args = call.args
    if isinstance(args.get("command"), list):
        return " ".join(str(p) for p in args["command"])
    return " ".join(str(v) for k, v in args.items() if k in ("input", "patch", "command", "cmd"))


#: What apply_patch says when a patch does not apply (walk 28, F2: then a command after
#: it failed the whole line, and the file was counted as changed).
_PATCH_REFUSED = re.compile(
    r"Failed to find (?:expected lines|context)|\bInvalid (?:patch|hunk)\b|"
    r"apply_patch verification failed|\bpatch rejected\b",
    re.I,
)


def _patch_failed(call: _Call) -> bool:
    """Whether a patch run through the shell did not apply: alone, its exit code says it;
    with commands after it (``&& pytest``), apply_patch's own words do."""
    if shell_patch(call.args) is not None:
        return _exit_code(call) not in (None, 0)
    return bool(_PATCH_REFUSED.search(call.result or ""))


#: Where an agent keeps its own state (Gemini CLI's plans under ``~/.gemini/tmp``, Claude
#: Code's plans and its memory of a project, ``~/.claude/projects/NAME/memory``): no file
#: of the project's, so none a commit could take (walk 53, F16, walk 60, F6: warned of as
#: "Not committed"); Files changed still lists them.
_AGENT_STATE = re.compile(
    r"(?:^|[/\\])\.(?:gemini[/\\]tmp|claude[/\\](?:plans|projects[/\\][^/\\]+[/\\]memory))[/\\]"
)


def _edited_paths(call: _Call) -> list[str]:
    name = call.name.lower()
    args = call.args
    if name == "apply_patch" or name in SHELL_TOOLS:
        found = [m.group(2).strip() for m in _PATCH_FILE.finditer(_patch_text(call))]
        if found and name in SHELL_TOOLS and _patch_failed(call):
            return []  # a patch run through the shell that did not apply
        if found or name == "apply_patch":
            return found
        # a write the shell refused (``zsh:11: operation not permitted: PATH``) changed
        # nothing (walk 51, F3: a sandbox's refusal listed as a file changed)
        return [p for p in _shell_writes(_command(args)) if not _write_refused(call, p)]
    if name not in _EDIT_TOOLS:
        return []
    if editor_command(name, args) in EDITOR_NO_EDIT:
        return []
    for key in ("file_path", "notebook_path", "path", "filename", "target_file", "absolute_path"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return [value.strip()]
    return []


#: The operators that join the simple commands of a shell line.
_SHELL_JOINS = ("&&", "||", ";", "|", "&")


def _shell_tokens(line: str) -> list[str] | None:
    """A shell line's words and joining operators, quotes honoured; None when the line
    does not parse (an open quote)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def _shell_words(line: str) -> list[list[str]] | None:
    """The simple commands of a shell line as word lists (split at ``&&``, ``||``, ``;``,
    ``|``), quotes honoured; None when the line does not parse (an open quote)."""
    words = _shell_tokens(line)
    if words is None:
        return None
    out: list[list[str]] = [[]]
    for w in words:
        if w in _SHELL_JOINS:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


#: A here-document's opening (``<<'EOF'``, ``<<-EOF``): its terminator word.
_HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*(['\"]?)([A-Za-z_][\w.-]*)\1")


def _without_heredocs(command: str) -> str:
    """A shell command without its here-documents' text (the lines up to each one's
    terminator), and its continued lines (a backslash before the line's end) joined:
    its lines are then its commands, whatever the documents hold."""
    out: list[str] = []
    ends: list[str] = []
    for line in command.replace("\\\n", " ").split("\n"):
        if ends:
            if line.strip() == ends[0]:
                ends.pop(0)
            continue
        out.append(line)
        ends += [m.group(2) for m in _HEREDOC.finditer(line)]
    return "\n".join(out)


def _shell_commands(command: str) -> list[list[str]]:
    """The simple commands of a whole shell command as word lists: split at the joining
    operators and at line ends, a quoted text over several lines one word (``echo 'a⏎b'
    | tee FILE``: walk 60, F11), here-documents' text left out (`_without_heredocs`). A
    command that does not parse as a whole (an open quote) is read line by line, its
    lines that parse."""
    text = _without_heredocs(command)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"
    try:
        tokens = list(lexer)
    except ValueError:
        return [c for line in text.splitlines() for c in _shell_words(line) or []]
    out: list[list[str]] = [[]]
    for w in tokens:
        if w in _SHELL_JOINS or (w.strip(";&|\n") == "" and "\n" in w):
            out.append([])  # (a line's end, alone or after an operator: ``&&⏎``)
        else:
            out[-1].append(w)
    return [c for c in out if c]


#: Words that run the command after them (``sudo tee FILE`` is a ``tee``): ``sudo`` and
#: ``doas`` with their options (and the argument of those that take one), ``env`` with
#: its ``NAME=value`` settings, ``timeout`` with its duration.
_RUNS_NEXT = frozenset({"sudo", "doas", "env", "nohup", "time", "timeout"})
_PREFIX_OPTION_ARG = frozenset({"-u", "-g", "-p", "-C", "-D", "-h", "-r", "-t", "-U", "-s", "-k"})
_SETTING = re.compile(r"^[A-Za-z_]\w*=")


def _program(words: list[str]) -> list[str]:
    """A simple command's words from the program it runs: past ``NAME=value`` settings
    and `_RUNS_NEXT` prefixes (``sudo -u root tee -a FILE`` runs ``tee -a FILE``)."""
    i = 0
    while i < len(words):
        word = words[i]
        if _SETTING.match(word):
            i += 1
        elif word in _RUNS_NEXT:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                takes = words[i] in _PREFIX_OPTION_ARG and word in ("sudo", "doas")
                i += 2 if takes else 1
            if word == "timeout" and i < len(words):
                i += 1  # its duration
        else:
            break
    return words[i:]


def _shell_writes(command: str) -> list[str]:
    """Files a shell command writes: ``sed -i ... FILE``, ``cat > FILE``, ``tee FILE``
    (also after ``sudo`` or ``env X=Y``: `_program`; ``tee -a``)."""
    out: list[str] = []
    for found in _shell_commands(command):
        words = _program(found)
        if not words:
            continue
        if words[0] == "sed" and any(
            w.startswith("-i")
            or w.startswith("--in-place")
            or (w.startswith("-") and not w.startswith("--") and "i" in w[1:])
            for w in words[1:]
        ):
            files = [w for w in words[1:] if not w.startswith("-")][1:]
            out += [f for f in files if _FILE_LIKE.search(f)]
        elif words[0] in ("cat", "echo", "printf", "tee"):
            for i, w in enumerate(words):
                target = words[i + 1] if w in (">", ">>") and i + 1 < len(words) else None
                after_input = words[i - 1] in ("<", "<<", "<<<")  # (``tee f < input``)
                if words[0] == "tee" and i > 0 and not w.startswith("-") and not after_input:
                    target = w
                if target and _FILE_LIKE.search(target) and not target.startswith("/dev/"):
                    out.append(target)
    return out


_FILE_LIKE = re.compile(r"^[\w./~-]+\.\w+$")
#: How a shell says it could not write a file (zsh, bash, sh: ``PATH: Permission denied``,
#: ``operation not permitted: PATH``, a read-only file system, a missing folder).
_WRITE_REFUSED = re.compile(
    r"(?:operation not permitted|permission denied|read-only file system"
    r"|no such file or directory|not a directory)",
    re.I,
)


def _write_refused(call: _Call, path: str) -> bool:
    """Whether the shell's output says it could not write `path` (a line naming the file,
    or its name, with a refusal)."""
    name = path.rsplit("/", 1)[-1]
    return any(
        _WRITE_REFUSED.search(line) and name in line for line in (call.result or "").splitlines()
    )


def _relative(paths: Sequence[str], cwd: str = "") -> dict[str, str]:
    """Each absolute path as the recap names it: relative to the session's folder `cwd`
    when it lies inside it (``hello.sh``); else, of two or more, without the folder they
    share (the project's); a single one as it is (a path that exists, never a tail of it
    that reads as a relative path)."""
    absolute = [p for p in paths if _absolute(p)]
    names: dict[str, str] = {}
    home = cwd.replace("\\", "/").rstrip("/").split("/") if cwd else []
    rest = []
    for p in absolute:
        parts = p.replace("\\", "/").split("/")
        if home and len(parts) > len(home) and parts[: len(home)] == home:
            names[p] = "/".join(parts[len(home) :])
        else:
            rest.append(p)
    if len(rest) < 2:
        return names
    split = [p.replace("\\", "/").split("/") for p in rest]
    common = _shared_depth(split)
    # the agent's own files (a plan under ~/.claude, a memory under ~/.codex) lie outside
    # the project: the project's folder is the one the other paths share
    project = [s for s in split if not any(part.startswith(".") for part in s[:-1])]
    base = project if len(project) >= 2 else split
    inner = _shared_depth(base)
    for p, s in zip(rest, split, strict=True):
        depth = inner if s[:inner] == base[0][:inner] else common
        # paths that share the root alone (``/boot/x.conf`` and ``/home/u/.local/y``,
        # walk 60, F11) or a drive share no folder: each keeps its whole path
        names[p] = "/".join(s[depth:]) if depth > 1 else p
    return names


def _session_folder(log: _Log) -> str:
    """The folder the session ran in, as its reader noted it (`CWD_NOTE`); "" unknown."""
    return next((n[len(CWD_NOTE) :].strip() for n in log.notes if n.startswith(CWD_NOTE)), "")


#: A home folder at the start of a session's folder (``/home/ann``, ``/Users/ann``).
_HOME = re.compile(r"\A(/home/[^/]+|/Users/[^/]+|/root)(?=/|\Z)")


def _folder_and_home(log: _Log, paths: Sequence[str]) -> tuple[str, str | None]:
    """The session's folder (noted, else implied by `paths`: "" unknown) and its home
    folder (the folder's, else the one the paths name; None when none or several)."""
    folder = _session_folder(log) or _implied_folder(paths)
    homes = {m.group(1) for p in [folder, *paths] if (m := _HOME.match(p.replace("\\", "/")))}
    return folder, homes.pop() if len(homes) == 1 else None


def _file_names(log: _Log, paths: Sequence[str]) -> dict[str, str]:
    """Each edited path as both the files and the work-state sections name it: a path
    under ``~`` as the same path written in full (walk 50, F9: ``~/.local/x.svg`` and
    ``/home/ann/.local/x.svg`` were two files), when the session's folder or the paths
    name one home; a path outside the project (`_outside`) with its folder, the home as
    ``~`` (walk 60, F6: ``/tmp/count_demo.mjs`` was named ``count_demo.mjs``, a file of
    the project's by its name)."""
    folder, home = _folder_and_home(log, paths)
    full = {p: home + p[1:] if home and p.startswith("~/") else p for p in paths}
    if folder and not _session_folder(log):  # a relative path is one under the implied folder
        full = {
            p: f"{folder.rstrip('/')}/{q}" if not _absolute(q) and not q.startswith("~") else q
            for p, q in full.items()
        }
    outside = {q for q in full.values() if _outside(folder, home, q)}
    short = _relative([q for q in dict.fromkeys(full.values()) if q not in outside], folder)
    return {
        p: _home_named(full[p], home)
        if full[p] in outside
        else short.get(full[p], full[p]).removeprefix("./")
        for p in paths
    }


def _outside_paths(log: _Log, paths: Sequence[str]) -> set[str]:
    """The `paths` that lie outside the project (`_outside`): none a commit could take."""
    folder, home = _folder_and_home(log, paths)
    return {p for p in paths if _outside(folder, home, p)}


def _outside(folder: str, home: str | None, path: str) -> bool:
    """Whether `path` (absolute, under ``~``, or relative to `folder`) lies outside the
    project the session ran in (walk 60, F6): it shares no folder with `folder` below the
    home (``/tmp/x.mjs``, ``~/.superstack/telemetry.jsonl`` of a session in
    ``~/work/subly``; a sibling of the folder, ``~/work/repo/api`` of one in
    ``~/work/repo/web``, may be the same repository's), or it lies in a hidden folder of
    the home the session ran in (``~/.superstack``). False when the folder is unknown."""
    if not folder:
        return False
    where = path.replace("\\", "/")
    if where == "~" or where.startswith("~/"):
        if home is None:
            return True  # a home the session's folder is not in
        where = home + where[1:]
    elif not _absolute(where):
        where = f"{folder}/{where}"
    base = posixpath.normpath(folder.replace("\\", "/")).rstrip("/").split("/")
    parts = posixpath.normpath(where).split("/")[:-1]  # its folders
    if not folder.startswith("/"):  # a Windows folder: its names in any case
        base, parts = [b.lower() for b in base], [p.lower() for p in parts]
    shared = 0
    for a, b in zip(base, parts, strict=False):
        if a != b:
            break
        shared += 1
    at_home = _HOME.match("/".join(base)) or re.match(r"[A-Za-z]:/Users/[^/]+", "/".join(base))
    depth = at_home.group(0).count("/") + 1 if at_home else 1  # the home's parts, else the root's
    if shared < len(base):
        return shared <= depth
    return len(base) <= depth < len(parts) and parts[depth].startswith(".")


def _home_named(path: str, home: str | None) -> str:
    """`path` with its home folder written ``~`` (``~/.superstack/telemetry.jsonl``)."""
    if home and path.replace("\\", "/").startswith(home + "/"):
        return "~" + path.replace("\\", "/")[len(home) :]
    return path


def _absolute(path: str) -> bool:
    """Whether `path` is absolute (``/x``, ``C:\\x``, ``C:/x``)."""
    return path.startswith("/") or bool(re.match(r"[A-Za-z]:[\\/]", path))


def _implied_folder(paths: Sequence[str]) -> str:
    """The folder a session without a noted one (`CWD_NOTE`: Gemini CLI's logs) ran in,
    as its paths tell it: the folder an absolute path adds to a relative one of the set
    that is its tail (``/home/u/M/x/main.py`` and ``M/x/main.py``: walk 55, F2, one
    file named two ways), the most such pairs agree on; "" when no pair says one. A
    relative path of one name (``main.py``) says none: too many files share it."""
    absolute = [p.replace("\\", "/") for p in paths if _absolute(p)]
    votes: dict[str, int] = {}
    for rel in paths:
        rel = rel.replace("\\", "/").removeprefix("./")
        if _absolute(rel) or rel.startswith("~") or "/" not in rel.strip("/"):
            continue
        for a in absolute:
            if a.endswith("/" + rel) and len(a) > len(rel) + 1:
                votes[a[: -len(rel) - 1]] = votes.get(a[: -len(rel) - 1], 0) + 1
    return max(votes, key=lambda f: votes[f]) if votes else ""


def _shared_depth(split: Sequence[Sequence[str]]) -> int:
    """How many leading folders every one of the split paths shares."""
    common = 0
    for parts in zip(*(s[:-1] for s in split), strict=False):
        if len(set(parts)) != 1:
            break
        common += 1
    return common


_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/", re.M)


def _changed_paths(log: _Log) -> list[str]:
    """Every path the session changed and left changed (a Windows path with ``/``), in
    the order first changed: the set the files section names (`_file_changes`,
    `_file_names`)."""
    return list(_file_changes(log).counts)


def _shell_removed(command: str) -> list[str]:
    """What a shell command deletes: the files (or folders, or patterns) ``rm`` and ``git
    rm`` name (``git rm --cached`` keeps the file)."""
    out: list[str] = []
    for found in _shell_commands(command):
        words = _program(found)
        if words[:2] == ["git", "rm"] and "--cached" not in words:
            words = words[1:]
        if words[:1] == ["rm"]:
            out += [w for w in words[1:] if not w.startswith("-")]
    return out


#: ``git checkout`` options that make a branch (``-b new``): no file put back.
_CHECKOUT_BRANCH = frozenset({"-b", "-B", "--orphan"})
#: What ``git checkout`` / ``git restore`` name for the whole work tree.
_WHOLE_TREE = frozenset({".", "./", ":/"})


def _shell_restored(command: str) -> list[str]:
    """What a shell command puts back as the last commit has it: the files (or folders)
    ``git checkout -- FILE``, ``git checkout [HEAD] FILE`` and ``git restore FILE`` name
    (walk 64, F3: a test appended to, then put back, was still a file changed). A branch
    name among them names no file edited; ``git restore --staged`` only unstages and
    ``git checkout -b X`` makes a branch: nothing put back."""
    out: list[str] = []
    for found in _shell_commands(command):
        words = _program(found)
        if words[:1] != ["git"] or words[1:2] not in (["checkout"], ["restore"]):
            continue
        args = words[2:]
        if words[1] == "checkout" and _CHECKOUT_BRANCH & set(args):
            continue
        staged = bool({"--staged", "-S"} & set(args)) and not {"--worktree", "-W"} & set(args)
        if words[1] == "restore" and staged:
            continue
        named = args[args.index("--") + 1 :] if "--" in args else args
        out += [w for w in named if not w.startswith("-")]
    return out


def _restores(named: str, path: str, created: bool) -> bool:
    """Whether a path ``git checkout`` / ``git restore`` named (`_shell_restored`) puts
    back `path`: the file, a folder holding it, or the whole tree, which puts back the
    files git knows (not one the session `created`)."""
    if named in _WHOLE_TREE:
        return not created
    return _removes(named, path)


def _removes(named: str, path: str) -> bool:
    """Whether a path that ``rm`` named (a file, a folder, a pattern; relative to where
    it ran) is, or holds, `path` as an edit named it."""
    named = named.replace("\\", "/").removeprefix("./").rstrip("/")
    path = path.removeprefix("./")
    if not named:
        return False
    if any(ch in named for ch in "*?["):  # a pattern: of as many folders as it names
        depth = named.count("/") + 1
        tail = "/".join(path.split("/")[-depth:])
        return (path.count("/") + 1 == depth or _absolute(path)) and fnmatch.fnmatchcase(
            tail, named
        )
    if named.endswith("/" + path):  # (``rm /testbed/x.py`` of the edit's ``x.py``)
        return True
    parts = path.split("/")  # the file, or a folder holding it (an absolute one: also
    held = ("/".join(parts[:k]) for k in range(len(parts), 0, -1))  # as ``rm`` named
    return any(p == named or (_absolute(p) and p.endswith("/" + named)) for p in held if p)


class _Changes(NamedTuple):
    """The files the session's edits changed and left changed (`_file_changes`)."""

    #: each path changed and not removed nor put back since, with its count of edits,
    #: in the order first changed
    counts: dict[str, int]
    created: set[str]  # made by a write tool
    shell_only: set[str]  # written by shell commands alone (scratch files)
    deleted: set[str]  # deleted by a patch or by ``rm``, and not changed after
    restored: list[tuple[int, str]]  # (call, the path ``git checkout``/``restore`` put back)


def _file_changes(log: _Log) -> _Changes:
    """The files the session changed, as Files changed says them and Work state names
    the uncommitted ones (declared once: walk 71, F1, a scratch file written then
    removed was no change in one and uncommitted in the other). A file a successful
    ``rm`` removed after it was changed (walk 60, F3) is left out when the session made
    it and committed nothing between, else it is `deleted`; a file a successful ``git
    checkout`` / ``git restore`` put back after its last change is left out (walk 64,
    F3)."""
    counts: dict[str, int] = {}
    restored: list[tuple[int, str]] = []  # (call, the path it put back)
    shell_only: set[str] = set()
    created: set[str] = set()
    deleted: set[str] = set()  # by a patch, and not changed after (walk 27, F7)
    erased: set[str] = set()  # by ``rm`` (not made in the session), not changed after
    changed: dict[str, int] = {}  # the message of each path's last change
    commits = [pos for pos, _ in _commits(log)]
    for call in log.calls:
        if call.failed or call.rejected:
            continue  # an edit that failed or that the user refused changed nothing
        name = call.name.lower()
        shell = name in SHELL_TOOLS
        if shell and (call.exit_code or 0) == 0:
            for named in _shell_removed(_command(call.args)):
                for path in [p for p in counts if _removes(named, p)]:
                    kept = any(changed[path] < pos < call.index for pos in commits)
                    if (path in created or path in shell_only) and not kept:
                        del counts[path]  # made in the session and removed, no commit
                        created.discard(path)  # between: nothing of it is left
                        shell_only.discard(path)
                    else:
                        erased.add(path)
            for named in _shell_restored(_command(call.args)):
                restored.append((call.index, named))
                for path in [p for p in counts if _restores(named, p, p in created)]:
                    del counts[path]  # its changes undone: no change of the work's
                    for marks in (created, shell_only, deleted, erased):
                        marks.discard(path)
        paths = _edited_paths(call)
        verbs = patch_changes(_patch_text(call)) if paths else {}
        command = _command(call.args) if shell else ""
        # a shell command's writes are scratch files, unless it edits in place or patches
        scratch = shell and not _SED_INPLACE.search(command) and not _PATCH_FILE.search(command)
        for path in paths:
            gone = verbs.get(path) == "deleted"
            path = path.replace("\\", "/")  # a Windows path, as aider's chat may name it
            if gone:
                deleted.add(path)
            else:
                deleted.discard(path)
            erased.discard(path)
            changed[path] = call.index
            counts[path] = counts.get(path, 0) + 1
            if name in ("write", "write_file", "create_file", "create"):
                created.add(path)
            if scratch:
                shell_only.add(path)
            elif path in shell_only and not shell:
                shell_only.discard(path)
    deleted |= erased
    return _Changes(counts, created, shell_only, deleted, restored)


def files_section(log: _Log) -> Section:
    """Files edited by an edit tool or ``sed -i``, those a diff in a tool result or in the
    submission that ended the run shows (``git diff``, a submitted patch), then files a
    shell command wrote (``cat > f``: often a scratch script), most changed first. A file
    a successful ``rm`` removed after it was changed (walk 60, F3) is left out when the
    session made it and committed nothing between (a scratch script, written then
    removed: no change of the work's), else said ``deleted``. A file a successful ``git
    checkout`` / ``git restore`` put back after its last change is left out (its changes
    undone: walk 64, F3), and so is a file a diff showed before it was put back. A run that
    ended on a submitted diff lists the files that diff changes and no other."""
    changes = _file_changes(log)
    counts, created, shell_only = changes.counts, changes.created, changes.shell_only
    deleted, restored = changes.deleted, changes.restored
    diffed: list[str] = []
    for call in log.calls:
        if call.result and "diff --git" in call.result:
            diffed += [
                path
                for path in _DIFF_FILE.findall(call.result)
                if not any(
                    at > call.index and _restores(named, path, False) for at, named in restored
                )
                # (a diff shown, then the file put back: walk 64, F3's pyproject.toml)
            ]
    submitted: list[str] = []
    if log.ended is not None:  # the submission the run ended on (mini-swe-agent's patch)
        submitted = _DIFF_FILE.findall(log.ended[2])
        diffed += submitted
    if not counts and not diffed:
        return Section("files", ())
    short = _file_names(log, list(counts))
    merged: dict[str, list[Any]] = {}  # name: [count, created, scratch, in a diff]
    removed = {short[path] for path in deleted}
    for path, n in counts.items():
        name = short[path]
        entry = merged.setdefault(name, [0, False, True, False])
        entry[0] += n
        entry[1] = entry[1] or path in created
        entry[2] = entry[2] and path in shell_only
    for path in dict.fromkeys(diffed):
        hit = next((k for k in merged if k == path or k.endswith("/" + path)), None)
        if hit is None:
            hit = next((k for k in merged if path.endswith("/" + k)), None)
        entry = merged.setdefault(hit or path, [0, False, False, True])
        entry[2], entry[3] = False, True
    unsubmitted: set[str] = set()
    if submitted:  # the work the run handed in (walk 64, F3): a scratch file it does not
        # hold is none of the work's; an edited one is said not submitted
        for name in list(merged):
            if not any(
                name == p or name.endswith("/" + p) or p.endswith("/" + name) for p in submitted
            ):
                if merged[name][2]:
                    del merged[name]
                else:
                    unsubmitted.add(name)
    order = sorted(merged, key=lambda p: (merged[p][2], -merged[p][3], -merged[p][0]))
    # one line per folder (its files in this order, at most _PER_LINE a line), the
    # folders in the order of their first file: a folder is said once
    groups: dict[tuple[str, bool], list[str]] = {}
    for name in order:
        n, new, scratch, _ = merged[name]
        if n == 0:
            what = "in the diff"
        elif name in removed:
            what = "deleted"
        elif (new or scratch) and n == 1:
            what = "written"
        else:
            what = plural(n, "edit")
        if name in unsubmitted and name not in removed:
            what += ", not submitted"
        folder, _, base = name.rpartition("/")
        groups.setdefault((folder, bool(scratch)), []).append(f"{base} ({what})")
    lines: list[str] = []
    full: list[str] = []  # a folder's line with all its files, shown when there is room
    shorter: list[tuple[str, ...]] = []  # a folder's line with fewer files, when short
    upto: list[int] = []  # the files said up to each line (its number in the list)
    for (folder, _), items in groups.items():
        if len(items) == 1 or not folder:  # a folder of one file: its path
            for item in items:
                lines.append(f"- {folder}/{item}" if folder else f"- {item}")
                full.append("")
                shorter.append(())
                upto.append((upto[-1] if upto else 0) + 1)
            continue
        # one line, its files most changed first, the rest counted (walk 53, F5: a second
        # line of the folder, kept alone when room was short, read as its only change)
        more = len(items) - _PER_LINE
        head = f"- {folder}/: {', '.join(items[:_PER_LINE])}"
        lines.append(f"{head} and {more} more" if more > 0 else head)
        full.append(f"- {folder}/: {', '.join(items)}" if more > 0 else "")
        shorter.append(
            tuple(
                f"- {folder}/: {', '.join(items[:k])} and {len(items) - k} more"
                for k in range(min(len(items), _PER_LINE + 1) - 1, 0, -1)
            )
        )
        upto.append((upto[-1] if upto else 0) + len(items))
    # one list, said from its first line: cut to fit, it loses its last files and says
    # how many, "(and 7 more files)" (walk 71, F8: its first folder left out, later
    # ones kept, and no mark, read as every file changed)
    return Section(
        "files",
        tuple(lines),
        tuple(range(len(lines))),
        full=tuple(full),
        items=tuple((1, n) for n in upto),
        lists=((upto[-1], ""),) if upto else (),
        noun="file",
        shorter=tuple(shorter),
    )


#: Files of one folder on one line of the files section, at most.
_PER_LINE = 6


# --------------------------------------------------------------------------- outcome

_CHECK = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|nosetests|mypy|ruff|flake8|pylint|jest|vitest|mocha|"
    r"go (?:test|build|vet)|cargo (?:test|build|check|clippy|nextest)|make\b|cmake --build|ninja|"
    # (Windows runs the package managers as ``npm.cmd``: walk 53, F6)
    # (npm's own options before the script: ``npm run -s test``, walk 71, F9)
    r"mix (?:test|compile)|"
    r"npm(?:\.cmd)? (?:test|run(?: -\S+)* \S*(?:test|build|lint|check|typecheck)\S*)|"
    r"yarn(?:\.cmd)? (?:test|build|lint)|pnpm(?:\.cmd)? (?:test|build|lint|run)|bun test|"
    r"deno test|tsc\b|"
    r"gradle|gradlew|mvn|dotnet (?:test|build)|rspec|phpunit|ctest|bazel (?:test|build)|"
    r"swift (?:test|build)|xcodebuild|manage\.py test|python\S* -m (?:pytest|unittest)|"
    r"python\S* \S*test\S*\.py|reproduce\S*\.py|"
    # a project's own test runner (django's ``tests/runtests.py``, ``./run_tests.sh``;
    # sympy's ``bin/test`` and ``bin/doctest``, a ``script/test``: walk 69, F6), never
    # the system's ``test`` (``/usr/bin/test -f x``, ``/bin/test``)
    r"run[-_]?tests|(?<!/usr/)(?<!/local/)(?<!\s/)(?<!^/)(?:bin|scripts?)/(?:test|doctest)\b)",
    re.I,
)
#: ``git commit`` as the subcommand: after git's own options (``-C dir``, ``-c k=v``,
#: ``--no-pager``), a word of its own; the ``commit`` of a config key (``git config
#: --global commit.gpgsign true``) or of ``git commit-tree`` is no commit (walk 55, F1).
_COMMIT = re.compile(
    r"\bgit(?:\s+(?:-[Cc]\s+(?:\"[^\"]*\"|'[^']*'|\S+)|--?[\w-]+(?:=\S+)?))*\s+commit(?=\s|$|[\"')`])"
)
_COMMIT_MSG = re.compile(
    r"-[a-zA-Z]*m\s+(?:\"\$\(cat <<'?\"?EOF'?\"?\s*\n(.*?)\n\s*EOF|"
    r"\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+))",
    re.S,
)
_COMMIT_OUT = re.compile(r"^\[([^\]\n]+?) ([0-9a-f]{7,40})\] (.+)$", re.M)
_PR = re.compile(r"\bgh pr create\b")
_PR_TITLE = re.compile(r"--title\s+(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)')")
_EXIT = re.compile(r"\s*(?:Exit code|exit status|Process exited with code)\s*:?\s*(-?\d+)", re.I)
_COMMIT_FAILED = re.compile(r"nothing to commit|error|fatal", re.I)


_INSTALL = re.compile(
    r"\b(?:pip3?|uv pip|npm|yarn|pnpm|apt(?:-get)?|brew|cargo|go) (?:install|add|get)\b"
)
_HEREDOC_WRITE = re.compile(r"^\s*(?:cat|tee)\b[^|]*(?:>|tee)\s*\S+\s*<<|<<[^|]*>\s*\S+")


#: A quoted text a command line passes as an option's value (``--reason="..."``, ``-m
#: '...'``): words, not a program it runs (``bash -c "pytest -q"`` runs one).
_QUOTED_ARGUMENT = re.compile(
    r"""(?:=|\s-[mt]\s+|\s--(?:message|title|body|reason|description|comment|notes?|"""
    r"""subject)\s+)(?:"(?:[^"\\]|\\.)*"|'[^']*')"""
)


#: Programs that handle files or text, never a check: a test script's name after them is
#: the file they handle (``rm reproduce_issue.py test_edge_cases.py``, walk 60, F4;
#: ``cat test_x.py``, ``grep pytest setup.cfg``).
_FILE_HANDLERS = frozenset(
    {"rm", "rmdir", "cat", "sed", "awk", "mv", "cp", "ls", "head", "tail", "grep", "egrep"}
    | {"rg", "less", "more", "touch", "chmod", "chown", "wc", "nl", "diff", "find", "echo"}
    | {"printf", "stat", "file", "ln", "mkdir", "git", "vi", "vim", "nano", "open", "sort"}
)


def _runs_check(line: str) -> bool:
    """Whether one of a line's simple commands is a check (`_CHECK`) whose program is
    no `_FILE_HANDLERS` one (past ``sudo``, ``env``, ``timeout``: `_program`); a line
    that does not parse is read whole."""
    commands = _shell_words(line)
    if commands is None:
        return True
    for words in commands:
        run = _program(words)
        if run and run[0].rsplit("/", 1)[-1] not in _FILE_HANDLERS and _CHECK.search(" ".join(run)):
            return True
    return False


#: A line that runs ``apply_patch`` (after an optional ``cd DIR &&``): what follows it is
#: the patch's text (a heredoc's, or the argv form's second word joined to the first).
_APPLY_PATCH = re.compile(r"\s*(?:cd\s+\S+\s*&&\s*)?apply_patch\b")


def _is_check(command: str) -> bool:
    """Whether a line of the command runs a check (`_CHECK`: ``cd srv`` then ``pytest
    -q`` on the next line is one); a line that writes a file from a here-document ends
    the search (the lines after it are the file's), and so does an ``apply_patch``, in
    any form: an edit, its patch's words no program (walk 71, F9: the argv form
    ``["apply_patch", "*** Begin Patch ... from 'vitest'"]`` said as the last check);
    installing a test runner is not running it."""
    for line in command.strip().splitlines():
        if _HEREDOC_WRITE.search(line) or re.match(r"\s*(?:cat|echo|printf)\b[^|]*>", line):
            return False
        if _APPLY_PATCH.match(line):
            return False
        # (a quoted argument's words are no program: `bd close --reason="... Vitest ..."`,
        # walk 57, F3)
        words = _QUOTED_ARGUMENT.sub(" ", line.split("<<", 1)[0])
        if not _INSTALL.search(line) and _CHECK.search(words) and _runs_check(words):
            return True
        if "<<" in line:  # the lines after are a here-document's: a commit's message, a
            return False  # script's text ("test: add coverage" is no test run)
    return False


def _result_summary(call: _Call) -> str:
    if call.rejected:
        return "rejected by the user, not run"
    error, result = harness_error(call.result or "")
    if error:  # a harness's error (a timeout): its words, not its command line
        m = _EXIT.match(result)
        code = call.exit_code if call.exit_code is not None else int(m.group(1)) if m else None
        return f"{error} (exit {code})" if code is not None else error
    # the lines a collapsed run says too (walk 28, F15), else the output's last line
    picked = result_lines(result)
    lines = [_fold(ln).strip("=-_* ") for ln in result.splitlines() if ln.strip()]
    keep = said_results(picked) if picked else lines[-1:]
    text = "; ".join(_cut(ln, 140) for ln in keep)
    code = _exit_code(call)
    if code is not None:
        text = f"{text} (exit {code})" if text else f"exit {code}"
    elif call.failed:
        text = f"{text} (failed)" if text else "failed"
    if call.result is None:
        return "no result in the log"
    return text or "no output"


def _commit_line(command: str, call: _Call) -> tuple[str, bool]:
    """The line for a ``git commit`` call, and whether it made a commit."""
    out = _COMMIT_OUT.search(call.result or "")
    if out:
        line = f"Committed {out.group(2)[:10]} on {out.group(1)}: {_cut(out.group(3), 160)}"
        return line, True
    m = _COMMIT_MSG.search(command)
    message = next((g for g in m.groups() if g), "") if m else ""
    message = message.strip().splitlines()[0] if message.strip() else ""
    what = _cut(message, 160) or _cut(command, 160)
    if call.result is not None and (call.failed or _COMMIT_FAILED.search(call.result)):
        reason = _cut(call.result.replace("\\n", " "), 80)
        return f"Commit failed: {what} ({reason})", False
    if call.result is None:
        # no result in the log (the run stopped on it): nothing says it was made (walk
        # 72, F5: "Committed: Implement Figma design" and "Not pushed" of a commit and a
        # push the log ends on)
        return f"Commit not confirmed: {what} (no result in the log)", False
    if not call.result.strip():
        return f"Committed: {what}", True
    # chained (``git commit ... && git push``): the output is the later command's, so
    # no failure shown and no non-zero exit known means the commit was made; a lone
    # commit that exited 0 made one whatever it printed (a hook's lines)
    code = call.exit_code
    if code is None and (m := _EXIT.match(call.result)):
        code = int(m.group(1))
    if code == 0 or (code is None and _commit_chained(command)):
        return f"Committed: {what}", True
    if code and not _commit_chained(command):
        return f"Commit failed: {what} (exit {code})", False
    # no commit line, no failure, no exit code: the recap says what it cannot tell
    shown = _cut(" ".join(call.result.split()), 80)
    return f"Commit not confirmed: {what} (no new commit in its output: {shown})", False


def _commit_chained(command: str) -> bool:
    """Whether another command runs after the line's ``git commit`` when it succeeds
    (joined by ``&&`` or ``;``), so that the call's output is that command's."""
    words = _shell_tokens(command)
    if words is None:
        return False
    current: list[str] = []
    for i, w in enumerate(words):
        if w in _SHELL_JOINS:
            if current[:1] == ["git"] and "commit" in current:
                return w in ("&&", ";") and i + 1 < len(words)
            current = []
        else:
            current.append(w)
    return False


#: Last outcome's line of the last check opens so (the recap's dedupe reads it back: the
#: summary of a chunk that ran it does not say the run again).
LAST_CHECK = "Last check: "


def outcome_section(log: _Log) -> Section:
    """The last check (test, build, lint) and its result (a refused one says it did not
    run), a commit that failed with nothing after it, the agent's own final report."""
    lines: list[tuple[int, int, str]] = []  # (rank, position, line)
    last_check: _Call | None = None
    failed_commits: list[tuple[int, str]] = []
    made: list[int] = [i for i, _ in log.commits]
    finished: list[tuple[int, str]] = []
    for call in log.calls:
        name = call.name.lower()
        if name == "done" or name in ("attempt_completion", "submit", "finish"):
            summary = call.args.get("summary", call.args.get("result", call.result or ""))
            if isinstance(summary, str) and summary.strip():
                finished.append(
                    (call.index, f"Finished: {_sentences_cut(summary, _LINE_CHARS['outcome'])}")
                )
            continue
        if name not in SHELL_TOOLS:
            continue
        command = _command(call.args)
        if command == "?":
            continue
        if _COMMIT.search(command) and not call.rejected:
            line, ok = _commit_line(command, call)
            if ok:
                made.append(call.index)
            else:
                failed_commits.append((call.index, line))
        if submits(command) or command.strip() == "submit":
            finished.append((call.index, "Submitted the work (the agent's final action)."))
        elif _is_check(command) and (
            call.result is not None or last_check is None or last_check.result is None
        ):
            last_check = call  # the last one whose result the log has, if any has one
    if last_check is not None:
        cmd = _code(one_line_command(_command(last_check.args)), 120)
        said = f"{LAST_CHECK}{cmd} -> {_result_summary(last_check)}"
        lines.append((0, last_check.index, said))
    # a commit that failed matters only when no commit came after it
    if failed_commits and (not made or failed_commits[-1][0] > max(made)):
        lines.append((1, failed_commits[-1][0], failed_commits[-1][1]))
    if (
        log.ended is not None
        and log.ended[1].lower() == "submitted"
        and not any(line.startswith("Submitted") for _, line in finished)
    ):  # no submit command in the log (cut short, or another harness): its exit says so
        finished.append((log.ended[0], "Submitted the work (the run's exit status)."))
    for age, (pos, line) in enumerate(reversed(finished[-2:])):
        lines.append((1 + age, pos, line))
    if log.ended is not None and log.ended[1] and log.ended[1].lower() != "submitted":
        pos, how, text = log.ended  # a run that stopped on an error or a limit
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        detail = f": {_cut(first, 200)}" if first and not first.startswith("diff --git") else ""
        lines.append((0, pos, f"The run ended ({_cut(how, 80)}){detail}"))
    lines.sort(key=lambda t: t[1])
    return Section("outcome", tuple(t[2] for t in lines), tuple(t[0] for t in lines))


# --------------------------------------------------------------------------- work state

_PUSHED_REF = re.compile(
    r"^\s*(?:\+\s*)?([0-9a-f]{6,40})\.\.\.?([0-9a-f]{6,40})\s+(\S+)\s+->\s+(\S+)", re.M
)
_NEW_REF = re.compile(r"^\s*\*\s+\[new (?:branch|tag)\]\s+(\S+)\s+->\s+(\S+)", re.M)
_PUSH_FAILED = re.compile(r"^\s*(?:fatal|error):|\[rejected\]|\[remote rejected\]", re.M | re.I)
_ON_BRANCH = re.compile(r"^On branch (\S+)", re.M)
#: A command that puts the session on a branch (``git checkout -b X``, ``git switch -c
#: X``, ``git switch X``, ``git checkout X``): the branch. A name never opens with ``-``
#: (``git switch --detach``); ``git branch X`` makes X without switching to it, and ``git
#: branch --show-current`` / ``-a`` / ``-D old`` switch nothing (walk 60, F1: read as the
#: branch ``--show-current``). `_switched` says which ``checkout X`` is no switch.
_NEW_BRANCH = re.compile(
    r"\bgit (?:(?:checkout -[bB]|switch -[cC])\s+(?!-)([\w./-]+)"
    r"|(?:checkout|switch)\s+(?!-)([\w./-]+)(?=\s*(?:$|[;&|)])))",
    re.M,
)
#: What ``git checkout X`` also takes that is no branch: the work tree (``.``), a commit
#: (``HEAD~1``, an abbreviated hash: a detached HEAD), a file (``src/app.py``).
_NOT_A_BRANCH = re.compile(r"^(?:\.|HEAD\b.*|[0-9a-f]{7,40}|.*\.\w{1,5})$")
#: Git's own words of a switch that failed (``error: pathspec 'x' did not match``,
#: ``fatal: a branch named 'x' already exists``).
_GIT_FAILED = re.compile(r"^(?:error|fatal):", re.M)


def _switched(call: _Call, command: str) -> str:
    """The branch a shell call switched to (`_NEW_BRANCH`), or the one ``git branch
    --show-current`` printed when that is the whole command; "" for none (a switch git
    refused, a ``checkout`` of a file or a commit)."""
    result = call.result or ""
    if _GIT_FAILED.search(result):
        return ""
    found = _NEW_BRANCH.search(command)
    if found is not None and found.group(1):
        return found.group(1)  # a branch made and switched to
    if found is not None and not _NOT_A_BRANCH.match(found.group(2)):
        return found.group(2)
    if command.strip() == "git branch --show-current":
        shown = [ln.strip() for ln in result.splitlines() if ln.strip()]
        if shown and _EXIT.fullmatch(shown[0]):
            shown = shown[1:]  # (Codex's "Exit code: 0" line)
        if len(shown) == 1 and re.fullmatch(r"[\w./-]+", shown[0]) and shown[0][0] != "-":
            return shown[0]
    return ""


_STATUS_FILE = re.compile(r"^\s+(?:modified|new file|deleted|renamed):\s+(.+)$", re.M)
_CLEAN = re.compile(r"nothing to commit,? (?:\(?)working (?:tree|directory) clean")
_PR_URL = re.compile(r"https://\S+/pull/\d+")


def _short_sha(line: str) -> str:
    m = re.match(r"Committed ([0-9a-f]{7,40})", line)
    return m.group(1)[:7] if m else ""


def _commits(log: _Log) -> list[tuple[int, str]]:
    """Every commit made, each once (by its hash; a line without one by its text), in
    the order made: aider's reports and ``git commit`` calls with their output. A
    ``git commit --amend`` replaces the commit before it (and says which)."""
    found: list[tuple[int, str, bool]] = [(pos, line, False) for pos, line in log.commits]
    for call in log.calls:
        if call.name.lower() not in SHELL_TOOLS or call.rejected:
            continue
        command = _command(call.args)
        if command != "?" and _COMMIT.search(command):
            line, made = _commit_line(command, call)
            if made:
                found.append((call.index, line, "--amend" in command))
    found.sort(key=lambda t: t[0])
    found = [(pos, _hash_from_log(log, pos, line), amend) for pos, line, amend in found]
    seen: set[str] = set()
    out: list[tuple[int, str]] = []
    for pos, line, amend in found:
        key = _short_sha(line) or line
        if key in seen:
            continue
        seen.add(key)
        if amend and out:
            _, replaced = out.pop()
            old = _short_sha(replaced)
            line = f"{line} (amends {old})" if old else line
        out.append((pos, line))
    return out


_LOG_LINE = re.compile(r"^(?:commit )?([0-9a-f]{7,40})\b(?: (.*))?$", re.M)
_SHOWS_HEAD = re.compile(r"\bgit (?:log|rev-parse|show)\b")


def _hash_from_log(log: _Log, pos: int, line: str) -> str:
    """A commit line without a hash (``git commit -q``, an output the log cut) with the
    hash the next ``git log`` / ``git rev-parse HEAD`` / ``git show`` before another
    commit printed for it: its newest line, when that line's message is the commit's
    (or the command printed only a hash)."""
    if not line.startswith("Committed: "):
        return line
    message = line[len("Committed: ") :]
    for call in log.calls:
        if call.index <= pos or call.name.lower() not in SHELL_TOOLS or call.rejected:
            continue
        command = _command(call.args)
        if _COMMIT.search(command):
            return line  # another commit came first: the hash would be of that one
        if not _SHOWS_HEAD.search(command) or not call.result or call.failed:
            continue
        first = _LOG_LINE.search(call.result)
        if first is None:
            continue
        said = (first.group(2) or "").strip()
        if not said or message.startswith(said[:40]) or said.startswith(message[:40]):
            return f"Committed {first.group(1)[:10]}: {message}"
        return line
    return line


def _status_line(call: _Call) -> str:
    """What a ``git status`` result says of the work tree."""
    result = call.result or ""
    if _CLEAN.search(result):
        return "Working tree clean (`git status`)."
    files = list(dict.fromkeys(m.strip() for m in _STATUS_FILE.findall(result)))
    if files:
        shown = ", ".join(files[:6]) + (f" and {len(files) - 6} more" if len(files) > 6 else "")
        return f"Uncommitted (`git status`): {shown}."
    return ""


def state_section(log: _Log) -> Section:
    """The work's state from the exact records: the branch, the commits made (each once),
    pushed or not, a pull request, what is uncommitted (the last ``git status`` after the
    last edit, else the files edited after the last commit)."""
    lines: list[tuple[int, float, str]] = []  # (rank, position, line)
    branch = next(
        (n[len(BRANCH_NOTE) :].strip() for n in reversed(log.notes) if n.startswith(BRANCH_NOTE)),
        "",
    )
    pushes: list[tuple[int, str]] = []
    push_failed: list[tuple[int, str]] = []
    prs: list[tuple[int, str]] = []
    status: _Call | None = None
    for call in log.calls:
        if call.name.lower() not in SHELL_TOOLS or call.rejected:
            continue
        command = _command(call.args)
        result = call.result or ""
        if not branch:
            on = _ON_BRANCH.search(result) if "git status" in command else None
            branch = on.group(1) if on else _switched(call, command)
        if re.search(r"\bgit status\b", command) and call.result is not None:
            status = call
        if _PR.search(command):
            title = _PR_TITLE.search(command)
            url = _PR_URL.search(result)
            what = (title.group(1) or title.group(2) or "") if title else ""
            prs.append(
                (call.index, f"Opened PR{' ' + url.group(0) if url else ''}: {_cut(what, 160)}")
            )
        elif re.search(r"\bgit push\b", command) and call.result is not None:
            refs = [
                f"{m.group(4)} ({m.group(1)[:7]}..{m.group(2)[:7]})"
                for m in _PUSHED_REF.finditer(result)
            ]
            refs += [f"{m.group(2)} (new)" for m in _NEW_REF.finditer(result)]
            if refs and not call.failed:
                pushes.append((call.index, f"Pushed {', '.join(refs[:3])}."))
            elif "Everything up-to-date" in result and not call.failed:
                pushes.append((call.index, "Pushed (everything up to date)."))
            elif call.failed or _PUSH_FAILED.search(result) or (call.exit_code or 0) != 0:
                reason = next(
                    (ln.strip() for ln in result.splitlines() if _PUSH_FAILED.search(ln)), ""
                )
                push_failed.append(
                    (call.index, f"Push failed: {_cut(reason or result.strip(), 120)}")
                )
            else:
                part = re.search(r"\bgit push\b[^;&|\n]*", command)
                quoted = part.group(0).strip() if part else command
                pushes.append((call.index, f"Pushed: {_code(quoted, 80)}"))
    if branch:
        lines.append((0, -1, f"Branch: {branch}"))
    commits = _commits(log)
    if len(commits) > 6:
        # above the first commit shown, which may share its place (one aider turn's
        # commits: walk 72, F7, the line came after a commit it precedes)
        lines.append((3, commits[-7][0], f"({plural(len(commits) - 6, 'earlier commit')})"))
    recent = commits[-6:]
    for k, (pos, line) in enumerate(recent):  # in the log's order (the sort below keeps
        if branch:  # said once on the Branch line  # the order of lines at one place)
            line = line.replace(f" on {branch}: ", ": ", 1)
        lines.append((len(recent) - 1 - k, pos, line))
    last_push = pushes[-1][0] if pushes else -1
    if pushes:
        lines.append((1, pushes[-1][0], pushes[-1][1]))
    if push_failed and push_failed[-1][0] > last_push:
        lines.append((1, push_failed[-1][0], push_failed[-1][1]))
    if commits and pushes and commits[-1][0] > last_push:
        later = sum(1 for pos, _ in commits if pos > last_push)
        lines.append(
            (
                1,
                commits[-1][0] + 0.5,
                f"Not pushed: {plural(later, 'commit')} after the last push.",
            )
        )
    for age, (pos, line) in enumerate(reversed(prs[-2:])):
        lines.append((1 + age, pos, line))
    # what is uncommitted: the last git status after the last edit says it; else the edits
    last_commit = commits[-1][0] if commits else -1
    # the files files changed says (walk 71, F1: a scratch file written, then removed,
    # was said uncommitted here), as it names them (a Windows path: walk 28, F16)
    changed = _changed_paths(log)
    kept = set(changed)
    edits = [
        (c.index, path)
        for c in log.calls
        if not c.failed and not c.rejected
        for p in _edited_paths(c)
        if not _AGENT_STATE.search(p) and (path := p.replace("\\", "/")) in kept
    ]
    outside = _outside_paths(log, [p for _, p in edits])  # no commit could take them
    edits = [(i, p) for i, p in edits if p not in outside]
    last_edit = max((i for i, _ in edits), default=-1)
    said = (
        _status_line(status)
        if status is not None and status.index >= max(last_edit, last_commit)
        else ""
    )
    if said:
        lines.append((1, status.index, said))  # type: ignore[union-attr]
    elif edits and last_edit > last_commit and not _submitted(log):
        # named as files changed names them: of all the session's edited paths (walk 55,
        # F6: of these alone, a single one kept its full path there and not here)
        names = _file_names(log, changed)
        after = list(dict.fromkeys(names[p] for i, p in edits if i > last_commit))
        shown = ", ".join(after[:6]) + (f" and {len(after) - 6} more" if len(after) > 6 else "")
        if commits:
            lines.append((1, last_edit, f"Edited after the last commit (uncommitted): {shown}."))
        else:
            lines.append(
                (2, last_edit, f"Not committed: no commit in this session after editing {shown}.")
            )
    lines.sort(key=lambda t: t[1])
    return Section("state", tuple(t[2] for t in lines), tuple(t[0] for t in lines))


def _submitted(log: _Log) -> bool:
    """The agent handed its work in (mini-swe-agent's submit): its diff is the result."""
    if log.ended is not None:
        return True  # a trajectory: its end record holds the submission (or says why none)
    return any(
        c.name.lower() in ("submit", "finish") or submits(_command(c.args)) for c in log.calls
    ) or bool(log.calls and log.calls[-1].result and "diff --git" in (log.calls[-1].result or ""))


# --------------------------------------------------------------------------- refusals


def rejections_section(log: _Log) -> Section:
    """Tool calls the user refused and requests the user interrupted, with the words the
    user gave (newest first when the allowance is short)."""
    kept = log.rejections[-4:]
    lines = []
    for r in kept:
        words = f': "{r.words}"' if r.words else ""
        lines.append(f"- {r.what}{words}")
    ranks = [len(kept) - 1 - k for k in range(len(kept))]
    return Section("rejections", tuple(lines), tuple(ranks))


# --------------------------------------------------------------------------- subagents

_VERDICT = re.compile(
    r"\b(APPROVED?|REQUEST(?:ED)?[ _]CHANGES|CHANGES[ _]REQUESTED|LGTM|REJECT(?:ED)?|"
    r"NEEDS[ _](?:WORK|CHANGES)|PASS(?:ED)?|FAIL(?:ED|S)?|BLOCK(?:ED|ING)?|NO[ _-]GO)\b"
)
_VERDICT_LABEL = re.compile(
    r"\b(?:verdict|decision|recommendation|result)\s*[:*]+\s*\**\s*([\w -]{2,40})", re.I
)
_HEADING = re.compile(r"\A\s*(?:#+\s.*|(?:\d+\.\s*)?\*\*[^*]+\*\*\W*)\Z")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\((?:https?://)?[^)\s]*\)")
_LAUNCHED = re.compile(r"\A\s*Async agent launched", re.I)
_AGENT_TRAILER = re.compile(r"\n\s*agentId: .*\Z", re.S)


#: A list item that is a label and its value: ``**Latest Version:** 1.5.0``, ``**Endpoint**:
#: `POST /x` ``, ```@batch_size = 500` - batch size``.
_LABELLED_ITEM = re.compile(r"\A[*_]*(?:`[^`\n]+`|[^*_:`\n]{1,40}?)[*_]*\s*(?::|[-–—](?=\s))")


def _under_headings(text: str) -> list[Sentence]:
    """The sentences of `text` in a section a heading opens (a markdown heading or a
    bold title line): what its outline's items are of is that heading."""
    out: list[Sentence] = []
    titled = False
    for p in split_sentences(text):
        if p.heading or _HEADING.match(p.text):
            titled = True
        elif titled:
            out.append(p)
    return out


#: The fewest words of content (`_content_words`) a message's opening sentence with no
#: other fact in it (`has_content`: no path, code, number) has to be its answer, said
#: first: "Based on my web search, **Green Curry** and **Red Curry** appear to be the most
#: popular Thai curries, ..." (walk 72, F2 and F3), not an acknowledgement or a lead-in
#: ("Rozumím.", "Use these steps.", "The patch looks good.").
_ANSWER_WORDS = 6


def _answer_opening(text: str) -> str:
    """The sentence `text` opens on when it is its answer (`split_sentences`' text of it),
    "" otherwise: the first of a paragraph before any heading or list, no lead-in, no
    question, no narration, naming something or with `_ANSWER_WORDS` words of content.
    The answer's sentence has no number or path more often than the details after it
    do: picked by `has_content` alone, the third item of a ranked list ("**Massaman
    Curry** ... won CNN's poll in 2011") was said as the result and the answer was lost
    (walk 72, F2: a subagent's report; F3: the last message)."""
    first = next((p for p in split_sentences(text) if p.text.strip() and not p.quoted), None)
    if first is None or first.heading or first.after == "item" or _HEADING.match(first.text):
        return ""
    said = first.text.strip()
    if (
        is_fragment(first)
        or is_narration(said)
        or said.rstrip("*_ ").endswith(_COLON_END)
        or _QUESTION.search(said)
        or _wordless(said)
    ):
        return ""
    return first.text if has_content(said) or len(_content_words(said)) >= _ANSWER_WORDS else ""


def _report(label: str, text: str, status: str = "", facts_said: int = 2) -> str:
    """One subagent's line: its name, its verdict when it gives one, its first facts (at
    most `facts_said` sentences)."""
    text = _AGENT_TRAILER.sub("", text).strip()
    text = _MD_LINK.sub(r"\1", text)  # a source list's links: their titles only
    verdict = ""
    labelled = _VERDICT_LABEL.search(text)
    if labelled:
        verdict = labelled.group(1).strip(" *")
    else:
        m = _VERDICT.search(text)
        verdict = m.group(1) if m else ""
    # no heading (walk 57, F10: "OpenTelemetry Package Versions for mix.exs" was said as
    # the opening of a run-on line), no narration, no fragment
    parts = [
        p
        for p in split_sentences(text)
        if p.text.strip() and not p.heading and not is_fragment(p) and not is_narration(p.text)
    ]
    sentences = [p.text for p in parts]
    # an introduction ("Here's what I found:") and a bare heading say nothing themselves;
    # nor does an outline's label and value (``- **Latest Version:** 1.5.0``), whose
    # subject is the heading above it (1.5.0 was opentelemetry_api's, said as the
    # report's): the report's own sentences first, such a pair only when the report has
    # none and no heading names what it is of (walk 57, F10)
    said = [s for s in sentences if not s.rstrip().endswith(_COLON_END) and not _HEADING.match(s)]
    pairs = {p.text for p in parts if p.after == "item" and _LABELLED_ITEM.match(p.text)}
    under = {p.text for p in _under_headings(text) if p.text in pairs}
    own = [s for s in said if s not in pairs]
    # the report's own prose first (an item's subject is often the heading above it): a
    # sentence of a paragraph, a label's only when its value is a sentence (``**Important**:
    # You must exit with code 0.``, not ``**Location:** `path` ``)
    prose = [
        p.text
        for p in parts
        if p.after != "item"
        and p.text in own
        and has_content(p.text)
        and (not _LABELLED_ITEM.match(p.text) or p.text.rstrip("*_ ").endswith((".", "!")))
    ]
    facts = (
        prose
        or [s for s in own if has_content(s)]
        or own
        or [s for s in said if s not in under]
        or [s for s in sentences if s not in under]
    )
    opening = _answer_opening(text)
    if opening in own:  # the report's answer first (walk 72, F2)
        facts = [opening, *[f for f in facts if f != opening]]
    facts = [line for line, _ in _with_referents(text, facts)]  # no "It ..." of nothing said
    if verdict:
        hit = next((s for s in sentences if verdict in s), "")
        facts = [hit, *[f for f in facts if f != hit]] if hit else facts
    if not facts:  # nothing a sentence says ("done"): its words, or that it said none
        facts = [_fold(text)] if text else ["no result"]
    # each with its stop: two said as one run-on line misread (walk 57, F10)
    joined = " ".join(map(terminated, facts[:facts_said]))
    body = _sentences_cut(joined, _LINE_CHARS["subagents"])
    head = f"- {label}"
    if verdict:
        head += f": verdict {verdict}"
    elif status and status.lower() not in ("completed", "complete"):
        head += f" ({status})"
    elif status:
        head += " (completed)"
    return f"{head}: {body}" if body else head


def subagents_section(log: _Log) -> Section:
    """What each subagent reported (a reviewer's APPROVE, an explorer's findings): the
    results of delegation calls (Claude Code's ``Task``) and background subagents' task
    notifications, the newest first when the allowance is short."""
    found: list[tuple[int, str, str]] = []  # (where, its line, its line of one fact)
    for call in log.calls:
        if call.name.lower() not in SUBAGENT_TOOLS or call.rejected or call.result is None:
            continue
        if _LAUNCHED.match(call.result):
            continue  # a background launch: its report comes as a notification
        # named by what it was asked, as the collapsed sentence says it (walk 28, F10)
        label = (
            subagent_asked(call.args)
            or subagent_kind(call.args)
            or (call.args.get("name") if isinstance(call.args.get("name"), str) else "")
            or call.name
        )
        said, status = subagent_report(call.result)
        found.append((call.index, *_reports(_cut(label, 60), said, status)))
    for pos, name, status, result in log.reports:
        found.append((pos, *_reports(_cut(name, 60), result, status)))
    found.sort(key=lambda t: t[0])
    kept = found[-5:]
    # its first fact alone when room is short, its two when there is room (walk 57,
    # F10: the report's own sentences are longer than its heading was)
    return Section(
        "subagents",
        tuple(short for _, _, short in kept),
        tuple(len(kept) - 1 - k for k in range(len(kept))),
        full=tuple(line if line != short else "" for _, line, short in kept),
    )


def _reports(label: str, text: str, status: str) -> tuple[str, str]:
    """`_report` with its two first facts, and with its first alone."""
    return _report(label, text, status), _report(label, text, status, 1)


# --------------------------------------------------------------------------- last words

_QUESTION = re.compile(r"\?[\"'”’)\]]*$")


def _content_sentences(text: str, headings: bool = True) -> list[str]:
    """The sentences of `text` a section may say: no fragment (`is_fragment`: a lead-in
    whose list or block is not said, the rest of a sentence cut by one, a label); no
    markdown heading unless `headings` (a heading on a line of its own with a stop put
    after it read as a stump: ``FW-007 — recommendation.``, walk 51, F13); nothing of a
    quote (``> `` lines: an issue's text the agent quoted said as its own state, "`clone`
    fails when ...", over its "This is exactly what I did.": walk 69, F5)."""
    return [
        s.text
        for s in split_sentences(text)
        if s.text.strip() and not s.quoted and not is_fragment(s) and (headings or not s.heading)
    ]


def _last_words(log: _Log) -> list[str]:
    """The assistant's closing texts: its last message, and, when messages that are no
    request (a task notification, "continue") came after the last real one, its last
    message before them too (the report they followed)."""
    last_i, last = log.texts[-1]
    real = [i for i, t in log.requests if request_text(t) is not None]
    since = real[-1] if real else -1
    texts = [last]
    if any(i > since for i, _ in log.requests):  # machine or nudge messages at the end
        first_after = min((i for i, _ in log.requests if i > since), default=last_i)
        # (not the last message itself: it came before them; walk 28, F11: said twice)
        before = [t for i, t in log.texts if since < i < first_after and i != last_i]
        # (only when the last message came after them: one before them is the report
        # itself; walk 72, F6: aider's "/load" typed after the last answer brought back
        # the answer before it, "Please add **Program.cs** to the chat")
        if before and last_i > first_after:
            texts.insert(0, before[-1])
    return texts


#: An image embed: no words of the sentence it ends (walk 27, F11); a link of an image
#: alone (a badge) with it, and an HTML image (walk 28, F18: ``[](url)`` was left).
_EMBED = re.compile(
    r"\[\s*!\[[^\]]*\]\([^)]*\)\s*\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)|<img\b[^>]*>", re.I
)


def _wordless(line: str) -> bool:
    """A line of markup alone (a bare path, code spans) that is no link: a URL alone is
    what a message published or found (a gist, a pull request), said as it is."""
    return is_markup(line) and "://" not in line


#: A sentence that opens on a pronoun pointing back at what the sentence before it named
#: ("The patch looks good. It adds support for ...": walk 55, F10).
_BACK_REFERENCE = re.compile(r"\A[*_]*(?:It|Its|They|Their|This|That|These|Those)\b(?!-)")
#: A sentence whose object, in its first words, is a pronoun pointing back ("I found the
#: log. I'm copying that into the project root", "Run it with ...": walk 60, F13): "it",
#: "them", or "this", "that", "these", "those" with no noun after it (a stop, a
#: preposition, an adverb: "that the" is a conjunction, "that file" names its thing).
_OBJECT_BACK = re.compile(
    r"\A[*_]*(?:\S+\s+){1,4}?(?:it|them|(?:this|that|these|those)(?=\s*(?:[.,;:!?)]|\Z)|\s+"
    r"(?:into|to|in|on|onto|at|from|for|with|over|now|here|there|again|too|up|out|off|back|"
    r"first|instead|as)\b))\b(?![-'’])"
)


def _with_referents(text: str, kept: Sequence[str]) -> list[tuple[str, str]]:
    """The sentences `kept` of `text` (as `_last_lines` says them: no image), each that
    opens on a pronoun pointing back (`_BACK_REFERENCE`), or whose object in its first
    words is one (`_OBJECT_BACK`), with the sentence before it in
    its paragraph put before it, on its line (walk 55, F8 and F10: a filter dropped the
    sentence that named "it", the line kept read "It won ..." of nothing said); with the
    sentence each line ends on."""
    before: dict[str, str] = {}
    previous = ""
    for part in split_sentences(text):
        said = _EMBED.sub("", part.text).strip()
        if part.after == "sentence" and previous:
            before.setdefault(said, previous)
        previous = said
    out: list[tuple[str, str]] = []
    for sentence in kept:
        line = sentence
        back = _BACK_REFERENCE.match(sentence) or _OBJECT_BACK.match(sentence)
        referent = before.get(sentence, "") if back else ""
        if referent and referent not in kept:  # (one kept is said: its own line)
            earlier = before.get(referent, "") if _BACK_REFERENCE.match(referent) else ""
            if earlier and earlier not in kept:
                referent = f"{terminated(earlier)} {referent}"
            line = f"{terminated(referent)} {sentence}"
        out.append((line, sentence))
    return out


_LEAD_IN_END = LEAD_IN_END
#: A text's end on a colon (`COLONS`): a lead-in's, whatever its script.
_COLON_END = tuple(COLONS)


def _lead_in_lists(text: str) -> list[tuple[str, list[str]]]:
    """The lists a lead-in opens in `text`: (the lead-in, its items' texts) for a line
    ending in a colon then two items or more (deeper than it when it is an item itself,
    else the run after it; a deeper item is its item's own, a lead-in among them opens
    its own list)."""
    lines = text.splitlines()
    out: list[tuple[str, list[str]]] = []
    for i, line in enumerate(lines):
        own = _NUMBERED_ITEM.match(line)
        lead = (own.group(3) if own else line).strip()
        if not _LEAD_IN_END.search(lead) or not has_words(lead):
            continue
        depth = len(own.group(1).expandtabs(4)) if own else -1
        level = -1  # the indentation of its items (deeper ones are theirs)
        items: list[str] = []
        for after in lines[i + 1 :]:
            if not after.strip():
                continue
            item = _NUMBERED_ITEM.match(after)
            indent = len(item.group(1).expandtabs(4)) if item else -1
            if item is None or indent <= depth or (level >= 0 and indent < level):
                break
            if level < 0:
                level = indent
            if indent == level and not _LEAD_IN_END.search(item.group(3)):
                items.append(" ".join(item.group(3).split()))
        if len(items) >= 2:
            out.append((" ".join(lead.split()), items))
    return out


def _with_lead_ins(text: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`pairs` (line, the sentence it ends on) with each list a lead-in opens said with
    its lead-in once (walk 53, F4; walk 57, F2 and F5):

    - every item kept (each says itself): the first item's line opens with the lead-in,
      the others keep a line each (a fit cuts them from the end);
    - some left out (a code span alone, no mark of content: `color-scheme='light'`, "Rate
      limiting on /login"), or none kept while its lead-in is a fragment ("Not done yet:",
      "Still open:", whose list is what the line would say): one line, the lead-in and
      all its items (`The settings were switched to: a; b; c.`), where its first kept
      item was, else after the lines kept;
    - the lead-in's own line, when it was kept, is not said again."""
    lists = _lead_in_lists(text)
    if not lists:
        return pairs

    def key(sentence: str) -> str:
        return " ".join(sentence.split()).rstrip(".")

    fragments = [
        key(_EMBED.sub("", p.text))
        for p in split_sentences(text)
        if is_fragment(p) and not p.heading
    ]
    out = list(pairs)
    for lead, items in lists:
        lead_key = key(lead)
        kept = [
            k
            for k, (line, end) in enumerate(out)
            if line == end and any(item.startswith(key(end)) for item in items)
        ]
        if kept and len(kept) == len(items):
            first = kept[0]
            out[first] = (f"{lead} {out[first][0]}", out[first][1])
        elif kept or any(f and lead_key.endswith(f) for f in fragments):
            joined = f"{lead} {'; '.join(i.rstrip('.;,') for i in items)}"
            if kept:
                gone = set(kept[1:])
                out[kept[0]] = (joined, out[kept[0]][1])
                out = [p for k, p in enumerate(out) if k not in gone]
            else:
                out.append((joined, items[0]))
        else:
            continue
        # the lead-in's own line (its colon said as a stop): it opens the list's line now
        bare = lead_key.rstrip(f"{COLONS}*_ ")
        out = [
            (line, end)
            for line, end in out
            if not (
                line == end
                and len(said := key(end).rstrip(f"{COLONS}*_ ")) >= 8
                and bare.endswith(said)
            )
        ]
    return out


#: A list item's line with its number: its indentation, its number (none for a bullet),
#: its text.
_NUMBERED_ITEM = re.compile(r"^([ \t]*)(?:[-*+•]|(\d{1,3})[.)])[ \t]+(\S.*?)\s*$")
#: A list's title: the short line right above its first item (``**Findings**``,
#: ``Answers:``), that a "(and N more items)" of it names (walk 57, F1).
_TITLE_WORDS = 6


def _item_lines(text: str) -> list[tuple[str, bool]]:
    """Each list item's line of `text` in order: (its text on one line, whether it is an
    item of an item: deeper than its list's items, or numbered from 1 again right after
    an item that is a lead-in, ``5. The missing concerns are:`` then ``1. ...``, which
    markdown shows as one list but is the item's own; walk 57, F1)."""
    out: list[tuple[str, bool]] = []
    level = -1  # the indentation of the list's own items
    lead = False  # the list's last own item is a lead-in (ends in a colon)
    nested = 0  # the number of the last item of a renumbered item's list (0: none)
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _NUMBERED_ITEM.match(line)
        if m is None:
            if not line[:1].isspace():  # a paragraph of its own: the list ended
                level, lead, nested = -1, False, 0
            continue
        indent = len(m.group(1).expandtabs(4))
        number = int(m.group(2)) if m.group(2) else 0
        said = " ".join(m.group(3).split())
        if level < 0 or indent < level:
            level, nested = indent, 0
        elif indent > level:
            out.append((said, True))
            continue
        if nested and number == nested + 1:
            nested = number
            out.append((said, True))
            continue
        if lead and number == 1:
            nested = 1
            out.append((said, True))
            continue
        nested = 0
        lead = bool(_LEAD_IN_END.search(said))
        out.append((said, False))
    return out


def _list_title(text: str, item: str) -> str:
    """The title of the list whose first item's line is `item` in `text`: the short line
    right above it, its markup and colon left out ("" when it has none)."""
    above = ""
    for line in text.splitlines():
        m = _NUMBERED_ITEM.match(line)
        if m and " ".join(m.group(3).split()) == item:
            break
        if line.strip():
            above = line
    else:
        return ""
    if _NUMBERED_ITEM.match(above):
        return ""
    title = above.strip().strip("#*_: ").strip()
    words = title.split()
    return title if 0 < len(words) <= _TITLE_WORDS and has_words(title) else ""


#: A sentence that says what the agent did: "I" or "we" and a verb in the past ("I
#: changed its startup type ...", "We've set ...").
_DID = re.compile(
    r"\A(?:I|We)(?:['’]ve| have)?(?: also| then| now| just)?\s+(?:[a-z]+ed|set|made|ran|"
    r"wrote|built|put|left|kept|got|found|took|gave|did|cut|sent|began|chose|rebuilt|"
    r"rewrote|undid|reset|re-ran|rerun)\b"
)


def _whole_items(text: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`pairs` (line, the sentence it ends on) with each line that ends on a list item's
    first sentence of `text` said with the rest of its item's paragraph that no line
    says (not a question, a fragment or narration) when that says what the agent did
    (`_DID`) and the line still fits (`_LINE_CHARS`): an item's first sentence alone may
    say the opposite of the item (``**Service Fix**: The **Windows Time** service was
    stopped.`` of "... I changed its startup type to **Automatic** and started it.": walk
    69, F4); the rest of an item that says no act (a remark, a hint) adds less than the
    line a fit leaves out for it."""
    parts = split_sentences(text)
    rests: dict[str, list[str]] = {}  # an item's first sentence: the rest of its paragraph
    for k, part in enumerate(parts):
        if part.after != "item":
            continue
        rest: list[str] = []
        for after in parts[k + 1 :]:
            said = _EMBED.sub("", after.text).strip()
            if after.after != "sentence" or after.quoted or is_fragment(after):
                break
            if not _QUESTION.search(said) and not is_narration(said) and not _wordless(said):
                rest.append(said)
        if any(_DID.match(r) for r in rest):
            rests.setdefault(_EMBED.sub("", part.text).strip(), rest)
    if not rests:
        return pairs
    kept = {end for _, end in pairs}
    out: list[tuple[str, str]] = []
    for line, end in pairs:
        more = [r for r in rests.get(end, []) if r not in kept and r not in line]
        whole = " ".join([terminated(line), *more])
        out.append((whole, end) if more and len(whole) <= _LINE_CHARS["last"] else (line, end))
    return out


def _list_items(
    texts: Sequence[str],
) -> tuple[dict[str, tuple[int, int]], list[tuple[int, str]]]:
    """Each sentence of `texts` that is a list's (as `_last_lines` says it, no image):
    (which list of them, 1 up; its item's number in it); and for each list its number of
    items and its title (`_list_title`). A list is a run of items, the sentences after an
    item's first in it its own, and so are the items of its own list (`_item_lines`: an
    item of an item is no item of the list, walk 57, F1)."""
    out: dict[str, tuple[int, int]] = {}
    sizes: list[tuple[int, str]] = []
    lists = item = 0
    for text in texts:
        inside = False
        lines = _item_lines(text)
        at = 0  # the next item line a sentence that opens an item may be
        for s in split_sentences(text):
            said = _EMBED.sub("", s.text).strip()
            if s.after == "item":
                head = " ".join(said.split())[:24]
                k = next((j for j in range(at, len(lines)) if head in lines[j][0]), at)
                inner = k < len(lines) and lines[k][1]
                at = k + 1
                if not inside:
                    lists, item, inside = lists + 1, 0, True
                    title = _list_title(text, lines[k][0]) if k < len(lines) else ""
                    sizes.append((0, title))
                if not inner or not item:
                    item += 1
                    sizes[-1] = (item, sizes[-1][1])
            elif s.after != "sentence":
                inside = False
            if inside:
                out.setdefault(said, (lists, item))
    return out, sizes


def _whole_procedures(
    text: str, worded: Sequence[str], chosen: Sequence[str]
) -> tuple[list[str], dict[str, str]]:
    """`chosen` (of the sentences `worded` of `text`, in their order) with each numbered
    list it keeps a later step of and not an earlier one whole: all its steps, and the
    sentence that leads into it (a step alone says too little, "Click the 'Download Now'
    button and save the file.", yet a procedure less a step in its middle, or without the
    request its steps serve, reads as done: walk 64, F13); and {that lead-in: the list's
    first sentence}, the line the lead-in opens (kept apart, a fit could say the steps
    without it)."""
    items, _ = _list_items([text])
    numbered = {
        " ".join(m.group(3).split())[:24]
        for line in text.splitlines()
        if (m := _NUMBERED_ITEM.match(line)) and m.group(2)
    }
    split = split_sentences(text)
    parts = [_EMBED.sub("", p.text).strip() for p in split]
    out = list(chosen)
    leads: dict[str, str] = {}
    groups = sorted({g for g, _ in items.values() if g})
    for group in groups:
        steps = [w for w in worded if items.get(w, (0, 0))[0] == group]
        firsts = [w for w in steps if items[w][1] == 1]
        if not firsts or " ".join(firsts[0].split())[:24] not in numbered:
            continue  # (a bulleted list: its items say themselves, or not)
        said = {items[w][1] for w in steps if w in chosen}
        if not said or all(n in said for n in range(1, max(said))):
            continue  # (none said, or its first steps: it reads as shorter, not as done)
        at = parts.index(steps[0]) if steps[0] in parts else 0
        opener = split[at - 1] if at else None
        lead = parts[at - 1] if at else ""
        if lead and _LEAD_IN_END.search(lead):
            continue  # (a lead-in on its colon: `_with_lead_ins` says it with its items)
        wanted = set(out) | set(steps)
        if lead in worded and lead not in items and opener and opener.opens == "item":
            wanted.add(lead)
            leads[lead] = steps[0]
        out = [w for w in worded if w in wanted]
    return out, leads


def _colon_steps(text: str) -> dict[int, str]:
    """The steps of the message `text` whose colon leads into a code block (``Then find
    the new token account:`` over ``spl-token accounts ...``), each said with its block:
    {the step's place among `split_sentences` (text): the step and its block on one
    line}. Alone such a step is no sentence (`is_fragment`)."""
    blocks = _blocks_after(text)
    out: dict[int, str] = {}
    if not blocks:
        return out
    for k, part in enumerate(split_sentences(text)):
        said = _EMBED.sub("", part.text).strip()
        if part.opens != "block" or part.heading or not _LEAD_IN_END.search(said):
            continue
        if has_words(said) and is_fragment(part):
            code = next((c for line, c in blocks.items() if line.endswith(said)), "")
            if code:
                out[k] = f"{said} {code}"
    return out


def _with_commands(text: str, chosen: Sequence[str]) -> tuple[list[str], list[str]]:
    """`chosen` (sentences of the message `text`, in their order) with each step whose
    colon leads into a code block said with its block (`_colon_steps`), in the message's
    order: ``Then find the new token account: `spl-token accounts ...```; a step-by-step
    answer said without its commands told the next session to "fund it" and not how
    (walk 64, F16). And those steps, in order: a fit takes them as a list's items (the
    first that does not fit ends them, "(and N more items)": a step left out in the
    middle read as no step). A kept sentence over a block is said as it was, its block
    when there is room (`_kept_blocks`)."""
    steps = _colon_steps(text)
    if not steps:
        return list(chosen), []
    out: list[str] = []
    left = list(chosen)
    for k, part in enumerate(split_sentences(text)):
        said = _EMBED.sub("", part.text).strip()
        if left and said == left[0]:
            out.append(left.pop(0))
        elif k in steps:
            out.append(steps[k])
    return out + left, [steps[k] for k in sorted(steps)]


def _kept_blocks(texts: Sequence[str], lines: Sequence[str]) -> tuple[str, ...]:
    """For each of `lines` (Where it stopped's, of the closing `texts`), in a step-by-step
    answer (`_colon_steps`), the line with the code block its sentence leads into
    (``Replace `<YOUR_WALLET_ADDRESS>` with the wallet connected in Civitas.
    `solana airdrop 2 <YOUR_WALLET_ADDRESS>; ...```), said instead when there is room
    (`Section.full`; the sentence alone otherwise: a line too long to fit was lost whole,
    aider-cargame's "You could add a convenience property to `Car3`."); "" for the rest."""
    blocks: dict[str, str] = {}
    for text in texts:
        if not _colon_steps(text):
            continue
        after = _blocks_after(text)
        for part in split_sentences(text):
            said = _EMBED.sub("", part.text).strip()
            code = next((c for ln, c in after.items() if ln.endswith(said)), "")
            if part.opens == "block" and said and code:
                blocks.setdefault(terminated(said), code)
    return tuple(
        _cut(terminated(f"{line} {blocks[line]}"), _UNCUT_CHARS) if line in blocks else ""
        for line in lines
    )


def _last_lines(texts: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """(The lines "Where it stopped" says of the assistant's closing `texts`, the texts
    whole on one line); no lines when they hold no words (an image, a bare path)."""
    lines, whole, _, _ = _last_lines_items(texts)
    return lines, whole


def _last_lines_items(
    texts: Sequence[str],
) -> tuple[tuple[str, ...], str, tuple[tuple[int, int], ...], tuple[tuple[int, str], ...]]:
    """`_last_lines`, for each line the list item it is (`Section.items`), and each
    list's size and title (`Section.lists`)."""
    pairs: list[tuple[str, str]] = []  # (line, the sentence it ends on)
    procedures: list[list[str]] = []  # each text's steps said with their commands
    for text in texts:
        sentences = [s for s in _content_sentences(text, False) if not _QUESTION.search(s)]
        plain = [_EMBED.sub("", s).strip() for s in sentences if not is_narration(s)]
        worded = [s for s in plain if not _wordless(s)]  # a bare path is no content said
        # a message that only narrates says what it set out to do, when that names
        # something ("I'll add a try-catch-finally block to Program.cs ...", then its
        # edit): not an earlier message the work went past (walk 72, F6: "Please add
        # **Program.cs** to the chat", though it was added, edited and committed)
        acts = [_EMBED.sub("", s).strip() for s in sentences if is_narration(s) and has_content(s)]
        chosen = [s for s in worded if has_content(s)] or worded[:2] or plain[:2] or acts[:1]
        # its answer opens its lines, whether or not it names a path or a number (walk
        # 72, F3: "Green Curry is ... the most popular" went to What happened, and the
        # section opened on its aside, "Interestingly, **Massaman Curry** ...")
        opening = _EMBED.sub("", _answer_opening(text)).strip()
        if opening in worded and opening not in chosen:
            chosen = [opening, *chosen]
        chosen, leads = _whole_procedures(text, worded, chosen)
        chosen, steps = _with_commands(text, chosen)
        procedures.append(steps)
        told = _with_lead_ins(text, _with_referents(text, chosen))
        for lead, first in leads.items():  # a procedure's lead-in opens its first step's line
            told = [
                (f"{terminated(lead)} {line}" if end == first and line == end else line, end)
                for line, end in told
                if end != lead
            ]
        pairs += _whole_items(text, told)
    items, sizes = _list_items(texts)
    for steps in procedures:  # a step-by-step answer's steps: a list (`_with_commands`)
        if len(steps) >= 2:
            sizes.append((len(steps), ""))
            items.update({step: (len(sizes), k) for k, step in enumerate(steps, 1)})
    firsts: dict[str, str] = {}  # each line once, where it first comes
    for line, end in pairs:
        if line:
            firsts.setdefault(line, end)
    pairs = list(firsts.items())
    kept = [end for _, end in pairs]
    # a lead-in's block (code, an edit) is not in the recap: its colon ends nothing
    lines = tuple(_cut(terminated(s), _LINE_CHARS["last"]) for s, _ in pairs)
    # its code blocks inline (folded as they were, a `~~~` line opened a fence never closed)
    folded = [_fold(_EMBED.sub("", _inline_fences(t))) for t in texts]
    # a closing message of no words after one with some (`🎉`, `...`) is not glued to it
    whole = " ".join([f for f in folded if not _wordless(f)] or folded)
    whole = _cut(whole, _UNCUT_CHARS // 2)
    if all(is_markup(line) for line in lines):  # a bare URL, a lead-in and its code alone:
        alone = () if is_markup(whole) else (_cut(terminated(whole), _LINE_CHARS["last"]),)
        return alone, whole, ((0, 0),) * len(alone), ()
    # a line of markup alone (a bare path) beside lines with words: those say it (walk 27, F5)
    said = [i for i, line in enumerate(lines) if not _wordless(line)]
    return (
        tuple(lines[i] for i in said),
        whole,
        tuple(items.get(kept[i], (0, 0)) for i in said),
        tuple(sizes),
    )


def _last_asked(log: _Log) -> int:
    """The index of the user's last message, a command that manages the tool typed after
    it passed over (aider's ``/quit``, ``/clear``): it asks nothing to answer (walk 69,
    F7: an aider request the API failed on, then ``/quit``: "No answer to the user's last
    message ("/quit")")."""
    for i, text in reversed(log.requests):
        if not (text.strip().startswith("/") and request_text(text) is None):
            return i
    return log.last_user


def _unanswered(log: _Log) -> str:
    """``No answer to the user's last message: ERROR`` when that message got no words
    of the agent's, only the tool's errors (a model the plan does not cover, an API
    refusing: walk 51, F9 and F12); else, when it got nothing at all and an error had
    stopped the agent just before it, that error (`_stopped_before`), or, when the last
    request got tool calls and no words, those calls (`_started_on`); "" otherwise."""
    last = _last_asked(log)
    if last < 0 or any(i > last for i, _ in log.texts):
        return ""
    failed = [_error_said(t) for i, t in log.errors if i > last]
    if not failed:
        return _stopped_before(log) or _started_on(log)
    # the first error answered the request (what follows may be the tool's own: a
    # command of its that failed after); its retries are counted
    tries = sum(1 for t in failed if t == failed[0])
    said = _cut(failed[0], _LINE_CHARS["last"]).rstrip(".")
    again = f" ({tries} attempts)" if tries > 1 else ""
    # what was asked, as `_stopped_before` says it (walk 64, F17: the error alone)
    asked = dict(log.requests).get(last, "")
    quoted = f" {_said_by_user(asked)}" if asked.strip() else ""
    return f"No answer to the user's last message{quoted}: {said}{again}."


#: How much of the user's message a Where it stopped line about it quotes.
_QUOTED_REQUEST = 100
#: The calls a request the agent started on without a word names, the last ones.
_STARTED_CALLS = 3


def _said_by_user(text: str) -> str:
    """The user's message quoted on one line, cut short: ``("continue generating")``;
    curly quotes when it has straight ones (a ``claude "..."`` line pasted)."""
    words = _cut(request_text(text) or text, _QUOTED_REQUEST)
    return f"(“{words}”)" if '"' in words else f'("{words}")'


def _stopped_before(log: _Log) -> str:
    """``No answer to the user's last message ("..."); the agent had stopped on: ERROR.``
    when nothing came after that message and the agent's last act before it was a
    failure of the tool's (walk 60, F8: a usage limit stopped the agent, the user typed
    "continue generating" and got nothing; Where it stopped said the agent's last text,
    from before the error, as if the session ended on it)."""
    last = _last_asked(log)
    if any(c.index > last for c in log.calls):
        return ""
    acted = max([i for i, _ in log.texts] + [c.index for c in log.calls], default=-1)
    stops = [t for i, t in log.errors if acted < i < last]
    if not stops:
        return ""
    said = _cut(_error_said(stops[-1]), _LINE_CHARS["last"]).rstrip(".")
    asked = _said_by_user(dict(log.requests).get(last, ""))
    return f"No answer to the user's last message {asked}; the agent had stopped on: {said}."


def _started_on(log: _Log) -> str:
    """``Started on the user's last request ("...") with N tool calls and no words on it
    yet: ...`` (its last calls) when the agent's last words are from before that request
    and it ran tools for it (walk 60, F8: a skill launched and its preamble run, then the
    log ends; Where it stopped said the answer to the request before)."""
    real = [i for i, t in log.requests if request_text(t) is not None]
    if not real or not log.texts or log.texts[-1][0] > real[-1]:
        return ""
    calls = [c for c in log.calls if c.index > real[-1]]
    if not calls:
        return ""
    named = "; ".join(_describe(c) for c in calls[-_STARTED_CALLS:])
    last = "the last: " if len(calls) > _STARTED_CALLS else ""
    asked = _said_by_user(dict(log.requests)[real[-1]])
    return (
        f"Started on the user's last request {asked} with {plural(len(calls), 'tool call')}"
        f" and no words on it yet: {last}{named}."
    )


#: An API error's JSON inside a tool's error note (Gemini CLI's ``[API Error: [{"error":
#: {"code": 403, "message": "..."}}]]``): its code and message; the message may be the
#: error itself (Ollama's ``{"error":"model requires more system memory ..."}`` in aider's
#: ``litellm.APIConnectionError: OllamaException - ...``: walk 69, F7).
_ERROR_CODE = re.compile(r'"code"\s*:\s*(\d+)')
_ERROR_MESSAGE = re.compile(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)"')
_ERROR_STRING = re.compile(r'"error"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _error_said(text: str) -> str:
    """An error note on one line, its retry count left out, an API error's JSON as its
    code and message."""
    text = API_RETRY.sub("", text)
    message = (_ERROR_MESSAGE.search(text) or _ERROR_STRING.search(text)) if "{" in text else None
    if message:
        code = _ERROR_CODE.search(text)
        head = f"API error {code.group(1)}" if code else "API error"
        return f"{head}: {message.group(1)}"
    return " ".join(text.split())


#: A line that says what is left to do: its lead-in names open work.
_OPEN_WORK = re.compile(
    r"[*_]*(?:not (?:yet )?done(?: yet)?|still (?:open|to do|missing)|left(?: to do)?|"
    r"remaining|to ?do|next steps?|open (?:items|questions|issues)|pending|blocked|"
    r"known (?:issues|gaps)|not (?:yet )?(?:implemented|fixed))\b[^:]{0,40}:",
    re.I,
)


def last_section(log: _Log) -> Section:
    unanswered = _unanswered(log)
    if unanswered:
        return Section("last", (unanswered,), (0,))
    if not log.texts:
        return Section("last", ())
    lines, whole, items, lists = _last_lines_items(_last_words(log))
    if not lines:  # a last message of no words (an image, a path): the last one with some
        for _, text in reversed(log.texts[:-1]):
            lines, whole, items, lists = _last_lines_items([text])
            if lines:
                break
    # the sentences that report a count ("29 unit tests pass", "3 files changed") go in
    # first when the allowance is short: a number is what a summary cannot give back
    # and before them what is left to do ("Not done yet: ...", "Still open: ...": walk
    # 57, F5), what the next session starts from
    opens = [i for i, line in enumerate(lines) if _OPEN_WORK.match(line)]
    counted = [i for i, line in enumerate(lines) if _COUNT.search(line) and i not in opens]
    order = opens + counted + [i for i in range(len(lines)) if i not in counted + opens]
    ranks = [0] * len(lines)
    for rank, i in enumerate(order):
        ranks[i] = rank
    unasked = ""
    if lines and not any(c.name.lower() in ASK_TOOLS for c in log.calls if c.index > log.last_user):
        unasked = _unasked(whole, log.texts[-1][1], _asked(log))
    said = _last_words(log)
    steps = [t for t in said if _colon_steps(t)] if lines else []
    full = _kept_blocks(said, lines) if steps else ()
    return Section(
        "last",
        lines,
        tuple(ranks),
        full=full if any(full) else (),
        whole=whole if lines else "",
        items=items,
        lists=lists,
        unasked=unasked if has_words(unasked) else "",
        steps_of=" ".join(_fold(_inline_fences(t)) for t in steps),
        lists_of=tuple((lead, tuple(items)) for t in said for lead, items in _lead_in_lists(t))
        if lines
        else (),
    )


_COUNT = re.compile(
    r"\b\d[\d,.]*\s+(?:[\w-]+\s+){0,2}?(?:tests?|doctests?|specs?|cases?|assertions?|"
    r"passed|passing|failed|failing|failures?|errors?|warnings?|skipped|files?|commits?|"
    r"lines?|issues?|checks?|examples?|benchmarks?)\b",
    re.I,
)


def _answers(log: _Log) -> list[tuple[int, str]]:
    """The user's answers to the agent's questions (decisions), one line each:
    ``Answered: QUESTION -> ANSWER``."""
    out: list[tuple[int, str]] = []
    for call in log.calls:
        if call.name.lower() not in ASK_TOOLS or call.rejected or not (call.result or "").strip():
            continue
        if ask_refused(call.name, call.result or "", call.failed):
            continue  # the tool refused to ask: the user answered nothing
        pairs = answers_given(call.result or "", call.args)
        if pairs:
            for q, a in pairs:
                out.append((call.index, f"Answered: {_cut(q, 140)} -> {_cut(a, 140)}"))
            continue
        q = question_text(call.args)
        asked = f"{_cut(q, 140)} -> " if q.strip() else ""
        out.append((call.index, f"Answered: {asked}{_cut(call.result or '', 160)}"))
    return out


#: A question the agent asks itself: it names the user in the third person ("I should
#: check if the user wants the biggest icons?": walk 60, F10).
_OF_THE_USER = re.compile(r"\bthe user(?:['’]s)?\b", re.I)
#: The sentence right after a question that answers it, the agent's own answer
#: ("(Unlikely).", "Actually, `512` is already huge.", "No, ...").
_SELF_ANSWER = re.compile(
    r"\A[*_(\[]*(?:actually\b|unlikely\b|(?:probably|likely|maybe) not\b|not (?:likely|needed|"
    r"necessary)\b|never ?mind\b|nope\b|(?:no|yes)[,.!)])",
    re.I,
)


def _asked(log: _Log) -> list[str]:
    """The questions of the agent's last message the "Open question" section says when
    no question tool asks one (its last two; none when the user spoke after it); not one
    it asks itself (`_OF_THE_USER`), nor one the sentence right after answers
    (`_SELF_ANSWER`)."""
    if not log.texts or log.texts[-1][0] <= log.last_user:
        return []
    text = log.texts[-1][1]
    parts = split_sentences(text)
    answered = {
        q.text for q, a in pairwise(parts) if a.after == "sentence" and _SELF_ANSWER.match(a.text)
    }
    asked = [
        s
        for s in _content_sentences(text)
        if _QUESTION.search(s) and s not in answered and not _OF_THE_USER.search(s)
    ]
    return list(dict.fromkeys(asked[-2:]))


def _unasked(whole: str, text: str, asked: Sequence[str]) -> str:
    """`Section.unasked` of the Where it stopped `whole` (`text` the last message, the
    questions `asked` in it): `whole` with each question left out, or `whole` when one
    is a list's item, or "" when none is in it."""
    inside = [q for q in asked if _fold(q) in whole]
    if not inside:
        return ""
    items = [m.group(3) for m in map(_NUMBERED_ITEM.match, text.splitlines()) if m]
    if any(" ".join(i.split()).startswith(_fold(q)[:40]) for q in inside for i in items):
        return whole
    out = whole
    for q in inside:
        out = out.replace(_fold(q), "")
    return " ".join(out.split())


def questions_section(log: _Log) -> Section:
    lines: list[str] = []
    for call in reversed(log.calls):
        if call.index < log.last_user:
            break
        if call.name.lower() in ASK_TOOLS:
            if call.result and call.result.strip():
                break  # answered
            q = question_text(call.args)
            if q.strip():
                lines.append(_sentences_cut(q, _LINE_CHARS["questions"]))
            break
    if not lines:
        lines = [_cut(s, _LINE_CHARS["questions"]) for s in _asked(log)]
    return Section("questions", tuple(lines), tuple(range(len(lines))))


# --------------------------------------------------------------------------- all


def session_section(notes: Iterable[str]) -> Section:
    titles = [n[len(SESSION_NOTE) :].strip() for n in notes if n.startswith(SESSION_NOTE)]
    titles = list(dict.fromkeys(t for t in titles if t))[-3:]
    return Section("session", tuple(_cut(t, 160) for t in titles), tuple(range(len(titles))))


def extract_sections(
    messages: Sequence[Mapping[str, Any]], notes: Iterable[str] = ()
) -> list[Section]:
    """Every section of `messages` (see the module docstring), in display order; a
    section without records has no lines."""
    notes = list(notes)
    log = _read(messages, notes)
    return [
        session_section(notes),
        task_section(log),
        rejections_section(log),
        plan_section(log),
        state_section(log),
        files_section(log),
        outcome_section(log),
        subagents_section(log),
        last_section(log),
        questions_section(log),
    ]


# Which sections' lines go first when the allowance is short: (section, rank) sorts
# by this table's value for the section, then by the line's rank.
_PRIORITY = {
    "task": 0,
    "rejections": 1,
    "state": 1.5,
    "subagents": 2.5,
    "questions": 1,
    "plan": 2,
    "outcome": 2,
    "files": 3,
    "last": 3,
    "session": 4,
}


#: The first request (the task) may take this many tokens of the allowance even when
#: its share is less: at a small budget the task comes before every other line.
TASK_FLOOR = 16


def fit_sections(
    sections: Sequence[Section], allowance: int, counter: TokenCount, *, stretch: bool = False
) -> list[Section]:
    """The sections cut to at most `allowance` tokens of `counter` once rendered
    (`render_sections`): lines are taken in priority order (the first request, an open
    question, the plan's open items and the last check first; each section at most its
    share of the allowance), and shown in their own order. A line that does not fit is
    skipped and the next ones are still tried. The first request goes in first, cut at
    a word to fit when it must (its share at least `TASK_FLOOR` tokens, down to its first
    word), so no other line ever takes its place. With `stretch`, a section may take more
    than its share when the others leave room (a second pass over what is left)."""
    if allowance <= 0:
        return []
    order: list[tuple[float, int, int, int]] = []
    for si, s in enumerate(sections):
        ranks = s.ranks if len(s.ranks) == len(s.lines) else tuple(range(len(s.lines)))
        for li, rank in enumerate(ranks):
            lead = li in s.leads  # (before every other line, line 0 too: `Section.leads`)
            weight = -1.0 if lead else _PRIORITY.get(s.name, 5) + min(rank, 6) * 0.75
            order.append((weight, si, li, max(rank, 1) if lead else rank))
    order.sort()
    chosen: dict[int, set[int]] = {}
    text: dict[tuple[int, int], str] = {}  # lines cut to fit
    count_joined = getattr(counter, "count_joined", None)
    made: dict[tuple[str, bool], str | None] = {}  # `literal_markdown_line`, once a line

    def line(si: int, li: int) -> str:
        return text.get((si, li), sections[si].lines[li])

    def parts(picks: Mapping[int, set[int]]) -> tuple[list[str], list[str]] | None:
        """``render_sections(build(picks))`` as its parts and what joins them: each
        section's heading and its lines as `Section.render` makes them
        (`literal_markdown_line`), so that `TokenCounter.count_joined` counts it from
        the parts' counts; None when a line is not its own business (or opens on
        whitespace: the counts would not add up)."""
        out: list[str] = []
        joins: list[str] = []
        for si, s in enumerate(sections):
            lines = [t for t in (line(si, i) for i in sorted(picks.get(si, ()))) if t]
            if not lines:
                continue  # a section left with no line shows nothing
            if out:
                joins.append("\n\n")
            out.append(f"## {s.title}")
            among = len(lines) > 1
            for raw in lines:
                key = (raw, among)
                if key not in made:
                    made[key] = literal_markdown_line(raw, among_others=among)
                done = made[key]
                if done is None or done[:1].isspace():
                    return None
                joins.append("\n")
                out.append(done)
        return out, joins

    def tokens(picks: Mapping[int, set[int]]) -> int:
        """``counter.count(render_sections(build(picks)))``: with a `TokenCounter`, from
        the counts of its parts (`TokenCounter.count_joined`; the same count)."""
        split = parts(picks) if count_joined is not None else None
        if split is None:
            return counter.count(render_sections(build(picks)))
        return int(count_joined(*split))  # type: ignore[misc]

    def build(picks: Mapping[int, set[int]]) -> list[Section]:
        out = []
        for si, s in enumerate(sections):
            keep = sorted(picks.get(si, ()))
            if keep:
                keep = [i for i in keep if line(si, i)]  # "" : said by the section's whole
                out.append(
                    Section(
                        s.name,
                        tuple(line(si, i) for i in keep),
                        tuple(s.ranks[i] for i in keep) if len(s.ranks) == len(s.lines) else (),
                        s.source,
                    )
                )
        return out

    def widen() -> None:
        """With room left (`stretch`), a section is shown whole (all its lines kept) and a
        line cut short is shown uncut, most important first, as long as it still fits."""
        asking = next(
            (si for si, s in enumerate(sections) if s.name == "questions" and chosen.get(si)),
            -1,
        )
        for si, s in enumerate(sections):
            if s.whole and len(chosen.get(si, ())) == len(s.lines):
                saved = {li: text.get((si, li)) for li in range(len(s.lines))}
                text[(si, 0)] = s.whole
                asked = set(chosen.get(asking, ()))
                if asked and s.unasked:  # the question said once (walk 57, F8)
                    if s.unasked != s.whole:
                        text[(si, 0)] = s.unasked
                    else:
                        chosen[asking] = set()  # (said in its list, in the whole)
                for li in range(1, len(s.lines)):
                    text[(si, li)] = ""
                if tokens(chosen) > allowance:
                    if asked:
                        chosen[asking] = asked
                    for li, before in saved.items():
                        if before is None:
                            text.pop((si, li), None)
                        else:
                            text[(si, li)] = before
        for _, si, li, _ in order:
            s = sections[si]
            if li not in chosen.get(si, ()) or len(s.full) != len(s.lines) or not s.full[li]:
                continue
            if (si, li) in marked:
                continue  # (a list's "(and N more ...)" in the line's place)
            before = text.get((si, li))
            text[(si, li)] = s.full[li]
            if tokens(chosen) > allowance:
                if before is None:
                    text.pop((si, li))
                else:
                    text[(si, li)] = before

    def fits(trial: Mapping[int, set[int]], si: int) -> bool:
        name = sections[si].name
        if not stretch:
            own = tokens({si: trial[si]})
            share = _SHARE.get(name, 0.1) * allowance
            if name == "task" and trial[si] == {0}:
                share = max(share, TASK_FLOOR)  # the first request alone
            elif sections[si].leads and 0 not in trial[si]:
                share /= 2  # a lead before line 0: half the share, the rest for line 0
            if own > share:
                return False
        return tokens(trial) <= allowance

    said: set[str] = set()

    def forms(si: int, li: int) -> tuple[str, ...]:
        """The shorter forms of line `li` (`Section.shorter`) than the one it has now."""
        s = sections[si]
        found = s.shorter[li] if len(s.shorter) == len(s.lines) else ()
        now = line(si, li)
        return found[found.index(now) + 1 :] if now in found else found

    def shortened(si: int, li: int, trial: Mapping[int, set[int]]) -> bool:
        """Whether a shorter form of line `li` makes `trial` fit (it is then the line's
        text; else the line's text is left as it was)."""
        before = text.get((si, li))
        for form in forms(si, li):
            text[(si, li)] = form
            if fits(trial, si):
                return True
        if before is None:
            text.pop((si, li), None)
        else:
            text[(si, li)] = before
        return False

    def attempt(si: int, li: int, rank: int) -> bool:
        """Take line `li` of section `si` if it fits (cut to fit when it may be); False
        when it does not fit (a line that says nothing new is passed over: True)."""
        nonlocal chosen, said
        s = sections[si]
        keys = _said(s.lines[li])
        if not keys or keys & said:
            return True  # nothing new, or a sentence already said
        trial = {k: set(v) for k, v in chosen.items()}
        trial.setdefault(si, set()).add(li)
        if not fits(trial, si) and not shortened(si, li, trial):
            if rank != 0 or s.name not in _CUTTABLE:
                return False
            # the first line of the task, the question, the last words: cut it to fit
            # (the task at a word, down to its first one; the others to _MIN_CUT)
            full = s.lines[li]
            cuts: Sequence[str] = (
                _word_cuts(full) if s.name == "task" else _CharCuts(full, _MIN_CUT)
            )
            lo, hi, best = 0, len(cuts) - 1, ""
            while lo <= hi:
                mid = (lo + hi) // 2
                text[(si, li)] = cuts[mid]
                if fits(trial, si):
                    best, lo = text[(si, li)], mid + 1
                else:
                    hi = mid - 1
            if not best:
                text.pop((si, li), None)
                return False
            text[(si, li)] = best
        chosen = trial
        said |= keys
        return True

    # a list's items are taken in their order: one whose turn comes before an earlier
    # item's waits for it, and the first that does not fit ends the list (walk 55, F4:
    # an item left out in the middle, a later shorter one kept, read as not done);
    # "(and N more items)" says the rest
    members: dict[tuple[int, int], list[int]] = {}  # (section, list): its lines in order
    for si, s in enumerate(sections):
        for li, (group, _) in enumerate(s.items if len(s.items) == len(s.lines) else ()):
            if group:
                members.setdefault((si, group), []).append(li)
    heads = {key: lines[0] for key, lines in members.items()}
    waiting: dict[tuple[int, int], dict[int, int]] = {}  # (section, list): {line: rank}
    ended: dict[tuple[int, int], int] = {}  # (section, list): its first line left out
    for _, si, li, rank in order:
        s = sections[si]
        group = s.items[li][0] if len(s.items) == len(s.lines) else 0
        if not group:
            attempt(si, li, rank)
            continue
        key = (si, group)
        if key in ended:
            continue
        waiting.setdefault(key, {})[li] = rank
        queue = members[key]
        while queue and queue[0] in waiting[key]:
            lj = queue.pop(0)
            # (an item is cut to fit only as the list's first: a later one cut short
            # and said again whole in a summary read twice)
            rank = waiting[key].pop(lj)
            if not attempt(si, lj, rank if lj == heads[key] else 1):
                ended[key] = lj
                break

    # "(and N more items)": N the items of the list none of whose lines is said (the one
    # cut inside is said; an item's own list is its own: walk 57, F1)
    def tops(si: int, group: int) -> tuple[int, int]:
        """(The list's last item said, its number of items) in `chosen`."""
        s = sections[si]
        shown = [lj for lj in chosen.get(si, ()) if s.items[lj][0] == group]
        top = max((s.items[lj][1] for lj in shown), default=0)
        size = s.lists[group - 1][0] if group <= len(s.lists) else 0
        known = [s.items[lj][1] for lj in range(len(s.lines)) if s.items[lj][0] == group]
        return top, max([size, *known])

    cut: list[tuple[int, int]] = []
    marked: set[tuple[int, int]] = set()  # the lines that say a list's "(and N more ...)"
    for (si, group), first in ended.items():
        s = sections[si]
        shown = chosen.get(si, set())
        for lj in range(first, len(s.lines)):  # no later item of the list is said
            if s.items[lj][0] == group:
                shown.discard(lj)
        top, size = tops(si, group)
        if top and size > top:  # (none of the list said: no "more" of it either)
            cut.append((si, group))
    for si, group in cut:
        s = sections[si]
        title = s.lists[group - 1][1] if group <= len(s.lists) else ""
        # two lists' "more" in one section read as one list said twice: each named by
        # its title, else by the first item it leaves out (walk 57, F1)
        named = sum(1 for other, _ in cut if other == si) > 1
        while True:
            top, size = tops(si, group)
            kept = sorted(lj for lj in chosen.get(si, ()) if s.items[lj][0] == group)
            # (its place: the list's next line, else the next line not said)
            free = [
                lj
                for lj in range(kept[-1] + 1, len(s.lines))
                if (si, lj) not in text and lj not in chosen[si]
            ]
            at = next((lj for lj in free if s.items[lj][0] == group), free[0] if free else -1)
            if at < 0:
                break
            plain = f"(and {plural(size - top, 'more ' + s.noun)})"
            marks = [plain]
            if named and title:
                marks = [f"{plain[:-1]} under {title})", plain]
            elif named:
                after = [lj for lj in range(at, len(s.lines)) if s.items[lj][1] > top]
                if after:
                    opening = _cut(s.lines[after[0]], 40).rstrip(".")
                    marks = [f"{plain[:-1]}, from: {opening})", plain]
            # (the short one when the named one does not fit, unless another list's
            # mark reads the same)
            seen = {line(si, lj) for lj in chosen.get(si, ())}
            marks = [m for m in marks if m not in seen]
            placed = False
            for mark in marks:
                text[(si, at)] = mark
                trial = {k: set(v) for k, v in chosen.items()}
                trial[si].add(at)
                if fits(trial, si):
                    chosen, placed = trial, True
                    marked.add((si, at))
                    break
                text.pop((si, at))
            if placed:
                break
            shorter = forms(si, kept[-1])
            if shorter:  # the last line said shorter, when it can be (walk 71, F8)
                text[(si, kept[-1])] = shorter[0]
                continue
            if len(kept) < 2:
                if s.name == "files":  # (a file list said in part with no mark reads as
                    chosen[si].discard(kept[-1])  # every file changed: walk 71, F8)
                break
            # no room for it: the list's last line makes room (a list said as whole
            # when it is not misleads more than one line fewer)
            chosen[si].discard(kept[-1])
    if stretch:
        widen()
    return build(chosen)


#: Sections whose most important line is cut to fit rather than left out.
_CUTTABLE = frozenset({"task", "questions", "last"})
_MIN_CUT = 60


def _word_cuts(line: str) -> list[str]:
    """`line` cut after each of its words but the last, shortest first, each ending with
    "..." (and closing what the cut leaves open: code, a quotation, bold)."""
    words = _fold(line).split(" ")
    out: list[str] = []
    size = -1
    for word in words[:-1]:
        size += len(word) + 1
        out.append(_truncate(_fold(line), size + 4))
    return list(dict.fromkeys(out))


class _CharCuts(Sequence[str]):
    """`line` cut at `low` characters and more, one more at each index (`_cut`), made
    only when looked at: a binary search over them looks at a few."""

    def __init__(self, line: str, low: int) -> None:
        self.line, self.low = line, low

    def __len__(self) -> int:
        return max(len(self.line) - self.low, 0)

    def __getitem__(self, i: int) -> str:  # type: ignore[override]
        return _cut(self.line, self.low + i)


@functools.lru_cache(maxsize=1 << 14)
def _said(line: str) -> frozenset[str]:
    """The sentences of a line, normalised (to say none twice); kept for the lines seen
    last (a lazy recap fits the same sections for each head it composes)."""
    text = line.strip().lstrip("-#*> ").strip()
    text = re.sub(r"^\[[x~ ]\]\s*", "", text)
    text = re.sub(r"^[A-Z][\w ]{0,24}: ", "", text)
    return frozenset(
        k for k in (" ".join(p.lower().split()).rstrip(".!?;: ") for p in sentences_of(text)) if k
    )


def as_json(sections: Sequence[Section], counter: TokenCount) -> list[dict[str, Any]]:
    """The sections as in ``chunkscope recap --format json``."""
    return [s.as_dict(counter.count(s.render())) for s in sections]
