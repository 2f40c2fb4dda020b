"""Progress of a file being opened; escape cancels the load."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static

from chunkscope.tui.screens.late_callbacks import LateCallbacks


class LoadingScreen(LateCallbacks, ModalScreen[None]):
    """Shown while a worker opens a file. Dismissed by the app when the load ends."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel load")]

    DEFAULT_CSS = """
    LoadingScreen { align: center middle; background: $background 40%; }
    LoadingScreen > Vertical {
        width: 72; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    LoadingScreen #loading-stage { color: $text-muted; }
    /* a long path on one row, cut with an ellipsis (it ran past the border) */
    LoadingScreen #loading-path { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    LoadingScreen ProgressBar { margin-top: 1; }
    """

    def __init__(self, path: str, *, on_drawn: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.path = path
        self._latest: tuple[str, int | None, int | None] = ("reading", None, None)
        self._on_drawn = on_drawn

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Opening {self.path}", markup=False, id="loading-path")
            yield Static(self._latest[0], id="loading-stage", markup=False)
            yield ProgressBar(total=None, show_eta=False, id="loading-bar")
            yield Static("escape cancels", id="loading-hint")

    def on_mount(self) -> None:
        self._show()
        if self._on_drawn is not None:
            self.call_after_refresh(self._on_drawn)

    def on_unmount(self) -> None:
        if self._on_drawn is not None:  # closed before it was drawn: nobody waits
            self._on_drawn()

    def set_stage(self, stage: str, done: int | None = None, total: int | None = None) -> None:
        """Show the load's current stage (remembered until the dialog is mounted)."""
        self._latest = (stage, done, total)
        if self.is_mounted:
            self._show()

    def _show(self) -> None:
        stage, done, total = self._latest
        try:
            label = self.query_one("#loading-stage", Static)
            bar = self.query_one(ProgressBar)
        except NoMatches:  # pushed but not composed yet: on_mount shows it
            return
        label.update(stage)
        if total:
            bar.update(total=total, progress=done or 0)
        else:
            bar.update(total=None)

    def action_cancel(self) -> None:
        self.app.cancel_load()  # type: ignore[attr-defined]
