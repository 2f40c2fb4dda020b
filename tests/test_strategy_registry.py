"""The registry, parameters, blank-line identity, pipeline memo keys, dedup, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks
from chunkscope.engine.chunk.strategies import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    get_strategy,
    make_params,
    param_specs,
    params_key,
)
from chunkscope.engine.chunk.strategies.dedup import find_duplicates
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import load
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
LOG = SAMPLES / "cache_refactor.jsonl"
DOC = SAMPLES / "architecture_guide.md"


def test_registry_lists_every_strategy_with_params() -> None:
    assert DEFAULT_STRATEGY == "blank-line"
    assert list(STRATEGIES) == ["blank-line", "sliding-window", "boundary", "markdown", "episodic"]
    for name in STRATEGIES:
        specs = param_specs(name)
        strat = get_strategy(name)
        assert strat.name == name and STRATEGIES[name] == strat.description
        for spec in specs:
            assert spec.help and getattr(strat.params, spec.name) == spec.default
    md = {s.name: s for s in param_specs("markdown")}
    assert md["max_tokens"].default == 450 and md["overlap"].default == 50
    assert md["max_tokens"].flag == "--max-tokens"


def test_params_are_checked_and_hashable() -> None:
    with pytest.raises(ValueError, match="no parameter"):
        make_params("sliding-window", {"bogus": 1})
    with pytest.raises(ValueError, match=">="):
        make_params("markdown", {"max_tokens": 2})
    with pytest.raises(ValueError, match="unknown strategy"):
        get_strategy("nope")
    assert make_params("sliding-window", {"preserve_message_boundaries": "false"}) == (
        make_params("sliding-window", {"preserve_message_boundaries": False})
    )
    key = params_key({"overlap": 0.1, "max_tokens": 500})
    assert key == (("max_tokens", 500), ("overlap", 0.1)) and hash(key)


def test_blank_line_is_identical_to_the_seed_stages() -> None:
    turns = load(LOG).turns
    expected = compact_chunks(chunk_turns(turns))
    res = get_strategy("blank-line").split(turns, get_counter())
    assert res.chunk_list == expected
    seed = MergeParams(mode="seed")  # the seed's stages (topic mode splits at every message)
    pipe = Pipeline(LOG, PipelineParams(merge=seed))
    assert pipe.compacted() == expected
    explicit = Pipeline(LOG, PipelineParams(strategy="blank-line", merge=seed))
    assert explicit.compacted() == expected


def test_pipeline_memoises_by_strategy() -> None:
    pipe = Pipeline(LOG)
    default = pipe.compacted()
    pipe = pipe.with_params(
        strategy="sliding-window", strategy_params=params_key({"max_tokens": 200})
    )
    sw = pipe.compacted()
    assert sw != default and len(sw) == len(pipe.strategy_result().chunks)
    assert pipe.compact_spans() == [(i, i + 1) for i in range(len(sw))]
    runs = pipe.runs["strategy"]
    pipe = pipe.with_params(min_chars=5)  # compaction does not apply: not re-run
    pipe.compacted()
    assert pipe.runs["strategy"] == runs
    pipe = pipe.with_params(strategy="blank-line", strategy_params=(), min_chars=80)
    assert pipe.compacted() == default


def test_duplicates_found_by_cosine_and_ratio() -> None:
    base = "The cache layer stores rendered pages keyed by their URL and user role. " * 3
    texts = [
        base,
        "Completely different text about hiking boots and mountain weather forecasts.",
        base.replace("user role", "user roles"),
        "Another unrelated paragraph on sourdough starters and oven temperatures today.",
        "Completely different text about hiking boots and mountain weather forecasts.",
    ]
    pairs = find_duplicates(texts)
    assert [(p.a, p.b, p.kind) for p in pairs] == [(0, 2, "char_ratio"), (1, 4, "cosine")]
    assert pairs[0].ratio is not None and pairs[0].ratio >= 0.9 and not pairs[0].adjacent
    assert pairs[1].cosine >= 0.85
    assert find_duplicates(texts[:1]) == []


def test_sliding_window_overlaps_are_reported_as_adjacent_duplicates() -> None:
    turns = [Turn(None, "You", f"turn {i} " + "shared words here " * 5, i, i) for i in range(6)]
    res = get_strategy("sliding-window", {"max_tokens": 80, "overlap": 40}).split(
        turns, get_counter()
    )
    pairs = find_duplicates([c.text for c in res.chunks], cosine_threshold=0.85)
    assert pairs and all(p.adjacent for p in pairs)


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["chunk", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["sliding-window", "boundary", "markdown", "episodic"])
def test_cli_strategy_json_has_meta(capsys: pytest.CaptureFixture[str], name: str) -> None:
    doc = _run_json(capsys, str(LOG), "--strategy", name, "--max-tokens", "300")
    assert doc["strategy"]["name"] == name
    assert doc["strategy"]["params"]["max_tokens"] == 300
    assert doc["chunks"] and all("meta" in c and "reason" in c for c in doc["chunks"])
    assert doc["chunks"][-1]["reason"] is None


def test_cli_markdown_flags(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _run_json(
        capsys,
        str(DOC),
        "--strategy",
        "markdown",
        "--max-tokens",
        "120",
        "--overlap",
        "0.1",
        "--enrich",
        "--dedup",
    )
    metas = [c["meta"] for c in doc["chunks"]]
    assert all(m["is_contextually_enriched"] for m in metas)
    assert all(m["token_count"] <= 120 or m["exceeds_limit"] for m in metas)
    assert doc["strategy"]["info"]["integrity_score"] == 1.0
    assert doc["chunks"][1]["text"].startswith("Doc: Document: ")
    assert "duplicates" in doc


def test_cli_default_output_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _run_json(capsys, str(LOG))
    assert "strategy" not in doc and all("meta" not in c for c in doc["chunks"])
    doc = _run_json(capsys, str(LOG), "--strategy", "blank-line")
    assert doc["chunks"][0]["meta"]["raw_chunks"][0] == 0


def test_cli_flags_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _run_json(
        capsys,
        str(LOG),
        "--strategy",
        "sliding-window",
        "--no-preserve-boundaries",
        "--max-tokens",
        "100",
        "--overlap",
        "10",
    )
    assert doc["strategy"]["params"]["preserve_message_boundaries"] is False
    assert all(c["meta"]["overlap_with_previous"] == 10 for c in doc["chunks"][1:])
    doc = _run_json(
        capsys,
        str(LOG),
        "--strategy",
        "episodic",
        "--flush",
        "--max-messages",
        "8",
        "--min-chunk-tokens",
        "0",
    )
    assert doc["strategy"]["info"]["should_wait"] is False
    assert (
        main(
            [
                "chunk",
                str(LOG),
                "--strategy",
                "sliding-window",
                "--overlap",
                "500",
                "--max-tokens",
                "100",
            ]
        )
        == 2
    )
    assert "overlap" in capsys.readouterr().err


def test_list_strategies_and_engine_stays_headless() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "chunkscope.tui.cli", "chunk", "--list-strategies"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "markdown: " in out and "--no-preserve-boundaries" in out
    # Each strategy with an overlap says the limit the refusal names (walk 15's leftover:
    # the list showed [0..] and `--overlap 50 --max-tokens 20` was then refused).
    overlaps = [line for line in out.splitlines() if line.lstrip().startswith("overlap =")]
    assert len(overlaps) == 2 and all("below max_tokens" in line for line in overlaps)
    code = (
        "import sys, chunkscope.engine.chunk.strategies, chunkscope.engine.chunk.strategies.dedup;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'tui')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_chunk_text_is_the_seed_format() -> None:
    res = get_strategy("sliding-window").split([Turn(None, "You", "hi", 1, 0)], get_counter())
    assert res.chunks[0].chunk == Chunk([Turn(None, "You", "hi", 1, 0)])
    assert res.chunks[0].text == "You: hi"


def test_cut_points_compare_two_results() -> None:
    turns = load(LOG).turns
    counter = get_counter()
    a = get_strategy("sliding-window", {"max_tokens": 300, "overlap": 0}).split(turns, counter)
    b = get_strategy("sliding-window", {"max_tokens": 600, "overlap": 0}).split(turns, counter)
    ca, cb = set(a.cut_points()), set(b.cut_points())
    assert len(ca) == len(a.chunks) - 1 and ca and cb
    assert all(isinstance(t, int) for t, _ in ca | cb)


def test_bench_runs_and_skips_missing_peers() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "strategies.py"),
            "--tokens",
            "2000",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    ).stdout
    assert "chunkscope markdown 450/50" in out
    for peer in ("chonkie", "langchain"):
        assert f"skip: {peer}" in out or peer in out


def test_merge_max_tokens_gives_the_merge_its_own_cap(capsys: pytest.CaptureFixture[str]) -> None:
    """`--max-tokens` is the strategy's size and, with --embed, the merge's cap too;
    `--merge-max-tokens` sets the merge's cap alone."""
    argv = [str(LOG), "--strategy", "sliding-window", "--max-tokens", "60", "--embed"]
    argv += ["--merge", "seed"]
    shared = _run_json(capsys, *argv)
    assert shared["strategy"]["params"]["max_tokens"] == 60
    assert shared["params"]["merge"]["max_chunk_tokens"] == 60
    own = _run_json(capsys, *argv, "--merge-max-tokens", "400")
    assert own["strategy"]["params"]["max_tokens"] == 60  # the strategy is unchanged
    assert own["chunks"] == shared["chunks"]
    assert own["params"]["merge"]["max_chunk_tokens"] == 400
    assert len(own["merged"]) < len(shared["merged"])  # a larger cap merges more
    assert all(m["tokens"] <= 400 or len(m["parts"]) == 1 for m in own["merged"])
    code = main(["chunk", str(LOG), "--embed", "--max-chars", "900", "--merge-max-tokens", "50"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--merge-max-tokens" in err


@pytest.mark.parametrize(
    "path",
    [
        SAMPLES / "cache_refactor.jsonl",
        ROOT / "tests" / "fixtures" / "aider" / "metadata-aider.aider.chat.history.md",
    ],
    ids=lambda p: p.name,
)
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_strategy_keeps_each_turns_text_under_its_own_role(name: str, path: Path) -> None:
    """Over a session, every part of every chunk is text of the turn it names, with that
    turn's role and time (walk 9 #3: markdown put the others' text under the first's)."""
    from chunkscope.engine.read.formats import read

    source = read(path)
    by_index = {t.turn_index: t for t in source.turns}
    params = {"max_tokens": 300} if name == "markdown" else None
    result = get_strategy(name, params).split(source.turns, get_counter(), source=source)
    assert result.chunks
    for sc in result.chunks:
        for part in sc.chunk.turns:
            turn = by_index[part.turn_index]
            assert (part.role, part.timestamp) == (turn.role, turn.timestamp)
            assert part.text.strip() in turn.text
