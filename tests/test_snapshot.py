"""Cut snapshots (`engine.evaluate.snapshot`): ``--snapshot`` / ``--check`` on chunk and recap."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.evaluate.snapshot import (
    Cut,
    SnapshotError,
    cuts_of,
    moved,
    read_snapshot,
    write_snapshot,
)
from chunkscope.engine.model import Chunk, Turn, join_chunks
from chunkscope.tui.cli import main

WORDS = {
    "cache": "sqlite cache eviction vectors rows table schema migration lru expiry",
    "tides": "tide pools anemones crabs snails seaweed rocks ocean waves shore",
    "taxes": "invoice receipt deduction income bracket refund filing audit ledger",
}


def _session(path: Path) -> None:
    rng = np.random.default_rng(7)
    lines = []
    for topic in ("cache", "tides", "taxes", "cache"):
        lines.append(
            {"role": "user", "content": "About " + " ".join(rng.choice(WORDS[topic].split(), 12))}
        )
        for _ in range(5):
            lines.append(
                {"role": "assistant", "content": " ".join(rng.choice(WORDS[topic].split(), 40))}
            )
    path.write_text("".join(json.dumps(m) + "\n" for m in lines))


@given(
    texts=st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=12),
    groups=st.lists(st.booleans(), min_size=11, max_size=11),
)
def test_a_cut_that_stays_put_keeps_its_position_whatever_the_grouping(
    texts: list[str], groups: list[bool]
) -> None:
    units = [Chunk([Turn(None, "Bot", t, i + 1, i)]) for i, t in enumerate(texts)]
    fine = cuts_of(units)
    # Group the units (a cut between unit i and i+1 is kept where groups[i] is True).
    merged: list[list[Chunk]] = [[units[0]]]
    for i, unit in enumerate(units[1:]):
        if groups[i]:
            merged.append([unit])
        else:
            merged[-1].append(unit)
    coarse = cuts_of([join_chunks(g) for g in merged])
    kept = [fine[i] for i in range(len(units) - 1) if groups[i]]
    assert coarse == kept
    assert moved(fine, coarse) == ([c for c in fine if c not in kept], [])


def test_snapshot_then_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    log, cuts = tmp_path / "s.jsonl", tmp_path / "cuts.json"
    _session(log)
    chunk = ["chunk", str(log), "--embed", "--topic-chunk-tokens", "0"]  # a chunk per topic
    assert main([*chunk, "--snapshot", str(cuts), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    doc = json.loads(cuts.read_text())
    assert (doc["merge"], doc["chunks"]) == ("topic", len(out["merged"]))
    assert [c["line"] for c in doc["cuts"]] == [m["lines"][0] for m in out["merged"][1:]]
    # The same run: nothing moved, exit 0, and the output is printed as usual.
    assert main([*chunk, "--check", str(cuts)]) == 0
    captured = capsys.readouterr()
    assert "After merging" in captured.out and "cuts match" in captured.err
    # A run that cuts elsewhere: exit 1, each moved cut listed by line.
    assert main([*chunk, "--topic-depth", "30", "--check", str(cuts)]) == 1
    err = capsys.readouterr().err
    pinned = read_snapshot(cuts)
    assert "cuts moved" in err and f"gone line {pinned[0].line} (char " in err
    # recap pins its own cuts the same way.
    rc = tmp_path / "recap-cuts.json"
    assert main(["recap", str(log), "--snapshot", str(rc), "-o", str(tmp_path / "r.md")]) == 0
    assert main(["recap", str(log), "--check", str(rc), "-o", str(tmp_path / "r.md")]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (None, "no such snapshot file"),
        ('{"cuts": [', ":1: not valid JSON"),
        ('{"version": 1}', ':1: not a cut snapshot (expected {"cuts": [...]})'),
        ('{"version": 9, "cuts": []}', ":1: snapshot version 9, not 1"),
        ('{"version": 1, "cuts": [{"line": "x", "char": 0}]}', ":1: cuts[0] is not"),
    ],
)
def test_check_refuses_a_missing_or_corrupt_snapshot_before_running(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    isolated: Path,
    content: str | None,
    error: str,
) -> None:
    log, cuts = tmp_path / "s.jsonl", tmp_path / "cuts.json"
    _session(log)
    if content is not None:
        cuts.write_text(content)
    assert main(["chunk", str(log), "--embed", "--check", str(cuts)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before anything ran
    assert captured.err.startswith(f"chunkscope: {cuts}") and error in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    with pytest.raises(SnapshotError):
        read_snapshot(cuts)


def test_write_snapshot_round_trips(tmp_path: Path) -> None:
    cuts = [Cut(3, 10), Cut(3, 50), Cut(9, 120)]
    path = write_snapshot(tmp_path / "c.json", cuts, {"source": "x", "chunks": 4})
    assert read_snapshot(path) == cuts
    assert moved(cuts, [Cut(3, 10), Cut(9, 121)]) == ([Cut(3, 50), Cut(9, 120)], [Cut(9, 121)])
