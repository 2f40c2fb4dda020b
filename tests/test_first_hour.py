"""A newcomer's first hour (issue 26): the picker on the bundled samples, text from files
shown as text everywhere, a crash as one line and a report, keys that do what the help says.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from chunkscope.tui.app import ChunkscopeApp, StartOptions
from chunkscope.tui.cli import main
from chunkscope.tui.crash import EXIT_CRASH
from chunkscope.tui.screens.open_file import OpenFileScreen
from tests.pilot import (
    ROOT,
    SAMPLE,
    SIZE,
    burst,
    palette_listed,
    picker_listed,
    settled,
    until,
    wait_for,
)

SAMPLES = ROOT / "sample_logs"
MARKUP = SAMPLES / "markup_injection.jsonl"

pytestmark = pytest.mark.usefixtures("isolated")


def _option_texts(box: OptionList) -> list[str]:
    return [str(box.get_option_at_index(i).prompt) for i in range(box.option_count)]


async def test_the_picker_shows_markup_as_text_and_opens_a_file() -> None:
    app = ChunkscopeApp(StartOptions(folder=str(SAMPLES), fixed_timings=True))
    async with app.run_test(size=(220, 48)) as pilot:  # the name, then the message
        screen = await picker_listed(pilot, app)
        await pilot.pause()
        box = screen.query_one("#sessions", OptionList)
        texts = _option_texts(box)
        assert any("[bold red]alarm[/]" in t for t in texts), texts
        # Drawn literally: the brackets reach the screen.
        shown = "\n".join(
            "".join(seg.text for seg in box.render_line(y)) for y in range(box.size.height)
        )
        assert "[bold" in shown  # the row is cut to the list's width
        index = next(i for i, s in enumerate(screen.sessions) if Path(s.path) == MARKUP)
        box.focus()
        box.highlighted = index
        await pilot.press("enter")
        await settled(pilot, app)
        assert app.pipe is not None and Path(app.pipe.path).name == MARKUP.name


def _crashing_mount(self: ChunkscopeApp) -> None:
    raise RuntimeError("boom [bold]not markup[/]\nsecond line")


def test_a_crash_is_one_line_a_report_and_a_nonzero_exit(
    isolated: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    terminal: None,
) -> None:
    monkeypatch.setattr(ChunkscopeApp, "on_mount", _crashing_mount)
    monkeypatch.setattr(
        ChunkscopeApp, "run", functools.partialmethod(ChunkscopeApp.run, headless=True)
    )
    status = main(["tui", str(SAMPLE)])
    out, err = capsys.readouterr()
    assert status == EXIT_CRASH
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "RuntimeError: boom [bold]not markup[/] second line" in lines[0]
    reports = list((isolated / "data" / "crashes").glob("crash-*.txt"))
    assert len(reports) == 1 and str(reports[0]) in lines[0]
    report = reports[0].read_text()
    assert "Traceback" in report and "_crashing_mount" in report


def test_a_crash_in_a_command_is_one_line_and_a_report(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import chunkscope.tui.cli.chunk

    def broken(args: object) -> int:
        raise KeyError("surprise")

    monkeypatch.setattr(chunkscope.tui.cli.chunk, "cmd_chunk", broken)
    status = main(["chunk", str(SAMPLE)])
    err = capsys.readouterr().err
    assert status == EXIT_CRASH
    assert len(err.strip().splitlines()) == 1 and "KeyError" in err
    assert "Traceback" not in err
    assert len(list((isolated / "data" / "crashes").glob("crash-*.txt"))) == 1


def test_a_crash_report_is_written_when_the_working_folder_is_gone(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.tui.crash import write_report

    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    try:
        raise KeyError("surprise")
    except KeyError as e:
        report = write_report(e)
    assert report is not None and report.parent == isolated / "data" / "crashes"
    text = report.read_text(encoding="utf-8")
    assert "cwd: unknown" in text and "KeyError: 'surprise'" in text


async def test_q_quits_on_the_main_screen() -> None:
    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    assert app.return_code == 0


async def test_q_is_text_in_a_prompt() -> None:
    from textual.widgets import Input

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+s")  # save a profile: a name prompt
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running
        assert app.screen.query_one(Input).value.endswith("q")


def test_eval_accepts_embed(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = isolated / "gold.json"
    gold.write_text('{"starts": [1, 40]}\n')
    args = ["eval", str(SAMPLE), "--gold", str(gold), "--format", "json"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main([*args, "--embed"]) == 0
    assert capsys.readouterr().out == plain


def _last_note(app: ChunkscopeApp) -> str:
    return list(app._notifications)[-1].message


async def test_a_pin_survives_exclude_then_include() -> None:
    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("p")
        await pilot.pause()
        assert len(app.state.pinned) == 1
        pinned = app.state.pinned
        await pilot.press("x")
        await pilot.pause()
        assert not app.state.pinned and app.state.excluded == pinned
        assert "comes back" in _last_note(app)
        await pilot.press("x")
        await pilot.pause()
        assert app.state.pinned == pinned and not app.state.excluded
        assert "pinned again" in _last_note(app)
        await settled(pilot, app)
        assert any(r.pinned for r in app.selection.candidates)  # type: ignore[union-attr]


async def test_clear_pins_from_the_palette() -> None:
    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("p")
        await pilot.pause()
        assert app.state.pinned
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"clear pins")
        await wait_for(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running and not app.state.pinned


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        (("b", "backspace", "backspace", "backspace", "backspace", *"1500"), "1500"),
        (("b", "end", "backspace", "backspace", *"25"), "1025"),  # 1000 pre-filled
    ],
)
async def test_a_burst_of_keys_into_the_budget_prompt_is_kept(
    keys: tuple[str, ...], field: str
) -> None:
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        burst(app, *keys)

        def typed() -> bool:
            screen = app.screen  # the prompt may be up before its field is composed
            if not isinstance(screen, PromptScreen):
                return False
            fields = screen.query(Input)
            return bool(fields) and fields.first().value == field

        await wait_for(pilot, typed, 5)
        await pilot.pause()  # and any key that would come after them
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one(Input).value == field
        burst(app, "enter")
        await wait_for(pilot, lambda: app.budget == int(field), 5)
        assert app.budget == int(field)


@pytest.mark.parametrize("size", [SIZE, (100, 30)])
async def test_a_burst_after_slash_goes_into_the_question(
    size: tuple[int, int], isolated: Path
) -> None:
    """`/` then the question at once (a paste, a fast typist): every letter lands in
    the search field, none reaches the workbench's keys (`q` quits, `c` copies, `a`
    flips the marks flag, `e` opens Export, `w` writes the recap)."""
    from textual.widgets import Input

    from chunkscope.tui.widgets.search_panel import SearchPanel

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        question = "sqlite cache query now"
        before = _files(isolated)
        burst(app, "/", *question)
        field = app.screen.query_one(SearchPanel).query_one("#search-input", Input)
        await wait_for(pilot, lambda: field.value == question, 5)
        await pilot.pause()
        assert app.is_running
        assert field.value == question
        assert field.has_focus
        assert app.screen is app.workbench  # no Export dialog, no prompt
        assert _files(isolated) == before  # `w` wrote no recap, `a` saved no settings


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() and "cache" not in p.relative_to(root).parts}


async def test_a_key_that_arrives_while_the_app_closes_is_dropped() -> None:
    """Keys of a burst still queued when the app quits (its screens gone) are dropped,
    not an exception: `q` then a late key must exit cleanly."""
    from textual import events

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
    assert not app.screen_stack
    for forwarded in (False, True):
        key = events.Key("x", "x")
        if forwarded:
            key._set_forwarded()
        await app.on_event(key)
        await app._on_key(key)
    assert app._exception is None


async def test_n_prefills_the_current_chunk_count() -> None:
    from textual.widgets import Input

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("n")
        await pilot.pause()
        assert app.workbench is not None and app.workbench.view is not None
        count = len(app.workbench.view.result.chunks)
        assert app.screen.query_one(Input).value == str(count)


def _look(widget: object) -> list[object]:
    """What `widget` draws, and the border of the panel holding it (styles included)."""
    from textual.geometry import Region
    from textual.widget import Widget

    assert isinstance(widget, Widget)
    w, h = widget.size
    strips = widget.render_lines(Region(0, 0, w, h))
    panel = next((a for a in widget.ancestors_with_self if a.has_class("panel")), None)
    border = (
        None
        if panel is None
        else (str(panel.styles.border), panel.has_pseudo_class("focus-within"))
    )
    return [[(seg.text, seg.style) for seg in strip] for strip in strips] + [border]


@pytest.mark.parametrize("size", [SIZE, (100, 30)])
async def test_every_focus_stop_shows_it_and_does_something(size: tuple[int, int]) -> None:
    from textual.containers import HorizontalScroll, VerticalScroll
    from textual.widgets import Tabs

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        chain = list(app.screen.focus_chain)
        assert chain
        # How each stop looks with nothing focused (one redraw for them all: every
        # focus change restyles and redraws the whole workbench, ~0.3 s a time).
        app.screen.set_focus(None)
        await pilot.pause()
        plain = [_look(widget) for widget in chain]
        # Tab walks the chain, and each stop looks different focused.
        for i, widget in enumerate(chain):
            # A scroll container is no stop of its own: its controls are (the summary's
            # body holds text, no controls: it is one, to scroll it with the keys).
            assert widget.id == "summary-scroll" or not isinstance(
                widget, (VerticalScroll, HorizontalScroll)
            ), widget
            if i == 0:
                widget.focus()
                await pilot.pause()
            else:
                await pilot.press("tab")
            assert app.focused is widget, (i, widget, app.focused)
            if isinstance(widget, Tabs):
                continue  # Textual's own underline
            assert _look(widget) != plain[i], f"{widget!r} looks the same focused"


async def test_shift_tab_after_switching_the_mode_lands_on_a_control() -> None:
    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
    from chunkscope.tui.widgets.slider import Slider

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        toggle = app.screen.query_one("#merge-mode", ChoiceToggle)
        toggle.focus()
        await pilot.press("left")  # topic -> seed
        await settled(pilot, app)
        await pilot.press("right")  # and back
        await settled(pilot, app)
        for _ in range(len(list(app.screen.focus_chain))):
            await pilot.press("shift+tab")
            assert isinstance(app.focused, (ChoiceToggle, Slider)) or app.focused.id in {
                "before",
                "merged",
                "candidates",
                "recap-preview",
                "summary-scroll",
            }, app.focused


async def test_the_seed_strip_fills_its_width() -> None:
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip
    from tests.pilot import make_app

    app = make_app(SAMPLE, mode="seed")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        strip = app.screen.query_one(SimilarityStrip)
        assert 10 < len(strip.sims) < 100  # fewer neighbours than columns
        lines = strip.rendered_lines()
        size_row = next(line for line in lines if line.startswith("size"))
        bars = size_row.rstrip()
        assert len(bars) >= strip.size.width - 2, size_row
        assert "size: cap" in lines[-1] or "size: no cap" in lines[-1]


@pytest.mark.parametrize(("size", "keep"), [(SIZE, "#recap"), ((100, 30), "#lower")])
async def test_toasts_leave_the_recap_visible(size: tuple[int, int], keep: str) -> None:
    from textual.widgets._toast import Toast

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        await pilot.press("p", "x")  # two toasts, one of them two lines long
        app.notify("Something long enough to wrap " * 4, timeout=30)
        await wait_for(pilot, lambda: len(app.screen.query(Toast)) >= len(app._notifications))
        await pilot.pause()  # and laid out
        toasts = list(app.screen.query(Toast))
        assert toasts
        covered = app.screen.query_one(keep).region
        for toast in toasts:
            assert not toast.region.overlaps(covered), (toast.region, covered)


async def test_the_header_drops_parts_instead_of_its_right_end() -> None:
    from chunkscope.tui.widgets.header_line import HeaderLine

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        header = app.screen.query_one(HeaderLine)
        text = header.render()
        assert text.cell_len <= 100
        assert "…" not in text.plain
        assert SAMPLE.name in text.plain and "211 turns" in text.plain


async def test_z_zooms_the_merge_tab_at_100x30_with_score_and_sweep() -> None:
    from textual.widgets._footer import FooterKey

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        keys = [k for k in app.screen.query(FooterKey) if k.key == "z"]
        assert keys and keys[0].region.right <= 90, "the footer names z"
        app.screen.query_one("#merge-mode").focus()
        await pilot.press("z")
        await wait_for(pilot, lambda: app.screen.maximized is not None, 5)
        await pilot.pause()
        screen_region = app.screen.region
        for part in ("#merge-stats", "#sweep", "#merge-mode"):
            region = app.screen.query_one(part).region
            assert region.height > 0 and screen_region.contains_region(region), part
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None
        app.screen.query_one("#merged").focus()
        await pilot.press("z")
        await wait_for(pilot, lambda: app.screen.maximized is not None, 5)
        await pilot.pause()
        assert app.screen.query_one("#merged").region.height >= 25


async def test_compare_titles_keep_their_numbers_and_cards_wrap_their_one_line() -> None:
    from chunkscope.tui.widgets.chunk_list import ChunkList

    app = ChunkscopeApp(StartOptions(path=str(SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("right_square_bracket")  # the right column: a strategy
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        for panel in ("#before-col", "#merged"):
            widget = app.screen.query_one(panel)
            title = str(widget.border_title)
            assert "…" not in title and "differ" in title, title
        # A compacted card of one long line wraps it over its two preview rows.
        before = app.screen.query_one("#before", ChunkList)
        lines = before.rendered_lines()
        assert "You: The embedding cache in engine/embed_cache.py" in lines[1]
        assert lines[2].strip(" ▌▍") and "is a plain in-memory dict" in lines[2]


HOSTILE = ["markup_escapes", "invalid_utf8", "non_object_lines", "md_binaryish", "only_garbage"]


def _first_load_ended(app: ChunkscopeApp) -> bool:
    """The file given at start is open, or a notification says why it could not be."""
    return app._load_worker is None and (app.pipe is not None or bool(app._notifications))


async def _step_done(pilot: Any, app: ChunkscopeApp) -> None:
    """What the last key started has finished and been drawn (no fixed pause: as long as
    the machine needs, and no longer)."""
    await until(pilot, app.workers_idle)
    await pilot.pause()


async def _every_screen(pilot: Any, app: ChunkscopeApp) -> None:
    """Open each dialog and panel in turn and close it again; the app must keep running."""
    from textual.widgets import TabbedContent

    bench = app.workbench
    assert bench is not None
    for keys in (("question_mark",), ("b",), ("n",), ("e",), ("ctrl+s",), ("ctrl+o",)):
        notes = len(app._notifications)
        await pilot.press(*keys)
        # A dialog opens, or (no file to act on) a notification says why not.

        def answered(notes: int = notes) -> bool:
            return app.screen is not bench or len(app._notifications) > notes

        await wait_for(pilot, answered, 5)
        await pilot.pause()  # until the app is idle: the dialog composed and drawn
        screen = app.screen
        if isinstance(screen, OpenFileScreen):  # its sessions: hostile first messages
            box = screen.query_one("#sessions", OptionList)

            def listed(box: OptionList = box) -> bool:
                return "looking" not in str(box.get_option_at_index(0).prompt)

            await until(pilot, listed)
            await pilot.pause()
        assert app.is_running
        if app.screen is not bench:
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is bench, 5)
            await pilot.pause()
        assert app.screen is bench, (keys, app.screen)
    for keys in (("z",), ("z",), ("right_square_bracket",), ("left_square_bracket",), ("v",)):
        await pilot.press(*keys)
        await _step_done(pilot, app)
    for tab in ("tab-summary", "tab-recap", "tab-merge"):
        for box in bench.query(TabbedContent):
            box.active = tab
            await pilot.pause()
    await until(pilot, app.workers_idle)
    assert app.is_running


@pytest.mark.parametrize(
    ("case", "size"),
    [(c, SIZE) for c in ["markup_sample", *HOSTILE]]
    + [("markup_sample", (100, 30)), ("markup_escapes", (100, 30))],
)
async def test_every_screen_opens_on_hostile_files(
    corpus: dict[str, Path], case: str, size: tuple[int, int]
) -> None:
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from chunkscope.tui.widgets.header_line import HeaderLine

    path = MARKUP if case == "markup_sample" else corpus[case]
    folder = path.parent  # the picker lists this folder's sessions: hostile labels too
    app = ChunkscopeApp(StartOptions(path=str(path), folder=str(folder), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: _first_load_ended(app))
        await _step_done(pilot, app)
        if case == "markup_sample":
            lines = "\n".join(app.screen.query_one("#before", ChunkList).rendered_lines())
            assert "[bold red]alarm[/]" in lines
        await _every_screen(pilot, app)
        header = app.screen.query_one(HeaderLine).render().plain
        assert path.name in header or "no file open" in header


def test_the_docs_json_example_is_the_samples_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import re

    monkeypatch.chdir(ROOT)  # the example's "source" is relative to the repository
    readme = (ROOT / "docs" / "json.md").read_text()
    block = re.search(
        r"--format json`, its first chunk:\n\n(?:<!-- generated: chunk-json -->\n\n)?"
        r"```json\n(.*?)```",
        readme,
        re.S,
    )
    assert block, "the JSON contract's example"
    shown = json.loads(block.group(1))
    assert main(["chunk", "sample_logs/cache_refactor.jsonl", "--format", "json"]) == 0
    real = json.loads(capsys.readouterr().out)
    assert list(shown) == list(real)
    for key in ("source", "kind", "format", "turns", "tokenizer", "params"):
        assert shown[key] == real[key], key
    first, real_first = shown["chunks"][0], real["chunks"][0]
    assert {k: v for k, v in first.items() if k != "text"} == {
        k: v for k, v in real_first.items() if k != "text"
    }
    assert real_first["text"].startswith(first["text"].removesuffix("..."))
    assert "`--merge` is an\nunknown option" not in readme


async def test_tab_enter_in_the_picker_opens_the_newest_session() -> None:
    app = ChunkscopeApp(StartOptions(folder=str(SAMPLES), fixed_timings=True))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await picker_listed(pilot, app)
        await pilot.pause()
        await pilot.press("tab", "enter")
        await settled(pilot, app)
        assert app.pipe is not None and Path(app.pipe.path) == Path(screen.sessions[0].path)
