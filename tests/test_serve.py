"""`chunkscope serve`: the workbench through textual-serve (an optional extra).

The server is started as a real process on a free 127.0.0.1 port and read over HTTP;
`tests/test_browser.py` drives the page in Chromium. Without textual-serve these tests
are skipped but the one that checks the missing extra's message.
"""

from __future__ import annotations

import base64
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.cli import main
from chunkscope.tui.cli.serve import TOKEN_PARAM

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: The token the servers of these tests are started with (`tui.cli.serve.TOKEN_ENV`).
TOKEN = "test-token-" + __import__("secrets").token_urlsafe(8)


def get(
    url: str, timeout: float = 5.0, host: str | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str]:
    """GET `url`: (status, body); a refusal (403) is returned, not raised."""
    request = urllib.request.Request(
        url, headers={**({"Host": host} if host else {}), **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return int(r.status), r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return int(e.code), e.read().decode("utf-8", "replace")


def with_token(url: str, token: str = TOKEN) -> str:
    return url + ("&" if "?" in url else "?") + f"token={token}"


@contextmanager
def serving(
    *argv: str, env: dict[str, str] | None = None, token: str = TOKEN
) -> Iterator[tuple[str, Path]]:
    """``chunkscope serve ARGV`` on a free port until the page answers: (URL, its log)."""
    port = free_port()
    env = {**(env if env is not None else os.environ), "CHUNKSCOPE_SERVE_TOKEN": token}
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"chunkscope-serve-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "chunkscope.tui.cli", "serve", *argv, "--port", str(port)],
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


def serving_nothing(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    """`serve` in this process with no server: each one run is recorded (host, port, the
    page's title) and said to listen, as aiohttp's `run_app` calls its `print` once every
    socket is bound; nothing is bound."""
    from aiohttp import web
    from textual_serve.server import Server

    served: list[tuple[str, int, str]] = []
    made: list[Server] = []
    init = Server.__init__

    def made_one(self: Server, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    def run_app(app: Any, *, host: str, port: int, print: Any, **_: Any) -> None:
        app.close()  # the application's coroutine, never run
        served.append((host, port, made[-1].title))
        print("listening")

    monkeypatch.setattr(Server, "__init__", made_one)
    monkeypatch.setattr(web, "run_app", run_app)
    return served


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
    served = serving_nothing(monkeypatch)
    assert main(["serve", str(SAMPLE)]) == 0
    assert served[-1] == ("127.0.0.1", 8000, "chunkscope · cache_refactor.jsonl")
    assert "warning" not in capsys.readouterr().err
    assert main(["serve", str(SAMPLE.parent), "--host", "0.0.0.0", "--port", "9001"]) == 0
    assert served[-1] == ("0.0.0.0", 9001, "chunkscope · sample_logs/")
    err = capsys.readouterr().err
    assert err.startswith("chunkscope: warning: listening on 0.0.0.0, not 127.0.0.1: anyone")
    assert f"with its token can open every file in {SAMPLE.parent}" in err


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

    from chunkscope.tui.cli.serve import app_command

    args = argparse.Namespace(file="-odd name.jsonl", theme="chunkscope-light", profile=None)
    argv = shlex.split(app_command(args))
    assert argv[1:] == [
        "-m",
        "chunkscope.tui.cli",
        "tui",
        "--confine",
        os.path.realpath(args.file),
        "--theme",
        "chunkscope-light",
        "--",
        args.file,
    ]


def test_each_tab_keeps_the_tool_calls_as_serve_was_told() -> None:
    """`serve --no-collapse` (or --collapse) starts each tab's workbench so; without
    either, the workbench's own default."""
    import shlex

    from chunkscope.tui.cli import build_parser
    from chunkscope.tui.cli.serve import app_command

    def tab(*flags: str) -> list[str]:
        return shlex.split(app_command(build_parser().parse_args(["serve", "s.jsonl", *flags])))

    assert tab("--no-collapse")[-3:] == ["--no-collapse", "--", "s.jsonl"]
    assert tab("--collapse")[-3:] == ["--collapse", "--", "s.jsonl"]
    assert not {"--collapse", "--no-collapse"} & set(tab())


@needs_serve
def test_the_page_is_titled_and_loads_nothing_from_elsewhere() -> None:
    with serving(str(SAMPLE)) as (url, log):
        status, page = get(with_token(url))
        assert status == 200
        assert "<title>chunkscope · cache_refactor.jsonl</title>" in page
        assert "https://" not in page and "//fonts." not in page
        assert f"url('{url}static/fonts/RobotoMono-VariableFont_wght.ttf')" in page
        status, _ = get(with_token(url + "static/fonts/RobotoMono-VariableFont_wght.ttf"))
        assert status == 200
        # The page names the address the browser used (a server on 0.0.0.0 works remotely).
        port = url.rsplit(":", 1)[1].strip("/")
        _, page = get(with_token(url), host=f"demo.example:{port}")
        assert f'data-session-websocket-url="ws://demo.example:{port}/ws"' in page
        assert f"http://demo.example:{port}/static/js/textual.js" in page
        said = log.read_text()
        assert f"serving the workbench on {SAMPLE}\n" in said
        # the one URL printed is the one that opens (walk 14: the first, without its
        # token, got 403 when clicked)
        (printed,) = re.findall(r"https?://\S+", said)
        assert printed.startswith(f"{url.rstrip('/')}/?{TOKEN_PARAM}=")
        assert "only this machine can reach it" in said


@needs_serve
def test_a_token_set_with_any_characters_opens_the_page_at_the_url_printed() -> None:
    """Walk 18, F2: `a&b#c` was printed as is and the URL got 403 (the browser read
    `&b` as another parameter, `#c` as a fragment): the URL and the cookie encode it."""
    odd = 'a&b#c d+e/f;g"h=ü,i%2Bj'
    with serving(str(SAMPLE), token=odd) as (url, log):
        (printed,) = re.findall(r"https?://\S+", log.read_text())
        assert printed == f"{url}?{TOKEN_PARAM}=" + urllib.parse.quote(odd, safe="")
        with urllib.request.urlopen(printed, timeout=5) as r:
            assert r.status == 200
            cookie = r.headers["Set-Cookie"].split(";", 1)[0]
        # the page's files and its websocket carry the token in that cookie
        assert get(url + "static/js/textual.js", headers={"Cookie": cookie})[0] == 200
        # the token as typed, unencoded, is not the token
        assert get(url + "static/js/textual.js?token=a&b#c")[0] == 403
        assert get(url + "static/js/textual.js", headers={"Cookie": "chunkscope_token=a"})[0] == 403


BLANK = "chunkscope: $CHUNKSCOPE_SERVE_TOKEN is blank: a token is at least 16 characters"


@needs_serve
@pytest.mark.parametrize(
    ("token", "said"),
    [
        (" ", BLANK),
        (" \t\n", BLANK),
        (
            "secret",
            "chunkscope: $CHUNKSCOPE_SERVE_TOKEN is too short to guard the page: 6 characters, "
            "a token is at least 16 (unset it for a random one)",
        ),
        (
            "  fifteen-chars--  ",
            "chunkscope: $CHUNKSCOPE_SERVE_TOKEN is too short to guard the page: 15 characters, "
            "a token is at least 16 (unset it for a random one)",
        ),
    ],
)
def test_a_blank_or_short_token_is_refused_in_one_line(
    token: str,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    served = serving_nothing(monkeypatch)
    monkeypatch.setenv("CHUNKSCOPE_SERVE_TOKEN", token)
    assert main(["serve", str(SAMPLE)]) == 2
    assert capsys.readouterr().err == said + "\n" and not served
    # sixteen characters are enough; an empty variable is no token set: a random one
    for enough in ("sixteen-chars-ok", ""):
        monkeypatch.setenv("CHUNKSCOPE_SERVE_TOKEN", enough)
        assert main(["serve", str(SAMPLE)]) == 0 and served


@needs_serve
def test_a_port_in_use_is_one_line_and_no_url() -> None:
    """Walk 37, F5: with the port taken, `serve` printed its URL (`open
    http://127.0.0.1:PORT/?token=...`, which reached the other server) and three lines
    more before it found out, then `error while attempting to bind on address (...):
    address already in use`. Nothing is said before the bind works: one line, the OS's
    reason, exit 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "chunkscope.tui.cli", "serve", str(SAMPLE), "--port", str(port)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"chunkscope: cannot listen on 127.0.0.1:{port}: address already in use\n"


@needs_serve
def test_every_request_and_the_websocket_need_the_random_token() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CHUNKSCOPE_SERVE_TOKEN"}
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chunkscope.tui.cli", "serve", str(SAMPLE), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        opened = ""
        deadline = time.monotonic() + 30
        while not opened and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if line.startswith("chunkscope: open "):
                opened = line.removeprefix("chunkscope: open ").strip()
        base = f"http://127.0.0.1:{port}"
        assert opened.startswith(f"{base}/?token=")
        token = opened.split("token=", 1)[1]
        assert len(token) >= 24 and token != TOKEN
        while time.monotonic() < deadline:  # the URL is printed as the server starts
            try:
                if get(opened, timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        # Without the token (or with a wrong one): 403, for the page, its files, the socket.
        for path in ("/", "/static/js/textual.js", "/ws", "/download/x", "/?token=" + "x" * 32):
            status, body = get(base + path)
            assert status == 403, (path, status)
            assert "token" in body
        key = base64.b64encode(os.urandom(16)).decode()
        upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13"}
        upgrade["Sec-WebSocket-Key"] = key
        assert get(base + "/ws", headers=upgrade)[0] == 403
        # With it: the page sets a cookie that its files and the socket then carry.
        request = urllib.request.Request(opened)
        with urllib.request.urlopen(request, timeout=5) as r:
            assert r.status == 200
            cookie = r.headers["Set-Cookie"]
            page = r.read().decode()
        assert cookie.startswith(f"chunkscope_token={token};") and "HttpOnly" in cookie
        assert '/ws"' in page  # the page's script adds ?width=..: the cookie carries it
        jar = {"Cookie": f"chunkscope_token={token}"}
        assert get(base + "/static/js/textual.js", headers=jar)[0] == 200
        assert get(base + "/static/js/textual.js?token=" + token)[0] == 200
    finally:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.wait(timeout=10)


def test_within_keeps_every_path_to_the_folder_or_file_served(tmp_path: Path) -> None:
    from chunkscope.engine.errors import SourceError
    from chunkscope.engine.paths import within

    shown = tmp_path / "shown"
    (shown / "sub").mkdir(parents=True)
    inside = shown / "sub" / "a.jsonl"
    inside.write_text("{}\n")
    secret = tmp_path / "secret.jsonl"
    secret.write_text("{}\n")
    (shown / "link.jsonl").symlink_to(secret)
    (shown / "out").symlink_to(tmp_path)
    assert within(inside, shown) == inside.resolve()
    assert within(shown / "sub" / ".." / "sub" / "a.jsonl", shown) == inside.resolve()
    for outside in (
        secret,
        shown / ".." / "secret.jsonl",
        shown / "link.jsonl",
        shown / "out" / "secret.jsonl",
        "/etc/passwd",
        tmp_path / "shownx" / "a.jsonl",
    ):
        with pytest.raises(SourceError, match=r"outside the folder this server shows"):
            within(outside, shown)
    assert within(inside, inside) == inside.resolve()
    with pytest.raises(SourceError, match=r"outside the file this server shows"):
        within(shown / "sub" / "b.jsonl", inside)


async def test_a_served_workbench_opens_nothing_outside_its_folder(tmp_path: Path) -> None:
    from tests.pilot import SIZE, make_app, until

    shown = tmp_path / "shown"
    shown.mkdir()
    log = shown / "session.jsonl"
    log.write_bytes(SAMPLE.read_bytes())
    (shown / "link.jsonl").symlink_to(SAMPLE)
    app = make_app(log, confine=str(shown))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pipe is not None and app.workers_idle())
        for path in (SAMPLE, shown / ".." / SAMPLE.name, shown / "link.jsonl"):
            before = len(app._notifications)
            app.open_path(str(path))
            await pilot.pause()
            errors = [n.message for n in list(app._notifications)[before:]]
            assert len(errors) == 1 and "outside the folder this server shows" in errors[0]
            assert app.pipe is not None and app.pipe.path == str(log)
        # Nothing is written outside it either (an export, the recap, the report).
        from textual.widgets import Input

        # Nor a hidden file, nor over a file that exists (walk 19, 3: served with a file,
        # a tab wrote ./.bashrc and offered to overwrite the file shown).
        written: list[Path] = []
        refusals = {
            tmp_path / "out.md": "outside the folder this server shows",
            shown / ".bashrc": "a served workbench writes no hidden file",
            log: "a served workbench overwrites nothing",
        }
        for target, inside in (*((t, False) for t in refusals), (shown / "out.md", True)):
            app._ask_path("Write to", str(target), lambda p: written.append(p) or "it")
            await pilot.pause()
            app.screen.query_one("#prompt-input", Input).value = str(target)
            await pilot.press("enter")

            def said(target: Path = target) -> str:
                about = [n.message for n in app._notifications if str(target) in n.message]
                return about[-1] if about else ""

            await until(pilot, said)
            message = said()
            if inside:
                assert written == [target] and message == f"Wrote it to {target}."
            else:
                assert not written and refusals[target] in message, message
                assert not (shown / ".bashrc").exists()


def _served_folder_with_links_out(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The reviewer's folder: a log, ``link.md`` to a file outside (a secret first line),
    ``outdir`` to a folder of logs outside. (the folder shown, its log, the secret)"""
    shown = tmp_path / "shown"
    shown.mkdir()
    log = shown / "session.jsonl"
    log.write_bytes(SAMPLE.read_bytes())
    secret = tmp_path / "secret.md"
    secret.write_text("# root:x:0:0:secret first line\n\nnot to be read\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "elsewhere.jsonl").write_bytes(SAMPLE.read_bytes())
    (shown / "link.md").symlink_to(secret)
    (shown / "outdir").symlink_to(other)
    (shown / "inlink.jsonl").symlink_to(log)  # a link that stays inside: kept
    return shown, log, secret


def test_a_confined_listing_reads_nothing_through_a_link_out(tmp_path: Path) -> None:
    from chunkscope.engine.read.formats.folders import list_sessions

    shown, log, _ = _served_folder_with_links_out(tmp_path)
    free = {Path(s.path).name for s in list_sessions(shown)}
    assert {"link.md", "session.jsonl", "inlink.jsonl"} <= free  # unconfined: links followed
    confined = list_sessions(shown, confine=shown)
    assert sorted(Path(s.path).name for s in confined) == ["inlink.jsonl", "session.jsonl"]
    assert all("root:x" not in s.title for s in confined)
    # confined to one file: its siblings are outside too (a link to it is it)
    by_file = sorted(Path(s.path).name for s in list_sessions(shown, confine=log))
    assert by_file == ["inlink.jsonl", "session.jsonl"]


async def test_a_served_picker_lists_and_previews_nothing_outside_its_folder(
    tmp_path: Path,
) -> None:
    """The picker of `serve`'s workbench: no row, tree entry or preview of a file outside
    the folder (symlinks resolved), no sample logs, and a link out typed in the path field
    refused before it is read."""
    from textual.widgets import Input, OptionList

    from chunkscope.tui.screens.open_file import LogTree, OpenFileScreen
    from tests.pilot import SIZE, make_app, until

    shown, log, _ = _served_folder_with_links_out(tmp_path)
    app = make_app(log, confine=str(shown))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pipe is not None and app.workers_idle())
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, OpenFileScreen) and app.screen.listed)
        screen = app.screen
        assert isinstance(screen, OpenFileScreen)
        listed = [Path(s.path).name for s in screen.sessions + screen.documents]
        assert sorted(listed) == ["inlink.jsonl", "session.jsonl"]
        rows = screen.query_one("#sessions", OptionList)
        shown_rows = [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]
        assert not any("root:x" in row for row in shown_rows)
        samples = screen.query_one("#samples", OptionList)
        assert samples.option_count == 1 and samples.get_option_at_index(0).disabled
        tree = screen.query_one(LogTree)
        await until(pilot, lambda: len(tree.root.children) > 0)
        names = sorted(str(node.label) for node in tree.root.children)
        assert names == ["inlink.jsonl", "session.jsonl"]  # no link.md, no outdir to expand
        for typed in (str(shown / "link.md"), "outdir/elsewhere.jsonl", "../secret.md", "outdir"):
            before = len(app._notifications)
            field = screen.query_one("#path", Input)
            field.focus()
            field.value = typed
            await pilot.press("enter")
            await until(pilot, lambda before=before: len(app._notifications) > before)
            said = [n.message for n in list(app._notifications)[before:]]
            assert len(said) == 1 and "outside the folder this server shows" in said[0], said
            assert app.screen is screen  # the picker stays
        # a relative path typed is taken in the folder shown, not in the server's cwd
        field.value = "inlink.jsonl"
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, OpenFileScreen))
        await until(pilot, lambda: app.pipe is not None and app.pipe.path.endswith("inlink.jsonl"))
        assert app.pipe is not None and Path(app.pipe.path) == shown / "inlink.jsonl"


async def test_a_served_workbench_writes_its_default_paths_in_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`chunkscope serve sessions/` started elsewhere: the export's default path (and any
    relative one) is in the folder shown, not in the server's working directory; one
    outside stays refused. Confined to a file: in that file's folder."""
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen
    from tests.pilot import SIZE, make_app, until

    shown, log, _ = _served_folder_with_links_out(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for confine in (shown, log):
        app = make_app(log, confine=str(confine))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda app=app: app.pipe is not None and app.workers_idle())
            for kind, name in (("markdown", "session.merged.md"), ("json", "session.merged.json")):
                target = shown / name
                target.unlink(missing_ok=True)
                app.export(kind)
                await until(
                    pilot,
                    lambda app=app: (
                        isinstance(app.screen, PromptScreen)
                        and bool(app.screen.query("#prompt-input"))
                    ),
                )
                field = app.screen.query_one("#prompt-input", Input)
                assert field.value == f"./{name}"  # the default, as typed
                await pilot.press("enter")
                await until(pilot, lambda t=target: t.exists())
                assert f"to {target}." in [n.message for n in app._notifications][-1]
            app._ask_path("Write to", "../out.md", lambda p: "it")
            await until(
                pilot,
                lambda app=app: (
                    isinstance(app.screen, PromptScreen) and bool(app.screen.query("#prompt-input"))
                ),
            )
            await pilot.press("enter")
            await until(pilot, lambda app=app: "outside" in list(app._notifications)[-1].message)
        assert list(elsewhere.iterdir()) == [] and not (tmp_path / "out.md").exists()


async def test_a_confined_screenshot_is_saved_in_the_served_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The palette's Screenshot saved to ~/Downloads: outside the folder a served
    workbench may write to. Confined (and not in a browser) it is saved in that folder."""
    from tests.pilot import SIZE, make_app, until

    shown, log, _ = _served_folder_with_links_out(tmp_path)
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(home / "Downloads"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    app = make_app(log, confine=str(shown))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pipe is not None and app.workers_idle())
        app.deliver_screenshot("shot.svg")
        await until(pilot, lambda: (shown / "shot.svg").exists())
        # the driver's saving thread tells the app it is done: it must find it running
        # (leaving before, its call into the closed loop raised in that thread)
        await until(pilot, lambda: not any("save_file" in t.name for t in threading.enumerate()))
    assert (shown / "shot.svg").read_text().lstrip().startswith("<svg")
    assert not any((home / "Downloads").iterdir()) and not any(elsewhere.iterdir())
