"""A labelled development set for topic segmentation, generated from text on this machine.

    python bench/segdata.py OUT_DIR [--sessions 6] [--docs 3] [--seed 1]

Two kinds of file, each with a gold file (``NAME.gold.json``: the 1-based lines where a
topic starts):

- **agent sessions** (the seed's JSONL): 8 episodes, each on another topic: a user
  question, thinking, tool calls with their results, answers, sometimes a follow-up
  question on the same topic (so a user turn is not always a topic change), with
  pauses drawn from one distribution within and between episodes. Every other
  session has long episodes, as a coding agent's: two to five rounds of thinking and
  a tool call (read, grep, shell) whose result is the topic's source code where it
  has some (standard-library modules), 3 to 10 KB an episode against about 2 KB;
- **markdown documents**: 6 unrelated documents of one documentation set stitched
  together, in three variants (the file's ``variant``):

  - ``titled``: each document as it is (its level-1 title, its front matter);
  - ``notitle``: its front matter and its title line removed (a level-1 ATX or setext
    heading, or a pandoc ``%`` line, at its top), and its headings shifted so that its
    shallowest one is at level 2 or 3 (drawn per file): a document then begins at its
    introduction or at a level-2/3 heading, as when documents are concatenated from a
    site whose titles lived in front matter;
  - ``frontmatter``: the title removed and put in YAML (``---``) or TOML (``+++``)
    front matter, as static-site generators keep it.

Sessions' topics come from two sources (the READMEs of the installed Python
distributions, their METADATA, and the docstrings of standard-library modules), split in
two halves by a hash of their names: ``dev`` files use one half and ``heldout`` files the
other. Documents come from whole documentation sets (``DOC_CORPORA``), each either dev or
held out, so nothing scored as held out was seen, even in part, while tuning:

- dev: ``readme`` (the markdown READMEs of installed Python distributions),
  ``stdlib`` (markdown written from standard-library docstrings), ``nodeapi`` (Node.js's
  API reference, ``/usr/share/doc/nodejs/api/*.md`` of Debian's ``nodejs``),
  ``nodeguide`` (the same package's other markdown: contributor guides, the README),
  ``pyman`` (manual pages written from standard-library docstrings with the same
  section names in every page: "Synopsis", "Description", "Functions", "See Also");
  ``cmake`` and ``cmakeref`` (CMake's reStructuredText help, converted to markdown
  headings), ``cmakerst`` (CMake's pages as they are: raw reStructuredText, its titles
  under and over lines of punctuation; the ``titled`` variant only), ``readmealt`` (the
  READMEs with setext and HTML headings instead of ATX ones);
- held out: ``npm`` (npm's ``docs/content``, in ``$(npm root -g)/npm``: front matter,
  sections at level 3, every command page opening with "Synopsis"), ``pipdocs`` (pip's
  MyST docs, ``/usr/share/doc/python3-pip/html``), ``debian`` (the other markdown files
  under ``/usr/share/doc``: systemd's Jekyll pages, READMEs and NEWS of C libraries).

A document longer than ``DOC_MAX_CHARS`` is cut at its last heading before that size. No
file is committed: everything is made by this script (a set missing on a machine is
skipped and said so).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import inspect
import json
import random
import re
import sys
from datetime import datetime, timedelta
from email.parser import Parser
from pathlib import Path

STDLIB = [
    "json",
    "csv",
    "sqlite3",
    "asyncio",
    "re",
    "pathlib",
    "argparse",
    "datetime",
    "collections",
    "itertools",
    "functools",
    "logging",
    "subprocess",
    "threading",
    "socket",
    "email",
    "unittest",
    "zipfile",
    "tarfile",
    "hashlib",
    "random",
    "statistics",
    "decimal",
    "fractions",
    "heapq",
    "bisect",
    "shutil",
    "tempfile",
    "textwrap",
    "string",
    "struct",
    "uuid",
    "urllib.parse",
    "http.client",
    "html",
    "base64",
    "gzip",
    "pickle",
    "shelve",
    "queue",
    "contextlib",
    "dataclasses",
    "enum",
    "typing",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "calendar",
    "locale",
    "gettext",
    "difflib",
    "pprint",
    "codecs",
    "unicodedata",
    "fnmatch",
    "glob",
    "filecmp",
    "configparser",
    "secrets",
    "hmac",
    "ssl",
    "selectors",
    "signal",
    "mmap",
    "ctypes",
    "array",
    "weakref",
    "copy",
    "operator",
    "math",
    "cmath",
    "numbers",
    "abc",
    "io",
    "os",
    "time",
    "sched",
]

Topic = tuple[str, list[str]]  # (name, paragraphs)


def _paragraphs(text: str) -> list[str]:
    out = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if len(block) >= 60 and not block.startswith(("```", "    ", ">>>", "|", "<")):
            out.append(" ".join(block.split()))
    return out


def readme_topics() -> list[Topic]:
    """(distribution, paragraphs) from the markdown READMEs of installed distributions."""
    import glob
    import site
    import sysconfig

    dirs = {sysconfig.get_paths()["purelib"], *site.getsitepackages()}
    seen: dict[str, list[str]] = {}
    for d in sorted(dirs):
        for meta in sorted(glob.glob(f"{d}/*.dist-info/METADATA")):
            msg = Parser().parsestr(Path(meta).read_text(encoding="utf-8", errors="replace"))
            body = msg.get_payload()
            name = (msg.get("Name") or "").lower()
            if isinstance(body, str) and name and name not in seen:
                paras = _paragraphs(body)
                if len(paras) >= 6:
                    seen[name] = paras
    return sorted(seen.items())


def readme_markdown() -> dict[str, str]:
    import glob
    import site
    import sysconfig

    out: dict[str, str] = {}
    for d in sorted({sysconfig.get_paths()["purelib"], *site.getsitepackages()}):
        for meta in sorted(glob.glob(f"{d}/*.dist-info/METADATA")):
            msg = Parser().parsestr(Path(meta).read_text(encoding="utf-8", errors="replace"))
            body = msg.get_payload()
            name = (msg.get("Name") or "").lower()
            if (
                isinstance(body, str)
                and "markdown" in (msg.get("Description-Content-Type") or "").lower()
                and len(body) > 2500
                and name not in out
            ):
                out[name] = body.strip()
    return out


def stdlib_topics() -> list[Topic]:
    """(module, paragraphs) from a standard-library module's docstrings."""
    out = []
    for name in STDLIB:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        texts = [inspect.getdoc(module) or ""]
        for attr, obj in sorted(vars(module).items()):
            if attr.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            doc = inspect.getdoc(obj)
            if doc:
                texts.append(f"{attr}: {doc}")
        paras = _paragraphs("\n\n".join(texts))
        if len(paras) >= 6:
            out.append((name, paras))
    return out


def stdlib_markdown(topic: Topic) -> str:
    name, paras = topic
    lines = [f"# The {name} module", ""]
    for i, p in enumerate(paras[:24]):
        if i and i % 4 == 0:
            lines += [f"## {p.split(':')[0][:40].strip() or 'More'}", ""]
        lines += [p, ""]
    return "\n".join(lines).strip()


def pyman_markdown(topic: Topic, others: list[str]) -> str:
    """A manual page for a standard-library module, as command references are written:
    the same section names in every page ("Synopsis", "Description", "Functions",
    "Classes", "See Also"), some pages without a synopsis or without functions."""
    name, paras = topic
    pick = hashlib.sha256(name.encode()).digest()
    funcs = [p for p in paras[1:] if p.split(":")[0].islower()]
    classes = [p for p in paras[1:] if p[:1].isupper() and ":" in p[:40]]
    lines = [f"# {name}", ""]
    if pick[1] % 4:
        lines += ["## Synopsis", "", "```python", f"import {name}", "```", ""]
    lines += ["## Description", "", paras[0], ""]
    for title, items in (("Functions", funcs), ("Classes", classes)):
        if items and (title == "Classes" or pick[2] % 3):
            lines += [f"## {title}", ""]
            for p in items[:5]:
                head, _, body = p.partition(":")
                lines += [f"### `{head.strip()[:40]}`", "", body.strip() or p, ""]
    see = [o for o in others if o != name][pick[3] % 7 :][:3]
    lines += ["## See Also", ""] + [f"* [{o}](/library/{o})" for o in see]
    return "\n".join(lines).strip()


def half(name: str) -> str:
    """``dev`` or ``heldout``, from a hash of the topic's name (stable everywhere)."""
    return "dev" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "heldout"


# --------------------------------------------------------------------------- sessions


def _episode(rng: random.Random, name: str, paras: list[str], clock: list[datetime]) -> list[dict]:
    def ts() -> str:
        clock[0] += timedelta(seconds=rng.choice([5, 20, 60, 240, 900, 2400]))
        return clock[0].strftime("%Y-%m-%dT%H:%M:%S")

    pick = iter(rng.sample(paras, min(len(paras), 9)))

    def para() -> str:
        return next(pick, paras[0])

    msgs: list[dict] = [
        {
            "role": "user",
            "content": f"I have a question about {name}. {para()[:300]}",
            "timestamp": ts(),
        }
    ]
    call = f"call_{rng.randrange(10**6)}"
    msgs.append(
        {
            "role": "assistant",
            "content": "",
            "reasoning": para(),
            "timestamp": ts(),
            "tool_calls": [
                {
                    "id": call,
                    "type": "function",
                    "function": {
                        "name": "read",
                        "arguments": json.dumps({"path": f"docs/{name}.md"}),
                    },
                }
            ],
        }
    )
    msgs.append(
        {
            "role": "tool",
            "tool_call_id": call,
            "content": para() + "\n\n" + para(),
            "timestamp": ts(),
        }
    )
    msgs.append({"role": "assistant", "content": para() + "\n\n" + para(), "timestamp": ts()})
    if rng.random() < 0.6:  # a follow-up on the same topic: a user turn that is no topic change
        msgs.append({"role": "user", "content": f"And {para()[:200]}", "timestamp": ts()})
        msgs.append({"role": "assistant", "content": para(), "timestamp": ts()})
    return msgs


def _long_episode(
    rng: random.Random, name: str, paras: list[str], code: list[str], clock: list[datetime]
) -> list[dict]:
    """A longer episode, as a coding agent's: a question, then two to five rounds of
    thinking and a tool call (a file read, a grep, a shell command) whose result is the
    topic's source code or text, short progress notes, an answer, and sometimes a
    follow-up question with its own tool round."""

    def ts() -> str:
        clock[0] += timedelta(seconds=rng.choice([3, 10, 30, 90, 300, 1200]))
        return clock[0].strftime("%Y-%m-%dT%H:%M:%S")

    def para() -> str:
        return rng.choice(paras)

    def result() -> str:
        if code and rng.random() < 0.6:
            return rng.choice(code)
        return para() + "\n\n" + para()

    def tool_round(msgs: list[dict]) -> None:
        call = f"call_{rng.randrange(10**6)}"
        tool, args = rng.choice(
            [
                ("read", {"path": f"src/{name.replace('.', '/')}.py"}),
                ("grep", {"pattern": rng.choice(para().split()[:8] or [name]), "path": "src"}),
                ("bash", {"command": f"python -m pytest tests/test_{name.split('.')[0]}.py -q"}),
            ]
        )
        msgs.append(
            {
                "role": "assistant",
                "content": rng.choice(["", "", "Let me look at that.", "Checking the code."]),
                "reasoning": para()[:400],
                "timestamp": ts(),
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        msgs.append({"role": "tool", "tool_call_id": call, "content": result(), "timestamp": ts()})

    msgs: list[dict] = [
        {
            "role": "user",
            "content": f"Can you look into {name}? {para()[:400]}",
            "timestamp": ts(),
        }
    ]
    for _ in range(rng.randint(2, 5)):
        tool_round(msgs)
    msgs.append({"role": "assistant", "content": para() + "\n\n" + para(), "timestamp": ts()})
    if rng.random() < 0.5:
        msgs.append({"role": "user", "content": f"Thanks. {para()[:250]}", "timestamp": ts()})
        tool_round(msgs)
        msgs.append({"role": "assistant", "content": para(), "timestamp": ts()})
    return msgs


def _code_snippets(name: str) -> list[str]:
    """Pieces of a standard-library module's source (functions and classes), if any."""
    try:
        source = inspect.getsource(importlib.import_module(name))
    except Exception:  # importing a module may fail any way (setuptools' distutils hack asserts)
        return []
    blocks = re.split(r"\n(?=def |class )", source)
    return [b.strip()[:1500] for b in blocks if len(b.strip()) >= 200]


def make_session(
    rng: random.Random, topics: list[Topic], episodes: int = 8, long: bool = False
) -> tuple[str, list[int]]:
    """Episodes on different topics: short ones (a question, one tool call, answers,
    about 2 KB) or, with `long`, a coding agent's (several tool rounds whose results are
    source code where the topic has some, 3 to 10 KB)."""
    chosen = rng.sample(topics, episodes)
    clock = [datetime(2026, 3, 1, 9, 0, 0)]
    lines: list[str] = []
    gold: list[int] = []
    for name, paras in chosen:
        gold.append(len(lines) + 1)
        if long:
            msgs = _long_episode(rng, name, paras, _code_snippets(name), clock)
        else:
            msgs = _episode(rng, name, paras, clock)
        lines += [json.dumps(m) for m in msgs]
    return "\n".join(lines) + "\n", gold


def make_document(rng: random.Random, docs: list[str], parts: int = 6) -> tuple[str, list[int]]:
    chosen = rng.sample(docs, parts)
    lines: list[str] = []
    gold: list[int] = []
    for doc in chosen:
        while lines and not lines[-1].strip():
            lines.pop()
        if lines:
            lines.append("")
        body = doc.strip("\n").splitlines()
        while body and not body[0].strip():
            body.pop(0)
        gold.append(len(lines) + 1)
        lines += body
    return "\n".join(lines) + "\n", gold


# --------------------------------------------------------------------------- documents

#: Documents longer than this are cut at their last heading before it.
DOC_MAX_CHARS = 12_000
DOC_MIN_CHARS = 1_500
#: corpus -> split (whole documentation sets are dev or held out, never both)
DOC_CORPORA = {
    "readme": "dev",
    "stdlib": "dev",
    "nodeapi": "dev",
    "nodeguide": "dev",
    "pyman": "dev",
    "jsdeps": "dev",
    "cmake": "dev",
    "cmakeref": "dev",
    "cmakerst": "dev",
    "readmealt": "dev",
    "npm": "heldout",
    "pipdocs": "heldout",
    "debian": "heldout",
    "awscli": "heldout",
}
VARIANTS = ("titled", "notitle", "frontmatter")
#: The variants of a set whose pages are not markdown (the others need ATX headings).
CORPUS_VARIANTS = {"cmakerst": ("titled",)}
#: A set that is another set's pages in another heading syntax: its files stitch the
#: same pages as that set's (one generator), so the two compare syntax alone.
SAME_PICKS = {"cmakerst": "cmake", "readmealt": "readme"}

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^(#{1,6})([ \t]+.*|)$")


def _read_text(path: str) -> str:
    import gzip

    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _files_corpus(patterns: list[str], exclude: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    import glob

    out = []
    for pattern in patterns:
        for f in sorted(glob.glob(pattern, recursive=True)):
            if any(x in f for x in exclude):
                continue
            text = _read_text(f)
            if len(text) >= DOC_MIN_CHARS:
                out.append((f, _clip(text)))
    return out


def _headings(lines: list[str]) -> list[tuple[int, int]]:
    """(line index, level) of the ATX headings outside fences."""
    out = []
    fence: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
        else:
            h = _ATX.match(line)
            if h:
                out.append((i, len(h.group(1))))
    return out


def _clip(text: str) -> str:
    if len(text) <= DOC_MAX_CHARS:
        return text.strip()
    lines = text.splitlines()
    size = 0
    cut = blank = len(lines)
    starts = {i for i, _ in _headings(lines)}
    for i, line in enumerate(lines):
        if i in starts and size > DOC_MAX_CHARS // 3:
            cut = i
        if not line.strip() and size > DOC_MAX_CHARS // 3:
            blank = i
        size += len(line) + 1
        if size > DOC_MAX_CHARS:
            break
    if cut == len(lines):  # no heading to cut at: the last paragraph break
        cut = blank
    return "\n".join(lines[:cut]).strip()


_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1+[ \t]*$")
_BOLD_LINE = re.compile(r"^\*\*([^*].*?)\*\*[ \t]*$")


def rst_markdown(text: str, bold_headings: bool = False) -> str:
    """A reStructuredText page as markdown headings: a title over (and under) a line of
    one punctuation character becomes an ATX heading, its level the order in which that
    underline first appears (as reStructuredText decides levels); with `bold_headings`,
    a line that is only bold text (the AWS CLI examples' "**To list ...**") is a heading
    one level below the page's title. Everything else stays as it is."""
    lines = text.splitlines()
    levels: dict[str, int] = {}
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        over = _RST_UNDERLINE.match(line)
        if over and i + 2 < len(lines) and lines[i + 1].strip() and lines[i + 2] == line:
            level = levels.setdefault("over" + line[0], len(levels) + 1)
            out.append("#" * min(level, 6) + " " + lines[i + 1].strip())
            i += 3
            continue
        under = _RST_UNDERLINE.match(nxt)
        if (
            line.strip()
            and not line.startswith(" ")
            and under
            and len(nxt.strip()) >= len(line.strip())
        ):
            level = levels.setdefault(nxt[0], len(levels) + 1)
            out.append("#" * min(level, 6) + " " + line.strip())
            i += 2
            continue
        bold = _BOLD_LINE.match(line) if bold_headings else None
        if bold and (i == 0 or not lines[i - 1].strip()):
            out.append(("# " if not out else "## ") + bold.group(1).strip())
            i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def npm_root() -> Path | None:
    import shutil
    import subprocess

    npm = shutil.which("npm")
    if npm is None:
        return None
    try:
        out = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def doc_corpora() -> dict[str, list[tuple[str, str]]]:
    """corpus -> [(name, markdown)] for every documentation set found on this machine."""
    import site
    import sysconfig

    root = npm_root()
    stdlib = stdlib_topics()
    out = {
        "readme": [(n, _clip(t)) for n, t in readme_markdown().items()],
        "stdlib": [(n, stdlib_markdown((n, p))) for n, p in stdlib],
        "pyman": [(n, pyman_markdown((n, p), [m for m, _ in stdlib])) for n, p in stdlib],
        "nodeapi": _files_corpus(["/usr/share/doc/nodejs/api/*.md"]),
        "nodeguide": _files_corpus(
            ["/usr/share/doc/nodejs/*.md", "/usr/share/doc/nodejs/*/**/*.md"], exclude=("/api/",)
        ),
        "npm": _files_corpus([f"{root}/npm/docs/content/**/*.md"] if root else []),
        "pipdocs": _files_corpus(["/usr/share/doc/python3-pip/html/**/*.md*"]),
        "debian": _files_corpus(
            ["/usr/share/doc/*/*.md", "/usr/share/doc/*/*.md.gz"],
            exclude=("/nodejs/", "/python3-pip/"),
        ),
        # the markdown of npm's own dependencies (READMEs, undici's API docs, node-gyp's
        # guides, changelogs): not npm's docs/content, which is held out
        # the READMEs again, their headings written as setext (levels 1, 2) and HTML
        # (``<h3>`` and deeper) headings (`alt_headings`, after the variant is made)
        "readmealt": [(n, _clip(t)) for n, t in readme_markdown().items()],
        "jsdeps": _files_corpus(
            [f"{root}/npm/node_modules/**/*.md"] if root else [],
            exclude=("LICENSE", "/npm/docs/"),
        ),
        "cmake": [
            (n, _clip(rst_markdown(t)))
            for n, t in _files_corpus(
                [f"/usr/share/cmake*/Help/{d}/*.rst" for d in ("command", "manual", "module")]
            )
        ],
        # the same pages as they are: raw reStructuredText, its section titles under (and
        # over) lines of punctuation, not converted to markdown headings
        "cmakerst": [
            (n, _clip(t))
            for n, t in _files_corpus(
                [f"/usr/share/cmake*/Help/{d}/*.rst" for d in ("command", "manual", "module")]
            )
        ],
        # CMake's short reference pages (policies, variables, target properties): one
        # screen each, alike in words and in form
        "cmakeref": [
            (n, _clip(rst_markdown(t)))
            for n, t in _files_corpus(
                [f"/usr/share/cmake*/Help/{d}/*.rst" for d in ("policy", "variable", "prop_tgt")]
            )
        ],
        "awscli": [
            (n, _clip(rst_markdown(t, bold_headings=True)))
            for n, t in _files_corpus(
                [
                    f"{d}/awscli/examples/*/*.rst"
                    for d in sorted({sysconfig.get_paths()["purelib"], *site.getsitepackages()})
                ]
                + ["/root/.pyenv/versions/*/lib/python3*/site-packages/awscli/examples/*/*.rst"]
            )
        ],
    }
    return {k: v for k, v in out.items() if len(v) >= 6}


_FRONT = re.compile(r"\A(?:---|\+\+\+)[ \t]*\n.*?\n(?:---|\+\+\+|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_SETEXT_TITLE = re.compile(r"\A[^\n]+\n=+[ \t]*(?:\n|\Z)")


def strip_title(doc: str) -> tuple[str, str | None]:
    """The document without its front matter and top title, and the title if it had one."""
    text = doc.strip("\n")
    title: str | None = None
    m = _FRONT.match(text)
    if m:
        t = re.search(r"^title\s*[:=]\s*['\"]?(.*?)['\"]?\s*$", m.group(0), re.M)
        title = t.group(1) if t else None
        text = text[m.end() :].lstrip("\n")
    lines = text.splitlines()
    # the title: a level-1 heading among the first lines (after badges, comments, labels)
    heads = _headings(lines)
    first = heads[0] if heads else None
    if first is not None and first[1] == 1 and not any(ln.strip() for ln in lines[: first[0]]):
        title = lines[first[0]].lstrip("#").strip()
        del lines[first[0]]
    elif _SETEXT_TITLE.match(text):
        title = lines[0].strip()
        del lines[:2]
    elif lines and lines[0].startswith("% "):
        title = lines[0][2:].strip()
        del lines[0]
    return "\n".join(lines).strip("\n"), title


def shift_headings(doc: str, top: int) -> str:
    """The document with its headings moved so that its shallowest is at level `top`
    (never deeper than 6)."""
    lines = doc.splitlines()
    heads = _headings(lines)
    if not heads:
        return doc
    delta = top - min(level for _, level in heads)
    for i, level in heads:
        new = max(1, min(6, level + delta))
        lines[i] = "#" * new + lines[i][level:]
    return "\n".join(lines)


def alt_headings(doc: str) -> str:
    """The document with its ATX headings written as setext headings (level 1 over
    ``===``, level 2 over ``---``) and HTML headings (``<h3>`` .. ``<h6>``)."""
    lines = doc.splitlines()
    out = list(lines)
    for i, level in reversed(_headings(lines)):
        title = lines[i][level:].strip().rstrip("#").strip() or "Untitled"
        if level <= 2:
            rule = ("=" if level == 1 else "-") * max(3, len(title))
            # a setext title is a paragraph of its own: a blank line before it
            out[i : i + 1] = ["", title, rule] if i and lines[i - 1].strip() else [title, rule]
        else:
            out[i] = f'<h{level} id="s{i}">{html_escape(title)}</h{level}>'
    return "\n".join(out)


def html_escape(text: str) -> str:
    import html

    return html.escape(text, quote=False)


def variant_doc(rng: random.Random, doc: str, variant: str, top: int = 2) -> str:
    if variant == "titled":
        return doc
    body, title = strip_title(doc)
    if variant == "notitle":
        return shift_headings(body, top)
    title = title or "Untitled"
    if rng.random() < 0.5:
        safe = title.replace('"', "'")
        front = f'---\ntitle: "{safe}"\nweight: {rng.randrange(1, 90)}\n---'
    else:
        safe = title.replace('"', "'")
        front = f'+++\ntitle = "{safe}"\ndraft = false\n+++'
    return front + "\n\n" + body


def make_dataset(out: str | Path, sessions: int = 6, docs: int = 3, seed: int = 1) -> list[dict]:
    """Write the files and their gold; return one record per file (path, gold, kind,
    split, source and, for documents, variant): `sessions` // 2 sessions per split and
    source, `docs` files per documentation set and variant."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    sources = {"readme": readme_topics(), "stdlib": stdlib_topics()}
    records = []
    for split in ("dev", "heldout"):
        for source, topics in sources.items():
            pool = [t for t in topics if half(t[0]) == split]
            for i in range(sessions // 2):
                if len(pool) < 8:
                    break
                long = i % 2 == 1
                text, gold = make_session(rng, pool, long=long)
                path = folder / f"{split}-session{'-long' if long else ''}-{source}-{i}.jsonl"
                path.write_text(text, encoding="utf-8")
                records.append(
                    {
                        "path": str(path),
                        "gold": gold,
                        "kind": "session",
                        "split": split,
                        "source": source,
                    }
                )
    corpora = doc_corpora()
    for name in DOC_CORPORA:
        if name not in corpora:
            print(f"segdata: documentation set {name!r} not found here: skipped", file=sys.stderr)
    for corpus, named in corpora.items():
        split = DOC_CORPORA[corpus]
        for variant in CORPUS_VARIANTS.get(corpus, VARIANTS):
            # one generator per set and variant: a set's files do not depend on which
            # other sets (or which Python distributions) this machine has
            rng = random.Random(f"{seed}-{SAME_PICKS.get(corpus, corpus)}-{variant}")
            for i in range(docs):
                picked = rng.sample(named, 6)
                top = rng.choice((2, 3))
                parts = [variant_doc(rng, doc, variant, top) for _, doc in picked]
                if corpus == "readmealt":
                    parts = [alt_headings(p) for p in parts]
                text, gold = make_document(rng, parts)
                path = folder / f"{split}-docs-{corpus}-{variant}-{i}.md"
                path.write_text(text, encoding="utf-8")
                records.append(
                    {
                        "path": str(path),
                        "gold": gold,
                        "kind": "docs",
                        "split": split,
                        "source": corpus,
                        "variant": variant,
                        "documents": [n for n, _ in picked],
                    }
                )
    for r in records:
        Path(r["path"]).with_suffix(".gold.json").write_text(
            json.dumps({"starts": r["gold"]}) + "\n"
        )
    return records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, default=6, help="per split and source... halved")
    ap.add_argument("--docs", type=int, default=3, help="files per documentation set and variant")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for r in make_dataset(args.out, args.sessions, args.docs, args.seed):
        print(
            f"{r['split']:<8} {r['kind']:<8} {r['source']:<8} {r.get('variant', ''):<12} "
            f"{r['path']}  ({len(r['gold'])} segments)"
        )


if __name__ == "__main__":
    sys.exit(main())
