"""The workbench's own widgets, one per module."""

from __future__ import annotations

from chunkscope.tui.widgets.slider import Slider

__all__ = ["Slider"]
