"""Defects of a ninth review walk of the workbench at 100x30 (issue 35): the search
panel's context line keeps to its row beside the ranker toggle, the selected hit's rank
stays on the strip beside its ▲, and the scrolling controls keep a cell between their
values and the scrollbar."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.pilot import SIZE, auto_tune, drawn_toasts, make_app, open_dialog, settled, until

if TYPE_CHECKING:
    from chunkscope.tui.app import ChunkscopeApp

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


@pytest.mark.parametrize("size", [NARROW, (130, 30)], ids=["narrow", "wide-short"])
async def test_the_controls_scrollbar_keeps_a_cell_from_the_slider_values(
    size: tuple[int, int],
) -> None:
    """The merge tab at 100x30 (and the merge panel of a short wide terminal) scrolls:
    its bar stood against the values (``7.00▇``)."""
    from chunkscope.tui.widgets.slider import Slider

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        controls = app.workbench.query_one("#controls")  # type: ignore[union-attr]
        assert controls.show_vertical_scrollbar, "the controls should scroll at this size"
        bar = controls.vertical_scrollbar.region
        sliders = [s for s in controls.query(Slider) if s.region.width]
        assert sliders
        for slider in sliders:
            assert slider.region.right < bar.x, (slider.id, slider.region, bar)


async def _ask(pilot: Any, app: ChunkscopeApp, question: str) -> None:
    await pilot.press("slash")
    await until(pilot, lambda: app.focused is not None and app.focused.id == "search-input")
    await pilot.press(*["space" if c == " " else c for c in question], "enter")
    await until(
        pilot,
        lambda: (
            app.search_answer is not None
            and app.search_view is app.workbench.view  # type: ignore[union-attr]
            and app.workers_idle()
        ),
    )
    await pilot.pause()


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_the_search_context_line_keeps_to_its_row_beside_the_ranker(
    size: tuple[int, int],
) -> None:
    """An answer that leaves the budget's rest unused says so on the context line; at
    100x30 the line wrapped around the ranker toggle (walk 9, 1): it keeps to its one
    row, in a shorter form when it must, and says the whole on hover."""
    from chunkscope.tui.widgets.search_panel import SearchPanel, context_forms

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        await _ask(pilot, app, "cache persistence")  # 200-token chunks: 8 tokens unused
        answer = app.search_answer
        assert answer is not None and answer.rest_note, "the question should leave a rest"
        panel = app.workbench.query_one(SearchPanel)  # type: ignore[union-attr]
        status = panel.query_one("#search-status")
        toggle = panel.query_one("#search-ranker")
        shown = str(status.render())
        assert status.region.height == 1 and status.region.y == toggle.region.y
        assert status.region.right <= toggle.region.x
        assert len(shown.rstrip()) <= status.region.width, shown
        forms = context_forms(answer, len(app.workbench.view.result.chunks))  # type: ignore[union-attr]
        assert shown.rstrip() in forms
        assert "unused" in shown  # the rest is said, short or whole
        if size == SIZE:
            assert shown.rstrip() == forms[0] and answer.rest_note in shown
        else:
            assert shown.rstrip() != forms[0] and status.tooltip == forms[0]


@pytest.mark.paints
async def test_the_selected_search_hit_keeps_its_rank_on_the_strip() -> None:
    """At 100x30 the ▲ of the selected chunk stood on its rank: the best hit, selected
    first, showed no ``1`` (walk 9, 2). Each hit selected in turn keeps its rank in its
    column, lit as the selection (the legend says so), the others theirs."""
    from chunkscope.tui.widgets.search_panel import SearchPanel
    from chunkscope.tui.widgets.similarity_strip import LABEL_WIDTH, SimilarityStrip

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await _ask(pilot, app, "how is the embedding cache stored")
        bench, answer = app.workbench, app.search_answer
        assert bench is not None and bench.view is not None and answer is not None
        strip = bench.query_one("#strip", SimilarityStrip)
        results = bench.query_one(SearchPanel).results
        results.focus()
        for hit in answer.results[:3]:
            results.highlighted = hit.rank - 1
            await until(pilot, lambda hit=hit: bench.selected == hit.chunk)  # type: ignore[misc]
            await pilot.pause()
            lines = strip.rendered_lines()
            row = next(r for r in lines if r.startswith("cuts"))[LABEL_WIDTH:]
            a, b = (int(p) for p in bench.view.result.spans[hit.chunk])
            assert "▲" not in row and row[strip.chunk_column(a, b)] == str(hit.rank), row
            legend = " ".join(lines[lines.index(next(r for r in lines if r.startswith("size"))) :])
            assert f"{hit.rank} selected" in legend
        assert "1" in row and "2" in row and "3" in row


async def test_a_strip_of_alike_similarities_draws_them_as_they_are_across_the_width(
    tmp_path: Any,
) -> None:
    """Walk 8: a log of two alike messages has one pair of similarity 1.00, drawn as the
    lowest bar (the bars scale to the range of the similarities on show, and one pair
    has none), and the last unit's cells of the sim row were blank."""
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    log = tmp_path / "alike.jsonl"
    line = '{"role": "user", "content": "the same words about the cache", "timestamp": "%s"}'
    log.write_text("\n".join(line % f"2026-01-01T10:0{i}:00" for i in range(2)) + "\n")
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        strip = app.workbench.query_one("#strip", SimilarityStrip)  # type: ignore[union-attr]
        assert len(strip.sims) == 1 and strip.sims[0] > 0.99
        row = next(r for r in strip.rendered_lines() if r.startswith("sim"))
        bars = row[len("sim") :].strip()
        assert bars and set(bars) == {"█"}, row
        size = next(r for r in strip.rendered_lines() if r.startswith("size"))
        assert len(row.rstrip()) == len(size.rstrip()), (row, size)  # as wide as the size row


@pytest.mark.parametrize("theme", ["chunkscope-dark", "chunkscope-light", "chunkscope-contrast"])
async def test_the_focused_tab_bars_active_label_is_readable(theme: str) -> None:
    """Walk 8: at 100x30 with the tab bar focused, the active tab's label kept the page's
    foreground on the primary-coloured cursor (1.7:1 dark, 2.8:1 light)."""
    from textual.widgets import Tab, Tabs

    from tests.test_tui_walk7 import _worst

    app = make_app(theme=theme)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        tabs = app.workbench.query_one(Tabs)  # type: ignore[union-attr]
        tabs.focus()
        await until(pilot, lambda: tabs.has_focus)
        await pilot.press("right", "right")
        await pilot.pause()
        active = tabs.query_one("Tab.-active", Tab)
        segments = [
            s
            for s in active.render_line(0)
            if s.text.strip() and s.style is not None and s.style.bgcolor is not None
        ]
        assert segments and _worst(segments) >= 4.5, [(s.text, s.style) for s in segments]


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_the_auto_tune_table_names_each_knob_whole(size: tuple[int, int]) -> None:
    """Walk 8, 6: the knobs' names were broken at an underscore over two header rows
    (``topic_`` / ``window``), with the room for them whole at 160x48. Each header is the
    knob's name as `tune` and a profile spell it, on one row, and every column is on
    screen without scrolling sideways."""
    from dataclasses import replace

    from textual.widgets import DataTable

    from chunkscope.engine.evaluate.measure import TUNE_GRIDS

    mode = "topic"  # the longest names (the seed loop's fit as they are)
    app = make_app(mode=mode)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.workbench is not None and app.workbench.view is not None)
        assert app.file_marks is not None
        app.set_file_marks(replace(app.file_marks, starts=(86,)))
        screen = await auto_tune(pilot, app)
        await pilot.pause()
        table = screen.query_one("#tune-table", DataTable)
        labels = [str(c.label) for c in table.ordered_columns]
        assert labels[6:] == list(TUNE_GRIDS[mode]) and table.header_height == 1
        assert table.virtual_size.width <= table.scrollable_content_region.width, labels
        shown = "\n".join(
            "".join(s.text for s in table.render_line(y)) for y in range(table.size.height)
        )
        header = shown.splitlines()[0].split()
        assert header[-len(TUNE_GRIDS[mode]) :] == list(TUNE_GRIDS[mode]), shown
        if size == SIZE:
            assert table.cell_padding == 1  # the room for two cells between columns


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_a_toast_under_a_dialog_leaves_the_dialog_whole(size: tuple[int, int]) -> None:
    """Walk 8, 7: at 100x30 a notification still on screen when a dialog opened (``All
    57 summaries are done.`` then ctrl+s) was drawn over the dialog's input and hint. The
    toast is drawn once, off the dialog (the save-profile prompt, the help, the picker);
    at 160x48 the help (90% high) and the picker (85%) met a toast's corner: they are
    80% high now. One workbench opens the three dialogs in turn, each over a new toast."""
    from textual.screen import ModalScreen

    app = make_app()
    app.NOTIFICATION_TIMEOUT = 60  # on screen for the whole test
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        bench = app.screen
        for key in ("ctrl+s", "question_mark", "ctrl+o"):
            app.notify("All 57 summaries are done.", markup=False)
            await pilot.press(key)
            await until(pilot, lambda: isinstance(app.screen, ModalScreen))
            await until(pilot, lambda: bool(app.screen.query("Toast")))
            await pilot.pause()
            screen = app.screen
            dialog = open_dialog(app)
            drawn = drawn_toasts(app)
            assert len(drawn) == 1, (key, drawn)
            assert "All 57 summaries are done." in str(drawn[0].render()), key
            assert not drawn[0].region.overlaps(dialog.region), (
                key,
                drawn[0].region,
                dialog.region,
            )
            if size == SIZE:  # walk 9, 16: a row between them, the toast not under its edge
                below = dialog.region.grow((0, 0, 1, 0))
                assert not drawn[0].region.overlaps(below), (key, drawn[0].region, dialog.region)
            assert screen.region.contains_region(dialog.region), (
                key,
                dialog.region,
                screen.region,
            )
            # back to the workbench with no toast, for the next dialog's own
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is bench)
            app.clear_notifications()
            await until(pilot, lambda: not drawn_toasts(app))


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_the_header_keeps_the_tool_calls_state_of_a_trajectory(
    size: tuple[int, int],
) -> None:
    """Walk 8, 9: at 100x30 the header of a mini-swe-agent trajectory left out
    ``T: collapsed`` and kept ``14 after collapse``; what it leaves out read ``+4`` at
    100 columns and ``+3 more`` at 160. The name, the format, the state and the turns
    (``16 → 15 turns`` when narrow: the submitting command, whose result the trajectory
    does not hold, is a turn of its own, walk 24 F4) are kept, and the count reads alike
    at both sizes."""
    import re

    from chunkscope.tui.widgets.header_line import HeaderLine
    from tests.pilot import ROOT

    app = make_app(ROOT / "tests/fixtures/recap/mini_swe_django_11099.traj.json")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        header = app.workbench.query_one(HeaderLine)  # type: ignore[union-attr]
        line = header.render().plain
        assert len(line) <= size[0], line
        parts = line.removeprefix(" chunkscope  ").split(" · ")
        assert parts[0].endswith("mini_swe_django_11099.traj.json"), line
        assert parts[1].startswith("mini-swe-agent"), line
        assert parts[2] in ("T: collapsed", "tool calls: collapsed (T)"), line
        assert parts[3:5] == ["16 turns", "15 after collapse"] or parts[3] == "16 → 15 turns"
        if size == NARROW:
            assert parts[3] == "16 → 15 turns", line
        assert re.fullmatch(r"\+(\d+| [a-z ,]+)", parts[-1]), line  # never `+3 more`


def test_a_wide_name_is_cut_between_its_characters_without_a_stray_space() -> None:
    """Walk 8, 10: a CJK name cut at its end read ``日本語のセッ …`` (a wide character
    split into a space before the ellipsis); cut in its middle, the same."""
    from rich.cells import cell_len

    from chunkscope.tui.screens.open_file import _cut, cut_middle

    name = "日本語のセッション名.jsonl"
    for cells in range(2, cell_len(name)):
        for cut in (_cut(name, cells), cut_middle(name, cells)):
            assert cell_len(cut) <= cells and "…" in cut, (cells, cut)
            assert " " not in cut, (cells, cut)
        if cells >= 13:  # the extension kept
            assert cut_middle(name, cells).endswith(".jsonl"), cells
    assert _cut(name, 6) == "日本…" and cut_middle(name, 12) == "日本語…jsonl"


@pytest.mark.paints
@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_the_picker_gives_a_folder_of_long_names_the_width(
    tmp_path: Any, size: tuple[int, int]
) -> None:
    """Walk 8, 10: the sample logs' box kept a column the dialog's whole height while
    the sessions list cut its long names and dropped their first messages; the tree cut
    two long names alike in their start to the same ``2026-01-21-se…``. The samples sit
    under the tree, the list takes the width and shows each session's first message,
    and the tree cuts names in their middle, as the list does."""
    import shutil

    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.screens.open_file import LogTree
    from tests.pilot import ROOT, picker_listed

    long = "2026-01-21-session-with-a-very-long-descriptive-name-about-the-hello-world-{}.jsonl"
    names = [long.format("one"), long.format("two"), "日本語のセッション名.jsonl"]
    folder = tmp_path / "long"
    folder.mkdir()
    for name, sample in zip(
        names, ["cache_refactor", "docs_cleanup", "research_notes"], strict=True
    ):
        shutil.copy(ROOT / "sample_logs" / f"{sample}.jsonl", folder / name)
    # the picker on the folder (as ctrl+o, then the folder typed, shows it)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        screen = await picker_listed(pilot, app)
        tree = screen.query_one(LogTree)
        await until(pilot, lambda: len(tree.root.children) == 3)
        await pilot.pause()
        box = screen.query_one("#sessions", OptionList)
        samples = screen.query_one("#samples", OptionList)
        # the samples under the tree, not a column beside the list
        assert samples.region.right <= box.region.x and samples.region.y > tree.region.y
        assert box.region.width > 2 * samples.region.width - 8, (box.region, samples.region)

        def rows(widget: Any) -> list[str]:
            return [
                "".join(seg.text for seg in widget.render_line(y)).strip("│ ")
                for y in range(widget.size.height)
            ]

        listed = [r for r in rows(box) if "jsonl" in r]
        assert len(listed) == 3, listed
        for info in screen.sessions:  # each row its first message, some of it at least
            title = " ".join(info.title.split())
            assert any(title[:8] in r for r in listed), (title, listed)
        tree_rows = [r for r in rows(tree) if ".jsonl" in r]
        assert len(tree_rows) == 3 and len(set(tree_rows)) == 3, tree_rows
        for row in tree_rows:
            assert row.rstrip().endswith(".jsonl") and " …" not in row, row
        assert any("one.jsonl" in r for r in tree_rows), tree_rows
        assert any("two.jsonl" in r for r in tree_rows), tree_rows
