"""Auto-tune on a few marks: does the setting it picks find them, and the other topics?

    python bench/marks.py [--sessions 6] [--seed 1]

For every generated 8-topic session of `bench/segdata.py` (dev and held-out, both
sources) and every pair of consecutive topic starts in it, the two starts are the
marks (partial, as the workbench makes them) and the topic grid of ``chunkscope tune``
is searched as auto-tune (`A`) searches it: ranked by `engine.evaluate.measure.Tuned.objective`
(F1 over the marked stretch, then Pk), equal settings by nearness to the defaults. The
setting chosen is then scored over the stretch (recall, F1) and against every topic of
the file (F1, Pk). "before" is the objective auto-tune had: Pk over the whole file with
the two marks as the only topics (ties by WindowDiff).

Then the same on the bundled sample logs, with every pair of their user turns as marks
(no gold beyond the marks: only whether the marks are found, and how often the
setting gives one topic for the whole log).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from segdata import make_dataset

from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.evaluate.measure import (
    TUNE_GRIDS,
    Case,
    Tuned,
    chunk_starts,
    line_weights,
    score,
    tune,
    tuning_segmenter,
)
from chunkscope.engine.pipeline import Pipeline, PipelineParams

GRID = TUNE_GRIDS["topic"]


def choose(pipe: Pipeline, marks: list[int], weights: Any, old: bool) -> tuple[Tuned, list[int]]:
    """The setting auto-tune picks on `marks` (`old`: by Pk over the whole file), and
    the starts of the chunks it gives."""
    defaults = Tuning()
    segmenter = tuning_segmenter(defaults, "topic")
    case = Case.of_pipeline(pipe, marks, weights, partial=not old)
    ranked = tune([case], segmenter, GRID, top=10_000, prefer=defaults.values())
    if old:
        ranked.sort(key=lambda t: (t.pk, t.windowdiff))
    best = ranked[0]
    return best, chunk_starts(segmenter(case, best.values))


def sessions(args: argparse.Namespace, tmp: Path) -> None:
    records = [r for r in make_dataset(tmp, args.sessions, 0, args.seed) if r["kind"] == "session"]
    print(f"\n{len(records)} generated 8-topic sessions, every pair of consecutive topic starts")
    head = (
        f"{'objective':<28}{'cases':>6}{'recall 1':>9}{'F1>=.6':>8}{'>=4 top':>8}"
        f"{'topics':>8}{'file F1':>8}{'file Pk':>8}"
    )
    for split in ("dev", "heldout"):
        print(f"\n{split}\n{head}")
        for old in (True, False):
            rows = []
            for r in (r for r in records if r["split"] == split):
                pipe = Pipeline(r["path"], PipelineParams())
                weights = line_weights(r["path"])
                gold = r["gold"]
                for a, b in itertools.pairwise(gold[1:]):
                    marks = [1, a, b]
                    _, starts = choose(pipe, marks, weights, old)
                    on_marks = score(starts, marks, weights, partial=True)
                    whole = score(starts, gold, weights)
                    rows.append((on_marks.recall, on_marks.f1, len(starts), whole.f1, whole.pk))
            name = "before: Pk, whole file" if old else "now: F1 then Pk, stretch"
            n = len(rows)
            print(
                f"{name:<28}{n:>6}"
                f"{sum(r[0] == 1 for r in rows) / n:>9.2f}"
                f"{sum(r[1] >= 0.6 for r in rows) / n:>8.2f}"
                f"{sum(r[2] >= 4 for r in rows) / n:>8.2f}"
                f"{statistics.mean(r[2] for r in rows):>8.1f}"
                f"{statistics.mean(r[3] for r in rows):>8.3f}"
                f"{statistics.mean(r[4] for r in rows):>8.3f}"
            )


def samples() -> None:
    root = Path(__file__).resolve().parent.parent / "sample_logs"
    print("\nsample logs (workbench pipeline: tool calls collapsed), every pair of user turns")
    print(f"{'file':<24}{'objective':<28}{'pairs':>6}{'recall 1':>9}{'recall 0':>9}{'1 topic':>8}")
    for path in sorted(root.glob("*.jsonl")):
        users = []
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if i > 1 and rec.get("role") == "user" and isinstance(rec.get("content"), str):
                users.append(i)
        if len(users) < 2:
            continue
        pipe = Pipeline(str(path), PipelineParams(collapse=True))
        weights = line_weights(path)
        for old in (True, False):
            found = []
            for a, b in itertools.combinations(users, 2):
                marks = [1, a, b]
                _, starts = choose(pipe, marks, weights, old)
                found.append((score(starts, marks, weights, partial=True).recall, len(starts)))
            name = "before: Pk, whole file" if old else "now: F1 then Pk, stretch"
            print(
                f"{path.name:<24}{name:<28}{len(found):>6}"
                f"{sum(r == 1 for r, _ in found):>9}{sum(r == 0 for r, _ in found):>9}"
                f"{sum(n == 1 for _, n in found):>8}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=6, help="per split and source, halved")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sessions(args, Path(tmp))
    samples()


if __name__ == "__main__":
    main()
