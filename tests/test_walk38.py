"""Walk 38's findings: a command whose stdout cannot be written says so in one line
(F1); a wordless tail after a sentence is no part of its summary (F3)."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
LOG = str(ROOT / "sample_logs" / "cache_refactor.jsonl")


class FullStream(io.StringIO):
    """A stdout on a full disk: every write fails as /dev/full's does."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


COMMANDS = [
    ["chunk", LOG],
    ["chunk", LOG, "--format", "json"],
    ["recap", LOG, "-o", "-"],
    ["report", LOG],
    ["search", LOG, "cache"],
    ["completion", "bash"],
    ["cache", "info"],
    ["review", "--list"],
    ["chunk", "--list-strategies"],
    ["chunk", "--list-input-formats"],
    ["--help"],
    ["chunk", "--help"],
    ["-V"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:] or a))
def test_a_full_stdout_is_one_line_and_exit_2(
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """Every command's output to a stdout that cannot take it (a full disk) says so as a
    file's would, `cannot write stdout: ...`, exit 2: it was an internal error with a
    crash report (exit 70), a traceback (the lists, exit 1) or nothing at all (--help,
    exit 0) (walk 38, F1)."""
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHUNKSCOPE_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setattr(sys, "stdout", FullStream())
    try:
        code = main(argv)
    except SystemExit as e:  # (an option that prints and exits, as argparse's do)
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2, err
    assert (
        err.strip().splitlines()[-1] == "chunkscope: cannot write stdout: No space left on device"
    )
    assert not (tmp_path / "data" / "crashes").exists()  # no crash report: no bug


@pytest.mark.skipif(not os.access("/dev/full", os.W_OK), reason="no /dev/full to write to")
def test_dev_full_as_stdout_in_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, "CHUNKSCOPE_DATA_DIR": str(tmp_path / "data")}
    for argv in (["chunk", LOG], ["chunk", "--list-strategies"], ["--help"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "chunkscope.tui.cli", *argv],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                timeout=120,
            )
        assert done.returncode == 2, done.stderr
        assert done.stderr == "chunkscope: cannot write stdout: No space left on device\n"


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """A reader that leaves (`| head -1`) is no error: exit 0, nothing on stderr."""
    env = {**os.environ, "CHUNKSCOPE_DATA_DIR": str(tmp_path / "data")}
    cmd = [sys.executable, "-m", "chunkscope.tui.cli", "chunk", LOG]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read()
        assert p.wait(timeout=120) == 0
    assert b"Traceback" not in err and b"error" not in err.lower()


def test_a_wordless_tail_after_the_last_stop_is_no_part_of_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Tidy now. 🎉`` is summed up as ``Tidy now.``: the emoji was kept and given a
    period (``now. 🎉.``) in the recap and the summary panel (walk 38, F3); a tail with
    words or a closing mark stays."""
    from chunkscope.engine.summarize.extractive import sentences_of
    from tests.logs import seed_log

    assert sentences_of("All done, the loader is tidy now. 🎉") == [
        "All done, the loader is tidy now."
    ]
    assert sentences_of("Shipped! 🚀🎉 ✅") == ["Shipped!"]
    for kept in ("Done. ✓ 12/12", "It works :)", "**Ok. **"):
        assert sentences_of(kept) == [kept]
    log = seed_log(
        tmp_path,
        [
            ("user", "Please tidy the config loader and its tests today."),
            ("assistant", "All done, the loader is tidy now. 🎉"),
            ("user", "Great, now check the docs build too."),
            ("assistant", "The docs build passes. ✅ 🚀"),
        ],
        "emo.jsonl",
    )
    assert main(["recap", str(log)]) == 0
    out = capsys.readouterr().out
    assert "tidy now." in out and "🎉." not in out and "tidy now. 🎉" not in out


@pytest.mark.parametrize(
    "head",
    [
        b"x\x00",
        b"x\x00\x00",
        b"x\x00y",
        b"\x00x\x00",
        b"xy\x00",
        b"x\x00y\x00",
        b"a\x00\x00\x00b\x00\x00\x00",
    ],
)
def test_an_encoding_is_named_only_when_the_bytes_are_one(head: bytes) -> None:
    """Walk 39, F3: two or three bytes with a NUL were called UTF-32LE text, and the
    `iconv` the message gave failed on them (two bytes are no UTF-32 character). An
    encoding named is one the bytes decode in; anything else is a binary file."""
    import re

    from chunkscope.engine.read.source import binary_reason

    said = binary_reason(head)
    assert said is not None
    m = re.search(r"looks like (UTF-\d+[LB]E) text", said)
    if m is None:
        assert said.startswith("looks like a binary file")
    else:
        head.decode(m.group(1).lower().replace("utf-", "utf_"))  # (strict: raises if not)
