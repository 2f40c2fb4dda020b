"""An input field that edits in the order the keys were typed."""

from __future__ import annotations

from functools import cache

from textual import events
from textual.binding import Binding
from textual.widgets import Input


class OrderedInput(Input):
    """An input that runs its own key bindings (backspace, delete, arrows, home, end,
    enter) as the key arrives, in order with the characters typed. Plain Textual resolves
    bindings only once the unhandled key has bubbled back to the app, so in a burst of
    keys (a paste-like ``tmux send-keys``, a fast typist) ``⌫ ⌫ 1 5`` became ``1 5 ⌫ ⌫``
    (the budget prompt), and ``castlx ⌫ ing`` searched ``castlxin`` (walk 23, F1: the
    search field and the picker's path field)."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key not in _field_keys(type(self)):
            return  # a key the field does not edit with (↓, page down) goes on up
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            event.prevent_default()  # not Input._on_key: this key is done
            event.stop()
            await self.run_action(binding.action)
            return


@cache
def _field_keys(cls: type[Input]) -> frozenset[str]:
    """The keys of the bindings `cls` and the input classes above it declare: the field's
    own. Not those it inherits as a scrolling widget (↑ ↓ page up, page down: ``scroll_down``
    took the Search panel's ↓ to its results, walk 45 F4), which bubble to its parents."""
    keys: set[str] = set()
    for klass in cls.__mro__:
        if isinstance(klass, type) and issubclass(klass, Input):
            for binding in klass.__dict__.get("BINDINGS", ()):
                if isinstance(binding, Binding):
                    keys.update(k.strip() for k in binding.key.split(","))
                elif isinstance(binding, tuple):
                    keys.update(k.strip() for k in str(binding[0]).split(","))
    return frozenset(keys)
