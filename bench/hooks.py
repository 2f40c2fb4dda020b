"""How long the Claude Code hooks take, as Claude Code runs them: a new process each time.

    .venv/bin/python bench/hooks.py TRANSCRIPT.jsonl [...] [--repeat 7]

For each transcript (a real Claude Code session: the fixtures in tests/fixtures, or any
``~/.claude/projects/*/*.jsonl``), in a temporary HOME with the transcript copied into
Claude Code's folder of a project:

* ``session-end``: what Claude Code waits for when a session ends (the recap is handed
  to a background process);
* ``session-end --wait``: build and store the recap (that background process's work);
* ``session-start (stored)``: print the stored recap (every new session: the common case);
* ``session-start (built)``: nothing stored (a first run, a crash), so the recap of the
  newest other transcript is built first.

Each row is the median (and min-max) wall time of ``--repeat`` runs of the installed
``chunkscope`` console script, after one untimed run (bytecode compiled, files in the
page cache, the token encoding's table in the cache as after any first run). The
offline embedder and summarizer the hooks use keep nothing on disk, so no run reuses
another's work.
"""

from __future__ import annotations

import argparse
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


def _run(cmd: list[str], payload: dict[str, str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        cmd, input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=cwd
    )
    took = time.perf_counter() - start
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"{cmd}: {done.stderr.decode().strip()}")
    return took


def _timed(
    kind: str,
    repeat: int,
    exe: list[str],
    payloads: tuple[dict[str, str], dict[str, str]],
    stored: Path,
    env: dict[str, str],
    cwd: Path,
) -> list[float]:
    """`repeat` wall times of one hook after an untimed run; "built" empties the store
    first, so session-start has to build the recap."""
    times = []
    for i in range(repeat + 1):
        if kind in ("built", "end"):
            shutil.rmtree(stored, ignore_errors=True)
        hook = {"end": ["session-end"], "wait": ["session-end", "--wait"]}.get(
            kind, ["session-start"]
        )
        payload = payloads[0 if kind in ("end", "wait") else 1]
        took = _run([*exe, "hook", *hook], payload, env, cwd)
        deadline = time.monotonic() + 120
        while kind == "end" and not list(stored.glob("*/recap.json")):
            # The background process's work is done before the next run starts.
            assert time.monotonic() < deadline, "the background session-end stored nothing"
            time.sleep(0.05)
        if i:
            times.append(took)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("transcripts", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    exe = Path(sys.executable).parent / "chunkscope"
    base = Path(tempfile.mkdtemp(prefix="chunkscope-bench-hooks-"))
    try:
        home = base / "home"
        project = base / "project"
        project.mkdir(parents=True)
        folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
        folder.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CHUNKSCOPE_", "CLAUDE_"))}
        env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
        env |= {"XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config")}
        rows = []
        for source in args.transcripts:
            transcript = folder / "session.jsonl"
            shutil.copyfile(source, transcript)
            ids = {"session_id": "session", "cwd": str(project)}
            end = {**ids, "transcript_path": str(transcript), "hook_event_name": "SessionEnd"}
            start = {
                "session_id": "next",
                "cwd": str(project),
                "transcript_path": str(folder / "next.jsonl"),
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
            stored = home / "data" / "chunkscope" / "recaps"

            size = source.stat().st_size / 1e6
            for label, kind in (
                ("session-end", "end"),
                ("session-end --wait", "wait"),
                ("session-start (stored)", "stored"),
                ("session-start (built)", "built"),
            ):
                t = _timed(kind, args.repeat, [str(exe)], (end, start), stored, env, project)
                rows.append(
                    (source.name, f"{size:.2f}", label, statistics.median(t), min(t), max(t))
                )
        print(f"{'transcript':<44} {'MB':>5}  {'hook':<24} {'median':>7} {'min-max':>13}")
        for name, mb, label, med, lo, hi in rows:
            print(f"{name:<44} {mb:>5}  {label:<24} {med:6.2f}s {lo:5.2f}-{hi:5.2f}s")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
