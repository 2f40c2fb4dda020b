"""What walk 28 left open, fixed in the session after it (each test fails on the code
before its fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pilot import SAMPLE


def _flag_rows(html: str) -> dict[str, str]:
    from tests.test_report import _texts

    cells = _texts(html, "td")
    return {cells[i]: cells[i + 1] for i in range(len(cells) - 1) if cells[i].startswith("--")}


@pytest.mark.parametrize(
    ("argv", "knob", "default"),
    [
        (("--topics", "5"), "--topic-depth", "7"),
        (("--chunks", "12", "--merge", "seed"), "--threshold", "adaptive"),
    ],
)
def test_the_knob_a_count_sets_shows_the_value_the_page_was_made_at(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    knob: str,
    default: str,
) -> None:
    """Walk 28, F6: with `--topics 5` the flags table said `--topic-depth 7` (the
    setting's default) for a page made at the depth that gives 5 topics; a reader who
    reran with it got another page."""
    from tests.test_report import report

    code, html = report(tmp_path, capsys, str(SAMPLE), *argv)
    assert code == 0
    rows = _flag_rows(html)
    assert rows[knob] != default, rows
    float(rows[knob])  # a value a flag takes
    assert rows[argv[0]] == argv[1]


def test_an_empty_strategy_parameter_says_an_empty_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F6: `--topic-markers` unset showed an empty cell, where every other value
    is JSON-style (`--max-passes null`)."""
    from tests.test_report import report

    code, html = report(tmp_path, capsys, str(SAMPLE), "--strategy", "boundary")
    assert code == 0
    assert _flag_rows(html)["--topic-markers"] == '""'


def _gzip_cut_in_its_first_line(path: Path) -> Path:
    """A gzip file cut short (a download stopped) before its first line ends."""
    import gzip

    line = SAMPLE.read_bytes().splitlines(keepends=True)[0]
    path.write_bytes(gzip.compress(line * 50)[:100])
    return path


def test_a_gzip_file_cut_in_its_first_line_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F1: a gzip file cut short inside its first line was "no turns: the file
    is empty or has nothing to read"; every longer cut says the compressed file ends
    early."""
    from chunkscope.tui.cli import main

    path = _gzip_cut_in_its_first_line(tmp_path / "cut.jsonl")
    assert main(["chunk", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "the compressed file ends early" in err and "empty" not in err, err


def test_bytes_after_a_whole_gzip_stream_are_not_said_to_lose_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F1: stray bytes after a whole gzip stream warned "the compressed file
    ends early ... the rest is lost", though the whole log was read."""
    import gzip

    from chunkscope.tui.cli import main

    path = tmp_path / "tail.jsonl"
    path.write_bytes(gzip.compress(SAMPLE.read_bytes()) + b"garbage")
    assert main(["chunk", str(path), "--format", "json", "-o", str(tmp_path / "o.json")]) == 0
    err = capsys.readouterr().err
    assert "ends early" not in err and "rest is lost" not in err, err
    assert "not gzip" in err and "left out" in err, err
    whole = main(["chunk", str(SAMPLE), "--format", "json", "-o", str(tmp_path / "w.json")])
    assert whole == 0
    import json

    got = json.loads((tmp_path / "o.json").read_text())["chunks"]
    want = json.loads((tmp_path / "w.json").read_text())["chunks"]
    assert [c["text"] for c in got] == [c["text"] for c in want]


@pytest.mark.parametrize(("layers", "said"), [(2, "twice"), (3, "3 times")])
def test_a_file_gzip_compressed_several_times_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layers: int, said: str
) -> None:
    """Walk 28, F1: a file gzip-compressed three times was "compressed twice"."""
    import gzip

    from chunkscope.tui.cli import main

    data = SAMPLE.read_bytes()
    for _ in range(layers):
        data = gzip.compress(data)
    path = tmp_path / "g.jsonl"
    path.write_bytes(data)
    assert main(["chunk", str(path)]) == 2
    assert f"gzip-compressed {said} (decompress it {said})" in capsys.readouterr().err


def test_a_legacy_lzma_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Walk 28, F1: a `.lzma` file (lzma's own format, not xz) was "a binary file"."""
    import lzma

    from chunkscope.tui.cli import main

    path = tmp_path / "l.jsonl"
    path.write_bytes(lzma.compress(SAMPLE.read_bytes(), format=lzma.FORMAT_ALONE))
    assert main(["chunk", str(path)]) == 2
    assert "lzma-compressed data (decompress it first: unlzma -k)" in capsys.readouterr().err


def test_a_folder_s_empty_and_blank_documents_are_nothing_to_read(tmp_path: Path) -> None:
    """Walk 28, F5: an empty markdown file was listed among the documents to open; Enter
    on it then failed with "Could not open the file"."""
    from chunkscope.engine.read.formats.folders import list_sessions, set_apart

    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "blank.md").write_text("\n   \n\n", encoding="utf-8")
    (tmp_path / "doc.md").write_text("# A doc\n\nSome words.\n", encoding="utf-8")
    _, docs, unread = set_apart(list_sessions(tmp_path))
    assert [Path(d.path).name for d in docs] == ["doc.md"]
    assert sorted((Path(i.path).name, why) for i, why in unread) == [
        ("blank.md", "blank"),
        ("empty.md", "empty"),
    ]


async def test_enter_on_a_picker_row_of_nothing_to_read_says_its_advice(
    tmp_path: Path,
) -> None:
    """Walk 28, F5: Enter on a bzip2 file's row said "looks like bzip2-compressed data",
    without the advice the command line gives (`bunzip2 -k`); a gzip cut short said
    "no turns: the compressed file ends early" without what gzip said."""
    import bz2

    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import picker_listed, recording_notifications

    (tmp_path / "bz.jsonl").write_bytes(bz2.compress(SAMPLE.read_bytes()))
    app = ChunkscopeApp(StartOptions(folder=str(tmp_path), fixed_timings=True))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await picker_listed(pilot, app)
        box = screen.query_one("#sessions", OptionList)
        box.focus()
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        assert str(box.get_option_at_index(box.highlighted or 0).id).startswith("unread:")
        said = recording_notifications(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert any("bunzip2 -k" in s for s in said), said


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (  # a setext heading's underline was a word: "Summary ======= The fix is in."
            "Summary\n=======\n\nThe fix is in.\n\nNext steps\n----------\n\nRun the bench.",
            "Summary: The fix is in. Next steps: Run the bench.",
        ),
        (  # bullets ran inline as dashes: "Summary - fixed eviction - added test Next"
            "## Summary\n\n- fixed eviction\n- added test\n\n## Next\n\nRun the benchmarks.",
            "Summary: fixed eviction; added test. Next: Run the benchmarks.",
        ),
        (  # task boxes: "- [x] fix eviction - [ ] add benchmark"
            "- [x] fixed the eviction bug\n- [ ] add a benchmark for it",
            "done: fixed the eviction bug; to do: add a benchmark for it.",
        ),
        (  # a pipe in code and an escaped one were cell boundaries: `a; b`, "bug \\; fix"
            "| file | change | reason |\n|:--|:-:|--:|\n| `a|b` | edited | bug \\| fix |\n\n"
            "All done.",
            "file, change, reason; `a|b`, edited, bug | fix. All done.",
        ),
        (  # a badge left an empty link: "Fixed it. [](https://ci/run/1)"
            "Fixed it. [![CI](https://ci/badge.svg)](https://ci/run/1)",
            "Fixed it.",
        ),
        (  # an inline disclosure glued its words: "Log12 passed All good."
            "<details><summary>Log</summary>12 passed</details> All good.",
            "Log: 12 passed. All good.",
        ),
        (  # an HTML image was kept as it is
            'The chart shows the fix.\n\n<img src="out/chart.png" width=300>',
            "The chart shows the fix.",
        ),
    ],
    ids=["setext", "bullets", "task-boxes", "table-pipes", "badge", "details", "img"],
)
def test_where_it_stopped_says_blocks_without_their_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], last: str, expected: str
) -> None:
    """Walk 28, F4 and F18: a folded "Where it stopped" kept a block's markup as words,
    or changed the user's code (a pipe in a code span became a cell boundary)."""
    from tests.test_walk26 import _recap_of, _stopped

    recap = _recap_of(tmp_path, capsys, last)
    assert _stopped(recap) == expected, recap


def test_a_listed_task_is_said_without_its_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F4: the Task read ``Tasks ===== 1. fix the eviction bug 2. add a
    regression test * run the benchmarks``."""
    from chunkscope.tui.cli import main
    from tests.logs import seed_log

    request = (
        "Tasks\n=====\n\n1. fix the eviction bug\n2. add a regression test\n3. run the benchmarks"
    )
    log = seed_log(tmp_path, [("user", request), ("assistant", "On it.")])
    assert main(["recap", str(log)]) == 0
    task = capsys.readouterr().out.split("## Task\n", 1)[1].split("\n", 1)[0]
    assert task == (
        "Tasks: 1. fix the eviction bug; 2. add a regression test; 3. run the benchmarks."
    )


def test_thai_is_a_request_and_gets_no_ascii_full_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 28, F3: a Thai request (Thai puts no spaces between words) was no request, so
    the recap had no Task; and a Thai sentence got an ASCII '.' (Thai ends a sentence
    with a space)."""
    from chunkscope.tui.cli import main
    from tests.logs import seed_log

    log = seed_log(tmp_path, [("user", "ช่วยแก้บั๊กแคชหน่อย"), ("assistant", "แก้ไขแล้ว ทดสอบผ่านทั้งหมด")])
    assert main(["recap", str(log)]) == 0
    out = capsys.readouterr().out
    assert "## Task\nช่วยแก้บั๊กแคชหน่อย\n" in out, out
    assert "หน่อย." not in out and "ทั้งหมด." not in out, out


def test_chinese_sentences_are_joined_without_a_space() -> None:
    """Walk 28, F3: a summary of Chinese read ``改成了LRU。 旧的实现``: Chinese puts no
    space after its full stop."""
    from chunkscope.engine.summarize.extractive import joined

    chinese = ["改成了LRU。", "旧的实现会无限增长！", "Done."]
    assert joined(chinese) == "改成了LRU。旧的实现会无限增长！Done."
    assert joined(["It works.", "Tests pass."]) == "It works. Tests pass."
    assert joined(["ठीक कर दिया।", "सभी परीक्षण पास हुए।"]) == "ठीक कर दिया। सभी परीक्षण पास हुए।"


def test_a_gold_start_on_the_first_item_s_line_is_the_file_s_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 29, F1: a gold start on the first turn's line (a Codex log's first turn is on
    line 2, after its metadata) was a cut to find that no setting can make (the first
    chunk starts the file): F1 0.000, and every setting ranked against it."""
    import json

    from chunkscope.tui.cli import main
    from tests.logs import codex_shell

    log = codex_shell(tmp_path, *[(f"echo step {i}", f"step {i}\n" * 3) for i in range(12)])
    first = 2  # the user's task, after session_meta
    assert json.loads(log.read_text().splitlines()[first - 1])["payload"]["role"] == "user"
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [first]}), encoding="utf-8")
    out = tmp_path / "e.json"
    assert main(["eval", str(log), "--gold", str(gold), "--format", "json", "-o", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text())
    assert doc["marked_cuts"] == 0, doc  # the one mark is the file's own start
    assert doc["gold_segments"] == 1, doc


async def test_a_mark_on_the_first_item_is_refused_when_it_is_not_on_line_1(
    tmp_path: Path, isolated: Path
) -> None:
    """Walk 29, F1: `m` on the first item of a log whose first turn is not on line 1 was
    kept as a mark (line 2 of a Codex log) that no cut can ever hit: "0 hit · 1 missed",
    F1 0.000. It is refused as a mark on line 1 is."""
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from tests.logs import codex_shell
    from tests.pilot import make_app, recording_notifications, settled

    log = codex_shell(tmp_path, *[(f"echo step {i}", f"step {i}\n" * 3) for i in range(6)])
    app = make_app(log)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        before = app.workbench.query_one("#before", ChunkList)  # type: ignore[union-attr]
        before.focus()
        before.select(0, post=True)
        await pilot.pause()
        said = recording_notifications(app)
        await pilot.press("m")
        await pilot.pause()
        assert app.file_marks is not None and not app.file_marks.starts, said
        assert any("always starts at the first item (line 2" in s for s in said), said


@pytest.mark.parametrize(
    ("sentence", "markup"),
    [
        ("src/a.py", True),
        ("c\\d", True),
        ("(path/to/f.py)", True),
        ("see path/to/f.py for it", False),
        ("x" * 5000, False),  # letters: a word, however long (no path in it)
        ("aGVsbG8gd29ybGQ=/" * 300, True),
    ],
)
def test_paths_are_no_prose_wherever_the_word_starts(sentence: str, markup: bool) -> None:
    """Walk 29, F2 made the path pattern start at a word's start only (it was quadratic
    in a run without spaces: a minute for a recap of a 50,000-character line, measured
    in the closing note); what it leaves out of prose is the same."""
    from chunkscope.engine.summarize.extractive import is_markup

    assert is_markup(sentence) is markup


def test_an_mcp_call_reads_alike_from_the_api_and_from_claude_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 29, F4: the Anthropic API's `mcp_tool_use` block lost its server (`Called
    list_issues repo=o/r.`) where Claude Code's `mcp__github__list_issues` says it."""
    import json

    from chunkscope.tui.cli import main
    from tests.logs import claude_log

    call = {"repo": "o/r"}
    api = tmp_path / "chat.json"
    api.write_text(
        json.dumps(
            [
                {"role": "user", "content": "List the open issues."},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "mcp_tool_use",
                            "id": "m1",
                            "name": "list_issues",
                            "server_name": "github",
                            "input": call,
                        },
                        {"type": "mcp_tool_result", "tool_use_id": "m1", "content": "#1 crash"},
                    ],
                },
            ]
        ),
        encoding="utf-8",
    )
    use = {"type": "tool_use", "id": "t1", "name": "mcp__github__list_issues", "input": call}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "#1 crash"}
    cc = claude_log(
        tmp_path,
        [("user", "List the open issues."), ("assistant", [use]), ("user", [result])],
    )
    said = []
    for path in (api, cc):
        assert main(["chunk", str(path), "--collapse"]) == 0
        out = capsys.readouterr().out
        said.append([line.split("Tool: ", 1)[1] for line in out.splitlines() if "Tool: " in line])
    assert said[0] == said[1] == ["Called list_issues on github: repo=o/r."], said


async def test_the_picker_tells_files_of_one_name_apart_by_their_folder(tmp_path: Path) -> None:
    """Walk 29, F3: two files of one name in two subfolders (a copy in `backup/`) were
    two rows alike (name, size, first words); each names its folder now."""
    import shutil

    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import picker_listed

    for folder in ("a", "backup"):
        (tmp_path / folder).mkdir()
        shutil.copy(SAMPLE, tmp_path / folder / "s.jsonl")
    shutil.copy(SAMPLE, tmp_path / "other.jsonl")
    app = ChunkscopeApp(StartOptions(folder=str(tmp_path), fixed_timings=True))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await picker_listed(pilot, app)
        box = screen.query_one("#sessions", OptionList)
        rows = [str(box.get_option_at_index(i).prompt) for i in range(box.option_count)]
        assert sum("a/s.jsonl" in r for r in rows) == 1, rows
        assert sum("backup/s.jsonl" in r for r in rows) == 1, rows
        assert sum(" other.jsonl" in r for r in rows) == 1 and not any("/other" in r for r in rows)


@pytest.mark.parametrize("ranker", ["bm25", "embed"])
def test_a_word_after_a_colour_code_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ranker: str
) -> None:
    """Walk 29, F5: a coloured test run's `\\x1b[31mAssertionError` was indexed as the word
    `31massertionerror`: every view shows `AssertionError`, and no search found it."""
    from chunkscope.tui.cli import main
    from tests.logs import seed_log

    said = [
        ("user", "Run the parser tests and tell me what fails."),
        ("assistant", "Running them now."),
        ("tool", "test_quote \x1b[32mPASSED\x1b[0m\n\x1b[31mAssertionError: dropped\x1b[0m"),
        ("user", "Now update the README with the install steps for the project."),
        ("assistant", "The README now lists pip install and the first command to run."),
    ]
    log = seed_log(tmp_path, said)
    for word in ("AssertionError", "PASSED"):
        assert main(["search", str(log), word, "--ranker", ranker]) == 0
        out = capsys.readouterr().out
        assert "no chunk matches" not in out and "1. score" in out, out


def test_a_commit_whose_message_names_a_test_runner_is_no_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A commit's here-document message that says "make" or "mix test" was taken for a
    check run: Last check said `git commit ...` -> `create mode 100644 ...` (seen by the
    fixer of walk 28's F15 in a real Claude Code session)."""
    from chunkscope.tui.cli import main
    from tests.logs import codex_shell

    commit = (
        "git commit -m \"$(cat <<'EOF'\ntest: make the mix test suite pass\n\n"
        'Run make check before merging.\nEOF\n)"'
    )
    log = codex_shell(
        tmp_path,
        ("pytest -q", "12 passed in 0.40s\n"),
        (commit, "[main 1a2b3c4] test: make the mix test suite pass\n 1 file changed\n"),
    )
    assert main(["recap", str(log), "--budget", "4000"]) == 0
    out = capsys.readouterr().out
    last = out.split("Last check: ", 1)[1].split("\n", 1)[0]
    assert last.startswith("`pytest -q`") and "12 passed" in last, last


def test_a_log_ending_in_nul_padding_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 29, F6: a session log whose end is NUL padding (a crash after the file grew,
    before its data was written) was refused whole as "a binary file" once the padding
    passed a tenth of its first 64 KiB; the records before it are read, the NULs warned
    of as any stray NUL is. A file of NULs alone is still refused."""
    from chunkscope.tui.cli import main

    log = tmp_path / "crashed.jsonl"
    log.write_bytes(SAMPLE.read_bytes()[:30000] + b"\0" * 4096)
    assert main(["chunk", str(log)]) == 0
    out, err = capsys.readouterr()
    assert "NUL byte" in err and "binary" not in err, err
    assert out.strip()
    nuls = tmp_path / "nuls.jsonl"
    nuls.write_bytes(b"\0" * 5000)
    assert main(["chunk", str(nuls)]) == 2
    assert "binary file" in capsys.readouterr().err


def test_dedup_alone_sets_no_threshold_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 29 (other observations): with `--dedup` alone the flags table said
    `--dedup-threshold 0.85` set, though it was not given."""
    from tests.test_report import report

    code, html = report(tmp_path, capsys, str(SAMPLE), "--dedup")
    assert code == 0
    rows = _flag_rows(html)
    assert rows.get("--dedup") == "true" and "--dedup-threshold" not in rows, rows
    code, html = report(tmp_path, capsys, str(SAMPLE), "--dedup", "--dedup-threshold", "0.9")
    assert _flag_rows(html).get("--dedup-threshold") == "0.9"


def test_a_partial_gold_marking_only_the_first_item_is_still_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first version of walk 29's F1 fix left a partial gold whose every start is
    on the first item's line with no start to score its stretch by: `eval` failed with
    "partial gold needs a topic start after line 1" (the property test of the
    workbench's judge found it). Such a gold is scored as given."""
    import json

    from chunkscope.tui.cli import main
    from tests.logs import codex_shell

    log = codex_shell(tmp_path, *[(f"echo step {i}", f"step {i}\n" * 3) for i in range(12)])
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"starts": [2], "partial": True}), encoding="utf-8")
    out = tmp_path / "e.json"
    assert main(["eval", str(log), "--gold", str(gold), "--format", "json", "-o", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["partial"] is True


@pytest.mark.parametrize(
    ("sentence", "content"),
    [
        ("See src/cache/lru.py for it.", True),
        ("The fix is in foo-bar.py now.", True),
        ("Edited a.b.py only.", True),
        ("It reads the config.", False),
        ("deadbeef" * 400, False),  # a hex dump: no path, no file name (and now linear)
        ("deadbeef" * 400 + "/x", True),
    ],
)
def test_a_path_or_file_name_is_a_fact_from_its_run_s_start(sentence: str, content: bool) -> None:
    """Walk 30, F1 anchored the path and file-name marks at the start of their run (from
    every position of a long run, a hex dump's, the search was quadratic: 18 s for the
    recap of a 40,000-character dump, measured in the closing note); what they find is
    the same."""
    from chunkscope.engine.summarize.extractive import has_content

    assert has_content(sentence) is content


@pytest.mark.parametrize(
    "fixture",
    ["gemini-cli/agent-history-session-01.json", "mini-swe-agent/github_issue.traj.json"],
)
def test_a_json_document_ending_in_nul_padding_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fixture: str
) -> None:
    """Walk 30, F3: NUL padding after a one-document log (a Gemini CLI chat, rewritten
    whole at each turn; a trajectory) made it "skipped 3817 malformed lines": the
    document was not recognised, and read as JSON lines. It is read as without the
    padding, the NULs warned of."""
    import json

    from chunkscope.tui.cli import main

    source = Path(__file__).parent / "fixtures" / fixture
    padded = tmp_path / source.name
    padded.write_bytes(source.read_bytes() + b"\0" * 8192)
    turns = []
    for path in (source, padded):
        out = tmp_path / "c.json"
        assert main(["chunk", str(path), "--format", "json", "-o", str(out)]) == 0
        turns.append(json.loads(out.read_text())["turns"])
    err = capsys.readouterr().err
    assert turns[0] == turns[1] and "malformed" not in err, err
    assert "ends in 8,192 NUL bytes (a write cut short?), left out" in err, err


def test_the_task_says_no_badge_nor_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 30, F4: a folded Task kept a badge (`[![CI](…)](…)`) and an HTML image that
    "Where it stopped" leaves out."""
    from chunkscope.tui.cli import main
    from tests.logs import seed_log

    request = (
        "Fix the flaky cache test [![CI](https://ci/badge.svg)](https://ci/run/1) "
        'and update the chart.\n\n<img src="out/chart.png" width=300>'
    )
    log = seed_log(tmp_path, [("user", request), ("assistant", "On it.")])
    assert main(["recap", str(log)]) == 0
    task = capsys.readouterr().out.split("## Task\n", 1)[1].split("\n", 1)[0]
    assert task == "Fix the flaky cache test and update the chart.", task


@pytest.mark.parametrize("typed", ["'{p}'", '"{p}"', "{e}"])
async def test_a_path_pasted_as_a_shell_takes_it_opens(tmp_path: Path, typed: str) -> None:
    """Walk 30, F5: a path quoted or with its spaces escaped (what dropping a file on the
    terminal or "Copy as path" pastes) was "no such file", the picker's folder put
    before the quoted path."""
    import shutil

    from textual.widgets import Input

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import picker_listed, until

    folder = tmp_path / "sp dir"
    folder.mkdir()
    log = folder / "my notes.jsonl"
    shutil.copy(SAMPLE, log)
    value = typed.format(p=log, e=str(log).replace(" ", "\\ "))
    app = ChunkscopeApp(StartOptions(folder=str(tmp_path), fixed_timings=True))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await picker_listed(pilot, app)
        field = screen.query_one("#path", Input)
        field.value = value
        field.focus()
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is not screen)
        await until(pilot, lambda: app.pipe is not None)
        assert app.pipe is not None and Path(app.pipe.path) == log


def test_a_log_compressed_by_bzip2_or_xz_is_listed_with_why(tmp_path: Path) -> None:
    """Walk 30 (other observations): `s.jsonl.bz2` and `s.jsonl.xz` were in no list of
    the picker (nor passed over by --latest): a user with compressed sessions saw
    nothing. They are listed under "nothing to read", each with what it is."""
    import bz2
    import lzma
    import shutil

    from chunkscope.engine.read.formats.folders import list_sessions, set_apart

    shutil.copy(SAMPLE, tmp_path / "keep.jsonl")
    (tmp_path / "s.jsonl.bz2").write_bytes(bz2.compress(SAMPLE.read_bytes()))
    (tmp_path / "s.jsonl.xz").write_bytes(lzma.compress(SAMPLE.read_bytes()))
    sessions, _, unread = set_apart(list_sessions(tmp_path))
    assert [Path(s.path).name for s in sessions] == ["keep.jsonl"]
    why = {Path(i.path).name: w for i, w in unread}
    assert why == {
        "s.jsonl.bz2": "looks like bzip2-compressed data",
        "s.jsonl.xz": "looks like xz-compressed data",
    }, why


def test_tune_without_a_file_names_the_file_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Walk 30 (other observations): `chunkscope tune` said "the following arguments are
    required: file, FILE" (its optional list of more files counted as required)."""
    from chunkscope.tui.cli import main

    with pytest.raises(SystemExit) as raised:
        main(["tune"])
    assert raised.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("the following arguments are required: file (see --help)"), err


def test_a_gzip_log_with_bytes_after_it_is_dated_by_its_session(tmp_path: Path) -> None:
    """Walk 31, F1: a gzip log with bytes after its compressed data was dated by its
    file's time (its timestamps were not read: `gzip.decompress` refused the trailer), so
    `--latest` took it for the newest session over newer ones."""
    import gzip
    import os

    from chunkscope.engine.read.formats.folders import last_timestamp, latest

    data = SAMPLE.read_bytes()
    whole = tmp_path / "c.jsonl.gz"
    whole.write_bytes(gzip.compress(data))
    trailed = tmp_path / "t.jsonl.gz"
    trailed.write_bytes(gzip.compress(data) + b"garbage")
    assert last_timestamp(trailed) == last_timestamp(whole) is not None
    newer = tmp_path / "newer.jsonl"
    newer.write_text(
        data.decode().replace("2026-02-13", "2026-05-13"), encoding="utf-8"
    )  # a session three months after the sample's
    os.utime(newer, (1, 1))  # an old file time: only the session's own time makes it newer
    assert Path(latest(tmp_path).path).name == "newer.jsonl"


async def test_a_quoted_path_to_no_file_is_named_as_a_shell_takes_it(tmp_path: Path) -> None:
    """Walk 31, F2: a quoted path that names no file was said as the picker's folder glued
    to the quoted text (`/folder/'/tmp/no such.md': no such file`)."""
    from textual.widgets import Input

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import picker_listed, recording_notifications

    missing = tmp_path / "no such.md"
    app = ChunkscopeApp(StartOptions(folder=str(SAMPLE.parent), fixed_timings=True))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await picker_listed(pilot, app)
        field = screen.query_one("#path", Input)
        field.value = f"'{missing}'"
        field.focus()
        await pilot.pause()
        said = recording_notifications(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert any(s.startswith(f"{missing}: ") for s in said), said


def test_arguments_that_are_no_object_read_alike_raw_and_collapsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 31, F3: arguments that are no JSON object (cut off at a token limit, a bare
    string, an argv list, a JSON string) showed as typed in the raw turn but collapsed to
    ``Ran `?``` / ``Read ? (1 line).``; a cut-off object showed JSON-style raw."""
    import json

    from chunkscope.tui.cli import main

    calls = [
        ("bash", '{"command": "ls -la /tmp && grep -rn \\"TODO\\" src'),
        ("read_file", '{"path": "src/main.py", "start": 1'),
        ("bash", "ls -la"),
        ("bash", '["ls", "-la"]'),
        ("bash", '"ls -la"'),
    ]
    messages: list[dict[str, object]] = [
        {"role": "user", "content": "List the files please."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(calls)
            ],
        },
    ]
    messages += [
        {"role": "tool", "tool_call_id": f"c{i}", "content": "out"} for i in range(len(calls))
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    assert main(["chunk", str(path), "--no-collapse"]) == 0
    raw = capsys.readouterr().out
    assert '$ ls -la /tmp && grep -rn "TODO" src…' in raw and '{"command"' not in raw, raw
    assert raw.count("$ ls -la\n") == 3, raw
    assert main(["chunk", str(path), "--collapse"]) == 0
    collapsed = capsys.readouterr().out
    assert "`?`" not in collapsed and "Read ?" not in collapsed, collapsed
    assert 'Ran `ls -la /tmp && grep -rn "TODO" src…`' in collapsed, collapsed
    assert "Read src/main.py" in collapsed and collapsed.count("Ran `ls -la`") == 3, collapsed


def test_a_shell_block_only_suggested_in_a_chat_is_no_check_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 31 (other observations): in a log without tool calls (a plain chat, a ChatGPT
    export), a shell block the assistant only suggested was "Last check: `pytest -q` ->
    no result in the log". A block is a run in such a log once its output follows (as
    mini-swe-agent's text mode gives it), or when it submits the work."""
    from chunkscope.tui.cli import main
    from tests.logs import seed_log

    said = [
        ("user", "How do I test this project?"),
        ("assistant", "You can run the tests yourself:\n\n```sh\npytest -q\n```\n\nA minute."),
    ]
    assert main(["recap", str(seed_log(tmp_path, said))]) == 0
    out = capsys.readouterr().out
    assert "Last check" not in out and "no result in the log" not in out, out


def test_nul_padding_after_a_markdown_file_s_last_line_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 32, F2: NUL padding right after a markdown file's last line was read into its
    last paragraph as a run of U+FFFD, and the recap said it."""
    from chunkscope.tui.cli import main

    doc = tmp_path / "pad.md"
    doc.write_bytes(b"# Notes\n\nThe cache now evicts the oldest entry first.\n" + b"\0" * 500)
    assert main(["recap", str(doc), "--min-chars", "10"]) == 0
    out, err = capsys.readouterr()
    assert "\ufffd" not in out and "evicts the oldest entry" in out, out
    assert "ends in 500 NUL bytes (a write cut short?), left out" in err, err


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ('{"command": "echo a\\\\', "$ echo a\\…"),  # after an escaped backslash
        ('{"command": "echo \\u00', "$ echo …"),  # inside a \\u escape
        ('{"path": "a.py", "start"', "read_file a.py"),  # after a key
        ('{"path": "a.py",', "read_file a.py"),  # after a comma
        ('{"path": "a.py", "start":', "read_file a.py"),  # after a colon
        ('{"path": "a.py", "all": tru', "read_file a.py"),  # inside a literal
        ('{"cmd": ["ls", "-l', "$ ls -l"),  # inside a list
    ],
)
def test_arguments_cut_anywhere_show_as_typed(arguments: str, shown: str) -> None:
    """Walk 32, F1: an arguments object cut off after a backslash, inside a \\u escape,
    after a key, a comma, a colon or a literal, or inside a list still showed its JSON
    after `$` and in the collapsed `Ran`."""
    from chunkscope.engine.toolcall import format_call

    tool = "bash" if shown.startswith("$") else "read_file"
    assert format_call(tool, arguments) == shown


@pytest.mark.parametrize("split", [3, 15, 25])
async def test_ctrl_o_and_a_path_in_one_burst_open_the_path(split: int) -> None:
    """Walk 32, F3: `ctrl+o`, a path and ⏎ sent in one burst, the path's start before
    the picker was up and its rest after, left the picker open with the path rotated
    (`cs_cleanup.jsonl/work/main/sample_logs/do`) and the ⏎ lost: the keys typed ahead
    of the picker were sent to it again behind those typed after them."""
    import asyncio

    from tests.pilot import burst, make_app, settled, wait_for

    target = SAMPLE.parent / "docs_cleanup.jsonl"
    typed = str(target)
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        burst(app, "ctrl+o", *typed[:split])
        await asyncio.sleep(0.01)  # the rest arrives in the terminal's next read
        burst(app, *typed[split:], "enter")
        opened = await wait_for(
            pilot, lambda: app.pipe is not None and Path(app.pipe.path) == target, 10
        )
        assert opened, app.screen
