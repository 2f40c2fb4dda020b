"""The values that flow through the pipeline: turns, chunks and spans.

`Turn` and `Chunk` keep the seed's names and constructor arguments
(`Turn(timestamp, role, text)`, `Chunk(turns)`) and add provenance: every turn
knows the 1-based source line it came from and the index of the parsed turn it
is a part of, so a chunk at any stage can say which turns and lines it covers.
"""

from __future__ import annotations

import gc
import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import NamedTuple, TypeVar, cast

_T = TypeVar("_T")

#: ``progress(done, total)``: called as a stage's work completes (``done`` never
#: goes down; ``total`` is 0 when it is not known). A callback may raise to stop
#: the work (the workbench does when a load is cancelled): the exception comes
#: out of the stage, which then keeps nothing.
Progress = Callable[[int, int], None]

#: Items between two progress calls in the splitting stages (a few ms of work).
PROGRESS_EVERY = 8192


def with_progress(
    items: Iterable[_T], progress: Progress | None, every: int = PROGRESS_EVERY
) -> Iterable[_T]:
    """``items``, calling ``progress(done, total)`` after every ``every`` items and at the end.

    ``total`` is ``len(items)`` when it has one, else 0 (unknown). Without a
    callback, ``items`` itself.
    """
    if progress is None:
        return items
    return _reporting(items, progress, every)


def _reporting(items: Iterable[_T], progress: Progress, every: int) -> Iterator[_T]:
    total = len(items) if isinstance(items, Sized) else None
    it = iter(items)
    done = 0
    while batch := list(islice(it, every)):
        yield from batch
        done += len(batch)
        progress(done, total if total is not None else 0)
    if done == 0:
        progress(0, 0)


class Turn(NamedTuple):
    """One message, reasoning step or document section.

    `source_line` is the 1-based line of the file the turn came from (for a
    markdown section, the line of its heading; for a paragraph, its first line).
    `turn_index` is the position of the parsed turn this text belongs to: the
    paragraphs `chunk_turns` cuts out of one turn all share it. A named tuple:
    immutable and cheap to create, which matters on logs with millions of paragraphs.
    """

    timestamp: datetime | None
    role: str
    text: str
    source_line: int | None = None
    turn_index: int | None = None
    #: The last source line of the text, when the text is the file's lines
    #: `source_line`..`last_line` (a markdown section or paragraph); None when a turn
    #: is one record of a log (its text is not the file's lines).
    last_line: int | None = None
    #: For a collapsed tool call (`engine.recap.collapse`): the line of the record
    #: holding the call, when it is before `source_line` (the result's line), so the
    #: turn's lines are `call_line`..`source_line`; None for any other turn.
    call_line: int | None = None
    #: The last line of the record the turn came from when the record spans several
    #: lines but its text is not the file's lines (a message of a JSON document: it
    #: runs from its object's ``{`` at `source_line` to the last line of its text);
    #: None for any other turn. Unlike `last_line`, a part of the turn keeps it.
    end_line: int | None = None
    #: For such a message whose text is followed by its tool calls (shown as typed after
    #: it, the calls' lines closing `end_line`): the last line of its text alone, where
    #: its paragraphs before the calls end (`engine.chunk.split`); None for any other.
    text_end: int | None = None
    #: For a tool result read from its call inside such a message (a Gemini CLI chat's):
    #: the first line of the result, after `source_line`, the message's ``{`` (which
    #: keeps the result with its message when chunks are made a record at a time:
    #: `engine.chunk.split`); None for any other turn.
    text_start: int | None = None
    #: For a message its reader joined from several records, each a piece of its text
    #: cut anywhere (a Gemini CLI stream's ``delta`` events): where each record's piece
    #: starts, as (non-blank characters of the text before it, the record's line), so a
    #: part of the text a split cuts out says the records holding its words
    #: (`piece_lines`), not the whole message's; None for any other turn. Counted in
    #: non-blank characters, which tidying the text's blank lines (`words_only`) and line
    #: ends leaves as they were.
    pieces: tuple[tuple[int, int], ...] | None = None

    @property
    def line(self) -> str:
        """The turn as it appears in a chunk's text: ``role: text``."""
        return f"{self.role}: {self.text}"


def text_lines(text: str, first: int) -> tuple[int, int]:
    """The first and last line holding more than blanks of `text`, whose first line is
    the file's line `first` (both `first` when it is all blank)."""
    body = text.rstrip()
    lead = len(body) - len(body.lstrip())
    start = first + body.count("\n", 0, lead)
    return (start, max(start, first + body.count("\n")))


_BLANKS = re.compile(r"\s+")


def solid_chars(text: str) -> int:
    """The non-blank characters of `text` (what `Turn.pieces` counts)."""
    return len(text) - sum(len(blank) for blank in _BLANKS.findall(text))


def piece_lines(
    pieces: tuple[tuple[int, int], ...], before: int, part: str
) -> tuple[int, int] | None:
    """The first and last line of the records holding the words of `part`, a part of a
    text joined from records (`Turn.pieces`) that has `before` non-blank characters
    before it; None when `part` is blank."""
    n = solid_chars(part)
    if not n:
        return None
    starts = [c for c, _ in pieces]
    first = pieces[max(bisect_right(starts, before) - 1, 0)][1]
    last = pieces[max(bisect_right(starts, before + n - 1) - 1, 0)][1]
    return first, last


def turn_part(turn: Turn, lo: int, hi: int) -> Turn:
    """`turn` with only ``text[lo:hi]``; its lines narrowed to that part's when the text
    is the file's lines (`Turn.last_line` known) or joined from records (`Turn.pieces`)."""
    part = turn.text[lo:hi]
    if turn.pieces and turn.source_line is not None:
        held = piece_lines(turn.pieces, solid_chars(turn.text[:lo]), part)
        if held is None:
            return turn._replace(text=part, pieces=None)
        first, last = held
        return turn._replace(text=part, source_line=first, end_line=last, pieces=None)
    if turn.source_line is None or turn.last_line is None:
        return turn._replace(text=part)
    first, last = text_lines(part, turn.source_line + turn.text.count("\n", 0, lo))
    return turn._replace(text=part, source_line=first, last_line=last)


def _hms(ts: datetime | None) -> str:
    return ts.strftime("%H:%M:%S") if ts is not None else "--:--:--"


def days_between(start: datetime | None, end: datetime | None) -> int:
    """Calendar days from `start` to `end` (0 when either is unknown or they cannot be
    compared): a clock range across midnight carries it."""
    if start is None or end is None:
        return 0
    try:
        return (end.date() - start.date()).days
    except (TypeError, ValueError):
        return 0


def clock_range(start: datetime | None, end: datetime | None) -> str:
    """``HH:MM:SS - HH:MM:SS``; with the dates (``YYYY-MM-DD HH:MM:SS - ...``) when the
    two fall on different days, so a range across midnight never seems to end before
    it starts."""
    if days_between(start, end) and start is not None and end is not None:
        return f"{start:%Y-%m-%d %H:%M:%S} - {end:%Y-%m-%d %H:%M:%S}"
    return f"{_hms(start)} - {_hms(end)}"


def first_timestamp(turns: Iterable[Turn]) -> datetime | None:
    """The timestamp of the first of `turns` that has one (None: none has)."""
    return next((t.timestamp for t in turns if t.timestamp is not None), None)


def time_bounds(turns: Iterable[Turn]) -> tuple[datetime | None, datetime | None]:
    """The earliest and the latest timestamp of `turns` (None, None: none has one). Times
    that cannot be compared (a file mixing times with and without a zone) fall back to
    the first and the last turn's, in file order."""
    times = [t.timestamp for t in turns if t.timestamp is not None]
    if not times:
        return None, None
    try:
        return min(times), max(times)
    except TypeError:
        return times[0], times[-1]


_UNKNOWN = object()  # a `Chunk`'s lines not computed yet


@dataclass(slots=True, eq=False)
class Chunk:
    """A group of consecutive turns.

    Treat a chunk as immutable once built: `text` is computed on first use and
    remembered, since the merge loop and the token counter read it many times.
    """

    turns: list[Turn] = field(default_factory=list)
    _text: str | None = field(default=None, init=False, repr=False, compare=False)
    _chars: int = field(default=-1, init=False, repr=False, compare=False)
    # `lines` once known (`_UNKNOWN` until then; None is a known "no line")
    _lines: tuple[int, int] | object | None = field(
        default=_UNKNOWN, init=False, repr=False, compare=False
    )
    # (`start`, `end`) once known (`_UNKNOWN` until then)
    _times: tuple[datetime | None, datetime | None] | object = field(
        default=_UNKNOWN, init=False, repr=False, compare=False
    )

    @property
    def text(self) -> str:
        """``role: text`` lines of every turn, joined with newlines (the seed's format)."""
        if self._text is None:
            self._text = text = "\n".join(t.line for t in self.turns)
            self._chars = len(text)
            return text
        return self._text

    @property
    def chars(self) -> int:
        """``len(self.text)``, by arithmetic on the turns when the text is not built yet:
        each line is ``role + ": " + text`` and the lines are joined with one newline.
        Remembered, like the text (the merge loop reads every chunk's)."""
        if self._chars < 0:
            turns = self.turns
            self._chars = (
                sum([len(t.role) + len(t.text) for t in turns]) + 3 * len(turns) - 1 if turns else 0
            )
        return self._chars

    @property
    def time_range(self) -> str:
        """``HH:MM:SS - HH:MM:SS`` from the earliest to the latest time of the chunk's turns
        (with their dates when those differ: `clock_range`)."""
        if not self.turns:
            return ""
        return clock_range(self.start, self.end)

    @property
    def start(self) -> datetime | None:
        """The earliest of the turns' timestamps, if any turn has one (a log's parallel tool
        results may come out of time order: the first turn's need not be the earliest)."""
        return self._time_bounds()[0]

    @property
    def end(self) -> datetime | None:
        """The latest of the turns' timestamps, if any turn has one."""
        return self._time_bounds()[1]

    def _time_bounds(self) -> tuple[datetime | None, datetime | None]:
        """`time_bounds` of the turns, remembered (a chunk's turns do not change; the
        JSON and the workbench read both ends of every chunk)."""
        known = self._times
        if known is _UNKNOWN:
            turns = self.turns
            if len(turns) == 1:  # most units: no list to build
                known = (turns[0].timestamp, turns[0].timestamp)
            else:
                known = time_bounds(turns)
            self._times = known
        return known  # type: ignore[return-value]

    @property
    def lines(self) -> tuple[int, int] | None:
        """The first and last 1-based source lines the chunk's text came from, if known:
        from the first line of its first turn to the last line of its last (a turn's
        `last_line` or `end_line`, or its one line). Remembered (the live score reads every chunk's
        at each run; a chunk's turns do not change)."""
        known = self._lines
        if known is not _UNKNOWN:
            return known  # type: ignore[return-value]
        if len(self.turns) == 1:  # the loop below for one turn
            t = self.turns[0]
            one = None
            if t.source_line is not None:
                first = t.call_line or t.text_start or t.source_line
                one = (first, t.last_line or t.end_line or t.source_line)
            self._lines = one
            return one
        turns = [t for t in self.turns if t.source_line is not None]
        lines: tuple[int, int] | None = None
        if turns:
            first = min(t.call_line or t.text_start or t.source_line or 0 for t in turns)
            last = max(t.last_line or t.end_line or t.source_line or 0 for t in turns)
            lines = (first, last)
        self._lines = lines
        return lines

    @property
    def turn_indices(self) -> tuple[int, int] | None:
        """The first and last parsed-turn index the chunk covers, if known."""
        known = [t.turn_index for t in self.turns if t.turn_index is not None]
        if not known:
            return None
        return (min(known), max(known))

    @property
    def roles(self) -> list[str]:
        """Distinct roles in order of first appearance."""
        seen: dict[str, None] = {}
        for t in self.turns:
            seen.setdefault(t.role, None)
        return list(seen)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunk):
            return NotImplemented
        return self.turns == other.turns

    __hash__ = None  # type: ignore[assignment]


Span = tuple[int, int]
"""A half-open range ``[start, end)`` of indices into the stage before."""


def join_chunks(chunks: Iterable[Chunk]) -> Chunk:
    """One chunk holding every turn of `chunks`, in order (its `lines` taken from the
    parts' when every part knows its own: the least first line and the greatest last)."""
    turns: list[Turn] = []
    extend = turns.extend  # cheaper than chaining the lists (the merge loop builds many)
    first: int | None = None
    last = 0
    known = True
    for c in chunks:
        extend(c.turns)
        if known:
            lines = c._lines
            if lines is _UNKNOWN:
                known = False
            elif lines is not None:
                a, b = cast("tuple[int, int]", lines)
                if first is None:
                    first, last = a, b
                else:
                    first = min(first, a)
                    last = max(last, b)
    out = Chunk(turns)
    if known:
        out._lines = None if first is None else (first, last)
    return out


def chunks_from_spans(
    chunks: Sequence[Chunk], spans: Iterable[Span], progress: Progress | None = None
) -> list[Chunk]:
    """Build the chunks that `spans` describe over `chunks` (a one-chunk span is that chunk)."""
    out: list[Chunk] = []
    append = out.append
    for start, end in with_progress(spans, progress):
        if end - start == 1:
            append(chunks[start])
        else:
            append(join_chunks(chunks[start:end]))
    return out


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Parsing and splitting a large log allocate millions of tuples and strings
    and no cycles; without this, repeated full collections over the growing
    heap cost more than the parsing itself. The collector is process-wide, so
    pauses are counted across threads: it is switched back on when the last
    pause ends, if it was on when the first one began.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()
