"""Counts, articles and ranges said as a person would: "1 turn", "an Explore subagent",
"lines 33", theme names listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.config.settings import THEME_NAMES
from chunkscope.engine.recap.collapse import collapse_call
from chunkscope.engine.textutil import counted, plural
from chunkscope.tui.cli import main


def test_plural_only_when_the_count_is_not_one() -> None:
    assert [plural(n, "turn") for n in (0, 1, 2)] == ["0 turns", "1 turn", "2 turns"]
    assert plural(1, "pass", "passes") == "1 pass" and plural(3, "pass", "passes") == "3 passes"


def test_what_was_not_read_is_counted_in_the_singular_for_one() -> None:
    """A Codex log said "not read: ... 1 events"; tune "on 1 files"."""
    from chunkscope.engine.read.source import Source

    assert counted(1, "events (repeat the response items)") == "1 event (repeat the response items)"
    assert counted(1, "progress records") == "1 progress record"
    assert counted(1, "records abandoned by a rewind") == "1 record abandoned by a rewind"
    assert counted(1, "session metadata") == "1 session metadata"
    assert counted(3, "queue operations") == "3 queue operations"
    src = Source.__new__(Source)
    object.__setattr__(src, "not_read", {"events (repeat the response items)": 1})
    object.__setattr__(src, "stripped", {"system-reminder blocks": 1})
    assert src.accounting() == (
        "not read: 1 event (repeat the response items); "
        "left out of records read: 1 system-reminder block"
    )


def test_tune_counts_one_file_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "g.json"
    gold.write_text('{"starts": [1, 6]}')
    log = "sample_logs/cache_refactor.jsonl"
    assert main(["tune", log, "other.jsonl", "--gold", str(gold)]) == 2
    assert "2 files but 1 gold file: give one per file" in capsys.readouterr().err


def test_chunk_header_says_1_turn_and_1_chunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "one.jsonl"
    log.write_text(json.dumps({"role": "user", "content": "hello there, one turn"}) + "\n")
    assert main(["chunk", str(log)]) == 0
    out = capsys.readouterr().out
    assert " 1 turn, 1 chunk, " in out


def test_a_subagent_type_takes_the_right_article() -> None:
    args = json.dumps({"subagent_type": "Explore", "description": "find it"})
    said = collapse_call("Task", args, "ok", agent="claude")
    assert said is not None and said.startswith("Delegated to an Explore subagent:")
    other = collapse_call("Task", json.dumps({"subagent_type": "general-purpose"}), "ok", agent="c")
    assert other is not None and other.startswith("Delegated to a general-purpose subagent.")


def test_theme_help_and_an_unknown_theme_name_the_themes() -> None:
    import argparse

    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from chunkscope.tui.cli.common import add_theme_option

    p = argparse.ArgumentParser()
    add_theme_option(p)
    assert all(name in " ".join(p.format_help().split()) for name in THEME_NAMES)
    app = ChunkscopeApp(StartOptions(theme="nope", open_picker=False))
    (note,) = [n for n in app._startup_notes if "nope" in n]
    assert all(name in note for name in THEME_NAMES) and app.theme == THEME_NAMES[0]


def test_markdown_export_labels_the_summary_and_says_the_abstract_once() -> None:
    from types import SimpleNamespace

    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.summarize import Summary
    from chunkscope.engine.tokens import get_counter
    from chunkscope.tui.workbench.exports import merged_markdown

    root = Path(__file__).resolve().parents[1]
    pipe = Pipeline(root / "sample_logs" / "cache_refactor.jsonl")
    result = pipe.merged()
    first, second = result.chunks[0].text, result.chunks[1].text
    summaries = {
        first: Summary("The cache persists.", "The cache persists. Then the tests ran."),
        second: Summary("Only this.", "Only this."),
    }
    view = SimpleNamespace(source=pipe.source(), result=result, merged_tokens=None)
    md = merged_markdown(view, summaries, get_counter("cl100k_base"))  # type: ignore[arg-type]
    assert "**Abstract:** The cache persists.\n\n**Summary:** Then the tests ran." in md
    assert "**Abstract (the whole summary):** Only this." in md
    assert md.count("The cache persists.") == 1 and md.count("Only this.") == 1


def test_the_json_export_says_the_abstract_once() -> None:
    """Issue 35: the workbench's JSON export wrote a ``summary`` whose first sentence was
    the ``abstract`` again; it keeps the rest, as the panel and the markdown export do."""
    import json
    from types import SimpleNamespace

    from chunkscope.engine.pipeline import Pipeline
    from chunkscope.engine.summarize import Summary
    from chunkscope.engine.tokens import get_counter
    from chunkscope.tui.workbench.exports import merged_json

    root = Path(__file__).resolve().parents[1]
    pipe = Pipeline(root / "sample_logs" / "docs_cleanup.jsonl")
    result = pipe.merged()
    first, second = result.chunks[0].text, result.chunks[1].text
    summaries = {
        first: Summary("The cache persists.", "The cache persists. Then the tests ran."),
        second: Summary("Only this.", "Only this.", source="llm"),
    }
    view = SimpleNamespace(
        source=pipe.source(),
        params=pipe.params,
        compacted=pipe.compacted(),
        compact_tokens=None,
        result=result,
        sims=pipe.similarities(),
        merged_tokens=None,
    )
    doc = json.loads(merged_json(view, summaries, get_counter("cl100k_base")))  # type: ignore[arg-type]
    said = [m["summary"] for m in doc["merged"]]
    assert said[0] == {
        "abstract": "The cache persists.",
        "summary": "Then the tests ran.",
        "flagged": False,
        "source": "extractive",
    }
    assert said[1] == {"abstract": "Only this.", "summary": "", "flagged": False, "source": "llm"}
    assert all(s is None for s in said[2:])


def test_pk_is_written_one_way_in_the_cli_the_report_and_the_workbench(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pk was ``0.0210`` from eval, tune and auto-tune and ``0.021`` in the merge panel:
    every output writes a score with `score_text`."""
    from chunkscope.engine.evaluate.measure import Scores, score_text
    from chunkscope.tui.workbench.topics import MarksReport

    log = "sample_logs/cache_refactor.jsonl"
    gold = tmp_path / "g.json"
    gold.write_text('{"starts": [1, 60, 120]}')
    assert main(["eval", log, "--gold", str(gold), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["eval", log, "--gold", str(gold)]) == 0
    text = capsys.readouterr().out
    pk, wd = score_text(doc["pk"]), score_text(doc["windowdiff"])
    assert pk == f"{doc['pk']:.3f}"
    assert f"Pk          {pk}  (" in text and f"WindowDiff  {wd}\n" in text
    assert main(["report", log, "--gold", str(gold), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert f">{pk}<" in page and f">{wd}<" in page
    assert main(["tune", log, "--gold", str(gold), "--top", "1"]) == 0
    row = capsys.readouterr().out.splitlines()[3].split()
    assert len(row[3]) == len(pk) and row[3].startswith("0.")  # #1's Pk: three decimals
    scores = Scores(doc["pk"], doc["windowdiff"], 0.5, 0.5, 0.5, 3, 3, 100)
    panel = MarksReport(scores, 1, 1, 1, [], {}, {}, []).summary()
    assert f"Pk {pk} · WindowDiff {wd}" in panel
    assert score_text(0.021) == "0.021"
