"""The Search panel: a question for the merged chunks, the context they make under the
budget, and the ranked chunks.

One line for the question (enter searches, escape closes), one for the context
(``context: 812 of 1000 tokens · 4 of 48 chunks  · ranker [bm25] embed fusion``, the
ranker a toggle at its right; a context too long for its row is said in shorter forms,
whole parts each, `panel_title.fit_text`, the whole of it on hover), then a line
per chunk of the context: rank, score, merged chunk, source lines, tokens and the
chunk's first line. Log text is data: each row is a `rich.text.Text` of the text
stripped of control sequences, never markup.

The panel owns no search: it posts `Submitted`, `RankerChanged`, `Picked` (a result
highlighted: its merged chunk is selected) and `Closed`; the app searches
(`tui.workbench.search`) and `show_answer` draws what it found.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.input import Selection
from textual.widgets.option_list import Option

from chunkscope.engine.search import DEFAULT_RANKER, RANKERS
from chunkscope.tui.keys import key_again
from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
from chunkscope.tui.widgets.chunk_list import preview_lines
from chunkscope.tui.widgets.ordered_input import OrderedInput
from chunkscope.tui.widgets.panel_title import fit_text, title_forms
from chunkscope.tui.widgets.rows import put_text

PLACEHOLDER = "ask the merged chunks a question · enter searches · esc closes"


def _lines(lines: tuple[int, int] | None) -> str:
    if not lines:
        return "-"
    return f"{lines[0]}" if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


def result_row(result: Any) -> Text:
    """One result as a line: rank, score, chunk, lines, tokens, its first line (data)."""
    first = preview_lines(result.text, 1)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{result.rank:>2}. ", "bold")
    text.append(f"{result.score:7.3f}  ")
    text.append(f"#{result.chunk:<4}", "bold")
    # not dim: on the selected row's cursor colour that left 3.1-3.4:1 (walk 9, 12)
    text.append(f" lines {_lines(result.lines):<9} {result.tokens:>4}t  ")
    if result.via is not None:
        text.append(f"beside #{result.via}  ", "italic")
    if result.truncated:
        text.append("cut to fit  ", "italic")
    text.append(first[0] if first else "")
    return text


def context_forms(answer: Any, chunks: int) -> list[str]:
    """What `answer`'s context holds of `chunks` merged chunks, longest first: the note
    on the budget's unused rest shortened first, then the counts, then the note left out."""
    used, budget, picked = answer.used_tokens, answer.budget, len(answer.results)
    slots = [
        [f"context: {used} of {budget} tokens", f"context {used}/{budget} tokens"],
        [f"{picked} of {chunks} chunks", f"{picked}/{chunks} chunks"],
        [*answer.rest_notes, ""],
        [*answer.order_notes, ""],
    ]
    return title_forms(slots, [3, 3, 2, 0, 1, 2])


class ContextLine(Static):
    """The context line: the longest of its forms that fits its row (fitted again when
    the row's width changes), the whole of it on hover when shortened."""

    _forms: tuple[str, ...] = ("",)

    def show(self, *forms: str) -> None:
        self._forms = forms or ("",)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        shown = fit_text(self._forms, self.size.width)
        put_text(self, shown)
        self.tooltip = self._forms[0] if shown != self._forms[0] else None


class QuestionField(OrderedInput):
    """The question's field. Keys reach it in a burst (escape and ``b ⌫⌫⌫⌫⌫ 777 ⏎``
    right after it, read together while a search's thread held the app): the app sent
    every one to the field before the escape, bubbling up to the panel's binding, closed
    the panel, and ``b`` and ``777`` were typed into the hidden field, the budget prompt
    never opened. So the keys after an escape are held (the keys before it, an enter
    that asks the question, go their way first) until the panel has closed and moved the
    focus (`release`, from `SearchPanel.action_close`), then sent again, in order, to the
    app, which gives them to the widget focused now, as it does a key typed ahead of a
    dialog (`ChunkscopeApp._on_key`); so is a key that reaches the field once the focus
    has gone elsewhere."""

    #: Seconds after which keys held behind an escape that closed nothing go on anyway.
    HOLD = 1.0

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._held: list[events.Key] | None = None
        self._hold_timer: Timer | None = None

    async def _on_key(self, event: events.Key) -> None:
        if self.screen.focused is not self:  # (`has_focus` waits for the Blur behind)
            event.prevent_default()  # not Input._on_key: no letter typed into the field
            event.stop()
            self._again(event)
        elif self._held is not None:
            event.prevent_default()
            event.stop()
            self._held.append(event)
        elif event.key == "escape":  # not stopped: the panel's binding closes it
            self._held = []
            self._hold_timer = self.set_timer(self.HOLD, self.release)
        elif event.key == "down":
            # The panel's ↓ (to the results) run as the key comes, the focus moved at
            # once: the ↓ of the same burst already queued for this field then find it
            # gone and go on to the results (`_again`). Left to the binding, each reached
            # the app while the field still had the focus, and each went "to the
            # results", row 1: ↓↓↓ moved one row (walk 63, F3).
            panel = self.parent
            if isinstance(panel, SearchPanel) and panel.to_results():
                event.prevent_default()
                event.stop()

    def restore(self, value: str, selection: Selection, *, focused: bool) -> None:
        """The text and selection of the field this one replaces (a resize rebuilt the
        layout: walk 59, F4); `focused`: it had the focus, given back to this one, whose
        focus keeps the selection (Input's selects the whole text: the next key typed
        replaced the question instead of going on with it)."""
        self.value, self.selection = value, selection
        self.select_on_focus = not focused

    def _on_focus(self, event: events.Focus) -> None:
        # runs before Input's handler: a focus given back keeps the text's selection once
        if not self.select_on_focus:
            self.call_next(setattr, self, "select_on_focus", True)

    def release(self) -> None:
        """Send the keys held behind an escape on to the app, in order."""
        held, self._held = self._held or [], None
        if self._hold_timer is not None:
            self._hold_timer.stop()
            self._hold_timer = None
        for event in held:
            self._again(event)

    def _again(self, event: events.Key) -> None:
        self.app.post_message(key_again(self.app, event.key, event.character))


class SearchPanel(Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", show=False),  # the border says it
        Binding("down", "results", "Results", show=False),
    ]

    DEFAULT_CSS = """
    SearchPanel {
        padding: 0 1;
        & > #search-input {
            height: 1;
            border: none;
            padding: 0 1;
            background: $boost;
        }
        & > #search-input:focus { background: $primary 30%; }
        & > #search-bar { height: 1; }
        /* the context line keeps to its row (said shorter); the ranker at its right */
        & > #search-bar > #search-status {
            width: 1fr; height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
        }
        & > #search-bar > ChoiceToggle { width: auto; }
        & > #search-results {
            height: 1fr;
            border: none;
            padding: 0;
            background: $surface;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
    }
    """

    class Submitted(Message):
        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class RankerChanged(Message):
        def __init__(self, ranker: str) -> None:
            super().__init__()
            self.ranker = ranker

    class Picked(Message):
        """A result is highlighted (or chosen: `focus` the merged column)."""

        def __init__(self, chunk: int, *, focus: bool = False) -> None:
            super().__init__()
            self.chunk, self.focus = chunk, focus

    class Closed(Message):
        pass

    def __init__(
        self,
        *,
        focus_on_close: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`focus_on_close`: the widget (a selector on the panel's screen) that gets the
        focus when the panel closes (none: the screen's)."""
        super().__init__(id=id, classes=classes)
        self._chunks: list[int] = []
        #: The result row to highlight when the results are next drawn (`keep_row`).
        self._row: int | None = None
        self._focus_on_close = focus_on_close

    def compose(self) -> ComposeResult:
        yield QuestionField(placeholder=PLACEHOLDER, id="search-input")
        with Horizontal(id="search-bar"):
            yield ContextLine("", id="search-status", markup=False)
            yield ChoiceToggle(
                list(RANKERS), DEFAULT_RANKER, label=" · ranker", label_width=10, id="search-ranker"
            )
        yield OptionList(id="search-results")

    @property
    def input(self) -> Input:
        return self.query_one("#search-input", Input)

    @property
    def results(self) -> OptionList:
        return self.query_one("#search-results", OptionList)

    def show_answer(
        self, query: str, ranker: str, answer: Any, chunks: int, *, busy: bool = False
    ) -> None:
        """Draw `answer` (None: nothing asked yet, or it is being asked) of `chunks`
        merged chunks; the input shows `query` unless the user is typing in it."""
        field = self.input
        if not field.has_focus and field.value != query:
            field.value = query
        self.query_one("#search-ranker", ChoiceToggle).set_value(ranker)
        status = self.query_one("#search-status", ContextLine)
        results = self.results
        if answer is None:
            if busy:  # the last answer stays until the new one comes
                if not self._chunks:
                    status.show("searching…")
                return
            status.show("type a question, then enter")
            self._chunks = []
            results.clear_options()
            return
        status.show(*context_forms(answer, chunks))
        picked = [r.chunk for r in answer.results]
        results.clear_options()
        if not answer.results:
            # none fits the budget (and which is left out), or none matches
            why = answer.rest_note or "no chunk matches the question"
            results.add_option(Option(Text(why, "italic dim")))
            self._chunks = []
            return
        row = results.highlighted if picked == self._chunks else None  # the same answer
        row = self._row if self._row is not None else row
        self._row = None
        results.add_options([Option(result_row(r)) for r in answer.results])
        self._chunks = picked
        results.highlighted = row if row is not None and 0 <= row < len(picked) else 0

    @property
    def row(self) -> int | None:
        """The result highlighted, None when there is none."""
        return self.results.highlighted if self._chunks else None

    def keep_row(self, row: int | None) -> None:
        """Highlight `row` of the results now, or when they are drawn (a resize that
        rebuilt the panel: its results started at row 0, the chunk chosen lost: walk 62,
        F1)."""
        if row is None:
            return
        if self._chunks:
            if 0 <= row < len(self._chunks):
                self.results.highlighted = row
        else:
            self._row = row

    def on_mount(self) -> None:
        self.border_title = "SEARCH"
        self.border_subtitle = "enter searches · ↓ results · tab ranker · esc closes"

    def open(self) -> None:
        """Focus the question now, not after the next refresh (`Widget.focus`): the
        keys typed right after `/` then find the field focused (see `App._on_key`)."""
        self.screen.set_focus(self.input)

    def action_close(self) -> None:
        """Closed: the focus leaves the panel now (to `focus_on_close`) and the keys the
        field held behind the escape go there (`QuestionField.release`); the screen
        hides the panel when it gets `Closed`."""
        screen = self.screen
        if self._focus_on_close is not None:
            target = next(iter(screen.query(self._focus_on_close)), None)
        else:
            target = None
        if target is not None and target.focusable:
            screen.set_focus(target)
        elif screen.focused is not None and self in screen.focused.ancestors:
            screen.set_focus(None)
        self.query_one(QuestionField).release()
        self.post_message(self.Closed())

    def action_results(self) -> None:
        self.to_results()

    def to_results(self) -> bool:
        """Focus the results now (not after the next refresh, `Widget.focus`: see
        `QuestionField._on_key`); whether there are any to focus."""
        if not self._chunks:
            return False
        self.screen.set_focus(self.results)
        return True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted(event.value))

    def on_choice_toggle_changed(self, event: ChoiceToggle.Changed) -> None:
        event.stop()
        self.post_message(self.RankerChanged(str(event.value)))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._chunks):
            self.post_message(self.Picked(self._chunks[event.option_index]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._chunks):
            self.post_message(self.Picked(self._chunks[event.option_index], focus=True))
