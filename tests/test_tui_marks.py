"""Topic marks in the workbench: set on the turn view, saved per file by content,
scored live against every run, exported as a gold file, opened from one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.evaluate.gold import marks_path
from chunkscope.engine.evaluate.measure import (
    boundary_f1,
    chunk_starts,
    line_weights,
    match_boundaries,
    score,
    score_text,
)
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.cli import main
from chunkscope.tui.widgets.chunk_list import ChunkList
from chunkscope.tui.widgets.similarity_strip import SimilarityStrip
from chunkscope.tui.workbench.topics import topics_against_marks
from tests.pilot import SAMPLE, SIZE, make_app, palette_listed, settled, until, wait_for


def _user_turns(app: ChunkscopeApp) -> list[int]:
    """Indexes of the left column's items that are a user turn after the assistant."""
    view = app.workbench.view  # type: ignore[union-attr]
    items = view.left_items  # type: ignore[union-attr]
    return [
        i
        for i in range(1, len(items))
        if items[i].turns[0].role == "You" and items[i - 1].turns[-1].role != "You"
    ]


def _score_text(app: ChunkscopeApp) -> str:
    """The live score as one line (the panel breaks it between items to its width)."""
    return " ".join(str(app.workbench.query_one("#merge-score").render()).split("\n"))  # type: ignore[union-attr]


async def _mark(pilot, app: ChunkscopeApp, index: int) -> int:  # type: ignore[no-untyped-def]
    before = app.workbench.query_one("#before", ChunkList)  # type: ignore[union-attr]
    before.focus()
    before.select(index, post=True)
    await pilot.pause()
    await pilot.press("m")
    await pilot.pause()
    line = app.workbench.view.left_items[index].lines[0]  # type: ignore[union-attr]
    return int(line)


def _expected(
    app: ChunkscopeApp, path: Path, marks: list[int], partial: bool = True
) -> tuple[float, float]:
    result = app.workbench.view.result  # type: ignore[union-attr]
    s = score(chunk_starts(result.topic_chunks), [1, *marks], line_weights(path), partial=partial)
    return s.pk, s.f1


async def test_a_mark_is_saved_at_once_scored_live_and_drawn(
    isolated: Path, tmp_path: Path
) -> None:
    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("v")  # compacted -> turns
        await until(pilot, lambda: app.workbench.view.left_kind == "turns")  # type: ignore[union-attr]
        users = _user_turns(app)
        assert len(users) >= 3
        first = await _mark(pilot, app, users[1])
        # Saved before the key returns: a crash right after marking loses nothing.
        saved = marks_path(log)
        assert json.loads(saved.read_text()) == {"starts": [first], "partial": True}
        assert app.marks == (first,)
        second = await _mark(pilot, app, users[-1])
        assert app.marks == tuple(sorted((first, second)))
        assert json.loads(saved.read_text()) == {
            "starts": sorted([first, second]),
            "partial": True,
        }

        pk, f1 = _expected(app, log, [first, second])
        text = _score_text(app)
        assert (
            "2 topic marks" in text
            and f"Pk {score_text(pk)}" in text
            and f"F1 {score_text(f1)}" in text
        )
        bench = app.workbench
        assert bench is not None
        report = app.marks_report(bench.view)  # type: ignore[arg-type]
        assert report is not None
        # the topic starts are judged; the cuts that split a topic into chunks get no verdict
        cuts = len(bench.view.result.topic_spans) - 1  # type: ignore[union-attr]
        outside = report.cut_verdicts.count("outside")  # partial marks: not scored
        assert report.hits + report.spurious + outside == cuts
        assert report.cut_verdicts.count("") == len(bench.view.result.chunks) - 1 - cuts  # type: ignore[union-attr]
        assert report.hits + report.missed == 2
        assert f"{report.hits} hit · {report.missed} missed · {report.spurious} spurious" in text
        # the topics the run makes against the topics marked, beside Pk and WindowDiff
        assert topics_against_marks(report.scores) in text
        assert f"{report.scores.chunks} topic" in text and "the marked stretch's" in text

        strip = bench.query_one(SimilarityStrip)
        rows = strip.rendered_lines()
        marks_row = next(r for r in rows if r.startswith("marks"))
        assert marks_row.count("◆") == 2
        before_lines = "\n".join(bench.query_one("#before", ChunkList).rendered_lines())
        assert "◆" in before_lines  # the selected (marked) turn is on screen
        merged_lines = "\n".join(bench.query_one("#merged", ChunkList).rendered_lines())
        if report.hits:
            assert ("┄ ✓" in merged_lines and "topic start" in merged_lines) or (
                "┄ ✗" in merged_lines and "no topic here" in merged_lines
            )

        # The score follows every run: another depth, the engine's score again.
        app.request_run(app.state.tuning.with_values({"topic_depth": 2.0}))
        await until(pilot, lambda: bench.view.params.topic.topic_depth == 2.0)  # type: ignore[union-attr]
        await pilot.pause()
        pk2, f12 = _expected(app, log, [first, second])
        assert f"Pk {score_text(pk2)}" in _score_text(
            app
        ) and f"F1 {score_text(f12)}" in _score_text(app)

        # Toggling a mark off removes it; the last one off removes the file.
        await _mark(pilot, app, users[1])
        await _mark(pilot, app, users[-1])
        assert app.marks == () and not saved.exists()
        assert _score_text(app) == ""
        assert not any(r.startswith("marks") for r in strip.rendered_lines())


async def test_marks_follow_the_content_not_the_name(isolated: Path, tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    shutil.copy(SAMPLE, log)
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("v")
        await until(pilot, lambda: app.workbench.view.left_kind == "turns")  # type: ignore[union-attr]
        line = await _mark(pilot, app, _user_turns(app)[2])
    moved = tmp_path / "elsewhere" / "renamed.jsonl"
    moved.parent.mkdir()
    log.rename(moved)
    again = make_app(moved)
    async with again.run_test(size=SIZE) as pilot:
        await settled(pilot, again)
        assert again.marks == (line,)
        assert "1 topic mark" in _score_text(again)


async def test_open_with_a_gold_file_and_export_the_marks(isolated: Path, tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)
    gold = tmp_path / "session.gold.json"
    gold.write_text('{"starts": [1, 16, 53]}\n')
    app = make_app(log, gold=str(gold))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.marks == (16, 53)
        assert app.file_marks is not None and app.file_marks.origin == "gold"
        assert "2 topic marks" in _score_text(app)
        out = tmp_path / "exported.gold.json"
        await pilot.press("M")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        field = app.screen.query_one("#prompt-input")
        field.value = str(out)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, out.exists)
        assert json.loads(out.read_text()) == {"starts": [1, 16, 53], "partial": False}


async def test_a_damaged_marks_file_is_reported_and_the_file_opens(
    isolated: Path, tmp_path: Path
) -> None:
    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)
    saved = marks_path(log)
    saved.parent.mkdir(parents=True)
    saved.write_text("{not json")
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.marks == ()
        notes = [str(n.message) for n in app._notifications]
        assert any(str(saved) in n and "not valid JSON" in n for n in notes)


@pytest.mark.parametrize(
    ("gold_text", "error"),
    [
        ('{"starts": [1, 99999]}', "line 99999 is out of range"),
        ("[3, 2]", "unsorted"),
        ("", "empty gold file"),
    ],
)
def test_the_command_line_refuses_a_bad_gold_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gold_text: str, error: str
) -> None:
    gold = tmp_path / "g.json"
    gold.write_text(gold_text)
    assert main([str(SAMPLE), "--gold", str(gold)]) == 2
    err = capsys.readouterr().err.strip()
    assert error in err and "\n" not in err and str(gold) in err


@settings(max_examples=200, deadline=None)
@given(
    hyp=st.lists(st.integers(1, 60), max_size=15),
    gold=st.lists(st.integers(1, 60), max_size=15),
    tolerance=st.integers(0, 4),
)
def test_matching_pairs_each_found_boundary_with_the_nearest_free_gold_one(
    hyp: list[int], gold: list[int], tolerance: int
) -> None:
    matched = match_boundaries(hyp, gold, tolerance)
    # a brute-force reading of the rule: nearest pairs first, each side used once
    hs = sorted({x for x in hyp if x > 1})
    gs = sorted({x for x in gold if x > 1})
    pairs = sorted((abs(g - h), h, g) for h in hs for g in gs if abs(g - h) <= tolerance)
    used: set[int] = set()
    expected: dict[int, int] = {}
    for _, h, g in pairs:
        if h not in expected and g not in used:
            used.add(g)
            expected[h] = g
    assert matched == expected
    assert len(set(matched.values())) == len(matched)
    p, r, _ = boundary_f1(hyp, gold, tolerance)
    n_hyp = len([x for x in hyp if x > 1])  # every cut counts, one line or not
    n_ref = len({x for x in gold if x > 1})
    if n_hyp and n_ref:
        assert p == pytest.approx(len(matched) / n_hyp)
        assert r == pytest.approx(len(matched) / n_ref)


async def test_a_says_the_marks_are_all_the_topics_and_is_saved_with_them(
    isolated: Path, tmp_path: Path
) -> None:
    from dataclasses import replace

    from chunkscope.tui.screens.help import HELP

    log = tmp_path / "session.jsonl"
    shutil.copy(SAMPLE, log)

    def drawn(app: ChunkscopeApp) -> bool:  # the first run and the file's marks
        bench = app.workbench
        return bench is not None and bench.view is not None and app.file_marks is not None

    app = make_app(log, topic_chunk_tokens=0)  # a card per topic: its verdict on screen
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: drawn(app))
        assert app.file_marks is not None and app.file_marks.partial  # the default
        app.set_file_marks(replace(app.file_marks, starts=(86, 90)))
        await pilot.pause()
        text = _score_text(app)
        assert "2 topic marks (partial) · F1" in text
        pk, f1 = _expected(app, log, [86, 90])
        assert f"Pk {score_text(pk)}" in text and f"F1 {score_text(f1)}" in text
        verdicts = app.marks_report(app.workbench.view).cut_verdicts  # type: ignore[union-attr, arg-type]
        assert "outside" in verdicts  # the sample's run cuts after line 92 (at 129)
        lst = app.workbench.query_one("#merged", ChunkList)  # type: ignore[union-attr]
        i = verdicts.index("outside")  # its cut line, whole (a narrow one drops the words)
        row = int(lst._offsets[i + 1] - lst._offsets[i]) - 1
        assert lst._render_card_line(i, row, 200).text.rstrip().endswith("· outside marks")

        await pilot.press("a")
        await pilot.pause()
        assert app.file_marks is not None and not app.file_marks.partial
        saved = json.loads(marks_path(log).read_text())
        assert saved == {"starts": [86, 90], "partial": False}
        text = _score_text(app)
        pk, f1 = _expected(app, log, [86, 90], partial=False)
        assert "2 topic marks (all topics) · F1" in text
        assert f"Pk {score_text(pk)}" in text and f"F1 {score_text(f1)}" in text
        report = app.marks_report(app.workbench.view)  # type: ignore[union-attr, arg-type]
        assert report is not None and "outside" not in report.cut_verdicts
        assert any("all the topics" in str(n.message) for n in app._notifications)

        # The command palette entry does the same.
        await pilot.press("ctrl+p")
        await pilot.press(*"marks are all the topics")
        await wait_for(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        await until(pilot, lambda: app.file_marks is not None and app.file_marks.partial)
        assert json.loads(marks_path(log).read_text())["partial"] is True
    # Reopened: the flag came back with the marks.
    again = make_app(log)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: drawn(again))
        assert again.file_marks is not None and again.file_marks.partial
        assert again.marks == (86, 90)
    assert "| `a` | the topic marks are all the topics" in HELP
