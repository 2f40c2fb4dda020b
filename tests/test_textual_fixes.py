"""Work-arounds for Textual's own defects (`tui.textual_fixes`)."""

from __future__ import annotations

import gc
import weakref

from textual._styles_cache import StylesCache
from textual.color import Color

import chunkscope.tui.app  # noqa: F401  (applies the work-arounds)


def test_a_styles_cache_is_freed_once_its_widget_is_gone() -> None:
    """Textual's `get_inner_outer` cache kept every `StylesCache` (and the lines it
    drew) alive; the styles it gives are the same as Textual's own."""
    base, background = Color(10, 20, 30), Color(200, 100, 50, 0.5)
    cache = StylesCache()
    inner, outer = cache.get_inner_outer(base, background)
    assert inner.background == base + background and outer.background == base
    assert StylesCache().get_inner_outer(base, background) == (inner, outer)
    gone = weakref.ref(cache)
    del cache
    gc.collect()
    assert gone() is None
