"""Pilot tests of the workbench at 160x48: merge sliders, linked selection, recap pins,
writing files, profiles, themes, literal log text and the narrow layout."""

from __future__ import annotations

import json
import re
import time
from functools import partial
from pathlib import Path

import pytest
from textual.command import CommandList

from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.confirm import ConfirmScreen
from chunkscope.tui.screens.help import HelpScreen
from chunkscope.tui.screens.prompt import PromptScreen
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.merge_panel import MergePanel
from chunkscope.tui.widgets.similarity_strip import SimilarityStrip
from chunkscope.tui.widgets.slider import Slider
from chunkscope.tui.widgets.token_meter import TokenMeter
from tests.pilot import (
    ROOT,
    SAMPLE,
    SIZE,
    drawn_toasts,
    is_settled,
    make_app,
    palette_listed,
    wait_for,
)
from tests.pilot import settled as pilot_settled
from tests.pilot import until as pilot_until

INJECTION = ROOT / "sample_logs" / "markup_injection.jsonl"


pytestmark = pytest.mark.usefixtures("isolated")


# This module's waits give up after 15 s (the shared default is 20 s).
until = partial(pilot_until, timeout=15.0)
settled = partial(pilot_settled, timeout=15.0)


def merged_count(app: ChunkscopeApp) -> int:
    bench = app.workbench
    assert bench is not None and bench.view is not None
    return len(bench.view.result.chunks)


async def test_slider_step_changes_the_merged_chunk_count() -> None:
    app = make_app(mode="seed")  # the seed loop's threshold slider
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        before = merged_count(app)
        generation = app.run_generation
        app.workbench.query_one("#max-chars", Slider).focus()
        await pilot.press("left")  # 8192 -> 6144 chars: a step that moves the knob here
        await until(pilot, lambda: app.run_generation > generation)
        after = merged_count(app)
        assert app.merge_params.max_chunk_chars == 6144
        expected = Pipeline(
            SAMPLE,
            PipelineParams(collapse=True, merge=MergeParams(max_chunk_chars=6144, mode="seed")),
        ).merged()
        assert after == len(expected.chunks)
        assert after > before
        title = str(app.workbench.query_one("#merged", ChunkList).border_title)
        assert f"MERGED ({after})" in title


async def test_selecting_a_merged_chunk_highlights_its_parts() -> None:
    app = make_app(topic_chunk_tokens=0)  # chunks of whole turns
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        merged = bench.query_one("#merged", ChunkList)
        before = bench.query_one("#before", ChunkList)
        merged.focus()
        await pilot.press("down", "down")
        await pilot.pause()
        result = bench.view.result
        assert merged.selected == 2
        start, end = result.spans[2]
        assert before._related == (start, end)
        assert start <= before.selected < end
        assert bench.query_one(SimilarityStrip).selected_pair == start
        # The part is on screen and drawn with the merged chunk's band.
        lines = before.rendered_lines()
        assert any(line.lstrip("▌▍ ").startswith(f"▸{start:>4}") for line in lines)
        # And the other way round: a part on the left selects its merged chunk.
        before.focus()
        k = len(result.spans) - 1  # the last merged chunk (not the one selected above)
        assert k > 2
        target = result.spans[k][0]
        before.select(target, post=True)
        await pilot.pause()
        assert merged.selected == k
        assert before._related == tuple(result.spans[k])
        # The turns view: every turn of merged chunk k, and only those, is highlighted.
        generation = app.run_generation
        await pilot.press("v")  # compacted -> turns
        await until(pilot, lambda: app.run_generation > generation)
        view = bench.view
        # The turns the chunks are cut from: tool calls collapsed by default.
        assert view.left_kind == "turns" and len(view.left_items) == len(app.pipe.turns())
        assert len(view.left_items) < len(view.source.turns)
        a, b = before._related
        assert b > a and set(view.left_owner[a:b].tolist()) == {k}
        first, last = result.chunks[k].turn_indices
        # A turn split across two merged chunks carries the band of the one it starts in.
        assert first <= a <= first + 1 and b - 1 == last


async def test_pin_and_exclude_change_the_selection_and_the_meter() -> None:
    app = make_app(budget=500)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        meter = bench.query_one(TokenMeter)
        selection = app.selection
        dropped = [c for c in selection.candidates if not c.selected and c.tokens < 250]
        kept = [c for c in selection.candidates if c.selected]
        assert dropped and kept
        used_before = meter.used
        assert used_before == selection.used_tokens

        bench.select_merged(dropped[0].index)
        old = app.selection
        await pilot.press("p")
        await until(pilot, lambda: app.selection is not old)
        pinned = {c.index: c for c in app.selection.candidates}[dropped[0].index]
        assert pinned.selected and pinned.reason == "pinned"
        assert meter.used == app.selection.used_tokens != used_before

        victim = next(c.index for c in app.selection.candidates if c.selected and not c.pinned)
        bench.select_merged(victim)
        old = app.selection
        await pilot.press("x")
        await until(pilot, lambda: app.selection is not old)
        excluded = {c.index: c for c in app.selection.candidates}[victim]
        assert not excluded.selected and excluded.reason == "excluded"
        assert meter.used == app.selection.used_tokens
        assert excluded.summary.text not in app.selection.text


async def test_b_types_an_exact_budget_that_the_selection_uses() -> None:
    from textual.widgets import Input, Static

    app = make_app(budget=300)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        slider = bench.query_one("#budget", Slider)
        await pilot.press("b")
        assert isinstance(app.screen, PromptScreen)
        field = app.screen.query_one("#prompt-input", Input)
        assert field.value == "300"
        field.value = "12 tokens"  # not a number: the prompt says so and stays
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)
        assert "whole number" in str(app.screen.query_one("#prompt-error", Static).render())
        field.value = "0"  # below the budget knob's minimum (9000 is taken: walk6 #23)
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)
        field.value = "1,234"
        old = app.selection
        await pilot.press("enter")
        await until(pilot, lambda: app.selection is not old and app.workers_idle())
        assert app.screen is bench
        assert app.budget == 1234 and app.selection.budget == 1234
        assert slider.value == 1234 and slider.format_value() == "1234"  # not snapped to 1250
        assert bench.query_one(TokenMeter).used == app.selection.used_tokens <= 1234
        await pilot.press("b")
        await pilot.press("escape")  # cancelled: nothing changes
        assert app.screen is bench and app.budget == 1234


async def test_write_creates_the_file_and_asks_before_overwriting(isolated: Path) -> None:
    app = make_app()
    target = isolated / "_recap.md"
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        expected = app.selection.text
        await pilot.press("w")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")
        await until(pilot, target.exists)
        assert target.read_text(encoding="utf-8") == expected

        target.write_text("older recap\n", encoding="utf-8")
        await pilot.press("w")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "older recap\n"

        await pilot.press("w")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: target.read_text(encoding="utf-8") == expected)


async def test_the_overwrite_dialog_moves_between_its_buttons_with_the_arrows(
    isolated: Path,
) -> None:
    """← and → move between "No" and "Overwrite" (not only Tab); enter presses the
    focused one, and the arrows stop at the ends."""
    from textual.widgets import Button

    target = isolated / "_recap.md"
    target.write_text("older recap\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        expected = app.selection.text
        await pilot.press("w", "enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        dialog = app.screen

        def focused() -> str | None:
            return dialog.focused.id if isinstance(dialog.focused, Button) else None

        assert focused() == "no"
        await pilot.press("right")
        assert focused() == "yes"
        await pilot.press("right")  # the last button: stays
        assert focused() == "yes"
        await pilot.press("left")
        assert focused() == "no"
        await pilot.press("left")
        assert focused() == "no"
        await pilot.press("right", "enter")
        await until(pilot, lambda: target.read_text(encoding="utf-8") == expected)
        assert app.screen is app.workbench


async def test_a_profile_is_saved_and_loaded(isolated: Path) -> None:
    from chunkscope.engine.config.settings import get_profile

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        bench.query_one("#max-chars", Slider).focus()
        await pilot.press("left")  # two of the grid's steps: the fewest that move the knob here
        await until(pilot, lambda: app.merge_params.max_chunk_chars == 6144)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"tight", "enter")
        await until(pilot, lambda: (isolated / "config" / "config.toml").exists())
        profile = get_profile("tight")
        assert profile.max_chunk_chars == 6144 and profile.min_chars == 80

        bench.query_one("#max-chars", Slider).focus()
        await pilot.press("right", "right")  # half a doubling each (on this track)
        await until(pilot, lambda: app.merge_params.max_chunk_chars == 12288)
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("enter")  # the only profile
        await until(pilot, lambda: app.merge_params.max_chunk_chars == 6144)
        assert bench.query_one("#max-chars", Slider).value == 6144
        await until(pilot, lambda: bench.view.params.merge.max_chunk_chars == 6144)


async def test_theme_switch_is_applied_and_remembered() -> None:
    from chunkscope.engine.config.settings import load_settings
    from chunkscope.themes import band_colors

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.theme == "chunkscope-dark"
        merged = app.workbench.query_one("#merged", ChunkList)
        dark_band = merged._band_styles[0].color
        await pilot.press("t")
        await pilot.pause()
        assert app.theme == "chunkscope-light"
        light = band_colors(app.current_theme)[0]
        assert merged._band_styles[0].color != dark_band
        assert merged._band_styles[0].color.triplet.hex == light.lower()
        await until(pilot, lambda: load_settings().theme == "chunkscope-light")
    # The next start uses it.
    app2 = make_app()
    async with app2.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app2.theme == "chunkscope-light"


HOSTILE = [
    {
        "timestamp": "2026-02-13T10:00:00",
        "role": "user",
        "content": "Show [bold red]alarm[/] and [link=https://example.com]x[/link] please",
    },
    {
        "timestamp": "2026-02-13T10:00:05",
        "role": "assistant",
        "content": (
            "Colour \x1b[31mred\x1b[0m and a title \x1b]0;pwned\x07 and [@click=app.quit]q[/]"
        ),
    },
    {"timestamp": "2026-02-13T10:00:09", "role": "user", "content": "[/] alone, then [bold"},
]


async def test_log_text_is_rendered_literally(isolated: Path) -> None:
    path = isolated / "hostile.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in HOSTILE) + "\n", encoding="utf-8")
    app = make_app(path, min_chars=0, mode="seed")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        before = bench.query_one("#before", ChunkList)
        preview = "\n".join(before.rendered_lines())
        assert "You: Show [bold red]alarm[/] and [link=" in preview
        before.focus()
        await pilot.press("enter")  # expand: the full text, literally
        rendered = "\n".join(before.rendered_lines())
        assert "\x1b" not in rendered and "\x07" not in rendered
        text = "".join(before._expanded[0])  # the wrapped lines the card draws
        assert all(line[4:].rstrip() in rendered for line in before._expanded[0][:5])
        assert "[link=https://example.com]x[/link]" in text
        assert "Colour red" in text and "[@click=app.quit]q[/]" in text
        assert "[/] alone, then [bold" in text
        assert "\x1b" not in text and "\x07" not in text and "pwned" not in text
        assert app.is_running


@pytest.mark.skipif(not INJECTION.exists(), reason="sample log not generated")
async def test_markup_injection_sample_log() -> None:
    app = make_app(INJECTION)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        before = app.workbench.query_one("#before", ChunkList)
        text = "\n".join(before.rendered_lines())
        assert "[bold red]alarm[/]" in text
        assert "\x1b" not in text
        summary = str(app.workbench.query_one("#summary-body").render())
        assert "[bold red]alarm[/]" in summary


async def test_parse_problems_are_a_notification(isolated: Path) -> None:
    path = isolated / "broken.jsonl"
    lines = [json.dumps(m) for m in HOSTILE]
    lines.insert(1, "{not json")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        messages = [n.message for n in app._notifications]
        assert any("Skipped 1 malformed line" in m and "line 2" in m for m in messages)
        assert "1 line skipped" in str(app.workbench.query_one("#header").render())


async def test_narrow_layout_folds_the_panels_into_tabs() -> None:
    from textual.widgets import TabbedContent

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        tabs = bench.query_one(TabbedContent)
        assert bench.query_one(MergePanel) in tabs.query(MergePanel)
        assert bench.query_one("#merged", ChunkList).size.height >= 8
        await pilot.resize_terminal(160, 48)
        await until(pilot, lambda: not bench.query(TabbedContent))
        await pilot.pause()
        assert merged_count(app) == len(bench.query_one("#merged", ChunkList).chunks)


async def test_help_screen_and_summarize_all() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        # "summarize all": every summary is done already, and the notification says so.
        await pilot.press("s")
        n = merged_count(app)
        await until(
            pilot,
            lambda: any(f"All {n} summaries are done" in m.message for m in app._notifications),
        )
        bench = app.workbench
        body = str(bench.query_one("#summary-body").render())
        summary = app.summaries[bench.view.result.chunks[bench.selected].text]
        assert summary.abstract[:20] in body


def test_cli_rejects_a_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    from chunkscope.tui.cli import main

    assert main(["tui", "no-such-file.jsonl"]) == 2
    assert "no such file" in capsys.readouterr().err


async def test_backend_failure_is_a_notification_and_the_state_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunkscope.engine.embed.base import EmbeddingError

    real = Pipeline.embeddings

    def embeddings(self, progress=None):  # type: ignore[no-untyped-def]
        if self.params.embedder.name == "openai":
            raise EmbeddingError("http://127.0.0.1:9/v1", "cannot connect after 3 retries")
        return real(self, progress)

    monkeypatch.setattr(Pipeline, "embeddings", embeddings)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        app.use_embedder("openai")
        await until(pilot, lambda: any(n.severity == "error" for n in app._notifications))
        error = next(n for n in app._notifications if n.severity == "error")
        assert "cannot connect" in error.message
        assert "embedder: lexical (offline)" in error.message
        assert app.workbench.view is view and app.embedder_name == "lexical"
        # The way forward works: the offline embedder opens the file again.
        generation = app.run_generation
        app.use_embedder("lexical")
        await until(pilot, lambda: app.run_generation > generation)
        assert merged_count(app) == len(view.result.chunks)


async def test_escape_cancels_a_long_load(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkscope.tui.screens.loading import LoadingScreen

    real = Pipeline.embeddings
    slow_path = isolated / "slow.jsonl"
    slow_path.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")

    def embeddings(self, progress=None):  # type: ignore[no-untyped-def]
        if self.path == str(slow_path):
            for done in range(2000):  # a slow backend that reports progress (stops on cancel)
                time.sleep(0.02)
                if progress is not None:
                    progress(done, 2000)
        return real(self, progress)

    monkeypatch.setattr(Pipeline, "embeddings", embeddings)
    app = make_app(loading_dialog_delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        app.open_path(str(slow_path))
        # Generous: on a loaded CI machine the worker thread and the dialog's timer can
        # both start late; the slow load itself lasts 40 s unless cancelled.
        await until(
            pilot,
            lambda: isinstance(app.screen, LoadingScreen) and app.screen.is_mounted,
            timeout=35,
        )
        await pilot.pause()  # drawn, its keys bound
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, LoadingScreen))
        await until(pilot, app.workers_idle, timeout=10)
        assert app.workbench.view is view
        assert app.pipe.path == str(SAMPLE)
        assert any("Load cancelled" in n.message for n in app._notifications)


async def test_escape_stops_a_long_parse_without_reading_the_rest(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelling while the file is still being parsed stops the parsing thread at its
    next progress report (every 2,048 lines), not after the whole file."""
    import chunkscope.engine.read.source as parse
    from chunkscope.tui.screens.loading import LoadingScreen

    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    big = isolated / "long.jsonl"
    big.write_text("".join(lines * (6_000 // len(lines) + 1)), encoding="utf-8")
    real = parse.decode_message
    decoded: list[int] = []
    slow = {"on": False}

    def decode(line: str):  # type: ignore[no-untyped-def]
        if slow["on"]:  # about 3 s for the whole file
            decoded.append(1)
            time.sleep(0.0005)
        return real(line)

    monkeypatch.setattr(parse, "decode_message", decode)
    app = make_app(loading_dialog_delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        slow["on"] = True
        app.open_path(str(big))
        await until(pilot, lambda: isinstance(app.screen, LoadingScreen) and len(decoded) > 50)
        await pilot.press("escape")
        at_escape = len(decoded)
        # A cancelled thread worker is marked cancelled at once; the thread itself
        # stops when it next looks. Wait until it stops decoding lines.
        seen = -1
        while seen != len(decoded):
            seen = len(decoded)
            await pilot.pause(0.5)
        slow["on"] = False
        assert seen <= at_escape + parse.PROGRESS_LINES + 10 and seen < 6_000
        assert app.workbench.view is view and app.pipe.path == str(SAMPLE)


async def test_a_big_file_shows_its_dialog_before_parsing_starts(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drawing the dialog while the parse thread holds the GIL took up to 0.5 s: a big
    file gets its dialog at once, and the load waits until it has been drawn."""
    import chunkscope.tui.workbench.loader as driver
    from chunkscope.tui.screens.loading import LoadingScreen

    big = isolated / "big.jsonl"
    big.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(driver, "BIG_FILE", big.stat().st_size)  # this one counts as big
    real = Pipeline.source
    seen: list[bool] = []

    def source(self, progress=None):  # type: ignore[no-untyped-def]
        if self.path == str(big):
            seen.append(isinstance(app.screen, LoadingScreen) and app.screen.is_mounted)
        return real(self, progress)

    monkeypatch.setattr(Pipeline, "source", source)
    app = make_app(loading_dialog_delay=30.0)  # a small file would wait 30 s for one
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        app.open_path(str(big))
        await until(pilot, lambda: app.pipe.path == str(big))
        assert seen and seen[0] is True
        assert not isinstance(app.screen, LoadingScreen)  # closed when the load ended


async def test_command_palette_runs_namespaced_commands() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        chunk = app.workbench.view.result.chunks[0].text
        await pilot.press("ctrl+p")
        await pilot.press(*"pin the")
        await wait_for(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: chunk in app.pinned)
        # The key hints are text, not markup: typed or listed, each line ends in its key.
        # (Short queries: the palette searches again at every key, ~0.2 s each.)
        for query, hint in (("unmark", "[m]"), ("budget", "[b]"), ("", "[T]")):
            await pilot.press("ctrl+p")
            await pilot.press(*query)
            await wait_for(pilot, lambda: palette_listed(app))
            commands = app.screen.query_one(CommandList)
            shown = [commands.get_option_at_index(i).prompt for i in range(commands.option_count)]
            assert any(str(p).split("\n")[0].endswith(hint) for p in shown), (hint, shown[:3])
            await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.press(*"contrast")
        await wait_for(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: app.theme == "chunkscope-contrast")


async def test_export_merged_chunks_and_copy(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        await pilot.press("e")
        await pilot.press("enter")  # merged chunks as JSON
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))  # (under load: later)
        await pilot.press("enter")  # ./cache_refactor.merged.json
        target = isolated / "cache_refactor.merged.json"
        await until(pilot, target.exists)
        doc = json.loads(target.read_text(encoding="utf-8"))
        assert len(doc["merged"]) == len(view.result.chunks)
        assert doc["merged"][0]["parts"] == list(range(*view.result.spans[0]))
        assert doc["merged"][0]["summary"]["abstract"]
        await pilot.press("c")
        assert copied == [view.result.chunks[app.workbench.selected].text]


# ---------------------------------------------------------------- the recap path


def _cli_recap(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    from chunkscope.tui.cli import main

    capsys.readouterr()
    assert main(["recap", *args]) == 0  # both start on the topic segmenter
    return capsys.readouterr().out


async def test_recap_preview_is_what_chunkscope_recap_writes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from textual.widgets import TextArea

    app = make_app(budget=400)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.pipe.params.collapse  # the recap path by default
        assert "tool calls: collapsed" in app.header_info().state
        preview = app.workbench.query_one("#recap-preview", TextArea).text
    expected = _cli_recap(capsys, str(SAMPLE), "--budget", "400")
    assert preview.strip()
    assert preview == expected
    # Raw turns give another recap (tool output lines as candidates): the test can fail.
    raw = make_app(budget=400, collapse=False)
    async with raw.run_test(size=SIZE) as pilot:
        await settled(pilot, raw)
        assert "tool calls: raw" in raw.header_info().state
        raw_preview = raw.workbench.query_one("#recap-preview", TextArea).text
    assert raw_preview != expected


async def test_T_toggles_tool_call_collapsing() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        turns_collapsed = len(app.pipe.turns())
        await pilot.press("T")
        await until(pilot, lambda: not app.pipe.params.collapse)
        await settled(pilot, app)
        assert len(app.pipe.turns()) == len(Pipeline(SAMPLE, PipelineParams()).turns())
        assert len(app.pipe.turns()) != turns_collapsed
        assert "tool calls: raw" in str(app.workbench.query_one("#header").render())
        await pilot.press("T")
        await until(pilot, lambda: app.pipe.params.collapse)
        await settled(pilot, app)
        assert "tool calls: collapsed" in str(app.workbench.query_one("#header").render())


async def test_w_writes_a_sectioned_recap_in_raw_tool_call_mode_with_the_logs_headings_as_text(
    isolated: Path,
) -> None:
    """T (raw tool calls) then w: the written recap has its sections, as the collapsed
    mode's and `chunkscope recap`'s, and the log's `## Unreleased` line (a chunk summary's
    opening) is a line of text, not a heading of the recap. (About 5 s: the file runs
    twice, collapsed then raw, each with its summaries.)"""
    from tests.test_recap import markdown_headings, recap_headings

    target = isolated / "_recap.md"
    app = make_app(ROOT / "sample_logs" / "docs_cleanup.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("T")
        await until(pilot, lambda: not app.pipe.params.collapse)
        await settled(pilot, app)
        await pilot.press("w")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")
        await until(pilot, target.exists)
    text = target.read_text(encoding="utf-8")
    headings = markdown_headings(text)
    assert "Task" in headings and "What happened" in headings
    assert set(headings) <= recap_headings(), headings
    # a summary that opens on the log's changelog heading keeps it as text
    assert re.search(r"^\\#+ (Unreleased|Changelog)\.?$", text, re.M), text


def test_no_collapse_flag() -> None:
    from chunkscope.tui.cli.common import Parser, collapse_of
    from chunkscope.tui.cli.workbench import add_tui_parser

    parser = Parser()
    add_tui_parser(parser.add_subparsers())
    assert collapse_of(parser.parse_args(["tui", "x.jsonl"])) is True
    assert collapse_of(parser.parse_args(["tui", "x.jsonl", "--no-collapse"])) is False
    assert collapse_of(parser.parse_args(["tui", "x.jsonl", "--collapse"])) is True


async def test_the_merge_toggle_switches_the_segmenter_and_its_controls() -> None:
    """The workbench starts on the topic segmenter (the default of every command); the
    merge toggle switches to the seed loop and back, each with its own sliders, and a
    topic slider re-runs the topic segmentation."""
    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle

    app = make_app(topic_chunk_tokens=0)  # a chunk per topic: the depth moves the count
    async with app.run_test(size=SIZE) as pilot:
        await pilot_settled(pilot, app)
        bench = app.workbench
        assert app.pipe.params.merge.mode == "topic"
        assert bench.view.result.params.mode == "topic"
        depth = bench.query_one("#topic-depth", Slider)
        always = bench.query_one("#always-merge", Slider)
        assert depth.display and not always.display
        stats = str(bench.query_one("#merge-stats").render())
        assert "cuts:" in stats and "units" in stats
        topic_count = len(bench.view.result.chunks)
        expected = Pipeline(SAMPLE, app.pipe.params).merged()
        assert topic_count == len(expected.chunks)

        toggle = bench.query_one("#merge-mode", ChoiceToggle)
        toggle.action_step(-1)  # topic -> seed
        await pilot_until(pilot, lambda: bench.view.result.params.mode == "seed")
        await pilot_settled(pilot, app)
        assert app.state.tuning.merge.mode == "seed"
        assert always.display and not depth.display
        assert "passes" in str(bench.query_one("#merge-stats").render())
        seed = Pipeline(SAMPLE, app.pipe.params).merged()
        assert len(bench.view.result.chunks) == len(seed.chunks)

        toggle.action_step(1)  # back to topic; the shallowest threshold cuts most
        await pilot_until(pilot, lambda: bench.view.result.params.mode == "topic")
        depth.set_value(depth.minimum)
        await pilot_until(pilot, lambda: app.state.tuning.topic.topic_depth != 5.0)
        await pilot_settled(pilot, app)
        assert len(bench.view.result.chunks) > topic_count
        assert len(bench.view.result.chunks) == len(
            Pipeline(SAMPLE, app.pipe.params).merged().chunks
        )


async def test_the_max_size_slider_caps_topic_chunks(tmp_path: Path) -> None:
    """In topic mode the size cap's slider shows, starts at the default (not ∞), and a
    step splits the topics into more merged chunks that fit it, without moving a topic;
    a unit over the cap is marked on its card."""
    from chunkscope.engine.segment.merge import MergeParams as MP

    doc = tmp_path / "guide.md"
    sections = [
        f"## Part {i}\n\n"
        + "\n\n".join(f"Part {i} paragraph {p}. " + "text " * 80 for p in range(6))
        for i in range(12)
    ]
    doc.write_text("# Guide\n\n" + "\n\n".join(sections) + "\n\n" + "word " * 1400 + "\n")
    app = make_app(doc, topic_chunk_tokens=0)  # the cap alone splits the topics
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        assert app.merge_params.mode == "topic"
        slider = bench.query_one("#max-chars", Slider)
        assert slider.display and slider.value == MP().max_chunk_chars == 8192
        before = bench.view.result
        assert all(c.chars <= 8192 for c in before.chunks) and len(before.chunks) >= 3
        generation = app.run_generation
        slider.focus()
        await pilot.press("left", "left")  # 8192 -> 6144 -> 4096 chars
        await until(pilot, lambda: app.run_generation > generation and is_settled(app))
        after = bench.view.result
        assert bench.view.params.merge.max_chunk_chars == 4096
        assert len(after.chunks) > len(before.chunks)
        assert after.topic_bounds is not None and before.topic_bounds is not None
        assert after.topic_bounds.tolist() == before.topic_bounds.tolist()
        for chunk, over in zip(after.chunks, after.exceeds_limit, strict=True):
            assert chunk.chars <= 4096 or (over and len(chunk.turns) == 1)
        assert sum(after.exceeds_limit) == 1  # the 7k-char paragraph, kept whole
        # the sweep follows the size cap in topic mode too: merged chunks per cap
        from chunkscope.tui.widgets.sweep_panel import SweepPanel

        panel = bench.query_one(SweepPanel)
        await until(
            pilot,
            lambda: (
                panel.result is not None
                and panel.result.knob == "max_chunk_chars"
                and not panel.busy
            ),
        )
        swept = panel.result
        assert swept is not None
        assert swept.chunks[swept.values.index(4096)] == len(after.chunks)
        merged = bench.query_one("#merged", ChunkList)
        merged.select(after.exceeds_limit.index(True))
        await pilot.pause()
        text = "\n".join(merged.rendered_lines())
        assert "over cap!" in text and not re.search(r"\d\d:\d\d:\d\d", text)


@pytest.mark.parametrize("size", [SIZE, (100, 30)])
async def test_a_toast_shown_under_a_dialog_is_drawn_once_and_off_the_recap_preview(
    size: tuple[int, int],
) -> None:
    """`t` then `?` within the toast's life: the help screen shows the theme's toast
    once (the workbench's own copy, behind the dialog, is not drawn too), where the
    workbench puts it: never over the recap preview."""
    from chunkscope.tui.screens.help import HelpScreen

    app = make_app()
    # the toast must outlive the restyle and the dialog's start on a loaded machine
    app.NOTIFICATION_TIMEOUT = 60
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        await pilot.press("t")
        message = f"Theme: {app.theme}"
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await until(pilot, lambda: bool(app.screen.query("Toast")))
        await pilot.pause()
        drawn = drawn_toasts(app)
        assert len(drawn) == 1, drawn
        assert message in str(drawn[0].render())
        preview = app.workbench.query_one("#recap-preview").region
        assert not drawn[0].region.overlaps(preview), (drawn[0].region, preview)
