"""Pick a file to open: a directory tree at the current directory, the bundled sample
logs, or a typed path. Dismisses with the chosen path or None."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Label, OptionList
from textual.widgets.option_list import Option

from tui.samples import SAMPLE_SUFFIXES, sample_files


class LogTree(DirectoryTree):
    """A directory tree that shows folders and the files chunkscope can open."""

    def filter_paths(self, paths):  # type: ignore[no-untyped-def]
        return [
            p
            for p in paths
            if not p.name.startswith(".") and (p.is_dir() or p.suffix.lower() in SAMPLE_SUFFIXES)
        ]


class OpenFileScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    OpenFileScreen { align: center middle; }
    OpenFileScreen > Vertical {
        width: 90%; height: 85%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    OpenFileScreen Horizontal { height: 1fr; }
    OpenFileScreen LogTree { width: 3fr; border: round $panel; }
    OpenFileScreen #samples { width: 2fr; border: round $panel; }
    OpenFileScreen .hint { color: $text-muted; }
    """

    def __init__(self, start: str | Path = ".") -> None:
        super().__init__()
        self.start = Path(start)
        self.samples = sample_files()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Open a JSONL log or a markdown file", markup=False)
            with Horizontal():
                tree = LogTree(self.start, id="tree")
                tree.border_title = str(self.start.resolve())
                yield tree
                samples = OptionList(
                    *[Option(p.name, id=str(p)) for p in self.samples], id="samples"
                )
                samples.border_title = "sample logs"
                yield samples
            yield Input(placeholder="or type a path and press enter", id="path")
            yield Label("enter opens · tab switches · escape cancels", classes="hint")

    def on_mount(self) -> None:
        if not self.samples:
            self.query_one("#samples", OptionList).add_option(
                Option("(no bundled sample logs found)", disabled=True)
            )
        self.query_one("#tree", LogTree).focus()

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        self.dismiss(str(event.path))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            return
        path = Path(value).expanduser()
        if not path.is_file():
            self.notify(f"{value}: no such file", severity="error")
            return
        self.dismiss(str(path))

    def action_cancel(self) -> None:
        self.dismiss(None)
