"""Helpers shared by the workbench's Pilot tests: the app on a sample log, waiting for
a condition, and waiting until the workbench has settled."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkscope.tui.app import ChunkscopeApp, StartOptions

if TYPE_CHECKING:
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from chunkscope.tui.screens.tune import TuneScreen

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"
SIZE = (160, 48)


def make_app(path: Path | str = SAMPLE, **options: object) -> ChunkscopeApp:
    """The app on `path` with fixed timing texts (the file name without its folder);
    options named after a knob (``budget=300``) are knob values given at start. The
    loading dialog waits for a load longer than any test's (a test of the dialog gives
    its own `loading_dialog_delay`): on a busy machine a small file's load could take
    the default 0.3 s, and the dialog came and went at random (its drawing, and a whole
    redraw of the workbench after it, in about one start of three)."""
    from chunkscope.engine.config.tuning import PROFILE_KNOBS

    knobs = {k: v for k, v in options.items() if k in PROFILE_KNOBS}
    rest = {k: v for k, v in options.items() if k not in PROFILE_KNOBS}
    rest.setdefault("loading_dialog_delay", 60.0)
    return ChunkscopeApp(
        StartOptions(path=str(path), fixed_timings=True, knobs=knobs, **rest)  # type: ignore[arg-type]
    )


async def wait_for(pilot: Any, condition: Callable[[], object], timeout: float = 20.0) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; whether it held. For a
    wait that the test's own assertion follows (its message says what went wrong), in
    place of a fixed pause: it returns as soon as the app is there, however slow the machine.

    Between looks the test only sleeps: the app runs on by itself (its screen lays out and
    draws on its own timer). Once `condition` is seen to hold, the app handles what is
    queued (`pilot.pause`: every widget of the screen called back, a redraw forced) before
    the test goes on, as it did before each look: that pause at every look, each 20 ms,
    took a tenth of a workbench test's CPU time in `settled` alone."""
    if condition():
        return True
    start = time.monotonic()
    while True:
        await asyncio.sleep(0.02)
        if condition():
            await pilot.pause(0)
            return True
        if time.monotonic() - start > timeout:
            return False


async def until(pilot: Any, condition: Callable[[], object], timeout: float = 20.0) -> None:
    if not await wait_for(pilot, condition, timeout):
        raise AssertionError("timed out waiting for the app")


def is_settled(app: ChunkscopeApp) -> bool:
    """The run is drawn with exact token counts, the recap is selected, no work is left."""
    bench = app.workbench
    return (
        bench is not None
        and bench.view is not None
        and bench.view.merged_tokens_exact
        and app.selection is not None
        and app.workers_idle()
    )


async def settled(pilot: Any, app: ChunkscopeApp, timeout: float = 20.0) -> None:
    """Wait for the first run, its exact token counts, the summaries and the recap."""
    await until(pilot, lambda: is_settled(app), timeout)
    await pilot.pause()


async def picker_listed(pilot: Any, app: ChunkscopeApp) -> OpenFileScreen:
    """Wait for the file picker to be open and to have listed its folder; the picker."""
    from chunkscope.tui.screens.open_file import OpenFileScreen

    await until(pilot, lambda: isinstance(app.screen, OpenFileScreen))
    screen = app.screen
    assert isinstance(screen, OpenFileScreen)
    await until(pilot, lambda: screen.listed)
    return screen


async def auto_tune(pilot: Any, app: ChunkscopeApp) -> TuneScreen:
    """Press ``A`` and wait for the auto-tune screen to list its settings; the screen."""
    from chunkscope.tui.screens.tune import TuneScreen

    await pilot.press("A")
    await until(pilot, lambda: isinstance(app.screen, TuneScreen))
    screen = app.screen
    assert isinstance(screen, TuneScreen)
    await until(pilot, lambda: bool(screen.rows))
    return screen


def palette_listed(app: ChunkscopeApp) -> bool:
    """The command palette is open and has listed its hits for what was typed into it
    (its search, a worker of its own, has ended): enter now runs the first hit."""
    from textual.command import CommandPalette
    from textual.worker import WorkerState

    screen = app.screen
    if not isinstance(screen, CommandPalette) or not screen.has_class("-ready"):
        return False
    return not any(
        w.node is screen and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        for w in app.workers
    )


def all_idle(app: ChunkscopeApp) -> bool:
    """No pipeline work and no sweep running or scheduled (the sweep starts on a timer
    of its own, which `workers_idle` leaves out): nothing will redraw by itself."""
    return app.workers_idle() and app._sweep_timer is None


def recording_notifications(app: ChunkscopeApp) -> list[str]:
    """Every notification `app` shows from now on (a toast expires sooner than a loaded
    machine gets to the check)."""
    shown: list[str] = []
    notify = app.notify

    def recording(message: str, *a: Any, **kw: Any) -> None:
        shown.append(str(message))
        notify(message, *a, **kw)

    app.notify = recording  # type: ignore[method-assign]
    return shown


def open_dialog(app: ChunkscopeApp) -> Any:
    """The dialog on top of the screen stack: its screen's child that is not the rack of
    toasts Textual mounts beside it."""
    return next(w for w in app.screen.children if type(w).__name__ != "ToastRack")


def drawn_toasts(app: ChunkscopeApp) -> list[Any]:
    """The toasts on every screen of the stack that are drawn: placed, and neither they
    nor a container of theirs hidden (a screen's own rack behind a dialog is not)."""
    return [
        toast
        for screen in app.screen_stack
        for toast in screen.query("Toast")
        if toast.region and all(node.display for node in toast.ancestors_with_self[:-1])
    ]


def burst(app: ChunkscopeApp, *keys: str) -> None:
    """Keys as a terminal delivers a burst (tmux send-keys): all queued at once, none
    handled before the next arrives (`pilot.press` waits for each)."""
    from textual import events
    from textual.keys import _character_to_key

    assert app._driver is not None
    for key in keys:
        if len(key) == 1:  # a character: named as the terminal names it ("/" is slash)
            event = events.Key(_character_to_key(key), key)
        else:
            event = events.Key(key, " " if key == "space" else None)
        event.set_sender(app)
        app._driver.send_message(event)
