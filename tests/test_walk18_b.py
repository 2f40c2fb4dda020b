"""Walk 18, F6-F8: separator controls show as a space wherever log text is shown (JSON keeps
the data); keys typed right after closing a running search reach the workbench; refusals
of a binary --queries or settings file, of --build-wait and of review --session say what
the others say."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from chunkscope.tui.cli import main

#: A message with every separator control between its words (F6).
SEPARATED = "first about\u2028zebras\fand\x85more\vwords\x1cin\x1fa\u2029row"
JOINED = "first about zebras and more words in a row"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_separator_controls_show_as_a_space() -> None:
    """F6: a form feed, NEL, U+2028/9, a vertical tab or an information separator between
    two words was deleted by the one cleaner of shown text (``aboutzebrasand``); it is a
    space now, as the recap folds it; the other controls are still taken out."""
    from chunkscope.engine.textutil import literal_markdown, strip_control
    from chunkscope.tui.cells import terminal_text
    from chunkscope.tui.cli.common import safe
    from chunkscope.tui.widgets.chunk_list import preview_lines

    assert strip_control(SEPARATED) == JOINED
    assert strip_control("a\x00b\x1b[31mc\x07") == "abc"
    assert terminal_text(SEPARATED) == JOINED
    assert preview_lines(f"You: {SEPARATED}") == [f"You: {JOINED}"]  # a workbench card
    assert literal_markdown(SEPARATED) == JOINED
    assert safe(SEPARATED, Tty()) == JOINED  # `chunk` to a terminal
    assert safe(SEPARATED, io.StringIO()) == SEPARATED  # to a file or a pipe: as read


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "seps.jsonl"
    rows = [
        {"role": "user", "content": SEPARATED, "timestamp": "2025-01-01T10:00:00"},
        {
            "role": "assistant",
            "content": "second about giraffes",
            "timestamp": "2025-01-01T10:00:01",
        },
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def test_chunk_on_a_terminal_keeps_words_apart_and_json_keeps_the_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F6: `chunk` to a terminal shows the words apart; `--format json` to a terminal is
    still the text as read (the controls JSON does not escape itself, U+0085 and U+2028,
    written as ``\\u`` escapes: the data parses back whole, nothing raw reaches the
    terminal), and so is JSON to a pipe."""
    path = _session(tmp_path)
    out = Tty()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["chunk", str(path)]) == 0
    assert f"You: {JOINED}" in out.getvalue()

    out = Tty()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["chunk", str(path), "--format", "json"]) == 0
    text = out.getvalue()
    assert "\x85" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text)["chunks"][0]["text"].startswith(f"You: {SEPARATED}")

    piped = io.StringIO()
    monkeypatch.setattr("sys.stdout", piped)
    assert main(["chunk", str(path), "--format", "json"]) == 0
    assert json.loads(piped.getvalue()) == json.loads(text)


@pytest.mark.parametrize("size", [(160, 48), (100, 30)], ids=["wide", "narrow"])
async def test_keys_typed_right_after_closing_a_running_search_are_kept(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """F7: `/`, a question, enter, then escape while the search still runs, and at once
    ``b ⌫⌫⌫⌫⌫ 777 ⏎``: the whole burst was lost (the budget stayed, no prompt). The keys
    reach the workbench: the budget is 777, and the question was still asked (its
    enter came before the escape) and kept for the next `/`."""
    import threading
    import time

    from chunkscope.engine.search.core import SearchIndex
    from tests.pilot import ROOT, burst, make_app, settled, until

    slow = SearchIndex.search
    started = threading.Event()

    def search(self: SearchIndex, *args: object, **kwargs: object) -> object:
        started.set()
        time.sleep(3)  # a large session's search
        return slow(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchIndex, "search", search)
    app = make_app(ROOT / "sample_logs" / "research_notes.jsonl")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        assert app.budget != 777
        burst(app, "slash", *"what is the plan", "enter")
        await until(pilot, started.is_set)
        # The search's thread keeps the app from its keys: the escape and the burst after
        # it are read together (in tmux: escape, 0.3 s, the burst, all handled at once).
        burst(app, "escape", "b", *["backspace"] * 5, *"777", "enter")
        await until(pilot, lambda: app.budget == 777, 10)
        assert not app.search_open
        assert app.search_query == "what is the plan"  # the enter before the escape asked it
        assert app.workbench is not None
        assert app.screen is app.workbench  # the prompt took the burst and closed


BINARY = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8  # a program's first bytes


@pytest.mark.parametrize("command", ["search", "eval"])
def test_a_binary_query_file_says_what_it_looks_like(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F8a: a binary ``--queries`` file said ``Q:1: not UTF-8 text``; it is refused in
    the words a binary ``--gold`` file is (`engine.read.source.binary_reason`)."""
    from tests.pilot import SAMPLE

    queries = tmp_path / "q.json"
    queries.write_bytes(BINARY)
    assert main([command, str(SAMPLE), "--queries", str(queries)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"chunkscope: {queries}: looks like a binary file (NUL bytes at byte 7), not a query file"
    ]
    assert main(["eval", str(SAMPLE), "--gold", str(queries)]) == 2
    gold = capsys.readouterr().err.strip()
    assert gold == err[0].replace("a query file", "a gold file")


def test_hook_install_settings_binary_or_with_a_bom(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F8a: ``hook install --settings`` of a binary file printed Python's codec message
    (``'utf-8' codec can't decode byte 0xd0 ...``), one with a UTF-8 BOM a Python hint
    (``Unexpected UTF-8 BOM (decode using utf-8-sig)``). A binary file is said to look
    like one, a stray byte is placed, and a BOM is read past, as every reader does."""
    binary = isolated / "bin.json"
    binary.write_bytes(BINARY)
    assert main(["hook", "install", "--settings", str(binary), "--print"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"chunkscope: {binary}: looks like a binary file (NUL bytes at byte 7), "
        "not a settings file; not changed"
    )
    stray = isolated / "stray.json"
    stray.write_bytes(b'{\n  "a": "\xd0x"\n}\n')
    assert main(["hook", "install", "--settings", str(stray), "--print"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"chunkscope: {stray}:2: not UTF-8 text (byte 10); not changed"
    bom = isolated / "bom.json"
    bom.write_bytes(b'\xef\xbb\xbf{"model": "x"}\n')
    assert main(["hook", "install", "--settings", str(bom), "--print"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "x" and "SessionStart" in out["hooks"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("nan", "build-wait must be a number, got 'nan'"),
        ("-1", "build-wait must be >= 0, got -1.0"),
        ("inf", "build-wait must be a finite number, got 'inf'"),
        ("1e9", "build-wait must be <= 3600, got 1000000000.0"),
        ("soon", "expected a number, got 'soon'"),
    ],
)
def test_build_wait_is_refused_as_the_other_number_flags(
    value: str, said: str, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F8b: ``hook session-start --build-wait nan|-1|inf|1e9`` were taken silently (NaN
    made the time left NaN); the flag is a knob's now, checked as the others are, at most
    an hour (a hook run by hand, or given a timeout of one's own, may wait longer than the
    30 s chunkscope's installed hooks have)."""
    with pytest.raises(SystemExit) as exit_:
        main(["hook", "session-start", "--build-wait", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(f"argument --build-wait: {said} (see --help)"), err


def test_review_session_out_of_range_says_the_range(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """F8c: ``review PROJECT --session 5`` said ``the project has 1 stored recaps``; it
    says the range, counted right, as ``--session`` of a ChatGPT export does, and where
    it looked when there is none."""
    from chunkscope.engine.inject.recaps import build_recap, save_stored, sessions_dir
    from tests.logs import claude_project as _claude_project
    from tests.test_tui_review import POEMS

    project, folder = _claude_project(isolated, monkeypatch)
    assert main(["review", str(project), "--session", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "chunkscope: --session 1: the project has no stored session recaps "
        f"(looked in {sessions_dir(project)})"
    )
    transcript = folder / "s.jsonl"
    transcript.write_bytes(POEMS.read_bytes())
    save_stored(build_recap(transcript, project, event="SessionEnd", session_id="s").stored)
    for n in ("5", "0"):
        assert main(["review", str(project), "--session", n]) == 2
        err = capsys.readouterr().err.strip()
        assert err == (
            f"chunkscope: --session {n}: the project has 1 stored recap (1..1, the newest first)"
        )
