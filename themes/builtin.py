"""The app's own themes: a dark default, a light one and a high-contrast one.

Besides Textual's colour system each theme defines variables the workbench uses:

- ``band-0`` .. ``band-7``: the colours of merged-chunk bands. A merged chunk ``i`` is
  drawn in ``band-{i % 8}``; neighbours never share a colour, so a glance shows where one
  merged chunk ends and the next begins. The eight colours are chosen to stay apart from
  each other (hue and lightness) and to stand out from the theme's background and surface.
- ``sim-above`` / ``sim-below``: the similarity strip's bars above and below the threshold.
- ``cut``: markers of cuts between merged chunks on the similarity strip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.color import Color
from textual.theme import Theme

from chunkscope.engine.config.settings import THEME_NAMES

BAND_COUNT = 8

DARK_BANDS = (
    "#5aa9e6",  # blue
    "#f4a259",  # orange
    "#7bc96f",  # green
    "#e86a92",  # rose
    "#b79cff",  # lavender
    "#f2d15c",  # yellow
    "#3fc1b0",  # teal
    "#d4d8e0",  # silver
)

LIGHT_BANDS = (
    "#1f6fb2",  # blue
    "#d9600b",  # orange
    "#2e8b3a",  # green
    "#c2185b",  # crimson
    "#6a4fc4",  # violet
    "#9a7400",  # ochre
    "#00838f",  # teal
    "#5d4037",  # brown
)

CONTRAST_BANDS = (
    "#00e5ff",  # cyan
    "#ffea00",  # yellow
    "#ff4fd8",  # magenta
    "#4dff4d",  # green
    "#ff9100",  # orange
    "#a58bff",  # violet
    "#ffffff",  # white
    "#ff5252",  # red
)


def _band_variables(bands: tuple[str, ...]) -> dict[str, str]:
    return {f"band-{i}": colour for i, colour in enumerate(bands)}


#: The border of a panel without the focus, by darkness: at least `BORDER_CONTRAST` to
#: the background and the surface, in 24-bit and in 256 colours (Textual's
#: ``$panel-lighten-2`` of the light theme was white on its white surface; the greys
#: chosen before this were 2.2:1 and 2.6:1).
PANEL_BORDER = {True: "#606a7a", False: "#858d99"}
#: What a border needs to be seen against what it frames (WCAG's 3:1 for the outline of
#: a user-interface component).
BORDER_CONTRAST = 3.0

CHUNKSCOPE_DARK = Theme(
    name=THEME_NAMES[0],
    primary="#5aa9e6",
    secondary="#8b7fd1",
    accent="#f4a259",
    warning="#f2c14e",
    error="#ef6f6c",
    success="#7bc96f",
    foreground="#d8dee9",
    background="#12151b",
    surface="#191d25",
    panel="#232a36",
    dark=True,
    variables={
        **_band_variables(DARK_BANDS),
        "sim-above": "#7bc96f",
        "sim-below": "#ef6f6c",
        "cut": "#f4a259",
        "panel-border": PANEL_BORDER[True],
        "block-cursor-text-style": "none",
        "footer-key-foreground": "#f4a259",
        "input-selection-background": "#5aa9e6 35%",
    },
)

CHUNKSCOPE_LIGHT_BASE = Theme(
    name=THEME_NAMES[1],
    primary="#1f6fb2",
    secondary="#6a4fc4",
    accent="#d9600b",
    warning="#b7791f",
    error="#c62828",
    success="#2e7d32",
    foreground="#1f2430",
    background="#f7f8fa",
    surface="#ffffff",
    panel="#e6e9ef",
    dark=False,
    variables={
        **_band_variables(LIGHT_BANDS),
        "sim-above": "#2e7d32",
        "sim-below": "#c62828",
        "cut": "#d9600b",
        "panel-border": PANEL_BORDER[False],
        "block-cursor-text-style": "none",
        # white on the primary cursor: 5.1:1 (Textual's pick, #e1ecf4, was 4.4:1)
        "block-cursor-foreground": "#ffffff",
        "footer-key-foreground": "#b02a00",  # #d9600b was 2.7:1 on the footer in 256 colours
        "input-selection-background": "#1f6fb2 25%",
    },
)

CHUNKSCOPE_CONTRAST = Theme(
    name=THEME_NAMES[2],
    primary="#00e5ff",
    secondary="#a58bff",
    accent="#ffea00",
    warning="#ff9100",
    error="#ff5252",
    success="#4dff4d",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#1c1c1c",
    boost="#ffffff1f",
    dark=True,
    luminosity_spread=0.2,
    text_alpha=1.0,
    variables={
        **_band_variables(CONTRAST_BANDS),
        "sim-above": "#4dff4d",
        "sim-below": "#ff5252",
        "cut": "#ffea00",
        "panel-border": "#767676",
        "block-cursor-text-style": "bold",
        "footer-key-foreground": "#ffea00",
        "input-selection-background": "#00e5ff 40%",
    },
)


def variable_defaults(dark: bool = True) -> dict[str, str]:
    """Fallbacks for the app's own variables, for themes that do not define them.

    Return this from ``App.get_theme_variable_defaults`` (e.g. with
    ``variable_defaults(self.current_theme.dark)``) so that CSS using ``$band-3`` also
    parses under Textual's own themes (``nord``, ``textual-light``, ...).
    """
    bands = DARK_BANDS if dark else LIGHT_BANDS
    return {
        **_band_variables(bands),
        "sim-above": "#7bc96f" if dark else "#2e7d32",
        "sim-below": "#ef6f6c" if dark else "#c62828",
        "cut": "#f4a259" if dark else "#d9600b",
        "panel-border": PANEL_BORDER[dark],
    }


def band_colors(theme: Theme) -> list[str]:
    """The eight band colours of `theme` (its ``band-N`` variables, else the defaults)."""
    defaults = variable_defaults(theme.dark)
    return [theme.variables.get(f"band-{i}", defaults[f"band-{i}"]) for i in range(BAND_COUNT)]


#: The least contrast (WCAG 2) a line of text must have on its background.
TEXT_CONTRAST = 4.5


def _luminance(colour: Color) -> float:
    """WCAG 2's relative luminance of `colour`."""

    def channel(x: int) -> float:
        v = x / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast_ratio(a: Color, b: Color, *, colours_256: bool = False) -> float:
    """WCAG 2's contrast of `a` on `b` (1 to 21); `colours_256`: as a terminal of 256
    colours shows them (the nearest of its palette)."""
    if colours_256:
        a, b = (_as_256(c) for c in (a, b))
    lo, hi = sorted((_luminance(a), _luminance(b)))
    return (hi + 0.05) / (lo + 0.05)


def _as_256(colour: Color) -> Color:
    shown = RichColor.from_rgb(colour.r, colour.g, colour.b).downgrade(ColorSystem.EIGHT_BIT)
    return Color.from_rich_color(shown)


def _enough(text: Color, background: Color, minimum: float) -> bool:
    """`text` reaches `minimum` on `background` in 24-bit colour and in 256 colours."""
    return (
        min(contrast_ratio(text, background), contrast_ratio(text, background, colours_256=True))
        >= minimum
    )


def readable_highlight(
    text: Color, tint: Color, ground: Color, minimum: float = TEXT_CONTRAST
) -> tuple[Color, Color]:
    """(text, tint) of a highlight (the selected card's `tint` over `ground`) that can be
    read: the text made `readable` on the tint, else, when no text colour is (a bright
    tint, read in 256 colours), the tint faded toward `ground` as far as it takes."""
    shown = readable(text, tint, minimum)
    if _enough(shown, tint, minimum):
        return shown, tint
    for step in range(1, 11):
        faded = tint.blend(ground, step / 10)
        shown = readable(text, faded, minimum)
        if _enough(shown, faded, minimum):
            return shown, faded
    return shown, tint


def readable(colour: Color, background: Color, minimum: float = TEXT_CONTRAST) -> Color:
    """`colour`, moved toward white or black (whichever `background` sets off more) only as
    far as it takes to be read on `background`: a contrast of `minimum`, in 24-bit colour
    and in 256 colours. A role's badge on the selected card's tint keeps its hue."""

    def worst(c: Color) -> float:
        return min(contrast_ratio(c, background), contrast_ratio(c, background, colours_256=True))

    end = max((Color(255, 255, 255), Color(0, 0, 0)), key=worst)
    for step in range(21):
        moved = colour.blend(end, step / 20)
        if _enough(moved, background, minimum):
            return moved
    return end


#: A theme's colours that colour text: made `legible` by `with_legible_text`.
TEXT_ROLES = ("primary", "secondary", "accent", "warning", "error", "success")

#: Textual's muted foreground (slider labels; the tabs, app.tcss): its foreground at 60%.
MUTED_ALPHA = 0.6


def legible(colour: str, grounds: Sequence[str], minimum: float | None = None) -> str:
    """`colour` as text on each of `grounds`: itself when it reads on every one (a
    contrast of `minimum`, `TEXT_CONTRAST` by default, in 24-bit and in 256 colours),
    else the least shade of it toward black or white that does."""
    need = TEXT_CONTRAST if minimum is None else minimum
    text = Color.parse(colour)
    under = [Color.parse(g) for g in grounds]

    def reads(c: Color) -> bool:
        return all(_enough(c, g, need) for g in under)

    if reads(text):
        return colour

    def worst(c: Color) -> float:
        return min(min(contrast_ratio(c, g), contrast_ratio(c, g, colours_256=True)) for g in under)

    end = max((Color(255, 255, 255), Color(0, 0, 0)), key=worst)
    for step in range(1, 21):
        moved = text.blend(end, step / 20)
        if reads(moved):
            return moved.hex
    return end.hex


def with_legible_text(theme: Theme) -> Theme:
    """`theme` with the colours its text is drawn in (`TEXT_ROLES`, and the muted
    foreground) `legible` on the grounds the workbench draws most text on (its background
    and surface; a widget on its panel or a tint makes its own text `readable` there):
    each kept where it reads already, else derived from it. The light theme's warning
    (every cut line) was 3.3:1 on its surface in 256 colours."""
    grounds = [g for g in (theme.background, theme.surface) if g]
    changed: dict[str, str] = {}
    for role in TEXT_ROLES:
        colour = getattr(theme, role)
        if colour is not None and grounds:
            changed[role] = legible(colour, grounds)
    variables = dict(theme.variables)
    if theme.foreground and theme.background and "foreground-muted" not in variables:
        muted = Color.parse(theme.foreground).blend(Color.parse(theme.background), 1 - MUTED_ALPHA)
        shown = legible(muted.hex, grounds)
        if shown != muted.hex:  # else Textual's own (60% of the foreground) reads
            variables["foreground-muted"] = shown
    return replace(theme, **changed, variables=variables)  # type: ignore[arg-type]


CHUNKSCOPE_LIGHT = with_legible_text(CHUNKSCOPE_LIGHT_BASE)

BUILTIN_THEMES: list[Theme] = [CHUNKSCOPE_DARK, CHUNKSCOPE_LIGHT, CHUNKSCOPE_CONTRAST]
"""The app's themes, the default first."""

DEFAULT_THEME = CHUNKSCOPE_DARK.name
