"""Progress callbacks of the parse and split stages, and stopping a stage from one.

The workbench cancels a load by raising from the progress callback, so every
stage must report often (a few thousand items at most between two calls), count
up to its total, and leave nothing memoised when the callback raises.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns, compact_spans
from chunkscope.engine.model import PROGRESS_EVERY, chunks_from_spans, with_progress
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import PROGRESS_LINES, load
from chunkscope.engine.recap.collapse import collapse_messages


class Stop(Exception):
    pass


def write_log(path: Path, messages: int) -> Path:
    lines = []
    for i in range(messages):
        if i % 3 == 2:
            lines.append({"role": "tool", "tool_call_id": f"c{i - 1}", "content": "ok"})
        elif i % 3 == 1:
            call = {"id": f"c{i}", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
            lines.append({"role": "assistant", "content": "", "tool_calls": [call]})
        else:
            lines.append({"role": "user", "content": f"message {i}\n\nsecond paragraph {i}"})
    path.write_text("".join(json.dumps(m) + "\n" for m in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_log(tmp_path_factory.mktemp("progress") / "big.jsonl", 5 * PROGRESS_LINES + 7)


@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_log(tmp_path_factory.mktemp("progress") / "small.jsonl", 900)


@pytest.fixture(scope="module")
def stage_results(big_log: Path) -> dict[str, object]:
    """Every stage's result on the big log, computed once without a callback."""
    pipe = Pipeline(big_log, PipelineParams(collapse=True))
    return {method: getattr(pipe, method)() for method in STAGES}


def recorder() -> tuple[list[tuple[int, int]], object]:
    calls: list[tuple[int, int]] = []
    return calls, lambda done, total: calls.append((done, total))


def assert_counts_up(calls: list[tuple[int, int]], total: int, every: int) -> None:
    assert calls, "no progress reported"
    assert calls[-1] == (total, total)
    done = [d for d, _ in calls]
    assert done == sorted(done) and all(t == total for _, t in calls)
    assert len(calls) >= total // every  # reports at least every `every` items


def test_parse_reports_bytes_up_to_the_file_size(big_log: Path) -> None:
    calls, progress = recorder()
    source = load(big_log, progress=progress)  # type: ignore[arg-type]
    size = big_log.stat().st_size
    assert_counts_up(calls, size, size // (5 * PROGRESS_LINES) * PROGRESS_LINES + 1)
    assert len(calls) == 5 + 1  # every PROGRESS_LINES lines, then the end
    assert len(source.messages) == 5 * PROGRESS_LINES + 7


def test_markdown_parse_reports_too(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("".join(f"# H{i}\ntext {i}\n" for i in range(PROGRESS_LINES)), "utf-8")
    calls, progress = recorder()
    assert len(load(doc, progress=progress).turns) == PROGRESS_LINES  # type: ignore[arg-type]
    assert calls[-1] == (doc.stat().st_size, doc.stat().st_size) and len(calls) == 3


def test_raising_from_progress_stops_the_parse_early(big_log: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import chunkscope.engine.read.parse as parse

    decoded: list[int] = []
    real = parse.decode_message

    def counting(line: str):  # type: ignore[no-untyped-def]
        decoded.append(1)
        return real(line)

    monkeypatch.setattr(parse, "decode_message", counting)

    def stop(done: int, total: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        load(big_log, progress=stop)
    assert len(decoded) <= PROGRESS_LINES  # stopped at the first report, not at the end


STAGES = {
    "source": "parse",
    "turns": "turns",
    "raw_chunks": "chunk",
    "compact_spans": "compact",
    "compacted": "compacted",
}


# On one xdist worker (``--dist loadgroup``): `stage_results` is computed once, not once for
# each worker a case lands on (~1.5 s each).
@pytest.mark.xdist_group("progress-stages")
@pytest.mark.parametrize("method", list(STAGES))
def test_a_stopped_pipeline_stage_keeps_nothing_and_runs_again(
    big_log: Path, stage_results: dict[str, object], method: str
) -> None:
    expected = stage_results[method]
    pipe = Pipeline(big_log, PipelineParams(collapse=True))

    def stop(done: int, total: int) -> None:
        raise Stop

    for earlier in list(STAGES)[: list(STAGES).index(method)]:
        getattr(pipe, earlier)()
    with pytest.raises(Stop):
        getattr(pipe, method)(progress=stop)
    assert pipe.runs[STAGES[method]] == 0  # nothing half-done was memoised
    assert getattr(pipe, method)() == expected
    assert pipe.runs[STAGES[method]] == 1


def test_split_stages_report_every_batch(big_log: Path) -> None:
    source = load(big_log)
    calls, progress = recorder()
    turns = collapse_messages(source.messages, progress)  # type: ignore[arg-type]
    assert_counts_up(calls, len(source.messages), PROGRESS_EVERY)
    assert turns == collapse_messages(source.messages)

    calls, progress = recorder()
    chunks = chunk_turns(source.turns, progress)  # type: ignore[arg-type]
    assert_counts_up(calls, len(source.turns), PROGRESS_EVERY)
    assert chunks == chunk_turns(source.turns)

    calls, progress = recorder()
    spans = compact_spans(chunks, 80, progress)  # type: ignore[arg-type]
    assert_counts_up(calls, len(chunks) - 1, PROGRESS_EVERY)
    assert spans == compact_spans(chunks, 80)

    calls, progress = recorder()
    built = chunks_from_spans(chunks, spans, progress)  # type: ignore[arg-type]
    assert_counts_up(calls, len(spans), PROGRESS_EVERY)
    assert built == chunks_from_spans(chunks, spans)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(), max_size=60), st.integers(1, 9), st.booleans())
def test_with_progress_yields_everything_and_counts_to_the_total(
    items: list[int], every: int, sized: bool
) -> None:
    calls: list[tuple[int, int]] = []
    source = items if sized else iter(items)
    out = list(with_progress(source, lambda d, t: calls.append((d, t)), every))
    assert out == items
    n = len(items)
    assert calls[-1] == (n, n if sized else 0)  # an iterator's total is unknown: 0
    assert [d for d, _ in calls] == [min(n, k) for k in range(every, n + every, every)] or n == 0
    assert list(with_progress(items, None)) == items


@pytest.mark.parametrize("name", ["sliding-window", "boundary", "markdown", "episodic"])
def test_strategies_report_progress_and_stop_when_it_raises(small_log: Path, name: str) -> None:
    from chunkscope.engine.chunk.strategies import run_strategy
    from chunkscope.engine.tokens import get_counter

    turns = load(small_log).turns
    counter = get_counter()
    plain = run_strategy(name, None, turns, counter)
    calls, progress = recorder()
    reported = run_strategy(name, None, turns, counter, progress=progress)  # type: ignore[arg-type]
    assert [c.text for c in reported.chunk_list] == [c.text for c in plain.chunk_list]
    assert [c.meta for c in reported.chunks] == [c.meta for c in plain.chunks]
    if name == "markdown":
        return  # one tokenizer pass over the document: nothing to report in between
    done = [d for d, _ in calls]
    assert done and done == sorted(done) and done[0] > 0  # counts up across count calls
    assert all(t == 0 for _, t in calls)  # how much a strategy will count is not known

    def stop(done: int, total: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        run_strategy(name, None, turns, counter, progress=stop)


def test_a_stopped_strategy_stage_keeps_nothing(small_log: Path) -> None:
    params = PipelineParams(strategy="sliding-window")
    pipe = Pipeline(small_log, params)

    def stop(done: int, total: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        pipe.raw_chunks(progress=stop)
    assert pipe.runs["chunk"] == 0 and pipe.runs["strategy"] == 0
    assert [c.text for c in pipe.raw_chunks()] == [
        c.text for c in Pipeline(small_log, params).raw_chunks()
    ]
