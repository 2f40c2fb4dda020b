"""How long the agent hooks take, as the tools run them: a new process each time.

    .venv/bin/python bench/hooks.py [--sizes 2,50] [--repeat 3] [--agents claude,codex,gemini]

For each agent (Claude Code, Codex CLI, Gemini CLI) and transcript size (MB), in a
temporary HOME with a session of that size in the tool's own folder for a project:

* ``end``: what the tool waits for at a session's end (Codex: at each Stop); the recap
  is handed to a background process;
* ``background build``: from that hook's start until the recap is stored (the work the
  background process does: read, chunk, recap, store);
* ``start (stored)``: the next session's start, the recap stored (the common case);
* ``start (nothing stored)``: a first start, or after a crash: it waits at most
  ``engine.inject.recaps.START_WAIT`` for the build, then injects nothing and leaves the build
  to a background process (awaited before the next row).

The sessions are generated from real public ones (tests/fixtures/SOURCES.md): the
records after the first are repeated, with fresh ids (uuids, tool-call ids, Claude
Code's parent chain carried on), until the file has the size asked. ``start (stored)``
is the median (min-max) of ``--repeat`` runs after one untimed run; the other rows are
one run each (each is a build of the whole transcript).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SOURCES = {
    "claude": FIXTURES / "recap" / "claude_spotter_tool_heavy.jsonl",
    "codex": FIXTURES / "recap" / "codex_rtchess_tail.jsonl",
    "gemini": FIXTURES / "gemini-cli" / "agent-history-session-01.json",
}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TOOL_ID = re.compile(r"\b((?:toolu|call|fc)_[A-Za-z0-9]+)")


def _fresh(text: str, k: int) -> str:
    """`text` with every uuid and tool-call id made that of repetition `k`."""
    text = _UUID.sub(lambda m: m.group(0)[:-6] + f"{k:06x}", text)
    return _TOOL_ID.sub(lambda m: f"{m.group(1)}r{k}", text)


def grow_jsonl(source: Path, target: Path, size: int, *, chain: bool) -> None:
    """The first record of `source`, then its other records again and again with fresh
    ids until `size` bytes; `chain`: each repetition's first record hangs under the
    previous one's last (Claude Code's ``parentUuid``)."""
    lines = source.read_text(encoding="utf-8").splitlines()
    head, body = lines[0], lines[1:]
    written = 0
    last: str | None = None
    with open(target, "w", encoding="utf-8") as out:
        out.write(head + "\n")
        k = 0
        while written < size:
            first = True
            for line in body:
                record = json.loads(_fresh(line, k))
                if chain and isinstance(record, dict) and "uuid" in record:
                    if first and k and last is not None:
                        record["parentUuid"] = last
                    first = False
                    last = record["uuid"]
                text = json.dumps(record, ensure_ascii=False) + "\n"
                out.write(text)
                written += len(text.encode())
            k += 1


def grow_gemini(source: Path, target: Path, size: int) -> None:
    """A Gemini CLI chat (one JSON document) whose messages are `source`'s again and
    again with fresh ids, until about `size` bytes."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    messages = doc["messages"]
    one = len(json.dumps(messages).encode())
    times = max(1, size // max(1, one))
    doc["messages"] = [json.loads(_fresh(json.dumps(m), k)) for k in range(times) for m in messages]
    target.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")


class Bench:
    """A temporary HOME where one agent's session is ended and the next one started."""

    def __init__(self, base: Path, agent: str) -> None:
        self.agent = agent
        self.home = base / "home"
        self.project = (base / "project").resolve()
        self.project.mkdir(parents=True, exist_ok=True)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CHUNKSCOPE_", "CLAUDE_", "CODEX_", "GEMINI_"))
        }
        self.env |= {"HOME": str(self.home), "XDG_DATA_HOME": str(self.home / "data")}
        self.env |= {"XDG_CONFIG_HOME": str(self.home / "config")}
        self.env["PYTHONPATH"] = str(ROOT)
        if "CHUNKSCOPE_CACHE_DIR" in os.environ:
            self.env["CHUNKSCOPE_CACHE_DIR"] = os.environ["CHUNKSCOPE_CACHE_DIR"]
        self.store = self.home / "data" / "chunkscope" / "recaps"
        self.exe = [sys.executable, "-m", "chunkscope.tui.cli"]

    def place(self, source: Path, size: int) -> tuple[Path, Path]:
        """The session of `size` bytes where the tool keeps it, and the path of the next
        session's transcript."""
        if self.agent == "claude":
            folder = (
                self.home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(self.project))
            )
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "session.jsonl"
            grow_jsonl(source, path, size, chain=True)
            return path, folder / "next.jsonl"
        if self.agent == "codex":
            folder = self.home / ".codex" / "sessions" / "2026" / "11" / "27"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "rollout-2026-11-27T10-00-00-019aad50-0000-7000-8000-000000000001.jsonl"
            meta_source = self.home.parent / "rollout-with-cwd.jsonl"
            lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
            meta = json.loads(lines[0])
            meta["payload"]["cwd"] = str(self.project)
            meta_source.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
            try:
                grow_jsonl(meta_source, path, size, chain=False)
            finally:
                meta_source.unlink()
            nxt = folder / "rollout-2026-11-27T11-00-00-019aad50-0000-7000-8000-000000000002.jsonl"
            nxt.write_text(json.dumps(meta) + "\n", encoding="utf-8")
            os.utime(nxt, (time.time() + 60, time.time() + 60))
            return path, nxt
        digest = hashlib.sha256(str(self.project).encode()).hexdigest()
        folder = self.home / ".gemini" / "tmp" / digest / "chats"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "session-2026-11-27T10-00-dcbe78d3.json"
        grow_gemini(source, path, size)
        return path, folder / "session-2026-11-27T11-00-0f0f0f0f.json"

    def payloads(self, session: Path, nxt: Path) -> tuple[dict[str, Any], dict[str, Any]]:
        base = {"cwd": str(self.project)}
        end_event = {"claude": "SessionEnd", "codex": "Stop", "gemini": "SessionEnd"}[self.agent]
        end = {**base, "session_id": "s1", "transcript_path": str(session)}
        end["hook_event_name"] = end_event
        start = {**base, "session_id": "s2", "transcript_path": str(nxt)}
        start |= {"hook_event_name": "SessionStart", "source": "startup"}
        return end, start

    def run(self, args: list[str], payload: dict[str, Any]) -> tuple[float, bytes]:
        began = time.perf_counter()
        done = subprocess.run(
            [*self.exe, "hook", *args, "--agent", self.agent],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=self.env,
            cwd=self.project,
        )
        took = time.perf_counter() - began
        if done.returncode != 0:
            raise SystemExit(f"{args}: {done.stderr.decode().strip()}")
        return took, done.stdout

    def stored_after(self, began: float, timeout: float = 600) -> float:
        """Seconds from `began` until a recap is stored (polled every 20 ms); then waits
        for the background process to exit (freeing a big transcript's records takes a
        while), so the next row does not share the CPU with it."""
        deadline = time.monotonic() + timeout
        while not list(self.store.glob("*/sessions/*.json")):
            if time.monotonic() > deadline:
                raise SystemExit("the background build stored nothing; see hooks.log")
            time.sleep(0.02)
        took = time.perf_counter() - began
        while self.background() and time.monotonic() < deadline:
            time.sleep(0.05)
        return took

    def background(self) -> bool:
        """Whether a background build of this bench still runs (Linux: /proc)."""
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                cmdline = (proc / "cmdline").read_bytes()
                environ = (proc / "environ").read_bytes()
            except OSError:
                continue
            if b"--detached" in cmdline and f"HOME={self.home}".encode() in environ:
                return True
        return False


def _measure(
    agent: str, source: Path, mb: float, repeat: int, base: Path
) -> list[tuple[str, float, float, float]]:
    bench = Bench(base / f"{agent}-{mb:g}", agent)
    session, nxt = bench.place(source, int(mb * 1e6))
    end, start = bench.payloads(session, nxt)
    rows: list[tuple[str, float, float, float]] = []
    shutil.rmtree(bench.store, ignore_errors=True)
    began = time.perf_counter()
    took, _ = bench.run(["session-end"], end)
    rows.append(("end", took, took, took))
    built = bench.stored_after(began)
    rows.append(("background build", built, built, built))
    times = []
    for i in range(repeat + 1):
        took, out = bench.run(["session-start"], start)
        if not out.strip():
            raise SystemExit(f"{agent}: session-start injected nothing with a recap stored")
        if i:
            times.append(took)
    rows.append(("start (stored)", statistics.median(times), min(times), max(times)))
    shutil.rmtree(bench.store, ignore_errors=True)
    began = time.perf_counter()
    took, out = bench.run(["session-start"], start)
    rows.append((f"start (nothing stored{', injected' if out.strip() else ''})", took, took, took))
    bench.stored_after(began)  # the background build, before the next measurement
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--sizes", default="2,50", help="transcript sizes in MB")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--agents", default="claude,codex,gemini")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="chunkscope-bench-hooks-"))
    table: list[tuple[str, str, str, float, float, float]] = []
    try:
        for agent in args.agents.split(","):
            for mb in (float(s) for s in args.sizes.split(",")):
                for label, med, lo, hi in _measure(agent, SOURCES[agent], mb, args.repeat, base):
                    table.append((agent, f"{mb:g}", label, med, lo, hi))
                    print(f"{agent:<7} {mb:>4g} MB  {label:<32} {med:6.2f}s", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print()
    print("| agent | transcript | hook | wall time (median, min-max) |")
    print("|---|---|---|---|")
    for agent, mb, label, med, lo, hi in table:
        spread = f" ({lo:.2f}-{hi:.2f})" if hi > lo else ""
        print(f"| {agent} | {mb} MB | {label} | {med:.2f} s{spread} |")


if __name__ == "__main__":
    main()
