"""Defects of the workbench found by a review walk (issue 35, walk 11): a callback
queued by a widget that a re-layout removes before it runs."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.screen import Screen
from textual.widgets import Static

from tests.pilot import SIZE, make_app, recording_notifications, settled, until

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


#: Markdown with invalid UTF-8 on lines 3 and 5 (walk 11, 2): read, with a warning each.
BAD_UTF8 = b"# Title\n\nsome text \xc3\x28 and \xa0\xa1 more\n\nline two caf\xe9\n"
FIRST_WARNING = "badutf.md:3: invalid UTF-8 at byte 10, decoded with replacement"


async def test_a_readers_warnings_are_notified_and_counted_in_the_header(tmp_path: Path) -> None:
    """Walk 11, 2: the CLI prints the reader's warnings (invalid UTF-8 decoded with
    replacement, a NUL byte, a time not read); the workbench said nothing, its cards
    showing ``�`` without a word. Notified as the CLI words them, counted in the header
    as skipped lines are."""
    from chunkscope.tui.widgets.header_line import HeaderLine

    path = tmp_path / "badutf.md"
    path.write_bytes(BAD_UTF8)
    app = make_app(path)
    shown = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        warned = [m for m in shown if FIRST_WARNING in m]
        assert warned, shown
        assert "badutf.md:5: invalid UTF-8" in warned[0]
        bench = app.workbench
        assert bench is not None
        header = bench.query_one(HeaderLine)
        assert header.info.warnings == 2
        assert "· 2 warnings" in header.render().plain


def test_a_readers_warnings_are_in_the_reports_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 11, 2: the report's page had no word of them; its notes say them as the
    CLI does, the file by its name (the page names no folder)."""
    from chunkscope.tui.cli import main

    path = tmp_path / "badutf.md"
    path.write_bytes(BAD_UTF8)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"chunkscope: {path}:3: invalid UTF-8 at byte 10, decoded with replacement" in err
    page = out.read_text(encoding="utf-8")
    assert f'<p class="b-over">{FIRST_WARNING}</p>' in page
    assert "badutf.md:5: invalid UTF-8" in page
    assert str(tmp_path) not in page


def test_warnings_past_the_first_three_are_counted() -> None:
    """The rest said as a count, not dropped without a word (the CLI showed three)."""
    from chunkscope.engine.read.source import Problem, Source

    source = Source("a.md", "markdown", [], warnings=[Problem(n, "why") for n in range(1, 6)])
    assert source.warning_lines() == [
        "a.md:1: why",
        "a.md:2: why",
        "a.md:3: why",
        "a.md: 2 more warnings",
    ]
    assert source.warning_lines("b.md", shown=5)[-1] == "b.md:5: why"


def _cap_knob() -> Any:
    from chunkscope.engine.evaluate.measure import sweepable_knobs

    return sweepable_knobs()["max_chunk_chars"][0]


def test_the_size_caps_sweep_is_spaced_on_its_sliders_log_track() -> None:
    """Walk 11, 7: the size cap's slider steps geometrically (256, 320, 384, 448, 512,
    ...), its sweep linearly (256, 1670, 3083, ...): every point but one past 1.5k chars.
    The sweep's points are the slider's own positions, evenly on its log track: the ratio
    of neighbours alike, half of them under the middle of the track (2,896 chars)."""
    from chunkscope.engine.evaluate.measure import knob_values

    knob = _cap_knob()
    track = knob.slider.track
    assert track is not None and track[:5] == [256, 320, 384, 448, 512]
    for points in (20, 25, 50):
        values = knob_values(knob, None, None, points)
        assert set(values) <= set(track), values
        assert (values[0], values[-1]) == (256, 32768)
        assert sum(v < 2896 for v in values) * 2 >= len(values) - 1
        ratios = [b / a for a, b in itertools.pairwise(values)]
        assert max(ratios) / min(ratios) < 2.0, values
    # the same for `chunkscope sweep`; a range given keeps its ends, spaced alike
    assert knob_values(knob, 1000, 5000, 10) == [
        1000, 1196, 1430, 1710, 2045, 2445, 2924, 3497, 4181, 5000
    ]  # fmt: skip


async def test_the_workbench_sweeps_the_size_cap_where_the_count_changes() -> None:
    """The sweep the workbench draws for the focused size cap: the points under 4k
    chars, where the count falls from 132 to 60 on the sample, show that fall (with the
    linear points, three points did: 256, 1670, 3083)."""
    from chunkscope.tui.widgets.merge_panel import slider_id
    from chunkscope.tui.widgets.slider import Slider
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        bench.query_one(f"#{slider_id(_cap_knob())}", Slider).focus()
        panel = bench.query_one(SweepPanel)
        await until(
            pilot,
            lambda: panel.result is not None and panel.result.knob == "max_chunk_chars",
        )
        result = panel.result
        assert result is not None
        low = [c for v, c in zip(result.values, result.chunks, strict=True) if v and v < 4096]
        assert len(set(low)) >= 6, list(zip(result.values, result.chunks, strict=True))
        assert low[0] == 132 and result.values[result.at_current() or 0] == 8192


async def test_the_header_beside_the_keys_panel_says_what_it_leaves_out() -> None:
    """Walk 11, 3: beside the keys panel at 100 columns, tool calls kept as turns (``T:
    raw``), the header kept its ``chunkscope`` badge and left out the tokenizer, the
    embedder and the run time without a ``+4``; the badge goes first. Without the panel
    a part that filled the line left the ones after it unsaid too. Files of names of
    every length round the one that did."""
    from textual.widgets import HelpPanel

    from chunkscope.tui.widgets.header_line import HeaderLine
    from tests.pilot import palette_listed

    def lines(header: HeaderLine) -> list[str]:
        shown = []
        for extra in range(16):
            header.info.path = "cache_refactor" + "_" * extra + ".jsonl"
            shown.append(header.render().plain.rstrip())
        return shown

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        header = bench.query_one(HeaderLine)
        await pilot.press("T")
        await until(pilot, lambda: "raw" in header.render().plain)
        await settled(pilot, app)
        for line in lines(header):  # the badge kept, what is left out said
            assert line.startswith(" chunkscope ") and "211 turns" in line, line
            assert line.endswith(("· +1", "· +2", "· +3")) or "exact" in line, line
        await pilot.press("ctrl+p")
        await pilot.press(*"Keys")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: bool(bench.query(HelpPanel)))
        await pilot.pause()
        assert header.region.right <= bench.query_one(HelpPanel).region.x
        beside = lines(header)
        for line in beside:  # a long name's start goes last, after the badge
            for part in ("refactor", ".jsonl · jsonl · ", "T: raw", "211 turns"):
                assert part in line, (part, line)
            assert line.split(" · ")[-1].startswith("+"), line
        assert beside[0].startswith(" chunkscope  cache_refactor.jsonl"), beside[0]
        assert any(line.startswith(" cache_refactor_") for line in beside), beside


async def _type_in_picker(pilot: Any, app: Any, typed: str) -> None:
    from textual.widgets import Input

    from chunkscope.tui.screens.open_file import OpenFileScreen

    screen = app.screen
    assert isinstance(screen, OpenFileScreen)
    field = screen.query_one("#path", Input)
    field.focus()
    field.value = typed
    await pilot.press("enter")


async def test_a_name_typed_in_the_picker_is_taken_in_the_folder_it_shows(
    tmp_path: Path,
) -> None:
    """Walk 11, 9: a name typed in the picker was looked up in the folder the command
    was started from (here tmp_path), not in the folder the picker shows and lists the
    file in: ``no such file``. Taken in the folder shown, as a server takes it; and in
    a folder gone into from the picker, that one."""
    import shutil

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from tests.pilot import SAMPLE, picker_listed

    wide = tmp_path / "wide"
    (wide / "deeper").mkdir(parents=True)
    shutil.copy(SAMPLE, wide / "first.jsonl")
    shutil.copy(SAMPLE, wide / "deeper" / "second.jsonl")
    assert Path.cwd() == tmp_path
    app = ChunkscopeApp(StartOptions(folder=str(wide), fixed_timings=True))
    async with app.run_test(size=NARROW) as pilot:
        await picker_listed(pilot, app)
        await _type_in_picker(pilot, app, "first.jsonl")
        await until(pilot, lambda: app.pipe is not None)
        assert app.pipe is not None and Path(app.pipe.path) == wide / "first.jsonl"
        await until(pilot, lambda: app.workers_idle())
        await pilot.press("ctrl+o")
        await picker_listed(pilot, app)
        await _type_in_picker(pilot, app, "deeper")  # a folder typed is gone into
        await until(pilot, lambda: app.screen.start == wide / "deeper")  # type: ignore[attr-defined]
        await _type_in_picker(pilot, app, "second.jsonl")
        await until(pilot, lambda: not isinstance(app.screen, OpenFileScreen))
        await until(pilot, lambda: app.pipe is not None and "second" in app.pipe.path)
        assert app.pipe is not None and Path(app.pipe.path) == wide / "deeper" / "second.jsonl"


async def test_served_a_name_typed_is_taken_in_the_subfolder_shown_and_kept_inside(
    tmp_path: Path,
) -> None:
    """Served (`tui --confine`), the picker gone into a subfolder: a name typed is that
    subfolder's (it was the served folder's), and ``..`` out of what is served is still
    refused."""
    import shutil

    from chunkscope.tui.screens.open_file import OpenFileScreen
    from tests.pilot import SAMPLE, picker_listed

    shown = tmp_path / "served"
    (shown / "sub").mkdir(parents=True)
    shutil.copy(SAMPLE, shown / "top.jsonl")
    shutil.copy(SAMPLE, shown / "sub" / "inner.jsonl")
    shutil.copy(SAMPLE, tmp_path / "secret.jsonl")
    app = make_app(shown / "top.jsonl", confine=str(shown))
    shown_now = recording_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pipe is not None and app.workers_idle())
        await pilot.press("ctrl+o")
        await picker_listed(pilot, app)
        await _type_in_picker(pilot, app, "sub")
        await until(pilot, lambda: app.screen.start == shown / "sub")  # type: ignore[attr-defined]
        await _type_in_picker(pilot, app, "../../secret.jsonl")
        await until(pilot, lambda: any("outside the folder" in m for m in shown_now))
        assert isinstance(app.screen, OpenFileScreen)  # the picker stays
        await _type_in_picker(pilot, app, "inner.jsonl")
        await until(pilot, lambda: app.pipe is not None and "inner" in app.pipe.path)
        assert app.pipe is not None and Path(app.pipe.path) == shown / "sub" / "inner.jsonl"


async def test_a_write_that_fails_says_so_as_the_cli_does_and_asks_again(
    tmp_path: Path,
) -> None:
    """Walk 11, 11: ``w`` to a path that cannot be written said Python's exception text
    (``[Errno 2] No such file or directory: ...``) and closed the dialog, losing the path typed.
    Said as the commands say it (`engine.fileio.cannot_write`), the dialog back with the
    path and the reason under it; corrected there, the recap is written."""
    from textual.widgets import Input, Static

    from chunkscope.tui.screens.prompt import PromptScreen

    (tmp_path / "afile").write_text("not a folder\n")
    bad = tmp_path / "afile" / "x.md"
    app = make_app()
    shown = recording_notifications(app)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(bad)
        await pilot.press("enter")
        start = f"cannot write {bad}: "  # "File exists": its folder is a file
        await until(pilot, lambda: any(m.startswith(start) for m in shown))
        said = next(m for m in shown if m.startswith(start))
        assert said in (start + "File exists", start + "Not a directory"), said
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        dialog = app.screen
        assert dialog.query_one(Input).value == str(bad)
        assert str(dialog.query_one("#prompt-error", Static).content) == said
        assert not any("Errno" in m for m in shown), shown
        good = tmp_path / "x.md"
        dialog.query_one(Input).value = str(good)
        await pilot.press("enter")
        await until(pilot, lambda: good.exists())
        await until(pilot, lambda: not isinstance(app.screen, PromptScreen))


async def test_served_a_write_outside_is_refused_and_asked_again(tmp_path: Path) -> None:
    """Served, ``w`` to ``../evil.md`` is refused (nothing written) and the dialog
    comes back with it, as for a write that fails."""
    import shutil

    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen
    from tests.pilot import SAMPLE

    shown_dir = tmp_path / "served"
    shown_dir.mkdir()
    shutil.copy(SAMPLE, shown_dir / "log.jsonl")
    app = make_app(shown_dir / "log.jsonl", confine=str(shown_dir))
    shown = recording_notifications(app)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = "../evil.md"
        await pilot.press("enter")
        await until(pilot, lambda: any("outside the folder" in m for m in shown))
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.query_one(Input).value == "../evil.md"
        assert not (tmp_path / "evil.md").exists()


async def test_a_palette_torn_down_ignores_its_late_gathering() -> None:
    """Walk 11, 15: "Keys" chosen in the palette and the palette opened again at once,
    the first one's gathering of hits went on after its list was removed with it and
    ``NoMatches: No nodes match 'CommandList'`` in its worker ended the app. The
    workbench's palette drops a refresh once its list is gone."""
    from textual.command import CommandList

    from chunkscope.tui.screens.palette import Palette
    from tests.pilot import palette_listed

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.press(*"Keys")
        await until(pilot, lambda: palette_listed(app))
        palette = app.screen
        assert isinstance(palette, Palette)
        command_list = palette.query_one(CommandList)
        await command_list.remove()  # the palette torn down under its worker
        palette._refresh_command_list(command_list, [], True)  # raised NoMatches
        palette._list_visible = not palette._list_visible
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, Palette))
        assert app.is_running


async def test_a_path_typed_ahead_of_the_pickers_focus_keeps_its_spaces(tmp_path: Path) -> None:
    """Walk 17, 7: a path typed at speed into the picker just opened, while the focus was
    still on its lists, lost every space (the tree took them as "open this folder"):
    ``sp ace/my log.jsonl`` became ``space/mylog.jsonl``. The keys typed after the first
    character that went to the path field are the path's, spaces too."""
    import shutil

    from textual import events
    from textual.keys import _character_to_key
    from textual.widgets import Input

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from tests.pilot import SAMPLE, picker_listed

    folder = tmp_path / "sp ace"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "my log.jsonl")
    app = ChunkscopeApp(StartOptions(folder=str(tmp_path), fixed_timings=True))
    async with app.run_test(size=NARROW) as pilot:
        await picker_listed(pilot, app)
        screen = app.screen
        assert isinstance(screen, OpenFileScreen)
        field = screen.query_one("#path", Input)
        assert screen.focused is not field
        typed = "sp ace/my log.jsonl"
        for ch in typed:  # one burst: every key queued before the focus moves
            app.post_message(events.Key(_character_to_key(ch), ch))
        await until(pilot, lambda: field.value == typed or len(field.value) >= len(typed) - 3)
        assert field.value == typed
        await pilot.press("enter")
        await until(pilot, lambda: app.pipe is not None)
        assert app.pipe is not None and Path(app.pipe.path) == folder / "my log.jsonl"
        # a list given the focus again takes a space as its own (opens a tree folder)
        await until(pilot, lambda: app.workers_idle())


@pytest.mark.paints
async def test_no_workbench_keys_are_shown_below_a_dialog() -> None:
    """Walk 17, 5: with the picker open at 160x48 the workbench's footer, below the
    dialog, still said `? Help  q Quit  ⏎ Expand ...`: keys that type into the picker's
    path field. The footer is hidden while a dialog is up, and back once it closes."""
    from chunkscope.tui.screens.open_file import OpenFileScreen
    from tests.pilot import picker_listed

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)

        def bottom_row() -> str:
            return app.screen._compositor.render_strips()[-1].text

        assert "Quit" in bottom_row()
        await pilot.press("ctrl+o")
        await picker_listed(pilot, app)
        assert isinstance(app.screen, OpenFileScreen)
        await pilot.pause()
        assert "Quit" not in bottom_row() and "Expand" not in bottom_row()
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, OpenFileScreen))
        await pilot.pause()
        assert "Quit" in bottom_row()
