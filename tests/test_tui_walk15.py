"""Defects of the workbench found by a review walk (issue 35, walk 14): three palette
commands crashed the workbench (they set read-only properties of the app)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.screen import ModalScreen

from chunkscope.tui.commands import WorkbenchCommands
from tests.pilot import SIZE, make_app, palette_listed, settled, until, wait_for

pytestmark = pytest.mark.usefixtures("isolated")


async def test_the_recap_commands_of_the_palette_rescore_and_toggle_headings() -> None:
    """Walk 14, 1: `recap: score by salience` (or recency) and `recap: toggle time headings`
    ended the workbench with an internal error (AttributeError: property 'scorer' of
    'ChunkscopeApp' object has no setter): they change the state, and the recap follows."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.scorer == "recency" and not app.headings
        for query, check in (
            ("salience", lambda: app.scorer == "salience"),
            ("time headings", lambda: app.headings),
            ("recency", lambda: app.scorer == "recency"),
        ):
            await pilot.press("ctrl+p")
            await pilot.press(*query)
            await wait_for(pilot, lambda: palette_listed(app))
            await pilot.press("enter")
            await until(pilot, check)
            await settled(pilot, app)
            assert app.is_running and app.return_code is None
        selection = app.workbench.driver.selection
        assert selection is not None and selection.headings
        assert "\n## " in "\n" + selection.text  # each paragraph under its time range


async def test_every_palette_command_runs_without_ending_the_workbench() -> None:
    """The class of walk 14, 1: each chunkscope command of the palette, run in turn (a
    dialog it opens is closed), leaves the workbench running. The remote backends are
    left out (they would ask a network), and of the strategy and theme commands a few
    (Textual's ANSI themes ended the workbench: their colours are names, not values, and
    they are not offered)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        provider: Any = WorkbenchCommands(app.screen)
        commands = provider._commands()
        skip = ("embedder: openai", "summarizer: llm", "strategy:", "theme:")
        chosen = [c for c in commands if not c[0].startswith(skip)]
        chosen.append(next(c for c in commands if c[0].startswith("strategy:right")))
        themes = [c for c in commands if c[0].startswith("theme:")]
        assert not any("ansi" in name for name, _, _ in themes)
        tried = ("theme: nord", "theme: textual-light", "theme: chunkscope-dark")
        chosen += [c for c in themes if c[0] in tried]
        assert len(chosen) >= 30
        for name, run, _ in chosen:
            run()
            await pilot.pause()
            while isinstance(app.screen, ModalScreen):
                await pilot.press("escape")
                await pilot.pause()
            assert app.is_running and app.return_code is None, name
        await settled(pilot, app)  # what the commands started in the background ends well
        assert app.is_running and app.return_code is None


async def test_the_chunk_count_prompt_names_its_range_and_counts_in_the_singular() -> None:
    """Walk 14, 4 and 5: `n 1` said '1 chunks: ...', and `n 10000000` said 'at least 1'
    where the rule is 1 to 1,000,000; the recap's title said 'budget 1 tokens'."""
    from textual.widgets import Input, Static

    from chunkscope.tui.screens.prompt import PromptScreen
    from chunkscope.tui.widgets.recap_panel import budget_note

    assert budget_note(1) == " · budget 1 token (default 1000)"
    assert budget_note(300) == " · budget 300 tokens (default 1000)"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("n")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one("#prompt-input", Input).value = "10000000"
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)  # refused, the prompt stays
        error = str(app.screen.query_one("#prompt-error", Static).render())
        assert error == "A whole number of merged chunks, from 1 to 1,000,000.", error
        app.screen.query_one("#prompt-input", Input).value = "1"
        await pilot.press("enter")
        await until(pilot, lambda: any("chunk: " in str(n.message) for n in app._notifications))
        said = [str(n.message) for n in app._notifications if "chunk" in str(n.message)]
        assert any(m.startswith("1 chunk: ") for m in said), said
        assert not any(m.startswith("1 chunks") for m in said), said


async def test_a_cap_in_tokens_below_the_min_size_lowers_it_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Walk 14, 9: in tokens mode a size cap of 64 tokens (about 256 chars) left the topic
    min size at 500 chars without a word, where a cap in chars lowers it and warns; the
    command line was as silent. Both now read the cap at about 4 chars a token."""
    from chunkscope.engine.config.tuning import CHARS_PER_TOKEN
    from chunkscope.tui.cli import main
    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
    from chunkscope.tui.widgets.slider import Slider
    from tests.pilot import SAMPLE, recording_notifications

    assert main(["chunk", str(SAMPLE), "--embed", "--merge-max-tokens", "64"]) == 0
    err = capsys.readouterr().err
    assert "over the size cap of 64 tokens (about 256 chars)" in err, err
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        notes = recording_notifications(app)
        bench = app.workbench
        toggle = bench.query_one("#size-cap", ChoiceToggle)
        toggle.focus()
        await pilot.press("right")  # tokens
        slider = bench.query_one("#max-tokens", Slider)
        await until(pilot, lambda: bench.view.params.merge.max_chunk_tokens is not None)
        slider.focus()
        await pilot.press("home")
        least = bench.query_one("#topic-min-chars", Slider)
        cap = int(slider.value) * CHARS_PER_TOKEN
        await until(pilot, lambda: least.value <= cap)
        await settled(pilot, app)
        assert bench.view.params.topic.topic_min_chars <= cap
        assert any(f"is over the size cap of {int(slider.value)} tokens" in n for n in notes)


async def test_the_arrows_on_a_toggle_move_to_their_side_and_stop_at_the_end() -> None:
    """Walks 13 and 14 (suggestion): on a two-option toggle → on the right option went
    round to the left one (a walker changed the merge mode by accident three times on
    the way past). ←/→ now stop at the ends; space, enter and `v` still go round."""
    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        toggle = bench.query_one("#size-cap", ChoiceToggle)
        first, last = toggle.options[0], toggle.options[-1]
        toggle.focus()
        await pilot.press("left")
        assert toggle.value == first
        await pilot.press("right", "right")
        assert toggle.value == last
        await pilot.press("space")
        assert toggle.value == first  # round
        await settled(pilot, app)


async def test_a_strategy_setting_that_cannot_work_is_refused_before_a_run() -> None:
    """Walk 15, 4: in the markdown column `home` on max tokens went to 18 under the
    overlap of 50 tokens; the run failed with a toast and the column's title named
    max_tokens=18 over the previous run's cards. The value is refused before any run,
    said, and the slider shows the value the chunks were made with."""
    from chunkscope.tui.widgets.strategy_panel import StrategyPanel
    from tests.pilot import ROOT, recording_notifications

    app = make_app(ROOT / "sample_logs" / "shell_cookbook.md")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        notes = recording_notifications(app)
        app.set_column_strategy("right", "markdown")
        await settled(pilot, app)
        panel = app.workbench.query_one(StrategyPanel)
        slider = panel.slider_for("right", "max_tokens")
        assert slider is not None
        before = app.column_specs["right"].value("max_tokens")
        runs = app.strategy_runs["right"]
        slider.focus()
        await pilot.press("home")
        await until(pilot, lambda: any("stays at" in n for n in notes))
        await settled(pilot, app)
        assert any("must be below max_tokens" in n for n in notes), notes
        assert app.column_specs["right"].value("max_tokens") == before
        assert float(slider.value) == float(before)
        assert app.strategy_runs["right"] == runs  # nothing ran, nothing failed
        assert not any("markdown failed" in n for n in notes)
