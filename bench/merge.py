"""Benchmark `engine.segment.merge.merge_chunks` against a literal implementation of the seed loop.

Run from the repository root::

    PYTHONPATH=. python bench/merge.py [--quick]

`literal_merge_chunks` below is the seed's algorithm written the plain way:
each qualifying step builds the merged `Chunk` (``Chunk(turns=a.turns +
b.turns)``) and keeps it when ``len(merged.text)`` is within the cap, the group
vector is a numpy running mean, and each pass computes its similarities with
numpy (the engine's cosine formula, so both see identical similarities and
must agree exactly). Both run in this process on the same chunks and the same
random embeddings: 384 dimensions, neighbouring chunks correlated (a topic
vector plus noise, the topic changing every 5-30 chunks, over a shared session
direction) and chunk texts of 80-800 characters in 1-3 turns, so the loop runs
several passes before the 8192-character cap stops it. Each size asserts that
both give the same spans and texts, then times them interleaved (literal run,
then merge_chunks runs) so that background load hits both alike; the garbage
collector stays on, as in real use, after a `gc.collect()` before each run so
that no run pays for the previous one's garbage. A literal run over 60 s is
timed once.

`merge_chunks` shares the vector work of large passes between threads
(`engine.parallel.default_threads`: the cores this process may use, at most 4);
the "one thread" column is `merge(..., threads=1)`, the same loop on this
thread alone (the reference is single-threaded), timed in the same interleaving.

The reference is the reference project's own code, run as it is: ``--reference DIR``
(or ``$CHUNKSCOPE_REFERENCE``) names a checkout of https://github.com/Hardcode84/1 (the
mindloop project the seed documents describe; it has no licence file, so none of its
code is in this repository), and ``mindloop.chunker.merge_chunks`` is imported from it
and given its own ``Turn``/``Chunk`` objects built from the same turns. For example::

    git clone https://github.com/Hardcode84/1 /tmp/mindloop   # needs numpy, requests
    PYTHONPATH=. python bench/merge.py --quick --reference /tmp/mindloop

``--against DIR`` also times another checkout's ``merge_chunks`` (say, the main branch
before a change) in the same interleaving, and checks that it gives the same chunks.

Without a checkout the "reference" columns time ``reference_merge_chunks`` below, a
port (it builds a candidate chunk only for a qualifying pair, where the real code
builds one, and copies the turn lists, for every pair), and the table says so.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt

from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.segment.merge import MergeParams, merge, merge_chunks

DIMS = 384
MAX_CHUNK_CHARS = 8192
LITERAL_SLOW_S = 60.0  # a literal run slower than this is timed once

_VOCABULARY = (
    "the cache module reads file config test error fix refactor function call returns value "
    "we should check whether this path handles empty input before the loop runs again "
    "tool output shows three failures in parser tests after rename of helper pytest passed "
    "ok let me look at merge threshold similarity vector chunk token budget summary recap"
)
_WORDS = _VOCABULARY.split()


# --------------------------------------------------------------------------- data


def make_chunks(n: int, rng: np.random.Generator) -> list[Chunk]:
    """``n`` chunks of 1-3 turns each, 80-800 characters of text in all."""
    corpus = " ".join(rng.choice(_WORDS, size=200_000).tolist())
    roles = ("user", "assistant", "tool")
    t0 = datetime(2025, 1, 1, 9, 0, 0)
    chunks: list[Chunk] = []
    line = 1
    for i in range(n):
        total = int(rng.integers(80, 801))
        k = int(rng.integers(1, 4))
        cuts = sorted(rng.integers(1, total, size=k - 1).tolist()) if k > 1 else []
        turns = []
        prev = 0
        for j, end in enumerate([*cuts, total]):
            length = max(1, end - prev)
            prev = end
            start = int(rng.integers(0, len(corpus) - length))
            turns.append(
                Turn(
                    timestamp=t0 + timedelta(seconds=7 * i + j),
                    role=roles[(i + j) % 3],
                    text=corpus[start : start + length],
                    source_line=line,
                    turn_index=i,
                )
            )
            line += 1
        chunks.append(Chunk(turns))
    return chunks


def make_embeddings(n: int, rng: np.random.Generator, dims: int = DIMS) -> npt.NDArray[np.float64]:
    """Topic vectors with noise: runs of 5-30 neighbours share a topic."""
    lengths = rng.integers(5, 31, size=n // 5 + 1)
    topic_of = np.repeat(np.arange(len(lengths)), lengths)[:n]
    topics = rng.standard_normal((len(lengths), dims))
    session = rng.standard_normal(dims)
    noise_level = rng.uniform(0.6, 1.6, size=(n, 1))
    emb = topics[topic_of]
    emb += 0.5 * session
    emb += noise_level * rng.standard_normal((n, dims))
    return emb


# --------------------------------------------------------------------------- the literal seed loop


def literal_cosine_similarities(embeddings: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Neighbour cosines with numpy (the engine's formula, so the values are identical)."""
    norms = np.sqrt(np.vecdot(embeddings, embeddings))
    dots = np.vecdot(embeddings[:-1], embeddings[1:])
    denom = norms[:-1] * norms[1:]
    sims = np.zeros(len(dots), dtype=np.float64)
    np.divide(dots, denom, out=sims, where=denom > 0.0)
    np.clip(sims, -1.0, 1.0, out=sims)
    return sims


def literal_merge_chunks(
    chunks: list[Chunk], embeddings: npt.NDArray[np.float64], max_chunk_chars: int = 8192
) -> list[Chunk]:
    """The seed's merge loop, step by step, one Chunk per merge."""
    vectors = [np.asarray(v, dtype=np.float64) for v in embeddings]
    while len(chunks) >= 2:
        sims = literal_cosine_similarities(np.array(vectors))
        threshold = np.mean(sims) - 0.5 * np.std(sims)
        new_chunks = [chunks[0]]
        new_vectors = [vectors[0]]
        count = 1
        merged_any = False
        for i in range(1, len(chunks)):
            sim = sims[i - 1]
            if sim >= threshold or sim >= 0.8:
                merged = Chunk(turns=new_chunks[-1].turns + chunks[i].turns)
                if len(merged.text) <= max_chunk_chars:
                    new_chunks[-1] = merged
                    count += 1
                    new_vectors[-1] = new_vectors[-1] + (vectors[i] - new_vectors[-1]) / count
                    merged_any = True
                    continue
            new_chunks.append(chunks[i])
            new_vectors.append(vectors[i])
            count = 1
        chunks, vectors = new_chunks, new_vectors
        if not merged_any:
            break
    return chunks


# ---------------------------------------------------------------- the reference's own code


def reference_cosine_similarities(embeddings: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The reference's neighbour cosines: row dots over the product of row norms."""
    a, b = embeddings[:-1], embeddings[1:]
    dots = np.sum(a * b, axis=1)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    out: npt.NDArray[np.float64] = dots / norms
    return out


def reference_merge_chunks(
    chunks: list[Chunk], embeddings: npt.NDArray[np.float64], max_chunk_chars: int = 8192
) -> list[Chunk]:
    """A port of the reference project's own ``merge_chunks`` (mindloop's chunker.py).

    Per pass: the similarities, the threshold from their mean and std, then for
    each pair a candidate ``Chunk(turns=group.turns + next.turns)`` kept when
    ``len(candidate.text)`` is within the cap, the group vector kept as
    ``(vec * (n - 1) + e) / n``, Python lists, and ``np.stack`` at the end of the pass.
    """
    while len(chunks) >= 2:
        sims = reference_cosine_similarities(embeddings)
        threshold = float(np.mean(sims) - 0.5 * np.std(sims))
        new_chunks: list[Chunk] = [chunks[0]]
        new_vecs: list[npt.NDArray[np.float64]] = [embeddings[0]]
        n = 1
        merged_any = False
        for i, sim in enumerate(sims):
            nxt = chunks[i + 1]
            if sim >= threshold or sim >= 0.8:
                candidate = Chunk(turns=new_chunks[-1].turns + nxt.turns)
                if len(candidate.text) <= max_chunk_chars:
                    new_chunks[-1] = candidate
                    n += 1
                    new_vecs[-1] = (new_vecs[-1] * (n - 1) + embeddings[i + 1]) / n
                    merged_any = True
                    continue
            new_chunks.append(nxt)
            new_vecs.append(embeddings[i + 1])
            n = 1
        chunks, embeddings = new_chunks, np.stack(new_vecs)
        if not merged_any:
            break
    return chunks


# ------------------------------------------------------------ the real reference, from a checkout


class RealReference:
    """``mindloop.chunker`` imported from a checkout, and its chunks built from ours."""

    def __init__(self, checkout: Path) -> None:
        if not (checkout / "mindloop" / "chunker.py").is_file():
            raise SystemExit(f"{checkout}: no mindloop/chunker.py (a checkout of Hardcode84/1?)")
        sys.path.insert(0, str(checkout))
        try:
            self.module: ModuleType = importlib.import_module("mindloop.chunker")
        finally:
            sys.path.remove(str(checkout))
        self.label = f"mindloop/chunker.py in {checkout}"
        try:
            head = subprocess.run(
                ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            self.label += f" at {head}"
        except (OSError, subprocess.CalledProcessError):
            pass

    def chunks(self, chunks: list[Chunk]) -> list[object]:
        """The reference's own Turn/Chunk objects, one per turn of ours (same text, role, time)."""
        turn_cls, chunk_cls = self.module.Turn, self.module.Chunk
        return [
            chunk_cls(turns=[turn_cls(t.timestamp, t.role, t.text) for t in c.turns])
            for c in chunks
        ]

    def spans(self, merged: list[object], n_turns_per_chunk: list[int]) -> list[tuple[int, int]]:
        """The reference output as spans over the input chunks (by counting turns)."""
        ends = np.cumsum(n_turns_per_chunk).tolist()
        at = {e: i + 1 for i, e in enumerate(ends)}
        spans, start, turns = [], 0, 0
        for c in merged:
            turns += len(c.turns)  # type: ignore[attr-defined]
            spans.append((start, at[turns]))
            start = at[turns]
        return spans


# ------------------------------------------------------------ another checkout's merge (--against)


def load_other(checkout: Path) -> ModuleType:
    """``engine/segment/merge.py`` of another checkout of chunkscope (before a change),
    imported under another name with that checkout's ``engine/parallel.py`` (the rest,
    the model, is this checkout's)."""
    loaded: dict[str, ModuleType] = {}
    for name, rel in (("other_parallel", "parallel.py"), ("other_merge", "segment/merge.py")):
        path = checkout / "engine" / rel
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise SystemExit(f"{path}: not a chunkscope checkout")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        loaded[name] = module
    other = loaded["other_merge"]
    other.run_shared = loaded["other_parallel"].run_shared  # type: ignore[attr-defined]
    return other


# --------------------------------------------------------------------------- timing


def _timed(fn: Callable[[], object]) -> float:
    gc.collect()  # don't bill a run for collecting the previous run's garbage
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _spans_of(merged: list[Chunk], chunks: list[Chunk]) -> list[tuple[int, int]]:
    index = {id(c.turns[0]): i for i, c in enumerate(chunks)}
    starts = [index[id(c.turns[0])] for c in merged]
    return list(zip(starts, [*starts[1:], len(chunks)], strict=True))


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


# literal runs, merge_chunks runs, and the target for each size
RUNS = {1_000: (7, 21), 10_000: (5, 15), 100_000: (3, 9)}
REFERENCE_RUNS = 5
TARGETS = {10_000: "speed-up >= 6x", 100_000: "merge_chunks < 0.5 s"}
REFERENCE_TARGET = 10.0  # merge_chunks at least this many times the reference's own code


def bench_size(
    n: int, real: RealReference | None = None, other: ModuleType | None = None
) -> tuple[list[str], list[str]]:
    """One table row (and notes) for ``n`` chunks."""
    rng = np.random.default_rng(n)
    chunks = make_chunks(n, rng)
    emb = make_embeddings(n, rng)
    for c in chunks:  # earlier stages (tokens, embeddings) have read every text
        _ = c.text

    result = merge(chunks, emb, MergeParams(max_chunk_chars=MAX_CHUNK_CHARS))
    fast = merge_chunks(chunks, emb, MAX_CHUNK_CHARS)
    literal: list[Chunk] = []

    def run_literal() -> None:
        literal[:] = literal_merge_chunks(chunks, emb, MAX_CHUNK_CHARS)

    lit_times = [_timed(run_literal)]  # the checked run is the first sample
    assert [c.text for c in fast] == [c.text for c in literal], f"texts differ at n={n}"
    assert [c.turns for c in fast] == [c.turns for c in literal], f"turns differ at n={n}"
    assert _spans_of(literal, chunks) == result.spans, f"spans differ at n={n}"

    lit_runs, fast_runs = RUNS[n]
    notes: list[str] = []
    if lit_times[0] > LITERAL_SLOW_S:
        lit_runs = 1
        notes.append(f"literal at {n:,} chunks took {lit_times[0]:.0f} s (> 60 s): timed once")
    per_literal = -(-fast_runs // lit_runs)  # merge_chunks runs after each literal run
    fast_times: list[float] = []
    for i in range(lit_runs):
        if i:
            lit_times.append(_timed(run_literal))
        for _ in range(min(per_literal, fast_runs - len(fast_times))):
            fast_times.append(_timed(lambda: merge_chunks(chunks, emb, MAX_CHUNK_CHARS)))
    run_reference: Callable[[], object]
    if real is not None:
        ref_chunks = real.chunks(chunks)
        # the reference's own types, as its callers give them (float32 from get_embeddings
        # would round differently from the float64 both loops here read)
        real_merge = real.module.merge_chunks
        same_as_ref = (
            real.spans(real_merge(ref_chunks, emb, MAX_CHUNK_CHARS), [len(c.turns) for c in chunks])
            == result.spans
        )

        def run_reference() -> None:
            real_merge(ref_chunks, emb, MAX_CHUNK_CHARS)

    else:
        ref_out = reference_merge_chunks(chunks, emb, MAX_CHUNK_CHARS)
        same_as_ref = _spans_of(ref_out, chunks) == result.spans

        def run_reference() -> None:
            reference_merge_chunks(chunks, emb, MAX_CHUNK_CHARS)

    one_thread = MergeParams(max_chunk_chars=MAX_CHUNK_CHARS)
    assert merge(chunks, emb, one_thread, threads=1).spans == result.spans
    ref_times, one_times, other_times = [], [], []
    if other is not None:
        assert [c.turns for c in other.merge_chunks(chunks, emb, MAX_CHUNK_CHARS)] == [
            c.turns for c in fast
        ], f"the other checkout's result differs at n={n}"
    for _ in range(REFERENCE_RUNS):  # interleaved with merge_chunks runs, on 1 thread and all
        ref_times.append(_timed(run_reference))
        fast_times.append(_timed(lambda: merge_chunks(chunks, emb, MAX_CHUNK_CHARS)))
        one_times.append(_timed(lambda: merge(chunks, emb, one_thread, threads=1)))
        if other is not None:
            other_times.append(_timed(lambda: other.merge_chunks(chunks, emb, MAX_CHUNK_CHARS)))
    lit_s, fast_s = statistics.median(lit_times), statistics.median(fast_times)
    ref_s, one_s = statistics.median(ref_times), statistics.median(one_times)
    ref_ratio = ref_s / fast_s
    if not same_as_ref:
        notes.append(
            f"{n:,} chunks: the reference's spans differ from the seed loop's (its cosines "
            "and running mean round differently)"
        )
    ratio = lit_s / fast_s
    target = TARGETS.get(n, "")
    if n == 10_000:
        target += " met" if ratio >= 6 else " MISSED"
    elif n == 100_000:
        target += " met" if fast_s < 0.5 else " MISSED"
    row = [
        f"{n:,}",
        str(DIMS),
        str(len(result.passes)),
        f"{len(result.spans):,}",
        f"{_fmt(lit_s)} ({len(lit_times)})",
        f"{_fmt(fast_s)} ({len(fast_times)})",
        f"{ratio:.1f}x",
        f"{_fmt(ref_s)} ({len(ref_times)})",
        f"{ref_ratio:.1f}x"
        + ("" if n < 10_000 else (" met" if ref_ratio >= REFERENCE_TARGET else " MISSED")),
        f"{_fmt(one_s)} ({len(one_times)}) {ref_s / one_s:.1f}x",
        "yes" if same_as_ref else "literal only",
        target or "-",
    ]
    if other is not None:
        other_s = statistics.median(other_times)
        notes.append(
            f"{n:,} chunks: the other checkout's merge_chunks {_fmt(other_s)} "
            f"({len(other_times)} runs, {ref_s / other_s:.1f}x the reference; this one "
            f"{ref_s / fast_s:.1f}x), timed in the same interleaving"
        )
    sizes = [c.chars for c in chunks]
    tokens = [s // 4 for s in sizes]  # a token cap of a quarter of the char cap
    char_cap, tok_cap = (
        MergeParams(max_chunk_chars=MAX_CHUNK_CHARS),
        MergeParams(max_chunk_tokens=MAX_CHUNK_CHARS // 4),
    )
    char_s = statistics.median(_timed(lambda: merge(chunks, emb, char_cap)) for _ in range(5))
    tok_s = statistics.median(
        _timed(lambda: merge(chunks, emb, tok_cap, token_counts=tokens)) for _ in range(5)
    )
    notes.append(
        f"{n:,} chunks: merge with a char cap {_fmt(char_s)}, with a token cap {_fmt(tok_s)} "
        f"(token/char {tok_s / char_s:.2f}, 5 runs each)"
    )
    emb32 = emb.astype(np.float32)  # what engine.embed returns; merge converts it once
    f32_s = statistics.median(
        _timed(lambda: merge_chunks(chunks, emb32, MAX_CHUNK_CHARS)) for _ in range(3)
    )
    notes.append(
        f"{n:,} chunks: merge_chunks on float32 embeddings {_fmt(f32_s)} (3 runs); "
        "thresholds by pass "
        + " ".join(f"{p.threshold:.3f}" for p in result.passes)
        + "; chunks after each pass "
        + " ".join(str(p.chunks_out) for p in result.passes)
    )
    return row, notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="merge_chunks vs the literal seed loop")
    ap.add_argument("--quick", action="store_true", help="1k and 10k only")
    ap.add_argument(
        "--reference",
        metavar="DIR",
        default=os.environ.get("CHUNKSCOPE_REFERENCE"),
        help="a checkout of github.com/Hardcode84/1: time its own merge_chunks "
        "(default $CHUNKSCOPE_REFERENCE; without one, a port)",
    )
    ap.add_argument("--sizes", help="comma-separated chunk counts (default 1000,10000,100000)")
    ap.add_argument(
        "--against",
        metavar="DIR",
        help="also time another chunkscope checkout's merge_chunks (before a change)",
    )
    args = ap.parse_args(argv)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    real = RealReference(Path(args.reference)) if args.reference else None
    other = load_other(Path(args.against)) if args.against else None

    rows: list[list[str]] = []
    notes: list[str] = []
    for n in sizes:
        row, row_notes = bench_size(n, real, other)
        rows.append(row)
        notes.extend(row_notes)

    header = [
        "chunks",
        "dims",
        "passes",
        "merged",
        "literal median (runs)",
        "merge_chunks median (runs)",
        "speed-up",
        "reference median (runs)",
        "vs reference (>= 10x)",
        "one thread, vs reference",
        "identical",
        "target",
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"numpy {np.__version__}, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '-')}, "
        f"{os.cpu_count()} CPUs, load average {load}"
    )
    print(
        "reference: " + (real.label if real else "a port (reference_merge_chunks; see --reference)")
    )
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)))
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
