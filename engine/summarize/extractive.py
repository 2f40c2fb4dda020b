"""The extractive summarizer: the most central sentences of a chunk (offline, deterministic)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.summarize.base import Summary
from engine.textutil import STOPWORDS

#: The role names a chunk's ``role: text`` lines start with (see engine.parse).
KNOWN_ROLES = ("Bot thinking", "Bot", "You", "Tool", "Doc", "System", "system", "developer")
_ROLE_LINE = re.compile(r"^(" + "|".join(re.escape(r) for r in KNOWN_ROLES) + r"): ?")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_TABLE = re.compile(r"^\s*\|")
_RULE = re.compile(r"^\s*([-*_=])\s*(\1\s*){2,}$")
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
_WORD = re.compile(r"\w+")
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


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a chunk, with the role of the turn it came from.

    ``prose`` is False for collapsed tool sentences, headings and other
    boilerplate that should not stand for a chunk that has real prose.
    """

    text: str
    role: str
    position: int
    prose: bool


def _is_boundary(text: str, stop: int, nxt: int) -> bool:
    """Whether the stop ending at `stop` (index of its first mark) ends a sentence."""
    if _STARTER.match(text, nxt):
        return True
    if not _LOWER_START.match(text, nxt) or text[stop] != ".":
        return False
    start = text.rfind(" ", 0, stop) + 1
    word = text[start:stop]
    return len(word) >= 2 and "." not in word and word.lower() not in _ABBREVIATIONS


def _split_prose(text: str) -> list[str]:
    parts: list[str] = []
    begin = 0
    for m in _SENTENCE_END.finditer(text):
        if _is_boundary(text, m.start(), m.end()):
            parts.append(text[begin : m.start(1)])
            begin = m.end()
    parts.append(text[begin:])
    return [p.strip() for p in parts if p.strip()]


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
    in_code: str | None = None

    def flush() -> None:
        if buffer:
            para = " ".join(buffer)
            for s in _split_prose(para):
                sentences.append(Sentence(s, role, len(sentences), True))
            buffer.clear()

    def single(s: str, prose: bool) -> None:
        s = " ".join(s.split())
        if s:
            sentences.append(Sentence(s, role, len(sentences), prose))

    for raw in text.splitlines():
        line = raw
        m = _ROLE_LINE.match(line)
        if m and in_code is None:
            flush()
            role = m.group(1)
            line = line[m.end() :]
        fence = _FENCE.match(line)
        if in_code is not None:
            if fence and fence.group(1)[0] == in_code[0] and len(fence.group(1)) >= len(in_code):
                in_code = None
            continue
        if fence:
            flush()
            in_code = fence.group(1)
            continue
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if role == "Tool":
            flush()
            single(stripped, False)
            continue
        if _TABLE.match(line) or _RULE.match(line):
            flush()
            continue
        if _HEADING.match(line):
            flush()
            single(_HEADING.sub("", line), False)
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            buffer.append(line[bullet.end() :].strip())
            continue
        buffer.append(" ".join(stripped.split()))
    flush()
    return sentences


def _truncate(text: str, limit: int = MAX_SENTENCE_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "..."


def _tfidf(sentences: Sequence[Sentence]) -> npt.NDArray[np.float64]:
    """Unit-length TF-IDF rows, one per sentence, over the words of the chunk."""
    docs = [
        [w for w in _WORD.findall(s.text.lower()) if w not in _STOPWORDS and len(w) > 1]
        for s in sentences
    ]
    vocab: dict[str, int] = {}
    for words in docs:
        for w in words:
            vocab.setdefault(w, len(vocab))
    n = len(docs)
    matrix = np.zeros((n, max(len(vocab), 1)), dtype=np.float64)
    for i, words in enumerate(docs):
        for w in words:
            matrix[i, vocab[w]] += 1.0
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
    prompt_version = "1"
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
        scores = self.scores(sentences)
        if not sentences:
            return Extract([], None, [], [])
        # Distinct sentences only: a repeated "Edited x." is one candidate.
        first_of: dict[str, int] = {}
        for s in sentences:
            first_of.setdefault(s.text, s.position)
        distinct = sorted(first_of.values())
        prose = [i for i in distinct if sentences[i].prose]
        pool = prose or distinct

        def rank(i: int) -> tuple[float, int]:
            return (-scores[i], i)

        abstract = min(pool, key=rank)
        n = len(distinct)
        k = 2 if n <= 6 else 3 if n <= 15 else 4
        chosen = sorted(pool, key=rank)[:k]
        if len(chosen) < k:
            rest = [i for i in distinct if i not in chosen]
            chosen += sorted(rest, key=rank)[: k - len(chosen)]
        return Extract(sentences, abstract, sorted(chosen), scores)

    def summarize(self, text: str) -> Summary:
        ex = self.extract(text)
        limit = self.max_sentence_chars
        if ex.abstract is None:
            line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            m = _ROLE_LINE.match(line)
            if m:
                line = line[m.end() :].strip()
            line = _truncate(" ".join(line.split()), limit)
            return Summary(line, line)
        abstract = _truncate(ex.sentences[ex.abstract].text, limit)
        if len(ex.summary) < 2:
            return Summary(abstract, abstract)
        summary = " ".join(_truncate(ex.sentences[i].text, limit) for i in ex.summary)
        return Summary(abstract, summary)


# --------------------------------------------------------------------------- LLM
