"""The app's part that keeps the topic marks (`tui.workbench.topics` says what they are).

`m` toggles a mark at the item selected in the left column (its first source line); the
marks are saved at once, atomically, under the file's content hash, and drawn with the
live score; `a` says whether they are all the topics or some (partial, the default:
scored over the stretch they cover), saved with them; `M` exports them as a gold file.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from chunkscope.engine.evaluate.measure import first_item_line
from chunkscope.engine.textutil import plural
from chunkscope.tui.workbench.state import WorkbenchHost, save_path
from chunkscope.tui.workbench.topics import (
    ChunksVerdict,
    ColumnMarks,
    FileMarks,
    MarksReport,
    clean_marks,
    judge_topics,
    mark_flags,
    marks_report,
    starting_at,
    strip_marks,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from chunkscope.engine.model import Chunk
    from chunkscope.tui.workbench.runs import RunView


class MarksDriver(WorkbenchHost):
    """The app's part that keeps the marks (see the module docstring)."""

    def set_file_marks(self, marks: FileMarks | None, problem: str | None = None) -> None:
        """The open file's marks (after a load): drawn at once."""
        self.file_marks = marks
        self.marks = marks.starts if marks is not None else ()
        if problem:
            self.notify(problem, title="Topic marks not loaded", severity="warning", markup=False)
        elif marks is not None and marks.origin == "gold":
            kind = "some topic starts (partial)" if marks.partial else "topic starts"
            self.notify(
                f"{len(marks.starts) + 1} {kind} from the gold file; m toggles, a says "
                "all / some, M exports. Edits are saved as this file's marks.",
                markup=False,
            )
        self.marks_changed()

    def marks_changed(self) -> None:
        bench = self.workbench
        if bench is not None:
            bench.show_marks()
            self.schedule_sweep(0.0)  # its Pk row follows the marks

    def judge_column(
        self, chunks: Sequence[Chunk], inner: Sequence[bool] = ()
    ) -> ChunksVerdict | None:
        """A column's chunks (a strategy's, a merge mode's) against the marks; `inner`
        flags the cuts inside a topic (the topic mode's size cap), which are not judged."""
        marks = self.file_marks
        if marks is None or not marks.starts or self.pipe is None:
            return None
        if self.pipe.path != marks.path:
            return None
        return judge_topics(chunks, inner, marks)

    def column_marks(
        self,
        units: Sequence[Chunk],
        chunks: Sequence[Chunk],
        inner: Sequence[bool],
        *,
        items: bool,
    ) -> ColumnMarks | None:
        """A compare column against the marks, drawn as the main view draws them: its
        verdict (`judge_column`), its list's flags (`items`: the items before the merge,
        ``◆`` where a marked topic starts, as the left column; else ``✗`` on a chunk hiding
        a missed mark) and its strip's marks row over `units`, the strip's axis (found by
        this column's cuts or not)."""
        judged = self.judge_column(chunks, inner)
        marks = self.file_marks
        if judged is None or marks is None:
            return None
        flags = mark_flags(chunks, marks) if items else judged.flags
        return ColumnMarks(judged, flags, strip_marks(units, marks, judged.found))

    def marks_report(self, view: RunView) -> MarksReport | None:
        marks = self.file_marks
        if marks is None or not marks.starts or view.source.path != marks.path:
            return None
        return marks_report(view, marks)

    def _save_file_marks(self, updated: FileMarks) -> bool:
        """Save `updated` (the file's marks, changed) and make them the file's; False,
        with an error notification, when they could not be saved."""
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.evaluate.gold import save_marks

        try:
            save_marks(updated.path, updated.starts, updated.digest, partial=updated.partial)
        except (OSError, ChunkscopeError) as e:
            self.notify(f"Could not save the marks: {e}", severity="error", markup=False)
            return False
        self.file_marks = updated
        return True

    def action_toggle_mark(self) -> None:
        """A topic starts (or no longer starts) at the item selected in the left column."""
        bench = self.workbench
        marks = self.file_marks
        if bench is None or marks is None or bench.view is None:
            self.notify("Open a file first (ctrl+o).", markup=False)
            return
        picked = bench.left_selected_item()  # the card on show (while comparing: its)
        if picked is None:
            return
        index, item = picked
        lines = item.lines
        if lines is None:
            self.notify("This item has no source line to mark.", severity="warning", markup=False)
            return
        line = lines[0]
        head = first_item_line(bench.left_items())
        if line <= head:  # the first item's line, after a log's metadata (walk 29, F1)
            where = "line 1" if head <= 1 else f"the first item (line {head} of the file)"
            self.notify(f"A topic always starts at {where}.", markup=False)
            return
        starts = set(marks.starts)
        starts.symmetric_difference_update({line})
        updated = replace(marks, starts=clean_marks(sorted(starts)))
        if not self._save_file_marks(updated):
            return
        self.marks = updated.starts
        verb = "starts" if line in starts else "no longer starts"
        n = len(updated.starts)
        count = (
            f"{n} mark{'s' if n != 1 else ''}, partial: a says they are all the topics"
            if updated.partial
            else f"{n + 1} topics now"
        )
        # A mark is a line of the file (as a gold file's starts, and as eval scores it):
        # items sharing that line share the mark, drawn on the first of them.
        shared = starting_at(bench.left_items(), line)
        where = f"item {index} (line {line} of the file)"
        if len(shared) > 1 and index in shared:
            first, last = shared[0], shared[-1]
            drawn = "shows on" if verb == "starts" else "is gone from"
            where = (
                f"line {line} of the file, where items {first}–{last} start "
                f"(a mark is a line: its ◆ {drawn} item {first}, the first of them)"
            )
        self.notify(
            f"Topic mark: a topic {verb} at {where}; {count}.",
            timeout=3 if len(shared) <= 1 else 6,
            markup=False,
        )
        self.marks_changed()

    def action_toggle_marks_complete(self) -> None:
        """The marks are all the topics of the file, or some of them (partial: scored
        only over the stretch from the first mark to the last); saved with them."""
        marks = self.file_marks
        if self.workbench is None or marks is None:
            self.notify("Open a file first (ctrl+o).", markup=False)
            return
        updated = replace(marks, partial=not marks.partial)
        if not self._save_file_marks(updated):
            return
        if updated.partial:
            text = (
                "The marks are some of the topics: scored from the first mark to the last, "
                "cuts outside that stretch not counted."
            )
        else:
            text = "The marks are all the topics: every cut in the file is scored."
        self.notify(text, timeout=5, markup=False)
        self.marks_changed()

    def action_export_marks(self) -> None:
        """Write the marks as a gold file (`chunkscope eval --gold`), atomically."""
        from chunkscope.engine.evaluate.gold import dumps_gold
        from chunkscope.engine.fileio import atomic_write_text

        marks = self.file_marks
        if marks is None or not marks.starts:
            self.notify("No topic marks yet: m marks the selected turn.", markup=False)
            return
        starts = sorted({1, *marks.starts})  # a gold file counts the file's start
        partial = marks.partial
        # counted as the merge panel counts them: the marks, not the file's start
        what = f"{plural(len(starts) - 1, 'topic mark')} ({'partial; ' if partial else ''}"
        what += f"{plural(len(starts), 'topic start')} with the file's start)"

        def write(path: Path) -> str:
            atomic_write_text(path, dumps_gold(starts, partial))
            return what

        default = save_path(Path(marks.path).with_suffix("").name + ".gold.json")
        self._ask_path("Export the topic marks as a gold file", default, write)
