"""Walk 69 (fixer a): aider chat histories on new real public files (sources in the
walk's sources.md), the findings fixed here:

- F1: a multi-line ``/ask`` or ``/code`` request was not known as repeated by aider's
  ``####`` echo of it (only a one-line echo was), so the Task said it twice;
- F7: a request the model never answered, aider's ``> litellm.APIConnectionError: ...``
  lines after it, got no "Where it stopped" (Claude Code says "No answer to the user's
  last message (...): ERROR" for the same);
- F9: aider's question after a ``/run`` ("Add 0.1k tokens of command output to the
  chat? (Y)es/(N)o [Yes]: n") was given as the command's result, and the ``/run`` was
  said twice in What happened.

Each test builds a small input modelled on the real file and fails on the code before
its fix."""

from __future__ import annotations

from pathlib import Path

from chunkscope.engine.read.formats.aider import REPEATED
from chunkscope.engine.read.parse import load
from chunkscope.engine.recap.sections import extract_sections


def _aider(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(text, encoding="utf-8")
    return path


def _section(path: Path, name: str) -> list[str]:
    """The lines of the recap section `name` of the file at `path` ([] when it has none)."""
    found = (s.lines for s in extract_sections(load(path).messages) if s.name == name)
    return list(next(found, ()))


def _history(text: str) -> str:
    """`text` with aider's two trailing spaces on its ``####`` and ``> `` lines, as aider
    writes them (markdown line breaks)."""
    return "".join(
        line + "  \n" if line.startswith(("####", ">")) else line + "\n"
        for line in text.splitlines()
    )


# Ahmedrali/rfp_response_platform backend/.aider.chat.history.md (lines 5921-5929), short
RFP_ASK = _history(
    """# aider chat started at 2025-05-24 16:38:38

> Aider v0.82.2

#### /ask now it starts with no errors, but the register curl fails: curl -X POST \\
####          -H "Content-Type: application/json" \\
####
####          -d '{"companyName": "Innovatech Solutions"}'
#### how can we fix this ror?

#### now it starts with no errors, but the register curl fails: curl -X POST \\
####          -H "Content-Type: application/json" \\
####
####          -d '{"companyName": "Innovatech Solutions"}'
#### how can we fix this ror?
> http://localhost:8000/api/v1/companies/register
> Add URL to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: n

You're in a common situation during development: the table already exists.

#### /code fix it

#### fix it

I changed the startup to skip creating existing tables.
"""
)


def test_f1_a_multi_line_request_echoed_by_aider_is_read_once(tmp_path: Path) -> None:
    source = load(_aider(tmp_path, RFP_ASK))
    requests = [(t.text, t.source_line, t.last_line) for t in source.turns if t.role == "You"]
    assert [(first, last) for _, first, last in requests] == [(5, 15), (21, 23)]
    assert requests[0][0].startswith("/ask now it starts")
    assert requests[0][0].count("how can we fix this ror?") == 1
    assert source.stripped == {REPEATED: 2}
    task = _section(source.path, "task")
    assert task[0].count("how can we fix this ror?") == 1, task
    assert task[0].startswith("now it starts with no errors"), task


def test_f1_a_following_request_that_differs_is_kept(tmp_path: Path) -> None:
    """A next ``####`` message that opens like the request but goes on otherwise is the
    user's own: read (not a repeat)."""
    cut = RFP_ASK.index("#### now it starts")
    text = RFP_ASK[:cut] + RFP_ASK[cut:].replace("how can we fix this ror?", "and why?", 1)
    source = load(_aider(tmp_path, text))
    assert source.stripped == {REPEATED: 1}  # the /code fix it echo only
    first = next(t.text for t in source.turns if t.role == "You")
    assert first.count("how can we fix this ror?") == 1
    assert first.rstrip().endswith("and why?")


# Ahmedrali/rfp_response_platform .aider.chat.history.md (lines 412-417): aider v0.82's
# /run writes no output to the history, only its question and, on a yes, a count
RFP_RUN = _history(
    """# aider chat started at 2025-05-24 16:38:38

> Aider v0.82.2

#### fix the import error in main.py so the server starts

The module path is wrong. I changed the import in main.py to use the package name.

> Tokens: 1k sent, 20 received.
> Applied edit to main.py

#### /run cd backend & uvicorn main:app --reload
> Add 0.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y
> Added 6 lines of output to the chat.

#### /run pytest -q
> Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: n
"""
)


def test_f9_aider_s_question_after_a_run_is_no_output_of_it(tmp_path: Path) -> None:
    """The output of a ``/run`` is not in the log, whatever the user answered: its
    collapsed call and the Last check say so, as for any call without a result."""
    from chunkscope.engine.recap.collapse import collapse_messages

    path = _aider(tmp_path, RFP_RUN)
    source = load(path, keep_messages=True)
    tools = [t.text for t in collapse_messages(source.messages, readable=True) if t.role == "Tool"]
    assert tools == [
        "Edited main.py.",
        "Ran `cd backend & uvicorn main:app --reload` (no result in the log).",
        "Ran `pytest -q` (no result in the log).",
    ]
    assert _section(path, "outcome") == ["Last check: `pytest -q` -> no result in the log"]


def test_f9_a_run_is_said_once_in_a_summary() -> None:
    """The user's ``/run CMD`` line is the command its collapsed call says: code, not
    the user's words (as Claude Code's ``! CMD``), so a summary says the run once."""
    from chunkscope.engine.summarize.extractive import ExtractiveSummarizer

    ran = "Ran `cd backend & uvicorn main:app --reload` (no result in the log)."
    chunk = f"You: /run cd backend & uvicorn main:app --reload\nTool: {ran}"
    assert ExtractiveSummarizer().summarize(chunk).summary == ran


# Akash-Modi104/trading-bot .aider.chat.history.md (its last session, short): the model's
# API failed on each try, no answer came
TRADING_BOT = _history(
    """# aider chat started at 2026-04-26 20:18:09

> /opt/trading-bot/venv/bin/aider --model ollama/qwen2.5:7b-instruct-q4_K_M --yes
> Aider v0.86.2
> Model: ollama/qwen2.5:7b-instruct-q4_K_M with whole edit format

#### how to fix the server it is notloading
> litellm.APIConnectionError: OllamaException - {"error":"model requires more system memory (5.7 GiB) than is available (5.5 GiB)"}
> Retrying in 0.2 seconds...
> litellm.APIConnectionError: OllamaException - {"error":"model requires more system memory (5.7 GiB) than is available (5.5 GiB)"}
> Retrying in 0.5 seconds...
> litellm.APIConnectionError: OllamaException - Server disconnected without sending a response.
"""  # noqa: E501
)


def test_f7_an_aider_request_the_api_failed_on_has_no_answer(tmp_path: Path) -> None:
    """As Claude Code's API errors: the last request got none but the errors."""
    assert _section(_aider(tmp_path, TRADING_BOT), "last") == [
        'No answer to the user\'s last message ("how to fix the server it is notloading"):'
        " API error: model requires more system memory (5.7 GiB) than is available"
        " (5.5 GiB) (2 attempts)."
    ]


def test_f7_a_command_typed_after_it_is_no_message_to_answer(tmp_path: Path) -> None:
    """haav-catalog (bench): the API refused the request, the user typed ``/quit``: the
    request is the one with no answer, not the ``/quit``."""
    error = (
        '> litellm.BadRequestError: AnthropicException - b\'{"type":"error","error":'
        '{"type":"invalid_request_error","message":"Your credit balance is too low to'
        " access the Anthropic API.\"}}'\n"
    )
    text = _history(
        "# aider chat started at 2025-06-02 09:12:37\n\n#### add logging to the controller\n\n"
        "I added the logging.\n\n#### /ask can docker compose build an image from docker hub?"
        "\n\n#### can docker compose build an image from docker hub?\n"
    )
    path = _aider(tmp_path, f"{text}{error}\n#### /quit\n")
    assert _section(path, "last") == [
        "No answer to the user's last message (\"can docker compose build an image from docker"
        ' hub?"): API error: Your credit balance is too low to access the Anthropic API.'
    ]
