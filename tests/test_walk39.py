"""Walk 39: the palette's Screenshot is saved somewhere that exists and says where, or
why not as every write of the workbench says it (F2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.pilot import make_app, palette_listed, recording_notifications, settled, until

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
