"""Rebuild the documentation files in this folder from the copies installed on the machine
they were made on (Debian 12 packages nodejs 20.20.2 docs, python3-pip 23.0.1+dfsg-1, cmake-data
3.25.1; npm 11.19.1 installed globally; syrupy 4.8.0 wheel metadata). See ../SOURCES.md.
Only headings are rewritten (front matter -> "# Title", reStructuredText underlines -> "#");
the text itself is copied unchanged.

Usage: python bench/retrieval_data/docs/build_docs.py [--site-packages DIR]
"""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE = Path("/usr/share/doc/nodejs/api")
NPM = Path("/usr/lib/node_modules/npm/docs/content")
PIP = Path("/usr/share/doc/python3-pip/html/topics")
CMAKE = Path("/usr/share/cmake-3.25/Help/release")

NPM_BOOK = [  # "Using npm": a multi-chapter guide
    "using-npm/developers",
    "using-npm/package-spec",
    "using-npm/scope",
    "using-npm/registry",
    "using-npm/scripts",
    "using-npm/workspaces",
    "using-npm/dependency-selectors",
    "using-npm/logging",
    "using-npm/orgs",
    "using-npm/removal",
    "configuring-npm/folders",
    "configuring-npm/npmrc",
    "configuring-npm/install",
    "configuring-npm/package-lock-json",
    "configuring-npm/npm-shrinkwrap-json",
]
NPM_COMMANDS = [  # man pages of section 1
    "npm-ci",
    "npm-uninstall",
    "npm-update",
    "npm-ls",
    "npm-outdated",
    "npm-audit",
    "npm-exec",
    "npx",
    "npm-run",
    "npm-pack",
    "npm-publish",
    "npm-version",
    "npm-cache",
    "npm-prune",
]
PIP_TOPICS = [
    "authentication",
    "caching",
    "configuration",
    "dependency-resolution",
    "more-dependency-resolution",
    "https-certificates",
    "local-project-installs",
    "python-option",
    "repeatable-installs",
    "secure-installs",
    "vcs-support",
]
CMAKE_RELEASES = ["3.25", "3.24", "3.23", "3.22", "3.21"]
RST_LEVEL = {"*": "#", "=": "##", "-": "###", "^": "####", "~": "#####"}


def read(path: Path) -> str:
    if path.exists():
        return path.read_text(encoding="utf-8")
    return gzip.open(str(path) + ".gz", "rt", encoding="utf-8").read()


def npm_page(rel: str, level: str) -> str:
    text = read(NPM / f"{rel}.md")
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    meta = dict(line.split(": ", 1) for line in m.group(1).splitlines() if ": " in line)
    body = text[m.end() :].strip("\n")
    return f"{level} {meta['title']}\n\n{meta.get('description', '')}\n\n{body}\n"


def rst_headings(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and nxt
            and len(set(nxt)) == 1
            and nxt[0] in RST_LEVEL
            and len(nxt) >= len(line.rstrip())
            and not line.startswith(" ")
        ):
            out.append(f"{RST_LEVEL[nxt[0]]} {line.strip()}")
            i += 2
            continue
        if line.startswith((".. only::", "  .. contents::")):
            i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--site-packages", default="/work/venv/lib/python3.11/site-packages")
    args = ap.parse_args()

    for name in ("child_process", "deprecations"):
        (HERE / f"nodejs-{name}.md").write_text(read(NODE / f"{name}.md"), encoding="utf-8")

    book = [
        "# Using npm\n\nThe npm guides (sections 5 and 7 of the npm documentation), "
        "one chapter each.\n"
    ]
    book += [npm_page(rel, "#") for rel in NPM_BOOK]
    (HERE / "npm-using-npm-book.md").write_text("\n".join(book), encoding="utf-8")

    cmds = ["# npm command reference\n\nManual pages of npm CLI commands, one section each.\n"]
    cmds += [npm_page(f"commands/{name}", "##") for name in NPM_COMMANDS]
    (HERE / "npm-cli-commands.md").write_text("\n".join(cmds), encoding="utf-8")

    topics = [
        '# pip topic guides\n\nThe "Topic Guides" of the pip user documentation, concatenated.\n'
    ]
    topics += [read(PIP / f"{name}.md").strip("\n") + "\n" for name in PIP_TOPICS]
    (HERE / "pip-topic-guides.md").write_text("\n".join(topics), encoding="utf-8")

    notes = [rst_headings(read(CMAKE / f"{v}.rst")) for v in CMAKE_RELEASES]
    (HERE / "cmake-release-notes-3.21-3.25.md").write_text("\n".join(notes), encoding="utf-8")

    meta = Path(args.site_packages) / "syrupy-4.8.0.dist-info" / "METADATA"
    readme = meta.read_text(encoding="utf-8").split("\n\n", 1)[1]
    (HERE / "syrupy-README.md").write_text(readme, encoding="utf-8")


if __name__ == "__main__":
    main()
