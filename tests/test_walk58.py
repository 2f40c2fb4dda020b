"""Walk 58's findings on the workbench. F1: an excluded chunk came back pinned after a
slider merged it with a pinned neighbour and moved back (the merged chunk, pinned, kept
the excluded one's start under its pin, and the split placed both as pins); the same
with a pin held under an exclusion. F2: picking ``summarizer: llm`` with no model
configured told the user to pass ``--summary-model``, a flag the workbench does not take."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pilot import (
    ROOT,
    make_app,
    palette_listed,
    recording_notifications,
    settled,
    until,
    wait_for,
)

SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"


def _marked_rows(app: Any) -> tuple[list[int], list[int]]:
    """The recap's pinned rows and excluded rows."""
    assert app.selection is not None
    rows = app.selection.candidates
    return [c.index for c in rows if c.pinned], [c.index for c in rows if c.excluded]


async def _rerun(pilot: Any, app: Any, **values: Any) -> None:
    """Knobs changed as a slider changes them, and the new run settled."""
    generation = app.run_generation
    app.request_run(app.state.tuning.with_values(values))
    await until(pilot, lambda: app.run_generation > generation)
    await settled(pilot, app)


async def test_f1_a_pinned_and_an_excluded_chunk_merged_split_as_they_were() -> None:
    """F1: ``p`` on chunk 5, ``x`` on chunk 6, chunk size 2000 (one chunk holds both:
    pinned, said so), then 200: chunk 6 came back pinned, the exclusion gone, and the
    recap wrote the chunk the user had excluded. Split again, each is as the user set it."""
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        await pilot.press(*["j"] * 5, "p", "j", "x")
        await until(pilot, lambda: _marked_rows(app) == ([5], [6]))
        await _rerun(pilot, app, topic_chunk_tokens=2000)
        assert _marked_rows(app) == ([0], []), _marked_rows(app)
        assert any("holds a pinned chunk and an excluded one" in s for s in shown), shown
        await _rerun(pilot, app, topic_chunk_tokens=200)
        assert _marked_rows(app) == ([5], [6]), _marked_rows(app)
        assert app.selection is not None
        assert not app.selection.candidates[6].selected


async def test_f1_a_pin_held_under_an_exclusion_comes_back_held() -> None:
    """F1 (the held pin): ``p`` then ``x`` on chunk 5 (excluded, its pin set aside),
    ``p`` on chunk 7, chunk size 2000 then 200: chunk 5 came back pinned. It comes back
    excluded with its pin set aside: ``x`` on it pins it again."""
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press(*["j"] * 5, "p", "x", "j", "j", "p")
        await until(pilot, lambda: _marked_rows(app) == ([7], [5]))
        await _rerun(pilot, app, topic_chunk_tokens=2000)
        assert _marked_rows(app) == ([0], [])
        await _rerun(pilot, app, topic_chunk_tokens=200)
        assert _marked_rows(app) == ([7], [5]), _marked_rows(app)
        shown = recording_notifications(app)
        await pilot.press("home", *["j"] * 5, "x")
        await until(pilot, lambda: _marked_rows(app) == ([5, 7], []))
        assert shown == ["Chunk 5: no longer excluded; pinned again."], shown


def test_f1_a_mark_set_on_the_merged_chunk_is_its_parts_mark() -> None:
    """F1: the parts of a merged chunk keep their own marks only while the merged chunk
    has the mark they make together (pinned over excluded): ``x`` then ``x`` on it
    changes nothing, ``x`` alone excludes both parts, ``p`` on an excluded one pins both."""
    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.tui.workbench.state import ChunkStart, TuningState

    turns = [Turn(None, "You", f"message number {i}", source_line=i + 1) for i in range(2)]
    a, b, merged = Chunk(turns[:1]), Chunk(turns[1:]), Chunk(turns)
    state = TuningState()
    state = state.toggled("pinned", a.text, ChunkStart.of(a))
    state = state.toggled("excluded", b.text, ChunkStart.of(b))
    state, _ = state.followed([merged])
    assert state.pinned == {merged.text} and not state.excluded
    both = state.toggled("excluded", merged.text).toggled("excluded", merged.text)
    split, notes = both.followed([a, b])
    assert (split.pinned, split.excluded, notes) == ({a.text}, {b.text}, [])
    split, _ = state.toggled("excluded", merged.text).followed([a, b])
    assert not split.pinned and split.excluded == split.held_pins == {a.text, b.text}
    excluded = TuningState().toggled("excluded", a.text, ChunkStart.of(a))
    excluded = excluded.toggled("excluded", b.text, ChunkStart.of(b))
    excluded, _ = excluded.followed([merged])
    split, _ = excluded.toggled("pinned", merged.text).followed([a, b])
    assert split.pinned == {a.text, b.text} and not split.excluded


async def test_f2_the_workbench_says_where_it_takes_the_llm_summarizers_model(
    isolated: Path,
) -> None:
    """F2: ctrl+p ``summarizer: llm`` with no model in the config file: the toast and the
    Summary panel said "--summary-model, or model under [summarizer] in the config file",
    and the workbench takes no such flag. They name the config file's key with the file's
    path, and the toast the offline summarizer."""
    from chunkscope.engine.config.settings import config_path

    app = make_app(ROOT / "sample_logs" / "docs_cleanup.jsonl")
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        await pilot.press("ctrl+p", *"summarizer: llm")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.summary_failure, 10), shown
        (toast,) = [s for s in shown if "needs a model" in s]
        _, panel = app.summary_of(0)
        for said in (toast, panel, app.summary_failure):
            assert "--summary-model" not in said, said
            assert "model under [summarizer] in the config file" in said, said
            assert str(config_path()) in said and str(isolated) in said, said
        assert "ctrl+p → “summarizer: extractive (offline)”" in toast, toast
        assert "“summarizer: extractive (offline)” needs no model" in panel, panel


def test_f2_the_command_line_keeps_its_flag_in_the_advice() -> None:
    """F2: the advice is declared once, by the engine's error; the command line (and a
    caller of the engine) still reads the flag that sets the model there."""
    from chunkscope.engine.errors import ModelMissing
    from chunkscope.engine.summarize import make_summarizer

    with pytest.raises(ModelMissing) as info:
        make_summarizer("llm")
    assert str(info.value) == (
        "the llm summarizer needs a model: --summary-model, or model under [summarizer]"
        " in the config file (chunkscope profile path)"
    )
