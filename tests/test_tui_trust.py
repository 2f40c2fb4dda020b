"""The workbench details a user checks (issue 35), on the real app at 100x30 and 160x48:
the footer keeps `? Help` and `q Quit`; a burst typed while the tab strip has the
focus reaches the budget prompt; the header and the turns column name the same
count; a judged cut keeps its numbers in a narrow column; both columns on a strategy
hide the merge's controls; the picker's rows stay on one line and typing goes to its
path field; the summary is labelled and says its abstract once; a minimum segment
over the size cap is lowered with a warning and the run's numbers are shown whole;
unfocused borders show in the light theme in 256 colours; an emoji line keeps a
card's border; auto-tune says when no setting finds the marks.
"""

from __future__ import annotations

import itertools
import json
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem

from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import (
    SAMPLE,
    SIZE,
    auto_tune,
    burst,
    picker_listed,
    recording_notifications,
    settled,
    until,
    wait_for,
)
from tests.pilot import make_app as _make_app
from tests.test_tui_tune import MARKS

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


def make_app(*args: Any, **kwargs: Any) -> ChunkscopeApp:
    """The app, recording every notification it shows (a toast expires after a few
    seconds, sooner than a loaded machine gets to the check)."""
    app = _make_app(*args, **kwargs)
    app._shown_notes = recording_notifications(app)  # type: ignore[attr-defined]
    return app


def _notes(app: ChunkscopeApp) -> list[str]:
    return list(app._shown_notes)  # type: ignore[attr-defined]


async def test_at_100x30_footer_burst_turn_counts_and_judged_cuts() -> None:
    from textual.widgets import Tabs
    from textual.widgets._footer import FooterKey

    from chunkscope.tui.widgets.header_line import HeaderLine

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None

        # The footer: help and quit on screen (they were past its right end).
        keys = {k.key: k for k in bench.query(FooterKey)}
        for key in ("question_mark", "q"):
            region = keys[key].region
            assert region.width and region.right <= NARROW[0] - 12, (key, region)

        # The header and the turns column say the same count, named alike.
        header = bench.query_one(HeaderLine).render().plain
        assert "211 turns · 136 after collapse" in header, header
        await pilot.press("v")  # the left column: turns
        await until(pilot, lambda: bench.view is not None and bench.view.left_kind == "turns")
        await pilot.pause()
        title = str(bench.query_one("#before-col").border_title)
        assert "turns (136 after collapse)" in title, title

        # A burst typed while the tab strip has the focus: the value is kept.
        bench.query_one(Tabs).focus()
        await pilot.pause()
        burst(app, "b", *["backspace"] * 5, *"1500", "enter")
        await wait_for(pilot, lambda: app.budget == 1500, 5)
        assert app.budget == 1500

        # A judged cut in a narrow column keeps its numbers (the words are cropped).
        merged = bench.query_one("#merged", ChunkList)
        assert app.file_marks is not None
        app.set_file_marks(replace(app.file_marks, starts=MARKS))
        await until(pilot, app.workers_idle)
        await pilot.pause()
        judged: list[str] = []
        for index, verdict in enumerate(merged._verdicts):  # card by card, on screen
            if verdict not in ("hit", "spurious"):
                continue
            merged.select(index)
            await pilot.pause()
            judged += [
                s
                for s in merged.rendered_lines()
                if "┄ " in s and s.rstrip().endswith(("· ✓", "· ✗"))
            ]
            if len(judged) >= 3:
                break
        assert judged, "no judged cut drawn"
        assert all("sim 0." in line for line in judged), judged


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["100x30", "160x48"])
async def test_the_footer_fits_its_keys_on_its_first_drawing_and_under_a_dialog(
    size: tuple[int, int],
) -> None:
    from textual.widgets._footer import FooterKey

    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.screens.confirm import ConfirmScreen
    from chunkscope.tui.screens.workbench import FittingFooter

    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(FittingFooter)

        def shown_right_ends() -> tuple[list[int], int]:
            keys = list(footer.query(FooterKey))
            palette = next(k for k in keys if k.has_class("-command-palette"))
            shown = [k for k in keys if k is not palette and k.display]
            return [k.region.right for k in shown], palette.region.x

        # The first drawing: whole keys, help and quit first.
        rights, palette_x = shown_right_ends()
        assert rights and max(rights) <= palette_x, (rights, palette_x)
        keys = [k.key for k in footer.query(FooterKey) if k.display]
        assert keys[:2] == ["question_mark", "q"], keys

        # Under a dialog, after one pause, no label runs under the palette key.
        app.push_screen(ConfirmScreen("./_recap.md exists. Overwrite it?", yes="Overwrite"))
        await pilot.pause()
        rights, palette_x = shown_right_ends()
        assert rights and max(rights) <= palette_x, (rights, palette_x)


async def test_compare_shows_the_merge_controls_only_beside_the_merged_run() -> None:
    from chunkscope.tui.widgets.merge_panel import MergePanel
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        panel, sweep = bench.query_one(MergePanel), bench.query_one(SweepPanel)
        controls = bench.query_one("#controls")
        await pilot.press("left_square_bracket")  # the left column: a strategy
        await until(pilot, lambda: app.column_result("left") is not None)
        assert panel.display and sweep.display  # the right column is the merged run
        await pilot.press("right_square_bracket")  # and the right one
        await until(pilot, lambda: app.column_result("right") is not None)
        await pilot.pause()
        assert not panel.display and not sweep.display
        assert str(controls.border_title) == "COLUMNS"
        for _ in range(12):  # the right column back to the merged run
            if app.column_specs["right"] is None:
                break
            await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.column_specs["right"] is None and panel.display
        assert str(controls.border_title) == "MERGE"


@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["100x30", "160x48"])
async def test_compare_draws_each_columns_own_similarity_strip(size: tuple[int, int]) -> None:
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        main = bench.query_one("#strip", SimilarityStrip)
        left = bench.query_one("#strip-left", SimilarityStrip)
        right = bench.query_one("#strip-right", SimilarityStrip)
        pair = bench.query_one("#column-strips")
        assert main.display and not pair.display
        merged_cuts = list(main.cuts)

        # A strategy on the right: its own cuts, and no similarities it has not got.
        app.set_column_strategy("right", "sliding-window")
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        assert not main.display and pair.display
        res = app.column_result("right")
        assert res is not None
        assert len(right.sims) == 0 and right.note is not None
        # said in short at 100 wide (walk 6, 16: a shorter form, not a cut one)
        assert "no scores" in right.note and "no scores" in str(right.border_title).replace(
            "no similarity scores", "no scores"
        )
        assert right.cuts and right.cuts != merged_cuts
        assert {r for _, r in right.cuts} == {r for r in res.result.cuts if r}
        assert len(right.cuts) <= len(res.chunks) - 1
        drawn = "\n".join(right.rendered_lines())
        assert "no scores" in drawn, drawn
        assert "sliding-window" in str(right.border_title)
        # the items before the merge: the units' similarities, no cuts (not the merge's)
        assert left.cuts == [] and len(left.sims) == len(bench.view.sims)

        # The seed's merge loop on the right: its own run, cuts and similarities.
        app.set_column_strategy("right", "merge:seed")
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        res = app.column_result("right")
        assert res is not None
        run = res.result.info["merge_run"]
        assert [r for _, r in right.cuts] == [c.reason for c in run.cuts]
        assert len(right.sims) == len(run.owners) - 1 and right.note is None
        assert "merge:seed" in str(right.border_title)

        # Back to the merged run: the one strip, as before.
        app.set_column_strategy("right", None)
        await pilot.pause()
        assert main.display and not pair.display and list(main.cuts) == merged_cuts


async def test_the_strip_draws_chunk_size_cuts() -> None:
    from chunkscope.tui.widgets.similarity_strip import CUT_GLYPHS, SimilarityStrip

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        reasons = [r for _, r in bench.view.cut_pairs]
        assert reasons.count("chunk_size") > 10  # the sample's topics split for search
        strip = bench.query_one("#strip", SimilarityStrip)
        cuts_row = next(line for line in strip.rendered_lines() if line.startswith("cuts"))
        # a chunk-size cut (the lowest priority) shows where no other cut shares its column
        assert cuts_row.count(CUT_GLYPHS["chunk_size"]) > 5, cuts_row


async def test_a_long_file_name_is_cut_in_the_header_with_an_ellipsis(tmp_path: Path) -> None:
    import shutil

    from chunkscope.tui.widgets.header_line import HeaderLine

    path = tmp_path / ("a-session-with-a-very-long-file-name-" + "y" * 80 + ".jsonl")
    shutil.copy(SAMPLE, path)
    app = make_app(path)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        line = _lines_of(bench.query_one(HeaderLine))[0]
        # one line (it wrapped out of sight: the header read " chunkscope"), the name's
        # end and the turn count kept, the cut said (walk 9: and the format and the
        # tool calls' state beside it; walk 59, F1: the turns in short, the badge gone,
        # before more of the name is cut)
        assert "…" in line and ".jsonl · jsonl · T: collapsed · 211 → 136 turns" in line, line


async def test_the_loading_dialog_cuts_a_long_path_with_an_ellipsis() -> None:
    from textual.widgets import Label

    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.screens.loading import LoadingScreen

    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        app.push_screen(LoadingScreen("/tmp/" + "a-very-long-folder-name/" * 5 + "s.jsonl"))
        await until(pilot, lambda: isinstance(app.screen, LoadingScreen))
        await pilot.pause()
        label = app.screen.query_one("#loading-path", Label)
        box = label.parent
        assert box is not None and label.region.right <= box.content_region.right
        shown = _lines_of(label)
        assert len(shown) == 1 and shown[0].endswith("…"), shown


async def test_a_choice_dialog_keeps_a_long_title_inside_it() -> None:
    from textual.widgets import Label

    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.screens.choose import ChooseScreen

    name = "conversations-" + "z" * 70 + ".json"
    title = f"12 sessions in {name}: the newest is open"
    app = ChunkscopeApp(StartOptions(fixed_timings=True, open_picker=False))
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        app.push_screen(ChooseScreen(title, [("1", "one"), ("2", "two")]))
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.pause()
        label = app.screen.query_one(Label)
        box = label.parent
        assert box is not None and label.region.right <= box.content_region.right
        shown = "".join(_lines_of(label))
        assert shown.replace(" ", "") == title.replace(" ", ""), shown  # whole, wrapped


def _lines_of(widget: Any) -> list[str]:
    return [
        "".join(seg.text for seg in widget.render_line(y)).rstrip()
        for y in range(widget.size.height)
    ]


async def test_the_picker_keeps_names_whole_and_typing_goes_to_the_path() -> None:
    from textual.widgets import Input, OptionList

    from chunkscope.tui.app import StartOptions

    app = ChunkscopeApp(StartOptions(folder=str(SAMPLE.parent), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_listed(pilot, app)
        await pilot.pause()
        samples = screen.query_one("#samples", OptionList)
        shown = [line.strip(" │") for line in _lines_of(samples)]
        for path in screen.samples:
            assert path.name in shown, (path.name, shown)  # whole, on one row
        assert screen.focused is screen.query_one("#tree")
        await pilot.press(*"/tmp/x")
        field = screen.query_one("#path", Input)
        assert field.value == "/tmp/x"
        # the field takes the focus once the typing pauses (walk 24, F9)
        await wait_for(pilot, lambda: screen.focused is field, 2)
        assert screen.focused is field
        await pilot.press("escape")


def _picker_folder(tmp: Path) -> Path:
    """Two session logs (one with a long name), and a README newer than both."""
    import os
    import shutil

    folder = tmp / "logs"
    folder.mkdir()
    long_name = "a-session-with-a-very-long-file-name-" + "x" * 60 + ".jsonl"
    for name in ["short.jsonl", long_name]:
        shutil.copy(SAMPLE, folder / name)
    readme = folder / "README.md"
    readme.write_text("# About these logs\n\nNotes on the sessions.\n", encoding="utf-8")
    later = (folder / "short.jsonl").stat().st_mtime + 3600
    os.utime(readme, (later, later))
    return folder


@pytest.mark.paints
@pytest.mark.parametrize("size", [NARROW, SIZE], ids=["100x30", "160x48"])
async def test_the_picker_cuts_names_with_an_ellipsis_rows_on_one_line_markdown_no_session(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    import re

    from textual.widgets import DirectoryTree, OptionList

    from chunkscope.engine.read.formats.folders import is_session, latest
    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.screens.open_file import OpenFileScreen

    folder = _picker_folder(tmp_path)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, OpenFileScreen))
        screen = app.screen
        assert isinstance(screen, OpenFileScreen)
        tree = screen.query_one("#tree", DirectoryTree)
        await until(pilot, lambda: screen.listed and len(tree.root.children) == 3)
        await pilot.pause()

        # The tree: a name longer than the tree is wide says it is cut, and the tree
        # does not scroll sideways to it.
        rows = [line.strip("│ ") for line in _lines_of(tree)]
        cut = [r for r in rows if "a-session-" in r]
        # (walk 9: cut in its middle, as the sessions list cuts it, its end kept)
        assert len(cut) == 1 and "…" in cut[0] and cut[0].endswith(".jsonl"), rows
        assert tree.virtual_size.width <= tree.scrollable_content_region.width

        # The README is a document, not a session: not counted, not the newest.
        assert [Path(s.path).suffix for s in screen.sessions] == [".jsonl", ".jsonl"]
        assert [Path(s.path).name for s in screen.documents] == ["README.md"]
        assert all(is_session(s) for s in screen.sessions)
        assert Path(latest(folder).path).suffix == ".jsonl"
        box = screen.query_one("#sessions", OptionList)
        assert box.highlighted is not None
        assert box.get_option_at_index(box.highlighted).id == "session:0"
        assert "2 sessions" in str(box.border_subtitle)
        # Two copies of one log: the rows are alike, the file under the list tells them
        # apart (the highlighted row's path from the folder, its start cut when long).
        names = []
        for i in range(2):
            box.highlighted = i
            await pilot.pause()
            names.append(str(box.border_subtitle).split(" · ")[0])
        for name, info in zip(names, screen.sessions, strict=True):
            full = Path(info.path).name
            assert name == full or (name.startswith("…") and full.endswith(name[1:])), names
        assert names[0] != names[1]

        # Each row on one line, the date and size in their place, the file's name after
        # them (the first message in the room left), cut with an ellipsis when the list
        # is narrower than it.
        # (a narrow list: the date without its year, no size; the names in one column,
        # a long one cut in its middle)
        shown = [line.strip("│ ").rstrip("▁▂▃▄▅▆▇█ ") for line in _lines_of(box)]
        dated = [line for line in shown if re.match(r"(\d{4}-)?\d\d-\d\d \d\d:\d\d", line)]
        assert len(dated) == 3, shown  # two sessions and the README, no wrapped lines
        sizes = [re.search(r"\d (B|KB|MB)\b", line) for line in dated]  # 43 B: README
        assert all((m is not None) == (size == SIZE) for m in sizes), dated
        if size == SIZE:
            assert len({m.end() for m in sizes if m is not None}) == 1, dated
        for line, info in zip(dated, [*screen.sessions, *screen.documents], strict=True):
            name = Path(info.path).name
            start, cut, end = next(w for w in line.split() if w[:3] == name[:3]).partition("…")
            assert name in line or (cut and name.startswith(start) and name.endswith(end))
        assert any("…" in line for line in dated), dated
        assert "markdown documents (1)" in shown

        # A folder typed as the path is gone into, as the command line takes a folder
        # (it was refused: "is a directory, not a file"): its tree and its sessions.
        import shutil

        from textual.widgets import Input

        inner = folder / "inner"
        inner.mkdir()
        shutil.copy(SAMPLE, inner / "inner-session.jsonl")
        field = screen.query_one("#path", Input)
        field.value = str(inner)
        field.focus()
        await pilot.press("enter")
        await until(pilot, lambda: screen.listed and len(screen.sessions) == 1)
        assert app.screen is screen and Path(screen.sessions[0].path).name == "inner-session.jsonl"
        assert Path(tree.path).resolve() == inner.resolve() and field.value == ""
        assert not [n for n in app._notifications if "directory" in n.message]
        await pilot.press("escape")


async def test_summary_labels_min_size_clamp_stats_and_light_borders() -> None:
    from chunkscope.tui.widgets.merge_panel import MergePanel
    from chunkscope.tui.widgets.slider import Slider

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None

        # The summary: labelled, its abstract said once.
        await until(pilot, lambda: app.summaries)
        for index in range(len(bench.view.result.chunks)):
            summary = app.summaries.get(bench.view.result.chunks[index].text)
            if summary is not None and summary.summary != summary.abstract:
                break
        else:
            pytest.fail("no chunk with a summary of several sentences")
        bench.select_merged(index)
        await pilot.pause()
        body = str(bench.query_one("#summary-body").render())
        assert body.startswith("abstract\n") and "\nsummary\n" in body, body
        core = summary.abstract.rstrip(".!?…")
        assert body.count(core) == 1, body

        # The light theme: an unfocused panel's border apart from its surface in 256
        # colours (it was white on white).
        app.theme = "chunkscope-light"
        await pilot.pause()
        strip = bench.query_one("#strip")
        border = strip.styles.border_top[1].rich_color.downgrade(ColorSystem.EIGHT_BIT)
        surface = strip.styles.background.rich_color.downgrade(ColorSystem.EIGHT_BIT)
        assert border.number != surface.number, (border, surface)
        assert isinstance(border, RichColor)

        # A minimum segment over the size cap is lowered to it, with a warning; the
        # run's numbers, longer with a small cap, are shown whole.
        cap = bench.query_one("#max-chars", Slider)
        cap.focus()
        await pilot.press("home")  # 256 chars, under the 500 of min size
        least = bench.query_one("#topic-min-chars", Slider)
        await until(pilot, lambda: least.value <= 256)
        await until(pilot, lambda: app.workers_idle() and bench.view is not None)
        await pilot.pause()
        assert least.value == 250
        assert bench.view.params.topic.topic_min_chars == 250
        assert any("min size 500 is over the size cap of 256" in n for n in _notes(app))
        stats = bench.query_one(MergePanel).query_one("#merge-stats")
        text = str(stats.render())
        drawn = " ".join(" ".join(_lines_of(stats)).split())
        assert " ".join(text.split()) == drawn, (text, drawn)
        assert "cap 256c" in drawn


def _naive_width(text: str) -> int:
    """Cells as a terminal without emoji sequences draws `text`: each code point on its
    own, wide ones two cells, combining marks and joiners none."""
    total = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


async def test_an_emoji_line_keeps_the_cards_border(tmp_path: Path) -> None:
    lines = [
        ("user", "Deploy status 🚀 check the 🔥 build: ✅ or ❌ for every stage we run"),
        ("assistant", "⚠️ Warning: the build ✔️ passed but 👍🏽 the deploy step failed"),
        ("user", "👨‍👩‍👧 family emoji and 日本語 in one line, to check the border"),
    ]
    log = tmp_path / "emoji.jsonl"
    log.write_text(
        "".join(
            json.dumps({"role": r, "content": c, "timestamp": f"2026-02-13T09:1{i}:00"}) + "\n"
            for i, (r, c) in enumerate(lines)
        ),
        encoding="utf-8",
    )
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        for name in ("#before", "#merged"):
            widget = bench.query_one(name, ChunkList)
            width = widget.scrollable_content_region.width  # the scrollbar's cell apart
            rows = [
                "".join(seg.text for seg in widget.render_line(y))
                for y in range(widget.size.height)
            ]
            assert any("Warning" in row for row in rows)
            for row in rows:
                assert _naive_width(row) == width, (name, row)
        # the recap preview draws the same text the same way (it kept the joiners)
        from textual.widgets import TextArea

        preview = bench.query_one("#recap-preview", TextArea)
        assert "family emoji" in preview.text
        assert "\u200d" not in preview.text and "\ufe0f" not in preview.text


async def test_auto_tune_says_when_no_setting_finds_the_marks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunkscope.engine.evaluate.measure import chunk_starts, line_weights
    from chunkscope.tui.screens.tune import TuneScreen

    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await until(pilot, lambda: app.workbench is not None and app.workbench.view is not None)
        bench = app.workbench
        assert bench is not None and bench.view is not None and app.file_marks is not None
        # A mark in the middle of the file's longest stretch without a topic start.
        starts = [*chunk_starts(bench.view.result.topic_chunks), len(line_weights(SAMPLE))]
        gap = max(itertools.pairwise(starts), key=lambda ab: ab[1] - ab[0])
        app.set_file_marks(replace(app.file_marks, starts=((gap[0] + gap[1]) // 2,)))
        original = TuneScreen.__init__

        def one_setting(self: TuneScreen, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            self.grid = {"topic_depth": [7.0]}  # the setting in force only

        monkeypatch.setattr(TuneScreen, "__init__", one_setting)
        screen = await auto_tune(pilot, app)
        await pilot.pause()
        assert all(t.f1 == 0 for t in screen.rows)
        note = screen.query_one("#tune-none")
        assert note.display and "No setting" in str(note.render())
        assert "finds the one topic mark (F1 0.000" in str(note.render())


async def test_a_refused_file_leaves_the_picker_open_with_the_path_to_correct(
    tmp_path: Path,
) -> None:
    """A binary file, a missing path, a file with no turns: the picker stays (or comes
    back) with the typed path in its field, focused, so the next keys correct it and
    never reach the workbench."""
    from textual.widgets import Input

    from chunkscope.tui.screens.open_file import OpenFileScreen

    binary = tmp_path / "ls"
    binary.write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 200 + bytes(range(256)) * 4)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        for path, why in [
            (binary, "looks like a binary file"),
            (tmp_path / "missing.jsonl", "no such file"),
            (empty, "no turns"),
        ]:
            await pilot.press("ctrl+o")
            # the picker may be up before its field is composed (CI under load)
            await until(
                pilot,
                lambda: isinstance(app.screen, OpenFileScreen) and app.screen.query("#path"),
            )
            screen = app.screen
            field = screen.query_one("#path", Input)
            field.focus()
            field.value = str(path)
            await pilot.press("enter")
            await until(pilot, lambda why=why: any(why in n for n in _notes(app)))
            await until(
                pilot,
                lambda: (
                    isinstance(app.screen, OpenFileScreen)
                    and bool(app.screen.query("#path"))
                    and app.screen.focused is app.screen.query_one("#path", Input)
                ),
            )
            field = app.screen.query_one("#path", Input)
            assert field.value == str(path), why
            await pilot.press("x")
            assert field.value == str(path) + "x"  # the keys go to the field
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, OpenFileScreen))
        assert app.pipe is not None and Path(app.pipe.path).name == SAMPLE.name  # kept


async def test_up_and_down_move_between_the_merge_controls() -> None:
    """↓ on a control focuses the next one shown, ↑ the previous, stopping at the
    panel's ends; → then adjusts the control focused, never the one left."""
    from chunkscope.tui.widgets.merge_panel import MergePanel

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        panel = app.screen.query_one(MergePanel)
        controls = [w for w in app.screen.focus_chain if panel in w.ancestors]
        assert len(controls) >= 3
        controls[0].focus()
        await pilot.pause()
        await pilot.press("up")  # the first: nowhere to go
        assert app.screen.focused is controls[0]
        for control in controls[1:]:
            await pilot.press("down")
            assert app.screen.focused is control
        await pilot.press("down")  # the last: it stays
        assert app.screen.focused is controls[-1]
        await pilot.press("up")
        assert app.screen.focused is controls[-2]
        left = controls[-1].render().plain
        await pilot.press("right")
        await pilot.pause()
        assert controls[-1].render().plain == left  # the control left keeps its value


def test_the_merge_panels_keys_are_in_the_help() -> None:
    from textual.binding import Binding

    from chunkscope.tui.screens.help import HELP
    from chunkscope.tui.widgets.merge_panel import MergePanel

    table = HELP.split("## Keys", 1)[1]
    (row,) = [r for r in table.splitlines() if "in the merge controls" in r]
    arrows = {"up": "↑", "down": "↓"}
    for binding in MergePanel.BINDINGS:
        assert isinstance(binding, Binding)
        assert f"`{arrows[binding.key]}`" in row.split("|")[1], binding.key
