"""What walk 25 left and walk 26 found (a fresh review after walk 25's fixes): each test
fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import claude_log, claude_project, codex_shell, seed_log
from tests.pilot import SAMPLE as SAMPLE_LOG

pytestmark = pytest.mark.usefixtures("isolated")


def test_an_anthropic_message_s_blocks_keep_their_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 25, F9: an Anthropic message's text blocks were joined before its calls, so
    the answer showed above the search that found it and the second call's words above
    the first call."""
    hits = [{"type": "web_search_result", "title": "Download Python", "url": "https://p.org/"}]
    content = [
        {"type": "text", "text": "Let me search."},
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "py"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": hits},
        {"type": "text", "text": "Python 3.14 is the latest release."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
        {"type": "text", "text": "Now the tests."},
        {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest -q"}},
    ]
    results = [
        {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "1 passed"},
    ]
    f = tmp_path / "chat.json"
    messages = [
        {"role": "user", "content": "What is the latest Python? Then run the tests."},
        {"role": "assistant", "content": content},
        {"role": "user", "content": results},
    ]
    f.write_text(json.dumps(messages), encoding="utf-8")
    assert main(["chunk", str(f), "--no-collapse"]) == 0
    out = capsys.readouterr().out
    order = ["Let me search.", "web_search", "Download Python", "Python 3.14", "$ ls"]
    order += ["Now the tests.", "$ pytest -q", "a.py", "1 passed"]
    at = [out.find(part) for part in order]
    assert -1 not in at and at == sorted(at), (at, out)
    assert main(["chunk", str(f), "--collapse"]) == 0
    out = capsys.readouterr().out
    # collapsed, a call is said where its result is: the calls' results follow the message
    order = ["Let me search.", "Searched the web", "Python 3.14", "Now the tests.", "Ran `ls`"]
    order.append("Ran `pytest -q`")
    at = [out.find(part) for part in order]
    assert -1 not in at and at == sorted(at), (at, out)


_AIDER_CHAT = """# aider chat started at 2024-05-01 10:00:00

> aider --model gpt-4o

#### fix the bug in a.py

The loop starts at 1; it should start at 0.

> Applied edit to a.py
> Applied edit to b.py
> Commit abc1234 fix: start the loop at 0
"""


async def test_more_turns_after_collapse_than_read_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 25, other observations: an aider chat's header read "202 turns · 221 after
    collapse" (collapsing made more turns) without saying why: each action aider says
    it took in one block is a turn of its own. The CLI, the report and the workbench's
    header and turns column say so."""
    from chunkscope.tui.widgets.header_line import HeaderLine
    from tests.pilot import make_app, settled, until

    chat = tmp_path / "t.aider.chat.history.md"
    chat.write_text(_AIDER_CHAT, encoding="utf-8")
    assert main(["chunk", str(chat), "--collapse"]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert "4 turns" in said and "collapsed to 5 turns, each action a turn" in said, said
    # fewer after collapse: no reason given, none needed
    assert main(["chunk", str(SAMPLE_LOG), "--collapse"]) == 0
    assert "each action" not in capsys.readouterr().out
    app = make_app(chat)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        header = bench.query_one(HeaderLine).render().plain
        assert "4 turns · 5 after collapse, each action a turn" in header, header
        await pilot.press("v")  # the left column: turns
        await until(pilot, lambda: bench.view is not None and bench.view.left_kind == "turns")
        await pilot.pause()
        title = str(bench.query_one("#before-col").border_title)
        # (the longest form its border holds: `tests/test_walk46.py`)
        assert title.endswith(
            ("turns (5 after collapse, each action a turn)", "turns (5, each action a turn)")
        ), title


def test_a_background_task_s_report_is_no_user_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walks 24 and 25, other observations: Claude Code's `<task-notification>` records
    (a background subagent's result, a background command's exit) read as `You:` turns
    of raw XML in the collapsed view, the user's words in the chunks and the embedding.
    Collapsed, a subagent's report is its Subagent turn and a command's notice a Tool
    one; the recap still lists the subagent's result."""
    note = (
        "<task-notification>\n<task-id>ac27727</task-id>\n<status>completed</status>\n"
        '<summary>Agent "Poem about curry" completed</summary>\n'
        "<result>A red river in a bowl of clay.</result>\n</task-notification>"
    )
    bg = (
        "<task-notification>\n<task-id>be613ab</task-id>\n<status>completed</status>\n"
        '<summary>Background command "Run the tests" completed (exit code 0)</summary>\n'
        "</task-notification>\nRead the output file to retrieve the result: /tmp/x.output"
    )
    records = [
        ("user", "Write a poem about curry in the background."),
        ("assistant", "I started a subagent for the poem."),
        ("user", note),
        ("user", bg),
        ("assistant", "The poem is done and the tests pass."),
    ]
    log = claude_log(tmp_path, records)
    assert main(["chunk", str(log), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert 'Subagent: Agent "Poem about curry" completed: A red river in a bowl of clay.' in out
    assert 'Tool: Background command "Run the tests" completed (exit code 0).' in out
    assert "<task-notification>" not in out and "You: <" not in out, out
    assert main(["recap", str(log)]) == 0
    assert "Poem about curry" in capsys.readouterr().out


async def test_the_chunk_size_slider_at_its_lowest_says_what_it_does() -> None:
    """Walk 24, other observations: the topic mode's "chunk size" slider at 0 read `0`,
    where 0 means a topic is one chunk (`--topic-chunk-tokens` 0): it reads `whole`, and
    a step up reads a size again."""
    from chunkscope.tui.widgets.merge_panel import MergePanel
    from chunkscope.tui.widgets.slider import Slider
    from tests.pilot import make_app, settled, until

    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        sizes = [s for s in bench.query_one(MergePanel).query(Slider) if s.label == "chunk size"]
        assert len(sizes) == 1
        slider = sizes[0]
        slider.focus()
        await pilot.pause()
        assert slider.render().plain.rstrip().endswith(" 200"), slider.render().plain
        for _ in range(3):
            await pilot.press("shift+left")
        await until(pilot, lambda: slider.value == 0)
        await settled(pilot, app)
        assert slider.render().plain.rstrip().endswith(" whole"), slider.render().plain
        view = bench.view
        assert view is not None and view.params.topic.topic_chunk_tokens == 0
        await pilot.press("right")
        await until(pilot, lambda: slider.value > 0)
        shown = f" {slider.value:.0f}"  # a visible step up: a size again
        assert slider.render().plain.rstrip().endswith(shown), slider.render().plain


@pytest.mark.parametrize(
    "text",
    [
        "Я перенёс кэш в базу данных. Теперь повторный запуск занимает меньше секунды.",
        "Αυτό είναι ένα ελληνικό κείμενο για την κρυφή μνήμη.",
        "キャッシュをデータベースに移しました。二回目の起動は一秒もかかりません。",
    ],
)
def test_words_of_any_script_are_words(text: str) -> None:
    """Walk 26, F1: a sentence with no two ASCII letters was "markup", so a Russian,
    Greek or Japanese chunk had no summary and the recap said it was "code only"."""
    from chunkscope.engine.summarize import ExtractiveSummarizer
    from chunkscope.engine.summarize.extractive import is_markup

    summary = ExtractiveSummarizer().summarize(f"Bot: {text}")
    assert summary.abstract and summary.abstract in text, summary
    assert not is_markup(summary.abstract)


def test_a_full_width_stop_ends_a_sentence_and_keeps_its_own_mark() -> None:
    """Walk 26, F1 addendum: Chinese and Japanese sentences were not split at `。`, and a
    kept one took an ASCII period after its own (`需求。.`)."""
    from chunkscope.engine.summarize.extractive import sentences_of, terminated

    parts = sentences_of("我们比较了Redis和SQLite的延迟。测试表明，新的缓存足够满足需求。")
    assert parts == ["我们比较了Redis和SQLite的延迟。", "测试表明，新的缓存足够满足需求。"]
    assert terminated(parts[1]) == parts[1]
    assert terminated("本当ですか？") == "本当ですか？"
    # an ASCII stop still needs its space, as before
    assert sentences_of("See foo.py for it. Then run it.") == ["See foo.py for it.", "Then run it."]


def test_a_session_in_another_script_has_its_task_and_what_happened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F1: a Russian session's recap had no "What happened" (its chunks "code
    only"), a Japanese request no "## Task" (a request needed two space-parted words)."""
    from chunkscope.engine.segment.requests import is_request

    assert is_request("キャッシュをデータベースに移してください。")
    assert is_request("把缓存移到数据库里")
    assert not is_request("はい")  # one word: a nudge, as "yes" is
    records = [
        ("user", "Кэш хранится в словаре. Перенеси его в базу, чтобы он переживал перезапуски."),
        ("assistant", "Понял. Сначала посмотрю, как устроен текущий кэш и где он используется."),
        ("assistant", "Я перенёс кэш в базу данных. Тесты проходят."),
        ("user", "Отлично! Теперь сравни скорость чтения со старой версией."),
        ("assistant", "Чтение стало медленнее примерно на пять процентов."),
    ]
    log = tmp_path / "ru.jsonl"
    lines = [
        json.dumps({"role": r, "content": t, "timestamp": f"2026-02-13T09:{i:02d}:00"})
        for i, (r, t) in enumerate(records)
    ]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["recap", str(log)]) == 0
    captured = capsys.readouterr()
    assert "## What happened" in captured.out, captured.out
    assert "no sentence to tell" not in captured.err, captured.err
    ja = tmp_path / "ja.jsonl"
    ja.write_text(
        json.dumps({"role": "user", "content": "キャッシュをデータベースに移してください。"})
        + "\n"
        + json.dumps({"role": "assistant", "content": "キャッシュを移しました。テストも通ります。"})
        + "\n",
        encoding="utf-8",
    )
    assert main(["recap", str(ja)]) == 0
    out = capsys.readouterr().out
    assert "## Task\nキャッシュをデータベースに移してください。" in out, out


def test_where_it_stopped_is_no_bare_url(capsys: pytest.CaptureFixture[str]) -> None:
    """Walk 25, F10 addendum (seen again in walk 26's review snapshot): the last message
    "Done! Your session ... has been published:" then the gist's URL left "Where it
    stopped" the bare URL. A section of markup alone says the message whole, its
    lead-in with it."""
    from tests.test_hooks import POEMS

    assert main(["recap", str(POEMS)]) == 0
    out = capsys.readouterr().out
    stopped = out.split("## Where it stopped\n", 1)[1].split("\n\n", 1)[0]
    assert stopped.startswith("Done! Your session"), stopped
    assert "has been published: https://gist.github.com/" in stopped, stopped


_SOURCE_CHAT = """# aider chat started at 2026-01-10 10:00:00

#### make the exhausted-debug test use the database URL

The test only sets the environment variable, so it has to use the URL form as well.

backend/tests/test_exhausted.py
<source>
def test_exhausted(client, monkeypatch):
    from backend import deps

    def always_bad(_prompt: str) -> str:
        return "SELECT * FROM not_a_table;"

    payload = {"natural_query": "Try something impossible"}
    res = client.post("/query", json=payload)
    assert res.status_code == 200, res.text
</source>

> Applied edit to backend/tests/test_exhausted.py

#### thanks, that works. Now show me the fixture file

Here is the whole file, with the fixture that returns the database URL.

backend/tests/conftest.py
<source>
@pytest.fixture
def client():

    return TestClient(app)
</source>
"""


def test_an_aider_source_block_is_one_code_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F3: aider's `<source>` block was cut at its blank lines, so a merged chunk
    began inside it and the recap's "What happened" quoted its code as prose; "Where it
    stopped" kept the tags. It is one block wherever a ``` block is: in the chunks, the
    summaries and the recap (inline code there)."""
    from chunkscope.engine.pipeline import Pipeline

    chat = tmp_path / "x.aider.chat.history.md"
    chat.write_text(_SOURCE_CHAT, encoding="utf-8")
    pipe = Pipeline(chat)
    for chunk in [*pipe.compacted(), *pipe.merged().chunks]:  # none starts inside a block
        first = chunk.text.split("\n", 1)[0]
        assert "always_bad" not in first and "payload" not in first, chunk.text
    assert main(["recap", str(chat)]) == 0
    out = capsys.readouterr().out
    happened = out.split("## What happened", 1)[1] if "## What happened" in out else ""
    assert "always_bad" not in happened and "payload" not in happened, out
    stopped = out.split("## Where it stopped\n", 1)[1].split("\n\n", 1)[0]
    assert "<source>" not in stopped and "</source>" not in stopped, stopped
    assert "`@pytest.fixture def client(): return TestClient(app)`" in stopped, stopped


def test_a_command_the_harness_timed_out_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F9: a mini-swe-agent command that timed out read `Ran `...`: <exception>An
    error occurred while executing the command: Command '['docker', 'exec', ...` in the
    collapsed view and the recap's "Last check": the tag and the harness's argv, and the
    words that matter cut off."""
    argv = "['docker', 'exec', '-w', '/testbed', '-e', 'PAGER=cat', 'abc', 'bash', '-c', 'pytest']"
    out = (
        "<exception>An error occurred while executing the command: Command "
        f"'{argv}' timed out after 60 seconds</exception>\n<returncode>-1</returncode>\n"
        "<output>\n</output>"
    )
    call = {"id": "c1", "type": "function"}
    call["function"] = {"name": "bash", "arguments": json.dumps({"command": "pytest -x"})}
    messages = [
        {"role": "user", "content": "Fix the failing json test in pydicom."},
        {"role": "assistant", "content": "Run the tests.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": out},
    ]
    traj = tmp_path / "t.traj.json"
    traj.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    assert main(["chunk", str(traj), "--collapse"]) == 0
    said = capsys.readouterr().out
    assert "Ran `pytest -x` (timed out after 60 seconds, exit -1)." in said, said
    assert "<exception>" not in said and "docker" not in said
    assert main(["recap", str(traj)]) == 0
    recap = capsys.readouterr().out
    assert "Last check: `pytest -x` -> timed out after 60 seconds" in recap, recap
    assert "docker" not in recap


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("これは日本語のテキストです。キャッシュを移しました。\n", "shift_jis"),
        ("这是中文文本。我们比较了两种缓存。\n", "gb18030"),
        ("이것은 한국어 텍스트입니다.\n", "euc-kr"),
        ("Это русский текст документа.\n", "cp1251"),
        ("Αυτό είναι ένα ελληνικό κείμενο.\n", "iso-8859-7"),
    ],
)
def test_text_in_a_legacy_encoding_is_named_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, encoding: str
) -> None:
    """Walk 26, F2: a file in Shift_JIS, GB18030, EUC-KR, CP1251 or ISO-8859-7 was "a
    binary file (58% of its first bytes are not text)", with no way forward. It is text
    in another encoding, with the `iconv` line that converts it; random bytes are still
    a binary file."""
    import os

    f = tmp_path / "notes.md"
    f.write_bytes((text * 30).encode(encoding))
    assert main(["chunk", str(f)]) == 2
    said = capsys.readouterr().err
    assert "looks like text in another encoding than UTF-8" in said, said
    assert "iconv -f ENCODING -t UTF-8" in said and "\n" not in said.strip()
    noise = tmp_path / "noise.md"
    noise.write_bytes(os.urandom(4000).replace(b"\x00", b"\x01"))
    assert main(["chunk", str(noise)]) == 2
    assert "looks like a binary file" in capsys.readouterr().err


def test_every_reader_s_subagent_call_says_what_it_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F8: collapsed, Gemini CLI's `codebase_investigator` read `Called
    codebase_investigator objective=...` without its result, where Claude Code's Task
    reads `Delegated to ...: '...'. Result: '...'`: one list of subagent tools serves
    the collapse and the recap."""
    response = {"output": "The cache is built in engine/embed.py"}
    call = {
        "id": "c1",
        "name": "codebase_investigator",
        "args": {"objective": "Find where the cache is built"},
        "status": "success",
        "timestamp": "2026-01-01T10:01:00Z",
        "result": [{"functionResponse": {"id": "c1", "name": "x", "response": response}}],
    }
    chat = {
        "sessionId": "s",
        "projectHash": "h",
        "startTime": "2026-01-01T10:00:00Z",
        "messages": [
            {"id": "m0", "timestamp": "2026-01-01T10:00:00Z", "type": "user", "content": "Go"},
            {
                "id": "m1",
                "timestamp": "2026-01-01T10:01:00Z",
                "type": "gemini",
                "content": "",
                "toolCalls": [call],
            },
        ],
    }
    f = tmp_path / "session-2026-01-01.json"
    f.write_text(json.dumps(chat), encoding="utf-8")
    assert main(["chunk", str(f), "--collapse"]) == 0
    out = capsys.readouterr().out
    said = "Delegated to a subagent: 'Find where the cache is built'. Result: 'The cache is built"
    assert said in out, out
    assert main(["recap", str(f)]) == 0
    # named by what it was asked, as the collapsed line says it (walk 28, F10)
    assert "- Find where the cache is built: The cache is built" in capsys.readouterr().out


def _recap_of(tmp_path: Path, capsys: pytest.CaptureFixture[str], *said: str) -> str:
    """The recap of a seed log of a request, then the assistant's messages `said`."""
    messages = [
        ("user", "Fix the total function in the stats module."),
        *[("assistant", text) for text in said],
    ]
    assert main(["recap", str(seed_log(tmp_path, messages))]) == 0
    return capsys.readouterr().out


def _stopped(recap: str) -> str:
    return recap.split("## Where it stopped\n", 1)[1].split("\n\n", 1)[0].strip()


@pytest.mark.parametrize(
    "last", ["![screenshot](shot.png)", "src/stats/total.py", "`a`, `b`", "/compact"]
)
def test_where_it_stopped_is_never_a_message_of_no_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], last: str
) -> None:
    """Walk 26, F11: a last message of no words (an image, a bare path, code spans, a
    slash command) was "Where it stopped" as it is. The last message with words is."""
    recap = _recap_of(tmp_path, capsys, "I fixed the total function; the tests pass.", last)
    assert _stopped(recap) == "I fixed the total function; the tests pass.", recap


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (
            "The log says:\n\n> ```\n> Traceback (most recent call last):\n> ValueError: bad\n"
            "> ```\n\nSo the value was bad.",
            "The log says: `Traceback (most recent call last): ValueError: bad`. So the value",
        ),
        (
            "<details>\n<summary>Log</summary>\n\n```\nerror: boom\n```\n\n</details>\n\n"
            "The build is green again.",
            "Log: `error: boom` The build is green again.",
        ),
        ("Here is the fix:\n\n```python\nreturn sum(xs)\n```", "Here is the fix: `return sum"),
    ],
)
def test_a_folded_line_keeps_no_block_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], last: str, expected: str
) -> None:
    """Walk 26, F5: a code block in a blockquote folded as `> ``` > Traceback ... > ```
    `, and a `<details>` block's tags opened a raw HTML block that hid the rest of the
    line; a lead-in and its code alone left no "Where it stopped" (other observations)."""
    stopped = _stopped(_recap_of(tmp_path, capsys, last))
    assert stopped.startswith(expected), stopped
    assert ">" not in stopped and "<details>" not in stopped and "```" not in stopped


def test_review_and_the_session_start_pass_over_a_transcript_that_is_not_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 26, F6: `review` (and a session start's recap) took the newest `*.jsonl` of
    the project's Claude Code folder even when it was a tar or a program, and stopped
    there (exit 2), where `recap DIR --latest` passes over it to the newest session."""
    import os
    import shutil

    from chunkscope.tui.cli.review import review_options
    from tests.test_hooks import POEMS

    project, folder = claude_project(tmp_path, monkeypatch)
    session = folder / "aaaa.jsonl"
    shutil.copyfile(POEMS, session)
    os.utime(session, (1_700_000_000, 1_700_000_000))
    (folder / "bbbb.jsonl").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 16)
    options = review_options(str(project))
    assert Path(options.path) == session


def test_a_codex_patch_sent_through_the_shell_reads_as_a_patch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F12: Codex sends some patches as a shell command (`apply_patch <<'PATCH'`
    then the patch): collapsed they read `Ran `apply_patch <<'PATCH' ⏎ *** Begin Patch
    ...``, not `Edited index.js.` as its apply_patch tool's do; a failed one reads as a
    failed patch, and is no file changed in the recap."""

    def patch(verb: str, path: str) -> str:
        return (
            f"apply_patch <<'PATCH'\n*** Begin Patch\n*** {verb} File: {path}\n"
            "@@\n-a\n+b\n*** End Patch\nPATCH"
        )

    log = codex_shell(
        tmp_path,
        (
            patch("Update", "index.js"),
            "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated index.js\n",
        ),
        (
            patch("Update", "board.js"),
            "Exit code: 1\nWall time: 0 seconds\nOutput:\nFailed to find expected lines\n",
        ),
        task="Rename the board helper.",
    )
    assert main(["chunk", str(log), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert "Tool: Edited index.js." in out, out
    assert "Tool: Patch of board.js failed: Failed to find expected lines" in out, out
    assert "Ran `apply_patch" not in out
    assert main(["recap", str(log)]) == 0  # the patch that did not apply changed nothing
    files = capsys.readouterr().out.split("## Files changed\n", 1)[1].split("\n\n", 1)[0]
    assert files.strip() == "- index.js (1 edit)", files


def test_the_report_s_flags_table_has_the_strategy_s_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F10: `report --strategy boundary --topic-markers "x, y"` had no row for
    either flag, nor for the strategy's other parameters, in its flag/value table."""
    from tests.test_report import _texts, report

    code, html = report(
        tmp_path, capsys, str(SAMPLE_LOG), "--strategy", "boundary", "--topic-markers", "x, y"
    )
    assert code == 0
    cells = _texts(html, "td")
    rows = {cells[i]: cells[i + 1] for i in range(0, len(cells) - 1) if cells[i].startswith("--")}
    assert rows.get("--strategy") == "boundary", rows
    assert rows.get("--topic-markers") == "x, y", rows
    assert rows.get("--gap-minutes") == "30", rows  # a parameter left at its default too
    assert list(rows).count("--max-tokens") <= 1


def test_a_gzip_file_is_said_to_be_compressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, F7: a gzip of UTF-16 text got `iconv -f UTF-16` advice, which garbles the
    compressed bytes (chunkscope then read the gibberish); a log gzipped twice was "a gzip
    file that does not decompress". The layer is said, and the double one named."""
    import gzip

    u16 = tmp_path / "u16.md.gz"
    u16.write_bytes(gzip.compress(("Hello UTF-16 text.\n" * 50).encode("utf-16")))
    assert main(["chunk", str(u16)]) == 2
    said = capsys.readouterr().err
    assert "is gzip-compressed (decompress it first" in said, said
    assert "inside, it looks like UTF-16 text" in said, said
    twice = tmp_path / "log.jsonl.gz.gz"
    twice.write_bytes(gzip.compress(gzip.compress(b'{"role": "user", "content": "hi"}\n')))
    assert main(["chunk", str(twice)]) == 2
    assert "gzip-compressed twice (decompress it twice)" in capsys.readouterr().err
    once = tmp_path / "log.jsonl.gz"  # one layer of a log: read, as before
    once.write_bytes(gzip.compress(b'{"role": "user", "content": "hi"}\n'))
    assert main(["chunk", str(once)]) == 0


async def test_the_picker_s_rows_of_nothing_to_read_are_reachable(tmp_path: Path) -> None:
    """Walk 26, F4: at 100x30 the sessions list ran past the picker's end (a grid row
    `auto` took its height), so End and PageDown never showed the "nothing to read"
    rows, each saying what its file looks like; and those rows could not be reached by
    the keys. End shows the last one; Enter on it says why it is not opened, and the
    picker stays."""
    from textual.widgets import OptionList

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import picker_listed, recording_notifications

    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(16):
        (folder / f"doc{i:02d}.md").write_text(f"# Doc {i}\n\nSome text.\n", encoding="utf-8")
    for i in range(8):
        (folder / f"bin{i}.jsonl").write_bytes(b"\x7fELF" + bytes(range(256)) * 4)
    app = ChunkscopeApp(StartOptions(folder=str(folder), fixed_timings=True))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await picker_listed(pilot, app)
        box = screen.query_one("#sessions", OptionList)
        lists = screen.query_one("#picker-lists")
        assert box.region.bottom <= lists.region.bottom, (box.region, lists.region)
        box.focus()
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        assert box.highlighted == box.option_count - 1
        last = box.get_option_at_index(box.option_count - 1)
        assert str(last.id).startswith("unread:")
        assert box.scroll_offset.y == box.max_scroll_y > 0  # scrolled to show it
        said = recording_notifications(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen  # not opened
        assert any("looks like a binary file" in s for s in said), said


def test_a_check_s_collapsed_run_says_its_summary_not_its_banner() -> None:
    """Walk 26, other observations: a collapsed pytest run read `==== test session starts
    ==== platform linux -- Python 3.11.5, pytest...` (the output's start), in the chunks
    and the recap's "What happened". A run whose output sums itself up says that line;
    any other says its start, as before."""
    from chunkscope.engine.recap.collapse import collapse_call

    output = (
        "============================= test session starts ==============================\n"
        "platform linux -- Python 3.11.5, pytest-8.0.0\ncollected 3 items\n\n"
        "tests/test_a.py ..F                                                      [100%]\n"
        "FAILED tests/test_a.py::test_x - assert 1 == 2\n"
        "========================= 1 failed, 2 passed in 0.51s =========================\n"
    )
    said = collapse_call("Bash", {"command": "pytest"}, output, exit_code=1, readable=True)
    assert said == (
        "Ran `pytest` (exit 1): FAILED tests/test_a.py::test_x - assert 1 == 2; "
        "1 failed, 2 passed in 0.51s"
    ), said
    listing = "total 8\ndrwxr-xr-x 2 root root 4096 May 6 2025 examples\n-rw-r--r-- 1 a a 3 x"
    said = collapse_call("Bash", {"command": "ls -la"}, listing, exit_code=0, readable=True)
    assert said.startswith("Ran `ls -la` (exit 0): total 8 drwxr-xr-x"), said


def test_a_file_named_with_backslashes_is_one_file_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 26, other observations: aider's chat named one file `backend\\db_adapters.py`
    and `backend/db_adapters.py`, and the recap's "Files changed" listed it twice."""
    chat = tmp_path / "w.aider.chat.history.md"
    chat.write_text(
        "# aider chat started at 2024-05-01 10:00:00\n\n#### fix the adapter\n\nDone.\n\n"
        "> Applied edit to backend\\db_adapters.py\n\n#### and again\n\nDone again.\n\n"
        "> Applied edit to backend/db_adapters.py\n",
        encoding="utf-8",
    )
    assert main(["recap", str(chat)]) == 0
    files = capsys.readouterr().out.split("## Files changed\n", 1)[1].split("\n\n", 1)[0]
    assert files.strip() == "- backend/db_adapters.py (2 edits)", files


def test_a_collapsed_run_keeps_no_terminal_escapes() -> None:
    """Walk 26, other observations: a Codex result's colour codes stayed in the collapsed
    sentence, so the chunk text, the embedding and the summaries held `\\x1b[31m`."""
    from chunkscope.engine.recap.collapse import collapse_call

    out = "Exit code: 1\n\x1b[31mFAILED\x1b[0m tests/test_a.py::test_x\n\x1b[1m1 failed\x1b[0m"
    said = collapse_call("exec_command", {"cmd": "pytest"}, out, readable=True)
    assert "\x1b" not in said and said.startswith("Ran `pytest` (exit 1): "), said
    assert "1 failed" in said
