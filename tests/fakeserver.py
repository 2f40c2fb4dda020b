"""A local OpenAI-compatible HTTP server for tests: embeddings and chat completions.

Usage::

    with FakeOpenAIServer(dim=8) as server:
        server.script(Fault.http(500), None)          # request 1 fails, request 2 works
        client = openai.OpenAI(base_url=server.base_url, api_key="k")
        ...
        assert len(server.requests_to("/embeddings")) == 2

It is a real HTTP server (``ThreadingHTTPServer`` on 127.0.0.1, port 0) in a
background thread. Behaviour:

* ``POST /v1/embeddings``: one deterministic vector per input (`fake_vector`, not
  unit length), width ``dim`` or the request's ``dimensions``; ``encoding_format``
  "float" or "base64". With ``reverse_order=True`` the items come back in reverse
  order (their ``index`` still right), to check that clients sort by index.
* ``POST /v1/chat/completions``: replies with ``chat_reply(body)`` (default: an echo
  of the last user message); ``"stream": true`` is answered as server-sent events.
* ``GET /v1/models``: a one-model list.

Misbehaviours: `script` queues one `Fault` (or None: behave) per coming request, in
order, whatever the path; when the queue is empty, the fault set by `always` (if
any) applies. Every request is recorded (method, path, headers, JSON body).
Sleeps are capped at ``max_sleep`` seconds and cut short when the server stops.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

FaultKind = Literal[
    "status", "malformed", "wrong_count", "wrong_dim", "ragged", "slow", "close", "gated"
]


def fake_vector(text: str, dim: int) -> list[float]:
    """The vector the server returns for `text`: deterministic, values in [-3, 3]."""
    out: list[float] = []
    counter = 0
    while len(out) < dim:
        digest = hashlib.sha256(f"{counter}\x00{text}".encode()).digest()
        for i in range(0, len(digest), 2):
            out.append((int.from_bytes(digest[i : i + 2], "little") / 65535.0 - 0.5) * 6.0)
        counter += 1
    return out[:dim]


@dataclass(frozen=True)
class Fault:
    """One misbehaviour for one request; build with the class methods."""

    kind: FaultKind
    status: int = 500
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    body: str | None = None
    gate: threading.Event | None = field(default=None, compare=False)

    @classmethod
    def http(cls, status: int, body: str | None = None, **headers: str) -> Fault:
        """Answer with `status` and a JSON error body (or `body`); `headers` as given
        (underscores in names become dashes: ``Retry_After="1"``)."""
        pairs = tuple((k.replace("_", "-"), v) for k, v in headers.items())
        return cls("status", status=status, headers=pairs, body=body)

    @classmethod
    def rate_limited(cls, retry_after: str | None = None) -> Fault:
        """429, with a ``Retry-After`` header when given."""
        pairs = (("Retry-After", retry_after),) if retry_after is not None else ()
        return cls("status", status=429, headers=pairs)

    @classmethod
    def malformed(cls) -> Fault:
        """200 with a body that is not valid JSON."""
        return cls("malformed")

    @classmethod
    def wrong_count(cls) -> Fault:
        """Embeddings: one vector fewer than inputs."""
        return cls("wrong_count")

    @classmethod
    def wrong_dim(cls, extra: int = 1) -> Fault:
        """Embeddings: every vector `extra` wider than usual."""
        return cls("wrong_dim", status=extra)

    @classmethod
    def ragged(cls) -> Fault:
        """Embeddings: the last vector one shorter than the others."""
        return cls("ragged")

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Sleep `seconds` (capped by the server's ``max_sleep``), then answer normally."""
        return cls("slow", seconds=seconds)

    @classmethod
    def gated(cls, gate: threading.Event, seconds: float = 5.0) -> Fault:
        """Hold the reply until `gate` is set (at most `seconds`, capped by the server's
        ``max_sleep``), then answer normally: lets a test line up concurrent clients."""
        return cls("gated", seconds=seconds, gate=gate)

    @classmethod
    def close(cls) -> Fault:
        """Close the connection without answering."""
        return cls("close")


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lowercased
    body: Any  # parsed JSON, or None
    raw: bytes = b""
    fault: Fault | None = None
    at: float = field(default_factory=time.monotonic)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeOpenAIServer


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.fake._handle(self, "GET")

    def do_POST(self) -> None:
        self.server.fake._handle(self, "POST")


class FakeOpenAIServer:
    """See the module docstring."""

    def __init__(
        self,
        *,
        dim: int = 8,
        chat_reply: Callable[[dict[str, Any]], str] | None = None,
        reverse_order: bool = False,
        max_sleep: float = 5.0,
        host: str = "127.0.0.1",
    ) -> None:
        self.host = host
        self.dim = dim
        self.chat_reply = chat_reply
        self.reverse_order = reverse_order
        self.max_sleep = max_sleep
        self._lock = threading.Lock()
        self._script: deque[Fault | None] = deque()
        self._always: Fault | None = None
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle --------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        server_type = _HTTPServer6 if ":" in self.host else _HTTPServer
        httpd = server_type((self.host, 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1`` (an IPv6 host in brackets: ``http://[::1]:<port>/v1``)"""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    # -- scripting, records ----------------------------------------------------------------

    def script(self, *faults: Fault | None) -> None:
        """Queue one fault (None: behave) for each coming request, in order."""
        with self._lock:
            self._script.extend(faults)

    def always(self, fault: Fault | None) -> None:
        """The fault for every request once the script is used up (None: behave)."""
        with self._lock:
            self._always = fault

    def reset(self) -> None:
        """Forget the script, the standing fault and the recorded requests."""
        with self._lock:
            self._script.clear()
            self._always = None
            self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        """Recorded requests whose path ends with `suffix` (e.g. "/embeddings")."""
        return [r for r in self.requests if r.path.split("?")[0].endswith(suffix)]

    # -- handling ----------------------------------------------------------------------

    def _next_fault(self) -> Fault | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
            return self._always

    def _handle(self, h: _Handler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(min(length, 64 * 1024 * 1024)) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        fault = self._next_fault()
        record = RecordedRequest(
            method=method,
            path=h.path,
            headers={k.lower(): v for k, v in h.headers.items()},
            body=body,
            raw=raw,
            fault=fault,
        )
        with self._lock:
            self._requests.append(record)
        # The client may have given up (e.g. its timeout ran out while we slept).
        with suppress(BrokenPipeError, ConnectionResetError, TimeoutError):
            self._respond(h, method, body, fault)

    def _send_json(
        self,
        h: _Handler,
        status: int,
        payload: Any,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            h.send_header(name, value)
        h.end_headers()
        h.wfile.write(data)

    def _respond(self, h: _Handler, method: str, body: Any, fault: Fault | None) -> None:
        if fault is not None:
            if fault.kind == "close":
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault.kind == "slow":
                self._stopping.wait(min(fault.seconds, self.max_sleep))
                if self._stopping.is_set():
                    return
            elif fault.kind == "gated" and fault.gate is not None:
                deadline = time.monotonic() + min(fault.seconds, self.max_sleep)
                while not fault.gate.wait(0.01) and time.monotonic() < deadline:
                    if self._stopping.is_set():
                        return
            elif fault.kind == "status":
                payload: Any = (
                    fault.body.encode()
                    if fault.body is not None
                    else {
                        "error": {
                            "message": f"fake failure {fault.status}",
                            "type": "server_error" if fault.status >= 500 else "invalid_request",
                            "code": None,
                        }
                    }
                )
                self._send_json(h, fault.status, payload, fault.headers)
                return
            elif fault.kind == "malformed":
                self._send_json(h, 200, b'{"object": "list", "data": [{"embedding": [0.1,')
                return

        path = h.path.split("?")[0]
        if method == "POST" and path.endswith("/embeddings"):
            self._embeddings(h, body if isinstance(body, dict) else {}, fault)
        elif method == "POST" and path.endswith("/chat/completions"):
            self._chat(h, body if isinstance(body, dict) else {})
        elif method == "GET" and path.endswith("/models"):
            models = [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]
            self._send_json(h, 200, {"object": "list", "data": models})
        else:
            error = {"message": f"no route {method} {path}", "type": "invalid_request"}
            self._send_json(h, 404, {"error": error})

    def _embeddings(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        inputs = body.get("input")
        if isinstance(inputs, str) or (
            isinstance(inputs, list) and inputs and isinstance(inputs[0], int)
        ):
            inputs = [inputs]
        if not isinstance(inputs, list):
            error = {"message": "'input' is required", "type": "invalid_request"}
            self._send_json(h, 400, {"error": error})
            return
        texts = [x if isinstance(x, str) else json.dumps(x) for x in inputs]
        dimensions = body.get("dimensions")
        dim = dimensions if isinstance(dimensions, int) and dimensions > 0 else self.dim
        kind = fault.kind if fault is not None else None
        if kind == "wrong_dim" and fault is not None:
            dim += fault.status
        vectors = [fake_vector(t, dim) for t in texts]
        if kind == "ragged" and vectors:
            vectors[-1] = vectors[-1][:-1]
        items: list[dict[str, Any]] = []
        for i, vec in enumerate(vectors):
            embedding: Any = vec
            if body.get("encoding_format") == "base64":
                embedding = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode()
            items.append({"object": "embedding", "index": i, "embedding": embedding})
        if kind == "wrong_count" and items:
            items.pop()
        if self.reverse_order:
            items.reverse()
        tokens = sum(len(t.split()) for t in texts)
        self._send_json(
            h,
            200,
            {
                "object": "list",
                "data": items,
                "model": str(body.get("model", "fake-embed")),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _chat(self, h: _Handler, body: dict[str, Any]) -> None:
        if self.chat_reply is not None:
            text = self.chat_reply(body)
        else:
            last = ""
            for message in body.get("messages") or []:
                if isinstance(message, dict) and message.get("role") == "user":
                    content = message.get("content")
                    last = content if isinstance(content, str) else json.dumps(content)
            text = f"fake reply to: {last[:200]}"
        model = str(body.get("model", "fake-chat"))
        created = int(time.time())
        with self._lock:
            n = len(self._requests)
        usage = {"prompt_tokens": 1, "completion_tokens": len(text.split()), "total_tokens": 1}
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
            self._send_json(
                h,
                200,
                {
                    "id": f"chatcmpl-fake-{n}",
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [choice],
                    "usage": usage,
                },
            )
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.end_headers()

        def event(delta: dict[str, Any], finish: str | None) -> bytes:
            chunk = {
                "id": f"chatcmpl-fake-{n}",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(chunk)}\n\n".encode()

        h.wfile.write(event({"role": "assistant", "content": ""}, None))
        for piece in _pieces(text):
            h.wfile.write(event({"content": piece}, None))
        h.wfile.write(event({}, "stop"))
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()


def _pieces(text: str) -> Iterator[str]:
    """`text` in word-sized pieces that join back to it."""
    start = 0
    for i, ch in enumerate(text):
        if ch == " " and i > start:
            yield text[start:i]
            start = i
    if start < len(text):
        yield text[start:]


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def summary_reply(body: dict[str, object]) -> str:
    """A chat reply in the summarizer's format (for tests that summarize)."""
    return "ABSTRACT: I moved the cache to SQLite.\nSUMMARY: I moved the cache; it survives."


def backend_env(
    server: FakeOpenAIServer, directory: Any, monkeypatch: Any, timeout: float
) -> dict[str, str]:
    """A clean slate for a test against `server`: its recorded requests and faults
    cleared, cache and config in `directory`, short timeouts and retries, no OpenAI
    settings from the environment. Returns the variables set."""
    server.reset()
    values = {
        "CHUNKSCOPE_CACHE_DIR": str(directory / "cache"),
        "CHUNKSCOPE_CONFIG_DIR": str(directory / "config"),
        "CHUNKSCOPE_HTTP_TIMEOUT": str(timeout),
        "CHUNKSCOPE_MAX_RETRIES": "1",
        "CHUNKSCOPE_BACKOFF": "0.01",
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return values
