"""What every summarizer shares: the `Summary` value, the protocols, the prompt."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from chunkscope.engine.errors import BackendError
from chunkscope.engine.model import Chunk

DEFAULT_WORKERS = 4

#: Bumped whenever `SYSTEM_PROMPT` or the reply parsing changes: it is part of the cache key.
PROMPT_VERSION = "2"

SYSTEM_PROMPT = """\
You summarize an excerpt of a working session between "You" (the user) and "Bot" \
(the assistant, whose private reasoning appears as "Bot thinking" and whose tool calls \
appear as "Tool" lines), for the assistant to resume the work later.
Write as the assistant, in the first person ("I").
State facts, not narration: what was asked, what was decided and why, which files, \
functions and commands were involved, results with their numbers (tests passed or \
failed, errors), and what is still open. Leave out what I was about to do ("Let me \
check...", "Now I'll...") and filler ("Great!", "Perfect!"). Use complete sentences.
Answer with exactly two lines and keep their prefixes:
ABSTRACT: <one sentence TL;DR>
SUMMARY: <2-4 sentence overview>"""


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Summary:
    """One chunk's summary.

    ``source`` says who wrote it ("extractive" or "llm"); ``flagged`` is True
    when the LLM's replies could not be parsed and the extractive summary
    stands in for it.
    """

    abstract: str
    summary: str
    flagged: bool = False
    source: str = "extractive"

    def as_dict(self) -> dict[str, Any]:
        """The summary as JSON values."""
        return {
            "abstract": self.abstract,
            "summary": self.summary,
            "flagged": self.flagged,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Summary | None:
        """The summary stored by `as_dict`, or None for anything else."""
        if not isinstance(data, Mapping):
            return None
        abstract, summary = data.get("abstract"), data.get("summary")
        if not isinstance(abstract, str) or not isinstance(summary, str):
            return None
        source = data.get("source")
        return cls(
            abstract,
            summary,
            bool(data.get("flagged", False)),
            source if isinstance(source, str) else "extractive",
        )

    @property
    def text(self) -> str:
        """The text a recap shows: the summary, or the abstract when the summary is empty."""
        return self.summary or self.abstract


_WORD = re.compile(r"[^\W_]")


def has_words(text: str) -> bool:
    """Whether `text` has a letter or a digit (a lone "```" or "---" has none)."""
    return bool(_WORD.search(text))


def closed_fences(text: str) -> str:
    """`text` with no code fence left open: the marker of a fence line that nothing
    closes is taken out (its info string, if any, stays), so a recap that shows it
    never turns the rest of the page into code."""
    from chunkscope.engine.read.source import FENCE

    lines = text.split("\n")
    opened: int | None = None
    marker = ""
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if not m:
            continue
        if opened is None:
            opened, marker = i, m.group(1)
        elif (
            m.group(1)[0] == marker[0]
            and len(m.group(1)) >= len(marker)
            and not line.strip().lstrip(marker[0])
        ):
            opened = None
    if opened is not None:
        line = lines[opened]
        m = FENCE.match(line)
        assert m is not None
        lines[opened] = (line[: m.start(1)] + line[m.end(1) :]).strip()
        if not lines[opened]:
            del lines[opened]
        return closed_fences("\n".join(lines))
    return text


def summary_input(chunk: Chunk) -> str:
    """What a summarizer reads of `chunk`: its text, where a code fence a message leaves
    open (a reply cut off inside a code block, a paste without its closing line) is
    closed where the message ends, so the messages after it stay text and reach the
    summary. The paragraphs of one message (one ``turn_index``) share its fences."""
    from chunkscope.engine.read.headings import fence_after

    text = chunk.text
    if "```" not in text and "~~~" not in text:
        return text
    lines: list[str] = []
    fence: str | None = None
    closed = False
    message: int | None = None
    for turn in chunk.turns:
        if fence is not None and turn.turn_index != message:
            lines.append(fence)  # the message before ended inside the fence
            fence, closed = None, True
        lines.append(turn.line)
        for line in turn.text.split("\n"):
            fence = fence_after(line, fence)
        message = turn.turn_index
    return "\n".join(lines) if closed else text


def clean_summary(summary: Summary) -> Summary:
    """`summary` with no fence left open, and without a part that has no words (a
    lone "```" is never kept: that part is empty, and a recap shows nothing for it)."""
    parts = []
    for text in (summary.abstract, summary.summary):
        text = closed_fences(text)
        parts.append(text if has_words(text) else "")
    if parts == [summary.abstract, summary.summary]:
        return summary
    return replace(summary, abstract=parts[0], summary=parts[1])


class SummaryError(BackendError):
    """Summarizing failed (see `BackendError` for ``endpoint`` and ``reason``)."""


@runtime_checkable
class Summarizer(Protocol):
    """Turns a chunk's text into a `Summary`.

    ``name``, ``model`` and ``prompt_version`` identify the summaries it writes
    (they are part of the cache key).
    """

    name: str
    model: str
    prompt_version: str

    def summarize(self, text: str) -> Summary:
        """The abstract and summary of `text`."""


class SummaryCache(Protocol):
    """What `summarize_chunks` needs of a cache (`EmbeddingCache` has it)."""

    def get_json_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        """The stored values of `keys` in `namespace` that are present."""

    def put_json_many(self, namespace: str, items: Mapping[str, Any]) -> int:
        """Store the items in `namespace`; the number stored."""


#: Ends of a sentence, dropped when comparing the abstract with the summary's sentences.
_ENDS = ".!?…"


def summary_rest(abstract: str, summary: str) -> str:
    """`summary` without the sentence that is `abstract` (the extractive abstract is one
    of the summary's sentences, often its first): the workbench's panel and
    the markdown export show it once.

    An abstract that is a list's item after its lead-in (``The changes needed: Language
    inference ...``, ``**Changes:** ...``) is found in a summary that says the lead-in
    once, before an earlier item of the same list (walk 70, F1: the item was said twice).
    Where the abstract answers the questions just before it, they go with it: left
    before the next sentence, they would read as answered by it (walk 49, F7)."""
    rest = _without(abstract, summary)
    if rest is None:
        lead = _LEAD.match(abstract)
        if lead and lead.group(1) in summary:
            rest = _without(lead.group(2), summary)
    return summary.strip() if rest is None else rest


#: A list item's lead-in and the item after it: ``The changes needed: item``, ``**Plan:**
#: item``.
_LEAD = re.compile(r"(.*?:[*_]*)\s+(\S.*)", re.DOTALL)
#: Where a sentence starts in a summary: after a stop (and a closing quote or mark) and
#: a space, before a capital, a quote or a mark; or after a line break.
_SENTENCE_START = re.compile(r"(?:(?<=[.!?…:])[\"'”’)\]*_`]*\s+|\n\s*)(?=[A-Z\"'“‘(\[*_`#\d])")


def _sentence_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _SENTENCE_START.finditer(text))]


def _without(abstract: str, summary: str) -> str | None:
    """`summary_rest` for one form of the abstract; None when `summary` does not hold it
    as a sentence of its own (at a sentence's start, ending with a stop or the summary)."""
    core = abstract.strip().rstrip(_ENDS).strip()
    if not core:
        return None
    starts = _sentence_starts(summary)
    for at in starts:
        if not summary.startswith(core, at):
            continue
        end = at + len(core)
        stop = end
        while stop < len(summary) and summary[stop] in _ENDS:
            stop += 1
        if stop < len(summary) and (stop == end or not summary[stop].isspace()):
            continue  # the abstract is only the start of a longer sentence
        before, after = summary[:at].rstrip(), summary[stop:].lstrip()
        # the questions the abstract answers go with it (walk 49, F7; walk 70, F1)
        while before.endswith("?"):
            before = before[: max(k for k in _sentence_starts(before) if k < len(before))]
            before = before.rstrip()
        if not before or not after:
            return (before + after).strip()
        # one space where the sentence was taken out of a line, not the two around it
        # ("public API.  Status first": walk 12, 6); a line break around it stays one
        around = summary[len(before) : at] + summary[stop : len(summary) - len(after)]
        return before + ("\n" if "\n" in around else " ") + after
    return None
