"""Walk 37's findings that are the engine's: inline code spans a recap keeps closed (F2)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.summarize.extractive import sentences_of
from chunkscope.engine.textutil import code_spans
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]


def open_ticks(line: str) -> list[str]:
    """The backtick runs of `line` that no code span holds (a span left open)."""
    spans = code_spans(line)
    return [
        m.group() for m in re.finditer(r"`+", line) if not any(a <= m.start() < b for a, b in spans)
    ]


def test_code_spans_pair_runs_of_one_length() -> None:
    text = "a ``x ` y`` b `c` d ` e"
    assert [text[a:b] for a, b in code_spans(text)] == ["``x ` y``", "`c`"]
    assert open_ticks(text) == ["`"]


_word = st.text(st.sampled_from("abcdefgh"), min_size=2, max_size=6)
_stop = st.sampled_from([". ", "... ", "? ", "! ", ". _", ": . "])


@st.composite
def _prose_with_code(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        words = " ".join(draw(st.lists(_word, min_size=1, max_size=5)))
        parts.append(words.capitalize() + draw(st.sampled_from([". ", " "])))
        if draw(st.booleans()):
            ticks = draw(st.sampled_from(["`", "``"]))
            inner = draw(_word) + draw(_stop) + draw(_word).upper() + " " + draw(_word)
            parts.append(f"{ticks}{inner}{ticks} ")
    return "".join(parts)


@given(_prose_with_code())
def test_no_sentence_ends_inside_inline_code(text: str) -> None:
    """A stop inside inline code (``= - : . _``, `cat << 'EOF' ... EOF'`) is the code's:
    every sentence keeps each span it holds whole (walk 37, F2: a recap cut a span at
    its stop and kept an open backtick, the rest of the line read as code)."""
    for sentence in sentences_of(text):
        assert open_ticks(sentence) == [], sentence


def test_the_recaps_of_this_manual_leave_no_code_span_open(capsys) -> None:  # type: ignore[no-untyped-def]
    for page in ("input-formats.md", "cli.md"):
        assert main(["recap", str(ROOT / "docs" / page), "--budget", "1000"]) == 0
        out = capsys.readouterr().out
        fenced = False
        for line in out.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                assert open_ticks(line) == [], (page, line)
