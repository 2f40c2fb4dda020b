"""The similarity strip: neighbour similarities, cuts, the selection and chunk sizes.

All rows share one horizontal axis: the compacted chunks (pairs of neighbours) across
the whole document. When there are more pairs than columns, each column is a bucket of
pairs and shows its lowest similarity (so a dip that caused a cut never disappears).

- rows 1-2: a sparkline of similarities, coloured above / below the first pass threshold;
- row 3: where the merged chunks were cut, a glyph per reason, and ``▲`` at the selection;
  with a search answer (the Search panel), its rank (``1``…``9``, ``+``) at each hit chunk,
  the selected hit's rank lit (a block of its own colour) in place of its ``▲`` (the legend
  says so: ``1 selected``), so every rank stays on the row;
  with topic marks, a cut near a mark is green (a hit), any other red (spurious) but
  one outside the stretch of partial marks (not scored);
- with topic marks, a row of them: ``◆`` green where a cut found it, red where none did,
  a digit where several marks share a column (their count, red if one of them was missed);
- row 4: the size of the merged chunk that holds each position, against the size cap;
- row 5: the legend.

Rows are built with numpy (one glyph and one style index per column) and drawn as runs
of same-style cells, one Segment per run. Each row is cached under the data it shows
(a version number per input and the width), so a re-merge that leaves the similarities
alone rebuilds only the cut, size and legend rows, and a new selection only the cut row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any, ClassVar

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from chunkscope.engine.summarize.extractive import RUNS_ON
from chunkscope.tui.widgets.panel_title import fit_title

#: Similarities spread over less than this have no range of their own to scale to.
FLAT_RANGE = 1e-6

BARS = " ▁▂▃▄▅▆▇█"
LABEL_WIDTH = 6
#: At most this many rows of the strip hold its legend (the rest goes in the border).
LEGEND_ROWS = 4

#: A glyph per cut reason: the seed loop's (threshold, size cap, min similarity, max
#: passes) and the topic segmenter's (topic, structure, size cap).
CUT_GLYPHS = {
    "threshold": "┃",
    "topic": "┃",
    "structure": "┇",
    "size_cap": "╳",
    "chunk_size": "╎",
    "min_similarity": "◆",
    "max_passes": "┆",
}
#: The glyph of a cut whose reason is none of those (a chunking strategy's: "token
#: limit", "message count", ...); the legend names each such reason.
OTHER_GLYPH = "│"
CUT_PRIORITY = {
    "size_cap": 3,
    "min_similarity": 2,
    "max_passes": 1,
    "structure": 1,
    "threshold": 0,
    "topic": 0,
    "chunk_size": -1,
}


def cut_name(reason: str, topic: bool = False) -> str:
    """A cut reason as the user reads it (`engine.segment.merge.cut_name`): the strip's
    legend and the merge panel's stats."""
    from chunkscope.engine.segment.merge import cut_name as named

    return named(reason, topic)


#: The cut reasons of each merge mode, in the legend's order; with no cuts, the legend
#: names the seed loop's.
SEED_REASONS = ("threshold", "size_cap", "min_similarity", "max_passes")
TOPIC_REASONS = ("topic", "structure", "size_cap", "chunk_size")


def glyph_key(topic: bool) -> str:
    """The cut glyphs a merge mode draws, named as the legend names them, for the help:
    ``"`┃` topic, `┇` structure, `╳` split to fit cap, `╎` chunk size"``."""
    reasons = TOPIC_REASONS if topic else SEED_REASONS
    return ", ".join(f"`{CUT_GLYPHS[r]}` {cut_name(r, topic)}" for r in reasons)


def bucket_edges(n: int, columns: int) -> np.ndarray:
    """Start index of each column's bucket over ``n`` items, plus ``n`` (columns <= n)."""
    return np.linspace(0, n, columns + 1).astype(np.int64)


class SimilarityStrip(Widget):
    """Sparklines of similarities and sizes with cut and selection markers."""

    class LegendWrapped(Message):
        """The strip's legend asks for another number of rows of its own beside the
        border (its `legend_rows`)."""

        def __init__(self, strip: SimilarityStrip) -> None:
            super().__init__()
            self.strip = strip

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "similarity-strip--above",
        "similarity-strip--below",
        "similarity-strip--cut",
        "similarity-strip--selected",
        "similarity-strip--size",
        "similarity-strip--over",
        "similarity-strip--label",
        "similarity-strip--hit",
        "similarity-strip--miss",
        "similarity-strip--search",
        "similarity-strip--selected-hit",
    }

    DEFAULT_CSS = """
    SimilarityStrip {
        height: 7;
        & > .similarity-strip--above { color: $sim-above; }
        & > .similarity-strip--below { color: $sim-below; }
        & > .similarity-strip--cut { color: $cut; }
        & > .similarity-strip--selected { color: $accent; text-style: bold; }
        & > .similarity-strip--size { color: $primary; }
        & > .similarity-strip--over { color: $error; text-style: bold; }
        & > .similarity-strip--label { color: $text-muted; }
        & > .similarity-strip--hit { color: $success; text-style: bold; }
        & > .similarity-strip--miss { color: $error; text-style: bold; }
        & > .similarity-strip--search { color: $warning; text-style: bold reverse; }
        & > .similarity-strip--selected-hit { color: $primary; text-style: bold reverse; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.sims = np.zeros(0, dtype=np.float64)
        self.threshold: float | None = None
        self.cuts: list[tuple[int, str]] = []  # (pair index over compacted chunks, reason)
        self.sizes = np.zeros(0, dtype=np.int64)  # per compacted chunk: its merged chunk's size
        self.cap: int | None = None
        self.cap_unit = "chars"
        self.selected_pair: int | None = None  # the selected chunk's first position
        self.selected_end: int | None = None  # and one past its last
        #: What the similarity rows say when the run has no similarity scores (a
        #: chunking strategy's column): its cuts and sizes are drawn all the same.
        self.note: str | None = None
        #: The run makes no cuts (the items before the merge): the legend names none.
        self.uncut = False
        #: The merge mode of the run shown (``topic``, ``seed``; None: not known).
        self.mode: str | None = None
        #: The chunks of the run the strip shows when it is not one per unit of its axis
        #: (a compare column's): its "1 column = N chunks" counts those.
        self.own_chunks: int | None = None
        #: What one item of the scale is, singular ("unit": the compacted units the
        #: axis plots; a compare column's own: "turn", "chunk"): see `scale_text`.
        self.scale_noun = "unit"
        self.marks: list[tuple[int, str]] = []  # (pair, hit | miss)
        self.verdicts: list[str] = []  # per cut: hit | spurious (with marks)
        self._marks_version = 0
        #: ((first position, one past the last), rank) of the search answer's chunks
        self.hits: list[tuple[tuple[int, int], int]] = []
        self._hits_version = 0
        # A version per input: a row is rebuilt only when what it shows has changed.
        self._sims_version = 0
        self._cuts_version = 0
        self._sizes_version = 0
        self._row_cache: dict[str, tuple[tuple[object, ...], Strip]] = {}
        self._styles: dict[str, Style] = {}
        self._border_key: tuple[object, ...] | None = None  # where the legend went
        self._legend_lines: list[list[Segment]] = []  # the legend rows' part of it
        #: Rows the legend asked for beside the border (see `_legend_in_border`).
        self.legend_rows = 0
        self._legend_indent = LABEL_WIDTH
        # the legend last put in the border, and the border's subtitle it made
        self._border_legend: tuple[Text | None, object] = (None, None)
        self.builds = 0  # rows built (tests and the benchmark read it)
        self._title: tuple[str | list[str], list[str]] = ("", [])  # see `set_title`

    def set_data(
        self,
        sims: np.ndarray,
        threshold: float | None,
        cuts: Sequence[tuple[int, str]],
        sizes: np.ndarray,
        cap: int | None,
        cap_unit: str,
        mode: str | None = None,
    ) -> None:
        """New data; only the rows whose inputs changed are rebuilt and repainted.
        `mode`: the merge's (``topic``, ``seed``), whose reasons the legend names; None
        when not a merge's or not known (then the cuts drawn tell)."""
        changed = mode != self.mode
        self.mode = mode
        if sims is not self.sims and not _same(sims, self.sims):
            self._sims_version += 1
            changed = True
        self.sims = sims
        if threshold != self.threshold:
            self.threshold = threshold
            changed = True
        cuts = list(cuts)
        if cuts != self.cuts:
            self.cuts = cuts
            self._cuts_version += 1
            changed = True
        if sizes is not self.sizes and not _same(sizes, self.sizes):
            self._sizes_version += 1
            changed = True
        self.sizes = sizes
        if (cap, cap_unit) != (self.cap, self.cap_unit):
            self.cap, self.cap_unit = cap, cap_unit
            changed = True
        if changed:
            self.refresh()

    def set_marks(self, marks: Sequence[tuple[int, str]], verdicts: Sequence[str]) -> None:
        """Topic marks (pair, hit | miss) and a verdict per cut; none: no marks row."""
        marks, verdicts = list(marks), list(verdicts)
        if marks == self.marks and verdicts == self.verdicts:
            return
        self.marks, self.verdicts = marks, verdicts
        self._marks_version += 1
        self.set_class(bool(marks), "-marks")
        self.refresh()

    def _far_hit(self) -> bool:
        """Whether a search hit is ranked past the digits its cell shows (drawn ``+``)."""
        return any(rank >= RANKS_DRAWN for _, rank in self.hits)

    def set_hits(self, hits: Sequence[tuple[tuple[int, int], int]]) -> None:
        """The Search panel's answer: (the chunk's positions over the compacted chunks,
        from its first to one past its last, and its rank) per chunk."""
        hits = list(hits)
        if hits == self.hits:
            return
        self.hits = hits
        self._hits_version += 1
        self.refresh()

    def set_title(self, name: str | Sequence[str], forms: Sequence[str]) -> None:
        """The border's title: `name` (or the first of its forms, longest first, that
        fits with the whole numbers) and the first of `forms` (its numbers, whole to
        shortest) that fits, fitted again when the strip's width changes (`fit_title`)."""
        self._title = (name if isinstance(name, str) else list(name), list(forms))
        self._fit_title()

    def on_resize(self) -> None:
        self._fit_title()

    def _fit_title(self) -> None:
        name, forms = self._title
        title = fit_title(name, forms, self.outer_size.width - 6)  # "╭─ " and " ─╮"
        if str(self.border_title or "") != title:
            self.border_title = title

    def set_note(self, note: str | None) -> None:
        """Say `note` in place of the similarities (None: the similarities, if any)."""
        if note != self.note:
            self.note = note
            self._row_cache.clear()
            self.refresh()

    def set_selected(self, pair: int | None, end: int | None = None) -> None:
        """The selected chunk: its first position `pair` and one past its last `end`
        (one position when not given); None: no selection."""
        end = None if pair is None else (pair + 1 if end is None else max(end, pair + 1))
        if (pair, end) != (self.selected_pair, self.selected_end):
            self.selected_pair, self.selected_end = pair, end
            self.refresh()  # only the cut row is rebuilt (its key holds the selection)

    def notify_style_update(self) -> None:
        self._styles.clear()
        self._row_cache.clear()
        self._border_key = None
        super().notify_style_update()

    # ------------------------------------------------------------------ layout

    def _columns(self, width: int) -> tuple[int, np.ndarray | None, int]:
        """(columns used, cells of each item, items) for the positions axis. The
        positions always fill the width: with fewer items than columns each item gets
        a run of whole cells (runs differ by at most one; cells is None otherwise)."""
        n = max(len(self.sizes), len(self.sims) + 1)
        avail = max(1, width - LABEL_WIDTH - 1)
        if n <= 0:
            return 0, None, 0
        if n <= avail:
            return avail, np.diff((np.arange(n + 1) * avail) // n), n
        return avail, None, n

    def column_of(self, position: int, width: int | None = None, *, last: bool = False) -> int:
        """The column (from the left of the bars) where chunk position `position` starts
        (`last`: where it ends; a cut after it is drawn there)."""
        width = self.size.width if width is None else width
        return int(self._columns_of(np.asarray([position]), width, last=last)[0])

    def _columns_of(self, positions: np.ndarray, width: int, *, last: bool = False) -> np.ndarray:
        """`column_of` for an array of positions (`last`: the last column of each). With
        more positions than columns, the column whose bucket holds each (`bucket_edges`,
        as the similarity and size rows draw them)."""
        cols, cells, n = self._columns(width)
        if cells is not None:
            if last:
                return np.asarray(((positions + 1) * cols) // n - 1)
            return np.asarray((positions * cols) // n)
        at = np.searchsorted(bucket_edges(n, cols), positions, side="right") - 1
        return np.asarray(np.clip(at, 0, cols - 1))

    def _selected_rank(self) -> str | None:
        """The rank glyph of the search hit that is the selected chunk (None: the
        selection is no hit, or there is none): drawn, lit, where its ``▲`` would be."""
        if self.selected_pair is None:
            return None
        selected = (self.selected_pair, self.selected_end or self.selected_pair + 1)
        for (first, end), rank in self.hits:
            if (first, max(end, first + 1)) == selected:
                return rank_glyph(rank)
        return None

    def chunk_column(self, first: int, end: int, width: int | None = None) -> int:
        """The one column where the cuts row marks the chunk over positions `first` to
        `end` - 1 (the selection's ``▲``, a search hit's rank): between the cut before
        it and the cut after it (drawn on its last column), at the middle of the columns
        it has of its own; a chunk with none left (its column shared with a cut) takes
        its last column."""
        width = self.size.width if width is None else width
        last = self.column_of(max(first, end - 1), width, last=True)
        lo = self.column_of(first - 1, width, last=True) + 1 if first > 0 else 0
        if last <= lo:
            return last
        return (lo + last - 1) // 2

    def _rows(self, width: int) -> list[str | Strip]:
        if len(self.sims) == 0 and (self.note is None or not len(self.sizes)):
            return [self._cached("empty", (width, len(self.sizes)), self._empty_row)]
        rows: list[str | Strip] = ["top", "bottom", "cuts", "size", *["legend"] * LEGEND_ROWS]
        if len(self.sims) == 0:  # no similarity scores: said, the cuts still drawn
            rows[:2] = ["blank", "note"]
        if self.marks:
            rows.insert(3, "marks")
        return rows

    def _legend_key(self, width: int) -> tuple[object, ...]:
        key: tuple[object, ...] = (width, self._sims_version, len(self.sizes), self.threshold)
        key = (*key, self._marks_version, self.cap, self.cap_unit, bool(self.hits), self._far_hit())
        key = (*key, self._cuts_version, self.selected_pair is not None, self.uncut)
        key = (*key, self._selected_rank())
        return (*key, self.own_chunks, self.scale_noun)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        rows = self._rows(width)
        if y == 0 or (y < len(rows) and rows[y] == "legend"):  # where the legend goes
            self._legend_in_border(rows)
        if y >= len(rows):
            return Strip.blank(width, self.rich_style)
        row = rows[y]
        if isinstance(row, Strip):
            return row
        if row == "blank":
            return Strip.blank(width, self._style("base"))
        if row == "note":
            return self._cached(row, (width, self.note), self._note_row)
        if row in ("top", "bottom"):
            key: tuple[object, ...] = (width, self._sims_version, len(self.sizes), self.threshold)
            return self._cached(row, key, self._sim_rows)
        if row == "cuts" and self.uncut and not self.cuts:
            # the positions the strip plots, as its title and its scale count them
            n = max(len(self.sizes), len(self.sims) + 1)
            return self._cached("uncut", (width, n), lambda w: self._uncut_row(w, n))
        if row == "cuts":
            key = (width, self._sims_version, self._sizes_version, self._cuts_version)
            key = (*key, self._marks_version, self._hits_version, self.selected_pair)
            key = (*key, self.selected_end)
            return self._cached(row, key, self._marker_row)
        if row == "marks":
            key = (width, self._sims_version, self._sizes_version, self._marks_version)
            return self._cached(row, key, self._marks_row)
        if row == "size":
            key = (width, self._sims_version, self._sizes_version, self.cap, self.cap_unit)
            return self._cached(row, key, self._size_row)
        line = rows[: y + 1].count("legend") - 1
        return self._cached(
            f"legend{line}", (width, self._border_key), lambda w: self._legend_row(w, line)
        )

    def _legend_in_border(self, rows: list[str | Strip]) -> None:
        """Where the legend goes: its row, when it fits there whole (the wide layout);
        else its items wrapped over the legend rows the strip shows and the bottom
        border (the narrow layout shows none: the border alone). A legend longer than
        that asks for rows of its own (`legend_rows`: the ``-legend-1`` to ``-legend-3``
        classes, which the layout's CSS reads) so that every glyph drawn is named; what
        is still too long is cut between items with an ellipsis."""
        at = rows.index("legend") if "legend" in rows else None
        shown = 0 if at is None else max(0, min(LEGEND_ROWS, self.size.height - at))
        border = self.outer_size.width - 6  # "╰─ " and " ─╯" about the text
        key = (self._legend_key(self.size.width), shown, border)
        if key == self._border_key:
            return
        self._border_key = key
        row_room = self.size.width - LABEL_WIDTH
        label = self._style("label")
        lines: list[list[Segment]] = []
        indent = LABEL_WIDTH
        if at is not None and border > 10:
            full = self._legend_segments(row_room)
            if full and full[0].text.startswith(" "):  # no gap before the first item
                full[0] = Segment(full[0].text.lstrip(" "), full[0].style)
            if shown and sum(cell_len(seg.text) for seg in full) <= row_room:
                lines = [full]  # whole in its row: the border says nothing
                indent = LABEL_WIDTH  # under the bars
            else:
                # wrapped, the rows' lines take the whole width, as the border's
                row_room = self.size.width
                items = legend_items(self._legend_segments(border, compact=True))
                items = named_first(items, [row_room] * (LEGEND_ROWS - 1) + [border], label)
                rooms = [row_room] * shown + [border]
                lines = wrap_items(items, rooms, label, limit=len(rooms))
                need = next(
                    (
                        n
                        for n in range(LEGEND_ROWS)
                        if len(wrap_items(items, [row_room] * n + [border])) <= n + 1
                    ),
                    LEGEND_ROWS - 1,
                )
                if shown < need or self.legend_rows:  # rows of its own, or fewer
                    self._want_rows(need)
                indent = 0
        else:
            self._want_rows(0)
        self._legend_lines = [fit_words(line, row_room, label) for line in lines[:shown]]
        self._legend_indent = indent
        lines = lines[shown:]
        text = Text()
        if lines:
            for seg in Segment.simplify(fit_words(lines[0], border, label)):
                style = seg.style or Style()  # the glyphs' colours, the border's ground
                text.append(seg.text, Style(color=style.color, bold=style.bold))
            text.rstrip()
        self.call_later(self._set_border_legend, text if lines else None)

    def _want_rows(self, rows: int) -> None:
        """Ask for `rows` legend rows of the strip's own (or give them back): the
        ``-legend-N`` class, which the layout's CSS reads, and a `LegendWrapped` for
        the strip's container."""
        if rows != self.legend_rows:
            self.legend_rows = rows
            for n in range(1, LEGEND_ROWS):
                self.set_class(rows == n, f"-legend-{n}")
            self.post_message(self.LegendWrapped(self))

    def _set_border_legend(self, text: Text | None) -> None:
        # the same legend (as at most slider steps) is not set again while the border
        # still holds it: setting it repaints the whole strip, once more after the step
        said, held = self._border_legend
        if text == said and self._border_subtitle is held:
            return
        self.border_subtitle = text
        self._border_legend = (text, self._border_subtitle)

    def _cached(self, name: str, key: tuple[object, ...], build: Callable[..., Any]) -> Strip:
        hit = self._row_cache.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        self.builds += 1
        width = key[0]
        assert isinstance(width, int)
        built = build(width)
        if isinstance(built, dict):  # the two sparkline rows are built together
            for k, strip in built.items():
                self._row_cache[k] = (key, strip)
            return built[name]  # type: ignore[no-any-return]
        self._row_cache[name] = (key, built)
        return built  # type: ignore[no-any-return]

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            if name == "base":
                style = self.rich_style
            else:
                style = self.rich_style + self.get_component_rich_style(f"similarity-strip--{name}")
            self._styles[name] = style
        return style

    def _label(self, text: str) -> Segment:
        return Segment(text.ljust(LABEL_WIDTH)[:LABEL_WIDTH], self._style("label"))

    def _finish(self, segments: list[Segment], width: int) -> Strip:
        return Strip(segments).adjust_cell_length(width, self._style("base"))

    def _runs(
        self, glyphs: np.ndarray, style_idx: np.ndarray, styles: list[Style]
    ) -> list[Segment]:
        """One Segment per run of cells with the same style (glyphs: one str per cell)."""
        if not len(glyphs):
            return []
        bounds = np.flatnonzero(np.diff(style_idx)) + 1
        starts = [0, *bounds.tolist()]
        ends = [*bounds.tolist(), len(glyphs)]
        cells = glyphs.tolist()
        idx = style_idx.tolist()
        return [
            Segment("".join(cells[a:b]), styles[idx[a]]) for a, b in zip(starts, ends, strict=True)
        ]

    def _empty_row(self, width: int) -> Strip:
        text = "no neighbours to compare" if len(self.sizes) else "nothing loaded"
        return self._finish([self._label("sim"), Segment(text, self._style("label"))], width)

    def _uncut_row(self, width: int, items: int) -> Strip:
        """The cuts row of items not merged yet (the compare view's "before merge"):
        each is a chunk of its own, so the row says so rather than stay empty (in the
        units the strip plots, `scale_noun`, as its scale counts them)."""
        cuts = max(0, items - 1)
        forms = (
            f"not merged: a cut after every {self.scale_noun} ({cuts})",
            f"not merged: {cuts} cuts, one per {self.scale_noun}",
            f"not merged: {cuts} cuts",
            "not merged",
        )
        return self._said_row("cuts", forms, width)

    def _note_row(self, width: int) -> Strip:
        """The sim row of a chunker that computes no scores: its note."""
        return self._said_row("sim", (self.note or "",), width)

    def _said_row(self, name: str, forms: Sequence[str], width: int) -> Strip:
        """Row `name` saying the longest of `forms` (longest first) that fits, the last
        cut at a word where none does: beside the key panel at 100 columns a note was
        cut inside a word ("a cut afte…", walk 65, F3; "no scores: sliding-wind…",
        walk 66, F1)."""
        label = self._style("label")
        head = self._label(name)
        room = width - head.cell_length
        text = next((f for f in forms if cell_len(f) <= room), forms[-1])
        return self._finish([head, *fit_words([Segment(text, label)], room, label)], width)

    def _sim_rows(self, width: int) -> dict[str, Strip]:
        """The two sparkline rows: per column, the lowest similarity of its bucket."""
        cols, cells, n = self._columns(width)
        sims = self.sims
        # Pair i sits between positions i and i + 1; draw it at position i.
        if cells is not None:
            # the last unit has no pair after it: it shows the pair before, as a bucket
            # holding the last unit does, so the rows fill the width
            col_sims = np.full(n, sims[-1] if len(sims) else np.nan)
            col_sims[: len(sims)] = sims
        else:
            edges = bucket_edges(n, cols)
            by_position = np.append(sims, sims[-1]) if len(sims) < n else sims
            col_sims = np.minimum.reduceat(by_position, edges[:-1])
        # Scale to the document's own range, so the dips that become cuts stand out.
        lo = float(np.nanmin(sims))
        hi = float(np.nanmax(sims))
        if hi - lo < FLAT_RANGE:  # one pair, or all alike: no range to scale to, so the
            lo, hi = min(lo, 0.0), max(hi, 1.0)  # bars show the values on 0..1 themselves
        top_bar = len(BARS) - 1
        levels = 2 * top_bar
        missing = np.isnan(col_sims)
        filled = np.where(missing, lo, col_sims)
        h = np.clip(np.round((filled - lo) / (hi - lo) * levels), 1, levels).astype(np.int64)
        bars = np.array(list(BARS))
        lower = np.where(missing, " ", bars[np.minimum(h, top_bar)])
        upper = np.where(missing, " ", bars[np.maximum(0, h - top_bar)])
        thr = self.threshold
        below = np.zeros(len(col_sims), dtype=bool) if thr is None else ~missing & (filled < thr)
        style_idx = np.where(missing, 0, np.where(below, 2, 1))
        if cells is not None:
            lower, upper, style_idx = (np.repeat(a, cells) for a in (lower, upper, style_idx))
        styles = [self._style("base"), self._style("above"), self._style("below")]
        return {
            "top": self._finish([self._label(""), *self._runs(upper, style_idx, styles)], width),
            "bottom": self._finish(
                [self._label("sim"), *self._runs(lower, style_idx, styles)], width
            ),
        }

    def _marker_row(self, width: int) -> Strip:
        """Where the merged chunks were cut (a glyph per reason) and the selection."""
        size, _cells, _n = self._columns(width)
        glyph_idx = np.zeros(size, dtype=np.int64)  # 0: blank, 1..: CUT_GLYPHS order
        style_idx = np.zeros(size, dtype=np.int64)  # 0: base, 1: cut, 2: selected
        reasons = list(CUT_GLYPHS)
        if self.cuts:
            k = len(self.cuts)
            # the pairs and reasons apart, looked up with map (no Python loop per cut:
            # a step of a large file redraws thousands)
            at, names = zip(*self.cuts, strict=True)
            pairs = np.fromiter(at, dtype=np.int64, count=k)
            code_of = {r: i for i, r in enumerate(reasons)}
            codes = np.fromiter(
                map(code_of.get, names, repeat(len(reasons), k)), dtype=np.int64, count=k
            )
            prio = np.fromiter(map(CUT_PRIORITY.get, names, repeat(0, k)), dtype=np.int64, count=k)
            col = self._columns_of(pairs, width, last=True)
            ok = (col >= 0) & (col < size)
            # Per column, the cut of highest priority (the last of equals) wins; the
            # keys count from 0 (a chunk-size cut's priority is below 0: it was never drawn).
            m = len(self.cuts) + 1
            key = (prio - min(CUT_PRIORITY.values())) * m + np.arange(len(self.cuts))
            best = np.full(size, -1, dtype=np.int64)
            np.maximum.at(best, col[ok], key[ok])
            has = best >= 0
            glyph_idx[has] = codes[best[has] % m] + 1
            style_idx[has] = 1
            if len(self.verdicts) == len(self.cuts):  # marks: hit 3, spurious 4, else 1
                judged = np.fromiter(
                    map({"hit": 3, "spurious": 4}.get, self.verdicts, repeat(1)),
                    dtype=np.int64,
                    count=len(self.verdicts),
                )
                style_idx[has] = judged[best[has] % m]
        glyphs = np.array([" ", *CUT_GLYPHS.values(), OTHER_GLYPH])[glyph_idx]
        if self.hits:  # the search answer's chunks, best last so it wins a shared column
            for (first, end), rank in sorted(self.hits, key=lambda h: -h[1]):
                c = self.chunk_column(first, end, width)
                if 0 <= c < size:
                    glyphs[c] = rank_glyph(rank)
                    style_idx[c] = 5
        if self.selected_pair is not None:  # in its chunk's column, as its search rank
            end = self.selected_end or self.selected_pair + 1
            c = self.chunk_column(self.selected_pair, end, width)
            lit = self._selected_rank()
            if 0 <= c < size:  # a hit keeps its rank, lit as the selection
                glyphs[c] = lit or "▲"
                style_idx[c] = 2 if lit is None else 6
        styles = [
            self._style("base"),
            self._style("cut"),
            self._style("selected"),
            self._style("hit"),
            self._style("miss"),
            self._style("search"),
            self._style("selected-hit"),
        ]
        return self._finish([self._label("cuts"), *self._runs(glyphs, style_idx, styles)], width)

    def _mark_counts(self, width: int) -> tuple[np.ndarray, np.ndarray]:
        """Per column of the bars: how many marks it holds, and how many of them missed."""
        size, _cells, _n = self._columns(width)
        counts = np.zeros(size, dtype=np.int64)
        missed = np.zeros(size, dtype=np.int64)
        if self.marks:
            pairs = np.fromiter((p for p, _ in self.marks), dtype=np.int64, count=len(self.marks))
            miss = np.fromiter((k == "miss" for _, k in self.marks), dtype=bool)
            col = self._columns_of(pairs, width, last=True)
            ok = (col >= 0) & (col < size)
            np.add.at(counts, col[ok], 1)
            np.add.at(missed, col[ok & miss], 1)
        return counts, missed

    def _marks_row(self, width: int) -> Strip:
        """The topic marks: where a cut found them (hit) and where none did (miss); a
        column holding several says how many (`marks_glyph`)."""
        counts, missed = self._mark_counts(width)
        glyphs = np.array([marks_glyph(int(c)) for c in counts])
        # 0: base, 1: hit, 2: miss (a column holding a missed mark shows the miss)
        style_idx = np.where(missed > 0, 2, np.where(counts > 0, 1, 0))
        styles = [self._style("base"), self._style("hit"), self._style("miss")]
        return self._finish([self._label("marks"), *self._runs(glyphs, style_idx, styles)], width)

    def _size_row(self, width: int) -> Strip:
        """The size of the merged chunk holding each position, against the cap."""
        cols, cells, n = self._columns(width)
        segments: list[Segment] = [self._label("size")]
        sizes = self.sizes
        if len(sizes):
            if cells is not None:
                col_sizes = np.zeros(n, dtype=np.int64)
                col_sizes[: len(sizes)] = sizes
            else:
                edges = bucket_edges(n, cols)
                padded = np.resize(sizes, n) if len(sizes) < n else sizes
                col_sizes = np.maximum.reduceat(padded, edges[:-1])
            ref = self.cap if self.cap else int(sizes.max()) or 1
            top_bar = len(BARS) - 1
            # round() of Python floats: half to even, as numpy's round.
            h = np.round(col_sizes / ref * top_bar).astype(np.int64)
            h = np.maximum(np.where(col_sizes > 0, 1, 0), np.minimum(top_bar, h))
            glyphs = np.array(list(BARS))[h]
            over = (col_sizes > self.cap) if self.cap else np.zeros(len(col_sizes), dtype=bool)
            style_idx = over.astype(np.int64)
            if cells is not None:
                glyphs, style_idx = np.repeat(glyphs, cells), np.repeat(style_idx, cells)
            segments += self._runs(glyphs, style_idx, [self._style("size"), self._style("over")])
        return self._finish(segments, width)  # the cap is in the legend: bars fill the row

    def _legend_row(self, width: int, line: int = 0) -> Strip:
        if line >= len(self._legend_lines):
            return Strip.blank(width, self._style("base"))
        segments = [self._label("")] if self._legend_indent else []
        segments += self._legend_lines[line]
        return Strip(segments).adjust_cell_length(width, self._style("base"))

    def _legend_segments(self, room: int, compact: bool = False) -> list[Segment]:
        """The legend's items in `room` cells when it can (the bucket's words said in
        short when not), else all of them: `fit_words` cuts them between words.
        `compact`: the border's, the gaps and the cap's words shorter."""
        cols, cells, n = self._columns(self.size.width)
        thr = self.threshold
        label = self._style("label")
        legend: list[Segment] = []
        if thr is not None:  # the seed loop colours by its first threshold
            legend += [
                Segment("█", self._style("above")),
                Segment(" above  ", label),
                Segment("█", self._style("below")),
                Segment(f" below threshold {thr:.2f}", label),
                Segment("   ", label),
            ]
        present = {r for _, r in self.cuts}
        known = present & set(CUT_GLYPHS)
        # a chunking strategy's reasons, named each (no merge's legend beside them)
        for reason in sorted(present - known):
            legend.append(Segment(OTHER_GLYPH, self._style("cut")))
            legend.append(Segment(f" {cut_name(reason)}  ", label))
        # the topic segmenter has no pass threshold; its cuts may all be the size cap's
        # (a topic run without cuts has neither: its mode says it, when known)
        topic = bool(known & {"topic", "structure"}) or (thr is None and bool(known))
        if self.mode is not None:
            topic = self.mode == "topic"
        for reason, glyph in CUT_GLYPHS.items():
            if (known != present and not known) or self.uncut:
                break
            if topic and reason not in TOPIC_REASONS:
                continue
            if not topic and reason not in SEED_REASONS:
                continue
            # only the glyphs drawn (a run without cuts names the reasons it may make)
            if reason not in present and (compact or present):
                continue
            legend.append(Segment(glyph, self._style("cut")))
            legend.append(Segment(f" {cut_name(reason, topic)}  ", label))
        if self.selected_pair is not None:
            rank = self._selected_rank()
            legend.append(
                Segment("▲", self._style("selected"))
                if rank is None
                else Segment(rank, self._style("selected-hit"))
            )
            legend.append(Segment(" selected", label))
        if self.hits:
            legend += [Segment("   ", label), Segment("1", self._style("search"))]
            legend.append(Segment(" search hit (its rank)", label))
            if self._far_hit():  # every glyph drawn is named
                legend += [
                    Segment(" ", label),
                    Segment(rank_glyph(RANKS_DRAWN), self._style("search")),
                ]
                legend.append(Segment(f" rank {RANKS_DRAWN} or more", label))
        marks: list[Segment] = []
        if self.marks:
            # only what is drawn: a found mark, a missed one, a spurious cut
            counts, missed = self._mark_counts(self.size.width)
            if ((counts > 0) & (missed == 0)).any():
                marks += [Segment(f"   {MARK_GLYPH}", self._style("hit")), Segment(" found", label)]
            if (missed > 0).any():
                marks += [
                    Segment(f"   {MARK_GLYPH}", self._style("miss")),
                    Segment(" missed" if compact else " missed topic", label),
                ]
            if "spurious" in self.verdicts:  # drawn with its own reason's glyph, in red
                drawn = dict.fromkeys(
                    CUT_GLYPHS.get(r, OTHER_GLYPH)
                    for (_, r), v in zip(self.cuts, self.verdicts, strict=False)
                    if v == "spurious"
                )
                marks += [
                    Segment("   " + "".join(drawn), self._style("miss")),
                    Segment(" spurious cut", label),
                ]
            shared = int(counts.max(initial=0))
            if shared > 1:  # a digit where marks share a column: said, not hidden
                many = f"{shared}" if shared < 10 else "10 or more"
                marks += [
                    Segment(f"  {marks_glyph(shared)}", self._style("hit")),
                    Segment(f" {many} marks in one column", label),
                ]
        if not compact:
            legend += marks
        unit = "c" if self.cap_unit == "chars" else "t"
        if self.uncut:  # the items before the merge: no size cap applies to them
            legend.append(Segment("   size: no cap (not merged)", label))
        else:
            legend.append(
                Segment(f"   size: cap {self.cap}{unit}" if self.cap else "   size: no cap", label)
            )
        per = (n if self.own_chunks is None else self.own_chunks) / max(1, cols)
        scale = scale_text(per, self.scale_noun)
        if cells is None:
            legend.append(Segment(f"   {scale} (lowest sim, largest size)", label))
        if compact:  # the border's: narrower gaps, "cap 8192c"
            legend = [Segment(_compact(seg.text), seg.style) for seg in legend]
        if cells is None and sum(cell_len(seg.text) for seg in legend) > room:
            legend[-1] = Segment(_compact(f"   {scale}", compact), label)
        if compact:  # the marks last: the cap and the columns' size said first
            legend += [Segment(_compact(seg.text), seg.style) for seg in marks]
        return legend

    def rendered_lines(self) -> list[str]:
        return [self.render_line(y).text for y in range(self.size.height)]


def scale_text(per: float, noun: str) -> str:
    """The strip's scale, `per` items of `noun` (singular) in one column: "1 column =
    1.9 units"; a run of few items (a compare column's) says how wide each is instead,
    "1 chunk = 1.8 columns". The one wording of every strip's scale."""
    if per >= 1 or not per:
        return f"1 column = {per:.1f} {noun}s"
    return f"1 {noun} = {1 / per:.1f} columns"


#: A topic mark on the strip's marks row; a column holding several shows their count.
MARK_GLYPH = "◆"


#: The ranks a search hit's one cell shows as digits; a rank from here on is ``+``.
RANKS_DRAWN = 10


def rank_glyph(rank: int) -> str:
    """A search hit's rank in the one cell the cuts row has for it: ``1``…``9``, ``+``."""
    return str(rank) if rank < RANKS_DRAWN else "+"


def marks_glyph(count: int) -> str:
    """The marks row's glyph for a column holding `count` marks: blank, ``◆``, their
    number (2 to 9), or ``+`` for ten or more."""
    if count <= 0:
        return " "
    if count == 1:
        return MARK_GLYPH
    return str(count) if count < 10 else "+"


def _compact(text: str, compact: bool = True) -> str:
    """A legend item as the border says it: two-space gaps, ``cap 8192c``."""
    if not compact:
        return text
    return text.replace("   ", "  ").replace("size: cap", "cap").replace("size: no cap", "no cap")


def legend_items(segments: Sequence[Segment]) -> list[list[Segment]]:
    """The legend's items (a glyph and its words, the cap, the scale), each without
    the spaces about it: items are parted by two spaces or more."""
    items: list[list[Segment]] = []
    item: list[Segment] = []
    for seg in segments:
        parts = re.split(r"( {2,})", seg.text)
        for k, part in enumerate(parts):
            if k % 2:  # a gap: the item so far is whole
                if item:
                    items.append(item)
                item = []
            elif part:
                item.append(Segment(part, seg.style))
    if item:
        items.append(item)
    return [it for it in items if "".join(seg.text for seg in it).strip()]


def named_first(
    items: Sequence[list[Segment]], rooms: Sequence[int], words: Style
) -> list[list[Segment]]:
    """`items` as they fit `rooms` (the most lines a legend may take): all of them when
    they do; else every glyph's name (an item with a segment not in the `words` style)
    first, and as many of the items of words alone (the cap, the scale) as still fit
    after them, the last left out first. A strip beside the key panel at 100 columns
    said its cap and its scale and cut the marks row's ``◆ missed`` and the red
    ``spurious cut`` (walk 63, F8): every glyph drawn is named before the notes are."""
    if len(wrap_items(items, rooms)) <= len(rooms):
        return list(items)
    named = [it for it in items if any(seg.style != words for seg in it)]
    notes = [it for it in items if all(seg.style == words for seg in it)]
    while notes and len(wrap_items(named + notes, rooms)) > len(rooms):
        notes.pop()
    return named + notes


def wrap_items(
    items: Sequence[list[Segment]],
    rooms: Sequence[int],
    style: Style | None = None,
    limit: int | None = None,
) -> list[list[Segment]]:
    """`items` over lines of `rooms` cells (the last room for every line after),
    parted by two spaces; an item wider than its line starts a line of its own (it is
    cut there by `fit_words`). At least one line; with `limit`, at most that many (the
    last holds the rest, for `fit_words` to cut with an ellipsis)."""
    gap = Segment("  ", style)
    lines: list[list[Segment]] = [[]]
    used = 0
    for item in items:
        room = rooms[min(len(lines), len(rooms)) - 1]
        cells = sum(cell_len(seg.text) for seg in item)
        if lines[-1] and used + 2 + cells > room and (limit is None or len(lines) < limit):
            lines.append([])
            used = 0
        if lines[-1]:
            lines[-1].append(gap)
            used += 2
        lines[-1].extend(item)
        used += cells
    return lines


def fit_words(segments: Sequence[Segment], width: int, style: Style) -> list[Segment]:
    """`segments` in `width` cells: whole, or cut at the last space that leaves room
    for `` …`` (between items when it can, never inside a word), saying so."""
    text = "".join(seg.text for seg in segments)
    if cell_len(text) <= width:
        return list(segments)
    room = width - 2  # " …"
    best = gap = 0
    cells = 0
    for k, ch in enumerate(text):
        if cells > room:
            break
        if ch == " " and k and text[k - 1] != " ":  # the end of a word
            word = text[:k].rsplit(None, 1)[-1]
            # not after a word that leaves its phrase open ("cuts by …", walk 68), when
            # a word before it can end the text instead
            open_end = word.lower() in RUNS_ON
            if not open_end or not best:
                best = k
            if text[k + 1 : k + 2] == " " and not open_end:  # two spaces: between items
                gap = k
        cells += cell_len(ch)
    cut = gap if gap > room // 2 else best
    kept = cell_len(text[:cut])
    return [*Strip(segments).crop(0, kept), Segment(" …", style)]


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
