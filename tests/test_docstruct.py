"""Where markdown documents start (engine/segment/docstruct.py) and what the segmenter makes of
it."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns
from chunkscope.engine.evaluate.measure import chunk_starts
from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
from chunkscope.engine.read.source import load_markdown
from chunkscope.engine.segment.docstruct import (
    AFTER_REFERENCES,
    BANNER,
    MARKED,
    Piece,
    document_starts,
    heading_name,
    heading_trails,
    is_front_matter,
)
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.segment.segmenter import frame, segment

NAMES = ["Synopsis", "Description", "Usage", "Options", "Examples", "See also", "Notes"]
PARAS = ["Some prose about it.", "More words here, and more.", "`code` and text."]


@st.composite
def sections(draw: st.DrawFn, lowest: int = 1) -> list[tuple[int, str, list[str]]]:
    """(heading level, name, paragraphs) of a markdown file's sections."""
    n = draw(st.integers(1, 12))
    out = []
    for _ in range(n):
        level = draw(st.integers(lowest, 5))
        name = draw(st.sampled_from(NAMES))
        paras = draw(st.lists(st.sampled_from(PARAS), min_size=0, max_size=3))
        out.append((level, name, paras))
    return out


def as_pieces(secs: list[tuple[int, str, list[str]]], shift: int = 0) -> list[Piece]:
    pieces = []
    for level, name, paras in secs:
        pieces.append(Piece(f"{'#' * (level + shift)} {name}", True))
        pieces += [Piece(p, False) for p in paras]
    return pieces


@settings(max_examples=60, deadline=None)
@given(sections(lowest=2))
def test_shifting_every_heading_one_level_changes_nothing(secs: list) -> None:
    a = document_starts(as_pieces(secs))
    b = document_starts(as_pieces(secs, shift=1))
    # the same structure; the headings keep their own levels, one deeper
    assert a._replace(heads=()) == b._replace(heads=())
    assert [(i, lv + 1, name) for i, lv, name in a.heads] == list(b.heads)
    n = len(as_pieces(secs))
    assert heading_trails(a, n) == heading_trails(b, n)


@settings(max_examples=60, deadline=None)
@given(sections(lowest=1))
def test_levels_are_relative_to_the_shallowest(secs: list) -> None:
    found = document_starts(as_pieces(secs, shift=1))
    top = min(level for level, _, _ in secs)
    heads = [lv for lv in found.level if lv >= 0]
    assert heads == [level - top for level, _, _ in secs]
    assert min(heads) == 0


@settings(max_examples=60, deadline=None)
@given(sections(lowest=2), st.integers(0, 12), st.sampled_from(["yaml", "toml"]))
def test_front_matter_always_starts_a_document(secs: list, at: int, kind: str) -> None:
    pieces = as_pieces(secs)
    front = "---\ntitle: A page\nweight: 3\n---" if kind == "yaml" else '+++\ntitle = "A"\n+++'
    at = min(at, len(pieces))
    pieces.insert(at, Piece(front, False))
    assert document_starts(pieces).strength[at] == MARKED


@settings(max_examples=60, deadline=None)
@given(sections(lowest=1), st.integers(0, 12))
def test_nothing_inside_a_code_fence_starts_a_document(secs: list, at: int) -> None:
    pieces = as_pieces(secs)
    at = min(at, len(pieces))
    # a fenced block with blank lines inside: its paragraphs are pieces of one section
    fenced = [
        Piece("```yaml", False),
        Piece("---\ntitle: not front matter\n---", False),
        Piece("Not a title\n===========", False),
        Piece("[![badge](b.svg)](ci)", False),
        Piece("[ref]: https://example.org", False),
        Piece("% not a pandoc title\n```", False),
    ]
    pieces[at:at] = fenced
    found = document_starts(pieces)
    assert found.strength[at + 1 : at + 6] == [0.0] * 5


def test_a_banner_paragraph_and_the_one_after_link_references_start_documents() -> None:
    pieces = [
        Piece("## Usage", True),
        Piece("Run it.", False),
        Piece("[![CI](https://ci.example/b.svg)](https://ci.example)\nA tool for x.", False),
        Piece("## Install", True),
        Piece("[docs]: https://example.org/docs\n[api]: https://example.org/api", False),
        Piece("Another page begins without a heading.", False),
        Piece("Prose that [links][docs] inline is no reference block.", False),
    ]
    assert document_starts(pieces).strength == [0.0, 0.0, BANNER, 0.0, 0.0, AFTER_REFERENCES, 0.0]


def test_front_matter_needs_keys_and_a_closing_line() -> None:
    assert is_front_matter("---\ntitle: x\n---")
    assert is_front_matter('+++\ntitle = "x"\n+++\n\nBody')
    assert not is_front_matter("---\n\nA thematic break, then prose.")
    assert not is_front_matter("---\ntitle: x\nno closing line")
    assert heading_name("### `Set-up`!") == heading_name("## Set up") == "set up"
    assert heading_name("## Version 1.2 (LTS)") != heading_name("## Version 1.3 (LTS)")


def _npm_like(rng: random.Random, i: int) -> str:
    """A command page as npm's docs write them, title in front matter."""
    words = rng.sample(
        [
            "alpha",
            "bravo",
            "charlie",
            "delta",
            "echo",
            "foxtrot",
            "golf",
            "hotel",
            "india",
            "juliet",
            "kilo",
            "lima",
            "mike",
            "november",
            "oscar",
            "papa",
            "quebec",
            "romeo",
            "sierra",
            "tango",
            "uniform",
            "victor",
            "whiskey",
            "xray",
        ],
        6,
    )
    body = []
    for name in ("Synopsis", "Description", "Configuration", "See Also"):
        body.append(f"### {name}")
        for _ in range(3):
            body.append("")
            body.append(" ".join(rng.choice(words) for _ in range(40)) + ".")
        body.append("")
    return f"---\ntitle: cmd-{i}\nsection: 1\n---\n\n" + "\n".join(body)


def _stitch(docs: list[str]) -> tuple[str, list[int]]:
    lines: list[str] = []
    gold = []
    for doc in docs:
        if lines:
            lines.append("")
        gold.append(len(lines) + 1)
        lines += doc.strip("\n").splitlines()
    return "\n".join(lines) + "\n", gold


def _topic_starts(path: Path) -> list[int]:
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks, vectors = pipe.compacted(), pipe.embeddings()
    return chunk_starts(segment(chunks, vectors, prepared=frame(chunks, vectors)).topic_chunks)


def test_stitched_pages_are_found_by_front_matter_and_by_their_repeated_opening(
    tmp_path: Path,
) -> None:
    rng = random.Random(5)
    docs = [_npm_like(rng, i) for i in range(4)]
    text, gold = _stitch(docs)
    with_front = tmp_path / "front.md"
    with_front.write_text(text)
    assert _topic_starts(with_front) == gold
    # the front matter (and with it the title) gone: each page opens at "### Synopsis"
    bare_docs = [d.split("---\n\n", 1)[1] for d in docs]
    text, gold = _stitch(bare_docs)
    bare = tmp_path / "bare.md"
    bare.write_text(text)
    assert _topic_starts(bare) == gold


def test_a_paragraph_of_a_section_keeps_its_own_line_in_topic_mode(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text("# Title\n\nfirst para\nstill first\n\nsecond\n\n\nthird\n")
    turns = load_markdown(path).turns
    by_message = chunk_turns(turns, by_message=True)
    lines = [t.source_line for c in by_message for t in c.turns if t.source_line is not None]
    assert lines == [1, 3, 6, 9]
    seed = chunk_turns(turns)  # the seed's cuts, each paragraph with its own lines
    assert [(t.source_line, t.last_line) for c in seed for t in c.turns] == [
        (None, None),
        (1, 1),
        (3, 4),
        (6, 6),
        (9, 9),
    ]


def _heads(*lines: str) -> list[Piece]:
    return [Piece(line, True) for line in lines]


def test_a_repeated_opening_starts_a_document_a_repeated_subsection_does_not() -> None:
    pages = _heads(
        "### Synopsis", "### Description", "### See Also", "### Synopsis", "### Description"
    )
    found = document_starts(pages)
    assert found.strength == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert (found.marked, found.restarts) == (0, 1)
    assert (found.fixed, found.certain) == ((3,), 0)  # certain to start, not a title
    changelog = _heads(
        "# Changelog", "## 1.2.0", "### Fixed", "### Added", "## 1.1.0", "### Fixed", "### Added"
    )
    assert document_starts(changelog).strength == [MARKED] + [0.0] * 6
    # titles: one level-1 heading per document, each heading deeper sections
    titled = _heads("# Alpha", "## Use", "## Notes", "# Beta", "## Use", "## Notes")
    found = document_starts(titled)
    assert found.strength == [MARKED, 0.0, 0.0, MARKED, 0.0, 0.0]
    assert found.level == [0, 1, 1, 0, 1, 1]
    assert found.marked == 2
    assert (found.fixed, found.certain) == ((), 2)  # titles are weighed against the words
    # a README that uses level 1 for its sections: titles by convention, none certain
    readme = _heads("# Install", "# Usage", "## Flags", "# License")
    found = document_starts(readme)
    assert found.strength == [1.0, 1.0, 0.0, 1.0]
    assert (found.marked, found.certain) == (3, 0)


def test_the_frame_says_how_deep_the_heading_after_each_gap_is(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text(
        "## Title here\n\nAn introduction of some length.\n\n"
        "A second paragraph of the introduction.\n\n### Part A\n\nText of part A.\n\n"
        "#### Detail\n\nText of the detail.\n\n### Part B\n\nText of part B.\n"
    )
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks = pipe.compacted()
    f = frame(chunks, pipe.embeddings())
    by_text = {
        chunks[g + 1].turns[0].text.split("\n")[0]: int(lv) for g, lv in enumerate(f.headings)
    }
    assert by_text["### Part A"] == 1
    assert by_text["#### Detail"] == 2
    assert by_text["### Part B"] == 1
    assert by_text["A second paragraph of the introduction."] == -1


def test_the_first_marked_start_is_known() -> None:
    pieces = [Piece("doc.md", True), Piece("Intro text.", False), Piece("## Use", True)]
    assert document_starts(pieces).first_marked == -1
    pieces.append(Piece("---\ntitle: next\n---", False))
    found = document_starts(pieces)
    assert (found.marked, found.first_marked) == (1, 3)
    assert (found.fixed, found.certain) == ((3,), 1)  # front matter is certain
    titled = [Piece("doc.md", True), Piece("# Title", True), Piece("## Use", True)]
    assert document_starts(titled).first_marked == 1


def test_the_opening_pattern_of_a_paragraph() -> None:
    from chunkscope.engine.segment.docstruct import opening_pattern

    assert opening_pattern(".. versionadded:: 3.1\n\nMore.") == ".. versionadded ::"
    assert opening_pattern("The following ``ls`` example lists") == "the following `"
    assert opening_pattern("\nVersion 2.10 (2024)") == opening_pattern("Version 3.0 (2025)")
    assert opening_pattern("## Usage") == ""  # a heading: repeated openings see those
    assert opening_pattern("  .. versionadded:: 3.14") == ""  # indented: inside a block
    assert opening_pattern("Word") == ""


def test_a_page_opening_as_an_earlier_one_did_starts_a_document_after_one_opening_otherwise() -> (
    None
):
    # the second page has no "Synopsis"; the third has it again, before "Description"
    pages = _heads(
        "## Synopsis",
        "## Description",
        "## Classes",
        "## See Also",
        "## Description",
        "## Functions",
        "## See Also",
        "## Synopsis",
        "## Description",
        "## Classes",
    )
    found = document_starts(pages)
    assert found.strength == [0.0] * 4 + [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert found.restarts == 2


def test_each_short_document_starts_a_topic_however_close_the_next_one(tmp_path: Path) -> None:
    rng = random.Random(11)
    vocab = [
        "tide crab pool kelp urchin shell anemone barnacle",
        "engine piston valve gasket crankshaft torque spark",
        "violin cello bow rosin string concerto sonata",
        "glacier moraine crevasse firn icefall serac",
        "orchard apple pear graft blossom cider pruning",
        "compiler parser lexer token grammar bytecode",
    ]
    pages = []
    for words in vocab:
        w = words.split()
        synopsis, body = (" ".join(rng.choice(w) for _ in range(k)) for k in (30, 60))
        pages.append(f"## Synopsis\n\n{synopsis}.\n\n## Description\n\n{body}.\n")
    text, gold = _stitch(pages)
    path = tmp_path / "short.md"
    path.write_text(text)
    assert all(500 < len(p) < 750 for p in pages)  # within half a window of each other
    assert _topic_starts(path) == gold


@settings(max_examples=80, deadline=None)
@given(sections(lowest=1))
def test_a_paragraph_sits_under_the_headings_open_above_it(secs: list) -> None:
    """The trail of every piece is the headings above it that no later heading of their
    level or shallower closed, outermost first (an oracle written plainly)."""
    pieces = as_pieces(secs)
    trails = heading_trails(document_starts(pieces), len(pieces))
    at = 0
    above: list[tuple[int, str]] = []
    for level, name, paras in secs:
        assert trails[at] == tuple(heading_name(n) for _, n in above)
        above = [(lv, n) for lv, n in above if lv < level] + [(level, name)]
        for k in range(len(paras)):
            assert trails[at + 1 + k] == tuple(heading_name(n) for _, n in above)
        at += 1 + len(paras)


def test_a_hash_line_in_a_fence_is_no_heading_of_the_trail() -> None:
    pieces = [
        Piece("# Install", True),
        Piece("```sh\n# Windows only\npip install x", True),
        Piece("# still code\n```", False),
        Piece("After the block.", False),
        Piece("## On Linux", True),
        Piece("Use the package.", False),
    ]
    trails = heading_trails(document_starts(pieces), len(pieces))
    assert trails == [(), ("install",), ("install",), ("install",), ("install",),
                      ("install", "on linux")]  # fmt: skip
