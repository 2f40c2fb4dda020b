"""Running `chunkscope` as a real process: a timeout, a memory bound, its peak memory.

`run_cli(args)` starts ``python -m chunkscope.tui.cli ARGS`` (the same entry point as the
``chunkscope`` console script) with ``RLIMIT_AS`` at `memory_limit` bytes, kills it
after `timeout` seconds, and returns a `Result` whose ``maxrss_kib`` is the child's
own peak resident memory (from ``wait4``), so tests can assert "no hang, bounded
memory". `one_error_line` checks the command line's error contract.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
GIB = 1024**3
#: Every line the command line writes on stderr starts with this.
PREFIX = "chunkscope: "


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: bytes
    stderr: str
    seconds: float
    maxrss_kib: int
    timed_out: bool

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    def describe(self) -> str:
        return (
            f"{' '.join(self.args)} -> exit {self.returncode} in {self.seconds:.2f} s, "
            f"{self.maxrss_kib // 1024} MiB; stderr:\n{self.stderr[-2000:]}"
        )


def _limit(memory_limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))


def run_cli(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
    memory_limit: int = 2 * GIB,
    cwd: str | os.PathLike[str] = ROOT,
) -> Result:
    """Run ``chunkscope ARGS`` in a child process; see the module docstring."""
    argv = [sys.executable, "-m", "chunkscope.tui.cli", *args]
    full_env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=full_env,
            cwd=cwd,
            preexec_fn=lambda: _limit(memory_limit),
        )
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Result(
            list(args),
            proc.returncode,
            out.read(),
            err.read().decode("utf-8", errors="replace"),
            seconds,
            int(usage.ru_maxrss),
            timed_out.is_set(),
        )


def one_error_line(stderr: str) -> str:
    """The single ``chunkscope: ...`` line of a failed command (asserts there is one)."""
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one error line, got {len(lines)}:\n{stderr}"
    line = lines[0]
    assert line.startswith(PREFIX), line
    assert len(line) < 500, line
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", line), repr(line)
    return line


def check_outcome(code: int, stdout: str | bytes, stderr: str, where: str = "") -> None:
    """Exit 0 (lenient) or 2 with exactly one readable error line; never a traceback."""
    assert "Traceback" not in stderr, f"{where}\n{stderr}"
    assert code in (0, 2), f"{where}: exit {code}\n{stderr[-2000:]}"
    for line in stderr.splitlines():
        if line.strip():
            # Progress counters redraw with \r; every real line is ours.
            assert line.lstrip("\r").startswith(PREFIX), f"{where}: {line!r}"
    if code == 2:
        one_error_line(stderr)
        assert not stdout, f"{where}: output despite the error"
