"""Work-arounds for defects of Textual itself, applied when the app module is imported."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def release_styles_caches() -> None:
    """Textual's `StylesCache.get_inner_outer` (two styles made of two colours) is an
    `lru_cache` on a method: the instance is part of its key, so the cache keeps the last
    1024 `StylesCache` objects alive, each with every line its widget drew (strips, each
    with caches of its own). Widgets gone (a dialog closed, a recompose, an app ended)
    stayed in memory, and every full garbage collection scanned them: in the test
    process, where each workbench started added ~20,000 strips and their caches, a full
    collection went from 0.2 to 0.4 s within six tests. Here the colours alone are the
    key, the styles computed by Textual's own function. Left as it is where Textual's
    method is not such a cache (a version that changed it)."""
    from textual._styles_cache import StylesCache

    cached: Any = getattr(StylesCache, "get_inner_outer", None)
    inner_outer = getattr(cached, "__wrapped__", None)
    if inner_outer is None or not hasattr(cached, "cache_clear"):
        return

    @lru_cache(1024)
    def by_colours(base_background: object, background: object) -> Any:
        return inner_outer(None, base_background, background)  # it never uses the instance

    def get_inner_outer(self: object, base_background: object, background: object) -> Any:
        return by_colours(base_background, background)

    cached.cache_clear()
    setattr(StylesCache, "get_inner_outer", get_inner_outer)  # noqa: B010 (a method replaced)
