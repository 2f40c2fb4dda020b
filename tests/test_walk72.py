"""Walk 72: a fresh walk after walks 69-71's fixes; the findings fixed here. F9: an aider
request's summary kept its command's name (``... restart the server. /ask is it fixed
now?``), which the recap's Task leaves out.

Each test fails on the code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, split_sentences
from chunkscope.tui.cli import main


def test_f9_an_aider_request_is_said_without_its_command_s_name() -> None:
    text = "You: /ask what would be the next step for the question extraction?\n"
    texts = [s.text for s in split_sentences(text)]
    assert texts == ["what would be the next step for the question extraction?"], texts
    summary = ExtractiveSummarizer().summarize(text)
    assert "/ask" not in f"{summary.abstract} {summary.summary}"
    # a chat-managing command is no request: still no sentence (walk 70, F11)
    assert ExtractiveSummarizer().summarize("You: /drop GlobalSettings.cs\n").abstract == ""
    # the agent's words keep a slash command they mention
    said = [s.text for s in split_sentences("Bot: /ask is how you ask without editing.\n")]
    assert said == ["/ask is how you ask without editing."]


def test_f10_a_myst_label_target_is_no_sentence() -> None:
    """click's docs/options.md: ``(multiple-options)=`` over its heading was said as the
    summary ``(multiple-options)=.``."""
    text = (
        "Doc: The type is automatically used.\n\n(multiple-options)=\n\n"
        "## Multiple Options\n\nSimilarly to nargs, options can be given many times.\n"
    )
    texts = [s.text for s in split_sentences(text)]
    assert not any("multiple-options" in t for t in texts), texts
    assert "Similarly to nargs, options can be given many times." in texts


def test_f11_an_otherwise_item_is_never_said_without_the_items_before_it() -> None:
    """click's docs/options.md: "... infer the decorated function argument name as
    follows: Otherwise, the first positional argument prefixed with `-` is chosen." (its
    items 1 and 2 dropped)."""
    from chunkscope.engine.summarize.extractive import is_fragment

    text = (
        "Doc: More formally, Click will try to infer the argument name as follows:\n\n"
        "1. If a positional name has no prefix, it is chosen.\n"
        "2. If a positional name is prefixed with `--`, the first one is chosen.\n"
        "3. Otherwise, the first positional name prefixed with `-` is chosen.\n"
    )
    sentences = split_sentences(text)
    third = next(s for s in sentences if s.text.startswith("Otherwise"))
    assert is_fragment(third)
    assert not is_fragment(next(s for s in sentences if s.text.startswith("If a positional")))


def test_f7_commits_in_the_log_s_order_the_earlier_ones_counted_above(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """aider-catalog.md: "Committed 1101109 ..." came before "(8 earlier commits)" (both
    of one turn), and a turn's two commits were said newest first."""
    turns = []
    for k in range(8):
        commits = [f"> Commit {k:03d}a{k:03d} feat: change number {k}"]
        if k in (1, 3, 6):  # a turn that commits twice
            commits.append(f"> Commit {k:03d}b{k:03d} feat: change number {k}, second part")
        turns.append(f"#### make change {k}\n\nI'll make change {k}.\n\n" + "  \n".join(commits))
    history = "# aider chat started at 2024-08-20 14:08:19\n\n" + "  \n\n".join(turns) + "  \n"
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(history, encoding="utf-8")
    assert main(["recap", str(path), "--budget", "3000"]) == 0
    text = capsys.readouterr().out
    state = text.split("## Work state", 1)[1].split("\n## ", 1)[0].strip().splitlines()
    assert state == [
        "(5 earlier commits)",  # 003a003, of the same turn as 003b003, is one of them
        "Committed 003b003: feat: change number 3, second part",
        "Committed 004a004: feat: change number 4",
        "Committed 005a005: feat: change number 5",
        "Committed 006a006: feat: change number 6",
        "Committed 006b006: feat: change number 6, second part",
        "Committed 007a007: feat: change number 7",
    ], state


def test_f6_where_it_stopped_is_the_last_answer_not_one_the_work_went_past(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """aider-catalog.md: the agent asked for Program.cs, got it, said what it would do,
    edited and committed; the user then typed /load. Where it stopped said the request
    for the file (the answer before the last, brought back by the /load typed after)."""
    history = (
        "# aider chat started at 2024-08-20 14:08:19\n\n"
        "#### add try-catch-finally with NLog shutdown to Program.cs\n\n"
        "To add it to Program.cs, I need to see the current content of that file.\n"
        "Please add **Program.cs** to the chat so I can make the necessary changes.\n\n"
        "> Program.cs  \n> Add file to the chat? (Y)es/(N)o [Yes]: y  \n\n"
        "I'll add a try-catch-finally block to Program.cs to wrap the startup and ensure"
        " NLog.LogManager.Shutdown() is called in the finally block.\n\n"
        "Program.cs\n```csharp\n<<<<<<< SEARCH\napp.Run();\n=======\ntry { app.Run(); }\n"
        "finally { NLog.LogManager.Shutdown(); }\n>>>>>>> REPLACE\n```\n\n"
        "> Applied edit to Program.cs  \n> Commit 465a604 feat: add try-catch-finally  \n\n"
        "#### /load aider_adds\n\n> Executing: /drop  \n"
    )
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(history, encoding="utf-8")
    assert main(["recap", str(path), "--budget", "1000"]) == 0
    text = capsys.readouterr().out
    stopped = text.split("## Where it stopped", 1)[1].split("\n## ", 1)[0]
    assert "I'll add a try-catch-finally block to Program.cs" in stopped, text
    assert "Please add" not in stopped, text


def test_f5_a_commit_the_log_ends_on_is_not_told_as_made() -> None:
    """gemini-figma010's transcript ends on ``git add . && git commit -m ... && git push``
    with no result: Work state said "Committed: Implement Figma design" and "Not pushed:
    1 commit after the last push"."""
    from chunkscope.engine.recap.sections import _commit_line

    class Call:
        result: str | None = None
        failed = False
        exit_code: int | None = None

    line, made = _commit_line('git commit -m "Implement Figma design" && git push', Call())  # type: ignore[arg-type]
    assert not made and "no result in the log" in line, line
    quiet = Call()
    quiet.result = ""  # it ran and printed nothing (git commit -q): made
    assert _commit_line('git commit -q -m "x"', quiet)[1]  # type: ignore[arg-type]


def test_an_aside_s_exclamation_ends_no_sentence_the_aside_sits_in() -> None:
    """Seen in the workbench's Summary panel of aider-catalog.md's chunk 0 (after walk 72):
    "... the endpoint (which I know works from the internet browser!) I get this error."
    was cut after the aside, and "I get this error." said alone as the summary."""
    text = (
        "You: when my client tries to access the endpoint (which I know works from the"
        " internet browser!) I get this error. I had issues with bin/obj files before.\n"
    )
    texts = [s.text for s in split_sentences(text)]
    assert texts[0].endswith("browser!) I get this error."), texts
    # an aside that is a sentence of its own, and a full stop inside one, still end one
    alone = [s.text for s in split_sentences("Bot: (This is an aside!) Next one here.\n")]
    assert alone == ["(This is an aside!)", "Next one here."]
    stop = [s.text for s in split_sentences("Bot: We ran them (all 30 passed.) Then we pushed.\n")]
    assert stop == ["We ran them (all 30 passed.)", "Then we pushed."]


def test_f8_a_document_s_gerund_items_are_said_after_their_lead_in() -> None:
    """just's README: "Building in release mode vs debug mode. Running in debug mode or
    with logging enabled." was a chunk's summary, the items of "Some ideas for recipes:"
    said as if they were sentences of their own; a message's gerund item says what is
    being done and stays as it is."""
    text = (
        "Doc: Some ideas for recipes:\n\n- Deploying/publishing the project\n"
        "- Building in release mode vs debug mode\n"
        "- Running in debug mode or with logging enabled\n"
    )
    summary = ExtractiveSummarizer().summarize(text)
    said = f"{summary.abstract} {summary.summary}"
    assert "Some ideas for recipes:" in said, said
    from chunkscope.engine.summarize.extractive import _says_itself

    assert _says_itself("Adding the tests for the parser")
    assert not _says_itself("Building in release mode vs debug mode", gerund=False)
    assert not _says_itself("Deploying/publishing the project", gerund=False)
    assert _says_itself("Added the tests for the parser", gerund=False)
