"""Topic segmentation quality and speed, on a generated labelled set (`bench/segdata.py`).

    python bench/segment.py [--sessions 8] [--docs 8] [--seed 1] [--e5]

Prints mean Pk, WindowDiff and boundary F1 per kind of file (agent sessions, markdown
documents) for: one chunk for the whole file, the seed's merge loop with its defaults,
``--merge topic`` with its defaults, and ``--merge topic`` tuned (`engine.evaluate.tune`)
on the dev files and scored on the held-out files (other topics); then the same per
source, to show that what is tuned on one holds on the other; then timings: topic
segmentation of 10k chunks after the vectors exist (its topics split to fit the default
size cap, as the pipeline does), a 50-point sweep on a 2k-chunk
file, and tuning on 5 files. ``--e5`` adds the offline neural embedder when installed.
Run in the bench environment (`bench/segpeers.py`), the held-out table also has rows for
chonkie's and LangChain's ``SemanticChunker`` on the same units and vectors.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from segdata import make_dataset
from segpeers import peers

from engine.evaluate import TUNE_GRIDS, Case, evaluate, line_weights, sweep, tune
from engine.merge import MergeParams, merge
from engine.model import Chunk, join_chunks
from engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
from engine.segment import TopicParams, frame, segment

GRID = TUNE_GRIDS["topic"]


def single(case: Case, values: Mapping[str, Any]) -> list[Chunk]:
    return [join_chunks(case.chunks)]


def seed_loop(case: Case, values: Mapping[str, Any]) -> list[Chunk]:
    return merge(case.chunks, case.vectors, MergeParams(**values)).chunks


def topic(case: Case, values: Mapping[str, Any]) -> list[Chunk]:
    # the topics (scored against gold); the size cap splits them, never moves them
    return segment(
        case.chunks, case.vectors, replace(TopicParams(), **values), case.topic_frame()
    ).topic_chunks


def load_cases(
    records: list[dict[str, Any]], embedder: str, mode: str
) -> list[tuple[dict[str, Any], Case]]:
    """Each file's compacted chunks and vectors as the pipeline makes them in `mode` (the
    topic mode's chunks start at every message, the seed's only at blank lines)."""
    out = []
    for r in records:
        params = PipelineParams(embedder=EmbedderSpec(name=embedder), merge=MergeParams(mode=mode))
        pipe = Pipeline(r["path"], params)
        chunks = pipe.compacted()
        out.append((r, Case(chunks, pipe.embeddings(), r["gold"], line_weights(r["path"]))))
    return out


def mean_scores(
    cases: list[Case], fn: Any, values: Mapping[str, Any]
) -> tuple[float, float, float]:
    scores = [evaluate(c, fn, values) for c in cases]
    return (
        statistics.mean(s.pk for s in scores),
        statistics.mean(s.windowdiff for s in scores),
        statistics.mean(s.f1 for s in scores),
    )


def table(title: str, rows: list[tuple[str, dict[str, tuple[float, float, float]]]]) -> None:
    kinds = list(rows[0][1])
    width = max(34, *(len(name) for name, _ in rows))
    print(f"\n{title}")
    head = f"{'method':<{width}}" + "".join(f" {k + ' Pk':>13} {'WD':>6} {'F1':>6}" for k in kinds)
    print(head)
    for name, by_kind in rows:
        print(
            f"{name:<{width}}"
            + "".join(
                f" {by_kind[k][0]:>13.3f} {by_kind[k][1]:>6.3f} {by_kind[k][2]:>6.3f}"
                for k in kinds
            )
        )


def run(args: argparse.Namespace, tmp: Path, embedder: str) -> None:
    records = make_dataset(tmp / "data", args.sessions, args.docs, args.seed)
    by_mode = {mode: load_cases(records, embedder, mode) for mode in ("seed", "topic")}

    def pick(
        split: str, kind: str | None = None, source: str | None = None, mode: str = "topic"
    ) -> list[Case]:
        return [
            c
            for r, c in by_mode[mode]
            if r["split"] == split
            and (kind is None or r["kind"] == kind)
            and (source is None or r["source"] == source)
        ]

    kinds = ["session", "docs"]
    tuned: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        best = tune(pick("dev", kind), topic, GRID, top=1)
        tuned[kind] = best[0][0]
    both = tune(pick("dev"), topic, GRID, top=1)[0][0]
    rows = []
    for name, fn, values, mode in (
        ("one chunk for the whole file", single, {}, "seed"),
        ("seed loop, defaults", seed_loop, {}, "seed"),
        # peers (bench/segpeers.py), when installed: the topic mode's units and vectors
        *[(peer, segmenter, {}, "topic") for peer, segmenter in peers()],
        ("topic, defaults (untuned)", topic, {}, "topic"),
        ("topic, tuned on dev (both kinds)", topic, both, "topic"),
    ):
        rows.append(
            (name, {k: mean_scores(pick("heldout", k, mode=mode), fn, values) for k in kinds})
        )
    rows.append(
        (
            "topic, tuned on dev (per kind)",
            {k: mean_scores(pick("heldout", k), topic, tuned[k]) for k in kinds},
        )
    )
    table(f"held-out files, {embedder} embedder (mean over {len(pick('heldout'))} files)", rows)
    print(f"tuned on dev (both kinds): {both}")
    print(f"tuned on dev per kind: {tuned}")

    # across sources: tuned on one source's dev files, scored on the other's held-out
    rows = []
    for train, test in (("readme", "stdlib"), ("stdlib", "readme")):
        values = tune(pick("dev", source=train), topic, GRID, top=1)[0][0]
        rows.append(
            (
                f"topic tuned on {train}, scored on {test}",
                {k: mean_scores(pick("heldout", k, test), topic, values) for k in kinds},
            )
        )
        rows.append(
            (
                f"topic defaults, scored on {test}",
                {k: mean_scores(pick("heldout", k, test), topic, {}) for k in kinds},
            )
        )
    table("across sources", rows)


def timings() -> None:
    rng = np.random.default_rng(3)
    from engine.model import Turn

    chunks = [
        Chunk([Turn(None, "You", "x" * int(rng.integers(50, 900)), i, i)]) for i in range(10_000)
    ]
    vectors = rng.normal(size=(10_000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

    def median_ms(fn: Any) -> float:
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1000

    prepared = frame(chunks, vectors)
    cold = median_ms(lambda: segment(chunks, vectors))
    step = median_ms(lambda: segment(chunks, vectors, TopicParams(), prepared))
    free = median_ms(lambda: segment(chunks, vectors, TopicParams(), prepared, max_chars=None))
    once = median_ms(lambda: frame(chunks, vectors))
    print(
        f"\ntopic segmentation, 10k chunks x 384 dims (median of 7; target <= 100 ms):\n"
        f"  from scratch {cold:.1f} ms; a slider step {step:.1f} ms "
        f"(the knob-independent frame, {once:.1f} ms, built once per file); "
        f"the same step without the size cap {free:.1f} ms"
    )
    small = Case(chunks[:2000], vectors[:2000], [1, 500, 1200], np.full(2000, 400, dtype=np.int64))
    t0 = time.perf_counter()
    sweep(small, topic, "topic_depth", np.linspace(0, 10, 50).tolist(), {})
    print(f"sweep of 50 points on 2k chunks: {time.perf_counter() - t0:.2f} s (target < 2 s)")
    cases = [
        Case(
            chunks[i * 2000 : (i + 1) * 2000],
            vectors[i * 2000 : (i + 1) * 2000],
            [1, 700, 1400],
            np.full(2000, 400, dtype=np.int64),
        )
        for i in range(5)
    ]
    t0 = time.perf_counter()
    tune(cases, topic, GRID)
    n = int(np.prod([len(v) for v in GRID.values()]))
    print(
        f"tune on 5 files of 2k chunks, {n} settings: {time.perf_counter() - t0:.1f} s "
        "(target < 60 s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--e5", action="store_true")
    ap.add_argument("--no-timings", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(args, Path(tmp), "lexical")
        if args.e5:
            run(args, Path(tmp), "e5")
    if not args.no_timings:
        timings()


if __name__ == "__main__":
    main()
