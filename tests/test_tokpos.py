"""Token positions encoded in parts on threads are those of one pass over the text."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.strategies import _tokpos
from chunkscope.engine.chunk.strategies._tokpos import (
    SEGMENTABLE,
    encode_ids,
    piece_cuts,
    token_starts_array,
)
from chunkscope.engine.tokens import get_counter

COUNTER = get_counter("cl100k_base")
ENC = COUNTER._encoding
pytestmark = pytest.mark.skipif(ENC is None, reason="no exact cl100k encoding offline")

# Characters that meet at a cut in every way the pre-tokenizer cares about:
# line breaks (LF, CR), blanks (ASCII and not), letters of several scripts,
# digits, apostrophe contractions, punctuation (slash, hash, dot), combining marks.
ALPHABET = list("\n\n\n\r #a#Zs'td0912 \t./-_`~|éß\u00a0\u2003\u0301中Жا😀\x1c\x85\u2028\x0b!*>")


def _whole(text: str) -> list[int]:
    return list(ENC.encode_to_numpy(text, disallowed_special=()))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=200))
def test_every_cut_keeps_the_whole_texts_tokens(text: str) -> None:
    """Cut at every line start the rule allows, each part encoded alone gives the
    ids of the whole text: no piece crosses a cut, and no part's last piece changes."""
    assert ENC is not None and ENC.name in SEGMENTABLE
    cuts = [0, *(m.end() for m in _tokpos._CUT.finditer(text)), len(text)]
    parts: list[int] = []
    for a, b in itertools.pairwise(cuts):
        parts += list(ENC.encode_to_numpy(text[a:b], disallowed_special=()))
    assert parts == _whole(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=400), st.integers(1, 6))
def test_piece_cuts_are_ordered_line_starts(text: str, parts: int) -> None:
    cuts = piece_cuts(text, parts)
    assert cuts[0] == 0 and cuts[-1] == len(text)
    assert len(cuts) <= parts + 1
    assert all(a < b for a, b in itertools.pairwise(cuts)) or text == ""
    for c in cuts[1:-1]:
        assert text[c - 1] == "\n" and not text[c].isspace()


def _markdown(n: int) -> str:
    blocks = []
    for i in range(n):
        blocks.append(
            f"## Section {i}\n\nSome text, it's here: `code` and ü{i}.\n"
            f"```python\nx = {i}  # not a heading\n```\n\n"
            f"{i} items\r\n- a list\n\u00a0 indented\n"
        )
    return "".join(blocks)


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_encode_ids_in_parts_matches_one_pass(
    monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    monkeypatch.setattr(_tokpos, "PART_CHARS", 64)
    text = _markdown(40)
    cuts = piece_cuts(text, threads)
    assert len(cuts) == threads + 1  # really in parts
    got = encode_ids(ENC, text, threads)
    assert got.tolist() == _whole(text)


def test_text_without_a_cut_is_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tokpos, "PART_CHARS", 8)
    text = "  ".join(["word"] * 500)  # no line break at all
    assert piece_cuts(text, 4) == [0, len(text)]
    assert encode_ids(ENC, text, 4).tolist() == _whole(text)


def test_token_starts_do_not_depend_on_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _markdown(60)
    one = token_starts_array(text, COUNTER)
    monkeypatch.setattr(_tokpos, "PART_CHARS", 100)
    monkeypatch.setattr(_tokpos, "default_threads", lambda: 4)
    many = token_starts_array(text, COUNTER)
    assert np.array_equal(one, many)
    # every start is a character offset, in order, the first at 0
    assert many[0] == 0 and np.all(np.diff(many) >= 0) and many[-1] < len(text)


LINES = st.lists(
    st.tuples(
        st.sampled_from([*list("#aZ0 -`>\t\r.é"), ""]), st.text(alphabet=ALPHABET, max_size=12)
    ),
    max_size=30,
).map(lambda lines: "\n".join(first + rest for first, rest in lines))


@settings(max_examples=300, deadline=None)
@given(
    LINES,
    st.lists(
        st.tuples(
            st.sampled_from(["", "Doc: ", "You: # h\n", "Bot: x\n"]),
            st.integers(0, 300),
            st.integers(0, 300),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_counts_alone_are_each_texts_own_count(
    text: str, spans: list[tuple[str, int, int]]
) -> None:
    """``prefix + text[a:b]`` counted from the document's tokens and two short encodes
    is what encoding it alone gives, wherever the span starts and ends."""
    index = _tokpos.TokenIndex(text, COUNTER)
    items = [(p, min(a, b, len(text)), min(max(a, b), len(text))) for p, a, b in spans]
    got = index.counts_alone(items)
    assert got == [len(ENC.encode_ordinary(p + text[a:b])) for p, a, b in items]


def test_markdown_result_knows_each_chunks_own_count(tmp_path: Path) -> None:
    """The markdown strategy's result tells each chunk text's own token count (what
    encoding it alone gives); the pipeline hands them to its counter, so counting its
    chunks encodes nothing again; a bare split leaves the counter alone."""
    from chunkscope.engine.chunk.strategies import get_strategy, params_key
    from chunkscope.engine.pipeline import Pipeline, PipelineParams
    from chunkscope.engine.tokens import TokenCounter

    text = _markdown(80) + "".join(f"para {i} (with a tail).\n" * 30 for i in range(20))
    counter = TokenCounter("cl100k_base")
    strategy = get_strategy("markdown", {"max_tokens": 60, "overlap": 10})
    result = strategy.split_text(text, counter)  # type: ignore[attr-defined]
    texts = [sc.chunk.text for sc in result.chunks]
    assert len(texts) > 20 and not any(t in counter._cache for t in texts)
    assert result.known_counts is not None
    known = dict(result.known_counts())
    fresh = TokenCounter("cl100k_base")
    assert set(known) == set(texts)
    assert [known[t] for t in texts] == [len(fresh.encode(t)) for t in texts]

    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    params = PipelineParams(
        strategy="markdown", strategy_params=params_key({"max_tokens": 60, "overlap": 10})
    )
    pipe = Pipeline(doc, params)
    chunks = pipe.compacted()
    assert pipe.strategy_result().known_counts is None  # handed over, index let go
    cache = pipe.counter._cache
    assert all(c.text in cache for c in chunks)
    assert pipe.token_counts(chunks) == [len(fresh.encode(c.text)) for c in chunks]


def test_a_pass_started_early_is_taken_by_the_call_for_the_same_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_tokpos, "PART_CHARS", 64)  # in parts, on other threads
    monkeypatch.setattr(_tokpos, "_EARLY", [])
    text = "# Title\n\n" + "\n".join(f"line {i} of the document, é 中" for i in range(60))
    _tokpos.start_early(text, COUNTER)
    pending = _tokpos._EARLY[0][2]
    assert _tokpos.token_starts_later("other text", COUNTER) is not pending  # kept
    taken = _tokpos.token_starts_later(text[:10] + text[10:], COUNTER)  # equal, not the same
    assert taken is pending and not _tokpos._EARLY
    assert taken().tolist() == token_starts_array(text, COUNTER).tolist()
    assert _tokpos.token_starts_later(text, COUNTER) is not pending  # taken once


def test_no_pass_is_started_early_without_an_exact_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_tokpos, "_EARLY", [])

    class Approximate:
        name = "approx"
        exact = False

        def count(self, text: str) -> int:
            return len(text.split())

        def count_many(self, texts: list[str]) -> list[int]:
            return [self.count(t) for t in texts]

    _tokpos.start_early("some text\n", Approximate())  # type: ignore[arg-type]
    assert _tokpos._EARLY == []
