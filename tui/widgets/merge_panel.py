"""The merge controls: the merge mode (the seed loop or the topic segmenter), one
control per knob of the compaction, merge and topic stages that declares a slider, and
the run's outcome. A knob's control shows only in the modes it acts in (the size cap,
chars or tokens, in both: `engine.config.tuning.SHARED_KNOBS`).

The controls come from the knobs' declarations (`engine.params`): a slider per knob
with a `SliderSpec` (range, steps, label, format, in its declared order), a toggle
for a knob that also takes words (threshold: adaptive / fixed) and one for each
exclusive group (the size cap: chars / tokens). A knob added to `MergeParams` with a
slider appears here with no change to this module.

The panel owns no parameters: `values()` reads the controls as knob values, `read()`
turns them into a `Tuning` over a base, `show()` puts a tuning back into the controls
(after a profile is loaded), and a `MergePanel.Changed` message says which stage a
change affects ("compact" for a compaction knob, "merge" for the rest).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Static

from chunkscope.engine.chunk.split import CompactParams
from chunkscope.engine.config.tuning import (
    MODE_PARAMS,
    SHARED_KNOBS,
    Tuning,
    fit_min_size,
    knob_modes,
)
from chunkscope.engine.params import Knob, knob_map, knobs, replace_knobs
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.segment.segmenter import TopicParams
from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
from chunkscope.tui.widgets.control_stack import ControlStack
from chunkscope.tui.widgets.rows import put_text
from chunkscope.tui.widgets.slider import Slider, knob_position, knob_slider, knob_value

LABEL_WIDTH = 11


def _slider_knobs() -> list[tuple[str, Knob]]:
    """(stage, knob) of every knob with a slider, in the declared order."""
    found = [("compact", k) for k in knobs(CompactParams) if k.slider is not None]
    found += [("merge", k) for k in knobs(MergeParams) if k.slider is not None]
    found += [("merge", k) for k in knobs(TopicParams) if k.slider is not None]
    return sorted(found, key=lambda sk: sk[1].slider.order if sk[1].slider else 0)


PANEL_KNOBS = _slider_knobs()


def slider_knob(widget_id: str | None) -> str | None:
    """The knob of the merge slider with this id (None for any other widget)."""
    return next((k.name for _, k in PANEL_KNOBS if slider_id(k) == widget_id), None)


_STAGE = {k.name: stage for stage, k in PANEL_KNOBS}
#: The merge mode knob: its toggle picks the mode, and which knobs show.
MODE = knob_map(MergeParams)["mode"]
MODE_ID = "merge-mode"
#: The modes each knob acts in: the topic segmenter's own, the size cap in both, the
#: seed loop's the rest (the topic mode compacts with its own minimum, so `min_chars` is
#: the seed's too).
_TOPIC_KNOBS = knob_map(MODE_PARAMS["topic"])
#: The topic segmenter's minimum segment: kept within the size cap (`MergePanel.fit_min_size`).
_MIN_SIZE = _TOPIC_KNOBS["topic_min_chars"]
_MODES_OF = {
    k.name: knob_modes(k.name) if k.name in SHARED_KNOBS or k.name in _TOPIC_KNOBS else ("seed",)
    for _, k in PANEL_KNOBS
}


def slider_id(k: Knob) -> str:
    return (k.flag or k.name).lstrip("-").replace("_", "-")


def _group_id(group: str) -> str:
    return group.replace(" ", "-")


def _mode_id(name: str) -> str:
    """The id of the toggle between a knob's words and its number."""
    return f"{name.replace('_', '-')}-mode"


def _choice(k: Knob) -> str:
    return k.slider.choice if k.slider is not None else ""


def wrap_items(text: str, width: int) -> str:
    """`text` with each line broken between its items (``, `` and `` · `` end one)
    rather than between the words of an item, where a line is wider than `width`."""
    out: list[str] = []
    for line in text.split("\n"):
        row = ""
        for item in re.split(r"(?<=, )|(?<= · )", line):
            if row and cell_len(row + item.rstrip()) > width:
                out.append(row.rstrip())
                row = ""
            row += item
        out.append(row.rstrip())
    return "\n".join(out)


def _group_choices(values: dict[str, Any]) -> dict[str, str]:
    """Each exclusive group's choice in force for these knob values: its last knob set
    (tokens over chars), else its first (chars: no cap shows as chars at ∞)."""
    out: dict[str, str] = {}
    for _, k in PANEL_KNOBS:
        if k.exclusive is None:
            continue
        out.setdefault(k.exclusive, _choice(k))
        if values[k.name] is not None:
            out[k.exclusive] = _choice(k)
    return out


def _in_force_by_default(k: Knob) -> bool:
    """Whether `k` is its exclusive group's choice in force with every knob's default."""
    assert k.exclusive is not None
    return _group_choices({m.name: m.default for _, m in PANEL_KNOBS})[k.exclusive] == _choice(k)


class MergePanel(ControlStack):
    """The merge controls (↑ ↓ move between them: `ControlStack`)."""

    DEFAULT_CSS = """
    MergePanel {
        height: auto;
        & > Slider { margin: 0; }
        & > #merge-stats { color: $text-muted; margin-top: 1; height: auto; }
        & > #merge-score { height: auto; display: none; }
    }
    """

    #: The min size the user chose while the panel shows it lowered to fit the size cap
    #: (`fit_min_size`); None when the slider shows the user's own value.
    _chosen_min: int | None = None

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
        assert MODE.choices is not None
        yield ChoiceToggle(list(MODE.choices), label="merge", label_width=LABEL_WIDTH, id=MODE_ID)
        for _, k in PANEL_KNOBS:
            if k.words:
                yield ChoiceToggle(
                    [*k.words, _choice(k)],
                    label=k.name.replace("_", " "),
                    label_width=LABEL_WIDTH,
                    id=_mode_id(k.name),
                )
        groups: set[str] = set()
        for _, k in PANEL_KNOBS:
            if k.exclusive is not None and k.exclusive not in groups:
                groups.add(k.exclusive)
                members = [m for _, m in PANEL_KNOBS if m.exclusive == k.exclusive]
                yield ChoiceToggle(
                    [_choice(m) for m in members],
                    label=k.exclusive,
                    label_width=LABEL_WIDTH,
                    id=_group_id(k.exclusive),
                )
            yield knob_slider(
                k,
                k.default,
                in_force=k.exclusive is None or _in_force_by_default(k),
                label_width=LABEL_WIDTH,
                value_width=6,
                id=slider_id(k),
            )
        yield Static("", id="merge-stats", markup=False)
        yield Static("", id="merge-score", markup=False)

    def on_mount(self) -> None:
        self._sync_visibility()

    def _slider(self, k: Knob) -> Slider:
        return self.query_one(f"#{slider_id(k)}", Slider)

    def _toggle(self, toggle_id: str) -> ChoiceToggle:
        return self.query_one(f"#{toggle_id}", ChoiceToggle)

    def _mode(self) -> str:
        return str(self._toggle(MODE_ID).value)

    def _shown(self, k: Knob) -> bool:
        if self._mode() not in _MODES_OF[k.name]:
            return False
        spec = k.slider
        if spec is not None and spec.shown_when is not None:
            other, word = spec.shown_when
            return bool(self._toggle(_mode_id(other)).value == word)
        if k.words:
            return bool(self._toggle(_mode_id(k.name)).value == _choice(k))
        if k.exclusive is not None:
            return bool(self._toggle(_group_id(k.exclusive)).value == _choice(k))
        return True

    def _sync_visibility(self) -> None:
        mode = self._mode()
        for _, k in PANEL_KNOBS:
            self._slider(k).display = self._shown(k)
            if k.words:
                self._toggle(_mode_id(k.name)).display = mode in _MODES_OF[k.name]
            if k.exclusive is not None:
                self._toggle(_group_id(k.exclusive)).display = mode in _MODES_OF[k.name]

    def values(self) -> dict[str, Any]:
        """The value of every knob the panel shows, as the controls set it."""
        out: dict[str, Any] = {MODE.name: self._mode()}
        for _, k in PANEL_KNOBS:
            value = knob_value(k, float(self._slider(k).value))
            mode = self._toggle(_mode_id(k.name)).value if k.words else None
            if mode in k.words:
                value = mode
            if k.exclusive is not None and not self._in_group_force(k):
                value = None  # another knob of the group is in force
            out[k.name] = value
        return out

    def _in_group_force(self, k: Knob) -> bool:
        """Whether `k` is its exclusive group's knob in force (whatever the mode)."""
        assert k.exclusive is not None
        return bool(self._toggle(_group_id(k.exclusive)).value == _choice(k))

    def read(self, base: Tuning) -> Tuning:
        """The parameters the controls show, over `base`."""
        values = self.values()
        return replace(
            base,
            compact=replace_knobs(base.compact, values),
            merge=replace_knobs(base.merge, values),
            topic=replace_knobs(base.topic, values),
        )

    def show(self, tuning: Tuning) -> None:
        """Put `tuning` into the controls (the change messages this causes are no-ops).
        A size cap knob not in force sits where choosing it starts (`knob_position`)."""
        values = tuning.values()
        if self._chosen_min is not None and values[_MIN_SIZE.name] != self._min_size():
            self._chosen_min = None  # another min size put in force (a profile, auto-tune)
        self._toggle(MODE_ID).set_value(values[MODE.name])
        in_force = _group_choices(values)
        for _, k in PANEL_KNOBS:
            value = values[k.name]
            if k.words:
                word = value if isinstance(value, str) else _choice(k)
                self._toggle(_mode_id(k.name)).set_value(word)
            chosen = k.exclusive is None or in_force[k.exclusive] == _choice(k)
            self._slider(k).set_value(knob_position(k, value, in_force=chosen), notify=False)
        for group, choice in in_force.items():
            self._toggle(_group_id(group)).set_value(choice)
        self._sync_visibility()

    def set_stats(self, text: str) -> None:
        """The run's numbers, over as many rows as they need once wrapped (a small cap
        makes them longer: a fixed height cut their end), broken between items."""
        self._stats = text
        self._show_stats()

    def on_resize(self) -> None:
        self._show_stats()
        self._show_score()

    def _show_stats(self) -> None:
        stats = self.query_one("#merge-stats", Static)
        text = getattr(self, "_stats", "")
        width = stats.content_region.width
        shown = wrap_items(text, width) if width > 0 else text
        if str(stats.render()) != shown:
            put_text(stats, shown)

    def _min_size(self) -> int:
        return int(knob_value(_MIN_SIZE, float(self._slider(_MIN_SIZE).value)))

    def fit_min_size(self, tuning: Tuning) -> tuple[str, bool] | None:
        """Keep the topic min size within the size cap of `tuning` (the controls' values),
        as `engine.config.tuning.fit_min_size` decides, the user's own value remembered
        here. What to tell the user (and whether it is a warning), or None when the min
        size is left as it is."""
        fit = fit_min_size(tuning, self._chosen_min)
        if fit is None:
            return None
        self._chosen_min = fit.chosen
        # (a step of the slider: `fit_min_size` puts it on the knob's grid, the slider's)
        self._slider(_MIN_SIZE).set_value(fit.now, notify=False)
        return (fit.said, fit.warning)

    def set_score(self, text: str) -> None:
        """The live score: the run against the topic marks, and the query file's hit
        rate (empty: neither), broken between items as the stats are (a score's name
        and its number stay together)."""
        self._score = text
        self._show_score()

    def _show_score(self) -> None:
        score = self.query_one("#merge-score", Static)
        text = getattr(self, "_score", "")
        width = self.content_region.width  # the score's own is 0 while it is hidden
        shown = wrap_items(text, width) if width > 0 else text
        if str(score.render()) != shown:
            put_text(score, shown)
        score.display = bool(text)

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        name = next((k.name for _, k in PANEL_KNOBS if slider_id(k) == event.slider.id), "")
        if name == _MIN_SIZE.name:
            self._chosen_min = None  # the user's own choice, whatever was remembered
        self.post_message(self.Changed(self, _STAGE.get(name, "merge")))

    def on_choice_toggle_changed(self, event: ChoiceToggle.Changed) -> None:
        event.stop()
        self._sync_visibility()
        self.post_message(self.Changed(self, "merge"))
