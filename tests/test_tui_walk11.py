"""Defects of the workbench found by a review walk (issue 35, walk 9): the compare
columns keep their selection and the focus across a resize, switching to the offline
embedder opens the file the start could not (a long toast under a dialog: walk 12's
tests), the picker's rows are laid out again on a resize, the narrow header says what it
leaves out, a topic run without cuts has the topic legend, the keys panel narrows the
layout and text is readable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.pilot import SIZE, make_app, recording_notifications, settled, until

if TYPE_CHECKING:
    from chunkscope.tui.app import ChunkscopeApp

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


async def _compare_right(pilot: Any, app: ChunkscopeApp) -> None:
    """`]`: blank-line in the right column, its chunks drawn."""
    await pilot.press("right_square_bracket")
    await until(pilot, lambda: app.shown_result("right")[0] is not None and app.workers_idle())
    await pilot.pause()


async def test_compare_columns_keep_selection_and_focus_across_the_breakpoint() -> None:
    """Walk 9, 1: a resize across the 130-column breakpoint put both compare columns
    back on card 0 and moved the focus off them: `c` then copied the hidden merge
    run's chunk, `m` marked another item."""
    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await _compare_right(pilot, app)
        bench = app.workbench
        assert bench is not None
        bench.query_one("#before", ChunkList).select(5)
        right = bench.query_one("#merged", ChunkList)
        right.focus()
        right.select(3)
        await pilot.pause()
        shown = recording_notifications(app)
        for size in (NARROW, SIZE, NARROW):
            await pilot.resize_terminal(*size)
            await until(pilot, lambda: app.workers_idle())
            await pilot.pause()
            bench = app.workbench
            assert bench is not None
            before = bench.query_one("#before", ChunkList)
            merged = bench.query_one("#merged", ChunkList)
            assert (before.selected, merged.selected) == (5, 3), size
            assert bench.focused is merged, (size, bench.focused)
            n = len(shown)
            await pilot.press("c")
            await until(pilot, lambda: len(shown) > n)  # noqa: B023 (awaited here)
            assert shown[-1].startswith("Copied blank-line chunk 3 "), shown[-1]


async def test_switching_to_the_offline_embedder_opens_the_file_the_start_could_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walk 9, 2: started with an unreachable embedder, the notification advises
    ctrl+p → "embedder: lexical (offline)"; doing so loaded nothing and said nothing (the
    header stayed "no file open"). The file given at the start is opened with it."""
    from chunkscope.tui.widgets.header_line import HeaderLine
    from tests.pilot import SAMPLE, palette_listed

    monkeypatch.setenv("CHUNKSCOPE_MAX_RETRIES", "0")  # refused at once, not retried
    app = make_app(SAMPLE, embedder="openai", base_url="http://127.0.0.1:9/v1")
    shown = recording_notifications(app)
    async with app.run_test(size=NARROW) as pilot:
        await until(pilot, lambda: any("embedder: lexical (offline)" in s for s in shown))
        await until(pilot, lambda: app.workers_idle())
        assert app.pipe is None
        await pilot.press("ctrl+p")
        await pilot.press(*"embedder: lexical")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await settled(pilot, app)
        assert app.pipe is not None and str(app.pipe.path) == str(SAMPLE)
        assert app.pipe.params.embedder.name == "lexical"
        bench = app.workbench
        assert bench is not None
        assert "no file open" not in bench.query_one(HeaderLine).render().plain


@pytest.mark.parametrize("name", ["non_object_lines", "deep_nesting"])
async def test_narrow_header_keeps_format_and_state_beside_the_skipped_lines(
    corpus: dict[str, Any], name: str
) -> None:
    """Walk 9, 7: at 100 columns the header of a mostly skipped file dropped the format
    and the tool calls' state without a ``+N`` (the warning's long form took the room):
    the warning keeps its count in short, the format and state stay, the rest is
    counted."""
    from chunkscope.tui.widgets.header_line import HeaderLine

    app = make_app(corpus[name])
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        line = bench.query_one(HeaderLine).render().plain
        assert " · jsonl · " in line and "collapsed" in line, line
        assert "lines skipped" in line and line.rstrip().split(" · ")[-1].startswith("+"), line


async def test_a_topic_run_without_cuts_has_the_topic_legend(corpus: dict[str, Any]) -> None:
    """Walk 9, 8: a topic run of one chunk (no cuts, no pass threshold) was given the
    seed loop's legend (threshold, size cap, min similarity, max passes)."""
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app(corpus["markup_escapes"])
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        assert bench.view.params.merge.mode == "topic"
        assert len(bench.view.result.chunks) == 1
        strip = bench.query_one("#strip", SimilarityStrip)
        legend = "".join(s.text for s in strip._legend_segments(400))
        for seed in ("threshold", "min similarity", "max passes"):
            assert seed not in legend, legend
        assert "┃ topic" in legend, legend


THEMES = ["chunkscope-dark", "chunkscope-light", "chunkscope-contrast"]


@pytest.mark.parametrize("theme", THEMES)
async def test_the_selected_search_result_and_the_picker_are_readable(theme: str) -> None:
    """Walk 9, 12: the selected search result's ``lines … tokens`` cells were 3.4:1
    (dark, contrast) and 3.9:1 (light); in the light picker the boxes' titles were
    3.45:1 and the path field's placeholder 3.0:1. Every text at least 4.5:1, in 24-bit
    and in 256 colours."""
    from textual.widgets import OptionList

    from tests.pilot import picker_listed
    from tests.test_tui_walk7 import _screen_text, _unreadable, _worst

    app = make_app(theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("slash")
        await pilot.press(*"sqlite vectors", "enter")
        bench = app.workbench
        assert bench is not None
        results = bench.query_one("#search-results", OptionList)
        await until(pilot, lambda: results.option_count > 0 and app.workers_idle())
        results.focus()
        results.highlighted = 0
        await pilot.pause()
        assert any("lines " in seg.text for seg in _screen_text(app))
        assert not _unreadable(app), _unreadable(app)[:5]
        await pilot.press("ctrl+o")
        await picker_listed(pilot, app)
        await pilot.pause()
        dialog = app.screen.query_one("OpenFileScreen > Vertical").region
        inside = _dialog_text(app, dialog)  # not the workbench dimmed behind it
        shown = " ".join(seg.text for seg in inside)
        assert "sessions, newest" in shown and "type a path" in shown, shown
        low = sorted((seg.text.strip(), _worst([seg])) for seg in inside if _worst([seg]) < 4.5)
        assert not low, low[:5]


def _dialog_text(app: ChunkscopeApp, region: Any) -> list[Any]:
    """Every segment of text drawn inside `region` of the screen, with its colours."""
    rows = app.screen._compositor.render_strips()
    return [
        seg
        for y in range(region.y, region.bottom)
        for seg in rows[y].crop(region.x, region.right)
        if any(c.isalnum() for c in seg.text)
        and seg.style is not None
        and seg.style.color is not None
        and seg.style.bgcolor is not None
    ]


async def test_the_keys_panel_narrows_the_layout_and_escape_closes_it() -> None:
    """Walk 9, 10: the palette's "Keys" (Textual's key panel) took ~40 columns on the
    right while the workbench kept its three columns in the rest: the merge panel, the
    strip and the recap were cut under the panel; escape left it open. Beside the panel
    the workbench takes its narrow layout (tabs), escape closes the panel and the wide
    layout is back."""
    from textual.widgets import HelpPanel, TabbedContent

    from tests.pilot import palette_listed

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and not bench.narrow
        await pilot.press("ctrl+p")
        await pilot.press(*"Keys")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: bench.narrow and bool(bench.query(HelpPanel)))
        await pilot.pause()
        panel = bench.query_one(HelpPanel)
        assert bench.query(TabbedContent)  # the merge panel, summary and recap as tabs
        for part in ("#before-col", "#merged", "#lower", "#strip"):
            region = bench.query_one(part).region
            assert region.right <= panel.region.x, (part, region, panel.region)
        await pilot.press("escape")
        await until(pilot, lambda: not bench.narrow and not bench.query(HelpPanel))
        await pilot.pause()
        assert bench.query_one("#controls").region.right <= SIZE[0]
