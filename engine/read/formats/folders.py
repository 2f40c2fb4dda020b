"""Folders of sessions: a Claude Code project folder, a Codex sessions folder (nested by
date), a Gemini CLI folder (``~/.gemini/tmp/<project hash>/chats``), or any folder of
logs. `list_sessions` lists them newest first with their date, size, format and first
user message, reading only the start of each file for its title and its end for its
date: the last timestamp inside the file (`last_timestamp`), the file's modification
time only when it has none. So a session resumed later, or files copied or cloned
with equal times, are ordered by when their sessions happened."""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import chunkscope.engine.read.formats.aider as aider
import chunkscope.engine.read.formats.claude as claude
import chunkscope.engine.read.formats.codex as codex
import chunkscope.engine.read.formats.documents as documents
import chunkscope.engine.read.formats.gemini as gemini
import chunkscope.engine.read.formats.gemini_stream as gemini_stream
from chunkscope.engine.errors import ChunkscopeError, NotText, SourceError
from chunkscope.engine.paths import inside
from chunkscope.engine.read.commands import command_request
from chunkscope.engine.read.formats import (
    READERS,
    SNIFF_BYTES,
    SUFFIXES,
    _head,
    format_named,
    sniff,
)
from chunkscope.engine.read.formats.base import UNREADABLE, SessionInfo, first_text, text_of
from chunkscope.engine.read.headings import find_headings
from chunkscope.engine.read.source import (
    GZIP_MAGIC,
    MARKDOWN_SUFFIXES,
    file_reason,
    gunzip_readable,
    head_reason,
    head_text,
    parse_timestamp,
    read_head,
)
from chunkscope.engine.textutil import counted, files_named

#: Files looked at in a folder, at most (newest first).
MAX_FILES = 2000


def _records(head: bytes) -> list[dict[str, Any]]:
    """The JSON objects among a file's first lines (its first line too, after a BOM)."""
    out = []
    for line in head_text(head).splitlines()[:400]:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


_USER_ROLE = re.compile(r'"role"\s*:\s*"user"')
#: How far a log is read for its first request when its head holds none (a Codex
#: rollout's instructions and context run past the head).
_TITLE_BYTES = 1 << 20


def _title(path: Path, name: str) -> str:
    head = _head(path)
    if name == claude.NAME:
        return claude.session_title(_records(head))
    if name == codex.NAME:
        found = codex.first_user_message(_records(head))
        if not found and len(head) >= SNIFF_BYTES:
            # Codex 0.14x writes 70-90 KB of instructions and context before the first
            # request (walk 52, F6: no first request in the picker): read on for it
            found = codex.first_user_message(_records(read_head(path, _TITLE_BYTES)))
        return found
    if name == gemini_stream.NAME:
        return gemini_stream.first_user_message(_records(head))
    if name == "seed-jsonl":  # (its text under `text` when it has no `content`, as read)
        return first_text(
            text_of(r.get("content") if "content" in r else r.get("text"))
            for r in _records(head)
            if r.get("role") == "user"
        )
    text = head_text(head)
    if name == gemini.NAME:
        return gemini.first_user_message(text, task=lambda v: command_request(v.strip()) or "")
    if name == documents.MESSAGES:
        return gemini.first_user_message(text, _USER_ROLE, documents.task_of)
    if name == aider.NAME:
        lines = (
            command_request(ln[5:].strip()) for ln in text.splitlines() if ln.startswith("#### ")
        )
        return first_text(ln for ln in lines if ln)
    if name == "markdown":  # its first heading (walk 19, 7: never a line of `---`)
        rows = text.splitlines()
        headings = find_headings(rows)
        if headings:
            return headings[0].title
        return first_text(ln.lstrip("# ") for ln in rows)
    return ""


#: A timestamp field's value in a log's text (ISO text or epoch number), and aider's
#: session start.
_STAMP = re.compile(
    rb'"(?:timestamp|lastUpdated|update_time|create_time)"\s*:\s*(?:"([^"\\]{6,40})"|(\d{9,13}(?:\.\d+)?))'
    rb"|^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)",
    re.M,
)
#: How far from its end a file is searched for a timestamp, in blocks of `_BLOCK`.
_BLOCK = 1 << 16
_BLOCKS = 16
#: A gzip-compressed file is decompressed for its timestamp up to this size.
_GZIP_LOOKED_INTO = 4 << 20


def _latest_in(block: bytes) -> float | None:
    best: float | None = None
    for m in _STAMP.finditer(block):
        raw = m.group(1) or m.group(3)
        try:
            when = parse_timestamp(
                raw.decode("ascii", "replace").replace(" ", "T") if raw else float(m.group(2))
            )
        except (ValueError, OverflowError):
            continue
        if when is not None:
            seconds = when.timestamp()
            best = seconds if best is None else max(best, seconds)
    return best


def last_timestamp(path: Path) -> float | None:
    """The time (epoch seconds) of the last timestamp inside a log, read from its end:
    the latest of the timestamps in the last stretch of the file that has any (a
    record's ``timestamp``, a Gemini chat's ``lastUpdated``, a ChatGPT conversation's
    ``update_time``, aider's last session start). None when the file has none (a
    markdown document) near its end."""
    with path.open("rb") as fh:
        if fh.read(2) == GZIP_MAGIC:
            if path.stat().st_size > _GZIP_LOOKED_INTO:
                return None
            fh.seek(0)
            try:
                data = gunzip_readable(fh.read())
            except zlib.error:
                return None
            return _latest_in(data[-_BLOCK * _BLOCKS :])
        end = fh.seek(0, os.SEEK_END)
        pos = end
        for _ in range(_BLOCKS):
            if pos <= 0:
                break
            start = max(0, pos - _BLOCK)
            fh.seek(start)
            # a little past the block's end, so a timestamp cut by the boundary is whole
            block = fh.read(pos - start + 64)
            found = _latest_in(block)
            if found is not None:
                return found
            pos = start
    return None


def file_session(path: Path, name: str | None = None) -> SessionInfo:
    """A file as one session: its format, its last timestamp (or its modification
    time), size and first message."""
    st = path.stat()
    name = name or sniff(path)
    try:
        title = _title(path, name)
    except (OSError, ChunkscopeError):
        title = ""
    try:  # a markdown document's timestamps (if any) are its text, not its time
        when = last_timestamp(path) if READERS[name].kind != "markdown" else None
    except OSError:
        when = None
    return SessionInfo(
        str(path),
        None,
        name,
        when if when is not None else st.st_mtime,
        st.st_size,
        title,
        timed_by="file" if when is not None else "mtime",
    )


#: How deep below the folder sessions are looked for (Codex nests them by date: 3).
MAX_DEPTH = 4


#: The endings of compressed files: a log so compressed is listed (gzip's is read, the
#: others are said under "nothing to read" with the command that decompresses them;
#: walk 30: a `.jsonl.bz2` was in no list at all).
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".lzma")


def readable_name(name: str) -> bool:
    """Whether a file name is one chunkscope offers to open (by its ending)."""
    lower = name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        lower = lower.removesuffix(suffix)
    return lower.endswith(SUFFIXES) or lower.endswith(".aider.chat.history.md")


def _candidates(folder: Path, confine: str | Path | None = None) -> list[Path]:
    found: list[tuple[float, Path]] = []
    base_depth = len(folder.parts)
    for root, dirs, files in os.walk(folder):
        depth = len(Path(root).parts) - base_depth
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(".")
            and d != "node_modules"
            # a session's subagents (Claude Code 2.1.2 on): no sessions of their own
            and not (d == claude.SUBAGENT_FOLDER and claude.is_subagent_folder(Path(root, d)))
        ]
        if depth >= MAX_DEPTH:
            dirs[:] = []
        for f in files:
            if f.startswith(".") and ".aider.chat.history" not in f:
                continue
            if readable_name(f):
                p = Path(root) / f
                if confine is not None and not inside(p, confine):
                    continue  # a link out of the folder served: not even its time is read
                try:
                    found.append((p.stat().st_mtime, p))
                except OSError:
                    continue
    found.sort(key=lambda tp: tp[0], reverse=True)
    return [p for _, p in found[:MAX_FILES]]


def _one_line(reason: str) -> str:
    """A reason's first clause on one line (its details in parentheses left out), as a
    listing says why a file has nothing to read."""
    return " ".join(reason.split(" (", 1)[0].split())


def unreadable_session(path: Path, error: OSError | ChunkscopeError) -> SessionInfo | None:
    """A file of a folder that cannot be read at all (`error`: binary, of a kind
    chunkscope does not read, not readable), listed to say why, in the words the
    commands use (`looks like a binary file (NUL bytes at byte 0)`, the "not a log or
    markdown" the listing's heading says); placed by its modification time. None when
    it is gone (removed since the folder was walked)."""
    if isinstance(error, FileNotFoundError):
        return None
    why: str | None = None
    if isinstance(error, NotText):
        try:
            head = read_head(path)
            why = file_reason(path, head, head_reason(head, None))
        except OSError:
            why = None
    if why is None:
        if isinstance(error, PermissionError):
            why = "permission denied"
        elif isinstance(error, OSError):
            why = error.strerror or str(error)
        else:
            why = _one_line(getattr(error, "reason", "") or str(error))
    try:
        st = path.stat()
    except OSError:
        return None
    return SessionInfo(
        str(path), None, UNREADABLE, st.st_mtime, st.st_size, "", "mtime", unreadable=why
    )


def list_sessions(
    folder: str | Path, limit: int = MAX_FILES, confine: str | Path | None = None
) -> list[SessionInfo]:
    """The sessions in `folder` (and its subfolders), newest first by the last time
    inside each (`file_session`): the `limit` most recently modified files are looked
    at. A file chunkscope cannot read at all is listed to say why
    (`unreadable_session`); a file that holds several sessions lists each. Given
    `confine` (what a server shows), a file outside it once its symlinks are resolved
    (`engine.paths.inside`) is neither read nor listed."""
    base = Path(folder)
    if not base.is_dir():
        raise SourceError(base, "not a folder")
    out: list[SessionInfo] = []
    for path in _candidates(base, confine)[:limit]:
        try:
            name = sniff(path)
            reader = READERS[name]
            if reader.sessions is not None:
                out.extend(reader.sessions(path))
            else:
                out.append(file_session(path, name))
        except (OSError, ChunkscopeError) as e:
            found = unreadable_session(path, e)
            if found is not None:
                out.append(found)
    out.sort(key=lambda s: (s.modified, s.path), reverse=True)
    return out


def is_session(info: SessionInfo) -> bool:
    """Whether a listed file is a session log: a markdown document is none, whatever
    its time (the one rule of `latest` and the pickers); a file that cannot be read is
    one unless its name says markdown."""
    reader = READERS.get(info.format)
    if reader is None:
        name = Path(info.path).name.lower().removesuffix(".gz")
        return not name.endswith(tuple(MARKDOWN_SUFFIXES)) or ".aider.chat.history" in name
    return reader.kind != "markdown"


def nothing_to_read(info: SessionInfo, *, whole: bool = False) -> str | None:
    """Why a listed session has nothing to read (its file empty, blank, unreadable, or
    read to no turns with text), None when it has: a session with a first user message
    has one; another is read to know (`engine.read.parse.load`, its messages not kept).
    The reason's first clause, as a listing says it; with `whole`, all of it (what a
    picker says when such a row is chosen)."""
    if info.unreadable:
        if whole:  # with its advice, in parentheses (walk 28, F5: a bzip2 file's)
            from chunkscope.engine.read.source import check_text

            try:
                check_text(info.path)
            except SourceError as e:
                return " ".join(e.reason.split())
        return info.unreadable
    if info.title:
        return None
    from chunkscope.engine.read.parse import load  # parse imports the readers: not at the top
    from chunkscope.engine.read.source import NOTHING_TO_READ, require_turns

    if info.size == 0:
        return "empty"
    try:
        source = load(info.path, keep_messages=False, session=info.index)
        require_turns(source)
        if not any(t.text.strip() for t in source.turns):
            return "nothing to read"  # turns of no text (the seed's empty messages)
    except SourceError as e:
        if e.reason == NOTHING_TO_READ:
            return "nothing to read"
        return " ".join(e.reason.split()) if whole else _one_line(e.reason)
    except (OSError, ChunkscopeError) as e:
        return " ".join(str(e).split())
    return None


#: A document this small is read to see whether it is blank (a bigger one has words).
_BLANK_BYTES = 4096


def _blank(info: SessionInfo) -> str | None:
    """``empty`` or ``blank`` when a listed document has no text to read, else None."""
    if info.size == 0:
        return "empty"
    if info.size > _BLANK_BYTES:
        return None
    try:
        return "blank" if not Path(info.path).read_bytes().strip() else None
    except OSError:
        return None


def set_apart(
    listed: Iterable[SessionInfo],
) -> tuple[list[SessionInfo], list[SessionInfo], list[tuple[SessionInfo, str]]]:
    """A folder's listing (`list_sessions`) as a picker shows it, by the rule `latest`
    follows: the session logs with something to read, the markdown documents
    (`is_session`), and the session logs with nothing to read, each with why
    (`nothing_to_read`), every part newest first; a file that cannot be read at all
    (a binary one, markdown by its name or not) is with the last."""
    sessions: list[SessionInfo] = []
    docs: list[SessionInfo] = []
    unread: list[tuple[SessionInfo, str]] = []
    for info in listed:
        if info.unreadable:
            unread.append((info, info.unreadable))
        elif not is_session(info):
            if (why := _blank(info)) is not None:  # walk 28, F5: an empty one was offered
                unread.append((info, why))
            else:
                docs.append(info)
        elif (why := nothing_to_read(info)) is not None:
            unread.append((info, why))
        else:
            sessions.append(info)
    return sessions, docs, unread


def newest_readable(folder: str | Path) -> tuple[SessionInfo, list[tuple[SessionInfo, str]]]:
    """The newest session log of `folder` that has something to read (by the last
    timestamp inside each file, its modification time when it has none; a markdown
    document is no session, `is_session`), and the newer ones passed over, each with
    why (`nothing_to_read`). `SourceError` when it has none."""
    skipped: list[tuple[SessionInfo, str]] = []
    for info in list_sessions(folder):
        if not is_session(info):
            continue
        why = nothing_to_read(info)
        if why is None:
            return info, skipped
        skipped.append((info, why))
    what = "no session logs chunkscope can read in this folder"
    if skipped:  # each named with why, as `--latest` names those it passes over
        said = files_named([(s.path, why) for s, why in skipped])
        what += f" ({counted(len(skipped), 'files')} with nothing to read: {said})"
    raise SourceError(Path(folder), what)


def latest(folder: str | Path) -> SessionInfo:
    """The newest session log of `folder` that has something to read (`newest_readable`)."""
    return newest_readable(folder)[0]


def sessions_in(path: str | Path, input_format: str | None = None) -> list[SessionInfo]:
    """The sessions a file holds, newest first (one for most formats)."""
    p = Path(path)
    name = format_named(input_format) if input_format else sniff(p)
    reader = READERS[name]
    if reader.sessions is not None:
        return reader.sessions(p)
    return [file_session(p, name)]
