"""Text put in a `Static` without a layout of the screen when its size stays the same.

`Static.update` lays the whole screen out again by default (its height may change), and
a layout repaints every widget: on a slider step the stats, the score and the context
line each asked for one, and the chunk lists and the similarity strip were painted two
or three times a step. `put_text` asks for the layout only when the new text takes
another number of rows at the widget's width (as Textual itself counts them), or when
the widget's width follows its text.
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static


def _hidden(widget: Static) -> bool:
    """Not drawn (it or a container of it is not displayed): laid out when shown."""
    return not all(node.display for node in widget.ancestors_with_self[:-1])


def put_text(widget: Static, content: str | Text) -> None:
    """`widget.update(content)`, laying the screen out only when its size may change."""
    width = widget.content_region.width
    auto = widget.styles.width is not None and widget.styles.width.is_auto
    if not widget.is_mounted or auto or (width <= 0 and not _hidden(widget)):
        widget.update(content)
        return
    size = widget.size
    before = widget.get_content_height(size, size, width) if width > 0 else 0
    widget.update(content, layout=False)  # its repaint clears the cached height
    if width > 0 and widget.get_content_height(size, size, width) != before:
        widget.refresh(layout=True)


def put_border_title(widget: Widget, title: str) -> None:
    """`widget.border_title = title`, repainting only the widget's top row, where the
    title is drawn: the attribute repaints the whole widget (the merged list's count
    changes at most slider steps, and its cards would all be drawn again)."""
    if str(widget.border_title or "") == title:
        return
    top = widget.styles.border_top[0]
    if not widget.is_mounted or not widget.size or top in ("", "none", "hidden"):
        widget.border_title = title
        return
    # as the attribute stores it (`textual.widget._BorderTitle`)
    widget._border_title = widget.render_str(title).expand_tabs(4).split()[0]
    offset = widget.content_offset
    widget.refresh(Region(-offset.x, -offset.y, widget.outer_size.width, 1))
