"""The LLM summarizer: any OpenAI-compatible chat endpoint, with retries and a fallback."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from chunkscope.engine.backend import (
    MissingKeyError,
    RetryPolicy,
    RetryWait,
    base_url_or_default,
    display_endpoint,
    http_settings,
    make_client,
    resolve_key,
    retry_after,
    retryable,
    scrub,
)
from chunkscope.engine.summarize.base import (
    DEFAULT_WORKERS,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    Summarizer,
    Summary,
    SummaryError,
)
from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

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


class LLMSummarizer:
    """Summaries from an OpenAI-compatible chat endpoint (see the module docstring).

    `base_url` and `api_key` default to ``$OPENAI_BASE_URL`` / ``$OPENAI_API_KEY``;
    a local server that needs no key gets a placeholder. `max_retries` is the
    number of retries after the first attempt of one request; the wait before
    retry ``n`` is ``backoff * 2 ** (n - 1)`` seconds, or what the server asked for
    (``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP-date), at most
    `max_backoff` (`engine.backend.RetryPolicy`).
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
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if not model:
            raise ValueError("the LLM summarizer needs a model name")
        # Unset: $CHUNKSCOPE_HTTP_TIMEOUT / _MAX_RETRIES / _BACKOFF, then 60 s, 3, 1 s.
        timeout, max_retries, backoff = http_settings(
            timeout, max_retries, backoff, default_timeout=60.0, default_backoff=1.0
        )
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        url = base_url_or_default(base_url)
        self.model = model
        self.base_url = url
        self.endpoint = display_endpoint(url)
        try:
            key = resolve_key(api_key, url)
        except MissingKeyError as e:
            raise SummaryError(self.endpoint, str(e), offline="--summarizer extractive") from None
        self._api_key = key
        self.workers = workers
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retry = RetryPolicy(max_retries, backoff, max_backoff, max_backoff)
        self._wait_retry = RetryWait(sleep)
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
                self._client = make_client(self.base_url, self._api_key, self.timeout)
            return self._client

    def stop(self) -> None:
        """Send no more requests: a wait between retries ends now and the summary fails
        (the workbench calls this when it quits)."""
        self._wait_retry.stop()

    def complete(self, text: str) -> str:
        """One chat completion for `text` (retrying transient failures); the reply text."""
        import openai

        client = self._get_client()
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": text},
        ]
        last = ""
        asked: float | None = None
        for attempt in range(self.max_retries + 1):
            if self._wait_retry.stopped or (
                attempt and not self._wait_retry(self.retry.delay(attempt - 1, asked))
            ):
                raise SummaryError(self.endpoint, f"{last}; stopped" if last else "stopped")
            asked = None
            with self._client_lock:
                self.requests += 1
            try:
                response = client.chat.completions.create(
                    model=self.model, messages=messages, temperature=0
                )
            except openai.APIStatusError as e:
                status = e.status_code
                last = f"HTTP {status}"
                if retryable(status):
                    asked = retry_after(e.response.headers)
                    continue
                detail = scrub(_error_detail(e), self._api_key)
                raise SummaryError(self.endpoint, f"HTTP {status}{detail}") from None
            except openai.APITimeoutError:
                last = f"timed out after {self.timeout:g} s"
                continue
            except openai.APIConnectionError as e:
                last = scrub(f"cannot connect ({_cause(e)})", self._api_key)
                continue
            except openai.OpenAIError as e:
                raise SummaryError(self.endpoint, scrub(str(e), self._api_key)) from None
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
