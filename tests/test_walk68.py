"""Walk 68: the Summary panel of a mini-swe-agent task's first chunk, the findings fixed
here. F1: a label of the user's numbered list over its code block (``2/ same query with
alias`` over its query) was chunk 0's summary and the recap's line for it. F2: an issue's
title line took the next line's bold heading as its end (``... on pandas>=1.0.0
**Describe the bug**``).

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.summarize.extractive import (
    ExtractiveSummarizer,
    is_fragment,
    split_sentences,
)
from chunkscope.tui.cli import main

#: the starts of two real mini-swe-agent runs (sources in tests/fixtures/SOURCES.md):
#: bench/recap_sessions is not in the repository
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mini-swe-agent"

ISSUE = (
    "You: Consider the following PR description:\n"
    "TSQL - L031 incorrectly triggers an alias warning when no join present\n"
    "## Expected Behaviour\n\n"
    "Both of these queries should pass, the only difference is the table alias 'a':\n\n"
    "1/ no alias\n\n```\nSELECT [hello]\nFROM\n    mytable\n```\n\n"
    "2/ same query with alias\n\n```\nSELECT a.[hello]\nFROM\n    mytable AS a\n```\n"
)


def test_f1_a_label_over_its_block_is_never_a_summary() -> None:
    summary = ExtractiveSummarizer().summarize(ISSUE)
    said = f"{summary.abstract} {summary.summary}"
    assert "same query with alias" not in said, summary
    assert "no alias" not in said, summary


def test_f1_a_short_step_over_its_output_in_a_document_stays_a_sentence() -> None:
    """A document's field value over the next block is the document's fact (flask's
    ``Default: ``'/'``` over the next directive): the label rule is a message's."""
    text = (
        "Doc: Inform the application where it is mounted.\n\nDefault: ``'/'``\n\n```\nx = 1\n```\n"
    )
    sentences = {s.text: s for s in split_sentences(text)}
    assert not is_fragment(sentences["Default: ``'/'``"])


def recap_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["recap", str(path), "--budget", "5000", "--format", "json"]) == 0
    answer: dict[str, object] = json.loads(capsys.readouterr().out)
    return answer


def first_candidate(answer: dict[str, object]) -> dict[str, str]:
    candidates = answer["candidates"]
    assert isinstance(candidates, list)
    first: dict[str, str] = candidates[0]
    return first


def test_f1_the_real_task_s_first_chunk_says_no_list_label(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """mini-sqlfluff-1625's start (tests/fixtures, trimmed): chunk 0's line was ``2/ same
    query with alias.``; it now says what was observed, or nothing the Task said."""
    path = FIXTURES / "sqlfluff-1625-head.traj.json"
    answer = recap_json(path, capsys)
    first = first_candidate(answer)
    assert not first["summary"].startswith("2/"), first
    assert "2/ same query with alias." not in str(answer["recap"])


def test_f2_a_bold_line_under_a_title_line_is_not_the_title_s_end() -> None:
    text = (
        "You: temperature.fuentes errors when given tz-aware inputs on pandas>=1.0.0\n"
        "**Describe the bug**\r\n"
        "When the weather timeseries inputs have a tz-aware index, an internal call to"
        " `np.diff(index)` returns an array of `Timedelta` objects and throws an error.\n"
    )
    summary = ExtractiveSummarizer().summarize(text)
    assert "Describe the bug" not in f"{summary.abstract} {summary.summary}", summary
    texts = [s.text for s in split_sentences(text)]
    assert "temperature.fuentes errors when given tz-aware inputs on pandas>=1.0.0" in texts


def test_f2_a_bold_value_after_its_lead_in_stays_with_it() -> None:
    """``here:`` / ``**https://...**``: the bold line is the lead-in's value, one sentence."""
    text = (
        "Bot: You can view the full combined transcript here:\n"
        "**https://github.com/example/repo/blob/master/FULL_TRANSCRIPT.md**\n"
    )
    texts = [s.text for s in split_sentences(text)]
    assert texts == [
        "You can view the full combined transcript here:"
        " **https://github.com/example/repo/blob/master/FULL_TRANSCRIPT.md**"
    ]


def test_f2_the_real_task_s_abstract_ends_at_its_title(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "pvlib-1072-head.traj.json"
    first = first_candidate(recap_json(path, capsys))
    assert "Describe the bug" not in first["summary"], first
    assert first["abstract"].endswith("pandas>=1.0.0"), first


def test_a_note_cut_at_a_word_never_ends_on_a_word_that_leaves_it_open() -> None:
    """Known since walk 66: a chunker's note cut for want of room ended ``cuts by …``."""
    from rich.cells import cell_len
    from rich.segment import Segment
    from rich.style import Style

    from chunkscope.tui.widgets.similarity_strip import fit_words

    text = "no scores: sliding-window cuts by size alone, with an overlap of 50 tokens"
    for width in range(14, len(text)):
        cut = "".join(s.text for s in fit_words([Segment(text)], width, Style()))
        assert cell_len(cut) <= width and cut.endswith(" …"), (width, cut)
        last = cut.removesuffix(" …").rsplit(None, 1)[-1]
        assert last not in {"by", "with", "an", "of"}, (width, cut)
        assert text.startswith(cut.removesuffix(" …"))
