"""Callbacks queued for after a refresh, dropped when the widget they act on is gone.

A widget's ``call_after_refresh`` hands its callback to the screen on top, which runs
it after its next refresh. The workbench recomposes when the terminal crosses its
narrow breakpoint (`WorkbenchScreen.on_resize`), removing every widget of the old
layout: a callback one of them queued just before (the footer's recompose after a key
changed the bindings in force, a list's scroll to its card, the tabs' fitting) then ran
on a widget with no screen, and the app ended on ``NoScreen`` (walk 11, 6). Every
screen of the app queues through `LateCallbacks`, which runs such a callback only while
the nodes it acts on, attached when it was queued, still are. Timers and workers of a
removed widget need nothing: Textual stops and cancels them with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.await_complete import AwaitComplete
from textual.dom import DOMNode
from textual.widgets import Input

from chunkscope.tui.widgets.ordered_input import OrderedInput

if TYPE_CHECKING:
    from textual.message import Message
    from textual.message_pump import MessagePump
    from textual.screen import Screen

    _Base = Screen[Any]
else:
    _Base = object


def acted_on(callback: Callable[..., Any]) -> list[DOMNode]:
    """The nodes `callback` acts on: the widget of a bound method and the nodes among
    its bound arguments (``partial(fit_tabs, tabbed)``), through nested partials."""
    nodes: list[DOMNode] = []
    while True:
        owner = getattr(callback, "__self__", None)
        if isinstance(owner, DOMNode):
            nodes.append(owner)
        if not isinstance(callback, partial):
            return nodes
        args = [*callback.args, *callback.keywords.values()]
        nodes.extend(a for a in args if isinstance(a, DOMNode))
        callback = callback.func


def while_attached(callback: Callable[..., Any]) -> Callable[[], Any]:
    """`callback`, run only if every node it acts on that is attached now still is when
    it runs (a node not attached yet, say one it mounts, is no reason to drop it)."""
    nodes = [node for node in acted_on(callback) if node.is_attached]
    if not nodes:
        return callback

    def run() -> Any:
        if all(node.is_attached for node in nodes):
            return callback()
        return None

    return run


class LateCallbacks(_Base):
    """A screen that drops a queued callback of a widget removed since (see the module),
    and that is dismissed once: Textual's `dismiss` pops whatever screen is on top, so a
    second Enter of a burst (``b Enter Enter``), handled before the dialog was gone,
    popped the workbench under it and left the app without a screen (walk 59, F7).

    Once dismissed it is `leaving` (still on top until Textual pops it): the keys typed
    then wait for the screen under it (`tui.keys.leaving`), and those its field already
    had go back to the app (`OrderedInput`)."""

    #: dismissed, and still on top until it is popped
    leaving = False

    async def _on_message(self, message: Message) -> None:
        await super()._on_message(message)
        if isinstance(message, Input.Submitted) and isinstance(message.input, OrderedInput):
            message.input.answered()  # the screen's answer to the Enter is given

    def _invoke_later(self, callback: Callable[..., Any], sender: MessagePump) -> None:
        super()._invoke_later(while_attached(callback), sender)

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if not self.is_active or self.leaving:  # dismissed already (or under another): not again
            return AwaitComplete(asyncio.sleep(0))
        self.leaving = True
        return super().dismiss(result)
