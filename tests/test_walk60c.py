"""Walk 60: real public session files (sources in the walk's sources.md), the summary
findings: F7 (a list item's fenced block cut by the chunk's end read as prose) and F12
(a list's lead-in ending on "because:" or "due to missing:" kept without its list).

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.read.parse import load
from chunkscope.engine.summarize.extractive import (
    ExtractiveSummarizer,
    is_fragment,
    split_sentences,
)


@pytest.mark.parametrize(
    "lead_in",
    [
        "The `Process PyPackages native extensions` phase is likely failing because:",
        "The error might be due to missing:",
        "The deployment of the staging cluster fails unless:",
    ],
)
def test_f12_a_lead_in_left_open_by_its_last_word_is_a_fragment(lead_in: str) -> None:
    """aider-luvatrix (0202alcc/luvatrix, .aider.chat.history.md, lines 2351 and 2374):
    the summary kept "is likely failing because." and "might be due to missing.", their
    lists left out."""
    text = f"{lead_in}\n\n- NumPy's C extensions aren't compiling for iOS\n- Missing build flags\n"
    first = split_sentences(text)[0]
    assert first.text == lead_in
    assert is_fragment(first)
    summary = (
        ExtractiveSummarizer()
        .summarize("Some Python packages may have missing iOS frameworks on the device.\n\n" + text)
        .summary
    )
    assert "because." not in summary and "missing." not in summary and "unless." not in summary


def test_f12_a_sentence_that_says_something_before_its_colon_stays() -> None:
    """Not every lead-in: one whose clause is whole keeps its words."""
    s = split_sentences("Install the dependencies and run the migration tests:\n\n- a\n- b\n")[0]
    assert not is_fragment(s)


MOZGOSLAV = """\
3.  **Identify Potential Bug:**
   The user says the same text is always inserted.
   - The `handleRelease` function captures a variable from an outer scope that doesn't
     update, or uses a cached/stale value.
   - In `DictationOrchestrator.ts`, look at `handleRelease`:
     ```typescript
     private async handleRelease(): Promise<void> {
         if (this.phase !== "recording" || !this.sessionId) return;
         const sessionId = this.sessionId;
"""


def test_f7_a_list_items_fence_cut_by_the_chunks_end_is_code_not_a_sentence() -> None:
    """aider-mozgoslav (AlexShchuka/mozgoslav, .aider.chat.history.md, lines 580-587): a
    fenced block five spaces deep with a blank line inside it, cut by the blank-line
    chunker after its third line; the summary held "```typescript private async
    handleRelease(): Promise<void> {" as prose."""
    summary = ExtractiveSummarizer().summarize(MOZGOSLAV).summary
    assert summary
    assert "```" not in summary
    assert "Promise<void>" not in summary and "sessionId" not in summary
    assert "handleRelease" in summary


def test_f7_an_unclosed_deep_fence_followed_by_the_margins_prose_is_left_as_it_stands() -> None:
    """A deep fence the item never closes, then prose at the margin: that prose is no
    code (the item, and its block, ended)."""
    text = (
        "- Look at the handler:\n"
        "     ```ts\n"
        "     handle();\n"
        "The release handler drops the session id before the request returns to the caller.\n"
    )
    assert "release handler drops the session id" in ExtractiveSummarizer().summarize(text).summary


TRADEARENA = """\
You:      type Route =
       | { name: "discovery" }
       | { name: "landing1" };
You:      function routeFromPath(pathname: string): Route {
       if (pathname.startsWith("/landing1")) return { name: "landing1" };
     }
You:      // In App component:
     if (route.name === "landing1") return <Landing1 onNavigate={navigate} />;
     ```"""


def test_a_chunk_that_starts_inside_a_list_items_block_is_code_to_its_close() -> None:
    """cc-tradearena (walk 51's files): a pasted plan's indented block, the chunk cut
    inside it; the summary read `type Route =. // In App component: if (...)` as prose."""
    assert split_sentences(TRADEARENA) == []
    assert ExtractiveSummarizer().summarize(TRADEARENA).summary == ""


def test_a_bare_fence_after_an_items_lead_in_opens_its_block() -> None:
    """The other reading of a bare deep fence: the item's lead-in, then its block cut by
    the chunk's end. The lead-in's sentence is the item's, not code."""
    text = (
        "Bot:     The release handler keeps a stale session id between two recordings:\n"
        "     ```\n"
        "     const sessionId = this.sessionId;\n"
    )
    texts = [s.text for s in split_sentences(text)]
    assert texts == ["The release handler keeps a stale session id between two recordings:"]


@pytest.mark.parametrize(
    "text", ["\n     ```\n", "Bot: \n\n     ```\nThe rest is prose here.", "     ```"]
)
def test_a_bare_deep_fence_after_nothing_is_read_without_error(text: str) -> None:
    """Blank lines (or a label alone) before a bare deep fence: nothing to take as code."""
    split_sentences(text)
    ExtractiveSummarizer().summarize(text)


def test_a_code_mode_scripts_session_id_names_the_command_its_polls_wait_for(
    tmp_path: Path,
) -> None:
    """codex-edgerunner (AkashJana18/edgerunner@e38ba726, lines 644-669): code mode ran
    `cargo run ... serve` (cell 112), a `wait` of the cell printed the script's own
    ``SESSION_ID=4622``, and the `write_stdin` polls and Ctrl-C of session 4622 read
    ``Called write_stdin session_id=4622 chars=""`` (a chunk's only summary) where a
    session unified exec names (``Process running with session ID N``) reads as its
    command."""
    from tests.test_walk56 import _codex, _exec

    serve = "cargo run -p edgerunner -- serve --bind 127.0.0.1:8080"
    start = {"cmd": serve, "yield_time_ms": 1000}
    poll = {"session_id": 4622, "chars": "", "yield_time_ms": 5000}
    stop = {"session_id": 4622, "chars": "\u0003", "yield_time_ms": 1000}

    def out(cid: str, text: str) -> dict[str, object]:
        return {"type": "custom_tool_call_output", "call_id": cid, "output": text}

    path = _codex(
        tmp_path,
        _exec("c1", f"const r = await tools.exec_command({json.dumps(start)}); text(r.output);"),
        out("c1", "Script running with cell ID 112\nWall time 1.0 seconds\nOutput:\n"),
        {
            "type": "function_call",
            "name": "wait",
            "arguments": json.dumps({"cell_id": "112", "yield_time_ms": 1000}),
            "call_id": "c2",
        },
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": "Script completed\nOutput:\n   Compiling edgerunner\nSESSION_ID=4622",
        },
        _exec("c3", f"const r = await tools.write_stdin({json.dumps(poll)}); text(r.output);"),
        out("c3", "Script completed\nOutput:\nlistening address=127.0.0.1:8080\nSESSION_ID=4622"),
        _exec("c4", f"const r = await tools.write_stdin({json.dumps(stop)}); text(r.output);"),
        out("c4", "Script completed\nOutput:\n^C"),
    )
    calls = [t.text for t in load(path).turns if t.role == "Bot"]
    assert len(calls) == 4, calls
    assert calls[2].startswith(f"$ {serve}  # still running: its output waited for (session 4622")
    assert calls[3].startswith(f'$ {serve}  # input sent to it: "\\u0003" (session 4622')
    assert not any("write_stdin" in c for c in calls), calls
