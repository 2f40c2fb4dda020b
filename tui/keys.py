"""Keys typed once and sent again: a burst read ahead of the widget or dialog it was
meant for (the app's typed-ahead keys, the search field's keys behind an escape, a
choice's keys for the dialog it opens, a prompt's early keys)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from textual import events
from textual._context import NoActiveAppError
from textual.app import App
from textual.widget import Widget

#: A key as held: its name and the character it types (None for a key that types none).
HeldKey = tuple[str, str | None]


@runtime_checkable
class KeyHolder(Protocol):
    """An app that holds the keys typed while a dialog decides on its field's Enter, and
    takes back the keys the field received meanwhile (`OrderedInput`)."""

    def hold_keys(self) -> None:
        """Hold every key typed from now on, until `hand_back_keys`."""

    def hand_back_keys(self, keys: list[HeldKey]) -> None:
        """Take `keys` (typed before every key held since `hold_keys`) and send them all
        again, in order, where they belong once the screen on top is settled."""


def control_moved(widget: Widget) -> None:
    """Tell the app of `widget`, a control (a slider, a toggle), that it changed value: its
    message reaches the settings a moment later, after a key typed in the same burst (``→
    w``: walk 65, F1). A control outside a running app tells no one."""
    try:
        app = widget.app
    except NoActiveAppError:
        return
    note = getattr(app, "control_moved", None)
    if callable(note):
        note()


def leaving(screen: object) -> bool:
    """Whether `screen` is a dialog dismissed already, still on top until it is popped
    (the flag `LateCallbacks.dismiss` sets)."""
    return bool(getattr(screen, "leaving", False))


def key_again(app: App[Any], key: str, character: str | None) -> events.Key:
    """A new key event of `key` and `character`, sent by `app` as a key from the terminal
    is, to be posted where it belongs now."""
    again = events.Key(key, character)
    again.set_sender(app)
    return again
