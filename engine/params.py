"""Every knob declared once: its default, range, step, help, flag and profile key.

A knob is a field of a frozen parameters dataclass (`engine.segment.merge.MergeParams`,
`engine.recap.core.RecapParams`, a strategy's params, ...) declared with `knob()`::

    std_k: float = knob(0.5, "adaptive threshold: mean - K * std", flag="--std-k",
                        minimum=0, slider=SliderSpec(0, 3, 0.05, 0.25, label="std_k"))

Everything else derives from that one declaration: `knobs(cls)` lists a class's
knobs as `Knob` values (type, default, range, flag, slider), `Knob.coerce` parses
and validates a value (a flag's string, a TOML value, a slider's float) with one
readable error, the command line builds its flags from them, the workbench its
sliders, the config file its profile keys and their validation (`PROFILE_KNOBS`,
layered by `layer`).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Knob",
    "SliderSpec",
    "check_fields",
    "geometric_grid",
    "knob",
    "knobs",
    "number_text",
]


def number_text(x: float) -> str:
    """`x` as a message shows it: a whole number in digits (``1000000``, not ``1e+06``),
    else its shortest form (``0.5``)."""
    if isinstance(x, int) or (math.isfinite(x) and x == int(x)):
        return str(int(x))
    return f"{x:g}"


def geometric_grid(lo: float, hi: float, per_doubling: int) -> list[float]:
    """The values of a geometric slider: from each ``lo * 2**j`` to the next,
    `per_doubling` equal steps (4: ``1, 1.25, 1.5, 1.75, 2`` times it), up to `hi`,
    which is always one. Round numbers with every power of two on the grid (the
    default cap of 8192 chars is one), each step about the same ratio."""
    out: list[float] = []
    octave = lo
    while octave < hi:
        for q in range(per_doubling):
            v = octave * (1 + q / per_doubling)
            if v >= hi:
                break
            out.append(v)
        octave *= 2
    out.append(hi)
    return out


@dataclass(frozen=True, slots=True)
class SliderSpec:
    """How the workbench shows a knob: a slider from `lo` to `hi` in steps.

    ``open_at_max``: the slider's last position stands for the knob's open value
    (None for a knob that may be None, such as "no cap"; ``inf`` for a float that
    may be infinite, such as "never always-merge"), drawn as ``∞``. ``start`` is
    where the slider sits while the knob's value is not a number (a word such as
    ``adaptive``, or None without ``open_at_max``; for a knob of an exclusive group,
    None while another knob of the group is in force, so choosing it starts there, not
    at ``∞``). ``order`` places it in its panel.
    ``shown_when`` = (other knob, word): shown only while that knob holds that word.
    ``choice`` names the slider in a toggle: a knob with `Knob.words` gets a toggle of
    its words and this choice ("adaptive" / "fixed"); the knobs of an exclusive group
    one toggle of their choices ("chars" / "tokens"), labelled with the group's name.
    ``at_lo``: the word shown at the slider's lowest position when it stands for a way
    of working, not a size (``whole``: 0 tokens keeps a topic one chunk).
    ``per_doubling`` > 0: geometric steps for a range of many doublings, this many from
    ``lo`` times a power of two to the next (``step`` and ``big`` then serve only as
    the grid of a sweep): every step moves the knob and shows in the run.
    """

    lo: float
    hi: float
    step: float
    big: float
    label: str = ""
    fmt: str = "{:.2f}"
    open_at_max: bool = False
    start: float | None = None
    order: int = 0
    shown_when: tuple[str, str] | None = None
    choice: str = ""  # this slider's option in its knob's mode toggle or exclusive group
    per_doubling: int = 0
    at_lo: str = ""

    def shown(self, value: float) -> str:
        """A position as the slider shows it (`fmt`, or `at_lo` at the lowest)."""
        return self.at_lo if self.at_lo and value <= self.lo else self.fmt.format(value)

    @property
    def track(self) -> list[float] | None:
        """The slider's positions when they are geometric (`per_doubling`): its track is
        a log scale, and a sweep across it spaces its points as the slider steps
        (`engine.evaluate.measure.knob_values`); None for a linear slider."""
        if self.per_doubling <= 0 or self.lo <= 0:
            return None
        return geometric_grid(self.lo, self.hi, self.per_doubling)


@dataclass(frozen=True, slots=True)
class Knob:
    """One parameter: what a flag, a slider and a profile key are built from."""

    name: str
    type: str  # "int", "float", "bool", "str", with "?" when None is allowed
    default: Any
    help: str
    flag: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    words: tuple[str, ...] = ()  # values accepted besides a number ("adaptive")
    finite: bool = True  # False: +inf is a value (always_merge: "never")
    none_is: Any = None  # how a profile (TOML has no null) writes None: 0 for "no cap"
    exclusive: str | None = None  # knobs of one group set together (the size cap)
    metavar: str | None = None
    slider: SliderSpec | None = None

    @property
    def nullable(self) -> bool:
        """Whether the knob may be None (its type ends in ``?``)."""
        return self.type.endswith("?")

    @property
    def kind(self) -> str:
        """The knob's type without the ``?`` (``int``, ``float``, ``str``, ...)."""
        return self.type.rstrip("?")

    @property
    def expected(self) -> str:
        """What a value of the knob's type is called in an error: ``a whole number``,
        ``a number``, ``true or false`` (its article included)."""
        return KIND_WORDS.get(self.kind, self.kind)

    @property
    def dest(self) -> str:
        """The argparse destination of the knob's flag."""
        return (self.flag or self.name).lstrip("-").replace("-", "_")

    @property
    def label(self) -> str:
        """The knob's name on the workbench: the slider's label, else its name."""
        return self.slider.label if self.slider and self.slider.label else self.name

    def as_dict(self) -> dict[str, Any]:
        """The knob's declaration as JSON values (for ``--list-knobs`` and the docs)."""
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "help": self.help,
            "flag": self.flag,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": self.choices,
        }

    # ------------------------------------------------------------------ values

    def coerce(self, value: Any) -> Any:
        """`value` (a string from a flag, or a Python value) as the knob's type,
        range-checked; `ValueError` naming the knob otherwise."""
        if value is None:
            if self.nullable:
                return None
            raise ValueError(f"{self.name}: a value is required")
        if self.words and isinstance(value, str) and value.strip() in self.words:
            return value.strip()
        kind = self.kind
        try:
            out = _convert(kind, value)
        except (TypeError, ValueError):
            if self.words:
                alternatives = " or ".join(f'"{w}"' for w in self.words)
                raise ValueError(
                    f"{self.name} must be {alternatives} or a number, got {value!r}"
                ) from None
            raise ValueError(f"{self.name} must be {self.expected}, got {value!r}") from None
        if isinstance(out, float) and math.isnan(out):
            raise ValueError(f"{self.name} must be a number, got {value!r}")
        if isinstance(out, float) and math.isinf(out) and self.finite:
            raise ValueError(f"{self.name} must be a finite number, got {value!r}")
        numeric = isinstance(out, int | float) and not isinstance(out, bool)
        what = "a whole number " if kind == "int" else ""
        if numeric and self.minimum is not None and out < self.minimum:
            raise ValueError(f"{self.name} must be {what}>= {number_text(self.minimum)}, got {out}")
        if numeric and self.maximum is not None and out > self.maximum and not math.isinf(out):
            raise ValueError(f"{self.name} must be {what}<= {number_text(self.maximum)}, got {out}")
        if self.choices is not None and out not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}, got {out!r}")
        return out

    def convert(self, text: str) -> Any:
        """A flag's text as the knob's type (a word, or a number), not range-checked:
        `ValueError` when it is neither. `coerce` checks the range."""
        if text.strip() in self.words:
            return text.strip()
        return _convert(self.kind, text)

    def from_profile(self, value: Any) -> Any:
        """A profile's value (TOML) as the knob's value: ``none_is`` means None."""
        if self.none_is is not None and not isinstance(value, bool):
            if value == self.none_is:
                return None
            if isinstance(value, int | float) and value < self.none_is:
                raise ValueError(
                    f"{self.name} must be a whole number >= {self.none_is} "
                    f"({self.none_is} = none), got {value}"
                )
        return self.coerce(value)

    def to_profile(self, value: Any) -> Any:
        """The knob's value as a profile writes it (None as ``none_is``)."""
        if value is None:
            return self.none_is
        return value


#: A knob type's value in words, with its article, for errors (`Knob.expected`).
KIND_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "str": "a text",
}


def _convert(kind: str, value: Any) -> Any:
    if isinstance(value, bool) and kind != "bool":
        raise TypeError("a boolean is not a number")
    if kind == "bool":
        if isinstance(value, str):
            low = value.strip().lower()
            if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(value)
            return low in ("1", "true", "yes", "on")
        if isinstance(value, bool | int):
            return bool(value)
        raise TypeError(value)
    if kind == "int":
        if isinstance(value, str):
            return int(value.strip().replace("_", ""))
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(value)
            return int(value)
        if isinstance(value, int) or hasattr(value, "__index__"):
            return int(value)
        raise TypeError(value)
    if kind == "float":
        if isinstance(value, str | int | float) or hasattr(value, "__float__"):
            return float(value)
        raise TypeError(value)
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def knob(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] | None = None,
    words: tuple[str, ...] = (),
    finite: bool = True,
    none_is: Any = None,
    exclusive: str | None = None,
    metavar: str | None = None,
    slider: SliderSpec | None = None,
) -> Any:
    """A dataclass field carrying its knob declaration (see the module docstring)."""
    meta = {
        "knob": {
            "help": help,
            "flag": flag,
            "minimum": minimum,
            "maximum": maximum,
            "choices": choices,
            "words": words,
            "finite": finite,
            "none_is": none_is,
            "exclusive": exclusive,
            "metavar": metavar,
            "slider": slider,
        }
    }
    return field(default=default, metadata=meta)


def _field_type(hint: Any) -> str:
    if hint is bool:
        return "bool"
    if hint is int:
        return "int"
    if hint is float:
        return "float"
    if hint is str:
        return "str"
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        optional = type(None) in args
        rest = [a for a in args if a is not type(None)]
        base = "str"
        for candidate, name in ((float, "float"), (int, "int"), (bool, "bool")):
            if candidate in rest:
                base = name
                break
        return base + ("?" if optional else "")
    return "str"


_KNOBS: dict[type[Any], tuple[Knob, ...]] = {}


def knobs(cls: type[Any]) -> tuple[Knob, ...]:
    """The knobs of a parameters dataclass, in field order (fields without `knob()`
    metadata are not knobs). Built once per class: reading type hints is slow."""
    known = _KNOBS.get(cls)
    if known is None:
        known = _KNOBS[cls] = _read_knobs(cls)
    return known


def _read_knobs(cls: type[Any]) -> tuple[Knob, ...]:
    hints = typing.get_type_hints(cls)
    out: list[Knob] = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get("knob")
        if meta is None:
            continue
        out.append(Knob(name=f.name, type=_field_type(hints[f.name]), default=f.default, **meta))
    return tuple(out)


def knob_map(cls: type[Any]) -> dict[str, Knob]:
    return {k.name: k for k in knobs(cls)}


def check_fields(obj: Any) -> None:
    """Validate (and normalise) every knob field of a frozen dataclass instance in place:
    call it from ``__post_init__``."""
    for k in knobs(type(obj)):
        value = getattr(obj, k.name)
        checked = k.coerce(value)
        if checked is not value and not (type(checked) is type(value) and checked == value):
            object.__setattr__(obj, k.name, checked)


def replace_knobs(obj: Any, values: Mapping[str, Any]) -> Any:
    """`dataclasses.replace` for the knobs in `values` that `obj`'s class has."""
    own = knob_map(type(obj))
    changes = {name: v for name, v in values.items() if name in own}
    return dataclasses.replace(obj, **changes) if changes else obj


def find_knob(text: str, candidates: Iterable[Knob]) -> Knob | None:
    """The knob of `candidates` that `text` names, by name or by flag, with dashes or
    underscores (``topic-depth``, ``--topic-depth``, ``topic_depth``); None if none."""
    key = text.strip().lstrip("-").replace("-", "_")
    return next((k for k in candidates if key in (k.name, k.dest)), None)


def all_knobs(classes: Iterable[type[Any]]) -> dict[str, Knob]:
    """The knobs of several classes by name; a name declared twice is a bug."""
    out: dict[str, Knob] = {}
    for cls in classes:
        for k in knobs(cls):
            if k.name in out:
                raise RuntimeError(f"knob {k.name!r} is declared twice")
            out[k.name] = k
    return out
