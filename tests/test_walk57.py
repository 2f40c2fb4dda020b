"""Walk 57 (the recap and summaries on real sessions): the recap's sections. Findings
F1 ("(and N more items)" counted an item cut inside and an item's own list as the list's,
and two lists' marks read the same), F8 (a Where it stopped said whole repeated the Open
question below it) and F10 (a subagent's report said by its headings, a label dropped
while its value was kept); each test fails on the code before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.sections import Section, extract_sections, fit_sections
from chunkscope.engine.tokens import get_counter

_BASE = {"sessionId": "s1", "cwd": "/tmp/proj"}


def _claude(tmp_path: Path, steps: list[tuple[str, Any]]) -> list[Section]:
    """The sections of a Claude Code log made of `steps`: ("user", text), ("bot", text)
    or ("task", (prompt, report)): a subagent's call and its result."""
    rows: list[dict[str, Any]] = []
    parent = None
    for n, (kind, what) in enumerate(steps):
        uid = f"r{n}"
        stamp = f"2026-01-01T10:{n // 60:02d}:{n % 60:02d}Z"
        row: dict[str, Any] = {**_BASE, "uuid": uid, "parentUuid": parent, "timestamp": stamp}
        if kind == "user":
            row |= {"type": "user", "message": {"role": "user", "content": what}}
        elif kind == "bot":
            content = [{"type": "text", "text": what}]
            row |= {"type": "assistant", "message": {"role": "assistant", "content": content}}
        else:
            prompt, report = what
            args = {"description": prompt, "prompt": prompt, "subagent_type": "general-purpose"}
            use = {"type": "tool_use", "id": f"t{n}", "name": "Task", "input": args}
            row |= {"type": "assistant", "message": {"role": "assistant", "content": [use]}}
            rows.append(row)
            parent, uid = uid, f"r{n}b"
            result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": report}
            row = {**_BASE, "uuid": uid, "parentUuid": parent, "timestamp": stamp}
            row |= {"type": "user", "message": {"role": "user", "content": [result]}}
        rows.append(row)
        parent = uid
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return extract_sections(load(path).messages)


def _item(tag: str) -> str:
    """A list item of three sentences, each with `tag` in it (to tell what is said)."""
    return (
        f"The {tag} path in src/{tag}.py fails 2 tests. "
        f"Its caller in src/{tag}_api.py retries 3 times on that. "
        f"A fix for {tag} is one line in src/{tag}.py."
    )


_REVIEW = (
    "**Findings**\n"
    + "\n\n".join(f"{n}. {_item(f'find{n}')}" for n in range(1, 5))
    + "\n\n**Answers**\n"
    + "\n\n".join(f"{n}. {_item(f'ans{n}')}" for n in range(1, 4))
    + "\n\n4. The missing concerns are:\n"
    + "\n".join(f"{n}. Concern {n} in src/sub{n}.py is not handled." for n in range(1, 6))
    + "\n\nThat is the whole review, with 9 points."
)


def test_f1_more_items_counts_items_not_said_at_all_and_names_each_list(
    tmp_path: Path,
) -> None:
    """Walk 57, F1: a list cut inside an item counted that item among the "more"; an
    item's own list (``4. The missing concerns are:`` then ``1. ...`` to ``5.``) was
    numbered on as the list's items 5 to 9; and two lists' marks both read "(and 5 more
    items)". N is the number of items of that list none of whose words is said, and
    each list's mark is told apart (by its title)."""
    sections = _claude(tmp_path, [("user", "Review the plan."), ("bot", _REVIEW)])
    (where,) = (s for s in sections if s.name == "last")
    counter = get_counter()
    sizes = {"find": 4, "ans": 4}
    checked = named = 0
    for allowance in range(40, 900, 7):
        fitted = fit_sections([where], allowance, counter)
        lines = fitted[0].lines if fitted else ()
        marks = [ln for ln in lines if ln.startswith("(and ")]
        if len(marks) > 1:
            assert len(set(marks)) == len(marks), lines  # each list's own mark
            named += 1
        for mark in marks:
            m = re.match(r"\(and (\d+) more items?(?: under (\w+))?", mark)
            assert m, mark
            # the list it is of: its title, else the last item said before it
            before = lines[: lines.index(mark)]
            kind = {"Findings": "find", "Answers": "ans"}.get(m.group(2) or "", "")
            if not kind:
                kind = "ans" if any("ans" in ln for ln in before) else "find"
            said = [n for n in range(1, 5) if any(f"{kind}{n}" in ln for ln in lines)]
            assert int(m.group(1)) == sizes[kind] - max(said), (allowance, lines)
            checked += 1
        assert not any("sub" in ln for ln in lines if ln.startswith("(and"))
    assert checked and named


def _recap(tmp_path: Path, monkeypatch: Any, capsys: Any, messages: list[str]) -> str:
    """`chunkscope recap` (markdown, default budget) of a plain log of `messages`: the
    user's, the agent's, in turn."""
    from chunkscope.tui.cli import main

    for name in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"CHUNKSCOPE_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rows = [
        {
            "role": "assistant" if n % 2 else "user",
            "content": text,
            "timestamp": f"2026-02-13T11:{n:02d}:00",
        }
        for n, text in enumerate(messages)
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert main(["recap", str(path)]) == 0
    return str(capsys.readouterr().out)


def test_f8_a_question_in_where_it_stopped_said_whole_is_said_once(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """Walk 57, F8: Where it stopped said whole (the message on one line) kept its
    question, and the Open question section said it again right below. The question is
    said once, in the Open question section."""
    question = "Could you please share the HTML and CSS files that style these buttons?"
    out = _recap(
        tmp_path,
        monkeypatch,
        capsys,
        [
            "Make both buttons black.",
            "I need to see the files for the buttons that show when + is pressed. "
            f"{question} Specifically, I need the file that sets their color. Once you "
            "share them, I can make both buttons black.",
        ],
    )
    assert out.count(question) == 1, out
    assert f"## Open question to the user\n{question}" in out, out
    assert "Specifically, I need the file that sets their color." in out, out


def test_f8_a_question_that_is_a_list_item_is_said_once_in_its_list(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """Walk 57, F8 (its seed-jsonl repro): the question is one of "two things left to
    decide", a list's item; said whole, Where it stopped says it in its list, and the
    Open question section does not say it again."""
    question = "Should the database live in ~/.cache or in the project folder?"
    out = _recap(
        tmp_path,
        monkeypatch,
        capsys,
        [
            "Move the embedding cache to SQLite and tell me what is left.",
            "The cache now lives in engine/sqlite_cache.py and all 19 tests pass.\n\n"
            f"Two things are left for you to decide:\n- {question}\n"
            "- Whether to keep the old dict cache as a fallback\n"
            "- `CHUNKSCOPE_CACHE_DIR` as the override, as you asked\n\nI stopped there.",
        ],
    )
    assert out.count(question) == 1, out
    assert f"Two things are left for you to decide: {question}" in out, out


_VERSIONS = (
    "Perfect! I now have all the version information needed.\n\n"
    "## OpenTelemetry Package Versions for mix.exs\n\n"
    "### 1. **opentelemetry_api**\n"
    "- **Latest Version:** 1.5.0 (released October 17, 2025)\n"
    "- **Recommended Constraint:** `~> 1.5`\n\n"
    "### 2. **opentelemetry**\n"
    "- **Latest Version:** 1.7.0 (released October 17, 2025)\n"
    "- **Recommended Constraint:** `~> 1.7`\n\n"
)


def _subagent_line(tmp_path: Path, report: str) -> str:
    sections = _claude(
        tmp_path,
        [
            ("user", "Pin the OpenTelemetry packages in mix.exs."),
            ("task", ("Check OTEL hex package versions", report)),
            ("bot", "I pinned the versions in mix.exs."),
        ],
    )
    (found,) = (s for s in sections if s.name == "subagents")
    (line,) = found.lines
    return line


def test_f10_a_subagent_line_says_no_heading_and_no_value_without_its_label(
    tmp_path: Path,
) -> None:
    """Walk 57, F10: the report's heading was said as its first sentence, glued to the
    next ("OpenTelemetry Package Versions for mix.exs **Latest Version:** 1.5.0"), and
    1.5.0 read as OpenTelemetry's version: it is opentelemetry_api's, whose heading was
    dropped. The report's own sentence is said, no heading and no label-and-value item
    whose subject is a heading."""
    summary = "The exporter package `opentelemetry_exporter` is still maintained."
    line = _subagent_line(tmp_path, _VERSIONS + f"## Summary\n\n{summary}")
    assert "Package Versions" not in line, line
    assert "1.5.0" not in line and "Latest Version" not in line, line
    assert line.endswith(summary), line


def test_f10_an_outline_of_labels_alone_says_no_value_without_what_it_is_of(
    tmp_path: Path,
) -> None:
    """Walk 57, F10: a report that is only headings and label-and-value items has no
    sentence of its own to say; its values are not said without what they are of."""
    line = _subagent_line(tmp_path, _VERSIONS)
    assert "1.5.0" not in line and "1.7.0" not in line, line
    assert "Package Versions for mix.exs **" not in line, line


def test_f10_a_subagent_line_says_its_second_fact_only_when_there_is_room(
    tmp_path: Path,
) -> None:
    """Walk 57, F10 (its fix): the report's own sentences are longer than the heading the
    line used to open with, so the line is its first fact, and both its facts only when
    the recap has room for them (`Section.full`): a short budget keeps the section."""
    first = "The exporter package `opentelemetry_exporter` is still maintained."
    second = "It was updated in October 2025 and needs no replacement."
    sections = _claude(
        tmp_path,
        [
            ("user", "Pin the OpenTelemetry packages in mix.exs."),
            ("task", ("Check OTEL hex package versions", f"{first} {second}")),
            ("bot", "I pinned the versions in mix.exs."),
        ],
    )
    (found,) = (s for s in sections if s.name == "subagents")
    assert found.lines[0].endswith(first) and second not in found.lines[0], found
    assert found.full[0].endswith(f"{first} {second}"), found
    counter = get_counter()
    small = fit_sections([found], 30, counter, stretch=True)
    assert small and small[0].lines[0].endswith(first), small
    wide = fit_sections([found], 200, counter, stretch=True)
    assert wide[0].lines[0].endswith(second), wide


def test_f10_the_reports_own_prose_comes_before_an_outlines_items(tmp_path: Path) -> None:
    """Walk 57, F10: "the first real sentence of the report preferred": an outline item
    under a heading ("Loads messages via ...", of the heading's SessionLive) or a label
    whose value is no sentence (``**Location:** `path` ``) says less than the report's
    own paragraph; that is said first."""
    prose = "The renderer in lib/transcript_renderer.ex drops 2 fields of every message."
    report = (
        "## 1. How SessionLive renders\n\n"
        "**Location:** `lib/spotter_web/live/session_live.ex`\n\n"
        "- Loads messages via `load_session_messages/1`\n"
        "- Calls `TranscriptRenderer.render/2` with `session_cwd`\n\n"
        f"## Summary\n\n{prose}"
    )
    line = _subagent_line(tmp_path, report)
    assert line.endswith(prose), line
    assert "Location" not in line and "Loads messages" not in line, line
