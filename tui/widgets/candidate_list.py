"""The recap candidates, ranked: kept / dropped, score, tokens, pin or exclude, summary.

A line-API list (one line per candidate), so a recap over thousands of merged chunks
costs only the lines on screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from chunkscope.tui.cells import terminal_text
from chunkscope.tui.widgets.chunk_list import set_virtual_size

#: The column header over the rows (`CandidateList.render_line` draws them to it):
#: in the recap or not, merged chunk, score, tokens, the summary (what the recap says of
#: the chunk, the tokens' text: the abstract beside them misled, walk 49, F8).
HEADER = " in   # score tokens summary   ✓ kept  ✗ left out  – excluded  📌 pinned"


@dataclass(frozen=True)
class CandidateRow:
    """What one line shows; built by the screen from the engine's selection."""

    index: int  # merged chunk index
    score: float
    tokens: int
    selected: bool
    pinned: bool
    excluded: bool
    reason: str
    text: str  # the recap's paragraph for the chunk, which `tokens` counts


class CandidateList(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev", show=False),
        Binding("down,j", "move(1)", "Next", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "candidate-list--kept",
        "candidate-list--dropped",
        "candidate-list--excluded",
        "candidate-list--cursor",
        "candidate-list--dim",
    }

    DEFAULT_CSS = """
    CandidateList {
        background: $surface;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
        & > .candidate-list--kept { color: $success; text-style: bold; }
        & > .candidate-list--dropped { color: $error; }
        & > .candidate-list--excluded { color: $text-muted; }
        & > .candidate-list--cursor { background: $primary 35%; }
        & > .candidate-list--dim { color: $text-muted; }
    }
    CandidateList:focus > .candidate-list--cursor { background: $primary 55%; }
    """

    class Highlighted(Message):
        """The cursor moved to the candidate of merged chunk `index`."""

        def __init__(self, candidate_list: CandidateList, index: int) -> None:
            self.candidate_list = candidate_list
            self.index = index
            super().__init__()

        @property
        def stale(self) -> bool:
            """Whether the list has posted a newer highlight since (a key burst)."""
            return self.candidate_list.posted != self.index

        @property
        def control(self) -> CandidateList:
            return self.candidate_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[CandidateRow] = []
        self.cursor = 0
        #: The chunk of the last `Highlighted` posted (see `Highlighted.stale`).
        self.posted: int | None = None
        self._row_of_chunk: dict[int, int] = {}

    def set_rows(self, rows: Sequence[CandidateRow], *, chunk: int | None = None) -> None:
        self.rows = rows
        self._row_of_chunk = {r.index: i for i, r in enumerate(rows)}
        if chunk is not None and chunk in self._row_of_chunk:
            self.cursor = self._row_of_chunk[chunk]
        self.cursor = max(0, min(self.cursor, len(rows) - 1))
        set_virtual_size(self, Size(0, max(1, len(rows))))
        self._scroll_cursor()
        self.refresh()

    def show_chunk(self, index: int) -> None:
        """Move the cursor to merged chunk `index` (no message)."""
        row = self._row_of_chunk.get(index)
        if row is not None and row != self.cursor:
            self.cursor = row
            self._scroll_cursor()
            self.refresh()

    @property
    def current(self) -> CandidateRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def _scroll_cursor(self) -> None:
        h = self.scrollable_content_region.height
        y = self.scroll_offset.y
        if self.cursor < y:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif h and self.cursor >= y + h:
            self.scroll_to(y=self.cursor - h + 1, animate=False, immediate=True)

    def _move_to(self, row: int) -> None:
        if not self.rows:
            return
        row = max(0, min(row, len(self.rows) - 1))
        if row != self.cursor:
            self.cursor = row
            self._scroll_cursor()
            self.refresh()
            self.posted = self.rows[row].index
            self.post_message(self.Highlighted(self, self.posted))

    def action_move(self, delta: int) -> None:
        self._move_to(self.cursor + delta)

    def action_jump(self, where: int) -> None:
        self._move_to(where if where >= 0 else len(self.rows) - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self._move_to(self.scroll_offset.y + offset.y)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"candidate-list--{name}")

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        i = self.scroll_offset.y + y
        base = self.rich_style
        if not self.rows:
            if y == 0:
                return Strip(
                    [Segment(" no candidates yet", base + self._style("dim"))]
                ).adjust_cell_length(width, base)
            return Strip.blank(width, base)
        if i >= len(self.rows):
            return Strip.blank(width, base)
        r = self.rows[i]
        if i == self.cursor:
            base = base + self._style("cursor")
        if r.excluded:
            mark, mark_style = "–", self._style("excluded")
        elif r.selected:
            mark, mark_style = "✓", self._style("kept")
        else:
            mark, mark_style = "✗", self._style("dropped")
        dim = base + self._style("dim")
        segs = [  # the columns of HEADER
            Segment(f" {mark} ", base + mark_style),
            Segment(f"{r.index:>4} ", base),
            Segment(f"{r.score:5.2f} ", dim),
            Segment(f"{r.tokens:>5}t ", dim),
            Segment("📌 " if r.pinned else "", base),
        ]
        if r.excluded or not r.selected:
            segs.append(Segment(f"{r.reason}  ", dim))
        segs.append(Segment(terminal_text(r.text).replace("\n", " "), base))
        strip = Strip(segs)
        if strip.cell_length > width:
            strip = Strip([*strip.crop(0, width - 1), Segment("…", dim)])
        return strip.adjust_cell_length(width, base)

    def rendered_lines(self) -> list[str]:
        return [self.render_line(y).text for y in range(self.scrollable_content_region.height)]
