"""A file that is not text (a program, an image, random bytes) is refused by every
command and by the workbench's open path: one line saying what the file looks like,
exit status 2, nothing read as malformed lines or as markdown."""

from __future__ import annotations

import gzip
import json
import random
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.errors import NotText
from chunkscope.engine.read.parse import load
from chunkscope.engine.read.source import binary_reason, check_text
from chunkscope.tui.cli import main
from tests.hostile.proc import one_error_line
from tests.pilot import SIZE, make_app, until

pytestmark = pytest.mark.usefixtures("isolated")

ROOT = Path(__file__).resolve().parents[1]


def _program(path: Path) -> Path:
    """Bytes shaped like a compiled program: a header, runs of NULs, some strings."""
    rng = random.Random(7)
    body = b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b"\x03\x00>\x00"
    for _ in range(200):
        body += bytes(rng.getrandbits(8) for _ in range(12)) + b"\x00" * 6 + b"printf\x00"
    path.write_bytes(body)
    return path


COMMANDS = [
    ["chunk"],
    ["chunk", "--format", "json"],
    ["chunk", "--input-format", "markdown"],
    ["chunk", "--embed"],
    ["recap"],
    ["report", "-o", "{out}"],
    ["search", "{file}", "cache"],
    ["eval", "--gold", "{gold}"],
    ["tui"],
    ["serve"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_refuses_a_binary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    binary = _program(tmp_path / "session.jsonl")
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [1]}))
    out = tmp_path / "report.html"
    argv = [a.format(file=binary, gold=gold, out=out) for a in command]
    if "{file}" not in command:
        argv.insert(1, str(binary))
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    line = one_error_line(captured.err)
    assert line == (
        f"chunkscope: {binary}: looks like a binary file (NUL bytes at byte 7), "
        "not a log or markdown"
    )
    assert not out.exists()


@pytest.mark.parametrize("command", [["eval"], []], ids=["eval", "workbench"])
def test_a_binary_gold_file_is_refused_in_the_same_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """`eval README.md --gold /bin/ls` dumped the program's first bytes as "is not a line
    number"; a gold file that is not text is refused as every input is."""
    gold = _program(tmp_path / "gold.txt")
    code = main([*command, str(ROOT / "README.md"), "--gold", str(gold)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    line = one_error_line(captured.err)
    assert line == (
        f"chunkscope: {gold}: looks like a binary file (NUL bytes at byte 7), not a gold file"
    )


@pytest.mark.skipif(not Path("/bin/ls").is_file(), reason="no /bin/ls here")
def test_chunk_of_a_real_program_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", "/bin/ls"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert re.fullmatch(
        r"chunkscope: /bin/ls: looks like a binary file \(NUL bytes at byte \d+\), "
        r"not a log or markdown",
        line,
    )


def test_gzip_of_a_binary_and_utf16_text_are_named(tmp_path: Path) -> None:
    packed = tmp_path / "session.jsonl.gz"
    packed.write_bytes(gzip.compress(_program(tmp_path / "x").read_bytes()))
    with pytest.raises(NotText, match="looks like a binary file"):
        load(packed)
    utf16 = tmp_path / "notes.md"
    utf16.write_bytes("# Notes\n\nThe cache keeps every entry.\n".encode("utf-16"))
    with pytest.raises(NotText, match="looks like UTF-16 text, not UTF-8"):
        load(utf16)
    no_bom = tmp_path / "notes2.md"
    no_bom.write_bytes("# Notes\n\nThe cache keeps every entry.\n".encode("utf-16-le"))
    with pytest.raises(NotText, match="UTF-16"):
        check_text(no_bom)


def test_text_with_a_stray_nul_or_bad_byte_is_still_read(tmp_path: Path) -> None:
    """A log with a raw NUL in one line, or a Latin-1 byte, is text: read with a warning."""
    good = json.dumps({"role": "user", "content": "Fix the cache please"})
    log = tmp_path / "nul.jsonl"
    log.write_bytes((good + "\n").encode() * 5 + b'{"role": "user", "content": "a\x00b"}\n')
    source = load(log)  # the NUL line too (it was skipped as not JSON)
    assert len(source.turns) == 6 and not source.skipped
    assert [(w.line, "NUL" in w.reason) for w in source.warnings] == [(6, True)]
    doc = tmp_path / "latin.md"
    doc.write_bytes(b"# Caf\xe9\n\nThe caf\xe9 menu, with \xe9clairs.\n")
    assert load(doc).turns


@pytest.mark.parametrize(
    "path",
    [
        *sorted(
            p
            for folder in ("sample_logs", "tests/fixtures", "docs")
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and p.suffix in (".jsonl", ".json", ".md", ".gz")
        ),
        ROOT / "README.md",
    ],
    ids=lambda p: p.name,
)
def test_every_bundled_and_real_file_is_text(path: Path) -> None:
    check_text(path)


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=400))
def test_any_utf8_text_is_text(text: str) -> None:
    assert binary_reason(text.encode()) is None


async def test_the_workbench_opening_a_binary_file_says_so_and_keeps_running(
    tmp_path: Path,
) -> None:
    binary = _program(tmp_path / "session.jsonl")
    app = make_app(binary)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any(n.severity == "error" for n in app._notifications))
        (error,) = [n.message for n in app._notifications if n.severity == "error"]
        assert "looks like a binary file (NUL bytes at byte 7)" in error
        assert app.is_running and app.pipe is None


def test_review_refuses_a_binary_transcript_and_says_where_it_looked(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(isolated / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    project = (isolated / "proj").resolve()
    project.mkdir()
    folder = isolated / "home" / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    # No transcripts folder at all: the message names the folder it looked for.
    assert main(["review", str(project)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"no Claude Code session to review (looked in {folder}, which does not exist" in line
    folder.mkdir(parents=True)
    _program(folder / "s1.jsonl")
    assert main(["review", str(project)]) == 2
    # no session there: the program named *.jsonl is passed over, and said (walk 26, F6)
    line = one_error_line(capsys.readouterr().err)
    assert f"no Claude Code session to review (looked in {folder}: passed over s1.jsonl, " in line
    assert "looks like a binary file (NUL bytes at byte 7)" in line
    shutil.rmtree(folder)


@pytest.mark.parametrize(
    ("name", "data", "line"),
    [
        ("doc.md", b"hello\nworld\x00\nmore text here\n", 2),
        (
            "log.jsonl",
            b'{"role":"user","content":"hi \x00 there"}\n{"role":"assistant","content":"ok"}\n',
            1,
        ),
        (
            "chat.aider.chat.history.md",
            b"# aider chat started at 2024-05-01 10:00:00\n\n#### fix the \x00 bug\n\nDone.\n",
            3,
        ),
    ],
    ids=["markdown", "jsonl", "aider"],
)
def test_a_stray_nul_is_read_with_a_warning(
    tmp_path: Path, name: str, data: bytes, line: int
) -> None:
    """Walk 11, 1: a stray NUL in a text file (too few to make it binary) went into the
    chunks as it was, with no warning (a markdown file; a JSONL line was skipped as not
    JSON): it is read as U+FFFD with a `path:line` warning, as invalid UTF-8 is, and no
    text keeps it."""
    path = tmp_path / name
    path.write_bytes(data)
    source = load(path)
    assert any(w.line == line and "NUL byte" in w.reason for w in source.warnings), source.warnings
    assert source.turns and not source.skipped
    assert all("\x00" not in t.text for t in source.turns)
    assert any("\ufffd" in t.text for t in source.turns)
