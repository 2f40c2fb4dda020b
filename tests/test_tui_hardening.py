"""Hostile files in the workbench (issue 7): each opens without crashing the app.

The corpus comes from `tests/hostile/make_corpus.py` (the same files the command-line
tests feed to `chunkscope chunk` / `recap`). For the most distinct cases the app must
keep running, say what it skipped (or why it could not open the file) in a
notification, and draw a sane screen: every line of both chunk columns and of the
similarity strip exactly as wide as its widget, no control character reaching the
terminal, cards bounded however long the text. A directory, a FIFO and a missing
path given to the open action are an error notification, and the file that was open
stays open. (Markup and escape sequences in log text: see test_tui_workbench.py.)
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from rich.cells import cell_len

from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.similarity_strip import SimilarityStrip
from tests.pilot import SAMPLE, SIZE, all_idle, is_settled, make_app, until, wait_for

CONTROL = {chr(c) for c in range(32)} | {chr(127)} | {chr(c) for c in range(0x80, 0xA0)}


pytestmark = pytest.mark.usefixtures("isolated")


def errors(app: ChunkscopeApp) -> list[str]:
    return [n.message for n in app._notifications if n.severity == "error"]


#: How long a stress file (a 5 MB line, 20,000 headings) may take to open.
STRESS_WAIT = 90.0


async def opened(pilot, app: ChunkscopeApp, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    """Wait until the file is drawn (or its load failed) and no work is pending; a
    stress file's load waits up to `timeout` seconds (the suite runs three workers per
    core, so a file that takes 8 s alone may take three times as long)."""
    await until(pilot, lambda: app.drawn_generation >= 1 or bool(errors(app)), timeout)
    await until(pilot, app.workers_idle, timeout)
    await pilot.pause()


async def quiet(pilot, app: ChunkscopeApp) -> None:  # type: ignore[no-untyped-def]
    """Like `opened`, and also past the follow-up work (exact token counts, summaries,
    the recap) that timers start after the first draw: nothing will redraw on its own."""
    await opened(pilot, app)
    await until(pilot, lambda: is_settled(app))
    await pilot.pause()
    await until(pilot, lambda: all_idle(app))
    await pilot.pause()


def assert_sane(app: ChunkscopeApp) -> list[str]:
    """Both columns and the strip: lines of the widget's width, no control characters.
    Returns the lines of the merged column."""
    assert app.is_running
    bench = app.workbench
    assert bench is not None and app.screen is bench
    merged_lines: list[str] = []
    for lst in bench.query(ChunkList):
        width = lst.scrollable_content_region.width
        lines = lst.rendered_lines()
        assert lines, f"#{lst.id} drew nothing"
        for line in lines:
            assert cell_len(line) == width, (lst.id, line)
            assert not CONTROL & set(line), (lst.id, line)
        if lst.id == "merged":
            merged_lines = lines
    strip = bench.query_one(SimilarityStrip)
    for line in strip.rendered_lines():
        assert cell_len(line) == strip.size.width
        assert not CONTROL & set(line)
    header = str(bench.query_one("#header").render())
    assert not CONTROL & set(header)
    return merged_lines


def shown_counts(app: ChunkscopeApp) -> tuple[int, int]:
    """(compacted, merged) chunks in the view, checked against the columns' cards."""
    bench = app.workbench
    assert bench is not None and bench.view is not None
    view = bench.view
    assert bench.query_one("#merged", ChunkList).count == len(view.result.chunks)
    assert bench.query_one("#before", ChunkList).count == len(view.left_items)
    return len(view.compacted), len(view.result.chunks)


def skipped_note(app: ChunkscopeApp) -> str:
    notes = [n.message for n in app._notifications if "malformed line" in n.message]
    assert len(notes) == 1, notes
    return notes[0]


# Cases with malformed lines: (case, lines skipped, words of the first reason).
SKIPPING = [
    ("deep_nesting", 3, "nested too deeply"),
]


@pytest.mark.parametrize(("case", "skipped", "reason"), SKIPPING)
async def test_malformed_lines_are_one_notification(
    corpus: dict[str, Path], case: str, skipped: int, reason: str
) -> None:
    app = make_app(corpus[case])
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        plural = "s" if skipped != 1 else ""
        # most lines skipped: said loudly, and what was read is shown
        assert not errors(app)
        note = skipped_note(app)
        assert f"skipped {skipped} malformed line{plural}" in note.lower() and reason in note
        header = str(app.workbench.query_one("#header").render())
        assert f"{skipped} of 5 line{plural} skipped" in header
        lines = assert_sane(app)
        compacted, merged = shown_counts(app)
        assert compacted >= 1 and merged >= 1
        assert lines[0].lstrip("▌▍ ").startswith("▸   0")
        # The app still works: a key moves on, the help screen opens and closes.
        await pilot.press("question_mark")
        await pilot.press("escape")
        assert app.is_running and app.screen is app.workbench


async def test_a_5mb_line_is_one_bounded_card_that_expands(corpus: dict[str, Path]) -> None:
    app = make_app(corpus["huge_line"])
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app, STRESS_WAIT)
        assert not errors(app)
        assert_sane(app)
        bench = app.workbench
        before = bench.query_one("#before", ChunkList)
        big = max(range(before.count), key=lambda i: before.chunks[i].chars)
        assert before.chunks[big].chars > 5_000_000
        before.focus()
        before.select(big)
        await pilot.press("enter")
        await pilot.pause()
        assert before.is_expanded(big)
        # The expansion is capped, not 5 MB of wrapped lines (its speed is the bench's).
        assert 5000 <= len(before._expanded[big]) <= 5001
        assert before._expanded[big][-1] == "… (truncated)"
        assert_sane(app)
        await pilot.press("end")
        await pilot.pause()
        assert_sane(app)


async def test_broken_tool_calls_open(corpus: dict[str, Path]) -> None:
    app = make_app(corpus["tool_calls"], mode="seed")  # the seed loop: one chunk
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert not errors(app)
        assert shown_counts(app) == (1, 1)
        # One chunk, no scrollbar: its cell is kept all the same, so the card's text
        # never runs into the border (walk 6, 15).
        merged = app.workbench.query_one("#merged", ChunkList)
        assert merged.max_scroll_y == 0
        assert max(map(cell_len, merged.rendered_lines())) == merged.size.width - 1
        await pilot.press("v")  # the left column as turns: every one, damaged or not
        await until(pilot, lambda: app.workbench.view.left_kind == "turns")
        await until(pilot, app.workers_idle)
        await pilot.pause()
        turns = app.pipe.turns()
        assert len(turns) >= 9
        assert app.workbench.query_one("#before", ChunkList).count == len(turns)
        assert_sane(app)


@pytest.mark.paints
async def test_20000_headings_open_as_a_long_virtual_list(corpus: dict[str, Path]) -> None:
    app = make_app(corpus["md_many_headings"])
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app, STRESS_WAIT)
        assert not errors(app)
        compacted, merged = shown_counts(app)
        assert compacted > 5000 and merged > 50
        bench = app.workbench
        strip = bench.query_one(SimilarityStrip)
        assert "1 column = " in strip.rendered_lines()[4]  # bucketed, not overflowing
        before = bench.query_one("#before", ChunkList)
        # Only the visible lines are rendered: a repaint renders at most the lines on screen.
        calls: list[int] = []
        real = before.render_line
        before.render_line = lambda y: calls.append(y) or real(y)  # type: ignore[method-assign]
        before._invalidate()
        await wait_for(pilot, lambda: len(calls) > 0, 5)
        await pilot.pause()  # the whole repaint
        assert 0 < len(calls) <= before.scrollable_content_region.height
        before.render_line = real  # type: ignore[method-assign]
        before.focus()
        await pilot.press("end")
        await pilot.pause()
        assert before.selected == compacted - 1
        assert_sane(app)


@pytest.mark.parametrize("case", ["md_binaryish", "random_bytes", "only_garbage"])
async def test_binary_markdown_and_files_with_no_message(
    corpus: dict[str, Path], case: str
) -> None:
    app = make_app(corpus[case], mode="seed")  # the seed loop: one chunk
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        if case in ("md_binaryish", "random_bytes"):  # not text: one error, nothing opens
            (error,) = errors(app)
            assert "looks like a binary file (NUL bytes at byte" in error
            assert app.is_running and app.pipe is None and app.workbench.view is None
        else:  # no turns at all: one error, and the screen stays empty but drawn
            (error,) = errors(app)
            assert "no turns: skipped 5 malformed lines of 5" in error
            assert app.is_running and app.workbench.view is None
        assert app.workbench.query_one(SimilarityStrip).rendered_lines()[0].strip()


async def test_open_action_with_a_directory_fifo_or_missing_path(
    corpus: dict[str, Path], isolated: Path
) -> None:
    """One workbench on the sample asked to open each path in turn (no FIFO where the
    system has none): each is one error, and the file that was open stays open."""
    targets = {  # the directory last: the picker is asked for it after its error
        "fifo": corpus.get("fifo"),
        "missing": isolated / "no" / "such.jsonl",
        "directory": corpus["directory"],
    }
    expected = {
        "directory": "is a directory",
        "fifo": "not a regular file",
        "missing": "such.jsonl",
    }
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert not errors(app), errors(app)
        view = app.workbench.view
        assert view is not None
        for which, target in targets.items():
            if target is None:
                continue
            app.clear_notifications()
            app.open_path(str(target))
            await until(pilot, lambda: bool(errors(app)), timeout=10)
            await until(pilot, app.workers_idle)
            message = errors(app)[0]
            assert expected[which] in message, (which, message)
            assert "Traceback" not in message, which
            # The file that was open stays open, and the app goes on working.
            assert app.is_running and app.workbench.view is view, which
            assert app.pipe.path == str(SAMPLE), which
            assert_sane(app)
        # The picker (ctrl+o): a typed folder is gone into, not opened (nor an error:
        # the wait for "is a directory" here was met by the open above's notice)
        from textual.widgets import Input

        from chunkscope.tui.screens.open_file import OpenFileScreen

        app.clear_notifications()
        await pilot.press("ctrl+o")
        await until(pilot, lambda: bool(app.screen.query("#path")))
        picker = app.screen
        assert isinstance(picker, OpenFileScreen)
        field = picker.query_one("#path", Input)
        field.focus()
        field.value = str(targets["directory"])
        await pilot.press("enter")
        await until(pilot, lambda: picker.start == Path(targets["directory"]))
        assert field.value == "" and not errors(app), errors(app)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.workbench)
        assert app.workbench.view is view and app.pipe.path == str(SAMPLE)


async def test_token_counting_does_not_hold_up_a_slider_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a huge file the follow-up's token counts take tens of seconds: they are counted
    in batches (the lock held per batch), so a slider step waits for one batch at most.
    (The merge counts the compacted units once, in one call, for the chunk size in
    tokens, and keeps the counts: a slider step does not count them again; that call
    runs at full speed here.)"""
    from chunkscope.engine.tokens import TokenCounter
    from chunkscope.tui.widgets.slider import Slider
    from chunkscope.tui.workbench import runs

    monkeypatch.setattr(runs, "COUNT_BATCH", 5)
    real = TokenCounter.count_many
    calls: list[int] = []
    units = len(Pipeline(SAMPLE, PipelineParams(collapse=True)).compacted())  # as the app

    def slow(self: TokenCounter, texts: list[str]) -> list[int]:
        if len(texts) == units:  # the merge's one count of the units
            return real(self, texts)
        calls.append(len(texts))
        time.sleep(0.06 * len(texts))  # a whole column of the sample at once: ~10 s
        return real(self, texts)

    monkeypatch.setattr(TokenCounter, "count_many", slow)
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.drawn_generation >= 1)
        await until(pilot, lambda: len(calls) >= 2)  # the follow-up is counting
        assert max(calls) <= 5
        slider = app.workbench.query_one("#max-chars", Slider)
        slider.focus()
        generation = app.run_generation
        t0 = time.monotonic()
        await pilot.press("left")
        await until(pilot, lambda: app.run_generation > generation, timeout=30)
        # Counting the column's remaining texts sleeps ~0.06 s each, ~9 s in all, however
        # idle the machine: a step that waited for them would take that long; one that
        # waits for the batch in course at most (0.3 s of sleep) takes far less.
        assert time.monotonic() - t0 < 4.5
        # The follow-up starts again once the controls are still, and finishes (counting
        # at full speed now: the slow counter has shown what it was for, and another ~10 s
        # of sleeping through the new column would show nothing more).
        monkeypatch.setattr(TokenCounter, "count_many", real)
        await until(pilot, lambda: app.tokens_ready and app.workers_idle(), timeout=30)
        view = app.workbench.view
        assert view.merged_tokens_exact
        assert view.compact_tokens == real(app.pipe.counter, [c.text for c in view.compacted])


async def test_strip_rows_are_cached_but_never_stale() -> None:
    """The strip's rows are cached by what they show: a new selection rebuilds the cut
    row only, a theme switch rebuilds every row in the new colours."""
    app = make_app(SAMPLE, mode="seed")
    async with app.run_test(size=SIZE) as pilot:
        await quiet(pilot, app)
        strip = app.workbench.query_one(SimilarityStrip)
        rows = [strip.render_line(y) for y in range(5)]
        builds = strip.builds
        assert [strip.render_line(y) for y in range(5)] == rows and strip.builds == builds
        old = strip.selected_pair
        assert old is not None
        strip.set_selected(old + 1)
        new_rows = [strip.render_line(y) for y in range(5)]
        assert strip.builds == builds + 1
        assert new_rows[:2] == rows[:2] and new_rows[3:] == rows[3:]
        col = 6 + strip.chunk_column(old + 1, old + 2)  # in the selected chunk's columns
        assert new_rows[2].text[col] == "▲" and rows[2].text[col] != "▲"
        bar_styles = {seg.style for seg in rows[1] if seg.text.strip("▁▂▃▄▅▆▇█") == ""}
        app.action_next_theme()
        await pilot.pause()
        themed = [strip.render_line(y) for y in range(5)]
        assert strip.builds >= builds + 5  # the cut row, then all four builds again
        assert [r.text for r in themed] == [r.text for r in new_rows]
        assert {seg.style for seg in themed[1] if seg.text.strip("▁▂▃▄▅▆▇█") == ""} != bar_styles


async def test_moving_the_selection_repaints_what_a_full_repaint_would() -> None:
    """The lists repaint only the cards whose state (selected / related) changed: the
    screen after a few moves must equal the screen after repainting everything."""
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await quiet(pilot, app)
        bench = app.workbench
        merged = bench.query_one("#merged", ChunkList)
        merged.focus()
        await pilot.pause()
        for index in (1, 2, 1, 2, 3):  # what up / down do, one step at a time
            merged.select(index, post=True)
            await pilot.pause()
        await until(pilot, lambda: bench.selected == 3 and app.workers_idle())
        await pilot.pause()
        partial = app.export_screenshot()
        for lst in bench.query(ChunkList):
            lst._invalidate()
        await pilot.pause()
        assert app.workers_idle()
        assert app.export_screenshot() == partial
