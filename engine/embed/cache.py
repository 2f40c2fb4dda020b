"""A persistent cache of embedding vectors and of JSON values, in one SQLite file.

The file is ``cache.sqlite3`` in ``$CHUNKSCOPE_CACHE_DIR`` when that is set, else in
the user cache directory (``platformdirs.user_cache_path("chunkscope")``); a path
given to the constructor wins over both.

* Vectors are keyed by ``(backend, model, dim, sha256 of the text)`` and stored as
  float32 blobs. Only remote embedders are cached: the lexical embedder's vectors
  depend on the whole document (its IDF), and it is fast to recompute.
* ``get_json``/``put_json`` keep small JSON values per ``(namespace, key)`` for other
  stages (summaries, ...).

The database runs in WAL mode with a busy timeout, so several processes can read
and write at once. A file that is not a database, or is damaged, is renamed aside
to ``cache.sqlite3.corrupt-<timestamp>`` and rebuilt. When the directory cannot be
created or written, the cache lives in memory for this run (``persistent`` is
False). Every such event adds a line to ``warnings`` and is passed to ``warn``.
The cache never raises on a failed write: caching is best effort.

One connection is shared by all threads and guarded by a lock, so the cache can be
used from worker threads.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
import warnings as _warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from chunkscope.engine.paths import CACHE_DIR_ENV, cache_dir

CACHE_FILENAME = "cache.sqlite3"
ENV_CACHE_DIR = CACHE_DIR_ENV
SCHEMA_VERSION = 1

_T = TypeVar("_T")

# SQLite result codes (primary codes: the low byte of an extended code).
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_CORRUPT_CODES = frozenset({_SQLITE_CORRUPT, _SQLITE_NOTADB})

# Rows per `IN (...)` query; well under SQLite's limit on host parameters.
_QUERY_CHUNK = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    vector BLOB NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (backend, model, dim, sha256)
);
CREATE TABLE IF NOT EXISTS kv (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
"""


class _NewerSchemaError(Exception):
    def __init__(self, version: int) -> None:
        super().__init__(f"schema version {version}")
        self.version = version


def default_cache_path() -> Path:
    """Where the cache lives unless told otherwise (see the module docstring)."""
    return cache_dir() / CACHE_FILENAME


def text_key(text: str) -> str:
    """The cache key of a text: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_corrupt(err: sqlite3.Error) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _CORRUPT_CODES:
        return True
    message = str(err).lower()
    return "not a database" in message or "malformed" in message


def _chunks(items: Sequence[_T], size: int) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class EmbeddingCache:
    """Vectors and JSON values in SQLite; see the module docstring.

    ``hits`` and ``misses`` count texts looked up by `get_many` since construction.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        warn: Callable[[str], None] | None = None,
        busy_timeout: float = 30.0,
    ) -> None:
        in_memory = path is not None and os.fspath(path) == ":memory:"
        #: The cache file (also when it could not be used: see `persistent`).
        self.path: Path | None = None
        if not in_memory:
            self.path = Path(path) if path is not None else default_cache_path()
        self.warnings: list[str] = []
        self.hits = 0
        self.misses = 0
        #: False when the cache lives in memory only (asked for, or as a fallback).
        self.persistent = not in_memory
        self._warn_callback = warn
        self._busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._write_failed = False
        self._conn = self._open()

    # -- opening, recovery ---------------------------------------------------------

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        if self._warn_callback is not None:
            self._warn_callback(message)
        else:
            _warnings.warn(message, RuntimeWarning, stacklevel=3)

    def _connect(self, target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(
            target,
            timeout=self._busy_timeout,
            isolation_level=None,  # autocommit; transactions are explicit
            check_same_thread=False,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            # Reading the schema fails at once on a file that is not a database.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            if target != ":memory:":
                try:
                    conn.execute("PRAGMA journal_mode = WAL").fetchone()
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) and "busy" not in str(e):
                        raise
                    # Another process holds the file; it is switching it to WAL too.
                conn.execute("PRAGMA synchronous = NORMAL")
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    version = conn.execute("PRAGMA user_version").fetchone()[0]
                    if version > SCHEMA_VERSION:
                        raise _NewerSchemaError(version)
                    if 0 < version < SCHEMA_VERSION:  # an older layout: start again
                        conn.execute("DROP TABLE IF EXISTS vectors")
                        conn.execute("DROP TABLE IF EXISTS kv")
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            # A damaged table shows itself on the first read of it.
            conn.execute("SELECT count(*) FROM (SELECT 1 FROM vectors LIMIT 1)").fetchone()
            conn.execute("SELECT count(*) FROM (SELECT 1 FROM kv LIMIT 1)").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def _memory(self, why: str) -> sqlite3.Connection:
        self._warn(f"embedding cache: {why}; using an in-memory cache for this run")
        self.persistent = False
        return self._connect(":memory:")

    def _open(self) -> sqlite3.Connection:
        path = self.path
        if path is None or not self.persistent:
            return self._connect(":memory:")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return self._memory(f"cannot create {path.parent} ({e.strerror or e})")
        if not os.access(path.parent, os.W_OK | os.X_OK):
            return self._memory(f"cannot write to {path.parent}")
        for _attempt in range(2):
            try:
                return self._connect(str(path))
            except _NewerSchemaError as e:
                return self._memory(
                    f"{path} was written by a newer chunkscope (schema {e.version})"
                )
            except sqlite3.Error as e:
                if _is_corrupt(e):
                    self._move_aside(path, e)
                    continue
                return self._memory(f"cannot open {path} ({e})")
        return self._memory(f"cannot rebuild {path}")

    def _move_aside(self, path: Path, err: sqlite3.Error) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = path.with_name(f"{path.name}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        try:
            path.replace(aside)
        except FileNotFoundError:
            pass  # another process got there first
        except OSError as e:
            self._warn(f"embedding cache: {path} is damaged and cannot be moved aside ({e})")
            raise
        # The write-ahead log and shared memory of the damaged file belong with it.
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            with suppress(OSError):
                side.replace(aside.with_name(aside.name + suffix))
        self._warn(f"embedding cache: {path} was damaged ({err}); moved it to {aside.name}")

    def _recover(self, err: sqlite3.Error) -> None:
        """Replace a connection whose file turned out damaged by a fresh cache."""
        with self._lock:
            with suppress(sqlite3.Error):
                self._conn.close()
            path = self.path
            if path is None or not self.persistent:
                self._conn = self._connect(":memory:")
                return
            try:
                self._move_aside(path, err)
            except OSError:
                self._conn = self._memory(f"cannot replace the damaged {path}")
                return
            self._conn = self._open()

    def _run(self, op: Callable[[sqlite3.Connection], _T], fallback: _T, writing: bool) -> _T:
        """``op(connection)`` under the lock; a damaged file is rebuilt and `op` tried again.

        A write that fails for another reason (disk full, read-only file, locked for
        longer than the busy timeout) warns once and returns `fallback`.
        """
        with self._lock:
            for attempt in range(2):
                try:
                    return op(self._conn)
                except sqlite3.Error as e:
                    if _is_corrupt(e) and attempt == 0:
                        self._recover(e)
                        continue
                    if not writing:
                        raise
                    if not self._write_failed:
                        self._write_failed = True
                        self._warn(f"embedding cache: cannot write to {self.path} ({e})")
                    return fallback
            return fallback

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close the database connection; the cache is unusable afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = str(self.path) if self.persistent else ":memory:"
        return f"EmbeddingCache({where})"

    # -- vectors ---------------------------------------------------------------------

    def get_many(
        self, backend: str, model: str, dim: int, texts: Sequence[str]
    ) -> dict[int, npt.NDArray[np.float32]]:
        """The cached vectors of `texts`, by position in `texts` (missing ones left out)."""
        if not texts:
            return {}
        keys = [text_key(t) for t in texts]
        distinct = list(dict.fromkeys(keys))

        def op(conn: sqlite3.Connection) -> dict[str, bytes]:
            found: dict[str, bytes] = {}
            for part in _chunks(distinct, _QUERY_CHUNK):
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    "SELECT sha256, vector FROM vectors WHERE backend = ? AND model = ? "
                    f"AND dim = ? AND sha256 IN ({marks})",
                    (backend, model, dim, *part),
                )
                found.update(rows)
            return found

        try:
            blobs: dict[str, bytes] = self._run(op, {}, writing=False)
        except sqlite3.Error as e:
            self._warn(f"embedding cache: cannot read {self.path} ({e})")
            blobs = {}
        vectors: dict[str, npt.NDArray[np.float32]] = {}
        for key, blob in blobs.items():
            if isinstance(blob, bytes) and len(blob) == 4 * dim:
                vectors[key] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        out = {i: vectors[k] for i, k in enumerate(keys) if k in vectors}
        self.hits += len(out)
        self.misses += len(texts) - len(out)
        return out

    def put_many(
        self,
        backend: str,
        model: str,
        dim: int,
        texts: Sequence[str],
        vectors: npt.ArrayLike,
    ) -> int:
        """Store one vector per text in one transaction; returns the number stored."""
        matrix = np.asarray(vectors, dtype="<f4")
        if matrix.ndim != 2 or matrix.shape != (len(texts), dim):
            raise ValueError(
                f"expected {len(texts)} vectors of width {dim}, got shape {matrix.shape}"
            )
        if not texts:
            return 0
        now = time.time()
        rows = [
            (backend, model, dim, text_key(t), matrix[i].tobytes(), now)
            for i, t in enumerate(texts)
        ]

        def op(conn: sqlite3.Connection) -> int:
            with self._transaction(conn):
                conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?, ?)", rows)
            return len(rows)

        return self._run(op, 0, writing=True)

    # -- JSON values -----------------------------------------------------------------

    def get_json(self, namespace: str, key: str) -> Any | None:
        """The value stored under ``(namespace, key)``, or None."""
        return self.get_json_many(namespace, [key]).get(key)

    def put_json(self, namespace: str, key: str, value: Any) -> None:
        """Store a JSON-serialisable `value` under ``(namespace, key)``."""
        self.put_json_many(namespace, {key: value})

    def get_json_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        """The stored values of those `keys` that are present."""
        distinct = list(dict.fromkeys(keys))
        if not distinct:
            return {}

        def op(conn: sqlite3.Connection) -> dict[str, str]:
            found: dict[str, str] = {}
            for part in _chunks(distinct, _QUERY_CHUNK):
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    f"SELECT key, value FROM kv WHERE namespace = ? AND key IN ({marks})",
                    (namespace, *part),
                )
                found.update(rows)
            return found

        try:
            raw: dict[str, str] = self._run(op, {}, writing=False)
        except sqlite3.Error as e:
            self._warn(f"embedding cache: cannot read {self.path} ({e})")
            return {}
        out: dict[str, Any] = {}
        for key, text in raw.items():
            try:
                out[key] = json.loads(text)
            except (TypeError, ValueError):
                continue
        return out

    def put_json_many(self, namespace: str, items: Mapping[str, Any]) -> int:
        """Store many values in one transaction; returns the number stored."""
        if not items:
            return 0
        now = time.time()
        rows = [
            (namespace, key, json.dumps(value, ensure_ascii=False), now)
            for key, value in items.items()
        ]

        def op(conn: sqlite3.Connection) -> int:
            with self._transaction(conn):
                conn.executemany("INSERT OR REPLACE INTO kv VALUES (?, ?, ?, ?)", rows)
            return len(rows)

        return self._run(op, 0, writing=True)

    # -- housekeeping ----------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """What the cache holds: path, size, vectors per backend and model, JSON entries."""

        def op(conn: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
            vec = conn.execute(
                "SELECT backend, model, dim, count(*) FROM vectors "
                "GROUP BY backend, model, dim ORDER BY backend, model, dim"
            ).fetchall()
            kv = conn.execute(
                "SELECT namespace, count(*) FROM kv GROUP BY namespace ORDER BY namespace"
            ).fetchall()
            return vec, kv

        empty: tuple[list[Any], list[Any]] = ([], [])
        vec_rows, kv_rows = self._run(op, empty, writing=False)
        size = 0
        if self.persistent and self.path is not None:
            for suffix in ("", "-wal"):
                with suppress(OSError):
                    size += os.path.getsize(str(self.path) + suffix)
        return {
            "path": str(self.path) if self.path is not None else None,
            "persistent": self.persistent,
            "size_bytes": size,
            "vectors": [
                {"backend": b, "model": m, "dim": d, "count": c} for b, m, d, c in vec_rows
            ],
            "total_vectors": sum(row[3] for row in vec_rows),
            "json_entries": sum(row[1] for row in kv_rows),
            "json_namespaces": {ns: c for ns, c in kv_rows},
            "hits": self.hits,
            "misses": self.misses,
            "warnings": list(self.warnings),
        }

    def clear(self) -> int:
        """Remove every vector and JSON value; returns the number of rows removed."""

        def op(conn: sqlite3.Connection) -> int:
            with self._transaction(conn):
                removed = conn.execute("DELETE FROM vectors").rowcount
                removed += conn.execute("DELETE FROM kv").rowcount
            return max(removed, 0)

        removed = self._run(op, 0, writing=True)
        if self.persistent:
            with self._lock:
                try:  # give the space back; harmless to skip when another process is busy
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    self._conn.execute("VACUUM")
                except sqlite3.Error:
                    pass
        return removed
