"""Indented JSON text, as ``json.dumps(value, ensure_ascii=False, indent=2)`` writes it, faster.

With ``indent`` set, the standard library encodes through its pure-Python
generator (the C encoder only serves ``indent=None``); on a document of ten
thousand chunks that is most of a CLI run. `indented_json` builds the same
text with one recursive function: strings go through the C string escaper,
numbers through the same ``repr``\\s, and anything it does not know (non-string
keys, other types) falls back to `json.dumps` itself, so the output is the
standard library's byte for byte.

The long lists of a document (a chunk list: ten thousand dicts with the same
keys) are written by `json_pieces` through an encoder generated for their shape
(`_compile_shape`): one function per key layout that unpacks a dict's values and
joins them with the keys' text, set once, between them. A dict it was not made
for (other keys, in another order, or nested the other way) gets the recursive
writer; the text is the same either way.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterator
from functools import partial
from json.encoder import encode_basestring
from typing import Any

_CONSTANTS: dict[Any, str] = {True: "true", False: "false", None: "null"}
_KEYS: dict[str, dict[str, str]] = {}  # indent -> key -> ',\n<indent>"key": '


def _float(x: float) -> str:
    if math.isfinite(x):
        return float.__repr__(x)
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


def _scalar(value: Any) -> str | None:
    """The JSON of a str, int, float, bool or None (exact types); None for anything else."""
    t = type(value)
    if t is str:
        return encode_basestring(value)
    if t is int:
        return int.__repr__(value)
    if value is None or t is bool:
        return _CONSTANTS[value]
    if t is float:
        return _float(value)
    return None


def _encode(value: Any, pad: str, out: list[str]) -> None:
    # Scalars inside containers are written inline (one append per item, with
    # the item's separator and key glued on): this is most of a chunk list.
    t = type(value)
    if t is dict:
        if not value:
            out.append("{}")
            return
        inner = pad + "  "
        keys = _KEYS.get(inner)
        if keys is None:
            keys = _KEYS[inner] = {}
        mark = len(out)
        first = True
        for k, v in value.items():
            kp = keys.get(k)
            if kp is None:
                if type(k) is not str:  # the standard library decides about such keys
                    del out[mark:]
                    _fallback(value, pad, out)
                    return
                kp = keys[k] = ",\n" + inner + encode_basestring(k) + ": "
            if first:
                kp = "{" + kp[1:]
                first = False
            tv = type(v)
            if tv is str:
                out.append(kp + encode_basestring(v))
            elif tv is int:
                out.append(kp + int.__repr__(v))
            elif v is None or tv is bool:
                out.append(kp + _CONSTANTS[v])
            else:
                out.append(kp)
                _encode(v, inner, out)
        out.append("\n" + pad + "}")
    elif t is list or t is tuple:
        if not value:
            out.append("[]")
            return
        inner = pad + "  "
        kinds = set(map(type, value))
        if len(kinds) == 1 and (str in kinds or int in kinds):  # a flat list: one join
            sep = ",\n" + inner
            items = map(encode_basestring if str in kinds else int.__repr__, value)
            out.append("[\n" + inner + sep.join(items) + "\n" + pad + "]")
            return
        lead = "[\n" + inner
        sep = ",\n" + inner
        for v in value:
            tv = type(v)
            if tv is str:
                out.append(lead + encode_basestring(v))
            elif tv is int:
                out.append(lead + int.__repr__(v))
            else:
                out.append(lead)
                _encode(v, inner, out)
            lead = sep
        out.append("\n" + pad + "]")
    else:
        text = _scalar(value)
        if text is None:
            _fallback(value, pad, out)
        else:
            out.append(text)


def _fallback(value: Any, pad: str, out: list[str]) -> None:
    """Subclasses, non-string keys...: the standard library's own text, re-indented."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    out.append(text.replace("\n", "\n" + pad))


def _text(value: Any, pad: str) -> str:
    """The JSON of `value` nested where lines are indented by `pad`."""
    text = _scalar(value)
    if text is not None:
        return text
    out: list[str] = []
    _encode(value, pad, out)
    return "".join(out)


def _list_text(value: Any, pad: str) -> str:
    """`_text` of `value`, a list of only strs or only ints written at once (as
    `_encode` writes it) without its checks of other types."""
    if type(value) is list and value:
        kind = type(value[0])
        if (kind is int or kind is str) and all(type(v) is kind for v in value):
            inner = pad + "  "
            items = map(encode_basestring if kind is str else int.__repr__, value)
            return "[\n" + inner + (",\n" + inner).join(items) + "\n" + pad + "]"
    return _text(value, pad)


_ItemEncoder = Callable[[dict[str, Any]], "str | None"]
#: A list shorter than this is written item by item (generating an encoder costs
#: about as much as writing a few dozen dicts).
COMPILE_MIN = 64
#: At most this many key layouts per list get an encoder of their own.
MAX_SHAPES = 8


def _compile_shape(sample: dict[str, Any], pad: str) -> _ItemEncoder | None:
    """An encoder for dicts laid out like `sample` (its keys in its order, and the same
    for each non-empty dict nested in it), written as `_encode` writes them at
    indentation `pad`; None when `sample` has a key that is not a str.

    The encoder takes a dict whose keys are `sample`'s (the caller has compared them)
    and returns its text, or None when a dict nested in it is laid out otherwise.
    Its source holds only generated names and the keys' JSON text as Python
    literals (`repr` of a str); values are never part of it.
    """
    names = itertools.count()
    # Everything the encoder calls or joins is bound as a default argument (a local).
    env: dict[str, Any] = {"E": encode_basestring, "R": int.__repr__, "F": float.__repr__}
    env["T"] = _text
    env["L"] = _list_text
    body: list[str] = []
    pieces: list[str] = []  # Python expressions joined into the text
    literal: list[str] = []  # text between two values, not yet in `pieces`

    def flush() -> None:
        if literal:
            pieces.append(repr("".join(literal)))
            literal.clear()

    def value_text(var: str, sample: Any, pad: str) -> str:
        """An expression for the text of `var`, fast for values of `sample`'s type."""
        kind = type(sample)
        generic = f"T({var}, {pad})"
        if kind is str:
            return f"(E({var}) if type({var}) is str else {generic})"
        if kind is int:
            return f"(R({var}) if type({var}) is int else {generic})"
        if kind is bool:
            return (
                f"('true' if {var} is True else 'false' if {var} is False "
                f"else 'null' if {var} is None else {generic})"
            )
        if sample is None:  # a value that is sometimes None: an int or a str the other times
            return (
                f"('null' if {var} is None else R({var}) if type({var}) is int "
                f"else E({var}) if type({var}) is str else {generic})"
            )
        if kind is float:  # finite (x - x is nan for nan and the infinities)
            return f"(F({var}) if type({var}) is float and {var} - {var} == 0 else {generic})"
        if kind is list:
            return f"L({var}, {pad})"
        return generic

    def visit(d: dict[str, Any], var: str, pad: str, check: bool) -> bool:
        keys = tuple(d)
        if not all(type(k) is str for k in keys):
            return False
        if check:
            kname = f"K{next(names)}"
            env[kname] = keys
            body.append(f"if type({var}) is not dict or tuple({var}) != {kname}: return None")
        vars_ = [f"v{next(names)}" for _ in keys]
        body.append(f"{', '.join(vars_)}, = {var}.values()")
        inner = pad + "  "
        pname = f"P{next(names)}"
        env[pname] = inner
        for n, (key, var_k) in enumerate(zip(keys, vars_, strict=True)):
            literal.append(("{\n" if n == 0 else ",\n") + inner + encode_basestring(key) + ": ")
            value = d[key]
            if type(value) is dict and value and visit(value, var_k, inner, True):
                continue
            flush()
            pieces.append(value_text(var_k, value, pname))
        literal.append("\n" + pad + "}")
        return True

    if not sample or not visit(sample, "d", pad, False):
        return None
    flush()
    bound = ", ".join(f"{name}={name}" for name in env)
    lines = [f"def encode(d, {bound}):", *(f"    {line}" for line in body)]
    lines.append(f"    return ''.join(({', '.join(pieces)},))")
    exec("\n".join(lines), env)  # the source is built above from generated names
    encoder: _ItemEncoder = env["encode"]
    return encoder


class _ListWriter:
    """Writes the dicts of one long list through encoders made for their key layouts."""

    def __init__(self, pad: str) -> None:
        self.pad = pad
        self.encoders: dict[tuple[Any, ...], _ItemEncoder | None] = {}

    def text(self, item: Any) -> str:
        if type(item) is dict:
            keys = tuple(item)
            if keys in self.encoders:
                encoder = self.encoders[keys]
            else:
                encoder = None
                if len(self.encoders) < MAX_SHAPES:
                    encoder = _compile_shape(item, self.pad)
                self.encoders[keys] = encoder
            if encoder is not None:
                text = encoder(item)
                if text is not None:
                    return text
        return _text(item, self.pad)


def indented_json(value: Any, depth: int = 0) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)`` with every line after the
    first indented by ``depth`` more levels (as when nested ``depth`` deep)."""
    return _text(value, "  " * depth)


_nested_item = partial(_text, pad="    ")  # an item of a list in the document's top level


def json_pieces(doc: dict[str, Any], batch_chars: int = 1 << 20) -> Iterator[str]:
    """``indented_json(doc) + "\\n"`` in pieces of about ``batch_chars``: a large
    document is never one string, and a writer makes few calls."""
    if not doc:
        yield "{}\n"
        return
    buf: list[str] = ["{\n"]
    size = 0
    last = len(doc) - 1
    for k, (key, value) in enumerate(doc.items()):
        end = ",\n" if k < last else "\n"
        prefix = f"  {indented_json(key)}: "
        if isinstance(value, list) and value:
            buf.append(prefix + "[\n")
            final = len(value) - 1
            write = _ListWriter("    ").text if final + 1 >= COMPILE_MIN else _nested_item
            for j, item in enumerate(value):
                piece = "    " + write(item) + (",\n" if j < final else "\n")
                buf.append(piece)
                size += len(piece)
                if size >= batch_chars:
                    yield "".join(buf)
                    buf, size = [], 0
            buf.append("  ]" + end)
        else:
            buf.append(prefix + indented_json(value, 1) + end)
    buf.append("}\n")
    yield "".join(buf)
