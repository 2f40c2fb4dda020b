"""A recap or summary never leaves a code fence open, and a fragment without words
(a lone "```") is never kept as a summary."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.read.source import FENCE
from chunkscope.engine.summarize import ExtractiveSummarizer, Summary, summarize_chunks
from chunkscope.engine.summarize.base import clean_summary, closed_fences, has_words
from chunkscope.engine.summarize.extractive import split_sentences
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]


def open_fence(text: str) -> bool:
    """Whether `text`, read as markdown, ends inside a fenced code block."""
    marker: str | None = None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if not m:
            continue
        if marker is None:
            marker = m.group(1)
        elif (
            m.group(1)[0] == marker[0]
            and len(m.group(1)) >= len(marker)
            and not line.strip().lstrip(marker[0])
        ):
            marker = None
    return marker is not None


def test_closed_fences() -> None:
    assert closed_fences("```") == ""
    assert closed_fences("```python\nx = 1") == "python\nx = 1"
    assert closed_fences("```\nx = 1\n```") == "```\nx = 1\n```"
    assert closed_fences("Use it:\n```\ncode\n```\nthen\n~~~") == "Use it:\n```\ncode\n```\nthen"


_line = st.sampled_from(["```", "```py", "~~~", "````", "text", "  ```", "a ``` b", ""])


@settings(max_examples=300, deadline=None)
@given(st.lists(_line, max_size=12))
def test_no_fence_stays_open_and_every_worded_line_stays(lines: list[str]) -> None:
    text = "\n".join(lines)
    out = closed_fences(text)
    assert not open_fence(out)
    assert [ln for ln in out.split("\n") if "text" in ln] == [ln for ln in lines if "text" in ln]


def test_a_chunk_of_fences_alone_has_no_summary() -> None:
    summary = ExtractiveSummarizer().summarize("Doc: ```\nDoc: ```")
    assert summary.text == "" or has_words(summary.text)
    assert "```" not in summary.text
    (kept,) = summarize_chunks(["Doc: ```"])
    assert kept.text == ""


def test_clean_summary_whoever_wrote_it() -> None:
    odd = Summary("```", "Fixed the cache.\n```python", source="llm")
    clean = clean_summary(odd)
    assert clean.abstract == "" and clean.summary == "Fixed the cache.\npython"
    assert clean.source == "llm"


@pytest.mark.parametrize(
    "name", ["README.md", "sample_logs/architecture_guide.md", "sample_logs/shell_cookbook.md"]
)
def test_the_recap_of_a_document_leaves_no_fence_open(
    name: str, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    assert main(["recap", str(ROOT / name), "--budget", "4000"]) == 0
    out = capsys.readouterr().out
    assert not open_fence(out)
    lines = [ln.strip() for ln in out.split("\n")]
    assert "```" not in lines  # no lone fence kept as a summary


# ------------------------------------ a list item's fence opening a chunk (walk 19, F8)


LIST_FENCE = (
    "    ```diff\n"
    "    --- a/.gitignore\n"
    "    +++ b/.gitignore\n"
    "    @@ -10,3 +10,4 @@\n"
    "     __pycache__/\n"
    "    +*.env\n"
    "    ```\n"
    "\n"
    "    Your `.env.example` file is kept out of the repository now."
)


@pytest.mark.parametrize(
    "text", [f"Bot: {LIST_FENCE}", f"Bot: *   **Update .gitignore:**\n\n{LIST_FENCE}"]
)
def test_a_list_items_fence_indented_four_spaces_is_code(text: str) -> None:
    texts = [s.text for s in split_sentences(text)]
    assert not any("```" in t or "+++" in t for t in texts)
    assert "Your `.env.example` file is kept out of the repository now." in texts
    summary = ExtractiveSummarizer().summarize(text)
    assert summary.summary == "Your `.env.example` file is kept out of the repository now."


def test_an_indented_fence_inside_a_fence_stays_inside() -> None:
    text = (
        "Doc: An example:\n\n```markdown\n    ```python\n    x = 1\n    ```\n```\n\nIt ends here."
    )
    assert [s.text for s in split_sentences(text)] == ["An example:", "It ends here."]


def test_an_indented_fence_without_a_close_to_the_chunks_end_is_code() -> None:
    """The chunk was cut inside the item's block: the rest is code, as after an unclosed
    fence at the margin; never a sentence holding a fence (walk 60, F7)."""
    text = "Bot:     ```diff\n    +*.env"
    assert [s.text for s in split_sentences(text)] == []
