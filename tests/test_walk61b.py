"""Walk 61, documentation sets: the markdown strategy's findings fixed.

F11: with ``--enrich`` the enrichment header (document, section, position, type) was not
budgeted, so most chunks went over ``--max-tokens`` with no flag and no stderr line, and
their ``meta.token_count`` counted the text without the header.
F14: over a document, ``meta.token_count`` was 1-4 tokens less than the chunk's
``tokens`` (it counted the span without the ``Doc: `` label and its join).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

COUNTER = get_counter()

SENTENCE = (
    "configuration values are loaded from a file, the environment or an object; "
    "each key is read once when the application starts and kept for its lifetime"
)
WORDS = SENTENCE.split(" ")


def _doc(sections: int = 6, paragraphs: int = 5) -> str:
    """A reStructuredText-like markdown document with nested sections of long prose."""
    out = ["# Configuration Handling", ""]
    for s in range(sections):
        out += [f"## Section {s} about builtin configuration values", ""]
        out += [f"### Subsection {s} on environment variables and files", ""]
        for p in range(paragraphs):
            words = [WORDS[(s * 7 + p * 3 + k) % len(WORDS)] for k in range(60)]
            out += [" ".join(words).capitalize() + ".", ""]
    return "\n".join(out)


def _chunk_json(
    capsys: pytest.CaptureFixture[str], path: Path, *args: str
) -> tuple[list[dict], str]:
    assert main(["chunk", str(path), "--strategy", "markdown", *args, "--format", "json"]) == 0
    out = capsys.readouterr()
    return json.loads(out.out)["chunks"], out.err


@pytest.mark.parametrize("cap", [120, 300])
def test_walk61_f11_enrich_header_counts_against_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cap: int
) -> None:
    """The cap a user sets holds to the chunk as shown, enrichment header included:
    the content is split at the cap less the header's tokens, and the count in
    ``meta`` is that of the text as shown (``tokens``)."""
    path = tmp_path / "config.md"
    path.write_text(_doc())
    chunks, err = _chunk_json(capsys, path, "--max-tokens", str(cap), "--enrich")
    assert len(chunks) > 5
    assert all(c["text"].startswith("Doc: Document: ") for c in chunks)
    assert [c["tokens"] for c in chunks if c["tokens"] > cap] == []
    assert not any(c["meta"]["exceeds_limit"] for c in chunks)
    assert [c["tokens"] for c in chunks] == [c["meta"]["token_count"] for c in chunks]
    assert [COUNTER.count(c["text"]) for c in chunks] == [c["tokens"] for c in chunks]
    assert "over --max-tokens" not in err
    # the chunks still fill the cap (the header is budgeted, not over-reserved)
    assert max(c["tokens"] for c in chunks) > cap * 3 // 4


def test_walk61_f11_header_leaving_no_room_is_flagged_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header that alone fills the cap leaves no room: such chunks are flagged
    ``exceeds_limit`` and counted on stderr, never silently over."""
    path = tmp_path / "config.md"
    path.write_text(_doc(2, 2))
    chunks, err = _chunk_json(capsys, path, "--max-tokens", "30", "--overlap", "0", "--enrich")
    over = [c for c in chunks if c["tokens"] > 30]
    assert over and all(c["meta"]["exceeds_limit"] for c in over)
    assert f"{len(over)} of {len(chunks)} markdown chunks are over --max-tokens 30" in err
    assert [c["tokens"] for c in chunks] == [c["meta"]["token_count"] for c in chunks]


@pytest.mark.parametrize("args", [(), ("--max-tokens", "100"), ("--max-tokens", "60")])
def test_walk61_f14_meta_token_count_is_the_chunk_as_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    """Over a document, ``meta.token_count`` is the count of the chunk as shown
    (``Doc: `` label and all), the chunk's ``tokens``, overlaps cut inside words too."""
    path = tmp_path / "config.md"
    path.write_text(_doc() + "\n\nEnd: `x`, café, naïve — 東京 and ünïcödé words.\n")
    chunks, _ = _chunk_json(capsys, path, *args)
    assert len(chunks) > 3
    assert [c["meta"]["token_count"] for c in chunks] == [c["tokens"] for c in chunks]
    assert [COUNTER.count(c["text"]) for c in chunks] == [c["tokens"] for c in chunks]


def test_walk61_f14_counts_alone_read_off_the_document_are_exact() -> None:
    """The chunk counts are read off the document's tokens, only a word or so at each
    edge encoded again (`TokenIndex.counts_alone`): exact beside emoji, accents, CJK
    and line starts, with a label or an enrichment header before the text."""
    from chunkscope.engine.chunk.strategies._tokpos import TokenIndex

    text = (
        "As you sit 🔀 your turn comes 🤓 on that. Then the cashier 💁 says “hi” — "
        "naïve café 東京 words,\nand lines\n  indented; `code` (x:=10) &vert; <b>bold</b>\n"
    ) * 8
    index = TokenIndex(text, COUNTER)
    prefixes = ["", "Doc: ", "Doc: Document: x\nType: kb\n\n"]
    items = [
        (prefixes[(a + b) % 3], a, b) for a in range(0, 160, 3) for b in range(a + 1, len(text), 97)
    ]
    enc = COUNTER._encoding  # type: ignore[attr-defined]
    want = [len(enc.encode_ordinary(p + text[a:b])) for p, a, b in items]
    assert index.counts_alone(items) == want


def _starts(text: str, size: int, overlap: int) -> list[str]:
    """Where each chunk of `text` after the first starts, as the text from there."""
    from chunkscope.engine.chunk.strategies import get_strategy

    res = get_strategy("markdown", {"max_tokens": size, "overlap": overlap}).split_text(
        text, COUNTER
    )
    assert len(res.chunks) > 2
    return [text[sc.meta["start_char"] :] for sc in res.chunks[1:]]


def test_walk61_f9_an_overlap_starts_a_table_at_a_row() -> None:
    """A long table cut into chunks: each overlap starts at a row (a line start), never
    in a cell (Rust's operator table gave ``Doc: , and so on | Tuple indexing``)."""
    rows = [
        f"| `op{i}` | `expr {i} expr`, and so on | Operator number {i} &vert; its meaning |"
        for i in range(60)
    ]
    text = "# Operators\n\n| Operator | Example | Explanation |\n|---|---|---|\n"
    text += "\n".join(rows) + "\n"
    starts = _starts(text, 120, 40)
    assert all(s.startswith("| `op") for s in starts), [s[:30] for s in starts]


#: Markup an overlap must not start inside: a link with its target, a tag, an entity.
MARKUP = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)|<[^<>\n]*>|&#?\w+;")


@pytest.mark.parametrize(
    "line",
    [
        'See <ReadMore>the <a href="/en/guides/actions/">actions guide</a></ReadMore> here.',
        "Use `a` then expr&vert;expr&vert;expr&vert;expr&vert;expr or &#124;&#124; twice.",
        "Set the [front matter field named lastmod](#lastmod-field-of-the-page) to a date.",
        "Paths /content/methods/page/date/nested/deeper/index.html#x and /all/#hascjk here.",
        "Valid: f'{(x:=10)}' and print(f'{(x:=10)}') and f'{x:=10}' in an f-string.",
    ],
)
def test_walk61_f9_an_overlap_starts_at_a_word_not_in_markup(line: str) -> None:
    """An overlap starts at a word after whitespace, never inside an HTML tag, an
    entity, a link, a path or a piece of code glued by punctuation (astro-actions gave
    ``Doc: ReadMore>``, hugo ``Doc: /date/`` and ``Doc: lastmod](#lastmod).``)."""
    text = "# Title\n\n" + "\n".join(f"{line} ({i})" for i in range(80)) + "\n"
    for size, overlap in ((60, 30), (80, 45), (100, 20)):
        for rest in _starts(text, size, overlap):
            at = len(text) - len(rest)
            assert text[at - 1].isspace(), rest[:40]
            row = text.rfind("\n", 0, at) + 1
            for m in MARKUP.finditer(text, row, text.find("\n", at)):
                assert not m.start() < at < m.end(), rest[:40]


def test_walk61_f9_reference_definitions_start_at_a_line() -> None:
    """Link reference definitions (``[label]: target``) cut into chunks: an overlap
    starts at a definition's line, never in its target (hugo: ``Doc: /date/``)."""
    text = "# Links\n\n" + "\n".join(
        f"[`Method{i}`]: /methods/page/method-number-{i}/#anchor-{i}" for i in range(80)
    )
    starts = _starts(text + "\n", 80, 40)
    assert all(s.startswith("[`Method") for s in starts), [s[:30] for s in starts]


def test_an_overlap_start_on_a_long_line_of_open_brackets_is_found_in_linear_time(
    tmp_path: Path,
) -> None:
    """The review of this round's change: `_INLINE_MARKUP` scanned to the line's end from
    every unclosed ``[`` or ``(`` (``[a](`` 25,000 times: `chunk --strategy markdown`
    never ended). In a process of its own, so a hang is a failure."""
    import subprocess
    import sys

    path = tmp_path / "links.md"
    path.write_text("# T\n\n" + "word " * 2000 + "[a](" * 25_000 + "\n\nEnd.\n", encoding="utf-8")
    args = ["chunk", str(path), "--strategy", "markdown", "--max-tokens", "200", "--overlap", "50"]
    subprocess.run(
        [sys.executable, "-m", "chunkscope", *args, "--format", "json"],
        capture_output=True,
        check=True,
        timeout=60,
    )
