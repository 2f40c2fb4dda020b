"""`chunkscope review [PROJECT_DIR]`: open the workbench on the recap that the project's
next Claude Code session will get (`tui.workbench.review`).

The session is the one `chunkscope hook session-start` would pick (`engine.inject`):
the one whose recap is stored, or the newest in Claude Code's transcripts folder of the
project when that one has no recap yet. Pins, exclusions and the budget of an earlier
review of the same transcript are set again; `w` saves the recap shown with them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from tui.cli.common import CliError, note


def add_review_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "review",
        help="review the recap a project's next Claude Code session will get",
        description=(
            "Open the workbench on the session whose recap `chunkscope hook session-start` "
            "injects into the project's next session, showing that text. Pin, exclude, set "
            "the budget, then press w to save it as what goes in."
        ),
    )
    p.add_argument(
        "project", nargs="?", default=None, help="the project's folder (default: the current one)"
    )
    p.add_argument("--theme", default=None, metavar="NAME", help="theme to start with")
    p.set_defaults(run=cmd_review)
    return p


def review_options(project: str | None) -> Any:
    """The workbench's start options for reviewing `project`'s next recap."""
    from engine.inject import (
        InjectError,
        build_recap,
        claude_transcripts_folder,
        load_stored,
        match_chunks,
        reviewed,
        same_file,
        start_plan,
    )
    from tui.app import StartOptions
    from tui.workbench.review import ReviewTarget

    root = Path(os.path.realpath(os.path.expanduser(project or os.getcwd())))
    if not root.is_dir():
        raise CliError(f"{project}: not a folder")
    try:
        stored = load_stored(root)
    except InjectError as e:
        note(f"{e}; reviewing the newest session instead")
        stored = None
    folder = claude_transcripts_folder(root)
    probe = str(folder / "(review)") if folder is not None else None
    plan = start_plan(stored, source="startup", session_id="", transcript=probe)
    if plan.use_stored and stored is not None:
        transcript, session_id, from_store = stored.transcript, stored.session_id, True
    elif plan.build_from is not None:
        transcript, session_id, from_store = str(plan.build_from), "", False
    else:
        from engine.inject import claude_home, claude_project_name

        where = folder or claude_home() / "projects" / claude_project_name(root)
        gone = "" if folder is not None else ", which does not exist"
        raise CliError(
            f"{root}: no Claude Code session to review (looked in {where}{gone}; a Claude "
            "Code session started in this folder keeps its transcript there)"
        )
    if not Path(transcript).is_file():
        raise CliError(f"{transcript}: the transcript of the stored recap is gone")
    from engine.source import check_text

    check_text(transcript)  # a binary file: one line and exit 2, no workbench
    review = reviewed(stored, transcript) if stored is not None else None
    pinned: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    knobs: dict[str, Any] = {}
    profile = None
    if stored is not None and same_file(stored.transcript, transcript):
        # What the hook built it with: its budget (``--budget``) and profile.
        knobs["budget"] = stored.budget or None
        profile = stored.profile or None
    if review is not None:
        if review.budget is not None:
            knobs["budget"] = review.budget
        if review.pinned or review.excluded:
            built = build_recap(transcript, root, event="review", review=review, profile=profile)
            texts = built.chunk_texts
            pinned = tuple(texts[i] for i in match_chunks(texts, review.pinned))
            excluded = tuple(texts[i] for i in match_chunks(texts, review.excluded))
    note(f"reviewing {transcript} ({plan.reason})")
    return StartOptions(
        path=transcript,
        collapse=True,
        embedder="lexical",
        summarizer="extractive",
        knobs={k: v for k, v in knobs.items() if v is not None},
        profile=profile,
        pinned=pinned,
        excluded=excluded,
        review=ReviewTarget(
            str(root), transcript, session_id, stored=from_store, profile=profile or ""
        ),
    )


def cmd_review(args: argparse.Namespace) -> int:
    from tui.app import ChunkscopeApp

    options = review_options(args.project)
    options.theme = args.theme
    ChunkscopeApp(options).run()
    return 0
