"""The selected merged chunk's abstract and summary, and how many summaries are known.

The body scrolls inside the panel's fixed height: a summary longer than the panel (the
100x30 tab) shows a scrollbar, and the body takes the focus so up/down/page keys scroll
it (a summary that fits: no focus stop, `SummaryScroll`). A new text lays out this
scroll area only (the panel's size does not change).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar, Static

from chunkscope.engine.recap.core import NO_SUMMARY_WHY
from chunkscope.engine.summarize.base import summary_rest
from chunkscope.tui.cells import terminal_text
from chunkscope.tui.widgets.panel_title import TitledPanel
from chunkscope.tui.widgets.rows import put_text
from chunkscope.tui.widgets.steady_scroll import SteadyScroll

__all__ = ["SummaryPanel", "summary_rest"]

#: What the panel says of a chunk with no summary (it is left out of the recap).
NO_SUMMARY = f"No summary: {NO_SUMMARY_WHY}; the recap leaves this chunk out."


class SummaryScroll(SteadyScroll):
    """The summary's body: a focus stop only while its text is longer than the panel
    (its scrollbar shows), to scroll it with the keys. A summary that fits had a stop
    that lit the panel's border and did nothing (walk 63, F4), as the merge controls'
    scroll area had (`ControlsScroll`, which holds controls and is never one)."""

    def allow_focus(self) -> bool:
        return self.allow_vertical_scroll


class SummaryPanel(TitledPanel, Vertical):
    DEFAULT_CSS = """
    SummaryPanel {
        & > #summary-status { height: 1; }
        & > #summary-status > Label { width: auto; color: $text-muted; margin-right: 1; }
        & > #summary-status > ProgressBar { width: 1fr; }
        & > #summary-scroll { height: 1fr; }
        & > #summary-scroll > #summary-body { height: auto; }
    }
    """

    _shown: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="summary-status"):
            yield Label("summaries", id="summary-label")
            yield ProgressBar(total=1, show_eta=False, id="summary-progress")
        with SummaryScroll(id="summary-scroll"):
            yield Static("", id="summary-body")

    def show_summary(self, index: int | None, summary: Any | None, note: str = "") -> None:
        """Show `summary` (an engine Summary, or None) of merged chunk `index`."""
        key = (index, summary, note)
        if key == self._shown:
            return
        self._shown = key
        self.show_title("SUMMARY" if index is None else f"SUMMARY · chunk {index}")
        text = Text()
        if summary is None:
            text.append(note or "No summary yet: press s to summarize all.", style="italic dim")
        elif not (summary.abstract.strip() or summary.summary.strip()):
            text.append(NO_SUMMARY, style="italic dim")
        else:
            abstract = terminal_text(summary.abstract).strip()
            rest = summary_rest(abstract, terminal_text(summary.summary))
            text.append("abstract" if rest else "abstract · the whole summary", style="dim")
            text.append("\n")
            text.append(abstract, style="bold")
            if rest:
                text.append("\n\nsummary\n", style="dim")
                text.append(rest)
            source = getattr(summary, "source", "")
            if getattr(summary, "flagged", False):
                text.append(
                    f"\n\n{source} · the LLM reply could not be read: extractive fallback",
                    style="dim",
                )
        put_text(self.query_one("#summary-body", Static), text)  # laid out if its height changes
        self.query_one("#summary-scroll", SteadyScroll).scroll_home(animate=False)

    def relayout(self) -> None:
        """Lay the body out again: shown after being hidden (under the Search panel)
        with a summary put meanwhile, its height is the one of the summary before."""
        self.query_one("#summary-body", Static).refresh(layout=True)

    def progress(self) -> tuple[int | None, int | None]:
        """The `set_progress` shown: (done, total)."""
        bar = self.query_one("#summary-progress", ProgressBar)
        total = int(bar.total) if bar.total is not None else None
        return int(bar.progress), total

    def set_progress(self, done: int | None, total: int | None) -> None:
        """`done` of `total` merged chunks have a summary (None, None: unknown)."""
        bar = self.query_one("#summary-progress", ProgressBar)
        if bar.total != total or bar.progress != (done or 0):
            bar.update(total=total, progress=done or 0)
