"""`chunkscope serve [FILE | DIR]`: the workbench in a browser, through textual-serve.

textual-serve runs one workbench process per browser tab (``python -m chunkscope.tui.cli tui FILE``
with Textual's web driver) and the page draws its terminal. It is an optional extra
(``pip install 'chunkscope[serve]'``); without it the command says so in one line.

The server binds 127.0.0.1 unless told otherwise, and lets in only requests that carry
its token: a random one printed at start in the URL to open (as notebook servers do),
then kept in a cookie; the websocket carries it too; anything else gets 403. Each
tab's workbench opens nothing outside the file or folder served (``--confine``:
`engine.paths.within`, symlinks and ``..`` resolved). Once it listens (a port in use
says only that, never a URL) it prints the URL; a non-loopback ``--host`` says then that
anyone with the URL can reach it. The page is served as textual-serve
writes it with two changes: a ``<title>`` naming the file, and the Roboto Mono font
from textual-serve's own static files instead of a font service on the internet, so
the page makes no request beyond the server it came from. Its URLs name the address
the browser used (unless ``--public-url`` says otherwise), so a server listening on
0.0.0.0 works from another machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import hmac
import html
import ipaddress
import os
import secrets
import shlex
import signal
import socket
import sys
import urllib.parse
from pathlib import Path
from typing import Any

from chunkscope.engine.textutil import plural
from chunkscope.tui.cli.common import (
    CliError,
    add_collapse_args,
    add_profile_option,
    add_theme_option,
    note,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: What the page's ``<link>`` to a font service is replaced with: the same font, from
#: the server's static files (``{static}`` is their URL).
_LOCAL_FONT = (
    "<style>@font-face {{ font-family: 'Roboto Mono'; "
    "src: url('{static}fonts/RobotoMono-VariableFont_wght.ttf') format('truetype'); }}</style>"
)
MISSING = "chunkscope serve needs textual-serve: pip install 'chunkscope[serve]'"
#: The query parameter and the cookie that carry the server's token.
TOKEN_PARAM = "token"
TOKEN_COOKIE = "chunkscope_token"
#: The environment variable that sets the token instead of a random one (tests, demos).
TOKEN_ENV = "CHUNKSCOPE_SERVE_TOKEN"
#: The fewest characters (not counting spaces) of a token set by `TOKEN_ENV`: the whole
#: guard of the page is that no one guesses it.
MIN_TOKEN = 16


def new_token() -> str:
    """The server's token: ``$CHUNKSCOPE_SERVE_TOKEN``, or 24 random URL-safe bytes (also
    when the variable is empty). A set token that is blank or shorter than `MIN_TOKEN`
    characters (spaces not counted) is refused: `CliError`."""
    given = os.environ.get(TOKEN_ENV)
    if not given:
        return secrets.token_urlsafe(24)
    # Every space counts for nothing, not only those around it: "x x x x x x x x x" is
    # nine characters to guess (walk 50, F6).
    counted = sum(not c.isspace() for c in given)
    if not counted:
        raise CliError(f"${TOKEN_ENV} is blank: a token is at least {MIN_TOKEN} characters")
    if counted < MIN_TOKEN:
        raise CliError(
            f"${TOKEN_ENV} is too short to guard the page: {plural(counted, 'character')}, "
            f"a token is at least {MIN_TOKEN} (unset it for a random one)"
        )
    return given


def quoted(token: str) -> str:
    """`token` as it is written in the URL printed and in the cookie: percent-encoded
    (a random token is unchanged), so that any token opens the page as printed."""
    return urllib.parse.quote(token, safe="")


def carries(token: str, query: str | None, cookie: str | None) -> bool:
    """Whether a request carries `token`: in its query (decoded already) or its cookie
    (`quoted`)."""
    return any(
        given is not None and hmac.compare_digest(given.encode(), token.encode())
        for given in (query, None if cookie is None else urllib.parse.unquote(cookie))
    )


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1..65535, got {n}")
    return n


def add_serve_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="the workbench in a browser (pip install 'chunkscope[serve]')",
        description=(
            "Serve the workbench on FILE (or the file picker at DIR) as a web page: each "
            "browser tab runs its own workbench on this machine. Binds 127.0.0.1 unless "
            "--host says otherwise. The URL printed at start carries a random token "
            f"(${TOKEN_ENV} sets it: {MIN_TOKEN} characters or more); a request without it "
            "gets 403. The workbench opens "
            "nothing outside FILE or DIR (the current folder without one)."
        ),
        examples=(
            "chunkscope serve sample_logs/cache_refactor.jsonl",
            "chunkscope serve sessions/ --port 8080",
            "chunkscope serve session.jsonl --host 0.0.0.0 --public-url https://demo.example.org",
        ),
    )
    p.add_argument(
        "file",
        nargs="?",
        default=None,
        metavar="FILE | DIR",
        help="a log or markdown file, or a folder (the file picker opens there)",
    )
    p.add_argument(
        "--host", default=DEFAULT_HOST, help=f"the address to listen on ({DEFAULT_HOST})"
    )
    p.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"the port to listen on ({DEFAULT_PORT})"
    )
    p.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="the URL browsers reach the server at, when it is behind a proxy",
    )
    add_theme_option(p)
    add_profile_option(p)
    add_collapse_args(p, purpose="recap")
    p.set_defaults(run=cmd_serve)
    return p


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only (``localhost``, 127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _url(host: str, port: int) -> str:
    if ":" in host and not host.startswith("["):  # an IPv6 address
        host = f"[{host}]"
    return f"http://{host}:{port}"


def page_title(file: str | None) -> str:
    """The browser tab's title: the file's name (a folder's with a slash)."""
    if file is None:
        return "chunkscope"
    path = Path(file)
    return f"chunkscope · {path.name or file}{'/' if path.is_dir() else ''}"


def confined_to(file: str | None) -> str:
    """The file or folder every open of a served workbench is kept to: the one given
    (symlinks resolved), or the current folder."""
    return os.path.realpath(file if file is not None else os.getcwd())


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each browser tab: the workbench kept to
    the file or folder served (``--confine``)."""
    argv = [sys.executable, "-m", "chunkscope.tui.cli", "tui", "--confine", confined_to(args.file)]
    for flag, value in (("--theme", args.theme), ("--profile", args.profile)):
        if value:
            argv += [flag, value]
    collapse = getattr(args, "collapse", None)
    if collapse is not None:  # given: each tab's workbench starts so (else its default)
        from chunkscope.engine.recap.collapse import COLLAPSE_FLAG, NO_COLLAPSE_FLAG

        argv.append(COLLAPSE_FLAG if collapse else NO_COLLAPSE_FLAG)
    if args.file is not None:
        argv += ["--", args.file]
    return shlex.join(argv)


def with_title(page: str, title: str, static_url: str) -> str:
    """textual-serve's page with a ``<title>`` and the font from its own static files."""
    font = _LOCAL_FONT.format(static=html.escape(static_url, quote=True))
    head, sep, rest = page.partition("<head>")
    if sep:
        page = f"{head}<head>\n    <title>{html.escape(title)}</title>{rest}"
    start = page.find('<link\n      rel="stylesheet"\n      href="https://fonts.')
    if start < 0:
        start = page.find("https://fonts.")
        start = page.rfind("<link", 0, start) if start >= 0 else -1
    if start >= 0:
        end = page.find(">", start)
        page = page[:start] + font + page[end + 1 :]
    return page


def bind_error(error: OSError) -> str:
    """The OS's reason a bind failed (`address already in use`), not asyncio's wording
    around it (`error while attempting to bind on address ('127.0.0.1', 8000): ...`);
    a host name that does not resolve keeps the resolver's."""
    code = error.errno
    if isinstance(error, socket.gaierror) or code is None or code not in errno.errorcode:
        return error.strerror or str(error)
    reason = os.strerror(code)
    return reason[:1].lower() + reason[1:]


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from aiohttp import web
        from textual_serve.server import Server
    except ImportError:
        raise CliError(MISSING) from None
    if args.file is not None and not Path(args.file).exists():
        raise CliError(f"{args.file}: no such file or folder")
    if args.file is not None and not Path(args.file).is_dir():
        from chunkscope.engine.read.source import check_text

        check_text(args.file)  # a binary file: one line and exit 2, nothing served
    token = new_token()  # a bad $CHUNKSCOPE_SERVE_TOKEN: one line and exit 2
    url = args.public_url or _url(args.host, args.port)
    title = page_title(args.file)

    def listening(*_: object) -> None:
        """Said once the server listens (aiohttp calls it after every bind worked): a
        port taken says only that, never a URL that reaches whatever holds the port."""
        if is_loopback(args.host):
            reach = f"{args.host}: only this machine can reach it (--host to change)"
        else:
            reach = f"{args.host}: reachable from other machines"
            note(
                f"warning: listening on {args.host}, not 127.0.0.1: anyone who reaches {url} "
                f"with its token can open every file in {confined_to(args.file)}"
            )
        what = args.file if args.file is not None else "the file picker"
        note(f"serving the workbench on {what}")  # its one URL, below, has the token
        note(f"listening on {reach}; Ctrl+C stops")
        note(f"every open is kept to {confined_to(args.file)}")
        note(f"open {url.rstrip('/')}/?{TOKEN_PARAM}={quoted(token)}")

    class WorkbenchServer(Server):
        """textual-serve's server, with the page's title and a local font, saying where
        it listens once it does."""

        def serve(self, debug: bool = False) -> None:
            # textual-serve's own, but for `print`: aiohttp calls it once the sockets are
            # bound (its app's on_startup comes before the bind, textual-serve's print
            # says nothing).
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(signal.SIGINT, self.request_exit)
                loop.add_signal_handler(signal.SIGTERM, self.request_exit)
            try:
                web.run_app(
                    self._make_app(),
                    host=self.host,
                    port=self.port,
                    handle_signals=False,
                    loop=loop,
                    print=listening,
                )
            finally:  # its signal handlers go with it, here, in the thread that set them
                if not loop.is_closed():
                    loop.close()
                asyncio.set_event_loop(None)

        async def on_startup(self, app: web.Application) -> None:
            """Nothing: textual-serve's banner names no token, and comes before the bind."""

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()

            @web.middleware
            async def need_token(request: web.Request, handler: Any) -> web.StreamResponse:
                # Every request (the page, its files, the websocket) carries the token:
                # in the URL first, then in the cookie the page sets.
                given = request.query.get(TOKEN_PARAM)
                if not carries(token, given, request.cookies.get(TOKEN_COOKIE)):
                    return web.Response(
                        status=403, text="chunkscope serve: open the URL with its token\n"
                    )
                response: web.StreamResponse = await handler(request)
                if given is not None and not response.prepared:
                    response.set_cookie(
                        TOKEN_COOKIE, quoted(token), httponly=True, samesite="Strict", path="/"
                    )
                return response

            app.middlewares.append(need_token)
            return app

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if not args.public_url:
                # The page's URLs (its scripts, the websocket) name the address the browser
                # used, not the one listened on: 0.0.0.0 is no address to connect to.
                self.public_url = f"{request.scheme}://{request.host}"
            response = await super().handle_index(request)
            if isinstance(response, web.Response) and response.text is not None:
                static = str(self.public_url).rstrip("/") + "/static/"
                # The websocket carries the token in the cookie this page sets, not in its
                # URL: textual-serve's script appends "?width=..&height=.." to that URL.
                response.text = with_title(response.text, title, static)
            return response

    server = WorkbenchServer(app_command(args), host=args.host, port=args.port, title=title)
    server.public_url = url
    try:
        server.serve()
    except OSError as e:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {bind_error(e)}") from None
    return 0
