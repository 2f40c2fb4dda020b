"""Walk 59's later findings on the workbench, the ones fixed; each test fails on the code
before its fix. F10: a resize that rebuilt the layout while a dialog was open brought the
workbench's footer back under the dialog (its keys typed into the dialog's field). F6: at
a budget too small for the task's first word the recap's list came in chunk order, the
lowest score first, an excluded chunk in the middle. F8: that empty recap was previewed
blank and written (`w`) as ``the recap (0 tokens)``, without the reason ``chunkscope
recap`` gives. F9: while a file's summaries were being computed the Recap panel said
``Open a file to preview its recap.`` and `w` ``open a file and summarize it (s)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer

from tests.pilot import ROOT, make_app, recording_notifications, settled, until, wait_for

SAMPLE = ROOT / "sample_logs" / "research_notes.jsonl"


@pytest.mark.parametrize("sizes", [((160, 48), (100, 30)), ((100, 30), (160, 48))])
async def test_f10_the_footer_stays_hidden_below_a_dialog_across_a_resize(
    sizes: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """F10: ``b`` (the budget prompt), then the terminal resized 160↔100 with the prompt
    open: the rebuilt workbench showed its footer (``? Help  q Quit  z Zoom …``) under
    the dialog, whose field those keys type into. It stays hidden until the dialog goes."""
    from chunkscope.tui.screens.prompt import PromptScreen

    first, then = sizes
    app = make_app(SAMPLE)
    async with app.run_test(size=first) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert not any(f.visible for f in bench.query(Footer))
        await pilot.resize_terminal(*then)
        await until(pilot, lambda: bench.narrow == (then[0] < 130))
        await pilot.pause()
        footers = list(bench.query(Footer))
        assert footers and not any(f.visible for f in footers)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is bench)
        assert all(f.visible for f in bench.query(Footer))


async def _budget(pilot: Any, app: Any, budget: int) -> None:
    """``b``, the budget typed, enter; the recap selected anew at it."""
    await pilot.press("b", *["backspace"] * 5, *str(budget), "enter")
    await until(pilot, lambda: app.selection is not None and app.selection.budget == budget)
    await settled(pilot, app)


async def test_f6_the_recap_lists_its_candidates_by_score_at_a_budget_too_small() -> None:
    """F6: ``x`` on chunk 2, then budget 1 (too small for the task's first word): the
    list went ``0 0.02 · 1 0.04 · 2 0.05 …`` in chunk order, the best last of 57 and
    the excluded one in the middle. Ranked by score as at budget 1000, the excluded last."""
    from chunkscope.tui.widgets.candidate_list import CandidateList

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("j", "j", "x")
        await until(
            pilot, lambda: app.selection is not None and app.selection.candidates[2].excluded
        )
        await settled(pilot, app)
        listed = bench.query_one(CandidateList)
        wide = [(r.index, r.excluded) for r in listed.rows]
        await _budget(pilot, app, 1)
        assert app.selection is not None and app.selection.task_left_out
        assert await wait_for(pilot, lambda: not any(r.selected for r in listed.rows), 5)
        rows = listed.rows
        shown = [r for r in rows if not r.excluded]
        assert [r.index for r in rows[len(shown) :]] == [2], [r.index for r in rows]
        scores = [r.score for r in shown]
        assert scores == sorted(scores, reverse=True), [(r.index, r.score) for r in rows[:5]]
        assert [(r.index, r.excluded) for r in rows] == wide


#: What ``chunkscope recap --budget 1`` says of the recap of `SAMPLE` (a task in it).
TOO_SMALL = "budget (1 token) is too small for even the task's first word: the recap is empty"


async def test_f8_an_empty_recap_says_why_in_its_preview_and_when_written(
    isolated: Path,
) -> None:
    """F8: budget 1 on a log with a task: the preview under ``preview _recap.md`` was
    blank and ``w`` said ``Wrote the recap (0 tokens) to _recap.md.``, where the command
    line says the budget is too small for even the task's first word. Both say so now,
    in the command's words; the file written is the recap, empty."""
    from textual.widgets import TextArea

    from chunkscope.tui.screens.prompt import PromptScreen

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await _budget(pilot, app, 1)
        assert app.selection is not None and app.selection.text == ""
        preview = bench.query_one("#recap-preview", TextArea)
        assert await wait_for(pilot, lambda: TOO_SMALL in preview.text, 5), preview.text
        shown = recording_notifications(app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("enter")
        await until(pilot, lambda: any("Wrote" in s for s in shown))
        assert any(TOO_SMALL in s for s in shown), shown
    assert (isolated / "_recap.md").read_text() == ""


async def test_f9_while_the_summaries_run_the_recap_says_it_is_being_computed(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F9: a large file open, its summaries at 0% then 50%: the Recap panel said ``Open
    a file to preview its recap.`` and ``w`` ``No recap yet: open a file and summarize
    it (s).``, a file open and summarizing. Held here until the test lets them go: the
    panel says the recap is being computed, with how far once the summaries say it, and
    ``w`` that it is not ready yet; then the recap comes as ever."""
    import threading

    from textual.widgets import TextArea

    from chunkscope.engine.pipeline import Pipeline

    gate = threading.Event()
    summaries = Pipeline.summaries

    def held(self: Pipeline, progress: Any = None) -> Any:
        if progress is not None:
            progress(2, 4)
        gate.wait(30)
        return summaries(self, progress=progress)

    monkeypatch.setattr(Pipeline, "summaries", held)
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        try:
            await until(pilot, lambda: app.workbench is not None and app.workbench.view)
            bench = app.workbench
            assert bench is not None
            preview = bench.query_one("#recap-preview", TextArea)
            computing = "Computing the recap: summarizing the merged chunks"
            assert await wait_for(pilot, lambda: preview.text.startswith(computing), 5), (
                preview.text
            )
            assert await wait_for(pilot, lambda: preview.text.endswith(", 50% done…"), 10), (
                preview.text
            )
            shown = recording_notifications(app)
            await pilot.press("w")
            await until(pilot, lambda: bool(shown))
            assert shown == [
                "The recap is not ready yet: its summaries are being computed; "
                "w writes it once the Recap panel shows it."
            ], shown
        finally:
            gate.set()
        await settled(pilot, app)
        assert app.selection is not None
        assert await wait_for(pilot, lambda: preview.text.startswith("## Task"), 5), preview.text
