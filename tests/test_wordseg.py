"""Documents found by their words (engine/segment/wordseg.py), and what the segmenter makes of
them."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.evaluate.measure import chunk_starts
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
from chunkscope.engine.segment.docstruct import MARKED, Piece, document_starts
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.segment.segmenter import frame, segment, structure_points
from chunkscope.engine.segment.wordseg import document_words

#: Filler every document uses alike: it tells no document from another.
COMMON = [
    "the",
    "project",
    "uses",
    "this",
    "value",
    "when",
    "you",
    "run",
    "the",
    "command",
    "with",
    "its",
    "options",
]


def _vocabulary(k: int, size: int = 40) -> list[str]:
    """`size` made-up words of document `k`'s own (letters only, never another's)."""
    return ["".join(chr(97 + (k * size + j) // 26**p % 26) for p in range(4)) for j in range(size)]


def _paragraph(rng: random.Random, own: list[str], words: int) -> str:
    picks = [rng.choice(own) if rng.random() < 0.5 else rng.choice(COMMON) for _ in range(words)]
    return " ".join(picks).capitalize() + "."


def _documents(rng: random.Random, sizes: list[int]) -> tuple[list[str], list[int]]:
    """Paragraphs of documents of `sizes` paragraphs each, and where each document starts."""
    texts: list[str] = []
    starts = []
    for k, n in enumerate(sizes):
        starts.append(len(texts))
        own = _vocabulary(k)
        texts += [_paragraph(rng, own, rng.randint(40, 80)) for _ in range(n)]
    return texts, starts[1:]


def test_documents_of_their_own_words_are_found_exactly() -> None:
    texts, starts = _documents(random.Random(1), [6, 4, 12, 4, 8])
    assert document_words(texts) == starts


def test_one_document_is_one_document() -> None:
    texts, _ = _documents(random.Random(2), [30])
    assert document_words(texts) == []


def test_no_words_no_documents() -> None:
    assert document_words([]) == []
    assert document_words(["only"]) == []
    assert document_words(["12 34", "== --", ""]) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(4, 12), min_size=1, max_size=6), st.integers(0, 10_000))
def test_any_stitching_of_distinct_documents_is_found(sizes: list[int], seed: int) -> None:
    texts, starts = _documents(random.Random(seed), sizes)
    found = document_words(texts)
    # never a start inside a document; every start found once the documents are long
    # enough to pay for themselves (8 paragraphs, about 450 words; shorter ones may
    # merge with a neighbour: each document costs 8 x log(words))
    assert set(found) <= set(starts)
    if min(sizes) >= 8:
        assert found == starts


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="abcdefg xyz\n#.", max_size=60), max_size=30),
    st.floats(0.5, 20),
    st.integers(2, 40),
)
def test_starts_are_sorted_units_after_the_first(
    texts: list[str], penalty: float, blocks: int
) -> None:
    found = document_words(texts, penalty, max_blocks=blocks)
    assert found == sorted(set(found))
    assert all(1 <= u < len(texts) for u in found)


def test_a_spared_start_is_taken_only_where_the_words_change() -> None:
    rng = random.Random(3)
    texts, starts = _documents(rng, [8, 8])
    # with a prohibitive cost per document, only a start the file marks is possible
    spared = np.zeros(len(texts))
    spared[starts[0]] = 1.0
    assert document_words(texts, penalty=1e6, spared=spared) == starts
    # a start half spared inside one document is not taken: its words do not change
    spared = np.zeros(len(texts))
    spared[3] = 0.5
    assert document_words(texts, spared=spared) == starts
    with pytest.raises(ValueError, match="3 values for 16 texts"):
        document_words(texts, spared=[0.0, 1.0, 0.0])


def test_a_long_file_is_read_in_blocks_and_keeps_marked_starts() -> None:
    texts, starts = _documents(random.Random(4), [30, 45, 25])
    coarse = document_words(texts, max_blocks=10)
    # starts fall on block starts, within a block of the true ones
    assert len(coarse) == 2
    assert all(abs(c - s) <= len(texts) // 10 + 1 for c, s in zip(coarse, starts, strict=True))
    spared = np.zeros(len(texts))
    spared[starts] = 1.0  # a marked start always begins a block: found exactly
    assert document_words(texts, max_blocks=10, spared=spared) == starts


def _markdown(rng: random.Random, sizes: list[int], title_every: int = 0) -> tuple[str, list[int]]:
    """A markdown file of untitled documents with sections at level 2 (their words their
    own, their section names shared), and the line where each document starts; with
    `title_every`, every that many sections of a document get a ``#`` heading, as a
    README that uses level 1 for its sections."""
    names = ["Usage", "Options", "Examples", "Notes", "Install"]
    lines: list[str] = []
    gold = []
    for k, n in enumerate(sizes):
        gold.append(len(lines) + 1)
        own = _vocabulary(k)
        lines += [_paragraph(rng, own, 30), ""]
        for j in range(n):
            level = "#" if title_every and j % title_every == title_every - 1 else "##"
            lines += [f"{level} {names[j % len(names)]}", ""]
            lines += [_paragraph(rng, own, rng.randint(30, 60)), ""]
    return "\n".join(lines), gold


def _topic_starts(path: Path) -> list[int]:
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks, vectors = pipe.compacted(), pipe.embeddings()
    return chunk_starts(segment(chunks, vectors, prepared=frame(chunks, vectors)).topic_chunks)


def test_untitled_documents_are_topics_by_their_words(tmp_path: Path) -> None:
    text, gold = _markdown(random.Random(5), [4, 2, 6, 3])
    path = tmp_path / "stitched.md"
    path.write_text(text)
    # nothing marks a document: no title, no front matter, the same section names
    pieces = [Piece(p, p.startswith("#")) for p in text.split("\n\n")]
    assert document_starts(pieces).marked == 0
    assert _topic_starts(path) == gold


def test_level_one_sections_of_one_document_do_not_cut_it(tmp_path: Path) -> None:
    # documents whose every other section is a level-1 heading: titles by convention,
    # but too many to be a title level (half the headings), so none is certain and the
    # words say where the documents change: one start per document, at its first line
    # or at the level-1 section that ends the document before (a start the file marks
    # costs nothing)
    text, gold = _markdown(random.Random(6), [6, 6, 6], title_every=2)
    path = tmp_path / "readmes.md"
    path.write_text(text)
    lines = text.splitlines()
    assert sum(1 for line in lines if line.startswith("# ")) == 9
    found = _topic_starts(path)
    assert len(found) == len(gold)
    for got, want in zip(found, gold, strict=True):
        assert got == want or (got < want and lines[got - 1].startswith("# ") and want - got <= 4)


def test_front_matter_is_trusted_over_the_words(tmp_path: Path) -> None:
    # two pages marked by front matter, each of two halves with words of their own and
    # sections of one name: the words would part each page, and the repeated section
    # name looks like a repeated opening; the front matter says there are two pages
    rng = random.Random(7)
    pages = []
    for k in (0, 2):
        halves = [_paragraph(rng, _vocabulary(k + h), 80) for h in (0, 1) for _ in range(4)]
        pages.append(f"---\ntitle: page {k}\n---\n\n" + "\n\n## Part\n\n".join(halves))
    path = tmp_path / "pages.md"
    path.write_text("\n\n".join(pages) + "\n")
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks, vectors = pipe.compacted(), pipe.embeddings()
    texts = ["\n".join(t.text for t in c.turns) for c in chunks]
    assert len(document_words(texts)) == 3  # the halves
    assert np.count_nonzero(structure_points(chunks) == 1.0) > 4  # "Part" again and again
    structure = frame(chunks, vectors).structure
    second = next(u for u, t in enumerate(texts) if t.startswith("---") and u > 1)
    assert np.flatnonzero(structure).tolist() == [second - 1]
    assert structure[second - 1] == MARKED


_SECTION = st.tuples(
    st.sampled_from(["", "# ", "## ", "### "]),
    st.sampled_from(["Usage", "Synopsis", "Notes", "Install"]),
    st.lists(st.sampled_from(["alpha beta gamma", "delta epsilon", "zeta eta theta"]), max_size=3),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_SECTION, min_size=1, max_size=14), st.booleans())
def test_any_markdown_gives_a_partition_with_bounded_strengths(
    sections: list[tuple[str, str, list[str]]], front: bool
) -> None:
    chunks = []
    for i, (mark, name, paras) in enumerate(sections):
        head = f"{mark}{name}" if mark else ("---\ntitle: x\n---" if front and i % 3 == 0 else name)
        for j, text in enumerate([head, *paras]):
            chunks.append(Chunk([Turn(None, "Doc", text, len(chunks) + 1, i if j else None)]))
    vectors = np.random.default_rng(len(chunks)).normal(size=(len(chunks), 8))
    f = frame(chunks, vectors)
    assert f.structure.shape == (max(len(chunks) - 1, 0),)
    assert ((f.structure >= 0) & (f.structure <= MARKED)).all()
    result = segment(chunks, vectors, prepared=f)
    spans = result.spans
    assert spans[0][0] == 0 and spans[-1][1] == len(chunks)
    assert all(a[1] == b[0] for a, b in pairwise(spans))


def test_titles_of_a_title_level_are_trusted_over_the_words(tmp_path: Path) -> None:
    # each document under a level-1 title heading deeper sections: the file marks them
    # all, so the words add nothing (they would part a document whose halves differ)
    rng = random.Random(8)
    docs = []
    for k in (0, 2, 4):
        halves = [_paragraph(rng, _vocabulary(k + h), 80) for h in (0, 1) for _ in range(3)]
        docs.append(
            f"# Title {k}\n\n" + "\n\n".join(f"## Part {j}\n\n{p}" for j, p in enumerate(halves))
        )
    path = tmp_path / "titled.md"
    path.write_text("\n\n".join(docs) + "\n")
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks, vectors = pipe.compacted(), pipe.embeddings()
    assert np.array_equal(frame(chunks, vectors).structure, structure_points(chunks))


def test_the_more_starts_a_file_marks_the_dearer_an_unmarked_one() -> None:
    # pages that open alike ("Synopsis"), one of two halves with words of their own:
    # the repeated openings are certain; with three of them, the halves stay one page
    rng = random.Random(9)
    chunks: list[Chunk] = []
    starts = []
    for k in range(4):
        starts.append(len(chunks))
        halves = (_vocabulary(2 * k), _vocabulary(2 * k + 1) if k == 1 else _vocabulary(2 * k))
        for name, own in (
            ("### Synopsis", halves[0]),
            ("### Notes", halves[0]),
            ("### More", halves[1]),
            ("### Tail", halves[1]),
        ):
            text = f"{name}\n{_paragraph(rng, own, 200)}"
            chunks.append(Chunk([Turn(None, "Doc", text, len(chunks) + 1, len(chunks))]))
    vectors = np.random.default_rng(9).normal(size=(len(chunks), 8))
    structure = frame(chunks, vectors).structure
    assert [g + 1 for g in np.flatnonzero(structure > 0)] == starts[1:]


def test_documents_that_open_alike_are_found_where_the_words_alone_miss_them(
    tmp_path: Path,
) -> None:
    # short reference pages, each opening "The following `name` example": the words
    # alone do not pay for documents this short, their opening does
    rng = random.Random(11)
    pages, gold, line = [], [], 1
    for k in range(6):
        own = _vocabulary(k, size=12)
        body = [_paragraph(rng, own, 30) for _ in range(2)]
        page = f"The following ``cmd-{k}`` example shows the output.\n\n" + "\n\n".join(body)
        gold.append(line)
        line += page.count("\n") + 2
        pages.append(page)
    path = tmp_path / "examples.md"
    path.write_text("\n\n".join(pages) + "\n")
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks = pipe.compacted()
    texts = ["\n".join(t.text for t in c.turns) for c in chunks]
    assert len(document_words(texts)) < 5  # the words alone miss some
    structure = frame(chunks, pipe.embeddings()).structure
    starts = [chunks[g + 1].lines[0] for g in np.flatnonzero(structure >= 1.0)]
    assert starts == gold[1:]
