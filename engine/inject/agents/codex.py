"""Codex CLI: hooks in ``hooks.json`` beside a config layer (``$CODEX_HOME`` or
``~/.codex/``, or the project's ``.codex/``), sessions as rollouts under
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``, each starting with a
``session_meta`` record that holds the session's ``cwd``.

The contract comes from openai/codex, ``codex-rs``:

- ``config/src/hook_config.rs``: the file is ``{"hooks": {"<Event>": [{"matcher": ...,
  "hooks": [{"type": "command", "command": ..., "timeout": <seconds>}]}]}}`` with the
  events PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact,
  SessionStart, UserPromptSubmit, Stop: there is no SessionEnd, so Stop (after every
  turn) stores the session's recap, in a background process.
- ``hooks/src/engine/discovery.rs``: ``hooks.json`` is read from each config layer's
  folder; a hook runs only when enabled (``[hooks.state."<file>:<event>:<group>:<hook>"]
  enabled = false`` in ``config.toml`` switches one off) and trusted (a user's new hook
  waits until it is trusted in Codex's ``/hooks``).
- ``features/src/lib.rs``: ``[features] hooks`` (alias ``codex_hooks``) switches all
  hooks on or off; on by default.
- ``hooks/src/events/session_start.rs`` and ``hooks/schema/generated/*.input.schema.json``:
  SessionStart's ``source`` is startup|resume|clear|compact; every input has
  ``session_id``, ``transcript_path`` (a string or null), ``cwd``, ``hook_event_name``;
  a start's stdout ``hookSpecificOutput.additionalContext`` goes into the model's context.
"""

from __future__ import annotations

import contextlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

from chunkscope.engine.inject.agents.base import SESSION_START_TIMEOUT, Agent, HookSpec

#: The most rollouts whose first record a start reads to find the project's newest.
MAX_ROLLOUTS_READ = 400
#: The most bytes of a rollout's first line read (its session_meta holds instructions).
_HEAD_BYTES = 1 << 20


def codex_home() -> Path:
    """Codex's folder: ``$CODEX_HOME`` or ``~/.codex``."""
    override = os.environ.get("CODEX_HOME")
    return Path(override).expanduser() if override else Path.home() / ".codex"


def rollout_cwd(path: Path) -> str | None:
    """The ``cwd`` in a rollout's first record (its ``session_meta``), or None."""
    try:
        with open(path, "rb") as fh:
            head = fh.readline(_HEAD_BYTES)
        record = json.loads(head)
    except (OSError, ValueError):
        return None
    payload = record.get("payload") if isinstance(record, dict) else None
    if not isinstance(payload, dict) or record.get("type") != "session_meta":
        return None
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) else None


def rollouts(home: Path | None = None) -> list[Path]:
    """Every rollout under the sessions folder, newest first (by the files' times: a
    resumed session's rollout stays in the day folder it started in)."""
    found: list[tuple[float, Path]] = []
    for folder, _, names in os.walk((home or codex_home()) / "sessions"):
        for name in names:
            if name.startswith("rollout-") and name.endswith(".jsonl"):
                path = Path(folder) / name
                with contextlib.suppress(OSError):
                    found.append((path.stat().st_mtime, path))
    found.sort(key=lambda item: -item[0])
    return [path for _, path in found]


class _Codex(Agent):
    def home(self) -> Path:
        return codex_home()

    def switched_off(self, doc: dict[str, Any], path: Path, project: Path) -> list[str]:
        lines: list[str] = []
        configs = [codex_home() / "config.toml"]
        if path.parent != codex_home():
            configs.append(path.parent / "config.toml")
        for config in configs:
            try:
                data = tomllib.loads(config.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            features = data.get("features")
            if isinstance(features, dict):
                for key in ("hooks", "codex_hooks"):
                    if features.get(key) is False:
                        lines.append(
                            f"{config}: [features] {key} = false switches Codex's hooks off; "
                            "chunkscope's will not run until it is true"
                        )
            hooks = data.get("hooks")
            state = hooks.get("state") if isinstance(hooks, dict) else None
            if isinstance(state, dict):
                off = [
                    k
                    for k, v in state.items()
                    if str(k).startswith(str(path))
                    and isinstance(v, dict)
                    and v.get("enabled") is False
                ]
                if off:
                    lines.append(
                        f"{config}: {len(off)} hook(s) of {path} switched off in [hooks.state]"
                    )
        lines.append(
            "Codex runs a new hook only once it is trusted: open /hooks in Codex and trust "
            "chunkscope's (after each install that changed them)"
        )
        return lines

    def sessions_where(self, root: Path) -> str:
        return f"{codex_home() / 'sessions'}, rollouts whose session_meta cwd is {root}"

    def other_transcripts(
        self, root: Path, current: str | None, payload: dict[str, Any]
    ) -> list[Path]:
        """The newest rollout of this project (matched by its session_meta's cwd) other
        than `current`: only the newest is looked for, reading at most
        `MAX_ROLLOUTS_READ` first records."""
        want = os.path.realpath(root)
        skip = os.path.realpath(current) if current else None
        # Without a transcript_path, this session's rollout is known by its id in the name.
        session = payload.get("session_id")
        mine = session if isinstance(session, str) and len(session) >= 8 else None
        for i, path in enumerate(rollouts()):
            if i >= MAX_ROLLOUTS_READ:
                break
            if (skip and os.path.realpath(path) == skip) or (mine and mine in path.name):
                continue
            cwd = rollout_cwd(path)
            if cwd and os.path.realpath(os.path.expanduser(cwd)) == want:
                return [path]
        return []


CODEX = _Codex(
    name="codex",
    title="Codex CLI",
    events=(
        HookSpec("SessionStart", "startup|clear|compact", "session-start", SESSION_START_TIMEOUT),
        # No SessionEnd: Stop runs after every turn and hands the build to a background
        # process (one at a time per session), so a turn never waits for it.
        HookSpec("Stop", None, "session-end", 30),
        HookSpec("PreCompact", None, "pre-compact", 120),
    ),
    has_end=False,
    project_env=None,
    folder=".codex",
    file_name="hooks.json",
)
