"""Keys typed once and sent again: a burst read ahead of the widget or dialog it was
meant for (the app's typed-ahead keys, the search field's keys behind an escape, a
choice's keys for the dialog it opens, a prompt's early keys)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App


def key_again(app: App[Any], key: str, character: str | None) -> events.Key:
    """A new key event of `key` and `character`, sent by `app` as a key from the terminal
    is, to be posted where it belongs now."""
    again = events.Key(key, character)
    again.set_sender(app)
    return again
