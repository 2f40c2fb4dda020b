"""The one-line header: what is open, how it was read, and how the last run went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.content import Content
from textual.widget import Widget

from chunkscope.engine.recap.collapse import ACTIONS_APART
from chunkscope.engine.textutil import plural
from chunkscope.themes import readable
from chunkscope.tui.cells import one_line_name
from chunkscope.tui.widgets.panel_title import fit_labels


def turns_after_collapse(n: int, read: int) -> str:
    """How the header and the turns column name the turns left once tool calls are
    collapsed (both say it alike: the file's count, `read`, and the column's differ),
    and why they are more when they are."""
    return f"{n} after collapse" + (f", {ACTIONS_APART}" if n > read else "")


@dataclass
class HeaderInfo:
    path: str = ""
    kind: str = ""
    kind_short: str = ""  # the format in a narrow header ("mini-swe-agent")
    #: How the file is read beyond its format: the tool calls' collapse state (a log's)
    #: or a document's date; kept after the format, before the rest.
    state: str = ""
    state_short: str = ""  # the state in a narrow header ("T: collapsed")
    turns: int = 0
    #: What a turn is called: a markdown file's are its sections.
    turn_word: str = "turn"
    #: The turns the columns show when fewer (tool calls collapsed into their results).
    collapsed_turns: int | None = None
    skipped: int = 0
    records: int = 0  # lines read as records; more than half skipped is said loudly
    #: Lines read with a caveat (`Source.warnings`: invalid UTF-8, a NUL byte, no time).
    warnings: int = 0
    tokenizer: str = ""
    accuracy: str = ""
    embedder: str = ""
    cache: str = ""
    last_run: str = ""
    busy: str = ""


#: The header's parts of this rank and above (the turns, the format, the collapse state)
#: are kept beside the path: a long path's start is cut for them.
KEPT_RANK = 5


class HeaderLine(Widget):
    DEFAULT_CSS = """
    HeaderLine {
        height: 1;
        background: $panel;
        color: $text;
        & > .header-line--title { background: $primary; color: $background; text-style: bold; }
        & > .header-line--dim { color: $text-muted; }
        & > .header-line--warn { color: $warning; text-style: bold; }
        & > .header-line--busy { color: $accent; text-style: italic; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "header-line--title",
        "header-line--dim",
        "header-line--warn",
        "header-line--busy",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info = HeaderInfo()
        self._whole = ""

    def set_info(self, info: HeaderInfo) -> None:
        self.info = info
        self.refresh()

    def _set_tooltip(self, whole: str) -> None:
        """The whole header line on hover when the line leaves some of it out ("": none)."""
        if whole != self._whole:
            self._whole = whole
            self.tooltip = Content(whole) if whole else None  # a path is data, never markup

    def set_busy(self, busy: str) -> None:
        self.info.busy = busy
        self.refresh()

    def _on_panel(self, name: str) -> Style:
        """Component `name`'s style, its colour made `readable` on the line's own
        background (the theme's panel: its warning and accent are kept legible on its
        background and surface, not on the panel)."""
        style = self.get_component_rich_style(name)
        ground = self.rich_style.bgcolor
        if style.color is None or ground is None:
            return style
        shown = readable(Color.from_rich_color(style.color), Color.from_rich_color(ground))
        return style + Style(color=shown.rich_color)

    def render(self) -> Text:
        """The line; too narrow for the file's first parts beside the app's name (65
        columns beside the keys panel: the tool calls' state was left out), or for
        saying what is left out (``+4``: it went without a word, walk 11, 3), without it."""
        text, dropped = self._line(brand=True)
        if dropped:
            text = self._line(brand=False)[0]
        return text

    def _line(self, *, brand: bool) -> tuple[Text, bool]:
        """The line, and whether one of the first parts (rank `KEPT_RANK` and above) was
        left out, or parts were without a word of them."""
        i = self.info
        dim = self.get_component_rich_style("header-line--dim")
        text = Text(no_wrap=True, overflow="ellipsis")
        if brand:
            text.append(" chunkscope ", self.get_component_rich_style("header-line--title"))
        text.append(" ")
        if not i.path:
            text.append("no file open · ctrl+o to open one", dim)
            return text, False
        sep = (" · ", dim)
        warn = self._on_panel("header-line--warn")
        # (text, style, keep rank, what it is): what does not fit the width is left out,
        # lowest rank first, so the line never ends in an ellipsis before its right end.
        turns, turns_short = plural(i.turns, i.turn_word), ""
        if i.collapsed_turns is not None and i.collapsed_turns != i.turns:
            turns += f" · {turns_after_collapse(i.collapsed_turns, i.turns)}"
            # narrow: ``16 → 14 turns``, beside ``T: collapsed`` that says why
            turns_short = f"{i.turns} → {plural(i.collapsed_turns, i.turn_word)}"
        # the file's name, its turns, its format and its state said first; the run's
        # time is the first to go
        parts: list[tuple[str, object, int, str]] = [
            (i.kind, "", 6, "format"),
            (i.state, "", 5, "state"),
            (turns, "", 7, "turns"),
        ]
        said, said_short = "", ""
        if i.skipped:
            word = "line" if i.skipped == 1 else "lines"
            said = f"{i.skipped} {word} skipped"
            if i.records and 2 * i.skipped > i.records:
                # narrow: the count kept, the why on hover; the format and state beside it
                said_short = f"⚠ {i.skipped} of {i.records} lines skipped"
                said = f"{said_short}: most of the file not read"
            parts.append((said, warn, 9, "skipped lines"))
        if i.warnings:  # beside the skipped lines, as loud; the lines in a notification
            parts.append((plural(i.warnings, "warning"), warn, 8, "warnings"))
        parts.append((f"{i.tokenizer} {i.accuracy}".strip(), "", 3, "tokenizer"))
        parts.append((i.embedder, "", 4, "embedder"))
        if i.cache:
            parts.append((i.cache, dim, 1, "cache"))
        if i.last_run:
            parts.append((i.last_run, dim, 0, "run time"))
        parts = [p for p in parts if p[0]]
        shorter = {
            i.state: i.state_short,
            i.kind: i.kind_short,
            turns: turns_short,
            said: said_short,
        }

        def least(part: tuple[str, object, int, str]) -> int:
            """The cells a part takes in its shortest form, its separator included."""
            return 3 + cell_len(shorter.get(part[0]) or part[0])

        path = one_line_name(i.path)  # on one line: the parts after it stay on the line
        busy = f"  {i.busy}" if i.busy else ""
        whole_path = path
        if self.size.width:  # a path too long for the line: whole folders cut, its name kept
            free = self.size.width - text.cell_len - cell_len(busy)
            # the first parts in short (the format's tool name): the path's folders before
            # a long form of them; the turns whole before the folders (``16 → 14 turns``
            # only beside a name that leaves no room for ``· 14 after collapse``)
            first = sum(
                3 + cell_len(p[0]) if p[3] == "turns" else least(p)
                for p in parts
                if p[2] >= KEPT_RANK
            )
            shortest = sum(least(p) for p in parts if p[2] >= KEPT_RANK)
            if any(p[2] < KEPT_RANK for p in parts):
                first += 5  # `` · +3``: that the rest is left out
                shortest += 5
            top = max((p for p in parts if p[2] >= KEPT_RANK), key=lambda p: p[2], default=None)
            # the turns, at least; the badge gone, all the first parts in short
            must = least(top) if top is not None else 0
            if not brand:
                must = shortest
            name = cell_len(_file_name(path)) + 2
            # the name whole beside the turns; a name cut even so leaves all the first
            # parts their room in short, and the badge goes before it is cut (walk 59,
            # F1: it kept 26 of 77 characters beside the badge and the turns' long form)
            cut_name = name > free - must
            path = fit_path(path, max(free - shortest if cut_name else name, free - first, 20))
            if cut_name and brand:
                return text, True
        room = self.size.width - text.cell_len - cell_len(path) - cell_len(busy)
        note = 5 if any(p[2] < KEPT_RANK for p in parts) else 0  # `` · +3``: more left out
        kept: dict[int, str] = {}  # by rank, each that fits (the state in short if so)
        ranked = sorted(parts, key=lambda p: -p[2])
        for at, (value, _style, rank, _what) in enumerate(ranked):
            if rank < KEPT_RANK and len(kept) < sum(p[2] >= KEPT_RANK for p in parts):
                break  # one of the first left out: none of the rest kept before it
            short = shorter.get(value, "")
            # a long form only where the first parts after it still fit in short
            after = sum(least(p) for p in ranked[at + 1 :] if p[2] >= KEPT_RANK) + note
            tries = [value, short] if short else [value]
            # one of the rest leaves room for saying what goes after it (``· +3``), unless
            # nothing does (it filled the line, and the parts after it went unsaid)
            need = note if rank < KEPT_RANK and at < len(ranked) - 1 else 0
            fits = [t for t in tries if 3 + cell_len(t) + (after if t != short else 0) <= room]
            fits += [t for t in tries if t not in fits and 3 + cell_len(t) + need <= room]
            if fits:
                kept[rank] = fits[0]
                room -= 3 + cell_len(fits[0])
            elif rank < KEPT_RANK:
                break
        left_out = [p[3] for p in ranked if p[2] not in kept]
        said = ""
        if left_out:  # said in short (what, or how many: ``+3``); all of it on hover
            tries = ["+ " + ", ".join(left_out), f"+{len(left_out)}"]
            said = fit_labels([[*tries, ""]], room, gap=3)[0]
            needed = 3 + cell_len(tries[-1])
            cut = cell_len(path) - (needed - room)
            if not said and not brand and self.size.width and cut >= 20:
                # the name kept whole beside the first parts left no room to say it, the
                # badge gone already: the path's start gives way (``…me.jsonl``)
                path = fit_path(whole_path, cut)
                said = tries[-1]
        text.append(path)
        for _value, style, rank, _what in parts:
            if rank in kept:
                text.append(*sep)
                text.append(kept[rank], style or None)  # type: ignore[arg-type]
        if said:
            text.append(*sep)
            text.append(said, dim)
        unsaid = bool(left_out) and not said
        whole = " · ".join([whole_path, *(p[0] for p in parts)])
        self._set_tooltip(whole if left_out or path != whole_path else "")
        if i.busy:
            text.append("  ")
            text.append(i.busy, self._on_panel("header-line--busy"))
        if self.size.width and text.cell_len > self.size.width:  # one line, cut saying so
            text.truncate(self.size.width, overflow="ellipsis")
        return text, unsaid or any(p[2] >= KEPT_RANK and p[2] not in kept for p in parts)


def _file_name(path: str) -> str:
    """The last part of `path` (a file's name)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def fit_path(path: str, cells: int) -> str:
    """`path` in at most `cells` cells: whole, else its file name after as many of its
    last folders as fit (``…/recap_sessions/a.json``: never a folder cut in two); a name
    longer than that, its end after an ellipsis."""
    if cell_len(path) <= cells:
        return path
    name = _file_name(path)
    folders = path[: len(path) - len(name)].replace("\\", "/").rstrip("/").split("/")
    shown = "…/" + name
    if cell_len(shown) > cells:
        return _tail(name, cells)
    for folder in reversed(folders):
        longer = "…/" + folder + "/" + shown[2:]
        if not folder or cell_len(longer) > cells:
            break
        shown = longer
    return shown


def _tail(text: str, cells: int) -> str:
    """`text` in at most `cells` cells: its end, after an ellipsis when cut."""
    if cell_len(text) <= cells:
        return text
    kept, used = [], 1
    for ch in reversed(text):
        used += cell_len(ch)
        if used > cells:
            break
        kept.append(ch)
    return "…" + "".join(reversed(kept))
