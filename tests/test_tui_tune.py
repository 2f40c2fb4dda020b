"""Auto-tune in the workbench (`A`, `tui.screens.tune`): the search is
`engine.evaluate.measure.tune` on the open file against its topic marks, and what it lists,
applies and saves is what the engine gives for the same file and settings."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label, ProgressBar

from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.evaluate.measure import (
    TUNE_GRIDS,
    Case,
    chunk_starts,
    grid_size,
    line_weights,
    score,
    score_text,
    tune,
    tuning_segmenter,
)
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.help import HELP
from chunkscope.tui.screens.prompt import PromptScreen
from chunkscope.tui.screens.tune import TuneScreen
from chunkscope.tui.widgets.merge_panel import MergePanel
from tests.pilot import (
    SAMPLE,
    SIZE,
    auto_tune,
    make_app,
    palette_listed,
    recording_notifications,
    until,
    wait_for,
)

pytestmark = pytest.mark.usefixtures("isolated")

#: User turns of the sample log where a new request starts: the topic marks.
MARKS = (86, 129)


def _mark(app: ChunkscopeApp, starts: tuple[int, ...] = MARKS) -> None:
    assert app.file_marks is not None
    app.set_file_marks(replace(app.file_marks, starts=starts))


def _pipeline(tuning: Tuning) -> Pipeline:
    """A fresh pipeline on the sample with `tuning` (as the workbench runs it)."""
    pipe = Pipeline(SAMPLE, PipelineParams(collapse=True))
    return pipe.with_params(merge=tuning.merge, min_chars=tuning.min_chars, topic=tuning.topic)


def _expected(tuning: Tuning, starts: tuple[int, ...] = MARKS, partial: bool = True) -> Any:
    """What `engine.evaluate.measure.tune` gives on the sample and its marks (partial unless
    told): the 5 best settings."""
    pipe = _pipeline(tuning)
    weights = line_weights(SAMPLE)
    case = Case(pipe.compacted(), pipe.embeddings(), [1, *starts], weights, partial=partial)
    mode = tuning.merge.mode
    segmenter = tuning_segmenter(tuning, mode)
    return tune([case], segmenter, TUNE_GRIDS[mode], top=5, prefer=tuning.values())


async def _ready(pilot: Any, app: ChunkscopeApp) -> None:
    """The first run is drawn (auto-tune needs no more: the summaries and the recap can
    go on meanwhile)."""
    await until(pilot, lambda: app.workbench is not None and app.workbench.view is not None)


def _slowed(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Each setting of the search takes `seconds` longer (the search is the real one)."""
    real = tuning_segmenter

    def slow(*args: Any, **kwargs: Any) -> Any:
        inner = real(*args, **kwargs)

        def run(case: Any, values: Any) -> Any:
            time.sleep(seconds)
            return inner(case, values)

        return run

    monkeypatch.setattr("chunkscope.tui.screens.tune.tuning_segmenter", slow)


async def test_the_palette_entry_without_marks_says_how_to_make_them() -> None:
    app = make_app()
    notes = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.press(*"auto-tune on the marks")
        await wait_for(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: any("topic marks" in n for n in notes))
        assert not isinstance(app.screen, TuneScreen)
        assert any(" m " in n for n in notes)  # the key that marks a topic


async def test_progress_then_the_five_best_next_to_the_settings_in_force(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _slowed(monkeypatch, 0.004)
    shown: list[tuple[int, bool]] = []  # (progress drawn, the bar on screen)
    draw = TuneScreen._progress

    def progress(self: TuneScreen, done: int) -> None:
        draw(self, done)
        bar = self.query_one("#tune-progress", ProgressBar)
        shown.append((int(bar.progress), bar.display))

    monkeypatch.setattr(TuneScreen, "_progress", progress)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        _mark(app)
        tuning = app.state.tuning
        screen = await auto_tune(pilot, app)
        total = grid_size(TUNE_GRIDS["topic"])
        assert any(0 < done < total and on for done, on in shown)  # fed while it ran
        assert shown[-1] == (total, True)
        assert not screen.query_one("#tune-progress").display  # the list replaced it

        want = _expected(tuning)
        assert len(screen.rows) == 5
        for row, w in zip(screen.rows, want, strict=True):
            assert row.values == w.values
            assert row.pk == pytest.approx(w.pk) and row.f1 == pytest.approx(w.f1)
        # The settings in force: the same scores as the run on screen.
        topics = _pipeline(tuning).merged().topic_chunks
        now = score(chunk_starts(topics), [1, *MARKS], line_weights(SAMPLE), partial=True)
        assert screen.current is not None
        assert screen.current.pk == pytest.approx(now.pk)
        assert screen.current.f1 == pytest.approx(now.f1)
        table = screen.query_one("#tune-table")
        assert table.row_count == 6  # type: ignore[attr-defined]
        first = [str(c) for c in table.get_row_at(0)]  # type: ignore[attr-defined]
        last = [str(c) for c in table.get_row_at(5)]  # type: ignore[attr-defined]
        best = want[0]
        assert first[:4] == [
            "#1",
            score_text(best.f1),
            score_text(best.recall),
            score_text(best.pk),
        ]
        assert last[:4] == ["now", score_text(now.f1), score_text(now.recall), score_text(now.pk)]


async def test_enter_applies_the_highlighted_seed_setting() -> None:
    app = make_app(mode="seed")
    notes = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        _mark(app)
        tuning = app.state.tuning
        screen = await auto_tune(pilot, app)
        want = _expected(tuning)
        assert [t.values for t in screen.rows] == [t.values for t in want]
        await pilot.press("down", "enter")  # the second best
        await until(pilot, lambda: not isinstance(app.screen, TuneScreen))
        chosen = tuning.with_values(want[1].values)
        assert app.state.tuning == chosen
        bench = app.workbench
        assert bench is not None
        await until(
            pilot, lambda: bench.view is not None and bench.view.params.merge == chosen.merge
        )
        assert bench.view is not None
        fresh = _pipeline(chosen).merged().chunks
        assert [c.text for c in bench.view.result.chunks] == [c.text for c in fresh]
        shown = bench.query_one(MergePanel).values()
        assert all(shown[k] == v for k, v in want[1].values.items())  # the sliders moved
        assert any(n.startswith("Auto-tune applied") for n in notes)


async def test_s_saves_the_highlighted_setting_as_a_profile(isolated: Path) -> None:
    from chunkscope.engine.config.settings import get_profile

    app = make_app()
    notes = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        _mark(app)
        tuning = app.state.tuning
        screen = await auto_tune(pilot, app)
        await pilot.press("down", "down", "s")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        field = app.screen.query_one("#prompt-input")
        field.value = "bad name[/]"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)  # check_profile_name refused it
        assert "bad name[/]" in str(app.screen.query_one("#prompt-error").render())
        field.value = "marks-tuned"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TuneScreen))
        chosen = tuning.with_values(screen.rows[2].values)
        assert get_profile("marks-tuned").tuning() == chosen
        assert any(n.startswith("Saved profile 'marks-tuned' to ") and "config" in n for n in notes)
        await pilot.press("escape")  # closes without applying
        await until(pilot, lambda: not isinstance(app.screen, TuneScreen))
        assert app.state.tuning == tuning


async def test_escape_during_the_search_cancels_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _slowed(monkeypatch, 0.02)
    app = make_app()
    notes = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        _mark(app)
        before = app.state.tuning
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, TuneScreen))
        screen = app.screen
        assert isinstance(screen, TuneScreen)
        await until(pilot, lambda: screen.done > 2)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, TuneScreen))
        worker = screen.worker
        assert worker is not None
        await until(pilot, lambda: worker.is_finished)
        assert screen.done < grid_size(TUNE_GRIDS["topic"]) and not screen.rows
        assert app.state.tuning == before
        assert any(n.startswith("Auto-tune cancelled") for n in notes)
        assert app.is_running  # a late result is dropped, not drawn on a closed screen


async def test_a_seed_loop_capped_in_tokens_is_refused_as_on_the_command_line() -> None:
    app = make_app(mode="seed", max_chunk_tokens=800)
    notes = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        _mark(app)
        await pilot.press("A")
        await pilot.pause()
        assert not isinstance(app.screen, TuneScreen)
        assert any("size cap in chars" in n for n in notes)


def test_the_help_lists_the_key() -> None:
    assert "| `A` | auto-tune" in HELP


async def test_two_partial_marks_rank_first_a_setting_that_finds_them() -> None:
    """Two marks, partial (the default): the label says the stretch scored, the best
    setting finds both marks, and no setting that finds none ranks above one that
    finds some (with Pk over the whole file, one chunk for the whole log could win)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        _mark(app)
        assert app.file_marks is not None and app.file_marks.partial
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, TuneScreen))
        screen = app.screen
        assert isinstance(screen, TuneScreen)
        label = str(screen.query_one(Label).render())
        assert "2 topic marks\n(at lines 86, 129; partial: scored over lines 84-131" in label
        assert "ranked by F1 (finding the marks), then Pk" in label
        await until(pilot, lambda: bool(screen.rows))
        best = screen.rows[0]
        # the two marks make three segments at least (the follow-ups "Continue." and "Keep
        # going" open none)
        assert best.recall == 1.0 and best.f1 >= 0.6 and best.chunks >= 3
        found = [t.recall > 0 for t in screen.rows]
        assert found == sorted(found, reverse=True)
        objectives = [t.objective() for t in screen.rows]
        assert objectives == sorted(objectives)
        await pilot.press("enter")  # apply the best: the workbench scores it the same
        await until(pilot, lambda: not isinstance(app.screen, TuneScreen))
        bench = app.workbench
        assert bench is not None
        await until(
            pilot,
            lambda: bench.view is not None and bench.view.params.topic == app.state.tuning.topic,
        )
        report = app.marks_report(bench.view)  # type: ignore[arg-type]
        assert report is not None and report.missed == 0
        assert report.scores.f1 == pytest.approx(best.f1)
