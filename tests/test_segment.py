"""The topic segmenter (`engine.segment.segmenter`), the scores (`engine.evaluate.measure`) and
`chunkscope eval`."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunkscope.engine.evaluate.measure import boundary_f1, pk_windowdiff, score
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.segment.segmenter import TopicParams, frame, segment
from chunkscope.tui.cli import main
from tests.pilot import SAMPLE

TOPICS = {
    "cache": "sqlite cache eviction vectors rows table schema migration lru expiry",
    "tides": "tide pools anemones crabs snails seaweed rocks ocean waves shore",
    "taxes": "invoice receipt deduction income bracket refund filing audit ledger",
}


def _chunks(layout: list[tuple[str, int]], rng: np.random.Generator) -> list[Chunk]:
    out = []
    line = 1
    for topic, n in layout:
        words = TOPICS[topic].split()
        for j in range(n):
            text = " ".join(rng.choice(words, size=30))
            role = "You" if j == 0 else "Bot"
            out.append(Chunk([Turn(None, role, text, line, line - 1)]))
            line += 1
    return out


def _vectors(chunks: list[Chunk]) -> np.ndarray:
    from chunkscope.engine.embed import make_embedder

    return make_embedder("lexical").embed([c.text for c in chunks])


#: Topics as merged chunks (no retrieval-sized split): these tests are about the topics.
WHOLE = TopicParams(topic_chunk_tokens=0)


def test_three_clear_topics_are_found() -> None:
    rng = np.random.default_rng(1)
    chunks = _chunks([("cache", 12), ("tides", 12), ("taxes", 12)], rng)
    result = segment(chunks, _vectors(chunks), WHOLE)
    assert [s for s, _ in result.spans] == [0, 12, 24]
    # each topic's first chunk is also a user turn after the assistant (a structural
    # point); with a threshold of 5 the depth alone reaches it
    lower = segment(chunks, _vectors(chunks), replace(WHOLE, topic_depth=5.0))
    assert [s for s, _ in lower.spans] == [0, 12, 24]
    assert [c.reason for c in lower.cuts] == ["topic", "topic"]
    plain = segment(
        chunks,
        _vectors(chunks),
        replace(WHOLE, topic_window=1500, topic_structure=0, topic_depth=2.0),
    )
    assert [s for s, _ in plain.spans] == [0, 12, 24]
    assert [c.reason for c in plain.cuts] == ["topic", "topic"]
    assert all(c.depth is not None and c.depth >= c.threshold for c in result.cuts)
    assert "depth" in str(result.cuts[0])


def test_min_and_max_size_are_respected() -> None:
    rng = np.random.default_rng(2)
    chunks = _chunks([("cache", 10), ("tides", 3), ("taxes", 10)], rng)
    v = _vectors(chunks)
    size = sum(c.chars + 1 for c in chunks[:10])
    base = replace(WHOLE, topic_depth=0.0, topic_window=300)
    loose = segment(chunks, v, replace(base, topic_min_chars=0))
    strict = segment(chunks, v, replace(base, topic_min_chars=size))
    assert len(strict.chunks) < len(loose.chunks)
    assert all(c.chars + 1 >= size for c in strict.chunks)
    capped = segment(chunks, v, replace(WHOLE, topic_depth=9.0), max_chars=size // 2)
    assert all(c.chars <= size // 2 or len(c.turns) == 1 for c in capped.chunks)
    assert "size_cap" in {c.reason for c in capped.cuts}
    # the cap splits topics into chunks, and never moves a topic's start
    uncapped = segment(chunks, v, replace(WHOLE, topic_depth=9.0), max_chars=None)
    assert capped.topic_bounds is not None and uncapped.topic_bounds is not None
    assert capped.topic_bounds.tolist() == uncapped.topic_bounds.tolist()
    assert len(capped.chunks) > len(uncapped.chunks) == len(uncapped.topic_spans)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 60),
    seed=st.integers(0, 1000),
    window=st.integers(1, 5000),
    k=st.floats(0, 8),
    min_chars=st.integers(0, 3000),
)
def test_any_input_gives_a_partition(
    n: int, seed: int, window: int, k: float, min_chars: int
) -> None:
    rng = np.random.default_rng(seed)
    chunks = [
        Chunk([Turn(None, "Bot", "x" * int(rng.integers(1, 400)), i + 1, i)]) for i in range(n)
    ]
    vectors = rng.normal(size=(n, 8))
    params = replace(WHOLE, topic_window=window, topic_depth=k, topic_min_chars=min_chars)
    result = segment(chunks, vectors, params)
    spans = result.spans
    assert (spans[0][0] if spans else 0) == 0 and (spans[-1][1] if spans else 0) == n
    assert all(a < b for a, b in spans) and all(b == c for (_, b), (c, _) in pairwise(spans))
    assert len(result.cuts) == max(len(spans) - 1, 0)
    again = segment(chunks, vectors, params)
    assert again.spans == spans  # deterministic
    # the knob-independent frame, built once, gives the same segmentation
    prepared = segment(chunks, vectors, params, frame(chunks, vectors))
    assert prepared.spans == spans and list(prepared.cut_codes) == list(result.cut_codes)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 1000), windows=st.lists(st.integers(1, 4000), min_size=2, max_size=5))
def test_a_frame_shared_by_steps_of_other_windows_gives_what_a_new_one_gives(
    seed: int, windows: list[int]
) -> None:
    """A frame keeps each window's similarities and depths: a sweep or slider steps that
    go back and forth between windows get each window's own, never the last one's."""
    rng = np.random.default_rng(seed)
    chunks = _chunks([("cache", 5), ("tides", 4), ("taxes", 5)], rng)
    v = _vectors(chunks)
    shared = frame(chunks, v)
    for window in [*windows, *reversed(windows)]:
        params = replace(WHOLE, topic_window=window)
        got = segment(chunks, v, params, shared)
        fresh = segment(chunks, v, params, frame(chunks, v))
        assert got.spans == fresh.spans and list(got.cut_codes) == list(fresh.cut_codes)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 1000),
    bodies=st.lists(st.integers(100, 3000), min_size=1, max_size=6),
    target=st.integers(50, 400),
    cap=st.one_of(st.none(), st.integers(300, 4000)),
)
def test_a_heading_stays_with_its_text_when_the_cap_allows(
    seed: int, bodies: list[int], target: int, cap: int | None
) -> None:
    """The chunk-size split is a target: it never leaves a heading alone in a chunk when
    the heading and the text after it fit the size cap together; the cap still holds."""
    rng = np.random.default_rng(seed)
    words = TOPICS["cache"].split()
    chunks: list[Chunk] = []
    line = 1
    for i, size in enumerate(bodies):
        title = f"## Section {i}"
        chunks.append(Chunk([Turn(None, "Doc", title, line, 2 * i)]))
        body = " ".join(rng.choice(words, size=size // 6))[:size]
        chunks.append(Chunk([Turn(None, "Doc", body, line + 2, 2 * i + 1)]))
        line += 4
    params = replace(WHOLE, topic_chunk_tokens=target)
    result = segment(chunks, _vectors(chunks), params, max_chars=cap)
    for merged in result.chunks:
        lone = len(merged.turns) == 1 and merged.turns[0].text.startswith("## ")
        if lone:  # only where the cap leaves no choice
            i = next(j for j, c in enumerate(chunks) if c.turns[0] is merged.turns[0])
            together = len(chunks[i].text) + 1 + len(chunks[i + 1].text)
            assert cap is not None and together > cap, merged.text
        if cap is not None and len(merged.turns) > 1:
            assert len(merged.text) <= cap


def test_a_frame_of_other_chunks_is_refused() -> None:
    rng = np.random.default_rng(4)
    chunks = _chunks([("cache", 4), ("tides", 4)], rng)
    v = _vectors(chunks)
    with pytest.raises(ValueError, match="the frame has 7 chunks, not 8"):
        segment(chunks, v, WHOLE, frame(chunks[:7], v[:7]))


def test_a_topic_slider_step_reuses_the_frame() -> None:
    from chunkscope.engine.pipeline import Pipeline, PipelineParams

    pipe = Pipeline(SAMPLE, PipelineParams(topic=WHOLE))
    first = pipe.merged()
    stepped = pipe.with_params(topic=replace(pipe.params.topic, topic_depth=2.0)).merged()
    assert len(stepped.chunks) >= len(first.chunks)
    assert pipe.runs["merge"] == 2 and pipe.runs["topic_frame"] == 1 and pipe.runs["embed"] == 1


def test_pk_and_windowdiff() -> None:
    weights = np.full(100, 10, dtype=np.int64)
    gold = [1, 26, 51, 76]
    assert pk_windowdiff(gold, gold, weights)[:2] == (0.0, 0.0)
    pk_one, wd_one, k = pk_windowdiff([1], gold, weights)
    assert k == 125 and 0.3 < pk_one < 0.7 and wd_one >= pk_one
    pk_near, _, _ = pk_windowdiff([1, 27, 50, 77], gold, weights)
    assert 0 < pk_near < pk_one
    assert boundary_f1([1, 27, 60, 77], gold, tolerance=2) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    s = score([1, 26, 51], gold, weights, chunks=3)
    assert (s.chunks, s.gold_segments, s.recall) == (3, 4, pytest.approx(2 / 3))


@settings(max_examples=100, deadline=None)
@given(
    gold=st.lists(st.integers(2, 200), unique=True, max_size=10),
    hyp=st.lists(st.integers(2, 200), unique=True, max_size=10),
)
def test_scores_are_bounded(gold: list[int], hyp: list[int]) -> None:
    weights = np.random.default_rng(0).integers(1, 80, size=200)
    pk, wd, _ = pk_windowdiff(sorted([1, *hyp]), sorted([1, *gold]), weights)
    assert 0 <= pk <= 1 and 0 <= wd <= 1
    p, r, f = boundary_f1(hyp, gold)
    assert 0 <= p <= 1 and 0 <= r <= 1 and 0 <= f <= 1


def _session(path: Path) -> list[int]:
    rng = np.random.default_rng(5)
    lines = []
    gold = []
    for topic in ("cache", "tides", "taxes", "cache"):
        gold.append(len(lines) + 1)
        words = TOPICS[topic].split()
        lines.append(
            {"role": "user", "content": "Tell me about " + " ".join(rng.choice(words, 12))}
        )
        for _ in range(5):
            lines.append({"role": "assistant", "content": " ".join(rng.choice(words, 40))})
    path.write_text("".join(json.dumps(m) + "\n" for m in lines))
    return gold


def _refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run `argv`, which must be refused: exit 2, nothing on stdout, one line on stderr
    (returned)."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    return captured.err


def test_eval_scores_the_topic_mode_above_one_chunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    log = tmp_path / "session.jsonl"
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": _session(log)}))
    assert (
        main(["eval", str(log), "--gold", str(gold), "--merge", "topic", "--format", "json"]) == 0
    )
    topic = json.loads(capsys.readouterr().out)
    assert set(topic) >= {
        "pk",
        "windowdiff",
        "precision",
        "recall",
        "f1",
        "chunks",
        "gold_segments",
    }
    assert topic["gold_segments"] == 4 and topic["merge"] == "topic"
    assert (
        main(
            [
                "eval",
                str(log),
                "--gold",
                str(gold),
                "--format",
                "json",
                "--merge",
                "seed",
                "--max-passes",
                "50",
                "--max-chars",
                "1000000",
                "--always-merge",
                "-1",
                "--threshold",
                "-1",
            ]
        )
        == 0
    )
    one = json.loads(capsys.readouterr().out)
    assert one["chunks"] == 1
    assert topic["pk"] < 0.1 < one["pk"] and topic["f1"] == 1.0


@pytest.mark.parametrize(
    ("gold", "error"),
    [
        ("3\n1\n", "gold:2: line 1 comes after 3 (unsorted)"),
        ("1\n999\n", "gold:2: line 999 is out of range (1..24)"),
        ("", "gold:1: empty gold file (expected segment start lines)"),
        ("1\nx\n", "gold:2: 'x' is not a line number"),
    ],
)
def test_eval_refuses_a_bad_gold_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path, gold: str, error: str
) -> None:
    log = tmp_path / "session.jsonl"
    _session(log)
    bad = tmp_path / "gold"
    bad.write_text(gold)
    assert main(["eval", str(log), "--gold", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"chunkscope: {tmp_path / error}")


def test_sweep_moves_one_knob_and_scores_each_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    log = tmp_path / "session.jsonl"
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": _session(log)}))
    argv = ["sweep", str(log), "--param", "topic-depth", "--gold", str(gold)]
    argv += ["--topic-chunk-tokens", "0"]  # a chunk per topic
    assert main([*argv, "--from", "0", "--to", "40", "--points", "9", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["param"], doc["merge"]) == ("topic_depth", "topic")
    points = doc["points"]
    assert [p["value"] for p in points] == [0, 5, 10, 15, 20, 25, 30, 35, 40]
    counts = [p["chunks"] for p in points]
    # A deeper threshold takes fewer topic cuts: the count never rises.
    assert all(a >= b for a, b in pairwise(counts)) and counts[0] > counts[-1]
    # Each point is what `eval` says of that setting.
    for p in (points[0], points[-1]):
        assert main(["eval", str(log), "--gold", str(gold), "--format", "json",
                     "--topic-depth", str(p["value"]), *argv[-2:]]) == 0  # fmt: skip
        one = json.loads(capsys.readouterr().out)
        assert (one["chunks"], one["topics"], one["pk"]) == (p["chunks"], p["topics"], p["pk"])
    # The text table: a row per value and a plot per column.
    assert main([*argv, "--points", "5"]) == 0
    out = capsys.readouterr().out
    assert "topic_depth across 5 values (merge topic" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("topic_depth"))
    # the scores under the names eval and tune give them (walk 9 #14), three decimals
    assert header.split() == ["topic_depth", "chunks", "topics", "Pk", "WindowDiff", "F1"]
    rows = [line.split() for line in out.splitlines()[3:8]]
    assert all(len(cell.split(".")[1]) == 3 for row in rows for cell in row[3:])
    plots = [line.split() for line in out.splitlines() if "(topic_depth 0 -> 10)" in line]
    assert [p[0] for p in plots] == ["chunks", "topics", "Pk", "WindowDiff", "F1"]
    assert all(len(p[1]) == 5 and set(p[1]) <= set("▁▂▃▄▅▆▇█") for p in plots)


@pytest.mark.parametrize("merge", [None, "seed", "topic"])
def test_sweep_of_the_size_cap_runs_the_mode_in_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path, merge: str | None
) -> None:
    """The size cap is a knob of both modes (walk 11, 8: it swept the seed loop without
    --merge, for 39 chunks where the workbench's topic run gave 132, and refused --merge
    topic): it sweeps the mode in force, topic by default."""
    # Markdown: the seed loop's chunks are its paragraphs.
    log = tmp_path / "notes.md"
    rng = np.random.default_rng(2)
    paras = [" ".join(rng.choice(TOPICS[t].split(), 40)) for t in TOPICS for _ in range(6)]
    log.write_text("\n\n".join(paras) + "\n")
    mode = ["--merge", merge] if merge else []
    assert main(["sweep", str(log), "--param", "max_chunk_chars", "--from", "300",
                 "--to", "30000", "--points", "4", "--format", "json", *mode]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert doc["merge"] == (merge or "topic")
    counts = [p["chunks"] for p in doc["points"]]
    assert counts[0] > counts[-1] >= 1


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        (["--param", "bogus"], "--param bogus: not a knob a sweep can move"),
        (["--param", "threshold", "--merge", "topic"], "acts in --merge seed, not --merge topic"),
        (["--param", "topic_unit_chars"], "has no default range: give --from and --to"),
        (["--param", "topic_window", "--from", "9", "--to", "1"], "--from 9 is above --to 1"),
        (["--param", "topic_window", "--points", "1"], "--points 1: between 2 and 500"),
        (["--param", "topic_window", "--from", "-5", "--to", "9"], "--param topic_window:"),
    ],
)
def test_sweep_refuses_bad_requests_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    isolated: Path,
    extra: list[str],
    error: str,
) -> None:
    log = tmp_path / "session.jsonl"
    _session(log)
    assert error in _refusal(capsys, ["sweep", str(log), *extra])


def test_tune_finds_a_better_setting_and_saves_it_as_a_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    log = tmp_path / "session.jsonl"
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": _session(log)}))
    argv = ["tune", str(log), str(log), "--gold", str(gold), str(gold), "--format", "json"]
    # A grid in which only a shallow threshold finds the topics.
    grid = ["--grid", "topic_depth=0.5,60", "--grid", "topic-window=1500,2500"]
    assert main([*argv, *grid, "--topic-depth", "60", "--save-profile", "tuned"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"] == 4 and doc["merge"] == "topic"
    best = doc["best"][0]
    assert best["values"]["topic_depth"] == 0.5
    assert best["pk"] < doc["current"]["pk"] and doc["current"]["values"]["topic_depth"] == 60
    ranked = [(-b["f1"], b["pk"], b["windowdiff"]) for b in doc["best"]]  # F1, then Pk
    assert ranked == sorted(ranked)
    # The profile is what eval (and chunk, recap, the workbench) use.
    assert (
        main(["eval", str(log), "--gold", str(gold), "--profile", "tuned", "--format", "json"]) == 0
    )
    scored = json.loads(capsys.readouterr().out)
    assert scored["pk"] == best["pk"] and scored["merge"] == "topic"
    assert main(["profile", "show", "tuned"]) == 0
    shown = capsys.readouterr().out
    assert "topic_depth" in shown and "0.5" in shown


def test_tune_says_when_no_setting_finds_a_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """`tune` ranked rows all of F1 0.000 without a word, where the workbench's auto-tune
    says no setting finds a mark: the CLI says it too, in the same words (one function)."""
    from chunkscope.engine.evaluate.measure import Tuned, no_mark_found

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [1, 6, 75], "partial": False}))
    grid = ["--grid", "topic_depth=7,40"]
    assert main(["tune", str(SAMPLE), "--gold", str(gold), *grid]) == 0
    out = capsys.readouterr().out
    zero = Tuned({}, 0.2, 0.2, 0.0, 0.0, 0.0, 3.0)
    said = no_mark_found([zero], {"topic_depth": [7, 40]}, 2)
    assert said is not None
    assert said.startswith("No setting of the 2 tried (topic_depth 7-40) finds any of the 2 ")
    assert out.rstrip().endswith(said)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("F1"))
    assert header.split()[:5] == ["F1", "recall", "Pk", "WindowDiff", "topics"]  # as eval's
    # not "any of the 1 topic mark" (walk 9 #14)
    one = no_mark_found([zero], {"topic_depth": [7.0], "topic_min_chars": [300, 500]}, 1)
    assert one is not None and "finds the one topic mark (F1 0.000 for all)" in one
    assert no_mark_found([zero, zero._replace(f1=0.5)], {"topic_depth": [7, 40]}, 2) is None


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        (["LOG", "LOG", "--gold", "G"], "2 files but 1 gold file"),
        (["LOG", "--gold", "G", "--grid", "bogus=1"], "--grid bogus=1: expected NAME=V1,V2"),
        (["LOG", "--gold", "G", "--grid", "topic_window=-4"], "--grid topic_window=-4:"),
        (["LOG", "--gold", "G", "--grid", "threshold=0.1"], "(--merge topic)"),
        (["LOG", "--gold", "G", "--save-profile", "no way"], "invalid profile name"),
    ],
)
def test_tune_refuses_bad_requests_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    isolated: Path,
    extra: list[str],
    error: str,
) -> None:
    log = tmp_path / "session.jsonl"
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": _session(log)}))
    names = {"LOG": str(log), "G": str(gold)}
    assert error in _refusal(capsys, ["tune", *(names.get(x, x) for x in extra)])


def _notes(path: Path) -> None:
    rng = np.random.default_rng(2)
    paras = [" ".join(rng.choice(TOPICS[t].split(), 40)) for t in TOPICS for _ in range(6)]
    path.write_text("\n\n".join(paras) + "\n")


def test_chunks_n_finds_the_setting_that_gives_n_merged_chunks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    log = tmp_path / "session.jsonl"
    _session(log)
    whole = ["--topic-chunk-tokens", "0"]  # a chunk per topic: the depth gives the count
    assert main(["chunk", str(log), "--embed", "--chunks", "4", *whole, "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)["merged"]) == 4
    # The note names the depth it found; that depth alone gives the same chunks.
    depth = captured.err.split("topic depth ")[1].split()[0]
    assert (
        main(["chunk", str(log), "--embed", "--topic-depth", depth, *whole, "--format", "json"])
        == 0
    )
    assert len(json.loads(capsys.readouterr().out)["merged"]) == 4
    # The seed loop: its threshold.
    notes = tmp_path / "notes.md"
    _notes(notes)
    seed = ["chunk", str(notes), "--embed", "--merge", "seed", "--max-chars", "100000"]
    for n in (2, 3):
        assert main([*seed, "--chunks", str(n), "--format", "json"]) == 0
        captured = capsys.readouterr()
        assert len(json.loads(captured.out)["merged"]) == n and "threshold" in captured.err
    # Out of reach: the closest count, said so, and the run goes on.
    assert main([*seed, "--chunks", "500", "--format", "json"]) == 0
    captured = capsys.readouterr()
    closest = len(json.loads(captured.out)["merged"])
    assert f"the closest is {closest}," in captured.err and closest < 500
    # recap merges to the count asked for too.
    assert (
        main(["recap", str(log), "--chunks", "2", *whole, "--format", "json", "-o", "r.json"]) == 0
    )
    assert len(json.loads((tmp_path / "r.json").read_text())["candidates"]) == 2


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (
            ["chunk", "LOG", "--chunks", "3"],
            "--chunks sets the merge, which runs only with --embed: add --embed",
        ),
        # --chunks 0 / -2: refused by the parser now (test_walk50, F10)
    ],
)
def test_chunks_n_refuses_what_it_cannot_mean(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    isolated: Path,
    argv: list[str],
    error: str,
) -> None:
    log = tmp_path / "session.jsonl"
    _session(log)
    err = _refusal(capsys, [str(log) if a == "LOG" else a for a in argv])
    assert err.strip() == f"chunkscope: {error}"


def _pk_wd_per_character(
    hyp: list[int], gold: list[int], weights: np.ndarray, k: int | None = None
) -> tuple[float, float, int]:
    """Pk and WindowDiff by their definition: a segment id per character, every window."""
    n_lines = len(weights)

    def ids(starts: list[int]) -> np.ndarray:
        bounds = np.asarray(sorted({s for s in starts if 1 < s <= n_lines}), dtype=np.int64)
        per_line = np.searchsorted(bounds, np.arange(1, n_lines + 1), side="right")
        return np.repeat(per_line, weights)

    ref, h = ids(gold), ids(hyp)
    n = len(ref)
    if k is None:
        k = max(1, round(n / (int(ref[-1]) + 1) / 2))
    if n <= k:
        return 0.0, 0.0, k
    ra, ha = ref[k:] - ref[:-k], h[k:] - h[:-k]
    return float(np.mean((ra == 0) != (ha == 0))), float(np.mean(ra != ha)), k


@settings(max_examples=300, deadline=None)
@given(
    weights=st.lists(st.integers(1, 40), min_size=1, max_size=40),
    hyp=st.lists(st.integers(1, 45), max_size=12),
    gold=st.lists(st.integers(1, 45), max_size=12),
    k=st.one_of(st.none(), st.integers(1, 80)),
)
def test_pk_and_windowdiff_equal_their_definition_per_character(
    weights: list[int], hyp: list[int], gold: list[int], k: int | None
) -> None:
    w = np.asarray(weights, dtype=np.int64)
    got = pk_windowdiff(hyp, gold, w, k)
    want = _pk_wd_per_character(hyp, gold, w, k)
    assert got[2] == want[2]
    assert got[0] == pytest.approx(want[0], abs=1e-12)
    assert got[1] == pytest.approx(want[1], abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    target=st.integers(0, 800),
    cap=st.one_of(st.none(), st.integers(50, 6000)),
    seed=st.integers(0, 50),
)
def test_topics_split_into_chunks_of_the_chunk_size_within_the_cap(
    target: int, cap: int | None, seed: int
) -> None:
    """`topic_chunk_tokens`: every merged chunk fits the chunk size (in tokens, as the
    merge counts them: the units' tokens plus one per join) and the size cap (chars),
    or is one unit; the topics never move, and the cuts inside a topic say which split
    them."""
    from chunkscope.engine.tokens import get_counter

    rng = np.random.default_rng(seed)
    chunks = _chunks([("cache", 8), ("tides", 6), ("taxes", 9)], rng)
    v = _vectors(chunks)
    params = replace(TopicParams(), topic_chunk_tokens=target)
    result = segment(chunks, v, params, max_chars=cap)
    whole = segment(chunks, v, WHOLE, max_chars=None)
    assert result.topic_bounds is not None and whole.topic_bounds is not None
    assert result.topic_bounds.tolist() == whole.topic_bounds.tolist()
    counts = get_counter().count_many([c.text for c in chunks])
    for (a, b), c in zip(result.spans, result.chunks, strict=True):
        if b - a > 1:
            assert not target or sum(counts[a:b]) + (b - a - 1) <= target
            assert cap is None or c.chars <= cap
    inner = {b - 1 for b in result.topic_bounds.tolist()[1:-1]}
    for i, cut in enumerate(result.cuts):
        start = int(result.bounds[i + 1] - 1)
        if start in inner:
            assert cut.reason in ("topic", "structure")
        else:
            assert cut.reason in ("size_cap", "chunk_size")
            assert cut.reason == "size_cap" or target


def test_the_default_chunks_are_retrieval_sized() -> None:
    from chunkscope.engine.pipeline import Pipeline, PipelineParams

    pipe = Pipeline(SAMPLE, PipelineParams())
    merged = pipe.merged()
    target = TopicParams().topic_chunk_tokens
    assert 0 < target < 8192
    # over the target only a chunk the merge cannot cut: one compacted chunk
    counts = pipe.token_counts(pipe.compacted())
    for a, b in merged.spans:
        assert b - a == 1 or sum(counts[a:b]) + (b - a - 1) <= target
    assert "chunk_size" in {c.reason for c in merged.cuts}
    topics = pipe.with_params(topic=WHOLE).merged()
    assert len(topics.chunks) < len(merged.chunks)
    assert merged.topic_bounds is not None and topics.topic_bounds is not None
    assert merged.topic_bounds.tolist() == topics.topic_bounds.tolist()


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 40), min_size=1, max_size=60),
    dims=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    wide=st.booleans(),
)
# reduceat sums 9 rows and more pairwise: a segment of 9 with magnitudes far apart
@example(lengths=[9, 1, 17], dims=7, seed=4294967295, wide=False)
@example(lengths=[1, 1, 1, 1, 39, 40, 25, 33], dims=7, seed=4294967295, wide=False)
def test_segment_sums_are_reduceats_bit_for_bit(
    lengths: list[int], dims: int, seed: int, wide: bool
) -> None:
    """The merged chunks' vectors: `_segment_sums` gives exactly np.add.reduceat's float64
    sums, signed zeros included, for float32 rows (its own batched order) and float64."""
    from chunkscope.engine.segment.segmenter import _segment_sums

    rng = np.random.default_rng(seed)
    n = sum(lengths)
    v = rng.standard_normal((n, dims)) * 10.0 ** rng.integers(-3, 4, size=(n, 1))
    v[rng.random((n, dims)) < 0.3] = 0.0
    v[rng.random((n, dims)) < 0.2] = -0.0
    v = v.astype(np.float64 if wide else np.float32)
    bounds = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    want = np.add.reduceat(v, bounds[:-1], axis=0, dtype=np.float64)
    got = _segment_sums(v, bounds)
    assert got.dtype == np.float64
    assert np.array_equal(got.view(np.int64), want.view(np.int64))


def test_segment_sums_of_long_segments_in_many_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Segments of thousands of rows and more segments than one block holds."""
    from chunkscope.engine.segment import segmenter

    monkeypatch.setattr(segmenter, "_SUM_BLOCK", 7)
    rng = np.random.default_rng(5)
    lengths = [3000, 1, 2, 9000, *rng.integers(1, 30, size=40).tolist()]
    v = rng.standard_normal((sum(lengths), 4)).astype(np.float32)
    bounds = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    want = np.add.reduceat(v, bounds[:-1], axis=0, dtype=np.float64)
    assert np.array_equal(segmenter._segment_sums(v, bounds).view(np.int64), want.view(np.int64))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 1000),
    steps=st.lists(st.tuples(st.integers(200, 3000), st.floats(0.0, 2.0)), min_size=3, max_size=6),
)
def test_steps_on_a_shared_frame_give_a_new_frames_chunks_and_vectors_bit_for_bit(
    seed: int, steps: list[tuple[int, float]]
) -> None:
    """A frame remembers the merged chunks and mean vectors of its last segmentation's
    spans: steps of the size cap and the depth back and forth give, bit for bit, what a
    new frame gives, and a span kept from the step before is the same chunk object (from
    the frame's second segmentation on: a one-off `segment` keeps nothing)."""
    rng = np.random.default_rng(seed)
    chunks = _chunks([("cache", 6), ("tides", 5), ("taxes", 6)], rng)
    v = _vectors(chunks).astype(np.float32)
    shared = frame(chunks, v)
    before: dict[tuple[int, int], Chunk] = {}
    # each depth with two caps: the second step keeps the topics the frame remembers
    both = [(c, d) for cap, d in [*steps, *reversed(steps)] for c in (cap, cap // 2 + 150)]
    for k, (cap, depth) in enumerate(both):
        params = replace(WHOLE, topic_depth=depth)
        got = segment(chunks, v, params, shared, max_chars=cap)
        fresh = segment(chunks, v, params, frame(chunks, v), max_chars=cap)
        assert got.spans == fresh.spans
        assert got.topic_spans == fresh.topic_spans
        assert np.array_equal(got.cut_codes, fresh.cut_codes)
        assert np.array_equal(got.cut_depths, fresh.cut_depths)
        assert np.array_equal(got.over_cap, fresh.over_cap)
        assert got.cut_threshold == fresh.cut_threshold
        assert np.array_equal(got.vectors.view(np.int64), fresh.vectors.view(np.int64))
        assert [c.turns for c in got.chunks] == [c.turns for c in fresh.chunks]
        assert [c.lines for c in got.chunks] == [c.lines for c in fresh.chunks]
        kept = [before[s] is c for s, c in zip(got.spans, got.chunks, strict=True) if s in before]
        assert all(kept)
        if k:  # the first segmentation leaves nothing in the frame
            before = dict(zip(got.spans, got.chunks, strict=True))
    assert shared._span_memo["runs"] == 4 * len(steps)


_LINE = st.one_of(st.none(), st.integers(1, 80))


@settings(max_examples=60, deadline=None)
@given(
    units=st.lists(st.lists(st.tuples(_LINE, _LINE, _LINE), min_size=1, max_size=3), min_size=2),
    data=st.data(),
)
def test_a_frames_joined_spans_are_the_chunks_of_the_spans(
    units: list[list[tuple[int | None, int | None, int | None]]], data: st.DataObject
) -> None:
    """The chunks a frame joins for the spans a step did not have (`_join_spans`: one
    slice of the units' turns, every span's lines at once) are `chunks_from_spans`'s:
    the same turns and lines (units with no line, several turns, a call line before
    the source line), a one-unit span the unit itself."""
    from chunkscope.engine.model import chunks_from_spans
    from chunkscope.engine.segment.segmenter import _join_spans

    chunks = [
        Chunk([Turn(None, "Bot", f"u{i} t{j}", a, None, b, c) for j, (a, b, c) in enumerate(turns)])
        for i, turns in enumerate(units)
    ]
    rng = np.random.default_rng(len(units))
    f = frame(chunks, rng.standard_normal((len(chunks), 4)).astype(np.float32))
    cuts = data.draw(st.sets(st.integers(1, len(chunks) - 1)))
    bounds = np.asarray([0, *sorted(cuts), len(chunks)], dtype=np.int64)
    spans = list(pairwise(bounds.tolist()))
    # every span, and some of them (the ones a step did not keep)
    some = sorted(data.draw(st.sets(st.integers(0, len(spans) - 1))))
    for picked in (np.arange(len(spans)), np.asarray(some, dtype=np.int64)):
        want = chunks_from_spans(chunks, [spans[i] for i in picked.tolist()])
        got = _join_spans(f, chunks, bounds[picked], bounds[picked + 1])
        assert [c.turns for c in got] == [c.turns for c in want]
        assert [c.lines for c in got] == [Chunk(list(c.turns)).lines for c in want]
        assert [c.text for c in got] == [c.text for c in want]
        for i, c in zip(picked.tolist(), got, strict=True):
            a, b = spans[i]
            assert (c is chunks[a]) == (b - a == 1)


def test_cap_steps_on_a_shared_frame_with_token_counts_give_a_new_frames_chunks() -> None:
    """The token counts' running sums a frame remembers (the chunk size and a token cap
    read them) give what a new frame gives, step after step."""
    rng = np.random.default_rng(4)
    chunks = _chunks([("cache", 6), ("tides", 5), ("taxes", 6)], rng)
    v = _vectors(chunks).astype(np.float32)
    counts = [len(c.text) // 5 for c in chunks]
    shared = frame(chunks, v)
    params = TopicParams(topic_chunk_tokens=40)
    for cap, tokens in [(900, None), (None, 120), (500, None), (None, 60), (900, None)]:
        got = segment(
            chunks, v, params, shared, max_chars=cap, max_tokens=tokens, token_counts=counts
        )
        fresh = segment(
            chunks,
            v,
            params,
            frame(chunks, v),
            max_chars=cap,
            max_tokens=tokens,
            token_counts=counts,
        )
        assert got.spans == fresh.spans and got.topic_spans == fresh.topic_spans
        assert np.array_equal(got.cut_codes, fresh.cut_codes)
        assert np.array_equal(got.over_cap, fresh.over_cap)


@given(
    lines=st.lists(
        st.lists(
            st.tuples(
                st.one_of(st.none(), st.integers(1, 50)), st.one_of(st.none(), st.integers(1, 60))
            ),
            max_size=4,
        ),
        max_size=5,
    ),
    known=st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_a_joined_chunks_lines_are_its_turns_lines(
    lines: list[list[tuple[int | None, int | None]]], known: list[bool]
) -> None:
    """`join_chunks` takes its lines from the parts' when each part knows its own: the
    same as computing them from the turns."""
    from chunkscope.engine.model import join_chunks

    parts = [
        Chunk([Turn(None, "Bot", "x", first, None, last) for first, last in turns])
        for turns in lines
    ]
    for part, ask in zip(parts, known, strict=False):
        if ask:
            _ = part.lines
    joined = join_chunks(parts)
    plain = Chunk(list(joined.turns))
    assert joined.lines == plain.lines


def test_lazy_cuts_and_reason_counts_are_the_cuts() -> None:
    """What the merged list draws (`lazy_cuts`, a cut built when its line is drawn) and
    the merge panel counts (`reason_counts`) are the `cuts` themselves."""
    from collections import Counter

    rng = np.random.default_rng(3)
    chunks = _chunks([("cache", 6), ("tides", 5), ("taxes", 6)], rng)
    v = _vectors(chunks)
    result = segment(chunks, v, WHOLE, max_chars=300)
    lazy = result.lazy_cuts
    assert "cuts" not in result.__dict__  # nothing built yet
    assert len(lazy) == len(result.cut_codes) > 2
    assert [lazy[j] for j in range(len(lazy))] == result.cuts and lazy[-1] == result.cuts[-1]
    assert lazy[1:3] == result.cuts[1:3]
    with pytest.raises(IndexError):
        _ = lazy[len(lazy)]
    assert result.reason_counts() == Counter(c.reason for c in result.cuts)
    assert result.cut_reasons == [c.reason for c in result.cuts]


def test_the_merged_vectors_are_computed_when_first_read() -> None:
    """A topic merge's mean vectors wait for their first read (a slider step never reads
    them) and are then each merged chunk's mean, kept."""
    rng = np.random.default_rng(8)
    chunks = _chunks([("cache", 6), ("tides", 5)], rng)
    v = _vectors(chunks).astype(np.float32)
    result = segment(chunks, v, WHOLE, max_chars=300)
    assert "LazyVectors" in type(result.__dict__["vectors"]).__name__
    got = result.vectors
    want = np.asarray([v[a:b].astype(np.float64).mean(axis=0) for a, b in result.spans])
    assert got.shape == want.shape and np.allclose(got, want)
    assert result.vectors is got  # computed once


def test_boundary_matching_is_one_to_one_nearest_first() -> None:
    """Issue 35: one mark matches one cut, the nearest; cuts at one line count each."""
    from chunkscope.engine.evaluate.measure import boundary_f1, match_boundaries

    assert match_boundaries([12, 14], [1, 14], 3) == {14: 14}
    p, r, f = boundary_f1([14, 14, 14], [1, 14], 3)
    assert (round(p, 3), r) == (0.333, 1.0) and f < 1


@given(
    st.lists(st.integers(1, 60), max_size=30),
    st.lists(st.integers(1, 60), max_size=10),
    st.integers(0, 5),
)
def test_boundary_f1_precision_at_most_one_and_matches_at_most_marks(
    hyp: list[int], gold: list[int], tol: int
) -> None:
    from chunkscope.engine.evaluate.measure import boundary_f1, match_boundaries

    p, r, f = boundary_f1(hyp, gold, tol)
    assert 0 <= p <= 1 and 0 <= r <= 1 and 0 <= f <= 1
    matched = match_boundaries(hyp, gold, tol)
    assert len(matched) <= len({g for g in gold if g > 1})
    assert len(set(matched.values())) == len(matched)
