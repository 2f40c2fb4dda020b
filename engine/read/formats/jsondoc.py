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
        the list under `key` of the top-level object: from where the element starts (an
        object's ``{``) to its last text (`last_line`)."""
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
                for offset, end, value in items:
                    yield self.line(offset), self.last_line(offset, end, value, text_keys), value
                return
        yield from ((1, 1, v) for v in wanted)  # not found where expected: line unknown

    def object_end(self, offset: int, text_keys: Collection[str] = ()) -> int:
        """`last_line` of the object starting at `offset` (its ``{``)."""
        value, end = json.JSONDecoder().raw_decode(self.text, offset)
        return self.last_line(offset, end, value, text_keys)

    def last_line(self, start: int, end: int, value: Any, text_keys: Collection[str] = ()) -> int:
        """The last line of the text of `value`, written at ``text[start:end]``: for an
        object, that of the end of its last member named in `text_keys` (the members a
        reader makes text of), else of its last member; for any other value, of its
        end. Closing brackets after the text are not text. The member's end is found
        from where the member after it is named (a JSON object keeps its members'
        order), searched from the object's end: never before the true end, and no
        second decoding."""
        text = self.text
        if isinstance(value, dict) and text_keys:
            names = list(value)
            last = max((i for i, name in enumerate(names) if name in text_keys), default=None)
            if last is not None and last + 1 < len(names):
                after = text.rfind(json.dumps(names[last + 1], ensure_ascii=False), start, end)
                if after > start:
                    end = after
        while end > start + 1 and text[end - 1] in _CLOSING:
            end -= 1
        return self.line(end - 1)


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
