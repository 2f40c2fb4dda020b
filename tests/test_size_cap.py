"""The one size cap of both merge modes: topics, then merged chunks that fit it
(`engine.segment.segmenter.segment`, `engine.segment.segmenter.fit_cap`,
`engine.segment.merge.merge`)."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams, merge
from chunkscope.engine.segment.segmenter import (
    FENCED_RANK,
    HEADING_ONLY_RANK,
    HEADING_RANK,
    MESSAGE_RANK,
    PARAGRAPH_RANK,
    USER_RANK,
    TopicParams,
    segment,
    split_ranks,
)


def _units(sizes: list[int]) -> list[Chunk]:
    roles = ("You", "Bot", "Tool")
    return [
        Chunk([Turn(None, roles[i % 3], "w " * (s // 2) + "x" * (s % 2), i + 1, i)])
        for i, s in enumerate(sizes)
    ]


def _check_fit(sizes: list[int], result: object, cap: int) -> None:
    """Every merged chunk fits `cap` (its size: part sizes plus one per join), or is one
    unit over the cap and flagged; the flags say exactly that."""
    bounds = result.bounds.tolist()  # type: ignore[attr-defined]
    flags = result.exceeds_limit  # type: ignore[attr-defined]
    assert len(flags) == len(bounds) - 1
    for (a, b), flag in zip(pairwise(bounds), flags, strict=True):
        size = sum(sizes[a:b]) + (b - a - 1)
        if size > cap:
            assert b - a == 1 and flag
        else:
            assert not flag


sizes_st = st.lists(st.one_of(st.integers(1, 600), st.integers(600, 6000)), min_size=0, max_size=50)


@settings(max_examples=40, deadline=None)
@given(sizes=sizes_st, cap=st.integers(1, 5000), seed=st.integers(0, 100), tokens=st.booleans())
def test_topic_chunks_fit_the_cap_or_are_one_flagged_unit(
    sizes: list[int], cap: int, seed: int, tokens: bool
) -> None:
    rng = np.random.default_rng(seed)
    chunks = _units(sizes)
    vectors = rng.normal(size=(len(chunks), 6))
    params = replace(TopicParams(), topic_depth=float(rng.uniform(0, 8)))
    if tokens:
        counts = rng.integers(0, 400, size=len(chunks)).tolist()
        result = segment(
            chunks, vectors, params, max_chars=None, max_tokens=cap, token_counts=counts
        )
        _check_fit(counts, result, cap)
        assert result.params.cap_unit == "tokens"
    else:
        result = segment(chunks, vectors, params, max_chars=cap)
        _check_fit([c.chars for c in chunks], result, cap)
        assert all(c.chars <= cap or len(c.turns) == 1 for c in result.chunks)
    # the cap splits topics, never moves them: the uncapped run has the same topics
    free = segment(chunks, vectors, params, max_chars=None)
    assert result.topic_bounds is not None and free.topic_bounds is not None
    assert result.topic_bounds.tolist() == free.topic_bounds.tolist()
    assert set(result.topic_bounds.tolist()) <= set(result.bounds.tolist())
    # each merged chunk belongs to one topic; the topics cover the chunks in order
    spans = result.topic_spans
    assert [a for a, _ in spans] == sorted({*(a for a, _ in spans)})
    assert sum(b - a for a, b in spans) == len(result.chunks)
    assert result.topic_of == [t for t, (a, b) in enumerate(spans) for _ in range(a, b)]
    inner = {b - 1 for b in result.topic_bounds.tolist()[1:-1]}
    for i, cut in enumerate(result.cuts):
        start = result.bounds[i + 1] - 1
        # inside a topic: the cap's cut or the chunk size's (retrieval-sized chunks)
        assert (cut.reason in ("size_cap", "chunk_size")) == (int(start) not in inner)


@settings(max_examples=40, deadline=None)
@given(sizes=sizes_st, cap=st.integers(1, 5000), seed=st.integers(0, 100), tokens=st.booleans())
def test_seed_chunks_fit_the_cap_or_are_one_flagged_unit(
    sizes: list[int], cap: int, seed: int, tokens: bool
) -> None:
    rng = np.random.default_rng(seed)
    chunks = _units(sizes)
    vectors = rng.normal(size=(len(chunks), 6))
    if tokens:
        counts = rng.integers(0, 400, size=len(chunks)).tolist()
        result = merge(
            chunks, vectors, MergeParams(mode="seed", max_chunk_tokens=cap), token_counts=counts
        )
        _check_fit(counts, result, cap)
    else:
        result = merge(chunks, vectors, MergeParams(mode="seed", max_chunk_chars=cap))
        _check_fit([c.chars for c in chunks], result, cap)
    # in the seed loop every merged chunk is its own topic
    assert result.topic_spans == [(i, i + 1) for i in range(len(result.chunks))]
    assert result.topic_chunks is result.chunks


def test_split_ranks() -> None:
    def t(role: str, text: str, line: int) -> Turn:
        return Turn(None, role, text, line, line)

    chunks = [
        Chunk([t("Doc", "# Title\nintro", 1)]),
        Chunk([t("Doc", "## Install", 3)]),  # a heading: level 2
        Chunk([Turn(None, "Doc", "para one", 3, 3)]),  # a paragraph of the same section
        Chunk([Turn(None, "Doc", "```sh\nnpm i", 3, 3)]),  # a fence opens
        Chunk([Turn(None, "Doc", "npm ci\n```", 3, 3)]),  # inside the fence
        Chunk([t("Bot", "answer", 9)]),  # another message
        Chunk([t("You", "next question", 10)]),  # a user turn after the assistant
        Chunk([t("Doc", "### Deep", 11)]),
    ]
    assert split_ranks(chunks).tolist() == [
        HEADING_RANK - 2,
        HEADING_ONLY_RANK,  # after a heading alone: it would lose its text
        PARAGRAPH_RANK,
        FENCED_RANK,
        MESSAGE_RANK,
        USER_RANK,
        HEADING_RANK - 3,
    ]


def test_split_ranks_see_a_fence_across_paragraphs_with_their_own_lines() -> None:
    """The paragraphs of one section each start at their own line (as `chunk_turns`
    gives them): a gap inside a fence is still fenced, a paragraph is not a message."""

    def para(text: str, line: int) -> Chunk:
        return Chunk([Turn(None, "Doc", text, line, 4)])

    chunks = [
        para("### Delete old files", 19),
        para("Always run the dry run first.", 21),
        para("```bash\n# dry run: show what would go\nfind . -print", 24),
        para("# the real thing\nfind . -delete\n```", 28),
        para("After the block.", 31),
    ]
    assert split_ranks(chunks).tolist() == [
        HEADING_ONLY_RANK,
        PARAGRAPH_RANK,
        FENCED_RANK,
        PARAGRAPH_RANK,
    ]


def test_a_long_section_splits_at_its_best_points(tmp_path: Path) -> None:
    """A document of one topic over the cap splits at its headings, then paragraphs,
    never inside a code block while another point fits; a paragraph over the cap
    alone stays whole and says so."""
    para = "The cache keeps vectors by text. " * 12  # ~400 chars
    code = "```\n" + "\n\n".join(f"line {i} = {i}" for i in range(40)) + "\n```"
    sections = [
        f"## Part {i}\n\n" + "\n\n".join([para] * 6) + ("\n\n" + code if i == 2 else "")
        for i in range(6)
    ]
    huge = "word " * 2000  # one paragraph of 10k chars
    doc = "# Guide\n\n" + "\n\n".join(sections) + "\n\n## Appendix\n\n" + huge + "\n"
    path = tmp_path / "guide.md"
    path.write_text(doc)
    pipe = Pipeline(path, PipelineParams(merge=MergeParams(max_chunk_chars=3000)))
    result = pipe.merged()
    assert len(result.chunks) >= 6
    for chunk, flag in zip(result.chunks, result.exceeds_limit, strict=True):
        assert chunk.chars <= 3000 or (flag and "word word" in chunk.text)
    assert sum(result.exceeds_limit) == 1
    starts = [c.turns[0].text for c in result.chunks]
    # a chunk starts at a heading or at a paragraph, never inside the code block
    assert all(not s.startswith("line ") for s in starts)
    assert sum(s.startswith("## ") for s in starts) >= 4
    # the same cap in tokens holds on the real token counts
    tok = pipe.with_params(merge=MergeParams(max_chunk_chars=None, max_chunk_tokens=300)).merged()
    counts = pipe.token_counts(tok.chunks)
    assert all(n <= 300 or flag for n, flag in zip(counts, tok.exceeds_limit, strict=True))
