"""A backend without its API key: each front end says its own way round it. The command
line's error ends "or use --summarizer extractive" (or "--embedder lexical"); the
workbench, which takes no flags, says the key is missing and offers its palette's
offline choice, never the command line's flag (it said both)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chunkscope.engine.errors import BackendError
from tests.pilot import (
    ROOT,
    make_app,
    palette_listed,
    recording_notifications,
    settled,
    until,
    wait_for,
)

SAMPLE = ROOT / "sample_logs" / "docs_cleanup.jsonl"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (
            ["recap", "--summarizer", "llm", "--summary-model", "gpt-4o-mini"],
            "--summarizer extractive",
        ),
        (["chunk", "--embed", "--embedder", "openai", "--model", "e"], "--embedder lexical"),
    ],
)
def test_the_command_line_offers_its_flag(isolated: Path, args: list[str], flag: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "chunkscope", *args, str(SAMPLE)],
        capture_output=True,
        text=True,
        env={k: v for k, v in __import__("os").environ.items() if k != "OPENAI_API_KEY"},
    )
    assert r.returncode == 2, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert "no API key: set OPENAI_API_KEY" in line and line.endswith(f"or use {flag}"), line


def test_the_error_keeps_its_parts() -> None:
    e = BackendError("api.openai.com", "no API key: set OPENAI_API_KEY", offline="--x y")
    assert str(e) == "api.openai.com: no API key: set OPENAI_API_KEY or use --x y"
    assert e.said() == "api.openai.com: no API key: set OPENAI_API_KEY"
    assert str(BackendError("", "HTTP 500")) == BackendError("", "HTTP 500").said() == "HTTP 500"


async def test_the_workbench_offers_its_palette_not_the_flag(isolated: Path) -> None:
    from chunkscope.engine.config.settings import config_path

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[summarizer]\nmodel = "gpt-4o-mini"\n', encoding="utf-8")
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, app)
        shown = recording_notifications(app)
        await pilot.press("ctrl+p", *"summarizer: llm")
        await until(pilot, lambda: palette_listed(app))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.summary_failure, 10), shown
        (toast,) = [s for s in shown if "OPENAI_API_KEY" in s]
        _, panel = app.summary_of(0)
        for said in (toast, panel, app.summary_failure):
            assert "no API key: set OPENAI_API_KEY" in said, said
            assert "--summarizer" not in said, said
        assert "ctrl+p → “summarizer: extractive (offline)”" in toast, toast
