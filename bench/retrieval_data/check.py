"""Check the retrieval query sets: every answer must occur in the decoded text of its file.

Usage: python bench/retrieval_data/check.py [--allow-missing-files] [-v]

For each ``*.queries.json`` in this directory it loads the source file with
`engine.read.parse.load` (sessions and markdown alike), joins the turn texts with
newlines, and counts each answer (case-sensitive). It prints one row per set and
exits 1 when an answer is not found, or a source file is absent (the long sessions
live in the gitignored ``bench/recap_sessions/``: see SOURCES.md to fetch them;
``--allow-missing-files`` skips those sets instead). A set may carry ``sha256`` of its
source file; a mismatch is an error too. Answers found more than twice, answers
outside 3-80 characters, answers that are not also verbatim in the raw file (JSON
escapes), and queries with no answers are reported as warnings. Column q_unique
counts the queries whose most frequent answer occurs exactly once.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from chunkscope.engine.read.parse import load  # noqa: E402

FORMATS = {"claude-code", "codex", "mini-swe-agent", "aider", "gemini-cli", "markdown"}
SPLITS = {"dev", "heldout", "heldout2"}


def decoded_text(path: Path) -> str:
    return "\n".join(t.text for t in load(path).turns)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--allow-missing-files", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every answer's count")
    args = ap.parse_args()

    errors: list[str] = []
    warnings: list[str] = []
    rows: list[tuple[str, ...]] = []
    totals: dict[str, int] = {}
    files_by_split: dict[str, int] = {}
    seen_files: dict[str, str] = {}

    for qpath in sorted(HERE.glob("*.queries.json")):
        name = qpath.name.removesuffix(".queries.json")
        data = json.loads(qpath.read_text(encoding="utf-8"))
        rel = data.get("file", "")
        split = data.get("split")
        fmt = data.get("format")
        if split not in SPLITS:
            errors.append(f"{name}: bad split {split!r}")
        if fmt not in FORMATS:
            errors.append(f"{name}: bad format {fmt!r}")
        if rel in seen_files:
            errors.append(f"{name}: file {rel} already used by {seen_files[rel]}")
        seen_files[rel] = name
        src = ROOT / rel
        queries = data.get("queries", [])
        if not src.is_file():
            msg = f"{name}: source file missing: {rel}"
            if args.allow_missing_files:
                warnings.append(msg + " (skipped)")
                rows.append(
                    (name, str(split), str(fmt), str(len(queries)), "-", "-", "-", "skipped")
                )
                continue
            errors.append(msg)
            continue
        want = data.get("sha256")
        if want and hashlib.sha256(src.read_bytes()).hexdigest() != want:
            errors.append(f"{name}: sha256 of {rel} differs from the one recorded")
        text = decoded_text(src)
        raw = src.read_bytes().decode("utf-8", errors="replace")
        found = missing = 0
        counts: list[int] = []
        for i, q in enumerate(queries):
            answers = q.get("answers") or []
            if not q.get("query") or not answers:
                warnings.append(f"{name}#{i}: query or answers empty")
            best = 0
            for a in answers:
                n = text.count(a)
                if args.verbose:
                    print(f"  {name}#{i} {n:3d} {a!r}")
                if not 3 <= len(a) <= 80:
                    warnings.append(f"{name}#{i}: answer length {len(a)}: {a[:40]!r}")
                if n == 0:
                    errors.append(f"{name}#{i}: answer not found: {a!r}")
                elif n > 2:
                    warnings.append(f"{name}#{i}: answer occurs {n} times: {a!r}")
                if n and a not in raw:
                    warnings.append(f"{name}#{i}: answer not verbatim in the raw file: {a!r}")
                best = max(best, n)
            counts.append(best)
            if best:
                found += 1
            else:
                missing += 1
        n_ans = sum(len(q.get("answers") or []) for q in queries)
        once = sum(1 for c in counts if c == 1)
        rows.append(
            (
                name,
                split,
                fmt,
                str(len(queries)),
                str(n_ans),
                str(once),
                f"{len(text) // 1000}k",
                "ok" if not missing else f"{missing} MISSING",
            )
        )
        totals[split] = totals.get(split, 0) + len(queries)
        files_by_split[split] = files_by_split.get(split, 0) + 1

    head = ("set", "split", "format", "queries", "answers", "q_unique", "text", "status")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    total = sum(totals.values())
    print(
        f"\n{total} queries in {sum(files_by_split.values())} files: "
        + ", ".join(f"{s} {totals[s]} queries / {files_by_split[s]} files" for s in sorted(totals))
    )
    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("ERROR:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
