"""Making log text safe to show: terminal control sequences removed, text kept."""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC sequences,
# and C0/C1 control characters other than newline and tab.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[@-Z\\-_]?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """`text` without terminal escape sequences or control characters (newline, tab kept)."""
    if not text.isprintable():
        text = _ANSI.sub("", text)
        text = _CONTROL.sub("", text.replace("\r\n", "\n"))
    return text
