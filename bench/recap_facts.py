"""Fact recall of session recaps: does the recap tell a resuming agent what it needs?

    python bench/recap_facts.py [--sessions DIR] [--budget 1000] [--before SRC] [--show ID]

Each ``bench/recap_facts/*.json`` names one real public session (its repository, commit
and path: see tests/fixtures/SOURCES.md, "Recap development set"), its split (``dev``:
looked at while building the recap; ``heldout``: facts written from the session alone,
never tuned on) and the facts a resuming agent needs (the task, files changed, outcomes,
open items), each a case-insensitive regular expression a recap must match.

Four sets of sessions (``set`` in the JSON): ``sessions`` (the default), ``fresh`` and
``fresh2``, whose files are not committed (they are 0.01-3.5 MB each): put them in
``bench/recap_sessions/`` (or ``--sessions DIR``) under the file name the JSON gives; and
``fixtures``, small real sessions committed under ``tests/fixtures/`` (``file`` is their
path in the repository). ``fresh`` and ``fresh2`` are held out whole: their facts were
written before any recap of them was run (see docs/recap.md, "Fact recall").
A missing file is skipped and said so. Nothing is fetched. Each set has its dev and
held-out parts, measured apart.

Measured side by side, per session and overall (micro-averaged over facts), dev and
held-out apart:

- ``chunkscope``: ``chunkscope recap FILE --budget N`` (the default offline recap), run
  in a process of its own;
- ``naive``: the first user messages (up to a quarter of the budget) and the last
  three quarters of the budget of the log's text (its turns as chunkscope reads them,
  tool calls shown), both cut exactly in tokens of the same counter;
- ``before`` (with ``--before SRC``): ``chunkscope recap`` of another checkout, e.g. the
  main branch (``git archive main | tar -x -C /tmp/main``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chunkscope.engine.read.parse import load  # noqa: E402
from chunkscope.engine.tokens import get_counter  # noqa: E402

FACTS = ROOT / "bench" / "recap_facts"
SESSIONS = ROOT / "bench" / "recap_sessions"


def recap(src: Path, session: Path, budget: int) -> str:
    """The recap `chunkscope recap` of the checkout at `src` prints for `session`."""
    code = "import sys; from chunkscope.tui.cli import main; sys.exit(main())"
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", code, "recap", str(session), "--budget", str(budget)],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{session.name}: recap failed: {out.stderr.strip()[-300:]}")
    return out.stdout


def naive(session: Path, budget: int) -> str:
    """First user messages (a quarter of the budget) + the log's last tokens (the rest)."""
    enc = get_counter()
    turns = load(session).turns
    head_budget = budget // 4
    head: list[int] = []
    for t in turns:
        if t.role != "You":
            continue
        ids = enc.encode(f"You: {t.text}\n")
        head += ids[: head_budget - len(head)]
        if len(head) >= head_budget:
            break
    text = "\n".join(f"{t.role}: {t.text}" for t in turns)
    tail = enc.encode(text)[-(budget - len(head)) :]
    return enc.decode(head) + "\n...\n" + enc.decode(tail)


def recall(text: str, facts: list[dict[str, str]]) -> list[bool]:
    return [re.search(f["pattern"], text, re.I | re.S) is not None for f in facts]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=Path, default=SESSIONS)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--before", type=Path, default=None, metavar="SRC")
    ap.add_argument("--show", default=None, metavar="ID", help="print that session's recaps")
    ap.add_argument("--misses", action="store_true", help="list the facts each recap missed")
    ap.add_argument("--split", choices=("dev", "heldout"), default=None, help="only these")
    ap.add_argument(
        "--set", dest="group", choices=("sessions", "fixtures", "fresh", "fresh2"), default=None
    )
    ap.add_argument("--only", default="", metavar="IDS", help="these sessions (comma-separated)")
    args = ap.parse_args()
    only = {x for x in args.only.split(",") if x}
    counter = get_counter()
    kinds = ["chunkscope", "naive"] + (["before"] if args.before else [])
    totals: dict[str, dict[str, list[int]]] = {}
    print(
        f"| session | set | split | format | facts | {' | '.join(kinds)} | tokens (chunkscope) |\n"
        f"|---|---|---|---|---:|{'---:|' * len(kinds)}---:|"
    )
    for spec_path in sorted(FACTS.glob("*.json")):
        spec = json.loads(spec_path.read_text())
        group = spec.get("set", "sessions")
        if (args.split and spec["split"] != args.split) or (args.group and group != args.group):
            continue
        if only and spec["id"] not in only:
            continue
        session = (ROOT if group == "fixtures" else args.sessions) / spec["file"]
        if not session.is_file():
            print(f"| {spec['id']} | {spec['split']} | missing: {session} |", file=sys.stderr)
            continue
        facts = spec["facts"]
        texts = {
            "chunkscope": recap(ROOT, session, args.budget),
            "naive": naive(session, args.budget),
        }
        if args.before:
            texts["before"] = recap(args.before.resolve(), session, args.budget)
        row = []
        for kind in kinds:
            hits = recall(texts[kind], facts)
            split = totals.setdefault(f"{group} {spec['split']}", {})
            got = split.setdefault(kind, [0, 0])
            got[0] += sum(hits)
            got[1] += len(hits)
            row.append(f"{sum(hits)}/{len(hits)}")
            if args.misses:
                for f, hit in zip(facts, hits, strict=True):
                    if not hit:
                        print(f"  {spec['id']} {kind} misses: {f['fact']}", file=sys.stderr)
        tokens = counter.count(texts["chunkscope"])
        print(
            f"| {spec['id']} | {group} | {spec['split']} | {spec['format']} | {len(facts)} | "
            f"{' | '.join(row)} | {tokens} |"
        )
        if args.show == spec["id"]:
            for kind in kinds:
                print(f"\n----- {kind} -----\n{texts[kind]}", file=sys.stderr)
    print()
    print(f"| set | split | {' | '.join(kinds)} |\n|---|---|{'---:|' * len(kinds)}")
    for name in sorted(totals):
        cells = [f"{h / n:.2f} ({h}/{n})" for h, n in (totals[name][k] for k in kinds)]
        print(f"| {' | '.join(name.split())} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
