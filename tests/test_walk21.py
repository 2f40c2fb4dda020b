"""Walk 21's findings (a fresh review after walk 20's fixes): each test fails on the code
before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.evaluate.measure import Case, tuning_merge
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.widgets.sweep_panel import (
    LABEL,
    SweepResult,
    shown_points,
    sweep_picks,
    sweep_text,
)
from tests.pilot import SAMPLE


def test_the_sweeps_open_cap_in_tokens_is_no_cap_as_the_run_in_force() -> None:
    """F1: the sweep of max tokens ran its ∞ point with the cap in chars put back to its
    default (8192), so the panel said 52 chunks at the marker where the run said 53."""
    merge = MergeParams(max_chunk_chars=None, max_chunk_tokens=None)
    tuning = Tuning(merge=merge)
    pipe = Pipeline(str(SAMPLE), PipelineParams(collapse=True, merge=merge))
    case = Case.of_pipeline(pipe, [], None)
    tokens = pipe.token_counts(case.chunks)
    run = tuning_merge(tuning, "topic", tokens)
    open_point = run(case, {"max_chunk_tokens": None})
    assert len(open_point.bounds) == len(pipe.merged().bounds)
    capped = Tuning(merge=MergeParams(max_chunk_chars=8192, max_chunk_tokens=None))
    assert len(open_point.bounds) != len(tuning_merge(capped, "topic")(case, {}).bounds)
    # a cap in chars in force stays what a tokens point's group resets (the layers' rule)
    chars = tuning_merge(capped, "topic", tokens)(case, {"max_chunk_tokens": None})
    assert len(chars.bounds) == len(tuning_merge(capped, "topic")(case, {}).bounds)


@pytest.mark.parametrize("width", [38, 30])
@pytest.mark.parametrize("current", [0.0, 7.0, 10.0])
def test_a_sweep_made_for_a_wider_panel_fits_its_width_with_the_marker_under_its_point(
    width: int, current: float
) -> None:
    """F2: a sweep of 50 points made at 100 columns (the Merge tab), shown in the side
    column at 160 (38 cells), wrapped its sparkline onto a second row and put the ▲ at
    column 0."""
    values = [i / 5 for i in range(51)]
    chunks = [200 - 3 * i for i in range(51)]
    result = SweepResult("topic_depth", "depth", values, chunks, None, current, "{:.2f}")
    rows = sweep_text(result, width=width).plain.split("\n")
    assert all(len(row) <= width for row in rows), rows
    spark = rows[1][LABEL:].rstrip(" 0123456789")
    assert 0 < len(spark) <= width - LABEL
    marker = next(row for row in rows[2:] if "▲" in row)
    at = marker.index("▲") - LABEL
    picks, _ = sweep_picks(result, width)  # the numbers at the rows' ends keep room
    assert values[picks[at]] == current
    assert f"{chunks[values.index(current)]}" in "\n".join(rows)


def test_the_points_shown_keep_the_one_in_force_and_their_order() -> None:
    assert shown_points(10, 20, 3) == list(range(10))
    picks = shown_points(51, 31, 36)
    assert len(picks) == 31 and 36 in picks and picks == sorted(set(picks))
    assert picks[0] == 0 and picks[-1] == 50


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("{here}/logs/run.jsonl", "run.jsonl"),
        ("./logs/../logs/run.jsonl", "run.jsonl"),
        ("logs/run.jsonl", "logs/run.jsonl"),
        ("{outside}/private/run.jsonl", "run.jsonl"),
    ],
)
def test_the_page_says_which_paths_lose_their_folders_without_calling_them_outside(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    given: str,
    shown: str,
) -> None:
    """F3: a path below the current folder given absolute or through `..` is named by
    its file alone (a session under ~/.claude/projects/ names its user in its folders),
    and the note said such paths were "outside the current folder"; it says which."""
    import shutil

    from chunkscope.tui.cli import main

    here = tmp_path / "work"
    (here / "logs").mkdir(parents=True)
    (tmp_path / "elsewhere" / "private").mkdir(parents=True)
    for folder in (here / "logs", tmp_path / "elsewhere" / "private"):
        shutil.copy(SAMPLE, folder / "run.jsonl")
    monkeypatch.chdir(here)
    path = given.format(here=here, outside=tmp_path / "elsewhere")
    assert main(["report", path, "-o", "page.html"]) == 0
    capsys.readouterr()
    page = (here / "page.html").read_text(encoding="utf-8")
    same = page.split("The same run: <code>")[1].split("</p>")[0]
    assert same.startswith(f"chunkscope report {shown} -o page.html</code>")
    assert "outside the current folder" not in page
    dropped = "(absolute paths and paths through .. name the file only; --full-path"
    assert (dropped in same) == (shown != path)


def test_a_run_capped_in_tokens_lists_no_cap_in_chars(tmp_path: Path) -> None:
    """F1's addendum: `report --max-tokens 300` listed `--max-chars 8192` (default) above
    `--max-tokens 300`, two caps for a run that applies one."""
    from chunkscope.engine.config.tuning import layer
    from chunkscope.tui.report import _params

    flags = {flag: value for flag, value, _ in _params(layer({"max_chunk_tokens": 300}))}
    assert flags["--max-tokens"] == "300" and "--max-chars" not in flags
    flags = {flag: value for flag, value, _ in _params(layer({}))}
    assert flags["--max-chars"] == "8192" and "--max-tokens" not in flags
    flags = {flag: value for flag, value, _ in _params(layer({"max_chunk_chars": None}))}
    assert flags["--max-chars"] == "null" and flags["--max-tokens"] == "null"


async def test_a_sweep_of_the_cap_in_tokens_from_its_open_end_in_seed_mode() -> None:
    """F4: in seed mode with the cap in tokens at ∞, the sweep of max tokens failed ("no
    token_counts were given": counts were made only for a cap in force) and the panel
    kept the last sweep's numbers under the run; the sweep runs, and one that fails says
    so in the panel."""
    from chunkscope.tui.widgets.sweep_panel import SweepPanel
    from tests.pilot import make_app, recording_notifications, settled, wait_for

    app = make_app(SAMPLE, mode="seed", max_chunk_chars=None, max_chunk_tokens=None)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        assert app.state.tuning.merge.max_chunk_tokens is None
        panel = app.screen.query_one(SweepPanel)
        app.follow_knob("max_chunk_tokens")

        def swept() -> bool:
            r = panel.result
            return r is not None and r.knob == "max_chunk_tokens" and not panel.busy

        await wait_for(pilot, lambda: swept() or panel.reason is not None, 20)
        assert swept(), (panel.reason, shown)
        assert panel.result is not None and panel.result.current is None
        assert panel.result.values[-1] is None  # its ∞ end, the value in force
        assert not [m for m in shown if "token_counts" in m]
        # a sweep that fails says so instead of the last sweep's numbers
        app._sweep_failed(app._sweep_generation)
        await pilot.pause()
        assert panel.result is None and panel.reason is not None
        assert "failed for this run" in panel.reason


@pytest.mark.parametrize("name", ["cut.md.gz", "cut.gz", "cut.log", "cut.jsonl.gz"])
def test_a_gzip_file_cut_inside_a_long_header_field_is_refused(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """F5: a gzip header whose name field runs past the file's end (a download cut
    short) decompressed to nothing, and its own bytes, 'A's and four NULs, read as text."""
    from chunkscope.tui.cli import main

    header = b"\x1f\x8b\x08\x08" + b"\x00" * 4 + b"\x00\xff" + b"A" * 200_000 + b"\x00"
    path = tmp_path / name
    path.write_bytes(header[:100_000])
    for command in ("chunk", "recap"):
        assert main([command, str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert err == (
            f"chunkscope: {path}: looks like a gzip file that does not decompress (cut "
            "short or damaged), not a log or markdown"
        )


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["recap", str(SAMPLE), "--scorer", "salience", "--memories", "{bin}"], "memories"),
        (["chunk", str(SAMPLE), "--check", "{bin}"], "snapshot"),
    ],
)
def test_side_files_that_are_not_text_are_refused_as_the_others_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], what: str
) -> None:
    """F6: `--memories PROGRAM` was read (its bytes scored as memories, exit 0) and
    `chunk --check PROGRAM` said "cannot read the snapshot ('utf-8' codec can't ...)";
    `--gold` and `--queries` already said what such a file looks like."""
    from chunkscope.tui.cli import main

    program = tmp_path / "program"
    program.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    assert main([a.format(bin=program) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"chunkscope: {program}: looks like a binary file (NUL bytes at byte 7), not a {what} file"
    )


def test_memories_are_still_read_line_by_line(tmp_path: Path) -> None:
    from chunkscope.tui.cli.recap import _read_memories

    memories = tmp_path / "memories.txt"
    memories.write_bytes(b"the cache lives in sqlite\r\n\r\n  evictions are LRU  \rlast\n")
    assert _read_memories(str(memories)) == (
        "the cache lives in sqlite",
        "evictions are LRU",
        "last",
    )


def test_a_sound_gzip_side_file_is_told_to_be_decompressed_not_damaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 22, F6: a sound gzip given as --queries (side files are not decompressed)
    was called "a gzip file that does not decompress (cut short or damaged)"."""
    import gzip

    from chunkscope.tui.cli import main

    queries = tmp_path / "q.json.gz"
    queries.write_bytes(gzip.compress(b'{"queries": [{"query": "why", "answers": ["x"]}]}'))
    assert main(["search", str(SAMPLE), "--queries", str(queries)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"chunkscope: {queries}: looks like gzip-compressed data (decompress it first), "
        "not a query file"
    )


def test_a_count_of_one_says_its_phrase_in_the_singular() -> None:
    """Walk 22, F3: "1 earlier copie of a message"."""
    from chunkscope.engine.textutil import counted

    assert counted(1, "earlier copies of a message") == "1 earlier copy of a message"
    assert counted(2, "earlier copies of a message") == "2 earlier copies of a message"
    assert counted(1, "queue operations") == "1 queue operation"
    assert counted(1, "records abandoned by a rewind") == "1 record abandoned by a rewind"
