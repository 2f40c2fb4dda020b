"""Walk 23's findings (a fresh review after walk 22's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pilot import SAMPLE, burst, make_app, picker_listed, settled, wait_for

pytestmark = pytest.mark.usefixtures("isolated")


@pytest.mark.parametrize(
    ("keys", "typed"),
    [
        (("a", "b", "c", "backspace", "d"), "abd"),
        (("a", "b", "c", "left", "d"), "abdc"),
        (("x", "y", "home", "z", "end", "w"), "zxyw"),
    ],
)
async def test_editing_keys_in_a_path_typed_ahead_of_the_field_are_kept(
    keys: tuple[str, ...], typed: str
) -> None:
    """F1: in the picker, `abc ⌫ d` typed at once (the tree has the focus) left `abc`:
    the ⌫ went to the tree, the d was lost."""
    from textual.widgets import Input

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+o")
        picker = await picker_listed(pilot, app)
        field = picker.query_one("#path", Input)
        assert picker.focused is not field
        field.value = ""
        burst(app, *keys)
        await wait_for(pilot, lambda: field.value == typed, 5)
        await pilot.pause()
        assert field.value == typed


def test_a_config_file_or_theme_file_that_is_not_text_says_what_it_looks_like(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F2: a binary config.toml or theme file said "not valid UTF-8", where every other
    input and side file says what it looks like."""
    from chunkscope.engine.config.settings import SettingsError, load_settings
    from chunkscope.themes import load_user_themes

    program = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8
    config = tmp_path / "config.toml"
    config.write_bytes(program)
    with pytest.raises(SettingsError) as refused:
        load_settings(config)
    assert str(refused.value).endswith(
        "looks like a binary file (NUL bytes at byte 7), not a config file"
    )
    themes = tmp_path / "data" / "themes"
    themes.mkdir(parents=True)
    (themes / "bin.toml").write_bytes(program)
    (themes / "u16.toml").write_bytes('name = "x"\n'.encode("utf-16"))
    _, errors = load_user_themes(themes)
    assert sorted(errors) == [
        "bin.toml: looks like a binary file (NUL bytes at byte 7), not a theme file",
        "u16.toml: looks like UTF-16 text, not UTF-8 (convert it: iconv -f UTF-16 -t UTF-8)",
    ]
