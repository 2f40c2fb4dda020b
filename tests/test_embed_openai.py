"""The OpenAI-compatible embedder and the cache in front of it, against a local fake server.

The real ``openai`` client talks HTTP to `tests.fakeserver.FakeOpenAIServer`; no
network is used. Retry waits are recorded instead of slept, except where a test
is about real timeouts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chunkscope.engine.embed import (
    CachedEmbedder,
    Embedder,
    EmbeddingCache,
    EmbeddingError,
    LexicalEmbedder,
    OpenAIEmbedder,
    make_embedder,
)
from chunkscope.engine.embed.cache import CACHE_FILENAME
from chunkscope.engine.tokens import get_counter
from tests.fakeserver import FakeOpenAIServer, Fault, closed_port_url, fake_vector

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-SECRET-0123456789abcdef"
DIM = 8


@pytest.fixture(autouse=True)
def _no_real_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(dim=DIM, reverse_order=True) as s:
        yield s


class Recorder:
    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.warnings: list[str] = []


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


def make(server: FakeOpenAIServer, rec: Recorder, **kwargs: Any) -> OpenAIEmbedder:
    options: dict[str, Any] = {
        "model": "fake-embed",
        "base_url": server.base_url,
        "api_key": KEY,
        "timeout": 2.0,
        "max_retries": 3,
        "backoff_base": 0.01,
        "warn": rec.warnings.append,
        "sleep": rec.sleeps.append,
    }
    options.update(kwargs)
    return OpenAIEmbedder(**options)


def expected(texts: list[str], dim: int = DIM) -> np.ndarray:
    rows = np.array([fake_vector(t, dim) for t in texts], dtype=np.float64)
    out: np.ndarray = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    return out


def texts_n(n: int, prefix: str = "text") -> list[str]:
    return [f"{prefix} number {i}" for i in range(n)]


# -- batching, replies --------------------------------------------------------------


def test_batches_of_batch_size_in_order(server: FakeOpenAIServer, rec: Recorder) -> None:
    emb = make(server, rec, batch_size=256)
    assert isinstance(emb, Embedder)
    texts = texts_n(600)
    progress: list[tuple[int, int]] = []
    out = emb.embed(texts, progress=lambda d, t: progress.append((d, t)))
    sent = server.requests_to("/embeddings")
    assert [len(r.body["input"]) for r in sent] == [256, 256, 88]
    assert [x for r in sent for x in r.body["input"]] == texts
    assert all(r.body["model"] == "fake-embed" for r in sent)
    assert all(r.body["encoding_format"] == "float" for r in sent)
    assert "dimensions" not in sent[0].body
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in sent)
    # The server answers in reverse order; rows follow `index`.
    assert out.shape == (600, DIM) and out.dtype == np.float32
    np.testing.assert_allclose(out, expected(texts), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-5)
    assert progress == [(256, 600), (512, 600), (600, 600)]
    assert emb.dim == DIM and emb.requests == 3


def test_blank_texts_are_not_sent_and_get_zero_rows(
    server: FakeOpenAIServer, rec: Recorder
) -> None:
    out = make(server, rec).embed(["alpha", "", "  \n", "beta"])
    (req,) = server.requests_to("/embeddings")
    assert req.body["input"] == ["alpha", "beta"]
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out[1:3], 0.0)
    np.testing.assert_allclose(out[[0, 3]], expected(["alpha", "beta"]), rtol=1e-5, atol=1e-6)


def test_dimensions_parameter_is_sent_and_checked(server: FakeOpenAIServer, rec: Recorder) -> None:
    emb = make(server, rec, dimensions=4)
    assert emb.dim == 4
    out = emb.embed(["a", "b"])
    assert out.shape == (2, 4)
    assert server.requests[-1].body["dimensions"] == 4
    server.script(Fault.wrong_dim())  # a server that ignores `dimensions`
    with pytest.raises(EmbeddingError, match="dimension 5 differs from 4"):
        emb.embed(["c"])


# -- retries ------------------------------------------------------------------------


def test_retries_after_500_then_succeeds(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.http(500), Fault.http(503))
    out = make(server, rec).embed(["a", "b"])
    np.testing.assert_allclose(out, expected(["a", "b"]), rtol=1e-5, atol=1e-6)
    assert len(server.requests) == 3
    assert rec.sleeps == [0.01, 0.02]  # exponential backoff


def test_retries_after_429_honouring_retry_after(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.rate_limited("7"), Fault.rate_limited("120"), Fault.rate_limited())
    out = make(server, rec, retry_after_cap=30.0).embed(["a"])
    np.testing.assert_allclose(out, expected(["a"]), rtol=1e-5, atol=1e-6)
    assert len(server.requests) == 4
    assert rec.sleeps == [7.0, 30.0, 0.04]  # as asked, capped, then plain backoff


def test_retry_after_ms_header_wins(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.http(429, Retry_After="9", retry_after_ms="250"))
    make(server, rec).embed(["a"])
    assert rec.sleeps == [0.25]


def test_real_backoff_sleeps_are_short(server: FakeOpenAIServer) -> None:
    server.script(Fault.http(500))
    emb = OpenAIEmbedder("m", base_url=server.base_url, api_key=KEY, backoff_base=0.01)
    assert emb.embed(["a"]).shape == (1, DIM)
    assert len(server.requests) == 2


def test_persistent_500_raises_naming_endpoint(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.always(Fault.http(500))
    with pytest.raises(EmbeddingError) as info:
        make(server, rec, max_retries=3).embed(["a"])
    assert str(info.value) == f"{server.base_url}: HTTP 500 after 3 retries"
    assert info.value.endpoint == server.base_url
    assert info.value.reason == "HTTP 500 after 3 retries"
    assert len(server.requests) == 4
    assert rec.sleeps == [0.01, 0.02, 0.04]


def test_client_errors_are_not_retried(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.always(Fault.http(404, body=json.dumps({"error": {"message": "model 'x' not found"}})))
    with pytest.raises(EmbeddingError, match=r"HTTP 404: model 'x' not found$"):
        make(server, rec).embed(["a"])
    assert len(server.requests) == 1 and rec.sleeps == []


def test_timeout_is_retried_then_raises(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.always(Fault.slow(2.0))
    emb = make(server, rec, timeout=0.2, max_retries=1)
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["a"])
    assert info.value.endpoint == server.base_url
    assert str(info.value).startswith(server.base_url + ": ")
    assert "timed out after 0.2 s after 1 retries" in str(info.value)
    assert len(server.requests) == 2


def test_timeout_then_success(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.slow(2.0))
    out = make(server, rec, timeout=0.2).embed(["a"])
    np.testing.assert_allclose(out, expected(["a"]), rtol=1e-5, atol=1e-6)
    assert len(server.requests) == 2 and rec.sleeps == [0.01]


def test_dropped_connection_is_retried(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.close())
    assert make(server, rec).embed(["a"]).shape == (1, DIM)
    assert len(server.requests) == 2


def test_connection_refused_raises_naming_endpoint(rec: Recorder) -> None:
    url = closed_port_url()
    emb = OpenAIEmbedder(
        "m", base_url=url, api_key=KEY, max_retries=2, backoff_base=0.01, sleep=rec.sleeps.append
    )
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["a"])
    assert info.value.endpoint == url
    assert str(info.value).startswith(f"{url}: cannot connect")
    assert str(info.value).endswith("after 2 retries")
    assert "\n" not in str(info.value)
    assert len(rec.sleeps) == 2


def test_malformed_json_is_retried_then_raises(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.malformed())
    assert make(server, rec).embed(["a"]).shape == (1, DIM)
    server.always(Fault.malformed())
    with pytest.raises(EmbeddingError, match=r"unreadable reply .* after 1 retries"):
        make(server, rec, max_retries=1).embed(["a"])


# -- reply validation ---------------------------------------------------------------


def test_wrong_number_of_vectors(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.wrong_count())
    with pytest.raises(EmbeddingError, match="wrong number of vectors: sent 3 inputs, got 2"):
        make(server, rec).embed(["a", "b", "c"])
    assert len(server.requests) == 1


def test_wrong_dimension_against_earlier_batch(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(None, Fault.wrong_dim(3))
    emb = make(server, rec, batch_size=2)
    with pytest.raises(EmbeddingError, match="dimension 11 differs from 8"):
        emb.embed(["a", "b", "c", "d"])
    # ... and against earlier calls too.
    server.script(Fault.wrong_dim(1))
    with pytest.raises(EmbeddingError, match="dimension 9 differs from 8"):
        emb.embed(["e"])


def test_ragged_dimensions_in_one_reply(server: FakeOpenAIServer, rec: Recorder) -> None:
    server.script(Fault.ragged())
    with pytest.raises(EmbeddingError, match="different dimensions"):
        make(server, rec).embed(["a", "b"])


# -- truncation, keys ---------------------------------------------------------------


def test_over_long_input_is_truncated_with_a_warning(
    server: FakeOpenAIServer, rec: Recorder
) -> None:
    long_text = " ".join(f"word{i}" for i in range(400))
    emb = make(server, rec, max_input_tokens=50)
    emb.embed(["short text", long_text])
    (req,) = server.requests_to("/embeddings")
    short_sent, long_sent = req.body["input"]
    assert short_sent == "short text"
    assert long_text.startswith(long_sent) and len(long_sent) < len(long_text)
    counter = get_counter()
    assert counter.count(long_sent) <= 50
    assert len(rec.warnings) == 1
    assert "1 input(s) over 50 tokens truncated" in rec.warnings[0]


def test_truncation_warns_through_warnings_by_default(server: FakeOpenAIServer) -> None:
    emb = OpenAIEmbedder("m", base_url=server.base_url, api_key=KEY, max_input_tokens=5)
    with pytest.warns(UserWarning, match="truncated"):
        emb.embed(["one two three four five six seven eight nine ten"])


def test_api_key_never_in_errors_warnings_or_repr(server: FakeOpenAIServer, rec: Recorder) -> None:
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})
    server.always(Fault.http(401, body=echo))
    emb = make(server, rec, max_input_tokens=3)
    with pytest.raises(EmbeddingError) as info:
        emb.embed([f"a text that mentions {KEY} and is long"])
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert "***" in str(info.value) and "HTTP 401" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert all(KEY not in w for w in rec.warnings) and rec.warnings
    assert KEY not in repr(emb)
    server.always(Fault.http(500, body=echo))
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["x"])
    assert KEY not in str(info.value)
    refused = OpenAIEmbedder("m", base_url=closed_port_url(), api_key=KEY, max_retries=0)
    with pytest.raises(EmbeddingError) as info:
        refused.embed(["x"])
    assert KEY not in str(info.value)


def test_credentials_in_the_url_are_not_shown(server: FakeOpenAIServer, rec: Recorder) -> None:
    url = server.base_url.replace("http://", "http://user:hunter2@")
    emb = make(server, rec, base_url=url)
    assert emb.endpoint == server.base_url
    assert "hunter2" not in repr(emb)


def test_openai_without_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbeddingError, match="no API key: set OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-small")
    with pytest.raises(EmbeddingError, match="--embedder lexical"):
        make_embedder("openai", base_url="https://api.openai.com/v1/")


def test_local_endpoint_without_key_gets_a_placeholder(
    server: FakeOpenAIServer, rec: Recorder
) -> None:
    emb = OpenAIEmbedder("m", base_url=server.base_url)
    emb.embed(["a"])
    assert server.requests[-1].headers["authorization"] == "Bearer not-needed"


def test_base_url_and_key_from_environment(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url + "/")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    emb = OpenAIEmbedder("m")
    assert emb.endpoint == server.base_url
    emb.embed(["a"])
    assert server.requests[-1].headers["authorization"] == f"Bearer {KEY}"


# -- the cache in front -------------------------------------------------------------


def test_second_run_through_cache_sends_nothing(
    server: FakeOpenAIServer, rec: Recorder, tmp_path: Path
) -> None:
    path = tmp_path / CACHE_FILENAME
    texts = [*texts_n(300), "text number 5", ""]  # a duplicate and a blank
    first = CachedEmbedder(make(server, rec, batch_size=100), EmbeddingCache(path))
    out1 = first.embed(texts)
    assert [len(r.body["input"]) for r in server.requests] == [100, 100, 100]  # deduplicated
    assert (first.last.requests, first.last.hits, first.last.misses) == (301, 0, 301)
    np.testing.assert_array_equal(out1[-1], 0.0)
    np.testing.assert_allclose(out1[:-1], expected(texts[:-1]), rtol=1e-5, atol=1e-6)

    # A fresh embedder and cache object (as in a new process): the width is unknown
    # to the embedder, yet nothing is sent.
    server.reset()
    again = CachedEmbedder(make(server, rec, batch_size=100), EmbeddingCache(path))
    assert again.inner.dim == 0 and again.dim == DIM
    out2 = again.embed(texts)
    assert server.requests == []
    np.testing.assert_array_equal(out1, out2)
    assert again.summary() == "cache 301/301"
    assert (again.requests, again.hits, again.misses, again.batches) == (301, 301, 0, 0)


def test_partial_hits_send_only_misses(
    server: FakeOpenAIServer, rec: Recorder, tmp_path: Path
) -> None:
    emb = CachedEmbedder(make(server, rec), EmbeddingCache(tmp_path / CACHE_FILENAME))
    emb.embed(["a", "b"])
    server.reset()
    progress: list[tuple[int, int]] = []
    out = emb.embed(["b", "c", "a", "d"], progress=lambda d, t: progress.append((d, t)))
    (req,) = server.requests
    assert req.body["input"] == ["c", "d"]
    np.testing.assert_allclose(out, expected(["b", "c", "a", "d"]), rtol=1e-5, atol=1e-6)
    assert emb.summary() == "cache 2/4"
    assert progress == [(2, 4), (4, 4)]


def test_failure_midway_keeps_earlier_batches(
    server: FakeOpenAIServer, rec: Recorder, tmp_path: Path
) -> None:
    path = tmp_path / CACHE_FILENAME
    texts = texts_n(50)
    server.script(None, None)
    server.always(Fault.http(500))
    emb = CachedEmbedder(make(server, rec, batch_size=10, max_retries=1), EmbeddingCache(path))
    with pytest.raises(EmbeddingError, match="HTTP 500 after 1 retries"):
        emb.embed(texts)
    assert EmbeddingCache(path).info()["total_vectors"] == 20

    server.reset()
    rerun = CachedEmbedder(make(server, rec, batch_size=10), EmbeddingCache(path))
    out = rerun.embed(texts)
    sent = [x for r in server.requests for x in r.body["input"]]
    assert sent == texts[20:]
    assert len(server.requests) == 3
    np.testing.assert_allclose(out, expected(texts), rtol=1e-5, atol=1e-6)
    assert rerun.summary() == "cache 20/50"


def test_model_width_change_behind_the_cache_is_an_error(
    server: FakeOpenAIServer, rec: Recorder, tmp_path: Path
) -> None:
    path = tmp_path / CACHE_FILENAME
    CachedEmbedder(make(server, rec), EmbeddingCache(path)).embed(["a"])
    server.dim = DIM + 4  # the server now runs another model under the same name
    emb = CachedEmbedder(make(server, rec), EmbeddingCache(path))
    with pytest.raises(EmbeddingError, match="clear the embedding cache"):
        emb.embed(["a", "b"])


def test_cache_keys_include_the_endpoint(
    server: FakeOpenAIServer, rec: Recorder, tmp_path: Path
) -> None:
    cache = EmbeddingCache(tmp_path / CACHE_FILENAME)
    CachedEmbedder(make(server, rec), cache).embed(["a"])
    with FakeOpenAIServer(dim=DIM) as other:
        CachedEmbedder(make(other, rec), cache).embed(["a"])
        assert len(other.requests) == 1


def test_factory(server: FakeOpenAIServer, tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / CACHE_FILENAME)
    cached = make_embedder(
        "openai", model="fake-embed", base_url=server.base_url, cache=cache, batch_size=7
    )
    assert isinstance(cached, CachedEmbedder) and cached.batch_size == 7
    assert (cached.name, cached.model) == ("openai", "fake-embed")
    plain = make_embedder("OpenAI", model="fake-embed", base_url=server.base_url, dim=4)
    assert isinstance(plain, OpenAIEmbedder) and plain.dim == 4
    assert isinstance(make_embedder("lexical", cache=cache), LexicalEmbedder)
    with pytest.raises(EmbeddingError, match="unknown embedder 'bert'"):
        make_embedder("bert")


def test_lexical_embedder_is_not_cacheable(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot be cached"):
        CachedEmbedder(LexicalEmbedder(), EmbeddingCache(tmp_path / CACHE_FILENAME))


def test_importing_engine_embed_does_not_import_openai() -> None:
    code = (
        "import sys, chunkscope.engine.embed\n"
        "chunkscope.engine.embed.make_embedder('lexical').embed(['x'])\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT, timeout=60)


def test_fake_server_chat_completions_for_other_tests() -> None:
    import openai

    def reply(body: dict[str, Any]) -> str:
        return f"summary of {len(body['messages'])} messages"

    with FakeOpenAIServer(chat_reply=reply) as s:
        client = openai.OpenAI(base_url=s.base_url, api_key=KEY, max_retries=0, timeout=5)
        messages: Any = [{"role": "user", "content": "hi"}]
        done = client.chat.completions.create(model="m", messages=messages)
        assert done.choices[0].message.content == "summary of 1 messages"
        stream = client.chat.completions.create(model="m", messages=messages, stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "summary of 1 messages"
        s.script(Fault.http(503))
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=messages)
        assert [r.path for r in s.requests_to("/chat/completions")] == ["/v1/chat/completions"] * 3
