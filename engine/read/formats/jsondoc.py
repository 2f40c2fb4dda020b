"""A session saved as one JSON document: its text, its decoded value, and the line of
any offset. Each message's lines run from the line its object starts on (its ``{``) to
the last line of its text members (`Document.array_spans`)."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from chunkscope.engine.errors import SourceError
from chunkscope.engine.read.formats.base import ReadOptions
from chunkscope.engine.read.source import Problem, _check_regular_file, _iter_lines


class Document:
    """A JSON file's text, its decoded value, and the line of any offset."""

    def __init__(self, path: Path, options: ReadOptions) -> None:
        _check_regular_file(path)
        self.warnings: list[Problem] = []
        self.text = "\n".join(
            line for _, line in _iter_lines(path, self.warnings, options.progress)
        )
        try:
            self.value = json.loads(self.text)
        except RecursionError:
            raise SourceError(path, "JSON nested too deeply") from None
        except json.JSONDecodeError as e:
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

    def array_spans(
        self, key: str | None, text_keys: Collection[str] = ()
    ) -> Iterator[tuple[int, int, Any]]:
        """(first line, last line, value) of each element of the top-level list, or of
        the list under `key` of the top-level object. The first line is where the
        element starts (an object's ``{``); for an object the last line is that of the
        end of its last member named in `text_keys` (what the reader makes text of),
        else of its last member; for any other value, of its end."""
        decoder = json.JSONDecoder()
        wanted = self.value if key is None else self.value.get(key)
        starts = (
            [self.text.index("[")]
            if key is None
            else [m.end() - 1 for m in re.finditer(rf'"{re.escape(key)}"\s*:\s*\[', self.text)]
        )
        for start in starts:
            items = list(_elements(decoder, self.text, start))
            if [v for _, v, _ in items] == wanted:
                for offset, value, ends in items:
                    yield self.line(offset), self._last_line(offset, ends, text_keys), value
                return
        yield from ((1, 1, v) for v in wanted)  # not found where expected: line unknown

    def object_end(self, offset: int, text_keys: Collection[str] = ()) -> int:
        """The last line of the object starting at `offset` (its ``{``): that of the end
        of its last member named in `text_keys`, else of its last member."""
        _, _, ends = _element(json.JSONDecoder(), self.text, offset)
        return self._last_line(offset, ends, text_keys)

    def _last_line(self, start: int, ends: dict[str, int], text_keys: Collection[str]) -> int:
        """The line of the last value character before the end of the last member named
        in `text_keys` (else of the last member): a list's closing brackets are not text."""
        end = max((ends[k] for k in text_keys if k in ends), default=ends[""])
        text = self.text
        while end > start + 1 and text[end - 1] in _CLOSING:
            end -= 1
        return self.line(end - 1)


_BLANKS = frozenset(" \t\n\r")
_CLOSING = frozenset(" \t\n\r]},")


def _skip(text: str, i: int) -> int:
    """`i` moved past any blanks."""
    while text[i] in _BLANKS:
        i += 1
    return i


def _element(decoder: json.JSONDecoder, text: str, i: int) -> tuple[Any, int, dict[str, int]]:
    """The value starting at `i`, where it ends, and for an object where each member's
    value ends (``""``: the last member's end, or the value's end when it has none).
    An object is read member by member (decoding each value once, as `raw_decode`
    would the whole)."""
    if text[i] != "{":
        value, end = decoder.raw_decode(text, i)
        return value, end, {"": end}
    members: dict[str, Any] = {}
    ends: dict[str, int] = {}
    j = _skip(text, i + 1)
    last = j + 1  # an empty object: its ``}``
    if text[j] != "}":
        while True:
            name, j = decoder.raw_decode(text, j)  # the member's name (a string)
            j = _skip(text, _skip(text, j) + 1)  # past the ':'
            members[name], j = decoder.raw_decode(text, j)
            ends[name] = last = j
            j = _skip(text, j)
            if text[j] != ",":
                break
            j = _skip(text, j + 1)
    ends[""] = last
    return members, j + 1, ends


def _elements(
    decoder: json.JSONDecoder, text: str, start: int
) -> Iterator[tuple[int, Any, dict[str, int]]]:
    i = start + 1
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            return
        value, end, ends = _element(decoder, text, i)
        yield i, value, ends
        i = end
