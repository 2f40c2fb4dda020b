"""Slash commands at the start of a user's message: which manage the tool and which ask
for work. Declared here, in the reading stage, so both the session lists' titles
(`engine.read.formats.folders`) and the requests the segmenter and the recap read
(`engine.segment.requests`) apply one rule."""

from __future__ import annotations

import re

#: aider's commands that carry a request after them (``/code add a dark mode``), and its
#: ``/help Q``, a question about aider it answers (walk 64, F2: the Task left it out); every
#: other slash command of aider's manages the tool.
ASKING_COMMANDS = ("ask", "code", "architect", "context", "chat", "help")
#: aider's commands (``/add``, ``/run``, ...): aider takes any start of one that no other
#: shares (``/ad`` for ``/add``, ``/ru`` for ``/run``), arguments after it as after the
#: full name (`aider_command`).
_AIDER_COMMAND_NAMES = """
add architect ask chat-mode clear code commit context copy copy-context diff drop edit editor
editor-model exit git help lint load ls map map-refresh model models multiline-mode paste quit
read-only reasoning-effort report reset run save settings test think-tokens tokens undo voice
weak-model web
"""
AIDER_COMMANDS = frozenset(_AIDER_COMMAND_NAMES.split()) | frozenset(ASKING_COMMANDS)
#: The built-in slash commands of aider, Claude Code, Codex and Gemini CLI that manage
#: the tool (its model, files, context, settings) rather than ask for work: no request.
#: Any other slash command is one the user defined (a workflow): a request.
_TOOL_COMMAND_NAMES = """
add-dir agents bug compact config cost doctor export hooks ide login logout mcp memory
output-style permissions plugin plugins privacy-settings release-notes resume rewind status
statusline terminal-setup todos upgrade usage vim
approvals new mention about auth chat compress directory extensions privacy restore stats theme
tools
"""  # Claude Code; Codex and Gemini CLI
TOOL_COMMANDS = frozenset(_TOOL_COMMAND_NAMES.split()) | AIDER_COMMANDS
#: A slash command's name (``/model``, ``/handgemacht:create-beads``).
COMMAND = re.compile(r"/([\w:.-]+)")
#: A slash command among a message's words (aider writes its commands one a line): its
#: name, then the blanks before its words.
_SLASHED = re.compile(r"(?:\A|\s)/([\w-]+)\b\s*")


def aider_command(name: str) -> str | None:
    """The aider command `name` (after its ``/``) runs, typed in full or short: the one
    command that starts with it (aider's rule: ``ad`` runs ``add``, ``ru`` ``run``);
    None when none does or several do (``c``: ``clear``, ``code``, ``commit``, ...)."""
    name = name.lower()
    if name in AIDER_COMMANDS:
        return name
    found = [command for command in AIDER_COMMANDS if command.startswith(name)]
    return found[0] if len(found) == 1 else None


def tool_command(name: str) -> bool:
    """Whether a slash command `name` manages the tool (`TOOL_COMMANDS`, or one of
    aider's typed short) rather than ask for work."""
    return name.lower() in TOOL_COMMANDS or aider_command(name) is not None


def asking_command(text: str) -> str | None:
    """The request a line gives with one of aider's asking commands, typed in full or
    short (``/ask how ...``, ``/as how ...``: ``how ...``), or None."""
    line = _SLASHED.match(text.strip())
    if line is None or aider_command(line.group(1)) not in ASKING_COMMANDS:
        return None
    return text.strip()[line.end() :] or None


def command_request(text: str) -> str | None:
    """The request a user's (stripped) message makes as far as its slash commands say:
    the words after aider's last asking command (``/ask how ...``: ``how ...``), the
    whole text for a command of the user's own (``/review the parser``), None for a
    command that manages the tool (``/model gpt-5``, ``/compact``; aider's typed short,
    ``/ad main.py``, walk 28, F8). A text that opens on no slash: itself."""
    if not text.startswith("/"):
        return text
    asking = [m for m in _SLASHED.finditer(text) if aider_command(m.group(1)) in ASKING_COMMANDS]
    if asking:  # aider writes its commands in a row: the request follows the last
        return text[asking[-1].end() :]
    name = COMMAND.match(text)
    if name is None or tool_command(name.group(1)):
        return None
    if name.end() == len(text.rstrip()) and _abbreviates(name.group(1).lower()):
        return None  # another tool's command typed short, alone (``/comp``)
    return text


def _abbreviates(name: str) -> bool:
    """Whether `name` is the start, two letters at least, of a tool command (``res`` of
    ``reset``): typed alone, it is no request (walk 27, F6)."""
    return len(name) >= 2 and any(command.startswith(name) for command in TOOL_COMMANDS)
