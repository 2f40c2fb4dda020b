"""Walk 64: the CLI on new real public files (sources in the walk's sources.md), the
findings fixed here: F1 (aider 0.50 wraps its token line, and the ``Cost:`` half was
read as the model's words, one of them the recap's Where it stopped).

Each test builds a small input modelled on the real file and fails on the code before
its fix."""

from __future__ import annotations

from pathlib import Path

from chunkscope.engine.read.parse import load

AIDER_050 = """# aider chat started at 2024-08-20 14:08:19

#### make two products fit side by side on phones

The grid needs two columns under 768px.

> Tokens: 10k sent, 1.1k received.
Cost: $0.05 message, $0.19 session. Use --no-stream for accurate caching costs.|
> Applied edit to app/styles/app.css|

These changes show two products side by side on mobile.
""".replace("|\n", "  \n")  # aider ends its status lines with two spaces


def test_f1_aider_s_wrapped_cost_line_is_aider_s_status(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(AIDER_050, encoding="utf-8")
    turns = load(path).turns
    said = [(t.role, t.text) for t in turns]
    assert not any("Cost:" in text for role, text in said if role != "aider"), said
    status = next(t for t in turns if "Cost: $0.05" in t.text)
    assert status.text.startswith("Tokens: 10k sent")
    assert "Applied edit to app/styles/app.css" in status.text
    assert [t.text for t in turns if t.role == "Bot"] == [
        "The grid needs two columns under 768px.",
        "These changes show two products side by side on mobile.",
    ]


def test_a_cut_after_a_whole_sentence_keeps_its_stop_apart_from_the_ellipsis() -> None:
    """The README's recap Task was cut after "restarts." and read ``restarts....``."""
    from chunkscope.engine.summarize.extractive import _truncate

    text = "Please move it to SQLite so it survives restarts. Keep the public API the same."
    assert _truncate(text, 53) == "Please move it to SQLite so it survives restarts. ..."
    assert _truncate(text, 52).endswith("survives...")  # no room for both: a word less
    assert not any(_truncate(text, n).endswith("....") for n in range(10, len(text)))


def test_a_line_ending_on_a_comma_or_dash_ends_on_a_stop_alone() -> None:
    """A poem's lines read "fills the air,. The coconut cream cools the chili's roar,."
    in the curry-poems recap (the review-mode snapshot)."""
    from chunkscope.engine.summarize.extractive import terminated

    assert terminated("While basil's green perfume fills the air,") == (
        "While basil's green perfume fills the air."
    )
    assert terminated("Where fire and cream in harmony unite—") == (
        "Where fire and cream in harmony unite."
    )
    assert terminated("a list item –") == "a list item."
    assert terminated("Done.") == "Done."
    assert terminated(",") == ","  # nothing but the mark: left as it is


def test_walk63_f7_a_lead_in_ending_on_a_relative_clause_s_verb_is_left_open() -> None:
    """Walk 63, F7: a numbered item's lead-in over its nested list ("... with "Chart
    Generation & Web Server" that describes:") was kept as "... that describes."."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    text = (
        "Bot: I've updated the README.md:\n\n1. Changed the opening description from \"React"
        ' app" to "a monitoring application"\n\n2. Replaced the "Graph Web App" section with'
        ' "Chart Generation & Web Server" that describes:\n   - Static PNG generation using'
        " Chart.js\n   - Charts saved to `/charts` directory\n\nThe README now accurately"
        " describes the current implementation."
    )
    summary = ExtractiveSummarizer().summarize(text).summary
    assert "describes." not in summary, summary
    assert "The README now accurately describes the current implementation." in summary
