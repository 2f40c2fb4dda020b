"""Defects of the workbench found by review walk 16."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.content import Content
from textual.widget import Widget

from chunkscope.tui.app import ChunkscopeApp, StartOptions
from tests.pilot import ROOT, SIZE, picker_listed, until

pytestmark = pytest.mark.usefixtures("isolated")

HOSTILE_NAMES = ("[@click=app.quit]q.jsonl", "[bold red]evil.jsonl")


def shown(widget: Widget) -> Content:
    """`widget`'s border subtitle as drawn: the getter gives it as markup."""
    return Content.from_markup(widget.border_subtitle or "")


async def test_the_picker_shows_a_file_name_as_typed_never_as_markup(tmp_path: Path) -> None:
    """Walk 16, 1: the sessions list's subtitle (the highlighted row's file) was a str,
    read as markup: `[@click=app.quit]q.jsonl` showed as `q.jsonl` and a click on it quit
    the workbench; `[bold red]evil.jsonl` showed bold red. The name is data."""
    from textual.widgets import OptionList

    folder = tmp_path / "logs"
    folder.mkdir()
    for name in HOSTILE_NAMES:
        shutil.copy(ROOT / "tests/fixtures/claude-code/hello-world-script.jsonl", folder / name)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_listed(pilot, app)
        box = screen.query_one("#sessions", OptionList)
        seen = set()
        for index in range(len(HOSTILE_NAMES)):
            box.highlighted = index
            option = box.get_option_at_index(index)
            name = Path(screen._row_info(option.id).path).name  # type: ignore[union-attr]
            # the subtitle as the border draws it (the property gives it back as markup)
            await until(pilot, lambda n=name: shown(box).plain.startswith(n))
            subtitle = shown(box)
            assert subtitle.plain == f"{name} · 2 sessions", subtitle.plain
            assert not subtitle.spans, subtitle.spans  # no style, no click action
            seen.add(name)
        assert seen == set(HOSTILE_NAMES)
        assert app.is_running
