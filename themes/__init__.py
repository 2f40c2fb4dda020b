"""The workbench's themes: the built-in ones and user theme files.

Usage in the app::

    from chunkscope.themes import BUILTIN_THEMES, DEFAULT_THEME, load_user_themes, variable_defaults

    class Workbench(App):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return variable_defaults(self.current_theme.dark)

        def on_mount(self) -> None:
            for theme in BUILTIN_THEMES:
                self.register_theme(theme)
            user, errors = load_user_themes()
            for theme in user:
                self.register_theme(theme)
            if errors:
                self.notify("\\n".join(errors), title="Theme files skipped", severity="warning")
            self.theme = settings.theme  # falls back to DEFAULT_THEME if unknown

A user theme is one TOML file in ``user_themes_dir()`` (``<user data dir>/themes``; the
environment variable ``CHUNKSCOPE_DATA_DIR`` replaces the user data dir)::

    name = "solarized-ish"          # optional, defaults to the file's stem
    primary = "#268bd2"             # required
    accent = "#b58900"              # optional: secondary warning error success accent
    background = "#002b36"          #   foreground background surface panel boost
    dark = true                     # optional, default true

    [variables]                     # optional, e.g. the chunk band colours
    band-0 = "#268bd2"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from chunkscope.engine.read.source import HEAD_BYTES, binary_reason
from chunkscope.themes.builtin import (
    BAND_COUNT,
    BUILTIN_THEMES,
    CHUNKSCOPE_CONTRAST,
    CHUNKSCOPE_DARK,
    CHUNKSCOPE_LIGHT,
    DEFAULT_THEME,
    TEXT_CONTRAST,
    band_colors,
    contrast_ratio,
    readable,
    readable_highlight,
    variable_defaults,
)

__all__ = [
    "BAND_COUNT",
    "BUILTIN_THEMES",
    "CHUNKSCOPE_CONTRAST",
    "CHUNKSCOPE_DARK",
    "CHUNKSCOPE_LIGHT",
    "DEFAULT_THEME",
    "TEXT_CONTRAST",
    "band_colors",
    "contrast_ratio",
    "drawable",
    "load_user_themes",
    "readable",
    "readable_highlight",
    "theme_names",
    "user_themes_dir",
    "variable_defaults",
]


_COLOUR_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_FLOAT_KEYS = ("luminosity_spread", "text_alpha")
_KNOWN_KEYS = {"name", "dark", "variables", *_COLOUR_KEYS, *_FLOAT_KEYS}


def user_themes_dir() -> Path:
    """Where user theme files live: ``$CHUNKSCOPE_DATA_DIR/themes`` or the platform's."""
    from chunkscope.engine.paths import data_dir

    return data_dir() / "themes"


class _ThemeFileError(Exception):
    pass


def _colour(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _ThemeFileError(f"'{key}' must be a colour string, got {value!r}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise _ThemeFileError(f"'{key}' is not a colour: {value!r}") from None
    return value


_TEXT_STYLES = {"none", "bold", "italic", "underline", "reverse", "strike", "dim", "not"}


def _check_variable(key: str, value: str) -> None:
    """Variables are colours (optionally ``"#hex 40%"``), or text styles for ``*-text-style``.

    Checked here so that a bad value is a reported file error, not a CSS error that
    stops the app when the theme is chosen.
    """
    if key.endswith("text-style"):
        words = value.split()
        if not words or any(w not in _TEXT_STYLES for w in words):
            raise _ThemeFileError(f"'variables.{key}' is not a text style: {value!r}")
        return
    colour, _, alpha = value.strip().partition(" ")
    if alpha and not (alpha.endswith("%") and alpha[:-1].replace(".", "", 1).isdigit()):
        raise _ThemeFileError(f"'variables.{key}' is not a colour: {value!r}")
    _colour(f"variables.{key}", colour)


def _theme_from_table(data: dict[str, Any], stem: str) -> Theme:
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise _ThemeFileError(f"unknown key {unknown[0]!r}")
    if "primary" not in data:
        raise _ThemeFileError("missing 'primary'")
    name = data.get("name", stem)
    if not isinstance(name, str) or not name.strip():
        raise _ThemeFileError("'name' must be a non-empty string")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise _ThemeFileError(f"'dark' must be true or false, got {dark!r}")
    colours = {key: _colour(key, data[key]) for key in _COLOUR_KEYS if key in data}
    floats: dict[str, float] = {}
    for key in _FLOAT_KEYS:
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise _ThemeFileError(f"'{key}' must be a number, got {value!r}")
            floats[key] = float(value)
    raw_vars = data.get("variables", {})
    if not isinstance(raw_vars, dict):
        raise _ThemeFileError("'variables' must be a table")
    variables: dict[str, str] = {}
    for key, value in raw_vars.items():
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise _ThemeFileError(f"variable {key!r} must be a string, got {value!r}")
        variables[key] = str(value)
    for key, value in variables.items():
        _check_variable(key, value)
    # A user theme without band colours still gets bands that suit its darkness.
    variables = {**variable_defaults(dark), **variables}
    return Theme(
        name=name.strip(),
        primary=colours["primary"],
        secondary=colours.get("secondary"),
        warning=colours.get("warning"),
        error=colours.get("error"),
        success=colours.get("success"),
        accent=colours.get("accent"),
        foreground=colours.get("foreground"),
        background=colours.get("background"),
        surface=colours.get("surface"),
        panel=colours.get("panel"),
        boost=colours.get("boost"),
        dark=dark,
        luminosity_spread=floats.get("luminosity_spread", 0.15),
        text_alpha=floats.get("text_alpha", 0.95),
        variables=variables,
    )


def load_user_themes(directory: Path | None = None) -> tuple[list[Theme], list[str]]:
    """Read every ``*.toml`` theme file in `directory` (default: ``user_themes_dir()``).

    Returns the themes (in file name order) and one message per file that could not be
    used, e.g. ``"bad.toml: missing 'primary'"``. Never raises: a missing directory is no
    themes and no errors.
    """
    folder = user_themes_dir() if directory is None else Path(directory)
    themes: list[Theme] = []
    errors: list[str] = []
    try:
        files = sorted(p for p in folder.glob("*.toml") if p.is_file())
    except OSError as e:
        return [], [f"{folder}: {e.strerror or e}"]
    seen: dict[str, str] = {}
    for path in files:
        try:
            try:
                raw = path.read_bytes()
                # refused as every input is, in the same words (walk 23, F2)
                reason = binary_reason(raw[:HEAD_BYTES], "a theme file")
                if reason is not None:
                    raise _ThemeFileError(reason)
                data = tomllib.loads(raw.decode("utf-8"))
            except tomllib.TOMLDecodeError as e:
                raise _ThemeFileError(f"not valid TOML: {e}") from None
            except OSError as e:
                raise _ThemeFileError(f"cannot read: {e.strerror or e}") from None
            except UnicodeDecodeError:
                raise _ThemeFileError("not valid UTF-8") from None
            theme = _theme_from_table(data, path.stem)
            if theme.name in seen:
                raise _ThemeFileError(
                    f"theme {theme.name!r} is already defined in {seen[theme.name]}"
                )
            seen[theme.name] = path.name
            themes.append(theme)
        except _ThemeFileError as e:
            errors.append(f"{path.name}: {e}")
        except Exception as e:  # a theme file must never take the app down
            errors.append(f"{path.name}: {type(e).__name__}: {e}")
    return themes, errors


def drawable(theme: Theme) -> bool:
    """Whether the workbench can be drawn in `theme`: not in one of the terminal's own
    ANSI colours (Textual's ``ansi-dark``, ``ansi-light``), whose colours are names, not
    values, which the bands, badges and highlights cannot be computed from (switching to
    one ended the workbench, walk 14)."""
    return not theme.ansi


def theme_names() -> list[str]:
    """The themes the workbench may start in: ours, then the user's theme files' and
    Textual's drawable ones, by name (what ``--theme`` accepts)."""
    from textual.theme import BUILTIN_THEMES as TEXTUAL_THEMES

    ours = [t.name for t in BUILTIN_THEMES]
    user, _ = load_user_themes()
    others = {t.name for t in user} | {n for n, t in TEXTUAL_THEMES.items() if drawable(t)}
    return ours + sorted(others - set(ours))
