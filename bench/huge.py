"""A huge log end to end: `chunkscope chunk` and the pipeline through merge (issue 7).

    python bench/huge.py [--mb 100] [--vocab N] [--skip-merge] [--keep DIR]
                         [--recap | --recap-only] [--against DIR] [--runs N]

Generates a log of about ``--mb`` megabytes with `bench/parse.py`'s `make_log` (its
words from a list of 40, or with ``--vocab N`` from N distinct words with a Zipf-like
law, closer to a real log for the embedder's memory), then
runs, each in its own process (so every peak is that run's own, from ``wait4``):

* ``chunkscope chunk LOG`` (text to /dev/null) and ``chunkscope chunk LOG --format json``;
* the engine pipeline through merge with the offline lexical embedder: parse, chunk +
  compact, embed, merge, each timed.

Prints a table of wall time and peak resident memory (ru_maxrss), and the stage times
of the pipeline run. Nothing is written outside a temporary directory (or ``--keep``).

``--recap`` also times ``chunkscope recap LOG`` (to /dev/null), and its recap stage in a
process of its own (``Pipeline.recap`` as ``chunkscope recap`` calls it, after the merge;
with the MD5 of the recap's text, which each checkout must give alike); ``--recap-only``
times those two alone. ``--report`` also times ``chunkscope report LOG`` (to /dev/null).
The pipeline's stages are printed as a table of their own (medians, each checkout a
column). ``--against DIR`` runs
every command a second time with the code of another checkout (``PYTHONPATH=DIR``, e.g.
the main branch before a change), in turn with ours, and adds its columns and the ratio;
``--runs N`` repeats each (in turn) and reports medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PIPELINE = r"""
import json, resource, sys, time
from chunkscope.engine.pipeline import Pipeline
t0, c0 = time.perf_counter(), time.process_time()
pipe = Pipeline(sys.argv[1])
times, cpu = {}, {}
def stage(name, run):
    t, c = time.perf_counter(), time.process_time()
    out = run()
    times[name], cpu[name] = time.perf_counter() - t, time.process_time() - c
    return out
source = stage("parse", pipe.source)
chunks = stage("chunk+compact", pipe.compacted)
rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
counts = {"turns": len(source.turns), "chunks": len(chunks)}
if sys.argv[2] == "merge":
    stage("embed", pipe.embeddings)
    merged = stage("merge", pipe.merged)
    counts["merged"] = len(merged.chunks)
    counts["passes"] = len(merged.passes)
times["total"], cpu["total"] = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"times": times, "cpu": cpu, "counts": counts, "rss_after_load_kib": rss_load}))
"""

# `chunkscope recap LOG` in the process, its `Pipeline.recap` call timed
RECAP = r"""
import hashlib, inspect, json, sys, time
from chunkscope.engine.pipeline import Pipeline
from chunkscope.tui.cli import build_parser
from chunkscope.tui.cli.recap import run_recap
times = {}
inner = Pipeline.recap
def timed(self, *args, **kwargs):
    t, c = time.perf_counter(), time.process_time()
    out = inner(self, *args, **kwargs)
    times["recap"] = time.perf_counter() - t
    times["recap_cpu"] = time.process_time() - c
    return out
Pipeline.recap = timed
# as `chunkscope recap` (markdown) runs it: only the summaries it needs, where it can
known = inspect.signature(run_recap).parameters
lazy = {"every_summary": False} if "every_summary" in known else {}
t = time.perf_counter()
run = run_recap(build_parser().parse_args(["recap", sys.argv[1]]), **lazy)
times["total"] = time.perf_counter() - t
md5 = hashlib.md5(run.selection.text.encode()).hexdigest()
print(json.dumps({"times": times, "md5": md5, "merged": len(run.merged.chunks)}))
"""


def _make_log(path: Path, megabytes: float, vocabulary: int) -> int:
    sys.path.insert(0, str(ROOT))
    from bench.parse import make_log

    return make_log(path, megabytes, vocabulary=vocabulary)


def _run(
    argv: list[str], capture: bool = False, code: Path = ROOT
) -> tuple[float, int, bytes, float]:
    """Run `argv` with the code of checkout `code`; (wall seconds, peak RSS in KiB, its
    stdout when `capture`, CPU seconds)."""
    # as after an install: modules' bytecode cached (a PYTHONDONTWRITEBYTECODE in this
    # shell would make every run compile its sources again)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=code, stdout=out if capture else subprocess.DEVNULL, stderr=err, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code_ = os.waitstatus_to_exitcode(status)
        err.seek(0)
        if code_ != 0:
            message = err.read().decode("utf-8", "replace")[-2000:]
            raise SystemExit(f"{' '.join(argv)} failed with exit {code_}:\n{message}")
        out.seek(0)
        return wall, int(usage.ru_maxrss), out.read(), usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the log (100)")
    parser.add_argument("--vocab", type=int, default=0, help="distinct words (0: a list of 40)")
    parser.add_argument("--skip-merge", action="store_true", help="pipeline through compact only")
    parser.add_argument("--keep", metavar="DIR", help="write the log into DIR and keep it")
    parser.add_argument("--recap", action="store_true", help="also time chunkscope recap")
    parser.add_argument("--recap-only", action="store_true", help="time chunkscope recap alone")
    parser.add_argument("--report", action="store_true", help="also time chunkscope report")
    parser.add_argument("--against", metavar="DIR", help="also run another checkout's code")
    parser.add_argument("--runs", type=int, default=1, help="runs of each, in turn (1)")
    args = parser.parse_args()
    codes = [ROOT] + ([Path(args.against).resolve()] if args.against else [])

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
        stage = "compact" if args.skip_merge else "merge"
        runs: list[tuple[str, list[str], bool]] = (
            []
            if args.recap_only
            else [
                ("chunkscope chunk (text)", [*cli, "chunk", str(log)], False),
                (
                    "chunkscope chunk --format json",
                    [*cli, "chunk", str(log), "--format", "json"],
                    False,
                ),
                (
                    f"pipeline through {stage} (lexical)",
                    [sys.executable, "-c", PIPELINE, str(log), stage],
                    True,
                ),
            ]
        )
        if args.recap or args.recap_only:
            runs.append(("chunkscope recap", [*cli, "recap", str(log)], False))
            runs.append(("recap stage (in process)", [sys.executable, "-c", RECAP, str(log)], True))
        if args.report:
            runs.append(("chunkscope report", [*cli, "report", str(log)], False))
        # name -> code -> [(wall, rss, cpu)]; stage times of the pipeline runs, per code
        took: dict[str, dict[Path, list[tuple[float, int, float]]]] = {n: {} for n, _, _ in runs}
        stages: dict[Path, list[dict[str, float]]] = {c: [] for c in codes}
        stage_cpu: dict[Path, list[dict[str, float]]] = {c: [] for c in codes}
        recaps: dict[Path, list[dict[str, float]]] = {c: [] for c in codes}
        md5s: dict[Path, set[str]] = {c: set() for c in codes}
        reports: dict[Path, dict[str, object]] = {}
        for _ in range(max(1, args.runs)):
            for name, argv, capture in runs:
                for code in codes:
                    wall, rss, out, cpu = _run(argv, capture=capture, code=code)
                    took[name].setdefault(code, []).append((wall, rss, cpu))
                    if capture and argv[2] == RECAP:
                        done = json.loads(out)
                        recaps[code].append(done["times"])
                        md5s[code].add(done["md5"])
                    elif capture:
                        reports[code] = json.loads(out)
                        stages[code].append(reports[code]["times"])  # type: ignore[arg-type]
                        stage_cpu[code].append(reports[code].get("cpu", {}))  # type: ignore[arg-type]

    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    print()
    if args.against:
        print(
            f"| run ({size_mb:.0f} MB log) | wall s | CPU s | peak RSS MiB | before: wall s "
            "| before: CPU s | before: peak RSS MiB | time / before | CPU / before |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    else:
        print(f"| run ({size_mb:.0f} MB log) | wall s | CPU s | MB/s | peak RSS MiB |")
        print("|---|---:|---:|---:|---:|")
    for name, _, _ in runs:
        ours = took[name][ROOT]
        wall, rss = med([w for w, _, _ in ours]), max(r for _, r, _ in ours)
        cpu = med([c for _, _, c in ours])
        if args.against:
            theirs = took[name][codes[1]]
            b_wall, b_rss = med([w for w, _, _ in theirs]), max(r for _, r, _ in theirs)
            b_cpu = med([c for _, _, c in theirs])
            print(
                f"| {name} | {wall:.1f} | {cpu:.1f} | {rss / 1024:.0f} | {b_wall:.1f} "
                f"| {b_cpu:.1f} | {b_rss / 1024:.0f} | {wall / b_wall:.2f} | {cpu / b_cpu:.2f} |"
            )
        else:
            print(f"| {name} | {wall:.1f} | {cpu:.1f} | {size_mb / wall:.1f} | {rss / 1024:.0f} |")
    print()
    for code in codes:
        who = "ours" if code == ROOT else f"before ({code})"
        if recaps[code]:
            recap = med([r["recap"] for r in recaps[code]])
            recap_cpu = med([r["recap_cpu"] for r in recaps[code]])
            total = med([r["total"] for r in recaps[code]])
            print(
                f"recap stage, {who}: Pipeline.recap {recap:.2f} s ({recap_cpu:.2f} CPU s) of "
                f"{total:.2f} s in run_recap; recap MD5 {', '.join(sorted(md5s[code]))}"
            )
    with_stages = [c for c in codes if stages[c]]
    if with_stages:
        print()
        names = ["ours" if c == ROOT else "before" for c in with_stages]
        heads = [f"{n}: wall s | {n}: CPU s" for n in names]
        print("| pipeline stage | " + " | ".join(heads) + " |")
        print("|---|" + "---:|---:|" * len(names))
        for key in stages[with_stages[0]][0]:
            cells = []
            for c in with_stages:
                cpus = [s[key] for s in stage_cpu[c] if key in s]
                cpu_cell = f"{med(cpus):.2f}" if cpus else "-"  # a checkout without CPU times
                cells.append(f"{med([s[key] for s in stages[c]]):.2f} | {cpu_cell}")
            print(f"| {key} | " + " | ".join(cells) + " |")
    if len({frozenset(m) for m in md5s.values()}) > 1:
        print("THE RECAPS DIFFER between the checkouts")
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if ROOT not in reports:
        print(f"runs of each: {max(1, args.runs)} (medians; peak RSS: the largest)")
        return 0
    report = reports[ROOT]
    print("counts: " + ", ".join(f"{k} {v}" for k, v in report["counts"].items()))  # type: ignore[attr-defined]
    print(f"peak RSS after parse + compact: {int(report['rss_after_load_kib']) / 1024:.0f} MiB")  # type: ignore[call-overload]
    print(f"runs of each: {max(1, args.runs)} (medians; peak RSS: the largest)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
