#!/usr/bin/env python3
# ruff: noqa: E501
"""Regenerate the bundled JSONL sample logs in ``sample_logs/``.

Run with plain ``python3 tests/data/make_sample_logs.py`` from anywhere. The output is
deterministic: timestamps advance by amounts drawn from a seeded ``random.Random`` and
token usage is derived from the text already written, so running the script twice gives
byte-identical files.

Files written:

- ``cache_refactor.jsonl``: moving an embedding cache from a dict into SQLite,
  benchmarking it, then fixing a model-mismatch bug the persistence exposed.
- ``docs_cleanup.jsonl``: reorganising a docs tree, then a flaky CI test, then a
  release checklist.
- ``research_notes.jsonl``: tide pool notes for a school talk, an overnight gap, then
  planning a family trip to Portugal.
- ``markup_injection.jsonl``: a small hostile log full of Rich/Textual markup, ANSI
  escapes, emoji and wide characters, to prove log text is rendered as data.

After writing, every file is validated (see ``validate``); the script exits non-zero if
a check fails.
"""

from __future__ import annotations

import calendar
import json
import random
import sys
import textwrap
from collections.abc import Iterable
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "sample_logs"

KNOWN_TOOLS = (
    "status",
    "read",
    "ls",
    "recall",
    "recall_detail",
    "edit",
    "write",
    "remember",
    "ask",
    "run",
    "done",
)
ARG_KEYS: dict[str, set[str]] = {
    "status": set(),
    "read": {"path"},
    "ls": {"path"},
    "recall": {"query"},
    "recall_detail": {"chunk_id"},
    "edit": {"path", "old", "new"},
    "write": {"path", "content"},
    "remember": {"abstract", "text"},
    "ask": {"message"},
    "run": {"command"},
    "done": {"summary"},
}


# --------------------------------------------------------------------------- helpers


def D(s: str) -> str:
    """Dedent a triple-quoted block verbatim (file contents, command output)."""
    return textwrap.dedent(s).strip("\n")


_KEEP_BREAK = ("- ", "* ", "| ", "  ", "> ")


def T(s: str) -> str:
    """Prose helper: dedent, then unwrap hard-wrapped lines inside each paragraph.

    Paragraphs stay separated by a blank line ("\\n\\n"). Lines that start a list
    item or a table row keep their line break, so markdown lists survive.
    """
    paras = textwrap.dedent(s).strip().split("\n\n")
    out = []
    for para in paras:
        lines = para.split("\n")
        buf = lines[0]
        for line in lines[1:]:
            head = line.lstrip()
            numbered = head[:1].isdigit() and head[1:3] in (". ", ") ")
            if line.startswith(_KEEP_BREAK) or head.startswith(_KEEP_BREAK[:3]) or numbered:
                buf += "\n" + line
            elif buf.endswith("-") and buf[-2:-1].isalpha():
                buf += line.strip()  # a hyphenated word broken across lines
            else:
                buf += " " + line.strip()
        out.append(buf)
    return "\n\n".join(out)


def C(
    name: str, args: dict[str, Any] | str, result: str, secs: tuple[int, int] = (1, 4)
) -> dict[str, Any]:
    """One tool call with its result; secs is the range of seconds the tool took."""
    return {"name": name, "args": args, "result": result, "secs": secs}


class Log:
    """Accumulates messages with increasing timestamps and plausible token usage."""

    def __init__(self, name: str, start: str, seed: int, base_prompt: int = 2300) -> None:
        self.name = name
        self.t = datetime.fromisoformat(start)
        self.rng = random.Random(seed)
        self.rows: list[dict[str, Any]] = []
        self.n_calls = 0
        self.chars = 0
        self.base_prompt = base_prompt

    def _stamp(self, lo: int, hi: int) -> str:
        self.t += timedelta(seconds=self.rng.randint(lo, hi))
        return self.t.isoformat(timespec="seconds")

    def wait(self, **kw: float) -> None:
        self.t += timedelta(**kw)

    def _add(self, msg: dict[str, Any]) -> None:
        self.rows.append(msg)
        self.chars += len(json.dumps(msg, ensure_ascii=False))

    def user(self, text: str, lo: int = 25, hi: int = 110) -> None:
        self._add({"role": "user", "content": text, "timestamp": self._stamp(lo, hi)})

    def system(self, text: str) -> None:
        self._add({"role": "system", "content": text, "timestamp": self._stamp(1, 2)})

    def bot(
        self,
        content: str = "",
        reasoning: str | None = None,
        calls: Iterable[dict[str, Any]] = (),
        usage: bool = True,
        lo: int = 5,
        hi: int = 35,
    ) -> None:
        calls = list(calls)
        msg: dict[str, Any] = {"role": "assistant", "content": content}
        if reasoning:
            msg["reasoning"] = reasoning
        tool_calls = []
        for c in calls:
            if c["name"] == "write" and c["result"] == "":
                # the harness reports how many lines it wrote
                n = len(c["args"]["content"].splitlines())
                c["result"] = f"Wrote {n} lines to {c['args']['path']}"
            self.n_calls += 1
            args = c["args"]
            arg_str = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            tool_calls.append(
                {
                    "id": f"call_{self.n_calls}",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": arg_str},
                }
            )
        if tool_calls:
            msg["tool_calls"] = tool_calls
        # usage is optional in the format; leave it off now and then, as real logs do
        if usage and self.rng.random() < 0.85:
            out_chars = (
                len(content)
                + len(reasoning or "")
                + sum(len(tc["function"]["arguments"]) for tc in tool_calls)
            )
            msg["usage"] = {
                "prompt_tokens": self.base_prompt + self.chars // 4,
                "completion_tokens": out_chars // 4 + 9 + 14 * len(tool_calls),
            }
        msg["timestamp"] = self._stamp(lo, hi)
        self._add(msg)
        for tc, c in zip(tool_calls, calls, strict=True):
            self._add(
                {
                    "role": "tool",
                    "tool_call_id": tc["id"],
                    "content": c["result"],
                    "timestamp": self._stamp(*c["secs"]),
                }
            )

    def stats_line(self) -> str:
        msgs = len(self.rows)
        prompt = sum(r.get("usage", {}).get("prompt_tokens", 0) for r in self.rows)
        completion = sum(r.get("usage", {}).get("completion_tokens", 0) for r in self.rows)
        first = datetime.fromisoformat(self.rows[0]["timestamp"])
        wall = self.t - first
        minutes = int(wall.total_seconds() // 60)
        return (
            f"[stats] {msgs} messages, {self.n_calls} tool calls, "
            f"{prompt:,} prompt tokens, {completion:,} completion tokens, "
            f"wall time {minutes // 60}h{minutes % 60:02d}m"
        )

    def finalize_budget(self) -> None:
        """Fill the budget figures of status results from the usage actually logged.

        The budget is cumulative (prompt + completion tokens over the session) and is
        chosen so that the "Warning: 80% of token budget used" message sits where it was
        placed. Status results use {budget}, {used} and {pct} placeholders.
        """
        cum = 0
        used_at: list[int] = []
        warn_at = None
        for row in self.rows:
            used_at.append(cum)
            u = row.get("usage")
            if u:
                cum += u["prompt_tokens"] + u["completion_tokens"]
            if row["role"] == "system" and row["content"].startswith("Warning: 80%"):
                warn_at = used_at[-1]
        assert warn_at is not None, f"{self.name}: no budget warning placed"
        budget = int(warn_at / 0.8) // 10_000 * 10_000
        calls = {}
        for i, row in enumerate(self.rows):
            for tc in row.get("tool_calls", []):
                calls[tc["id"]] = (tc["function"]["name"], used_at[i])
            if row["role"] == "tool" and calls.get(row["tool_call_id"], ("",))[0] == "status":
                used = calls[row["tool_call_id"]][1]
                row["content"] = row["content"].format(
                    budget=f"{budget:,}", used=f"{used:,}", pct=f"{100 * used / budget:.1f}"
                )

    def write(self) -> Path:
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / self.name
        with path.open("w", encoding="utf-8", newline="\n") as fh:
            for row in self.rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        return path


# =========================================================== session 1: cache refactor

EMBED_CACHE_PY = D('''
    """In-memory cache for text embeddings.

    The chunker embeds every chunk of a log before merging, and the same log is
    usually opened many times while a user tunes thresholds. Embedding is the
    slow part (a network round trip or a local model forward pass), so vectors
    are cached by the text they were computed from.

    This version keeps everything in a process-local dict. It is fast, but it
    forgets everything when the TUI exits.
    """

    from __future__ import annotations

    import hashlib
    import logging
    import threading
    import time
    from collections import OrderedDict
    from collections.abc import Callable, Iterable, Sequence
    from dataclasses import dataclass, field

    import numpy as np

    log = logging.getLogger(__name__)

    Vector = np.ndarray
    EmbedFn = Callable[[Sequence[str]], "list[Vector]"]

    DEFAULT_MAX_ENTRIES = 50_000


    @dataclass
    class CacheStats:
        """Counters shown in the status bar of the merge view."""

        hits: int = 0
        misses: int = 0
        evictions: int = 0
        embed_seconds: float = 0.0

        @property
        def hit_rate(self) -> float:
            total = self.hits + self.misses
            return self.hits / total if total else 0.0

        def as_dict(self) -> dict[str, float]:
            return {
                "hits": self.hits,
                "misses": self.misses,
                "evictions": self.evictions,
                "hit_rate": round(self.hit_rate, 4),
                "embed_seconds": round(self.embed_seconds, 3),
            }


    def cache_key(text: str) -> str:
        """Return the cache key for a piece of text.

        Texts are normalised by stripping surrounding whitespace so that a chunk
        re-split with a trailing blank line still hits the cache.
        """
        normalised = text.strip()
        return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


    @dataclass
    class EmbeddingCache:
        """LRU cache of embedding vectors keyed by text hash."""

        embed_fn: EmbedFn
        model: str
        max_entries: int = DEFAULT_MAX_ENTRIES
        stats: CacheStats = field(default_factory=CacheStats)
        _data: OrderedDict[str, Vector] = field(default_factory=OrderedDict, repr=False)
        _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

        def __len__(self) -> int:
            return len(self._data)

        def __contains__(self, text: str) -> bool:
            return cache_key(text) in self._data

        def get(self, text: str) -> Vector | None:
            key = cache_key(text)
            with self._lock:
                vec = self._data.get(key)
                if vec is None:
                    self.stats.misses += 1
                    return None
                self._data.move_to_end(key)
                self.stats.hits += 1
                return vec

        def put(self, text: str, vec: Vector) -> None:
            key = cache_key(text)
            with self._lock:
                self._data[key] = np.asarray(vec, dtype=np.float32)
                self._data.move_to_end(key)
                self._evict_locked()

        def _evict_locked(self) -> None:
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
                self.stats.evictions += 1

        def embed_many(self, texts: Iterable[str]) -> list[Vector]:
            """Embed texts, calling the backend only for the ones not cached.

            Order of the result matches the order of ``texts``. Duplicate texts in
            one call are embedded once.
            """
            texts = list(texts)
            out: list[Vector | None] = [None] * len(texts)
            missing: dict[str, list[int]] = {}
            for i, text in enumerate(texts):
                vec = self.get(text)
                if vec is None:
                    missing.setdefault(text, []).append(i)
                else:
                    out[i] = vec
            if missing:
                pending = list(missing)
                started = time.perf_counter()
                vectors = self.embed_fn(pending)
                self.stats.embed_seconds += time.perf_counter() - started
                if len(vectors) != len(pending):
                    raise RuntimeError(
                        f"embedding backend returned {len(vectors)} vectors "
                        f"for {len(pending)} texts"
                    )
                for text, vec in zip(pending, vectors):
                    self.put(text, vec)
                    for i in missing[text]:
                        out[i] = np.asarray(vec, dtype=np.float32)
            log.debug("embed_many: %d texts, %d embedded", len(texts), len(missing))
            return [v for v in out if v is not None]

        def embed_one(self, text: str) -> Vector:
            return self.embed_many([text])[0]

        def clear(self) -> None:
            with self._lock:
                self._data.clear()
                self.stats = CacheStats()

        def snapshot(self) -> dict[str, object]:
            """State for the debug panel (F12 in the merge view)."""
            with self._lock:
                return {
                    "model": self.model,
                    "entries": len(self._data),
                    "max_entries": self.max_entries,
                    **self.stats.as_dict(),
                }


    _default: EmbeddingCache | None = None
    _default_lock = threading.Lock()


    def default_cache(embed_fn: EmbedFn, model: str) -> EmbeddingCache:
        """Return the process-wide cache, creating it on first use.

        Note: the model of the first caller wins; later callers with a different
        model get the same cache back. Harmless while the cache lives and dies
        with the process, because the model can only change on restart.
        """
        global _default
        with _default_lock:
            if _default is None:
                _default = EmbeddingCache(embed_fn=embed_fn, model=model)
            return _default


    def reset_default_cache() -> None:
        """Forget the process-wide cache (used by tests and the model picker)."""
        global _default
        with _default_lock:
            _default = None
''')

TEST_EMBED_CACHE_PY = D("""
    import numpy as np
    import pytest

    from engine.embed_cache import EmbeddingCache, cache_key


    def fake_embed(texts):
        # deterministic 4-dim vectors derived from the length and first character
        return [
            np.array([len(t), ord(t[0]) if t else 0, 1.0, 0.5], dtype=np.float32)
            for t in texts
        ]


    @pytest.fixture
    def cache():
        return EmbeddingCache(embed_fn=fake_embed, model="fake-4d", max_entries=3)


    def test_miss_then_hit(cache):
        assert cache.get("hello") is None
        cache.embed_one("hello")
        assert cache.get("hello") is not None
        assert cache.stats.hits == 1
        assert cache.stats.misses == 2


    def test_key_ignores_surrounding_whitespace():
        assert cache_key("abc\\n\\n") == cache_key("abc")


    def test_embed_many_preserves_order(cache):
        vecs = cache.embed_many(["bb", "a", "ccc"])
        assert [int(v[0]) for v in vecs] == [2, 1, 3]


    def test_duplicates_embedded_once():
        calls = []

        def counting(texts):
            calls.append(list(texts))
            return fake_embed(texts)

        c = EmbeddingCache(embed_fn=counting, model="fake-4d")
        c.embed_many(["x", "y", "x"])
        assert calls == [["x", "y"]]


    def test_lru_eviction(cache):
        cache.embed_many(["a", "b", "c"])
        cache.get("a")  # a becomes the most recently used
        cache.embed_one("d")
        assert "b" not in cache
        assert "a" in cache
        assert cache.stats.evictions == 1


    def test_clear_resets_stats(cache):
        cache.embed_many(["a", "b"])
        cache.clear()
        assert len(cache) == 0
        assert cache.stats.misses == 0
""")

SQLITE_CACHE_PY = D('''
    """SQLite-backed storage for embedding vectors.

    One table keyed by the text hash from engine.embed_cache.cache_key. Vectors are
    stored as raw float32 bytes together with their dimension, so reading one back
    is a frombuffer call, no pickling. Eviction is least-recently-used, tracked with
    a monotonically increasing last_used counter.
    """

    from __future__ import annotations

    import os
    import sqlite3
    import threading
    from pathlib import Path

    import numpy as np

    SCHEMA_VERSION = 1

    _SCHEMA = """
    CREATE TABLE IF NOT EXISTS vectors (
        key       TEXT PRIMARY KEY,
        dim       INTEGER NOT NULL,
        data      BLOB NOT NULL,
        last_used INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS vectors_last_used ON vectors(last_used);
    """


    def default_path() -> Path:
        """$CHUNKSCOPE_CACHE_DIR, else the XDG cache dir, else ~/.cache."""
        base = os.environ.get("CHUNKSCOPE_CACHE_DIR")
        if base:
            return Path(base) / "embeddings.sqlite3"
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(xdg) / "chunkscope" / "embeddings.sqlite3"


    class SqliteVectorStore:
        def __init__(self, path: Path | str | None = None, max_entries: int = 50_000):
            self.path = Path(path) if path is not None else default_path()
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.max_entries = max_entries
            self._lock = threading.Lock()
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(_SCHEMA)
            (self._clock,) = self._conn.execute(
                "SELECT COALESCE(MAX(last_used), 0) FROM vectors"
            ).fetchone()

        def _tick(self) -> int:
            self._clock += 1
            return self._clock

        def get(self, key: str) -> np.ndarray | None:
            with self._lock:
                row = self._conn.execute(
                    "SELECT dim, data FROM vectors WHERE key = ?", (key,)
                ).fetchone()
                if row is None:
                    return None
                self._conn.execute(
                    "UPDATE vectors SET last_used = ? WHERE key = ?", (self._tick(), key)
                )
                self._conn.commit()
            dim, data = row
            return np.frombuffer(data, dtype=np.float32, count=dim).copy()

        def put(self, key: str, vec: np.ndarray) -> int:
            """Store one vector; returns how many rows were evicted to make room."""
            arr = np.ascontiguousarray(vec, dtype=np.float32)
            with self._lock:
                self._conn.execute(
                    "INSERT OR REPLACE INTO vectors(key, dim, data, last_used) "
                    "VALUES (?, ?, ?, ?)",
                    (key, arr.shape[0], arr.tobytes(), self._tick()),
                )
                evicted = self._evict_locked()
                self._conn.commit()
            return evicted

        def _evict_locked(self) -> int:
            (count,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()
            excess = count - self.max_entries
            if excess <= 0:
                return 0
            self._conn.execute(
                "DELETE FROM vectors WHERE key IN "
                "(SELECT key FROM vectors ORDER BY last_used ASC LIMIT ?)",
                (excess,),
            )
            return excess

        def __contains__(self, key: str) -> bool:
            with self._lock:
                row = self._conn.execute(
                    "SELECT 1 FROM vectors WHERE key = ?", (key,)
                ).fetchone()
            return row is not None

        def __len__(self) -> int:
            with self._lock:
                (count,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()
            return int(count)

        def clear(self) -> None:
            with self._lock:
                self._conn.execute("DELETE FROM vectors")
                self._conn.commit()

        def close(self) -> None:
            with self._lock:
                self._conn.close()
''')

CONFTEST_PY = D("""
    import os
    import sys
    from pathlib import Path

    import pytest

    ROOT = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(ROOT))


    @pytest.fixture
    def sample_dir() -> Path:
        return ROOT / "sample_logs"


    @pytest.fixture(autouse=True)
    def _no_network(monkeypatch):
        # the embedding backend must never be reached from the test suite
        monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-used")
        monkeypatch.setenv("CHUNKSCOPE_OFFLINE", "1")
""")

TEST_SQLITE_CACHE_PY = D("""
    import numpy as np

    from engine.embed_cache import EmbeddingCache
    from engine.sqlite_cache import SqliteVectorStore
    from tests.test_embed_cache import fake_embed


    def test_vectors_survive_reopen(tmp_path):
        path = tmp_path / "emb.sqlite3"
        first = EmbeddingCache(embed_fn=fake_embed, model="fake-4d", path=path)
        first.embed_many(["alpha", "beta"])
        first.close()

        calls = []

        def counting(texts):
            calls.append(list(texts))
            return fake_embed(texts)

        second = EmbeddingCache(embed_fn=counting, model="fake-4d", path=path)
        vecs = second.embed_many(["alpha", "beta", "gamma"])
        assert calls == [["gamma"]]
        assert [int(v[0]) for v in vecs] == [5, 4, 5]


    def test_roundtrip_is_float32_exact(tmp_path):
        store = SqliteVectorStore(tmp_path / "emb.sqlite3")
        vec = np.linspace(-1, 1, 384, dtype=np.float32)
        store.put("k", vec)
        assert np.array_equal(store.get("k"), vec)


    def test_eviction_counts_rows(tmp_path):
        store = SqliteVectorStore(tmp_path / "emb.sqlite3", max_entries=2)
        assert store.put("a", np.ones(3)) == 0
        assert store.put("b", np.ones(3)) == 0
        assert store.put("c", np.ones(3)) == 1
        assert len(store) == 2
""")

BENCH_CACHE_PY = D('''
    """Compare the dict cache with the SQLite cache on synthetic vectors.

    No model is called: the embed function returns seeded random vectors, so the
    numbers measure storage only. Usage:

        python bench/bench_cache.py --texts 20000 --dim 384
    """

    import argparse
    import tempfile
    import time
    from pathlib import Path

    import numpy as np

    from engine.embed_cache import EmbeddingCache
    from engine.sqlite_cache import SqliteVectorStore


    def fake_embed_factory(dim):
        rng = np.random.default_rng(7)
        return lambda texts: [rng.standard_normal(dim).astype(np.float32) for _ in texts]


    def timed(label, fn, rows):
        started = time.perf_counter()
        fn()
        rows.append((label, time.perf_counter() - started))


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--texts", type=int, default=20_000)
        p.add_argument("--dim", type=int, default=384)
        p.add_argument("--batch", type=int, default=500)
        args = p.parse_args()
        texts = [f"chunk {i}: the quick brown fox, revision {i % 97}" for i in range(args.texts)]
        tmp = Path(tempfile.mkdtemp(prefix="bench-cache-"))
        # ... phases: cold fill, warm get, reopen, embed_many; prints a table
''')


SQLITE_CACHE_FINAL_PY = D('''
    """SQLite-backed storage for embedding vectors.

    One table keyed by the text hash from engine.embed_cache.cache_key. Vectors are
    stored as raw float32 bytes together with their dimension, so reading one back
    is a frombuffer call, no pickling. Eviction is least-recently-used, tracked with
    a monotonically increasing last_used counter.
    """

    from __future__ import annotations

    import os
    import sqlite3
    import threading
    from pathlib import Path

    import numpy as np

    SCHEMA_VERSION = 2

    _SCHEMA = """
    CREATE TABLE IF NOT EXISTS vectors (
        key       TEXT PRIMARY KEY,
        dim       INTEGER NOT NULL,
        data      BLOB NOT NULL,
        last_used INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS vectors_last_used ON vectors(last_used);
    """


    def default_path() -> Path:
        """$CHUNKSCOPE_CACHE_DIR, else the XDG cache dir, else ~/.cache."""
        base = os.environ.get("CHUNKSCOPE_CACHE_DIR")
        if base:
            return Path(base) / "embeddings.sqlite3"
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(xdg) / "chunkscope" / "embeddings.sqlite3"


    class SqliteVectorStore:
        def __init__(self, path: Path | str | None = None, max_entries: int = 50_000):
            self.path = Path(path) if path is not None else default_path()
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.max_entries = max_entries
            self._lock = threading.Lock()
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
            self._clock, self._count = self._conn.execute(
                "SELECT COALESCE(MAX(last_used), 0), COUNT(*) FROM vectors"
            ).fetchone()
            self._touched: dict[str, int] = {}

        def _migrate(self) -> None:
            """Bring the file to SCHEMA_VERSION; safe when many processes open it at once."""
            conn = self._conn
            conn.isolation_level = None
            conn.execute("BEGIN IMMEDIATE")  # take the write lock before looking
            try:
                (version,) = conn.execute("PRAGMA user_version").fetchone()
                if version != SCHEMA_VERSION:
                    # old keys did not include the model; a cache can always be rebuilt
                    conn.execute("DROP TABLE IF EXISTS vectors")
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                for stmt in filter(str.strip, _SCHEMA.split(";")):
                    conn.execute(stmt)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            finally:
                conn.isolation_level = ""

        def _tick(self) -> int:
            self._clock += 1
            return self._clock

        def get(self, key: str) -> np.ndarray | None:
            with self._lock:
                row = self._conn.execute(
                    "SELECT dim, data FROM vectors WHERE key = ?", (key,)
                ).fetchone()
                if row is None:
                    return None
                self._touched[key] = self._tick()
            dim, data = row
            return np.frombuffer(data, dtype=np.float32, count=dim).copy()

        def put(self, key: str, vec: np.ndarray) -> int:
            """Store one vector; returns how many rows were evicted to make room."""
            return self.put_many([(key, vec)])

        def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
            """Look up many keys at once; recency is recorded in memory, flushed later."""
            found: dict[str, np.ndarray] = {}
            with self._lock:
                for start in range(0, len(keys), 500):
                    part = keys[start:start + 500]
                    marks = ",".join("?" * len(part))
                    for key, dim, data in self._conn.execute(
                        f"SELECT key, dim, data FROM vectors WHERE key IN ({marks})", part
                    ):
                        found[key] = np.frombuffer(data, dtype=np.float32, count=dim).copy()
                        self._touched[key] = self._tick()
            return found

        def put_many(self, items: list[tuple[str, np.ndarray]]) -> int:
            rows = []
            for key, vec in items:
                arr = np.ascontiguousarray(vec, dtype=np.float32)
                rows.append((key, arr.shape[0], arr.tobytes(), self._tick()))
            with self._lock, self._conn:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO vectors(key, dim, data, last_used) VALUES (?, ?, ?, ?)",
                    rows,
                )
                self._count += len(rows)
                return self._evict_locked()

        def flush_recency(self) -> None:
            with self._lock, self._conn:
                if self._touched:
                    self._conn.executemany(
                        "UPDATE vectors SET last_used = ? WHERE key = ?",
                        [(t, k) for k, t in self._touched.items()],
                    )
                    self._touched.clear()

        def _evict_locked(self) -> int:
            if self._count <= self.max_entries:
                return 0
            # other stores (other models) share this file; trust only the real count
            (self._count,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()
            excess = self._count - self.max_entries
            if excess <= 0:
                return 0
            # recency lives in memory until now; victims must be chosen on fresh data
            self._conn.executemany(
                "UPDATE vectors SET last_used = ? WHERE key = ?",
                [(t, k) for k, t in self._touched.items()],
            )
            self._touched.clear()
            self._conn.execute(
                "DELETE FROM vectors WHERE key IN "
                "(SELECT key FROM vectors ORDER BY last_used ASC LIMIT ?)",
                (excess,),
            )
            self._count -= excess
            return excess

        def __contains__(self, key: str) -> bool:
            with self._lock:
                row = self._conn.execute(
                    "SELECT 1 FROM vectors WHERE key = ?", (key,)
                ).fetchone()
            return row is not None

        def __len__(self) -> int:
            with self._lock:
                (count,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()
            return int(count)

        def clear(self) -> None:
            with self._lock:
                self._conn.execute("DELETE FROM vectors")
                self._conn.commit()
                self._count = 0
                self._touched.clear()

        def close(self) -> None:
            self.flush_recency()
            with self._lock:
                self._conn.close()
''')


HAMMER_PY = D('''
    """Open one cache file from several processes at once and write to it.

    Reproduces "two chunkscope windows on a fresh cache". Each worker opens its own
    SqliteVectorStore on the same path, writes --rows vectors in batches and reads
    them back. Exit status 1 if any worker failed or lost rows.
    """

    import argparse
    import multiprocessing as mp
    import sys
    import traceback

    import numpy as np

    from engine.sqlite_cache import SqliteVectorStore


    def worker(path, wid, rows, batch, barrier, results):
        barrier.wait()  # maximise the chance of opening the file at the same moment
        try:
            store = SqliteVectorStore(path, max_entries=10**9)
            for start in range(0, rows, batch):
                items = [(f"w{wid}-{i}", np.full(384, wid, np.float32))
                         for i in range(start, min(rows, start + batch))]
                store.put_many(items)
            found = store.get_many([f"w{wid}-{i}" for i in range(rows)])
            results.put((wid, len(found), None))
        except Exception:
            results.put((wid, 0, traceback.format_exc(limit=2)))


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("path")
        p.add_argument("--workers", type=int, default=4)
        p.add_argument("--rows", type=int, default=5000)
        p.add_argument("--batch", type=int, default=500)
        args = p.parse_args()
        barrier, results = mp.Barrier(args.workers), mp.Queue()
        procs = [mp.Process(target=worker, args=(args.path, w, args.rows, args.batch, barrier, results))
                 for w in range(args.workers)]
        for proc in procs:
            proc.start()
        bad = 0
        for _ in procs:
            wid, n, err = results.get()
            status = "ok" if err is None and n == args.rows else "FAIL"
            bad += status != "ok"
            print(f"worker {wid}: {n}/{args.rows} rows readable  {status}")
            if err:
                print(err.rstrip())
        sys.exit(1 if bad else 0)


    if __name__ == "__main__":
        main()
''')


def build_cache_refactor() -> Log:
    L = Log("cache_refactor.jsonl", "2026-02-13T09:12:04", seed=1301)

    L.user(
        T("""
        The embedding cache in engine/embed_cache.py is a plain in-memory dict, so every
        time I reopen the TUI it re-embeds the whole log, which takes about forty seconds
        on the big sessions. Please move it to SQLite so it survives restarts.

        Keep the public API the same (EmbeddingCache, embed_many, embed_one, snapshot),
        because the merge view and the bench scripts both use it. When it works, benchmark
        it against the dict version and tell me whether warm reads got slower.
    """)
    )

    L.bot(
        reasoning=T("""
            The user wants the embedding cache to persist across restarts without changing
            its public API. Before touching code I want to know where I am in my budget and
            whether earlier sessions left notes about this module; I have a vague memory
            that the cache was touched when the merge view was wired up.

            Status first, then recall.
        """),
        calls=[
            C(
                "status",
                {},
                "Session 14 | budget {budget} tokens, used {used} ({pct}%) | workspace /home/dev/chunkscope | memories: 97 | previous session ended 2026-02-12 17:48",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "recall",
                {"query": "embedding cache persistence sqlite merge view"},
                D("""
            Recalled 3 memories:
            #88 (2026-02-06) Embedding cache lives in engine/embed_cache.py; the merge view calls embed_many once per log open.
            #91 (2026-02-09) Bench scripts in bench/ construct EmbeddingCache directly with keyword arguments; keep them stable.
            #64 (2026-01-28) Default local model all-MiniLM-L6-v2 returns 384-dim float32 vectors, roughly 450 texts/s on the laptop CPU.
        """),
            )
        ],
    )
    L.bot(
        reasoning="Memory #88 is the one that matters. The abstract is thin; the full text may say how the hit rate behaves.",
        calls=[
            C(
                "recall_detail",
                {"chunk_id": 88},
                T("""
            Memory #88 (2026-02-06, session 9)

            Abstract: Embedding cache lives in engine/embed_cache.py; the merge view calls
            embed_many once per log open.

            While wiring the merge view I found that tui/merge_view.py calls
            engine.embed_cache.default_cache(...).embed_many(chunk_texts) every time a log
            is opened, and again whenever min_chars changes, because compaction produces
            new chunk texts. Most texts repeat between those calls, so the hit rate within
            one run is high (about 0.8 with the 1.2 MB session log). Across runs the hit
            rate is zero because the dict dies with the process. The user mentioned wanting
            persistence "some day".
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "ls",
                {"path": "engine"},
                D("""
            __init__.py
            chunk.py
            collapse.py
            config.py
            embed.py
            embed_cache.py
            merge.py
            parse.py
            recap.py
            summarize.py
            tokens.py
        """),
            )
        ],
    )
    L.bot(
        reasoning="Before the cache itself, the embed function it wraps: I need to know what a vector looks like when it arrives.",
        calls=[
            C(
                "read",
                {"path": "engine/embed.py"},
                D('''
            """Embedding backends: a local sentence-transformers model or an OpenAI-compatible API."""

            from __future__ import annotations

            from collections.abc import Sequence

            import numpy as np

            from engine.config import Config


            def make_embed_fn(cfg: Config):
                """Return a function texts -> list of float32 vectors for cfg.embed_model."""
                if cfg.embed_backend == "local":
                    from sentence_transformers import SentenceTransformer

                    model = SentenceTransformer(cfg.embed_model, device="cpu")

                    def local(texts: Sequence[str]) -> list[np.ndarray]:
                        arr = model.encode(list(texts), batch_size=64, normalize_embeddings=True)
                        return [row.astype(np.float32) for row in arr]

                    return local

                from openai import OpenAI

                client = OpenAI(base_url=cfg.embed_url)

                def remote(texts: Sequence[str]) -> list[np.ndarray]:
                    resp = client.embeddings.create(model=cfg.embed_model, input=list(texts))
                    return [np.asarray(d.embedding, dtype=np.float32) for d in resp.data]

                return remote
        '''),
            )
        ],
    )
    L.bot(calls=[C("read", {"path": "engine/embed_cache.py"}, EMBED_CACHE_PY)])

    L.bot(
        content=T("""
            I've read the current cache. It is an OrderedDict used as an LRU, guarded by a
            lock, with keys that are SHA-256 hashes of the stripped chunk text. Plan:

            1. Add engine/sqlite_cache.py with a small vector store: one table, key, dim,
               float32 blob, and a last_used counter for LRU eviction.
            2. Make EmbeddingCache delegate storage to that store, keeping the constructor
               keywords and the stats counters exactly as they are.
            3. Run the existing tests, then write a benchmark that compares both backends.
        """),
        reasoning=T("""
            The structure is simple. The only real state is _data, an OrderedDict used as
            an LRU, plus the stats counters. get/put/_evict_locked are the storage surface,
            so if I replace those three with calls into a store object, embed_many,
            embed_one and snapshot keep working untouched.

            One thing bothers me. cache_key() hashes only the text, not the model. For a
            dict that dies with the process this is harmless, as the docstring of
            default_cache says: the model can only change on restart. Once the cache
            persists, a restart no longer clears it. I'll keep that in mind rather than
            change key semantics right away, since the user asked for the same behaviour.

            Next: the tests, to see what they pin down.
        """),
        calls=[
            C(
                "ls",
                {"path": "tests"},
                D("""
                __init__.py
                conftest.py
                test_chunk.py
                test_collapse.py
                test_embed_cache.py
                test_merge.py
                test_parse.py
                test_recap.py
                test_tui_smoke.py
            """),
            ),
            C("read", {"path": "tests/test_embed_cache.py"}, TEST_EMBED_CACHE_PY),
        ],
    )
    L.bot(
        reasoning=T("""
            The tests construct EmbeddingCache with only embed_fn, model and max_entries.
            If the new default is "a database in the user's cache directory", these tests
            will write into the real cache. I need a path argument and the tests need to
            point it somewhere temporary.

            Where the database file lives is a product decision, not mine. Asking.
        """),
        calls=[
            C(
                "ask",
                {
                    "message": "Where should the cache database live? I'd default to the platform cache dir (~/.cache/chunkscope/embeddings.sqlite3 on Linux) with an environment variable to override it. Or do you want it next to the project?"
                },
                "Platform cache dir, yes. Use CHUNKSCOPE_CACHE_DIR as the override and respect XDG_CACHE_HOME. Please don't put it in the project folder, people will commit it by accident and it gets big fast.",
                secs=(40, 140),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Schema: key TEXT PRIMARY KEY, dim INTEGER, data BLOB, last_used INTEGER, plus an
            index on last_used for eviction. Vectors as float32 bytes via tobytes(), read
            back with frombuffer(count=dim). WAL journal mode so the TUI and a bench script
            can read at the same time, synchronous=NORMAL because losing the last few
            cache entries in a power cut costs a re-embed, nothing more.

            For LRU I need a notion of recency that survives restarts. A wall-clock
            timestamp would work, but a counter initialised from MAX(last_used) is simpler
            and immune to clock changes.

            Updating last_used on every read means a write per hit, which will cost
            something on warm reads. I'll start with the straightforward version and let
            the benchmark tell me whether it matters, instead of guessing.
        """),
        calls=[C("write", {"path": "engine/sqlite_cache.py", "content": SQLITE_CACHE_PY}, "")],
    )
    L.bot(
        reasoning="Now wire it into EmbeddingCache. The dataclass fields first: replace _data with a store, add path.",
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    _data: OrderedDict[str, Vector] = field(default_factory=OrderedDict, repr=False)\n    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)\n\n    def __len__(self) -> int:\n        return len(self._data)\n\n    def __contains__(self, text: str) -> bool:\n        return cache_key(text) in self._data",
                    "new": "    path: Path | str | None = None\n    _store: SqliteVectorStore = field(init=False, repr=False)\n    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)\n\n    def __post_init__(self) -> None:\n        self._store = SqliteVectorStore(self.path, max_entries=self.max_entries)\n\n    def __len__(self) -> int:\n        return len(self._store)\n\n    def __contains__(self, text: str) -> bool:\n        return cache_key(text) in self._store",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (9 lines -> 12 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    def get(self, text: str) -> Vector | None:\n        key = cache_key(text)\n        with self._lock:\n            vec = self._data.get(key)\n            if vec is None:\n                self.stats.misses += 1\n                return None\n            self._data.move_to_end(key)\n            self.stats.hits += 1\n            return vec\n\n    def put(self, text: str, vec: Vector) -> None:\n        key = cache_key(text)\n        with self._lock:\n            self._data[key] = np.asarray(vec, dtype=np.float32)\n            self._data.move_to_end(key)\n            self._evict_locked()\n\n    def _evict_locked(self) -> None:\n        while len(self._data) > self.max_entries:\n            self._data.popitem(last=False)\n            self.stats.evictions += 1",
                    "new": "    def get(self, text: str) -> Vector | None:\n        vec = self._store.get(cache_key(text))\n        with self._lock:\n            if vec is None:\n                self.stats.misses += 1\n            else:\n                self.stats.hits += 1\n        return vec\n\n    def put(self, text: str, vec: Vector) -> None:\n        evicted = self._store.put(cache_key(text), vec)\n        with self._lock:\n            self.stats.evictions += evicted\n\n    def close(self) -> None:\n        self._store.close()",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (22 lines -> 15 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    def clear(self) -> None:\n        with self._lock:\n            self._data.clear()\n            self.stats = CacheStats()",
                    "new": "    def clear(self) -> None:\n        self._store.clear()\n        with self._lock:\n            self.stats = CacheStats()",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (4 lines -> 4 lines).",
            )
        ],
    )
    L.bot(
        reasoning="snapshot() still reads len(self._data). Fix that and the imports, then run the tests.",
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": '                "entries": len(self._data),',
                    "new": '                "entries": len(self._store),\n                "path": str(self._store.path),',
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (1 line -> 2 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "from collections import OrderedDict\nfrom collections.abc import Callable, Iterable, Sequence\nfrom dataclasses import dataclass, field\n\nimport numpy as np",
                    "new": "from collections.abc import Callable, Iterable, Sequence\nfrom dataclasses import dataclass, field\nfrom pathlib import Path\n\nimport numpy as np\n\nfrom engine.sqlite_cache import SqliteVectorStore",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (5 lines -> 7 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python -m pytest tests/test_embed_cache.py -q"},
                D("""
            ....F.                                                                   [100%]
            =================================== FAILURES ===================================
            _______________________________ test_lru_eviction ______________________________

            cache = EmbeddingCache(embed_fn=<function fake_embed at 0x7f3a1c2b9d80>, model='fake-4d', max_entries=3, stats=CacheStats(hits=1, misses=4, evictions=5, embed_seconds=2.1e-05), path=None)

                def test_lru_eviction(cache):
                    cache.embed_many(["a", "b", "c"])
                    cache.get("a")  # a becomes the most recently used
                    cache.embed_one("d")
                    assert "b" not in cache
                    assert "a" in cache
            >       assert cache.stats.evictions == 1
            E       AssertionError: assert 5 == 1
            E        +  where 5 = CacheStats(hits=1, misses=4, evictions=5, embed_seconds=2.1e-05).evictions
            E        +    where CacheStats(hits=1, misses=4, evictions=5, embed_seconds=2.1e-05) = EmbeddingCache(...).stats

            tests/test_embed_cache.py:52: AssertionError
            =========================== short test summary info ============================
            FAILED tests/test_embed_cache.py::test_lru_eviction - AssertionError: assert 5 == 1
            1 failed, 5 passed in 0.31s
        """),
                secs=(3, 6),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Five evictions instead of one. The test itself only inserts four texts into a
            cache of three, so the extra rows came from somewhere else: earlier tests. None
            of the fixtures pass a path, so every test in the module wrote into the same
            file, ~/.cache/chunkscope/embeddings.sqlite3. test_embed_many_preserves_order
            left bb, a and ccc behind and test_duplicates_embedded_once left x and y, so
            the first put in test_lru_eviction had to evict three rows at once.

            That is exactly the accident the user warned about, just in the test suite
            instead of the repo: the run polluted my real cache. Two fixes. The tests need
            an autouse fixture that points CHUNKSCOPE_CACHE_DIR at tmp_path, so no test can
            ever touch the real file. And I'll delete the junk rows from the real cache.
        """),
        calls=[C("read", {"path": "tests/conftest.py"}, CONFTEST_PY)],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "tests/conftest.py",
                    "old": '    monkeypatch.setenv("CHUNKSCOPE_OFFLINE", "1")',
                    "new": '    monkeypatch.setenv("CHUNKSCOPE_OFFLINE", "1")\n\n\n@pytest.fixture(autouse=True)\ndef _isolated_cache_dir(tmp_path, monkeypatch):\n    # every test gets its own embedding cache file; never touch ~/.cache\n    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))',
                },
                "Edited tests/conftest.py: replaced 1 occurrence (1 line -> 7 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "rm -f ~/.cache/chunkscope/embeddings.sqlite3* && python -m pytest tests/test_embed_cache.py -q"
                },
                D("""
            ......                                                                   [100%]
            6 passed in 0.27s
        """),
                secs=(3, 5),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Green. The existing tests only prove the dict behaviour survived. The point of
            the change is persistence, so I want a test that closes a cache, reopens the
            same file and checks that only the new text reaches the backend. Also a float32
            round trip test, since a dtype slip in tobytes/frombuffer would silently return
            garbage of the right length.
        """),
        calls=[
            C("write", {"path": "tests/test_sqlite_cache.py", "content": TEST_SQLITE_CACHE_PY}, "")
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest tests/test_embed_cache.py tests/test_sqlite_cache.py -q"
                },
                D("""
            .........                                                                [100%]
            9 passed in 0.34s
        """),
                secs=(3, 5),
            )
        ],
    )
    L.bot(
        content=T("""
            The cache now persists. EmbeddingCache stores vectors in SQLite through a new
            SqliteVectorStore, with the database at $CHUNKSCOPE_CACHE_DIR, else
            $XDG_CACHE_HOME/chunkscope, else ~/.cache/chunkscope.

            The first test run found a real problem: the tests were writing into the real
            cache file. conftest.py now gives every test its own cache directory. Three new
            tests cover reopening, float32 round trips and eviction counts.
        """),
        reasoning="That's a good checkpoint. I'll report before moving on to the benchmark.",
    )
    L.user("Continue.", lo=4, hi=8)
    L.bot(
        reasoning=T("""
            The harness wants me to keep going, and the user asked for a benchmark. Before
            that, the whole test suite, because the merge view tests also construct caches.
        """),
        calls=[
            C(
                "run",
                {"command": "python -m pytest -q"},
                D("""
            ........................................................................ [ 33%]
            ........................................................................ [ 67%]
            ..................................................ss.s.................. [100%]
            213 passed, 3 skipped in 8.62s
        """),
                secs=(9, 14),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "ls",
                {"path": "bench"},
                D("""
            README.md
            bench_chunk.py
            bench_merge.py
            data/
            results/
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            There is no cache benchmark yet. bench_merge.py measures the merge loop with
            embeddings precomputed, so it would not show storage cost at all. I'll write a
            dedicated script with a fake embed function: seeded random vectors, no model,
            so the numbers measure storage only.

            Phases worth timing: cold fill (20k puts into an empty store), warm get in the
            same process, warm get after closing and reopening the file (the case the user
            actually cares about), and embed_many on a 2000-text batch that is fully
            cached. Compare each with the old dict.
        """),
        calls=[C("write", {"path": "bench/bench_cache.py", "content": BENCH_CACHE_PY}, "")],
    )
    bench_lines = [
        "chunkscope cache benchmark",
        "texts: 20000  dim: 384  backend: fake (seeded random, no model calls)",
        "sqlite file: /tmp/bench-cache-k2f9q1/embeddings.sqlite3",
        "",
        "[dict] cold fill ...",
    ]
    rng = random.Random(77)
    for i in range(1, 41):
        bench_lines.append(
            f"  dict   fill batch {i:2d}/40  {500 * i:6d} rows  {rng.uniform(0.0008, 0.0013):.4f} s"
        )
    bench_lines.append("[sqlite] cold fill ...")
    for i in range(1, 41):
        bench_lines.append(
            f"  sqlite fill batch {i:2d}/40  {500 * i:6d} rows  {rng.uniform(0.74, 0.86):.4f} s"
        )
    bench_lines.append("[sqlite] warm get, same process ...")
    for i in range(1, 21):
        bench_lines.append(
            f"  sqlite get  batch {i:2d}/20  {1000 * i:6d} rows  {rng.uniform(0.19, 0.23):.4f} s"
        )
    bench_lines += D("""
        [sqlite] reopen + warm get ...
        [sqlite] embed_many, 2000 cached texts ...

        phase                          dict        sqlite      ratio
        ----------------------------   ---------   ---------   --------
        cold fill (20000 puts)         0.041 s     31.870 s    777.3x
        warm get, same process         0.018 s     4.212 s     234.0x
        warm get, after reopen         n/a         4.307 s     -
        embed_many (2000, all cached)  0.006 s     3.118 s     519.7x
        file size                      -           34.6 MB     -

        hit rate after reopen: 1.0000 (20000/20000)
    """).split("\n")
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python bench/bench_cache.py --texts 20000 --dim 384"},
                "\n".join(bench_lines),
                secs=(45, 60),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Terrible, and for the reason I suspected but worse than I expected. Cold fill is
            32 seconds for 20k rows, about 1.6 ms per put. Each put is its own transaction:
            INSERT, a COUNT(*) over the whole table for eviction, and a commit. Even with
            WAL and synchronous=NORMAL, a commit per row dominates, and the COUNT(*) grows
            with the table.

            Warm reads are 4.2 s for 20k, about 0.2 ms each, because every hit also does an
            UPDATE of last_used and a commit. So a read is secretly a write. Reopening makes
            no difference, which at least shows the file is being used.

            The fixes are standard:

            - Batch writes: put_many() with executemany in a single transaction, and check
              the row count once per batch instead of per row. Keep a running count in
              Python rather than COUNT(*).
            - Batch reads: get_many() with SELECT ... WHERE key IN (...) in chunks of 500
              keys (under SQLite's default variable limit).
            - Lazy recency: remember touched keys in memory and write last_used for all of
              them in one executemany at the end of embed_many and on close. Recency only
              needs to be roughly right for eviction.

            embed_many already has the whole list of texts, so it can call get_many and
            put_many directly; get/put stay for single lookups.
        """),
        content="The first SQLite numbers are bad: 32 s to fill 20k vectors and 4.2 s to read them back, against 0.04 s and 0.02 s for the dict. The cause is one transaction per row, and reads that secretly write (the last_used update). Batching both now.",
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "    def _evict_locked(self) -> int:",
                    "new": '    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:\n        """Look up many keys at once; recency is recorded in memory, flushed later."""\n        found: dict[str, np.ndarray] = {}\n        with self._lock:\n            for start in range(0, len(keys), 500):\n                part = keys[start:start + 500]\n                marks = ",".join("?" * len(part))\n                for key, dim, data in self._conn.execute(\n                    f"SELECT key, dim, data FROM vectors WHERE key IN ({marks})", part\n                ):\n                    found[key] = np.frombuffer(data, dtype=np.float32, count=dim).copy()\n                    self._touched[key] = self._tick()\n        return found\n\n    def put_many(self, items: list[tuple[str, np.ndarray]]) -> int:\n        rows = []\n        for key, vec in items:\n            arr = np.ascontiguousarray(vec, dtype=np.float32)\n            rows.append((key, arr.shape[0], arr.tobytes(), self._tick()))\n        with self._lock, self._conn:\n            self._conn.executemany(\n                "INSERT OR REPLACE INTO vectors(key, dim, data, last_used) VALUES (?, ?, ?, ?)",\n                rows,\n            )\n            self._count += len(rows)\n            return self._evict_locked()\n\n    def flush_recency(self) -> None:\n        with self._lock, self._conn:\n            if self._touched:\n                self._conn.executemany(\n                    "UPDATE vectors SET last_used = ? WHERE key = ?",\n                    [(t, k) for k, t in self._touched.items()],\n                )\n                self._touched.clear()\n\n    def _evict_locked(self) -> int:',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (1 line -> 37 lines).",
            )
        ],
    )
    L.bot(
        reasoning="_evict_locked must use the running count now, and __init__ must initialise _count and _touched.",
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": '        (count,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()\n        excess = count - self.max_entries',
                    "new": "        excess = self._count - self.max_entries",
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (2 lines -> 1 line).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "            (excess,),\n        )\n        return excess",
                    "new": "            (excess,),\n        )\n        self._count -= excess\n        return excess",
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (3 lines -> 4 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": '        (self._clock,) = self._conn.execute(\n            "SELECT COALESCE(MAX(last_used), 0) FROM vectors"\n        ).fetchone()',
                    "new": '        self._clock, self._count = self._conn.execute(\n            "SELECT COALESCE(MAX(last_used), 0), COUNT(*) FROM vectors"\n        ).fetchone()\n        self._touched: dict[str, int] = {}',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (3 lines -> 4 lines).",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Now embed_many in EmbeddingCache: one get_many for all unique texts, one
            put_many for the misses, then flush_recency. Stats: hits are the texts found,
            misses the rest, counted per occurrence as before so the existing test on
            misses still holds.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "        for i, text in enumerate(texts):\n            vec = self.get(text)\n            if vec is None:\n                missing.setdefault(text, []).append(i)\n            else:\n                out[i] = vec",
                    "new": "        keys = {text: cache_key(text) for text in texts}\n        found = self._store.get_many(list(set(keys.values())))\n        for i, text in enumerate(texts):\n            vec = found.get(keys[text])\n            if vec is None:\n                missing.setdefault(text, []).append(i)\n            else:\n                out[i] = vec\n        with self._lock:\n            self.stats.hits += len(texts) - sum(map(len, missing.values()))\n            self.stats.misses += sum(map(len, missing.values()))",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (6 lines -> 11 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "            for text, vec in zip(pending, vectors):\n                self.put(text, vec)\n                for i in missing[text]:",
                    "new": "            evicted = self._store.put_many([(keys[t], v) for t, v in zip(pending, vectors)])\n            with self._lock:\n                self.stats.evictions += evicted\n            for text, vec in zip(pending, vectors):\n                for i in missing[text]:",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (3 lines -> 5 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest tests/test_embed_cache.py tests/test_sqlite_cache.py -q"
                },
                D("""
            ........F                                                                [100%]
            =================================== FAILURES ===================================
            ___________________________ test_eviction_counts_rows __________________________

            tmp_path = PosixPath('/tmp/pytest-of-dev/pytest-41/test_eviction_counts_rows0')

                def test_eviction_counts_rows(tmp_path):
                    store = SqliteVectorStore(tmp_path / "emb.sqlite3", max_entries=2)
                    assert store.put("a", np.ones(3)) == 0
                    assert store.put("b", np.ones(3)) == 0
            >       assert store.put("c", np.ones(3)) == 1
            E       AssertionError: assert 0 == 1
            E        +  where 0 = put('c', array([1., 1., 1.]))
            E        +    where put = <engine.sqlite_cache.SqliteVectorStore object at 0x7f0e44a2f310>.put

            tests/test_sqlite_cache.py:37: AssertionError
            =========================== short test summary info ============================
            FAILED tests/test_sqlite_cache.py::test_eviction_counts_rows - AssertionError: assert 0 == 1
            1 failed, 8 passed in 0.36s
        """),
                secs=(3, 5),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The batched path is fine; the single-row put() is what broke. It still inserts
            one row itself but never bumps the running _count I introduced, so the store
            believes it is empty and never evicts. Two write paths that must agree on the
            bookkeeping is exactly how this kind of bug happens. put() should simply be
            put_many([(key, vec)]): one write path, one place that counts.

            While I'm in here, get() has the same split-brain problem on the read side. It
            still does an UPDATE of last_used plus a commit on every hit, the very
            read-that-writes cost I just removed from get_many, and it bypasses _touched.
            Route it through _touched as well, and flush _touched right before choosing
            eviction victims, so eviction always decides on fresh recency. Then there is
            exactly one way recency reaches the table.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": '        arr = np.ascontiguousarray(vec, dtype=np.float32)\n        with self._lock:\n            self._conn.execute(\n                "INSERT OR REPLACE INTO vectors(key, dim, data, last_used) "\n                "VALUES (?, ?, ?, ?)",\n                (key, arr.shape[0], arr.tobytes(), self._tick()),\n            )\n            evicted = self._evict_locked()\n            self._conn.commit()\n        return evicted',
                    "new": "        return self.put_many([(key, vec)])",
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (10 lines -> 1 line).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": '            if row is None:\n                return None\n            self._conn.execute(\n                "UPDATE vectors SET last_used = ? WHERE key = ?", (self._tick(), key)\n            )\n            self._conn.commit()',
                    "new": "            if row is None:\n                return None\n            self._touched[key] = self._tick()",
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (6 lines -> 3 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "        excess = self._count - self.max_entries\n        if excess <= 0:\n            return 0",
                    "new": '        excess = self._count - self.max_entries\n        if excess <= 0:\n            return 0\n        # recency lives in memory until now; victims must be chosen on fresh data\n        self._conn.executemany(\n            "UPDATE vectors SET last_used = ? WHERE key = ?",\n            [(t, k) for k, t in self._touched.items()],\n        )\n        self._touched.clear()',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (3 lines -> 9 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest tests/test_embed_cache.py tests/test_sqlite_cache.py -q && python bench/bench_cache.py --texts 20000 --dim 384 | tail -9"
                },
                D("""
            .........                                                                [100%]
            9 passed in 0.33s
            phase                          dict        sqlite      ratio
            ----------------------------   ---------   ---------   --------
            cold fill (20000 puts)         0.039 s     0.412 s     10.6x
            warm get, same process         0.017 s     0.163 s     9.6x
            warm get, after reopen         n/a         0.171 s     -
            embed_many (2000, all cached)  0.005 s     0.019 s     3.8x
            file size                      -           33.1 MB     -

            hit rate after reopen: 1.0000 (20000/20000)
        """),
                secs=(10, 16),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Much better: cold fill 77x faster than before, warm reads 26x faster. SQLite is
            still about ten times slower than the dict on warm reads in the same process,
            which is what the user specifically asked about.

            In absolute terms 0.17 s for 20k vectors is nothing next to the 40 s re-embed,
            but inside one TUI session the merge view calls embed_many again every time
            min_chars changes, and those calls used to be pure dict hits. A small in-memory
            front layer (a bounded dict of recently returned vectors) would give dict speed
            for repeated lookups within a process, and SQLite only for the first lookup
            after a restart. It costs memory, 20k x 384 x 4 bytes = 30 MB at the full
            default size, so I'll bound the front layer at 5000 entries.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "        keys = {text: cache_key(text) for text in texts}\n        found = self._store.get_many(list(set(keys.values())))",
                    "new": "        keys = {text: cache_key(text) for text in texts}\n        found = {k: self._hot[k] for k in set(keys.values()) if k in self._hot}\n        cold = [k for k in set(keys.values()) if k not in found]\n        if cold:\n            found.update(self._store.get_many(cold))\n        self._remember_hot(found)",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (2 lines -> 6 lines).",
            ),
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    def _key(self, text: str) -> str:",
                    "new": "    def _remember_hot(self, found: dict[str, Vector]) -> None:\n        # bounded front layer: dict speed for repeated lookups within one process\n        self._hot.update(found)\n        while len(self._hot) > HOT_ENTRIES:\n            self._hot.pop(next(iter(self._hot)))\n\n    def _key(self, text: str) -> str:",
                },
                "Error: old string not found in engine/embed_cache.py",
            ),
        ],
    )
    L.bot(
        reasoning="Of course: _key() does not exist yet, I was thinking ahead. Anchor on __post_init__ instead, and initialise _hot there.",
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    def __post_init__(self) -> None:\n        self._store = SqliteVectorStore(self.path, max_entries=self.max_entries)",
                    "new": "    def __post_init__(self) -> None:\n        self._store = SqliteVectorStore(self.path, max_entries=self.max_entries)\n        self._hot: dict[str, Vector] = {}\n\n    def _remember_hot(self, found: dict[str, Vector]) -> None:\n        # bounded front layer: dict speed for repeated lookups within one process\n        self._hot.update(found)\n        while len(self._hot) > HOT_ENTRIES:\n            self._hot.pop(next(iter(self._hot)))",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (2 lines -> 9 lines).",
            ),
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "DEFAULT_MAX_ENTRIES = 50_000",
                    "new": "DEFAULT_MAX_ENTRIES = 50_000\nHOT_ENTRIES = 5_000",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (1 line -> 2 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest -q && python bench/bench_cache.py --texts 20000 --dim 384 | tail -9"
                },
                D("""
            ........................................................................ [ 33%]
            ........................................................................ [ 66%]
            .....................................................ss.s............... [100%]
            216 passed, 3 skipped in 8.71s
            phase                          dict        sqlite      ratio
            ----------------------------   ---------   ---------   --------
            cold fill (20000 puts)         0.040 s     0.418 s     10.5x
            warm get, same process         0.017 s     0.021 s     1.2x
            warm get, after reopen         n/a         0.168 s     -
            embed_many (2000, all cached)  0.005 s     0.006 s     1.2x
            file size                      -           33.1 MB     -

            hit rate after reopen: 1.0000 (20000/20000)
        """),
                secs=(18, 26),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "remember",
                {
                    "abstract": "SQLite embedding cache: per-row commits made it 700x slower than the dict; batching plus a small in-memory front layer brings warm reads to 1.2x.",
                    "text": T("""
                Benchmark on 20k x 384-dim vectors (bench/bench_cache.py, fake embedder).
                First version: one transaction per put and an UPDATE+commit per get gave
                31.9 s cold fill and 4.2 s warm reads. Fixes: put_many/get_many with
                executemany and IN (...) in chunks of 500, a running row count instead of
                COUNT(*), recency kept in memory and flushed before eviction, plus a
                5000-entry in-memory front layer. Result: 0.42 s cold fill, 0.021 s warm
                reads in-process, 0.17 s after reopen. Tests must set CHUNKSCOPE_CACHE_DIR
                (autouse fixture in tests/conftest.py) or they write into ~/.cache.
            """),
                },
                "Stored memory #98.",
            )
        ],
    )
    L.bot(
        content=T("""
            Done with the benchmark. Numbers for 20,000 vectors of 384 dimensions:

            | phase | dict | SQLite |
            |---|---|---|
            | cold fill | 0.040 s | 0.418 s |
            | warm read, same process | 0.017 s | 0.021 s |
            | warm read after restart | (empty) | 0.168 s |

            So warm reads inside one session are now within 20% of the dict, thanks to a
            small in-memory front layer, and after a restart you pay 0.17 s instead of
            about 40 s of re-embedding. The database for that size is 33 MB.

            The first version was far slower (32 s to fill) because every row was its own
            transaction and every read also wrote a timestamp. Both are batched now. Full
            test suite: 216 passed, 3 skipped.
        """),
        reasoning="Report the numbers clearly and stop; the user may want to look before I go further.",
    )
    L.user(
        "That's a huge difference, thanks. How big will the file get for me? I have about 60 logs in ~/agent-logs and I open most of them at some point.",
        lo=200,
        hi=400,
    )
    L.bot(
        reasoning=T("""
            Easiest honest answer: count the unique chunk texts across their logs, and
            multiply by the bytes per row. A row is 384 x 4 = 1536 bytes of vector plus the
            64-char key, the two integers and page overhead, call it 1.7 KB. The headless
            CLI has a stats subcommand that chunks without embedding.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "python -m tui.cli --headless stats ~/agent-logs/*.jsonl --unique-chunks"
                },
                D("""
            files: 61  turns: 118,406  chunks (min_chars=80): 52,977
            unique chunk texts: 48,311
            after merge passes (estimated, default cap): +9,870 merged texts
            total texts the cache would see: 58,181
        """),
                secs=(20, 35),
            )
        ],
    )
    L.bot(
        content=T("""
            About 58,000 distinct texts would pass through the cache if you opened every log
            (the merge loop creates new texts as it merges, which is why it is more than the
            48,000 unique chunks).

            The default max_entries is 50,000, so the cache tops out there and evicts the
            least recently used rows. At 384 dimensions that is roughly 85 MB on disk; with
            a 768-dimension model, about 165 MB. If that is too much, max_entries is a
            config setting and lowering it only costs re-embeds of old logs.
        """),
    )
    L.user(
        T("""
        Nice. Something is off though. I switched embed_model in chunkscope.toml to
        nomic-embed-text-v1.5 to compare the merges, and the merge view crashes when I open
        the big session log:

        ValueError: shapes (384,) and (768,) not aligned: 384 (dim 0) != 768 (dim 0)

        That never happened before today.
    """),
        lo=300,
        hi=600,
    )
    L.bot(
        reasoning=T("""
            I know what this is, or at least I have a strong suspect: the thing I noticed
            when I first read the file and then set aside. cache_key() hashes only the text.
            With the dict, switching models meant restarting the TUI, which emptied the
            cache, so the latent bug never showed. Now the cache survives the restart, so
            texts embedded by all-MiniLM-L6-v2 (384 dims) are served to a session that
            expects nomic-embed-text-v1.5 (768 dims). Any text that was not cached yet gets
            a 768-dim vector, so one log ends up with a mix, and the cosine between
            neighbours blows up.

            That is my fault: I saw the risk and did not act on it. Let me confirm before
            fixing, with evidence rather than my theory: find every use of cache_key, then
            look at the dims actually stored in the user's database.
        """),
        calls=[
            C(
                "recall",
                {"query": "embedding model switch vector dimension"},
                D("""
            Recalled 1 memory:
            #64 (2026-01-28) Default local model all-MiniLM-L6-v2 returns 384-dim float32 vectors, roughly 450 texts/s on the laptop CPU.
        """),
            )
        ],
    )
    L.bot(
        reasoning="384 is the old default model, 768 is nomic. Consistent with stale vectors from the old model. Now the code.",
        calls=[
            C(
                "grep",
                {"pattern": "cache_key", "path": ".", "include": "*.py"},
                D("""
            engine/embed_cache.py:55:def cache_key(text: str) -> str:
            engine/embed_cache.py:84:        return cache_key(text) in self._store
            engine/embed_cache.py:87:        vec = self._store.get(cache_key(text))
            engine/embed_cache.py:96:        evicted = self._store.put(cache_key(text), vec)
            engine/embed_cache.py:113:        keys = {text: cache_key(text) for text in texts}
            tests/test_embed_cache.py:4:from engine.embed_cache import EmbeddingCache, cache_key
            tests/test_embed_cache.py:29:    assert cache_key("abc\\n\\n") == cache_key("abc")
            tui/merge_view.py:212:            key = cache_key(chunk.text)  # for the similarity tooltip
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "sqlite3 ~/.cache/chunkscope/embeddings.sqlite3 'SELECT dim, COUNT(*) FROM vectors GROUP BY dim'"
                },
                D("""
            384|18211
            768|1204
        """),
                secs=(1, 2),
            )
        ],
    )
    L.bot(
        content=T("""
            Confirmed: your cache holds 18,211 vectors with 384 dimensions from the old
            model and 1,204 with 768 from nomic, all under the same keys.

            The cache key ignores the model. I'm fixing that now, together with a schema
            bump so old cache files are discarded safely.
        """),
        reasoning=T("""
            Confirmed: both dimensions live side by side under the same key space. The 1204
            768-dim rows are the chunks that were new after the model switch; everything
            else came back as 384 dims from the old model.

            Fix design:

            - cache_key(text, model) hashes model name, a NUL separator and the stripped
              text. The separator keeps "ab" + "c" distinct from "a" + "bc".
            - Bump SCHEMA_VERSION to 2 and store it in PRAGMA user_version. On open, a file
              with an older version drops and recreates the table. It is a cache, so
              throwing it away is always safe, and old rows have model-less keys that can
              never be hit again anyway.
            - Belt and braces: EmbeddingCache remembers the dimension of the first vector it
              sees per model and raises a clear error on a mismatch instead of letting numpy
              complain three layers later.
            - default_cache() must return a cache per model, not "the first caller wins".

            tui/merge_view.py:212 also calls cache_key for a tooltip; it needs the model too.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": 'def cache_key(text: str) -> str:\n    """Return the cache key for a piece of text.\n\n    Texts are normalised by stripping surrounding whitespace so that a chunk\n    re-split with a trailing blank line still hits the cache.\n    """\n    normalised = text.strip()\n    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()',
                    "new": 'def cache_key(text: str, model: str) -> str:\n    """Return the cache key for a piece of text embedded by ``model``.\n\n    The model is part of the key: the cache persists across restarts, so a model\n    switch must never serve vectors computed by the previous model. Texts are\n    normalised by stripping surrounding whitespace so that a chunk re-split with a\n    trailing blank line still hits the cache.\n    """\n    normalised = text.strip()\n    payload = model.encode("utf-8") + b"\\x00" + normalised.encode("utf-8")\n    return hashlib.sha256(payload).hexdigest()',
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (8 lines -> 11 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "        keys = {text: cache_key(text) for text in texts}",
                    "new": "        keys = {text: cache_key(text, self.model) for text in texts}",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (1 line -> 1 line).",
            )
        ],
    )
    L.bot(
        reasoning="The single-text paths (__contains__, get, put) still call cache_key(text). One edit each would be noisy; a helper method _key(text) is cleaner.",
        calls=[
            C(
                "run",
                {
                    "command": "sed -i 's/cache_key(text) in self._store/self._key(text) in self._store/; s/self._store.get(cache_key(text))/self._store.get(self._key(text))/; s/self._store.put(cache_key(text), vec)/self._store.put(self._key(text), vec)/' engine/embed_cache.py && grep -n '_key(text' engine/embed_cache.py"
                },
                D("""
            84:        return self._key(text) in self._store
            87:        vec = self._store.get(self._key(text))
            96:        evicted = self._store.put(self._key(text), vec)
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    def __len__(self) -> int:\n        return len(self._store)",
                    "new": "    def _key(self, text: str) -> str:\n        return cache_key(text, self.model)\n\n    def __len__(self) -> int:\n        return len(self._store)",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (2 lines -> 5 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "        self._conn.executescript(_SCHEMA)",
                    "new": '        (version,) = self._conn.execute("PRAGMA user_version").fetchone()\n        if version != SCHEMA_VERSION:\n            # old keys did not include the model; a cache can always be rebuilt\n            self._conn.execute("DROP TABLE IF EXISTS vectors")\n            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")\n        self._conn.executescript(_SCHEMA)',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (1 line -> 6 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "SCHEMA_VERSION = 1",
                    "new": "SCHEMA_VERSION = 2",
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (1 line -> 1 line).",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Now default_cache. A dict of caches keyed by model, all sharing the same SQLite
            file is fine because keys are now model-scoped. reset_default_cache clears the
            dict. And the tooltip in merge_view.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": '_default: EmbeddingCache | None = None\n_default_lock = threading.Lock()\n\n\ndef default_cache(embed_fn: EmbedFn, model: str) -> EmbeddingCache:\n    """Return the process-wide cache, creating it on first use.\n\n    Note: the model of the first caller wins; later callers with a different\n    model get the same cache back. Harmless while the cache lives and dies\n    with the process, because the model can only change on restart.\n    """\n    global _default\n    with _default_lock:\n        if _default is None:\n            _default = EmbeddingCache(embed_fn=embed_fn, model=model)\n        return _default',
                    "new": '_defaults: dict[str, EmbeddingCache] = {}\n_default_lock = threading.Lock()\n\n\ndef default_cache(embed_fn: EmbedFn, model: str) -> EmbeddingCache:\n    """Return the process-wide cache for ``model``, creating it on first use."""\n    with _default_lock:\n        if model not in _defaults:\n            _defaults[model] = EmbeddingCache(embed_fn=embed_fn, model=model)\n        return _defaults[model]',
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (16 lines -> 10 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "tui/merge_view.py",
                    "old": "            key = cache_key(chunk.text)  # for the similarity tooltip",
                    "new": "            key = cache_key(chunk.text, self.cache.model)  # for the similarity tooltip",
                },
                "Edited tui/merge_view.py: replaced 1 occurrence (1 line -> 1 line).",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            A regression test that reproduces the user's report in miniature: same file, two
            fake models with different dimensions, and the second must never see the first
            one's vectors. Plus the schema upgrade: a version-1 file must come back empty.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "tests/test_sqlite_cache.py",
                    "old": "def test_eviction_counts_rows(tmp_path):",
                    "new": 'def test_model_switch_never_serves_old_vectors(tmp_path):\n    path = tmp_path / "emb.sqlite3"\n    small = EmbeddingCache(embed_fn=fake_embed, model="fake-4d", path=path)\n    small.embed_many(["shared text"])\n    small.close()\n\n    def wide(texts):\n        return [np.zeros(8, dtype=np.float32) for _ in texts]\n\n    big = EmbeddingCache(embed_fn=wide, model="fake-8d", path=path)\n    (vec,) = big.embed_many(["shared text"])\n    assert vec.shape == (8,)\n\n\ndef test_old_schema_is_discarded(tmp_path):\n    import sqlite3\n\n    path = tmp_path / "emb.sqlite3"\n    conn = sqlite3.connect(path)\n    conn.execute("CREATE TABLE vectors (key TEXT PRIMARY KEY, dim INTEGER, data BLOB, last_used INTEGER)")\n    conn.execute("INSERT INTO vectors VALUES (\'k\', 1, x\'00000000\', 1)")\n    conn.commit()\n    conn.close()\n    assert len(SqliteVectorStore(path)) == 0\n\n\ndef test_eviction_counts_rows(tmp_path):',
                },
                "Edited tests/test_sqlite_cache.py: replaced 1 occurrence (1 line -> 27 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "tests/test_embed_cache.py",
                    "old": 'def test_key_ignores_surrounding_whitespace():\n    assert cache_key("abc\\n\\n") == cache_key("abc")',
                    "new": 'def test_key_ignores_surrounding_whitespace():\n    assert cache_key("abc\\n\\n", "m") == cache_key("abc", "m")\n\n\ndef test_key_depends_on_model():\n    assert cache_key("abc", "m1") != cache_key("abc", "m2")\n    assert cache_key("bc", "a") != cache_key("c", "ab")',
                },
                "Edited tests/test_embed_cache.py: replaced 1 occurrence (2 lines -> 7 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python -m pytest -q"},
                D("""
            ........................................................................ [ 32%]
            ........................................................................ [ 65%]
            ........................................................ss.s............ [ 98%]
            ...                                                                      [100%]
            219 passed, 3 skipped in 8.93s
        """),
                secs=(9, 14),
            )
        ],
    )
    L.bot(
        reasoning="Before trying the real TUI path, lint and types: I touched signatures, and mypy runs in strict mode on engine/.",
        calls=[
            C(
                "run",
                {"command": "ruff check engine tests bench && mypy engine"},
                D("""
            engine/embed_cache.py:128:55: B905 `zip()` without an explicit `strict=` parameter
            engine/embed_cache.py:131:34: B905 `zip()` without an explicit `strict=` parameter
            bench/bench_cache.py:21:5: E731 Do not assign a `lambda` expression, use a `def`
            Found 3 errors.
            No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).
        """),
                secs=(3, 6),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Both zips pair pending with vectors, and a few lines above embed_many raises if
            the backend returned a different number of vectors, so strict=True is correct
            and documents that invariant. The lambda in the bench becomes a def.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "sed -i 's/zip(pending, vectors)/zip(pending, vectors, strict=True)/g' engine/embed_cache.py && grep -c 'strict=True' engine/embed_cache.py"
                },
                "2",
            ),
            C(
                "edit",
                {
                    "path": "bench/bench_cache.py",
                    "old": "    rng = np.random.default_rng(7)\n    return lambda texts: [rng.standard_normal(dim).astype(np.float32) for _ in texts]",
                    "new": "    rng = np.random.default_rng(7)\n\n    def fake(texts):\n        return [rng.standard_normal(dim).astype(np.float32) for _ in texts]\n\n    return fake",
                },
                "Edited bench/bench_cache.py: replaced 1 occurrence (2 lines -> 6 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "ruff check engine tests bench && mypy engine"},
                D("""
            All checks passed!
            Success: no issues found in 14 source files
        """),
                secs=(4, 8),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Tests pass, but the user's crash was in the real TUI with a real database. The
            schema bump should wipe the mixed file on first open. I can reproduce the
            user's path headlessly: the smoke command opens a log, embeds and merges with
            the configured model, and prints the chunk count.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "python -m tui.cli --headless merge sample_logs/big_session.jsonl --model nomic-embed-text-v1.5 && sqlite3 ~/.cache/chunkscope/embeddings.sqlite3 'PRAGMA user_version; SELECT dim, COUNT(*) FROM vectors GROUP BY dim'"
                },
                D("""
            loaded 2143 turns from sample_logs/big_session.jsonl
            chunks: 611 before merging
            embedding 611 chunks with nomic-embed-text-v1.5 ... 611 misses, 38.7 s
            merge: 7 passes, 611 -> 94 chunks (max_chunk_chars=8192)
            2
            768|611
        """),
                secs=(40, 55),
            )
        ],
    )
    L.bot(
        content=T("""
            Found and fixed it. The cache key only hashed the chunk text, not the model.
            With the old dict that never mattered, because switching models meant
            restarting and the cache died with the process. Now that the cache persists,
            your new model was being served 18,211 vectors from all-MiniLM (384 dims)
            mixed with 1,204 fresh ones from nomic (768 dims). I'd spotted the risk when I
            first read the file and should have fixed it then.

            What changed:

            - cache_key(text, model): the model name is part of the hash.
            - The SQLite schema is now version 2. Old cache files are discarded on first
              open, which is safe because it is only a cache. Your first open with each
              model re-embeds once.
            - default_cache() keeps one cache per model instead of "first caller wins".
            - Regression tests for a model switch on the same file, and for the schema
              upgrade.

            A headless merge of the big log with nomic now works: 611 chunks embedded at
            768 dims, 94 after merging.
        """),
        reasoning="Owning the mistake matters here: I noticed the risk early and deferred it.",
    )
    L.user("Keep going, you have budget left.", lo=4, hi=8)
    L.bot(
        reasoning=T("""
            What is left that a user would trip over?

            First, the bench README does not mention bench_cache.py. Second, nobody has a
            way to see or clear the cache without sqlite3. snapshot() already feeds the F12
            debug panel, so adding the path there (done) gives visibility; a clear action
            is a UI change I should ask about rather than invent.

            Third, and more important: the cache file grows without bound across models,
            because max_entries applies per store and all models share one store. Worth
            checking what max_entries means now.
        """),
        calls=[
            C(
                "read",
                {"path": "bench/README.md"},
                D("""
            # Benchmarks

            Scripts that time the engine on the logs in bench/data/. Results go to
            bench/results/ as CSV, one file per script and date.

            - bench_chunk.py: parse + chunk + compact, no embeddings.
            - bench_merge.py: the merge loop on precomputed embeddings
              (bench/data/*.npy), sweeping max_chunk_chars.

            Run from the repository root:

                python bench/bench_merge.py --log bench/data/big_session.jsonl
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "bench/README.md",
                    "old": "  (bench/data/*.npy), sweeping max_chunk_chars.",
                    "new": "  (bench/data/*.npy), sweeping max_chunk_chars.\n- bench_cache.py: the dict cache against the SQLite cache on synthetic\n  vectors (cold fill, warm reads, reads after reopening). Storage only, no\n  model calls.",
                },
                "Edited bench/README.md: replaced 1 occurrence (1 line -> 4 lines).",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            On max_entries: every EmbeddingCache opens its own SqliteVectorStore on the same
            file, each with its own running _count. Two caches for two models each think
            they own the table. Their counts drift, and eviction by one cache will happily
            delete the other model's rows, which is acceptable for an LRU over the whole
            file but the running counts then lie. Cheap fix: re-read COUNT(*) inside
            _evict_locked only when the running count says we are over the limit. That
            keeps the fast path fast and makes the decision on true data.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "        excess = self._count - self.max_entries\n        if excess <= 0:\n            return 0",
                    "new": '        if self._count <= self.max_entries:\n            return 0\n        # other stores (other models) share this file; trust only the real count\n        (self._count,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()\n        excess = self._count - self.max_entries\n        if excess <= 0:\n            return 0',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (3 lines -> 7 lines).",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            That recount made me think about the other multi-process case, which is the
            user's normal setup if they open two windows: two processes opening the same
            file. WAL handles concurrent readers and serialises writers, and Python's
            sqlite3 waits up to five seconds on a locked database by default, so ordinary
            writes are fine.

            The schema check in __init__ is not. It reads user_version, and if it is old,
            drops the table and sets the version, all outside any transaction. Two
            processes opening an old file at the same moment can both read version 1; the
            slower one then drops the table the faster one has just created and started
            filling. That is precisely what will happen the first time the user opens two
            windows after upgrading.

            Theory is cheap; I'll write a small stress script that opens one file from
            several processes released by a barrier, and see whether rows get lost.
        """),
        calls=[C("write", {"path": "tools/hammer_cache.py", "content": HAMMER_PY}, "")],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "rm -f /tmp/h.sqlite3* && sqlite3 /tmp/h.sqlite3 'PRAGMA user_version=1; CREATE TABLE vectors(key TEXT PRIMARY KEY, dim INT, data BLOB, last_used INT);' && python tools/hammer_cache.py /tmp/h.sqlite3 --workers 4 --rows 5000"
                },
                D("""
            worker 2: 5000/5000 rows readable  ok
            worker 0: 0/5000 rows readable  FAIL
            Traceback (most recent call last):
              File "/home/dev/chunkscope/tools/hammer_cache.py", line 27, in worker
                store.put_many(items)
            sqlite3.OperationalError: no such table: vectors
            worker 3: 5000/5000 rows readable  ok
            worker 1: 3500/5000 rows readable  FAIL
        """),
                secs=(6, 10),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Reproduced on the first try, and it is worse than a crash. Worker 0 failed loudly
            with "no such table" because another worker dropped the table between its
            CREATE and its first insert. Worker 1 failed silently: 1500 of its rows vanished
            because a late opener dropped the table after worker 1 had already written them.
            In the real app that second kind is just a cache miss, but the first kind is a
            crash on startup.

            Fix: do the version check and migration inside BEGIN IMMEDIATE, which takes the
            write lock up front (and waits for it under the busy timeout), and re-read
            user_version inside the transaction. Only the first process migrates; everyone
            after it sees version 2 and does nothing. isolation_level=None so that the
            explicit BEGIN is not fighting the sqlite3 module's implicit transactions.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": '        (version,) = self._conn.execute("PRAGMA user_version").fetchone()\n        if version != SCHEMA_VERSION:\n            # old keys did not include the model; a cache can always be rebuilt\n            self._conn.execute("DROP TABLE IF EXISTS vectors")\n            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")\n        self._conn.executescript(_SCHEMA)',
                    "new": '        self._migrate()\n\n    def _migrate(self) -> None:\n        """Bring the file to SCHEMA_VERSION; safe when many processes open it at once."""\n        conn = self._conn\n        conn.isolation_level = None\n        conn.execute("BEGIN IMMEDIATE")  # take the write lock before looking\n        try:\n            (version,) = conn.execute("PRAGMA user_version").fetchone()\n            if version != SCHEMA_VERSION:\n                # old keys did not include the model; a cache can always be rebuilt\n                conn.execute("DROP TABLE IF EXISTS vectors")\n                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")\n            for stmt in filter(str.strip, _SCHEMA.split(";")):\n                conn.execute(stmt)\n            conn.execute("COMMIT")\n        except BaseException:\n            conn.execute("ROLLBACK")\n            raise\n        finally:\n            conn.isolation_level = ""',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (6 lines -> 21 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "for i in 1 2 3 4 5; do rm -f /tmp/h.sqlite3* && sqlite3 /tmp/h.sqlite3 'PRAGMA user_version=1; CREATE TABLE vectors(key TEXT PRIMARY KEY, dim INT, data BLOB, last_used INT);' && python tools/hammer_cache.py /tmp/h.sqlite3 --workers 8 --rows 5000 | grep -c ' ok$'; done"
                },
                D("""
            8
            8
            8
            8
            8
        """),
                secs=(30, 45),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Five runs of eight workers, no losses. After this many small edits to
            sqlite_cache.py I no longer trust my mental model of the file, and the user
            will read it. Re-reading the whole thing once, top to bottom, is cheap
            insurance.
        """),
        calls=[C("read", {"path": "engine/sqlite_cache.py"}, SQLITE_CACHE_FINAL_PY)],
    )
    L.bot(
        reasoning=T("""
            It reads coherently. Two things I checked specifically: clear() resets the
            running count and the pending recency (otherwise the first put after a clear
            would try to evict rows that no longer exist), and close() flushes recency
            before closing, so LRU order survives a restart.

            One wart: put_many counts a REPLACE of an existing key as a new row, so _count
            can over-estimate. That is harmless now, because _evict_locked recounts before
            deleting anything.
        """),
        content=T("""
            The cache file is now safe to open from several windows at once. The one-time
            schema upgrade had a race: two processes opening an old file together could
            drop each other's freshly created table. tools/hammer_cache.py reproduced it on
            the first try (one crash, one silent loss of 1,500 rows). The migration now runs
            inside BEGIN IMMEDIATE, and five runs of eight workers lose nothing.
        """),
    )
    L.user("Continue.", lo=4, hi=8)
    L.system("Warning: 80% of token budget used")
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest -q tests/test_embed_cache.py tests/test_sqlite_cache.py tests/test_merge.py"
                },
                D("""
            ..............................                                           [100%]
            30 passed in 1.12s
        """),
                secs=(2, 4),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "remember",
                {
                    "abstract": "Persisting a cache turns 'restart clears it' assumptions into bugs: the embedding cache key must include the model name.",
                    "text": T("""
                After moving the embedding cache to SQLite, switching embed_model crashed the
                merge view with mismatched 384/768 dims, because cache_key hashed only the
                text. Fixed with cache_key(text, model), schema version 2 in PRAGMA
                user_version (old files are dropped on open), one default cache per model,
                and a recount before eviction because several stores share one file. I had
                noticed the model-less key on first reading and deferred it; next time fix
                latent assumptions before making state persistent.
            """),
                },
                "Stored memory #99.",
            )
        ],
    )
    L.bot(
        content=T("""
            All done. Summary of the session:

            - The embedding cache is persistent (SQLite, in the platform cache dir,
              overridable with CHUNKSCOPE_CACHE_DIR).
            - Warm reads are within 20% of the old dict in-process, and 0.17 s for 20k
              vectors after a restart instead of a full re-embed.
            - The model-switch crash is fixed; cache keys include the model.
            - Several windows can open the same cache at once, including the one-time
              schema upgrade; tools/hammer_cache.py reproduces the race I found and fixed.
            - bench/bench_cache.py and its README entry, plus 8 new tests.

            One open question for you: do you want a "clear embedding cache" action in the
            TUI? The F12 panel now shows the file path, so it is easy to delete by hand.
        """),
        reasoning="Everything the user asked for is done. I'll leave the open question with them rather than call done straight away; a UI action is their call.",
    )
    L.user(
        T("""
        Yes please: a "Clear embedding cache" entry in the command palette, with a
        confirmation, because it costs a full re-embed. Show how many vectors and MB it
        will delete.
    """),
        lo=120,
        hi=300,
    )
    L.bot(
        calls=[
            C(
                "ls",
                {"path": "tui"},
                D("""
            __init__.py
            app.py
            cli.py
            commands.py
            confirm.py
            merge_view.py
            recap_view.py
            styles.tcss
            widgets/
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "read",
                {"path": "tui/commands.py"},
                D('''
            """Command palette provider for chunkscope."""

            from __future__ import annotations

            from functools import partial

            from textual.command import Hit, Hits, Provider

            from tui.confirm import ConfirmScreen


            class ChunkscopeCommands(Provider):
                """Actions that apply to the whole app rather than one view."""

                def _commands(self):
                    app = self.app
                    return [
                        ("Open log...", app.action_open_log, "Pick a JSONL or markdown file"),
                        ("Reload log", app.action_reload, "Re-read the current file from disk"),
                        ("Toggle theme", app.action_toggle_dark, "Switch light and dark"),
                        ("Export chunks as markdown", app.action_export_md, "Write chunks to a .md file"),
                    ]

                async def search(self, query: str) -> Hits:
                    matcher = self.matcher(query)
                    for name, action, help_text in self._commands():
                        score = matcher.match(name)
                        if score > 0:
                            yield Hit(score, matcher.highlight(name), action, help=help_text)
        '''),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The pattern is a list of (name, action, help). ConfirmScreen exists already, so
            the new action goes in app.py and pushes a ConfirmScreen whose message carries
            the counts. For the numbers I need a cheap size query on the store: row count
            and page_count * page_size from PRAGMAs, which avoids a stat() on the WAL
            files and is accurate enough to show as MB.

            Clearing while a merge is embedding in a worker thread is a race, but the store
            lock covers it: clear() takes the lock, the worker's next put_many waits.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "tui/commands.py",
                    "old": '            ("Export chunks as markdown", app.action_export_md, "Write chunks to a .md file"),',
                    "new": '            ("Export chunks as markdown", app.action_export_md, "Write chunks to a .md file"),\n            ("Clear embedding cache", app.action_clear_cache, "Delete stored vectors (needs a re-embed)"),',
                },
                "Edited tui/commands.py: replaced 1 occurrence (1 line -> 2 lines).",
            ),
            C(
                "edit",
                {
                    "path": "engine/sqlite_cache.py",
                    "old": "    def clear(self) -> None:",
                    "new": '    def size(self) -> tuple[int, int]:\n        """(rows, bytes) of the cache file, from PRAGMAs; cheap enough for a dialog."""\n        with self._lock:\n            (rows,) = self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()\n            (pages,) = self._conn.execute("PRAGMA page_count").fetchone()\n            (page_size,) = self._conn.execute("PRAGMA page_size").fetchone()\n        return int(rows), int(pages * page_size)\n\n    def clear(self) -> None:',
                },
                "Edited engine/sqlite_cache.py: replaced 1 occurrence (1 line -> 8 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "tui/app.py",
                    "old": "    def action_export_md(self) -> None:",
                    "new": '    def action_clear_cache(self) -> None:\n        cache = self.merge_view.cache\n        rows, size = cache.store_size()\n        message = (\n            f"Delete {rows:,} cached vectors ({size / 1e6:.1f} MB)?\\n"\n            "Every log will be re-embedded the next time it is opened."\n        )\n\n        def on_answer(confirmed: bool | None) -> None:\n            if confirmed:\n                cache.clear()\n                self.notify(f"Cleared {rows:,} vectors.")\n\n        self.push_screen(ConfirmScreen(message, confirm_label="Delete"), on_answer)\n\n    def action_export_md(self) -> None:',
                },
                "Edited tui/app.py: replaced 1 occurrence (1 line -> 15 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "engine/embed_cache.py",
                    "old": "    def clear(self) -> None:\n        self._store.clear()",
                    "new": "    def store_size(self) -> tuple[int, int]:\n        return self._store.size()\n\n    def clear(self) -> None:\n        self._store.clear()\n        self._hot.clear()",
                },
                "Edited engine/embed_cache.py: replaced 1 occurrence (2 lines -> 6 lines).",
            )
        ],
    )
    L.bot(
        reasoning="clear() must also empty the hot layer, otherwise a cleared cache keeps answering from memory; I fixed that in the same edit. Now the TUI smoke tests, which drive the command palette with a pilot.",
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest -q tests/test_tui_smoke.py tests/test_embed_cache.py tests/test_sqlite_cache.py"
                },
                D("""
            ...................                                                      [100%]
            19 passed in 4.87s
        """),
                secs=(6, 9),
            )
        ],
    )
    L.bot(
        content=T("""
            Added "Clear embedding cache" to the command palette. It asks for confirmation
            with the numbers, e.g. "Delete 18,211 cached vectors (31.4 MB)?", and clearing
            also empties the in-memory layer so nothing stale survives until the restart.

            That closes everything from today.
        """),
        calls=[
            C(
                "done",
                {
                    "summary": "Moved the embedding cache to SQLite with batched reads/writes and an in-memory front layer (warm reads 1.2x the dict, 0.17 s after restart for 20k vectors); fixed the model-switch crash by putting the model in the cache key, made the schema upgrade safe across processes, and added a 'Clear embedding cache' command."
                },
                "Session marked as done.",
            )
        ],
    )
    L.system(L.stats_line())
    L.system("[stop] agent called done")
    return L


# ============================================================= session 2: docs cleanup

DOCS_TREE = D("""
    docs/
    ├── index.md
    ├── install.md
    ├── quickstart.md
    ├── config.md
    ├── configuration.md
    ├── rules.md
    ├── rules-reference.md
    ├── writing-rules.md
    ├── plugins.md
    ├── ci.md
    ├── github-actions.md
    ├── pre-commit.md
    ├── watch-mode.md
    ├── faq.md
    ├── troubleshooting.md
    ├── architecture.md
    ├── design-decisions.md
    ├── caching.md
    ├── changelog.md
    ├── contributing.md
    ├── release.md
    ├── old/
    │   ├── v1-migration.md
    │   └── rules-v1.md
    └── img/
        ├── pipeline.svg
        └── watch-demo.gif

    3 directories, 25 files
""")

MKDOCS_OLD = D("""
    site_name: quillmark
    site_url: https://quillmark.dev/
    repo_url: https://github.com/quillmark/quillmark
    theme:
      name: material
      features:
        - navigation.sections
        - content.code.copy
    markdown_extensions:
      - admonition
      - toc:
          permalink: true
      - pymdownx.superfences
    nav:
      - Home: index.md
      - Install: install.md
      - Quickstart: quickstart.md
      - Configuration: configuration.md
      - Rules: rules.md
      - Rules reference: rules-reference.md
      - Writing rules: writing-rules.md
      - Plugins: plugins.md
      - CI: ci.md
      - Watch mode: watch-mode.md
      - FAQ: faq.md
      - Architecture: architecture.md
      - Changelog: changelog.md
""")

MKDOCS_NEW = D("""
    site_name: quillmark
    site_url: https://quillmark.dev/
    repo_url: https://github.com/quillmark/quillmark
    theme:
      name: material
      features:
        - navigation.sections
        - navigation.indexes
        - content.code.copy
    markdown_extensions:
      - admonition
      - toc:
          permalink: true
      - pymdownx.superfences
    plugins:
      - search
      - redirects:
          redirect_maps:
            install.md: getting-started/install.md
            quickstart.md: getting-started/quickstart.md
            configuration.md: reference/configuration.md
            config.md: reference/configuration.md
            rules.md: reference/rules.md
            ci.md: how-to/ci.md
            pre-commit.md: how-to/pre-commit.md
            faq.md: how-to/troubleshooting.md
    nav:
      - Home: index.md
      - Getting started:
          - Install: getting-started/install.md
          - Quickstart: getting-started/quickstart.md
          - Watch mode: getting-started/watch-mode.md
      - How-to guides:
          - Run quillmark in CI: how-to/ci.md
          - Use it with pre-commit: how-to/pre-commit.md
          - Write a custom rule: how-to/writing-rules.md
          - Build a plugin: how-to/plugins.md
          - Troubleshooting and FAQ: how-to/troubleshooting.md
      - Reference:
          - Configuration: reference/configuration.md
          - Rules: reference/rules.md
          - Command line: reference/cli.md
          - Legacy (v1):
              - Migrating from v1: reference/legacy/v1-migration.md
              - v1 rules: reference/legacy/rules-v1.md
      - Design:
          - Architecture: design/architecture.md
          - Design decisions: design/decisions.md
          - Caching: design/caching.md
      - Project:
          - Contributing: project/contributing.md
          - Releasing: project/release.md
          - Changelog: project/changelog.md
""")

INDEX_MD = D("""
    # quillmark

    quillmark is a fast, configurable linter for Markdown. It checks prose and
    structure (heading levels, link targets, list style, line length, code fence
    languages) and can fix most of what it finds.

    ```bash
    pipx install quillmark
    quillmark check docs/
    ```

    ## Where to go next

    - New here? Start with [Install](install.md) and the [Quickstart](quickstart.md).
    - Setting up CI? See [CI](ci.md), or [GitHub Actions](github-actions.md) if you
      only need the ready-made workflow.
    - Looking for a rule? The [rules overview](rules.md) groups them by topic; the
      [rules reference](rules-reference.md) lists every option.
    - Tuning the config? [Configuration](configuration.md) covers quillmark.toml and
      the `[tool.quillmark]` table in pyproject.toml.
    - Curious how it works? Read [Architecture](architecture.md) and
      [Design decisions](design-decisions.md).

    !!! note
        The v1 documentation lives under [old/](old/v1-migration.md) until v3.
""")

WATCH_PY = D('''
    """Watch mode: re-run checks when files change, debounced."""

    from __future__ import annotations

    import threading
    from collections.abc import Callable
    from pathlib import Path

    from watchfiles import watch

    DEBOUNCE_SECONDS = 0.2


    class Debouncer:
        """Collect paths and call ``callback`` once things have been quiet for ``delay`` s."""

        def __init__(self, delay: float, callback: Callable[[set[Path]], None]) -> None:
            self.delay = delay
            self.callback = callback
            self._pending: set[Path] = set()
            self._timer: threading.Timer | None = None
            self._lock = threading.Lock()

        def touch(self, path: Path) -> None:
            with self._lock:
                self._pending.add(path)
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = threading.Timer(self.delay, self._fire)
                self._timer.daemon = True
                self._timer.start()

        def _fire(self) -> None:
            with self._lock:
                paths, self._pending = self._pending, set()
                self._timer = None
            if paths:
                self.callback(paths)

        def cancel(self) -> None:
            with self._lock:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = None
                self._pending.clear()


    def run_watch(root: Path, on_change: Callable[[set[Path]], None]) -> None:
        debouncer = Debouncer(DEBOUNCE_SECONDS, on_change)
        try:
            for changes in watch(root, recursive=True):
                for _kind, raw in changes:
                    if raw.endswith((".md", ".markdown", ".toml")):
                        debouncer.touch(Path(raw))
        finally:
            debouncer.cancel()
''')

TEST_WATCH_PY = D("""
    import time
    from pathlib import Path

    from quillmark.watch import Debouncer


    def test_watcher_debounce(tmp_path):
        calls = []
        d = Debouncer(0.2, calls.append)
        d.touch(tmp_path / "a.md")
        time.sleep(0.15)
        d.touch(tmp_path / "b.md")
        time.sleep(0.35)
        assert calls == [{tmp_path / "a.md", tmp_path / "b.md"}]


    def test_cancel_drops_pending(tmp_path):
        calls = []
        d = Debouncer(0.05, calls.append)
        d.touch(tmp_path / "a.md")
        d.cancel()
        time.sleep(0.1)
        assert calls == []
""")

RELEASE_CHECKLIST_MD = D("""
    # Release checklist

    Copy this list into the release issue and tick items as you go. Steps marked
    (CI) are automated; check that they ran, don't redo them by hand.

    ## A week before

    - [ ] Create the release issue from the "Release" template and link this page.
    - [ ] Triage open issues with the milestone: move or close everything that will
          not make it.
    - [ ] Announce the feature freeze in the Discussions "Releases" thread.
    - [ ] Check that main is green on all three CI platforms for the last five runs
          (flaky tests count as red until they are fixed or quarantined).

    ## Changelog and version

    - [ ] Move entries from "Unreleased" to a new "X.Y.Z - YYYY-MM-DD" section of
          CHANGELOG.md. Every user-visible change needs an entry; internal
          refactors don't.
    - [ ] Call out breaking changes first, each with a migration note.
    - [ ] Bump the version in `src/quillmark/__init__.py` (the single source; the
          build backend reads it from there).
    - [ ] Regenerate the rules reference: `python tools/gen_rules_ref.py`.

    ## Build and verify

    - [ ] `mkdocs build --strict` passes locally.
    - [ ] `python -m build` then `twine check dist/*`.
    - [ ] Install the wheel in a fresh virtualenv and run `quillmark check docs/`
          and `quillmark watch --once docs/`.
    - [ ] (CI) The "release-dry-run" workflow passes on the release branch.

    ## Publish

    - [ ] Tag: `git tag -s vX.Y.Z -m "quillmark X.Y.Z"` and push the tag.
    - [ ] (CI) The "publish" workflow uploads to PyPI with trusted publishing.
    - [ ] (CI) The docs site deploys the tagged version and moves "latest".
    - [ ] Create the GitHub release from the tag; paste the changelog section.

    ## After

    - [ ] Add a fresh "Unreleased" section to CHANGELOG.md.
    - [ ] Bump the version on main to the next ".dev0".
    - [ ] Close the milestone and the release issue.
    - [ ] Post in Discussions; mention breaking changes explicitly.
""")


def build_docs_cleanup() -> Log:
    L = Log("docs_cleanup.jsonl", "2026-02-14T13:47:22", seed=1402, base_prompt=2650)

    L.user(
        T("""
        The docs folder has grown by accretion and nobody can find anything in it.
        Please reorganise docs/ into something sensible: getting started, how-to
        guides, reference, and design notes. Don't lose any content, fix the links,
        and make sure `mkdocs build --strict` passes at the end.
    """)
    )
    L.bot(
        reasoning="New task on the quillmark repo. Status first, then memories about the docs.",
        calls=[
            C(
                "status",
                {},
                "Session 6 | budget {budget} tokens, used {used} ({pct}%) | workspace /home/dev/quillmark | memories: 31 | previous session ended 2026-02-11 18:02",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "recall",
                {"query": "quillmark documentation mkdocs structure"},
                D("""
            Recalled 2 memories:
            #19 (2026-02-03) The docs site is mkdocs-material deployed from main by the docs.yml workflow; quillmark.dev links to /install/ and /configuration/ from the landing page.
            #24 (2026-02-05) config.md is an older copy of configuration.md that a contributor revived in PR #412; the user said to merge them "some time".
        """),
            )
        ],
    )
    L.bot(
        reasoning="Memory #24 is directly relevant: there are two configuration pages. Let me see the full note before deciding which one wins.",
        calls=[
            C(
                "recall_detail",
                {"chunk_id": 24},
                T("""
            Memory #24 (2026-02-05, session 3)

            Abstract: config.md is an older copy of configuration.md that a contributor
            revived in PR #412; the user said to merge them "some time".

            While fixing the pyproject example I noticed docs/config.md and
            docs/configuration.md overlap by about 80%. config.md is the v2.0 page;
            configuration.md was rewritten for 2.3 and is the one in the nav. PR #412
            added a section on the [tool.quillmark] table in pyproject.toml to config.md
            instead, so that section exists only in the page that is not in the nav.
            The user said: merge them some time, keep the pyproject section.
        """),
            )
        ],
    )
    L.bot(
        calls=[C("run", {"command": "tree docs"}, DOCS_TREE, secs=(1, 2))],
    )
    L.bot(
        calls=[
            C("read", {"path": "mkdocs.yml"}, MKDOCS_OLD),
            C("read", {"path": "docs/index.md"}, INDEX_MD),
        ],
    )
    L.bot(
        content=T("""
            The docs folder has 25 pages, but the nav lists only 13 of them, so about half
            of the documentation can only be reached through links.

            The layout I'm aiming for: getting-started, how-to, reference and design, as
            you asked, plus a small "project" section for contributing, releasing and the
            changelog, which are about the project rather than the product.

            Some pages cover the same ground (config.md and configuration.md, faq.md and
            troubleshooting.md). I'll compare each pair before merging so nothing is lost.
        """),
        reasoning=T("""
            25 files in a flat folder, and the nav only lists 13 of them. So 12 pages are
            reachable only through links, if at all: config.md, github-actions.md,
            pre-commit.md, troubleshooting.md, design-decisions.md, caching.md,
            contributing.md, release.md, the two old/ pages and two more. mkdocs in strict
            mode does not fail on pages missing from the nav, it only reports them as INFO,
            which is how this happened.

            The four sections the user asked for map naturally onto the Diátaxis split:
            tutorials (getting started), how-to guides, reference, explanation (design).
            Some pages don't fit any of the four: contributing, release and changelog are
            about the project, not the product. A small fifth section "Project" is better
            than forcing them into "design".

            Proposed mapping:

            - getting-started/: install, quickstart, watch-mode (it is written as a
              walkthrough, not a reference).
            - how-to/: ci (merged with github-actions, which is a strict subset), pre-commit,
              writing-rules, plugins, troubleshooting (merged with faq).
            - reference/: configuration (merged with config), rules (merged with
              rules-reference), cli (new, generated from --help), legacy/ for old/.
            - design/: architecture, decisions (renamed from design-decisions), caching.
            - project/: contributing, release, changelog.

            Merges are where content gets lost, so for each pair I'll diff first.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "diff <(grep -v '^$' docs/config.md) <(grep -v '^$' docs/configuration.md) | head -40"
                },
                D("""
            1c1
            < # Configuration (v2.0)
            ---
            > # Configuration
            4,6c4,7
            < quillmark reads `quillmark.toml` from the current directory.
            < Options not set there use the defaults below.
            < See `quillmark config --show` for the merged result.
            ---
            > quillmark looks for `quillmark.toml`, then `.quillmark.toml`, walking up
            > from the current directory to the repository root. The first file found
            > wins; there is no merging between files. `quillmark config --show` prints
            > the effective configuration and where each value came from.
            18,19d18
            < `line-length` defaults to 80.
            < `fix` defaults to false.
            41a41,44
            > ## Per-directory overrides
            >
            > Use `[[override]]` tables with a `paths` glob to change rules for part of
            > the tree, e.g. relaxing line length under `docs/changelog/`.
            52,71d54
            < ## Using pyproject.toml
            <
            < Instead of a separate file you can put the same keys under
            < `[tool.quillmark]` in `pyproject.toml`. quillmark only reads it when no
            < quillmark.toml exists. Keys are identical; tables become dotted, e.g.
            < `[tool.quillmark.rules.line-length]`.
            <
            < ```toml
            < [tool.quillmark]
            < fix = true
            <
            < [tool.quillmark.rules.line-length]
            < max = 100
            < ```
            <
            < Precedence: quillmark.toml > .quillmark.toml > pyproject.toml.
        """),
                secs=(1, 2),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Exactly as the memory said: configuration.md is newer on everything except the
            pyproject.toml section, which only config.md has. The "line-length defaults to
            80" line is stale (configuration.md's table says 100), so it must not be
            carried over. Plan for the merge: configuration.md as the base, plus the
            pyproject section, with precedence stated in one place.

            Before moving anything, one question for the user, because it decides whether
            URLs break: memory #19 says the landing page at quillmark.dev links to
            /install/ and /configuration/. Moving those pages breaks external links unless
            there are redirects.
        """),
        calls=[
            C(
                "ask",
                {
                    "message": "Moving pages changes their URLs (e.g. /install/ becomes /getting-started/install/). The landing page and probably some blog posts link to the old ones. Shall I add redirects with the mkdocs-redirects plugin for the old URLs, or is it fine to break them?"
                },
                "Redirects please, for everything that was in the old nav plus config.md (people link to it from old issues). The rest can just move. mkdocs-redirects is fine, add it to docs/requirements.txt.",
                secs=(60, 200),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "cd docs && mkdir -p getting-started how-to reference/legacy design project && git mv install.md quickstart.md watch-mode.md getting-started/ && git mv ci.md pre-commit.md writing-rules.md plugins.md troubleshooting.md how-to/ && git mv configuration.md rules.md reference/ && git mv old/v1-migration.md old/rules-v1.md reference/legacy/ && git mv architecture.md caching.md design/ && git mv design-decisions.md design/decisions.md && git mv contributing.md release.md changelog.md project/ && rmdir old && git status --short | head -30"
                },
                D("""
            R  docs/install.md -> docs/getting-started/install.md
            R  docs/quickstart.md -> docs/getting-started/quickstart.md
            R  docs/watch-mode.md -> docs/getting-started/watch-mode.md
            R  docs/ci.md -> docs/how-to/ci.md
            R  docs/pre-commit.md -> docs/how-to/pre-commit.md
            R  docs/writing-rules.md -> docs/how-to/writing-rules.md
            R  docs/plugins.md -> docs/how-to/plugins.md
            R  docs/troubleshooting.md -> docs/how-to/troubleshooting.md
            R  docs/configuration.md -> docs/reference/configuration.md
            R  docs/rules.md -> docs/reference/rules.md
            R  docs/old/v1-migration.md -> docs/reference/legacy/v1-migration.md
            R  docs/old/rules-v1.md -> docs/reference/legacy/rules-v1.md
            R  docs/architecture.md -> docs/design/architecture.md
            R  docs/caching.md -> docs/design/caching.md
            R  docs/design-decisions.md -> docs/design/decisions.md
            R  docs/contributing.md -> docs/project/contributing.md
            R  docs/release.md -> docs/project/release.md
            R  docs/changelog.md -> docs/project/changelog.md
        """),
                secs=(1, 3),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Moves done with git mv so history follows the files. Left in the root: index.md,
            plus the four pages that get merged into others (config.md, github-actions.md,
            faq.md, rules-reference.md). I'll merge each and delete the source only after
            the content is in place.

            First merge: the pyproject section into reference/configuration.md, right
            after the section on file discovery, and drop the stale defaults line.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "docs/reference/configuration.md",
                    "old": "## Per-directory overrides",
                    "new": "## Using pyproject.toml\n\nInstead of a separate file you can put the same keys under\n`[tool.quillmark]` in `pyproject.toml`. quillmark reads it only when neither\n`quillmark.toml` nor `.quillmark.toml` exists. Keys are identical; tables become\ndotted, e.g. `[tool.quillmark.rules.line-length]`.\n\n```toml\n[tool.quillmark]\nfix = true\n\n[tool.quillmark.rules.line-length]\nmax = 100\n```\n\nPrecedence: `quillmark.toml` > `.quillmark.toml` > `pyproject.toml`.\n\n## Per-directory overrides",
                },
                "Edited docs/reference/configuration.md: replaced 1 occurrence (1 line -> 19 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "wc -l docs/ci.md docs/how-to/ci.md docs/github-actions.md docs/faq.md docs/how-to/troubleshooting.md docs/rules-reference.md docs/reference/rules.md 2>/dev/null; grep -c '^## ' docs/github-actions.md docs/faq.md docs/how-to/troubleshooting.md"
                },
                D("""
              96 docs/how-to/ci.md
              41 docs/github-actions.md
              58 docs/faq.md
              73 docs/how-to/troubleshooting.md
             412 docs/rules-reference.md
              88 docs/reference/rules.md
             768 total
            docs/github-actions.md:3
            docs/faq.md:9
            docs/how-to/troubleshooting.md:6
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "read",
                {"path": "docs/github-actions.md"},
                D("""
            # GitHub Actions

            The quickest way to lint Markdown in a GitHub repository.

            ## The workflow

            ```yaml
            name: docs-lint
            on: [push, pull_request]
            jobs:
              quillmark:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: quillmark/action@v2
                    with:
                      paths: docs/ README.md
            ```

            ## Annotations

            With `--format github` (the action sets it for you) findings appear as
            annotations on the pull request diff, so reviewers see them inline.

            ## Caching

            The action caches quillmark's parse cache keyed on the lockfile hash. Set
            `cache: false` to disable it if you see stale results after changing the
            config, and please report it: that is a bug.
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            how-to/ci.md already has the same workflow (I saw its headings in the wc
            listing earlier... no, I only counted lines; let me not assume). The
            annotations and caching notes are GitHub-specific and valuable. Rather than
            reading ci.md in full, a grep for the distinctive strings tells me what is
            already covered.
        """),
        calls=[
            C(
                "grep",
                {
                    "pattern": "quillmark/action|--format github|cache: false",
                    "path": "docs/how-to/ci.md",
                },
                D("""
            docs/how-to/ci.md:14:      - uses: quillmark/action@v2
            docs/how-to/ci.md:31:Use `--format github` so findings show up as annotations.
        """),
            )
        ],
    )
    L.bot(
        reasoning="Workflow and annotations are covered; the caching paragraph is the only unique content. Append it under the GitHub section of ci.md.",
        calls=[
            C(
                "edit",
                {
                    "path": "docs/how-to/ci.md",
                    "old": "Use `--format github` so findings show up as annotations.",
                    "new": "Use `--format github` so findings show up as annotations.\n\nThe action caches quillmark's parse cache keyed on the lockfile hash. Set\n`cache: false` to disable it if you see stale results after changing the config,\nand please report it: that is a bug.",
                },
                "Edited docs/how-to/ci.md: replaced 1 occurrence (1 line -> 5 lines).",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            FAQ into troubleshooting: nine questions, and troubleshooting has six sections.
            Rather than interleave, I'll append the FAQ as a "Frequently asked questions"
            section at the end, demoting its headings by one level, and then remove
            duplicates by hand. Same idea for rules-reference into reference/rules.md, but
            rules-reference is 412 lines and mostly generated by tools/gen_rules_ref.py, so
            the right move is to point the generator at the new path rather than paste.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "{ printf '\\n## Frequently asked questions\\n\\n'; sed -e '1,2d' -e 's/^## /### /' docs/faq.md; } >> docs/how-to/troubleshooting.md && grep -n '^##' docs/how-to/troubleshooting.md"
                },
                D("""
            3:## quillmark reports errors in files I excluded
            17:## "Unknown rule" after upgrading
            28:## Fixes fight with Prettier
            41:## Watch mode misses changes on network drives
            52:## Output has no colours in CI
            63:## Getting help
            75:## Frequently asked questions
            77:### Does quillmark support MDX?
            83:### Can I disable a rule for one line?
            90:### Why is line-length 100 and not 80?
            97:### Does it follow symlinks?
            103:### Fixes fight with Prettier, what do I do?
            111:### How do I lint only changed files?
            118:### Is there a VS Code extension?
            124:### Why is the first run slow?
            131:### Where is the v1 documentation?
        """),
            )
        ],
    )
    L.bot(
        reasoning="### Fixes fight with Prettier duplicates ## Fixes fight with Prettier. Compare and keep the better one.",
        calls=[
            C(
                "run",
                {"command": "sed -n '28,40p;103,110p' docs/how-to/troubleshooting.md"},
                D("""
            ## Fixes fight with Prettier

            Prettier and quillmark both rewrap lists. Disable `list-indent` and
            `emphasis-style` in quillmark, or add `proseWrap: preserve` to
            `.prettierrc`. Run Prettier first and quillmark second in pre-commit so
            quillmark's check sees the final text.

            ```yaml
            rules:
              list-indent: off
              emphasis-style: off
            ```

            ### Fixes fight with Prettier, what do I do?

            See the section above: disable the two overlapping rules or set
            `proseWrap: preserve`. (This answer used to be longer; it moved.)
            - Order matters: Prettier first.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "docs/how-to/troubleshooting.md",
                    "old": "### Fixes fight with Prettier, what do I do?\n\nSee the section above: disable the two overlapping rules or set\n`proseWrap: preserve`. (This answer used to be longer; it moved.)\n- Order matters: Prettier first.\n\n",
                    "new": "",
                },
                "Edited docs/how-to/troubleshooting.md: replaced 1 occurrence (6 lines -> 0 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "grep -n 'rules-reference\\|OUTPUT' tools/gen_rules_ref.py"},
                D("""
            9:OUTPUT = Path("docs/rules-reference.md")
            58:    # rules-reference.md is generated; edit the docstrings in src/quillmark/rules/
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The generator writes a standalone page. Making it write into the middle of a
            hand-written page needs markers; that is a change to tooling, and I'd rather
            keep reference/rules.md (the overview by topic) and the generated per-rule list
            as two pages in the Reference section. Move it and repoint the generator; no
            content lost, no fragile markers.
        """),
        calls=[
            C(
                "run",
                {"command": "git mv docs/rules-reference.md docs/reference/rules-options.md"},
                "",
            ),
            C(
                "edit",
                {
                    "path": "tools/gen_rules_ref.py",
                    "old": 'OUTPUT = Path("docs/rules-reference.md")',
                    "new": 'OUTPUT = Path("docs/reference/rules-options.md")',
                },
                "Edited tools/gen_rules_ref.py: replaced 1 occurrence (1 line -> 1 line).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "git rm -q docs/config.md docs/github-actions.md docs/faq.md && ls docs"
                },
                D("""
            design
            getting-started
            how-to
            img
            index.md
            project
            reference
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The nav also needs "Rules options" for the moved generated page and the CLI page
            I promised. I don't have a CLI page yet; I'll generate it from --help output
            rather than invent one, and add it only if that works. For now: the nav without
            cli.md, plus the redirects the user asked for.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "mkdocs.yml",
                    "content": MKDOCS_NEW.replace(
                        "          - Command line: reference/cli.md\n",
                        "          - Rule options: reference/rules-options.md\n",
                    ),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "docs/requirements.txt",
                    "old": "mkdocs-material==9.5.18",
                    "new": "mkdocs-material==9.5.18\nmkdocs-redirects==1.2.1",
                },
                "Edited docs/requirements.txt: replaced 1 occurrence (1 line -> 2 lines).",
            )
        ],
    )
    warnings = [
        ("index.md", "install.md", "getting-started/install.md"),
        ("index.md", "quickstart.md", "getting-started/quickstart.md"),
        ("index.md", "ci.md", "how-to/ci.md"),
        ("index.md", "github-actions.md", "how-to/ci.md"),
        ("index.md", "rules.md", "reference/rules.md"),
        ("index.md", "rules-reference.md", "reference/rules-options.md"),
        ("index.md", "configuration.md", "reference/configuration.md"),
        ("index.md", "architecture.md", "design/architecture.md"),
        ("index.md", "design-decisions.md", "design/decisions.md"),
        ("index.md", "old/v1-migration.md", "reference/legacy/v1-migration.md"),
        (
            "getting-started/quickstart.md",
            "configuration.md#severity",
            "reference/configuration.md",
        ),
        ("getting-started/quickstart.md", "rules.md", "reference/rules.md"),
        ("getting-started/quickstart.md", "watch-mode.md", "getting-started/watch-mode.md"),
        ("getting-started/install.md", "pre-commit.md", "how-to/pre-commit.md"),
        (
            "getting-started/watch-mode.md",
            "troubleshooting.md#watch-mode-misses-changes-on-network-drives",
            "how-to/troubleshooting.md",
        ),
        ("getting-started/watch-mode.md", "caching.md", "design/caching.md"),
        ("how-to/ci.md", "github-actions.md", "how-to/ci.md"),
        ("how-to/ci.md", "configuration.md#per-directory-overrides", "reference/configuration.md"),
        (
            "how-to/pre-commit.md",
            "faq.md#fixes-fight-with-prettier-what-do-i-do",
            "how-to/troubleshooting.md",
        ),
        ("how-to/writing-rules.md", "rules-reference.md", "reference/rules-options.md"),
        ("how-to/writing-rules.md", "architecture.md#the-rule-pipeline", "design/architecture.md"),
        ("how-to/plugins.md", "writing-rules.md", "how-to/writing-rules.md"),
        (
            "how-to/troubleshooting.md",
            "config.md#using-pyprojecttoml",
            "reference/configuration.md",
        ),
        ("reference/configuration.md", "rules-reference.md", "reference/rules-options.md"),
        ("reference/rules.md", "rules-reference.md", "reference/rules-options.md"),
        ("reference/legacy/v1-migration.md", "../configuration.md", "reference/configuration.md"),
        ("design/architecture.md", "img/pipeline.svg", "img/pipeline.svg"),
        ("design/decisions.md", "caching.md", "design/caching.md"),
        ("design/caching.md", "architecture.md#parse-cache", "design/architecture.md"),
        ("project/contributing.md", "release.md", "project/release.md"),
        ("project/contributing.md", "../README.md", "../README.md"),
        ("project/release.md", "changelog.md", "project/changelog.md"),
    ]
    build = [
        "INFO    -  Cleaning site directory",
        "INFO    -  Building documentation to directory: /home/dev/quillmark/site",
    ]
    for page, link, _target in warnings:
        folder = page.rsplit("/", 1)[0] + "/" if "/" in page else ""
        resolved = link.split("#")[0]
        if resolved.startswith("../"):
            resolved = (
                resolved[3:]
                if folder.count("/") == 1
                else folder.split("/")[0] + "/" + resolved[3:]
            )
        else:
            resolved = folder + resolved
        if link.startswith("img/") and folder:
            build.append(
                f"WARNING -  Doc file '{page}' contains a link '{link}', but the target '{resolved}' is not found among documentation files. Did you mean '../img/pipeline.svg'?"
            )
        else:
            build.append(
                f"WARNING -  Doc file '{page}' contains a link '{link}', but the target '{resolved}' is not found among documentation files."
            )
    build += [
        "INFO    -  Doc file 'how-to/troubleshooting.md' contains an unrecognized relative link 'mailto:help@quillmark.dev', it was left as is.",
        "WARNING -  A reference to 'getting-started/watch-mode.md#debounce' is included in the 'nav' configuration, but this anchor does not exist.",
        'INFO    -  The following pages exist in the docs directory, but are not included in the "nav" configuration:',
        "  - design/decisions_old.md",
        "Aborted with 33 warnings in strict mode!",
    ]
    L.bot(
        calls=[
            C(
                "run",
                {"command": "pip install -q -r docs/requirements.txt && mkdocs build --strict"},
                "\n".join(build),
                secs=(12, 20),
            )
        ],
    )
    L.bot(
        content=T("""
            The first strict build fails with 33 warnings. Nearly all of them are relative
            links written for the old flat folder.

            Since I know where every file went, a small one-off script can rewrite them
            all consistently; that's safer than 30 hand edits. The few odd ones I'll handle
            by hand afterwards.
        """),
        reasoning=T("""
            33 warnings, almost all of them the expected kind: relative links written for a
            flat folder. Each warning gives page, link and the target it failed to find, and
            I know where every old file went, so this is mechanical. A small script beats 32
            hand edits and is less error-prone: for each Markdown file, rewrite links whose
            target is a known old path to the correct relative path from that file's new
            folder, keeping #anchors.

            Three warnings are not mechanical and I'll handle them by hand:

            - faq.md#fixes-fight-with-prettier-what-do-i-do points at the duplicate I
              deleted; it should go to troubleshooting.md#fixes-fight-with-prettier.
            - config.md#using-pyprojecttoml now lives in configuration.md with the same
              anchor, so the generic rewrite handles it.
            - the nav anchor watch-mode.md#debounce does not exist. Odd; the mkdocs.yml I
              wrote has no anchors in the nav. Must be something else. Look after the
              rewrite.

            And design/decisions_old.md is a page I did not know about. It was not in the
            tree listing, so it is probably untracked.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "tools/relink_docs.py",
                    "content": D('''
            """One-off: rewrite relative links after the docs reorganisation (Feb 2026)."""

            import os
            import re
            from pathlib import Path

            MOVES = {
                "install.md": "getting-started/install.md",
                "quickstart.md": "getting-started/quickstart.md",
                "watch-mode.md": "getting-started/watch-mode.md",
                "ci.md": "how-to/ci.md",
                "github-actions.md": "how-to/ci.md",
                "pre-commit.md": "how-to/pre-commit.md",
                "writing-rules.md": "how-to/writing-rules.md",
                "plugins.md": "how-to/plugins.md",
                "troubleshooting.md": "how-to/troubleshooting.md",
                "faq.md": "how-to/troubleshooting.md",
                "configuration.md": "reference/configuration.md",
                "config.md": "reference/configuration.md",
                "rules.md": "reference/rules.md",
                "rules-reference.md": "reference/rules-options.md",
                "old/v1-migration.md": "reference/legacy/v1-migration.md",
                "old/rules-v1.md": "reference/legacy/rules-v1.md",
                "architecture.md": "design/architecture.md",
                "caching.md": "design/caching.md",
                "design-decisions.md": "design/decisions.md",
                "contributing.md": "project/contributing.md",
                "release.md": "project/release.md",
                "changelog.md": "project/changelog.md",
                "img/pipeline.svg": "img/pipeline.svg",
                "img/watch-demo.gif": "img/watch-demo.gif",
            }
            LINK = re.compile(r"(\\]\\()([^)#\\s]+)(#[^)\\s]*)?(\\))")
            DOCS = Path("docs")


            def fix(page: Path) -> int:
                here = page.parent.relative_to(DOCS)
                text = page.read_text()
                changed = 0

                def repl(m: re.Match[str]) -> str:
                    nonlocal changed
                    target = m.group(2)
                    # links were written relative to the old flat folder
                    old = os.path.normpath(target).lstrip("./")
                    if old not in MOVES:
                        return m.group(0)
                    new = os.path.relpath(MOVES[old], here)
                    changed += new != target
                    return f"{m.group(1)}{new}{m.group(3) or ''}{m.group(4)}"

                page.write_text(LINK.sub(repl, text))
                return changed


            for md in sorted(DOCS.rglob("*.md")):
                n = fix(md)
                if n:
                    print(f"{md}: {n} link(s)")
        '''),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python tools/relink_docs.py && git status --short docs | grep -v '^R ' ; git status --short --ignored docs/design"
                },
                D("""
            docs/index.md: 10 link(s)
            docs/getting-started/install.md: 1 link(s)
            docs/getting-started/quickstart.md: 3 link(s)
            docs/getting-started/watch-mode.md: 2 link(s)
            docs/how-to/ci.md: 2 link(s)
            docs/how-to/plugins.md: 1 link(s)
            docs/how-to/pre-commit.md: 1 link(s)
            docs/how-to/troubleshooting.md: 1 link(s)
            docs/how-to/writing-rules.md: 2 link(s)
            docs/reference/configuration.md: 1 link(s)
            docs/reference/rules.md: 1 link(s)
            docs/design/architecture.md: 1 link(s)
            docs/design/caching.md: 1 link(s)
            docs/design/decisions.md: 1 link(s)
            docs/project/contributing.md: 1 link(s)
            docs/project/release.md: 1 link(s)
             M docs/index.md
             M docs/how-to/ci.md
             M docs/how-to/troubleshooting.md
             M docs/reference/configuration.md
            ?? docs/design/decisions_old.md
        """),
                secs=(1, 3),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            30 links rewritten. Two of the 33 warnings were not covered by the script:
            ../configuration.md in legacy/v1-migration.md (normpath of "../configuration.md"
            keeps the "..", so it is not in MOVES) and ../README.md in contributing.md,
            which points outside docs/ and needs an absolute GitHub URL anyway.

            decisions_old.md is untracked, so it is somebody's local scratch file that the
            git mv of design-decisions.md did not touch... but wait, it is in design/, a
            folder I created ten minutes ago. Something created it after my move. Let me
            look at it before deciding anything.
        """),
        calls=[
            C(
                "read",
                {"path": "docs/design/decisions_old.md"},
                D("""
            <!-- backup written by tools/gen_rules_ref.py: the target changed, previous content saved -->
            # Design decisions

            (stale copy; see decisions.md)
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Not a person's file: gen_rules_ref.py writes a backup next to its OUTPUT when
            the target changes, and it must have run from the pre-commit hook when git mv
            touched tools/. The name is misleading, but the file is junk either way. I'll
            delete it and move on; the generator's backup behaviour is not my task today,
            but I'll mention it.
        """),
        calls=[
            C("run", {"command": "rm docs/design/decisions_old.md"}, ""),
            C(
                "edit",
                {
                    "path": "docs/reference/legacy/v1-migration.md",
                    "old": "](../configuration.md)",
                    "new": "](../configuration.md)",
                },
                "Error: old and new are identical; nothing to do.",
            ),
        ],
    )
    L.bot(
        reasoning="Right, that link is actually correct from reference/legacy/: ../configuration.md resolves to reference/configuration.md now. The warning was from before the moves were finished. Just the README link then.",
        calls=[
            C(
                "edit",
                {
                    "path": "docs/project/contributing.md",
                    "old": "[the README](../README.md)",
                    "new": "[the README](https://github.com/quillmark/quillmark#readme)",
                },
                "Edited docs/project/contributing.md: replaced 1 occurrence (1 line -> 1 line).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "mkdocs build --strict 2>&1 | grep -v '^INFO'"},
                D("""
            WARNING -  A reference to 'getting-started/watch-mode.md#debounce' is included in the 'nav' configuration, but this anchor does not exist.
            Aborted with 1 warnings in strict mode!
        """),
                secs=(10, 16),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            One left. My nav has no anchors, so the reference must come from somewhere that
            mkdocs treats as nav... the material theme's navigation.indexes feature? No. The
            redirects plugin! No, it doesn't do anchors either. Search the config and docs
            for the literal string.
        """),
        calls=[
            C(
                "grep",
                {"pattern": "#debounce", "path": "."},
                D("""
            docs/getting-started/quickstart.md:44:See [debouncing](watch-mode.md#debounce) for how quickly checks re-run.
            docs/getting-started/.pages:3:  - Debouncing: watch-mode.md#debounce
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            A .pages file: that is the awesome-pages plugin's format, left over from an
            experiment; mkdocs does not use it (the plugin is not in mkdocs.yml), but the
            material theme's nav validation apparently picks up the quickstart link
            differently. Either way the real issue is that the heading in watch-mode.md is
            "## Debouncing", so the anchor is #debouncing, not #debounce. Fix the link, and
            delete the stray .pages file, which was already in the old flat folder and moved
            with it.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "docs/getting-started/quickstart.md",
                    "old": "(watch-mode.md#debounce)",
                    "new": "(watch-mode.md#debouncing)",
                },
                "Edited docs/getting-started/quickstart.md: replaced 1 occurrence (1 line -> 1 line).",
            ),
            C(
                "run",
                {
                    "command": "git rm -q docs/getting-started/.pages && mkdocs build --strict 2>&1 | tail -3"
                },
                D("""
                INFO    -  Cleaning site directory
                INFO    -  Building documentation to directory: /home/dev/quillmark/site
                INFO    -  Documentation built in 1.91 seconds
            """),
                secs=(10, 16),
            ),
        ],
    )
    L.bot(
        reasoning="A clean build does not prove the redirects work or that the rewritten links point where a reader expects. Spot-check both.",
        calls=[
            C(
                "run",
                {
                    "command": "head -c 400 site/install/index.html; echo; head -c 300 site/config/index.html"
                },
                D("""
                <!doctype html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <title>Redirecting...</title>
                <link rel="canonical" href="../getting-started/install/">
                <script>var anchor=window.location.hash.substr(1);location.href="../getting-started/install/"+(anchor?"#"+anchor:"")</script>
                <meta http-equiv="refresh" content="0; url=../getting-started/install/">
                </head>
                <!doctype html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <title>Redirecting...</title>
                <link rel="canonical" href="../reference/configuration/">
            """),
            ),
            C(
                "run",
                {"command": "grep -o '](\\([^)]*\\))' docs/getting-started/quickstart.md"},
                D("""
                ](../reference/configuration.md#severity)
                ](../reference/rules.md)
                ](watch-mode.md#debouncing)
            """),
            ),
        ],
    )
    L.bot(
        content=T("""
            The docs are reorganised and `mkdocs build --strict` passes.

            New layout:

            - getting-started/: install, quickstart, watch mode
            - how-to/: CI (GitHub Actions merged in), pre-commit, writing rules, plugins,
              troubleshooting (FAQ merged in)
            - reference/: configuration (the pyproject.toml section from the old config.md
              merged in), rules, rule options (generated), legacy v1 pages
            - design/: architecture, decisions, caching
            - project/: contributing, release, changelog

            Every page is now in the nav (before, 12 of 25 were not). Old URLs from the
            previous nav and config.md redirect to the new ones. 30 links were rewritten by
            tools/relink_docs.py, a one-off script you can delete after review.

            One oddity for later: tools/gen_rules_ref.py writes a "_old" backup file next
            to its output when the target changes. I deleted the one it created.
        """),
    )
    L.user(
        "Looks good. While you're in there: the watch mode page takes ages to load, I think it's that demo GIF.",
        lo=90,
        hi=240,
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "du -h docs/img/* && grep -rn 'watch-demo' docs"},
                D("""
            8.0K	docs/img/pipeline.svg
            14M	docs/img/watch-demo.gif
            docs/getting-started/watch-mode.md:9:![quillmark watch re-checking a file on save](../img/watch-demo.gif)
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            14 MB for a screen recording. Animated GIF is the worst possible format for
            this: 256 colours per frame and no inter-frame compression worth the name. A
            muted, looping MP4 (H.264, widest browser support) is usually 10 to 20 times
            smaller, and the material theme renders a <video> tag fine. I'll keep the GIF's
            alt text as the video's fallback text so screen readers lose nothing.

            ffmpeg needs even dimensions for yuv420p, hence the scale filter.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "ffmpeg -hide_banner -loglevel error -i docs/img/watch-demo.gif -movflags +faststart -pix_fmt yuv420p -vf 'scale=trunc(iw/2)*2:trunc(ih/2)*2' -c:v libx264 -crf 26 docs/img/watch-demo.mp4 && du -h docs/img/watch-demo.mp4 && ffprobe -v error -show_entries format=duration -of csv=p=0 docs/img/watch-demo.mp4"
                },
                D("""
            612K	docs/img/watch-demo.mp4
            11.840000
        """),
                secs=(6, 12),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "docs/getting-started/watch-mode.md",
                    "old": "![quillmark watch re-checking a file on save](../img/watch-demo.gif)",
                    "new": '<video src="../../img/watch-demo.mp4" autoplay loop muted playsinline width="720">\n  quillmark watch re-checking a file on save\n</video>',
                },
                "Edited docs/getting-started/watch-mode.md: replaced 1 occurrence (1 line -> 3 lines).",
            ),
            C(
                "run",
                {
                    "command": "git rm -q docs/img/watch-demo.gif && mkdocs build --strict 2>&1 | tail -1 && ls site/getting-started/watch-mode/ site/img/"
                },
                D("""
                INFO    -  Documentation built in 1.96 seconds
                site/getting-started/watch-mode/:
                index.html

                site/img/:
                pipeline.svg
                watch-demo.mp4
            """),
                secs=(10, 15),
            ),
        ],
    )
    L.bot(
        reasoning=T("""
            Raw HTML src paths are not rewritten by mkdocs, unlike Markdown image links, so
            the relative path has to be right for the built URL
            /getting-started/watch-mode/, which is two levels deep: ../../img/. The build
            cannot check this for me (strict mode ignores raw HTML), so verify the
            resolved path in the generated page.
        """),
        calls=[
            C(
                "run",
                {
                    "command": 'grep -o \'src="[^"]*mp4"\' site/getting-started/watch-mode/index.html && cd site/getting-started/watch-mode && test -f ../../img/watch-demo.mp4 && echo resolves'
                },
                D("""
            src="../../img/watch-demo.mp4"
            resolves
        """),
            )
        ],
    )
    L.bot(
        content="Replaced the 14 MB GIF with a 612 KB looping MP4 (same 12 s recording, muted, autoplay, with the old alt text as fallback). The watch mode page should load instantly now.",
    )
    L.user("Keep going, you have budget left.", lo=4, hi=8)
    L.bot(
        reasoning=T("""
            The one thing I deferred was the CLI reference page. It would be generated from
            `quillmark --help` and each subcommand's help, so it can't drift. Check what the
            CLI offers first.
        """),
        calls=[
            C(
                "run",
                {"command": "quillmark --help"},
                D("""
            Usage: quillmark [OPTIONS] COMMAND [ARGS]...

              Lint and fix Markdown files.

            Options:
              --version      Show the version and exit.
              -c, --config PATH  Use this config file instead of searching for one.
              -q, --quiet    Only print findings, no summary.
              --help         Show this message and exit.

            Commands:
              check   Check files and report findings.
              fix     Apply automatic fixes in place.
              watch   Re-run checks when files change.
              config  Show the effective configuration.
              rules   List rules and their options.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "python -m pip show mkdocs-click >/dev/null 2>&1 && echo installed || echo missing; grep -n 'click' pyproject.toml"
                },
                D("""
            missing
            12:    "click>=8.1",
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The CLI uses click, so the mkdocs-click extension can render the whole command
            tree from the code at build time: one directive in a Markdown page. That is
            better than a generated file checked into the repo. Add the extension, the page
            and the nav entry.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "docs/reference/cli.md",
                    "content": D("""
                # Command line

                This page is generated from the code at build time, so it always matches the
                installed version. Run `quillmark COMMAND --help` for the same text in a
                terminal.

                ::: mkdocs-click
                    :module: quillmark.cli
                    :command: main
                    :prog_name: quillmark
                    :depth: 1
                    :style: table
            """),
                },
                "",
            ),
            C(
                "edit",
                {
                    "path": "mkdocs.yml",
                    "old": "  - pymdownx.superfences\n",
                    "new": "  - pymdownx.superfences\n  - mkdocs-click\n",
                },
                "Edited mkdocs.yml: replaced 1 occurrence (1 line -> 2 lines).",
            ),
            C(
                "edit",
                {
                    "path": "mkdocs.yml",
                    "old": "          - Rule options: reference/rules-options.md\n",
                    "new": "          - Rule options: reference/rules-options.md\n          - Command line: reference/cli.md\n",
                },
                "Edited mkdocs.yml: replaced 1 occurrence (1 line -> 2 lines).",
            ),
            C(
                "edit",
                {
                    "path": "docs/requirements.txt",
                    "old": "mkdocs-redirects==1.2.1",
                    "new": "mkdocs-redirects==1.2.1\nmkdocs-click==0.8.1",
                },
                "Edited docs/requirements.txt: replaced 1 occurrence (1 line -> 2 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "pip install -q -r docs/requirements.txt && mkdocs build --strict 2>&1 | tail -2 && grep -c '<table>' site/reference/cli/index.html"
                },
                D("""
            INFO    -  Building documentation to directory: /home/dev/quillmark/site
            INFO    -  Documentation built in 2.07 seconds
            6
        """),
                secs=(14, 22),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "remember",
                {
                    "abstract": "quillmark docs were reorganised into getting-started/how-to/reference/design/project with redirects; tools/relink_docs.py rewrote the links.",
                    "text": T("""
                Feb 2026 docs reorganisation. Merges: config.md into reference/configuration.md
                (kept the pyproject.toml section, dropped the stale line-length 80 default),
                github-actions.md into how-to/ci.md, faq.md into how-to/troubleshooting.md.
                rules-reference.md became reference/rules-options.md (generated by
                tools/gen_rules_ref.py, OUTPUT repointed). mkdocs-redirects covers the old nav
                URLs and config.md. reference/cli.md renders via mkdocs-click. The generator
                leaves *_old.md backup files when its target changes; stray .pages files are
                leftovers of an awesome-pages experiment.
            """),
                },
                "Stored memory #32.",
            )
        ],
    )
    L.bot(
        content="Also added reference/cli.md, rendered from the click command tree at build time with mkdocs-click, so it cannot drift from the code. Build is still clean.",
    )

    # ---------------------------------------------------------------- flaky test
    L.user(
        T("""
        Different thing. test_watcher_debounce in tests/test_watch.py fails on CI maybe
        one run in ten, always on the macOS runner. Can you find out why and fix it
        properly? Not a retry decorator, please.
    """),
        lo=400,
        hi=900,
    )
    L.bot(
        reasoning=T("""
            Switching from docs to a flaky test. "One in ten, always macOS" smells like
            timing: macOS runners on GitHub are slower and more oversubscribed than the
            Linux ones. Before guessing further: how flaky exactly, according to the CI
            history, and then the test and the code under test.
        """),
        calls=[
            C(
                "run",
                {
                    "command": 'gh run list --workflow tests.yml --branch main --limit 200 --json databaseId,conclusion,createdAt --jq \'.[] | select(.conclusion=="failure") | .databaseId\' | head -20 | xargs -I{} sh -c \'gh run view {} --log-failed | grep -m1 -o "FAILED [^ ]*" | sed "s|^|{} |"\''
                },
                D("""
            13520918804 FAILED tests/test_watch.py::test_watcher_debounce
            13512240617 FAILED tests/test_watch.py::test_watcher_debounce
            13498807123 FAILED tests/test_rules.py::test_link_fragments_external
            13471155930 FAILED tests/test_watch.py::test_watcher_debounce
            13466021775 FAILED tests/test_watch.py::test_watcher_debounce
            13440918211 FAILED tests/test_watch.py::test_watcher_debounce
            13421733009 FAILED tests/test_watch.py::test_watcher_debounce
            13401178842 FAILED tests/test_cli.py::test_version_matches_package
            13398810356 FAILED tests/test_watch.py::test_watcher_debounce
            13377402298 FAILED tests/test_watch.py::test_watcher_debounce
        """),
                secs=(12, 20),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Of the last 200 main-branch runs, 10 failed, and 8 of those are this test. The
            other two are unrelated (one a network-dependent rule test, one a version test
            during a release). So the "one in ten" is about right per failing run, and this
            test is most of the red on main. Now the code.
        """),
        calls=[
            C("read", {"path": "tests/test_watch.py"}, TEST_WATCH_PY),
            C("read", {"path": "src/quillmark/watch.py"}, WATCH_PY),
        ],
    )
    L.bot(
        reasoning=T("""
            The test is a pure wall-clock race. The debounce delay is 0.2 s. The test
            touches a.md, sleeps 0.15 s, touches b.md, sleeps 0.35 s, then expects exactly
            one callback with both paths. That has two margins:

            - 0.05 s between the second touch and the expiry of the first timer. If the
              first sleep oversleeps by more than 50 ms, the first timer fires with only
              a.md, and the test sees two calls.
            - 0.15 s after the second timer should have fired. If the Timer thread is not
              scheduled within 150 ms of its deadline, the test sees zero calls.

            On a loaded runner, 50 ms of oversleep is entirely normal. The code is fine;
            the test measures the scheduler. Let me reproduce it before fixing, so I can
            show the fix actually changes something: run it many times locally, then
            under CPU load.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "python -m pytest tests/test_watch.py::test_watcher_debounce --count 300 -q -p no:randomly"
                },
                D("""
            ........................................................................ [ 24%]
            ........................................................................ [ 48%]
            ........................................................................ [ 72%]
            ........................................................................ [ 96%]
            ............                                                             [100%]
            300 passed in 150.84s (0:02:30)
        """),
                secs=(150, 155),
            )
        ],
    )
    flaky = []
    rng = random.Random(99)
    fails = sorted(rng.sample(range(1, 301), 11))
    marks = "".join("F" if i in fails else "." for i in range(1, 301))
    for start in range(0, 300, 72):
        row = marks[start : start + 72]
        flaky.append(f"{row:<72} [{min(start + 72, 300) * 100 // 300:3d}%]")
    flaky += [
        "=================================== FAILURES ===================================",
    ]
    for n, i in enumerate(fails):
        flaky.append(
            f"_________________________ test_watcher_debounce[{i}-300] _________________________"
        )
        if n % 4 == 3:
            flaky += [
                "",
                "    def test_watcher_debounce(tmp_path):",
                "        ...",
                '>       assert calls == [{tmp_path / "a.md", tmp_path / "b.md"}]',
                "E       AssertionError: assert [] == [{PosixPath('/tmp/pytest-of-dev/pytest-88/test_watcher_debounce_"
                + str(i)
                + "_0/a.md'), PosixPath('/tmp/pytest-of-dev/pytest-88/test_watcher_debounce_"
                + str(i)
                + "_0/b.md')}]",
                "E         Right contains one more item: {PosixPath('.../a.md'), PosixPath('.../b.md')}",
                "",
                "tests/test_watch.py:14: AssertionError",
            ]
        else:
            flaky += [
                "",
                "    def test_watcher_debounce(tmp_path):",
                "        ...",
                '>       assert calls == [{tmp_path / "a.md", tmp_path / "b.md"}]',
                "E       AssertionError: assert [{PosixPath('.../a.md')}, {PosixPath('.../b.md')}] == [{PosixPath('.../a.md'), PosixPath('.../b.md')}]",
                "E         At index 0 diff: {PosixPath('.../a.md')} != {PosixPath('.../a.md'), PosixPath('.../b.md')}",
                "E         Left contains one more item: {PosixPath('.../b.md')}",
                "",
                "tests/test_watch.py:14: AssertionError",
            ]
    flaky.append("=========================== short test summary info ============================")
    for i in fails:
        flaky.append(
            f"FAILED tests/test_watch.py::test_watcher_debounce[{i}-300] - AssertionError: assert [...] == [...]"
        )
    flaky.append(f"{len(fails)} failed, {300 - len(fails)} passed in 163.02s (0:02:43)")
    L.bot(
        reasoning=T("""
            300 passes on an idle laptop, as expected; that proves nothing. Now the same
            under load: stress-ng with one CPU hog per core, which is roughly what a shared
            macOS runner looks like when its neighbours are busy.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "stress-ng --cpu $(nproc) --timeout 200s >/dev/null & sleep 2; python -m pytest tests/test_watch.py::test_watcher_debounce --count 300 -q -p no:randomly; kill %1"
                },
                "\n".join(flaky),
                secs=(165, 170),
            )
        ],
    )
    L.bot(
        content=T("""
            Reproduced it: idle, the test passes 300 times out of 300; under CPU load it
            fails 11 times in 300, in both of the ways the timing predicts (one batch split
            into two, or no callback yet).

            So the watcher code is fine and the test measures the scheduler. I'm going to
            make the debouncer's timer injectable, test the logic with a fake timer, and
            keep one real-thread test that checks outcomes instead of timing.
        """),
        reasoning=T("""
            Reproduced: 11 of 300 under load, close to the reported one in ten... well, one
            in 27 here, but same order of magnitude, and both predicted failure modes show
            up. Most failures are the "two calls" kind (first sleep overslept past the
            debounce window), and a few are the "zero calls" kind (timer thread not
            scheduled in time).

            A proper fix tests the debouncing logic without a real clock. The Debouncer
            builds threading.Timer directly, which is what makes it untestable. Injecting a
            timer factory (default threading.Timer) lets the test pass a fake timer whose
            callback fires only when the test says so. Then the unit test checks the logic
            exactly: touches inside the window coalesce, a touch resets the window, cancel
            drops pending paths.

            I still want one test that uses real threads, because the locking matters. It
            should assert something robust instead of exact timing: after two quick touches
            the callback eventually fires (poll with a 5 s deadline) and every path is
            delivered exactly once across however many calls happened.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "src/quillmark/watch.py",
                    "old": "    def __init__(self, delay: float, callback: Callable[[set[Path]], None]) -> None:\n        self.delay = delay\n        self.callback = callback",
                    "new": "    def __init__(\n        self,\n        delay: float,\n        callback: Callable[[set[Path]], None],\n        timer_factory: Callable[[float, Callable[[], None]], TimerLike] = threading.Timer,\n    ) -> None:\n        self.delay = delay\n        self.callback = callback\n        self._timer_factory = timer_factory",
                },
                "Edited src/quillmark/watch.py: replaced 1 occurrence (3 lines -> 9 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "src/quillmark/watch.py",
                    "old": "        self._timer: threading.Timer | None = None\n        self._lock = threading.Lock()",
                    "new": "        self._timer: TimerLike | None = None\n        self._lock = threading.Lock()",
                },
                "Edited src/quillmark/watch.py: replaced 1 occurrence (2 lines -> 2 lines).",
            ),
            C(
                "edit",
                {
                    "path": "src/quillmark/watch.py",
                    "old": "                self._timer = threading.Timer(self.delay, self._fire)\n                self._timer.daemon = True\n                self._timer.start()",
                    "new": "                self._timer = self._timer_factory(self.delay, self._fire)\n                self._timer.daemon = True\n                self._timer.start()",
                },
                "Edited src/quillmark/watch.py: replaced 1 occurrence (3 lines -> 3 lines).",
            ),
            C(
                "edit",
                {
                    "path": "src/quillmark/watch.py",
                    "old": "DEBOUNCE_SECONDS = 0.2",
                    "new": "DEBOUNCE_SECONDS = 0.2\n\n\nclass TimerLike(Protocol):\n    daemon: bool\n\n    def start(self) -> None: ...\n    def cancel(self) -> None: ...",
                },
                "Edited src/quillmark/watch.py: replaced 1 occurrence (1 line -> 8 lines).",
            ),
        ]
    )
    L.bot(
        reasoning=T("""
            One subtle thing in the real code while I'm here: _fire takes the lock and swaps
            out _pending, but a cancelled Timer whose function is already running cannot
            be stopped by cancel(). So if touch() lands exactly as the old timer fires, the
            old _fire takes the paths collected so far, including the brand-new one, and
            the new timer later fires with an empty set. The `if paths:` guard already
            makes that harmless: no empty callback. Good, no change needed, but the fake
            timer test should cover it.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "tests/test_watch.py",
                    "content": D('''
            import threading
            import time
            from pathlib import Path

            from quillmark.watch import Debouncer


            class FakeTimer:
                """A timer that fires only when the test calls fire()."""

                created: list["FakeTimer"] = []

                def __init__(self, delay, fn):
                    self.delay, self.fn = delay, fn
                    self.started = self.cancelled = False
                    self.daemon = False
                    FakeTimer.created.append(self)

                def start(self):
                    self.started = True

                def cancel(self):
                    self.cancelled = True

                def fire(self):
                    if not self.cancelled:
                        self.fn()


            def make(calls):
                FakeTimer.created = []
                return Debouncer(0.2, calls.append, timer_factory=FakeTimer)


            def test_touches_in_window_coalesce(tmp_path):
                calls = []
                d = make(calls)
                d.touch(tmp_path / "a.md")
                d.touch(tmp_path / "b.md")
                first, second = FakeTimer.created
                assert first.cancelled and not second.cancelled
                second.fire()
                assert calls == [{tmp_path / "a.md", tmp_path / "b.md"}]


            def test_touch_after_fire_starts_new_batch(tmp_path):
                calls = []
                d = make(calls)
                d.touch(tmp_path / "a.md")
                FakeTimer.created[-1].fire()
                d.touch(tmp_path / "b.md")
                FakeTimer.created[-1].fire()
                assert calls == [{tmp_path / "a.md"}, {tmp_path / "b.md"}]


            def test_late_fire_of_cancelled_timer_never_sends_empty_batch(tmp_path):
                calls = []
                d = make(calls)
                d.touch(tmp_path / "a.md")
                old = FakeTimer.created[-1]
                d.touch(tmp_path / "b.md")
                old.fn()  # the old timer was already running when cancel() came
                FakeTimer.created[-1].fire()
                assert calls == [{tmp_path / "a.md", tmp_path / "b.md"}]


            def test_cancel_drops_pending(tmp_path):
                calls = []
                d = make(calls)
                d.touch(tmp_path / "a.md")
                d.cancel()
                FakeTimer.created[-1].fire()
                assert calls == []


            def test_real_threads_deliver_every_path_once(tmp_path):
                # real timers: assert the outcome, not the timing
                calls, done = [], threading.Event()

                def record(paths):
                    calls.append(paths)
                    if set().union(*calls) == {tmp_path / "a.md", tmp_path / "b.md"}:
                        done.set()

                d = Debouncer(0.05, record)
                d.touch(tmp_path / "a.md")
                d.touch(tmp_path / "b.md")
                assert done.wait(timeout=5.0)
                delivered = [p for batch in calls for p in batch]
                assert sorted(delivered) == [tmp_path / "a.md", tmp_path / "b.md"]
        '''),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python -m pytest tests/test_watch.py -q"},
                D("""
            F....                                                                    [100%]
            =================================== FAILURES ===================================
            _______________________ test_touches_in_window_coalesce ________________________
            tests/test_watch.py:38: in test_touches_in_window_coalesce
                d.touch(tmp_path / "a.md")
            src/quillmark/watch.py:36: in touch
                self._timer = self._timer_factory(self.delay, self._fire)
            E   NameError: name 'Protocol' is not defined
            =========================== short test summary info ============================
            FAILED tests/test_watch.py::test_touches_in_window_coalesce - NameError: name 'Protocol' is not defined
            1 failed, 4 passed in 0.31s
        """),
                secs=(2, 4),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Forgot the import. Strange that only the first test failed though... no: the
            NameError is raised while evaluating the annotation on first use? No, class
            bodies are evaluated at import. With `from __future__ import annotations` the
            annotations are strings, but `class TimerLike(Protocol)` uses Protocol as a
            base class, which is evaluated at import, so the module should not import at
            all. Unless the test run imported a stale .pyc... The traceback line 36 is
            inside touch(), which does not mention Protocol.

            I am speculating. The fix is the same whatever the reason; add the import and
            rerun with the cache cleared, and if the oddity persists, look closer.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "src/quillmark/watch.py",
                    "old": "from collections.abc import Callable\nfrom pathlib import Path",
                    "new": "from collections.abc import Callable\nfrom pathlib import Path\nfrom typing import Protocol",
                },
                "Edited src/quillmark/watch.py: replaced 1 occurrence (2 lines -> 3 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "find . -name __pycache__ -prune -exec rm -rf {} + ; python -m pytest tests/test_watch.py -q"
                },
                D("""
            .....                                                                    [100%]
            5 passed in 0.12s
        """),
                secs=(2, 4),
            )
        ],
    )
    L.bot(
        reasoning="Clean. The oddity was most likely a stale bytecode file from the editable install. Now the real proof: the same load test that failed 11 times, with more repetitions.",
        calls=[
            C(
                "run",
                {
                    "command": "stress-ng --cpu $(nproc) --timeout 200s >/dev/null & sleep 2; python -m pytest tests/test_watch.py --count 200 -q -p no:randomly; kill %1"
                },
                D("""
            ........................................................................ [  7%]
            ........................................................................ [ 14%]
            ........................................................................ [ 21%]
            ........................................................................ [ 28%]
            ........................................................................ [ 36%]
            ........................................................................ [ 43%]
            ........................................................................ [ 50%]
            ........................................................................ [ 57%]
            ........................................................................ [ 64%]
            ........................................................................ [ 72%]
            ........................................................................ [ 79%]
            ........................................................................ [ 86%]
            ........................................................................ [ 93%]
            ..................................................................       [100%]
            1000 passed in 19.42s
        """),
                secs=(20, 26),
            )
        ],
    )
    L.bot(
        reasoning="Local load is a stand-in. The real test is the macOS runner itself; the tests workflow has a manual trigger with an OS and repeat input.",
        calls=[
            C(
                "run",
                {
                    "command": "git switch -c fix/debounce-test && git commit -q -m 'watch: injectable timer; deterministic debounce tests' src/quillmark/watch.py tests/test_watch.py && git push -q -u origin fix/debounce-test && gh workflow run tests.yml --ref fix/debounce-test -f os=macos-14 -f repeat=50 && sleep 5 && gh run watch --exit-status $(gh run list --workflow tests.yml --branch fix/debounce-test --limit 1 --json databaseId --jq '.[0].databaseId') | tail -4"
                },
                D("""
            ✓ fix/debounce-test tests · 13533120477
            Triggered via workflow_dispatch less than a minute ago

            ✓ test (macos-14, 3.12) in 4m12s (250 tests x 50 repeats, 12500 passed)
        """),
                secs=(250, 290),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "remember",
                {
                    "abstract": "quillmark's flaky test_watcher_debounce was a wall-clock race in the test; fixed by injecting a timer factory into Debouncer and using a fake timer.",
                    "text": T("""
                The test slept 0.15 s inside a 0.2 s debounce window and 0.35 s after, so
                50 ms of oversleep on a loaded runner split the batch, and a late timer
                thread gave zero calls. Reproduced with stress-ng (11/300 failures). Fix:
                Debouncer(timer_factory=threading.Timer), FakeTimer in tests for exact logic,
                plus one real-thread test that asserts outcomes with Event.wait(5).
                1000/1000 under load afterwards. Leave no sleep-then-assert tests behind.
            """),
                },
                "Stored memory #33.",
            )
        ],
    )
    L.bot(
        content=T("""
            Fixed the flaky test, and the code was not the problem: the test was.

            test_watcher_debounce slept 0.15 s inside a 0.2 s debounce window and expected
            exactly one callback. On a busy runner a sleep can overshoot by 50 ms, and then
            the batch splits in two. I reproduced it locally under CPU load (11 failures in
            300 runs).

            The fix: Debouncer takes an optional timer_factory (threading.Timer by default,
            so nothing changes for users). The tests use a fake timer they fire by hand,
            which checks the debouncing logic exactly with no sleeps. One test still uses
            real threads but asserts the outcome (every path delivered once, within 5 s)
            instead of timing. Under the same load: 1000 of 1000 passed.
        """),
    )

    L.user("Is that sleep-then-assert pattern anywhere else in the tests?", lo=60, hi=200)
    L.bot(
        calls=[
            C(
                "grep",
                {"pattern": "time\\.sleep\\(", "path": "tests"},
                D("""
            tests/test_cache.py:51:    time.sleep(1.1)  # mtime resolution on HFS+ is 1 s
            tests/test_cli.py:88:        time.sleep(0.5)
            tests/test_watch_integration.py:23:    time.sleep(0.3)
            tests/test_watch_integration.py:31:    time.sleep(0.3)
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "sed -n '80,96p' tests/test_cli.py"},
                D("""
                def test_watch_once_exits(tmp_path):
                    (tmp_path / "a.md").write_text("# Title\\n")
                    proc = subprocess.Popen(
                        [sys.executable, "-m", "quillmark", "watch", "--once", str(tmp_path)],
                        stdout=subprocess.PIPE, text=True,
                    )
                    try:
                        time.sleep(0.5)
                        (tmp_path / "a.md").write_text("# Title\\n\\nmore\\n")
                        out, _ = proc.communicate(timeout=10)
                    finally:
                        proc.kill()
                    assert "1 file checked" in out
            """),
            ),
            C(
                "read",
                {"path": "tests/test_watch_integration.py"},
                D("""
                import time

                import pytest

                from quillmark.watch import run_watch

                pytestmark = pytest.mark.integration  # not run on CI by default


                def test_watch_sees_new_file(tmp_path, watch_thread):
                    seen = []
                    watch_thread(run_watch, tmp_path, seen.append)
                    time.sleep(0.3)  # let watchfiles start
                    (tmp_path / "new.md").write_text("# hi\\n")
                    time.sleep(0.3)
                    assert any(tmp_path / "new.md" in batch for batch in seen)
            """),
            ),
        ],
    )
    L.bot(
        reasoning=T("""
            Three different cases:

            - test_cache.py sleeps 1.1 s to get a different mtime on HFS+. That is a real
              property of the filesystem, not a race, and it asserts nothing about timing.
              It could use os.utime to set the mtime explicitly and save a second, but it
              is not flaky.
            - test_cli.py sleeps 0.5 s to let the watcher start before writing the file.
              If the subprocess starts slower than that on a loaded runner, the write
              happens before the watch begins and `--once` waits for a change that already
              happened, until the 10 s timeout. Same class of bug, not yet seen on CI.
            - test_watch_integration.py is marked integration and is not run on CI; same
              pattern twice.

            The CLI test is worth fixing now: have `watch --once` print a "watching" line
            when it is ready, and make the test wait for that line instead of sleeping.
            Let me check whether such a line exists.
        """),
        calls=[
            C(
                "run",
                {"command": "grep -n 'echo\\|print' src/quillmark/cli.py | grep -i watch"},
                '57:        click.echo(f"Watching {len(paths)} path(s) for changes. Press Ctrl+C to stop.", err=True)',
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "tests/test_cli.py",
                    "old": "        stdout=subprocess.PIPE, text=True,\n    )\n    try:\n        time.sleep(0.5)",
                    "new": '        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,\n    )\n    try:\n        # wait until the watcher says it is ready instead of guessing with a sleep\n        assert "Watching" in proc.stderr.readline()',
                },
                "Edited tests/test_cli.py: replaced 1 occurrence (4 lines -> 5 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "stress-ng --cpu $(nproc) --timeout 120s >/dev/null & sleep 2; python -m pytest tests/test_cli.py::test_watch_once_exits --count 50 -q -p no:randomly; kill %1"
                },
                D("""
            ..................................................                       [100%]
            50 passed in 41.77s
        """),
                secs=(42, 48),
            )
        ],
    )
    L.bot(
        content=T("""
            Three other places sleep in tests:

            - tests/test_cli.py::test_watch_once_exits had the same race: it slept 0.5 s
              hoping the watcher had started. It now waits for the "Watching ..." line the
              CLI already prints on stderr. 50 of 50 under load.
            - tests/test_cache.py sleeps 1.1 s for HFS+ mtime resolution. Not a race, just
              slow; it could use os.utime instead.
            - tests/test_watch_integration.py has the pattern twice, but it is marked
              integration and does not run on CI. I left it alone.
        """),
    )

    # ---------------------------------------------------------- release checklist
    L.user(
        T("""
        Great. Last thing today: we're cutting the next release next week. Write a
        release checklist we can reuse every time, and draft the changelog section.
    """),
        lo=200,
        hi=500,
    )
    L.bot(
        calls=[
            C(
                "recall",
                {"query": "quillmark release process version publishing"},
                D("""
            Recalled 2 memories:
            #12 (2026-01-22) quillmark publishes to PyPI from the publish.yml workflow on tag push, with trusted publishing; no tokens on developer machines.
            #21 (2026-02-04) The version lives only in src/quillmark/__init__.py (hatch reads it); last release v2.3.1 on 2026-01-20.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "read",
                {"path": "docs/project/release.md"},
                D("""
                # Releasing

                1. Update CHANGELOG.md.
                2. Bump the version.
                3. Tag and push. CI does the rest.

                Ask Priya if anything breaks.
            """),
            ),
            C(
                "run",
                {"command": "git log --oneline --no-merges v2.3.1..HEAD"},
                D("""
                9f2c1e7 docs: reorganise into getting-started/how-to/reference/design/project
                4be0a19 tests: make Debouncer tests deterministic with an injected timer
                e1d7c02 watch: accept a timer factory in Debouncer
                77a3f5d rules: heading-increment now reports the expected level
                0c93b8a cli: add `quillmark rules --json`
                b51e6f0 fix: `fix` no longer rewraps lines inside HTML blocks (#431)
                d3a0c19 config: read [tool.quillmark] from pyproject.toml (#412)
                28e91a4 rules: new rule link-fragments checks #anchors in relative links
                a4c77d3 perf: parse cache keyed on file hash + config hash, 3x faster reruns
                6e0b2f1 fix: crash on empty front matter (#425)
                f19d8aa deps: drop Python 3.8
                13ce0b5 rules: line-length ignores URLs by default (breaking: set ignore-urls = false to restore)
                8a6d4e2 ci: macOS runner for the test matrix
                2c5f7e9 fix: watch mode follows symlinked directories (#418)
                5d1b0a3 docs: document list-indent and emphasis-style conflicts with Prettier
                c0a9e88 build: switch to hatchling
            """),
            ),
        ],
    )
    L.bot(
        content=T("""
            There are 16 commits since v2.3.1: three additions, three changes, three fixes,
            one removal, and some internal work.

            Two of them are breaking by strict semver rules, so the version number is a
            decision for you rather than me.
        """),
        reasoning=T("""
            16 commits since v2.3.1. User-visible changes:

            - Added: link-fragments rule, `rules --json`, pyproject.toml config.
            - Changed: line-length ignores URLs by default (marked breaking in the commit),
              heading-increment message, parse cache 3x faster.
            - Removed: Python 3.8 support.
            - Fixed: #431, #425, #418.

            Internal, not for the changelog: docs reorganisation (well, the redirects make
            it user-visible only as new URLs; one line under "Documentation" is honest),
            the Debouncer refactor and test fix, macOS CI, hatchling.

            Two changes are breaking by semver standards: dropping Python 3.8 and the
            line-length default. For a 2.x project that means 3.0.0, or the project may treat
            dropping an EOL Python as minor. That is the user's call, not mine.
        """),
        calls=[
            C(
                "ask",
                {
                    "message": "Two changes since v2.3.1 are arguably breaking: dropping Python 3.8 and line-length ignoring URLs by default. Do you want to call this 3.0.0, or 2.4.0 with a clear 'Breaking' note?"
                },
                "2.4.0. Python 3.8 is end-of-life, and the line-length change only removes findings, nobody's CI goes red because of it. But do put both at the top of the notes under a Breaking heading, with the one-line way to restore the old behaviour.",
                secs=(90, 240),
            )
        ],
    )
    L.bot(
        reasoning="Before writing the checklist, check the claims it will make about CI against the actual workflows, not against my memory.",
        calls=[
            C(
                "read",
                {"path": ".github/workflows/publish.yml"},
                D("""
            name: publish
            on:
              push:
                tags: ["v*"]
            permissions:
              contents: read
            jobs:
              build:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: "3.12"
                  - run: python -m pip install build
                  - run: python -m build
                  - uses: actions/upload-artifact@v4
                    with:
                      name: dist
                      path: dist/
              pypi:
                needs: build
                runs-on: ubuntu-latest
                environment: pypi
                permissions:
                  id-token: write  # trusted publishing, no API token
                steps:
                  - uses: actions/download-artifact@v4
                    with:
                      name: dist
                      path: dist/
                  - uses: pypa/gh-action-pypi-publish@release/v1
              docs:
                needs: pypi
                uses: ./.github/workflows/docs.yml
                with:
                  version: ${{ github.ref_name }}
                  alias: latest
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Matches: tag push, trusted publishing, docs deployed with the version and a
            "latest" alias. There is no "release-dry-run" workflow though, and I was about
            to put one in the checklist. Check the workflow folder.
        """),
        calls=[
            C(
                "ls",
                {"path": ".github/workflows"},
                D("""
            docs.yml
            lint.yml
            publish.yml
            release-dry-run.yml
            tests.yml
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "write",
                {"path": "docs/project/release-checklist.md", "content": RELEASE_CHECKLIST_MD},
                "",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The old release.md is three lines and a name. The checklist supersedes it, but
            release.md is linked from contributing.md and is in the nav. Rather than have
            two pages, release.md becomes a short page that explains the model (tags, CI,
            trusted publishing) and links to the checklist. And Priya should stay as the
            contact; that is information, not clutter.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "docs/project/release.md",
                    "old": "1. Update CHANGELOG.md.\n2. Bump the version.\n3. Tag and push. CI does the rest.\n\nAsk Priya if anything breaks.",
                    "new": "Releases are cut from main by pushing a signed tag `vX.Y.Z`. The publish workflow\nbuilds the sdist and wheel and uploads them to PyPI with trusted publishing, so\nnobody needs a PyPI token on their machine. The docs site deploys the tagged\nversion at the same time.\n\nFollow the [release checklist](release-checklist.md) step by step; copy it into the\nrelease issue so progress is visible.\n\nAsk Priya if anything breaks.",
                },
                "Edited docs/project/release.md: replaced 1 occurrence (5 lines -> 9 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "mkdocs.yml",
                    "old": "          - Releasing: project/release.md\n",
                    "new": "          - Releasing: project/release.md\n          - Release checklist: project/release-checklist.md\n",
                },
                "Edited mkdocs.yml: replaced 1 occurrence (1 line -> 2 lines).",
            )
        ],
    )
    L.user(
        "Add a step for the Mastodon announcement too, we forgot it last time. And the docs deploy sometimes lags, so say to check the version switcher.",
        lo=60,
        hi=180,
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "docs/project/release-checklist.md",
                    "old": "- [ ] Post in Discussions; mention breaking changes explicitly.",
                    "new": "- [ ] Post in Discussions; mention breaking changes explicitly.\n- [ ] Announce on Mastodon (@quillmark@fosstodon.org): one line, the link to the\n      GitHub release, and the breaking changes if any.",
                },
                "Edited docs/project/release-checklist.md: replaced 1 occurrence (1 line -> 3 lines).",
            ),
            C(
                "edit",
                {
                    "path": "docs/project/release-checklist.md",
                    "old": '- [ ] (CI) The docs site deploys the tagged version and moves "latest".',
                    "new": '- [ ] (CI) The docs site deploys the tagged version and moves "latest". The\n      deploy can lag a few minutes: check that the version switcher on\n      quillmark.dev lists the new version before announcing anything.',
                },
                "Edited docs/project/release-checklist.md: replaced 1 occurrence (1 line -> 3 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "read",
                {"path": "CHANGELOG.md"},
                D("""
            # Changelog

            All notable changes to this project are documented here. The format follows
            Keep a Changelog and the project uses semantic versioning.

            ## Unreleased

            ## 2.3.1 - 2026-01-20

            ### Fixed

            - `fix` kept a trailing space after list markers (#409).
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "CHANGELOG.md",
                    "old": "## Unreleased\n\n## 2.3.1 - 2026-01-20",
                    "new": "## Unreleased\n\n## 2.4.0 - unreleased\n\n### Breaking\n\n- Python 3.8 is no longer supported (it reached end of life in October 2024).\n- `line-length` now ignores URLs by default. To restore the old behaviour, set\n  `ignore-urls = false` under `[rules.line-length]`.\n\n### Added\n\n- New rule `link-fragments` checks that `#anchors` in relative links exist.\n- `quillmark rules --json` prints rules and options as JSON.\n- Configuration can live under `[tool.quillmark]` in pyproject.toml (#412).\n\n### Changed\n\n- Reruns are about 3x faster: the parse cache is keyed on file and config hash.\n- `heading-increment` now says which level it expected.\n\n### Fixed\n\n- `fix` no longer rewraps lines inside HTML blocks (#431).\n- Crash on empty front matter (#425).\n- Watch mode follows symlinked directories (#418).\n\n### Documentation\n\n- The docs are reorganised into Getting started, How-to, Reference, Design and\n  Project sections. Old URLs redirect.\n\n## 2.3.1 - 2026-01-20",
                },
                "Edited CHANGELOG.md: replaced 1 occurrence (3 lines -> 33 lines).",
            )
        ],
    )
    L.bot(
        reasoning="The checklist says to regenerate the rules reference; the new link-fragments rule should appear in it. If the generated page is stale now, the release would ship stale docs.",
        calls=[
            C(
                "run",
                {
                    "command": "python tools/gen_rules_ref.py && git diff --stat docs/reference/rules-options.md && ls docs/reference"
                },
                D("""
            wrote docs/reference/rules-options.md (47 rules)
             docs/reference/rules-options.md | 31 +++++++++++++++++++++++++++++++
             1 file changed, 31 insertions(+)
            configuration.md
            cli.md
            legacy
            rules-options.md
            rules.md
        """),
                secs=(2, 4),
            )
        ],
    )
    L.system("Warning: 80% of token budget used")
    L.bot(
        calls=[
            C(
                "status",
                {},
                "Session 6 | budget {budget} tokens, used {used} ({pct}%) | workspace /home/dev/quillmark | memories: 33 | uncommitted changes: 9 files",
            )
        ],
    )
    L.bot(
        reasoning="Budget is getting tight. Verify the build and the package metadata once, then wrap up.",
        calls=[
            C(
                "run",
                {
                    "command": "mkdocs build --strict 2>&1 | tail -1 && rm -rf dist && python -m build -q && twine check dist/*"
                },
                D("""
            INFO    -  Documentation built in 2.11 seconds
            Checking dist/quillmark-2.3.1.dev16-py3-none-any.whl: PASSED
            Checking dist/quillmark-2.3.1.dev16.tar.gz: PASSED
        """),
                secs=(20, 30),
            )
        ],
    )
    L.bot(
        content=T("""
            Release prep is ready for review:

            - docs/project/release-checklist.md: a reusable checklist (a week before,
              changelog and version, build and verify, publish, after). It is in the nav
              under Project, and release.md now explains the model and links to it.
            - CHANGELOG.md: a 2.4.0 section with Breaking (Python 3.8, line-length and
              URLs, each with how to restore the old behaviour), Added, Changed, Fixed and
              Documentation.

            I did not bump the version in src/quillmark/__init__.py; that is a checklist
            step for release day (the build above is still 2.3.1.dev16).
        """),
        calls=[
            C(
                "done",
                {
                    "summary": "Reorganised quillmark's docs into five sections with redirects and a clean strict build, fixed the flaky Debouncer test with an injected timer (1000/1000 under load), and wrote a reusable release checklist plus the 2.4.0 changelog draft."
                },
                "Session marked as done.",
            )
        ],
    )
    L.system(L.stats_line())
    L.system("[stop] agent called done")
    return L


# ========================================================== session 3: research notes

TIDEPOOL_NOTES_MD = D("""
    # Tide pool field notes, summer 2025

    Rough notes from five low-tide visits with the kids. Written on my phone on the
    rocks, tidied a bit at home. Heights are from the NOAA predictions for the nearest
    station, in feet relative to mean lower low water (MLLW).

    ## Visit 1: Fitzgerald Marine Reserve, Moss Beach, 12 July 2025

    Low tide -1.2 ft at 06:41. Overcast, no wind, very calm swell.
    Arrived 06:05, left 08:30 when the water came back over the reef flat.

    Upper rocks by the stairs:

    - Tiny snails in the cracks way above the water, on dry rock. Periwinkles,
      according to the ranger (Littorina). She said they can stay out of water
      for weeks and seal themselves in with a door (the operculum).
    - Black and orange crusty patches on the highest rocks: lichens, not algae.
    - Barnacles everywhere just below that, small white volcano shapes. Two kinds:
      the bigger ones are Balanus glandula, the tiny brown ones Chthamalus.
    - Limpets! Flat cone shells. Ranger said they go out grazing when the tide is
      in and come back to the exact same spot, a "home scar" worn into the rock.

    Middle of the reef:

    - Huge beds of mussels, blue-black, packed together. California mussels.
      They hold on with threads (byssal threads), kids tried to pull one and
      could not. (Told them not to do that again.)
    - Goose barnacles in between the mussels, leathery stalks with white plates
      on top. Look like tiny dinosaur feet.
    - Ochre sea stars: counted 14 on one boulder, orange and purple ones side by
      side. Most were on the mussels, one had its arms wrapped around a mussel.
    - Lots of small green anemones in carpets, covered in bits of shell and
      gravel when closed. Aggregating anemones. Ranger said they are all clones.
    - Black turban snails, many with hermit crabs inside instead of snails.

    Low pools near the edge:

    - Giant green anemones, as wide as my hand, bright green. Touched one with a
      finger: sticky! That is the stinging cells, harmless to us.
    - Purple sea urchins in holes they seem to have dug into the rock.
    - Surfgrass (bright green, long, like a lawn under water). It is a flowering
      plant, not seaweed, according to the sign.
    - Pink crusty stuff on rocks = coralline algae. Hard like chalk.
    - One nudibranch! Orange and white stripes with blue lines. Opalescent
      nudibranch, Hermissenda. Maybe 3 cm long.

    Things I wrote down to check later:

    - Are anemones plants? They look like flowers and they are green.
    - Ranger said sea stars can regrow an arm in a couple of weeks?
    - Why are some sea stars orange and some purple? Diet?

    ## Visit 2: Pescadero State Beach, 26 July 2025

    Low tide -1.5 ft at 06:28. Fog, then sun by 08:00. Bigger swell than Moss Beach,
    had to keep well back from the outer rocks. Kid #2 got soaked by one wave, we
    talked about never turning your back on the ocean.

    - Far fewer sea stars than Moss Beach, we only found three. Mom of another
      family said there used to be many more before "the disease".
    - Sea palms on the outer rocks where the waves hit hardest: little palm trees,
      bending flat with every wave and popping back up. Postelsia.
    - Gumboot chiton! A reddish-brown leathery oval, longer than my shoe. Looked
      like a lost slipper. Biggest chiton in the world, apparently.
    - Lined shore crabs and purple shore crabs under rocks. We turned rocks over
      and put them back the same way up, as the sign asked.
    - Sculpins: small fish darting in the pools, change colour to match the
      bottom. Kid #1 spent twenty minutes trying to count them.
    - Hermit crabs fighting over a shell. One pulled the other out!
    - Rockweed high up, olive-brown, with swollen tips.

    ## Visit 3: Point Pinos, Pacific Grove, 9 August 2025

    Low tide -0.8 ft at 07:55. Sunny. Lots of people.

    - Bat stars in many colours (red, orange, purple, mottled). Webbed between the
      arms, like a bat's wing. Not ochre stars.
    - Sea lemon nudibranch, yellow with small dark spots. Smells fruity, they say.
      We did not pick it up to check.
    - Harbor seals hauled out on the far rocks. Stayed well away: the sign says
      50 yards, and a volunteer with binoculars reminded everyone.
    - Found an empty crab shell, perfect, no crab in it. Thought it was dead but
      the volunteer said it is a moult: crabs grow by shedding the old shell.
    - Kelp washed up in piles, smelled strong. Giant kelp and bull kelp.
    - Kid #2 asked why pools at the top are warmer: we measured 22 C in a high pool
      and 14 C in a low one with the aquarium thermometer. Big difference!

    ## Visit 4: Fitzgerald again, 23 August 2025

    Low tide -0.3 ft at 07:48. Not a great tide, stayed near the stairs.

    - Watched an ochre star on the mussel bed for half an hour. It did not seem to
      move at all, but a volunteer said it was eating: it pulls the shell open a
      tiny crack and pushes its stomach inside.
    - Aggregating anemones again. Noticed bare strips of rock between the big
      carpets, like paths. Volunteer said the groups fight at the edges!
    - Count: 6 ochre stars on "our" boulder (14 in July).
    - Hermit crabs again, all in black turban shells. Do they grow their own shells
      when they get bigger? Kid #1 thinks so.

    ## Visit 5: Moss Beach, 6 September 2025 (last one)

    Low tide +0.2 ft at 08:40. Basically not a low tide, mostly watched from the
    bluff. Pelicans diving. Kids wrote their "tide pool rules" on the way home:

    1. Walk on bare rock, not on animals or seaweed.
    2. Touch with one wet finger, gently.
    3. Don't pull anything off the rocks.
    4. If you turn a rock over, put it back the way it was.
    5. Leave the shells, they are somebody's house.
    6. Never turn your back on the waves.

    ## Questions for the talk

    - Why do the animals live in bands (zones)? What decides who lives where?
    - What happened to the sea stars?
    - Are mussels in the top zone because they need the sun? (my guess)
    - Best time of year / day for low tides around here?
    - Anything dangerous? (Nothing bit us. Slippery rocks are the real danger.)

    ## Species checklist

    Ticked off against the laminated ID card. V1-V5 = visits; x = seen, c = count.

    | Species (common name)        | Scientific name              | V1 | V2 | V3 | V4 | V5 |
    |------------------------------|------------------------------|----|----|----|----|----|
    | Checkered periwinkle         | Littorina scutulata          | x  | x  |    | x  | x  |
    | Acorn barnacle               | Balanus glandula             | x  | x  | x  | x  | x  |
    | Small acorn barnacle         | Chthamalus dalli             | x  |    | x  | x  |    |
    | Fingered limpet              | Lottia digitalis             | x  | x  | x  | x  |    |
    | Owl limpet                   | Lottia gigantea              |    |    | x  |    |    |
    | California mussel            | Mytilus californianus        | x  | x  | x  | x  | x  |
    | Goose barnacle               | Pollicipes polymerus         | x  | x  |    | x  |    |
    | Ochre sea star               | Pisaster ochraceus           | 14 | 3  | 2  | 6  |    |
    | Bat star                     | Patiria miniata              |    |    | 9  |    |    |
    | Aggregating anemone          | Anthopleura elegantissima    | x  | x  | x  | x  |    |
    | Giant green anemone          | Anthopleura xanthogrammica   | 7  | 2  | 4  | 1  |    |
    | Purple sea urchin            | Strongylocentrotus purpuratus| x  | x  | x  |    |    |
    | Black turban snail           | Tegula funebralis            | x  | x  | x  | x  |    |
    | Hairy hermit crab            | Pagurus hirsutiusculus       | x  | x  |    | x  |    |
    | Blueband hermit crab         | Pagurus samuelis             |    | x  | x  |    |    |
    | Purple shore crab            | Hemigrapsus nudus            |    | x  | x  |    |    |
    | Lined shore crab             | Pachygrapsus crassipes       |    | x  | x  |    |    |
    | Tidepool sculpin             | Oligocottus maculosus        | x  | x  |    | x  |    |
    | Opalescent nudibranch        | Hermissenda opalescens       | 1  |    |    |    |    |
    | Sea lemon                    | Peltodoris nobilis           |    |    | 1  |    |    |
    | Gumboot chiton               | Cryptochiton stelleri        |    | 1  |    |    |    |
    | Mossy chiton                 | Mopalia muscosa              | x  |    | x  |    |    |
    | Sea palm                     | Postelsia palmaeformis       |    | x  |    |    |    |
    | Surfgrass                    | Phyllospadix scouleri        | x  | x  | x  |    |    |
    | Rockweed                     | Fucus distichus              |    | x  | x  | x  |    |
    | Coralline algae              | Corallina vancouveriensis    | x  | x  | x  | x  |    |
    | Harbor seal                  | Phoca vitulina               |    |    | 11 |    | 3  |
    | Brown pelican                | Pelecanus occidentalis       |    |    |    |    | x  |

    Sea star counts are from the same boulder at Fitzgerald (V1, V4) and the whole
    reef at Pescadero and Point Pinos (V2, V3), so they are not comparable between
    sites, only between the two Fitzgerald visits.

    ## Misc

    - Bring: water shoes, a towel, a clear plastic cup for looking (not keeping),
      the aquarium thermometer, the laminated ID card from the visitor centre.
    - Tide apps: NOAA Tides & Currents, and the printed tide booklet from the surf
      shop is easier to read on the beach.
    - The kids' favourite: nudibranchs, then hermit crabs, then the "lost slipper".
""")

TIDEPOOL_SUMMARY_MD = D("""
    # Life between the tides

    Twice a day the sea goes out and comes back. The strip of rock it uncovers is
    called the intertidal zone. Living there is hard: animals get pounded by waves,
    dried out by sun and wind, and go from cold sea water to warm puddles in a few
    hours. Each kind of animal can only stand a certain amount of that, so they live
    in bands, like floors of a building.

    ## The splash zone (top floor)

    Only reached by spray. Almost nothing lives here.

    - Periwinkles: tiny snails that close a little door and wait for weeks.
    - Lichens: the black and orange crusts on the highest rocks.

    ## The high zone

    Underwater for only a few hours a day.

    - Acorn barnacles: animals, related to crabs! They stand on their heads inside
      their shell and kick food into their mouths with feathery legs.
    - Limpets: go out to graze when the tide is in and come back to the exact same
      spot on the rock, their "home scar".
    - Black turban snails, and rockweed (olive-brown seaweed with puffy tips).

    ## The middle zone

    Covered and uncovered twice a day. Crowded!

    - California mussels hold on with strong threads and pack together in beds.
    - Goose barnacles grow in the gaps, on leathery stalks.
    - Ochre sea stars eat the mussels. A star pulls a shell open a tiny crack and
      pushes its own stomach inside to digest the mussel.
    - Aggregating anemones cover the rock in carpets. Each carpet is one big family
      of clones, and neighbouring families fight at the edges with special stinging
      tips, leaving a bare "no man's land" between them.
    - Hermit crabs live in empty snail shells. They can't grow a shell of their own,
      so when they get bigger they have to find a bigger one (and sometimes steal it).

    ## The low zone (ground floor)

    Only uncovered during the lowest tides. The richest zone.

    - Giant green anemones: animals, not plants, cousins of jellyfish and corals.
      They feel sticky because of tiny stinging cells, harmless to people.
    - Purple sea urchins scrape little hollows into the rock.
    - Surfgrass, a real flowering plant that lives under the sea.
    - Nudibranchs, the "sea slugs" with the brightest colours on the shore.
    - Gumboot chitons, the biggest chitons in the world, like a lost slipper.

    ## A keystone: why the sea star matters

    In the 1960s a scientist called Robert Paine kept removing ochre sea stars from
    one stretch of rocky shore in Washington State. Without the stars, mussels took
    over the rock and crowded out most of the other animals and seaweeds. An animal
    that holds a whole community together like that is called a keystone species,
    after the top stone of an arch.

    ## What happened to the sea stars?

    Since 2013 a disease called sea star wasting has killed millions of sea stars
    along the Pacific coast. Their arms go soft and fall off. Some kinds, like the
    huge sunflower star, almost disappeared. Ochre stars were hit hard too, and in
    many places they are slowly coming back. Scientists are still studying the
    causes.

    ## Tide pool manners

    1. Walk on bare rock, not on animals or seaweed.
    2. Touch with one wet finger, gently, or not at all.
    3. Don't pull anything off the rocks.
    4. If you turn a rock over, put it back the way it was.
    5. Leave the shells: they are somebody's house.
    6. Never turn your back on the waves.
""")


def build_research_notes() -> Log:
    L = Log("research_notes.jsonl", "2026-02-15T16:38:10", seed=1503, base_prompt=1900)

    L.user(
        T("""
        I'm giving a short talk about tide pools at my kid's school (year 5, so ten-year-
        olds). I dumped my field notes from last summer into notes/tidepools_field_notes.md.
        Can you read them, check the facts against some good sources, and write me a
        one-page summary organised by intertidal zone? Plain language please.
    """)
    )
    L.bot(
        reasoning="A research and writing task rather than code. Check status and anything I know about this user's preferences first.",
        calls=[
            C(
                "status",
                {},
                "Session 3 | budget {budget} tokens, used {used} ({pct}%) | workspace /home/sam/notes | memories: 9 | previous session ended 2026-02-02 21:14",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "recall",
                {"query": "user preferences kids school writing style"},
                D("""
            Recalled 2 memories:
            #7 (2026-01-30) User's kids are 10 and 13; the 13-year-old is into marine biology, the 10-year-old likes drawing.
            #4 (2026-01-18) User prefers short paragraphs and bullet lists, British spelling, no emoji in documents.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "recall_detail",
                {"chunk_id": 4},
                T("""
            Memory #4 (2026-01-18, session 1)

            Abstract: User prefers short paragraphs and bullet lists, British spelling,
            no emoji in documents.

            When I wrote the first newsletter draft the user asked for British spelling
            ("colour", "organise") because the school is in the UK branch of the family's
            life now, even though the field trips were in California. They cut every emoji
            and turned long paragraphs into bullets. Documents should fit on one printed
            page where possible.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "ls",
                {"path": "notes"},
                D("""
            newsletter_jan.md
            reading_list.md
            tidepools_field_notes.md
            photos/
        """),
            )
        ],
    )
    L.bot(calls=[C("read", {"path": "notes/tidepools_field_notes.md"}, TIDEPOOL_NOTES_MD)])
    L.bot(
        reasoning=T("""
            Lovely notes, careful observations, and they already contain the zonation
            story: periwinkles and lichens highest, barnacles and limpets, then mussels,
            goose barnacles and ochre stars, then giant green anemones, urchins, surfgrass
            and nudibranchs lowest. That is the classic Pacific rocky shore pattern.

            Claims I need to check, because they are either the user's guesses or things a
            ranger said in passing:

            1. "Are anemones plants?" No, they are animals (cnidarians). The green colour of
               the giant green anemone is partly its own pigment and partly symbiotic algae
               living in its tissue. Worth verifying the algae part before I say it to
               children.
            2. "Sea stars regrow an arm in a couple of weeks." I believe regrowth takes
               months, up to a year. Check.
            3. Orange vs purple ochre stars: colour morph. I don't remember a settled diet
               explanation. Check before saying anything.
            4. "Mussels are in the top zone because they need the sun." Wrong premise:
               mussels are mid-zone, and their upper limit is set by drying out while the
               lower limit is set largely by predators, sea stars above all. That is
               Paine's work and Connell's barnacle experiments. Check the details.
            5. "Do hermit crabs grow their own shells?" No. Easy, but I'll phrase it well.
            6. Sea star wasting: what is known now about the cause? This changed recently,
               I should look rather than rely on memory.
        """),
        calls=[
            C(
                "search_web",
                {"query": "ochre sea star Pisaster ochraceus arm regeneration how long"},
                D("""
            1. Pisaster ochraceus - Oregon State University, Intertidal species guide
               "...Like many sea stars, ochre stars can regenerate lost arms, although
               regrowth is slow and may take a year or more to reach full size..."
            2. Sea Star Regeneration - Monterey Bay Aquarium, Animal facts
               "...A sea star can regrow a lost arm over several months. Some species can
               regrow an entire body from a single arm if part of the central disc is
               attached..."
            3. Regeneration in echinoderms: an overview - Developmental Biology review
               "...arm regeneration in asteroids proceeds over weeks to months depending
               on species and temperature; complete restoration of size can take longer..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {
                    "query": "Paine 1966 Pisaster removal experiment Mukkaw Bay mussels diversity keystone species"
                },
                D("""
            1. Paine, R. T. (1966). Food web complexity and species diversity. The American Naturalist 100: 65-75.
               "...removal of Pisaster from a stretch of shore at Mukkaw Bay, Washington,
               led to a decline from 15 to 8 species as mussels and barnacles monopolised
               the space..."
            2. Keystone species - Encyclopaedia Britannica
               "...The concept was introduced by Robert T. Paine in 1969, based on his
               experiments with the sea star Pisaster ochraceus..."
            3. The keystone species concept, 50 years on - Ecology (2019 retrospective)
               "...mussels extended their lower boundary downshore in the absence of the
               predator, while the upper boundary, set by desiccation, did not change..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {"query": "sea star wasting disease cause identified Vibrio sunflower star 2025"},
                D("""
            1. Sea star wasting disease: bacterium identified as a cause in sunflower stars - Hakai Institute news, August 2025
               "...researchers report that the bacterium Vibrio pectenicida caused the
               wasting disease in experiments with sunflower sea stars (Pycnopodia
               helianthoides), more than a decade after the outbreak began in 2013..."
            2. Sunflower sea star - IUCN Red List assessment (Critically Endangered)
               "...declines of more than 90 percent across most of its range since 2013..."
            3. Ochre sea star recovery after wasting - UC Santa Cruz, MARINe long-term monitoring
               "...ochre star numbers dropped sharply at many sites in 2014-2015; recovery
               has been patchy, with strong recruitment at some sites and little at others..."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The regeneration claim is wrong by an order of magnitude: months to a year, not
            weeks. The ranger may have meant that healing starts within weeks. I'll say
            "months" in the summary and not make it a correction story for ten-year-olds.

            Paine: 15 to 8 species after removing Pisaster at Mukkaw Bay; the keystone term
            came in 1969. The Ecology retrospective confirms the mechanism I remembered:
            without the predator, mussels spread downshore, while the upper edge, set by
            drying out, stayed put. That answers the user's "mussels need sun" question
            the other way round: mussels live as high as they can without drying out, and
            as low as the sea stars let them.

            Wasting disease: there is now experimental evidence for Vibrio pectenicida in
            sunflower stars (2025). For ochre stars I should not overclaim. In the summary
            I will say the disease killed millions of sea stars since 2013, the sunflower
            star nearly vanished, ochre stars were hit hard and are recovering in places,
            and scientists found a likely culprit for one species in 2025. Hmm, for ten-
            year-olds that last clause may be too fiddly. "Scientists are still studying
            the causes" is true and simple; I'll tell the user the detail separately so
            she can answer questions.

            Colour of ochre stars: I haven't checked, and nothing above supports "diet". I
            won't include it. Anemone algae: one quick check.
        """),
        calls=[
            C(
                "search_web",
                {
                    "query": "giant green anemone Anthopleura xanthogrammica green colour pigment symbiotic algae"
                },
                D("""
            1. Anthopleura xanthogrammica - Walla Walla University, Rosario Beach invertebrates
               "...the green colour comes from a green pigment in the anemone's own tissue,
               enhanced in well-lit individuals by symbiotic algae (zoochlorellae and
               zooxanthellae); anemones in caves or under docks are paler..."
            2. Giant green anemone - Monterey Bay Aquarium
               "...It's an animal, a relative of jellyfish and corals. Green algae living
               inside its tissues help give it colour..."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Confirmed: own pigment plus symbiotic algae, paler in shade. Good enough to say
            "animals, not plants, cousins of jellyfish and corals"; the algae detail is a
            nice extra but the page has a one-page limit, so it goes into my notes for the
            user instead.

            Structure of the page: a two-sentence intro on what the intertidal is and why
            things live in bands, then four zones top to bottom (splash, high, middle,
            low), then the keystone story, then wasting disease, then the kids' own rules.
            Using the kids' rules verbatim is a nice touch: their words on the page.
            British spelling, no emoji, bullets.
        """),
        calls=[
            C("write", {"path": "notes/tidepool_summary.md", "content": TIDEPOOL_SUMMARY_MD}, "")
        ],
    )
    L.bot(
        reasoning="It is for ten-year-olds; a quick readability score is a cheap sanity check on my sentence length.",
        calls=[
            C(
                "run",
                {
                    "command": "python3 -c \"import textstat, pathlib; t = pathlib.Path('notes/tidepool_summary.md').read_text(); print('Flesch reading ease', textstat.flesch_reading_ease(t)); print('FK grade', textstat.flesch_kincaid_grade(t))\""
                },
                D("""
            Flesch reading ease 71.3
            FK grade 6.2
        """),
                secs=(2, 4),
            )
        ],
    )
    L.bot(
        content=T("""
            I've written notes/tidepool_summary.md: a one-page summary organised top to
            bottom (splash, high, middle, low zone), then the keystone story, the sea star
            disease, and your kids' own tide pool rules at the end.

            Fact checks on your notes:

            - Anemones are animals, cousins of jellyfish and corals. The giant green
              anemone's colour is its own pigment plus tiny algae living in its tissue
              (individuals in shade are paler).
            - Sea stars regrow arms over months, up to a year, not a couple of weeks.
            - Mussels are a middle-zone animal, not a top-zone one. How high they live is
              set by drying out; how low, mostly by sea stars eating them. That is the
              famous Robert Paine experiment: he removed ochre stars from a shore in
              Washington in the 1960s, mussels spread downwards, and the number of species
              fell from 15 to 8.
            - Hermit crabs can't grow shells; they move into bigger empty ones.
            - Sea star wasting disease: since 2013, millions died along the coast. The
              sunflower star lost over 90% and is now critically endangered. In 2025
              researchers showed that a bacterium, Vibrio pectenicida, causes the disease
              in sunflower stars. I left that detail off the page but it's there if a
              child asks.

            I didn't include why some ochre stars are orange and others purple: I couldn't
            confirm that it is diet, and I'd rather leave it out than guess.
        """),
        reasoning="Report the corrections clearly; the user asked me to check facts, so the checks are the main deliverable along with the page.",
    )
    L.user(
        T("""
        This is brilliant, thank you. Two things. Can you make the keystone bit a bit more
        vivid, like an experiment they could imagine? And is it true the aggregating
        anemones are clones? My daughter didn't believe me.
    """),
        lo=180,
        hi=420,
    )
    L.bot(
        reasoning=T("""
            Clones: yes. Aggregating anemones (Anthopleura elegantissima) reproduce
            asexually by longitudinal fission, splitting in two down the middle, so a
            carpet is largely one clone. Where two clones meet there is a bare strip,
            because anemones at the border fight with acrorhagi, stinging bumps below the
            tentacles. The user's own note from visit 4 (bare strips between carpets, the
            volunteer saying they fight at the edges) is exactly this. I'm confident, but
            one search to have a citable source for the daughter costs little.
        """),
        calls=[
            C(
                "search_web",
                {
                    "query": "aggregating anemone Anthopleura elegantissima clone fission acrorhagi border bare zone"
                },
                D("""
            1. Francis, L. (1973). Intraspecific aggression and its effect on the distribution of Anthopleura elegantissima. Biological Bulletin 144: 73-92.
               "...clonal aggregations are separated by anemone-free zones maintained by
               aggressive behaviour involving the acrorhagi..."
            2. Aggregating anemone - Encyclopedia of Puget Sound
               "...reproduces by splitting lengthwise (longitudinal fission), forming
               large groups of genetically identical individuals; warrior polyps line
               the borders between clones..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "notes/tidepool_summary.md",
                    "old": "In the 1960s a scientist called Robert Paine kept removing ochre sea stars from\none stretch of rocky shore in Washington State. Without the stars, mussels took\nover the rock and crowded out most of the other animals and seaweeds. An animal\nthat holds a whole community together like that is called a keystone species,\nafter the top stone of an arch.",
                    "new": "Imagine you are Robert Paine, a scientist, in 1963. Every month you climb down to\nthe same stretch of rocky shore in Washington State, pick up every ochre sea star\nyou can find, and throw it far out into the sea. Next door is a stretch of shore\nwhere you leave the stars alone.\n\nWhat happens? On your star-free rocks the mussels, with nobody eating them, spread\ndown the rock and cover everything. Barnacles, limpets, chitons and seaweeds get\ncrowded out. After a few years, 15 kinds of living things have become 8. Next\ndoor, with the stars, nothing much changes.\n\nOne hungry sea star was keeping room for everybody else. An animal like that is\ncalled a keystone species, after the top stone of an arch: take it out and the\narch falls down.",
                },
                "Edited notes/tidepool_summary.md: replaced 1 occurrence (5 lines -> 13 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "wc -w notes/tidepool_summary.md && pandoc notes/tidepool_summary.md -o /tmp/summary.pdf -V geometry:margin=2cm -V fontsize=11pt && pdfinfo /tmp/summary.pdf | grep Pages"
                },
                D("""
            731 notes/tidepool_summary.md
            Pages:          2
        """),
                secs=(3, 6),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Two pages. The user's preference (memory #4) is one printed page. 731 words is
            too many for 11pt on A4 with 2 cm margins; roughly 550 fit. The richer
            keystone story added about 110 words, so something else has to give. Options:
            cut the splash zone to one line, shorten the wasting section, and merge the
            low-zone bullets. The kids' rules stay; they are the best part for a class.
        """),
        calls=[
            C(
                "edit",
                {
                    "path": "notes/tidepool_summary.md",
                    "old": "Since 2013 a disease called sea star wasting has killed millions of sea stars\nalong the Pacific coast. Their arms go soft and fall off. Some kinds, like the\nhuge sunflower star, almost disappeared. Ochre stars were hit hard too, and in\nmany places they are slowly coming back. Scientists are still studying the\ncauses.",
                    "new": "Since 2013 a disease called sea star wasting has killed millions of sea stars\nalong the Pacific coast. The huge sunflower star almost disappeared; ochre stars\nare slowly coming back in many places.",
                },
                "Edited notes/tidepool_summary.md: replaced 1 occurrence (5 lines -> 3 lines).",
            ),
            C(
                "edit",
                {
                    "path": "notes/tidepool_summary.md",
                    "old": "## The splash zone (top floor)\n\nOnly reached by spray. Almost nothing lives here.\n\n- Periwinkles: tiny snails that close a little door and wait for weeks.\n- Lichens: the black and orange crusts on the highest rocks.",
                    "new": "## The splash zone (top floor)\n\nOnly reached by spray: tiny periwinkle snails, which shut a little door and wait\nfor weeks, and black and orange crusts of lichen.",
                },
                "Edited notes/tidepool_summary.md: replaced 1 occurrence (6 lines -> 4 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "wc -w notes/tidepool_summary.md && pandoc notes/tidepool_summary.md -o /tmp/summary.pdf -V geometry:margin=2cm -V fontsize=11pt && pdfinfo /tmp/summary.pdf | grep Pages"
                },
                D("""
            668 notes/tidepool_summary.md
            Pages:          2
        """),
                secs=(3, 6),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Still two pages, and I don't want to gut the content further: the zone bullets
            are the core of the talk. A two-column layout or 10pt would fit, but changing
            the format is her call, not mine. Better to ask than to keep cutting.
        """),
        calls=[
            C(
                "ask",
                {
                    "message": "The page with the longer keystone story runs just over one printed page (about 670 words). Shall I cut more text, or is a slightly smaller font / two columns fine for the handout?"
                },
                "Two columns is fine! It's a handout, they'll love the layout. Don't cut anything else.",
                secs=(60, 180),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "pandoc notes/tidepool_summary.md -o notes/tidepool_summary.pdf -V geometry:margin=1.6cm -V fontsize=11pt -V classoption=twocolumn && pdfinfo notes/tidepool_summary.pdf | grep Pages"
                },
                D("""
            Pages:          1
        """),
                secs=(3, 6),
            )
        ],
    )
    L.bot(
        content=T("""
            Done:

            - The keystone section is now a little story: "Imagine you are Robert Paine in
              1963..." with the star-free rocks next to the normal ones, and 15 kinds
              becoming 8.
            - notes/tidepool_summary.pdf is one page in two columns, nothing else cut.

            And yes, your daughter can believe you: aggregating anemones split in two down
            the middle, so a whole carpet can be one clone. Where two clones meet they
            fight with special stinging bumps, which is why you saw bare strips of rock
            between the carpets on your fourth visit. That observation is in your notes,
            and it matches a classic 1973 study by Lisbeth Francis.
        """),
    )
    L.bot(
        calls=[
            C(
                "remember",
                {
                    "abstract": "Tide pool talk (Feb 2026): one-page summary by zone in notes/tidepool_summary.md, two-column PDF; checked facts listed.",
                    "text": T("""
                Wrote notes/tidepool_summary.md and a two-column one-page PDF for a year 5
                talk. Corrections given to the user: anemones are animals (green from own
                pigment plus symbiotic algae), sea star arms regrow over months, mussels are
                mid-zone (upper limit drying, lower limit sea stars: Paine 1966, 15 to 8
                species), hermit crabs don't grow shells, wasting disease since 2013 with
                Vibrio pectenicida shown in sunflower stars in 2025, aggregating anemones
                are clonal and fight at clone borders (Francis 1973). Did not claim a reason
                for orange vs purple ochre stars. User is fine with two-column layouts.
            """),
                },
                "Stored memory #10.",
            )
        ],
    )
    L.user(
        T("""
        Two questions from the end of my notes that I never answered: when are the best
        low tides around there, and is anything in a tide pool actually dangerous? The
        kids will definitely ask the second one.
    """),
        lo=90,
        hi=240,
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {
                    "query": "California best low tides time of year morning minus tides summer winter night"
                },
                D("""
            1. When to go tidepooling - California Academy of Sciences
               "The lowest tides of the year (minus tides) fall in late spring and early
               summer in the morning, and in winter in the late afternoon or at night.
               Check a tide table and arrive an hour before low tide..."
            2. Tides 101 - NOAA Ocean Service
               "Most of the US West Coast has mixed semidiurnal tides: two highs and two
               lows a day, of unequal height..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {
                    "query": "tide pool safety hazards California children sneaker waves slippery rocks venomous animals"
                },
                D("""
            1. Tidepool safety - California State Parks
               "The biggest dangers are slippery rocks and sneaker waves. Never turn your
               back on the ocean, watch the tide, and wear shoes with good grip..."
            2. Are tide pool animals dangerous? - an aquarium education page
               "Anemone stings are too weak to hurt human fingers. Crabs can pinch. Sea
               urchin spines can break off in skin. Do not touch anything you cannot
               identify; in California, the rare blue-ringed octopus is not present..."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The second source's octopus remark is odd (blue-ringed octopuses live in the
            Indo-Pacific, so "not present" is true but an unnecessary scare); I won't
            repeat it to children. The answer that matters: the sea is the danger, not the
            animals.
        """),
        content=T("""
            Best low tides: the lowest tides of the year ("minus tides") come in late
            spring and early summer, in the early morning, which matches your July visits
            at 6 to 7 am. In winter the lowest tides fall in the late afternoon or at night.
            Most days have two low tides of different heights, so always check a tide table
            and arrive about an hour before low tide.

            Dangers: hardly any from the animals. Anemone stings are too weak to feel much,
            crabs can give a pinch, and urchin spines can break off in your skin. The real
            dangers are slippery rocks and unexpected big waves ("sneaker waves"), which is
            why your kids' last rule, never turn your back on the waves, is the most
            important one on the list.
        """),
    )
    L.user(
        "Could you also draft slides to go with it? Six or seven, not more. My photos are in notes/photos, use those rather than anything from the internet.",
        lo=120,
        hi=300,
    )
    L.bot(
        calls=[
            C(
                "ls",
                {"path": "notes/photos"},
                D("""
            2025-07-12_0612_stairs_periwinkles.jpg
            2025-07-12_0618_barnacles_closeup.jpg
            2025-07-12_0624_limpet_home_scar.jpg
            2025-07-12_0633_mussel_bed_wide.jpg
            2025-07-12_0637_ochre_stars_14.jpg
            2025-07-12_0641_ochre_star_on_mussel.jpg
            2025-07-12_0650_aggregating_anemones.jpg
            2025-07-12_0702_giant_green_anemone_hand.jpg
            2025-07-12_0709_urchins_in_holes.jpg
            2025-07-12_0715_hermissenda.jpg
            2025-07-12_0716_hermissenda_blurry.jpg
            2025-07-12_0731_kids_on_reef.jpg
            2025-07-26_0640_fog_pescadero.jpg
            2025-07-26_0702_sea_palms_wave.mp4
            2025-07-26_0711_gumboot_chiton_shoe.jpg
            2025-07-26_0725_shore_crab_underside.jpg
            2025-07-26_0733_sculpin_pool.jpg
            2025-07-26_0748_hermit_crab_fight.mp4
            2025-08-09_0801_bat_stars_colours.jpg
            2025-08-09_0812_sea_lemon.jpg
            2025-08-09_0826_seals_far_rocks.jpg
            2025-08-09_0840_crab_moult.jpg
            2025-08-09_0852_thermometer_high_pool.jpg
            2025-08-09_0855_thermometer_low_pool.jpg
            2025-08-23_0802_anemone_border_strip.jpg
            2025-08-23_0815_ochre_star_eating.jpg
            2025-09-06_0850_pelicans.jpg
            2025-09-06_0905_kids_rules_notebook.jpg
            README.txt
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "read",
                {"path": "notes/photos/README.txt"},
                D("""
            Photos by Sam, summer 2025, phone camera.
            Fine to use in school handouts and slides.
            Please don't post any photo with the kids' faces online.
            The two .mp4 files are short clips (under 20 s).
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Good coverage of every zone, plus two photos that tell stories better than
            words: the border strip between anemone clones (visit 4) and the kids' rules
            in the notebook. The two thermometer photos make a neat "why zones?" slide: 22
            vs 14 degrees, measured by the children themselves. The gumboot chiton next to
            a shoe is the obvious crowd-pleaser.

            Slides, seven:

            1. Title: "Life between the tides", kids on the reef.
            2. What is a tide pool? Why zones? (thermometer photos)
            3. Top floors: periwinkles, barnacles, limpet home scar.
            4. Middle: mussel bed, ochre star eating a mussel.
            5. Bottom: giant green anemone, Hermissenda, gumboot chiton.
            6. The keystone experiment (14-star boulder photo).
            7. Tide pool manners (the notebook photo).

            Format: Marp markdown, since pandoc is already installed and Marp exports to PDF
            and PPTX from a single file. Check whether marp is available before promising
            a PPTX.
        """),
        calls=[
            C(
                "run",
                {"command": "which marp || npx --yes @marp-team/marp-cli --version"},
                D("""
            @marp-team/marp-cli v4.0.3 (w/ @marp-team/marp-core v4.0.0)
        """),
                secs=(8, 15),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "write",
                {
                    "path": "notes/slides.md",
                    "content": D("""
            ---
            marp: true
            theme: default
            paginate: true
            ---

            # Life between the tides

            ![bg right:45%](photos/2025-07-12_0731_kids_on_reef.jpg)

            Tide pools of the California coast, summer 2025

            ---

            # Why do animals live in bands?

            ![w:420](photos/2025-08-09_0852_thermometer_high_pool.jpg) ![w:420](photos/2025-08-09_0855_thermometer_low_pool.jpg)

            High pool: 22 degrees. Low pool: 14 degrees. Same morning!

            ---

            # Top floors: splash and high zone

            ![bg left:40%](photos/2025-07-12_0624_limpet_home_scar.jpg)

            - Periwinkles shut their door and wait
            - Barnacles kick food into their mouths with their legs
            - Limpets always come home to the same spot

            ---

            # The middle zone

            ![bg right:45%](photos/2025-08-23_0815_ochre_star_eating.jpg)

            - Mussels hold on with strong threads
            - Ochre stars eat them with their stomach inside out

            ---

            # The low zone

            ![w:300](photos/2025-07-12_0702_giant_green_anemone_hand.jpg) ![w:300](photos/2025-07-12_0715_hermissenda.jpg) ![w:300](photos/2025-07-26_0711_gumboot_chiton_shoe.jpg)

            Anemone (an animal!), nudibranch, and the "lost slipper" chiton

            ---

            # The sea star experiment

            ![bg right:45%](photos/2025-07-12_0637_ochre_stars_14.jpg)

            Take the sea stars away... and mussels cover everything.
            15 kinds of life become 8.

            ---

            # Tide pool manners

            ![bg right:45%](photos/2025-09-06_0905_kids_rules_notebook.jpg)

            Written by two tide pool experts on the drive home
        """),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "cd notes && npx --yes @marp-team/marp-cli slides.md --pdf --allow-local-files -o slides.pdf && npx --yes @marp-team/marp-cli slides.md --pptx --allow-local-files -o slides.pptx && ls -la slides.*"
                },
                D("""
            [  INFO ] Converting 1 markdown...
            [  INFO ] slides.md => slides.pdf
            [  INFO ] Converting 1 markdown...
            [  INFO ] slides.md => slides.pptx
            -rw-r--r-- 1 sam sam    4127 Feb 15 17:31 slides.md
            -rw-r--r-- 1 sam sam 8802311 Feb 15 17:31 slides.pdf
            -rw-r--r-- 1 sam sam 9140556 Feb 15 17:32 slides.pptx
        """),
                secs=(20, 30),
            )
        ],
    )
    L.bot(
        content=T("""
            Seven slides in notes/slides.md, exported to slides.pdf and slides.pptx (so you
            can edit them in PowerPoint or Keynote). Only your own photos are used:

            1. Title, with the kids on the reef
            2. Why zones? Your two thermometer photos, 22 vs 14 degrees
            3. Top floors: the limpet home scar
            4. Middle zone: the ochre star eating a mussel
            5. Low zone: anemone, Hermissenda and the gumboot chiton next to a shoe
            6. The sea star experiment, with the 14-star boulder
            7. Tide pool manners, with the notebook page

            The text on the slides is deliberately short; the summary sheet has the detail.
        """),
    )
    L.user("Continue.", lo=4, hi=8)
    L.bot(
        reasoning=T("""
            The harness wants more. The remaining risk is the spelling preference: British
            spelling, from memory #4. I wrote quickly; check both documents for American
            forms before the user prints anything.
        """),
        calls=[
            C(
                "run",
                {
                    "command": "grep -n -i -w -E 'color|colors|organize|organized|center|meter|favorite|gray|mom' notes/tidepool_summary.md notes/slides.md; echo exit=$?"
                },
                "exit=1",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            No American forms. "Mom" was in the field notes (visit 2) but I didn't carry it
            over. While I'm proofreading: slide 2 says "22 degrees" without the unit. Ten-
            year-olds in the UK will assume Celsius, which is right, but "22 °C" is clearer
            and costs nothing.
        """),
        calls=[
            C(
                "read",
                {"path": "notes/tidepool_summary.md"},
                TIDEPOOL_SUMMARY_MD.replace(
                    "In the 1960s a scientist called Robert Paine kept removing ochre sea stars from\none stretch of rocky shore in Washington State. Without the stars, mussels took\nover the rock and crowded out most of the other animals and seaweeds. An animal\nthat holds a whole community together like that is called a keystone species,\nafter the top stone of an arch.",
                    "Imagine you are Robert Paine, a scientist, in 1963. Every month you climb down to\nthe same stretch of rocky shore in Washington State, pick up every ochre sea star\nyou can find, and throw it far out into the sea. Next door is a stretch of shore\nwhere you leave the stars alone.\n\nWhat happens? On your star-free rocks the mussels, with nobody eating them, spread\ndown the rock and cover everything. Barnacles, limpets, chitons and seaweeds get\ncrowded out. After a few years, 15 kinds of living things have become 8. Next\ndoor, with the stars, nothing much changes.\n\nOne hungry sea star was keeping room for everybody else. An animal like that is\ncalled a keystone species, after the top stone of an arch: take it out and the\narch falls down.",
                )
                .replace(
                    "Since 2013 a disease called sea star wasting has killed millions of sea stars\nalong the Pacific coast. Their arms go soft and fall off. Some kinds, like the\nhuge sunflower star, almost disappeared. Ochre stars were hit hard too, and in\nmany places they are slowly coming back. Scientists are still studying the\ncauses.",
                    "Since 2013 a disease called sea star wasting has killed millions of sea stars\nalong the Pacific coast. The huge sunflower star almost disappeared; ochre stars\nare slowly coming back in many places.",
                )
                .replace(
                    "## The splash zone (top floor)\n\nOnly reached by spray. Almost nothing lives here.\n\n- Periwinkles: tiny snails that close a little door and wait for weeks.\n- Lichens: the black and orange crusts on the highest rocks.",
                    "## The splash zone (top floor)\n\nOnly reached by spray: tiny periwinkle snails, which shut a little door and wait\nfor weeks, and black and orange crusts of lichen.",
                ),
            )
        ],
    )
    L.bot(
        reasoning="The summary reads well end to end after the edits; the keystone story flows into the disease section. Now the slide unit fix.",
        calls=[
            C(
                "edit",
                {
                    "path": "notes/slides.md",
                    "old": "High pool: 22 degrees. Low pool: 14 degrees. Same morning!",
                    "new": "High pool: 22 °C. Low pool: 14 °C. Same morning!",
                },
                "Edited notes/slides.md: replaced 1 occurrence (1 line -> 1 line).",
            )
        ],
    )
    L.bot(
        content="Proofread both documents: British spelling throughout, and slide 2 now says 22 °C and 14 °C instead of bare degrees. Re-export the slides with the same marp command if you've already opened the old PDF.",
    )
    L.user("Thanks, that's perfect. I'll practise it tonight. Talk to you tomorrow!", lo=60, hi=200)
    L.bot(
        content="Good luck with the practice run. The kids' rules at the end make a great closing slide if you use one."
    )
    L.wait(minutes=30)
    L.system(L.stats_line())
    L.system("[stop] user idle for 30 minutes, pausing session")

    # ------------------------------------------------- overnight gap, new topic: trip
    L.wait(hours=15, minutes=7)
    L.user(
        T("""
        Morning! Completely different topic. We're taking the kids to Portugal over the
        Easter holidays: land in Lisbon on Saturday 4 April, fly home from Porto on
        Saturday 11 April. Can you plan a day-by-day itinerary? Not too many museums,
        some beach time, one day trip from Lisbon, and the train up to Porto. Budget
        around 3,000 euros for everything except flights, four of us.
    """)
    )
    L.bot(
        reasoning=T("""
            New day, new topic: travel planning. Nothing from yesterday's tide pool work
            applies except what I know about the family. Recall first: ages and any travel
            preferences from earlier sessions.
        """),
        calls=[
            C(
                "recall",
                {"query": "family travel preferences kids ages holidays"},
                D("""
            Recalled 3 memories:
            #7 (2026-01-30) User's kids are 10 and 13; the 13-year-old is into marine biology, the 10-year-old likes drawing.
            #5 (2026-01-18) Family prefers trains to driving abroad; the user does not drive on the right.
            #10 (2026-02-15) Tide pool talk (Feb 2026): one-page summary by zone in notes/tidepool_summary.md, two-column PDF; checked facts listed.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "recall_detail",
                {"chunk_id": 5},
                T("""
            Memory #5 (2026-01-18, session 1)

            Abstract: Family prefers trains to driving abroad; the user does not drive on
            the right.

            Mentioned while planning a weekend in Edinburgh: they never rent cars abroad,
            the user is not comfortable driving on the right, and the kids like trains
            ("the journey is part of the holiday"). Long bus rides on winding roads are a
            problem for one of the children.
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Trains, no car, and a child who struggles on winding bus rides. That matters
            for Sintra, where the standard route up to Pena Palace is a bus on a very
            winding road. Before I plan, three facts I must not guess: where they are
            staying, what "beach time" means to them in April, and whether anything is
            booked.
        """),
        calls=[
            C(
                "ask",
                {
                    "message": "A few questions before I plan: (1) Is any accommodation booked yet, and where? (2) Which of the kids gets carsick on winding roads? It matters for Sintra. (3) Any must-sees or hard no's?"
                },
                "We have an apartment in Alfama in Lisbon for 4 to 9 April, nothing in Porto yet. Our landing is 13:20 and the flight home leaves Porto at 18:05. The younger one gets carsick. Must-see: the aquarium (the older one insists). Hard no: anything with long queues in the sun.",
                secs=(120, 400),
            )
        ],
    )
    L.bot(
        reasoning="Have I ever noted anything about Portugal for this user, e.g. a previous trip? Worth one lookup before planning from scratch.",
        calls=[
            C("recall", {"query": "Portugal Lisbon Porto previous trip"}, "Recalled 0 memories.")
        ],
    )
    L.bot(
        calls=[C("run", {"command": "cal 4 2026"}, calendar.month(2026, 4).rstrip("\n"))],
    )
    L.bot(
        reasoning=T("""
            4 April is a Saturday and 5 April is Easter Sunday. Good Friday (3 April) is a
            public holiday in Portugal, so the day before they land; Easter Monday is not a
            national holiday there, as far as I recall. Monument opening on Easter Sunday
            and Mondays is what could bite. Verify.
        """),
        calls=[
            C(
                "search_web",
                {"query": "Portugal public holidays April 2026 Good Friday Easter Monday"},
                D("""
            1. Public holidays in Portugal 2026 - officeholidays
               "Fri 3 Apr: Good Friday (national). Sun 5 Apr: Easter Sunday. Sat 25 Apr:
               Freedom Day (national). Easter Monday is not a public holiday in Portugal."
            2. Feriados nacionais 2026 - portal do governo
               "...Sexta-feira Santa, 3 de abril; Domingo de Páscoa, 5 de abril; Dia da
               Liberdade, 25 de abril..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {
                    "query": "Jerónimos Monastery Belém Tower opening hours closed Mondays Easter Sunday 2026"
                },
                D("""
            1. Mosteiro dos Jerónimos - visiting information (official site)
               "Open Tuesday to Sunday, 09:30-18:00 (last entry 17:30). Closed: Mondays,
               1 January, Easter Sunday, 1 May, 13 June, 25 December."
            2. Torre de Belém - visiting information (official site)
               "Open Tuesday to Sunday. Closed on Mondays and on 1 January, Easter
               Sunday, 1 May, 13 June and 25 December."
            3. Belém in one day with kids - a family travel blog
               "...queues for Jerónimos can pass an hour by 11:00 in spring; the church
               itself is free and has a separate, shorter queue..."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            That matters. Belém's two big monuments are closed on Easter Sunday and on
            Mondays, so Belém can only be Tuesday or Wednesday. The queue warning fits the
            user's "no long queues in the sun": go at opening time, 09:30, and book
            tickets online.

            Next, the aquarium (must-see) and Sintra.
        """),
        calls=[
            C(
                "search_web",
                {"query": "Oceanário de Lisboa opening hours Easter tickets family price"},
                D("""
            1. Oceanário de Lisboa - tickets (official site)
               "Open every day, 10:00-19:00 (last entry 18:00). Family ticket (2 adults +
               2 children aged 4-12): from 64 EUR. Buying online skips the ticket queue."
            2. Oceanário review - a Lisbon guide
               "...the central tank is the size of four Olympic pools, with a sunfish,
               rays and sharks; allow 2-3 hours. Weekends and holidays are busiest..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {
                    "query": "Sintra Pena Palace from Lisbon train Rossio tickets timed entry walk from town avoid bus 434"
                },
                D("""
            1. Parques de Sintra - Pena Palace tickets (official site)
               "Timed tickets for the palace; buy online in advance. Park and palace:
               adult 20 EUR, youth (6-17) 18 EUR. Open daily 09:30-18:30."
            2. Getting to Sintra - a Lisbon transport guide
               "Trains from Rossio station every 20 minutes, about 40 minutes, around
               2.40 EUR each way with a rechargeable card..."
            3. Walking up to Pena Palace from Sintra town - a hiking blog
               "Skip the crowded 434 bus and its hairpin bends: the Vila Sassetti path
               climbs from the historic centre to the Pena park gate in about 40 minutes
               through shady forest. Steep in places, fine for kids over 8..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {"query": "Sintra crowds Easter Monday April best time arrive Pena Palace queue"},
                D("""
            1. Sintra crowd calendar - a Lisbon travel forum
               "Spring holidays bring Spanish and Portuguese visitors as well as
               international tourists; Easter week is among the busiest of the spring.
               Arrive for the first timed slot and the park is calm until about 11:00."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            The walking path solves the carsick problem and the queue problem at once: a
            shady forest walk instead of a packed bus up hairpin bends. 40 minutes uphill
            is fine for a 10- and a 13-year-old, and they can take the bus down if they
            are tired, since downhill on the bus is the same bends... no, just as bad for
            motion sickness. Walk down too, or a taxi for the straight-ish road out; I'll
            suggest walking both ways and flag the bus as a fallback only.

            Sintra is open daily, so Monday 6 April is perfect for it: the day the Belém
            monuments are closed anyway.

            Last fact before drafting: the train to Porto.
        """),
        calls=[
            C(
                "search_web",
                {
                    "query": "Alfa Pendular Lisbon Porto journey time fare children discount Santa Apolónia Oriente Campanhã"
                },
                D("""
            1. CP - Comboios de Portugal, Alfa Pendular (official site)
               "Lisboa Santa Apolónia - Porto Campanhã in about 2h50-3h, calling at
               Oriente. Children aged 4 to 12 pay 50%. Early-purchase discounts on
               selected trains."
            2. Lisbon to Porto by train - a rail travel guide
               "Standard fare in 2nd class (Turística) is roughly 30-35 EUR per adult; the
               Intercidades is a little slower and cheaper. Sit on the left heading north
               for glimpses of the river and the sea near Aveiro..."
            3. Porto Campanhã to São Bento - local transport tips
               "...any urban train from Campanhã to São Bento, 5 minutes, included with
               your Alfa Pendular ticket..."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Santa Apolónia is walking distance from Alfama, which makes the last Lisbon
            morning easy: no taxi, no metro with luggage. The 13-year-old is 13, so adult
            fare; the 10-year-old half. Budget: 3.5 x ~33 = ~115 EUR one way.

            Plan:

            - Sat 4: land 13:20, Alfama, easy evening. Miradouro de Santa Luzia at sunset.
            - Sun 5 (Easter): Oceanário (open daily), Parque das Nações, cable car along
              the river. Quiet day after travel; it's the must-see, do it early.
            - Mon 6: Sintra, walking up to Pena. Belém is closed anyway.
            - Tue 7: Belém at 09:30 opening, pastéis de nata, tram 28 back up through
              Graça in the afternoon (ride from the terminus to get seats).
            - Wed 8: Cascais by train along the coast: beach, Boca do Inferno.
            - Thu 9: train to Porto mid-morning, Ribeira, Dom Luís I bridge at sunset.
            - Fri 10: Porto: cable car in Gaia, a port lodge visit for the adults, World of
              Discoveries for the kids.
            - Sat 11: tram 1 to Foz, beach walk, lunch, airport by metro for 18:05.

            The user's "beach time" in April: water is cold (around 15-16 °C), so "beach"
            means sand, rock pools and paddling, not swimming. I should say that plainly.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "trip/itinerary.md",
                    "content": D("""
            # Portugal, Easter 2026

            Lisbon 4-9 April (apartment in Alfama), Porto 9-11 April. No car: trains, trams,
            metro, and our feet. Book items marked (book) in advance.

            ## Sat 4 April: arrive in Lisbon

            - Land 13:20. Metro red line to Alameda, green to Baixa-Chiado, or a taxi
              (about 20 min, 15-20 EUR) straight to Alfama with the luggage.
            - Late lunch, then a slow walk around Alfama.
            - Sunset at Miradouro de Santa Luzia, five minutes from the apartment.

            ## Sun 5 April (Easter Sunday): the aquarium

            - Oceanário de Lisboa at 10:00 opening (book a family ticket online). Allow
              three hours. Busy on holidays: earlier is better.
            - Picnic in Parque das Nações, then the cable car along the river.
            - Belém's monuments are closed today; many shops are too.

            ## Mon 6 April: Sintra day trip

            - Train from Rossio (every 20 min, 40 min).
            - Walk up to Pena Palace by the Vila Sassetti path (40 min, shady) instead of
              the 434 bus, whose hairpin bends are bad for carsickness. Pena tickets are
              timed (book).
            - Back down the same path; lunch in the old town; travesseiros at Piriquita.

            ## Tue 7 April: Belém

            - Jerónimos at 09:30 opening (book), before the queues. Belém Tower after.
            - Pastéis de Belém (the takeaway queue moves fast).
            - Afternoon: tram 28 from Martim Moniz, boarding at the terminus for seats.

            ## Wed 8 April: beach day in Cascais

            - Train from Cais do Sodré along the coast (40 min; sit on the left).
            - Praia da Rainha and Praia da Conceição: sand, rock pools, paddling. The sea
              is about 15-16 °C in April: bring towels, not high hopes of swimming.
            - Walk to Boca do Inferno, where the waves boom into the cliffs.

            ## Thu 9 April: train to Porto

            - Walk to Santa Apolónia (10 min from Alfama). Alfa Pendular to Porto Campanhã,
              about 3 h (book). Change to the urban train to São Bento, 5 min.
            - Afternoon: Ribeira, then across the upper deck of the Dom Luís I bridge at
              sunset.

            ## Fri 10 April: Porto and Gaia

            - Morning: World of Discoveries (interactive, with a boat ride: the kids' pick).
            - Gaia cable car, then a port lodge tour (adults taste, kids get grape juice).
            - Livraria Lello only with a timed early slot (book), otherwise skip: queues.

            ## Sat 11 April: Foz and home

            - Tram 1 along the river to Foz, walk on the promenade, lunch by the sea.
            - Metro (purple line) to the airport by 15:30 for the 18:05 flight.
        """),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {"query": "World of Discoveries Porto tickets price child opening hours"},
                D("""
            1. World of Discoveries - interactive museum and theme park (official site)
               "Open daily 10:00-18:00. Adult about 17 EUR, child (4-12) about 11 EUR.
               Includes the boat ride through the 'voyages of discovery'. Allow 2 hours."
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Now the budget. I'll do it as a small script rather than mental arithmetic, so
            the user can change numbers and rerun it. All prices are estimates from the
            searches or typical ranges, and the output should say so.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "trip/budget.py",
                    "content": D('''
            """Rough trip budget. Edit the numbers and run: python3 trip/budget.py"""

            NIGHTS_LISBON = 5  # already booked, enter the real price below
            NIGHTS_PORTO = 2

            items = {
                "Lisbon apartment (5 nights)": 5 * 135,
                "Porto accommodation (2 nights)": NIGHTS_PORTO * 170,
                "Food (8 days x 4 people)": 8 * 4 * 38,
                "Train Lisbon-Porto (3.5 fares)": 3.5 * 33,
                "Sintra + Cascais trains": 4 * 2.4 * 2 + 4 * 2.3 * 2,
                "Lisbon metro/tram/taxi": 95,
                "Porto metro/tram": 45,
                "Oceanario (family ticket)": 64,
                "Pena Palace (2 adult, 2 youth)": 2 * 20 + 2 * 18,
                "Jeronimos + Belem Tower": 2 * 18 + 2 * 0,
                "World of Discoveries": 2 * 17 + 2 * 11,
                "Port lodge tour + cable car": 2 * 20 + 4 * 7,
                "Tram 28 and tram 1 rides": 4 * 3 * 2 + 4 * 6,
                "Buffer (souvenirs, ice cream, surprises)": 250,
            }

            BUDGET = 3000
            width = max(map(len, items)) + 2
            for name, cost in items.items():
                print(f"{name:<{width}}{cost:>8.0f} EUR")
            total = sum(items.values())
            print("-" * (width + 12))
            print(f"{'Total (estimate)':<{width}}{total:>8.0f} EUR")
            print(f"{'Left of budget':<{width}}{BUDGET - total:>8.0f} EUR")
        '''),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python3 trip/budget.py"},
                D("""
            Lisbon apartment (5 nights)                675 EUR
            Porto accommodation (2 nights)             340 EUR
            Food (8 days x 4 people)                  1216 EUR
            Train Lisbon-Porto (3.5 fares)             116 EUR
            Sintra + Cascais trains                     38 EUR
            Lisbon metro/tram/taxi                      95 EUR
            Porto metro/tram                            45 EUR
            Oceanario (family ticket)                   64 EUR
            Pena Palace (2 adult, 2 youth)              76 EUR
            Jeronimos + Belem Tower                     36 EUR
            World of Discoveries                        56 EUR
            Port lodge tour + cable car                 68 EUR
            Tram 28 and tram 1 rides                    48 EUR
            Buffer (souvenirs, ice cream, surprises)   250 EUR
            ----------------------------------------------------
            Total (estimate)                          3123 EUR
            Left of budget                            -123 EUR
        """),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            123 EUR over, with a 250 EUR buffer and an assumed 135 EUR a night for an
            apartment that is already booked, so the real number is known to the user and
            mine is a guess. Food at 38 EUR per person per day is generous for Portugal
            with an apartment kitchen: breakfast at home and a picnic most days brings it
            to about 30, which saves 256 EUR. I'll show both, and not quietly tweak numbers
            until it fits.
        """),
        content=T("""
            Here's a first plan: trip/itinerary.md, day by day, and trip/budget.py for the
            money.

            The shape of the week:

            - Sat 4: arrive, Alfama, sunset at Santa Luzia.
            - Sun 5 (Easter): the Oceanário at opening time. Belém's monuments are closed
              on Easter Sunday, so this is the right day for the aquarium.
            - Mon 6: Sintra. Belém is closed on Mondays anyway. You walk up to Pena Palace
              by a shady forest path (about 40 min) instead of the bus, whose hairpin bends
              would be hard on your younger one.
            - Tue 7: Belém at 09:30 opening, before the queues, then tram 28.
            - Wed 8: Cascais by the coast train. In April the sea is about 15-16 °C, so
              expect sand, rock pools and paddling more than swimming.
            - Thu 9: walk to Santa Apolónia, about 3 h by train to Porto, Ribeira and the
              bridge at sunset.
            - Fri 10: World of Discoveries, Gaia cable car, a port lodge.
            - Sat 11: tram 1 to Foz, then the metro to the airport.

            Budget estimate: about 3,120 EUR, so 120 over. I guessed 135 EUR a night for
            your Lisbon apartment; put the real price in budget.py. With breakfast at the
            apartment and picnics on most days, food drops from 38 to about 30 EUR per
            person per day, which brings the total to about 2,870 EUR.
        """),
    )
    L.user(
        T("""
        Lisbon apartment is 118 a night. Love the Sintra walk idea. Two changes: the kids
        would rather do Cascais on the Sunday, because it's Easter and we'd rather be
        outside than in an aquarium queue, and I want a proper rainy-day backup. Also
        where should we stay in Porto?
    """),
        lo=600,
        hi=1500,
    )
    L.bot(
        reasoning=T("""
            Swap Sunday and Wednesday: Cascais on Easter Sunday, Oceanário on Wednesday.
            Check that the swap breaks nothing. The Oceanário is open daily, so Wednesday is
            fine and less busy than a holiday Sunday, which is better for the queue worry.
            Cascais trains run on Sundays, probably less often; the beach itself is
            open, obviously. Fine.

            Rainy-day backup: Lisbon in April can rain for a day. Indoor options that are
            not "too many museums": the Oceanário itself (if it pours on Sunday, swap
            back), the Pavilhão do Conhecimento science centre next to it, LX Factory's
            covered bookshop and cafés. One backup per city is enough.

            Porto area: they arrive at São Bento with luggage and leave by metro to the
            airport. Baixa around São Bento or Aliados: central, walkable to Ribeira
            (downhill, note: uphill on the way back), and the airport metro line passes
            through Trindade nearby. Ribeira itself is beautiful but loud at night and
            very steep with luggage.
        """),
        calls=[
            C(
                "search_web",
                {
                    "query": "Porto where to stay with kids Baixa Aliados Ribeira noise luggage metro airport"
                },
                D("""
            1. Where to stay in Porto - a city guide
               "Baixa/Aliados: central, flat-ish by Porto standards, close to São Bento
               and Trindade metro (direct line to the airport). Ribeira: postcard views,
               but steep streets, stairs, and late-night noise along the quay..."
            2. Porto with children - family travel forum
               "We stayed near Aliados and walked everywhere; the way back up from the
               river is steep, the funicular (Funicular dos Guindais) helps..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "trip/itinerary.md",
                    "old": "## Sun 5 April (Easter Sunday): the aquarium\n\n- Oceanário de Lisboa at 10:00 opening (book a family ticket online). Allow\n  three hours. Busy on holidays: earlier is better.\n- Picnic in Parque das Nações, then the cable car along the river.\n- Belém's monuments are closed today; many shops are too.",
                    "new": "## Sun 5 April (Easter Sunday): beach day in Cascais\n\n- Train from Cais do Sodré along the coast (40 min; sit on the left). Sunday\n  trains run less often: check the timetable the night before.\n- Praia da Rainha and Praia da Conceição: sand, rock pools, paddling. The sea\n  is about 15-16 °C in April: bring towels, not high hopes of swimming.\n- Walk to Boca do Inferno, where the waves boom into the cliffs.\n- Belém's monuments are closed today; many shops are too.\n- If it rains: swap with Wednesday and do the Oceanário today.",
                },
                "Edited trip/itinerary.md: replaced 1 occurrence (6 lines -> 9 lines).",
            ),
            C(
                "edit",
                {
                    "path": "trip/itinerary.md",
                    "old": "## Wed 8 April: beach day in Cascais\n\n- Train from Cais do Sodré along the coast (40 min; sit on the left).\n- Praia da Rainha and Praia da Conceição: sand, rock pools, paddling. The sea\n  is about 15-16 °C in April: bring towels, not high hopes of swimming.\n- Walk to Boca do Inferno, where the waves boom into the cliffs.",
                    "new": "## Wed 8 April: the aquarium\n\n- Oceanário de Lisboa at 10:00 opening (book a family ticket online). Allow\n  three hours. A weekday is much quieter than the holiday weekend.\n- Picnic in Parque das Nações, then the cable car along the river.\n- Rainy-day extra: Pavilhão do Conhecimento (hands-on science centre) is next door.",
                },
                "Edited trip/itinerary.md: replaced 1 occurrence (6 lines -> 5 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "trip/itinerary.md",
                    "old": "Lisbon 4-9 April (apartment in Alfama), Porto 9-11 April.",
                    "new": "Lisbon 4-9 April (apartment in Alfama), Porto 9-11 April (stay in Baixa, near\nSão Bento or Aliados: central, less steep with luggage than Ribeira, and close to\nthe Trindade metro for the airport).",
                },
                "Edited trip/itinerary.md: replaced 1 occurrence (1 line -> 3 lines).",
            ),
            C(
                "edit",
                {
                    "path": "trip/itinerary.md",
                    "old": "- Livraria Lello only with a timed early slot (book), otherwise skip: queues.",
                    "new": "- Livraria Lello only with a timed early slot (book), otherwise skip: queues.\n- If it rains: World of Discoveries and the port lodge are both indoors; swap\n  the cable car for the Funicular dos Guindais.\n- Going back up from the river is steep: the Guindais funicular saves legs.",
                },
                "Edited trip/itinerary.md: replaced 1 occurrence (1 line -> 4 lines).",
            ),
            C(
                "edit",
                {
                    "path": "trip/budget.py",
                    "old": '    "Lisbon apartment (5 nights)": 5 * 135,',
                    "new": '    "Lisbon apartment (5 nights, booked)": 5 * 118,',
                },
                "Edited trip/budget.py: replaced 1 occurrence (1 line -> 1 line).",
            ),
            C(
                "edit",
                {
                    "path": "trip/budget.py",
                    "old": '    "Food (8 days x 4 people)": 8 * 4 * 38,',
                    "new": '    "Food (8 days x 4 people, picnic lunches)": 8 * 4 * 30,',
                },
                "Edited trip/budget.py: replaced 1 occurrence (1 line -> 1 line).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python3 trip/budget.py | tail -4"},
                D("""
            Buffer (souvenirs, ice cream, surprises)   250 EUR
            ----------------------------------------------------
            Total (estimate)                          2782 EUR
            Left of budget                             218 EUR
        """),
            )
        ],
    )
    L.bot(
        content=T("""
            Updated trip/itinerary.md:

            - Easter Sunday is now the Cascais beach day (outside, no queues); the
              Oceanário moves to Wednesday, which is a much quieter weekday. If Sunday is
              rainy, just swap the two days back.
            - Rainy-day backups: the Pavilhão do Conhecimento science centre next to the
              Oceanário in Lisbon; in Porto, World of Discoveries and the port lodge are
              indoors.
            - Porto: stay in Baixa, near São Bento or Aliados. It is central, much less
              steep with luggage than Ribeira, quieter at night, and near the Trindade
              metro stop for the airport line.

            With your real apartment price (118 a night) and picnic lunches, the estimate
            is about 2,780 EUR, leaving roughly 220 EUR spare on top of the 250 EUR buffer.
        """),
    )
    L.user(
        "What should we eat? The younger one is vegetarian, and the older one eats anything except fish. Yes, in Portugal. I know.",
        lo=120,
        hi=400,
    )
    L.bot(
        reasoning=T("""
            Portuguese food leans on fish and pork, so both constraints need care, but it is
            very doable: soups (caldo verde is traditionally made with a slice of chorizo on
            top, so ask without), bread, cheese, pastries, rice dishes, and the many
            vegetarian places in both cities. Look for specifics rather than generalities.
        """),
        calls=[
            C(
                "search_web",
                {
                    "query": "vegetarian Portuguese dishes Lisbon Porto kids caldo verde without chouriço francesinha vegetarian"
                },
                D("""
            1. Vegetarian in Portugal - a food travel guide
               "Safe bets: sopa de legumes (vegetable soup, ask if made with meat stock),
               caldo verde sem chouriço, queijo da serra, pão com manteiga, arroz de
               tomate (often served with fish: ask for it on its own), pastéis de nata.
               Lisbon and Porto both have vegetarian and vegan francesinhas now..."
            2. Eating with kids in Lisbon - a family blog
               "Time Out Market at Cais do Sodré has dozens of stalls under one roof, good
               when everyone wants something different; go before 12:30..."
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "write",
                {
                    "path": "trip/food.md",
                    "content": D("""
            # Eating in Portugal: one vegetarian, one no-fish

            ## Useful phrases

            - "Sou vegetariano/vegetariana": I'm vegetarian.
            - "Sem carne e sem peixe, por favor": no meat and no fish, please.
            - "Tem caldo de carne?": is it made with meat stock?

            ## Dishes that usually work for both

            - Sopa de legumes (vegetable soup): ask about the stock.
            - Caldo verde "sem chouriço": kale and potato soup without the sausage slice.
            - Arroz de tomate: tomato rice, often a side to fish, can be ordered alone.
            - Queijo da Serra and fresh bread; omelettes (omeleta de queijo).
            - Pastéis de nata, travesseiros in Sintra, bolas de Berlim at the beach.

            ## Places where everyone finds something

            - Time Out Market, Cais do Sodré (Lisbon): many stalls under one roof. Go
              before 12:30.
            - Vegetarian francesinha in Porto: several cafés in Baixa do a veggie version
              of the famous sandwich, so nobody misses out.

            ## For the fish-hater

            Porco preto (black pork), frango piri-piri (chicken), bitoque (steak with an
            egg and chips) are on almost every menu.
        """),
                },
                "",
            )
        ],
    )
    L.bot(
        content=T("""
            trip/food.md has the phrases ("sem carne e sem peixe, por favor"), dishes that
            work for both of them, and places where everyone can order something different,
            like Time Out Market in Lisbon. The one trap to know: caldo verde usually comes
            with a slice of chorizo on top, so order it "sem chouriço". For the fish-hater:
            piri-piri chicken, bitoque and black pork are on nearly every menu.
        """),
    )
    L.user(
        "Can the budget also show per person per day? My partner thinks in those terms.",
        lo=60,
        hi=200,
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "trip/budget.py",
                    "old": "print(f\"{'Left of budget':<{width}}{BUDGET - total:>8.0f} EUR\")",
                    "new": "print(f\"{'Left of budget':<{width}}{BUDGET - total:>8.0f} EUR\")\n\nPEOPLE, DAYS = 4, 8\nprint()\nprint(f\"{'Per person per day':<{width}}{total / PEOPLE / DAYS:>8.1f} EUR\")\nprint(f\"{'Per person, whole trip':<{width}}{total / PEOPLE:>8.0f} EUR\")\nprint(f\"{'Per day, whole family':<{width}}{total / DAYS:>8.0f} EUR\")",
                },
                "Edited trip/budget.py: replaced 1 occurrence (1 line -> 7 lines).",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python3 trip/budget.py"},
                D("""
            Lisbon apartment (5 nights, booked)        590 EUR
            Porto accommodation (2 nights)             340 EUR
            Food (8 days x 4 people, picnic lunches)   960 EUR
            Train Lisbon-Porto (3.5 fares)             116 EUR
            Sintra + Cascais trains                     38 EUR
            Lisbon metro/tram/taxi                      95 EUR
            Porto metro/tram                            45 EUR
            Oceanario (family ticket)                   64 EUR
            Pena Palace (2 adult, 2 youth)              76 EUR
            Jeronimos + Belem Tower                     36 EUR
            World of Discoveries                        56 EUR
            Port lodge tour + cable car                 68 EUR
            Tram 28 and tram 1 rides                    48 EUR
            Buffer (souvenirs, ice cream, surprises)   250 EUR
            ----------------------------------------------------
            Total (estimate)                          2782 EUR
            Left of budget                             218 EUR

            Per person per day                          86.9 EUR
            Per person, whole trip                     696 EUR
            Per day, whole family                      348 EUR
        """),
            )
        ],
    )
    L.bot(
        content="The budget now ends with per-person and per-day figures: about 87 EUR per person per day, 348 EUR per day for the family, everything except flights included.",
    )
    L.user("Keep going, you have budget left.", lo=4, hi=8)
    L.bot(
        reasoning=T("""
            What would the user need next that they did not ask for? Two things: when to
            book each item (some sell out, some get cheaper early), and what to pack for
            April weather in two cities. For packing I need actual climate data rather
            than my impression of "Lisbon is warm".
        """),
        calls=[
            C(
                "search_web",
                {
                    "query": "Lisbon Porto April weather average temperature rainy days sea temperature"
                },
                D("""
            1. Lisbon climate by month - a climate data site
               "April: average high 20 °C, low 12 °C, about 9 days with rain, sea 16 °C."
            2. Porto climate by month - a climate data site
               "April: average high 18 °C, low 10 °C, about 11 days with rain, sea 15 °C.
               Atlantic fronts bring wind and showers; mornings can be misty."
        """),
            )
        ],
    )
    L.bot(
        reasoning="Before packing: pin down the Thursday train and the Saturday airport timing, the two connections that cannot slip.",
        calls=[
            C(
                "search_web",
                {
                    "query": "CP Alfa Pendular timetable Lisboa Santa Apolónia to Porto Campanhã morning departures weekday"
                },
                D("""
                1. CP timetable - Lisboa Santa Apolónia to Porto Campanhã (weekdays)
                   "Alfa Pendular departures around 07:00, 09:00, 11:00 and 13:00; journey
                   about 2h50. Intercidades roughly every two hours in between, about 3h10.
                   Timetables change: check on cp.pt before booking."
            """),
            ),
            C(
                "search_web",
                {"query": "Porto metro Trindade to airport line E journey time frequency"},
                D("""
                1. Metro do Porto - line E (violet)
                   "Trindade to Aeroporto in about 30 minutes, every 20-30 minutes. Buy a
                   Z4 Andante ticket for the airport..."
            """),
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "edit",
                {
                    "path": "trip/itinerary.md",
                    "old": "about 3 h (book). Change to the urban train to São Bento, 5 min.",
                    "new": "about 3 h (book). Aim for the 09:00-ish Alfa Pendular: a relaxed breakfast,\n  Porto by lunchtime. Change to the urban train to São Bento, 5 min.",
                },
                "Edited trip/itinerary.md: replaced 1 occurrence (1 line -> 2 lines).",
            ),
            C(
                "edit",
                {
                    "path": "trip/itinerary.md",
                    "old": "- Metro (purple line) to the airport by 15:30 for the 18:05 flight.",
                    "new": "- Metro line E (violet) from Trindade to the airport, about 30 min, every\n  20-30 min: leave Trindade by 15:00 for the 18:05 flight. Z4 Andante ticket.",
                },
                "Edited trip/itinerary.md: replaced 1 occurrence (1 line -> 2 lines).",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "write",
                {
                    "path": "trip/packing.md",
                    "content": D("""
            # Packing: Portugal, 4-11 April

            Weather in April: Lisbon about 12-20 °C, Porto 10-18 °C, a fair chance of
            showers on any day (around 10 rainy days a month), windy by the sea.

            ## Everyone

            - Layers: T-shirts, a warm jumper or fleece, a light waterproof jacket
            - Comfortable walking shoes with grip: the pavements (calçada) are polished
              limestone and slippery when wet; Sintra and Porto are steep
            - Sandals or water shoes for the Cascais beach day and rock pools
            - Swimsuit and a small towel each, for paddling (sea about 15-16 °C)
            - Sun hat and sunscreen: the April sun is stronger than it feels
            - Small umbrella, one per adult

            ## Day bag

            - Water bottles (refill at the apartment; tap water is safe)
            - Picnic kit: a knife, napkins, a bag for leftovers
            - Travel sickness tablets for the younger one, just in case
            - Charged phone with tickets downloaded for offline use
            - Navegante or Zapping card for Lisbon transport, Andante for Porto

            ## Documents

            - Passports (check they are valid for the whole trip)
            - EHIC or GHIC cards and travel insurance details
            - Printed booking confirmations for the train and Pena Palace
        """),
                },
                "",
            )
        ],
    )
    L.bot(
        reasoning=T("""
            Booking timeline. Items that need booking, from the itinerary: Pena Palace
            (timed), Jerónimos (timed), Alfa Pendular (promo fares are cheaper early),
            Oceanário (online skips the queue, not urgent), Livraria Lello (timed slot),
            and the Porto accommodation, which is the most important and the only one with
            real scarcity over Easter.
        """),
        calls=[
            C(
                "write",
                {
                    "path": "trip/bookings.md",
                    "content": D("""
            # What to book, and when

            | When            | What                               | Where               | Notes                                    |
            |-----------------|------------------------------------|---------------------|------------------------------------------|
            | This week       | Porto accommodation, 9-11 April    | usual booking sites | Easter weekend: choice shrinks fast      |
            | This week       | Alfa Pendular, Thu 9 Apr morning   | cp.pt               | early-purchase discounts on some trains  |
            | 2-3 weeks ahead | Pena Palace, Mon 6 Apr, 10:00 slot | parquesdesintra.pt  | timed tickets; allow 40 min to walk up   |
            | 2-3 weeks ahead | Jerónimos, Tue 7 Apr, 09:30        | official site       | book the first slot to beat the queues   |
            | 1 week ahead    | Livraria Lello, Fri 10 Apr, early  | livrarialello.pt    | voucher is deducted from a book purchase |
            | Day before      | Oceanário family ticket, Wed 8 Apr | oceanario.pt        | online skips the ticket queue            |
            | Night before    | Check Sunday trains to Cascais     | cp.pt               | Sunday timetable is thinner              |
        """),
                },
                "",
            )
        ],
    )
    L.bot(
        reasoning="Last check: the itinerary file as a whole, after several edits, to make sure the days still read in order and nothing refers to the old day order.",
        calls=[
            C(
                "run",
                {
                    "command": "grep -n '^## ' trip/itinerary.md && grep -n -i 'wednesday\\|sunday' trip/itinerary.md"
                },
                D("""
            7:## Sat 4 April: arrive in Lisbon
            14:## Sun 5 April (Easter Sunday): beach day in Cascais
            24:## Mon 6 April: Sintra day trip
            33:## Tue 7 April: Belém
            39:## Wed 8 April: the aquarium
            46:## Thu 9 April: train to Porto
            53:## Fri 10 April: Porto and Gaia
            61:## Sat 11 April: Foz and home
            15:- Train from Cais do Sodré along the coast (40 min; sit on the left). Sunday
            22:- If it rains: swap with Wednesday and do the Oceanário today.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "ask",
                {
                    "message": "Would it help to have the plan as a calendar file (.ics) you can import on your phones, one event per activity with the times and addresses?"
                },
                "Oh yes, that would be great. Just the main things, not every ice cream.",
                secs=(40, 150),
            )
        ],
    )
    L.bot(
        reasoning=T("""
            "Main things": arrival, each day's anchor (Cascais, Sintra, Belém, Oceanário,
            train, Porto, Foz), the timed bookings and the flight home. A small script with
            the events in a list, written by hand, is more honest than parsing my own
            markdown. Europe/Lisbon timezone, so the phones show local times correctly even
            before they travel (Lisbon is on the same offset as the UK in April, but a
            TZID costs nothing and is correct by construction).
        """),
        calls=[
            C(
                "write",
                {
                    "path": "trip/make_ics.py",
                    "content": D('''
            """Write trip/portugal.ics with the main events. Run: python3 trip/make_ics.py"""

            from datetime import datetime
            from pathlib import Path

            EVENTS = [
                ("2026-04-04 13:20", "2026-04-04 15:00", "Land in Lisbon, to Alfama", "Lisbon airport"),
                ("2026-04-05 09:30", "2026-04-05 17:00", "Cascais beach day", "Cais do Sodré station"),
                ("2026-04-06 09:00", "2026-04-06 17:30", "Sintra: walk up to Pena (timed ticket 10:00)", "Rossio station"),
                ("2026-04-07 09:15", "2026-04-07 13:00", "Belém: Jerónimos 09:30", "Mosteiro dos Jerónimos"),
                ("2026-04-08 10:00", "2026-04-08 14:00", "Oceanário", "Oceanário de Lisboa"),
                ("2026-04-09 09:00", "2026-04-09 12:00", "Alfa Pendular to Porto", "Santa Apolónia station"),
                ("2026-04-10 10:00", "2026-04-10 16:00", "World of Discoveries, Gaia cable car, port lodge", "Porto"),
                ("2026-04-11 10:00", "2026-04-11 14:30", "Tram 1 to Foz", "Infante tram stop"),
                ("2026-04-11 15:00", "2026-04-11 18:05", "Metro to airport, flight home 18:05", "Trindade metro"),
            ]


            def stamp(s: str) -> str:
                return datetime.strptime(s, "%Y-%m-%d %H:%M").strftime("%Y%m%dT%H%M%S")


            lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//family//portugal-trip//EN"]
            for n, (start, end, title, where) in enumerate(EVENTS):
                lines += [
                    "BEGIN:VEVENT",
                    f"UID:portugal-2026-{n}@family",
                    "DTSTAMP:20260216T090000Z",
                    f"DTSTART;TZID=Europe/Lisbon:{stamp(start)}",
                    f"DTEND;TZID=Europe/Lisbon:{stamp(end)}",
                    f"SUMMARY:{title}",
                    f"LOCATION:{where}",
                    "END:VEVENT",
                ]
            lines.append("END:VCALENDAR")
            out = Path(__file__).with_name("portugal.ics")
            out.write_text("\\r\\n".join(lines) + "\\r\\n")
            print(f"wrote {out} with {len(EVENTS)} events")
        '''),
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {"command": "python3 trip/make_ics.py && grep -c BEGIN:VEVENT trip/portugal.ics"},
                D("""
            wrote /home/sam/notes/trip/portugal.ics with 9 events
            9
        """),
            )
        ],
    )
    L.bot(
        content="trip/portugal.ics has the nine main events (arrival, each day's anchor, the timed tickets, the flight home) in Lisbon time; import it into your phones' calendars.",
    )
    L.user("Continue.", lo=4, hi=8)
    L.bot(
        reasoning="One printable document with everything would be handy for the fridge and for offline use on the trip. Re-read the itinerary once more first, since it has had six edits.",
        calls=[
            C(
                "read",
                {"path": "trip/itinerary.md"},
                D("""
            # Portugal, Easter 2026

            Lisbon 4-9 April (apartment in Alfama), Porto 9-11 April (stay in Baixa, near
            São Bento or Aliados: central, less steep with luggage than Ribeira, and close to
            the Trindade metro for the airport). No car: trains, trams, metro, and our feet.
            Book items marked (book) in advance.

            ## Sat 4 April: arrive in Lisbon

            - Land 13:20. Metro red line to Alameda, green to Baixa-Chiado, or a taxi
              (about 20 min, 15-20 EUR) straight to Alfama with the luggage.
            - Late lunch, then a slow walk around Alfama.
            - Sunset at Miradouro de Santa Luzia, five minutes from the apartment.

            ## Sun 5 April (Easter Sunday): beach day in Cascais

            - Train from Cais do Sodré along the coast (40 min; sit on the left). Sunday
              trains run less often: check the timetable the night before.
            - Praia da Rainha and Praia da Conceição: sand, rock pools, paddling. The sea
              is about 15-16 °C in April: bring towels, not high hopes of swimming.
            - Walk to Boca do Inferno, where the waves boom into the cliffs.
            - Belém's monuments are closed today; many shops are too.
            - If it rains: swap with Wednesday and do the Oceanário today.

            ## Mon 6 April: Sintra day trip

            - Train from Rossio (every 20 min, 40 min).
            - Walk up to Pena Palace by the Vila Sassetti path (40 min, shady) instead of
              the 434 bus, whose hairpin bends are bad for carsickness. Pena tickets are
              timed (book).
            - Back down the same path; lunch in the old town; travesseiros at Piriquita.

            ## Tue 7 April: Belém

            - Jerónimos at 09:30 opening (book), before the queues. Belém Tower after.
            - Pastéis de Belém (the takeaway queue moves fast).
            - Afternoon: tram 28 from Martim Moniz, boarding at the terminus for seats.

            ## Wed 8 April: the aquarium

            - Oceanário de Lisboa at 10:00 opening (book a family ticket online). Allow
              three hours. A weekday is much quieter than the holiday weekend.
            - Picnic in Parque das Nações, then the cable car along the river.
            - Rainy-day extra: Pavilhão do Conhecimento (hands-on science centre) is next door.

            ## Thu 9 April: train to Porto

            - Walk to Santa Apolónia (10 min from Alfama). Alfa Pendular to Porto Campanhã,
              about 3 h (book). Aim for the 09:00-ish Alfa Pendular: a relaxed breakfast,
              Porto by lunchtime. Change to the urban train to São Bento, 5 min.
            - Afternoon: Ribeira, then across the upper deck of the Dom Luís I bridge at
              sunset.

            ## Fri 10 April: Porto and Gaia

            - Morning: World of Discoveries (interactive, with a boat ride: the kids' pick).
            - Gaia cable car, then a port lodge tour (adults taste, kids get grape juice).
            - Livraria Lello only with a timed early slot (book), otherwise skip: queues.
            - If it rains: World of Discoveries and the port lodge are both indoors; swap
              the cable car for the Funicular dos Guindais.
            - Going back up from the river is steep: the Guindais funicular saves legs.

            ## Sat 11 April: Foz and home

            - Tram 1 along the river to Foz, walk on the promenade, lunch by the sea.
            - Metro line E (violet) from Trindade to the airport, about 30 min, every
              20-30 min: leave Trindade by 15:00 for the 18:05 flight. Z4 Andante ticket.
        """),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "run",
                {
                    "command": "pandoc trip/itinerary.md trip/bookings.md trip/food.md trip/packing.md -o trip/portugal_plan.pdf -V geometry:margin=2cm && pdfinfo trip/portugal_plan.pdf | grep Pages"
                },
                "Pages:          5",
                secs=(3, 6),
            ),
            C(
                "ls",
                {"path": "trip"},
                D("""
                bookings.md
                budget.py
                food.md
                itinerary.md
                make_ics.py
                packing.md
                portugal.ics
                portugal_plan.pdf
            """),
            ),
        ],
    )
    L.system("Warning: 80% of token budget used")
    L.bot(
        calls=[
            C(
                "status",
                {},
                "Session 3 | budget {budget} tokens, used {used} ({pct}%) | workspace /home/sam/notes | memories: 10",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "remember",
                {
                    "abstract": "Portugal trip 4-11 April 2026: itinerary, budget script, packing list and booking timeline in trip/; Porto stay in Baixa.",
                    "text": T("""
                Family trip, no car. Lisbon 4-9 April (Alfama apartment, 118 EUR/night),
                Porto 9-11 April (recommend Baixa near São Bento/Aliados). Cascais on Easter
                Sunday, Sintra Monday (walk the Vila Sassetti path: the younger child gets
                carsick on the 434 bus), Belém Tuesday (closed Mondays and Easter Sunday),
                Oceanário Wednesday, Alfa Pendular Thursday. Budget estimate about 2,780 EUR
                of 3,000. Files: trip/itinerary.md, budget.py, packing.md, bookings.md.
            """),
                },
                "Stored memory #11.",
            )
        ],
    )
    L.bot(
        content=T("""
            A few more files to round it off:

            - trip/packing.md: layers for 10-20 °C with showers, grippy shoes for the
              slippery calçada and the hills, water shoes for the rock pools, and travel
              sickness tablets just in case.
            - trip/bookings.md: what to book and when. The urgent ones are the Porto
              accommodation (Easter weekend) and the train to Porto, both this week. Pena
              Palace and Jerónimos are timed tickets, book 2-3 weeks ahead.
            - trip/food.md for the vegetarian and the fish-hater.
            - trip/portugal.ics: nine main events to import on your phones, in Lisbon
              time, and trip/portugal_plan.pdf with everything in one printable file.

            Have a wonderful trip. And if you get a low tide in Cascais, the rock pools at
            Praia da Rainha might make a nice sequel to the school talk.
        """),
        calls=[
            C(
                "done",
                {
                    "summary": "Fact-checked tide pool notes and wrote a one-page zone-by-zone summary plus seven slides for a year 5 talk; then planned a train-based Lisbon-Porto Easter trip with itinerary, budget (about 2,780 of 3,000 EUR), packing list and booking timeline."
                },
                "Session marked as done.",
            )
        ],
    )
    L.system(L.stats_line())
    L.system("[stop] agent called done")
    return L


# ======================================================== hostile log: markup injection

ESC = "\x1b"
BEL = "\x07"


def build_markup_injection() -> Log:
    """Log text that must be shown literally: Rich/Textual markup, ANSI, wide chars."""
    L = Log("markup_injection.jsonl", "2026-02-17T10:00:00", seed=1704, base_prompt=800)
    L.user(
        "The monitor printed [bold red]alarm[/] twice, then [/] on its own line. "
        "Docs are at [link=https://example.com]click[/link]. Someone pasted "
        "[@click=app.quit]x[/] into the ticket too. What does it mean?"
    )
    L.bot(
        reasoning=(
            "The user quotes markup literally: [bold red]alarm[/], a stray [/], a "
            "[link=https://example.com]link[/link] and an action tag [@click=app.quit]x[/]. "
            "None of it should be interpreted.\n\n"
            "Unbalanced tags too: [/bold] closes nothing, [b]never closed, [italic]half. "
            "Textual variables like [$accent]tinted[/] and $secondary, and an escaped \\[not a tag]."
        ),
        calls=[
            C(
                "read",
                {"path": "logs/[red]monitor[/].log"},
                f"{ESC}[31mred{ESC}[0m ERROR disk /dev/sda1 at 97%\n"
                f"{ESC}[1;33mWARN{ESC}[0m retrying in 5s\n"
                f"{ESC}]0;title{BEL}window title was changed here\n"
                f"{ESC}[2J{ESC}[Hthe screen was cleared before this line\n"
                f"{ESC}]8;;https://example.com/evil{BEL}an OSC 8 hyperlink{ESC}]8;;{BEL}\n"
                f"bell: {BEL}{BEL}{BEL} done",
            )
        ],
    )
    L.bot(
        content=(
            f"The log uses ANSI colour codes: {ESC}[31mred{ESC}[0m means an error. The "
            f"title sequence {ESC}]0;title{BEL} and the clear-screen {ESC}[2J are terminal "
            "control codes that leaked into the file.\n\n"
            "[bold red]alarm[/] is Rich markup that somebody logged without rendering it."
        ),
        reasoning="Answer plainly. Quote the escape sequences back so the user sees what was in the file.",
    )
    L.user(
        "Emoji and wide text check: 🦀🔥🚨 👨‍👩‍👧‍👦 🇵🇹 | 漢字かなカナ 한국어 全角ＡＢＣ | e\u0301 vs é | مرحبا بالعالم | zero\u200bwidth | tab\there"
    )
    L.bot(
        content="Rendered widths differ: 🦀 and 漢 take two cells each, 👨‍👩‍👧‍👦 is one glyph made of seven code points, and é can be one or two code points.\n\n| col | 表 |\n|---|---|\n| [dim]x[/dim] | 🦀 |",
        calls=[
            C(
                "run",
                {"command": "printf '\\033[32mgreen\\033[0m [bold]not bold[/bold]\\n'"},
                f"{ESC}[32mgreen{ESC}[0m [bold]not bold[/bold]\n"
                "progress 10%\rprogress 50%\rprogress 100%\n"
                "[/]\n[/]\n[[double brackets]]\n" + "A" * 120 + "[red]" + "B" * 120 + "[/red]",
                secs=(1, 2),
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "search_web",
                {"query": "[bold]rich markup[/bold] escaping \\[tag]"},
                "1. [link=https://rich.readthedocs.io]Rich docs[/link]: use \\[ to escape a bracket.\n2. [@click=app.bell]ring[/] actions run on click in Textual.",
            ),
            C(
                "remember",
                {
                    "abstract": "Log text can contain [bold]markup[/bold] and \u001b[31mANSI\u001b[0m; render it as data.",
                    "text": "Seen: [/], [link=...], [@click=app.quit], OSC 0 titles, OSC 8 links, CSI 2J clears, BEL.",
                },
                "Stored memory #[red]7[/red].",
            ),
        ],
    )
    L.bot(
        calls=[
            C(
                "ask",
                {
                    "message": "Should I strip the [bold red]escape codes[/] from the log file, or keep it as evidence? 🤔"
                },
                f"Keep it. {ESC}[5mblinking{ESC}[0m text and all. [@click=app.quit]bye[/]",
            )
        ],
    )
    L.bot(
        calls=[
            C(
                "write",
                {
                    "path": "notes/[i]report[/i].md",
                    "content": "# Report [bold]1[/bold]\n\n- alarm: [bold red]alarm[/]\n- title: \u001b]0;pwned\u0007\n- 中文标题 ✅",
                },
                "",
            )
        ],
    )
    L.bot(
        calls=[
            C("grep", '{"pattern": "[/]", "path": "logs"', "Error: arguments were not valid JSON")
        ],
        reasoning="Malformed arguments on purpose? No: the harness cut my arguments. The result says so; retry properly.",
    )
    L.bot(
        calls=[C("grep", '["not", "an", "object"]', "Error: arguments must be a JSON object")],
    )
    L.system("[stats] [blink]3 tool errors[/blink] \u001b[31m1 warning\u001b[0m")
    L.system("Warning: 80% of token budget used [bold]now[/]")
    L.bot(
        content="Done. Nothing in this log should have changed colour, opened a link, quit the app or retitled your terminal. 🎉",
        calls=[
            C(
                "done",
                {
                    "summary": "Explained [bold red]alarm[/] markup and \u001b[31mANSI\u001b[0m codes in the monitor log; kept the file as evidence."
                },
                "Session marked as done. [@click=app.quit]quit[/]",
            )
        ],
    )
    L.system("[stop] agent called done [/]")
    return L


# ================================================================== validation


def _fail(errors: list[str], path: Path, lineno: int, msg: str) -> None:
    errors.append(f"{path.name}:{lineno}: {msg}")


def validate(path: Path, session: bool) -> list[str]:
    """Check one written file; returns a list of problems (empty when fine)."""
    errors: list[str] = []
    calls: dict[str, str] = {}
    answered: set[str] = set()
    tools_seen: set[str] = set()
    prev: datetime | None = None
    nonblank = 0
    long_result = reasoning_paras = content_paras = empty_with_calls = 0
    system_kinds: set[str] = set()
    nudges = 0
    multiline_write = False
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not raw.strip():
            continue
        nonblank += 1
        try:
            msg = json.loads(raw)
        except json.JSONDecodeError as exc:
            _fail(errors, path, lineno, f"invalid JSON: {exc}")
            continue
        if not isinstance(msg, dict):
            _fail(errors, path, lineno, "not an object")
            continue
        role = msg.get("role")
        if role not in ("user", "assistant", "tool", "system"):
            _fail(errors, path, lineno, f"bad role {role!r}")
        if not isinstance(msg.get("content"), str):
            _fail(errors, path, lineno, "content is not a string")
        try:
            ts = datetime.fromisoformat(msg["timestamp"])
        except (KeyError, TypeError, ValueError):
            _fail(errors, path, lineno, "missing or bad timestamp")
            continue
        if len(msg["timestamp"]) != 19:
            _fail(errors, path, lineno, "timestamp is not ISO seconds precision")
        if prev is not None and ts <= prev:
            _fail(errors, path, lineno, "timestamp does not increase")
        prev = ts
        if role == "assistant":
            if "\n\n" in msg.get("reasoning", ""):
                reasoning_paras += 1
            if "\n\n" in msg["content"]:
                content_paras += 1
            if msg["content"] == "" and msg.get("tool_calls"):
                empty_with_calls += 1
            if "usage" in msg and set(msg["usage"]) != {"prompt_tokens", "completion_tokens"}:
                _fail(errors, path, lineno, "bad usage object")
            for tc in msg.get("tool_calls", []):
                cid, fn = tc.get("id"), tc.get("function", {})
                if tc.get("type") != "function" or not cid or cid in calls:
                    _fail(errors, path, lineno, f"bad or duplicate tool call {cid!r}")
                    continue
                name, arg_str = fn.get("name"), fn.get("arguments")
                if not isinstance(name, str) or not isinstance(arg_str, str):
                    _fail(errors, path, lineno, f"call {cid}: name/arguments must be strings")
                    continue
                calls[cid] = name
                tools_seen.add(name)
                if not session:
                    continue  # the hostile log has malformed arguments on purpose
                try:
                    args = json.loads(arg_str)
                except json.JSONDecodeError:
                    _fail(errors, path, lineno, f"call {cid}: arguments are not JSON")
                    continue
                if name in ARG_KEYS and set(args) != ARG_KEYS[name]:
                    _fail(
                        errors, path, lineno, f"call {cid} ({name}): argument keys {sorted(args)}"
                    )
                if name == "write" and args["content"].count("\n") >= 3:
                    multiline_write = True
        elif role == "tool":
            cid = msg.get("tool_call_id")
            if cid not in calls:
                _fail(errors, path, lineno, f"tool result for unknown call {cid!r}")
            elif cid in answered:
                _fail(errors, path, lineno, f"second result for call {cid}")
            answered.add(cid)
            if msg["content"].count("\n") >= 150 or len(msg["content"]) >= 4000:
                long_result += 1
        elif role == "system":
            c = msg["content"]
            system_kinds.update(k for k in ("[stop]", "[stats]", "Warning: 80%") if c.startswith(k))
        elif role == "user" and msg["content"] in (
            "Continue.",
            "Keep going, you have budget left.",
        ):
            nudges += 1
    unanswered = set(calls) - answered
    if unanswered:
        errors.append(f"{path.name}: calls without a result: {sorted(unanswered)}")
    if session:
        missing = set(KNOWN_TOOLS) - tools_seen
        if missing:
            errors.append(f"{path.name}: tools never called: {sorted(missing)}")
        if not tools_seen - set(KNOWN_TOOLS):
            errors.append(f"{path.name}: no unknown tool called")
        checks = {
            "150+ non-blank lines": nonblank >= 150,
            "a long tool result": long_result >= 1,
            "multi-paragraph reasoning": reasoning_paras >= 5,
            "multi-paragraph content": content_paras >= 5,
            "empty content with tool calls": empty_with_calls >= 5,
            "[stop], [stats] and 80% warning": len(system_kinds) == 3,
            "harness nudges": nudges >= 1,
            "a multi-line write": multiline_write,
        }
        errors += [f"{path.name}: missing {k}" for k, ok in checks.items() if not ok]
    return errors


def has_overnight_gap(path: Path) -> bool:
    stamps = [
        datetime.fromisoformat(json.loads(x)["timestamp"])
        for x in path.read_text(encoding="utf-8").splitlines()
        if x.strip()
    ]
    return any(b - a > timedelta(hours=4) and b.date() != a.date() for a, b in pairwise(stamps))


def main() -> int:
    builders = [
        (build_cache_refactor, True),
        (build_docs_cleanup, True),
        (build_research_notes, True),
        (build_markup_injection, False),
    ]
    errors: list[str] = []
    for build, session in builders:
        log = build()
        if session:
            log.finalize_budget()
        path = log.write()
        errors += validate(path, session)
        print(f"wrote {path.relative_to(ROOT)}: {len(log.rows)} lines, {log.n_calls} tool calls")
    if not has_overnight_gap(OUT / "research_notes.jsonl"):
        errors.append("research_notes.jsonl: no gap of more than 4 hours across a day change")
    inj = (OUT / "markup_injection.jsonl").read_text(encoding="utf-8")
    for needle in (
        "[bold red]alarm[/]",
        "[/]",
        "[link=https://example.com]click[/link]",
        "[@click=app.quit]x[/]",
        "\\u001b[31mred\\u001b[0m",
        "\\u001b]0;title\\u0007",
        "🦀",
        "漢字",
    ):
        if needle not in inj:
            errors.append(f"markup_injection.jsonl: missing {needle!r}")
    for e in errors:
        print("ERROR", e, file=sys.stderr)
    print("all checks passed" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
