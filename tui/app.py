"""The chunkscope workbench: a Textual app that drives `engine.pipeline.Pipeline`.

The app holds the pipeline and the user's choices (merge parameters, budget, pins,
exclusions, summaries seen so far), registers the themes and the command palette, and
pushes `WorkbenchScreen`, which draws everything. What the user has chosen is one
immutable `tui.workbench.state.TuningState` (`app.state`); the work is in the parts of
`tui.workbench`, each a typed `WorkbenchHost`:

- `loader.PipelineDriver`: load (with progress; escape cancels), re-run on a control
  change (debounced, exclusive thread workers), token counts, summaries, recap;
- `strategies.StrategyDriver`: the chunking strategy of each column;
- `actions.WorkbenchActions`: pin / exclude, write and export files, copy, profiles,
  backends.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, ScreenStackError
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Input, TextArea
from textual.worker import WorkerState

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.recap.collapse import COLLAPSE_BY_DEFAULT
from chunkscope.tui.commands import WorkbenchCommands
from chunkscope.tui.keys import key_again, leaving
from chunkscope.tui.screens.help import HelpScreen
from chunkscope.tui.screens.workbench import NARROW_WIDTH, WorkbenchScreen
from chunkscope.tui.textual_fixes import mark_cut_toasts, release_styles_caches
from chunkscope.tui.widgets.header_line import HeaderInfo
from chunkscope.tui.workbench.actions import WorkbenchActions
from chunkscope.tui.workbench.loader import PipelineDriver
from chunkscope.tui.workbench.marks import MarksDriver
from chunkscope.tui.workbench.messages import Notice
from chunkscope.tui.workbench.runs import Derived
from chunkscope.tui.workbench.search import SearchDriver
from chunkscope.tui.workbench.state import TuningState
from chunkscope.tui.workbench.strategies import StrategyDriver
from chunkscope.tui.workbench.sweep import SweepDriver

if TYPE_CHECKING:
    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.pipeline import PipelineParams

release_styles_caches()
mark_cut_toasts()

FIXED_TIMINGS_ENV = "CHUNKSCOPE_FIXED_TIMINGS"


@dataclass
class StartOptions:
    path: str | None = None
    theme: str | None = None
    strict: bool = False
    #: Tool calls folded as `chunkscope recap` does (JSONL logs): the commands' default.
    collapse: bool = COLLAPSE_BY_DEFAULT
    input_format: str | None = None  # None: found from the content
    session: int | None = None  # of a file holding several; None: the newest
    folder: str | None = None  # where the file picker opens (default: the current one)
    #: `chunkscope serve`: the file or folder every open is kept to (`engine.paths.within`)
    confine: str | None = None
    #: The command line's workbench (`chunkscope FILE`): a first file refused once read
    #: (no turns, `engine.read.parse.require_turns`) ends the app with exit code 2 and its
    #: one line in `refused`, as `chunk` does, instead of an empty workbench and a notice.
    exit_if_refused: bool = False
    tokenizer: str | None = None
    embedder: str | None = None
    model: str | None = None
    base_url: str | None = None
    profile: str | None = None
    #: Knob values given on the command line (knob name -> value): they win over the
    #: profile, which wins over the defaults (`engine.config.settings.resolve_tuning`).
    knobs: Mapping[str, Any] = field(default_factory=dict)
    fixed_timings: bool = False
    loading_dialog_delay: float = 0.3
    open_picker: bool = True  # without a path: start in the file picker
    gold: str | None = None  # a gold file's topic starts as the first file's marks
    summarizer: str | None = None  # None: the config file's
    #: Merged chunk texts pinned / excluded at the start (a review's, `chunkscope review`).
    pinned: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    #: `chunkscope review`: the project whose next session's recap is reviewed
    #: (a `tui.workbench.review.ReviewTarget`); `w` saves the recap for it.
    review: Any = None
    #: Judged queries (`engine.search.Query`, from ``--queries Q.json``): the live score
    #: shows their hit rate.
    queries: tuple[Any, ...] = ()


def _moved_to_text_field(event: events.Key, focused: Widget | None) -> bool:
    """Whether the focus went to a text field after `event` was typed (for another
    widget): the key was then typed for that field."""
    editable = isinstance(focused, Input) or (
        isinstance(focused, TextArea) and not focused.read_only
    )
    return editable and focused is not getattr(event, "_chunkscope_focus", None)


def _display_path(path: str) -> str:
    """`path` relative to the current directory when inside it, else with ~ for home."""
    p = Path(path).resolve()
    for base, prefix in ((Path.cwd(), ""), (Path.home(), "~/")):
        try:
            return prefix + str(p.relative_to(base))
        except ValueError:
            continue
    return str(p)


def _file_date(turns: list[Any]) -> str:
    """``2026-11-26``: the date of a document (its turns' timestamp, the file's
    modification time), or nothing when it has none."""
    from chunkscope.engine.model import first_timestamp

    stamp = first_timestamp(turns)
    return f"{stamp:%Y-%m-%d}" if stamp is not None else ""


def _tool_calls_label(collapse: bool, short: bool = False) -> str:
    """The tool calls' state in the header (`short`: a narrow header's)."""
    said = "collapsed" if collapse else "raw"
    return f"T: {said}" if short else f"tool calls: {said} (T)"


#: Seconds between two checks of whether a dialog can take the keys held for it, and
#: how many checks at most (then they go to it as it is).
HELD_KEY_CHECK = 0.01
HELD_KEY_CHECKS = 200


class ChunkscopeApp(
    PipelineDriver, StrategyDriver, WorkbenchActions, MarksDriver, SweepDriver, SearchDriver
):
    TITLE = "chunkscope"
    NOTIFICATION_TIMEOUT = 3  # seconds; errors ask for longer
    CSS_PATH = "app.tcss"
    # Every screen, dialogs included, places its toasts as the workbench's layout at this
    # width does (app.tcss). Typed as Textual types it (not a ClassVar there).
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [  # noqa: RUF012
        (0, "-toasts-narrow"),
        (NARROW_WIDTH, "-toasts-wide"),
    ]
    COMMANDS: ClassVar[set[Any]] = App.COMMANDS | {WorkbenchCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open_file", "Open", priority=True),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help", "Help"),  # from a text field too, which takes `?` as text
        # `q` quits on the main screen (where no field takes text); ctrl+q everywhere.
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
    ]

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """The palette's Screenshot (and `action_screenshot`). In a browser it is a
        download, as Textual does it. Here it is written as every write of the workbench
        (`_write_file`: atomically, `Wrote the screenshot to PATH.` or `cannot write PATH:
        reason`): confined, in the served folder (~/Downloads is outside the folder a
        served workbench may write to); else in `path` when given, in ~/Downloads when it
        exists, or in the current folder (Textual failed there, `Failed to save screenshot`,
        saying neither where nor why: walk 39, F2)."""
        if self.is_web:
            return super().deliver_screenshot(filename, path, time_format)
        from platformdirs import user_downloads_path
        from textual._files import generate_datetime_filename

        from chunkscope.engine.fileio import atomic_write_text

        if self.options.confine is not None:
            from chunkscope.engine.paths import served_folder

            folder = served_folder(self.options.confine)
        elif path is not None:
            folder = Path(path).expanduser()
        else:
            downloads = user_downloads_path()
            try:
                folder = downloads if downloads.is_dir() else Path.cwd()
            except OSError:  # the current folder was removed: the write says so
                folder = Path()
        name = filename or generate_datetime_filename(self.title, ".svg", time_format)
        svg = self.export_screenshot()  # here: it reads the screen, the write is a worker's

        def write(target: Path) -> str:
            atomic_write_text(target, svg)
            return "the screenshot"

        self._write_file(folder / name, write)
        return None

    def __init__(self, options: StartOptions | None = None) -> None:
        super().__init__()
        self.options = options or StartOptions()
        #: The line to show after an unexpected exception ended the app (`tui.crash`).
        self.crash: str | None = None
        #: Keys held while a dialog just opened is being mounted (`_hold_key`),
        #: and how many times it was checked whether it is.
        self._held_keys: list[tuple[str, str | None]] = []
        self._held_checks = 0
        self._held_front = 0  # held keys handed back by a field, ahead of the others
        self._holding = False  # a dialog is answering its field's Enter (`hold_keys`)
        self._release_due = False  # a `_release_keys` check is scheduled
        self._startup_notes: list[str] = []
        self.fixed_timings = self.options.fixed_timings or bool(os.environ.get(FIXED_TIMINGS_ENV))
        self.pipe = None
        self.lock = threading.Lock()
        self.derived = Derived()
        self.state = TuningState()
        self.api_keys = {}
        self.summaries = {}
        self.marks = ()
        self.file_marks = None
        self.selection = None
        self.selection_key = None
        self.selection_view = None
        self.controls_moved_at = self.controls_applied_at = 0.0
        self.recap_state = "idle"
        self.summary_failure = ""
        self.last_run_at = ""
        self.settings = None
        self._run_timer = None
        self._last_request = 0.0
        self._load_worker = None
        self._loading_screen = None
        self.run_generation = 0
        self.drawn_generation = 0
        self.tokens_ready = False
        self._follow_up_timer = None
        self._summary_timer = None
        self._theme_ready = False
        self._init_columns()
        self._init_search()
        self._load_settings()  # once: the profile, the theme and the backends come from it
        self._apply_tuning()
        # Themes are registered and chosen before the first stylesheet is built: a theme
        # switch after mount re-parses every rule (a quarter of the start-up time).
        self._register_themes()
        self._apply_backends()

    # ------------------------------------------------------------------ start-up

    def _apply_backends(self) -> None:
        """Start with the backends the flags or the config file name (keys stay out of params)."""
        embedder = self._backend("embedder", self.options.embedder)
        summarizer = self._backend("summarizer", self.options.summarizer)
        self.state = replace(
            self.state,
            embedder=embedder.name,
            summarizer=summarizer.name,
            pinned=frozenset(self.options.pinned),
            excluded=frozenset(self.options.excluded) - frozenset(self.options.pinned),
        )
        self.api_keys = {"embedder": embedder.api_key, "summarizer": summarizer.api_key}

    def get_theme_variable_defaults(self) -> dict[str, str]:
        from chunkscope.themes import variable_defaults

        try:
            dark = self.current_theme.dark
        except Exception:
            dark = True
        return variable_defaults(dark)

    def on_mount(self) -> None:
        for message in self._startup_notes:
            self.notify(message, severity="warning", timeout=10, markup=False)
        self.push_screen(WorkbenchScreen())
        if self.options.review is not None:
            from chunkscope.tui.workbench.review import announce

            self.call_after_refresh(announce, self, self.options.review)
        if self.options.path:
            self._first_open = True
            self.call_after_refresh(self.open_path, self.options.path, self.options.session)
        elif self.options.open_picker:
            self.action_open_file()

    #: `available_themes`, kept until a theme is registered or unregistered.
    _drawable_themes: dict[str, Theme] | None = None

    @property
    def available_themes(self) -> dict[str, Theme]:
        """The themes the workbench can be drawn in: Textual's, ours and the user's, less
        the ones in the terminal's own ANSI colours (`chunkscope.themes.drawable`). The
        palette, the theme picker and ``--theme`` all read this. Built once per
        change of the registered themes: every widget's painting asks for the current
        theme, which asks for these (a dict a call was ~10% of a slider step's drawing)."""
        themes = self._drawable_themes
        if themes is None:
            from chunkscope.themes import drawable

            themes = {name: t for name, t in super().available_themes.items() if drawable(t)}
            self._drawable_themes = themes
        return themes

    def register_theme(self, theme: Theme) -> None:
        super().register_theme(theme)
        self._drawable_themes = None

    def unregister_theme(self, theme_name: str) -> None:
        super().unregister_theme(theme_name)
        self._drawable_themes = None

    def _register_themes(self) -> None:
        from chunkscope.themes import BUILTIN_THEMES, DEFAULT_THEME, load_user_themes

        for theme in BUILTIN_THEMES:
            self.register_theme(theme)
        user, errors = load_user_themes()
        for theme in user:
            self.register_theme(theme)
        if errors:
            self._startup_notes.append("Theme files skipped:\n" + "\n".join(errors))
        wanted = self.options.theme
        if wanted is None:
            wanted = self.settings.theme if self.settings is not None else DEFAULT_THEME
        if wanted not in self.available_themes:
            if self.options.theme:
                ours = [t.name for t in BUILTIN_THEMES]
                names = ours + sorted(n for n in self.available_themes if n not in ours)
                self._startup_notes.append(
                    f"Unknown theme {wanted!r}; using {DEFAULT_THEME}. Themes: {', '.join(names)}."
                )
            wanted = DEFAULT_THEME
        self.theme = wanted
        self._theme_ready = True

    def _load_settings(self) -> Any:
        from chunkscope.engine.config.settings import load_settings

        try:
            self.settings = load_settings()
        except ChunkscopeError as e:
            self._startup_notes.append(f"Config file not read: {e}")
            self.settings = None
        return self.settings

    def _apply_tuning(self) -> None:
        """Start from the parameters the command line gives, over the profile, over the
        defaults: the same layering as `chunkscope chunk|recap` (flags win)."""
        from chunkscope.engine.config.settings import resolve_tuning

        profile = self.options.profile if self.settings is not None else None
        try:
            tuning = resolve_tuning(self.settings, profile, self.options.knobs)
        except ChunkscopeError as e:
            self._startup_notes.append(str(e))
            try:
                tuning = resolve_tuning(self.settings, None, self.options.knobs)
            except ChunkscopeError:
                return
        self.set_tuning(tuning)

    def set_tuning(self, tuning: Tuning) -> None:
        """Hold `tuning`'s parameters (the controls show them once mounted)."""
        self.state = replace(self.state, tuning=tuning)

    def watch_theme(self, theme: str) -> None:
        bench = self.workbench
        if bench is not None and bench.is_mounted:
            bench.apply_theme_styles()
        if self._theme_ready:
            self._save_theme(theme)

    @work(thread=True, exclusive=True, group="settings", description="_save_theme")
    def _save_theme(self, theme: str) -> None:
        from chunkscope.engine.config.settings import load_settings, save_settings

        try:
            settings = load_settings()
            if settings.theme != theme:
                settings.theme = theme
                save_settings(settings)
        except (ChunkscopeError, OSError) as e:
            self.post_message(Notice(f"Theme not remembered: {e}", "warning"))

    # ------------------------------------------------------------------ typed-ahead keys

    def _top_screen(self) -> Screen[Any] | None:
        """The screen on top, None once the app is closing (its screens are gone: a key
        typed while it quits is then dropped, not a crash)."""
        try:
            return self.screen
        except ScreenStackError:
            return None

    def _hold_key(self, event: events.Key, top: Screen[Any]) -> bool:
        """Hold `event` while the dialog on top is being mounted, or answering its field's
        Enter (`hold_keys`), or closing (`tui.keys.leaving`), and every key after it while
        any is held: they go where they belong, in the order typed, once the screen on
        top is settled. A key typed ahead of a dialog and sent again to it (`_on_key`)
        went behind the keys typed after it that reached its focused widget: ``ctrl+o``
        then a path in one burst (``ctrl+o`` now runs as it comes, before the keys after
        it) opened the picker with the path's start moved to its end (walk 32, F3)."""
        held = self._held_keys
        if (
            not held
            and not self._holding
            and (top.is_mounted or not top.is_modal)
            and not leaving(top)
        ):
            return False
        held.append((event.key, event.character))
        self._schedule_release()
        return True

    def control_moved(self) -> None:
        """`tui.keys.ControlOwner.control_moved`: a slider or a toggle changed value."""
        self.controls_moved_at = time.monotonic()

    def hold_keys(self) -> None:
        """`KeyHolder.hold_keys`: a dialog's field had its Enter."""
        self._holding = True
        self._schedule_release()

    def hand_back_keys(self, keys: list[tuple[str, str | None]]) -> None:
        """`KeyHolder.hand_back_keys`: the keys a dialog's field took after its Enter, or
        while its dialog closed, go ahead of every key held since."""
        self._holding = False
        at = self._held_front
        self._held_keys[at:at] = keys
        self._held_front = at + len(keys)
        self._schedule_release()

    def _schedule_release(self) -> None:
        if not self._release_due:
            self._release_due = True
            self._held_checks = 0
            self.set_timer(HELD_KEY_CHECK, self._release_keys)

    def _release_keys(self) -> None:
        """Send the held keys again, in order, once the screen on top is settled: mounted,
        not closing, not answering an Enter (or, at the latest, after `HELD_KEY_CHECKS`
        checks)."""
        top = self._top_screen()
        self._held_checks += 1
        waiting = top is not None and (not top.is_mounted or leaving(top) or self._holding)
        if waiting and self._held_checks < HELD_KEY_CHECKS:
            self.set_timer(HELD_KEY_CHECK, self._release_keys)
            return
        self._release_due = self._holding = False
        held, self._held_keys, self._held_front = self._held_keys, [], 0
        for key, character in held:
            self.post_message(key_again(self, key, character))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            top = self._top_screen()
            if top is None:
                return  # typed while the app closes: there is nothing left to take it
            if not event.is_forwarded and self._hold_key(event, top):
                return
            if not event.is_forwarded:
                # Which screen, and which widget in it, the key was meant for: see `_on_key`.
                event._chunkscope_screen = top  # type: ignore[attr-defined]
                event._chunkscope_focus = top.focused  # type: ignore[attr-defined]
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:
        """A key typed ahead of a dialog: `b` opens the budget prompt, and the keys that
        follow in the same burst were already queued for the main screen's focused list.
        When such a key comes back unhandled after the screen changed, it is sent again,
        to the screen now on top (the prompt's field), instead of being lost.

        The same for a key typed ahead of a text field: `/` focuses the search question,
        and the letters after it, queued for the list, would run the list's keys (`q`
        quits). A key that comes back unhandled from a widget that has since lost the
        focus to a text field is sent again, to that field."""
        meant_for = getattr(event, "_chunkscope_screen", None)
        top = self._top_screen()
        if top is None:
            event.prevent_default()
            event.stop()
            return
        if meant_for is not None and (
            meant_for is not top or _moved_to_text_field(event, top.focused)
        ):
            event.prevent_default()  # not App._on_key: the bindings of the screen on top
            event.stop()
            self.post_message(key_again(self, event.key, event.character))

    def _handle_exception(self, error: Exception) -> None:
        """An unexpected exception: a report in the data directory, one line kept for
        the terminal (`cmd_tui` prints it), exit status non-zero, no traceback drawn.
        Under ``run_test`` the exception is still raised to the test."""
        from chunkscope.tui.crash import crash_message, write_report

        if self.crash is None:
            self.crash = crash_message(error, write_report(error))
        self._return_code = 1
        if self._exception is None:
            self._exception = error
            self._exception_event.set()
        self.bell()
        self._close_messages_no_wait()

    # ------------------------------------------------------------------ helpers

    def _params(self) -> PipelineParams:
        from chunkscope.engine.pipeline import EmbedderSpec, PipelineParams, SummarizerSpec
        from chunkscope.engine.tokens import DEFAULT_ENCODING

        o = self.options
        emb = self._backend("embedder", self.embedder_name)
        summ = self._backend("summarizer", self.summarizer_name)
        return PipelineParams(
            strict=o.strict,
            input_format=o.input_format,
            session=o.session,
            collapse=o.collapse,
            min_chars=self.min_chars,
            tokenizer=o.tokenizer or DEFAULT_ENCODING,
            embedder=EmbedderSpec(name=emb.name, model=emb.model, base_url=emb.base_url),
            merge=self.merge_params,
            topic=self.state.tuning.topic,
            summarizer=SummarizerSpec(name=summ.name, model=summ.model, base_url=summ.base_url),
        )

    def header_info(self) -> HeaderInfo:
        pipe = self.pipe
        bench = self.workbench
        view = bench.view if bench is not None else None
        if pipe is None or view is None:
            return HeaderInfo()
        src = view.source
        counter = pipe.counter
        path = src.path
        path = Path(path).name if self.fixed_timings else _display_path(path)
        cache = ""
        stats = pipe.cache_stats
        if stats is not None and (stats[0] or stats[1]):
            cache = f"cache {stats[0]}/{stats[0] + stats[1]}"
        summarizer = pipe.params.summarizer.label()
        kind = src.kind_label
        state = short = ""
        if src.kind == "jsonl":
            state = _tool_calls_label(pipe.params.collapse)
            short = _tool_calls_label(pipe.params.collapse, short=True)
        elif not self.fixed_timings:  # a document's date, once (its cards carry no clock)
            state = _file_date(src.turns)
        return HeaderInfo(
            path=path,
            kind=kind,
            kind_short=src.kind_short,
            state=state,
            state_short=short,
            turns=len(src.turns),
            turn_word=src.turn_word,
            collapsed_turns=view.turn_count if view.params.collapse else None,
            skipped=len(src.skipped),
            warnings=len(src.warnings),
            records=src.records,
            tokenizer=counter.name,
            accuracy=counter.accuracy,
            embedder=f"{pipe.params.embedder.label()} · {summarizer}",
            cache=cache,
            last_run="" if not self.last_run_at else f"run {self.last_run_at}",
        )

    # ------------------------------------------------------------------ misc actions

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_next_theme(self) -> None:
        from chunkscope.themes import BUILTIN_THEMES

        names = [t.name for t in BUILTIN_THEMES]
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        self.notify(f"Theme: {self.theme}", markup=False)

    async def action_quit(self) -> None:
        """Quit. The remote clients are told to stop first: a summary or an embedding
        retrying an endpoint that does not answer would otherwise hold the exit for the
        rest of its backoff (`engine.pipeline.Pipeline.stop_requests`)."""
        if self.pipe is not None:
            self.pipe.stop_requests()
        self.exit()

    def action_cancel_work(self) -> None:
        """Escape outside the Search panel (whose own escape closes it): cancel the work
        running; with none, close the Search panel if open (its border says ``esc
        closes`` wherever the focus is: after enter on a result, in the merged column,
        esc did nothing, walk 63 F2), else the key panel if open."""
        cancelled = False
        recap = False  # the summaries or the recap were on their way
        for worker in self.workers:
            if worker.group in ("follow-up", "load") and worker.state == WorkerState.RUNNING:
                worker.cancel()
                cancelled = True
                recap = recap or worker.group == "follow-up"
        bench = self.workbench
        if cancelled:
            self.notify("Cancelled.", markup=False)
            if recap:
                self.recap_cancelled()
        elif self.search_open and bench is not None and self.screen is bench:
            bench.close_search(focus=False)  # the focus stays where it is
        elif self.screen.query("HelpPanel"):
            self.action_hide_help_panel()

    def action_command_palette(self) -> None:
        """Textual's palette, its late work on a palette torn down ignored (`Palette`)."""
        from textual.command import CommandPalette

        from chunkscope.tui.screens.palette import Palette

        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(Palette(id="--command-palette"))

    def search_themes(self) -> None:
        """The palette's "Theme" list: Textual's, its field naming its keys as the
        command palette's does (`THEME_PLACEHOLDER`; the footer is hidden below it)."""
        from textual.theme import ThemeProvider

        from chunkscope.tui.screens.palette import THEME_PLACEHOLDER, Palette

        self.push_screen(Palette(providers=[ThemeProvider], placeholder=THEME_PLACEHOLDER))

    def action_show_help_panel(self) -> None:
        """The palette's "Keys": Textual's key panel, the workbench laid out beside it."""
        super().action_show_help_panel()
        self._keys_panel(True)

    def action_hide_help_panel(self) -> None:
        super().action_hide_help_panel()
        self._keys_panel(False)

    def _keys_panel(self, shown: bool) -> None:
        bench = self.workbench
        if bench is not None and self.screen is bench and bench.keys_open != shown:
            self.call_later(bench.show_keys_panel, shown)

    def workers_idle(self) -> bool:
        """No pipeline work running or scheduled (tests and the benchmark wait for this)."""
        if any(
            t is not None
            for t in (
                self._run_timer,
                self._follow_up_timer,
                self._summary_timer,
                self._strategy_timer,
            )
        ):
            return False
        return not any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers)
