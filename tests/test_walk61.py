"""Walk 61, documentation sets (markdown, reStructuredText, MDX, front matter, changelogs):
the findings fixed.

F1: a reStructuredText title underlined with backticks (Flask's quickstart.rst: a line of
backticks under a title, a blank line after it) was read as a code fence by the markdown
strategy: the title was a chunk of its own, its underline opened a "fenced" chunk that ran
to the next such underline (over the cap, flagged ``exceeds_limit``), and the section
between had the header path of the one before. The plain split (`fenced_paragraphs`) had
the same root: it joined every paragraph of such a section into one. Both now ask the
heading rule of `engine.read.headings` (a title's underline has a blank line after it; a
fence has code after it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.chunk.split import fenced_paragraphs
from chunkscope.engine.chunk.strategies import get_strategy
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

COUNTER = get_counter()

#: A reduced copy of Flask's docs/quickstart.rst (walk 61's rst-backtick.rst).
RST_BACKTICK = """\
Guide
=====

Intro paragraph that says what this guide covers, long enough to be a chunk of its own.

Routing
-------

URL Building
````````````

To build a URL to a specific function, use the url_for function. It accepts the name.

HTTP Methods
````````````

Web applications use different HTTP methods when accessing URLs, and you should know them.
"""


def _chunk_json(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> dict:
    assert main(["chunk", str(path), *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_walk61_f1_markdown_strategy_reads_a_backtick_underline_as_a_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "guide.rst"
    path.write_text(RST_BACKTICK)
    doc = _chunk_json(
        capsys, path, "--strategy", "markdown", "--max-tokens", "20", "--overlap", "0"
    )
    info = doc["strategy"]["info"]
    assert (info["sections"], info["code_blocks"], info["warnings"]) == (4, 0, [])
    chunks = doc["chunks"]
    assert not [c["index"] for c in chunks if c["meta"]["exceeds_limit"]]
    assert not [c["index"] for c in chunks if c["meta"]["contains_code"]]
    lines = RST_BACKTICK.split("\n")
    for title in ("URL Building", "HTTP Methods"):
        at = lines.index(title) + 1
        (chunk,) = [c for c in chunks if c["lines"][0] <= at <= c["lines"][1]]
        # the title keeps its underline, and opens its own section
        assert chunk["lines"] == [at, at + 1]
        assert chunk["meta"]["header_path"] == f"Guide > Routing > {title}"
    (body,) = [c for c in chunks if "Web applications" in c["text"]]
    assert body["meta"]["header_path"] == "Guide > Routing > HTTP Methods"
    for c in chunks:  # each chunk's text is its lines' (a cut may fall in a line)
        a, b = c["lines"]
        assert c["text"].removeprefix("Doc: ") in "\n".join(lines[a - 1 : b])


def test_walk61_f1_a_fence_after_a_title_like_line_is_still_a_fence() -> None:
    """A backtick line with code after it (no blank line) opens a fence, in a markdown
    file as before: its lines are never taken for a section."""
    code = "\n".join(f"value_{i} = compute({i})" for i in range(120))
    text = f"# Doc\n\nIntro\n``````````\n{code}\n``````````\n\n## Next\n\nAfter the code.\n"
    res = get_strategy("markdown", {"max_tokens": 100, "overlap": 0}).split_text(text, COUNTER)
    assert res.info["code_blocks"] == 1 and res.info["sections"] == 2
    (fenced,) = [sc for sc in res.chunks if sc.meta["exceeds_limit"]]
    m = fenced.meta
    assert text[m["start_char"] : m["end_char"]] == f"``````````\n{code}\n``````````"
    assert m["chunk_type"] == "code_block" and m["header_path"] == "Doc"


def test_walk61_f1_plain_split_keeps_paragraphs_of_a_backtick_underlined_section() -> None:
    parts = [
        "URL Building\n````````````",
        "To build a URL to a specific function, use the url_for function.",
        "It accepts the name.",
        "HTTP Methods\n````````````",
        "Web applications use different HTTP methods.",
    ]
    assert fenced_paragraphs(parts) == parts
    # overlined too; a fence with code after it is still joined to its paragraph
    over = ["`````\nTitle\n`````", "text"]
    assert fenced_paragraphs(over) == over
    fence = ["Intro\n```python\nx = 1", "y = 2\n```", "after"]
    assert fenced_paragraphs(fence) == ["Intro\n```python\nx = 1\n\ny = 2\n```", "after"]


def test_walk61_f1_plain_chunk_splits_a_backtick_underlined_section_at_its_paragraphs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "guide.rst"
    text = RST_BACKTICK.replace(" It accepts the name.", "\n\nIt accepts the name.")
    path.write_text(text)
    chunks = _chunk_json(capsys, path, "--min-chars", "0")["chunks"]
    lines = text.split("\n")
    at = lines.index("It accepts the name.") + 1
    (chunk,) = [c for c in chunks if "It accepts" in c["text"]]
    assert chunk["lines"] == [at, at] and "To build" not in chunk["text"]
