"""Where topics start: gold files and the workbench's topic marks.

A gold file lists the 1-based source lines where a segment (a topic) starts, as JSON
``{"starts": [1, 40, 97]}`` or as one number per line (blank lines and ``#`` comments
allowed). The first segment always starts at the first line, so line 1 may be given
or not. Everything wrong with a file is one `GoldError`: ``path:line: reason``.

A gold file lists every topic start unless it says ``"partial": true`` (JSON only):
then its starts are *some* topic starts, and the file claims only that no other topic
starts between its first start after line 1 and its last; it is scored only over that
stretch (`engine.evaluate.measure.score`). A `Gold` holds the starts and that flag.

The workbench keeps the marks a user sets on a file in the user data directory, keyed
by the SHA-256 of the file's content, so renaming or moving the file keeps them; they
are written atomically, with their flag. Marks are partial unless the user says they
are all the topics, so a marks file without the flag is partial.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.read.source import BOM, HEAD_BYTES, binary_reason, read_side_file

__all__ = [
    "Gold",
    "GoldError",
    "content_hash",
    "dumps_gold",
    "load_file_marks",
    "load_marks",
    "marks_path",
    "parse_gold",
    "parse_gold_file",
    "read_gold",
    "read_gold_file",
    "save_marks",
]


class GoldError(ChunkscopeError):
    """A gold (or marks) file that cannot be used: ``path:line: reason``."""


@dataclass(frozen=True)
class Gold:
    """A gold file: its topic starts (sorted, unique, 1-based) and whether they are
    only some of them (`partial`: scored over the stretch they cover)."""

    starts: tuple[int, ...]
    partial: bool = False


def parse_gold(text: str, where: str = "gold", *, lines: int | None = None) -> list[int]:
    """The segment starts of a gold file's `text`: sorted, unique, 1-based.

    `lines` (the source file's line count) bounds them. Unsorted or duplicated
    starts, numbers out of range, anything not a whole number and an empty file are
    errors naming the line (``where`` is the file name to report).
    """
    return list(parse_gold_file(text, where, lines=lines).starts)


def parse_gold_file(
    text: str, where: str = "gold", *, lines: int | None = None, partial: bool = False
) -> Gold:
    """`parse_gold` with the file's ``"partial"`` flag (`partial` when it has none; a
    flag that is not true or false is an error)."""
    stripped = text.lstrip(BOM).strip()
    if not stripped:
        raise GoldError(f"{where}:1: empty gold file (expected segment start lines)")
    numbered: list[tuple[int, str, object]] = []  # (line, what, value)
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise GoldError(f"{where}:{e.lineno}: not valid JSON ({e.msg})") from None
        starts = doc.get("starts") if isinstance(doc, dict) else doc
        if not isinstance(starts, list):
            raise GoldError(f'{where}:1: expected {{"starts": [line, ...]}} or a list of lines')
        if isinstance(doc, dict) and "partial" in doc:
            flag = doc["partial"]
            if not isinstance(flag, bool):
                raise GoldError(f'{where}:1: "partial" is {flag!r}, expected true or false')
            partial = flag
        line_of = _json_line_finder(text)
        numbered = [(line_of(i), f"starts[{i}] ", value) for i, value in enumerate(starts)]
    else:
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if line:
                numbered.append((lineno, "", line))
    if not numbered:
        raise GoldError(f"{where}:1: no segment starts in the gold file")
    out: list[int] = []
    for lineno, what, value in numbered:
        at = f"{where}:{lineno}: {what}"
        number = _whole_number(value)
        if number is None:
            raise GoldError(f"{at}{value!r} is not a line number")
        if number < 1 or (lines is not None and number > lines):
            bound = f"1..{lines}" if lines is not None else ">= 1"
            raise GoldError(f"{at}line {number} is out of range ({bound})")
        if out and number == out[-1]:
            raise GoldError(f"{at}line {number} is listed twice")
        if out and number < out[-1]:
            raise GoldError(f"{at}line {number} comes after {out[-1]} (unsorted)")
        out.append(number)
    if partial and out[-1] <= 1:
        raise GoldError(f"{where}:1: partial gold needs a topic start after line 1")
    return Gold(tuple(out), partial)


def _json_line_finder(text: str) -> Callable[[int], int]:
    """For a JSON gold file: the line of the i-th value of its list (best effort)."""
    import re

    body = text[text.find("[") :] if "[" in text else text
    offset = len(text) - len(body)
    positions = [offset + m.start() for m in re.finditer(r"[^\s,\[\]{}]+", body)]

    def line_of(i: int) -> int:
        if i < len(positions):
            return text.count("\n", 0, positions[i]) + 1
        return 1

    return line_of


def _whole_number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.isdecimal():
            return int(text)
    return None


def read_gold(path: str | Path, *, lines: int | None = None) -> list[int]:
    """`parse_gold` of a file; a file that cannot be read is a `GoldError` too."""
    return list(read_gold_file(path, lines=lines).starts)


def read_gold_file(path: str | Path, *, lines: int | None = None, partial: bool = False) -> Gold:
    """`parse_gold_file` of a file; a file that cannot be read is a `GoldError` too."""
    p = Path(path)
    try:
        raw = read_side_file(p)
    except OSError as e:
        raise GoldError(f"{p}: cannot read: {e.strerror or e}") from None
    reason = binary_reason(raw[:HEAD_BYTES], "a gold file")  # refused as every input is
    if reason is not None:
        raise GoldError(f"{p}: {reason}")
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return parse_gold_file(text, str(p), lines=lines, partial=partial)


def dumps_gold(starts: Iterable[int], partial: bool | None = None) -> str:
    """The JSON gold format of `starts` (sorted, unique), with the ``"partial"`` flag
    when it is given."""
    doc: dict[str, object] = {"starts": sorted(set(starts))}
    if partial is not None:
        doc["partial"] = partial
    return json.dumps(doc) + "\n"


# --------------------------------------------------------------------------- marks


def content_hash(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex), read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def marks_path(source: str | Path, digest: str | None = None) -> Path:
    """Where the marks of `source` are kept (by its content hash)."""
    from chunkscope.engine.paths import data_dir

    return data_dir() / "marks" / f"{digest or content_hash(source)}.json"


def load_marks(source: str | Path, digest: str | None = None) -> list[int]:
    """The topic marks saved for `source` (none: an empty list). A damaged marks file
    is a `GoldError` naming it."""
    return list(load_file_marks(source, digest).starts)


def load_file_marks(source: str | Path, digest: str | None = None) -> Gold:
    """The topic marks saved for `source` with their flag (none: no starts, partial;
    a file without the flag: partial, as marks are until the user says otherwise)."""
    path = marks_path(source, digest)
    if not path.exists():
        return Gold((), partial=True)
    return read_gold_file(path, partial=True)


def save_marks(
    source: str | Path, starts: Sequence[int], digest: str | None = None, *, partial: bool = True
) -> Path:
    """Keep `starts` as the topic marks of `source` (atomically), with their flag; no
    starts removes them."""
    from chunkscope.engine.fileio import atomic_write_text

    path = marks_path(source, digest)
    if not starts:
        path.unlink(missing_ok=True)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, dumps_gold(starts, partial))
