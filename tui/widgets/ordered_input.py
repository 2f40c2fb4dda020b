"""An input field that edits in the order the keys were typed."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    """An input that runs its own key bindings (backspace, delete, arrows, home, end,
    enter) as the key arrives, in order with the characters typed. Plain Textual resolves
    bindings only once the unhandled key has bubbled back to the app, so in a burst of
    keys (a paste-like ``tmux send-keys``, a fast typist) ``⌫ ⌫ 1 5`` became ``1 5 ⌫ ⌫``
    (the budget prompt), and ``castlx ⌫ ing`` searched ``castlxin`` (walk 23, F1: the
    search field and the picker's path field)."""

    async def _on_key(self, event: events.Key) -> None:
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            event.prevent_default()  # not Input._on_key: this key is done
            event.stop()
            await self.run_action(binding.action)
            return
