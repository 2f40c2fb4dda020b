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
