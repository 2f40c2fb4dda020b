"""Walk 25's findings (a fresh review after walk 24's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.logs import seed_log as _seed_log
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


@pytest.mark.parametrize(
    ("name", "args", "result", "said"),
    [
        (
            "WebFetch",
            {"url": "https://docs.example.com/api"},
            "Request failed with status code 404",
            "WebFetch https://docs.example.com/api failed: Request failed with status code 404.",
        ),
        (
            "mcp__github__get_pull_request",
            {"owner": "acme", "pull_number": 7},
            "Error: Not Found",
            "mcp__github__get_pull_request owner=acme pull_number=7 failed: Error: Not Found.",
        ),
        (
            "WebSearch",
            {"query": "acme parse"},
            "Web search is not available",
            'WebSearch "acme parse" failed: Web search is not available.',
        ),
        (
            "Task",
            {"description": "Find callers", "subagent_type": "Explore"},
            "<tool_use_error>Agent type 'Explore' not found</tool_use_error>",
            'Task description="Find callers" subagent_type=Explore failed: '
            "Agent type 'Explore' not found.",
        ),
        (
            "LS",
            {"path": "/nope"},
            "<tool_use_error>Path does not exist: /nope</tool_use_error>",
            "Listing of /nope failed: Path does not exist: /nope.",
        ),
    ],
)
def test_any_call_that_failed_says_so(
    name: str, args: dict[str, object], result: str, said: str
) -> None:
    """F5: a failed call of any tool but the file ones read as done: "Fetched https://..."
    for a 404, "Searched the web for ..." when search was unavailable, a failed subagent
    launch quoted the raw `<tool_use_error>` tag; a failed LS read "Search for ..."."""
    from chunkscope.engine.recap.collapse import collapse_call

    got = collapse_call(name, args, result, failed=True, agent="claude-code", readable=True)
    assert got == said


def test_a_codex_web_search_that_failed_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F5 addendum: a Codex `web_search_call` with status "failed" read "Searched the web
    for 'foo docs'."."""
    import json

    def item(n: int, payload: dict[str, object]) -> str:
        record = {
            "timestamp": f"2026-01-01T10:0{n}:00Z",
            "type": "response_item",
            "payload": payload,
        }
        return json.dumps(record)

    f = tmp_path / "rollout-2026-01-01T10-00-00-x.jsonl"
    ask = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Docs?"}]}
    search = {"type": "web_search_call", "id": "ws1", "status": "failed",
              "action": {"type": "search", "query": "foo docs"}}  # fmt: skip
    f.write_text(item(1, ask) + "\n" + item(2, search) + "\n", encoding="utf-8")
    assert main(["chunk", str(f), "--collapse"]) == 0
    out = capsys.readouterr().out
    assert 'Tool: web_search "foo docs" failed.' in out and "Searched the web" not in out, out


def test_the_report_names_every_path_option_by_its_file_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F6: `report ... --memories /priv/mem.jsonl --queries /x/q.json` kept both absolute
    paths in "The same run" (the input, -o and --gold were names only, and the page says
    absolute paths name the file only)."""
    import json

    private = tmp_path / "private-folder"
    private.mkdir()
    memories = private / "mem.txt"
    memories.write_text("the cache keeps vectors in SQLite\n", encoding="utf-8")
    queries = private / "q.json"
    queries.write_text(
        json.dumps({"queries": [{"query": "where are vectors kept?", "answers": ["SQLite"]}]}),
        encoding="utf-8",
    )
    out = tmp_path / "r.html"
    argv = [
        "report",
        str(SAMPLE),
        "--scorer",
        "salience",
        "--memories",
        str(memories),
        "--queries",
        str(queries),
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    page = out.read_text(encoding="utf-8")
    assert "private-folder" not in page
    assert "--memories mem.txt --queries q.json -o r.html" in page


def _fences_closed(markdown: str) -> bool:
    """Whether no line of `markdown` opens a code fence that nothing closes."""
    from chunkscope.engine.read.headings import fence_after

    fence: str | None = None
    for line in markdown.split("\n"):
        fence = fence_after(line, fence)
    return fence is None


@pytest.mark.parametrize("marker", ["~~~", "```"])
def test_where_it_stopped_says_a_code_block_inline_never_as_a_fence_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    """F3: "Where it stopped" folded the last message's code block onto one line: a `~~~`
    block became a line opening a fence never closed (the rest of `_recap.md` rendered
    as code), a ``` block a run of stray backticks around the snippet."""
    f = _seed_log(
        tmp_path,
        [
            ("user", "Fix the off-by-one in sum.py"),
            ("assistant", "The loop started at index one, so the first element was skipped."),
            ("user", "Show me the final function"),
            (
                "assistant",
                f"{marker}\ndef total(xs):\n    return sum(xs)\n{marker}\n"
                "That is the whole function.",
            ),
        ],
    )
    assert main(["recap", str(f), "-o", "-"]) == 0
    recap = capsys.readouterr().out
    assert "`def total(xs): return sum(xs)`. That is the whole function." in recap, recap
    assert _fences_closed(recap) and marker not in recap, recap


def test_a_code_block_then_its_traceback_keep_their_exception_in_the_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F7: a snippet's block then its traceback's block, back to back (as GitHub issues
    are written), lost the exception and put the user's words after it in a code span
    with a stray ```."""
    request = (
        "Make the parser accept spaces\n```python\nparse('1 2')\n```\n```\n"
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
        "ValueError: bad value\n```\n\nI am not sure whether this is intended."
    )
    f = _seed_log(tmp_path, [("user", request), ("assistant", "It splits on any blank now.")])
    assert main(["recap", str(f), "-o", "-"]) == 0
    task = capsys.readouterr().out.split("\n")[1]
    assert task == (
        "Make the parser accept spaces `parse('1 2')` `Traceback: ValueError: bad value`. "
        "I am not sure whether this is intended."
    ), task


@pytest.mark.parametrize("focus", ["merged", "before"])
async def test_pin_after_arrows_in_one_burst_acts_on_the_chunk_the_arrows_reached(
    focus: str,
) -> None:
    """F12: `↓ ↓ ↓ p` typed in one burst pinned chunk 0 (the selection from before the
    arrows: the list's Selected message was still queued behind `p`); `x`, `m` and `c`
    the same."""
    from chunkscope.tui.widgets.chunk_list import ChunkList
    from tests.pilot import burst, make_app, settled, wait_for

    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        lst = bench.query_one(f"#{focus}", ChunkList)
        lst.focus()
        await pilot.pause()
        bench.select_merged(0)
        lst.select(0)
        await pilot.pause()
        steps = 3 if focus == "merged" else 12  # past the first merged chunk's items
        burst(app, *["down"] * steps, "p")
        await wait_for(pilot, lambda: bool(app.state.pinned), 5)
        await pilot.pause()
        if focus == "merged":
            target = 3
        else:
            owner = bench.view.owner_of_left(12)
            assert owner is not None and owner > 0
            target = owner
        chunk = bench.view.result.chunks[target]
        assert app.state.pinned == {chunk.text} or list(app.state.pinned) == [chunk.text], (
            target,
            [c.text[:30] for c in bench.view.result.chunks if c.text in app.state.pinned],
        )


def test_an_openai_custom_tool_call_is_read_with_its_name_and_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F8: a Chat Completions custom tool call (`"type": "custom"`, GPT-5's free-form
    tools) read `Bot: ?()`, collapsed `Called ?().`: name and patch lost."""
    import json

    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    call = {"id": "c1", "type": "custom", "custom": {"name": "apply_patch", "input": patch}}
    f = tmp_path / "chat.json"
    f.write_text(
        json.dumps(
            [
                {"role": "user", "content": "Set x to 2 in src/a.py"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "Done!"},
                {"role": "assistant", "content": "Patched src/a.py."},
            ]
        ),
        encoding="utf-8",
    )
    assert main(["chunk", str(f), "--no-collapse"]) == 0
    raw = capsys.readouterr().out
    assert "Bot: apply_patch\n" in raw and "+x = 2" in raw and "?()" not in raw, raw
    assert main(["chunk", str(f), "--collapse"]) == 0
    assert "Tool: Edited src/a.py." in capsys.readouterr().out
    assert main(["recap", str(f), "-o", "-"]) == 0
    assert "- src/a.py (1 edit)" in capsys.readouterr().out


def test_a_chatgpt_call_s_json_body_reads_as_its_arguments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """F2: a ChatGPT export's call whose body is JSON (canvas, `dalle.text2im`,
    `web.run`) showed as `input='{"name": ...\\n...'`, a quoted JSON string with its
    escapes, in both views."""
    from tests.pilot import ROOT

    f = ROOT / "tests/fixtures/chatgpt/walk25-tool-bodies.json"
    assert main(["chunk", str(f), "--no-collapse"]) == 0
    raw = capsys.readouterr().out
    assert "Bot: canmore.create_textdoc name=tides_poem type=document content:" in raw
    assert "    The sea comes in," in raw  # the document's lines, not "\\n" escapes
    assert 'Bot: dalle.text2im "A watercolor of tides at dusk" size=1024x1024' in raw
    assert 'Bot: web.run search_query=[q="tide tables Brest"]' in raw
    assert 'Bot: bio "User likes haiku."' in raw
    assert "input=" not in raw and '{"' not in raw and "\\\\n" not in raw, raw


@pytest.mark.parametrize(
    "markup",
    [
        "![The workbench on the bundled sample log](docs/workbench.svg)",
        "- `toggle-theme light`\n- `toggle-theme dark`",
        "`~/.gemini/antigravity/scratch/chat_logs/chat_log.md`",
        "https://gist.github.com/moredip/ddfbe6ef17883b0bd33680fdf5d714af",
    ],
)
def test_a_summary_never_says_markup_alone(markup: str) -> None:
    """F10, F11: an image embed, a list of code spans, a bare path or URL was kept as a
    summary (README's recap showed its screenshot's markdown), beside a chunk's prose or
    alone."""
    from chunkscope.engine.summarize import ExtractiveSummarizer

    summarizer = ExtractiveSummarizer()
    prose = "Doc: The theme follows the system setting and switches without a restart."
    both = summarizer.summarize(f"{prose}\n\n{markup}")
    assert markup.split("\n")[0] not in f"{both.abstract} {both.summary}", both
    assert "system setting" in both.abstract
    alone = summarizer.summarize(f"Doc: {markup}")
    assert (alone.abstract, alone.summary) == ("", ""), alone


def test_aider_s_source_fence_is_code_and_a_file_label_is_no_sentence() -> None:
    """F4: code inside aider's `<source>` fences (its fence for a file holding ```) was
    read as prose (a real recap was mostly flattened Python), and an edit block's file
    line with a backslash (`Controllers\\CatalogController.cs`) was a sentence."""
    from chunkscope.engine.summarize import ExtractiveSummarizer, split_sentences

    text = (
        "Bot: The fixture now returns the database URL.\n\n"
        "backend/tests/conftest.py\n<source>python\n<<<<<<< SEARCH\n"
        "def ecommerce_db_path() -> str:\n    return str(REPO_ROOT / 'ecommerce.db')\n"
        "=======\ndef ecommerce_db_path() -> str:\n    return 'sqlite://./ecommerce.db'\n"
        ">>>>>>> REPLACE\n</source>\n\n"
        "Controllers\\CatalogController.cs\n```csharp\n<<<<<<< SEARCH\nvar a = 1;\n=======\n"
        "var a = 2;\n>>>>>>> REPLACE\n```\n\nEvery backend test uses the URL now."
    )
    sentences = [s.text for s in split_sentences(text)]
    assert sentences == [
        "The fixture now returns the database URL.",
        "Every backend test uses the URL now.",
    ], sentences
    summary = ExtractiveSummarizer().summarize(text)
    assert "def " not in summary.summary and "Catalog" not in summary.summary, summary


def test_an_anthropic_server_tool_s_result_in_the_calling_message_is_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F9: a `server_tool_use` web search whose `web_search_tool_result` block sits in
    the same message read "(no result in the log)"."""
    import json

    hits = [
        {
            "type": "web_search_result",
            "title": "Download Python",
            "url": "https://python.org/downloads/",
        }
    ]
    content = [
        {"type": "text", "text": "Let me search."},
        {
            "type": "server_tool_use",
            "id": "s1",
            "name": "web_search",
            "input": {"query": "latest python release"},
        },
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": hits},
        {"type": "text", "text": "Python 3.14 is the latest release."},
    ]
    f = tmp_path / "chat.json"
    f.write_text(
        json.dumps(
            [
                {"role": "user", "content": "What is the latest Python?"},
                {"role": "assistant", "content": content},
            ]
        ),
        encoding="utf-8",
    )
    assert main(["chunk", str(f), "--collapse"]) == 0
    folded = capsys.readouterr().out
    assert "Tool: Searched the web for 'latest python release'." in folded, folded
    assert "no result in the log" not in folded
    assert main(["chunk", str(f), "--no-collapse"]) == 0
    assert "Tool: Download Python https://python.org/downloads/" in capsys.readouterr().out


def test_the_interrupted_mark_is_no_summary_sentence() -> None:
    """Walk 25's last run: a chunk's summary opened on "[Request interrupted by user]."
    (the tool's mark, not anyone's words) once the chunks around it moved."""
    from chunkscope.engine.summarize import ExtractiveSummarizer

    text = "You: [Request interrupted by user]\nBot: The session was published successfully."
    summary = ExtractiveSummarizer().summarize(text)
    assert "interrupted" not in f"{summary.abstract} {summary.summary}", summary
