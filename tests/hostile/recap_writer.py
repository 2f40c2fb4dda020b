"""A writer to kill mid-write: saves ever newer ~2 MB recaps with `engine.recap.core.save_recap`.

    python -m tests.hostile.recap_writer TARGET FIRST_VERSION

Prints ``ready`` once imported, then writes version FIRST_VERSION, FIRST_VERSION + 1,
... to TARGET until it is killed. `version_text(n)` is what version `n` must read,
so a test can tell a whole file from a torn one.
"""

from __future__ import annotations

import sys

_BODY = [
    "".join(f"line {i} of body {b}: the recap says what happened.\n" for i in range(40_000))
    for b in (0, 1)
]


def version_text(n: int) -> str:
    """Version `n` of the recap: a header, a body, a footer naming `n`."""
    return f"version {n}\n{_BODY[n % 2]}end of version {n}\n"


def main() -> None:
    from chunkscope.engine.recap.core import save_recap

    target, n = sys.argv[1], int(sys.argv[2])
    print("ready", flush=True)
    while True:
        save_recap(target, version_text(n))
        n += 1


if __name__ == "__main__":
    main()
