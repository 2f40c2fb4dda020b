"""The merge controls: threshold mode, sliders for every knob, and the run's outcome.

The panel owns no parameters: `read()` turns the controls into ``(MergeParams,
min_chars)`` over a base, `show()` puts parameters back into the controls (after a
profile is loaded), and a `MergePanel.Changed` message says which stage a change
affects ("compact" for the compaction minimum, "merge" for the rest).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from engine.merge import MergeParams
from tui.widgets.choice_toggle import ChoiceToggle
from tui.widgets.slider import Slider

# id: (value, minimum, maximum, step, big_step, label, fmt, inf_at_max)
SLIDERS: dict[str, tuple[float, float, float, float, float, str, str, bool]] = {
    "std-k": (0.5, 0.0, 3.0, 0.05, 0.25, "std_k", "{:.2f}", False),
    "fixed": (0.35, 0.0, 1.0, 0.01, 0.1, "fixed", "{:.2f}", False),
    "always": (0.8, 0.0, 1.05, 0.01, 0.1, "always ≥", "{:.2f}", True),
    "max-chars": (8192, 256, 32768, 256, 2048, "max chars", "{:.0f}", True),
    "max-tokens": (2048, 64, 8192, 64, 512, "max tokens", "{:.0f}", True),
    "min-chars": (80, 0, 1000, 10, 100, "min chars", "{:.0f}", False),
    "max-passes": (20, 1, 20, 1, 5, "passes", "{:.0f}", True),
}


LABEL_WIDTH = 11


def _is_max(slider_id: str, value: float) -> bool:
    spec = SLIDERS[slider_id]
    return spec[7] and (math.isinf(value) or value >= spec[2] - spec[3] / 2)


class MergePanel(Vertical):
    DEFAULT_CSS = """
    MergePanel {
        height: auto;
        & > Slider { margin: 0; }
        & > #merge-stats { color: $text-muted; margin-top: 1; height: 3; }
    }
    """

    class Changed(Message):
        """A control changed; `stage` is the first pipeline stage it affects."""

        def __init__(self, panel: MergePanel, stage: str) -> None:
            self.panel = panel
            self.stage = stage
            super().__init__()

        @property
        def control(self) -> MergePanel:
            return self.panel

    def compose(self) -> ComposeResult:
        yield ChoiceToggle(
            ["adaptive", "fixed"], label="threshold", label_width=LABEL_WIDTH, id="mode"
        )
        for slider_id, (value, lo, hi, step, big, label, fmt, inf) in SLIDERS.items():
            if slider_id == "max-chars":
                yield ChoiceToggle(
                    ["chars", "tokens"], label="size cap", label_width=LABEL_WIDTH, id="cap-unit"
                )
            yield Slider(
                value,
                lo,
                hi,
                step,
                big_step=big,
                label=label,
                fmt=fmt,
                inf_at_max=inf,
                label_width=LABEL_WIDTH,
                value_width=6,
                id=slider_id,
            )
        yield Static("", id="merge-stats", markup=False)

    def on_mount(self) -> None:
        self._sync_visibility()

    def _slider(self, slider_id: str) -> Slider:
        return self.query_one(f"#{slider_id}", Slider)

    def _value(self, slider_id: str) -> float:
        return float(self._slider(slider_id).value)

    def _sync_visibility(self) -> None:
        mode = self.query_one("#mode", ChoiceToggle).value
        self._slider("std-k").display = mode == "adaptive"
        self._slider("fixed").display = mode == "fixed"
        unit = self.query_one("#cap-unit", ChoiceToggle).value
        self._slider("max-chars").display = unit == "chars"
        self._slider("max-tokens").display = unit == "tokens"

    def read(self, base: MergeParams) -> tuple[MergeParams, int]:
        """The parameters the controls show, over `base`."""
        mode = self.query_one("#mode", ChoiceToggle).value
        unit = self.query_one("#cap-unit", ChoiceToggle).value
        always = self._value("always")
        chars = self._value("max-chars")
        tokens = self._value("max-tokens")
        passes = self._value("max-passes")
        params = replace(
            base,
            threshold="adaptive" if mode == "adaptive" else round(self._value("fixed"), 4),
            std_k=round(self._value("std-k"), 4),
            always_merge=math.inf if _is_max("always", always) else round(always, 4),
            max_chunk_chars=(
                None if unit == "chars" and _is_max("max-chars", chars) else round(chars)
            ),
            max_chunk_tokens=(
                None if unit == "chars" or _is_max("max-tokens", tokens) else round(tokens)
            ),
            max_passes=None if _is_max("max-passes", passes) else round(passes),
        )
        if unit == "tokens" and params.max_chunk_tokens is None:
            params = replace(params, max_chunk_chars=None)
        return params, round(self._value("min-chars"))

    def show(self, params: MergeParams, min_chars: int) -> None:
        """Put `params` into the controls (the change messages this causes are no-ops)."""

        def put(slider_id: str, value: float | None) -> None:
            hi = SLIDERS[slider_id][2]
            v = hi if value is None or math.isinf(value) else value
            self._slider(slider_id).set_value(v, notify=False)

        mode = "adaptive" if params.adaptive else "fixed"
        self.query_one("#mode", ChoiceToggle).set_value(mode)
        put("std-k", params.std_k)
        if not params.adaptive:
            put("fixed", float(params.threshold))
        put("always", params.always_merge if params.always_merge <= 1.0 else None)
        unit = "tokens" if params.max_chunk_tokens is not None else "chars"
        self.query_one("#cap-unit", ChoiceToggle).set_value(unit)
        if unit == "tokens":
            put("max-tokens", params.max_chunk_tokens)
        else:
            put("max-chars", params.max_chunk_chars)
        put("max-passes", params.max_passes)
        put("min-chars", min_chars)
        self._sync_visibility()

    def set_stats(self, text: str) -> None:
        self.query_one("#merge-stats", Static).update(text, layout=False)

    def on_slider_changed(self, event: Any) -> None:
        event.stop()
        stage = "compact" if event.slider.id == "min-chars" else "merge"
        self.post_message(self.Changed(self, stage))

    def on_choice_toggle_changed(self, event: ChoiceToggle.Changed) -> None:
        event.stop()
        self._sync_visibility()
        self.post_message(self.Changed(self, "merge"))
