"""Workbench speed, headless (`App.run_test`): first screen and slider steps.

    python bench/tui.py [--steps N] [--chunks N]

Measures, after imports:

- ``first screen``: from start-up until both chunk columns and the similarity strip
  have been drawn with the merged result, for the largest bundled sample log and for
  a generated log of about 2,000 compacted chunks;
- ``slider step``: from a key press on a merge slider (std_k) until the screen has
  been refreshed with the new merge, on the 2,000-chunk log with its embeddings cached
  in the pipeline (every step after the first reuses them).

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
    """A synthetic agent log with about `paragraphs` paragraphs (each a raw chunk)."""
    rng = random.Random(seed)
    topics = [rng.sample(WORDS, 8) for _ in range(40)]
    topic = topics[0]
    t = datetime(2026, 2, 13, 9, 0, 0)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        while n < paragraphs:
            if rng.random() < 0.08:
                topic = rng.choice(topics)
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
    return path


async def _drawn(app: object, generation: int, timeout: float = 30.0) -> bool:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if app.drawn_generation >= generation:  # type: ignore[attr-defined]
            return True
        await asyncio.sleep(0.001)
    return False


async def first_screen(path: Path) -> tuple[float, int]:
    from tui.app import ChunkscopeApp, StartOptions

    t0 = time.perf_counter()
    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True))
    async with app.run_test(size=(160, 48)):
        ok = await _drawn(app, 1)
        elapsed = time.perf_counter() - t0
        assert ok, "the first screen never came"
        bench = app.workbench
        assert bench is not None and bench.view is not None
        return elapsed, len(bench.view.compacted)


async def slider_steps(path: Path, steps: int) -> tuple[list[float], int]:
    from tui.app import ChunkscopeApp, StartOptions

    app = ChunkscopeApp(StartOptions(path=str(path), fixed_timings=True))
    times: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:
        assert await _drawn(app, 1)
        bench = app.workbench
        assert bench is not None
        bench.query_one("#std-k").focus()
        await pilot.pause()
        for k in range(steps):
            generation = app.run_generation + 1
            t0 = time.perf_counter()
            await pilot.press("right" if (k // 10) % 2 == 0 else "left")
            ok = await _drawn(app, generation, 5.0)
            if ok:
                times.append(time.perf_counter() - t0)
            await asyncio.sleep(0.08)  # a user's pace between steps: no debounce
        n = len(bench.view.compacted) if bench.view else 0
    return times, n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--chunks", type=int, default=4000, help="paragraphs in the big log")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="chunkscope-bench-"))
    os.environ["CHUNKSCOPE_CACHE_DIR"] = str(tmp / "cache")
    os.environ["CHUNKSCOPE_CONFIG_DIR"] = str(tmp / "config")
    import textual.app  # noqa: F401  (imports are not part of the measurement)

    import tui.app  # noqa: F401
    from tui.samples import sample_files

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
    times, n = asyncio.run(slider_steps(big, args.steps))
    rows.append(
        (
            "slider step (std_k)",
            f"{n} chunks, {len(times)} steps",
            statistics.median(times),
            max(times),
            "< 0.1 s median",
        )
    )

    print(f"{'measure':34} {'input':22} {'median':>9} {'worst':>9}  target")
    for name, what, med, worst, target in rows:
        print(f"{name:34} {what:22} {med * 1000:7.0f}ms {worst * 1000:7.0f}ms  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
