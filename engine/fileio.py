"""Atomic file writes: a reader sees the old file or the new one, never a torn one."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any


def cannot_write(path: str | os.PathLike[str], error: OSError) -> str:
    """What every command and the workbench say of a file they could not write: ``cannot
    write out/x.md: No such file or directory`` (the reason without Python's errno and
    repeated path)."""
    return f"cannot write {path}: {error.strerror or error}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


def _remove_stale_temps(directory: Path, name: str) -> None:
    """Remove temp files of `name` left by writers that died mid-write (SIGKILL, power
    loss): ``.<name>.<pid>.<random>.tmp`` whose process no longer exists."""
    prefix = f".{name}."
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory):
            if not (entry.startswith(prefix) and entry.endswith(".tmp")):
                continue
            pid_text = entry[len(prefix) :].split(".", 1)[0]
            if not pid_text.isdigit() or int(pid_text) == os.getpid():
                continue
            if not _pid_alive(int(pid_text)):
                with contextlib.suppress(OSError):
                    os.unlink(directory / entry)


def _fill_text(text: str | Iterable[str]) -> Callable[[IO[Any]], None]:
    def fill(fh: IO[Any]) -> None:
        for piece in [text] if isinstance(text, str) else text:
            fh.write(piece)

    return fill


def _open(target: Path | int, binary: bool) -> IO[Any]:
    if binary:
        return open(target, "wb")
    return open(target, "w", encoding="utf-8", newline="")


def atomic_write_text(
    path: str | Path, text: str | Iterable[str], *, mode: int | None = None
) -> Path:
    """Write `text` (a string, or pieces written as they come) to `path` via a temp
    file in the same directory, fsync, then rename.

    On any failure the previous file is untouched and the temp file is removed.
    `mode` sets the new file's permissions (e.g. 0o600 for a config file). The temp
    file's name carries the writer's pid, so temp files of writers that were killed
    mid-write are recognised and removed by the next successful write.

    A symbolic link is followed (the file it points to is replaced, the link stays);
    a target that is not a regular file (``/dev/null``, a FIFO, a terminal) is written
    to directly, never replaced by a file.
    """
    return _replace(path, _fill_text(text), binary=False, mode=mode)


def atomic_write_bytes(path: str | Path, data: bytes, *, mode: int | None = None) -> Path:
    """`atomic_write_text` for bytes."""
    return _replace(path, lambda fh: fh.write(data), binary=True, mode=mode)


def _replace(
    path: str | Path, fill: Callable[[IO[Any]], object], *, binary: bool, mode: int | None
) -> Path:
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        st: os.stat_result | None = target.stat()
    except OSError:
        st = None  # (nothing there yet, or not to be known: the temp file's write says)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # written through, and a failure is the caller's (walk 37, F1: a failed write to
        # a socket, a FIFO whose reader left or /dev/full fell through to the rename,
        # which replaced the special file by a regular one holding the rest, and "wrote")
        with _open(target, binary) as fh:
            fill(fh)
        return target
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=directory
    )
    try:
        with _open(fd, binary) as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    _remove_stale_temps(directory, target.name)
    return target
