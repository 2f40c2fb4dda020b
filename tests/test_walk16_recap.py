"""Walk 16 (recap helper C): the workbench's ``w`` refuses a missing folder as the
commands do; bidi controls never reach the recap, the chunks or the cards; a Claude Code
subagent's work survives collapsing."""

from __future__ import annotations

from pathlib import Path

from tests.pilot import make_app, recording_notifications, settled, until

NARROW = (100, 30)


async def test_w_into_a_missing_folder_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    """Walk 16, 10: ``w`` with ``nd8/sub/x.md`` created the folders; the commands say
    ``cannot write ...: No such file or directory``, and so does the workbench now."""
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen

    bad = tmp_path / "nd8" / "sub" / "x.md"
    app = make_app()
    shown = recording_notifications(app)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(bad)
        await pilot.press("enter")
        said = f"cannot write {bad}: No such file or directory"
        await until(pilot, lambda: said in shown)
        assert not (tmp_path / "nd8").exists()
