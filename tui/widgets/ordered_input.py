"""An input field that edits in the order the keys were typed."""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import Input

from chunkscope.tui.keys import HeldKey, KeyHolder, leaving

#: Seconds a field waits for its screen's answer to an Enter before it lets the keys
#: typed after it go on anyway (a screen that never answers must not swallow them).
ANSWER_WAIT = 2.0


class OrderedInput(Input):
    """An input that runs its own key bindings (backspace, delete, arrows, home, end,
    enter) as the key arrives, in order with the characters typed. Plain Textual resolves
    bindings only once the unhandled key has bubbled back to the app, so in a burst of
    keys (a paste-like ``tmux send-keys``, a fast typist) ``⌫ ⌫ 1 5`` became ``1 5 ⌫ ⌫``
    (the budget prompt), and ``castlx ⌫ ing`` searched ``castlxin`` (walk 23, F1: the
    search field and the picker's path field).

    In a dialog that may close on the field's Enter (`holds_after_enter`), the keys typed
    after the Enter wait for the dialog's answer: they were already on their way to this
    field, and went into it as text while the dialog closed, lost with it (walk 62, F3:
    ``b ^U 500 ⏎ b ^U 800 ⏎`` set 500 and dropped the second command). The app holds the
    keys typed from the Enter on (`KeyHolder.hold_keys`); once the dialog has answered
    (`answered`, which `LateCallbacks` calls after its ``on_input_submitted``) the field
    hands its own back, ahead of those, and the app sends them all where they belong
    then: this field if the dialog stays open (a path it refused), the screen under it
    if it closed, a dialog it opened."""

    #: whether the dialog may close on this field's Enter (see the class doc)
    holds_after_enter: ClassVar[bool] = False
    #: the keys that reached the field after its Enter, until its screen answers (None:
    #: no Enter waiting for an answer)
    _after_enter: list[HeldKey] | None = None

    #: the timer that lets the keys go on if the screen never answers
    _answer_timer: Timer | None = None

    async def _on_key(self, event: events.Key) -> None:
        if self.take_key(event):
            return
        if event.key not in _field_keys(type(self)):
            return  # a key the field does not edit with (↓, page down) goes on up
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            event.prevent_default()  # not Input._on_key: this key is done
            event.stop()
            await self.run_bound(binding.action)
            return

    def take_key(self, event: events.Key) -> bool:
        """Keep `event` for after the answer to the field's Enter (or hand it back to the
        app when its dialog is closing): whether it was taken. A screen that passes the
        field keys typed ahead of its focus (the picker) asks this first."""
        if self._after_enter is None and not leaving(self.screen):
            return False
        event.prevent_default()  # typed after the Enter: not this field's text yet
        event.stop()
        key = (event.key, event.character)
        if self._after_enter is not None:
            self._after_enter.append(key)
        elif isinstance(self.app, KeyHolder):  # its dialog is closing: not for it
            self.app.hand_back_keys([key])
        return True

    async def run_bound(self, action: str) -> None:
        """Run the field's bound `action` (an edit, or ``submit``: the Enter, whose
        answer the keys after it wait for when `holds_after_enter`)."""
        if action == "submit" and self.holds_after_enter and isinstance(self.app, KeyHolder):
            self._after_enter = []
            self.app.hold_keys()
            self._answer_timer = self.set_timer(ANSWER_WAIT, self.answered)
        await self.run_action(action)

    def answered(self) -> None:
        """The screen has answered the field's Enter: the keys the field took since go
        back to the app, ahead of the keys it held (see the class doc)."""
        if self._answer_timer is not None:
            self._answer_timer.stop()
            self._answer_timer = None
        keys, self._after_enter = self._after_enter, None
        if keys is not None and isinstance(self.app, KeyHolder):
            self.app.hand_back_keys(keys)


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
