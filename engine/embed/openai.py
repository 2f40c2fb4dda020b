"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Works with OpenAI itself and with local servers that speak the same API (Ollama,
vLLM, LM Studio, llama.cpp's server). The ``openai`` package is imported when an
`OpenAIEmbedder` is constructed, not when this module is, so ``import engine``
stays fast.

Retries are done here, not by the client (``max_retries=0`` there), so their
timing can be set and tested: HTTP 408/409/429/5xx, timeouts, connection errors
and unreadable replies are tried again after ``backoff_base * 2**attempt``
seconds (at most ``backoff_max``), or after the server's ``Retry-After`` (at most
``retry_after_cap``). Other HTTP errors (401, 404, ...) fail at once. The timeout,
the retries and the first backoff default to ``$CHUNKSCOPE_HTTP_TIMEOUT`` (30 s),
``$CHUNKSCOPE_MAX_RETRIES`` (3) and ``$CHUNKSCOPE_BACKOFF`` (0.5 s) when not passed, so
the command line can be tuned (and tests kept short) without new flags.

The API key never appears in an error message, a warning or a repr: every text
this module produces is scrubbed of it, and errors are raised without the
client's exception chained to them.
"""

from __future__ import annotations

import base64
import email.utils
import os
import time
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from engine.embed.base import EmbeddingError, Matrix, Progress, Warn, is_blank, normalize_rows

if TYPE_CHECKING:
    import openai as openai_sdk

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "text-embedding-3-small"
#: Sent as the key to endpoints that need none (most local servers ignore it).
PLACEHOLDER_KEY = "not-needed"
_RETRY_STATUSES = frozenset({408, 409, 429})
_DETAIL_LIMIT = 200

#: Environment variables that set the HTTP defaults of the remote backends (the
#: embedder here and the LLM summarizer) when no value is passed: the timeout of
#: one request in seconds, the retries after a failed attempt, the first backoff.
ENV_HTTP_TIMEOUT = "CHUNKSCOPE_HTTP_TIMEOUT"
ENV_MAX_RETRIES = "CHUNKSCOPE_MAX_RETRIES"
ENV_BACKOFF = "CHUNKSCOPE_BACKOFF"


def env_number(name: str, default: float) -> float:
    """``$name`` as a finite number >= 0 (a timeout must be > 0), else `default`."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    if not value >= 0 or value == float("inf") or (name == ENV_HTTP_TIMEOUT and value == 0):
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
    ``$CHUNKSCOPE_HTTP_TIMEOUT`` / ``_MAX_RETRIES`` / ``_BACKOFF``, else the default
    (3 retries)."""
    return (
        env_number(ENV_HTTP_TIMEOUT, default_timeout) if timeout is None else timeout,
        int(env_number(ENV_MAX_RETRIES, 3)) if max_retries is None else max_retries,
        env_number(ENV_BACKOFF, default_backoff) if backoff is None else backoff,
    )


def _display_url(url: str) -> str:
    """`url` without a trailing slash, ``user:password@`` part or query (``?api-key=...``):
    safe to show in errors and to key the cache on."""
    parts = urlsplit(url.strip())
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")


def _is_openai(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host == "api.openai.com"


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms`` or ``retry-after``), if any."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _status_detail(body: object) -> str:
    """The server's own error message from an error body, shortened to one line."""
    message: object = None
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
    elif isinstance(body, str):
        message = body
    if not isinstance(message, str):
        return ""
    line = " ".join(message.split())
    return line if len(line) <= _DETAIL_LIMIT else line[: _DETAIL_LIMIT - 1] + "…"


def _as_floats(embedding: object) -> list[float] | None:
    """An embedding as a list of floats: a list, or base64 float32 (some servers send it)."""
    if isinstance(embedding, list):
        return embedding
    if isinstance(embedding, str):
        try:
            raw = base64.b64decode(embedding, validate=True)
        except ValueError:
            return None
        if len(raw) % 4:
            return None
        return [float(x) for x in np.frombuffer(raw, dtype="<f4")]
    return None


class OpenAIEmbedder:
    """Embeds through an OpenAI-compatible endpoint, one request per batch.

    ``base_url`` defaults to ``$OPENAI_BASE_URL``, then OpenAI's API; ``api_key`` to
    ``$OPENAI_API_KEY``. Without a key, OpenAI's own API is refused up front, and
    any other endpoint gets a placeholder key (local servers need none).

    Inputs longer than ``max_input_tokens`` (counted with the shared cl100k
    tokenizer, `engine.tokens.get_counter`) are cut to fit and reported through
    `warn` (default: `warnings.warn`). Blank texts are not sent: they get zero rows.
    ``dim`` is ``dimensions`` when given, else 0 until the first reply sets it;
    every later reply must keep to it. ``requests`` counts HTTP requests made.
    """

    name = "openai"
    contextual = False
    cacheable = True

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 256,
        timeout: float | None = None,
        max_retries: int | None = None,
        max_input_tokens: int = 8191,
        dimensions: int | None = None,
        *,
        backoff_base: float | None = None,
        backoff_max: float = 20.0,
        retry_after_cap: float = 60.0,
        warn: Warn | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.endpoint = _display_url(url)
        timeout, max_retries, backoff_base = http_settings(
            timeout, max_retries, backoff_base, default_timeout=30.0, default_backoff=0.5
        )
        if not model:
            raise EmbeddingError(self.endpoint, "no embedding model given")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {max_retries}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if max_input_tokens < 1:
            raise ValueError(f"max_input_tokens must be at least 1, got {max_input_tokens}")
        if dimensions is not None and dimensions < 1:
            raise ValueError(f"dimensions must be at least 1, got {dimensions}")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if not key:
            if _is_openai(url):
                raise EmbeddingError(
                    self.endpoint, "no API key: set OPENAI_API_KEY or use --embedder lexical"
                )
            key = PLACEHOLDER_KEY
        self._secret = key if key != PLACEHOLDER_KEY else ""

        self.model = model
        self.batch_size = batch_size
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_input_tokens = max_input_tokens
        self.dimensions = dimensions
        self.dim = dimensions or 0
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_cap = retry_after_cap
        self.requests = 0
        self._warn_callback = warn
        self._sleep = sleep

        import openai as sdk

        self._sdk = sdk
        self._client: openai_sdk.OpenAI = sdk.OpenAI(
            base_url=url.strip(), api_key=key, timeout=timeout, max_retries=0
        )

    @property
    def cache_model(self) -> str:
        """The model name the cache files vectors under: the model and where it is served,
        since local servers often answer to any model name with whatever they loaded."""
        return f"{self.model}@{self.endpoint}"

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, endpoint={self.endpoint!r}, dim={self.dim})"

    def close(self) -> None:
        self._client.close()

    # -- helpers -----------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        if self._secret and len(self._secret) >= 4:
            text = text.replace(self._secret, "***")
        return text

    def _error(self, reason: str) -> EmbeddingError:
        return EmbeddingError(self.endpoint, self._scrub(reason))

    def _warn(self, message: str) -> None:
        message = self._scrub(message)
        if self._warn_callback is not None:
            self._warn_callback(message)
        else:
            warnings.warn(message, UserWarning, stacklevel=3)

    def _fit(self, texts: Sequence[str]) -> list[str]:
        """`texts` with any over ``max_input_tokens`` tokens cut to fit (one warning)."""
        limit = self.max_input_tokens
        out = list(texts)
        cut: list[int] = []
        counter = None
        for i, text in enumerate(out):
            # Each token covers at least one UTF-8 byte, so short texts need no count.
            if len(text) * 4 <= limit or len(text.encode("utf-8", "surrogatepass")) <= limit:
                continue
            if counter is None:
                from engine.tokens import get_counter

                counter = get_counter()
            if counter.exact:
                ids = counter.encode(text)
                if len(ids) > limit:
                    out[i] = counter.decode(ids[:limit])
                    cut.append(len(ids))
            else:
                n = counter.count(text)
                if n > limit:
                    out[i] = text[: max(1, len(text) * limit // n)]
                    cut.append(n)
        if cut:
            approx = "" if counter is not None and counter.exact else " (approximate count)"
            self._warn(
                f"{self.endpoint}: {len(cut)} input(s) over {limit} tokens truncated to fit "
                f"{self.model} (longest {max(cut)} tokens{approx})"
            )
        return out

    def _delay(self, attempt: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, self.retry_after_cap)
        return float(min(self.backoff_max, self.backoff_base * (2**attempt)))

    def _request(self, batch: list[str]) -> Any:
        """One embeddings call for `batch`, retried as the module docstring says."""
        sdk = self._sdk
        extra: dict[str, Any] = {}
        if self.dimensions is not None:
            extra["dimensions"] = self.dimensions
        attempt = 0
        while True:
            asked: float | None = None
            self.requests += 1
            try:
                return self._client.embeddings.create(
                    model=self.model, input=batch, encoding_format="float", **extra
                )
            except sdk.APIStatusError as e:
                status = e.status_code
                detail = _status_detail(e.body)
                if status not in _RETRY_STATUSES and status < 500:
                    raise self._error(
                        f"HTTP {status}" + (f": {detail}" if detail else "")
                    ) from None
                reason = f"HTTP {status}"
                asked = _retry_after(e.response.headers)
            except sdk.APITimeoutError:
                reason = f"timed out after {self.timeout:g} s"
            except sdk.APIConnectionError as e:
                cause = e.__cause__
                reason = "cannot connect" + (f" ({cause})" if cause is not None else "")
            except (sdk.APIResponseValidationError, ValueError) as e:
                reason = f"unreadable reply ({type(e).__name__})"
            except sdk.OpenAIError as e:
                raise self._error(f"request failed ({type(e).__name__})") from None
            if attempt >= self.max_retries:
                if self.max_retries:
                    reason += f" after {self.max_retries} retries"
                raise self._error(reason) from None
            self._sleep(self._delay(attempt, asked))
            attempt += 1

    def _embed_batch(self, batch: list[str]) -> Matrix:
        response = self._request(batch)
        data = getattr(response, "data", None)
        if not isinstance(data, list):
            raise self._error("unreadable reply: no list of embeddings")
        if len(data) != len(batch):
            raise self._error(
                f"wrong number of vectors: sent {len(batch)} inputs, got {len(data)} vectors"
            )
        by_index: dict[int, object] = {}
        for position, item in enumerate(data):
            index = getattr(item, "index", position)
            by_index[index if isinstance(index, int) else position] = getattr(
                item, "embedding", None
            )
        if sorted(by_index) != list(range(len(batch))):
            raise self._error(f"unreadable reply: indices {sorted(by_index)[:5]}... do not match")
        rows: list[list[float]] = []
        for i in range(len(batch)):
            row = _as_floats(by_index[i])
            if row is None:
                raise self._error(f"unreadable reply: embedding {i} is not a list of numbers")
            rows.append(row)
        widths = sorted({len(r) for r in rows})
        if len(widths) != 1:
            raise self._error(f"vectors of different dimensions {widths} in one reply")
        width = widths[0]
        if width == 0:
            raise self._error("empty vectors (dimension 0)")
        if self.dim and width != self.dim:
            expected = "requested" if self.dimensions else "earlier vectors"
            raise self._error(f"dimension {width} differs from {self.dim} ({expected})")
        try:
            matrix = np.asarray(rows, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._error("unreadable reply: embeddings are not numbers") from None
        if not np.isfinite(matrix).all():
            raise self._error("reply has non-finite values (NaN or infinity)")
        self.dim = width
        return normalize_rows(matrix)

    # -- the embedder interface --------------------------------------------------------

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """Unit-length float32 rows for `texts`, in order; blank texts get zero rows.

        Raises `EmbeddingError` when a batch fails after its retries or a reply does
        not fit (wrong number of vectors, inconsistent dimension).
        """
        n = len(texts)
        live = [i for i, t in enumerate(texts) if not is_blank(t)]
        inputs = self._fit([texts[i] for i in live])
        done = n - len(live)
        parts: list[Matrix] = []
        for start in range(0, len(inputs), self.batch_size):
            batch = inputs[start : start + self.batch_size]
            parts.append(self._embed_batch(batch))
            done += len(batch)
            if progress is not None:
                progress(done, n)
        out = np.zeros((n, self.dim), dtype=np.float32)
        if parts:
            out[live] = np.concatenate(parts)
        if progress is not None and not parts:
            progress(n, n)
        return out
