"""Walk 70: a fresh walk through the workbench; the findings fixed here. F1: the Summary
panel said a list's item twice (the abstract ``The changes needed in the renderer:
Language inference ...`` again at the end of the summary, whose lead-in went with an
earlier item), the JSON export's ``summary`` too; or after a question, shown whole. F2: a
Gemini thought's subject with its own colon read ``Compiling a Report:: I've ...``.

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

from chunkscope.engine.read.parse import load
from chunkscope.engine.summarize.base import summary_rest
from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

CHUNK_35 = (
    "Bot: Now I have a clear picture. The changes needed in the renderer:\n"
    "Bot: 1. Remove the 5-line truncation, keep all lines, add group metadata\n"
    "2. Add `:debug_payload` per row\n"
    "3. Mark numbered read output (`⎿  <number>→...`) in tool results as code with"
    " inferred language\n"
    "4. Language inference from associated Read tool_use file extension\n"
    "Bot: Let me implement these changes:\n"
)


def test_f1_an_item_said_as_the_abstract_is_not_said_again_by_the_summary() -> None:
    summary = ExtractiveSummarizer().summarize(CHUNK_35)
    rest = summary_rest(summary.abstract, summary.summary)
    item = summary.abstract.partition(": ")[2].rstrip(".")
    assert item, summary
    assert item not in rest, (summary.abstract, rest)
    shown = f"{summary.abstract} {rest}"
    assert shown.count("The changes needed in the renderer") <= 2


def test_f1_the_rest_keeps_what_the_abstract_does_not_say() -> None:
    abstract = "The changes needed: Language inference from the file's extension"
    summary = (
        "The changes needed: Mark numbered read output as code. "
        "Language inference from the file's extension."
    )
    rest = summary_rest(abstract, summary)
    assert rest == "The changes needed: Mark numbered read output as code."
    # a summary with no lead-in of that name: nothing taken out but the abstract whole
    other = "Language inference from the file's extension is done. It works."
    assert summary_rest(abstract, other) == other


def test_f1_an_abstract_after_a_question_is_not_said_twice() -> None:
    """gemini-slate-router's chunk 236: the summary was shown whole (the abstract answers
    the question before it), so the panel said the abstract twice."""
    abstract = "Blocky is running and listening on port 4000."
    summary = (
        "Are the router logs showing the refresh request? Blocky is running and listening"
        " on port 4000. **Step 3:** Check logs for refresh attempts."
    )
    rest = summary_rest(abstract, summary)
    assert "port 4000" not in rest and "?" not in rest, rest
    assert rest == "**Step 3:** Check logs for refresh attempts."


def test_f2_a_gemini_thought_s_subject_ending_in_a_colon_takes_no_second(tmp_path: Path) -> None:
    chat = {
        "sessionId": "s",
        "projectHash": "abc",
        "startTime": "2025-12-01T10:00:00.000Z",
        "messages": [
            {"type": "user", "content": "compile the report"},
            {
                "type": "gemini",
                "content": "Here it is.",
                "thoughts": [
                    {"subject": "Compiling a Report:", "description": "I've gathered the data."}
                ],
            },
        ],
    }
    path = tmp_path / "session-2025-12-01T10-00-abcd1234.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    texts = [t.text for t in load(path).turns]
    assert any("Compiling a Report: I've gathered the data." in t for t in texts), texts
    assert not any("::" in t for t in texts), texts


def test_f3_an_option_offered_is_said_with_its_lead_in() -> None:
    """spotter-4d5611e5: "Fix the pre-existing waiting_summary.ex issues (scope creep)."
    was said alone, as if it were what the agent did; it was one of two options offered."""
    from chunkscope.engine.summarize.extractive import split_sentences

    text = (
        "Bot: The pre-commit hook is failing on **pre-existing issues only** — all 10"
        " dialyzer errors are in files I didn't touch.\n"
        "Bot: Since the hook won't let me commit, I have two options:\n"
        "1. Fix the pre-existing waiting_summary.ex issues (scope creep)\n"
        "2. Use --no-verify to skip the hook\n"
    )
    summary = ExtractiveSummarizer().summarize(text)
    said = f"{summary.abstract} {summary.summary}"
    if "Fix the pre-existing" in said:
        assert "I have two options: Fix the pre-existing" in said, said
    # HTTP's OPTIONS is no offer of alternatives
    http = "Bot: Allow GET and OPTIONS on /health:\n- Add the CORS middleware to the app now\n"
    item = next(s for s in split_sentences(http) if s.text.startswith("Add the CORS"))
    assert item.lead >= 0
    from chunkscope.engine.summarize.extractive import _offers

    assert not _offers(split_sentences(http)[item.lead])


def test_f3_an_item_nested_in_another_takes_no_lead_in_of_the_list() -> None:
    """vite's server options: "To fix it, you could either:" over two items, the second
    with a nested note; the note was said as one of the alternatives."""
    from chunkscope.engine.summarize.extractive import split_sentences

    text = (
        "Doc: To fix it, you could either:\n\n"
        "- **Recommended**: Use WSL2 applications to edit your files.\n"
        "- Set `{ usePolling: true }`.\n"
        "  - Note that `usePolling` leads to high CPU utilization.\n"
    )
    sentences = split_sentences(text)
    note = next(s for s in sentences if s.text.startswith("Note that"))
    top = next(s for s in sentences if "WSL2 applications" in s.text)
    assert note.lead == -1 and top.lead == 0, (note, top)


# ------------------------------------------------- a review of the fixes above (and walk 68's)


def test_review_a_short_request_over_its_paste_stays_a_summary() -> None:
    """The label rule of walk 68, F1 took any short line over a block: a request ("make
    the sidebar collapsible" over its code) lost its place to a tool's line."""
    text = (
        "You: make the sidebar collapsible\n```tsx\nexport function Sidebar() {}\n```\n"
        "Bot: Let me look at the component first.\nTool: Read src/Sidebar.tsx (40 lines)\n"
    )
    assert ExtractiveSummarizer().summarize(text).abstract == "make the sidebar collapsible"


def test_review_bold_words_wrapped_in_a_sentence_stay_in_it() -> None:
    from chunkscope.engine.summarize.extractive import split_sentences

    text = (
        "You: Please make sure that you\n**do not delete the migrations folder**\n"
        "when you clean up the repo.\n"
    )
    assert [s.text for s in split_sentences(text)] == [
        "Please make sure that you **do not delete the migrations folder** when you clean"
        " up the repo."
    ]
    verdict = "Bot: **Verdict:**\n**APPROVE**\n"
    assert [s.text for s in split_sentences(verdict)] == ["**Verdict:** **APPROVE**"]


def test_review_the_rest_takes_out_whole_sentences_only() -> None:
    cases = {
        ("The changes needed: Add tests.", "The changes needed: Remove it. Add tests for it."): (
            "The changes needed: Remove it. Add tests for it."
        ),
        ("The cache is fixed.", "The cache is fixed in two places. Tests pass."): (
            "The cache is fixed in two places. Tests pass."
        ),
        ("Yes, it is.", "Look. Is it set in e.g. the env? Yes, it is. Tests pass."): (
            "Look. Tests pass."
        ),
        ("Yes: both pass.", "Does it build? Do the tests pass? Yes: both pass. I pushed."): (
            "I pushed."
        ),
        ("**Plan:** Add the flag", "**Plan:** Read the code. Add the flag."): (
            "**Plan:** Read the code."
        ),
    }
    for (abstract, summary), rest in cases.items():
        assert summary_rest(abstract, summary) == rest, (abstract, summary)


def test_review_an_item_after_a_nested_list_takes_its_own_list_s_lead_in() -> None:
    from chunkscope.engine.summarize.extractive import split_sentences

    text = (
        "Bot: I have two options:\n1. Patch the library locally:\n"
        "   - edit the vendored copy\n   - rebuild the wheel\n"
        "2. Pin the old version of the library in requirements.txt\n"
    )
    leads = {s.text: s.lead for s in split_sentences(text)}
    assert leads["Pin the old version of the library in requirements.txt"] == 0
    assert leads["edit the vendored copy"] == 1
