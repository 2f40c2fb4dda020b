"""Walk 24's findings (a fresh review after walk 23's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import seed_log as _jsonl

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


def _session(tmp_path: Path, messages: list[dict[str, object]]) -> Path:
    """An Anthropic-style messages file (the openai-messages reader reads it)."""
    f = tmp_path / "session.json"
    f.write_text(json.dumps(messages), encoding="utf-8")
    return f


def _use(cid: str, name: str, args: dict[str, object], text: str = "") -> dict[str, object]:
    content: list[dict[str, object]] = [{"type": "text", "text": text}] if text else []
    content.append({"type": "tool_use", "id": cid, "name": name, "input": args})
    return {"role": "assistant", "content": content}


def _result(cid: str, text: str) -> dict[str, object]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": cid, "content": text}],
    }


def _chunk(f: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    capsys.readouterr()
    assert main(["chunk", str(f), "--format", "json", *flags]) == 0
    return "\n".join(c["text"] for c in json.loads(capsys.readouterr().out)["chunks"])


def test_a_text_editor_call_reads_as_the_editor_s_command_not_a_shell_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F2: a text editor's `command` is its sub-command (view, create, str_replace): the
    call read `$ view  # path=...` as if typed in a shell, and collapsed, a view read
    "Edited /repo/primes.py."."""
    editor = "str_replace_based_edit_tool"
    f = _session(
        tmp_path,
        [
            {"role": "user", "content": "Fix the bug in primes.py"},
            _use("t1", editor, {"command": "view", "path": "/repo/primes.py"}, "Let me look."),
            _result("t1", "1: def is_prime(n):\n2:     return n > 1"),
            _use(
                "t2",
                editor,
                {
                    "command": "str_replace",
                    "path": "/repo/primes.py",
                    "old_str": "n > 1",
                    "new_str": "n > 1 and n % 2",
                },
            ),
            _result("t2", "Successfully replaced text at exactly one location."),
            _use(
                "t3",
                "str_replace_editor",
                {
                    "command": "create",
                    "path": "/repo/t.py",
                    "file_text": "import primes\nprint(1)\n",
                },
            ),
            _result("t3", "File created successfully at: /repo/t.py"),
            {"role": "assistant", "content": "Fixed."},
        ],
    )
    raw = _chunk(f, capsys, "--no-collapse")
    assert f"{editor} view /repo/primes.py" in raw
    assert f'{editor} str_replace /repo/primes.py old_str="n > 1" new_str="n > 1 and n % 2"' in raw
    assert "str_replace_editor create /repo/t.py file_text:\nimport primes\nprint(1)" in raw
    assert "$ view" not in raw and "$ str_replace" not in raw and "$ create" not in raw
    folded = _chunk(f, capsys, "--collapse")
    assert "Tool: Read /repo/primes.py (2 lines)." in folded
    assert "Tool: Edited /repo/primes.py." in folded
    assert "Tool: Wrote /repo/t.py (2 lines)." in folded
    assert folded.count("Edited") == 1


@pytest.mark.parametrize(
    ("result", "said"),
    [
        ("No files found", "no matches."),
        ("No matches found", "no matches."),
        ("Found 5 files\nsrc/a.ex\nsrc/b.ex\nsrc/c.ex\nsrc/d.ex\nsrc/e.ex", "5 files."),
        ("Found 1 file\nsrc/a.ex", "1 file."),
        ("src/a.ex:3: flash(", "1 line."),
        ("src/a.ex:3: flash(\nsrc/b.ex:9: flash(", "2 lines."),
    ],
)
def test_a_search_says_what_it_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], result: str, said: str
) -> None:
    """F3: a search that found nothing read "1 lines." (Claude Code's "No files found"
    counted as a hit), "Found 5 files" and the files "6 lines."."""
    f = _session(
        tmp_path,
        [
            {"role": "user", "content": "Where is the flash used?"},
            _use("g1", "Grep", {"pattern": "flash", "path": "lib"}),
            _result("g1", result),
        ],
    )
    assert f"Tool: Searched for 'flash' in lib: {said}" in _chunk(f, capsys, "--collapse")


def test_a_glob_that_found_nothing_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _session(
        tmp_path,
        [
            {"role": "user", "content": "Any live view tests here?"},
            _use("g1", "Glob", {"pattern": "test/**/*_live_test.exs"}),
            _result("g1", "No files found"),
        ],
    )
    assert "Listed `test/**/*_live_test.exs`: none found." in _chunk(f, capsys, "--collapse")


def test_a_call_whose_result_is_not_in_the_log_is_kept_where_it_was_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F4: a call with no result (a session read while it ran, or cut short) vanished
    from the collapsed form, the workbench's default view and the embedding's text."""
    f = _session(
        tmp_path,
        [
            {"role": "user", "content": "Run the tests"},
            _use("b1", "Bash", {"command": "pytest -q"}, "Running."),
            _use("w1", "WebSearch", {"query": "pytest flaky"}, "Also searching."),
            {"role": "user", "content": "stop, what happened?"},
            _use("b2", "Bash", {"command": "git status"}, "Checking."),
            _result("b2", "nothing to commit"),
            _use("b3", "Bash", {"command": "mix phx.server"}, "Starting the server."),
        ],
    )
    folded = _chunk(f, capsys, "--collapse")
    order = [
        "You: Run the tests",
        "Bot: Running.",
        "Tool: Ran `pytest -q` (no result in the log).",
        "Bot: Also searching.",
        'Tool: Called WebSearch "pytest flaky" (no result in the log).',
        "You: stop, what happened?",
        "Tool: Ran `git status`: nothing to commit",
        "Bot: Starting the server.",
        "Tool: Ran `mix phx.server` (no result in the log).",
    ]
    at = [folded.find(line) for line in order]
    assert -1 not in at, folded
    assert at == sorted(at), folded


_CUT_OFF = [  # a reply cut off inside its code block
    ("user", "Add input validation to app.py and run the tests"),
    ("assistant", "Here is the new function:\n\n```python\ndef parse(v):\n"
                  "    if not v.isdigit():\n        raise ValueError(v)\n    return int(v"),
    ("user", "you got cut off, continue"),
    ("assistant", "Sorry about that. The validation now rejects non-numeric input, and all "
                  "twelve tests pass after the change."),
    ("user", "Great, commit it please"),
    ("assistant", "Committed the validation change as a single commit on the main branch."),
]  # fmt: skip
_PASTED = [  # a paste without its closing line
    ("user", '```\nTraceback (most recent call last):\n  File "app.py", line 3\n'
             "ValueError: bad value\n\nwhy does this fail?"),
    ("assistant", "The value passed to int() is not a number. I changed app.py to validate "
                  "it first."),
    ("user", "ok and now?"),
    ("assistant", "```python\nprint('validated')\n"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("turns", "said"),
    [
        (_CUT_OFF, "all twelve tests pass after the change"),
        (_PASTED, "The value passed to int() is not a number"),
    ],
)
def test_a_fence_a_message_leaves_open_ends_with_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], turns: list[tuple[str, str]], said: str
) -> None:
    """F5: a fence left open in one message made every later message of the merged
    chunk code: their sentences never reached the summary, and the recap lost them."""
    f = _jsonl(tmp_path, turns)
    assert main(["recap", str(f), "-o", "-"]) == 0
    recap = capsys.readouterr().out
    assert said in recap, recap


def test_a_fence_line_with_an_info_string_closes_no_fence() -> None:
    """F5: the summarizer closed an open fence at "```js" (CommonMark closes one with
    a bare marker only), so the code after it was a summary sentence."""
    from chunkscope.engine.summarize import ExtractiveSummarizer

    text = (
        "Doc: The build cache keeps every entry until its key changes.\n"
        "Doc: ```\nunclosed fence at the end\n\nText after the fence is still code here.\n"
        "```js\nconsole.log(1)"
    )
    summary = ExtractiveSummarizer().summarize(text)
    said = f"{summary.abstract}\n{summary.summary}"
    assert "console.log" not in said and "still code" not in said, said


async def test_the_picker_tree_shows_a_file_name_s_escape_sequences_as_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F8: the picker's folder tree wrote a file name's escape sequences to the
    terminal (an OSC one retitled it, an SGR one coloured the row and moved the tree's
    border); the sessions list beside it showed the names cleaned."""
    from chunkscope.tui.screens.open_file import LogTree
    from tests.pilot import SAMPLE, make_app, picker_listed, settled, until

    folder = tmp_path / "names"
    folder.mkdir()
    log = SAMPLE.read_bytes()
    (folder / "plain.jsonl").write_bytes(log)
    (folder / "esc\x1b[31mred.jsonl").write_bytes(log)
    (folder / "osc\x1b]2;PWNED\x07title.jsonl").write_bytes(log)
    (folder / "new\nline.jsonl").write_bytes(log)
    monkeypatch.chdir(folder)  # where the picker starts
    app = make_app(folder / "plain.jsonl")
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+o")
        picker = await picker_listed(pilot, app)
        tree = picker.query_one(LogTree)
        await until(pilot, lambda: len(tree.root.children) >= 4)
        labels = sorted(str(n.label) for n in tree.root.children)
        assert labels == ["escred.jsonl", "new line.jsonl", "osctitle.jsonl", "plain.jsonl"]
        await pilot.pause()
        drawn = app.export_screenshot()
        assert "escred.jsonl" in drawn and "osctitle.jsonl" in drawn
        assert "PWNED" not in drawn and "\x1b" not in drawn and "&#27;" not in drawn


async def test_a_path_typed_in_bursts_while_the_tree_is_busy_keeps_its_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """F9: a path typed in one burst as the picker opened sometimes had a character moved
    to its end (`.../sample_log/research_notes.jsonls`) and opened nothing: the keys typed
    after the focus moved to the field overtook those the tree still held. A tree slow
    with each key (a loaded machine) makes it happen every time."""
    import asyncio

    from chunkscope.tui.screens.open_file import LogTree, OpenFileScreen
    from tests.pilot import ROOT, SAMPLE, burst, make_app, picker_listed, settled, wait_for

    async def slow(self: LogTree, event: object) -> None:
        await asyncio.sleep(0.02)

    monkeypatch.setattr(LogTree, "on_key", slow, raising=False)
    target = ROOT / "sample_logs" / "docs_cleanup.jsonl"
    typed = str(target)
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+o")
        await picker_listed(pilot, app)
        burst(app, *typed[:10])
        await pilot.pause(0.05)  # the rest arrives as the first keys are being handled
        burst(app, *typed[10:], "x", "backspace", "enter")
        opened = await wait_for(
            pilot,
            lambda: app.pipe is not None and Path(app.pipe.path) == target,
            10,
        )
        assert opened and not isinstance(app.screen, OpenFileScreen)


def _stored_zip(tmp_path: Path) -> Path:
    """A ChatGPT export zipped without compression (zipfile's default): few NUL bytes."""
    import zipfile

    f = tmp_path / "export.zip"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("conversations.json", json.dumps([{"title": "Fix the cache", "mapping": {}}]))
    return f


@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["chunk", "{zip}"], "which chunkscope does not read"),
        (["recap", "{log}", "--scorer", "salience", "--memories", "{zip}"], "not a memories file"),
        (["eval", "{log}", "--gold", "{zip}"], "not a gold file"),
        (["eval", "{log}", "--queries", "{zip}"], "not a query file"),
    ],
)
def test_a_stored_zip_archive_is_named_as_one_wherever_it_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], kind: str
) -> None:
    """F11: a zip whose members are stored (not deflated) passed the side-file check:
    `--memories export.zip` was read (exit 0), `--gold` printed the archive's bytes."""
    from tests.pilot import SAMPLE

    z = _stored_zip(tmp_path)
    args = [a.format(zip=z, log=SAMPLE) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "looks like a zip archive" in err and kind in err, err


def test_serve_refuses_a_stored_zip_archive_or_a_pdf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """F11: `serve export.zip` (stored) and `serve real.pdf` (ASCII) started serving."""
    pytest.importorskip("textual_serve")
    from tests.test_serve import serving_nothing

    served = serving_nothing(monkeypatch)
    pdf = tmp_path / "real.pdf"
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n")
    for f, kind in ((_stored_zip(tmp_path), "a zip archive"), (pdf, "a PDF document")):
        assert main(["serve", str(f)]) == 2
        err = capsys.readouterr().err
        assert f"looks like {kind}" in err and err.count("\n") == 1, err
    assert served == []


def test_a_multi_line_command_collapses_to_one_line_that_is_still_the_command() -> None:
    """F10: a multi-line command collapsed to its lines joined by spaces, another command
    (`for f in *.py; do echo "$f" python -m py_compile "$f" || exit 1 done` compiles
    nothing), and the recap given to the next session carried it."""
    from chunkscope.engine.recap.collapse import LINE_BREAK, collapse_call

    script = 'for f in *.py; do\n  echo "$f"\n\n  python -m py_compile "$f" || exit 1\ndone'
    said = collapse_call("Bash", {"command": script}, "a.py\nb.py", readable=True)
    assert said == (
        'Ran `for f in *.py; do ⏎ echo "$f" ⏎ python -m py_compile "$f" || exit 1 ⏎ done`: '
        "a.py b.py"
    )
    assert said.count("\n") == 0
    lines = said.split("`")[1].split(LINE_BREAK)
    assert lines == [" ".join(line.split()) for line in script.splitlines() if line.strip()]


def rec(n: int, kind: str, content: object) -> str:
    """Claude Code's record `n` of a session (a chain of uuids), one a minute."""
    return json.dumps(
        {
            "type": kind,
            "uuid": f"u{n}",
            "parentUuid": f"u{n - 1}" if n else None,
            "sessionId": "s1",
            "timestamp": f"2026-01-01T10:0{n}:00Z",
            "message": {"role": kind, "content": content},
        }
    )


def test_a_claude_code_memory_note_reads_as_typed_and_its_placeholder_is_no_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F6: a `#` memory note read `You: <user-memory-input>...</user-memory-input>`
    (in the recap's Task too), and Claude Code's "(no content)" placeholder after it
    was a user turn."""

    f = tmp_path / "s1.jsonl"
    f.write_text(
        "\n".join(
            [
                rec(0, "user", "Update the README for the new charts"),
                rec(1, "assistant", "Updated the README's charts section."),
                rec(
                    2,
                    "user",
                    "<user-memory-input>Always use conventional commits</user-memory-input>",
                ),
                rec(3, "user", "(no content)"),
                rec(4, "assistant", "Noted."),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["chunk", str(f), "--format", "json"]) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    text = "\n".join(c["text"] for c in doc["chunks"])
    assert "You: # Always use conventional commits" in text
    assert "user-memory-input" not in text and "(no content)" not in text
    assert doc["read"] + sum(doc["not_read"].values()) == doc["records"] == 5
    assert "1 empty message ('(no content)')" in out.err


_AIDER_CHAT = re.sub(
    r"^(>.*|####.*)$",
    r"\1  ",  # aider ends its own lines and the typed ones with two blanks
    """
# aider chat started at 2026-01-03 09:00:00

#### /test npm test
> FAIL src/sum.test.js
> Tests: 1 failed, 3 passed, 4 total
> Add command output to the chat? (Y)es/(N)o [Yes]: y

#### make the sum test pass

The reducer starts at 1. Change it to start at 0:

src/sum.js
```js
<<<<<<< SEARCH
  return xs.reduce((a, b) => a + b, 1);
=======
  return xs.reduce((a, b) => a + b, 0);
>>>>>>> REPLACE
```

> Applied edit to src/sum.js
> Commit 9f8e7d6 fix: sum starts at zero
> npm test
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y
> Running npm test
> Tests: 4 passed, 4 total
> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: n
""",
    flags=re.M,
)


def test_a_command_aider_runs_after_an_edit_is_the_last_check_and_is_said_collapsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F7: aider's "Running npm test" and its output were no run: the recap's last check
    was the earlier failing /test although the last run passed; collapsed, every aider
    line (the /test output, the edit, the commit, the run) was dropped."""
    f = tmp_path / ".aider.chat.history.md"
    f.write_text(_AIDER_CHAT, encoding="utf-8")
    assert main(["recap", str(f), "-o", "-"]) == 0
    recap = capsys.readouterr().out
    assert "Last check: `npm test` -> Tests: 4 passed, 4 total" in recap, recap
    folded = _chunk(f, capsys, "--collapse")
    order = [
        "You: /test npm test",
        "Tool: Ran `npm test`: Tests: 1 failed, 3 passed, 4 total",  # its summary (walk 28, F15)
        "Tool: Edited src/sum.js.",
        "Tool: Committed 9f8e7d6: fix: sum starts at zero.",
        "Tool: Ran `npm test`: Tests: 4 passed, 4 total",
    ]
    at = [folded.find(line) for line in order]
    assert -1 not in at and at == sorted(at), folded
    assert "Add command output" not in folded and "Run shell command" not in folded


def test_a_gemini_multi_line_command_s_result_is_read_as_a_one_line_one_s(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """F12: a Gemini CLI shell result of a multi-line command (a commit message with a
    body, `cd srv` then `pytest -q`) kept the CLI's `Command:`/`Directory:`/`Error:` lines:
    the recap said the commit failed and had no last check for the passing tests."""
    from tests.pilot import ROOT

    f = ROOT / "tests/fixtures/gemini-cli/walk24-multiline-shell.json"
    assert main(["recap", str(f), "-o", "-"]) == 0
    recap = capsys.readouterr().out
    assert "Committed 1a2b3c4" in recap and "failed" not in recap, recap
    assert "Last check: `cd srv ⏎ pytest -q` -> 12 passed in 0.5s (exit 0)" in recap, recap
    raw = _chunk(f, capsys, "--no-collapse")
    assert "Directory:" not in raw and "Error: (none)" not in raw and "PGID" not in raw
    assert "Exit code: 0" in raw
    folded = _chunk(f, capsys, "--collapse")
    assert "Ran `cd srv ⏎ pytest -q` (exit 0): 12 passed in 0.5s" in folded


@pytest.mark.parametrize(
    ("name", "args", "result", "code", "said"),
    [
        (
            "Edit",
            {"file_path": "a.py", "old_string": "x", "new_string": "y"},
            "<tool_use_error>File has not been read yet. Read it first.</tool_use_error>",
            None,
            "Edit of a.py failed: File has not been read yet. Read it first.",
        ),
        (
            "Write",
            {"file_path": "b.py", "content": "x = 1\n"},
            "<tool_use_error>Permission denied</tool_use_error>",
            None,
            "Write of b.py failed: Permission denied.",
        ),
        (
            "Read",
            {"file_path": "/tmp/t.output"},
            "<tool_use_error>File does not exist.</tool_use_error>",
            None,
            "Read of /tmp/t.output failed: File does not exist.",
        ),
        (
            "replace",
            {"file_path": "/w/app.yml", "old_string": "a", "new_string": "b"},
            "Failed to edit, 0 occurrences found",
            None,
            "Edit of /w/app.yml failed: Failed to edit, 0 occurrences found.",
        ),
        (
            "Grep",
            {"pattern": "flash"},
            "rg: regex parse error",
            None,
            "Search for 'flash' failed: rg: regex parse error.",
        ),
        (
            "apply_patch",
            {"input": "*** Begin Patch\n*** Update File: src/foo.c\n@@\n-a\n+b\n"},
            "Exit code: 1\napply_patch verification failed",
            1,
            "Patch of src/foo.c failed: apply_patch verification failed.",
        ),
    ],
)
def test_a_file_tool_call_that_failed_says_so(
    name: str, args: dict[str, object], result: str, code: int | None, said: str
) -> None:
    """F13: an Edit refused, a Write denied, a Read of a missing file read "Edited a.py.",
    "Wrote b.py (1 line).", "Read ... (1 line)." in the collapsed form."""
    from chunkscope.engine.recap.collapse import collapse_call

    failed = code is None
    got = collapse_call(
        name, args, result, exit_code=code, failed=failed, agent="claude-code", readable=True
    )
    assert got == said


def test_a_codex_patch_that_failed_is_no_changed_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F13: a Codex apply_patch whose output says exit 1 ("verification failed") was in
    the recap's files changed and its work state ("no commit after editing src/foo.c")."""

    def item(ts: int, payload: dict[str, object]) -> str:
        return json.dumps(
            {"timestamp": f"2026-01-01T10:0{ts}:00Z", "type": "response_item", "payload": payload}
        )

    out = json.dumps(
        {
            "output": "apply_patch verification failed: no line int foo;",
            "metadata": {"exit_code": 1},
        }
    )
    f = tmp_path / "rollout-2026-01-01T10-00-00-x.jsonl"
    f.write_text(
        "\n".join(
            [
                item(
                    1,
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "Fix foo"}],
                    },
                ),
                item(
                    2,
                    {
                        "type": "custom_tool_call",
                        "call_id": "c2",
                        "name": "apply_patch",
                        "input": "*** Begin Patch\n*** Update File: src/foo.c\n@@\n-a\n+b\n",
                    },
                ),
                item(3, {"type": "custom_tool_call_output", "call_id": "c2", "output": out}),
                item(
                    4,
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "The patch did not apply."}],
                    },
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["recap", str(f), "-o", "-"]) == 0
    recap = capsys.readouterr().out
    assert "src/foo.c" not in recap, recap
    assert "Tool: Patch of src/foo.c failed" in _chunk(f, capsys, "--collapse")


def test_the_blocks_an_ide_adds_to_a_prompt_are_not_the_user_s_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F14: Claude Code in an IDE adds `<ide_opened_file>` / `<ide_selection>` blocks to a
    prompt: they were read as the user's words, tags and all, and the recap's "What
    happened" could be that boilerplate ("...current task.</ide_opened_file>.")."""
    opened = (
        "<ide_opened_file>The user opened the file /p/src/Order.cs in the IDE. This may or "
        "may not be related to the current task.</ide_opened_file>"
    )
    selected = (
        "<ide_selection>The user selected the lines 10 to 12 from /p/src/Order.cs:\n"
        "if (order.Total > 100) discount = 5;\n\nThis may or may not be related to the "
        "current task.</ide_selection>"
    )

    blocks = [{"type": "text", "text": opened}, {"type": "text", "text": "Refactor the rules"}]
    f = tmp_path / "s1.jsonl"
    f.write_text(
        "\n".join(
            [
                rec(0, "user", blocks),
                rec(1, "assistant", "I will extract each rule into a strategy class."),
                rec(2, "user", selected + "also this rule"),
                rec(3, "assistant", "That rule becomes the HighTotalDiscount strategy."),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    for flag in ("--collapse", "--no-collapse"):
        text = _chunk(f, capsys, flag)
        assert "ide_" not in text and "may not be related" not in text, text
        assert "You: Refactor the rules" in text and "You: also this rule" in text
    assert main(["recap", str(f), "-o", "-"]) == 0
    out = capsys.readouterr()
    assert "ide_" not in out.out and "may not be related" not in out.out, out.out
    assert "2 IDE context blocks" in out.err


def test_a_refusal_takes_no_words_typed_after_the_agent_went_on() -> None:
    """Walk 24, other observations: a refused test run was given as its reason "did you
    push?", typed 55 minutes later, after the agent had run tests, committed and pushed
    (a task notification woke it): the next typed message was taken whatever came
    between."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, call, result, user
    from tests.test_sections_records import REFUSED

    msgs = [
        user("Run the resource tests."),
        bot("", call("t1", "Bash", {"command": "mix test test/resources_test.exs"})),
        result("t1", REFUSED + "STOP what you are doing and wait for the user.", is_error=True),
        user("<task-notification><status>completed</status></task-notification>"),
        bot(
            "The background build finished; running the suite.",
            call("t2", "Bash", {"command": "mix test"}),
        ),
        result("t2", "42 tests, 0 failures"),
        user("did you push?"),
    ]
    s = by_name(extract_sections(msgs, []))
    assert s["rejections"] == ("- Rejected `mix test test/resources_test.exs`",), s["rejections"]


@pytest.mark.parametrize(
    ("name", "args", "result", "said"),
    [
        (
            "Bash",
            {"command": "mix test test/a_test.exs"},
            "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            "Refused by the user: `mix test test/a_test.exs`.",
        ),
        (
            "run_shell_command",
            {"command": "python3 main.py"},
            "[Operation Cancelled] Reason: User cancelled the operation.",
            "Refused by the user: `python3 main.py`.",
        ),
        (
            "Edit",
            {"file_path": "a.py", "old_string": "x", "new_string": "y"},
            "The user doesn't want to proceed with this tool use.",
            "Refused by the user: Edit a.py old_string=x new_string=y.",
        ),
    ],
)
def test_a_call_the_user_refused_reads_as_refused(
    name: str, args: dict[str, object], result: str, said: str
) -> None:
    """Walk 24, other observations: a call the user refused read "Ran `mix test ...`
    (failed)." (Claude Code) or "(failed)" (Gemini CLI's "[Operation Cancelled]"): it
    did not run."""
    from chunkscope.engine.recap.collapse import collapse_call

    got = collapse_call(name, args, result, failed=True, agent="claude-code", readable=True)
    assert got == said
