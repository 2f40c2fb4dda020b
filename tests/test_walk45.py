"""Walk 45's findings. F1: `--dedup-threshold` took any number (nan, -3, 7) and found
nothing, silently; it is a knob of 0 to 1, refused as every knob is. F2: another
strategy's knob said `do(es) not apply`; it is named as another merge mode's knob is,
with what reads it. F3: a Gemini CLI thought whose description opens with line breaks
written out as text (``\\n\\n``) gave the summary ``Reviewing the File Access: \\n\\n``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.read.parse import load
from chunkscope.tui.cli import main

pytestmark = pytest.mark.usefixtures("isolated")

ROOT = Path(__file__).resolve().parents[1]
README = str(ROOT / "README.md")


@pytest.mark.parametrize(
    ("value", "why"),
    [("nan", "must be a number, got 'nan'"), ("-3", "must be >= 0"), ("7", "must be <= 1")],
)
def test_the_dedup_threshold_is_a_cosine_of_0_to_1(
    capsys: pytest.CaptureFixture[str], value: str, why: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["chunk", README, "--dedup", "--dedup-threshold", value])
    assert exit_.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("chunkscope chunk: argument --dedup-threshold: "), line
    assert why in line, line
    assert main(["chunk", README, "--dedup", "--dedup-threshold", "0.9"]) == 0


def test_another_strategys_knob_is_named_with_what_reads_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["chunk", README, "--strategy", "markdown", "--max-messages", "3"])
    err = capsys.readouterr().err
    assert code == 0
    assert (
        "chunkscope: --max-messages: not read by --strategy markdown "
        "(knobs of --strategy boundary or --strategy episodic)" in err.splitlines()
    ), err
    assert "do(es)" not in err


def test_a_thoughts_written_out_line_breaks_are_no_part_of_its_text(tmp_path: Path) -> None:
    description = "\\n\\n\n\nI'm starting to grasp the file read restrictions now."
    session = {
        "sessionId": "s",
        "startTime": "2025-12-24T22:00:00Z",
        "messages": [
            {"id": "1", "type": "user", "timestamp": "2025-12-24T22:00:00Z", "content": "Go"},
            {
                "id": "2",
                "type": "gemini",
                "timestamp": "2025-12-24T22:11:07Z",
                "content": "Done.",
                "thoughts": [{"subject": "Reviewing the File Access", "description": description}],
            },
        ],
    }
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    texts = [t.text for t in load(path).turns]
    assert (
        "Reviewing the File Access: I'm starting to grasp the file read restrictions now." in texts
    ), texts
    assert not any("\\n" in t for t in texts)


async def test_down_from_the_question_goes_to_the_results() -> None:
    """F4: ↓ in the Search panel's question never left the field (the border says
    ``↓ results``): the field ran the ↓ it has as a scrolling widget, so the panel's own
    binding never saw it, and a letter typed after it went into the question."""
    from tests.pilot import SIZE, make_app, settled, until
    from tests.test_tui_search import _answered

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("slash")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "search-input")
        await pilot.press(*"why did warm reads get slower", "enter")
        await until(pilot, lambda: _answered(app))
        await pilot.press("down")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "search-results")
        results = app.workbench.query_one("#search-results")
        await pilot.press("down")
        await until(pilot, lambda: getattr(results, "highlighted", None) == 1)
        # the field's own keys still edit it in order
        field = app.workbench.query_one("#search-input")
        field.focus()
        await pilot.press("end", "backspace", "backspace", "X")
        await until(pilot, lambda: getattr(field, "value", "") == "why did warm reads get slowX")


def test_a_sentence_cut_to_length_closes_its_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    """F6: a sentence cut at the summary's 280 characters inside a parenthesis left it
    open: the next sentence read as the aside's (docs/workbench.md's recap)."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    aside = "the cuts marked by reason (the seed loop: `┃` threshold, `╳` size cap " + (
        "and the minimum similarity of two neighbours " * 8
    )
    text = f"Bot: The strip shows {aside}.\nBot: The merge controls pick the segmenter."
    summary = ExtractiveSummarizer(max_sentence_chars=120).summarize(text).summary
    assert "...)" in summary, summary
    for part in (summary, *[c["summary"] for c in _candidates(capsys, "workbench.md")]):
        assert part.count("(") - part.count(")") <= 0 or "`(" in part, part


def _candidates(capsys: pytest.CaptureFixture[str], name: str) -> list[dict[str, object]]:
    assert main(["recap", str(ROOT / "docs" / name), "--format", "json"]) == 0
    return list(json.loads(capsys.readouterr().out)["candidates"])


async def test_a_refused_files_reason_is_said_whole_under_the_list(tmp_path: Path) -> None:
    """F5: at 100x30 a refused file's row said ``(looks like a …``, nothing of what it
    looks like; highlighted, the list's border says it whole."""
    from rich.cells import cell_len
    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import picker_listed, until

    folder = tmp_path / "pick"
    folder.mkdir()
    (folder / "nul.md").write_bytes(b"# A\n\x00\x01\x02 bytes" + b"\x00" * 8)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await picker_listed(pilot, app)
        box = screen.query_one("#sessions", OptionList)
        box.focus()
        await pilot.press("end")
        row = box.get_option_at_index(box.option_count - 1)
        assert str(row.id).startswith("unread:")
        said = "nul.md: looks like a binary file (NUL bytes at byte 4), not a log or markdown"
        await until(pilot, lambda: str(box.border_subtitle).startswith(said[:40]))
        subtitle = str(box.border_subtitle)
        assert said.startswith(subtitle.rstrip("…")), subtitle
        assert cell_len(subtitle) <= box.size.width - 6
        assert "(NUL bytes at byte 4)" in subtitle


@pytest.mark.parametrize("size", [(100, 30), (160, 48)], ids=["narrow", "wide"])
async def test_every_page_of_a_burst_counts_in_the_help(size: tuple[int, int]) -> None:
    """F7: twenty ⇟ in a burst in the help screen went a few pages: each page started
    from where the last one's animation had got to."""
    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.screens.help import HelpScreen
    from chunkscope.tui.widgets.steady_scroll import SteadyScroll
    from tests.pilot import burst, until, wait_for

    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), 5)
        await pilot.pause()
        scroll = app.screen.query_one(SteadyScroll)
        page = scroll.scrollable_content_region.height
        assert scroll.max_scroll_y > 3 * page
        burst(app, *["pagedown"] * 3)
        await until(pilot, lambda: scroll.scroll_y == 3 * page)
        burst(app, "pageup")
        await until(pilot, lambda: scroll.scroll_y == 2 * page)
        burst(app, *["pagedown"] * 40)
        await until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y)


@pytest.mark.parametrize("command", [["tui"], ["serve"], []], ids=["tui", "serve", "bare"])
def test_an_unknown_theme_on_the_command_line_is_one_line(command: list[str]) -> None:
    """F8: `chunkscope FILE --theme nope` opened the workbench with a toast; every other
    wrong value is one line and exit 2 before anything opens. (A process of its own: the
    command would open the workbench, or serve it, if the flag were taken.)"""
    from tests.hostile.proc import run_cli

    result = run_cli([*command, README, "--theme", "nope"], timeout=30)
    assert not result.timed_out and result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "argument --theme: no such theme 'nope'; one of chunkscope-dark, " in line, line
    assert "nord" in line and "ansi-dark" not in line  # Textual's, less those it cannot draw


def test_a_theme_file_s_theme_is_one_to_start_in(tmp_path: Path) -> None:
    from chunkscope.themes import theme_names, user_themes_dir

    folder = user_themes_dir()  # (in this test's own data folder: `isolated`)
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text('name = "mine"\ndark = true\nprimary = "#336699"\n')
    assert "mine" in theme_names()


async def test_the_palette_names_the_key_of_every_command_that_has_one() -> None:
    """Walk 45 (not filed): the palette named `[b]` and `[/]` but not pin's `p`, exclude's
    `x`, write's `w` nor summarize's `s`; every command a key runs names it, from the
    bindings."""
    from chunkscope.tui.commands import WorkbenchCommands
    from tests.pilot import SIZE, make_app, settled

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        names = [n for n, _, _ in WorkbenchCommands(app.screen)._named_commands()]
        for wanted in (
            "recap: pin the selected chunk  [p]",
            "recap: exclude the selected chunk  [x]",
            "recap: write _recap.md  [w]",
            "chunk: summarize all merged chunks  [s]",
            "recap: type the budget  [b]",
            "file: open…  [ctrl+o]",
            "file: help  [?]",
        ):
            assert wanted in names, [n for n in names if n.startswith(wanted[:12])]
        assert not any(n.count("[") > 1 and n.endswith("]  [") for n in names)
