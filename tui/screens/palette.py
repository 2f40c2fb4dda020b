"""Textual's command palette, with its late work on a palette torn down ignored.

The palette gathers its hits in a worker of its own and shows them as they come. Chosen
at once ("Keys", enter) and opened again while the workbench lays itself out beside the
key panel, the first palette's gathering went on after its list was removed with it:
``query_one(CommandList)`` raised ``NoMatches`` in the worker, which ended the app
(walk 11, 15). A palette whose list is gone has nothing to show: its refresh is dropped.
"""

from __future__ import annotations

from textual.command import Command, CommandList, CommandPalette, ProviderSource

from chunkscope.tui.screens.late_callbacks import LateCallbacks

#: The field's text before anything is typed: what to type and the palette's keys (the
#: workbench's footer is hidden below it, as below every dialog).
PALETTE_PLACEHOLDER = "Search for commands…  ↑ ↓ move · enter runs · escape closes"
#: The same for the palette's theme list (its "Theme" command), which said only
#: "Search for themes…" (walk 54, F7).
THEME_PLACEHOLDER = "Search for themes…  ↑ ↓ move · enter picks · escape closes"


class Palette(LateCallbacks, CommandPalette):
    def __init__(
        self,
        *,
        id: str | None = None,
        providers: ProviderSource | None = None,
        placeholder: str = PALETTE_PLACEHOLDER,
    ) -> None:
        super().__init__(providers=providers, placeholder=placeholder, id=id)

    def _has_list(self) -> bool:
        return self.is_attached and bool(self.query(CommandList))

    def _refresh_command_list(
        self, command_list: CommandList, commands: list[Command], clear_current: bool
    ) -> None:
        if self._has_list() and command_list.is_attached:
            super()._refresh_command_list(command_list, commands, clear_current)

    def _watch__list_visible(self) -> None:
        if self._has_list():
            super()._watch__list_visible()
