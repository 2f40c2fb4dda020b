"""`chunkscope chunk --embed`: the one size cap in both modes, the two levels in the
JSON (topics, then merged chunks), ``--snapshot``/``--check`` of both, ``--chunks`` and
``--topics``, and markdown without clock times."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.cli import main

WORDS = {
    "install": "package dependency registry tarball lockfile version semver tree",
    "cache": "cache folder integrity content hash offline verify clean entries",
    "scripts": "script lifecycle hook prepare postinstall environment shell run",
    "config": "config npmrc setting scope registry auth token project user global",
}


def _doc(path: Path) -> Path:
    """One long document (~37k chars) of level-2 sections with paragraphs and a code
    block, no level-1 heading inside: one topic, far over the default cap."""
    parts = ["# npm-thing", ""]
    for i in range(24):
        topic = list(WORDS)[i % 4]
        words = WORDS[topic].split()
        parts += [f"## {topic.title()} {i}", ""]
        for p in range(4):
            text = " ".join(words[(p + k) % len(words)] for k in range(48))
            parts += [f"Paragraph {p} of section {i}: {text}.", ""]
        if i % 6 == 0:
            parts += ["```bash", f"npm {topic} --flag {i}", "```", ""]
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = main(["chunk", *argv, "--embed", "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def _fits(doc: dict[str, Any], key: str, cap: int) -> None:
    for m in doc["merged"]:
        assert m[key] <= cap or (m["exceeds_limit"] and len(m["parts"]) == 1), (m[key], cap)


def _check_levels(doc: dict[str, Any]) -> None:
    """The topics partition the merged chunks in order; each chunk names its topic."""
    topics, merged = doc["topics"], doc["merged"]
    assert [t["index"] for t in topics] == list(range(len(topics)))
    covered = [i for t in topics for i in range(t["chunks"][0], t["chunks"][1] + 1)]
    assert covered == list(range(len(merged)))
    for t in topics:
        assert set(t) == {"index", "lines", "chunks", "reason"}
        first, last = t["chunks"]
        assert all(merged[i]["topic"] == t["index"] for i in range(first, last + 1))
        assert t["lines"] == [merged[first]["lines"][0], t["lines"][1]]
        assert t["lines"][1] >= merged[last]["lines"][1]
    assert topics[0]["reason"] == "start"
    assert (
        all(t["reason"] in ("topic", "structure") for t in topics[1:])
        or doc["params"]["merge"]["mode"] == "seed"
    )
    # a cut inside a topic is the size cap's
    cuts = doc["merge"]["cuts"]
    for t in topics:
        for i in range(t["chunks"][0], t["chunks"][1]):
            assert cuts[i]["reason"] == "size_cap"


def test_a_long_document_is_split_under_the_default_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = _doc(tmp_path / "npm-thing.md")
    assert len(path.read_text()) > 30_000
    whole = ("--topic-chunk-tokens", "0")  # the size cap alone splits the topics
    code, doc, _ = _run(capsys, str(path), *whole)
    assert code == 0
    assert len(doc["merged"]) >= 5
    _fits(doc, "chars", 8192)
    _check_levels(doc)
    assert not any(m["exceeds_limit"] for m in doc["merged"])
    # every chunk after the first starts at a section heading: the best inner point
    assert all(m["text"].startswith("Doc: ## ") for m in doc["merged"][1:])
    for flags, key, cap in (
        (["--max-chars", "4000"], "chars", 4000),
        (["--max-tokens", "500"], "tokens", 500),
        (["--merge-max-tokens", "2000"], "tokens", 2000),
    ):
        code, capped, _ = _run(capsys, str(path), *whole, *flags)
        assert code == 0
        _fits(capped, key, cap)
        _check_levels(capped)
        # the cap splits topics, it never moves them
        assert [t["lines"][0] for t in capped["topics"]] == [t["lines"][0] for t in doc["topics"]]
        if flags[0] == "--max-chars":
            assert len(capped["merged"]) > len(doc["merged"])


def test_the_seed_loop_keeps_the_cap_and_each_chunk_is_a_topic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = _doc(tmp_path / "npm-thing.md")
    code, doc, _ = _run(capsys, str(path), "--merge", "seed", "--max-chars", "3000")
    assert code == 0
    _fits(doc, "chars", 3000)
    assert [m["topic"] for m in doc["merged"]] == list(range(len(doc["merged"])))
    assert [t["chunks"] for t in doc["topics"]] == [[i, i] for i in range(len(doc["merged"]))]


def test_one_paragraph_over_the_cap_stays_whole_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = tmp_path / "big.md"
    path.write_text("# Big\n\nIntro.\n\n" + "word " * 3000 + "\n\n## After\n\nThe end.\n")
    for mode in ("topic", "seed"):
        code, doc, _ = _run(capsys, str(path), "--merge", mode, "--max-chars", "4000")
        assert code == 0
        flagged = [m for m in doc["merged"] if m["exceeds_limit"]]
        assert len(flagged) == 1 and flagged[0]["chars"] > 4000 and len(flagged[0]["parts"]) == 1
        _fits(doc, "chars", 4000)
    main(["chunk", str(path), "--embed", "--max-chars", "4000"])
    out = capsys.readouterr().out
    assert "1 over it, each one unit kept whole" in out
    assert len(re.findall(r"\[exceeds the size cap\]", out)) == 1


def test_check_pins_topic_starts_and_chunk_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = _doc(tmp_path / "npm-thing.md")
    snap = tmp_path / "cuts.json"
    assert main(["chunk", str(path), "--embed", "--snapshot", str(snap)]) == 0
    pinned = json.loads(snap.read_text())
    assert len(pinned["cuts"]) >= 4 and "topics" in pinned
    assert {(c["line"], c["char"]) for c in pinned["topics"]} <= {
        (c["line"], c["char"]) for c in pinned["cuts"]
    }
    capsys.readouterr()
    assert main(["chunk", str(path), "--embed", "--check", str(snap)]) == 0
    # a cap change moves the chunk starts, not the topic starts: exit 1, and it says which
    assert main(["chunk", str(path), "--embed", "--max-chars", "1500", "--check", str(snap)]) == 1
    err = capsys.readouterr().err
    assert "check: cuts moved" in err and "topic starts match" in err
    # a snapshot without topics (an older one) is checked on its cuts alone
    del pinned["topics"]
    snap.write_text(json.dumps(pinned))
    assert main(["chunk", str(path), "--embed", "--check", str(snap)]) == 0


def test_chunks_says_when_the_cap_makes_n_unreachable_and_topics_asks_for_topics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = _doc(tmp_path / "npm-thing.md")
    # The chunk size (200 tokens) needs many chunks for ~37k chars, the cap only 5: the
    # note names the limit that applies, and the run gives the fewest it can.
    code, doc, err = _run(capsys, str(path), "--chunks", "2")
    assert code == 0 and "size cap" not in err
    fewest = len(doc["merged"])
    assert (
        "2 merged chunks cannot fit the chunk size (topic_chunk_tokens 200, "
        f"--topic-chunk-tokens): it needs at least {fewest};" in err
    )
    _fits(doc, "tokens", 200)
    code, doc, err = _run(capsys, str(path), "--chunks", "2", "--topic-chunk-tokens", "0")
    assert code == 0
    assert "cannot fit the size cap (8,192 chars): it needs at least" in err
    _fits(doc, "chars", 8192)
    code, doc, err = _run(capsys, str(path), "--topics", "3", "--max-chars", "100000")
    assert code == 0 and len(doc["topics"]) == 3 and "gives 3 topics" in err
    assert main(["chunk", str(path), "--topics", "3"]) == 2
    err = capsys.readouterr().err
    assert "--topics sets the merge, which runs only with --embed: add --embed" in err


def test_markdown_text_output_has_no_clock_and_one_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    path = _doc(tmp_path / "npm-thing.md")
    assert main(["chunk", str(path), "--embed"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"\d\d:\d\d:\d\d", out)
    assert len(re.findall(r"dated \d{4}-\d\d-\d\d", out)) == 1
    assert "chunks in 1 topic; chunks of at most 200 tokens; size cap 8,192 chars" in out


def test_a_topic_minimum_over_the_size_cap_is_said_and_the_cap_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The workbench lowers a min size over the cap; the command line keeps the cap and
    says in one line that topics may be shorter than the minimum asked for."""
    doc = _doc(tmp_path / "doc.md")
    args = ["--embed", "--topic-min-chars", "5000", "--max-chars", "2000", "--format", "json"]
    code = main(["chunk", str(doc), *args])
    out, err = capsys.readouterr()
    assert code in (0, None)
    assert "--topic-min-chars 5000 is over the size cap of 2000 chars" in err
    merged = json.loads(out)["merged"]
    assert merged and all(len(c["text"]) <= 2000 for c in merged)
