"""The README and the manual in docs/: every page is reachable from the README, every
relative link (and its #anchor) resolves, every generated block is what
docs/generate.py makes now (so no quoted output or figure drifts from the code), the
README's two commands are the ones that work (the test command is .ci/run's, verbatim),
and the README stays a front page.

The generated blocks run a few commands in this process (a recap and a search on the
bundled sample log, a sweep on a generated one): about 5 s, the price of docs that
cannot go stale.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [*sorted(ROOT.glob("*.md")), *sorted(DOCS.glob("*.md"))]

pytestmark = pytest.mark.usefixtures("isolated")

LINK = re.compile(r"!?\[(?:[^\]`]|`[^`]*`)*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^ *(```|~~~).*?^ *\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """The text without fenced blocks and code spans (a link inside them is not one)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _links(page: Path) -> list[str]:
    return LINK.findall(_prose(page.read_text()))


def slug(heading: str) -> str:
    """The anchor a code host (GitHub) makes of a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in FENCE.sub("", page.read_text()).splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def test_the_slug_is_the_code_hosts() -> None:
    assert slug("`chunkscope chunk --embed --merge seed`: the seed's merge loop") == (
        "chunkscope-chunk---embed---merge-seed-the-seeds-merge-loop"
    )
    assert slug("Fact recall (measured)") == "fact-recall-measured"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading makes #{anchor}")
    assert not broken, f"{page.name}: {broken}"


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    reached, todo = {README}, [README]
    while todo:
        page = todo.pop()
        for target in _links(page):
            path = target.partition("#")[0]
            if not path or re.match(r"[a-z]+:", path):
                continue
            dest = (page.parent / path).resolve()
            if dest.suffix == ".md" and dest.exists() and dest not in reached:
                reached.add(dest)
                todo.append(dest)
    missing = sorted(p.name for p in DOCS.glob("*.md") if p.resolve() not in reached)
    assert not missing, f"not linked from the README or a page it reaches: {missing}"


def _generate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_blocks_are_fresh() -> None:
    generate = _generate()
    names = {
        m.group("name") for p in generate.PAGES for m in generate.BLOCK.finditer(p.read_text())
    }
    assert names == set(generate.BLOCKS), "every generator is used, every block has one"
    assert generate.stale() == [], "run: python docs/generate.py"


def test_a_stale_block_is_found(tmp_path: Path) -> None:
    generate = _generate()
    page = tmp_path / "page.md"
    page.write_text("x\n<!-- generated: keys -->\n| `q` | quit |\n<!-- end: keys -->\n")
    assert generate.stale((page,)) == [f"{page}: keys"]
    made: dict[str, str] = {}
    text = page.read_text()
    fresh = generate.regenerate(text, made)
    assert fresh != text and "| `?` / `f1` |" in fresh
    assert generate.regenerate(fresh, made) == fresh


def _sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)


def test_the_readme_opens_with_the_two_commands() -> None:
    text = README.read_text()
    first, second = _sh_blocks(text)[:2]
    assert text.index("```sh") < text.index("\n## "), "the commands come before any section"
    run_app = shlex.split(first.strip())
    assert run_app[-2:] == ["chunkscope", "sample_logs/cache_refactor.jsonl"]
    assert (ROOT / run_app[-1]).is_file()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    command = ci[ci.index("# The README's test command, exactly:") + 1]
    assert second.strip().endswith(command), ".ci/run runs the README's test command"


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 200
    assert "docs/workbench.svg" in README.read_text() and (DOCS / "workbench.svg").is_file()


#: A knob's default quoted in prose beside its flag: "`--topic-min-chars` (500)",
#: "(`--topic-unit-chars`, 20)", "`--topic-window` characters (1500)".
QUOTED_DEFAULT = re.compile(r"`(--[a-z-]+)`(?:,| characters)? \(?(\d[\d,.]*\d|\d)")


def test_defaults_quoted_beside_their_flags_are_the_declared_ones() -> None:
    from chunkscope.engine.config.tuning import PROFILE_CLASSES
    from chunkscope.engine.params import knobs
    from chunkscope.engine.search import SearchParams

    defaults = {k.flag: k.default for cls in (*PROFILE_CLASSES, SearchParams) for k in knobs(cls)}
    quoted, wrong = 0, []
    for page in PAGES:
        for m in QUOTED_DEFAULT.finditer(page.read_text()):
            flag, number = m.group(1), float(m.group(2).replace(",", ""))
            if flag in defaults and defaults[flag] is not None:
                quoted += 1
                if number != float(defaults[flag]):
                    wrong.append(f"{page.name}: {m.group(0)} (declared: {defaults[flag]})")
    assert quoted >= 5, "the pattern still finds the defaults the docs quote"
    assert not wrong, wrong


def test_workbench_page_names_the_commands_that_keep_tool_calls() -> None:
    """docs/workbench.md said every command that chunks a log collapses tool calls by
    default; the commands whose default keeps them (`COLLAPSE_DEFAULTS`, read off the
    parser) are named as keeping them (walk 9 #9)."""
    import argparse

    from chunkscope.engine.recap.collapse import collapse_by_default
    from chunkscope.tui.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    keep = sorted(
        name
        for name, sub in subs.choices.items()
        if sub.get_default("collapse_purpose") is not None
        and not collapse_by_default(sub.get_default("collapse_purpose"))
    )
    assert keep  # chunk, search, eval, sweep, tune
    page = " ".join((ROOT / "docs" / "workbench.md").read_text(encoding="utf-8").split())
    assert "every command that chunks a log does the same" not in page
    said = page.split("keep them as turns by default")[0].rsplit("while", 1)[1]
    assert sorted(re.findall(r"`(\w+)`", said)) == keep
