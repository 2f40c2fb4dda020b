"""Defects of a seventh review walk of the workbench (issue 35), on the real app at
100x30: the Search panel's context line is never cut mid-word and keeps its ranker
toggle in view (walk 9: on its one row, in a shorter form of whole parts when it
must); the arrows on the tab bar walk the tabs past Search; the help explains every
cut the strip and the cards draw; `s` says when every summary is done; the selected
card's role badge and the light footer's keys are readable; the marks export counts as
the panel does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from rich.style import Style

from tests.pilot import SAMPLE, SIZE, make_app, recording_notifications, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)
QUESTION = "how are the vectors stored in SQLite?"
#: A question whose context leaves the budget's rest unused (7 tokens, 200-token chunks).
REST_QUESTION = "platform cache dir"


def _lines_of(widget: Any) -> list[str]:
    return [
        "".join(seg.text for seg in widget.render_line(y)).rstrip()
        for y in range(widget.size.height)
    ]


def _keys(text: str) -> list[str]:
    return ["space" if c == " " else c for c in text]


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_the_search_context_line_says_whole_parts_and_keeps_the_ranker(
    size: tuple[int, int],
) -> None:
    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle

    app = make_app(SAMPLE)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        await pilot.press("slash")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "search-input")
        await pilot.press(*_keys(REST_QUESTION), "enter")
        await until(pilot, lambda: app.search_answer is not None and app.workers_idle())
        await pilot.pause()
        answer = app.search_answer
        assert answer is not None and answer.rest_note  # the long line of the walk
        status = app.screen.query_one("#search-status")
        full = str(status.render())
        shown = _lines_of(status)
        assert len(shown) == 1 and shown[0] == full.rstrip()  # one row, nothing cut
        assert "unused" in full and (size == NARROW or answer.rest_note in full)
        assert status.region.right <= app.size.width
        toggle = app.screen.query_one("#search-ranker", ChoiceToggle)
        assert toggle.region.width > 0 and toggle.region.right <= app.size.width
        drawn = "".join(_lines_of(toggle))
        for ranker in toggle.options:
            assert ranker in drawn, drawn


async def test_the_arrows_on_the_tab_bar_walk_past_search_without_entering_it() -> None:
    from textual.widgets import TabbedContent, Tabs

    from chunkscope.tui.widgets.search_panel import SearchPanel

    app = make_app(SAMPLE)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        tabbed = bench.query_one(TabbedContent)
        bar = tabbed.query_one(Tabs)
        bar.focus()
        await pilot.pause()
        await pilot.press("right", "right", "right")
        await until(pilot, lambda: tabbed.active == "tab-search")
        await pilot.pause()
        assert app.focused is bar  # the tab is shown, the focus stays on the bar
        assert bench.driver.search_open
        field = bench.query_one(SearchPanel).input
        assert field.value == ""  # a letter typed here goes in (walk 13, 1: test_tui_search)
        await pilot.press("left", "left")
        await until(pilot, lambda: tabbed.active == "tab-summary")
        assert app.focused is bar and not bench.driver.search_open  # leaving the tab closes it
        await pilot.press("right", "right")
        await until(pilot, lambda: tabbed.active == "tab-search")
        await pilot.press("enter")  # enter goes in
        await until(pilot, lambda: app.focused is field)
        await pilot.press("escape")
        await until(pilot, lambda: tabbed.active == "tab-merge" and not bench.driver.search_open)
        bar.focus()
        await pilot.press("left")  # merge → search (wraps round), then tab goes in
        await until(pilot, lambda: tabbed.active == "tab-search")
        assert app.focused is bar
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is field)


def _explained(help_text: str, reason: str, topic: bool) -> None:
    """The help names `reason`'s glyph as the strip's legend does, and explains the cut
    line a card draws for it."""
    from chunkscope.engine.segment.merge import Cut, cut_name
    from chunkscope.tui.widgets.chunk_list import cut_parts
    from chunkscope.tui.widgets.similarity_strip import CUT_GLYPHS

    assert f"`{CUT_GLYPHS[reason]}` {cut_name(reason, topic)}" in help_text, reason
    depth = 8.0 if topic else None
    why, numbers = cut_parts(Cut(0, reason, 0.2, 7.0 if topic else 0.3, depth))  # type: ignore[arg-type]
    if why:
        assert f"┄ cut: {why}" in help_text, (reason, why)
    else:  # the line is its numbers: the same words, other numbers
        number = re.compile(r"\d+\.\d+")
        assert number.sub("N", f"┄ cut: {numbers}") in number.sub("N", help_text), numbers


async def test_the_help_explains_every_cut_the_strip_and_the_cards_draw() -> None:
    from textual.widgets import Markdown

    from chunkscope.tui.screens.help import HelpScreen
    from chunkscope.tui.widgets.chunk_list import cut_parts
    from chunkscope.tui.widgets.similarity_strip import (
        CUT_GLYPHS,
        SEED_REASONS,
        TOPIC_REASONS,
        SimilarityStrip,
    )

    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        legend = bench.query_one(SimilarityStrip).rendered_lines()[-1]
        drawn = {cut_parts(c)[0] for c in bench.view.result.cuts}
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = app.screen.query_one(Markdown).source
    # what this run draws: the legend's glyphs and the cards' cut lines
    glyphs = "".join(sorted(set(CUT_GLYPHS.values())))
    named = re.findall(rf"([{glyphs}]) ([a-z][a-z ]*?)(?=  |$)", legend)
    assert len(named) >= 3, legend
    for glyph, name in named:
        assert f"`{glyph}` {name}" in shown, (glyph, name)
    assert drawn and all(f"┄ cut: {why}" in shown for why in drawn if why), drawn
    # and every cut either merge mode can draw
    for reason in TOPIC_REASONS:
        _explained(shown, reason, topic=True)
    for reason in SEED_REASONS:
        _explained(shown, reason, topic=False)


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["narrow", "wide"])
async def test_summarize_all_says_when_every_summary_is_done(size: tuple[int, int]) -> None:
    app = make_app(SAMPLE)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        n = len(bench.view.result.chunks)
        assert all(c.text in app.summaries for c in bench.view.result.chunks)
        shown = recording_notifications(app)
        await pilot.press("s")
        await until(pilot, lambda: bool(shown) and app.workers_idle())
        assert shown == [f"All {n} summaries are done."], shown
        app.summaries.clear()  # not done: they are made (from the pipeline's cache)
        await pilot.press("s")
        await until(pilot, lambda: len(shown) > 1 and app.workers_idle())
        assert shown[1].startswith(f"Summarized {n} merged chunks"), shown


def _shown(colour: Any, colours_256: bool) -> str:
    """`colour` (a Rich colour) as hex, as a terminal of 24-bit or 256 colours shows it."""
    from rich.color import ColorSystem

    if colours_256:
        colour = colour.downgrade(ColorSystem.EIGHT_BIT)
    return str(colour.get_truecolor().hex)


def _worst(segments: list[Any]) -> float:
    """The least contrast of `segments`' text on their background, in 24-bit and in 256
    colours (the walk measured `tmux capture-pane -e` in 256)."""
    from tests.test_themes import _contrast

    return min(
        _contrast(_shown(s.style.color, c256), _shown(s.style.bgcolor, c256))
        for s in segments
        for c256 in (False, True)
    )


def _screen_text(app: Any) -> list[Any]:
    """Every segment of text on the screen (a letter or a digit in it) with its colours."""
    return [
        seg
        for strip in app.screen._compositor.render_strips()
        for seg in strip
        if any(c.isalnum() for c in seg.text)
        and seg.style is not None
        and seg.style.color is not None
        and seg.style.bgcolor is not None
    ]


def _unreadable(app: Any) -> list[tuple[str, float]]:
    """The text on the screen under 4.5:1 (in 24-bit or 256 colours), worst first."""
    low = [(seg.text.strip(), _worst([seg])) for seg in _screen_text(app)]
    return sorted((x for x in low if x[1] < 4.5), key=lambda x: x[1])


@pytest.mark.parametrize("theme", ["chunkscope-dark", "chunkscope-light", "chunkscope-contrast"])
async def test_the_selected_cards_badges_and_the_footer_keys_are_readable(theme: str) -> None:
    from textual.widgets._footer import FooterKey

    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = make_app(SAMPLE, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        merged = bench.query_one("#merged", ChunkList)
        think = next(i for i, c in enumerate(merged.chunks) if "Bot thinking" in c.roles)
        merged.select(think)
        for focused in (True, False):
            if focused:
                merged.focus()
            else:
                bench.query_one("#before", ChunkList).focus()
            await until(pilot, lambda f=focused: merged.has_focus == f)  # type: ignore[misc]
            await pilot.pause()
            row = merged._offsets[merged.selected] - merged.scroll_offset.y
            header = list(merged.render_line(int(row)))
            badges = [s for s in header if s.text in ("Think", "Bot", "You", "Tool")]
            assert len(badges) >= 2, [s.text for s in header]
            assert _worst(badges) >= 4.5, (focused, [(s.text, s.style) for s in badges])
            text = [s for s in header if any(c.isalnum() for c in s.text)]  # not the band
            assert _worst(text) >= 4.5, (focused, [(s.text, s.style) for s in text])
        keys = [
            s
            for key in app.screen.query(FooterKey)
            for s in key.render_line(0)
            if s.text.strip() and s.style is not None and s.style.bgcolor is not None
        ]
        assert keys and _worst(keys) >= 4.5
        # Every text on the screen, cut lines first (walk 6, 10: the light theme's were
        # 3.3:1), then at 100x30 comparing (its tabs, a column's panel title).
        assert any("cut:" in seg.text for seg in _screen_text(app))
        assert not _unreadable(app), _unreadable(app)[:5]
        from chunkscope.tui.widgets.header_line import HeaderLine

        header = bench.query_one(HeaderLine)  # its warning and busy text, on its panel
        for name in ("header-line--warn", "header-line--busy"):
            said = header._on_panel(name)
            assert _worst([Segment("x", said + Style(bgcolor=header.rich_style.bgcolor))]) >= 4.5
        await pilot.resize_terminal(*NARROW)
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        assert any("RIGHT · " in seg.text for seg in _screen_text(app))  # its panel's title
        assert not _unreadable(app), _unreadable(app)[:5]


@pytest.mark.parametrize("partial", [False, True])
async def test_the_marks_export_counts_the_marks_as_the_panel_does(
    tmp_path: Path, partial: bool
) -> None:
    import json
    import shutil

    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)
    gold = tmp_path / "session.gold.json"
    gold.write_text(json.dumps({"starts": [1, 16, 53], "partial": partial}) + "\n")
    app = make_app(log, gold=str(gold))
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        score = str(bench.query_one("#merge-score").render())
        assert "2 topic marks" in score, score
        shown = recording_notifications(app)
        out = tmp_path / "exported.gold.json"
        await pilot.press("M")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        field = app.screen.query_one("#prompt-input")
        field.value = str(out)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: out.exists() and bool(shown))
        assert json.loads(out.read_text()) == {"starts": [1, 16, 53], "partial": partial}
        scope = "partial; " if partial else ""
        assert shown == [
            f"Wrote 2 topic marks ({scope}3 topic starts with the file's start) to {out}."
        ], shown


async def test_the_search_stays_open_across_a_resize_to_its_tab() -> None:
    from textual.widgets import TabbedContent

    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("slash")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "search-input")
        await pilot.press(*_keys(QUESTION), "enter")
        await until(pilot, lambda: app.search_answer is not None and app.workers_idle())
        await pilot.resize_terminal(*NARROW)
        await until(pilot, lambda: bool(bench.query(TabbedContent)))
        tabbed = bench.query_one(TabbedContent)
        await until(pilot, lambda: tabbed.active == "tab-search")
        await pilot.pause(0.2)
        assert tabbed.active == "tab-search" and bench.driver.search_open
        assert app.search_answer is not None


async def test_the_help_names_every_thing_e_exports() -> None:
    """The help said `e` exports "the merged chunks (JSON or markdown)"; its dialog also
    offers the recap and the run as an HTML report."""
    from chunkscope.tui.screens.choose import ChooseScreen
    from chunkscope.tui.screens.help import HELP

    row = next(line for line in HELP.splitlines() if line.startswith("| `e` |"))
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        assert isinstance(app.screen, ChooseScreen)
        labels = [label for _, label in app.screen.choices]
    assert len(labels) == 4
    for words in ("JSON", "markdown", "recap", "HTML report"):
        assert any(words in label for label in labels) and words in row, words
