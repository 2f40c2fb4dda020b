"""Walk 61, documentation sets: search's cut lines, blank-line runs, SVG, list items'
fences. Each test fails on the code before its fix.

F8: `search` cut a chunk to the budget's rest and said lines its part did not hold: a part
ending on the next paragraph's bare role label (``...\\nDoc:``, or half of it, ``Doc``)
claimed that paragraph's lines, and under ``--enrich`` a part holding only the enrichment
header (no line of the file) was kept with a source range.

F5: a run of blank lines in a document left, after the split at ``\n\n``, a paragraph
opening on an empty line its lines did not hold (``Doc: \nPara two``, lines from the
next) or, under three, an empty ``Doc: `` paragraph ending on a blank line, which a
heading alone before it took as its text. Outside ``--merge seed`` (the seed's split, kept
bit for bit) the blank lines are dropped.

F13: a fenced block indented in a list item (```` ``` ```` at 4 spaces under ``2. ``) was cut
at its blank lines by the paragraph split, which knew fences at up to 3 spaces only: a
chunk started inside the code with a ``Doc:`` label it never had, and a recap ended on a
lone fence. In a document such a block is one paragraph when a bare marker at its
indentation closes it.

F6: an SVG image (an ``<svg`` root, or ``<?xml`` then ``<svg``) was read as a markdown
document by every command and the workbench's typed path; it is refused as the other
images are, by the rule the PNG refusal uses (`engine.read.source.file_kind`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.engine.chunk.strategies.markdown import enrichment_header
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.search.core import SearchIndex, SearchParams
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

COUNTER = get_counter()


def _cut(chunk: Chunk, query: str, budget: int):  # type: ignore[no-untyped-def]
    index = SearchIndex([chunk], [0], COUNTER)
    return index.search(query, SearchParams(budget=budget, neighbours=0))


def test_f8_a_cut_part_ends_on_its_last_words_not_on_the_next_label() -> None:
    heading = "### Code Refactoring of the bundled dev server and its lazy bundling"
    rest = "* **bundled-dev:** avoid injecting server values into the lazy bundling client"
    chunk = Chunk([Turn(None, "Doc", heading, 71, None, 71), Turn(None, "Doc", rest, 73, None, 73)])
    first = COUNTER.count(f"Doc: {heading}")
    labelled = COUNTER.count(f"Doc: {heading}\nDoc: ")
    for budget in range(first, labelled + 2):
        answer = _cut(chunk, "lazy bundling", budget)
        (result,) = answer.results
        assert result.truncated
        assert result.text == f"Doc: {heading}", budget
        assert result.lines == (71, 71), budget


def test_f8_a_part_holding_only_the_enrichment_header_is_left_out() -> None:
    header = enrichment_header(
        "astro-actions.mdx", "Handling returned data > Handling an `ActionError`", 11, 30,
        "fine", "knowledge_base",
    )  # fmt: skip
    body = "#### Handling an `ActionError`\n\nThrow an ActionError from the action handler."
    chunk = Chunk([Turn(None, "Doc", header + body, 234, None, 236)])
    whole = COUNTER.count(f"Doc: {header}")
    for budget in range(8, whole + 1):
        answer = _cut(chunk, "action handler", budget)
        assert answer.results == (), (budget, answer.results)
        assert answer.left_out == 0
    answer = _cut(chunk, "action handler", COUNTER.count(f"Doc: {header}#### Handling an"))
    (result,) = answer.results
    assert result.truncated and result.lines == (234, 234), result


def _chunks(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> list[dict]:
    assert main(["chunk", str(path), *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["chunks"]


def _check_lines(chunks: list[dict], source: list[str]) -> None:
    """Every chunk's text lines are file lines inside its `lines`, first and last held."""
    for c in chunks:
        lo, hi = c["lines"]
        held = [ln[5:] if ln.startswith("Doc: ") else ln for ln in c["text"].split("\n")]
        assert all(ln.strip() for ln in held), c  # no empty paragraph, no empty line
        assert held[0] == source[lo - 1] and held[-1] == source[hi - 1], c


@pytest.mark.parametrize("blanks", [2, 3, 4, 5])
def test_f5_a_run_of_blank_lines_leaves_no_empty_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blanks: int
) -> None:
    gap = "\n" * (blanks + 1)
    text = (
        "# Title\n\nIntro paragraph long enough to stand alone as its own chunk of text, yes.\n"
        f"\n## Opinions{gap}A quote that follows the blank lines, long enough to be alone.{gap}"
        "Para two after the blank lines, long enough to be its own chunk, certainly so.\n"
    )
    path = tmp_path / "doc.md"
    path.write_text(text)
    source = text.split("\n")
    for args in ([], ["--min-chars", "0"], ["--embed"]):
        chunks = _chunks(capsys, path, *args)
        _check_lines(chunks, source)
        opinions = next(c for c in chunks if "## Opinions" in c["text"])
        assert "A quote" in opinions["text"]  # the heading's text in its unit


#: A reduced copy of walk 61's mdx-fm.mdx (Astro's actions guide: numbered steps).
LIST_FENCES = """\
# Actions

1. Create a `src/actions/index.ts` file and export a `server` object.

    ```ts title="src/actions/index.ts"
    export const server = {
      // action declarations
    }
    ```

2. Import the `defineAction()` utility from `astro:actions`.

    ```ts ins={1-2} title="src/actions/index.ts"
    import { defineAction } from 'astro:actions';

    export const server = {
      // action declarations
    }
    ```

3. Call the action from the page, which is the last step of this guide.
"""


def test_f13_a_list_items_fence_is_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "actions.mdx"
    path.write_text(LIST_FENCES)
    source = LIST_FENCES.split("\n")
    for args in (["--min-chars", "0"], ["--embed"]):
        for c in _chunks(capsys, path, *args):
            held = [ln.removeprefix("Doc: ") for ln in c["text"].split("\n")]
            fences = [ln for ln in held if ln.strip().startswith("```")]
            assert len(fences) % 2 == 0, c  # no chunk opens or closes a block alone
            assert not c["text"].startswith("Doc:     export"), c
            assert held[-1] == source[c["lines"][1] - 1], c
    code = [c for c in _chunks(capsys, path, "--min-chars", "0") if "defineAction }" in c["text"]]
    assert [c["lines"] for c in code] == [[13, 19]]


def test_f13_an_indented_fence_with_no_close_opens_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 4-space fence line that nothing closes (an indented code block showing a fence's
    first line) does not join the rest of the section into one paragraph."""
    text = (
        "# Fences\n\nA fence opens with three backticks, as this code block shows it:\n\n"
        "    ```python\n\nThe next paragraph is prose, long enough to be its own chunk.\n\n"
        "And so is this one, which closes the section with a few more words.\n"
    )
    path = tmp_path / "fences.md"
    path.write_text(text)
    chunks = _chunks(capsys, path, "--min-chars", "0")
    assert [c["lines"] for c in chunks][-2:] == [[7, 7], [9, 9]]


LOGO = (
    '<svg viewBox="0 0 23 14" fill="none" xmlns="http://www.w3.org/2000/svg">\n'
    '  <path d="M20.7482 0H18.8887C21.641 3.93959" fill="white"/>\n</svg>\n'
)
DECLARED = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n'
    '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg width="10"></svg>\n'
)


@pytest.mark.parametrize("content", [LOGO, DECLARED], ids=["root", "declared"])
@pytest.mark.parametrize("command", ["chunk", "recap", "search", "report"])
def test_f6_an_svg_is_refused_as_an_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, command: str
) -> None:
    path = tmp_path / "logo.svg"
    path.write_text(content)
    args = {"search": ["hello"], "report": ["-o", str(tmp_path / "r.html")]}.get(command, [])
    assert main([command, str(path), *args]) == 2
    err = capsys.readouterr().err
    assert "looks like an SVG image, which chunkscope does not read" in err, err
    assert err.count("\n") == 1, err


def test_f6_markdown_that_shows_svg_is_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "logo.md"
    path.write_text("# Logo\n\nThe logo is drawn so:\n\n```svg\n" + LOGO + "```\n")
    assert _chunks(capsys, path)


@pytest.mark.usefixtures("isolated")
async def test_f6_the_workbench_refuses_a_typed_svg_with_a_notification(tmp_path: Path) -> None:
    from tests.pilot import SAMPLE, SIZE, make_app, until

    path = tmp_path / "logo.svg"
    path.write_text(LOGO)
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.drawn_generation >= 1)
        await until(pilot, app.workers_idle)
        view = app.workbench.view
        app.open_path(str(path))

        def errors() -> list[str]:
            return [n.message for n in app._notifications if n.severity == "error"]

        await until(pilot, lambda: bool(errors()), timeout=10)
        await until(pilot, app.workers_idle)
        assert any("looks like an SVG image" in e for e in errors()), errors()
        assert app.is_running and app.workbench.view is view
        assert app.pipe is not None and app.pipe.path == str(SAMPLE)
