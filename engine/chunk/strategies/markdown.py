"""Markdown in two stages (seed 002): headings, then size with code-aware separators.

Stage 1 cuts the document at its headings; each section knows its header path
(``A > B > C``), heading level and depth. Stage 2 splits a section larger than
`max_tokens` recursively at the seed's separators in priority order (code
fence boundaries, ``## ``, ``### ``, paragraphs, lines, sentences, words, then
token positions), packs the pieces greedily into chunks and starts each chunk
with the last `overlap` tokens of the one before.

Fenced code is never cut: a fenced block larger than the limit is a chunk of
its own flagged ``exceeds_limit``, and an overlap never starts inside a fence.
Tables and lists are not cut either when they fit in one chunk.

Speed: the document is encoded once; token counts of any span come from the
token start offsets (two binary searches), so no piece is ever re-encoded
while splitting. The final chunks' exact counts, as shown (label and enrichment
header included), are read off the same tokens: only a word or so at each edge of a
chunk is encoded again (`TokenIndex.counts_alone`).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from chunkscope.engine.chunk.strategies._tokpos import (
    SpanIndex,
    TokenIndex,
    count_spans,
    start_early,
    token_starts_later,
)
from chunkscope.engine.chunk.strategies.base import (
    BaseStrategy,
    Counter,
    StrategyChunk,
    StrategyResult,
    param,
    resolve_overlap,
)
from chunkscope.engine.chunk.strategies.mdscan import (
    TABLE_RULE,
    Structure,
    scan,
)
from chunkscope.engine.model import Chunk, Turn, gc_paused, turn_part
from chunkscope.engine.textutil import code_spans

if TYPE_CHECKING:
    from chunkscope.engine.read.source import Source


@dataclass(frozen=True)
class MarkdownParams:
    """The markdown strategy's knobs."""

    max_tokens: int = param(
        450, "target chunk size in tokens (the seed's chunk_size)", flag="--max-tokens", minimum=8
    )
    overlap: float = param(
        50,
        "overlap in tokens (>= 1) or a fraction of max_tokens (< 1), below max_tokens "
        "(the seed's chunk_overlap)",
        flag="--overlap",
        minimum=0,
    )
    enrich: bool = param(
        False,
        "prefix each chunk with the seed's context header (document, section, position)",
        flag="--enrich",
    )
    memory_type: str = param(
        "knowledge_base", "the Type line of the enrichment header", flag="--memory-type"
    )
    keep_blocks: bool = param(
        True, "keep tables and lists whole when they fit in one chunk", flag="--no-keep-blocks"
    )

    def __post_init__(self) -> None:
        resolve_overlap(self.overlap, self.max_tokens)

    @property
    def overlap_tokens(self) -> int:
        """The overlap in tokens (a fraction of ``max_tokens`` resolved)."""
        return resolve_overlap(self.overlap, self.max_tokens)


# Stage 2 separators in priority order: (name, separator, cut offset within it).
_LANG = re.compile(r"```(\w+)")

_SEPARATORS: tuple[tuple[str, str, int], ...] = (
    ("h2", "\n## ", 1),
    ("h3", "\n### ", 1),
    ("paragraph", "\n\n", 0),
    ("line", "\n", 0),
    ("sentence", ". ", 1),
    ("word", " ", 0),
)


def granularity(tokens: int) -> str:
    """A chunk size's granularity: fine under 400 tokens, medium to 1200, coarse above."""
    if tokens < 400:
        return "fine"
    if tokens <= 1200:
        return "medium"
    return "coarse"


def enrichment_header(
    title: str, path: str, index: int, total: int, gran: str, memory_type: str
) -> str:
    """The seed's context header (followed by a blank line, then the original content)."""
    ratio = (index + 1) / total
    where = "beginning" if ratio < 0.33 else "middle" if ratio < 0.67 else "end"
    return (
        f"Document: {title}\n"
        f"Section: {path or 'Main Content'}\n"
        f"Position: Chunk {index + 1} of {total} ({where}, {gran} granularity)\n"
        f"Type: {memory_type}\n\n"
    )


#: The tokens of content a chunk keeps at least under its enrichment header (the least
#: ``--max-tokens`` takes): with less room, the header's chunks go over the cap, flagged
#: and counted, rather than cut to a few tokens each.
_MIN_ROOM = 8


def _header_tokens(
    counter: Counter, title: str, st: Structure, memory_type: str, most: int
) -> list[int]:
    """For each section of `st`: the tokens of the longest enrichment header its chunks
    can get in a document of at most `most` chunks. The header's lines each begin a
    token (a line start after a line break), so its Position line is at its longest
    for every section alike: the longest of its words (where, granularity) is found
    once, with a section's path, then each path's header is counted with it."""
    where = [0, most // 2, most - 1]  # beginning, middle, end
    grans = [granularity(n) for n in (1, 500, 2000)]  # fine, medium, coarse
    probe = [enrichment_header(title, "", i, most, g, memory_type) for i in where for g in grans]
    widest = max(zip(counter.count_many(probe), itertools.count()))[1]
    i, gran = where[widest // len(grans)], grans[widest % len(grans)]
    paths = [" > ".join(h for h in sec.path if h) for sec in st.sections]
    unique = list(dict.fromkeys(paths))
    heads = [enrichment_header(title, path, i, most, gran, memory_type) for path in unique]
    n = dict(zip(unique, counter.count_many(heads), strict=True))
    return [n[path] for path in paths]


# ----------------------------------------------------------------------------- splitting


class _Piece(NamedTuple):
    start: int
    end: int
    cut: str  # the separator level of the cut *before* this piece
    atomic: bool  # a fenced block: never cut


class _Splitter:
    """Stage 2 over one document; spans are character offsets into `text`."""

    def __init__(
        self, text: str, index: TokenIndex, st: Structure, params: MarkdownParams, size: int
    ):
        self.text = text
        self.index: TokenIndex | SpanIndex = index  # set to each oversize section's own
        self.size = size  # set to each section's room (`split_spans`)
        self.overlap = params.overlap_tokens
        self.fences = st.fences
        self.fence_starts = [s for s, _ in st.fences]
        # interiors nothing may cut: fences always, tables and lists when they fit
        keep = list(st.fences)
        if params.keep_blocks and st.blocks:
            bounds = np.array(st.blocks, dtype=np.int64)
            sizes = count_spans(index.array, bounds[:, 0], bounds[:, 1]).tolist()
            keep += [blk for blk, k in zip(st.blocks, sizes, strict=True) if k <= self.size]
        keep.sort()
        union: list[tuple[int, int]] = []
        for s, e in keep:
            if union and s < union[-1][1]:
                union[-1] = (union[-1][0], max(union[-1][1], e))
            else:
                union.append((s, e))
        self.keep_starts = [s for s, _ in union]
        self.keep = union

    def _kept(self, pos: int) -> bool:
        """Whether `pos` lies strictly inside a span that must not be cut."""
        i = bisect_left(self.keep_starts, pos) - 1
        return i >= 0 and pos < self.keep[i][1]

    def _in_fence(self, pos: int) -> tuple[int, int] | None:
        i = bisect_right(self.fence_starts, pos) - 1
        if i >= 0:
            s, e = self.fences[i]
            if s < pos < e:
                return (s, e)
        return None

    def pieces(self, start: int, end: int) -> list[_Piece]:
        """Stage 2 for one section: pieces within the size, or atomic fenced blocks."""
        out: list[_Piece] = []
        self._split(start, end, 0, "section", out)
        return out

    def _split(self, start: int, end: int, level: int, cut: str, out: list[_Piece]) -> None:
        if self.index.count(start, end) <= self.size:
            out.append(_Piece(start, end, cut, False))
            return
        if level == 0:
            # fenced blocks first: they become pieces of their own
            lo = bisect_left(self.fence_starts, start)
            pos = start
            first = cut
            for s, e in self.fences[lo:]:
                if s >= end:
                    break
                if s > pos:
                    self._split(pos, s, 1, first, out)
                    first = "code_fence"
                e = min(e, end)
                if self.index.count(s, e) <= self.size:
                    out.append(_Piece(s, e, first, False))
                else:
                    out.append(_Piece(s, e, first, True))
                first = "code_fence"
                pos = e
            if pos < end:
                self._split(pos, end, 1, first, out)
            return
        if level > len(_SEPARATORS):
            self._split_tokens(start, end, cut, out)
            return
        name, sep, shift = _SEPARATORS[level - 1]
        text = self.text
        cuts: list[int] = []
        find = text.find
        p = find(sep, start + 1, end)
        while p >= 0:
            q = p + shift
            if start < q < end and not self._kept(q):
                cuts.append(q)
            p = find(sep, p + len(sep), end)
        if not cuts:
            self._split(start, end, level + 1, cut, out)
            return
        pos = start
        first = cut
        for q in cuts:
            self._split(pos, q, level + 1, first, out)
            first = name
            pos = q
        self._split(pos, end, level + 1, first, out)

    def _split_tokens(self, start: int, end: int, cut: str, out: list[_Piece]) -> None:
        """Last resort: cut at token positions, never inside a kept span."""
        index = self.index
        pos = start
        first = cut
        while index.count(pos, end) > self.size:
            t = index.index(pos) + self.size - 1
            q = index.offset(t)
            while q > pos and self._kept(q):
                q -= 1
            if q <= pos:  # the kept span starting here is larger than the size
                q = max(index.offset(t), index.after(pos))
                while q < end and self._kept(q):
                    q += 1
            out.append(_Piece(pos, q, first, False))
            first = "token"
            pos = q
        out.append(_Piece(pos, end, first, False))

    def overlap_start(self, prev_start: int, prev_end: int, next_end: int) -> int:
        """Where the chunk after ``[prev_start, prev_end)`` starts: `overlap` tokens back.

        Less overlap when the chunk would not fit (or would start inside a
        fence or a word); none when nothing fits.
        """
        if self.overlap <= 0:
            return prev_end
        index = self.index
        t = max(index.index(prev_end) - self.overlap, index.index(prev_start))
        room = index.index(next_end) - self.size
        t = max(t, room)
        pos = index.offset(t)
        if pos >= prev_end or pos <= prev_start:
            return prev_end
        fence = self._in_fence(pos)
        if fence is not None:
            pos = fence[1]
            if pos >= prev_end:
                return prev_end
        # tokens that share a start (bytes of one character) can make the span
        # count more than asked: step forward until both limits hold
        while pos < prev_end and (
            index.count(pos, next_end) > self.size or index.count(pos, prev_end) > self.overlap
        ):
            pos = index.after(pos)
        pos = min(pos, prev_end)
        while True:  # each move can land inside another construct: until none moves it
            at = self._after_markup(
                self._after_code_span(self._word_start(pos, prev_end), prev_end), prev_end
            )
            if at == pos:
                return pos
            pos = at

    def _after_markup(self, pos: int, end: int) -> int:
        """`pos`, or when it falls inside markup on its line, past it: the next line's
        start in a table row or a link reference definition (``[label]: target``), the
        end of a link (``[text](target)``, ``[text][ref]``), an HTML tag or an entity
        (``&vert;``). An overlap starting there opened with a broken row, tag or link
        (walk 61, F9); `end` when the markup runs past it (no overlap)."""
        text = self.text
        line = text.rfind("\n", 0, pos) + 1
        if pos == line:
            return pos
        stop = text.find("\n", pos)
        stop = len(text) if stop < 0 else stop
        row = text[line:stop]
        if row.lstrip(" \t").startswith("|") or _REF_DEF.match(row):
            return min(stop + 1, end)
        for m in _INLINE_MARKUP.finditer(row):
            a, b = line + m.start(), line + m.end()
            if a >= pos:
                break
            if pos < b:
                return min(b, end)
        return pos

    def _after_code_span(self, pos: int, end: int) -> int:
        """`pos`, or when it falls inside inline code on its line (`` `chess.js` ``), the
        end of that span: an overlap starting there opened with a stray backtick, the
        source's span left open (walk 42, F2); `end` when the span runs past it."""
        text = self.text
        line = text.rfind("\n", 0, pos) + 1
        stop = text.find("\n", pos)
        stop = len(text) if stop < 0 else stop
        if "`" not in text[line:stop]:
            return pos
        for a, b in code_spans(text[line:stop]):
            if line + a < pos < line + b:
                return min(line + b, end)
        return pos

    def _word_start(self, pos: int, end: int) -> int:
        """`pos`, or when it falls inside a word (a token such as ``ictions`` of
        ``evictions``) or a run of characters glued by ASCII punctuation (a path's
        ``date/`` of ``/page/date/``, ``vert;`` of ``&vert;``), the first start after it
        of a word after whitespace or a non-ASCII mark (``。``): the chunk starts later,
        so it holds less (`end` when none starts before it: no overlap)."""
        text = self.text
        starts = _word_after
        while pos < end and not starts(text[pos - 1]):
            pos += 1
        return pos


def _word_after(ch: str) -> bool:
    """Whether a word can start after `ch`: whitespace, or a mark that is not ASCII and
    not part of a word (a word or identifier character, or ASCII punctuation such as
    ``/``, ``<``, ``&``, ``[`` or ``(``, glues what follows to what it follows)."""
    return ch.isspace() or not (ch.isascii() or ch.isalnum() or ch == "_")


#: Inline markup an overlap does not start inside (`_Splitter._after_markup`): a link or
#: image with its target or reference, an HTML tag, an entity.
_INLINE_MARKUP = re.compile(
    r"!?\[[^\]\[\n]*\](?:\([^()\n]*\)|\[[^\]\[\n]*\])|</?[A-Za-z!][^<>\n]*>|&#?\w+;"
)
#: A link reference definition (``[label]: target``): a line an overlap starts before.
_REF_DEF = re.compile(r" {0,3}\[[^\]\n]+\]:[ \t]")


_Span = tuple[int, int, int, str, bool, int]
"""(start, end, section index, reason of the cut before it, oversize, end of the overlap)."""

_WS = " \t\r\n"


def split_spans(
    text: str,
    index: TokenIndex,
    st: Structure,
    params: MarkdownParams,
    rooms: Sequence[int] | None = None,
) -> list[_Span]:
    """The chunks of `text` as trimmed spans, in document order: each section's cut at
    its room in `rooms` (the tokens its chunks' text may hold), else at ``max_tokens``."""
    sections = st.sections
    if rooms is None:
        rooms = [params.max_tokens] * len(sections)
    sp = _Splitter(text, index, st, params, min(rooms, default=params.max_tokens))
    spans: list[_Span] = []
    sec_bounds = np.array([(sec.start, sec.end) for sec in sections], dtype=np.int64)
    sizes = count_spans(index.array, sec_bounds[:, 0], sec_bounds[:, 1]).tolist()
    for si, sec in enumerate(sections):
        size = sp.size = rooms[si]
        if sizes[si] <= size:
            spans.append((sec.start, sec.end, si, "section", False, sec.start))
            continue
        sp.index = local = index.span(sec.start, sec.end)
        pieces = sp.pieces(sec.start, sec.end)
        cs = ce = -1
        cut = "section"
        ov = -1
        for piece in pieces:
            if cs < 0:
                cs, ce, cut, ov = piece.start, piece.end, piece.cut, piece.start
                if piece.atomic:
                    spans.append((cs, ce, si, cut, True, ov))
                    cs = -1
                continue
            if not piece.atomic and local.count(cs, piece.end) <= size:
                ce = piece.end
                continue
            spans.append((cs, ce, si, cut, False, ov))
            if piece.atomic:
                spans.append((piece.start, piece.end, si, piece.cut, True, piece.start))
                cs = -1
                continue
            nstart = sp.overlap_start(cs, ce, piece.end)
            cs, ov, ce, cut = nstart, ce, piece.end, piece.cut
        if cs >= 0:
            spans.append((cs, ce, si, cut, False, ov))
    out: list[_Span] = []
    ws = _WS
    last_end = -1
    for a, b, si, cut, big, ov in spans:
        while a < b and text[a] in ws:
            a += 1
        while b > a and text[b - 1] in ws:
            b -= 1
        if a < b and b > last_end:  # (an overlap followed by blanks adds nothing)
            out.append((a, b, si, cut, big, max(a, min(ov, b))))
            last_end = b
    return out


# ----------------------------------------------------------------------------- strategy


class MarkdownStrategy(BaseStrategy[MarkdownParams]):
    """Markdown in two stages: split at headings, then at code-aware separators under a token
    limit."""

    name = "markdown"
    description = "markdown in two stages: headings, then code-aware separators (450/50 tokens)"
    input = "document"
    params_type = MarkdownParams

    def prepare(self, path: str, counter: Counter) -> None:
        """Start the tokenizer pass over the markdown document at `path` on other threads
        (`start_early`), so that it runs while the file is parsed."""
        text = _read_document(path)
        if text:
            start_early(text, counter)

    def split(
        self, turns: Sequence[Turn], counter: Counter, *, source: Source | None = None
    ) -> StrategyResult:
        """Chunks of the source's markdown text, or of the turns' texts as one document."""
        text, title, anchors, file_lines = self._document(turns, source)
        return self.split_text(
            text, counter, title=title, turns=turns, anchors=anchors, file_lines=file_lines
        )

    def _document(
        self, turns: Sequence[Turn], source: Source | None
    ) -> tuple[str, str | None, list[int], bool]:
        """The text, its title, and the char offset where each turn starts in it."""
        if source is not None and source.kind == "markdown":
            text = _read_document(source.path)
            if text is not None:
                line_starts = _line_starts(text)
                anchors = []
                for t in turns:
                    line = t.source_line
                    if line is None or line - 1 >= len(line_starts):
                        anchors.append(0)
                    else:
                        anchors.append(line_starts[line - 1])
                return text, Path(source.path).name, anchors, True
        anchors = []
        parts: list[str] = []
        pos = 0
        for t in turns:
            anchors.append(pos)
            parts.append(t.text)
            pos += len(t.text) + 2
        return "\n\n".join(parts), None, anchors, False

    def split_text(
        self,
        text: str,
        counter: Counter,
        *,
        title: str | None = None,
        turns: Sequence[Turn] = (),
        anchors: Sequence[int] = (),
        file_lines: bool = True,
    ) -> StrategyResult:
        """Chunks of markdown `text`; with `turns` and their `anchors` (start offsets),
        each chunk also knows the turns it comes from."""
        with gc_paused():  # many small acyclic objects: no collector passes over them
            return self._split_text(text, counter, title, turns, anchors, file_lines)

    def _split_text(
        self,
        text: str,
        counter: Counter,
        title: str | None,
        turns: Sequence[Turn],
        anchors: Sequence[int],
        file_lines: bool,
    ) -> StrategyResult:
        p = self.params
        cap = p.max_tokens
        labels: list[int] = []
        if turns and not file_lines:
            # A chunk of a session is shown (and counted) as ``Role: part`` lines, one
            # per turn it holds (`Chunk.text`): the first part's label comes out of the
            # cap, and each later turn's label costs its tokens where that turn starts
            # (`_budget_index`), so the count a user sees holds to --max-tokens.
            labels = _label_tokens(turns, counter)
            label = max(labels)
        else:
            # A chunk of a document is one turn, shown (and counted) as ``Doc: TEXT``:
            # the label's tokens come out of the cap, so the count a user sees holds
            # to --max-tokens (the overlap may not allow it: then the flags say which
            # chunks are over).
            role = turns[0]._replace(text="") if turns else Turn(None, "Doc", "")
            label = counter.count(role.line)  # "Doc: " (Turn.line)
        starts = token_starts_later(text, counter)  # a long text: on other threads
        st = scan(text, () if file_lines else anchors)  # meanwhile
        doc_title = st.title or title or "Untitled"
        index = TokenIndex(text, counter, starts())
        budget = _budget_index(index, counter, anchors, labels) if labels else index
        if not p.enrich:
            spans = split_spans(text, budget, st, p, [cap - label] * len(st.sections))
        else:
            # The enrichment header is shown (and counted) before the chunk's text: its
            # tokens come out of each section's room too, counted for the longest
            # header its chunks can get (`_header_tokens`); the chunk count in its
            # Position line is known after the split: split again in the rare case it
            # has more digits than assumed.
            most = 999
            while True:
                head = _header_tokens(counter, doc_title, st, p.memory_type, most)
                rooms = [max(cap - label - h, _MIN_ROOM) for h in head]
                spans = split_spans(text, budget, st, p, rooms)
                if len(spans) <= most:
                    break
                most = 10 ** len(str(len(spans))) - 1
        # Token counts are those of the document's own tokenization (one pass); a
        # chunk re-encoded alone can differ by a token where a cut falls in a word.
        bounds = np.array([(a, b, ov) for a, b, _, _, _, ov in spans], dtype=np.int64)
        if len(spans):
            counts = count_spans(index.array, bounds[:, 0], bounds[:, 1]).tolist()
            overlaps = count_spans(index.array, bounds[:, 0], bounds[:, 2]).tolist()
        else:
            counts = overlaps = []
        total = len(spans)
        anchor_list = list(anchors)
        chunks: list[StrategyChunk] = []
        code_chunks = 0
        valid_code = 0
        oversize = 0
        warnings: list[str] = []
        per_section: dict[int, tuple[str, int, list[str], int, str]] = {}
        enrich = p.enrich
        sha256 = hashlib.sha256
        count_nl = text.count
        sections = st.sections
        adornments = st.adornments  # a title's backtick underline: no fence to count
        adorn_ends = [b for _, b in adornments]
        one_turn = bool(anchor_list) and file_lines
        last_turn = len(turns) - 1
        line = 1
        line_pos = 0
        for i, (start, end, si, _, _, ov_end) in enumerate(spans):
            content = text[start:end]
            n_tok = counts[i]
            line += count_nl("\n", line_pos, start)
            line_pos = start
            last = line + content.count("\n")
            sec_info = per_section.get(si)
            if sec_info is None:
                sec = sections[si]
                names = [h for h in sec.path if h]
                sec_info = per_section[si] = (
                    " > ".join(names),
                    max(len(names) - 1, 0),
                    names,
                    sec.level,
                    "section" if sec.level else "text",
                )
            path, depth, names, level, kind = sec_info
            fenced = content
            lo = bisect_right(adorn_ends, start)
            if lo < len(adorn_ends) and adornments[lo][0] < end:
                fenced = _without(text, start, end, adornments[lo:])
            ticks = fenced.count("```")
            has_fence = ticks > 0 or "~~~" in fenced
            balanced = ticks % 2 == 0
            lang = None
            if ticks:
                code_chunks += 1
                valid_code += balanced
                m_lang = _LANG.search(fenced)
                lang = m_lang.group(1) if m_lang else None
            if not balanced:
                warnings.append(f"chunk {i}: unbalanced code fences")
            gran = granularity(n_tok)
            meta: dict[str, Any] = {
                "chunk_index": i,
                "chunk_type": "code_block" if has_fence else kind,
                "token_count": n_tok,
                "header_path": path,
                "section_hierarchy": names,
                "level": level,
                "depth": depth,
                "content_hash": sha256(content.encode("utf-8", "replace")).hexdigest()[:16],
                "start_char": start,
                "end_char": end,
                "start_line": line,
                "end_line": last,
                "prev_chunk": i - 1 if i else None,
                "next_chunk": i + 1 if i + 1 < total else None,
                "parent_title": doc_title,
                "granularity_level": gran,
                "chunk_position_ratio": (i + 1) / total,
                "sibling_count": total,
                "contains_code": has_fence,
                "contains_table": "|" in content and _has_table(content),
                "language": lang,
                "exceeds_limit": False,  # both set below, on the count as shown
                "below_typical_size": False,
                "overlap_tokens": overlaps[i],
                "overlap_chars": ov_end - start,
                "code_integrity_warning": not balanced,
                "is_contextually_enriched": enrich,
            }
            body = content
            if enrich:
                meta["original_content"] = content
                body = enrichment_header(doc_title, path, i, total, gran, p.memory_type) + content
            if one_turn:
                # A document read from its file: the chunk (lines `line`..`last`) is one
                # turn, with the role, time and turn index of the turn (section) it
                # starts in.
                base = turns[min(max(bisect_right(anchor_list, start) - 1, 0), last_turn)]
                parts = [Turn(base.timestamp, base.role, body, line, base.turn_index, last)]
            elif anchor_list:  # a session: a part per turn
                parts = _turn_parts(
                    (start, end), turns, anchor_list, body[: len(body) - len(content)]
                )
            else:
                parts = [Turn(None, "Doc", body, line, None)]
            reason = spans[i + 1][3] if i + 1 < total else None
            chunks.append(StrategyChunk(Chunk(parts), meta, reason))
        # A chunk's count is that of its text as shown (`Chunk.text`: labels, joins and
        # the enrichment header counted), and it is over the cap when that count is.
        shown = [sc.chunk.text for sc in chunks]
        own = None if anchor_list and not file_lines else _own_counts(index, shown, spans)
        if own is None:  # a session's chunk, of many parts
            own = counter.count_many(shown)
        for sc, n in zip(chunks, own, strict=True):
            over = n > cap
            oversize += over
            sc.meta.update(token_count=n, exceeds_limit=over, below_typical_size=n < 150)
        integrity = valid_code / code_chunks if code_chunks else 1.0
        info = {
            "title": doc_title,
            "sections": len(st.sections),
            "code_blocks": len(st.fences),
            "integrity_score": round(integrity, 6),
            "code_chunks": code_chunks,
            "oversize_chunks": oversize,
            "overlap_tokens": p.overlap_tokens,
            "tokens": index.n,
            "warnings": warnings,
        }
        result = self.result(chunks, info)
        result.known_counts = lambda: list(zip(shown, own, strict=True))
        return result


def _label_tokens(turns: Sequence[Turn], counter: Counter) -> list[int]:
    """The tokens of each turn's ``Role: `` label and the newline joining it to the line
    before it in a chunk's text (`Chunk.text`), counted once per role."""
    per_role: dict[str, int] = {}
    out: list[int] = []
    for t in turns:
        n = per_role.get(t.role)
        if n is None:
            n = per_role[t.role] = counter.count(t._replace(text="").line)
        out.append(n)
    return out


def _budget_index(
    index: TokenIndex, counter: Counter, anchors: Sequence[int], labels: Sequence[int]
) -> TokenIndex:
    """`index` with the label of each turn after the first (`_label_tokens`) as that
    many more tokens starting on the last character before the turn (the second line
    break of the blank line joining the turns' texts): a span costs the labels of the
    turns it holds past its first, whose label the cap already reserves."""
    at = np.asarray(anchors[1:], dtype=np.int64) - 1
    extra = np.repeat(at, np.asarray(labels[1:], dtype=np.int64))
    starts = np.sort(np.concatenate([index.array, extra]), kind="stable")
    return TokenIndex(index.text, counter, starts)


def _own_counts(index: TokenIndex, shown: list[str], spans: list[_Span]) -> list[int] | None:
    """The token count of each chunk text in `shown`, each a prefix (its label and
    enrichment header) and its span of the document whole, read off the document's
    tokens (`TokenIndex.counts_alone`: only the edges are encoded again); None without
    a segmentable exact encoding, or when a text is not its span whole."""
    doc = index.text
    items: dict[str, tuple[str, int, int]] = {}
    for text, (start, end, *_) in zip(shown, spans, strict=True):
        if text not in items:
            if not text.endswith(doc[start:end]):
                return None
            items[text] = (text[: len(text) - (end - start)], start, end)
    counts = index.counts_alone(list(items.values()))
    if counts is None:
        return None
    known = dict(zip(items, counts, strict=True))
    return [known[t] for t in shown]


def _turn_parts(
    span: tuple[int, int], turns: Sequence[Turn], anchors: list[int], header: str
) -> list[Turn]:
    """The chunk (the chars `span` of the turns' texts joined by blank lines, turn `k`'s
    from ``anchors[k]``) as the part of each turn it holds, each under its own turn's
    role, time and lines (`turn_part`), as the other strategies' chunks of a session;
    the enrichment `header` (or "") before the first part's text. The blank lines
    between turns belong to no turn; a part of only blanks is left out."""
    start, end = span
    k = min(max(bisect_right(anchors, start) - 1, 0), len(turns) - 1)
    parts: list[Turn] = []
    while k < len(turns) and anchors[k] < end:
        t = turns[k]
        lo = max(start - anchors[k], 0)
        hi = min(end - anchors[k], len(t.text))
        if hi > lo and not t.text[lo:hi].isspace():
            parts.append(t if lo == 0 and hi == len(t.text) else turn_part(t, lo, hi))
        k += 1
    if not parts:  # only blanks: an empty part of the turn it starts in
        k = min(max(bisect_right(anchors, start) - 1, 0), len(turns) - 1)
        parts = [turns[k]._replace(text="")]
    if header:
        parts[0] = parts[0]._replace(text=header + parts[0].text)
    return parts


def _read_document(path: str) -> str | None:
    """The text of the markdown file at `path` with the line breaks its reader counted
    (CRLF or a CR alone read as LF), without a BOM; None when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return None
    if "\r" in text:  # the lines the reader numbered (CRLF, or a CR alone)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _line_starts(text: str) -> list[int]:
    """The offset of each line of `text` (one more than it has line breaks)."""
    lengths = map(len, text.split("\n")[:-1])
    return list(itertools.accumulate(map((1).__add__, lengths), initial=0))


def _without(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> str:
    """``text[start:end]`` without the parts of `spans` (sorted, none ending before
    `start`) in it: a chunk's text as its fence count reads it, a title's backtick
    underline left out (`Structure.adornments`)."""
    out = []
    pos = start
    for a, b in spans:
        if a >= end:
            break
        out.append(text[pos : max(a, pos)])
        pos = max(pos, min(b, end))
    out.append(text[pos:end])
    return "".join(out)


def _has_table(content: str) -> bool:
    if "|" not in content:
        return False
    lines = content.split("\n")
    return any("|" in a and "-" in b and TABLE_RULE.match(b) for a, b in itertools.pairwise(lines))
