"""Markdown parsing against docs/log-format.md section 3."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import (
    BODY,
    chunk_turns,
    compact_chunks,
    compact_spans,
    compact_unit_spans,
)
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import load, load_markdown, parse_turns_md

ROOT = Path(__file__).resolve().parents[1]
MTIME = 1_770_000_000  # a fixed mtime, set with os.utime


def write_md(path: Path, text: str, mtime: float = MTIME) -> Path:
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def sections(turns: list[Turn]) -> list[str]:
    """The section texts (everything after the file-name turn)."""
    return [t.text for t in turns[1:]]


@pytest.mark.parametrize("text", ["", "\n", "   \n\t\n\n", " "])
def test_empty_or_whitespace_only_gives_no_turns(tmp_path: Path, text: str) -> None:
    f = write_md(tmp_path / "empty.md", text)
    assert parse_turns_md(f) == []
    assert load(f).turns == []


def test_first_turn_is_file_name_and_every_turn_is_doc_at_mtime(tmp_path: Path) -> None:
    sub = tmp_path / "docs"
    sub.mkdir()
    f = write_md(sub / "guide.md", "intro\n\n# One\nbody one\n\n## Two\nbody two\n")
    turns = parse_turns_md(f)
    expected_ts = datetime.fromtimestamp(MTIME)
    assert turns[0].text == "guide.md"
    assert all(t.role == "Doc" for t in turns)
    assert all(t.timestamp == expected_ts for t in turns)
    assert sections(turns) == ["intro", "# One\nbody one", "## Two\nbody two"]
    assert [t.turn_index for t in turns] == [0, 1, 2, 3]


def test_timestamp_follows_mtime(tmp_path: Path) -> None:
    other = MTIME + 86_400 * 3 + 3661
    f = write_md(tmp_path / "a.md", "# H\ntext\n", mtime=other)
    turns = parse_turns_md(f)
    assert {t.timestamp for t in turns} == {datetime.fromtimestamp(other)}


def test_preamble_is_its_own_turn_and_sections_start_with_heading(tmp_path: Path) -> None:
    text = (
        "\n\nSome preamble\nstill preamble\n\n"
        "# Heading A\n\npara a1\n\npara a2\n\n\n"
        "# Heading B\nb\n"
    )
    f = write_md(tmp_path / "doc.md", text)
    turns = parse_turns_md(f)
    assert sections(turns) == [
        "Some preamble\nstill preamble",
        "# Heading A\n\npara a1\n\npara a2",
        "# Heading B\nb",
    ]
    assert [t.source_line for t in turns[1:]] == [3, 6, 13]


def test_section_text_is_stripped(tmp_path: Path) -> None:
    f = write_md(tmp_path / "doc.md", "# Title   \n\n   body with spaces   \n\n\n\n")
    assert sections(parse_turns_md(f)) == ["# Title   \n\n   body with spaces"]


def test_two_headings_in_a_row_make_heading_only_turn(tmp_path: Path) -> None:
    f = write_md(tmp_path / "doc.md", "# A\n## B\ntext b\n### C\n\n#### D\n")
    turns = parse_turns_md(f)
    assert sections(turns) == ["# A", "## B\ntext b", "### C", "#### D"]
    assert [t.source_line for t in turns[1:]] == [1, 2, 4, 6]


def test_heading_levels_one_to_six_but_not_seven(tmp_path: Path) -> None:
    lines = [f"{'#' * n} level {n}" for n in range(1, 8)]
    f = write_md(tmp_path / "doc.md", "\n".join(lines) + "\n")
    assert sections(parse_turns_md(f)) == [*lines[:5], lines[5] + "\n" + lines[6]]


@pytest.mark.parametrize("line", ["#hashtag here", "#", "##nospace", "  # indented four? no, two"])
def test_not_headings(tmp_path: Path, line: str) -> None:
    f = write_md(tmp_path / "doc.md", f"# Top\nbefore\n{line}\nafter\n")
    assert sections(parse_turns_md(f)) == [f"# Top\nbefore\n{line}\nafter"]


def test_tab_after_hashes_is_a_heading(tmp_path: Path) -> None:
    f = write_md(tmp_path / "doc.md", "a\n#\tTabbed\nb\n")
    assert sections(parse_turns_md(f)) == ["a", "#\tTabbed\nb"]


@pytest.mark.parametrize(
    ("open_fence", "close_fence"),
    [
        ("```", "```"),
        ("```bash", "```"),
        ("```python title='x.py'", "```"),
        ("~~~", "~~~"),
        ("~~~sh", "~~~"),
        ("```", "`````"),
        ("~~~~", "~~~~~~"),
        ("  ```", "```"),
    ],
)
def test_hash_lines_inside_fences_are_not_headings(
    tmp_path: Path, open_fence: str, close_fence: str
) -> None:
    text = (
        f"# Script\nRun this:\n{open_fence}\n# a shell comment\n## another\n"
        f"echo hi\n{close_fence}\n# Next\nafter\n"
    )
    f = write_md(tmp_path / "doc.md", text)
    turns = parse_turns_md(f)
    assert sections(turns) == [
        f"# Script\nRun this:\n{open_fence}\n# a shell comment\n## another\necho hi\n{close_fence}",
        "# Next\nafter",
    ]
    assert [t.source_line for t in turns[1:]] == [1, 8]


def test_shorter_closing_fence_does_not_close(tmp_path: Path) -> None:
    text = "# A\n````\n# in fence\n```\n# still in fence\n````\n# B\n"
    f = write_md(tmp_path / "doc.md", text)
    assert sections(parse_turns_md(f)) == [
        "# A\n````\n# in fence\n```\n# still in fence\n````",
        "# B",
    ]


def test_tilde_fence_containing_backtick_fence(tmp_path: Path) -> None:
    text = (
        "# A\n~~~markdown\n```python\n# comment\n```\n# heading in example\n~~~\n"
        "# B\n```\n~~~\n# c\n```\n# C\n"
    )
    f = write_md(tmp_path / "doc.md", text)
    turns = parse_turns_md(f)
    assert sections(turns) == [
        "# A\n~~~markdown\n```python\n# comment\n```\n# heading in example\n~~~",
        "# B\n```\n~~~\n# c\n```",
        "# C",
    ]
    assert [t.source_line for t in turns[1:]] == [1, 8, 13]


def test_closing_fence_with_info_string_does_not_close(tmp_path: Path) -> None:
    text = "# A\n```\n```python\n# c\n```\n# B\n"
    f = write_md(tmp_path / "doc.md", text)
    # "```python" inside a fence is content, the bare ``` closes it.
    assert sections(parse_turns_md(f)) == ["# A\n```\n```python\n# c\n```", "# B"]


def test_inline_backticks_are_not_a_fence(tmp_path: Path) -> None:
    # A backtick fence's info string may not contain a backtick (CommonMark):
    # this line is inline code, so the following heading is a heading.
    text = "# A\n```inline``` code\n# B\nb\n"
    f = write_md(tmp_path / "doc.md", text)
    assert sections(parse_turns_md(f)) == ["# A\n```inline``` code", "# B\nb"]


def test_unclosed_fence_runs_to_end(tmp_path: Path) -> None:
    f = write_md(tmp_path / "doc.md", "# A\n```\n# not a heading\n")
    assert sections(parse_turns_md(f)) == ["# A\n```\n# not a heading"]


def test_crlf_and_bom_markdown(tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_bytes(b"\xef\xbb\xbf# Title\r\nbody\r\n\r\n## Sub\r\nmore\r\n")
    os.utime(f, (MTIME, MTIME))
    turns = parse_turns_md(f)
    assert sections(turns) == ["# Title\nbody", "## Sub\nmore"]
    assert all("\r" not in t.text and "\ufeff" not in t.text for t in turns)


def test_invalid_utf8_markdown_warns(tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_bytes(b"# T\nbad \xff byte\n")
    source = load_markdown(f)
    assert sections(source.turns) == ["# T\nbad \ufffd byte"]
    assert [w.line for w in source.warnings] == [2]


def test_source_is_markdown_kind(tmp_path: Path) -> None:
    f = write_md(tmp_path / "notes.markdown", "# x\n")
    source = load(f)
    assert source.kind == "markdown"
    assert source.skipped == []
    # the name is the seed's turn only: read as a format, every turn is the file's text
    assert [t.text for t in source.turns] == ["# x"]
    assert all(t.source_line is not None for t in source.turns)
    assert [t.text for t in parse_turns_md(f)] == ["notes.markdown", "# x"]


# --------------------------------------------------------------------------- property test

_word = st.text(alphabet="abcdefgh xyz#*-`~é", min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)


@st.composite
def markdown_doc(draw: st.DrawFn) -> tuple[list[str], set[int], set[int]]:
    """Random doc lines, the 1-based lines inside fences (after the opening line), headings."""
    lines: list[str] = []
    in_fence: set[int] = set()
    headings: set[int] = set()
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["heading", "para", "blank", "fence", "hashtag"]))
        if kind == "heading":
            level = draw(st.integers(1, 6))
            title = draw(_word)
            lines.append("#" * level + " " + title)
            headings.add(len(lines))
        elif kind == "para":
            for _ in range(draw(st.integers(1, 3))):
                word = draw(_word)
                # Keep paragraph lines from looking like a heading or a fence.
                lines.append("p " + word)
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
        elif kind == "hashtag":
            lines.append("#" + draw(st.sampled_from(["tag", "######## seven+", "x y"])))
        else:
            char = draw(st.sampled_from("`~"))
            width = draw(st.integers(3, 5))
            info = draw(st.sampled_from(["", "python", "sh", "md"]))
            lines.append(char * width + info)  # the opening line itself is not "inside"
            for _ in range(draw(st.integers(0, 4))):
                inner = draw(
                    st.sampled_from(
                        ["# comment", "## two", "code()", "", "```" if char == "~" else "~~~"]
                    )
                )
                lines.append(inner)
                in_fence.add(len(lines))
            lines.append(char * (width + draw(st.integers(0, 2))))
            in_fence.add(len(lines))
    return lines, in_fence, headings


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(doc=markdown_doc())
def test_markdown_sections_cover_all_text_in_order(
    tmp_path: Path, doc: tuple[list[str], set[int], set[int]]
) -> None:
    lines, in_fence, headings = doc
    f = write_md(tmp_path / "prop.md", "\n".join(lines) + "\n")
    turns = parse_turns_md(f)
    nonblank = [ln.strip() for ln in lines if ln.strip()]
    if not nonblank:
        assert turns == []
        return
    assert turns[0].text == "prop.md"
    secs = turns[1:]
    covered = [ln.strip() for t in secs for ln in t.text.split("\n") if ln.strip()]
    assert covered == nonblank
    starts = [t.source_line for t in secs]
    assert all(s is not None for s in starts)
    assert starts == sorted(starts)
    # No section starts inside a fence, and every real heading starts one.
    assert not {s for s in starts if s is not None} & in_fence
    assert headings <= set(starts)
    for t in secs:
        assert t.source_line is not None
        assert t.text == t.text.strip()
        assert t.text.split("\n")[0].strip() == lines[t.source_line - 1].strip()
        if t.source_line not in headings:
            # Only the preamble may start without a heading.
            assert t is secs[0]
            assert not any(h < t.source_line for h in headings)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.lists(
        st.sampled_from(
            [
                b"# Head",
                b"text",
                b"",
                b"\r",
                b"   ```py",
                b"~~~",
                b"```",
                b"\xef\xbb\xbf",
                b"\xc3\xa9t\xc3\xa9",
                b"\xff",
                b"  # not",
                b" \t",
                b"#x",
            ]
        ),
        max_size=12,
    ),
    sep=st.sampled_from([b"\n", b"\r\n", b"\r\r\n"]),
    tail=st.booleans(),
)
def test_whole_file_read_gives_the_lines_of_the_line_reader(
    tmp_path: Path, body: list[bytes], sep: bytes, tail: bool
) -> None:
    """A plain UTF-8 file is read and decoded at once; its lines (BOM, CR, last line
    break) and so its sections are those of the line-by-line reader, and a file that is
    not UTF-8 is left to that reader (which reports the bad line)."""
    from chunkscope.engine.read import source as src

    data = sep.join(body) + (sep if tail and body else b"")
    f = tmp_path / "doc.md"
    f.write_bytes(data)
    whole = src._whole_lines(f, len(data))
    warnings: list[src.Problem] = []
    streamed = [line for _, line in src._iter_lines(f, warnings, None)]
    if b"\xff" in data:
        assert whole is None and warnings
    else:
        assert whole == streamed


def test_no_merged_chunk_is_the_file_name_and_every_one_has_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from chunkscope.tui.cli import main

    f = write_md(
        tmp_path / "cook.md", "# Cookbook\n\nSmall recipes.\n\n## Find\n\nfind . -name x\n"
    )
    assert main(["chunk", str(f), "--embed", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["merged"] and all(m["lines"] is not None for m in doc["merged"])
    assert all("cook.md" not in m["text"] for m in doc["merged"])
    assert doc["merged"][0]["lines"][0] == 1


# --------------------------------------------------------------------------- topic units

_DOCS = itertools.count()


def _pipe(path: Path, **topic: int) -> Pipeline:
    """The default run (topic merge) of `path`, with topic knobs changed."""
    pipe = Pipeline(str(path), PipelineParams())
    return pipe.with_params(topic=replace(pipe.params.topic, **topic))


def test_a_short_body_stays_with_its_heading_not_the_next(isolated: Path) -> None:
    """The hostile corpus's case: ``Body 4.`` (under the unit minimum) was glued to the
    next section's heading, a unit ``Body 4.\\n###### Heading 5``."""
    text = "".join(f"{'#' * (i % 6 + 1)} Heading {i}\n\nBody {i}.\n\n" for i in range(12))
    pipe = _pipe(write_md(isolated / "headings.md", text))
    units = [c.text for c in pipe.compacted()]
    assert units == [f"Doc: {'#' * (i % 6 + 1)} Heading {i}\nDoc: Body {i}." for i in range(12)]


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    doc=markdown_doc(),
    unit=st.sampled_from([0, 20, 60, 200]),
    size=st.sampled_from([0, 15, 200]),
)
# a heading followed by a line of blanks was not seen as alone and ended its unit
@example(doc=(["# `", "  ", "", "p `"], set(), {1}), unit=0, size=0)
def test_no_topic_unit_or_merged_chunk_ends_with_a_heading(
    isolated: Path, doc: tuple[list[str], set[int], set[int]], unit: int, size: int
) -> None:
    """A heading starts its unit, never ends one: no compacted or merged chunk of the
    topic merge ends on a heading line unless that is the document's last line."""
    lines, _in_fence, headings = doc
    path = write_md(isolated / f"doc{next(_DOCS)}.md", "\n".join(lines) + "\n")
    pipe = _pipe(path, topic_unit_chars=unit, topic_chunk_tokens=size)
    if not pipe.source().turns:
        return
    last = max(i for i, line in enumerate(lines, start=1) if line.strip())
    for chunk in [*pipe.compacted(), *pipe.merged().chunks]:
        assert chunk.lines is not None
        end = chunk.lines[1]
        assert end not in headings or end == last, (end, chunk.text)


@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 120), min_size=0, max_size=30),
    min_chars=st.sampled_from([0, 20, 80]),
)
def test_without_headings_the_units_are_the_seeds_compaction(
    sizes: list[int], min_chars: int
) -> None:
    chunks = [Chunk([Turn(None, "Doc", "x" * n, i + 1, i)]) for i, n in enumerate(sizes)]
    heads = [BODY] * len(chunks)
    assert compact_unit_spans(chunks, min_chars, heads) == compact_spans(chunks, min_chars)


@pytest.mark.parametrize("name", ["sample_logs/architecture_guide.md", "README.md"])
def test_the_seed_merge_compacts_a_document_as_the_seed_did(name: str) -> None:
    """``--merge seed`` keeps the seed's compaction bit for bit, headings and all."""
    pipe = Pipeline(str(ROOT / name), PipelineParams())
    seed = pipe.with_params(merge=replace(pipe.params.merge, mode="seed"))
    raw = chunk_turns(seed.turns())
    assert seed.compact_spans() == compact_spans(raw, seed.params.min_chars)
    assert [c.text for c in seed.compacted()] == [c.text for c in compact_chunks(raw)]
