"""Pick a file to open: a directory tree, the sessions found below its folder (newest
first, with date, size, format and first user message), the bundled sample logs, or a
typed path. Dismisses with the chosen (path, session) or None."""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import DirectoryTree, Input, Label, OptionList
from textual.widgets.directory_tree import DirEntry
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode

from chunkscope.engine.paths import inside
from chunkscope.engine.read.formats.base import SessionInfo
from chunkscope.engine.read.formats.folders import readable_name
from chunkscope.engine.textutil import file_size, plural
from chunkscope.tui.cells import one_line_name, terminal_text
from chunkscope.tui.samples import sample_files
from chunkscope.tui.screens.late_callbacks import LateCallbacks
from chunkscope.tui.widgets.ordered_input import OrderedInput

#: Session files looked at for the sessions list (the newest of the folder).
SESSIONS_LOOKED_AT = 200

Chosen = tuple[str, int | None]
"""A file and, for a file holding several sessions, which one."""


class PathInput(OrderedInput):
    """The picker's path field: the keys typed after its Enter wait for the picker's
    answer (`OrderedInput.holds_after_enter`): the file opened, the folder gone into, or
    the path refused and the field kept."""

    holds_after_enter = True


class LogTree(DirectoryTree):
    """A directory tree that shows folders and the files chunkscope can open; given
    `confine` (what a server shows), only what is inside it once symlinks are resolved
    (`engine.paths.inside`): a link out of it is not shown, so neither listed nor opened."""

    def __init__(self, path: str | Path, *, confine: str | None = None, id: str | None = None):
        super().__init__(path, id=id)
        self.confine = confine
        #: The names of each folder shown, its rows cut knowing them (`_siblings`).
        self._sibling_names: dict[tuple[int, int, int], Siblings] = {}

    def filter_paths(self, paths):  # type: ignore[no-untyped-def]
        confine = self.confine
        return [
            p
            for p in paths
            if (not p.name.startswith(".") or ".aider.chat.history" in p.name)
            and (confine is None or inside(p, confine))  # before is_dir: no stat outside
            and (p.is_dir() or readable_name(p.name))
        ]

    def process_label(self, label: str | Text) -> Text:
        """A row's label: a file name as the sessions list shows it (`one_line_name`),
        so no name writes an escape sequence to the terminal or breaks the tree."""
        return super().process_label(one_line_name(label) if isinstance(label, str) else label)

    def _room(self, node: TreeNode[DirEntry]) -> int | None:
        """The cells a node's label has beside its guides, None before a layout."""
        width = self.scrollable_content_region.width
        if not self.is_mounted or width <= 0:
            return None
        depth = 0
        parent = node.parent
        while parent is not None:
            depth += 1
            parent = parent.parent
        if not self.show_root:
            depth -= 1
        return max(1, width - depth * self.guide_depth)

    def render_label(self, node: TreeNode[DirEntry], base_style: Style, style: Style) -> Text:
        """The label on one row: a name longer than the tree is wide is cut in its
        middle, as the sessions list cuts it (`cut_middle`: two names alike in their
        start stay told apart by their ends; alike in both, by where they differ, kept
        too: `Siblings`)."""
        label = super().render_label(node, base_style, style)
        room = self._room(node)
        if room is None or label.cell_len <= room:
            return label
        plain = label.plain
        name = str(node.label)
        start = plain.rfind(name) if name else -1
        if start < 0:  # no name found in it: its end cut
            label.truncate(room, overflow="ellipsis")
            return label
        end = start + len(name)
        prefix = label[:start]
        cells = room - prefix.cell_len - cell_len(plain[end:])
        spans = cut_spans(name, cells, self._siblings(node).focus(name, cells))
        if spans is None:
            return label
        # the ellipsis styled as the name is
        styles = [sp.style for sp in label.spans if sp.start <= start < sp.end]
        cut = prefix
        for at, (first, last) in enumerate(spans):
            if at:
                cut.append("…", styles[-1] if styles else None)
            if last > first:
                cut.append_text(label[start + first : start + last])
        cut.append_text(label[end:])
        return cut

    def _siblings(self, node: TreeNode[DirEntry]) -> Siblings:
        """The names of `node`'s folder, listed once for all its rows (again when the
        folder is listed again: its nodes are new)."""
        around = node.parent.children if node.parent is not None else [node]
        key = (node.parent.id if node.parent is not None else -1, len(around), around[0].id)
        found = self._sibling_names.get(key)
        if found is None:
            if len(self._sibling_names) >= 64:  # folders listed again, or closed
                self._sibling_names.clear()
            found = self._sibling_names[key] = Siblings(str(n.label) for n in around)
        return found


#: The title's cells a row keeps before the date's year and the size are left out.
TITLE_SOME = 12
#: The title's cells a row keeps before the format is shown: a first message says more
#: about a session than its reader's name.
TITLE_BEFORE_KIND = 32
#: The longest first message shown on a row, in cells, however wide the list.
TITLE_CELLS = 70
#: The most cells a list's name column takes: a longer name is cut in its middle.
NAME_CELLS = 44
#: The cells a name keeps before the date's year and the size are left out.
NAME_SOME = 28
#: The format's column: the longest reader name (``openai-messages``) and a space.
KIND_CELLS = 16


def _cut(text: str, cells: int) -> str:
    """`text` in at most `cells` cells: cut text ends with an ellipsis, right after the
    last whole character that fits (a wide one is never split into a space)."""
    if cells <= 0:
        return ""
    if cell_len(text) <= cells:
        return text
    return _start(text, cells - 1) + "…"


def _start(text: str, cells: int) -> str:
    """The whole characters `text` starts with, in at most `cells` cells."""
    used = 0
    for at, ch in enumerate(text):
        used += cell_len(ch)
        if used > cells:
            return text[:at]
    return text


def middle_parts(text: str, cells: int) -> tuple[int, int] | None:
    """Where `cut_middle` cuts `text` for `cells` cells: how many characters it keeps of
    its start and of its end (an ellipsis between them); None when it is whole."""
    if cell_len(text) <= cells:
        return None
    if cells <= 1:
        return 0, 0
    tail_cells = (cells - 1) // 2
    head = _start(text, cells - tail_cells - 1)
    return len(head), _end(text, tail_cells)


def _end(text: str, cells: int) -> int:
    """How many whole characters `text` ends with in at most `cells` cells."""
    tail, used = 0, 0
    for ch in reversed(text):
        if used + cell_len(ch) > cells:
            break
        tail, used = tail + 1, used + cell_len(ch)
    return tail


#: A name's separators: a cut that shows where two names differ starts at a word.
_SEPARATORS = "-_. "
#: The fewest cells a name is cut in three pieces in (its start, where it differs from
#: a name alike, its end): fewer, it is cut in its middle only.
APART_CELLS = 16


def cut_spans(text: str, cells: int, focus: int | None = None) -> list[tuple[int, int]] | None:
    """The stretches of `text` (start, end) kept when it is cut to `cells` cells, an
    ellipsis between two: its start and its end (`middle_parts`), or, when the character
    at `focus` (where it differs from a name alike, `apart_at`) would be cut out, its
    start, the words around that character and its end, each with some of the cells;
    None when it is whole."""
    parts = middle_parts(text, cells)
    if parts is None:
        return None
    head, tail = parts
    size = len(text)
    if focus is None or not head <= focus < size - tail or cells < APART_CELLS:
        return [(0, head), (size - tail, size)]
    quarter = (cells - 2) // 4
    head = len(_start(text, quarter))
    tail = _end(text, quarter)
    dot = text.rfind(".")
    if 0 < dot < size - tail and cell_len(text[dot:]) <= max(quarter + 1, cells // 3):
        # the extension whole
        tail = size - dot
    window = cells - 2 - cell_len(text[:head]) - cell_len(text[size - tail :])
    start = focus  # back to the word before the one it differs in
    lowest = max(head, focus - window // 2)
    while start > lowest and text[start - 1] in _SEPARATORS:
        start -= 1
    while start > lowest and text[start - 1] not in _SEPARATORS:
        start -= 1
    end = start + len(_start(text[start:], window))
    if end >= size - tail:  # it meets the end: the start has the cells left
        head = len(_start(text, cells - 1 - cell_len(text[start:])))
        return [(0, min(head, start)), (start, size)]
    if start <= head:  # it meets the start: the end has the cells left
        end = len(_start(text, cells - 1 - cell_len(text[size - tail :])))
        return [(0, end), (size - tail, size)]
    return [(0, head), (start, end), (size - tail, size)]


def cut_middle(text: str, cells: int, focus: int | None = None) -> str:
    """`text` in at most `cells` cells, cut in its middle (``stop-hook-unc…st-stop.jsonl``):
    two names alike in their start, such as a folder's sessions, stay told apart by their
    ends (the extension kept); given `focus`, the character where it differs from a name
    alike in its start and its end is kept too (``a-very-…number-1-with…in-it.jsonl``,
    `cut_spans`); wide characters are kept or left out whole."""
    if cells <= 0:
        return ""
    spans = cut_spans(text, cells, focus)
    if spans is None:
        return text
    return "…".join(text[start:end] for start, end in spans)


def apart_at(names: Iterable[str], cells: int) -> dict[str, int]:
    """For each of `names` that `cut_middle` cuts to `cells` cells as it cuts another,
    where it differs from the most alike of them (the longest start they share): the
    character `cut_middle` is then given to keep, so that rows of a list or a folder
    named ``…-number-1-with-many-words…`` and ``…-number-2-…`` are not drawn alike."""
    alike: dict[str, list[str]] = {}
    for name in set(names):
        alike.setdefault(cut_middle(name, cells), []).append(name)
    found: dict[str, int] = {}
    for group in alike.values():
        if len(group) < 2:
            continue
        group.sort()
        for at, name in enumerate(group):
            shared = max(
                _shared_start(name, group[other])
                for other in (at - 1, at + 1)
                if 0 <= other < len(group)
            )
            if shared < len(name):
                found[name] = shared
    return found


def _shared_start(one: str, other: str) -> int:
    """How many characters `one` and `other` start with alike."""
    shared = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        shared += 1
    return shared


class Siblings:
    """The names of one list or folder, and where each is cut when cut to a given width
    (`apart_at`): rows drawn one by one cut each name knowing the others."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        self._apart: dict[int, dict[str, int]] = {}

    def cut(self, name: str, cells: int) -> str:
        """`name` cut in at most `cells` cells, told apart from the other names."""
        return cut_middle(name, cells, self.focus(name, cells))

    def focus(self, name: str, cells: int) -> int | None:
        """Where `name` differs from a name it would be cut alike to (None: nowhere)."""
        if cell_len(name) <= cells:
            return None
        if cells not in self._apart:
            self._apart[cells] = apart_at(self.names, cells)
        return self._apart[cells].get(name)


def shown_name(s: SessionInfo) -> str:
    """The file name of `s` as a row of the sessions list shows it (`one_line_name`)."""
    return one_line_name(Path(s.path).name)


def session_label(
    s: SessionInfo,
    width: int | None = None,
    name_cells: int = 0,
    siblings: Siblings | None = None,
    name: str | None = None,
) -> str:
    """``2025-09-01 10:00  12.3 KB  codex  a1b2.jsonl  fix the failing test``: the
    session's file name and first message (or title), the session's last
    time inside the file, or (marked ``~``) the file's modification time when it has
    none, which is also the order of the list. Given a `width`, one line of at most
    that many cells, laid out alike for every row of a list whose names take at most
    `name_cells` (its longest, up to `NAME_CELLS`): the names in one column, given
    room first (`NAME_SOME` cells at least, and `TITLE_SOME` of the first message, else
    a narrow list says the date without its year, and no size); then the format where
    `TITLE_BEFORE_KIND` cells of the first message are left beside it (on every row or
    none), and the rest of the first message; a name longer than its room is cut in its
    middle (told apart from the list's other names, `siblings`), the first message at
    its end. `name`: the name shown, when not the file's (`twin_names`)."""
    import time

    stamp = time.localtime(s.modified) if s.modified else None
    mark = "~" if s.timed_by == "mtime" else " "
    when = (time.strftime("%Y-%m-%d %H:%M", stamp) if stamp else "-") + mark
    size = file_size(s.size)
    name = name or shown_name(s)
    kind = f"{s.format:<{KIND_CELLS - 1}} "
    title = " ".join(terminal_text(s.title).split())
    if title == name:
        title = ""
    if width is None:
        line = f"{when}  {size:>9}  {kind}{name}"
        return f"{line}  {_cut(title, TITLE_CELLS)}" if title else line
    column = min(name_cells or cell_len(name), NAME_CELLS)
    full = f"{when}  {size:>9}  "
    short = (time.strftime("%m-%d %H:%M", stamp) if stamp else "-") + mark + "  "
    some = TITLE_SOME + 2
    least = min(column, NAME_SOME)
    if cell_len(full) + KIND_CELLS + column + TITLE_BEFORE_KIND + 2 <= width:
        head = full + kind
    elif cell_len(full) + least + some <= width:
        head = full
    elif cell_len(short) + least + some <= width:  # some of the title before the year
        head = short
    elif cell_len(full) + least <= width:
        head = full
    else:
        head = short
    room = max(width - cell_len(head), 1)
    # a long name gives way (down to `NAME_SOME`) to some of the first message
    column = min(column, max(NAME_SOME, room - some))
    cells = min(column, room)
    shown = siblings.cut(name, cells) if siblings is not None else cut_middle(name, cells)
    line = head + shown
    rest = width - cell_len(line) - 2
    if not title or rest < 4:  # no room for a word of the title: the name alone
        return line
    pad = ""  # the titles in one column too where the list has room for some of each
    if width - cell_len(head) - column - 2 >= TITLE_SOME:
        pad = " " * max(0, column - cell_len(shown))
    return f"{line}{pad}  {_cut(title, min(TITLE_CELLS, rest - cell_len(pad)))}"


class SessionRow:
    """A row of the sessions list, laid out for the width it is drawn at (one line), its
    name in a column `name_cells` wide (the list's longest name), cut knowing the list's
    other names (`siblings`)."""

    def __init__(
        self,
        info: SessionInfo,
        name_cells: int = 0,
        siblings: Siblings | None = None,
        name: str | None = None,
    ) -> None:
        self.info = info
        self.name_cells = name_cells
        self.siblings = siblings
        self.name = name

    def __str__(self) -> str:
        return session_label(self.info, name=self.name)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = session_label(
            self.info, options.max_width, self.name_cells, self.siblings, name=self.name
        )
        yield Text(line, no_wrap=True)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, cell_len(str(self)))


def twin_names(listed: Sequence[SessionInfo], root: Path) -> dict[str, str]:
    """The name each listed file shows when another one listed has its name (a copy in
    `backup/`): its path from `root`, so the rows are told apart (walk 29, F3: twin rows
    said the same name, size and first words)."""
    seen = Counter(shown_name(s) for s in listed)
    out: dict[str, str] = {}
    for s in listed:
        if seen[shown_name(s)] > 1:
            path = Path(s.path)
            try:
                out[s.path] = one_line_name(str(path.relative_to(root)))
            except ValueError:
                out[s.path] = one_line_name(str(path))
    return out


#: Seconds of no key typed ahead of the path field before it takes the focus.
TYPED_AHEAD_PAUSE = 0.15


#: The most rows the sample logs' list takes (its border's two included).
_SAMPLES_MAX_ROWS = 9


def _samples_height(n: int) -> int:
    """The height of the sample logs' list of `n`: its rows and its border's two."""
    return max(3, min(n + 2, _SAMPLES_MAX_ROWS))


class OpenFileScreen(LateCallbacks, ModalScreen[Chosen | None]):
    _counts = ""  # "4 sessions · 2 documents", under the list once it is listed
    #: Escape closes the picker as it arrives, in order with the keys typed around it: a
    #: binding found only once the key had gone through the focused list and back came
    #: after the characters typed next, which the picker had put into its path field
    #: (``ctrl+o escape b 555 enter``, typed ahead of a picker slow to list a big folder,
    #: left it open with ``555`` typed; walk 16, 7). The keys after it go to the workbench.
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", priority=True)]

    DEFAULT_CSS = """
    OpenFileScreen { align: center middle; }
    OpenFileScreen > Vertical {
        width: 90%; height: 80%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    /* the tree over the sample logs, the sessions list beside them, the two rows high,
       taking the rest: a folder's long names and first messages have the width (tab
       goes from the tree to the list, then to the samples) */
    OpenFileScreen #picker-lists {
        height: 1fr; layout: grid; grid-size: 2 2; grid-columns: 1fr 3fr;
    }
    OpenFileScreen LogTree { height: 1fr; border: round $panel-border; }
    OpenFileScreen #sessions { height: 1fr; row-span: 2; border: round $panel-border; }
    OpenFileScreen #samples { border: round $panel-border; }  /* its height: `_samples_height` */
    /* a file name, a session on one row (cut at its end with an ellipsis, never
       broken mid-word: a session's row is laid out for its width, `SessionRow`) */
    OpenFileScreen OptionList { text-wrap: nowrap; text-overflow: ellipsis; }
    OpenFileScreen .hint { color: $text-muted; }
    /* the boxes' titles, the placeholder and a list's note in colours the themes keep
       legible (Textual's were 3.0-3.5:1 in the light theme, walk 9, 12) */
    OpenFileScreen LogTree, OpenFileScreen OptionList {
        border-title-color: $text; border-subtitle-color: $text-muted;
    }
    OpenFileScreen Input > .input--placeholder { color: $text-muted; }
    OpenFileScreen OptionList > .option-list--option-disabled { color: $text-muted; }
    /* a narrow terminal: the whole of it, so the sessions' first messages have room */
    OpenFileScreen.-narrow > Vertical { width: 100%; height: 100%; }
    /* a quarter of a wide one for the tree: its first messages have room to be read */
    OpenFileScreen.-narrow #picker-lists { grid-columns: 1fr 2fr; }
    """

    def __init__(
        self, start: str | Path = ".", typed: str = "", confine: str | None = None
    ) -> None:
        super().__init__()
        self.start = Path(start)
        #: What a server shows (`tui --confine`): the picker lists, reads and offers
        #: nothing outside it (no sample logs); a typed relative path is taken in the
        #: folder shown (`typed_path`), as it is when not served.
        self.confine = confine
        #: A path typed before (a file the workbench refused after the picker closed):
        #: it is back in the path field, focused, to be corrected.
        self.typed = typed
        self.samples = sample_files() if confine is None else []
        #: The folder's session logs with something to read, newest first (`is_session`:
        #: no markdown), its markdown documents, listed under them, and last, apart, the
        #: logs `--latest` passes over, with why (`set_apart`); `listed` once known.
        self.sessions: list[SessionInfo] = []
        self.documents: list[SessionInfo] = []
        self.unread: list[tuple[SessionInfo, str]] = []
        self.listed = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Open an agent session log or a markdown file", markup=False)
            with Container(id="picker-lists") as lists:
                # the samples' row as high as their list: an `auto` row took the height
                # of the sessions list spanning it, so a long one ran past the picker's
                # end, its last rows (nothing to read) never scrolled into view (walk 26, F4)
                height = _samples_height(len(self.samples))
                lists.styles.grid_rows = f"1fr {height}"
                where = self.start.resolve()
                # its root named ("." has no name)
                tree = LogTree(where, confine=self.confine, id="tree")
                tree.border_title = self._folder_title(where)
                yield tree
                sessions = OptionList(
                    Option("looking for sessions…", disabled=True), id="sessions", markup=False
                )
                sessions.border_title = "sessions, newest first (~: file time)"
                yield sessions
                samples = OptionList(
                    *[Option(p.name, id=str(p)) for p in self.samples], id="samples", markup=False
                )
                samples.border_title = "sample logs"
                samples.styles.height = height
                yield samples
            yield PathInput(
                placeholder="or type a path and press enter", id="path", select_on_focus=False
            )
            yield Label("type a path · enter opens · tab switches · escape cancels", classes="hint")

    def _folder_title(self, where: Path, width: int = 0) -> Text:
        """The tree's title: the folder shown (its name only under fixed timings, as
        snapshots and demos run), cut from its start to the tree's `width` (0: not laid
        out yet, whole) as the header cuts a path (``…/work/sample_logs``: the folder's
        own name kept; walk 12, 5)."""
        from chunkscope.tui.widgets.header_line import fit_path

        fixed = bool(getattr(self.app, "fixed_timings", False))
        title = one_line_name(where.name if fixed else str(where))
        return Text(fit_path(title, width - 6) if width > 12 else title)

    def on_resize(self) -> None:
        from chunkscope.tui.screens.workbench import NARROW_WIDTH

        self.set_class(self.app.size.width < NARROW_WIDTH, "-narrow")
        self.call_after_refresh(self._refit_folder_title)  # to the tree's width, laid out

    def _refit_folder_title(self) -> None:
        tree = next(iter(self.query("#tree").results(LogTree)), None)
        if tree is not None:
            tree.border_title = self._folder_title(Path(str(tree.path)), tree.size.width)

    def on_mount(self) -> None:
        self.on_resize()
        if not self.samples:
            none = "(not offered here)" if self.confine else "(no bundled sample logs found)"
            self.query_one("#samples", OptionList).add_option(Option(none, disabled=True))
        if self.typed:
            field = self.query_one("#path", Input)
            field.value = self.typed
            field.cursor_position = len(self.typed)
            field.focus()
        else:
            self.query_one("#tree", LogTree).focus()
        self._find_sessions()

    #: Whether characters typed in a list went to the path field and the field has not
    #: had the focus since: the keys typed after them, spaces too, are that path's.
    _typed_ahead = False
    #: Moves the focus to the path field once a path typed ahead of it pauses.
    _focus_later: Timer | None = None

    async def on_key(self, event: events.Key) -> None:
        """A character typed in a list starts a path: it goes to the path field (the
        lists take no text; space still opens a folder of the tree, unless it comes in a
        path typed ahead of the field's focus: ``my log.jsonl`` keeps its space). The
        keys after it that the field binds (⌫, ←, ⏎, ctrl+u ...) are the field's too.

        The focus moves to the field only once the typing pauses and the list has no key
        left to pass on: keys typed after a focus move go to the field at once while
        those the list still holds reach it later, so a path typed in one burst on a
        busy machine had a character moved to its end (walk 24, F9)."""
        field = self.query_one("#path", PathInput)
        if self.focused is field:
            return
        if field.take_key(event):  # typed after the path's Enter: for after its answer
            return
        if self._typed_ahead:
            bound = field._bindings.key_to_bindings.get(event.key, ())
            if bound:
                # an editing key in the path typed ahead (walk 23, F1: `abc ⌫ d` in one
                # burst left `abc`, the ⌫ taken by the tree, the d lost); its Enter
                # holds the keys after it as the field's own does (`run_bound`)
                event.stop()
                event.prevent_default()
                self._focus_when_quiet()
                await field.run_bound(bound[0].action)
                return
        if not event.is_printable or event.character is None:
            return
        if event.character == " " and not self._typed_ahead:
            return
        event.stop()
        event.prevent_default()
        self._typed_ahead = True
        field.insert_text_at_cursor(event.character)
        self._focus_when_quiet()

    def _focus_when_quiet(self) -> None:
        """Give the path field the focus `TYPED_AHEAD_PAUSE` seconds after the last key
        typed ahead of it, once the focused list holds no key (else a while later)."""
        if self._focus_later is not None:
            self._focus_later.stop()
        self._focus_later = self.set_timer(TYPED_AHEAD_PAUSE, self._focus_field)

    def _focus_field(self) -> None:
        self._focus_later = None
        if not self._typed_ahead or not self.is_attached:
            return
        holder = self.focused
        queue = getattr(holder, "_message_queue", None)
        if holder is not None and queue is not None and not queue.empty():
            self._focus_when_quiet()  # the list still holds keys: they come first
            return
        self.set_focus(self.query_one("#path", Input))

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A list given the focus after the path field had it takes keys as its own."""
        if event.widget is not self.query_one("#path", Input):
            self._typed_ahead = False

    @work(thread=True, exclusive=True, group="sessions", description="_find_sessions")
    def _find_sessions(self) -> None:
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.read.formats.folders import list_sessions, set_apart

        try:
            found = list_sessions(self.start, limit=SESSIONS_LOOKED_AT, confine=self.confine)
            parts = set_apart(found)  # reads a log without a first message: in this thread
        except (OSError, ChunkscopeError):
            parts = ([], [], [])
        self.app.call_from_thread(self._show_sessions, *parts)

    def _show_sessions(
        self,
        sessions: list[SessionInfo],
        documents: list[SessionInfo],
        unread: list[tuple[SessionInfo, str]],
    ) -> None:
        """The session logs, newest first, then the markdown documents under their own
        heading: a document is never counted, nor opened first, as a session; last, the
        logs with nothing to read (empty, blank, unreadable), each with why, not to be
        opened: the ones `--latest` passes over (`set_apart`)."""
        self.sessions, self.documents, self.unread = sessions, documents, unread
        try:
            box = self.query_one("#sessions", OptionList)
        except NoMatches:  # the picker closed (an escape typed ahead) while they were looked for
            return
        box.clear_options()
        found = [*sessions, *documents, *(s for s, _ in unread)]
        twins = twin_names(found, Path(self.start))
        names = max((cell_len(twins.get(s.path) or shown_name(s)) for s in found), default=0)
        siblings = Siblings(twins.get(s.path) or shown_name(s) for s in found)
        if self.sessions:
            box.add_options(
                Option(SessionRow(s, names, siblings, twins.get(s.path)), id=f"session:{i}")
                for i, s in enumerate(self.sessions)
            )
        else:
            box.add_option(Option("(no sessions in this folder)", disabled=True))
        if self.documents:
            box.add_option(None)
            box.add_option(Option(f"markdown documents ({len(self.documents)})", disabled=True))
            box.add_options(
                Option(SessionRow(s, names, siblings, twins.get(s.path)), id=f"document:{i}")
                for i, s in enumerate(self.documents)
            )
        if self.unread:
            box.add_option(None)
            box.add_option(Option(f"nothing to read ({len(self.unread)})", disabled=True))
            # reachable by the keys (walk 26, F4: at 100x30 they were below the last row
            # the list scrolled to): choosing one says why it is not opened
            box.add_options(
                Option(
                    SessionRow(
                        replace(s, title=f"({why.removeprefix('looks like ')})"),
                        names,
                        siblings,
                        twins.get(s.path),
                    ),
                    id=f"unread:{i}",
                )
                for i, (s, why) in enumerate(self.unread)
            )
        self._counts = plural(len(self.sessions), "session") + (
            f" · {plural(len(self.documents), 'document')}" if self.documents else ""
        )
        if self.unread:
            self._counts += f" · {len(self.unread)} with nothing to read"
        box.border_subtitle = Content(self._counts)
        if self.sessions or self.documents:
            box.highlighted = 0 if self.sessions else box.option_count - len(self.documents)
        self.listed = True

    def _row_info(self, option_id: str | None) -> SessionInfo | None:
        if not option_id or not option_id.startswith(("session:", "document:", "unread:")):
            return None
        kind, at = option_id.split(":", 1)
        if kind == "unread":
            return self.unread[int(at)][0]
        return (self.sessions if kind == "session" else self.documents)[int(at)]

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The highlighted row's file, under the list (rows show a date, a size and a first
        message: two sessions of one day, in subfolders, were told apart by nothing)."""
        if event.option_list.id != "sessions":
            return
        info = self._row_info(event.option.id)
        counts = self._counts
        if info is None:
            event.option_list.border_subtitle = Content(counts)
            return
        try:
            name = str(Path(info.path).resolve().relative_to(self.start.resolve()))
        except ValueError:
            name = info.path
        name = one_line_name(name)
        room = max(event.option_list.size.width - 6, 12)  # the border's corners and dashes
        if event.option.id and event.option.id.startswith("unread:"):
            # why it is not read, whole where the row's column cuts it (walk 45, F5: at
            # 100x30 the row said "(looks like a …")
            why = self.unread[int(event.option.id.split(":", 1)[1])][1]
            event.option_list.border_subtitle = Content(_cut(f"{name}: {why}", room))
            return
        # a file's name is data, never markup: a str border title is read as markup, and
        # a name like "[@click=app.quit]q.jsonl" quit the workbench when clicked (walk 16, 1)
        if cell_len(name) + 3 + cell_len(counts) <= room:
            event.option_list.border_subtitle = Content(f"{name} · {counts}")
            return
        if cell_len(name) > room:  # the end of a path says most: cut at its start
            name = "…" + name[-(room - 1) :]
        event.option_list.border_subtitle = Content(name)  # the counts give way to the name

    def _choose(self, path: str, session: int | None = None) -> None:
        """Dismiss with `path`, unless the workbench would refuse it (missing, a folder,
        unreadable, binary: `engine.read.source.check_text`): then say why and stay open,
        the path field focused and its text kept, so the user can correct it."""
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.paths import within
        from chunkscope.engine.read.source import check_text

        try:
            if self.confine is not None:  # refused before a byte of it is read
                within(path, self.confine)
            check_text(path)
        except ChunkscopeError as e:
            self.notify(str(e), severity="error", markup=False)
            self.query_one("#path", Input).focus()
            return
        self.dismiss((path, session))

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        self._choose(str(event.path))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        value = event.option.id
        if value and value.startswith("unread:"):  # not opened: why, and the picker stays
            from chunkscope.engine.read.formats.folders import nothing_to_read

            info, why = self.unread[int(value.split(":", 1)[1])]
            why = nothing_to_read(info, whole=True) or why  # with its advice (walk 28, F5)
            self.notify(f"{info.path}: {why}", severity="warning", markup=False)
            return
        chosen = self._row_info(value)
        if chosen is not None:
            self._choose(chosen.path, chosen.index)
        elif value:
            self._choose(value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A typed file is opened; a typed folder is gone into (as the command line takes
        a folder): its tree and its sessions shown, the field emptied for the next path."""
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.paths import within

        value = event.value.strip()
        if not value:
            return
        path = self.typed_path(value)
        if self.confine is not None:
            try:
                within(path, self.confine)  # no stat outside what is served
            except ChunkscopeError as e:
                self.notify(str(e), severity="error", markup=False)
                return
        if path.is_dir():
            self._go_into(path)
        else:
            self._choose(str(path))

    def typed_path(self, value: str) -> Path:
        """`value`, typed in the path field: a relative path is taken in the folder the
        picker shows (its title's), where the user sees the name, not in the folder the
        command was started from (walk 11, 9); served, the same, inside what is served.
        A path pasted as a shell would take it (a file dropped on the terminal, "Copy as
        path": quoted, or its spaces escaped) is taken as that shell would, when no file
        has the name as typed (walk 30, F5), there or not."""
        path = self._typed(value)
        if not self._exists(path):
            try:
                words = shlex.split(value)
            except ValueError:
                words = []
            if len(words) == 1 and words[0] != value:
                # as a shell takes it, there or not: what is said of it names that path
                # (walk 31, F2: "/folder/'/tmp/no such.md': no such file")
                path = self._typed(words[0])
        return path

    def _exists(self, path: Path) -> bool:
        """Whether `path` is there, looked at only inside what is served."""
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.paths import within

        if self.confine is not None:
            try:
                within(path, self.confine)
            except ChunkscopeError:
                return False
        return path.exists()

    def _typed(self, value: str) -> Path:
        path = Path(os.path.expanduser(value))
        return path if path.is_absolute() else self.start.resolve() / path

    def _go_into(self, folder: Path) -> None:
        """Show `folder`: its tree, its sessions (looked for again), the tree focused."""
        self.start = folder
        where = folder.resolve()
        tree = self.query_one("#tree", LogTree)
        tree.path = where
        tree.border_title = self._folder_title(where, tree.size.width)
        self.query_one("#path", Input).value = ""
        box = self.query_one("#sessions", OptionList)
        box.clear_options()
        box.add_option(Option("looking for sessions…", disabled=True))
        box.border_subtitle = ""
        self.sessions, self.documents, self.unread, self.listed = [], [], [], False
        tree.focus()
        self._find_sessions()

    def action_cancel(self) -> None:
        self.dismiss(None)
