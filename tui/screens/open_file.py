"""Pick a file to open: a directory tree, the sessions found below its folder (newest
first, with date, size, format and first user message), the bundled sample logs, or a
typed path. Dismisses with the chosen (path, session) or None."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Label, OptionList
from textual.widgets.option_list import Option

from chunkscope.engine.read.formats.base import SessionInfo
from chunkscope.engine.read.formats.folders import readable_name
from chunkscope.tui.cells import terminal_text
from chunkscope.tui.samples import sample_files

#: Session files looked at for the sessions list (the newest of the folder).
SESSIONS_LOOKED_AT = 200

Chosen = tuple[str, int | None]
"""A file and, for a file holding several sessions, which one."""


class LogTree(DirectoryTree):
    """A directory tree that shows folders and the files chunkscope can open."""

    def filter_paths(self, paths):  # type: ignore[no-untyped-def]
        return [
            p
            for p in paths
            if (not p.name.startswith(".") or ".aider.chat.history" in p.name)
            and (p.is_dir() or readable_name(p.name))
        ]


def session_label(s: SessionInfo) -> str:
    """``2025-09-01 10:00  12.3 KB  codex  fix the failing test``: the session's last
    time inside the file, or (marked ``~``) the file's modification time when it has
    none, which is also the order of the list."""
    import time

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.modified)) if s.modified else "-"
    when += "~" if s.timed_by == "mtime" else " "
    size = f"{s.size / 1024:,.1f} KB" if s.size < 1 << 20 else f"{s.size / (1 << 20):,.1f} MB"
    title = " ".join(terminal_text(s.label()).split())[:70]
    return f"{when}  {size:>9}  {s.format:<15} {title}"


class OpenFileScreen(ModalScreen[Chosen | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    OpenFileScreen { align: center middle; }
    OpenFileScreen > Vertical {
        width: 90%; height: 85%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    OpenFileScreen Horizontal { height: 1fr; }
    OpenFileScreen LogTree { width: 2fr; border: round $panel-border; }
    OpenFileScreen #sessions { width: 3fr; border: round $panel-border; }
    OpenFileScreen #samples { width: auto; max-width: 40; border: round $panel-border; }
    /* a file name on one row (cut at its end, never broken mid-word); the sessions'
       rows wrap between words, so their first message stays readable */
    OpenFileScreen #samples { text-wrap: nowrap; text-overflow: ellipsis; }
    OpenFileScreen .hint { color: $text-muted; }
    """

    def __init__(self, start: str | Path = ".") -> None:
        super().__init__()
        self.start = Path(start)
        self.samples = sample_files()
        self.sessions: list[SessionInfo] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Open an agent session log or a markdown file", markup=False)
            with Horizontal():
                tree = LogTree(self.start, id="tree")
                where = self.start.resolve()
                # The folder's name only under fixed timings (snapshots, demos).
                fixed = bool(getattr(self.app, "fixed_timings", False))
                tree.border_title = Text(where.name if fixed else str(where))
                yield tree
                sessions = OptionList(
                    Option("looking for sessions…", disabled=True), id="sessions", markup=False
                )
                sessions.border_title = "sessions here, newest first (~: file time)"
                yield sessions
                samples = OptionList(
                    *[Option(p.name, id=str(p)) for p in self.samples], id="samples", markup=False
                )
                samples.border_title = "sample logs"
                yield samples
            yield Input(
                placeholder="or type a path and press enter", id="path", select_on_focus=False
            )
            yield Label("type a path · enter opens · tab switches · escape cancels", classes="hint")

    def on_mount(self) -> None:
        if not self.samples:
            self.query_one("#samples", OptionList).add_option(
                Option("(no bundled sample logs found)", disabled=True)
            )
        self.query_one("#tree", LogTree).focus()
        self._find_sessions()

    def on_key(self, event: events.Key) -> None:
        """A character typed in a list starts a path: it goes to the path field (the
        lists take no text; space still opens a folder of the tree)."""
        field = self.query_one("#path", Input)
        if self.focused is field or not event.is_printable or event.character in (None, " "):
            return
        event.stop()
        event.prevent_default()
        field.focus()
        field.insert_text_at_cursor(event.character or "")

    @work(thread=True, exclusive=True, group="sessions", description="_find_sessions")
    def _find_sessions(self) -> None:
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.read.formats.folders import list_sessions

        try:
            found = list_sessions(self.start, limit=SESSIONS_LOOKED_AT)
        except (OSError, ChunkscopeError):
            found = []
        self.app.call_from_thread(self._show_sessions, found)

    def _show_sessions(self, found: list[SessionInfo]) -> None:
        self.sessions = found
        box = self.query_one("#sessions", OptionList)
        box.clear_options()
        if not found:
            box.add_option(Option("(no sessions in this folder)", disabled=True))
            return
        box.add_options(Option(session_label(s), id=f"session:{i}") for i, s in enumerate(found))
        box.highlighted = 0  # enter opens the newest at once

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        self.dismiss((str(event.path), None))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        value = event.option.id
        if value and value.startswith("session:"):
            chosen = self.sessions[int(value.split(":", 1)[1])]
            self.dismiss((chosen.path, chosen.index))
        elif value:
            self.dismiss((value, None))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            return
        path = Path(value).expanduser()
        if not path.is_file():
            self.notify(f"{value}: no such file", severity="error", markup=False)
            return
        self.dismiss((str(path), None))

    def action_cancel(self) -> None:
        self.dismiss(None)
