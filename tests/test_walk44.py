"""Walk 44's findings. F1: ↓ typed fast in the merged list was lost: each ↓ posts the
card it selects, and the screen, taking an earlier one after the list had moved on,
selected that card again (the list went back over the keys it had taken). A selection a
list has since moved past is stale and taken no more; the same for the recap's list.
F2: a long quoted argument of a tool call was cut inside its quotes (and a list inside
its brackets), left open; a long first line of a multi-line value got two ellipses.
F3: a tool output's excerpt cut after a code span's opening left it open in summaries.
F4: a document's hard-wrapped line before a capitalised word was cut into two sentences."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.toolcall import ELLIPSIS, PAIRS_CUT, VALUE_CUT, format_call
from chunkscope.tui.widgets.candidate_list import CandidateList
from chunkscope.tui.widgets.chunk_list import ChunkList
from tests.pilot import SIZE, burst, make_app, settled

pytestmark = pytest.mark.usefixtures("isolated")


async def _keys(app: object, count: int, gap: int) -> None:
    """`count` ↓ as separate writes of a terminal: each handled by the focused list with
    `gap` turns of the loop between, so the screen takes the lists' messages in between."""
    for _ in range(count):
        burst(app, "down")  # type: ignore[arg-type]
        for _ in range(gap):
            await asyncio.sleep(0)


@pytest.mark.parametrize("gap", [1, 2, 3])
async def test_every_down_of_a_burst_in_the_merged_list_counts(gap: int) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        merged = app.screen.query_one("#merged", ChunkList)
        merged.focus()
        await pilot.pause()
        await _keys(app, 30, gap)
        await settled(pilot, app)
        assert merged.selected == app.workbench.selected == 30


@pytest.mark.parametrize("gap", [1, 3])
async def test_every_down_of_a_burst_in_the_left_list_counts(gap: int) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        before = app.screen.query_one("#before", ChunkList)
        before.focus()
        await pilot.pause()
        start = before.selected
        await _keys(app, 40, gap)
        await settled(pilot, app)
        assert before.selected == start + 40
        view = app.workbench.view
        assert view is not None and app.workbench.selected == view.owner_of_left(start + 40)


@pytest.mark.parametrize("gap", [1, 3])
async def test_every_down_of_a_burst_in_the_recap_list_counts(gap: int) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        candidates = app.screen.query_one(CandidateList)
        candidates.focus()
        await pilot.press("home")
        await settled(pilot, app)
        start = candidates.cursor
        assert start == 0 and app.workbench.selected == candidates.rows[0].index
        await _keys(app, 20, gap)
        await settled(pilot, app)
        assert candidates.cursor == start + 20
        assert app.workbench.selected == candidates.rows[start + 20].index


def test_a_long_quoted_argument_is_cut_inside_its_quotes_and_closed() -> None:
    shown = format_call("my_tool", {"text": "word " * 60, "n": 3})
    assert re.fullmatch(rf'my_tool text="(word )+w?o?r?d?{ELLIPSIS}" n=3', shown), shown
    task = format_call("Task", {"prompt": "Fix the imports " * 20, "description": "Fix"})
    assert task.endswith(f'{ELLIPSIS}" description=Fix') and task.count('"') == 2
    # a long first line of a multi-line value: one ellipsis, in the quotes
    long = {"file_path": "/a/b.py", "old_string": "long words " * 20 + "\nx", "new_string": "y\nz"}
    edit = format_call("Edit", long)
    head = edit.split("\n")[0]
    assert head.count(ELLIPSIS) == 1 and head.endswith(f'{ELLIPSIS}" new_string:'), edit
    # a short one: as typed, the ellipsis after it
    two = format_call("edit", {"old": "x\ny", "c": 1, "new": "a\nb"})
    assert two == f'edit old="x"{ELLIPSIS} c=1 new:\na\nb'


def test_a_long_list_is_cut_between_its_items_and_closed() -> None:
    question = "Which rig do these beads belong to? (This is a single-app project, see) " * 2
    shown = format_call("AskUserQuestion", {"questions": [{"question": question, "n": 2}]})
    assert shown.startswith('AskUserQuestion questions=[question="Which rig') and shown.endswith(
        "]"
    )
    assert shown.count('"') == 2, shown


_TEXT = st.text(st.sampled_from("ab c"), max_size=120)
_VALUE = st.recursive(
    _TEXT | st.integers() | st.booleans(),
    lambda inner: st.lists(inner, max_size=30) | st.dictionaries(_TEXT, inner, max_size=8),
    max_leaves=60,
)


def _balanced(shown: str) -> bool:
    """Every quote and bracket of the notation closed, in order (the texts hold none)."""
    stack: list[str] = []
    pairs = {"]": "[", ")": "("}
    for ch in shown:
        if stack and stack[-1] == '"':
            if ch == '"':
                stack.pop()
        elif ch in '"[(':
            stack.append(ch)
        elif ch in pairs and (not stack or stack.pop() != pairs[ch]):
            return False
    return not stack


@settings(max_examples=300, deadline=None)
@given(args=st.dictionaries(st.sampled_from(["a", "key", "todos", "q"]), _VALUE, min_size=1))
def test_every_cut_call_closes_what_it_opened(args: dict[str, object]) -> None:
    shown = format_call("tool", args)
    assert _balanced(shown), shown
    # its pairs stay about PAIRS_CUT long (each value about VALUE_CUT)
    assert len(shown) <= len("tool ") + PAIRS_CUT + VALUE_CUT, shown


def test_a_documents_wrapped_line_runs_on_into_a_capitalised_word() -> None:
    """F4: a hard-wrapped paragraph of a document was cut where a line ended on a plain
    word before a name (``... and with two`` / ``Codex sessions open ...``): the recap
    showed a sentence from its middle, the abstract one that stopped short."""
    from chunkscope.engine.summarize.extractive import split_sentences

    wrapped = (
        "Doc: The hook runs after every turn, and with two\n"
        "Codex sessions open in one project, the newest rollout wins.\n"
    )
    assert [s.text for s in split_sentences(wrapped)] == [
        "The hook runs after every turn, and with two Codex sessions open in one project, "
        "the newest rollout wins."
    ]
    # an agent's message keeps its rule: a fragment, then a sentence of its own
    said = "Bot: The function takes parameters\nThe outermost function wraps the call.\n"
    assert len(split_sentences(said)) == 2


def test_the_recap_of_the_hooks_manual_starts_no_line_mid_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from chunkscope.tui.cli import main

    manual = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"
    assert main(["recap", str(manual)]) == 0
    recap = capsys.readouterr().out
    assert "and with two Codex sessions" in recap or "Codex sessions open" not in recap
    assert not any(line.startswith("Codex sessions open") for line in recap.splitlines())


def test_a_tool_output_cut_inside_a_code_span_is_closed_in_the_summary() -> None:
    """F3: a collapsed call's output excerpt (the seed's form, cut at 120 characters)
    cut after a ``` left it open in the summary and the recap, to pair with the next
    run of three backticks of the paragraph."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer
    from chunkscope.engine.textutil import code_spans

    text = (
        "Tool: Ran `grep -A 10 propagators otel.erl`: %% by default. The propagators are "
        "set in the %% application environment: %% %% ``` %% {text_ma...\n"
        "Bot: So I configure the propagators in the application environment, see ```cfg```."
    )
    summary = ExtractiveSummarizer().summarize(text).summary
    assert "{text_ma...```" in summary, summary
    spans = code_spans(summary)
    assert any(summary[a:b] == "```cfg```" for a, b in spans), spans
