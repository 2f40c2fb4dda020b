"""Retrieval scores wherever a segmentation score is: `eval`, `sweep` and `tune` with
``--queries``, and the report's "Questions answered"."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.pipeline import Pipeline
from chunkscope.engine.search import Query, SearchParams, retrieval_score
from chunkscope.tui.cli import main
from tests.pilot import ROOT

DOC = ROOT / "sample_logs" / "shell_cookbook.md"
LOG = ROOT / "sample_logs" / "research_notes.jsonl"
QUERIES = {
    "queries": [
        {
            "query": "Which exit code tells me a command was killed by timeout?",
            "answers": ["exit status 124 means it timed out"],
        },
        {
            "query": "How do I undo my last commit without losing the edits?",
            "answers": ["git reset --soft HEAD~1"],
        },
        {
            "query": "in what order is the cache directory location resolved",
            "answers": ["an explicit override wins, then XDG, then ~/.cache"],
        },
        {"query": "a question nothing answers", "answers": ["no such text anywhere"]},
    ]
}


@pytest.fixture
def queries(tmp_path: Path) -> Path:
    q = tmp_path / "q.json"
    q.write_text(json.dumps(QUERIES))
    return q


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--format", "json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _expected(**topic: Any) -> Any:
    from chunkscope.engine.pipeline import PipelineParams
    from chunkscope.engine.segment.segmenter import TopicParams

    qs = [Query(q["query"], tuple(q["answers"])) for q in QUERIES["queries"]]
    pipe = Pipeline(DOC, PipelineParams(topic=TopicParams(**topic)))
    return retrieval_score(pipe, qs, SearchParams())


def test_eval_queries_scores_what_search_answers(
    capsys: pytest.CaptureFixture[str], queries: Path, isolated: Path
) -> None:
    doc = _json(capsys, "eval", str(DOC), "--queries", str(queries))
    r = doc["retrieval"]
    want = _expected()
    assert r["queries"] == 4 and r["unanswerable"] == 1
    assert r["hit_rate"] == pytest.approx(round(want.hit_rate, 4)) and r["hit_rate"] >= 0.5
    assert r["mrr"] == pytest.approx(round(want.mrr, 4))
    assert [q["hit"] for q in r["per_query"]][-1] is False
    assert r["per_query"][-1]["rank"] is None
    assert r["budget"] == 1000 and r["ranker"] == "bm25"
    assert "pk" not in doc  # no gold given
    # the text: the scores and a line per query
    assert main(["eval", str(DOC), "--queries", str(queries), "--budget", "200"]) == 0
    out = capsys.readouterr().out
    assert "hit rate" in out and "budget 200 tokens" in out
    assert "miss  unranked  a question nothing answers" in out


def test_eval_takes_gold_and_queries_together_and_needs_one(
    capsys: pytest.CaptureFixture[str], queries: Path, tmp_path: Path, isolated: Path
) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('{"starts": [1, 20]}')
    doc = _json(capsys, "eval", str(DOC), "--gold", str(gold), "--queries", str(queries))
    assert "pk" in doc and "retrieval" in doc
    assert main(["eval", str(DOC)]) == 2
    err = capsys.readouterr().err
    assert "give --gold GOLD, --queries Q.json or both" in err and len(err.splitlines()) == 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"queries": [{"query": "x", "lines": [3]}]}')
    assert main(["eval", str(DOC), "--queries", str(bad)]) == 2
    assert f"{bad}:1:" in capsys.readouterr().err


def test_sweep_queries_hit_rate_per_value(
    capsys: pytest.CaptureFixture[str], queries: Path, isolated: Path
) -> None:
    doc = _json(
        capsys, "sweep", str(DOC), "--param", "topic-chunk-tokens", "--from", "0", "--to",
        "400", "--points", "3", "--queries", str(queries),
    )  # fmt: skip
    points = doc["points"]
    assert [p["value"] for p in points] == [0, 200, 400]
    for p in points:
        want = _expected(topic_chunk_tokens=p["value"])
        assert p["hit_rate"] == pytest.approx(round(want.hit_rate, 6))
        assert p["mrr"] == pytest.approx(round(want.mrr, 6))
    assert doc["search"] == {"ranker": "bm25", "budget": 1000}


def test_tune_queries_ranks_by_hit_rate_then_mrr_and_saves_a_profile(
    capsys: pytest.CaptureFixture[str], queries: Path, isolated: Path
) -> None:
    grid = ["--grid", "topic-chunk-tokens=0,100,200", "--grid", "topic-depth=7"]
    doc = _json(capsys, "tune", str(DOC), "--queries", str(queries), *grid, "--save-profile", "rag")
    best = doc["best"]
    assert len(best) == 3
    current = doc["current"]
    # a setting ranks above the one in force only when it answers 2 questions more
    clearly = [b for b in best if b["hits"] >= current["hits"] + 2]
    assert best[: len(clearly)] == clearly
    keys = [(-b["hit_rate"], -b["mrr"]) for b in clearly]
    assert keys == sorted(keys)
    rest = best[len(clearly) :]
    if rest and current["values"] in [b["values"] for b in best]:
        assert rest[0]["values"] == current["values"]
    for b in best:
        want = _expected(**b["values"])
        assert b["hit_rate"] == pytest.approx(round(want.hit_rate, 6))
    capsys.readouterr()
    # the profile carries the best setting into every command
    top = best[0]["values"]["topic_chunk_tokens"]
    again = _json(capsys, "eval", str(DOC), "--queries", str(queries), "--profile", "rag")
    assert again["retrieval"]["hit_rate"] == pytest.approx(round(best[0]["hit_rate"], 4))
    assert again["retrieval"]["mrr"] == pytest.approx(round(best[0]["mrr"], 4))
    assert main(["profile", "show", "rag"]) == 0
    assert re.search(rf"topic_chunk_tokens\s+{top}\b", capsys.readouterr().out)


def test_tune_needs_gold_or_queries_one_per_file(
    capsys: pytest.CaptureFixture[str], queries: Path, isolated: Path
) -> None:
    assert main(["tune", str(DOC)]) == 2
    assert "--gold GOLD... (topic starts) or --queries Q.json..." in capsys.readouterr().err
    assert main(["tune", str(DOC), str(LOG), "--queries", str(queries)]) == 2
    assert "2 files but 1 query file" in capsys.readouterr().err
    gold = queries.with_name("g.json")
    gold.write_text('{"starts": [1]}', encoding="utf-8")
    assert main(["tune", str(DOC), "--gold", str(gold), "--queries", str(queries)]) == 2
    err = capsys.readouterr().err  # walk 10, 5: both given read as neither given
    assert "--gold and --queries: give one of them, not both" in err and "\n" not in err[:-1]


def test_report_shows_the_questions_answered(
    queries: Path, tmp_path: Path, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(DOC), "--queries", str(queries), "-o", str(out)]) == 0
    page = out.read_text()
    assert '<h2 id="retrieval">Questions answered</h2>' in page
    assert "a question nothing answers" in page
    want = _expected()
    assert f"{want.hit_rate:.3f}" in page


def test_scores_need_a_query_that_says_what_answers_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, isolated: Path
) -> None:
    typed = tmp_path / "typed.json"
    typed.write_text('{"queries": ["what is a cache"]}')
    for argv in (
        ["eval", str(DOC), "--queries", str(typed)],
        ["sweep", str(DOC), "--param", "topic-depth", "--queries", str(typed)],
        ["tune", str(DOC), "--queries", str(typed)],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{typed}:1: no query says what answers it" in err and len(err.splitlines()) == 1


def test_tune_queries_refuses_a_seed_token_cap_it_would_drop(
    capsys: pytest.CaptureFixture[str], queries: Path, isolated: Path
) -> None:
    argv = ["tune", str(DOC), "--queries", str(queries), "--merge", "seed", "--max-tokens", "200"]
    assert main(argv) == 2
    assert "drop --max-tokens" in capsys.readouterr().err


def test_tune_lists_the_settings_after_the_ones_in_force_by_hit_rate_then_mrr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Walk 10, 2: on an aider chat, `tune --queries` listed a setting of hit rate 0.833
    above ones of 1.000 (the rest ranked by nearness alone) under a title saying "by mean
    hit rate, then MRR"; the title says the rule and the rows follow it."""
    chat = ROOT / "tests/fixtures/aider/metadata-aider.aider.chat.history.md"
    qs = ROOT / "bench/retrieval_data/aider-metadata.queries.json"
    doc = _json(capsys, "tune", str(chat), "--queries", str(qs))
    best, current = doc["best"], doc["current"]
    keys = [(-round(t["hit_rate"], 9), -round(t["mrr"], 9)) for t in best]
    at = next(i for i, t in enumerate(best) if t["values"] == current["values"])
    assert keys[at + 1 :] == sorted(keys[at + 1 :]), best
    assert main(["tune", str(chat), "--queries", str(qs)]) == 0
    title = capsys.readouterr().out.splitlines()[0]
    assert "the settings in force first unless one answers 2 more questions" in title


def test_eval_counts_one_merged_chunk_in_the_singular(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, isolated: Path
) -> None:
    # walk 13, 9: '1 topic in 1 merged chunks'
    log = tmp_path / "one.jsonl"
    log.write_text('{"role": "user", "content": "make the cache survive restarts"}\n')
    gold = tmp_path / "gold.json"
    gold.write_text('{"starts": [1]}')
    assert main(["eval", str(log), "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    assert ": 1 topic in 1 merged chunk (merge " in out, out
