"""chunkscope's hooks in an agent tool's hooks file: merged in, taken out.

Claude Code (``settings.json``), Codex (``hooks.json``) and Gemini CLI (``settings.json``)
all read hooks shaped the same way (`engine.inject.agents` says which file and which events)::

    {"hooks": {"SessionStart": [{"matcher": "startup|clear|compact",
                                 "hooks": [{"type": "command", "command": "..."}]}]}}

`install` adds one group per event of the agent (`Agent.events`) whose command is ours,
or updates ours in place; every other key, event, group and hook stays as it was, in its
order, so installing twice is installing once. `uninstall` removes our hooks only (and a
group, an event or ``hooks`` left empty by that). A hook is ours when its command runs a
``chunkscope`` executable with ``hook session-start|session-end|pre-compact``.

`read_settings` refuses a file that is not a JSON object (one line, nothing changed);
`write_settings` writes atomically after keeping the old file as a backup.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
from datetime import datetime
from pathlib import Path
from typing import Any

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.fileio import atomic_write_text
from chunkscope.engine.inject.agents.base import Agent, HookSpec
from chunkscope.engine.read.source import BOM, located, read_side_file, side_file_text

__all__ = [
    "HookSpec",
    "SettingsFileError",
    "command_for",
    "install",
    "is_ours",
    "read_settings",
    "uninstall",
    "write_settings",
]


_OURS = re.compile(
    r"""(?:^|[\s/\\'"])chunkscope(?:\.exe)?['"]?\s+hook\s+(session-start|session-end|pre-compact)\b"""
)


class SettingsFileError(ChunkscopeError):
    """A hooks file that is not a JSON object, or whose hooks are not shaped as the
    agent tool reads them: it is left untouched."""


def command_for(executable: str, subcommand: str, agent: str) -> str:
    """The shell command of one hook: ``<executable> hook <subcommand> --agent <agent>``,
    quoted."""
    return f"{shlex.quote(executable)} hook {subcommand} --agent {agent}"


def is_ours(hook: Any, subcommand: str | None = None) -> bool:
    """Whether a hook entry runs ``chunkscope hook ...`` (that `subcommand`, if given)."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    found = _OURS.search(hook["command"])
    return found is not None and (subcommand is None or found.group(1) == subcommand)


def _check_shape(doc: Any, where: str, events: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise SettingsFileError(f"{where}: not a JSON object; not changed")
    if "hooks" not in doc:
        return doc
    hooks = doc["hooks"]
    if not isinstance(hooks, dict):
        raise SettingsFileError(f'{where}: "hooks" is not an object; not changed')
    for event in events:
        if event in hooks and not isinstance(hooks[event], list):
            raise SettingsFileError(f'{where}: "hooks.{event}" is not a list; not changed')
    return doc


def install(doc: dict[str, Any], executable: str, agent: Agent) -> dict[str, Any]:
    """`doc` with `agent`'s hooks (a new dict; `doc` is not changed). A hook of ours
    already there gets the current command and timeout; a missing one is added as its
    own group at the end of its event's list."""
    out = copy.deepcopy(_check_shape(doc, "settings", agent.event_names))
    hooks = out.setdefault("hooks", {})
    for spec in agent.events:
        groups = hooks.setdefault(spec.event, [])
        entry = agent.hook_entry(spec, command_for(executable, spec.subcommand, agent.name))
        found = False
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                continue
            for i, hook in enumerate(inner):
                if is_ours(hook, spec.subcommand):
                    if not found:
                        inner[i] = {**hook, **entry}
                    found = True
        if not found:
            group_out: dict[str, Any] = {}
            if spec.matcher is not None:
                group_out["matcher"] = spec.matcher
            group_out["hooks"] = [entry]
            groups.append(group_out)
    return out


def uninstall(doc: dict[str, Any], agent: Agent | None = None) -> dict[str, Any]:
    """`doc` without our hooks (a new dict). A group, an event's list or ``hooks`` that
    held only ours goes with them; what was empty before stays. `SettingsFileError` when
    one of `agent`'s events is not shaped as hooks are."""
    events = agent.event_names if agent is not None else ()
    out = copy.deepcopy(_check_shape(doc, "settings", events))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        removed = False
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h) for h in inner):
                kept_groups.append(group)
                continue
            removed = True
            left = [h for h in inner if not is_ours(h)]
            if left:
                kept_groups.append({**group, "hooks": left})
        if removed:
            if kept_groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
    if not hooks and "hooks" in doc and doc["hooks"]:
        del out["hooks"]
    return out


def read_settings(path: Path, events: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The settings in `path` (None when the file does not exist; an empty file is
    ``{}``). `SettingsFileError` when it is not a JSON object, or its ``hooks`` or one of
    `events` in them is not shaped as hooks are."""
    try:
        raw = read_side_file(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise SettingsFileError(f"{path}: cannot read: {e.strerror or e}; not changed") from None
    try:  # refused as every input is; a leading byte order mark is read past
        text = side_file_text(raw, "a settings file").removeprefix(BOM)
    except ValueError as e:
        raise SettingsFileError(f"{path}{located(str(e))}; not changed") from None
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise SettingsFileError(f"{path}: not valid JSON ({e}); not changed") from None
    return _check_shape(doc, str(path), events)


def dumps(doc: dict[str, Any]) -> str:
    """Settings as the agent tools write them: two-space indents, a final newline."""
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def write_settings(path: Path, doc: dict[str, Any]) -> Path | None:
    """Write `doc` to `path` atomically, first copying the old file (when there is one)
    to ``<name>.chunkscope-<time>.bak`` beside it. Returns the backup's path."""
    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = path.with_name(f"{path.name}.chunkscope-{stamp}.bak")
        n = 1
        while backup.exists():
            n += 1
            backup = path.with_name(f"{path.name}.chunkscope-{stamp}-{n}.bak")
        atomic_write_text(backup, path.read_text(encoding="utf-8"))
    mode = None
    if path.exists():
        mode = os.stat(path).st_mode & 0o7777
    atomic_write_text(path, dumps(doc), mode=mode)
    return backup
