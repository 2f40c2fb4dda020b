"""Walk 61, documentation sets: search's cut lines, blank-line runs, SVG, list items'
fences. Each test fails on the code before its fix.

F8: `search` cut a chunk to the budget's rest and said lines its part did not hold: a part
ending on the next paragraph's bare role label (``...\\nDoc:``, or half of it, ``Doc``)
claimed that paragraph's lines, and under ``--enrich`` a part holding only the enrichment
header (no line of the file) was kept with a source range.
"""

from __future__ import annotations

from chunkscope.engine.chunk.strategies.markdown import enrichment_header
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.search.core import SearchIndex, SearchParams
from chunkscope.engine.tokens import get_counter

COUNTER = get_counter()


def _cut(chunk: Chunk, query: str, budget: int):  # type: ignore[no-untyped-def]
    index = SearchIndex([chunk], [0], COUNTER)
    return index.search(query, SearchParams(budget=budget, neighbours=0))


def test_f8_a_cut_part_ends_on_its_last_words_not_on_the_next_label() -> None:
    heading = "### Code Refactoring of the bundled dev server and its lazy bundling"
    rest = "* **bundled-dev:** avoid injecting server values into the lazy bundling client"
    chunk = Chunk([Turn(None, "Doc", heading, 71, None, 71), Turn(None, "Doc", rest, 73, None, 73)])
    first = COUNTER.count(f"Doc: {heading}")
    labelled = COUNTER.count(f"Doc: {heading}\nDoc: ")
    for budget in range(first, labelled + 2):
        answer = _cut(chunk, "lazy bundling", budget)
        (result,) = answer.results
        assert result.truncated
        assert result.text == f"Doc: {heading}", budget
        assert result.lines == (71, 71), budget


def test_f8_a_part_holding_only_the_enrichment_header_is_left_out() -> None:
    header = enrichment_header(
        "astro-actions.mdx", "Handling returned data > Handling an `ActionError`", 11, 30,
        "fine", "knowledge_base",
    )  # fmt: skip
    body = "#### Handling an `ActionError`\n\nThrow an ActionError from the action handler."
    chunk = Chunk([Turn(None, "Doc", header + body, 234, None, 236)])
    whole = COUNTER.count(f"Doc: {header}")
    for budget in range(8, whole + 1):
        answer = _cut(chunk, "action handler", budget)
        assert answer.results == (), (budget, answer.results)
        assert answer.left_out == 0
    answer = _cut(chunk, "action handler", COUNTER.count(f"Doc: {header}#### Handling an"))
    (result,) = answer.results
    assert result.truncated and result.lines == (234, 234), result
