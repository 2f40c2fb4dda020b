"""Indented JSON text, as ``json.dumps(value, ensure_ascii=False, indent=2)`` writes it, faster.

With ``indent`` set, the standard library encodes through its pure-Python
generator (the C encoder only serves ``indent=None``); on a document of ten
thousand chunks that is most of a CLI run. `indented_json` builds the same
text with one recursive function: strings go through the C string escaper,
numbers through the same ``repr``\\s, and anything it does not know (non-string
keys, other types) falls back to `json.dumps` itself, so the output is the
standard library's byte for byte.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from json.encoder import encode_basestring
from typing import Any

_CONSTANTS = {True: "true", False: "false"}


def _float(x: float) -> str:
    if math.isfinite(x):
        return float.__repr__(x)
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


def _encode(value: Any, pad: str, out: list[str]) -> None:
    t = type(value)
    if t is str:
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif t is bool:
        out.append(_CONSTANTS[value])
    elif t is int:
        out.append(int.__repr__(value))
    elif t is float:
        out.append(_float(value))
    elif t is list or t is tuple:
        if not value:
            out.append("[]")
            return
        inner = pad + "  "
        sep = ",\n" + inner
        out.append("[\n" + inner)
        for i, item in enumerate(value):
            if i:
                out.append(sep)
            _encode(item, inner, out)
        out.append("\n" + pad + "]")
    elif t is dict and all(type(k) is str for k in value):
        if not value:
            out.append("{}")
            return
        inner = pad + "  "
        first = True
        out.append("{\n")
        for k, v in value.items():
            out.append(("" if first else ",\n") + inner + encode_basestring(k) + ": ")
            first = False
            _encode(v, inner, out)
        out.append("\n" + pad + "}")
    else:  # subclasses, non-string keys...: the standard library decides
        text = json.dumps(value, ensure_ascii=False, indent=2)
        out.append(text.replace("\n", "\n" + pad))


def indented_json(value: Any, depth: int = 0) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)`` with every line after the
    first indented by ``depth`` more levels (as when nested ``depth`` deep)."""
    out: list[str] = []
    _encode(value, "  " * depth, out)
    return "".join(out)


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
            for j, item in enumerate(value):
                piece = "    " + indented_json(item, 2) + (",\n" if j < final else "\n")
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
