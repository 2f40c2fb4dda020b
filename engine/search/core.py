"""Search: a question's best chunks, and the context they make under a token budget.

`SearchIndex` holds the merged chunks of one run (their texts, topics, lines and token
counts) and answers a question in three steps:

1. **rank** every chunk with the ranker (`engine.search.rankers`); under ``bm25`` a
   chunk of a document is read with the names of the section headings it sits under
   (`section_trails`: a paragraph deep in "Keys > Dotted keys" rarely repeats them,
   and questions name them), and a chunk that scores above 0 adds `adjacent` times
   the scores of its two neighbours in the same topic (the words of a question often
   sit in the paragraph beside its answer: a chunk between two that match outranks a
   lone match of the same score). A chunk with no word of the question still ranks
   nowhere;
2. **widen**: each of the `top` best chunks lends its neighbours in the same topic a
   priority of ``neighbours`` times its own (scores scaled so the best chunk is 1):
   the chunk that ranks first often holds the question's words while the answer
   sits in the next paragraph of the same topic. A neighbour is taken only beside a
   chunk the context holds;
3. **fill**: chunks are taken whole by priority while they fit, at most `top` of
   them; a chunk that does not fit in what is left is passed over for the next one
   that does. What room is left then takes the start of the best chunk passed over,
   cut to fit (``truncated``; so a first chunk alone over the budget is cut to it).
   A start too small to carry anything (under `MIN_CUT_TOKENS` tokens, or no word
   beyond a role label) is left out: the rest of the budget stays unused, and the
   answer says so (``Answer.left_out``, `Answer.rest_note`).
   The context is the taken chunks' texts joined with a blank line, counted with the
   run's tokenizer: never more than the budget.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.params import check_fields, knob
from chunkscope.engine.read.source import DOC_ROLE
from chunkscope.engine.search.queries import Query
from chunkscope.engine.search.rankers import (
    DEFAULT_RANKER,
    RANKERS,
    BM25Index,
    cosine_scores,
    order,
    rrf,
)
from chunkscope.engine.segment.docstruct import Piece, document_starts, heading_trails
from chunkscope.engine.textutil import plural
from chunkscope.engine.tokens import TokenCounter

__all__ = [
    "CONTEXT_JOIN",
    "MIN_CUT_TOKENS",
    "Answer",
    "Result",
    "SearchIndex",
    "SearchParams",
    "section_trails",
]

#: Tokens a join may save where one chunk's end and the next one's start meet (trailing
#: space and the blank line tokenized together): a chunk more than this over the room
#: left is passed over without counting the joined text.
JOIN_SLACK = 4
#: Between two chunks of a context.
CONTEXT_JOIN = "\n\n"
#: The fewest tokens a chunk's start cut to fit the budget's rest must hold to be
#: kept: a smaller one (a role label, half a word) carries nothing.
MIN_CUT_TOKENS = 8
#: The context header ``--enrich`` puts before a chunk's content (the seed's, written by
#: `engine.chunk.strategies.markdown.enrichment_header`): words, but none of the file's,
#: so a cut that reaches no further than it holds nothing of its lines.
_ENRICHMENT = re.compile(
    r"Document: [^\n]*\nSection: [^\n]*\nPosition: Chunk \d+ of \d+ \([^\n]*\)\n"
    r"Type: [^\n]*\n\n"
)

FloatArray = npt.NDArray[np.float64]
#: Embeds questions (and, for an embedder whose vectors depend on the whole call, the
#: chunks again with them): ``(queries) -> (query vectors, chunk vectors)``.
EmbedFn = Callable[[Sequence[str]], tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]


@dataclass(frozen=True)
class SearchParams:
    """The knobs of `search` (flags, the workbench's Search panel and profiles derive
    from these declarations)."""

    ranker: str = knob(
        DEFAULT_RANKER,
        "how chunks are ranked: bm25 (words), embed (the embedder's vectors) or fusion "
        "(reciprocal rank fusion of both)",
        flag="--ranker",
        choices=RANKERS,
    )
    budget: int = knob(
        1000, "tokens the context may hold (never exceeded)", flag="--budget", minimum=1
    )
    top: int = knob(10, "chunks in the context at most", flag="--top", minimum=1, metavar="K")
    adjacent: float = knob(
        0.15,
        "the bm25 ranker: a chunk's score adds this share of its neighbours' in its topic "
        "(0: each chunk alone)",
        flag="--adjacent",
        minimum=0,
        maximum=1,
        metavar="X",
    )
    neighbours: float = knob(
        0.5,
        "a top chunk's neighbours in its topic rank at this share of its score (0: no neighbours)",
        flag="--neighbours",
        minimum=0,
        maximum=1,
        metavar="X",
    )

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class Result:
    """One chunk of a context."""

    rank: int  # 1-based place in the context
    chunk: int  # index of the merged chunk
    score: float  # the ranker's score of the chunk (bm25: with its neighbours' share)
    tokens: int  # tokens of `text`
    text: str
    lines: tuple[int, int] | None
    topic: int
    via: int | None = None  # the chunk whose neighbour this is (None: ranked itself)
    truncated: bool = False

    def as_json(self) -> dict[str, Any]:
        """The result as the JSON of ``search --json``."""
        out: dict[str, Any] = {
            "rank": self.rank,
            "score": round(self.score, 6),
            "chunk": self.chunk,
            "lines": list(self.lines) if self.lines else None,
            "tokens": self.tokens,
            "topic": self.topic,
            "text": self.text,
        }
        if self.via is not None:
            out["neighbour_of"] = self.via
        if self.truncated:
            out["truncated"] = True
        return out


#: Said of an answer listed in context order whose scores are not in order, and its short
#: form (`Answer.order_notes`).
CONTEXT_ORDER = (
    "in context order, not by score: the best chunks and their neighbours whole, then "
    "the cut start of one passed over",
    "context order, not by score",
)


@dataclass(frozen=True)
class Answer:
    """What a context receives for one question, and the ranking it came from."""

    query: Query
    results: tuple[Result, ...]
    used_tokens: int
    budget: int
    ranking: tuple[int, ...] = field(repr=False)  # chunks the ranker scores, best first
    #: The chunk whose start would have filled the budget's rest but was too small to
    #: carry anything (see the module doc), so the rest is unused; None otherwise.
    left_out: int | None = None
    #: The tokens of the `left_out` chunk (None when none is left out).
    left_out_tokens: int | None = None

    @property
    def context(self) -> str:
        """The results' texts joined: what an agent would be handed."""
        return CONTEXT_JOIN.join(r.text for r in self.results)

    @property
    def order_notes(self) -> tuple[str, ...]:
        """What the output says when the list, in the order the context takes it, is not
        in score order (a top chunk's neighbours, the cut start of a chunk passed over),
        and its short form; none when it is."""
        scores = [r.score for r in self.results]
        if all(a >= b for a, b in itertools.pairwise(scores)):
            return ()
        return CONTEXT_ORDER

    @property
    def rest_note(self) -> str | None:
        """What the output says when the budget's rest is left unused, else None."""
        return self.rest_notes[0] if self.rest_notes else None

    @property
    def rest_notes(self) -> tuple[str, ...]:
        """`rest_note` and its short form (``8 tokens unused``), for a line with little
        room; none when the budget's rest is used."""
        if self.left_out is None:
            return ()
        if not self.results:  # nothing fits: the best match is the chunk left out
            size = (
                ""
                if self.left_out_tokens is None
                else f" ({plural(self.left_out_tokens, 'token')})"
            )
            fits = f"no chunk fits in {plural(self.budget, 'token')}"
            return (
                f"{fits}: the best match, #{self.left_out}{size}, is left out: "
                "the start of it that fits carries nothing",
                fits,
            )
        unused = f"{plural(self.budget - self.used_tokens, 'token')} unused"
        return (
            f"the rest ({plural(self.budget - self.used_tokens, 'token')}) unused: "
            f"the start of #{self.left_out} that fits carries nothing",
            unused,
        )

    def as_json(self) -> dict[str, Any]:
        """The answer as the JSON of ``search --json``."""
        out: dict[str, Any] = {
            "query": self.query.query,
            "results": [r.as_json() for r in self.results],
            "used_tokens": self.used_tokens,
            "budget": self.budget,
        }
        if self.left_out is not None:
            out["left_out"] = self.left_out
        return out


def _lead(t: Turn) -> int:
    """Characters of ``t.line`` before the text of the file: its role label (``Doc: ``)
    and, for a chunk of ``--enrich``, the enrichment header."""
    header = _ENRICHMENT.match(t.text)
    return len(t.line) - len(t.text) + (header.end() if header else 0)


def held_part(chunk: Chunk, cut: str) -> str:
    """`cut` (a start of ``chunk.text``, cut to fit a budget) up to the end of what it holds
    of the chunk's turns: a last turn it reaches no word of (only its role label, or half
    of it, the enrichment header or a list marker) is left off, with the line break
    before it (walk 61, F8: a part ended ``...\nDoc:`` and claimed the next turn's
    lines). Empty when no word of a turn's text is reached."""
    end = 0
    at = 0
    for t in chunk.turns:
        if at >= len(cut):
            break
        stop = at + len(t.line)
        if any(ch.isalnum() for ch in cut[at + _lead(t) : stop]):
            end = min(stop, len(cut))
        at = stop + 1
    return cut[:end]


def prefix_lines(chunk: Chunk, length: int) -> tuple[int, int] | None:
    """The source lines of the first `length` characters of ``chunk.text`` (a chunk cut to
    fit a budget; walk 15, 5: it gave the whole chunk's lines): the turns the cut
    reaches, and in the last of them, when its text is lines of the file (a document's
    section, an aider message: `Turn.last_line` known), the lines up to the cut; else
    (a message of a JSON document) all of its lines."""
    full = chunk.lines
    if full is None or length >= len(chunk.text):
        return full
    last: int | None = None
    at = 0
    for t in chunk.turns:
        if at >= length:
            break
        line = t.line
        if t.source_line is not None:
            end = t.last_line or t.end_line or t.source_line
            # (only a text that is the file's lines counts its line breaks: a message of a
            # JSON document is one string, its range from the object's `{`: walk 50, F4)
            if t.last_line is not None and end > t.source_line:
                seen = line[: length - at]
                label = _lead(t)  # "Role: " (and an enrichment header) before the text
                # to the last character that shows (a cut after a line break and a few
                # spaces has not reached the next line's words)
                end = min(end, t.source_line + seen[label:].rstrip().count("\n"))
            last = end if last is None else max(last, end)
        at += len(line) + 1
    if last is None:
        return full
    return (full[0], max(full[0], min(last, full[1])))


def section_trails(chunks: Sequence[Chunk]) -> list[str]:
    """For each chunk, the names of the section headings its first paragraph of a
    document sits under, outermost first, joined with spaces (empty for a chunk of a
    session, and for one before any heading): read by the ``bm25`` ranker with the
    chunk's text, never part of it. Headings are those the topic segmenter reads
    (`engine.segment.docstruct`: inside a fence a ``#`` line is code)."""
    pieces: list[Piece] = []
    first: list[int] = []  # per chunk: the index of its first piece (-1: none)
    prev: int | None = None
    for chunk in chunks:
        first.append(-1)
        for t in chunk.turns:
            if t.role != DOC_ROLE:
                continue
            if first[-1] < 0:
                first[-1] = len(pieces)
            pieces.append(Piece(t.text, t.turn_index is None or t.turn_index != prev))
            prev = t.turn_index
    if not pieces:
        return [""] * len(first)
    trails = heading_trails(document_starts(pieces), len(pieces))
    return [" ".join(trails[i]) if i >= 0 else "" for i in first]


class SearchIndex:
    """The merged chunks of one run, ready to answer questions (see the module doc)."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        topic_of: Sequence[int],
        counter: TokenCounter,
        *,
        embed: EmbedFn | None = None,
    ) -> None:
        self.chunks = list(chunks)
        self.texts = [c.text for c in self.chunks]
        self.topic_of = list(topic_of)
        self.lines = [c.lines for c in self.chunks]
        self.counter = counter
        self.tokens = counter.count_many(self.texts)
        # after chunk i: whether chunk i + 1 is in the same topic
        topics = np.asarray(self.topic_of)
        self._same_topic = topics[1:] == topics[:-1]
        self._bm25: BM25Index | None = None
        self._embed = embed
        self._trails: list[str] | None = None

    @property
    def bm25(self) -> BM25Index:
        """The BM25 index of the chunks, built on first use."""
        if self._bm25 is None:
            self._bm25 = BM25Index(
                [
                    f"{trail}\n{text}" if trail else text
                    for trail, text in zip(self.trails, self.texts, strict=True)
                ]
            )
        return self._bm25

    @property
    def trails(self) -> list[str]:
        """Each chunk's `section_trails` (computed on first use)."""
        if self._trails is None:
            self._trails = section_trails(self.chunks)
        return self._trails

    def scores(
        self, queries: Sequence[str], ranker: str = DEFAULT_RANKER, adjacent: float = 0.0
    ) -> list[FloatArray]:
        """Each question's score of every chunk under `ranker` (``bm25``: with `adjacent`
        times its neighbours' in the topic, `with_adjacent`; fusion fuses the plain BM25
        ranking, which measured better there)."""
        if ranker not in RANKERS:
            raise ValueError(f"ranker must be one of {', '.join(RANKERS)}, got {ranker!r}")
        n = len(self.chunks)
        share = adjacent if ranker == "bm25" else 0.0
        lexical = (
            [self.with_adjacent(self.bm25.scores(q), share) for q in queries]
            if ranker != "embed"
            else []
        )
        if ranker == "bm25":
            return lexical
        if self._embed is None:
            raise ValueError(f"the {ranker} ranker needs an embedder")
        qv, cv = self._embed(list(queries))
        dense = [cosine_scores(qv[i], cv) for i in range(len(queries))]
        if ranker == "embed":
            return dense
        return [
            rrf(order(lex), order(den, positive=not den.any()), size=n)
            for lex, den in zip(lexical, dense, strict=True)
        ]

    def with_adjacent(self, scores: FloatArray, share: float) -> FloatArray:
        """`scores` where each chunk that scores above 0 adds `share` times the scores of
        the chunks before and after it in the same topic (a chunk at 0 stays at 0)."""
        if share <= 0 or len(scores) < 2:
            return scores
        same = self._same_topic
        lent = np.zeros_like(scores)
        lent[1:] += np.where(same, scores[:-1], 0.0)  # from the chunk before
        lent[:-1] += np.where(same, scores[1:], 0.0)  # from the chunk after
        return np.where(scores > 0, scores + share * lent, scores)

    def search(self, query: Query | str, params: SearchParams | None = None) -> Answer:
        """The answer to one question (see `search_many`)."""
        return self.search_many([query], params)[0]

    def search_many(
        self, queries: Sequence[Query | str], params: SearchParams | None = None
    ) -> list[Answer]:
        """Each question's context (`Answer`), under one set of `params`."""
        p = params or SearchParams()
        qs = [q if isinstance(q, Query) else Query(q) for q in queries]
        all_scores = self.scores([q.query for q in qs], p.ranker, p.adjacent) if qs else []
        return [self._answer(q, s, p) for q, s in zip(qs, all_scores, strict=True)]

    def _answer(self, query: Query, scores: FloatArray, p: SearchParams) -> Answer:
        # cosines rank every chunk, unless the question has no vector at all
        ranking = order(scores, positive=p.ranker != "embed" or not scores.any())
        priority = [
            (i, via) for i, via in self._priorities(ranking, scores, p) if self.texts[i].strip()
        ]
        taken: list[tuple[int, int | None, str]] = []  # (chunk, via, text)
        parts: list[str] = []
        passed: tuple[int, int | None] | None = None  # the best chunk that did not fit
        chosen: set[int] = set()
        used = 0  # tokens of the context so far, counted exactly
        for i, via in priority:
            if len(taken) >= p.top:
                break
            if i in chosen or (via is not None and via not in chosen):
                continue  # taken already, or the context of a chunk that is not in it
            text = self.texts[i]
            # far over what is left: no need to count the joined text to know it
            fits = used + self.tokens[i] <= p.budget + JOIN_SLACK
            if fits:
                joined = self._count([*parts, text])
                fits = joined <= p.budget
            if not fits:
                if passed is None:
                    passed = (i, via)
                continue  # does not fit what is left: try the next one
            used = joined
            parts.append(text)
            taken.append((i, via, text))
            chosen.add(i)
        truncated = -1
        left_out: int | None = None
        if (
            passed is not None
            and passed[0] not in chosen
            and len(taken) < p.top
            and self._count(parts) < p.budget  # a full budget has no rest to fill
        ):
            # the rest of the room: the start of the best chunk passed over
            chunk = self.chunks[passed[0]]
            cut = held_part(chunk, self._cut_to_fit(parts, chunk.text, p.budget))
            if self._carries_words(cut):
                truncated = len(taken)
                parts.append(cut)
                taken.append((passed[0], passed[1], cut))
            else:
                left_out = passed[0]
        results = tuple(
            Result(
                rank=k + 1,
                chunk=i,
                score=float(scores[i]),
                tokens=self.counter.count(text) if k == truncated else self.tokens[i],
                text=text,
                lines=prefix_lines(self.chunks[i], len(text)) if k == truncated else self.lines[i],
                topic=self.topic_of[i],
                via=via,
                truncated=k == truncated,
            )
            for k, (i, via, text) in enumerate(taken)
        )
        return Answer(
            query,
            results,
            self._count(parts),
            p.budget,
            tuple(ranking),
            left_out,
            None if left_out is None else self.tokens[left_out],
        )

    def _carries_words(self, part: str) -> bool:
        """True when a chunk's start cut to fit, as `held_part` keeps it (empty without a
        word of the file beyond its role labels and enrichment headers), carries
        something: at least `MIN_CUT_TOKENS` tokens."""
        return bool(part) and self.counter.count(part) >= MIN_CUT_TOKENS

    def _priorities(
        self, ranking: list[int], scores: FloatArray, p: SearchParams
    ) -> list[tuple[int, int | None]]:
        """(chunk, the chunk whose neighbour it is) in the order the context takes them."""
        if not ranking:
            return []
        best = float(scores[ranking[0]])
        if p.ranker == "embed":  # cosines: rank-scaled, as fusion's are
            scaled = {i: 1.0 / (1 + r) for r, i in enumerate(ranking)}
        else:
            scaled = {i: float(scores[i]) / best if best > 0 else 0.0 for i in ranking}
        # (priority, a chunk's own entry before a lent one, chunk, the chunk lending)
        entries: list[tuple[float, int, int, int | None]] = [
            (-s, 0, i, None) for i, s in scaled.items() if s > 0
        ]
        if p.neighbours > 0:
            n = len(self.chunks)
            for i in ranking[: p.top]:
                lent = p.neighbours * scaled[i]
                for j in (i - 1, i + 1):
                    if lent > 0 and 0 <= j < n and self.topic_of[j] == self.topic_of[i]:
                        entries.append((-lent, 1, j, i))
        entries.sort(key=lambda e: (e[0], e[1], e[2]))
        return [(i, via) for _, _, i, via in entries]

    def _count(self, parts: list[str]) -> int:
        """Tokens of the joined context, counted afresh: contexts are not kept in the
        run's count cache (each question makes new ones, and the cache is shared)."""
        text = CONTEXT_JOIN.join(parts)
        counter = self.counter
        return len(counter.encode(text)) if counter.exact else counter.count(text)

    def _cut_to_fit(self, parts: list[str], text: str, budget: int) -> str:
        """The longest start of `text` that, joined after `parts`, keeps the context
        within `budget` tokens."""
        room = budget - (self._count(parts) + 1 if parts else 0)  # the join: a token
        while room > 0:
            cut = self._cut(text, room)
            if self._count([*parts, cut]) <= budget:
                return cut
            room -= 1
        return ""

    def _cut(self, text: str, budget: int) -> str:
        """The longest start of `text` that counts at most `budget` tokens."""
        counter = self.counter
        if counter.exact:
            ids = counter.encode(text)
            k = budget
            cut = _prefix(text, counter.decode(ids[:k]))
            while k > 0 and len(counter.encode(cut)) > budget:
                k -= 1
                cut = _prefix(text, counter.decode(ids[:k]))
            return cut
        lo, hi = 0, len(text)  # approximate counter: the longest prefix that fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if counter.count(text[:mid]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]


def _prefix(text: str, decoded: str) -> str:
    """The part of `decoded` (the first tokens of `text`, decoded) that is a start of
    `text`: tokens that end inside a character decode to a replacement mark, dropped."""
    if text.startswith(decoded):
        return decoded
    n = 0
    for a, b in zip(decoded, text, strict=False):
        if a != b:
            break
        n += 1
    return text[:n]
