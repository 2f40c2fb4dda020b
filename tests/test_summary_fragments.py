"""A summary never keeps a fragment (issue 35): a sentence that only introduces what
follows, a bare label, the rest of a sentence cut by a block, a sentence that starts or
ends inside a quotation, one with no word of content; quote and list markers are never
joined into prose. The rule is one place, `is_fragment`, used by the sentence selection."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.engine.summarize import ExtractiveSummarizer
from chunkscope.engine.summarize.extractive import (
    Sentence,
    _truncate,
    is_fragment,
    sentences_of,
    split_sentences,
)
from chunkscope.tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
SUMMARIZER = ExtractiveSummarizer()


def bot(text: str, after: str = "", role: str = "Bot") -> Sentence:
    return Sentence(text, role, 0, True, after=after)


def summary_sentences(text: str) -> list[str]:
    return sentences_of(SUMMARIZER.summarize(text).text)


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    "text",
    [
        "I've added:",  # its list is not in a summary
        "Here's a breakdown:",
        "Try this environment variable:",
        "**Use Direct Environment Variables when:**",
        "A smoother version is:",
        "Depends on: —",  # a label with no value
        "**Description:**",
        "**Inspecting repository**",  # a title in bold alone
        "**Sushi**.",
        "You have.",  # no word of content
        "but I get the following error:",
        "with.",
        "solve static contact constraints, or",  # ends mid-sentence
        "a separate low-speed/static model, **or**",
        'Press Ctrl+C to stop.", err=True).',  # starts inside a quotation
        'The user says: "I am getting an error that I cannot access a disposed value.',
    ],
)
def test_fragments(text: str) -> None:
    assert is_fragment(bot(text))


@pytest.mark.parametrize(
    "text",
    [
        "Install the test dependencies and run the whole test suite:",  # says something
        "**1. Update `App.js` to manage theme state and add the toggle button:**",
        "All 728 tests passed!",
        "Pushed.",
        "Ran `pytest -q`: 41 passed.",
        "cache_key() hashes only the text, not the model.",  # a name opens it
        "conftest.py now gives every test its own cache directory.",
        "spotter-fum.2 is now unblocked.",
        'We need to answer the question: "Is it global? What is best?"',
        "Run `echo a:` first",  # the colon is the code's
        "**All tests pass.**",
        "**Verdict: APPROVE**",
        "**All tests pass**",
        "is the cache shared between windows?",  # a question, not the rest of a sentence
    ],
)
def test_sentences(text: str) -> None:
    assert not is_fragment(bot(text))


def test_lowercase_is_a_fragment_only_where_it_goes_on_from_a_cut() -> None:
    line = "the program still doesnt run."
    assert not is_fragment(bot(line, role="You"))  # a user writes lowercase
    assert not is_fragment(bot(line, after="sentence", role="You"))
    assert is_fragment(bot(line, after="block", role="You"))  # the rest of a sentence
    assert is_fragment(bot(line, after="item"))  # the end of a list's lead-in
    assert is_fragment(bot(line, after="sentence"))  # the agent's sentence cut in two
    assert not is_fragment(bot(line))


# --------------------------------------------------------------------------- splitting


def test_a_sentence_after_a_block_is_marked_as_going_on_from_it() -> None:
    text = (
        "You: I'm running `missing_colon.py` as follows:\r\n\r\n```python\r\n"
        "division(23, 0)\r\n```\r\n\r\nbut I get the following error:\r\n\r\n```\r\n"
        "SyntaxError: invalid syntax\r\n```\nBot: I found the missing colon in "
        "tests/missing_colon.py. The fix adds it after the return type."
    )
    by_text = {s.text: s for s in split_sentences(text)}
    assert by_text["but I get the following error:"].after == "block"
    assert by_text["I found the missing colon in tests/missing_colon.py."].after == ""
    assert by_text["The fix adds it after the return type."].after == "sentence"
    said = " ".join(summary_sentences(text))
    assert "but I get" not in said and "following error" not in said
    assert "missing colon in tests/missing_colon.py" in said


def test_a_list_lead_in_is_left_out_and_its_items_keep_no_marker() -> None:
    text = (
        "Bot: Done. I've added:\n"
        "Bot: 1. **`multiply_numbers` function** in `src/math_utils.py:9` - multiplies two "
        "integers and returns the result\n"
        "2. **`test_multiply_numbers` test** in `tests/test_math_utils.py:13` - tests "
        "multiplication with positive numbers, negative numbers, and zero\n"
    )
    said = summary_sentences(text)
    assert said and not any("I've added" in s for s in said)
    assert not any(re.match(r"\d+\.\s|[-*>]\s", s) for s in said), said
    assert any("multiply_numbers" in s for s in said)


def test_a_quote_is_a_block_of_its_own_never_joined_into_prose() -> None:
    text = (
        "Bot: The task, as the planner wrote it.\n"
        "> No static analysis runs in CI for the Elixir code.\n"
        ">\n"
        "> ## Solution\n"
        "> Add three standard Elixir quality tools as dev dependencies:\n"
        "> - **Credo** for static code analysis and style checking\n"
        "> - **Dialyxir** for gradual type checking via Dialyzer\n"
        "> ```elixir\n"
        '> defp aliases, do: [quality: ["credo"]]\n'
        "> ```\n"
        "All three were added to mix.exs in commit 05fd186.\n"
    )
    sentences = split_sentences(text)
    texts = [s.text for s in sentences]
    assert not any(">" in t for t in texts), texts  # markers off, quoted code left out
    assert "The task, as the planner wrote it." in texts
    assert "No static analysis runs in CI for the Elixir code." in texts
    assert "All three were added to mix.exs in commit 05fd186." in texts  # not joined
    assert any(s.heading and s.text == "Solution" for s in sentences)
    assert "**Credo** for static code analysis and style checking" in texts
    assert not any("defp" in t for t in texts)


def test_tool_lines_keep_no_list_marker() -> None:
    text = (
        "Tool: Add a **parallel enriched code path** used by `render/2`:\n"
        "Tool: - `render/2` (new, opts with `:session_cwd`) calls `render_message_enriched/2`\n"
        "Tool: - `render/1` delegates to `render/2` with `[]` via default args\n"
    )
    said = SUMMARIZER.summarize(text).text
    assert " - `render" not in said and not said.startswith("- ")
    assert "`render/1` delegates to `render/2`" in said


def test_a_quoted_question_is_part_of_the_sentence_that_quotes_it() -> None:
    text = (
        "We need to answer the user's question: \"shouldn't `PixelsPerMeter` be a global "
        'setting? What is the best way to create global settings in godot?" An autoload '
        "singleton is the usual answer."
    )
    assert sentences_of(text) == [
        "We need to answer the user's question: \"shouldn't `PixelsPerMeter` be a global "
        'setting? What is the best way to create global settings in godot?"',
        "An autoload singleton is the usual answer.",
    ]
    # a stray mark that nothing closes nearby does not glue the paragraph together
    stray = 'The screen is 27" wide. It is fine. ' + "Filler words here. " * 30 + 'Then "x".'
    assert len(sentences_of(stray)) > 30


def test_an_ellipsis_before_a_lowercase_word_ends_no_sentence() -> None:
    text = 'The lines under "2. To Control Extreme Speeds..." two bullet lines follow.'
    assert sentences_of(text) == [text]


def test_a_cut_sentence_closes_what_it_leaves_open() -> None:
    quoted = 'It said "' + "word " * 80 + 'end" and stopped.'
    cut = _truncate(quoted, 100)
    assert cut.count('"') % 2 == 0 and cut.endswith('..."')
    code = "Run `" + "x " * 80 + "` now."
    assert _truncate(code, 60).count("`") % 2 == 0


def test_a_chunk_of_fragments_alone_has_no_summary() -> None:
    text = "Bot: ---\nBot: ### Task 1: Install quality tools\nDepends on: —\nBot: **Description:**"
    assert SUMMARIZER.summarize(text).text == ""


# --------------------------------------------------------------------------- real logs

_FRAGMENT_SIGNS = (
    re.compile(r"^(?:but|and|or|with|to|of)\b"),  # the rest of a cut sentence
    re.compile(r"^\W*[\w ]{1,30}:\W*$"),  # a label with no value
    re.compile(r"^\s*(?:>|[-*+]\s|\d{1,3}[.)]\s)"),  # a list or quote marker
    re.compile(r"\s>\s+[-*#>]"),  # quote markers joined into prose
)


@pytest.mark.parametrize(
    "name",
    [
        "tests/fixtures/mini-swe-agent/github_issue.traj.json",
        "tests/fixtures/claude-code/coverage-test-fix.jsonl",
        "sample_logs/cache_refactor.jsonl",
    ],
)
def test_no_summary_of_a_real_log_keeps_a_fragment(
    name: str, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    assert main(["recap", str(ROOT / name), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for cand in doc["candidates"]:
        for s in sentences_of(cand["summary"]):
            assert not any(p.search(s) for p in _FRAGMENT_SIGNS), (cand["index"], s)
            assert s != "I've added.", cand["index"]
    what = doc["recap"].split("## What happened", 1)[-1]
    assert "but I get the following error" not in what


def test_where_it_stopped_keeps_no_lead_in() -> None:
    """The sections say the last message's sentences by the same rule: its list's
    lead-in ("I've added:") is no line of its own; it opens its first item's line."""
    from chunkscope.engine.recap.sections import extract_sections
    from tests.test_sections import bot as bot_msg
    from tests.test_sections import by_name, user

    last = (
        "Done. I've added:\n\n1. **`multiply_numbers`** in `src/math_utils.py`\n"
        "2. **`test_multiply_numbers`** in `tests/test_math_utils.py`\n"
    )
    msgs = [user("Add a multiply function with a test."), bot_msg(last)]
    lines = by_name(extract_sections(msgs, []))["last"]
    assert lines and not any(line.rstrip(".").endswith("added") for line in lines), lines
    assert lines[0].startswith("Done. I've added: **`multiply_numbers`**"), lines
    assert any("src/math_utils.py" in line for line in lines)


# ------------------------------------------------ the readers' own roles (walk 19, F4)


SUBAGENT_CHUNK = (
    "Subagent: Ran `rm /home/u/app/data-capture/config.js`: \n"
    "Subagent: ## 3. Converting database.js\n"
    "Subagent: Let me check if there's a package.json that lists the old entry point.\n"
    "Subagent: Read /home/u/app/package.json (32 lines)"
)


def test_a_subagent_label_opens_a_turn_and_is_no_text() -> None:
    sentences = split_sentences(SUBAGENT_CHUNK)
    assert [s.role for s in sentences] == ["Subagent"] * 4
    assert not any("Subagent:" in s.text for s in sentences)
    assert sentences[1].heading and sentences[1].text == "3. Converting database.js"
    summary = SUMMARIZER.summarize(SUBAGENT_CHUNK).text
    assert "Subagent" not in summary
    assert "package.json that lists the old entry point" in summary
    assert "## 3." not in summary


@pytest.mark.parametrize("role", ["compaction", "End"])
def test_the_readers_other_labels_open_a_turn(role: str) -> None:
    text = f"Bot: The cache key now includes the model name.\n{role}: The session went on."
    sentences = split_sentences(text)
    assert [(s.role, s.text) for s in sentences] == [
        ("Bot", "The cache key now includes the model name."),
        (role, "The session went on."),
    ]


def test_a_tool_output_line_opening_error_is_no_turn() -> None:
    sentences = split_sentences("Tool: build failed\nerror: missing semicolon")
    assert [(s.role, s.text) for s in sentences] == [
        ("Tool", "build failed"),
        ("Tool", "error: missing semicolon"),
    ]
