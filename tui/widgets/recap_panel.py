"""The recap preview: budget, token meter, ranked candidates and the exact ``_recap.md``."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static, TextArea

from chunkscope.engine.params import knob_map
from chunkscope.engine.recap.core import RecapParams
from chunkscope.engine.textutil import plural
from chunkscope.tui.cells import terminal_text
from chunkscope.tui.widgets.candidate_list import HEADER as CANDIDATE_HEADER
from chunkscope.tui.widgets.candidate_list import CandidateList, CandidateRow
from chunkscope.tui.widgets.panel_title import TitledPanel
from chunkscope.tui.widgets.slider import Slider, knob_slider
from chunkscope.tui.widgets.token_meter import TokenMeter

#: The budget knob (`engine.recap.core.RecapParams`): its slider's ends are what may be typed.
BUDGET = knob_map(RecapParams)["budget"]


def budget_note(budget: int, *, short: bool = False) -> str:
    """`` · budget 300 tokens (default 1000)`` (`short`: `` · budget 300``): the budget
    in force beside the kept count when it is not the default (a budget set with `b` is
    the session's: it stays when another file is opened), else nothing."""
    if budget == BUDGET.default:
        return ""
    if short:
        return f" · budget {budget}"
    return f" · budget {plural(budget, 'token')} (default {BUDGET.default})"


def _show_budget(slider: Slider, budget: int) -> None:
    """`budget` on the budget slider (no ``Changed`` posted). The knob takes more than
    the slider's declared span (typed with `b`, given with ``--budget``): a budget beyond
    an end moves that end to it, so the slider shows the budget in force."""
    spec = BUDGET.slider
    assert spec is not None
    with slider.prevent(Slider.Changed):
        slider.configure(minimum=min(spec.lo, budget), maximum=max(spec.hi, budget))
        slider.set_value(budget)


class RecapPanel(TitledPanel, Vertical):
    DEFAULT_CSS = """
    RecapPanel {
        & > #recap-controls { height: 1; }
        & > #recap-controls > Slider { width: 1fr; }
        & > #recap-controls > TokenMeter { width: 1fr; margin-left: 2; }
        & > #candidates-header {
            height: 1; color: $text-muted; text-style: bold;
            text-wrap: nowrap; text-overflow: ellipsis;
        }
        & > CandidateList { height: 1fr; min-height: 3; }
        & > #recap-preview-title { height: 1; color: $text-muted; }
        & > TextArea { height: 1fr; min-height: 3; border: none; padding: 0 1; }
        /* focused, no border of its own (Textual's takes two of its three rows at 100x30):
           its panel's border lights, and in the narrow layout its text is tinted */
        & > TextArea:focus { border: none; }
    }
    """

    def __init__(
        self, budget: int = BUDGET.default, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._budget = budget

    def compose(self) -> ComposeResult:
        with Horizontal(id="recap-controls"):
            slider = knob_slider(
                BUDGET,
                self._budget,
                exact_values=True,  # a typed budget (b) stays exact
                id="budget",
            )
            _show_budget(slider, self._budget)
            yield slider
            yield TokenMeter(id="recap-meter")
        yield Static(CANDIDATE_HEADER, id="candidates-header", markup=False)
        yield CandidateList(id="candidates")
        yield Static("─ preview _recap.md (w writes it) ─", id="recap-preview-title", markup=False)
        yield TextArea(
            "", read_only=True, soft_wrap=True, show_line_numbers=False, id="recap-preview"
        )

    @property
    def budget(self) -> int:
        return round(float(self.query_one("#budget", Slider).value))

    def set_budget(self, budget: int) -> None:
        _show_budget(self.query_one("#budget", Slider), budget)

    def show_selection(
        self, rows: Sequence[CandidateRow], used: int, budget: int, text: str, chunk: int | None
    ) -> None:
        self.query_one(CandidateList).set_rows(rows, chunk=chunk)
        self.query_one(TokenMeter).set_usage(used, budget)
        preview = self.query_one("#recap-preview", TextArea)
        shown = terminal_text(text)  # drawn as the cards draw it: emoji keep the border
        if preview.text != shown:
            preview.load_text(shown)
        kept = f"RECAP · {sum(1 for r in rows if r.selected)}/{len(rows)} kept"
        self.show_title(kept + budget_note(budget), kept + budget_note(budget, short=True), kept)

    def mark_stale(self) -> None:
        """The merge changed: the list below is the previous one until the new recap is in."""
        forms = self._title_forms or ("RECAP",)
        if "updating" not in forms[0]:
            self.show_title(*(f"{form} · updating…" for form in dict.fromkeys(forms)))

    def show_chunk(self, index: int) -> None:
        self.query_one(CandidateList).show_chunk(index)
