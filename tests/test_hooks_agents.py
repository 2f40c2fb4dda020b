"""Codex CLI and Gemini CLI hooks, and what the three agents share.

The end-to-end tests install the hooks, then run the command written into the tool's
hooks file as the tool runs it (``sh -c <command>``, the hook's JSON on stdin, the
session's folder as the working directory, HOME and the XDG folders in a temporary
folder), on real public sessions (tests/fixtures/SOURCES.md). Everything else runs in
process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.inject.agents import AGENTS
from chunkscope.engine.inject.agents.codex import CODEX
from chunkscope.engine.inject.agents.gemini import GEMINI, chats_folder
from chunkscope.engine.inject.recaps import (
    MAX_INJECTED_CHARS,
    RECAPS_KEPT,
    StoredRecap,
    injected_text,
    load_all,
    save_stored,
)

FIXTURES = Path(__file__).parent / "fixtures"
ROLLOUT = FIXTURES / "recap" / "codex_rtchess_tail.jsonl"
CHAT = FIXTURES / "gemini-cli" / "agent-history-session-01.json"
CLAUDE_SESSION = FIXTURES / "claude-code" / "coverage-test-fix.jsonl"


class Home:
    """A temporary home and project; hook commands run in it as the tools run them."""

    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        self.home.mkdir()
        self.project = (base / "work" / "my-app").resolve()
        self.project.mkdir(parents=True)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CHUNKSCOPE_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_"))
        }
        self.env.update(
            HOME=str(self.home),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
        )
        if "CHUNKSCOPE_CACHE_DIR" in os.environ:
            self.env["CHUNKSCOPE_CACHE_DIR"] = os.environ["CHUNKSCOPE_CACHE_DIR"]

    @property
    def sessions(self) -> Path:
        return self.home / ".local" / "share" / "chunkscope" / "recaps"

    def chunkscope(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        from tests.test_hooks import _chunkscope

        return subprocess.run(
            [*_chunkscope(), *args],
            capture_output=True,
            cwd=self.project,
            env=self.env,
            timeout=120,
        )

    def shell(
        self, command: str, stdin: bytes | dict[str, Any], extra: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """`command` as the tool runs a hook: through the shell, JSON on stdin."""
        data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
        return subprocess.run(
            command,
            shell=True,
            input=data,
            capture_output=True,
            cwd=self.project,
            env={**self.env, **(extra or {})},
            timeout=120,
        )

    def stored(self, timeout: float = 90.0) -> list[Path]:
        deadline = time.monotonic() + timeout
        while True:
            found = sorted(self.sessions.glob("*/sessions/*.json"))
            if found:
                return found
            assert time.monotonic() < deadline, "no recap stored"
            time.sleep(0.05)


def _installed(file: Path, event: str) -> str:
    """The command of our hook for `event` in the tool's hooks file."""
    doc = json.loads(file.read_text())
    commands = [
        h["command"]
        for g in doc["hooks"][event]
        for h in g["hooks"]
        if " hook " in h["command"] and "chunkscope" in h["command"]
    ]
    assert len(commands) == 1
    return str(commands[0])


def _context(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # nothing but the JSON object on stdout
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text: str = answer["hookSpecificOutput"]["additionalContext"]
    return text


def _recap_of(home: Home, path: Path) -> str:
    done = home.chunkscope("recap", str(path))
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


# --------------------------------------------------------------------------- Codex


def _rollout(home: Home, day: str, uuid: str, cwd: Path, source: Path = ROLLOUT) -> Path:
    """A rollout of a session started in `cwd`: a real one with its session_meta's cwd
    set (only the first record names the folder)."""
    folder = home.home / ".codex" / "sessions" / day
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-{day.replace('/', '-')}T10-00-00-{uuid}.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])
    meta["payload"]["cwd"] = str(cwd)
    meta["payload"]["id"] = uuid
    path.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return path


def test_codex_stop_then_start_injects_the_earlier_rollouts_recap(home: Home) -> None:
    """About 5 s (four processes and a background build): the Done-when check for Codex."""
    done = home.chunkscope("hook", "install", "--agent", "codex")
    assert done.returncode == 0, done.stderr
    hooks = home.home / ".codex" / "hooks.json"
    assert "trust" in done.stderr.decode()  # Codex runs a new hook once trusted in /hooks
    earlier = _rollout(home, "2026/11/20", "019aad50-0000-7000-8000-000000000001", home.project)
    # A newer rollout of another project is not this project's earlier session.
    other = _rollout(home, "2026/11/21", "019aad50-0000-7000-8000-000000000009", home.home)
    os.utime(other)
    stop = {
        "session_id": "019aad50-0000-7000-8000-000000000001",
        "turn_id": "t7",
        "transcript_path": str(earlier),
        "cwd": str(home.project),
        "hook_event_name": "Stop",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "Done.",
    }
    ended = home.shell(_installed(hooks, "Stop"), stop)
    assert (ended.returncode, ended.stdout) == (0, b""), ended.stderr  # the turn does not wait
    stored = home.stored()
    assert len(stored) == 1 and stored[0].name.startswith("codex-")

    current = _rollout(home, "2026/11/22", "019aad50-0000-7000-8000-000000000002", home.project)
    start = {
        "session_id": "019aad50-0000-7000-8000-000000000002",
        "transcript_path": str(current),
        "cwd": str(home.project),
        "hook_event_name": "SessionStart",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "source": "startup",
    }
    context = _context(home.shell(_installed(hooks, "SessionStart"), start))
    head, _, body = context.partition("\n\n")
    assert earlier.name in head and "previous session" in head
    assert body == _recap_of(home, earlier)

    garbage = home.shell(_installed(hooks, "SessionStart"), b"\x00 not json {")
    assert (garbage.returncode, garbage.stdout) == (0, b"")


def test_codex_finds_the_newest_rollout_of_the_project(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(home.home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    old = _rollout(home, "2026/11/01", "a1", home.project)
    new = _rollout(home, "2026/11/02", "a2", home.project)
    mine = _rollout(home, "2026/11/03", "a3", home.project)
    elsewhere = _rollout(home, "2026/11/04", "a4", home.home)
    for i, path in enumerate((old, new, mine, elsewhere)):
        os.utime(path, (1000.0 + i, 1000.0 + i))
    os.utime(old, (5000.0, 5000.0))  # resumed later: its file is the newest of the project
    assert CODEX.other_transcripts(home.project, str(mine), {}) == [old]
    assert CODEX.other_transcripts(home.project, str(old), {}) == [mine]
    # No transcript_path: the session's own rollout (the newest) is known by its id.
    own = old.with_name(old.name.replace("-a1.", f"-{'a1' * 8}."))
    os.rename(old, own)
    assert CODEX.other_transcripts(home.project, None, {}) == [own]
    assert CODEX.other_transcripts(home.project, None, {"session_id": "a1" * 8}) == [mine]
    monkeypatch.setenv("CODEX_HOME", str(home.home / "nowhere"))
    assert CODEX.other_transcripts(home.project, None, {}) == []


def test_codex_says_when_its_config_switches_hooks_off(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(home.home / ".codex"))
    config = home.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    hooks = config.parent / "hooks.json"
    config.write_text(
        f'model = "o3"\n[features]\nhooks = false\n'
        f'[hooks.state."{hooks}:session_start:0:0"]\nenabled = false\n'
    )
    lines = CODEX.switched_off({}, hooks, home.project)
    assert any("[features] hooks = false" in line for line in lines)
    assert any("1 hook(s)" in line for line in lines)
    config.write_text("[features]\ncodex_hooks = true\n")
    assert not any("false" in line for line in CODEX.switched_off({}, hooks, home.project))


# --------------------------------------------------------------------------- Gemini CLI


def test_gemini_session_end_then_start_injects_only_json(home: Home) -> None:
    """About 5 s (six processes and a background build): the Done-when check for Gemini."""
    done = home.chunkscope("hook", "install", "--agent", "gemini")
    assert done.returncode == 0, done.stderr
    settings = home.home / ".gemini" / "settings.json"
    doc = json.loads(settings.read_text())
    assert doc["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 30_000  # milliseconds
    # each hook says what it does (walk 14: all three said the SessionStart one's words)
    said = {e: doc["hooks"][e][0]["hooks"][0]["description"] for e in doc["hooks"]}
    assert said == {
        "SessionStart": "chunkscope: print the recap to inject into a new session",
        "SessionEnd": "chunkscope: store the recap of the session that ended",
        "PreCompress": "chunkscope: store the recap before the context is compacted",
    }
    registry = home.home / ".gemini" / "projects.json"
    registry.write_text(json.dumps({"projects": {str(home.project): "my-app"}}))
    chats = home.home / ".gemini" / "tmp" / "my-app" / "chats"
    chats.mkdir(parents=True)
    earlier = chats / "session-2026-11-20T10-00-dcbe78d3.json"
    shutil.copyfile(CHAT, earlier)
    # As Gemini CLI runs hooks: the session's cwd in GEMINI_PROJECT_DIR (and CLAUDE_...).
    env = {"GEMINI_PROJECT_DIR": str(home.project), "CLAUDE_PROJECT_DIR": str(home.project)}
    base = {"cwd": str(home.project), "timestamp": "2026-11-20T10:05:00.000Z"}
    end = {
        **base,
        "session_id": "dcbe78d3-ea75-4786-929e-d6cff0fc00ed",
        "transcript_path": str(earlier),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    ended = home.shell(_installed(settings, "SessionEnd"), end, env)
    assert (ended.returncode, ended.stdout) == (0, b""), ended.stderr
    home.stored()
    start = {
        **base,
        "session_id": "0f0f0f0f-0000-4000-8000-000000000002",
        "transcript_path": "",  # Gemini CLI may not have started the chat file yet
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    context = _context(home.shell(_installed(settings, "SessionStart"), start, env))
    head, _, body = context.partition("\n\n")
    assert earlier.name in head
    assert body == _recap_of(home, earlier)

    for garbage in (b"", b"[]", b"{"):
        done = home.shell(_installed(settings, "SessionStart"), garbage, env)
        assert (done.returncode, done.stdout) == (0, b"")


def test_gemini_chats_folder_by_registry_hash_or_marker(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(home.home))
    tmp = home.home / ".gemini" / "tmp"
    assert chats_folder(home.project) is None
    legacy = tmp / hashlib.sha256(str(home.project).encode()).hexdigest() / "chats"
    legacy.mkdir(parents=True)
    assert chats_folder(home.project) == legacy
    marked = tmp / "renamed"
    (marked / "chats").mkdir(parents=True)
    (marked / ".project_root").write_text(str(home.project))
    shutil.rmtree(legacy.parent)
    assert chats_folder(home.project) == marked / "chats"
    (tmp / "my-app" / "chats").mkdir(parents=True)
    (home.home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(home.project): "my-app"}})
    )
    assert chats_folder(home.project) == tmp / "my-app" / "chats"
    # Without a transcript_path, the session's own chat is known by its id's start.
    chats = tmp / "my-app" / "chats"
    earlier = chats / "session-2026-11-20T10-00-dcbe78d3.json"
    own = chats / "session-2026-11-20T11-00-0f0f0f0f.jsonl"
    for i, path in enumerate((earlier, own)):
        path.write_text("{}")
        os.utime(path, (1000.0 + i, 1000.0 + i))
    (chats / "notes.json").write_text("{}")  # not a chat
    payload = {"session_id": "0f0f0f0f-0000-4000-8000-000000000002"}
    assert GEMINI.other_transcripts(home.project, None, payload) == [earlier]
    assert GEMINI.other_transcripts(home.project, None, {}) == [own, earlier]


def test_gemini_says_when_its_settings_switch_hooks_off(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(home.home))
    path = home.project / ".gemini" / "settings.json"
    doc = {"hooksConfig": {"enabled": False, "disabled": ["chunkscope-session-start", "x"]}}
    lines = GEMINI.switched_off(doc, path, home.project)
    assert any("hooksConfig.enabled is false" in line for line in lines)
    assert any("chunkscope-session-start" in line for line in lines)
    assert any("trusted folder" in line for line in lines)
    assert GEMINI.switched_off({}, home.home / ".gemini" / "settings.json", home.project) == []


# --------------------------------------------------------------------------- shared


def test_claude_says_when_its_settings_switch_hooks_off(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.inject.agents.claude import CLAUDE

    monkeypatch.setenv("HOME", str(home.home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    local = home.project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text('{"disableAllHooks": true}')
    user = home.home / ".claude" / "settings.json"
    (lines,) = CLAUDE.switched_off({}, user, home.project)
    assert str(local) in lines and "disableAllHooks" in lines
    local.write_text('{"disableAllHooks": false}')
    assert CLAUDE.switched_off({}, user, home.project) == []


def test_every_agent_is_declared_with_its_file_and_three_hooks() -> None:
    assert set(AGENTS) == {"claude", "codex", "gemini"}
    for agent in AGENTS.values():
        subcommands = sorted(spec.subcommand for spec in agent.events)
        assert subcommands == ["pre-compact", "session-end", "session-start"]
    assert CODEX.hooks_file("project", Path("/p")) == Path("/p/.codex/hooks.json")
    assert GEMINI.hooks_file("project", Path("/p")) == Path("/p/.gemini/settings.json")


def _recap(transcript: str, created: float, event: str = "SessionEnd", text: str = "t") -> Any:
    return StoredRecap("/proj/x", transcript, text, event=event, created=created)


def test_each_session_keeps_its_own_recap_and_the_oldest_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path))
    save_stored(_recap("/t/a.jsonl", 1.0, "SessionEnd", "A ended"))
    save_stored(_recap("/t/b.jsonl", 2.0, "PreCompact", "B before compaction"))
    assert [r.text for r in load_all("/proj/x")] == ["B before compaction", "A ended"]
    save_stored(_recap("/t/b.jsonl", 3.0, "SessionEnd", "B ended"))  # replaces B's
    assert [r.text for r in load_all("/proj/x")] == ["B ended", "A ended"]
    for i in range(RECAPS_KEPT + 3):
        path = save_stored(_recap(f"/t/s{i}.jsonl", 10.0 + i))
        os.utime(path, (10.0 + i, 10.0 + i))
    kept = load_all("/proj/x")
    assert len(kept) == RECAPS_KEPT
    assert kept[0].transcript == f"/t/s{RECAPS_KEPT + 2}.jsonl"
    assert len(list(path.parent.glob("*.md"))) == RECAPS_KEPT


def test_injected_text_stays_under_the_ceiling_and_says_so() -> None:
    lines = "\n".join(f"- line {i}: " + "word " * 30 for i in range(400))
    text = injected_text(_recap("/t/a.jsonl", 1.0, text=lines))
    assert len(text) < MAX_INJECTED_CHARS
    assert "cut this recap" in text and f"{len(lines.rstrip()):,}" in text
    kept = text.partition("\n\n")[2].rpartition("\n\n")[0]
    assert lines.startswith(kept) and kept.endswith("word")  # cut at a line's end
    small = injected_text(_recap("/t/a.jsonl", 1.0, text="short"), own=True)
    assert small.endswith("\n\nshort\n") and "this session before" in small


def _start_in_process(args: list[str], payload: dict[str, Any]) -> str:
    from chunkscope.tui.cli.hook import _start, hook_parser

    return _start(hook_parser().parse_args(["session-start", *args]), payload)


def test_a_read_only_store_still_injects_what_was_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(blocker / "data"))  # cannot be created
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    folder = tmp_path / "transcripts"
    folder.mkdir()
    shutil.copyfile(CLAUDE_SESSION, folder / "s1.jsonl")
    payload = {
        "session_id": "s2",
        "transcript_path": str(folder / "s2.jsonl"),
        "cwd": str(tmp_path),
        "source": "startup",
    }
    # The wait counts from the hook process's start: here a test worker's, long ago.
    monkeypatch.setattr("chunkscope.tui.cli.hook._age", lambda: 0.0)
    text = _start_in_process(["--build-wait", "120"], payload)
    assert "s1.jsonl" in text.partition("\n\n")[0] and "multiply" in text.lower()


def test_a_start_with_nothing_stored_waits_at_most_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    folder = tmp_path / "transcripts"
    folder.mkdir()
    shutil.copyfile(CLAUDE_SESSION, folder / "s1.jsonl")
    payload = {
        "session_id": "s2",
        "transcript_path": str(folder / "s2.jsonl"),
        "cwd": str(tmp_path),
        "source": "startup",
    }
    began = time.monotonic()
    assert _start_in_process(["--build-wait", "0"], payload) == ""
    assert time.monotonic() - began < 1.0
    # ... and the recap is built in the background for the next start.
    deadline = time.monotonic() + 90
    while not list((tmp_path / "data").glob("recaps/*/sessions/*.json")):
        assert time.monotonic() < deadline, "the background build stored nothing"
        time.sleep(0.05)
    assert "s1.jsonl" in _start_in_process([], payload).partition("\n\n")[0]


def test_review_lists_the_stored_recaps_and_marks_what_goes_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.tui.cli.review import recap_list

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = (tmp_path / "proj").resolve()
    project.mkdir()
    from chunkscope.engine.inject.recaps import sessions_dir

    # it names where it looked: the data folder, not the project (walk 16 finding 14c)
    assert recap_list(str(project)) == (
        f"{project}: no stored session recaps (looked in {sessions_dir(project)})\n"
    )
    assert str(tmp_path / "data") in str(sessions_dir(project))
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        path.write_text("{}\n")
        os.utime(path, (1.0, 1.0))
    ended = StoredRecap(str(project), str(a), "A", event="SessionEnd", created=10.0)
    running = StoredRecap(str(project), str(b), "B", event="PreCompact", created=20.0)
    save_stored(ended)
    save_stored(running)
    lines = recap_list(str(project)).splitlines()
    assert lines[0].startswith(" ") and "PreCompact" in lines[0] and "running" in lines[0]
    assert lines[1].startswith("*") and "SessionEnd" in lines[1] and "a.jsonl" in lines[1]


def test_one_background_build_per_session_and_a_request_meanwhile_runs_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.inject.recaps import recap_path
    from chunkscope.tui.cli import hook

    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    transcript = tmp_path / "s1.jsonl"
    shutil.copyfile(CLAUDE_SESSION, transcript)
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(tmp_path)}
    args = hook.hook_parser().parse_args(["session-end", "--wait", "--detached"])
    path = recap_path(tmp_path.resolve(), "claude", transcript)
    lock, again = path.with_suffix(".lock"), path.with_suffix(".again")
    path.parent.mkdir(parents=True)
    lock.write_text("12345")  # a build of this session is running
    built: list[int] = []
    monkeypatch.setattr(hook, "_record", lambda a, d: built.append(1))
    hook._record_once_at_a_time(args, payload)
    assert built == [] and again.exists()  # asked to run once more, did not build
    # The running build finds the request when done and builds again, then lets go.
    lock.unlink()

    def record(a: Any, d: Any) -> None:
        built.append(1)
        if len(built) == 1:
            again.touch()  # a Stop came while it built

    monkeypatch.setattr(hook, "_record", record)
    hook._record_once_at_a_time(args, payload)
    assert built == [1, 1] and not lock.exists() and not again.exists()
    # A lock left by a build that died long ago does not block.
    lock.write_text("1")
    os.utime(lock, (1.0, 1.0))
    hook._record_once_at_a_time(args, payload)
    assert len(built) == 3 and not lock.exists()
