"""Walk 49's findings fixed in the engine (the workbench's are in `tests/test_walk49.py`):
each test fails on the code before its fix."""

from __future__ import annotations

from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, sentences_of


def test_a_question_in_a_summary_keeps_its_answer() -> None:
    """F7: the summary took the agent's question to itself and a closing sentence of
    another turn, so the closing sentence read as the question's answer ("Malformed
    arguments on purpose? Nothing in this log should have changed colour ..."); the
    answer right after the question comes with it."""
    text = (
        "Bot thinking: Malformed arguments on purpose? No: the harness cut my arguments. "
        "The result says so; retry properly.\n"
        "Bot: Done. Nothing in this log should have changed colour, opened a link, quit the "
        "app or retitled your terminal."
    )
    summary = ExtractiveSummarizer().summarize(text).summary
    said = sentences_of(summary)
    assert "Malformed arguments on purpose?" in said, summary
    at = said.index("Malformed arguments on purpose?")
    assert said[at + 1] == "No: the harness cut my arguments.", summary


def test_the_summary_panel_keeps_an_answer_with_its_question() -> None:
    """F7: the panel shows the summary without the abstract's sentence; where the abstract
    answered the question before it ("Malformed arguments on purpose? No: the harness cut
    my arguments."), the question was left before an unrelated sentence, as if answered by
    it. The question now goes with the abstract (shown whole, the summary said the
    abstract twice: walk 70, F1)."""
    from chunkscope.engine.summarize.base import summary_rest

    abstract = "No: the harness cut my arguments."
    summary = (
        "Malformed arguments on purpose? No: the harness cut my arguments. Nothing in this "
        "log should have changed colour."
    )
    rest = summary_rest(abstract, summary)
    assert rest == "Nothing in this log should have changed colour.", rest
    # a sentence before the question stays
    longer = f"I looked at the call. {summary}"
    assert summary_rest(abstract, longer) == (
        "I looked at the call. Nothing in this log should have changed colour."
    )
    # an abstract that answers nothing is still taken out
    assert summary_rest("The cache is fixed.", "The cache is fixed. Tests pass.") == "Tests pass."


def test_a_question_chosen_for_a_summary_brings_its_answer() -> None:
    """A question the agent asks itself, chosen without the short answer after it, read as
    answered by the next sentence chosen ("... should still run when data is None? The
    schema validators run after ..."): the answer takes the lowest-ranked other place."""
    text = (
        "Bot thinking: Now we should also check that we have not introduced any side "
        "effects: we return early when data is None, but might there be schema validators "
        "that should still run when data is None? Probably not. The field validators are "
        "per-field and expect a data dict. The schema validators run after deserialization "
        "and need the data dict too. So returning early is safe for the validators we have "
        "in the marshmallow schema code."
    )
    said = sentences_of(ExtractiveSummarizer().summarize(text).summary)
    question = next(k for k, s in enumerate(said) if s.endswith("?"))
    assert said[question + 1 : question + 2] == ["Probably not."], said


def test_a_user_s_question_in_a_summary_brings_the_agent_s_answer() -> None:
    """Walk 52, F5: a chunk holding the user's question and the agent's answer was
    summed up as the question alone ("Can the budget also show per person per day? My
    partner thinks in those terms."): the recap said the request as open."""
    text = (
        "You: Can the budget also show per person per day? My partner thinks in those terms.\n"
        "Bot: The budget now ends with per-person and per-day figures: about 87 EUR per "
        "person per day, 348 EUR per day for the family, everything except flights included."
    )
    said = sentences_of(ExtractiveSummarizer().summarize(text).summary)
    at = said.index("Can the budget also show per person per day?")
    assert said[at + 1].startswith("The budget now ends with per-person"), said
