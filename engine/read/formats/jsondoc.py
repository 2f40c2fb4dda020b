"""A session saved as one JSON document: its text, its decoded value, and the line of
any offset (each message keeps the line its object starts on)."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
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
        decoder = json.JSONDecoder()
        wanted = self.value if key is None else self.value.get(key)
        starts = (
            [self.text.index("[")]
            if key is None
            else [m.end() - 1 for m in re.finditer(rf'"{re.escape(key)}"\s*:\s*\[', self.text)]
        )
        for start in starts:
            items = list(_elements(decoder, self.text, start))
            if [v for _, v in items] == wanted:
                yield from ((self.line(offset), v) for offset, v in items)
                return
        yield from ((1, v) for v in wanted)  # not found where expected: line unknown


def _elements(decoder: json.JSONDecoder, text: str, start: int) -> Iterator[tuple[int, Any]]:
    i = start + 1
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            return
        value, end = decoder.raw_decode(text, i)
        yield i, value
        i = end
