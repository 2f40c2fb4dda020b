"""Tool-call collapsing: the recap's pre-processing (log-format.md section 6).

`collapse_messages(messages)` keeps the seed's name and turns the messages of a
log into turns where every tool call and its result become one short sentence:

- ``system`` messages (and any role other than user, assistant, tool and a Claude Code
  subagent's) are dropped;
- a subagent's message (role ``Subagent``) stays a ``Subagent`` turn: its text, then each
  of its calls collapsed with its result as below, in a ``Subagent`` turn of its own
  (labelled as the subagent's; not counted among the main agent's actions);
- a ``user`` message with non-blank content becomes a ``You`` turn;
- an ``assistant`` message yields a ``Bot thinking`` turn (truthy ``reasoning``),
  then a ``Bot`` turn (non-blank content), and remembers each of its tool calls;
- a ``tool`` message is matched to its call by ``tool_call_id`` and becomes one
  ``Tool`` turn with the sentence of the table below; an orphan result (no
  matching call, or a call already answered) is dropped.

=================  ==========================================================
tool               sentence
=================  ==========================================================
``status``         dropped
``read``           ``Read {path} (N lines).`` (lines of the result)
``ls``             ``Listed {path or .}: a, b, c, d, e, ...`` (first five non-blank
                   lines of the result; ``, ...`` only when there are more)
``recall``         ``Recalled N memories about '{query}'.``
``recall_detail``  ``Retrieved full text of memory #{chunk_id}.``
``edit``           ``Edited {path}.``
``write``          ``Wrote {path} (N lines).`` (lines of the written content)
``remember``       ``Remembered: '{abstract}'.`` (the whole abstract)
``ask``            ``Asked user: '{message}'. Response: '{result, cut at 120 chars}'.``
``run``            ``Ran `{command}`: {result cut at 120 chars}``
``done``           ``Finished: '{summary}'.``
any other          ``Called {name}({arguments as compact JSON}).``
=================  ==========================================================

Details the table leaves open, decided here:

- Every turn keeps its message's own timestamp and 1-based source line (the
  line of a `engine.read.parse.Message`, else None); a ``Tool`` turn also keeps
  the line of the record holding its call (``Turn.call_line``), so its lines run
  from the call to the result; ``turn_index`` numbers the output turns 0, 1, 2, ...
- A missing argument reads ``?`` (``ls`` without a path lists ``.``); arguments
  that are not JSON, or JSON that is not an object, count as no arguments, except
  for an unknown tool, whose sentence shows them as given.
- Counts are pluralised properly (``1 line``, ``1 memory``).
- Results quoted by ``ask`` and ``run`` have their whitespace folded to single
  spaces before the cut, so a collapsed turn is one line; a cut ends with ``...``.
- A call without an id is matched to the next result without a ``tool_call_id``;
  a call without a name collapses as an unknown tool named ``?``.
- Multi-part content (a list of text parts) is read as its joined text.

The consequential tools (write, edit, remember, ask) changed state; the recap's
action weight counts them. `collapsed_tool` recognises which tool a collapsed
turn came from by its sentence (exact for this module's output), and
`consequential_indices` / `count_consequential` count them per chunk.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence, Set
from datetime import datetime
from typing import Any

from chunkscope.engine.model import Progress, Turn, with_progress
from chunkscope.engine.read.formats.aider import AIDER_ROLE, aider_run
from chunkscope.engine.read.formats.aider import actions as aider_actions
from chunkscope.engine.read.formats.claude import (
    SUBAGENT_CALLS,
    SUBAGENT_ROLE,
    SUBAGENT_SAID,
    notification,
)
from chunkscope.engine.read.source import (
    THINKING_ROLE,
    PartEnds,
    content_text,
    parse_timestamp,
    words_only,
)
from chunkscope.engine.textutil import (
    SENTENCE_STOP,
    closing_ticks,
    code_span,
    plural,
    strip_control,
)
from chunkscope.engine.toolcall import (
    ELLIPSIS,
    FOLDED_LINE_BREAK,
    MCP_PREFIX,
    SHELL_TOOLS,
    command_text,
    compact_value,
    decode_arguments,
    editor_command,
    format_call,
    open_quote,
)

#: The command line's flags that collapse tool calls and keep them as they are (the
#: workbench's `T`): one name for the commands that take them and the commands the
#: workbench writes out.
COLLAPSE_FLAG = "--collapse"
NO_COLLAPSE_FLAG = "--no-collapse"
#: Why a log can have more turns collapsed than read: the actions aider says it took in
#: one block of its output (edits, commits, runs) are each a turn of their own.
ACTIONS_APART = "each action a turn"

#: Whether a JSONL log's tool calls are collapsed when neither flag is given, by what the
#: run is for (each command declares its purpose once, `tui.cli.common.add_collapse_args`):
#: - ``recap``: the recap pipeline and what shows it (`recap`, `report`, the workbench,
#:   `serve`, `review`, the hooks): the next agent reads collapsed calls, as the seed's
#:   recap made them, and the preview must be what it reads;
#: - ``chunks``: chunks to read, find and measure (`chunk`, `search`, `eval`, `sweep`,
#:   `tune`): every word of a call and its result stays in the chunks, since answers
#:   are often in a command's output (collapsing cuts a result to `CUT` characters: on
#:   the held-out retrieval set, BM25 hits 84% of the questions over the whole calls and
#:   78% over the collapsed ones, docs/retrieval.md); the seed's chunk kept them too.
COLLAPSE_DEFAULTS: dict[str, bool] = {"recap": True, "chunks": False}

#: The recap pipeline's default (`COLLAPSE_DEFAULTS`), for the parts that only run it.
COLLAPSE_BY_DEFAULT = COLLAPSE_DEFAULTS["recap"]


def collapse_by_default(purpose: str) -> bool:
    """Whether a run for `purpose` (a key of `COLLAPSE_DEFAULTS`) collapses tool calls
    when neither ``--collapse`` nor ``--no-collapse`` is given."""
    return COLLAPSE_DEFAULTS[purpose]


__all__ = [
    "COLLAPSE_BY_DEFAULT",
    "COLLAPSE_DEFAULTS",
    "COLLAPSE_FLAG",
    "CONSEQUENTIAL_TOOLS",
    "CUT",
    "NO_COLLAPSE_FLAG",
    "TOOL_ROLE",
    "collapse_by_default",
    "collapse_call",
    "collapse_messages",
    "collapsed_tool",
    "consequential_indices",
    "count_consequential",
    "is_consequential",
]

TOOL_ROLE = "Tool"
USER_ROLE = "You"
BOT_ROLE = "Bot"

#: Tools that change state; the recap's action weight counts them.
CONSEQUENTIAL_TOOLS: frozenset[str] = frozenset({"write", "edit", "remember", "ask"})

#: Quoted results (``ask``, ``run``) are cut to this many characters.
CUT = 120

_DROPPED_TOOLS = frozenset({"status"})

#: What a collapsed call says when its result is nowhere in the log (a session read while
#: the call ran, or cut short); the recap's last check says the same.
NO_RESULT = "no result in the log"


#: Between the lines of a multi-line command in its sentence: the sentence stays one line,
#: and the command is never read as another (``for f in *.py; do ⏎ echo "$f" ⏎ done``,
#: where the lines joined by spaces would run ``echo "$f" python ...``). Declared beside
#: `open_quote`, which reads it back as the line break it stands for.
LINE_BREAK = FOLDED_LINE_BREAK


# The sentence forms of this module, to tell which tool a collapsed turn came from.
_SENTENCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("read", re.compile(r"Read .+ \(\d+ lines?\)\.\Z", re.S)),
    ("ls", re.compile(r"Listed .+?(: .*| \(empty\)\.)\Z", re.S)),
    ("recall", re.compile(r"Recalled \d+ memor(y|ies) about '.*'\.\Z", re.S)),
    ("recall_detail", re.compile(r"Retrieved full text of memory #.*\.\Z", re.S)),
    ("edit", re.compile(r"(?:Edited|Created|Deleted) .+\.\Z", re.S)),
    ("write", re.compile(r"Wrote .+ \(\d+ lines?\)\.\Z", re.S)),
    ("remember", re.compile(r"Remembered: '.*'\.\Z", re.S)),
    ("ask", re.compile(r"Asked user: '.*'\. Response: '.*'\.\Z", re.S)),
    (
        "run",
        re.compile(
            rf"Ran `.*`(?: on line \d+)?((?: \(exit -?\d+\))?: .*"
            rf"| \((exit -?\d+|failed|no output|{NO_RESULT})\)\.)\Z",
            re.S,
        ),
    ),
    ("search", re.compile(r"Searched (the web )?for '.*'.*\.\Z", re.S)),
    ("fetch", re.compile(r"Fetched .+\.\Z", re.S)),
    ("delegate", re.compile(r"Delegated to .+\Z", re.S)),
    ("plan", re.compile(r"Updated the (todo list|plan) .*\Z", re.S)),
    ("done", re.compile(r"Finished: '.*'\.\Z", re.S)),
    ("other", re.compile(r"Called .+\Z", re.S)),
)


# --------------------------------------------------------------------------- helpers


def _fold(text: str) -> str:
    """Whitespace runs (newlines included) folded to one space, ends stripped."""
    return " ".join(text.split())


def one_line_command(command: str) -> str:
    """A command on one line: its lines joined by `LINE_BREAK` (blank ones left out),
    each line's blank runs folded (the recap's last check says it so too)."""
    lines = [" ".join(line.split()) for line in command.splitlines()]
    return LINE_BREAK.join(line for line in lines if line)


def _command_line(command: str) -> str:
    """A command on one line for its sentence, cut (`one_line_command`), the quotation
    the cut leaves open closed after its ``...`` (walk 47, F2), as the chunks' ``$`` line
    closes it (`engine.toolcall.open_quote`)."""
    line = one_line_command(command)
    cut = _cut(line)
    return cut if cut == line else cut + open_quote(line[:CUT])


def _cut(text: str, limit: int = CUT) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _arg(args: Mapping[str, Any], key: str, default: str = "?") -> str:
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, str):
        return value if value.strip() else default
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_URLS = re.compile(r"https?://[^\s<>\"'`]+")
#: How Gemini CLI's search_file_content's result opens: ``Found N matches ...``.
_FOUND_MATCHES = re.compile(r"\A\s*Found (\d+) match(?:es)?\b", re.I)
#: A search's result that found nothing (Claude Code's Grep and Glob: "No files found",
#: "No matches found").
_FOUND_NONE = re.compile(r"\A\s*(?:No (?:files|matches|results) found|Found no )", re.I)
#: Claude Code's Grep in its files mode: "Found 5 files" and then their paths.
_FOUND_FILES = re.compile(r"\A\s*Found (\d+) files?\b", re.I)


def _value(args: Mapping[str, Any], key: str, default: str = "?") -> str:
    """An argument of another agent's tool as the raw view shows it
    (`engine.toolcall.compact_value`: ``[a, b]``, not JSON); `_arg` is the seed's."""
    value = args.get(key)
    if value is None:
        return default
    text = compact_value(value)
    return text if text.strip() else default


def question_text(args: Mapping[str, Any]) -> str:
    """What an ask call asks: its ``message`` or ``question``, else the ``question`` of
    each of its ``questions`` (Claude Code's AskUserQuestion), joined by a space; ""
    when it names none."""
    for key in ("message", "question", "questions"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list):
            texts = [x.get("question") if isinstance(x, Mapping) else x for x in value]
            joined = " ".join(t.strip() for t in texts if isinstance(t, str) and t.strip())
            if joined:
                return joined
    return ""


# Claude Code's answer record: User has answered your questions: "Q"="A", "Q2"="A2". ...
_ANSWERS = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"')
_ANSWERED = re.compile(r"\A\s*User has answered your questions?:\s*", re.I)


#: The tools an agent asks the user with (lower case): Claude Code's AskUserQuestion,
#: Codex's request_user_input, Cline's ask_followup_question, others'.
ASK_TOOLS = frozenset(
    {"ask", "askuserquestion", "ask_user", "ask_followup_question", "request_user_input"}
)


#: An ask tool's result that is the harness refusing the call, which it names: the user
#: saw no question (Codex's ``request_user_input is unavailable in Default mode``).
_ASK_REFUSED = re.compile(
    r"\A\s*(\w+) (?:is|was) (?:unavailable|disabled|not (?:available|supported|allowed|enabled))\b",
    re.I,
)


def ask_refused(name: str, result: str, failed: bool = False) -> bool:
    """Whether an ask call's `result` is no answer but the tool's refusal (walk 56, F1:
    ``request_user_input is unavailable in Default mode`` read as the user's answer), or
    the call failed (`failed`, not refused by the user: that is their answer)."""
    m = _ASK_REFUSED.match(result)
    return bool(m and m.group(1).lower() == name.lower()) or (failed and not refused(result))


def answers_given(result: str, args: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """(question, answer) of each answer in an ask call's result: Claude Code's answer
    record (``User has answered your questions: "Q"="A", ...``), or Codex's JSON
    (``{"answers": {ID: {"answers": [...]}}}``, each question found by its ``id`` in the
    call's `args`); [] otherwise."""
    if _ANSWERED.match(result):
        return _ANSWERS.findall(result)
    if not result.lstrip().startswith("{"):
        return []
    try:
        given = json.loads(result).get("answers")
    except (ValueError, AttributeError):
        return []
    questions = (args or {}).get("questions")
    if not isinstance(given, dict) or not isinstance(questions, list):
        return []
    pairs: list[tuple[str, str]] = []
    for q in questions:
        if not isinstance(q, Mapping) or not isinstance(q.get("question"), str):
            continue
        answer = given.get(q.get("id"))
        chosen = answer.get("answers") if isinstance(answer, Mapping) else None
        said = [a for a in chosen or [] if isinstance(a, str) and a.strip()]
        if said:
            pairs.append((q["question"], "; ".join(said)))
    return pairs


def _decode_arguments(raw: Any) -> tuple[dict[str, Any], str]:
    """(arguments as an object, or {} when they are not one; arguments as shown)."""
    if isinstance(raw, Mapping):
        obj = dict(raw)
        return obj, json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    if raw is None:
        return {}, "{}"
    if not isinstance(raw, str):
        shown = json.dumps(raw, ensure_ascii=False, separators=(",", ":"), default=str)
        return {}, shown
    if not raw.strip():
        return {}, "{}"
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {}, raw
    shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return (value if isinstance(value, dict) else {}), shown


def _line_count(text: str) -> int:
    return len(text.splitlines())


_RECALLED_N = re.compile(r"\b(\d+)\s+memor(?:y|ies)\b", re.I)
_MEMORY_LINE = re.compile(r"^\s*#\d+\b")
_SEPARATOR = re.compile(r"^\s*-{3,}\s*$")


def _memory_count(result: str) -> int:
    """How many memories a ``recall`` result holds.

    Understands a header that states the number ("Recalled 3 memories:"), one
    ``#id`` line per memory, and the reference's ``---``-separated entries.
    """
    if not result.strip():
        return 0
    lines = result.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    m = _RECALLED_N.search(first)
    if m:
        return int(m.group(1))
    if first.strip().lower().startswith("no memor"):
        return 0
    numbered = sum(1 for ln in lines if _MEMORY_LINE.match(ln))
    if numbered:
        return numbered
    return sum(1 for ln in lines if _SEPARATOR.match(ln)) + 1


def collapse_call(
    name: str,
    arguments: Any,
    result: str,
    *,
    exit_code: int | None = None,
    failed: bool = False,
    agent: str | None = None,
    readable: bool = False,
) -> str | None:
    """The sentence for one tool call and its result (None: the call is dropped).

    `arguments` is the call's ``arguments`` field as found in the log (normally
    a JSON-encoded string); `result` the tool message's content as text;
    `exit_code` / `failed` what the log says of a command's outcome, if anything.
    `agent` names the format of a log written by another agent (Claude Code, Codex,
    ChatGPT, set by `engine.read.formats`): its tools are said in the seed's forms where
    the seed has one (`_other_tool`); a log of the seed's own format (no `agent`) is
    collapsed exactly as the reference did. With `readable`, a tool of no known form
    reads as `engine.toolcall.format_call` shows it (``Called search_web "sea star".``)
    instead of the reference's ``Called search_web({"query":"sea star"}).``
    """
    if name in _DROPPED_TOOLS and agent is None:
        return None
    args, shown = _decode_arguments(arguments)
    if agent is not None:
        other = _other_tool(name, args, arguments, result, exit_code, failed)
        if other is not None:
            return other
    if name == "read":
        return f"Read {_arg(args, 'path')} ({plural(_line_count(result), 'line')})."
    if name == "ls":
        entries = [ln.strip() for ln in result.splitlines() if ln.strip()]
        path = _arg(args, "path", ".")
        if not entries:
            return f"Listed {path} (empty)."
        preview = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
        return f"Listed {path}: {preview}"
    if name == "recall":
        n = _memory_count(result)
        return f"Recalled {plural(n, 'memory', 'memories')} about '{_arg(args, 'query')}'."
    if name == "recall_detail":
        return f"Retrieved full text of memory #{_arg(args, 'chunk_id')}."
    if name == "edit":
        return f"Edited {_arg(args, 'path')}."
    if name == "write":
        content = args.get("content")
        n = _line_count(content) if isinstance(content, str) else 0
        return f"Wrote {_arg(args, 'path')} ({plural(n, 'line')})."
    if name == "remember":
        abstract = _arg(args, "abstract", _arg(args, "text"))
        return f"Remembered: '{abstract}'."
    if name == "ask":
        return f"Asked user: '{_arg(args, 'message')}'. Response: '{_cut(_fold(result))}'."
    if name == "run":
        if readable and not _fold(result).strip():  # the seed's own text keeps its colon
            return _ran(_arg(args, "command"), result, exit_code, failed)
        return f"Ran `{_arg(args, 'command')}`: {_cut(_fold(result))}"
    if name == "done":
        summary = args.get("summary")
        text = summary if isinstance(summary, str) and summary.strip() else result
        return f"Finished: '{text.strip() or '?'}'."
    if readable:
        if name.lower() in SHELL_TOOLS:  # a shell of the seed's format, as other readers' shells
            return _ran(_command(args), result, exit_code, failed)
        return _called(name, arguments)
    return f"Called {name or '?'}({shown})."


def _called(name: str, arguments: Any) -> str:
    """The readable sentence of a tool of no known form: the call as the readers show it."""
    shown = format_call(name, arguments)
    if shown.startswith(("$ ", "# ")):  # a command: the tool's name, then the command as
        return f"Called {name or '?'}: {shown}"  # typed (a period would read as part of it)
    # (a quoted argument's own stop ends the sentence: `Called bio "Likes haiku."`, not
    # `"Likes haiku.".`: walk 40, F3)
    ended = shown.endswith((ELLIPSIS, "\n")) or _STOP_ENDS.search(shown) is not None
    return f"Called {shown}" + ("" if ended else ".")


#: A stop that ends a text, quote marks or brackets after it allowed.
_STOP_ENDS = re.compile(SENTENCE_STOP + r"\Z")


# --------------------------------------------------------------------------- other agents' tools

_EXIT = re.compile(
    r"\A\s*(?:(?:Exit code|exit status|Process exited with code)\s*:?\s*|<returncode>)(-?\d+)",
    re.I,
)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)


def _path(args: Mapping[str, Any]) -> str:
    for key in ("file_path", "notebook_path", "absolute_path", "path", "filename"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return "?"


def _command(args: Mapping[str, Any]) -> str:
    """The command as the readers show it (`engine.toolcall.command_text`: an argv list
    quoted as typed, walk 22 F7: its words were joined with spaces, another command)."""
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list) and not all(isinstance(p, str) for p in command):
        command = [str(p) for p in command]
    text = command_text(command)
    return text if text is not None and text.strip() else "?"


#: A harness's own error before a command's output (mini-swe-agent's ``<exception>An
#: error occurred while executing the command: Command '['docker', 'exec', ...]' timed
#: out after 60 seconds</exception>``): what it says of the command, not its output.
_HARNESS_ERROR = re.compile(
    r"\A\s*(?:<exception>(.*?)</exception>(?=\s*<returncode>)"  # (a run's own output may
    r"|The last command <command>.*?</command> (timed out)[^\n]*)\s*",  # hold such a tag)
    re.S,
)
_TIMED_OUT = re.compile(r"\btimed out(?: after [\d.]+ seconds?)?")


#: The tools that hand work to a subagent, in any agent's log (Claude Code's ``Task``
#: and ``Agent``, Gemini CLI's ``codebase_investigator``, ...), lowercased: collapsed,
#: ``Delegated to ...``; the recap lists their results.
SUBAGENT_TOOLS = frozenset(
    {"task", "agent", "subagent", "dispatch_agent", "spawn_agent", "delegate"}
    | {"delegate_task", "run_subagent", "codebase_investigator"}
)
#: What a subagent was asked, by the argument that says it; and what kind it is.
_SUBAGENT_ASKED = ("description", "objective", "task", "prompt", "query")
_SUBAGENT_KIND = ("subagent_type", "agent")


def subagent_asked(args: Mapping[str, Any]) -> str:
    """What a delegation call asked its subagent (`_SUBAGENT_ASKED`), or "": the
    collapsed sentence says it, and the recap names the subagent by it."""
    return next((v for k in _SUBAGENT_ASKED if (v := _value(args, k, "").strip())), "")


def subagent_kind(args: Mapping[str, Any]) -> str:
    """The kind of subagent a delegation call asked for (``Explore``), or ""."""
    return next((v for k in _SUBAGENT_KIND if (v := _value(args, k, "").strip())), "")


def subagent_report(result: str) -> tuple[str, str]:
    """(What a subagent's result says, its ``status`` or ""): a JSON object with one text
    field besides its status says that text (``{"summary": "..."}``, walk 28, F10: said
    as raw JSON); any other result is said as it is."""
    if result.lstrip().startswith("{"):
        try:
            value = json.loads(result)
        except ValueError:
            return result, ""
        if isinstance(value, dict):
            status = value.get("status")
            said = [
                v for k, v in value.items() if k != "status" and isinstance(v, str) and v.strip()
            ]
            if len(said) == 1:
                return said[0], status if isinstance(status, str) else ""
    return result, ""


def harness_error(result: str) -> tuple[str, str]:
    """(what a harness's error says of the command: ``timed out after 60 seconds``, or
    ``the harness failed to run it``; the result after it), or ("", `result`)."""
    m = _HARNESS_ERROR.match(result)
    if m is None:
        return "", result
    timed = _TIMED_OUT.search(m.group(1) or m.group(2))
    return (timed.group(0) if timed else "the harness failed to run it"), result[m.end() :]


#: A line of a command's output that sums up how a check went: a test runner's counts
#: (pytest, jest and vitest, unittest, RSpec), cargo test's ``test result:``, go test's
#: package lines (``ok  <TAB>pkg<TAB>0.01s``, ``FAIL<TAB>pkg``) and ``--- FAIL:``, pytest's
#: ``FAILED``/``ERROR`` lines, a linter's or a build's verdict. A run's collapsed sentence
#: and the recap's "Last check" say its last two such lines (`result_lines`; walk 28, F15:
#: two patterns, and jest's ``PASS src/a.test.js`` or go's tabs made the output's start
#: said). A count of tests alone is unittest's ``Ran 5 tests in 0.01s`` only (cargo's
#: ``running 4 tests`` opens a run, ``ls -l`` lists a folder ``tests`` after a year), and a
#: version's last number counts nothing (``resolve 1.8.3 warning``).
RESULT_LINE = re.compile(
    r"(?i:(?<![\w.])\d+ (?:passed|failed|errors?|skipped|failures?)\b)|^Ran \d+ tests? in\b"
    r"|\btest result:|^(?:Tests?|Test Suites|Test Files):?\s+\d"
    r"|^ok\s+\S+\s+(?:[\d.]+m?s|\(cached\))|^FAIL\s+\S+\s+(?:[\d.]+m?s|\[[\w ]+\])|^--- FAIL: "
    r"|^(?:OK|FAILED)(?: \(|$)|^(?:FAILED|ERROR) \S"
    r"|(?i:\bfound \d+ errors?)|\bAll checks passed|\bno issues found|\bBuild (?:succeeded|failed)"
    # a web build's (Next.js, Vite, webpack): it compiled, or the error it stopped on
    # (walk 53, F6, F7: a passing build was said by its route table's legend)
    r"|\bCompiled successfully\b|\bFailed to compile\b|^Type error: |\bbuilt in [\d.]+\s*m?s\b"
    r"|^ELIFECYCLE\b|\bCommand failed with exit code \d+"
)
#: What a line of output is said without: the rules and marks around it (``=== 3 passed ===``).
_AROUND_RESULT = "=-_*! "


def result_lines(output: str) -> list[str]:
    """The lines of a command's output that sum up its run (`RESULT_LINE`): each on one
    line (blanks and tabs folded), without colour codes (Codex's results keep them) or
    the rules around it."""
    lines = (_fold(ln) for ln in strip_control(output).splitlines())
    return [ln.strip(_AROUND_RESULT) for ln in lines if RESULT_LINE.search(ln)]


#: A Rust test suite's summary line (``cargo test`` prints one per crate and doc-tests).
_SUITE_RESULT = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored")


def said_results(picked: Sequence[str]) -> list[str]:
    """The lines of `picked` (`result_lines`) a run's sentence says: its last two; of
    more test suites' summaries than that (``cargo test``'s ``test result:`` lines), the
    first that failed, else their total (walk 56, F2: the last two were the empty doc-tests',
    ``0 passed``, where 13 unit tests had passed)."""
    suites = [m for line in picked if (m := _SUITE_RESULT.match(line))]
    if len(suites) < 3:  # the last two say them all
        return list(picked[-2:])
    failed = next((m.string for m in suites if m.group(1) == "FAILED"), None)
    if failed is not None:
        return [failed]
    passed, fails, ignored = (sum(int(m.group(i)) for m in suites) for i in (2, 3, 4))
    total = f"test result: ok. {passed} passed; {fails} failed; {ignored} ignored"
    return [f"{total} ({len(suites)} suites)"]


_TRACEBACK = "Traceback (most recent call last):"
#: A Python exception's line at the end of a traceback (``ModuleNotFoundError: No module
#: named 'numpy'``; walk 53, F11: the collapsed run said the traceback's first frames).
_EXCEPTION_LINE = re.compile(
    r"^\s*((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)\b(?::.*)?)$", re.M
)


def _printed(output: str) -> str:
    """What a command printed, as its collapsed sentence says it: the last two lines that
    sum up a check's run, when it printed any (pytest's ``==== test session starts
    ====`` said nothing of the run); a traceback's exception; else its start. Cut at 120
    characters."""
    picked = result_lines(output)
    said = "; ".join(said_results(picked)) if picked else _fold(strip_control(output))
    if not picked and _TRACEBACK in output:  # its exception, not its first frames
        raised = _EXCEPTION_LINE.findall(strip_control(output))
        said = _fold(raised[-1]) if raised else said
    # (in a sentence: inline code the cut leaves open is closed, walk 37 F2)
    return _cut(said) + closing_ticks(said, CUT) if len(said) > CUT else said


#: A wait for a command still running, as the readers write it (a Claude Code
#: ``TaskOutput``, a Codex ``write_stdin``): the line the command was run on.
_RUN_ON = re.compile(r", run on line (\d+)\)\Z")


def _run_on(args: Mapping[str, Any]) -> str:
    """`` on line N`` for a wait for a command run on the file's line N (its text is
    that line's, not the wait's: walk 34, F7), else ""."""
    said = args.get("description")
    m = _RUN_ON.search(said) if isinstance(said, str) else None
    return f" on line {m.group(1)}" if m else ""


#: What a tool writes as a command's result when it printed nothing (Claude Code 2.1's
#: Bash): no output (walk 53, F9: said as what the command printed).
_NO_OUTPUT_NOTES = frozenset({"(Bash completed with no output)", "(no output)"})


def _ran(command: str, result: str, exit_code: int | None, failed: bool, where: str = "") -> str:
    """``Ran `COMMAND`[where] (exit N): what it printed`` and the other forms of a run."""
    if result.strip() in _NO_OUTPUT_NOTES:  # the tool's word for nothing printed
        result = ""
    error, result = harness_error(result)
    if error:
        m = _EXIT.match(result)
        code = exit_code if exit_code is not None else int(m.group(1)) if m else None
        said = f", exit {code}" if code is not None else ""
        return f"Ran {code_span(_command_line(command))}{where} ({error}{said})."
    if exit_code is None:
        m = _EXIT.match(result)
        if m:
            exit_code = int(m.group(1))
    if exit_code is not None:  # and what it printed: a test run's counts, the error
        said = _printed(_TAG.sub(" ", _EXIT.sub("", result, count=1)))
        ran = f"Ran {code_span(_command_line(command))}{where} (exit {exit_code})"
        return f"{ran}: {said}" if said.strip() else f"{ran}."
    said = _printed(result)
    if failed:  # with the error's words (walk 51, F7: a tool the CLI did not have)
        ran = f"Ran {code_span(_command_line(command))}{where} (failed)"
        return f"{ran}: {said}" if said.strip() else f"{ran}."
    if not said.strip():  # "Ran `touch a`: " introduced nothing (walk 19, 6)
        return f"Ran {code_span(_command_line(command))}{where} (no output)."
    return f"Ran {code_span(_command_line(command))}{where}: {said}"


_GLOB = re.compile(r"[*?\[]")


def _listed(what: str, result: str) -> str:
    entries = [ln.strip() for ln in result.splitlines() if ln.strip()]
    if not entries:
        return f"Listed {what} (empty)."
    if _FOUND_NONE.match(result):
        return f"Listed {what}: none found."
    return f"Listed {what}: " + ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")


#: An apply_patch run as a shell command and nothing else (Codex sends some so:
#: ``apply_patch <<'PATCH'``, the patch, ``PATCH``), after an optional ``cd DIR &&``: a
#: command that goes on after the patch (a test run, a commit) is a command (walk 27, F3).
SHELL_PATCH = re.compile(
    r"\A\s*(?:cd\s+\S+\s*&&\s*)?apply_patch\s*<<-?\s*(['\"]?)(\w+)\1[ \t]*\n"
    r"\*\*\* Begin Patch\n.*?^\*\*\* End Patch[ \t]*\n\s*\2\s*\Z",
    re.S | re.M,
)


def shell_patch(args: Mapping[str, Any]) -> str | None:
    """The apply_patch input a shell call is, alone (`SHELL_PATCH`'s heredoc, or the argv
    ``["apply_patch", PATCH]`` Codex's prompt asks for: walk 28, F19), else None."""
    command = args.get("command", args.get("cmd"))
    if (
        isinstance(command, list)
        and len(command) == 2
        and command[0] == "apply_patch"
        and isinstance(command[1], str)
    ):
        return command[1]
    text = _command(args)
    return text if SHELL_PATCH.match(text) else None


#: What an apply_patch input does to a file, by its header's verb, as a sentence says it.
_PATCH_VERBS = {"Update": "edited", "Add": "created", "Delete": "deleted"}


def patch_changes(patch: str) -> dict[str, str]:
    """The files an apply_patch input changes and what it does to each (`_PATCH_VERBS`:
    ``edited``, ``created``, ``deleted``; the last header of a file says it), in order."""
    return {m.group(2).strip(): _PATCH_VERBS[m.group(1)] for m in _PATCH_FILE.finditer(patch)}


def _patched(patch: str) -> str:
    """``Edited a, b; deleted c.`` for the files an apply_patch input changes (walk 27,
    F7: a deleted or a created file read "Edited")."""
    changes = patch_changes(patch)
    if not changes:
        return "Edited files."
    by_verb: dict[str, list[str]] = {}
    for path, verb in changes.items():
        by_verb.setdefault(verb, []).append(path)
    said = "; ".join(f"{verb} {', '.join(paths)}" for verb, paths in by_verb.items())
    return f"{said[0].upper()}{said[1:]}."


def _patch_files(patch: str) -> str:
    """The files an apply_patch input changes, each once (``files`` when it names none)."""
    files = dict.fromkeys(m.group(2).strip() for m in _PATCH_FILE.finditer(patch))
    return ", ".join(files) or "files"


#: Claude Code's result of a call the user refused (the words typed with it follow
#: "the user said:").
CC_REJECTED = re.compile(r"\A\s*The user doesn't want to proceed with this tool use\b")
#: Other tools' words for a call the user refused: Codex's "exec command rejected by user" /
#: "patch rejected by user", Gemini CLI's "[Operation Cancelled] Reason: User denied
#: execution." or "User cancelled the operation.", "User declined tool execution." (Claude
#: Agent SDK clients), ...
REJECTED_RESULT = re.compile(
    r"\A\W*(?:[\w ]{0,40}\b(?:rejected|denied|declined|cancell?ed|aborted) by (?:the )?user\b|"
    r"(?:the )?user (?:rejected|denied|declined|cancell?ed|aborted)\b|"
    r"Operation Cancell?ed\]\s*Reason:\s*User\b)",
    re.I,
)


def refused(result: str) -> bool:
    """Whether a call's result says the user refused it (it did not run)."""
    return bool(CC_REJECTED.match(result) or REJECTED_RESULT.match(result))


#: A tag a tool wraps its result in (Claude Code's ``<tool_use_error>``, a harness's
#: ``<output>``, ``<returncode>``): left out of it. Only these: a command's own output
#: keeps its words in angle brackets (a traceback's ``File "<string>", line 1, in
#: <module>`` lost them: walk 53, F11; a page's HTML).
_TAG = re.compile(
    r"</?(?:tool_use_error|returncode|output|warning|error|stdout|stderr|result"
    r"|system-reminder|exit_code)>"
)
#: The file and search tools whose failure `_failed_call` names (lower case): reads,
#: writes, edits, listings, searches.
_FILE_READS = frozenset({"read", "read_file", "read_many_files", "view_image"})
_FILE_WRITES = frozenset({"write", "write_file", "create_file"})
_FILE_EDITS = frozenset(
    {"edit", "multiedit", "notebookedit", "replace", "edit_file", "apply_patch", "str_replace"}
)
_SEARCHES = frozenset({"grep", "glob", "search", "search_file_content"})
_LISTINGS = frozenset({"ls", "list_dir", "list_directory"})


#: The tool a text editor's sub-command reads as (any other: ``Edit``).
_EDITOR_AS = {"view": "Read", "create": "Write"}


def _failed_call(name: str, args: Mapping[str, Any]) -> str | None:
    """What a file or search tool's failed call was about (``Edit of a.py``), None for
    any other tool (its own sentence says the failure, as a command's does)."""
    tool = name.lower()
    sub = editor_command(name, args)
    if sub is not None:
        tool = _EDITOR_AS.get(sub, "Edit").lower()
    if tool == "apply_patch":
        return f"Patch of {_patch_files(_value(args, 'input', ''))}"
    if tool in _FILE_READS:
        return f"Read of {_path(args)}"
    if tool in _FILE_WRITES:
        return f"Write of {_path(args)}"
    if tool in _FILE_EDITS:
        return f"Edit of {_path(args)}"
    if tool in _SEARCHES:
        what = _value(args, "pattern", _value(args, "query", _path(args)))
        return f"Search for '{what}'"
    if tool in _LISTINGS:
        return f"Listing of {_path(args)}"
    return None


def _as_object(name: str, arguments: Any) -> dict[str, Any]:
    """A call's arguments that `_decode_arguments` made no object of, as the raw view
    reads them (walk 31, F3: ``Ran `?``` where it showed ``$ ls -la``): an object cut
    off before its end, closed; a shell's command given bare or as an argv list."""
    value = decode_arguments(arguments)
    if isinstance(value, Mapping):
        return dict(value)
    if name.lower() in SHELL_TOOLS:
        command = command_text(value)
        if command is not None and command.strip():
            return {"command": command}
    return {}


def _other_tool(
    name: str,
    args: Mapping[str, Any],
    arguments: Any,
    result: str,
    exit_code: int | None,
    failed: bool,
) -> str | None:
    """The sentence for a tool of Claude Code, Codex, Gemini CLI, ChatGPT or an agent
    trajectory's shell (`args` decoded from the raw `arguments`), its arguments said as
    the raw view shows them (`engine.toolcall`); None: not one of theirs."""
    if not args:  # arguments that are no JSON object, read as the raw view reads them
        args = _as_object(name, arguments)
    if failed and refused(result):  # the user said no: it did not run
        if name.lower() in SHELL_TOOLS:
            return f"Refused by the user: `{_command_line(_command(args))}`."
        return f"Refused by the user: {_cut(_fold(format_call(name, arguments)))}."
    patch = shell_patch(args) if name.lower() in SHELL_TOOLS else None
    if patch is not None:
        name, args = "apply_patch", {"input": patch}  # Codex's, through its shell
    if (failed or exit_code not in (None, 0)) and name.lower() not in SHELL_TOOLS:
        # a call that did nothing: never "Edited a.py." or "Fetched https://..."
        what = _failed_call(name, args) or _cut(_fold(format_call(name, arguments)))
        said = _EXIT.sub("", result, count=1)  # "Exit code: 1" is the failure itself
        reason = _cut(_fold(_TAG.sub(" ", said)))
        if not reason:
            return f"{what} failed."
        return f"{what} failed: {reason}" + ("" if reason.endswith((".", "...")) else ".")
    sub = editor_command(name, args)
    if sub == "undo_edit":
        return f"Undid the last edit of {_path(args)}."
    if sub is not None:  # a text editor's call (``str_replace_editor view a.py``): as a
        # Read, a Write (its text in ``file_text``) or an Edit
        name = _EDITOR_AS.get(sub, "Edit")
        args = {**args, "content": args.get("file_text")} if sub == "create" else args
    if name in ("Read", "read_file"):
        return f"Read {_path(args)} ({plural(_line_count(result), 'line')})."
    if name in ("Write", "write_file"):
        content = args.get("content")
        n = _line_count(content) if isinstance(content, str) else 0
        return f"Wrote {_path(args)} ({plural(n, 'line')})."
    if name in ("Edit", "MultiEdit", "NotebookEdit", "str_replace_based_edit_tool", "replace"):
        return f"Edited {_path(args)}."
    if name.lower() in SHELL_TOOLS:
        return _ran(_command(args), result, exit_code, failed, _run_on(args))
    if name in ("python", "code_execution"):  # ChatGPT's, Anthropic's code interpreter
        code = _value(args, "input", _value(args, "code", "")).strip()
        return _ran(code or "python", result, exit_code, failed)
    if name in ("LS", "list_dir", "list_directory"):
        return _listed(_path(args) if _path(args) != "?" else ".", result)
    if name in ("Glob", "glob"):
        pattern = _value(args, "pattern")
        # a glob as inline code: bare, its ``**`` read as bold (walk 53, F15: a cut
        # summary "closed" it with a stray ``**``)
        return _listed(code_span(pattern) if _GLOB.search(pattern) else pattern, result)
    if name in ("Grep", "grep", "search", "search_file_content"):
        hits = len([ln for ln in result.splitlines() if ln.strip()])
        counted = _FOUND_MATCHES.match(result)
        if counted:  # Gemini CLI's search says how many it found (walk 22, F12)
            return (
                f"Searched for '{_value(args, 'pattern')}'"
                + (f" in {_path(args)}" if _path(args) != "?" else "")
                + f": {plural(int(counted.group(1)), 'match', 'matches')}."
            )
        where = f" in {_path(args)}" if _path(args) != "?" else ""
        pattern = _value(args, "pattern", _value(args, "query"))
        if pattern == "?" and not args and isinstance(arguments, str) and arguments.strip():
            pattern = _cut(_fold(arguments))  # arguments not JSON: the pattern itself
        if _FOUND_NONE.match(result):
            return f"Searched for '{pattern}'{where}: no matches."
        files = _FOUND_FILES.match(result)
        if files:  # "Found 5 files" and their paths
            return f"Searched for '{pattern}'{where}: {plural(int(files.group(1)), 'file')}."
        return f"Searched for '{pattern}'{where}: {plural(hits, 'line')}."
    if name in ("WebSearch", "web_search", "browser", "web", "google_web_search"):
        query = _value(args, "query", _value(args, "input"))
        return f"Searched the web for '{_cut(_fold(query))}'."
    if name in ("WebFetch", "web_fetch"):
        url = _value(args, "url", "")
        pages = args.get("urls")  # Codex's web__run opening several (walk 56, F4: "?")
        if not url and isinstance(pages, list):
            url = _pages([p for p in pages if isinstance(p, str) and p.strip()])
        if not url:  # Gemini CLI's web_fetch names its URLs in its prompt (walk 22, F12)
            prompt = args.get("prompt")
            found = _URLS.findall(prompt) if isinstance(prompt, str) else []
            url = ", ".join(dict.fromkeys(u.rstrip(".,;:)") for u in found))
        if not url:  # (a Codex search's open_page names none: walk 64, F9, "Fetched ?.")
            return "Fetched a web page (no URL in the log)."
        return f"Fetched {url}."
    if name.lower() in SUBAGENT_TOOLS:
        kind = subagent_kind(args)
        article = "an" if kind[:1].lower() in tuple("aeiou") else "a"
        who = f"{article} {kind} subagent" if kind else "a subagent"
        asked = subagent_asked(args)
        told = f"{who}: '{_cut(_fold(asked))}'" if asked else who
        said = _fold(subagent_report(result)[0])
        return f"Delegated to {told}. " + (f"Result: '{_cut(said)}'." if said else "No result.")
    if name in ("TodoWrite", "update_plan", "write_todos", "TaskCreate", "TaskUpdate"):
        items = args.get("todos", args.get("plan", args.get("tasks")))
        items = items if isinstance(items, list) else []
        done = sum(1 for t in items if isinstance(t, dict) and t.get("status") == "completed")
        what = "plan" if name == "update_plan" else "todo list"
        return f"Updated the {what} ({plural(len(items), 'item')}, {done} done)."
    if name == "apply_patch":
        return _patched(_value(args, "input", result))
    if name.lower() in ASK_TOOLS:
        question = question_text(args) or "?"
        if ask_refused(name, result, failed):  # never shown to the user: no response
            return f"Called {name} to ask '{_cut(_fold(question))}': {_cut(_fold(result))}."
        answers = "; ".join(a for _, a in answers_given(result, args)) or result  # not the Qs
        return f"Asked user: '{_cut(_fold(question))}'. Response: '{_cut(_fold(answers))}'."
    if name == "view_image":
        return f"Read {_path(args)} (an image)."
    if name.startswith(MCP_PREFIX):
        rest = name.removeprefix(MCP_PREFIX)
        server, _, tool = rest.partition("__")
        tool = tool or "?"
        return _sentence(f"Called {tool} on {server or '?'}", _arguments_shown(tool, arguments))
    return None


def _pages(pages: Sequence[str]) -> str:
    """The pages a fetch opened (URLs, or the references to search results Codex opens
    by), each whole, as many as `CUT` characters hold (one at least), the rest counted:
    ``https://a.org/x, turn5search7 and 2 more``."""
    shown: list[str] = []
    for page in dict.fromkeys(pages):
        if shown and len(", ".join([*shown, page])) > CUT:
            break
        shown.append(page)
    more = len(dict.fromkeys(pages)) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _arguments_shown(tool: str, arguments: Any) -> str:
    """A call's arguments as the raw view shows them after the tool's name
    (`engine.toolcall.format_call`: ``"login bug" repo=acme/web``, ``$ make``); "": none."""
    shown = format_call(tool, arguments)
    if shown == f"{tool}()":
        return ""
    if shown.startswith(tool) and shown[len(tool) : len(tool) + 1] in (" ", "\n"):
        return shown[len(tool) + 1 :]
    return shown


def _sentence(head: str, arguments: str) -> str:
    """``head: arguments.``, or ``head.`` when there are none."""
    if not arguments:
        return f"{head}."
    end = "" if arguments.endswith((".", ELLIPSIS, "\n")) else "."
    return f"{head}: {arguments}{end}"


# --------------------------------------------------------------------------- collapsing


def _timestamp(msg: Mapping[str, Any]) -> datetime | None:
    try:
        return parse_timestamp(msg.get("timestamp"))
    except ValueError:
        return None


def _as_read(text: str, msg: Mapping[str, Any]) -> str:
    """A message's own words as its reader gave them uncollapsed: with no paragraph of
    whitespace alone when the reader tidied them (`Message.tidy`, `words_only`), else as
    written (the seed's log, aider's lines). Collapsing kept a run of blank lines the
    reader squeezed, so the paragraph after it opened on an empty line: ``You: \nAlso
    ...``, one char more than ``chunk`` without collapsing, drawn without its label in the
    workbench (walk 71, F4)."""
    return words_only(text) if getattr(msg, "tidy", False) else text


def _source_line(msg: Mapping[str, Any], attr: str = "line") -> int | None:
    line = getattr(msg, attr, None)
    return line if isinstance(line, int) and not isinstance(line, bool) else None


def _calls(msg: Mapping[str, Any]) -> list[tuple[str | None, str, Any]]:
    """(id or None, name, raw arguments) of each well-enough-formed tool call."""
    raw = msg.get("tool_calls")
    if not isinstance(raw, list):
        return []
    out: list[tuple[str | None, str, Any]] = []
    for tc in raw:
        if not isinstance(tc, Mapping):
            continue
        call_id = tc.get("id")
        func = tc.get("function")
        func = func if isinstance(func, Mapping) else {}
        name = func.get("name", tc.get("name"))
        arguments = func.get("arguments", tc.get("arguments"))
        out.append(
            (
                str(call_id) if call_id not in (None, "") else None,
                name if isinstance(name, str) else "",
                arguments,
            )
        )
    return out


def _ran_unanswered(command: str) -> str:
    """``Ran `COMMAND` (no result in the log).``: a run whose output the log does not
    hold."""
    return f"Ran {code_span(_command_line(command))} ({NO_RESULT})."


def _unanswered_sentence(call: tuple[str, Any, str | None, int | None]) -> str:
    """The sentence of a call whose result the log does not hold: ``Ran `pytest -q` (no
    result in the log).``, ``Called WebSearch "x" (no result in the log).``"""
    name, arguments = call[0], call[1]
    if name.lower() in SHELL_TOOLS:
        args = decode_arguments(arguments)
        command = _command(args) if isinstance(args, Mapping) else command_text(args)
        return _ran_unanswered(command or "?")
    shown = _cut(_fold(format_call(name, arguments)))
    return f"Called {shown} ({NO_RESULT})."


def _result_sentence(
    call: tuple[str, Any, str | None, int | None], msg: Mapping[str, Any], readable: bool
) -> str | None:
    """The sentence of a call (name, arguments, agent, line) and its result `msg`."""
    code = msg.get("exit_code")
    return collapse_call(
        call[0],
        call[1],
        content_text(msg.get("content")),
        exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        failed=bool(msg.get("is_error")),
        agent=call[2],
        readable=readable,
    )


def collapse_messages(
    messages: Iterable[Mapping[str, Any]],
    progress: Progress | None = None,
    *,
    readable: bool = False,
) -> list[Turn]:
    """The turns of a log with every tool call and its result as one sentence.

    See the module docstring for the rules. Without `readable` (the seed's own
    function) a tool of no known form is said as the reference did; with it, as
    the readers show a call (`collapse_call`). Never raises on a malformed message:
    what cannot be read is dropped or read as empty. ``progress(done, total)``
    counts messages.
    """
    turns: list[Turn] = []
    pending: dict[str, tuple[str, Any, str | None, int | None]] = {}
    anonymous: deque[tuple[str, Any, str | None, int | None]] = deque()
    subagent: dict[str, tuple[str, Any, str | None, int | None]] = {}  # its calls, by id
    # readable: where each call's sentence goes when no result ever comes (the number of
    # turns before it, and the timestamp and record of its message), by the call's id()
    placed: dict[int, tuple[int, datetime | None, Mapping[str, Any]]] = {}
    ran: str | None = None  # the command of an aider /run or /test, its output next

    def add(
        ts: datetime | None,
        role: str,
        text: str,
        msg: Mapping[str, Any],
        call_line: int | None = None,
    ) -> None:
        line, end = _source_line(msg), _source_line(msg, "end_line")
        part_ends = getattr(msg, "part_ends", None)
        if isinstance(part_ends, PartEnds):  # a JSON document's message: its part's end
            end = (part_ends.thinking if role == THINKING_ROLE else part_ends.content) or end
        if call_line is not None and (line is None or call_line >= line):
            call_line = None  # the call's line adds nothing to the result's
        # a message whose text is the file's lines (an aider chat's) says its last one,
        # so the paragraphs a split cuts out of it keep their own lines
        last = _source_line(msg, "last_line") if role in (USER_ROLE, BOT_ROLE) else None
        # a text joined from records (a Gemini CLI stream's) says where each starts
        pieces = getattr(msg, "pieces", None) if role in (USER_ROLE, BOT_ROLE) else None
        turns.append(
            Turn(
                ts,
                role,
                text,
                line,
                len(turns),
                last,
                call_line=call_line,
                end_line=end,
                pieces=pieces,
            )
        )

    for msg in with_progress(messages, progress):
        if not isinstance(msg, Mapping):
            continue
        role = msg.get("role")
        if role == "user":
            text = content_text(msg.get("content"))
            note = notification(text) if readable else None
            if note is not None:  # a background task's report: no one's words
                told = f"{note.summary}: {note.result}" if note.result else f"{note.summary}."
                add(_timestamp(msg), TOOL_ROLE if note.agent is None else SUBAGENT_ROLE, told, msg)
            elif text.strip():
                add(_timestamp(msg), USER_ROLE, _as_read(text, msg), msg)
            ran = aider_run(text) if readable else None  # aider's output follows
        elif role == "assistant":
            ts, line = _timestamp(msg), _source_line(msg)
            reasoning = msg.get("reasoning") or msg.get("reasoning_content")
            if reasoning:
                thinking = content_text(reasoning)
                if thinking.strip():
                    add(ts, THINKING_ROLE, _as_read(thinking, msg), msg)
            text = content_text(msg.get("content"))
            if text.strip():
                add(ts, BOT_ROLE, _as_read(text, msg), msg)
            agent = msg.get("agent") if isinstance(msg.get("agent"), str) else None
            for call_id, name, arguments in _calls(msg):
                made = (name, arguments, agent, line)
                if call_id is None:
                    anonymous.append(made)
                else:
                    pending[call_id] = made
                if readable:
                    placed[id(made)] = (len(turns), ts, msg)
        elif role == "tool":
            ref = msg.get("tool_call_id")
            if ref in (None, ""):
                call = anonymous.popleft() if anonymous else None
            else:
                call = pending.pop(str(ref), None)
            if call is None:
                continue  # an orphan result
            placed.pop(id(call), None)
            sentence = _result_sentence(call, msg, readable)
            if sentence is not None:
                # the turn spans the call's record line to its result's
                add(_timestamp(msg), TOOL_ROLE, sentence, msg, call[3])
        elif role == AIDER_ROLE and readable:  # aider's own output: what it did
            ts, text = _timestamp(msg), content_text(msg.get("content"))
            first = _source_line(msg)
            for act in aider_actions(text, ran):
                if act.kind == "edit":
                    sentence = f"Edited {act.what}."
                elif act.kind == "commit":
                    sentence = f"Committed {act.what}: {_cut(_fold(act.said))}."
                elif act.kept:
                    sentence = _ran(act.what, act.said, None, False)
                else:  # its output not kept in the chat: nothing to say it printed nothing
                    sentence = _ran_unanswered(act.what)
                line = None if first is None else first + act.first
                end = None if first is None else first + act.last
                turns.append(Turn(ts, TOOL_ROLE, sentence, line, len(turns), end_line=end))
            ran = None
        elif role == SUBAGENT_ROLE:
            ts, ref = _timestamp(msg), msg.get("tool_call_id")
            call = subagent.pop(str(ref), None) if ref not in (None, "") else None
            if call is not None:  # a result of one of its calls: one sentence, as its own
                sentence = _result_sentence(call, msg, readable)
                if sentence is not None:
                    add(ts, SUBAGENT_ROLE, sentence, msg, call[3])
                continue
            calls = msg.get(SUBAGENT_CALLS)
            said = msg.get(SUBAGENT_SAID) if calls else None
            text = said if isinstance(said, str) else content_text(msg.get("content"))
            if text.strip():
                add(ts, SUBAGENT_ROLE, _as_read(text, msg), msg)
            agent = msg.get("agent") if isinstance(msg.get("agent"), str) else None
            for call_id, name, arguments in _calls({"tool_calls": calls}):
                if call_id is not None:
                    subagent[call_id] = (name, arguments, agent, _source_line(msg))
        # system messages and unknown roles are dropped
    unanswered = [c for c in (*pending.values(), *anonymous) if id(c) in placed]
    if not unanswered:
        return turns
    # each where it was made, after its message's own turns: the call stays in the text
    # (the raw view shows it; a log read mid-call ends with it)
    out: list[Turn] = []
    at = 0
    for call in sorted(unanswered, key=lambda c: placed[id(c)][0]):
        where, ts, msg = placed[id(call)]
        out += turns[at:where]
        at = where
        line, end = _source_line(msg), _source_line(msg, "end_line")
        out.append(Turn(ts, TOOL_ROLE, _unanswered_sentence(call), line, 0, end_line=end))
    out += turns[at:]
    return [t._replace(turn_index=i) for i, t in enumerate(out)]


# --------------------------------------------------------------------------- actions


def collapsed_tool(turn: Turn) -> str | None:
    """Which tool a collapsed ``Tool`` turn came from ("other" for an unknown one).

    None for any other turn. Exact for the whole turns `collapse_messages`
    returns; a paragraph that `chunk_turns` cut out of the middle of one is not
    recognised.
    """
    if turn.role != TOOL_ROLE:
        return None
    for name, pattern in _SENTENCES:
        if pattern.match(turn.text):
            return name
    return None


def is_consequential(turn: Turn) -> bool:
    """True for a collapsed call of a tool that changed state (write, edit, remember, ask)."""
    return collapsed_tool(turn) in CONSEQUENTIAL_TOOLS


def consequential_indices(turns: Iterable[Turn]) -> frozenset[int]:
    """The ``turn_index`` of every consequential collapsed turn among `turns`.

    Compute it on the collapsed turns before they are split into chunks, then
    count per chunk with `count_consequential`: a chunk knows the turn indices of
    its paragraphs even when a turn was split.
    """
    return frozenset(
        t.turn_index for t in turns if t.turn_index is not None and is_consequential(t)
    )


def count_consequential(turns: Sequence[Turn], indices: Set[int] | None = None) -> int:
    """Consequential tool calls among `turns` (e.g. one chunk's turns).

    With `indices` (from `consequential_indices`), the distinct turn indices of
    `turns` found there are counted, so a split turn counts once. Without it,
    each turn is recognised by its sentence (`is_consequential`).
    """
    if indices is None:
        return sum(1 for t in turns if is_consequential(t))
    return len({t.turn_index for t in turns if t.turn_index is not None} & set(indices))
