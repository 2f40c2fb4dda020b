"""Auto-tune: `engine.evaluate.measure.tune` on the open file against its topic marks.

The search (the grid of ``chunkscope tune``, `engine.evaluate.measure.TUNE_GRIDS`, for the merge
mode in force) runs in a worker with a progress bar; Escape stops it. Settings rank as
``chunkscope tune`` ranks them (`engine.evaluate.measure.Tuned.objective`): finding the marks
first (boundary F1), then Pk; partial marks are scored over the stretch they cover.
Then the best settings are listed with their F1, recall, Pk, WindowDiff and the
segments they give in the whole file (topics in topic mode, merged chunks in the seed
loop), next to the settings in force; Enter applies the
highlighted one (the screen returns it as a `Tuning`), `s` saves it as a profile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from chunkscope.engine.evaluate.measure import (
    SCORE_NAMES,
    SCORE_SHORT,
    TOLERANCE,
    TUNE_GRIDS,
    Case,
    Tuned,
    grid_size,
    marked_stretch,
    no_mark_found,
    score_text,
    tune,
    tuning_segmenter,
)
from chunkscope.tui.screens.late_callbacks import LateCallbacks

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.pipeline import Pipeline

#: How many settings the list shows.
TOP = 5
#: How many of the marks' lines the title names (then the last one).
MARKS_SHOWN = 6


class _Stopped(Exception):
    """The search was cancelled (Escape)."""


def column_widths(header: list[str], rows: list[list[str]], room: int) -> tuple[list[int], int]:
    """The table's columns, each as wide as its header or widest cell, and the cell
    padding to draw them with: two blank cells between columns when the whole table fits
    ``room`` so (padding 1 each side, the widths as they are), else one (padding 0, each
    column but the last one cell wider). Knob names stay whole, as `tune`, ``--grid`` and
    a profile spell them; a table wider than the room even so scrolls sideways."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    if sum(widths) + 2 * len(widths) <= room:
        return widths, 1
    return [w + 1 for w in widths[:-1]] + widths[-1:], 0


class TuneScreen(LateCallbacks, ModalScreen["Tuning | None"]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("s", "save", "Save as profile"),
    ]

    DEFAULT_CSS = """
    TuneScreen { align: center middle; }
    TuneScreen > Vertical {
        width: 110; max-width: 98%; height: auto; max-height: 80%;
        padding: 1 2; border: thick $primary; background: $surface;
    }
    TuneScreen #tune-table { height: auto; max-height: 12; margin-top: 1; display: none; }
    TuneScreen.-done #tune-table { display: block; }
    TuneScreen.-done #tune-progress { display: none; }
    TuneScreen #tune-hint { color: $text-muted; margin-top: 1; }
    TuneScreen #tune-none { color: $warning; margin-top: 1; display: none; }
    """

    def __init__(
        self,
        pipe: Pipeline,
        tuning: Tuning,
        gold: list[int],
        weights: Any,
        *,
        partial: bool = False,
    ) -> None:
        super().__init__()
        self.pipe, self.tuning, self.gold, self.weights = pipe, tuning, gold, weights
        self.partial = partial
        self.mode = tuning.merge.mode
        self.grid = TUNE_GRIDS[self.mode]
        self.rows: list[Tuned] = []
        self.worker: Worker[None] | None = None
        self.current: Tuned | None = None
        self.done = 0  # settings scored so far
        self.closed = False
        self._fitted: tuple[int, list[int]] = (1, [])  # the table's padding and widths

    def compose(self) -> ComposeResult:
        marks = len(self.gold) - 1
        with Vertical():
            yield Label(
                f"Auto-tune: {grid_size(self.grid)} settings of merge {self.mode} against "
                f"{marks} topic mark{'s' if marks != 1 else ''}\n({self._scope()}),\n"
                "ranked by F1 (finding the marks), then Pk"
                + "".join(f"; {SCORE_SHORT[k]} is {SCORE_NAMES[k]}" for k in SCORE_SHORT),
                markup=False,
            )
            yield ProgressBar(total=grid_size(self.grid), id="tune-progress")
            yield Static("", id="tune-none", markup=False)
            yield DataTable(id="tune-table", cursor_type="row", zebra_stripes=True)
            yield Static("escape stops the search", id="tune-hint", markup=False)

    def _scope(self) -> str:
        """The marks' own lines and, when partial, the lines scored: the stretch reaches
        `TOLERANCE` lines past the first and last mark (a cut there still finds it)."""
        marks = sorted(s for s in self.gold if s > 1)
        shown = ", ".join(str(s) for s in marks[:MARKS_SHOWN])
        if len(marks) > MARKS_SHOWN:
            shown += f", … {marks[-1]}"
        at = f"at line{'s' if len(marks) != 1 else ''} {shown}"
        stretch = marked_stretch(self.gold, len(self.weights)) if self.partial else None
        if stretch is None:
            return f"{at}; all the topics"
        return (
            f"{at}; partial: scored over lines {stretch[0]}-{stretch[1]}, "
            f"{TOLERANCE} lines around them"
        )

    def on_mount(self) -> None:
        self.worker = self.run_worker(
            self._search, thread=True, exclusive=True, group="tune", description="auto-tune"
        )

    # ------------------------------------------------------------------ the search

    def _search(self) -> None:

        worker = get_current_worker()
        lock = getattr(self.app, "lock", None)  # the pipeline's stages are shared with runs
        shown = [0]

        def progress(done: int, total: int) -> None:
            self.done = done
            if worker.is_cancelled:
                raise _Stopped
            if done - shown[0] >= max(1, total // 50) or done == total:
                shown[0] = done
                self.app.call_from_thread(self._progress, done)

        t = self.tuning
        try:
            # The file's stages with the compaction in force (a slider moved just before
            # `A` may not have re-run yet); the memos are shared, so nothing runs twice.
            pipe = self.pipe.with_params(merge=t.merge, min_chars=t.min_chars, topic=t.topic)
            if lock is not None:
                with lock:
                    case = Case.of_pipeline(pipe, self.gold, self.weights, partial=self.partial)
            else:
                case = Case.of_pipeline(pipe, self.gold, self.weights, partial=self.partial)
            segmenter = tuning_segmenter(self.tuning, self.mode)
            in_force = self.tuning.values()
            current = tune([case], segmenter, {k: [in_force[k]] for k in self.grid}, top=1)[0]
            best = tune([case], segmenter, self.grid, top=TOP, progress=progress, prefer=in_force)
        except _Stopped:
            return
        except Exception as e:  # a failed search is reported; the workbench goes on
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, e)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._done, best, current)

    def _open(self) -> bool:
        """Still on screen (a result that arrives after Escape is dropped)."""
        return self.is_attached and not self.closed

    def _progress(self, done: int) -> None:
        if self._open():
            self.query_one(ProgressBar).update(progress=done)

    def _failed(self, error: Exception) -> None:
        if self._open():
            self.closed = True
            self.app.notify(
                str(error) or type(error).__name__,
                title="Auto-tune failed",
                severity="error",
                timeout=12,
                markup=False,
            )
            self.dismiss(None)

    def _done(self, best: list[Tuned], current: Tuned) -> None:
        if not self._open():
            return
        self.rows, self.current = best, current
        self._fill_table()
        said = no_mark_found((*best, current), self.grid, len(self.gold) - 1)
        if best and said is not None:
            none = self.query_one("#tune-none", Static)
            none.update(said)
            none.display = True
        self.add_class("-done")
        self.query_one("#tune-hint", Static).update(
            "enter applies the highlighted setting · s saves it as a profile · escape closes"
        )
        self.query_one(DataTable).focus()

    def _fill_table(self) -> None:
        """List the settings found and the ones in force, the knobs by name as
        `chunkscope tune`, ``--grid`` and a profile name them (`column_widths`: the
        table closes its columns up to one blank cell when narrow)."""
        if self.current is None:
            return
        table = self.query_one(DataTable)
        names = list(self.grid)
        segments = "topics" if self.mode == "topic" else "chunks"  # the segments scored
        scored = ["f1", "recall", "pk", "windowdiff"]
        header = ["", *(SCORE_SHORT.get(k, SCORE_NAMES[k]) for k in scored), segments, *names]

        def cells(t: Tuned) -> list[str]:
            return [
                score_text(t.f1),
                score_text(t.recall),
                score_text(t.pk),
                score_text(t.windowdiff),
                f"{t.chunks:g}",
                *(str(t.values[k]) for k in names),
            ]

        rows = [[f"#{i}", *cells(t)] for i, t in enumerate(self.rows, start=1)]
        rows.append(["now", *cells(self.current)])
        room = self.query_one(Vertical).content_size.width
        widths, padding = column_widths(header, rows, room)
        if table.columns and (padding, widths) == self._fitted:
            return
        self._fitted = (padding, widths)
        cursor = table.cursor_row
        table.clear(columns=True)
        table.cell_padding = padding
        for label, width in zip(header, widths, strict=True):
            table.add_column(label, width=width)
        for row in rows:
            table.add_row(*row, key=row[0].lstrip("#"))
        table.move_cursor(row=cursor)

    def on_resize(self) -> None:
        if self.has_class("-done"):
            self._fill_table()

    # ------------------------------------------------------------------ choosing

    def _highlighted(self) -> Tuning | None:
        if not self.rows:
            return None
        row = self.query_one(DataTable).cursor_row
        if not 0 <= row < len(self.rows):
            return None  # the "now" row: nothing to apply
        return self.tuning.with_values(self.rows[row].values)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        chosen = self._highlighted()
        if chosen is not None:
            t = self.rows[self.query_one(DataTable).cursor_row]
            values = " · ".join(f"{k} {v}" for k, v in t.values.items())
            now = self.current
            was = ""
            if now is not None:
                was = f" (it was F1 {score_text(now.f1)}, Pk {score_text(now.pk)})"
            self.app.notify(
                f"Auto-tune applied {values}: F1 {score_text(t.f1)}, Pk {score_text(t.pk)}{was}.",
                markup=False,
            )
        self.closed = True
        self.dismiss(chosen)

    def action_save(self) -> None:
        chosen = self._highlighted()
        if chosen is None:
            self.app.notify("Highlight one of the settings found first.", markup=False)
            return
        self.app.ask_save_profile(chosen)  # type: ignore[attr-defined]

    def action_cancel(self) -> None:
        worker = self.worker
        if worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
            worker.cancel()
            self.app.notify(
                f"Auto-tune cancelled: stopped after {self.done} of {grid_size(self.grid)} "
                "settings; nothing changed.",
                markup=False,
            )
        self.closed = True
        self.dismiss(None)
