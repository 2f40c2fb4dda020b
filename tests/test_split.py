"""Splitting and compaction against docs/log-format.md sections 2 and 4."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks, compact_spans
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.read.parse import load_jsonl

T1 = datetime(2026, 2, 13, 11, 25, 17)
T2 = datetime(2026, 2, 13, 12, 0, 5)
T3 = datetime(2026, 2, 13, 13, 30, 59)


def turn(text: str, role: str = "You", ts: datetime | None = T1, line: int = 1) -> Turn:
    return Turn(ts, role, text, line, line - 1)


def chunk_of(size: int, role: str = "R") -> Chunk:
    """A one-turn chunk whose `.text` is exactly `size` characters (size >= len(role) + 2)."""
    body = "x" * (size - len(role) - 2)
    c = Chunk([Turn(T1, role, body)])
    assert c.chars == size
    return c


# --------------------------------------------------------------------------- Chunk


def test_chunk_text_time_range_chars_lines() -> None:
    c = Chunk(
        [
            Turn(T1, "You", "hello", 3, 0),
            Turn(T2, "Bot thinking", "hmm", 4, 1),
            Turn(T3, "Bot", "two\nlines", 4, 2),
        ]
    )
    assert c.text == "You: hello\nBot thinking: hmm\nBot: two\nlines"
    assert c.chars == len(c.text) == 43
    assert c.time_range == "11:25:17 - 13:30:59"
    assert c.lines == (3, 4)
    assert c.start == T1
    assert c.end == T3


def test_chunk_time_range_single_turn_and_missing_lines() -> None:
    c = Chunk([Turn(T2, "Doc", "x")])
    assert c.time_range == "12:00:05 - 12:00:05"
    assert c.lines is None
    assert c.text == "Doc: x"


def test_chunk_seed_constructor() -> None:
    t = Turn(T1, "You", "hi")
    assert t.source_line is None and t.turn_index is None
    assert Chunk([t]).text == "You: hi"
    assert Chunk(turns=[t, t]).text == "You: hi\nYou: hi"


# --------------------------------------------------------------------------- chunk_turns


def test_chunk_turns_no_turns() -> None:
    assert chunk_turns([]) == []


def test_turns_without_blank_lines_stay_together() -> None:
    turns = [
        turn("a", "You", T1, 1),
        turn("b\nc", "Bot", T2, 2),
        turn("d", "Tool", T3, 3),
    ]
    chunks = chunk_turns(turns)
    assert len(chunks) == 1
    assert chunks[0].turns == turns
    assert chunks[0].text == "You: a\nBot: b\nc\nTool: d"


def test_first_paragraph_extends_later_paragraphs_open_chunks() -> None:
    turns = [
        turn("intro", "You", T1, 1),
        turn("p1\n\np2\n\np3", "Bot", T2, 5),
        turn("tail", "Tool", T3, 6),
        turn("q1\n\nq2", "You", T3, 9),
    ]
    chunks = chunk_turns(turns)
    assert [c.text for c in chunks] == [
        "You: intro\nBot: p1",
        "Bot: p2",
        "Bot: p3\nTool: tail\nYou: q1",
        "You: q2",
    ]
    pieces = [t for c in chunks for t in c.turns]
    # Paragraph pieces keep role, timestamp, source line and turn index of their turn.
    assert [(t.role, t.timestamp, t.source_line, t.turn_index) for t in pieces] == [
        ("You", T1, 1, 0),
        ("Bot", T2, 5, 4),
        ("Bot", T2, 5, 4),
        ("Bot", T2, 5, 4),
        ("Tool", T3, 6, 5),
        ("You", T3, 9, 8),
        ("You", T3, 9, 8),
    ]


def test_no_split_on_speaker_change_or_time_gap() -> None:
    turns = [turn("a", "You", T1), turn("b", "Bot", T3), turn("c", "system", None)]
    assert len(chunk_turns(turns)) == 1


def test_leading_and_repeated_blank_lines() -> None:
    turns = [turn("\n\nstart"), turn("x\n\n\n\ny"), turn("z\n\n")]
    chunks = chunk_turns(turns)
    assert [c.text for c in chunks] == [
        "You: ",
        "You: start\nYou: x",
        "You: ",
        "You: y\nYou: z",
        "You: ",
    ]
    # Three blank lines are one break plus a newline that stays with the next paragraph.
    assert [t.text for t in chunk_turns([turn("a\n\n\nb")])[1].turns] == ["\nb"]


def test_first_turn_with_break_opens_chunks_from_the_start() -> None:
    chunks = chunk_turns([turn("one\n\ntwo")])
    assert [c.text for c in chunks] == ["You: one", "You: two"]


# --------------------------------------------------------------------------- compaction


def test_compact_empty() -> None:
    assert compact_chunks([]) == []
    assert compact_spans([]) == []


def test_single_short_chunk_stays() -> None:
    c = chunk_of(10)
    assert compact_chunks([c]) == [c]
    assert compact_spans([c]) == [(0, 1)]


def test_long_chunks_untouched() -> None:
    chunks = [chunk_of(80), chunk_of(100), chunk_of(200)]
    assert compact_spans(chunks) == [(0, 1), (1, 2), (2, 3)]
    assert compact_chunks(chunks) == chunks


def test_forward_absorption_until_long_enough() -> None:
    # 30 -> +30 = 61 (short) -> +30 = 92 (long enough) ; 100 stands alone.
    chunks = [chunk_of(30), chunk_of(30), chunk_of(30), chunk_of(100)]
    assert compact_spans(chunks) == [(0, 3), (3, 4)]
    out = compact_chunks(chunks)
    assert [c.chars for c in out] == [92, 100]
    assert out[0].turns == chunks[0].turns + chunks[1].turns + chunks[2].turns


def test_threshold_measured_with_role_prefix_and_newlines() -> None:
    # 79 chars including the "R: " prefix is short; 80 is not.
    assert compact_spans([chunk_of(79), chunk_of(10)]) == [(0, 2)]
    assert compact_spans([chunk_of(80), chunk_of(90)]) == [(0, 1), (1, 2)]
    # Joined text counts the newline between turns: 40 + 1 + 39 = 80, long enough.
    assert compact_spans([chunk_of(40), chunk_of(39), chunk_of(90)]) == [(0, 2), (2, 3)]
    # 40 + 1 + 38 = 79 is still short, so it absorbs the next one too.
    assert compact_spans([chunk_of(40), chunk_of(38), chunk_of(90)]) == [(0, 3)]


def test_short_tail_merges_back() -> None:
    chunks = [chunk_of(100), chunk_of(90), chunk_of(10)]
    assert compact_spans(chunks) == [(0, 1), (1, 3)]
    out = compact_chunks(chunks)
    assert [c.chars for c in out] == [100, 101]


def test_short_tail_after_forward_absorption_merges_back() -> None:
    chunks = [chunk_of(50), chunk_of(50), chunk_of(20), chunk_of(20)]
    # (50+50) long, then 20 absorbs 20 -> 41 short, last of two -> merged back.
    assert compact_spans(chunks) == [(0, 4)]


def test_two_short_chunks_become_one() -> None:
    assert compact_spans([chunk_of(10), chunk_of(10)]) == [(0, 2)]
    assert compact_spans([chunk_of(100), chunk_of(10)]) == [(0, 2)]


def test_min_chars_parameter() -> None:
    chunks = [chunk_of(30), chunk_of(30), chunk_of(30)]
    assert compact_spans(chunks, min_chars=0) == [(0, 1), (1, 2), (2, 3)]
    assert compact_spans(chunks, min_chars=30) == [(0, 1), (1, 2), (2, 3)]
    assert compact_spans(chunks, min_chars=31) == [(0, 3)]
    assert compact_chunks(chunks, 1000) == [Chunk([t for c in chunks for t in c.turns])]
    assert compact_chunks(chunks, min_chars=1000)[0].chars == 92


def test_compact_does_not_modify_input() -> None:
    chunks = [chunk_of(10), chunk_of(10), chunk_of(100)]
    before = [list(c.turns) for c in chunks]
    compact_chunks(chunks)
    assert [c.turns for c in chunks] == before


def seed_compact(chunks: list[Chunk], min_chars: int = 80) -> list[Chunk]:
    """The reference algorithm of log-format.md section 4, written out plainly."""
    if not chunks:
        return []
    result = [chunks[0]]
    for c in chunks[1:]:
        if len(result[-1].text) < min_chars:
            result[-1] = Chunk(result[-1].turns + c.turns)
        else:
            result.append(c)
    if len(result) >= 2 and len(result[-1].text) < min_chars:
        last = result.pop()
        result[-1] = Chunk(result[-1].turns + last.turns)
    return result


@settings(max_examples=100, deadline=None)
@given(
    sizes=st.lists(st.integers(3, 150), max_size=25),
    min_chars=st.integers(0, 200),
)
def test_compact_matches_reference_and_spans_partition(sizes: list[int], min_chars: int) -> None:
    chunks = [chunk_of(n) for n in sizes]
    spans = compact_spans(chunks, min_chars)
    out = compact_chunks(chunks, min_chars)
    # Spans partition the input, in order.
    assert [i for s, e in spans for i in range(s, e)] == list(range(len(chunks)))
    assert all(e > s for s, e in spans)
    assert len(spans) == len(out)
    for (s, e), c in zip(spans, out, strict=True):
        assert c.turns == [t for x in chunks[s:e] for t in x.turns]
    ref = seed_compact(chunks, min_chars)
    assert [c.turns for c in out] == [c.turns for c in ref]


# --------------------------------------------------------------------------- pipeline property

_ROLES = st.sampled_from(["user", "assistant", "tool", "system", "critic", "Observer"])
_text = st.lists(
    st.one_of(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
            max_size=30,
        ),
        st.sampled_from(["\n\n", "\n\n\n", "\n", " ", "é🌍中", "\t", "\r\n", "# h", "```"]),
    ),
    max_size=8,
).map("".join)


@st.composite
def messages(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 12))):
        m: dict[str, Any] = {"role": draw(_ROLES)}
        content = draw(st.one_of(_text, st.none()))
        if content is not None or draw(st.booleans()):
            m["content"] = content
        if draw(st.booleans()):
            m["timestamp"] = f"2026-02-13T11:{i:02d}:{draw(st.integers(0, 59)):02d}"
        if m["role"] == "assistant" and draw(st.booleans()):
            m["reasoning"] = draw(_text)
        out.append(m)
    return out


ROLE_NAMES = {"user": "You", "assistant": "Bot", "tool": "Tool"}


def expected_turns(msgs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in msgs:
        if m.get("reasoning"):
            out.append(("Bot thinking", m["reasoning"]))
        out.append((ROLE_NAMES.get(m["role"], m["role"]), m.get("content") or ""))
    return out


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(msgs=messages(), min_chars=st.sampled_from([0, 1, 20, 80, 200]))
def test_parse_chunk_compact_loses_nothing(
    tmp_path: Path, msgs: list[dict[str, Any]], min_chars: int
) -> None:
    f = tmp_path / "prop.jsonl"
    f.write_text("".join(json.dumps(m) + "\n" for m in msgs), encoding="utf-8")
    source = load_jsonl(f, strict=True)
    turns = source.turns
    assert source.skipped == []
    assert [(t.role, t.text) for t in turns] == expected_turns(msgs)
    assert [t.turn_index for t in turns] == list(range(len(turns)))

    raw = chunk_turns(turns)
    if not turns:
        assert raw == []
    pieces = [t for c in raw for t in c.turns]
    # Rebuild every turn's text from its paragraph pieces, in order.
    rebuilt: dict[int, list[str]] = {}
    order: list[int] = []
    for p in pieces:
        assert p.turn_index is not None
        if p.turn_index not in rebuilt:
            order.append(p.turn_index)
            rebuilt[p.turn_index] = []
        rebuilt[p.turn_index].append(p.text)
        src = turns[p.turn_index]
        assert (p.role, p.timestamp, p.source_line) == (src.role, src.timestamp, src.source_line)
    assert order == list(range(len(turns)))
    assert ["\n\n".join(rebuilt[i]) for i in order] == [t.text for t in turns]
    assert all(c.turns for c in raw)

    compacted = compact_chunks(raw, min_chars)
    assert "\n".join(c.text for c in compacted) == "\n".join(c.text for c in raw)
    assert [t for c in compacted for t in c.turns] == pieces
    if len(compacted) > 1:
        assert all(c.chars >= min_chars for c in compacted)
    spans = compact_spans(raw, min_chars)
    assert [i for s, e in spans for i in range(s, e)] == list(range(len(raw)))


@pytest.mark.parametrize("min_chars", [0, 80])
def test_each_chunk_has_turns(min_chars: int) -> None:
    turns = [turn("a\n\nb\n\nc"), turn("d")]
    for c in compact_chunks(chunk_turns(turns), min_chars):
        assert c.turns


# --------------------------------------------------------------------------- fences


def _paragraph() -> st.SearchStrategy[str]:
    return st.text(st.sampled_from("ab #`~-"), min_size=1, max_size=12).filter(
        lambda p: p.strip() and "\n" not in p
    )


@st.composite
def _fenced_texts(draw: st.DrawFn) -> str:
    """Paragraphs and code blocks (``` or ~~~, some with an info string, some never
    closed) whose code has blank lines."""
    blocks: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            marker = draw(st.sampled_from(["```", "~~~", "````"]))
            info = draw(st.sampled_from(["", "python", "sh"]))
            code = "\n\n".join(draw(st.lists(_paragraph(), min_size=1, max_size=4)))
            closed = draw(st.booleans())
            blocks.append(f"{marker}{info}\n{code}" + (f"\n{marker}" if closed else ""))
        else:
            blocks.append(draw(_paragraph()))
    return "\n\n".join(blocks)


@settings(max_examples=200, deadline=None)
@given(text=_fenced_texts())
def test_no_unit_starts_inside_a_code_block(text: str) -> None:
    """walk 18, 1: the units of `by_message` (topic mode, documents) split at every blank
    line, inside code blocks too, and each piece's role label landed in the code
    (``Doc: # configure the cache`` inside a python block). A code block is one paragraph
    now; the seed's split (no `by_message`) still cuts at every blank line."""
    from chunkscope.engine.read.headings import after_heading, fence_after, heading_at

    pieces = [t for c in chunk_turns([turn(text, "Doc")], by_message=True) for t in c.turns]
    assert "\n\n".join(p.text for p in pieces) == text  # nothing lost, nothing moved
    fence: str | None = None
    for piece in pieces:
        assert fence is None, f"a unit starts inside a code block: {piece.text!r}"
        # a title's backtick underline (a blank line after it) opens no fence (walk 61, F1)
        read = after_heading(piece.text, heading_at(piece.text)) if fence is None else piece.text
        for line in read.split("\n"):
            fence = fence_after(line, fence)
    seed = [t for c in chunk_turns([turn(text, "Doc")]) for t in c.turns]
    assert [p.text for p in seed] == text.split("\n\n")


def test_the_readme_merged_chunks_hold_no_label_inside_code() -> None:
    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.read.headings import fence_after

    root = Path(__file__).resolve().parent.parent
    for name in ("README.md", "sample_logs/shell_cookbook.md"):
        inside = 0
        for chunk in Pipeline(str(root / name)).merged().chunks:
            fence: str | None = None
            for t in chunk.turns:
                inside += fence is not None
                for line in t.text.split("\n"):
                    fence = fence_after(line, fence)
        assert inside == 0, name
