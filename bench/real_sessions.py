"""How much of the real sessions in tests/fixtures/ reaches the chunk text.

    python bench/real_sessions.py [--engine DIR]

For each fixture (sources in tests/fixtures/SOURCES.md): the tool results whose first
line shows in the chunk text, and the commands that show, of those in the file (found
from the raw records the way tests/test_real_sessions.py does). ``--engine DIR`` reads
with the engine of another checkout (e.g. ``git worktree add /tmp/before <commit>``),
to compare before and after a change.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", default=str(ROOT), help="checkout whose engine reads")
    args = ap.parse_args()
    sys.path.insert(0, args.engine)
    spec = importlib.util.spec_from_file_location("rs", ROOT / "tests" / "test_real_sessions.py")
    assert spec and spec.loader
    rs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rs)
    from chunkscope.engine.read.parse import load

    totals: dict[tuple[str, str], list[int]] = {}
    print(f"{'fixture':<58} {'results shown':>14} {'commands shown':>15}")
    for name, fmt in sorted(rs.CASES.items()):
        path = rs.FIXTURES / name
        _, results, commands, _ = rs.TRUTH[fmt](path)
        try:
            text, error = rs._chunk_text(load(path)), ""
        except Exception as e:  # a reader that refuses the file shows nothing
            text, error = "", f"  ({type(e).__name__})"
        r = sum(1 for x in results if rs._folded(x) in text)
        c = sum(1 for x in commands if x in text)
        print(f"{name:<58} {f'{r}/{len(results)}':>14} {f'{c}/{len(commands)}':>15}{error}")
        for what, shown, total in (("results", r, len(results)), ("commands", c, len(commands))):
            t = totals.setdefault((fmt, what), [0, 0])
            t[0] += shown
            t[1] += total
    for (fmt, what), (shown, total) in sorted(totals.items()):
        if total:
            print(f"all {fmt:<16} {what:<9} {shown}/{total}")


if __name__ == "__main__":
    main()
