"""The size cap's unit toggle (issue 35): choosing ``tokens`` gives the declared start
of ``max tokens`` (2048), not ``∞`` (which meant no cap at all), in both merge modes,
and the cap holds; ← then → comes back to it, and ``chars`` comes back to its 8192.
Each case runs the real app on the sample (a few seconds: the app's start, then three runs)."""

from __future__ import annotations

import pytest

from chunkscope.engine.params import knob_map
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.widgets.choice_toggle import ChoiceToggle
from chunkscope.tui.widgets.slider import Slider
from tests.pilot import SIZE, make_app, settled, until

pytestmark = pytest.mark.usefixtures("isolated")

KNOBS = knob_map(MergeParams)
TOKENS = KNOBS["max_chunk_tokens"]
CHARS = KNOBS["max_chunk_chars"]


@pytest.mark.parametrize("mode", ["seed", "topic"])
async def test_choosing_tokens_caps_at_the_declared_start(mode: str) -> None:
    assert TOKENS.slider is not None and TOKENS.slider.start is not None
    start = int(TOKENS.slider.start)
    app = make_app(mode=mode)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None and bench.view is not None
        assert bench.view.params.merge.max_chunk_chars == CHARS.default

        def ran(**values: object) -> bool:
            """The run shown has these size cap values."""
            shown = bench.view
            merge = shown.params.merge if shown is not None else None
            return merge is not None and all(getattr(merge, k) == v for k, v in values.items())

        toggle = bench.query_one("#size-cap", ChoiceToggle)
        toggle.focus()
        await pilot.press("right")
        await until(pilot, lambda: ran(max_chunk_tokens=start, max_chunk_chars=None))
        view = bench.view
        assert view is not None
        assert view.params.merge.max_chunk_tokens == start
        assert view.params.merge.max_chunk_chars is None
        slider = bench.query_one("#max-tokens", Slider)
        assert slider.value == start and "∞" not in str(slider.render())
        # The promise: every merged chunk within the cap, unless one unit alone is over.
        pipe = app.pipe
        assert pipe is not None
        counts = pipe.token_counts(view.result.chunks)
        over = view.result.exceeds_limit
        assert all(c <= start or o for c, o in zip(counts, over, strict=True)), counts
        assert max(counts) > 0
        # ← then → comes back to the start, not to ∞.
        slider.focus()
        await pilot.press("left")
        await until(pilot, lambda: slider.value < start)
        await pilot.press("right")
        await until(pilot, lambda: slider.value == start)
        await until(pilot, lambda: ran(max_chunk_tokens=start))
        # Back to chars: its default, not ∞.
        toggle.focus()
        await pilot.press("left")
        await until(pilot, lambda: ran(max_chunk_tokens=None, max_chunk_chars=CHARS.default))
        assert bench.query_one("#max-chars", Slider).value == CHARS.default
