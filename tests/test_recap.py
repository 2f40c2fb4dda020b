"""The recap: scoring, budgeted selection, rendering, atomic save/load, pipeline stages."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.pipeline import Pipeline, PipelineParams, SummarizerSpec
from chunkscope.engine.recap.core import (
    SUMMARIES_HEADING,
    Candidate,
    action_weights,
    centrality_scores,
    load_recap,
    novelty_scores,
    recency_scores,
    render_block,
    render_recap,
    salience_scores,
    save_recap,
    select,
)
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.summarize import LLMSummarizer, Summary
from chunkscope.engine.tokens import get_counter
from tests.fakeserver import FakeOpenAIServer

COUNTER = get_counter()
FILE_SECRET = "ZEBRA_CONTENT_THAT_MUST_NOT_LEAK"


# --------------------------------------------------------------------------- a small log


def make_log(path: Path, topics: int = 6) -> Path:
    """A session log with tool calls whose results hold raw file contents."""
    rows: list[dict[str, Any]] = []
    t = datetime(2026, 2, 13, 9, 0, 0)
    n = 0

    def stamp() -> str:
        nonlocal t
        t = t.replace(second=0) if t.second > 50 else t
        t = datetime.fromtimestamp(t.timestamp() + 37)
        return t.isoformat(timespec="seconds")

    subjects = [
        ("cache", "The embedding cache forgets every vector when the workbench exits."),
        ("sqlite", "Writing each vector in its own transaction makes the SQLite store slow."),
        ("budget", "The recap budget counts real tokens of the rendered text."),
        ("merge", "The merge loop joins neighbouring chunks whose similarity is high."),
        ("theme", "The dark theme renders code blocks with too little contrast."),
        ("release", "The release checklist needs a changelog entry and a version bump."),
        ("parser", "The markdown parser must not split a section at a fenced comment."),
        ("docs", "The docs tree moves the guides under one folder with an index."),
    ]
    rows.append({"role": "system", "content": "[stats] session start", "timestamp": stamp()})
    for k in range(topics):
        word, sentence = subjects[k % len(subjects)]
        rows.append(
            {
                "role": "user",
                "content": f"Please look at the {word} problem. {sentence}",
                "timestamp": stamp(),
            }
        )
        n += 1
        rows.append(
            {
                "role": "assistant",
                "content": "",
                "reasoning": f"I should read the {word} module first. {sentence}\n\n"
                f"I will check how the {word} code handles this case.",
                "tool_calls": [
                    {
                        "id": f"c{n}",
                        "type": "function",
                        "function": {
                            "name": "read",
                            "arguments": json.dumps({"path": f"{word}.py"}),
                        },
                    },
                ],
                "timestamp": stamp(),
            }
        )
        rows.append(
            {
                "role": "tool",
                "tool_call_id": f"c{n}",
                "content": f"def {word}():\n    return '{FILE_SECRET}'\n\n# end of file\n",
                "timestamp": stamp(),
            }
        )
        n += 1
        rows.append(
            {
                "role": "assistant",
                "content": f"I changed the {word} code so the {word} problem is fixed.\n\n"
                f"The {word} tests pass now and the {word} behaviour is documented.",
                "tool_calls": [
                    {
                        "id": f"c{n}",
                        "type": "function",
                        "function": {
                            "name": "edit",
                            "arguments": json.dumps(
                                {"path": f"{word}.py", "old": "a", "new": FILE_SECRET}
                            ),
                        },
                    },
                ],
                "timestamp": stamp(),
            }
        )
        rows.append(
            {"role": "tool", "tool_call_id": f"c{n}", "content": "Edited.", "timestamp": stamp()}
        )
    rows.append({"role": "system", "content": "[stop] agent called done", "timestamp": stamp()})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return make_log(tmp_path / "session.jsonl")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


# --------------------------------------------------------------------------- scoring


def test_recency() -> None:
    assert recency_scores(4) == [0.25, 0.5, 0.75, 1.0]
    assert recency_scores(0) == []


def test_centrality_over_its_row_limit_is_an_error_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The salience scorer's graph is n x n: a 21 MB log's 27,872 merged chunks needed
    6.2 GB and the process died of a segfault. Over the limit it is one clear error (the
    CLI: exit 2, one line), and at the limit the scores are what they were."""
    from chunkscope.engine.errors import ChunkscopeError
    from chunkscope.engine.recap import core
    from chunkscope.tui.cli import main

    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(40, 6))
    want = centrality_scores(vectors)
    monkeypatch.setattr(core, "CENTRALITY_MAX_ROWS", 40)
    assert np.array_equal(centrality_scores(vectors), want)
    monkeypatch.setattr(core, "CENTRALITY_MAX_ROWS", 39)
    with pytest.raises(ChunkscopeError, match="40 here, over its limit of 39"):
        centrality_scores(vectors)
    monkeypatch.setattr(core, "CENTRALITY_MAX_ROWS", 3)
    out = tmp_path / "recap.md"
    from tests.pilot import SAMPLE

    assert main(["recap", str(SAMPLE), "--scorer", "salience", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "salience scorer" in err[0] and "recency" in err[0]
    assert not out.exists()


def test_centrality_prefers_the_hub() -> None:
    hub = [1.0, 1.0, 1.0]
    vectors = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], hub])
    c = centrality_scores(vectors)
    assert c.argmax() == 3
    assert c.max() == pytest.approx(1.0)
    assert np.allclose(c[:3], c[0])  # the three leaves are symmetric
    assert c[0] < 1.0
    assert centrality_scores(np.ones((3, 4))).tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert centrality_scores(np.ones((1, 4))).tolist() == [1.0]
    zero = centrality_scores(np.zeros((3, 2)))
    assert zero.tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert len(centrality_scores(np.zeros((0, 2)))) == 0


def test_novelty() -> None:
    v = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    assert novelty_scores(v).tolist() == [1.0, 1.0, 1.0]
    assert novelty_scores(v, np.zeros((0, 2))).tolist() == [1.0, 1.0, 1.0]
    got = novelty_scores(v, np.array([[3.0, 0.0]]))
    assert got.tolist() == pytest.approx([0.0, 1.0, 1 - 2**-0.5])
    with pytest.raises(ValueError, match="dims"):
        novelty_scores(v, np.ones((1, 3)))


def test_salience_is_the_product() -> None:
    v = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    nov = [0.5, 1.0, 0.25]
    got = salience_scores(v, novelty=nov)
    expected = np.array(nov) * centrality_scores(v) * np.array(recency_scores(3))
    assert got == pytest.approx(expected.tolist())
    weighted = salience_scores(v, novelty=nov, consequential=[0, 2, 1], alpha=0.5)
    assert weighted == pytest.approx((expected * [1.0, 2.0, 1.5]).tolist())
    assert action_weights([0, 3], 0.1).tolist() == pytest.approx([1.0, 1.3])
    with pytest.raises(ValueError):
        action_weights([1], -1.0)
    assert salience_scores(np.zeros((0, 2))) == []


# --------------------------------------------------------------------------- selection


def cand(i: int, text: str, score: float | None = None, **kw: Any) -> Candidate:
    start = datetime(2026, 2, 13, 9, i % 60, 0)
    end = datetime(2026, 2, 13, 9, i % 60, 30)
    return Candidate(
        index=i,
        summary=Summary(f"Abstract {i}.", text),
        score=float(i + 1) if score is None else score,
        time_range=f"{start:%H:%M:%S} - {end:%H:%M:%S}",
        start=start,
        end=end,
        **kw,
    )


def para(i: int, words: int) -> str:
    return f"Paragraph {i} says " + " ".join(f"w{i}x{j}" for j in range(words)) + "."


def test_select_keeps_the_newest_first_and_restores_order() -> None:
    cands = [cand(i, para(i, 10)) for i in range(5)]
    one = COUNTER.count(render_recap([cands[0]]))
    two = COUNTER.count(render_recap(cands[:2]))
    sel = select(cands, two + 1, COUNTER)
    assert [c.index for c in sel.selected] == [3, 4]
    assert [c.reason for c in sel.candidates] == ["over budget"] * 3 + ["kept", "kept"]
    assert sel.text == render_recap(sel.selected)
    assert sel.text.index("Paragraph 3") < sel.text.index("Paragraph 4")
    assert sel.used_tokens == COUNTER.count(sel.text) <= sel.budget
    assert not sel.newest_over_budget
    assert one < two


def test_select_skips_what_does_not_fit_and_tries_smaller_ones() -> None:
    cands = [cand(0, para(0, 5)), cand(1, para(1, 5)), cand(2, para(2, 200)), cand(3, para(3, 5))]
    budget = COUNTER.count(render_recap([cands[0], cands[1], cands[3]]))
    sel = select(cands, budget, COUNTER)
    assert [c.index for c in sel.selected] == [0, 1, 3]  # the reference would stop at 2
    assert sel.candidates[2].reason == "over budget"


def test_pinned_first_excluded_never() -> None:
    cands = [cand(i, para(i, 10)) for i in range(5)]
    budget = COUNTER.count(render_recap(cands[:2]))
    sel = select(cands, budget, COUNTER, pinned=[0], excluded=[4])
    assert [c.index for c in sel.selected] == [0, 3]
    reasons = [c.reason for c in sel.candidates]
    assert reasons == ["pinned", "over budget", "over budget", "kept", "excluded"]
    both = select(cands, 10_000, COUNTER, pinned=[1], excluded=[1])
    assert both.candidates[1].reason == "excluded" and not both.candidates[1].selected
    flagged = select([cand(0, "x", pinned=True), cand(1, "y", excluded=True)], 100, COUNTER)
    assert [c.reason for c in flagged.candidates] == ["pinned", "excluded"]


def test_newest_over_budget() -> None:
    cands = [cand(0, para(0, 50)), cand(1, para(1, 80)), cand(2, para(2, 60))]
    sel = select(cands, 10, COUNTER, excluded=[2])
    assert [c.index for c in sel.selected] == [1]
    assert sel.newest_over_budget
    assert sel.used_tokens == COUNTER.count(sel.text) > 10
    assert sel.candidates[1].reason == "kept"
    none = select(cands, 10, COUNTER, excluded=[0, 1, 2])
    assert none.text == "" and none.used_tokens == 0 and not none.newest_over_budget
    empty = select([], 100, COUNTER)
    assert empty.text == "" and empty.candidates == []


def test_a_candidate_without_summary_text_is_not_kept_and_says_why() -> None:
    """A merged chunk with no text to summarize (an HTML comment alone) has an empty
    summary: it is not kept (it was, at 0 tokens, with a blank row), pinned or not, and
    its reason says so; the others are selected as before."""
    cands = [cand(0, para(0, 5)), cand(1, ""), cand(2, para(2, 5)), cand(3, "")]
    cands[1] = replace(cands[1], summary=Summary("", ""))
    cands[3] = replace(cands[3], summary=Summary("", ""))
    sel = select(cands, 10_000, COUNTER, pinned=[3])
    assert [c.index for c in sel.selected] == [0, 2]
    assert [c.reason for c in sel.candidates] == ["kept", "no summary", "kept", "no summary"]
    assert sel.text == render_recap([cands[0], cands[2]])
    alone = select([replace(cands[1], index=0)], 100, COUNTER)
    assert alone.selected == [] and alone.text == "" and alone.used_tokens == 0


def test_select_validates_the_budget() -> None:
    with pytest.raises(ValueError):
        select([], -1, COUNTER)


def test_render_plain_and_with_headings() -> None:
    cands = [cand(0, "First summary."), cand(1, "Second summary.")]
    assert render_recap(cands) == "First summary.\n\nSecond summary.\n"
    assert render_recap(cands, headings=True) == (
        "## 09:00:00 - 09:00:30\n\nFirst summary.\n\n## 09:01:00 - 09:01:30\n\nSecond summary.\n"
    )
    assert render_recap([Summary("a", "b"), Summary("only abstract", "")]) == (
        "b\n\nonly abstract\n"
    )
    assert render_recap([]) == ""
    assert render_block(cands[0], headings=True).startswith("## 09:00:00 - 09:00:30\n\n")
    sel = select(cands, 1000, COUNTER, headings=True)
    assert sel.text == render_recap(cands, headings=True) == render_recap(sel)


def test_selection_json_contract() -> None:
    sel = select([cand(0, para(0, 3)), cand(1, para(1, 3))], 1000, COUNTER)
    doc = sel.as_dict()
    assert set(doc) == {
        "budget",
        "used_tokens",
        "newest_over_budget",
        "sections",
        "candidates",
        "recap",
    }
    assert set(doc["candidates"][0]) == {
        "index",
        "time_range",
        "abstract",
        "summary",
        "score",
        "tokens",
        "selected",
        "pinned",
        "reason",
    }
    assert doc["candidates"][0]["tokens"] == COUNTER.count(para(0, 3))
    json.dumps(doc)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[Candidate], int, list[int], list[int], bool]:
    n = draw(st.integers(0, 12))
    cands = []
    for i in range(n):
        words = draw(st.integers(0, 60))
        score = draw(st.floats(0, 1, allow_nan=False))
        text = para(i, words) if words else ""
        cands.append(cand(i, text, score))
    budget = draw(st.integers(0, 400))
    pinned = draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=3)) if n else []
    excluded = draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=3)) if n else []
    return cands, budget, pinned, excluded, draw(st.booleans())


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_selection_properties(
    scenario: tuple[list[Candidate], int, list[int], list[int], bool],
) -> None:
    cands, budget, pinned, excluded, headings = scenario
    sel = select(cands, budget, COUNTER, pinned=pinned, excluded=excluded, headings=headings)
    real = COUNTER.count(sel.text)
    assert sel.used_tokens == real
    chosen = sel.selected
    # Never over budget, unless the newest summary alone is.
    if sel.newest_over_budget:
        eligible = [c for c in cands if c.index not in excluded and c.summary.text]
        assert [c.index for c in chosen] == [max(c.index for c in eligible)]
        assert real > budget
        for c in eligible:  # nothing at all fitted
            assert COUNTER.count(render_recap([c], headings=headings)) > budget
    else:
        assert real <= budget
    # Excluded never; reasons match the flags.
    for c in sel.candidates:
        if c.index in excluded:
            assert not c.selected and c.reason == "excluded"
        elif c.selected:
            assert c.reason == ("pinned" if c.index in pinned else "kept")
        else:
            assert c.reason == "over budget"
    # Pinned ones are kept when they fit together.
    pins = [c for c in cands if c.index in pinned and c.index not in excluded]
    if pins and COUNTER.count(render_recap(pins, headings=headings)) <= budget:
        assert {c.index for c in pins} <= {c.index for c in chosen}
    # Chronological order, and the text is exactly the rendered picks.
    assert [c.index for c in chosen] == sorted(c.index for c in chosen)
    assert sel.text == render_recap(chosen, headings=headings)
    # Nothing left out would still fit.
    if not sel.newest_over_budget:
        for c in sel.candidates:
            if not c.selected and c.reason == "over budget":
                trial = sorted([*chosen, c], key=lambda x: x.index)
                assert COUNTER.count(render_recap(trial, headings=headings)) > budget


def test_select_is_fast_for_200_candidates() -> None:
    cands = [cand(i, para(i, 20 + i % 37), score=float((i * 7919) % 200)) for i in range(200)]
    select(cands, 1000, COUNTER)  # warm the counter's cache of paragraph counts
    t0 = time.perf_counter()
    sel = select(cands, 1000, COUNTER)
    elapsed = time.perf_counter() - t0
    assert sel.used_tokens <= 1000
    assert elapsed < 0.1, elapsed


# --------------------------------------------------------------------------- files


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "workspace" / "_recap.md"
    assert load_recap(path) is None
    path.parent.mkdir()  # a user's path: its folder must exist (walk 16, 10)
    save_recap(path, "First.\n\nSecond.\n")
    assert path.read_text() == "First.\n\nSecond.\n"
    assert load_recap(path) == "First.\n\nSecond."
    save_recap(path, "  \n\n")
    assert load_recap(path) is None
    assert [p.name for p in path.parent.iterdir()] == ["_recap.md"]


def test_failed_write_leaves_the_old_recap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "_recap.md"
    save_recap(path, "old recap\n")

    def boom(src: Any, dst: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_recap(path, "new recap\n")
    monkeypatch.undo()
    assert path.read_text() == "old recap\n"
    assert [p.name for p in tmp_path.iterdir()] == ["_recap.md"]  # no temp file left


def test_write_under_a_file_fails_cleanly(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        save_recap(blocker / "_recap.md", "text")
    assert blocker.read_text() == "x"


def test_load_recap_of_a_directory_is_none(tmp_path: Path) -> None:
    assert load_recap(tmp_path) is None


# --------------------------------------------------------------------------- pipeline


CAP = MergeParams(max_chunk_chars=700, mode="seed")


def pipeline(log: Path, **kw: Any) -> Pipeline:
    return Pipeline(log, PipelineParams(collapse=True, merge=CAP, **kw))


def test_pipeline_recap_memoises_summaries(log: Path) -> None:
    pipe = pipeline(log)
    merged = pipe.merged().chunks
    sel = pipe.recap(budget=150)
    assert len(sel.candidates) == len(merged) >= 2
    assert sel.used_tokens <= 150 or sel.newest_over_budget
    assert FILE_SECRET not in "".join(c.text for c in merged)
    assert pipe.runs["summarize"] == 1
    texts_summarized = pipe.summarized
    assert texts_summarized == len({c.text for c in merged})

    # Re-selecting (budget, pins, headings) does not summarize again.
    again = pipe.recap(budget=10_000, pinned=(0,), headings=True)
    assert all(c.selected for c in again.candidates)
    assert again.candidates[0].reason == "pinned"
    assert pipe.runs["summarize"] == 1

    # A merge parameter that leaves the merged texts as they were costs no summaries.
    pipe = pipe.with_params(merge=MergeParams(max_chunk_chars=700, max_passes=1000, mode="seed"))
    assert [c.text for c in pipe.merged().chunks] == [c.text for c in merged]
    pipe.summaries()
    assert pipe.runs["summarize"] == 2
    assert pipe.summarized == texts_summarized

    # A change that makes new texts summarizes only those.
    pipe = pipe.with_params(merge=MergeParams(max_chunk_chars=300, mode="seed"))
    new_texts = {c.text for c in pipe.merged().chunks}
    pipe.summaries()
    assert pipe.summarized == texts_summarized + len(new_texts - {c.text for c in merged})


def test_summary_for_a_single_chunk(log: Path) -> None:
    pipe = pipeline(log)
    assert pipe.known_summary(0) is None
    one = pipe.summary_for(1)
    assert pipe.summarized == 1
    assert pipe.known_summary(1) == one
    assert pipe.summaries()[1] == one
    with pytest.raises(IndexError):
        pipe.summary_for(len(pipe.merged().chunks))
    assert pipe.known_summary(999) is None


def test_pipeline_salience_scores(log: Path) -> None:
    pipe = pipeline(log)
    n = len(pipe.merged().chunks)
    plain = pipe.scores("salience")
    assert len(plain) == n and all(0 <= s <= 1 for s in plain)
    counts = pipe.consequential_counts()
    assert sum(counts) == 6  # one edit per topic
    weighted = pipe.scores("salience", alpha=0.5)
    assert weighted == pytest.approx(
        [s * (1 + 0.5 * k) for s, k in zip(plain, counts, strict=True)]
    )
    # A memory that repeats a chunk makes that chunk less novel.
    memory = pipe.merged().chunks[0].text
    novelty = pipe.novelty((memory,))
    assert novelty[0] == pytest.approx(0.0, abs=1e-6)
    assert pipe.scores("salience", memories=(memory,))[0] == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError):
        pipe.scores("magic")  # type: ignore[arg-type]
    sel = pipe.recap(budget=200, scorer="salience", memories=(memory,), alpha=0.2)
    assert sel.used_tokens <= 200 or sel.newest_over_budget


@pytest.fixture
def chat_server() -> Iterator[FakeOpenAIServer]:
    def reply(body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        n = len(user)
        return f"ABSTRACT: I worked on {n} chars.\nSUMMARY: I did things. I wrote {n}."

    with FakeOpenAIServer(chat_reply=reply) as s:
        yield s


def test_pipeline_llm_summaries_are_cached_on_disk(
    log: Path, chat_server: FakeOpenAIServer
) -> None:
    spec = SummarizerSpec(name="llm", model="fake-chat", base_url=chat_server.base_url, workers=3)
    first = pipeline(log, summarizer=spec)
    sel = first.recap(budget=1000, plain=True)
    n = len(first.merged().chunks)
    assert len(chat_server.requests_to("/chat/completions")) == n
    assert all(c.summary.source == "llm" for c in sel.candidates)
    assert sel.text.count("I did things.") == 1  # said once, however many summaries say it

    chat_server.reset()
    second = pipeline(log, summarizer=spec)
    assert second.recap(budget=1000, plain=True).text == sel.text
    assert chat_server.requests == []


def test_pipeline_set_summarizer(log: Path, chat_server: FakeOpenAIServer) -> None:
    pipe = pipeline(log)
    pipe.set_summarizer(LLMSummarizer("m", chat_server.base_url, "k", backoff=0.01))
    assert pipe.summaries()[0].source == "llm"


def test_a_summary_repeating_a_long_sentence_said_earlier_loses_it() -> None:
    """A sentence that holds a long sentence said already (by the sections or by a
    candidate ahead in priority) is taken out; a short one inside a longer one is not."""
    from chunkscope.engine.recap.core import _deduped

    said = "The cache now persists embeddings in SQLite across restarts"
    texts = [
        f"{said}. Then the tests ran.",
        f"We checked that {said.lower()} and more. Also ok.",
        "The cache. Something new entirely here.",
    ]
    cands = [cand(i, t, score=3.0 - i) for i, t in enumerate(texts)]
    out = [c.summary.summary for c in _deduped(cands, "")]
    assert said in out[0]
    assert "We checked" not in out[1] and "Also ok." in out[1]
    assert "Something new entirely here." in out[2]


def test_a_candidate_the_dedupe_empties_is_said_already_not_kept() -> None:
    """Every sentence of its summary (and abstract) said by the sections: nothing to
    add, so it is not "kept" but has its own reason, and shows its own summary and its
    tokens (it read "0t said already" with no text: what was said could not be seen)."""
    said = cand(0, "The cache persists embeddings in SQLite across restarts now.", score=1.0)
    said = replace(said, summary=Summary("", said.summary.summary))
    fresh = cand(1, para(1, 6), score=2.0)
    prefix = "## Done\n\n- The cache persists embeddings in SQLite across restarts now."
    sel = select([said, fresh], 1000, COUNTER, prefix=prefix, dedupe=True)
    by = {c.index: c for c in sel.candidates}
    assert by[0].reason == "said already" and not by[0].selected
    assert by[0].summary == said.summary
    assert by[0].tokens == COUNTER.count(render_block(said, False)) > 0
    assert said.summary.summary not in sel.text.partition(SUMMARIES_HEADING)[2]
    assert by[1].reason == "kept" and by[1].selected


def test_more_room_for_the_sections_never_drops_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once the summaries leave budget over, the sections are fitted again in more
    room: that refit may widen them, never drop "Where it stopped" for a longer task."""
    from chunkscope.tui.cli import main

    sample = Path(__file__).resolve().parents[1] / "sample_logs" / "cache_refactor.jsonl"
    assert main(["recap", str(sample), "--budget", "400", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    names = [s["name"] for s in doc["sections"]]
    assert "last" in names and "state" in names
    assert doc["used_tokens"] <= 400


_PHRASES = [
    "the cache keeps the last vectors",
    "the cache keeps the last vectors and drops the rest",
    "we renamed the parser",
    "tests pass on the merge branch now",
    "so tests pass on the merge branch now, after the fix",
    "the cache keeps the last vectors of each row",
    "é vérifié: the cache keeps the last vectors",
]


@settings(max_examples=60, deadline=None)
@given(
    picks=st.lists(
        st.lists(st.integers(0, len(_PHRASES) - 1), min_size=1, max_size=4), max_size=12
    ),
    excluded=st.sets(st.integers(0, 11)),
    batch=st.integers(1, 5),
)
def test_dedupe_leaves_out_what_a_sentence_said_before_holds(
    picks: list[list[int]], excluded: set[int], batch: int
) -> None:
    """A sentence is left out when it is one said before, or holds one of 30 characters
    or more said before: the window hashes only screen, the plain substring rule decides
    (checked against that rule, in batches of any size). An excluded candidate says
    nothing and keeps all of its own."""
    from chunkscope.engine.recap import core
    from chunkscope.engine.summarize.extractive import sentences_of

    cands = [
        cand(i, " ".join(_PHRASES[j].capitalize() + "." for j in js), excluded=i in excluded)
        for i, js in enumerate(picks)
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core, "_HASH_BATCH", batch)
        got = core._deduped(cands, "")
    seen: set[str] = set()
    order = sorted(range(len(cands)), key=lambda i: (cands[i].excluded, -cands[i].score, -i))
    for i in order:
        c, kept = cands[i], []
        for s in sentences_of(cands[i].summary.summary):
            key = core._norm(s)
            if c.excluded:  # no part of the recap: its own summary, as it is
                kept.append(key)
                continue
            if key in seen or any(len(k) >= core._QUOTED and k in key for k in seen):
                continue
            seen.add(key)
            kept.append(key)
        assert [core._norm(s) for s in sentences_of(got[i].summary.summary)] == kept


# --------------------------------------------------------------------------- log text is data

# A user's request and the assistant's last message open with markdown headings.
HEADED_LOG = [
    {"role": "user", "content": "# Goal\nMake the parser strict about bad lines.\n# Notes\nKeep."},
    {"role": "assistant", "content": "I will edit engine/parse.py to raise on bad lines."},
    {"role": "assistant", "content": "## Result\nThe parser raises ParseError; 12 tests pass."},
]


def markdown_headings(text: str) -> list[str]:
    """The headings a markdown renderer (CommonMark) reads in `text`, as it shows them."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]


def recap_headings() -> set[str]:
    """The headings a recap writes itself: its sections' titles and the summaries'."""
    from chunkscope.engine.recap.core import SUMMARIES_HEADING
    from chunkscope.engine.recap.sections import SECTION_TITLES

    return {*SECTION_TITLES.values(), SUMMARIES_HEADING.lstrip("# ")}


@pytest.mark.parametrize("collapse", [True, False], ids=["collapsed", "raw"])
def test_the_recap_has_its_sections_and_only_its_own_headings_in_every_mode(
    tmp_path: Path, collapse: bool
) -> None:
    """Raw tool calls (the workbench's T) or collapsed, the recap opens with its sections
    (the raw parse keeps no messages: the sections read them all the same), and a log
    line opening with `#` stays a line of text, not a heading of the recap: folded into
    its section's line, its words without the marks (walk 26, F11: `\\## Summary`)."""
    path = tmp_path / "headed.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in HEADED_LOG) + "\n", encoding="utf-8")
    text = Pipeline(path, PipelineParams(collapse=collapse)).recap().text
    headings = markdown_headings(text)
    assert "Task" in headings and "Where it stopped" in headings
    assert set(headings) <= recap_headings(), headings
    assert "Goal: Make the parser strict about bad lines." in text and "#" not in text.replace(
        "## ", ""
    )


@pytest.mark.parametrize("name", ["docs_cleanup.jsonl", "research_notes.jsonl"])
def test_a_raw_recap_of_a_sample_keeps_its_sections_and_no_heading_of_the_log(name: str) -> None:
    """The samples whose chunk summaries open with a log's `# Changelog` / `## Sun 5
    April` line: in raw mode those were headings of the recap, and it had no sections."""
    sample = Path(__file__).resolve().parents[1] / "sample_logs" / name
    text = Pipeline(sample, PipelineParams(collapse=False)).recap().text
    headings = markdown_headings(text)
    assert "Task" in headings
    assert set(headings) <= recap_headings(), headings


def test_a_summary_opening_with_a_hash_renders_as_text() -> None:
    cand = Candidate(0, Summary("# install the deps first.", "# install the deps first. pip."), 1)
    assert render_block(cand) == "\\# install the deps first. pip."
    assert markdown_headings(render_recap([cand])) == []
    assert markdown_headings(render_block(replace(cand, time_range="09:00 - 09:01"), True)) == [
        "09:00 - 09:01"
    ]


_md_line = st.one_of(
    st.sampled_from(["# a", "## b c", "   ### d", "#", "###### e", "####### f", "#tag", "x # y"]),
    st.sampled_from(["    # code", "\t# tab", "#\tg", "- # item", "> # quote", "1. # n", "text"]),
    st.text(alphabet=" #ab\t->1.*=", max_size=10),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_md_line, max_size=8))
def test_literal_markdown_leaves_no_heading_and_only_adds_backslashes(lines: list[str]) -> None:
    from chunkscope.engine.textutil import literal_markdown

    text = "\n".join(lines)
    out = literal_markdown(text)
    assert markdown_headings(out) == []
    assert out.replace("\\", "") == text  # only backslashes added (the text has none)


def test_a_fenced_block_in_the_task_reads_as_inline_code() -> None:
    """Walk 8's open item: the Task line folded a request's code blocks into its words
    (``as follows: ```python division(23, 0) ``` but I get``): each block is inline code
    now, without its language's name, and no fence is left in the Task."""
    from chunkscope.engine.recap.sections import extract_sections

    root = Path(__file__).resolve().parents[1]
    path = root / "tests/fixtures/mini-swe-agent/github_issue.traj.json"
    task = Pipeline(path, PipelineParams()).recap().text.split("## Task\n", 1)[1]
    task = task.split("\n## ", 1)[0]
    assert "```" not in task and "python division" not in task, task
    assert "as follows: `division(23, 0)` but I get the following error: `File " in task
    # a later request's block too, a backtick in the code kept by a longer span, and
    # an unclosed block running to the end
    messages = [
        {"role": "user", "content": "Fix it:\n```py\nx = `1`\n```\nplease"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Also this:\n~~~\nrm -rf build\nmake"},
    ]
    (task_lines,) = [s.lines for s in extract_sections(messages) if s.name == "task"]
    assert task_lines[0] == "Fix it: `` x = `1` `` please", task_lines
    assert task_lines[1] == "Later: Also this: `rm -rf build make`", task_lines


def test_dedup_keeps_the_summarizers_abstract_when_it_survives() -> None:
    """Walk 17, 4: a summary whose first sentence the recap had said already (in its
    Task) kept its own abstract, a later sentence, yet the recap named the first sentence
    left its abstract: the Summary panel and the recap list showed two abstracts of one
    chunk. The abstract is the summarizer's while it is kept, else the first one left."""
    from chunkscope.engine.recap.core import _deduped

    text = "Keep the public API the same. Then plan it. Check the budget before touching code."
    cand = Candidate(0, Summary("Check the budget before touching code.", text), 1.0)
    prefix = "## Task\n- Keep the public API the same."
    (kept,) = _deduped([cand], prefix)
    assert kept.summary.summary == "Then plan it. Check the budget before touching code."
    assert kept.summary.abstract == "Check the budget before touching code."
    # its abstract said already: the first sentence left stands in for it
    cand = replace(cand, summary=Summary("Keep the public API the same.", text))
    (kept,) = _deduped([cand], prefix)
    assert kept.summary.abstract == "Then plan it."
