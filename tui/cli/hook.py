"""`chunkscope hook ...`: the recap injected into Claude Code, Codex CLI and Gemini CLI
through their hooks (`engine.inject.agents` declares the tools; ``--agent`` names one, Claude
Code when none is given).

- ``hook session-end`` / ``hook pre-compact`` read the hook's JSON on stdin
  (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``) and store the recap
  of the transcript for the project, one per session (`engine.inject.recaps`), in the data
  directory; ``--output`` also writes it to a file. session-end (Codex: after every
  turn, its Stop) hands the work to a background process and returns at once (a tool
  may end a hook still running when it exits; a Codex turn must not wait); one build
  runs at a time per session, and a request that comes meanwhile is built after it.
  ``--wait`` does it in place.
- ``hook session-start`` prints what goes into the new session's context: the newest
  ended session's recap (this session's own after a compaction), as
  ``hookSpecificOutput.additionalContext`` JSON (the shape all three tools read;
  ``--plain``: the text), under `engine.inject.recaps.MAX_INJECTED_CHARS`. When the recap has to
  be built, it waits at most `engine.inject.recaps.START_WAIT` seconds, then injects what was
  stored before (or nothing) and leaves the build to a background process.
- ``hook install`` / ``hook uninstall`` merge our hooks into the tool's hooks file
  (`engine.inject.hook_settings`), saying when the tool's config switches hooks off.

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
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkscope.engine.fileio import cannot_write
from chunkscope.tui.cli.common import EXIT_USAGE, CliError, Parser, file_path, knob_value, note

if TYPE_CHECKING:
    from chunkscope.engine.inject.agents import Agent
    from chunkscope.engine.inject.recaps import Built, StoredRecap

#: When this module was imported (the hook path imports little before it).
_STARTED = time.monotonic()


def _age() -> float:
    """Seconds since this process started: from ``/proc`` on Linux (the interpreter's
    own start-up counts too), else since this module was imported."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat(5)
        return max(0.0, uptime - started)
    return time.monotonic() - _STARTED


#: A background build older than this is taken to have died; another may start.
LOCK_STALE = 600.0
#: The most times a background build runs again for requests that came while it ran.
MAX_REBUILDS = 5

#: The most stdin a hook reads (Claude Code's payload is a few hundred bytes).
MAX_STDIN = 1 << 20
#: Seconds a hook waits for its stdin before giving up (never block the agent).
STDIN_TIMEOUT = 10.0

_RECORDING = ("session-end", "pre-compact")

#: The examples ending each ``hook`` command's --help (the agent tool writes the JSON on stdin).
EXAMPLES = {
    "hook": (
        "chunkscope hook install",
        "chunkscope hook install --agent codex --project --print",
        "chunkscope hook uninstall --agent gemini",
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
        "chunkscope hook install --agent codex --project",
        "chunkscope hook install --agent gemini --user --print",
    ),
    "uninstall": (
        "chunkscope hook uninstall",
        "chunkscope hook uninstall --agent codex --project --print",
    ),
}


class HookInputError(Exception):
    """The hook's stdin is not the JSON object the agent tool sends."""


def _add_agent(q: argparse.ArgumentParser) -> None:
    from chunkscope.engine.inject.agents import AGENT_NAMES, DEFAULT_AGENT

    q.add_argument(
        "--agent",
        choices=AGENT_NAMES,
        default=DEFAULT_AGENT,
        help=f"the agent tool that runs the hook (default: {DEFAULT_AGENT})",
    )


def _add_commands(p: argparse.ArgumentParser) -> None:
    from chunkscope.engine.inject.agents.base import HOOK_PURPOSES
    from chunkscope.engine.inject.recaps import BUILD_WAIT, START_WAIT

    sub = p.add_subparsers(dest="hook_command", metavar="HOOK", parser_class=Parser)
    for name, what in (
        ("session-end", f"{HOOK_PURPOSES['session-end']} (SessionEnd; Codex: Stop, after a turn)"),
        ("pre-compact", f"{HOOK_PURPOSES['pre-compact']} (PreCompact)"),
    ):
        q = sub.add_parser(
            name,
            help=what,
            description=what + "; reads the hook's JSON on stdin",
            examples=EXAMPLES[name],
        )
        _add_agent(q)
        q.add_argument("--budget", type=int, default=None, metavar="N", help="token budget")
        q.add_argument(
            "--profile", default=None, metavar="NAME", help="a saved profile's parameters"
        )
        q.add_argument(
            "-o",
            "--output",
            type=file_path,
            default=None,
            metavar="OUT",
            help="also write the recap to OUT (relative to the session's folder)",
        )
        if name == "session-end":
            q.add_argument(
                "--wait",
                action="store_true",
                help="build the recap before returning (default: in a background process, "
                "since a tool may end a hook that outlives the session)",
            )
            q.add_argument("--detached", action="store_true", help=argparse.SUPPRESS)
        q.set_defaults(hook_run=_run_record)
    start = sub.add_parser(
        "session-start",
        help=f"{HOOK_PURPOSES['session-start']} (SessionStart)",
        description="Print the stored recap of the project's previous session as "
        "hookSpecificOutput.additionalContext JSON; reads the hook's JSON on stdin.",
        examples=EXAMPLES["session-start"],
    )
    _add_agent(start)
    start.add_argument("--plain", action="store_true", help="print the text, not JSON")
    start.add_argument(
        "--build-wait",
        type=knob_value(BUILD_WAIT),
        default=None,
        metavar="S",
        help="seconds to wait for a recap that has to be built, counted from the hook "
        f"process's start (default: {START_WAIT:g}, at most {BUILD_WAIT.maximum:g}); past "
        "it the build goes on in the background",
    )
    start.add_argument("--budget", type=int, default=None, metavar="N", help=argparse.SUPPRESS)
    start.add_argument("--profile", default=None, metavar="NAME", help=argparse.SUPPRESS)
    start.set_defaults(hook_run=_run_start)
    for name, what in (
        ("install", "add chunkscope's hooks to an agent tool's hooks file"),
        ("uninstall", "remove chunkscope's hooks from an agent tool's hooks file"),
    ):
        q = sub.add_parser(
            name,
            help=what,
            description=what + " (Claude Code: settings.json; Codex: hooks.json; Gemini CLI: "
            "settings.json); every other key is kept",
            examples=EXAMPLES[name],
        )
        _add_agent(q)
        where = q.add_mutually_exclusive_group()
        where.add_argument(
            "--user",
            dest="scope",
            action="store_const",
            const="user",
            help="the file in the tool's home folder (~/.claude, ~/.codex, ~/.gemini): "
            "every project (the default)",
        )
        where.add_argument(
            "--project",
            dest="scope",
            action="store_const",
            const="project",
            help="the file in ./.claude, ./.codex or ./.gemini: this project only",
        )
        q.add_argument("--settings", default=None, metavar="PATH", help="this hooks file instead")
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
            "Agent hooks. `chunkscope hook install --agent claude|codex|gemini` adds them to "
            "the tool's hooks file; session-end and pre-compact store the session's recap "
            "in chunkscope's data directory; session-start prints it for the next session."
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
        description="agent hooks for chunkscope's recap",
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
    from chunkscope.engine.inject.recaps import log_line
    from chunkscope.engine.textutil import strip_control

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
    from chunkscope.engine.inject.recaps import log_line

    log_line(f"note: {message}")


def _agent(args: argparse.Namespace) -> Agent:
    from chunkscope.engine.inject.agents import agent_named

    return agent_named(getattr(args, "agent", None))


def _run_record(args: argparse.Namespace) -> int:
    what = args.hook_command
    try:
        with _quiet_stdout():
            data = _read_stdin()
            if what == "session-end" and not args.wait:
                _check_transcript(data)
                if _detach(args, data):
                    return 0
            if getattr(args, "detached", False):
                _record_once_at_a_time(args, data)
            else:
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
    """The payload's transcript exists and is text (`engine.read.source.check_text`): said
    at once, on stderr and in the log, not later by the background process (whose stderr
    goes nowhere: it never writes to the terminal after the hook has returned)."""
    from chunkscope.engine.read.source import check_text

    transcript = _transcript(data)
    if not os.path.lexists(transcript):
        raise HookInputError(f"{transcript}: no such transcript")
    check_text(transcript)  # a folder, a FIFO, a device: said what it is (walk 35, F4)


def _detach(args: argparse.Namespace, data: dict[str, Any]) -> bool:
    """Run ``session-end --wait`` with the payload `data` in a process of its own session
    (outside the hook's process group), so the recap is stored even when the tool ends
    the hook as it exits; its errors go to the log. False when it cannot start."""
    import subprocess

    cmd = [
        sys.executable,
        "-m",
        "chunkscope.tui.cli",
        "hook",
        "session-end",
        "--wait",
        "--detached",
    ]
    cmd += ["--agent", _agent(args).name]
    for flag, value in (
        ("--budget", getattr(args, "budget", None)),
        ("--profile", getattr(args, "profile", None)),
    ):
        if value is not None:
            cmd += [flag, str(value)]
    if getattr(args, "output", None):
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


def _previous(recaps: list[StoredRecap], transcript: str) -> StoredRecap | None:
    """The stored recap of `transcript`, if any (its budget, profile and review are
    used again)."""
    from chunkscope.engine.inject.recaps import same_file

    return next((r for r in recaps if same_file(r.transcript, transcript)), None)


def _build(
    args: argparse.Namespace,
    agent: Agent,
    root: Path,
    transcript: str,
    *,
    event: str,
    session_id: str,
) -> Built:
    """The recap of `transcript`, with the budget and profile given, else those of its
    earlier recap, and that recap's review."""
    from chunkscope.engine.inject.recaps import build_recap, load_all, reviewed

    before = _previous(load_all(root), transcript)
    return build_recap(
        transcript,
        root,
        event=event,
        session_id=session_id,
        budget=args.budget or (before.budget if before is not None else None) or None,
        profile=args.profile or (before.profile if before is not None else None) or None,
        review=reviewed(before, transcript) if before is not None else None,
        warn=_warn,
        agent=agent.name,
    )


def _record(args: argparse.Namespace, data: dict[str, Any]) -> None:
    from chunkscope.engine.inject.recaps import project_root, save_stored

    agent = _agent(args)
    transcript = _transcript(data)
    root = project_root(_field(data, "cwd") or None, agent.project_env)
    event = _field(data, "hook_event_name") or (
        "PreCompact" if args.hook_command == "pre-compact" else "SessionEnd"
    )
    built = _build(
        args, agent, root, transcript, event=event, session_id=_field(data, "session_id")
    )
    save_stored(built.stored)
    if args.output:
        from chunkscope.engine.recap.core import save_recap

        out = Path(os.path.expanduser(args.output))
        if not out.is_absolute():
            out = Path(_field(data, "cwd") or os.getcwd()) / out
        save_recap(out, built.stored.text, parents=True)  # the hook's own file: its folders


def _record_once_at_a_time(args: argparse.Namespace, data: dict[str, Any]) -> None:
    """`_record` in a background process, one at a time per session: a build already
    running (its lock file younger than `LOCK_STALE`) is asked to run once more when
    done (Codex's Stop comes after every turn), and this one ends."""
    from chunkscope.engine.inject.recaps import project_root, recap_path

    agent = _agent(args)
    transcript = _transcript(data)
    root = project_root(_field(data, "cwd") or None, agent.project_env)
    path = recap_path(root, agent.name, transcript)
    lock, again = path.with_suffix(".lock"), path.with_suffix(".again")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if time.time() - lock.stat().st_mtime > LOCK_STALE:
                lock.unlink()
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        with contextlib.suppress(OSError):
            again.touch()
        return
    except OSError:  # a read-only store: build anyway (the save says why it fails)
        _record(args, data)
        return
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        for _ in range(MAX_REBUILDS):
            with contextlib.suppress(OSError):
                again.unlink()
            _record(args, data)
            if not again.exists():
                break
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()


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
        # The shape Claude Code, Codex and Gemini CLI all read (see `engine.inject.agents`).
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


def _build_within(
    seconds: float,
    args: argparse.Namespace,
    agent: Agent,
    root: Path,
    transcript: str,
    *,
    event: str,
    session_id: str,
) -> Built | None:
    """`_build` in a thread, waiting at most `seconds` (None: it took longer, or failed
    with an error that is not about the transcript; those are logged)."""
    import threading

    from chunkscope.engine.errors import ChunkscopeError

    result: list[Built] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            result.append(_build(args, agent, root, transcript, event=event, session_id=session_id))
        except BaseException as e:  # said by the caller
            failed.append(e)

    worker = threading.Thread(target=work, name="chunkscope-recap", daemon=True)
    worker.start()
    worker.join(max(0.0, seconds))
    if failed:
        if isinstance(failed[0], ChunkscopeError):
            raise failed[0]
        _warn(f"session-start: {type(failed[0]).__name__}: {failed[0]}")
        return None
    return result[0] if result else None


def _start(args: argparse.Namespace, data: dict[str, Any]) -> str:
    from chunkscope.engine.errors import ChunkscopeError
    from chunkscope.engine.inject.recaps import (
        START_WAIT,
        injected_text,
        load_all,
        next_start,
        project_root,
        same_file,
        save_stored,
    )

    agent = _agent(args)
    root = project_root(_field(data, "cwd") or None, agent.project_env)
    recaps = load_all(root, warn=lambda m: _warn(f"session-start: {m}"))
    session_id = _field(data, "session_id")
    transcript = os.path.expanduser(_field(data, "transcript_path")) or None
    source = _field(data, "source")
    if source == "resume":
        return ""
    plan = next_start(
        agent,
        root,
        recaps,
        source=source,
        session_id=session_id,
        transcript=transcript,
        payload=data,
    )
    if plan.use is not None:
        return injected_text(plan.use, own=plan.own) if plan.use.text.strip() else ""
    if plan.build_from is None:
        return ""
    building_own = transcript is not None and same_file(plan.build_from, transcript)
    event = "PreCompact" if building_own else "SessionStart"
    build_id = session_id if building_own else ""
    wait = START_WAIT if args.build_wait is None else args.build_wait
    left = wait - _age()
    try:
        built = _build_within(
            left, args, agent, root, str(plan.build_from), event=event, session_id=build_id
        )
    except ChunkscopeError as e:
        # A session with nothing to recap (opened and left at once) hides no earlier one.
        if plan.fallback is None or not plan.fallback.text.strip():
            raise
        _warn(f"session-start: {e}; the stored recap goes in instead")
        return injected_text(plan.fallback, own=plan.own)
    if built is None:
        payload = {
            "session_id": build_id,
            "transcript_path": str(plan.build_from),
            "cwd": str(root),
            "hook_event_name": event,
        }
        _detach(args, payload)
        late = f"not built within {wait:g} s ({plan.reason}); building it in the background"
        if plan.fallback is not None and plan.fallback.text.strip():
            _warn(f"session-start: {late}; an older recap goes in")
            return injected_text(plan.fallback, own=plan.own)
        _warn(f"session-start: {late}; nothing injected this time")
        return ""
    try:
        save_stored(built.stored)
    except OSError as e:
        _warn(f"session-start: cannot store the recap ({e}); injected without storing it")
    return injected_text(built.stored, own=plan.own) if built.stored.text.strip() else ""


# --------------------------------------------------------------------------- settings


def _settings_path(args: argparse.Namespace, agent: Agent) -> Path:
    if args.settings:
        return Path(args.settings).expanduser()
    return agent.hooks_file(args.scope, Path.cwd())


def _executable() -> str:
    """The ``chunkscope`` to run from the hooks: the one running now, by absolute path
    (the tool's shell may not have this virtual environment on its PATH)."""
    import shutil

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if Path(argv0).name.startswith("chunkscope") and Path(argv0).exists():
        return str(Path(argv0).absolute())  # a link (pipx's ~/.local/bin) stays one
    beside = Path(sys.executable).parent / "chunkscope"
    if beside.exists():
        return str(beside)
    return shutil.which("chunkscope") or "chunkscope"


def _change_settings(args: argparse.Namespace, install: bool) -> int:
    from chunkscope.engine.inject.hook_settings import dumps, read_settings, write_settings
    from chunkscope.engine.inject.hook_settings import install as add
    from chunkscope.engine.inject.hook_settings import uninstall as remove

    agent = _agent(args)
    path = _settings_path(args, agent)
    try:
        doc = read_settings(path, agent.event_names)
    except Exception as e:
        raise CliError(str(e)) from None
    before = doc if doc is not None else {}
    after = add(before, _executable(), agent) if install else remove(before, agent)
    if args.print:
        sys.stdout.write(dumps(after))
        return 0
    if after == before and (doc is not None or not install):
        note(f"{path}: {'already has' if install else 'has none of'} chunkscope's hooks; unchanged")
    else:
        try:
            backup = write_settings(path, after)
        except OSError as e:
            raise CliError(cannot_write(path, e)) from None
        kept = f" (the old file is kept as {backup.name})" if backup is not None else ""
        verb = "added chunkscope's hooks to" if install else "removed chunkscope's hooks from"
        note(f"{verb} {path}{kept}")
    if install:
        for line in agent.switched_off(after, path, Path.cwd()):
            note(f"{agent.title}: {line}")
    return 0


def _run_install(args: argparse.Namespace) -> int:
    return _change_settings(args, install=True)


def _run_uninstall(args: argparse.Namespace) -> int:
    return _change_settings(args, install=False)
