"""The one client module for OpenAI-compatible endpoints (embeddings, chat summaries,
the episodic boundary detector), and which backend a stage uses.

Declared once here:

* the HTTP defaults and their environment variables (`http_settings`);
* how an endpoint is shown (`display_endpoint`: no credentials, no query, IPv6 kept
  in brackets, e.g. ``http://[::1]:8080/v1``);
* the key (`resolve_key`: given, else ``$OPENAI_API_KEY``; OpenAI's own API
  without a key is refused; any other endpoint gets `PLACEHOLDER_KEY`) and how it
  is kept out of texts (`scrub`);
* the retry policy (`retryable`, `retry_after`, `RetryPolicy.delay`): HTTP
  408/409/429/5xx are retried, after the server's ``retry-after-ms`` or
  ``Retry-After`` (seconds or an HTTP-date) when it sends one, else after an
  exponential backoff; every wait is bounded, and a client told to stop
  (`RetryWait.stop`: the workbench stops its clients when it quits) ends its wait at
  once and gives up instead of retrying;
* the client (`make_client`: the ``openai`` SDK with our timeout and its own retries
  off, since retries are done by the callers with `RetryPolicy`);
* which backend, model, URL and key a stage uses (`resolve`).

``openai`` is imported only when a client is made, so ``import chunkscope.engine`` stays fast.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import openai as openai_sdk


DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Sent as the key to endpoints that need none (most local servers ignore it).
PLACEHOLDER_KEY = "not-needed"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"

#: Environment variables that set the HTTP defaults of the remote backends when no
#: value is passed: the timeout of one request in seconds, the retries after a
#: failed attempt, the first backoff.
ENV_HTTP_TIMEOUT = "CHUNKSCOPE_HTTP_TIMEOUT"
ENV_MAX_RETRIES = "CHUNKSCOPE_MAX_RETRIES"
ENV_BACKOFF = "CHUNKSCOPE_BACKOFF"
DEFAULT_MAX_RETRIES = 3
#: HTTP statuses below 500 that are worth another try.
RETRY_STATUSES = frozenset({408, 409, 429})
#: Longest wait a server's ``Retry-After`` can ask for (seconds), by default.
DEFAULT_RETRY_AFTER_CAP = 60.0
_MIN_SECRET = 4


def env_number(name: str, default: float) -> float:
    """``$name`` as a finite number >= 0 (a timeout must be > 0), else `default`."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    if not value >= 0 or value == math.inf or (name == ENV_HTTP_TIMEOUT and value == 0):
        return default
    return value


def http_settings(
    timeout: float | None,
    max_retries: int | None,
    backoff: float | None,
    *,
    default_timeout: float,
    default_backoff: float,
) -> tuple[float, int, float]:
    """Timeout, retries and first backoff of a client: each as given, else from
    ``$CHUNKSCOPE_HTTP_TIMEOUT`` / ``_MAX_RETRIES`` / ``_BACKOFF``, else the default."""
    return (
        env_number(ENV_HTTP_TIMEOUT, default_timeout) if timeout is None else timeout,
        int(env_number(ENV_MAX_RETRIES, DEFAULT_MAX_RETRIES))
        if max_retries is None
        else max_retries,
        env_number(ENV_BACKOFF, default_backoff) if backoff is None else backoff,
    )


# --------------------------------------------------------------------------- endpoint


def base_url_or_default(base_url: str | None) -> str:
    """`base_url`, else ``$OPENAI_BASE_URL``, else OpenAI's API; stripped."""
    return (base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL).strip()


def display_endpoint(url: str) -> str:
    """`url` without ``user:password@``, query (``?api-key=...``), fragment or trailing
    slash: safe to show in errors and to key caches on. An IPv6 host keeps its brackets."""
    url = url.strip()
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def is_openai(url: str) -> bool:
    """True for OpenAI's own API, which needs a real key."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return False
    return host.lower() == "api.openai.com"


# --------------------------------------------------------------------------- key


class MissingKeyError(ValueError):
    """OpenAI's own API was asked for without a key."""


def resolve_key(api_key: str | None, url: str) -> str:
    """The key to send: `api_key`, else ``$OPENAI_API_KEY``, else `PLACEHOLDER_KEY` for
    endpoints other than OpenAI's. Raises `MissingKeyError` for OpenAI without a key."""
    key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
    if key:
        return key
    if is_openai(url):
        raise MissingKeyError("no API key: set OPENAI_API_KEY")
    return PLACEHOLDER_KEY


def scrub(text: str, key: str | None) -> str:
    """`text` with `key` replaced by ``***`` (the placeholder and very short keys kept)."""
    if key and key != PLACEHOLDER_KEY and len(key) >= _MIN_SECRET:
        text = text.replace(key, "***")
    return text


# --------------------------------------------------------------------------- retries


def retryable(status: int) -> bool:
    """Whether an HTTP error status is worth another try (408, 409, 429, 5xx)."""
    return status in RETRY_STATUSES or status >= 500


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds the server asked to wait: ``retry-after-ms``, else ``Retry-After`` in
    seconds or as an HTTP-date; None when absent or unreadable. Never negative."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            ms = float(value)
        except ValueError:
            ms = math.nan
        if math.isfinite(ms):
            return max(0.0, ms / 1000.0)
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # pragma: no cover - HTTP-dates are GMT
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def status_detail(body: object, limit: int = 200) -> str:
    """The server's own error message from an error body, on one line, shortened."""
    message: object = None
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
    elif isinstance(body, str):
        message = body
    if not isinstance(message, str):
        return ""
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: retry ``n`` (0-based) waits the server's asked
    delay (at most `retry_after_cap`), else ``backoff * 2**n`` (at most `backoff_max`)."""

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff: float = 0.5
    backoff_max: float = 20.0
    retry_after_cap: float = DEFAULT_RETRY_AFTER_CAP

    def delay(self, attempt: int, asked: float | None) -> float:
        """Seconds to wait before retry `attempt`: the server's Retry-After (`asked`, capped),
        else exponential backoff."""
        if asked is not None:
            return min(asked, self.retry_after_cap)
        return float(min(self.backoff_max, self.backoff * (2**attempt)))


class RetryWait:
    """The waits of one client between its retries. Called with a number of seconds,
    it waits them (with `sleep` when one is given, as tests do; else on an event that
    `stop` sets, so a stop ends a wait at once) and says whether the client may try
    again: after `stop`, never."""

    def __init__(self, sleep: Callable[[float], None] | None = None) -> None:
        self._sleep = sleep
        self._stopped = threading.Event()

    def stop(self) -> None:
        """End every wait now and every retry from now on."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        """Whether `stop` was called: a waiting retry gives up."""
        return self._stopped.is_set()

    def __call__(self, seconds: float) -> bool:
        """Wait `seconds`, or less when `stop` is called: True when the wait ran its course."""
        if self._sleep is not None:
            self._sleep(seconds)
            return not self.stopped
        return not self._stopped.wait(seconds)


def stop_requests(client: object) -> None:
    """Tell `client` (an embedder, a summarizer, a wrapper of one) to send no more
    requests, if it sends any: its `RetryWait` stops."""
    stop = getattr(client, "stop", None)
    if callable(stop):
        stop()


# --------------------------------------------------------------------------- client


def make_client(url: str, key: str, timeout: float) -> openai_sdk.OpenAI:
    """An ``openai.OpenAI`` client for `url` with `timeout` and the SDK's retries off."""
    import openai

    return openai.OpenAI(base_url=url.strip(), api_key=key, timeout=timeout, max_retries=0)
