"""Where the bundled sample logs live.

In an editable install (a checkout) they are in ``sample_logs/`` at the repository root,
next to the packages; a wheel ships them inside the package as ``tui/sample_logs``.
"""

from __future__ import annotations

from pathlib import Path

from chunkscope.engine.read.formats import SUFFIXES as SAMPLE_SUFFIXES


def sample_dir() -> Path | None:
    """The folder of bundled sample logs, or None when there is none."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sample_logs", here.parent / "sample_logs"):
        if candidate.is_dir():
            return candidate
    return None


def sample_files() -> list[Path]:
    """The bundled sample logs and documents, sorted by name."""
    folder = sample_dir()
    if folder is None:
        return []
    try:
        return sorted(
            p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SAMPLE_SUFFIXES
        )
    except OSError:
        return []
