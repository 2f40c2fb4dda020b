"""`chunkscope hook ...`: the recap injected into Claude Code through its hooks.

- ``hook session-end`` / ``hook pre-compact`` read the hook's JSON on stdin
  (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``reason`` or
  ``trigger``) and store the recap of the transcript for the project
  (`engine.inject`), in the data directory; ``--output`` also writes it to a file.
  session-end hands the work to a background process and returns at once (Claude Code
  may end a SessionEnd hook still running when it exits); ``--wait`` does it in place.
- ``hook session-start`` prints what goes into the new session's context: the stored
  recap of the project's previous session (or one built now from the newest other
  transcript when none was stored), as ``hookSpecificOutput.additionalContext`` JSON
  (``--plain``: the text). It reads two small files in the common case.
- ``hook install`` / ``hook uninstall`` merge our hooks into Claude Code's settings
  (`engine.claude_hooks`).

A hook never blocks or pollutes the agent: whatever goes wrong (bad stdin, a missing
transcript, any error), it exits 0 with nothing on stdout and one line on stderr,
also appended to the log in the data directory. Everything here is imported lazily:
`tui.cli.main` sends ``hook`` here before the other subcommands are imported.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tui.cli.common import EXIT_USAGE, CliError, Parser, note

#: The most stdin a hook reads (Claude Code's payload is a few hundred bytes).
MAX_STDIN = 1 << 20
#: Seconds a hook waits for its stdin before giving up (never block the agent).
STDIN_TIMEOUT = 10.0

_RECORDING = ("session-end", "pre-compact")

#: The examples ending each ``hook`` command's --help (Claude Code writes the JSON on stdin).
EXAMPLES = {
    "hook": (
        "chunkscope hook install",
        "chunkscope hook install --project --print",
        "chunkscope hook uninstall",
    ),
    "session-end": (
        "chunkscope hook session-end < payload.json",
        "chunkscope hook session-end --wait --budget 800 < payload.json",
    ),
    "pre-compact": (
        "chunkscope hook pre-compact < payload.json",
        "chunkscope hook pre-compact --profile tight -o _recap.md < payload.json",
    ),
    "session-start": (
        "chunkscope hook session-start < payload.json",
        "chunkscope hook session-start --plain < payload.json",
    ),
    "install": (
        "chunkscope hook install",
        "chunkscope hook install --project",
        "chunkscope hook install --settings ./settings.json --print",
    ),
    "uninstall": ("chunkscope hook uninstall", "chunkscope hook uninstall --project --print"),
}


class HookInputError(Exception):
    """The hook's stdin is not the JSON object Claude Code sends."""


def _add_commands(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="hook_command", metavar="HOOK", parser_class=Parser)
    for name, what in (
        ("session-end", "store the recap of the session that ended (Claude Code's SessionEnd)"),
        ("pre-compact", "store the recap before the context is compacted (PreCompact)"),
    ):
        q = sub.add_parser(
            name,
            help=what,
            description=what + "; reads the hook's JSON on stdin",
            examples=EXAMPLES[name],
        )
        q.add_argument("--budget", type=int, default=None, metavar="N", help="token budget")
        q.add_argument(
            "--profile", default=None, metavar="NAME", help="a saved profile's parameters"
        )
        q.add_argument(
            "-o",
            "--output",
            default=None,
            metavar="OUT",
            help="also write the recap to OUT (relative to the session's folder)",
        )
        if name == "session-end":
            q.add_argument(
                "--wait",
                action="store_true",
                help="build the recap before returning (default: in a background process, "
                "since Claude Code may end a SessionEnd hook that outlives the session)",
            )
        q.set_defaults(hook_run=_run_record)
    start = sub.add_parser(
        "session-start",
        help="print the recap to inject into a new session (Claude Code's SessionStart)",
        description="Print the stored recap of the project's previous session as Claude "
        "Code's hookSpecificOutput.additionalContext JSON; reads the hook's JSON on stdin.",
        examples=EXAMPLES["session-start"],
    )
    start.add_argument("--plain", action="store_true", help="print the text, not JSON")
    start.add_argument("--budget", type=int, default=None, metavar="N", help=argparse.SUPPRESS)
    start.add_argument("--profile", default=None, metavar="NAME", help=argparse.SUPPRESS)
    start.set_defaults(hook_run=_run_start)
    for name, what in (
        ("install", "add chunkscope's hooks to Claude Code's settings.json"),
        ("uninstall", "remove chunkscope's hooks from Claude Code's settings.json"),
    ):
        q = sub.add_parser(
            name,
            help=what,
            description=what + " (every other key is kept)",
            examples=EXAMPLES[name],
        )
        where = q.add_mutually_exclusive_group()
        where.add_argument(
            "--user",
            dest="scope",
            action="store_const",
            const="user",
            help="~/.claude/settings.json: every project (the default)",
        )
        where.add_argument(
            "--project",
            dest="scope",
            action="store_const",
            const="project",
            help="./.claude/settings.json: this project only",
        )
        q.add_argument(
            "--settings", default=None, metavar="PATH", help="this settings file instead"
        )
        q.add_argument(
            "--print", action="store_true", help="print the new settings instead of writing"
        )
        q.set_defaults(scope="user", hook_run=_run_install if name == "install" else _run_uninstall)


def add_hook_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``hook`` to the main parser's subcommands (for ``chunkscope --help``)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "hook",
        help="hooks: store a session's recap, inject it at the next start",
        description=(
            "Claude Code hooks. `chunkscope hook install` adds them to settings.json; "
            "session-end and pre-compact store the session's recap in chunkscope's data "
            "directory; session-start prints it for the next session."
        ),
        examples=EXAMPLES["hook"],
    )
    _add_commands(p)
    p.set_defaults(run=cmd_hook)
    return p


def hook_parser() -> argparse.ArgumentParser:
    """The parser of ``chunkscope hook ...`` alone (without the other subcommands)."""
    p = Parser(
        prog="chunkscope hook",
        description="Claude Code hooks for chunkscope's recap",
        examples=EXAMPLES["hook"],
    )
    _add_commands(p)
    return p


def cmd_hook(args: argparse.Namespace) -> int:
    run = getattr(args, "hook_run", None)
    if run is None:
        note("hook: give one of session-start, session-end, pre-compact, install, uninstall")
        return EXIT_USAGE
    result: int = run(args)
    return result


# --------------------------------------------------------------------------- the hooks


def _fail(what: str, error: BaseException | str) -> int:
    """One line on stderr and in the log; exit 0 (a hook never fails the agent)."""
    from engine.inject import log_line
    from engine.textutil import strip_control

    text = error if isinstance(error, str) else (str(error) or type(error).__name__)
    line = " ".join(strip_control(f"hook {what}: {text}").split())
    log_line(line)
    with contextlib.suppress(Exception):
        print(f"chunkscope: {line}", file=sys.stderr, flush=True)
    return 0


def _read_stdin() -> dict[str, Any]:
    stream = sys.stdin
    if stream is None or stream.closed:
        raise HookInputError("no stdin")
    with contextlib.suppress(Exception):
        if stream.isatty():
            raise HookInputError("expects the hook's JSON on stdin (it is a terminal)")
    raw = _read_limited(stream)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise HookInputError(f"stdin is not JSON ({len(raw)} bytes)") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin is not a JSON object")
    return data


def _read_limited(stream: Any) -> bytes:
    """Stdin's bytes up to `MAX_STDIN`, waiting at most `STDIN_TIMEOUT` for them."""
    buffer = getattr(stream, "buffer", None)
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        fd = None
    if fd is None or os.name == "nt":
        data = (buffer or stream).read(MAX_STDIN + 1)
        return data if isinstance(data, bytes) else data.encode("utf-8", "replace")
    import select
    import time

    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + STDIN_TIMEOUT
    while size <= MAX_STDIN:
        left = deadline - time.monotonic()
        if left <= 0:
            raise HookInputError(f"no end of stdin after {STDIN_TIMEOUT:.0f} s")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > MAX_STDIN:
        raise HookInputError(f"stdin is over {MAX_STDIN} bytes")
    return b"".join(chunks)


def _field(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Anything printed while the work runs goes to stderr: stdout is the hook's answer."""
    saved = sys.stdout
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = saved


def _warn(message: str) -> None:
    from engine.inject import log_line

    log_line(f"note: {message}")


def _run_record(args: argparse.Namespace) -> int:
    what = args.hook_command
    try:
        with _quiet_stdout():
            data = _read_stdin()
            if what == "session-end" and not args.wait:
                _check_transcript(data)
                if _detach(args, data):
                    return 0
            _record(args, data)
    except Exception as e:  # a hook never fails the agent
        return _fail(what, e)
    return 0


def _transcript(data: dict[str, Any]) -> str:
    """The payload's ``transcript_path``, ``~`` expanded; `HookInputError` when none."""
    transcript = _field(data, "transcript_path")
    if not transcript:
        raise HookInputError("no transcript_path in the hook's JSON")
    return os.path.expanduser(transcript)


def _check_transcript(data: dict[str, Any]) -> None:
    """The payload's transcript exists (said at once, not by the background process)."""
    transcript = _transcript(data)
    if not os.path.isfile(transcript):
        raise HookInputError(f"{transcript}: no such transcript")


def _detach(args: argparse.Namespace, data: dict[str, Any]) -> bool:
    """Run ``session-end --wait`` with the same payload in a process of its own session
    (outside the hook's process group), so the recap is stored even when Claude Code
    ends the hook as it exits; its errors go to the log. False when it cannot start."""
    import subprocess

    cmd = [sys.executable, "-m", "tui.cli", "hook", "session-end", "--wait"]
    for flag, value in (("--budget", args.budget), ("--profile", args.profile)):
        if value is not None:
            cmd += [flag, str(value)]
    if args.output:
        cmd += ["--output", args.output]
    options: dict[str, Any] = {}
    if os.name == "nt":  # pragma: no cover - Windows
        options["creationflags"] = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0
        )
    else:
        options["start_new_session"] = True
    try:
        child = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            **options,
        )
        assert child.stdin is not None
        child.stdin.write(json.dumps(data).encode("utf-8"))
        child.stdin.close()
    except (OSError, ValueError) as e:
        _warn(f"session-end: no background process ({e}); building the recap now")
        return False
    return True


def _record(args: argparse.Namespace, data: dict[str, Any]) -> None:
    from engine.inject import build_recap, load_stored, project_root, reviewed, save_stored

    transcript = _transcript(data)
    root = project_root(_field(data, "cwd") or None)
    review = None
    with contextlib.suppress(Exception):
        before = load_stored(root)
        review = reviewed(before, transcript) if before is not None else None
    event = _field(data, "hook_event_name") or (
        "PreCompact" if args.hook_command == "pre-compact" else "SessionEnd"
    )
    built = build_recap(
        transcript,
        root,
        event=event,
        session_id=_field(data, "session_id"),
        budget=args.budget,
        profile=args.profile,
        review=review,
        warn=_warn,
    )
    save_stored(built.stored)
    if args.output:
        from engine.recap import save_recap

        out = Path(os.path.expanduser(args.output))
        if not out.is_absolute():
            out = Path(_field(data, "cwd") or os.getcwd()) / out
        save_recap(out, built.stored.text)


def _run_start(args: argparse.Namespace) -> int:
    try:
        with _quiet_stdout():
            data = _read_stdin()
            text = _start(args, data)
    except Exception as e:  # a hook never fails the agent
        return _fail("session-start", e)
    if not text:
        return 0
    if args.plain:
        out = text
    else:
        answer = {
            "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}
        }
        out = json.dumps(answer, ensure_ascii=False) + "\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except (OSError, ValueError) as e:
        return _fail("session-start", e)
    return 0


def _start(args: argparse.Namespace, data: dict[str, Any]) -> str:
    from engine.errors import ChunkscopeError
    from engine.inject import (
        InjectError,
        build_recap,
        injected_text,
        load_stored,
        project_root,
        reviewed,
        same_file,
        save_stored,
        start_plan,
    )

    root = project_root(_field(data, "cwd") or None)
    try:
        stored = load_stored(root)
    except InjectError as e:
        _warn(f"session-start: {e}; building a new one")
        stored = None
    session_id = _field(data, "session_id")
    transcript = os.path.expanduser(_field(data, "transcript_path")) or None
    plan = start_plan(
        stored, source=_field(data, "source"), session_id=session_id, transcript=transcript
    )
    if plan.use_stored and stored is not None:
        return injected_text(stored) if stored.text.strip() else ""
    if plan.build_from is None:
        return ""
    # Built again from the stored recap's transcript (it grew): with the same budget and
    # profile as the hook that stored it.
    again = stored if stored is not None and same_file(stored.transcript, plan.build_from) else None
    try:
        built = build_recap(
            plan.build_from,
            root,
            event="SessionStart",
            session_id=session_id if plan.build_from == Path(transcript or "") else "",
            budget=args.budget or (again.budget if again is not None else None) or None,
            profile=args.profile or (again.profile if again is not None else None) or None,
            review=reviewed(stored, plan.build_from) if stored is not None else None,
            warn=_warn,
        )
    except ChunkscopeError as e:
        # A session with nothing to recap (opened and left at once) hides no earlier one.
        if stored is None or not stored.text.strip():
            raise
        _warn(f"session-start: {e}; the stored recap goes in instead")
        return injected_text(stored)
    save_stored(built.stored)
    return injected_text(built.stored) if built.stored.text.strip() else ""


# --------------------------------------------------------------------------- settings


def _settings_path(args: argparse.Namespace) -> Path:
    if args.settings:
        return Path(args.settings).expanduser()
    if args.scope == "project":
        return Path.cwd() / ".claude" / "settings.json"
    from engine.inject import claude_home

    return claude_home() / "settings.json"


def _executable() -> str:
    """The ``chunkscope`` to run from the hooks: the one running now, by absolute path
    (Claude Code's shell may not have this virtual environment on its PATH)."""
    import shutil

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if Path(argv0).name.startswith("chunkscope") and Path(argv0).exists():
        return str(Path(argv0).absolute())  # a link (pipx's ~/.local/bin) stays one
    beside = Path(sys.executable).parent / "chunkscope"
    if beside.exists():
        return str(beside)
    return shutil.which("chunkscope") or "chunkscope"


def _change_settings(args: argparse.Namespace, install: bool) -> int:
    from engine.claude_hooks import dumps, read_settings, write_settings
    from engine.claude_hooks import install as add
    from engine.claude_hooks import uninstall as remove

    path = _settings_path(args)
    try:
        doc = read_settings(path)
    except Exception as e:
        raise CliError(str(e)) from None
    before = doc if doc is not None else {}
    after = add(before, _executable()) if install else remove(before)
    if args.print:
        sys.stdout.write(dumps(after))
        return 0
    if after == before and (doc is not None or not install):
        note(f"{path}: {'already has' if install else 'has none of'} chunkscope's hooks; unchanged")
        return 0
    try:
        backup = write_settings(path, after)
    except OSError as e:
        raise CliError(f"cannot write {path}: {e.strerror or e}") from None
    kept = f" (the old file is kept as {backup.name})" if backup is not None else ""
    verb = "added chunkscope's hooks to" if install else "removed chunkscope's hooks from"
    note(f"{verb} {path}{kept}")
    return 0


def _run_install(args: argparse.Namespace) -> int:
    return _change_settings(args, install=True)


def _run_uninstall(args: argparse.Namespace) -> int:
    return _change_settings(args, install=False)
