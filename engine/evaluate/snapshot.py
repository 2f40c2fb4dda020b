"""Cut snapshots: pin where a run's chunks start, and say which cuts moved.

``chunk --snapshot CUTS.json`` writes the cut positions of a run; ``--check CUTS.json``
runs again and compares (a golden test of a pipeline, for someone's CI). A cut is the
start of every chunk after the first, as the 1-based source line its first turn comes
from and its character offset in the run's chunk text (the sum of the chunks' sizes
before it): the line says where a reader looks, the offset tells apart two cuts on one
line (a long message split at its blank lines).

A merged run has two levels, and a snapshot pins both: ``cuts``, where every merged
chunk starts, and ``topics``, where every topic starts (the topic segmenter's first
level; the size cap splits a topic into merged chunks, so a cap change moves ``cuts``
and leaves ``topics``; in the seed loop both are the same). The file is JSON, written
atomically::

    {"version": 1, "source": "session.jsonl", "merge": "topic", "embedder": "lexical",
     "chunks": 9, "cuts": [{"line": 40, "char": 5123}, ...],
     "topics": [{"line": 40, "char": 5123}, ...]}

Only ``cuts`` and ``topics`` (when the snapshot has them) are compared; the rest says
what produced it. A missing, unreadable or
malformed snapshot is one `SnapshotError`: ``path:line: reason``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.fileio import atomic_write_text
from chunkscope.engine.model import Chunk
from chunkscope.engine.read.source import located, read_side_file, side_file_text

VERSION = 1

__all__ = [
    "Cut",
    "SnapshotError",
    "cuts_of",
    "moved",
    "read_levels",
    "read_snapshot",
    "write_snapshot",
]


class SnapshotError(ChunkscopeError):
    """A snapshot file that cannot be used: ``path:line: reason``."""


@dataclass(frozen=True, order=True)
class Cut:
    """Where a chunk after the first starts."""

    line: int
    char: int

    def __str__(self) -> str:
        return f"line {self.line} (char {self.char:,})"


def cuts_of(chunks: Sequence[Chunk]) -> list[Cut]:
    """The cuts between `chunks`, in order."""
    out: list[Cut] = []
    offset = 0
    for i, chunk in enumerate(chunks):
        if i:
            lines = chunk.lines
            out.append(Cut(lines[0] if lines is not None else 0, offset))
        offset += chunk.chars + 1  # its lines and the newline that ends the last
    return out


def write_snapshot(
    path: str | Path,
    cuts: Sequence[Cut],
    about: Mapping[str, Any],
    topics: Sequence[Cut] | None = None,
) -> Path:
    """Write `cuts` and the `topics` starts (with `about`: source, merge, embedder,
    chunks) to `path` atomically."""
    doc: dict[str, Any] = {
        "version": VERSION,
        **about,
        "cuts": [{"line": c.line, "char": c.char} for c in cuts],
    }
    if topics is not None:
        doc["topics"] = [{"line": c.line, "char": c.char} for c in topics]
    return atomic_write_text(path, json.dumps(doc, indent=1) + "\n")


def read_snapshot(path: str | Path) -> list[Cut]:
    """The cuts of a snapshot file; `SnapshotError` when it is missing or malformed."""
    return read_levels(path)[0]


def read_levels(path: str | Path) -> tuple[list[Cut], list[Cut] | None]:
    """The cuts and the topic starts of a snapshot file (None: it pins no topics);
    `SnapshotError` when it is missing or malformed."""
    where = str(path)
    try:
        raw = read_side_file(path)
    except FileNotFoundError:
        raise SnapshotError(f"{where}: no such snapshot file") from None
    except IsADirectoryError:
        raise SnapshotError(f"{where}: is a directory, not a snapshot file") from None
    except OSError as e:
        raise SnapshotError(f"{where}: cannot read the snapshot ({e.strerror or e})") from None
    try:
        text = side_file_text(raw, "a snapshot file")  # refused as every input is
    except ValueError as e:
        raise SnapshotError(f"{where}{located(str(e))}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise SnapshotError(f"{where}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cuts"), list):
        raise SnapshotError(f'{where}:1: not a cut snapshot (expected {{"cuts": [...]}})')
    if doc.get("version") != VERSION:
        raise SnapshotError(f"{where}:1: snapshot version {doc.get('version')!r}, not {VERSION}")
    topics = doc.get("topics")
    if topics is not None and not isinstance(topics, list):
        raise SnapshotError(f'{where}:1: "topics" is not a list of cuts')
    return _cuts(where, doc["cuts"], "cuts"), (
        None if topics is None else _cuts(where, topics, "topics")
    )


def _cuts(where: str, items: list[Any], key: str) -> list[Cut]:
    cuts: list[Cut] = []
    for i, item in enumerate(items):
        line = item.get("line") if isinstance(item, dict) else None
        char = item.get("char") if isinstance(item, dict) else None
        if not (_whole(line) and _whole(char)):
            raise SnapshotError(
                f'{where}:1: {key}[{i}] is not {{"line": N, "char": N}} with whole numbers'
            )
        cuts.append(Cut(line, char))
    return cuts


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def moved(pinned: Sequence[Cut], now: Sequence[Cut]) -> tuple[list[Cut], list[Cut]]:
    """The pinned cuts that are gone, and the cuts that are new, each in order."""
    a, b = set(pinned), set(now)
    return sorted(a - b), sorted(b - a)
