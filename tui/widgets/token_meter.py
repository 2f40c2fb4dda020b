"""A context-window style meter: ``used ████████░░░░ 812/1000``."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widget import Widget


class TokenMeter(Widget):
    DEFAULT_CSS = """
    TokenMeter {
        height: 1;
        & > .token-meter--used { color: $success; }
        & > .token-meter--full { color: $warning; }
        & > .token-meter--free { color: $text-muted; }
        & > .token-meter--label { color: $text-muted; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "token-meter--used",
        "token-meter--full",
        "token-meter--free",
        "token-meter--label",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.used = 0
        self.budget = 0

    def set_usage(self, used: int, budget: int) -> None:
        self.used, self.budget = used, budget
        self.refresh()

    def render(self) -> Text:
        label = self.get_component_rich_style("token-meter--label")
        tail = f" {self.used}/{self.budget} tokens"
        width = max(4, self.size.width - len(tail) - 5)
        frac = 0.0 if self.budget <= 0 else min(1.0, self.used / self.budget)
        filled = round(frac * width)
        bar_style = self.get_component_rich_style(
            "token-meter--full" if frac >= 0.95 else "token-meter--used"
        )
        text = Text(no_wrap=True)
        text.append("used ", label)
        text.append("█" * filled, bar_style)
        text.append("░" * (width - filled), self.get_component_rich_style("token-meter--free"))
        text.append(tail, label)
        return text
