"""Files and secrets (issue 7): atomic writes under SIGKILL, a planted API key that never
leaks, the config file's mode, terminal escapes on a terminal, and a cache that survives
corruption and two writers at once."""

from __future__ import annotations

import io
import json
import os
import pty
import random
import select
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from chunkscope.engine.embed.cache import EmbeddingCache
from chunkscope.engine.recap.core import save_recap
from chunkscope.tui.cli import main
from tests.fakeserver import FakeOpenAIServer, Fault, backend_env
from tests.hostile.proc import ROOT, check_outcome, run_cli
from tests.hostile.recap_writer import version_text

SAMPLES = ROOT / "sample_logs"
KEY = "sk-test-PLANTED-" + "7f3a9c1e5b2d4086af1c" * 2


@pytest.fixture
def env(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    return backend_env(server, tmp_path, monkeypatch, 0.5)


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    check_outcome(code, out, err, " ".join(argv))
    return code, out, err


# --------------------------------------------------------------------------- atomic writes


def _check_whole(text: str) -> int:
    first, _, _ = text.partition("\n")
    assert first.startswith("version "), f"torn file, starts {text[:40]!r}"
    n = int(first.split()[1])
    assert text == version_text(n), f"torn file: version {n} of {len(text)} chars"
    return n


def test_killed_writer_leaves_old_or_new_file_never_torn(tmp_path: Path) -> None:
    target = tmp_path / "_recap.md"
    target.write_text(version_text(0), encoding="utf-8")
    rng = random.Random(7)
    seen: set[int] = set()
    for round_no in range(1, 5):
        n0 = round_no * 1_000_000
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.hostile.recap_writer", str(target), str(n0)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        # Round 1 leaves time for whole writes; the others kill at random moments.
        time.sleep(0.5 if round_no == 1 else rng.uniform(0.02, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        text = target.read_text(encoding="utf-8")
        seen.add(_check_whole(text))
        temps = [p.name for p in tmp_path.iterdir() if p.name != target.name]
        assert len(temps) <= 1, temps  # at most the one the killed writer was filling
        # The next write removes what a dead writer left: nothing accumulates.
        save_recap(target, text)
        assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert any(n >= 1_000_000 for n in seen), f"no write ever finished: {seen}"


def test_streamed_write_that_fails_midway_keeps_the_old_file(tmp_path: Path) -> None:
    """`chunk -o` writes its text a chunk at a time: a failure after some pieces leaves
    the previous file whole and no temp file behind."""
    from chunkscope.engine.fileio import atomic_write_text

    target = tmp_path / "out.txt"
    atomic_write_text(target, iter(["old ", "text\n"]))
    assert target.read_text(encoding="utf-8") == "old text\n"

    def pieces() -> Iterator[str]:
        yield "new " * 100_000
        raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError):
        atomic_write_text(target, pieces())
    assert target.read_text(encoding="utf-8") == "old text\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# --------------------------------------------------------------------------- secrets


def _grep_tree(root: Path) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and KEY.encode() in path.read_bytes():
            hits.append(str(path))
        if KEY in path.name:
            hits.append(str(path))
    return hits


def test_planted_key_never_appears_anywhere(
    server: FakeOpenAIServer,
    env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    log = SAMPLES / "markup_injection.jsonl"
    url = server.base_url
    embed = [
        "chunk",
        str(log),
        "--embed",
        "--merge",
        "seed",
        "--embedder",
        "openai",
        "--model",
        "emb",
    ]
    embed += ["--base-url", url]
    recap = ["recap", str(log), "--summarizer", "llm", "--summary-model", "chat"]
    recap += ["--embedder", "openai", "--model", "emb", "--base-url", url]
    outputs: list[str] = []

    for argv in (
        [*embed, "-o", str(tmp_path / "chunks.txt")],
        [*embed, "--format", "json"],
        [*recap, "-o", str(tmp_path / "_recap.md")],
        [*recap, "--format", "json"],
    ):
        code, out, err = _cli(argv, capsys)
        assert code == 0, err
        outputs += [out, err]
    assert "I moved the cache" in (tmp_path / "_recap.md").read_text(encoding="utf-8")
    code, out, err = _cli(["cache", "info", "--format", "json"], capsys)
    outputs += [out, err]
    # The key was really sent (so this test would see it if it leaked) ...
    assert server.requests and all(
        r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests
    )

    # ... and failing runs: the server rejects the key and echoes it, as OpenAI does.
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}."}})
    server.always(Fault.http(401, body=echo))
    for argv in ([*embed, "--format", "json"], recap):
        code, out, err = _cli([*argv, "--no-cache"], capsys)  # the cache holds it all by now
        assert code == 2 and "HTTP 401: Incorrect API key provided: ***" in err
        outputs += [out, err]
    long_log = SAMPLES / "cache_refactor.jsonl"  # long enough for the episodic LLM call
    strategy = ["chunk", str(long_log), "--strategy", "episodic", "--llm-base-url", url]
    code, out, err = _cli([*strategy, "--format", "json"], capsys)
    assert code == 0 and "Incorrect API key" in out  # the error is reported, the key is not
    outputs += [out, err]

    for text in outputs:
        assert KEY not in text
        assert KEY[:24] not in text
    assert _grep_tree(tmp_path) == []  # -o files, the SQLite cache (and WAL), the config dir
    assert (tmp_path / "cache" / "cache.sqlite3").stat().st_size > 0


def test_config_file_is_created_with_mode_0600(env: dict[str, str]) -> None:
    settings_mod = pytest.importorskip("chunkscope.engine.config.settings")
    if not hasattr(settings_mod, "save_settings"):
        pytest.skip("chunkscope.engine.config.settings has no save_settings yet")
    old = os.umask(0o022)
    try:
        path = settings_mod.save_settings(settings_mod.Settings())
    finally:
        os.umask(old)
    assert Path(path).parent == Path(env["CHUNKSCOPE_CONFIG_DIR"])
    assert stat.S_IMODE(Path(path).stat().st_mode) == 0o600
    # A file someone made world-readable is tightened on the next save.
    Path(path).chmod(0o644)
    settings_mod.save_settings(settings_mod.Settings())
    assert stat.S_IMODE(Path(path).stat().st_mode) == 0o600
    leftovers = [p.name for p in Path(path).parent.iterdir() if p.name != Path(path).name]
    assert leftovers == []


# --------------------------------------------------------------------------- terminals

LOG_ESCAPES = (b"\x1b[31m", b"\x1b]0;", b"\x1b[2J", b"\x07", b"\x1b]8;;")


def _read_pty(argv: list[str], env: dict[str, str]) -> bytes:
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chunkscope.tui.cli", *argv],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        proc.stderr.close()
    assert proc.returncode == 0
    return b"".join(chunks)


def test_escape_sequences_are_removed_on_a_terminal(env: dict[str, str]) -> None:
    seen = _read_pty(["chunk", str(SAMPLES / "markup_injection.jsonl")], env)
    assert b"window title was changed here" in seen and b"ERROR disk" in seen
    for seq in LOG_ESCAPES:
        assert seq not in seen, seq
    assert b"\x1b" not in seen and b"\x9b" not in seen.replace(b"\xc2\x9b", b"")


def _message(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text, "timestamp": "2026-02-13T09:00:00"})


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


ESCAPED = (
    "The build printed \x1b[31mERROR\x1b[0m in red and rang the bell \x07 twice. "
    "Then \x1b]0;pwned\x07 retitled the window and \x1b[2J cleared the screen. "
    "A C1 \x9b31m introducer and a \r carriage return came last."
)


@pytest.mark.parametrize(
    "argv",
    [["chunk", "--embed"], ["recap", "--budget", "100000", "--headings"]],
    ids=["chunk-embed", "recap"],
)
def test_escape_sequences_on_a_terminal_in_process(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, argv: list[str], tmp_path: Path
) -> None:
    log = tmp_path / "escapes.jsonl"
    roles = ("user", "assistant", "tool")
    log.write_text("".join(_message(r, ESCAPED) + "\n" for r in roles), encoding="utf-8")
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stdout", plain)
    assert main([*argv, str(log)]) == 0
    if argv[0] == "chunk":
        assert "\x1b[" in plain.getvalue()  # not a terminal: log text is data, kept as it is
    else:  # a recap is text for an agent to read: no control character in it (walk 6)
        assert not any(ch in plain.getvalue() for ch in "\x00\x1b\x07\x9b"), plain.getvalue()
    term = _Terminal()
    monkeypatch.setattr(sys, "stdout", term)
    assert main([*argv, str(log)]) == 0
    shown = term.getvalue()
    assert shown.strip()
    assert not any(ch in shown for ch in "\x1b\x07\x9b\r"), repr(shown[:200])


def test_json_keeps_escapes_as_data(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _cli(
        ["chunk", str(SAMPLES / "markup_injection.jsonl"), "--format", "json"], capsys
    )
    assert code == 0
    texts = "".join(c["text"] for c in json.loads(out)["chunks"])
    assert "\x1b[31mred\x1b[0m" in texts and "\x07" in texts
    assert "\x1b" not in out  # JSON escapes control characters itself


# --------------------------------------------------------------------------- the cache


def _vectors(env: dict[str, str]) -> int:
    with EmbeddingCache(Path(env["CHUNKSCOPE_CACHE_DIR"]) / "cache.sqlite3") as cache:
        return int(cache.info()["total_vectors"])


def test_garbage_cache_file_is_moved_aside_and_rebuilt(
    server: FakeOpenAIServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = Path(env["CHUNKSCOPE_CACHE_DIR"])
    folder.mkdir(parents=True)
    (folder / "cache.sqlite3").write_bytes(random.Random(3).randbytes(40_000))
    argv = ["chunk", str(SAMPLES / "research_notes.jsonl"), "--embed", "--embedder", "openai"]
    argv += ["--model", "emb", "--base-url", server.base_url]
    code, out, err = _cli(argv, capsys)
    assert code == 0 and "=== After merging" in out
    assert "damaged" in err and "moved it to cache.sqlite3.corrupt-" in err
    assert [p.name for p in folder.glob("cache.sqlite3.corrupt-*")]
    sent = sum(len(r.body["input"]) for r in server.requests_to("/embeddings"))
    assert sent and _vectors(env) == sent

    # A cache damaged half-way (a torn page) is also survived.
    data = bytearray((folder / "cache.sqlite3").read_bytes())
    data[len(data) // 2 :] = random.Random(4).randbytes(len(data) - len(data) // 2)
    (folder / "cache.sqlite3").write_bytes(bytes(data))
    code, again, err = _cli(argv, capsys)
    assert code == 0 and again == out


def _log(path: Path, tag: str, n: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            text = f"{tag} step {i}: vector {i} goes in the cache.\n\n{tag} part two of {i}."
            fh.write(json.dumps({"role": "user" if i % 2 else "assistant", "content": text}) + "\n")
    return path


def test_two_processes_fill_the_cache_at_once(
    server: FakeOpenAIServer,
    env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The held replies must not time out; the child also carries a planted key (a real
    # process: nothing it prints, writes or caches may hold it).
    env = {**env, "CHUNKSCOPE_HTTP_TIMEOUT": "30", "OPENAI_API_KEY": KEY}
    monkeypatch.setenv("CHUNKSCOPE_HTTP_TIMEOUT", "30")
    # Every reply waits until both runs have sent their first batch, so the two runs
    # store their batches at the same time.
    both = threading.Event()
    server.always(Fault.gated(both, seconds=30))
    logs = [_log(tmp_path / f"{tag}.jsonl", tag, 300) for tag in ("alpha", "beta")]
    argv = ["chunk", "--embed", "--merge", "seed", "--embedder", "openai", "--model", "emb"]
    argv += ["--min-chars", "0"]
    argv += ["--base-url", server.base_url]

    def watch() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            firsts = {r.body["input"][0].split()[1] for r in server.requests_to("/embeddings")}
            if {"alpha", "beta"} <= firsts:
                break
            time.sleep(0.01)
        both.set()

    # One writer is a child process, the other this one (in a thread): two processes.
    with ThreadPoolExecutor(max_workers=2) as pool:
        pool.submit(watch)
        child_argv = [*argv, str(logs[0]), "-o", str(tmp_path / "alpha.txt")]
        child = pool.submit(run_cli, child_argv, env=env, timeout=60)
        code, _, err = _cli([*argv, str(logs[1])], capsys)
        r = child.result()
    assert r.returncode == 0 and not r.timed_out, r.describe()
    assert code == 0, err
    assert "cannot write" not in r.stderr + err and "in-memory" not in r.stderr + err
    assert "=== After merging" in (tmp_path / "alpha.txt").read_text(encoding="utf-8")
    assert any(q.headers.get("authorization") == f"Bearer {KEY}" for q in server.requests)
    assert KEY.encode() not in r.stdout and KEY not in r.stderr
    assert _grep_tree(tmp_path) == []  # the -o file, the cache, the config dir
    requests = server.requests_to("/embeddings")
    sent = {t for r in requests for t in r.body["input"]}
    assert len(sent) == sum(len(r.body["input"]) for r in requests) > 600
    for tag in ("alpha", "beta"):
        assert len([r for r in requests if f"{tag} step" in r.body["input"][0]]) == 2
    assert _vectors(env) == len(sent)  # every vector of both runs is there
    server.reset()
    code, _, err = _cli([*argv, str(logs[0])], capsys)
    assert code == 0 and server.requests == [], err


def test_writing_to_a_device_or_a_fifo_never_replaces_it(tmp_path: Path) -> None:
    """`-o /dev/null` once replaced /dev/null with a regular file (the temp file was
    renamed over it): a target that is not a regular file is written to directly."""
    import os
    import stat
    import threading

    from chunkscope.engine.fileio import atomic_write_text

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    atomic_write_text(fifo, iter(["through ", "the pipe\n"]))
    reader.join(timeout=10)
    assert got == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temp file left


def test_a_failed_write_to_a_special_file_says_so_and_never_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A socket, a FIFO whose reader leaves early and a full device refuse the write:
    the command says it could not write, exit 2, and the special file stays what it
    was (walk 37, F1: the failed write fell through to the temp file's rename, which put
    a regular file holding the rest of the page in its place, and said "wrote")."""
    import os
    import socket
    import stat
    import threading

    log = str(Path(__file__).resolve().parents[1] / "sample_logs" / "research_notes.jsonl")
    sock_path = tmp_path / "my.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        code = main(["recap", log, "-o", str(sock_path)])
        err = capsys.readouterr().err
        assert code == 2 and f"cannot write {sock_path}" in err and "wrote" not in err.lower()
        assert stat.S_ISSOCK(os.stat(sock_path).st_mode)

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read_a_little() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read(10))  # then the reader leaves

    reader = threading.Thread(target=read_a_little)
    reader.start()
    code = main(["report", log, "-o", str(fifo)])
    reader.join(timeout=10)
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write {fifo}" in err, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got == [b"<!DOCTYPE "]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.sock", "pipe"]  # no temp file

    if os.path.exists("/dev/full") and os.access("/dev/full", os.W_OK):
        from chunkscope.engine.fileio import atomic_write_text

        with pytest.raises(OSError):
            atomic_write_text("/dev/full", "x" * 100_000)
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    from chunkscope.engine.fileio import atomic_write_text

    real = tmp_path / "real.md"
    real.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    atomic_write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
