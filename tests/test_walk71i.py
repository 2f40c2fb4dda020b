"""Walk 71, F4: a paragraph after two or more blank lines of a message lost its ``You:``
label in the workbench's BEFORE MERGE and MERGED columns and counted one char more than
``chunkscope chunk --format json`` said (91c for 90, merged 367c for 366). The reader
squeezes a run of blank lines to one (`words_only`); collapsing tool calls (the
workbench's default) read the messages again and kept the run, so the paragraph opened
on an empty line: ``You: \\nAlso add ...``.

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pilot import make_app, settled

#: A Claude Code user message whose second paragraph follows two blank lines.
ASKED = (
    "Please fix the login bug in api/login.py because users get a 500 error after the"
    " password reset flow.\n\n\nAlso add a regression test for the password reset flow in"
    " tests/test_login.py please.\n\nAnd update the changelog entry for the next release"
    " with a short note about the fix."
)
ANSWERED = "I will fix the login bug first, then add the test and the changelog note."
SECOND = (
    "You: Also add a regression test for the password reset flow in tests/test_login.py please."
)


@pytest.fixture
def two_blank(tmp_path: Path) -> Path:
    """The walk's repro: a user message with a run of two blank lines, and an answer."""
    common = {"sessionId": "s", "cwd": "/p"}
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "user", "content": ASKED},
            **common,
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": ANSWERED}]},
            **common,
        },
    ]
    path = tmp_path / "two-blank.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_f4_collapsing_tool_calls_keeps_the_readers_paragraphs(two_blank: Path) -> None:
    """The engine call both the workbench and ``chunk --collapse`` make gives the units
    ``chunk`` gives without collapsing: same texts, sizes and lines."""
    from chunkscope.engine.pipeline import Pipeline

    plain = Pipeline(two_blank).with_params(collapse=False)
    collapsed = plain.with_params(collapse=True)
    assert collapsed.params.collapses(collapsed.source().kind)
    want = [(c.text, c.chars, c.lines) for c in plain.raw_chunks()]
    got = [(c.text, c.chars, c.lines) for c in collapsed.raw_chunks()]
    assert got == want
    assert got[1] == (SECOND, 90, (1, 1))
    compacted = [(c.text, c.chars, c.lines) for c in collapsed.compacted()]
    assert compacted == [(c.text, c.chars, c.lines) for c in plain.compacted()]


def test_f4_seed_logs_keep_their_text_as_written(tmp_path: Path) -> None:
    """The seed's own log is never tidied, collapsed or not (its chunks are the seed's)."""
    from chunkscope.engine.pipeline import Pipeline

    path = tmp_path / "seed.jsonl"
    message = {"role": "user", "content": ASKED, "timestamp": "2026-01-01T00:00:01Z"}
    path.write_text(json.dumps(message) + "\n")
    plain = Pipeline(path).with_params(collapse=False)
    collapsed = plain.with_params(collapse=True)
    assert [t.text for t in collapsed.turns()] == [t.text for t in plain.turns()] == [ASKED]


async def test_f4_the_workbench_draws_the_label_and_the_cli_s_size(
    two_blank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """BEFORE MERGE shows ``You: Also add ...`` at the 90c ``chunk`` says, MERGED the 366c
    of ``chunk --embed`` (the same merge)."""
    from chunkscope.tui.cli import main
    from chunkscope.tui.widgets.chunk_list import ChunkList

    assert main(["chunk", str(two_blank), "--format", "json"]) == 0
    units = json.loads(capsys.readouterr().out)["chunks"]
    assert units[1]["text"] == SECOND and units[1]["chars"] == 90
    assert main(["chunk", str(two_blank), "--format", "json", "--embed"]) == 0
    merged_sizes = [c["chars"] for c in json.loads(capsys.readouterr().out)["merged"]]
    assert merged_sizes == [366]

    app = make_app(two_blank)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        view = app.workbench.view
        assert view is not None
        assert view.params.collapse  # (the workbench's default: tool calls collapsed)
        assert [c.text for c in view.left_items][1] == SECOND
        before = "\n".join(app.screen.query_one("#before", ChunkList).rendered_lines())
        merged = "\n".join(app.screen.query_one("#merged", ChunkList).rendered_lines())
    assert "You: Also add a regression test" in before, before
    assert " 90c " in before and " 91c " not in before, before
    assert [c.chars for c in view.result.chunks] == merged_sizes
    assert " 366c " in merged and " 367c " not in merged, merged
