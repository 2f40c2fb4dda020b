"""Walk 49's findings on the workbench. F5: a burst of notifications (`m` four times on
the turns view, each a 4-line note) stacked toasts taller than the summary panel, over
the similarity strip's size row, legend and border (at 100 columns over both columns).
F6: a card's role badges were cut mid-word at 100 columns (``Think·To…``). F8: the
RECAP table's summary column showed the abstract beside the summary's token count.
F10: beside the Keys panel at 100 columns the left column's title lost its count
(``BEFORE MERGE · compacted (…``)."""

from __future__ import annotations

import pytest

from tests.pilot import drawn_toasts, make_app, settled, until

MARK_NOTE = (
    "Topic mark: a topic starts at line {n} of the file, where items 35–36 start (a mark "
    "is a line: its ◆ shows on item 35, the first of them); 2 marks, partial: a says "
    "they are all the topics."
)


@pytest.mark.parametrize(("size", "area"), [((160, 48), "#summary"), ((100, 30), "#strip")])
async def test_a_burst_of_notifications_keeps_to_the_panel_they_sit_over(
    size: tuple[int, int], area: str
) -> None:
    """F5: at 160 columns the toasts sit over the summary panel, at 100 over the strip
    (above the tabs): however many come at once, each drawn toast lies within that
    panel; the newest is drawn, the older ones as long as the stack fits, and a toast
    too tall for the rows on its own (an error's long reason) is cut to them."""
    app = make_app()
    app.NOTIFICATION_TIMEOUT = 60  # on screen for the whole test
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        panel = app.screen.query_one(area)
        for n in range(4):
            app.notify(MARK_NOTE.format(n=40 + n))
        await until(pilot, lambda: len(app.screen.query("Toast")) == 4)
        await pilot.pause()
        drawn = drawn_toasts(app)
        assert drawn, "no toast drawn"
        assert "line 43" in str(drawn[-1]._notification.message)  # the newest
        for toast in drawn:
            assert panel.region.contains_region(toast.region), (toast.region, panel.region)
        if size == (160, 48):  # the summary's 17 rows hold two 6-row notes
            assert len(drawn) == 2, [t.region for t in drawn]
        app.notify("no such file: " + "/tmp/x" * 120, title="Could not open", severity="error")
        await until(pilot, lambda: len(app.screen.query("Toast")) == 5)
        await pilot.pause()
        drawn = drawn_toasts(app)
        assert drawn[-1]._notification.severity == "error"
        for toast in drawn:
            assert panel.region.contains_region(toast.region), (toast.region, panel.region)


async def test_a_cards_role_badges_are_dropped_whole_never_cut() -> None:
    """F6: at 100 columns a card of several roles read ``Think·To…``, ``You·Thi…`` or
    ``Think·…`` (which role follows?). At any width the badges shown are whole, the
    ones left out counted (``Think·+1``), all of them when they fit; where not even the
    first and the count fit, the time range gives way to its start."""
    import re
    from datetime import datetime

    from textual.app import App, ComposeResult

    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.tui.widgets.chunk_list import ChunkList, role_badge

    at = datetime(2025, 7, 1, 10, 0, 16)
    later = datetime(2025, 7, 1, 10, 12, 54)
    cards = [
        Chunk(
            [Turn(at, role, f"{role} said something") for role in roles]
            + [Turn(later, "Bot", "ok")]
        )
        for roles in (
            ("You", "Bot thinking", "Tool"),
            ("You", "Bot thinking", "Tool", "Subagent"),
            ("Bot thinking", "Tool"),
        )
    ]
    whole = {role_badge(r) for r in ("You", "Bot", "Bot thinking", "Tool", "Subagent")}

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield ChunkList()

    app = One()
    async with app.run_test(size=(100, 30)) as pilot:
        cards_list = app.query_one(ChunkList)
        cards_list.set_items(cards)
        cards_list.set_tokens([8123, 1712, 159])
        seen: set[str] = set()
        for width in range(40, 72):
            cards_list.styles.width = width
            await pilot.pause()
            headers = [line for line in cards_list.rendered_lines() if "▸" in line]
            assert len(headers) == 3, headers
            for header, chunk in zip(headers, cards, strict=True):
                found = re.search(r"10:00:16(?:–10:12:54)? (\S+) ", header)
                assert found, (width, header)
                badges = found.group(1).split("·")
                count = re.fullmatch(r"\+(\d)", badges[-1])
                named = badges[:-1] if count else badges
                assert named and set(named) <= whole, (width, header)
                assert len(named) + (int(count.group(1)) if count else 0) == len(chunk.roles)
                seen.add(found.group(1))
        assert {"You·Think·Tool·Bot", "You·+3", "Think·Tool·Bot", "Think·+2"} <= seen, seen


async def test_the_recap_tables_summary_is_the_text_its_tokens_count() -> None:
    """F8: the RECAP table's summary column showed the chunk's abstract (a 14-token line)
    beside the token count of its summary (78t), which is what the recap holds. Each row
    now shows the summary the recap gives the chunk (a kept one's is in the preview),
    the one its tokens count."""
    from chunkscope.tui.widgets.candidate_list import CandidateList

    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        selection = app.selection
        assert selection is not None
        by_index = {c.index: c for c in selection.candidates}
        table = app.screen.query_one(CandidateList)
        # where abstract and summary differ, the row reads as the summary
        differing = [
            c for c in selection.candidates if not c.text.startswith(c.abstract[:30].rstrip("."))
        ]
        assert differing
        lines = {line.split()[1]: line for line in table.rendered_lines() if line.strip()}
        seen = [c for c in differing if str(c.index) in lines]
        assert seen
        for c in seen:
            assert " ".join(c.text.split()[:4]) in lines[str(c.index)], (
                c.text,
                lines[str(c.index)],
            )
        assert len(table.rows) == len(by_index)
        for row in table.rows:
            candidate = by_index[row.index]
            assert (row.text, row.tokens) == (candidate.text, candidate.tokens), row
            if row.selected:
                assert candidate.text.split("\n")[0][:40] in selection.text, row


@pytest.mark.parametrize("size", [(100, 30), (160, 48)], ids=["narrow", "wide"])
async def test_the_left_title_beside_the_keys_panel_keeps_its_count(size: tuple[int, int]) -> None:
    """F10: with the palette's Keys panel open at 100 columns the left column's title
    read ``BEFORE MERGE · compacted (…``: fitted to the column's width before the panel
    took its share, and with no shorter form. It gives up whole words, never its count,
    fitted to the width the column has now; closed again, the long form comes back."""
    from rich.cells import cell_len
    from textual.widgets import HelpPanel

    from tests.pilot import ROOT, palette_listed

    app = make_app(ROOT / "docs" / "workbench.md")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        assert bench.view is not None
        units = str(len(bench.view.left_items))

        def title() -> str:  # the column of the layout now (160 beside it: a narrow one)
            return str(bench.query_one("#before-col").border_title)

        def fits() -> bool:
            column = bench.query_one("#before-col")
            return 0 < cell_len(title()) <= column.size.width - 4

        assert title() == f"BEFORE MERGE · compacted ({units} units)", title()
        for shown in (True, False):
            await pilot.press("ctrl+p")
            await pilot.press(*"Keys")
            await until(pilot, lambda: palette_listed(app))
            await pilot.press("enter")
            await until(pilot, lambda shown=shown: bool(bench.query(HelpPanel)) == shown)
            await until(pilot, fits)
            assert title().endswith(f"({units} units)") or title().endswith(f"({units})"), title()
            assert "(" in title() and "…" not in title(), title()
        assert title() == f"BEFORE MERGE · compacted ({units} units)", title()
