"""The recap's procedural sections: what a resuming agent reads first.

`extract_sections(messages, notes)` reads a session's messages (`Source.messages`, the
seed's shape that every reader produces: ``role``, ``content``, ``tool_calls`` with
``function.name`` / ``function.arguments``, tool results with ``tool_call_id``) and
fills each section from the exact records the log holds:

- ``session``: the tool's own title records (Claude Code's ``summary`` records).
- ``task``: the user's requests, compressed: the first one (the text of a
  ``<pr_description>`` / ``<issue>`` / ``<task>`` block when the request wraps one),
  then the later ones that say something (not "continue", "yes", tool output), the
  latest first when the budget is short.
- ``plan``: the last todo list or plan (``TodoWrite``, ``update_plan``, ``write_todos``,
  ...): ``[x]`` done, ``[~]`` in progress, ``[ ]`` pending.
- ``files``: the files written or edited (``Edit``, ``Write``, ``MultiEdit``,
  ``apply_patch``, the seed's ``edit`` / ``write``, Gemini's ``replace`` /
  ``write_file``, ``sed -i`` and ``cat > f`` in shell commands), with counts.
- ``outcome``: the last test or build command and its result, the commits
  (``git commit -m``) and pull requests (``gh pr create``) made, with their output;
  the seed's ``done`` summary.
- ``last``: the assistant's last message, its sentences with content.
- ``questions``: the assistant's closing question to the user (a question in its
  last message, or an ``ask`` call nobody answered).

Nothing here is guessed from a model: a section the log has no record for is empty and
left out. `fit_sections` keeps the most useful lines within a token allowance (exact,
with the counter given); the chunk summaries fill the rest of the recap's budget
(`engine.recap.select`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.collapse import _PATCH_FILE, _calls, _command, _decode_arguments, _fold
from engine.requests import clean_request, is_request
from engine.source import content_text
from engine.summarize.extractive import (
    _truncate,
    has_content,
    is_narration,
    sentences_of,
    split_sentences,
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
    "plan": "Plan",
    "files": "Files changed",
    "outcome": "Last outcome",
    "last": "Where it stopped",
    "questions": "Open question to the user",
}

#: The heading above the chunk summaries when sections come before them.
SUMMARIES_TITLE = "What happened"

# The longest a line of each section may be (characters; cut at a word with "...").
_LINE_CHARS = {"task": 420, "plan": 160, "outcome": 260, "last": 300, "questions": 300}
_FIRST_REQUEST_CHARS = 700

# Share of the allowance each section may take at most.
_SHARE = {
    "session": 0.08,
    "task": 0.30,
    "plan": 0.22,
    "files": 0.25,
    "outcome": 0.22,
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

    @property
    def title(self) -> str:
        """The section's heading as the recap shows it."""
        return SECTION_TITLES.get(self.name, self.name)

    def render(self) -> str:
        """The section as markdown: its heading and lines ("" when it has none)."""
        return f"## {self.title}\n" + "\n".join(self.lines) if self.lines else ""

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

_TASK_TAG = re.compile(
    r"<(pr_description|issue|task|problem_statement|problem|issue_description)>\s*(.*?)\s*</\1>",
    re.S,
)
_OBSERVATION = re.compile(
    r"\A\s*(?:<returncode>|<output>|<tool_response>|<observation>|observation:|"
    r"exit code:?\s*-?\d|<warning>|<error>|tool output|\[tool output)",
    re.I,
)


def _cut(text: str, limit: int) -> str:
    """`text` on one line, cut at a word to at most `limit` characters."""
    return _truncate(_fold(text), limit)


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


@dataclass
class _Log:
    """The messages of a session, read once: user requests, assistant texts, calls."""

    requests: list[tuple[int, str]] = field(default_factory=list)
    texts: list[tuple[int, str]] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    last_user: int = -1
    #: commits a tool reported outside a shell call (aider's "Commit abc1234 message")
    commits: list[tuple[int, str]] = field(default_factory=list)


_AIDER_EDIT = re.compile(r"^Applied edit to (.+)$", re.M)
_AIDER_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40}) (.+)$", re.M)
_AIDER_RUN = re.compile(r"\A\s*/(?:run|test)\s+(.+)", re.S)

# A mini-swe-agent-style action: a fenced shell block in the assistant's text.
_SHELL_BLOCK = re.compile(r"```(?:bash|sh|shell|console)?\s*\n(.*?)```", re.S)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_OUTPUT_TAG = re.compile(r"<output>\s*(.*?)\s*</output>", re.S)


def _read(messages: Sequence[Mapping[str, Any]]) -> _Log:
    log = _Log()
    # Shell blocks in the assistant's text are actions only in a log without tool calls
    # (mini-swe-agent's text mode); elsewhere they are examples in an explanation.
    text_mode = not any(
        isinstance(m, Mapping) and m.get("role") == "assistant" and m.get("tool_calls")
        for m in messages
    )
    by_id: dict[str, _Call] = {}
    anonymous: list[_Call] = []
    text_actions: list[_Call] = []  # shell blocks in text, waiting for their output
    for i, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            continue
        role = msg.get("role")
        if role == "aider":  # aider's own output: edits applied, commits, command output
            text = content_text(msg.get("content"))
            if text_actions:
                text_actions.pop().result = text
            for m in _AIDER_EDIT.finditer(text):
                log.calls.append(_Call(i, "edit", {"path": m.group(1).strip()}))
            for m in _AIDER_COMMIT.finditer(text):
                log.commits.append((i, f"Committed {m.group(1)}: {_cut(m.group(2), 160)}"))
            continue
        if role == "user":
            text = content_text(msg.get("content"))
            run = _AIDER_RUN.match(text)
            if run:  # aider's /run and /test: a command, its output follows
                call = _Call(i, "bash", {"command": run.group(1).strip()})
                log.calls.append(call)
                text_actions[:] = [call]
                continue
            if _OBSERVATION.match(text) or "<returncode>" in text[:300]:
                if text_actions:
                    call = text_actions.pop()
                    code = _RETURNCODE.search(text)
                    out = _OUTPUT_TAG.search(text)
                    call.result = out.group(1) if out else text
                    call.exit_code = int(code.group(1)) if code else None
                continue
            text_actions.clear()
            log.requests.append((i, text))
            log.last_user = i
        elif role == "assistant":
            text = content_text(msg.get("content"))
            calls = _calls_of(msg)
            if text.strip():
                log.texts.append((i, text))
            for cid, name, args in calls:
                call = _Call(i, name, args)
                log.calls.append(call)
                if cid is None:
                    anonymous.append(call)
                else:
                    by_id[cid] = call
            if text_mode and text:
                blocks = _SHELL_BLOCK.findall(text)
                if blocks:
                    call = _Call(i, "bash", {"command": blocks[-1].strip()})
                    log.calls.append(call)
                    text_actions[:] = [call]
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
            found.failed = bool(msg.get("is_error"))
    return log


# --------------------------------------------------------------------------- task


def _first_request(text: str) -> str:
    tagged = _TASK_TAG.search(text)
    if tagged and tagged.group(2).strip():
        text = tagged.group(2)
    return _cut(text, _FIRST_REQUEST_CHARS)


def task_section(log: _Log) -> Section:
    requests = [(i, clean_request(t)) for i, t in log.requests]
    requests = [(i, t) for i, t in requests if is_request(t)]
    if not requests:
        return Section("task", ())
    lines = [_first_request(requests[0][1])]
    later = list(dict.fromkeys(_cut(t, _LINE_CHARS["task"]) for _, t in requests[1:]))
    later = [t for t in later if t != lines[0]]
    lines += [f"Later: {t}" for t in later]
    # the first request, then the later ones newest first
    ranks = [0] + [len(later) - k for k in range(len(later))]
    return Section("task", tuple(lines), tuple(ranks))


# --------------------------------------------------------------------------- plan

_PLAN_TOOLS = frozenset(
    {"todowrite", "update_plan", "write_todos", "todo_write", "todowrite_tool", "plan", "todo"}
)
_DONE = frozenset({"completed", "complete", "done", "finished"})
_ACTIVE = frozenset({"in_progress", "in-progress", "active", "doing", "started"})
_DROPPED_STATUS = frozenset({"cancelled", "canceled", "skipped"})


def _plan_items(args: Mapping[str, Any]) -> list[tuple[str, str]] | None:
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
        if not isinstance(item, Mapping):
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


def plan_section(log: _Log) -> Section:
    for call in reversed(log.calls):
        if call.name.lower() not in _PLAN_TOOLS:
            continue
        items = _plan_items(call.args)
        if items is None:
            continue
        lines: list[str] = []
        ranks: list[int] = []
        for status, text in items:
            if status in _DROPPED_STATUS:
                continue
            text = _cut(text, _LINE_CHARS["plan"])
            if status in _DONE:
                lines.append(f"- [x] {text}")
                ranks.append(2)
            elif status in _ACTIVE:
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
_VIEW_COMMANDS = frozenset({"view", "undo_edit"})
_SED_INPLACE = re.compile(r"\bsed\s+(?:-[a-zA-Z]*i[a-zA-Z]*\S*|--in-place\S*)\s+.*?(\S+)\s*$")
_REDIRECT_WRITE = re.compile(
    r"(?:\bcat|\becho|\bprintf|\btee)\b[^|;&\n]*?(?:>|\btee)\s*['\"]?([\w./-]+\.\w+)"
)


def _edited_paths(call: _Call) -> list[str]:
    name = call.name.lower()
    args = call.args
    if name == "apply_patch" or name in _SHELL_TOOLS:
        text = " ".join(
            str(v) for k, v in args.items() if k in ("input", "patch", "command", "cmd")
        )
        if isinstance(args.get("command"), list):
            text = " ".join(str(p) for p in args["command"])
        found = [m.group(2).strip() for m in _PATCH_FILE.finditer(text)]
        if found or name == "apply_patch":
            return found
        return _shell_writes(_command(args))
    if name not in _EDIT_TOOLS:
        return []
    if name in ("str_replace_editor", "str_replace_based_edit_tool") and (
        str(args.get("command", "")) in _VIEW_COMMANDS
    ):
        return []
    for key in ("file_path", "notebook_path", "path", "filename", "target_file", "absolute_path"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return [value.strip()]
    return []


def _shell_words(line: str) -> list[list[str]] | None:
    """The simple commands of a shell line as word lists (split at ``&&``, ``||``, ``;``,
    ``|``), quotes honoured; None when the line does not parse (an open quote)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    out: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", "||", ";", "|", "&"):
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def _shell_writes(command: str) -> list[str]:
    """Files a shell command writes: ``sed -i ... FILE``, ``cat > FILE``, ``tee FILE``."""
    out: list[str] = []
    for line in command.splitlines():
        commands = _shell_words(line)
        if commands is None:
            continue
        for words in commands:
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
                    if words[0] == "tee" and i > 0 and not w.startswith("-"):
                        target = w
                    if target and _FILE_LIKE.search(target) and not target.startswith("/dev/"):
                        out.append(target)
    return out


_FILE_LIKE = re.compile(r"^[\w./~-]+\.\w+$")


def _relative(paths: Sequence[str]) -> dict[str, str]:
    """Each path without the folder every absolute one shares (the project's)."""
    absolute = [p for p in paths if p.startswith("/") or re.match(r"[A-Za-z]:[\\/]", p)]
    if len(absolute) < 2:
        if len(absolute) == 1:
            p = absolute[0].replace("\\", "/")
            return {absolute[0]: "/".join(p.split("/")[-3:])}
        return {}
    split = [p.replace("\\", "/").split("/") for p in absolute]
    common = 0
    for parts in zip(*(s[:-1] for s in split), strict=False):
        if len(set(parts)) != 1:
            break
        common += 1
    return {p: "/".join(s[common:]) for p, s in zip(absolute, split, strict=True)}


_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/", re.M)


def files_section(log: _Log) -> Section:
    """Files edited by an edit tool or ``sed -i``, those a diff in a tool result shows
    (``git diff``, a submitted patch), then files a shell command wrote (``cat > f``:
    often a scratch script), most changed first."""
    counts: dict[str, int] = {}
    shell_only: set[str] = set()
    created: set[str] = set()
    for call in log.calls:
        if call.failed:
            continue
        name = call.name.lower()
        shell = name in _SHELL_TOOLS
        for path in _edited_paths(call):
            counts[path] = counts.get(path, 0) + 1
            if name in ("write", "write_file", "create_file", "create"):
                created.add(path)
            if shell and not _SED_INPLACE.search(_command(call.args)):
                shell_only.add(path)
            elif path in shell_only and not shell:
                shell_only.discard(path)
    diffed: list[str] = []
    for call in log.calls:
        if call.result and "diff --git" in call.result:
            diffed += _DIFF_FILE.findall(call.result)
    if not counts and not diffed:
        return Section("files", ())
    short = _relative(list(counts))
    merged: dict[str, list[Any]] = {}  # name: [count, created, scratch, in a diff]
    for path, n in counts.items():
        name = short.get(path, path).removeprefix("./")
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
    order = sorted(merged, key=lambda p: (merged[p][2], -merged[p][3], -merged[p][0]))
    # one line per folder (its files in this order, at most _PER_LINE a line), the
    # folders in the order of their first file: a folder is said once
    groups: dict[tuple[str, bool], list[str]] = {}
    for name in order:
        n, new, scratch, _ = merged[name]
        if n == 0:
            what = "in the diff"
        elif (new or scratch) and n == 1:
            what = "written"
        else:
            what = f"{n} edit{'s' if n != 1 else ''}"
        folder, _, base = name.rpartition("/")
        groups.setdefault((folder, bool(scratch)), []).append(f"{base} ({what})")
    lines = []
    for (folder, _), items in groups.items():
        if len(items) == 1 or not folder:  # a folder of one file: its path
            lines += [f"- {folder}/{item}" if folder else f"- {item}" for item in items]
            continue
        for k in range(0, len(items), _PER_LINE):
            lines.append(f"- {folder}/: {', '.join(items[k : k + _PER_LINE])}")
    return Section("files", tuple(lines), tuple(range(len(lines))))


#: Files of one folder on one line of the files section, at most.
_PER_LINE = 6


# --------------------------------------------------------------------------- outcome

_SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "local_shell",
        "exec_command",
        "shell_command",
        "container.exec",
        "run_shell_command",
        "execute_command",
        "run_terminal_cmd",
        "terminal",
        "run",
        "execute_bash",
    }
)
_CHECK = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|nosetests|mypy|ruff|flake8|pylint|jest|vitest|mocha|"
    r"go (?:test|build|vet)|cargo (?:test|build|check|clippy|nextest)|make\b|cmake --build|ninja|"
    r"mix (?:test|compile)|npm (?:test|run \S*(?:test|build|lint|check|typecheck)\S*)|"
    r"yarn (?:test|build|lint)|pnpm (?:test|build|lint|run)|bun test|deno test|tsc\b|"
    r"gradle|gradlew|mvn|dotnet (?:test|build)|rspec|phpunit|ctest|bazel (?:test|build)|"
    r"swift (?:test|build)|xcodebuild|runtests|manage\.py test|python\S* -m (?:pytest|unittest)|"
    r"python\S* \S*test\S*\.py|reproduce\S*\.py)",
    re.I,
)
_RESULT_LINE = re.compile(
    r"(?:\b\d+ (?:passed|failed|errors?|tests?|skipped|warnings?|examples?|failures?)\b|"
    r"\btest result\b|\bTests?:|\bFAILED\b|\bPASS(?:ED)?\b|\bFAIL\b|\bOK\b|\berror\b|"
    r"\bSuccess|\bBuild (?:succeeded|failed)|\bfound \d+ errors?|\bAll checks passed|"
    r"\bno issues found|\bcompiled|\bFinished\b|\bTraceback\b|\bError:|✓|✗|✔|✘)",
    re.I,
)
_COMMIT = re.compile(r"\bgit\b[^|;&]*?\bcommit\b")
_COMMIT_MSG = re.compile(
    r"-[a-zA-Z]*m\s+(?:\"\$\(cat <<'?\"?EOF'?\"?\s*\n(.*?)\n\s*EOF|"
    r"\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+))",
    re.S,
)
_COMMIT_OUT = re.compile(r"^\[([^\]\n]+?) ([0-9a-f]{7,40})\] (.+)$", re.M)
_PR = re.compile(r"\bgh pr create\b")
_PR_TITLE = re.compile(r"--title\s+(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)')")
_URL = re.compile(r"https://\S+/pull/\d+")
_EXIT = re.compile(r"\s*(?:Exit code|exit status|Process exited with code)\s*:?\s*(-?\d+)", re.I)
_COMMIT_FAILED = re.compile(r"nothing to commit|error|fatal", re.I)


_INSTALL = re.compile(
    r"\b(?:pip3?|uv pip|npm|yarn|pnpm|apt(?:-get)?|brew|cargo|go) (?:install|add|get)\b"
)
_HEREDOC_WRITE = re.compile(r"^\s*(?:cat|tee)\b[^|]*(?:>|tee)\s*\S+\s*<<|<<[^|]*>\s*\S+")


def _first_line(command: str) -> str:
    """The command's first line, "" when it writes a file from a here-document."""
    first = command.strip().splitlines()[0] if command.strip() else ""
    if _HEREDOC_WRITE.search(first) or re.match(r"\s*(?:cat|echo|printf)\b[^|]*>", first):
        return ""
    if _INSTALL.search(first):
        return ""  # installing a test runner is not running it
    return first


def _result_summary(call: _Call) -> str:
    result = call.result or ""
    lines = [ln.strip() for ln in result.splitlines() if ln.strip()]
    picked = [ln for ln in lines if _RESULT_LINE.search(ln)]
    keep = picked[-2:] if picked else lines[-1:]
    text = "; ".join(_cut(ln.strip("=-_* "), 140) for ln in keep)
    code = call.exit_code
    if code is None:
        m = _EXIT.match(result)
        if m:
            code = int(m.group(1))
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
    return f"Committed: {what}", call.result is None or not call.result.strip()


def outcome_section(log: _Log) -> Section:
    lines: list[tuple[int, int, str]] = []  # (rank, position, line)
    last_check: _Call | None = None
    commits: list[tuple[int, str]] = []
    prs: list[tuple[int, str]] = []
    pushes: list[tuple[int, str]] = []
    failed_commits: list[tuple[int, str]] = []
    finished: list[tuple[int, str]] = []
    commits += log.commits
    for call in log.calls:
        name = call.name.lower()
        if name == "done" or name in ("attempt_completion", "submit", "finish"):
            summary = call.args.get("summary", call.args.get("result", call.result or ""))
            if isinstance(summary, str) and summary.strip():
                finished.append((call.index, f"Finished: {_cut(summary, 260)}"))
            continue
        if name not in _SHELL_TOOLS:
            continue
        command = _command(call.args)
        if command == "?":
            continue
        if _COMMIT.search(command):
            line, made = _commit_line(command, call)
            if made:
                commits.append((call.index, line))
            else:
                failed_commits.append((call.index, line))
        if _PR.search(command):
            title = _PR_TITLE.search(command)
            url = _URL.search(call.result or "")
            what = (title.group(1) or title.group(2) or "") if title else ""
            prs.append(
                (call.index, f"Opened PR{' ' + url.group(0) if url else ''}: {_cut(what, 160)}")
            )
        elif re.search(r"\bgit push\b", command) and call.result is not None:
            pushes.append((call.index, f"Pushed: `{_cut(command, 80)}`"))
        if "COMPLETE_TASK_AND_SUBMIT" in command or command.strip() == "submit":
            finished.append((call.index, "Submitted the work (the agent's final action)."))
        elif _CHECK.search(_first_line(command)) and (
            call.result is not None or last_check is None or last_check.result is None
        ):
            last_check = call  # the last one whose result the log has, if any has one
    if last_check is not None:
        cmd = _cut(_command(last_check.args), 120)
        lines.append((0, last_check.index, f"Last check: `{cmd}` -> {_result_summary(last_check)}"))
    commits.sort()
    # a commit that failed matters only when no commit came after it
    if failed_commits and (not commits or failed_commits[-1][0] > commits[-1][0]):
        lines.append((1, failed_commits[-1][0], failed_commits[-1][1]))
    # the newest of each kind first when the allowance is short
    for rank, group in ((1, finished[-2:]), (1, prs[-2:]), (1, commits[-6:]), (3, pushes[-1:])):
        for age, (pos, line) in enumerate(reversed(group)):
            lines.append((rank + age, pos, line))
    lines.sort(key=lambda t: t[1])
    return Section("outcome", tuple(t[2] for t in lines), tuple(t[0] for t in lines))


# --------------------------------------------------------------------------- last words

_QUESTION = re.compile(r"\?[\"'”’)\]]*$")


def _content_sentences(text: str) -> list[str]:
    return [s.text for s in split_sentences(text) if s.text.strip()]


def _last_words(log: _Log) -> list[str]:
    """The assistant's closing texts: its last message, and, when messages that are no
    request (a task notification, "continue") came after the last real one, its last
    message before them too (the report they followed)."""
    last_i, last = log.texts[-1]
    real = [i for i, t in log.requests if is_request(clean_request(t))]
    since = real[-1] if real else -1
    texts = [last]
    if any(i > since for i, _ in log.requests):  # machine or nudge messages at the end
        first_after = min((i for i, _ in log.requests if i > since), default=last_i)
        before = [t for i, t in log.texts if since < i < first_after]
        if before:
            texts.insert(0, before[-1])
    return texts


def last_section(log: _Log) -> Section:
    if not log.texts:
        return Section("last", ())
    kept: list[str] = []
    for text in _last_words(log):
        sentences = [s for s in _content_sentences(text) if not _QUESTION.search(s)]
        plain = [s for s in sentences if not is_narration(s)]
        kept += [s for s in plain if has_content(s)] or plain[:2]
    lines = tuple(_cut(s, _LINE_CHARS["last"]) for s in dict.fromkeys(kept))
    return Section("last", lines, tuple(range(len(lines))))


def questions_section(log: _Log) -> Section:
    lines: list[str] = []
    for call in reversed(log.calls):
        if call.index < log.last_user:
            break
        if call.name.lower() in ("ask", "askuserquestion", "ask_user", "ask_followup_question"):
            if call.result and call.result.strip():
                break  # answered
            q = call.args.get("message", call.args.get("question", call.args.get("questions")))
            if isinstance(q, list):
                q = " ".join(
                    str(x.get("question", "")) if isinstance(x, Mapping) else str(x) for x in q
                )
            if isinstance(q, str) and q.strip():
                lines.append(_cut(q, _LINE_CHARS["questions"]))
            break
    if not lines and log.texts and log.texts[-1][0] > log.last_user:
        _, text = log.texts[-1]
        asked = [s for s in _content_sentences(text) if _QUESTION.search(s)]
        lines = [_cut(s, _LINE_CHARS["questions"]) for s in dict.fromkeys(asked[-2:])]
    return Section("questions", tuple(lines), tuple(range(len(lines))))


# --------------------------------------------------------------------------- all


def session_section(notes: Iterable[str]) -> Section:
    titles = [n.split(":", 1)[1].strip() for n in notes if n.startswith("session: ")]
    titles = list(dict.fromkeys(t for t in titles if t))[-3:]
    return Section("session", tuple(_cut(t, 160) for t in titles), tuple(range(len(titles))))


def extract_sections(
    messages: Sequence[Mapping[str, Any]], notes: Iterable[str] = ()
) -> list[Section]:
    """Every section of `messages` (see the module docstring), in display order; a
    section without records has no lines."""
    log = _read(messages)
    return [
        session_section(notes),
        task_section(log),
        plan_section(log),
        files_section(log),
        outcome_section(log),
        last_section(log),
        questions_section(log),
    ]


# Which sections' lines go first when the allowance is short: (section, rank) sorts
# by this table's value for the section, then by the line's rank.
_PRIORITY = {
    "task": 0,
    "questions": 1,
    "plan": 2,
    "outcome": 2,
    "files": 3,
    "last": 3,
    "session": 4,
}


def fit_sections(
    sections: Sequence[Section], allowance: int, counter: TokenCount, *, stretch: bool = False
) -> list[Section]:
    """The sections cut to at most `allowance` tokens of `counter` once rendered
    (`render_sections`): lines are taken in priority order (the first request, an open
    question, the plan's open items and the last check first; each section at most its
    share of the allowance), and shown in their own order. A line that does not fit is
    skipped and the next ones are still tried. With `stretch`, a section may take more
    than its share when the others leave room (a second pass over what is left)."""
    if allowance <= 0:
        return []
    order: list[tuple[float, int, int, int]] = []
    for si, s in enumerate(sections):
        ranks = s.ranks if len(s.ranks) == len(s.lines) else tuple(range(len(s.lines)))
        for li, rank in enumerate(ranks):
            order.append((_PRIORITY.get(s.name, 5) + min(rank, 6) * 0.75, si, li, rank))
    order.sort()
    chosen: dict[int, set[int]] = {}
    text: dict[tuple[int, int], str] = {}  # lines cut to fit

    def line(si: int, li: int) -> str:
        return text.get((si, li), sections[si].lines[li])

    def build(picks: Mapping[int, set[int]]) -> list[Section]:
        out = []
        for si, s in enumerate(sections):
            keep = sorted(picks.get(si, ()))
            if keep:
                out.append(
                    Section(
                        s.name,
                        tuple(line(si, i) for i in keep),
                        tuple(s.ranks[i] for i in keep) if len(s.ranks) == len(s.lines) else (),
                        s.source,
                    )
                )
        return out

    def fits(trial: Mapping[int, set[int]], si: int) -> bool:
        name = sections[si].name
        if not stretch:
            own = counter.count(build({si: set(trial[si])})[0].render())
            if own > _SHARE.get(name, 0.1) * allowance:
                return False
        return counter.count(render_sections(build(trial))) <= allowance

    said: set[str] = set()
    for _, si, li, rank in order:
        s = sections[si]
        keys = _said(s.lines[li])
        if not keys or keys & said:
            continue  # nothing new, or a sentence already said
        trial = {k: set(v) for k, v in chosen.items()}
        trial.setdefault(si, set()).add(li)
        if not fits(trial, si):
            if rank != 0 or s.name not in _CUTTABLE:
                continue
            # the first line of the task, the question, the last words: cut it to fit
            full = s.lines[li]
            lo, hi, best = _MIN_CUT, len(full) - 1, ""
            while lo <= hi:
                mid = (lo + hi) // 2
                text[(si, li)] = _cut(full, mid)
                if fits(trial, si):
                    best, lo = text[(si, li)], mid + 1
                else:
                    hi = mid - 1
            if not best:
                text.pop((si, li), None)
                continue
            text[(si, li)] = best
        chosen = trial
        said |= keys
    return build(chosen)


#: Sections whose most important line is cut to fit rather than left out.
_CUTTABLE = frozenset({"task", "questions", "last"})
_MIN_CUT = 60


def _said(line: str) -> set[str]:
    """The sentences of a line, normalised (to say none twice)."""
    text = line.strip().lstrip("-#*> ").strip()
    text = re.sub(r"^\[[x~ ]\]\s*", "", text)
    text = re.sub(r"^[A-Z][\w ]{0,24}: ", "", text)
    return {
        k for k in (" ".join(p.lower().split()).rstrip(".!?;: ") for p in sentences_of(text)) if k
    }


def as_json(sections: Sequence[Section], counter: TokenCount) -> list[dict[str, Any]]:
    """The sections as in ``chunkscope recap --format json``."""
    return [s.as_dict(counter.count(s.render())) for s in sections]
