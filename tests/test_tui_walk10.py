"""Defects of the compare view and the recap list found by a review walk (issue 35,
walk 8, 12-15): `m` marks the card selected in a strategy's column, `c` copies the
focused column's card and `p`/`x` say why they do not act on a strategy's card, the
column titles keep their short forms after a resize, and a candidate "said already"
shows its summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.pilot import ROOT, SAMPLE, SIZE, make_app, recording_notifications, settled, until

if TYPE_CHECKING:
    from chunkscope.tui.app import ChunkscopeApp
    from chunkscope.tui.widgets.chunk_list import ChunkList

pytestmark = pytest.mark.usefixtures("isolated")

DOCS_CLEANUP = ROOT / "sample_logs" / "docs_cleanup.jsonl"


async def _compare(pilot: Any, app: ChunkscopeApp, key: str) -> ChunkList:
    """Press `key` (``[`` or ``]``: that column shows blank-line) and wait for the
    strategy's chunks in its column; the column's list."""
    from chunkscope.tui.widgets.chunk_list import ChunkList

    side, lst_id = ("left", "#before") if key == "left_square_bracket" else ("right", "#merged")
    await pilot.press(key)
    bench = app.workbench
    assert bench is not None
    await until(pilot, lambda: app.shown_result(side)[0] is not None and app.workers_idle())
    await pilot.pause()
    lst = bench.query_one(lst_id, ChunkList)
    res = app.shown_result(side)[0]
    assert res is not None and res.spec.name == "blank-line"
    assert list(lst.chunks) == list(res.chunks)
    return lst


async def test_m_in_the_compare_view_marks_the_strategy_card_selected() -> None:
    """With blank-line in the left column, `m` took the selected index into the main
    view's items: item 10 (lines 48-52) set a mark at line 13 (walk 8, 12)."""
    app = make_app(DOCS_CLEANUP)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        lst = await _compare(pilot, app, "left_square_bracket")
        index = 10
        lst.focus()
        lst.select(index)
        await pilot.pause()
        card = lst.chunks[index]
        assert card.lines is not None
        line = card.lines[0]
        view = app.workbench.view  # type: ignore[union-attr]
        assert view is not None
        assert view.left_items[index].lines[0] != line  # the two lists differ here
        await pilot.press("m")
        await until(pilot, lambda: bool(app.marks))
        assert list(app.marks) == [line], (line, view.left_items[index].lines)
        await pilot.press("m")  # again: no longer a topic start
        await until(pilot, lambda: not app.marks)


async def test_c_copies_the_strategy_card_and_p_x_say_why_they_do_not_act() -> None:
    """With blank-line in the right column, `c` copied merged chunk 0 of the hidden merge
    run and `p` pinned it (walk 8, 13): `c` copies the selected card, `p`/`x` leave the
    recap as it was and say why."""
    app = make_app(DOCS_CLEANUP)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        lst = await _compare(pilot, app, "right_square_bracket")
        lst.focus()
        lst.select(5)
        await pilot.pause()
        card = lst.chunks[5]
        view = app.workbench.view  # type: ignore[union-attr]
        assert view is not None and view.result.chunks[0].text != card.text
        shown = recording_notifications(app)
        await pilot.press("c")
        await until(pilot, lambda: bool(shown))
        assert app.clipboard == card.text
        assert shown[-1] == f"Copied blank-line chunk 5 ({card.chars} chars) to the clipboard."
        for key, verb in (("p", "pinned"), ("x", "excluded")):
            n = len(shown)
            await pilot.press(key)
            await until(pilot, lambda: len(shown) > n)  # noqa: B023 (awaited here)
            assert shown[-1].startswith(f"Not {verb}: blank-line chunk 5 is not a chunk of")
        assert not app.state.pinned and not app.state.excluded
        # the merged run back in the column: c copies its selected chunk, as ever
        for _ in range(8):
            if app.column_specs["right"] is None:
                break
            await pilot.press("right_square_bracket")
        assert app.column_specs["right"] is None
        await until(pilot, lambda: app.workers_idle())
        bench = app.workbench
        assert bench is not None
        picked = bench.selected_chunk()
        assert picked is not None
        await pilot.press("c")
        await until(pilot, lambda: shown[-1].startswith("Copied chunk"))
        assert app.clipboard == picked[1].text


def _column_titles(app: ChunkscopeApp) -> list[tuple[str, int]]:
    """Each compare column's title and the cells its border leaves it."""
    bench = app.workbench
    assert bench is not None
    return [
        (str(bench.query_one(i).border_title), bench.query_one(i).size.width - 6)
        for i in ("#before-col", "#merged")
    ]


async def test_compare_titles_are_fitted_again_after_a_resize_or_a_new_file() -> None:
    """After a resize across the narrow breakpoint the titles took their longest form,
    cut with "…" by the border, losing Pk and F1 (walk 8, 14): they are fitted to their
    columns again, as at the first draw. The walk saw the same after ctrl+o; opening
    files here (another, then this one again) did not show it before the fix either: a
    guard that a new file's titles are fitted too. One workbench opens the files, then
    is resized."""
    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        before = bench.query_one("#before", ChunkList)
        before.focus()
        before.select(5)
        await pilot.press("m")
        await until(pilot, lambda: bool(app.marks))
        await _compare(pilot, app, "right_square_bracket")
        first = _column_titles(app)
        assert all("Pk" in t and "F1" in t and len(t) <= room for t, room in first), first
        # another file, as ctrl+o opens it, then this one again
        for path in (DOCS_CLEANUP, SAMPLE):
            app.open_path(str(path))
            await until(
                pilot,
                lambda p=path: (  # type: ignore[misc]
                    app.pipe is not None
                    and str(app.pipe.path) == str(p)
                    and app.workers_idle()
                    and app.shown_result("right")[0] is not None
                ),
            )
            await pilot.pause()
            titles = _column_titles(app)
            assert all(len(t) <= room for t, room in titles), (path.name, titles)
        assert titles == first, "after opening another file and this one again"
        # resizes across the narrow breakpoint and back
        for size in ((120, 40), SIZE, (100, 30)):
            await pilot.resize_terminal(*size)
            await until(pilot, lambda: app.workers_idle())
            await pilot.pause()
            await pilot.pause()
            titles = _column_titles(app)
            for title, room in titles:
                assert len(title) <= room, titles
                assert not title.startswith(("LEFT · before merge", "RIGHT")), titles
            # walk 9: both titles name their side, or neither does (at 100x30 the right
            # one kept "RIGHT · " where the left had no room for "LEFT · ")
            sided = {t.startswith(("LEFT · ", "RIGHT · ")) for t, _ in titles}
            assert len(sided) == 1, titles
            if size == SIZE:
                assert titles == first


async def test_a_candidate_said_already_shows_its_summary_pin_or_not() -> None:
    """The best-scored candidates of research_notes read ``0t said already`` and no
    text; a pin elsewhere made the same row show its text and tokens (walk 8, 15): a
    row said already shows its summary and tokens, the same with or without the pin."""
    from chunkscope.tui.widgets.candidate_list import CandidateList

    app = make_app(ROOT / "sample_logs" / "research_notes.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        listed = bench.query_one(CandidateList)

        def said() -> dict[int, tuple[str, int]]:
            return {r.index: (r.text, r.tokens) for r in listed.rows if r.reason == "said already"}

        first = said()
        assert first, "research_notes should have a candidate said already"
        for index, (text, tokens) in first.items():
            assert text.strip() and tokens > 0, (index, text, tokens)
        # a pin on a chunk neither said already nor kept changes nothing on those rows
        other = next(r.index for r in listed.rows if not r.selected and r.index not in first)
        bench.select_merged(other)
        await pilot.press("p")
        await until(pilot, lambda: app.state.pinned and app.workers_idle())
        await pilot.pause()
        again = said()
        for index in again.keys() & first.keys():
            assert again[index] == first[index]
        assert again, "the pin should leave a candidate said already"


async def test_compare_titles_name_both_sides_or_neither_at_100x30() -> None:
    """Walk 9: at 100x30 the left title had no room for ``LEFT · `` and dropped it while
    the right kept ``RIGHT · blank-line (39)``: both are fitted together now."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        await _compare(pilot, app, "right_square_bracket")
        await pilot.pause()
        titles = _column_titles(app)
        assert all(len(t) <= room for t, room in titles), titles
        assert titles[1][0].startswith("blank-line (39)"), titles
        assert not titles[0][0].startswith("LEFT"), titles
