"""A lower panel's title where it shows: its border at full size; in the narrow layout
(the panel is a tab's content, without a border) the tab's label, so the chunk a
summary is about or the recap's count is said at every size."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane


def title_forms(slots: Sequence[Sequence[str]], order: Sequence[int]) -> list[str]:
    """The forms of a title made of `slots` parted by `` · `` (each slot its forms,
    longest first; ``""`` leaves it out), from the whole title to its shortest: the slot
    named next in `order` takes its next form, one step at a time. Every form is made of
    whole parts: a title that has to be short says less, it never cuts a number."""
    at = [0] * len(slots)

    def joined() -> str:
        return " · ".join(s[a] for s, a in zip(slots, at, strict=True) if s[a])

    out = [joined()]
    for k in order:
        if at[k] + 1 < len(slots[k]):
            at[k] += 1
            out.append(joined())
    return out


def fit_title(name: str, forms: Sequence[str], room: int) -> str:
    """`name` and the first of `forms` (a title's numbers, whole to shortest) that fits
    `room` cells; the name alone when none does (none at all: `room` unknown, <= 0,
    takes the whole)."""
    from rich.cells import cell_len

    tries = [f"{name}  {form}" if form else name for form in forms] or [name]
    if room <= 0:
        return tries[0]
    return next((t for t in tries if cell_len(t) <= room), name)


def tab_label(title: str) -> str:
    """``SUMMARY · chunk 0`` as a tab names it: ``Summary · chunk 0``."""
    head, sep, rest = title.partition(" · ")
    return head.capitalize() + sep + rest


def set_panel_title(widget: Widget, title: str) -> None:
    """`title` in `widget`'s border, and in its tab's label when it is a tab's pane."""
    if str(widget.border_title or "") != title:
        widget.border_title = Content(title)  # log text is data, never markup
    pane = widget.parent
    if not isinstance(pane, TabPane) or not pane.id:
        return
    for node in widget.ancestors:
        if isinstance(node, TabbedContent):
            tab = node.get_tab(pane.id)
            label = tab_label(title)
            if tab.label.plain != label:
                tab.label = Content(label)
            return


class TitledPanel(Widget):
    """A lower panel whose title may say whose run it is about (`set_about`: comparing,
    the summary and the recap are the merge panel's run's, which neither column may show)."""

    _title_base = ""
    _about = ""

    def show_title(self, title: str) -> None:
        self._title_base = title
        set_panel_title(self, title + self._about)

    def set_about(self, about: str) -> None:
        """`about`: `` · merged run`` while comparing, "" else."""
        if about != self._about:
            self._about = about
            if self._title_base:
                set_panel_title(self, self._title_base + about)
