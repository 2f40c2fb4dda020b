"""Defects of the workbench found by a review walk (issue 35, walk 10): a re-layout
keeps the summaries' progress, the sweep and the chosen tab; a toast under a dialog
says where it is cut and leaves the dialog alone at any width; the narrow header beside
the keys panel keeps the tool calls' state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.pilot import SIZE, make_app, settled, until

if TYPE_CHECKING:
    from chunkscope.tui.app import ChunkscopeApp

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


def _shown(app: ChunkscopeApp) -> tuple[Any, ...]:
    """The summaries' progress, the sweep's result and the lower tab (None: wide)."""
    from textual.widgets import TabbedContent

    from chunkscope.tui.widgets.summary_panel import SummaryPanel
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    bench = app.workbench
    assert bench is not None
    tabs = bench.query(TabbedContent)
    return (
        bench.query_one(SummaryPanel).progress(),
        bench.query_one(SweepPanel).result,
        tabs.first().active if tabs else None,
    )


async def _relaid(pilot: Any, app: ChunkscopeApp, narrow: bool) -> None:
    await until(pilot, lambda: app.workbench is not None and app.workbench.narrow is narrow)
    await until(pilot, lambda: app.workers_idle())
    await pilot.pause()


async def test_a_relayout_keeps_the_summary_progress_the_sweep_and_the_tab() -> None:
    """Walk 10, 1: a resize across the breakpoint (or the keys panel opening) set the
    summaries' bar to 0% though all were done, blanked the sweep until a slider got the
    focus, and put the tab bar back on Merge though Summary was chosen."""
    from textual.widgets import TabbedContent

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: _shown(app)[1] is not None and app._sweep_timer is None)
        bench = app.workbench
        assert bench is not None
        count = len(bench.view.result.chunks) if bench.view is not None else 0
        await until(pilot, lambda: _shown(app)[0] == (count, count))
        bench.query_one(TabbedContent).active = "tab-summary"
        await pilot.pause()
        progress, sweep, tab = _shown(app)
        assert (progress, tab) == ((count, count), "tab-summary")
        await pilot.resize_terminal(*SIZE)
        await _relaid(pilot, app, False)
        assert _shown(app) == (progress, sweep, None)
        await pilot.resize_terminal(*NARROW)
        await _relaid(pilot, app, True)
        await pilot.pause()
        assert _shown(app) == (progress, sweep, "tab-summary")
        await pilot.resize_terminal(*SIZE)
        await _relaid(pilot, app, False)
        bench = app.workbench
        assert bench is not None
        await bench.show_keys_panel(True)  # what the palette's "Keys" does
        await _relaid(pilot, app, True)
        assert _shown(app) == (progress, sweep, "tab-summary")
        await bench.show_keys_panel(False)
        await _relaid(pilot, app, False)
        assert _shown(app) == (progress, sweep, None)


REASON = (
    "/tmp/walk10/corpus/only_garbage.jsonl: no turns: skipped 5 malformed lines of 5 (4 not "
    "a JSON object, 1 not valid JSON; first: /tmp/walk10/corpus/only_garbage.jsonl:1: not "
    "a JSON object (got an array))"
)


@pytest.mark.parametrize("size", [SIZE, NARROW], ids=["160x48", "100x30"])
async def test_a_toast_under_a_dialog_shows_its_reason_and_leaves_it_alone(
    size: tuple[int, int],
) -> None:
    """Walk 9, 5 and walk 10, 3 and 4: at 100x30 a long error toast (7 rows, with the
    load's warning stacked above it) covered the picker's title and first rows; at 160x48
    it covered the path field's bottom edge and the key hint; cut to three rows it gave
    no sign it was cut. At both widths the newest toast only is drawn and it leaves the
    dialog alone; it is as wide as the screen and shows the whole reason (walk 16, 8): at
    100x30, in the three rows above the dialog, its title on the reason's first row (on a
    row of its own the end of the reason was cut, with no sign). One workbench opens the
    picker, then the help, each with its own two toasts."""
    from textual.screen import ModalScreen

    from tests.pilot import drawn_toasts, open_dialog

    app = make_app()
    app.NOTIFICATION_TIMEOUT = 60  # on screen for the whole test
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        bench = app.screen
        for key in ("ctrl+o", "question_mark"):
            await pilot.press(key)
            await until(pilot, lambda: isinstance(app.screen, ModalScreen))
            app.notify("skipped 13 malformed lines of 20 …", title="Most of the file was not read")
            app.notify(REASON, title="Could not open the file", severity="error", markup=False)
            await until(pilot, lambda: bool(drawn_toasts(app)))
            await pilot.pause()
            dialog = open_dialog(app)
            drawn = drawn_toasts(app)
            # the newest only: the load's warning is not stacked
            assert len(drawn) == 1, (key, drawn)
            error = drawn[0]
            assert not error.region.overlaps(dialog.region), (key, error.region, dialog.region)
            lines = [
                "".join(seg.text for seg in error.render_line(y)).rstrip()
                for y in range(error.size.height)
            ]
            assert lines[0].startswith("Could not open the file"), (key, lines)
            shown = " ".join(line.strip() for line in lines)
            assert shown.endswith("(got an array))"), (key, lines)
            assert shown.count("only_garbage.jsonl") == 2, (key, lines)  # none of it left out
            # back to the workbench with no toast, for the next dialog's own
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is bench)
            app.clear_notifications()
            await until(pilot, lambda: not drawn_toasts(app))


@pytest.mark.parametrize("size", [SIZE, NARROW], ids=["160x48", "100x30"])
async def test_a_toast_cut_under_a_dialog_says_so(size: tuple[int, int]) -> None:
    """Walk 12: a message longer than the rows a dialog leaves its toast (three) lost its
    end with no sign; its last row now ends with an ellipsis, in the toast's width. One
    picker shows the toast with a title, then without one."""
    from textual.screen import ModalScreen

    from tests.pilot import drawn_toasts, open_dialog

    app = make_app()
    app.NOTIFICATION_TIMEOUT = 60
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ModalScreen))
        for title in ("Could not open the file", None):
            app.clear_notifications()
            await until(pilot, lambda: not drawn_toasts(app))
            app.notify(" ".join([REASON] * 3), title=title, severity="error", markup=False)
            await until(pilot, lambda: bool(drawn_toasts(app)))
            await pilot.pause()
            (toast,) = drawn_toasts(app)
            assert not toast.region.overlaps(open_dialog(app).region), title
            lines = [
                "".join(seg.text for seg in toast.render_line(y)).rstrip()
                for y in range(toast.size.height)
            ]
            assert len(lines) == 3, (title, lines)
            assert lines[0].startswith(title or "/tmp/walk10/"), lines
            assert lines[-1].endswith("…"), (title, lines)
            assert all(len(line) <= toast.size.width for line in lines), (title, lines)


async def test_the_header_beside_the_keys_panel_keeps_the_tool_calls_state() -> None:
    """Walk 10, 7: with the keys panel open at 100x30 (65 columns left) the header left
    out ``T: collapsed`` (counted in ``+4``), which the docs say is kept with the file's
    name, the turns and the format."""
    from textual.widgets import HelpPanel

    from chunkscope.tui.widgets.header_line import HeaderLine
    from tests.pilot import palette_listed

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("ctrl+p")
        await pilot.press(*"Keys")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: bool(bench.query(HelpPanel)))
        await pilot.pause()
        header = bench.query_one(HeaderLine)
        line = header.render().plain
        assert header.region.right <= bench.query_one(HelpPanel).region.x
        for part in ("cache_refactor", " · jsonl · ", "T: collapsed", "turns"):
            assert part in line, (part, line)
        assert line.rstrip().split(" · ")[-1].startswith("+"), line
