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

from chunkscope.engine.inject.recaps import (
    Review,
    StartPlan,
    StoredRecap,
    load_all,
    next_start,
    recap_path,
    same_file,
    save_stored,
)

#: The recap preview's title while reviewing the recap the next start injects.
PREVIEW_TITLE = "─ injected at the next session start (w saves it) ─"
#: The recap preview's title while reviewing another session's stored recap (--session N).
PREVIEW_TITLE_NOT_NEXT = "─ this session's stored recap, not injected next (w saves it) ─"


@dataclass(frozen=True)
class ReviewTarget:
    """The project reviewed, and the transcript whose recap it will get."""

    project: str
    transcript: str
    session_id: str = ""
    stored: bool = False  # whether the recap shown is the one stored (else: built now)
    profile: str = ""  # the profile the recap is built with
    agent: str = "claude"  # the agent tool whose session it is (`engine.inject.agents`)
    event: str = ""  # the hook that stored the recap shown ("": not stored)
    reviewed_at: str = ""  # when a review last saved the stored recap ("": never)
    next_start: bool = True  # whether the next session start injects this session's recap
    injected: str = ""  # when not: the transcript whose recap it injects ("": none)


def next_start_plan(root: str | Path, recaps: list[StoredRecap], agent: Any) -> StartPlan:
    """What the project's next session start does (``startup``, `agent`'s sessions): the
    plan `review --list` stars and `review` opens."""
    return next_start(agent, root, recaps)


def injected_transcript(plan: StartPlan) -> str:
    """The transcript whose recap `plan` injects ("": none)."""
    if plan.use is not None:
        return plan.use.transcript
    return str(plan.build_from) if plan.build_from is not None else ""


def next_injected(project: str, agent_name: str | None = None) -> str:
    """The transcript whose recap the project's next session start injects, read from the
    store now ("": none), with the agent `review --list` takes (`agent_name`, else the
    newest stored recap's)."""
    from chunkscope.engine.inject.agents import AGENT_NAMES, agent_named

    recaps = load_all(project)
    if agent_name is None and recaps and recaps[0].agent in AGENT_NAMES:
        agent_name = recaps[0].agent
    return injected_transcript(next_start_plan(project, recaps, agent_named(agent_name)))


def stored_by(event: str, reviewed_at: str = "") -> str:
    """Who stored a recap, from its `StoredRecap.event`, and when a review last saved it
    (a review keeps the event of the hook that stored it first)."""
    if event == "review":
        who = "saved by an earlier review"
    elif event == "SessionStart":
        who = "built by a session start"
    else:
        who = f"stored by the {event} hook" if event else "stored by a hook"
    if reviewed_at and event != "review":
        who += f", saved again by a review at {reviewed_at.replace('T', ' ').rstrip('Z')} UTC"
    elif reviewed_at:
        who += f" at {reviewed_at.replace('T', ' ').rstrip('Z')} UTC"
    return who


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
    title = PREVIEW_TITLE if target.next_start else PREVIEW_TITLE_NOT_NEXT
    with contextlib.suppress(NoMatches):
        bench.query_one("#recap-preview-title", Static).update(title)
    name = Path(target.transcript).name
    where = (
        stored_by(target.event, target.reviewed_at)
        if target.stored
        else "not stored yet: built now"
    )
    if target.next_start:
        what = (
            "The recap preview is what the next session start adds, after one line saying "
            "what it is. Pin (p), exclude (x), set the budget (b), then w saves it."
        )
    else:
        what = (
            f"The next session start injects {_recap_of(target.injected)}, not this one. "
            f"Pin (p), exclude (x), set the budget (b), then w saves this one as {name}'s "
            "stored recap."
        )
    app.notify(
        f"Reviewing the recap of {name} for {target.project} ({where}). {what}",
        title="Review before injection",
        timeout=12,
        markup=False,
    )


def _recap_of(transcript: str) -> str:
    return f"the recap of {Path(transcript).name}" if transcript else "no recap"


def saved_what(target: ReviewTarget, tokens: int) -> str:
    """What `w` wrote, said after it is stored: whether the next session start injects
    it, read from the store again (the star of `review --list`)."""
    injected = next_injected(target.project)
    head = f"the reviewed recap of {Path(target.transcript).name} ({tokens} tokens"
    if injected and same_file(injected, target.transcript):
        return f"{head}, what the next session start injects)"
    return f"{head}; the next session start injects {_recap_of(injected)}, not this one)"


def save_review(
    target: ReviewTarget,
    selection: Any,
    *,
    pinned: tuple[str, ...],
    excluded: tuple[str, ...],
    budget: int,
) -> Path:
    """Store `selection`'s recap for `target`'s project with the review's settings.

    A stored recap keeps the event that stored it (a running session's, PreCompact, stays
    running), so a review does not change which session the next start injects; a recap
    built now is stored as a ``review`` (an ended session's)."""
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
        event=target.event if target.stored and target.event else "review",
        used_tokens=int(selection.used_tokens),
        budget=int(selection.budget),
        tokenizer=str(selection.tokenizer),
        profile=target.profile,
        review=review,
        agent=target.agent,
    )
    return save_stored(stored)
