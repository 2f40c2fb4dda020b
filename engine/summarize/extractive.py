"""The extractive summarizer: the most central sentences of a chunk (offline, deterministic)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain, islice

import numpy as np
import numpy.typing as npt

from chunkscope.engine.read.formats.aider import aider_run
from chunkscope.engine.read.formats.base import COMPACTION_ROLE
from chunkscope.engine.read.formats.claude import BASH_MODE, META_ROLE, SUBAGENT_ROLE
from chunkscope.engine.read.formats.documents import END_ROLE
from chunkscope.engine.read.headings import (
    ADORNMENT,
    DEEP_FENCE,
    HTML_HEADING,
    RST_EXPLICIT,
    fence_after,
    heading_at,
    html_title,
    opens_literal_block,
)
from chunkscope.engine.read.source import DOC_ROLE, FENCE, THINKING_ROLE
from chunkscope.engine.segment.requests import INTERRUPTED
from chunkscope.engine.summarize.base import Summary, clean_summary, has_words
from chunkscope.engine.textutil import (
    CLOSING_MARKS,
    CLOSING_MARKS_CLASS,
    COLONS,
    CONTROL_CHAR,
    CUT_END,
    LEAD_IN_END,
    MARKLESS_SCRIPT,
    SENTENCE_STOP,
    STOPWORDS,
    WIDE_COLON,
    WIDE_SCRIPT,
    closing_ticks,
    code_span,
    code_spans,
    cut_open_ticks,
)

#: The role names a chunk's ``role: text`` lines start with (see engine.read.parse), the
#: readers' own (a subagent's, a compaction summary's, a run's end) among them: a line
#: opening with one opens a turn, its label no text of the summary. Not Gemini's
#: ``info`` / ``error`` / ``warning`` nor aider's ``aider``: a tool's output line opening
#: ``error: `` is its text, no new turn.
KNOWN_ROLES = (
    THINKING_ROLE,
    "Bot",
    "You",
    "Tool",
    DOC_ROLE,
    SUBAGENT_ROLE,
    COMPACTION_ROLE,
    META_ROLE,
    END_ROLE,
    "System",
    "system",
    "developer",
)
_ROLE_LINE = re.compile(r"^(" + "|".join(re.escape(r) for r in KNOWN_ROLES) + r"): ?")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
#: A label numbered as people number them in a message: ``2/ ...``, ``b) ...``, ``3. ...``.
_ENUMERATED = re.compile(r"\s*(?:\d{1,3}|[a-zA-Z])[/).]\s")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_TABLE = re.compile(r"^\s*\|")
#: A quote's markers at the start of a line (``> ``, ``> > ``, a ``>`` alone): not
#: ``>>> `` (a Python prompt) nor ``->``.
_QUOTE = re.compile(r"^ {0,3}>(?: >)*(?:[ \t]|$)")
_COMMENT = re.compile(r"<!--.*?-->")
#: A line that is a file's (or a folder's) name alone, just above a fenced block: the
#: block's label (aider's ``src/app.py`` and ``data/`` above its edit blocks).
_FILE_LABEL = re.compile(r"^\s*(?:[\w./\\-]*(?:\w\.\w+|\w[/\\])|\.\w[\w.-]*)\s*$")
#: aider's edit-block markers: the SEARCH line opens a block of code that only the
#: REPLACE line closes (fences inside it are the file's own); none of them is text.
_EDIT_OPEN = re.compile(r"^\s*<{7} SEARCH\s*$")
_EDIT_CLOSE = re.compile(r"^\s*>{7} REPLACE\s*$")
_EDIT_MARK = re.compile(r"^\s*(?:<{7} SEARCH|={7}|>{7} REPLACE)\s*$")
#: A line that is one tag and nothing else (``</pr_description>``, ``<instructions>``): the
#: frame of a prompt template, no sentence of anyone's.
_TAG_LINE = re.compile(r"^\s*</?[a-z][\w:-]*(?:\s[^<>]*)?/?>\s*$", re.I)
_RULE = re.compile(r"^\s*([-*_=])\s*(\1\s*){2,}$")
#: A line of a document's markup that no reader sees as words (walk 61, F3, F4): a link
#: reference definition (``[ch8]: ch08-02-strings.html``), a template tag alone (Hugo's
#: ``{{% include "x.md" %}}``, ``{{< note >}}``, Jekyll's ``{% raw %}``), an admonition's
#: marker and its label (``:::tip Env Loading Priorities``, ``:::``, MkDocs' ``!!! note
#: "Restart"``, GitHub's ``[!NOTE]`` once its quote mark is taken off).
_DOC_MARKUP_LINE = re.compile(
    r"\s{0,3}\[[^\]\n]+\]:\s*(?=<?[^\s>]*[./#])<?[^\s>]+>?"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*"
    r"|\s*\{\{[<%].*[%>]\}\}\s*|\s*\{%.*%\}\s*"
    r"|\s*\{\{\s*[A-Za-z_][\w-]*\s*(?:\(.*\))?\s*\}\}\s*"  # MDN's macros ({{Compat}})
    r"|\s*:{3,}.*"
    r"|\s*(?:!!!|\?\?\?\+?)\s*[a-zA-Z][\w-]*(?:\s+\"[^\"]*\")?\s*"
    r"|\s*\[![a-zA-Z]+\][+-]?.*"
    # a line of links to anchors of the page alone: its navigation (``[🔼 Back to the
    # top!](#recipes)``, walk 71, F5), no sentence
    r"|\s*(?:[*_]*\[[^\]\n]+\]\(#[^)\s]*\)[*_]*[\s|·•]*)+"
    # MyST's target of a label (``(multiple-options)=`` over a heading: walk 72, F10)
    r"|\s*\([\w.:-]+\)=\s*"
)
#: An autodoc directive of MkDocs (mkautodoc's and mkdocstrings' ``::: httpx.Client``):
#: the indented lines under it are its options (``:docstring:``, ``:members: headers
#: cookies ...``, a YAML ``options:`` block), markup as a reStructuredText directive's
#: are (walk 71, F3).
_AUTODOC = re.compile(r"\s*:::[ \t]+[A-Za-z_][\w.]*\s*")
#: MDN's mark of a definition list's definition, after the item's bullet.
_DEFINITION_MARK = re.compile(r"^:\s+")
#: A line of an ECMAScript module's imports or exports (an MDX page's head: ``import
#: { Steps } from '@astrojs/starlight/components';``).
_ESM_LINE = re.compile(
    r"\s*(?:import\s+(?:[\w*{},$]+(?:\s+[\w*{},$]+)*?\s+from\s+)?[\"'][^\"']+[\"']"
    r"|export\s+(?:default\s+)?(?:const|let|var|function|class)\b.*)\s*;?\s*"
)
#: A template's tag that opens a block of code (Hugo's ``{{< code-toggle file=x >}}``,
#: ``{{< highlight go >}}``): its lines up to ``{{< /NAME >}}`` are code.
_CODE_SHORTCODE = re.compile(r"\s*\{\{[<%]\s*((?:code|highlight)[\w-]*)\b.*[%>]\}\}\s*")


def _doc_markup(line: str, shortcode: str) -> tuple[bool, str]:
    """Whether `line` is a document's markup (`_DOC_MARKUP_LINE`) or inside a template's
    code block, and the name of the code block the next line is in ("": none), given
    `shortcode`, the one this line is in (":::": under an autodoc directive, `_AUTODOC`,
    whose indented lines are its options)."""
    if shortcode == ":::":
        if line[:1] in " \t" and line.strip():
            return True, shortcode
        shortcode = ""
    if _AUTODOC.fullmatch(line):
        return True, ":::"
    if shortcode:
        closes = re.fullmatch(r"\s*\{\{[<%]\s*/" + re.escape(shortcode) + r"\b.*", line)
        return True, "" if closes else shortcode
    if _DOC_MARKUP_LINE.fullmatch(line) is None:
        return False, ""
    opened = _CODE_SHORTCODE.fullmatch(line)
    return True, opened.group(1) if opened else ""


#: A command's output as mini-swe-agent hands it back (``<returncode>0</returncode>``, then
#: ``<output>`` ... ``</output>`` on lines of their own): a listing, a traceback, no one's
#: sentence (the agent says what it found in its own words). Its prompt template's
#: ``<example_response>`` block is no one's either: an example, not the session.
_RETURNCODE = re.compile(r"^\s*<returncode>-?\d+</returncode>\s*$")
#: aider's other fence (``<source>python`` ... ``</source>``, for a file that holds ```)
#: reads as one too.
_OUTPUT_OPEN = re.compile(
    r"^\s*<(output|output_head|output_tail|example_response|source)>[\w+#.-]*\s*$"
)


#: The directives whose indented body is code or data, not prose (a note's or an option's
#: body is prose: read as text).
_RST_CODE_DIRECTIVES = frozenset(
    {"code-block", "code", "sourcecode", "literalinclude", "productionlist"}
    | {"parsed-literal", "highlight", "math", "raw", "csv-table", "include", "toctree"}
    | {"contents", "only", "index"}
)
#: A reStructuredText directive that describes an object by its name (``.. attribute::
#: stream``, ``.. py:method:: Parser.fail(msg)``): the name, its signature left out. The
#: paragraph under it says the object without naming it ("The current
#: :class:`~jinja2.lexer.TokenStream`", "This is **not** the load name ..."): said after
#: its name (walk 69, F11).
_DESCRIBED = re.compile(
    r"^\s*\.\.\s+(?:[a-z]+:)?(?:attribute|method|function|class|data|exception|property|"
    r"decorator|envvar|option|describe|object|confval|classmethod|staticmethod)::"
    r"[ \t]+([^\s(][^(]*?)\s*(?:\(.*)?$"
)
#: A directive's option line (``   :maxdepth: 2``).
_RST_OPTION = re.compile(r"^\s+:[\w -]+:(?:\s|$)")


class _Code:
    """Where a walk through a chunk's lines is: in fenced code, in an aider edit block,
    in a command's output, in a reStructuredText literal block or directive, or in
    text. `code(line)` says whether `line` is code or a code marker (a fence, an
    edit-block marker, an output tag, a ``.. directive::`` line), never text; the split
    and the summary's fallback both ask it."""

    __slots__ = ("edit", "fence", "output", "rst")

    def __init__(self) -> None:
        self.fence: str | None = None
        self.edit = False
        self.output: str | None = None  # the closing tag of the output block it is in
        # in a reStructuredText "literal" block (after "::", a comment, a code
        # directive: its indented lines) or a directive's "options"; "" not
        self.rst = ""

    @property
    def busy(self) -> bool:
        """In fenced code, an edit block or an output (a role prefix there is their own)."""
        return self.fence is not None or self.edit or self.output is not None

    def code(self, line: str) -> bool:
        if self.output is not None:
            if line.strip() == self.output or _ROLE_LINE.sub("", line).strip() == self.output:
                self.output = None
            return True
        if self.fence is None and not self.edit:
            if _RETURNCODE.match(line):
                return True
            opened = _OUTPUT_OPEN.match(line)
            if opened:
                self.output = f"</{opened.group(1)}>"
                return True
        if self.edit:
            self.edit = not _EDIT_CLOSE.match(line)
            return True
        if _EDIT_OPEN.match(line):
            self.edit = True
            return True
        if _EDIT_MARK.match(line):
            return True  # the rest of an edit block whose start is in another chunk
        fence = FENCE.match(line)
        if self.fence is not None:
            self.fence = fence_after(line, self.fence)  # a bare marker closes it, as long
            return True
        if fence:
            self.fence = fence.group(1)
            return True
        return self._rst(line)

    def _rst(self, line: str) -> bool:
        """reStructuredText's code and markup: a literal block (the indented lines after
        a paragraph ending in ``::``), a ``.. directive::`` line with its options, a
        code directive's body, a comment."""
        if self.rst == "literal":
            if not line.strip() or line[:1] in " \t":
                return True
            self.rst = ""
        elif self.rst == "options":
            if _RST_OPTION.match(line):
                return True
            self.rst = ""
        explicit = RST_EXPLICIT.match(line)
        if explicit:
            name = explicit.group(1)
            self.rst = "options" if name and name not in _RST_CODE_DIRECTIVES else "literal"
            return True
        if opens_literal_block(line):
            self.rst = "literal"  # the line itself is text: it introduces the block
        return False


#: Programs a pasted command line opens with (``echo 'export KEY=...' >> ~/.zshrc``,
#: ``source ~/.zshrc``, ``npm install``): with a shell sign after them, the line is a
#: command a user pasted without a fence, code rather than prose (walk 53, F1).
_SHELL_PROGRAMS = frozenset(
    {"echo", "printf", "source", "export", "cd", "ls", "cat", "mkdir", "rm", "cp", "mv"}
    | {"touch", "chmod", "chown", "ln", "curl", "wget", "git", "gh", "npm", "npx", "pnpm"}
    | {"yarn", "bun", "node", "deno", "python", "python3", "pip", "pip3", "uv", "uvx"}
    | {"poetry", "pytest", "cargo", "go", "make", "docker", "kubectl", "brew", "apt"}
    | {"apt-get", "sudo", "sed", "grep", "rg", "find", "tar", "ssh", "scp", "mvn"}
    | {"gradle", "dotnet", "gem", "bundle", "mix", "terraform", "aws", "gcloud", "conda"}
    | {"tee", "unset", "kill", "systemctl", "pwsh", "powershell"}
)
#: What makes a line after a program's name a command: a flag, a path, a redirect or
#: pipe, a chain, an assignment, a quoted argument, a variable.
_SHELL_SIGN = re.compile(r"(?:^|\s)(?:--?[\w-]|~|\.{0,2}/)|[/|;&<>=$'\"]")
#: A line that ends with a word and a stop, as a sentence does (a command rarely).
_WORD_STOP = re.compile(r"[^\W\d_]{2}[.!?]\Z")
#: A line of a pasted JSON object or array: brackets alone, or ``"key": value`` with a
#: JSON value (a string, a number, a literal, an object or array it opens), not a
#: quoted phrase a sentence goes on from (``"Main things": arrival, ...``).
_JSON_LINE = re.compile(
    r'[{}\[\]][,{}\[\]\s]*|"[^"\n]+"\s*:\s*'
    r'(?:(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)\s*[,}\]]*'
    r'|[{\[](?:.*[\]}"\d]|\s*)[,}\]]*)'  # an object or array it opens, or holds whole
)
#: A line of Python or JavaScript pasted bare (an aider architect's "Locate:" /
#: "Replace with:" blocks: walk 53, F13): a definition, an import, a block's keyword
#: line ending in a colon, a ``return`` of an expression, an assignment or a call to a
#: dotted or snake_case name, a declaration.
_CODE_LINE = re.compile(
    r"(?:async\s+)?def\s+\w+\(.*|class\s+\w+.*:"
    r"|(?:from\s+[\w.]+\s+)?import\s+[\w.]+(?:\s+as\s+\w+)?(?:,\s*[\w.]+(?:\s+as\s+\w+)?)*"
    r"|(?:try|else|finally):|(?:except|if|elif|while|with)\s+(?:\w+|.*[()\[\]=<>._!].*):"
    r"|for\s+\w+(?:,\s*\w+)*\s+in\s+\S+:"
    r"|return\b(?:\s*$|\s+(?:\S*[(\[{\"'.=]|None|True|False|\w+$)).*"
    r"|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*[-+*/]?=\s*\S.*"
    r"|(?:await\s+)?(?=\w*[._])[A-Za-z_][\w.]*+\(.*\)[;,]?"
    r"|(?:const|let|var)\s+[\w{\[].*=.*|(?:export\s+)?(?:async\s+)?function\s*\w*\s*\(.*"
)
#: The longest line `_pasted_code` and `_code_line` read as code: the patterns backtrack
#: over a line, and a long line is prose or a tool's output (a collapsed call's excerpt).
_CODE_LINE_CHARS = 400


def _code_line(line: str) -> bool:
    """Whether `line` (stripped) is a line of Python or JavaScript (`_CODE_LINE`)."""
    return len(line) <= _CODE_LINE_CHARS and _CODE_LINE.fullmatch(line) is not None


#: Signs that a few words before an open bracket are code: an assignment, a call, a
#: keyword of a block, a selector (``payload = {``, ``cleanup() {``, ``return (``).
_SIGN_OF_CODE = re.compile(r"[=()]|^(?:return|function|def|class|if|for|while|else)\b|^[.#:]")
#: A line that opens a block of code: a few words (``payload = {``, ``return (``,
#: ``cleanup() {``) and the bracket it leaves open at its end.
_OPENS_CODE = re.compile(r"(?:\S++\s+){0,2}[^\s{\[(]*+[{\[(]")


def _pasted_code(line: str) -> bool:
    """Whether `line`, outside any fence, is code a user pasted bare: a line of a JSON
    object (``"provider": {``), of Python or JavaScript (`_CODE_LINE`, `_ESM_LINE`), or a
    shell command (``$ npm test``, ``source ~/.zshrc``: a shell's prompt or a known program
    and a shell sign); never a line that ends as a sentence does or reads on as one (`_prose_words`:
    "cd into the folder and run the tests", "npm install fails on /usr/lib")."""
    text = line.strip()
    if _WORD_STOP.search(text):
        return False  # it ends as a sentence does ('"Error": [object Object] comes from ...')
    if len(text) > _CODE_LINE_CHARS:
        return False  # (a line of code is short; a long one is prose or output)
    if _JSON_LINE.fullmatch(text) or (_OPENS_CODE.fullmatch(text) and _SIGN_OF_CODE.search(text)):
        return True
    if _ESM_LINE.fullmatch(text):
        return True  # a module's import (``import type { Plugin } from 'vite';``: walk 71, F10)
    if _code_line(text):
        return _prose_words(text.split(None, 1)[-1]) <= 2  # ("return 'ok' when the token
        # is valid, otherwise 401" reads on as a sentence)
    prompt = text.startswith("$ ")  # a shell's prompt: whatever program follows
    if prompt:
        text = text[2:].lstrip()
    first, _, rest = text.partition(" ")
    if not prompt and (first not in _SHELL_PROGRAMS or not _SHELL_SIGN.search(rest)):
        return False
    return _prose_words(rest) <= 2  # "npm install fails on /usr/lib" is a sentence


def _prose_words(text: str) -> int:
    """How much of `text` outside its quotes reads as prose: 3 for a verb of what a
    command did ("fails", "looks", "finished": "npm install fails on /usr/lib"), else its
    small words twice, and its plain lowercase words beyond a command's first two
    (``git commit``, ``docker compose up``)."""
    bare = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", " ", text)
    words = [w.rstrip(",;:") for w in bare.split() if re.fullmatch(r"[a-z]{2,}[,;:]?", w)]
    if any(w in _RESULT_VERBS or (len(w) >= 6 and w.endswith("ed")) for w in words):
        return 3
    small = sum(w in _STOPWORDS for w in words)
    return max(small * 2 - 1, len(words) - 2, 0)


#: Verbs that say what a command did, not its arguments.
_RESULT_VERBS = frozenset(
    {"fails", "looks", "shows", "works", "seems", "says", "gives", "prints", "hangs"}
    | {"crashes", "breaks", "errors", "returns", "passes", "succeeds", "finishes", "stops"}
)


def _opened_before(lines: list[str]) -> list[str]:
    """`lines` with an opening fence put before them when the chunk starts inside a list
    item's fenced block: its first fence is a bare one indented 4 spaces or more that
    every line before it (a role's label aside) stands under, the line before it no
    lead-in, and no fence follows at its indentation: the close of a block opened in the
    chunk before (cc-tradearena's pasted plan, walk 60: `type Route =. // In App
    component: ...` was a summary)."""
    for k, raw in enumerate(lines):
        m = _ROLE_LINE.match(raw)
        rest = raw[m.end() :] if m else raw
        if not rest.strip():
            continue
        deep = DEEP_FENCE.match(rest)
        if deep is None or k == 0 or rest.strip() != deep.group(2):
            if FENCE.match(rest) or deep is not None:
                return lines
            continue
        indent = deep.group(1)
        before = [ln[(n.end() if (n := _ROLE_LINE.match(ln)) else 0) :] for ln in lines[:k]]
        said = [b for b in before if b.strip()]
        if not said or not all(b.startswith(indent) for b in said):
            return lines
        if said[-1].rstrip().endswith(_COLON_END):
            return lines  # a lead-in's block opens here ("look at `handleRelease`:")
        close = re.compile(f"{re.escape(indent)}{re.escape(deep.group(2)[0])}{{3,}}\\s*$")
        if any(close.match(ln) for ln in lines[k + 1 :]):
            return lines
        m = _ROLE_LINE.match(lines[0])
        label = m.group(0) if m else ""
        return [f"{label}{indent}{deep.group(2)}", lines[0][len(label) :], *lines[1:]]
    return lines


def _chunk_lines(text: str) -> list[str]:
    """`text`'s lines, each fence indented 4 spaces or more that a closing line at the
    same indentation follows (a list item's fenced block, the item's own line perhaps in
    the chunk before) taken back to the margin with the lines up to its close: a code
    block as `_Code` reads one. Without a close, or inside a fence at the margin (an
    example of markdown), the lines are as they stand."""
    lines = _opened_before(text.splitlines())
    outer = ""  # the mark of the fence at the margin the walk is in
    i = 0
    while i < len(lines):
        m = _ROLE_LINE.match(lines[i])
        label = m.group(0) if m and not outer else ""
        rest = lines[i][len(label) :]
        i += 1
        margin = FENCE.match(rest)
        if outer:
            if margin and margin.group(1)[0] == outer[0] and len(margin.group(1)) >= len(outer):
                outer = ""
            continue
        if margin:
            outer = margin.group(1)
            continue
        deep = DEEP_FENCE.match(rest)
        if deep is None:
            continue
        indent, mark = deep.groups()
        close = re.compile(f"{re.escape(indent)}{re.escape(mark[0])}{{{len(mark)},}}\\s*$")
        end = next((j for j in range(i, len(lines)) if close.match(lines[j])), None)
        if end is None:
            # No close: the chunk was cut inside the block when every line after the
            # fence is the item's (at its indentation, or blank): the block runs to the
            # chunk's end, as an unclosed fence at the margin does (walk 60, F7: the
            # opener and two lines of code were read as a summary's sentence).
            rest_of_item = all(not ln.strip() or ln.startswith(indent) for ln in lines[i:])
            if not rest_of_item:
                continue
            end = len(lines) - 1
        lines[i - 1] = label + rest[len(indent) :]
        for j in range(i, end + 1):
            if lines[j].startswith(indent):
                lines[j] = lines[j][len(indent) :]
        i = end + 1
    return _indented_code(_item_code(lines))


def _item_code(lines: list[str]) -> list[str]:
    """`lines` with code indented under a message's list item fenced: the lines after an
    item that ends in a colon (``- Add a tiny plugin to log requests:``), indented as far
    as the item's text or deeper, blank lines among them, when the first is code
    (`_code_start`). A model writes such code without a fence; markdown reads it as the
    item's text, and so did the split: ``import fs from 'fs'; import type { Plugin } from
    'vite';`` was a summary's sentence (walk 71, F10). So is such a block the chunk starts
    in (its first line, indented four spaces or more, code): its item is in the chunk
    before. Not a document's paragraphs (`_indented_code` reads them) nor a tool's
    output."""
    out: list[str] = []
    outer = ""  # the mark of the fence at the margin the walk is in
    role = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _ROLE_LINE.match(line) if not outer else None
        role = m.group(1) if m else role
        rest = line[m.end() :] if m else line
        out.append(line)
        i += 1
        fence = FENCE.match(rest)
        if outer or fence:
            if fence and (not outer or fence.group(1)[0] == outer[0]):
                outer = "" if outer else fence.group(1)
            continue
        if role in (DOC_ROLE, "Tool"):
            continue
        if i == 1 and _INDENTED.match(rest) and _code_start(rest):
            # the chunk starts in such a block: its item is in the chunk before
            end = _indented_run(lines, i, len(rest) - len(rest.lstrip()))
            out[-1:] = [f"{m.group(0) if m else ''}```", rest, *lines[i:end], "```"]
            i = end
            continue
        bullet = _BULLET.match(rest)
        if not bullet or not rest.rstrip().endswith(_COLON_END):
            continue
        end = _indented_run(lines, i, bullet.end())  # (where the item's text starts)
        said = [ln for ln in lines[i:end] if ln.strip()]
        if said and not _BULLET.match(said[0]) and _code_start(said[0]):
            out += ["```", *lines[i:end], "```"]
            i = end
    return out


def _code_start(line: str) -> bool:
    """Whether `line` is code (`_pasted_code`), or statements of code on one line, each
    ended by ``;`` (``import fs from 'fs'; import path from 'path';``)."""
    if _pasted_code(line):
        return True
    parts = [p for p in re.split(r";\s*", line.strip()) if p]
    return ";" in line and all(_pasted_code(p) for p in parts)


def _indented_run(lines: list[str], start: int, column: int) -> int:
    """Where the run of `lines` from `start` indented to `column` or deeper ends (blank
    lines among them are the run's, not those after it)."""
    end = start
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) >= column
    ):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


#: The label a document's paragraph opens with in a chunk's text.
_DOC_LABEL = f"{DOC_ROLE}: "
#: A line indented as a code block is (four spaces, or a tab).
_INDENTED = re.compile(r"(?: {4,}|\t)\S")
_LEAD_IN_END = LEAD_IN_END
#: A text's end on a colon (`COLONS`): a lead-in's, whatever its script.
_COLON_END = tuple(COLONS)
#: A line of a Python doctest (``>>> r = requests.get(url)``): the interpreter's prompt,
#: code wherever the paragraph falls (reStructuredText reads a paragraph opening with it
#: as a doctest block, no ``::`` needed).
_DOCTEST = re.compile(r"\s*>>>(?:\s|$)")


#: An HTML element that embeds something, not text (the Rust book's figures:
#: ``<img alt="Two tables: ..." src="img/trpl04-01.svg" ... />`` over four lines).
_EMBED_ELEMENT = re.compile(r"\s*<(?:img|picture|video|audio|iframe|svg|source|object)\b", re.I)
#: Inline HTML in a document's sentence, its tags no words (``<span class="caption">``).
_INLINE_TAG = re.compile(
    r"</?(?:span|kbd|em|strong|b|i|u|sup|sub|small|mark|abbr|cite|q|var|samp|a|div|p|br|font)\b"
    r"[^<>]*>",
    re.I,
)


def _without_inline_tags(line: str) -> str:
    """`line` without its inline HTML tags (`_INLINE_TAG`) outside code spans: a tag in
    backticks (`` `<p>` ``) is the text's own."""
    parts = re.split(r"(`+[^`]*`+)", line)
    return "".join(p if i % 2 else _INLINE_TAG.sub("", p) for i, p in enumerate(parts))


#: A reference-style link (``[Remove a feature][cargo-feature-remove]``, ``[text][]``):
#: the page shows its text alone; not an index's brackets (``a[0][1]``).
_REFERENCE_LINK = re.compile(r"(?<![\w\]\\])\[([^\[\]]*[^\W\d_][^\[\]]*)\]\[[^\[\]\s]*\]")


def _link_texts(line: str) -> str:
    """`line` with each reference-style link outside code spans said as its text
    (`_REFERENCE_LINK`; walk 64, F12: cargo's features.md kept the markup)."""
    parts = re.split(r"(`+[^`]*`+)", line)
    return "".join(p if i % 2 else _REFERENCE_LINK.sub(r"\1", p) for i, p in enumerate(parts))


def _front_matter(said: list[str]) -> bool:
    """Whether a document's paragraph (its lines with words) is front matter: ``---``
    (or ``+++``) lines around metadata (walk 61, F12: MDN's and Kubernetes' pages
    opened their recap on ``title: Pod Hostname content_type: concept weight: 85``)."""
    return (
        len(said) >= 3 and said[0].strip() in ("---", "+++") and said[-1].strip() == said[0].strip()
    )


def _indented_code(lines: list[str]) -> list[str]:
    """`lines` without a document's front matter (`_front_matter`), and with each of its
    paragraphs that is code fenced: an MDX page's imports (`_ESM_LINE`), or an indented
    code block: every line indented four spaces or more (markdown's indented code, a
    reStructuredText literal block), and a line of it code (`_pasted_code`), the
    paragraph before it a lead-in (``:``, ``::``) or itself such a block (a literal
    block's second paragraph). A chunk cut where such a block starts has its ``::``
    line or lead-in in the chunk before, and its code read as prose (walk 61, F2:
    Flask's quickstart, ``@app.route('/login', ...) def login(): ...``) — a list item's
    paragraph, indented as much, reads on as prose. A paragraph opening with a doctest's
    prompt (`_DOCTEST`) is code, indented or not (walk 64, F11: requests' quickstart,
    ``>>> r.url 'https://github.com/'.`` was a summary's sentence)."""
    if not any(line.startswith(_DOC_LABEL) for line in lines):
        return lines
    out: list[str] = []
    outer = ""  # the mark of the fence at the margin the walk is in
    lead_in = False  # the paragraph before ends with a colon
    block = False  # the paragraph before is an indented code block
    i = 0
    while i < len(lines):
        line = lines[i]
        rest = line.removeprefix(_DOC_LABEL)
        fence = FENCE.match(rest)
        if outer or fence:
            if fence and (not outer or fence.group(1)[0] == outer[0]):
                outer = "" if outer else fence.group(1)
            out.append(line)
            i += 1
            continue
        if not line.startswith(_DOC_LABEL):
            out.append(line)
            lead_in = line.rstrip().endswith(_COLON_END) or (lead_in and not line.strip())
            block = block and not line.strip()
            i += 1
            continue
        end = i + 1  # the paragraph: its label's line and the lines up to the next label
        while end < len(lines) and not _ROLE_LINE.match(lines[end]):
            end += 1
        body = [rest, *lines[i + 1 : end]]
        said = [b for b in body if b.strip()]
        if _front_matter(said) or (
            said and _EMBED_ELEMENT.match(said[0]) and said[-1].rstrip().endswith(">")
        ):
            i = end  # the page's metadata (YAML or TOML between its markers), an image's
            continue  # element over several lines (its alt text: walk 61, F3): no text
        indented = bool(said) and all(_INDENTED.match(b) for b in said)
        if said and (
            all(_ESM_LINE.fullmatch(b) for b in said)
            or _DOCTEST.match(said[0])
            or (indented and (lead_in or block or any(_pasted_code(b) for b in said)))
        ):
            out += [f"{_DOC_LABEL}```", *body, "```"]
            block = indented
        else:
            out += lines[i:end]
            block = False
        lead_in = said[-1].rstrip().endswith(_COLON_END) if said else lead_in
        i = end
    return out


# A sentence ends at . ! ? (possibly followed by a closing quote or bracket) and
# whitespace. It is a boundary when the next sentence starts with a capital, a digit
# or an opening mark; before a lowercase word only when the word before the stop is
# an ordinary word (not "e.g", "etc" or a dotted name such as "foo.py"). A full-width
# stop (Chinese and Japanese ``。！？``) ends a sentence with or without a space after it.
#: Full stops that end a sentence whatever follows (Chinese and Japanese, and the
#: Devanagari danda of Hindi: walk 28, F3).
_WIDE_STOPS = "。！？।॥။។"
_SENTENCE_END = re.compile(
    rf"(?:[.!?]+{CLOSING_MARKS_CLASS}*(?=\s)|[{_WIDE_STOPS}]+[」』”’）)\]]*+)(\s*)(?=\S)"
)
_STARTER = re.compile(r"[A-Z0-9\"'“‘(\[`*_$~#@]")
_LOWER_START = re.compile(r"[a-z]")
_ABBREVIATIONS = frozenset(
    {"etc", "vs", "cf", "approx", "al", "fig", "ca", "nos", "mr", "mrs", "ms", "dr", "st"}
    | {"jr", "sr", "incl", "resp", "esp", "eg", "ie", "viz"}
)
# Abbreviations that introduce what follows (e.g., i.e., vs.): never a sentence's end,
# even before a capital or a quote ("e.g. \"Delete 18 files?\"").
_INTRODUCERS = frozenset({"eg", "ie", "vs", "cf", "viz"})
_WORD = re.compile(r"\w+")
# A wrapped line that starts a sentence of its own: a capitalised word (not "I").
_NEW_LINE_SENTENCE = re.compile(r"[A-Z][a-z]+\b")
_STOPWORDS = STOPWORDS | {
    "didn",
    "doesn",
    "don",
    "isn",
    "ll",
    "re",
    "ve",
    "wasn",
}  # contraction pieces

#: A chosen sentence longer than this is cut at a word boundary and ends with "...".
MAX_SENTENCE_CHARS = 280

# --------------------------------------------------------------------------- content

# The agent's narration of what it is about to do ("Let me check git status", "Now I'll
# integrate...") and filler ("Perfect!"): they say nothing a resuming agent can use.
# "Now, ", "Okay so ": the openers a narrated step starts with (any number of them).
_OPENERS = (
    r"^(?:(?:now|next|first|then|finally|okay|ok|alright|great|good|perfect|excellent|"
    r"so|and|also)[,!.]?\s+)*"
)
_NARRATION = re.compile(
    _OPENERS + r"(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|i should|"
    r"i want to|i'd like to|we need to|we'll|time to|going to|i can see|i see|i understand|"
    r"looking at|i notice|i found the|i'm now|i am now|now i|i have to)\b",
    re.I,
)
_FILLER = re.compile(
    r"^(?:perfect|great|excellent|good|nice|awesome|done|ok(?:ay)?|alright(?:y)?|sure|got it|"
    r"understood|exactly|right|indeed|wonderful|fantastic|absolutely|yes|hmm+|interesting|"
    r"cool|wow|yay|hooray|sweet|thanks|thank you)"
    r"\b[\s!.,:]*(?:(?:that|this|it|now|the|everything)\b.{0,30})?[!.]?$"
    r"|^(?:all (?:done|set)|continue|proceed|go on|go ahead|keep going)[\s!.]*$",
    re.I,
)
# Marks of a sentence that carries a fact: a path or file name, code, a number, an
# identifier, a result or a decision.
# The kinds of fact mark, each with what a text must hold for it to match anywhere: a
# path, a file name, inline code, a number, a snake_case name, a word of outcome. A path
# and a file name are looked for from the start of their run of name characters only:
# from every position of a long run (a hex dump), the search was quadratic (walk 30, F1).
_CONTENT_KINDS: tuple[tuple[str, str], ...] = (
    ("/", r"(?<![\w.-])[\w.-]+/[\w./-]+"),
    (
        ".",
        r"(?<![\w-])[\w-]+\.(?:py|js|ts|tsx|jsx|rs|go|rb|java|kt|c|h|cc|cpp|hpp|"
        r"md|json|toml|yaml|yml|ex|exs|sh|sql|html|css|txt|cfg|ini|lock|swift|php|cs|scala|vue)\b",
    ),
    ("`", r"`[^`]+`"),
    ("digit", r"\b\d+(?:\.\d+)?%?"),
    ("_", r"\b[A-Za-z]+_[A-Za-z_]+\b"),
    (
        "word",
        r"\b(?i:pass(?:es|ed)?|fail(?:s|ed|ing|ure)?|fix(?:es|ed)?|add(?:s|ed)?|remov(?:e|es|ed)|"
        r"renam(?:e|ed)|replac(?:e|ed)|error|bug|because|instead|decid(?:e|ed)|root cause|"
        r"commit(?:ted)?|merged?|works?|broke|crash(?:es|ed)?|timeout|deprecated|"
        r"must|should not|never|always)\b",
    ),
)
_CONTENT = re.compile("(?:" + "|".join(p for _, p in _CONTENT_KINDS) + ")")
# What an ASCII text holds in lower case when the word kind can match in it.
_OUTCOME_STEMS = (
    "pass", "fail", "fix", "add", "remov", "renam", "replac", "error", "bug", "because",
    "instead", "decid", "root cause", "commit", "merge", "work", "broke", "crash",
    "timeout", "deprecated", "must", "should not", "never", "always",
)  # fmt: skip
_ANY_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=64)
def _content_of(kinds: int) -> re.Pattern[str]:
    """`_CONTENT` with only the kinds in the bit set `kinds` (one bit per `_CONTENT_KINDS`)."""
    parts = [p for i, (_, p) in enumerate(_CONTENT_KINDS) if kinds >> i & 1]
    return re.compile("(?:" + "|".join(parts) + ")")


def _content_for(text: str) -> re.Pattern[str] | None:
    """`_CONTENT` without the kinds that cannot match anywhere in `text` (None: no kind
    can): the same matches, found without trying every kind at every position."""
    kinds = 0
    for i, (needs, _) in enumerate(_CONTENT_KINDS):
        if needs == "digit":
            can = _ANY_DIGIT.search(text) is not None
        elif needs == "word":  # case folding beyond ASCII: leave it to the pattern
            low = text.lower()
            can = not text.isascii() or any(stem in low for stem in _OUTCOME_STEMS)
        else:
            can = needs in text
        kinds |= can << i
    return _content_of(kinds) if kinds else None


# An identifier written in camelCase or PascalCase with an inner capital (case matters).
_IDENTIFIER = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)")
# A narrating opener followed by a verb of looking, not of doing: never a fact.
_LOOKING = re.compile(
    _OPENERS + r"(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|i should|"
    r"i want to|we need to|time to)\s+(?:also\s+|now\s+|first\s+|quickly\s+)?"
    r"(?:check|look|examine|see|read|view|explore|search|find|inspect|investigate|analy[sz]e|"
    r"understand|open|review|start|begin|try|run|verify|confirm|test|debug|trace|get|take|"
    r"continue|proceed|submit|create|write|make|fix|update|apply|add|clean|finally)\b",
    re.I,
)


def _marks(text: str, most: int) -> int:
    """The fact marks of `text` (`_CONTENT` and `_IDENTIFIER` matches), counted up to
    `most`: the callers compare with 2 or take at most 3, and a long tool output has
    thousands, which findall would list."""
    content = _content_for(text)
    found = 0 if content is None else sum(1 for _ in islice(content.finditer(text), most))
    if found < most:
        found += sum(1 for _ in islice(_IDENTIFIER.finditer(text), most - found))
    return found


def is_narration(sentence: str) -> bool:
    """The agent narrating its next step, or filler, with no fact in it: "Let me check
    git status.", "Now I'll integrate the cache.", "Perfect!"."""
    text = sentence.strip()
    if _FILLER.match(text):
        return True
    if not _NARRATION.match(text):
        return False
    if text.endswith(_COLON_END) or (_LOOKING.match(text) and "because" not in text.lower()):
        return True  # a lead-in to an action, or looking around
    # "I'll keep `parse()` in engine/read/parse.py: it drops the last line" keeps its facts
    return _marks(text, 2) < 2 and len(text.split()) < 25


def has_content(sentence: str) -> bool:
    """Whether the sentence names something: a path, code, a number, a result, a decision."""
    return bool(_CONTENT.search(sentence) or _IDENTIFIER.search(sentence))


#: aider's commands that only manage its chat (the files it holds, its history, its
#: model, its mode): ``/add FILE``, ``/drop FILE``, ``/read-only FILE``, ``/undo``; not
#: those that carry a request (``/ask``, ``/code``, ``/architect``, ``/help``) nor a
#: command to run (``/run``, ``/test``, ``/git``, ``/commit``).
_CHAT_COMMANDS = (
    "add|drop|read-only|clear|reset|undo|ls|tokens|map|map-refresh|diff|exit|quit|model|"
    "models|editor-model|weak-model|chat-mode|copy|copy-context|save|load|settings|"
    "multiline-mode|think-tokens|reasoning-effort|paste|voice"
)
# Machine text, not anyone's words: a sentence that opens with a tag (``<task-notification>``,
# ``<instructions>``, ``<returncode>``), a bare slash command ("/compact"), a chat-managing
# command with its arguments ("/drop GlobalSettings.cs": walk 70, F11), a code fence.
_MARKUP = re.compile(
    r"^\s*(?:</?[a-z][\w-]*>|/[a-z][\w:-]*[.\s]*$"
    rf"|/(?:{_CHAT_COMMANDS})(?:\s+\S+)*[.\s]*$|```)",
    re.I,
)


#: What a sentence may hold that is no word of prose: inline code, an image or a link's
#: target, a URL, a path (a word with a slash), a slash command. A path is looked for
#: from a word's start only: from every position of a run without spaces (a base64
#: blob), the search was quadratic (walk 29, F2: a minute for a 50,000-character line).
_NOT_PROSE = re.compile(
    r"`[^`]*`|!\[[^\]]*\]\([^)]*\)|\]\([^)]*\)|https?://\S+|(?<!\S)\S*[/\\]\S*"
    # a word of code: an assignment, a call, an identifier (``db_url=db_url,``: walk 50, F11)
    r"|(?<!\S)\S*(?:\w=|=\w|\w\(|\w_\w)\S*"
    # a log line's fields joined by pipes (``15:10:31|INFO|Microsoft.Hosting|``)
    r"|(?<!\S)\S*\w\|\S*"
)
_PROSE_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters of any script
#: An image alone (``![The workbench](docs/workbench.svg)``): markup, not a sentence.
_IMAGE = re.compile(r"\s*!\[[^\]]*\]\([^)]*\)[\s.]*\Z")


def is_markup(sentence: str) -> bool:
    """Machine text: a sentence that opens with a tag (``<task-notification> ...``), a
    bare slash command (``/compact``) or a code fence, an image alone, or no word of
    prose outside code, paths and links (`` `toggle-theme dark`. ``, a bare path): never
    a summary's sentence when the chunk has anything else."""
    if _MARKUP.match(sentence) or _IMAGE.match(sentence) or _FILE_LABEL.match(sentence):
        return True  # (a file's name alone: aider's whole-file edit's label, ``.gitignore``)
    if INTERRUPTED.fullmatch(sentence.strip().rstrip(".")):
        return True  # the tool's mark of a request the user stopped
    return _PROSE_WORD.search(_NOT_PROSE.sub(" ", sentence)) is None


# ------------------------------------------------------------------- fragments

#: Words a sentence does not start on: the rest of a sentence cut in two (by a code
#: block, a list, a chunk's edge): "but I get the following error", "with.".
_CONTINUES = frozenset(
    {"and", "but", "or", "nor", "yet", "with", "without", "which", "whose", "whom", "that"}
    | {"than", "because", "whereas", "although", "though", "unless", "whether", "as", "of"}
    | {"to", "by", "from", "into", "onto", "via", "per", "on", "at", "in", "for", "like"}
)
#: Words that open a question as well as go on from a cut ("is it done?"): a
#: continuation only when the sentence is no question.
_CONTINUES_UNLESS_ASKED = frozenset(
    {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had"}
)
#: A sentence's first word when it is a plain lowercase word (not a name such as
#: ``cache_key()``, ``conftest.py`` or ``spotter-fum.2``, which may open a sentence).
_PLAIN_FIRST = re.compile(r"[a-z][a-z'’-]*(?=[\s,;!?]|$)")
#: An item that goes on from the items before it: what holds when they do not.
_OTHERWISE = re.compile(r"[*_]*(?:otherwise|else|if not|failing that)\b", re.I)
#: The agent writes sentences that start with a capital: one of its sentences that
#: starts lowercase after another one is the rest of a sentence the split cut.
_AGENT_ROLES = frozenset({"Bot", "Bot thinking"})
#: The label mini-swe-agent's text mode has the model open its message with
#: (``THOUGHT: I will look at the tests.``): the model's words follow it.
_THOUGHT_LABEL = re.compile(r"^THOUGHT:\s*")
#: Markup around a sentence's words (bold, italics, code marks).
_MARKS = "*_`~ \t"
#: A lead-in with at most this many words of content only introduces what follows.
_LEAD_IN_WORDS = 3
#: A title in bold ending in a colon with at most this many words of content only
#: names the block it introduces.
_TITLE_WORDS = 4
#: Words that point at what follows: a lead-in with one only introduces it.
_POINTERS = frozenset({"following", "follows", "below", "here", "these", "this"})
#: Words a lead-in ends on that leave its sentence open ("Use environment variables
#: when:", "Values like:").
_INTRODUCES = frozenset(
    {"when", "if", "where", "like", "include", "includes", "including"}
    # a verb whose object is what follows ("With --embed the document gains:": walk 50,
    # F12; "The output is:", "The file contains:")
    | {"is", "are", "was", "were", "gains", "gets", "adds", "contains", "has", "have"}
    | {"shows", "returns", "gives", "provides", "lists", "says", "reads", "prints", "becomes"}
    | {"describes", "explains", "covers", "mentions", "outlines", "defines", "specifies"}
    | {"supports", "requires", "accepts", "expects"}
    # a way whose command is the block ("... or by running:", "Launch it using:")
    | {"running", "using", "typing", "executing", "calling", "run", "type", "execute"}
    # a clause whose reason or condition is the list ("It is likely failing because:",
    # walk 60, F12), or a word whose object is ("The error might be due to missing:")
    | {"because", "since", "unless", "until", "whereas", "namely", "missing", "lacking"}
    | {"containing", "requiring", "needing", "involving", "affecting", "causing"}
    # a choice or an example that is the list ("you could either:", "for example:",
    # walk 61, F10), a modal waiting for its verb ("**FastAPI** will:")
    | {"either", "example", "instance", "will", "would", "can", "could", "should", "may"}
    | {"might", "must", "shall"}
)
#: A lead-in's last clause of one word after a comma, which no clause is alone: an
#: adverb or a conjunction whose object is what follows ("..., particularly:",
#: Czech "Tyto změny zajistí, že:", "..., namely:": walk 64, F5), in any language.
_OPEN_CLAUSE = re.compile(r",\s*[*_]*[^\W\d_]+[*_]*\Z")
#: A lead-in that ends on a relative clause's verb, its object what follows ("... with
#: "Chart Generation & Web Server" that describes:", walk 63, F7).
_OPEN_RELATIVE = re.compile(r"\b(?:that|which|who)\s+[*_]*[^\W\d_]+s[*_]*\Z", re.I)
#: A lead-in that is a condition or a time alone, its main clause the list after it
#: ("If `hostnameOverride` is set alongside `hostname` and `subdomain` fields:").
_SUBORDINATE = re.compile(
    r"\W*(?:\w+:\s*)?(?:if|when|whenever|once|unless|while|after|before)\b", re.I
)
#: An MDN macro inside a sentence (``{{jsxref("Array")}}``, ``{{optional_inline}}``):
#: said as its last quoted argument (the text the page shows), or nothing.
_INLINE_MACRO = re.compile(r"\{\{\s*[A-Za-z_][\w-]*\s*(?:\(([^{}]*)\))?\s*\}\}")
_QUOTED_ARGUMENT_TEXT = re.compile(r"[\"']([^\"']*)[\"']")


def _macro_text(m: re.Match[str]) -> str:
    said = _QUOTED_ARGUMENT_TEXT.findall(m.group(1) or "")
    return f"`{said[-1]}`" if said and said[-1].strip() else ""


#: Words a statement opens with (its subject's), not a step: a lead-in that opens with
#: one says something over its block ("You could add a property to `Car3`:").
_SUBJECTS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "its", "their"}
    | {"i", "we", "you", "it", "they", "he", "she", "there"}
)
#: A message's last words cut short: at most this many, a determiner first, no stop.
_STUMP_WORDS = 2
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "its", "their"}
)
#: A title written in bold alone (``**Inspecting repository**``): no sentence.
_BOLD_TITLE = re.compile(r"\*\*([^*]+)\*\*[\s.:]*")
#: A title in plain text: two to five words, each capitalised but for the small words
#: between them (``Proposed Plan``, ``Questions for Review``), no stop.
_PLAIN_TITLE = re.compile(
    r"[A-Z][\w'-]*(?:\s+(?:[A-Z][\w'-]*|of|for|and|the|to|in|on|a|an|with)){1,4}"
)


#: An aside in brackets, inside a sentence.
_ASIDES_IN = re.compile(r"\s*\([^()]*\)")


#: Chinese or Japanese characters, written without spaces: `_content_words` counts a
#: word of content for each run of `_WIDE_WORD_CHARS` of them.
_WIDE_RUN = re.compile(f"[{WIDE_SCRIPT}]+")
#: About the characters of a word of content in Chinese or Japanese (a word is one or two
#: characters, and the particles between words no content): "一些关于配方的想法" ("some
#: ideas for recipes") is 3, as its English is 2 (walk 71, F6).
_WIDE_WORD_CHARS = 3
#: What makes a Chinese lead-in one that only introduces what follows, as `_POINTERS`,
#: `_INTRODUCES` and `_SUBORDINATE` do an English one: a word pointing at it anywhere
#: ("以下", "如下": "the following"), a last word whose object it is ("包括": "include",
#: "为": "to"), or a condition alone ("如果 ...": "if ...", no comma).
_WIDE_POINTERS = ("以下", "如下", "下面", "下列")
_WIDE_INTRODUCES = ("包括", "包含", "例如", "比如", "是", "为", "成")
_WIDE_CONDITIONS = ("如果", "假如", "要是")


def _wide_lead_in(text: str) -> bool:
    """Whether `text`, a lead-in without its colon, only introduces what follows in
    Chinese (`_WIDE_POINTERS`, `_WIDE_INTRODUCES`, `_WIDE_CONDITIONS`): "与 `just`
    搭配得很好的工具包括：" ("Tools that go well with `just` include:")."""
    text = text.strip(_MARKS)
    return (
        any(w in text for w in _WIDE_POINTERS)
        or text.endswith(_WIDE_INTRODUCES)
        or (text.startswith(_WIDE_CONDITIONS) and not any(c in text for c in ",，"))
    )


def _content_words(text: str) -> list[str]:
    """`text`'s words of content (no stopword; a number is one); a run of Chinese or
    Japanese, one `_WORD` however long, is a word per `_WIDE_WORD_CHARS` characters (a
    lead-in of twelve characters says as much as one of four English words)."""
    words = [w.lower() for w in _WORD.findall(_INLINE_CODE.sub(" code ", text))]
    words = [piece for w in words for piece in (_wide_pieces(w) if _WIDE_RUN.search(w) else (w,))]
    return [w for w in words if w not in _STOPWORDS or w.isdecimal()]


def _wide_pieces(word: str) -> list[str]:
    """`word` with each run of Chinese or Japanese in it cut into a piece per
    `_WIDE_WORD_CHARS` characters, one at least (what is not of those scripts a piece of
    its own)."""
    out: list[str] = []
    at = 0
    for m in _WIDE_RUN.finditer(word):
        if m.start() > at:
            out.append(word[at : m.start()])
        run = m.group()
        n = max(1, len(run) // _WIDE_WORD_CHARS)
        out += [run[k * len(run) // n : (k + 1) * len(run) // n] for k in range(n)]
        at = m.end()
    if at < len(word):
        out.append(word[at:])
    return out


#: A title that is a question's words without its mark: "How to test registration".
_WH_TITLE = re.compile(r"(?:How|What|Why|When|Where|Which|Who)\b")
#: A field that only points at another item of a plan (walk 52, F10): "Depends on: Task
#: 1", "See: #12"; not a label saying what was done to it ("Opened: PR #112", walk 57).
_LABELLED_REFERENCE = re.compile(
    r"\W*(?:depends on|see|see also|refs?|related(?: to)?|relates to|part of|parent|after|"
    r"requires|follows)\W*:\**\s*(?:(?:tasks?|steps?|phases?|issues?|items?|PR|bead)\s*#?|#)"
    r"[\d.]+(?:\s*(?:,|and|&)\s*#?[\d.]+)*",
    re.I,
)
#: What GitHub's issue forms write for a field left empty: no one's words.
_NO_RESPONSE = re.compile(r"\s*_No response_\.?\s*")
#: A sentence that is all one aside or one quoted phrase, with no stop inside.
_ASIDE_ALONE = re.compile(r'\([^().!?]*\)|"[^".!?]*"|“[^“”.!?]*”')


def is_fragment(sentence: Sentence) -> bool:
    """Whether `sentence` is a fragment, never a summary's sentence however central:

    - it only introduces what follows, which is not in a summary (a list, a block): it
      ends with a colon and says little itself ("I've added:", "Here's the fix:", "Use
      it when:"), or it is a label with no value ("Depends on: —", "**Description:**");
    - a title in bold alone that names nothing (``**Inspecting repository**``);
    - it starts mid-sentence: a plain lowercase word that goes on from something
      ("but", "with", "to", ...), or any plain lowercase word right after a block the
      summary leaves out, opening a list item ("1. a separate model, **or**"), or
      after another sentence of the agent's;
    - it ends mid-sentence (on "or", "the", "is", ... with no stop);
    - it starts or ends inside a quotation (an odd number of ``"`` outside code);
    - it has no word of content (each word a stopword: "You have.");
    - it is a user's one-word message without a stop ("verify": walk 50, F13);
    - it is an issue form's placeholder of an empty field (``_No response_``).
    """
    text = sentence.text.strip()
    if not has_words(text) or _NO_RESPONSE.fullmatch(text):
        return True  # (an issue form's empty field, "_No response_": walk 70, F9)
    prose = _INLINE_CODE.sub(" code ", text)  # a colon or a quote mark in code is the code's
    bare = prose.rstrip(_MARKS)
    words = [w.lower() for w in _WORD.findall(prose)]
    content = _content_words(text)
    if not content:
        return True
    if sentence.role == "You" and len(words) == 1 and not _ENDED.search(bare):
        return True  # a one-word request ("verify", "fix") said as a sentence: "verify."
    if bare.endswith("::") and not bare.endswith(":::"):
        bare = bare[:-1]  # reStructuredText's lead-in of a literal block ("work::", walk 61, F7)
    at = max(bare.rfind(c) for c in COLONS)  # (the last colon, ASCII or full-width)
    head, colon, tail = bare[: max(at, 0)], bare[at : at + 1] if at >= 0 else "", bare[at + 1 :]
    if colon and not head.endswith(_COLON_END) and not has_words(tail):
        # a lead-in (or a label) whose block is not here: a fragment when introducing
        # is all it does ("I've added:", "Here's the fix:", "Depends on: —"), not when
        # it says something itself ("Install the dependencies and run the tests:" over
        # a list, whose items a summary may say); in a message, a step whose colon
        # introduces a code block says itself only with that code, which no summary
        # holds (walk 64, F16: "Then find the new token account." of ``spl-token ...
        # accounts``); a lead-in whose last clause is one word (`_OPEN_CLAUSE`, F5) is
        # left open
        last = head.rstrip(_MARKS).rsplit(None, 1)[-1].lower() if head.strip() else ""
        # (its asides say no more of what follows: "What changed (each keeps the results
        # identical; ...):" is a title over its block, walk 57, F12)
        plain = _ASIDES_IN.sub(" ", head)
        # (a statement over its block, its subject first, says something: "Your fallback
        # connection string in Program.cs uses `mongodb:27017`:")
        stated = bool(words) and words[0] in _SUBJECTS
        if (
            len(content) <= _LEAD_IN_WORDS
            or (sentence.opens == "block" and sentence.role != DOC_ROLE and not stated)
            or _OPEN_CLAUSE.search(plain.rstrip(_MARKS))
            or _OPEN_RELATIVE.search(plain.rstrip(_MARKS))
            or (plain != head and not _ENDED.search(plain) and _WH_TITLE.match(plain.strip(_MARKS)))
            or len(_content_words(plain)) <= _LEAD_IN_WORDS
            or not _POINTERS.isdisjoint(words)
            or last in RUNS_ON
            or last in _INTRODUCES
            or (_SUBORDINATE.match(plain) and "," not in plain)
            or (_WIDE_RUN.search(plain) is not None and _wide_lead_in(plain))
        ):
            return True
    title = _BOLD_TITLE.fullmatch(text)
    named = title.group(1).rstrip() if title else ""
    if named.endswith(_COLON_END) and sum(not w.isdecimal() for w in content) <= _TITLE_WORDS:
        return True  # a short title in bold that introduces its block: "**1. Approach
        # summary (~30 words):**" (not a step that says what it does: "**1. Update
        # `App.js` to manage theme state and add the toggle button:**")
    untitled = not has_content(named) or _PLAIN_TITLE.fullmatch(named) or _SUBORDINATE.match(named)
    labelled = any(c in named for c in COLONS)  # ("**Verdict: APPROVE**")
    if named and not _ENDED.search(named) and not labelled and sentence.opens == "comment":
        return True  # an issue template's label, its value the template's comment alone:
        # "**Bug summary**" over "<!--A short 1-2 sentences ...-->" (walk 64, F7)
    if named and not _ENDED.search(named) and not labelled and untitled:
        return True  # "**Inspecting repository**", "**Personal GitHub Profile**" (a
        # form's label: walk 53, F2), "**If your browser wallet is Phantom/Solflare**"
        # (the case a step-by-step answer's part covers: walk 64, F16), not "**Verdict:
        # APPROVE**"
    if not _ENDED.search(text) and (
        _PLAIN_TITLE.fullmatch(bare) or (_WH_TITLE.match(bare) and len(words) <= 6)
    ):
        return True  # a section's title in plain text: "Proposed Plan" (walk 53, F3),
        # "How to test registration", "What was added" (an outline's items)
    if _LABELLED_REFERENCE.fullmatch(bare.rstrip(".")):
        return True  # a field that only points at another item: "Depends on: Task 1"
    if _ASIDE_ALONE.fullmatch(bare.rstrip(".")):
        return True  # an aside or a quoted label alone: "(no real QR image yet)", '"My
        # Tickets"' (walk 53, F2)
    if (
        sentence.after == "item"
        and len(words) <= _LEAD_IN_WORDS
        and "`" not in text  # ("**`multiply_numbers`** in `src/math.py`" names what)
        and not _ENDED.search(bare)
    ):
        return True  # a list's short item, its lead-in not here: "X profile" (walk 53, F2)
    if (
        sentence.opens == "block"
        and sentence.role != DOC_ROLE
        and _ENUMERATED.match(text)
        and len(content) <= _LEAD_IN_WORDS
        and not _ENDED.search(bare)
    ):
        return True  # a numbered label in a message over the block after it, which no
        # summary holds: "2/ same query with alias" over the user's query (walk 68, F1);
        # not a request or a status over its paste ("make the sidebar collapsible")
    if sentence.after == "item" and _OTHERWISE.match(text):
        return True  # an item that says what holds when the items before it do not:
        # "Otherwise, the first positional argument ..." of click's "as follows:" list,
        # said without them (walk 72, F11)
    first = _PLAIN_FIRST.match(text)
    if first:
        word = first.group(0)
        if word in _CONTINUES or sentence.after in ("block", "item"):
            return True
        if word in _CONTINUES_UNLESS_ASKED and not bare.endswith("?"):
            return True
        if sentence.after == "sentence" and sentence.role in _AGENT_ROLES:
            return True
    if not _ENDED.search(bare) and bare.rsplit(None, 1)[-1].strip(_MARKS).lower() in RUNS_ON:
        return True  # "solve static contact constraints, or"
    if (
        sentence.role in _AGENT_ROLES
        and sentence.opens in ("end", "turn")
        and len(words) <= _STUMP_WORDS
        and words[0] in _DETERMINERS
        and not _ENDED.search(bare)
    ):
        return True  # a message the model cut short on a determiner and its noun, no
        # verb: "The standard" (walk 64, F6: said "The standard.")
    return prose.count('"') % 2 == 1


def content_weight(sentence: str) -> float:
    """0 for narration, filler and machine text; otherwise 1, more for each fact mark
    (up to 1.6)."""
    if is_narration(sentence) or is_markup(sentence):
        return 0.0
    marks = _marks(sentence, 3)
    return 1.0 + marks * 0.2 if marks else 0.7


_ENDED = re.compile(rf"[.!?:;…：；{_WIDE_STOPS}]['\"”’)\]`*」』）]*$")
#: A sentence that ends in a Chinese or Japanese character ends with their full stop.
_WIDE_END = re.compile(f"[{WIDE_SCRIPT}]\\Z")
#: Text that ends in a script whose sentences take no ASCII full stop (Thai: walk 28, F3).
_MARKLESS_END = re.compile(f"[{MARKLESS_SCRIPT}]\\Z")


#: A sentence that ends on a bare URL (``go to: https://example.com/x.html``).
_URL_END = re.compile(r"\b[a-z][a-z+.-]*://[^\s`]+\Z", re.I)


def terminated(sentence: str, *, url_stop: bool = False) -> str:
    """The sentence with a full stop when it ends without punctuation (a fragment
    joined to the next one would read as one: "takes parameters The outermost ..."), or
    with a colon: the lead-in of a block (code, a table, a list) a summary leaves out.
    One that ends on a bare URL gets none (on a line of its own, a stop reads as the
    URL's: walk 64, F13) unless `url_stop` (a summary's paragraph: the next sentence
    would read on from it). A trailing comma or dash gives way to the stop."""
    text = sentence.rstrip()
    core = text.rstrip("*_")  # "**1. Update the styles:**" ends as "**1. Update the styles.**"
    if core.endswith(_COLON_END) and not core.endswith(":::"):
        # (reStructuredText's "::" of a literal block's lead-in too: walk 61, F7; a
        # Chinese lead-in's "：" is made "。": walk 71, F6)
        stem = core.rstrip(COLONS).rstrip()
        wide = core.endswith(WIDE_COLON) or _WIDE_END.search(stem)
        return stem + ("。" if wide else ".") + text[len(core) :]
    if not text or _ENDED.search(text) or _MARKLESS_END.search(text):
        return text
    if not url_stop and _URL_END.search(text):
        return text
    if text.endswith((",", "—", "–")):
        # a line that runs on into the next (a poem's, a list's): its comma or dash gives
        # way to the stop ("fills the air,." was a summary's sentence)
        text = text.rstrip(",—–").rstrip()
        if not text:
            return sentence.rstrip()
    return text + ("。" if _WIDE_END.search(text) else ".")


#: A sentence ended by a wide full stop, which the next follows without a space.
_WIDE_STOP_END = re.compile(r"[。！？][」』”’）)\]]*\Z")


def joined(sentences: Iterable[str]) -> str:
    """`sentences` as one text: a space between two, none after a wide full stop
    (Chinese and Japanese put none: walk 28, F3 read ``LRU。 旧的``)."""
    out = ""
    for sentence in sentences:
        if out and sentence and not _WIDE_STOP_END.search(out):
            out += " "
        out += sentence
    return out


def sentences_of(text: str) -> list[str]:
    """The sentences of a plain paragraph (a summary's text), in order."""
    return _split_prose(" ".join(text.split()))


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a chunk, with the role of the turn it came from.

    ``prose`` is False for collapsed tool sentences, headings and other
    boilerplate that should not stand for a chunk that has real prose. ``heading``: a
    markdown heading, a title of what follows, never a summary on its own. ``after``
    tells a sentence that goes on from something cut out (`is_fragment`).
    """

    text: str
    role: str
    position: int
    prose: bool
    heading: bool = False
    #: What comes right before it in its turn: "block" (fenced code, a table, an output:
    #: the paragraph goes on after something a summary leaves out), "item" (it opens a
    #: list item, often the end of the sentence that introduced the list), "sentence"
    #: (another sentence of its paragraph) or "" (it opens its turn or paragraph).
    after: str = ""
    #: What comes right after it, when it ends its paragraph: "block" (code), "table",
    #: "item" (a list) or "comment" (an HTML comment: a template's placeholder) opens
    #: next in its turn, "turn" (another role's turn), "end" (the text ends: what follows
    #: is in another chunk); else "".
    opens: str = ""
    #: For a list item's first sentence, the position of the lead-in (a sentence ending
    #: in a colon) that opened its list, -1 without one: an item kept without a lead-in
    #: that is a fragment is said with it (`ExtractiveSummarizer.summarize`).
    lead: int = -1
    #: Said in a quote (``> `` lines): someone else's words the turn quotes (an issue's,
    #: the user's), never the turn's own state (walk 69, F5).
    quoted: bool = False


#: Bold's marks: a sentence never ends inside bold (its closing marks follow).
_BOLD = "**"
#: The markup a list number or a bold lead-in opens with: ``**4.``, ``_2.``.
_LEAD_MARKS = "*_"


def _in_bold(text: str, begin: int, stop: int) -> bool:
    """Whether `stop` is inside a bold span opened since `begin` and closed after it:
    ``**4. Show it to someone.** More`` is one sentence, not "**4." and the rest."""
    return text.count(_BOLD, begin, stop) % 2 == 1 and text.find(_BOLD, stop) >= 0


def _is_boundary(text: str, stop: int, nxt: int, begin: int = 0, bold: bool = False) -> bool:
    """Whether the stop ending at `stop` (index of its first mark) ends a sentence that
    began at `begin`. A list item's number (``4.`` opening the sentence, ``**4.``) is no
    end, nor is a stop inside bold (`bold`: the text has bold marks). A full-width stop
    always is."""
    if text[stop] in _WIDE_STOPS:  # (not inside bold: "**訊號過濾。改成對 PR**", F15)
        return not (bold and _in_bold(text, begin, stop))
    if text[stop] == ".":
        start = text.rfind(" ", 0, stop) + 1
        word = text[start:stop].lstrip("\"'“‘([")
        if word.replace(".", "").lower() in _INTRODUCERS:
            return False
        number = word.lstrip(_LEAD_MARKS)
        if (
            number.isdecimal()
            and len(number) <= 3
            and not text[begin:start].strip(_LEAD_MARKS + " ")
        ):
            return False  # "4. Show it", "**4. Show it": an item's number
    if bold and _in_bold(text, begin, stop):
        return False
    if _STARTER.match(text, nxt):
        return True
    if not _LOWER_START.match(text, nxt) or text[stop] != "." or text.startswith("..", stop):
        return False  # an ellipsis before a lowercase word: the sentence goes on
    if text[stop:nxt].rstrip()[-1] in CLOSING_MARKS:
        return False  # a quotation ended, the sentence goes on: `said "Ship it." and left`
    start = text.rfind(" ", 0, stop) + 1
    word = text[start:stop]
    return len(word) >= 2 and "." not in word and word.lower() not in _ABBREVIATIONS


#: Inline code: a quote mark inside it is the code's, no quotation.
_INLINE_CODE = re.compile(r"`[^`\n]*`")
#: The farthest a quotation's closing mark may be from a stop inside it for the stop
#: not to end a sentence (an unclosed mark further away is a stray one).
_QUOTE_REACH = 400


class _Quotes:
    """Where a paragraph's quotations are (straight ``"``, curly and single marks,
    outside inline code), to tell whether a stop is inside one: a quoted question ("Is
    it right? What is best?") is part of the sentence that quotes it; so is an aside in
    parentheses or square brackets (``(maybe it flags? Actually not)``, ``(approx. pi)``:
    walk 46, F1 and F3). A single mark
    opens a quotation after a blank and closes one before a blank or a stop; one between
    two letters is an apostrophe (``I'd``), neither. A closing mark with nothing open
    (``the users' files``) closes nothing."""

    __slots__ = ("closes", "opens", "straight")

    def __init__(self, text: str, spans: list[tuple[int, int]]) -> None:
        """`spans`: where the inline code of `text` is (`code_spans`)."""
        self.straight = (
            [m.start() for m in _outside(_STRAIGHT_QUOTE, text, spans)] if '"' in text else []
        )
        cut = CUT_END.search(text) is not None
        if cut and len(self.straight) % 2:
            self.straight.append(len(text))  # a text cut short closes at its end what it left open
        pairs, pending = _quote_pairs(text, spans)
        if cut:
            pairs.extend((m.start(), len(text)) for m in pending)
        if "(" in text or "[" in text:  # an aside: ``(maybe it flags? Actually not)``
            asides, opened = _bracket_pairs(text, spans, _ASIDES)
            pairs.extend(asides)
            if cut:
                pairs.extend((i, len(text)) for _, i in opened)
        pairs.sort()
        self.opens = [a for a, _ in pairs]
        self.closes = [b for _, b in pairs]

    def inside(self, begin: int, stop: int) -> bool:
        """Whether `stop` is inside a quotation opened since `begin` and closed soon
        after it."""
        lo, hi = bisect_left(self.straight, begin), bisect_left(self.straight, stop)
        if (hi - lo) % 2 and hi < len(self.straight) and self.straight[hi] - stop < _QUOTE_REACH:
            return True
        return any(
            stop < close < stop + _QUOTE_REACH
            for close in self.closes[bisect_left(self.opens, begin) : bisect_left(self.opens, stop)]
        )


def _outside(
    mark: re.Pattern[str], text: str, spans: list[tuple[int, int]]
) -> Iterator[re.Match[str]]:
    """The matches of `mark` in `text` outside its inline code (`spans`: `code_spans`)."""
    starts = [a for a, _ in spans]
    for m in mark.finditer(text):
        i = m.start()
        if not spans or (k := bisect_right(starts, i) - 1) < 0 or i >= spans[k][1]:
            yield m


def _quote_pairs(
    text: str, spans: list[tuple[int, int]]
) -> tuple[list[tuple[int, int]], list[re.Match[str]]]:
    """The curly and single quotations of `text` outside its inline code (`spans`), as
    (opening, closing) offsets, matched as a stack (a closing mark with nothing open
    closes nothing), and the opening marks left open, in order."""
    pending: list[re.Match[str]] = []
    pairs: list[tuple[int, int]] = []
    for m in _outside(_QUOTE_MARK, text, spans):
        if m.group(1) is not None:
            pending.append(m)
        elif pending:
            pairs.append((pending.pop().start(), m.start()))
    return pairs, pending


_STRAIGHT_QUOTE = re.compile('"')
#: The brackets an aside is in (`_Quotes`); a cut closes braces too (`_closing_brackets`).
_ASIDES = "(["
#: A quotation's mark, its group 1 for an opening one: a curly mark, or a single one
#: after a blank (or an opening bracket or brace) before a character that is not blank; a
#: closing single one follows a character that is not blank before a blank, a stop or a
#: closing bracket or brace (a Python dict's ``{'foo': 'bar'}`` opens and closes its
#: quotes: walk 64, F10).
_QUOTE_MARK = re.compile(r"(“|(?:(?<=[\s(\[{])|^)['‘](?=\S))|”|(?<=\S)['’](?=[\s.,;:!?)\]}]|$)")
#: What may be a quotation's mark: a paragraph without one has no quotation.
_QUOTE_MARKS = frozenset("\"“'‘([")


def _split_prose(text: str) -> list[str]:
    """The sentences of a paragraph; a fragment without words (a lone ``**``, ``--``)
    is no sentence (`has_words`, the rule a summary's parts follow). A stop inside a
    quotation that closes soon after it ends no sentence. A sentence of a span in
    italics that holds more than one (`_emphasis_pairs`) is in italics itself: each
    says its marks (`_emphasised`)."""
    parts: list[tuple[int, int]] = []  # each sentence's (start, end) in `text`
    begin = 0
    bold = _BOLD in text
    code = code_spans(text)
    quotes = _Quotes(text, code) if not _QUOTE_MARKS.isdisjoint(text) else None
    code_starts = [a for a, _ in code]
    for m in _SENTENCE_END.finditer(text):
        if quotes is not None and quotes.inside(begin, m.start(1)):
            continue  # the closing marks after the stop are the sentence's own
        if code and (k := bisect_right(code_starts, m.start()) - 1) >= 0 and m.start() < code[k][1]:
            continue  # a stop inside inline code is the code's (walk 37, F2)
        if _aside_ends(text, begin, m.start(), m.start(1)):
            continue  # "... the endpoint (which works in the browser!) I get this error."
        if _is_boundary(text, m.start(), m.end(), begin, bold):
            parts.append((begin, m.start(1)))
            begin = m.end()
    parts.append((begin, len(text)))
    spans = _emphasis_pairs(text, code) if len(parts) > 1 and "*" in text else []
    return [
        _emphasised(_without_wordless_tail(text[a:b].strip()), a, b, spans)
        for a, b in parts
        if has_words(text[a:b])
    ]


def _aside_ends(text: str, begin: int, stop: int, after: int) -> bool:
    """Whether the ``!`` or ``?`` at `stop` ends an aside in parentheses that a ``)`` right
    after it closes, in a sentence that began before the aside (words between `begin`
    and its ``(``): the sentence goes on after it, whatever word comes next ("... the
    endpoint (which I know works from the internet browser!) I get this error.")."""
    if text[stop] not in "!?" or ")" not in text[stop:after]:
        return False  # (a full stop before the ")" may end the sentence too: "(all 30
        # passed.) Then we pushed.")
    opened = text.rfind("(", begin, stop)
    return opened > begin and ")" not in text[opened:stop] and has_words(text[begin:opened])


#: A single ``*`` (not bold's ``**``, not an escaped one): what opens or closes italics.
_EMPHASIS_MARK = re.compile(r"(?<![*\\])\*(?!\*)")
#: What may stand right before a ``*`` that opens italics: a blank, an opening bracket or
#: quotation mark.
_BEFORE_EMPHASIS = " \t([{\"'“‘"
#: What may follow a ``*`` that opens italics besides a letter or digit (a glob's
#: ``*.py`` opens none).
_EMPHASIS_STARTS = "([`\"'“‘_"


def _emphasis_pairs(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans in italics of `text` marked with single ``*`` outside its inline code
    (`code`: `code_spans`), as (opening, closing) offsets: a mark at the start or after a
    blank or an opening mark, before a letter, a digit or an opening mark, opens one; the
    next after a character that is no blank, before no letter or digit, closes it (one
    between blanks, ``2 * 3``, does neither, nor a glob's ``*.py``)."""
    pairs: list[tuple[int, int]] = []
    opened = -1
    for m in _outside(_EMPHASIS_MARK, text, code):
        i = m.start()
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        if before in _BEFORE_EMPHASIS and (after.isalnum() or after in _EMPHASIS_STARTS):
            opened = i  # (the nearest opening mark is the one a closing mark closes)
        elif opened >= 0 and not before.isspace() and not after.isalnum():
            pairs.append((opened, i))
            opened = -1
    return pairs


def _emphasised(sentence: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    """`sentence` (the paragraph's from `start` to `end`) with the italics marks it lacks
    of a span in `spans` (`_emphasis_pairs`) that it shares with other sentences: the
    closing one when the span goes on after it, the opening one when it began before it.
    Cut out of ``*Look for a drive ... Disk 2. If it has one, you will see `/dev/sdc1`.*``,
    a summary's ``If it has one, you will see `/dev/sdc1`.*`` left a lone ``*`` that a
    markdown view paired with the next sentence's (walk 69, F2)."""
    for opening, closing in spans:
        if closing < start or opening >= end or (start <= opening and closing < end):
            continue  # (another sentence's span, or one of its own)
        if opening < start:
            sentence = "*" + sentence
        if closing >= end:
            sentence += "*"
    return sentence


#: A sentence's stop (with its closing marks) before a blank: what may end it.
_STOP_BEFORE_BLANK = re.compile(SENTENCE_STOP + r"(?=\s)")


#: The marks that close an aside or a quotation (Chinese and Japanese ones too).
_CLOSING_ASIDES = ")]}」』”’）"


def _without_wordless_tail(sentence: str) -> str:
    """`sentence` without what follows its last stop when that has no word: ``Tidy now.
    🎉`` is ``Tidy now.`` (a summary ended ``now. 🎉.``: walk 38, F3); ``Done. ✓ 12/12``
    stays."""
    if not sentence or sentence[-1].isalnum() or sentence[-1] in ".!?…*_`~":
        return sentence
    stops = list(_STOP_BEFORE_BLANK.finditer(sentence))
    if not stops:
        return sentence
    tail = sentence[stops[-1].end() :]
    if has_words(tail) or any(mark in tail for mark in "*_`~" + _CLOSING_ASIDES):
        return sentence  # (a closing mark of bold, code or an aside is the sentence's:
        # "(...login redirect。)", walk 57, F15)
    return sentence[: stops[-1].end()]


#: How many chunks' splits `split_sentences` keeps: the recap asks for each candidate's
#: (its floor, then its summary), the workbench for the chunk shown.
SPLIT_MEMO = 4096


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of a chunk's text (`_split_sentences`), split once per text: the
    recap's floor and summary of a chunk each asked for them (a recap of a document of
    20,000 headings: 7.1 -> 6.2 CPU s, the same recap)."""
    return list(_split_memo(text))


@lru_cache(maxsize=SPLIT_MEMO)
def _split_memo(text: str) -> tuple[Sentence, ...]:
    return tuple(_split_sentences(text))


def _split_sentences(text: str) -> list[Sentence]:
    """The sentences of a chunk's text, in order, without role prefixes.

    A line starting with a known role (``Bot: ...``) opens a turn. Within a
    turn, consecutive lines form a paragraph (joined with spaces); a blank line,
    a list item or a heading starts a new one. Fenced code, tables and
    horizontal rules are left out. A quote (``> ...`` lines) is a block of its own:
    its markers are taken off and its lines read as any others (a quoted list item,
    heading or fence is one), never joined to the text around it. ``Tool`` lines are
    one sentence each (a list item's or a quote's marker taken off), never prose;
    headings are not prose either.
    """
    sentences: list[Sentence] = []
    role = ""
    buffer: list[str] = []
    code = _Code()
    opened_after = ""  # what the paragraph in `buffer` follows: "block" or ""
    after_block = False  # a block (code, a table, an output) came last in this turn
    in_quote = False  # the lines in `buffer` are a quote's
    code_quoted = False  # the code block being walked opened inside a quote

    ended = -1  # the last sentence of the paragraph flushed last, when nothing came since
    ended_item = False  # that paragraph is a list item's
    list_lead = -1  # the lead-in of the list item in `buffer` (`Sentence.lead`)
    # the lists the walk is in, outermost first: each one's indentation and lead-in (-1:
    # none); an item's own list nested under it is the next
    leads: list[tuple[int, int]] = []
    item_indent = 0  # the indentation of the last item's marker

    def flush() -> None:
        nonlocal ended, ended_item
        if buffer:
            para = " ".join(buffer)
            item = opened_after == "item"
            for k, s in enumerate(_split_prose(para)):
                after = "sentence" if k else opened_after
                lead = list_lead if item and not k else -1
                sentences.append(
                    Sentence(s, role, len(sentences), True, after=after, lead=lead, quoted=in_quote)
                )
            buffer.clear()
            ended, ended_item = len(sentences) - 1, item

    def opens(what: str) -> None:
        """A block or a list (`what`) opens: the paragraph just ended introduces it."""
        nonlocal ended
        if ended >= 0 and not sentences[ended].opens:
            sentences[ended] = replace(sentences[ended], opens=what)
        ended = -1

    def single(s: str, prose: bool, heading: bool = False) -> None:
        nonlocal ended, list_lead
        s = " ".join(s.split())
        if has_words(s):
            sentences.append(Sentence(s, role, len(sentences), prose, heading))
            ended = list_lead = -1
            leads.clear()

    in_comment = False
    described = ""  # the name a reStructuredText description's directive gave (`_DESCRIBED`)
    shortcode = ""  # the name of the template's code block the walk is in (`_CODE_SHORTCODE`)
    pasted = False  # the line before was code pasted without a fence (`_pasted_code`)
    title: str | None = None  # the paragraph's one line so far, when plain text
    for raw in _chunk_lines(text):
        line = raw
        m = _ROLE_LINE.match(line)
        if m and not code.busy:
            flush()
            if m.group(1) != role:
                after_block, list_lead = False, -1
                leads.clear()
                opens("turn")
            role = m.group(1)
            line = line[m.end() :]
        if not code.busy and role not in ("You", "Tool"):
            line = _THOUGHT_LABEL.sub("", line, count=1)
        if role == "You" and not code.busy:
            line = _REQUEST_COMMAND.sub("", line, count=1)
        macro = role == DOC_ROLE and "{{" in line and "}}" in line
        if macro and not code.busy and not _DOC_MARKUP_LINE.fullmatch(line):
            line = _INLINE_MACRO.sub(_macro_text, line)  # (walk 61, F3: MDN's pages)
        if role == DOC_ROLE and not code.busy and "<" in line:
            line = _without_inline_tags(line)  # (a figure's caption: its words alone)
        if role == DOC_ROLE and not code.busy and "][" in line:
            line = _link_texts(line)  # (``[Remove a feature][cargo-feature-remove]``)
        if not code.busy and (in_comment or "<!--" in line):
            # an HTML comment is no text a reader of the rendered markdown sees
            if in_comment:
                end = line.find("-->")
                if end < 0:
                    continue
                line, in_comment = line[end + 3 :], False
            line = _COMMENT.sub("", line)
            if "<!--" in line:
                line, in_comment = line[: line.index("<!--")], True
            if not line.strip():
                if not buffer:
                    opens("comment")
                continue
        quote = _QUOTE.match(line) if not code.busy or code_quoted else None
        if quote:
            line = line[quote.end() :]
        was_text = not code.busy
        if was_text and title is not None and len(buffer) == 1 and ADORNMENT.match(line):
            # the line under a title alone: a setext or reStructuredText heading
            underlined = heading_at(f"{title}\n{line.strip()}")
            if underlined is not None:
                buffer.clear()
                single(underlined.title, False, heading=True)
                title, after_block = None, False
                continue
        title = None
        if role == DOC_ROLE and was_text and RST_EXPLICIT.match(line):
            named = _DESCRIBED.match(line)  # (another directive describes something else)
            described = " ".join(named.group(1).split()) if named else ""
        if code.code(line):
            if was_text:  # a block opens
                if len(buffer) == 1 and _FILE_LABEL.match(buffer[0]):
                    buffer.clear()  # the block's file name (aider's edit blocks): no sentence
                flush()
                opens("block")
                code_quoted = bool(quote)
            after_block = True
            continue
        if bool(quote) != in_quote:
            flush()  # a quote starts or ends: its lines are never joined to others
            in_quote = bool(quote)
        stripped = line.strip()
        if not stripped:
            flush()
            pasted = False
            continue
        if role == "Tool":
            flush()
            if _TABLE.match(line):
                continue  # a table's row in a tool's output is no sentence of its own
            if not _code_line(stripped):  # (a script's line: walk 57, F11)
                single(_BULLET.sub("", stripped, count=1), False)
            continue
        if pasted and stripped.startswith("# "):
            continue  # a comment in the pasted code (``# Force sqlite scheme``): no title
        if _TABLE.match(line) or _TAG_LINE.match(line):
            flush()
            opens("table")  # (no code: a summary's fold may say a table's rows)
            after_block = True
            continue
        # (a document's: "[Bug]: fixed." in a message is a sentence, not a link's definition)
        markup, shortcode = _doc_markup(line, shortcode) if role == DOC_ROLE else (False, "")
        if markup:
            flush()
            after_block, ended = False, -1
            continue
        if _RULE.match(line):
            flush()
            after_block, ended = False, -1
            continue
        if _HEADING.match(line):
            flush()
            single(_HEADING.sub("", line), False, heading=True)
            after_block = False
            continue
        tag = HTML_HEADING.match(line)
        if tag is not None and html_title(tag.group(2)):
            flush()
            single(html_title(tag.group(2)), False, heading=True)
            after_block = False
            continue
        bullet = _BULLET.match(line)
        if role != DOC_ROLE and (
            _pasted_code(line[bullet.end() :] if bullet else line)
            or (role == "You" and line.startswith(BASH_MODE))  # Claude Code's bash mode
            # aider's ``/run CMD``: its collapsed call (``Ran `CMD` ...``) says it too
            # (walk 69, F9: "/run cd backend ... Ran `cd backend ...`")
            or (role == "You" and aider_run(line) is not None)
        ):
            flush()  # a command or a JSON line pasted without a fence: code, no prose
            opens("block")
            after_block = pasted = True
            continue
        pasted = False
        if bullet:
            flush()
            indent = len(line) - len(line.lstrip())
            while leads and leads[-1][0] > indent:
                leads.pop()  # out of a list nested in an item: the outer list's lead-in again
            colon = ended >= 0 and bool(_LEAD_IN_END.search(sentences[ended].text))
            if ended >= 0 and not ended_item:
                # a paragraph right before the list: its lead-in if a colon ends it
                leads[:] = [(indent, ended if colon else -1)]
            elif ended >= 0 and indent > item_indent:
                # a list nested in an item ("  - Note that ..."): that item its lead-in if
                # a colon ends it, never the outer list's (walk 70, F3)
                leads.append((indent, ended if colon else -1))
            elif colon and leads and leads[-1][0] == indent:
                leads[-1] = (indent, ended)  # an item that ends with a colon over its siblings
            elif not leads or leads[-1][0] < indent:
                leads.append((indent, -1))
            list_lead = leads[-1][1] if leads[-1][0] == indent else -1
            item_indent = indent
            opens("item")
            # (MDN's definition of the item above, "- : A function to execute ...")
            buffer.append(_DEFINITION_MARK.sub("", line[bullet.end() :].strip(), count=1))
            opened_after, after_block = "item", False
            continue
        if (
            buffer
            and role != DOC_ROLE
            and _bold_title_line(stripped)
            and not _LEAD_IN_END.search(buffer[-1])
        ):
            # a line in bold alone opens a paragraph in a message, never ends the one
            # above (but the value of its lead-in: "here:" / "**https://...**"): an issue's
            # "**Describe the bug**" under its title line (walk 68, F2: "... on
            # pandas>=1.0.0 **Describe the bug**")
            flush()
        if (
            buffer
            and role != DOC_ROLE  # a document's line break is a space (markdown's soft break)
            and _NEW_LINE_SENTENCE.match(stripped)
            and _fragment_ends(buffer)
        ):
            flush()  # "takes parameters" / "The outermost function": two sentences
        if not buffer:
            opened_after = "block" if after_block else ""
            title = stripped  # a paragraph's first line: a title if an underline follows
            ended, list_lead = -1, -1
            leads.clear()
            if described:  # the description of a directive's object: said with its name
                stripped, described = f"{code_span(described)}: {stripped}", ""
        after_block = False
        buffer.append(" ".join(stripped.split()))
    flush()
    opens("end")  # (the last words of a message cut short: `is_fragment`)
    return sentences


#: Words a sentence does not end on: a line ending with one runs on into the next (and a
#: line cut at a word for want of room does not end on one either: `fit_words`).
RUNS_ON = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "nor",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "than",
        "that",
        "which",
        "who",
        "into",
        "onto",
        "over",
        "under",
        "via",
        "per",
        "is",
        "are",
        "was",
        "were",
        "be",
        "e.g.",
        "i.e.",
    ]
)


def _bold_title_line(line: str) -> bool:
    """Whether `line` is a title in bold alone (``**Describe the bug**``): capitalised,
    a few words, no stop; not a bold part of a sentence wrapped across lines (``**do not
    delete the migrations folder**``)."""
    title = _BOLD_TITLE.fullmatch(line)
    if title is None:
        return False
    named = title.group(1).strip()
    return (
        named[:1].isupper()
        and not _ENDED.search(named)
        and len(_content_words(named)) <= _TITLE_WORDS
    )


def _fragment_ends(buffer: Sequence[str]) -> bool:
    """Does the paragraph so far end a fragment, so that a capitalised word on the next
    line starts a new sentence? Not when it ends with punctuation (the sentence splitter
    sees that), inside brackets ("(Claude" / "Code, Codex ...)"), on a capitalised word
    (a name wrapped across lines) or on a word a sentence does not end on. (A document's
    lines never: `_split_sentences` joins them as markdown does.)"""
    last = buffer[-1]
    if _ENDED.search(last):
        return False
    joined = " ".join(buffer)
    if joined.count("(") > joined.count(")") or joined.count("[") > joined.count("]"):
        return False
    word = last.rsplit(None, 1)[-1] if last.strip() else ""
    return not (word[:1].isupper() or word.lower() in RUNS_ON)


def _truncate(
    text: str, limit: int = MAX_SENTENCE_CHARS, *, prose: bool = True, clause: bool = False
) -> str:
    """`text` cut at a word to at most `limit` characters, with ``...``; in `prose`, what
    the cut leaves open (inline code, a quotation, bold) is closed; code is left as it is
    (a command's ``**`` glob is no bold: walk 27, F4). A text cut short before (a tool
    call's output excerpt) gets the backtick run it left open (`cut_open_ticks`)."""
    if len(text) <= limit:
        return text + cut_open_ticks(text)
    cut = text[: limit - 3]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    if clause:
        # a summary's sentence: at the end of a clause where there is one in the last
        # quarter (``..., the summary 2 to 4...`` stopped on a stump: walk 47, F3)
        end = max(cut.rfind(mark) for mark in _CLAUSE_ENDS)
        if end >= limit * 3 // 4 and not _left_open(cut[:end]):
            cut = cut[:end]
    cut = cut.rstrip(" ,;:-")
    kept = len(cut)  # (a prefix of `text`)
    # after a sentence's end the mark stands apart: "restarts. ..." (``restarts....``
    # read as a typo, the recap's Task cut after a whole sentence)
    cut += " ..." if cut.endswith((".", "!", "?")) else "..."
    if not prose:
        return cut
    # what the cut leaves open is closed: inline code (with the run that opened it: a
    # double one closed with one backtick stayed open, walk 37 F2), a quotation, the
    # brackets around them (walk 45, F6: the next sentence read as the aside's), bold
    cut += closing_ticks(text, kept)
    cut += _closers(cut, code_spans(cut))
    # (a ``**`` glob in inline code, ``Listed `**/*.py```, is no bold: walk 55, F5)
    return cut + _BOLD if _INLINE_CODE.sub("", cut).count(_BOLD) % 2 else cut


_CLOSERS = {"(": ")", "[": "]", "{": "}"}
#: Where a clause ends inside a sentence: a cut to length stops there when it can.
_CLAUSE_ENDS = (", ", "; ", " — ", " – ", ": ")


def _left_open(text: str) -> bool:
    """Whether `text` (a sentence's start) leaves inline code, a quotation or a bracket
    open: a clause's end there is inside one, no place to cut (walk 48: a collapsed
    answer was cut to ``Response: 'Platform cache dir...``)."""
    code = code_spans(text)
    return "`" in text[code[-1][1] if code else 0 :] or _closers(text, code) != ""


def _closers(text: str, code: list[tuple[int, int]]) -> str:
    """What closes the quotations and brackets `text` leaves open outside its inline code
    (`code`: `code_spans`): a double quotation, a curly or single one, then the brackets,
    innermost first."""
    double = '"' if _INLINE_CODE.sub("", text).count('"') % 2 else ""
    return double + _closing_quote(text, code) + _closing_brackets(text, code)


def _closing_quote(text: str, code: list[tuple[int, int]]) -> str:
    """The mark that closes the curly or single quotation `text` leaves open outside its
    inline code (`code`), else ""."""
    opened = _quote_pairs(text, code)[1]
    if not opened:
        return ""
    return {"“": "”", "‘": "’"}.get(opened[-1].group(1), "'")


def _closing_brackets(text: str, code: list[tuple[int, int]]) -> str:
    """What closes the parentheses, square brackets and braces `text` leaves open outside
    its inline code (`code`: `code_spans`), innermost first; a stray closing one closes
    nothing (``1) first``)."""
    if "(" not in text and "[" not in text and "{" not in text:
        return ""
    _, opened = _bracket_pairs(text, code, "".join(_CLOSERS))
    return "".join(_CLOSERS[mark] for mark, _ in reversed(opened))


def _bracket_pairs(
    text: str, code: list[tuple[int, int]], openers: str
) -> tuple[list[tuple[int, int]], list[tuple[str, int]]]:
    """The brackets of `openers` (and their closing ones) in `text` outside its inline
    code (`code`): the (opening, closing) offsets of each pair, and the ones left open,
    (mark, offset) in order; a closing one with nothing of its kind open closes nothing."""
    marks = {_CLOSERS[o]: o for o in openers}
    starts = [a for a, _ in code]
    pairs: list[tuple[int, int]] = []
    opened: list[tuple[str, int]] = []
    for m in re.finditer(f"[{re.escape(openers + ''.join(marks))}]", text):
        i, ch = m.start(), m.group()
        if code and (k := bisect_right(starts, i) - 1) >= 0 and i < code[k][1]:
            continue  # the code's own
        if ch in openers:
            opened.append((ch, i))
        elif opened and opened[-1][0] == marks[ch]:
            pairs.append((opened.pop()[1], i))
    return pairs, opened


def _tfidf(sentences: Sequence[Sentence]) -> npt.NDArray[np.float64]:
    """Unit-length TF-IDF rows, one per sentence, over the words of the chunk."""
    docs = [
        [w for w in _WORD.findall(s.text.lower()) if w not in _STOPWORDS and len(w) > 1]
        for s in sentences
    ]
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(w, len(vocab)) for w in words] for words in docs]
    n = len(docs)
    width = max(len(vocab), 1)
    matrix = np.zeros((n, width), dtype=np.float64)
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=n)
    if lengths.any():  # the word counts (whole numbers, exact in float64), all at once
        cells = np.repeat(np.arange(n, dtype=np.int64) * width, lengths)
        cells += np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=len(cells))
        np.add.at(matrix.reshape(-1), cells, 1.0)
    df = np.count_nonzero(matrix, axis=0)
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    np.log1p(matrix, out=matrix, where=matrix > 0)
    matrix *= idf
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


def _length_factor(text: str) -> float:
    """Prefer sentences of ordinary length: short fragments and walls of text weigh less."""
    words = len(text.split())
    if words < 8:
        return 0.3 + 0.7 * words / 8
    if words > 45:
        return max(0.5, 45 / words)
    return 1.0


#: The recap speaks for the agent: the user's sentences (often "Continue." nudges) weigh less.
ROLE_WEIGHTS = {"You": 0.5}


@dataclass(frozen=True, slots=True)
class Extract:
    """What the extractive summarizer chose: indices into ``sentences``."""

    sentences: list[Sentence]
    abstract: int | None
    summary: list[int]
    scores: list[float]


def _pool(sentences: Sequence[Sentence]) -> tuple[list[int], list[int]]:
    """The distinct sentences a summary may take (a repeated "Edited x." is one; a
    fragment, `is_fragment`, none; headings only when there is nothing else) and the
    pool its abstract comes from (prose first); no pool: nothing to tell."""
    first_of: dict[str, int] = {}
    for s in sentences:
        first_of.setdefault(s.text, s.position)
    distinct = [i for i in sorted(first_of.values()) if not is_fragment(sentences[i])]
    prose = [i for i in distinct if sentences[i].prose]
    # headings title what follows: a chunk of headings alone has no sentence to tell
    distinct = [i for i in distinct if not sentences[i].heading] or distinct
    pool = prose or [i for i in distinct if not sentences[i].heading]
    return distinct, pool


def _answered(
    chosen: Sequence[int],
    sentences: Sequence[Sentence],
    allowed: set[int],
    rank: Callable[[int], tuple[float, int]],
    narrated: Collection[int] = (),
) -> list[int]:
    """`chosen`, in order, with the answer of each question in it: a question chosen
    without the sentence of the same turn right after it (its answer: "Malformed
    arguments on purpose? No: the harness cut my arguments.") read as answered by the
    next sentence chosen (walk 49, F7); a user's question without the agent's first
    sentence after it read as open (walk 52, F5). The answer takes the place of the
    lowest-ranked other sentence, so the summary keeps its length. An answer in
    `narrated` (the agent saying what it will do, not `allowed` else) answers only the
    user's question that is the summary's best (walk 70, F7: "Would you be so kind and
    do this for me? I'll help you rewrite the bash script into Python."), never in the
    place of a sentence that says more than the agent's plan."""

    def asks(j: int) -> bool:
        return sentences[j].text.rstrip().endswith("?")

    out = list(chosen)
    for i in sorted(chosen):
        if not asks(i):
            continue
        if sentences[i].role == "You":  # the user's: the agent's first sentence after it
            answer = next(
                (j for j in range(i + 1, len(sentences)) if sentences[j].role == "Bot"), -1
            )
        else:  # the agent's own question: the next sentence of its turn
            answer = (
                i + 1
                if i + 1 < len(sentences) and sentences[i + 1].role == sentences[i].role
                else -1
            )
        if answer < 0 or answer in out or asks(answer):
            continue
        if answer not in allowed and not (
            answer in narrated and sentences[i].role == "You" and i == min(chosen, key=rank)
        ):
            continue
        others = [j for j in out if j != i and not asks(j)]
        if others:
            out.remove(max(others, key=rank))
        out.append(answer)
    return sorted(out)


#: A slash command's name before what it says (aider's ``/ask wouldn't we ...?``).
_COMMAND_NAME = re.compile(r"\s*/[a-z][\w-]*\s+", re.I)
#: aider's commands that carry the user's request in their words (``/ask X``): a summary
#: says the request, X, as the recap's Task does (walk 72, F9).
_REQUEST_COMMAND = re.compile(r"\s*/(?:ask|code|architect|context)\s+(?=\S)", re.I)


def _plain_words(text: str) -> frozenset[str]:
    """`text`'s words in lower case: to find one sentence's inside another's. A slash
    command's name is none of its words: "/ask wouldn't we want wheel to inherit from
    Marker2D ...?" is said inside the model's "The user asks: wouldn't we want Wheel to
    inherit from Marker2D ...?" (walk 70, F1)."""
    m = _COMMAND_NAME.match(text)
    return frozenset(_WORD.findall((text[m.end() :] if m else text).lower()))


#: Two sentences sharing this many words or more, each with at most one word the other
#: has not (a verb changed: "consider" and "handle"), say the same thing.
_REWORDED_WORDS = 10


def _reworded(mine: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two sentences' words (`_plain_words`) are the same but for one word of
    each: the agent asking its question again ("Now we must also consider the case
    where n != 1 but aoi >= 90?" and "... also handle the case ...": walk 62, F7)."""
    return len(mine & other) >= _REWORDED_WORDS and len(mine - other) <= 1 >= len(other - mine)


def _without_repeats(ranked: Sequence[int], sentences: Sequence[Sentence], k: int) -> list[int]:
    """The first `k` of `ranked` with none whose words another chosen one holds: a
    sentence quoted inside a longer one ("... with only Response: [no response
    captured]." and the pasted line "Response: [no response captured].") is said once,
    by the longer (walk 55, F11), as is a call's result said twice ("On branch main
    nothing to commit" and "On branch main Your branch is up to date ... nothing to
    commit")."""
    chosen: list[int] = []
    words: list[frozenset[str]] = []
    for i in ranked:
        mine = _plain_words(sentences[i].text)
        if any(mine <= other or _reworded(mine, other) for other in words):
            continue  # said inside a sentence chosen already, or said again reworded
        inside = [j for j, other in enumerate(words) if other < mine]
        for j in reversed(inside):  # the longer one says them: it takes their place
            del chosen[j], words[j]
        chosen.append(i)
        words.append(mine)
        if len(chosen) == k:
            break
    return chosen


def _has_pool(sentences: Sequence[Sentence]) -> bool:
    """Whether `_pool` of `sentences` holds a sentence a summary may say (not markup
    alone: `extract`), asking `is_markup` and `is_fragment` only until it knows: a prose
    sentence that is no fragment, else any sentence that is neither a heading nor a
    fragment."""
    first_of: dict[str, Sentence] = {}
    for s in sentences:
        first_of.setdefault(s.text, s)
    others: list[Sentence] = []  # the first answer is a prose sentence's: ask them first
    prose = False  # a prose sentence that is no fragment: the pool is the prose
    for s in first_of.values():
        if not s.prose:
            if not s.heading:
                others.append(s)
        elif not is_fragment(s):
            if not is_markup(s.text):
                return True
            prose = True
    if prose:  # the pool is markup alone: a sentence of the others only when it says
        # something (not filler nor narration: "Bot: `x.py`" then "Tool: ok" has none)
        return any(content_weight(s.text) > 0 and not is_fragment(s) for s in others)
    return any(not is_markup(s.text) and not is_fragment(s) for s in others)


#: ASCII characters other than letters, digits and ``_``: no token of a tokenizer that
#: `floor_tokens` holds for has letters or digits on both sides of one.
_SEPARATORS = r"\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f"
#: A run between separators with an ASCII letter or digit in it.
_WORD_RUN = re.compile(f"[^{_SEPARATORS}]*[A-Za-z0-9][^{_SEPARATORS}]*")


#: Marks a paragraph can end on that no token shares with a letter or a digit (the
#: marks `terminated` ends a sentence with among them).
_END_MARKS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~…”’")


def _word_runs(text: str) -> int:
    """Runs of characters between ASCII separators that hold an ASCII letter or digit:
    tiktoken's encodings split text into pieces (a letter run, at most three digits, a
    contraction, a run of other marks) and no piece holds letters or digits of two such
    runs, so the text has at least this many tokens; so does the approximate count
    (each run holds a word of its own)."""
    return len(_WORD_RUN.findall(text))


def _form_floor(form: str) -> int:
    """The fewest tokens of a recap paragraph that shows a summary sentence written
    `form` (`_truncate`'s cut; `terminated` or not): the whole of it (with other
    sentences, or alone), or a part of it that the recap's dedupe re-split off
    (`sentences_of`: the summary is cut only where `_SENTENCE_END` matches), then
    `terminated`, so it ends on a mark of its own, one token more. The whole of it
    ends the paragraph on such a mark too when it is `terminated` (another sentence
    follows it, or ends the summary, `terminated`) or ends on one itself (it is the
    abstract alone)."""
    ends = form.rstrip()[-1:]
    text = " ".join(terminated(form).split())
    runs = _word_runs(text)
    # ASCII whitespace parts runs already, and `terminated` adds or swaps a mark: an ASCII
    # form has the runs of `text` (other whitespace, taken for a space, may join runs)
    whole = runs if form.isascii() else _word_runs(form)
    least = max(1, whole + (ends != "" and ends in _END_MARKS))
    begin = 0
    for m in _SENTENCE_END.finditer(text):
        part = text[begin : m.start(1)]
        if has_words(part):
            least = min(least, _word_runs(part) + 1)
        begin = m.end()
    part = text[begin:]
    if has_words(part):
        least = min(least, (runs if begin == 0 else _word_runs(part)) + 1)
    return least


class ExtractiveSummarizer:
    """The offline default: central sentences of the chunk (see the module docstring)."""

    name = "extractive"
    model = "tfidf-centrality"
    prompt_version = "2"
    cacheable = False
    parallel = False

    def __init__(self, max_sentence_chars: int = MAX_SENTENCE_CHARS) -> None:
        self.max_sentence_chars = max_sentence_chars

    def __repr__(self) -> str:
        return "ExtractiveSummarizer()"

    def scores(self, sentences: Sequence[Sentence]) -> list[float]:
        """Centrality of each sentence: cosine to the rest, times length and role factors."""
        n = len(sentences)
        if n == 0:
            return []
        if n == 1:
            return [1.0]
        rows = _tfidf(sentences)
        total = rows.sum(axis=0)
        rest = total[None, :] - rows
        dots = np.einsum("ij,ij->i", rows, rest)
        norms = np.linalg.norm(rest, axis=1)
        central = np.zeros(n, dtype=np.float64)
        np.divide(dots, norms, out=central, where=norms > 0)
        return [
            float(c) * _length_factor(s.text) * ROLE_WEIGHTS.get(s.role, 1.0)
            for c, s in zip(central.tolist(), sentences, strict=True)
        ]

    def extract(self, text: str) -> Extract:
        """Split, score and choose (the summary's sentences are in original order)."""
        sentences = split_sentences(text)
        # `scores` times each sentence's content weight (narration and filler: 0)
        weights = [content_weight(s.text) for s in sentences]
        scores = [sc * w for sc, w in zip(self.scores(sentences), weights, strict=True)]
        if not sentences:
            return Extract([], None, [], [])
        distinct, pool = _pool(sentences)
        # not what the agent quotes (``> `` lines: a PR's text) when it says more: the
        # quote said as its act read as a change still to make (walk 69, F5)
        pool = [i for i in pool if not _quoted_by_agent(sentences[i])] or pool
        # nor what the user pastes (an example of a file, another conversation's turns)
        # when the user's message says more: a line of it read as the request (walk 70,
        # F10: "Prompt: I want to make a chess variant ..." of the pasted
        # prompt_history.md, not "Make sure model responses are included ...")
        pasted = _pasted_by_user(sentences)
        pool = [i for i in pool if i not in pasted] or pool
        if not pool:
            return Extract(sentences, None, [], scores)
        # narration and filler only when the chunk has nothing else
        said = {i for i in distinct if weights[i] == 0.0}  # is_narration, weighed once
        pool = (
            [i for i in pool if i not in said]
            or [i for i in distinct if i not in said]
            # narration alone: not its filler when it has more ("Good!" was the abstract
            # of "Good! Let me examine the L031 rule file ...": walk 67, F1)
            or [
                i
                for i in pool
                if not is_markup(sentences[i].text) and not _FILLER.match(sentences[i].text.strip())
            ]
            or [i for i in pool if not is_markup(sentences[i].text)]
        )
        if not pool:  # markup alone (an image, a bare path): nothing to tell
            return Extract(sentences, None, [], scores)

        def rank(i: int) -> tuple[float, int]:
            return (-scores[i], i)

        abstract = min(pool, key=rank)
        n = len(distinct)
        k = 2 if n <= 6 else 3 if n <= 15 else 4
        chosen = _without_repeats(sorted(pool, key=rank), sentences, k)
        if len(chosen) < 2:  # at least two sentences when the chunk has them
            # (not one whose words a chosen one holds: walk 57, F6, a request and its
            # longer re-send said both after all)
            held = [_plain_words(sentences[i].text) for i in chosen]
            distinct = [
                i
                for i in distinct
                if i in chosen or not any(_plain_words(sentences[i].text) <= h for h in held)
            ]
            rest = [i for i in distinct if i not in chosen and i not in said]
            rest = rest or [  # narration, never markup (an image, a bare path) nor filler
                # ("Good!" said after a tool's sentence: walk 66, F3)
                i
                for i in distinct
                if i not in chosen
                and not is_markup(sentences[i].text)
                and not _FILLER.match(sentences[i].text.strip())
            ]
            chosen += sorted(rest, key=rank)[: 2 - len(chosen)]
        allowed = {i for i in distinct if i not in said}
        # the answer to the user's request may be the agent saying what it will do ("I'll
        # help you rewrite the bash script into Python." after "Would you be so kind and
        # do this for me?"), never filler nor a look around ("Let me check."): walk 70, F7
        narrated = {
            i
            for i in distinct
            if i in said
            and not (
                _FILLER.match(sentences[i].text.strip())
                or _LOOKING.match(sentences[i].text.strip())
                or is_markup(sentences[i].text)
            )
        }
        summary = _answered(chosen, sentences, allowed, rank, narrated)
        if abstract not in summary:  # a longer sentence chosen in its place says it
            mine = _plain_words(sentences[abstract].text)
            abstract = next(
                (i for i in summary if mine <= _plain_words(sentences[i].text)), abstract
            )
        return Extract(sentences, abstract, summary, scores)

    def floor(self, text: str) -> int:
        """0 when the summary of `text` is empty (no sentence to tell), else a whole number
        of tokens that no recap paragraph showing it, or what the recap's dedupe leaves of
        it, is under (`engine.recap.core.compose_lazy`): the least `_form_floor` of its
        sentences, since a summary is made of them. Costs the split, not the scoring."""
        sentences = split_sentences(text)
        if not sentences:  # the first line of words, or nothing: cheap to write
            line = clean_summary(self.summarize(text)).text.strip()
            if not line:
                return 0
            forms = [line]
        elif not _has_pool(sentences):
            return 0
        else:
            limit = self.max_sentence_chars
            forms = [
                _truncate(t, limit, clause=True) for t in dict.fromkeys(s.text for s in sentences)
            ]
        if "\x1b" in text or CONTROL_CHAR.search(text):  # what `strip_control` takes out
            return 1  # the recap leaves out what joins runs of words: count none
        return min(map(_form_floor, forms))

    def summarize(self, text: str) -> Summary:
        """The abstract and summary of `text`: its best-scored sentences, shortened to fit."""
        ex = self.extract(text)
        limit = self.max_sentence_chars
        if ex.abstract is None:
            if ex.sentences:  # every sentence a heading or a fragment: nothing to tell
                return Summary("", "")
            # The first line with words that is not a fence nor a lone tag: a chunk of
            # code and fences alone ("```") has no summary rather than a lone fence, one
            # of a template's tags alone ("</pr_description>") none rather than the tag.
            # Nor a line of code, a file's name, an edit-block marker or a document's
            # markup: a chunk whose only text is code has no summary ("import os" alone
            # tells a reader nothing), nor one of link definitions (walk 61, F3).
            line = ""
            code = _Code()
            shortcode = ""
            role = ""
            for raw in _chunk_lines(text):
                m = _ROLE_LINE.match(raw) if not code.busy else None
                role = m.group(1) if m else role
                candidate = _COMMENT.sub("", raw[m.end() :] if m else raw)
                if code.code(candidate):
                    continue
                if role not in (DOC_ROLE, "Tool") and _pasted_code(candidate):
                    continue  # (as the split reads it: walk 71, F10, a chunk of a message's
                    # code without a fence was summarized by its ``function f(): P {``)
                markup, shortcode = _doc_markup(candidate, shortcode)
                if markup:
                    continue
                if has_words(candidate) and not (
                    _MARKUP.match(candidate)  # ("/drop GlobalSettings.cs": walk 70, F11)
                    or _FILE_LABEL.match(candidate)
                    or _TAG_LINE.match(candidate)
                    or _HEADING.match(candidate)
                    or _TABLE.match(candidate)
                ):
                    line = candidate.strip()
                    break
            line = _truncate(" ".join(line.split()), limit, clause=True)
            return Summary(line, line)
        abstract = _with_lead(ex.sentences, ex.abstract, set(), limit)
        if abstract.endswith(_COLON_END):
            abstract = terminated(abstract)
        if len(ex.summary) < 2:
            return Summary(abstract, abstract)
        said = set(ex.summary)  # (a lead-in said once, before the first of its items kept)
        parts = [
            terminated(_with_lead(ex.sentences, i, said, limit), url_stop=True) for i in ex.summary
        ]
        return Summary(abstract, joined(_subjects_once(ex.sentences, ex.summary, parts)))


#: A thought's subject before its description (Gemini CLI's ``subject: description``,
#: `engine.read.formats.gemini`): a few words and a colon.
_THOUGHT_SUBJECT = re.compile(r"([^\W\d_][^:.!?`\n]{0,60}):\s+(?=\S)")


def _subjects_once(
    sentences: Sequence[Sentence], chosen: Sequence[int], parts: list[str]
) -> list[str]:
    """`parts` (the summary's sentences `chosen` of `sentences`, as said) with a thought's
    subject said once: a thought's sentence that opens on the subject the thinking kept
    right before it opened on (no sentence of another role kept between them) is said
    without it (walk 69, F13: "Verifying Installation Success: The npm installation ...
    Verifying Installation Success: The installation is confirmed.", two messages'
    thoughts of one subject)."""
    out: list[str] = []
    subject = ""  # the subject the thinking kept last opened on
    for i, part in zip(chosen, parts, strict=True):
        if sentences[i].role != THINKING_ROLE:
            subject = ""
            out.append(part)
            continue
        m = _THOUGHT_SUBJECT.match(part)
        if m and m.group(1) == subject:
            part = part[m.end() :]
        elif m:
            subject = m.group(1)
        out.append(part)
    return out


#: The words of content a lead-in needs, beside the words that only introduce (`include`,
#: `following`), to say what its list's items are.
_SENSE_WORDS = 3


#: A user's lead-in that introduces something pasted, not said ("Example of the current
#: prompt_history.md:", "Here is a sample of the log:"); not any lead-in over a block:
#: aider's architect speaks to its editor as the user ("Your current `requirements.txt`
#: is:", "Contents:", "Example additions to `.env`:").
_PASTE_LEAD = re.compile(
    r"[*_]*(?:here(?:'s|’s| is| are)\s+)?(?:an?\s+|some\s+)?(?:examples?|samples?)\s+of\b",
    re.I,
)
#: A pasted conversation's turn, in the user's message: "Prompt #2:", "Response: ...".
_PASTED_TURN = re.compile(r"[*_]*(?:prompt|response|assistant|human)(?:\s*#\d+)?[*_]*:", re.I)


def _pasted_by_user(sentences: Sequence[Sentence]) -> set[int]:
    """The positions of what the user pastes rather than says: the sentences of the
    user's message after a lead-in that introduces an example or an output (the lead-in
    with them, its block not said), and after a sentence that opens on another
    conversation's turn label ("Prompt #1:", "Response: [no response captured]"), that
    one with them (a paste a chunk's edge cut from its lead-in)."""
    out: set[int] = set()
    pasting = False
    for s in sentences:
        if s.role != "You":
            pasting = False
            continue
        introduces = s.text.rstrip(_MARKS).endswith(":") and _PASTE_LEAD.match(s.text)
        if pasting or introduces or _PASTED_TURN.match(s.text):
            out.add(s.position)  # (and the rest of the user's message with it)
            pasting = True
    return out


def _quoted_by_agent(sentence: Sentence) -> bool:
    """A sentence the agent quotes (`Sentence.quoted`), someone else's words."""
    return sentence.quoted and sentence.role in _AGENT_ROLES


def _gives_sense(lead: Sentence) -> bool:
    """Whether a list's lead-in (a fragment: no sentence of its own) says what its items
    are: "Relevant Solana skills include:", "The following should usually **not** be done
    in a minor release:"; not one that only introduces them ("I've added:", "The changes
    include:", "**Plan:**") or narrates ("Let's try this:"), whose items say themselves."""
    words = [
        w for w in _content_words(lead.text) if len(w) > 1 and w not in _INTRODUCES | _POINTERS
    ]
    return len(words) >= _SENSE_WORDS and is_fragment(lead) and not is_narration(lead.text)


#: Words of a lead-in that offers its items as alternatives, one of which is to be chosen.
_ALTERNATIVES = frozenset({"options", "choices", "alternatives", "either", "ways", "approaches"})


def _offers(lead: Sentence) -> bool:
    """Whether a list's lead-in offers its items as alternatives ("Since the hook won't
    let me commit, I have two options:"): an item said without it reads as what was
    decided or done (walk 70, F3: "Fix the pre-existing waiting_summary.ex issues")."""
    # (not HTTP's "OPTIONS": a word in capitals is a name)
    words = (w.lower() for w in _WORD.findall(lead.text) if not w.isupper())
    return not _ALTERNATIVES.isdisjoint(words)


#: Words that make a clause of an item: a form of "be", "have" or "do", a modal.
_FINITE = frozenset(
    {"is", "are", "was", "were", "am", "be", "been", "has", "have", "had", "does", "do", "did"}
    | {"will", "would", "can", "could", "should", "may", "might", "must", "shall", "won"}
    | {"isn", "aren", "wasn", "weren", "hasn", "haven", "doesn", "don", "didn", "couldn"}
    | {"shouldn", "wouldn", "cannot"}
)
#: Pronouns that are a clause's subject: a verb follows them.
_SUBJECT_PRONOUNS = frozenset({"i", "we", "you", "it", "they", "he", "she"})
#: Verbs a list's item opens on as a step or a change ("Use the `requests` library ...",
#: "Remove the 5-line truncation"): the item says what to do, without its lead-in.
_STEP_VERBS = frozenset(
    {
        "accept", "add", "allow", "append", "apply", "avoid", "build", "bump", "cache",
        "calculate", "call", "catch", "change", "check", "clone", "close", "commit",
        "compute", "configure", "confirm", "consider", "convert", "copy", "create", "debug",
        "define", "delete", "deploy", "disable", "display", "document", "downgrade", "drop",
        "edit", "enable", "ensure", "exclude", "export", "expose", "extract", "fetch",
        "filter", "find", "fix", "format", "generate", "get", "handle", "hide", "hook",
        "implement", "import", "include", "increase", "inject", "insert", "inspect",
        "install", "introduce", "keep", "let", "limit", "lint", "load", "log", "look",
        "make", "map", "mark", "merge", "mock", "move", "open", "organise", "organize",
        "parse", "pass", "patch", "pin", "print", "provide", "pull", "push", "raise",
        "read", "reduce", "refactor", "register", "reject", "rely", "remove", "rename",
        "render", "replace", "restore", "return", "revert", "review", "rewrite", "run",
        "save", "send", "set", "show", "simplify", "skip", "sort", "split", "start", "stop",
        "store", "support", "test", "throw", "trace", "try", "update", "upgrade", "use",
        "validate", "verify", "wire", "wrap", "write"
    }
)  # fmt: skip
#: Words an object opens on: after an item's first word, that word is its verb ("Mount
#: the USB drive"); first, the item is a noun phrase ("Any JS hooks ...").
_QUANTIFIERS = frozenset({"all", "each", "every", "any", "some"})
#: Words that join an item to the one before it ("Or run `toggle-theme` ..."): its
#: clause starts after them.
_JOINERS = frozenset({"or", "and", "then", "also", "but", "so"})
_OBJECT_STARTS = _DETERMINERS | _QUANTIFIERS | {"it", "them", "me", "us"}
#: Words an indirect question opens on ("How annotation selection works in the
#: transcript"): a clause that is its lead-in's object, not a statement.
_WH_WORDS = frozenset({"how", "what", "why", "which", "who", "whether"})
#: A label and its value ("**Pixel:** `1a:91:...`", "Wire: get_schema -> gen_sql"), a
#: term and what it is ("**`multiply_numbers` function** in `src/math_utils.py:9` -
#: multiplies two integers"): the item says itself.
_LABELLED = re.compile(r":[*_]*\s|\S\s+[-–—]\s")


def _says_itself(item: str, *, gerund: bool = True) -> bool:
    """Whether a list's item reads as a clause of its own: it opens on a step's verb
    ("Parse JSON responses properly"), a past or a gerund ("Added ...", "Adding ..."), or
    has a finite verb's mark (a form of "be", "have", "do", a modal, a subject pronoun),
    or is a label with its value or a term with what it is; not a noun phrase ("Raw
    responses from the API", "The exact GraphQL queries being sent") nor an indirect
    question ("How annotation selection works in the transcript"), which say something
    only after their lead-in ("This updated script now shows:", "I need to
    understand:": walk 70, F8). Without `gerund` (a document's list) an item that opens
    on a gerund is a noun phrase too ("Building in release mode vs debug mode" of "Some
    ideas for recipes:": walk 72, F8), where a message's says what is being done."""
    prose = _INLINE_CODE.sub(" code ", item)
    words = [w.lower() for w in _WORD.findall(prose)]
    if not words or _LABELLED.search(prose.strip(_MARKS)):
        return True
    tokens = item.split()
    if len(words) > 1 and words[0] in _JOINERS:  # "Or run `toggle-theme` ..."
        words, tokens = words[1:], tokens[1:]
    first = words[0]
    if first in _WH_WORDS or first in _DETERMINERS | _QUANTIFIERS:
        return (
            _clause_in(tokens[1:])
            or not _FINITE.isdisjoint(words[1:])
            or not _SUBJECT_PRONOUNS.isdisjoint(words[1:-1])
        )
    if first in _STEP_VERBS or (
        len(first) > 4 and first.endswith(("ed", "ing") if gerund else "ed")
    ):
        return True
    if len(tokens) > 1 and _object_start(tokens[1]) and (gerund or not first.endswith("ing")):
        return True  # a verb and its object: "Mount the USB drive", "Uses `ProductDB`"
    return (
        _clause_in(tokens)
        or not _FINITE.isdisjoint(words[1:])
        or not _SUBJECT_PRONOUNS.isdisjoint(words[:-1])
    )


def _object_start(token: str) -> bool:
    """Whether `token` opens an object: a determiner, a pronoun, inline code, a quote."""
    return token.lstrip(_LEAD_MARKS)[:1] in '`"“' or token.lower() in _OBJECT_STARTS


def _clause_in(tokens: Sequence[str]) -> bool:
    """Whether `tokens` hold a verb in the third person or the past before its object,
    or in the third person after a name in code: "The rule collects all
    `from_expression_elements`", "Then wheel integration pushed `Omega` past zero",
    "The `WhereNode` returns empty SQL"."""
    for before, word, after in zip(["", *tokens[:-1]], tokens, [*tokens[1:], ""], strict=True):
        word = word.strip(_MARKS).lower()
        if len(word) <= 3 or not word.isalpha():
            continue
        third = word.endswith("s") and not word.endswith(("ss", "us", "is"))
        if (third or word.endswith("ed")) and after and _object_start(after):
            return True
        if third and before.rstrip(".,").endswith("`"):
            return True
    return False


def _with_lead(sentences: Sequence[Sentence], i: int, said: set[int], limit: int) -> str:
    """Sentence `i` cut to `limit`, after the lead-in of its list (`Sentence.lead`) when
    that lead-in gives its sense (`_gives_sense`), offers its items as alternatives
    (`_offers`) or the item does not say itself (`_says_itself`: a noun phrase), and
    is not in `said` (then added to it, as it is when the first of its items kept is
    said without it): an item kept alone said nothing of what its list is
    ("`build-mobile` for Solana mobile apps." of "Relevant Solana skills include:",
    "Remove a feature." of "The following should usually **not** be done in a minor
    release:": walk 64, F12; "Raw responses from the API." of "This updated script now
    shows:": walk 70, F8)."""
    sentence = sentences[i]
    lead = sentence.lead
    if lead < 0 or lead in said:
        return _truncate(sentence.text, limit, clause=True)
    if not (
        _gives_sense(sentences[lead])
        or _offers(sentences[lead])
        or not _says_itself(sentence.text, gerund=sentence.role != DOC_ROLE)
    ):
        said.add(lead)  # (then before none of its later items: "... m/s. Explanation: Multiply")
        return _truncate(sentence.text, limit, clause=True)
    said.add(lead)
    intro = sentences[lead].text
    return _truncate(f"{intro} {sentence.text}", limit + len(intro) + 1, clause=True)


# --------------------------------------------------------------------------- LLM
