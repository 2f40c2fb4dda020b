"""`chunkscope chunk`: the JSON contract, the text format, exit codes and stderr."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import (
    DEFAULT_MIN_CHARS,
    chunk_turns,
    compact_chunks,
    section_spans,
)
from chunkscope.engine.model import chunks_from_spans
from chunkscope.engine.read.parse import load
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import json_pieces, main

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_logs"
SAMPLES = [
    "cache_refactor.jsonl",
    "docs_cleanup.jsonl",
    "research_notes.jsonl",
    "architecture_guide.md",
    "shell_cookbook.md",
    "markup_injection.jsonl",
]

CHUNK_KEYS = {"index", "text", "chars", "tokens", "start", "end", "lines", "turn_count"}
TOP_KEYS = {
    "source",
    "kind",
    "format",
    "container",
    "turns",
    "skipped_lines",
    "warnings",
    "records",
    "read",
    "not_read",
    "stripped",
    "tokenizer",
    "params",
    "chunks",
}

LONG = "This paragraph is long enough to stand on its own as a chunk after compaction. " * 2


def _line(role: str, content: Any, ts: str | None, **extra: Any) -> str:
    m: dict[str, Any] = {"role": role, "content": content, **extra}
    if ts is not None:
        m["timestamp"] = ts
    return json.dumps(m)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    f = tmp_path / "session.jsonl"
    lines = [
        _line("user", "Please fix the cache.", "2026-02-13T11:25:17"),
        "",
        _line(
            "assistant",
            f"{LONG}\n\n{LONG}",
            "2026-02-13T11:26:00",
            reasoning="I should read the file first.",
        ),
        _line("tool", "file contents", "2026-02-13T11:27:30", tool_call_id="call_1"),
        _line("system", f"[stats] done\n\n{LONG}", None),
    ]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["chunk", *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("chunkscope: ")
    assert "Traceback" not in err
    return lines[0]


# --------------------------------------------------------------------------- JSON contract


def test_json_contract(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    doc = run_json(capsys, str(log))
    assert set(doc) == TOP_KEYS
    assert doc["source"] == str(log)
    assert doc["kind"] == "jsonl"
    assert doc["turns"] == 5  # You, Bot thinking, Bot, Tool, system
    assert doc["skipped_lines"] == []
    assert doc["warnings"] == []
    assert doc["records"] == doc["read"] == 4 and doc["not_read"] == doc["stripped"] == {}
    assert doc["tokenizer"] == {"name": "cl100k_base", "accuracy": "exact"}
    assert doc["params"]["min_chars"] == 80
    assert doc["params"]["strict"] is False
    assert doc["params"]["collapse"] is False  # `chunk` keeps every tool call a turn

    counter = get_counter("cl100k_base")
    source = load(log)
    expected = compact_chunks(chunk_turns(source.turns), 80)
    assert len(doc["chunks"]) == len(expected) >= 2
    for i, (c, ref) in enumerate(zip(doc["chunks"], expected, strict=True)):
        assert set(c) == CHUNK_KEYS
        assert c["index"] == i
        assert c["text"] == ref.text
        assert c["chars"] == len(c["text"])
        assert c["tokens"] == counter.count(c["text"]) > 0
        assert c["turn_count"] == len(ref.turns)
        assert c["lines"] == list(ref.lines) if ref.lines else c["lines"] is None
    first, last = doc["chunks"][0], doc["chunks"][-1]
    assert first["start"] == "2026-02-13T11:25:17"
    assert first["lines"][0] == 1
    # The last chunk is the system message's paragraph: no timestamp, line 5.
    assert last["lines"] == [5, 5]
    assert last["start"] is None and last["end"] is None
    assert "\n".join(c["text"] for c in doc["chunks"]) == "\n".join(
        c.text for c in chunk_turns(source.turns)
    )


def test_json_start_end_and_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text(
        "\n".join(
            [
                "",
                _line("user", "short", "2026-02-13T09:00:00.500"),
                _line("assistant", "also short", "2026-02-13T09:05:00Z"),
                "",
                _line("tool", "x", "2026-02-13T09:06:00+02:00"),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    doc = run_json(capsys, str(f))
    (chunk,) = doc["chunks"]
    assert chunk["start"] == "2026-02-13T09:00:00.500000"
    assert chunk["end"] == "2026-02-13T09:06:00+02:00"
    assert chunk["lines"] == [2, 5]
    assert chunk["turn_count"] == 3
    assert chunk["text"] == "You: short\nBot: also short\nTool: x"


def test_min_chars_option(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    raw = chunk_turns(load(log).turns)
    doc0 = run_json(capsys, str(log), "--min-chars", "0")
    assert len(doc0["chunks"]) == len(raw)
    assert doc0["params"]["min_chars"] == 0
    big = run_json(capsys, str(log), "--min-chars", "100000")
    assert len(big["chunks"]) == 1
    assert big["chunks"][0]["turn_count"] == sum(len(c.turns) for c in raw)


def test_an_unknown_tokenizer_is_refused(log: Path) -> None:
    """Walk 11, 5: a name tiktoken does not know (`nope`, `cl100K_base`) was taken
    silently and counted approximately, labelled `nope (approximate)`: it is a bad flag,
    one line naming the encodings there are, exit 2."""
    import subprocess
    import sys

    for name in ("nope", "cl100K_base"):
        proc = subprocess.run(
            [sys.executable, "-m", "chunkscope", "chunk", str(log), "--tokenizer", name],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 2, proc
        assert proc.stdout == ""
        err = proc.stderr.strip()
        assert "\n" not in err and "Traceback" not in err, err
        assert f"no tiktoken encoding is named {name!r}" in err and "cl100k_base" in err


def test_markdown_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "guide.md"
    f.write_text("# Title\n\nintro\n\n## Part\n" + LONG + "\n", encoding="utf-8")
    doc = run_json(capsys, str(f))
    assert doc["kind"] == "markdown"
    assert doc["turns"] == 2  # the sections: the file's name is no turn of its own
    assert doc["chunks"][0]["text"].startswith("Doc: # Title")
    assert doc["chunks"][0]["lines"][0] == 1


def test_ansi_escapes_survive_when_not_a_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "ansi.jsonl"
    evil = "\x1b[31mred\x1b[0m \x1b]0;title\x07 bell\x07"
    f.write_text(_line("assistant", evil, "2026-02-13T11:25:17") + "\n", encoding="utf-8")
    assert main(["chunk", str(f), "--format", "json"]) == 0
    out, _ = capsys.readouterr()
    assert "\\u001b[31mred" in out
    assert json.loads(out)["chunks"][0]["text"] == f"Bot: {evil}"
    assert main(["chunk", str(f)]) == 0
    out, _ = capsys.readouterr()
    assert "\x1b[31mred\x1b[0m" in out
    assert "\x07" in out


# --------------------------------------------------------------------------- text format


def test_text_format(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    assert main(["chunk", str(log)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    doc = run_json(capsys, str(log))
    headers = re.findall(r"^--- Chunk (\d+) \[(.*?)\] \((\d+) turns?, ", out, re.M)
    assert len(headers) == len(doc["chunks"])
    assert [int(h[0]) for h in headers] == [c["index"] for c in doc["chunks"]]
    assert [int(h[2]) for h in headers] == [c["turn_count"] for c in doc["chunks"]]
    assert headers[0][1] == "11:25:17 - 11:26:00"
    for _, time_range, _ in headers:
        assert re.fullmatch(r"(\d\d:\d\d:\d\d|--:--:--) - (\d\d:\d\d:\d\d|--:--:--)", time_range)
    assert "  11:25:17 You: Please fix the cache." in out
    assert "  11:26:00 Bot thinking: I should read the file first." in out
    for c in doc["chunks"]:
        assert f"{c['tokens']} tokens" in out


# --------------------------------------------------------------------------- errors and exit codes


def test_missing_file_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["chunk", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert str(missing) in one_error_line(err)


def test_directory_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["chunk", str(tmp_path), "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "directory" in one_error_line(err)


def test_strict_parse_error_exit_2(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    with log.open("a", encoding="utf-8") as fh:
        fh.write("{broken\n")
    assert main(["chunk", str(log), "--strict", "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert one_error_line(err).startswith(f"chunkscope: {log}:6: ")


def test_lenient_malformed_exit_0_with_count(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    with log.open("a", encoding="utf-8") as fh:
        fh.write("{broken\n[1]\n")
    doc_code = main(["chunk", str(log), "--format", "json"])
    out, err = capsys.readouterr()
    assert doc_code == 0
    doc = json.loads(out)
    assert [p["line"] for p in doc["skipped_lines"]] == [6, 7]
    assert all(set(p) == {"line", "reason"} for p in doc["skipped_lines"])
    assert "Traceback" not in err
    assert re.search(r"\b2\b.*malformed", err)
    assert err.startswith("chunkscope: ")


def test_warnings_in_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "bytes.jsonl"
    f.write_bytes(b'{"role": "user", "content": "caf\xe9"}\n')
    doc = run_json(capsys, str(f))
    assert [w["line"] for w in doc["warnings"]] == [1]
    assert doc["chunks"][0]["text"] == "You: caf\ufffd"


def test_version_and_help_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out, _ = capsys.readouterr()
    assert out.startswith("chunkscope ")
    for argv in (["--help"], ["chunk", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code in (0, None)
        out, _ = capsys.readouterr()
        assert "usage:" in out
    assert "--min-chars" in out and "--strict" in out and "--tokenizer" in out


@pytest.mark.parametrize(
    "extra",
    [["--bogus"], ["--format", "xml"], ["--min-chars", "many"]],
)
def test_bad_option_exit_2(capsys: pytest.CaptureFixture[str], log: Path, extra: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["chunk", str(log), *extra])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    assert err.strip()


def test_negative_min_chars_exit_2(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    assert main(["chunk", str(log), "--min-chars", "-1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    one_error_line(err)


def test_output_file(capsys: pytest.CaptureFixture[str], log: Path, tmp_path: Path) -> None:
    out_path = tmp_path / "out.json"
    assert main(["chunk", str(log), "--format", "json", "-o", str(out_path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    doc = json.loads(out_path.read_text(encoding="utf-8"))
    assert set(doc) == TOP_KEYS
    assert doc == run_json(capsys, str(log))


def test_output_file_unwritable_exit_2(
    capsys: pytest.CaptureFixture[str], log: Path, tmp_path: Path
) -> None:
    target = tmp_path / "no" / "such" / "dir" / "out.txt"
    assert main(["chunk", str(log), "-o", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    one_error_line(err)
    assert not target.exists()


# --------------------------------------------------------------------------- real processes


def _chunkscope() -> str:
    exe = Path(sys.executable).parent / "chunkscope"
    found = str(exe) if exe.exists() else shutil.which("chunkscope")
    if not found:
        pytest.skip("chunkscope console script not installed")
    return found


def test_console_script_json(log: Path) -> None:
    proc = subprocess.run(
        [_chunkscope(), "chunk", str(log), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    doc = json.loads(proc.stdout)
    assert set(doc) == TOP_KEYS
    assert all(set(c) == CHUNK_KEYS for c in doc["chunks"])


def test_console_script_strict_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "ok"}\nnot json\n', encoding="utf-8")
    proc = subprocess.run(
        [_chunkscope(), "chunk", str(bad), "--strict"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert one_error_line(proc.stderr).startswith(f"chunkscope: {bad}:2: ")


def test_lenient_text_without_timestamps(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "ok"}\nnot json\n', encoding="utf-8")
    assert main(["chunk", str(bad)]) == 0
    out, err = capsys.readouterr()
    assert "skipped 1 malformed line " in err
    assert f"{bad}:2:" in err
    assert "--- Chunk 0 [--:--:-- - --:--:--] (1 turn, 7 chars, " in out
    assert "  --:--:-- You: ok" in out


# --------------------------------------------------------------------------- bundled samples


@pytest.mark.parametrize("name", SAMPLES)
def test_bundled_sample_parses_cleanly(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLE_DIR / name
    if not path.is_file():
        pytest.skip(f"{name} not generated yet")
    source = load(path, strict=True)
    assert source.skipped == []
    assert source.turns
    assert source.kind == ("markdown" if name.endswith(".md") else "jsonl")
    if source.kind == "markdown":  # split at its headings too, each kept first
        raw = chunk_turns(source.turns, by_message=True)
        chunks = chunks_from_spans(raw, section_spans(raw, DEFAULT_MIN_CHARS))
    else:
        chunks = compact_chunks(chunk_turns(source.turns))
    assert chunks
    doc = run_json(capsys, str(path), "--strict")
    assert len(doc["chunks"]) == len(chunks)
    assert doc["skipped_lines"] == []


def test_lone_surrogate_in_log_does_not_crash_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "sur.jsonl"
    f.write_text('{"role": "user", "content": "bad \\ud800 half"}\n', encoding="utf-8")
    doc = run_json(capsys, str(f))
    assert doc["chunks"][0]["text"] == "You: bad \ufffd half"
    assert [w["line"] for w in doc["warnings"]] == [1]
    out_path = tmp_path / "out.txt"
    assert main(["chunk", str(f), "-o", str(out_path)]) == 0
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    assert "You: bad \ufffd half" in out_path.read_text(encoding="utf-8")


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(codec="utf-8")),  # newlines, U+2028, quotes, emoji
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_json_pieces_are_json_dumps_in_pieces(doc: dict[str, Any]) -> None:
    """`chunk --format json` writes its document in pieces (a chunk at a time): byte for
    byte what one json.dumps call would have written."""
    pieces = list(json_pieces(doc))
    assert "".join(pieces) == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    # Pieces of about a megabyte; with a tiny batch, one piece per list element at least.
    small = list(json_pieces(doc, batch_chars=1))
    assert "".join(small) == "".join(pieces)
    big_lists = [v for v in doc.values() if isinstance(v, list) and v]
    assert len(small) >= sum(len(v) for v in big_lists)


def test_iso_times_are_formatted_per_offset() -> None:
    """Equal instants in two zones are equal datetimes; each keeps its own text."""
    from datetime import UTC, datetime, timedelta, timezone

    from chunkscope.engine.runjson import iso as _iso

    utc = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    plus1 = datetime(2026, 1, 2, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    assert utc == plus1
    assert _iso(utc) == "2026-01-02T12:00:00+00:00"
    assert _iso(plus1) == "2026-01-02T13:00:00+01:00"
    assert _iso(datetime(2026, 1, 2, 12, 0)) == "2026-01-02T12:00:00"
    assert _iso(None) is None


def test_a_documents_counts_name_sections_and_paragraphs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A markdown file's header counts its sections, each chunk its paragraphs (both were
    "turns": "2 turns, 11 chunks", then chunks of 2 turns each summing to 16)."""
    import re

    doc = tmp_path / "guide.md"
    doc.write_text(
        "# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n\n## Usage\n\nRun it.\n",
        encoding="utf-8",
    )
    assert main(["chunk", str(doc)]) == 0
    out = capsys.readouterr().out
    assert ": markdown, " in out and " 2 sections, " in out
    per_chunk = [int(n) for n in re.findall(r"--- Chunk \d+ \((\d+) paragraphs?, ", out)]
    assert per_chunk and sum(per_chunk) == len(re.findall(r"^  Doc: ", out, re.M))
    assert " turn" not in out


# --------------------------------------------------------------------------- what the counts are


def test_the_text_output_says_what_its_chunk_counts_are(capsys: pytest.CaptureFixture[str]) -> None:
    """`chunk FILE` prints 118 chunks and `chunk FILE --embed` 166 before merging: each
    says what its count is (the split, the compaction minimum and its flag), and the
    topic merge's says what `chunk` alone and the seed's merge have; `--merge seed`
    prints what it always did."""
    sample = str(SAMPLE_DIR / "cache_refactor.jsonl")
    plain = run_json(capsys, sample)
    assert main(["chunk", sample]) == 0
    out = capsys.readouterr().out.splitlines()
    n = len(plain["chunks"])
    assert re.fullmatch(
        rf"{n} chunks: \d+ split at blank lines, compacted to at least 80 chars \(--min-chars\)",
        out[1],
    ), out[1]
    assert main(["chunk", sample, "--embed", "--format", "json"]) == 0
    units = len(json.loads(capsys.readouterr().out)["chunks"])
    assert units != n  # the two counts differ: the lines below say why
    assert main(["chunk", sample, "--embed"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f", {units} chunks, tokens by" in out[0]
    assert out[2] == "=== Before merging: the topic merge's units ==="
    assert out[3].startswith(f"{units} chunks: ") and "split at every message and blank" in out[3]
    assert "compacted to at least 20 chars (--topic-unit-chars)" in out[3]
    assert out[4] == (
        f"(`chunk` without --embed, and --merge seed: {n} chunks, split at "
        "blank lines only and compacted to at least 80 chars, --min-chars)"
    )
    assert main(["chunk", sample, "--embed", "--merge", "seed"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f", {n} chunks, tokens by" in out[0] and out[1:3] == ["", "=== Before merging ==="]


@pytest.mark.parametrize(
    "flags",
    [
        ["--merge", "topic"],
        ["--merge", "seed"],
        ["--threshold", "0.3"],
        ["--topic-depth", "3"],
        ["--max-chars", "500"],
        ["--merge-max-tokens", "40"],
    ],
)
def test_a_merge_flag_without_embed_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], log: Path, flags: list[str]
) -> None:
    """`chunk FILE --merge topic` merged nothing and said nothing: a flag that sets the
    merge needs --embed, as --chunks and --topics do (one line, exit 2)."""
    assert main(["chunk", str(log), *flags]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert (
        err == f"chunkscope: {flags[0]} sets the merge, which runs only with --embed: add --embed\n"
    )
    assert main(["chunk", str(log), *flags, "--embed", "--format", "json"]) == 0
    assert "merged" in json.loads(capsys.readouterr().out)


def test_a_strategys_size_is_no_merge_flag(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    """`--max-tokens` is a strategy's size too (with --embed, the merge's cap as well)."""
    argv = ["chunk", str(log), "--strategy", "sliding-window", "--max-tokens", "60"]
    assert main(argv) == 0
    err = capsys.readouterr().err  # one message is longer than 60 tokens: said, not refused
    assert "sets the merge" not in err and err.endswith(
        "over --max-tokens 60: units it cannot "
        "split, or its own merge rule "
        "(meta.exceeds_limit in --format json)\n"
    )


@pytest.mark.parametrize("strategy", [[], ["--strategy", "blank-line"]])
def test_max_tokens_where_nothing_has_a_token_cap_is_refused(
    capsys: pytest.CaptureFixture[str], strategy: list[str]
) -> None:
    """The blank-line split has no size cap in tokens: `chunk FILE --max-tokens 300` gave
    chunks of 2,228 tokens and said nothing. Without --embed there is nothing to cap."""
    argv = ["chunk", "sample_logs/cache_refactor.jsonl", *strategy, "--max-tokens", "300"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "--max-tokens" in err and "add --embed" in err
    assert main([*argv, "--embed", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for m in doc["merged"]:  # with --embed, the merge's cap: over it only one unit, flagged
        assert m["tokens"] <= 300 or (m["exceeds_limit"] and len(m["parts"]) == 1), m


def test_a_strategy_that_goes_over_its_cap_says_how_often(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Episodes merge past the cap (the seed's rule) and one message longer than the cap
    stays whole: the chunks over --max-tokens are counted on stderr, not silent."""
    argv = ["chunk", "sample_logs/cache_refactor.jsonl", "--strategy", "episodic"]
    assert main([*argv, "--max-tokens", "300", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    over = [c for c in json.loads(out)["chunks"] if c["meta"]["exceeds_limit"]]
    assert over and all(c["tokens"] > 300 for c in over)
    assert f"{len(over)} of " in err and "over --max-tokens 300" in err
    assert main([*argv, "--max-tokens", "100000"]) == 0
    assert "over --max-tokens" not in capsys.readouterr().err


async def test_the_workbench_and_chunk_give_the_same_chunks(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: the workbench collapsed tool calls by default and `chunk --embed` had no
    switch, so one log gave 57 merged chunks in one and 131 in the other with nothing to
    say why. Every command now takes --collapse/--no-collapse, its default declared by
    what it is for (`COLLAPSE_DEFAULTS`): the recap's (the workbench) collapses, chunks to
    find keep every word. With the same switch both give the same chunks, and
    ``params.collapse`` says which; a document has no calls to collapse."""
    from chunkscope.engine.recap.collapse import COLLAPSE_DEFAULTS
    from chunkscope.tui.workbench.exports import merged_json
    from tests.pilot import SIZE, make_app, settled

    log = Path(__file__).resolve().parents[1] / "sample_logs" / "markup_injection.jsonl"
    cli = run_json(capsys, str(log), "--embed", "--collapse")
    assert cli["params"]["collapse"] is True
    app = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        exported = json.loads(merged_json(view, {}, app.pipe.counter))
    assert exported["params"]["collapse"] is COLLAPSE_DEFAULTS["recap"] is True
    for level in ("chunks", "merged"):
        assert [c["text"] for c in exported[level]] == [c["text"] for c in cli[level]]
        assert [c["lines"] for c in exported[level]] == [c["lines"] for c in cli[level]]
    raw = run_json(capsys, str(log), "--embed")
    assert raw["params"]["collapse"] is COLLAPSE_DEFAULTS["chunks"] is False
    assert raw["turns"] == cli["turns"]
    assert len(raw["chunks"]) != len(cli["chunks"])  # the switch changes the run
    assert raw == run_json(capsys, str(log), "--embed", "--no-collapse")
    seed = run_json(capsys, str(log), "--embed", "--merge", "seed")
    assert seed["params"]["collapse"] is False
    assert seed["chunks"] == run_json(capsys, str(log))["chunks"]  # `chunk` alone: the seed's
    explicit = run_json(capsys, str(log), "--embed", "--merge", "seed", "--collapse")
    assert explicit["params"]["collapse"] is True  # a flag given wins over the default
    assert explicit["chunks"] != seed["chunks"]
    md = isolated / "notes.md"
    md.write_text("# Notes\n\nOne paragraph of text about caching.\n")
    assert run_json(capsys, str(md), "--embed", "--collapse")["params"]["collapse"] is False


def test_the_header_says_whether_tool_calls_were_collapsed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`chunk`'s first line says what became of a log's tool calls and which flag does
    the other; a document's says nothing of them."""
    log = str(SAMPLE_DIR / "cache_refactor.jsonl")

    def header(*flags: str) -> str:
        assert main(["chunk", log, *flags]) == 0
        return capsys.readouterr().out.splitlines()[0]

    collapsed = " (exact); tool calls collapsed to 136 turns (--no-collapse keeps them)"
    assert header("--embed", "--collapse").endswith(collapsed)
    assert header("--collapse").endswith(collapsed)
    kept = (
        " (exact); tool calls kept as turns, every word findable (--collapse collapses them, "
        "as the recap and the workbench do)"
    )
    assert header().endswith(kept) and header("--embed").endswith(kept)
    assert header("--embed", "--no-collapse").endswith("; tool calls kept as turns (--no-collapse)")
    assert "tool calls" not in header_of(capsys, str(SAMPLE_DIR / "shell_cookbook.md"))


def header_of(capsys: pytest.CaptureFixture[str], path: str) -> str:
    assert main(["chunk", path]) == 0
    return capsys.readouterr().out.splitlines()[0]


FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize(
    ("path", "label", "container"),
    [
        ("aider/metadata-aider.aider.chat.history.md", "aider chat history (markdown)", "markdown"),
        ("mini-swe-agent/pydicom-901.traj.json", "mini-swe-agent trajectory (json)", "json"),
        ("gemini-cli/agent-history-session-01.json", "gemini-cli (json)", "json"),
        ("claude-code/coverage-test-fix.jsonl", "claude-code (jsonl)", "jsonl"),
        ("../../sample_logs/cache_refactor.jsonl", "jsonl", "jsonl"),
    ],
)
def test_the_header_names_the_files_real_format(
    capsys: pytest.CaptureFixture[str], path: str, label: str, container: str
) -> None:
    """An aider history (markdown), a trajectory and a Gemini chat (one JSON document)
    were all called `jsonl (...)`: the header says what the file is and how it holds its
    records, and the JSON's ``container`` says the latter (``kind`` stays the contract's)."""
    file = str(FIXTURES / path)
    assert main(["chunk", file]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith(f"{file}: {label}, "), header
    doc = run_json(capsys, file)
    assert doc["container"] == container and doc["kind"] == "jsonl"


def test_a_strategy_setting_refused_names_the_flags(
    capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    # walk 15, 4: 'overlap (50 tokens) must be below max_tokens (20)' named no flag
    assert (
        main(
            [
                "chunk",
                str(SAMPLE_DIR / "shell_cookbook.md"),
                "--strategy",
                "markdown",
                "--max-tokens",
                "20",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err == (
        "chunkscope: --strategy markdown: --overlap (50 tokens) must be below --max-tokens (20)"
    )


def test_a_forced_format_that_reads_nothing_names_the_format_it_looks_like(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A log read with the wrong --input-format is not "empty": the error names the
    format it was read as and the one it looks like (walk 16 finding 14d); a blank file
    still says it has nothing to read."""
    log = SAMPLE_DIR / "cache_refactor.jsonl"
    assert main(["chunk", str(log), "--input-format", "codex"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "empty" not in err
    assert "read as codex (--input-format), nothing in it matched" in err
    assert "--input-format seed-jsonl" in err
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    assert main(["chunk", str(blank), "--input-format", "codex"]) == 2
    assert "the file is empty or has nothing to read" in capsys.readouterr().err


def test_another_merge_modes_flag_says_it_is_not_read(capsys: pytest.CaptureFixture[str]) -> None:
    """Walk 17, 8: ``--threshold`` under the default ``--merge topic`` (and ``--topic-*``
    under ``--merge seed``) was read by nothing and said nothing, though a strategy's
    knobs say they do not apply: one line names them and the mode that reads them."""
    sample = str(Path(__file__).parent.parent / "sample_logs" / "cache_refactor.jsonl")
    assert main(["chunk", sample, "--embed", "--threshold", "0.1"]) == 0
    err = capsys.readouterr().err
    assert "--threshold: not read by --merge topic (knobs of --merge seed)" in err
    assert main(["chunk", sample, "--embed", "--merge", "seed", "--topic-depth", "3"]) == 0
    err = capsys.readouterr().err
    assert "--topic-depth: not read by --merge seed (knobs of --merge topic)" in err
    # a knob of the mode in force, or of both (the size cap), says nothing
    assert main(["chunk", sample, "--embed", "--merge", "seed", "--threshold", "0.3"]) == 0
    assert main(["chunk", sample, "--embed", "--max-chars", "4000"]) == 0
    assert "not read" not in capsys.readouterr().err
