"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON record a line. The records read:

- ``user``: ``message.content`` is the user's text, or blocks: ``text``,
  ``tool_result`` (the result of a tool call, matched by ``tool_use_id``), ``image``.
  ``isMeta`` records (caveats the tool adds) are left out; a slash command
  (``<command-name>/x</command-name>``) reads as ``/x args``, its output
  (``<local-command-stdout>``) as a system message; a compaction summary
  (``isCompactSummary``) as a ``compaction`` message.
- ``assistant``: blocks ``text``, ``thinking`` (Bot thinking), ``redacted_thinking``
  (nothing: it is encrypted), ``tool_use`` (a tool call: name and input).
- ``system``: kept as a system message (collapsing drops it); ``summary``: the
  session's title.
- other record kinds (``file-history-snapshot``, ...) are counted once in a note.

``uuid`` / ``parentUuid`` chain the records. After a rewind (an edited message, a
retried answer) the file keeps the abandoned branch; the conversation is the chain
that ends at the last record, followed back to its root (through
``logicalParentUuid`` across a compaction), and records off it are left out (and
counted). A record seen twice (a resumed session) is read once. ``isSidechain``
records are a subagent's: read as role ``Subagent`` (or left out without
`ReadOptions.subagents`).
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import Any

from engine.readers.base import Collected, ReadOptions, SessionInfo, first_text, text_of, tool_call
from engine.source import iter_objects

NAME = "claude-code"
SUBAGENT_ROLE = "Subagent"
COMPACTION_ROLE = "compaction"

_COMMAND = re.compile(
    r"<command-name>(.*?)</command-name>.*?(?:<command-args>(.*?)</command-args>)?", re.S
)
_TAG_FIRST = re.compile(r"\s*<")  # a text that starts (after blanks) with a tag
_STDOUT = re.compile(
    r"<local-command-(?:stdout|stderr)>(.*?)</local-command-(?:stdout|stderr)>", re.S
)


def looks_like(record: dict[str, Any]) -> bool:
    """A Claude Code record: a known ``type`` with Claude Code's own fields."""
    kind = record.get("type")
    if kind == "summary" and "leafUuid" in record:
        return True
    if kind not in ("user", "assistant", "system", "file-history-snapshot"):
        return False
    return any(k in record for k in ("parentUuid", "sessionId", "uuid", "isSidechain"))


def _tool_result_text(block: dict[str, Any]) -> str:
    return text_of(block.get("content"))


def block_messages(role: str, content: Any, ts: Any) -> list[dict[str, Any]]:
    """Messages of the seed's shape for one Anthropic-style message (a string, or
    blocks): also used for Anthropic message lists saved as JSON."""
    if not isinstance(content, list):
        text = text_of(content)
        return [{"role": role, "content": text, "timestamp": ts}]
    out: list[dict[str, Any]] = []
    if role == "assistant":
        thinking: list[str] = []
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for block in content:
            if not isinstance(block, dict):
                if isinstance(block, str):
                    texts.append(block)
                continue
            kind = block.get("type")
            if kind == "thinking" and isinstance(block.get("thinking"), str):
                thinking.append(block["thinking"])
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("tool_use", "server_tool_use"):
                calls.append(tool_call(block.get("id"), block.get("name"), block.get("input")))
            # redacted_thinking: encrypted, never shown
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "\n".join(texts),
            "timestamp": ts,
        }
        if thinking:
            message["reasoning"] = "\n".join(thinking)
        if calls:
            message["tool_calls"] = calls
        if thinking or texts or calls:
            out.append(message)
        return out
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "tool_result":
                result: dict[str, Any] = {
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id"),
                    "content": _tool_result_text(block),
                    "timestamp": ts,
                }
                if block.get("is_error"):
                    result["is_error"] = True
                out.append(result)
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("image", "document"):
                texts.append(f"[{kind}]")
    if texts:
        out.insert(0, {"role": role, "content": "\n".join(texts), "timestamp": ts})
    return out


def _user_text(text: str) -> tuple[str, str]:
    """(role, text) of a user record's text: slash commands and their output cleaned."""
    if not _TAG_FIRST.match(text):  # the usual message: no tag to look for
        return "user", text
    command = _COMMAND.search(text)
    if command and text.lstrip().startswith("<command-"):
        args = (command.group(2) or "").strip()
        return "user", f"{command.group(1).strip()} {args}".strip()
    output = _STDOUT.search(text)
    if output and text.lstrip().startswith("<local-command-"):
        return "system", output.group(1).strip()
    return "user", text


def _messages(
    record: dict[str, Any], options: ReadOptions, kind: Any = None
) -> list[dict[str, Any]] | None:
    """The messages of one record (of ``type`` `kind`, read from it when not given);
    None when the record is not a conversation record."""
    if kind is None:
        kind = record.get("type")
    ts = record.get("timestamp")
    if kind == "system":
        text = record.get("content")
        return [{"role": "system", "content": text_of(text), "timestamp": ts}] if text else []
    if kind not in ("user", "assistant"):
        return None
    if record.get("isMeta"):
        return []
    message = record.get("message")
    if not isinstance(message, dict):
        raise ValueError(f"'message' is {type(message).__name__}, not an object")
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise ValueError(f"'message.content' is {type(content).__name__}, not text or blocks")
    if kind == "user" and record.get("isCompactSummary"):
        return [{"role": COMPACTION_ROLE, "content": text_of(content), "timestamp": ts}]
    if isinstance(content, str) and not record.get("isSidechain"):  # the plain message
        role, text = _user_text(content) if kind == "user" else (kind, content)
        return [{"role": role, "content": text, "timestamp": ts}]
    out = block_messages(kind, content, ts)
    if kind == "user":
        for m in out:
            if m["role"] == "user" and isinstance(m.get("content"), str):
                m["role"], m["content"] = _user_text(m["content"])
    if record.get("isSidechain"):
        if not options.subagents:
            return []
        for m in out:  # a subagent's work: shown, but not the main agent's calls
            m.pop("tool_calls", None)
            text = text_of(m.get("content")) or ""
            if m.get("reasoning"):
                text = (m.pop("reasoning") + "\n" + text).strip()
            m["role"], m["content"] = SUBAGENT_ROLE, text
    return out


def _abandoned(records: list[tuple[bool, str, str | None]]) -> set[str]:
    """The uuids of abandoned branches: below a record of the live chain (the one that
    ends at the last record), on another child than the live one. Records whose
    chain leaves the file (a parent not in it) are not abandoned."""
    ups = [up for _, _, up in records if up is not None]
    if len(ups) == len(set(ups)):
        return set()  # no record has two children: there is no branch to abandon
    parent: dict[str, str | None] = {}
    children: dict[str, list[str]] = {}
    last: str | None = None
    for sidechain, uuid, up in records:  # (is a subagent's, uuid, parent uuid)
        if uuid in parent:
            continue  # a record seen twice counts where it first appears
        parent[uuid] = up
        if up is not None:
            children.setdefault(up, []).append(uuid)
        if not sidechain:
            last = uuid
    live: set[str] = set()
    node = last
    while node is not None and node not in live:
        live.add(node)
        node = parent.get(node)
    out: set[str] = set()
    stack = [c for n in live for c in children.get(n, ()) if c not in live]
    while stack:
        node = stack.pop()
        if node not in out:
            out.add(node)
            stack.extend(children.get(node, ()))
    return out


def read(path: Path, options: ReadOptions) -> Any:
    out = Collected(path, NAME, keep_messages=options.keep_messages)
    # Each record's messages are kept at once (the record itself is not); which belong to
    # abandoned branches is known only at the end, so the messages of each record with
    # a uuid remember where they start, and a rewind's are taken out then.
    chain: list[tuple[bool, str, str | None]] = []
    # per record read: (its first message, its first turn, its uuid)
    starts: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    add, turns, records = out.add, out.turns, 0  # bound once: this loop runs per record
    for line, rec in iter_objects(
        path,
        strict=options.strict,
        skipped=out.skipped,
        warnings=out.warnings,
        progress=options.progress,
    ):
        records += 1
        get = rec.get
        kind = get("type")
        if kind == "summary":
            if isinstance(get("summary"), str):
                out.notes.append(f"session: {rec['summary']}")
            continue
        uuid = get("uuid")
        sidechain = bool(get("isSidechain"))
        if uuid is not None:
            if not isinstance(uuid, str):
                uuid = None
            elif uuid in seen:
                continue  # a record seen twice (a resumed session) is read once
            else:
                seen.add(uuid)
                up = get("parentUuid") or get("logicalParentUuid")
                chain.append((sidechain, uuid, up if isinstance(up, str) else None))
        try:
            messages = _messages(rec, options, kind)
        except ValueError as e:
            out.fail(line, str(e), options)
            continue
        if messages is None:
            out.not_read[str(rec.get("type", "untyped"))] += 1
            continue
        # where this record's messages start, and the uuid it is dropped by (a subagent's
        # record is never dropped: its chain is its own)
        owner = uuid if uuid is not None and not sidechain else ""
        starts.append((out.added, len(turns), owner))
        for m in messages:
            add(line, m)
    out.records = records
    abandoned_ids = _abandoned(chain)
    if abandoned_ids:
        _drop_records(out, starts, abandoned_ids)
    return out.build(options)


def _drop_records(out: Collected, starts: list[tuple[int, int, str]], drop: set[str]) -> None:
    """Take what the records in `drop` gave out of `out` (after a rewind)."""
    bounds = [*starts, (out.added, len(out.turns), "")]
    gone = [
        (m0, m1, t0, t1)
        for (m0, t0, uuid), (m1, t1, _) in pairwise(bounds)
        if uuid and uuid in drop
    ]
    if gone:
        out.drop(gone)
        out.notes.append(f"{len(gone)} records of abandoned branches (after a rewind) left out")


def first_user_message(records: list[dict[str, Any]]) -> str:
    texts = []
    for rec in records:
        if rec.get("type") == "user" and not rec.get("isMeta") and not rec.get("isSidechain"):
            message = rec.get("message")
            if isinstance(message, dict):
                for m in block_messages("user", message.get("content"), None):
                    if m["role"] == "user":
                        role, text = _user_text(m["content"])
                        if role == "user" and not text.startswith("/"):
                            texts.append(text)
    return first_text(texts)


def session_title(records: list[dict[str, Any]]) -> str:
    for rec in records:
        if rec.get("type") == "summary" and isinstance(rec.get("summary"), str):
            return str(rec["summary"])
    return first_user_message(records)


__all__ = ["NAME", "SessionInfo", "block_messages", "looks_like", "read"]
