"""Input formats (`engine.read.formats`): each format sniffed and read, tool calls collapsed,
nothing encrypted shown, rewinds and duplicates handled, hostile input reported."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.errors import ParseError, SourceError
from chunkscope.engine.read.formats import READERS, UnsupportedFormat, list_input_formats, sniff
from chunkscope.engine.read.formats.folders import latest, list_sessions, sessions_in
from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.collapse import collapse_messages
from chunkscope.tui.cli import main
from tests.data.make_reader_fixtures import (
    ANSWER,
    CACHE_PY,
    REWIND_ASK,
    THINK,
    USER_ASK,
    claude_records,
    make_fixtures,
)


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
        t.startswith(("Read engine/cache.py", "Ran `cat engine/cache.py` (exit 0):")) for t in tools
    )
    if name in ("claude-code", "gzip"):
        assert tools == [
            "Read engine/cache.py (2 lines).",
            "Edited engine/cache.py.",
            "Ran `pytest -q tests/test_cache.py` (exit 1): FAILED "
            "tests/test_cache.py::test_cache_roundtrip - assert 3 == 1; 1 failed",
            "Delegated to a general-purpose subagent: 'Check other callers'. "
            "Result: 'Only engine/embed.py calls it.'.",
            "Updated the todo list (2 items, 1 done).",
            'Called create_issue on github: title="cache key".',
        ]
    if name == "codex":
        assert tools == [
            "Ran `cat engine/cache.py` (exit 0): def cache_key(text): return sha1(text)",
            "Edited engine/cache.py.",
            "Ran `pytest -q tests/test_cache.py` (exit 1): 4 passed in 0.12s",
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
    from chunkscope.engine.read.formats import ReadOptions, read

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


def test_a_file_of_one_session_refuses_another_index(fx: dict[str, Path]) -> None:
    """Walk 11, 10: `--session 5` on a file that holds one session read the whole file
    without a word, where a file of several refuses an index it does not hold."""
    for name in ("codex", "claude-code", "aider", "seed-jsonl"):
        assert load(fx[name], session=0).turns
        for index in (5, -1):
            with pytest.raises(SourceError, match=rf"no session {index} \(the file holds 1"):
                load(fx[name], session=index)


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
    for path in root.rglob("*"):  # an old clone: every file equally old
        os.utime(path, (1_000_000_000, 1_000_000_000))
    sessions = list_sessions(root)
    # the dated sessions first, by their last time inside (the seed log's epoch answer
    # of 2026-02-13 is the newest), the undated ones after, by their file time
    assert sessions[0].path == str(fx["seed-jsonl"]) and sessions[0].timed_by == "file"
    assert sessions[0].title.startswith("The test test_cache_roundtrip fails")
    formats = {s.format for s in sessions}
    assert {"claude-code", "codex", "chatgpt-export", "aider", "openai-messages"} <= formats
    assert {"gemini-cli"} <= formats
    assert latest(root).path == str(fx["seed-jsonl"])
    assert {s.timed_by for s in sessions if s.format == "openai-messages"} == {"mtime"}
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
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == len(lines)
    collapse_messages(source.messages)
    try:
        load(path, strict=True)
    except ParseError as e:
        assert str(e).startswith(f"{path}:") and "\n" not in str(e)


def test_the_command_line_reads_every_format(
    fx: dict[str, Path], capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    for name in ("claude-code", "codex", "chatgpt-export", "aider", "trajectory", "gemini-cli"):
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


def test_the_format_the_header_names_can_be_passed_back(
    capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """The header says ``mini-swe-agent trajectory (json)``: ``--input-format
    mini-swe-agent`` reads the file as the reader that said so; an unknown name is one
    line listing every name, aliases beside their format, and exit 2."""
    traj = Path(__file__).parent / "fixtures" / "mini-swe-agent" / "pydicom-901.traj.json"
    assert main(["chunk", str(traj), "--format", "json"]) == 0
    sniffed = json.loads(capsys.readouterr().out)
    label = sniffed["format"]
    assert main(["chunk", str(traj)]) == 0
    header = capsys.readouterr().out.split("\n")[0]
    named = header.split(": ", 1)[1].split(" ")[0]
    assert named == "mini-swe-agent" and named not in READERS
    for name in (named, "SWE-agent", label):
        assert main(["chunk", str(traj), "--input-format", name, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out) == sniffed
    with pytest.raises(SystemExit) as e:
        main(["chunk", str(traj), "--input-format", "mini-swe"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unknown input format 'mini-swe'" in err
    assert "openai-messages (or mini-swe-agent, swe-agent)" in err
    with pytest.raises(SourceError, match="unknown input format 'nope'"):
        load(traj, input_format="nope")
    assert load(traj, input_format="mini-swe-agent").format == label


# --------------------------------------------------------------------------- the record tree


def _claude(uuid: str, parent: str | None, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s",
        "timestamp": "2025-07-01T10:00:00Z",
        "message": {"role": "assistant" if kind == "assistant" else "user", "content": content},
        **extra,
    }


def _use(call: str, name: str = "Read") -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": call, "name": name, "input": {"file_path": call}}]


def _result(call: str, text: str) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call, "content": text}]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_blank_assistant_message_gives_no_turn_but_is_read(tmp_path: Path) -> None:
    """Claude Code writes an assistant text block of "\\n\\n" between calls: no empty
    ``Bot:`` turn; the record still counts as read (every record accounted)."""
    path = _write(
        tmp_path / "blank.jsonl",
        [
            _claude("u", None, "user", "read it"),
            _claude("a", "u", "assistant", [{"type": "text", "text": "\n\n"}]),
            _claude("b", "a", "assistant", "  \n"),
            _claude("c", "b", "assistant", _use("ca")),
            _claude("r", "c", "user", _result("ca", "text")),
        ],
    )
    source = load(path)
    assert [t.role for t in source.turns] == ["You", "Bot", "Tool"]
    assert all(t.text.strip() for t in source.turns)
    assert source.records == 5 == source.read + sum(source.not_read.values()) + len(source.skipped)


def test_parallel_results_are_kept_in_call_order(tmp_path: Path) -> None:
    """Calls a, b, c made at once, one record each; their results written as they
    finished (c, a, b), each a child of its own call's record."""
    path = _write(
        tmp_path / "parallel.jsonl",
        [
            _claude("u", None, "user", "read three files"),
            _claude("a", "u", "assistant", _use("ca")),
            _claude("b", "a", "assistant", _use("cb")),
            _claude("c", "b", "assistant", _use("cc")),
            _claude("rc", "c", "user", _result("cc", "third")),
            _claude("ra", "a", "user", _result("ca", "first")),
            _claude("rb", "b", "user", _result("cb", "second")),
            _claude("z", "rc", "assistant", [{"type": "text", "text": "done"}]),
        ],
    )
    source = load(path)
    assert [t.text for t in source.turns if t.role == "Tool"] == ["first", "second", "third"]
    assert source.not_read == {} and source.read == 8
    assert [m["role"] for m in source.messages][-1] == "assistant"


def test_only_a_prompt_re_parented_is_a_rewind(tmp_path: Path) -> None:
    base = [
        _claude("u", None, "user", "fix it"),
        _claude("a", "u", "assistant", [{"type": "text", "text": "ABANDONED plan"}]),
    ]
    rewound = _write(
        tmp_path / "rewound.jsonl",
        [*base, _claude("u2", None, "user", "no, fix only the key")],
    )
    # the same shape, but what follows is the tool's own record, not a prompt: kept
    kept = _write(
        tmp_path / "kept.jsonl",
        [*base, _claude("m", "u", "user", "Stop hook feedback: run the tests", isMeta=True)],
    )
    edited = _write(
        tmp_path / "edited.jsonl",
        [
            _claude("r", None, "user", "start"),
            _claude("u", "r", "user", "fix it"),
            _claude("a", "u", "assistant", [{"type": "text", "text": "ABANDONED plan"}]),
            _claude("u2", "r", "user", "fix only the key"),
            _claude("a2", "u2", "assistant", [{"type": "text", "text": "ok"}]),
        ],
    )
    assert "ABANDONED plan" in [t.text for t in load(rewound).turns]  # two roots: no fork
    source = load(kept)
    assert "ABANDONED plan" in [t.text for t in source.turns]
    assert [t.role for t in source.turns][-1] == "Meta"
    source = load(edited)
    texts = [t.text for t in source.turns]
    assert "ABANDONED plan" not in texts and "fix it" not in texts and "ok" in texts
    assert source.not_read == {"records abandoned by a rewind": 2} and source.read == 3


def test_a_slash_command_or_memory_note_on_the_root_is_no_rewind(tmp_path: Path) -> None:
    """Claude Code hangs ``/export`` and a ``#`` memory note on the session's first record
    (kiliman/claude-transcript's test2.jsonl ends so): the conversation before them is
    read whole, not dropped as a rewound branch."""
    records = [
        _claude("r", None, "user", "Caveat: local commands", isMeta=True),
        _claude("u", "r", "user", "update the README"),
        _claude("a", "u", "assistant", [{"type": "text", "text": "README updated"}]),
        _claude(
            "m", "r", "user", "<user-memory-input>use conventional commits</user-memory-input>"
        ),
        _claude(
            "e",
            "r",
            "user",
            [
                {
                    "type": "text",
                    "text": "<command-name>/export</command-name>\n<command-args></command-args>",
                }
            ],
        ),
        _claude(
            "o", "e", "user", "<local-command-stdout>Conversation exported</local-command-stdout>"
        ),
    ]
    source = load(_write(tmp_path / "export.jsonl", records))
    texts = [t.text for t in source.turns]
    assert "update the README" in texts and "README updated" in texts
    assert "/export" in texts and texts[-1] == "Conversation exported"
    assert "records abandoned by a rewind" not in source.not_read
    # a message the user typed, hung on the same first record, still rewinds
    typed = [*records[:3], _claude("u2", "r", "user", "update the CHANGELOG instead")]
    source = load(_write(tmp_path / "typed.jsonl", typed))
    assert [t.text for t in source.turns if t.role == "You"] == ["update the CHANGELOG instead"]
    assert source.not_read["records abandoned by a rewind"] == 2


def test_meta_records_caveats_and_reminders(tmp_path: Path) -> None:
    caveat = (
        "Caveat: The messages below were generated by the user while running local "
        "commands. DO NOT respond to these messages."
    )
    path = _write(
        tmp_path / "meta.jsonl",
        [
            _claude("c", None, "user", caveat, isMeta=True),
            _claude("u", "c", "user", "<command-name>/review</command-name>"),
            _claude("b", "u", "user", "Review the diff for bugs.", isMeta=True),
            _claude("a", "b", "assistant", _use("t1")),
            _claude(
                "r",
                "a",
                "user",
                _result("t1", "line one\n<system-reminder>\nSECRET NUDGE\n</system-reminder>"),
            ),
        ],
    )
    source = load(path)
    assert [(t.role, t.text) for t in source.turns][:2] == [
        ("You", "/review"),
        ("Meta", "Review the diff for bugs."),
    ]
    assert [t.text for t in source.turns if t.role == "Tool"] == ["line one"]
    assert source.not_read == {"local-command caveats": 1}
    assert source.stripped == {"system-reminder blocks": 1}
    collapsed = collapse_messages(source.messages)
    assert "Meta" not in {t.role for t in collapsed}  # the collapse step hides them


def test_a_slash_commands_arguments_are_the_users_request(tmp_path: Path) -> None:
    """Claude Code writes a command's message, name and arguments on lines of their own:
    the arguments (the user's request to the command) were dropped, so the recap's Task
    was ``/handgemacht:create-beads`` alone (walk 7)."""
    args = "websearch how to set up credo\n\nMaybe there are igniter scripts?"
    path = _write(
        tmp_path / "command.jsonl",
        [
            _claude(
                "u",
                None,
                "user",
                "<command-message>create-beads</command-message>\n"
                "<command-name>/create-beads</command-name>\n"
                f"<command-args>{args}</command-args>",
            ),
            _claude(
                "v", "u", "user", "<command-args>b c</command-args><command-name>/x</command-name>"
            ),
        ],
    )
    texts = [t.text for t in load(path).turns]
    assert texts == [f"/create-beads {args}", "/x b c"]


# --------------------------------------------------------------------------- accounting


def _nonblank(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_record_is_accounted_for(fx: dict[str, Path], name: str) -> None:
    source = load(fx[name])
    if name in ("claude-code", "codex", "codex-legacy", "seed-jsonl"):
        assert source.records == _nonblank(fx[name])
    accounted = source.read + sum(source.not_read.values()) + len(source.skipped)
    assert accounted == source.records > 0


def test_the_json_says_what_was_not_read(
    fx: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", str(fx["claude-code"]), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["not_read"]["records abandoned by a rewind"] == 1
    assert doc["read"] + sum(doc["not_read"].values()) + len(doc["skipped_lines"]) == doc["records"]
    (line,) = [ln for ln in err.splitlines() if "not read:" in ln]
    assert "1 record abandoned by a rewind" in line and "1 encrypted reasoning block" in line


# --------------------------------------------------------------------------- Gemini CLI


@pytest.mark.parametrize("name", ["gemini-cli", "gemini-jsonl"])
def test_gemini_cli_sessions(fx: dict[str, Path], name: str) -> None:
    assert sniff(fx[name]) == "gemini-cli"
    source = load(fx[name], strict=True)
    roles = [t.role for t in source.turns]
    assert roles == ["You", "Bot thinking", "Bot", "Tool", "Tool", "error", "info", "Bot"]
    bot = source.turns[2].text
    assert bot.endswith(
        "the cache and run its test.\nread_file /srv/proj/engine/cache.py\n"
        "$ pytest -q tests/test_cache.py"
    )
    tools = [t.text for t in collapse_messages(source.messages) if t.role == "Tool"]
    assert tools == [
        "Read /srv/proj/engine/cache.py (2 lines).",
        "Ran `pytest -q tests/test_cache.py` (failed): "
        "FAILED tests/test_cache.py::test_cache_roundtrip - assert 3 == 1; 1 failed",
    ]
    if name == "gemini-jsonl":
        assert source.not_read == {
            "session metadata": 1,
            "session updates ($set)": 1,
            "earlier copies of a message": 1,
        }


def test_gemini_folders_work_with_latest_and_the_picker(fx: dict[str, Path]) -> None:
    root = fx["gemini-cli"].parents[3]  # .../gemini: tmp/<hash>/chats/
    found = list_sessions(root)
    assert {s.format for s in found} == {"gemini-cli"} and len(found) == 2
    assert all(s.title == USER_ASK for s in found)


# --------------------------------------------------------------------------- unknown shapes


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        (
            "chat.json",
            {"sessionId": "x", "turns": [{"kind": "q"}]},
            ["a JSON document (an object with keys sessionId, turns)", "gemini-cli: no 'messages'"],
        ),
        (
            "msgs.json",
            {"messages": [{"speaker": "a", "text": "hi"}]},
            ["openai-messages: its 'messages' items have no 'role'", "chatgpt-export: no"],
        ),
        ("events.jsonl", None, ["JSON lines of no format", "claude-code: no record has"]),
    ],
)
def test_an_unknown_shape_names_the_readers_tried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: Any, words: list[str]
) -> None:
    path = tmp_path / name
    if content is None:
        path.write_text("".join(json.dumps({"event": "tick", "n": i}) + "\n" for i in range(4)))
    else:
        path.write_text(json.dumps(content, indent=2))
    assert main(["chunk", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert "malformed" not in err and all(w in err for w in words), err


# --------------------------------------------------------------------------- --latest


def test_latest_is_the_newest_last_timestamp_whatever_the_mtimes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    import os

    tmp_path = tmp_path / "sessions"
    tmp_path.mkdir()

    def session(name: str, minute: int, mtime: float) -> Path:
        records = claude_records()[3:5]
        records[-1] = {**records[-1], "timestamp": f"2025-07-01T10:{minute:02d}:00Z"}
        path = _write(tmp_path / name, records)
        os.utime(path, (mtime, mtime))
        return path

    newest = session("b.jsonl", 50, 1_000_000)  # the oldest file
    session("a.jsonl", 10, 2_000_000)  # the newest file, an older session
    undated = tmp_path / "notes.jsonl"  # no timestamp inside: its mtime counts
    undated.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n")
    os.utime(undated, (1_500_000, 1_500_000))
    assert latest(tmp_path).path == str(newest)
    order = [(Path(s.path).name, s.timed_by) for s in list_sessions(tmp_path)]
    assert order == [("b.jsonl", "file"), ("a.jsonl", "file"), ("notes.jsonl", "mtime")]
    capsys.readouterr()
    assert main(["recap", str(tmp_path), "--latest"]) == 0
    assert f"the newest session: {newest} " in capsys.readouterr().err


def test_a_file_starting_with_a_bom_is_listed_by_its_first_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """Walk 13, 5: the picker and `--latest` read a file's first lines for its title
    without taking off a UTF-8 BOM, so its first record was skipped and the title was
    the next user message (`Turn 2: …`, `SECOND request later`); the readers take the
    BOM off and read turn 0."""
    import random

    from tests.hostile.make_corpus import CASES, SEED

    folder = tmp_path / "sessions"
    folder.mkdir()
    filename, generate, _what = CASES["bom_crlf"]
    corpus = folder / filename
    corpus.write_bytes(generate(random.Random(f"{SEED}:bom_crlf")))
    records = [
        _claude("u1", None, "user", "FIRST real request: cache the vectors"),
        _claude("a1", "u1", "assistant", "On it."),
        _claude("u2", "a1", "user", "SECOND request later"),
    ]
    claude = folder / "claude.jsonl"
    claude.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8-sig")
    doc = folder / "notes.md"
    doc.write_text("# Notes on the cache\n\nText.\n", encoding="utf-8-sig")
    assert corpus.read_bytes().startswith(b"\xef\xbb\xbf")
    assert claude.read_bytes().startswith(b"\xef\xbb\xbf")
    titles = {Path(s.path).name: (s.format, s.title) for s in list_sessions(folder)}
    assert titles == {
        "bom_crlf.jsonl": ("seed-jsonl", load(corpus).turns[0].text),
        "claude.jsonl": ("claude-code", "FIRST real request: cache the vectors"),
        "notes.md": ("markdown", "Notes on the cache"),
    }
    assert titles["bom_crlf.jsonl"][1].startswith("Turn 0: ")
    capsys.readouterr()
    for newest in (corpus, claude):  # by the times inside: the corpus's 2026, then 2025
        assert main(["recap", str(folder), "--latest"]) == 0
        title = titles[newest.name][1]
        assert f"the newest session: {newest} ({title})" in capsys.readouterr().err
        newest.unlink()


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30),
)
def test_a_bom_never_changes_a_listed_title(tmp_path: Path, first: str) -> None:
    """A session's listed title is its first user message, with or without a BOM before
    its first record."""
    from chunkscope.engine.read.formats.base import first_text
    from chunkscope.engine.read.formats.folders import file_session

    lines = [{"role": "user", "content": first}, {"role": "user", "content": "later"}]
    text = "".join(json.dumps(r) + "\n" for r in lines)
    titles = []
    for encoding in ("utf-8", "utf-8-sig"):
        path = tmp_path / f"{encoding}.jsonl"
        path.write_text(text, encoding=encoding)
        titles.append(file_session(path).title)
    assert titles[0] == titles[1] == (first_text([first]) or "later")


@settings(max_examples=40, deadline=None)
@given(
    order=st.permutations(range(4)).flatmap(
        lambda p: st.tuples(st.just(p), st.integers(1, 4), st.booleans())
    )
)
def test_any_fan_out_of_parallel_calls_keeps_every_result_in_call_order(
    order: tuple[list[int], int, bool],
) -> None:
    """n calls made at once (one record each, or one record with n blocks), their
    results written in any order, each under its own call's record (or the last)."""
    import tempfile

    perm, n, one_record = order
    done = [i for i in perm if i < n]
    records = [_claude("u", None, "user", "go")]
    if one_record:
        blocks = [b for i in range(n) for b in _use(f"c{i}")]
        records.append(_claude("a0", "u", "assistant", blocks))
        owner = ["a0"] * n
    else:
        owner = [f"a{i}" for i in range(n)]
        for i in range(n):
            records.append(_claude(f"a{i}", f"a{i - 1}" if i else "u", "assistant", _use(f"c{i}")))
    for i in done:
        records.append(_claude(f"r{i}", owner[i], "user", _result(f"c{i}", f"out {i}")))
    records.append(_claude("z", f"r{done[-1]}", "user", "thanks"))
    with tempfile.TemporaryDirectory() as d:
        source = load(_write(Path(d) / "fan.jsonl", records))
    assert [t.text for t in source.turns if t.role == "Tool"] == [f"out {i}" for i in range(n)]
    assert source.read == len(records) and source.not_read == {}
    assert source.turns[-1].text == "thanks"


_gemini_records = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "gemini", "info", "error", "odd"])},
    optional={
        "id": st.text(max_size=2),
        "timestamp": st.none() | st.text(max_size=8) | st.integers(),
        "content": st.none()
        | st.text(max_size=10)
        | st.lists(st.fixed_dictionaries({"text": st.text(max_size=5)}), max_size=2),
        "thoughts": st.none()
        | st.lists(
            st.dictionaries(st.sampled_from(["subject", "description"]), st.text(max_size=5)),
            max_size=2,
        ),
        "toolCalls": st.none()
        | st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "id": st.text(max_size=2),
                    "name": st.text(max_size=5) | st.integers(),
                    "args": st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
                    "status": st.sampled_from(["success", "error"]),
                    "result": st.none()
                    | st.lists(
                        st.just({"functionResponse": {"response": {"output": "o"}}}), max_size=1
                    ),
                    "resultDisplay": st.text(max_size=4),
                },
            ),
            max_size=3,
        ),
    },
)


@settings(max_examples=40, deadline=None)
@given(messages=st.lists(_gemini_records, max_size=8), as_lines=st.booleans())
def test_any_gemini_chat_is_read_and_accounted(
    messages: list[dict[str, Any]], as_lines: bool
) -> None:
    import tempfile

    header = {"sessionId": "s", "projectHash": "h", "startTime": "2025-10-18T14:57:28Z"}
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / ("chat.jsonl" if as_lines else "chat.json")
        if as_lines:
            path.write_text("".join(json.dumps(r) + "\n" for r in [header, *messages]))
        else:
            path.write_text(json.dumps({**header, "messages": messages}, indent=1))
        assert sniff(path) == "gemini-cli"
        source = load(path)
    assert source.read + sum(source.not_read.values()) + len(source.skipped) == source.records
    assert source.records == len(messages) + (1 if as_lines else 0)
    calls = sum(len(m.get("toolCalls") or []) for m in messages if m["type"] == "gemini")
    assert sum(1 for m in source.messages if m["role"] == "tool") <= calls
    collapse_messages(source.messages)


def test_aider_message_echo_is_not_a_second_copy(tmp_path: Path) -> None:
    task = "Create a file test_aider.txt with content 'Hello Aider' and commit it."
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2026-05-10 11:12:34\n\n"
        f"> /opt/homebrew/bin/aider --message {task} --yes --model openrouter/x  \n"
        "> Aider v0.86.2  \n\n"
        f"#### {task}  \n\n"
        "test_aider.txt\n```\nHello Aider\n```\n\n"
        "> Applied edit to test_aider.txt  \n"
    )
    source = load(path)
    joined = "\n".join(t.text for t in source.turns)
    assert joined.count("Hello Aider' and commit it.") == 1
    assert "aider --message [the task, read below] --yes --model openrouter/x" in joined
    assert [t.role for t in source.turns] == ["aider", "You", "Bot", "aider"]
    assert source.stripped == {"tasks echoed on aider's command line": 1}
    assert source.read == source.records == 5  # the session's start and four blocks


def test_only_what_the_submit_command_printed_ends_an_older_trajectory(tmp_path: Path) -> None:
    """An older mini-swe-agent trajectory (no ``exit`` message) gives the submission as
    a user message after the submit command: the session's end. A failed submit (its
    return code shown), or the marker named outside the one action (the harness then
    answers with a format error), is no end. A command that ran shows as typed, its output
    as the tool's; the two blocks the harness refused stay the assistant's text."""
    mark = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    messages = [
        {"role": "user", "content": "Fix the parser."},
        {"role": "assistant", "content": f"I will run `{mark}` once done.\n```bash\nls\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"},
        {"role": "assistant", "content": f"Two actions:\n```bash\n{mark}\n```\n```bash\nls\n```"},
        {"role": "user", "content": "Please always provide EXACTLY ONE action."},
        {"role": "assistant", "content": f"Submitting.\n```bash\n{mark} && git diff\n```"},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>\nfatal\n</output>"},
        {"role": "assistant", "content": f"Again.\n```bash\n{mark} && git diff\n```"},
        {"role": "user", "content": "diff --git a/p.py b/p.py\n-old\n+new\n"},
    ]
    path = tmp_path / "old.traj.json"
    path.write_text(json.dumps(messages))
    turns = load(path).turns
    assert [t.role for t in turns] == [
        "You",
        "Bot",
        "Tool",
        "Bot",
        "You",
        "Bot",
        "Tool",
        "Bot",
        "End",
    ]
    assert turns[1].text == f"I will run `{mark}` once done.\n$ ls"
    assert turns[3].text == messages[3]["content"]  # two actions: none ran
    assert turns[5].text.endswith(f"\n$ {mark} && git diff")
    assert (
        load(path).turns[-1].text
        == "The session ended (Submitted).\ndiff --git a/p.py b/p.py\n-old\n+new"
    )


def test_a_request_aider_repeats_after_its_command_is_read_once(tmp_path: Path) -> None:
    """aider writes a request given with ``/code`` (``/ask``, ``/architect``) again as the
    next ``####`` line: the recap's Task said "Later: X X". It is read once, with its
    command, counted as left out; the turn still ends on the repeat's line."""
    from chunkscope.engine.recap.sections import extract_sections

    ask = "i want the buttons to have a 3d look"
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2026-05-10 11:12:34\n\n"
        "#### give me an overview of this repo  \n\n"
        "It is a calculator.\n\n"
        f"#### /code {ask}  \n\n#### {ask}  \n\n"
        "Here are the changes.\n\n"
        f"#### /ask why is {ask} hard  \n\n#### why is it hard  \n\n"  # not a repeat: kept
        "Because.\n"
    )
    source = load(path)
    requests = [
        (t.text.strip(), t.source_line, t.last_line) for t in source.turns if t.role == "You"
    ]
    assert requests == [
        ("give me an overview of this repo", 3, 3),
        (f"/code {ask}", 7, 9),
        (f"/ask why is {ask} hard  \n\nwhy is it hard", 13, 15),
    ]
    assert source.stripped == {
        "requests aider repeats after their /code, /ask or /architect command": 1
    }
    (task,) = [s for s in extract_sections(source.messages) if s.name == "task"]
    assert f"Later: {ask}" in task.lines
    assert not any(line.count(ask) > 1 for line in task.lines)


def test_calls_beside_text_show_after_it_but_parse_turns_keeps_the_reference(
    tmp_path: Path,
) -> None:
    from chunkscope.engine.read.parse import parse_turns

    call = {"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}
    path = _write(
        tmp_path / "seed.jsonl",
        [{"role": "assistant", "content": "Let me run it.", "tool_calls": [call, call]}],
    )
    assert [t.text for t in parse_turns(path)] == ["Let me run it."]
    assert [t.text for t in load(path).turns] == ["Let me run it.\nrun()\nrun()"]


def test_a_gemini_cli_checkpoint_reads_its_parts(tmp_path: Path) -> None:
    """A checkpoint beside the chats (~/.gemini/tmp/<hash>/checkpoint-*.json): Gemini API
    contents, their text and thoughts, function calls and responses."""
    path = tmp_path / "checkpoint-fix.json"
    contents = [
        {"role": "user", "parts": [{"text": USER_ASK}]},
        {
            "role": "model",
            "parts": [
                {"text": "Reading it.", "thought": True},
                {"text": "Let me read the cache."},
                {"functionCall": {"name": "read_file", "args": {"absolute_path": "cache.py"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "read_file", "response": {"output": CACHE_PY}}}
            ],
        },
    ]
    path.write_text(json.dumps(contents, indent=2))
    source = load(path)
    assert [t.role for t in source.turns] == ["You", "Bot thinking", "Bot", "Tool"]
    assert source.turns[1].text == "Reading it."  # a thought part: its thinking
    assert source.turns[2].text == "Let me read the cache.\nread_file cache.py"
    assert [t.text for t in collapse_messages(source.messages) if t.role == "Tool"] == [
        "Read cache.py (2 lines)."
    ]


def test_every_example_file_is_of_its_format() -> None:
    from chunkscope.engine.read.formats import _ROOT, EXAMPLE_FILES

    listed = list_input_formats()
    for name, example in EXAMPLE_FILES.items():
        path = _ROOT / example
        assert sniff(path) == name and f"example file: {path}" in listed
        assert load(path).turns


def test_a_claude_session_that_starts_with_records_not_read(tmp_path: Path) -> None:
    head = [
        {"type": "queue-operation", "operation": "dequeue", "timestamp": "t", "sessionId": "s"}
    ] + [
        {"type": "progress", "uuid": f"p{i}", "parentUuid": None, "sessionId": "s"}
        for i in range(60)
    ]
    path = _write(tmp_path / "late.jsonl", head + claude_records()[3:5])
    assert sniff(path) == "claude-code"
    source = load(path)
    assert source.not_read == {"queue operations": 1, "progress records": 60}
    assert source.turns[0].text == USER_ASK


_task_words = st.text(st.characters(blacklist_characters="<\r", codec="utf-8"), max_size=60)


@given(task=_task_words.filter(lambda t: t.strip()), tag=st.sampled_from(["issue", "task"]))
def test_any_task_comes_out_of_either_template_whole(task: str, tag: str) -> None:
    from chunkscope.engine.read.formats.documents import task_of

    framed = f"<{tag}>\nConsider the following PR description:\n{task}\n</{tag}>\n\n"
    assert task_of(framed + "<instructions>\nRules.\n</instructions>") == task.strip()
    rules = "You can execute bash commands and edit files to implement the necessary changes."
    assert task_of(f"Please solve this issue: {task}\n\n{rules}\n## Rules") == task.strip()
    assert task_of(task) == task  # no template: the request as it is


def test_a_template_s_words_go_only_from_a_request_written_from_it() -> None:
    from chunkscope.engine.read.formats.documents import strip_template

    wrapped = (
        "<issue>\nConsider the following PR description:\nParser drops the last line.\n"
        "</issue>\n\n<instructions>\nBe brief.\n"
    )
    mine = {"role": "user", "content": wrapped + "</instructions>\n\nAlso see #12."}
    assert strip_template(mine) == 1  # the tag, its framing line and the instructions
    assert mine["content"] == "Parser drops the last line.\n\nAlso see #12."
    cut_short = {"role": "user", "content": wrapped + "Step 1: ...\n[trimmed]"}
    assert strip_template(cut_short) == 1  # no closing tag: the block runs to the end
    assert cut_short["content"] == "Parser drops the last line."
    solve = {
        "role": "user",
        "content": "Please solve this issue: Fix the parser.\nIt drops a line.\n\n"
        "You can execute bash commands and edit files to implement the necessary changes."
        "\n\n## Important Rules\n1. Every response must contain exactly one action",
    }
    assert strip_template(solve) == 1
    assert solve["content"] == "Fix the parser.\nIt drops a line."
    for kept in (
        {"role": "user", "content": "<instructions>Use tabs.</instructions> Fix the parser."},
        {"role": "user", "content": "Fix this: <issue>the parser</issue> drops a line."},
        {"role": "user", "content": "<issue>\nConsider the following PR description:\n</issue>"},
        {"role": "user", "content": "Please solve this issue: the parser drops a line."},
        {"role": "assistant", "content": wrapped},
    ):
        before = dict(kept)
        assert strip_template(kept) == 0 and kept == before
