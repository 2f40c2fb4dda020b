"""Folders of sessions: a Claude Code project folder, a Codex sessions folder (nested by
date), or any folder of logs. `list_sessions` lists them newest first with their
date, size, format and first user message, reading only the start of each file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import engine.readers.aider as aider
import engine.readers.claude as claude
import engine.readers.codex as codex
from engine.errors import ChunkscopeError, SourceError
from engine.readers import READERS, SUFFIXES, _head, sniff
from engine.readers.base import SessionInfo, first_text, text_of

#: Files looked at in a folder, at most (newest first).
MAX_FILES = 2000


def _records(head: bytes) -> list[dict[str, Any]]:
    out = []
    for line in head.decode("utf-8", errors="replace").splitlines()[:400]:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _title(path: Path, name: str) -> str:
    head = _head(path)
    if name == claude.NAME:
        return claude.session_title(_records(head))
    if name == codex.NAME:
        return codex.first_user_message(_records(head))
    if name == "seed-jsonl":
        return first_text(
            text_of(r.get("content")) for r in _records(head) if r.get("role") == "user"
        )
    text = head.decode("utf-8", errors="replace")
    if name == aider.NAME:
        return first_text(ln[5:] for ln in text.splitlines() if ln.startswith("#### "))
    if name == "markdown":
        return first_text(ln.lstrip("# ") for ln in text.splitlines())
    return ""


def file_session(path: Path, name: str | None = None) -> SessionInfo:
    """A file as one session: its format, modification time, size and first message."""
    st = path.stat()
    name = name or sniff(path)
    try:
        title = _title(path, name)
    except (OSError, ChunkscopeError):
        title = ""
    return SessionInfo(str(path), None, name, st.st_mtime, st.st_size, title)


#: How deep below the folder sessions are looked for (Codex nests them by date: 3).
MAX_DEPTH = 4


def readable_name(name: str) -> bool:
    """Whether a file name is one chunkscope offers to open (by its ending)."""
    lower = name.lower().removesuffix(".gz")
    return lower.endswith(SUFFIXES) or lower.endswith(".aider.chat.history.md")


def _candidates(folder: Path) -> list[Path]:
    found: list[tuple[float, Path]] = []
    base_depth = len(folder.parts)
    for root, dirs, files in os.walk(folder):
        depth = len(Path(root).parts) - base_depth
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        if depth >= MAX_DEPTH:
            dirs[:] = []
        for f in files:
            if f.startswith(".") and ".aider.chat.history" not in f:
                continue
            if readable_name(f):
                p = Path(root) / f
                try:
                    found.append((p.stat().st_mtime, p))
                except OSError:
                    continue
    found.sort(key=lambda tp: tp[0], reverse=True)
    return [p for _, p in found[:MAX_FILES]]


def list_sessions(folder: str | Path, limit: int = MAX_FILES) -> list[SessionInfo]:
    """The sessions in `folder` (and its subfolders), newest first: the `limit` newest
    files are looked at. Files chunkscope cannot read are left out; a file that holds
    several sessions lists each."""
    base = Path(folder)
    if not base.is_dir():
        raise SourceError(base, "not a folder")
    out: list[SessionInfo] = []
    for path in _candidates(base)[:limit]:
        try:
            name = sniff(path)
            reader = READERS[name]
            if reader.sessions is not None:
                out.extend(reader.sessions(path))
            else:
                out.append(file_session(path, name))
        except (OSError, ChunkscopeError):
            continue
    out.sort(key=lambda s: s.modified, reverse=True)
    return out


def latest(folder: str | Path) -> SessionInfo:
    """The newest session of `folder`; `SourceError` when it has none."""
    sessions = list_sessions(folder)
    if not sessions:
        raise SourceError(Path(folder), "no sessions chunkscope can read in this folder")
    return sessions[0]


def sessions_in(path: str | Path, input_format: str | None = None) -> list[SessionInfo]:
    """The sessions a file holds, newest first (one for most formats)."""
    p = Path(path)
    name = input_format or sniff(p)
    reader = READERS[name]
    if reader.sessions is not None:
        return reader.sessions(p)
    return [file_session(p, name)]
