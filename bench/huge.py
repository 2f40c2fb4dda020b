"""A huge log end to end: `chunkscope chunk` and the pipeline through merge (issue 7).

    python bench/huge.py [--mb 100] [--vocab N] [--skip-merge] [--keep DIR]

Generates a log of about ``--mb`` megabytes with `bench/parse.py`'s `make_log` (its
words from a list of 40, or with ``--vocab N`` from N distinct words with a Zipf-like
law, closer to a real log for the embedder's memory), then
runs, each in its own process (so every peak is that run's own, from ``wait4``):

* ``chunkscope chunk LOG`` (text to /dev/null) and ``chunkscope chunk LOG --format json``;
* the engine pipeline through merge with the offline lexical embedder: parse, chunk +
  compact, embed, merge, each timed.

Prints a table of wall time and peak resident memory (ru_maxrss), and the stage times
of the pipeline run. Nothing is written outside a temporary directory (or ``--keep``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PIPELINE = r"""
import json, resource, sys, time
from chunkscope.engine.pipeline import Pipeline
t0 = time.perf_counter()
pipe = Pipeline(sys.argv[1])
times = {}
t = time.perf_counter(); source = pipe.source(); times["parse"] = time.perf_counter() - t
t = time.perf_counter(); chunks = pipe.compacted(); times["chunk+compact"] = time.perf_counter() - t
rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
counts = {"turns": len(source.turns), "chunks": len(chunks)}
if sys.argv[2] == "merge":
    t = time.perf_counter(); pipe.embeddings(); times["embed"] = time.perf_counter() - t
    t = time.perf_counter(); merged = pipe.merged(); times["merge"] = time.perf_counter() - t
    counts["merged"] = len(merged.chunks)
    counts["passes"] = len(merged.passes)
times["total"] = time.perf_counter() - t0
print(json.dumps({"times": times, "counts": counts, "rss_after_load_kib": rss_load}))
"""


def _make_log(path: Path, megabytes: float, vocabulary: int) -> int:
    sys.path.insert(0, str(ROOT))
    from bench.parse import make_log

    return make_log(path, megabytes, vocabulary=vocabulary)


def _run(argv: list[str], capture: bool = False) -> tuple[float, int, bytes]:
    """Run `argv`; (wall seconds, peak RSS in KiB, its stdout when `capture`)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=out if capture else subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        if code != 0:
            message = err.read().decode("utf-8", "replace")[-2000:]
            raise SystemExit(f"{' '.join(argv)} failed with exit {code}:\n{message}")
        out.seek(0)
        return wall, int(usage.ru_maxrss), out.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the log (100)")
    parser.add_argument("--vocab", type=int, default=0, help="distinct words (0: a list of 40)")
    parser.add_argument("--skip-merge", action="store_true", help="pipeline through compact only")
    parser.add_argument("--keep", metavar="DIR", help="write the log into DIR and keep it")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        vocab = f"-v{args.vocab}" if args.vocab else ""
        log = folder / f"huge-{args.mb:g}mb{vocab}.jsonl"
        t = time.perf_counter()
        if not log.exists():
            _make_log(log, args.mb, args.vocab)
        size_mb = log.stat().st_size / 1e6
        print(f"log: {log.name}, {size_mb:.1f} MB (ready in {time.perf_counter() - t:.1f} s)")

        cli = [sys.executable, "-m", "chunkscope.tui.cli"]
        rows: list[tuple[str, float, int]] = []
        wall, rss, _ = _run([*cli, "chunk", str(log)])
        rows.append(("chunkscope chunk (text)", wall, rss))
        wall, rss, _ = _run([*cli, "chunk", str(log), "--format", "json"])
        rows.append(("chunkscope chunk --format json", wall, rss))
        stage = "compact" if args.skip_merge else "merge"
        wall, rss, out = _run([sys.executable, "-c", PIPELINE, str(log), stage], capture=True)
        report = json.loads(out)
        rows.append((f"pipeline through {stage} (lexical)", wall, rss))

    print()
    print(f"| run ({size_mb:.0f} MB log) | wall s | MB/s | peak RSS MiB |")
    print("|---|---:|---:|---:|")
    for name, wall, rss in rows:
        print(f"| {name} | {wall:.1f} | {size_mb / wall:.1f} | {rss / 1024:.0f} |")
    print()
    times = report["times"]
    print("pipeline stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    print("counts: " + ", ".join(f"{k} {v}" for k, v in report["counts"].items()))
    print(f"peak RSS after parse + compact: {report['rss_after_load_kib'] / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
