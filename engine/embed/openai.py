"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Works with OpenAI itself and with local servers that speak the same API (Ollama,
vLLM, LM Studio, llama.cpp's server). The ``openai`` package is imported when an
`OpenAIEmbedder` is constructed, not when this module is, so ``import chunkscope.engine``
stays fast.

Retries are done here with `engine.backend.RetryPolicy`, not by the client, so their
timing can be set and tested: HTTP 408/409/429/5xx, timeouts, connection errors
and unreadable replies are tried again after ``backoff_base * 2**attempt``
seconds (at most ``backoff_max``), or after the server's ``retry-after-ms`` /
``Retry-After`` (seconds or HTTP-date; at most ``retry_after_cap``). Other HTTP
errors (401, 404, ...) fail at once. The timeout,
the retries and the first backoff default to ``$CHUNKSCOPE_HTTP_TIMEOUT`` (30 s),
``$CHUNKSCOPE_MAX_RETRIES`` (3) and ``$CHUNKSCOPE_BACKOFF`` (0.5 s) when not passed, so
the command line can be tuned (and tests kept short) without new flags.

The API key never appears in an error message, a warning or a repr: every text
this module produces is scrubbed of it, and errors are raised without the
client's exception chained to them.
"""

from __future__ import annotations

import base64
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

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
    status_detail,
)
from chunkscope.engine.embed.base import (
    EmbeddingError,
    Matrix,
    Progress,
    Warn,
    is_blank,
    normalize_rows,
)

if TYPE_CHECKING:
    import openai as openai_sdk

DEFAULT_MODEL = "text-embedding-3-small"


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
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        url = base_url_or_default(base_url)
        self.endpoint = display_endpoint(url)
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
        try:
            key = resolve_key(api_key, url)
        except MissingKeyError as e:
            raise EmbeddingError(self.endpoint, str(e), offline="--embedder lexical") from None
        self._secret = key

        self.model = model
        self.batch_size = batch_size
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_input_tokens = max_input_tokens
        self.dimensions = dimensions
        self.dim = dimensions or 0
        self.retry = RetryPolicy(max_retries, backoff_base, backoff_max, retry_after_cap)
        self.requests = 0
        self._warn_callback = warn
        self._wait_retry = RetryWait(sleep)

        import openai as sdk

        self._sdk = sdk
        self._client: openai_sdk.OpenAI = make_client(url, key, timeout)

    @property
    def cache_model(self) -> str:
        """The model name the cache files vectors under: the model and where it is served,
        since local servers often answer to any model name with whatever they loaded."""
        return f"{self.model}@{self.endpoint}"

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, endpoint={self.endpoint!r}, dim={self.dim})"

    def close(self) -> None:
        """Close the HTTP client and its connections."""
        self._client.close()

    # -- helpers -----------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secret)

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
                from chunkscope.engine.tokens import get_counter

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

    def _request(self, batch: list[str]) -> Any:
        """One embeddings call for `batch`, retried as the module docstring says."""
        sdk = self._sdk
        extra: dict[str, Any] = {}
        if self.dimensions is not None:
            extra["dimensions"] = self.dimensions
        attempt = 0
        while True:
            if self._wait_retry.stopped:
                raise self._error("stopped")
            asked: float | None = None
            self.requests += 1
            try:
                return self._client.embeddings.create(
                    model=self.model, input=batch, encoding_format="float", **extra
                )
            except sdk.APIStatusError as e:
                status = e.status_code
                detail = status_detail(e.body)
                if not retryable(status):
                    raise self._error(
                        f"HTTP {status}" + (f": {detail}" if detail else "")
                    ) from None
                reason = f"HTTP {status}"
                asked = retry_after(e.response.headers)
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
            if not self._wait_retry(self.retry.delay(attempt, asked)):
                raise self._error(f"{reason}; stopped") from None
            attempt += 1

    def stop(self) -> None:
        """Send no more requests: a wait between retries ends now and embedding fails
        (the workbench calls this when it quits)."""
        self._wait_retry.stop()

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
