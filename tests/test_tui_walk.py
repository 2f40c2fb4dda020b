"""A reviewer's walk through the workbench (issue 35, second pass), on the real app:
expanded cards break between words; a judged cut reads why, numbers, verdict (the
help's order); a merge column in the compare view words its cuts as the main view
does, numbers included."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from rich.cells import cell_len

from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import ROOT, SIZE, make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)
NOTES = ROOT / "sample_logs" / "research_notes.jsonl"
GUIDE = ROOT / "sample_logs" / "architecture_guide.md"


def _static_lines(widget: object) -> list[str]:
    from textual.widgets import Static

    assert isinstance(widget, Static)
    return ["".join(seg.text for seg in widget.render_line(y)) for y in range(widget.size.height)]


def _cut_row(lst: ChunkList, i: int, width: int | None = None) -> str:
    """The text of card `i`'s cut line (its last row), drawn at the list's width or `width`."""
    row = int(lst._offsets[i + 1] - lst._offsets[i]) - 1
    return lst._render_card_line(i, row, width or lst.scrollable_content_region.width).text


async def test_expanded_cards_break_between_words_and_judged_cuts_read_in_order() -> None:
    app = make_app(NOTES)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        merged = bench.query_one("#merged", ChunkList)

        # The compacted items are named units, as the merge panel's stats name them.
        n_units = len(bench.view.compacted)
        title = str(bench.query_one("#before-col").border_title)
        assert f"compacted ({n_units} units)" in title, title

        # The footer drops whole keys: none is cut by the palette key or the edge.
        from textual.widgets._footer import FooterKey

        await pilot.pause()
        keys = list(bench.query(FooterKey))
        palette = next(k for k in keys if k.has_class("-command-palette"))
        shown = [k for k in keys if k.display and k is not palette]
        assert {"question_mark", "q", "z"} <= {k.key for k in shown}, [k.key for k in shown]
        assert all(k.region.right <= palette.region.x for k in shown), [
            (k.key, k.region) for k in shown
        ]
        assert any(not k.display for k in keys)  # at 100 columns some keys are left out

        # An expanded card: every word whole on one row (it was "…read th / em, check…").
        merged.focus()
        merged.select(0)
        await pilot.press("enter")
        await pilot.pause()
        assert merged.is_expanded(0)
        usable = merged.scrollable_content_region.width - 4
        rows = merged._expanded[0]
        assert len(rows) > 3 and all(cell_len(r) <= usable for r in rows)
        text = " ".join(rows)
        for word in merged.chunks[0].text.split():
            if cell_len(word) < usable:
                assert word in text, (word, rows)

        # Marks: each judged cut says why, its numbers, then the verdict.
        await pilot.resize_terminal(*SIZE)  # room for the whole line
        await pilot.pause()
        assert app.file_marks is not None
        app.set_file_marks(replace(app.file_marks, starts=(10, 126), partial=True))
        merged = bench.query_one("#merged", ChunkList)
        await until(pilot, lambda: app.workers_idle() and any(merged._verdicts))
        await pilot.pause()
        verdicts = list(merged._verdicts)
        # the counts say what they count: 2 marks cut the marked stretch in 3 topics
        from tests.test_tui_marks import _score_text

        score = _score_text(app)
        assert "2 topic marks (partial)" in score, score
        # what is counted, said plainly: the marked stretch's topics, 3 for 2 marks
        topics = re.search(r"\d+ topics? vs the marked stretch's 3 \(2 marks split it\)", score)
        assert topics is not None, score
        assert any(v in ("hit", "spurious") for v in verdicts), verdicts
        seen = set()
        for i, verdict in enumerate(verdicts):
            if not verdict:
                continue
            line = _cut_row(merged, i, 200).strip(" ▌▍…")
            assert line.startswith("┄ cut: "), line
            words = {"hit": "✓ topic start", "spurious": "✗ no topic here"}.get(
                verdict, "outside marks"
            )
            assert " · · " not in line and "  " not in line.strip(), line
            cut = merged._cuts[i] if merged._cuts is not None else None
            if cut is not None and "sim" in line and verdict in ("hit", "spurious"):
                assert line.index("sim ") < line.index(words[0]), line
                seen.add(verdict)
            assert line.endswith(" · " + words), line
        assert seen, "no judged cut with numbers"

        # The merge panel's stats: the legend's names, broken between items; the
        # toggle's label readable and apart from its value.
        from textual.widgets import Static

        from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
        from chunkscope.tui.widgets.merge_panel import MergePanel

        panel = bench.query_one(MergePanel)
        stats = panel.query_one("#merge-stats", Static)
        rows = [str(line).rstrip() for line in _static_lines(stats)]
        text = "\n".join(rows)
        assert "cuts:" in text and "_" not in text, rows
        assert f"{n_units} units" in text, rows
        assert "chunk size" in text and "split to fit cap" in text, rows
        for row in rows:  # no item broken over two rows
            assert not row.endswith((" chunk", " size")), rows
        toggles = [t.render().plain for t in panel.query(ChoiceToggle)]
        assert any(t.startswith("topic depth [") or t.startswith("topic depth  ") for t in toggles)
        assert not any("_" in t.split("[")[0] for t in toggles), toggles
        shown = _cut_row(merged, verdicts.index("spurious"))  # as drawn: the verdict cropped
        assert "sim 0." in shown and shown.startswith(("▌ ", "▍ ")), shown

        # At 100x30 the score's topic counts are drawn whole, wrapped between words.
        await pilot.resize_terminal(*NARROW)
        await pilot.pause()
        drawn = " ".join(" ".join(_static_lines(bench.query_one("#merge-score", Static))).split())
        assert topics.group(0) in drawn, drawn


def test_every_workbench_key_is_in_the_help() -> None:
    from textual.binding import Binding
    from textual.keys import key_to_character

    from chunkscope.tui.screens.help import HELP
    from chunkscope.tui.screens.workbench import WorkbenchScreen

    table = HELP.split("## Keys", 1)[1]
    for binding in WorkbenchScreen.BINDINGS:
        assert isinstance(binding, Binding)
        for key in binding.key.split(","):
            shown = binding.key_display or ("esc" if key == "escape" else key)
            if "+" not in key and len(key) > 1 and key != "escape":
                shown = key_to_character(key) or shown
            assert f"`{shown}`" in table, (key, binding.description)


async def test_a_merge_column_words_its_cuts_as_the_main_view() -> None:
    from chunkscope.tui.widgets.chunk_list import cut_text

    app = make_app(GUIDE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        for _ in range(12):  # the right column to the seed's merge loop
            spec = app.column_specs["right"]
            if spec is not None and spec.name == "merge:seed":
                break
            await pilot.press("right_square_bracket")
            await pilot.pause()
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        right = bench.query_one("#merged", ChunkList)
        # the column's own strip: the seed loop's cuts, not the merged run's
        from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

        strip = bench.query_one("#strip-right", SimilarityStrip)
        assert bench.query_one("#column-strips").display
        assert "merge:seed" in str(strip.border_title)
        assert right._cuts is not None and len(strip.cuts) == len(right._cuts)
        assert right._cuts is not None and len(right._cuts) == 2
        # (a cut the other column lacks is marked ``≠``: which ones depends on where the
        # topic merge's units fall, not on the wording checked here)
        lines = [re.sub(r"≠ (· )?", "", cut_text(c)) for c in right._cuts]
        # the same function as the main view of `--merge seed`: every cut has its numbers
        assert lines == ["┄ cut: too big to join · sim 0.10", "┄ cut: sim -0.06 < threshold -0.02"]
        drawn = _cut_row(right, 0)
        assert "┄ cut:" in drawn and "sim " in drawn, drawn


CUT_KINDS = [
    ("threshold", 0.11, 0.12, None),
    ("size_cap", 0.2, 0.3, None),
    ("size_cap", 0.2, 0.3, 8.0),
    ("chunk_size", 0.2, 0.3, 8.0),
    ("min_similarity", 0.01, 0.3, None),
    ("max_passes", 0.5, 0.3, None),
    ("topic", 0.06, 7.0, 9.1),
    ("structure", 0.15, 7.0, 8.07),
    ("paragraph", None, None, None),  # a strategy's cut: no numbers
    ("≠ paragraph", None, None, None),  # only this compare column cuts here
    ("≠ threshold", 0.11, 0.12, None),
]


@pytest.mark.parametrize("verdict", ["hit", "spurious", "outside"])
def test_every_cut_kind_and_verdict_has_single_separators(verdict: str) -> None:
    """Issue 35: `┄ cut: paragraph · · outside marks` once marks exist; every tier of
    every cut kind joins its parts with one separator, an empty part leaving none."""
    from chunkscope.tui.widgets.chunk_list import VERDICT_TEXT, cut_line_tiers
    from chunkscope.tui.workbench.columns import NO_SIMILARITY, CutMark

    note = VERDICT_TEXT[verdict][0].strip()
    for reason, s, t, depth in CUT_KINDS:
        cut = CutMark(reason, NO_SIMILARITY if s is None else s, t, depth)
        for body, said in cut_line_tiers(cut, note):
            line = body + said
            assert " · · " not in line and "··" not in line, line
            assert not line.endswith((" ·", ": ")) and ":  " not in line, line
            assert "·  " not in line and "  ·" not in line, line
        full = "".join(cut_line_tiers(cut, note)[0])
        assert full.endswith(" · " + note.removeprefix("· ")), full


async def test_cut_lines_with_partial_marks_have_single_separators_in_compare() -> None:
    """Seed mode with partial marks, then every compare column: no cut line has two
    separators in a row (it read `┄ cut: too big to join · sim 0.20 · · outside marks`)."""
    app = make_app(GUIDE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        assert app.file_marks is not None
        app.set_file_marks(replace(app.file_marks, starts=(10,), partial=True))
        await until(pilot, app.workers_idle)
        await pilot.pause()
        checked = 0
        for _ in range(8):  # the right column through the strategies
            await pilot.press("right_square_bracket")
            await pilot.pause()
            await until(pilot, app.workers_idle)
            await pilot.pause()
            for lst in bench.query(ChunkList):
                for i, verdict in enumerate(lst._verdicts):
                    if not verdict or lst._cuts is None or i >= len(lst._cuts):
                        continue
                    line = _cut_row(lst, i, 200).rstrip(" ▌▍…")
                    assert " · · " not in line, line
                    checked += verdict == "outside"
        assert checked, "no cut outside the marks was drawn"


@pytest.mark.paints
async def test_at_100x30_the_strip_legend_and_the_tabs_say_what_160x48_says() -> None:
    """Issue 35: at 100x30 the strip had no legend row (its glyphs, the cap, the
    bucket's size), the Summary tab did not say its chunk, nor the Recap tab its count."""
    from textual.widgets import TabbedContent

    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip

    app = make_app(ROOT / "sample_logs" / "cache_refactor.jsonl")
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: app.selection is not None)
        await pilot.pause()
        bench = app.workbench
        assert bench is not None and bench.view is not None
        strip = bench.query_one("#strip", SimilarityStrip)
        assert strip.size.height < 5  # no room for the legend row
        await until(pilot, lambda: bool(strip.border_subtitle))
        legend = strip._border_subtitle.plain if strip._border_subtitle else ""
        n = len(bench.view.compacted)
        assert n > strip.size.width  # bucketed: the legend says by how much
        for words in ("┇ structure", "╳ split to fit cap", "cap 8192c", "1 column = "):
            assert words in legend, legend
        assert strip.outer_size.width - 6 >= len(legend), legend
        assert legend == legend.strip() and "   " not in legend, legend
        tabs = bench.query_one(TabbedContent)
        labels = [t.label.plain for t in tabs.query("ContentTab")]
        assert "Summary · chunk 0" in labels, labels
        assert any(
            label.startswith("Recap · ")
            and label.endswith(f"/{len(bench.view.result.chunks)} kept")
            for label in labels
        ), labels

        # Walk 6: a typed budget and the compare view made the Recap tab's label push
        # Search off the bar; the labels now give up detail, whole words, to fit.
        from textual.widgets import Input

        await pilot.press("b")
        await until(pilot, lambda: bool(app.screen.query(Input)))
        app.screen.query_one(Input).value = "1500"
        await pilot.press("enter")
        await until(pilot, lambda: app.budget == 1500)
        await pilot.press("]")

        def labels_now() -> list[str]:
            return [t.label.plain for t in tabs.query("ContentTab")]

        await until(pilot, lambda: "merged run" in " ".join(labels_now()))
        await pilot.pause()
        labels = labels_now()
        # (the controls tab says Columns while a strategy's sliders are there: walk 70, F5)
        assert labels[0] == "Columns" and labels[-1] == "Search", labels
        assert sum(cell_len(label) + 2 for label in labels) <= NARROW[0], labels
        assert any(label.startswith("Recap · ") and "budget 1500" in label for label in labels)


def test_a_legend_too_long_is_cut_between_words_with_an_ellipsis() -> None:
    from rich.segment import Segment
    from rich.style import Style

    from chunkscope.tui.widgets.similarity_strip import fit_words

    parts = [
        "┃ topic  ",
        "┇ structure  ",
        "╳ size cap  ",
        "size: cap 8192c   ",
        "1 column = 1.9 chunks",
    ]
    segments = [Segment(p) for p in parts]
    text = "".join(parts)
    assert fit_words(segments, len(text), Style()) == segments
    for width in range(12, len(text)):
        cut = "".join(s.text for s in fit_words(segments, width, Style()))
        assert cell_len(cut) <= width and cut.endswith(" …"), (width, cut)
        head = cut.removesuffix(" …").rstrip()
        assert text.startswith(head)
        assert text[len(head)] == " ", (width, cut)  # never inside a word


async def test_comparing_the_strips_agree_with_the_titles_and_the_panels_say_whose_run() -> None:
    """Issue 35: comparing, the left column's title counted "127 cuts differ" (and a Pk)
    while its strip said "no cuts yet"; the summary and the recap, of the merge panel's
    run (in neither column), did not say so."""
    from chunkscope.tui.widgets.recap_panel import RecapPanel
    from chunkscope.tui.widgets.similarity_strip import SimilarityStrip
    from chunkscope.tui.widgets.summary_panel import SummaryPanel

    app = make_app(ROOT / "sample_logs" / "docs_cleanup.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: app.selection is not None)
        bench = app.workbench
        assert bench is not None
        summary, recap = bench.query_one(SummaryPanel), bench.query_one(RecapPanel)
        assert "merged run" not in str(recap.border_title)
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: app.column_result("right") is not None)
        await until(pilot, app.workers_idle)
        await pilot.pause()
        left = bench.query_one("#before", ChunkList)
        n_cuts = len(left.chunks) - 1
        # the strip plots the compacted units, and says its numbers in them (walk 6)
        strip_widget = bench.query_one("#strip-left", SimilarityStrip)
        strip = str(strip_widget.border_title)
        units = len(bench.view.compacted)  # type: ignore[union-attr]
        assert "no cuts yet" not in strip and f"{units} units" in strip, strip
        cuts_row = next(r for r in strip_widget.rendered_lines() if r.startswith("cuts"))
        assert f"a cut after every unit ({units - 1})" in cuts_row, cuts_row
        title = str(bench.query_one("#before-col").border_title)
        assert f"({n_cuts + 1})" in title, title
        assert str(summary.border_title).endswith(" · merged run"), summary.border_title
        assert str(recap.border_title).endswith(" kept · merged run"), recap.border_title


async def test_t_on_a_markdown_file_says_it_has_no_tool_calls_and_changes_nothing() -> None:
    """Issue 35: `T` on a markdown file said `Tool calls: collapsed (as chunkscope recap).`"""
    app = make_app(GUIDE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        before = app.options.collapse
        pipe = app.pipe
        await pilot.press("T")
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert any("markdown document: it has no tool calls" in m for m in said), said
        assert not any(m.startswith("Tool calls:") for m in said), said
        assert app.options.collapse == before and app.pipe is pipe  # not reopened


async def test_the_summary_panel_says_why_a_chunk_of_code_alone_has_no_summary() -> None:
    """A chunk whose only text is code has an empty summary (not its first code line):
    the panel said "abstract · the whole summary" over nothing."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from chunkscope.engine.summarize import ExtractiveSummarizer
    from chunkscope.tui.widgets.summary_panel import NO_SUMMARY, SummaryPanel

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield SummaryPanel()

    empty = ExtractiveSummarizer().summarize("Doc: ### Retry\nDoc: ```python\nimport random\n```")
    async with Host().run_test(size=SIZE) as pilot:
        panel = pilot.app.query_one(SummaryPanel)
        panel.show_summary(5, empty)
        await pilot.pause()
        shown = str(panel.query_one("#summary-body", Static).render())
        assert shown == NO_SUMMARY and "abstract" not in shown
        assert "only code" in NO_SUMMARY
