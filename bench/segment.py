"""Topic segmentation quality and speed, on a generated labelled set (`bench/segdata.py`)
and on real agent sessions marked by hand (`bench/realdata.py`).

    python bench/segment.py [--sessions 8] [--docs 3] [--seed 1] [--doc-max-chars N] [--e5]
        [--before DIR] [--real-only] [--per-session] [--real-splits dev,heldout,heldout3]

**Real sessions** (first table): the sessions of `bench/realseg/` (Claude Code, Codex,
aider, mini-swe-agent; dev and held out; fetch the ones not committed with ``python
bench/realdata.py fetch``), scored against the topic starts a person marked: mean Pk,
WindowDiff, boundary F1, and the topics found against the topics marked (their totals,
and the mean of found / marked per session), for one topic for the whole session,
``--merge seed`` with its defaults, and the topic defaults; ``--before DIR`` adds the
topic defaults of another checkout's engine (e.g. ``git worktree add /tmp/before
<commit>``: the segmenter before a change), run in a subprocess; ``--per-session``
prints each session's row.


Prints mean Pk, WindowDiff and boundary F1 per kind of file (agent sessions; markdown
files of stitched documents with their titles, without them, and with the title in
front matter: see `bench/segdata.py`) for: one chunk for the whole file, the seed's
merge loop with its defaults, ``--merge topic`` with its defaults, and ``--merge topic``
tuned (`engine.evaluate.measure.tune`) on the dev files and scored on the held-out files (other
topics, other documentation sets); then the topic defaults' Pk per documentation set, dev
and held out, to show that what holds on one set holds on the others; then timings: topic
segmentation of 10k chunks after the vectors exist (its topics split to fit the default
size cap, as the pipeline does), a 50-point sweep on a 2k-chunk
file, and tuning on 5 files. ``--e5`` adds the offline neural embedder when installed.
Run in the bench environment (`bench/segpeers.py`), the held-out table also has rows for
chonkie's and LangChain's ``SemanticChunker`` on the same units and vectors.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
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
if "--engine" in sys.argv:  # another checkout's engine (--before runs this in a subprocess)
    sys.path.insert(0, sys.argv[sys.argv.index("--engine") + 1])
    import chunkscope.engine  # noqa: F401  (that one: segpeers puts this checkout first on the path)

import realdata
import segdata
from segdata import make_dataset
from segpeers import peers

from chunkscope.engine.evaluate.measure import TUNE_GRIDS, Case, evaluate, line_weights, sweep, tune
from chunkscope.engine.model import Chunk, join_chunks
from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams, merge
from chunkscope.engine.segment.segmenter import TopicParams, frame, segment

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


def kind_of(r: Mapping[str, Any]) -> str:
    """``session`` or ``docs VARIANT`` (titled, notitle, frontmatter)."""
    return "session" if r["kind"] == "session" else f"docs {r['variant']}"


KINDS = ["session", "docs titled", "docs notitle", "docs frontmatter"]


def table(
    title: str, rows: list[tuple[str, dict[str, tuple[float, float, float]]]], pk_only: bool = False
) -> None:
    kinds = list(rows[0][1])
    width = max(34, *(len(name) for name, _ in rows))
    print(f"\n{title}")
    if pk_only:
        print(f"{'':<{width}}" + "".join(f" {k:>14}" for k in kinds))
        for name, by_kind in rows:
            print(
                f"{name:<{width}}"
                + "".join(
                    f" {by_kind[k][0]:>14.3f}" if k in by_kind else f" {'':>14}" for k in kinds
                )
            )
        return
    head = f"{'method':<{width}}" + "".join(
        f" {k.replace('docs ', '') + ' Pk':>15} {'WD':>6} {'F1':>6}" for k in kinds
    )
    print(head)
    for name, by_kind in rows:
        print(
            f"{name:<{width}}"
            + "".join(
                f" {by_kind[k][0]:>15.3f} {by_kind[k][1]:>6.3f} {by_kind[k][2]:>6.3f}"
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
            and (kind is None or kind_of(r) == kind)
            and (source is None or r["source"] == source)
        ]

    kinds = [k for k in KINDS if pick("heldout", k)]
    both = tune(pick("dev"), topic, GRID, top=1)[0][0]
    rows = []
    for name, fn, values, mode in (
        ("one chunk for the whole file", single, {}, "seed"),
        ("seed loop, defaults", seed_loop, {}, "seed"),
        # peers (bench/segpeers.py), when installed: the topic mode's units and vectors
        *[(peer, segmenter, {}, "topic") for peer, segmenter in peers()],
        ("topic, defaults (untuned)", topic, {}, "topic"),
        ("topic, tuned on dev", topic, both, "topic"),
    ):
        rows.append(
            (name, {k: mean_scores(pick("heldout", k, mode=mode), fn, values) for k in kinds})
        )
    n_files = len(pick("heldout"))
    table(f"held-out files, {embedder} embedder (mean over {n_files} files)", rows)
    print(f"tuned on dev (all kinds): {both}")
    dev_kinds = [k for k in KINDS if pick("dev", k)]
    dev_rows = [
        (name, {k: mean_scores(pick("dev", k, mode=mode), fn, {}) for k in dev_kinds})
        for name, fn, mode in (
            ("one chunk for the whole file", single, "seed"),
            ("topic, defaults", topic, "topic"),
        )
    ]
    table(f"dev files, {embedder} embedder (mean over {len(pick('dev'))} files)", dev_rows)

    # per documentation set: the dev sets and the held-out ones, topic defaults
    doc_kinds = [k for k in kinds if k != "session"]
    for split in ("dev", "heldout"):
        sets = sorted({r["source"] for r, _ in by_mode["topic"] if r["split"] == split})
        rows = []
        for source in sets:
            scored = {
                k: mean_scores(cases, topic, {})
                for k in doc_kinds
                if (cases := pick(split, k, source))
            }
            if scored:
                rows.append((f"{source}: topic defaults", scored))
        rows.append(
            (
                f"{split} mean: one chunk for the whole file",
                {k: mean_scores(pick(split, k, mode="seed"), single, {}) for k in doc_kinds},
            )
        )
        table(f"{split} documentation sets, {embedder}: mean Pk per set", rows, pk_only=True)


# --------------------------------------------------------------------------- real sessions

#: A row of the real-session table: per split, (Pk, WindowDiff, F1, topics found,
#: topics marked, mean of found / marked per session).
RealRow = dict[str, tuple[float, float, float, int, int, float]]


def real_cases(mode: str, splits: str | None = None) -> list[tuple[realdata.RealSession, Case]]:
    """Each marked session that is here, read as the pipeline reads it in `mode` (only
    those of `splits`, comma-separated, when given)."""
    from chunkscope.engine.evaluate.gold import read_gold

    here, missing = realdata.available()
    if splits:
        keep = splits.split(",")
        here = [s for s in here if s.split in keep]
        missing = [s for s in missing if s.split in keep]
    if missing:
        names = ", ".join(s.name for s in missing)
        print(f"skip: {names} (run python bench/realdata.py fetch)", file=sys.stderr)
    out = []
    for s in here:
        params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode=mode))
        pipe = Pipeline(s.file(), params)
        weights = line_weights(s.file())
        gold = read_gold(s.gold(), lines=len(weights))
        out.append((s, Case(pipe.compacted(), pipe.embeddings(), gold, weights)))
    return out


def real_scores(
    cases: list[tuple[realdata.RealSession, Case]], fn: Any, per_session: bool, label: str
) -> RealRow:
    """The mean scores per split of segmenter `fn` (see `RealRow`)."""
    from chunkscope.engine.evaluate.measure import score

    def chunk_starts(chunks: list[Chunk]) -> list[int]:
        # the first topic starts the file (as `engine.evaluate.measure.chunk_starts` has it
        # now; a checkout from before may count the first chunk's own line)
        return sorted({1} | {c.lines[0] for c in chunks[1:] if c.lines is not None})

    by_split: dict[str, list[tuple[float, float, float, int, int]]] = {}
    for s, case in cases:
        topics = fn(case, {})
        scored = score(chunk_starts(topics), case.gold, case.weights)
        found, marked = len(chunk_starts(topics)), len(case.gold)
        by_split.setdefault(s.split, []).append(
            (scored.pk, scored.windowdiff, scored.f1, found, marked)
        )
        if per_session:
            print(
                f"  {label:<28} {s.split:<8} {s.name:<20} Pk {scored.pk:.3f} "
                f"WD {scored.windowdiff:.3f} F1 {scored.f1:.3f} topics {found}/{marked}"
            )
    return {
        split: (
            statistics.mean(r[0] for r in rows),
            statistics.mean(r[1] for r in rows),
            statistics.mean(r[2] for r in rows),
            sum(r[3] for r in rows),
            sum(r[4] for r in rows),
            statistics.mean(r[3] / r[4] for r in rows),
        )
        for split, rows in by_split.items()
    }


def before_scores(checkout: str, per_session: bool, splits: str | None) -> RealRow:
    """The topic defaults of another checkout's engine on the real sessions (a subprocess
    of this script with ``--engine``)."""
    argv = [sys.executable, __file__, "--engine", checkout, "--real-json"]
    if per_session:
        argv.append("--per-session")
    if splits:
        argv += ["--real-splits", splits]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    lines = done.stdout.strip().splitlines()
    for line in lines[:-1]:
        print(line)
    return {k: tuple(v) for k, v in json.loads(lines[-1]).items()}  # type: ignore[misc]


def real_table(args: argparse.Namespace) -> None:
    by_mode = {mode: real_cases(mode, args.real_splits) for mode in ("seed", "topic")}
    if not by_mode["topic"]:
        return
    per = args.per_session
    rows: list[tuple[str, RealRow]] = [
        ("one topic for the whole session", real_scores(by_mode["seed"], single, per, "one")),
        ("--merge seed, defaults", real_scores(by_mode["seed"], seed_loop, per, "seed")),
    ]
    if args.before:
        rows.append(
            (
                "topic defaults, before (--before)",
                before_scores(args.before, per, args.real_splits),
            )
        )
    rows.append(("topic defaults", real_scores(by_mode["topic"], topic, per, "topic")))
    wanted = args.real_splits.split(",") if args.real_splits else list(realdata.SPLITS)
    splits = [sp for sp in wanted if any(sp in r for _, r in rows)]
    n = {sp: sum(1 for s, _ in by_mode["topic"] if s.split == sp) for sp in splits}
    print("\nreal sessions marked by hand (bench/realseg), lexical embedder: mean per session")
    print(
        f"{'method':<36}"
        + "".join(
            f" {sp + f' ({n[sp]}) Pk':>16} {'WD':>6} {'F1':>6} {'topics/marked':>14} {'ratio':>6}"
            for sp in splits
        )
    )
    for name, row in rows:
        print(
            f"{name:<36}"
            + "".join(
                f" {row[sp][0]:>16.3f} {row[sp][1]:>6.3f} {row[sp][2]:>6.3f} "
                f"{f'{row[sp][3]}/{row[sp][4]}':>14} {row[sp][5]:>6.2f}"
                for sp in splits
            )
        )


def timings() -> None:
    rng = np.random.default_rng(3)
    from chunkscope.engine.model import Turn

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
    # a markdown file of 10k units: sections under headings, every 40th a page's front
    # matter, every 120th paragraph a badge line (the document-start scan runs in the frame)
    md = []
    for i in range(10_000):
        text = "y" * int(rng.integers(50, 900))
        if i % 8 == 0:
            text = f"{'#' * (2 + i % 3)} Section {i % 50}\n{text}"
        elif i % 40 == 1:
            text = f"---\ntitle: page {i}\n---\n{text}"
        elif i % 120 == 3:
            text = f"[![ci](https://ci.example/{i}.svg)](https://ci.example)\n{text}"
        md.append(Chunk([Turn(None, "Doc", text, i + 1, i // 8)]))
    md_prepared = frame(md, vectors)
    md_once = median_ms(lambda: frame(md, vectors))
    md_step = median_ms(lambda: segment(md, vectors, TopicParams(), md_prepared))
    print(
        f"markdown, 10k units: a slider step {md_step:.1f} ms (the frame, with the "
        f"document-start scan, {md_once:.1f} ms, built once per file)"
    )

    # markdown with no front matter and no title: the word model finds its documents
    # (engine.segment.wordseg) in the frame. 33 documents of about 300 units, each drawing its
    # words from its own 80 of a vocabulary that overlaps the next document's
    def word(j: int) -> str:
        return "".join(chr(97 + (j // 26**k) % 26) for k in range(4))

    plain = []
    for i in range(10_000):
        base = (i // 300) * 50
        picks = rng.integers(base, base + 80, size=int(rng.integers(8, 120)))
        text = " ".join(word(int(j)) for j in picks)
        if i % 8 == 0:
            text = f"{'#' * (2 + i % 3)} Section {i % 50}\n{text}"
        plain.append(Chunk([Turn(None, "Doc", text, i + 1, i // 8)]))
    plain_once = median_ms(lambda: frame(plain, vectors))
    plain_step = median_ms(lambda: segment(plain, vectors, TopicParams(), frame(plain, vectors)))
    print(
        f"markdown without marks, 10k units: the frame with the word model {plain_once:.1f} ms "
        f"(once per file); frame and step {plain_step:.1f} ms"
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
    ap.add_argument("--docs", type=int, default=3, help="files per documentation set and variant")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--doc-max-chars",
        type=int,
        default=segdata.DOC_MAX_CHARS,
        help="cut each document at its last heading before this size (long documents: 40000)",
    )
    ap.add_argument("--e5", action="store_true")
    ap.add_argument("--no-timings", action="store_true")
    ap.add_argument("--before", metavar="DIR", help="another checkout: its topic defaults")
    ap.add_argument("--real-only", action="store_true", help="only the real sessions")
    ap.add_argument("--per-session", action="store_true", help="each real session's row")
    ap.add_argument(
        "--real-splits",
        metavar="SPLITS",
        help="only these splits of the real sessions, comma-separated (e.g. dev)",
    )
    ap.add_argument("--engine", metavar="DIR", help=argparse.SUPPRESS)
    ap.add_argument("--real-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.real_json:  # the subprocess of --before: the topic defaults as JSON
        cases = real_cases("topic", args.real_splits)
        print(json.dumps(real_scores(cases, topic, args.per_session, "topic, before")))
        return
    real_table(args)
    if args.real_only:
        return
    segdata.DOC_MAX_CHARS = args.doc_max_chars
    with tempfile.TemporaryDirectory() as tmp:
        run(args, Path(tmp), "lexical")
        if args.e5:
            run(args, Path(tmp), "e5")
    if not args.no_timings:
        timings()


if __name__ == "__main__":
    main()
