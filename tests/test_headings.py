"""Setext, reStructuredText and HTML headings open a document's sections as ATX ones do
(`engine.read.headings`), outside the seed's parser (``--merge seed``), which keeps
cutting at ATX headings only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read import headings as H
from chunkscope.engine.read.headings import Heading, find_headings, heading_at, style_levels
from chunkscope.engine.read.parse import load, markdown_sections, parse_turns_md
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.cli import main


def heads(text: str) -> list[tuple[int, int, str, str]]:
    """(first line, 1-based; level; title; kind) of each heading of `text`."""
    return [(h.start + 1, h.level, h.title, h.kind) for h in find_headings(text.split("\n"))]


def section_lines(tmp_path: Path, text: str, name: str = "doc.md") -> list[int]:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return [t.source_line for t in load(f).turns if t.source_line is not None]


# --------------------------------------------------------------------------- each kind


def test_setext_rst_and_html_headings_are_found_with_their_levels() -> None:
    text = (
        "Title\n=====\n\nIntro.\n\nSection A\n---------\n\nText a.\n\n"
        '<h3 id="x">How do I &amp; why?</h3>\n\nAnswer.\n\n## Atx two\n\nMore.\n'
    )
    assert heads(text) == [
        (1, 1, "Title", "setext"),
        (6, 2, "Section A", "setext"),
        (11, 3, "How do I & why?", "html"),
        (15, 2, "Atx two", "atx"),
    ]


def test_rst_levels_follow_the_order_styles_first_appear_in() -> None:
    """As docutils decides: the first style met is level 1, whatever its character."""
    text = (
        "#######\n Guide\n#######\n\nIntro.\n\nPart\n~~~~\n\nText.\n\nSub part\n^^^^^^^^\n\n"
        "Text.\n\nOther part\n~~~~~~~~~~\n\nText.\n"
    )
    assert heads(text) == [
        (1, 1, "Guide", "rst"),
        (7, 2, "Part", "rst"),
        (12, 3, "Sub part", "rst"),
        (17, 2, "Other part", "rst"),
    ]
    # a file whose only adornments are setext's keeps markdown's levels, whatever their order
    assert [h[1] for h in heads("One\n---\n\nx\n\nTwo\n===\n\ny\n")] == [2, 1]
    # with any other style, docutils' order decides for every style
    assert [h[1] for h in heads("One\n---\n\nx\n\nTwo\n===\n\nThree\n^^^^^\n")] == [1, 2, 3]


# --------------------------------------------------------------------------- ambiguities


def test_a_rule_after_a_blank_line_is_a_thematic_break() -> None:
    assert heads("Some text.\n\n---\n\nMore text.\n\n***\n\nEnd.\n") == []


def test_front_matter_is_no_heading() -> None:
    text = "---\ntitle: x\n---\n\nBody.\n\nReal\n====\n\nText.\n"
    assert heads(text) == [(7, 1, "Real", "setext")]
    assert heads("+++\ntitle = 'x'\n+++\n\nBody.\n") == []


def test_an_underline_under_a_list_item_a_table_or_a_quote_is_no_heading() -> None:
    assert heads("- item one\n---------\n\n1. first\n========\n") == []
    assert heads("| a | b |\n---------\n\n> quoted\n--------\n") == []
    assert heads("a | b\n--|--\n1 | 2\n") == []


def test_an_underline_under_a_paragraph_of_several_lines_is_no_heading() -> None:
    assert heads("first line of a paragraph\nsecond line\n===========\n\nText.\n") == []


def test_nothing_in_a_fence_or_an_rst_literal_block_is_a_heading() -> None:
    text = (
        "```\nTitle\n=====\n# comment\n<h2>x</h2>\n```\n\nExample::\n\n   Inner\n   -----\n\n"
        "After\n-----\n"
    )
    assert heads(text) == [(13, 2, "After", "setext")]
    # a tilde line right under a line of text opens a fence, not an underline...
    assert heads("\nTitle\n~~~~~\ncode\n~~~~~\n") == []
    # ... unless a blank line follows it, as a section title's does
    assert heads("Title\n~~~~~\n\nText.\n") == [(1, 1, "Title", "rst")]


def test_an_rst_underline_shorter_than_its_title_is_no_heading() -> None:
    assert heads("A long title\n^^^^\n\nText.\n") == []
    assert heads("A long title\n^^^^^^^^^^^^\n\nText.\n") == [(1, 1, "A long title", "rst")]


def test_an_html_heading_without_text_is_no_heading() -> None:
    """A README's centred logo (``<h1 align="center"><img ...></h1>``) names nothing."""
    logo = '<h1 align="center"><img src="logo.png" alt=""></h1>\n\nText.\n'
    assert heads(logo) == []
    named = '<h1 align="center"><img src="logo.png"> Name</h1>\n'
    assert heads(named) == [(1, 1, "Name", "html")]


def test_an_html_heading_may_open_and_close_on_lines_of_their_own() -> None:
    text = '<h3 name="cfg">\nDoes it read a config file?\n</h3>\n\nYes.\n\n<h2>\n\nx\n</h2>\n'
    assert heads(text) == [(1, 3, "Does it read a config file?", "html")]
    found = heading_at('<h3 name="cfg">\nDoes it read a config file?\n</h3>')
    assert found is not None and (found.end, found.title) == (3, "Does it read a config file?")


def test_heading_at_reads_a_paragraph_as_the_file_scan_does() -> None:
    a = heading_at("Part\n^^^^")
    b = heading_at("Title\n-----\nand text")
    assert a is not None and (a.end, a.title, a.style) == (2, "Part", "^")
    assert b is not None and (b.level, b.end) == (2, 2)
    assert style_levels(["^", "-"]) == {"^": 1, "-": 2}
    assert style_levels(["-", "="]) == {"-": 2, "=": 1}
    over = heading_at("=====\nTitle\n=====")
    assert over is not None and (over.title, over.end) == ("Title", 3)
    assert heading_at("two lines\nof text\n=====") is None
    assert heading_at("<h4>Q?</h4>") is not None and heading_at("plain text") is None


# --------------------------------------------------------------------------- reading


def test_sections_open_at_every_kind_of_heading(tmp_path: Path) -> None:
    text = (
        "Title\n=====\n\nIntro.\n\nSection A\n---------\n\nText a.\n\n<h3>FAQ one?</h3>\n\n"
        "Answer one.\n"
    )
    assert section_lines(tmp_path, text) == [1, 6, 11]
    # an .rst file is read as a document too, its titles over and under lines
    rst = "=======\nManual\n=======\n\nIntro.\n\nUsage\n-----\n\nRun it.\n"
    assert section_lines(tmp_path, rst, "manual.rst") == [1, 7]


def test_the_seed_parser_and_merge_seed_keep_atx_sections_only(tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("Title\n=====\n\nIntro.\n\n# Atx\n\nSection\n-------\n\nText.\n")
    lines = f.read_text().split("\n")[:-1]
    seed = load(f, seed_headings=True)
    assert [(t.source_line, t.text) for t in seed.turns] == markdown_sections(lines)
    assert [t.text for t in seed.turns] == [t.text for t in parse_turns_md(f)[1:]]
    params = PipelineParams(merge=MergeParams(mode="seed"))
    assert [t.source_line for t in Pipeline(f, params).turns()] == [1, 6]
    assert [t.source_line for t in Pipeline(f, PipelineParams()).turns()] == [1, 6, 8]


# --------------------------------------------------------------------------- property

_WORDS = st.text("abcdefghij", min_size=1, max_size=8)
_TITLE = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)
_PARAGRAPH = st.lists(_WORDS, min_size=1, max_size=12).map(" ".join).map(lambda s: s + ".")


@st.composite
def _block(draw: st.DrawFn) -> tuple[list[str], str]:
    """(lines, kind): a heading of some kind, a paragraph, or a fence holding headings."""
    kind = draw(st.sampled_from(["atx", "setext", "rst", "rstover", "html", "para", "fence"]))
    title = draw(_TITLE)
    if kind == "atx":
        return ["#" * draw(st.integers(1, 6)) + " " + title], kind
    if kind == "setext":
        return [title, draw(st.sampled_from("=-")) * max(3, len(title))], kind
    if kind == "rst":
        return [title, draw(st.sampled_from("~^\"'+:*#")) * max(3, len(title))], kind
    if kind == "rstover":
        rule = draw(st.sampled_from("=-*#")) * (len(title) + 2)
        return [rule, " " + title, rule], kind
    if kind == "html":
        n = draw(st.integers(1, 6))
        return [f'<h{n} id="a">{title}</h{n}>'], kind
    if kind == "fence":
        fence = draw(st.sampled_from(["```", "~~~"]))
        return [fence, "# " + title, title, "=" * len(title), f"<h2>{title}</h2>", fence], kind
    return [draw(_PARAGRAPH)], kind


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(blocks=st.lists(_block(), min_size=1, max_size=12))
def test_every_heading_starts_a_section_and_chunks_span_their_text(
    tmp_path: Path, blocks: list[tuple[list[str], str]]
) -> None:
    lines: list[str] = []
    expected: list[int] = []  # 1-based first line of each heading
    for block, kind in blocks:
        if lines:
            lines.append("")
        if kind not in ("para", "fence"):
            expected.append(len(lines) + 1)
        lines += block
    f = tmp_path / "gen.md"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = load(f)
    starts = [t.source_line for t in source.turns]
    # every heading starts a section, and nothing else does (a fence's lines never)
    assert [s for s in starts if s in expected] == expected
    assert all(s in expected for s in starts[1:])
    assert all(s in expected or i == 0 for i, s in enumerate(starts))
    # a chunk's lines span exactly its text; an underline is never a chunk of its own
    for chunk in Pipeline(f, PipelineParams(merges=False)).compacted():
        first, last = chunk.lines or (0, 0)
        body = "\n".join(lines[first - 1 : last]).strip()
        assert body.startswith(chunk.turns[0].text.split("\n")[0])
        assert body.endswith(chunk.turns[-1].text.split("\n")[-1])
        assert lines[first - 1].strip() and lines[last - 1].strip()
        assert heading_at(chunk.turns[0].text) is not None or first not in expected


# --------------------------------------------------------------------------- the CLI


def test_chunk_embed_gives_setext_and_html_sections_their_own_chunks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "x.md"
    f.write_text(
        "Title\n=====\n\nIntro.\n\nSection A\n---------\n\nText a.\n\n<h3>FAQ one?</h3>\n\n"
        "Answer one.\n"
    )
    assert main(["chunk", str(f), "--embed", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    spans = [c["lines"] for c in doc["chunks"]]
    assert spans == [[1, 4], [6, 9], [11, 13]]  # an underline stays with its heading
    assert not [c for c in doc["chunks"] if c["text"].split("\n")[-1].strip("-=: Doc") == ""]


def test_the_markdown_strategy_splits_at_every_kind_of_heading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "x.md"
    f.write_text(
        "Title\n=====\n\nIntro.\n\nSection A\n---------\n\nText a.\n\n<h3>FAQ one?</h3>\n\n"
        "Answer one.\n\n```\nNot\n===\n```\n"
    )
    assert main(["chunk", str(f), "--strategy", "markdown", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["lines"] for c in doc["chunks"]] == [[1, 4], [6, 9], [11, 18]]


def test_a_summary_reads_an_underlined_or_html_heading_as_a_heading() -> None:
    """A title's underline is no text of its own, an HTML heading's text is its title."""
    from chunkscope.engine.summarize.extractive import split_sentences

    said = split_sentences(
        'Doc: Title\n=====\nDoc: The intro says this.\nDoc: <h3 id="q">FAQ &amp; more?</h3>'
    )
    assert [(s.text, s.heading) for s in said] == [
        ("Title", True),
        ("The intro says this.", False),
        ("FAQ & more?", True),
    ]


def test_a_setext_title_is_a_title_by_convention_an_rst_first_style_is_not() -> None:
    """Markdown's ``===`` titles start documents as ``#`` ones do; in reStructuredText the
    first style met is level 1 by order only (stitched pages of several conventions would
    make one page's subsections titles)."""
    from chunkscope.engine.segment.docstruct import Piece, document_starts

    def starts(rule: str) -> tuple[list[float], list[int]]:
        pieces = []
        for name in ("Alpha", "Beta", "Gamma"):
            pieces += [Piece(f"{name}\n{rule * 8}", True), Piece(f"Words on {name}.", False)]
        found = document_starts(pieces)
        return found.strength, found.level

    assert starts("=") == ([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [0, -1, 0, -1, 0, -1])
    # the rst titles are the file's top level (its sections), no document starts
    assert starts("~") == ([0.0] * 6, [0, -1, 0, -1, 0, -1])


def test_split_ranks_take_underlined_headings_in_documents_not_in_logs() -> None:
    """A document's ``---`` title is a heading split point of its level; a log message's
    paragraph over ``----`` (a tool's table or banner) stays a paragraph break."""
    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.engine.segment.segmenter import (
        HEADING_ONLY_RANK,
        HEADING_RANK,
        PARAGRAPH_RANK,
        split_ranks,
    )

    def ranks(role: str) -> list[int]:
        texts = ["Intro words here.", "Results\n-------", "Body text.", "More\n====", "End."]
        turns = [Turn(None, role, t, i + 1, 0) for i, t in enumerate(texts)]
        return split_ranks([Chunk([t]) for t in turns]).tolist()

    # (the gap after a heading alone parts it from its text: never a split point)
    doc = [HEADING_RANK - 2, HEADING_ONLY_RANK, HEADING_RANK - 1, HEADING_ONLY_RANK]
    assert ranks("Doc") == doc
    assert ranks("Bot") == [PARAGRAPH_RANK] * 4


# --------------------------------------------------------------------------- the event scan


def _line_by_line(lines: list[str]) -> list[Heading]:
    """`find_headings` as it was before it read only the lines a regex finds: every
    line in turn, the oracle of the event scan."""
    out: list[Heading] = []
    n = len(lines)
    i = H._front_matter_end(lines)
    fence: str | None = None
    literal = False
    after_blank = True
    while i < n:
        line = lines[i]
        if fence is not None:
            fence = H.fence_after(line, fence)
            i += 1
            after_blank = False
            continue
        if not line.strip():
            after_blank = True
            i += 1
            continue
        if literal:
            if line[:1] in (" ", "\t"):
                i += 1
                after_blank = False
                continue
            literal = False
        atx = H.ATX.match(line)
        if atx is not None:
            out.append(Heading(i, i + 1, len(atx.group(1)), atx.group(2).strip(), "atx"))
            i += 1
            after_blank = True
            continue
        tag = H._html_heading(lines, i) if "<" in line[:4] else None
        if tag is not None:
            out.append(tag)
            i = tag.end
            after_blank = True
            continue
        if after_blank:
            found = H._underlined(lines, i)
            if found is not None:
                taken, style = found
                title = lines[i + taken // 2 if taken == 3 else i].strip()
                out.append(H._underlined_heading(i, taken, title, style))
                i += taken
                after_blank = True
                continue
        fence = H.fence_after(line, None)
        if fence is None and H.opens_literal_block(line):
            literal = True
        after_blank = False
        i += 1
    return H.with_levels(out)


#: Lines that move `find_headings`' state or make a heading, and plain ones.
_TRICKY_LINE = st.one_of(
    st.sampled_from(
        [
            "",
            "  ",
            "\t",
            "text",
            "Title here",
            "  indented",
            "\tcode",
            "x ::",
            "Usage::",
            "   ::  ",
            "::",
            "```",
            "```py",
            "``` a`b",
            "~~~",
            "~~~~",
            "  ```",
            "    ```",
            "# H",
            "## H2 ##",
            "#nohash",
            "####### seven",
            "#",
            "<h2>T</h2>",
            " <H3 a=1>",
            "</h3>",
            "<h1></h1>",
            "  <h4>",
            "===",
            "---",
            "~~~~~~~~",
            "***",
            "^^^^",
            "- item",
            "> quote",
            "| a | b |",
            ".. note::",
            "+++",
            "key: v",
            "title = 1",
            "...",
            "x\u2028",
            "Tit\u00a0le",
            "``",
            "=",
            "-=-",
            "  ---  ",
            "\u3000",
        ]
    ),
    st.text(" #=-~`<>:h1*\t\u00a0ab", max_size=6),
)


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(_TRICKY_LINE, max_size=30))
@example(lines=["Usage::", "", "    code", "text", "  ```", "# H", "```"])  # a literal block ends
@example(lines=["Usage::", "", "    code", "", "  Title", "  ~~~~~", "", "x"])  # it goes on
@example(lines=["```", "", "Title", "=====", "```", "", "T", "---"])
def test_the_event_scan_finds_what_reading_every_line_finds(lines: list[str]) -> None:
    H._last = ("", [])
    assert find_headings(lines) == _line_by_line(lines)
    assert find_headings(lines) == _line_by_line(lines)  # the remembered answer too


def test_the_remembered_answer_is_the_lines_own() -> None:
    a = ["Title", "=====", "", "text"]
    b = ["Title", "", "=====", "text"]
    assert [h.title for h in find_headings(a)] == ["Title"]
    assert find_headings(b) == []
    assert [h.title for h in find_headings(a)] == ["Title"]
    found = find_headings(a)
    found.clear()  # a caller's list is its own
    assert [h.title for h in find_headings(a)] == ["Title"]
