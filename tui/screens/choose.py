"""Choose one of a few named things (a profile, an export format); dismisses with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from chunkscope.tui.screens.late_callbacks import LateCallbacks

#: What the dialog says of its keys (the workbench's footer is hidden below a dialog).
CHOOSE_HINT = "↑ ↓ move · enter picks · escape cancels"


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

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, markup=False)
            yield OptionList(
                *[Option(label, id=value) for value, label in self.choices], markup=False
            )
            yield Static(self.hint, id="choose-hint", markup=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
