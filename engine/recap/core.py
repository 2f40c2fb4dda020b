"""The session recap: scoring, selection within a token budget, rendering, save/load.

Scoring (one score per merged chunk, higher is kept first):

- ``recency``: ``(i + 1) / n``, the reference's v1 scorer and the default.
- ``salience``: ``novelty x centrality x recency``, optionally times the action
  weight ``1 + alpha * consequential tool calls``. Centrality is TextRank
  (PageRank power iteration over the graph of positive cosine similarities of
  the merged chunks' vectors), scaled so the most central chunk has 1.0.
  Novelty is ``1 - max cosine`` to existing memories embedded with the same
  embedder (1.0 for every chunk without memories).

Selection (`select`): candidates are taken in priority order, pinned ones
first, then by score (newer first on ties); each is added when the *rendered*
recap, separators and the final newline included, still counts at most
``budget`` tokens with the given counter, otherwise it is skipped and smaller
ones are still tried. Excluded candidates are never taken. The picks are shown
in chronological order. If nothing fits at all, the seed's recap (``keep_newest``,
`compose`'s ``plain``) includes the newest candidate that is not excluded alone and
``newest_over_budget`` is True (the reference always keeps the newest summary; this
makes it visible). That is the only way the recap can exceed the budget; every other
recap is then empty and ``summary_left_out`` says so.

Rendering (`render_recap`): one paragraph per picked chunk, its summary text
(the 2-4 sentence summary; the abstract only when the summary is empty), in
chronological order, separated by a blank line and ending with a newline. The
abstract is not repeated: the summary already contains it or says more. With
``headings=True`` each paragraph is preceded by ``## HH:MM:SS - HH:MM:SS`` (a
candidate without a time range, a markdown file's, gets none).

`save_recap` writes atomically (temp file in the same directory, fsync, rename);
`load_recap` returns None for a missing or blank file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import chain, compress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.fileio import atomic_write_text
from chunkscope.engine.params import SliderSpec, check_fields, knob
from chunkscope.engine.textutil import CUT_END, literal_markdown, plural, strip_control

if TYPE_CHECKING:
    from chunkscope.engine.recap.sections import Section
    from chunkscope.engine.summarize import Summary

__all__ = [
    "DEFAULT_BUDGET",
    "NO_SUMMARY_WHY",
    "NO_TURN_WHY",
    "RECAP_FILENAME",
    "SCORERS",
    "SEPARATOR",
    "Candidate",
    "Reason",
    "RecapParams",
    "Scorer",
    "Selection",
    "action_weights",
    "centrality_scores",
    "compose",
    "compose_lazy",
    "load_recap",
    "novelty_scores",
    "recency_scores",
    "render_block",
    "render_recap",
    "salience_scores",
    "save_recap",
    "score_chunks",
    "select",
]

FloatArray = npt.NDArray[np.float64]
Scorer = Literal["recency", "salience"]
#: Why a candidate is in the recap or not; "said already": every sentence of its summary
#: was said before it (by the sections or a candidate ahead), so it adds nothing; "no
#: summary": its chunk has no sentence to tell (`NO_SUMMARY_WHY`).
Reason = Literal["kept", "pinned", "over budget", "excluded", "said already", "no summary"]
#: What a chunk with no summary holds: said by the command line, the report and the workbench.
NO_SUMMARY_WHY = "no sentence to tell (only code, commands such as /clear, markup or a lead-in)"
#: Why a file of turns has no merged chunk: its turns are the tool's own output (aider's
#: notices, an orphan tool result), which collapsing leaves out.
NO_TURN_WHY = (
    "no turn to tell: the file's turns are the tool's own output, no words of the user's or "
    "the agent's"
)

SCORERS: tuple[Scorer, ...] = ("recency", "salience")


@dataclass(frozen=True)
class RecapParams:
    """The recap's knobs (see `engine.params`): budget, scorer and action weight."""

    budget: int = knob(
        1000,
        "token budget of the rendered recap",
        flag="--budget",
        minimum=1,
        # Beyond any context window, and exact on the budget slider (a float: a budget
        # past 2**53 showed another number there than in the title).
        maximum=1_000_000,
        metavar="N",
        slider=SliderSpec(100, 8000, 50, 500, label="budget", fmt="{:.0f}"),
    )
    scorer: str = knob(
        "recency",
        "recency (newest first) or salience (novelty x centrality x recency)",
        flag="--scorer",
        choices=SCORERS,
    )
    alpha: float = knob(
        0.0,
        "salience: action weight 1 + A x consequential tool calls (0: off)",
        flag="--alpha",
        minimum=0,
        metavar="A",
    )
    plain: bool = knob(
        False,
        "the chunk summaries only, as the seed's recap (no task, plan, files, outcome sections)",
        flag="--plain",
    )

    def __post_init__(self) -> None:
        check_fields(self)


DEFAULT_BUDGET: int = RecapParams().budget
#: The most of the budget the procedural sections take; the summaries fill the rest.
SECTIONS_SHARE = 0.8
RECAP_FILENAME = "_recap.md"
#: Between two paragraphs of a recap.
SEPARATOR = "\n\n"

# Joining paragraphs can merge a few tokens at each seam (".\n\n" is one token), so
# a candidate whose additive estimate is over the budget by at most this much is
# still checked against the real count of the rendered recap.
_SEAM_SLACK = 4
#: The candidates `compose_lazy` summarizes first, besides the pins (it doubles them
#: until the rest cannot be picked).
_LAZY_HEAD = 64


class TokenCount(Protocol):
    """What `select` needs of a token counter (`engine.tokens.TokenCounter` has it)."""

    def count(self, text: str) -> int: ...

    def count_many(self, texts: list[str]) -> list[int]: ...


# --------------------------------------------------------------------------- scoring


def recency_scores(n: int) -> list[float]:
    """``(i + 1) / n`` for ``i`` in ``0..n-1``: the newest chunk scores 1.0."""
    return [(i + 1) / n for i in range(n)]


def _unit_rows(vectors: npt.ArrayLike) -> FloatArray:
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2:
        raise ValueError(f"vectors must be a 2-D array, got shape {v.shape}")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    out = np.zeros_like(v)
    np.divide(v, norms, out=out, where=norms > 0)
    return out


#: The most rows `centrality_scores` takes: its graph is an n x n float64 matrix (512 MB
#: here); a 21 MB log's 27,872 merged chunks would need 6.2 GB (it ended in a segfault).
CENTRALITY_MAX_ROWS = 8_000


def centrality_scores(
    vectors: npt.ArrayLike,
    *,
    damping: float = 0.85,
    max_iter: int = 200,
    tol: float = 1e-10,
) -> FloatArray:
    """TextRank centrality of each row, scaled so the most central one is 1.0.

    The graph links every pair of rows with weight ``max(cosine, 0)`` (no
    self-loops); a row without positive links spreads its rank evenly. PageRank
    power iteration with `damping` runs until the change is below `tol`.
    """
    unit = _unit_rows(vectors)
    n = len(unit)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    if n == 1:
        return np.ones(1, dtype=np.float64)
    if n > CENTRALITY_MAX_ROWS:
        gb = n * n * 8 / 1e9
        raise ChunkscopeError(
            f"the salience scorer links every pair of merged chunks: {n:,} here, over its "
            f"limit of {CENTRALITY_MAX_ROWS:,} (a {gb:,.1f} GB matrix); use the recency "
            "scorer, or fewer, larger chunks (a higher --max-chars or --topic-chunk-tokens)"
        )
    sim = unit @ unit.T  # one n x n matrix, worked on in place (the same numbers)
    np.clip(sim, 0.0, None, out=sim)
    np.fill_diagonal(sim, 0.0)
    row_sums = sim.sum(axis=1, keepdims=True)
    dangling = row_sums[:, 0] <= 0
    transition = sim
    np.divide(sim, row_sums, out=transition, where=row_sums > 0)
    transition[dangling] = 1.0 / n
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        new = (1.0 - damping) / n + damping * (transition.T @ rank)
        if float(np.abs(new - rank).sum()) < tol:
            rank = new
            break
        rank = new
    top = float(rank.max())
    result: FloatArray = rank / top if top > 0 else np.ones(n, dtype=np.float64)
    return result


def novelty_scores(
    vectors: npt.ArrayLike, memory_vectors: npt.ArrayLike | None = None
) -> FloatArray:
    """``1 - max cosine`` of each row to the memories, clipped to [0, 1]; 1.0 without any."""
    unit = _unit_rows(vectors)
    n = len(unit)
    if memory_vectors is None:
        return np.ones(n, dtype=np.float64)
    mem = np.asarray(memory_vectors, dtype=np.float64)
    if mem.size == 0:
        return np.ones(n, dtype=np.float64)
    mem_unit = _unit_rows(mem)
    if mem_unit.shape[1] != unit.shape[1]:
        raise ValueError(
            f"memory vectors have {mem_unit.shape[1]} dims, chunk vectors {unit.shape[1]}"
        )
    nearest = (unit @ mem_unit.T).max(axis=1) if n else np.zeros(0)
    result: FloatArray = np.clip(1.0 - nearest, 0.0, 1.0)
    return result


def action_weights(consequential: Sequence[int], alpha: float) -> FloatArray:
    """``1 + alpha * count`` per chunk (the seed's action weight)."""
    if not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    counts = np.asarray(list(consequential), dtype=np.float64)
    result: FloatArray = 1.0 + alpha * counts
    return result


def salience_scores(
    vectors: npt.ArrayLike,
    *,
    memory_vectors: npt.ArrayLike | None = None,
    novelty: Sequence[float] | None = None,
    consequential: Sequence[int] | None = None,
    alpha: float = 0.0,
) -> list[float]:
    """``novelty x centrality x recency`` (x the action weight when `alpha` > 0).

    Pass either precomputed `novelty` or `memory_vectors` (same embedder as
    `vectors`). `consequential` counts consequential tool calls per chunk.
    """
    v = np.asarray(vectors, dtype=np.float64)
    n = len(v)
    if n == 0:
        return []
    if novelty is not None:
        nov = np.asarray(list(novelty), dtype=np.float64)
        if nov.shape != (n,):
            raise ValueError(f"novelty has {len(nov)} entries but there are {n} chunks")
    else:
        nov = novelty_scores(v, memory_vectors)
    score = nov * centrality_scores(v) * np.asarray(recency_scores(n))
    if consequential is not None and alpha:
        weights = action_weights(consequential, alpha)
        if weights.shape != (n,):
            raise ValueError(f"consequential has {len(weights)} entries but there are {n} chunks")
        score = score * weights
    return [float(x) for x in score]


def score_chunks(
    scorer: str,
    n: int,
    *,
    vectors: npt.ArrayLike | None = None,
    novelty: Sequence[float] | None = None,
    consequential: Sequence[int] | None = None,
    alpha: float = 0.0,
) -> list[float]:
    """One score per merged chunk by `scorer` (one of `SCORERS`): ``recency`` needs only
    the count; ``salience`` the merged vectors (and novelty / consequential counts)."""
    if scorer == "recency":
        return recency_scores(n)
    if scorer != "salience":
        raise ValueError(f"unknown scorer {scorer!r} ({' or '.join(SCORERS)})")
    if vectors is None:
        raise ValueError("the salience scorer needs the merged chunks' vectors")
    return salience_scores(vectors, novelty=novelty, consequential=consequential, alpha=alpha)


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True, slots=True)
class Candidate:
    """A merged chunk's summary competing for a place in the recap.

    `select` fills in ``tokens`` (of the candidate's rendered paragraph alone),
    ``selected`` and ``reason``.
    """

    index: int
    summary: Summary
    score: float
    time_range: str = ""
    start: datetime | None = None
    end: datetime | None = None
    tokens: int = 0
    pinned: bool = False
    excluded: bool = False
    selected: bool = False
    reason: Reason = "over budget"

    @property
    def abstract(self) -> str:
        """The chunk summary's one-sentence abstract."""
        return self.summary.abstract

    @property
    def text(self) -> str:
        """What the recap shows for this candidate."""
        return self.summary.text.strip()

    def as_dict(self) -> dict[str, Any]:
        """The candidate as in ``chunkscope recap --format json``."""
        return {
            "index": self.index,
            "time_range": self.time_range,
            "abstract": self.summary.abstract,
            "summary": self.summary.summary,
            "score": round(self.score, 6),
            "tokens": self.tokens,
            "selected": self.selected,
            "pinned": self.pinned,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Selection:
    """The outcome of `select`: every candidate with its reason, and the recap text."""

    candidates: list[Candidate]
    budget: int
    used_tokens: int
    newest_over_budget: bool
    text: str
    headings: bool = False
    tokenizer: str = ""
    #: The candidates' indices in the order the selection takes them (`ranked`), the
    #: excluded ones left out: the workbench lists the candidates so, at any budget.
    order: list[int] = field(default_factory=list)
    #: The procedural sections above the summaries (`engine.recap.sections`), as fitted.
    sections: list[Section] = field(default_factory=list)
    #: Tokens of each of `sections` rendered alone (same order).
    section_tokens: list[int] = field(default_factory=list)
    #: The text above the summaries (the rendered sections), "" without sections.
    prefix: str = ""
    #: The log has a task but the budget is too small for even its first word: the
    #: recap is empty rather than over the budget or without the task.
    task_left_out: bool = False
    #: The log has no sections (no task) and not even the smallest summary fits: the
    #: recap is empty rather than over the budget (every recap but the seed's, `--plain`).
    summary_left_out: bool = False
    #: Merged chunks that `compose_lazy` left out of `candidates` (not summarized: none
    #: of them could be in the recap), and how many of those have no summary.
    unlisted: int = 0
    unlisted_empty: int = 0

    @property
    def selected(self) -> list[Candidate]:
        """The picks, in chronological order."""
        return [c for c in self.candidates if c.selected]

    @property
    def empty_why(self) -> str:
        """Why the recap is empty when the budget left everything out (`task_left_out`,
        `summary_left_out`) or no chunk has a summary, else "": ``chunkscope recap``
        notes it, the workbench's preview and its `w` say it, in these words."""
        if self.task_left_out:
            what = "the task's first word"
        elif self.summary_left_out:
            what = "the smallest summary"
        elif not self.candidates and not self.unlisted:
            # no merged chunk at all: collapsing left no turn (walk 64, F14: an aider
            # history of aider's notices alone was said to have "no turns" and, at once,
            # merged chunks with no summary)
            said = "its sections alone" if self.text.strip() else "empty"
            return f"{NO_TURN_WHY}: the recap is {said}"
        elif not self.text.strip() and all(
            c.reason in ("no summary", "excluded") for c in self.candidates
        ):
            # no merged chunk has a sentence to tell (a document of code alone: walk 62,
            # F2, the workbench previewed and wrote an empty recap without a word why)
            return f"no merged chunk has a summary, {NO_SUMMARY_WHY}: the recap is empty"
        else:
            return ""
        budget = plural(self.budget, "token")
        return f"the budget ({budget}) is too small for even {what}: the recap is empty"

    def as_dict(self) -> dict[str, Any]:
        """The JSON document of ``chunkscope recap --format json``."""
        return {
            "budget": self.budget,
            "used_tokens": self.used_tokens,
            "newest_over_budget": self.newest_over_budget,
            "sections": [
                {**s.as_dict(t), "source": s.source}
                for s, t in zip(self.sections, self.section_tokens, strict=False)
            ],
            "candidates": [c.as_dict() for c in self.candidates],
            "recap": self.text,
        }


# --------------------------------------------------------------------------- rendering


def render_block(candidate: Candidate, headings: bool = False) -> str:
    """One candidate's paragraph (with its ``## time range`` heading when asked); the
    summary is the log's text, so no line of it reads as a heading (`literal_markdown`)."""
    text = literal_markdown(candidate.text)
    if headings and candidate.time_range:
        return f"## {candidate.time_range}{SEPARATOR}{text}" if text else ""
    return text


def _join(blocks: Iterable[str], prefix: str = "") -> str:
    parts = [b for b in blocks if b]
    if prefix:
        parts = [prefix, SUMMARIES_HEADING, *parts] if parts else [prefix]
    return SEPARATOR.join(parts) + "\n" if parts else ""


#: Above the chunk summaries when procedural sections come first.
SUMMARIES_HEADING = "## What happened"


def render_recap(
    items: Selection | Sequence[Candidate] | Sequence[Summary] | Sequence[str],
    headings: bool = False,
) -> str:
    """The recap text: one paragraph per item, blank lines between, a final newline.

    A `Selection` renders its picks (its own ``headings`` setting, or this one);
    candidates and summaries render all of them, in the order given. Headings
    need time ranges, so they apply to a selection or candidates only.
    """
    if isinstance(items, Selection):
        return _join(
            (render_block(c, headings or items.headings) for c in items.selected), items.prefix
        )
    blocks: list[str] = []
    for item in items:
        if isinstance(item, Candidate):
            blocks.append(render_block(item, headings))
        elif isinstance(item, str):
            blocks.append(literal_markdown(item.strip()))
        else:  # a Summary
            blocks.append(literal_markdown(item.text.strip()))
    return _join(blocks)


# --------------------------------------------------------------------------- selection


def ranked(candidate: Candidate) -> tuple[bool, float, int]:
    """The key the selection takes candidates in: pinned first, then the higher score,
    then the newer chunk (`Selection.order`)."""
    return (not candidate.pinned, -candidate.score, -candidate.index)


def select(
    candidates: Sequence[Candidate],
    budget: int,
    counter: TokenCount,
    pinned: Iterable[int] = (),
    excluded: Iterable[int] = (),
    headings: bool = False,
    *,
    prefix: str = "",
    dedupe: bool = False,
    room_left: list[int | None] | None = None,
    keep_newest: bool = True,
    steps_of: str = "",
    lists_of: Sequence[tuple[str, Sequence[str]]] = (),
    last_of: str = "",
) -> Selection:
    """Pick candidates for a recap of at most `budget` tokens (see the module docstring).

    `pinned` and `excluded` are candidate indices (``Candidate.index``), added
    to the candidates' own flags; a candidate both pinned and excluded is
    excluded. The rendered recap's real token count never exceeds `budget`
    unless ``newest_over_budget`` is True. Without `keep_newest` (every recap but the
    seed's) the newest summary is never forced in: when nothing fits, the recap is empty
    and ``summary_left_out`` says so.

    `prefix` (the procedural sections) comes first and counts in the budget; the
    summaries follow under `SUMMARIES_HEADING`. The caller keeps the prefix within
    the budget; with a prefix the newest summary is never forced in. With `dedupe`,
    a sentence already in the prefix or in a summary ranked higher is left out of
    the next ones (no sentence appears twice in the recap), and so is a sentence of the
    step-by-step answer `steps_of` that says nothing alone, and an item of a list of the
    last message (`lists_of`) whose lead-in Where it stopped says, and a sentence of the
    last message (`last_of`) that section says, or left out to fit (`_deduped`).

    `room_left` (for `compose_lazy`), when given, gets the most tokens a paragraph ranked
    after every candidate could have and still be tried, or None when the newest
    would be forced in (nothing kept, no prefix, `keep_newest`).
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget must be an integer >= 0, got {budget!r}")
    pin = set(pinned) | {c.index for c in candidates if c.pinned}
    exclude = set(excluded) | {c.index for c in candidates if c.excluded}
    cands = sorted(
        (
            replace(
                c,
                pinned=c.index in pin and c.index not in exclude,
                excluded=c.index in exclude,
                selected=False,
            )
            for c in candidates
        ),
        key=lambda c: c.index,
    )
    said: set[int] = set()  # emptied by the dedupe: nothing left to say
    before = cands  # as given: a candidate said already is shown with its own summary
    if dedupe:
        cands = _deduped(cands, prefix, steps_of, lists_of, last_of)
        said = {
            i
            for i, (b, c) in enumerate(zip(before, cands, strict=True))
            if render_block(b, headings) and not render_block(c, headings)
        }
    blocks = [render_block(c, headings) for c in cands]
    tokens = counter.count_many(blocks)
    sep = counter.count(SEPARATOR)

    eligible = [i for i, c in enumerate(cands) if not c.excluded]
    priority = sorted(eligible, key=lambda i: ranked(cands[i]))
    chosen: set[int] = set()
    used = counter.count(_join((), prefix)) if prefix else 0
    if prefix:  # the heading above the summaries comes with the first of them
        sep += counter.count(SUMMARIES_HEADING + SEPARATOR)

    def render(members: Iterable[int]) -> str:
        return _join((blocks[i] for i in sorted(members)), prefix)

    for i in priority:
        if not blocks[i]:
            continue  # nothing to say (no summary, or all of it said already): not kept
        estimate = used + tokens[i] + (sep if used else 0)
        if estimate > budget + _SEAM_SLACK:
            continue
        real = counter.count(render(chosen | {i}))
        if real <= budget:
            chosen.add(i)
            used = real

    if room_left is not None:
        kept_any = prefix or any(blocks[i] for i in chosen) or not keep_newest
        room_left.append(budget + _SEAM_SLACK - used - (sep if used else 0) if kept_any else None)
    newest_over = False
    left_out = False
    if not prefix and not any(blocks[i] for i in chosen) and eligible:
        newest = max(i for i in eligible if blocks[i]) if any(blocks[i] for i in eligible) else -1
        if newest >= 0 and not keep_newest:
            left_out = True  # nothing fits, and nothing goes over the budget in its place
        elif newest >= 0:
            chosen.add(newest)
            used = counter.count(render(chosen))
            newest_over = used > budget

    # what a candidate said already would have said, and its tokens (the list shows them)
    said_tokens = dict(
        zip(
            sorted(said),
            counter.count_many([render_block(before[i], headings) for i in sorted(said)]),
            strict=True,
        )
    )
    out: list[Candidate] = []
    for i, c in enumerate(cands):
        reason: Reason
        if c.excluded:
            reason = "excluded"
        elif i in chosen:
            reason = "pinned" if c.pinned else "kept"
        elif i in said:
            reason = "said already"
        elif not blocks[i]:
            reason = "no summary"
        else:
            reason = "over budget"
        if i in said:  # its summary as it is, not the nothing the dedupe left of it
            c = replace(c, summary=before[i].summary)
        n = said_tokens.get(i, tokens[i])
        out.append(replace(c, tokens=n, selected=i in chosen, reason=reason))
    text = render(chosen)
    if prefix:
        used = counter.count(text)
    return Selection(
        candidates=out,
        budget=budget,
        used_tokens=used if chosen or prefix else 0,
        newest_over_budget=newest_over,
        text=text,
        headings=headings,
        tokenizer=str(getattr(counter, "name", "")),
        order=[cands[i].index for i in priority],
        prefix=prefix,
        summary_left_out=left_out,
    )


_LABEL = re.compile(r"^[A-Z][\w ]{0,24}: ")


def _norm(sentence: str) -> str:
    """A sentence as the dedupe compares it: as the recap shows it (`literal_markdown`
    leaves control characters out), case and spacing aside."""
    return " ".join(strip_control(sentence).replace("*", "").lower().split()).rstrip(".!?;: ")


#: A sentence at least this long that another one contains is said by it.
_QUOTED = 30
#: A sentence cut short (``Response: 'Platform cache dir, yes. Use...``) whose visible
#: words, at least this long without its label and its opening mark, are in the sections
#: says nothing they do not.
_CUT_STEM = 20


#: The label a list's line opens with (``**Steps:** ``, ``Next steps: ``): its first
#: item follows it.
_ITEM_LABEL = re.compile(r"\A[^:;]{1,60}?:[*_]*\s+")
#: The shortest item of a list Where it stopped says on one line that a summary's sentence
#: repeats (`_norm` characters): shorter ones ("Done") may be said for another thing.
_ITEM_SAID = 12


def _cut_stem(sentence: str) -> str:
    """What a sentence cut short shows, as `_norm` compares it, without its label and its
    opening mark; "" for a sentence that is not cut."""
    end = CUT_END.search(sentence)
    if end is None:
        return ""
    return _norm(_LABEL.sub("", sentence[: end.start()]).lstrip("\"'“‘("))


def _begun(key: str, stems: Sequence[str]) -> bool:
    """Whether a line of Where it stopped cut short (`stems`, what each shows) ends on the
    opening of the sentence `key` (`_norm`), at least `_CUT_STEM` characters of it, from
    a word's start: the sentence is said, cut there (walk 60, F9: Where it stopped's
    list line ending "**The Conflict:** Because ... it..." and What happened giving that
    item again whole)."""
    head = key[:_CUT_STEM]
    if len(head) < _CUT_STEM:
        return False
    for stem in stems:
        at = stem.find(head)
        while at >= 0:
            if (at == 0 or stem[at - 1] == " ") and key.startswith(stem[at:]):
                return True
            at = stem.find(head, at + 1)
    return False


#: Candidates whose sentences `_deduped` hashes together (one numpy pass per batch).
_HASH_BATCH = 256
_MASK = (1 << 64) - 1
_BASE = 0x100000001B3


def _window_hashes(keys: Sequence[str]) -> list[list[int]]:
    """For each key, a hash of each of its `_QUOTED`-character windows, in order (none
    for a shorter key): equal windows hash equal. All keys' at once, with numpy."""
    out: list[list[int]] = [[] for _ in keys]
    long = [i for i, k in enumerate(keys) if len(k) >= _QUOTED]
    if not long:
        return out
    text = "".join([keys[i] for i in long])
    raw = text.encode("utf-32-le", "surrogatepass")
    codes = np.frombuffer(raw, dtype=np.uint32).astype(np.uint64)

    def power(k: int) -> np.uint64:
        return np.uint64(pow(_BASE, k, 1 << 64) & _MASK)

    # hashes of the windows of width 1, 2, 4, 8, 16 starting at each position, then 30
    # as 16 + 8 + 4 + 2 (uint64 arithmetic wraps around)
    width = {1: codes}
    w = 1
    while w < 16:
        h = width[w]
        width[2 * w] = h[:-w] * power(w) + h[w:]
        w *= 2
    m = len(codes) - _QUOTED + 1
    h30 = width[16][:m] * power(14)
    h30 += width[8][16 : 16 + m] * power(6)
    h30 += width[4][24 : 24 + m] * power(2)
    h30 += width[2][28 : 28 + m]
    at = 0
    for i in long:
        n = len(keys[i])
        out[i] = h30[at : at + n - _QUOTED + 1].tolist()
        at += n
    return out


#: A few words cut with ``...`` (an output excerpt's end): a sentence only with what
#: came before it.
_EXCERPT_TAIL = re.compile(r"\S+(?:\s+\S+){0,5}?\.\.\.")
#: A collapsed call with what it printed: ``Ran `cmd` (failed): output``.
_CALL_SAID = re.compile(r"`(?: \([^)]*\))?: ")
#: A collapsed run (``Ran `X` (exit 0): R``): its command, the mark that it was cut,
#: and what it printed.
_RAN = re.compile(r"\ARan (`+)(.+?)\1(?: on line \d+)?(?: \([^)]*\))?(?:: (.*))?\Z", re.S)
#: The end of a run's result that says its exit (``(exit 0)``, ``(failed)``).
_EXIT_SAID = re.compile(r"\s*\((?:exit -?\d+|failed)\)\s*\Z")


def _run_words(text: str) -> tuple[str, bool]:
    """A command or a result as two runs of it are compared: its words alone (the marks
    between them differ: ``a; b`` in Last outcome, ``a b`` in a summary), without the
    cut's ``...``; and whether it was cut."""
    end = CUT_END.search(text)
    if end is not None:
        text = text[: end.start()]
    return " ".join(re.findall(r"\w+", text.lower())), end is not None


def _same_words(a: tuple[str, bool], b: tuple[str, bool]) -> bool:
    """Whether two commands (or results) read as `_run_words` are the same, one cut
    short of the other at most."""
    (x, x_cut), (y, y_cut) = a, b
    if x == y:
        return True
    short, long, cut = (x, y, x_cut) if len(x) <= len(y) else (y, x, y_cut)
    return cut and len(short) >= 12 and long.startswith(short)


def _last_checks(prefix: str) -> list[tuple[tuple[str, bool], tuple[str, bool]]]:
    """The last check Last outcome says (`LAST_CHECK`): its command and its result, as
    `_run_words` reads them."""
    from chunkscope.engine.recap.sections import LAST_CHECK

    found = []
    for line in prefix.splitlines():
        m = re.match(rf"{re.escape(LAST_CHECK)}(`+)(.+?)\1 -> (.*)\Z", line.strip())
        if m:
            result = _EXIT_SAID.sub("", m.group(3))
            found.append((_run_words(m.group(2)), _run_words(result)))
    return found


def _checked(sentence: str, checks: Sequence[tuple[tuple[str, bool], tuple[str, bool]]]) -> bool:
    """Whether `sentence` is a collapsed run Last outcome says already: the same command
    with the same result (walk 55, F12: "Last check: `X` -> 12 passed" and "Ran `X`
    (exit 0): 12 passed." said one run twice; an earlier run of it that printed
    something else is no repeat)."""
    m = _RAN.match(sentence.strip())
    if m is None:
        return False
    command, said = _run_words(m.group(2)), _run_words(m.group(3) or "")
    for check, result in checks:
        if not _same_words(command, check):
            continue
        if not said[0]:  # (no output): the last check said none either
            return result[0] in ("", "no output")
        words = said[0] if not said[1] else said[0].rsplit(" ", 1)[0]  # a cut's stump
        if words and (words in result[0] or (result[0] and result[0] in said[0])):
            return True
    return False


def _deduped(
    cands: list[Candidate],
    prefix: str,
    steps_of: str = "",
    lists_of: Sequence[tuple[str, Sequence[str]]] = (),
    last_of: str = "",
) -> list[Candidate]:
    """The candidates with every sentence already said (in `prefix`, or in a candidate
    ahead in priority: pinned, then higher score, then newer) taken out of their text;
    an excluded one as it is. `steps_of`: the step-by-step answer whose steps Where it
    stopped says with their commands (`Section.steps_of`): a sentence of it that says
    nothing alone (no content: a lead-in, "Use these steps.", a step without its command,
    "Then find the new token account.", "Then retry the treasury deposit."), and a step
    of it on its colon (said there with its command, or counted in its "(and N more
    items)"), is that section's business, not something that happened (walk 64, F16);
    one with content the fit left out of that section is told here. `lists_of`: the lists
    of the last message Where it stopped says, each its lead-in and its items
    (`Section.lists_of`): an item of one whose lead-in a line of that section opens on,
    alone or after its lead-in (``**Key Features Implemented:** **Routing:** ...``), is
    that list's, said there or counted in its "(and N more items)" or its cut: the list
    and its lead-in said once (walk 71, F11). `last_of`: the last message Where it
    stopped says (`Section.whole`): a sentence of it is that section's, said there or
    left out to fit, never told again as something that happened (walk 72, F3: its
    aside, and a list's steps, were told after the story, as its end)."""
    from chunkscope.engine.summarize.extractive import (
        has_content,
        is_narration,
        sentences_of,
        terminated,
    )

    steps = _norm(" ".join(steps_of.split()))
    last = _norm(" ".join(last_of.split()))

    seen: set[str] = set()
    said = _norm(" ".join(prefix.split()))  # the sections' text, to find quotes in it
    checks = _last_checks(prefix)
    from chunkscope.engine.recap.sections import SECTION_TITLES

    # what each line of Where it stopped cut short shows (`_begun`): the last message's
    # sentences, which the summaries of its chunk give whole (a Task line cut short is
    # the user's message, and its rest what a summary of it adds)
    stems: list[str] = []
    where = f"## {SECTION_TITLES['last']}"
    under = ""  # the heading of the section a line is in
    # each list of the last message by its lead-in: its items (`lists_of`)
    listed = {_norm(lead) + ":": {_norm(item) for item in items} for lead, items in lists_of}
    leads: dict[str, set[str]] = {}  # those whose lead-in Where it stopped opens a line on
    for line in prefix.splitlines():
        if line.startswith("## "):
            under = line.strip()
        line = line.strip().lstrip("-#*>\\ ").strip()
        label = _ITEM_LABEL.match(line) if listed and under == where else None
        if label and _norm(label.group(0)) + ":" in listed:
            leads[_norm(label.group(0)) + ":"] = listed[_norm(label.group(0)) + ":"]
        unlabelled = _LABEL.sub("", line)  # "Later: do X." says "do X."
        for text in {line, unlabelled}:
            for s in sentences_of(text):
                seen.add(_norm(s))
        if under == where and "; " in line:
            # a list said on one line ("**Steps:** Check disk info with `wmic`; Check WSL
            # version; ..."): each item is said (walk 64, F4: What happened gave the
            # first step again, as if done)
            first, *rest = line.split("; ")
            for part in (_ITEM_LABEL.sub("", first), *rest):
                if len(_norm(part)) >= _ITEM_SAID:
                    seen.add(_norm(part))
        end = CUT_END.search(line) if under == where else None
        if end is not None:
            stems.append(_norm(line[: end.start()]))
    # an excluded candidate is no part of the recap: it says nothing and keeps its own
    # summary, which its row shows (walk 43, F2: one whose every sentence was said showed
    # an empty row)
    order = sorted(
        (i for i, c in enumerate(cands) if not c.excluded),
        key=lambda i: (not cands[i].pinned, -cands[i].score, -i),
    )
    # The long sentences said so far, by their first _QUOTED characters: a sentence that
    # holds one holds its opening at some position, so probing each window finds them
    # all without scanning every sentence said (which made a long log's recap quadratic).
    # The hashes of those openings screen a sentence first: when none of its windows'
    # hashes is one of them, no window is an opening (the probing would find nothing).
    openings: dict[str, list[str]] = {}
    for k in seen:
        if len(k) >= _QUOTED:
            openings.setdefault(k[:_QUOTED], []).append(k)
    opened = {hashes[0] for hashes in _window_hashes(list(openings)) if hashes}

    def repeats(key: str, hashes: list[int]) -> bool:
        if opened.isdisjoint(hashes):
            return False
        # probe only the windows whose hash is an opening's (equal windows hash equal)
        for p in compress(range(len(hashes)), map(opened.__contains__, hashes)):
            for k in openings.get(key[p : p + _QUOTED], ()):
                if key.startswith(k, p):
                    return True
        return False

    out = list(cands)
    for b0 in range(0, len(order), _HASH_BATCH):
        batch = order[b0 : b0 + _HASH_BATCH]
        sentences = [sentences_of(cands[i].text) for i in batch]
        keys = [[_norm(s) for s in ss] for ss in sentences]
        flat = _window_hashes(list(chain.from_iterable(keys)))
        at = 0
        for i, ss, ks in zip(batch, sentences, keys, strict=True):
            c = cands[i]
            kept: list[str] = []
            kept_keys: list[str] = []  # `_norm` of each sentence kept
            changed = dropped = False
            for s, key, hashes in zip(ss, ks, flat[at : at + len(ks)], strict=True):
                if dropped and _EXCERPT_TAIL.fullmatch(s):
                    continue  # the rest of a call's output excerpt the split cut off the
                    # call said already (walk 55, F3: "Refactoring opportuniti...")
                dropped = _CALL_SAID.search(s) is not None  # a call with its output
                if not key or key in seen or (len(key) >= _QUOTED and key in said):
                    changed = True  # said already (or a quote of what the sections say)
                    continue
                if len(stem := _cut_stem(s)) >= _CUT_STEM and stem in said:
                    changed = True  # the start of a sentence the sections say whole
                    continue
                if (
                    steps
                    and len(key) >= _ITEM_SAID
                    and key in steps
                    and (not has_content(s) or f"{key}: `" in steps)
                ):
                    changed = True  # a lead-in or a bare step of the answer Where it stopped
                    continue  # tells with its commands
                if last and len(key) >= _QUOTED and key in last:
                    changed = True  # the last message's, which Where it stopped says
                    continue
                if (leads and _led(key, leads)) or (last and listed and _led(key, listed)):
                    changed = True  # an item of a list Where it stopped says with its
                    continue  # lead-in (said or cut there, its lead-in said once), or
                    # of any list of the last message when that section is said
                if stems and _begun(key, stems):
                    changed = True  # a sentence a section's line says, cut short
                    continue
                if checks and _checked(s, checks):
                    changed = True  # the run Last outcome says, said another way
                    continue
                if repeats(key, hashes):
                    changed = True  # it repeats a sentence said already, and little more
                    continue
                dropped = False
                seen.add(key)
                if len(key) >= _QUOTED:
                    openings.setdefault(key[:_QUOTED], []).append(key)
                    opened.add(hashes[0])
                kept.append(terminated(s, url_stop=True))
                kept_keys.append(key)
            at += len(ks)
            if changed and all(is_narration(k) for k in kept):
                kept, kept_keys = [], []  # "Good!" of "Good! Ran `X`: ..." says nothing
            if changed:
                text = " ".join(kept)
                # the summarizer's abstract when it is kept (the panel shows it too), else
                # the first sentence left (walk 17, 4: two abstracts of one chunk)
                own = _norm(c.summary.abstract)
                abstract = next(
                    (k for k, key in zip(kept, kept_keys, strict=True) if key == own),
                    kept[0] if kept else "",
                )
                summary = replace(c.summary, abstract=abstract, summary=text)
                out[i] = replace(c, summary=summary)
    return out


def _led(key: str, leads: Mapping[str, set[str]]) -> bool:
    """Whether a sentence (`_norm`) is an item of a list `leads` gives by its lead-in
    (each `_norm`, with its colon): the item alone or after its lead-in."""
    for lead, items in leads.items():
        rest = key[len(lead) :].strip() if key.startswith(lead) else key
        if len(rest) >= _ITEM_SAID and rest in items:
            return True
    return False


def _lists_of(
    fitted: Sequence[Section], sections: Sequence[Section]
) -> Sequence[tuple[str, Sequence[str]]]:
    """The lists of the last message Where it stopped says (`Section.lists_of` of
    `sections`), none when `fitted` leaves that section out."""
    if not any(s.name == "last" and s.lines for s in fitted):
        return ()
    return next((s.lists_of for s in sections if s.name == "last"), ())


def _steps_of(fitted: Sequence[Section], sections: Sequence[Section]) -> str:
    """The step-by-step answer Where it stopped tells (`Section.steps_of` of `sections`,
    unfitted: a fit keeps lines alone), "" when `fitted` leaves that section out."""
    if not any(s.name == "last" and s.lines for s in fitted):
        return ""
    return next((s.steps_of for s in sections if s.name == "last"), "")


def _last_of(fitted: Sequence[Section]) -> str:
    """What Where it stopped says of the last message (its lines as `fitted` keeps them),
    "" when `fitted` leaves that section out. A sentence of the message the fit left out
    may still be told by What happened, when no list of the message holds it (those are
    `lists_of`'s): left out of both, a fact the next session needs was said nowhere
    (spotter-ae4a77f8 lost its "**Key fix in this session:** ... hex_trace_id", a
    fact `bench/recap_facts.py` checks)."""
    return " ".join(line for s in fitted if s.name == "last" for line in s.lines)


def _keeps(wider: Sequence[Section], fitted: Sequence[Section]) -> bool:
    """Whether the sections fitted with more room (`wider`) keep every section of
    `fitted`: one left out only when another says each of its lines (an open question
    asked in its list, in Where it stopped said whole: walk 57, F8)."""
    names = {x.name for x in wider}
    said = " ".join(" ".join(line.split()) for x in wider for line in x.lines)
    return all(
        x.name in names or all(" ".join(line.split()) in said for line in x.lines) for x in fitted
    )


def compose(
    candidates: Sequence[Candidate],
    sections: Sequence[Section],
    budget: int,
    counter: TokenCount,
    pinned: Iterable[int] = (),
    excluded: Iterable[int] = (),
    headings: bool = False,
    *,
    room_left: list[int | None] | None = None,
    plain: bool = False,
    fitted_memo: dict[tuple[tuple[int, ...], int, bool], list[Section]] | None = None,
) -> Selection:
    """The recap of procedural `sections` (`engine.recap.sections`) and the summaries of
    `candidates`, at most `budget` tokens of `counter` in all.

    The sections take at most `SECTIONS_SHARE` of the budget, less what the pinned
    summaries need (`engine.recap.sections.fit_sections`); the summaries are selected in what
    is left (`select`, no sentence said twice). The task comes before anything else: its
    first request is in the sections at every budget (cut at a word to fit, in at least
    `TASK_FLOOR` tokens of the sections' share, pins or not), and when not even its first
    word fits, the recap is empty and says so (``task_left_out``): never over the budget,
    never without the task. When the summaries leave budget over (a session of few merged
    chunks), the sections are fitted again in all that is left, the summaries picked
    staying as they are. Without sections (none, or none with lines) this is `select` of
    the candidates alone, within the budget too: when not even a summary fits, the recap
    is empty and says so (``summary_left_out``); only the seed's recap (`plain`) keeps
    the newest summary over the budget (``newest_over_budget``). `room_left`: as for
    `select`, of the first selection. `fitted_memo`: the sections fitted by an earlier
    call with these same `sections` and `counter` (`compose_lazy`), by (which of them,
    allowance, stretch): the fit depends on nothing else.
    """
    from chunkscope.engine.recap.sections import TASK_FLOOR, render_sections
    from chunkscope.engine.recap.sections import fit_sections as fit_anew

    def fit_sections(
        those: Sequence[Section], allowance: int, counter: TokenCount, *, stretch: bool = False
    ) -> list[Section]:
        if fitted_memo is None:
            return fit_anew(those, allowance, counter, stretch=stretch)
        key = (tuple(map(id, those)), allowance, stretch)
        if key not in fitted_memo:
            fitted_memo[key] = fit_anew(those, allowance, counter, stretch=stretch)
        return fitted_memo[key]

    pinned, excluded = list(pinned), list(excluded)
    present = [s for s in sections if s.lines]
    if not present:
        return select(
            candidates,
            budget,
            counter,
            pinned,
            excluded,
            headings,
            dedupe=True,
            room_left=room_left,
            keep_newest=plain,
        )
    left_out = set(excluded) | {c.index for c in candidates if c.excluded}
    pins = (set(pinned) | {c.index for c in candidates if c.pinned}) - left_out
    reserve = 0
    if pins:
        blocks = [render_block(c, headings) for c in candidates if c.index in pins]
        reserve = counter.count(SEPARATOR.join([SUMMARIES_HEADING, *blocks]) + SEPARATOR)
    share = int(budget * SECTIONS_SHARE)
    allowance = min(share, budget - reserve)
    has_task = any(s.name == "task" for s in present)
    if has_task:
        allowance = max(allowance, min(share, TASK_FLOOR))  # the task before any pin
    fitted = fit_sections(present, allowance, counter)
    if has_task and not any(s.name == "task" for s in fitted) and budget - 1 > allowance:
        # a budget too small for the sections' share: the task alone may take it all
        # but the recap's final newline
        task = [s for s in present if s.name == "task"]
        fitted = fit_sections(task, budget - 1, counter, stretch=True)
    if has_task and not any(s.name == "task" for s in fitted):
        # not even the task's first word fits: nothing else takes its place
        nothing = select(candidates, 0, counter, [], [c.index for c in candidates], headings)
        cands = [
            c
            if c.index in left_out
            else replace(c, excluded=False, pinned=c.index in pins, reason="over budget")
            for c in nothing.candidates
        ]
        # ranked as a selection would take them: with none tried the list came in
        # chunk order, the lowest score first (walk 59, F6)
        order = [c.index for c in sorted(cands, key=ranked) if c.index not in left_out]
        return replace(nothing, candidates=cands, budget=budget, task_left_out=True, order=order)
    prefix = render_sections(fitted)
    chosen = select(
        candidates,
        budget,
        counter,
        pinned,
        excluded,
        headings,
        prefix=prefix,
        dedupe=True,
        room_left=room_left,
        keep_newest=plain,
        steps_of=_steps_of(fitted, present),
        lists_of=_lists_of(fitted, present),
        last_of=_last_of(fitted),
    )
    spare = budget - chosen.used_tokens
    if spare > 8:
        keep = [c.index for c in chosen.selected]
        drop = [c.index for c in candidates if c.index not in keep]
        room = counter.count(prefix) + spare - 2  # "\n\n" seams may merge tokens
        wider = fit_sections(present, room, counter, stretch=True)
        if not _keeps(wider, fitted):
            wider = fitted  # more room never drops a section ("Where it stopped")
        again = select(
            candidates,
            budget,
            counter,
            keep,
            [*excluded, *drop],
            headings,
            prefix=render_sections(wider),
            dedupe=True,
            keep_newest=plain,
            steps_of=_steps_of(wider, present),
            lists_of=_lists_of(wider, present),
            last_of=_last_of(wider),
        )
        if again.used_tokens <= budget and {c.index for c in again.selected} == set(keep):
            flags = {c.index: c for c in chosen.candidates}
            # the kept as the wider sections leave them; the rest as the first selection
            # judged them (there, left out by `drop`: a summary said already came out
            # empty, and another its own, as a pin elsewhere changed the sections)
            cands = [
                replace(
                    c,
                    pinned=flags[c.index].pinned,
                    excluded=flags[c.index].excluded,
                    reason=flags[c.index].reason,
                )
                if c.selected
                else flags[c.index]
                for c in again.candidates
            ]
            # nothing fit: still said when the wider sections leave the recap empty
            nothing_fit = chosen.summary_left_out and not again.text
            fitted, chosen = (
                wider,
                replace(again, candidates=cands, order=chosen.order, summary_left_out=nothing_fit),
            )
    return replace(
        chosen, sections=fitted, section_tokens=[counter.count(s.render()) for s in fitted]
    )


def compose_lazy(
    count: int,
    scores: Sequence[float],
    floors: Sequence[int],
    candidates_of: Callable[[list[int]], list[Candidate]],
    sections: Sequence[Section],
    budget: int,
    counter: TokenCount,
    pinned: Iterable[int] = (),
    excluded: Iterable[int] = (),
    headings: bool = False,
    *,
    plain: bool = False,
) -> Selection:
    """`compose` of `count` merged chunks summarizing only the candidates it needs: the
    same recap (text, picks, tokens, sections), with `Selection.candidates` listing only
    the candidates it summarized (`Selection.unlisted` says how many it left out).

    `scores` are the chunks' scores, `candidates_of(indices)` their candidates (with
    the summaries), `floors[i]` 0 when chunk i has no summary, else tokens that no
    paragraph the recap could show for it (its summary, or what the dedupe leaves of
    it, with its heading or not) is under (`ExtractiveSummarizer.floor`).

    The candidates are taken in `select`'s priority order, a growing head at a time, and
    composed alone: the head goes through the selection as the head of the whole list
    would (the dedupe and the picks of a candidate depend only on those ahead of it;
    excluded ones on nothing), so when every chunk after the head has a floor over the
    room the head's selection leaves (`select`'s `room_left`), none of them could be picked
    and the recap is the head's.
    """
    exclude = set(excluded)
    pins = [i for i in dict.fromkeys(pinned) if i not in exclude]
    first = set(pins)
    priority = sorted(
        (i for i in range(count) if i not in exclude),
        key=lambda i: (i not in first, -scores[i], -i),
    )
    # the least floor of the chunks with a summary from each position on
    rest = [math.inf] * (len(priority) + 1)
    for at in range(len(priority) - 1, -1, -1):
        floor = floors[priority[at]]
        rest[at] = min(rest[at + 1], floor) if floor > 0 else rest[at + 1]
    size = min(len(priority), len(pins) + _LAZY_HEAD)
    fitted: dict[tuple[tuple[int, ...], int, bool], list[Section]] = {}  # alike each time
    while True:
        head = sorted(priority[:size])
        room: list[int | None] = []
        chosen = compose(
            candidates_of(head),
            sections,
            budget,
            counter,
            pins,
            (),
            headings,
            room_left=room,
            plain=plain,
            fitted_memo=fitted,
        )
        left = room[0] if room else None
        settled = left is not None and rest[size] > left  # none after the head fits
        if size == len(priority) or chosen.task_left_out or settled:
            # with the task left out, no candidate is said to have no summary (`compose`)
            tail = [] if chosen.task_left_out else priority[size:]
            return replace(
                chosen,
                unlisted=count - size,
                unlisted_empty=sum(1 for i in tail if floors[i] == 0),
            )
        # the first chunk after the head that might fit must be in the next head
        reach = size
        if left is not None:
            while reach < len(priority) and not 0 < floors[priority[reach]] <= left:
                reach += 1
        size = min(len(priority), max(2 * size, reach + 1))


# --------------------------------------------------------------------------- files


def save_recap(path: str | Path, text: str, *, parents: bool = False) -> Path:
    """Write the recap atomically; a failed write leaves the previous file untouched.

    A missing parent directory is an error, as for every file a user names (``recap -o``,
    the workbench's ``w``), unless `parents` (the hooks' own files): then it is created.
    Raises OSError on failure (`engine.fileio.cannot_write` says it).
    """
    target = Path(path)
    if parents and str(target.parent) not in ("", "."):
        target.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(target, text)


def load_recap(path: str | Path) -> str | None:
    """The recap stored at `path` (stripped), or None when it is missing or blank.

    Other read errors (permission denied, ...) raise OSError.
    """
    p = Path(path)
    if not p.is_file():
        return None
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:  # removed in between
        return None
    text = text.strip()
    return text or None
