"""Walk 61, documentation sets: the markdown strategy's findings fixed.

F11: with ``--enrich`` the enrichment header (document, section, position, type) was not
budgeted, so most chunks went over ``--max-tokens`` with no flag and no stderr line, and
their ``meta.token_count`` counted the text without the header.
F14: over a document, ``meta.token_count`` was 1-4 tokens less than the chunk's
``tokens`` (it counted the span without the ``Doc: `` label and its join).
"""

from __future__ import annotations

import json
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
