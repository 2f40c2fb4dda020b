"""Walk 23's findings (a fresh review after walk 22's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

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
