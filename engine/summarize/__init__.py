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

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from chunkscope.engine.embed.cache import text_key
from chunkscope.engine.errors import ModelMissing
from chunkscope.engine.model import Chunk, Progress
from chunkscope.engine.summarize.base import (
    DEFAULT_WORKERS,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    Summarizer,
    Summary,
    SummaryCache,
    SummaryError,
    clean_summary,
    summary_input,
)
from chunkscope.engine.summarize.extractive import (
    MAX_SENTENCE_CHARS,
    ROLE_WEIGHTS,
    ExtractiveSummarizer,
    Sentence,
    split_sentences,
)
from chunkscope.engine.summarize.llm import LLMSummarizer, parse_reply

__all__ = [
    "DEFAULT_WORKERS",
    "MAX_SENTENCE_CHARS",
    "PROMPT_VERSION",
    "ROLE_WEIGHTS",
    "SUMMARIZERS",
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
    "summary_input",
]


#: The names `make_summarizer` accepts, the offline default first.
SUMMARIZERS = ("extractive", "llm")


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
            raise ModelMissing("the llm summarizer", "summarizer", "--summary-model")
        return LLMSummarizer(model, base_url, api_key, workers=workers, **kwargs)
    raise ValueError(f"unknown summarizer {name!r} ({' or '.join(SUMMARIZERS)})")


def cache_namespace(summarizer: Summarizer) -> str:
    """The cache namespace of a summarizer's summaries: name, model and prompt version.

    The model is the summarizer's ``cache_model`` when it has one (the LLM
    summarizer adds its endpoint).
    """
    model = getattr(summarizer, "cache_model", summarizer.model)
    return f"summary:{summarizer.name}:{model}:v{summarizer.prompt_version}"


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
    texts = [summary_input(c) if isinstance(c, Chunk) else c for c in chunks]
    total = len(texts)
    distinct = list(dict.fromkeys(texts))
    done: dict[str, Summary] = {}

    use_cache = cache is not None and getattr(summarizer, "cacheable", True)
    namespace = cache_namespace(summarizer)
    keys = {t: text_key(t) for t in distinct} if use_cache else {}
    if use_cache and cache is not None:
        found = cache.get_json_many(namespace, list(keys.values()))
        for t in distinct:
            hit = Summary.from_dict(found.get(keys[t]))
            if hit is not None:
                done[t] = clean_summary(hit)

    count = {t: 0 for t in distinct}
    for t in texts:
        count[t] += 1
    finished = sum(count[t] for t in done)
    if progress is not None and total:
        progress(finished, total)

    def record(t: str, s: Summary) -> None:
        nonlocal finished
        s = clean_summary(s)  # whoever wrote it: no fence left open, no wordless part
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
