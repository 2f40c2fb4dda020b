"""`chunkscope review`: the workbench on the recap a project's next session will get.

The workbench opens the transcript whose recap session-start injects, with the same
pipeline as the hooks (tool calls collapsed, the offline embedder and summarizer) and
the pins, exclusions and budget of an earlier review, so its recap preview is the text
that goes in. `w` saves what is shown, with those settings, into the project's store
(`engine.inject.recaps`) instead of asking for a file.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.engine.inject.recaps import Review, StoredRecap, recap_path, save_stored

#: The recap preview's title while reviewing.
PREVIEW_TITLE = "─ injected at the next session start (w saves it) ─"


@dataclass(frozen=True)
class ReviewTarget:
    """The project reviewed, and the transcript whose recap it will get."""

    project: str
    transcript: str
    session_id: str = ""
    stored: bool = False  # whether the recap shown is the one stored (else: built now)
    profile: str = ""  # the profile the recap is built with
    agent: str = "claude"  # the agent tool whose session it is (`engine.inject.agents`)


def store_path(target: ReviewTarget) -> Path:
    """Where `w` saves the reviewed recap."""
    return recap_path(target.project, target.agent, target.transcript)


#: How long `announce` waits for the workbench to mount (a file that fails to open never
#: mounts one), in tries 0.05 s apart.
ANNOUNCE_TRIES = 200


def announce(app: Any, target: ReviewTarget, tries: int = ANNOUNCE_TRIES) -> None:
    """Say what is reviewed, and title the recap preview as what goes in."""
    from textual.css.query import NoMatches
    from textual.widgets import Static

    bench = app.workbench
    if bench is None or not bench.is_mounted:
        if tries > 1:
            app.set_timer(0.05, lambda: announce(app, target, tries - 1))
        return
    with contextlib.suppress(NoMatches):
        bench.query_one("#recap-preview-title", Static).update(PREVIEW_TITLE)
    where = "stored at the last session's end" if target.stored else "not stored yet: built now"
    app.notify(
        f"Reviewing the recap of {Path(target.transcript).name} for {target.project} "
        f"({where}). The recap preview is what the next session start adds, after one line "
        "saying what it is. Pin (p), exclude (x), set the budget (b), then w saves it.",
        title="Review before injection",
        timeout=12,
        markup=False,
    )


def save_review(
    target: ReviewTarget,
    selection: Any,
    *,
    pinned: tuple[str, ...],
    excluded: tuple[str, ...],
    budget: int,
) -> Path:
    """Store `selection`'s recap for `target`'s project with the review's settings."""
    review = Review(
        budget=budget,
        pinned=pinned,
        excluded=excluded,
        at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    stored = StoredRecap(
        project=target.project,
        transcript=target.transcript,
        text=selection.text,
        session_id=target.session_id,
        event="review",
        used_tokens=int(selection.used_tokens),
        budget=int(selection.budget),
        tokenizer=str(selection.tokenizer),
        profile=target.profile,
        review=review,
        agent=target.agent,
    )
    return save_stored(stored)
