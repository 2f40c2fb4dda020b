"""The SQLite embedding cache: round trips, counters, damage, fallbacks, concurrency."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from chunkscope.engine.embed import EmbeddingCache
from chunkscope.engine.embed.cache import (
    CACHE_FILENAME,
    ENV_CACHE_DIR,
    default_cache_path,
    text_key,
)

ROOT = Path(__file__).resolve().parents[1]


def vectors(n: int, dim: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def quiet_cache(path: Path | str) -> tuple[EmbeddingCache, list[str]]:
    seen: list[str] = []
    return EmbeddingCache(path, warn=seen.append), seen


def test_round_trip_by_position_and_key(tmp_path: Path) -> None:
    cache, seen = quiet_cache(tmp_path / CACHE_FILENAME)
    texts = ["alpha", "beta", "gamma"]
    vecs = vectors(3, 4)
    assert cache.put_many("openai", "m", 4, texts, vecs) == 3
    got = cache.get_many("openai", "m", 4, ["gamma", "nope", "alpha", "alpha"])
    assert sorted(got) == [0, 2, 3]
    np.testing.assert_array_equal(got[0], vecs[2])
    np.testing.assert_array_equal(got[2], vecs[0])
    np.testing.assert_array_equal(got[3], vecs[0])
    assert got[0].dtype == np.float32
    # Another backend, model or width is another key.
    assert cache.get_many("other", "m", 4, texts) == {}
    assert cache.get_many("openai", "m2", 4, texts) == {}
    assert cache.get_many("openai", "m", 8, texts) == {}
    assert seen == [] and cache.persistent
    cache.close()
    # And it is on disk.
    again, _ = quiet_cache(tmp_path / CACHE_FILENAME)
    np.testing.assert_array_equal(again.get_many("openai", "m", 4, ["beta"])[0], vecs[1])


def test_hit_and_miss_counts(tmp_path: Path) -> None:
    cache, _ = quiet_cache(tmp_path / CACHE_FILENAME)
    cache.put_many("b", "m", 2, ["x", "y"], vectors(2, 2))
    cache.get_many("b", "m", 2, ["x", "y", "z"])
    cache.get_many("b", "m", 2, ["z", "x"])
    assert (cache.hits, cache.misses) == (3, 2)


def test_put_many_checks_shape(tmp_path: Path) -> None:
    cache, _ = quiet_cache(tmp_path / CACHE_FILENAME)
    with pytest.raises(ValueError):
        cache.put_many("b", "m", 3, ["x", "y"], vectors(2, 4))


def test_text_key_is_sha256_hex() -> None:
    import hashlib

    assert text_key("héllo") == hashlib.sha256("héllo".encode()).hexdigest()


def test_json_values(tmp_path: Path) -> None:
    cache, _ = quiet_cache(tmp_path / CACHE_FILENAME)
    assert cache.get_json("summaries", "k") is None
    cache.put_json("summaries", "k", {"text": "résumé", "n": [1, 2]})
    assert cache.get_json("summaries", "k") == {"text": "résumé", "n": [1, 2]}
    assert cache.get_json("other", "k") is None
    cache.put_json_many("summaries", {"a": 1, "b": None, "c": "x"})
    assert cache.get_json_many("summaries", ["a", "b", "c", "zz"]) == {"a": 1, "b": None, "c": "x"}
    cache.put_json("summaries", "a", 2)  # replaces
    assert cache.get_json("summaries", "a") == 2


def test_info_and_clear(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILENAME
    cache, _ = quiet_cache(path)
    cache.put_many("openai", "m1", 4, [f"t{i}" for i in range(5)], vectors(5, 4))
    cache.put_many("openai", "m2", 2, ["a", "b"], vectors(2, 2))
    cache.put_json_many("summaries", {"x": 1, "y": 2})
    info = cache.info()
    assert info["path"] == str(path)
    assert info["persistent"] is True
    assert info["size_bytes"] > 0
    counts = {(v["backend"], v["model"]): v["count"] for v in info["vectors"]}
    assert counts == {("openai", "m1"): 5, ("openai", "m2"): 2}
    assert info["total_vectors"] == 7
    assert info["json_entries"] == 2
    assert cache.clear() == 9
    info = cache.info()
    assert info["total_vectors"] == 0 and info["json_entries"] == 0
    assert cache.get_many("openai", "m1", 4, ["t0"]) == {}
    assert cache.clear() == 0


def test_default_path_follows_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_CACHE_DIR, str(tmp_path / "here"))
    assert default_cache_path() == tmp_path / "here" / CACHE_FILENAME
    cache = EmbeddingCache(warn=lambda m: None)
    assert cache.path == tmp_path / "here" / CACHE_FILENAME
    assert cache.persistent and cache.path.exists()
    monkeypatch.delenv(ENV_CACHE_DIR)
    assert default_cache_path().name == CACHE_FILENAME
    assert "chunkscope" in str(default_cache_path())


def test_not_a_database_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILENAME
    path.write_bytes(b"this is not a database, just some text\n" * 200)
    cache, seen = quiet_cache(path)
    assert cache.persistent
    assert len(seen) == 1 and "moved it to" in seen[0]
    assert cache.warnings == seen
    aside = list(tmp_path.glob(f"{CACHE_FILENAME}.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not a database")
    cache.put_many("b", "m", 2, ["x"], vectors(1, 2))
    assert list(cache.get_many("b", "m", 2, ["x"])) == [0]


def _wreck(path: Path, keep: int) -> None:
    """Overwrite everything after the first `keep` bytes of a checkpointed database."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    assert len(data) > keep + 8192
    data[keep:] = b"\xa5" * (len(data) - keep)
    path.write_bytes(bytes(data))


def test_damaged_table_found_on_open_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILENAME
    cache, _ = quiet_cache(path)
    cache.put_many("b", "m", 64, [f"t{i}" for i in range(300)], vectors(300, 64))
    cache.close()
    _wreck(path, keep=4096)  # the schema page survives, the tables do not
    cache, seen = quiet_cache(path)
    assert any("damaged" in w for w in seen)
    assert list(tmp_path.glob(f"{CACHE_FILENAME}.corrupt-*"))
    assert cache.get_many("b", "m", 64, ["t1", "t2"]) == {}
    cache.put_many("b", "m", 64, ["t1"], vectors(1, 64))
    assert list(cache.get_many("b", "m", 64, ["t1"])) == [0]


def test_damage_found_while_reading_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILENAME
    cache, _ = quiet_cache(path)
    texts = [f"t{i}" for i in range(300)]
    cache.put_many("b", "m", 64, texts, vectors(300, 64))
    cache.close()
    _wreck(path, keep=path.stat().st_size // 2)  # opening works; a full lookup does not
    cache, seen = quiet_cache(path)
    assert seen == [] and cache.persistent
    got = cache.get_many("b", "m", 64, texts)
    assert got == {}
    assert any("damaged" in w for w in seen)
    assert list(tmp_path.glob(f"{CACHE_FILENAME}.corrupt-*"))
    assert cache.persistent
    cache.put_many("b", "m", 64, ["t1"], vectors(1, 64))
    assert list(cache.get_many("b", "m", 64, ["t1"])) == [0]


def _unwritable_dir(tmp_path: Path) -> Path:
    """A cache path whose directory cannot be created or written.

    A read-only directory where chmod is honoured; as root (where it is not), a
    directory under a regular file, which no one can create.
    """
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if not os.access(ro, os.W_OK):
        return ro / "sub" / CACHE_FILENAME
    ro.chmod(stat.S_IRWXU)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    return blocker / "sub" / CACHE_FILENAME


def test_unwritable_directory_falls_back_to_memory(tmp_path: Path) -> None:
    path = _unwritable_dir(tmp_path)
    try:
        cache, seen = quiet_cache(path)
        assert cache.persistent is False
        assert len(seen) == 1 and "in-memory" in seen[0]
        assert cache.warnings == seen
        cache.put_many("b", "m", 2, ["x"], vectors(1, 2))
        assert list(cache.get_many("b", "m", 2, ["x"])) == [0]
        cache.put_json("ns", "k", [1])
        assert cache.get_json("ns", "k") == [1]
        assert cache.info()["persistent"] is False
        assert not path.exists()
    finally:
        for p in tmp_path.iterdir():
            if p.is_dir():
                p.chmod(stat.S_IRWXU)


def test_default_warning_goes_through_warnings_module(tmp_path: Path) -> None:
    path = _unwritable_dir(tmp_path)
    try:
        with pytest.warns(RuntimeWarning, match="in-memory"):
            cache = EmbeddingCache(path)
        assert not cache.persistent
    finally:
        for p in tmp_path.iterdir():
            if p.is_dir():
                p.chmod(stat.S_IRWXU)


def test_explicit_memory_cache_is_silent() -> None:
    cache, seen = quiet_cache(":memory:")
    assert cache.persistent is False and seen == []
    cache.put_many("b", "m", 2, ["x"], vectors(1, 2))
    assert cache.info()["total_vectors"] == 1


def test_threads_share_one_cache(tmp_path: Path) -> None:
    cache, seen = quiet_cache(tmp_path / CACHE_FILENAME)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for j in range(20):
                texts = [f"{t}-{j}-{k}" for k in range(5)]
                cache.put_many("b", "m", 3, texts, vectors(5, 3, seed=t * 100 + j))
                assert len(cache.get_many("b", "m", 3, texts)) == 5
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=30)
    assert errors == [] and seen == []
    assert cache.info()["total_vectors"] == 4 * 20 * 5


_WRITER = """
import sys
import numpy as np
from chunkscope.engine.embed import EmbeddingCache
path, who = sys.argv[1], sys.argv[2]
seen = []
cache = EmbeddingCache(path, warn=seen.append)
rng = np.random.default_rng(int(who))
for start in range(0, 200, 10):
    texts = [f"{who}-{i}" for i in range(start, start + 10)]
    cache.put_many("openai", "m", 16, texts, rng.standard_normal((10, 16)).astype(np.float32))
    cache.put_json("ns", f"{who}-{start}", start)
assert cache.persistent and not seen, seen
print("ok")
"""


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "shared" / CACHE_FILENAME
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), who],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for who in ("1", "2")
    ]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert out.strip() == "ok"
    cache, seen = quiet_cache(path)
    texts = [f"{who}-{i}" for who in ("1", "2") for i in range(200)]
    got = cache.get_many("openai", "m", 16, texts)
    assert len(got) == 400
    assert all(np.isfinite(v).all() and v.shape == (16,) for v in got.values())
    assert cache.info()["json_entries"] == 40
    assert seen == []
