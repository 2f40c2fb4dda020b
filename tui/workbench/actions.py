"""The workbench's actions on the recap and on files: pin / exclude and re-select,
write the recap (asking before overwriting), export merged chunks, copy, profiles, and
switching backends. A part of `ChunkscopeApp`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from errno import EISDIR
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from textual import work
from textual.worker import Worker, WorkerState, get_current_worker

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.textutil import plural
from chunkscope.tui.screens.confirm import ConfirmScreen
from chunkscope.tui.workbench.messages import Notice, RecapSettings, SelectionReady, WorkFailed
from chunkscope.tui.workbench.runs import RunView
from chunkscope.tui.workbench.state import ChunkStart, WorkbenchHost, save_path

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.pipeline import Pipeline


#: Seconds `w` waits for the lock a worker holds while it selects (a few milliseconds).
SELECT_WAIT = 1.0
#: Seconds after a control moved during which a move the run's settings have not taken
#: yet makes the recap shown not the one in force (the step's message is on its way).
CONTROLS_SETTLE = 1.0
#: What the Recap panel says when escape cancelled the summaries on their way.
RECAP_CANCELLED = (
    "The recap was cancelled (esc): press s to summarize all merged chunks and build it."
)
#: What `w` and the report say when the recap in force is still being made.
UPDATING_RECAP = (
    "The recap is being updated for the settings in force; w writes it once the Recap "
    "panel shows it."
)


class WorkbenchActions(WorkbenchHost):
    """Recap selection, files and profiles (see the module docstring)."""

    # ------------------------------------------------------------------ recap

    def recap_computing(self) -> bool:
        """A file is open and its recap is on its way: the offline summarizer's run
        after each merge, or `s`'s with another summarizer (`_summarize_all`), will
        summarize every merged chunk and select the recap."""
        if self.pipe is None or self.recap_state in ("failed", "cancelled"):
            return False
        return self.summarizer_name == "extractive" or any(
            w.description == "_summarize_all"
            and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for w in self.workers
        )

    def recap_note(self, progress: tuple[int, int] | None = None) -> str:
        """What the preview says while there is no recap, `progress` the summaries'
        (done, total) when known (the Summary panel's bar shows the same). A file open
        and summarizing said "Open a file to preview its recap." until the recap came
        (walk 59, F9)."""
        if self.pipe is None:
            return "Open a file to preview its recap."
        if self.recap_state == "failed":
            return "The summaries failed; switch to the offline summarizer to build the recap."
        if self.recap_state == "cancelled":
            return RECAP_CANCELLED
        if not self.recap_computing():
            return "Press s to summarize all merged chunks; the recap is built from them."
        note = "Computing the recap: summarizing the merged chunks"
        if progress is not None and 0 <= progress[0] < progress[1]:
            note += f", {progress[0] * 100 // progress[1]}% done"
        return note + "…"

    @staticmethod
    def empty_recap_note(selection: Any) -> str:
        """Why `selection`'s recap is empty, as ``chunkscope recap`` says it
        (`Selection.empty_why`), as a sentence; "" when the budget left nothing out."""
        why = str(selection.empty_why)
        return f"{why[0].upper()}{why[1:]}." if why else ""

    def _indices(self, view: RunView, texts: frozenset[str]) -> tuple[int, ...]:
        if not texts:
            return ()
        return tuple(i for i, c in enumerate(view.result.chunks) if c.text in texts)

    def recap_settings(self, view: RunView) -> RecapSettings:
        """The settings a recap selection of `view` is made under."""
        return RecapSettings(
            self.budget,
            self.scorer,
            self._indices(view, self.pinned),
            self._indices(view, self.excluded),
            self.headings,
            self.state.tuning.recap.plain,
        )

    def _recap_of(self, pipe: Pipeline, settings: RecapSettings) -> Any:
        return pipe.recap(**settings._asdict())

    def _select(self, pipe: Pipeline, view: RunView, worker: Worker[Any]) -> None:
        try:
            with self.lock:
                if not self._current(pipe, view):
                    return
                settings = self.recap_settings(view)
                selection = self._recap_of(pipe, settings)
        except Exception as e:
            self.post_message(WorkFailed(e, "Recap failed"))
            return
        if worker.is_cancelled:
            return
        self.post_message(SelectionReady(view, selection, settings))

    def on_selection_ready(self, message: SelectionReady) -> None:
        self._selection_ready(message.view, message.selection, message.key)

    def _selection_ready(self, view: RunView, selection: Any, key: RecapSettings) -> None:
        bench = self.workbench
        if bench is None or bench.view is not view:
            return
        self.selection, self.selection_key, self.selection_view = selection, key, view
        self.recap_state = "idle"
        bench.show_selection_recap()

    def controls_moving(self) -> bool:
        """Whether a control moved (`Slider`, `ChoiceToggle`: `control_moved`) less than
        `CONTROLS_SETTLE` ago and the settings have not taken it yet: a key pressed with a
        slider's step in one burst (``→ w``) comes before the step's message reaches the
        run's settings (walk 65, F1)."""
        moved = self.controls_moved_at
        return moved > self.controls_applied_at and time.monotonic() - moved < CONTROLS_SETTLE

    def selection_now(self) -> Any:
        """The recap under the settings in force: the selection shown, or, when the run or
        a setting changed since it was made and the new one is still on its way, one made
        now if that is only a selection (every summary of the run known: milliseconds,
        under the lock a worker holds for as long); None when it cannot be made now (a
        slider's run not drawn yet, the summaries being computed, or a long stage holding
        the pipeline). A burst ``b 500 ⏎ w`` wrote the recap of the old budget (walk 62,
        F3), ``→ w`` on a slider the recap of the step before (walk 65, F1)."""
        selection, pipe, bench = self.selection, self.pipe, self.workbench
        if selection is None or pipe is None or bench is None or bench.view is None:
            return selection
        view = bench.view
        if self._run_timer is not None or not self._current(pipe, view) or self.controls_moving():
            return None  # a step's run is on its way: the view drawn is not the one in force
        settings = self.recap_settings(view)
        if settings == self.selection_key and view is self.selection_view:
            return selection
        if not all(c.text in self.summaries for c in view.result.chunks):
            return None  # selecting would summarize: the follow-up in flight does
        if not self.lock.acquire(timeout=SELECT_WAIT):
            return None
        try:
            if not self._current(pipe, view):
                return None
            now = self._recap_of(pipe, settings)
        finally:
            self.lock.release()
        self._selection_ready(view, now, settings)
        return now

    def recap_cancelled(self) -> None:
        """Escape cancelled the summaries (or the recap) on their way: the preview says so
        and what brings the recap back, and `w` no longer waits for it; with every summary
        known the recap is selected all the same (milliseconds). It said "Computing the
        recap…" for good, nothing running (walk 65, F4)."""
        self.recap_state = "cancelled"
        self.reselect()
        bench = self.workbench
        if bench is not None and self.selection is None:
            bench.show_selection_recap()

    def reselect(self) -> None:
        """Pins, exclusions or the budget changed: select again (summaries are memoised)."""
        bench = self.workbench
        if self.pipe is None or bench is None or bench.view is None:
            return
        view = bench.view
        known = all(c.text in self.summaries for c in view.result.chunks)
        if not known:
            return  # the follow-up in flight will select with the new settings
        self._reselect(self.pipe, view)

    @work(thread=True, exclusive=True, group="recap", description="_reselect")
    def _reselect(self, pipe: Pipeline, view: RunView) -> None:
        self._select(pipe, view, get_current_worker())

    def set_budget(self, budget: int) -> None:
        self.controls_applied_at = time.monotonic()
        if budget != self.budget:
            self.state = self.state.with_tuning(budget=budget)
            self.reselect()

    def action_type_budget(self) -> None:
        """Ask for the recap budget as a number (the slider moves in steps of 50): any the
        knob takes, as on the command line (`--budget`), beyond the slider's ends too."""
        from chunkscope.engine.params import number_text
        from chunkscope.tui.screens.prompt import PromptScreen
        from chunkscope.tui.widgets.recap_panel import BUDGET

        lo, hi = BUDGET.minimum, BUDGET.maximum
        assert lo is not None
        allowed = (
            f"at least {number_text(lo)}"
            if hi is None
            else f"from {number_text(lo)} to {number_text(hi)}"
        )

        def parse(value: str) -> int | None:
            text = value.strip().replace(",", "").replace("_", "")
            if not text.isdecimal():
                return None
            try:
                return int(BUDGET.coerce(text))
            except ValueError:
                return None

        def validate(value: str) -> str | None:
            if parse(value) is None:
                return f"a whole number of tokens, {allowed}, e.g. 1500"
            return None

        def typed(value: str | None) -> None:
            budget = parse(value) if value is not None else None
            if budget is None:
                return
            self.set_budget(budget)
            bench = self.workbench
            if bench is not None:
                bench.show_params(self.state.tuning)

        title = f"Recap budget in tokens ({allowed})"
        self.push_screen(PromptScreen(title, str(self.budget), validate=validate), typed)

    def _toggle_mark(self, which: Literal["pinned", "excluded"], verb: str) -> None:
        bench = self.workbench
        card = bench.column_card() if bench is not None else None
        if card is not None:  # the recap's candidates are the merged run's chunks
            what, index, _chunk = card
            self.notify(
                f"Not {verb}: {what} {index} is not a chunk of the recap, which picks from "
                "the merged run's chunks; choose one in the recap's list.",
                severity="warning",
                markup=False,
            )
            return
        picked = bench.selected_chunk() if bench is not None else None
        if picked is None:
            self.notify("Nothing selected.", severity="warning")
            return
        index, chunk = picked
        before = self.state
        was = chunk.text in getattr(before, which)
        self.state = after = before.toggled(which, chunk.text, ChunkStart.of(chunk))
        note = f"Chunk {index}: {'no longer ' if was else ''}{verb}"
        if chunk.text in after.held_pins and chunk.text not in before.held_pins:
            note += " (its pin comes back when x is pressed again)"
        elif chunk.text in before.held_pins and chunk.text in after.pinned:
            note += "; pinned again"
        elif which == "pinned" and chunk.text in before.excluded:
            note += " (no longer excluded)"
        self.notify(note + ".", markup=False)
        self.reselect()

    def action_pin(self) -> None:
        self._toggle_mark("pinned", "pinned")

    def action_exclude(self) -> None:
        self._toggle_mark("excluded", "excluded")

    # ------------------------------------------------------------------ writing files

    def _ask_path(
        self, title: str, default: str, write: Any, problem: str = "", *, warning: str = ""
    ) -> None:
        """Ask where to write (`default` in the field), then `write` there. A path that
        cannot be written (refused, a folder, a write that fails) says why, as the
        commands do (`engine.fileio.cannot_write`), and the dialog comes back with the
        path typed and the reason under it, to be corrected (walk 11, 11), as the picker
        stays open on a file it refuses. `warning`: said after what was written (`_write_file`)."""
        from chunkscope.tui.screens.prompt import PromptScreen

        def got_path(value: str | None) -> None:
            if not value:
                return

            def again(reason: str) -> None:
                self.notify(reason, severity="error", markup=False)
                self._ask_path(title, value, write, reason, warning=warning)

            path = Path(value).expanduser()
            confine = self.options.confine
            if confine is not None:  # served: a new file in the folder shown, or nothing
                from chunkscope.engine.paths import served_write

                # a relative path (every default) is taken there, not in the server's cwd
                try:
                    path = served_write(value, confine)
                except ChunkscopeError as e:
                    again(str(e))
                    return
            if path.is_dir():  # said as a write into it fails (walk 38, F4)
                from chunkscope.engine.fileio import cannot_write

                again(cannot_write(path, IsADirectoryError(EISDIR, os.strerror(EISDIR))))
                return
            if path.exists():

                def confirmed(yes: bool | None) -> None:
                    if yes:
                        self._write_file(path, write, again, warning)
                    else:
                        self.notify("Not written.", markup=False)

                self.push_screen(
                    ConfirmScreen(f"{value} exists. Overwrite it?", yes="Overwrite"), confirmed
                )
            else:
                self._write_file(path, write, again, warning)

        self.push_screen(PromptScreen(title, default, problem=problem), got_path)

    @work(thread=True, group="write", description="_write_file")
    def _write_file(
        self,
        path: Path,
        write: Any,
        failed: Callable[[str], None] | None = None,
        warning: str = "",
    ) -> None:
        """`write(path)`, saying what was written, and `warning` after it (a warning
        then); a failure said as the commands say it (to `failed`, which asks again,
        when given)."""
        from chunkscope.engine.fileio import cannot_write

        try:
            what = write(path)
        except (OSError, ChunkscopeError) as e:
            reason = cannot_write(path, e) if isinstance(e, OSError) else str(e)
            if failed is not None:
                self.call_from_thread(failed, reason)
            else:
                self.post_message(Notice(reason, "error"))
            return
        if warning:
            self.post_message(Notice(f"Wrote {what} to {path}. {warning}", "warning"))
        else:
            self.post_message(Notice(f"Wrote {what} to {path}."))

    def action_write_recap(self) -> None:
        selection = self.selection_now()
        if selection is None and self.selection is not None:
            self.notify(UPDATING_RECAP, severity="warning")
            return
        if selection is None:
            if self.recap_computing():  # it said to open a file (walk 59, F9)
                self.notify(
                    "The recap is not ready yet: its summaries are being computed; "
                    "w writes it once the Recap panel shows it.",
                    severity="warning",
                )
            else:
                self.notify("No recap yet: open a file and summarize it (s).", severity="warning")
            return
        if self.options.review is not None:
            self._save_review(selection)
            return
        from chunkscope.engine.recap.core import RECAP_FILENAME, save_recap

        text = selection.text

        def write(path: Path) -> str:
            save_recap(path, text)
            return f"the recap ({selection.used_tokens} tokens)"

        # an empty recap written said only ``(0 tokens)``, not why (walk 59, F8)
        warning = self.empty_recap_note(selection)
        self._ask_path("Write the recap to", save_path(RECAP_FILENAME), write, warning=warning)

    def _save_review(self, selection: Any) -> None:
        """`chunkscope review`: `w` keeps this recap, with the pins, exclusions and budget,
        as its session's stored recap, and says whether the next session start injects it
        (`tui.workbench.review`)."""
        from chunkscope.tui.workbench.review import save_review, saved_what, store_path

        bench = self.workbench
        if bench is None or bench.view is None:
            return
        target = self.options.review
        texts = [c.text for c in bench.view.result.chunks]
        pinned = tuple(t for t in texts if t in self.pinned)
        excluded = tuple(t for t in texts if t in self.excluded)
        budget = self.budget

        def write(path: Path) -> str:
            save_review(target, selection, pinned=pinned, excluded=excluded, budget=budget)
            return saved_what(target, selection.used_tokens)

        self._write_file(store_path(target), write)

    def action_export(self) -> None:
        from chunkscope.tui.screens.choose import ChooseScreen

        bench = self.workbench
        if bench is None or bench.view is None:
            self.notify("Nothing to export: open a file first.", severity="warning")
            return
        choices = [
            ("json", "merged chunks as JSON"),
            ("markdown", "merged chunks as markdown"),
            ("recap", "the recap (_recap.md)"),
            ("report", "the run as an HTML report"),
        ]

        def chosen(kind: str | None) -> None:
            if kind:
                self.export(kind)

        self.push_screen(ChooseScreen("Export", choices), chosen)

    def export(self, kind: str) -> None:
        from chunkscope.tui.workbench.exports import merged_json, merged_markdown

        bench = self.workbench
        if bench is None or bench.view is None:
            self.notify("Nothing to export: open a file first.", severity="warning")
            return
        if kind == "recap":
            self.action_write_recap()
            return
        if kind == "report":
            self.export_report()
            return
        view = bench.view
        stem = Path(view.source.path).stem
        summaries = dict(self.summaries)
        if self.pipe is None:
            return
        counter = self.pipe.counter
        merged = plural(len(view.result.chunks), "merged chunk")  # what a notice says
        if kind == "json":
            from dataclasses import fields

            params = view.params  # the run on screen, whatever the sliders did since
            pipe = self.pipe.with_params(
                **{f.name: getattr(params, f.name) for f in fields(params)}
            )

            def write(path: Path) -> str:
                from chunkscope.engine.fileio import atomic_write_text

                atomic_write_text(path, merged_json(view, summaries, counter, pipe))
                return f"{merged} (JSON)"

            self._ask_path(
                "Export merged chunks (JSON) to", save_path(f"{stem}.merged.json"), write
            )
        else:

            def write(path: Path) -> str:
                from chunkscope.engine.fileio import atomic_write_text

                atomic_write_text(path, merged_markdown(view, summaries, counter))
                return f"{merged} (markdown)"

            self._ask_path(
                "Export merged chunks (markdown) to", save_path(f"{stem}.merged.md"), write
            )

    def export_report(self) -> None:
        """The run on screen as `chunkscope report` writes it (`tui.report`), with the
        file's topic marks as its gold starts."""
        from dataclasses import fields

        bench = self.workbench
        selection = self.selection_now()
        if bench is None or bench.view is None or self.pipe is None:
            self.notify("Nothing to export: open a file first.", severity="warning")
            return
        if selection is None and self.selection is not None:
            self.notify(UPDATING_RECAP, severity="warning")
            return
        if selection is None:
            self.notify("No recap yet: open a file and summarize it (s).", severity="warning")
            return
        view = bench.view
        params = view.params
        pipe = self.pipe.with_params(**{f.name: getattr(params, f.name) for f in fields(params)})
        tuning = self.tuning
        marks = list(self.marks) or None
        file_marks = self.file_marks
        partial = file_marks.partial if file_marks is not None else False
        extra, command_note = self._report_args(pipe.params.collapse, marks, partial)

        def write(path: Path) -> str:
            from chunkscope.engine.fileio import atomic_write_text
            from chunkscope.tui.report import gather, render_html, run_flags

            # the marks' line weights, read once for the file and kept (FileMarks.weights)
            weights = file_marks.weights() if marks is not None and file_marks else None
            report = gather(
                pipe,
                view.source,
                view.result,
                selection,
                tuning,
                gold=marks,
                partial=partial,
                weights=weights,
                output=str(path),  # "the same run" writes this page, as the CLI shows
                # the session shown, the reader, tokenizer and backends, then the calls
                extra_args=[*run_flags(pipe.params, view.source.sessions), *extra],
                paths=extra,  # a --gold path is shown as the CLI shows it
                command_note=command_note,
            )
            atomic_write_text(path, render_html(report))
            return f"the report ({plural(len(view.result.chunks), 'merged chunk')})"

        stem = Path(view.source.path).stem
        self._ask_path("Write the HTML report to", save_path(f"{stem}.report.html"), write)

    def _report_args(
        self, collapse: bool, marks: list[int] | None, partial: bool
    ) -> tuple[list[str], str]:
        """The options of `chunkscope report` that make the run on screen beside its knobs
        (raw tool calls: ``--no-collapse``; the marks scored: ``--gold`` with the file
        that holds them), and a note when no file holds the marks as scored."""
        from chunkscope.engine.errors import ChunkscopeError
        from chunkscope.engine.evaluate.gold import load_file_marks, marks_path, read_gold_file
        from chunkscope.engine.recap.collapse import NO_COLLAPSE_FLAG

        extra = [] if collapse else [NO_COLLAPSE_FLAG]
        file_marks = self.file_marks
        if marks is None or file_marks is None:
            return extra, ""
        wanted = (sorted(set(marks)), partial)
        try:
            saved = load_file_marks(file_marks.path, file_marks.digest)
            if (sorted(set(saved.starts)), saved.partial) == wanted:
                where = marks_path(file_marks.path, file_marks.digest)
                return [*extra, "--gold", str(where)], (
                    f"(--gold {where.name}: the topic marks the workbench saved for this "
                    "file, in chunkscope's data folder, marks/)"
                )
            gold = self.options.gold
            if file_marks.origin == "gold" and gold is not None:
                found = read_gold_file(gold)
                if (sorted(set(found.starts)), found.partial) == wanted:
                    return [*extra, "--gold", gold], ""
        except (OSError, ChunkscopeError):
            pass
        return extra, "(the score uses the workbench's topic marks, which no file holds)"

    def action_copy_chunk(self) -> None:
        bench = self.workbench
        card = bench.column_card() if bench is not None else None
        if card is not None:  # comparing: the card selected in the focused column
            what, index, chunk = card
            self.copy_to_clipboard(chunk.text)
            self.notify(
                f"Copied {what} {index} ({chunk.chars} chars) to the clipboard.", markup=False
            )
            return
        picked = bench.selected_chunk() if bench is not None else None
        if picked is None:
            self.notify("Nothing selected to copy.", severity="warning")
            return
        index, chunk = picked
        self.copy_to_clipboard(chunk.text)
        self.notify(f"Copied chunk {index} ({chunk.chars} chars) to the clipboard.", markup=False)

    # ------------------------------------------------------------------ profiles

    def action_save_profile(self) -> None:
        self.ask_save_profile(self.tuning)

    def ask_save_profile(self, tuning: Tuning) -> None:
        """Ask for a name and save `tuning` as that profile (asking before replacing)."""
        from chunkscope.engine.config.settings import check_profile_name, list_profiles
        from chunkscope.tui.screens.prompt import PromptScreen

        def validate(name: str) -> str | None:
            try:
                check_profile_name(name)
            except (ChunkscopeError, ValueError) as e:
                return str(e)
            return None

        def got(name: str | None) -> None:
            if not name:
                return
            try:
                exists = name in list_profiles()
            except ChunkscopeError:
                exists = False
            if exists:
                self.push_screen(
                    ConfirmScreen(f"Profile {name!r} exists. Replace it?", yes="Replace"),
                    lambda yes: self.save_profile(name, tuning) if yes else None,
                )
            else:
                self.save_profile(name, tuning)

        self.push_screen(PromptScreen("Save the parameters as profile", "", validate=validate), got)

    def save_profile(self, name: str, tuning: Tuning | None = None) -> None:
        from chunkscope.engine.config.settings import Profile, save_profile

        profile = Profile.from_tuning(tuning if tuning is not None else self.tuning)
        try:
            where = save_profile(name, profile)
        except (ChunkscopeError, OSError, ValueError) as e:
            self.notify(f"Profile not saved: {e}", severity="error", markup=False)
            return
        self.notify(f"Saved profile {name!r} to {where}.", markup=False)

    def action_load_profile(self) -> None:
        from chunkscope.engine.config.settings import list_profiles
        from chunkscope.tui.screens.choose import ChooseScreen

        try:
            names = list_profiles()
        except ChunkscopeError as e:
            self.notify(str(e), severity="error", markup=False)
            return
        if not names:
            self.notify("No saved profiles yet (ctrl+s saves one).", severity="warning")
            return
        self.push_screen(
            ChooseScreen("Load a profile", [(n, n) for n in names]),
            lambda name: self.load_profile(name) if name else None,
        )

    def apply_tuning(self, tuning: Tuning) -> None:
        """Put a whole `tuning` in force from outside the sliders (a profile, auto-tune,
        N chunks): the controls show it and the pipeline re-runs with it."""
        bench = self.workbench
        if bench is not None:
            bench.show_params(tuning)
        self.request_run(tuning, force=True)

    def load_profile(self, name: str) -> None:
        """Use profile `name`: its values over the declared defaults, as `--profile` does."""
        from chunkscope.engine.config.settings import get_profile

        try:
            tuning = get_profile(name).tuning()
        except (ChunkscopeError, ValueError) as e:
            self.notify(f"Profile not loaded: {e}", severity="error", markup=False)
            return
        self.apply_tuning(tuning)
        self.reselect()
        self.notify(f"Loaded profile {name!r}.", markup=False)

    # ------------------------------------------------------------------ backends

    def use_embedder(self, name: str) -> None:
        self.state = replace(self.state, embedder=name)
        if self._unopened is not None:  # the file the failed embedder left unopened
            self.open_path(*self._unopened)
        elif self.pipe is not None:
            self.open_path(self.pipe.path, self.pipe.params.session)
        self.notify(f"Embedder: {name}.", markup=False)

    def action_toggle_collapse(self) -> None:
        self.toggle_collapse()

    def toggle_collapse(self) -> None:
        """Collapse tool calls before chunking (what `chunkscope recap` does), or stop.
        A markdown document has no tool calls: said, and nothing changes."""
        bench = self.workbench
        view = bench.view if bench is not None else None
        if view is not None and view.source.kind == "markdown":
            name = Path(view.source.path).name
            self.notify(
                f"{name} is a markdown document: it has no tool calls to collapse.",
                markup=False,
            )
            return
        self.options.collapse = not self.options.collapse
        if self.pipe is not None:
            self.open_path(self.pipe.path, self.pipe.params.session)
        state = (
            "collapsed (as `chunkscope recap`)" if self.options.collapse else "raw (kept as turns)"
        )
        self.notify(f"Tool calls: {state}.", markup=False)

    def use_summarizer(self, name: str) -> None:
        """Summarize with `name`, with the model, URL and key the config file gives it."""
        self.state = replace(self.state, summarizer=name)
        self.recap_state = "idle"
        if self.pipe is not None:
            from chunkscope.engine.pipeline import SummarizerSpec

            backend = self._backend("summarizer", name)
            spec = SummarizerSpec(name=name, model=backend.model, base_url=backend.base_url)
            self.pipe = self.pipe.with_params(summarizer=spec)
            # the previous summarizer's summaries and recap are not shown as this one's
            self.summaries.clear()
            self.selection = None
            self.summary_failure = ""
            bench = self.workbench
            if bench is not None:  # it names the summarizer in force (walk 54, F6)
                bench.show_header()
            if bench is not None and bench.view is not None:
                bench.show_summary_progress(0, len(bench.view.result.chunks))
                bench.show_summary()
                bench.show_selection_recap()
                self._after_run(bench.view)
        self.notify(f"Summarizer: {name}.", markup=False)
