"""SVG snapshots of every screen and panel, at 160x48 and 100x30, dark and light (issue 26).

The workbench views (the main screen, compare mode, a zoomed panel, the narrow layout's
Summary and Recap tabs) open the bundled sample log and wait until it has settled; the
dialogs (help, file picker, loading progress, prompt, choice, confirmation) open over
the empty workbench with the arguments the app gives them, so they cost a fraction of a
second each. The auto-tune screen is shown once its search over the sample log's two
topic marks has listed its best settings.
Regenerate with ``pytest tests/test_tui_screens_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.app import ChunkscopeApp, StartOptions
from tests.pilot import ROOT, SAMPLE, settled, until, wait_for

pytestmark = pytest.mark.usefixtures("isolated")

SIZES = {"wide": (160, 48), "narrow": (100, 30)}
THEMES = {"dark": "chunkscope-dark", "light": "chunkscope-light"}

Step = Callable[[Any], Awaitable[None]]


async def _settle(pilot: Any) -> None:
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    app = pilot.app
    await settled(pilot, app)

    def swept() -> bool:
        panel = app.workbench.query_one(SweepPanel)
        return panel.result is not None and not panel.busy and app.workers_idle()

    await until(pilot, swept)
    await _no_toasts(pilot)


async def _no_toasts(pilot: Any) -> None:
    """The notifications cleared, their toasts gone from the screen and that drawn."""
    from textual.widgets._toast import Toast

    app = pilot.app
    app.clear_notifications()
    await wait_for(pilot, lambda: not app.screen.query(Toast), 5)
    await pilot.pause()


def _keys(*keys: str) -> Step:
    async def run(pilot: Any) -> None:
        await _settle(pilot)
        for key in keys:
            await pilot.press(key)
            await until(pilot, pilot.app.workers_idle)
            await pilot.pause()
        await _settle(pilot)

    return run


async def _compare(pilot: Any) -> None:
    await _settle(pilot)
    app = pilot.app
    app.set_column_strategy("right", "sliding-window")
    await until(pilot, lambda: app.column_result("right") is not None)
    await until(pilot, app.workers_idle)
    await _settle(pilot)


async def _zoom_merge(pilot: Any) -> None:
    await _settle(pilot)
    app = pilot.app
    app.screen.query_one("#merge-mode").focus()
    await pilot.press("z")
    await wait_for(pilot, lambda: app.screen.maximized is not None, 5)
    await pilot.pause()


async def _tab(pilot: Any, tab: str) -> None:
    from textual.widgets import TabbedContent

    await _settle(pilot)
    app = pilot.app
    app.screen.query_one(TabbedContent).active = tab
    await pilot.pause()  # the switch, and whatever work the newly shown tab starts
    await until(pilot, app.workers_idle)
    await pilot.pause()


async def _summary_tab(pilot: Any) -> None:
    await _tab(pilot, "tab-summary")


async def _recap_tab(pilot: Any) -> None:
    await _tab(pilot, "tab-recap")


#: Views of the workbench on the sample log: name -> what to do once it has settled.
VIEWS: dict[str, Step] = {
    "main": _settle,
    "compare": _compare,
    "zoom_merge": _zoom_merge,
}
NARROW_ONLY: dict[str, Step] = {"summary_tab": _summary_tab, "recap_tab": _recap_tab}


def _cases() -> list[Any]:
    cases = []
    for theme in THEMES:
        for size in SIZES:
            for view in VIEWS:
                cases.append(pytest.param(view, size, theme, id=f"{view}-{size}-{theme}"))
        for view in NARROW_ONLY:
            cases.append(pytest.param(view, "narrow", theme, id=f"{view}-narrow-{theme}"))
    return cases


@pytest.mark.parametrize(("view", "size", "theme"), _cases())
def test_workbench_view(snap_compare, view: str, size: str, theme: str) -> None:  # type: ignore[no-untyped-def]
    app = ChunkscopeApp(
        StartOptions(
            path=str(SAMPLE), theme=THEMES[theme], fixed_timings=True, loading_dialog_delay=60
        )
    )
    step = VIEWS.get(view) or NARROW_ONLY[view]
    assert snap_compare(app, terminal_size=SIZES[size], run_before=step)


# ---------------------------------------------------------------------------- dialogs


def _samples_here(tmp: Path) -> Path:
    """The sample logs copied with one fixed modification time (the picker shows it)."""
    folder = tmp / "sample_logs"
    shutil.copytree(ROOT / "sample_logs", folder)
    stamp = time.mktime((2026, 1, 2, 3, 4, 0, 0, 0, -1))
    for path in folder.iterdir():
        os.utime(path, (stamp, stamp))
    return folder


def _dialog(name: str, tmp: Path) -> Callable[[ChunkscopeApp], None]:
    """What opens dialog `name` over the empty workbench."""
    from chunkscope.tui.screens.choose import ChooseScreen
    from chunkscope.tui.screens.confirm import ConfirmScreen
    from chunkscope.tui.screens.help import HelpScreen
    from chunkscope.tui.screens.loading import LoadingScreen
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from chunkscope.tui.screens.prompt import PromptScreen

    def picker(app: ChunkscopeApp) -> None:
        app.push_screen(OpenFileScreen(_samples_here(tmp)))

    def loading(app: ChunkscopeApp) -> None:
        # Frozen at a known point of the load: the worker would move it on by itself.
        screen = LoadingScreen("sample_logs/sample.jsonl")
        screen.set_stage("embedding chunks", 40, 100)
        app.push_screen(screen)

    dialogs: dict[str, Callable[[ChunkscopeApp], None]] = {
        "help": lambda app: app.push_screen(HelpScreen()),
        "picker": picker,
        "loading": loading,
        "prompt": lambda app: app.push_screen(
            PromptScreen("Recap budget in tokens (100-8000)", "1000")
        ),
        "choose": lambda app: app.push_screen(
            ChooseScreen(
                "Export",
                [
                    ("json", "merged chunks as JSON"),
                    ("markdown", "merged chunks as markdown"),
                    ("recap", "the recap (_recap.md)"),
                ],
            )
        ),
        "confirm": lambda app: app.push_screen(
            ConfirmScreen("./_recap.md exists. Overwrite it?", yes="Overwrite")
        ),
    }
    return dialogs[name]


DIALOGS = ["help", "picker", "loading", "prompt", "choose", "confirm"]


def _tree_listed(tree: Any) -> bool:
    """The picker's directory tree shows the folder's entries (its loader is a worker)."""
    return bool(tree.root.children) and tree._load_queue.empty()


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("dialog", DIALOGS)
def test_dialog(
    snap_compare, tmp_path: Path, monkeypatch, dialog: str, size: str, theme: str
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    app = ChunkscopeApp(StartOptions(theme=THEMES[theme], fixed_timings=True, open_picker=False))
    open_it = _dialog(dialog, tmp_path)

    async def run(pilot: Any) -> None:
        from textual.widgets import DirectoryTree, Input

        from chunkscope.tui.screens.open_file import OpenFileScreen

        await pilot.pause()
        under = pilot.app.screen
        open_it(pilot.app)
        await wait_for(pilot, lambda: pilot.app.screen is not under, 5)
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, OpenFileScreen):
            tree = screen.query_one("#tree", DirectoryTree)
            await until(pilot, lambda: screen.listed)
            await until(pilot, lambda: _tree_listed(tree))
            await pilot.pause()
        for field in screen.query(Input):  # a blinking cursor is drawn or not by the clock
            field.cursor_blink = False
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run)


# ---------------------------------------------------------------------------- auto-tune


#: User turns of the sample log where a new request starts (as in tests/test_tui_tune.py).
MARKS = (86, 129)


async def _tuned(pilot: Any) -> None:
    """`A` on the sample log with two topic marks, once the search has listed its best."""
    from dataclasses import replace

    from chunkscope.tui.screens.tune import TuneScreen

    app = pilot.app
    await _settle(pilot)
    assert app.file_marks is not None
    app.set_file_marks(replace(app.file_marks, starts=MARKS))
    await pilot.pause()
    await until(pilot, app.workers_idle)
    await pilot.press("A")
    await until(pilot, lambda: isinstance(app.screen, TuneScreen) and app.screen.has_class("-done"))
    await until(pilot, app.workers_idle)
    await _no_toasts(pilot)


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("size", list(SIZES))
def test_tune_screen(snap_compare, size: str, theme: str) -> None:  # type: ignore[no-untyped-def]
    app = ChunkscopeApp(
        StartOptions(
            path=str(SAMPLE), theme=THEMES[theme], fixed_timings=True, loading_dialog_delay=60
        )
    )
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_tuned)


# ---------------------------------------------------------------------------- review


POEMS = ROOT / "tests" / "fixtures" / "hooks_cc_curry_poems.jsonl"


def _review_app(tmp: Path, monkeypatch: pytest.MonkeyPatch, theme: str) -> ChunkscopeApp:
    """`chunkscope review` of a project whose last session stored its recap (as
    `chunkscope hook session-end --budget 150` does: not every summary fits)."""
    from dataclasses import replace

    from chunkscope.engine.inject.recaps import build_recap, save_stored
    from chunkscope.tui.cli.review import review_options
    from tests.logs import claude_project

    project, folder = claude_project(tmp, monkeypatch)
    transcript = folder / "s1.jsonl"
    shutil.copyfile(POEMS, transcript)
    built = build_recap(transcript, project, event="SessionEnd", session_id="s1", budget=150)
    save_stored(built.stored)
    options = review_options(str(project))
    return ChunkscopeApp(replace(options, theme=THEMES[theme], fixed_timings=True))


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("size", list(SIZES))
def test_review_mode(  # type: ignore[no-untyped-def]
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str, theme: str
) -> None:
    # The notification naming the project (a temporary folder here) is cleared by _settle;
    # the recap preview's title says what is reviewed.
    app = _review_app(tmp_path, monkeypatch, theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_settle)
