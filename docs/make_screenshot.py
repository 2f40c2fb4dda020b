"""Draw the docs' screenshots from the workbench itself: docs/workbench.svg (the main
screen, the README's) and docs/workbench-search.svg (the Search panel answering).

The app runs headless (Textual's ``run_test``) at 160x48 on the bundled sample log with
the offline embedder and summarizer and fixed timing texts, as the snapshot tests do;
once the run, the summaries and the recap are in, it saves the screen, then asks the
Search panel a question and saves it again. Run it after a change to what the workbench
draws:

    python docs/make_screenshot.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "docs"))
from generate import QUESTION, SAMPLE  # noqa: E402  (the docs' examples ask the same)

#: Where the screenshots go and the terminal size they are drawn at.
OUT = ROOT / "docs" / "workbench.svg"
OUT_SEARCH = ROOT / "docs" / "workbench-search.svg"
SIZE = (160, 48)


async def _draw(out: Path, out_search: Path) -> None:
    from chunkscope.tui.app import ChunkscopeApp, StartOptions
    from tests.pilot import settled, until

    app = ChunkscopeApp(StartOptions(path=str(ROOT / SAMPLE), fixed_timings=True))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app, timeout=60)
        await until(pilot, app.workers_idle, 60)
        await pilot.pause(0.5)
        app.save_screenshot(filename=out.name, path=str(out.parent))
        await pilot.press("slash")
        await pilot.press(*QUESTION, "enter")
        await until(pilot, app.workers_idle, 60)
        await pilot.pause(0.5)
        app.save_screenshot(filename=out_search.name, path=str(out_search.parent))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:  # no user config, cache or marks
        for name in ("CHUNKSCOPE_CONFIG_DIR", "CHUNKSCOPE_CACHE_DIR", "CHUNKSCOPE_DATA_DIR"):
            os.environ[name] = str(Path(tmp) / name.lower())
        asyncio.run(_draw(OUT, OUT_SEARCH))
    print(f"wrote {OUT.relative_to(ROOT)} and {OUT_SEARCH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
