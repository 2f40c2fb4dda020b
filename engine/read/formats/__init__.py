"""Input formats: one module per format behind one registry, chosen by the content.

`READERS` maps each format's name (``--input-format``) to its `Reader`; `sniff`
decides the format of a file from its first bytes (gzip-compressed files are looked
into), whatever its name; `read` reads a file as the format given or sniffed. A file
of a kind chunkscope recognises but does not read (a zip archive, a SQLite database,
a Jupyter notebook, ...) is refused by name, not read line by line as malformed.

See `engine.read.formats.base` for the shape every log reader produces.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import chunkscope.engine.read.formats.aider as aider
import chunkscope.engine.read.formats.claude as claude
import chunkscope.engine.read.formats.codex as codex
import chunkscope.engine.read.formats.documents as documents
import chunkscope.engine.read.formats.gemini as gemini
import chunkscope.engine.read.formats.gemini_stream as gemini_stream
from chunkscope.engine.errors import NotText, ParseError, SourceError
from chunkscope.engine.model import gc_paused
from chunkscope.engine.read.formats.base import Reader, ReadOptions, SessionInfo
from chunkscope.engine.read.source import (
    GZIP_MAGIC,
    HEAD_BYTES,
    JSONL_SUFFIXES,
    MARKDOWN_SUFFIXES,
    Source,
    _check_regular_file,
    broken_document,
    check_not_blank,
    check_text,
    file_kind,
    file_reason,
    head_reason,
    head_text,
    load_jsonl,
    load_markdown,
    read_head,
)

__all__ = [
    "ALIASES",
    "READERS",
    "ReadOptions",
    "Reader",
    "SessionInfo",
    "UnsupportedFormat",
    "format_choices",
    "format_named",
    "list_input_formats",
    "read",
    "sniff",
]

SEED = "seed-jsonl"
MARKDOWN = "markdown"
#: How much of a file `sniff` looks at (decompressed).
SNIFF_BYTES = HEAD_BYTES


class UnsupportedFormat(SourceError):
    """A file of a kind chunkscope recognises but does not read."""


def _seed(path: Path, o: ReadOptions) -> Source:
    try:
        source = load_jsonl(
            path,
            strict=o.strict,
            keep_messages=o.keep_messages,
            progress=o.progress,
            show_calls=True,
        )
    except ParseError:
        # --strict on a JSON document that does not parse (a Gemini chat cut short, read
        # as JSON lines): where the document breaks, as read leniently, not its first
        # line's ``{`` as a malformed JSON line (walk 56, F7)
        broken = broken_document(path)
        if broken is not None:
            raise broken from None
        raise
    source.format = SEED
    return source


def _markdown(path: Path, o: ReadOptions) -> Source:
    source = load_markdown(path, o.progress, name_turn=False, seed_headings=o.seed_headings)
    source.format = MARKDOWN
    return source


READERS: dict[str, Reader] = {
    r.name: r
    for r in (
        Reader(
            SEED,
            "the seed's agent log: one message a line (role, content, reasoning, tool_calls)",
            '{"role": "user", "content": "Fix the cache", "timestamp": "2026-02-13T11:25:17"}',
            _seed,
        ),
        Reader(
            claude.NAME,
            "Claude Code session (~/.claude/projects/<project>/<session>.jsonl)",
            '{"type": "user", "uuid": "a1", "parentUuid": null, "sessionId": "s", '
            '"timestamp": "2025-07-01T10:00:00Z", '
            '"message": {"role": "user", "content": "Fix the failing test"}}',
            claude.read,
        ),
        Reader(
            codex.NAME,
            "OpenAI Codex CLI rollout (~/.codex/sessions/.../rollout-*.jsonl), or an older "
            "Codex log of bare items",
            '{"timestamp": "2025-09-01T10:00:00Z", "type": "response_item", "payload": '
            '{"type": "message", "role": "user", "content": [{"type": "input_text", '
            '"text": "fix the bug"}]}}',
            codex.read,
        ),
        Reader(
            gemini.NAME,
            "Gemini CLI chat (~/.gemini/tmp/<project hash>/chats/session-*.json): one JSON "
            "document, or JSON lines",
            '{"sessionId": "s", "projectHash": "9f2c", "startTime": "2025-10-18T14:57:28Z", '
            '"messages": [{"id": "m1", "timestamp": "2025-10-18T14:57:28Z", "type": "user", '
            '"content": "List the files"}, {"type": "gemini", "content": "", "thoughts": '
            '[{"subject": "Listing", "description": "..."}], "toolCalls": [{"name": '
            '"list_directory", "args": {"path": "."}, "result": [...]}]}]}',
            gemini.read,
            container="json",  # or jsonl, as the reader finds it
        ),
        Reader(
            gemini_stream.NAME,
            "Gemini CLI headless output (gemini -p ... --output-format stream-json, saved): "
            "one event a line, the answer's streamed pieces read as one message",
            '{"type": "message", "timestamp": "2026-01-30T06:26:16.149Z", "role": '
            '"assistant", "content": "I fixed the build", "delta": true}  /  {"type": '
            '"tool_use", "tool_name": "run_shell_command", "tool_id": "t1", "parameters": '
            '{"command": "npm run build"}}',
            gemini_stream.read,
            label=gemini_stream.LABEL,
            aliases=gemini_stream.ALIASES,
        ),
        Reader(
            documents.MESSAGES,
            'OpenAI chat messages as one JSON document: a list, {"messages": [...]} (a '
            'mini-swe-agent trajectory too, its "exit" the session\'s end) or {"history": '
            "[...]} (SWE-agent)",
            '[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]',
            documents.read_messages,
            container="json",
            aliases=(documents.MINI_SWE_AGENT, documents.SWE_AGENT.lower()),
        ),
        Reader(
            documents.CHATGPT,
            "ChatGPT data export (conversations.json); each conversation is a session",
            '[{"title": "Tide pools", "current_node": "n2", "mapping": {"n1": {"message": '
            '{"author": {"role": "user"}, "content": {"content_type": "text", "parts": '
            '["Hi"]}}, "parent": null, "children": ["n2"]}, ...}}]',
            documents.read_chatgpt,
            sessions=documents.chatgpt_sessions,
            container="json",
        ),
        Reader(
            aider.NAME,
            "aider chat history (.aider.chat.history.md)",
            "# aider chat started at 2024-05-01 10:00:00  /  #### fix the test  /  > Applied "
            "edit to src/test.py",
            aider.read,
            container="markdown",
            label="aider chat history",
        ),
        Reader(
            MARKDOWN,
            "a markdown or reStructuredText document (any other text): one Doc turn per "
            "section, opened at ATX, setext, reStructuredText and HTML headings",
            "# Caching\\n\\nThe cache keeps ...",
            _markdown,
            kind="markdown",
            container="markdown",
        ),
    )
}

#: Every other name of a format (`Reader.aliases`): the format it stands for.
ALIASES: dict[str, str] = {a: r.name for r in READERS.values() for a in r.aliases}


def format_choices() -> str:
    """The names ``--input-format`` takes, each format's aliases beside it:
    ``seed-jsonl, ..., openai-messages (or mini-swe-agent, swe-agent), ...``."""
    return ", ".join(
        f"{r.name} (or {', '.join(r.aliases)})" if r.aliases else r.name for r in READERS.values()
    )


def format_named(name: str) -> str:
    """The format `name` reads a file as: a format's name, or an alias of one (any case);
    ValueError naming the choices when it is neither."""
    key = name.strip().lower()
    if key in READERS:
        return key
    if key in ALIASES:
        return ALIASES[key]
    raise ValueError(f"unknown input format {name!r} (choose from {format_choices()})")


#: File name endings the pickers offer (a gzip-compressed file of any of them too): the
#: documents of docs/input-formats.md, reStructuredText and text too (walk 19, 7).
SUFFIXES = (".jsonl", ".ndjson", ".json", ".md", ".markdown", ".rst", ".txt")


#: A real (or bundled) file of each format, relative to the repository: shown by
#: --list-input-formats when present (a checkout; an installed package has none).
EXAMPLE_FILES = {
    SEED: "sample_logs/cache_refactor.jsonl",
    claude.NAME: "tests/fixtures/claude-code/coverage-test-fix.jsonl",
    codex.NAME: "tests/fixtures/codex/homelab-migration.jsonl",
    gemini.NAME: "tests/fixtures/gemini-cli/agent-history-session-01.json",
    gemini_stream.NAME: "tests/fixtures/gemini-cli/walk71-stream-json.jsonl",
    documents.MESSAGES: "tests/fixtures/mini-swe-agent/pydicom-901.traj.json",
    aider.NAME: "tests/fixtures/aider/metadata-aider.aider.chat.history.md",
    MARKDOWN: "sample_logs/architecture_guide.md",
}
_ROOT = Path(__file__).resolve().parent.parent.parent.parent


def list_input_formats() -> str:
    """Every input format with its description, an example and, in a checkout, an
    example file (for --list-input-formats)."""
    lines = []
    for r in READERS.values():
        also = f" (also named {', '.join(r.aliases)})" if r.aliases else ""
        lines.append(f"{r.name}: {r.description}{also}")
        lines.append(f"    {r.example}")
        example = EXAMPLE_FILES.get(r.name)
        if example and (_ROOT / example).is_file():
            lines.append(f"    example file: {_ROOT / example}")
    lines.append("Any of them gzip-compressed (.gz) is read as well.")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- sniffing


def _head(path: Path) -> bytes:
    return read_head(path, SNIFF_BYTES)


def _json_records(lines: list[str]) -> list[dict[str, Any]]:
    """The complete JSON objects among the first lines (a JSONL file's first records)."""
    out = []
    for line in lines[:50]:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def sniff(path: str | Path) -> str:
    """The input format of `path`, from its content.

    The name narrows the choice: a ``.md`` / ``.markdown`` file is aider's history or
    markdown, a ``.jsonl`` / ``.ndjson`` file one of the JSONL logs (the seed's when
    no line decodes, so its reader reports every malformed line); any other name
    (``.json``, none) is decided by the content alone. ``.gz`` is looked through.
    Well-formed JSON of no format read is `UnsupportedFormat`, saying which readers
    were tried and why each refused.
    """
    p = Path(path)
    _check_regular_file(p)
    head = _head(p)
    what = file_kind(head)
    if what is not None:  # (inside a gzip file: said so, walk 27, F1)
        said = file_reason(p, head, f"looks like {what}, which chunkscope does not read")
        raise UnsupportedFormat(p, said or what)
    reason = file_reason(p, head, head_reason(head))
    if reason is not None:
        raise NotText(p, reason)
    name = p.name.lower().removesuffix(".gz")
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    text = head_text(head)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first = lines[0].strip() if lines else ""
    if suffix in MARKDOWN_SUFFIXES or name.endswith(".aider.chat.history.md"):
        return aider.NAME if aider.looks_like(first) else MARKDOWN
    records = _json_records(lines)
    if suffix in JSONL_SUFFIXES:
        if len(records) == len(lines) == 1 and documents.kind_of(records[0]) is not None:
            return _document_format(p, first)  # one JSON document on one line
        return _jsonl_format(p, records)
    if len(records) == len(lines) == 1 and suffix == ".json":
        return _document_format(p, first)  # a .json file of one line: one document
    if not lines:
        return MARKDOWN
    if aider.looks_like(first):
        return aider.NAME
    if not first.startswith(("{", "[")):
        return MARKDOWN
    if first.startswith("{") and records and _is_jsonl(lines, records):
        return _jsonl_format(p, records)
    return _document_format(p, first)


def _is_jsonl(lines: list[str], records: list[dict[str, Any]]) -> bool:
    """One object a line (not a JSON document that merely starts with a whole object):
    the first line is a whole object, and so is the next one (if any)."""
    try:
        head = json.loads(lines[0])
    except (ValueError, RecursionError):
        return False
    complete = len(records)
    return isinstance(head, dict) and (complete >= min(2, len(lines)))


#: What each JSON-lines reader needs, said when none takes a file.
_JSONL_NEEDS = (
    (SEED, "no record has a 'role'"),
    (claude.NAME, "no record has 'type' user / assistant, 'uuid' or 'sessionId'"),
    (codex.NAME, "no 'type' + 'payload' record, no bare item"),
    (gemini.NAME, "no 'sessionId' + 'projectHash', no 'type' gemini"),
    (
        gemini_stream.NAME,
        "no 'type' message, tool_use or init",
    ),
)


def _key_list(keys: Iterable[Any]) -> str:
    """The first six keys, sorted, cut at 40 characters; a key that is not plain
    printable text is shown as a JSON string: a key is data from the file, and the
    message it goes into stays on one line."""
    return ", ".join(
        (k if k.isprintable() and "," not in k else json.dumps(k))[:40]
        for k in sorted(map(str, keys))[:6]
    )


def _jsonl_format(path: Path, records: list[dict[str, Any]]) -> str:
    """The JSON-lines format most of the first records are of; the seed's when none
    decodes (its reader then reports each line); `UnsupportedFormat` naming each reader
    tried and why it refused when whole objects are there but of no format read."""
    votes = {gemini.NAME: 0, claude.NAME: 0, gemini_stream.NAME: 0, codex.NAME: 0, SEED: 0}
    for rec in records:
        if gemini.looks_like(rec):
            votes[gemini.NAME] += 1
        elif claude.looks_like(rec):
            votes[claude.NAME] += 1
        elif gemini_stream.looks_like(rec):  # (before Codex's: its bare items have a type)
            votes[gemini_stream.NAME] += 1
        elif codex.looks_like_rollout(rec) or codex.looks_like_legacy(rec):
            votes[codex.NAME] += 1
        elif "role" in rec:
            votes[SEED] += 1
    best = max(votes, key=lambda k: votes[k])
    if votes[best]:
        return best
    if not records:
        return SEED
    keys = _key_list({k for rec in records[:5] for k in rec})
    raise UnsupportedFormat(
        path,
        f"JSON lines of no format chunkscope reads (first records' keys: "
        f"{keys or 'none'}); tried "
        + "; ".join(f"{name}: {why}" for name, why in _JSONL_NEEDS)
        + " (see --list-input-formats)",
    )


def _document_format(path: Path, first: str) -> str:
    try:
        data = path.read_bytes() if not _compressed(path) else _gunzip(path)
        # (NUL padding after the document, as a crash leaves it, is no part of it:
        # walk 30, F3; the reader warns of it)
        value = json.loads(data.rstrip(b"\0"))
    except (ValueError, RecursionError):
        # Not one JSON document either: read as JSONL, whose reader reports each line.
        return SEED
    if isinstance(value, dict) and "cells" in value and "nbformat" in value:
        raise UnsupportedFormat(
            path, "looks like a Jupyter notebook, which chunkscope does not read"
        )
    kind = documents.kind_of(value)
    if kind is None:
        if isinstance(value, dict):
            keys = _key_list(value)
            shape = f"an object with keys {keys}" if keys else "an empty object"
        else:
            shape = "a list" if isinstance(value, list) else type(value).__name__
        raise UnsupportedFormat(
            path,
            f"a JSON document ({shape}) of no format chunkscope reads; tried "
            + "; ".join(documents.refusals(value))
            + " (see --list-input-formats)",
        )
    return kind


def _compressed(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def _gunzip(path: Path) -> bytes:
    import zlib

    from chunkscope.engine.read.source import gunzip_readable

    try:
        return gunzip_readable(path.read_bytes())
    except (OSError, zlib.error) as e:
        raise SourceError(path, f"cannot decompress: {e}") from None


# --------------------------------------------------------------------------- reading


def source_kind(path: str | Path, input_format: str | None = None) -> str:
    """The kind of source (`Reader.kind`: "jsonl" for a log, "markdown") `read` makes of
    `path`, as `input_format` or as sniffed; the errors `read` raises before it reads."""
    try:
        name = format_named(input_format) if input_format is not None else sniff(path)
    except ValueError as e:
        raise SourceError(Path(path), str(e)) from None
    return READERS[name].kind


def _nothing_matched(path: Path, name: str) -> None:
    """`SourceError` for a file that is not blank but gave nothing read as the format
    `name` it was told to be read as, naming the format it looks like (walk 16, 14d);
    a blank file, or one that looks like `name`, is `require_turns`' to refuse."""
    check_not_blank(path)
    looks = sniff(path)
    if looks != name:
        raise SourceError(
            path,
            f"no turns: read as {name} (--input-format), nothing in it matched; it looks "
            f"like {looks}: leave --input-format out, or give --input-format {looks}",
        )


def read(
    path: str | Path, input_format: str | None = None, options: ReadOptions | None = None
) -> Source:
    """Read `path` as `input_format` (a name of `READERS`), or as the format sniffed."""
    p = Path(path)
    options = options or ReadOptions()
    if input_format is not None:
        try:
            input_format = format_named(input_format)
        except ValueError as e:
            raise SourceError(p, str(e)) from None
        check_text(p)  # sniffing checks it otherwise
    name = input_format or sniff(p)
    # Readers build many acyclic objects (decoded records, messages, turns): the cyclic
    # collector is paused for all of them, as the seed's reader always did.
    with gc_paused():
        reader = READERS[name]
        if reader.sessions is None and options.session not in (None, 0):
            # a file of one session: any other index is refused as a file of several
            # refuses one it does not hold, never read as the whole file without a word
            raise SourceError(p, f"no session {options.session} (the file holds 1: 0..0)")
        source = reader.read(p, options)
    if input_format is not None and not source.turns and not source.skipped:
        _nothing_matched(p, name)
    source.format = name
    source.container = source.container or reader.container
    source.label = source.label or reader.label
    return source
