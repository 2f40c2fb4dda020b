"""``--latest`` opens the newest session log of a folder (never a markdown document),
in the workbench as in `recap`; knobs that cannot work together are one line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from chunkscope.tui.cli import main
from tests.hostile.proc import one_error_line

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A log and, newer than it by every measure, two markdown documents."""
    out = tmp_path / "sessions"
    out.mkdir()
    log = out / "cache_refactor.jsonl"
    log.write_bytes((SAMPLES / "cache_refactor.jsonl").read_bytes())
    os.utime(log, (1_000_000, 1_000_000))
    (out / "notes.md").write_text("# Notes\n\n2099-01-01T00:00:00Z is when it ends.\n")
    (out / "README.md").write_bytes((ROOT / "README.md").read_bytes())
    return out


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, terminal: None) -> list[Any]:
    """The start options of every workbench `main` would open (none really opens)."""
    from chunkscope.tui.app import ChunkscopeApp

    seen: list[Any] = []

    def run(self: ChunkscopeApp, *args: Any, **kwargs: Any) -> None:
        seen.append(self.options)

    monkeypatch.setattr(ChunkscopeApp, "run", run)
    return seen


@pytest.mark.parametrize("argv", [["tui", "{d}", "--latest"], ["{d}", "--latest"]])
def test_the_workbench_opens_the_newest_session_log(
    folder: Path,
    opened: list[Any],
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    isolated: Path,
) -> None:
    assert main([a.format(d=folder) for a in argv]) == 0
    (options,) = opened
    assert options.path == str(folder / "cache_refactor.jsonl")
    assert f"the newest session: {folder / 'cache_refactor.jsonl'} (" in capsys.readouterr().err


def test_latest_in_the_current_folder(
    folder: Path, opened: list[Any], monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    monkeypatch.chdir(folder)
    assert main(["--latest"]) == 0
    assert opened[0].path == "cache_refactor.jsonl"


def test_latest_of_a_file_or_a_folder_without_logs_is_one_line(
    folder: Path, opened: list[Any], capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    assert main(["tui", str(folder / "notes.md"), "--latest"]) == 2
    assert "--latest opens the newest session of a folder" in one_error_line(
        capsys.readouterr().err
    )
    (folder / "cache_refactor.jsonl").unlink()
    assert main(["tui", str(folder), "--latest"]) == 2
    assert "no session logs chunkscope can read in this folder" in one_error_line(
        capsys.readouterr().err
    )
    assert not opened


def test_recap_latest_never_takes_a_markdown_file(
    folder: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    assert main(["recap", str(folder), "--latest"]) == 0
    assert f"the newest session: {folder / 'cache_refactor.jsonl'} (" in capsys.readouterr().err


def test_latest_passes_over_newer_files_with_nothing_to_read(
    folder: Path, opened: list[Any], capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """``recap DIR --latest`` took the newest file even when it was empty, blank or
    unreadable, then failed on it (``no turns``, exit 2): the newest session with
    something to read is taken, and what was passed over is said."""
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "blank.jsonl").write_text("  \n\n\t\n")
    (folder / "garbage.jsonl").write_text("[1, 2]\nnot json\n")
    (folder / "quiet.jsonl").write_text('{"role": "user", "content": ""}\n')
    for k, name in enumerate(["empty", "blank", "garbage", "quiet"]):
        os.utime(folder / f"{name}.jsonl", (4_000_000_000 + k, 4_000_000_000 + k))
    assert main(["recap", str(folder), "--latest"]) == 0
    err = capsys.readouterr().err
    assert f"the newest session: {folder / 'cache_refactor.jsonl'} (" in err
    passed = next(line for line in err.splitlines() if "passed over" in line)
    assert passed.startswith("chunkscope: passed over 4 newer files with nothing to read: ")
    assert passed.endswith(  # newest first, three named
        "quiet.jsonl (nothing to read), garbage.jsonl (no turns: skipped 2 malformed lines "
        "of 2), blank.jsonl (nothing to read) and 1 more"
    )
    assert main(["tui", str(folder), "--latest"]) == 0  # the workbench alike
    assert opened[0].path == str(folder / "cache_refactor.jsonl")
    os.utime(folder / "empty.jsonl", (4_100_000_000, 4_100_000_000))
    assert main(["recap", str(folder), "--latest"]) == 0
    assert "passed over 4 newer files with nothing to read: empty.jsonl (empty), quiet" in (
        capsys.readouterr().err
    )
    (folder / "cache_refactor.jsonl").unlink()
    assert main(["recap", str(folder), "--latest"]) == 2
    # each named with why (walk 27, F6's addendum: the count alone said none of them)
    assert one_error_line(capsys.readouterr().err).endswith(
        "no session logs chunkscope can read in this folder (4 files with nothing to read: "
        "empty.jsonl (empty), quiet.jsonl (nothing to read), garbage.jsonl (no turns: skipped "
        "2 malformed lines of 2) and 1 more)"
    )


def test_latest_names_a_newer_binary_file_it_passes_over(
    folder: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """Walk 13, 6: a newer binary `.jsonl` (the hostile corpus's random bytes) was passed
    over without a word; it is named with why, in the words `chunk` refuses it in."""
    import random

    from tests.hostile.make_corpus import CASES, SEED

    name, generate, _what = CASES["random_bytes"]
    data = generate(random.Random(f"{SEED}:random_bytes"))
    binary = folder / name
    binary.write_bytes(data)
    os.utime(binary, (4_000_000_000, 4_000_000_000))
    reason = f"looks like a binary file (NUL bytes at byte {data.find(bytes(1))})"
    assert main(["chunk", str(binary)]) == 2
    assert one_error_line(capsys.readouterr().err).endswith(f"{reason}, not a log or markdown")
    assert main(["recap", str(folder), "--latest"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"chunkscope: passed over 1 newer file with nothing to read: {name} ({reason})" in err
    assert f"the newest session: {folder / 'cache_refactor.jsonl'} (" in err[1]


@pytest.mark.parametrize("command", ["chunk", "recap", "report"])
@pytest.mark.parametrize(
    ("mode", "minimum"), [("seed", "--min-chars"), ("topic", "--topic-unit-chars")]
)
def test_a_compaction_minimum_above_the_size_cap_is_refused(
    command: str, mode: str, minimum: str, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """The compaction minimum in force, the seed merge's `--min-chars` or the topic
    merge's `--topic-unit-chars`, over the size cap is refused, named; the other mode's,
    which the run never reads, is not (walk 37, F4: the topic merge was refused for its
    --min-chars 80 under --max-chars 50 and let a unit minimum of 20 through a cap of 15)."""
    argv = [command, str(SAMPLES / "cache_refactor.jsonl"), "--merge", mode, minimum, "900"]
    argv += ["--max-chars", "500", *(["--embed"] if command == "chunk" else [])]
    argv += ["-o", str(isolated / "out")]
    assert main(argv) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"chunkscope: {minimum} 900 is above the size cap --max-chars 500: compacted chunks "
        f"of at least 900 chars cannot fit a merged chunk of at most 500; lower {minimum} "
        "or raise --max-chars"
    )
    other = "--min-chars" if minimum == "--topic-unit-chars" else "--topic-unit-chars"
    unread = [*argv[:4], other, "900", "--topic-min-chars", "100", *argv[6:]]
    assert main(unread) == 0, capsys.readouterr().err
    capsys.readouterr()
    # without a merge (chunk alone) there is no cap to be above: --max-chars asks for --embed
    if command == "chunk":
        bare = [command, str(SAMPLES / "cache_refactor.jsonl"), "--max-chars", "500"]
        assert main([*bare, "-o", str(isolated / "out")]) == 2
        assert one_error_line(capsys.readouterr().err) == (
            "chunkscope: --max-chars sets the merge, which runs only with --embed: add --embed"
        )
        # (--min-chars alone is the compaction's, which runs without a merge)
        assert main([*argv[:2], "--min-chars", "900", "-o", str(isolated / "out")]) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--theme", "chunkscope-light", "{d}/cache_refactor.jsonl"],
        ["--strict", "{d}/cache_refactor.jsonl"],
        ["--budget", "300", "--latest", "{d}"],
    ],
)
def test_the_workbench_options_come_before_the_file_too(
    folder: Path, opened: list[Any], argv: list[str], isolated: Path
) -> None:
    """`chunkscope --theme NAME FILE` is `chunkscope tui --theme NAME FILE`, as the docs
    list the options for bare `chunkscope` (an option first was read as a command)."""
    assert main([a.format(d=folder) for a in argv]) == 0
    (options,) = opened
    assert options.path == str(folder / "cache_refactor.jsonl")


# --------------------------------------------------------------------------- titles (walk 14, 8)

_WORK = "check the cache layer for stale keys"
_QUESTION = "what does delta represent in this loop?"


def _claude_log(folder: Path, first: str) -> Path:
    """A Claude Code session whose first user message is the slash command `first`
    (``/name args``, as Claude Code writes one), then a question and an answer."""
    name, _, args = first.partition(" ")
    command = (
        f"<command-message>{name[1:]}</command-message>\n<command-name>{name}</command-name>\n"
        f"<command-args>{args}</command-args>"
    )
    answer = "The time since the last frame."
    texts = [("user", command), ("user", _QUESTION), ("assistant", answer)]
    records = [
        {
            "type": role,
            "uuid": f"u{k}",
            "parentUuid": f"u{k - 1}" if k else None,
            "isSidechain": False,
            "sessionId": "s1",
            "cwd": "/home/dev/proj",
            "timestamp": f"2026-01-02T10:0{k}:00.000Z",
            "message": {"role": role, "content": text},
        }
        for k, (role, text) in enumerate(texts)
    ]
    folder.mkdir()
    path = folder / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _aider_history(folder: Path) -> Path:
    """An aider chat history that opens on ``/model`` (a setting), then a question."""
    folder.mkdir()
    path = folder / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2026-01-02 10:00:00\n\n"
        "#### /model openai/gpt-5.4\n\n> Aider v0.86.0\n> Main model: openai/gpt-5.4\n\n"
        f"#### {_QUESTION}\n\nIt is the time since the last frame.\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("make", "title"),
    [
        (lambda d: _claude_log(d, f"/review-plan {_WORK}"), f"/review-plan {_WORK}"),
        (lambda d: _claude_log(d, "/model opus"), _QUESTION),
        (_aider_history, _QUESTION),
    ],
    ids=["own-command", "claude-model", "aider-model"],
)
def test_a_sessions_title_is_the_first_request_its_recap_shows(
    tmp_path: Path, make: Any, title: str, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    """Walk 14, 8: the listing skipped every slash command (a user's own ``/review-plan
    ...`` left the title blank) or none (aider's ``/model ...`` was the title), while
    the recap's Task is the first request: a slash command that manages the tool is none."""
    from chunkscope.engine.read.formats.folders import list_sessions
    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.sections import extract_sections

    folder = tmp_path / "sessions"
    path = make(folder)
    source = load(path)
    task = next(s for s in extract_sections(source.messages, source.notes) if s.name == "task")
    assert task.lines[0] == title
    (listed,) = list_sessions(folder)
    assert listed.title == title  # the picker's title
    assert main(["recap", str(folder), "--latest"]) == 0
    assert f"the newest session: {path} ({title})" in capsys.readouterr().err


# --------------------------------------------------------------------------- walk 16, 14b


@pytest.mark.parametrize("command", ["recap", "report", "chunk"])
def test_latest_without_a_folder_takes_the_current_one(
    folder: Path,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    isolated: Path,
) -> None:
    """`recap --latest` (`report`, `chunk`) with no FILE reads the current folder's
    newest session, as the workbench's does (it said "the following arguments are
    required: file", and `chunk` refused --latest)."""
    monkeypatch.chdir(folder)
    argv = [command, "--latest"] + (["-o", str(tmp_path / "r.html")] if command == "report" else [])
    assert main(argv) == 0
    assert "the newest session: cache_refactor.jsonl (" in capsys.readouterr().err


def test_search_takes_latest_with_its_folder(
    folder: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    assert main(["search", str(folder), "sqlite cache", "--latest"]) == 0
    captured = capsys.readouterr()
    assert "the newest session: " in captured.err and captured.out.startswith("query: ")


@pytest.mark.parametrize("command", ["recap", "report", "chunk"])
def test_neither_file_nor_latest_and_a_folder_without_latest_are_one_line(
    folder: Path,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    isolated: Path,
) -> None:
    out = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    monkeypatch.chdir(folder)
    assert main([command, *out]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        "chunkscope: give FILE, or --latest for the newest session of the current folder"
    )
    assert main([command, str(folder), *out]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"chunkscope: {folder}: is a directory, not a file (--latest reads its newest)"
    )
