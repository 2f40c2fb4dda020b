"""The workbench uses the config file's [embedder] section, key included, and never shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeserver import FakeOpenAIServer
from tests.pilot import SAMPLE, SIZE, make_app, settled, until

KEY = "sk-tui-PLANTED-9876543210"


pytestmark = pytest.mark.usefixtures("isolated")


async def test_config_embedder_reaches_the_workbench(isolated: Path) -> None:
    with FakeOpenAIServer(dim=16) as server:
        (isolated / "config").mkdir()
        (isolated / "config" / "config.toml").write_text(
            f'[embedder]\nname = "openai"\nmodel = "nomic-embed-text"\n'
            f'base_url = "{server.base_url}"\napi_key = "{KEY}"\n',
            encoding="utf-8",
        )
        app = make_app(SAMPLE)
        async with app.run_test(size=SIZE) as pilot:
            await settled(pilot, app)
            assert app.pipe is not None
            assert app.pipe.params.embedder.name == "openai"
            assert app.pipe.params.embedder.model == "nomic-embed-text"
            screen = app.export_screenshot()
            header = app.header_info()
        requests = server.requests_to("/embeddings")
    assert requests and requests[0].headers.get("authorization") == f"Bearer {KEY}"
    assert KEY not in repr(app.pipe.params) and KEY not in str(header) and KEY not in screen


def _config(isolated: Path, text: str) -> None:
    (isolated / "config").mkdir(exist_ok=True)
    (isolated / "config" / "config.toml").write_text(text, encoding="utf-8")


PROFILE = """
[profiles.tight]
min_chars = 200
std_k = 1.25
max_passes = 2
budget = 1500
scorer = "salience"
"""


async def test_a_profile_at_start_is_layered_as_on_the_command_line(isolated: Path) -> None:
    """Defaults < profile < the flags given: the profile's scorer is used, and --budget /
    --min-chars given at start win over the profile's (as `chunkscope recap` does)."""
    _config(isolated, PROFILE)
    app = make_app(SAMPLE, profile="tight", budget=700, min_chars=40)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.scorer == "salience"  # from the profile (it used to be ignored)
        assert (app.budget, app.min_chars) == (700, 40)  # the flags win
        assert (app.merge_params.std_k, app.merge_params.max_passes) == (1.25, 2)
        assert app.pipe is not None and app.pipe.params.min_chars == 40
        assert app.selection is not None and app.selection.budget == 700


async def test_loading_a_profile_uses_its_values_over_the_defaults(isolated: Path) -> None:
    _config(isolated, PROFILE)
    app = make_app(SAMPLE, budget=300)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        app.load_profile("tight")
        await settled(pilot, app)
        assert (app.budget, app.scorer, app.min_chars) == (1500, "salience", 200)
        assert app.pipe is not None and app.pipe.params.merge.max_passes == 2


async def test_the_palette_summarizer_keeps_the_configured_model_and_url(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing listens on port 9: a summary started before the app exits fails at once
    # instead of retrying for seconds (1 + 2 + 4 s) in a thread the test's event loop
    # waits for when it closes.
    monkeypatch.setenv("CHUNKSCOPE_MAX_RETRIES", "0")
    _config(
        isolated,
        '[summarizer]\nname = "llm"\nmodel = "qwen2.5:7b"\nbase_url = "http://127.0.0.1:9/v1"\n',
    )
    app = make_app(SAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pipe is not None and app.workbench.view is not None)
        app.use_summarizer("extractive")
        assert app.pipe is not None and app.pipe.params.summarizer.model is None
        # Walk 6: after a switch whose summaries fail, the Summary panel kept showing the
        # previous summarizer's summary as current (at 100%), and the recap its recap.
        from chunkscope.tui.widgets.summary_panel import SummaryPanel

        panel = app.workbench.query_one(SummaryPanel)
        await until(pilot, lambda: panel._shown is not None and panel._shown[1] is not None)
        await until(pilot, lambda: app.selection is not None)
        app.use_summarizer("llm")
        spec = app.pipe.params.summarizer
        assert (spec.name, spec.model, spec.base_url) == (
            "llm",
            "qwen2.5:7b",
            "http://127.0.0.1:9/v1",
        )
        assert panel._shown[1] is None and app.selection is None  # not the old ones
        await until(pilot, lambda: "The llm summarizer failed: " in panel._shown[2])
        assert "no summary is shown" in panel._shown[2].lower()


async def test_quitting_does_not_wait_for_a_summary_s_retries(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An LLM summarizer whose endpoint answers 503 waits 30 s before it retries; `q`
    # stops it, so the app (and its summary thread) ends now, not after the backoff.
    # (The workbench asks for the first chunk's summary as soon as the file is open.)
    import time

    from tests.fakeserver import Fault

    monkeypatch.setenv("CHUNKSCOPE_BACKOFF", "30")
    with FakeOpenAIServer(dim=16) as server:
        server.always(Fault.http(503))
        _config(
            isolated,
            f'[summarizer]\nname = "llm"\nmodel = "m"\nbase_url = "{server.base_url}"\n',
        )
        app = make_app(SAMPLE)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: bool(server.requests_to("/chat/completions")))
            pressed = time.monotonic()
            await pilot.press("q")
        quit_took = time.monotonic() - pressed
        sent = len(server.requests_to("/chat/completions"))
    assert quit_took < 15, quit_took  # the first backoff alone is 30 s
    assert sent == 1  # one summary asked, not retried after the stop
