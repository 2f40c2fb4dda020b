"""`chunkscope recap`: output contract, files, errors and exit codes, tool-call collapsing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.tokens import get_counter
from chunkscope.tui.cli import main
from tests.fakeserver import FakeOpenAIServer, Fault
from tests.test_recap import FILE_SECRET, make_log

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return make_log(tmp_path / "session.jsonl", topics=8)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


CAP = ("--max-chars", "700", "--merge", "seed")  # the seed loop, whose results these pin


def test_json_contract(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "recap", str(log), "--format", "json", "--budget", "120", "--plain", *CAP
    )
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {
        "budget",
        "used_tokens",
        "newest_over_budget",
        "sections",
        "candidates",
        "recap",
        "records",
        "read",
        "not_read",
        "stripped",
    }
    assert doc["sections"] == []  # --plain: the seed's recap
    assert doc["read"] + sum(doc["not_read"].values()) == doc["records"] > 0
    assert doc["budget"] == 120
    assert doc["used_tokens"] == get_counter().count(doc["recap"]) <= 120
    assert doc["newest_over_budget"] is False
    cands = doc["candidates"]
    assert len(cands) >= 3
    for i, c in enumerate(cands):
        assert set(c) == {
            "index",
            "time_range",
            "abstract",
            "summary",
            "score",
            "tokens",
            "selected",
            "pinned",
            "reason",
        }
        assert c["index"] == i
        assert c["reason"] in {"kept", "over budget"}
        assert c["selected"] == (c["reason"] == "kept")
        assert c["score"] == pytest.approx((i + 1) / len(cands), abs=1e-6)
    kept = [c for c in cands if c["selected"]]
    assert kept and cands[-1]["selected"]  # recency keeps the newest
    assert doc["recap"] == "\n\n".join(c["summary"] for c in kept) + "\n"
    assert "recap:" in err and "tokens" in err
    assert FILE_SECRET not in out  # tool results and arguments were collapsed


def test_markdown_to_stdout_and_headings(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "recap", str(log), "--plain", *CAP)
    assert code == 0
    assert out.endswith("\n") and "\n\n" in out
    assert not out.startswith("##")
    assert "chunkscope:" not in out  # messages go to stderr only
    code, out2, _ = run(capsys, "recap", str(log), "--headings", "--plain", *CAP)
    assert code == 0
    assert out2.startswith("## 09:")
    assert out2.count("## ") == out.count("\n\n") + 1


def test_output_file_is_written_atomically(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "workspace" / "_recap.md"
    target.parent.mkdir()  # a missing folder is refused (below)
    code, out, err = run(capsys, "recap", str(log), "-o", str(target), *CAP)
    assert code == 0
    assert out == ""
    assert f"wrote {target}" in err
    text = target.read_text()
    assert text.strip()
    code, _, _ = run(capsys, "recap", str(log), "-o", str(target), "--format", "json", *CAP)
    assert code == 0
    assert json.loads(target.read_text())["recap"] == text
    assert sorted(p.name for p in target.parent.iterdir()) == ["_recap.md"]


def test_pin_exclude_and_salience(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "recap", str(log), "--format", "json", "--budget", "60",
        "--pin", "0", "--exclude", "1,2", *CAP,
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    reasons = [c["reason"] for c in doc["candidates"]]
    assert reasons[0] == "pinned" and reasons[1:3] == ["excluded", "excluded"]
    memories = log.with_name("memories.txt")
    memories.write_text("The embedding cache forgets every vector when the workbench exits.\n")
    code, out, _ = run(
        capsys, "recap", str(log), "--format", "json", "--scorer", "salience",
        "--memories", str(memories), "--alpha", "0.5", *CAP,
    )  # fmt: skip
    assert code == 0
    scores = [c["score"] for c in json.loads(out)["candidates"]]
    assert scores != sorted(scores) or len(set(scores)) > 1


def test_newest_over_budget_is_reported(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The seed's recap (`--plain`, summaries only) keeps the newest summary, and says so."""
    code, out, err = run(
        capsys, "recap", str(log), "--format", "json", "--budget", "3", "--plain", *CAP
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["newest_over_budget"] is True
    assert [c["index"] for c in doc["candidates"] if c["selected"]] == [len(doc["candidates"]) - 1]
    assert "over the budget" in err


def test_a_budget_too_small_for_the_task_holds_and_says_so(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the sections, the task comes first: when not even its first word fits, the
    recap is empty (the budget holds, no summary stands in for the task) and says so."""
    code, out, err = run(capsys, "recap", str(log), "--format", "json", "--budget", "3", *CAP)
    assert code == 0
    doc = json.loads(out)
    assert doc["recap"] == "" and doc["used_tokens"] == 0 and doc["sections"] == []
    assert doc["newest_over_budget"] is False
    assert not any(c["selected"] for c in doc["candidates"])
    assert {c["reason"] for c in doc["candidates"]} <= {"over budget", "no summary"}
    assert "too small for even the task" in err
    # one token is one token (walk 13, 9: 'the budget (1 tokens)')
    code, out, err = run(capsys, "recap", str(log), "--budget", "1", *CAP)
    assert code == 0 and "the budget (1 token) is" in err and "(1 tokens)" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["recap", "{missing}"], "no such file"),
        (["recap", "{log}", "--summarizer", "llm"], "needs a chat model"),
        (
            ["recap", "{log}", "--summarizer", "llm", "--embedder", "openai", "--model", "e"],
            "--summary-model",
        ),
        (["recap", "{log}", "--pin", "99"], "no merged chunk 99"),
        # walk 16, 14e: the exclusion silently won
        (["recap", "{log}", "--pin", "0,2", "--exclude", "2"], "both name chunk 2"),
        (["recap", "{log}", "--budget", "-5"], "--budget"),
        (["recap", "{log}", "--workers", "0"], "--workers"),
        (["recap", "{log}", "--memories", "{missing}"], "cannot read"),
        (["recap", "{log}", "-o", "{log}/under/a/file.md"], "cannot write"),
    ],
)
def test_errors_are_one_line_and_exit_2(
    argv: list[str], message: str, log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a.format(log=log, missing=tmp_path / "missing.jsonl") for a in argv]
    try:
        code = main(args)
    except SystemExit as e:  # argparse's own errors
        code = e.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


# --------------------------------------------------------------------------- LLM


@pytest.fixture
def chat() -> Iterator[FakeOpenAIServer]:
    def reply(body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        return f"ABSTRACT: I worked.\nSUMMARY: I handled {len(user)} characters. It went well."

    with FakeOpenAIServer(chat_reply=reply) as s:
        yield s


def test_llm_summarizer_and_its_cache(
    log: Path, chat: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["recap", str(log), "--summarizer", "llm", "--model", "fake-chat",
            "--base-url", chat.base_url, "--workers", "3", "--format", "json", *CAP]  # fmt: skip
    code, out, _ = run(capsys, *argv)
    assert code == 0
    doc = json.loads(out)
    n = len(doc["candidates"])
    assert len(chat.requests_to("/chat/completions")) == n
    assert all(c["summary"].startswith("I handled") for c in doc["candidates"])
    assert all(r.body["model"] == "fake-chat" for r in chat.requests)
    chat.reset()
    code, out2, _ = run(capsys, *argv)
    assert code == 0 and out2 == out
    assert chat.requests == []  # a second run sends nothing


def test_llm_failure_names_the_endpoint_not_the_key(
    log: Path, chat: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat.always(Fault.http(401, body=json.dumps({"error": {"message": f"bad key {KEY}"}})))
    code, out, err = run(
        capsys, "recap", str(log), "--summarizer", "llm", "--summary-model", "m",
        "--summary-base-url", chat.base_url, *CAP,
    )  # fmt: skip
    assert code == 2
    assert out == ""
    assert chat.base_url in err and "HTTP 401" in err
    assert KEY not in err


# --------------------------------------------------------------------------- sample logs


def _raw_read_results(path: Path) -> list[str]:
    """Distinctive lines of the `read` results of a log that no prose message repeats."""
    calls: dict[str, str] = {}
    results: list[str] = []
    prose: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        msg = json.loads(line)
        if msg["role"] in ("user", "assistant"):
            prose.append(str(msg.get("content") or "") + str(msg.get("reasoning") or ""))
        for tc in msg.get("tool_calls") or []:
            calls[tc["id"]] = tc["function"]["name"]
        if msg["role"] == "tool" and calls.get(msg.get("tool_call_id", "")) == "read":
            results.append(str(msg.get("content") or ""))
    all_prose = "\n".join(prose)
    return [
        ln.strip()
        for r in results
        for ln in r.splitlines()
        if len(ln.strip()) >= 30 and ln.strip() not in all_prose
    ]


@pytest.mark.parametrize("name", ["cache_refactor.jsonl", "docs_cleanup.jsonl"])
def test_recap_of_a_sample_log_has_no_raw_file_contents(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = SAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} is not generated yet")
    raw = _raw_read_results(path)
    assert raw, "the sample log should read some files"
    code, out, _ = run(capsys, "recap", str(path), "--format", "json", "--budget", "100000")
    assert code == 0
    doc = json.loads(out)
    shown = doc["recap"] + "".join(c["abstract"] + c["summary"] for c in doc["candidates"])
    leaked = [ln for ln in raw if ln in shown]
    assert leaked == []


def test_recap_of_the_generated_log_mentions_the_collapsed_calls(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "recap", str(log), "--format", "json", "--budget", "100000")
    assert code == 0
    doc = json.loads(out)
    assert FILE_SECRET not in out
    assert all(c["selected"] for c in doc["candidates"])


@pytest.mark.parametrize(
    ("fixture", "names"),
    [
        ("mini_swe_django_11099.traj.json", {"task", "files", "outcome", "last"}),
        ("codex_rtchess_tail.jsonl", {"task", "files", "last"}),
    ],
)
def test_json_sections(capsys: pytest.CaptureFixture[str], fixture: str, names: set[str]) -> None:
    path = ROOT / "tests" / "fixtures" / "recap" / fixture
    code, out, _ = run(capsys, "recap", str(path), "--format", "json", "--budget", "300")
    assert code == 0
    doc = json.loads(out)
    counter = get_counter()
    assert doc["used_tokens"] == counter.count(doc["recap"]) <= 300
    sections = doc["sections"]
    assert names <= {s["name"] for s in sections}
    for s in sections:
        assert set(s) == {"name", "title", "lines", "text", "tokens", "source"}
        assert s["text"] == f"## {s['title']}\n" + "\n".join(s["lines"])
        assert s["text"] in doc["recap"] and s["tokens"] == counter.count(s["text"])
        assert s["source"] == "records"
    assert doc["recap"].startswith(sections[0]["text"])
    # the markdown recap is the same text; --plain leaves the sections out
    code, md, _ = run(capsys, "recap", str(path), "--budget", "300")
    assert md == doc["recap"]
    code, plain, _ = run(capsys, "recap", str(path), "--budget", "300", "--plain")
    assert "## Task" not in plain and plain.strip()


DOC = """# Using it

**1. Open a session.** The workbench opens the newest session of the folder and shows
its chunks beside the merged ones.

<!-- generated: search -->

**4. Show it to someone.** One self-contained HTML page of the run, or the whole
workbench in a browser. The page needs no network.

<!-- end: search -->
"""


def test_recap_of_a_markdown_file_keeps_bold_lead_ins_whole_and_no_empty_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's shape: numbered bold lead-ins stay in their sentence (not `**4.` and
    `Show it to someone.**`), and a chunk of an HTML comment alone is no kept row of 0
    tokens: it is not kept, and its reason and a note say why."""
    path = tmp_path / "guide.md"
    path.write_text(DOC, encoding="utf-8")
    small = ("--max-chars", "120")  # each paragraph and comment a merged chunk of its own
    code, out, err = run(capsys, "recap", str(path), *small, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    for c in doc["candidates"]:
        assert c["summary"].count("**") % 2 == 0 and c["abstract"].count("**") % 2 == 0, c
        assert c["selected"] == bool(c["summary"] or c["abstract"]), c
        assert c["reason"] == ("kept" if c["selected"] else "no summary"), c
    assert [c["reason"] for c in doc["candidates"]].count("no summary") >= 1
    assert "**4. Show it to someone.** One self-contained HTML page" in doc["recap"]
    assert "with no summary, no sentence to tell" in err
    code, md, _ = run(capsys, "recap", str(path), *small)
    assert md == doc["recap"] and "\n\n\n" not in md


def test_seed_log_gets_sections(capsys: pytest.CaptureFixture[str]) -> None:
    """The seed's own log (seed 004's tools: read, write, edit, run, done) has its sections."""
    code, out, _ = run(capsys, "recap", str(SAMPLES / "cache_refactor.jsonl"), "--budget", "600")
    assert code == 0
    assert out.startswith("## Task\nThe embedding cache in engine/embed_cache.py")
    assert "## Files changed\n- engine/" in out and "embed_cache.py (" in out
    assert "\n## Last outcome\nLast check: `python -m pytest -q " in out
    assert get_counter().count(out) <= 600


def test_control_characters_never_reach_the_recap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log's JSON-escaped NUL and control bytes (``\\u0000``, ``\\u0001``) and an
    escape sequence were printed as they were, and written into ``-o``'s file; `report`
    of the same log had none. The recap's text is made safe where all of it is made
    markdown (`literal_markdown`), so stdout and the file hold none, and a sentence said
    in a section is still not said twice."""
    path = tmp_path / "nul.jsonl"
    records = [
        {"role": "user", "content": "Make the cache survive restarts.\x00\x07"},
        {"role": "assistant", "content": "escaped \x00 nul and \x01\x02 controls \x1b[31mred"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert "\\u0000" in path.read_text()
    out_file = tmp_path / "recap.md"
    code, out, _ = run(capsys, "recap", str(path))
    assert code == 0
    assert run(capsys, "recap", str(path), "-o", str(out_file))[0] == 0
    for text in (out, out_file.read_text()):
        assert "escaped" in text and "controls" in text
        assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in text)
        assert text.count("controls") == 1  # said in "Where it stopped" only


def test_no_chunk_of_a_trajectory_is_its_template_s_closing_tag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """mini-swe-agent's request ended ``</pr_description>`` then its instructions: the
    workbench showed a chunk ``You: </pr_description>`` (22 characters, past the minimum
    size) and the recap said "1 merged chunk with no summary". The request is its task
    alone, so no chunk is a tag and every merged chunk has words to summarize."""
    path = Path(__file__).parent / "fixtures/recap/mini_swe_django_11099.traj.json"
    code, out, _ = run(capsys, "chunk", str(path), "--embed", "--format", "json")
    assert code == 0
    data = json.loads(out)
    for key in ("chunks", "merged"):
        assert not [c["text"] for c in data[key] if "pr_description>" in c["text"]]
    code, _, err = run(capsys, "recap", str(path))
    assert code == 0 and "no summary" not in err


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_output_into_a_missing_folder_is_refused_as_every_writer_does(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """`recap -o missing/dir/x.md` created the folders (walk 16, 10); `chunk`, `search`,
    `report` and `eval` say `cannot write ...: No such file or directory` and exit 2."""
    target = tmp_path / "missing" / "dir" / "x.md"
    code, out, err = run(capsys, "recap", str(log), "--format", fmt, "-o", str(target), *CAP)
    assert code == 2 and out == ""
    assert (
        err.strip().splitlines()[-1].endswith(f"cannot write {target}: No such file or directory")
    )
    assert not (tmp_path / "missing").exists()


def test_the_hooks_own_recap_file_still_gets_its_folders(tmp_path: Path) -> None:
    from chunkscope.engine.recap.core import save_recap

    target = tmp_path / "store" / "sub" / "recap.md"
    with pytest.raises(FileNotFoundError):
        save_recap(target, "x\n")
    assert save_recap(target, "x\n", parents=True).read_text() == "x\n"


def test_a_markdown_file_at_a_tiny_budget_holds_it_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`recap architecture_guide.md --budget 20` printed 43 tokens (walk 16, 2): a file
    without a task now gets an empty recap and a note, as a log's too small budget does."""
    code, out, err = run(capsys, "recap", str(SAMPLES / "architecture_guide.md"), "--budget", "20")
    assert code == 0 and out == ""
    assert "0/20 tokens" in err and "too small for even the smallest summary" in err
    assert "over the budget" not in err
    code, out, err = run(
        capsys, "recap", str(SAMPLES / "architecture_guide.md"), "--budget", "20", "--plain"
    )
    assert code == 0 and out and "the newest summary alone is over the budget" in err
