"""Query files: questions about a file, each with what answers it.

A query file is JSON::

    {"queries": [{"query": "which flag turns the cache off?", "answers": ["--no-cache"]},
                 {"query": "where is the retry loop?", "lines": [120, 134]}]}

A query is answered by a context that holds one of its ``answers`` (exact text) or,
for a ``lines`` query, by a chunk that overlaps those 1-based source lines (first and
last, inclusive). A query may give both; it needs one of them. Everything wrong with
a file is one `QueryError`: ``path:line: reason``, the line of the query at fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.read.source import BOM, located, read_side_file, side_file_text

__all__ = ["Query", "QueryError", "load_judged_queries", "load_queries", "parse_queries"]


class QueryError(ChunkscopeError):
    """A query file that cannot be used: ``path:line: reason``."""


@dataclass(frozen=True)
class Query:
    """One question, with the exact texts that answer it and/or the lines that hold it."""

    query: str
    answers: tuple[str, ...] = ()
    lines: tuple[int, int] | None = None

    @property
    def judged(self) -> bool:
        """Whether the query says what answers it (a typed question does not)."""
        return bool(self.answers) or self.lines is not None

    def as_json(self) -> dict[str, Any]:
        """The query as written in a query file."""
        out: dict[str, Any] = {"query": self.query}
        if self.answers:
            out["answers"] = list(self.answers)
        if self.lines is not None:
            out["lines"] = list(self.lines)
        return out


def _item_lines(text: str, count: int) -> list[int]:
    """The 1-based line where each of the first `count` items of the queries list starts
    (1 for any that cannot be placed): decoded one by one from the list's ``[``."""
    decoder = json.JSONDecoder()
    lines = [1] * count
    key = text.rfind('"queries"')  # the top-level key comes last in any file json.dumps
    pos = text.find("[", key if key >= 0 else 0)
    if pos < 0:
        return lines
    pos += 1
    for n in range(count):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        lines[n] = text.count("\n", 0, pos) + 1
        try:
            _, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
    return lines


def parse_queries(text: str, where: str = "queries") -> list[Query]:
    """The queries of a query file's `text` (``where`` names the file in errors)."""
    stripped = text.lstrip(BOM)
    try:
        doc = json.loads(stripped)
    except json.JSONDecodeError as e:
        raise QueryError(f"{where}:{e.lineno}: not JSON ({e.msg})") from None
    except RecursionError:
        raise QueryError(f"{where}:1: not a query file (JSON nested too deeply)") from None
    if isinstance(doc, list):
        items: Any = doc
    elif isinstance(doc, dict) and "queries" in doc:
        items = doc["queries"]
    else:
        raise QueryError(f'{where}:1: expected {{"queries": [...]}}')
    if not isinstance(items, list):
        raise QueryError(f'{where}:1: "queries" must be a list')
    if not items:
        raise QueryError(f"{where}:1: no queries")
    out: list[Query] = []
    starts = _item_lines(stripped, len(items))
    for n, item in enumerate(items, 1):
        at = f"{where}:{starts[n - 1]}"
        if isinstance(item, str):
            item = {"query": item}
        if not isinstance(item, dict):
            raise QueryError(f"{at}: query {n} must be an object or a string")
        q = item.get("query")
        if not isinstance(q, str) or not q.strip():
            raise QueryError(f'{at}: query {n} has no "query" text')
        answers = item.get("answers", [])
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(answers, list) or not all(
            isinstance(a, str) and a.strip() for a in answers
        ):
            raise QueryError(f'{at}: query {n}: "answers" must be a list of non-empty texts')
        lines = item.get("lines")
        span: tuple[int, int] | None = None
        if lines is not None:
            if (
                not isinstance(lines, list)
                or len(lines) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in lines)
                or lines[0] < 1
                or lines[1] < lines[0]
            ):
                raise QueryError(
                    f'{at}: query {n}: "lines" must be [first, last], 1-based, first <= last'
                )
            span = (lines[0], lines[1])
        out.append(Query(q.strip(), tuple(answers), span))
    return out


def load_queries(path: str | Path) -> list[Query]:
    """The queries of the file at `path` (`QueryError` when it cannot be read or used)."""
    p = Path(path)
    try:
        raw = read_side_file(p)
    except FileNotFoundError:
        raise QueryError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise QueryError(f"{p}: is a directory, not a query file") from None
    except OSError as e:
        raise QueryError(f"{p}: {e.strerror or e}") from None
    try:
        text = side_file_text(raw, "a query file")  # refused as a gold file is
    except ValueError as e:
        raise QueryError(f"{p}{located(str(e))}") from None
    return parse_queries(text, str(p))


def load_judged_queries(path: str | Path) -> list[Query]:
    """The queries of the file at `path` that say what answers them (`QueryError` when
    none does: there would be nothing to score)."""
    judged = [q for q in load_queries(path) if q.judged]
    if not judged:
        raise QueryError(f'{path}:1: no query says what answers it ("answers" or "lines")')
    return judged
