"""The lazy recap (`compose_lazy`, `Pipeline.recap(every_summary=False)`) against the
eager one: the same recap for every bundled log and fixture, budget, pin, exclusion,
scorer, merge and heading setting; and the summary floors it rests on, which no
paragraph the recap can show for a chunk is under."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.recap.core import Candidate, Selection, render_block
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.summarize import ExtractiveSummarizer, Summary
from chunkscope.engine.summarize.base import clean_summary
from chunkscope.engine.summarize.extractive import sentences_of, terminated
from chunkscope.engine.tokens import TokenCounter, get_counter
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: Every bundled sample (sessions and markdown) and every format's fixtures.
LOGS = sorted(
    p
    for p in [*(ROOT / "sample_logs").iterdir(), *(ROOT / "tests" / "fixtures").rglob("*")]
    if p.is_file() and p.suffix in (".jsonl", ".json", ".md") and p.name != "SOURCES.md"
)
SEED = MergeParams(max_chunk_chars=700, mode="seed")


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))


@cache
def _pipeline(log: Path, seed: bool) -> Pipeline:
    params = PipelineParams(collapse=True, merge=SEED) if seed else PipelineParams(collapse=True)
    return Pipeline(log, params)


def _no_summary(selection: Selection) -> int:
    """The merged chunks the command line says have no summary."""
    listed = sum(1 for c in selection.candidates if c.reason == "no summary")
    return listed + selection.unlisted_empty


def _same(lazy: Selection, eager: Selection) -> None:
    assert lazy.text == eager.text
    assert lazy.used_tokens == eager.used_tokens
    assert lazy.newest_over_budget == eager.newest_over_budget
    assert lazy.task_left_out == eager.task_left_out
    assert [c.as_dict() for c in lazy.selected] == [c.as_dict() for c in eager.selected]
    assert [s.as_dict(t) for s, t in zip(lazy.sections, lazy.section_tokens, strict=True)] == [
        s.as_dict(t) for s, t in zip(eager.sections, eager.section_tokens, strict=True)
    ]
    assert _no_summary(lazy) == _no_summary(eager)
    assert len(lazy.candidates) + lazy.unlisted == len(eager.candidates)
    # what it lists is what the eager one says of those chunks, but for the reasons and
    # tokens of the ones it did not pick, which depend on what came after them
    eager_of = {c.index: c for c in eager.candidates}
    for c in lazy.candidates:
        assert c.summary == eager_of[c.index].summary or c.reason == "said already"
        assert c.selected == eager_of[c.index].selected


def _options(n: int) -> Iterator[dict[str, Any]]:
    """Budgets from nothing fits to everything fits, pins, exclusions, both, headings,
    the plain recap and salience."""
    for budget in (1, 40, 150, 400, 4000):
        yield {"budget": budget}
    if n:
        oldest, middle, newest = 0, n // 2, n - 1
        yield {"budget": 150, "pinned": (oldest,)}
        yield {"budget": 400, "pinned": (oldest, middle), "excluded": (newest,)}
        yield {"budget": 60, "excluded": tuple(range(max(0, n - 3), n))}
        yield {"budget": 150, "pinned": (middle,), "excluded": (middle,)}
    yield {"budget": 300, "headings": True}
    yield {"budget": 80, "plain": True}
    yield {"budget": 300, "plain": True, "headings": True}
    if n <= 2000:
        yield {"budget": 300, "scorer": "salience"}


@pytest.mark.parametrize("seed", [False, True], ids=["topic", "seed"])
@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_lazy_recap_is_the_eager_one(
    log: Path, seed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.recap import core

    # a head of one candidate, doubled: every log's recap stops, or grows, somewhere
    monkeypatch.setattr(core, "_LAZY_HEAD", 1)
    pipe = _pipeline(log, seed)
    if not pipe.source().turns:
        pytest.skip("no turns")
    n = len(pipe.merged().chunks)
    left_out = 0
    for options in _options(n):
        eager = pipe.recap(**options)
        lazy = pipe.recap(**options, every_summary=False)
        _same(lazy, eager)
        left_out += lazy.unlisted
    assert left_out or n < 4  # the lazy recap did leave chunks unsummarized


def test_a_small_budget_summarizes_few_chunks(tmp_path: Path) -> None:
    from tests.test_recap import make_log

    log = make_log(tmp_path / "long.jsonl", topics=150)
    pipe = Pipeline(log, PipelineParams(collapse=True, merge=SEED))
    n = len(pipe.merged().chunks)
    # (150: at 120 the last message's sentence Where it stopped leaves out is no longer
    # told in What happened, walk 72, F3, and the room it took is tried on every chunk)
    lazy = pipe.recap(budget=150, every_summary=False)
    assert n > 100
    assert lazy.unlisted > n // 2  # most chunks were never summarized
    assert pipe.summarized <= len(lazy.candidates)  # repeated texts are summarized once
    _same(lazy, pipe.recap(budget=150))


def test_every_summary_when_the_summarizer_cannot_floor(tmp_path: Path) -> None:
    from tests.test_recap import make_log

    log = make_log(tmp_path / "s.jsonl", topics=6)
    pipe = Pipeline(log, PipelineParams(collapse=True, merge=SEED))
    pipe.set_summarizer(_NoFloor())
    lazy = pipe.recap(budget=120, every_summary=False)
    assert lazy.unlisted == 0
    assert len(lazy.candidates) == len(pipe.merged().chunks)


class _NoFloor:
    """A summarizer that cannot tell a floor: the recap summarizes every chunk."""

    name = "first-line"
    model = "none"
    prompt_version = "1"
    cacheable = False
    parallel = False

    def summarize(self, text: str) -> Summary:
        line = text.strip().splitlines()[0] if text.strip() else ""
        return Summary(line, line)


@pytest.mark.parametrize("log", [p for p in LOGS if p.parent.name == "sample_logs"][:3])
def test_cli_markdown_is_the_json_recap(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`chunkscope recap` (lazy) prints what `--format json` (every summary) holds, with
    the same notes."""
    for extra in ([], ["--budget", "200", "--pin", "0"], ["--merge", "seed", "--budget", "90"]):
        assert main(["recap", str(log), *extra]) == 0
        text, notes = capsys.readouterr()
        assert main(["recap", str(log), *extra, "--format", "json"]) == 0
        doc, json_notes = capsys.readouterr()
        assert text == json.loads(doc)["recap"]
        assert notes == json_notes


# --------------------------------------------------------------------------- floors

_SUMMARIZER = ExtractiveSummarizer()


def _paragraphs(summary: Summary) -> list[str]:
    """What the recap could show for a chunk with `summary`: the whole, and each
    sentence the dedupe could leave of it alone (with its heading and without)."""
    text = summary.text.strip()
    shown = [text, *(terminated(s) for s in sentences_of(text))]
    out = []
    for t in shown:
        c = Candidate(0, Summary(t, t), 1.0, time_range="10:00:00 - 10:05:00")
        out += [render_block(c), render_block(c, headings=True)]
    return [p for p in out if p]


def _check_floor(text: str, counters: list[TokenCounter]) -> None:
    floor = _SUMMARIZER.floor(text)
    summary = clean_summary(_SUMMARIZER.summarize(text))
    assert (floor == 0) == (not summary.text.strip()), (text, summary)
    for paragraph in _paragraphs(summary):
        for counter in counters:
            assert floor <= counter.count(paragraph), (text, paragraph, counter.name)


def _counters() -> list[TokenCounter]:
    return [get_counter(), TokenCounter("no-such-encoding")]


def test_approximate_counter_is_what_the_floors_also_hold() -> None:
    assert TokenCounter("no-such-encoding").accuracy == "approximate"


@pytest.mark.parametrize("seed", [False, True], ids=["topic", "seed"])
def test_floors_of_every_bundled_chunk(seed: bool) -> None:
    counters = _counters()
    for log in LOGS:
        pipe = _pipeline(log, seed)
        if not pipe.source().turns:
            continue
        for chunk in pipe.merged().chunks:
            _check_floor(chunk.text, counters)


_WORDS = st.sampled_from(
    [
        "a",
        "I",
        "ok",
        "Done",
        "the",
        "cache",
        "parser",
        "fails",
        "fixed",
        "`x.py`",
        "src/app.py",
        "42",
        "3.5%",
        "e.g.",
        "etc.",
        "don't",
        "can't",
        "naïve",
        "café_1",
        "__init__",
        "—",
        "…",
        "“quoted”",
        "’s",
        "**bold**",
        "##",
        "#",
        ">",
        "-",
        "1.",
        "```",
        "~~~",
        "Let",
        "Now",
        "I'll",
        "check",
        "Perfect!",
        "because",
        "error",
        "tests",
        "pass",
        "snake_case",
        "camelCase",
    ]
)
_ENDS = st.sampled_from(["", ".", "!", "?", ":", ";", "...", ".)", '."', " -", "\u2026"])
_SENTENCE = st.builds(
    lambda ws, end: " ".join(ws) + end, st.lists(_WORDS, min_size=1, max_size=12), _ENDS
)
_ROLES = st.sampled_from(["Bot: ", "You: ", "Tool: ", "Bot thinking: ", "", "- ", "> "])
_LINE = st.builds(
    lambda role, ss: role + " ".join(ss), _ROLES, st.lists(_SENTENCE, min_size=0, max_size=4)
)


@settings(max_examples=120, deadline=None)  # about 2 s: the bound the recap rests on
@given(st.lists(_LINE, min_size=1, max_size=10))
def test_floor_is_under_every_paragraph_of_a_generated_chunk(lines: list[str]) -> None:
    _check_floor("\n".join(lines), _counters())


@pytest.mark.parametrize(
    "text",
    [
        "Bot: `x.py`\nTool: ok",  # found by the property test above: floor 1, no summary
        "Bot: `x.py`\nTool: The build failed on line 3 of main.rs.",
        "Bot: ![shot](a.png)\nTool: Done.",
    ],
)
def test_floor_is_zero_exactly_when_a_chunk_of_markup_and_filler_has_no_summary(text: str) -> None:
    _check_floor(text, _counters())
