"""Walk 25's findings (a fresh review after walk 24's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.pilot import SAMPLE

pytestmark = pytest.mark.usefixtures("isolated")


def _tar(tmp_path: Path, name: str, member: Path, gz: bool = False) -> Path:
    out = tmp_path / name
    with tarfile.open(out, "w:gz" if gz else "w") as tar:
        tar.add(member, arcname=member.name)
    return out


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda t: _tar(t, "j.tar", SAMPLE), "looks like a tar archive (unpack it first)"),
        (lambda t: _tar(t, "j.tgz", SAMPLE, gz=True), "looks like a tar archive"),
        (lambda t: _tar(t, "small.tar", _small(t)), "looks like a tar archive"),
        (lambda t: _bytes(t, "zeros.jsonl", bytes(4096)), "looks like a binary file"),
        (lambda t: _bytes(t, "lib.a", b"!<arch>\n" + bytes(range(256)) * 4), "an ar archive"),
    ],
)
def test_an_archive_or_a_file_of_nuls_is_named_not_read_nor_called_utf16(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, said: str
) -> None:
    """F1: a tar holding a big log was read as markdown (4% NULs, exit 0), a small one
    and a file of NUL bytes were called UTF-16/UTF-32 text with an `iconv` line that
    gave them back unchanged; an `ar` archive too."""
    f = make(tmp_path)  # type: ignore[operator]
    for argv in (
        ["chunk", str(f)],
        ["recap", str(SAMPLE), "--scorer", "salience", "--memories", str(f)],
        ["eval", str(SAMPLE), "--gold", str(f)],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        # a side file is not decompressed: a .tgz is gzip-compressed data there
        named = said in err or (f.suffix == ".tgz" and "gzip-compressed data" in err)
        assert named and err.count("\n") == 1 and "UTF-" not in err, (argv, err)


def _small(tmp_path: Path) -> Path:
    f = tmp_path / "small.md"
    f.write_text("# Hi\n\nsmall\n", encoding="utf-8")
    return f


def _bytes(tmp_path: Path, name: str, data: bytes) -> Path:
    f = tmp_path / name
    f.write_bytes(data)
    return f
