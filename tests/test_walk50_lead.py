"""Walk 50's findings fixed in the readers and the engine (the command line's are in
`tests/test_walk50.py`): each test fails on the code before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

from chunkscope.engine.read.parse import load


def test_a_gemini_result_s_lines_end_on_the_member_its_text_comes_from(tmp_path: Path) -> None:
    """F1: a tool result's range ran on to the call's ``resultDisplay`` line ("Search
    results for ... returned."), which the result's text does not hold: every Gemini
    session's results, and the merged chunks after them."""
    call = {
        "id": "s1",
        "name": "google_web_search",
        "args": {"query": "install on linux"},
        "result": [
            {
                "functionResponse": {
                    "id": "s1",
                    "name": "google_web_search",
                    "response": {"output": "Use the .deb package.\n\nThen run apt install."},
                }
            }
        ],
        "status": "success",
        "timestamp": "2026-01-10T01:56:00.000Z",
        "resultDisplay": 'Search results for "install on linux" returned.',
    }
    doc = {
        "sessionId": "g2",
        "projectHash": "cd",
        "startTime": "2026-01-10T01:55:00.000Z",
        "lastUpdated": "2026-01-10T01:57:00.000Z",
        "messages": [
            {"id": "u", "timestamp": "2026-01-10T01:55:00.000Z", "type": "user",
             "content": "How do I install it on Linux?"},
            {"id": "g", "timestamp": "2026-01-10T01:56:00.000Z", "type": "gemini",
             "content": "Searching.", "toolCalls": [call]},
        ],
    }  # fmt: skip
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    output_line = next(i for i, ln in enumerate(lines, 1) if "Use the .deb package" in ln)
    display_line = next(i for i, ln in enumerate(lines, 1) if '"resultDisplay"' in ln)
    tool = next(t for t in load(path).turns if t.role == "Tool")
    assert tool.text.startswith("Use the .deb package.")
    assert (tool.end_line or tool.line) == output_line < display_line, (tool, output_line)


def test_a_search_cut_of_a_json_document_s_message_keeps_the_lines_of_its_text(
    tmp_path: Path,
) -> None:
    """F4: a chunk cut to the budget counted the line breaks of its kept text from the
    message's first line, the object's ``{``: a Gemini answer cut short said the ``{`` line
    alone, not the line its text is on."""
    from chunkscope.engine.chunk.split import chunk_turns
    from chunkscope.engine.search.core import prefix_lines

    answer = (
        "1. **If the key is present:** it asks for a touch.\n"
        "2. **If it is missing:** the check fails."
    )
    doc = {
        "sessionId": "g3",
        "projectHash": "ef",
        "startTime": "2026-01-10T01:55:00.000Z",
        "lastUpdated": "2026-01-10T01:57:00.000Z",
        "messages": [
            {"id": "g", "timestamp": "2026-01-10T01:56:00.000Z", "type": "gemini",
             "content": answer},
        ],
    }  # fmt: skip
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    text_line = next(i for i, ln in enumerate(lines, 1) if "If the key is present" in ln)
    (chunk,) = [c for c in chunk_turns(load(path).turns) if "the key is present" in c.text]
    assert chunk.lines is not None and chunk.lines[1] == text_line
    assert prefix_lines(chunk, 40) == chunk.lines  # the cut's text is on the text's line


def test_an_aider_block_opened_by_a_blank_line_counts_its_lines_from_its_words(
    tmp_path: Path,
) -> None:
    """F14: a user block opened by a ``####   `` line kept that blank line in its text while
    its first line was counted from its first words: a chunk cut inside the turn (the
    markdown strategy with overlap, a sliding window) said the line before its text."""
    from chunkscope.engine.chunk.strategies import run_strategy
    from chunkscope.engine.tokens import get_counter

    words = [
        f"####     item {i}: the number of commits per month is measured here" for i in range(12)
    ]
    chat = "\n".join(
        [
            "# aider chat started at 2026-02-13 09:13:23",
            "",
            "####   ",
            *words,
            "####   ",
            "",
            "Sure, here is the measure of each item, one by one.",
        ]
    )
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(chat + "\n", encoding="utf-8")
    file_lines = path.read_text(encoding="utf-8").splitlines()
    source = load(path)
    you = next(t for t in source.turns if t.role == "You")
    assert you.text.lstrip().startswith("item 0") and you.source_line == 4, you
    params = {"max_tokens": 30, "overlap": 5, "preserve_message_boundaries": False}
    run = run_strategy("sliding-window", params, source.turns, get_counter())
    assert len(run.chunks) > 3
    for chunk in (c.chunk for c in run.chunks):
        first, last = chunk.lines or (0, 0)
        body = re.sub(r"\A(?:You|Bot): ", "", chunk.text)
        head = body.strip().split()[0]
        assert head in file_lines[first - 1], (chunk.lines, chunk.text[:60])
        tail = body.strip().split()[-1]
        assert tail in file_lines[last - 1], (chunk.lines, chunk.text[-60:])


def test_aider_s_banner_before_a_declined_question_is_no_command(tmp_path: Path) -> None:
    """F7: a run that began on a pending question ("Run shell command? ... n" right after
    aider's start-up lines) was said as ``Declined to run `Repo-map: using 4096 tokens,
    auto refresh```; a command the model suggested is still said."""
    from chunkscope.engine.recap.sections import extract_sections

    chat = """# aider chat started at 2025-09-22 14:50:00

#### run the metrics script

To run it:
```bash
./metrics_check.sh
```

> ./metrics_check.sh
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n

# aider chat started at 2025-09-22 14:55:00

> Aider v0.83.1
> Main model: openrouter/qwen/qwen3-coder with whole edit format
> Git repo: .git with 3 files
> Repo-map: using 4096 tokens, auto refresh
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n
"""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(chat, encoding="utf-8")
    source = load(path, keep_messages=True)
    (rejections,) = [s for s in extract_sections(source.messages, []) if s.name == "rejections"]
    assert rejections.lines == ("- Declined to run `./metrics_check.sh`",), rejections.lines


def test_a_json_document_that_does_not_parse_is_said_so_not_malformed_lines(
    tmp_path: Path,
) -> None:
    """F3: a Gemini chat or a trajectory (one JSON document over many lines) with a binary
    tail, or cut short, was refused as "skipped 4034 malformed lines of 4034" (read as JSON
    lines). It is one line saying the document does not parse, and where."""
    import pytest

    from chunkscope.engine.errors import SourceError
    from chunkscope.engine.read.source import require_turns

    doc = {
        "sessionId": "g4",
        "projectHash": "ab",
        "startTime": "2026-01-10T01:55:00.000Z",
        "lastUpdated": "2026-01-10T01:57:00.000Z",
        "messages": [
            {"id": f"m{k}", "timestamp": "2026-01-10T01:56:00.000Z", "type": "user",
             "content": f"message number {k}"}
            for k in range(40)
        ],
    }  # fmt: skip
    text = json.dumps(doc, indent=2).encode()
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: len(text) // 2])
    tail = tmp_path / "tail.json"
    tail.write_bytes(text + b"\x00" * 50 + bytes(range(128, 256)) * 4)
    # (the line it breaks on as a malformed line's: ``path:line: ...``, walk 56, F7)
    for path, where in ((cut, f"{cut}:"), (tail, "not UTF-8 text at byte ")):
        with pytest.raises(SourceError) as e:
            require_turns(load(path))  # (lenient reading raises nothing of its own)
        said = str(e.value)
        assert "does not parse" in said and where in said and "malformed" not in said, said
    # JSON lines whose first line is whole are said line by line
    lines = tmp_path / "log.json"
    lines.write_text('{"nobody": 1}\n{"role": "assistant", "con\n')
    with pytest.raises(SourceError, match="malformed lines"):
        require_turns(load(lines))


def test_a_code_block_folded_into_a_line_ends_before_the_sentence_after_it() -> None:
    """F17: "Where it stopped" folded a code block into its line and ran the next sentence
    on from it: "heading: `# Test Project` It just declares ..."."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, user

    msgs = [
        user("What does the README say?"),
        bot(
            "The README.md file contains a simple heading:\n\n```\n# Test Project\n```\n\n"
            "It just declares the project name, with no description."
        ),
    ]
    last = next(s for s in extract_sections(msgs, []) if s.name == "last")
    assert "`# Test Project`. It just declares" in last.whole, last.whole  # shown with room


def test_a_file_named_under_the_home_and_in_full_is_one_file() -> None:
    """F9: one file written by ``write_file`` (``/home/ann/.local/...``) and by a shell
    heredoc (``~/.local/...``) was listed twice in "Files changed"."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, call, result, user

    svg = "/home/ann/.local/share/icons/toggle.svg"
    msgs = [
        user("Make a theme toggle with an icon."),
        bot("", call("t1", "write_file", {"file_path": svg, "content": "<svg/>"})),
        result("t1", "Successfully created and wrote to new file."),
        bot(
            "",
            call(
                "t2",
                "Bash",
                {"command": "cat > ~/.local/share/icons/toggle.svg <<'EOF'\n<svg/>\nEOF"},
            ),
        ),
        result("t2", ""),
        bot("", call("t3", "write_file", {"file_path": "/home/ann/bin/toggle", "content": "x"})),
        result("t3", "Successfully created and wrote to new file."),
    ]
    files = by_name(extract_sections(msgs, []))["files"]
    assert len([f for f in files if "toggle.svg" in f]) == 1, files


def test_a_file_s_name_or_a_line_of_code_alone_is_no_summary() -> None:
    """F11: an aider whole-file edit's label (``.gitignore`` before its ``<source>`` block)
    and a diff's last line (``db_url=db_url, )``) were chunks' summaries, opening the
    recap's "What happened"; a chunk whose only text is code has no summary."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, is_markup

    label = "Bot: .gitignore\n<source>\n# OS\n.DS_Store\n__pycache__/\n</source>"
    diff = (
        "Bot: Error branch:\n-         return QueryResponse(\n+         return QueryResponse(\n"
        "              ok=False,\n              result=None,\n+             db_url=db_url,\n"
        "          )"
    )
    for text in (label, diff):
        assert ExtractiveSummarizer().summarize(text).summary == "", text
    assert is_markup("db_url=db_url, )") and is_markup(".gitignore")
    assert not is_markup("Set db_url in the health check.")  # prose around code is prose


def test_a_prompt_s_chevrons_the_user_typed_are_kept_in_the_task() -> None:
    """F19: a later request quoting a program's output (``>>> Triggering List Refresh...``)
    lost its ``>>>`` as if they were a quote's markers; the Rejected section kept them."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot, by_name, user

    msgs = [
        user("Run the dashboard."),
        bot("It runs."),
        user("not working:\n>>> Triggering List Refresh...\n>>> List Refresh Signal Sent."),
    ]
    task = by_name(extract_sections(msgs, []))["task"]
    assert task[-1] == (
        "Later: not working: >>> Triggering List Refresh... >>> List Refresh Signal Sent."
    ), task
    # a quote's marker is still left out
    quoted = by_name(extract_sections([*msgs[:2], user("> the old text\nIs it right?")], []))
    assert quoted["task"][-1] == "Later: the old text Is it right?", quoted["task"]


def test_a_lead_in_whose_verb_wants_what_follows_is_a_fragment() -> None:
    """F12: "With `--embed` ... the document gains:" (its list left out) was a summary's
    sentence with its colon made a stop, "the document gains."; a lead-in that says
    something itself is still one."""
    from chunkscope.engine.summarize.extractive import is_fragment, split_sentences

    def fragment(text: str) -> bool:
        (sentence,) = split_sentences(f"Doc: {text}")
        return is_fragment(sentence)

    assert fragment("With `--embed` (and in `recap`'s and `search`'s runs) the document gains:")
    assert fragment("The output of the second run is:")
    assert not fragment("Install the dependencies and run the whole test suite:")


def test_a_one_word_request_is_no_sentence_of_a_summary() -> None:
    """F13: the user's one-word request was said as a statement in the recap ("verify.
    Refused by the user: ..."); the agent's words say what it did."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, sentences_of

    text = (
        "You: verify\n"
        "Bot: I will run the app from the CLI to check it starts without errors.\n"
        "Tool: Refused by the user: `python3 main.py`."
    )
    said = sentences_of(ExtractiveSummarizer().summarize(text).summary)
    assert "verify." not in said and said, said


def test_a_log_line_s_fields_joined_by_pipes_are_no_prose() -> None:
    """A pasted log line (``15:10:31.3513|INFO|Microsoft.Hosting.Lifetime|``) took the
    place of the one-word request above as a chunk's summary."""
    from chunkscope.engine.summarize.extractive import is_markup

    assert is_markup("2025-11-04 15:10:31.3513|INFO|Microsoft.Hosting.Lifetime|.")
    assert not is_markup("Pipe it through grep | head to see the first lines.")
