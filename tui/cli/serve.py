"""`chunkscope serve [FILE | DIR]`: the workbench in a browser, through textual-serve.

textual-serve runs one workbench process per browser tab (``python -m tui.cli tui FILE``
with Textual's web driver) and the page draws its terminal. It is an optional extra
(``pip install 'chunkscope[serve]'``); without it the command says so in one line.

The server binds 127.0.0.1 unless told otherwise: the workbench can open any file its
user can read (the file picker, Ctrl+O), so anyone who reaches the page can too. A
non-loopback ``--host`` says that before serving. The page is served as textual-serve
writes it with two changes: a ``<title>`` naming the file, and the Roboto Mono font
from textual-serve's own static files instead of a font service on the internet, so
the page makes no request beyond the server it came from. Its URLs name the address
the browser used (unless ``--public-url`` says otherwise), so a server listening on
0.0.0.0 works from another machine.
"""

from __future__ import annotations

import argparse
import html
import ipaddress
import shlex
import sys
from pathlib import Path
from typing import Any

from tui.cli.common import CliError, add_profile_option, note

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: What the page's ``<link>`` to a font service is replaced with: the same font, from
#: the server's static files (``{static}`` is their URL).
_LOCAL_FONT = (
    "<style>@font-face {{ font-family: 'Roboto Mono'; "
    "src: url('{static}fonts/RobotoMono-VariableFont_wght.ttf') format('truetype'); }}</style>"
)
MISSING = "chunkscope serve needs textual-serve: pip install 'chunkscope[serve]'"


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
            "--host says otherwise; anyone who can reach the page can open the files the "
            "workbench can open."
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
    p.add_argument("--theme", default=None, metavar="NAME", help="theme to start with")
    add_profile_option(p)
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


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each browser tab."""
    argv = [sys.executable, "-m", "tui.cli", "tui"]
    for flag, value in (("--theme", args.theme), ("--profile", args.profile)):
        if value:
            argv += [flag, value]
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


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from aiohttp import web
        from textual_serve.server import Server
    except ImportError:
        raise CliError(MISSING) from None
    if args.file is not None and not Path(args.file).exists():
        raise CliError(f"{args.file}: no such file or folder")
    if args.file is not None and not Path(args.file).is_dir():
        from engine.source import check_text

        check_text(args.file)  # a binary file: one line and exit 2, nothing served
    url = args.public_url or _url(args.host, args.port)
    title = page_title(args.file)
    if is_loopback(args.host):
        reach = f"{args.host}: only this machine can reach it (--host to change)"
    else:
        reach = f"{args.host}: reachable from other machines"
        note(
            f"warning: listening on {args.host}, not 127.0.0.1: anyone who reaches {url} can "
            "open every file the workbench can open (the file picker reads any file you can)"
        )

    class WorkbenchServer(Server):
        """textual-serve's server, with the page's title and a local font."""

        async def on_startup(self, app: web.Application) -> None:
            what = args.file if args.file is not None else "the file picker"
            note(f"serving the workbench on {what} at {url}")
            note(f"listening on {reach}; Ctrl+C stops")

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if not args.public_url:
                # The page's URLs (its scripts, the websocket) name the address the browser
                # used, not the one listened on: 0.0.0.0 is no address to connect to.
                self.public_url = f"{request.scheme}://{request.host}"
            response = await super().handle_index(request)
            if isinstance(response, web.Response) and response.text is not None:
                static = str(self.public_url).rstrip("/") + "/static/"
                response.text = with_title(response.text, title, static)
            return response

    server = WorkbenchServer(app_command(args), host=args.host, port=args.port, title=title)
    server.public_url = url
    try:
        server.serve()
    except OSError as e:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    return 0
