"""The workbench served to a real browser, and the report opened in one.

Debian's ``chromium`` driven by playwright's Python package (``executable_path``:
playwright cannot download its own browsers here; `.ci/run` installs the package when
it is missing). Skipped, saying why, where either is missing.

With ``CHUNKSCOPE_SCREENSHOTS=DIR`` the tests also write the README's screenshots there
(``docs/``): ``serve.png`` and ``report.png``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_serve import SAMPLE, serving, with_token

#: On one xdist worker (``--dist loadgroup``): the module's Chromium starts once, not once
#: for each worker a test lands on (~2.5 s a start).
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

CHROMIUM = shutil.which("chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
if CHROMIUM is None:
    pytest.skip(
        "no chromium on PATH (Debian: apt-get install chromium; .ci/run installs it)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytest.importorskip("textual_serve", reason="textual-serve is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


#: Where to write the README's screenshots (resolved now: some tests change directory).
SHOTS = os.environ.get("CHUNKSCOPE_SCREENSHOTS")
SHOTS_DIR = Path(SHOTS).resolve() if SHOTS else None


def screenshot(page: Any, name: str, **kwargs: Any) -> None:
    if SHOTS_DIR is not None:
        page.screenshot(path=str(SHOTS_DIR / name), **kwargs)


def wait_for(page: Any, ok: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Poll `ok` while playwright runs the page's events (a sync page needs its calls)."""
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(100)


class Terminal:
    """What the server sent the page's terminal over the websocket: the app's output
    in binary frames (text frames are textual-serve's own messages)."""

    def __init__(self, page: Any) -> None:
        self.data = bytearray()
        self.sent: list[str] = []
        page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        ws.on("framereceived", self._received)
        ws.on("framesent", lambda payload: self.sent.append(str(payload)))

    def _received(self, payload: bytes | str) -> None:
        if not isinstance(payload, str):
            self.data += payload

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


def test_the_served_page_runs_the_workbench_and_answers_keys(browser: Any) -> None:
    with serving(str(SAMPLE)) as (url, _log):
        page = browser.new_page(viewport={"width": 1300, "height": 760})
        term = Terminal(page)
        page.goto(with_token(url + "?fontsize=12"))
        assert page.title() == "chunkscope · cache_refactor.jsonl"
        # The workbench starts in the server's process and draws into the page.
        wait_for(page, lambda: "MERGED" in term.text() and "RECAP" in term.text(), "the workbench")
        wait_for(page, lambda: "┄ cut:" in term.text(), "the merged chunks")
        page.wait_for_selector("body.-first-byte")
        assert page.locator("canvas").count() > 0  # xterm drew it
        page.wait_for_timeout(500)
        screenshot(page, "serve.png")
        # A key pressed in the page reaches the app, which answers: the help screen.
        before = len(term.data)
        page.locator("#terminal").click()
        page.keyboard.press("?")
        wait_for(page, lambda: "stage by stage" in term.text()[before:], "the help screen")
        assert any("stdin" in s for s in term.sent)
        page.close()


def test_a_token_of_any_characters_opens_the_workbench_in_a_browser(browser: Any) -> None:
    """Walk 18, F2: the URL printed for a token set by $CHUNKSCOPE_SERVE_TOKEN opens the
    page, and the cookie it sets lets the websocket in (the workbench draws)."""
    import re

    odd = 'a&b#c d+e/f;g"h=ü,i%2Bj'
    with serving(str(SAMPLE), token=odd) as (_url, log):
        (printed,) = re.findall(r"https?://\S+", log.read_text())
        page = browser.new_page(viewport={"width": 1300, "height": 760})
        term = Terminal(page)
        page.goto(printed)
        wait_for(page, lambda: "MERGED" in term.text() and "RECAP" in term.text(), "the workbench")
        page.close()


def test_the_report_opens_offline_with_chunks_plot_and_recap(
    browser: Any, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from chunkscope.tui.cli import main

    out = isolated / "r.html"
    shutil.copy(SAMPLE, isolated / SAMPLE.name)  # the page names it as given: no long path
    # a size cap that splits topics: the page shows both levels
    assert main(["report", SAMPLE.name, "--max-chars", "3000", "-o", str(out)]) == 0
    capsys.readouterr()
    page = browser.new_page(viewport={"width": 1000, "height": 1100})
    requests: list[str] = []

    def route(r: Any) -> None:
        requests.append(r.request.url)
        if r.request.url == out.as_uri():
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.goto(out.as_uri())
    page.wait_for_load_state("load")
    assert requests == [out.as_uri()]  # the page itself, nothing else
    assert page.title() == "chunkscope report · cache_refactor.jsonl"
    assert page.locator("article.chunk").count() >= 2
    assert page.locator("section.topic").count() >= 2
    plot = page.locator("svg.plot")
    box = plot.bounding_box()
    assert box is not None and box["width"] > 900 and box["height"] > 150
    assert page.locator("svg.plot line.cut").count() == page.locator("article.chunk").count() - 1
    assert page.locator("pre.recap-text").inner_text().strip()
    assert page.get_by_text("What fit the budget").is_visible()
    screenshot(page, "report.png")
    # At a phone's width nothing is wider than the screen; printed, the plot stays.
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.emulate_media(media="print")
    assert plot.is_visible() and page.locator("article.chunk").first.is_visible()
    assert len(page.pdf()) > 10_000
    page.close()


#: The words of the tables' cells broken over two lines: a word (between spaces and
#: hyphens, where a line may break) whose text's boxes have more than one top.
_BROKEN_WORDS = """() => [...document.querySelectorAll('th, td')].flatMap(cell => {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  const broken = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/[^\\s-]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
})"""


def test_the_reports_tables_never_break_a_word_or_a_time(
    browser: Any, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 34, F5: beside a wide column of text, the tables broke their headers and
    short values inside a word (`ind|ex`, `toke|ns`, `over budg|et`, `09:1|3:23`) at
    every window width; walk 35, F2: at a phone's width, the text column's words too
    (`Everythin|g`). Each wraps between words, a time range at its ` - ` at most; a
    table wider than the screen scrolls in its box."""
    from chunkscope.tui.cli import main

    out = isolated / "r.html"
    shutil.copy(SAMPLE, isolated / SAMPLE.name)
    argv = ["report", SAMPLE.name, "--strategy", "markdown", "--max-tokens", "300"]
    assert main([*argv, "-o", str(out)]) == 0
    capsys.readouterr()
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    page.goto(out.as_uri())
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert page.get_by_text("over budget").count() > 5
    flags = """() => [...document.querySelectorAll('dl.facts dd .w')].map(el => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return [el.textContent, new Set([...range.getClientRects()].map(r => r.top)).size];
    })"""
    for width in (1600, 1000, 700, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(_BROKEN_WORDS) == [], width
        # walk 36, F4: a flag in the page's facts broke at its dashes (`--` | `no-collapse`)
        shown = page.evaluate(flags)
        assert ["--no-collapse", 1] in shown and all(n == 1 for _, n in shown), (width, shown)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()


def test_a_chunk_without_summary_fits_a_phone(
    browser: Any, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 35, F5: the badge of a chunk with no summary held the whole reason on one
    line (a badge never wraps): 658 px wide, cut at a phone's edge, the page scrolling
    sideways; and its class was `b-no summary` (two classes, one of them the summary
    paragraph's). The badge says `no summary`, the reason stands in for the summary."""
    from chunkscope.engine.recap.core import NO_SUMMARY_WHY
    from chunkscope.tui.cli import main

    guide = SAMPLE.parent / "architecture_guide.md"
    out = isolated / "r.html"
    shutil.copy(guide, isolated / guide.name)
    assert main(["report", guide.name, "-o", str(out)]) == 0
    capsys.readouterr()
    page = browser.new_page(viewport={"width": 390, "height": 700})
    page.goto(out.as_uri())
    badge = page.locator("span.badge.b-no-summary")
    assert badge.count() >= 1 and badge.first.inner_text() == "no summary"
    why = page.locator("p.summary.muted").first.inner_text()
    assert why.startswith(NO_SUMMARY_WHY.capitalize())
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()


#: The plot's legend items broken over two lines: from each swatch or marker, the words
#: after it up to the next marker (an explanation in brackets is not the item's); an item
#: whose words' boxes have more than one top, or whose marker is not on its words' line.
_BROKEN_LEGEND_ITEMS = """() => {
  const legend = document.querySelector('svg.plot + p');
  const markers = [...legend.querySelectorAll('.swatch, .dots')];
  const items = markers.map(m => ({marker: m, words: []}));
  const walker = document.createTreeWalker(legend, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const owner = items.filter(
      i => i.marker.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
    if (!owner || owner.closed) continue;
    const text = node.data.split('(')[0];
    if (text.length < node.data.length) owner.closed = true;
    for (const m of text.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      owner.words.push([m[0], ...range.getClientRects()]);
    }
  }
  return items.flatMap(({marker, words}) => {
    const label = words.map(w => w[0]).join(' ');
    const rects = words.flatMap(w => w.slice(1));
    const tops = new Set(rects.map(r => Math.round(r.top)));
    const box = marker.getBoundingClientRect();
    const middle = (box.top + box.bottom) / 2;
    const beside = rects.length > 0 && rects[0].top <= middle && middle <= rects[0].bottom;
    return tops.size === 1 && beside ? [] : [label];
  });
}"""


def test_the_plots_legend_wraps_between_items_only(
    browser: Any, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 37, F3: the legend under the plot was text between swatches, broken anywhere:
    `gold found ×` | `1` at 700 px, `gold` | `missed × 1` at a phone's, a threshold's
    marker and `pass` | `1 threshold 0.0987`. Each item (marker, label, count) stays on
    one line; the page never scrolls sideways."""
    from chunkscope.tui.cli import main

    out = isolated / "r.html"
    gold = isolated / "gold.json"
    gold.write_text('{"starts": [1, 44, 90, 129, 150]}')
    shutil.copy(SAMPLE, isolated / SAMPLE.name)
    argv = ["report", SAMPLE.name, "--merge", "seed", "--gold", str(gold), "-o", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    page.goto(out.as_uri())
    legend = page.locator("svg.plot + p")
    for shown in ("cut ×", "gold found ×", "gold missed ×", "pass 1 threshold"):
        assert shown in legend.inner_text()
    for width in sorted({*range(1600, 319, -40), 1000, 700, 390}, reverse=True):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(_BROKEN_LEGEND_ITEMS) == [], width
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


def test_a_long_name_in_the_same_run_fits_a_phone(
    browser: Any, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 39, F1: a workbench export with marks names its marks file by 64 hex digits;
    "The same run" held it unbroken and the page was 601 px wide at 390 (it scrolled
    sideways). A token longer than the line wraps; the command reads the same."""
    from chunkscope.tui.cli import main

    out = isolated / "r.html"
    name = "c198ea50e5fcbfbeda278367bab54710016d23639ed3caec2205635472671a18.json"
    (isolated / name).write_text('{"starts": [1, 44, 90]}')
    shutil.copy(SAMPLE, isolated / SAMPLE.name)
    assert main(["report", SAMPLE.name, "--gold", name, "-o", str(out)]) == 0
    capsys.readouterr()
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(out.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    run = page.locator("p.run code").inner_text()
    assert run == f"chunkscope report {SAMPLE.name} --gold {name} -o r.html"
    page.close()


def test_the_reports_tables_fit_their_box_with_long_paths(
    browser: Any, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 40, F1: one long path or rule in an abstract cell set its column's least
    width: the chunk table was 844 px in a 668-px box at 700 (1,079 in 968 at 1000 on a
    real session), its last columns off to the side. Such a word breaks at its
    separators; the table fits its box, and a word of ordinary length stays whole."""
    from chunkscope.tui.cli import main
    from tests.logs import seed_log

    rule = "=" * 40
    path = (
        "/Users/someone/projects/graph-monitor/priv/repo/migrations/"
        "20260211203856_add_annotation_message_refs_and_source.exs"
    )
    log = seed_log(
        isolated,
        [
            ("user", f"Please look at {path} and tell me what the migration adds to the schema."),
            ("assistant", f"The migration {path} adds two columns. {rule} Both are indexed."),
            ("user", "Thanks, now write the tests for the annotation references please."),
            ("assistant", "Done: the tests cover both columns and the index on the references."),
        ],
        "paths.jsonl",
    )
    out = isolated / "r.html"
    assert main(["report", log.name, "-o", str(out)]) == 0
    capsys.readouterr()
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    page.goto(out.as_uri())
    for width in (1000, 700):
        page.set_viewport_size({"width": width, "height": 800})
        over = page.evaluate(
            """() => [...document.querySelectorAll('div.table')]
                .filter(d => d.scrollWidth > d.clientWidth + 1)
                .map(d => [d.scrollWidth, d.clientWidth])"""
        )
        assert over == [], (width, over)
        assert "Both are indexed." in page.content()
    page.close()
