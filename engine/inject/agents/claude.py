"""Claude Code: hooks in ``settings.json`` (``~/.claude/`` or the project's ``.claude/``),
transcripts in ``~/.claude/projects/<the project's path, encoded>/<session>.jsonl``.

The contract is Claude Code's hooks reference (docs.anthropic.com, "Hooks reference"):
SessionStart (source startup|resume|clear|compact), SessionEnd, PreCompact; JSON on
stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``); a start's
context as ``hookSpecificOutput.additionalContext``; ``$CLAUDE_PROJECT_DIR`` set for
hooks; ``timeout`` in seconds. Its settings' ``disableAllHooks: true`` switches every
hook off (docs.anthropic.com, "Claude Code settings").
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from chunkscope.engine.inject.agents.base import SESSION_START_TIMEOUT, Agent, HookSpec


class _Claude(Agent):
    def home(self) -> Path:
        from chunkscope.engine.inject.recaps import claude_home

        return claude_home()

    def switched_off(self, doc: dict[str, Any], path: Path, project: Path) -> list[str]:
        files: list[tuple[Path, Any]] = [(path, doc)]
        for other in (
            self.home() / "settings.json",
            project / ".claude" / "settings.json",
            project / ".claude" / "settings.local.json",
        ):
            if other != path:
                with contextlib.suppress(OSError, ValueError):
                    files.append((other, json.loads(other.read_text(encoding="utf-8"))))
        return [
            f"{where}: disableAllHooks is true: Claude Code runs no hooks, chunkscope's included"
            for where, data in files
            if isinstance(data, dict) and data.get("disableAllHooks") is True
        ]

    def sessions_where(self, root: Path) -> str:
        from chunkscope.engine.inject.recaps import (
            claude_home,
            claude_project_name,
            claude_transcripts_folder,
        )

        folder = claude_transcripts_folder(root)
        if folder is not None:
            return str(folder)
        where = claude_home() / "projects" / claude_project_name(root)
        return f"{where}, which does not exist"

    def other_transcripts(
        self, root: Path, current: str | None, payload: dict[str, Any]
    ) -> list[Path]:
        from chunkscope.engine.inject.recaps import claude_transcripts_folder, newest_transcripts

        folder = Path(current).parent if current else claude_transcripts_folder(root)
        return newest_transcripts(folder, other_than=current) if folder is not None else []


#: A resumed session has its own history, so SessionStart leaves ``resume`` out;
#: SessionEnd and PreCompact run on every reason and trigger.
CLAUDE = _Claude(
    name="claude",
    title="Claude Code",
    events=(
        HookSpec("SessionStart", "startup|clear|compact", "session-start", SESSION_START_TIMEOUT),
        HookSpec("SessionEnd", None, "session-end", 120),
        HookSpec("PreCompact", None, "pre-compact", 120),
    ),
    has_end=True,
    project_env="CLAUDE_PROJECT_DIR",
    folder=".claude",
    file_name="settings.json",
)
