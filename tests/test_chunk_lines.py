"""Every chunk's `lines` span exactly the file lines its text came from: the first
line of its first paragraph to the last line of its last, compacted and merged, in
every strategy that keeps file lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkscope.engine.chunk.split import chunk_turns, compact_chunks, section_spans
from chunkscope.engine.model import Chunk, Turn, chunks_from_spans
from chunkscope.engine.pipeline import Pipeline, PipelineParams
from chunkscope.engine.read.parse import load

ROOT = Path(__file__).resolve().parents[1]


def assert_exact(chunk: Chunk, file_lines: list[str]) -> None:
    """`chunk.lines` ends on the text's last line, and each of its document
    turns' text is the file's lines `source_line`..`last_line`, inside the span."""
    doc = [t for t in chunk.turns if t.source_line is not None and t.text.strip()]
    if not doc:
        return
    lines = chunk.lines
    assert lines is not None
    first, last = lines
    assert 1 <= first <= last <= len(file_lines)
    span = "\n".join(file_lines[first - 1 : last])
    for t in doc:
        assert t.last_line is not None and first <= t.source_line <= t.last_line <= last
        own = "\n".join(file_lines[t.source_line - 1 : t.last_line])
        assert own.strip() == t.text.strip(), (t, own)
        assert t.text.strip() in span
    # Beyond the text's own lines the span holds only blank lines (an empty paragraph's).
    own_first = min(t.source_line for t in doc)  # type: ignore[type-var]
    own_last = max(t.last_line for t in doc)  # type: ignore[type-var]
    assert not "".join(file_lines[first - 1 : own_first - 1]).strip()
    assert not "".join(file_lines[own_last:last]).strip()
    # It ends on the last line of the text (not the first line of its last paragraph).
    assert file_lines[own_last - 1].strip() == doc[-1].text.rstrip().split("\n")[-1].strip()


_line = st.one_of(
    st.sampled_from(["", "", "  ", "# Title", "## Part", "```", "```py", "~~~", "- item"]),
    st.text(st.sampled_from("abc xyz#`\t"), min_size=1, max_size=12),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(_line, min_size=1, max_size=40), min_chars=st.sampled_from([0, 10, 80]))
def test_markdown_chunks_span_exactly_their_lines(
    tmp_path: Path, lines: list[str], min_chars: int
) -> None:
    path = tmp_path / "doc.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = load(path)
    file_lines = path.read_text(encoding="utf-8").split("\n")
    for by_message in (False, True):
        raw = chunk_turns(source.turns, by_message=by_message)
        for chunk in [*raw, *compact_chunks(raw, min_chars)]:
            assert_exact(chunk, file_lines)
    # a document split at its headings (`chunk` without --embed, the blank-line strategy)
    alone = Pipeline(path, PipelineParams(min_chars=min_chars, merges=False)).compacted()
    for chunk in [*chunks_from_spans(raw, section_spans(raw, min_chars)), *alone]:
        assert_exact(chunk, file_lines)


@pytest.mark.parametrize(
    "name", ["README.md", "sample_logs/architecture_guide.md", "docs/retrieval.md"]
)
@pytest.mark.parametrize("mode", ["seed", "topic"])
def test_merged_chunks_of_real_documents_end_on_their_last_line(name: str, mode: str) -> None:
    path = ROOT / name
    file_lines = path.read_text(encoding="utf-8").split("\n")
    pipe = Pipeline(str(path), PipelineParams())
    pipe = pipe.with_params(merge=pipe.params.merge.__class__(mode=mode))
    merged = pipe.merged().chunks
    for chunk in [*pipe.compacted(), *merged]:
        assert_exact(chunk, file_lines)
    # The last chunk ends where the document's text does.
    last_text = max(i for i, ln in enumerate(file_lines, start=1) if ln.strip())
    assert merged[-1].lines is not None and merged[-1].lines[1] == last_text


def test_readme_chunk_that_ends_in_a_code_block_ends_on_its_fence() -> None:
    """The example of the issue: a merged chunk of a 50-line section said [39, 39]."""
    path = ROOT / "README.md"
    file_lines = path.read_text(encoding="utf-8").split("\n")
    pipe = Pipeline(str(path), PipelineParams())
    for chunk in pipe.merged().chunks:
        lines = chunk.lines
        assert lines is not None
        assert lines[1] - lines[0] + 1 >= chunk.text.count("\n") + 1 - len(chunk.turns), lines
        assert file_lines[lines[1] - 1].strip() in chunk.text


@pytest.mark.parametrize("strategy", ["markdown", "sliding-window"])
def test_strategy_chunks_of_a_document_span_their_lines(strategy: str) -> None:
    path = ROOT / "sample_logs" / "architecture_guide.md"
    file_lines = path.read_text(encoding="utf-8").split("\n")
    pipe = Pipeline(str(path), PipelineParams(strategy=strategy))
    for sc in pipe.strategy_result().chunks:
        chunk = sc.chunk
        if strategy == "markdown":
            t = chunk.turns[0]
            body = sc.meta.get("original_content", t.text)
            assert chunk.lines == (sc.meta["start_line"], sc.meta["end_line"])
            own = "\n".join(file_lines[t.source_line - 1 : t.last_line])  # type: ignore[operator]
            assert body.strip("\n") in own or own.strip() in body
        else:
            assert_exact(chunk, file_lines)


@pytest.mark.parametrize("collapse", [False, True], ids=["turns", "collapsed"])
def test_aider_chunks_span_the_lines_of_their_blocks(collapse: bool) -> None:
    """Walk 11, 4: collapsed (the workbench's, `recap`'s and `report`'s default) every
    paragraph of an aider message said the message's first line (`[17, 17]` for lines
    19-32, `[60, 60]` for 9 turns): collapsed or not, a chunk spans its blocks' lines."""
    path = ROOT / "tests" / "fixtures" / "aider" / "metadata-aider.aider.chat.history.md"
    file_lines = path.read_text(encoding="utf-8").split("\n")
    chunks = Pipeline(str(path), PipelineParams(collapse=collapse)).compacted()
    assert len(chunks) > 5

    def said_at(line: int, turn: Turn, last: bool) -> bool:
        """The file's `line` holds the turn's text (its last or first line); a collapsed
        sentence of aider's (walk 24, F7: "Edited a.py.") names what that line says."""
        text = file_lines[line - 1].strip()
        if turn.role == "Tool":  # "Edited X." / "Committed H: ..." / "Ran `C`: ..."
            subject = re.search(r"(?:Edited (.+)\.$|Committed (\w+):|Ran `(.+?)`)", turn.text)
            assert subject is not None, turn.text
            if last and turn.text.startswith("Ran"):
                return (turn.end_line or 0) >= line
            return next(g for g in subject.groups() if g) in text
        part = turn.text.rstrip().split("\n")[-1 if last else 0].strip()
        return text.endswith(part)

    for chunk in chunks:
        lines = chunk.lines
        assert lines is not None
        last_turn = max(chunk.turns, key=lambda t: t.end_line or t.last_line or t.source_line or 0)
        assert said_at(lines[1], last_turn, True), (lines, last_turn.text)
        assert said_at(lines[0], chunk.turns[0], False), (lines, chunk.turns[0].text)


@pytest.mark.parametrize("strategy", ["markdown", "sliding-window", "boundary", "blank-line"])
def test_strategy_chunks_of_an_aider_chat_contain_their_text(strategy: str) -> None:
    """Walk 8: the markdown strategy over a session (an aider chat: its turns' texts
    joined, not the file's lines) gave each chunk its first turn's first line only, so a
    chunk spanning lines 19-36 said [17, 17]. Every line of a chunk's text (its role
    prefix left out) is now in the file between its first and last line."""
    path = ROOT / "tests" / "fixtures" / "aider" / "metadata-aider.aider.chat.history.md"
    file_lines = path.read_text(encoding="utf-8").split("\n")
    pipe = Pipeline(str(path), PipelineParams(strategy=strategy))
    chunks = pipe.strategy_result().chunk_list
    assert len(chunks) > 3
    for chunk in chunks:
        lines = chunk.lines
        assert lines is not None
        span = "\n".join(file_lines[lines[0] - 1 : lines[1]])
        for t in chunk.turns:
            for text_line in t.text.split("\n"):
                words = text_line.strip()
                if len(words) > 3:  # a fence or a lone marker is anywhere
                    assert words in span, (lines, words)


@pytest.mark.parametrize("strategy", ["blank-line", "markdown"])
@pytest.mark.parametrize(("bom", "end"), [("", "\r"), ("\ufeff", "\r\n"), ("\ufeff", "\r")])
def test_a_document_with_other_line_ends_chunks_as_with_line_feeds(
    tmp_path: Path, strategy: str, bom: str, end: str
) -> None:
    """Walk 8: a markdown file with a CR alone at each line end was read as one line
    (`lines [1, 1]`, words glued across lines); the markdown strategy kept a BOM in its
    first chunk. Any line ends and a BOM give the chunks of the file with line feeds."""
    text = (ROOT / "sample_logs" / "architecture_guide.md").read_text(encoding="utf-8")
    other = tmp_path / "guide.md"
    other.write_bytes((bom + text.replace("\n", end)).encode("utf-8"))
    plain = tmp_path / "plain.md"
    plain.write_text(text, encoding="utf-8")

    def chunks(path: Path) -> list[tuple[str, tuple[int, int] | None]]:
        pipe = Pipeline(str(path), PipelineParams(strategy=strategy))
        return [(c.text, c.lines) for c in pipe.strategy_result().chunk_list]

    got, want = chunks(other), chunks(plain)
    assert len(want) > 10 and got == want
    assert "\ufeff" not in got[0][0]
