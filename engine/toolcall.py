"""A tool call as a person reads it: the one formatting every reader's turns use.

A call whose arguments are one command shows as typed at a prompt (``$ find . -name
"*.py"``), a multi-line script keeps its lines; a call on one path, pattern, query or
URL shows as ``Read src/cache.py``; any other arguments are compact ``key=value``
pairs; one multi-line text argument (a patch) shows as its lines. Long texts are cut
with an ellipsis; blank lines inside a script or patch are left out, so a call stays
one paragraph that no chunker cuts in two. The raw arguments (a JSON string, an
object, a list) are data from the log: nothing here raises on any of them.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any

from chunkscope.engine.textutil import fence_after

#: Argument names that hold a command line (the call shows as ``$ command``).
COMMAND_KEYS = ("command", "cmd", "script", "shell_command")
#: Argument names that hold the one thing a call acts on (shown after the tool's name).
SUBJECT_KEYS = (
    "file_path",
    "path",
    "absolute_path",
    "filePath",
    "notebook_path",
    "pattern",
    "query",
    "url",
    "file",
    "dir_path",
    "directory",
    "prompt",
)
#: Argument names that say what a command is for (shown after it as a shell comment).
COMMENT_KEYS = ("description", "justification")
#: A command is cut to this many lines and characters; a ``key=value`` value to
#: `VALUE_CUT` characters; all the pairs of a call to `PAIRS_CUT` characters.
COMMAND_LINES = 12
COMMAND_CUT = 800
VALUE_CUT = 80
PAIRS_CUT = 240
ELLIPSIS = "…"
#: Tools whose arguments are a shell command (lower case; compare ``name.lower()``): shown
#: as ``$ command``, collapsed as "Ran ...", and read by the recap's outcome of checks.
SHELL_TOOLS = frozenset(
    (
        "bash",
        "shell",
        "sh",
        "zsh",
        "exec",
        "local_shell",
        "shell_command",
        "container.exec",
        "exec_command",
        "run_shell_command",
        "execute_command",
        "execute_bash",
        "run_terminal_cmd",
        "terminal",
        "run",
    )
)


#: Text-editor tools (lower case; Anthropic's, SWE-agent's): their ``command`` argument is
#: the editor's sub-command (`EDITOR_COMMANDS`), not a shell line: a call shows as
#: ``str_replace_editor view src/a.py`` (`editor_command`).
EDITOR_TOOLS = frozenset({"str_replace_editor", "str_replace_based_edit_tool", "text_editor"})
EDITOR_COMMANDS = frozenset({"view", "create", "str_replace", "insert", "undo_edit"})
#: The sub-commands that leave the file as it was before the call's edits (the recap's
#: files changed do not count them).
EDITOR_NO_EDIT = frozenset({"view", "undo_edit"})


#: How an MCP server's tool is named (Claude Code: ``mcp__github__list_issues``).
MCP_PREFIX = "mcp__"


def mcp_name(server: str, tool: str) -> str:
    """An MCP server's tool as Claude Code names it, whatever reader met the call (the
    API's ``mcp_tool_use`` block names its server apart: walk 29, F4)."""
    return f"{MCP_PREFIX}{server}__{tool}"


def editor_command(tool: str, args: Any) -> str | None:
    """The editor's sub-command of a text-editor call (`EDITOR_TOOLS`, or any tool but a
    shell whose ``command`` is one of `EDITOR_COMMANDS` beside a ``path``); None when
    the call is not one."""
    if not isinstance(args, dict):
        return None
    command = args.get("command")
    if not isinstance(command, str) or command.strip() not in EDITOR_COMMANDS:
        return None
    name = tool.lower()
    if name in EDITOR_TOOLS or ("path" in args and name not in SHELL_TOOLS):
        return command.strip()
    return None


#: The plan tools (lower case): Claude Code's ``TodoWrite``, Codex's ``update_plan``, Gemini
#: CLI's ``write_todos``, and others' like them. A call shows the plan's progress and its
#: step in progress (`plan_text`), and the recap's plan section reads the last one.
PLAN_TOOLS = frozenset(
    {"todowrite", "update_plan", "write_todos", "todo_write", "todowrite_tool", "plan", "todo"}
    | {"taskcreate", "taskupdate"}  # Claude Code 2.1's, read with their list (`tasks`)
)
#: A plan item's statuses, lower case: done, in progress, dropped (any other: to do).
DONE_STATUSES = frozenset({"completed", "complete", "done", "finished"})
ACTIVE_STATUSES = frozenset({"in_progress", "in-progress", "active", "doing", "started"})
DROPPED_STATUSES = frozenset({"cancelled", "canceled", "skipped"})
#: How a plan call shows its step in progress: ``TodoWrite 2/7 done; in progress: "Test
#: the migration"`` (`plan_text`); `PLAN_STEP` reads the step back (the topic segmenter's
#: plan cue, `engine.segment.requests.plan_step`).
PLAN_NOW = "in progress:"
PLAN_STEP = re.compile(
    rf"(?mi)^(?:{'|'.join(sorted(PLAN_TOOLS))}) \d+/\d+ done(?: \(\d+ dropped\))?; {PLAN_NOW} (.+)$"
)


def plan_items(args: Any) -> list[tuple[str, str]] | None:
    """A plan call's items as (status, text), the status lower case (``pending`` when it
    has none); None when the arguments hold no list of items (``todos``, ``plan``, ...)."""
    if not isinstance(args, dict):
        return None
    items = None
    for key in ("todos", "plan", "items", "steps", "tasks"):
        if isinstance(args.get(key), list):
            items = args[key]
            break
    if items is None:
        return None
    out: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, str):
            out.append(("pending", item))
            continue
        if not isinstance(item, dict):
            continue
        text = next(
            (
                item[k]
                for k in ("content", "step", "description", "title", "task", "text")
                if isinstance(item.get(k), str) and item[k].strip()
            ),
            "",
        )
        status = item.get("status")
        if text:
            out.append((str(status).lower() if isinstance(status, str) else "pending", text))
    return out


def plan_text(tool: str, items: list[tuple[str, str]]) -> str:
    """A plan call as a person follows it: how many items are done, and the step in
    progress (else the next to do), its text on one line cut at `VALUE_CUT`: ``TodoWrite
    2/7 done; in progress: "Test the migration"``. Not the whole list: a list of twelve
    items at every update crowded its chunks, and search ranked them worse."""
    kept = [(status, text) for status, text in items if status not in DROPPED_STATUSES]
    done = sum(1 for status, _ in kept if status in DONE_STATUSES)
    dropped = len(items) - len(kept)
    head = f"{tool} {done}/{len(kept)} done" + (f" ({dropped} dropped)" if dropped else "")
    active = [text for status, text in kept if status in ACTIVE_STATUSES]
    pending = [text for status, text in kept if status not in DONE_STATUSES | ACTIVE_STATUSES]
    if active:
        return f"{head}; {PLAN_NOW} " + ", ".join(_quoted(_one_line(t)) for t in active)
    if pending:
        return f"{head}; next: {_quoted(_one_line(pending[0]))}"
    return head


def _one_line(text: str) -> str:
    return _cut(" ".join(text.split()), VALUE_CUT)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def _quoted_cut(text: str, limit: int, *, more: bool = False) -> str:
    """`text` quoted (`_quoted`) in at most about `limit` characters: cut inside its
    quotes, with an ellipsis the closing quote follows (a cut quotation was left open:
    walk 44, F2). `more`: the text goes on after it (a multi-line text's first line):
    an ellipsis after the quote, or the cut's alone (``"x"…``, ``"a long li…"``)."""
    quoted = _quoted(text) + (ELLIPSIS if more else "")
    if len(quoted) <= limit:
        return quoted
    return _quoted(text[: max(limit - 3, 1)].rstrip() + ELLIPSIS)


def _fitted(parts: Iterable[Callable[[int], str]], sep: str, room: int) -> str:
    """`parts` (each renders itself in the room it is given) joined by `sep` while they
    fit in `room`; then an ellipsis for the rest, so that whatever a part opens it closes
    (a cut in the middle of ``[question="...`` left both open: walk 44, F2). The first part
    is always shown, in all the room."""
    out: list[str] = []
    used = 0
    for part in parts:
        left = room - used - (len(sep) if out else 0)
        if out and left < _PART_ROOM:
            out.append(ELLIPSIS)
            break
        text = part(left)
        if out and len(text) > left:
            out.append(ELLIPSIS)
            break
        used += len(text) + (len(sep) if out else 0)
        out.append(text)
    return sep.join(out)


#: The least room a part after the first is given before an ellipsis stands for it.
_PART_ROOM = 8


def _shell_word(arg: str) -> str:
    """One word of a command as a person types it: bare when the shell leaves it so,
    else in single quotes, or in double quotes when it holds a single quote and nothing
    a shell reads inside double quotes (``python3 -c "print('a b')"``, where shlex
    writes ``'print('"'"'a b'"'"')'``)."""
    quoted = shlex.quote(arg)
    if "'" in arg and not any(c in arg for c in '"$`\\!'):
        return f'"{arg}"'
    return quoted


def shell_join(argv: Sequence[str]) -> str:
    """An argv list as one command line a shell reads back into the same words."""
    return " ".join(_shell_word(a) for a in argv)


def command_text(value: Any) -> str | None:
    """A command value as typed: a string as it is, an argv list joined as a shell
    would read it (``["bash", "-lc", script]`` is the script)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if (
            len(value) == 3
            and value[1] in ("-c", "-lc")
            and value[0].rsplit("/", 1)[-1]
            in (
                "bash",
                "sh",
                "zsh",
            )
        ):
            return str(value[2])
        return shell_join(value)
    return None


def _command(command: str, comment: str) -> str:
    text = _lines_kept(command, shell=True)
    if comment and "\n" not in text:
        text += f"  # {comment}"
    elif comment:
        text = f"# {comment}\n$ {text}"
        return text
    return f"$ {text}"


def _block(text: str) -> str:
    """A multi-line argument as its lines (blank ones left out), cut like a command."""
    return _lines_kept(text, shell=False)


def _lines_kept(text: str, *, shell: bool) -> str:
    """`text`'s lines, blank ones left out (a script stays one paragraph, which no chunker
    cuts), to `COMMAND_LINES` lines and `COMMAND_CUT` characters; a cut ends with an
    ellipsis and closes what it leaves open (walk 46, F2): a code fence, on a line of its
    own, and in a `shell` command its quotation (``python3 -c "print(1); …"``)."""
    lines = [ln for ln in text.strip("\n").split("\n") if ln.strip()]
    out = "\n".join(lines[:COMMAND_LINES])
    cut = len(lines) > COMMAND_LINES
    if len(out) > COMMAND_CUT:
        out, cut = out[: COMMAND_CUT - 1].rstrip(), True
    if not cut:
        return out
    out += ELLIPSIS + (open_quote(out) if shell else "")
    fence: str | None = None
    for line in out.split("\n"):
        fence = fence_after(line, fence)
    return f"{out}\n{fence}" if fence else out


#: A here-document's operator and delimiter word (``<< 'EOF'``, ``<<-EOF``, ``<<"END"``,
#: ``<<\\EOF``), not a here-string's ``<<<``: the lines after the command's line, up to
#: the delimiter's own, are the document's text, where no quote is a shell quote (a
#: word of digits is a shift's operand: ``$((1<<2))``).
_HEREDOC = re.compile(
    r"<<(?!<)(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?(?!\d)([^\s;&|<>()'\"]+))"
)


#: How the recap writes a command's lines on one line (`engine.recap.collapse`'s
#: ``LINE_BREAK`` is this): `open_quote` reads it as the line break it stands for.
FOLDED_LINE_BREAK = " \u23ce "


def open_quote(command: str) -> str:
    """The quote mark a shell command cut short leaves open ("" when none): single
    quotes take everything to the next one, double ones a backslash escape. A
    here-document's text is no shell text: an apostrophe in it ("it's") opens nothing
    (walk 55, F9: a cut script got a closing ``'`` never typed), in the command's lines
    or in their one-line form (`FOLDED_LINE_BREAK`)."""
    command = command.replace(FOLDED_LINE_BREAK, "\n")
    quote = ""
    escaped = False
    pending: list[tuple[str, bool]] = []  # here-documents opened on this line
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "<" and (doc := _HEREDOC.match(command, i)) and command[i - 1 : i] != "<":
            word = next(w for w in doc.group(2, 3, 4) if w is not None)
            pending.append((word, doc.group(1) == "-"))
            i = doc.end()
            continue
        elif ch == "\n" and pending:
            i = _after_documents(command, i + 1, pending)
            pending = []
            continue
        i += 1
    return quote


def _after_documents(command: str, at: int, documents: list[tuple[str, bool]]) -> int:
    """Where the shell text goes on after the here-documents whose text starts at `at`
    (each to its delimiter's line; ``<<-``: tabs before it): the command's end when it
    ends inside one."""
    for word, tabs in documents:
        while at < len(command):
            end = command.find("\n", at)
            end = len(command) if end < 0 else end
            line = command[at:end]
            at = end + 1
            if (line.lstrip("\t") if tabs else line) == word:
                break
        else:
            return len(command)
    return at


def _scalar(value: Any, room: int = VALUE_CUT) -> str:
    """One argument's value, compact, in about `room` characters (at most `VALUE_CUT`):
    plain text when it reads unambiguously, else JSON; a multi-line text shows its first
    line and an ellipsis (no ``\\n`` escapes)."""
    room = max(min(room, VALUE_CUT), _PART_ROOM)
    if isinstance(value, str) and "\n" in value.strip():
        first = next(ln for ln in value.strip().split("\n") if ln.strip())
        return _quoted_cut(first.strip(), room, more=True)
    if isinstance(value, str):
        plain = value and not any(c.isspace() for c in value) and '"' not in value
        plain = plain and not _CONTROL.search(value)
        return _cut(value, room) if plain else _quoted_cut(value, room)
    if isinstance(value, (list, dict)):
        # a value like any other: to `VALUE_CUT` (a to-do list of twelve items in full at
        # every update crowded its chunks, and search ranked them worse)
        return _structured(value, 0, room)
    return _cut(_json_scalar(value), room)


def compact_value(value: Any) -> str:
    """One argument's value as a call shows it (``[a, b]``, ``(key=value, ...)``, a text
    as it is), with no JSON braces or key quotes: the tool-call sentences of the recap
    (`engine.recap.collapse`) say a value so."""
    if isinstance(value, str):
        return value
    return _structured(value, 0, PAIRS_CUT)


def _json_scalar(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


#: Characters that make a text inside a list or object ambiguous unquoted.
_NESTED_MARKS = frozenset(',;=[]()"')
#: Lists and objects deeper than this show as an ellipsis.
_NESTED_DEPTH = 4


def _structured(value: Any, depth: int, room: int) -> str:
    """A list or object as a person writes it, with no JSON braces or key quotes: a list
    is ``[a, b]``, its objects ``key=value, key=value`` one after another with ``; ``
    between them (``todos=[content="Port the parser", status=pending; ...]``), an object
    elsewhere ``(key=value, ...)``. Texts are quoted only when they hold a space or a
    mark of this notation; a multi-line one shows its first line and an ellipsis. In about
    `room` characters: the items that fit, then an ellipsis, every bracket and quote
    closed (`_fitted`); built only that far (a list of thousands costs no more)."""
    room = max(min(room, VALUE_CUT), _PART_ROOM) if depth else room
    if isinstance(value, str):
        if "\n" in value.strip():
            first = next(ln for ln in value.strip().split("\n") if ln.strip())
            return _quoted_cut(first.strip(), room, more=True)
        plain = value and not any(c.isspace() or c in _NESTED_MARKS for c in value)
        plain = plain and not _CONTROL.search(value)
        return _cut(value, room) if plain else _quoted_cut(value, room)
    if not isinstance(value, (list, dict)):
        return _cut(_json_scalar(value), room)
    if depth >= _NESTED_DEPTH:
        return ELLIPSIS
    if isinstance(value, dict):
        return f"({_object_items(value, depth + 1, room - 2)})"
    if bool(value) and all(isinstance(v, dict) for v in value):
        items = (partial(_object_items, v, depth + 2) for v in value)
        return f"[{_fitted(items, '; ', room - 2)}]"
    parts = (partial(_structured, v, depth + 1) for v in value)
    return f"[{_fitted(parts, ', ', room - 2)}]"


def _object_items(value: dict[Any, Any], depth: int, room: int) -> str:
    """An object's ``key=value`` pairs, in about `room` (a list's objects say theirs so,
    one after another; another object puts them in parentheses)."""
    return _fitted(_pair_parts(value, depth), ", ", room)


def _pair_parts(value: dict[Any, Any], depth: int) -> Iterator[Callable[[int], str]]:
    """Each ``key=value`` pair of `value`, to render in the room it is given."""
    for k, v in value.items():
        yield partial(_pair, f"{_key(k)}=", v, partial(_structured, depth=depth))


def _pair(key: str, value: Any, render: Callable[..., str], room: int) -> str:
    """``key=value``, the value rendered by `render` in what `room` leaves it."""
    return key + render(value, room=room - len(key))


#: The C0 and C1 control characters (newline and tab too): a text holding one shows
#: quoted with escapes (`_quoted`), as JSON writes it: Ctrl-C sent to a process read as
#: ``chars=`` with nothing, the character unseen or taken out (walk 56, F5).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: The controls that break a text's lines or space it out (a subject folds them).
_LINE_BREAKS = re.compile(r"[\t\n\v\f\r\x1c-\x1f\x85]")


def _escaped(text: str) -> str:
    """`text` in double quotes with JSON's escapes, the C1 controls (which JSON may hold
    as they are) escaped too: ``"\\u0003"``, ``"y\\n"``."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _quoted(text: str) -> str:
    """A text in quotes as typed: double quotes, or single ones when it holds a double
    quote and no single one (JSON escapes only when it holds both, or a control
    character: `_CONTROL`)."""
    if _CONTROL.search(text):
        return _escaped(text)
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def _with_block(head: str, args: dict[str, Any]) -> str:
    """`head` and the ``key=value`` pairs of `args`; a multi-line text value shows
    as its lines after them (``content:`` then the lines), cut like a command. Of
    several, the last (an edit's ``new`` after its ``old``); the others show their
    first line."""
    many = [k for k, v in args.items() if isinstance(v, str) and "\n" in v.strip()]
    multi = many[-1] if many else None
    if multi is None:
        nested = _nested_text(args, None, 0)
        if nested is None:
            return f"{head} {_pairs(args)}" if args else head
        # a multi-line text inside a list or an object (ChatGPT's canvas updates'
        # replacement, an edit list's new text) shows as its lines too, after the
        # pairs that give its first (walk 40, F2: "In, out." was nowhere in the chunk)
        key, text = nested
        return f"{head} {_pairs(args)} {_key(key)}:\n{_block(text)}"
    rest = {k: v for k, v in args.items() if k != multi}
    line = f"{head} {_pairs(rest)}" if rest else head
    return f"{line} {_key(multi)}:\n{_block(args[multi])}"


def _nested_text(value: Any, key: Any, depth: int) -> tuple[Any, str] | None:
    """The last multi-line text inside the lists and objects of `value` (to
    `_NESTED_DEPTH`), with the name of the member holding it (`key` for a list's
    items), or None."""
    if isinstance(value, str):
        return (key, value) if depth > 1 and "\n" in value.strip() else None
    if depth > _NESTED_DEPTH:
        return None
    found = None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _nested_text(v, k, depth + 1) or found
    elif isinstance(value, list):
        for v in value:
            found = _nested_text(v, key, depth + 1) or found
    return found


def _subject(value: str) -> str:
    """A path, pattern or query after the tool's name: as it is when it is one word; a
    prompt of several lines on one (its line breaks as spaces, not the escapes a
    control character shows as: `_CONTROL`)."""
    one = " ".join(value.split())
    if one and one == value and " " not in value and not _CONTROL.search(value):
        return _cut(value, VALUE_CUT * 2)
    return _quoted_cut(one if _LINE_BREAKS.search(value) else value, VALUE_CUT * 2)


def _key(key: Any) -> str:
    """An argument's name on one line (a name may hold any text, newlines included)."""
    return " ".join(str(key).split()) or '""'


def _pairs(args: dict[str, Any], room: int = PAIRS_CUT) -> str:
    """The ``key=value`` pairs of a call, in about `room` characters: those that fit, then
    an ellipsis (a pair is never cut in the middle of a quote or a list)."""
    return _fitted((partial(_pair, f"{_key(k)}=", v, _scalar) for k, v in args.items()), " ", room)


#: How far back from its end a cut-off JSON object is looked at for a place to close it.
_CUT_BACK = 256


def _cut_object(text: str) -> dict[str, Any] | None:
    """A JSON object cut off before its end (a model stopped at its token limit), closed
    at the last place it can be: its open string and brackets closed, else a partial
    escape, key or value before the cut left out; a string cut in its middle ends with
    an ellipsis. None when no place makes it an object (walk 31, F3 and walk 32, F1: its
    command read ``$ {"command": "ls -la ...`` and collapsed to ``Ran `?```)."""
    states: list[tuple[bool, bool, str]] = []  # before each character: string, escape, closers
    in_string = escape = False
    closers = ""
    for ch in text:
        states.append((in_string, escape, closers))
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            closers = ("}" if ch == "{" else "]") + closers
        elif ch in "}]" and closers:
            closers = closers[1:]
    states.append((in_string, escape, closers))
    for end in range(len(text), max(0, len(text) - _CUT_BACK), -1):
        in_string, escape, closers = states[end]
        if escape or not closers:
            continue
        try:
            value = json.loads(text[:end] + ('"' if in_string else "") + closers)
        except (ValueError, RecursionError):
            continue
        if not isinstance(value, dict) or not value:
            return None
        if in_string:  # a string cut in its middle
            key = next(reversed(value))
            if isinstance(value[key], str):
                value[key] += ELLIPSIS
        return value
    return None


def decode_arguments(arguments: Any) -> Any:
    """A call's arguments as a value: a JSON string decoded, an object cut off before
    its end closed (`_cut_object`), anything else as it is (a string that is not JSON
    stays the string)."""
    if isinstance(arguments, str):
        text = arguments.strip()
        if text[:1] in ("{", "[", '"'):  # an object, a list, a string (`"ls -la"`)
            try:
                return json.loads(text)
            except (ValueError, RecursionError):
                cut = _cut_object(text) if text[:1] == "{" else None
                return arguments if cut is None else cut
        return arguments
    return arguments


def format_call(name: Any, arguments: Any) -> str:
    """One tool call as a person reads it (see the module's docstring)."""
    tool = name if isinstance(name, str) and name.strip() else "?"
    tool = " ".join(tool.split())
    args = decode_arguments(arguments)
    if args is None or args == {} or args == "" or args == []:
        return f"{tool}()"
    if isinstance(args, str):  # a raw argument string: the command or input itself
        if tool.lower() in SHELL_TOOLS:
            return _command(args, "")
        return f"{tool} {_subject(args)}" if "\n" not in args.strip() else f"{tool}\n{_block(args)}"
    if isinstance(args, list):
        command = command_text(args)
        if command is None:
            return f"{tool} {_scalar(args)}"
        if tool.lower() in SHELL_TOOLS or tool == "?":
            return _command(command, "")
        return f"{tool} {_cut(' '.join(command.split()), VALUE_CUT * 2)}"  # grep's argv
    if not isinstance(args, dict):
        return f"{tool} {_scalar(args)}"
    if tool.lower() in PLAN_TOOLS and (items := plan_items(args)):
        why = args.get("explanation")  # Codex's word on the change, on a line of its own
        if tool == "TaskCreate" and isinstance(args.get("subject"), str):
            why = f"added: {_quoted(_one_line(args['subject']))}"  # the task it made
        text = plan_text(tool, items)
        return f"{text}\n{_one_line(why)}" if isinstance(why, str) and why.strip() else text
    sub = editor_command(tool, args)
    if sub is not None:  # ``str_replace_editor view src/a.py``, then the edit's text
        path = args.get("path")
        head = f"{tool} {sub}"
        if isinstance(path, str) and path.strip():
            head += f" {_subject(path)}"
        return _with_block(head, {k: v for k, v in args.items() if k not in ("command", "path")})
    for key in COMMAND_KEYS:
        command = command_text(args.get(key))
        if command is not None and command.strip():
            rest = {k: v for k, v in args.items() if k != key}
            comment = ""
            for ck in COMMENT_KEYS:
                if isinstance(rest.get(ck), str):
                    comment = " ".join(rest.pop(ck).split())
                    break
            others = _pairs(rest) if rest else ""
            if comment and others:  # both in `PAIRS_CUT`, the pairs kept whole first
                comment = _cut(comment, max(PAIRS_CUT - len(others) - 3, PAIRS_CUT // 2))
                room = PAIRS_CUT - len(comment) - 3
                comment += f" ({others if len(others) <= room else _pairs(rest, room)})"
            else:
                comment = _cut(comment, PAIRS_CUT) or others
            return _command(command, comment)
    if len(args) == 1:  # one text argument (a patch, a message): the text itself
        ((key, value),) = args.items()
        if isinstance(value, str) and "\n" in value.strip():
            return f"{tool}\n{_block(value)}"
    for key in SUBJECT_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            rest = {k: v for k, v in args.items() if k != key}
            return _with_block(f"{tool} {_subject(value)}", rest)
    return _with_block(tool, args)


def calls_text(tool_calls: Any) -> str:
    """The tool calls of a message (the seed's shape: ``function.name`` /
    ``function.arguments``, or ``name`` / ``arguments`` at the top), one after another."""
    out: list[str] = []
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if not isinstance(call, dict):
            continue
        inner = call.get("function")
        func: dict[str, Any] = inner if isinstance(inner, dict) else call
        out.append(format_call(func.get("name"), func.get("arguments", "")))
    return "\n".join(out)
