"""What every summarizer shares: the `Summary` value, the protocols, the prompt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engine.errors import BackendError

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
