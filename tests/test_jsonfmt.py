"""engine.jsonfmt writes what json.dumps(indent=2, ensure_ascii=False) writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.jsonfmt import indented_json, json_pieces

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.dictionaries(st.integers(), inner, max_size=2)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(values, st.integers(0, 3))
def test_indented_json_is_json_dumps(value: Any, depth: int) -> None:
    expected = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + "  " * depth)
    assert indented_json(value, depth) == expected


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=5), values, max_size=4), st.integers(1, 40))
def test_json_pieces_join_to_the_document(doc: dict[str, Any], batch: int) -> None:
    pieces = list(json_pieces(doc, batch_chars=batch))
    assert "".join(pieces) == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def test_special_floats_and_escapes() -> None:
    doc = {"a": [float("nan"), float("inf"), -float("inf"), 1e300, -0.0], 'é\n"': "\x00\u2028"}
    assert indented_json(doc) == json.dumps(doc, ensure_ascii=False, indent=2)


def test_mixed_keys_subclasses_and_nesting_fall_back_exactly() -> None:
    import enum

    class Level(enum.IntEnum):
        LOW = 1

    class Name(str):
        pass

    doc = {
        "chunks": [
            {"a": 1, "b": [True, None, 1.5, Level.LOW, Name("x")], 3: "int key after str keys"},
            {"meta": {"a": {}, "b": [], "c": [[]], "d": (1, "t")}, "e": Name("y")},
        ],
        "k": Level.LOW,
    }
    assert "".join(json_pieces(doc)) == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    assert indented_json(doc, 2) == json.dumps(doc, ensure_ascii=False, indent=2).replace(
        "\n", "\n    "
    )
