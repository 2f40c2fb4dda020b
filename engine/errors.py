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
    ``offline`` is the command line's way round it, when there is one (``--summarizer
    extractive`` for a missing key): ``str(e)`` ends ``or use OFFLINE``, and `said`
    leaves it out for a front end with a way of its own (the workbench's palette: walk
    58 left the flag in its notification).
    """

    def __init__(self, endpoint: str, reason: str, offline: str = "") -> None:
        self.endpoint = endpoint
        self.reason = reason
        self.offline = offline
        super().__init__(self.said(f"{reason} or use {offline}" if offline else reason))

    def said(self, reason: str | None = None) -> str:
        """The error's line with `reason` (the reason without the offline way: None)."""
        reason = self.reason if reason is None else reason
        return f"{self.endpoint}: {reason}" if self.endpoint else reason


class ModelMissing(ChunkscopeError, ValueError):
    """A backend that needs a model was asked for without one (the llm summarizer).

    The advice is kept in parts so that each front end names its own way to set the
    model (walk 58, F2: the workbench told the user to pass a flag it does not take):
    `flag`, the command line's option; `setting`, the config file's key, which every
    front end reads. ``str(e)`` is the command line's advice, the file found by
    ``chunkscope profile path``; the workbench gives the file's path (`advice`).
    """

    def __init__(self, backend: str, section: str, flag: str) -> None:
        self.backend = backend
        self.section = section
        self.flag = flag
        super().__init__(self.advice(flag, where="chunkscope profile path"))

    @property
    def setting(self) -> str:
        """The config file's key for the model."""
        return f"model under [{self.section}] in the config file"

    def advice(self, *ways: str, where: str) -> str:
        """``BACKEND needs a model: WAY, or model under [SECTION] in the config file
        (WHERE)``: `ways` are the front end's own (its flags), `where` says where the
        file is."""
        return f"{self.backend} needs a model: " + ", or ".join(
            [*ways, f"{self.setting} ({where})"]
        )
