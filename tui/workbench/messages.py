"""What the workbench's thread workers answer with: typed Messages.

A worker never touches a widget or the app's state: it posts one of these
(`App.post_message` is safe from any thread) and the app handles it on the UI
thread (`on_<name>` in `tui.workbench.loader`, `actions`, `strategies`), where a
result for parameters no longer in force is dropped. A flood of progress reports
collapses to the newest (`can_replace`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from textual.message import Message

if TYPE_CHECKING:
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.recap.core import Selection
    from chunkscope.engine.search import Answer, RetrievalScore, SearchParams
    from chunkscope.engine.summarize import Summary
    from chunkscope.tui.workbench.columns import ColumnResult
    from chunkscope.tui.workbench.runs import Derived, RunView
    from chunkscope.tui.workbench.topics import FileMarks


class LoadProgress(Message):
    """A load reached `stage` (with `done` of `total` items when known)."""

    def __init__(self, stage: str, done: int | None, total: int | None) -> None:
        super().__init__()
        self.stage, self.done, self.total = stage, done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


class Loaded(Message):
    """A file is loaded and its first run computed."""

    def __init__(
        self,
        pipe: Pipeline,
        view: RunView,
        derived: Derived,
        notes: list[str],
        marks: tuple[FileMarks | None, str | None] = (None, None),
    ) -> None:
        super().__init__()
        self.pipe, self.view, self.derived, self.notes = pipe, view, derived, notes
        self.marks = marks  # the file's topic marks, and a problem reading them


class LoadFailed(Message):
    """A file could not be loaded (the one open stays open)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error


class RunDone(Message):
    """A run after a control change is computed."""

    def __init__(self, view: RunView) -> None:
        super().__init__()
        self.view = view


class TokensReady(Message):
    """Exact token counts of a run's chunks are in the view."""

    def __init__(self, view: RunView) -> None:
        super().__init__()
        self.view = view


class SummaryReady(Message):
    """The summary of one merged chunk of `view`."""

    def __init__(self, view: RunView, index: int, summary: Summary) -> None:
        super().__init__()
        self.view, self.index, self.summary = view, index, summary


class SummaryProgress(Message):
    """`done` of `total` merged chunks are summarized."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SummaryProgress)


class SummariesReady(Message):
    """Every merged chunk of `view` is summarized (`elapsed` set: say so)."""

    def __init__(self, view: RunView, summaries: list[Summary], elapsed: float | None) -> None:
        super().__init__()
        self.view, self.summaries, self.elapsed = view, summaries, elapsed


class SummariesFailed(Message):
    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error


class RecapSettings(NamedTuple):
    """The settings a recap selection is made under, as `Pipeline.recap` takes them."""

    budget: int
    scorer: str
    pinned: tuple[int, ...]
    excluded: tuple[int, ...]
    headings: bool
    plain: bool


class SelectionReady(Message):
    """The recap selection of `view` under the current budget, pins and exclusions."""

    def __init__(self, view: RunView, selection: Selection, key: RecapSettings) -> None:
        super().__init__()
        self.view, self.selection = view, selection
        self.key = key  # the settings it was made under (`WorkbenchActions.recap_settings`)


class StrategyReady(Message):
    """A column's strategy result."""

    def __init__(self, side: str, result: ColumnResult) -> None:
        super().__init__()
        self.side, self.result = side, result


class SearchReady(Message):
    """The Search panel's question answered over the merged chunks of `view`."""

    def __init__(self, view: RunView, answer: Answer, params: SearchParams) -> None:
        super().__init__()
        self.view, self.answer, self.params = view, answer, params


class RetrievalReady(Message):
    """The query file scored on the merged chunks of `view` (the live score's hit rate)."""

    def __init__(self, view: RunView, score: RetrievalScore) -> None:
        super().__init__()
        self.view, self.score = view, score


class ColumnHitsReady(Message):
    """The query file scored on some compare columns' chunks (by the identity of what
    the chunks come from: ``id(owner) -> (owner, score or None when it failed)``)."""

    def __init__(self, scores: dict[int, tuple[Any, RetrievalScore | None]]) -> None:
        super().__init__()
        self.scores = scores


class WorkFailed(Message):
    """Work in a worker failed: shown as an error titled `what`."""

    def __init__(self, error: BaseException, what: str) -> None:
        super().__init__()
        self.error, self.what = error, what


class Notice(Message):
    """A line for the user from a worker (a file written, a setting not saved)."""

    def __init__(self, text: str, severity: Any = "information") -> None:
        super().__init__()
        self.text, self.severity = text, severity
