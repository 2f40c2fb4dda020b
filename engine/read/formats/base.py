"""What every reader shares: the reader record, its options, and building a `Source`
from messages of the seed's shape.

Every log reader turns its format's records into messages of the seed's JSONL shape
(`engine.read.parse.Message`: ``role`` user / assistant / tool / system, ``content``,
``reasoning``, ``tool_calls`` with ``function.name`` / ``function.arguments``,
``tool_call_id``, ``timestamp``), each with the 1-based source line it came from. So
turns (`engine.read.parse.message_turns`) and tool-call collapsing
(`engine.recap.collapse.collapse_messages`) work on every format unchanged.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkscope.engine.errors import ParseError
from chunkscope.engine.model import Progress, Turn
from chunkscope.engine.read.source import (
    NO_PART_ENDS,
    Message,
    PartEnds,
    Problem,
    Source,
    iter_objects,
    message_turns,
    parse_timestamp,
    unified_line_ends,
)

#: The note a reader adds for the git branch its records name (Claude Code's ``gitBranch``,
#: a Codex rollout's ``session_meta.git.branch``): ``branch: NAME`` (`engine.recap.sections`).
BRANCH_NOTE = "branch: "
#: The role of the summary a compaction left (Claude Code's compact summary, Codex's
#: ``compacted``, Gemini CLI's ``<state_snapshot>``).
COMPACTION_ROLE = "compaction"
#: The note a reader adds for the folder the session ran in (Claude Code's ``cwd``, a Codex
#: rollout's ``session_meta.cwd``): ``session in PATH``; the recap names the files edited
#: in it relative to it (`engine.recap.sections`).
CWD_NOTE = "session in "
#: The note that gives a session's title (a Claude Code ``summary``, ``custom-title``,
#: ``ai-title``): ``session: TITLE``, the recap's Session section (`engine.recap.sections`).
SESSION_NOTE = "session: "


@dataclass(frozen=True)
class ReadOptions:
    """How to read: lenient or strict, whether the raw messages are kept (tool-call
    collapsing needs them), progress, which session of a file that holds several, and
    whether subagents' messages are read, and which headings open a document's sections."""

    strict: bool = False
    keep_messages: bool = True
    progress: Progress | None = None
    session: int | None = None  # index into `Reader.sessions`; None: the newest
    subagents: bool = True
    #: a document's sections open at ATX headings only, as the seed's parser did
    #: (``--merge seed``); else at setext, reStructuredText and HTML headings too
    seed_headings: bool = False


@dataclass(frozen=True)
class SessionInfo:
    """One session of a file or folder, for a picker: newest first."""

    path: str
    index: int | None  # the session within a file that holds several
    format: str
    modified: float  # epoch seconds: the session's last time (see `timed_by`)
    size: int
    title: str  # the first user message, or the file's title for it
    #: where `modified` comes from: "file" (the last timestamp inside the file, or the
    #: session's own time) or "mtime" (the file's modification time: it has none)
    timed_by: str = "file"
    #: why the file cannot be read at all (binary, of a kind chunkscope does not read,
    #: not readable), in the commands' words; then `format` is `UNREADABLE`, and the
    #: file is listed only to say so (`folders.nothing_to_read`)
    unreadable: str = ""

    def label(self) -> str:
        """The session's title, else its file name."""
        return self.title or Path(self.path).name


#: The `SessionInfo.format` of a file that cannot be read (no reader's name).
UNREADABLE = "-"


@dataclass(frozen=True)
class Reader:
    """An input format: its name (`--input-format`), a description, an example, how to
    read it, and (for files that hold several sessions) how to list them."""

    name: str
    description: str
    example: str
    read: Callable[[Path, ReadOptions], Source]
    kind: str = "jsonl"  # the JSON contract's "kind": a log ("jsonl") or "markdown"
    sessions: Callable[[Path], list[SessionInfo]] | None = None
    #: How its files hold their records (`Source.container`), unless the reader says.
    container: str = "jsonl"
    #: What its files are, in words (`Source.label`); "": the name.
    label: str = ""
    #: Other names ``--input-format`` takes for it: the agents whose files it reads
    #: and the header names (``mini-swe-agent``), lower case.
    aliases: tuple[str, ...] = ()


@dataclass
class Collected:
    """Messages gathered by a reader, then turned into a `Source` by `build`."""

    path: Path
    format: str
    messages: list[Message] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    records: int = 0  # records in the file (non-blank lines, items of a document)
    read: int = 0  # records read (each gave turns, the session's title, or only blank text)
    #: records not read, by reason: read + sum(not_read) + len(skipped) == records
    not_read: Counter[str] = field(default_factory=Counter)
    #: parts of records read that were left out (encrypted blocks, reminders), by kind
    stripped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    #: False: the messages are not kept, only their turns (`ReadOptions.keep_messages`)
    keep_messages: bool = True
    #: `Source.container` and `Source.label` when the reader knows them from the file.
    container: str = ""
    label: str = ""
    turns: list[Turn] = field(default_factory=list)
    added: int = 0  # messages added (kept or not)
    #: False: a message's text is the file's lines (aider's history), kept as they are;
    #: else no paragraph of it is whitespace alone (`engine.read.source.words_only`)
    tidy: bool = True

    def objects(self, options: ReadOptions) -> Iterator[tuple[int, dict[str, Any]]]:
        """The objects of this JSON-lines file (`iter_objects`), read as `options` say:
        its malformed lines in `skipped` (or an error, strict), its odd bytes in
        `warnings`."""
        return iter_objects(
            self.path,
            strict=options.strict,
            skipped=self.skipped,
            warnings=self.warnings,
            progress=options.progress,
        )

    def add(
        self,
        line: int,
        message: dict[str, Any],
        end_line: int | None = None,
        part_ends: PartEnds = NO_PART_ENDS,
        text_start: int | None = None,
        pieces: tuple[tuple[int, int], ...] | None = None,
    ) -> None:
        """Read one message of the seed's shape into turns at once, marked with the format
        that wrote it (``agent``: collapsing says that agent's tools in the seed's
        forms); the message itself is kept only with `keep_messages`. `end_line`: the
        last line of its text when its record spans lines from `line` (`Turn.end_line`);
        `part_ends`: where its reasoning and its content alone end (`PartEnds`);
        `text_start`: where its text starts when after `line` (`Turn.text_start`);
        `pieces`: where each record of a text joined from several starts (`Turn.pieces`)."""
        end_line = end_line if end_line is not None and end_line > line else None
        text_start = text_start if text_start is not None and text_start > line else None
        part_ends = PartEnds(*(e if e is not None and e > line else None for e in part_ends))
        message["agent"] = self.format
        unified_line_ends(message)
        try:  # parsed once, here: the turns and collapsing take the datetime as it is
            message["timestamp"] = parse_timestamp(message.get("timestamp"))
        except ValueError as e:
            self.warnings.append(Problem(line, f"{e}; read without a time"))
            message["timestamp"] = None
        if self.keep_messages:
            kept = Message(
                message, line, end_line, part_ends=part_ends, tidy=self.tidy, pieces=pieces
            )
            self.messages.append(kept)
        self.added += 1
        turns = self.turns
        turns.extend(
            message_turns(
                message,
                line,
                len(turns),
                show_calls=True,
                drop_empty=True,
                end_line=end_line,
                part_ends=part_ends,
                text_start=text_start,
                tidy=self.tidy,
                pieces=pieces,
            )
        )

    def drop(self, spans: list[tuple[int, int, int, int]]) -> None:
        """Take out what some messages gave: (first message, end, first turn, end) each;
        the turns after them are renumbered."""
        gone_turns: set[int] = set()
        gone_messages: set[int] = set()
        for m0, m1, t0, t1 in spans:
            gone_turns.update(range(t0, t1))
            gone_messages.update(range(m0, m1))
        kept = [t for i, t in enumerate(self.turns) if i not in gone_turns]
        self.turns = [t._replace(turn_index=i) for i, t in enumerate(kept)]
        if self.keep_messages:
            self.messages = [m for i, m in enumerate(self.messages) if i not in gone_messages]

    def fail(self, line: int, reason: str, options: ReadOptions) -> None:
        """A record that cannot be read: strict stops here, lenient skips it."""
        if options.strict:
            raise ParseError(self.path, line, reason)
        self.skipped.append(Problem(line, reason))

    def build(self, options: ReadOptions) -> Source:
        """The `Source` of what was collected, its notes and problems included."""
        notes = list(self.notes)
        turns = self.turns
        try:
            size = self.path.stat().st_size
        except OSError:
            size = 0
        return Source(
            str(self.path),
            "jsonl",
            turns,
            self.messages if options.keep_messages else [],
            self.skipped,
            self.warnings,
            size,
            self.records,
            self.format,
            notes,
            read=self.read,
            not_read=dict(self.not_read.most_common()),
            stripped=dict(self.stripped.most_common()),
            container=self.container,
            label=self.label,
        )


def text_of(content: Any) -> str:
    """Text of a content value: a string, or the text parts of a list of blocks
    (``text``, ``input_text``, ``output_text``, ``summary_text``); an image is
    ``[image]``; other blocks are left out."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return json.dumps(content, ensure_ascii=False)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            text = block.get("text")
            if isinstance(text, str) and kind in (
                None,
                "text",
                "input_text",
                "output_text",
                "summary_text",
                "reasoning_text",
            ):
                parts.append(text)
            elif kind in ("image", "input_image", "image_url"):
                parts.append("[image]")
    return "\n".join(parts)


def decoded_calls(message: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Any, dict[str, Any]]]:
    """A message's tool calls whose arguments are a JSON object: (the call, its name, the
    arguments decoded), for a reader that reads a call by what an earlier one did (a
    command still running, a task list)."""
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        try:
            args = json.loads(function.get("arguments") or "{}")
        except ValueError:
            continue
        if isinstance(args, dict):
            yield call, function.get("name"), args


def tool_result(call_id: Any, text: str, ts: Any, exit_code: int | None = None) -> dict[str, Any]:
    """A tool's result in the seed's shape, with the exit code a command gave (if any)."""
    message: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": call_id,
        "content": text,
        "timestamp": ts,
    }
    if exit_code is not None:
        message["exit_code"] = exit_code
    return message


def tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """A tool call in the seed's shape (arguments as a JSON string)."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return {
        "id": str(call_id) if call_id not in (None, "") else None,
        "type": "function",
        "function": {"name": name if isinstance(name, str) else "?", "arguments": arguments},
    }


def first_text(values: Iterable[str], limit: int = 120) -> str:
    """The first non-blank value, on one line, cut to `limit` characters."""
    for value in values:
        line = " ".join(value.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
