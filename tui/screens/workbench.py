"""The main screen: the pipeline's stages side by side, the merge controls, the
similarity strip, the selected chunk's summary and the recap preview.

The screen keeps the last run and the selection; the app keeps the pipeline and the
user's choices. Widgets hold no state of their own that matters, so the screen can be
recomposed when the terminal crosses the narrow breakpoint and redrawn from both.
Slow work runs in thread workers (see `tui.workbench.loader.PipelineDriver`); results
come back as Messages (`tui.workbench.messages`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, TypeVar

from rich.style import Style
from textual import events
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.compose import compose
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.css.scalar import Scalar
from textual.dom import DOMNode
from textual.geometry import Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, TabbedContent, TabPane, Tabs
from textual.widgets._footer import FooterKey
from textual.widgets.input import Selection
from textual.widgets.tabbed_content import ContentTab

from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.evaluate.measure import score_text
from chunkscope.engine.recap.collapse import ACTIONS_APART
from chunkscope.engine.textutil import plural
from chunkscope.tui.screens.late_callbacks import LateCallbacks
from chunkscope.tui.widgets.candidate_list import CandidateList, CandidateRow
from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
from chunkscope.tui.widgets.chunk_list import ChunkList, human_count
from chunkscope.tui.widgets.header_line import HeaderInfo, HeaderLine, turns_after_collapse
from chunkscope.tui.widgets.merge_panel import MergePanel
from chunkscope.tui.widgets.panel_title import fit_tabs, fit_text
from chunkscope.tui.widgets.recap_panel import RecapPanel
from chunkscope.tui.widgets.rows import put_border_title
from chunkscope.tui.widgets.search_panel import QuestionField, SearchPanel
from chunkscope.tui.widgets.similarity_strip import LEGEND_ROWS, SimilarityStrip, cut_name
from chunkscope.tui.widgets.strategy_panel import StrategyPanel
from chunkscope.tui.widgets.summary_panel import SummaryPanel
from chunkscope.tui.widgets.sweep_panel import SweepPanel, SweepState
from chunkscope.tui.workbench.columns import (
    DEFAULT_LABEL,
    DIFFER,
    NO_SIMILARITY,
    SIDES,
    CutMark,
    chunk_points,
    differing,
    strip_number_forms,
)
from chunkscope.tui.workbench.runs import LEFT_KINDS, RunView
from chunkscope.tui.workbench.topics import ColumnMarks

NARROW_WIDTH = 130


@dataclass(frozen=True)
class _Kept:
    """What a re-layout (`WorkbenchScreen._columns_state`) keeps of the old widgets."""

    selected: dict[str, int]
    focused: str | None
    #: The compare column's slider focused (its column and parameter): it has no id.
    focused_slider: tuple[str, str] | None
    #: What the question field holds, asked or not, and its selection (or cursor).
    question: tuple[str, Selection]
    progress: tuple[int | None, int | None]
    sweep: SweepState
    #: The panel `z` filled the screen with (its id), if any.
    zoomed: str | None
    #: Each list's expanded cards, by the list's id.
    expanded: dict[str, tuple[int, ...]]
    #: The search result highlighted.
    search_row: int | None


#: What the question panel is called wherever it is named: its tab and its key (`/`).
SEARCH = "Search"
#: The controls panel's name, its title (upper case) and below 130 columns its tab's
#: label: the merge's controls, or the compare columns' sliders while the right column
#: has a strategy (the merge's then hidden; the tab said ``Merge``: walk 70, F5).
MERGE_CONTROLS, COLUMN_CONTROLS = "Merge", "Columns"
#: The item of each left-column view, singular, as a strip's scale counts it.

_F = TypeVar("_F", bound=Callable[..., Any])


def _while_composed(method: _F) -> _F:
    """Drop a redraw that arrives while the screen is being (re)composed or torn down."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except NoMatches:
            return None

    return wrapper  # type: ignore[return-value]


ROLE_COLOURS = {
    "You": "$primary",
    "Bot": "$success",
    "Bot thinking": "$secondary",
    "Tool": "$warning",
    "Doc": "$accent",
}


class ControlsScroll(VerticalScroll, can_focus=False):
    """The merge controls' scroll area: never a focus stop of its own (it had one that
    lit the panel's border and did nothing); focusing a control scrolls it into view.
    While its scrollbar shows (class ``-scrolling``), a cell between the controls and
    the scrollbar: Textual draws the bar inside the padding, against the sliders' values
    (``7.00▇``).

    The class's one rule (``#controls.-scrolling > *``, app.tcss) styles the controls
    themselves, so only this area and its children are styled again when it changes:
    Textual's own update restyled every slider and label under them too (at every
    narrow start, where the bar shows at once)."""

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        if self.has_class("-scrolling") == bool(shown):
            return
        self.set_class(shown, "-scrolling", update=False)
        self.app.stylesheet.update_nodes([self, *self.children], animate=False)


class FittingFooter(Footer):
    """Textual's footer, dropping whole keys that do not fit (it cut the last label
    mid-word: ``w Write re▏^p palette``); the first keys stay (`FOOTER_FIRST`). The keys
    are measured, not laid out, so they fit from the footer's first drawing on (it
    waited for a refresh, and a redraw after it)."""

    _drawn: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        """Textual's keys, each bound to the footer's `compact` already holding its
        value: a key starts compact and takes the footer's on mount, restyled once for
        each (two restyles of every key at every build of the footer)."""
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def _keys_in_force(self) -> tuple[object, ...]:
        """What `compose` would draw: every binding in force (shown or not: the palette
        key is one) with its label, state and tooltip, and the footer's own options."""
        found = tuple(
            (name, b.key, b.key_display, b.description, b.action, b.show, on, tip)
            for name, (_, b, on, tip) in self.screen.active_bindings.items()
        )
        return (self.compact, self.show_command_palette, *found)

    async def recompose(self) -> None:
        """Drawn again only when the keys changed: Textual recomposes the footer at every
        focus change, mounting and styling each key anew, mostly for the same keys.
        Not at all once the footer is gone: a re-layout removes it with the rest while
        the recompose a key's change queued waits for the screen's refresh (walk 11, 6;
        the screens drop such callbacks too, `LateCallbacks`)."""
        if not self.is_attached:
            return
        drawn = self._keys_in_force() if self._bindings_ready else None
        if drawn is not None and drawn == self._drawn and self.children:
            return
        if not (drawn is not None and self.children and await self._relabel()):
            await super().recompose()
        self._drawn = drawn
        self._fit_keys()

    async def _relabel(self) -> bool:
        """The keys now in force shown on the keys already mounted, one for one (a key
        more mounted, a key fewer removed); whether it could be done (not with Textual's
        grouped keys). A focus change changes the keys: a recompose mounted and styled
        every key anew and laid out the screen for them, three quarters of a tab press's
        time, for what is mostly the same keys under other labels."""
        if not self.is_attached or self._pruning:
            return False
        composed = list(compose(self))
        new = [key for key in composed if isinstance(key, FooterKey)]
        old = [key for key in self.children if isinstance(key, FooterKey)]
        if len(new) != len(composed) or len(old) != len(self.children):
            return False
        palette = [key for key in old if key.has_class("-command-palette")]
        new_palette = [key for key in new if key.has_class("-command-palette")]
        if len(palette) != len(new_palette):
            return False
        shown = [key for key in old if key not in palette]
        wanted = [key for key in new if key not in new_palette]
        pairs = [*zip(shown, wanted, strict=False), *zip(palette, new_palette, strict=True)]
        for key, like in pairs:
            self._take(key, like)
        async with self.batch():
            if len(shown) > len(wanted):
                await self.remove_children(shown[len(wanted) :])
            elif len(wanted) > len(shown):
                extra = wanted[len(shown) :]
                if palette:
                    await self.mount_all(extra, before=palette[0])
                else:
                    await self.mount_all(extra)
        return True

    @staticmethod
    def _take(key: FooterKey, like: FooterKey) -> None:
        """`key` shows what `like` (a key composed, not mounted) would."""
        label = (key.key_display, key.description)
        key.key, key.action = like.key, like.action
        key.key_display, key.description = like.key_display, like.description
        key._disabled = like._disabled
        key.tooltip = like.tooltip
        key.set_class(like._disabled, "-disabled")
        if (key.key_display, key.description) != label:
            key.clear_cached_dimensions()
            key.refresh(layout=True)

    def on_resize(self) -> None:
        self._fit_keys()

    #: A key's cells by what it shows: measuring renders the key, and the footer is
    #: fitted anew at every change of the keys in force, mostly to the same keys.
    _widths: ClassVar[dict[tuple[str, str, bool, bool], int]] = {}

    def _cells(self, key: FooterKey) -> int:
        """The cells `key` takes in the footer's row: its text, padding, border, margin."""
        shown = (
            key.key_display,
            key.description,
            key.has_class("-compact"),
            key.has_class("-command-palette"),
        )
        cells = self._widths.get(shown)
        if cells is None:
            size = self.size if self.size.width else self.app.size
            content = key.get_content_width(size, self.app.size)
            cells = content + key.styles.gutter.width + key.styles.margin.width
            self._widths[shown] = cells
        return cells

    def _fit_keys(self) -> None:
        keys = list(self.query(FooterKey))
        palette = [k for k in keys if k.has_class("-command-palette")]
        room = (self.size.width or self.app.size.width) - sum(self._cells(k) for k in palette)
        used = 0
        for key in keys:
            if key in palette:
                continue
            used += self._cells(key)
            key.display = used <= room
            if not key.display:
                room = -1  # the keys after it go too, however short


class WorkbenchScreen(LateCallbacks, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("z", "zoom", "Zoom"),  # early: the footer shows it at 100 columns too
        Binding("slash", "search", SEARCH, key_display="/"),
        Binding("s", "app.summarize_all", "Summarize all"),
        Binding("p", "app.pin", "Pin"),
        Binding("x", "app.exclude", "Exclude"),
        Binding("w", "app.write_recap", "Write recap"),
        Binding("b", "app.type_budget", "Budget", show=False),
        Binding("c", "app.copy_chunk", "Copy"),
        Binding("e", "app.export", "Export"),
        Binding("v", "cycle_left", "Before: view"),
        Binding("m", "app.toggle_mark", "Mark topic"),
        Binding("M", "app.export_marks", "Export marks", show=False),
        Binding("a", "app.toggle_marks_complete", "Marks: all / some", show=False),
        Binding("n", "app.chunk_count", "N chunks", show=False),
        Binding("A", "app.auto_tune", "Auto-tune", show=False),
        Binding("T", "app.toggle_collapse", "Tool calls", show=False),
        Binding("left_square_bracket", "cycle_strategy('left')", "Left strategy", show=False),
        Binding("right_square_bracket", "cycle_strategy('right')", "Right strategy", show=False),
        Binding("t", "app.next_theme", "Theme", show=False),
        Binding("ctrl+s", "app.save_profile", "Save profile", show=False),
        Binding("ctrl+l", "app.load_profile", "Load profile", show=False),
        Binding("escape", "app.cancel_work", "Cancel", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    #: The footer's first keys, in this order: the two a newcomer looks for, kept in
    #: view however narrow the terminal (the footer drops what does not fit at its end).
    FOOTER_FIRST = ("help", "app.quit")

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's bindings in force, help and quit first. A key a focused text field
        takes as text is left out (Textual leaves out `?` but not `/`, which it cannot
        name as a character), and help and quit are shown under a key that works there
        (`f1`, `ctrl+q`): in the search question the footer said `? Help  / Search`, keys
        that type, and had no quit (walk 16, 9)."""
        found = super().active_bindings
        focused = self.focused
        if focused is not None:
            found = _keys_that_work(found, focused)
        first = [
            key
            for action in self.FOOTER_FIRST
            for key, active in found.items()
            if _bare(active.binding.action) == _bare(action) and active.binding.show
        ]
        return {key: found[key] for key in [*first, *(k for k in found if k not in first)]}

    #: Textual's reactive repaints the whole screen at every focus change; the widgets
    #: whose look changes repaint themselves (the focused and the blurred one, as their
    #: styles change; the panel whose ring moves, `_ring_focused_panel`), so the rest is
    #: not drawn again (a full redraw of the workbench for each tab press).
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def __init__(self) -> None:
        super().__init__()
        self.view: RunView | None = None
        self.narrow = False
        self.left_kind = "compacted"
        self.selected = 0
        self._resumed = False
        #: A dialog is on top (suspended, not resumed yet): the footer is hidden.
        self._covered = False
        #: each compare column's title forms (longest first) and subtitle, by the id of
        #: the widget whose border shows it: fitted again when the column's width changes
        self._column_titles: dict[str, tuple[list[str], str]] = {}
        #: Each compare column's width its title was last fitted to (`_laid_out`).
        self._column_title_widths: dict[str, int] = {}
        #: The merge control focused when a strategy in the right column hid the merge
        #: controls: focused again when they show (`_refocus_controls`).
        self._merge_focus: str | None = None
        self._set_breakpoint_classes()

    def _set_breakpoint_classes(self) -> None:
        """The breakpoint classes Textual gives the screen at its first resize
        (`App.HORIZONTAL_BREAKPOINTS`), given as it is built: added then, they restyled
        every widget of the screen a second time at each start."""
        try:
            app = self.app
            width, height = app.size
        except NoActiveAppError:
            return
        classes: dict[str, bool] = {}
        for mine, apps, dimension in (
            (self.HORIZONTAL_BREAKPOINTS, app.HORIZONTAL_BREAKPOINTS, width),
            (self.VERTICAL_BREAKPOINTS, app.VERTICAL_BREAKPOINTS, height),
        ):
            breakpoints = (apps if mine is None else mine) or []
            for _, name in breakpoints:
                classes.setdefault(name, False)
            for name in self._get_breakpoint_classes(dimension, breakpoints):
                classes[name] = True
        self.update_classes(classes, update=False)

    @property
    def driver(self) -> Any:
        return self.app

    #: The panels whose ring is lit (class ``-focus-within``): those holding the focus.
    _ringed: frozenset[Widget] = frozenset()

    def _update_focus_styles(
        self, focused: Widget | None = None, blurred: Widget | None = None
    ) -> None:
        """Textual's restyle at a focus change (of the subtrees under a ``:focus-within``
        rule: none here), then the ring moved to the panel holding the focus."""
        super()._update_focus_styles(focused, blurred)
        self._ring_focused_panel()

    def _ring_focused_panel(self) -> None:
        """The ``-focus-within`` class on the panels holding the focus and off the others,
        restyling those panels alone: the class styles their border only, where a
        ``:focus-within`` rule had Textual restyle each one's whole subtree, the merge
        controls' twenty widgets at every tab press into or out of them."""
        focused = self.focused
        holding = frozenset(
            node
            for node in (focused.ancestors_with_self if focused is not None else ())
            if isinstance(node, Widget) and node.has_class("panel")
        )
        changed: list[DOMNode] = []
        for panel in holding ^ self._ringed:
            panel.set_class(panel in holding, "-focus-within", update=False)
            if panel.is_attached:  # not one removed by a recompose
                changed.append(panel)
        self._ringed = holding
        if changed:
            self.app.stylesheet.update_nodes(changed, animate=True)

    # ------------------------------------------------------------------ zoom

    #: The panels `z` fills the screen with: the one holding the focus.
    ZOOMABLE = ("before-col", "merged", "controls", "lower", "summary", "recap", "strip")

    def _zoomable(self, panel: str | None) -> bool:
        """Whether `z` fills the screen with the panel of id `panel` in this layout (at
        100 columns the controls are the Merge tab's, zoomed with it)."""
        return panel in self.ZOOMABLE and not (self.narrow and panel == "controls")

    def action_zoom(self) -> None:
        """The focused panel fills the screen (all of the merge tab's controls, score
        and sweep at 100x30; a long merged list); `z` or escape again restores it."""
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused
        panels = [] if focused is None else list(focused.ancestors_with_self)
        for widget in panels:
            if self._zoomable(widget.id):
                assert isinstance(widget, Widget)
                self.maximized = widget
                return
        self.maximized = self.query_one("#merged")

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        self.narrow = self._layout_width() < NARROW_WIDTH
        # Given before the widgets mount, so they are styled for the layout as they
        # mount; added after (`on_mount`), it restyled the whole screen at every narrow
        # start and every switch of layout. Only the screen's descendants have rules for
        # it (app.tcss), so the screen's own style needs no update.
        self.set_class(self.narrow, "-narrow", update=False)
        yield HeaderLine(id="header")
        with Horizontal(id="columns"):
            with Vertical(id="before-col", classes="panel"):
                yield ChoiceToggle(
                    LEFT_KINDS, self.left_kind, label="show", label_width=6, id="left-kind"
                )
                yield ChunkList(empty_text="no chunks: open a file with ctrl+o", id="before")
            yield ChunkList(empty_text="nothing merged yet", id="merged", classes="panel")
            if not self.narrow:
                with ControlsScroll(id="controls", classes="panel"):
                    yield StrategyPanel(id="strategy-panel")
                    yield MergePanel(id="merge-panel")
                    yield SweepPanel(id="sweep")
        yield SimilarityStrip(id="strip", classes="panel")
        with Horizontal(id="column-strips"):  # comparing: a strip per column, its own run
            for side in SIDES:
                yield SimilarityStrip(id=f"strip-{side}", classes="panel column-strip")
        if self.narrow:
            with TabbedContent(id="lower"):
                with TabPane(MERGE_CONTROLS, id="tab-merge"), ControlsScroll(id="controls"):
                    yield StrategyPanel(id="strategy-panel")
                    yield MergePanel(id="merge-panel")
                    yield SweepPanel(id="sweep")
                with TabPane("Summary", id="tab-summary"):
                    yield SummaryPanel(id="summary")
                with TabPane("Recap", id="tab-recap"):
                    yield RecapPanel(self.driver.budget, id="recap")
                with TabPane(SEARCH, id="tab-search"):
                    yield SearchPanel(focus_on_close="#merged", id="search")
        else:
            with Horizontal(id="lower"):
                yield SummaryPanel(id="summary", classes="panel")
                yield RecapPanel(self.driver.budget, id="recap", classes="panel")
            yield SearchPanel(focus_on_close="#merged", id="search", classes="panel")
        footer = FittingFooter()
        # a resize that rebuilds the layout under a dialog built a shown one, the
        # workbench's keys back under the dialog's own (walk 59, F10)
        footer.visible = not self._covered
        yield footer

    def on_mount(self) -> None:
        self.set_class(self.narrow, "-narrow")
        self.query_one("#controls").border_title = MERGE_CONTROLS.upper()
        self.apply_theme_styles()
        self.redraw()
        # at once, not after the queue (`Widget.focus`): the footer, built for the keys
        # in force after the next refresh, was built for the first control's, then again
        self.set_focus(self.query_one("#merged", ChunkList))
        self.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

    def _laid_out(self, _screen: Screen[Any] | None = None) -> None:
        """After each layout of the screen: the toasts kept to their panel, the left
        column's title refitted when its width changed (the Keys panel opening took
        columns from it after the title was fitted to the old width: walk 49, F10)."""
        self._fit_toasts()
        columns = self.query("#before-col")
        if (
            self._left_title_forms
            and columns
            and columns.first().size.width != self._left_title_width
        ):
            self._fit_left_title()
        # the same for the tab bar's labels and the compare columns' titles: fitted on a
        # resize before the Keys panel had taken its columns, they kept the old width's
        # (the Search tab pushed off the bar, ``127 cuts…``: walk 52, F9 and F8)
        tabbed = self.query(TabbedContent)
        if tabbed and self.narrow and tabbed.first().size.width != self._tabs_width:
            self._tabs_width = tabbed.first().size.width
            fit_tabs(tabbed.first())
        if self.driver.comparing and any(
            self._column_title_widths.get(i) != self.query_one(f"#{i}").size.width
            for i in self._column_titles
            if self.query(f"#{i}")
        ):
            self._refit_column_titles()

    #: The panels the toasts sit over, as wide as the screen or beside it: at 160
    #: columns the summary's row (the search panel in its place), below 130 the strip's
    #: (a column's strip each while comparing). The rack's bottom is set in app.tcss.
    TOAST_AREA = ("#lower", "#search")
    NARROW_TOAST_AREA = ("#strip", "#column-strips")

    def _fit_toasts(self) -> None:
        """The toasts keep to the rows of the panel they sit over (`TOAST_AREA`): the
        newest first, each older one while the stack still fits, the rest hidden until a
        newer one goes (an error outlasting the notes after it shows again); one taller
        than the rows is cut to them (with ``…``: `textual_fixes.mark_cut_toasts`). A
        burst of four 4-line notes (`m` four times) grew out of the summary over the
        strip's size row, legend and border, at 100 columns over both columns (walk 49,
        F5). Run after each layout of the screen (its toasts' widths are known then);
        it changes nothing when they already fit, so its own re-layout ends there."""
        from textual.widgets._toast import Toast, ToastHolder, ToastRack

        racks = self.query_children(ToastRack)
        if not racks or not racks.first().display:
            return
        rack = racks.first()
        holders = list(rack.query_children(ToastHolder))
        if not holders:
            return
        tops = [
            widget.region.y
            for widget in self.query(", ".join(self._toast_panels()))
            if widget.display and widget.region.height
        ]
        bottom = self.size.height - rack.styles.margin.bottom
        rows = max(1, bottom - min(tops, default=0))
        used = 0
        fitting = True
        viewport = self.size
        # what a holder is laid out in: the screen's width less the rack's scrollbar
        # (the rack itself, never drawn, has no size of its own)
        gutter = rack.styles.scrollbar_size_vertical if rack.styles.overflow_y == "scroll" else 0
        width = Size(viewport.width - gutter, viewport.height)
        cover = self._toast_cover()
        for holder in reversed(holders):
            toasts = holder.query_children(Toast)
            if not toasts:
                continue
            toast = toasts.first()
            if toast.styles.width != cover:
                toast.styles.width = cover
                toast.styles.max_width = cover
            if toast.styles.max_height != Scalar.from_number(rows):
                toast.styles.max_height = rows
            model = toast._get_box_model(width, viewport, Fraction(1), Fraction(1))
            # each newer one's top margin is a row between them; the oldest's is above
            height = int(model.height)
            fitting = fitting and used + height <= rows
            if holder.display != fitting:
                holder.display = fitting
            if fitting:
                used += height + model.margin.top

    def _toast_cover(self) -> Scalar | None:
        """A toast's width over the summary panel (160 columns): the panel's inside, up
        to its right border. Textual's 60 cells (and the 38% cap) left the summary's
        text showing in the 2 cells beside the toasts, a lone ``g`` or ``e`` of the
        hidden line (walk 52, F1). None elsewhere: the stylesheet's widths."""
        if self.narrow:
            return None
        panels = self.query("#summary")
        if not panels or not panels.first().display or panels.first().region.width < 3:
            return None
        return Scalar.from_number(panels.first().region.width - 1)

    def _toast_panels(self) -> tuple[str, ...]:
        return self.NARROW_TOAST_AREA if self.narrow else self.TOAST_AREA

    def on_screen_suspend(self) -> None:
        """A dialog on top shows the notifications (placed as here): this screen's copy,
        drawn behind the dialog, would show each one twice. Its footer, drawn below a
        dialog on a wide screen, is hidden (its row kept): it named this screen's keys,
        `q Quit` and `? Help` among them, which type into the dialog's field (walk 17, 5);
        the dialog says its own keys; a footer rebuilt under the dialog too (`compose`)."""
        self._covered = True
        for rack in self.query("ToastRack"):
            rack.display = False
        for footer in self.query(Footer):
            footer.visible = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            # Pushed: its widgets were styled as they mounted, a moment ago; Textual
            # styles them all again when a screen resumes (this handler runs first).
            self._resumed = True
            event.refresh_styles = False
        self._covered = False
        for rack in self.query("ToastRack"):
            rack.display = True
        for footer in self.query(Footer):
            footer.visible = True

    #: Textual's key panel ("Keys" in the palette) is open on the right of the screen.
    keys_open = False

    def _layout_width(self) -> int:
        """The columns the workbench is laid out in: the screen's, less the key panel's
        when it is open (Textual's `HelpPanel`: a third of the screen, 30 to 60)."""
        width = self.size.width or self.app.size.width
        if self.keys_open:
            width -= min(60, max(30, width * 33 // 100))
        return width

    async def show_keys_panel(self, shown: bool) -> None:
        """The key panel was opened or closed: the layout follows the width it leaves
        (three columns beside a panel leaving fewer than 130 were cut under it)."""
        self.keys_open = shown
        await self.on_resize()

    #: The width the layout was last fitted to (`on_resize`).
    _fitted_width: int | None = None

    async def on_resize(self) -> None:
        width = self._layout_width()
        if width == self._fitted_width:
            # a Resize of the same width (the screen's layout refreshed, e.g. by the tab
            # labels just fitted): fitting again refits them, which lays out again, a
            # loop that kept a core busy and the keys unread after a resize drag (walk 12, 3)
            return
        self._fitted_width = width
        narrow = width < NARROW_WIDTH
        if narrow != self.narrow:
            kept = self._columns_state()
            if self.maximized is not None:
                self.minimize()  # (its widget goes with the old layout: walk 62, F4)
            await self.recompose()
            if self.keys_open and not self.query("HelpPanel"):  # removed with the rest
                from textual.widgets import HelpPanel

                await self.mount(HelpPanel())
            self.set_class(self.narrow, "-narrow")
            self.query_one("#controls").border_title = MERGE_CONTROLS.upper()
            self.apply_theme_styles()
            self.redraw()
            if self.driver.search_open:
                self._place_search(True)
            self._restore_columns_state(kept)
        elif narrow:  # the tab bar's new width: the labels that fit it
            self.call_after_refresh(fit_tabs, self.query_one(TabbedContent))
        # the compare columns' new widths (once laid out): their titles' forms that fit
        self.call_after_refresh(self._refit_column_titles)
        self.call_after_refresh(self._fit_left_title)

    def _columns_state(self) -> _Kept:
        """Each column's selected card, the focused widget's id, the summaries' progress
        and the sweep, before a recompose (the rebuilt lists start at card 0 with the
        focus elsewhere, the bar at 0 and the sweep blank)."""
        selected = {lst.id or "": lst.selected for lst in self.query(ChunkList)}
        focused = self.focused
        bar = self.query_one(SummaryPanel).progress()
        sweep = self.query_one(SweepPanel).state()
        slider = self.query_one(StrategyPanel).slider_key(focused)
        field = self.query_one(SearchPanel).input
        question = (field.value, field.selection)
        zoomed = self.maximized.id if self.maximized is not None else None
        expanded = {lst.id or "": lst.expanded_cards() for lst in self.query(ChunkList)}
        return _Kept(
            selected,
            focused.id if focused is not None else None,
            slider,
            question,
            bar,
            sweep,
            zoomed,
            expanded,
            self.query_one(SearchPanel).row,
        )

    def _restore_columns_state(self, kept: _Kept) -> None:
        """The state of `_columns_state` on the rebuilt widgets: while comparing, each
        column's own card (the merged run's is `selected`, drawn again by `redraw`); the
        focus on the widget of the same id when the new layout has one (on a compare
        column's slider, the same column's and parameter's); the question field's text
        and selection; the summaries' progress, the sweep and, below 130 columns, the tab
        last chosen there."""
        selected, focused = kept.selected, kept.focused
        # a question typed and not asked yet: the new field showed the one last asked
        # (or its placeholder), the typing lost (walk 59, F4)
        self.query_one(QuestionField).restore(*kept.question, focused=focused == "search-input")
        self.query_one(SummaryPanel).set_progress(*kept.progress)
        self.query_one(SweepPanel).restore(kept.sweep)
        if self.narrow and not self.driver.search_open:
            tabs = self.query_one(TabbedContent)
            if self.lower_tab != "tab-search" and tabs.get_pane(self.lower_tab) is not None:
                tabs.active = self.lower_tab
        if self.driver.comparing:
            for lst in self.query(ChunkList):
                index = selected.get(lst.id or "")
                if index is not None and lst.id in ("before", "merged"):
                    lst.select(index)
        self.query_one(SearchPanel).keep_row(kept.search_row)
        for lst in self.query(ChunkList):  # the cards expanded stay so (walk 62, F5)
            lst.expand_cards(kept.expanded.get(lst.id or "", ()))
        if focused is not None:
            found = self.query(f"#{focused}")
            if found and found.first().focusable:
                self.set_focus(found.first())
        elif kept.focused_slider is not None:
            # a compare column's slider (`]`, then tab to it): lost at each resize that
            # rebuilt the layout, → then moved nothing (walk 59, F3)
            slider = self.query_one(StrategyPanel).slider_for(*kept.focused_slider)
            if slider is not None:
                self.set_focus(slider)
        if self._zoomable(kept.zoomed):
            # the panel zoomed stays zoomed in the new layout; it left the screen blank,
            # hatched, its widget removed with the old one (walk 62, F4)
            found = self.query(f"#{kept.zoomed}")
            if found:
                self.maximized = found.first()

    # ------------------------------------------------------------------ search

    def action_search(self, focus: bool = True) -> None:
        """Open the Search panel (in place of the summary and recap; below 130 columns,
        its tab), the question field focused (unless `focus` is False: the tab chosen
        on the tab bar, where the arrows keep walking the tabs); an open question is
        asked again."""
        driver = self.driver
        was_open = driver.search_open
        driver.search_open = True
        self._place_search(True)
        if focus:
            self.query_one(SearchPanel).open()
        if not was_open and driver.search_query:
            driver.search(driver.search_query)
        self.show_search()

    def close_search(self, focus: bool = True) -> None:
        """Close the panel: the highlights go, the question stays for the next `/`; the
        merged column gets the focus unless `focus` is False."""
        driver = self.driver
        if not driver.search_open:
            return
        driver.search_open = False
        driver.clear_search_answer()
        self._place_search(False)
        if focus:
            self.query_one("#merged", ChunkList).focus()

    @_while_composed
    def _place_search(self, shown: bool) -> None:
        if self.narrow:
            tabs = self.query_one(TabbedContent)
            if shown:
                tabs.active = "tab-search"
            elif tabs.active == "tab-search":
                tabs.active = "tab-merge"
            return
        self.query_one("#search").display = shown
        self.query_one("#lower").display = not shown
        if not shown:
            # a summary put while the panels were hidden was not laid out: its height
            # stayed the last one drawn, its end cut off ("... rewritten by": walk 65, F2)
            self.query_one(SummaryPanel).relayout()

    @_while_composed
    def show_search(self) -> None:
        """The answer on screen: the panel's rows, and its chunks marked in the merged
        column and on the strip (nothing when the panel is closed or the answer is about
        another run: a newer one is being asked)."""
        driver = self.driver
        view = self.view
        answer = driver.search_answer
        if not driver.search_open or view is None or driver.search_view is not view:
            answer = None
        busy = driver.search_open and bool(driver.search_query) and answer is None
        chunks = len(view.result.chunks) if view is not None else 0
        self.query_one(SearchPanel).show_answer(
            driver.search_query, driver.search_ranker, answer, chunks, busy=busy
        )
        hits = {r.chunk: r.rank for r in answer.results} if answer is not None else {}
        merged = self.query_one("#merged", ChunkList)
        merged.set_hits(hits if driver.column_specs["right"] is None else {})
        strip_hits: list[tuple[tuple[int, int], int]] = []
        if view is not None:  # drawn in the chunk's column, as the selection's ▲
            bounds = view.result.bounds
            for chunk, rank in hits.items():
                strip_hits.append(((int(bounds[chunk]), int(bounds[chunk + 1])), rank))
        self.query_one("#strip", SimilarityStrip).set_hits(strip_hits)

    def on_search_panel_submitted(self, event: SearchPanel.Submitted) -> None:
        self.driver.search(event.query)
        self.show_search()

    def on_search_panel_ranker_changed(self, event: SearchPanel.RankerChanged) -> None:
        self.driver.set_search_ranker(event.ranker)

    def on_search_panel_picked(self, event: SearchPanel.Picked) -> None:
        if self.driver.column_specs["right"] is not None:
            # the merged column shows a strategy, its cards not these chunks: the Summary
            # and Recap follow the merged run's chunk all the same, and enter says where
            # it is (walk 66, F4: moving and enter did nothing, nothing said why)
            self.select_merged(event.chunk)
            if event.focus:
                self.notify(
                    f"Chunk {event.chunk} is the merged run's, which the columns do not show: "
                    "] brings it back; the Summary shows the chunk.",
                    markup=False,
                )
            return
        self.select_merged(event.chunk)
        if event.focus:
            self.query_one("#merged", ChunkList).focus()

    def on_search_panel_closed(self, event: SearchPanel.Closed) -> None:
        self.close_search()

    #: The lower tab last chosen below 130 columns: a re-layout to the tabs shows it again.
    lower_tab = "tab-merge"

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Below 130 columns the panel is a tab: choosing it opens the search, leaving
        it on the tab bar closes the search (as the wide layout's panel shows or not; a
        resize that rebuilds the tabs leaves it open). Chosen on the tab bar, the focus
        stays there: the arrows walk on, tab or enter go in."""
        if event.pane.id:
            self.lower_tab = event.pane.id
        on_bar = isinstance(self.focused, Tabs)
        if event.pane.id == "tab-search" and not self.driver.search_open:
            self.action_search(focus=not on_bar)
        elif event.pane.id != "tab-search" and self.driver.search_open and on_bar:
            self.close_search(focus=False)

    def on_key(self, event: events.Key) -> None:
        """On the tab bar, the Search tab chosen (it says "type a question"): enter goes
        into its question field, and so does a printable key, typed into the field (not
        the app's keys: `t` switched the theme, `x` excluded a chunk; walk 13, 1). `/`
        is left to its binding, which focuses the field as it does in the wide layout."""
        bar = self.focused
        if not isinstance(bar, Tabs) or not self.narrow:
            return
        if event.key in ("left", "right"):
            # The bar's binding, run here as the key comes: left to the app's bindings,
            # it ran after the keys typed behind it had come by here, so a question
            # typed in a burst after → (``→ w h y``) found the Recap tab still chosen
            # and ran as the workbench's keys (`w` the recap writer: walk 59, F5).
            event.stop()
            event.prevent_default()
            if event.key == "right":
                bar.action_next_tab()
            else:
                bar.action_previous_tab()
            return
        # the bar's own tab: the tabbed content follows it a message later
        if bar.active != ContentTab.add_prefix("tab-search"):
            return
        if event.key == "enter":
            event.stop()
            self.query_one(SearchPanel).open()
        elif event.is_printable and event.key != "slash":
            # Not stopped: the field now has the focus, so the app sends the key on to it
            # as a key typed ahead of a text field (`ChunkscopeApp._on_key`), the keys
            # already queued for the bar after it too, in order.
            self.query_one(SearchPanel).open()

    def apply_theme_styles(self) -> None:
        """Band and badge colours from the current theme (called again on a theme switch)."""
        from chunkscope.themes import band_colors

        theme = self.app.current_theme
        bands = [Style(color=c, bold=True) for c in band_colors(theme)]
        # computed from the current theme: `theme_variables` is refreshed only after the
        # CSS is, later than the theme watcher that calls this (a switch kept the old colours)
        variables = self.app.get_css_variables()
        badge_cache: dict[str, Style] = {}
        for role, var in ROLE_COLOURS.items():
            colour = variables.get(var.lstrip("$"), None)
            badge_cache[role] = Style(color=colour) if colour else Style()

        def badge(role: str) -> Style:
            return badge_cache.get(role, Style(dim=True))

        for lst in self.query(ChunkList):
            lst.set_band_styles(bands)
            lst.set_badge_style(badge)
        if self.driver.comparing and self.view is not None:
            self.draw_columns()

    # ------------------------------------------------------------------ drawing

    @_while_composed
    def redraw(self) -> None:
        """Draw every panel from the state (after a load, a recompose or a theme change)."""
        driver = self.driver
        self.query_one("#merge-panel", MergePanel).show(driver.state.tuning)
        self._show_column_controls()
        self.show_view(self.view, keep_left=False)
        self.show_header()
        self.show_selection_recap()
        self._place_search(self.driver.search_open)
        self.show_search()

    def _show_column_controls(self) -> None:
        """The columns' strategy sliders; the merge's controls and sweep only while the
        right column shows the merged run (with a strategy there, a topic slider
        beside two columns that are not the topic merge acted on neither of them).
        The focus follows the controls shown (`_refocus_controls`)."""
        specs = self.driver.column_specs
        panel = self.query_one(StrategyPanel)
        focused = self.focused
        held = panel.slider_key(focused)
        merge_parts = [self.query_one(MergePanel), self.query_one(SweepPanel)]
        in_merge = focused is not None and any(p in focused.ancestors for p in merge_parts)
        rebuilt = panel.show(specs)
        self.query_one("#left-kind").display = specs["left"] is None
        merged = specs["right"] is None
        for part in merge_parts:
            part.display = merged
        name = MERGE_CONTROLS if merged else COLUMN_CONTROLS
        self.query_one("#controls").border_title = name.upper()
        if self.narrow:  # the tab's label says what its panel's title says
            tabbed = self.query_one(TabbedContent)
            tab = tabbed.get_tab("tab-merge")
            if tab.label.plain != name:
                tab.label = Content(name)
                fit_tabs(tabbed)
        if in_merge and not merged and focused is not None:
            self._merge_focus = focused.id
            self._refocus_controls("right")
        elif held is not None and rebuilt:
            self._refocus_controls(held[0], held[1])

    def _refocus_controls(self, side: str, key: str | None = None) -> None:
        """The focus onto the controls now shown, when the ones it was on went: the
        merge controls hidden by a strategy in the right column (`]`), a column's sliders
        rebuilt for its next strategy or gone with it. Column `side`'s slider `key` (or
        its first); else the merge controls when shown (the control focused before they
        hid, or their first); else the other column's first slider. Textual moved it to
        a sibling of the hidden control, hidden too: ← → then switched the main run's
        merge mode or depth behind the columns shown (walk 70, F4)."""
        panel = self.query_one(StrategyPanel)
        target: Widget | None = panel.slider_for(side, key) if key is not None else None
        target = target or panel.first_slider(side)
        merge = self.query_one(MergePanel)
        if target is None and merge.display:
            controls = [w for w in merge.query("*") if w.can_focus and _shown_in(w, merge)]
            kept = [w for w in controls if w.id is not None and w.id == self._merge_focus]
            target = next(iter(kept or controls), None)
        target = target or panel.first_slider()
        self.set_focus(target if target is not None else self.query_one("#merged", ChunkList))

    @_while_composed
    def show_header(self) -> None:
        info: HeaderInfo = self.driver.header_info()
        self.query_one(HeaderLine).set_info(info)

    @_while_composed
    def show_view(self, view: RunView | None, *, keep_left: bool = True) -> None:
        """Draw a run: both columns, the strip, the counts."""
        old = self.view
        self.view = view
        before = self.query_one("#before", ChunkList)
        merged = self.query_one("#merged", ChunkList)
        strip = self.query_one("#strip", SimilarityStrip)
        if view is None:
            before.set_items([])
            merged.set_items([])
            self._titles(None)
            return
        result = view.result
        comparing = self.driver.comparing
        if not comparing:
            merged.set_items(
                result.chunks,
                tokens=view.merged_tokens,
                tokens_approx=not view.merged_tokens_exact,
                bands=_identity(len(result.chunks)),
                cuts=result.lazy_cuts,  # a cut is built when its line is drawn
                over=result.exceeds_limit,
                clock=view.source.has_clock,
            )
        if comparing:
            pass
        elif keep_left and old is not None and old.left_items is view.left_items:
            before.set_bands(view.left_owner)
            if view.left_tokens is not None:
                before.set_tokens(view.left_tokens)
        else:
            before.set_items(
                view.left_items,
                tokens=view.left_tokens,
                bands=view.left_owner,
                cuts=None,
                clock=view.source.has_clock,
            )
        mp = view.params.merge
        first_threshold = result.passes[0].threshold if result.passes else None
        cap, unit = mp.cap, mp.cap_unit  # one size cap in both modes
        strip.set_data(
            view.sims, first_threshold, view.cut_pairs, view.position_sizes, cap, unit, mp.mode
        )
        self._titles(view)
        if comparing:
            self.draw_columns()
        if old is not None and old is not view and self.driver.recap_state != "failed":
            # (no recap is coming once the summaries failed: the preview says why, and
            # `updating…` stayed for good, walk 63 F6)
            self.query_one(RecapPanel).mark_stale()
        self.select_merged(min(self.selected, max(0, len(result.chunks) - 1)), from_left=None)
        self.show_marks(columns=False)  # the columns were just drawn with them
        self.show_search()

    @_while_composed
    def show_marks(self, *, columns: bool = True) -> None:
        """The topic marks on both columns and the strip, and the live score."""
        view = self.view
        report = self.driver.marks_report(view) if view is not None else None
        panel = self.query_one(MergePanel)
        strip = self.query_one("#strip", SimilarityStrip)
        before = self.query_one("#before", ChunkList)
        merged = self.query_one("#merged", ChunkList)
        hit_rate = self.driver.retrieval_text()
        if report is None:
            panel.set_score(hit_rate)
            strip.set_marks([], [])
        else:
            panel.set_score(report.summary() + (f"\n{hit_rate}" if hit_rate else ""))
            strip.set_marks(report.strip_marks, report.cut_verdicts)
        if self.driver.comparing:  # each column is judged on its own (draw_columns)
            if columns:
                self.draw_columns()
        elif report is None:
            before.set_marks({})
            merged.set_marks({})
        else:
            before.set_marks(report.left_flags)
            merged.set_marks(report.merged_flags, report.cut_verdicts)

    def on_descendant_focus(self, event: Any) -> None:
        """A merge slider got the focus: the sweep follows its knob."""
        from chunkscope.tui.widgets.merge_panel import slider_knob

        name = slider_knob(getattr(event.widget, "id", None))
        if name is not None:
            self.driver.follow_knob(name)

    def left_selected_item(self) -> tuple[int, Any] | None:
        """The card selected in the left column and its index, of what the column shows
        (the items before the merge, or while comparing a strategy's or a merge mode's
        chunks); None when it is empty."""
        self.catch_up()
        lst = self.query_one("#before", ChunkList)
        if not 0 <= lst.selected < len(lst.chunks):
            return None
        return lst.selected, lst.chunks[lst.selected]

    def left_items(self) -> Sequence[Any]:
        """The cards of the left column, as `left_selected_item` counts them."""
        return self.query_one("#before", ChunkList).chunks

    def _titles(self, view: RunView | None) -> None:
        """Border titles and the run's numbers (each set only when it changes: a new
        title repaints its whole panel)."""
        before_col = self.query_one("#before-col")
        merged = self.query_one("#merged", ChunkList)
        strip = self.query_one("#strip", SimilarityStrip)
        panel = self.query_one(MergePanel)
        if view is None:
            before_col.border_title = f"BEFORE MERGE · {self.left_kind}"
            merged.border_title = "MERGED"
            strip.set_title("SIMILARITY", [])
            panel.set_stats("")
            return
        result = view.result
        n = len(view.left_items)
        counts = [str(n)]
        if view.left_kind == "turns" and n != len(view.source.turns):
            # as the header says it, then shorter: the count and why it is more than the
            # file's before the words "after collapse" (walk 46, F5: the reason was cut)
            counts = [turns_after_collapse(n, len(view.source.turns))]
            if n > len(view.source.turns):
                counts.append(f"{n}, {ACTIONS_APART}")
            counts.append(str(n))
        elif view.left_kind == "compacted":  # paragraphs: more than the turns, so named
            counts = [plural(n, "unit")]  # as the merge panel's stats say it
        shown = view.left_kind  # a document's turns are its sections, as the header says
        if shown == "turns" and view.source.turn_word != "turn":
            shown = f"{view.source.turn_word}s"
        # the panel's name goes before the reason does; the shortest count is given
        # without the name too, then the bare number: the border never cuts into the
        # count (walk 49, F10: `BEFORE MERGE · compacted (…` beside the Keys panel, the
        # only form of a count with no reason)
        forms = [
            form
            for k, count in enumerate(counts)
            for form in (f"BEFORE MERGE · {shown} ({count})", f"{shown} ({count})")
            if k or form.startswith("BEFORE") or len(counts) == 1
        ]
        self._left_title_forms = list(dict.fromkeys([*forms, f"{shown} ({n})"]))
        self._fit_left_title()
        _set_title(
            merged, f"MERGED ({len(result.chunks)})", "enter expands · c copies · ] strategy"
        )
        topic = result.params.mode == "topic"
        depth = view.params.topic.topic_depth
        strip.set_title("SIMILARITY", strip_number_forms(view.sims, result, depth))
        seconds = self.driver.format_seconds(view.seconds)
        cap = result.params.cap
        cap_text = (
            f"cap {human_count(cap)}{'c' if result.params.cap_unit == 'chars' else 't'}"
            if cap
            else "no cap"
        )
        over = sum(result.exceeds_limit)
        if over:
            cap_text += f" · {over} over it"
        if topic:
            reasons = result.reason_counts()
            why = ", ".join(f"{n} {cut_name(r, topic)}" for r, n in sorted(reasons.items()))
            top = view.params.topic
            panel.set_stats(
                f"{plural(len(result.topic_spans), 'topic')} → "
                f"{plural(len(result.chunks), 'chunk')} · {seconds}\n"
                f"cuts: {why or 'none'}\n"
                f"{plural(len(view.compacted), 'unit')} · "
                f"min {human_count(top.topic_min_chars)}c · "
                f"{cap_text}"
            )
            return
        passes = len(result.passes)
        panel.set_stats(
            f"{plural(len(result.chunks), 'chunk')} · {plural(passes, 'pass', 'passes')} · "
            f"{seconds}\n"
            f"{len(view.compacted)} compacted → {len(result.chunks)} merged · {cap_text}"
            + ("" if result.converged else "\nstopped by max passes")
        )

    @_while_composed
    def show_tokens(self, view: RunView) -> None:
        if view is self.view and self.driver.comparing:
            self.draw_columns()
        elif view is self.view and view.merged_tokens is not None:
            self.query_one("#merged", ChunkList).set_tokens(
                view.merged_tokens, approx=not view.merged_tokens_exact
            )
            if view.left_tokens is not None:
                self.query_one("#before", ChunkList).set_tokens(view.left_tokens)

    @_while_composed
    def show_busy(self, text: str) -> None:
        self.query_one(HeaderLine).set_busy(text)

    # ------------------------------------------------------------------ selection

    @_while_composed
    def select_merged(self, index: int, *, from_left: int | None = None) -> None:
        """Select merged chunk `index` on both sides, the strip, the summary and the recap."""
        view = self.view
        if view is None or not view.result.chunks:
            return
        index = max(0, min(index, len(view.result.chunks) - 1))
        self.selected = index
        merged = self.query_one("#merged", ChunkList)
        before = self.query_one("#before", ChunkList)
        specs = self.driver.column_specs
        if specs["right"] is None:
            merged.select(index)
        if not self.driver.comparing:
            a, b = view.left_range(index)
            before.set_related(a, b)
            if from_left is None:
                # its first item; none when all its text is inside an item an earlier
                # chunk holds (a message split between them): that item (walk 41, F1:
                # the left selection stayed where it was, and `m` marked that item)
                first = a if b > a else a - 1
                if first >= 0:
                    before.select(first, scroll=False)
                    before.scroll_to_card(first, top=True)
            else:
                before.select(from_left)
        bounds = view.result.bounds  # merged chunk `index` spans units bounds[index]:[index + 1]
        pair, end = int(bounds[index]), int(bounds[index + 1])
        self.query_one("#strip", SimilarityStrip).set_selected(pair, end)
        if specs["right"] is None:  # comparing, the merged run's strip under its column
            self.query_one("#strip-right", SimilarityStrip).set_selected(pair, end)
        self.show_summary()
        self.query_one(RecapPanel).show_chunk(index)

    def on_similarity_strip_legend_wrapped(self, event: SimilarityStrip.LegendWrapped) -> None:
        """A compare strip's legend asks for rows: both strips of the pair get the most
        either asks for (one height for the two, as with the marks row)."""
        box = event.strip.parent
        if isinstance(box, Widget) and box.id == "column-strips":
            rows = max(s.legend_rows for s in box.query(SimilarityStrip))
            for n in range(1, LEGEND_ROWS):
                box.set_class(rows == n, f"-legend-{n}")

    def on_chunk_list_selected(self, event: ChunkList.Selected) -> None:
        if event.stale:
            return  # the list moved on (a burst of keys): its latest selection follows
        picked = self._selected_by(event.chunk_list, event.index)
        if picked is not None:
            self.select_merged(picked[0], from_left=picked[1])

    def _selected_by(self, lst: ChunkList, index: int) -> tuple[int, int | None] | None:
        """(merged chunk, left card or None) that card `index` of `lst` selects; None when
        it selects none."""
        if self.driver.comparing:
            # The columns no longer hold the same items: only the merged chunks drive the
            # summary and the recap.
            if lst.id == "merged" and self.driver.column_specs["right"] is None:
                return index, None
            return None
        if lst.id == "merged":
            return index, None
        owner = self.view.owner_of_left(index) if self.view is not None else None
        return None if owner is None else (owner, index)

    def on_candidate_list_highlighted(self, event: CandidateList.Highlighted) -> None:
        if not event.stale:
            self.select_merged(event.index)

    # ------------------------------------------------------------------ summary and recap

    @_while_composed
    def show_summary(self) -> None:
        panel = self.query_one(SummaryPanel)
        summary, note = self.driver.summary_of(self.selected)
        panel.show_summary(self.selected if self.view else None, summary, note)

    @_while_composed
    def show_summary_progress(self, done: int, total: int) -> None:
        self.query_one(SummaryPanel).set_progress(done, total)
        if self.driver.selection is None:  # the recap's note says how far it is
            self.show_selection_recap((done, total))

    @_while_composed
    def show_selection_recap(self, progress: tuple[int, int] | None = None) -> None:
        """The recap's list and preview; without a recap yet, what the preview says in
        its place, with the summaries' `progress` (done, total) when it is known."""
        driver = self.driver
        recap = self.query_one(RecapPanel)
        selection = driver.selection
        if selection is None:
            recap.show_selection([], 0, driver.budget, driver.recap_note(progress), None)
            return
        by_index = {c.index: c for c in selection.candidates}
        order = [i for i in selection.order if i in by_index]
        listed = set(order)
        order += [c.index for c in selection.candidates if c.index not in listed]
        rows = [
            CandidateRow(
                index=c.index,
                score=float(c.score),
                tokens=int(c.tokens),
                selected=bool(c.selected),
                pinned=bool(c.pinned),
                excluded=bool(c.excluded),
                reason=str(c.reason),
                text=c.text,
            )
            for c in (by_index[i] for i in order)
        ]
        # an empty recap's preview was blank, saying nothing of why (walk 59, F8)
        text = selection.text or driver.empty_recap_note(selection)
        recap.show_selection(
            rows, int(selection.used_tokens), int(selection.budget), text, self.selected
        )

    # ------------------------------------------------------------------ controls

    def on_merge_panel_changed(self, event: MergePanel.Changed) -> None:
        panel = event.panel
        tuning = panel.read(self.driver.state.tuning)
        fitted = panel.fit_min_size(tuning)  # lowered to fit the cap, or back as it rises
        if fitted is not None:
            note, warning = fitted
            tuning = panel.read(self.driver.state.tuning)
            self.notify(note, severity="warning" if warning else "information", markup=False)
        self.driver.request_run(tuning)

    def on_choice_toggle_changed(self, event: ChoiceToggle.Changed) -> None:
        if event.toggle.id == "left-kind":
            self.left_kind = event.value
            self.driver.request_run(self.driver.state.tuning, force=True)

    def on_slider_changed(self, event: Any) -> None:
        if getattr(event.slider, "id", None) == "budget":
            self.driver.set_budget(round(float(event.value)))

    # ------------------------------------------------------------------ strategies

    def action_cycle_strategy(self, side: str) -> None:
        self.driver.cycle_column_strategy(side)

    def on_strategy_panel_changed(self, event: StrategyPanel.Changed) -> None:
        self.driver.set_column_param(event.side, event.key, event.value)

    def put_column_value(self, side: str, key: str, value: Any) -> None:
        """Show `value` on a column's slider again (a value refused), posting nothing."""
        slider = self.query_one(StrategyPanel).slider_for(side, key)
        if slider is not None:
            slider.set_value(float(value), notify=False)

    @_while_composed
    def columns_changed(self, *, params_only: bool = False) -> None:
        """A column's strategy (or one of its parameters) changed: redraw both columns.
        The search's ``⌕rank`` marks follow the right column: on the merged run's cards,
        none on a strategy's (they are the merged chunks' ranks, and were left on the
        strategy's cards by index: walk 63, F1)."""
        driver = self.driver
        self._show_column_controls()
        if params_only:
            self.draw_columns()
            return
        self._show_column_strips(driver.comparing)
        if not driver.comparing:
            # Back to the default screen, exactly as it is drawn without strategies.
            for lst in self.query(ChunkList):
                lst.empty_text = _EMPTY[lst.id or ""]
            self.apply_theme_styles()
            self.query_one("#before-col").border_subtitle = ""
            self.query_one("#merged").border_subtitle = ""
            self.show_view(self.view, keep_left=False)  # (the marks with it)
            return
        self.draw_columns()
        self.show_search()

    @_while_composed
    def draw_columns(self) -> None:
        """Draw the columns while comparing: a strategy's chunks, or the default items,
        with the cuts the other column lacks marked (≠ and a band) and counted."""
        driver = self.driver
        if not driver.comparing:
            return
        driver.ensure_columns()
        view = self.view
        data = {side: self._column_data(side, view) for side in SIDES}
        judged = {side: self._column_marks(side, view, data[side]) for side in SIDES}
        flags: dict[str, list[bool] | None] = dict.fromkeys(SIDES)
        left, right = data["left"], data["right"]
        if left is not None and right is not None:
            flags["left"], flags["right"] = differing(left[1], right[1])
        styles = self._compare_band_styles()
        self._titles(view)
        self._show_column_strips(True)
        for side, lst_id, title_id in (
            ("left", "#before", "#before-col"),
            ("right", "#merged", "#merged"),
        ):
            lst = self.query_one(lst_id, ChunkList)
            lst.set_band_styles(styles)
            titled = self.query_one(title_id)
            self._draw_column(side, lst, titled, data[side], flags[side], judged[side])
            self._draw_column_strip(side, view, data[side], judged[side])
        # one height for the two strips: a marks row in both when either has one
        strips = self.query_one("#column-strips")
        strips.set_class(any(s.marks for s in strips.query(SimilarityStrip)), "-marks")

    def _show_column_strips(self, comparing: bool) -> None:
        """Comparing: a strip under each column, of that column's run; else the one strip
        of the merged run."""
        self.query_one("#strip").display = not comparing
        self.query_one("#column-strips").display = comparing
        # the summary and the recap stay the merge panel's run's: said while comparing
        about = " · merged run" if comparing else ""
        self.query_one(SummaryPanel).set_about(about)
        self.query_one(RecapPanel).set_about(about)

    def _column_marks(self, side: str, view: RunView | None, data: Any) -> ColumnMarks | None:
        """Column `side` against the topic marks (None without marks or data): the
        items before the merge flag where each marked topic starts (``◆``), as the left
        column of the main view does; a column of chunks its verdicts and ``✗``."""
        if view is None or data is None:
            return None
        spec = self.driver.column_specs[side]
        items = side == "left" and spec is None
        # the strip's axis: the open file's units, or a merge column's own (its run's)
        res = self.driver.shown_result(side)[0] if spec is not None else None
        units = res.result.info.get("units", view.compacted) if res is not None else view.compacted
        column: ColumnMarks | None = self.driver.column_marks(units, data[0], data[5], items=items)
        return column

    def _draw_column_strip(
        self, side: str, view: RunView | None, data: Any, judged: ColumnMarks | None
    ) -> None:
        """Column `side`'s own similarity strip: its similarities, cuts and sizes over
        the compacted units; a strategy's column, which has no similarity scores, says so
        (its cuts drawn where they fall). Never another run's. With topic marks, its
        marks row and its cuts coloured by their verdicts, this column's (`judged`)."""
        import numpy as np

        from chunkscope.tui.workbench.columns import column_strip

        strip = self.query_one(f"#strip-{side}", SimilarityStrip)
        spec = self.driver.column_specs[side]
        # a run's own chunks per column; the items before the merge are the units the
        # strip plots (whatever the column's view: turns, raw or units), counted as such
        before = spec is None and side == "left"
        own = len(data[0]) if data is not None and not before else None
        noun = "unit" if before else "chunk"
        if own != strip.own_chunks or noun != strip.scale_noun:
            strip.own_chunks = own
            strip.scale_noun = noun
            strip.refresh()
        # under its column; its settings given up before its numbers (walk 39, F4)
        names = spec.labels() if spec is not None else [DEFAULT_LABEL[side]]
        if view is None or data is None:
            strip.set_note(None)
            strip.set_marks([], [])
            strip.set_data(np.zeros(0), None, [], np.zeros(0, dtype=np.int64), None, "chars")
            strip.set_title([f"{n} · computing…" if view is not None else n for n in names], [])
            return
        if spec is None and side == "right":  # the merged run: the main strip's data
            result = view.result
            first = result.passes[0].threshold if result.passes else None
            mp = view.params.merge
            strip.set_note(None)
            strip.set_data(
                view.sims,
                first,
                view.cut_pairs,
                view.position_sizes,
                mp.cap,
                mp.cap_unit,
                mp.mode,
            )
            main = self.query_one("#strip", SimilarityStrip)
            strip.set_selected(main.selected_pair, main.selected_end)
            if judged is None:
                strip.set_marks([], [])
            else:  # a verdict per merged cut, as the cuts drawn
                strip.set_marks(judged.strip, judged.verdict.cut_verdicts)
            depth = view.params.topic.topic_depth
            strip.set_title(names, strip_number_forms(view.sims, result, depth))
            return
        res, _updating = self.driver.shown_result(side)
        shown = column_strip(view, res.result if res is not None else None, data[0], data[3])
        strip.uncut = spec is None  # the items before the merge
        strip.set_note(shown.note)
        strip.set_data(shown.sims, shown.threshold, shown.cuts, shown.sizes, shown.cap, shown.unit)
        strip.set_selected(None)
        if judged is None:
            strip.set_marks([], [])
        else:  # the verdicts of the cuts drawn (a strategy's may fall outside the axis)
            verdicts = judged.verdict.cut_verdicts
            strip.set_marks(
                judged.strip, [verdicts[i] if i < len(verdicts) else "" for i in shown.cut_of]
            )
        strip.set_title(names, shown.titles)

    def _column_data(self, side: str, view: RunView | None) -> Any:
        """(chunks, cut points, cut lines, tokens, approx, cuts inside a topic, cards over
        the size cap) of a column, None until known."""
        from chunkscope.tui.workbench.topics import inner_cuts

        driver = self.driver
        spec = driver.column_specs[side]
        if spec is not None:
            res, _updating = driver.shown_result(side)
            if res is None:
                return None
            reasons = res.result.cuts
            topic = res.result.info.get("mode") == "topic"  # a merge:topic column
            inner = [topic and r in ("size_cap", "chunk_size") for r in reasons]
            # a merge column: the merge's cuts, with their numbers
            cuts = res.result.info.get("cuts", reasons)
            # a card over the cap says so in a column too (walk 42, F1: never flagged)
            over = [bool(c.meta.get("exceeds_limit")) for c in res.result.chunks]
            return (res.chunks, res.points(), cuts, res.tokens, False, inner, over)
        if view is None:
            return None
        if side == "left":
            items = view.left_items
            return (items, chunk_points(items), None, view.left_tokens, False, [], None)
        result = view.result
        approx = not view.merged_tokens_exact
        return (
            result.chunks,
            chunk_points(result.chunks),
            result.cuts,
            view.merged_tokens,
            approx,
            inner_cuts(result),
            result.exceeds_limit,
        )

    def _draw_column(
        self,
        side: str,
        lst: ChunkList,
        titled: Any,
        data: Any,
        flags: list[bool] | None,
        judged: ColumnMarks | None,
    ) -> None:
        driver = self.driver
        spec = driver.column_specs[side]
        key = "[" if side == "left" else "]"
        if spec is not None:
            label = spec.label()
        elif side == "left":
            label = f"{DEFAULT_LABEL[side]} · {self.left_kind}"
        else:
            label = DEFAULT_LABEL[side]
        if data is None:
            lst.empty_text = f"computing {label}…"
            lst.set_items([])
            self._column_titles.pop(titled.id or "", None)
            _set_title(titled, f"{side.upper()} · {label} · computing…", f"{key} strategy")
            return
        chunks, _points, cuts, tokens, approx, _inner, over = data
        n_cuts = max(0, len(chunks) - 1)
        marks = flags if flags is not None else [False] * n_cuts
        lines: list[CutMark] | None = None
        if cuts is not None:  # a strategy's reasons, or a merge's cuts (one wording)
            lines = [
                CutMark((DIFFER if f else "") + (c or "cut"), NO_SIMILARITY)
                if c is None or isinstance(c, str)
                else CutMark(
                    (DIFFER if f else "") + c.reason,
                    c.similarity,
                    c.threshold,
                    getattr(c, "depth", None),
                )
                for c, f in zip(cuts, marks, strict=False)
            ]
        import numpy as np

        bands = np.zeros(len(chunks), dtype=np.int64)
        if marks:
            bands[: len(marks)] = np.asarray(marks, dtype=np.int64)
        clock = self.view is None or self.view.source.has_clock  # a document's: no time
        lst.set_items(
            chunks,
            tokens=tokens,
            tokens_approx=approx,
            bands=bands,
            cuts=lines,
            over=over,
            clock=clock,
        )
        n_differ = sum(marks)
        differ = ""
        if flags is not None:
            differ = f" · {n_differ} {'cut differs' if n_differ == 1 else 'cuts differ'}"
        if judged is None:
            lst.set_marks({})
            scores = [""]
        else:  # against the topic marks: each cut's verdict, the missed topics, Pk
            lst.set_marks(judged.flags, judged.verdict.cut_verdicts)
            sc = judged.verdict.scores
            # the topics against the marks (counted as the merge panel counts them, not
            # the file's start): over-cutting shows when Pk does not
            n_marks = sc.gold_segments - 1
            pk_f1 = f" · Pk {score_text(sc.pk)} F1 {score_text(sc.f1)}"
            scores = [
                f"{pk_f1} · {sc.chunks} topics/{n_marks} marks",
                pk_f1,
                f" · Pk {score_text(sc.pk)}",
            ]
        hit_text = ""
        if driver.queries_apply():  # the query file's hit rate on this column's chunks
            shown, _ = driver.shown_result(side)
            owner = shown.result if spec is not None and shown is not None else None
            hit = driver.column_hit(chunks, owner)
            hit_text = " · hit …" if hit is None else f" · hit {hit.hit_rate:.2f}"
        seconds = ""
        res, updating = driver.shown_result(side)
        if res is not None:
            seconds = " · updating…" if updating else f" · {driver.format_seconds(res.seconds)}"
        forms = _title_forms(
            side,
            label,
            len(chunks),
            [differ + score + hit_text for score in scores],
            seconds,
            bare=spec.name if spec is not None else None,
        )
        self._column_titles[titled.id or ""] = (forms, f"{key} strategy · ≠ cut only here")
        self._refit_column_titles()

    #: The left column's title, longest first (`_titles`), fitted to its border.
    _left_title_forms: list[str] | None = None
    #: The left column's width its title was last fitted to.
    _left_title_width = 0
    #: The tab bar's width its labels were last fitted to (narrow layout: `_laid_out`).
    _tabs_width = 0

    def _fit_left_title(self, *, retries: int = 3) -> None:
        """The left column's title, the longest of its forms that fits its border (one
        cut by the border lost its count's reason); fitted again once laid out."""
        forms = self._left_title_forms
        if not forms or not self.is_mounted:
            return
        if self.driver.comparing and "before-col" in self._column_titles:
            return  # a compare column's title (`_refit_column_titles`)
        before_col = self.query_one("#before-col")
        self._left_title_width = before_col.size.width
        room = before_col.size.width - 6
        if room <= 0 and retries > 0:
            self.call_after_refresh(self._fit_left_title, retries=retries - 1)
        _set_title(before_col, fit_text(forms, room), "v switches · [ strategy")

    def _refit_column_titles(self, *, retries: int = 3) -> None:
        """The compare columns' titles, each the longest of its forms that fits its
        border now; one not laid out yet (after a recompose, at a
        resize across the narrow breakpoint) is fitted again once it is, never left in
        its longest form for the border to cut."""
        if not self.driver.comparing or not self.is_mounted:
            return
        # Both columns are fitted together: when one has no room for its side's name
        # ("LEFT · ", "RIGHT · "), neither shows it, so the two titles read alike.
        widgets = [self.query_one(f"#{i}") for i in self._column_titles]
        fitted: list[tuple[Widget, list[str], int, str]] = []
        for titled in widgets:
            known = self._column_titles.get(titled.id or "")
            if known is None:
                continue
            room = titled.size.width - 6
            if room <= 0:  # not laid out (or hidden: then a few refreshes, no more)
                if retries > 0:
                    self.call_after_refresh(self._refit_column_titles, retries=retries - 1)
                continue
            forms, subtitle = known
            self._column_title_widths[titled.id or ""] = titled.size.width
            fitted.append((titled, forms, room, subtitle))
        named = all(
            fit_text(forms, room).startswith(_side_name(forms)) for _, forms, room, _ in fitted
        )
        for titled, forms, room, subtitle in fitted:
            if not named:
                forms = [f for f in forms if not f.startswith(_side_name(forms))] or forms
            # the subtitle gives up its note before the border cuts it (``≠ cut only he…``)
            short = subtitle.partition(" · ")[0]
            _set_title(titled, fit_text(forms, room), fit_text([subtitle, short], room))

    def _compare_band_styles(self) -> list[Style]:
        error = self.app.theme_variables.get("error") or "red"
        try:
            return [Style(dim=True), Style(color=error, bold=True)]
        except Exception:  # a theme colour Rich does not read
            return [Style(dim=True), Style(color="red", bold=True)]

    def action_cycle_left(self) -> None:
        toggle = self.query_one("#left-kind", ChoiceToggle)
        toggle.action_cycle()  # round to the first after the last

    @_while_composed
    def show_params(self, tuning: Tuning) -> None:
        self.query_one(MergePanel).show(tuning)
        budget = tuning.recap.budget
        recap = self.query_one(RecapPanel)
        if recap.budget != budget:
            recap.set_budget(budget)

    def column_card(self) -> tuple[str, int, Any] | None:
        """While comparing, the card selected in the focused column when that column does
        not show the merged run (a strategy's or a merge mode's chunks, or the items before
        the merge): what it is (``blank-line chunk``, ``item``), its index and the chunk;
        None otherwise (the merged run's selected chunk is `selected_chunk`)."""
        if not self.driver.comparing:
            return None
        focused = self.focused
        if not isinstance(focused, ChunkList) or focused.id not in ("before", "merged"):
            return None
        side = "left" if focused.id == "before" else "right"
        spec = self.driver.column_specs[side]
        if spec is None and side == "right":
            return None
        if not 0 <= focused.selected < len(focused.chunks):
            return None
        what = f"{spec.name} chunk" if spec is not None else "item"
        return what, focused.selected, focused.chunks[focused.selected]

    def selected_chunk(self) -> tuple[int, Any] | None:
        if self.view is None or not self.view.result.chunks:
            return None
        self.catch_up()
        return self.selected, self.view.result.chunks[self.selected]

    def catch_up(self) -> None:
        """Take the focused list's selection now: the `ChunkList.Selected` it posted may
        still wait behind the key that asks (``↓ ↓ ↓ p`` in one burst pinned the chunk
        selected before the arrows, `m` marked the item before them; walk 25, F12)."""
        focused = self.screen.focused if self.is_attached else None
        if not isinstance(focused, ChunkList) or focused.id not in ("merged", "before"):
            return
        picked = self._selected_by(focused, focused.selected) if focused.chunks else None
        if picked is not None and picked[0] != self.selected:
            self.select_merged(picked[0], from_left=picked[1])


def _shown_in(widget: Widget, container: Widget) -> bool:
    """Whether `widget` and each of its ancestors below `container` are displayed."""
    node: Any = widget
    while node is not None and node is not container:
        if not node.display:
            return False
        node = node.parent
    return True


_EMPTY = {"before": "no chunks: open a file with ctrl+o", "merged": "nothing merged yet"}


def _title_forms(
    side: str,
    label: str,
    count: int,
    differs: Sequence[str],
    seconds: str,
    *,
    bare: str | None = None,
) -> list[str]:
    """A compare column's title, longest first (`fit_text` takes the one that fits its
    border), the numbers kept to the last:
    the time goes first, then the side's name, then the label's first words, then
    "cuts differ" becomes "≠" (the subtitle says what ≠ means), then the strategy's
    parameters (`bare`: its name alone; the panel shows them) before any score, then the
    scores' least useful parts (`differs`: the column's numbers, each shorter than the
    one before); at the last, the name and count alone. Never a number cut."""
    short = label.split(" · ")[-1]
    names = [short] if bare is None or bare == short else [short, bare]
    differ = differs[0]
    tries = [
        f"{side.upper()} · {label} ({count}){differ}{seconds}",
        f"{side.upper()} · {label} ({count}){differ}",
        f"{label} ({count}){differ}{seconds}",
        f"{label} ({count}){differ}",
    ]
    for shorter in differs:
        terse = shorter.replace(" cuts differ", " ≠").replace(" cut differs", " ≠")
        for name in names:
            if shorter is differs[0]:
                tries.append(f"{name} ({count}){shorter}")
            tries.append(f"{name} ({count}){terse}")
    tries += [f"{names[-1]} ({count})", names[-1]]
    return tries


def _side_name(forms: Sequence[str]) -> str:
    """The side's name that begins a compare column's longest title ("RIGHT · ")."""
    return forms[0].split(" · ", 1)[0] + " · " if forms else ""


def _typed_character(binding: Binding) -> str | None:
    """The character `binding`'s key types, if it types one: Textual's own name for it,
    or the one printable character it is shown as (``slash`` shown ``/``)."""
    from textual.keys import key_to_character

    character = key_to_character(binding.key)
    shown = binding.key_display or ""
    if character is None and len(shown) == 1 and "+" not in binding.key:  # no modifier
        character = shown
    return character


def _keys_that_work(found: dict[str, ActiveBinding], focused: Widget) -> dict[str, ActiveBinding]:
    """`found` without the keys `focused` takes as text; help and quit, when their shown
    key is one of those, shown under another key of theirs that still works."""
    from dataclasses import replace

    kept = {
        key: active
        for key, active in found.items()
        if not focused.check_consume_key(key, _typed_character(active.binding))
    }
    shown = {_bare(a.binding.action) for a in kept.values() if a.binding.show}
    for action in WorkbenchScreen.FOOTER_FIRST:
        if _bare(action) in shown:
            continue
        for key, active in kept.items():
            if _bare(active.binding.action) == _bare(action):  # f1 shown as f1, not ?
                shown_as = replace(active.binding, show=True, key_display=None)
                kept[key] = active._replace(binding=shown_as)
                break
    return kept


def _bare(action: str) -> str:
    """An action without the app's namespace (``app.quit`` and the app's own ``quit``)."""
    return action.removeprefix("app.")


def _set_title(widget: Any, title: str, subtitle: str | None = None) -> None:
    put_border_title(widget, title)
    if subtitle is not None and str(widget.border_subtitle or "") != subtitle:
        widget.border_subtitle = subtitle


def _identity(n: int) -> Any:
    import numpy as np

    return np.arange(n, dtype=np.int64)
