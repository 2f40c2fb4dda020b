"""Walk 33's judgement calls and walk 34's findings: each test fails on the code
before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pilot import SAMPLE, make_app, settled, wait_for

ROOT = Path(__file__).resolve().parents[1]


async def test_the_sweep_follows_the_size_cap_into_the_unit_switched_to() -> None:
    """Walk 33: the size cap's unit switched from tokens to chars by the keyboard left the
    sweep on max tokens, its line saying `now ∞` (the cap in tokens no longer in force)
    until another slider was focused; it sweeps the cap in force, in chars."""
    from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    app = make_app(SAMPLE, max_chunk_chars=None, max_chunk_tokens=400)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        panel = app.screen.query_one(SweepPanel)
        app.follow_knob("max_chunk_tokens")

        def swept(knob: str) -> bool:
            r = panel.result
            return r is not None and r.knob == knob and not panel.busy

        assert await wait_for(pilot, lambda: swept("max_chunk_tokens"))
        assert panel.result is not None and panel.result.current == 400
        toggle = app.screen.query_one("#size-cap", ChoiceToggle)
        assert toggle.value == "tokens"
        toggle.focus()
        await pilot.press("left")
        assert await wait_for(pilot, lambda: swept("max_chunk_chars")), panel.result
        await settled(pilot, app)
        chars = app.state.tuning.merge.max_chunk_chars
        assert app.state.tuning.merge.max_chunk_tokens is None and chars is not None
        assert panel.result is not None and panel.result.current == chars
        assert "∞" not in str(panel.render()).split("now", 1)[1].split("\n")[0]


def test_a_chunk_of_commands_alone_is_said_to_have_none_to_tell() -> None:
    """Walk 33: a chunk of `/clear` and `/init` alone has no summary, and the reason
    given everywhere (the summary panel, the recap's note, the report) listed code, an
    HTML comment, a fence or a lead-in: none of what the chunk holds."""
    from chunkscope.engine.recap.core import NO_SUMMARY_WHY
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    summarizer = ExtractiveSummarizer()
    for text in ("You: /clear\n\nYou: /init", "You: /compact"):
        assert summarizer.summarize(text).summary == ""
        assert summarizer.floor(text) == 0
    assert "commands such as /clear" in NO_SUMMARY_WHY


async def test_a_burst_of_down_keys_scrolls_the_help_a_line_each() -> None:
    """Walk 34, F1: ten ↓ in one burst (a held key) scrolled the help one line: each
    aimed one line below where the scroll stood, which moves only after a refresh."""
    from textual.containers import VerticalScroll

    from tests.pilot import burst

    app = make_app(SAMPLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        await pilot.press("question_mark")
        scroll = app.screen.query_one(VerticalScroll)
        assert await wait_for(pilot, lambda: scroll.max_scroll_y > 20)
        burst(app, *["down"] * 10)
        assert await wait_for(pilot, lambda: scroll.scroll_y == 10), scroll.scroll_y
        burst(app, *["up"] * 4)
        assert await wait_for(pilot, lambda: scroll.scroll_y == 6), scroll.scroll_y


async def test_ctrl_o_in_the_picker_opens_no_second_one() -> None:
    """Walk 34, F4: ctrl+o in the open picker pushed a second picker over it (ctrl+o is
    a priority binding), so one escape led back to the first, not to the workbench."""
    from textual.widgets import Input

    from chunkscope.tui.screens.open_file import OpenFileScreen

    app = make_app(SAMPLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+o")
        assert await wait_for(pilot, lambda: isinstance(app.screen, OpenFileScreen))
        picker = app.screen
        await pilot.press("a", "b", "c", "ctrl+o", "ctrl+o")
        await pilot.pause()
        assert app.screen is picker
        assert sum(isinstance(s, OpenFileScreen) for s in app.screen_stack) == 1
        field = picker.query_one("#path", Input)
        assert field.value == "abc" and app.focused is field
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, OpenFileScreen))


async def test_an_unjudged_cut_line_keeps_its_numbers_on_a_narrow_column() -> None:
    """Walk 34, F9: at 100x30 without topic marks a structure cut read `┄ cut: structure
    · depth 7.72 ≥ 7.00 · sim…` (its similarity cropped), where a judged one drops the
    thresholds first and keeps every number; an unjudged one does the same now."""
    import re

    from chunkscope.tui.widgets.chunk_list import ChunkList, cut_text

    app = make_app(ROOT / "sample_logs" / "markup_injection.jsonl")
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        assert app.file_marks is None or not app.file_marks.starts
        merged = bench.query_one("#merged", ChunkList)
        assert merged._cuts is not None
        width = merged.scrollable_content_region.width
        narrow = [i for i, c in enumerate(merged._cuts) if 2 + len(cut_text(c)) > width]
        assert narrow, [cut_text(c) for c in merged._cuts]
        checked = 0
        for i in narrow:
            row = int(merged._offsets[i + 1] - merged._offsets[i]) - 1
            drawn = merged._render_card_line(i, row, width).text.rstrip()
            assert "…" not in drawn, drawn
            numbers = re.findall(r"(?:depth|sim) -?\d+\.\d+", cut_text(merged._cuts[i]))
            assert all(n in drawn for n in numbers), (drawn, numbers)
            checked += bool(numbers)
        assert checked  # a cut with numbers among them (the structure cut after chunk 1)


def _chat(path: Path, messages: list[tuple[str, str]]) -> Path:
    import json

    lines = [
        json.dumps({"role": r, "content": t, "timestamp": f"2026-02-13T10:{i:02d}:00"})
        for i, (r, t) in enumerate(messages)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


TASK = "Please fix the failing login test in auth/tests.py; it breaks on CI since yesterday."
FIXED = (
    "I looked at the login test and the token expiry was hard-coded; "
    "I changed it to use the clock fixture."
)


@pytest.mark.parametrize("fence", ["```\n\n```", "```python\n```"])
def test_a_request_of_an_empty_code_block_adds_no_later_line(
    tmp_path: Path, fence: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 34, F8: a user message of an empty code block gave the Task a `Later: `
    line with nothing after it."""
    from chunkscope.tui.cli import main

    log = _chat(
        tmp_path / "s.jsonl",
        [("user", TASK), ("assistant", FIXED), ("user", fence), ("assistant", "Done: it passes.")],
    )
    assert main(["recap", str(log)]) == 0
    out = capsys.readouterr().out
    assert "Later:" not in out, out
    assert TASK in out


@pytest.mark.parametrize("tail", ["🎉🎉🎉", "...", "✓", "→ → → ✓ ✓"])
def test_a_closing_message_without_words_is_not_glued_to_where_it_stopped(
    tmp_path: Path, tail: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 34, F8: after a command run, a last message of no words (`🎉🎉🎉`) was glued
    to the one before it in "Where it stopped" (`... clock fixture. 🎉🎉🎉`)."""
    from chunkscope.tui.cli import main

    messages = [("user", TASK), ("assistant", FIXED), ("user", "ok")]
    messages += [("assistant", "$ pytest auth/tests.py -q\n3 passed"), ("assistant", tail)]
    assert main(["recap", str(_chat(tmp_path / "s.jsonl", messages))]) == 0
    out = capsys.readouterr().out
    stopped = out.split("## Where it stopped\n", 1)[1].split("\n\n", 1)[0]
    assert stopped.strip() == FIXED, stopped


async def test_a_topic_compare_column_keeps_its_min_size_within_its_cap() -> None:
    """Walk 34, F10: a merge:topic compare column took a min size over its size cap (its
    cap at 256, min size 500 then 1400) without a word, where the merge panel lowers it
    to the cap and says so; the column does the same, and (walk 36, F2) gives the
    user's min size back as the cap rises, as the panel does."""
    from chunkscope.tui.widgets.slider import Slider
    from chunkscope.tui.widgets.strategy_panel import StrategyPanel
    from tests.pilot import recording_notifications

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        app.set_column_strategy("left", "merge:topic")
        await settled(pilot, app)
        shown = recording_notifications(app)
        app.set_column_param("left", "max_chunk_chars", 256)
        await pilot.pause()
        spec = app.column_specs["left"]
        assert spec is not None and spec.value("topic_min_chars") == 250, spec
        assert any("min size 500 is over the size cap of 256 chars" in m for m in shown), shown
        slider = app.screen.query_one(StrategyPanel).slider_for("left", "topic_min_chars")
        assert isinstance(slider, Slider) and slider.value == 250
        shown.clear()
        app.set_column_param("left", "topic_min_chars", 1400)
        await pilot.pause()
        spec = app.column_specs["left"]
        assert spec is not None and spec.value("topic_min_chars") == 250
        assert any("min size 1400 is over" in m for m in shown), shown
        # walk 36, F2: the cap rising again gives the user's value back, as the panel does
        shown.clear()
        app.set_column_param("left", "max_chunk_chars", 1024)
        await pilot.pause()
        assert app.column_specs["left"].value("topic_min_chars") == 1000
        assert any("as much of your 1400 as the size cap" in m for m in shown), shown
        app.set_column_param("left", "max_chunk_chars", 8192)
        await pilot.pause()
        assert app.column_specs["left"].value("topic_min_chars") == 1400
        assert any("allows min size 1400 again" in m for m in shown), shown
        assert slider.value == 1400
        # a min size moved by the user is theirs: a cap rising later gives nothing back
        app.set_column_param("left", "max_chunk_chars", 256)
        app.set_column_param("left", "topic_min_chars", 200)
        app.set_column_param("left", "max_chunk_chars", 8192)
        await pilot.pause()
        assert app.column_specs["left"].value("topic_min_chars") == 200


SIDE_FILES = [
    ["eval", "LOG", "--gold", "SIDE"],
    ["search", "LOG", "--queries", "SIDE"],
    ["recap", "LOG", "--scorer", "salience", "--memories", "SIDE"],
    ["hook", "install", "--settings", "SIDE", "--print"],
    ["chunk", "LOG", "CONFIG"],
]


@pytest.mark.parametrize("argv", SIDE_FILES, ids=[a[0] + "-" + a[-2] for a in SIDE_FILES])
def test_a_side_file_that_is_a_fifo_is_refused_not_waited_for(
    tmp_path: Path, argv: list[str]
) -> None:
    """Walk 35, F3: a FIFO given as a gold, query, memories or settings file, or as the
    config file, was opened and waited on for ever (a device, `/dev/zero`, read until
    memory ran out); each is refused in one line, as the main input is."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "side.json"
    os.mkfifo(fifo)
    config = tmp_path / "cfg"
    config.mkdir()
    env = {**os.environ, "CHUNKSCOPE_DATA_DIR": str(tmp_path / "data")}
    env["CHUNKSCOPE_CONFIG_DIR"] = str(config)
    if argv[-1] == "CONFIG":
        os.mkfifo(config / "config.toml")
        argv = argv[:-1]
    args = [str(SAMPLE) if a == "LOG" else str(fifo) if a == "SIDE" else a for a in argv]
    run = subprocess.run(
        [sys.executable, "-m", "chunkscope", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a regular file (a FIFO, socket or device)" in lines[0], lines


async def test_the_focused_recap_preview_keeps_its_rows_at_100x30() -> None:
    """Walk 35, F6: at 100x30 the recap preview had three rows, and focused, Textual's
    tall border took two of them: one line of the recap to read. Focused, it keeps its
    rows (its text tinted)."""
    from textual.widgets import TabbedContent, TextArea

    app = make_app(SAMPLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot, app)
        app.screen.query_one(TabbedContent).active = "tab-recap"
        await pilot.pause()
        preview = app.screen.query_one("#recap-preview", TextArea)
        assert await wait_for(pilot, lambda: preview.size.height >= 3)
        rows = preview.scrollable_content_region.height
        preview.focus()
        await pilot.pause()
        assert app.focused is preview
        assert preview.scrollable_content_region.height == rows >= 3


@pytest.mark.parametrize(
    "name",
    ["mini-swe-agent/pydicom-901.traj.json", "heldout/mini-swe-agent/django-11039.traj.json"],
)
def test_a_paragraph_before_a_messages_calls_ends_where_its_text_does(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 35, F1: in a JSON document, a message's paragraphs before its tool calls
    (shown as typed after its text) claimed the message's lines through its calls, so a
    chunk of prose ended on the line of a command that was in the next chunk."""
    import json

    from chunkscope.tui.cli import main

    path = ROOT / "tests" / "fixtures" / name
    file_lines = path.read_text(encoding="utf-8").splitlines()
    assert main(["chunk", str(path), "--format", "json"]) == 0
    chunks = json.loads(capsys.readouterr().out)["chunks"]
    claimed = 0
    for chunk in chunks:
        first, last = chunk["lines"]
        if "$ " in chunk["text"] or "tool_calls" in file_lines[first - 1]:
            continue
        calls = [n for n in range(first, last + 1) if '"arguments"' in file_lines[n - 1]]
        claimed += bool(calls)
        assert not calls, (chunk["lines"], chunk["text"][-80:], calls)
    assert claimed == 0 and len(chunks) > 10


@pytest.mark.parametrize("command", ["chunk", "recap"])
@pytest.mark.parametrize("where", ["folder", "no-folder"])
def test_a_snapshot_that_cannot_be_written_is_said_before_the_run(
    tmp_path: Path, command: str, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 36, F1: `--snapshot` naming a folder, or a file in a folder that does not
    exist, crashed after the run's output (`internal error, IsADirectoryError`, exit
    70); it is refused in one line, exit 2, before anything is printed."""
    from chunkscope.tui.cli import main

    target = tmp_path / "out" if where == "folder" else tmp_path / "nope" / "x.json"
    if where == "folder":
        target.mkdir()
    assert main([command, str(SAMPLE), "--snapshot", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert lines == [f"chunkscope: cannot write {target}: " + lines[0].rsplit(": ", 1)[1]]
    assert ("Is a directory" if where == "folder" else "No such file") in lines[0]
