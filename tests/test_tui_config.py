"""The workbench uses the config file's [embedder] section, key included, and never shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeserver import FakeOpenAIServer
from tests.pilot import SAMPLE, SIZE, make_app, settled

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
