"""aider's chat history (``.aider.chat.history.md``).

``# aider chat started at 2024-05-01 10:00:00`` opens a session and gives its time;
``#### `` lines are what the user typed (``####`` alone: a blank line of it, as aider 0.50
wrote it); ``> `` lines are aider's own output (files
added, edits applied, commits, command output), read as tool results; everything
else is the model's answer. Each turn keeps the line it starts on.

aider echoes its command line as its first output line; run with ``--message TASK``
that line repeats the whole task, which follows as the user's message: the echo keeps
the command, and the task is read once. A request given with a command (``/code X``)
is written again as the next ``####`` lines (``X``, all its lines when it has many): it is
read once too, with its command.
A question asked with ``/help Q`` is followed by the prompt aider builds for it, written
as the user's lines too (``# Question: Q``, ``# Relevant docs:``, its ``<doc>`` pages):
aider's words, left out; the user's ``/help Q`` is read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from chunkscope.engine.model import text_lines
from chunkscope.engine.read.commands import aider_command, asking_command
from chunkscope.engine.read.formats.base import Collected, ReadOptions
from chunkscope.engine.read.source import _check_regular_file, _iter_lines

NAME = "aider"
#: The role of aider's own output (``> `` lines) among the messages read.
AIDER_ROLE = "aider"
#: aider's command line echoed, with the task given by --message / -m / --msg.
_ECHO = re.compile(
    r"^(\S*aider\b.*?\s(?:--message|--msg|-m))\s+(.+?)(?=\s--?[A-Za-z][\w-]*(?:\s|=|$)|\s*$)"
)
STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")
#: What `_repeat` leaves out, as `Source.stripped` counts it.
REPEATED = "requests aider repeats after their /code, /ask or /architect command"
#: What aider writes for an empty input (Enter on an empty prompt: its ``io.py`` writes
#: ``<blank>`` as the history's line): no words of the user's (walk 56, F6: the recap's
#: ``Later: <blank> can you read ...``). Such lines are left out, counted as `BLANK_INPUTS`.
BLANK_INPUT = "<blank>"
BLANK_INPUTS = "empty inputs (aider's <blank>)"
#: What `_help_prompt` leaves out, as `Source.stripped` counts it.
HELP_PROMPTS = "prompts aider writes after a /help question (its docs pages)"
#: The first line of the prompt aider's ``/help Q`` sends (its ``help.py``): ``# Question:
#: Q``, then ``# Relevant docs:``, the pages found, its announcement lines (walk 64, F2:
#: 1,560 lines of aider's docs read as the user's words, a ``<doc>`` among the requests).
_HELP_QUESTION = re.compile(r"#\s*Question:\s*(.*)")
#: A line of the user's block: ``#### `` and the text, or ``####`` alone (aider 0.50 wrote
#: a blank line of the user's so: walk 64, F15, read as the model saying ``####``).
_USER_LINE = re.compile(r"####(?: |\Z)")


#: aider's own output lines (``> ``) that say what it did: an edit applied, a commit made,
#: a command it ran after asking (``Running npm test``, its output on the next lines).
_EDIT = re.compile(r"Applied edit to (.+?)\s*$")
_COMMIT = re.compile(r"Commit ([0-9a-f]{7,40}) (.+?)\s*$")
#: A user's slash command with words after it (``/run CMD``).
_COMMAND_LINE = re.compile(r"\A\s*/([\w-]+)\s+(.+)", re.S)


def aider_run(text: str) -> str | None:
    """The command of a user's ``/run CMD`` or ``/test CMD``, typed in full or short
    (``/ru``, ``/tes``: walk 28, F8): aider runs it, its output is the next block; None
    for any other message."""
    line = _COMMAND_LINE.match(text)
    if line is None or aider_command(line.group(1)) not in ("run", "test"):
        return None
    return line.group(2).strip()


_RUNNING = re.compile(r"^Running (.+?)\s*$", re.M)
#: The second half of aider's token line, which aider 0.50 wraps onto a line of its own
#: without the ``> `` (``> Tokens: 10k sent, 1.1k received.`` then ``Cost: $0.05
#: message, $0.19 session.``): aider's status, not the model's words (walk 64, F1).
_COST = re.compile(r"Cost: \$\d")
#: aider's question after a ``/run`` since about 0.60 (its ``commands.py``: ``Add 0.2k
#: tokens of command output to the chat?``), then ``Added 6 lines of output to the chat.``
#: on a yes. aider prints the output to the terminal only: whatever the answer, the log
#: does not hold it (walk 69, F9: the question was said as the command's result).
_OUTPUT_NOT_LOGGED = re.compile(r"^Add [\d.]+k tokens of command output to the chat\?")
#: Where a command's output ends in aider's block: its own next line (a question, a hint,
#: the token count, another command).
_AFTER_OUTPUT = re.compile(
    r"^(?:Running |Add command output to the chat\?|Run shell commands?\?|You can use /undo"
    r"|Tokens: |Applied edit to |Commit [0-9a-f]{7,40} |"
    + _OUTPUT_NOT_LOGGED.pattern[1:]
    + r"|Added \d+ lines? of output to the chat\.)"
)


#: The user's no to keeping a command's output in the chat (``n``, or ``d``: don't ask
#: again, which aider takes as no).
_NOT_ADDED = re.compile(r"^Add command output to the chat\?.*:\s*[nNdD]\w*\s*$")


def _kept(said: str, after: list[str]) -> bool:
    """Whether the log holds the output of a command that printed `said` (its lines up
    to aider's own next line), `after` the block's lines after them: not when aider's
    question follows with no output before it and the user answered no, nor after the
    question that never logs it (`_OUTPUT_NOT_LOGGED`)."""
    if said:
        return True
    asked = next((ln for ln in after if _AFTER_OUTPUT.match(ln)), "")
    return not (_NOT_ADDED.match(asked) or _OUTPUT_NOT_LOGGED.match(asked))


#: An error aider writes when a call to the model fails (its ``litellm`` exception:
#: ``litellm.APIConnectionError: OllamaException - {"error":"model requires more system
#: memory ..."}``, each retry's under a ``Retrying in 0.2 seconds...``): the request got
#: no answer from it (walk 69, F7: the recap did not say the last one got none).
_API_ERROR = re.compile(r"^litellm\.\w+(?:Error|Timeout)\b.*\S", re.M)


def api_errors(text: str) -> list[str]:
    """The errors of calls to the model in a block of aider's output, as aider wrote
    them, in order (a retried call's each time)."""
    return _API_ERROR.findall(text)


def _output(lines: list[str]) -> str:
    """A command's output: `lines` up to aider's own next line, right-stripped."""
    said: list[str] = []
    for line in lines:
        if _AFTER_OUTPUT.match(line):
            break
        said.append(line.rstrip())
    return "\n".join(said).strip("\n")


class Action(NamedTuple):
    """One thing aider did, said in its output: `kind` "edit" (`what` the path), "commit"
    (`what` the hash, `said` the message) or "run" (`what` the command, `said` its
    output), on the block's lines `first` to `last` (0-based, in the block's text)."""

    kind: str
    what: str
    said: str
    first: int
    last: int
    #: a run's output is in the chat (the user may answer no to "Add command output to
    #: the chat?": then the log does not say what it printed, walk 53, F18)
    kept: bool = True


def actions(text: str, ran: str | None = None) -> list[Action]:
    """What aider did in a block of its output, in order; `ran`: the command of a
    ``/run`` or ``/test`` the block is the output of (its output opens the block)."""
    lines = text.split("\n")
    out: list[Action] = []
    if ran is not None:
        said = _output(lines)
        out.append(Action("run", ran, said, 0, max(0, said.count("\n")), _kept(said, lines)))
    for i, line in enumerate(lines):
        if m := _EDIT.match(line):
            out.append(Action("edit", m.group(1), "", i, i))
        elif m := _COMMIT.match(line):
            out.append(Action("commit", m.group(1), m.group(2), i, i))
        elif m := _RUNNING.match(line):
            said = _output(lines[i + 1 :])
            last = i + (said.count("\n") + 1 if said else 0)
            out.append(Action("run", m.group(1), said, i, last, _kept(said, lines[i + 1 :])))
    return out


def _repeat(lines: list[str]) -> tuple[int, int] | None:
    """Where in a user's block the request of the command line before it is written
    again (``/code X`` then ``X``: aider writes the message it sends), as the range of
    its lines (start, end), None when no lines do. A request of many lines (``/ask why
    ...`` and the lines typed after it) is written again whole (walk 69, F1: only a
    one-line echo was known, the Task said a multi-line request twice)."""
    for i, line in enumerate(lines):
        asked = asking_command(line)  # a request given with /code, /ask (or /as)
        if asked is None:
            continue
        # the echo opens on the command's words: each such later line a candidate, the
        # request being the lines from the command to it (without its trailing blanks)
        for j in range(i + 1, len(lines)):
            if lines[j].strip() != asked.strip():
                continue
            asked_lines = [ln.rstrip() for ln in lines[i + 1 : j]]
            while asked_lines and not asked_lines[-1]:
                asked_lines.pop()
            echo = [ln.rstrip() for ln in lines[j + 1 : j + 1 + len(asked_lines)]]
            if echo == asked_lines:
                return j, j + 1 + len(asked_lines)
    return None


def _help_prompt(lines: list[str]) -> int | None:
    """The index of the line of a user's block where the prompt aider wrote for a ``/help
    Q`` before it starts (``# Question: Q``, the next line with words after the command);
    the prompt runs to the block's end (aider's answer ends it), None when there is none."""
    for i, line in enumerate(lines):
        said = _COMMAND_LINE.match(line)
        if said is None or aider_command(said.group(1)) != "help":
            continue
        nxt = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        if nxt is None:
            return None
        asked = _HELP_QUESTION.fullmatch(lines[nxt].strip())
        if asked is not None and " ".join(asked.group(1).split()) == " ".join(
            said.group(2).split()
        ):
            return nxt
    return None


def looks_like(first_line: str) -> bool:
    """Whether a file's first line is aider's chat history header."""
    return bool(STARTED.match(first_line.strip()))


def _trimmed(block: list[str]) -> str:
    """A block's lines as one text, without its lines of blanks at either end."""
    kept = [i for i, ln in enumerate(block) if ln.strip()]
    return "\n".join(block[kept[0] : kept[-1] + 1]) if kept else ""


def read(path: Path, options: ReadOptions) -> Any:
    """An aider chat history file's sessions, read into turns."""
    _check_regular_file(path)
    out = Collected(path, NAME, tidy=False)  # (its texts are the file's lines)
    role: str | None = None
    kind: str | None
    start = 0
    lines: list[str] = []
    ts: str | None = None

    def flush() -> None:
        # the block's last line with text, in the file (a repeat left out still ends it)
        end = start + max((i for i, ln in enumerate(lines) if ln.strip()), default=0)
        parts = [(lines, start)]
        if role == "user":
            # a repeat is read once, with its command: the lines around it are read as
            # they stand in the file, so each keeps its own line number (deleting the
            # repeat shifted the text after it by a line, and left its blank lines around
            # a paragraph of none: "You: \n/add main.py", walk 19, 1)
            parts, rest, at = [], lines, start
            help_at = _help_prompt(rest)
            if help_at is not None:  # aider's prompt for a /help: to the block's end
                rest = rest[:help_at]
                out.stripped[HELP_PROMPTS] += 1
            while (repeat := _repeat(rest)) is not None:
                parts.append((rest[: repeat[0]], at))
                out.stripped[REPEATED] += 1
                rest, at = rest[repeat[1] :], at + repeat[1]
            parts.append((rest, at))
        if role == "tool" and lines:
            for i, ln in enumerate(lines):
                echo = _ECHO.match(ln)
                if echo:  # the task follows as the user's message: not a second copy
                    lines[i] = f"{echo.group(1)} [the task, read below]{ln[echo.end() :]}"
                    out.stripped["tasks echoed on aider's command line"] += 1
        # its lines of blanks at either end left out (a ``####   `` line opens the block:
        # kept, the text's first line was not the line its first words are on, and a
        # part cut from it said the line before: walk 50, F14)
        texts = [(_trimmed(block), block, at) for block, at in parts]
        texts = [t for t in texts if t[0].strip()]
        if role is None or not texts:
            return
        for k, (text, block, at) in enumerate(texts):
            message: dict[str, Any] = {"role": role, "content": text, "timestamp": ts}
            if role == "tool":
                message["tool_call_id"] = None
                message["role"] = AIDER_ROLE
            before = len(out.turns)
            out.add(at, message)
            # the block's text is its lines (prefixes taken off): it says where it ends
            first = at + next((i for i, ln in enumerate(block) if ln.strip()), 0)
            span = text_lines(text, first)
            last = max(span[1], end) if k == len(texts) - 1 else span[1]
            out.turns[before:] = [
                t._replace(source_line=span[0], last_line=last) for t in out.turns[before:]
            ]
            if out.keep_messages:  # collapsing reads the message: the same lines
                kept = out.messages[-1]
                kept.line, kept.last_line = span[0], last
        out.records += 1  # one block, one record, however many parts its repeats leave
        out.read += 1

    for lineno, line in _iter_lines(path, out.warnings, options.progress):
        started = STARTED.match(line)
        if started:
            flush()
            role, lines = None, []
            ts = started.group(1).replace(" ", "T")
            out.records += 1  # a session's start: read for its time
            out.read += 1
            continue
        if _USER_LINE.match(line):
            kind, text = "user", line[5:]
            if text.strip() == BLANK_INPUT:
                text = ""  # a line of the user's block with no words
                out.stripped[BLANK_INPUTS] += 1
        elif line == ">" or line.startswith("> "):
            kind, text = "tool", line[2:]
        elif (
            role == "tool" and lines[-1:] and lines[-1].startswith("Tokens: ") and _COST.match(line)
        ):
            kind, text = "tool", line
        elif role == "tool" and line[:1] in " \t" and line.strip():
            # the next line of a command aider prints after ``> `` on its first only
            # (``    ?? throw new ...``: walk 57, F9, read as the model's words)
            kind, text = "tool", line
        else:
            kind, text = ("assistant" if line.strip() else role), line
        if kind != role:
            flush()
            role, start, lines = kind, lineno, []
        lines.append(text)
    flush()
    return out.build(options)
