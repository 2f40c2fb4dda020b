"""The similarity strip: neighbour similarities, cuts, the selection and chunk sizes.

All rows share one horizontal axis: the compacted chunks (pairs of neighbours) across
the whole document. When there are more pairs than columns, each column is a bucket of
pairs and shows its lowest similarity (so a dip that caused a cut never disappears).

- rows 1-2: a sparkline of similarities, coloured above / below the first pass threshold;
- row 3: where the merged chunks were cut, a glyph per reason, and ``▲`` at the selection;
- row 4: the size of the merged chunk that holds each position, against the size cap;
- row 5: the legend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

BARS = " ▁▂▃▄▅▆▇█"
LABEL_WIDTH = 6

CUT_GLYPHS = {"threshold": "┃", "size_cap": "╳", "min_similarity": "◆", "max_passes": "┆"}
CUT_PRIORITY = {"size_cap": 3, "min_similarity": 2, "max_passes": 1, "threshold": 0}


def bucket_edges(n: int, columns: int) -> np.ndarray:
    """Start index of each column's bucket over ``n`` items, plus ``n`` (columns <= n)."""
    return np.linspace(0, n, columns + 1).astype(np.int64)


class SimilarityStrip(Widget):
    """Sparklines of similarities and sizes with cut and selection markers."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "similarity-strip--above",
        "similarity-strip--below",
        "similarity-strip--cut",
        "similarity-strip--selected",
        "similarity-strip--size",
        "similarity-strip--over",
        "similarity-strip--label",
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
        self.selected_pair: int | None = None
        self._rows: list[Strip] | None = None
        self._rows_width = -1

    def set_data(
        self,
        sims: np.ndarray,
        threshold: float | None,
        cuts: Sequence[tuple[int, str]],
        sizes: np.ndarray,
        cap: int | None,
        cap_unit: str,
    ) -> None:
        self.sims = sims
        self.threshold = threshold
        self.cuts = list(cuts)
        self.sizes = sizes
        self.cap = cap
        self.cap_unit = cap_unit
        self._rows = None
        self.refresh()

    def set_selected(self, pair: int | None) -> None:
        if pair != self.selected_pair:
            self.selected_pair = pair
            if self._rows is not None and len(self._rows) > 2:  # only the marker row changes
                self._rows[2] = self._marker_row(self._rows_width)
            self.refresh()

    def on_resize(self) -> None:
        self._rows = None

    # ------------------------------------------------------------------ layout

    def _columns(self, width: int) -> tuple[int, int, int]:
        """(columns used, cells per item, items) for the positions axis."""
        n = max(len(self.sizes), len(self.sims) + 1)
        avail = max(1, width - LABEL_WIDTH - 1)
        if n <= 0:
            return 0, 1, 0
        if n <= avail:
            cell = max(1, min(3, avail // n))
            return n, cell, n
        return avail, 1, n

    def column_of(self, position: int, width: int | None = None) -> int:
        """The column (from the left of the bars) that shows chunk position `position`."""
        width = self.size.width if width is None else width
        cols, cell, n = self._columns(width)
        if n <= cols:
            return position * cell
        return min(cols - 1, int(position * cols / n))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._rows is None or self._rows_width != width:
            self._rows = self._build(width)
            self._rows_width = width
        if y < len(self._rows):
            return self._rows[y]
        return Strip.blank(width, self.rich_style)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style + self.get_component_rich_style(f"similarity-strip--{name}")
            self._styles[name] = style
        return style

    def _label(self, text: str) -> Segment:
        return Segment(text.ljust(LABEL_WIDTH)[:LABEL_WIDTH], self._style("label"))

    def _marker_row(self, width: int) -> Strip:
        """Where the merged chunks were cut (a glyph per reason) and the selection."""
        base = self.rich_style
        cols, cell, n = self._columns(width)
        marks = [" "] * (cols * cell)
        mark_styles: list[Style | None] = [None] * (cols * cell)
        best: dict[int, int] = {}
        for pair, reason in self.cuts:
            col = self.column_of(pair, width) + (cell - 1 if n <= cols else 0)
            if 0 <= col < len(marks):
                prio = CUT_PRIORITY.get(reason, 0)
                if prio >= best.get(col, -1):
                    best[col] = prio
                    marks[col] = CUT_GLYPHS.get(reason, "┃")
                    mark_styles[col] = self._style("cut")
        if self.selected_pair is not None:
            col = self.column_of(self.selected_pair, width)
            if 0 <= col < len(marks):
                marks[col] = "▲"
                mark_styles[col] = self._style("selected")
        marker_row: list[Segment] = [self._label("cuts")]
        for ch, st in zip(marks, mark_styles, strict=True):
            marker_row.append(Segment(ch, st or base))

        return Strip(Segment.simplify(marker_row)).adjust_cell_length(width, base)

    def _build(self, width: int) -> list[Strip]:
        self._styles: dict[str, Style] = {}
        base = self.rich_style
        if len(self.sims) == 0:
            text = "no neighbours to compare" if len(self.sizes) else "nothing loaded"
            return [
                Strip([self._label("sim"), Segment(text, self._style("label"))]).adjust_cell_length(
                    width, base
                )
            ]
        cols, cell, n = self._columns(width)
        sims = self.sims
        # Column values: the minimum similarity of the pairs in each bucket. Pair i sits
        # between positions i and i + 1; draw it at position i.
        if n <= cols:
            col_sims = np.full(cols, np.nan)
            col_sims[: len(sims)] = sims
            edges = None
        else:
            edges = bucket_edges(n, cols)
            by_position = np.append(sims, sims[-1]) if len(sims) < n else sims
            col_sims = np.minimum.reduceat(by_position, edges[:-1])
        # Scale to the document's own range, so the dips that become cuts stand out.
        lo = float(np.nanmin(sims))
        hi = float(max(np.nanmax(sims), lo + 1e-9))
        levels = 2 * (len(BARS) - 1)
        above, below = self._style("above"), self._style("below")
        top: list[Segment] = [self._label("")]
        bottom: list[Segment] = [self._label("sim")]
        thr = self.threshold
        for v in col_sims:
            if math.isnan(v):
                top.append(Segment(" " * cell, base))
                bottom.append(Segment(" " * cell, base))
                continue
            h = round((v - lo) / (hi - lo) * levels)
            h = max(1, min(levels, h))
            style = above if thr is None or v >= thr else below
            lower = min(h, len(BARS) - 1)
            upper = max(0, h - (len(BARS) - 1))
            top.append(Segment(BARS[upper] * cell, style))
            bottom.append(Segment(BARS[lower] * cell, style))

        marker_row = self._marker_row(width)

        # Sizes: the merged chunk holding each position, against the cap.
        size_row: list[Segment] = [self._label("size")]
        sizes = self.sizes
        if len(sizes):
            if n <= cols:
                col_sizes = np.zeros(cols, dtype=np.int64)
                col_sizes[: len(sizes)] = sizes
            else:
                edges = bucket_edges(n, cols) if edges is None else edges
                padded = np.resize(sizes, n) if len(sizes) < n else sizes
                col_sizes = np.maximum.reduceat(padded, edges[:-1])
            ref = self.cap if self.cap else int(sizes.max()) or 1
            size_style, over = self._style("size"), self._style("over")
            for v in col_sizes.tolist():
                frac = v / ref
                h = max(1 if v else 0, min(len(BARS) - 1, round(frac * (len(BARS) - 1))))
                style = over if self.cap and v > self.cap else size_style
                size_row.append(Segment(BARS[h] * cell, style))
        cap_text = (
            f"  cap {self.cap}{'c' if self.cap_unit == 'chars' else 't'}"
            if self.cap
            else "  no cap"
        )
        size_row.append(Segment(cap_text, self._style("label")))

        legend = [
            self._label(""),
            Segment("█", above),
            Segment(" above  ", self._style("label")),
            Segment("█", below),
            Segment(" below threshold", self._style("label")),
            Segment(f" {thr:.2f}" if thr is not None else "", self._style("label")),
            Segment("   "),
        ]
        for reason, glyph in CUT_GLYPHS.items():
            legend.append(Segment(glyph, self._style("cut")))
            legend.append(Segment(f" {reason.replace('_', ' ')}  ", self._style("label")))
        legend.append(Segment("▲", self._style("selected")))
        legend.append(Segment(" selected", self._style("label")))
        if n > cols:
            legend.append(
                Segment(f"   {n / cols:.1f} chunks per column (min)", self._style("label"))
            )
        strips = [
            Strip(Segment.simplify(r)).adjust_cell_length(width, base)
            for r in (top, bottom, size_row, legend)
        ]
        return [strips[0], strips[1], marker_row, strips[2], strips[3]]

    def rendered_lines(self) -> list[str]:
        return [self.render_line(y).text for y in range(self.size.height)]
