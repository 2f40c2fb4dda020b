"""`chunkscope review`: the workbench shows the recap session-start will inject, and a
pin set there (saved with `w`) changes what session-start prints."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from chunkscope.engine.inject.recaps import build_recap, load_all, load_stored, save_stored
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.cli import main
from chunkscope.tui.cli.review import review_options
from tests.logs import claude_project
from tests.pilot import SIZE, until

POEMS = Path(__file__).parent / "fixtures" / "hooks_cc_curry_poems.jsonl"


def _session_start(
    project: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    payload = {
        "session_id": "next",
        "transcript_path": str(folder / "next.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    assert main(["hook", "session-start"]) == 0
    out = capsys.readouterr().out
    context: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return context


def _noted(app: ChunkscopeApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The messages `app` notifies, as they come."""
    notes: list[str] = []
    real = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append(message)
        real(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", notify)
    return notes


async def test_review_shows_the_stored_recap_and_a_pin_changes_what_goes_in(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, folder = claude_project(isolated, monkeypatch)
    transcript = folder / "s1.jsonl"
    shutil.copyfile(POEMS, transcript)
    # What `chunkscope hook session-end --budget 150` stores: not every summary fits.
    built = build_recap(transcript, project, event="SessionEnd", session_id="s1", budget=150)
    save_stored(built.stored)
    left_out = [c for c in built.selection.candidates if not c.selected and c.text]
    assert left_out, "the budget should leave a summary out"
    before = _session_start(project, folder, monkeypatch, capsys)
    assert before.endswith(built.stored.text)

    app = ChunkscopeApp(review_options(str(project)))
    notes = _noted(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.selection is not None and app.workers_idle(), 60)
        bench = app.workbench
        assert bench is not None
        preview = bench.query_one("#recap-preview")
        assert preview.text == built.stored.text  # type: ignore[attr-defined]
        title = str(bench.query_one("#recap-preview-title").render())
        assert "next session start" in title

        pick = left_out[0]
        bench.select_merged(pick.index)
        await pilot.press("p")
        await until(pilot, lambda: app.selection is not None and pick.text in app.selection.text)
        shown = app.selection.text  # type: ignore[union-attr]
        await pilot.press("w")
        await until(pilot, lambda: (s := load_stored(project)) is not None and s.review is not None)
        await until(pilot, lambda: any(n.startswith("Wrote") for n in notes))
    said = next(n for n in notes if "Reviewing" in n)
    assert "(stored by the SessionEnd hook)" in said and "what the next session start adds" in said
    assert "what the next session start injects" in next(n for n in notes if n.startswith("Wrote"))

    stored = load_stored(project)
    assert stored is not None and stored.review is not None
    assert stored.event == "SessionEnd"  # `w` keeps the hook that stored it
    assert stored.text == shown
    assert stored.review.pinned == (built.chunk_texts[pick.index],)
    after = _session_start(project, folder, monkeypatch, capsys)
    assert pick.text in after and pick.text not in before
    assert after.endswith(shown)

    # The next rebuild of the same transcript (its session ended again) keeps the pin.
    rebuilt = build_recap(transcript, project, event="SessionEnd", budget=150, review=stored.review)
    assert rebuilt.stored.text == shown


def test_review_without_any_session_is_one_line_and_exit_2(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(isolated / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    (isolated / "proj").mkdir()
    assert main(["review", str(isolated / "proj")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "no Claude Code session to review" in err[0]
    assert main(["review", str(isolated / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_announce_gives_up_when_no_workbench_ever_mounts() -> None:
    """A review whose file never opens must not poll for the workbench forever."""
    from chunkscope.tui.workbench.review import ANNOUNCE_TRIES, announce

    class NoBench:
        workbench = None
        timers = 0

        def set_timer(self, _delay: float, callback: Any) -> None:
            self.timers += 1
            callback()  # the timer fires at once

    app = NoBench()
    announce(app, cast(Any, None))
    assert app.timers == ANNOUNCE_TRIES - 1


async def test_review_of_a_session_the_next_start_does_not_inject_says_so(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 14, 2: `review --session N` on a stored recap that is not the starred one said
    "stored at the last session's end" (also for a PreCompact recap) and that the preview
    is what the next start adds, and after `w` "for the next session", while
    session-start injected the newer session's recap."""
    import os

    from chunkscope.tui.cli.review import recap_list

    project, folder = claude_project(isolated, monkeypatch)
    old, new = folder / "old.jsonl", folder / "new.jsonl"
    for path, when in ((old, 1_000_000_000), (new, 1_100_000_000)):
        shutil.copyfile(POEMS, path)
        os.utime(path, (when, when))
    save_stored(build_recap(old, project, event="PreCompact", session_id="o").stored)
    save_stored(build_recap(new, project, event="SessionEnd", session_id="n").stored)
    listed = recap_list(str(project)).splitlines()
    assert listed[0].startswith("*") and listed[0].endswith("new.jsonl")
    assert listed[1].endswith("old.jsonl") and "PreCompact" in listed[1]

    app = ChunkscopeApp(review_options(str(project), session=2))
    notes = _noted(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.selection is not None and app.workers_idle(), 60)
        await until(pilot, lambda: any("Reviewing" in n for n in notes))
        bench = app.workbench
        assert bench is not None
        said = next(n for n in notes if "Reviewing" in n)
        assert "stored by the PreCompact hook" in said and "last session's end" not in said
        assert "The next session start injects the recap of new.jsonl, not this one" in said
        title = str(bench.query_one("#recap-preview-title").render())
        assert "not injected next" in title
        await pilot.press("w")
        await until(pilot, lambda: any(n.startswith("Wrote") for n in notes))
    wrote = next(n for n in notes if n.startswith("Wrote"))
    assert "the next session start injects the recap of new.jsonl, not this one" in wrote
    assert "for the next session" not in wrote
    # What the hook really does: the newer session's recap, as both messages said.
    context = _session_start(project, folder, monkeypatch, capsys)
    assert "new.jsonl" in context.splitlines()[0] and "old.jsonl" not in context.splitlines()[0]
    starred = [line for line in recap_list(str(project)).splitlines() if line.startswith("*")]
    assert len(starred) == 1 and starred[0].endswith("new.jsonl")


async def test_w_on_a_running_sessions_recap_keeps_it_running_and_the_star_where_it_was(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 15, 2: `w` in `review --session N` on a newer, still running session's recap
    (stored by PreCompact) stored it as a "review", which counts as ended, so it took the
    star and the next session start injected it, though the notice said it would not."""
    import os

    from chunkscope.tui.cli.review import recap_list

    project, folder = claude_project(isolated, monkeypatch)
    ended, running = folder / "ended.jsonl", folder / "running.jsonl"
    for path, when in ((ended, 1_000_000_000), (running, 1_100_000_000)):
        shutil.copyfile(POEMS, path)
        os.utime(path, (when, when))
    save_stored(build_recap(ended, project, event="SessionEnd", session_id="e").stored)
    save_stored(build_recap(running, project, event="PreCompact", session_id="r").stored)
    listed = recap_list(str(project)).splitlines()
    assert listed[0].startswith(" ") and listed[0].endswith("running.jsonl")
    assert "PreCompact" in listed[0] and "running" in listed[0]
    assert listed[1].startswith("*") and listed[1].endswith("ended.jsonl")

    app = ChunkscopeApp(review_options(str(project), session=1))
    notes = _noted(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.selection is not None and app.workers_idle(), 60)
        await until(pilot, lambda: any("Reviewing" in n for n in notes))
        said = next(n for n in notes if "Reviewing" in n)
        assert "The next session start injects the recap of ended.jsonl, not this one" in said
        await pilot.press("w")
        await until(pilot, lambda: any(n.startswith("Wrote") for n in notes))
    wrote = next(n for n in notes if n.startswith("Wrote"))
    assert "the next session start injects the recap of ended.jsonl, not this one" in wrote
    saved = next(r for r in load_all(project) if r.transcript == str(running))
    assert saved.event == "PreCompact" and not saved.ended and saved.review is not None
    listed = recap_list(str(project)).splitlines()
    line = next(x for x in listed if x.endswith("running.jsonl"))
    assert line.startswith(" ") and "PreCompact" in line and "running" in line
    starred = [x for x in listed if x.startswith("*")]
    assert len(starred) == 1 and starred[0].endswith("ended.jsonl")
    first = _session_start(project, folder, monkeypatch, capsys).splitlines()[0]
    assert "ended.jsonl" in first and "running.jsonl" not in first


async def test_a_re_review_says_a_review_saved_the_stored_recap_again(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 15's leftover: `w` keeps the event of the hook that stored a recap (so the
    star stays where it was), and a second review then said only "stored by the
    PreCompact hook", as if no one had reviewed it: it says when a review saved it."""
    import dataclasses
    import os

    from chunkscope.engine.inject.recaps import Review
    from chunkscope.tui.workbench.review import stored_by

    project, folder = claude_project(isolated, monkeypatch)
    session = folder / "s.jsonl"
    shutil.copyfile(POEMS, session)
    os.utime(session, (1_000_000_000, 1_000_000_000))
    stored = build_recap(session, project, event="PreCompact", session_id="s").stored
    at = "2026-11-28T01:02:03Z"
    save_stored(dataclasses.replace(stored, review=Review(budget=900, at=at)))

    options = review_options(str(project))
    assert options.review is not None and options.review.reviewed_at == at
    assert options.review.event == "PreCompact"
    app = ChunkscopeApp(options)
    notes = _noted(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any("Reviewing" in n for n in notes), 60)
    said = next(n for n in notes if "Reviewing" in n)
    assert (
        "(stored by the PreCompact hook, saved again by a review at 2026-11-28 01:02:03 UTC)"
        in said
    )
    # A recap a review stored first says so once, with the time.
    assert stored_by("review", at) == "saved by an earlier review at 2026-11-28 01:02:03 UTC"
    assert stored_by("SessionEnd") == "stored by the SessionEnd hook"
