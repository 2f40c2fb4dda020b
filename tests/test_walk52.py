"""Walk 52's findings on the workbench, most beside the palette's Keys panel at 100
columns (it takes columns from the workbench after things were fitted to the old width).
F2: a card's role badges were cut mid-word (``Y…``, ``T…``) or gone (a bare ``…``), the
time cut with ``…``. F9: the compare view's tab bar lost its Search tab. F8: the compare
columns' titles were not refitted (``127 cuts…``). F3: the left column's view toggle hid
the option in force. F1: stacked toasts left 2 cells of the summary beside them. F4: a
"Parse problems" toast did not name its file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.pilot import ROOT, make_app, palette_listed, settled, until, wait_for


async def test_a_cards_badges_stay_whole_in_any_width() -> None:
    """F2: beside the Keys panel a merged card read ``11:54:19 Y… 441c  90t`` (it said
    ``You·+2`` before): not even the first badge and the count fitted, and the crop cut
    into them. Whatever the width, a header's badges are whole ones and a count of the
    rest, or only the count (``+3``); the time range, then the chars, then the time give
    way first, and no header is cut with ``…`` while a role can be shown."""
    from datetime import datetime

    from textual.app import App, ComposeResult

    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.tui.widgets.chunk_list import ChunkList, role_badge

    at = datetime(2025, 7, 1, 10, 0, 16)
    later = datetime(2025, 7, 1, 10, 12, 54)
    cards = [
        Chunk(
            [Turn(at, role, f"{role} said something " * 20) for role in roles]
            + [Turn(later, "Bot", "ok")]
        )
        for roles in (
            ("You", "Bot thinking", "Tool"),
            ("Tool",),
            ("Bot thinking", "Tool"),
        )
    ]
    whole = {role_badge(r) for r in ("You", "Bot", "Bot thinking", "Tool")}

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield ChunkList()

    app = One()
    async with app.run_test(size=(100, 30)) as pilot:
        cards_list = app.query_one(ChunkList)
        cards_list.set_items(cards)
        cards_list.set_tokens([8123, 1712, 159])
        cards_list.set_marks({1: "hit", 2: "miss"})
        seen: set[str] = set()
        for width in range(22, 60):
            cards_list.styles.width = width
            await pilot.pause()
            headers = [line for line in cards_list.rendered_lines() if "▸" in line]
            assert len(headers) == 3, headers
            for header, chunk in zip(headers, cards, strict=True):
                assert "…" not in header, (width, header)
                found = re.search(
                    r"▸\s+\d+ [◆✗ ] (?:10:00:16(?:–10:12:54)? )?(\S+) +(?:[\d.]+k?c  )?[\d.]+k?t",
                    header,
                )
                assert found, (width, header)
                badges = found.group(1).split("·")
                count = re.fullmatch(r"\+(\d)", badges[-1])
                named = badges[:-1] if count else badges
                assert set(named) <= whole, (width, header)
                assert len(named) + (int(count.group(1)) if count else 0) == len(chunk.roles)
                seen.add(found.group(1))
        want = {"You·Think·+2", "You·+3", "+4", "Tool·Bot", "Tool·+1", "Think·Tool·Bot"}
        assert want <= seen, " ".join(sorted(seen))


async def open_keys(app: Any, pilot: Any, shown: bool = True) -> None:
    """The palette's Keys panel opened (or closed) as a user does: ctrl+p, ``Keys``, Enter."""
    from textual.widgets import HelpPanel

    await pilot.press("ctrl+p")
    await pilot.press(*"Keys")
    await until(pilot, lambda: palette_listed(app))
    await pilot.press("enter")
    await until(pilot, lambda: bool(app.screen.query(HelpPanel)) == shown)


@pytest.mark.parametrize("size", [(100, 30), (160, 48)], ids=["narrow", "wide"])
async def test_beside_the_keys_panel_the_compare_view_refits_its_tabs_and_titles(
    size: tuple[int, int],
) -> None:
    """F9, F8: in the compare view at 100 columns, the Keys panel opening left the tab
    bar's labels fitted to the old width (``Summary · chunk 0 · merged run  Recap · 9/52
    kept · merged``: the Search tab off the bar) and the columns' titles too
    (``compacted (166) · 127 cuts…``, ``≠ cut only he…``). Each is refitted to the width
    it has now: every tab whole on the bar, every title and subtitle within its border."""
    from rich.cells import cell_len
    from textual.widgets import Tab, TabbedContent

    app = make_app(ROOT / "sample_logs" / "cache_refactor.jsonl")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: bench.driver.comparing)
        await settled(pilot, app)
        await open_keys(app, pilot)

        def tabs_fit() -> bool:
            if not bench.narrow:
                return True
            tabbed = bench.query_one(TabbedContent)
            tabs = list(tabbed.query(Tab))
            used = sum(cell_len(tab.label.plain) + 2 for tab in tabs)
            return used <= tabbed.size.width

        def titles_fit() -> bool:
            for column_id in bench._column_titles:
                column = bench.query_one(f"#{column_id}")
                for text in (column.border_title, column.border_subtitle):
                    shown = str(text or "")
                    if not shown or cell_len(shown) > column.size.width - 4:
                        return False
            return True

        held = await wait_for(pilot, lambda: tabs_fit() and titles_fit(), timeout=5)
        tabbed = bench.query_one(TabbedContent)
        labels = [tab.label.plain for tab in tabbed.query(Tab)]
        titles = [
            (
                str(bench.query_one(f"#{c}").border_title),
                str(bench.query_one(f"#{c}").border_subtitle),
            )
            for c in bench._column_titles
        ]
        assert held, (labels, tabbed.size.width, titles)
        assert any(label.startswith("Search") for label in labels), labels
        for title, subtitle in titles:
            assert "…" not in title and "…" not in subtitle, titles
        # the bar narrowed by other means (the timing of the panel's layout varies):
        # refitted all the same, as soon as it is laid out at its new width
        tabbed.styles.width = 50
        assert await wait_for(pilot, lambda: tabbed.size.width == 50 and tabs_fit(), timeout=5), [
            tab.label.plain for tab in tabbed.query(Tab)
        ]


@pytest.mark.parametrize("size", [(100, 30), (160, 48)], ids=["narrow", "wide"])
async def test_beside_the_keys_panel_the_view_toggle_shows_every_option(
    size: tuple[int, int],
) -> None:
    """F3: beside the Keys panel at 100 columns the left column's toggle read ``show
    turns   raw`` and left out ``[compacted]``, the view in force. Its spacing gives way
    first: every option is drawn within the row, the chosen one in brackets."""
    from rich.cells import cell_len

    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle

    app = make_app(ROOT / "sample_logs" / "cache_refactor.jsonl")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        for shown in (True, False):
            await open_keys(app, pilot, shown)
            await settled(pilot, app)
            toggle = bench.query_one("#left-kind", ChoiceToggle)
            shown = toggle.render().plain
            assert cell_len(shown) <= toggle.content_size.width, (shown, toggle.content_size)
            assert f"[{toggle.value}]" in shown, shown
            for option in toggle.options:
                assert option in shown, shown


async def test_the_parse_problems_toast_names_its_file(isolated: Path) -> None:
    """F4: the "Parse problems" toast said ``Skipped 1 malformed line; first: line 5:
    not valid JSON``, no file named (the "Read with warnings" one says ``warn1.jsonl:170:
    …``): stacked over the next file opened, a markdown file, it read as that file's. It
    names the file it is about."""
    lines = (ROOT / "sample_logs" / "research_notes.jsonl").read_text(encoding="utf-8")
    rows = lines.splitlines()
    rows.insert(4, '{"broken json')
    path = isolated / "warn1.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    app = make_app(path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        said = [n.message for n in app._notifications if n.title == "Parse problems"]
        assert said, [n.title for n in app._notifications]
        assert "warn1.jsonl" in said[0] and "line 5" in said[0], said


async def test_stacked_toasts_cover_the_summary_panels_inside() -> None:
    """F1: at 160 columns the toasts over the summary panel were Textual's 60 cells, the
    panel's inside 62: a letter of the hidden summary showed beside each (a lone ``g``).
    Each toast drawn there spans the panel from its left edge to its right border."""
    from tests.pilot import drawn_toasts

    app = make_app(ROOT / "sample_logs" / "cache_refactor.jsonl")
    app.NOTIFICATION_TIMEOUT = 60  # on screen for the whole test
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        panel = bench.query_one("#summary")
        for n in range(3):
            app.notify(f"Topic mark {n}: a topic starts at line {n + 14} of the file.")
        await until(pilot, lambda: len(app.screen.query("Toast")) == 3)
        await pilot.pause()
        drawn = drawn_toasts(app)
        assert drawn
        for toast in drawn:
            region = toast.region
            assert region.x == panel.region.x, (region, panel.region)
            assert region.right == panel.region.right - 1, (region, panel.region)
