"""What chunkscope needs to know of an agent tool to hook into it (`Agent`).

Each tool is one module beside this one (`engine.inject.agents.claude`, `.codex`, `.gemini`)
declaring one `Agent`; `engine.inject.agents` lists them. The hooks' logic (`engine.inject.recaps`,
`tui.cli.hook`) and the hooks file's merging (`engine.inject.hook_settings`) are shared: an
agent says where its hooks file is, which events run which ``chunkscope hook``
subcommand, how a hook entry is written, where the project's session transcripts are,
and how its config switches hooks off.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Agent", "HookSpec", "newest_files"]


#: What each of our hooks does, by its ``chunkscope hook`` subcommand: the command's help
#: and the description an agent tool's settings show for it.
HOOK_PURPOSES: dict[str, str] = {
    "session-end": "store the recap of the session that ended",
    "pre-compact": "store the recap before the context is compacted",
    "session-start": "print the recap to inject into a new session",
}


#: Seconds an agent tool waits for the session-start hook (its entry's ``timeout``): past
#: them the tool stops the hook, and the session starts without what it would have said.
SESSION_START_TIMEOUT = 30


@dataclass(frozen=True)
class HookSpec:
    """One of our hooks: the agent tool's event, the matcher (None: every occurrence),
    the subcommand of ``chunkscope hook`` and the seconds the tool waits for it."""

    event: str
    matcher: str | None
    subcommand: str
    timeout: int


def newest_files(folder: Path, *, suffixes: tuple[str, ...], prefix: str = "") -> list[Path]:
    """The files directly in `folder` named ``<prefix>...<suffix>``, newest first."""
    found: list[tuple[float, str, Path]] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.name.startswith(prefix) or not entry.name.endswith(suffixes):
                continue
            with contextlib.suppress(OSError):
                if entry.is_file():
                    found.append((-entry.stat().st_mtime, entry.name, Path(entry.path)))
    found.sort()
    return [path for _, _, path in found]


@dataclass(frozen=True)
class Agent:
    """An agent tool whose sessions get a recap at their next start."""

    name: str  # what ``--agent`` takes
    title: str  # the tool's name, for people
    events: tuple[HookSpec, ...]
    #: Whether the tool tells a session's end (else every earlier session counts as ended).
    has_end: bool
    #: The variable the tool sets for hooks to the session's project folder (None: none).
    project_env: str | None
    #: The hooks file: the folder under the project (``--project``) and under the home.
    folder: str
    file_name: str
    #: The unit of the hook entries' ``timeout``: 1 (seconds) or 1000 (milliseconds).
    timeout_scale: int = 1

    @property
    def event_names(self) -> tuple[str, ...]:
        """The hook event names the tool calls, in the order `events` declares them."""
        return tuple(spec.event for spec in self.events)

    def home(self) -> Path:
        """The tool's folder in the user's home."""
        return Path.home() / self.folder

    def hooks_file(self, scope: str, project: Path) -> Path:
        """The hooks file for every project (``user``) or for `project` (``project``)."""
        base = project / self.folder if scope == "project" else self.home()
        return base / self.file_name

    def hook_entry(self, spec: HookSpec, command: str) -> dict[str, Any]:
        """One hook entry as the tool reads it."""
        return {"type": "command", "command": command, "timeout": spec.timeout * self.timeout_scale}

    def switched_off(self, doc: dict[str, Any], path: Path, project: Path) -> list[str]:
        """Lines saying where the tool's config keeps our hooks from running (none: they
        run)."""
        return []

    def other_transcripts(
        self, root: Path, current: str | None, payload: dict[str, Any]
    ) -> list[Path]:
        """The project's session transcripts other than `current`, newest first."""
        return []

    def sessions_where(self, root: Path) -> str:
        """Where the tool keeps `root`'s session transcripts, in words (for a message
        saying where chunkscope looked)."""
        return str(self.home())
