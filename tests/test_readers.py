"""Input formats (`engine.readers`): each format sniffed and read, tool calls collapsed,
nothing encrypted shown, rewinds and duplicates handled, hostile input reported."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.collapse import collapse_messages
from engine.errors import ParseError, SourceError
from engine.parse import load
from engine.readers import READERS, UnsupportedFormat, list_input_formats, sniff
from engine.readers.folders import latest, list_sessions, sessions_in
from tests.data.make_reader_fixtures import (
    ANSWER,
    REWIND_ASK,
    THINK,
    USER_ASK,
    claude_records,
    make_fixtures,
)
from tui.cli import main


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_fixtures(tmp_path_factory.mktemp("readers"))


EXPECTED = {
    "claude-code": "claude-code",
    "codex": "codex",
    "codex-legacy": "codex",
    "seed-jsonl": "seed-jsonl",
    "openai-messages": "openai-messages",
    "trajectory": "openai-messages",
    "chatgpt-export": "chatgpt-export",
    "aider": "aider",
    "gzip": "claude-code",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_format_is_sniffed_and_read_without_a_skipped_line(
    fx: dict[str, Path], name: str
) -> None:
    path = fx[name]
    assert sniff(path) == EXPECTED[name]
    source = load(path, strict=True)
    assert source.format == EXPECTED[name] and source.skipped == []
    roles = {t.role for t in source.turns}
    assert "You" in roles and "Bot" in roles
    texts = [t.text for t in source.turns]
    assert any(USER_ASK in t for t in texts)
    assert any(ANSWER in t for t in texts) or name == "aider"
    assert all(t.source_line is not None and t.source_line >= 1 for t in source.turns)
    joined = "\n".join(texts)
    assert "ENCRYPTED" not in joined and "ABANDONED" not in joined and "Caveat:" not in joined
    if name not in ("aider",):
        assert any(t.role == "Bot thinking" and THINK in t.text for t in source.turns)


@pytest.mark.parametrize("name", ["claude-code", "codex", "openai-messages", "gzip"])
def test_tool_calls_collapse_to_one_sentence_each(fx: dict[str, Path], name: str) -> None:
    turns = collapse_messages(load(fx[name]).messages)
    tools = [t.text for t in turns if t.role == "Tool"]
    assert any(
        t.startswith(("Read engine/cache.py", "Ran `cat engine/cache.py` (exit 0).")) for t in tools
    )
    if name in ("claude-code", "gzip"):
        assert tools == [
            "Read engine/cache.py (2 lines).",
            "Edited engine/cache.py.",
            "Ran `pytest -q tests/test_cache.py` (exit 1).",
            "Delegated to a general-purpose subagent: 'Check other callers'. "
            "Result: 'Only engine/embed.py calls it.'.",
            "Updated the todo list (2 items, 1 done).",
            'Called create_issue on github({"title":"cache key"}).',
        ]
    if name == "codex":
        assert tools == [
            "Ran `cat engine/cache.py` (exit 0).",
            "Edited engine/cache.py.",
            "Ran `pytest -q tests/test_cache.py` (exit 1).",
            "Updated the plan (1 item, 1 done).",
        ]


def test_claude_code_rewind_subagents_and_notes(fx: dict[str, Path]) -> None:
    source = load(fx["claude-code"])
    assert source.not_read == {
        "records abandoned by a rewind": 1,
        "file-history snapshots": 1,
        "local-command caveats": 1,
    }
    assert source.stripped == {"encrypted reasoning blocks": 1}
    assert any(t.role == "You" and t.text == REWIND_ASK for t in source.turns)
    assert "session: Fix the cache round-trip test" in source.notes
    assert [t.role for t in source.turns].count("Subagent") == 2
    assert any(t.role == "compaction" for t in source.turns)
    assert source.turns[0].text == "/clear"  # a slash command, not its XML
    lines = [t.source_line for t in source.turns]
    assert lines == sorted(lines)


def test_claude_code_without_subagents(fx: dict[str, Path]) -> None:
    from engine.readers import ReadOptions, read

    source = read(fx["claude-code"], options=ReadOptions(subagents=False))
    assert "Subagent" not in {t.role for t in source.turns}


def test_a_record_seen_twice_is_read_once(tmp_path: Path) -> None:
    records = claude_records()
    path = tmp_path / "resumed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records + records[3:6]))
    once = tmp_path / "once.jsonl"
    once.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert [t.text for t in load(path).turns] == [t.text for t in load(once).turns]


def test_codex_events_repeating_items_are_not_read_twice(fx: dict[str, Path]) -> None:
    texts = [t.text for t in load(fx["codex"]).turns]
    assert texts.count(USER_ASK) == 1 and texts.count(ANSWER) == 1
    assert not any("environment_context" in t for t in texts)


def test_chatgpt_sessions_and_branches(fx: dict[str, Path]) -> None:
    sessions = sessions_in(fx["chatgpt-export"])
    assert [(s.index, s.title) for s in sessions] == [(1, "Cache test"), (0, "Tide pools")]
    newest = load(fx["chatgpt-export"])
    assert any("Cache test" in n for n in newest.notes)
    assert not any("ABANDONED" in t.text for t in newest.turns)  # the regenerated branch
    older = load(fx["chatgpt-export"], session=0)
    assert [t.role for t in older.turns] == ["You", "Bot"]
    with pytest.raises(SourceError, match="no session 7"):
        load(fx["chatgpt-export"], session=7)


def test_json_documents_keep_the_line_each_message_starts_on(fx: dict[str, Path]) -> None:
    source = load(fx["openai-messages"])
    text = fx["openai-messages"].read_text().splitlines()
    for turn in source.turns:
        assert turn.source_line is not None
        assert text[turn.source_line - 1].strip() == "{"  # the object's opening line
    assert all(t.timestamp is None for t in source.turns)


def test_gzip_reads_the_same_as_the_plain_file(fx: dict[str, Path], tmp_path: Path) -> None:
    for name in ("codex", "openai-messages", "aider"):
        packed = tmp_path / (fx[name].name + ".gz")
        packed.write_bytes(gzip.compress(fx[name].read_bytes()))
        assert [t.text for t in load(packed).turns] == [t.text for t in load(fx[name]).turns]


def test_a_folder_lists_sessions_newest_first(fx: dict[str, Path]) -> None:
    import os

    root = fx["claude-code"].parent.parent
    os.utime(fx["codex"], (2_000_000_000, 2_000_000_000))
    sessions = list_sessions(root)
    assert sessions[0].path == str(fx["codex"]) and sessions[0].format == "codex"
    assert sessions[0].title.startswith("The test test_cache_roundtrip fails")
    formats = {s.format for s in sessions}
    assert {"claude-code", "codex", "chatgpt-export", "aider", "openai-messages"} <= formats
    assert latest(root).path == str(fx["codex"])
    modified = [s.modified for s in sessions]
    assert modified == sorted(modified, reverse=True)


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"PK\x03\x04" + bytes(60), "a zip archive"),
        (b"SQLite format 3\x00" + bytes(60), "a SQLite database"),
        (json.dumps({"cells": [], "nbformat": 4}).encode(), "a Jupyter notebook"),
        (json.dumps({"answer": 42}).encode(), "of no format chunkscope reads"),
    ],
)
def test_known_but_unread_kinds_are_refused_by_name(
    tmp_path: Path, content: bytes, what: str
) -> None:
    path = tmp_path / "thing.json"
    path.write_bytes(content)
    with pytest.raises(UnsupportedFormat, match=what):
        load(path)


def test_hostile_claude_lines(tmp_path: Path) -> None:
    records = claude_records()
    bad = dict(records[3])
    bad["message"] = {"role": "user", "content": 42}  # content of the wrong type
    orphan = dict(records[6])
    orphan["uuid"] = "u5b"
    orphan["message"] = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_unknown", "content": "x"}],
    }
    huge = dict(records[6])
    huge["message"] = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "y" * 20_000_000}],
    }
    lines = [json.dumps(r) for r in records[:3]] + [json.dumps(bad), json.dumps(orphan)]
    lines += [json.dumps(huge)]
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n")
    source = load(path)
    assert [p.line for p in source.skipped] == [4]
    assert "'message.content' is int" in source.skipped[0].reason
    assert max(len(t.text) for t in source.turns) == 20_000_000
    collapse_messages(source.messages)  # the orphan result is dropped, nothing raised
    with pytest.raises(ParseError) as info:
        load(path, strict=True)
    assert info.value.line == 4


_records = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system", "summary", "odd"])},
    optional={
        "uuid": st.text(max_size=3),
        "parentUuid": st.none() | st.text(max_size=3),
        "isSidechain": st.booleans(),
        "isMeta": st.booleans(),
        "timestamp": st.none() | st.integers() | st.text(max_size=12),
        "message": st.none()
        | st.integers()
        | st.fixed_dictionaries(
            {},
            optional={
                "content": st.none()
                | st.text(max_size=20)
                | st.lists(
                    st.fixed_dictionaries(
                        {
                            "type": st.sampled_from(
                                ["text", "thinking", "tool_use", "tool_result", "image", "x"]
                            )
                        },
                        optional={
                            "text": st.text(max_size=10) | st.integers(),
                            "id": st.text(max_size=3),
                            "tool_use_id": st.text(max_size=3),
                            "name": st.text(max_size=5),
                            "input": st.dictionaries(
                                st.text(max_size=3), st.integers(), max_size=2
                            ),
                            "content": st.text(max_size=10) | st.lists(st.integers(), max_size=2),
                        },
                    ),
                    max_size=3,
                )
            },
        ),
    },
)
_codex = st.fixed_dictionaries(
    {"type": st.sampled_from(["response_item", "event_msg", "compacted", "session_meta", "x"])},
    optional={
        "timestamp": st.none() | st.text(max_size=12),
        "payload": st.none()
        | st.integers()
        | st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    [
                        "message",
                        "reasoning",
                        "function_call",
                        "function_call_output",
                        "local_shell_call",
                        "web_search_call",
                        "y",
                    ]
                )
            },
            optional={
                "role": st.sampled_from(["user", "assistant", "developer"]),
                "content": st.none()
                | st.text(max_size=10)
                | st.lists(st.dictionaries(st.sampled_from(["type", "text"]), st.text(max_size=5))),
                "summary": st.lists(
                    st.dictionaries(st.sampled_from(["type", "text"]), st.text(max_size=5)),
                    max_size=2,
                ),
                "arguments": st.text(max_size=20),
                "output": st.text(max_size=20) | st.integers(),
                "call_id": st.text(max_size=3),
                "name": st.text(max_size=5),
                "action": st.none()
                | st.dictionaries(st.sampled_from(["command", "query"]), st.text(max_size=5)),
            },
        ),
    },
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(_records | _codex, min_size=1, max_size=12),
    first=st.sampled_from(
        [claude_records()[3], {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}]
    ),
)
def test_any_records_read_leniently_with_their_lines(
    tmp_path: Path, records: list[dict[str, Any]], first: dict[str, Any]
) -> None:
    path = tmp_path / "any.jsonl"
    lines = [json.dumps(first)] + [json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n")
    source = load(path)
    assert source.format in READERS
    assert all(1 <= t.source_line <= len(lines) for t in source.turns if t.source_line)
    assert all(1 <= p.line <= len(lines) for p in source.skipped)
    collapse_messages(source.messages)
    try:
        load(path, strict=True)
    except ParseError as e:
        assert str(e).startswith(f"{path}:") and "\n" not in str(e)


def test_the_command_line_reads_every_format(
    fx: dict[str, Path], capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    for name in ("claude-code", "codex", "chatgpt-export", "aider", "trajectory"):
        assert main(["recap", str(fx[name])]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.strip()
    assert main(["chunk", str(fx["codex"]), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["kind"], doc["format"]) == ("jsonl", "codex")
    assert main(["recap", str(fx["claude-code"].parent), "--latest"]) == 0
    assert "the newest session: " in capsys.readouterr().err
    assert main(["chunk", str(fx["codex"]), "--input-format", "openai-messages"]) == 2
    with pytest.raises(SystemExit):
        main(["chunk", "--list-input-formats"])
    out = capsys.readouterr().out
    assert out == list_input_formats() and all(name in out for name in READERS)
