"""Walk 52's findings on the workbench, most beside the palette's Keys panel at 100
columns (it takes columns from the workbench after things were fitted to the old width).
F2: a card's role badges were cut mid-word (``Y…``, ``T…``) or gone (a bare ``…``), the
time cut with ``…``. F9: the compare view's tab bar lost its Search tab. F8: the compare
columns' titles were not refitted (``127 cuts…``). F3: the left column's view toggle hid
the option in force. F1: stacked toasts left 2 cells of the summary beside them. F4: a
"Parse problems" toast did not name its file."""

from __future__ import annotations

import re


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
