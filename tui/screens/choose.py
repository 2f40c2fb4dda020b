"""Choose one of a few named things (a profile, an export format); dismisses with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from chunkscope.tui.keys import key_again
from chunkscope.tui.screens.late_callbacks import LateCallbacks

#: What the dialog says of its keys (the workbench's footer is hidden below a dialog).
CHOOSE_HINT = "↑ ↓ move · enter picks · escape cancels"
#: Seconds between looks, after a pick, for keys still on their way to the dialog.
_SETTLE = 0.02


class ChooseScreen(LateCallbacks, ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    ChooseScreen { align: center middle; }
    ChooseScreen > Vertical {
        width: 60; height: auto; max-height: 80%; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    ChooseScreen OptionList { height: auto; max-height: 20; }
    /* a long title (a file's name) wraps inside the dialog: it ran past its border */
    ChooseScreen > Vertical > Label { width: 100%; }
    ChooseScreen #choose-hint { color: $text-muted; margin-top: 1; }
    """

    def __init__(
        self, title: str, choices: Sequence[tuple[str, str]], *, hint: str = CHOOSE_HINT
    ) -> None:
        """`choices`: (value, label) pairs; `hint`: the keys, under the list."""
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.hint = hint
        #: The choice made (enter, a click), not yet dismissed; the keys typed after it.
        self._picked: str | None = None
        self._held: list[tuple[str, str | None]] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, markup=False)
            yield OptionList(
                *[Option(label, id=value) for value, label in self.choices], markup=False
            )
            yield Static(self.hint, id="choose-hint", markup=False)

    def on_key(self, event: events.Key) -> None:
        """Enter picks here, in order with the keys typed around it, and the keys typed
        after it are kept for the dialog the choice opens. A burst ``e ⏎ ⌫×30 PATH ⏎``
        (walk 19, 11) had its path keys queued for this list before the enter was acted
        on: they were lost, and the last enter picked a second time, closing the
        workbench under the dialog; the path prompt never opened."""
        if self._picked is not None:
            event.stop()
            event.prevent_default()
            self._held.append((event.key, event.character))
        elif event.key == "enter":
            event.stop()
            event.prevent_default()
            options = self.query_one(OptionList)
            self._picked = ""  # chosen: the keys after it are held from now on

            def pick() -> None:
                index = options.highlighted if options.highlighted is not None else 0
                self._pick(options.get_option_at_index(index).id)

            # once the list has moved for the keys typed before the enter (walk 22, F9:
            # in a burst `↓ ↓ ⏎` they were still queued for it, and the first was picked)
            options.call_later(pick)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self._picked is None:
            self._pick(event.option.id)

    def _pick(self, value: str | None) -> None:
        self._picked = value or ""
        self.set_timer(_SETTLE, self._finish)  # a timer: no refresh may come to run it

    def _finish(self) -> None:
        """Dismissed once the keys already typed have reached this dialog; they go on,
        in order, to the screen on top after the choice's callback has run."""
        pending = (self, *self.query(OptionList))
        if any(not pump._message_queue.empty() for pump in pending):
            self.set_timer(_SETTLE, self._finish)
            return
        requester = self._result_callbacks[-1].requester if self._result_callbacks else None
        held, self._held = self._held, []
        self.dismiss(self._picked or None)
        app = self.app

        def replay() -> None:
            take = getattr(app.screen, "take_keys", None)
            if take is not None:  # ahead of the keys that reached the dialog since
                take(held)
                return
            for key, character in held:
                app.post_message(key_again(app, key, character))

        (requester or app).call_next(replay)

    def action_cancel(self) -> None:
        self.dismiss(None)
