"""A lower panel's title where it shows: its border at full size; in the narrow layout
(the panel is a tab's content, without a border) the tab's label, so the chunk a
summary is about or the recap's count is said at every size.

The tab bar has one row: when the labels do not fit it, the longest gives up its
detail first (a panel gives its title in shorter forms, whole words each), down to the
panel's name alone, so every tab stays on the bar."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

#: The cells a tab takes beside its label (Textual's ``Tab { padding: 0 1; }``).
TAB_PADDING = 2


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


def fit_title(name: str | Sequence[str], forms: Sequence[str], room: int) -> str:
    """`name` and the first of `forms` (a title's numbers, whole to shortest) that fits
    `room` cells; the name alone when none does (none at all: `room` unknown, <= 0,
    takes the whole). A `name` given in forms (longest first: a compare column's with
    its changed settings, then bare) gives them up before the numbers shorten."""
    names = [name] if isinstance(name, str) else list(name)
    whole = forms[0] if forms else ""
    tries = [f"{n}  {whole}" if whole else n for n in names[:-1]]
    tries += [f"{names[-1]}  {form}" if form else names[-1] for form in forms]
    return fit_text([*tries, names[-1]], room)


def fit_text(forms: Sequence[str], room: int) -> str:
    """The first of `forms` (longest first) that fits `room` cells, the last when none
    does; the first when `room` is unknown (<= 0: not laid out yet). `fit_labels` for
    one label."""
    if room <= 0:
        return forms[0]
    return fit_labels([forms], room, gap=0)[0]


def tab_label(title: str) -> str:
    """``SUMMARY · chunk 0`` as a tab names it: ``Summary · chunk 0``."""
    head, sep, rest = title.partition(" · ")
    return head.capitalize() + sep + rest


def tab_choices(forms: Sequence[str], about: str) -> tuple[str, ...]:
    """A tab's labels, longest first: each of the title's `forms` (longest first) with
    what the panel is `about`, then the shortest form without it, then the panel's name."""
    shortest = forms[-1]
    labels = [tab_label(form + about) for form in forms]
    labels += [tab_label(shortest), tab_label(shortest.partition(" · ")[0])]
    return tuple(dict.fromkeys(labels))


def fit_labels(
    choices: Sequence[Sequence[str]], width: int, *, gap: int = TAB_PADDING
) -> list[str]:
    """One label per tab from its `choices` (longest first), all together within `width`
    cells, each taking `gap` cells more: while they do not fit, the tab with the longest
    label takes its next shorter one (when no tab has a shorter one left, the shortest
    are given). Every text shortened to fit its room goes through here: one label is a
    title, a line or a header's note (`fit_text`)."""
    index = [0] * len(choices)

    def label(k: int) -> str:
        return choices[k][index[k]]

    while sum(cell_len(label(k)) + gap for k in range(len(choices))) > width:
        shorter = [k for k in range(len(choices)) if index[k] + 1 < len(choices[k])]
        if not shorter:
            break
        longest = max(shorter, key=lambda k: cell_len(label(k)))
        index[longest] += 1
    return [label(k) for k in range(len(choices))]


def fit_tabs(tabbed: TabbedContent) -> None:
    """Label `tabbed`'s tabs with their panels' titles in the longest forms that fit its width."""
    panes = [pane for pane in tabbed.query(TabPane) if pane.id]
    if not panes:
        return
    choices: list[tuple[str, ...]] = []
    for pane in panes:
        panels = pane.query_children(TitledPanel)
        if panels and panels.first()._tab_choices:
            choices.append(panels.first()._tab_choices)
        else:
            choices.append((tabbed.get_tab(pane.id or "").label.plain,))
    width = tabbed.size.width or tabbed.app.size.width
    for pane, label in zip(panes, fit_labels(choices, width), strict=True):
        tab = tabbed.get_tab(pane.id or "")
        if tab.label.plain != label:
            tab.label = Content(label)  # log text is data, never markup


def set_panel_title(widget: Widget, title: str) -> None:
    """`title` in `widget`'s border, and the tabs relabelled when it is a tab's pane."""
    if str(widget.border_title or "") != title:
        widget.border_title = Content(title)  # log text is data, never markup
    pane = widget.parent
    if not isinstance(pane, TabPane) or not pane.id:
        return
    for node in widget.ancestors:
        if isinstance(node, TabbedContent):
            fit_tabs(node)
            return


class TitledPanel(Widget):
    """A lower panel whose title may say whose run it is about (`set_about`: comparing,
    the summary and the recap are the merge panel's run's, which neither column may show)."""

    _title_forms: tuple[str, ...] = ()
    _about = ""
    _tab_choices: tuple[str, ...] = ()

    @property
    def _title_base(self) -> str:
        return self._title_forms[0] if self._title_forms else ""

    def show_title(self, title: str, *shorter: str) -> None:
        """`title` in the border; on a tab, it or one of the `shorter` forms (longest
        first, whole words: each says less) that lets every tab fit the bar."""
        self._title_forms = (title, *shorter)
        self._show()

    def set_about(self, about: str) -> None:
        """`about`: `` · merged run`` while comparing, "" else."""
        if about != self._about:
            self._about = about
            if self._title_forms:
                self._show()

    def _show(self) -> None:
        self._tab_choices = tab_choices(self._title_forms, self._about)
        set_panel_title(self, self._title_base + self._about)
