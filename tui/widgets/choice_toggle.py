"""A one-line choice between a few options: ``label  [adaptive]  fixed``.

Left / right (or space, enter, a click) switch the option; a `ChoiceToggle.Changed`
message carries the new value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from chunkscope.themes import readable_highlight
from chunkscope.tui.keys import control_moved


class ChoiceToggle(Widget, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Prev", show=False),
        Binding("right", "step(1)", "Next", show=False),
        Binding("space,enter", "cycle", "Switch", show=False),
    ]

    DEFAULT_CSS = """
    ChoiceToggle {
        height: 1;
        width: 1fr;
        & > .choice-toggle--on { background: $primary 40%; text-style: bold; }
        & > .choice-toggle--off { color: $text-muted; }
        & > .choice-toggle--label { color: $text; }
    }
    ChoiceToggle:focus > .choice-toggle--on { background: $primary; color: $text; }
    ChoiceToggle:focus > .choice-toggle--label { text-style: bold; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "choice-toggle--on",
        "choice-toggle--off",
        "choice-toggle--label",
    }

    class Changed(Message):
        def __init__(self, toggle: ChoiceToggle, value: str) -> None:
            self.toggle = toggle
            self.value = value
            super().__init__()

        @property
        def control(self) -> ChoiceToggle:
            return self.toggle

    value: reactive[str] = reactive("", init=False)

    def __init__(
        self,
        options: Sequence[str],
        value: str | None = None,
        *,
        label: str = "",
        label_width: int = 10,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.options = list(options)
        self.label = label
        self.label_width = label_width
        self.set_reactive(ChoiceToggle.value, value if value in self.options else self.options[0])
        self._spans: list[tuple[int, int, str]] = []

    def _chosen_style(self) -> Style:
        """The chosen option's style, its text readable on its tint (the dark theme's
        foreground on its primary at 40% was 4.4:1)."""
        style = self.get_component_rich_style("choice-toggle--on")
        base = self.rich_style
        text = style.color or base.color
        if style.bgcolor is None or text is None or base.bgcolor is None:
            return style
        shown, tint = readable_highlight(
            Color.from_rich_color(text),
            Color.from_rich_color(style.bgcolor),
            Color.from_rich_color(base.bgcolor),
        )
        return style + Style(color=shown.rich_color, bgcolor=tint.rich_color)

    def render(self) -> Text:
        """The label and every option, the chosen one in brackets; in a narrow row the
        spacing goes first (the label's padding, the gaps between options, the label),
        so every option shows (beside the Keys panel at 100 columns ``show  turns  raw``
        left the option in force, ``[compacted]``, out: walk 52, F3)."""
        width = self.content_size.width
        label = self.label + " " if self.label else ""
        forms = [(label.ljust(self.label_width), " ", " "), (label, " ", ""), (label, "", " ")]
        forms.append(("", "", " "))
        for form in forms:
            text = self._render_form(*form)
            if width <= 0 or text.cell_len <= width:
                return text
            if text.cell_len - len(form[2]) <= width:  # all but the last gap
                text.right_crop(len(form[2]))
                return text
        return text

    def _render_form(self, label: str, pad: str, gap: str) -> Text:
        """The toggle as `label`, each option not chosen between `pad`s, `gap` after each."""
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(label, self.get_component_rich_style("choice-toggle--label"))
        self._spans = []
        for option in self.options:
            start = text.cell_len
            if option == self.value:
                text.append(f"[{option}]", self._chosen_style())
            else:
                text.append(
                    f"{pad}{option}{pad}", self.get_component_rich_style("choice-toggle--off")
                )
            self._spans.append((start, text.cell_len, option))
            text.append(gap)
        return text

    def set_value(self, value: str, *, post: bool = False) -> None:
        if value not in self.options or value == self.value:
            return
        self.value = value
        if post:
            control_moved(self)
            self.post_message(self.Changed(self, value))

    def action_step(self, delta: int) -> None:
        """←/→: the option on that side, none past the ends (on two options, → on the
        right one stays: a walk changed the merge mode by accident on its way past)."""
        i = self.options.index(self.value)
        j = min(max(i + delta, 0), len(self.options) - 1)
        if j != i:
            self.set_value(self.options[j], post=True)

    def action_cycle(self) -> None:
        """space/enter: the next option, round to the first after the last."""
        i = self.options.index(self.value)
        self.set_value(self.options[(i + 1) % len(self.options)], post=True)

    def on_click(self, event: events.Click) -> None:
        for start, end, option in self._spans:
            if start <= event.x < end:
                self.set_value(option, post=True)
                return
        self.action_cycle()
