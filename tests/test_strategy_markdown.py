"""markdown: two stages, fences whole, header paths, overlap, enrichment, provenance."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.strategies import StrategyChunk, get_strategy, params_key
from chunkscope.engine.chunk.strategies.markdown import enrichment_header, scan
from chunkscope.engine.model import Turn
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main

COUNTER = get_counter()
WORDS = ["alpha", "beta", "gamma", "delta", "fence", "token", "chunk", "été", "naïve😀🎉", "中文字"]
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[int, str]]]:
    """A markdown document and, per heading, (offset, expected header path)."""
    parts: list[str] = []
    expected: list[tuple[int, str]] = []
    stack: list[str] = []
    pos = 0
    for i in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["heading", "para", "para", "code", "table", "list"]))
        if kind == "heading":
            level = draw(st.integers(1, 4))
            title = f"H{i} " + draw(st.sampled_from(WORDS))
            del stack[level - 1 :]
            stack.extend([""] * (level - 1 - len(stack)))
            stack.append(title)
            block = "#" * level + " " + title
            expected.append((pos, " > ".join(h for h in stack if h)))
        elif kind == "para":
            n = draw(st.integers(1, 250))
            words = draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n))
            sentences = " ".join(w + ("." if j % 9 == 8 else "") for j, w in enumerate(words))
            block = sentences
        elif kind == "code":
            n = draw(st.integers(1, 120))
            lines = [f"    x{j} = {j} * {j}  # {WORDS[j % len(WORDS)]}" for j in range(n)]
            block = "```python\n" + "\n".join(lines) + "\n```"
        elif kind == "table":
            rows = draw(st.integers(1, 12))
            block = "| a | b |\n|---|---|\n" + "\n".join(
                f"| {j} | {WORDS[j % 10]} |" for j in range(rows)
            )
        else:
            items = draw(st.integers(1, 10))
            block = "\n".join(f"- item {j} " + " ".join(WORDS[: j % 10 + 1]) for j in range(items))
        parts.append(block)
        pos += len(block) + 2
    return "\n\n".join(parts) + "\n", expected


def _fence_spans(text: str) -> list[tuple[int, int]]:
    return scan(text).fences


@SETTINGS
@given(doc=documents(), size=st.integers(40, 300), overlap=st.integers(0, 30))
def test_chunks_cover_in_order_within_limits_fences_whole(
    doc: tuple[str, list[tuple[int, str]]], size: int, overlap: int
) -> None:
    text, expected = doc
    overlap = min(overlap, size - 1)
    res = get_strategy("markdown", {"max_tokens": size, "overlap": overlap}).split_text(
        text, COUNTER
    )
    chunks = res.chunks
    covered = [False] * len(text)
    prev_start = -1
    for i, sc in enumerate(chunks):
        m = sc.meta
        a, b = m["start_char"], m["end_char"]
        content = text[a:b]
        assert sc.chunk.turns[0].text == content  # the original content, untouched
        assert a >= prev_start  # in document order
        prev_start = a
        for k in range(a, b):
            covered[k] = True
        # within the limit, or a fenced block kept whole, or (flagged) over by the
        # tokens its edges take re-encoded as shown, beside a character of several
        # tokens (an emoji): its count is that of the text as shown (walk 61, F14)
        assert m["token_count"] == COUNTER.count(sc.chunk.text)
        if m["exceeds_limit"]:
            fence = any(s <= a and b <= e for s, e in _fence_spans(text))
            assert fence or m["token_count"] <= size + 4
            if fence:
                assert content.startswith("```") and content.rstrip().endswith("```")
        else:
            assert m["token_count"] <= size
            # re-encoded alone, each edge may merge differently: up to two tokens each
            # when it falls beside a character of several tokens (an emoji)
            assert COUNTER.count(content) <= size + 4
        assert content.count("```") % 2 == 0, content
        assert not m["code_integrity_warning"]
        assert m["overlap_tokens"] <= overlap
        assert m["chunk_index"] == i and m["sibling_count"] == len(chunks)
        assert m["content_hash"] and len(m["content_hash"]) == 16
    assert all(c or text[k].isspace() for k, c in enumerate(covered))
    assert res.info["integrity_score"] == 1.0
    # every heading's chunk carries its header path
    for offset, path in expected:
        owner = [sc for sc in chunks if sc.meta["start_char"] == offset]
        assert owner and owner[0].meta["header_path"] == path


@SETTINGS
@given(n=st.integers(200, 2000), size=st.integers(50, 200), overlap=st.integers(1, 40))
def test_prose_overlap_is_exact(n: int, size: int, overlap: int) -> None:
    overlap = min(overlap, size // 2)
    text = " ".join(WORDS[i % 7] + ("." if i % 13 == 12 else "") for i in range(n))
    res = get_strategy("markdown", {"max_tokens": size, "overlap": overlap}).split_text(
        text, COUNTER
    )
    chunks = res.chunks
    for prev, sc in itertools.pairwise(chunks):
        m = sc.meta
        # the overlap asked, less a sentence's full stop where it would open on one (a
        # word starts after whitespace, walk 61, F9): none when that was all of it
        assert overlap - 1 <= m["overlap_tokens"] <= overlap
        if m["overlap_tokens"]:
            assert m["start_char"] < prev.meta["end_char"]  # overlapping
            # the overlap is the previous chunk's tail
            tail = text[m["start_char"] : m["start_char"] + m["overlap_chars"]]
            assert prev.meta["end_char"] - m["start_char"] >= len(tail.rstrip())


def test_oversize_fence_is_whole_and_flagged() -> None:
    code = "```python\n" + "\n".join(f"value_{i} = compute({i}, {i} + 1)" for i in range(200))
    text = "# Title\n\nintro paragraph.\n\n" + code + "\n```\n\nafter the code.\n"
    res = get_strategy("markdown").split_text(text, COUNTER)
    flagged = [sc for sc in res.chunks if sc.meta["exceeds_limit"]]
    assert len(flagged) == 1
    m = flagged[0].meta
    assert text[m["start_char"] : m["end_char"]] == code + "\n```"
    assert m["chunk_type"] == "code_block" and m["language"] == "python"
    assert res.info["integrity_score"] == 1.0 and res.info["oversize_chunks"] == 1


def test_nested_header_paths_level_depth() -> None:
    text = (
        "# Performance Report\n\nintro\n\n## Database\n\ndb\n\n### Query Times\n\nqt\n\n"
        "#### Slow Queries\n\nslow\n\n## API\n\napi\n"
    )
    res = get_strategy("markdown").split_text(text, COUNTER)
    got = [(sc.meta["header_path"], sc.meta["level"], sc.meta["depth"]) for sc in res.chunks]
    assert got == [
        ("Performance Report", 1, 0),
        ("Performance Report > Database", 2, 1),
        ("Performance Report > Database > Query Times", 3, 2),
        ("Performance Report > Database > Query Times > Slow Queries", 4, 3),
        ("Performance Report > API", 2, 1),
    ]
    assert [sc.reason for sc in res.chunks] == ["section"] * 4 + [None]
    assert res.info["title"] == "Performance Report"


def test_headings_inside_fences_are_not_sections() -> None:
    text = "# A\n\n```md\n# not a heading\n```\n\n## B\n\ntext\n"
    res = get_strategy("markdown").split_text(text, COUNTER)
    assert [sc.meta["header_path"] for sc in res.chunks] == ["A", "A > B"]


def test_tables_and_lists_stay_whole_when_they_fit() -> None:
    table = "| k | v |\n|---|---|\n" + "\n".join(f"| key{i} | value {i} |" for i in range(20))
    items = "\n".join(f"- item {i} with a few words" for i in range(15))
    prose = " ".join(["words in a paragraph."] * 60)
    text = f"# T\n\n{prose}\n\n{table}\n\n{prose}\n\n{items}\n\n{prose}\n"
    res = get_strategy("markdown", {"max_tokens": 200, "overlap": 0}).split_text(text, COUNTER)
    assert any(table in sc.chunk.turns[0].text for sc in res.chunks)
    assert any(items in sc.chunk.turns[0].text for sc in res.chunks)
    assert any(sc.meta["contains_table"] for sc in res.chunks)


def test_enrichment_keeps_original_content() -> None:
    text = "# Guide\n\n## Install\n\npip install it\n"
    res = get_strategy("markdown", {"enrich": True, "memory_type": "report"}).split_text(
        text, COUNTER
    )
    last = res.chunks[-1]
    assert last.meta["original_content"] == "## Install\n\npip install it"
    assert last.meta["is_contextually_enriched"] is True
    assert last.chunk.turns[0].text == (
        "Document: Guide\nSection: Guide > Install\n"
        "Position: Chunk 2 of 2 (end, fine granularity)\nType: report\n\n"
        "## Install\n\npip install it"
    )
    assert enrichment_header("D", "", 0, 4, "fine", "x").startswith(
        "Document: D\nSection: Main Content\nPosition: Chunk 1 of 4 (beginning"
    )


def test_pipeline_markdown_file_keeps_lines(tmp_path: Path) -> None:
    body = "# Top\n\nintro text\n\n## Sub\n\n" + "\n\n".join(
        f"paragraph {i} " + "word " * 40 for i in range(30)
    )
    path = tmp_path / "doc.md"
    path.write_text(body, encoding="utf-8")
    params = PipelineParams(
        strategy="markdown", strategy_params=params_key({"max_tokens": 120, "overlap": 10})
    )
    pipe = Pipeline(path, params)
    result = pipe.strategy_result()
    chunks = pipe.compacted()
    assert len(chunks) == len(result.chunks) > 3
    lines = body.split("\n")
    for sc in result.chunks:
        first = sc.meta["start_line"]
        text = sc.chunk.turns[0].text
        assert text[:5] in lines[first - 1]  # the chunk starts on its start line
        assert text.split("\n")[-1] in lines[sc.meta["end_line"] - 1]
        assert sc.chunk.turns[0].source_line == first
    assert pipe.runs["strategy"] == 1
    pipe.compacted()
    assert pipe.runs["strategy"] == 1  # memoised


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab\n\r é", max_size=60))
def test_line_starts_are_where_each_line_begins(text: str) -> None:
    from chunkscope.engine.chunk.strategies.markdown import _line_starts

    starts = _line_starts(text)
    assert starts == [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]


ROLES = ["You", "Bot", "Bot thinking", "Tool"]


@st.composite
def sessions(draw: st.DrawFn) -> list[Turn]:
    """Turns of a session: roles, times a minute apart, texts of one or more paragraphs."""
    start = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    turns = []
    for i in range(draw(st.integers(1, 12))):
        paras = draw(
            st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60), max_size=4)
        )
        text = "\n\n".join(" ".join(p) for p in paras) or draw(st.sampled_from(WORDS))
        role = draw(st.sampled_from(ROLES))
        turns.append(Turn(start + timedelta(minutes=i), role, text, i + 1, i))
    return turns


@SETTINGS
@given(
    turns=sessions(), size=st.integers(20, 200), overlap=st.integers(0, 10), enrich=st.booleans()
)
def test_session_chunks_hold_each_turns_part_under_its_own_role(
    turns: list[Turn], size: int, overlap: int, enrich: bool
) -> None:
    """Over a session (the turns' texts as one document, a blank line between turns), a
    chunk holds the part of every turn its text overlaps, each under that turn's own
    role, time and line, in order: its turn count, roles and time range are the turns'
    (walk 9 #3: every chunk said one turn, under the first turn's role and time)."""
    params = {"max_tokens": size, "overlap": overlap, "enrich": enrich}
    res = get_strategy("markdown", params).split(turns, COUNTER)
    anchors = list(itertools.accumulate((len(t.text) + 2 for t in turns[:-1]), initial=0))
    covered: set[int] = set()
    for sc in res.chunks:
        start, end = sc.meta["start_char"], sc.meta["end_char"]
        expected = []
        for t, a in zip(turns, anchors, strict=True):
            lo, hi = max(start - a, 0), min(end - a, len(t.text))
            if hi > lo and t.text[lo:hi].strip():
                expected.append((t.turn_index, t.role, t.timestamp, t.source_line, t.text[lo:hi]))
        parts = sc.chunk.turns
        got = [(p.turn_index, p.role, p.timestamp, p.source_line, p.text) for p in parts]
        if enrich and got:
            header = enrichment_header(
                sc.meta["parent_title"],
                sc.meta["header_path"],
                sc.meta["chunk_index"],
                len(res.chunks),
                sc.meta["granularity_level"],
                "knowledge_base",
            )
            assert got[0][4].startswith(header)
            got[0] = (*got[0][:4], got[0][4][len(header) :])
        assert got == expected
        assert sc.chunk.start == expected[0][2] and sc.chunk.end == expected[-1][2]
        covered.update(e[0] for e in expected)
    assert covered == {t.turn_index for t in turns}  # every turn in some chunk


def test_cli_markdown_over_a_session_counts_its_turns(capsys: pytest.CaptureFixture[str]) -> None:
    """`chunk --strategy markdown` over a real session: the first chunk spans the user's
    turn, the agent's thinking and a tool call, and says so (walk 9 #3)."""
    assert main(["chunk", "sample_logs/cache_refactor.jsonl", "--strategy", "markdown"]) == 0
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if line.startswith("--- Chunk 0 "))
    assert "(1 turn," not in head and "09:13:23 - 09:13:23" not in head
    body = out.split(head, 1)[1].split("--- Chunk 1 ", 1)[0]
    assert "Bot thinking: The user wants the embedding cache" in body
    assert (
        main(
            [
                "chunk",
                "sample_logs/cache_refactor.jsonl",
                "--strategy",
                "markdown",
                "--format",
                "json",
            ]
        )
        == 0
    )
    chunks = json.loads(capsys.readouterr().out)["chunks"]
    assert sum(c["turn_count"] > 1 for c in chunks) > len(chunks) // 2


@pytest.mark.parametrize("cap", [60, 200, 450])
@pytest.mark.parametrize(
    "name", ["README.md", "docs/retrieval.md", "sample_logs/shell_cookbook.md"]
)
def test_a_chunk_over_max_tokens_as_shown_is_flagged(
    capsys: pytest.CaptureFixture[str], name: str, cap: int
) -> None:
    """Walk 11, 12: `--max-tokens 450` gave a chunk of 451 tokens, not flagged: the
    strategy counted the text, the JSON the chunk as shown (``Doc: `` and the text). The
    label's tokens come out of the cap, so a chunk's `tokens` is over the cap only where
    `exceeds_limit` says so (a unit it cannot split)."""
    root = Path(__file__).resolve().parents[1]
    argv = ["chunk", str(root / name), "--strategy", "markdown", "--max-tokens", str(cap)]
    assert main([*argv, "--overlap", "10", "--format", "json"]) == 0
    chunks = json.loads(capsys.readouterr().out)["chunks"]
    assert chunks
    for c in chunks:
        assert c["tokens"] <= cap or c["meta"]["exceeds_limit"], (c["tokens"], c["text"][:80])
    assert sum(c["tokens"] <= cap for c in chunks) > len(chunks) / 2


@st.composite
def busy_sessions(draw: st.DrawFn) -> list[Turn]:
    """Sessions of many turns, short ones among them (a tool call, a one-line result):
    a chunk holds several turns, each printed under its own ``Role: `` label."""
    start = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    short = st.sampled_from(["status()", "ok", "Done.", "self._evictions += 1", "中文字 ok"])
    long = st.lists(st.sampled_from(WORDS), min_size=1, max_size=80).map(" ".join)
    turns = []
    for i in range(draw(st.integers(2, 40))):
        text = draw(st.one_of(short, short, long))
        turns.append(
            Turn(start + timedelta(minutes=i), draw(st.sampled_from(ROLES)), text, i + 1, i)
        )
    return turns


@SETTINGS
@given(turns=busy_sessions(), size=st.integers(20, 300), overlap=st.integers(0, 15))
def test_session_chunks_hold_the_cap_as_printed_or_are_flagged(
    turns: list[Turn], size: int, overlap: int
) -> None:
    """Walk 13, 3: over a session a chunk is printed as ``Role: part`` lines joined by
    newlines (`Chunk.text`), and that is what `tokens` counts; the strategy counted the
    turns' texts alone, so chunks of many turns went over the cap unflagged. A chunk is
    within the cap as `TokenCounter` counts its text, or it says it is not, and its
    ``token_count`` is that count."""
    res = get_strategy("markdown", {"max_tokens": size, "overlap": overlap}).split(turns, COUNTER)
    for sc in res.chunks:
        n = COUNTER.count(sc.chunk.text)
        assert sc.meta["exceeds_limit"] == (n > size), (n, size, sc.chunk.text[:80])
        assert sc.meta["token_count"] == n
    assert res.info["oversize_chunks"] == sum(sc.meta["exceeds_limit"] for sc in res.chunks)
    _assert_no_start_mid_word("\n\n".join(t.text for t in turns), res.chunks)


def _assert_no_start_mid_word(text: str, chunks: list[StrategyChunk]) -> None:
    """No chunk starts inside a word (walk 13, 3: ``Tool: ictions += 1``, the overlap
    started at a token of "evictions"), unless the cut before it was at a token
    position (a word longer than the cap)."""
    for prev, sc in itertools.pairwise(chunks):
        a = sc.meta["start_char"]
        if prev.reason != "token":
            assert not (_is_word(text[a - 1]) and _is_word(text[a])), (
                text[a - 20 : a],
                text[a : a + 20],
            )


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@SETTINGS
@given(
    words=st.lists(
        st.sampled_from(["self._evictions", "+=", "1", "evictions_total", "中文字"]),
        min_size=50,
        max_size=400,
    ),
    size=st.integers(20, 120),
    overlap=st.integers(1, 19),
)
def test_an_overlap_starts_at_a_word(words: list[str], size: int, overlap: int) -> None:
    """The overlap is the previous chunk's last tokens, moved on to the next word start
    (less overlap) when its first token is inside a word."""
    text = " ".join(words)
    res = get_strategy("markdown", {"max_tokens": size, "overlap": overlap}).split_text(
        text, COUNTER
    )
    _assert_no_start_mid_word(text, res.chunks)
    assert all(sc.meta["token_count"] <= size for sc in res.chunks)


def test_pipeline_prepare_starts_the_markdown_pass_the_strategy_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.chunk.strategies import _tokpos

    monkeypatch.setattr(_tokpos, "_EARLY", [])
    body = "# Top\r\n\r\nintro\r\n\r\n## Sub\r\n\r\n" + "word " * 300 + "\r\n"
    path = tmp_path / "doc.md"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())  # a BOM and CRLF line ends
    params = PipelineParams(
        strategy="markdown", strategy_params=params_key({"max_tokens": 60, "overlap": 10})
    )
    plain = Pipeline(path, params).strategy_result()
    pipe = Pipeline(path, params)
    pipe.prepare()
    ((_, text, _),) = _tokpos._EARLY
    assert text == body.replace("\r\n", "\n")  # what the strategy reads

    def again(text: str, counter: object) -> None:
        pytest.fail("the strategy encoded the document again")

    monkeypatch.setattr(_tokpos, "_token_starts_later", again)
    result = pipe.strategy_result()
    assert _tokpos._EARLY == []
    assert [(c.text, c.meta) for c in result.chunks] == [(c.text, c.meta) for c in plain.chunks]


@pytest.mark.parametrize(
    ("name", "strategy"),
    [("cache_refactor.jsonl", "markdown"), ("shell_cookbook.md", "blank-line")],
)
def test_pipeline_prepare_starts_nothing_for_a_log_or_another_strategy(
    name: str, strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.engine.chunk.strategies import _tokpos

    monkeypatch.setattr(_tokpos, "_EARLY", [])
    path = Path(__file__).resolve().parent.parent / "sample_logs" / name
    Pipeline(path, PipelineParams(strategy=strategy)).prepare()
    assert _tokpos._EARLY == []


def test_pipeline_prepare_leaves_a_bad_file_to_the_parse(tmp_path: Path) -> None:
    from chunkscope.engine.errors import SourceError

    binary = tmp_path / "x.md"
    binary.write_bytes(b"\x00\x01\x02 not text")
    for path in (binary, tmp_path / "missing.md"):
        pipe = Pipeline(path, PipelineParams(strategy="markdown"))
        pipe.prepare()  # says nothing
        with pytest.raises(SourceError):
            pipe.source()


def test_a_fence_a_message_leaves_open_ends_with_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk 15, 3: a reply cut off inside a code block (aider's `<<<<<<< SE`) made every
    later message of the session one over-cap code chunk; the fence ends where its
    message does, and the later messages are prose under the cap."""
    later = "Never mind, explain what the cache does in plain words instead. " * 6
    rows = [
        {"role": "user", "content": "Write a script please."},
        {"role": "assistant", "content": "Here it is:\n\n```python\nimport os\nprint('partial'"},
        {"role": "user", "content": later},
        {"role": "assistant", "content": "The cache keeps embeddings on disk. " * 12},
    ]
    log = tmp_path / "fence.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = ["chunk", str(log), "--strategy", "markdown", "--max-tokens", "60"]
    assert main([*argv, "--format", "json"]) == 0
    chunks = json.loads(capsys.readouterr().out)["chunks"]
    assert all(not c["meta"]["exceeds_limit"] and c["tokens"] <= 60 for c in chunks), [
        c["tokens"] for c in chunks
    ]
    later_kinds = {c["meta"]["chunk_type"] for c in chunks if "Never mind" in c["text"]}
    assert "text" in later_kinds, later_kinds  # the later message is prose again
    # documents keep the scan they had: an unclosed fence runs to the end
    text = "# A\n\n```python\nx = 1\n\n# B\n\ntext\n"
    at = text.index("```")
    assert scan(text).fences == [(at, len(text))]
    assert scan(text, [0, at + 20]).fences == [(at, at + 20)]
