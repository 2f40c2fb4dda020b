"""Walk 16 (recap helper C): the workbench's ``w`` refuses a missing folder as the
commands do; bidi controls never reach the recap, the chunks or the cards; a Claude Code
subagent's work survives collapsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pilot import make_app, recording_notifications, settled, until

NARROW = (100, 30)


async def test_w_into_a_missing_folder_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    """Walk 16, 10: ``w`` with ``nd8/sub/x.md`` created the folders; the commands say
    ``cannot write ...: No such file or directory``, and so does the workbench now."""
    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen

    bad = tmp_path / "nd8" / "sub" / "x.md"
    app = make_app()
    shown = recording_notifications(app)
    async with app.run_test(size=NARROW) as pilot:
        await settled(pilot, app)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(bad)
        await pilot.press("enter")
        said = f"cannot write {bad}: No such file or directory"
        await until(pilot, lambda: said in shown)
        assert not (tmp_path / "nd8").exists()


RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # joined by ZWJ: must stay whole


def _bidi_log(path: Path) -> Path:
    rows = [
        {
            "role": "user",
            "content": f"Please review the invoice parser {FAMILY} and fix the total {RLO}"
            "gnp.tsil_etihw in the config loader.",
            "timestamp": "2026-02-13T09:00:00",
        },
        {
            "role": "assistant",
            "content": f"The total is computed twice {RLO}and{chr(0x2066)} rounded wrongly; "
            "I changed the parser to round once at the end.",
            "timestamp": "2026-02-13T09:01:00",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_bidi_overrides_never_reach_the_recap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk 16, 16: U+202E passed into the recap (text for an agent) while Cc controls
    were stripped; the joiners emoji need stay."""
    from chunkscope.tui.cli import main

    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    log = _bidi_log(tmp_path / "bidi.jsonl")
    assert main(["recap", str(log)]) == 0
    out, _ = capsys.readouterr()
    assert "invoice parser" in out and "round once" in out and FAMILY in out
    assert RLO not in out and "\u2066" not in out
    # the JSON's recap and sections are that text; the candidates' fields stay the log's
    # data, as other control characters do there
    assert main(["recap", str(log), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["recap"] == out
    assert all(RLO not in s["text"] for s in doc["sections"])


def test_bidi_overrides_are_stripped_where_control_characters_are() -> None:
    """`chunk` to a terminal and the workbench's cards strip them as they strip ESC."""
    import io

    from chunkscope.engine.textutil import strip_control
    from chunkscope.tui.cells import terminal_text
    from chunkscope.tui.cli.common import safe

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    text = f"a{RLO}b\u202ac\u2069d\x1b[31m{FAMILY}\u200c\ufe0f"
    assert strip_control(text) == f"abcd{FAMILY}\u200c\ufe0f"
    assert safe(text, Tty()) == strip_control(text)
    assert safe(text, io.StringIO()) == text  # piped: as it is, like the Cc controls
    assert RLO not in terminal_text(text) and "\u2069" not in terminal_text(text)


SUBAGENT_LOG = Path(__file__).parent / "fixtures" / "claude-code" / "subagent-rounding.jsonl"


def test_a_subagents_messages_survive_collapsing() -> None:
    """Walk 16, 4: collapsing dropped every ``Subagent`` message (its text, its calls and
    their results). Its text stays, each of its calls is one sentence labelled as its own,
    not the main agent's (not among the main agent's actions)."""
    from chunkscope.engine.read.parse import load
    from chunkscope.engine.recap.collapse import (
        TOOL_ROLE,
        collapse_messages,
        consequential_indices,
    )

    source = load(SUBAGENT_LOG, keep_messages=True)
    assert source.records == source.read == 16 and not source.not_read  # every record read
    turns = collapse_messages(source.messages, readable=True)
    sub = [t.text for t in turns if t.role == "Subagent"]
    assert sub[1] == "Searching the source for rounding calls."
    assert sub[2] == "Searched for 'round\\(|quantize|ROUND_HALF' in src: 3 lines."
    assert sub[3] == "Read /home/dev/shop-api/src/cart/totals.py (5 lines)."
    assert sub[4].startswith("Two places round: LineItem.total()")
    assert len(sub) == 5 and not any("quantize(CENT" in t for t in sub)  # results collapsed
    tools = [t.text for t in turns if t.role == TOOL_ROLE]
    assert tools[0].startswith("Delegated to a general-purpose subagent")
    assert not any("Searched" in t or t.startswith("Read ") for t in tools)
    edits = {t.turn_index for t in turns if t.text.startswith("Edited ")}
    assert consequential_indices(turns) == edits
    # each keeps its source lines: the call's record to the result's
    read = next(t for t in turns if t.text.startswith("Read /home"))
    assert (read.call_line, read.source_line) == (6, 7)


def test_chunk_collapse_and_the_recap_keep_the_subagents_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.tui.cli import main

    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["chunk", str(SUBAGENT_LOG), "--collapse"]) == 0
    out, _ = capsys.readouterr()
    assert "16 turns" in out and "collapsed to 13 turns" in out
    assert "Subagent: Searching the source for rounding calls." in out
    assert "Subagent: Searched for 'round\\(|quantize|ROUND_HALF' in src: 3 lines." in out
    assert "Subagent: Read /home/dev/shop-api/src/cart/totals.py (5 lines)." in out
    assert main(["recap", str(SUBAGENT_LOG), "--format", "json", "--budget", "2000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    said = " ".join(c["summary"] for c in doc["candidates"])
    # the subagent's words or its calls, never its label (walk 19, F4)
    assert "Searching the source for rounding calls" in said or "Searched for 'round" in said
    assert "Subagent" not in said
    assert "quantize(CENT, ROUND_HALF_UP)\nsrc/cart/totals.py" not in said


async def test_the_header_counts_the_subagents_turns_after_collapse() -> None:
    """The header said ``22 turns · 20 after collapse`` for a log whose subagent's two
    turns were lost; here 16 turns, 13 after collapse (three results in their calls)."""
    from chunkscope.tui.widgets.header_line import HeaderLine

    app = make_app(SUBAGENT_LOG)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        header = app.screen.query_one(HeaderLine).render().plain
        assert "16 turns" in header and "13 after collapse" in header, header
