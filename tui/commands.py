"""The command palette's chunkscope commands, namespaced by what they act on.

``chunk:`` the selected chunk and the columns, ``search:`` the Search panel, ``recap:`` the
recap, ``export:`` files,
``profile:`` saved parameters, ``theme:`` the look, ``embedder:`` / ``summarizer:`` the
backends (the offline ones are the way forward when a remote one fails), ``file:``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.markup import escape

Command = tuple[str, Callable[[], Any], str]


class WorkbenchCommands(Provider):
    """chunk:, recap:, export:, profile:, theme:, embedder:, summarizer: and file: commands."""

    def _commands(self) -> list[Command]:
        app: Any = self.app
        commands: list[Command] = [
            (
                "chunk: expand / collapse the selected chunk",
                self.toggle_expand,
                "Show the full text of the selected merged chunk",
            ),
            (
                "chunk: copy the selected chunk's text",
                app.action_copy_chunk,
                "Copy the merged chunk's text to the clipboard",
            ),
            (
                "chunk: summarize all merged chunks",
                app.action_summarize_all,
                "Run the summarizer over every merged chunk (cached ones at once)",
            ),
            (
                "chunk: show turns on the left",
                partial(self._left, "turns"),
                "The left column shows the parsed turns",
            ),
            (
                "chunk: show raw chunks on the left",
                partial(self._left, "raw"),
                "The left column shows the chunks split on blank lines",
            ),
            (
                "chunk: show compacted chunks on the left",
                partial(self._left, "compacted"),
                "The left column shows the compacted chunks (the merge's input)",
            ),
            (
                "chunk: tool calls collapsed (the recap pipeline) / raw",
                app.toggle_collapse,
                "Chunk the log as `chunkscope recap` does: tool calls folded into one turn",
            ),
            (
                "chunk: N merged chunks…",
                app.action_chunk_count,
                "Type a chunk count; the threshold (seed) or topic depth moves to give it",
            ),
            (
                "topics: mark / unmark a topic start at the selected item",
                app.action_toggle_mark,
                "Saved at once for this file; every run is scored against the marks",
            ),
            (
                "topics: the marks are all the topics / some of them",
                app.action_toggle_marks_complete,
                "Partial marks (the default) are scored only from the first mark to the last",
            ),
            (
                "topics: auto-tune on the marks",
                app.action_auto_tune,
                "Search the tune grid for the setting that finds the marks (F1, then Pk)",
            ),
            (
                "topics: export the marks as a gold file",
                app.action_export_marks,
                "The format of `chunkscope eval --gold`",
            ),
            (
                "search: ask the merged chunks a question  [/]",
                partial(self._bench, "search"),
                "Open the Search panel: ranked chunks, the context under the budget, hits marked",
            ),
            (
                "recap: pin the selected chunk",
                app.action_pin,
                "Keep this chunk's summary first in the recap, less what it says already",
            ),
            (
                "recap: exclude the selected chunk",
                app.action_exclude,
                "Never put this chunk's summary in the recap",
            ),
            ("recap: clear pins and exclusions", self._clear_marks, "Let the scores decide again"),
            (
                "recap: type the budget",
                app.action_type_budget,
                "Set the recap's token budget to an exact number",
            ),
            (
                "recap: write _recap.md",
                app.action_write_recap,
                "Write the recap exactly as previewed (asks before overwriting)",
            ),
            (
                "recap: score by recency",
                partial(self._scorer, "recency"),
                "Newer chunks first (the reference scorer)",
            ),
            (
                "recap: score by salience",
                partial(self._scorer, "salience"),
                "Novelty x centrality x recency",
            ),
            (
                "recap: toggle time headings",
                self._headings,
                "Precede each paragraph with its time range",
            ),
            (
                "export: merged chunks as JSON",
                partial(app.export, "json"),
                "Write the merged chunks with their parts, cuts and summaries",
            ),
            (
                "export: merged chunks as markdown",
                partial(app.export, "markdown"),
                "Write the merged chunks as a markdown document",
            ),
            ("export: the recap", partial(app.export, "recap"), "Write _recap.md"),
            (
                "export: the run as an HTML report",
                partial(app.export, "report"),
                "One self-contained page: chunks, cuts, the plot, the recap, the marks' score",
            ),
            (
                "profile: save the current parameters",
                app.action_save_profile,
                "Save merge parameters, compaction minimum and budget under a name",
            ),
            (
                "profile: load a profile",
                app.action_load_profile,
                "Apply a saved profile's parameters",
            ),
            (
                "embedder: lexical (offline)",
                partial(app.use_embedder, "lexical"),
                "Hashed TF-IDF vectors; no network, no key",
            ),
            (
                "embedder: openai-compatible endpoint",
                partial(app.use_embedder, "openai"),
                "Use $OPENAI_BASE_URL / the configured endpoint",
            ),
            (
                "summarizer: extractive (offline)",
                partial(app.use_summarizer, "extractive"),
                "Sentences picked from the chunk; no network, no key",
            ),
            (
                "summarizer: llm",
                partial(app.use_summarizer, "llm"),
                "An OpenAI-compatible chat model (needs a model in the config)",
            ),
            ("file: open…", app.action_open_file, "Open another log or markdown file"),
            ("file: help", app.action_help, "Keys and what the screen shows"),
        ]
        from chunkscope.engine.chunk.strategies import STRATEGIES
        from chunkscope.tui.workbench.columns import MERGE_COLUMN_HELP

        shows = {**STRATEGIES, **MERGE_COLUMN_HELP}
        for side, default in (("left", "before merge"), ("right", "merged")):
            commands.append(
                (
                    f"strategy:{side} none ({default})",
                    partial(app.set_column_strategy, side, None),
                    f"The {side} column shows the {default} chunks again",
                )
            )
            for name, description in shows.items():
                commands.append(
                    (
                        f"strategy:{side} {name}",
                        partial(app.set_column_strategy, side, name),
                        f"The {side} column shows {name}: {description}",
                    )
                )
        for name in sorted(app.available_themes):
            commands.append(
                (f"theme: {name}", partial(setattr, app, "theme", name), "Switch the theme")
            )
        return commands

    def toggle_expand(self) -> None:
        """The merged list's ``enter`` (named as its binding's action, so the palette
        names the key: `_key_of`): expand or collapse the selected chunk."""
        bench = self.app.workbench  # type: ignore[attr-defined]
        if bench is not None:
            from chunkscope.tui.widgets.chunk_list import ChunkList

            bench.query_one("#merged", ChunkList).action_toggle_expand()

    def _bench(self, what: str) -> None:
        bench = self.app.workbench  # type: ignore[attr-defined]
        if bench is not None and what == "search":
            bench.action_search()

    def _left(self, kind: str) -> None:
        bench = self.app.workbench  # type: ignore[attr-defined]
        if bench is not None:
            from chunkscope.tui.widgets.choice_toggle import ChoiceToggle

            bench.query_one("#left-kind", ChoiceToggle).set_value(kind, post=True)

    def _clear_marks(self) -> None:
        app: Any = self.app
        app.state = app.state.cleared()
        app.reselect()
        app.notify("Pins and exclusions cleared.")

    def _scorer(self, scorer: str) -> None:
        app: Any = self.app
        app.state = app.state.with_tuning(scorer=scorer)
        app.reselect()
        app.notify(f"Recap scored by {scorer}.")

    def _headings(self) -> None:
        app: Any = self.app
        app.state = replace(app.state, headings=not app.headings)
        app.reselect()
        app.notify(f"Time headings {'on' if app.headings else 'off'}.")

    def _named_commands(self) -> list[Command]:
        """`_commands`, each with the key that runs it from the workbench after its name
        (``recap: pin the selected chunk  [p]``), as the workbench's bindings say it: the
        palette named some keys and not others (walk 45)."""
        out: list[Command] = []
        for name, action, help_text in self._commands():
            key = None if name.endswith("]") else _key_of(action, type(self.app).BINDINGS)
            out.append((f"{name}  [{key}]" if key else name, action, help_text))
        return out

    async def discover(self) -> Hits:
        for name, action, help_text in self._named_commands():
            yield DiscoveryHit(Content(name), action, text=name, help=_plain(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in self._named_commands():
            score = matcher.match(name)
            if score > 0:
                shown = _highlighted(matcher, name)
                yield Hit(score, shown, action, text=name, help=_plain(help_text))


def _key_of(action: Callable[[], Any], app_bindings: Iterable[Any]) -> str | None:
    """The key of the workbench's binding, of the app's (`app_bindings`) or of the merged
    list's that runs `action` (a method of the app, or of the provider named as the
    list's action: ``enter``, the one key-bound command the palette listed without its
    key, walk 54, F7), as the footer shows it; None when no key does."""
    from textual.binding import Binding

    from chunkscope.tui.screens.workbench import WorkbenchScreen
    from chunkscope.tui.widgets.chunk_list import ChunkList

    name = getattr(action, "__name__", "").removeprefix("action_")
    if not name or isinstance(action, partial):
        return None
    for bindings, called in (
        (WorkbenchScreen.BINDINGS, f"app.{name}"),
        (app_bindings, name),
        (ChunkList.BINDINGS, name),
    ):
        for binding in bindings:
            if isinstance(binding, Binding) and binding.action == called:
                return binding.key_display or binding.key
    return None


def _plain(text: str) -> str:
    """`text` as the palette shows it: the palette reads a command's help as markup, and
    the key hints (``[m]``, ``[/]``) are text."""
    return escape(text)


def _highlighted(matcher: Matcher, name: str) -> Content:
    """`name` as plain text with the letters the query matched highlighted (Textual's own
    ``Matcher.highlight`` reads the name as markup, which swallows a key hint like ``[m]``)."""
    content = Content(name)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, name)
    for offset in offsets:
        if not name[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content
