"""Walk 20's findings (a fresh review of the workbench and the commands): each test fails
on the code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TabbedContent

from chunkscope.tui.widgets.merge_panel import MergePanel
from tests.pilot import SAMPLE, SIZE, burst, make_app, settled, wait_for

NARROW = (100, 30)

pytestmark = pytest.mark.usefixtures("isolated")


@pytest.mark.parametrize("size", [SIZE, NARROW], ids=["wide", "narrow"])
async def test_a_burst_of_arrows_moves_through_the_merge_controls_key_by_key(
    size: tuple[int, int],
) -> None:
    """F1: three ↓ typed at once moved the focus one control: each took its target from
    the focus, which `focus()` moves only later."""
    app = make_app(SAMPLE)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        panel = app.screen.query_one(MergePanel)
        controls = [w for w in app.screen.focus_chain if panel in w.ancestors]
        if not panel.region.height:  # narrow: the controls are a tab of their own
            app.screen.query_one(TabbedContent).active = "tab-merge"
            await pilot.pause()
            controls = [w for w in app.screen.focus_chain if panel in w.ancestors]
        assert len(controls) >= 4
        app.screen.set_focus(controls[0])
        await pilot.pause()
        burst(app, "down", "down", "down")
        await wait_for(pilot, lambda: app.screen.focused is controls[3], 3)
        await pilot.pause()
        assert app.screen.focused is controls[3]
        burst(app, "up", "up")
        await wait_for(pilot, lambda: app.screen.focused is controls[1], 3)
        await pilot.pause()
        assert app.screen.focused is controls[1]


@pytest.mark.parametrize(
    "argv",
    [
        ["search", str(SAMPLE), "--budget", "500", "sqlite cache"],
        ["search", str(SAMPLE.parent), "--latest", "sqlite cache"],
        ["search", "--budget", "500", str(SAMPLE), "sqlite cache"],
    ],
)
def test_the_question_may_come_after_the_options(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """F2: `search DIR --latest QUERY` was refused ("unrecognized arguments")."""
    from chunkscope.tui.cli import main

    assert main(argv) == 0
    assert "query: sqlite cache" in capsys.readouterr().out


def test_a_word_left_over_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from chunkscope.tui.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["search", str(SAMPLE), "sqlite", "cache"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "chunkscope: unrecognized arguments: cache (see --help)"
    )


def test_the_drawable_themes_follow_what_is_registered() -> None:
    """`available_themes` is built once per change (painting asks for it per widget):
    a theme registered or unregistered later is seen, a terminal-colour one never."""
    from textual.theme import Theme

    app = make_app(SAMPLE)
    before = app.available_themes
    assert "chunkscope-test" not in before and "ansi-dark" not in before
    app.register_theme(Theme(name="chunkscope-test", primary="#336699"))
    assert "chunkscope-test" in app.available_themes
    app.register_theme(Theme(name="chunkscope-ansi", primary="ansi_red", ansi=True))
    assert "chunkscope-ansi" not in app.available_themes
    app.unregister_theme("chunkscope-test")
    assert "chunkscope-test" not in app.available_themes


async def test_a_slider_step_too_big_to_sweep_keeps_saying_why_and_lays_nothing_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file over the sweep's limit: each slider step turned the panel to "computing"
    and back to "off", two layouts of the whole screen a step (every column painted
    again). The reason stays; the step's stats and score lay nothing out."""
    from textual.screen import Screen

    import chunkscope.tui.workbench.sweep as sweep
    from chunkscope.tui.widgets.sweep_panel import SweepPanel

    monkeypatch.setattr(sweep, "SWEEP_MAX_UNITS", 20)
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        panel = app.screen.query_one(SweepPanel)
        await wait_for(pilot, lambda: panel.reason is not None, 5)
        assert panel.reason is not None and "off above 20 units" in panel.reason
        app.screen.query_one("#topic-depth").focus()  # the footer's keys change: a layout
        await pilot.pause(0.3)
        shown: list[str] = []
        layouts: list[int] = []
        original = Screen._refresh_layout

        def counted(self: Screen, *args: object, **kwargs: object) -> None:
            layouts.append(1)
            original(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        watch = panel.update

        def update(content: object = "", *, layout: bool = True) -> None:
            shown.append(str(content))
            watch(content, layout=layout)  # type: ignore[arg-type]

        monkeypatch.setattr(panel, "update", update)
        for key in ("right", "right", "left"):
            generation = app.run_generation
            await pilot.press(key)
            await wait_for(pilot, lambda g=generation: app.drawn_generation > g, 10)
        await pilot.pause(0.5)
        assert panel.reason is not None and "off above 20 units" in panel.reason
        assert not [s for s in shown if "computing" in s]
        assert layouts == []


def _gzip_with_long_name(body: bytes) -> bytes:
    """A legal gzip file whose header names a 70,000-byte file (FNAME): its first 64 KiB
    decompress to nothing."""
    import struct
    import zlib

    pack = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = pack.compress(body) + pack.flush()
    header = bytes([0x1F, 0x8B, 8, 8, 0, 0, 0, 0, 0, 3]) + b"a" * 70_000 + b"\0"
    return header + deflated + struct.pack("<II", zlib.crc32(body), len(body) & 0xFFFFFFFF)


@pytest.mark.parametrize("command", ["chunk", "recap", "search"])
@pytest.mark.parametrize("kind", ["cut-short", "long-name"])
def test_a_gzip_file_whose_head_gives_nothing_is_judged_all_the_same(
    tmp_path: Path, command: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """F3: a gzip cut inside its header, or with a header field longer than the head the
    binary check reads, was read as markdown of U+FFFD (exit 0)."""
    import gzip

    from chunkscope.tui.cli import main

    program = bytes(range(256)) * 64 + b"\0" * 4096  # a binary file's bytes
    path = tmp_path / "data.md.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" if kind == "cut-short" else _gzip_with_long_name(program))
    if kind == "long-name":
        assert gzip.decompress(path.read_bytes()) == program  # a gzip file all the same
    argv = [command, str(path), *(["a question"] if command == "search" else [])]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    # (what a gzip file holds is said to be inside one: walk 26, F7)
    looks = (
        "looks like a gzip file that does not decompress"
        if kind == "cut-short"
        else "is gzip-compressed (decompress it first: gunzip -k); inside, it looks like a "
        "binary file"
    )
    assert err.startswith(f"chunkscope: {path}: {looks}"), err
    assert "\n" not in err


def test_a_gzip_file_with_a_long_header_but_text_inside_is_read(tmp_path: Path) -> None:
    from chunkscope.engine.read.source import read_head

    text = b"# Notes\n\nThe cache keeps its entries for a day.\n"
    path = tmp_path / "notes.md.gz"
    path.write_bytes(_gzip_with_long_name(text))
    assert read_head(path) == text
