"""Walk 53's findings (the command line on real sessions, after walk 51's fixes): each
test fails on the code before its fix."""

from __future__ import annotations

import json

from chunkscope.engine.recap.collapse import collapse_call


def _run(command: str, result: str) -> str:
    said = collapse_call("Bash", json.dumps({"command": command}), result, agent="claude-code")
    assert said is not None
    return said


def test_a_traceback_keeps_its_angle_brackets_and_says_its_exception() -> None:
    """F11: a run's output lost every ``<word>`` (``File "<string>", line 1, in <module>``
    read ``File " ", line 1, in``: the tag rule of Claude Code's error text), and a failed
    run with a traceback said its first frames, not its exception."""
    out = (
        "Exit code: 1\nTraceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/testbed/pvlib/__init__.py", line 3, in <module>\n'
        "    from pvlib import atmosphere\n"
        "ModuleNotFoundError: No module named 'numpy'"
    )
    said = _run('python -c "import pvlib"', out)
    assert said.endswith("(exit 1): ModuleNotFoundError: No module named 'numpy'"), said
    html = _run("curl -s localhost:8000", "Exit code: 0\n<html><body>Hello page</body></html>")
    assert "<body>" in html, html


def test_a_bash_result_of_no_output_reads_as_no_output() -> None:
    """F9: Claude Code 2.1 writes ``(Bash completed with no output)`` for a command that
    printed nothing; it was said as what the command printed."""
    assert _run("chmod +x run.sh", "(Bash completed with no output)") == (
        "Ran `chmod +x run.sh` (no output)."
    )
