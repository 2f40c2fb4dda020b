"""Walk 56's aside on real Codex CLI 0.144 files (AkashJana18/edgerunner @e38ba726,
codex-session.jsonl): in code mode a patch is a script, ``const patch = "*** Begin
Patch..."; text(await tools.apply_patch(patch));``, which read as ``Called exec_js``
with the script's text where every other patch reads as the files it edits."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.read.formats.codex import code_mode_calls
from chunkscope.engine.recap.collapse import collapse_call

PATCH = (
    "*** Begin Patch\n*** Add File: Cargo.toml\n+[workspace]\n"
    '+members = ["crates/core"]\n*** Update File: src/lib.rs\n@@\n-old\n+new\n*** End Patch'
)


def test_a_code_mode_patch_bound_to_a_name_reads_as_the_patch() -> None:
    script = f"const patch = {json.dumps(PATCH)};\ntext(await tools.apply_patch(patch));"
    assert code_mode_calls(script) == [("apply_patch", {"input": PATCH})]
    said = collapse_call("apply_patch", json.dumps({"input": PATCH}), "Done", agent="codex")
    assert said is not None and "Cargo.toml" in said and "src/lib.rs" in said, said


def test_a_code_mode_patch_passed_as_a_literal_keeps_its_place_among_calls() -> None:
    quoted = "'" + PATCH.replace('"', '\\"').replace("\n", "\\n") + "'"
    script = (
        'await tools.exec_command({"cmd": "ls"});\n'
        f"await tools.apply_patch({quoted});\n"
        'await tools.exec_command({"cmd": "cargo check"});'
    )
    assert (code_mode_calls(script) or [])[1] == ("apply_patch", {"input": PATCH})
    names = [name for name, _ in code_mode_calls(script) or []]
    assert names == ["exec_command", "apply_patch", "exec_command"]


def test_a_patch_the_script_computes_keeps_the_script() -> None:
    """The real file's line 202: the patch is a ``replace`` of another: no literal to
    read, so the script is shown whole."""
    script = (
        f"const patch = {json.dumps(PATCH)};\n"
        'const p2 = patch.replace("old", "older");\ntext(await tools.apply_patch(p2));'
    )
    assert code_mode_calls(script) is None


@given(st.text(min_size=1, max_size=200))
def test_any_patch_text_bound_to_a_name_reads_back_exactly(patch: str) -> None:
    script = f"const p = {json.dumps(patch)};\nawait tools.apply_patch(p);"
    assert code_mode_calls(script) == [("apply_patch", {"input": patch})]


def test_aiders_command_printed_over_two_lines_stays_the_tools(tmp_path: Path) -> None:
    """Walk 57, F9: aider prints a suggested command after ``> `` on its first line only
    (bench/recap_sessions/aider-catalog.md, lines 2152-2153): the next, indented line
    (``    ?? throw new ...``) read as the model's words, glued to its last sentence."""
    from chunkscope.engine.read.parse import load

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2025-04-02 18:40:10\n\n"
        "#### how should the connection string be read?  \n\n"
        "Your current approach is good for local development.\n\n"
        "> Tokens: 7.7k sent, 444 received.  \n"
        '> var s = Environment.GetEnvironmentVariable("MONGO")  \n'
        '    ?? throw new InvalidOperationException("MONGO is required");  \n'
        "> Run shell commands? (Y)es/(N)o [Yes]: d  \n",
        encoding="utf-8",
    )
    source = load(path)
    bot = [t.text for t in source.turns if t.role == "Bot"]
    assert bot == ["Your current approach is good for local development."], bot
    tool = " ".join(t.text for t in source.turns if t.role not in ("Bot", "You"))
    assert "?? throw new InvalidOperationException" in tool, tool
