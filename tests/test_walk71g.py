"""Walk 71: recap defects fixed here. F8: Files changed cut to the budget with no "(and N
more ...)" mark, its first folder left out while later ones stayed (the files section was
no list: each line went in on its own). F1: Work state's "Not committed: ... after
editing" named a file the session wrote and then removed, which Files changed leaves out.
F11: the final message split between Where it stopped and What happened, its list's
lead-in said in both. F7: ``review --list`` marked nothing to inject when the only stored
recap was a PreCompact one, while the next SessionStart injected it.

Each test fails on the code before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chunkscope.tui.cli import main


def _env(tmp_path: Path, monkeypatch: Any) -> None:
    for name in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"CHUNKSCOPE_{name}_DIR", str(tmp_path / name.lower()))


def _claude(tmp_path: Path, turns: list[Any], name: str = "s.jsonl") -> Path:
    """A Claude Code session in /p: each turn a user's text ("user", text), the agent's
    text ("text", text), or a tool call and its result ("call", tool, input, result)."""
    rows: list[dict[str, Any]] = []

    def row(role: str, content: Any) -> None:
        n = len(rows)
        rows.append(
            {
                "type": role,
                "uuid": f"m{n}",
                "parentUuid": f"m{n - 1}" if n else None,
                "sessionId": "s",
                "cwd": "/p",
                "timestamp": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z",
                "message": {"role": role, "content": content},
            }
        )

    for n, turn in enumerate(turns):
        if turn[0] == "user":
            row("user", turn[1])
        elif turn[0] == "text":
            row("assistant", [{"type": "text", "text": turn[1]}])
        else:
            _, tool, args, result = turn
            row("assistant", [{"type": "tool_use", "id": f"t{n}", "name": tool, "input": args}])
            row(
                "user",
                [{"type": "tool_result", "tool_use_id": f"t{n}", "content": result}],
            )
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _recap(path: Path, capsys: Any, *args: str) -> str:
    assert main(["recap", str(path), *args]) == 0
    return str(capsys.readouterr().out)


def _section(recap: str, title: str) -> list[str]:
    if f"## {title}\n" not in recap:
        return []
    return recap.split(f"## {title}\n", 1)[1].split("\n\n", 1)[0].splitlines()


#: syn/many-files.jsonl: 12 files written in 6 folders.
WRITTEN = [
    "src/billing/models.py",
    "src/billing/handlers.py",
    "src/billing/invoices.py",
    "src/billing/refunds.py",
    "src/billing/taxes.py",
    "src/config/settings.json",
    "src/config/logging.json",
    "tests/test_models.py",
    "tests/test_handlers.py",
    "tests/test_refunds.py",
    "docs/billing.md",
    "scripts/migrate_ledger.py",
]


def _files_said(lines: list[str]) -> list[str]:
    """The paths Files changed names, in order (a folder's line's files under it), and
    the count its lines say they leave out ("and 3 more", "(and 7 more files)")."""
    out: list[str] = []
    for line in lines:
        if line.startswith("(and "):
            continue
        folder, _, files = line.removeprefix("- ").partition("/: ")
        if not files:
            out.append(re.sub(r" \(.*\)$", "", folder))
            continue
        files = re.sub(r" and \d+ more$", "", files)
        out += [f"{folder}/" + re.sub(r" \(.*?\)$", "", f) for f in files.split(", ")]
    return out


def test_f8_files_changed_cut_to_fit_loses_its_last_files_and_says_how_many(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """syn/many-files.jsonl at every budget: the files said are the list's first ones
    (never the first folder gone while a later one stays), and when some are left out a
    mark counts them."""
    _env(tmp_path, monkeypatch)
    task = "Scaffold the billing service: models, handlers, config and tests."
    turns: list[Any] = [("user", task)]
    turns += [("call", "Write", {"file_path": f"/p/{p}", "content": "x\n"}, "ok") for p in WRITTEN]
    turns.append(("text", "The billing service is scaffolded with its models, handlers and tests."))
    path = _claude(tmp_path, turns)
    marked = 0
    for budget in (80, 100, 120, 150, 200, 300, 1000):
        lines = _section(_recap(path, capsys, "--budget", str(budget)), "Files changed")
        if not lines:
            continue
        said = _files_said(lines)
        assert said == WRITTEN[: len(said)], (budget, lines)
        more = sum(int(n) for n in re.findall(r" and (\d+) more$", "\n".join(lines), re.M))
        if len(said) + more < len(WRITTEN):
            assert lines[-1] == f"(and {len(WRITTEN) - len(said) - more} more files)", (
                budget,
                lines,
            )
            marked += 1
        else:
            assert not lines[-1].startswith("(and "), (budget, lines)
    assert marked >= 2  # (the list is cut at some of these budgets)


def test_f1_work_state_leaves_out_a_file_written_then_removed(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """syn/rm-after-write.jsonl: app.py and a scratch tmp_pack.py written, ``rm
    tmp_pack.py``, no commit: Files changed leaves the scratch file out, and Work state
    names the same files."""
    _env(tmp_path, monkeypatch)
    path = _claude(
        tmp_path,
        [
            ("user", "Write a helper app.py and a scratch script tmp_pack.py, then remove it."),
            ("call", "Write", {"file_path": "/p/app.py", "content": "x = 1\n"}, "ok"),
            ("call", "Write", {"file_path": "/p/tmp_pack.py", "content": "y = 2\n"}, "ok"),
            ("call", "Bash", {"command": "rm tmp_pack.py"}, ""),
            ("text", "Done: app.py is written and the scratch script is removed."),
        ],
    )
    recap = _recap(path, capsys)
    assert _section(recap, "Files changed") == ["- app.py (written)"]
    assert _section(recap, "Work state") == [
        "Not committed: no commit in this session after editing app.py."
    ]
    # removed after a commit: a change of the work's, said deleted and uncommitted in both
    path = _claude(
        tmp_path,
        [
            ("user", "Write app.py and tmp_pack.py, commit, then remove tmp_pack.py."),
            ("call", "Write", {"file_path": "/p/app.py", "content": "x = 1\n"}, "ok"),
            ("call", "Write", {"file_path": "/p/tmp_pack.py", "content": "y = 2\n"}, "ok"),
            (
                "call",
                "Bash",
                {"command": "git commit -am 'add files'"},
                "[main abc1234] add files\n 2 files changed",
            ),
            ("call", "Bash", {"command": "rm tmp_pack.py"}, ""),
            ("text", "Done: the scratch script is removed."),
        ],
        "t.jsonl",
    )
    recap = _recap(path, capsys)
    assert "- tmp_pack.py (deleted)" in _section(recap, "Files changed")


#: syn/final-list.jsonl's closing message: a sentence, then two lists under bold lead-ins.
FINAL = (
    "The admin dashboard has been implemented with React, Vite, and Tailwind CSS.\n\n"
    "**Key Features Implemented:**\n"
    "*   **Responsive Layout:** Sidebar navigation and top header with search and user"
    " profile, collapsing to a drawer on small screens.\n"
    "*   **Dashboard:** Stats cards with trend indicators, sales charts placeholders, and a"
    ' "Recent Orders" data table with status badges.\n'
    "*   **Products:** Grid view of product cards with images, ratings, and price, with a"
    " filter bar for categories and price ranges.\n"
    "*   **Routing:** Functional navigation between Dashboard and Products pages using"
    " `react-router-dom`.\n"
    '*   **Design:** Matches the "Light" theme with blue primary colors and clean UI.\n\n'
    "**Artifacts:**\n"
    "*   **GitHub Repo:** [acme/dashboard](https://github.com/acme/dashboard)\n"
    "*   **Preview URL:** https://preview.example.com/dashboard\n"
    "*   **Build:** `/dist` directory is ready for deployment."
)


def test_f11_what_happened_does_not_say_again_a_list_where_it_stopped_says(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """syn/final-list.jsonl at 1000 and 300: the lead-in ``**Key Features Implemented:**``
    was said in Where it stopped and again in What happened, with an item of its list the
    line there cut ("**Routing:** ..."); an item of a list Where it stopped gives (its
    lead-in said there) is that section's, said there or counted in its cut."""
    _env(tmp_path, monkeypatch)
    path = _claude(
        tmp_path,
        [
            ("user", "Build the admin dashboard from the Figma design and push it."),
            ("text", "I will scaffold the project with Vite first, then build the pages."),
            ("text", FINAL),
        ],
    )
    for budget in ("1000", "300"):
        recap = _recap(path, capsys, "--budget", budget)
        stopped = "\n".join(_section(recap, "Where it stopped"))
        # (none at all: every sentence left is the last message's, said above: walk 72, F3)
        happened = recap.split("## What happened\n", 1)[1] if "## What happened\n" in recap else ""
        # (at 300 the list may be left out, the message's answer said first: walk 72, F3)
        assert "Key Features Implemented" in stopped or budget == "300", (budget, recap)
        assert recap.count("Key Features Implemented") == 1, (budget, recap)
        assert "**Routing:**" not in happened, (budget, happened)
        if "Artifacts" in stopped:
            assert "**GitHub Repo:**" not in happened and "**Preview URL:**" not in happened
        # the message's opening, which Where it stopped does not say, is told once
        assert recap.count("The admin dashboard has been implemented") <= 1, (budget, recap)


def test_f7_review_marks_the_precompact_recap_the_next_start_injects(tmp_path: Path) -> None:
    """syn/precompact-only.sh: a session's recap stored before a compaction, the session
    killed before its end, its transcript outside Claude Code's folder for the project:
    the next start injects it, and ``review --list`` marks it ``*`` (one choice,
    `next_start`)."""
    from tests.test_hooks import Claude, _context

    claude = Claude(tmp_path)
    elsewhere = tmp_path / "logs"
    elsewhere.mkdir()
    s1 = _claude(
        elsewhere,
        [
            ("user", "Fix the login bug in api/login.py and add a test."),
            (
                "call",
                "Edit",
                {"file_path": "/p/api/login.py", "old_string": "a", "new_string": "b"},
                "ok",
            ),
            ("text", "The login bug is fixed: the password check now compares hashes."),
        ],
        "s1.jsonl",
    )

    def payload(event: str, session: str, **extra: str) -> dict[str, Any]:
        return {
            "session_id": session,
            "transcript_path": str(elsewhere / f"{session}.jsonl"),
            "cwd": str(claude.project),
            "hook_event_name": event,
            **extra,
        }

    done = claude.run("hook", "pre-compact", stdin=payload("PreCompact", "s1", trigger="auto"))
    assert done.returncode == 0, done.stderr
    claude.stored()
    listed = claude.run("review", "--list", str(claude.project))
    assert listed.returncode == 0, listed.stderr
    rows = [r for r in listed.stdout.decode().splitlines() if r.rstrip().endswith(s1.name)]
    assert len(rows) == 1 and rows[0].startswith("*"), listed.stdout.decode()
    start = claude.run(
        "hook",
        "session-start",
        "--build-wait",
        "120",
        stdin=payload("SessionStart", "s2", source="startup"),
    )
    assert f"from {s1.name}" in _context(start)
