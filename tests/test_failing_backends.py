"""Failing backends through the command line (issue 7, "Failing backends").

`chunkscope chunk --embed --embedder openai` and `chunkscope recap --summarizer llm`
run against `tests.fakeserver.FakeOpenAIServer` (a real HTTP server on 127.0.0.1)
that misbehaves on command. Timeouts, retries and backoff are kept short through
``CHUNKSCOPE_HTTP_TIMEOUT`` / ``CHUNKSCOPE_MAX_RETRIES`` / ``CHUNKSCOPE_BACKOFF``.
Every failure is one line naming the endpoint and the reason, exit status 2; what
was computed before the failure stays cached and a rerun asks only for the rest.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from chunkscope.engine.embed.cache import EmbeddingCache
from chunkscope.tui.cli import main
from tests.fakeserver import FakeOpenAIServer, Fault, backend_env, closed_port_url
from tests.hostile.proc import check_outcome, one_error_line

TIMEOUT = 0.3
#: The timeout of the tests whose server does answer: long enough for a loaded machine
#: (a batch of 256 vectors could take more than 0.3 s to come back, and the retry the
#: timeout caused made `test_500s_then_success` fail now and then).
ANSWERED_TIMEOUT = 10.0
#: 600 messages of two paragraphs: 601 distinct chunks, three batches (256, 256, 89).
MESSAGES = 600
BATCHES = [256, 256, 89]


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("backends") / "batches.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(MESSAGES):
            role = "user" if i % 2 else "assistant"
            text = f"Step {i}: the cache keeps vector {i}.\n\nThen part two of step {i}."
            ts = f"2026-02-13T10:{i // 60 % 60:02d}:{i % 60:02d}"
            fh.write(json.dumps({"role": role, "content": text, "timestamp": ts}) + "\n")
    return path


@pytest.fixture
def env(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    return backend_env(server, tmp_path, monkeypatch, ANSWERED_TIMEOUT)


def _embed(log: Path, url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    argv = ["chunk", str(log), "--embed", "--embedder", "openai", "--model", "emb"]
    code = main([*argv, "--base-url", url, "--min-chars", "0", "--merge", "seed"])
    out, err = capsys.readouterr()
    check_outcome(code, out, err)
    return code, out, err


def _batch_sizes(server: FakeOpenAIServer) -> list[int]:
    return [len(r.body["input"]) for r in server.requests_to("/embeddings")]


def _cached_vectors(env: dict[str, str]) -> int:
    with EmbeddingCache(Path(env["CHUNKSCOPE_CACHE_DIR"]) / "cache.sqlite3") as cache:
        return int(cache.info()["total_vectors"])


def test_500s_then_success(
    server: FakeOpenAIServer,
    env: dict[str, str],
    big_log: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_MAX_RETRIES", "2")
    server.script(None, Fault.http(500), Fault.http(503))
    code, out, err = _embed(big_log, server.base_url, capsys)
    assert code == 0, err
    # Batch 2 failed twice and was sent again; nothing else was repeated.
    assert _batch_sizes(server) == [256, 256, 256, 256, 89]
    sent = [r.body["input"] for r in server.requests_to("/embeddings")]
    assert sent[1] == sent[2] == sent[3]
    assert "=== After merging" in out
    assert _cached_vectors(env) == sum(BATCHES)


def test_429_retry_after_is_honoured(
    server: FakeOpenAIServer, env: dict[str, str], big_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.script(Fault.rate_limited("1"))
    code, _, err = _embed(big_log, server.base_url, capsys)
    assert code == 0, err
    first, second = server.requests_to("/embeddings")[:2]
    waited = second.at - first.at
    assert 0.95 <= waited < 2.5, waited  # the server's 1 s, not the 0.01 s backoff
    assert _batch_sizes(server) == [256, *BATCHES]


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault.malformed(), "unreadable reply (JSONDecodeError) after 1 retries"),
        (Fault.http(500), "HTTP 500 after 1 retries"),
        (Fault.close(), "cannot connect (Server disconnected without sending a response.)"),
    ],
)
def test_persistent_failures_name_endpoint_and_reason(
    server: FakeOpenAIServer,
    env: dict[str, str],
    big_log: Path,
    capsys: pytest.CaptureFixture[str],
    fault: Fault,
    reason: str,
) -> None:
    server.always(fault)
    code, out, err = _embed(big_log, server.base_url, capsys)
    assert code == 2 and out == ""
    assert one_error_line(err).startswith(f"chunkscope: {server.base_url}: {reason}")
    assert len(server.requests_to("/embeddings")) == 2  # the attempt and one retry


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault.wrong_count(), "wrong number of vectors: sent 256 inputs, got 255 vectors"),
        (Fault.wrong_dim(), "dimension 9 differs from 8 (earlier vectors)"),
        (Fault.ragged(), "vectors of different dimensions [7, 8] in one reply"),
    ],
)
def test_bad_replies_are_refused_and_earlier_batches_kept(
    server: FakeOpenAIServer,
    env: dict[str, str],
    big_log: Path,
    capsys: pytest.CaptureFixture[str],
    fault: Fault,
    reason: str,
) -> None:
    server.script(None, fault)
    code, out, err = _embed(big_log, server.base_url, capsys)
    assert code == 2 and out == ""
    assert one_error_line(err) == f"chunkscope: {server.base_url}: {reason}"
    assert _batch_sizes(server) == [256, 256]  # a bad reply is not retried
    assert _cached_vectors(env) == 256


def test_a_reply_that_never_comes_times_out(
    server: FakeOpenAIServer,
    env: dict[str, str],
    big_log: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_HTTP_TIMEOUT", str(TIMEOUT))
    server.always(Fault.slow(3))
    start = time.monotonic()
    code, out, err = _embed(big_log, server.base_url, capsys)
    elapsed = time.monotonic() - start
    assert code == 2 and out == ""
    assert one_error_line(err) == (
        f"chunkscope: {server.base_url}: timed out after {TIMEOUT:g} s after 1 retries"
    )
    assert elapsed < 2.5, elapsed  # two attempts of 0.3 s, not the server's 3 s


def test_connection_refused(
    env: dict[str, str], big_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = closed_port_url()
    code, out, err = _embed(big_log, url, capsys)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert line.startswith(f"chunkscope: {url}: cannot connect") and "after 1 retries" in line


def test_failure_mid_sequence_keeps_what_was_done_and_a_rerun_resumes(
    server: FakeOpenAIServer, env: dict[str, str], big_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.script(None, Fault.http(500), Fault.http(500))
    code, out, err = _embed(big_log, server.base_url, capsys)
    assert code == 2 and out == ""
    assert one_error_line(err) == f"chunkscope: {server.base_url}: HTTP 500 after 1 retries"
    first_run = [r.body["input"] for r in server.requests_to("/embeddings")]
    assert [len(x) for x in first_run] == [256, 256, 256]
    assert _cached_vectors(env) == 256  # batch 1 arrived and was stored at once

    server.reset()
    code, out, err = _embed(big_log, server.base_url, capsys)
    assert code == 0, err
    rerun = [r.body["input"] for r in server.requests_to("/embeddings")]
    assert [len(x) for x in rerun] == [256, 89]  # only the batches that were missing
    assert not set(first_run[0]) & {t for batch in rerun for t in batch}
    assert _cached_vectors(env) == sum(BATCHES)

    server.reset()
    code, again, err = _embed(big_log, server.base_url, capsys)
    assert code == 0 and again == out
    assert server.requests == []  # everything from the cache


def test_llm_summaries_survive_a_failure_and_resume(
    server: FakeOpenAIServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    log = Path(__file__).resolve().parent.parent / "sample_logs" / "cache_refactor.jsonl"
    argv = ["recap", str(log), "--summarizer", "llm", "--summary-model", "chat", "--workers", "1"]
    argv += ["--summary-base-url", server.base_url]
    server.script(None, None)
    server.always(Fault.http(502))
    code = main(argv)
    out, err = capsys.readouterr()
    check_outcome(code, out, err)
    assert code == 2 and out == ""
    assert one_error_line(err) == f"chunkscope: {server.base_url}: HTTP 502 after 1 retry"
    assert len(server.requests_to("/chat/completions")) == 4  # 2 answered, 1 failed twice

    server.reset()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    total = int(err.split("recap: ")[1].split(" of ")[1].split()[0])
    assert total > 2
    assert len(server.requests_to("/chat/completions")) == total - 2  # the rest only
    assert "I moved the cache to SQLite" in out or "I moved the cache; it survives" in out


def test_a_hostile_error_message_cannot_reach_the_terminal(
    server: FakeOpenAIServer, env: dict[str, str], big_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    message = "bad \x1b]0;pwned\x07 model \x1b[2J name\nsecond line \x9b31m"
    server.always(Fault.http(400, body=json.dumps({"error": {"message": message}})))
    code, out, err = _embed(big_log, server.base_url, capsys)
    assert code == 2 and out == ""
    line = one_error_line(err)  # one line, no control characters
    assert line.startswith(f"chunkscope: {server.base_url}: HTTP 400: bad ")
    assert "pwned" not in line and "\x9b" not in line and "second line" in line
    assert len(server.requests) == 1  # a 4xx other than 408/409/429 is not retried
