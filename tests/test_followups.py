"""Topics follow a change of subject, not every turn (`engine.segment.requests`,
`engine.segment.segmenter`):
a follow-up on the current goal opens no topic, a new request does; a session's preamble
belongs to its first topic; the agent's first message after its work landed is a start."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.evaluate.measure import chunk_starts
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.segment.requests import (
    LANDED,
    LANDED_STRETCH,
    PHASE,
    PHASE_STRETCH,
    lands_work,
    message_kind,
    phase_cue,
    topic_start,
)
from chunkscope.engine.segment.segmenter import (
    TopicParams,
    frame,
    gap_scores,
    segment,
    structure_points,
)
from chunkscope.tui.cli import main

WHOLE = TopicParams(topic_chunk_tokens=0)

TOPICS = {
    "cache": "sqlite cache eviction vectors rows table schema migration lru expiry",
    "tides": "tide pools anemones crabs snails seaweed rocks ocean waves shore",
    "taxes": "invoice receipt deduction income bracket refund filing audit ledger",
}


@pytest.mark.parametrize(
    "text",
    [
        "try again",
        "make it bigger",
        "did you push?",
        "That's almost right. But the highlight should only have a quarter-circle in each corner",
        "Also I didn't see the stop hook fire when the session ended, can you check it?",
        "Undo the last change, it broke the dark highlight on the capture square",
        "I'm getting: Access to script at 'file:///app.js' from origin 'null' has been blocked",
        "The drag and drop doesn't seem to be working. Try again. Nothing happens if i drag",
        "1: the premove auto-executes if it's a valid move, otherwise it is cancelled quietly",
        "/code please continue what you were doing before the model switch",
        "There are still issues opening the database file in the tests: FAILED test_query",
        '  File "C:\\app\\backend\\app.py", line 5, in <module>\n    from .nodes import run',
        "The health endpoint returns db_url with sqlfile://// which is wrong. It should be",
        # a Gemini CLI session of dev6 (the cues below were designed on it, measured on all)
        "helium with dark reader didn't flip from light to dark mode, but everything else "
        "did.  please fix that.",
        "helium blinks fast sever times in succession black then white.  but the toggle "
        "doesn't stick, always white",
        "[WARN Config warning: import has beeen depcrcated;use general.import instead use "
        "'alacritty migrate' to automaticallly resolve it",
        "helium is launching a new window with a differnt theme.  I dont want it to do that. "
        "I just want it to obey Appearance set to device.",
        "Error: Cannot find module 'express' when I start the server from the root folder",
    ],
)
def test_a_follow_up_on_the_current_goal(text: str) -> None:
    assert message_kind(text) == "follow_up"
    assert topic_start(text) < 1.0


@pytest.mark.parametrize(
    "text",
    [
        "<task-notification> <task-id>b0be39e</task-id> <status>completed</status> "
        "<summary>Agent finished</summary> </task-notification>",
        "[Request interrupted by user]",
        "/model openai/gpt-5.4",
        "/drop oil:///home/user/game/scenes/ /add scenes/car/Car.cs",
        "/commit the latest updates with a proper commit message",
        "/compact",
        "/plugin",
        "continue",
        # a command's output handed back in the user's place (an older text-only
        # mini-swe-agent trajectory; SWE-agent): it was weighed as a follow-up
        "<returncode>0</returncode>\n<output>\ntests/test_cache.py ... 3 passed\n</output>",
        "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n</output>",
        "<observation>\nFile created successfully at: /repo/fix.py\n</observation>",
    ],
)
def test_no_request_at_all(text: str) -> None:
    assert message_kind(text) == "none" and topic_start(text) == 0.0


@pytest.mark.parametrize(
    "text",
    [
        "Now let's go forward and implement the realtime aspect: pieces have a cooldown",
        "Create a simple TypeScript frontend UI in the frontend/ folder that reads results",
        "/code i want to add a dark/light mode switch on the top right of the screen",
        "/drop oil:///home/user/game/ /ask how would I separate out the engine class from Car3",
        "Let's break down app.js into multiple files. First make a proposal of a good way",
        "/publish-session",  # a command of the user's own: a workflow, not the tool's
        "<output> of the parser is wrong: fix how it reads nested lists",  # a person's
        # a new subject that merely mentions what does not work elsewhere
        "Write a parser for the config files; the old one was deleted last year",
        "Add a warnings panel to the dashboard that lists every deprecation the build finds",
        "Make the export button work on mobile too, and add a CSV option beside PDF",
    ],
)
def test_a_new_request(text: str) -> None:
    assert message_kind(text) == "request" and topic_start(text) == 1.0


def test_a_retry_of_the_request_in_course_is_a_follow_up_and_a_return_is_not() -> None:
    from chunkscope.engine.segment.requests import words

    ask = "add a random hovering semi-transparent bubble with a random emoji in it"
    again = "add a random hovering bubble with a random emoji in it, make it appear at random"
    assert message_kind(again, [words(ask)]) == "follow_up"
    assert message_kind(again, []) == "request"
    # only the request in course is retried: with another one since, it is a return
    assert message_kind(again, [words("write a README describing the project")]) == "request"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.lists(st.frozensets(st.text(max_size=8), max_size=6)))
def test_any_message_is_one_of_three_kinds(text: str, earlier: list[frozenset[str]]) -> None:
    kind = message_kind(text, earlier)
    assert kind in ("request", "follow_up", "none")
    assert topic_start(text) in (0.0, 1.0) or kind == "follow_up"
    # a background agent's report never starts a topic, whatever it says
    assert message_kind("<task-notification>" + text) == "none"


def _session(layout: list[tuple[str, str]], rng: np.random.Generator) -> list[Chunk]:
    """Units of a session: ``(role, topic or literal text)``; a topic name becomes 30
    words of its vocabulary."""
    out = []
    for i, (role, what) in enumerate(layout):
        text = " ".join(rng.choice(TOPICS[what].split(), size=30)) if what in TOPICS else what
        out.append(Chunk([Turn(None, role, text, i + 1, i)]))
    return out


def _vectors(chunks: list[Chunk]) -> np.ndarray:
    from chunkscope.engine.embed import make_embedder

    return make_embedder("lexical").embed([c.text for c in chunks])


def _starts(chunks: list[Chunk]) -> list[int]:
    result = segment(chunks, _vectors(chunks), WHOLE, max_chars=None)
    return _topic_starts(result)


def _topic_starts(result: Any) -> list[int]:
    """The units where the topics of a `MergeResult` start."""
    assert result.topic_bounds is not None
    return [int(b) for b in result.topic_bounds[:-1]]


def test_a_short_follow_up_after_the_agent_opens_no_topic_and_a_new_request_does() -> None:
    rng = np.random.default_rng(3)
    layout = [("You", "Build an sqlite cache with lru eviction for the vectors table")]
    layout += [("Bot", "cache")] * 8
    layout += [("You", "try again")] + [("Bot", "taxes")] * 6  # what the retry brings
    layout += [("You", "make it bigger")] + [("Bot", "taxes")] * 6
    layout += [("You", "Write a guide to the tide pools: anemones, crabs and snails")]
    layout += [("Bot", "tides")] * 10
    chunks = _session(layout, rng)
    points = structure_points(chunks)
    follow_ups = [9, 16]  # the units "try again" and "make it bigger"
    request = 23
    assert points[request - 1] == 1.0
    assert all(points[u - 1] == 0.0 for u in follow_ups)
    starts = _starts(chunks)
    assert request in starts
    assert not set(follow_ups) & set(starts)
    # before (every user turn after the agent a structural point) both follow-ups,
    # whose content differs, opened a topic
    before = np.zeros(len(chunks) - 1)
    for u in (*follow_ups, request):
        before[u - 1] = 1.0
    f = frame(chunks, _vectors(chunks))
    old = replace(f, structure=before)
    old_starts = _topic_starts(segment(chunks, f.vectors, WHOLE, old, max_chars=None))
    assert set(follow_ups) & set(old_starts)


def test_a_background_agents_report_belongs_to_the_topic_that_launched_it() -> None:
    rng = np.random.default_rng(4)
    report = (
        "<task-notification> <task-id>ac27727</task-id> <status>completed</status> "
        "<result>" + " ".join(rng.choice(TOPICS["taxes"].split(), size=60)) + "</result>"
        "</task-notification>"
    )
    layout = [("You", "Spawn agents to study the tide pools and write about them")]
    layout += [("Bot", "tides")] * 8 + [("You", report)] + [("Bot", "tides")] * 8
    chunks = _session(layout, rng)
    assert structure_points(chunks)[8] == 0.0
    assert 9 not in _starts(chunks)


def test_the_preamble_belongs_to_the_first_topic() -> None:
    rng = np.random.default_rng(5)
    system = " ".join(rng.choice(TOPICS["taxes"].split(), size=200))
    layout = [("system", system), ("Meta", "taxes"), ("Meta", "taxes")]
    layout += [("You", "Fix the sqlite cache: rows expire before the lru eviction runs")]
    layout += [("Bot", "cache")] * 12
    chunks = _session(layout, rng)
    f = frame(chunks, _vectors(chunks))
    assert f.lead == 3  # the gaps before the first request
    low = replace(WHOLE, topic_depth=2.0)  # a low threshold: the depth alone cuts there
    assert _topic_starts(segment(chunks, f.vectors, low, f, max_chars=None)) == [0]
    loose = segment(chunks, f.vectors, low, replace(f, lead=0), max_chars=None)
    assert 3 in _topic_starts(loose)


def test_the_agents_next_task_after_its_work_landed_is_a_structural_point() -> None:
    rng = np.random.default_rng(6)
    commit = "[spotter-fum 3bb8701] feat: enrich the renderer\n 2 files changed, 30 insertions(+)"
    assert lands_work(commit) and lands_work("   dbe5100..66e1a0a  main -> main")
    assert not lands_work("All tests pass; nothing to commit, working tree clean")
    long_task = [("Bot", "tides")] * (LANDED_STRETCH // 150)
    layout = [("You", "Work on the epic: run bd ready and start with the first task")]
    layout += [("Bot", "cache")] * 10 + [("Bot", "Bash({})"), ("Tool", commit)]
    layout += [("Bot", "Now let me check what is next."), *long_task]
    # the wrap-up: more work lands right after the last message
    layout += [("Bot", "Bash({})"), ("Tool", commit), ("Bot", "Now sync and push.")]
    layout += [("Bot", "Bash({})"), ("Tool", "   abc1234..def5678  main -> main")]
    layout += [("Bot", "All done.")]
    chunks = _session(layout, rng)
    points = structure_points(chunks)
    turn = 13  # "Now let me check what is next."
    assert points[turn - 1] == LANDED
    wrap = len(layout) - 4  # "Now sync and push."
    assert points[wrap - 1] == 0.0 and points[-1] == 0.0
    assert turn in _starts(chunks)


def test_the_agents_fix_and_its_verification_after_an_investigation_are_structural_points() -> None:
    rng = np.random.default_rng(8)
    assert phase_cue("The test confirms the bug. Now let me make the fix in x.py:") == "fix"
    assert phase_cue("Good! Now let me create a test to verify the fix works:") == "verify"
    assert phase_cue("Let me fix the credo issue by using an implicit try:") is None
    reading = [("Bot", "tides")] * (PHASE_STRETCH // 150)
    layout = [("You", "Fix the bug: usernames with a trailing newline are accepted")]
    layout += [*reading, ("Bot", "Now let me make the fix by changing the regex:")]
    fix = len(layout) - 1
    layout += [("Tool", "cache")] * 8 + [("Bot", "Now let me verify the fix with a test:")]
    verify = len(layout) - 1
    layout += [("Tool", "cache")] * 6 + [("Bot", "Let me also verify the fix on edge cases:")]
    again = len(layout) - 1
    chunks = _session(layout, rng)
    points = structure_points(chunks)
    assert PHASE > 0 and points[fix - 1] == PHASE and points[verify - 1] == PHASE
    assert points[again - 1] == 0.0  # each phase is announced once
    # a fix announced right after the request is its first step, not a phase
    early = _session([layout[0], ("Bot", "Now let me make the fix."), *reading], rng)
    assert structure_points(early)[0] == 0.0


def test_the_agents_answer_passed_on_as_a_message_is_no_request() -> None:
    # aider's architect mode hands its plan to the editor model as the next message
    rng = np.random.default_rng(9)
    plan = "Proposed changes\n\n1) Add a shell script that lints the backend and frontend."
    layout = [("You", "Set up linting for this project please, one command for both")]
    layout += [("Bot", plan), ("aider", "Tokens: 4.2k sent, 1.9k received.")]
    layout += [("You", plan.replace("\n", "  \n"))] + [("Bot", "cache")] * 6
    layout += [("You", "Write a guide to the tide pools: anemones, crabs and snails")]
    layout += [("Bot", "tides")] * 6
    chunks = _session(layout, rng)
    points = structure_points(chunks)
    echo, request = 3, 10
    assert points[echo - 1] == 0.0 and points[request - 1] == 1.0
    # the same words from the person, after an answer of the agent's opening otherwise,
    # ask
    alone = _session([("You", "Sort the receipts by bracket"), ("Bot", "taxes"), *layout[3:]], rng)
    assert structure_points(alone)[1] == 1.0


def test_a_reasoning_models_phase_in_a_later_paragraph_of_its_thinking() -> None:
    # a reasoning model says what it does next in its thinking, in many paragraphs; its
    # message is only the command: the phase opens where that message began
    rng = np.random.default_rng(10)
    paragraphs = ["The regex lets a newline through.", "Now we need to edit the file."]
    assert phase_cue(paragraphs[1]) == "fix"

    def run(role: str) -> list[Chunk]:
        reading = [(role, "tides")] * (PHASE_STRETCH // 150)
        chunks = _session([("You", "Fix the bug: names with a newline pass"), *reading], rng)
        index = len(chunks)
        for k, text in enumerate(paragraphs):  # one message's paragraphs share its index
            chunks.append(Chunk([Turn(None, role, text, index + k + 1, index)]))
        chunks.append(Chunk([Turn(None, "Bot", "$ sed -i s/x/y/ users.py", index + 3, index + 1)]))
        return chunks

    chunks = run("Bot thinking")
    index = len(chunks) - 3
    points = structure_points(chunks)
    assert points[index - 1] == PHASE  # where the thinking began
    assert points[index] == 0.0  # not inside it
    # the same paragraphs as a message's words: a message says its phase first
    assert structure_points(run("Bot"))[index - 1] == 0.0


@settings(max_examples=40, deadline=None)
@given(
    roles=st.lists(st.sampled_from(["You", "Bot", "Tool", "system", "Meta"]), max_size=40),
    texts=st.lists(
        st.sampled_from(
            [
                "try again",
                "Build a tide pool guide with crabs",
                "[main abc1234] feat: x",
                "Now let me make the fix " + "and " * 400,
                "Now let me verify the fix",
                "ok",
                *TOPICS.values(),
            ]
        ),
        min_size=40,
        max_size=40,
    ),
    seed=st.integers(0, 1000),
    depth=st.floats(0, 8),
)
def test_sessions_of_any_roles_give_a_partition_with_no_start_in_the_preamble(
    roles: list[str], texts: list[str], seed: int, depth: float
) -> None:
    chunks = [Chunk([Turn(None, r, texts[i], i + 1, i)]) for i, r in enumerate(roles)]
    vectors = np.random.default_rng(seed).normal(size=(len(chunks), 8))
    result = segment(chunks, vectors, replace(WHOLE, topic_depth=depth, topic_min_chars=0))
    spans = result.spans
    if chunks:
        assert spans[0][0] == 0 and spans[-1][1] == len(chunks)
        assert all(a < b and b == c for (a, b), (c, _) in pairwise(spans))
    points = structure_points(chunks)
    assert ((points >= 0) & (points <= max(1.0, LANDED, PHASE))).all()
    lead = frame(chunks, vectors).lead if len(chunks) >= 2 else 0
    assert all(s == 0 or s > lead for s in _topic_starts(result))


def test_the_first_chunk_starts_the_file() -> None:
    chunks = [
        Chunk([Turn(None, "You", "hello there", 6, 0)]),
        Chunk([Turn(None, "Bot", "x", 9, 1)]),
    ]
    assert chunk_starts(chunks) == [1, 9]


def test_eval_shows_windowdiff_and_the_cuts_against_the_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated: Path
) -> None:
    rng = np.random.default_rng(7)
    lines, gold = [], []
    for topic in ("cache", "tides", "taxes"):
        gold.append(len(lines) + 1)
        words = TOPICS[topic].split()
        lines.append(
            {"role": "user", "content": "Tell me about " + " ".join(rng.choice(words, 12))}
        )
        for i in range(5):
            if i:
                lines.append({"role": "user", "content": "try again"})  # follow-ups: no topic
            lines.append({"role": "assistant", "content": " ".join(rng.choice(words, 40))})
    log = tmp_path / "session.jsonl"
    log.write_text("".join(json.dumps(m) + "\n" for m in lines))
    gold_file = tmp_path / "gold.txt"
    gold_file.write_text("".join(f"{g}  # a new subject\n" for g in gold))
    assert main(["eval", str(log), "--gold", str(gold_file)]) == 0
    text = capsys.readouterr().out
    assert "WindowDiff  0.000\n" in text
    assert (
        "cuts        2 made, 2 marked  (topic starts; the file's start at line 1 is no cut)" in text
    )
    assert main(["eval", str(log), "--gold", str(gold_file), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cuts"] == 2 and doc["marked_cuts"] == 2 and doc["windowdiff"] == 0.0


_CUE_TEXT = st.lists(
    st.sampled_from(
        [
            *" \n\tabx.[]-/>*0",
            "Let me make the fix",
            "Now I need to make the changes",
            "now let me EDIT the ",
            "Fix the bug",
            "verify this works",
            "\n$ ",
            "TEST THE FIX",
            "verify that our fix",
            "you just",
            "Go back to",
            "REVERT",
            "as before",
            "undo",
            "[main 1a2b3c4]",
            "1a2b3c4..5d6e7f8 main -> main",
            "* [new branch]      x -> x",
            "/pull/12",
            "\u017f",  # long s: matches "s" with re.I
            "\u212a",  # Kelvin sign: matches "k"
            "\u0130",
            "fi\u017f",
        ]
    ),
    max_size=25,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=_CUE_TEXT)
def test_the_cheap_screens_keep_every_pattern_match(text: str) -> None:
    """Phase cues, landed work and references back are screened by the words they need
    before the patterns run: the answers are the patterns' own, in ASCII and beyond."""
    from chunkscope.engine.segment import requests as r

    head = text[:400].split("\n$ ", 1)[0]  # the agent's words, not a command line
    if head.startswith("$ "):
        head = ""
    plain_cue = (
        "fix" if r._FIX_PHASE.search(head) else "verify" if r._VERIFY_PHASE.search(head) else None
    )
    assert phase_cue(text) == plain_cue
    assert lands_work(text) == (r._LANDED.search(text) is not None)
    plain_back = r._REFERS_BACK.search(text) is not None
    assert (
        bool(r._may_hold(text, r._REFERS_BACK_NEEDS) and r._REFERS_BACK.search(text)) == plain_back
    )


def test_an_answer_passed_on_is_told_by_its_opening_over_its_paragraphs() -> None:
    # the architect's answer opens on a short paragraph ("Proposed changes"); the tool
    # passes the whole answer on, whose first 80 characters run into the next paragraph
    rng = np.random.default_rng(11)
    first, second = "Proposed changes", "1) Add a shell script that lints the backend and frontend."
    layout = [("You", "Set up linting for this project please, one command for both")]
    chunks = _session(layout, rng)
    chunks.append(Chunk([Turn(None, "Bot", first, 2, 1)]))
    chunks.append(Chunk([Turn(None, "Bot", second, 3, 1)]))
    chunks.append(Chunk([Turn(None, "aider", "Tokens: 4.2k sent, 1.9k received.", 4, 2)]))
    chunks.append(Chunk([Turn(None, "You", f"{first}  \n  \n{second}", 5, 3)]))
    points = structure_points(chunks)
    assert points[3] == 0.0  # no request: the tool passing the answer on


def test_no_topic_starts_between_an_answer_and_the_tool_passing_it_on() -> None:
    # however much the answer's words change between its start and end, the stretch from
    # inside the answer to its echo is one topic (aider's architect mode)
    rng = np.random.default_rng(12)
    plan_start = "Plan: move the cache to sqlite with an lru eviction of the vectors table rows."
    layout = [("You", "Build an sqlite cache with lru eviction for the vectors table")]
    layout += [("Bot", plan_start)] + [("Bot", "cache")] * 6 + [("Bot", "tides")] * 6
    layout += [("aider", "Tokens: 4.2k sent, 1.9k received.")]
    echo = len(layout)
    layout += [("You", plan_start)] + [("Bot", "tides")] * 6
    chunks = _session(layout, rng)
    for k, c in enumerate(chunks[1 : echo - 1], start=1):  # the answer is one message
        chunks[k] = Chunk([c.turns[0]._replace(turn_index=1)])
    f = frame(chunks, _vectors(chunks))
    assert not f.held[0]  # the answer after the request may start a topic
    assert f.held[1:echo].all() and not f.held[echo:].any()
    starts = _topic_starts(segment(chunks, _vectors(chunks), WHOLE, f, max_chars=None))
    assert not any(1 < s <= echo for s in starts)
    scores = gap_scores(_vectors(chunks), chunks, WHOLE, f)
    assert (scores.score[f.held] <= 0).all() and (scores.depth[f.held] > 0).any()
    # the same answer with no echo after it holds nothing
    alone = chunks[: echo - 1] + chunks[echo + 1 :]
    assert not frame(alone, _vectors(alone)).held.any()
