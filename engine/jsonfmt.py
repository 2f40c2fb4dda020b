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
