"""Walk 27's findings (a fresh review after walk 26's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import codex_shell, seed_log

pytestmark = pytest.mark.usefixtures("isolated")


_PATCH = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n"
_PATCH += "*** End Patch\nEOF"


def test_a_patch_followed_by_more_commands_is_a_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 27, F3: a Codex shell command that applied a patch and then ran the tests
    read "Patch of src/a.py failed: Success. Updated ..." (the test run's exit 1 taken for
    the patch's), and the recap counted the applied patch as no edit. A command that goes
    on after the patch is a command; a patch alone is still a patch."""
    out = "Exit code: 1\nOutput:\nSuccess. Updated the following files:\nM src/a.py\n.F\n"
    out += "1 failed, 1 passed in 0.1s\n"
    alone = "Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/b.py\n"
    log = codex_shell(
        tmp_path,
        (f"{_PATCH}\npython -m pytest -q", out),
        (_PATCH.replace("src/a.py", "src/b.py"), alone),
    )
    assert main(["chunk", str(log), "--collapse"]) == 0
    said = capsys.readouterr().out
    assert "Patch of src/a.py failed" not in said, said
    assert "python -m pytest" in said or "python ...` (exit 1): 1 failed, 1 passed" in said
    assert "Tool: Edited src/b.py." in said
    assert main(["recap", str(log)]) == 0
    files = capsys.readouterr().out.split("## Files changed\n", 1)[1].split("\n\n", 1)[0]
    assert "a.py (1 edit)" in files and "b.py (1 edit)" in files, files


def _seed_recap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *said: tuple[str, str], budget: int = 1000
) -> str:
    log = seed_log(tmp_path, said)
    assert main(["recap", str(log), "--budget", str(budget)]) == 0
    return capsys.readouterr().out


def test_html_tags_in_code_are_kept_in_a_folded_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 27, F10: walk 26's fix took `<details>` and `<summary>` out of a folded line
    everywhere, so inline code `` `<details>` `` became an empty span and the user's HTML
    lost its tags. Only a disclosure block's own lines lose them."""
    request = (
        "Add a collapsible log to the page template:\n\n```html\n<details>\n"
        "<summary>Build log</summary>\n<pre>{{ log }}</pre>\n</details>\n```\n\n"
        "and keep it closed by default."
    )
    last = "I added the `<details>` block with a `<summary>` to templates/page.html."
    out = _seed_recap(tmp_path, capsys, ("user", request), ("assistant", last))
    assert "`<details> <summary>Build log</summary> <pre>{{ log }}</pre> </details>`" in out
    assert "I added the `<details>` block with a `<summary>` to templates/page.html." in out


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (
            "python -m pytest -q tests/test_`uname -m`.py",
            "Last check: ``python -m pytest -q tests/test_`uname -m`.py`` -> 12 passed",
        ),
        (
            "python -m pytest tests/unit/**/test_*.py tests/integration/test_cache_roundtrip.py"
            " tests/integration/test_store.py -q --maxfail=1 -p no:randomly",
            "Last check: `python -m pytest tests/unit/**/test_*.py tests/integration/"
            "test_cache_roundtrip.py tests/integration/test_store.py...` -> 12 passed",
        ),
    ],
    ids=["backtick", "glob"],
)
def test_the_last_check_s_command_is_one_code_span_cut_with_nothing_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, shown: str
) -> None:
    """Walk 27, F4: "Last check" wrapped the command in one pair of backticks whatever it
    held (a command with a backtick rendered broken), and a cut command with `**` in it
    (a glob) got a stray `**` added, as if it closed bold."""
    log = codex_shell(tmp_path, (command, "Exit code: 0\nOutput:\n12 passed in 0.53s\n"))
    assert main(["recap", str(log)]) == 0
    out = capsys.readouterr().out
    assert shown in out, out


def test_a_patch_that_deletes_or_adds_a_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 27, F7: a Codex patch that deleted a file read "Edited app.js." and the recap
    listed `app.js (1 edit)`; one that added a file read "Edited" too."""
    delete = "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: app.js\n*** End Patch\nEOF"
    add = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.md\n+# Notes\n"
    add += "*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\nEOF"
    ok = "Exit code: 0\nOutput:\nSuccess.\n"
    log = codex_shell(tmp_path, (delete, ok), (add, ok))
    assert main(["chunk", str(log), "--collapse"]) == 0
    said = capsys.readouterr().out
    assert "Tool: Deleted app.js." in said, said
    assert "Tool: Created notes.md; edited src/a.py." in said, said
    assert main(["recap", str(log)]) == 0
    files = capsys.readouterr().out.split("## Files changed\n", 1)[1].split("\n\n", 1)[0]
    assert "app.js (deleted)" in files and "a.py (1 edit)" in files, files


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("log.jsonl.bz2", "bz2", "looks like bzip2-compressed data (decompress it first: bunzip2"),
        ("log.jsonl.xz", "xz", "looks like xz-compressed data (decompress it first: unxz"),
        (
            "export.zip.gz",
            "zipgz",
            "is gzip-compressed (decompress it first: gunzip -k); inside, "
            "it looks like a zip archive",
        ),
        ("zh.md", "utf-16-le", "looks like UTF-16LE text, not UTF-8"),
        ("ru.md", "utf-16-be", "looks like UTF-16BE text, not UTF-8"),
    ],
    ids=["bzip2", "xz", "zip-in-gzip", "utf16le-cjk", "utf16be-cyrillic"],
)
def test_compressed_or_utf16_input_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: str, said: str
) -> None:
    """Walk 27, F1, F2, F9: a zip inside a gzip was told to "unzip it"; a log compressed
    with bzip2 or xz was "a binary file (NUL bytes at byte 11)"; Chinese or Russian text
    in UTF-16 without a byte order mark was "a binary file" (only ASCII was named)."""
    import bz2
    import gzip
    import io
    import lzma
    import zipfile

    log = b'{"role": "user", "content": "hello there"}\n' * 40
    if data == "bz2":
        raw = bz2.compress(log)
    elif data == "xz":
        raw = lzma.compress(log)
    elif data == "zipgz":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("conversations.json", "[]")
        raw = gzip.compress(buf.getvalue())
    else:
        text = "这是中文文本。我们比较了两种缓存。\n" if "le" in data else "Это русский текст.\n"
        raw = (text * 30).encode(data)
    f = tmp_path / name
    f.write_bytes(raw)
    assert main(["chunk", str(f)]) == 2
    err = capsys.readouterr().err
    assert said in err and "\n" not in err.strip(), err


def test_report_latest_keeps_the_folder_s_path_off_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 27, F12: `report DIR --latest` printed DIR's absolute path in "The same run",
    beside the page's own note that absolute paths name the file only (a Claude Code
    project folder's name spells out the user's home)."""
    import shutil

    from tests.pilot import SAMPLE

    folder = tmp_path / "home-alice-private" / "proj"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "s.jsonl")
    out = tmp_path / "r.html"
    assert main(["report", str(folder), "--latest", "-o", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert "home-alice-private" not in page and str(tmp_path) not in page
    assert "chunkscope report proj --latest -o r.html" in page


def test_a_doctest_s_prompts_in_a_code_block_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 27, F10: a doctest's `>>>` prompts in a code block were taken for a quote's
    markers and dropped from the Task; a quoted block's markers still go."""
    request = "The parser drops a trailing comma:\n\n```\n>>> parse('1,2,')\n[1, 2, None]\n```"
    request += "\n\nIt should return [1, 2]."
    quoted = "The log says:\n\n> ```\n> ValueError: bad\n> ```\n\nSo the value was bad."
    out = _seed_recap(tmp_path, capsys, ("user", request), ("assistant", quoted))
    assert "`>>> parse('1,2,') [1, 2, None]`" in out, out
    assert "The log says: `ValueError: bad`. So the value was bad." in out, out


@pytest.mark.parametrize(
    ("last", "lines", "whole"),
    [
        (
            "The chart now shows both series, as asked.\n\n![the new chart](docs/chart.png)",
            ("The chart now shows both series, as asked.",),
            "The chart now shows both series, as asked.",
        ),
        (
            "I moved the port setting.\n\nsrc/app/config.py\n\nIt reads PORT from the "
            "environment now.",
            ("I moved the port setting.", "It reads PORT from the environment now."),
            "I moved the port setting. src/app/config.py It reads PORT from the environment now.",
        ),
        (
            "Done.\n\n| file | status |\n|---|---|\n| a.py | fixed |\n\n---\n\nAll green.",
            None,
            "Done. file, status; a.py, fixed. All green.",
        ),
    ],
    ids=["image", "bare-path", "table-and-rule"],
)
def test_where_it_stopped_keeps_no_markup_beside_words(
    last: str, lines: tuple[str, ...] | None, whole: str
) -> None:
    """Walk 27, F5 and F11: "Where it stopped" kept an image embed after words, a bare
    path as a line of its own beside sentences (when room was short, those were what
    was kept), and a table's or a rule's markup in the message said whole."""
    from chunkscope.engine.recap.sections import _last_lines

    said, folded = _last_lines([last])
    if lines is not None:
        assert said == lines, said
    assert folded.strip() == whole, folded


def test_an_abbreviated_aider_command_is_no_request() -> None:
    """Walk 27, F6: aider runs `/res` as `/reset` (it takes a command's unique start),
    and the recap's Task said `Later: /res`. A user's own command with words after it is
    still a request."""
    from chunkscope.engine.read.commands import command_request

    assert command_request("/res") is None
    assert command_request("/tok") is None  # /tokens
    assert command_request("/review the parser") == "/review the parser"
    assert command_request("/x") == "/x"  # one letter abbreviates nothing


def test_the_report_s_flags_table_has_every_option_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 27, F8: `--headings`, `--no-collapse`, `--tokenizer` and `--gold` shaped the
    page and had no row in its flags table (walk 26's fix covered a strategy's flags
    only). Each has its row, set; the gold file by its name."""
    from tests.pilot import SAMPLE
    from tests.test_report import _texts, report

    gold = tmp_path / "marks" / "gold.json"
    gold.parent.mkdir()
    gold.write_text('{"starts": [1, 44, 90]}', encoding="utf-8")
    argv = [str(SAMPLE), "--tokenizer", "o200k_base", "--no-collapse", "--headings"]
    code, html = report(tmp_path, capsys, *argv, "--gold", str(gold))
    assert code == 0
    cells = _texts(html, "td")
    rows = {cells[i]: cells[i + 1] for i in range(len(cells) - 1) if cells[i].startswith("--")}
    assert rows.get("--tokenizer") == "o200k_base", rows
    assert rows.get("--no-collapse") == "true" and rows.get("--headings") == "true", rows
    assert rows.get("--gold") == "gold.json", rows
    assert str(gold.parent) not in html
