"""Gold files and topic marks: the format, every error as path:line, the marks store."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.evaluate.gold import (
    GoldError,
    content_hash,
    dumps_gold,
    load_marks,
    marks_path,
    parse_gold,
    read_gold,
    save_marks,
)

starts = st.lists(st.integers(1, 10_000), unique=True, min_size=1, max_size=40).map(sorted)


@settings(max_examples=200, deadline=None)
@given(starts)
def test_both_formats_round_trip(lines: list[int]) -> None:
    assert parse_gold(dumps_gold(lines)) == lines
    assert parse_gold("\n".join(map(str, lines)) + "\n") == lines
    assert parse_gold("# starts\n" + "\n\n".join(f"{n}  # topic" for n in lines)) == lines


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_starts_or_one_gold_error(text: str) -> None:
    try:
        got = parse_gold(text, "g")
    except GoldError as e:
        assert str(e).startswith("g:") and "\n" not in str(e)
    else:
        assert got == sorted(set(got)) and all(n >= 1 for n in got)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "g:1: empty gold file"),
        ("  \n\n", "g:1: empty gold file"),
        ("# nothing\n", "g:1: no segment starts"),
        ("1\n12\n7\n", "g:3: line 7 comes after 12 (unsorted)"),
        ("1\n7\n7\n", "g:3: line 7 is listed twice"),
        ("1\nseven\n", "g:2: 'seven' is not a line number"),
        ("1\n2.5\n", "g:2: '2.5' is not a line number"),
        ("0\n", "g:1: line 0 is out of range"),
        ("1\n51\n", "g:2: line 51 is out of range (1..50)"),
        ('{"starts": [1, 3,\n  true]}', "g:2: starts[2] True is not a line number"),
        ('{"starts": [1, 3,\n 2]}', "g:2: starts[2] line 2 comes after 3 (unsorted)"),
        ('{"starts": 5}', 'g:1: expected {"starts": [line, ...]}'),
        ('{"starts": [1,', "g:1: not valid JSON"),
    ],
)
def test_bad_gold_files_say_where_and_why(text: str, error: str) -> None:
    with pytest.raises(GoldError) as info:
        parse_gold(text, "g", lines=50)
    assert str(info.value).startswith(error)


def test_read_gold_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(GoldError, match=r"no\.json: cannot read"):
        read_gold(tmp_path / "no.json")


def test_marks_follow_the_content_not_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    log = tmp_path / "session.jsonl"
    log.write_text('{"role": "user", "content": "hi"}\n')
    assert load_marks(log) == []
    save_marks(log, [1, 5, 9])
    moved = tmp_path / "elsewhere" / "renamed.jsonl"
    moved.parent.mkdir()
    log.rename(moved)
    assert load_marks(moved) == [1, 5, 9]
    assert marks_path(moved) == tmp_path / "data" / "marks" / f"{content_hash(moved)}.json"
    save_marks(moved, [])
    assert load_marks(moved) == [] and not marks_path(moved).exists()
    other = tmp_path / "other.jsonl"
    other.write_text('{"role": "user", "content": "bye"}\n')
    assert load_marks(other) == []
