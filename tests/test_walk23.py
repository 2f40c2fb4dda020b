"""Walk 23's findings (a fresh review after walk 22's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pilot import SAMPLE, burst, make_app, picker_listed, settled, wait_for

pytestmark = pytest.mark.usefixtures("isolated")


#: Keys typed at once into the picker as it opens, and the path they leave.
TYPED_AHEAD = [
    (("a", "b", "c", "backspace", "d"), "abd"),
    (("a", "b", "c", "left", "d"), "abdc"),
    (("x", "y", "home", "z", "end", "w"), "zxyw"),
]


async def test_editing_keys_in_a_path_typed_ahead_of_the_field_are_kept() -> None:
    """F1: in the picker, `abc ⌫ d` typed at once (the tree has the focus) left `abc`:
    the ⌫ went to the tree, the d was lost. One workbench opens the picker afresh for
    each burst."""
    from textual.widgets import Input

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.screen
        for keys, typed in TYPED_AHEAD:
            await pilot.press("ctrl+o")
            picker = await picker_listed(pilot, app)
            field = picker.query_one("#path", Input)
            assert picker.focused is not field, keys
            field.value = ""
            burst(app, *keys)
            await wait_for(pilot, lambda f=field, t=typed: f.value == t, 5)
            await pilot.pause()
            assert field.value == typed, keys
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is bench, 5)
            assert app.screen is bench, keys


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


async def test_a_burst_in_the_search_field_edits_in_the_order_typed() -> None:
    """F1: `/`, then `castlx ⌫ ing` at once searched `castlxin`: Textual ran the ⌫ (a
    binding of the field) after the characters typed after it."""
    from chunkscope.tui.widgets.search_panel import QuestionField

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen.focused, QuestionField), 5)
        field = app.screen.focused
        assert isinstance(field, QuestionField)
        burst(app, *"cachx", "backspace", *"e ke", "left", "left", "delete", "y")
        await wait_for(pilot, lambda: field.value == "cache ye", 5)
        await pilot.pause()
        assert field.value == "cache ye"


def test_a_codex_shell_result_stored_as_json_says_its_exit_code(tmp_path: Path) -> None:
    """F3: a `shell` result written as ``{"output", "metadata": {"exit_code"}}`` read as
    its output alone (``1 failed, 3 passed``, no exit 1), and a failed command with no
    output (``grep -q``) gave no result turn at all."""
    import json

    from chunkscope.engine.read.parse import load

    def item(i: int, payload: dict[str, object]) -> dict[str, object]:
        ts = f"2025-06-01T10:00:0{i}.000Z"
        return {"timestamp": ts, "type": "response_item", "payload": payload}

    def run(i: int, argv: list[str], output: str, code: int) -> list[dict[str, object]]:
        call = {"type": "function_call", "name": "shell", "call_id": f"c{i}"}
        call["arguments"] = json.dumps({"command": argv})
        result = {"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.1}}
        out = {"type": "function_call_output", "call_id": f"c{i}", "output": json.dumps(result)}
        return [item(i, call), item(i, out)]

    user = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Test it"}],
    }
    records = [item(0, user), *run(1, ["pytest", "-q"], "1 failed, 3 passed", 1)]
    records += run(2, ["grep", "-q", "TODO", "a.py"], "", 1)
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    results = [t.text for t in load(path).turns if t.role == "Tool"]
    assert results == ["Exit code: 1\n1 failed, 3 passed", "Exit code: 1"]
