"""The extractive summarizer: the most central sentences of a chunk (offline, deterministic)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice

import numpy as np
import numpy.typing as npt

from chunkscope.engine.summarize.base import Summary, has_words
from chunkscope.engine.textutil import STOPWORDS

#: The role names a chunk's ``role: text`` lines start with (see engine.read.parse).
KNOWN_ROLES = ("Bot thinking", "Bot", "You", "Tool", "Doc", "System", "system", "developer")
_ROLE_LINE = re.compile(r"^(" + "|".join(re.escape(r) for r in KNOWN_ROLES) + r"): ?")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_TABLE = re.compile(r"^\s*\|")
_COMMENT = re.compile(r"<!--.*?-->")
#: A line that is a file's (or a folder's) name alone, just above a fenced block: the
#: block's label (aider's ``src/app.py`` and ``data/`` above its edit blocks).
_FILE_LABEL = re.compile(r"^\s*[\w./-]*(?:\w\.\w+|\w/)\s*$")
#: aider's edit-block markers: the SEARCH line opens a block of code that only the
#: REPLACE line closes (fences inside it are the file's own); none of them is text.
_EDIT_OPEN = re.compile(r"^\s*<{7} SEARCH\s*$")
_EDIT_CLOSE = re.compile(r"^\s*>{7} REPLACE\s*$")
_EDIT_MARK = re.compile(r"^\s*(?:<{7} SEARCH|={7}|>{7} REPLACE)\s*$")
#: A line that is one tag and nothing else (``</pr_description>``, ``<instructions>``): the
#: frame of a prompt template, no sentence of anyone's.
_TAG_LINE = re.compile(r"^\s*</?[a-z][\w:-]*(?:\s[^<>]*)?/?>\s*$", re.I)
_RULE = re.compile(r"^\s*([-*_=])\s*(\1\s*){2,}$")


#: A command's output as mini-swe-agent hands it back (``<returncode>0</returncode>``, then
#: ``<output>`` ... ``</output>`` on lines of their own): a listing, a traceback, no one's
#: sentence (the agent says what it found in its own words). Its prompt template's
#: ``<example_response>`` block is no one's either: an example, not the session.
_RETURNCODE = re.compile(r"^\s*<returncode>-?\d+</returncode>\s*$")
_OUTPUT_OPEN = re.compile(r"^\s*<(output|output_head|output_tail|example_response)>\s*$")


class _Code:
    """Where a walk through a chunk's lines is: in fenced code, in an aider edit block,
    in a command's output, or in text. `code(line)` says whether `line` is code or a
    code marker (a fence, an edit-block marker, an output tag), never text; the split
    and the summary's fallback both ask it."""

    __slots__ = ("edit", "fence", "output")

    def __init__(self) -> None:
        self.fence: str | None = None
        self.edit = False
        self.output: str | None = None  # the closing tag of the output block it is in

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
        fence = _FENCE.match(line)
        if self.fence is not None:
            mark = fence.group(1) if fence else ""
            if mark[:1] == self.fence[0] and len(mark) >= len(self.fence):
                self.fence = None
            return True
        if fence:
            self.fence = fence.group(1)
            return True
        return False


# A sentence ends at . ! ? (possibly followed by a closing quote or bracket) and
# whitespace. It is a boundary when the next sentence starts with a capital, a digit
# or an opening mark; before a lowercase word only when the word before the stop is
# an ordinary word (not "e.g", "etc" or a dotted name such as "foo.py").
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(\s+)(?=\S)")
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
    r"^(?:perfect|great|excellent|good|nice|awesome|done|ok(?:ay)?|alright|sure|got it|"
    r"understood|exactly|right|indeed|wonderful|fantastic|absolutely|yes|hmm+|interesting)"
    r"\b[\s!.,:]*(?:(?:that|this|it|now|the|everything)\b.{0,30})?[!.]?$",
    re.I,
)
# Marks of a sentence that carries a fact: a path or file name, code, a number, an
# identifier, a result or a decision.
# The kinds of fact mark, each with what a text must hold for it to match anywhere: a
# path, a file name, inline code, a number, a snake_case name, a word of outcome.
_CONTENT_KINDS: tuple[tuple[str, str], ...] = (
    ("/", r"[\w.-]+/[\w./-]+"),
    (
        ".",
        r"\b[\w-]+\.(?:py|js|ts|tsx|jsx|rs|go|rb|java|kt|c|h|cc|cpp|hpp|"
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
    if text.endswith(":") or (_LOOKING.match(text) and "because" not in text.lower()):
        return True  # a lead-in to an action, or looking around
    # "I'll keep `parse()` in engine/read/parse.py: it drops the last line" keeps its facts
    return _marks(text, 2) < 2 and len(text.split()) < 25


def has_content(sentence: str) -> bool:
    """Whether the sentence names something: a path, code, a number, a result, a decision."""
    return bool(_CONTENT.search(sentence) or _IDENTIFIER.search(sentence))


# Machine text, not anyone's words: a sentence that opens with a tag (``<task-notification>``,
# ``<instructions>``, ``<returncode>``), a bare slash command ("/compact"), a code fence.
_MARKUP = re.compile(r"^\s*(?:</?[a-z][\w-]*>|/[a-z][\w:-]*[.\s]*$|```)", re.I)


def is_markup(sentence: str) -> bool:
    """Machine text: a sentence that opens with a tag (``<task-notification> ...``), a
    bare slash command (``/compact``) or a code fence: never a summary's sentence when
    the chunk has anything else."""
    return bool(_MARKUP.match(sentence))


def content_weight(sentence: str) -> float:
    """0 for narration, filler and machine text; otherwise 1, more for each fact mark
    (up to 1.6)."""
    if is_narration(sentence) or is_markup(sentence):
        return 0.0
    marks = _marks(sentence, 3)
    return 1.0 + marks * 0.2 if marks else 0.7


_ENDED = re.compile(r"[.!?:;…]['\"”’)\]`*]*$")


def terminated(sentence: str) -> str:
    """The sentence with a full stop when it ends without punctuation (a fragment
    joined to the next one would read as one: "takes parameters The outermost ..."), or
    with a colon: the lead-in of a block (code, a table, a list) a summary leaves out."""
    text = sentence.rstrip()
    if text.endswith(":") and not text.endswith("::"):
        return text[:-1].rstrip() + "."
    return text if not text or _ENDED.search(text) else text + "."


def sentences_of(text: str) -> list[str]:
    """The sentences of a plain paragraph (a summary's text), in order."""
    return _split_prose(" ".join(text.split()))


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a chunk, with the role of the turn it came from.

    ``prose`` is False for collapsed tool sentences, headings and other
    boilerplate that should not stand for a chunk that has real prose. ``heading``: a
    markdown heading, a title of what follows, never a summary on its own.
    """

    text: str
    role: str
    position: int
    prose: bool
    heading: bool = False


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
    end, nor is a stop inside bold (`bold`: the text has bold marks)."""
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
    if not _LOWER_START.match(text, nxt) or text[stop] != ".":
        return False
    start = text.rfind(" ", 0, stop) + 1
    word = text[start:stop]
    return len(word) >= 2 and "." not in word and word.lower() not in _ABBREVIATIONS


def _split_prose(text: str) -> list[str]:
    """The sentences of a paragraph; a fragment without words (a lone ``**``, ``--``)
    is no sentence (`has_words`, the rule a summary's parts follow)."""
    parts: list[str] = []
    begin = 0
    bold = _BOLD in text
    for m in _SENTENCE_END.finditer(text):
        if _is_boundary(text, m.start(), m.end(), begin, bold):
            parts.append(text[begin : m.start(1)])
            begin = m.end()
    parts.append(text[begin:])
    return [p.strip() for p in parts if has_words(p)]


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of a chunk's text, in order, without role prefixes.

    A line starting with a known role (``Bot: ...``) opens a turn. Within a
    turn, consecutive lines form a paragraph (joined with spaces); a blank line,
    a list item or a heading starts a new one. Fenced code, tables and
    horizontal rules are left out. ``Tool`` lines are one sentence each, never
    prose; headings are not prose either.
    """
    sentences: list[Sentence] = []
    role = ""
    buffer: list[str] = []
    code = _Code()

    def flush() -> None:
        if buffer:
            para = " ".join(buffer)
            for s in _split_prose(para):
                sentences.append(Sentence(s, role, len(sentences), True))
            buffer.clear()

    def single(s: str, prose: bool, heading: bool = False) -> None:
        s = " ".join(s.split())
        if has_words(s):
            sentences.append(Sentence(s, role, len(sentences), prose, heading))

    in_comment = False
    for raw in text.splitlines():
        line = raw
        m = _ROLE_LINE.match(line)
        if m and not code.busy:
            flush()
            role = m.group(1)
            line = line[m.end() :]
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
                continue
        was_text = not code.busy
        if code.code(line):
            if was_text:  # a block opens
                if len(buffer) == 1 and _FILE_LABEL.match(buffer[0]):
                    buffer.clear()  # the block's file name (aider's edit blocks): no sentence
                flush()
            continue
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if role == "Tool":
            flush()
            single(stripped, False)
            continue
        if _TABLE.match(line) or _RULE.match(line) or _TAG_LINE.match(line):
            flush()
            continue
        if _HEADING.match(line):
            flush()
            single(_HEADING.sub("", line), False, heading=True)
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            buffer.append(line[bullet.end() :].strip())
            continue
        if buffer and _NEW_LINE_SENTENCE.match(stripped) and _fragment_ends(buffer):
            flush()  # "takes parameters" / "The outermost function": two sentences
        buffer.append(" ".join(stripped.split()))
    flush()
    return sentences


#: Words a sentence does not end on: a line ending with one runs on into the next.
_RUNS_ON = frozenset(
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


def _fragment_ends(buffer: Sequence[str]) -> bool:
    """Does the paragraph so far end a fragment, so that a capitalised word on the next
    line starts a new sentence? Not when it ends with punctuation (the sentence splitter
    sees that), inside brackets ("(Claude" / "Code, Codex ...)"), on a capitalised word
    (a name wrapped across lines) or on a word a sentence does not end on."""
    last = buffer[-1]
    if _ENDED.search(last):
        return False
    joined = " ".join(buffer)
    if joined.count("(") > joined.count(")") or joined.count("[") > joined.count("]"):
        return False
    word = last.rsplit(None, 1)[-1] if last.strip() else ""
    return not (word[:1].isupper() or word.lower() in _RUNS_ON)


def _truncate(text: str, limit: int = MAX_SENTENCE_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    cut = cut.rstrip(" ,;:-") + "..."
    return cut + _BOLD if cut.count(_BOLD) % 2 else cut  # a bold span cut open is closed


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
        # Distinct sentences only: a repeated "Edited x." is one candidate.
        first_of: dict[str, int] = {}
        for s in sentences:
            first_of.setdefault(s.text, s.position)
        distinct = sorted(first_of.values())
        prose = [i for i in distinct if sentences[i].prose]
        # headings title what follows: a chunk of headings alone has no sentence to tell
        distinct = [i for i in distinct if not sentences[i].heading] or distinct
        pool = prose or [i for i in distinct if not sentences[i].heading]
        if not pool:
            return Extract(sentences, None, [], scores)
        # narration and filler only when the chunk has nothing else
        said = {i for i in distinct if weights[i] == 0.0}  # is_narration, weighed once
        pool = [i for i in pool if i not in said] or [i for i in distinct if i not in said] or pool

        def rank(i: int) -> tuple[float, int]:
            return (-scores[i], i)

        abstract = min(pool, key=rank)
        n = len(distinct)
        k = 2 if n <= 6 else 3 if n <= 15 else 4
        chosen = sorted(pool, key=rank)[:k]
        if len(chosen) < 2:  # at least two sentences when the chunk has them
            rest = [i for i in distinct if i not in chosen and i not in said]
            rest = rest or [i for i in distinct if i not in chosen]
            chosen += sorted(rest, key=rank)[: 2 - len(chosen)]
        return Extract(sentences, abstract, sorted(chosen), scores)

    def summarize(self, text: str) -> Summary:
        """The abstract and summary of `text`: its best-scored sentences, shortened to fit."""
        ex = self.extract(text)
        limit = self.max_sentence_chars
        if ex.abstract is None:
            # The first line with words that is not a fence nor a lone tag: a chunk of
            # code and fences alone ("```") has no summary rather than a lone fence, one
            # of a template's tags alone ("</pr_description>") none rather than the tag.
            # Nor a line of code, a file's name or an edit-block marker: a chunk whose only
            # text is code has no summary ("import os" alone tells a reader nothing).
            line = ""
            code = _Code()
            for raw in text.splitlines():
                m = _ROLE_LINE.match(raw) if not code.busy else None
                candidate = _COMMENT.sub("", raw[m.end() :] if m else raw)
                if code.code(candidate):
                    continue
                if has_words(candidate) and not (
                    _FILE_LABEL.match(candidate)
                    or _TAG_LINE.match(candidate)
                    or _HEADING.match(candidate)
                    or _TABLE.match(candidate)
                ):
                    line = candidate.strip()
                    break
            line = _truncate(" ".join(line.split()), limit)
            return Summary(line, line)
        abstract = _truncate(ex.sentences[ex.abstract].text, limit)
        if abstract.endswith(":"):
            abstract = terminated(abstract)
        if len(ex.summary) < 2:
            return Summary(abstract, abstract)
        summary = " ".join(terminated(_truncate(ex.sentences[i].text, limit)) for i in ex.summary)
        return Summary(abstract, summary)


# --------------------------------------------------------------------------- LLM
