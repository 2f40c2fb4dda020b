"""What a crash leaves behind: one line on the terminal and a full report in a file.

An unexpected exception (a bug, not bad input: bad input is a `ChunkscopeError` and one
readable line) ends the command with `EXIT_CRASH`, a line naming the error and the path
of a report holding the traceback, the version and the command line. The report is
written atomically in ``<data dir>/crashes/``; if even that fails, the line says so.
"""

from __future__ import annotations

import os
import platform
import sys
import time
import traceback
from pathlib import Path

#: The exit status of a crash (2 is a usage or input error, 0 success).
EXIT_CRASH = 70  # EX_SOFTWARE in sysexits.h: an internal software error

CRASH_FOLDER = "crashes"


def _cause(error: BaseException) -> BaseException:
    """The exception a wrapper carries (a failed worker's), else `error`."""
    inner = getattr(error, "error", None)
    return inner if isinstance(inner, BaseException) else error


def crash_line(error: BaseException) -> str:
    """``MarkupError: auto closing tag ...``: the error's type and first line."""
    from chunkscope.engine.textutil import strip_control

    error = _cause(error)
    message = " ".join(strip_control(str(error)).split())
    name = type(error).__name__
    return f"{name}: {message[:200]}" if message else name


def write_report(error: BaseException) -> Path | None:
    """Write the full report of `error`; its path, or None when it could not be written."""
    from chunkscope.engine import __version__
    from chunkscope.engine.fileio import atomic_write_text
    from chunkscope.engine.paths import data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        cwd = os.getcwd()
    except OSError as e:  # the folder was removed: the report still gets written
        cwd = f"unknown ({e.strerror or e})"
    lines = [
        f"chunkscope {__version__} crash report, {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
        f"python {platform.python_version()} on {platform.platform()}",
        "command: " + " ".join(sys.argv),
        f"cwd: {cwd}",
        "",
        *traceback.format_exception(type(error), error, error.__traceback__),
    ]
    if _cause(error) is not error:
        inner = _cause(error)
        lines += ["", "raised in the worker:", *traceback.format_exception(inner)]
    try:
        folder = data_dir() / CRASH_FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{stamp}-{os.getpid()}.txt"
        atomic_write_text(path, "\n".join(line.rstrip("\n") for line in lines) + "\n")
    except OSError:
        return None
    return path


def crash_message(error: BaseException, report: Path | None) -> str:
    """The one line shown on the terminal."""
    where = f"full report: {report}" if report is not None else "no report could be written"
    return f"internal error, {crash_line(error)} ({where})"
