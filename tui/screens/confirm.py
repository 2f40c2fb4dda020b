"""A yes / no question in a modal dialog; dismisses with True or False."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from chunkscope.tui.screens.late_callbacks import LateCallbacks


class ConfirmScreen(LateCallbacks, ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "No"),
        Binding("y", "answer(True)", "Yes"),
        Binding("left", "move(-1)", "Previous button", show=False),
        Binding("right", "move(1)", "Next button", show=False),
    ]

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 70; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    ConfirmScreen #question { margin-bottom: 1; }
    ConfirmScreen #confirm-hint { color: $text-muted; margin-top: 1; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question", markup=False)
            with Horizontal():
                yield Button(self.no, id="no")
                yield Button(self.yes, id="yes", variant="warning")
            # the workbench's footer is hidden below a dialog: it says its own keys
            yield Static(
                f"y: {self.yes} · n or escape: {self.no} · ← → enter: the buttons",
                id="confirm-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    def action_move(self, step: int) -> None:
        """← / → : the focus to the button before / after (enter presses it); it stays
        on the first or last one."""
        buttons = list(self.query(Button))
        at = buttons.index(self.focused) if self.focused in buttons else 0
        buttons[max(0, min(len(buttons) - 1, at + step))].focus()
