"""A virtualised list of chunk cards: only the lines on screen are ever rendered.

Each card is a header line (index, time range, role badges, chars, tokens), the first
lines of the chunk's text and, in the merged column, a line saying why the merged chunk
was cut from the next one. Enter expands a card to its full text. A coloured band on the
left edge shows which merged chunk an item belongs to.

Card heights are known without rendering (collapsed cards have a fixed height), so the
list keeps a prefix sum of heights and maps a screen line to (card, row) by bisection;
rendered lines are cached by (card, row, state: plain / related / selected) until the
data or the width changes, so moving the selection or the highlighted parts re-renders
and repaints only the cards whose state changed. Log text
is data: it is stripped of terminal control sequences and drawn as plain segments, never
parsed as markup.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import numpy as np
from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from chunkscope.engine.segment.merge import cut_name
from chunkscope.themes import readable, readable_highlight
from chunkscope.tui.cells import terminal_text

PREVIEW_LINES = 2
MAX_EXPANDED_LINES = 5000

BADGES = {
    "You": "You",
    "Bot": "Bot",
    "Tool": "Tool",
    "Bot thinking": "Think",
    "Doc": "Doc",
    "system": "Sys",
}

#: The longest badge of a role not in `BADGES` (a reader's own: "Subagent"), in cells.
BADGE_CELLS = 10


def role_badge(role: str) -> str:
    """A role's badge: its short name, else the role whole, or cut with "…" when long
    (cut at six cells, `Subagent` read `Subage`, a word cut with nothing to say so:
    walk 16, 15)."""
    shown = BADGES.get(role)
    if shown is not None:
        return shown
    name = _clean(role)
    if cell_len(name) <= BADGE_CELLS:
        return name
    return chop_cells(name, BADGE_CELLS - 1)[0] + "…"


def fit_badges(badges: list[Segment], room: int, dim: Style) -> list[Segment]:
    """A card's role badges joined by ``·`` in `room` cells: those that fit whole, the
    rest counted (``Think·+2``); the first one and the count when even they do not fit
    (the card's time range then gives way to its start: `ChunkList._header_segments`).
    Cut at the column's edge they read ``Think·To…`` or ``Think·…`` at 100 columns,
    which named no role (walk 49, F6)."""
    joined: list[Segment] = []
    for k, badge in enumerate(badges):
        if k:
            joined.append(Segment("·", dim))
        joined.append(badge)
    if _cells(joined) <= room or len(badges) < 2:
        return joined
    for kept in range(len(badges) - 1, 0, -1):
        shown = [*joined[: 2 * kept - 1], Segment(f"·+{len(badges) - kept}", dim)]
        if _cells(shown) <= room:
            return shown
    return shown


def _cells(segments: list[Segment]) -> int:
    return sum(cell_len(seg.text) for seg in segments)


CUT_TEXT = {
    "threshold": "below threshold",
    "size_cap": "size cap refused",
    "chunk_size": "chunk size, same topic",
    "min_similarity": "below min similarity",
    "max_passes": "max passes reached",
}


#: What a card over the size cap says (one unit kept whole: ``exceeds_limit``).
OVER_CAP = "over cap! "

#: What a cut's line says of it against the topic marks, and its style.
VERDICT_TEXT = {
    "hit": ("  ✓ topic start", "hit"),
    "spurious": ("  ✗ no topic here", "miss"),
    "outside": ("  · outside marks", "dim"),  # partial marks: not scored
}


def human_count(n: int) -> str:
    """412, 3.1k, 12k, 1.2M: short counts for cards."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M"


def short_time_range(chunk: Any) -> str:
    start, end = chunk.start, chunk.end
    if start is None:
        return "--:--:--"
    from chunkscope.engine.model import days_between

    a = start.strftime("%H:%M:%S")
    b = end.strftime("%H:%M:%S") if end is not None else a
    days = days_between(start, end)  # across midnight: the end says how many days on
    return a if a == b and not days else f"{a}–{b}" + (f"+{days}d" if days else "")


def cut_parts(cut: Any) -> tuple[str, str]:
    """(why, numbers) of a merged chunk's cut, from the merge trace: ``("topic",
    "depth 9.10 ≥ 7.00 · sim 0.06")``, ``("", "sim 0.11 < threshold 0.12")``; either
    may be empty (a strategy's cut has no numbers). A reason starting ``≠ `` (a cut
    only this column of the compare view has) keeps the sign in front of the why."""
    differ = "≠ " if cut.reason.startswith("≠ ") else ""
    why, numbers = _cut_parts(
        cut.reason.removeprefix("≠ "), cut.similarity, cut.threshold, getattr(cut, "depth", None)
    )
    return (differ + why).strip(), numbers


def _cut_parts(reason: str, s: Any, t: Any, depth: Any) -> tuple[str, str]:
    if not isinstance(s, (int, float)) or s != s:  # a strategy's cut: no similarity
        return CUT_TEXT.get(reason, reason).replace("_", " "), ""
    if reason == "chunk_size":
        return "chunk size · same topic, split for search", ""
    if reason == "size_cap" and depth is not None:  # the topic's best gap, not a full chunk
        return f"{cut_name(reason, topic=True)} · same topic, at its best gap", ""
    if reason == "size_cap":
        return "too big to join", f"sim {s:.2f}"
    if depth is not None:
        return reason, f"depth {depth:.2f} ≥ {t:.2f} · sim {s:.2f}"
    if reason == "threshold":
        return "", f"sim {s:.2f} < threshold {t:.2f}"
    return CUT_TEXT.get(reason, reason), f"sim {s:.2f}"


def joined(*parts: str) -> str:
    """`parts` joined by `` · ``; an empty part (or a lone ``·``, the sign of a verdict
    that has none) leaves no separator behind, and a part's own leading ``· `` is
    dropped, so two separators never meet (``paragraph · · outside marks``)."""
    words = (p.strip().removeprefix("·").strip() for p in parts)
    return " · ".join(w for w in words if w)


def cut_text(cut: Any) -> str:
    """One line on why a merged chunk ends where it does (from the merge trace), every
    number named: ``┄ cut: sim 0.11 < threshold 0.12``, ``┄ cut: too big to join ·
    sim 0.30``, ``┄ cut: topic · depth 9.10 ≥ 7.00 · sim 0.06``."""
    return "┄ cut: " + joined(*cut_parts(cut))


_THRESHOLD = re.compile(r" [≥<] (?:threshold )?-?\d+\.\d+")


def cut_line_tiers(cut: Any, verdict: str) -> list[tuple[str, str]]:
    """A judged cut's line, longest first, as (cut text, verdict text): in full
    (``┄ cut: structure · depth 8.07 ≥ 7.00 · sim 0.15``, `` · ✗ no topic here``), the
    verdict's sign alone, then the numbers without the thresholds they were held to
    (``┄ structure · depth 8.07 · sim 0.15``, `` · ✗``)."""
    why, numbers = cut_parts(cut)
    said = joined(verdict)  # "· outside marks": its dot is the separator, not doubled
    sign = joined(verdict.split(" ", 1)[0])  # "outside marks": nothing to sign
    said, sign = (" · " + said if said else ""), (" · " + sign if sign else "")
    short = joined(why, _THRESHOLD.sub("", numbers))
    return [
        (cut_text(cut), said),
        (cut_text(cut), sign),
        ("┄ " + short, sign),
    ]


def _wrap_words(line: str, width: int, rows: int) -> list[str]:
    """`line` over at most `rows` rows of `width` cells, broken between words (a word
    longer than a row is broken inside); the last row holds the rest, however long."""
    out: list[str] = []
    pos = 0
    n = len(line)
    while len(out) < rows - 1 and cell_len(line[pos : pos + 2 * width + 2]) > width:
        head = chop_cells(line[pos : pos + 2 * width + 2], width)[0]
        cut = head.rfind(" ")
        if cut > 0:
            head = head[:cut]
        out.append(head.rstrip(" "))
        pos += len(head)
        while pos < n and line[pos] == " ":
            pos += 1
    return [*out, line[pos:]]


def wrap_words(line: str, width: int, rows: int) -> list[str]:
    """`line` over rows of `width` cells broken between words, at most `rows` rows
    (more than `rows`: the rest is dropped, not kept on the last row)."""
    out = _wrap_words(line, width, rows + 1)
    return out[:rows] if len(out) > rows else out


_ROLE_ONLY = re.compile(r"^[A-Za-z][\w ]{0,20}:\s*$")  # "Tool:" with nothing after it


def _clean(line: str) -> str:
    return terminal_text(line).replace("\t", "    ")


def preview_lines(text: str, count: int = PREVIEW_LINES) -> list[str]:
    """The first `count` non-blank lines of `text`, without scanning the rest of it."""
    out: list[str] = []
    pos = 0
    n = len(text)
    while len(out) < count and pos <= n:
        end = text.find("\n", pos)
        if end < 0:
            end = n
        line = text[pos : min(end, pos + 1000)]
        if line.strip() and not _ROLE_ONLY.match(line):
            out.append(_clean(line))
        pos = end + 1
    return out


#: `ChunkList._drawn` of a line waiting to be drawn again: equal to no line's key.
_REPAINTING: tuple[object, ...] = (object(),)


def set_virtual_size(view: ScrollView, size: Size, *, repaint: bool = True) -> None:
    """Set a scroll view's virtual size without a screen layout when the scrollbar's
    visibility stays as it is (a layout repaints the whole screen: ~10x the cost).
    Without `repaint` the view's lines are left for the caller to repaint (those that
    change: `ChunkList`)."""
    old = view.virtual_size
    if size == old:
        return
    height = view.scrollable_content_region.height
    if not view.is_mounted or height <= 0 or (old.height > height) != (size.height > height):
        view.virtual_size = size
        return
    view.set_reactive(Widget.virtual_size, size)
    view._scroll_update(size)
    if repaint:
        view.refresh()


class ChunkList(ScrollView, can_focus=True):
    """Cards for a list of chunks, with bands, selection, related highlight and expansion."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev", show=False),
        Binding("down,j", "move(1)", "Next", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("enter", "toggle_expand", "Expand"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "chunk-list--header",
        "chunk-list--dim",
        "chunk-list--selected",
        "chunk-list--related",
        "chunk-list--cut",
        "chunk-list--empty",
        "chunk-list--mark",
        "chunk-list--hit",
        "chunk-list--miss",
        "chunk-list--search",
    }

    DEFAULT_CSS = """
    ChunkList {
        background: $surface;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
        /* the scrollbar's cell kept when there is none: text never meets the border */
        scrollbar-gutter: stable;
        & > .chunk-list--header { text-style: bold; }
        & > .chunk-list--dim { color: $text-muted; }
        & > .chunk-list--selected { background: $primary 35%; }
        & > .chunk-list--related { background: $primary 14%; }
        & > .chunk-list--cut { color: $warning; text-style: italic; }
        & > .chunk-list--empty { color: $text-muted; text-style: italic; }
        & > .chunk-list--mark { color: $accent; text-style: bold; }
        & > .chunk-list--hit { color: $success; text-style: bold; }
        & > .chunk-list--miss { color: $error; text-style: bold; }
        & > .chunk-list--search { color: $warning; text-style: bold reverse; }
    }
    ChunkList:focus > .chunk-list--selected { background: $primary 55%; }
    """

    class Selected(Message):
        """The user moved the selection to card `index`."""

        def __init__(self, chunk_list: ChunkList, index: int) -> None:
            self.chunk_list = chunk_list
            self.index = index
            super().__init__()

        @property
        def stale(self) -> bool:
            """Whether the list has posted a newer selection since (a key burst)."""
            return self.chunk_list.posted != self.index

        @property
        def control(self) -> ChunkList:
            return self.chunk_list

    selected: reactive[int] = reactive(0, init=False, repaint=False)
    #: The card of the last `Selected` posted: an earlier one still on its way is stale
    #: (a key burst moved on: its handler would move the list back, walk 44 F1).
    posted: int | None = None

    def __init__(
        self,
        *,
        empty_text: str = "no chunks",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.empty_text = empty_text
        self._chunks: Sequence[Any] = []
        self._tokens: Sequence[int] | None = None
        self._tokens_approx = False
        self._bands: np.ndarray | None = None
        self._band_styles: list[Style] = []
        self._cuts: Sequence[Any] | None = None
        self._related: tuple[int, int] = (0, 0)
        self._expanded: dict[int, list[str]] = {}
        self._offsets = np.zeros(1, dtype=np.int64)
        self._offset_list: list[int] = [0]
        # Rendered lines by (card, row, state): the state (plain / related / selected)
        # is in the key, so moving the selection or the highlight re-renders only the
        # cards whose state changed, and repaints only their lines.
        self._line_cache: dict[tuple[int, int, int], Strip] = {}
        # What each line on screen was drawn from (`_line_key`), by its row in the
        # widget: new data repaints only the lines whose key changed (`_repaint_changed`);
        # the headers' keys are kept per card until the data changes.
        self._drawn: dict[int, tuple[object, ...]] = {}
        self._card_keys: dict[int, tuple[object, ...]] = {}
        self._cache_width = -1
        self._badge_style: Callable[[str], Style] | None = None
        self._badges: dict[tuple[str, object], Style] = {}  # by (role, line background)
        self._styles: dict[str, Style] = {}
        self._preview: dict[int, list[str]] = {}
        # Topic marks: a flag per card (mark: a topic starts in it; miss: it hides a
        # topic start no cut found) and a verdict per cut (hit | spurious | outside).
        self._flags: dict[int, str] = {}
        self._verdicts: Sequence[str] = ()
        self._over: Sequence[bool] | None = None
        self._clock = True
        # The Search panel's answer: card -> its rank in the context (`set_hits`).
        self._hits: dict[int, int] = {}

    # ------------------------------------------------------------------ data

    @property
    def count(self) -> int:
        return len(self._chunks)

    @property
    def chunks(self) -> Sequence[Any]:
        return self._chunks

    def set_items(
        self,
        chunks: Sequence[Any],
        *,
        tokens: Sequence[int] | None = None,
        tokens_approx: bool = False,
        bands: np.ndarray | None = None,
        cuts: Sequence[Any] | None = None,
        over: Sequence[bool] | None = None,
        clock: bool = True,
    ) -> None:
        """Replace the cards; the selection is clamped, expansions are dropped. `over`
        flags the cards over the size cap (one unit kept whole); without `clock` (a
        document) the cards show no time."""
        self._chunks = chunks
        self._tokens = tokens
        self._tokens_approx = tokens_approx
        self._bands = bands
        self._cuts = cuts
        self._over = over
        self._clock = clock
        self._preview.clear()
        self._expanded.clear()
        self._related = (0, 0)
        sel = min(self.selected, max(0, len(chunks) - 1))
        self.set_reactive(ChunkList.selected, sel)
        self._relayout(repaint_all=False)

    def set_tokens(self, tokens: Sequence[int], *, approx: bool = False) -> None:
        self._tokens = tokens
        self._tokens_approx = approx
        self._repaint_changed()

    def set_bands(self, bands: np.ndarray | None) -> None:
        """New owners for the same items (after a re-merge): the layout is unchanged."""
        old = self._bands
        if old is not None and bands is not None and np.array_equal(old, bands):
            return
        self._bands = bands
        self._repaint_changed()

    def set_marks(self, flags: dict[int, str], verdicts: Sequence[str] = ()) -> None:
        """Topic-mark flags per card and verdicts per cut (see `tui.workbench.marks`)."""
        if flags == self._flags and list(verdicts) == list(self._verdicts):
            return
        self._flags = dict(flags)
        self._verdicts = list(verdicts)
        self._repaint_changed()

    def set_hits(self, hits: dict[int, int]) -> None:
        """The cards in the Search panel's answer, each with its rank (none: no search);
        a hit card's header shows ``⌕rank`` in the search style."""
        if hits == self._hits:
            return
        self._hits = dict(hits)
        self._repaint_changed()

    def set_band_styles(self, styles: list[Style]) -> None:
        self._band_styles = styles
        self._invalidate()

    def set_badge_style(self, badge_style: Callable[[str], Style]) -> None:
        self._badge_style = badge_style
        self._invalidate()

    def set_related(self, start: int, end: int) -> None:
        """Highlight cards ``start..end-1`` (the parts of the selected merged chunk)."""
        if (start, end) != self._related:
            a, b = self._related
            self._related = (start, end)
            self._refresh_cards(
                i for i in self._visible_cards() if (a <= i < b) != (start <= i < end)
            )

    def _card_state(self, i: int) -> int:
        """0: plain, 1: part of the related range, 2: selected."""
        if i == self.selected:
            return 2
        a, b = self._related
        return 1 if a <= i < b else 0

    def _visible_cards(self) -> range:
        """The cards with a line on screen (empty before the first layout)."""
        n = len(self._chunks)
        height = self.scrollable_content_region.height
        if not n or height <= 0:
            return range(0)
        top = self.scroll_offset.y
        first = self.card_at(top)
        last = self.card_at(min(top + height, int(self._offsets[-1])) - 1)
        if first is None or last is None:
            return range(0)
        return range(first, last + 1)

    def _refresh_cards(self, cards: Iterable[int]) -> None:
        """Repaint the lines of `cards` (their cached lines are keyed by their state)."""
        n = len(self._chunks)
        for i in cards:
            if 0 <= i < n:
                start = int(self._offsets[i])
                self.refresh_lines(start, int(self._offsets[i + 1]) - start)

    def _card_height(self, i: int) -> int:
        body = len(self._expanded[i]) if i in self._expanded else PREVIEW_LINES
        return 1 + body + (1 if self._has_cut(i) else 0)

    def _has_cut(self, i: int) -> bool:
        return self._cuts is not None and i < len(self._cuts)

    def _relayout(self, *, repaint_all: bool = True) -> None:
        n = len(self._chunks)
        base = 1 + PREVIEW_LINES
        heights = np.full(n, base, dtype=np.int64)
        if self._cuts is not None and n:
            heights[: min(n, len(self._cuts))] += 1
        for i in self._expanded:
            if i < n:
                heights[i] = self._card_height(i)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(heights, out=offsets[1:])
        self._offsets = offsets
        # the same offsets as a list, for `_locate`: a search per line drawn, which in
        # numpy lets go of the GIL and waits to get it back while a sweep runs
        self._offset_list = offsets.tolist()
        total = int(offsets[-1]) if n else 1
        set_virtual_size(self, Size(0, total), repaint=repaint_all)
        if repaint_all:
            self._invalidate()
        else:
            self._repaint_changed()

    def _forget_drawn_data(self) -> None:
        """Drop what was built from the data: the lines, the headers' keys, the styles."""
        self._line_cache.clear()
        self._card_keys.clear()
        self._styles.clear()
        self._badges.clear()

    def _invalidate(self) -> None:
        self._forget_drawn_data()
        self._drawn.clear()
        self.refresh()

    def _repaint_changed(self) -> None:
        """The data changed (cards, tokens, bands, marks, hits): repaint the lines on
        screen whose `_line_key` is not the one they were drawn from, and only those (a
        slider step that keeps the chunks on screen repaints none of them); every line
        when the list has not been drawn at its size yet."""
        self._forget_drawn_data()
        height = self.scrollable_content_region.height
        drawn = self._drawn
        if not self.is_mounted or height <= 0 or any(y not in drawn for y in range(height)):
            drawn.clear()
            self.refresh()
            return
        width = max(self.virtual_size.width, self.size.width)
        inner, top = self.scrollable_content_region.width, self.scroll_offset.y
        changed = [drawn[y] != self._line_key(y, inner, top) for y in range(height)]
        y = 0
        while y < height:
            if not changed[y]:
                y += 1
                continue
            start = y
            while y < height and changed[y]:
                drawn[y] = _REPAINTING  # its key once drawn again
                y += 1
            self.refresh(Region(0, start, width, y - start))

    def _card_key(self, i: int) -> tuple[object, ...]:
        """What card `i`'s header shows but its state and the width: the chunk (equal
        chunks have the same turns, so the same text), its index, band, tokens, flags,
        search rank, expansion."""
        key = self._card_keys.get(i)
        if key is None:
            bands, tokens, over = self._bands, self._tokens, self._over
            key = (
                self._chunks[i],
                i,
                int(bands[i]) if bands is not None and i < len(bands) else None,
                int(tokens[i]) if tokens is not None and i < len(tokens) else None,
                self._tokens_approx,
                over is not None and i < len(over) and bool(over[i]),
                self._flags.get(i),
                bool(self._flags),
                self._hits.get(i),
                bool(self._hits),
                self._clock,
                i in self._expanded,
            )
            self._card_keys[i] = key
        return key

    def _line_key(self, y: int, width: int, top: int) -> tuple[object, ...]:
        """What line `y` of the widget is drawn from (`render_line`, `_render_card_line`)
        at this `width` scrolled to `top`: a card's header from `_card_key`, a text row
        from its chunk (and expansion), its cut's row from the cut and its verdict; each
        with the card's band and state."""
        line = top + y
        if not self._chunks:
            return (width, "empty", y == 0, self.empty_text)
        if line >= int(self._offsets[-1]):
            return (width, "blank")
        i, row = self._locate(line)
        key: tuple[object, ...] = (width, row, self._card_state(i))
        if row == 0:
            return (*key, self._card_key(i))
        bands = self._bands
        band = int(bands[i]) if bands is not None and i < len(bands) else None
        lines = self._expanded.get(i)
        if row <= (len(lines) if lines is not None else PREVIEW_LINES):
            return (*key, band, self._chunks[i], lines)
        cuts = self._cuts
        if cuts is not None and i < len(cuts):
            verdict = self._verdicts[i] if i < len(self._verdicts) else None
            return (*key, band, "cut", cuts[i], verdict)
        return (*key, band)

    def _readable_tint(self, tint: Style) -> Style:
        """A card highlight whose text stays readable (the dark theme's primary at 55%
        under the focused list's selected card left its text 4.2:1)."""
        base = self._style("base")
        if tint.bgcolor is None or base.color is None or base.bgcolor is None:
            return tint
        text, ground = readable_highlight(
            Color.from_rich_color(tint.color or base.color),
            Color.from_rich_color(tint.bgcolor),
            Color.from_rich_color(base.bgcolor),
        )
        return tint + Style(color=text.rich_color, bgcolor=ground.rich_color)

    def _badge(self, role: str, base: Style) -> Style:
        """The role's badge style, its colour made readable on the line's background (the
        selected card's tint is the theme's primary: `You` in primary was 2.3:1 on it)."""
        key = (role, base.bgcolor)
        style = self._badges.get(key)
        if style is None:
            style = self._badge_style(role) if self._badge_style else Style()
            if style.color is not None and base.bgcolor is not None:
                shown = readable(
                    Color.from_rich_color(style.color), Color.from_rich_color(base.bgcolor)
                )
                style += Style(color=shown.rich_color)
            self._badges[key] = style
        return style

    def _style(self, name: str) -> Style:
        """A component style (cached until the next invalidation: theme, focus, data)."""
        style = self._styles.get(name)
        if style is None:
            if name == "base":
                style = self.rich_style
            else:
                style = self.get_component_rich_style(f"chunk-list--{name}")
            if name in ("selected", "related"):
                style = self._readable_tint(style)
            self._styles[name] = style
        return style

    def on_focus(self) -> None:
        self._invalidate()

    def on_blur(self) -> None:
        self._invalidate()

    # ------------------------------------------------------------------ rendering

    def _locate(self, line: int) -> tuple[int, int]:
        offsets = self._offset_list
        card = bisect.bisect_right(offsets, line) - 1
        return card, line - offsets[card]

    def card_at(self, line: int) -> int | None:
        """The card shown on virtual line `line`, if any."""
        if not self._chunks or line < 0 or line >= int(self._offsets[-1]):
            return None
        return self._locate(line)[0]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._cache_width:
            self._cache_width = width
            self._line_cache.clear()
            if self._expanded:
                for i in list(self._expanded):
                    self._expanded[i] = self._wrap(i, width)
                self._relayout()
        line = self.scroll_offset.y + y
        self._drawn[y] = self._line_key(y, width, line - y)
        if not self._chunks:
            if y == 0:
                style = self._style("empty")
                return Strip([Segment(f" {self.empty_text}", style)]).adjust_cell_length(
                    width, self._style("base")
                )
            return Strip.blank(width, self._style("base"))
        if line >= int(self._offsets[-1]):
            return Strip.blank(width, self._style("base"))
        card, row = self._locate(line)
        key = (card, row, self._card_state(card))
        strip = self._line_cache.get(key)
        if strip is None:
            strip = self._render_card_line(card, row, width)
            if len(self._line_cache) > 4000:
                self._line_cache.clear()
            self._line_cache[key] = strip
        return strip

    def _band_segment(self, i: int, base: Style) -> Segment:
        if self._bands is None or not self._band_styles or i >= len(self._bands):
            return Segment("  ", base)
        owner = int(self._bands[i])
        style = self._band_styles[owner % len(self._band_styles)]
        glyph = "▌ " if owner % 2 == 0 else "▍ "
        return Segment(glyph, base + style)

    def _line_style(self, i: int) -> Style:
        base = self._style("base")
        if i == self.selected:
            return base + self._style("selected")
        a, b = self._related
        if a <= i < b:
            return base + self._style("related")
        return base

    def _render_card_line(self, i: int, row: int, width: int) -> Strip:
        """One line of card `i`. Built as a list of segments whose cell lengths are summed
        as they are made, so the usual line becomes one `Strip` of known length (a Strip
        is not cheap to make: cropping and padding through Strips made four per line)."""
        chunk = self._chunks[i]
        base = self._line_style(i)
        band = self._band_segment(i, base)
        if row == 0:
            segments = self._header_segments(i, chunk, base, width - 2)
            segments.insert(0, band)
            return self._fit(segments, width, base)
        text = ""
        style = base
        lines = self._expanded.get(i)
        n_body = len(lines) if lines is not None else PREVIEW_LINES
        if row <= n_body:
            if lines is None:
                preview = self._preview_rows(i, chunk, width)
                text = "  " + preview[row - 1] if row - 1 < len(preview) else "  "
            else:
                text = "  " + lines[row - 1]
        elif self._cuts is not None and i < len(self._cuts):
            style = base + self._style("cut")
            verdict = self._verdicts[i] if i < len(self._verdicts) else None
            # unjudged, the short form too when the line is narrow: numbers, not a crop
            for body, _ in cut_line_tiers(self._cuts[i], ""):
                text = "  " + body
                if 2 + cell_len(text) <= width:
                    break
            if verdict:  # "": a size cap's cut inside a topic, not judged
                # Why, the numbers, then the verdict against the marks (the order the
                # help gives); a narrow column drops the verdict's words, then the
                # comparisons' thresholds, before it crops anything.
                note, kind = VERDICT_TEXT[verdict]
                judged = base + self._style(kind)
                for body, said in cut_line_tiers(self._cuts[i], note.strip()):
                    if 4 + cell_len(body) + cell_len(said) <= width:
                        break
                segments = [band, Segment("  " + body, style), Segment(said, judged)]
                return self._fit(segments, width, base)
        else:
            return self._fit([band], width, base)
        length = 2 + cell_len(text)
        if length > width:  # the continuation is shown by the crop and its ellipsis
            return self._fit([band, Segment(text, style)], width, base)
        return Strip([band, Segment(text, style), Segment(" " * (width - length), base)], width)

    def _preview_rows(self, i: int, chunk: Any, width: int) -> list[str]:
        """The preview rows of card `i`: its first lines, and when they are fewer than
        the rows, the last one wrapped over the rows left (instead of an empty row under
        a line cut at the column's edge)."""
        preview = self._preview.get(i)
        if preview is None:
            preview = self._preview[i] = preview_lines(chunk.text)
        if not preview or len(preview) >= PREVIEW_LINES:
            return preview
        usable = max(10, width - 4)  # the band, and the two cells of indent
        if cell_len(preview[-1]) <= usable:
            return preview
        free = PREVIEW_LINES - len(preview) + 1
        return [*preview[:-1], *_wrap_words(preview[-1], usable, free)]

    def _fit(self, segments: list[Segment], width: int, base: Style) -> Strip:
        """`segments` cropped to `width` (the last cell an ellipsis) or padded to it."""
        length = sum(cell_len(seg.text) for seg in segments)
        if length > width:
            strip = Strip(segments, length).crop(0, width - 1)
            return Strip([*strip, Segment("…", base + self._style("dim"))], width)
        if length < width:
            segments.append(Segment(" " * (width - length), base))
        return Strip(segments, width)

    def _header_segments(self, i: int, chunk: Any, base: Style, width: int) -> list[Segment]:
        head = base + self._style("header")
        dim = base + self._style("dim")
        marker = "▾" if i in self._expanded else "▸"
        left: list[Segment] = [Segment(f"{marker}{i:>4} ", head)]
        if self._hits:  # a slot on every card, so the cards align
            rank = self._hits.get(i)
            if rank is None:
                left.append(Segment("    ", base))
            else:
                left += [Segment(f"⌕{rank}", base + self._style("search")), Segment(" ", base)]
                if rank < 10:
                    left.append(Segment(" ", base))
        if self._flags:  # one cell for the topic flag on every card, so the cards align
            flag = self._flags.get(i)
            if flag is None:
                left.append(Segment("  ", base))
            else:
                glyph = "✗" if flag == "miss" else "◆"
                left.append(Segment(glyph + " ", base + self._style(flag)))
        clock = short_time_range(chunk) if self._clock else ""
        badges = [Segment(role_badge(role), base + self._badge(role, base)) for role in chunk.roles]
        tokens = ""
        if self._tokens is not None and i < len(self._tokens):
            tokens = f"{'≈' if self._tokens_approx else ''}{human_count(int(self._tokens[i]))}t"
        chars = f"{human_count(chunk.chars)}c"
        over = self._over is not None and i < len(self._over) and bool(self._over[i])
        # what gives way, in turn, so the badges stay whole: the time range to its
        # start, the chars (the tokens say the size), the time, the badges to their
        # count (``+3``); cut at the edge they read ``Y…``, ``T…`` (Think or Tool?) or
        # a bare ``…`` beside the Keys panel at 100 columns (walk 52, F2)
        start = clock.split("–")[0]
        forms = [
            (clock, True, False),
            (start, True, False),
            (start, not tokens, False),
            ("", not tokens, False),
            ("", not tokens, True),
        ]
        for clock_shown, with_chars, counted in forms:
            right = "  ".join(part for part in (chars if with_chars else "", tokens) if part) + " "
            right_len = cell_len(right) + (len(OVER_CAP) if over else 0)
            room = width - right_len - 1
            lead = [*left, Segment(clock_shown + " ", dim)] if clock_shown else list(left)
            if counted:
                shown = [Segment(f"+{len(badges)}", dim)] if badges else []
            else:
                shown = fit_badges(badges, room - _cells(lead), dim)
            if _cells(lead) + _cells(shown) <= room:
                break
        else:
            shown = []  # no room for a role: the card's index and flags, cut
        left = lead + shown
        left_len = _cells(left)
        if left_len > room:
            left = [*Strip(left, left_len).crop(0, max(0, room - 1)), Segment("…", dim)]
            left_len = min(left_len, max(0, room - 1)) + 1
        pad = max(1, width - left_len - right_len)
        if over:  # one unit larger than the size cap, kept whole
            return [
                *left,
                Segment(" " * pad, base),
                Segment(OVER_CAP, base + self._style("miss")),
                Segment(right, dim),
            ]
        return [*left, Segment(" " * pad, base), Segment(right, dim)]

    def _wrap(self, i: int, width: int) -> list[str]:
        """Card `i`'s text over rows of the column, broken between words."""
        usable = max(10, width - 4)
        out: list[str] = []
        for raw in self._chunks[i].text.split("\n"):
            line = _clean(raw)
            if not line:
                out.append("")
            else:
                out.extend(wrap_words(line, usable, MAX_EXPANDED_LINES + 1 - len(out)))
            if len(out) >= MAX_EXPANDED_LINES:
                out = out[:MAX_EXPANDED_LINES]
                out.append("… (truncated)")
                break
        return out or [""]

    # ------------------------------------------------------------------ selection

    def watch_selected(self, old: int, new: int) -> None:
        self._refresh_cards((old, new))

    def select(self, index: int, *, scroll: bool = True, post: bool = False) -> None:
        """Move the selection to card `index` (clamped); post `Selected` when asked."""
        if not self._chunks:
            return
        index = max(0, min(index, len(self._chunks) - 1))
        changed = index != self.selected
        self.selected = index
        if scroll:
            self.scroll_to_card(index)
        if post and changed:
            self.posted = index
            self.post_message(self.Selected(self, index))

    def scroll_to_card(self, index: int, *, top: bool = False) -> None:
        if not self._chunks or index >= len(self._chunks):
            return
        if not self.scrollable_content_region.height:
            # Not laid out yet: scroll once the list has a size.
            self.call_after_refresh(self.scroll_to_card, index, top=top)
            return
        start = int(self._offsets[index])
        end = int(self._offsets[index + 1])
        height = self.scrollable_content_region.height
        y = self.scroll_offset.y
        if top or start < y:
            self.scroll_to(y=start, animate=False, immediate=True)
        elif end > y + height:
            self.scroll_to(
                y=max(start if end - start > height else end - height, 0),
                animate=False,
                immediate=True,
            )

    def action_move(self, delta: int) -> None:
        self.select(self.selected + delta, post=True)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        line = int(self._offsets[self.selected]) + direction * height if self._chunks else 0
        card = self.card_at(max(0, min(line, int(self._offsets[-1]) - 1)))
        if card is not None:
            self.select(card, post=True)

    def action_jump(self, where: int) -> None:
        self.select(where if where >= 0 else len(self._chunks) - 1, post=True)

    def action_toggle_expand(self) -> None:
        self.toggle_expand(self.selected)

    def toggle_expand(self, index: int) -> None:
        if not self._chunks:
            return
        if index in self._expanded:
            del self._expanded[index]
        else:
            self._expanded[index] = self._wrap(index, self.scrollable_content_region.width)
        self._relayout()
        self.scroll_to_card(index)

    def is_expanded(self, index: int) -> bool:
        return index in self._expanded

    def expanded_cards(self) -> tuple[int, ...]:
        """The cards shown whole (`toggle_expand`), in order."""
        return tuple(sorted(self._expanded))

    def expand_cards(self, indices: tuple[int, ...]) -> None:
        """Show `indices` whole (those of the cards there are), once the list is laid
        out (a card is wrapped to the list's width)."""
        wanted = [i for i in indices if 0 <= i < len(self._chunks) and i not in self._expanded]
        if not wanted:
            return

        def expand() -> None:
            width = self.scrollable_content_region.width
            for i in wanted:
                if i < len(self._chunks) and i not in self._expanded:
                    self._expanded[i] = self._wrap(i, width)
            self._relayout()
            self.scroll_to_card(self.selected)

        self.call_after_refresh(expand)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        card = self.card_at(self.scroll_offset.y + offset.y)
        if card is None:
            return
        if card == self.selected and event.chain >= 2:
            self.toggle_expand(card)
        else:
            self.select(card, scroll=False, post=True)

    def rendered_lines(self) -> list[str]:
        """The text of the lines on screen (for tests and the headless benchmark)."""
        height = self.scrollable_content_region.height
        return [self.render_line(y).text for y in range(height)]
