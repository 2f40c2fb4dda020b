"""Walk 72, F2 and F3: a message's answer is its opening sentence, and it has no number
or path more often than the details after it do; picked by `has_content` alone, it was
lost.

- F2: "Subagent results" gave a subagent's third ranked list item ("**Massaman Curry**
  ... won CNN's poll in 2011") as its result, where the report opens on its answer
  ("Based on my web search, **Green Curry** and **Red Curry** appear to be the most
  popular ...").
- F3: the last message's first sentence (its answer) went to What happened while Where
  it stopped opened on its second paragraph ("Interestingly, **Massaman Curry** ...").

Each test fails on the code before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.tui.cli import main

REPORT = (
    "Based on my web search, **Green Curry** and **Red Curry** appear to be the most popular"
    " Thai curries, with these two consistently mentioned as the top favorites both in"
    " Thailand and internationally.\n\n## Key Findings\n\n**Most Popular Thai Curries (in"
    " order of general popularity):**\n\n1. **Green Curry (Gaeng Khiao Wan)** - Often cited"
    " as the most popular Thai curry globally.\n\n2. **Red Curry (Gaeng Phet)** - A close"
    " second in popularity.\n\n3. **Massaman Curry** - Extremely popular, especially in"
    " Western countries. It won CNN's \"World's 50 Most Delicious Foods\" poll in 2011,"
    " ranking #1.\n\n4. **Yellow Curry (Gaeng Karee)** - Popular as a beginner-friendly"
    " option."
)
ANSWER = (
    "The search results indicate that **Green Curry** is generally considered the most"
    " popular Thai curry color globally, followed closely by **Red Curry**."
)
LAST = (
    f"{ANSWER} \n\nInterestingly, **Massaman Curry** (brown/tan in color) was voted the"
    " world's #1 most delicious food by CNN in 2011, though it's technically a Thai-Indian"
    " fusion curry.\n\nThe popularity varies by context:\n- **Green curry** - most iconic"
    " and popular overall despite being the spiciest\n- **Red curry** - close second,"
    " popular for its robust flavor and medium heat\n- **Yellow curry** and **Massaman** -"
    " often more popular with newcomers due to milder spice levels"
)


@pytest.fixture
def curry(tmp_path: Path) -> Path:
    """The walk's repro (sessionshare-4b2030ed in bench/recap_sessions), its messages
    alone: a request, a Task call, the subagent's report, the closing answer."""
    common = {"sessionId": "s", "cwd": "/p", "gitBranch": "main"}
    request = "spawn a subagent to perform a websearch to determine the most popular thai curry"
    task = {"description": "Search popular Thai curry color", "prompt": "Search the web."}
    said = [{"type": "text", "text": REPORT}]
    contents: list[tuple[str, object]] = [
        ("user", request),
        ("assistant", [{"type": "tool_use", "id": "t1", "name": "Task", "input": task}]),
        ("user", [{"tool_use_id": "t1", "type": "tool_result", "content": said}]),
        ("assistant", [{"type": "text", "text": LAST}]),
    ]
    records = [
        {
            "type": role,
            "uuid": f"u{k}",
            "parentUuid": f"u{k - 1}" if k else None,
            "timestamp": f"2026-01-01T00:00:0{k}Z",
            "message": {"role": role, "content": content},
            **common,
        }
        for k, (role, content) in enumerate(contents)
    ]
    path = tmp_path / "curry.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _sections(path: Path, budget: int, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """The recap of `path` at `budget` tokens, each section's text by its heading."""
    assert main(["recap", "--budget", str(budget), str(path)]) == 0
    out: dict[str, str] = {}
    for part in capsys.readouterr().out.split("\n## "):
        head, _, body = part.lstrip("# ").partition("\n")
        out[head] = body.strip()
    return out


def test_f2_a_subagent_s_result_is_its_answer_sentence(
    curry: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's opening answer is its line's first sentence, not its list's third item."""
    line = _sections(curry, 1000, capsys)["Subagent results"]
    assert line.startswith(
        "- Search popular Thai curry color: Based on my web search, **Green Curry** and **Red"
    ), line
    assert "Massaman" not in line.split(". ")[0]


@pytest.mark.parametrize("budget", [300, 1000])
def test_f3_where_it_stopped_opens_on_the_last_message_s_answer(
    curry: Path, budget: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last message's answer opens Where it stopped, not its aside ("Interestingly,
    **Massaman Curry** ..."), and What happened says none of its sentences again (one
    the fit left out of Where it stopped it may tell: said nowhere, a fact was lost)."""
    sections = _sections(curry, budget, capsys)
    where = sections["Where it stopped"]
    assert where.startswith(ANSWER), where
    happened = sections.get("What happened", "")
    assert "Green Curry** is generally considered" not in happened, happened
    if "Interestingly" in where:
        assert "Interestingly" not in happened, happened


def test_f3_no_sentence_of_the_last_message_is_said_in_both_sections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No sentence of the last message is said by both Where it stopped and What happened;
    one the fit left out of Where it stopped may be told by What happened (said nowhere,
    spotter-ae4a77f8 lost a fact the recap checks count: `bench/recap_facts.py`)."""
    steps = " ".join(
        f"Step {k}: open terminal number {k} and touch your **backup key** there when it"
        f" flashes, then wait for the prompt to confirm that login {k} worked fine."
        for k in range(1, 9)
    )
    last = f"I have added your backup YubiKey to the `u2f_keys` file.\n\n{steps}"
    common = {"sessionId": "s", "cwd": "/p"}
    contents = [
        ("user", "add my backup yubikey to the pam u2f config please"),
        ("assistant", [{"type": "text", "text": last}]),
    ]
    records = [
        {
            "type": role,
            "uuid": f"u{k}",
            "parentUuid": f"u{k - 1}" if k else None,
            "timestamp": f"2026-01-01T00:00:0{k}Z",
            "message": {"role": role, "content": content},
            **common,
        }
        for k, (role, content) in enumerate(contents)
    ]
    path = tmp_path / "yubikey.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    sections = _sections(path, 300, capsys)
    where = sections["Where it stopped"]
    assert where.startswith("I have added your backup YubiKey"), where
    happened = sections.get("What happened", "")
    for k in range(1, 9):
        step = f"open terminal number {k} and touch"
        assert not (step in where and step in happened), (k, where, happened)
