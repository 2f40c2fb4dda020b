"""Partial marks (`engine.evaluate.gold`, `engine.evaluate.measure`): a gold file that names only
some
topic starts is scored over the stretch it covers, and `tune` ranks settings by
finding the starts first (F1 over the stretch), then Pk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.evaluate.gold import (
    GoldError,
    dumps_gold,
    load_file_marks,
    load_marks,
    marks_path,
    parse_gold_file,
    save_marks,
)
from chunkscope.engine.evaluate.measure import (
    TUNE_GRIDS,
    Case,
    Tuned,
    chunk_starts,
    line_weights,
    marked_stretch,
    score,
    tune,
    tuning_segmenter,
)
from chunkscope.engine.pipeline import Pipeline, PipelineParams

# --------------------------------------------------------------------------- the format


def test_the_partial_flag_is_read_written_and_checked() -> None:
    assert parse_gold_file('{"starts": [1, 40, 97], "partial": true}').partial
    assert not parse_gold_file('{"starts": [1, 40], "partial": false}').partial
    assert not parse_gold_file('{"starts": [1, 40]}').partial  # a gold file is complete
    assert not parse_gold_file("1\n40\n").partial
    assert parse_gold_file(dumps_gold([40, 1], partial=True)).starts == (1, 40)
    assert json.loads(dumps_gold([40], partial=True)) == {"starts": [40], "partial": True}
    assert json.loads(dumps_gold([40])) == {"starts": [40]}
    with pytest.raises(GoldError, match=r'^g:1: "partial" is \'yes\', expected true or false$'):
        parse_gold_file('{"starts": [1, 40], "partial": "yes"}', "g")
    with pytest.raises(GoldError, match=r"^g:1: partial gold needs a topic start after line 1$"):
        parse_gold_file('{"starts": [1], "partial": true}', "g")


def test_marks_keep_their_flag_and_are_partial_unless_told(isolated: Path) -> None:
    source = isolated / "log.jsonl"
    source.write_text("a\nb\nc\n")
    assert load_file_marks(source).partial and load_file_marks(source).starts == ()
    save_marks(source, [2, 3], partial=False)
    assert load_file_marks(source).partial is False
    assert load_marks(source) == [2, 3]
    save_marks(source, [3])
    assert load_file_marks(source).partial is True
    # A marks file written before the flag existed: marks made in the workbench.
    marks_path(source).write_text('{"starts": [2]}\n')
    assert load_file_marks(source).partial is True


# --------------------------------------------------------------------------- scoring

LINES = 120


def _weights(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(20, 400, LINES).astype(np.int64)


marks_st = st.lists(st.integers(10, LINES - 10), min_size=1, max_size=5, unique=True).map(sorted)
cuts_st = st.lists(st.integers(2, LINES), max_size=15, unique=True)


@settings(max_examples=150, deadline=None)
@given(marks_st, cuts_st, cuts_st, st.integers(0, 3))
def test_cuts_outside_the_stretch_never_change_the_score(
    marks: list[int], cuts: list[int], extra: list[int], seed: int
) -> None:
    weights = _weights(seed)
    stretch = marked_stretch(marks, LINES)
    assert stretch is not None
    lo, hi = stretch
    outside = [c for c in extra if not lo <= c <= hi]
    gold = [1, *marks]
    base = score(sorted({1, *cuts}), gold, weights, partial=True)
    more = score(sorted({1, *cuts, *outside}), gold, weights, partial=True)
    assert base == more
    assert base.stretch == stretch and base.partial
    for value in (base.pk, base.windowdiff, base.precision, base.recall, base.f1):
        assert 0.0 <= value <= 1.0
    assert base.gold_segments == len(marks) + 1
    assert base.chunks == 1 + len([c for c in cuts if lo <= c <= hi])


@settings(max_examples=150, deadline=None)
@given(marks_st, cuts_st, cuts_st, st.integers(0, 3))
def test_a_setting_that_finds_every_mark_never_ranks_below_one_that_finds_none(
    marks: list[int], extra: list[int], other: list[int], seed: int
) -> None:
    weights = _weights(seed)
    gold = [1, *marks]
    finds = sorted({1, *marks, *extra})  # every mark, and any other cuts
    misses = sorted({1, *(c for c in other if all(abs(c - m) > 2 for m in marks))})
    a = Tuned.of({"a": 1}, [score(finds, gold, weights, partial=True)], [len(finds)])
    b = Tuned.of({"b": 1}, [score(misses, gold, weights, partial=True)], [len(misses)])
    assert a.recall == 1.0 and b.recall == 0.0
    assert a.objective() < b.objective()


def test_inside_the_stretch_an_unmarked_cut_is_spurious_and_outside_it_is_not_scored() -> None:
    weights = np.full(LINES, 100, dtype=np.int64)
    gold = [1, 40, 60]
    exact = score([1, 40, 60], gold, weights, partial=True)
    assert (exact.pk, exact.windowdiff, exact.f1) == (0.0, 0.0, 1.0)
    assert exact.stretch == (38, 62) and (exact.chunks, exact.gold_segments) == (3, 3)
    # Cuts far from the marks, before and after the stretch: the same scores.
    assert score([1, 10, 20, 40, 60, 90, 110], gold, weights, partial=True) == exact
    # One cut between the marks that is none of them: spurious.
    inside = score([1, 40, 50, 60], gold, weights, partial=True)
    assert inside.precision == pytest.approx(2 / 3) and inside.recall == 1.0
    assert inside.pk > 0.0
    # The same gold, complete: the cuts outside the stretch are spurious too.
    assert score([1, 10, 40, 60], gold, weights).precision == pytest.approx(2 / 3)


def test_cutting_everywhere_is_not_the_optimum() -> None:
    """The degenerate optimum of recall alone: a cut at every line finds every mark, but
    it ranks below the setting that cuts at the marks and a few more, and above one
    that finds nothing (one chunk)."""
    weights = np.full(LINES, 100, dtype=np.int64)
    gold = [1, 30, 55, 80]

    def tuned(cuts: list[int]) -> Tuned:
        return Tuned.of({}, [score(cuts, gold, weights, partial=True)], [len(cuts)])

    everywhere = tuned(list(range(1, LINES + 1)))
    close = tuned([1, 12, 30, 44, 55, 80, 100])
    nothing = tuned([1])
    assert everywhere.recall == 1.0 and everywhere.f1 < 0.15
    assert close.objective() < everywhere.objective() < nothing.objective()
    ranked = sorted([nothing, everywhere, close], key=Tuned.objective)
    assert ranked == [close, everywhere, nothing]


# --------------------------------------------------------------------------- tuning on two marks

TOPICS8 = [
    "sqlite cache eviction vectors rows table schema migration lru expiry",
    "tide pools anemones crabs snails seaweed rocks ocean waves shore",
    "invoice receipt deduction income bracket refund filing audit ledger",
    "sourdough starter flour hydration crumb oven proofing dough crust",
    "bicycle chain derailleur gears spokes tyre brake saddle cassette",
    "telescope nebula orbit planet comet eyepiece galaxy stars lens",
    "garden tomatoes compost mulch seedlings watering beds soil weeds",
    "violin bow strings rosin tuning scales vibrato sheet rehearsal",
]
COMMON = [
    "the",
    "this",
    "that",
    "with",
    "from",
    "then",
    "check",
    "make",
    "sure",
    "look",
    "again",
    "next",
    "step",
    "also",
    "maybe",
    "works",
    "fine",
    "because",
    "should",
    "would",
    "could",
    "first",
    "second",
    "change",
    "keep",
    "about",
]


def _text(rng: np.random.Generator, words: list[str], n: int) -> str:
    """`n` words of a topic's session text: one in five the topic's own, the rest common."""
    return " ".join(
        str(rng.choice(words)) if rng.random() > 0.8 else str(rng.choice(COMMON)) for _ in range(n)
    )


def _session(path: Path, seed: int) -> list[int]:
    """An 8-topic session (a user turn, then 4-7 answers a topic) in which most words
    are common to every topic: its gold topic starts."""
    rng = np.random.default_rng(seed)
    lines: list[dict[str, str]] = []
    gold: list[int] = []
    for t in rng.permutation(len(TOPICS8)):
        gold.append(len(lines) + 1)
        words = TOPICS8[t].split()

        lines.append({"role": "user", "content": "Next: " + _text(rng, words, 12)})
        lines += [
            {"role": "assistant", "content": _text(rng, words, 40)}
            for _ in range(rng.integers(4, 8))
        ]
    path.write_text("".join(json.dumps(m) + "\n" for m in lines))
    return gold


@pytest.mark.parametrize("seed", [3, 0])
def test_tuned_on_two_partial_marks_the_setting_finds_them_and_the_other_topics(
    tmp_path: Path, isolated: Path, seed: int
) -> None:
    """Two adjacent topic starts marked in an 8-topic session (where Pk over the whole
    file against the two marks chose 1 or 4 topics, missing a mark): the best setting
    finds both marks, without spurious cuts between them, and cuts the file into at
    least 4 topics."""
    log = tmp_path / "session.jsonl"
    gold = _session(log, seed)
    assert len(gold) == 8
    pipe = Pipeline(str(log), PipelineParams())
    weights = line_weights(log)
    marks = [1, gold[3], gold[4]]
    case = Case.of_pipeline(pipe, marks, weights, partial=True)
    segmenter = tuning_segmenter(Tuning(), "topic")
    grid = TUNE_GRIDS["topic"]
    best = tune([case], segmenter, grid, top=1, prefer=Tuning().values())[0]
    assert best.recall == 1.0 and best.f1 >= 0.6
    chunks = segmenter(case, best.values)
    assert len(chunks) >= 4 and best.chunks == len(chunks)
    starts = chunk_starts(chunks)
    over_stretch = score(starts, marks, weights, partial=True)
    assert (over_stretch.recall, over_stretch.f1) == (best.recall, best.f1)
    assert score(starts, gold, weights).f1 >= 0.6  # against every topic of the file


# --------------------------------------------------------------------------- the command line


def test_eval_json_reports_the_same_keys_over_the_marked_stretch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    from chunkscope.tui.cli import main

    log = tmp_path / "session.jsonl"
    gold = _session(log, 3)
    marks = [gold[3], gold[4]]
    partial = tmp_path / "partial.gold.json"
    partial.write_text(dumps_gold(marks, partial=True))
    assert main(["eval", str(log), "--gold", str(partial), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    keys = {"pk", "windowdiff", "precision", "recall", "f1", "chunks", "gold_segments"}
    assert keys <= set(doc)
    assert doc["partial"] is True and doc["gold_segments"] == 3
    lo, hi = doc["stretch"]
    assert (lo, hi) == (marks[0] - 2, marks[1] + 2)
    # The same numbers as the engine's, from the chunks `chunk --embed` gives.
    result = Pipeline(str(log), PipelineParams()).merged()
    merged, topics = result.chunks, result.topic_chunks  # the topic starts are scored
    want = score(chunk_starts(topics), marks, line_weights(log), partial=True).as_dict()
    assert {k: doc[k] for k in keys} == {k: want[k] for k in keys}
    assert doc["file_chunks"] == len(merged) and doc["topics"] == len(topics) >= doc["chunks"]
    # The same starts as a complete gold file: scored over the whole file.
    complete = tmp_path / "complete.gold.json"
    complete.write_text(dumps_gold(marks))
    assert main(["eval", str(log), "--gold", str(complete), "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["partial"] is False and whole["stretch"] is None
    assert whole["chunks"] == len(merged) and whole["precision"] < doc["precision"]
    # Text output says what was scored.
    assert main(["eval", str(log), "--gold", str(partial)]) == 0
    assert f"partial gold: scored over lines {lo}-{hi}" in capsys.readouterr().out


def test_tune_ranks_by_f1_over_the_stretch_then_pk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    from chunkscope.tui.cli import main

    log = tmp_path / "session.jsonl"
    gold = _session(log, 3)
    partial = tmp_path / "partial.gold.json"
    partial.write_text(dumps_gold([gold[3], gold[4]], partial=True))
    argv = ["tune", str(log), "--gold", str(partial), "--format", "json", "--top", "8"]
    assert main([*argv, "--grid", "topic_depth=2,5,8,40", "--grid", "topic_window=1000,2500"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["partial"] == [True] and doc["settings"] == 8
    best = doc["best"]
    assert best[0]["recall"] == 1.0 and best[0]["f1"] >= 0.6 and best[0]["chunks"] >= 4
    keys = [(-b["f1"], b["pk"], b["windowdiff"]) for b in best]
    assert keys == sorted(keys)
    assert {"precision", "recall", "f1", "pk", "windowdiff", "chunks"} <= set(doc["current"])
    assert main(argv[:-4]) == 0
    text = capsys.readouterr().out
    assert "1 partial, over their marked stretch" in text and "by mean F1, then Pk" in text


def test_a_bad_partial_flag_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    from chunkscope.tui.cli import main

    log = tmp_path / "session.jsonl"
    _session(log, 0)
    bad = tmp_path / "bad.json"
    bad.write_text('{"starts": [1, 9], "partial": 1}')
    assert main(["eval", str(log), "--gold", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f'chunkscope: {bad}:1: "partial" is 1, expected true or false'


def test_settings_that_score_the_same_rank_by_how_near_they_are_to_the_settings_in_force() -> None:
    from chunkscope.engine.config.tuning import setting_distance
    from chunkscope.engine.model import Chunk, Turn, join_chunks

    chunks = [Chunk([Turn(None, "You", f"turn {i}", i, i - 1)]) for i in range(1, 41)]
    case = Case(chunks, None, [1, 11, 21], np.full(40, 50, dtype=np.int64), partial=True)
    grid = {"topic_depth": [5.0, 6.0, 7.0, 8.0], "topic_min_chars": [300, 500]}

    def same(case: Case, values: object) -> list[Chunk]:  # every setting: the same cuts
        return [join_chunks(chunks[:10]), join_chunks(chunks[10:20]), join_chunks(chunks[20:])]

    ranked = tune([case], same, grid, top=8, prefer={"topic_depth": 7.0, "topic_min_chars": 500})
    assert all(t.f1 == 1.0 and t.pk == 0.0 for t in ranked)
    order = [(t.values["topic_depth"], t.values["topic_min_chars"]) for t in ranked]
    assert order[0] == (7.0, 500)
    assert [
        setting_distance(t.values, {"topic_depth": 7.0, "topic_min_chars": 500}) for t in ranked
    ] == sorted(
        setting_distance(t.values, {"topic_depth": 7.0, "topic_min_chars": 500}) for t in ranked
    )
    assert [t.values for t in tune([case], same, grid, top=8)] == [  # no preference: grid order
        {"topic_depth": d, "topic_min_chars": m} for d in grid["topic_depth"] for m in (300, 500)
    ]
    assert setting_distance({"threshold": "adaptive"}, {"threshold": 0.1}) == 1.0


def test_sweep_scores_each_value_over_the_marked_stretch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    from dataclasses import replace

    from chunkscope.engine.segment.segmenter import TopicParams
    from chunkscope.tui.cli import main

    log = tmp_path / "session.jsonl"
    gold = _session(log, 0)
    marks = [gold[2], gold[3]]
    partial = tmp_path / "partial.gold.json"
    partial.write_text(dumps_gold(marks, partial=True))
    argv = ["sweep", str(log), "--param", "topic-depth", "--points", "3", "--gold", str(partial)]
    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stretch"] == [marks[0] - 2, marks[1] + 2]
    point = doc["points"][1]
    pipe = Pipeline(str(log), PipelineParams())
    merged = pipe.with_params(topic=replace(TopicParams(), topic_depth=point["value"])).merged()
    want = score(chunk_starts(merged.topic_chunks), marks, line_weights(log), partial=True)
    assert point["pk"] == round(want.pk, 6) and point["f1"] == round(want.f1, 6)
    assert main(argv) == 0
    assert (
        f"partial gold: scored over lines {marks[0] - 2}-{marks[1] + 2}" in capsys.readouterr().out
    )


def test_the_report_scores_a_partial_gold_over_its_stretch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    from chunkscope.tui.cli import main

    log = tmp_path / "session.jsonl"
    gold = _session(log, 3)
    marks = [gold[3], gold[4]]
    partial = tmp_path / "partial.gold.json"
    partial.write_text(dumps_gold(marks, partial=True))
    out = tmp_path / "report.html"
    assert main(["report", str(log), "--gold", str(partial), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    lo, hi = marks[0] - 2, marks[1] + 2
    assert "partial gold" in page and f"lines {lo}-{hi}" in page


def test_first_lines_are_each_lists_own_when_kept() -> None:
    """The live score keeps the first lines of the lists it scored (the units and the
    left column are the same list at every run): another list gets its own."""
    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.tui.workbench.topics import _first_lines

    a = [Chunk([Turn(None, "Bot", "x", line)]) for line in (3, 5, 9)]
    b = [Chunk([Turn(None, "Bot", "x", line)]) for line in (2, 4)] + [Chunk([])]
    assert _first_lines(a) == [3, 5, 9]
    assert _first_lines(b) == [2, 4, 4]  # a chunk without lines takes the one before's
    assert _first_lines(a) == [3, 5, 9] and _first_lines(list(a[:2])) == [3, 5]


# --------------------------------------------------------------------------- collapsed tool calls


def _tool_session(path: Path, seed: int) -> list[int]:
    """An 8-topic session like `_session` whose answers each call a tool and get its
    result (two records a call): its gold topic starts, the lines of its user turns."""
    rng = np.random.default_rng(seed)
    lines: list[dict[str, object]] = []
    gold: list[int] = []
    for t in rng.permutation(len(TOPICS8)):
        gold.append(len(lines) + 1)
        words = TOPICS8[t].split()

        lines.append({"role": "user", "content": "Next: " + _text(rng, words, 12)})
        for _ in range(rng.integers(3, 6)):
            cid = f"c{len(lines)}"
            args = json.dumps({"path": f"src/{words[0]}.py"})
            call = {"id": cid, "type": "function", "function": {"name": "read", "arguments": args}}
            lines.append(
                {"role": "assistant", "content": _text(rng, words, 40), "tool_calls": [call]}
            )
            lines.append({"role": "tool", "tool_call_id": cid, "content": _text(rng, words, 30)})
    path.write_text("".join(json.dumps(m) + "\n" for m in lines))
    return gold


async def test_gold_lines_line_up_with_collapsed_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """Issue 35: the workbench collapses tool calls by default (`eval` and `tune` with
    --collapse), and gold files and marks name lines of the file, not turns: a topic
    start found in the collapsed run is at the very line of its user record (tolerance
    0), in both modes, and the workbench scores the same marks as `eval` does."""
    from chunkscope.tui.cli import main
    from tests.pilot import SIZE, make_app, settled

    log = tmp_path / "session.jsonl"
    gold = _tool_session(log, 3)
    weights = line_weights(log)
    gold_file = tmp_path / "session.gold.json"
    gold_file.write_text(dumps_gold(gold))
    keys = ("pk", "windowdiff", "precision", "recall", "f1")
    argv = ["eval", str(log), "--gold", str(gold_file), "--format", "json"]
    for flag, collapse in (("--collapse", True), ("--no-collapse", False)):
        assert main([*argv, "--tolerance", "0", flag]) == 0
        doc = json.loads(capsys.readouterr().out)
        pipe = Pipeline(str(log), PipelineParams(collapse=collapse))
        # collapsed: each call and its result one turn over both records' lines
        assert any(t.call_line is not None for t in pipe.turns()) == collapse
        starts = chunk_starts(pipe.merged().topic_chunks)
        want = score(starts, gold, weights, tolerance=0).as_dict()
        assert {k: doc[k] for k in keys} == {k: want[k] for k in keys}
        assert doc["recall"] > 0.4 and doc["precision"] == 1.0  # every cut on a gold line
    assert main([*argv, "--collapse"]) == 0  # scored as the workbench (collapsing) scores
    cli = json.loads(capsys.readouterr().out)
    argv = ["tune", str(log), "--gold", str(gold_file), "--format", "json", "--collapse"]
    assert main([*argv, "--grid", "topic_depth=2,5"]) == 0
    best = json.loads(capsys.readouterr().out)["best"][0]
    assert best["precision"] == 1.0 and best["recall"] > 0.4
    app = make_app(log, gold=str(gold_file))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.options.collapse and app.marks == tuple(gold[1:])
        report = app.marks_report(app.workbench.view)
    assert report is not None
    shown = report.scores.as_dict()
    assert {k: shown[k] for k in keys} == {k: cli[k] for k in keys}
