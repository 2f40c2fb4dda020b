"""A markdown document's chunks start at its headings (issue 35): no chunk ends on a
heading whose text is in the next, in every run but the seed's (``--merge seed``), which
keeps the seed's split and compaction bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import (
    DEFAULT_MIN_CHARS,
    chunk_turns,
    compact_chunks,
)
from chunkscope.engine.chunk.strategies import get_strategy
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.headings import heading_at
from chunkscope.engine.read.parse import load
from chunkscope.engine.read.source import Source
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LOG = ROOT / "sample_logs" / "cache_refactor.jsonl"
SEED = MergeParams(mode="seed")

_HEADING = re.compile(r"#{1,6}(?:\s|$)")


def heading_lines(source: Source) -> set[int]:
    """The file lines of the document's headings: where its sections start (the reader
    opens one at each heading outside a fence)."""
    return {
        t.source_line for t in source.turns if t.source_line is not None and _HEADING.match(t.text)
    }


def misplaced_headings(chunks: list[Chunk], heads: set[int]) -> list[tuple[int, str]]:
    """(chunk index, text) of each heading paragraph with text before it in its chunk: a
    heading starts its chunk, or follows headings alone (a heading without text of its
    own takes the next paragraph, a subheading too: ``# Guide`` then ``## Install``)."""

    def heading(t: Turn) -> bool:
        return t.source_line in heads and bool(_HEADING.match(t.text))

    def heading_alone(t: Turn) -> bool:
        # a heading with no text of its own: `#` on one line, or a title and its
        # underline (setext, reStructuredText: two or three lines, `heading_at`)
        if heading(t):
            return "\n" not in t.text
        h = heading_at(t.text)
        return h is not None and t.text.count("\n") + 1 == h.end - h.start

    out = []
    for i, c in enumerate(chunks):
        for k, t in enumerate(c.turns):
            before = c.turns[:k]
            if heading(t) and not all(heading_alone(p) for p in before):
                out.append((i, t.text))
    return out


def seed_chunks(source: Source, min_chars: int) -> list[Chunk]:
    """The seed's own stages, as the seed-named functions give them."""
    return compact_chunks(chunk_turns(source.turns), min_chars)


def shape(chunks: list[Chunk]) -> list[tuple[str, tuple[int, int] | None]]:
    return [(c.text, c.lines) for c in chunks]


# --------------------------------------------------------------------------- the README


def test_the_readme_chunks_start_at_its_headings(capsys: pytest.CaptureFixture[str]) -> None:
    """The review walk's example: `chunk README.md` ended chunk 5 with "## Five things to
    try" and began chunk 6 with that section's first paragraph."""
    assert main(["chunk", str(README)]) == 0
    out = capsys.readouterr().out
    second = out.splitlines()[1]
    assert re.fullmatch(
        r"\d+ chunks: \d+ split at headings and blank lines, compacted to at least 80 chars "
        r"\(--min-chars\)",
        second,
    ), second
    chunks = out.split("\n--- Chunk ")[1:]
    heading = "  Doc: ## Five things to try"
    assert not [c for c in chunks if c.rstrip("\n").endswith(heading)]
    [opened] = [c for c in chunks if heading in c.splitlines()]
    assert opened.splitlines()[1] == heading  # the first line under the chunk's header
    assert "**1. A session of yours.**" in opened  # with its section's first paragraph

    source = load(README)
    heads = heading_lines(source)
    assert len(heads) >= 3
    assert main(["chunk", str(README), "--strategy", "blank-line", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # every heading is the first line of a chunk, none inside one
    starts = {c["lines"][0] for c in doc["chunks"]}
    assert heads <= starts
    for c in doc["chunks"]:
        first, last = c["lines"]
        assert not [h for h in heads if first < h <= last], c
    assert doc["strategy"]["info"]["split"] == "headings and blank lines"
    reasons = [c["reason"] for c in doc["chunks"]]
    cut_before_heading = [
        reasons[i] for i, c in enumerate(doc["chunks"][1:]) if c["lines"][0] in heads
    ]
    assert cut_before_heading and set(cut_before_heading) == {"section"}
    assert reasons[-1] is None and "paragraph" in reasons


def test_the_seed_merge_keeps_the_seeds_chunks_of_the_readme(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--embed --merge seed` splits a document as the seed did, heading at the end of a
    chunk included; the topic merge's note says what `chunk` alone gives instead."""
    source = load(README)
    seed = seed_chunks(source, DEFAULT_MIN_CHARS)
    assert misplaced_headings(seed, heading_lines(source))  # the seed's defect, kept
    assert main(["chunk", str(README), "--embed", "--merge", "seed", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(c["text"], c["lines"]) for c in doc["chunks"]] == [
        (c.text, list(c.lines) if c.lines else None) for c in seed
    ]

    alone = Pipeline(README, PipelineParams(merges=False)).compacted()
    assert main(["chunk", str(README), "--embed"]) == 0
    note = capsys.readouterr().out.splitlines()[4]
    assert note == (
        f"(`chunk` without --embed: {len(alone)} chunks, split at headings and blank lines; "
        f"--merge seed: {len(seed)} chunks, at blank lines only; both compacted to at least "
        "80 chars, --min-chars)"
    )


def test_a_logs_chunks_are_the_seeds_in_every_path() -> None:
    """A session has no headings: `chunk` alone, the strategy and the seed mode all give
    the seed's chunks, a `# ` message included."""
    source = load(LOG)
    seed = shape(seed_chunks(source, DEFAULT_MIN_CHARS))
    assert shape(Pipeline(LOG, PipelineParams(merges=False)).compacted()) == seed
    assert shape(Pipeline(LOG, PipelineParams(merge=SEED)).compacted()) == seed
    result = get_strategy("blank-line", None).split(source.turns, get_counter(), source=source)
    assert shape(result.chunk_list) == seed
    assert PipelineParams(merges=False).split_at(source.kind) == "blank lines"


# --------------------------------------------------------------------------- generated documents

_line = st.one_of(
    st.sampled_from(
        ["", "", "", "# Title", "## Part", "### Sub", "```", "~~~", "- item", "#", "#nope"]
    ),
    st.text(st.sampled_from("abc xyz#`"), min_size=1, max_size=30),
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(_line, min_size=1, max_size=40),
    min_chars=st.sampled_from([0, 10, 40, DEFAULT_MIN_CHARS, 300]),
)
def test_every_heading_starts_its_chunk_unless_in_seed_mode(
    tmp_path: Path, lines: list[str], min_chars: int
) -> None:
    path = tmp_path / "doc.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = load(path)
    heads = heading_lines(source)
    base = Pipeline(path, PipelineParams(min_chars=min_chars))

    # `chunk` without --embed, the topic merge's units, and the blank-line strategy
    alone = base.with_params(merges=False).compacted()
    topic = base.compacted()
    strategy = get_strategy("blank-line", {"min_chars": min_chars})
    split = strategy.split(source.turns, get_counter(), source=source).chunk_list
    for chunks in (alone, topic, split):
        assert misplaced_headings(chunks, heads) == []
    assert shape(split) == shape(alone)  # the strategy's split is the pipeline's
    # Nothing is lost or repeated: the pieces are the document's paragraphs in order.
    pieces = [t for c in chunk_turns(source.turns, by_message=True) for t in c.turns]
    assert [t for c in alone for t in c.turns] == pieces

    # The seed's mode is the seed functions' output, bit for bit: on the file read as the
    # seed reads it (its sections at `#` headings only; an underline is no heading there)
    seed_source = load(path, seed_headings=True)
    seed = shape(seed_chunks(seed_source, min_chars))
    assert shape(base.with_params(merge=SEED).compacted()) == seed
    no_source = strategy.split(seed_source.turns, get_counter()).chunk_list
    assert shape(no_source) == seed
