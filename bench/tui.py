"""Workbench speed, headless (`App.run_test`): first screen and slider steps.

    python bench/tui.py [--steps N] [--chunks N] [--steps-only]
    python bench/tui.py --huge [--mb 100] [--timeout 600]

Measures, after imports:

- ``first screen``: from start-up until both chunk columns and the similarity strip
  have been drawn with the merged result, for the largest bundled sample log and for
  a generated log of about 2,000 compacted chunks;
- ``slider step``: from a key press on a merge slider (std_k; the topic depth with
  the live score against topic marks: the log's topic changes, given as ``--gold``; and
  the size cap, max chars, in topic mode, where each step splits the topics anew)
  until the screen has been refreshed with the new merge, on the 2,000-chunk log with
  its embeddings cached
  in the pipeline (every step after the first reuses them). Two measures of each step:
  ``screen`` injects the key as a terminal would (through the driver) and stops when
  the updated screen has been composed (``drawn_generation``), which is what a user
  waits for; ``pilot`` is the same step through ``Pilot.press``, which also waits for
  the process to go idle twice (at least 2 x 20 ms of `wait_for_idle` polling after the
  screen is up), so it overstates the latency by that polling.

``sweep in a worker``: on the 2,000-chunk log, a 50-point sweep of the topic depth
(against the log's topic changes as marks) runs in the background worker while ``down``
/ ``up`` are pressed in the merged list every 50 ms: the sweep's time, and each key's
time until the selection has moved (the keys are answered while it runs).

``marks survive a crash``: runs the real ``chunkscope FILE`` in a pseudo-terminal,
presses ``v`` (the turn view), moves down and presses ``m`` (a topic mark), kills the
process with SIGKILL 50 ms later, and checks that the mark is in the file's saved marks
(`engine.evaluate.gold.load_marks`), as a reopened workbench would load them.

``--huge`` (issue 7): generates a log of ``--mb`` megabytes with `bench/parse.py`'s
`make_log` and opens it headless: when the progress dialog appears, the stages it shows,
the latency of a key pressed every second during the load (time until the app
dispatches it), the time to the first screen, how many lines the chunk lists render
(only what is visible), a slider step on the result, and the peak memory (ru_maxrss).
A second open of the same file is cancelled with Escape after ``--cancel-after``
seconds: the time until the dialog is gone and the load worker has stopped.

Prints a table of medians (and the worst case). Uses a temporary cache directory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = [
    "cache",
    "embedding",
    "sqlite",
    "merge",
    "threshold",
    "vector",
    "chunk",
    "summary",
    "recap",
    "budget",
    "token",
    "parser",
    "turn",
    "window",
    "slider",
    "theme",
    "render",
    "widget",
    "worker",
    "thread",
    "lock",
    "index",
    "query",
    "schema",
    "migration",
    "benchmark",
    "latency",
    "test",
    "fixture",
    "assert",
    "error",
    "retry",
    "network",
]


def make_log(path: Path, paragraphs: int, seed: int = 7) -> Path:
    """A synthetic agent log with about `paragraphs` paragraphs (each a raw chunk); the
    lines where its topic changes go to ``PATH.gold.json`` (the format of `eval`)."""
    rng = random.Random(seed)
    topics = [rng.sample(WORDS, 8) for _ in range(40)]
    topic = topics[0]
    t = datetime(2026, 2, 13, 9, 0, 0)
    n = 0
    line = 0
    starts = [1]
    with path.open("w", encoding="utf-8") as fh:
        while n < paragraphs:
            line += 1
            if rng.random() < 0.08:
                topic = rng.choice(topics)
                if line > 1:
                    starts.append(line)
            role = rng.choice(["user", "assistant", "assistant", "tool"])
            paras = []
            for _ in range(rng.randint(1, 3)):
                words = [
                    rng.choice(topic if rng.random() < 0.7 else WORDS)
                    for _ in range(rng.randint(20, 60))
                ]
                paras.append(" ".join(words).capitalize() + ".")
            n += len(paras)
            t += timedelta(seconds=rng.randint(2, 90))
            msg = {
                "timestamp": t.isoformat(timespec="seconds"),
                "role": role,
                "content": "\n\n".join(paras),
            }
            if role == "tool":
                msg["tool_call_id"] = f"call_{n}"
            fh.write(json.dumps(msg) + "\n")
    path.with_suffix(".gold.json").write_text(json.dumps({"starts": starts}) + "\n")
    return path


async def _drawn(app: object, generation: int, timeout: float = 30.0) -> bool:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if app.drawn_generation >= generation:  # type: ignore[attr-defined]
            return True
        await asyncio.sleep(0.001)
    return False


async def first_screen(path: Path) -> tuple[float, int]:
    from chunkscope.tui.app import ChunkscopeApp, StartOptions

    t0 = time.perf_counter()
    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True))
    async with app.run_test(size=(160, 48)):
        ok = await _drawn(app, 1)
        elapsed = time.perf_counter() - t0
        assert ok, "the first screen never came"
        bench = app.workbench
        assert bench is not None and bench.view is not None
        return elapsed, len(bench.view.compacted)


def send_key(app: object, key: str) -> None:
    """Inject a key as the terminal driver would, without the pilot's idle waits."""
    from textual import events

    event = events.Key(key, None)
    event.set_sender(app)  # type: ignore[arg-type]
    app._driver.send_message(event)  # type: ignore[attr-defined]


async def slider_steps(
    path: Path, steps: int, *, via_pilot: bool, slider: str = "#std-k", gold: str | None = None
) -> tuple[list[float], int]:
    from chunkscope.tui.app import ChunkscopeApp, StartOptions

    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True, gold=gold))
    times: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:
        assert await _drawn(app, 1)
        bench = app.workbench
        assert bench is not None
        if gold is not None:
            assert app.marks, "the gold file gave no marks"
        bench.query_one(slider).focus()
        await pilot.pause()
        await asyncio.sleep(0.5)
        for k in range(steps):
            key = "right" if (k // 10) % 2 == 0 else "left"
            generation = app.run_generation + 1
            t0 = time.perf_counter()
            if via_pilot:
                await pilot.press(key)
            else:
                send_key(app, key)
            ok = await _drawn(app, generation, 5.0)
            if ok:
                times.append(time.perf_counter() - t0)
            await asyncio.sleep(0.08)  # a user's pace between steps: no debounce
        n = len(bench.view.compacted) if bench.view else 0
    return times, n


async def sweep_keys(path: Path, gold: str) -> tuple[float, list[float], int]:
    """(sweep seconds, key latencies while it ran, points) (see the docstring)."""
    import chunkscope.tui.workbench.sweep as sweep
    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True, gold=gold))
    async with app.run_test(size=(160, 48)):
        assert await _drawn(app, 1)
        bench = app.workbench
        assert bench is not None
        panel = bench.query_one(SweepPanel)
        t0 = time.perf_counter()
        while panel.result is None or panel.busy:  # the first sweep, at the panel's width
            await asyncio.sleep(0.01)
            assert time.perf_counter() - t0 < 60, "no sweep"
        sweep.SWEEP_POINTS = (50, 50)
        merged = bench.query_one("#merged", ChunkList)
        merged.focus()
        await asyncio.sleep(0.2)
        app.schedule_sweep(0.0)
        start = time.perf_counter()
        latencies: list[float] = []
        key = "down"
        while True:
            await asyncio.sleep(0.05)
            if not panel.busy and time.perf_counter() - start > 0.1:
                break
            before = merged.selected
            key = "up" if key == "down" and before > 0 else "down"
            t1 = time.perf_counter()
            send_key(app, key)
            while merged.selected == before and time.perf_counter() - t1 < 5:
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - t1)
        elapsed = time.perf_counter() - start
        assert panel.result is not None
        return elapsed, latencies, len(panel.result.values)


def crash_marks(path: Path, data_dir: Path) -> tuple[bool, float]:
    """(the mark survived SIGKILL, seconds from the key to the kill) (see the docstring)."""
    import pty
    import select
    import signal
    import subprocess

    from chunkscope.engine.evaluate.gold import load_marks

    env = {**os.environ, "CHUNKSCOPE_DATA_DIR": str(data_dir), "TERM": "xterm-256color"}
    env.update(COLUMNS="160", LINES="48")
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chunkscope.tui.cli", str(path)],
        stdin=child_fd,
        stdout=child_fd,
        stderr=child_fd,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    os.close(child_fd)
    seen = b""

    def pump(seconds: float) -> None:
        nonlocal seen
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([main_fd], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(main_fd, 65536)
                except OSError:
                    return

    try:
        pump(6.0)  # start-up and the first run
        for key in (b"v", b"\x1b[B", b"\x1b[B", b"\x1b[B"):
            os.write(main_fd, key)
            pump(0.3)
        t0 = time.perf_counter()
        os.write(main_fd, b"m")
        pump(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        elapsed = time.perf_counter() - t0
        proc.wait(5)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main_fd)
    os.environ["CHUNKSCOPE_DATA_DIR"] = str(data_dir)
    return bool(load_marks(path)), elapsed


def _rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def huge_open(path: Path, timeout: float) -> dict[str, object]:
    """Open `path` and wait for the first screen, probing the UI all the way."""
    from textual.widgets import Static

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.screens.loading import LoadingScreen
    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True))
    out: dict[str, object] = {}
    latencies: list[float] = []
    stages: list[tuple[float, str]] = []
    dispatched: dict[str, float] = {}
    original = app._check_bindings

    async def probe(key: str, priority: bool = False) -> bool:
        if key == "f12" and priority:  # unbound: the app's dispatch of our probe key
            dispatched.setdefault(key, time.perf_counter())
        return await original(key, priority)

    app._check_bindings = probe  # type: ignore[method-assign]
    t0 = time.perf_counter()
    async with app.run_test(size=(160, 48)):
        next_probe = t0 + 1.0
        while app.drawn_generation < 1 and time.perf_counter() - t0 < timeout:
            now = time.perf_counter()
            screen = app._loading_screen
            if isinstance(screen, LoadingScreen) and screen.is_mounted:
                out.setdefault("progress_shown_s", now - t0)
                try:
                    text = str(screen.query_one("#loading-stage", Static).render())
                except Exception:
                    text = ""
                if text and (not stages or stages[-1][1] != text):
                    stages.append((now - t0, text))
            if now >= next_probe:
                dispatched.clear()
                sent = time.perf_counter()
                send_key(app, "f12")
                while "f12" not in dispatched and time.perf_counter() - sent < 10:
                    await asyncio.sleep(0.001)
                if "f12" in dispatched:
                    latencies.append(dispatched["f12"] - sent)
                next_probe = time.perf_counter() + 1.0
            await asyncio.sleep(0.02)
        out["first_screen_s"] = time.perf_counter() - t0
        out["loaded"] = app.drawn_generation >= 1
        out["stages"] = stages
        out["key_latency"] = latencies
        out["rss_after_load_mib"] = _rss_mib()
        bench = app.workbench
        if bench is not None and bench.view is not None:
            out["compacted"] = len(bench.view.compacted)
            out["merged"] = len(bench.view.result.chunks)
            # Only the visible lines are rendered: count the render_line calls of a repaint.
            calls = {"n": 0}
            lists = list(bench.query(ChunkList))
            originals = [lst.render_line for lst in lists]

            def counting(fn: object) -> object:
                def inner(y: int) -> object:
                    calls["n"] += 1
                    return fn(y)  # type: ignore[operator]

                return inner

            for lst, fn in zip(lists, originals, strict=True):
                lst.render_line = counting(fn)  # type: ignore[method-assign]
                lst._invalidate()
            await asyncio.sleep(0.3)
            out["lines_rendered"] = calls["n"]
            out["lines_visible"] = sum(lst.scrollable_content_region.height for lst in lists)
            for lst, fn in zip(lists, originals, strict=True):
                lst.render_line = fn  # type: ignore[method-assign]
            # A slider step on the huge result.
            bench.query_one("#std-k").focus()
            await asyncio.sleep(0.3)
            generation = app.run_generation + 1
            t1 = time.perf_counter()
            send_key(app, "right")
            if await _drawn(app, generation, timeout):
                out["slider_step_s"] = time.perf_counter() - t1
    out["rss_peak_mib"] = _rss_mib()
    return out


async def huge_cancel(path: Path, after: float) -> dict[str, object]:
    """Open `path`, press Escape after `after` seconds: how long until the load is gone."""
    from chunkscope.tui.app import ChunkscopeApp, StartOptions

    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True))
    out: dict[str, object] = {}
    async with app.run_test(size=(160, 48)):
        await asyncio.sleep(after)
        worker = app._load_worker
        shown = app._loading_screen is not None
        t0 = time.perf_counter()
        send_key(app, "escape")
        while app._loading_screen is not None and time.perf_counter() - t0 < 30:
            await asyncio.sleep(0.001)
        out["dialog_gone_s"] = time.perf_counter() - t0
        out["dialog_was_shown"] = shown
        # A cancelled thread worker is marked CANCELLED at once, but its thread runs on
        # until the stage it is in checks for cancellation: wait until the process is
        # quiet (under 20% of a core over 200 ms) to see when the work really stopped.
        while time.perf_counter() - t0 < 120:
            cpu, wall = time.process_time(), time.perf_counter()
            await asyncio.sleep(0.2)
            if time.process_time() - cpu < 0.2 * (time.perf_counter() - wall):
                break
        out["worker_stopped_s"] = time.perf_counter() - t0 - 0.2
        out["worker_state"] = str(worker.state.name) if worker is not None else "none"
        out["app_running"] = app.is_running
    return out


def huge(args: argparse.Namespace, tmp: Path) -> int:
    from bench.parse import make_log

    path = tmp / "huge.jsonl"
    t = time.perf_counter()
    lines = make_log(path, args.mb)
    size_mb = path.stat().st_size / 2**20
    print(f"generated {size_mb:.0f} MB, {lines} lines in {time.perf_counter() - t:.1f}s")
    rss0 = _rss_mib()
    res = asyncio.run(huge_open(path, args.timeout))
    lat = res["key_latency"]
    assert isinstance(lat, list)
    print(f"peak RSS before opening (imports, generator): {rss0:.0f} MiB")
    print(f"progress dialog shown after: {res.get('progress_shown_s', float('nan')):.2f}s")
    for at, stage in res["stages"]:  # type: ignore[attr-defined]
        print(f"  {at:7.2f}s  {stage}")
    loaded = "first screen" if res["loaded"] else f"NOT LOADED within {args.timeout:.0f}s"
    print(f"{loaded}: {res['first_screen_s']:.1f}s")
    if lat:
        print(
            f"key latency during the load: median {statistics.median(lat) * 1000:.0f} ms, "
            f"worst {max(lat) * 1000:.0f} ms over {len(lat)} presses"
        )
    for k in ("compacted", "merged", "lines_rendered", "lines_visible", "slider_step_s"):
        if k in res:
            print(f"{k}: {res[k]}")
    print(f"peak RSS (ru_maxrss): {res['rss_peak_mib']:.0f} MiB")
    cancel = asyncio.run(huge_cancel(path, args.cancel_after))
    print(
        f"escape after {args.cancel_after:.0f}s: dialog gone in "
        f"{cancel['dialog_gone_s'] * 1000:.0f} ms (shown: {cancel['dialog_was_shown']}), "
        f"work stopped (CPU quiet) in {cancel['worker_stopped_s']:.2f}s "
        f"({cancel['worker_state']}), "
        f"app running: {cancel['app_running']}"
    )
    print(f"peak RSS (ru_maxrss) at the end: {_rss_mib():.0f} MiB")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--chunks", type=int, default=4000, help="paragraphs in the big log")
    parser.add_argument("--huge", action="store_true", help="open a generated huge log")
    parser.add_argument("--mb", type=float, default=100.0, help="size of the huge log")
    parser.add_argument("--timeout", type=float, default=600.0, help="huge: give up after")
    parser.add_argument("--cancel-after", type=float, default=3.0, help="huge: escape after")
    parser.add_argument(
        "--steps-only", action="store_true", help="first screens and slider steps only"
    )
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="chunkscope-bench-"))
    os.environ["CHUNKSCOPE_CACHE_DIR"] = str(tmp / "cache")
    os.environ["CHUNKSCOPE_CONFIG_DIR"] = str(tmp / "config")
    import textual.app  # noqa: F401  (imports are not part of the measurement)

    import chunkscope.tui.app  # noqa: F401
    from chunkscope.tui.samples import sample_files

    if args.huge:
        return huge(args, tmp)

    rows: list[tuple[str, str, float, float, str]] = []
    samples = sample_files()
    if samples:
        largest = max(samples, key=lambda p: p.stat().st_size)
        runs = [asyncio.run(first_screen(largest)) for _ in range(3)]
        secs = [r[0] for r in runs]
        rows.append(
            (
                f"first screen: {largest.name}",
                f"{runs[0][1]} chunks",
                statistics.median(secs),
                max(secs),
                "< 1.0 s",
            )
        )
    big = make_log(tmp / "big.jsonl", args.chunks)
    runs = [asyncio.run(first_screen(big)) for _ in range(3)]
    secs = [r[0] for r in runs]
    rows.append(
        (
            "first screen: generated log",
            f"{runs[0][1]} chunks",
            statistics.median(secs),
            max(secs),
            "< 3.0 s",
        )
    )
    for via_pilot, label in ((False, "screen"), (True, "pilot")):
        times, n = asyncio.run(slider_steps(big, args.steps, via_pilot=via_pilot))
        rows.append(
            (
                f"slider step (std_k), {label}",
                f"{n} chunks, {len(times)} steps",
                statistics.median(times),
                max(times),
                "< 0.1 s median",
            )
        )

    gold = str(big.with_suffix(".gold.json"))
    times, n = asyncio.run(
        slider_steps(big, args.steps, via_pilot=False, slider="#topic-depth", gold=gold)
    )
    rows.append(
        (
            "slider step (depth), live score",
            f"{n} chunks, {len(times)} steps",
            statistics.median(times),
            max(times),
            "<= 0.1 s median",
        )
    )

    # the size cap's slider in topic mode: each step splits the topics anew to fit it
    times, n = asyncio.run(
        slider_steps(big, args.steps, via_pilot=False, slider="#max-chars", gold=gold)
    )
    rows.append(
        (
            "slider step (max chars, topic)",
            f"{n} chunks, {len(times)} steps",
            statistics.median(times),
            max(times),
            "<= 0.1 s median",
        )
    )

    sweep_note = "the sweep and the crash check: skipped (--steps-only)"
    survived, after = True, 0.0
    if not args.steps_only:
        swept, latencies, points = asyncio.run(sweep_keys(big, gold))
        rows.append(
            (
                "keys during a sweep",
                f"{points} points, {len(latencies)} keys",
                statistics.median(latencies) if latencies else 0.0,
                max(latencies) if latencies else 0.0,
                "<= 0.05 s each",
            )
        )
        sweep_note = f"the sweep of {points} points took {swept:.2f} s in the worker"
        survived, after = crash_marks(ROOT / "sample_logs" / "cache_refactor.jsonl", tmp / "data")

    print(f"{'measure':34} {'input':22} {'median':>9} {'worst':>9}  target")
    for name, what, med, worst, target in rows:
        print(f"{name:34} {what:22} {med * 1000:7.0f}ms {worst * 1000:7.0f}ms  {target}")
    print(sweep_note)
    print(
        f"marks survive a crash: {'yes' if survived else 'NO'} "
        f"(SIGKILL {after * 1000:.0f} ms after the key; target: yes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
