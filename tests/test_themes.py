"""The built-in themes, band colours, and user theme files."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.color import Color, rgb_to_lab
from textual.widgets import Static

import chunkscope.themes
from chunkscope.themes import (
    BUILTIN_THEMES,
    DEFAULT_THEME,
    band_colors,
    load_user_themes,
    user_themes_dir,
    variable_defaults,
)


class BandApp(App[None]):
    CSS = """
    #band { color: $band-3; background: $background; }
    """

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return variable_defaults(self.current_theme.dark)

    def compose(self) -> ComposeResult:
        yield Static("▌ band", id="band")

    def on_mount(self) -> None:
        for theme in BUILTIN_THEMES:
            self.register_theme(theme)


def _delta_e(a: str, b: str) -> float:
    la, lb = rgb_to_lab(Color.parse(a)), rgb_to_lab(Color.parse(b))
    return float(((la.L - lb.L) ** 2 + (la.a - lb.a) ** 2 + (la.b - lb.b) ** 2) ** 0.5)


def _luminance(colour: str) -> float:
    c = Color.parse(colour)

    def channel(x: int) -> float:
        v = x / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)


def _contrast(a: str, b: str) -> float:
    lo, hi = sorted((_luminance(a), _luminance(b)))
    return (hi + 0.05) / (lo + 0.05)


def test_three_builtin_themes_with_the_expected_names() -> None:
    names = [t.name for t in BUILTIN_THEMES]
    assert names == ["chunkscope-dark", "chunkscope-light", "chunkscope-contrast"]
    assert DEFAULT_THEME == "chunkscope-dark"
    dark = {t.name: t.dark for t in BUILTIN_THEMES}
    assert dark == {"chunkscope-dark": True, "chunkscope-light": False, "chunkscope-contrast": True}


@pytest.mark.parametrize("theme", BUILTIN_THEMES, ids=lambda t: t.name)
async def test_each_builtin_theme_registers_and_activates(theme: chunkscope.themes.Theme) -> None:
    app = BandApp()
    async with app.run_test(size=(40, 5)) as pilot:
        app.theme = theme.name
        await pilot.pause()
        assert app.theme == theme.name
        assert app.current_theme is theme
        # The theme's own variables reach the CSS: $band-3 colours the static.
        band = app.query_one("#band", Static)
        assert band.styles.color == Color.parse(band_colors(theme)[3])
        assert app.theme_variables["band-0"] == band_colors(theme)[0]


async def test_band_variables_fall_back_under_textual_themes() -> None:
    app = BandApp()
    async with app.run_test(size=(40, 5)) as pilot:
        app.theme = "textual-light"
        await pilot.pause()
        band = app.query_one("#band", Static)
        assert band.styles.color == Color.parse(variable_defaults(dark=False)["band-3"])


@pytest.mark.parametrize("theme", BUILTIN_THEMES, ids=lambda t: t.name)
def test_band_colours_are_distinct_and_visible(theme: chunkscope.themes.Theme) -> None:
    bands = band_colors(theme)
    assert len(bands) == 8
    assert len({Color.parse(b).hex for b in bands}) == 8
    closest = min(_delta_e(a, b) for a, b in itertools.combinations(bands, 2))
    assert closest > 25, f"two bands of {theme.name} look alike (ΔE {closest:.1f})"
    for ground in (theme.background, theme.surface, theme.panel):
        assert ground is not None
        worst = min(_contrast(b, ground) for b in bands)
        assert worst >= 3.0, f"a band of {theme.name} is faint on {ground} ({worst:.2f})"


@pytest.mark.parametrize("theme", BUILTIN_THEMES, ids=lambda t: t.name)
def test_unfocused_borders_are_seen_on_the_background_and_surface(
    theme: chunkscope.themes.Theme,
) -> None:
    """Walk 7: the light theme's panel borders were 2.7:1 on white in 256 colours (the
    dark theme's 2.2:1, the contrast theme's 2.3:1): at least 3:1 in both depths."""
    from chunkscope.themes import contrast_ratio
    from chunkscope.themes.builtin import BORDER_CONTRAST

    border = Color.parse(theme.variables["panel-border"])
    for ground in (theme.background, theme.surface):
        assert ground is not None
        under = Color.parse(ground)
        worst = min(contrast_ratio(border, under), contrast_ratio(border, under, colours_256=True))
        assert worst >= BORDER_CONTRAST, (theme.name, ground, round(worst, 2))


@pytest.mark.parametrize("theme", BUILTIN_THEMES, ids=lambda t: t.name)
def test_the_colours_of_text_read_on_the_background_and_surface(
    theme: chunkscope.themes.Theme,
) -> None:
    """Each colour text is drawn in (cut lines: the warning; titles: the accent; ...)
    reads at 4.5:1 on the theme's background and surface, in 24-bit and 256 colours; the
    light theme's are derived from its palette (`with_legible_text`), kept where they read."""
    from chunkscope.themes import TEXT_CONTRAST, contrast_ratio
    from chunkscope.themes.builtin import CHUNKSCOPE_LIGHT_BASE, TEXT_ROLES

    for role in TEXT_ROLES:
        text = Color.parse(getattr(theme, role))
        for ground in (theme.background, theme.surface):
            assert ground is not None
            under = Color.parse(ground)
            worst = min(contrast_ratio(text, under), contrast_ratio(text, under, colours_256=True))
            assert worst >= TEXT_CONTRAST, (theme.name, role, ground, round(worst, 2))
        if theme.name == CHUNKSCOPE_LIGHT_BASE.name:  # only what did not read was changed
            base = getattr(CHUNKSCOPE_LIGHT_BASE, role)
            assert (getattr(theme, role) == base) == (role not in ("warning", "accent"))
            assert _delta_e(getattr(theme, role), base) < 15  # a shade of it, not another


def test_band_colors_fall_back_for_a_theme_without_bands() -> None:
    plain = chunkscope.themes.Theme(name="plain", primary="#123456", dark=False)
    assert band_colors(plain) == [variable_defaults(False)[f"band-{i}"] for i in range(8)]


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def test_user_themes_one_good_two_bad(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "good.toml",
        'name = "mine"\nprimary = "#268bd2"\nbackground = "#002b36"\ndark = true\n'
        '[variables]\nband-0 = "#ff0000"\nfooter-key-foreground = "#268bd2 80%"\n'
        'block-cursor-text-style = "bold underline"\n',
    )
    _write(tmp_path, "bad.toml", 'name = "broken"\naccent = "#ffffff"\n')
    _write(tmp_path, "worse.toml", 'primary = "#fff"\nname = \n')
    _write(tmp_path, "notes.txt", "not a theme")
    found, errors = load_user_themes(tmp_path)
    assert [t.name for t in found] == ["mine"]
    assert found[0].primary == "#268bd2"
    assert found[0].background == "#002b36"
    assert band_colors(found[0])[0] == "#ff0000"
    # Missing bands are filled in, so CSS using $band-N works under a user theme too.
    assert band_colors(found[0])[1] == variable_defaults(True)["band-1"]
    assert len(errors) == 2
    assert errors[0] == "bad.toml: missing 'primary'"
    assert errors[1].startswith("worse.toml: not valid TOML")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('primary = "blurple"\n', "'primary' is not a colour"),
        ('primary = "#fff"\ndark = "yes"\n', "'dark' must be true or false"),
        ('primary = "#fff"\nprimry = "#000"\n', "unknown key 'primry'"),
        ('primary = "#fff"\n[variables]\nband-2 = "nope"\n', "'variables.band-2' is not a colour"),
        ('primary = "#fff"\n[variables]\nx-background = "#fff 4x"\n', "'variables.x-background'"),
        ('primary = "#fff"\n[variables]\nblock-cursor-text-style = "loud"\n', "not a text style"),
    ],
)
def test_user_theme_errors_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    _write(tmp_path, "t.toml", text)
    found, errors = load_user_themes(tmp_path)
    assert found == []
    assert len(errors) == 1
    assert errors[0].startswith("t.toml: ")
    assert message in errors[0]


def test_user_theme_name_defaults_to_the_file_stem_and_duplicates_are_reported(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "a.toml", 'primary = "#abcdef"\ndark = false\n')
    _write(tmp_path, "b.toml", 'name = "a"\nprimary = "#fedcba"\n')
    found, errors = load_user_themes(tmp_path)
    assert [(t.name, t.dark) for t in found] == [("a", False)]
    assert errors == ["b.toml: theme 'a' is already defined in a.toml"]


def test_missing_directory_is_no_themes_and_no_errors(tmp_path: Path) -> None:
    assert load_user_themes(tmp_path / "nowhere") == ([], [])


def test_user_themes_dir_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path))
    assert user_themes_dir() == tmp_path / "themes"
    (tmp_path / "themes").mkdir()
    _write(tmp_path / "themes", "x.toml", 'primary = "#00ff00"\n')
    found, errors = load_user_themes()
    assert [t.name for t in found] == ["x"]
    assert errors == []


async def test_a_user_theme_activates_in_an_app(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "sea.toml",
        'name = "sea"\nprimary = "#0077be"\ndark = false\n[variables]\n'
        'footer-key-foreground = "#0077be 80%"\nblock-cursor-text-style = "bold underline"\n',
    )
    found, errors = load_user_themes(tmp_path)
    assert errors == []
    app = BandApp()
    async with app.run_test(size=(40, 5)) as pilot:
        app.register_theme(found[0])
        app.theme = "sea"
        await pilot.pause()
        band = app.query_one("#band", Static)
        assert band.styles.color == Color.parse(variable_defaults(False)["band-3"])


@given(
    st.tuples(*[st.integers(0, 255)] * 3),
    st.tuples(*[st.integers(0, 255)] * 3),
)
def test_readable_reaches_the_text_contrast_whenever_white_or_black_does(
    fg: tuple[int, int, int], bg: tuple[int, int, int]
) -> None:
    from chunkscope.themes import TEXT_CONTRAST, contrast_ratio, readable

    colour, ground = Color(*fg), Color(*bg)
    shown = readable(colour, ground)
    worst = min(contrast_ratio(shown, ground), contrast_ratio(shown, ground, colours_256=True))
    best_end = max(
        min(contrast_ratio(end, ground), contrast_ratio(end, ground, colours_256=True))
        for end in (Color(255, 255, 255), Color(0, 0, 0))
    )
    if best_end >= TEXT_CONTRAST:
        assert worst >= TEXT_CONTRAST
    already = min(contrast_ratio(colour, ground), contrast_ratio(colour, ground, colours_256=True))
    if already >= TEXT_CONTRAST:
        assert shown == colour  # a readable colour is left as it is
    assert abs(contrast_ratio(shown, ground) - _contrast(shown.hex, ground.hex)) < 1e-6
