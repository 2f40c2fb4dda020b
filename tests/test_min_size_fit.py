"""The topic min size kept within the size cap (`engine.config.tuning.fit_min_size`),
which the merge panel and a compare column both follow: over the cap it is lowered to a
step of its slider at or below the cap, and the user's own value comes back as far as
the cap allows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkscope.engine.config.tuning import fit_min_size, knob_map, layer
from chunkscope.engine.segment.segmenter import TopicParams

GRID = knob_map(TopicParams)["topic_min_chars"].slider
assert GRID is not None
STEPS = st.integers(0, int((GRID.hi - GRID.lo) // GRID.step)).map(
    lambda i: int(GRID.lo + i * GRID.step)
)


def tuning(min_chars: int, cap: int | None) -> object:
    return layer({"mode": "topic", "topic_min_chars": min_chars, "max_chunk_chars": cap})


@given(STEPS, st.integers(1, 20000), st.integers(1, 20000) | st.none())
def test_lowered_into_the_cap_and_given_back(chosen: int, cap: int, later: int | None) -> None:
    first = fit_min_size(tuning(chosen, cap), None)  # type: ignore[arg-type]
    if chosen <= cap:
        assert first is None  # within the cap: nothing to do, nothing said
        return
    assert first is not None and first.warning
    assert first.now <= cap and (first.now - GRID.lo) % GRID.step == 0
    assert cap - first.now < GRID.step  # the highest step within the cap
    assert first.chosen == chosen and str(chosen) in first.said
    # the cap moves: the user's value comes back as far as the new cap allows
    again = fit_min_size(tuning(first.now, later), first.chosen)  # type: ignore[arg-type]
    if later is None or later >= chosen:
        assert again is not None and again.now == chosen and again.chosen is None
    elif later < first.now:
        assert again is not None and again.warning and again.now <= later
        assert again.chosen == chosen  # still remembered
    else:
        shown = again.now if again is not None else first.now
        assert shown <= later and later - shown < GRID.step
        assert again is None or again.chosen == chosen


def test_token_cap_is_said_in_tokens() -> None:
    fit = fit_min_size(
        layer({"mode": "topic", "topic_min_chars": 2000, "max_chunk_tokens": 100}), None
    )
    assert fit is not None
    assert fit.now == 400 and "100 tokens (about 400 chars)" in fit.said
