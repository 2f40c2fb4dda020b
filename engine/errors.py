"""Errors the engine raises. Each renders as one readable line."""

from __future__ import annotations

from pathlib import Path


class ChunkscopeError(Exception):
    """Base class: an error a user can act on, shown as one line without a traceback."""


class SourceError(ChunkscopeError):
    """The input file cannot be read at all (missing, a directory, unreadable, not a file)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class NotText(SourceError):
    """The input is not text (a program, an image, random bytes): no reader reads it."""


class ParseError(ChunkscopeError):
    """One line of the input is malformed: ``path:line: reason``."""

    def __init__(self, path: str | Path, line: int, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path}:{line}: {reason}")


class BackendError(ChunkscopeError):
    """A remote backend failed: ``endpoint`` says where, ``reason`` what went wrong.

    ``str(e)`` is one line, e.g. ``http://127.0.0.1:8000/v1: HTTP 500 after 3 retries``.
    """

    def __init__(self, endpoint: str, reason: str) -> None:
        self.endpoint = endpoint
        self.reason = reason
        super().__init__(f"{endpoint}: {reason}" if endpoint else reason)
