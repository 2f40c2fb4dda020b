"""Chunk summaries: an abstract (one sentence) and a summary (two to four sentences).

Two summarizers share one small protocol (`Summarizer`):

- `ExtractiveSummarizer` (the default): offline and deterministic. It splits a
  chunk into sentences (role prefixes stripped, code blocks and tables left
  out), weighs each by its lexical (TF-IDF) similarity to the rest of the chunk,
  and picks the most central sentence as the abstract and the 2 to 4 most
  central ones, in their original order, as the summary. Collapsed tool
  sentences ("Read x (12 lines).") and headings are only chosen when the chunk
  has no real prose.
- `LLMSummarizer`: any OpenAI-compatible chat endpoint through the `openai`
  client, with the reference's prompt (first person of the assistant, exactly
  two lines ``ABSTRACT:`` and ``SUMMARY:``) at temperature 0. A reply it cannot
  parse is asked for once more; if that one fails too, the chunk gets the
  extractive summary with ``flagged=True``. Raw model output is never used as a
  summary. HTTP 429 / 5xx, timeouts and connection errors are retried with
  exponential backoff; then `SummaryError` names the endpoint (never the key).

`summarize_chunks(chunks, ...)` keeps the seed's name: it summarizes many chunks
(in parallel for the LLM), returns the summaries in input order and caches them
in the SQLite cache (`engine.embed.cache.EmbeddingCache` JSON values), keyed by
summarizer name, model, prompt version and the SHA-256 of the chunk text, so a
second run sends nothing.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import numpy.typing as npt

from engine.errors import BackendError
from engine.model import Chunk
from engine.textutil import STOPWORDS

__all__ = [
    "DEFAULT_WORKERS",
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Sentence",
    "Summarizer",
    "Summary",
    "SummaryCache",
    "SummaryError",
    "cache_namespace",
    "make_summarizer",
    "parse_reply",
    "split_sentences",
    "summarize_chunks",
]

#: ``progress(done, total)``: chunks summarized so far out of all chunks.
Progress = Callable[[int, int], None]

DEFAULT_WORKERS = 4

#: Bumped whenever `SYSTEM_PROMPT` or the reply parsing changes: it is part of the cache key.
PROMPT_VERSION = "1"

SYSTEM_PROMPT = """\
You summarize an excerpt of a working session between "You" (the user) and "Bot" \
(the assistant, whose private reasoning appears as "Bot thinking" and whose tool calls \
appear as "Tool" lines).
Write as the assistant, in the first person ("I").
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

    def summarize(self, text: str) -> Summary: ...


class SummaryCache(Protocol):
    """What `summarize_chunks` needs of a cache (`EmbeddingCache` has it)."""

    def get_json_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]: ...

    def put_json_many(self, namespace: str, items: Mapping[str, Any]) -> int: ...


# --------------------------------------------------------------------------- sentences

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
        if abstract not in chosen:  # cannot happen (it ranks first), kept for clarity
            chosen[-1] = abstract
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

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_PREFIX = re.compile(
    r"^[\s>#*_`-]*(abstract|summary)\s*[*_`]*\s*[:：]\s*[*_`]*\s*(.*)$", re.I | re.S
)


def _clean_field(text: str) -> str:
    text = " ".join(text.split())
    text = text.strip().strip("*_` ").strip()
    return text


def parse_reply(reply: str | None) -> tuple[str, str] | None:
    """(abstract, summary) from a model reply, or None when it lacks either line.

    Case, surrounding whitespace and markdown emphasis around the prefixes are
    ignored (``**Abstract:** ...``); a ``<think>`` block is skipped; lines after
    a prefix line that carry no prefix continue its field.
    """
    if not reply:
        return None
    text = _THINK.sub("", reply)
    fields: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        m = _PREFIX.match(line)
        if m:
            current = m.group(1).lower()
            fields[current] = [m.group(2)]
        elif current is not None and line.strip():
            fields[current].append(line)
    abstract = _clean_field(" ".join(fields.get("abstract", [])))
    summary = _clean_field(" ".join(fields.get("summary", [])))
    if not abstract or not summary:
        return None
    return abstract, summary


DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Sent as the key to endpoints other than OpenAI's when no key is configured.
PLACEHOLDER_KEY = "not-needed"


def _display_url(url: str) -> str:
    """`url` without credentials, query or trailing slash: safe to show and to key on."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    if not parts.scheme:
        return url.strip().rstrip("/")
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _redact(text: str, secret: str | None) -> str:
    if secret and secret != PLACEHOLDER_KEY and len(secret) >= 4:
        text = text.replace(secret, "***")
    return text


class LLMSummarizer:
    """Summaries from an OpenAI-compatible chat endpoint (see the module docstring).

    `base_url` and `api_key` default to ``$OPENAI_BASE_URL`` / ``$OPENAI_API_KEY``;
    a local server that needs no key gets a placeholder. `max_retries` is the
    number of retries after the first attempt of one request; the wait before
    retry ``n`` is ``backoff * 2 ** (n - 1)`` seconds (or the server's
    ``Retry-After``, capped at `max_backoff`).
    """

    name = "llm"
    prompt_version = PROMPT_VERSION
    cacheable = True
    parallel = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        workers: int = DEFAULT_WORKERS,
        timeout: float | None = None,
        max_retries: int | None = None,
        backoff: float | None = None,
        max_backoff: float = 30.0,
        fallback: Summarizer | None = None,
        client: Any | None = None,
    ) -> None:
        if not model:
            raise ValueError("the LLM summarizer needs a model name")
        # Unset: $CHUNKSCOPE_HTTP_TIMEOUT / _MAX_RETRIES / _BACKOFF, then 60 s, 3, 1 s.
        from engine.embed.openai import ENV_BACKOFF, ENV_HTTP_TIMEOUT, ENV_MAX_RETRIES, env_number

        if timeout is None:
            timeout = env_number(ENV_HTTP_TIMEOUT, 60.0)
        if max_retries is None:
            max_retries = int(env_number(ENV_MAX_RETRIES, 3))
        if backoff is None:
            backoff = env_number(ENV_BACKOFF, 1.0)
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).strip()
        self.model = model
        self.base_url = url
        self.endpoint = _display_url(url)
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if not key:
            if "api.openai.com" in url:
                raise SummaryError(
                    self.endpoint, "no API key: set OPENAI_API_KEY or use --summarizer extractive"
                )
            key = PLACEHOLDER_KEY
        self._api_key = key
        self.workers = workers
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.fallback: Summarizer = fallback or ExtractiveSummarizer()
        self._client = client
        self._client_lock = threading.Lock()
        #: Requests sent (attempts included), for tests and progress displays.
        self.requests = 0

    def __repr__(self) -> str:  # never shows the key
        return f"LLMSummarizer(model={self.model!r}, base_url={self.endpoint!r})"

    @property
    def cache_model(self) -> str:
        """The model as the cache files summaries under: the model and where it is served
        (local servers often answer to any model name with whatever they loaded)."""
        return f"{self.model}@{self.endpoint}"

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                try:
                    import openai
                except ImportError as e:  # pragma: no cover - openai is a dependency
                    raise SummaryError(
                        self.endpoint, f"the openai package is missing ({e})"
                    ) from None
                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key,
                    timeout=self.timeout,
                    max_retries=0,
                )
            return self._client

    def _wait(self, retry: int, retry_after: float | None) -> None:
        delay = self.backoff * (2 ** (retry - 1))
        if retry_after is not None:
            delay = max(delay, retry_after)
        time.sleep(min(delay, self.max_backoff))

    def complete(self, text: str) -> str:
        """One chat completion for `text` (retrying transient failures); the reply text."""
        import openai

        client = self._get_client()
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": text},
        ]
        last = ""
        retry_after: float | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._wait(attempt, retry_after)
            retry_after = None
            with self._client_lock:
                self.requests += 1
            try:
                response = client.chat.completions.create(
                    model=self.model, messages=messages, temperature=0
                )
            except openai.APIStatusError as e:
                status = e.status_code
                last = f"HTTP {status}"
                if status == 429 or status >= 500:
                    retry_after = _header_seconds(e)
                    continue
                detail = _redact(_error_detail(e), self._api_key)
                raise SummaryError(self.endpoint, f"HTTP {status}{detail}") from None
            except openai.APITimeoutError:
                last = f"timed out after {self.timeout:g} s"
                continue
            except openai.APIConnectionError as e:
                last = _redact(f"cannot connect ({_cause(e)})", self._api_key)
                continue
            except openai.OpenAIError as e:
                raise SummaryError(self.endpoint, _redact(str(e), self._api_key)) from None
            return _reply_text(response)
        tries = f"{self.max_retries} retr{'y' if self.max_retries == 1 else 'ies'}"
        raise SummaryError(self.endpoint, f"{last} after {tries}")

    def summarize(self, text: str) -> Summary:
        """Ask the model (twice if the first reply cannot be parsed), else fall back."""
        for _ in range(2):
            parsed = parse_reply(self.complete(text))
            if parsed is not None:
                return Summary(parsed[0], parsed[1], False, "llm")
        return replace(self.fallback.summarize(text), flagged=True)


def _reply_text(response: Any) -> str:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


def _header_seconds(e: Any) -> float | None:
    response = getattr(e, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after")
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _error_detail(e: Any) -> str:
    body = getattr(e, "body", None)
    message = None
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            message = err.get("message")
    if not isinstance(message, str) or not message.strip():
        return ""
    return ": " + " ".join(message.split())[:200]


def _cause(e: BaseException) -> str:
    cause = e.__cause__ or e.__context__
    text = str(cause) if cause is not None else str(e)
    return " ".join(text.split())[:200] or type(e).__name__


# --------------------------------------------------------------------------- many chunks


def make_summarizer(
    name: str = "extractive",
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    workers: int = DEFAULT_WORKERS,
    **kwargs: Any,
) -> Summarizer:
    """A summarizer by name: "extractive" or "llm" (which needs a model)."""
    if name == "extractive":
        return ExtractiveSummarizer()
    if name == "llm":
        if not model:
            raise ValueError("the llm summarizer needs a model (--summary-model)")
        return LLMSummarizer(model, base_url, api_key, workers=workers, **kwargs)
    raise ValueError(f"unknown summarizer {name!r} (extractive or llm)")


def cache_namespace(summarizer: Summarizer) -> str:
    """The cache namespace of a summarizer's summaries: name, model and prompt version.

    The model is the summarizer's ``cache_model`` when it has one (the LLM
    summarizer adds its endpoint).
    """
    model = getattr(summarizer, "cache_model", summarizer.model)
    return f"summary:{summarizer.name}:{model}:v{summarizer.prompt_version}"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def summarize_chunks(
    chunks: Sequence[Chunk | str],
    summarizer: Summarizer | None = None,
    *,
    cache: SummaryCache | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    model: str | None = None,
    log: Callable[[str], None] | None = None,
) -> list[Summary]:
    """Summaries of `chunks` (chunks or texts), in input order.

    Identical texts are summarized once. With a `cache`, summaries of
    cacheable summarizers (the LLM one) are looked up first and stored as they
    arrive; flagged fallbacks are not stored, so a later run asks again.
    Summarizers with ``parallel = True`` run `workers` chunks at once (default:
    the summarizer's own ``workers``, else 4). `progress(done, total)` is called
    from the calling thread. The first `SummaryError` cancels what has not
    started and is raised.

    For code written against the seed (``summarize_chunks(chunks, model=M,
    log=print)``): `model` without a `summarizer` selects the LLM summarizer
    for that model (endpoint and key from the environment), and `log` receives
    one progress line per summarized chunk.
    """
    if summarizer is None and model:
        summarizer = LLMSummarizer(model)
    if log is not None:
        inner, say = progress, log

        def progress(done: int, total: int) -> None:
            if inner is not None:
                inner(done, total)
            say(f"Summarized {done}/{total} chunks.")

    summarizer = summarizer or ExtractiveSummarizer()
    texts = [c.text if isinstance(c, Chunk) else c for c in chunks]
    total = len(texts)
    distinct = list(dict.fromkeys(texts))
    done: dict[str, Summary] = {}

    use_cache = cache is not None and getattr(summarizer, "cacheable", True)
    namespace = cache_namespace(summarizer)
    keys = {t: _key(t) for t in distinct} if use_cache else {}
    if use_cache and cache is not None:
        found = cache.get_json_many(namespace, list(keys.values()))
        for t in distinct:
            hit = Summary.from_dict(found.get(keys[t]))
            if hit is not None:
                done[t] = hit

    count = {t: 0 for t in distinct}
    for t in texts:
        count[t] += 1
    finished = sum(count[t] for t in done)
    if progress is not None and total:
        progress(finished, total)

    def record(t: str, s: Summary) -> None:
        nonlocal finished
        done[t] = s
        if use_cache and cache is not None and not s.flagged:
            cache.put_json_many(namespace, {keys[t]: s.as_dict()})
        finished += count[t]
        if progress is not None:
            progress(finished, total)

    todo = [t for t in distinct if t not in done]
    n_workers = workers if workers is not None else getattr(summarizer, "workers", DEFAULT_WORKERS)
    n_workers = max(1, int(n_workers))
    if todo and getattr(summarizer, "parallel", False) and n_workers > 1 and len(todo) > 1:
        pool = ThreadPoolExecutor(max_workers=min(n_workers, len(todo)))
        try:
            futures: dict[Future[Summary], str] = {
                pool.submit(summarizer.summarize, t): t for t in todo
            }
            order = {t: i for i, t in enumerate(todo)}
            pending = set(futures)
            while pending:
                finished_now, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in sorted(finished_now, key=lambda f: order[futures[f]]):
                    error = f.exception()
                    if error is not None:
                        raise error
                    record(futures[f], f.result())
        finally:
            # On an error or an interrupt, chunks not started yet are dropped; the
            # requests in flight finish in the background (they have a timeout).
            pool.shutdown(wait=False, cancel_futures=True)
    else:
        for t in todo:
            record(t, summarizer.summarize(t))
    return [done[t] for t in texts]
