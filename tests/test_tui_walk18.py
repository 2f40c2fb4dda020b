"""Defects of the workbench found by review walk 18."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from chunkscope.tui.app import ChunkscopeApp, StartOptions
from tests.data.make_reader_fixtures import chatgpt_export
from tests.pilot import SIZE, make_app, settled, until, wait_for

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)
SIZES = pytest.mark.parametrize("size", [NARROW, SIZE], ids=["100x30", "160x48"])


def drawn(app: ChunkscopeApp) -> str:
    """The screen as drawn, row by row (a dialog over the workbench included)."""
    return "\n".join(
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    )


def export(tmp: Path) -> Path:
    """A ChatGPT export of two conversations: 0 "Tide pools" (older), 1 "Cache test"."""
    path = tmp / "conversations.json"
    path.write_text(json.dumps(chatgpt_export(), indent=1), encoding="utf-8")
    return path


def _dialogs(tmp: Path) -> dict[str, tuple[Callable[[ChunkscopeApp], object], tuple[str, ...]]]:
    """Each dialog the workbench opens with nothing loaded, and what it must say of its
    keys (the Export dialog and the sessions one are opened as a user does, below)."""
    from chunkscope.tui.screens.choose import ChooseScreen
    from chunkscope.tui.screens.confirm import ConfirmScreen
    from chunkscope.tui.screens.help import HelpScreen
    from chunkscope.tui.screens.loading import LoadingScreen
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from chunkscope.tui.screens.prompt import PromptScreen

    return {
        "help": (lambda app: app.push_screen(HelpScreen()), ("escape, q or ? closes",)),
        "picker": (
            lambda app: app.push_screen(OpenFileScreen(tmp)),
            ("enter opens", "escape cancels"),
        ),
        "loading": (lambda app: app.push_screen(LoadingScreen("x.jsonl")), ("escape cancels",)),
        "prompt": (
            lambda app: app.push_screen(PromptScreen("Recap budget in tokens", "1000")),
            ("enter to accept", "escape to cancel"),
        ),
        "profile": (
            lambda app: app.push_screen(ChooseScreen("Load a profile", [("a", "a"), ("b", "b")])),
            ("enter picks", "escape cancels"),
        ),
        "confirm": (
            lambda app: app.push_screen(
                ConfirmScreen("./_recap.md exists. Overwrite it?", yes="Overwrite")
            ),
            ("y: Overwrite", "n or escape: No"),
        ),
    }


@SIZES
async def test_every_dialog_says_its_own_keys(tmp_path: Path, size: tuple[int, int]) -> None:
    """Walk 18, F3: below a dialog the workbench's footer is hidden, so the dialog says
    its keys; the choice dialogs (Export, a profile, the sessions of a file) and the
    yes/no question said none, and the help said not how to close it."""
    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        under = app.screen
        unsaid: dict[str, list[str]] = {}
        for name, (open_it, said) in _dialogs(tmp_path).items():
            open_it(app)
            await until(pilot, lambda: app.screen is not under)
            await pilot.pause()
            text = drawn(app)
            unsaid[name] = [words for words in said if words not in text]
            app.pop_screen()
            await until(pilot, lambda: app.screen is under)
        assert not any(unsaid.values()), unsaid


@SIZES
async def test_the_palette_says_its_keys(size: tuple[int, int]) -> None:
    from textual.command import CommandPalette

    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.pause()
        text = drawn(app)
        assert "enter runs" in text and "escape closes" in text, text


@SIZES
async def test_the_export_dialog_says_its_keys(size: tuple[int, int]) -> None:
    from chunkscope.tui.screens.choose import ChooseScreen

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.pause()
        text = drawn(app)
        assert "the run as an HTML report" in text
        assert "enter picks" in text and "escape cancels" in text
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ChooseScreen), 5)


@SIZES
async def test_the_sessions_dialog_says_its_keys(tmp_path: Path, size: tuple[int, int]) -> None:
    from chunkscope.tui.screens.choose import ChooseScreen

    app = make_app(export(tmp_path))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.pause()
        text = drawn(app)
        assert "2 sessions in conversations.json" in text
        assert "enter opens it" in text and "escape keeps the newest" in text
        # numbered as --session (and the command of a page exported) counts them
        assert "the newest (1) is open" in text
        rows = [row.strip(" █▊▎") for row in text.splitlines()]
        assert "1. Cache test" in rows and "0. Tide pools" in rows, rows
        assert rows.index("1. Cache test") < rows.index("0. Tide pools")
