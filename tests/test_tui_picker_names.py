"""The picker's names alike but in their middle (walk 17, 9): at 100 columns the tree and
the sessions list cut ``a-very-long-session-file-name-number-{1,2,3}-with-many-words-in-
it.jsonl`` to one text three times (its start and its end kept, the number cut out), and
the rows were told apart by nothing until one was highlighted. A name cut alike to
another's keeps where it differs (``a-very…number-1-with….jsonl``); a name that fits is
whole, one alike to none is cut in its middle as before; names are data, never markup."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from tests.pilot import ROOT, SIZE, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)
ALIKE = [f"a-very-long-session-file-name-number-{i}-with-many-words-in-it.jsonl" for i in (1, 2, 3)]
DATED = [
    f"session-2026-11-01-{w}-long-name-of-the-refactoring-session.jsonl" for w in ("alpha", "beta")
]
MARKUP = [
    f"[b]a-very-long-session-file-name-number-{i}-[@click=app.quit]x-in-it.jsonl" for i in (1, 2)
]
NAMES = [*ALIKE, *DATED, *MARKUP, "short.jsonl"]


def _pieces_in_order(cut: str, name: str) -> bool:
    """`cut` is `name` with stretches left out, each an ellipsis: its pieces are in
    `name` in their order, the first its start and the last its end."""
    if "…" not in cut:
        return cut == name
    pieces = cut.split("…")
    if not (name.startswith(pieces[0]) and name.endswith(pieces[-1])):
        return False
    at = len(pieces[0])
    for piece in pieces[1:-1]:
        found = name.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return len(name) - len(pieces[-1]) >= at


def test_names_alike_but_in_their_middle_are_cut_apart() -> None:
    from chunkscope.tui.screens.open_file import Siblings, cut_middle

    siblings = Siblings(NAMES)
    for cells in range(16, max(map(len, NAMES)) + 2):
        cuts = {name: siblings.cut(name, cells) for name in NAMES}
        for name, cut in cuts.items():
            assert cell_len(cut) <= cells, (cells, cut)
            assert _pieces_in_order(cut, name), (cells, name, cut)
            if cell_len(name) <= cells:
                assert cut == name
            if cells >= 20:
                assert cut.endswith(".jsonl"), (cells, cut)
        assert len(set(cuts.values())) == len(NAMES), (cells, cuts)
    # a name alike to none is cut in its middle only, as before
    lone = Siblings([ALIKE[0], "short.jsonl"])
    assert lone.cut(ALIKE[0], 28) == cut_middle(ALIKE[0], 28) == "a-very-long-se…s-in-it.jsonl"


def _rows(widget: Any) -> list[str]:
    return ["".join(seg.text for seg in widget.render_line(y)) for y in range(widget.size.height)]


@pytest.mark.paints
@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["100x30", "160x48"])
async def test_the_picker_tells_names_alike_in_their_middle_apart(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.screens.open_file import LogTree
    from tests.pilot import picker_listed

    folder = tmp_path / "alike"
    folder.mkdir()
    for name in NAMES:
        shutil.copy(ROOT / "sample_logs" / "cache_refactor.jsonl", folder / name)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        screen = await picker_listed(pilot, app)
        tree = screen.query_one(LogTree)
        await until(pilot, lambda: len(tree.root.children) == len(NAMES))
        await pilot.pause()
        assert isinstance(app.screen, type(screen))  # no name's markup ran (app.quit)
        box = screen.query_one("#sessions", OptionList)
        listed = [r for r in _rows(box) if ".jsonl" in r]
        tree_rows = [r.strip("│ ") for r in _rows(tree) if "jsonl" in r]
        assert len(listed) == len(tree_rows) == len(NAMES), (listed, tree_rows)
        for rows in (tree_rows, listed):
            shown = []
            for row in rows:
                token = next(
                    t for t in row.split() if t.endswith("jsonl") or t[:3] in ("a-v", "ses", "[b]")
                )
                said = [n for n in NAMES if token == n or _pieces_in_order(token, n)]
                assert len(said) == 1, (row, said)  # each row names one file, told apart
                shown.append(said[0])
            assert sorted(shown) == sorted(NAMES), rows
        for rows in (tree_rows, listed):  # the brackets drawn as they are in the name
            assert sum("[b]a-" in r for r in rows) == len(MARKUP), rows
        assert all(re.search(r"\d\d:\d\d", r) for r in listed), listed
