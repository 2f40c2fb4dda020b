"""Walk 70: a fresh walk through the workbench; the findings fixed here. F1: the Summary
panel said a list's item twice (the abstract ``The changes needed in the renderer:
Language inference ...`` again at the end of the summary, whose lead-in went with an
earlier item), the JSON export's ``summary`` too.

Each test fails on the code before its fix."""

from __future__ import annotations

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
