"""Making log text safe to show: terminal control sequences removed, text kept."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC sequences,
# and C0/C1 control characters other than newline and tab.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[@-Z\\-_]?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
#: What `strip_control` takes out (besides escape sequences): the C0 and C1 controls but
#: newline and tab, and the bidi embeddings, overrides and isolates (U+202A-U+202E,
#: U+2066-U+2069), invisible characters that reorder what a terminal or an agent reads
#: ("Trojan Source"). The joiners emoji and scripts need (U+200C, U+200D, variation
#: selectors) and the plain direction marks of right-to-left text stay.
CONTROL_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: The controls that separate text: the vertical tab, form feed, next line (U+0085), the
#: line and paragraph separators (U+2028, U+2029) and the information separators
#: (U+001C-U+001F), all whitespace to `str.split`. `strip_control` shows each as a space, as
#: the recap (which folds whitespace) does: deleted, it would glue the words on either side
#: (``about\fzebras`` read ``aboutzebras``, a word not in the log); a line break would be
#: one more line than the file's line numbers count, and leave a terminal's indent.
SEPARATORS = str.maketrans(dict.fromkeys("\v\f\x85\u2028\u2029\x1c\x1d\x1e\x1f", " "))
#: What `strip_control` changes that JSON text may hold as it is (the JSON writer escapes
#: U+0000-U+001F itself): the C1 controls, the line separators, the bidi controls.
_JSON_RAW = re.compile(r"[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 turn``, ``2 turns``: the count and the word, plural (`many`, else word + "s")
    only when the count is not 1. The one way every message counts things."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def counted(n: int, phrase: str) -> str:
    """``1 queue operation``, ``2 queue operations``: a count and a phrase written in the
    plural (``records abandoned by a rewind``, ``events (repeat the response items)``),
    its first plural word made singular when the count is 1."""
    if n != 1:
        return f"{n} {phrase}"
    words = phrase.split(" ")
    for i, word in enumerate(words):
        if word.endswith("ies") and len(word) > 4:  # copies, entries, replies
            words[i] = word[:-3] + "y"
            break
        if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
            words[i] = word[:-1]
            break
    return f"1 {' '.join(words)}"


#: A line that markdown may read as a heading (CommonMark's ATX heading: one to six ``#``
#: and a space, a tab or the line's end), in a list item or a quote too, at any indent (a
#: list item's continuation is indented: whether it is code depends on the lines above).
_HEADING_LINE = re.compile(
    r"^((?:[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+|[ \t]*>[ \t]?)*[ \t]*)(#{1,6})(?=[ \t]|$)", re.M
)


#: A line that underlines the one above into a heading (a setext heading: ``===``, ``---``),
#: in a list item or a quote too (``>=`` under ``> text``).
_UNDERLINE = re.compile(
    r"^((?:[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+|[ \t]*>[ \t]?)*[ \t]*)(=+|-+)(?=[ \t]*$)", re.M
)


def literal_markdown(text: str) -> str:
    """Log text made data in a markdown page: a line that would read as a heading
    (``# Goal``) gets a backslash before its ``#`` (``\\# Goal``, shown as written), and a
    line of ``=`` or ``-`` that would underline the line above into one, before its first
    mark; so a heading in someone's message never becomes one of the page's. Terminal
    escape sequences and control characters (a NUL, ``\\x01``) are left out
    (`strip_control`): a page (the recap, printed or written) holds none. Other text is
    kept as it is."""
    text = strip_control(text)
    if "#" in text:
        text = _HEADING_LINE.sub(r"\1\\\2", text)
    if "\n" in text and ("=" in text or "-" in text):
        text = _UNDERLINE.sub(r"\1\\\2", text)
    return text


def literal_markdown_line(line: str, *, among_others: bool) -> str | None:
    """What `literal_markdown` makes of `line` as a line of the text it is given (with
    `among_others`: a text of two lines or more, where a line of ``=`` or ``-`` could
    underline the one above), or None when that is not the line's own business: a line
    that is not printable (a line break, a tab, a control character, which
    `strip_control` reads with the characters around them). Each pattern matches within
    one line, so ``literal_markdown("\\n".join(lines))`` is the lines so made, joined."""
    if not line.isprintable():
        return None
    if "#" in line:
        line = _HEADING_LINE.sub(r"\1\\\2", line)
    if among_others and ("=" in line or "-" in line):
        line = _UNDERLINE.sub(r"\1\\\2", line)
    return line


def without_escapes(text: str) -> str:
    """`text` without terminal escape sequences (a coloured test run's ``\x1b[31m``), as
    every view shows it: the words an index reads (walk 29, F5: ``\x1b[31mAssertionError``
    was the word ``31massertionerror``, found by no search)."""
    return _ANSI.sub("", text) if "\x1b" in text or "\x9b" in text else text


def strip_control(text: str) -> str:
    """`text` without terminal escape sequences or control characters (newline, tab kept),
    bidi overrides and isolates included (`CONTROL_CHAR`); a control that separates words
    becomes a space (`SEPARATORS`). What every sink that
    shows log text (the workbench, a terminal, a page) uses; JSON keeps the text as read."""
    if not text.isprintable():
        text = _ANSI.sub("", text).translate(SEPARATORS)
        text = CONTROL_CHAR.sub("", text.replace("\r\n", "\n"))
    return text


def json_safe(text: str) -> str:
    """JSON text (`json.dumps`, ``ensure_ascii=False``) fit for a terminal with the same
    data: what `strip_control` would take out or change is written as a ``\\uXXXX``
    escape instead (the JSON writer escapes U+0000-U+001F itself, not U+007F-U+009F, the
    line separators or the bidi controls), so a string parses back to the text as read."""
    if text.isprintable():
        return text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: Common English words that carry no topic (used by the lexical embedder and summarizer).
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


def file_size(n: int) -> str:
    """A file's size as a picker shows it: ``20 B``, ``12.3 KB``, ``4.5 MB`` (bytes under
    a kilobyte, so a file that is not empty never reads as 0.0 KB)."""
    if n < 1024:
        return f"{n} B"
    if n < 1 << 20:
        return f"{n / 1024:,.1f} KB"
    return f"{n / (1 << 20):,.1f} MB"


_BACKTICK_RUN = re.compile(r"`+")

#: The marks that close a quotation or an aside after a sentence's stop (``done."``,
#: ``it.)``), and the same as a regular expression's class.
CLOSING_MARKS = "\"'”’)]"
CLOSING_MARKS_CLASS = f"[{re.escape(CLOSING_MARKS)}]"
#: A sentence's stop and the closing marks after it, as a regular expression: what ends a
#: sentence's words.
SENTENCE_STOP = rf"[.!?…]{CLOSING_MARKS_CLASS}*"
#: The full-width colon of Chinese and Japanese: a full stop in its place is ``。``.
WIDE_COLON = "："
#: The colons a lead-in ends on (``switched to:``), the full-width one among them
#: (``一些关于配方的想法：``: walk 71, F6, was kept as a summary's last sentence, a lead-in
#: whose list is not said).
COLONS = ":" + WIDE_COLON
#: A lead-in's end: a colon, inside bold or after it (``**Changed:**``, ``switched to:``).
LEAD_IN_END = re.compile(f"[{COLONS}][*_]*\\Z")
#: The end of a text cut short (``... yes. Use...``, a summary's long sentence), with the
#: marks that may close what the cut left open and a stop after them.
CUT_END = re.compile(rf"(?:\.\.\.|…){CLOSING_MARKS_CLASS}*\.?\s*\Z")


def code_span(text: str) -> str:
    """`text` as markdown inline code: in a run of backticks longer than any inside it,
    with a space inside each end when it starts or ends with a backtick (CommonMark), so a
    command holding backticks (``test_`uname -m`.py``) stays one span."""
    ticks = "`" * (max((len(r) for r in _BACKTICK_RUN.findall(text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def code_spans(text: str) -> list[tuple[int, int]]:
    """Where the inline code spans of `text` are, (start, end) of each with its backticks,
    as CommonMark finds them: a run of backticks opens one that the next run of the same
    length closes; a run that no such run follows is a literal backtick."""
    if "`" not in text:
        return []
    runs = [(m.start(), m.end()) for m in _BACKTICK_RUN.finditer(text)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        n = end - start
        close = next((j for j in range(i + 1, len(runs)) if runs[j][1] - runs[j][0] == n), None)
        if close is None:
            i += 1  # a literal run: the runs after it may still open spans
            continue
        spans.append((start, runs[close][1]))
        i = close + 1
    return spans


def closing_ticks(text: str, at: int) -> str:
    """The backtick run that closes the inline code span of `text` that offset `at` is
    inside (what a cut there leaves open: `code_spans`), else ""."""
    for start, end in code_spans(text):
        if start < at < end:
            run = _BACKTICK_RUN.match(text, start)
            return run.group() if run else ""
    return ""


def cut_open_ticks(text: str) -> str:
    """The backtick run that `text`, cut short (it ends as `CUT_END` says), leaves open:
    its last run after every code span that no later run closes (the closing run was
    in what the cut left out: a tool's output ``... ``` %% {text_ma...``, walk 44 F3),
    else "". Closed, the text's code span ends at its end and pairs with no run of the
    text that follows it."""
    if "`" not in text or CUT_END.search(text) is None:
        return ""
    spans = code_spans(text)
    after = spans[-1][1] if spans else 0
    runs = list(_BACKTICK_RUN.finditer(text, after))
    return runs[-1].group() if runs else ""


def files_named(files: Sequence[tuple[str, str]]) -> str:
    """Files with why each is left out, as a message names them: the first three
    (``a.jsonl (empty), b.jsonl (looks like ...)``), then how many more."""
    said = ", ".join(f"{PurePath(path).name} ({why})" for path, why in files[:3])
    return said + (f" and {len(files) - 3} more" if len(files) > 3 else "")


#: The characters of the scripts written without spaces between words whose sentences
#: end with a wide full stop (kana, Han, CJK compatibility ideographs), as a regular
#: expression's character class body.
WIDE_SCRIPT = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Thai, Lao, Myanmar and Khmer: written without spaces between words too, a sentence
#: ended by a space (Thai, Lao) or a mark of its own, never by an ASCII full stop.
MARKLESS_SCRIPT = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
#: Every script written without spaces between words.
UNSPACED_SCRIPT = WIDE_SCRIPT + MARKLESS_SCRIPT


#: A code fence's opening or closing line (CommonMark: at most 3 spaces before 3+ backticks
#: or tildes); `FENCE_LINES` finds them in a whole text.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
FENCE_LINES = re.compile(FENCE.pattern, re.M)


def fence_after(line: str, fence: str | None) -> str | None:
    """The code fence open after `line` (its marker, e.g. ```` ``` ````), given the one
    open before it (None: none). CommonMark: a backtick fence's info string may not
    contain a backtick ("```inline``` code" opens nothing); a fence is closed by a bare
    marker of its character, at least as long."""
    m = FENCE.match(line)
    if m is None:
        return fence
    marker = m.group(1)
    if fence is None:
        return None if marker[0] == "`" and "`" in line[m.end() :] else marker
    if marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip().lstrip(fence[0]):
        return None
    return fence
