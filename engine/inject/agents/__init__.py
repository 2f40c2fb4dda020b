"""The agent tools chunkscope hooks into, declared once: `AGENTS` by name.

Each is an `Agent` (`engine.inject.agents.base`) in its own module; ``chunkscope hook ...
--agent NAME`` takes one of `AGENT_NAMES` (`DEFAULT_AGENT` when none is given: hooks
installed by earlier versions name none).
"""

from __future__ import annotations

from chunkscope.engine.inject.agents.base import Agent
from chunkscope.engine.inject.agents.claude import CLAUDE
from chunkscope.engine.inject.agents.codex import CODEX
from chunkscope.engine.inject.agents.gemini import GEMINI

__all__ = ["AGENTS", "AGENT_NAMES", "DEFAULT_AGENT", "Agent", "agent_named"]

AGENTS: dict[str, Agent] = {a.name: a for a in (CLAUDE, CODEX, GEMINI)}
AGENT_NAMES: tuple[str, ...] = tuple(AGENTS)
DEFAULT_AGENT = CLAUDE.name


def agent_named(name: str | None) -> Agent:
    """The agent called `name` (the default one for None). `KeyError` for another."""
    return AGENTS[name or DEFAULT_AGENT]
