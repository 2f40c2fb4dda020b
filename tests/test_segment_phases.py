"""The phases of one task an agent works through alone (`engine.segment.requests.phase_cue`,
`engine.segment.segmenter`): a mini-swe-agent run investigates, fixes, verifies, and its
own words announce each turn ("Now let me fix the issue", "Now let me test if the fix
works"); the topics follow those phases, read from its words and never from a command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.segment.requests import PHASE, PHASE_STRETCH, phase_cue
from chunkscope.engine.segment.segmenter import TopicParams, segment


@pytest.mark.parametrize(
    "text",
    [
        "The test confirms the bug. Now let me make the fix in validators.py:",
        "Now let me fix the issue by adding the missing parameter:",
        "Let me check the numpy import. Actually, let me first apply the fix and then test it",
        "Now I need to make the changes. Let me first back up the original file:",
        "Now let me edit the RST class:",
        "Now, let me modify `_cstack` so the right matrix is kept:",
        "First, I'll write the fix for the parser.",
        "I will now implement the necessary changes in sites.py",
        "Now we need to apply this change to schema.py. Let's first back it up.",
    ],
)
def test_the_agent_announces_its_fix(text: str) -> None:
    assert phase_cue(text) == "fix"


@pytest.mark.parametrize(
    "text",
    [
        "Good! Now let me test if the fix works:",
        "Now let me test if this fixes the issue:",
        "Now let me create a test to verify the changes work correctly:",
        "Now let me create a test to verify this works:",
        "Let me write a more comprehensive test to verify our fix works.",
        "Let me make sure that the fix holds for nested sequences",
    ],
)
def test_the_agent_announces_its_check(text: str) -> None:
    assert phase_cue(text) == "verify"


@pytest.mark.parametrize(
    "text",
    [
        "Let me fix the credo issue by using an implicit try:",  # a step, no "now"
        "Now let me modify the test script to print more:",  # a script, not the code
        "Now let me edit reproduce_issue.py to use the waveform file",
        "Now let me verify the change was made correctly:",  # a look at the edit
        "Now let me look at how from_json is called elsewhere:",
        "$ mix test 2>&1  # Run tests to verify everything works",  # a command
        "Let me look at the tests.\n$ pytest -q  # now let me verify the fix",
    ],
)
def test_no_phase_in_other_words_or_in_a_command(text: str) -> None:
    assert phase_cue(text) is None


_PROSE = st.lists(
    st.sampled_from(
        [
            *" \n\tab.,:`$",
            "Now let me ",
            "let me first ",
            "fix the issue",
            "make the changes",
            "edit the ",
            "verify the fix",
            "test if this works",
            "script",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=120, deadline=None)
@given(prose=_PROSE, command=_PROSE)
def test_a_command_line_never_announces_a_phase(prose: str, command: str) -> None:
    """What follows the first ``$ `` line (a command the agent runs, as `engine.toolcall`
    shows it) changes no cue: only the agent's words announce."""
    assert phase_cue(f"{prose}\n$ {command}") == phase_cue(prose.split("\n$ ", 1)[0])
    assert phase_cue(f"$ {command}") is None


# -- a mini-swe-agent run cut into its phases ------------------------------------------

_CODE = ["validator", "regex", "anchor", "username", "trailing", "newline", "module", "class"]
_EDIT = ["replace", "anchor", "regex", "validator", "pattern", "backup", "module", "wrote", "file"]
_TESTS = ["passed", "ok", "tests", "suite", "ran", "assertion", "username", "validator", "expected"]


def _traj(path: Path, fix: str, verify: str, edits: int = 3, again: str | None = None) -> None:
    """A mini-swe-agent (1.1) trajectory: the task, a long investigation, the fix
    announced as `fix` and `edits` more steps of it, the check announced as `verify`,
    each step a bash call; with `again`, the agent then says it and fixes once more."""
    rng = np.random.default_rng(3)
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a helpful assistant that can use a shell."},
        {
            "role": "user",
            "content": "<pr_description>\nUsernameValidator allows a trailing "
            "newline in usernames\n</pr_description>",
        },
    ]

    def step(words: list[str], say: str, n: int) -> None:
        call = f"call_{len(messages)}"
        args = json.dumps({"command": "cat " + " ".join(rng.choice(words, 3))})
        messages.append(
            {
                "role": "assistant",
                "content": say + " " + " ".join(rng.choice(words, 25)),
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "bash", "arguments": args},
                    }
                ],
            }
        )
        output = " ".join(rng.choice(words, n))
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call,
                "content": f"<returncode>0</returncode>\n<output>\n{output}\n</output>",
            }
        )

    for _ in range(12):
        step(_CODE, "Let me look at the code:", 60)
    step(_EDIT, fix, 40)
    for _ in range(edits):
        step(_EDIT, "Let me look at the result:", 40)
    step(_TESTS, verify, 40)
    for _ in range(6):
        step(_TESTS, "Let me run the existing tests:", 60)
    if again is not None:
        step(_EDIT, again, 40)
        for _ in range(8):
            step(_EDIT, "Let me look at the result:", 60)
    messages.append({"role": "exit", "content": "diff --git a/x.py b/x.py"})
    doc = {
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "x__x-1",
        "info": {},
        "messages": messages,
    }
    path.write_text(json.dumps(doc, indent=1))


def _topic_openings(path: Path) -> list[str]:
    """The first words of the agent's first message in each topic after the first."""
    params = PipelineParams(embedder=EmbedderSpec(name="lexical"), merge=MergeParams(mode="topic"))
    pipe = Pipeline(str(path), params)
    chunks = pipe.compacted()
    result = segment(
        chunks, pipe.embeddings(), TopicParams(topic_chunk_tokens=0), pipe.topic_frame()
    )
    assert result.topic_bounds is not None
    out = []
    for b in result.topic_bounds[1:-1].tolist():
        bot = next(t for c in chunks[b:] for t in c.turns if t.role == "Bot")
        out.append(bot.text[:30])
    return out


def test_a_run_is_cut_into_investigation_fix_and_verification(tmp_path: Path) -> None:
    path = tmp_path / "x__x-1.traj.json"
    _traj(
        path,
        "Now let me fix the issue by anchoring the regex:",
        "Now let me test if the fix works:",
    )
    assert PHASE > 0 and PHASE_STRETCH > 0
    assert _topic_openings(path) == [
        "Now let me fix the issue by an",
        "Now let me test if the fix wor",
    ]
    # a fix announced again later (after more reading) opens no other phase
    again = tmp_path / "again.traj.json"
    _traj(again, "Now let me fix the issue by anchoring the regex:",
          "Now let me fix the issue with a better anchor:", edits=12)  # fmt: skip
    assert _topic_openings(again) == ["Now let me fix the issue by an"]
    # the same run where the agent announces nothing: its words alone do not cut it
    quiet = tmp_path / "quiet.traj.json"
    _traj(quiet, "Let me look at the code:", "Let me look at the code:")
    assert _topic_openings(quiet) == []


# -- the check when the fix went unannounced; the fix again when it proved wrong ----------


def test_a_check_that_the_fix_works_after_an_unannounced_fix_opens_the_check() -> None:
    from chunkscope.engine.segment.requests import next_phase

    check = "Now let me test if this fixes the issue:\n$ python reproduce.py"
    assert next_phase(None, check) == ("verify", PHASE_STRETCH)
    # a plan in a reasoning model's thinking ("we should still verify that our change
    # works") is no sign the fix was made
    assert next_phase(None, check, thought=True) is None
    # after the fix, as before: the check may follow it closely
    assert next_phase("fix", check) == ("verify", PHASE_STRETCH // 3)
    assert next_phase("verify", check) is None  # checking again is the same phase


@pytest.mark.parametrize(
    "text",
    [
        "Oh no! Test 2 shows the filter returns 0 rows. My fix breaks WHERE clauses.",
        "Now let me think about a better fix. The issue is:",
        "Wait, there's an issue with my patch. I added the property to the wrong class.",
        "The change didn't work: the test still fails.",
    ],
)
def test_the_agent_finding_its_fix_wrong_turns_to_fixing_it_again(text: str) -> None:
    from chunkscope.engine.segment.requests import fixes_again, next_phase

    assert fixes_again(text)
    assert next_phase("verify", text) == ("fix", PHASE_STRETCH)
    assert next_phase("fix", text) == ("fix", PHASE_STRETCH)
    # while still investigating, weighing "a better fix" is the investigation
    assert next_phase(None, text) is None
    assert not fixes_again("$ " + text)  # a command says nothing


def test_a_run_that_checks_its_fix_finds_it_wrong_and_fixes_it_again(tmp_path: Path) -> None:
    path = tmp_path / "x__x-1.traj.json"
    _traj(
        path,
        "Now let me fix the issue by anchoring the regex:",
        "Now let me test if the fix works:",
        again="Wait, there's an issue with my patch: the anchor drops the last line.",
    )
    assert _topic_openings(path) == [
        "Now let me fix the issue by an",
        "Now let me test if the fix wor",
        "Wait, there's an issue with my",
    ]
    # the fix never announced: the check after the investigation opens a phase
    quiet = tmp_path / "quiet.traj.json"
    _traj(quiet, "Let me look at the code:", "Now let me test if this fixes the issue:")
    assert _topic_openings(quiet) == ["Now let me test if this fixes "]
