"""Defects of the workbench found by a review walk (issue 35, walk 11): a callback
queued by a widget that a re-layout removes before it runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import pytest
from textual.screen import Screen
from textual.widgets import Static

from tests.pilot import SIZE, make_app, settled

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


class _Probe(Static):
    """A widget whose queued callback says whether it ran, and on a widget attached."""

    calls: ClassVar[list[bool]] = []

    def poke(self) -> None:
        _Probe.calls.append(self.is_attached)


@asynccontextmanager
async def _held(screen: Screen[Any]) -> AsyncIterator[None]:
    """The callbacks queued on `screen` so far kept from running until the block ends
    (a refresh during it would run them before the removal: the race decided the other
    way, which is no test of it)."""
    queued = screen._callbacks[:]
    screen._callbacks.clear()
    try:
        yield
    finally:
        screen._callbacks[:0] = queued


async def test_a_footer_recompose_queued_before_a_relayout_does_not_crash() -> None:
    """Walk 11, 6: a slider step changes the keys in force, so the footer queues its
    recompose for after the screen's refresh; the terminal going to 100 columns then
    recomposes the screen, removing that footer, and the queued recompose ended the app
    on ``NoScreen: node has no screen``. Queued as ``call_after_refresh`` queues it."""
    from chunkscope.tui.screens.workbench import FittingFooter

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        old = bench.query_one(FittingFooter)
        bench._invoke_later(old.recompose, old)  # what the footer's call_after_refresh does
        async with _held(bench):  # the refresh that runs the queue comes after the re-layout
            await bench.recompose()  # the re-layout at the breakpoint: every widget anew
        await bench._invoke_and_clear_callbacks()  # the screen's refresh runs the queue
        assert not old.is_attached
        assert bench.query_one(FittingFooter) is not old
        await pilot.resize_terminal(*NARROW)
        await pilot.pause()
        assert app.is_running


async def test_a_removed_footer_recomposed_late_does_nothing() -> None:
    """The footer's own guard, for a recompose reaching it by another road than the
    screen's queue (Textual's signal, a message)."""
    from chunkscope.tui.screens.workbench import FittingFooter

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        old = bench.query_one(FittingFooter)
        await old.remove()
        await old.recompose()  # raised NoScreen
        assert not old.children


async def test_a_callback_queued_by_a_widget_removed_since_is_dropped() -> None:
    """Every screen drops a queued callback of a widget removed before it runs (the
    class of the footer's crash: a list's scroll to its card, the tabs' fitting), and
    runs the callbacks of widgets still there."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        gone, kept = _Probe(), _Probe()
        await bench.mount(gone, kept)
        _Probe.calls.clear()
        bench._invoke_later(gone.poke, gone)
        bench._invoke_later(kept.poke, kept)
        async with _held(bench):
            await gone.remove()
        await bench._invoke_and_clear_callbacks()
        assert _Probe.calls == [True]

