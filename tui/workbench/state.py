"""The workbench's state in one typed place.

`TuningState` is what the user has chosen, as one immutable value: the tunable
parameters (`engine.config.tuning.Tuning`: compaction, merge, recap), the pins and
exclusions of the recap, and which backends run. A change makes a new value
(`dataclasses.replace`); the app holds the current one (`WorkbenchHost.state`) and
every part of the workbench reads it from there, so a parameter lives in one place
instead of in the sliders, the app and the pipeline at once.

`WorkbenchHost` is the typed base of the app's parts (`loader`, `actions`,
`strategies`): the attributes and methods they share, declared once, so each part is
checked by mypy against the others.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from textual.app import App
from textual.timer import Timer
from textual.worker import Worker

from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.errors import BackendError, ModelMissing
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.workbench.messages import Notice, RecapSettings, WorkFailed
from chunkscope.tui.workbench.runs import Derived

if TYPE_CHECKING:
    from chunkscope.engine.config.settings import Backend, Settings
    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.engine.pipeline import Pipeline, PipelineParams
    from chunkscope.engine.recap.core import Selection
    from chunkscope.engine.summarize import Summary
    from chunkscope.tui.screens.loading import LoadingScreen
    from chunkscope.tui.screens.workbench import WorkbenchScreen
    from chunkscope.tui.workbench.runs import RunView
    from chunkscope.tui.workbench.topics import FileMarks


def save_path(name: str) -> str:
    """The path every writer of the workbench proposes (`w`, `e`, `M`): `name` in the
    current folder, ``./NAME`` (served, the folder shown), which the user may change."""
    return f"./{name}"


#: The opening of a chunk's first turn that `ChunkStart` keeps: enough to tell two parts
#: of one record apart (a message cut into paragraphs), short enough to be found in a
#: part cut at another size.
_OPENING = 40


def _turn_lines(turn: Turn) -> tuple[int, int] | None:
    """The first and last source lines of `turn` (as `Chunk.lines` counts a turn's)."""
    if turn.source_line is None:
        return None
    first = turn.call_line or turn.text_start or turn.source_line
    return first, turn.last_line or turn.end_line or turn.source_line


@dataclass(frozen=True)
class ChunkStart:
    """Where a chunk the user pinned or excluded starts in the file: the source line and
    turn of its first turn and that turn's opening. A merged chunk's text changes with
    every slider that moves its cuts; its start does not, so a pin follows the chunk
    that now holds the start of the one pinned (walk 54, F3: it vanished without a word
    when the chunk size slider grew the pinned chunk)."""

    line: int | None
    turn: int | None
    opening: str

    @classmethod
    def of(cls, chunk: Chunk) -> ChunkStart | None:
        if not chunk.turns:
            return None
        first = chunk.turns[0]
        lines = _turn_lines(first)
        return cls(lines[0] if lines else None, first.turn_index, first.text[:_OPENING])

    def holder(self, chunks: Sequence[Chunk]) -> int | None:
        """The index of the chunk of `chunks` holding this start: the one with a turn of
        the same record (its lines, else its turn index) that holds the opening (or that
        the opening begins with: a part cut shorter), else the first with a turn of that
        record; None when no chunk has one (the record is no longer read)."""
        line, opening = self.line, self.opening
        if line is None and self.turn is None:
            return None
        first: int | None = None
        for i, chunk in enumerate(chunks):
            if line is not None:
                span = chunk.lines
                if span is None or not span[0] <= line <= span[1]:
                    continue
            for turn in chunk.turns:
                if line is not None:
                    lines = _turn_lines(turn)
                    if lines is None or not lines[0] <= line <= lines[1]:
                        continue
                elif turn.turn_index != self.turn:
                    continue
                text = turn.text
                if opening in text or (text and opening.startswith(text)):
                    return i
                if first is None:
                    first = i
        return first


#: The mark the user set on a chunk: pinned, excluded, or excluded with its pin set aside
#: (``x`` on a pinned chunk: ``x`` again pins it).
Mark = Literal["pinned", "excluded", "held"]


def _together(marks: Iterable[Mark]) -> Mark:
    """The mark of a chunk holding chunks marked `marks`: pinned when one is (a pin wins
    over an exclusion: the recap is never written without a pin the user set), else
    excluded, with a pin set aside when one of them had one."""
    marks = set(marks)
    return "pinned" if "pinned" in marks else "held" if "held" in marks else "excluded"


@dataclass(frozen=True)
class TuningState:
    """What the user has chosen (see the module docstring)."""

    tuning: Tuning = field(default_factory=Tuning)
    pinned: frozenset[str] = frozenset()  # merged chunk texts of the run shown
    excluded: frozenset[str] = frozenset()
    #: Pins set aside while their chunk is excluded (restored when it is not).
    held_pins: frozenset[str] = frozenset()
    #: Where each chunk the user pinned or excluded started, by the text of the chunk
    #: that holds it now (several for a chunk holding several), with the mark set on it:
    #: `followed` places the marks on the chunks of a new run by them, so two chunks
    #: merged and split again are marked as they were (walk 58, F1: an excluded one came
    #: back pinned).
    starts: frozenset[tuple[str, ChunkStart, Mark]] = frozenset()
    headings: bool = False
    embedder: str = "lexical"
    summarizer: str = "extractive"

    def with_tuning(self, **values: Any) -> TuningState:
        """This state with some knobs changed (by knob name; validated)."""
        return replace(self, tuning=self.tuning.with_values(values))

    def mark_of(self, text: str) -> Mark | None:
        """The mark of the merged chunk `text`, None when it has none."""
        if text in self.pinned:
            return "pinned"
        if text in self.excluded:
            return "held" if text in self.held_pins else "excluded"
        return None

    def toggled(
        self, which: Literal["pinned", "excluded"], text: str, start: ChunkStart | None = None
    ) -> TuningState:
        """Pin or exclude a merged chunk's text, or undo it; a chunk is never both.
        Excluding a pinned chunk sets its pin aside (`held_pins`): taking the exclusion
        back pins it again, so ``x`` then ``x`` changes nothing. `start` is where the
        chunk starts (`ChunkStart.of`), kept while the chunk is marked. The marks of the
        chunks a merged one holds are kept as they are: while it has the mark they make
        together they are theirs again when it splits, else its own (`followed`)."""
        pinned, excluded, held = self.pinned, self.excluded, self.held_pins
        if which == "pinned":
            pinned = pinned - {text} if text in pinned else pinned | {text}
            excluded = excluded - {text}
            held = held - {text}
        elif text in excluded:
            excluded = excluded - {text}
            if text in held:
                pinned, held = pinned | {text}, held - {text}
        else:
            excluded = excluded | {text}
            if text in pinned:
                pinned, held = pinned - {text}, held | {text}
        after = replace(self, pinned=pinned, excluded=excluded, held_pins=held)
        mark, starts = after.mark_of(text), self.starts
        if mark is None:
            starts = frozenset(entry for entry in starts if entry[0] != text)
        elif start is not None and not any(t == text for t, _, _ in starts):
            starts = starts | {(text, start, mark)}
        return replace(after, starts=starts)

    def cleared(self) -> TuningState:
        """No pin and no exclusion."""
        return replace(
            self,
            pinned=frozenset(),
            excluded=frozenset(),
            held_pins=frozenset(),
            starts=frozenset(),
        )

    def _parts(self, text: str) -> list[tuple[ChunkStart, Mark]]:
        """The starts the marked chunk `text` holds, each with the mark it takes when the
        chunk splits: its own while the chunk has the mark they make together, else the
        chunk's (the user marked the merged chunk since: ``x`` on it excludes them all)."""
        mark = self.mark_of(text)
        own = [(s, m) for t, s, m in self.starts if t == text]
        if mark is None or _together(m for _, m in own) == mark:
            return own
        return [(s, mark) for s, _ in own]

    def followed(self, chunks: Sequence[Chunk]) -> tuple[TuningState, list[str]]:
        """The pins and exclusions placed on the merged chunks of a new run, and what to
        tell the user. A marked text the run has still marks its chunk; any other marks
        the chunk now holding the start of each chunk it was set on (`ChunkStart`), or
        for a text without a start (a review's) the chunk `match_chunks` finds, as the
        stored recap's pins are found. A chunk that now holds several marked ones has the
        mark they make together (`_together`: a pinned and an excluded one, pinned, and
        said so), and each keeps its own for when they split again; a mark whose start no
        chunk holds is dropped, and said so: the recap is never written without a pin the
        user saw (walk 54, F3)."""
        marked = self.pinned | self.excluded
        if not marked:
            return self, []
        texts = [c.text for c in chunks]
        present = set(texts)
        if marked <= present:
            return self, []
        from chunkscope.engine.inject.recaps import match_chunks

        parts: dict[str, list[Mark]] = {}  # a chunk of the run -> the marks of its parts
        came: dict[str, set[Mark]] = {}  # a chunk of the run -> the marks of the old ones
        starts: set[tuple[str, ChunkStart, Mark]] = set()
        lost: set[str] = set()
        for text in marked:
            mark = self.mark_of(text)
            if mark is None:
                continue
            own = self._parts(text)
            if text in present:
                held = [(text, mark)]
                starts.update((text, s, m) for s, m in own)
            elif own:
                held = []
                for s, m in own:
                    i = s.holder(chunks)
                    if i is not None:
                        held.append((texts[i], m))
                        starts.add((texts[i], s, m))
            else:
                held = []
                for i in match_chunks(texts, [text]):
                    held.append((texts[i], mark))
                    start = ChunkStart.of(chunks[i])
                    if start is not None:
                        starts.add((texts[i], start, mark))
            if not held:
                lost.add(text)
            for now, m in held:
                parts.setdefault(now, []).append(m)
                came.setdefault(now, set()).add(mark)
        marks = {now: _together(ms) for now, ms in parts.items()}
        pinned = frozenset(t for t, m in marks.items() if m == "pinned")
        excluded = frozenset(t for t, m in marks.items() if m != "pinned")
        held_pins = frozenset(t for t, m in marks.items() if m == "held")
        notes: list[str] = []
        count = sum(1 for now, old in came.items() if "pinned" in old and len(old) > 1)
        if count:
            notes.append(
                f"{'A chunk' if count == 1 else f'{count} chunks'} of this run "
                f"{'holds' if count == 1 else 'hold'} a pinned chunk and an excluded one: "
                "pinned (the exclusion is back when they are apart again)."
            )
        for which, group in (("pin", self.pinned), ("exclusion", self.excluded)):
            for text in sorted(group & lost):
                opening = " ".join(text.split())[:48]
                notes.append(
                    f"The {which} on the chunk “{opening}…” no longer matches a chunk "
                    "of this run (its start is not read now): it is dropped."
                )
        state = replace(
            self,
            pinned=pinned,
            excluded=excluded,
            held_pins=held_pins,
            starts=frozenset(starts),
        )
        return state, notes


#: What the workbench offers in place of a backend that failed, by config section.
_OFFLINE = {
    "embedder": "Switch to the offline embedder: ctrl+p → “embedder: lexical (offline)”.",
    "summarizer": "Switch to the offline summarizer: ctrl+p → “summarizer: extractive (offline)”.",
}


def _backend_hint(error: BaseException) -> str | None:
    if isinstance(error, ModelMissing):
        return _OFFLINE.get(error.section)
    section = {"EmbeddingError": "embedder", "SummaryError": "summarizer"}
    return _OFFLINE.get(section.get(type(error).__name__, ""))


def said(error: BaseException) -> str:
    """What the workbench says of `error`: its one line, but a backend without a model
    is told where the workbench takes one: the config file, by its path (the command
    line's flag is no option here: walk 58, F2), and one with a way round it on the
    command line (a missing key's ``or use --summarizer extractive``) is said without
    it: the notification's hint offers the palette's offline choice."""
    if isinstance(error, ModelMissing):
        from chunkscope.engine.config.settings import config_path

        return error.advice(where=str(config_path()))
    if isinstance(error, BackendError) and error.offline:
        return error.said()  # the palette's way is the hint (`_backend_hint`), not a flag
    return str(error).strip() or type(error).__name__


class WorkbenchHost(App[None]):
    """What the parts of the workbench app share (see the module docstring)."""

    state: TuningState
    options: Any  # tui.app.StartOptions
    settings: Settings | None
    fixed_timings: bool
    pipe: Pipeline | None
    lock: threading.Lock
    derived: Derived
    api_keys: dict[str, str | None]
    summaries: dict[str, Summary]  # merged chunk text -> its summary
    marks: tuple[int, ...]  # 1-based source lines where the user says a topic starts
    file_marks: FileMarks | None  # the same, with where they are kept (tui.workbench.marks)
    selection: Selection | None
    #: the settings `selection` was made under (`WorkbenchActions.recap_settings`)
    selection_key: RecapSettings | None
    selection_view: RunView | None  # the run it was made for
    #: when a control last moved, and when the settings last took a control's change
    #: (`time.monotonic`; `WorkbenchActions.controls_moving`)
    controls_moved_at: float
    controls_applied_at: float
    recap_state: str  # idle | waiting | running | failed | cancelled
    #: Why summarizing every merged chunk failed with the summarizer in force ("": it did
    #: not): the Summary panel says so in place of a summary, and no longer summarizes
    #: each chunk selected (`s` tries again).
    summary_failure: str
    last_run_at: str
    run_generation: int
    drawn_generation: int
    tokens_ready: bool
    _run_timer: Timer | None
    _follow_up_timer: Timer | None
    _summary_timer: Timer | None
    _strategy_timer: Timer | None
    _last_request: float
    _load_worker: Worker[None] | None
    _loading_screen: LoadingScreen | None
    #: The file (and session) a backend's failure left unopened, the start's file when
    #: the embedder could not be reached: opened again when the embedder is switched.
    _unopened: tuple[str, int | None] | None = None

    # ------------------------------------------------------------------ the state, read

    @property
    def tuning(self) -> Tuning:
        return self.state.tuning

    @property
    def merge_params(self) -> MergeParams:
        return self.state.tuning.merge

    @property
    def min_chars(self) -> int:
        return self.state.tuning.min_chars

    @property
    def budget(self) -> int:
        return self.state.tuning.recap.budget

    @property
    def scorer(self) -> str:
        return self.state.tuning.recap.scorer

    @property
    def pinned(self) -> frozenset[str]:
        return self.state.pinned

    @property
    def excluded(self) -> frozenset[str]:
        return self.state.excluded

    @property
    def headings(self) -> bool:
        return self.state.headings

    @property
    def embedder_name(self) -> str:
        return self.state.embedder

    @property
    def summarizer_name(self) -> str:
        return self.state.summarizer

    # ------------------------------------------------------------------ shared parts

    @property
    def workbench(self) -> WorkbenchScreen | None:
        from chunkscope.tui.screens.workbench import WorkbenchScreen

        for screen in self.screen_stack:
            if isinstance(screen, WorkbenchScreen):
                return screen
        return None

    def on_work_failed(self, message: WorkFailed) -> None:
        self._notify_error(message.error, message.what)

    def on_notice(self, message: Notice) -> None:
        self.notify(message.text, severity=message.severity, markup=False)

    def _notify_error(self, error: BaseException, what: str) -> None:
        hint = _backend_hint(error)
        message = said(error)
        if hint:
            message += "\n" + hint
        self.notify(message, title=what, severity="error", timeout=12, markup=False)

    def format_seconds(self, seconds: float) -> str:
        if self.fixed_timings:
            return "– ms"
        if seconds < 1:
            return f"{seconds * 1000:.0f} ms"
        return f"{seconds:.2f} s"

    def _backend(self, section: Literal["embedder", "summarizer"], name: str | None) -> Backend:
        """The backend `name` of a stage with the config file's model, URL and key."""
        from chunkscope.engine.config.settings import Settings, resolve_backend
        from chunkscope.engine.pipeline import EmbedderSpec, SummarizerSpec

        o = self.options
        flags = (o.model, o.base_url) if section == "embedder" else (None, None)
        default = EmbedderSpec().name if section == "embedder" else SummarizerSpec().name
        settings = self.settings if self.settings is not None else Settings()
        return resolve_backend(section, name, *flags, default=default, settings=settings)

    # Provided by the parts (declared here so each part type-checks against the others).

    def _params(self) -> PipelineParams:
        raise NotImplementedError

    def open_path(self, path: str, session: int | None = None) -> None:
        raise NotImplementedError

    def request_run(self, tuning: Tuning, *, force: bool = False) -> None:
        raise NotImplementedError

    def hold_keys(self) -> None:
        raise NotImplementedError

    def hand_back_keys(self, keys: list[tuple[str, str | None]]) -> None:
        raise NotImplementedError

    def _current(self, pipe: Pipeline, view: RunView) -> bool:
        raise NotImplementedError

    def _after_run(self, view: RunView) -> None:
        raise NotImplementedError

    def _select(self, pipe: Pipeline, view: RunView, worker: Worker[Any]) -> None:
        raise NotImplementedError

    def reselect(self) -> None:
        raise NotImplementedError

    def _ask_path(self, title: str, default: str, write: Any, problem: str = "") -> None:
        raise NotImplementedError

    def set_file_marks(self, marks: FileMarks | None, problem: str | None = None) -> None:
        raise NotImplementedError

    def judge_column(self, chunks: Any) -> Any:
        raise NotImplementedError

    def ask_save_profile(self, tuning: Tuning) -> None:
        raise NotImplementedError

    def schedule_sweep(self, delay: float | None = None) -> None:
        raise NotImplementedError

    def apply_tuning(self, tuning: Tuning) -> None:
        raise NotImplementedError

    def search_follow(self, view: RunView) -> None:
        raise NotImplementedError

    @property
    def comparing(self) -> bool:
        raise NotImplementedError
