"""Summaries: the extractive summarizer, the LLM summarizer against a local server, caching."""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunkscope.engine.embed.cache import EmbeddingCache
from chunkscope.engine.model import Chunk, Turn
from chunkscope.engine.summarize import (
    MAX_SENTENCE_CHARS,
    SYSTEM_PROMPT,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    Summary,
    SummaryError,
    cache_namespace,
    make_summarizer,
    parse_reply,
    split_sentences,
    summarize_chunks,
)
from tests.fakeserver import FakeOpenAIServer, Fault, closed_port_url

KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_real_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def norm(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- sentences


def test_split_sentences_strips_roles_and_skips_code_and_tables() -> None:
    text = "\n".join(
        [
            "You: Please fix the cache. It forgets everything.",
            "Bot thinking: The cache is a dict. conftest.py needs a temp dir,",
            "so every test gets its own. See e.g. the fixture.",
            "```python",
            "Bot: this is code, not a turn. Nor a sentence.",
            "```",
            "| a | b |",
            "- First item of a list",
            "- Second item",
            "## A heading",
            "Tool: Read engine/cache.py (12 lines).",
        ]
    )
    got = [(s.role, s.text, s.prose) for s in split_sentences(text)]
    assert got == [
        ("You", "Please fix the cache.", True),
        ("You", "It forgets everything.", True),
        ("Bot thinking", "The cache is a dict.", True),
        ("Bot thinking", "conftest.py needs a temp dir, so every test gets its own.", True),
        ("Bot thinking", "See e.g. the fixture.", True),
        ("Bot thinking", "First item of a list", True),
        ("Bot thinking", "Second item", True),
        ("Bot thinking", "A heading", False),
        ("Tool", "Read engine/cache.py (12 lines).", False),
    ]


# --------------------------------------------------------------------------- extractive

TOOL_HEAVY = "\n".join(
    [
        "Tool: Read engine/embed_cache.py (179 lines).",
        "Tool: Read engine/embed.py (33 lines).",
        "Tool: Read tests/test_embed_cache.py (62 lines).",
        "Tool: Edited engine/embed_cache.py.",
        "Tool: Edited engine/embed_cache.py.",
        "Bot: The embedding cache now persists in SQLite, so reopening the workbench "
        "no longer re-embeds the whole log.",
        "Tool: Ran `python -m pytest -q`: 9 passed in 0.34s",
        "Bot thinking: Warm reads of the cache are slower than the dict because every "
        "hit also updates the cache row.",
        "You: Keep going.",
    ]
)


def test_abstract_is_prose_not_tool_boilerplate() -> None:
    s = ExtractiveSummarizer().summarize(TOOL_HEAVY)
    assert s.abstract in {
        "The embedding cache now persists in SQLite, so reopening the workbench no longer "
        "re-embeds the whole log.",
        "Warm reads of the cache are slower than the dict because every hit also updates "
        "the cache row.",
    }
    assert "Read " not in s.summary and "Edited " not in s.summary
    assert s.source == "extractive" and not s.flagged
    for prefix in ("Bot:", "You:", "Tool:", "Bot thinking:"):
        assert prefix not in s.abstract and prefix not in s.summary


def test_tool_only_chunk_still_gets_a_summary() -> None:
    text = "Tool: Read a.py (3 lines).\nTool: Edited a.py.\nTool: Edited a.py."
    s = ExtractiveSummarizer().summarize(text)
    assert s.abstract in {"Read a.py (3 lines).", "Edited a.py."}
    assert s.summary == "Read a.py (3 lines). Edited a.py."  # repeats collapse to one


def test_zero_and_one_sentence_chunks() -> None:
    ex = ExtractiveSummarizer()
    assert ex.summarize("") == Summary("", "")
    one = ex.summarize("Bot: Only one sentence here.")
    assert one == Summary("Only one sentence here.", "Only one sentence here.")
    code = ex.summarize("Bot: ```\nprint('x')\n```")
    # a chunk whose only text is code has no summary: never a lone fence nor a code line
    assert code == Summary("", "")


def test_long_sentences_are_cut_at_a_word_boundary() -> None:
    long = "Word " * 200 + "end."
    s = ExtractiveSummarizer().summarize(f"Bot: {long}")
    assert s.abstract.endswith("...")
    assert len(s.abstract) <= MAX_SENTENCE_CHARS
    assert norm(long).startswith(s.abstract[:-3])


def test_extractive_is_deterministic() -> None:
    a = ExtractiveSummarizer().summarize(TOOL_HEAVY)
    b = ExtractiveSummarizer().summarize(TOOL_HEAVY)
    assert a == b


_VOCABULARY = """cache sqlite vector merge budget token chunk recap summary model test user
file write read fast slow error retry batch layer disk memory index query"""
_WORDS = st.sampled_from(_VOCABULARY.split())
_SENTENCE = st.lists(_WORDS, min_size=3, max_size=14).map(
    lambda ws: " ".join([ws[0].capitalize(), *ws[1:]]) + "."
)
_ROLE = st.sampled_from(["Bot", "You", "Bot thinking"])


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_SENTENCE, min_size=1, max_size=14, unique=True),
    st.lists(st.tuples(_ROLE, st.integers(1, 3)), min_size=1, max_size=14),
    st.booleans(),
)
def test_extractive_properties(
    sentences: list[str], layout: list[tuple[str, int]], tools: bool
) -> None:
    # A sentence whose words another holds is said once, by the longer (`_without_repeats`:
    # "Cache cache cache." inside "Cache cache cache cache."): not what this test counts.
    words = [frozenset(w.lower().strip(".") for w in s.split()) for s in sentences]
    assume(not any(a <= b for i, a in enumerate(words) for j, b in enumerate(words) if i != j))
    # Lay the sentences out as turns of one to three sentences each.
    lines: list[tuple[str, list[str]]] = []
    rest = list(sentences)
    for role, k in layout:
        if not rest:
            break
        lines.append((role, rest[:k]))
        rest = rest[k:]
    if rest:
        lines.append(("Bot", rest))
    tool_lines = ["Read cache file sqlite (3 lines).", "Edited cache file."]
    if tools:
        lines.insert(1, ("Tool", tool_lines[:1]))
        lines.append(("Tool", tool_lines[1:]))
    text = "\n".join(f"{role}: " + " ".join(parts) for role, parts in lines)
    in_order = [s for _, parts in lines for s in parts]

    s = ExtractiveSummarizer().summarize(text)
    # The abstract is one sentence of the chunk, never a tool line.
    assert s.abstract in sentences
    # The summary is 2 to 4 of the chunk's sentences, in their original order,
    # tool sentences only when there are too few prose ones.
    remaining, picked = s.summary, []
    for sentence in in_order:
        if remaining == sentence or remaining.startswith(sentence + " "):
            picked.append(sentence)
            remaining = remaining[len(sentence) :].lstrip(" ")
    assert remaining == "", (s.summary, in_order)
    assert s.abstract in picked
    if len(in_order) >= 2:
        assert 2 <= len(picked) <= 4
        prose_picked = [p for p in picked if p in sentences]
        assert len(prose_picked) == min(len(picked), len(sentences))
    else:
        assert s.summary == s.abstract


# --------------------------------------------------------------------------- reply parsing


@pytest.mark.parametrize(
    "reply",
    [
        "ABSTRACT: I fixed the cache.\nSUMMARY: I moved it to SQLite. It is fast.",
        "abstract: I fixed the cache.\nsummary: I moved it to SQLite. It is fast.",
        "  ABSTRACT:   I fixed the cache.  \n\n  SUMMARY:I moved it to SQLite. It is fast.\n",
        "**ABSTRACT:** I fixed the cache.\n**SUMMARY:** I moved it to SQLite. It is fast.",
        "**Abstract**: I fixed the cache.\n**Summary**: I moved it to SQLite. It is fast.",
        "<think>ABSTRACT: no</think>\nABSTRACT: I fixed the cache.\n"
        "SUMMARY: I moved it to SQLite.\nIt is fast.",
        "Sure! Here it is:\nABSTRACT: I fixed the cache.\n"
        "SUMMARY: I moved it to SQLite. It is fast.",
    ],
)
def test_parse_reply_variants(reply: str) -> None:
    assert parse_reply(reply) == ("I fixed the cache.", "I moved it to SQLite. It is fast.")


@pytest.mark.parametrize(
    "reply",
    ["", None, "I fixed the cache.", "ABSTRACT: only an abstract", "SUMMARY: only", "ABSTRACT:\n"],
)
def test_parse_reply_failures(reply: str | None) -> None:
    assert parse_reply(reply) is None


# --------------------------------------------------------------------------- LLM


class Replies:
    """Scripted chat replies, then a default derived from the chunk text."""

    def __init__(self, *scripted: str) -> None:
        self.scripted = deque(scripted)
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self.lock:
            if self.scripted:
                return self.scripted.popleft()
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return f"ABSTRACT: I handled {user[:40]}.\nSUMMARY: I summarized {user[:40]}. Done."


@pytest.fixture
def replies() -> Replies:
    return Replies()


@pytest.fixture
def server(replies: Replies) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(chat_reply=replies) as s:
        yield s


def llm(server: FakeOpenAIServer, **kw: Any) -> LLMSummarizer:
    kw.setdefault("backoff", 0.01)
    kw.setdefault("timeout", 5.0)
    return LLMSummarizer("fake-chat", server.base_url, KEY, **kw)


def test_llm_well_formed_reply(server: FakeOpenAIServer, replies: Replies) -> None:
    replies.scripted.append("ABSTRACT: I fixed it.\nSUMMARY: I fixed the cache. Tests pass.")
    s = llm(server).summarize("Bot: fixing the cache")
    assert s == Summary("I fixed it.", "I fixed the cache. Tests pass.", False, "llm")
    (req,) = server.requests_to("/chat/completions")
    body = req.body
    assert body["model"] == "fake-chat"
    assert body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert body["messages"][1] == {"role": "user", "content": "Bot: fixing the cache"}
    assert "first person" in SYSTEM_PROMPT and "ABSTRACT:" in SYSTEM_PROMPT
    assert "SUMMARY:" in SYSTEM_PROMPT
    assert req.headers["authorization"] == f"Bearer {KEY}"


def test_llm_unparseable_reply_is_retried_then_falls_back_flagged(
    server: FakeOpenAIServer, replies: Replies
) -> None:
    replies.scripted.extend(["Here is a summary of the chunk.", "still no prefixes"])
    s = llm(server).summarize(TOOL_HEAVY)
    assert len(server.requests_to("/chat/completions")) == 2
    assert s.flagged
    assert s.source == "extractive"
    expected = ExtractiveSummarizer().summarize(TOOL_HEAVY)
    assert (s.abstract, s.summary) == (expected.abstract, expected.summary)
    assert "prefixes" not in s.summary and "Here is" not in s.summary


def test_llm_second_reply_parses(server: FakeOpenAIServer, replies: Replies) -> None:
    replies.scripted.extend(["garbage", "ABSTRACT: A.\nSUMMARY: B. C."])
    s = llm(server).summarize("Bot: x")
    assert s == Summary("A.", "B. C.", False, "llm")
    assert len(server.requests_to("/chat/completions")) == 2


def test_llm_retries_http_500(server: FakeOpenAIServer) -> None:
    server.script(Fault.http(500), Fault.http(503))
    s = llm(server).summarize("Bot: x")
    assert s.source == "llm" and not s.flagged
    assert len(server.requests_to("/chat/completions")) == 3


def test_llm_retries_429(server: FakeOpenAIServer) -> None:
    server.script(Fault.rate_limited(retry_after="0"))
    assert llm(server).summarize("Bot: x").source == "llm"
    assert len(server.requests) == 2


def test_llm_retries_a_timeout(server: FakeOpenAIServer) -> None:
    server.script(Fault.slow(2.0))
    s = llm(server, timeout=0.3).summarize("Bot: x")
    assert s.source == "llm"
    assert len(server.requests) == 2


def test_llm_gives_up_with_a_clear_error(server: FakeOpenAIServer) -> None:
    server.always(Fault.http(500))
    with pytest.raises(SummaryError) as info:
        llm(server, max_retries=2).summarize("Bot: x")
    message = str(info.value)
    assert message.startswith(server.base_url)
    assert "HTTP 500 after 2 retries" in message
    assert KEY not in message
    assert len(server.requests) == 3


def test_llm_client_errors_are_not_retried_and_hide_the_key(server: FakeOpenAIServer) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})
    server.script(Fault.http(401, body=body))
    with pytest.raises(SummaryError) as info:
        llm(server).summarize("Bot: x")
    assert "HTTP 401" in str(info.value)
    assert KEY not in str(info.value)
    assert len(server.requests) == 1


def test_llm_connection_refused() -> None:
    s = LLMSummarizer("m", closed_port_url(), KEY, backoff=0.001, max_retries=1)
    with pytest.raises(SummaryError, match="cannot connect"):
        s.summarize("Bot: x")


def test_llm_needs_a_key_for_openai_only() -> None:
    with pytest.raises(SummaryError, match="no API key"):
        LLMSummarizer("gpt-4o-mini")
    local = LLMSummarizer("m", "http://user:pw@127.0.0.1:1/v1/")
    assert local.endpoint == "http://127.0.0.1:1/v1"
    assert "pw" not in repr(local)


def test_make_summarizer() -> None:
    assert isinstance(make_summarizer(), ExtractiveSummarizer)
    with pytest.raises(ValueError, match="model"):
        make_summarizer("llm")
    with pytest.raises(ValueError, match="unknown"):
        make_summarizer("magic")
    s = make_summarizer("llm", model="m", base_url="http://127.0.0.1:1/v1", workers=2)
    assert isinstance(s, Summarizer)
    assert isinstance(s, LLMSummarizer) and s.workers == 2


# --------------------------------------------------------------------------- many chunks


def chunk(text: str) -> Chunk:
    return Chunk([Turn(None, "Bot", text)])


def test_summarize_chunks_in_order_in_parallel_and_cached(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    chunks = [chunk(f"topic number {i}") for i in range(9)] + [chunk("topic number 3")]
    seen: list[tuple[int, int]] = []
    with EmbeddingCache(tmp_path / "cache.sqlite3") as cache:
        first = summarize_chunks(
            chunks, llm(server), cache=cache, workers=4, progress=lambda d, t: seen.append((d, t))
        )
        assert len(server.requests) == 9  # the repeated text is asked once
        assert [s.abstract for s in first] == [f"I handled Bot: {c.text[5:]}." for c in chunks]
        assert seen[-1] == (10, 10)
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)

    server.reset()
    with EmbeddingCache(tmp_path / "cache.sqlite3") as cache:  # a second run, new process-like
        second = summarize_chunks(chunks, llm(server), cache=cache)
        assert server.requests == []
        assert second == first
        # Another model is another cache entry.
        summarize_chunks(chunks[:1], LLMSummarizer("other", server.base_url, KEY), cache=cache)
        assert len(server.requests) == 1


def test_flagged_summaries_are_not_cached(server: FakeOpenAIServer, replies: Replies) -> None:
    replies.scripted.extend(["nope", "nope again"])
    with EmbeddingCache(":memory:") as cache:
        (s,) = summarize_chunks([chunk("Hello there. More text here.")], llm(server), cache=cache)
        assert s.flagged
        (again,) = summarize_chunks(
            [chunk("Hello there. More text here.")], llm(server), cache=cache
        )
        assert not again.flagged and again.source == "llm"
        assert len(server.requests) == 3


def test_summarize_chunks_raises_the_first_error(server: FakeOpenAIServer) -> None:
    server.always(Fault.http(500))
    with pytest.raises(SummaryError):
        summarize_chunks([chunk(f"c{i}") for i in range(6)], llm(server, max_retries=0))


def test_extractive_summaries_are_not_cached() -> None:
    with EmbeddingCache(":memory:") as cache:
        out = summarize_chunks([chunk("One. Two words here.")], cache=cache)
        assert out[0].source == "extractive"
        assert cache.info()["json_entries"] == 0
        assert cache_namespace(ExtractiveSummarizer()).startswith("summary:extractive:")


def test_summarize_chunks_accepts_texts_and_a_custom_summarizer() -> None:
    class Upper:
        name = "upper"
        model = "u"
        prompt_version = "1"

        def __init__(self) -> None:
            self.calls: list[str] = []

        def summarize(self, text: str) -> Summary:
            self.calls.append(text)
            return Summary(text.upper(), text.upper() + "!", source="upper")

    up = Upper()
    cache = EmbeddingCache(":memory:")
    got = summarize_chunks(["a", "b", "a"], up, cache=cache)
    assert [s.abstract for s in got] == ["A", "B", "A"]
    assert up.calls == ["a", "b"]
    summarize_chunks(["a", "b"], up, cache=cache)
    assert up.calls == ["a", "b"]  # custom summarizers are cacheable by default
    cache.close()


def test_summary_round_trips_through_a_dict() -> None:
    s = Summary("a", "b", True, "llm")
    assert Summary.from_dict(s.as_dict()) == s
    assert Summary.from_dict({"abstract": 1}) is None
    assert Summary.from_dict("x") is None
    assert Summary("a", "").text == "a"


def test_seed_signature_model_and_log(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    lines: list[str] = []
    got = summarize_chunks([chunk("a"), chunk("b")], model="fake-chat", log=lines.append)
    assert [s.source for s in got] == ["llm", "llm"]
    assert lines[-1] == "Summarized 2/2 chunks."
    assert {r.body["model"] for r in server.requests} == {"fake-chat"}


def test_extractive_prefers_the_agents_sentences_to_the_users() -> None:
    text = (
        "You: Keep going, you have budget left and the cache still needs the schema work.\n"
        "Bot: I moved the cache schema into a migration so the cache survives restarts.\n"
        "Bot: The schema work on the cache is done and the migration runs on open.\n"
        "You: The cache schema matters most, keep the cache work going."
    )
    summary = ExtractiveSummarizer().summarize(text)
    assert "Keep going" not in summary.abstract
    assert "cache" in summary.abstract and summary.abstract.startswith(("I moved", "The schema"))


# --------------------------------------------------------------------------- facts, not narration


def test_narration_and_filler_are_passed_over() -> None:
    from chunkscope.engine.summarize.extractive import is_narration

    for said in (
        "Let me check git status.",
        "Now I'll integrate the cache into the pipeline.",
        "Perfect!",
        "Let me look at `parse_turns` in engine/read/parse.py:",
        "Now let me run the tests:",
    ):
        assert is_narration(said), said
    for fact in (
        "309 tests pass and dialyzer is clean.",
        "The parser drops the last line because the buffer is never flushed.",
        "I'll keep `parse()` in engine/read/parse.py since three callers depend on it.",
    ):
        assert not is_narration(fact), fact
    text = (
        "Bot: Let me check git status.\n"
        "Bot: Now I'll integrate the cache.\n"
        "Bot: The cache in engine/cache.py now survives restarts; warm reads take 0.2 ms.\n"
        "Bot: Perfect!\n"
        "Bot: I moved the schema upgrade into BEGIN IMMEDIATE so two processes cannot race.\n"
        "Bot: Let me run the tests.\n"
    )
    s = ExtractiveSummarizer().summarize(text)
    assert "Let me" not in s.summary and "Now I'll" not in s.summary and "Perfect" not in s.summary
    assert "engine/cache.py" in s.summary and "BEGIN IMMEDIATE" in s.summary


def test_machine_text_is_passed_over() -> None:
    from chunkscope.engine.summarize.extractive import is_markup

    for said in (
        "/compact",
        "<task-notification> <task-id>be613ab</task-id> <status>completed</status>",
        "<instructions>.",
        "```python",
    ):
        assert is_markup(said), said
    for fact in ("/usr/lib/x.so is missing.", "The <div> wrapper is gone.", "I ran /compact."):
        assert not is_markup(fact), fact
    text = (
        "You: /compact\n"
        "You: <task-notification> <task-id>be613ab</task-id> <status>completed</status> "
        "<summary>Background command finished</summary> </task-notification>\n"
        "Bot: The tail worker now debounces ingest to 500 ms in lib/tail_worker.ex.\n"
        "Bot: 389 tests pass after the PubSub wiring in session_live.ex.\n"
    )
    s = ExtractiveSummarizer().summarize(text)
    assert "/compact" not in s.summary and "task-notification" not in s.summary
    assert "tail_worker.ex" in s.summary and "389 tests" in s.summary


def test_fragments_are_not_run_together() -> None:
    text = (
        "Bot: The function takes parameters\n"
        "The outermost function wraps the call in a retry loop with three attempts\n"
        "Bot: The retry loop backs off for 0.5 s between attempts of the outermost call\n"
    )
    s = ExtractiveSummarizer().summarize(text)
    assert "parameters The" not in s.summary
    assert not re.search(r"[a-z] [A-Z][a-z]+ [a-z]", s.summary.replace(". ", "|")), s.summary


def test_html_comments_are_no_text() -> None:
    """A markdown comment (a generated block's marker) is not read: not in a sentence,
    not a summary of a chunk that holds nothing else."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, split_sentences

    text = (
        "Doc: <!-- generated: search -->\n"
        "The search ranks the chunks. <!-- a note\n"
        "over two lines --> It prints the context.\n"
    )
    said = " ".join(s.text for s in split_sentences(text))
    assert "<!--" not in said and "note" not in said and "-->" not in said
    assert "ranks the chunks" in said and "prints the context" in said
    alone = ExtractiveSummarizer().summarize("Doc: <!-- generated: search -->")
    assert alone.summary == "" and alone.abstract == ""


def test_a_sentence_wrapped_before_a_name_stays_one() -> None:
    """Hard-wrapped prose: a line that ends inside brackets, on a name or on "the" runs
    on into a next line that starts with a capital (the README's summary began
    "Code, Codex, Gemini CLI, aider, ...)")."""
    from chunkscope.engine.summarize.extractive import split_sentences

    text = (
        "Doc: chunkscope turns agent session logs (Claude\n"
        "Code, Codex, Gemini CLI, aider, ...) and markdown into chunks and a recap.\n"
        "It was written by Jane\n"
        "Doe and tested on the\n"
        "Debian machines of the lab.\n"
    )
    assert [s.text for s in split_sentences(text)] == [
        "chunkscope turns agent session logs (Claude Code, Codex, Gemini CLI, aider, ...) "
        "and markdown into chunks and a recap.",
        "It was written by Jane Doe and tested on the Debian machines of the lab.",
    ]


def test_a_sentence_is_not_cut_after_e_g_or_inside_a_quoted_question() -> None:
    from chunkscope.engine.summarize.extractive import sentences_of

    text = (
        'It asks with the numbers, e.g. "Delete 18 vectors (3 MB)?", and clearing empties it. '
        'Use a tool, i.e. Grep. A vs. B wins. It said "Stop!" and left. Also etc. Then more.'
    )
    assert sentences_of(text) == [
        'It asks with the numbers, e.g. "Delete 18 vectors (3 MB)?", and clearing empties it.',
        "Use a tool, i.e. Grep.",
        "A vs. B wins.",
        'It said "Stop!" and left.',
        "Also etc.",
        "Then more.",
    ]


def test_a_numbered_bold_lead_in_is_not_cut() -> None:
    """``**4. Show it to someone.** rest``: one sentence (it was "**4." and "Show it to
    someone.** rest"); a stop inside bold is no end; an item's number opening a
    sentence is none either; a fragment without words is no sentence."""
    from chunkscope.engine.summarize.extractive import sentences_of

    text = (
        "**4. Show it to someone.** One page of the run. Read **the guide. Then the FAQ.** "
        "first. 2. Open the file. It has 12. Then 3 more. **"
    )
    assert sentences_of(text) == [
        "**4. Show it to someone.** One page of the run.",
        "Read **the guide. Then the FAQ.** first.",
        "2. Open the file.",
        "It has 12.",
        "Then 3 more.",
    ]
    doc = "Doc: **5. Show it to someone.** One self-contained page.\nDoc: **\nDoc: ---"
    assert [s.text for s in split_sentences(doc)] == [
        "**5. Show it to someone.** One self-contained page."
    ]


def test_a_sentence_cut_inside_bold_closes_it() -> None:
    from chunkscope.engine.summarize.extractive import _truncate

    cut = _truncate("**" + "word " * 80 + "end.** Rest.", 100)
    assert len(cut) <= 102 and cut.endswith("...**") and cut.count("**") == 2


_WORDS = st.sampled_from(["the", "cache", "Parser", "12", "x.py", "ran", "It", "tests"])
_PIECE = st.one_of(
    _WORDS,
    st.sampled_from([".", "!", "?", ":", "--", "**"]),
    st.builds(lambda n, w: f"**{n}. {w}.**", st.integers(1, 120), _WORDS),  # a lead-in
    st.builds(lambda a, b: f"**{a}. {b}.**", _WORDS, _WORDS),  # two sentences in bold
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_PIECE, min_size=1, max_size=12), min_size=1, max_size=4))
def test_no_sentence_has_an_unbalanced_bold_or_no_words(
    paragraphs: list[list[str]],
) -> None:
    """Over paragraphs of words, stops, bold spans and numbered bold lead-ins whose bold
    marks pair up: every sentence (and every summary sentence) has its bold marks in
    pairs and has words."""
    from chunkscope.engine.summarize.base import has_words
    from chunkscope.engine.summarize.extractive import sentences_of

    paras = []
    for words in paragraphs:
        if sum(w.count("**") for w in words) % 2:
            words = [*words, "**"]  # bold marks in pairs, as written markdown has them
        paras.append(" ".join(words))
    text = "\n\n".join("Doc: " + p for p in paras)
    said = [s.text for s in split_sentences(text)]
    summary = ExtractiveSummarizer().summarize(text)
    for sentence in [*said, *sentences_of(summary.summary), *sentences_of(summary.abstract)]:
        assert sentence.count("**") % 2 == 0, (sentence, text)
        assert has_words(sentence), (sentence, text)


_MARK_TEXT = st.lists(
    st.sampled_from(
        [*"abcfiloprsx_`./-5 \n", "pass", "Fix", "ROOT cause", "\u017f", "\u212a", "\u0663", "py"]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=st.lists(_MARK_TEXT, max_size=4).map("".join), most=st.integers(1, 4))
def test_marks_count_every_kind_as_the_whole_pattern_does(text: str, most: int) -> None:
    """The fact marks, found with only the kinds that can match in the text, are those
    of the whole pattern (ASCII and Unicode case folding, Unicode digits), up to `most`."""
    from chunkscope.engine.summarize.extractive import _CONTENT, _IDENTIFIER, _marks

    whole = len(_CONTENT.findall(text)) + len(_IDENTIFIER.findall(text))
    assert _marks(text, most) == min(whole, most)


def test_a_prompt_templates_lone_tags_are_no_sentence_and_no_summary() -> None:
    """mini-swe-agent's task prompt frames the issue in tags on lines of their own: the
    recap of its trajectories kept `</pr_description>` as a chunk's whole summary."""
    text = (
        "Consider the following PR description:\nThe validator allows a trailing newline.\n\n"
        "</pr_description>\n\n<instructions>\n# Task Instructions\n"
        '<example_response kind="shell">\nRun the tests in tests/auth first.\n'
    )
    said = [s.text for s in split_sentences(text)]
    assert not any(s.startswith("<") or s.endswith(">") for s in said), said
    assert "Run the tests in tests/auth first." in said
    alone = ExtractiveSummarizer().summarize("</pr_description>\n\n<instructions>\n")
    assert alone.summary == "" and alone.abstract == ""


@pytest.mark.parametrize(
    "text",
    [
        "Doc: ## Work state\n",  # docs/recap.md: a heading alone
        "Doc: # The manual\n\n## Reading\n",
        "Doc: | score | meaning |\n|---|---|\n| 1 | hit |\n",  # a table alone
        "Doc: ## Results\n\n| chunker | hit |\n|---|---:|\n| ours | 70.7 |\n",
    ],
)
def test_a_heading_or_a_table_alone_is_no_summary(text: str) -> None:
    """The recap of README kept `The manual`, of docs/recap.md `Work state`, of
    docs/retrieval.md `| score | meaning |`: a title or a table's header alone is no
    sentence that tells what the chunk says."""
    summary = ExtractiveSummarizer().summarize(text)
    assert summary.summary == "" and summary.abstract == ""


def test_a_lead_in_whose_block_is_left_out_ends_with_a_full_stop() -> None:
    """README's summary read `... (Python 3.11+, nothing else needed): Install the test
    dependencies and run the whole test suite:`: the code each colon led to is not in
    a summary, so the sentence ends there."""
    text = (
        "Doc: Open the workbench on a bundled sample log (Python 3.11+):\n\n```sh\npip install .\n"
        "```\n\nInstall the test dependencies and run the whole test suite:\n\n```sh\npytest\n```\n"
    )
    summary = ExtractiveSummarizer().summarize(text)
    assert summary.summary == (
        "Open the workbench on a bundled sample log (Python 3.11+). "
        "Install the test dependencies and run the whole test suite."
    )
    assert not summary.abstract.endswith(":")
    heading_and_text = ExtractiveSummarizer().summarize("Doc: ## Setup\n\nRun make first.\n")
    assert heading_and_text.summary == "Run make first."


def test_an_edit_blocks_file_name_is_no_sentence() -> None:
    """aider writes the file's name alone above each edit block: the recap's "Where it
    stopped" ended on a lone `README.md`."""
    text = (
        "Bot: Here is the edit block for the readme, with the usage section.\n\n"
        "README.md\n````markdown\n<<<<<<< SEARCH\n=======\n# Title\n>>>>>>> REPLACE\n````\n"
    )
    said = [s.text for s in split_sentences(text)]
    assert said == ["Here is the edit block for the readme, with the usage section."]
    kept = [s.text for s in split_sentences("Doc: See README.md for more.\n\n```\nx\n```\n")]
    assert kept == ["See README.md for more."]  # a sentence naming a file stays


def test_a_chunk_of_code_alone_has_no_summary() -> None:
    """A markdown section of a heading and a code block (a cookbook's recipe) was summed
    up by the block's first line: `import os`, `name: tests`, a shell command. Code is
    no summary, nor is a `# comment` line inside it nor a file name above it."""
    ex = ExtractiveSummarizer()
    recipe = "Doc: ### Retry with backoff\nDoc: ```python\nimport random\nimport time\n```\n"
    assert ex.summarize(recipe) == Summary("", "")
    commented = "Doc: ## Text\nDoc: ```bash\n# field 9 is the status\nawk '{ print $9 }' log\n```"
    assert ex.summarize(commented) == Summary("", "")
    yaml = "Doc: ```yaml\n# .github/workflows/tests.yml\nname: tests\nDoc: jobs:\n  test: 1\n```"
    assert ex.summarize(yaml) == Summary("", "")
    labelled = "Bot: frontend/display.ts\n```typescript\n<<<<<<< SEARCH\n=======\nx = 1\n"
    assert ex.summarize(labelled) == Summary("", "")  # the chunk ends inside the block
    folder = "Bot: data/\n```bash\nmkdir data\n```\n"
    assert ex.summarize(folder) == Summary("", "")


def test_an_edit_block_is_code_up_to_its_replace_line() -> None:
    """aider's edit block of a markdown file holds fences of its own (```bash inside
    ````markdown or even ```markdown): they close nothing; the block ends at
    `>>>>>>> REPLACE`, and no marker line is ever a sentence."""
    text = (
        "Bot: frontend/README.md\n```markdown\n<<<<<<< SEARCH\n=======\n# Frontend\n"
        "Bot: To run the display script, use the following command:\n"
        "Bot: ```bash\nts-node frontend/display.ts\n```\n>>>>>>> REPLACE\n```\n"
        "Bot: Please confirm if you would like to proceed with these changes.\n"
    )
    said = [s.text for s in split_sentences(text)]
    assert said == ["Please confirm if you would like to proceed with these changes."]
    # a chunk that starts inside a block: its lone markers are no text
    tail = "Bot: =======\nBot: >>>>>>> REPLACE\nBot: The block replaces the old title.\n"
    assert [s.text for s in split_sentences(tail)] == ["The block replaces the old title."]


def test_a_command_output_block_is_no_sentence() -> None:
    """mini-swe-agent hands a command's output back as `<returncode>N</returncode>` and
    an `<output>` block: the recap kept `<returncode>1</returncode>. cat: ...` and a raw
    `ls -la` listing as the chunk's summary; the agent's own words are the summary."""
    text = (
        "You: <returncode>0</returncode>\n<output>\ntotal 44\n"
        "drwxr-xr-x 6 root root 4096 Jul 17 01:31 .\n-rw-r--r-- 1 root root 183 README.md\n"
        "You: </output>\n"
        "Bot: The tests folder holds missing_colon.py, the file the issue names.\n"
        "Bot: ```mswea_bash_command\ncat tests/missing_colon.py\n```\n"
    )
    said = [s.text for s in split_sentences(text)]
    assert said == ["The tests folder holds missing_colon.py, the file the issue names."]
    cut = "You: <returncode>1</returncode>\n<output_head>\nTraceback (most recent call last)\n"
    assert ExtractiveSummarizer().summarize(cut) == Summary("", "")  # cut inside the output
    prose = "Bot: The <output> tag wraps what a command printed, then </output> ends it."
    assert [s.text for s in split_sentences(prose)] == [prose.removeprefix("Bot: ")]


def test_a_prompt_templates_example_response_is_no_sentence() -> None:
    """mini-swe-agent's template shows an example answer: the recap's "What happened"
    opened with "Here is an example of a correct response. THOUGHT: I need to understand
    the structure of the repository first." (the example's words, not the agent's)."""
    text = (
        "You: ## Formatting your response\nYou: Here is an example of a correct response:\n"
        "You: <example_response>\nTHOUGHT: I need to understand the structure of the "
        "repository first.\nYou: ```mswea_bash_command\nls -la\n```\n</example_response>\n"
        "Bot: The failing import is in setup.py, line 12.\n"
    )
    said = [s.text for s in split_sentences(text)]
    assert "THOUGHT" not in " ".join(said)
    assert said[-1] == "The failing import is in setup.py, line 12."


def test_the_llm_summarizer_without_a_model_says_where_to_set_one() -> None:
    """The workbench showed "(--summary-model)", a flag it has no field for (walk 7): the
    message names the flag and the config file's key."""
    from chunkscope.engine.summarize import make_summarizer

    with pytest.raises(ValueError, match=r"--summary-model, or model under \[summarizer\]"):
        make_summarizer("llm")


@pytest.mark.parametrize(
    ("abstract", "summary", "rest"),
    [
        # walk 12, 6: the panel showed "public API.  Status" (two spaces) for this
        (
            "Status first.",
            "Keep the public API. Status first. Then recall.",
            "Keep the public API. Then recall.",
        ),
        ("Keep the API.", "Keep the API. Then recall.", "Then recall."),
        ("Then recall.", "Keep the API. Then recall.", "Keep the API."),
        ("Status first.", "A line.\nStatus first.\nNext line.", "A line.\nNext line."),
    ],
)
def test_the_summary_without_its_abstract_keeps_one_space(
    abstract: str, summary: str, rest: str
) -> None:
    from chunkscope.engine.summarize.base import summary_rest

    assert summary_rest(abstract, summary) == rest


def test_a_split_kept_for_its_text_is_never_changed_by_a_caller() -> None:
    """`split_sentences` splits a text once (the recap asks for each chunk's twice): each
    call gets a list of its own, the same sentences, whatever an earlier caller did."""
    from chunkscope.engine.summarize.extractive import split_sentences

    text = "You: Move the cache to SQLite.\n\nBot: I moved it. The tests pass now."
    first = split_sentences(text)
    assert [s.text for s in first] == [
        "Move the cache to SQLite.",
        "I moved it.",
        "The tests pass now.",
    ]
    first.clear()
    again = split_sentences(text)
    assert [s.text for s in again] == [
        "Move the cache to SQLite.",
        "I moved it.",
        "The tests pass now.",
    ]
    assert again is not split_sentences(text)
