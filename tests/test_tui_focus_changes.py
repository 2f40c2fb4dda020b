"""What a focus change redraws: the panel ring moves by a class on the panels holding
the focus (not a `:focus-within` rule, which restyled whole subtrees), and the footer
shows the keys in force on the keys it has mounted (not a recompose of them all)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.pilot import SIZE, make_app, settled

pytestmark = pytest.mark.usefixtures("isolated")


def _footer_look(footer: Any) -> list[tuple[object, ...]]:
    return [
        (k.key, k.key_display, k.description, k.action, k._disabled, sorted(k.classes))
        for k in footer.children
    ] + [(k.display, str(k.tooltip), k.region) for k in footer.children]


async def test_tab_moves_the_ring_and_relabels_the_footer_as_a_recompose_would() -> None:
    """Tab and shift+tab from the merged list into the controls and back: the footer
    loses a key (merged list -> merge toggle), is relabelled (toggle -> toggle), and gains
    one (back to the list); at each stop it is what Textual's recompose makes of the
    keys in force."""
    from textual._context import active_message_pump
    from textual.widgets import Footer

    from chunkscope.tui.screens.workbench import FittingFooter

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        bench = app.workbench
        assert bench is not None
        footer = bench.query_one(FittingFooter)
        counts = [len(footer.children)]
        for key in ("tab", "tab", "shift+tab", "shift+tab"):
            await pilot.press(key)
            await pilot.pause()
            focused = app.focused
            assert focused is not None
            holding = {a for a in focused.ancestors_with_self if a.has_class("panel")}
            ringed = {p for p in bench.query(".panel") if p.has_class("-focus-within")}
            assert ringed == holding, focused
            relabelled = _footer_look(footer)
            last_row = bench._compositor.render_strips()[-1].text
            counts.append(len(footer.children))
            token = active_message_pump.set(footer)  # composed as the footer would
            try:
                await Footer.recompose(footer)
            finally:
                active_message_pump.reset(token)
            footer._fit_keys()
            await pilot.pause()
            assert _footer_look(footer) == relabelled, focused
            assert bench._compositor.render_strips()[-1].text == last_row
        steps = [b - a for a, b in itertools.pairwise(counts)]
        assert any(s < 0 for s in steps) and any(s > 0 for s in steps), counts
