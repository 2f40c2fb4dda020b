"""The Claude Code hooks run as Claude Code runs them: a subprocess with the hook's JSON
on stdin, the session's folder as the working directory, HOME and the XDG folders in a
temporary folder, on real public transcripts (tests/fixtures/SOURCES.md). Codex CLI and
Gemini CLI: tests/test_hooks_agents.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.inject.recaps import InjectError, StoredRecap, project_key, start_plan

FIXTURES = Path(__file__).parent / "fixtures"
MULTIPLY = FIXTURES / "claude-code" / "coverage-test-fix.jsonl"
POEMS = FIXTURES / "hooks_cc_curry_poems.jsonl"


def _chunkscope() -> list[str]:
    script = Path(sys.executable).parent / "chunkscope"
    return [str(script)] if script.exists() else [sys.executable, "-m", "chunkscope.tui.cli"]


class Claude:
    """A home folder with Claude Code's transcripts of one project, and the hooks run
    in it as Claude Code runs them."""

    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        self.project = base / "work" / "my-app"
        self.project.mkdir(parents=True)
        self.project = self.project.resolve()
        encoded = re.sub(r"[^A-Za-z0-9]", "-", str(self.project))
        self.folder = self.home / ".claude" / "projects" / encoded
        self.folder.mkdir(parents=True)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CHUNKSCOPE_", "CLAUDE_", "XDG_", "OPENAI_"))
        }
        self.env.update(
            HOME=str(self.home),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
        )
        # The token tables of the test session's cache (no download, no re-build).
        if "CHUNKSCOPE_CACHE_DIR" in os.environ:
            self.env["CHUNKSCOPE_CACHE_DIR"] = os.environ["CHUNKSCOPE_CACHE_DIR"]

    @property
    def data(self) -> Path:
        return self.home / ".local" / "share" / "chunkscope"

    def session(self, name: str, source: Path, age: float = 0.0) -> Path:
        """A transcript in the project's folder, modified `age` seconds ago."""
        path = self.folder / f"{name}.jsonl"
        shutil.copyfile(source, path)
        if age:
            t = path.stat().st_mtime - age
            os.utime(path, (t, t))
        return path

    def run(
        self,
        *args: str,
        stdin: bytes | str | dict[str, Any] = b"",
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        if isinstance(stdin, dict):
            stdin = json.dumps(stdin)
        if isinstance(stdin, str):
            stdin = stdin.encode()
        return subprocess.run(
            [*_chunkscope(), *args],
            input=stdin,
            capture_output=True,
            cwd=self.project,
            env={**self.env, **(env or {})},
            timeout=120,
        )

    def payload(self, event: str, session: str, **extra: str) -> dict[str, Any]:
        return {
            "session_id": session,
            "transcript_path": str(self.folder / f"{session}.jsonl"),
            "cwd": str(self.project),
            "hook_event_name": event,
            **extra,
        }

    def end(self, session: str, *flags: str) -> subprocess.CompletedProcess[bytes]:
        """session-end, in place (``--wait``) unless other flags are given."""
        return self.run(
            "hook",
            "session-end",
            *(flags or ("--wait",)),
            stdin=self.payload("SessionEnd", session, reason="other"),
        )

    def stored(self, timeout: float = 60.0) -> Path:
        """The stored recap's file, once there (a background session-end writes it)."""
        deadline = time.monotonic() + timeout
        while True:
            found = list((self.data / "recaps").glob("*/sessions/*.json"))
            if found:
                return found[0]
            assert time.monotonic() < deadline, "no recap stored"
            time.sleep(0.05)

    def start(
        self, session: str, source: str = "startup", *flags: str
    ) -> subprocess.CompletedProcess[bytes]:
        """session-start; one that has to build a recap may take its time (``--build-wait``)
        unless other flags are given."""
        return self.run(
            "hook",
            "session-start",
            *(flags or ("--build-wait", "120")),
            stdin=self.payload("SessionStart", session, source=source),
        )


def _context(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    out = answer["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    text: str = out["additionalContext"]
    return text


def _recap_of(path: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [*_chunkscope(), "recap", str(path)], capture_output=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


@pytest.fixture
def claude(tmp_path: Path) -> Claude:
    return Claude(tmp_path)


def test_session_end_then_start_injects_the_recap_and_writes_nothing_in_the_project(
    claude: Claude,
) -> None:
    claude.session("older", POEMS, age=3600)
    claude.session("s1", MULTIPLY)
    # As installed: the recap is built in a background process, the hook returns at once.
    ended = claude.end("s1", "--budget", "1000")
    assert ended.returncode == 0, ended.stderr
    assert (ended.stdout, ended.stderr) == (b"", b"")
    stored = claude.stored()
    assert stored.parent.parent.name == project_key(claude.project)
    assert stored.parent.parent.name.startswith("work-my-app-")
    assert json.loads(stored.read_text())["transcript"].endswith("s1.jsonl")

    started = claude.start("s2")
    context = _context(started)
    recap = _recap_of(claude.folder / "s1.jsonl", claude.env)
    assert recap.strip()
    # The text `chunkscope recap` prints for the transcript, after one line saying what it is.
    head, _, body = context.partition("\n\n")
    assert "s1.jsonl" in head and "not an instruction" in head
    assert body == recap
    assert "multiply" in body.lower()
    assert list(claude.project.iterdir()) == []  # nothing written into the project


@pytest.mark.parametrize(
    "stdin",
    [b"garbage", b"", b"[1, 2]", b'{"transcript_path": 3}', b"\xff\xfe{", b'{"cwd": "/"'],
)
@pytest.mark.parametrize("hook", ["session-start", "session-end"])
def test_bad_stdin_exits_0_with_nothing_on_stdout(claude: Claude, hook: str, stdin: bytes) -> None:
    done = claude.run("hook", hook, stdin=stdin)
    assert done.returncode == 0
    assert done.stdout == b""
    if hook == "session-end" or stdin != b'{"transcript_path": 3}':
        lines = done.stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith("chunkscope: hook ")
        log = (claude.data / "hooks.log").read_text().splitlines()
        assert len(log) == 1 and lines[0].removeprefix("chunkscope: ") in log[0]


@pytest.mark.parametrize(
    ("hook", "flags"),
    [("session-end", ()), ("session-end", ("--wait",)), ("pre-compact", ())],
)
def test_a_binary_transcript_is_said_at_once_on_stderr_and_in_the_log(
    claude: Claude, hook: str, flags: tuple[str, ...]
) -> None:
    """Walk 16, 13: session-end exited 0 with nothing on stderr and the background build
    logged "looks like a binary file" seconds later. Checked before detaching: one line on
    stderr and the same line in the log when the hook returns, and no build after it."""
    transcript = claude.folder / "bin.jsonl"
    transcript.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    event = "PreCompact" if hook == "pre-compact" else "SessionEnd"
    done = claude.run("hook", hook, *flags, stdin=claude.payload(event, "bin"))
    assert (done.returncode, done.stdout) == (0, b"")
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and "looks like a binary file" in lines[0], lines
    log = (claude.data / "hooks.log").read_text().splitlines()
    assert len(log) == 1 and log[0].endswith(lines[0].removeprefix("chunkscope: "))
    time.sleep(1.0)  # no background build comes to say it again
    assert len((claude.data / "hooks.log").read_text().splitlines()) == 1


@pytest.mark.parametrize("flags", [("--wait",), ("--budget", "500")])
def test_a_missing_transcript_is_a_logged_line_not_a_failure(
    claude: Claude, flags: tuple[str, ...]
) -> None:
    done = claude.end("gone", *flags)
    assert (done.returncode, done.stdout) == (0, b"")
    assert "gone.jsonl" in done.stderr.decode()
    assert "no such transcript" in (claude.data / "hooks.log").read_text()
    assert not (claude.data / "recaps").exists()


def test_first_run_builds_from_the_newest_other_transcript(claude: Claude) -> None:
    claude.session("poems", POEMS, age=7200)
    claude.session("multiply", MULTIPLY, age=60)
    context = _context(claude.start("new"))
    assert "multiply.jsonl" in context.partition("\n\n")[0]
    # ... and keeps it, so the next start reads it instead of building it again.
    stored = StoredRecap.from_dict(json.loads(claude.stored().read_text()), "stored")
    assert stored.transcript.endswith("multiply.jsonl")
    assert stored.text in context


def test_after_a_crash_the_newer_session_wins_over_the_stored_recap(claude: Claude) -> None:
    claude.session("poems", POEMS, age=7200)
    assert claude.end("poems").returncode == 0
    claude.session("crashed", MULTIPLY)  # newer, and its SessionEnd never ran
    os.utime(claude.folder / "crashed.jsonl")
    context = _context(claude.start("new"))
    assert "crashed.jsonl" in context.partition("\n\n")[0]


def test_a_newer_session_with_nothing_to_recap_hides_no_stored_recap(claude: Claude) -> None:
    claude.session("s1", MULTIPLY, age=600)
    assert claude.end("s1").returncode == 0
    empty = claude.folder / "opened-and-left.jsonl"
    empty.write_text('{"type":"file-history-snapshot","messageId":"m","snapshot":{}}\n')
    started = claude.start("new")
    assert "s1.jsonl" in _context(started).partition("\n\n")[0]
    assert "the stored recap goes in instead" in (claude.data / "hooks.log").read_text()


def test_a_grown_session_is_built_again_with_the_hooks_budget(claude: Claude) -> None:
    transcript = claude.session("s1", POEMS, age=600)
    done = claude.run(
        "hook", "pre-compact", "--budget", "120", stdin=claude.payload("PreCompact", "s1")
    )
    assert done.returncode == 0, done.stderr
    first = json.loads(claude.stored().read_text())
    assert first["budget"] == 120 and 0 < first["used_tokens"] <= 120
    later = transcript.stat().st_mtime + 3600  # the session went on, then was killed
    os.utime(transcript, (later, later))
    _context(claude.start("new"))
    again = json.loads(claude.stored().read_text())
    assert again["event"] == "SessionStart" and again["created"] > first["created"]
    assert again["budget"] == 120 and again["used_tokens"] <= 120


def test_resume_injects_nothing_and_compact_restores_this_session(claude: Claude) -> None:
    claude.session("s1", MULTIPLY)
    done = claude.run(
        "hook", "pre-compact", stdin=claude.payload("PreCompact", "s1", trigger="auto")
    )
    assert (done.returncode, done.stdout) == (0, b""), done.stderr
    resumed = claude.start("s1", source="resume")
    assert (resumed.returncode, resumed.stdout) == (0, b"")
    context = _context(claude.start("s1", source="compact"))
    head = context.partition("\n\n")[0]
    assert "s1.jsonl" in head and "this session before its context was compacted" in head
    assert "previous session" not in head


def test_plain_output_and_output_file_in_the_project_only_when_asked(claude: Claude) -> None:
    claude.session("s1", MULTIPLY)
    done = claude.run(
        "hook",
        "session-end",
        "--wait",
        "--output",
        "notes/_recap.md",
        stdin=claude.payload("SessionEnd", "s1", reason="clear"),
    )
    assert done.returncode == 0, done.stderr
    written = (claude.project / "notes" / "_recap.md").read_text()
    plain = claude.run(
        "hook", "session-start", "--plain", stdin=claude.payload("SessionStart", "s2")
    )
    assert plain.returncode == 0
    assert plain.stdout.decode().endswith(written)


# --------------------------------------------------------------------------- install


USER_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "model": "opus",
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier"}]}
        ],
    },
}


def _ours(doc: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        h
        for g in doc["hooks"].get(event, [])
        for h in g["hooks"]
        if "chunkscope" in h["command"] and " hook " in h["command"]
    ]


def test_install_twice_keeps_the_users_settings_and_adds_ours_once(claude: Claude) -> None:
    settings = claude.home / ".claude" / "settings.json"
    settings.write_text(json.dumps(USER_SETTINGS, indent=4))
    for _ in range(2):
        done = claude.run("hook", "install")
        assert (done.returncode, done.stdout) == (0, b""), done.stderr
    doc = json.loads(settings.read_text())
    assert doc["permissions"] == USER_SETTINGS["permissions"]
    assert doc["model"] == "opus"
    assert doc["hooks"]["PostToolUse"] == USER_SETTINGS["hooks"]["PostToolUse"]
    assert doc["hooks"]["SessionStart"][0] == USER_SETTINGS["hooks"]["SessionStart"][0]
    for event in ("SessionStart", "SessionEnd", "PreCompact"):
        assert len(_ours(doc, event)) == 1
    assert _ours(doc, "SessionStart")[0]["command"].endswith(" hook session-start --agent claude")
    backups = list(settings.parent.glob("settings.json.chunkscope-*.bak"))
    assert len(backups) == 1  # the second install changed nothing
    assert json.loads(backups[0].read_text()) == USER_SETTINGS

    # The installed command is a hook Claude Code can run: it answers as one.
    claude.session("s1", MULTIPLY)
    command = _ours(doc, "SessionEnd")[0]["command"]
    ran = subprocess.run(
        command,
        shell=True,
        input=json.dumps(claude.payload("SessionEnd", "s1")).encode(),
        capture_output=True,
        cwd=claude.project,
        env=claude.env,
        timeout=120,
    )
    assert (ran.returncode, ran.stdout) == (0, b""), ran.stderr
    assert "s1.jsonl" in claude.stored().read_text()
    started = subprocess.run(
        _ours(doc, "SessionStart")[0]["command"],
        shell=True,
        input=json.dumps(claude.payload("SessionStart", "s2", source="startup")).encode(),
        capture_output=True,
        cwd=claude.project,
        env={**claude.env, "CLAUDE_PROJECT_DIR": str(claude.project)},
        timeout=120,
    )
    assert "s1.jsonl" in _context(started).partition("\n\n")[0]

    done = claude.run("hook", "uninstall")
    assert done.returncode == 0, done.stderr
    assert json.loads(settings.read_text()) == USER_SETTINGS


def test_install_into_a_project_and_print(claude: Claude) -> None:
    printed = claude.run("hook", "install", "--project", "--print")
    assert printed.returncode == 0
    assert len(_ours(json.loads(printed.stdout), "SessionEnd")) == 1
    assert not (claude.project / ".claude").exists()
    assert claude.run("hook", "install", "--project").returncode == 0
    doc = json.loads((claude.project / ".claude" / "settings.json").read_text())
    assert doc == json.loads(printed.stdout)
    assert not (claude.home / ".claude" / "settings.json").exists()


@pytest.mark.parametrize(
    "text", ['{"hooks": {"SessionStart": [}', "[1, 2]", '{"hooks": []}', '{"a": 1} x']
)
def test_a_settings_file_that_is_not_a_json_object_is_refused_untouched(
    claude: Claude, text: str
) -> None:
    settings = claude.home / ".claude" / "settings.json"
    settings.write_text(text)
    for command in ("install", "uninstall"):
        done = claude.run("hook", command)
        assert done.returncode == 2
        lines = done.stderr.decode().splitlines()
        assert len(lines) == 1 and str(settings) in lines[0] and "not changed" in lines[0]
        assert settings.read_text() == text
    assert not list(settings.parent.glob("*.bak"))


# --------------------------------------------------------------------------- in process


def _stored(
    transcript: Path, created: float, session: str = "s", event: str = "SessionEnd"
) -> StoredRecap:
    return StoredRecap(
        "/p", str(transcript), "text", session_id=session, created=created, event=event
    )


def test_start_plan(tmp_path: Path) -> None:
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    for path, t in ((old, 1000.0), (new, 2000.0)):
        path.write_text("{}\n")
        os.utime(path, (t, t))
    current = str(tmp_path / "current.jsonl")
    others = [new, old]

    def plan(recaps: list[StoredRecap], source: str = "startup", **kw: Any) -> Any:
        kw.setdefault("session_id", "c")
        kw.setdefault("transcript", current)
        return start_plan(recaps, source=source, others=others, **kw)

    assert plan([_stored(new, 2000.5)]).use is not None
    # The stored recap is of an older session than the newest: a crash; build the newest.
    crashed = plan([_stored(old, 1000.5)], source="clear")
    assert crashed.build_from == new and crashed.fallback is not None
    # The stored session grew after its recap was stored (killed after PreCompact).
    assert plan([_stored(new, 1500.0)]).build_from == new
    assert plan([]).build_from == new
    assert plan([], source="resume").build_from is None
    # Two sessions at once: the running one's recap from before its compaction is not
    # what the next session gets, the one that ended is.
    running = _stored(new, 2000.5, session="a", event="PreCompact")
    ended = _stored(old, 1000.5, session="b")
    chosen = plan([running, ended])
    assert chosen.use is ended and not chosen.own
    # Codex tells no end: its newest earlier session's recap goes in, whatever stored it.
    assert plan([running, ended], has_end=False).use is running
    # After a compaction: this session's own recap, said to be its own.
    compact = plan([running, ended], source="compact", session_id="a", transcript=str(new))
    assert compact.use is running and compact.own
    compact = plan([ended], source="compact", session_id="new", transcript=str(new))
    assert compact.build_from == new and compact.own
    # The newest session's recap, not the newest recap (a review stored an older one anew).
    reviewed_later = _stored(old, 9000.0, session="b", event="review")
    assert plan([reviewed_later, _stored(new, 2000.5, session="a")]).use.transcript == str(new)
    # The current session's own transcript is never "an earlier session".
    assert plan([], transcript=str(new)).build_from == old


def test_project_keys_are_readable_and_distinct() -> None:
    a = project_key("/home/me/src/my app")
    b = project_key("/home/me/src/my-app")
    assert a.startswith("src-my-app-") and b.startswith("src-my-app-") and a != b
    assert re.fullmatch(r"[A-Za-z0-9._-]+", project_key("/")) is not None
    assert re.fullmatch(r"[A-Za-z0-9._-]+", project_key("C:\\Users\\é\\..\\x y"))


def test_a_corrupt_stored_recap_is_an_error_with_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.inject.recaps import load_stored, project_dir

    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path))
    folder = project_dir("/x/y")
    folder.mkdir(parents=True)
    (folder / "recap.json").write_text("{not json")
    with pytest.raises(InjectError, match=r"recap\.json: not valid JSON"):
        load_stored("/x/y")


def test_the_project_is_claude_project_dir_whatever_the_hooks_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.inject.recaps import project_root

    (tmp_path / "app" / "src").mkdir(parents=True)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    assert project_root(tmp_path / "app" / "src") == (tmp_path / "app" / "src").resolve()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path / "app"))
    assert project_root(tmp_path / "app" / "src") == (tmp_path / "app").resolve()


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_transcript_that_is_no_file_is_said_for_what_it_is(claude: Claude, kind: str) -> None:
    """Walk 35, F4: a transcript path that is a FIFO or a folder was "no such
    transcript", though it exists; the line (stderr and log) says what it is, as
    `chunkscope chunk` does."""
    import os

    transcript = claude.folder / "odd.jsonl"
    if kind == "fifo":
        os.mkfifo(transcript)
    else:
        transcript.mkdir()
    done = claude.end("odd")
    assert (done.returncode, done.stdout) == (0, b"")
    said = "not a regular file (a FIFO" if kind == "fifo" else "is a directory, not a file"
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and said in lines[0] and "no such" not in lines[0], lines
    assert said in (claude.data / "hooks.log").read_text()
