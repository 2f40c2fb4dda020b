"""Walk 39: the palette's Screenshot is saved somewhere that exists and says where, or
why not as every write of the workbench says it (F2); a compare column's strip keeps its
run's numbers when its settings change, and names them as its sliders do (F4)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.app import ChunkscopeApp
from tests.pilot import SIZE, make_app, palette_listed, recording_notifications, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

NARROW = (100, 30)


def _no_downloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home without a Downloads folder (as root's here); the home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DOWNLOAD_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


async def _palette_screenshot(pilot: object, app: object) -> None:
    await pilot.press("ctrl+p")  # type: ignore[attr-defined]
    await pilot.press(*"Screenshot")  # type: ignore[attr-defined]
    await until(pilot, lambda: palette_listed(app))  # type: ignore[arg-type]
    await pilot.press("enter")  # type: ignore[attr-defined]


async def test_a_screenshot_without_downloads_is_saved_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 39, F2: without ~/Downloads the palette's Screenshot said `Failed to save
    screenshot`, neither where nor why. It is saved in the current folder, and said."""
    home = _no_downloads(tmp_path, monkeypatch)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        await _palette_screenshot(pilot, app)
        await until(pilot, lambda: bool(shown))
        [shot] = list(here.glob("*.svg"))
        assert shot.read_text(encoding="utf-8").lstrip().startswith("<svg")
        assert shown == [f"Wrote the screenshot to {shot}."]
        assert not (home / "Downloads").exists()
        assert [p.name for p in here.iterdir()] == [shot.name]  # no temp file left


async def test_a_screenshot_with_downloads_is_saved_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _no_downloads(tmp_path, monkeypatch)
    (home / "Downloads").mkdir()
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        app.deliver_screenshot("shot.svg")
        await until(pilot, lambda: bool(shown))
        assert shown == [f"Wrote the screenshot to {home / 'Downloads' / 'shot.svg'}."]
        assert (home / "Downloads" / "shot.svg").read_text().lstrip().startswith("<svg")


async def test_a_screenshot_that_cannot_be_written_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A screenshot that cannot be written says `cannot write PATH: reason`, as every
    write of the workbench does (`engine.fileio.cannot_write`), and the app goes on: the
    current folder removed (no ~/Downloads), a folder given that does not exist."""
    _no_downloads(tmp_path, monkeypatch)
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        os.rmdir(gone)
        await _palette_screenshot(pilot, app)
        await until(pilot, lambda: bool(shown))
        assert shown[0].startswith("cannot write chunkscope_")
        assert shown[0].endswith(".svg: No such file or directory")
        missing = tmp_path / "missing"
        app.action_screenshot("shot.svg", str(missing))
        await until(pilot, lambda: len(shown) == 2)
        assert shown[1] == f"cannot write {missing / 'shot.svg'}: No such file or directory"
        assert app.is_running and app.workbench is app.screen


async def _columns_run(pilot: Any, app: ChunkscopeApp) -> None:
    await until(
        pilot,
        lambda: (
            app.workers_idle()
            and all(app.column_result(side) is not None for side in ("left", "right"))
        ),
    )
    await pilot.pause()


def _strip_titles(app: ChunkscopeApp) -> tuple[str, str]:
    bench = app.workbench
    assert bench is not None
    return (
        str(bench.query_one("#strip-left").border_title),
        str(bench.query_one("#strip-right").border_title),
    )


@pytest.mark.parametrize("size", [NARROW, SIZE])
async def test_a_compare_columns_strip_keeps_its_numbers_and_names_settings_as_sliders(
    size: tuple[int, int],
) -> None:
    """Walk 39, F4: two merge:topic columns, LEFT's min size moved (then its max chars):
    LEFT's strip title became ``merge:topic topic_min_chars=5000`` (then ``merge:topic
    max_chunk_chars=256 topic_min_c…``), its depth and cut count gone and the settings
    named as the engine names them, while RIGHT's kept ``depth ≥ 7.00 · 135 cuts``. The
    title keeps the run's numbers, gives up the settings first, and names a setting as
    its slider does."""
    from chunkscope.tui.widgets.strategy_panel import StrategyPanel

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        app.set_column_strategy("left", "merge:topic")
        app.set_column_strategy("right", "merge:topic")
        await _columns_run(pilot, app)
        panel = app.screen.query_one(StrategyPanel)
        slider = panel.slider_for("left", "topic_min_chars")
        assert slider is not None and slider.label == "min size"
        slider.focus()
        for _ in range(30):  # as the walk did it: 500 -> 5000, the slider's end
            await pilot.press("shift+right")
        await _columns_run(pilot, app)
        spec = app.column_specs["left"]
        assert spec is not None and spec.value("topic_min_chars") == 5000
        app.set_column_param("left", "max_chunk_chars", 256)
        await _columns_run(pilot, app)
        left, right = _strip_titles(app)
        for title in (left, right):
            assert title.startswith("merge:topic"), title
            assert "depth ≥" in title and " cuts" in title, title
        assert "topic_min_chars" not in left and "max_chunk_chars" not in left
        strip = app.screen.query_one("#strip-left")
        assert "…" not in left and len(left) <= strip.outer_size.width - 6  # fitted, not cut
        cuts = len(app.column_result("left").chunks) - 1  # type: ignore[union-attr]
        assert left.endswith(f"· {cuts} cuts")
        # the settings, where a title has room for them, as the sliders name and show them
        # (the min size kept within the size cap: 250)
        spec = app.column_specs["left"]
        assert spec is not None
        named = [
            f"{panel.slider_for('left', key).label} {value}"  # type: ignore[union-attr]
            for key, value in (("topic_min_chars", 250), ("max_chunk_chars", 256))
        ]
        assert spec.label() == f"merge:topic {', '.join(named)}"
        column = str(app.screen.query_one("#before-col").border_title)
        assert "topic_min_chars" not in column and "max_chunk_chars" not in column, column


def test_a_title_gives_up_its_settings_before_its_numbers() -> None:
    from chunkscope.tui.widgets.panel_title import fit_title

    names = ["merge:topic min size 250", "merge:topic"]
    forms = ["mean 0.14 · depth ≥ 7.00 · 90 cuts", "depth ≥ 7.00 · 90 cuts", ""]
    assert fit_title(names, forms, 80) == "merge:topic min size 250  " + forms[0]
    assert fit_title(names, forms, 50) == "merge:topic  " + forms[0]
    assert fit_title(names, forms, 40) == "merge:topic  " + forms[1]
    assert fit_title(names, forms, 5) == "merge:topic"
