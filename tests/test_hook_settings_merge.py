"""Merging chunkscope's hooks into an agent tool's hooks file (`engine.inject.hook_settings`,
for each agent of `engine.inject.agents`): any JSON object in, the same object plus our hooks
out; twice is once; uninstall undoes install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.inject.agents import AGENTS
from chunkscope.engine.inject.agents.claude import CLAUDE
from chunkscope.engine.inject.hook_settings import (
    SettingsFileError,
    install,
    is_ours,
    read_settings,
    uninstall,
    write_settings,
)

EXE = "/opt/tools/venv/bin/chunkscope"

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=12,
)
commands = st.text(min_size=1).filter(lambda c: not is_ours({"command": c}))
user_hook = st.fixed_dictionaries(
    {"type": st.just("command"), "command": commands},
    optional={"timeout": st.integers(1, 600)},
)
group = st.fixed_dictionaries(
    {"hooks": st.lists(user_hook, min_size=1, max_size=3)},
    optional={"matcher": st.text(max_size=10), "extra": json_values},
)
event_names = st.sampled_from(
    [
        *sorted({e for a in AGENTS.values() for e in a.event_names}),
        "PreToolUse",
        "PostToolUse",
        "BeforeTool",
        "Notification",
    ]
)
agents = st.sampled_from(list(AGENTS.values()))
# Events Claude Code may hold that are not ours can be anything a user wrote.
hooks_objects = st.dictionaries(event_names, st.lists(group, min_size=1, max_size=3), min_size=1)
settings_docs = st.builds(
    lambda rest, hooks: {**rest, **({"hooks": hooks} if hooks is not None else {})},
    st.dictionaries(st.text().filter(lambda k: k != "hooks"), json_values, max_size=5),
    st.none() | hooks_objects,
)


def _ours(doc: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in doc["hooks"].get(event, []) for h in g["hooks"] if is_ours(h)]


def _without_ours(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every user hook of `doc` in order, with its event and group's other keys."""
    out: list[tuple[str, Any]] = []
    for event, groups in doc.get("hooks", {}).items():
        for g in groups:
            rest = {k: v for k, v in g.items() if k != "hooks"}
            out.extend((event, json.dumps([rest, h])) for h in g["hooks"] if not is_ours(h))
    return out


@settings(max_examples=60, deadline=None)
@given(settings_docs, agents)
def test_install_adds_our_hooks_and_keeps_everything_else(doc: dict[str, Any], agent: Any) -> None:
    snapshot = json.dumps(doc)
    once = install(doc, EXE, agent)
    assert json.dumps(doc) == snapshot  # the input is not changed
    for key, value in doc.items():
        if key != "hooks":
            assert once[key] == value
    assert list(once)[: len(doc)] == list(doc)  # keys keep their order
    assert _without_ours(once) == _without_ours(doc)
    for spec in agent.events:
        ours = _ours(once, spec.event)
        assert len(ours) == 1
        assert ours[0]["command"] == f"{EXE} hook {spec.subcommand} --agent {agent.name}"
        assert ours[0]["timeout"] == spec.timeout * agent.timeout_scale
    assert install(once, EXE, agent) == once  # twice is once
    assert uninstall(once) == doc  # uninstall(install(x)) == x
    assert json.loads(json.dumps(once)) == once


@settings(max_examples=30, deadline=None)
@given(settings_docs)
def test_install_updates_a_moved_executable_in_place(doc: dict[str, Any]) -> None:
    old = install(doc, "/old/place/chunkscope", CLAUDE)
    new = install(old, EXE, CLAUDE)
    assert new == install(doc, EXE, CLAUDE)


@given(st.sampled_from([[], {}, "x", 3, None]), st.sampled_from(["hooks", "SessionStart"]))
def test_hooks_of_another_shape_are_refused(value: Any, where: str) -> None:
    doc: dict[str, Any] = {"hooks": value} if where == "hooks" else {"hooks": {where: value}}
    shaped = isinstance(value, dict) if where == "hooks" else isinstance(value, list)
    if shaped:
        assert len(_ours(install(doc, EXE, CLAUDE), "SessionStart")) == 1
        return
    with pytest.raises(SettingsFileError, match="not changed"):
        install(doc, EXE, CLAUDE)
    with pytest.raises(SettingsFileError, match="not changed"):
        uninstall(doc, CLAUDE)


def test_a_user_hook_sharing_our_group_stays() -> None:
    doc = install({}, EXE, CLAUDE)
    doc["hooks"]["SessionEnd"][0]["hooks"].append({"type": "command", "command": "say bye"})
    out = uninstall(doc)
    assert out == {
        "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "say bye"}]}]}
    }


def test_quoted_executable_is_recognised() -> None:
    doc = install({}, "/My Tools/bin/chunkscope", CLAUDE)
    command = _ours(doc, "SessionStart")[0]["command"]
    assert command == "'/My Tools/bin/chunkscope' hook session-start --agent claude"
    # A hook installed by an earlier version (no --agent) is ours: updated in place.
    old = {
        "hooks": {
            "SessionEnd": [{"hooks": [{"type": "command", "command": f"{EXE} hook session-end"}]}]
        }
    }
    assert len(_ours(install(old, EXE, CLAUDE), "SessionEnd")) == 1
    assert uninstall(doc) == {}
    assert not is_ours({"command": "echo chunkscope hooks session-start"})
    assert not is_ours({"command": "mychunkscope hook session-start"})


def test_read_and_write_keep_a_backup(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    assert read_settings(path) is None
    assert write_settings(path, {"a": 1}) is None  # nothing to back up
    path.chmod(0o600)
    backup = write_settings(path, install({"a": 1}, EXE, CLAUDE))
    assert backup is not None and json.loads(backup.read_text()) == {"a": 1}
    assert path.stat().st_mode & 0o777 == 0o600
    assert read_settings(path) == install({"a": 1}, EXE, CLAUDE)
    path.write_text("  \n")
    assert read_settings(path) == {}
