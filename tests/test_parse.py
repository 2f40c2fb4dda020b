"""JSONL parsing against docs/log-format.md sections 1-2 (and format detection)."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.errors import ParseError, SourceError
from chunkscope.engine.read.parse import Problem, detect_format, load, load_jsonl, parse_turns

TS = "2026-02-13T11:25:17"
T0 = datetime(2026, 2, 13, 11, 25, 17)


def write_jsonl(path: Path, *lines: Any) -> Path:
    """Write `lines` to `path`: dicts as JSON, strings verbatim."""
    out = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def msg(role: str, content: Any = "hi", ts: str | None = TS, **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"role": role, "content": content, **extra}
    if ts is not None:
        m["timestamp"] = ts
    return m


# --------------------------------------------------------------------------- roles


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("user", "You"),
        ("assistant", "Bot"),
        ("tool", "Tool"),
        ("system", "system"),
        ("critic", "critic"),
        ("Developer", "Developer"),
    ],
)
def test_role_mapping(tmp_path: Path, role: str, expected: str) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", msg(role, "text"))
    turns = parse_turns(f)
    assert [(t.role, t.text) for t in turns] == [(expected, "text")]


def test_reasoning_emits_thinking_turn_first_with_same_timestamp(tmp_path: Path) -> None:
    f = write_jsonl(
        tmp_path / "log.jsonl",
        msg("user", "question", ts="2026-02-13T11:25:00"),
        msg("assistant", "answer", reasoning="let me think"),
    )
    turns = parse_turns(f)
    assert [(t.role, t.text) for t in turns] == [
        ("You", "question"),
        ("Bot thinking", "let me think"),
        ("Bot", "answer"),
    ]
    assert turns[1].timestamp == turns[2].timestamp == T0
    assert turns[1].source_line == turns[2].source_line == 2


@pytest.mark.parametrize("falsy", ["", None, False])
def test_falsy_reasoning_emits_no_thinking_turn(tmp_path: Path, falsy: Any) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", msg("assistant", "answer", reasoning=falsy))
    assert [t.role for t in parse_turns(f)] == ["Bot"]


def test_null_and_missing_content_give_empty_turns(tmp_path: Path) -> None:
    tool_only = {
        "role": "assistant",
        "content": None,
        "timestamp": TS,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "notes.md"}'},
            }
        ],
    }
    f = write_jsonl(
        tmp_path / "log.jsonl",
        tool_only,
        {"role": "assistant", "timestamp": TS, "tool_calls": []},
        msg("assistant", ""),
        {"role": "tool", "tool_call_id": "call_1", "timestamp": TS},
    )
    turns = parse_turns(f)
    assert [(t.role, t.text) for t in turns] == [
        ("Bot", ""),
        ("Bot", ""),
        ("Bot", ""),
        ("Tool", ""),
    ]


# --------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-02-13T11:25:17", datetime(2026, 2, 13, 11, 25, 17)),
        ("2026-02-13T11:25:17.250", datetime(2026, 2, 13, 11, 25, 17, 250000)),
        ("2026-02-13T11:25:17.123456", datetime(2026, 2, 13, 11, 25, 17, 123456)),
        ("2026-02-13T11:25:17Z", datetime(2026, 2, 13, 11, 25, 17, tzinfo=UTC)),
        (
            "2026-02-13T11:25:17.5Z",
            datetime(2026, 2, 13, 11, 25, 17, 500000, tzinfo=UTC),
        ),
        (
            "2026-02-13T11:25:17+05:30",
            datetime(2026, 2, 13, 11, 25, 17, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        ),
        (
            "2026-02-13T11:25:17-02:00",
            datetime(2026, 2, 13, 11, 25, 17, tzinfo=timezone(timedelta(hours=-2))),
        ),
    ],
)
def test_timestamp_forms(tmp_path: Path, raw: str, expected: datetime) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", msg("user", "x", ts=raw))
    source = load_jsonl(f, strict=True)
    (turn,) = source.turns
    assert turn.timestamp == expected
    assert turn.timestamp is not None
    assert turn.timestamp.utcoffset() == expected.utcoffset()
    assert turn.timestamp.strftime("%H:%M:%S") == "11:25:17"


def test_missing_timestamp_is_none_not_an_error(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", msg("user", "x", ts=None), {"role": "user"})
    source = load_jsonl(f, strict=True)
    assert [t.timestamp for t in source.turns] == [None, None]
    assert source.skipped == []


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-45T99:99:99", "11:25", True, ["2026"]])
def test_unreadable_timestamp_is_an_error(tmp_path: Path, bad: Any) -> None:
    f = write_jsonl(
        tmp_path / "log.jsonl",
        msg("user", "before"),
        {"role": "user", "content": "bad", "timestamp": bad},
        msg("user", "after"),
    )
    source = load_jsonl(f)
    assert [t.text for t in source.turns] == ["before", "after"]
    assert [p.line for p in source.skipped] == [2]
    assert "timestamp" in source.skipped[0].reason
    with pytest.raises(ParseError) as exc:
        parse_turns(f, strict=True)
    assert exc.value.line == 2


# --------------------------------------------------------------------------- content


def test_multiline_content_kept_verbatim(tmp_path: Path) -> None:
    text = "line one\nline two\n\n  indented\ttab\n"
    f = write_jsonl(tmp_path / "log.jsonl", msg("assistant", text))
    assert parse_turns(f)[0].text == text


def test_multipart_content_joined_in_order(tmp_path: Path) -> None:
    parts = [
        {"type": "text", "text": "first part"},
        {"type": "image_url", "image_url": {"url": "http://x/y.png"}},
        {"type": "text", "text": "second part"},
    ]
    f = write_jsonl(tmp_path / "log.jsonl", msg("user", parts))
    text = parse_turns(f)[0].text
    assert "first part" in text
    assert "second part" in text
    assert text.index("first part") < text.index("second part")
    assert "image_url" not in text
    assert text in ("first part\nsecond part", "first partsecond part", "first part second part")


def test_empty_file_gives_no_turns(tmp_path: Path) -> None:
    f = tmp_path / "empty.jsonl"
    f.write_bytes(b"")
    source = load_jsonl(f, strict=True)
    assert source.turns == []
    assert source.skipped == []


def test_blank_lines_skipped_and_line_numbers_kept(tmp_path: Path) -> None:
    f = tmp_path / "log.jsonl"
    f.write_text(
        "\n"
        + json.dumps(msg("user", "a"))
        + "\n   \n\t\n"
        + json.dumps(msg("assistant", "b", reasoning="r"))
        + "\n\n"
        + json.dumps(msg("tool", "c"))
        + "\n",
        encoding="utf-8",
    )
    source = load_jsonl(f, strict=True)
    assert source.skipped == []
    assert [(t.role, t.text, t.source_line) for t in source.turns] == [
        ("You", "a", 2),
        ("Bot thinking", "r", 5),
        ("Bot", "b", 5),
        ("Tool", "c", 7),
    ]
    assert [t.turn_index for t in source.turns] == [0, 1, 2, 3]


def test_last_line_without_newline(tmp_path: Path) -> None:
    f = tmp_path / "log.jsonl"
    f.write_text(json.dumps(msg("user", "a")) + "\n" + json.dumps(msg("user", "b")), "utf-8")
    assert [t.text for t in parse_turns(f, strict=True)] == ["a", "b"]


# --------------------------------------------------------------------------- bad lines


BAD_LINES = [
    ("{not json", "JSON"),
    ('{"role": "user", "content": "unterminated', "JSON"),
    ("[1, 2, 3]", "object"),
    ("42", "object"),
    ("3.5", "object"),
    ('"just a string"', "object"),
    ("null", "object"),
    ("true", "object"),
    ('{"content": "no role", "timestamp": "2026-02-13T11:25:17"}', "role"),
    ('{"role": 7, "content": "x"}', "role"),
    ('{"role": null, "content": "x"}', "role"),
]


@pytest.mark.parametrize(("bad", "word"), BAD_LINES)
def test_bad_line_lenient_skips_and_keeps_the_rest(tmp_path: Path, bad: str, word: str) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", msg("user", "one"), "", bad, msg("assistant", "two"))
    source = load_jsonl(f)
    assert [(t.role, t.text, t.source_line) for t in source.turns] == [
        ("You", "one", 1),
        ("Bot", "two", 4),
    ]
    assert [t.turn_index for t in source.turns] == [0, 1]
    assert len(source.skipped) == 1
    problem = source.skipped[0]
    assert isinstance(problem, Problem)
    assert problem.line == 3
    assert word.lower() in problem.reason.lower()
    assert problem.as_dict() == {"line": 3, "reason": problem.reason}


@pytest.mark.parametrize(("bad", "word"), BAD_LINES)
def test_bad_line_strict_raises_path_line_reason(tmp_path: Path, bad: str, word: str) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", msg("user", "one"), bad, "[]")
    with pytest.raises(ParseError) as exc:
        parse_turns(f, strict=True)
    err = exc.value
    assert err.line == 2
    assert err.path == str(f)
    assert str(err) == f"{f}:2: {err.reason}"
    assert word.lower() in err.reason.lower()
    assert "\n" not in str(err)


def test_several_bad_lines_all_reported_in_order(tmp_path: Path) -> None:
    f = write_jsonl(
        tmp_path / "log.jsonl", "oops", msg("user", "a"), "[]", "", "{}", msg("tool", "b"), "7"
    )
    source = load_jsonl(f)
    assert [p.line for p in source.skipped] == [1, 3, 5, 7]
    assert [(t.text, t.source_line, t.turn_index) for t in source.turns] == [
        ("a", 2, 0),
        ("b", 6, 1),
    ]
    with pytest.raises(ParseError) as exc:
        load_jsonl(f, strict=True)
    assert exc.value.line == 1


def test_very_deep_nesting_is_a_skipped_line(tmp_path: Path) -> None:
    f = tmp_path / "deep.jsonl"
    f.write_text(
        json.dumps(msg("user", "a"))
        + "\n"
        + "[" * 100_000
        + "\n"
        + '{"role": "user", "content": '
        + "[" * 100_000
        + "]" * 100_000
        + "}\n"
        + json.dumps(msg("user", "b"))
        + "\n",
        encoding="utf-8",
    )
    source = load_jsonl(f)
    assert [t.text for t in source.turns] == ["a", "b"]
    assert [p.line for p in source.skipped] == [2, 3]
    with pytest.raises(ParseError) as exc:
        load_jsonl(f, strict=True)
    assert exc.value.line == 2


# --------------------------------------------------------------------------- encodings


def test_bom_at_file_start(tmp_path: Path) -> None:
    f = tmp_path / "bom.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(msg("user", "hello")).encode() + b"\n")
    source = load_jsonl(f, strict=True)
    assert [(t.role, t.text) for t in source.turns] == [("You", "hello")]
    assert source.skipped == []


def test_bom_then_sniffed_format(tmp_path: Path) -> None:
    f = tmp_path / "bom.log"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(msg("user", "hello")).encode() + b"\n")
    assert detect_format(f) == "jsonl"
    assert [t.text for t in load(f, strict=True).turns] == ["hello"]


def test_crlf_line_endings_leave_no_carriage_returns(tmp_path: Path) -> None:
    f = tmp_path / "crlf.jsonl"
    body = "\r\n".join(
        [
            json.dumps(msg("user", "a")),
            "",
            json.dumps(msg("assistant", "b", reasoning="r")),
            json.dumps(msg("tool", "c")),
        ]
    )
    f.write_bytes((body + "\r\n").encode())
    source = load_jsonl(f, strict=True)
    assert [(t.role, t.text, t.source_line) for t in source.turns] == [
        ("You", "a", 1),
        ("Bot thinking", "r", 3),
        ("Bot", "b", 3),
        ("Tool", "c", 4),
    ]
    for t in source.turns:
        assert "\r" not in t.text
        assert "\r" not in t.role


def test_invalid_utf8_is_replaced_and_warned(tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    good = json.dumps(msg("user", "fine")).encode()
    bad = (
        b'{"role": "assistant", "content": "caf\xe9 \xff ok", "timestamp": "' + TS.encode() + b'"}'
    )
    f.write_bytes(good + b"\n" + bad + b"\n" + good + b"\n")
    source = load_jsonl(f, strict=True)
    assert [t.role for t in source.turns] == ["You", "Bot", "You"]
    assert source.turns[1].text == "caf\ufffd \ufffd ok"
    assert source.skipped == []
    assert [w.line for w in source.warnings] == [2]
    assert "utf-8" in source.warnings[0].reason.lower()


# --------------------------------------------------------------------------- provenance


def test_source_line_and_turn_index(tmp_path: Path) -> None:
    f = write_jsonl(
        tmp_path / "log.jsonl",
        msg("system", "[stats] start"),
        "",
        msg("user", "u1"),
        msg("assistant", "a1", reasoning="think1"),
        "",
        "",
        msg("tool", "t1", tool_call_id="call_1"),
        msg("assistant", "a2", reasoning="think2"),
    )
    turns = parse_turns(f)
    assert [(t.role, t.source_line) for t in turns] == [
        ("system", 1),
        ("You", 3),
        ("Bot thinking", 4),
        ("Bot", 4),
        ("Tool", 7),
        ("Bot thinking", 8),
        ("Bot", 8),
    ]
    assert [t.turn_index for t in turns] == list(range(len(turns)))


def test_messages_kept_with_their_line(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", "", msg("user", "a"), msg("tool", "b"))
    source = load_jsonl(f)
    assert [m.line for m in source.messages] == [2, 3]
    assert source.messages[1]["role"] == "tool"
    assert source.kind == "jsonl"
    assert source.size_bytes == f.stat().st_size


# --------------------------------------------------------------------------- format detection


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("a.jsonl", "# looks like markdown\n", "jsonl"),
        ("a.JSONL", "# looks like markdown\n", "jsonl"),
        ("a.ndjson", "# looks like markdown\n", "jsonl"),
        ("a.md", '{"role": "user"}\n', "markdown"),
        ("a.markdown", '{"role": "user"}\n', "markdown"),
        ("a.MD", '{"role": "user"}\n', "markdown"),
        ("a.log", '\n\n   \n{"role": "user", "content": "x"}\n', "jsonl"),
        ("a.txt", "\n# Title\n\nbody\n", "markdown"),
        ("noext", '  {"role": "user"}\n', "jsonl"),
        ("noext2", "plain text\n", "markdown"),
    ],
)
def test_detect_format(tmp_path: Path, name: str, content: str, kind: str) -> None:
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    assert detect_format(f) == kind
    assert load(f).kind == kind


def test_load_sniffed_jsonl_parses_as_log(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "session.log", msg("user", "hi"), msg("assistant", "yo"))
    source = load(f)
    assert source.kind == "jsonl"
    assert [t.role for t in source.turns] == ["You", "Bot"]


# --------------------------------------------------------------------------- unreadable sources


@pytest.mark.parametrize("name", ["missing.jsonl", "missing.md", "missing"])
def test_missing_file_is_source_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(SourceError) as exc:
        load(tmp_path / name)
    assert str(tmp_path / name) in str(exc.value)
    with pytest.raises(SourceError):
        parse_turns(tmp_path / name)


@pytest.mark.parametrize("name", ["adir", "adir.jsonl", "adir.md"])
def test_directory_is_source_error(tmp_path: Path, name: str) -> None:
    d = tmp_path / name
    d.mkdir()
    with pytest.raises(SourceError) as exc:
        load(d)
    assert "directory" in str(exc.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
@pytest.mark.parametrize("name", ["fifo.jsonl", "fifo.md", "fifo"])
def test_fifo_is_source_error_without_hanging(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    result: list[BaseException | None] = []

    def run() -> None:
        try:
            load(fifo)
        except BaseException as e:  # recorded and checked below
            result.append(e)
        else:
            result.append(None)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=5)
    if worker.is_alive():
        # Unblock the reader so the thread can finish, then fail.
        with open(fifo, "wb"):
            pass
        pytest.fail("load() blocked on a FIFO")
    assert len(result) == 1
    assert isinstance(result[0], SourceError)


def test_parse_error_str_uses_given_path(tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", "nope")
    with pytest.raises(ParseError) as exc:
        load(str(f), strict=True)
    assert str(exc.value).startswith(f"{f}:1: ")


def test_unicode_and_escapes_in_content(tmp_path: Path) -> None:
    text = "héllo 🌍 \u2028 next \x1b[31mred\x1b[0m \t end"
    f = write_jsonl(tmp_path / "log.jsonl", msg("user", text), msg("user", "after"))
    source = load_jsonl(f, strict=True)
    # U+2028 is not a line break for a JSONL reader: still one line, one message.
    assert [t.text for t in source.turns] == [text, "after"]
    assert [t.source_line for t in source.turns] == [1, 2]


def test_raw_u2028_in_file_is_not_a_line_break(tmp_path: Path) -> None:
    f = tmp_path / "log.jsonl"
    line = json.dumps(msg("user", "a\u2028b\u0085c"), ensure_ascii=False)
    f.write_text(line + "\n" + json.dumps(msg("user", "z")) + "\n", encoding="utf-8")
    source = load_jsonl(f, strict=True)
    assert [t.text for t in source.turns] == ["a\u2028b\u0085c", "z"]
    assert [t.source_line for t in source.turns] == [1, 2]


def test_lone_surrogate_escapes_replaced_and_warned(tmp_path: Path) -> None:
    f = tmp_path / "sur.jsonl"
    f.write_text(
        '{"role": "user", "content": "a\\ud800b", "timestamp": "2026-02-13T11:25:17"}\n'
        '{"role": "assistant", "content": [{"type": "text", "text": "\\udc00x"}],'
        ' "reasoning": "pair \\ud83c\\udf0d ok"}\n'
        '{"role": "tool", "content": "literal \\\\ud800 text"}\n',
        encoding="utf-8",
    )
    source = load_jsonl(f, strict=True)
    assert [t.text for t in source.turns] == [
        "a\ufffdb",
        "pair \U0001f30d ok",
        "\ufffdx",
        "literal \\ud800 text",
    ]
    assert [w.line for w in source.warnings] == [1, 2]
    assert all("surrogate" in w.reason for w in source.warnings)
    for t in source.turns:
        t.text.encode("utf-8")  # every text can be written out
    assert source.messages[1]["content"][0]["text"] == "\ufffdx"


@pytest.mark.parametrize("epoch", [1739445917, 1739445917.5, 1739445917000])
def test_epoch_timestamps_in_seconds_or_milliseconds(tmp_path: Path, epoch: float) -> None:
    f = write_jsonl(tmp_path / "log.jsonl", {"role": "user", "content": "x", "timestamp": epoch})
    (turn,) = load_jsonl(f, strict=True).turns
    assert turn.timestamp is not None
    assert turn.timestamp.isoformat().startswith("2025-02-13T11:25:17")
