"""A session saved as one JSON document: its text, its decoded value, and the line of
any offset. Each message's lines run from the line its object starts on (its ``{``) to
the last line of its text members (`Document.array_spans`)."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Collection, Iterator
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from chunkscope.engine.errors import SourceError
from chunkscope.engine.read.formats.base import ReadOptions
from chunkscope.engine.read.source import (
    NO_PART_ENDS,
    PartEnds,
    Problem,
    _check_regular_file,
    _iter_lines,
    document_error,
)


class Document:
    """A JSON file's text, its decoded value, and the line of any offset."""

    def __init__(self, path: Path, options: ReadOptions) -> None:
        _check_regular_file(path)
        self.warnings: list[Problem] = []
        text = "\n".join(line for _, line in _iter_lines(path, self.warnings, options.progress))
        self.text = text.rstrip("\ufffd")  # NUL padding after the document (a crash)
        padding = len(text) - len(self.text)
        if padding and self.warnings and "NUL byte" in self.warnings[-1].reason:
            # said of the padding, left out, not of one byte "read as U+FFFD" (walk 31)
            self.warnings[-1] = Problem(
                self.warnings[-1].line,
                f"ends in {padding:,} NUL bytes (a write cut short?), left out of the document",
            )
        try:
            self.value = json.loads(self.text)
        except RecursionError:
            raise SourceError(path, "JSON nested too deeply") from None
        except json.JSONDecodeError as e:
            if self.text.lstrip().startswith(("{", "[")):  # a document broken off, said as
                raise document_error(path, e) from None  # when its format is sniffed
            raise SourceError(path, f"line {e.lineno}: not valid JSON ({e.msg})") from None
        self._newlines = [m.start() for m in re.finditer("\n", self.text)]

    def line(self, offset: int) -> int:
        """The 1-based line of a character offset in the document."""
        return bisect.bisect_right(self._newlines, offset - 1) + 1

    def offset(self, line: int) -> int:
        """Where 1-based `line` starts."""
        return 0 if line <= 1 else self._newlines[min(line - 2, len(self._newlines) - 1)] + 1

    def array_items(self, key: str | None) -> Iterator[tuple[int, Any]]:
        """(line, value) of each element of the top-level list, or of the list under
        `key` of the top-level object."""
        for first, _, value in self.array_spans(key):
            yield first, value

    def array_elements(self, key: str | None) -> Iterator[tuple[int | None, int | None, Any]]:
        """(start, end, value) of each element of the top-level list, or of the list
        under `key` of the top-level object; start and end None when it is not found
        where expected."""
        decoder = json.JSONDecoder()
        wanted = self.value if key is None else self.value.get(key)
        starts = (
            [self.text.index("[")]
            if key is None
            else [m.end() - 1 for m in re.finditer(rf'"{re.escape(key)}"\s*:\s*\[', self.text)]
        )
        for start in starts:
            items = list(_elements(decoder, self.text, start))
            if [v for _, _, v in items] == wanted:
                yield from items
                return
        yield from ((None, None, v) for v in wanted)

    def array_spans(
        self, key: str | None, text_keys: Collection[str] = ()
    ) -> Iterator[tuple[int, int, Any]]:
        """(first line, last line, value) of each element of the top-level list, or of
        the list under `key` of the top-level object: from where the element starts (an
        object's ``{``) to its last text (`last_line`); (1, 1) when its line is unknown."""
        for start, end, value in self.array_elements(key):
            if start is None or end is None:
                yield 1, 1, value
            else:
                yield self.line(start), self.last_line(start, end, value, text_keys), value

    def object_end(self, offset: int, text_keys: Collection[str] = ()) -> int:
        """`last_line` of the object starting at `offset` (its ``{``)."""
        value, end = json.JSONDecoder().raw_decode(self.text, offset)
        return self.last_line(offset, end, value, text_keys)

    def last_line(self, start: int, end: int, value: Any, text_keys: Collection[str] = ()) -> int:
        """The last line of the text of `value`, written at ``text[start:end]``: for an
        object with members named in `text_keys` (the members a reader makes text of, at
        any depth), that of the last such member holding text (`has_text`: a member
        that is null or empty is no text), looked into the same way; for a list, that of
        its last element holding text; else that of the value's end. Closing brackets
        after the text are not text."""
        found = self.text_end(start, end, value, text_keys)
        return self.line((found if found is not None else self._strip(start, end)) - 1)

    def text_end(self, start: int, end: int, value: Any, text_keys: Collection[str]) -> int | None:
        """The offset just past the last text character of `value` (at
        ``text[start:end]``), as `last_line` finds it; None when it holds no text."""
        if not has_text(value):
            return None
        if isinstance(value, dict) and text_keys:
            if not any(name in text_keys for name in value):
                return self._strip(start, end)
            spans = [(s, e, v) for n, s, e, v in _members(self.text, start) if n in text_keys]
        elif isinstance(value, list):
            spans = self.element_spans(start)
        else:
            return self._strip(start, end)
        for vstart, vend, member in reversed(spans):
            found = self.text_end(vstart, vend, member, text_keys)  # None: no text in it
            if found is not None:
                return found
        return None

    def part_end(
        self, start: int, value: Any, names: Collection[str], text_keys: Collection[str]
    ) -> int | None:
        """The last line of the text of the members `names` of the object `value`
        starting at `start` (looked into with `text_keys`), None when they hold none."""
        if not isinstance(value, dict) or not any(has_text(value.get(n)) for n in names):
            return None
        spans = [(s, e, v) for n, s, e, v in _members(self.text, start) if n in names]
        for vstart, vend, member in reversed(spans):
            found = self.text_end(vstart, vend, member, text_keys)
            if found is not None:
                return self.line(found - 1)
        return None

    def part_start(self, start: int, names: Collection[str]) -> int | None:
        """The line where the first member named in `names` holding text (`has_text`) of
        the object starting at `start` begins, None when none holds any."""
        for name, vstart, _vend, value in _members(self.text, start):
            if name in names and has_text(value):
                return self.line(vstart)
        return None

    def part_ends(
        self,
        start: int | None,
        value: Any,
        thinking: Collection[str],
        content: Collection[str],
        text_keys: Collection[str],
    ) -> PartEnds:
        """Where a message's reasoning (its members `thinking`) and its content alone (its
        members `content`) end, for the message object `value` starting at `start`
        (`PartEnds`; nothing known when its start is not)."""
        if start is None:
            return NO_PART_ENDS
        return PartEnds(
            self.part_end(start, value, thinking, text_keys),
            self.part_end(start, value, content, text_keys),
        )

    def member_span(self, start: int, name: str) -> tuple[int, int, Any] | None:
        """(start, end, value) of member `name` of the object starting at `start`."""
        for member, vstart, vend, value in _members(self.text, start):
            if member == name:
                return vstart, vend, value
        return None

    def element_spans(self, start: int) -> list[tuple[int, int, Any]]:
        """(start, end, value) of each element of the list starting at `start`."""
        return list(_elements(json.JSONDecoder(), self.text, start))

    def _strip(self, start: int, end: int) -> int:
        """`end` moved back over closing brackets, commas and blanks (not text)."""
        text = self.text
        while end > start + 1 and text[end - 1] in _CLOSING:
            end -= 1
        return end


def has_text(value: Any) -> bool:
    """Whether a JSON value holds any text: a string that is not blank, at any depth."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, dict):
        return any(has_text(v) for v in value.values())
    if isinstance(value, list):
        return any(has_text(v) for v in value)
    return False


def _members(text: str, start: int) -> Iterator[tuple[str, int, int, Any]]:
    """(name, value start, value end, value) of each member of the object at `start`."""
    decoder = json.JSONDecoder()
    i = start + 1
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] != '"':
            return
        name, i = scanstring(text, i + 1)
        while i < n and text[i] in " \t\r\n:":
            i += 1
        value, end = decoder.raw_decode(text, i)
        yield name, i, end, value
        i = end


_CLOSING = frozenset(" \t\n\r]},")


def _elements(decoder: json.JSONDecoder, text: str, start: int) -> Iterator[tuple[int, int, Any]]:
    i = start + 1
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            return
        value, end = decoder.raw_decode(text, i)
        yield i, end, value
        i = end
