"""Walk 43's findings. F1: a file whose first 64 KB are text and the rest binary (random
bytes with NULs after a document's head) was read: exit 0, a thousand warnings, U+FFFD
by the thousand in chunks, recaps and reports. The head alone was judged; the whole file
now is, as it is read, by the head's rule. F2: an excluded chunk whose every sentence the
recap says elsewhere showed an empty row."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, cast

import pytest

from chunkscope.engine.errors import NotText
from chunkscope.engine.read.parse import load
from chunkscope.tui.cli import main
from tests.hostile.proc import one_error_line
from tests.pilot import SIZE, make_app, until

pytestmark = pytest.mark.usefixtures("isolated")

LOG = Path(__file__).resolve().parents[1] / "sample_logs" / "cache_refactor.jsonl"

#: A text head longer than the part `check_text` judges (64 KB).
HEADS = {
    "notes.md": b"# Title\n\n" + b"Some words about the cache here.\n" * 2400,
    "session.jsonl": b'{"role": "user", "content": "Fix the cache please"}\n' * 1600,
    "chat.aider.chat.history.md": b"# aider chat started at 2024-05-01 10:00:00\n\n"
    + b"#### fix the cache\n\nDone, the cache is fixed.\n\n" * 1800,
}


def _binary_tail(path: Path, head: bytes) -> int:
    """`head`, then 200 KB of random bytes; where its first NUL byte is."""
    tail = random.Random(43).randbytes(200_000)
    path.write_bytes(head + tail)
    assert len(head) > 1 << 16
    return len(head) + tail.index(b"\x00")


@pytest.mark.parametrize("name", sorted(HEADS))
@pytest.mark.parametrize(
    "command", [["chunk"], ["recap"], ["report", "-o", "page.html"], ["search", "cache"]]
)
def test_a_binary_file_behind_a_text_head_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: list[str]
) -> None:
    path = tmp_path / name
    nul = _binary_tail(path, HEADS[name])
    code = main([command[0], str(path), *command[1:]])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert one_error_line(captured.err) == (
        f"chunkscope: {path}: looks like a binary file (NUL bytes at byte {nul}), "
        "not a log or markdown"
    )
    assert not (tmp_path / "page.html").exists()


def test_a_long_text_with_stray_bad_bytes_past_its_head_is_still_read(tmp_path: Path) -> None:
    """A few NULs and Latin-1 bytes after the head (a text file, damaged a little) are
    read with a warning each, as in the head."""
    doc = tmp_path / "notes.md"
    doc.write_bytes(HEADS["notes.md"] + b"The caf\xe9 menu.\n" * 50 + b"A stray \x00 here.\n")
    source = load(doc)
    assert source.turns and len(source.warnings) == 51
    latin = tmp_path / "latin.md"  # accents on every line, well past the head
    latin.write_bytes(b"# Menu\n\n" + b"Caf\xe9 cr\xe8me br\xfbl\xe9e, \xe9clairs.\n" * 6000)
    assert load(latin).turns


def test_a_file_of_another_encoding_past_an_ascii_head_is_named(tmp_path: Path) -> None:
    doc = tmp_path / "notes.md"
    text = "キャッシュを永続化する。データベースに保存します。\n" * 4000
    doc.write_bytes(HEADS["notes.md"] + text.encode("shift_jis"))
    with pytest.raises(NotText, match="looks like text in another encoding than UTF-8"):
        load(doc)


async def test_the_workbench_says_so_and_keeps_running(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    nul = _binary_tail(path, HEADS["notes.md"])
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any(n.severity == "error" for n in app._notifications))
        (error,) = [n.message for n in app._notifications if n.severity == "error"]
        assert f"looks like a binary file (NUL bytes at byte {nul})" in error
        assert app.is_running and app.pipe is None


def _recap(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    assert main(["recap", str(LOG), "--format", "json", *flags]) == 0
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def test_an_excluded_chunk_said_already_keeps_its_own_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """F2: excluding a chunk whose every sentence the recap says elsewhere blanked its row
    (`0t excluded`, no summary), while other excluded rows kept theirs."""
    plain = _recap(capsys)
    said = [c for c in plain["candidates"] if c["reason"] == "said already"]
    assert said
    for row in said[:3]:
        excluded = _recap(capsys, "--exclude", str(row["index"]))
        (mine,) = [c for c in excluded["candidates"] if c["index"] == row["index"]]
        assert mine["reason"] == "excluded"
        assert (mine["abstract"], mine["summary"], mine["tokens"]) == (
            row["abstract"],
            row["summary"],
            row["tokens"],
        )
        assert mine["summary"] and mine["tokens"] > 0
        assert excluded["recap"] == plain["recap"]  # it said nothing: the same recap
