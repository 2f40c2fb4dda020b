"""Slash commands at the start of a user's message: which manage the tool and which ask
for work. Declared here, in the reading stage, so both the session lists' titles
(`engine.read.formats.folders`) and the requests the segmenter and the recap read
(`engine.segment.requests`) apply one rule."""

from __future__ import annotations

import re

#: aider's commands that carry a request after them (``/code add a dark mode``); every
#: other slash command of aider's manages the tool.
ASKING_COMMANDS = ("ask", "code", "architect", "context", "chat")
#: The built-in slash commands of aider, Claude Code, Codex and Gemini CLI that manage
#: the tool (its model, files, context, settings) rather than ask for work: no request.
#: Any other slash command is one the user defined (a workflow): a request.
_TOOL_COMMAND_NAMES = """
add architect ask chat-mode clear code commit context copy copy-context diff drop edit editor
editor-model exit git help lint load ls map map-refresh model models multiline-mode paste quit
read-only reasoning-effort report reset run save settings test think-tokens tokens undo voice
weak-model web
add-dir agents bug compact config cost doctor export hooks ide login logout mcp memory
output-style permissions plugin plugins privacy-settings release-notes resume rewind status
statusline terminal-setup todos upgrade usage vim
approvals new mention about auth chat compress directory extensions privacy restore stats theme
tools
"""  # aider; Claude Code; Codex and Gemini CLI
TOOL_COMMANDS = frozenset(_TOOL_COMMAND_NAMES.split())
#: A slash command's name (``/model``, ``/handgemacht:create-beads``).
COMMAND = re.compile(r"/([\w:.-]+)")
_ASKING = re.compile(rf"(?:\A|\s)/(?:{'|'.join(ASKING_COMMANDS)})\b\s*", re.I)


def command_request(text: str) -> str | None:
    """The request a user's (stripped) message makes as far as its slash commands say:
    the words after aider's last asking command (``/ask how ...``: ``how ...``), the
    whole text for a command of the user's own (``/review the parser``), None for a
    command that manages the tool (``/model gpt-5``, ``/compact``). A text that opens
    on no slash: itself."""
    if not text.startswith("/"):
        return text
    asking = list(_ASKING.finditer(text))
    if asking:  # aider writes its commands in a row: the request follows the last
        return text[asking[-1].end() :]
    name = COMMAND.match(text)
    if name is None or name.group(1).lower() in TOOL_COMMANDS:
        return None
    if name.end() == len(text.rstrip()) and _abbreviates(name.group(1).lower()):
        return None  # aider's ``/res`` alone: its ``/reset`` (walk 27, F6)
    return text


def _abbreviates(name: str) -> bool:
    """Whether `name` is how aider takes a tool command typed short: the start, two
    letters at least, of one of them (``res`` of ``reset``)."""
    return len(name) >= 2 and any(command.startswith(name) for command in TOOL_COMMANDS)
