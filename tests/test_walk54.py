"""Walk 54's findings on the workbench. F3: a pin vanished without a word when a
slider changed the pinned chunk's text (the pins were the merged chunks' texts); beside
it, the start's pins (a review's) were cleared by the first load and ``T`` dropped
every pin. F4:
auto-tune searched topic depths 5 to 8 only and said no setting found the marks that
the depth slider's lower values find. F5: beside the merge panel's scrollbar the sweep
rows lost their values. F6: the header named the previous summarizer after the palette
switched it. F7: the palette's expand entry had no key, the theme list no key hints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pilot import (
    ROOT,
    make_app,
    palette_listed,
    recording_notifications,
    settled,
    until,
    wait_for,
)

SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"


def _pinned_rows(app: Any) -> list[int]:
    assert app.selection is not None
    return [c.index for c in app.selection.candidates if c.pinned]


async def _rerun(pilot: Any, app: Any, **values: Any) -> None:
    """Knobs changed as a slider changes them, and the new run settled."""
    generation = app.run_generation
    app.request_run(app.state.tuning.with_values(values))
    await until(pilot, lambda: app.run_generation > generation)
    await settled(pilot, app)


async def test_f3_a_pin_follows_its_chunk_when_a_slider_changes_the_chunks() -> None:
    """F3: ``p`` on chunk 0, then the chunk size slider from 200 to 700 (Tab x5, Down x3,
    Right x4 as the walk did): the recap showed chunk 0 over budget with no 📌 and no
    word said, and ``w`` wrote it without the pin; back at 325 the pin came back. The pin
    follows the chunk holding the pinned one's start at every size."""
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        await pilot.press("p")
        await until(pilot, lambda: _pinned_rows(app) == [0])
        await pilot.press(*["tab"] * 5, *["down"] * 3)
        generation = app.run_generation
        await pilot.press(*["right"] * 4)
        await until(pilot, lambda: app.state.tuning.values()["topic_chunk_tokens"] == 700)
        await until(pilot, lambda: app.run_generation > generation)
        await settled(pilot, app)
        assert app.selection is not None
        assert len(app.selection.candidates) < 52  # the chunks did change
        assert _pinned_rows(app) == [0], _pinned_rows(app)
        row = app.selection.candidates[0]
        assert row.selected and row.reason == "pinned"
        await pilot.press(*["left"] * 3)
        await until(pilot, lambda: app.state.tuning.values()["topic_chunk_tokens"] == 325)
        await settled(pilot, app)
        await wait_for(pilot, lambda: _pinned_rows(app) == [0], 5)
        assert _pinned_rows(app) == [0]
        assert not [s for s in shown if "no longer matches" in s], shown


async def test_f3_a_pin_comes_back_to_its_own_chunk_and_merged_pins_split_again() -> None:
    """F3: a pin in the middle of the run follows its start into a bigger chunk, and
    back on its own chunk when the size returns; two pins whose chunks merge into one
    are one pinned chunk, and two again when they split. Unpinning the chunk that holds
    both takes both pins away."""
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        chunks = bench.view.result.chunks
        first, second = 20, 21
        starts = [chunks[first].lines, chunks[second].lines]
        await pilot.press(*["down"] * first)
        for index in (first, second):
            await until(pilot, lambda i=index: bench.selected == i)
            await pilot.press("p")
            await until(pilot, lambda i=index: i in _pinned_rows(app))
            await pilot.press("down")
        await _rerun(pilot, app, topic_chunk_tokens=800)
        view = bench.view
        assert view is not None
        holders = {
            i
            for i, c in enumerate(view.result.chunks)
            for line in (s[0] for s in starts if s)
            if c.lines and c.lines[0] <= line <= c.lines[1]
        }
        assert len(holders) == 1  # both starts in one chunk at this size
        assert _pinned_rows(app) == sorted(holders)
        await _rerun(pilot, app, topic_chunk_tokens=200)
        assert _pinned_rows(app) == [first, second]
        await _rerun(pilot, app, topic_chunk_tokens=800)
        (held,) = holders  # p on the chunk holding both takes both pins away
        await pilot.press(*["up"] * (bench.selected - held))
        await until(pilot, lambda: bench.selected == held)
        await pilot.press("p")
        await until(pilot, lambda: not app.state.pinned)
        await _rerun(pilot, app, topic_chunk_tokens=200)
        assert _pinned_rows(app) == []


async def test_f3_the_starts_pins_and_a_pin_across_t_stay_on_their_chunks(
    isolated: Path,
) -> None:
    """F3 (found beside it): the pins given at the start (`chunkscope review`: the stored
    review's) were cleared by the first load, so ``w`` saved the review without them;
    ``T`` (tool calls collapsed / raw) read the file again and dropped every pin without
    a word. Both place the pins on the chunks holding theirs."""
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        text = bench.view.result.chunks[3].text
    app = make_app(SAMPLE, pinned=(text,))
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        assert _pinned_rows(app) == [3]
        bench = app.workbench
        assert bench is not None and bench.view is not None
        lines = bench.view.result.chunks[3].lines
        assert lines is not None
        generation = app.run_generation
        await pilot.press("T")  # tool calls raw: the file read again
        await until(pilot, lambda: app.run_generation > generation and not app.options.collapse)
        await settled(pilot, app)
        (row,) = _pinned_rows(app)
        span = bench.view.result.chunks[row].lines
        assert span is not None and span[0] <= lines[0] <= span[1], (row, span, lines)


def test_f3_a_mark_no_chunk_holds_is_dropped_and_said_and_a_pin_wins_over_an_exclusion() -> None:
    """F3: a pin whose start no chunk of the new run holds is not kept silently: it is
    dropped and the note says so. A chunk that now holds a pinned and an excluded chunk
    stays pinned, and the note says the exclusion went."""
    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.tui.workbench.state import ChunkStart, TuningState

    turns = [Turn(None, "You", f"message number {i}", source_line=i + 1) for i in range(4)]
    a, b, c = Chunk(turns[:1]), Chunk(turns[1:2]), Chunk(turns[2:])
    state = TuningState()
    state = state.toggled("pinned", a.text, ChunkStart.of(a))
    state = state.toggled("excluded", b.text, ChunkStart.of(b))
    state = state.toggled("pinned", c.text, ChunkStart.of(c))
    merged = [Chunk(turns[:2])]  # a and b in one chunk; c's records no longer read
    after, notes = state.followed(merged)
    assert after.pinned == {merged[0].text} and not after.excluded
    assert any("an excluded one: pinned" in n for n in notes), notes
    assert any("The pin on the chunk “You: message number 2" in n for n in notes), notes
    # unchanged texts: the same state, nothing said
    assert state.followed([a, b, c]) == (state, [])


async def test_f4_auto_tune_searches_the_depths_the_slider_offers(isolated: Path) -> None:
    """F4: with topic marks at lines 67 and 147, auto-tune said "No setting of the 96
    tried finds any of the 2 topic marks ... Check the marks" while the column at topic
    depth 2.00 found both: its grid held depths 5 to 8 of the slider's 0 to 10. The grid
    now spans the slider's range, and the search finds the marks."""
    from dataclasses import replace

    from textual.widgets import Static

    from chunkscope.engine.evaluate.measure import TUNE_GRIDS
    from chunkscope.engine.params import knob_map
    from chunkscope.engine.segment.segmenter import TopicParams
    from tests.pilot import auto_tune

    slider = knob_map(TopicParams)["topic_depth"].slider
    assert slider is not None
    depths = TUNE_GRIDS["topic"]["topic_depth"]
    part = (slider.hi - slider.lo) / len(depths)
    for tenth in range(int(slider.lo * 10), int(slider.hi * 10) + 1):
        assert min(abs(tenth / 10 - d) for d in depths) <= part / 2 + 1e-9, (tenth, depths)

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.workbench is not None and app.workbench.view is not None)
        assert app.file_marks is not None
        app.set_file_marks(replace(app.file_marks, starts=(67, 147)))
        screen = await auto_tune(pilot, app)
        assert screen.rows[0].f1 > 0, screen.rows[0]
        assert not screen.query_one("#tune-none", Static).display


def test_f4_the_advice_names_the_ranges_searched() -> None:
    """F4: "no setting finds the marks" names the ranges of the grid it searched, and
    that one outside them may find them, before telling the user to check the marks."""
    from chunkscope.engine.evaluate.measure import TUNE_GRIDS, Tuned, no_mark_found

    zero = Tuned({}, 0.2, 0.2, 0.0, 0.0, 0.0, 3.0)
    said = no_mark_found([zero], TUNE_GRIDS["topic"], 2)
    assert said is not None
    assert "No setting of the 120 tried (topic_window 1000-4000, topic_depth 1-9, " in said
    assert "outside those ranges may find them" in said
    seed = no_mark_found([zero], TUNE_GRIDS["seed"], 1)
    assert seed is not None and "(threshold adaptive, 0.05-0.3, std_k 0-1," in seed


async def test_f5_beside_the_merge_panels_scrollbar_the_sweep_rows_end_with_their_numbers(
    isolated: Path,
) -> None:
    """F5: with two topic marks the merge panel (seed mode) is taller than the screen at
    160x48 and scrolls; its scrollbar takes two cells, and the sweep, made with room for
    24 points and the numbers, lost the run's chunk count and Pk at its rows' ends. The
    rows give up points to keep them."""
    import re
    from dataclasses import replace

    from textual.geometry import Region

    from chunkscope.tui.widgets.sweep_panel import SweepPanel
    from tests.pilot import all_idle

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        assert app.file_marks is not None
        app.set_file_marks(replace(app.file_marks, starts=(67, 147)))
        await pilot.press("tab", "left")  # the merge toggle: seed
        await until(pilot, lambda: app.state.tuning.merge.mode == "seed")
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        panel = bench.query_one(SweepPanel)
        await until(pilot, lambda: all_idle(app) and panel.result is not None and not panel.busy)
        await pilot.pause()
        controls = bench.query_one("#controls")
        assert controls.show_vertical_scrollbar  # the case of the walk
        result = panel.result
        assert result is not None and result.pk is not None
        i = result.at_current()
        assert i is not None
        width = panel.size.width
        rows = [s.text for s in panel.render_lines(Region(0, 0, width, panel.size.height))]
        chunks = next(r for r in rows if r.startswith("chunks"))
        pk = next(r for r in rows if r.startswith("Pk"))
        assert re.search(rf" {result.chunks[i]}$", chunks), rows
        assert pk.endswith(f" {result.pk[i]:.3f}"), rows
        assert all(len(r) <= width for r in rows)


def _header(app: Any) -> str:
    from textual.geometry import Region

    from chunkscope.tui.widgets.header_line import HeaderLine

    line = app.workbench.query_one(HeaderLine)
    return "".join(s.text for s in line.render_lines(Region(0, 0, line.size.width, 1)))


async def _palette(pilot: Any, app: Any, command: str) -> None:
    """Run a palette command as a user does: ctrl+p, its words, enter."""
    await pilot.press("ctrl+p")
    await pilot.press(*command)
    await until(pilot, lambda: palette_listed(app))
    await pilot.press("enter")


async def test_f6_the_header_names_the_summarizer_the_palette_switched_to(
    isolated: Path,
) -> None:
    """F6: ctrl+p ``summarizer: llm``: the Summary panel said the llm summarizer failed,
    but the header still ended ``· lexical · extractive · +2`` until a slider step ran
    again; back to extractive, it said ``llm``. It names the one in force at once."""
    app = make_app(ROOT / "sample_logs" / "docs_cleanup.jsonl")
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        assert "· lexical · extractive" in _header(app), _header(app)
        generation = app.run_generation
        await _palette(pilot, app, "summarizer: llm")
        await until(pilot, lambda: app.summarizer_name == "llm")
        assert await wait_for(pilot, lambda: "· lexical · llm" in _header(app), 5), _header(app)
        await _palette(pilot, app, "summarizer: extractive")
        await until(pilot, lambda: app.summarizer_name == "extractive")
        assert await wait_for(pilot, lambda: "· lexical · extractive" in _header(app), 5), _header(
            app
        )
        assert app.run_generation == generation  # no run redrew it


async def test_f7_the_palette_names_enter_for_expand(isolated: Path) -> None:
    """F7: ctrl+p listed ``chunk: expand / collapse the selected chunk`` as the one
    key-bound command without its key: it names ``[enter]``, and still expands."""
    from textual.command import CommandList, CommandPalette

    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.press(*"expand / collapse")
        await until(pilot, lambda: palette_listed(app))
        listed = app.screen.query_one(CommandList)
        first = str(listed.get_option_at_index(0).prompt)
        assert "chunk: expand / collapse the selected chunk  [enter]" in first, first
        merged = app.workbench.query_one("#merged", ChunkList)  # type: ignore[union-attr]
        expanded = set(merged._expanded)
        await pilot.press("enter")
        await until(pilot, lambda: set(merged._expanded) != expanded)
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette))


async def test_f7_the_theme_list_names_its_keys(isolated: Path) -> None:
    """F7: the palette's theme list ("Theme  Change the current theme") said only
    ``Search for themes…``, the footer hidden under it: its field names its keys, as
    the command palette's does, and enter still picks the theme."""
    from textual.command import CommandPalette
    from textual.widgets import Input

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        app.action_change_theme()  # what the palette's "Theme" command runs
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await until(pilot, lambda: palette_listed(app))
        field = app.screen.query_one(Input)
        assert "↑ ↓ move · enter picks · escape closes" in field.placeholder, field.placeholder
        assert field.placeholder.startswith("Search for themes…")
        await pilot.press(*"nord")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: app.theme == "nord")
