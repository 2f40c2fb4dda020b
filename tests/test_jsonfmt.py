"""engine.jsonfmt writes what json.dumps(indent=2, ensure_ascii=False) writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.jsonfmt import COMPILE_MIN, _ListWriter, indented_json, json_pieces

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


# Long lists of dicts go through encoders generated per key layout: every kind of
# value may turn up where the first dict of a layout had another.
flat = scalars | st.lists(st.integers(), max_size=3) | st.lists(st.text(max_size=3), max_size=3)
anything = flat | values


@st.composite
def shaped_lists(draw: st.DrawFn) -> list[Any]:
    """A list of COMPILE_MIN or more dicts over a few key layouts, some nested."""
    layouts = draw(
        st.lists(
            st.lists(st.sampled_from("abcde"), min_size=1, max_size=4, unique=True),
            min_size=1,
            max_size=3,
        )
    )
    nested = draw(st.sampled_from("abcde"))
    inner_keys = draw(st.lists(st.sampled_from("xyz"), min_size=1, max_size=3, unique=True))
    n = draw(st.integers(COMPILE_MIN, COMPILE_MIN + 20))
    items: list[Any] = []
    for _ in range(n):
        keys = draw(st.sampled_from(layouts))
        item: dict[Any, Any] = {}
        for key in keys:
            if key == nested and draw(st.booleans()):
                order = draw(st.permutations(inner_keys))
                item[key] = {k: draw(anything) for k in order}
            else:
                item[key] = draw(anything)
        if draw(st.integers(0, 30)) == 0:
            item[7] = "a key that is not a str"
        items.append(item if draw(st.integers(0, 40)) else draw(anything))
    return items


@settings(max_examples=40, deadline=None)
@given(shaped_lists())
def test_long_lists_of_dicts_are_json_dumps(items: list[Any]) -> None:
    doc = {"chunks": items, "n": len(items)}
    assert "".join(json_pieces(doc)) == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def test_a_chunk_list_is_written_as_json_dumps_writes_it() -> None:
    import enum

    class Kind(enum.StrEnum):
        CODE = "code"

    base = {
        "index": 0,
        "text": 'é\n"x"',
        "lines": [1, 2],
        "meta": {"path": ["a", "b"], "ratio": 0.5, "ok": True, "lang": None, "n": 3},
    }
    items: list[Any] = [dict(base, index=i) for i in range(COMPILE_MIN + 5)]
    items[3]["meta"] = dict(base["meta"], ratio=float("nan"), ok=None, lang="py")  # type: ignore[call-overload]
    items[4]["meta"] = {"n": 3, "path": []}  # other keys nested
    items[5]["lines"] = None
    items[6]["text"] = Kind.CODE  # a str subclass
    items[7]["index"] = True  # a bool where an int was
    items[8]["meta"] = dict(base["meta"], path=[1, "mixed", 2.5])  # type: ignore[call-overload]
    items[9]["meta"] = ["not", "a", "dict"]
    items[10]["meta"] = dict(base["meta"], ratio=float("inf"), n=10**30)  # type: ignore[call-overload]
    # where the first dict had None: an int, a str, a list, a bool; lists of one kind or none
    for i, other in ((11, 7), (12, "seven"), (13, [7]), (14, False), (15, 1.5)):
        items[i]["meta"] = dict(base["meta"], lang=other)  # type: ignore[call-overload]
    for i, path in ((16, []), (17, [1, 2]), (18, ("a", "b")), (19, ["a", True]), (20, [None])):
        items[i]["meta"] = dict(base["meta"], path=path)  # type: ignore[call-overload]
    doc = {"chunks": items}
    assert "".join(json_pieces(doc)) == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    writer = _ListWriter("    ")  # the common layout has an encoder of its own
    assert writer.text(base) == indented_json(base, 2)
    assert writer.encoders[tuple(base)] is not None
