"""Ask for one line of text (a path, a profile name); dismisses with it or None."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from chunkscope.tui.keys import key_again
from chunkscope.tui.screens.late_callbacks import LateCallbacks
from chunkscope.tui.widgets.ordered_input import OrderedInput


class PromptInput(OrderedInput):
    """The prompt's field: keys in order (`OrderedInput`), and those typed before the
    prompt was ready wait for their turn; those typed after its Enter wait for the
    prompt's answer (`OrderedInput.holds_after_enter`)."""

    holds_after_enter = True

    async def _on_key(self, event: events.Key) -> None:
        screen = self.screen
        if (
            isinstance(screen, PromptScreen)
            and screen._early
            and not getattr(event, "_replayed", False)
        ):  # keys typed before this one wait for their turn
            event.prevent_default()
            event.stop()
            screen._early.append((event.key, event.character))


class PromptScreen(LateCallbacks, ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 80; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    PromptScreen #prompt-error { color: $error; height: auto; }
    PromptScreen #prompt-hint { color: $text-muted; }
    """

    def __init__(
        self,
        title: str,
        value: str = "",
        *,
        hint: str = "enter to accept · escape to cancel",
        validate: Callable[[str], str | None] | None = None,
        problem: str = "",
    ) -> None:
        """`problem`: what was wrong with `value` last time, under the field (a path
        that could not be written, asked again)."""
        super().__init__()
        self.problem = problem
        self.title_text = title
        self.value = value
        self.hint = hint
        self.validate_value = validate
        self._early: list[tuple[str, str | None]] = []  # keys before the field had focus

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, markup=False)
            yield PromptInput(self.value, id="prompt-input")
            yield Static(self.problem, id="prompt-error", markup=False)
            yield Static(self.hint, id="prompt-hint", markup=False)

    def on_key(self, event: events.Key) -> None:
        """A key that reached the dialog before its field had focus goes to the field
        (kept until the field is mounted, in the order typed)."""
        if self.focused is not None:
            return
        event.stop()
        event.prevent_default()
        self._early.append((event.key, event.character))
        if len(self._early) == 1:
            self.call_after_refresh(self._replay)

    def take_keys(self, keys: list[tuple[str, str | None]]) -> None:
        """Keys typed before the ones that reached this dialog (held by the dialog that
        opened it, `ChooseScreen`): they go to the field first."""
        if not keys:
            return
        self._early[:0] = keys
        if len(self._early) == len(keys):
            self.call_after_refresh(self._replay)

    def _replay(self) -> None:
        field = self.query_one("#prompt-input", Input)
        if not field.is_mounted:
            self.call_after_refresh(self._replay)
            return
        field.focus()
        early, self._early = self._early, []
        for key, character in early:
            again = key_again(self.app, key, character)
            again._replayed = True  # type: ignore[attr-defined]
            field.post_message(again)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            self.query_one("#prompt-error", Static).update("Type something, or escape to cancel.")
            return
        if self.validate_value is not None:
            problem = self.validate_value(value)
            if problem:
                self.query_one("#prompt-error", Static).update(problem)
                return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
