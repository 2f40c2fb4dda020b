"""`chunkscope review [PROJECT_DIR]`: open the workbench on the recap that the project's
next agent session will get (`tui.workbench.review`); ``--list`` lists the project's
stored session recaps, ``--session N`` opens the N-th of that list.

The session is the one `chunkscope hook session-start` would pick (`engine.inject.recaps`,
for ``--agent``, else the agent of the newest stored recap, else Claude Code): the
newest ended session's stored recap, or the newest transcript of the project when that
one has no recap yet. Pins, exclusions and the budget of an earlier review of the same
transcript are set again; `w` saves the recap shown with them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from chunkscope.tui.cli.common import CliError, add_theme_option, need_terminal, note, write_out


def add_review_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "review",
        help="review the recap a project's next agent session will get",
        description=(
            "Open the workbench on the session whose recap `chunkscope hook session-start` "
            "injects into the project's next session, showing that text. Pin, exclude, set "
            "the budget, then press w to save it as what goes in. --list lists the "
            "project's stored session recaps; --session N opens one of them."
        ),
        examples=(
            "chunkscope review",
            "chunkscope review --list",
            "chunkscope review ~/src/my-project --session 2",
        ),
    )
    p.add_argument(
        "project", nargs="?", default=None, help="the project's folder (default: the current one)"
    )
    from chunkscope.engine.inject.agents import AGENT_NAMES

    p.add_argument(
        "--agent",
        choices=AGENT_NAMES,
        default=None,
        help="whose next session (default: the agent of the newest stored recap, else claude)",
    )
    p.add_argument("--list", action="store_true", help="list the stored session recaps")
    p.add_argument("--session", type=int, default=None, metavar="N", help="open the N-th of --list")
    add_theme_option(p)
    p.set_defaults(run=cmd_review)
    return p


def _project(project: str | None) -> Path:
    root = Path(os.path.realpath(os.path.expanduser(project or os.getcwd())))
    if not root.is_dir():
        raise CliError(f"{project}: not a folder")
    return root


def recap_list(project: str | None) -> str:
    """The project's stored session recaps, the newest first, one line each (numbered
    for ``--session``), the one the next start injects marked."""
    from chunkscope.engine.inject.agents import agent_named
    from chunkscope.engine.inject.recaps import load_all, sessions_dir

    root = _project(project)
    recaps = load_all(root, warn=note)
    if not recaps:
        # where they would be: the data folder's (CHUNKSCOPE_DATA_DIR), not the project
        return f"{root}: no stored session recaps (looked in {sessions_dir(root)})\n"
    agent = agent_named(recaps[0].agent if recaps[0].agent in _names() else None)
    plan = _plan(root, recaps, agent)
    lines = []
    for i, r in enumerate(recaps, 1):
        mark = "*" if plan.use is not None and plan.use is r else " "
        state = "ended" if r.ended or not agent_named(_agent_of(r)).has_end else "running"
        lines.append(
            f"{mark}{i:>3}  {r.created_text}  {r.agent:<7} {r.event:<12} {state:<8} "
            f"{r.used_tokens:>6} tok  {Path(r.transcript).name}"
        )
    lines.append("(* : what the next session start injects; --session N opens one)")
    return "\n".join(lines) + "\n"


def _session_range(root: Path, n: int) -> str:
    """What ``--session`` may be: ``the project has 2 stored recaps (1..2, the newest
    first)``, as a ChatGPT export's ``--session`` says its range; where they were looked
    for when there is none."""
    from chunkscope.engine.inject.recaps import sessions_dir
    from chunkscope.engine.textutil import plural

    if n == 0:
        return f"the project has no stored session recaps (looked in {sessions_dir(root)})"
    return f"the project has {plural(n, 'stored recap')} (1..{n}, the newest first)"


def _names() -> tuple[str, ...]:
    from chunkscope.engine.inject.agents import AGENT_NAMES

    return AGENT_NAMES


def _agent_of(stored: Any) -> str | None:
    return stored.agent if stored.agent in _names() else None


def _not_text(root: Path, agent: Any) -> str:
    """The transcripts the review passed over, with nothing to read (a stray archive
    named ``*.jsonl``, an empty one): `` (passed over: s1.jsonl, looks like ...)``, or
    nothing."""
    from chunkscope.engine.inject.recaps import unreadable

    said = [
        f"{path.name}, {why}"
        for path in agent.other_transcripts(root, None, {})
        if (why := unreadable(path)) is not None
    ]
    return f": passed over {'; '.join(said[:3])}" if said else ""


def _plan(root: Path, recaps: list[Any], agent: Any) -> Any:
    from chunkscope.tui.workbench.review import next_start_plan

    return next_start_plan(root, recaps, agent)


def review_options(
    project: str | None, *, agent_name: str | None = None, session: int | None = None
) -> Any:
    """The workbench's start options for reviewing `project`'s next recap (or the
    `session`-th stored one, counted from 1, the newest first)."""
    from chunkscope.engine.inject.agents import agent_named
    from chunkscope.engine.inject.recaps import (
        StoredRecap,
        build_recap,
        load_all,
        match_chunks,
        reviewed,
        same_file,
    )
    from chunkscope.engine.recap.collapse import COLLAPSE_BY_DEFAULT
    from chunkscope.tui.app import StartOptions
    from chunkscope.tui.workbench.review import ReviewTarget, injected_transcript

    root = _project(project)
    recaps = load_all(root, warn=lambda m: note(f"{m}; left out"))
    stored: StoredRecap | None
    if agent_name is None and recaps:
        agent_name = _agent_of(recaps[0])
    agent = agent_named(agent_name)
    plan = _plan(root, recaps, agent)
    injected = injected_transcript(plan)
    if session is not None:
        if not 1 <= session <= len(recaps):
            raise CliError(f"--session {session}: {_session_range(root, len(recaps))}")
        chosen = recaps[session - 1]
        agent = agent_named(_agent_of(chosen))
        transcript, session_id, stored, reason = (
            chosen.transcript,
            chosen.session_id,
            chosen,
            f"stored recap {session}",
        )
    else:
        if plan.use is not None:
            stored = plan.use
            transcript, session_id, reason = stored.transcript, stored.session_id, plan.reason
        elif plan.build_from is not None:
            transcript, session_id, reason = str(plan.build_from), "", plan.reason
            stored = next((r for r in recaps if same_file(r.transcript, transcript)), None)
        else:
            raise CliError(
                f"{root}: no {agent.title} session to review (looked in "
                f"{agent.sessions_where(root)}{_not_text(root, agent)}; a session started in "
                "this folder keeps its transcript there)"
            )
    if not Path(transcript).is_file():
        raise CliError(f"{transcript}: the transcript of the stored recap is gone")
    from chunkscope.engine.read.source import check_text

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
    next_start = bool(injected) and same_file(injected, transcript)
    note(f"reviewing {transcript} ({reason})")
    return StartOptions(
        path=transcript,
        collapse=COLLAPSE_BY_DEFAULT,  # the hook's recap (`engine.inject.recaps.build_recap`)
        embedder="lexical",
        summarizer="extractive",
        knobs={k: v for k, v in knobs.items() if v is not None},
        profile=profile,
        pinned=pinned,
        excluded=excluded,
        review=ReviewTarget(
            str(root),
            transcript,
            session_id,
            stored=stored is not None and same_file(stored.transcript, transcript),
            profile=profile or "",
            agent=agent.name,
            event=stored.event if stored is not None else "",
            reviewed_at=stored.review.at if stored is not None and stored.review else "",
            next_start=next_start,
            injected=injected,
        ),
    )


def cmd_review(args: argparse.Namespace) -> int:
    from chunkscope.tui.app import ChunkscopeApp

    if args.list:
        write_out(recap_list(args.project))
        return 0
    options = review_options(args.project, agent_name=args.agent, session=args.session)
    options.theme = args.theme
    need_terminal()
    ChunkscopeApp(options).run()
    return 0
