"""Parsing agent logs and markdown files into turns: the entry point.

`parse_turns(path)` and `parse_turns_md(path)` keep the seed's names and
behaviour (see docs/log-format.md); `load(path)` is the richer entry point: it
finds the input format from the content (`engine.read.formats`: the seed's JSONL,
Claude Code, Codex, OpenAI messages, ChatGPT exports, aider, markdown, any of
them gzip-compressed), streams the file, and reports every problem as
``path:line: reason`` instead of crashing. Lenient mode (the default) skips a
bad line and records it; strict mode raises `ParseError` at the first one.
The pieces live in `engine.read.source`, which this module re-exports.
"""

from __future__ import annotations

from pathlib import Path

import chunkscope.engine.read.formats as readers
from chunkscope.engine.model import Progress
from chunkscope.engine.read.source import (
    _DETAIL,
    _EPOCH_MS,
    _SURROGATE,
    _SURROGATE_ESCAPE,
    DOC_ROLE,
    FENCE,
    GZIP_MAGIC,
    HEADING,
    JSONL_SUFFIXES,
    MARKDOWN_SUFFIXES,
    PROGRESS_LINES,
    ROLE_NAMES,
    THINKING_ROLE,
    Kind,
    Message,
    Problem,
    Source,
    _check_regular_file,
    _decode,
    _from_epoch,
    _iter_lines,
    _open_binary,
    _raw_position,
    _without_surrogates,
    calls_text,
    content_text,
    decode_message,
    decode_object,
    iter_messages,
    iter_records,
    load_jsonl,
    load_markdown,
    markdown_sections,
    message_turns,
    parse_timestamp,
    parse_turns,
    parse_turns_md,
    reason_kind,
    replace_lone_surrogates,
    require_turns,
    skipped_summary,
)

__all__ = [
    "DOC_ROLE",
    "FENCE",
    "GZIP_MAGIC",
    "HEADING",
    "JSONL_SUFFIXES",
    "MARKDOWN_SUFFIXES",
    "PROGRESS_LINES",
    "ROLE_NAMES",
    "THINKING_ROLE",
    "_DETAIL",
    "_EPOCH_MS",
    "_SURROGATE",
    "_SURROGATE_ESCAPE",
    "Kind",
    "Message",
    "Problem",
    "Source",
    "_check_regular_file",
    "_decode",
    "_from_epoch",
    "_iter_lines",
    "_open_binary",
    "_raw_position",
    "_without_surrogates",
    "calls_text",
    "content_text",
    "decode_message",
    "decode_object",
    "detect_format",
    "iter_messages",
    "iter_records",
    "load",
    "load_jsonl",
    "load_markdown",
    "markdown_sections",
    "message_turns",
    "parse_timestamp",
    "parse_turns",
    "parse_turns_md",
    "reason_kind",
    "replace_lone_surrogates",
    "require_turns",
    "skipped_summary",
]


def detect_format(path: str | Path) -> Kind:
    """Whether `path` is read as a log ("jsonl") or a document ("markdown"), from the
    format `engine.read.formats.sniff` finds in its content."""
    return "markdown" if readers.READERS[readers.sniff(path)].kind == "markdown" else "jsonl"


def load(
    path: str | Path,
    *,
    strict: bool = False,
    kind: Kind | None = None,
    keep_messages: bool = True,
    progress: Progress | None = None,
    input_format: str | None = None,
    session: int | None = None,
    seed_headings: bool = False,
) -> Source:
    """Parse a log or document of any input format (`engine.read.formats`), found from its
    content unless `input_format` (or `kind`: "jsonl" for the seed's log, "markdown")
    says which.

    `keep_messages=False` drops the raw message objects (only the tool-call
    collapsing of the recap needs them), which halves the memory of a large log.
    ``progress(bytes read, file size)`` is called as the file is read; it may
    raise to stop the parse. `session` picks one of a file holding several.
    `seed_headings`: a document's sections open at ATX headings only, as the seed's
    parser did (`engine.read.formats.ReadOptions.seed_headings`).
    """
    if input_format is None and kind is not None:
        input_format = readers.MARKDOWN if kind == "markdown" else readers.SEED
    options = readers.ReadOptions(
        strict, keep_messages, progress, session, seed_headings=seed_headings
    )
    return readers.read(path, input_format, options)
