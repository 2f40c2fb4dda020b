"""Walk 62, F3: the keys typed right after a text prompt's Enter went into the closing
prompt's field and were lost with it: ``b ^U 500 ⏎ b ^U 800 ⏎`` set 500 and dropped the
second command, ``b ^U 600 ⏎ ?`` never opened the help, ``b ^U 500 ⏎ w ⏎ y`` wrote no
recap. Keys in a burst now go where they belong, in order, once the prompt has answered.

Each test fails on the code before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.screens.help import HelpScreen
from chunkscope.tui.screens.prompt import PromptScreen
from tests.pilot import burst, make_app, settled, until, wait_for


async def test_two_budget_prompts_in_one_burst_both_apply() -> None:
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        burst(app, "b", "ctrl+u", *"500", "enter", "b", "ctrl+u", *"800", "enter")
        assert await wait_for(pilot, lambda: app.budget == 800, 10), app.budget
        await pilot.pause()
        assert not isinstance(app.screen, PromptScreen)


async def test_a_key_after_the_prompt_reaches_the_workbench() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        burst(app, "b", "ctrl+u", *"600", "enter", "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert app.budget == 600


async def test_a_refused_value_keeps_the_prompt_and_the_keys_typed_after_it() -> None:
    """The prompt stays open on a value it refuses: what was typed after the Enter is
    the field's, in order (here the correction)."""
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        burst(app, "b", "ctrl+u", *"abc", "enter", "ctrl+u", *"700", "enter")
        assert await wait_for(pilot, lambda: app.budget == 700, 10), app.budget


@pytest.mark.parametrize("first", [(), ("b", "ctrl+u", *"500", "enter")], ids=["alone", "after"])
async def test_write_enter_and_overwrite_in_one_burst_write_the_recap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: tuple[str, ...]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "_recap.md").write_text("old\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        burst(app, *first, "w", "enter", "y")
        written = lambda: (tmp_path / "_recap.md").read_text(encoding="utf-8") != "old\n"  # noqa: E731
        assert await wait_for(pilot, written, 10)
        if first:  # the recap of the budget typed before it, not the one it replaced
            assert app.budget == 500
            selection = app.selection
            assert selection is not None and selection.budget == 500
            assert (tmp_path / "_recap.md").read_text(encoding="utf-8").strip() == (
                selection.text.strip()
            )
            assert selection.used_tokens <= 500


async def test_a_path_typed_ahead_in_the_picker_and_the_keys_after_its_enter(
    tmp_path: Path,
) -> None:
    """``ctrl+o PATH ⏎ b ^U 450 ⏎`` in one burst: the path typed ahead of the field's
    focus opens, and the budget command after it is the workbench's (a review of the
    fix: the picker passed the Enter to its field around the wait for the answer)."""
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\nA small guide.\n\n## Part\n\nMore words here.\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        burst(app, "ctrl+o", *str(doc), "enter", "b", "ctrl+u", *"450", "enter")
        assert await wait_for(pilot, lambda: app.budget == 450, 15), app.budget
        opened = lambda: app.pipe is not None and Path(app.pipe.path) == doc  # noqa: E731
        assert await wait_for(pilot, opened, 15)


async def test_w_after_a_new_run_never_summarizes_on_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slider step makes a new run whose summaries are still to come: `w` with another
    budget says the recap is being updated, and summarizes nothing itself (a review of
    the fix: the UI thread summarized every chunk, with an LLM for as long as it took)."""
    import threading

    from chunkscope.engine import pipeline as P
    from tests.pilot import recording_notifications

    monkeypatch.chdir(tmp_path)
    on_ui: list[int] = []
    real = P.Pipeline._summarize_texts

    def watched(self: P.Pipeline, texts: list[str], progress: object = None) -> object:
        if threading.current_thread() is threading.main_thread():
            on_ui.append(len(texts))
        return real(self, texts, progress)  # type: ignore[arg-type]

    monkeypatch.setattr(P.Pipeline, "_summarize_texts", watched)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        before = app.workbench.view
        shown = recording_notifications(app)
        # the summaries of the new run are not known yet when w comes
        monkeypatch.setattr(app, "summaries", {})
        app.request_run(app.state.with_tuning(max_chunk_tokens=120).tuning, force=True)
        await until(pilot, lambda: app.workbench.view is not before)
        app.set_budget(app.budget + 100)
        await pilot.press("w")
        await pilot.pause()
        assert on_ui == []
        assert any("being updated" in said for said in shown), shown
        assert not isinstance(app.screen, PromptScreen)  # nothing to write yet
