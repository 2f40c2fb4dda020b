"""Walk 42, F3: a pinned chunk's line in the recap's "What happened" started inside a
quotation (``... next to the project?'. Response: 'Platform cache dir, yes. Use...``).
The recap's de-duplication split the collapsed question at a stop inside its single
quotes and dropped the first part as said already, keeping the rest of the quotation."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.summarize.extractive import sentences_of
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
LOG = str(ROOT / "sample_logs" / "cache_refactor.jsonl")

ASKED = (
    "Asked user: 'Where should the cache database live? I'd default to the platform cache "
    "dir with a variable to override it. Or do you want it next to the project?'. "
    "Response: 'Platform cache dir, yes. Please don't put it in the project.'."
)


def test_a_single_quoted_quotation_is_part_of_the_sentence_quoting_it() -> None:
    assert sentences_of(ASKED) == [
        "Asked user: 'Where should the cache database live? I'd default to the platform "
        "cache dir with a variable to override it. Or do you want it next to the project?'.",
        "Response: 'Platform cache dir, yes. Please don't put it in the project.'.",
    ]


def test_apostrophes_open_no_quotation() -> None:
    text = "I don't know. It's fine. The users' files are big. Next one."
    assert sentences_of(text) == [
        "I don't know.",
        "It's fine.",
        "The users' files are big.",
        "Next one.",
    ]
    assert sentences_of("Use 'foo'. Then 'bar'. End.") == ["Use 'foo'.", "Then 'bar'.", "End."]


def test_a_quotation_left_open_by_a_cut_runs_to_the_cut() -> None:
    cut = "Response: 'Platform cache dir, yes. Use CHUNKSCOPE_CACHE_DIR. Please..."
    assert sentences_of(f"Asked user: 'Where?'. {cut}") == ["Asked user: 'Where?'.", cut]


_WORD = st.sampled_from(["cache", "dir", "it's", "don't", "yes", "the", "Path"])
# (a word ending in an apostrophe, ``users'``, closes a quotation as well as anything
# can tell: only outside one)
_LEAD = st.lists(st.one_of(_WORD, st.just("users'")), min_size=1, max_size=3)
_INNER = st.lists(
    st.tuples(st.lists(_WORD, min_size=1, max_size=4), st.sampled_from([".", "?", "!"])),
    min_size=1,
    max_size=3,
)


@given(st.lists(st.tuples(_LEAD, _INNER), min_size=1, max_size=4))
def test_no_sentence_ends_inside_a_single_quoted_quotation(parts) -> None:  # type: ignore[no-untyped-def]
    sentences = []
    for lead, inner in parts:
        quoted = " ".join(" ".join(words).capitalize() + stop for words, stop in inner)
        sentences.append(f"Said {' '.join(lead)}: '{quoted}'.")
    assert sentences_of(" ".join(sentences)) == sentences


def test_no_line_of_the_recap_starts_inside_the_pinned_question(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["recap", LOG, "--pin", "5", "--format", "json"]) == 0
    recap = json.loads(capsys.readouterr().out)
    asked = next(c for c in recap["candidates"] if c["index"] == 5)
    # all of it is in the Task's "Answered:" line: nothing is left to say, and no part of
    # the question is kept alone
    assert asked["summary"].startswith("Asked user: 'Where should the cache database live?")
    assert asked["reason"] == "said already" and asked["pinned"] is True
    happened = recap["recap"].split("## What happened", 1)[1]
    assert "next to the project?'" not in happened
    assert "Response: '" not in happened
    for line in happened.splitlines():
        assert not line.startswith(("Or do you want", "I'd default")), line


def test_an_apostrophe_after_inline_code_opens_no_quotation_a_cut_would_close() -> None:
    """``\\`chunk\\`'s`` is a possessive: the closer of a cut read the text with its
    inline code taken out (`` 's first line``), saw a single quotation opened after a
    blank and closed it (``...the JSON says it as...'``, three recaps of the docs)."""
    from chunkscope.engine.summarize.extractive import _truncate

    text = (
        "A flag given always wins, and `chunk`'s first line ends with what was done and "
        "the JSON says it as a field of its own, with the number of turns it kept for you"
    )
    cut = _truncate(text, 120)
    assert cut.endswith("...") and "'" not in cut.replace("`chunk`'s", ""), cut
