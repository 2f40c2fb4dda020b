"""Driving the pipeline from the workbench: opening a file, re-running on a control
change, exact token counts, summaries and the recap, all in thread workers.

A part of `ChunkscopeApp` (it reads the app's state: the pipeline, the parameters,
pins, exclusions and known summaries). Every worker answers with a Message
(`tui.workbench.messages`), handled on the UI thread; a result for parameters that are
no longer in force is dropped. Requests are debounced (the first of a burst runs at
once) and a newer run cancels an older one (``exclusive=True``); follow-ups wait until
the controls are still.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import Worker, WorkerState, get_current_worker

from chunkscope.engine.model import gc_paused
from chunkscope.engine.read.parse import require_turns, skipped_summary
from chunkscope.engine.textutil import plural
from chunkscope.tui.screens.loading import LoadingScreen
from chunkscope.tui.screens.open_file import OpenFileScreen
from chunkscope.tui.workbench.messages import (
    Loaded,
    LoadFailed,
    LoadProgress,
    RunDone,
    SummariesFailed,
    SummariesReady,
    SummaryProgress,
    SummaryReady,
    TokensReady,
    WorkFailed,
)
from chunkscope.tui.workbench.runs import (
    Cancelled,
    Derived,
    RunView,
    add_tokens,
    build_view,
    exact_tokens,
    prefetch_tokens,
)
from chunkscope.tui.workbench.state import WorkbenchHost, _backend_hint, said

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.tui.workbench.topics import FileMarks

DEBOUNCE = 0.05

_heap_lock = threading.Lock()
_loads_running = 0


@contextmanager
def loading_heap() -> Iterator[None]:
    """No cyclic garbage collection while a file loads; then freeze what survived.

    A large log adds millions of objects to the heap (turns, chunks). Collected
    as the heap grows, they cost full collections of up to 0.6 s each, and a
    collection holds the GIL, so the workbench stalled while the load ran.
    Instead the collector is paused for the load (`engine.model.gc_paused`, which
    counts pauses across threads) and what the load built is moved to the
    collector's permanent generation (`gc.freeze`) at its end, so later
    collections (slider steps, summaries) never scan it. The loaded data has no
    reference cycles, so refcounting frees it when another file replaces it (a
    test checks that a used pipeline is freed without the collector). Whatever
    else became cyclic garbage meanwhile is reclaimed when the next load starts:
    it unfreezes the heap and runs one full collection first. With nothing frozen
    (the first load, or a heap unfrozen since) nothing was hidden from the automatic
    collector, whose old generation is left to it as ever: the load collects only the
    young generations (a full collection of a large process's heap cost 0.1-0.5 s of
    every start).
    """
    global _loads_running
    with _heap_lock:
        first = _loads_running == 0
        _loads_running += 1
    if first:
        hidden = gc.get_freeze_count() > 0
        gc.unfreeze()
        gc.collect(2 if hidden else 1)
    with gc_paused():
        try:
            yield
        finally:
            with _heap_lock:
                _loads_running -= 1
                if _loads_running == 0:
                    gc.freeze()


#: Files from this size (bytes) get the loading dialog at once (see `open_path`).
BIG_FILE = 16 * 1024 * 1024
#: How long a big file's load waits for its dialog to be drawn, at most (seconds).
DIALOG_WAIT = 2.0

FOLLOW_UP_DELAY = 0.25
PROGRESS_INTERVAL = 0.1
SUMMARY_DELAY = 0.15


class PipelineDriver(WorkbenchHost):
    """Loads, runs and follows up (see the module docstring); a part of the app."""

    #: The path the picker chose for the load running, None for any other load: a
    #: file refused once read (no turns) reopens the picker with it, to be corrected.
    _picked: str | None = None
    #: The file (and session) of the load running.
    _opening: tuple[str, int | None] | None = None
    #: The next `open_path` is the file given at the start; `_first_load` is its load.
    _first_open: bool = False
    _first_load: Worker[None] | None = None
    #: Why the first file was refused, when that ended the app (`exit_if_refused`).
    refused: str | None = None

    # ------------------------------------------------------------------ opening

    def action_open_file(self, typed: str = "") -> None:
        if isinstance(self.screen, OpenFileScreen):
            # ctrl+o runs above every screen (a priority binding): in the picker it
            # stacks no second one, whose escape would lead back to the first
            self.screen.query_one("#path").focus()
            return

        def chosen(choice: tuple[str, int | None] | None) -> None:
            if choice:
                self.open_path(*choice)
                self._picked = choice[0]

        start = self.options.folder or Path.cwd()
        confine = self.options.confine
        if confine is not None:  # served: the picker starts in the folder shown
            from chunkscope.engine.paths import served_folder

            start = served_folder(confine)
        self.push_screen(OpenFileScreen(start, typed, confine), chosen)

    def open_path(self, path: str, session: int | None = None) -> None:
        """Open `path` (for a file holding several sessions, `session`; None: the newest)."""
        self._picked = None
        if self.options.confine is not None:
            from chunkscope.engine.errors import SourceError
            from chunkscope.engine.paths import within

            try:
                within(path, self.options.confine)
            except SourceError as e:
                self.notify(str(e), severity="error", markup=False)
                return
        self.options.session = session
        self.cancel_load()
        self._opening = (path, session)
        try:
            big = os.stat(path).st_size >= BIG_FILE
        except OSError:
            big = False  # the load reports why it cannot open it
        # A big file gets its dialog at once, and the load waits until it is drawn:
        # drawing it while the parse thread holds the GIL took up to half a second.
        drawn = threading.Event() if big else None
        worker = self._load(path, self._params(), drawn)
        self._load_worker = worker
        first, self._first_open = self._first_open, False
        self._first_load = worker if first else None
        bench = self.workbench
        if bench is not None:
            bench.show_busy(f"opening {Path(path).name}…")

        def show_progress() -> None:
            # Only a load that takes a while gets a progress dialog (and escape to cancel).
            if self._load_worker is worker and worker.state in (
                WorkerState.PENDING,
                WorkerState.RUNNING,
            ):
                self._loading_screen = LoadingScreen(path, on_drawn=drawn.set if drawn else None)
                self.push_screen(self._loading_screen)
            elif drawn is not None:
                drawn.set()

        if big:
            show_progress()
        else:
            self.set_timer(self.options.loading_dialog_delay, show_progress)

    def cancel_load(self) -> None:
        worker = self._load_worker
        if worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
            worker.cancel()
            self.notify("Load cancelled; the previous file stays open.", markup=False)
        self._load_worker = None
        self._close_loading()

    def _close_loading(self) -> None:
        bench = self.workbench
        if bench is not None:
            bench.show_busy("")
        screen = self._loading_screen
        self._loading_screen = None
        if screen is not None and screen in self.screen_stack:
            screen.dismiss(None)

    def _stage(
        self, worker: Worker[Any], stage: str, done: int | None = None, total: int | None = None
    ) -> None:
        if worker.is_cancelled:
            raise Cancelled
        if self._loading_screen is not None:
            self.post_message(LoadProgress(stage, done, total))

    @work(thread=True, exclusive=True, group="load", description="_load")
    def _load(self, path: str, params: Any, drawn: threading.Event | None = None) -> None:
        from chunkscope.engine.pipeline import Pipeline

        worker = get_current_worker()
        warnings: list[str] = []
        if drawn is not None:
            drawn.wait(DIALOG_WAIT)

        def progress(stage: str) -> Callable[[int, int], None]:
            # Each stage reports as it goes; a cancelled load stops at the next report.
            def report(done: int, total: int) -> None:
                self._stage(worker, stage, done, total)

            self._stage(worker, stage)
            return report

        try:
            with loading_heap():
                pipe = Pipeline(path, params, warn=warnings.append, api_keys=self.api_keys)
                require_turns(pipe.source(progress=progress("parsing")))
                n_turns = len(pipe.turns(progress=progress("collapsing tool calls")))
                pipe.raw_chunks(progress=progress(f"splitting {n_turns:,} turns"))
                pipe.compact_spans(progress=progress("compacting"))
                pipe.compacted(progress=progress("building chunks"))
                pipe.embeddings(progress=progress("embedding"))
                self._stage(worker, "merging")
                derived = Derived()
                lock = threading.Lock()
                view = build_view(pipe, self._left_kind(), derived, lock, with_tokens=False)
                marks = self._read_marks(path)
        except Cancelled:
            return
        except Exception as e:  # a bad file, a backend or a bug: the app keeps its state
            self.post_message(LoadFailed(e))
            return
        if worker.is_cancelled:
            return
        self.post_message(Loaded(pipe, view, derived, warnings, marks))

    def _read_marks(self, path: str) -> tuple[FileMarks | None, str | None]:
        """The file's topic marks (in the load worker: it hashes the file). The gold file
        given on the command line applies to the file it was given with."""
        from chunkscope.tui.workbench.topics import read_file_marks

        gold = self.options.gold
        first = self.options.path
        if gold is not None and (first is None or Path(first).resolve() != Path(path).resolve()):
            gold = None
        try:
            return read_file_marks(path, gold)
        except OSError as e:
            return None, f"{path}: cannot read the topic marks: {e.strerror or e}"

    def _left_kind(self) -> str:
        bench = self.workbench
        return bench.left_kind if bench is not None else "compacted"

    def _load_failed(self, error: BaseException) -> None:
        from chunkscope.engine.errors import SourceError

        first = self._first_load is not None and self._first_load is self._load_worker
        self._first_load = None
        if first and self.options.exit_if_refused and isinstance(error, SourceError):
            # the file given on the command line: one line and exit 2, as `chunk` says it
            self.refused = str(error)
            self.exit(return_code=2)
            return
        self._close_loading()
        self._load_worker = None
        if self.pipe is not None:
            # Keep what is on screen, and the backend it was computed with.
            self.state = replace(self.state, embedder=self.pipe.params.embedder.name)
        backend = _backend_hint(error) is not None
        self._unopened = self._opening if backend else None
        self._notify_error(error, "Embedding failed" if backend else "Could not open the file")
        picked, self._picked = self._picked, None
        if picked is not None and isinstance(error, SourceError):
            self.action_open_file(picked)  # the picker back, the path to correct

    def _loaded(
        self,
        pipe: Pipeline,
        view: RunView,
        derived: Derived,
        warnings: list[str],
        marks: tuple[FileMarks | None, str | None] = (None, None),
    ) -> None:
        self._picked = None
        first = self._first_load is not None and self._first_load is self._load_worker
        self._first_load = None
        self._close_loading()
        self._unopened = None
        self._load_worker = None
        before, self.pipe = self.pipe, pipe
        self.derived = derived
        self.tokens_ready = False
        self.summaries = {}
        self.selection = None
        again = (
            before is not None
            and before.path == pipe.path
            and before.params.session == pipe.params.session
        )
        notes: list[str] = []
        if first or again:
            # the pins and exclusions given at the start (a review's), or the same file
            # read again (tool calls collapsed or not, another embedder): on the chunks
            # holding theirs, as a slider's run places them; they were dropped without a
            # word, and `w` saved a review without them
            self.state, notes = self.state.followed(view.result.chunks)
        else:
            self.state = self.state.cleared()
        for note in notes:
            self.notify(note, title="Recap", severity="warning", timeout=10, markup=False)
        self.last_run_at = self._now()
        source = view.source
        if source.mostly_skipped:
            self.notify(
                skipped_summary(source),
                title="Most of the file was not read",
                severity="warning",
                timeout=15,
                markup=False,
            )
        elif source.skipped:
            # the file by its name, as the warnings' toast says it: one stacked over the
            # next file opened read as that file's (a markdown file's line 5 "not valid
            # JSON": walk 52, F4)
            first = source.skipped[0]
            self.notify(
                f"Skipped {plural(len(source.skipped), 'malformed line')} of "
                f"{Path(source.path).name}; first: line {first.line}: {first.reason}",
                title="Parse problems",
                severity="warning",
                timeout=10,
                markup=False,
            )
        if source.warnings:  # as the commands print them, the file by its name
            self.notify(
                "\n".join(source.warning_lines(Path(source.path).name)),
                title="Read with warnings",
                severity="warning",
                timeout=10,
                markup=False,
            )
        for w in warnings[:3]:
            self.notify(w, severity="warning", markup=False)
        if len(source.sessions) > 1 and pipe.params.session is None:
            self._offer_sessions(pipe.path, source.sessions)
        self.set_file_marks(*marks)
        bench = self.workbench
        if bench is None:
            return
        bench.selected = 0
        bench.show_view(view, keep_left=False)
        bench.show_header()
        # no recap yet: the preview says it is being computed, not the note drawn
        # before the file was open, nor the last file's recap (walk 59, F9)
        bench.show_selection_recap()
        self.run_generation += 1
        self._after_run(view)

    def _offer_sessions(self, path: str, sessions: list[tuple[int, str]]) -> None:
        """A file holding several sessions opens the newest; offer the others."""
        from chunkscope.tui.screens.choose import ChooseScreen

        def chosen(value: str | None) -> None:
            if value is not None and int(value) != sessions[0][0]:
                self.open_path(path, int(value))

        # numbered as --session counts them (file order), the newest first: a page
        # exported says the same number (walk 18, F4: the dialog said 2. for --session 0)
        choices = [(str(i), f"{i:>3}. {title}") for i, title in sessions]
        title = (
            f"{len(sessions)} sessions in {Path(path).name}, by their --session number: "
            f"the newest ({sessions[0][0]}) is open"
        )
        hint = "↑ ↓ move · enter opens it · escape keeps the newest"
        self.push_screen(ChooseScreen(title, choices, hint=hint), chosen)

    def _now(self) -> str:
        return "at –" if self.fixed_timings else time.strftime("%H:%M:%S")

    # ------------------------------------------------------------------ re-running

    def request_run(self, tuning: Tuning, *, force: bool = False) -> None:
        """A control changed: re-run now, or after a short pause if changes come fast."""
        self.controls_applied_at = time.monotonic()
        changed = replace(self.state, tuning=tuning)
        if self.pipe is None:
            self.state = changed
            return
        if not force and changed == self.state:
            return
        self.state = changed
        self._cancel_follow_up()
        if self._run_timer is not None:
            self._run_timer.stop()
            self._run_timer = None
        now = time.monotonic()
        quiet = now - self._last_request > DEBOUNCE
        self._last_request = now
        if quiet:
            self._start_run()
        else:
            self._run_timer = self.set_timer(DEBOUNCE, self._start_run)

    def _start_run(self) -> None:
        self._run_timer = None
        if self.pipe is None:
            return
        # The run's pipeline: the open file with the parameters in force (the memos and
        # caches are the file's, so only the stages these parameters change run again).
        tuning = self.state.tuning
        self.pipe = self.pipe.with_params(
            merge=tuning.merge, min_chars=tuning.min_chars, topic=tuning.topic
        )
        self._run(self.pipe, self._left_kind())

    @work(thread=True, exclusive=True, group="run", description="_run")
    def _run(self, pipe: Pipeline, left_kind: str) -> None:
        worker = get_current_worker()
        try:
            view = build_view(
                pipe, left_kind, self.derived, self.lock, with_tokens=self.tokens_ready
            )
        except Exception as e:
            self.post_message(WorkFailed(e, "Merge failed"))
            return
        if worker.is_cancelled or pipe is not self.pipe:
            return
        self.post_message(RunDone(view))

    def _ran(self, view: RunView) -> None:
        bench = self.workbench
        # the pins and exclusions onto this run's chunks, before anything reads them
        self.state, notes = self.state.followed(view.result.chunks)
        for note in notes:
            self.notify(note, title="Recap", severity="warning", timeout=10, markup=False)
        self.last_run_at = self._now()
        self.run_generation += 1
        if bench is not None:
            bench.show_view(view)
            bench.show_header()
        self._after_run(view)

    def _after_run(self, view: RunView) -> None:
        """Follow-ups of a run (exact token counts, summaries, the recap) start once the
        controls have been still for a moment, so they never slow down a slider drag."""
        if self.recap_state == "cancelled":
            self.recap_state = "idle"  # this run's recap is on its way again
        if self._follow_up_timer is not None:
            self._follow_up_timer.stop()
        pipe = self.pipe

        def start() -> None:
            self._follow_up_timer = None
            self._follow_up(pipe, view)

        self._follow_up_timer = self.set_timer(FOLLOW_UP_DELAY, start)
        self.call_after_refresh(self._drawn, self.run_generation)
        self.schedule_sweep()
        self.search_follow(view)

    def _drawn(self, generation: int) -> None:
        self.drawn_generation = generation

    def _cancel_follow_up(self) -> None:
        if self._follow_up_timer is not None:
            self._follow_up_timer.stop()
            self._follow_up_timer = None
        self.workers.cancel_group(self, "follow-up")

    @work(thread=True, exclusive=True, group="follow-up", description="_follow_up")
    def _follow_up(self, pipe: Pipeline, view: RunView) -> None:
        worker = get_current_worker()

        def cancelled() -> bool:
            return worker.is_cancelled or pipe is not self.pipe

        if view.compact_tokens is None:
            if not prefetch_tokens(pipe, view, self.derived, self.lock, cancelled):
                return
            with self.lock:
                add_tokens(pipe, view, self.derived)
            if cancelled():
                return
            self.post_message(TokensReady(view))
        tokens = exact_tokens(pipe, view.result.chunks, self.lock, cancelled)
        if tokens is None or cancelled():
            return
        view.merged_tokens = tokens
        view.merged_tokens_exact = True
        self.tokens_ready = True
        self.post_message(TokensReady(view))
        if self.summarizer_name == "extractive":
            self._summarize(pipe, view, worker)

    def _tokens_ready(self, view: RunView) -> None:
        bench = self.workbench
        if bench is not None:
            bench.show_tokens(view)

    # ------------------------------------------------------------------ summaries

    def summary_of(self, index: int) -> tuple[Any | None, str]:
        """The known summary of merged chunk `index`, or None and a note on why not."""
        bench = self.workbench
        view = bench.view if bench is not None else None
        if view is None or not 0 <= index < len(view.result.chunks):
            return None, "Nothing open."
        summary = self.summaries.get(view.result.chunks[index].text)
        if summary is not None:
            return summary, ""
        if self.summary_failure:  # said, not tried again on every chunk selected
            name = self.summarizer_name
            return None, (
                f"The {name} summarizer failed: {self.summary_failure}. No summary is shown "
                "(the previous summarizer's are gone). s tries again; the palette's "
                "“summarizer: extractive (offline)” needs no model."
            )
        # Summarize the selection once it stays put for a moment (not on every step of a
        # slider drag or every key of a scroll).
        if self._summary_timer is not None:
            self._summary_timer.stop()
        pipe = self.pipe

        def start() -> None:
            self._summary_timer = None
            self._summarize_one(pipe, view, index)

        self._summary_timer = self.set_timer(SUMMARY_DELAY, start)
        return None, "Summarizing…"

    @work(thread=True, exclusive=True, group="summary-one", description="_summarize_one")
    def _summarize_one(self, pipe: Pipeline, view: RunView, index: int) -> None:
        worker = get_current_worker()
        if not self._current(pipe, view):
            return
        try:
            summary = pipe.summary_for(index)
        except Exception as e:  # said in the panel too: not tried on every chunk selected
            self.post_message(SummariesFailed(e))
            return
        # summary_for reads the pipeline's merge in force: keep it only if that is the view's.
        if worker.is_cancelled or not self._current(pipe, view):
            return
        self.post_message(SummaryReady(view, index, summary))

    def _current(self, pipe: Pipeline, view: RunView) -> bool:
        """Whether the pipeline still holds the parameters `view` was computed with."""
        p = pipe.params
        return (
            pipe is self.pipe
            and p.merge == view.params.merge
            and p.topic == view.params.topic
            and p.min_chars == view.params.min_chars
        )

    def _summary_ready(self, view: RunView, index: int, summary: Any) -> None:
        self.summaries[view.result.chunks[index].text] = summary
        bench = self.workbench
        if bench is not None and bench.view is view and bench.selected == index:
            bench.show_summary()

    def action_summarize_all(self) -> None:
        bench = self.workbench
        if self.pipe is None or bench is None or bench.view is None:
            self.notify("Open a file first (ctrl+o).", severity="warning")
            return
        chunks = bench.view.result.chunks
        if self.recap_state == "cancelled":
            self.recap_state = "idle"
        if all(chunk.text in self.summaries for chunk in chunks):
            # nothing to do: said, not a "Summarized 57 merged chunks in 0 ms" of cache hits
            n = len(chunks)
            self.notify(f"All {n} summaries are done." if n != 1 else "The summary is done.")
            if self.selection is None:  # their recap, cancelled before it was selected
                self.reselect()
            return
        self._summarize_all(self.pipe, bench.view)
        if self.selection is None:  # the recap is being computed now (`recap_note`)
            bench.show_selection_recap()

    @work(thread=True, exclusive=True, group="follow-up", description="_summarize_all")
    def _summarize_all(self, pipe: Pipeline, view: RunView) -> None:
        self._summarize(pipe, view, get_current_worker(), announce=True)

    def _summarize(
        self, pipe: Pipeline, view: RunView, worker: Worker[Any], announce: bool = False
    ) -> None:
        """Summarize every merged chunk of `view` (cached ones at once), then select the recap."""
        bench = self.workbench

        last = [0.0]

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled or pipe is not self.pipe:
                raise Cancelled
            now = time.monotonic()
            if bench is not None and (now - last[0] > PROGRESS_INTERVAL or done == total):
                last[0] = now
                self.post_message(SummaryProgress(done, total))

        t0 = time.perf_counter()
        if not self._current(pipe, view):
            return
        try:
            summaries = pipe.summaries(progress=progress)
        except Cancelled:
            return
        except Exception as e:
            self.post_message(SummariesFailed(e))
            return
        if not self._current(pipe, view) or len(summaries) != len(view.result.chunks):
            return
        if worker.is_cancelled:
            return
        elapsed = time.perf_counter() - t0
        self.post_message(SummariesReady(view, summaries, elapsed if announce else None))
        self._select(pipe, view, worker)

    def _summaries_failed(self, error: BaseException) -> None:
        self.recap_state = "failed"
        self.summary_failure = said(error)
        self._notify_error(error, "Summaries failed")
        bench = self.workbench
        if bench is not None:
            bench.show_summary()
            bench.show_selection_recap()

    def _summaries_ready(self, view: RunView, summaries: list[Any], elapsed: float | None) -> None:
        self.summary_failure = ""
        for chunk, summary in zip(view.result.chunks, summaries, strict=True):
            self.summaries[chunk.text] = summary
        bench = self.workbench
        if bench is not None and bench.view is view:
            bench.show_summary()
            bench.show_summary_progress(len(summaries), len(summaries))
        if elapsed is not None:
            self.notify(
                f"Summarized {len(summaries)} merged chunks in {self.format_seconds(elapsed)}.",
                markup=False,
            )

    # ------------------------------------------------------------------ the workers' answers

    def on_load_progress(self, message: LoadProgress) -> None:
        screen = self._loading_screen
        if screen is not None:
            screen.set_stage(message.stage, message.done, message.total)

    def on_loaded(self, message: Loaded) -> None:
        self._loaded(message.pipe, message.view, message.derived, message.notes, message.marks)

    def on_load_failed(self, message: LoadFailed) -> None:
        self._load_failed(message.error)

    def on_run_done(self, message: RunDone) -> None:
        self._ran(message.view)

    def on_tokens_ready(self, message: TokensReady) -> None:
        self._tokens_ready(message.view)

    def on_summary_ready(self, message: SummaryReady) -> None:
        self._summary_ready(message.view, message.index, message.summary)

    def on_summary_progress(self, message: SummaryProgress) -> None:
        bench = self.workbench
        if bench is not None:
            bench.show_summary_progress(message.done, message.total)

    def on_summaries_ready(self, message: SummariesReady) -> None:
        self._summaries_ready(message.view, message.summaries, message.elapsed)

    def on_summaries_failed(self, message: SummariesFailed) -> None:
        self._summaries_failed(message.error)
