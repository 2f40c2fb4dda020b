"""Defects of a fresh review walk of the workbench (issue 35): the cards' role colours
follow a theme switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.engine.textutil import plural
from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import SIZE, make_app, settled, until

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.usefixtures("isolated")


def _badge_colours(lst: ChunkList) -> dict[str, str]:
    """The colour of each role badge drawn on the list's visible card headers."""
    colours: dict[str, str] = {}
    for y in range(lst.scrollable_content_region.height):
        for seg in lst.render_line(y):
            if seg.text in ("You", "Bot", "Tool", "Think") and seg.style is not None:
                colours.setdefault(seg.text, str(seg.style.color))
    return colours


async def _drawn_colours(theme: str, switch_to: str | None = None) -> dict[str, str]:
    app = make_app(theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        if switch_to is not None:
            app.theme = switch_to
            await pilot.pause()
            await until(pilot, lambda: app.current_theme.name == switch_to)
            await settled(pilot, app)
            await pilot.pause()
        return _badge_colours(bench.query_one("#merged", ChunkList))


async def test_a_theme_switch_redraws_the_role_badges_in_the_new_themes_colours() -> None:
    fresh = await _drawn_colours("chunkscope-light")
    switched = await _drawn_colours("chunkscope-dark", switch_to="chunkscope-light")
    assert {"You", "Bot"} <= fresh.keys(), fresh
    assert switched == fresh  # the dark theme's Bot (1.76:1 on white) was kept


async def test_the_header_counts_a_markdown_files_sections_as_the_cli_does() -> None:
    from chunkscope.tui.widgets.header_line import HeaderLine

    app = make_app(ROOT / "sample_logs" / "shell_cookbook.md")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        n = len(bench.view.source.turns)
        header = bench.query_one(HeaderLine).render().plain
        assert f"· {plural(n, 'section')}" in header, header
        assert "turn" not in header, header


async def test_the_wide_strips_legend_names_only_the_cut_glyphs_it_draws() -> None:
    from chunkscope.tui.widgets.similarity_strip import CUT_GLYPHS, SimilarityStrip, cut_name

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        reasons = {r for _, r in bench.view.cut_pairs}
        assert "topic" not in reasons  # the sample's first run: no topic cut
        strip = bench.query_one("#strip", SimilarityStrip)
        lines = strip.rendered_lines()
        cuts_row = next(line for line in lines if line.startswith("cuts"))
        legend = lines[-1]
        for reason, glyph in CUT_GLYPHS.items():
            topic = bool(reasons & {"topic", "structure"})  # the topic segmenter's names
            named = f"{glyph} {cut_name(reason, topic)}" in legend
            assert named == (reason in reasons), (reason, legend)
            if named:
                assert glyph in cuts_row, (reason, cuts_row)


@pytest.mark.paints
async def test_each_compare_strip_counts_its_own_chunks_per_column() -> None:
    import re

    from chunkscope.tui.widgets.similarity_strip import LABEL_WIDTH, SimilarityStrip

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("right_square_bracket")  # a strategy in the right column
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await settled(pilot, app)
        await pilot.pause()
        said: dict[str, float] = {}
        for side, lst_id in (("left", "#before"), ("right", "#merged")):
            strip = bench.query_one(f"#strip-{side}", SimilarityStrip)
            chunks = len(bench.query_one(lst_id, ChunkList)._chunks)
            cols = strip.size.width - LABEL_WIDTH - 1
            found = re.search(r"1 column = ([\d.]+) (?:chunks|units)", str(strip.border_subtitle))
            assert found, (side, strip.border_subtitle)
            said[side] = float(found.group(1))
            assert said[side] == round(chunks / cols, 1), (side, chunks, cols)
        assert said["left"] != said["right"]  # the columns hold different runs
