"""engine.backend: the one client module (retries, endpoint display, key) and `resolve`.

Every HTTP test runs the real ``openai`` client against `tests.fakeserver`; waits are
recorded instead of slept. The three remote callers (embedder, LLM summarizer,
episodic detector) are checked to behave alike, since their copies had drifted.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.backend import (
    PLACEHOLDER_KEY,
    MissingKeyError,
    RetryPolicy,
    display_endpoint,
    resolve_key,
    retry_after,
    scrub,
)
from chunkscope.engine.chunk.strategies import get_strategy
from chunkscope.engine.chunk.strategies.episodic import llm_boundaries
from chunkscope.engine.config.settings import (
    Backend,
    EmbedderSettings,
    Settings,
    SummarizerSettings,
    resolve_backend,
)
from chunkscope.engine.config.settings import resolve_backend as resolve
from chunkscope.engine.embed import EmbeddingError, OpenAIEmbedder
from chunkscope.engine.model import Turn
from chunkscope.engine.summarize import LLMSummarizer, SummaryError
from chunkscope.engine.tokens import get_counter
from tests.fakeserver import FakeOpenAIServer, Fault, summary_reply

KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_real_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def chat_reply(body: dict[str, Any]) -> str:
    """A boundary reply for the episodic detector, a summary for anyone else."""
    if "response_format" in body:
        return json.dumps({"reasoning": "r", "boundaries": [2], "should_wait": False})
    return summary_reply(body)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(dim=4, chat_reply=chat_reply) as s:
        yield s


@pytest.fixture
def fresh(server: FakeOpenAIServer) -> FakeOpenAIServer:
    server.reset()
    return server


def http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


# --------------------------------------------------------------------------- pure parts


def test_retry_after_forms() -> None:
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 12, usegmt=True)
    assert retry_after({"retry-after": "7"}) == 7.0
    assert retry_after({"retry-after": "1.5"}) == 1.5
    assert retry_after({"retry-after": date}, now=now) == pytest.approx(12.0)
    assert retry_after({"retry-after": email.utils.formatdate(now - 60, usegmt=True)}, now) == 0
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after-ms": "junk", "retry-after": "9"}) == 9.0
    assert retry_after({"retry-after": "-3"}) == 0.0
    for bad in ("soon", "nan", "inf", ""):
        assert retry_after({"retry-after": bad}) is None
    assert retry_after({}) is None and retry_after(None) is None


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_retry_after_never_negative_nor_raises(ms: str, value: str) -> None:
    got = retry_after({"retry-after-ms": ms, "retry-after": value})
    assert got is None or got >= 0


def test_policy_bounds_every_wait() -> None:
    policy = RetryPolicy(max_retries=5, backoff=1.0, backoff_max=4.0, retry_after_cap=10.0)
    assert [policy.delay(n, None) for n in range(5)] == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert policy.delay(0, 3.0) == 3.0
    assert policy.delay(0, 3600.0) == 10.0


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
        ("http://[::1]:8080/v1/", "http://[::1]:8080/v1"),
        ("http://user:pw@[fe80::1]/v1?api-key=sk-x", "http://[fe80::1]/v1"),
        ("https://api.openai.com/v1/", "https://api.openai.com/v1"),
        ("http://u:p@127.0.0.1:1/v1/", "http://127.0.0.1:1/v1"),
        ("localhost:8080/v1?key=x", "localhost:8080/v1"),
    ],
)
def test_display_endpoint(url: str, shown: str) -> None:
    assert display_endpoint(url) == shown


def test_key_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_key("k1", "http://127.0.0.1/v1") == "k1"
    assert resolve_key(None, "http://127.0.0.1/v1") == PLACEHOLDER_KEY
    with pytest.raises(MissingKeyError):
        resolve_key(None, "https://api.openai.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    assert resolve_key(None, "https://api.openai.com/v1") == "env-key"
    assert scrub(f"bad key {KEY}!", KEY) == "bad key ***!"
    assert scrub(f"kept {PLACEHOLDER_KEY}", PLACEHOLDER_KEY).endswith(PLACEHOLDER_KEY)


# --------------------------------------------------------------------------- the three callers


@dataclass
class Caller:
    """One remote caller, made to retry with recorded waits."""

    name: str
    run: Callable[[FakeOpenAIServer, list[float]], object]


def _embed(server: FakeOpenAIServer, sleeps: list[float]) -> object:
    emb = OpenAIEmbedder(
        "m", server.base_url, KEY, max_retries=3, backoff_base=0.01, sleep=sleeps.append
    )
    return emb.embed(["a"])


def _chat(server: FakeOpenAIServer, sleeps: list[float]) -> object:
    s = LLMSummarizer(
        "m",
        server.base_url,
        KEY,
        max_retries=3,
        backoff=0.01,
        max_backoff=60.0,
        sleep=sleeps.append,
    )
    return s.complete("text")


def _turns(n: int = 4) -> list[Turn]:
    t0 = datetime(2025, 1, 1, 9)
    return [Turn(t0 + timedelta(minutes=i), "You", f"m {i}", i + 1, i) for i in range(n)]


def _episodic(server: FakeOpenAIServer, sleeps: list[float]) -> object:
    policy = RetryPolicy(max_retries=3, backoff=0.01, retry_after_cap=60.0)
    return llm_boundaries(_turns(), server.base_url, "m", 2.0, retry=policy, sleep=sleeps.append)


CALLERS = [Caller("embeddings", _embed), Caller("chat", _chat), Caller("episodic", _episodic)]


@pytest.mark.parametrize("caller", CALLERS, ids=lambda c: c.name)
def test_retry_after_seconds(fresh: FakeOpenAIServer, caller: Caller) -> None:
    fresh.script(Fault.rate_limited("7"), Fault.rate_limited("120"), Fault.http(503))
    sleeps: list[float] = []
    caller.run(fresh, sleeps)
    assert sleeps == [7.0, 60.0, 0.04]  # as asked, capped at 60, then plain backoff
    assert len(fresh.requests) == 4


@pytest.mark.parametrize("caller", CALLERS, ids=lambda c: c.name)
def test_retry_after_http_date(fresh: FakeOpenAIServer, caller: Caller) -> None:
    start = time.time()
    fresh.script(Fault.rate_limited(http_date(30)))
    sleeps: list[float] = []
    caller.run(fresh, sleeps)
    taken = time.time() - start  # a loaded machine answers seconds later: the date stays
    # the date's own second lost, and the time the request took, come off the 30 s
    assert len(sleeps) == 1 and 30.0 - 1.0 - taken <= sleeps[0] <= 30.0, (sleeps, taken)


@pytest.mark.parametrize("caller", CALLERS, ids=lambda c: c.name)
def test_retry_after_ms(fresh: FakeOpenAIServer, caller: Caller) -> None:
    fresh.script(Fault.http(429, Retry_After="9", retry_after_ms="250"))
    sleeps: list[float] = []
    caller.run(fresh, sleeps)
    assert sleeps == [0.25]


@pytest.mark.parametrize("caller", CALLERS, ids=lambda c: c.name)
def test_client_errors_are_not_retried(fresh: FakeOpenAIServer, caller: Caller) -> None:
    fresh.script(Fault.http(401, body=f'{{"error": {{"message": "Incorrect key {KEY}"}}}}'))
    sleeps: list[float] = []
    with pytest.raises(Exception) as info:
        caller.run(fresh, sleeps)
    assert sleeps == [] and len(fresh.requests) == 1
    if caller.name != "episodic":  # the strategy scrubs its error (see below)
        assert KEY not in str(info.value) and "***" in str(info.value)


def test_ipv6_endpoint_is_shown_with_brackets() -> None:
    with FakeOpenAIServer(dim=4, chat_reply=summary_reply, host="::1") as server:
        url = server.base_url
        assert url.startswith("http://[::1]:")
        emb = OpenAIEmbedder("m", url + "/", KEY)
        summ = LLMSummarizer("m", url + "/", KEY, max_retries=0)
        assert emb.endpoint == summ.endpoint == url
        assert summ.cache_model == f"m@{url}"
        assert emb.embed(["x"]).shape == (1, 4)
        assert summ.complete("x")  # the endpoint really is reachable as shown
        server.always(Fault.http(500))
        with pytest.raises(SummaryError) as info:
            summ.complete("x")
        assert str(info.value).startswith(f"{url}: HTTP 500")


def test_key_never_in_repr_or_errors(fresh: FakeOpenAIServer) -> None:
    url = f"{fresh.base_url}?api-key={KEY}"
    emb = OpenAIEmbedder("m", url, KEY, max_retries=0)
    summ = LLMSummarizer("m", url, KEY, max_retries=0)
    for obj in (
        emb,
        summ,
        resolve_backend("embedder", settings=Settings(embedder=EmbedderSettings(api_key=KEY))),
    ):
        assert KEY not in repr(obj)
    fresh.always(Fault.http(400, body=f'{{"error": {{"message": "bad key {KEY}"}}}}'))
    for call, error in (
        (lambda: emb.embed(["a"]), EmbeddingError),
        (lambda: summ.complete("a"), SummaryError),
    ):
        with pytest.raises(error) as info:
            call()
        assert KEY not in str(info.value) and "bad key ***" in str(info.value)


def test_episodic_uses_the_one_placeholder_key(fresh: FakeOpenAIServer) -> None:
    llm_boundaries(_turns(), fresh.base_url, "m", 2.0)
    assert fresh.requests[-1].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


def test_episodic_scrubs_a_rejected_key(
    fresh: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fresh.always(Fault.http(401, body=f'{{"error": {{"message": "Incorrect key {KEY}"}}}}'))
    params: dict[str, Any] = {
        "llm_base_url": fresh.base_url,
        "max_messages": 20,
        "min_chunk_tokens": 0,
    }
    res = get_strategy("episodic", params).split(_turns(12), get_counter())
    error = res.info["llm_error"]
    assert "401" in error and KEY not in error and "***" in error
    assert res.info["detector"] == "offline (llm failed)"


# --------------------------------------------------------------------------- resolve


def test_resolve_flags_win_then_config_then_default() -> None:
    cfg = Settings(
        embedder=EmbedderSettings("openai", "cfg-model", "http://cfg/v1", KEY),
        summarizer=SummarizerSettings(None, "chat-model", None, None),
    )
    assert resolve("embedder", settings=cfg) == Backend("openai", "cfg-model", "http://cfg/v1", KEY)
    assert resolve("embedder", "openai", "flag-model", "http://flag/v1", settings=cfg) == Backend(
        "openai", "flag-model", "http://flag/v1", KEY
    )
    # another backend than the config names: nothing of the config's is inherited
    assert resolve("embedder", "lexical", settings=cfg) == Backend("lexical", None, None, None)
    # the config names no backend: the default, with the config's model
    assert resolve("summarizer", settings=cfg) == Backend("extractive", "chat-model", None, None)
    assert resolve("summarizer", "llm", settings=cfg).model == "chat-model"
    assert resolve("embedder", settings=Settings()).name == "lexical"
    assert resolve("embedder", settings=Settings(), default="openai").name == "openai"


# --------------------------------------------------------------------------- stopping


def _stop_during_backoff(
    server: FakeOpenAIServer, path: str, call: Callable[[], Any], stop: Callable[[], None]
) -> BaseException:
    """Run `call` in a thread against a server that answers 503; once the first request
    is in, `stop` the client. Returns the exception the call ended with."""
    import threading

    server.always(Fault.http(503))
    ended: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as e:  # the test reads what it ended with
            ended.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.requests_to(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    stop()
    # the backoff is 30 s: the call ends now because of the stop, not after the wait
    thread.join(timeout=10)
    assert not thread.is_alive()
    server.always(None)
    return ended[0]


def test_a_stopped_summarizer_ends_its_backoff_and_sends_nothing_more(
    fresh: FakeOpenAIServer,
) -> None:
    llm = LLMSummarizer("m", base_url=fresh.base_url, api_key=KEY, max_retries=5, backoff=30.0)
    error = _stop_during_backoff(fresh, "/chat/completions", lambda: llm.summarize("x"), llm.stop)
    assert isinstance(error, SummaryError)
    assert "HTTP 503; stopped" in str(error)
    assert len(fresh.requests_to("/chat/completions")) == 1
    with pytest.raises(SummaryError, match="stopped"):  # and it sends nothing from now on
        llm.summarize("y")
    assert len(fresh.requests_to("/chat/completions")) == 1


def test_a_stopped_embedder_ends_its_backoff_and_sends_nothing_more(
    fresh: FakeOpenAIServer,
) -> None:
    emb = OpenAIEmbedder(
        "e", base_url=fresh.base_url, api_key=KEY, max_retries=5, backoff_base=30.0
    )
    error = _stop_during_backoff(fresh, "/embeddings", lambda: emb.embed(["a"]), emb.stop)
    assert isinstance(error, EmbeddingError)
    assert "HTTP 503; stopped" in str(error)
    assert len(fresh.requests_to("/embeddings")) == 1
    with pytest.raises(EmbeddingError, match="stopped"):
        emb.embed(["b"])
    assert len(fresh.requests_to("/embeddings")) == 1


def test_a_retry_wait_with_a_sleep_still_obeys_stop() -> None:
    from chunkscope.engine.backend import RetryWait

    slept: list[float] = []
    wait = RetryWait(slept.append)
    assert wait(1.5) is True and slept == [1.5]
    wait.stop()
    assert wait(2.0) is False and wait.stopped
