"""Walk 46's findings. F1 and F3: a stop inside parentheses or square brackets, or one a
closing quotation mark follows before a lowercase word, ended the sentence: the recap
showed ``(maybe because another rule would still flag?`` with its aside open, or
``said "Ship it. Today."`` without the rest of the sentence. F2: a cut command or body
left its quotation or code fence open. F5: the turns view's title was cut by its border
mid-reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.summarize.extractive import sentences_of

ROOT = Path(__file__).resolve().parents[1]


def test_a_stop_inside_an_aside_ends_no_sentence() -> None:
    aside = (
        "The fix would not change the result (maybe because another rule would still "
        "flag? Actually it is fixed)."
    )
    assert sentences_of(f"{aside} We look at the code later.") == [
        aside,
        "We look at the code later.",
    ]
    assert sentences_of("The value is 3.14 (approx. pi) in the config.") == [
        "The value is 3.14 (approx. pi) in the config."
    ]
    assert sentences_of("Run the tests [see CONTRIBUTING. It lists them] before you push.") == [
        "Run the tests [see CONTRIBUTING. It lists them] before you push."
    ]
    # a stray closing one closes nothing: items and smileys split as before
    assert sentences_of("1) First do this. 2) Then that.") == ["1) First do this.", "2) Then that."]


def test_a_quotation_ended_before_a_lowercase_word_goes_on() -> None:
    said = 'The maintainer said "Ship it. Today." and closed the long discussion.'
    assert sentences_of(f"{said} Next one.") == [said, "Next one."]
    assert sentences_of('It failed with "Error: no such file." and stopped.') == [
        'It failed with "Error: no such file." and stopped.'
    ]
    assert sentences_of('He said "no." Then he left.') == ['He said "no."', "Then he left."]


_WORDS = st.lists(st.sampled_from(["cache", "rule", "flag", "fix", "the"]), min_size=1, max_size=4)


@given(
    st.lists(st.tuples(_WORDS, st.lists(_WORDS, min_size=1, max_size=3)), min_size=1, max_size=4)
)
def test_no_sentence_ends_inside_an_aside(parts) -> None:  # type: ignore[no-untyped-def]
    sentences = []
    for lead, inner in parts:
        aside = " ".join(" ".join(w).capitalize() + "?" for w in inner)
        sentences.append(f"It {' '.join(lead)} ({aside}) here.")
    assert sentences_of(" ".join(sentences)) == sentences


def test_a_cut_command_closes_its_quotation_and_a_cut_body_its_fence() -> None:
    """F2: a command or a multi-line body cut to length left its quotation or its code
    fence open (a Write's ```` ```bash ```` block: the rest of the chunk read as code)."""
    from chunkscope.engine.toolcall import ELLIPSIS, format_call

    one_liner = format_call("Bash", {"command": 'python3 -c "' + "print(1); " * 100 + '"'})
    assert one_liner.startswith('$ python3 -c "print(1);') and one_liner.endswith(f'{ELLIPSIS}"')
    jq = format_call("Bash", {"command": "jq '[.items[] | {" + "x: .x, " * 150 + "}]' data.json"})
    assert jq.endswith(f"{ELLIPSIS}'")
    body = "\n".join(
        ["# Guide", *(f"line {i}" for i in range(8)), "```bash"]
        + [f"echo step {i}" for i in range(10)]
        + ["```"]
    )
    shown = format_call("Write", {"file_path": "/p/GUIDE.md", "content": body})
    assert shown.endswith(f"echo step 1{ELLIPSIS}\n```"), shown
    # a command cut outside any quotation gets nothing after its ellipsis
    plain = format_call("Bash", {"command": "echo 'a' " + "x" * 900})
    assert plain.endswith(f"x{ELLIPSIS}")


@pytest.mark.parametrize(
    ("size", "title"),
    [
        ((160, 48), "BEFORE MERGE · turns (56 after collapse, each action a turn)"),
        ((100, 30), "turns (56, each action a turn)"),
    ],
    ids=["wide", "narrow"],
)
async def test_the_turns_title_says_its_count_and_why_whole(
    size: tuple[int, int], title: str
) -> None:
    """F5: the turns view's title was cut by its border mid-reason (``turns (221 after
    collapse, each actio…``); it is the longest of its forms that fits, refitted at a
    resize."""
    from rich.cells import cell_len

    from tests.pilot import make_app, settled

    app = make_app(ROOT / "tests" / "fixtures" / "aider" / "metadata-aider.aider.chat.history.md")
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        await pilot.press("v")
        await settled(pilot, app)
        column = app.workbench.query_one("#before-col")
        shown = str(column.border_title)
        assert cell_len(shown) <= column.size.width - 4, shown
        assert shown in (title, title.replace(" after collapse", "")), shown
        assert "each action a turn" in shown


def test_a_collapsed_calls_cut_command_closes_its_quotation() -> None:
    """Walk 47, F2: a collapsed call's command cut to length left its own quotation open
    in the recap (``Ran `git commit -m "Update scripts with Yub...` ``)."""
    from chunkscope.engine.recap.collapse import _command_line

    message = "Update scripts with YubiKey support, " * 5
    cut = _command_line(f'git commit -m "{message}"')
    assert cut.startswith('git commit -m "Update scripts') and cut.endswith('..."'), cut
    assert _command_line("ls -la") == "ls -la"
    assert _command_line("echo " + "x" * 300).endswith("x...")


def test_a_sentence_cut_to_length_stops_at_a_clause_and_closes_its_braces() -> None:
    """Walk 47, F3 and F5: a sentence cut at the summary's length stopped on a stump
    (``..., the summary 2 to 4...``) and left a brace open (``{ const [a, b] =...``)."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    long = (
        "The summarizer picks the most central sentence of the chunk, its similarity to "
        "the rest counted over every word it holds and weighed by rarity and by position"
        ", and more words follow here to go on and on for quite a while yet."
    )
    cut = ExtractiveSummarizer(max_sentence_chars=200).summarize(f"Bot: {long}").abstract
    assert cut.endswith("by rarity and by position..."), cut
    code = "Bot: The bubble is function Bubble() { const [on, setOn] = useState(false) " + (
        "and the state goes on and on here " * 6
    )
    braced = ExtractiveSummarizer(max_sentence_chars=120).summarize(code).abstract
    assert braced.count("{") == braced.count("}") and braced.count("(") == braced.count(")")


def test_a_cut_in_a_quotation_closes_it_and_never_stops_on_a_clause_inside_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Walk 48: the collapsed question of the sample, cut at 280 characters at a clause's
    end inside its answer's quotation, read ``Response: 'Platform cache dir...`` (the
    quotation open, three words of the answer)."""
    import json

    from chunkscope.tui.cli import main

    assert (
        main(["recap", str(ROOT / "sample_logs" / "cache_refactor.jsonl"), "--format", "json"]) == 0
    )
    (asked,) = [c for c in json.loads(capsys.readouterr().out)["candidates"] if c["index"] == 5]
    assert asked["summary"].startswith("Asked user: 'Where should the cache database live?")
    assert asked["summary"].endswith("Response: 'Platform cache dir, yes. Use...'"), asked
    assert asked["reason"] == "said already"  # the Task's "Answered:" line says it all


def test_a_heading_alone_is_said_without_a_colon() -> None:
    """Walk 48, F3: a Claude Code memory note (a ``#`` line, alone in its message) was said
    in the Task section as a heading ending in a colon, which read as cut off."""
    from chunkscope.engine.recap.sections import _plain_blocks

    note = "# When committing, always use the conventional-commits convention"
    assert _plain_blocks([note]) == [note.removeprefix("# ")]
    assert _plain_blocks(["# Goal", "Make the parser strict."]) == [
        "Goal:",
        "Make the parser strict.",
    ]
