"""`chunkscope serve`: the workbench through textual-serve (an optional extra).

The server is started as a real process on a free 127.0.0.1 port and read over HTTP;
`tests/test_browser.py` drives the page in Chromium. Without textual-serve these tests
are skipped but the one that checks the missing extra's message.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def get(url: str, timeout: float = 5.0, host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    with urllib.request.urlopen(request, timeout=timeout) as r:
        return int(r.status), r.read().decode("utf-8", "replace")


@contextmanager
def serving(*argv: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, Path]]:
    """``chunkscope serve ARGV`` on a free port until the page answers: (URL, its log)."""
    port = free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"chunkscope-serve-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tui.cli", "serve", *argv, "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
            start_new_session=True,  # its workbench processes end with it
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                get(url, timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(log.read_text()) from None
                time.sleep(0.2)
        yield url, log
    finally:
        with_group = os.getpgid(proc.pid)
        os.killpg(with_group, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            os.killpg(with_group, signal.SIGKILL)
            proc.wait()
        log.unlink(missing_ok=True)


def test_without_the_extra_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    assert main(["serve", str(SAMPLE)]) == 2
    err = capsys.readouterr().err
    assert (
        err == "chunkscope: chunkscope serve needs textual-serve: pip install 'chunkscope[serve]'\n"
    )


needs_serve = pytest.mark.skipif(
    __import__("importlib").util.find_spec("textual_serve") is None,
    reason="textual-serve is not installed (pip install 'chunkscope[serve]')",
)


@needs_serve
def test_the_address_is_said_and_a_public_one_warned_about(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from textual_serve.server import Server

    served: list[tuple[str, int, str]] = []
    monkeypatch.setattr(
        Server, "serve", lambda self: served.append((self.host, self.port, self.title))
    )
    assert main(["serve", str(SAMPLE)]) == 0
    assert served[-1] == ("127.0.0.1", 8000, "chunkscope · cache_refactor.jsonl")
    assert "warning" not in capsys.readouterr().err
    assert main(["serve", str(SAMPLE.parent), "--host", "0.0.0.0", "--port", "9001"]) == 0
    assert served[-1] == ("0.0.0.0", 9001, "chunkscope · sample_logs/")
    err = capsys.readouterr().err
    assert err.startswith("chunkscope: warning: listening on 0.0.0.0, not 127.0.0.1: anyone")
    assert "can open every file the workbench can open" in err


@needs_serve
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{missing}"], "no such file or folder"),
        (["{log}", "--port", "0"], "a port is 1..65535"),
        (["{log}", "--port", "http"], "expected a port number"),
    ],
)
def test_bad_arguments_are_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a.format(log=SAMPLE, missing=tmp_path / "nope.jsonl") for a in argv]
    try:
        code = main(["serve", *args])
    except SystemExit as e:
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@needs_serve
def test_each_tab_runs_the_workbench_on_the_file_with_its_options() -> None:
    import argparse
    import shlex

    from tui.cli.serve import app_command

    args = argparse.Namespace(file="-odd name.jsonl", theme="chunkscope-light", profile=None)
    argv = shlex.split(app_command(args))
    assert argv[1:] == ["-m", "tui.cli", "tui", "--theme", "chunkscope-light", "--", args.file]


@needs_serve
def test_the_page_is_titled_and_loads_nothing_from_elsewhere() -> None:
    with serving(str(SAMPLE)) as (url, log):
        status, page = get(url)
        assert status == 200
        assert "<title>chunkscope · cache_refactor.jsonl</title>" in page
        assert "https://" not in page and "//fonts." not in page
        assert f"url('{url}static/fonts/RobotoMono-VariableFont_wght.ttf')" in page
        status, _ = get(url + "static/fonts/RobotoMono-VariableFont_wght.ttf")
        assert status == 200
        # The page names the address the browser used (a server on 0.0.0.0 works remotely).
        port = url.rsplit(":", 1)[1].strip("/")
        _, page = get(url, host=f"demo.example:{port}")
        assert f'data-session-websocket-url="ws://demo.example:{port}/ws"' in page
        assert f"http://demo.example:{port}/static/js/textual.js" in page
        said = log.read_text()
        assert f"serving the workbench on {SAMPLE} at {url.rstrip('/')}" in said
        assert "only this machine can reach it" in said


@needs_serve
def test_a_port_in_use_is_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", "serve", str(SAMPLE), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.startswith("chunkscope: cannot")]
    assert lines == [f"chunkscope: cannot listen on 127.0.0.1:{port}: address already in use"] or (
        len(lines) == 1 and "in use" in lines[0].lower()
    )
    assert "Traceback" not in done.stderr
