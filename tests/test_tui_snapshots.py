"""SVG snapshots of the workbench (two themes) and of the help screen, at 160x48.

Deterministic: a bundled sample log, the offline embedder and summarizer, fixed text
for timings and the file name without its directory (`fixed_timings`), and the app
waits until the run, its token counts, the summaries and the recap are all in.
Regenerate with ``pytest tests/test_tui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from chunkscope.tui.app import ChunkscopeApp, StartOptions
from tests.pilot import SAMPLE, SIZE, all_idle, settled, until, wait_for

pytestmark = pytest.mark.usefixtures("isolated")


async def _settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """The run, its follow-ups and the sweep of the run drawn."""
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    await settled(pilot, pilot.app)

    def swept() -> bool:
        panel = pilot.app.workbench.query_one(SweepPanel)
        # all_idle: no sweep scheduled either (a column's run schedules one 0.3 s later;
        # the panel's rows, and so the controls' scrollbar, change when it is drawn)
        return panel.result is not None and not panel.busy and all_idle(pilot.app)

    await until(pilot, swept)
    await pilot.pause()


def _app(theme: str) -> ChunkscopeApp:
    return ChunkscopeApp(
        StartOptions(path=str(SAMPLE), theme=theme, fixed_timings=True, loading_dialog_delay=60)
    )


def test_main_screen_dark(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app("chunkscope-dark"), terminal_size=SIZE, run_before=_settle)


def test_main_screen_light(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def select_and_expand(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settle(pilot)
        await pilot.press("down", "down", "enter")
        await pilot.pause()

    assert snap_compare(_app("chunkscope-light"), terminal_size=SIZE, run_before=select_and_expand)


def test_help_screen(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def open_help(pilot) -> None:  # type: ignore[no-untyped-def]
        from chunkscope.tui.screens.help import HelpScreen

        await pilot.pause()
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), 5)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    # Over the empty workbench (no file, no picker), so only the help text is compared.
    app = ChunkscopeApp(
        StartOptions(theme="chunkscope-dark", fixed_timings=True, open_picker=False)
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=open_help)


def _marked_app(tmp_path, theme: str = "chunkscope-dark") -> ChunkscopeApp:  # type: ignore[no-untyped-def]
    """The sample log with topic marks from a gold file: two of the topic segmenter's own
    cuts (hits) and a line it does not cut at (a miss)."""
    from chunkscope.engine.evaluate.measure import chunk_starts
    from chunkscope.engine.pipeline import Pipeline, PipelineParams

    cuts = chunk_starts(Pipeline(SAMPLE, PipelineParams(collapse=True)).merged().chunks)
    gold = tmp_path / "sample.gold.json"
    starts = sorted({1, cuts[1], cuts[3], 40})
    gold.write_text(f'{{"starts": {starts}}}\n')
    return ChunkscopeApp(
        StartOptions(
            path=str(SAMPLE),
            theme=theme,
            fixed_timings=True,
            loading_dialog_delay=60,
            gold=str(gold),
        )
    )


def test_marks_live_score_and_seed_beside_topic(snap_compare, tmp_path) -> None:  # type: ignore[no-untyped-def]
    async def compare(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settle(pilot)
        pilot.app.set_column_strategy("left", "merge:seed")
        await wait_for(pilot, lambda: pilot.app.column_result("left") is not None, 10)
        await _settle(pilot)
        await _quiet(pilot)

    assert snap_compare(_marked_app(tmp_path), terminal_size=SIZE, run_before=compare)


async def _quiet(pilot) -> None:  # type: ignore[no-untyped-def]
    """No notification on the snapshot (their timeout races a slow machine's start-up)."""
    from textual.widgets._toast import Toast

    pilot.app.clear_notifications()
    await wait_for(pilot, lambda: not pilot.app.screen.query(Toast), 5)
    await pilot.pause()


def test_marks_at_100x30(snap_compare, tmp_path) -> None:  # type: ignore[no-untyped-def]
    async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
        await _settle(pilot)
        await _quiet(pilot)

    assert snap_compare(_marked_app(tmp_path), terminal_size=(100, 30), run_before=settle)
