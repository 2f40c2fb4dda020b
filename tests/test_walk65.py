"""Walk 65's findings on the workbench: F1 (`w` right after a slider step, or a typed
chunk count, wrote the recap of the run before the step, its toast the old token count),
F2 (a summary put while the Search panel hid the Summary panel was drawn with the height
of the one before, its end cut off), F3 (the before-merge strip's cuts row cut inside a
word beside the key panel), F4 (esc during the summaries of a file just opened left the
Recap panel "Computing the recap…" for good).

Each test fails on the code before its fix, but the typed chunk count's: its timing
under the test's pilot never showed the stale recap, and it stays as a guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.screens.prompt import PromptScreen
from chunkscope.tui.widgets.merge_panel import MergePanel
from chunkscope.tui.widgets.slider import Slider
from tests.pilot import burst, make_app, recording_notifications, settled, wait_for


async def test_f1_w_right_after_a_slider_step_writes_nothing_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        before = app.workbench.view
        shown = recording_notifications(app)
        slider = app.workbench.query_one(MergePanel).query_one("#topic-chunk-tokens", Slider)
        slider.focus()
        await pilot.pause()
        burst(app, "right", "w")
        said = await wait_for(pilot, lambda: any("being updated" in s for s in shown), 10)
        assert said, (shown, app.workbench.view is before)
        assert not isinstance(app.screen, PromptScreen)  # no prompt to write the old recap
        # once the step's run and its recap are in, w writes the recap of the step
        await settled(pilot, app)
        assert app.workbench.view is not before
        burst(app, "w", "enter")
        written = tmp_path / "_recap.md"
        assert await wait_for(pilot, written.exists, 10)
        assert app.selection is not None
        assert written.read_text(encoding="utf-8").strip() == app.selection.text.strip()


async def test_f2_a_summary_put_under_the_search_panel_is_drawn_whole_after_it() -> None:
    """Enter on a search result selects its chunk while the Search panel hides the
    Summary panel; after esc the summary's body must be as tall as its text (its last
    lines were cut off: "... 30 links were rewritten by")."""
    from textual.widgets import Static

    from chunkscope.tui.widgets.chunk_list import ChunkList
    from tests.pilot import ROOT

    app = make_app(ROOT / "sample_logs" / "docs_cleanup.jsonl")
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        merged = bench.query_one("#merged", ChunkList)
        merged.focus()
        await pilot.press("home")
        body = bench.query_one("#summary-body", Static)
        for question in ("which pages were merged", "where do the how-to guides go"):
            await pilot.press("slash")
            burst(app, *question, "enter")
            await wait_for(pilot, lambda: app.search_answer is not None, 10)
            await pilot.pause()
            burst(app, "down", "down", "down", "enter")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            await pilot.pause()
            width = body.content_region.width
            wanted = body.get_content_height(body.size, body.size, width)
            assert body.size.height == wanted, (body.size.height, wanted)


@pytest.mark.paints
async def test_f3_the_before_merge_cuts_row_is_said_whole_beside_the_key_panel() -> None:
    """At 100 columns beside the key panel the compare view's before-merge strip said
    ``not merged: a cut afte…``: a shorter form that fits, never a word cut."""
    from textual.widgets import HelpPanel

    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        app.action_show_help_panel()
        await wait_for(pilot, lambda: bool(bench.query(HelpPanel)) and bench.keys_open, 10)
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: app.column_result("right") is not None, 10)
        await wait_for(pilot, app.workers_idle, 10)
        await pilot.pause(0.3)
        strip = bench.query_one("#strip-left", SimilarityStrip)
        row = next(r for r in strip.rendered_lines() if r.startswith("cuts")).rstrip()
        assert "not merged" in row, row
        assert not row.endswith("…"), row
        words = row.split()
        assert all(w.strip("(),:") for w in words), row
        units = len(bench.view.compacted)
        assert f"{units - 1} cuts" in row or f"every unit ({units - 1})" in row, row


async def test_f4_esc_during_the_summaries_says_the_recap_was_cancelled_and_s_brings_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Esc while the summaries of a file just opened were being computed left the Recap
    panel "Computing the recap…" for good, nothing running, and `w` waiting for it."""
    import time

    from textual.worker import WorkerState

    from chunkscope.engine import pipeline as P

    real = P.Pipeline._summarize_texts

    def slow(self: P.Pipeline, texts: list[str], progress: object = None) -> object:
        time.sleep(0.02 * len(texts))
        return real(self, texts, progress)  # type: ignore[arg-type]

    monkeypatch.setattr(P.Pipeline, "_summarize_texts", slow)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:

        def summarizing() -> bool:
            return (
                any(w.group == "follow-up" and w.state == WorkerState.RUNNING for w in app.workers)
                and app.tokens_ready
            )

        assert await wait_for(pilot, summarizing, 20)
        shown = recording_notifications(app)
        await pilot.press("escape")
        assert await wait_for(pilot, app.workers_idle, 20)
        await pilot.pause()
        assert "Cancelled." in shown
        assert app.selection is None  # the summaries were on their way
        if app.selection is None:  # not every summary was known: said so
            assert "cancelled" in app.recap_note(), app.recap_note()
            assert not app.recap_computing()
            monkeypatch.setattr(P.Pipeline, "_summarize_texts", real)
            await pilot.press("s")
            assert await wait_for(pilot, lambda: app.selection is not None, 20)
        assert app.recap_state == "idle"


async def test_f1_w_right_after_a_typed_chunk_count_writes_nothing_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with `n`: ``n ^U 40 ⏎ w ⏎ y`` wrote the recap of the count before."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "_recap.md").write_text("old\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        count = len(app.workbench.view.result.chunks)
        shown = recording_notifications(app)
        burst(app, "n", "ctrl+u", *str(count - 5), "enter", "w", "enter", "y")
        await wait_for(pilot, lambda: bool(shown), 10)
        await settled(pilot, app)
        await pilot.pause()
        written = (tmp_path / "_recap.md").read_text(encoding="utf-8")
        if written != "old\n":  # written: the recap of the count typed
            assert app.selection is not None
            assert written.strip() == app.selection.text.strip()
        else:
            assert any("being updated" in s for s in shown), shown
