"""`chunkscope report`: one self-contained HTML page of a run (`tui.report`).

The page is parsed with the standard library's HTML parser: every tag must be one the
report writes, with no attribute that runs or loads anything, whatever the log says.
The browser tests (`tests/test_browser.py`) open it in Chromium.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from chunkscope.tui.cli import main

if TYPE_CHECKING:
    from chunkscope.tui.cli.recap import RecapRun

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "cache_refactor.jsonl"

#: Every tag the report writes; anything else in a page came from the input.
TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "footer", "p", "h1",
    "h2", "h3", "dl", "dt", "dd", "pre", "code", "b", "span", "article", "section", "details",
    "summary", "div", "table", "tr", "th", "td", "ul", "li", "svg", "rect", "text", "polyline",
    "line", "path", "wbr",
}  # fmt: skip
HOSTILE = [
    "<script>alert(1)</script>",
    '</pre><img src=x onerror="alert(2)">',
    '"><svg onload=alert(3)>',
    "</style><style>body{display:none}</style>",
    "<!-- an open comment",
    "<a href='https://example.com/leak'>link</a> &amp; <iframe src=//example.com>",
    "\x1b[31mred\x1b[0m and a NUL \x00 and a bell \x07",
]


class Page(HTMLParser):
    """The tags, attributes and text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def count(self, tag: str, cls: str | None = None) -> int:
        return sum(
            1
            for t, a in self.tags
            if t == tag and (cls is None or cls in (a.get("class") or "").split())
        )


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def assert_self_contained(html: str) -> Page:
    """Only the report's own tags; no script, no handler, nothing loaded from elsewhere."""
    page = parse(html)
    assert {t for t, _ in page.tags} <= TAGS
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name not in ("src", "href", "srcset", "action"), (tag, name)
            assert "url(" not in (value or ""), (tag, name)
    assert not page.comments
    style = html[html.index("<style>") : html.index("</style>")]
    assert "url(" not in style and "@import" not in style
    assert "\x1b" not in html and "\x00" not in html and "\x07" not in html
    return page


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    out = tmp_path / "r.html"
    code = main(["report", *argv, "-o", str(out)])
    capsys.readouterr()
    return code, out.read_text(encoding="utf-8") if out.exists() else ""


def test_the_page_shows_the_run(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, html = report(isolated, capsys, str(SAMPLE))
    assert code == 0
    page = assert_self_contained(html)
    # the same run as `chunk --embed` with the recap's collapsed tool calls
    main(["recap", str(SAMPLE), "--format", "json", "-o", str(isolated / "recap.json")])
    capsys.readouterr()
    doc = json.loads((isolated / "recap.json").read_text())
    n = len(doc["candidates"])
    assert page.count("article", "chunk") == n
    assert page.count("svg") == 1 and page.count("polyline") == 2  # similarity and depth
    assert page.count("line", "cut") == n - 1
    text = "".join(page.text)
    assert "cache_refactor.jsonl" in text and "cl100k_base" in text and "lexical" in text
    assert "cut after: structure (depth" in text or "cut after: topic (depth" in text
    assert doc["recap"].split("\n")[0] in text  # the recap itself
    assert f"{doc['used_tokens']:,}" in text and "--topic-depth" in text
    assert len(html) < 200_000
    # a range of one says it once; the second range names what it counts
    assert not re.search(r"lines (\d+)–\1\b", text)
    assert "(compacted chunks " in text and "(compacted 0" not in text


def test_seed_mode_gold_and_budget(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = isolated / "gold.json"
    gold.write_text('{"starts": [1, 44, 90, 129, 150]}')
    argv = [str(SAMPLE), "--merge", "seed", "--budget", "300", "--gold", str(gold)]
    code, html = report(isolated, capsys, *argv)
    assert code == 0
    page = assert_self_contained(html)
    from chunkscope.engine.evaluate.measure import chunk_starts, line_weights, score, score_text

    merged = _run(*argv).merged  # the report's run: tool calls collapsed, as in a recap
    starts = chunk_starts(merged.chunks)
    scores = score(starts, [1, 44, 90, 129, 150], line_weights(SAMPLE)).as_dict()
    text = "".join(page.text)
    assert "Score against the gold topic starts" in text
    assert score_text(scores["pk"]) in text and f"{scores['f1']:.3f}" in text
    assert page.count("path", "mark") == 4  # the gold starts after line 1
    assert page.count("polyline") == 1  # the seed loop: neighbour similarity only
    assert "What did not" in text and "over budget" in text  # 300 tokens leave some out
    assert page.count("article", "kept") >= 1 and page.count("article", "other") >= 1
    assert "--merge seed" in text and "--budget 300" in text


@pytest.mark.parametrize("sample", ["markup_injection.jsonl", "shell_cookbook.md"])
def test_log_text_is_escaped(
    sample: str, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, html = report(isolated, capsys, str(ROOT / "sample_logs" / sample))
    assert code == 0
    assert_self_contained(html)
    if sample.startswith("markup"):
        assert "[bold red]alarm[/]" in html  # Rich markup stays text too


def test_hostile_html_in_a_log_stays_text(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = isolated / "<img src=x onerror=alert(9)> name.jsonl"
    lines = [
        json.dumps({"role": ("user", "assistant")[i % 2], "content": f"{t} turn {i} " * 3})
        for i, t in enumerate(HOSTILE * 3)
    ]
    log.write_text("\n".join(lines) + "\n")
    code, html = report(isolated, capsys, str(log), "--min-chars", "10", "--budget", "200")
    assert code == 0
    page = assert_self_contained(html)
    text = "".join(page.text)
    assert "<script>alert(1)</script>" in text  # shown as text, exactly
    assert "<img src=x onerror=alert(9)> name.jsonl" in text
    assert "&lt;script&gt;" in html and "<script" not in html


def test_every_hostile_file_gives_a_page_or_one_line(
    corpus: dict[str, Path], isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated / "r.html"
    out.write_text("before")
    for case, path in corpus.items():
        if case == "huge_line":
            continue  # its megabytes of one line cost time and test nothing more here
        try:
            code = main(["report", str(path), "-o", str(out)])
        except SystemExit as e:  # pragma: no cover - argparse
            code = int(e.code or 0)
        err = capsys.readouterr().err
        assert "Traceback" not in err, case
        if code == 0:
            assert_self_contained(out.read_text(encoding="utf-8"))
        else:
            assert code == 2, case
            assert len(err.strip().splitlines()) == 1, (case, err)
            assert err.startswith("chunkscope: ")


def test_a_failed_run_leaves_the_page_as_it_was(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated / "r.html"
    out.write_text("before")
    empty = isolated / "empty.jsonl"
    empty.write_text("not json\n")
    assert main(["report", str(empty), "-o", str(out)]) == 2
    assert out.read_text() == "before"
    assert main(["report", str(SAMPLE), "-o", str(isolated / "no" / "dir" / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "cannot write" in err[-1]
    assert not list(isolated.glob(".r.html.*"))  # no temp file left


def test_stdout_when_not_a_terminal(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(SAMPLE), "--budget", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")


def test_selection_sections_and_topics_are_rendered(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part of the recap's JSON the page does not know shows anyway; a merge that
    groups its chunks into topics is shown by topic."""
    import numpy as np

    from chunkscope.engine.segment.merge import MergeResult
    from chunkscope.tui.report import gather, render_html

    run = _run(str(SAMPLE))
    merged: Any = run.merged
    n = len(merged.chunks)
    assert isinstance(merged, MergeResult) and n >= 4
    # Two topics, the first of two merged chunks (a topic split to fit the size cap), and
    # merged chunk 1 one unit over the cap: a topic segmentation's two levels.
    merged.topic_bounds = np.asarray([0, int(merged.bounds[2]), int(merged.bounds[-1])])
    merged.over_cap = np.asarray([i == 1 for i in range(n)])
    for cached in ("topic_spans", "topic_of", "topic_chunks"):
        merged.__dict__.pop(cached, None)
    second = merged.cuts[1].reason.replace("_", " ")
    rep = gather(run.pipe, run.source, merged, run.selection, run.tuning)
    rep = replace(
        rep,
        selection={
            **rep.selection,
            "procedure": [{"step": "<i>ran</i> tests", "turn": 12}],
            "open_questions": ["why <u>this</u>?"],
        },
    )
    html = "".join(render_html(rep))
    page = assert_self_contained(html)
    text = "".join(page.text)
    assert "procedure" in text and "<i>ran</i> tests" in text
    assert "open questions" in text and "why <u>this</u>?" in text
    assert page.count("section", "topic") == 2
    assert "Topics (2) and merged chunks" in text
    assert f"{n - 2} merged chunks · starts by {second}" in text
    assert text.count("one unit over the size cap") == 1
    assert page.count("article", "chunk") == n


@pytest.mark.parametrize(
    "argv",
    [
        ["sample_logs/shell_cookbook.md", "--strategy", "markdown", "--max-tokens", "120"],
        ["sample_logs/cache_refactor.jsonl", "--merge", "seed", "--std-k", "1", "--budget", "400"],
        ["sample_logs/docs_cleanup.jsonl", "--max-tokens", "700", "--topic-depth", "6"],
    ],
)
def test_the_command_the_page_shows_makes_the_same_page(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import html as html_lib
    import re
    import shlex

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample_logs").symlink_to(ROOT / "sample_logs")
    first = tmp_path / "out" / "first.html"
    first.parent.mkdir()
    assert main(["report", *argv, "-o", "out/first.html"]) == 0
    page = first.read_text(encoding="utf-8")
    shown = re.search(r"The same run: <code>([^<]*)</code>", page)
    assert shown is not None
    command = shlex.split(html_lib.unescape(shown.group(1)))
    # exactly as run, the output path as given (not a made-up report.html)
    assert command == ["chunkscope", "report", *argv, "-o", "out/first.html"]
    first.rename(tmp_path / "kept.html")
    assert main(command[1:]) == 0
    capsys.readouterr()
    assert first.read_text(encoding="utf-8") == page


def test_many_cuts_are_ticks_under_the_curves() -> None:
    from chunkscope.tui.report import DENSE_CUTS, Curve, Plot, render_svg

    curve = Curve("similarity", [float(x) for x in range(100)], [0.1] * 100, 0.2, "t")
    few = Plot(100, [curve], [(10.0, "threshold", "a"), (50.0, "size_cap", "<b>")], [])
    page = parse(render_svg(few))
    assert page.count("line", "cut") == 2 and page.count("line", "tick") == 0
    cuts = [(i / 10, "size_cap" if i == 7 else "threshold", "c") for i in range(1000)]
    assert len(cuts) > DENSE_CUTS
    page = parse(render_svg(Plot(100, [curve], cuts, [(50.0, False, 40)])))
    ticks = [a for t, a in page.tags if t == "line" and "tick" in (a.get("class") or "")]
    assert 100 < len(ticks) <= 960  # one a pixel column at most
    assert {a["y1"] for a in ticks} == {ticks[0]["y1"]}  # in one row, not across the curves
    assert any(a["stroke"] == "#c05621" for a in ticks)  # the size cap's column shows it
    assert page.count("path", "mark") == 1


def _run(*argv: str) -> RecapRun:
    """The run `chunkscope report ARGV` makes."""
    from chunkscope.tui.cli.common import Parser
    from chunkscope.tui.cli.recap import run_recap
    from chunkscope.tui.cli.report import add_report_parser

    parser = Parser(prog="chunkscope")
    add_report_parser(parser.add_subparsers())
    return run_recap(parser.parse_args(["report", *argv]))


def test_the_report_module_imports_no_ui() -> None:
    code = (
        "import sys, chunkscope.tui.report\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


async def test_the_workbench_exports_the_run_it_shows(isolated: Path) -> None:
    """`e` → report writes the run on screen, the file's topic marks as its gold."""
    from chunkscope.tui.screens.prompt import PromptScreen
    from tests.pilot import SIZE, make_app, settled, until

    app = make_app(budget=300)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: app.selection is not None)
        app.marks = (1, 44, 129)
        view = app.workbench.view
        app.export("report")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")  # ./cache_refactor.report.html
        target = isolated / "cache_refactor.report.html"
        await until(pilot, target.exists)
        page = assert_self_contained(target.read_text(encoding="utf-8"))
        assert page.count("article", "chunk") == len(view.result.chunks)
        assert page.count("path", "mark") == 2  # the marks after line 1
        text = "".join(page.text)
        assert "Score against the gold topic starts" in text and "of 300 tokens" in text


async def test_the_workbench_export_shows_the_path_it_wrote(isolated: Path) -> None:
    """Issue 35: the exported page's "same run" said `-o report.html` whatever path was
    chosen; it shows the page written, by its name as the CLI shows an absolute -o."""
    import html as html_lib
    import re
    import shlex

    from textual.widgets import Input

    from chunkscope.tui.screens.prompt import PromptScreen
    from tests.pilot import SIZE, make_app, settled, until

    target = isolated / "x" / "wb.html"
    target.parent.mkdir()
    app = make_app(ROOT / "sample_logs" / "docs_cleanup.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: app.selection is not None)
        app.export("report")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await until(pilot, target.exists)
    page = target.read_text(encoding="utf-8")
    shown = re.search(r"The same run: <code>([^<]*)</code>", page)
    assert shown is not None
    command = shlex.split(html_lib.unescape(shown.group(1)))
    assert command[:3] == ["chunkscope", "report", "docs_cleanup.jsonl"], command
    assert command[-2:] == ["-o", "wb.html"], command
    assert str(isolated) not in page
    # the command names the page without its folder: the page says so beside it
    from chunkscope.tui.report import OUTPUT_DROPPED_NOTE

    assert f"</code> {html_lib.escape(OUTPUT_DROPPED_NOTE)}</p>" in page


def _same_run(page: str) -> list[str]:
    import html as html_lib
    import shlex

    shown = re.search(r"The same run: <code>([^<]*)</code>", page)
    assert shown is not None
    return shlex.split(html_lib.unescape(shown.group(1)))


def _fact(page: str, name: str) -> str:
    found = re.search(rf"<dt>{name}</dt><dd>([^<]*)</dd>", page)
    assert found is not None, name
    return found.group(1)


async def test_the_workbench_export_of_raw_calls_and_saved_marks_runs_as_shown(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page exported after `T` (raw tool calls) with saved topic marks showed `303
    compacted` and a score, beside `chunkscope report FILE -o ...`, which collapses the
    calls and scores nothing: the command now carries --no-collapse and --gold (the
    marks file, named on the page), and running it gives the page's counts and score."""
    from chunkscope.engine.evaluate.gold import marks_path, save_marks
    from chunkscope.tui.screens.prompt import PromptScreen
    from tests.pilot import SIZE, make_app, settled, until

    log = isolated / "markup_injection.jsonl"
    log.write_bytes((ROOT / "sample_logs" / "markup_injection.jsonl").read_bytes())
    save_marks(log, [8, 17], partial=False)
    app = make_app(log, collapse=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await until(pilot, lambda: app.selection is not None)
        assert not app.pipe.params.collapse and app.marks == (8, 17)
        app.export("report")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")
        target = isolated / "markup_injection.report.html"
        await until(pilot, target.exists)
    page = target.read_text(encoding="utf-8")
    command = _same_run(page)
    saved = marks_path(log)
    assert command[:3] == ["chunkscope", "report", "markup_injection.jsonl"], command
    assert "--no-collapse" in command and command[command.index("--gold") + 1] == saved.name
    assert str(isolated) not in page and "marks/" in page  # the note says where it is
    # run it as shown (the marks file found where the note says)
    argv = command[1:]
    argv[argv.index("--gold") + 1] = str(saved)
    argv[argv.index("-o") + 1] = "again.html"
    assert main(argv) == 0
    capsys.readouterr()
    again = (isolated / "again.html").read_text(encoding="utf-8")
    assert _fact(again, "chunks") == _fact(page, "chunks")
    assert "Score against the gold topic starts" in page
    assert "Score against the gold topic starts" in again


def test_report_no_collapse_keeps_the_calls_as_turns(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`report --no-collapse` runs on the raw turns (as `chunk` and the workbench's T),
    and a relative -o keeps its folder, which the note beside the command says."""
    import html as html_lib

    from chunkscope.tui.report import FOLDERS_DROPPED_NOTE, OUTPUT_DROPPED_NOTE

    (isolated / "rep").mkdir()
    log = str(ROOT / "sample_logs" / "markup_injection.jsonl")
    assert main(["report", log, "--no-collapse", "-o", "rep/raw.html"]) == 0
    assert main(["report", log, "-o", "rep/folded.html"]) == 0
    capsys.readouterr()
    raw = (isolated / "rep" / "raw.html").read_text(encoding="utf-8")
    folded = (isolated / "rep" / "folded.html").read_text(encoding="utf-8")
    assert _fact(raw, "chunks") != _fact(folded, "chunks")
    assert _same_run(raw)[2:] == ["markup_injection.jsonl", "--no-collapse", "-o", "rep/raw.html"]
    # the input lost its folders, -o did not: the note says only what was done
    assert f"</code> {html_lib.escape(FOLDERS_DROPPED_NOTE)}</p>" in raw
    assert html_lib.escape(OUTPUT_DROPPED_NOTE) not in raw


def test_a_page_to_share_names_the_file_not_where_it_lives(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private = isolated / "home" / "someone" / "private"
    private.mkdir(parents=True)
    log = private / "session.jsonl"
    log.write_bytes(SAMPLE.read_bytes())
    gold = private / "gold.json"
    gold.write_text('{"starts": [1, 44]}')
    out = private / "shared.html"
    assert main(["report", str(log), "--gold", str(gold), "--plain", "-o", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert "someone" not in page and str(isolated) not in page
    assert "session.jsonl" in page
    assert (
        "The same run: <code>chunkscope report session.jsonl --gold gold.json --plain "
        "-o shared.html</code> (absolute paths and paths through .. name the file only, "
        "-o too: this writes the page here; --full-path shows folders)</p>" in page
    )
    # JSON's words, not Python's
    assert "<td>true</td>" in page and ">True<" not in page and ">False<" not in page
    # an unset cap is JSON's null, as the config file writes it (walk 17, 3: it said none)
    assert "<td>none</td>" not in page and ">None<" not in page
    uncapped = private / "uncapped.html"
    assert main(["report", str(log), "--merge", "seed", "-o", str(uncapped)]) == 0
    capsys.readouterr()
    assert "<td><code>--max-passes</code></td><td>null</td>" in uncapped.read_text("utf-8")
    assert " null" not in page.split("The same run: ")[1].split("</code>")[0]
    assert main(["report", str(log), "--full-path", "-o", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert f"<dd>{log}</dd>" in page and f"chunkscope report {log} --full-path" in page
    assert "--full-path shows folders" not in page  # every path as given: no note


def test_the_sections_table_is_wrapped_text_not_lists(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, html = report(isolated, capsys, str(SAMPLE))
    assert code == 0
    start = html.index("<h3>sections</h3>")
    table = html[start : html.index("</table>", start)]
    # "lines" means line numbers everywhere else: the sections' column is their text;
    # where they are read from is said once, not "records" on every row
    assert "<th>section</th><th>text</th><th>tokens</th></tr>" in table, table[:300]
    assert "<th>lines</th>" not in table and "<th>source</th>" not in table
    assert ">records<" not in table
    assert "Each section is read from the log&#x27;s records." in table
    assert "[&quot;" not in table and "<code>" not in table  # no JSON list in a cell
    assert "<td><div>" in table  # each line of a section on its own line
    assert "overflow-wrap: anywhere; }" in html[: html.index("</style>")]


def test_a_score_column_writes_every_score_alike(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: the recap tables wrote `1` beside `0.9123`."""
    import re

    code, html = report(isolated, capsys, str(SAMPLE))
    assert code == 0
    scores = []
    for head in ("<h3>What fit the budget</h3>", "<h3>What did not</h3>"):
        start = html.index(head)
        table = html[start : html.index("</table>", start)]
        col = re.findall(r"<th>([^<]*)</th>", table).index("score")
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table)[1:]:
            scores.append(re.findall(r"<td[^>]*>(.*?)</td>", row)[col])
    assert scores and all(re.fullmatch(r"\d\.\d{4}", s) for s in scores), scores
    assert "1.0000" in scores, scores  # the newest: 1, written as the others are


def test_cells_of_a_column_with_fractions_share_one_format() -> None:
    from chunkscope.tui.report import _table

    page = _table([{"score": 1}, {"score": 0.9123}, {"score": 0.01754}, {"n": 3}])
    assert ">1.0000<" in page and ">0.9123<" in page and ">0.0175<" in page
    assert ">3<" in page  # a column of whole numbers keeps them whole


def test_a_document_counts_sections_and_paragraphs_and_shows_no_clock(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A markdown file's turns are its sections and a chunk's are paragraphs, as `chunk`
    and the workbench header say; its turns carry only the file's date, so no chunk
    shows a time of day; one topic is ``1 topic``."""
    doc = ROOT / "sample_logs" / "architecture_guide.md"
    code, html = report(isolated, capsys, str(doc), "--topics", "1")
    assert code == 0
    facts = dict(zip(_texts(html, "dt"), _texts(html, "dd"), strict=False))
    assert "turns" not in facts and facts["sections"].isdigit()
    assert facts["chunks"].endswith(" in 1 topic")
    heads = [h[h.index("Chunk ") :] for h in _texts(html, "h3") if "Chunk " in h]
    assert heads and all(" paragraph" in h and " turn" not in h for h in heads)
    assert not any(re.search(r"\d\d:\d\d:\d\d", h) for h in heads)
    assert "time range" not in _texts(html, "th")
    # a session keeps its clock and its turns
    code, html = report(isolated, capsys, str(SAMPLE))
    heads = [h[h.index("Chunk ") :] for h in _texts(html, "h3") if "Chunk " in h]
    clock = re.compile(r"\d\d:\d\d:\d\d - \d\d:\d\d:\d\d · \d+ turns?")
    assert heads and all(clock.search(h) for h in heads)
    assert "turns" in _texts(html, "dt")
    # walk 8: the page said "turns 211" and never that the chunks come from 136 (tool
    # calls collapsed); it says both, and what --no-collapse does, as the header does
    facts = dict(zip(_texts(html, "dt"), _texts(html, "dd"), strict=False))
    assert facts["turns"] == "211 · 136 after collapse"
    assert facts["tool calls"] == "collapsed, as the recap reads them (--no-collapse keeps them)"
    code, html = report(isolated, capsys, str(SAMPLE), "--no-collapse")
    facts = dict(zip(_texts(html, "dt"), _texts(html, "dd"), strict=False))
    assert facts["turns"] == "211" and facts["tool calls"].startswith("kept as turns")
    assert "tool calls" not in dict.fromkeys(_texts(report(isolated, capsys, str(doc))[1], "dt"))


def _texts(html: str, tag: str) -> list[str]:
    """The text of every `tag` element of a page (outside nested elements of the same tag)."""
    out: list[str] = []

    class Grab(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.depth = 0

        def handle_starttag(self, t: str, attrs: list[tuple[str, str | None]]) -> None:
            if t == tag:
                if self.depth == 0:
                    out.append("")
                self.depth += 1

        def handle_endtag(self, t: str) -> None:
            if t == tag and self.depth:
                self.depth -= 1

        def handle_data(self, data: str) -> None:
            if self.depth:
                out[-1] += data

    Grab().feed(html)
    return [t.strip() for t in out]


@pytest.mark.parametrize("form", ["--output={}", "-o{}"])
def test_a_path_attached_to_its_option_is_shown_as_a_separate_one_is(
    isolated: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """Issue 35: ``--output=/private/folder/page.html`` (or ``-o/private/...``) put the
    folder on the page to share, beside a note saying -o was shown by its name only: an
    option's path is shown one way however it was written."""
    private = isolated / "home" / "someone"
    private.mkdir(parents=True)
    out = private / "page.html"
    log = str(ROOT / "sample_logs" / "markup_injection.jsonl")
    assert main(["report", log, form.format(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert "someone" not in page
    assert _same_run(page) == [
        "chunkscope",
        "report",
        "markup_injection.jsonl",
        form.format("page.html"),
    ]
    (isolated / "sub").mkdir()
    assert main(["report", log, form.format("sub/page.html")]) == 0
    capsys.readouterr()
    page = (isolated / "sub" / "page.html").read_text(encoding="utf-8")
    assert _same_run(page)[-1] == form.format("sub/page.html")  # as given, below here


def test_the_same_run_says_the_pins_and_excludes_the_page_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The workbench's `e` exported a recap with pinned and excluded chunks (its `p`, `x`)
    whose command and flags table left them out: the command did not make the page
    (walk 9 #4). Now both say `--pin`/`--exclude`, and the command makes the same recap."""
    import shlex

    from chunkscope.tui.report import gather

    run = _run(str(SAMPLE))
    recap = run.tuning.recap
    # as the workbench selects with its pins and excludes (`_select`)
    selection = run.pipe.recap(
        budget=recap.budget, scorer=recap.scorer, pinned=(0, 6), excluded=(3,), plain=recap.plain
    )
    reasons = [c.reason for c in selection.candidates]
    assert reasons[0] == reasons[6] == "pinned" and reasons[3] == "excluded"
    rep = gather(run.pipe, run.source, run.merged, selection, run.tuning, output="page.html")
    assert ("--pin", "0,6", False) in rep.params and ("--exclude", "3", False) in rep.params
    argv = shlex.split(rep.command)
    assert argv[:2] == ["chunkscope", "report"] and "--pin" in argv and "--exclude" in argv
    monkeypatch.chdir(SAMPLE.parent)  # the command names the file as the page shows it
    again = _run(*argv[2:])
    assert [c.reason for c in again.selection.candidates] == reasons
    assert again.selection.text == selection.text
    # a run with none says none
    plain = gather(run.pipe, run.source, run.merged, run.selection, run.tuning)
    assert not any(f in ("--pin", "--exclude") for f, _, _ in plain.params)


@pytest.mark.parametrize(("chosen", "session"), [(None, 1), ("0", 0)], ids=["newest", "older"])
async def test_the_workbench_export_of_a_file_of_sessions_runs_the_session_shown(
    isolated: Path, chosen: str | None, session: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 18, F4: a page exported from the workbench on a ChatGPT export's older
    conversation said `chunkscope report conversations.json -o ...`, which reports the
    newest one. The command carries `--session N` of the conversation shown (the newest's
    too: a conversation added to the file later changes nothing), and running it writes
    a page of the same conversation."""
    from chunkscope.tui.screens.choose import ChooseScreen
    from chunkscope.tui.screens.prompt import PromptScreen
    from tests.data.make_reader_fixtures import chatgpt_export
    from tests.pilot import SIZE, make_app, settled, until

    export = isolated / "conversations.json"
    export.write_text(json.dumps(chatgpt_export(), indent=1), encoding="utf-8")
    app = make_app(export)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        screen = app.screen
        assert isinstance(screen, ChooseScreen)
        screen.dismiss(chosen)  # the dialog's choice: the older one, or escape
        await until(pilot, lambda: not isinstance(app.screen, ChooseScreen))
        await until(
            pilot,
            lambda: (
                app.pipe is not None
                and app.pipe.params.session == (None if chosen is None else int(chosen))
            ),
        )
        await settled(pilot, app)
        await until(pilot, lambda: app.selection is not None)
        shown = " ".join(t.text for t in app.workbench.view.source.turns)
        assert ("tide pool" in shown) == (session == 0), shown
        app.export("report")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")
        target = isolated / "conversations.report.html"
        await until(pilot, target.exists)
    page = target.read_text(encoding="utf-8")
    command = _same_run(page)
    assert command[:3] == ["chunkscope", "report", "conversations.json"], command
    assert command[command.index("--session") + 1] == str(session), command
    # the command reports the conversation the page shows
    target.rename(isolated / "exported.html")
    assert main(command[1:]) == 0
    capsys.readouterr()
    again = target.read_text(encoding="utf-8")
    for words in ("tide pool", "Tide pools", "Cache test"):
        assert again.count(words) == page.count(words), words
    assert _same_run(again) == command
    articles = re.findall(r"<article class=\"chunk.*?</article>", page, re.S)
    assert articles and articles == re.findall(r"<article class=\"chunk.*?</article>", again, re.S)


def test_the_workbench_command_says_what_differs_from_the_defaults() -> None:
    """`run_flags`: the options beside the knobs a workbench run's command needs."""
    from chunkscope.engine.pipeline import EmbedderSpec, PipelineParams, SummarizerSpec
    from chunkscope.tui.report import run_flags

    assert run_flags(PipelineParams()) == []
    assert run_flags(PipelineParams(), [(0, "only")]) == []  # one session: nothing to pick
    assert run_flags(PipelineParams(), [(3, "newest"), (0, "older")]) == ["--session", "3"]
    params = PipelineParams(
        strict=True,
        input_format="chatgpt-export",
        session=0,
        tokenizer="o200k_base",
        embedder=EmbedderSpec(name="openai", model="text-embedding-3-small"),
        summarizer=SummarizerSpec(name="llm", model="gpt-4o-mini"),
    )
    assert run_flags(params, [(1, "newest"), (0, "older")]) == [
        "--strict",
        "--input-format",
        "chatgpt-export",
        "--session",
        "0",
        "--tokenizer",
        "o200k_base",
        "--embedder",
        "openai",
        "--model",
        "text-embedding-3-small",
        "--summarizer",
        "llm",
        "--summary-model",
        "gpt-4o-mini",
    ]


def test_the_cli_command_keeps_the_session_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.data.make_reader_fixtures import chatgpt_export

    monkeypatch.chdir(tmp_path)
    Path("conversations.json").write_text(json.dumps(chatgpt_export()), encoding="utf-8")
    assert main(["report", "conversations.json", "--session", "0", "-o", "r.html"]) == 0
    capsys.readouterr()
    page = Path("r.html").read_text(encoding="utf-8")
    assert _same_run(page) == [
        "chunkscope",
        "report",
        "conversations.json",
        "--session",
        "0",
        "-o",
        "r.html",
    ]
    assert "tide pool" in page and "Cache test" not in page  # the older conversation
