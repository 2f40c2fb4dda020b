"""Parse + chunk + compact throughput on a generated log (default 100 MB).

    python bench/parse.py [--mb 100] [--runs 3]
    python bench/parse.py --formats [--mb 100] [--runs 3] [--against DIR]

Prints the median time and MB/s of each stage and the peak memory of the
process (ru_maxrss), all measured in this one process.

``--formats``: the same generated content written as a Claude Code session, a Codex
rollout, an agent trajectory (OpenAI messages), a Gemini CLI chat and a gzip-compressed
seed log; reads each (`engine.read.parse.load`, the format
found from the content) in a process of its own and prints a table: median read
time (wall and CPU), MB per CPU second, the CPU ratio to the seed's reader, and the
process's peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks
from chunkscope.engine.read.parse import load

WORDS = [
    "cache",
    "embedding",
    "sqlite",
    "vector",
    "merge",
    "threshold",
    "chunk",
    "summary",
    "recap",
    "token",
    "budget",
    "session",
    "agent",
    "tool",
    "read",
    "write",
    "edit",
    "benchmark",
    "latency",
    "pipeline",
    "parser",
    "markdown",
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "that",
    "it",
    "for",
    "on",
    "with",
    "as",
    "was",
    "this",
    "by",
    "be",
    "are",
]


def make_log(path: Path, megabytes: float, seed: int = 7, vocabulary: int = 0) -> int:
    """Write a realistic-shaped JSONL log of about `megabytes`; return its line count.

    Words come from a list of 40 (`WORDS`), or with ``vocabulary`` from that many
    distinct words drawn with a Zipf-like law (as in real text: a few words are
    everywhere, most are rare), which is what the embedder's memory depends on.
    """
    rng = random.Random(seed)
    if vocabulary:
        lexicon = [
            f"{WORDS[i % len(WORDS)]}{i:x}" if i >= len(WORDS) else WORDS[i]
            for i in range(vocabulary)
        ]

        def word() -> str:
            return lexicon[min(vocabulary, int(rng.paretovariate(1.1))) - 1]
    else:

        def word() -> str:
            return rng.choice(WORDS)

    target = int(megabytes * 1024 * 1024)
    written = 0
    lines = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < target:
            paras = []
            for _ in range(rng.randint(1, 4)):
                n = rng.randint(5, 80)
                paras.append(" ".join(word() for _ in range(n)) + ".")
            role = rng.choice(("user", "assistant", "assistant", "tool"))
            msg: dict[str, object] = {
                "role": role,
                "content": "\n\n".join(paras),
                "timestamp": f"2026-02-13T{(lines // 3600) % 24:02d}:{(lines // 60) % 60:02d}:"
                f"{lines % 60:02d}",
            }
            if role == "assistant" and rng.random() < 0.4:
                msg["reasoning"] = " ".join(word() for _ in range(40))
            line = json.dumps(msg) + "\n"
            fh.write(line)
            written += len(line)
            lines += 1
    return lines


def as_claude(seed: Path, out: Path) -> None:
    """The seed log's messages as Claude Code records (a uuid chain, blocks)."""
    with seed.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as fh:
        parent = None
        for i, line in enumerate(src):
            m = json.loads(line)
            ts = m["timestamp"] + "Z"
            if m["role"] == "assistant":
                blocks = [{"type": "text", "text": m["content"]}]
                if "reasoning" in m:
                    blocks.insert(0, {"type": "thinking", "thinking": m["reasoning"]})
                message: dict[str, object] = {"role": "assistant", "content": blocks}
                kind = "assistant"
            elif m["role"] == "tool":
                message = {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"t{i}", "content": m["content"]}
                    ],
                }
                kind = "user"
            else:
                message = {"role": "user", "content": m["content"]}
                kind = "user"
            rec = {
                "parentUuid": parent,
                "isSidechain": False,
                "sessionId": "bench",
                "type": kind,
                "message": message,
                "uuid": f"u{i}",
                "timestamp": ts,
            }
            fh.write(json.dumps(rec) + "\n")
            parent = f"u{i}"


def as_codex(seed: Path, out: Path) -> None:
    """The seed log's messages as a Codex rollout (response items)."""
    with seed.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as fh:
        for i, line in enumerate(src):
            m = json.loads(line)
            ts = m["timestamp"] + "Z"
            items = []
            if "reasoning" in m:
                items.append(
                    {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": m["reasoning"]}],
                    }
                )
            if m["role"] == "tool":
                items.append(
                    {"type": "function_call_output", "call_id": f"c{i}", "output": m["content"]}
                )
            else:
                part = "input_text" if m["role"] == "user" else "output_text"
                items.append(
                    {
                        "type": "message",
                        "role": m["role"],
                        "content": [{"type": part, "text": m["content"]}],
                    }
                )
            for item in items:
                rec = {"timestamp": ts, "type": "response_item", "payload": item}
                fh.write(json.dumps(rec) + "\n")


def as_messages(seed: Path, out: Path) -> None:
    """The seed log's messages as one JSON document of OpenAI chat messages (an agent
    trajectory: ``{"info", "messages"}``), pretty-printed as trajectories are; written
    as it is read (this process's peak memory is inherited by the readers' processes)."""
    with seed.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as fh:
        fh.write('{"info": {},\n "messages": [\n')
        for i, line in enumerate(src):
            fh.write((",\n" if i else "") + json.dumps(json.loads(line), indent=1))
        fh.write("\n ]\n}\n")


def as_gemini(seed: Path, out: Path) -> None:
    """The seed log's messages as a Gemini CLI chat (one JSON document): a tool result
    becomes a tool call of the answer before it, with its result. Written as it is read."""
    pending: dict[str, object] | None = None
    first = True

    def emit(message: dict[str, object] | None) -> None:
        nonlocal first
        if message is not None:
            fh.write(("" if first else ",\n") + json.dumps(message, indent=2))
            first = False

    with seed.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as fh:
        fh.write('{"sessionId": "bench", "projectHash": "%s", "messages": [\n' % ("0" * 64))
        for i, line in enumerate(src):
            m = json.loads(line)
            if m["role"] == "tool" and pending is not None and pending["type"] == "gemini":
                response = {"id": f"c{i}", "response": {"output": m["content"]}}
                calls = pending.setdefault("toolCalls", [])
                assert isinstance(calls, list)
                calls.append(
                    {
                        "id": f"c{i}",
                        "name": "run_shell_command",
                        "args": {"command": "pytest"},
                        "result": [{"functionResponse": response}],
                        "status": "success",
                    }
                )
                continue
            emit(pending)
            pending = {
                "id": f"m{i}",
                "timestamp": m["timestamp"] + "Z",
                "type": "gemini" if m["role"] != "user" else "user",
                "content": m["content"],
            }
            if "reasoning" in m:
                pending["thoughts"] = [{"subject": "", "description": m["reasoning"]}]
        emit(pending)
        fh.write("\n]}\n")


_READ_ONE = """
import resource, statistics, sys, time
from chunkscope.engine.read.parse import load
times, cpu = [], []
for _ in range(int(sys.argv[2])):
    t0, c0 = time.perf_counter(), time.process_time()
    source = load(sys.argv[1], keep_messages=False)
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
    turns, fmt = len(source.turns), source.format
    del source
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(statistics.median(times), statistics.median(cpu), peak, turns, fmt)
"""


def formats(args: argparse.Namespace) -> None:
    import gzip
    import shutil
    import subprocess

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        seed = Path(tmp) / "seed.jsonl"
        make_log(seed, args.mb)
        files = {"seed-jsonl": seed}
        files["claude-code"] = Path(tmp) / "claude.jsonl"
        as_claude(seed, files["claude-code"])
        files["codex"] = Path(tmp) / "codex.jsonl"
        as_codex(seed, files["codex"])
        files["openai-messages"] = Path(tmp) / "trajectory.json"
        as_messages(seed, files["openai-messages"])
        files["gemini-cli"] = Path(tmp) / "chat.json"
        as_gemini(seed, files["gemini-cli"])
        files["seed-jsonl (gzip)"] = Path(tmp) / "seed.jsonl.gz"
        with seed.open("rb") as src, gzip.open(files["seed-jsonl (gzip)"], "wb", 6) as dst:
            shutil.copyfileobj(src, dst)
        if args.against:
            _against(files, root, Path(args.against), args.runs)
            return
        rows = []
        for name, path in files.items():
            proc = subprocess.run(
                [sys.executable, "-c", _READ_ONE, str(path), str(args.runs)],
                capture_output=True,
                text=True,
                check=True,
                cwd=root,
            )
            med, cpu, peak, turns, fmt = proc.stdout.split()
            rows.append(
                (
                    name,
                    fmt,
                    path.stat().st_size / 1e6,
                    float(med),
                    float(cpu),
                    float(peak),
                    int(turns),
                )
            )
    base = rows[0][4]
    print(f"content: {args.mb:g} MB of seed log written in each format; {args.runs} runs each")
    print(
        f"{'format':<20} {'read as':<15} {'MB':>7} {'turns':>8} {'median s':>9} "
        f"{'CPU s':>7} {'MB/CPU s':>9} {'x seed':>7} {'peak MiB':>9}"
    )
    for name, fmt, mb, med, cpu, peak, turns in rows:
        print(
            f"{name:<20} {fmt:<15} {mb:>7.1f} {turns:>8} {med:>9.2f} {cpu:>7.2f} "
            f"{mb / cpu:>9.1f} {cpu / base:>7.2f} {peak:>9.0f}"
        )
    print("median s: wall time; CPU s: the process's CPU time (x seed compares these), the")
    print("steadier figure on a shared machine")


def _against(files: dict[str, Path], root: Path, other: Path, runs: int) -> None:
    """Each file read by this checkout and by `other`, one run at a time, interleaved
    (so both see the same load); the least CPU time of each."""
    import subprocess

    best: dict[tuple[str, Path], float] = {}
    for _ in range(runs):
        for name, path in files.items():
            for tree in (other, root):
                proc = subprocess.run(
                    [sys.executable, "-c", _READ_ONE, str(path), "1"],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=tree,
                )
                cpu = float(proc.stdout.split()[1])
                best[(name, tree)] = min(cpu, best.get((name, tree), cpu))
    print(f"CPU seconds, the least of {runs} interleaved runs: {other} / this checkout")
    print(f"{'format':<20} {'MB':>7} {'before':>8} {'after':>8} {'ratio':>6}")
    for name, path in files.items():
        before, after = best[(name, other)], best[(name, root)]
        mb = path.stat().st_size / 1e6
        print(f"{name:<20} {mb:>7.1f} {before:>8.2f} {after:>8.2f} {after / before:>6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--formats", action="store_true", help="read the same content in each format")
    ap.add_argument(
        "--against",
        metavar="DIR",
        help="with --formats: compare with another checkout (e.g. a git worktree of main), "
        "in CPU time, runs interleaved",
    )
    args = ap.parse_args()
    if args.formats:
        formats(args)
        return

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        n_lines = make_log(path, args.mb)
        size_mb = os.path.getsize(path) / 1e6
        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        times: dict[str, list[float]] = {"parse": [], "chunk": [], "compact": [], "total": []}
        counts = (0, 0, 0)
        for _ in range(args.runs):
            t0 = time.perf_counter()
            source = load(path, keep_messages=False)
            t1 = time.perf_counter()
            chunks = chunk_turns(source.turns)
            t2 = time.perf_counter()
            compacted = compact_chunks(chunks)
            t3 = time.perf_counter()
            times["parse"].append(t1 - t0)
            times["chunk"].append(t2 - t1)
            times["compact"].append(t3 - t2)
            times["total"].append(t3 - t0)
            counts = (len(source.turns), len(chunks), len(compacted))
            del source, chunks, compacted
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(
        f"log: {size_mb:.1f} MB, {n_lines} lines -> {counts[0]} turns, {counts[1]} chunks, "
        f"{counts[2]} compacted; {args.runs} runs"
    )
    print(f"{'stage':<10} {'median s':>10} {'MB/s':>10}")
    for stage, ts in times.items():
        med = statistics.median(ts)
        print(f"{stage:<10} {med:>10.2f} {size_mb / med:>10.1f}")
    print(
        f"peak RSS: {peak:.0f} MB (before parsing: {base_rss:.0f} MB; "
        f"{peak / size_mb:.1f}x the file size)"
    )


if __name__ == "__main__":
    main()
