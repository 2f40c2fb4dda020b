"""Parse + chunk + compact throughput on a generated log (default 100 MB).

    python bench/parse.py [--mb 100] [--runs 3]

Prints the median time and MB/s of each stage and the peak memory of the
process (ru_maxrss), all measured in this one process.
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

from engine.parse import load
from engine.split import chunk_turns, compact_chunks

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

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
