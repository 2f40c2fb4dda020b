"""Knobs declared once (`engine.params`) and layered once (`engine.config.tuning.layer`)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.strategies import STRATEGIES, param_specs
from chunkscope.engine.config.settings import Profile
from chunkscope.engine.config.tuning import PROFILE_KNOBS, Tuning, layer
from chunkscope.engine.params import Knob, SliderSpec, knobs
from chunkscope.engine.segment.merge import MergeParams

ALL = list(PROFILE_KNOBS.values()) + [k for name in STRATEGIES for k in param_specs(name)]


@pytest.mark.parametrize("k", ALL, ids=lambda k: k.name)
def test_every_declaration_is_consistent(k: Knob) -> None:
    assert k.coerce(k.default) == k.default or (k.default is None and k.nullable)
    assert k.help and k.type.rstrip("?") in ("int", "float", "bool", "str")
    if k.flag is not None:
        assert k.flag.startswith("--") and " " not in k.flag
    spec = k.slider
    if spec is not None:
        assert spec.lo < spec.hi and 0 < spec.step <= spec.big
        if k.minimum is not None:
            assert spec.lo >= k.minimum
        # the slider's every position is a valid value
        for pos in (spec.lo, spec.hi, (spec.lo + spec.hi) / 2):
            k.coerce(round(pos) if k.kind == "int" else pos)


def test_profile_keys_and_flags_are_unique() -> None:
    flags = [k.flag for k in PROFILE_KNOBS.values() if k.flag]
    assert len(flags) == len(set(flags))
    assert set(Profile.known_keys()) == set(PROFILE_KNOBS)


def _value(k: Knob) -> st.SearchStrategy[Any]:
    if k.kind == "bool":
        return st.booleans()
    if k.choices:
        return st.sampled_from(k.choices)
    lo = k.minimum if k.minimum is not None else -1e6
    hi = k.maximum if k.maximum is not None else 1e6
    if k.kind == "int":
        return st.integers(int(lo), int(min(hi, 100_000)))
    values: st.SearchStrategy[Any] = st.floats(lo, hi, allow_nan=False)
    if k.words:
        values = values | st.sampled_from(k.words)
    if k.nullable:
        values = values | st.none()
    return values


@st.composite
def layers(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(0, 3))):
        names = draw(st.lists(st.sampled_from(sorted(PROFILE_KNOBS)), unique=True, max_size=5))
        out.append({n: draw(_value(PROFILE_KNOBS[n])) for n in names})
    return out


@settings(max_examples=150, deadline=None)
@given(layers())
def test_the_highest_layer_that_sets_a_knob_wins(given_layers: list[dict[str, Any]]) -> None:
    values = layer(*given_layers).values()
    for name, k in PROFILE_KNOBS.items():
        setting = [lay for lay in given_layers if name in lay]
        group = [
            lay
            for lay in given_layers
            if k.exclusive and any(PROFILE_KNOBS[o].exclusive == k.exclusive for o in lay)
        ]
        if setting and (not group or group[-1] is setting[-1]):
            assert values[name] == k.coerce(setting[-1][name]), name
        else:  # never set, or a later layer set the cap in the other unit
            assert values[name] == k.default, name


@settings(max_examples=100, deadline=None)
@given(layers())
def test_a_profile_round_trips_every_value(given_layers: list[dict[str, Any]]) -> None:
    tuning = layer(*given_layers)
    assert Profile.from_tuning(tuning).tuning() == tuning


def test_a_cap_in_one_unit_replaces_the_other() -> None:
    tokens = layer({"max_chunk_tokens": 600}, {"max_chunk_chars": 2000}).merge
    assert (tokens.max_chunk_chars, tokens.max_chunk_tokens) == (2000, None)
    both = layer({"max_chunk_chars": 9000, "max_chunk_tokens": 600}).merge
    assert both.cap_unit == "tokens" and both.cap == 600
    assert layer({"max_chunk_chars": None}).merge.cap is None  # None is a value: no cap


def test_values_out_of_range_name_the_knob() -> None:
    with pytest.raises(ValueError, match="std_k must be >= 0"):
        layer({"std_k": -1})
    with pytest.raises(ValueError, match="budget must be a whole number >= 1"):
        layer({"budget": 0})
    with pytest.raises(ValueError, match="scorer must be one of recency, salience"):
        layer({"scorer": "loudest"})
    with pytest.raises(ValueError, match='threshold must be "adaptive" or a number'):
        layer({"threshold": "fixed"})
    with pytest.raises(ValueError, match="unknown parameter wobble"):
        layer({"wobble": 1})
    assert layer({"always_merge": math.inf}).merge.always_merge == math.inf  # not finite: ok


def test_a_new_knob_is_a_declaration() -> None:
    """A parameters class with `knob()` fields gets flags, ranges and a slider from them."""
    from dataclasses import dataclass

    from chunkscope.engine.params import check_fields, knob

    @dataclass(frozen=True)
    class Extra:
        depth: float = knob(
            0.3, "how deep a dip cuts", flag="--depth", minimum=0, maximum=1,
            slider=SliderSpec(0.0, 1.0, 0.05, 0.2, label="depth"),
        )  # fmt: skip

        def __post_init__(self) -> None:
            check_fields(self)

    (k,) = knobs(Extra)
    assert (k.name, k.type, k.default, k.flag, k.dest) == (
        "depth",
        "float",
        0.3,
        "--depth",
        "depth",
    )
    assert k.coerce("0.5") == 0.5
    with pytest.raises(ValueError, match="depth must be <= 1"):
        Extra(depth=2)
    assert knobs(MergeParams) is knobs(MergeParams)  # read once
    assert Tuning().merge == MergeParams()
