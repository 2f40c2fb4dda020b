"""The similarity strip's legend names every glyph the strip draws, at 100x30 too (its
rows and its bottom border), and each compare strip says the size cap of its own column
(issue 35)."""

from __future__ import annotations

from typing import Any

import pytest

from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.similarity_strip import (
    CUT_GLYPHS,
    OTHER_GLYPH,
    SimilarityStrip,
    cut_name,
)
from tests.pilot import SIZE, make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


def said(strip: SimilarityStrip) -> str:
    """What the strip's legend says: its rows under the size row, then its border."""
    rows = strip.rendered_lines()
    at = next(i for i, row in enumerate(rows) if row.startswith("size"))
    border = strip._border_subtitle.plain if strip._border_subtitle else ""
    return "\n".join([*(row.strip() for row in rows[at + 1 :]), border]).strip()


def glyph_entries(strip: SimilarityStrip) -> list[str]:
    """The legend entry of every glyph drawn on the strip's cuts and marks rows."""
    rows = strip.rendered_lines()
    reasons = {r for _, r in strip.cuts}
    topic = bool(reasons & {"topic", "structure"}) or strip.threshold is None
    entries = [
        f"{CUT_GLYPHS.get(r, OTHER_GLYPH)} {cut_name(r, topic)}"
        for r in reasons
        if CUT_GLYPHS.get(r, OTHER_GLYPH) in next(x for x in rows if x.startswith("cuts"))
    ]
    if strip.selected_pair is not None:
        entries.append("▲ selected")
    marks = next((x for x in rows if x.startswith("marks")), None)
    if marks is not None:
        counts, missed = strip._mark_counts(strip.size.width)  # what the marks row draws
        if ((counts > 0) & (missed == 0)).any():
            entries.append("◆ found")
        if (missed > 0).any():
            entries.append("◆ missed")
        # a cut the cuts row draws red, with its own reason's glyph (a strategy's is │)
        spurious = "".join(
            dict.fromkeys(
                CUT_GLYPHS.get(r, OTHER_GLYPH)
                for (_, r), v in zip(strip.cuts, strip.verdicts, strict=True)
                if v == "spurious"
            )
        )
        cuts_row = next(x for x in rows if x.startswith("cuts"))
        assert all(g in cuts_row for g in spurious), (spurious, cuts_row)
        if spurious:
            entries.append(f"{spurious} spurious cut")
        digits = sorted({c for c in marks[len("marks") :] if c.isdigit()})
        entries += [f"{d} {d} marks in one column" for d in digits]
    return entries


async def _mark(pilot: Any, app: ChunkscopeApp, index: int) -> None:
    before = app.workbench.query_one("#before", ChunkList)  # type: ignore[union-attr]
    before.focus()
    before.select(index, post=True)
    await pilot.pause()
    await pilot.press("m")
    await pilot.pause()


async def _marks_sharing_a_column(pilot: Any, app: ChunkscopeApp) -> None:
    """Two topic marks in one column of the main strip, and one far from them."""
    bench = app.workbench
    assert bench is not None and bench.view is not None
    view = bench.view
    strip = bench.query_one("#strip", SimilarityStrip)
    firsts = [c.lines[0] if c.lines else 0 for c in view.left_items]
    units = [c.lines[0] if c.lines else 0 for c in view.compacted]

    def column(mark: int) -> int:
        p = next(i for i, first in enumerate(units) if first >= mark)
        return strip.column_of(p - 1, strip.size.width)

    a, b = next(
        (i, j)
        for i in range(1, len(firsts))
        for j in range(i + 1, min(i + 6, len(firsts)))
        if firsts[i - 1] < firsts[i] < firsts[j] and column(firsts[i]) == column(firsts[j])
    )
    for index in (a, b, len(firsts) - 3):
        await _mark(pilot, app, index)
    await until(pilot, lambda: len(app.marks) == 3)
    await until(pilot, lambda: bool(strip.marks))


@pytest.mark.paints
@pytest.mark.parametrize("theme", ["dark", "light"])
async def test_at_100x30_the_legend_names_every_glyph_drawn_with_marks(theme: str) -> None:
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        if theme == "light":
            app.theme = "chunkscope-light"
            await pilot.pause()
        await _marks_sharing_a_column(pilot, app)
        bench = app.workbench
        assert bench is not None
        strip = bench.query_one("#strip", SimilarityStrip)
        await until(pilot, lambda: strip.selected_pair is not None)
        await until(pilot, lambda: bool(strip.border_subtitle))
        await pilot.pause()
        legend = said(strip)
        entries = glyph_entries(strip)
        assert "◆ missed" in entries and any("marks in one column" in e for e in entries)
        flat = " ".join(legend.split())
        for entry in (*entries, "cap 8192c", "1 column = "):
            assert entry in flat, (entry, legend)
        for kind in ("found", "missed", "spurious cut"):  # nothing named that is not drawn
            assert (kind in flat) == any(e.endswith(kind) for e in entries), (kind, legend)
        assert "…" not in legend, legend
        border = strip._border_subtitle.plain if strip._border_subtitle else ""
        assert len(border) <= strip.outer_size.width - 6, border
        assert all(len(row) <= strip.size.width for row in legend.splitlines())


@pytest.mark.paints
async def test_at_100x30_a_compare_strip_with_marks_names_every_glyph_drawn() -> None:
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await _marks_sharing_a_column(pilot, app)
        await pilot.press("left_square_bracket")  # a strategy left, the merged run right
        await until(pilot, lambda: app.column_result("left") is not None)
        await until(pilot, app.workers_idle)
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        right = bench.query_one("#strip-right", SimilarityStrip)
        left = bench.query_one("#strip-left", SimilarityStrip)
        await until(pilot, lambda: bool(right.marks) and right.selected_pair is not None)
        await until(pilot, lambda: right.legend_rows > 0)
        await pilot.pause()
        for strip in (left, right):
            legend = said(strip)
            flat = " ".join(legend.split())
            for entry in (*glyph_entries(strip), "cap", "1 c"):
                assert entry in flat, (strip.id, entry, legend)
            assert "…" not in legend, (strip.id, legend)
        assert "◆ missed" in said(right)
        assert left.size.height == right.size.height  # one height for the two
        # walk 6, 6: the strategy's strip has the marks row too, judged by its own cuts
        assert [p for p, _ in left.marks] == [p for p, _ in right.marks] != []
        assert any(row.startswith("marks") for row in left.rendered_lines())
        column = app.column_result("left")
        assert column is not None
        judged = app.judge_column(column.chunks, [])
        assert judged is not None
        hits = sum(k == "hit" for _, k in left.marks)
        assert hits == len(judged.found & set(app.marks))  # found by the strategy's cuts

        # The items before the merge on the left, a strategy on the right: the left list
        # keeps its ◆ where a marked topic starts, as in the main view, and both strips
        # their marks row.
        report = app.marks_report(bench.view)
        assert report is not None and report.left_flags
        app.set_column_strategy("left", None)
        app.set_column_strategy("right", "blank-line")
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        before = bench.query_one("#before", ChunkList)
        assert before._flags == report.left_flags
        first = min(report.left_flags)
        before.scroll_to_card(first, top=True)
        await pilot.pause()
        assert any(f"▸{first:>4} ◆" in line for line in before.rendered_lines())
        assert [p for p, _ in left.marks] == [p for p, _ in right.marks] != []
        assert {k for _, k in left.marks} == {"hit"}  # a cut after every item finds each
        assert bench.query_one("#column-strips").has_class("-marks")
        for strip in (left, right):
            assert any(row.startswith("marks") for row in strip.rendered_lines()), strip.id

        # A merge column's strip is over its own run's units: its marks where they start.
        app.set_column_strategy("right", "merge:seed")
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        column = app.column_result("right")
        assert column is not None
        units = [u.lines[0] if u.lines else 0 for u in column.result.info["units"]]
        assert len(units) != len(bench.view.compacted)  # another axis than the left's
        drawn = [p for p, _ in right.marks]
        assert drawn == [
            next(i for i, first in enumerate(units) if first >= m) - 1
            for m in app.marks
            if units[0] < m
        ]


@pytest.mark.parametrize("size", [SIZE, NARROW])
async def test_the_before_merge_compare_strip_says_no_cap_applies(size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        await pilot.press("right_square_bracket")  # a strategy right, before merge left
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        left = bench.query_one("#strip-left", SimilarityStrip)
        await until(pilot, lambda: left.uncut and len(left.sizes) > 0 and bool(said(left)))
        await pilot.pause()
        legend = " ".join(said(left).split())
        assert left.cap is None
        assert "no cap (not merged)" in legend and "cap 8192" not in legend, legend


async def test_a_search_hit_ranked_ten_or_more_has_its_glyph_named() -> None:
    """Walk 12, 4: a hit ranked 10 or lower is drawn ``+`` on the strip (one cell), and
    the legend named only ``1 search hit (its rank)``: it names ``+`` when one is drawn."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        strip = bench.query_one("#strip", SimilarityStrip)
        bounds = bench.view.result.bounds
        spans = [(int(bounds[i]), int(bounds[i + 1])) for i in range(len(bounds) - 1)]
        strip.set_hits([(span, rank) for rank, span in enumerate(spans[:3], start=1)])
        await pilot.pause()
        assert "search hit (its rank)" in said(strip) and "or more" not in said(strip)
        strip.set_hits([(span, rank) for rank, span in enumerate(spans[:12], start=1)])
        await pilot.pause()
        assert "+" in next(r for r in strip.rendered_lines() if r.startswith("cuts"))
        assert "+ rank 10 or more" in said(strip)
