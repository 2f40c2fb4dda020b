"""Walk 24's findings (a fresh review after walk 23's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkscope.tui.cli import main

pytestmark = pytest.mark.usefixtures("isolated")

_TEXT = "# Notes\n\nThe cache keeps every entry until the hour is up.\n" * 8


@pytest.mark.parametrize(
    "encoding", ["utf-32", "utf-32-le", "utf-32-be", "utf-16", "utf-16-le", "utf-16-be"]
)
def test_text_in_another_unicode_encoding_is_named_so_its_advice_converts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    """F1: a UTF-32 file was called UTF-16 (its BOM starts as UTF-16's), and the
    advice's `iconv -f UTF-16` gave a file refused with the same words; without a BOM
    the byte order has to be named for the advice to convert it."""
    f = tmp_path / "notes.md"
    f.write_bytes(_TEXT.encode(encoding))
    assert main(["chunk", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    named = re.search(r"looks like (UTF-\S+) text, not UTF-8 \(convert it: iconv -f (\S+) ", err)
    assert named is not None, err
    assert named.group(1) == named.group(2)
    assert f.read_bytes().decode(named.group(2)).removeprefix("\ufeff") == _TEXT
