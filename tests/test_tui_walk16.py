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


def test_the_workbench_without_a_terminal_is_one_line_and_exit_2(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 16, 17: `chunkscope FILE </dev/null >out` ran the workbench with no terminal,
    at ~92% CPU, writing escape codes to the file until killed. Now one line and exit 2
    (`chunkscope FILE`, `tui`, `review`), before any app starts; pytest gives no terminal."""
    from chunkscope.tui.cli import main

    sample = str(ROOT / "sample_logs" / "cache_refactor.jsonl")
    expected = (
        "chunkscope: the workbench needs a terminal: stdin and stdout are not one; use "
        "`chunkscope chunk` or `chunkscope recap` for output to a file or pipe"
    )
    for argv in ([sample], ["tui", sample], ["tui"]):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and err.strip() == expected, err


def test_the_workbench_started_by_a_command_without_a_terminal_exits_at_once(
    isolated: Path,
) -> None:
    """The real command, as the walk ran it (stdin /dev/null, stdout a file): it ends at
    once with the line on stderr and nothing on stdout."""
    import os
    import subprocess
    import sys

    out = isolated / "x.out"
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    with out.open("w") as sink:
        done = subprocess.run(
            [sys.executable, "-m", "chunkscope.tui.cli", str(ROOT / "sample_logs")],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env=env,
            cwd=ROOT,
        )
    assert done.returncode == 2
    assert out.read_text() == ""
    assert done.stderr.strip().endswith("for output to a file or pipe"), done.stderr


def test_the_workbench_refuses_an_unknown_profile_as_chunk_does(
    isolated: Path, capsys: pytest.CaptureFixture[str], terminal: None
) -> None:
    """Walk 16, 14a: `chunkscope FILE --profile nosuch` opened the workbench with the
    defaults and a 3-second notification; `chunk` and `recap` exit 2 with one line. The
    workbench now refuses it the same way, before it starts."""
    from chunkscope.tui.app import ChunkscopeApp
    from chunkscope.tui.cli import main

    sample = str(ROOT / "sample_logs" / "cache_refactor.jsonl")
    assert main(["chunk", sample, "--profile", "nosuch"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("chunkscope: no profile named 'nosuch'"), said
    started: list[object] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ChunkscopeApp, "run", lambda self, *a, **k: started.append(self))
        assert main([sample, "--profile", "nosuch"]) == 2
        assert capsys.readouterr().err.strip() == said
        assert not started
        assert main([sample]) == 0 and len(started) == 1  # without it: the workbench


def _footer_keys(app: ChunkscopeApp) -> list[tuple[str, str]]:
    from textual.widgets._footer import FooterKey

    return [
        (key.key_display, key.description)
        for key in app.screen.query(FooterKey)
        if key.display and not key.has_class("-command-palette")
    ]


@pytest.mark.parametrize("size", [SIZE, (100, 30)], ids=["160", "100"])
async def test_the_footer_in_a_text_field_lists_keys_that_work_there(
    size: tuple[int, int],
) -> None:
    """Walk 16, 9: with the search question focused the footer said `? Help  / Search`
    (both type into the field) and had no quit. Now `f1 Help  ^q Quit` first, no key the
    field takes as text; back in the lists, `? Help  q Quit` again."""
    from textual.widgets import Input

    from tests.pilot import make_app, settled

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: _footer_keys(app)[:2] == [("?", "Help"), ("q", "Quit")])
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        await until(pilot, lambda: ("f1", "Help") in _footer_keys(app))
        keys = _footer_keys(app)
        assert keys[:2] == [("f1", "Help"), ("^q", "Quit")], keys
        typed = [shown for shown, _ in keys if len(shown) == 1]
        assert not typed, keys  # `?`, `/`, `q`: text in the field
        await pilot.press("w", "h", "y", "question_mark")
        assert app.screen.focused.value == "why?"  # type: ignore[union-attr]
        await pilot.press("f1")  # and it works from the field
        from chunkscope.tui.screens.help import HelpScreen

        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("escape")  # the search panel closes: the lists' keys again
        await until(pilot, lambda: _footer_keys(app)[:2] == [("?", "Help"), ("q", "Quit")])


@pytest.mark.paints
async def test_a_card_shows_a_long_role_whole_or_cut_with_an_ellipsis() -> None:
    """Walk 16, 15: a role with no short badge was cut at six cells (`Bot·Tool·Subage`,
    with 45 cells free to its right): now whole (`Subagent`), or cut with `…` when long."""
    from datetime import datetime

    from textual.app import App, ComposeResult

    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.tui.widgets.chunk_list import ChunkList, role_badge

    at = datetime(2025, 7, 1, 10, 0, 16)
    roles = ("Bot", "Tool", "Subagent")
    chunk = Chunk([Turn(at, role, f"{role} said something") for role in roles])

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield ChunkList()

    app = One()
    async with app.run_test(size=(100, 30)) as pilot:
        cards = app.query_one(ChunkList)
        cards.set_items([chunk])
        await pilot.pause()
        header = cards.rendered_lines()[0]
        assert "Bot·Tool·Subagent " in header, header
    assert role_badge("Subagent") == "Subagent"
    assert role_badge("a_reader_s_own_role") == "a_reader_…"
    assert role_badge("Bot thinking") == "Think"


def test_review_without_a_terminal_is_one_line_and_exit_2(
    isolated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 16, 17, for `review`: a recap to review found, but no terminal to show it on."""
    from chunkscope.tui.cli import main

    started: list[object] = []
    monkeypatch.setattr("chunkscope.tui.cli.review.review_options", lambda *a, **k: StartOptions())
    monkeypatch.setattr(ChunkscopeApp, "run", lambda self, *a, **k: started.append(self))
    assert main(["review", str(isolated)]) == 2
    err = capsys.readouterr().err
    assert "the workbench needs a terminal" in err and not started, err
