"""Gemini CLI: hooks in ``settings.json`` (``~/.gemini/`` or the project's ``.gemini/``),
chats in ``~/.gemini/tmp/<project id>/chats/session-*.json[l]``.

The contract comes from google-gemini/gemini-cli:

- ``docs/hooks/reference.md``: JSON on stdin (``session_id``, ``transcript_path``,
  ``cwd``, ``hook_event_name``, ``timestamp``), ONLY JSON on stdout, ``timeout`` in
  milliseconds; SessionStart (source startup|resume|clear) adds
  ``hookSpecificOutput.additionalContext``; SessionEnd is best effort (the CLI does not
  wait for it: the recap is built in a background process); PreCompress is advisory.
- ``packages/core/src/hooks/hookPlanner.ts``: a lifecycle event's ``matcher`` is compared
  to the source as an exact string, so our SessionStart has none (resume injects
  nothing on our side).
- ``packages/core/src/hooks/hookRunner.ts``: the hook runs with ``GEMINI_PROJECT_DIR``
  (and ``CLAUDE_PROJECT_DIR``) set to the session's ``cwd``.
- ``packages/cli/src/config/settingsSchema.ts`` and ``hooks/hookRegistry.ts``:
  ``hooksConfig.enabled: false`` switches every hook off; a hook whose ``name`` (else
  command) is in ``hooksConfig.disabled`` does not run; project hooks run only in a
  trusted folder.
- ``packages/core/src/config/storage.ts`` and ``projectRegistry.ts``: the project's folder
  under ``~/.gemini/tmp/`` is named by its short id in ``~/.gemini/projects.json``
  (``{"projects": {"<absolute path>": "<id>"}}``), formerly by the SHA-256 of the path;
  it holds ``.project_root`` (the path). A session's ``transcript_path`` is its chat file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from chunkscope.engine.inject.agents.base import (
    HOOK_PURPOSES,
    SESSION_START_TIMEOUT,
    Agent,
    HookSpec,
    newest_files,
)

CHAT_SUFFIXES = (".json", ".jsonl")


def gemini_home() -> Path:
    """Gemini CLI's folder in the user's home (``~/.gemini``)."""
    return Path.home() / ".gemini"


def chats_folder(root: Path) -> Path | None:
    """Where Gemini CLI keeps the chats of sessions started in `root`, or None."""
    tmp = gemini_home() / "tmp"
    path = os.path.abspath(root)
    names: list[str] = []
    with contextlib.suppress(OSError, ValueError):
        registry = json.loads((gemini_home() / "projects.json").read_text(encoding="utf-8"))
        short = registry.get("projects", {}).get(path) if isinstance(registry, dict) else None
        if isinstance(short, str):
            names.append(short)
    names.append(hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest())
    for name in names:
        if (tmp / name / "chats").is_dir():
            return tmp / name / "chats"
    with contextlib.suppress(OSError):
        for entry in os.scandir(tmp):
            marker = Path(entry.path) / ".project_root"
            with contextlib.suppress(OSError):
                if marker.read_text(encoding="utf-8").strip() == path:
                    return Path(entry.path) / "chats"
    return None


class _Gemini(Agent):
    def home(self) -> Path:
        return gemini_home()

    def hook_entry(self, spec: HookSpec, command: str) -> dict[str, Any]:
        return {
            "name": f"chunkscope-{spec.subcommand}",
            "type": "command",
            "command": command,
            "timeout": spec.timeout * self.timeout_scale,
            "description": f"chunkscope: {HOOK_PURPOSES[spec.subcommand]}",
        }

    def switched_off(self, doc: dict[str, Any], path: Path, project: Path) -> list[str]:
        lines: list[str] = []
        files = [(path, doc)]
        user = gemini_home() / "settings.json"
        if path != user:
            with contextlib.suppress(OSError, ValueError):
                other = json.loads(user.read_text(encoding="utf-8"))
                if isinstance(other, dict):
                    files.append((user, other))
        names = {f"chunkscope-{spec.subcommand}" for spec in self.events}
        for where, data in files:
            for key in ("hooksConfig", "hooks"):
                block = data.get(key)
                if not isinstance(block, dict):
                    continue
                if block.get("enabled") is False:
                    lines.append(
                        f"{where}: {key}.enabled is false: Gemini CLI runs no hooks, "
                        "chunkscope's included"
                    )
                disabled = block.get("disabled")
                if isinstance(disabled, list):
                    off = sorted(names & {d for d in disabled if isinstance(d, str)})
                    if off:
                        lines.append(f"{where}: {key}.disabled switches off {', '.join(off)}")
        if path.parent.parent == project:
            lines.append(
                "Gemini CLI runs a project's hooks only in a trusted folder "
                "(/permissions or the trust prompt)"
            )
        return lines

    def sessions_where(self, root: Path) -> str:
        folder = chats_folder(root)
        if folder is not None:
            return str(folder)
        return f"{gemini_home() / 'tmp'}, where no chats folder belongs to {root}"

    def other_transcripts(
        self, root: Path, current: str | None, payload: dict[str, Any]
    ) -> list[Path]:
        folder = Path(current).parent if current else chats_folder(root)
        if folder is None:
            return []
        skip = os.path.realpath(current) if current else None
        # Without a transcript_path, this session's chat is known by the start of its id
        # at the end of its name (``session-<time>-<first 8 characters of the id>``).
        session = payload.get("session_id")
        mine = f"-{session[:8]}." if isinstance(session, str) and len(session) >= 8 else None
        return [
            p
            for p in newest_files(folder, suffixes=CHAT_SUFFIXES, prefix="session-")
            if os.path.realpath(p) != skip and not (mine and mine in p.name)
        ]


GEMINI = _Gemini(
    name="gemini",
    title="Gemini CLI",
    events=(
        HookSpec("SessionStart", None, "session-start", SESSION_START_TIMEOUT),
        HookSpec("SessionEnd", None, "session-end", 60),
        HookSpec("PreCompress", None, "pre-compact", 120),
    ),
    has_end=True,
    project_env="GEMINI_PROJECT_DIR",
    folder=".gemini",
    file_name="settings.json",
    timeout_scale=1000,
)
