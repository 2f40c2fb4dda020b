"""The workbench on a markdown document: its turns carry the file's date only, so no
card, in the main view or in either column of the compare view, shows a time of day."""

from __future__ import annotations

import re

import pytest

from tests.pilot import ROOT, SIZE, make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

DOC = ROOT / "sample_logs" / "architecture_guide.md"
CLOCK = re.compile(r"\d\d:\d\d:\d\d|--:--:--")


async def test_the_compare_view_shows_no_clock_on_a_documents_cards() -> None:
    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = make_app(DOC)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        cards = bench.query_one("#merged", ChunkList).rendered_lines()
        assert any("Doc" in line for line in cards)
        # its turns are sections, as the header says (the column said "turns (45)")
        n = len(bench.view.source.turns)  # type: ignore[union-attr]
        column = bench.query_one("#before-col")
        for _ in range(3):  # v until the left column shows the turns
            if f"({n})" in str(column.border_title):
                break
            await pilot.press("v")
            await until(pilot, app.workers_idle)
            await pilot.pause()
        title = str(column.border_title)
        assert f"BEFORE MERGE · sections ({n})" in title, title
        app.action_auto_tune()  # `A` with no marks
        await pilot.pause()
        said = [str(note.message) for note in app._notifications]
        assert any("v for the section view, then m on a section" in m for m in said), said
        assert not any(CLOCK.search(line) for line in cards), cards[:3]
        await pilot.press("right_square_bracket")  # the compare view
        await until(pilot, lambda: app.column_specs["right"] is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        lists = [bench.query_one(f"#{side}", ChunkList) for side in ("before", "merged")]
        await until(pilot, lambda: all(lst.chunks for lst in lists))
        for lst in lists:
            lines = [line for line in lst.rendered_lines() if "Doc" in line]
            assert lines, lst.id
            assert not any(CLOCK.search(line) for line in lines), (lst.id, lines[:3])
