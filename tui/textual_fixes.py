"""Work-arounds for defects of Textual itself, applied when the app module is imported."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from textual.content import Content, Span
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions


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


def mark_cut_toasts() -> None:
    """A toast drawn in fewer rows than its message takes (a `max-height`, as under a
    dialog) gives its title's row to the message (``Could not open the file: /tmp/…``)
    and, still cut, ends its last row with ``…``: Textual dropped the rows below with no
    sign, and the end of a refusal's reason was lost unseen (walk 12). Textual's own
    `render` builds the text; only its drawing changes. Left as it is where a toast's
    `render` does not give `Content` (a version that changed it)."""
    from textual.widgets._toast import Toast

    render: Any = Toast.render
    if getattr(render, "marks_cuts", False):
        return

    def marked(self: Toast) -> Any:
        content = render(self)
        if not isinstance(content, Content):
            return content
        title = self._notification.title
        inline = None
        if title and content.plain.startswith(f"{title}\n"):
            joint = " " if title.endswith((".", ":", "!", "?")) else ": "
            inline = content[: len(title)] + joint + content[len(title) + 1 :]
        return CutMarked(content.plain, list(content.spans), content.cell_length, inline)

    marked.marks_cuts = True  # type: ignore[attr-defined]
    setattr(Toast, "render", marked)  # noqa: B010 (a method replaced)


class CutMarked(Content):
    """Text drawn in at most the rows it is given: when it wraps to more, its `inline`
    form (the title on the message's first row) if it has one, and a last row that ends
    with ``…`` (in its last cell, or right after its text when the row has room) when
    that too is cut. Measured as the text itself (a toast's height is its whole text's,
    then kept to its `max-height`)."""

    def __init__(
        self,
        text: str,
        spans: list[Span] | None = None,
        cell_length: int | None = None,
        inline: Content | None = None,
    ) -> None:
        super().__init__(text, spans, cell_length)
        self.inline = inline

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        strips = super().render_strips(width, None, style, options)
        if height is None or height <= 0 or len(strips) <= height:
            return strips
        if self.inline is not None:
            strips = self.inline.render_strips(width, None, style, options)
            if len(strips) <= height:
                return strips
        kept = strips[:height]
        last = kept[-1]
        room = min(cell_len(last.text.rstrip()), width - 1)
        segments = list(last.crop(0, room))
        mark_style = segments[-1].style if segments else None
        kept[-1] = Strip.join([Strip(segments), Strip([Segment("…", mark_style)])])
        return kept
