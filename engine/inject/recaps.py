"""Recaps kept per session for an agent's next session, and what a session start injects.

An agent tool's hooks (`tui.cli.hook`, the tools in `engine.inject.agents`) call this module: at
a session's end (or before its context is compacted, or after a Codex turn) the recap of
its transcript is built with `Pipeline.recap` (the same code path as ``chunkscope recap``,
offline: lexical embedder, extractive summarizer) and stored; at the next session's start
the newest ended session's recap is what goes in (`start_plan`, `injected_text`).

Where: one folder per project under ``<data dir>/recaps/`` (`engine.paths.data_dir`),
named ``<slug>-<hash>``: the last parts of the project's path, readable, then 12 hex
digits of the SHA-256 of its real path (two projects never share a folder). In it,
``sessions/`` holds one recap per session (``<agent>-<hash of the transcript>.json``:
the text and where it came from, and ``.md``: the same text, for people), so two
sessions open at once never overwrite each other's; a project keeps its newest
`RECAPS_KEPT`. Files are written atomically (`engine.fileio`). Nothing is ever written
into the project itself.

A review (``chunkscope review``) saves the user's pins, exclusions and budget with the
recap (`Review`); they are honoured by session-start (which prints the stored text) and
by the next rebuild of the same transcript. Pins and exclusions are kept as the merged
chunks' texts, so they still find their chunk when the transcript has grown and chunk
numbers moved.

Hook errors are appended to ``<data dir>/hooks.log`` (`log_line`), a small file that is
cut to its newer half when it passes `LOG_MAX_BYTES`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.fileio import atomic_write_text
from chunkscope.engine.params import Knob
from chunkscope.engine.paths import data_dir

if TYPE_CHECKING:
    from chunkscope.engine.inject.agents.base import Agent
    from chunkscope.engine.recap.core import Selection

__all__ = [
    "LOG_MAX_BYTES",
    "RECAPS_DIR",
    "InjectError",
    "Review",
    "StoredRecap",
    "build_recap",
    "claude_transcripts_folder",
    "injected_text",
    "load_all",
    "load_stored",
    "log_line",
    "match_chunks",
    "newest_transcripts",
    "next_start",
    "project_dir",
    "project_key",
    "project_root",
    "recap_path",
    "same_file",
    "save_stored",
    "sessions_dir",
    "start_plan",
    "stored_path",
]

RECAPS_DIR = "recaps"
SESSIONS_DIR = "sessions"
#: The single recap per project of chunkscope before per-session recaps (still read).
STORED_NAME = "recap.json"
READABLE_NAME = "recap.md"
#: How many session recaps a project keeps (the oldest are removed first).
RECAPS_KEPT = 10
#: What a session start injects stays under this many characters, whatever the budget
#: (Claude Code cuts a hook's output near 10,000 characters).
MAX_INJECTED_CHARS = 10_000
#: Seconds a session start waits for a recap it has to build (counted from the hook
#: process's start); past it, nothing or an older recap goes in and the build goes on
#: detached (handing it over and exiting take about 0.2 s more).
START_WAIT = 0.8
#: ``hook session-start --build-wait S``: `START_WAIT` given. The hooks chunkscope installs
#: are given `SESSION_START_TIMEOUT` seconds by the agent tools (past it they stop the hook,
#: build and all); a hook run by hand, or with a timeout of one's own, may wait longer, up
#: to an hour.
BUILD_WAIT = Knob(
    "build-wait",
    "float",
    START_WAIT,
    "seconds to wait for a recap that has to be built",
    flag="--build-wait",
    minimum=0,
    maximum=3600,
)
#: Events whose recap is of a session that is over (the others: the session still runs).
ENDED_EVENTS = ("SessionEnd", "SessionStart", "review")
LOG_NAME = "hooks.log"
LOG_MAX_BYTES = 64 * 1024
#: The format of ``recap.json``; a newer one is refused rather than misread.
FORMAT = 1
#: A transcript modified this long after its recap was stored has grown since.
_FRESH_SLACK = 2.0
#: How far into a head a pin's text must match when the exact chunk is gone.
_HEAD = 200


class InjectError(ChunkscopeError):
    """A stored recap that cannot be read, or a transcript that cannot be recapped."""


# --------------------------------------------------------------------------- where


def project_root(
    cwd: str | os.PathLike[str] | None = None, env: str | None = "CLAUDE_PROJECT_DIR"
) -> Path:
    """The project a hook runs for: the variable `env` when the agent tool sets it for
    hooks (Claude Code's ``$CLAUDE_PROJECT_DIR``, Gemini CLI's ``$GEMINI_PROJECT_DIR``:
    the folder the session started in, whatever the agent ``cd``-ed to), else `cwd`,
    else the current directory; as a real absolute path."""
    chosen = (os.environ.get(env) if env else "") or (str(cwd) if cwd else "") or os.getcwd()
    return Path(os.path.realpath(os.path.expanduser(chosen)))


def project_key(root: str | os.PathLike[str]) -> str:
    """``<slug>-<hash>``: the project's last two path parts (letters, digits, ``._-``;
    at most 40 characters), then 12 hex digits of the SHA-256 of its path."""
    path = str(root)
    digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    parts = [p for p in re.split(r"[\\/]+", path) if p and not p.endswith(":")][-2:]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(parts)).strip("-.")[-40:].strip("-.")
    return f"{slug or 'root'}-{digest}"


def project_dir(root: str | os.PathLike[str]) -> Path:
    """The folder that keeps `root`'s recap (not created here)."""
    return data_dir() / RECAPS_DIR / project_key(root)


def claude_home() -> Path:
    """Claude Code's folder: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".claude"


def claude_project_name(root: str | os.PathLike[str]) -> str:
    """The name of the folder Claude Code keeps `root`'s transcripts in (every other
    character than a letter or a digit of the path as '-')."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def claude_transcripts_folder(root: str | os.PathLike[str]) -> Path | None:
    """Where Claude Code keeps the transcripts of sessions started in `root`
    (``~/.claude/projects/<the path with every other character than a letter or a digit
    as '-'>``), or None when there is no such folder."""
    projects = claude_home() / "projects"
    path = str(root)
    for name in (claude_project_name(path), path.replace("/", "-")):
        if (projects / name).is_dir():
            return projects / name
    return None


def unreadable(path: Path) -> str | None:
    """Why a transcript is no session to read (`check_text`, `check_not_blank`: a stray
    archive or binary file named ``*.jsonl``, an empty one), or None: the newest session
    is the newest one that has something to read (walk 28, F14: an empty one was taken)."""
    from chunkscope.engine.read.source import check_not_blank, check_text

    try:
        check_text(path)
        check_not_blank(path)
    except ChunkscopeError as e:
        return str(getattr(e, "reason", e))
    except OSError as e:
        return e.strerror or str(e)
    return None


def _is_text(path: Path) -> bool:
    return unreadable(path) is None


def newest_transcripts(folder: Path, *, other_than: str | None = None) -> list[Path]:
    """The session transcripts (``*.jsonl``) directly in `folder`, newest first, without
    `other_than` and without subagents' (``agent-*.jsonl``)."""
    skip = os.path.realpath(other_than) if other_than else None
    found: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.name.endswith(".jsonl") or entry.name.startswith("agent-"):
                continue
            with contextlib.suppress(OSError):
                if not entry.is_file() or (skip and os.path.realpath(entry.path) == skip):
                    continue
                found.append((entry.stat().st_mtime, Path(entry.path)))
    found.sort(key=lambda item: (-item[0], item[1].name))
    return [path for _, path in found]


# --------------------------------------------------------------------------- the log


def log_line(message: str) -> None:
    """Append one line (with the time) to the hooks' log in the data directory; never
    raises. The log keeps its newer half when it passes `LOG_MAX_BYTES`."""
    line = " ".join(message.split())
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    with contextlib.suppress(OSError):
        path = data_dir() / LOG_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {line}\n")
        if path.stat().st_size > LOG_MAX_BYTES:
            text = path.read_text(encoding="utf-8", errors="replace")
            keep = text[len(text) // 2 :]
            atomic_write_text(path, keep[keep.find("\n") + 1 :])


# --------------------------------------------------------------------------- what is kept


@dataclass(frozen=True)
class Review:
    """What a review set for one transcript's recap: the budget, and the merged chunks
    pinned and excluded (by their texts)."""

    budget: int | None = None
    pinned: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    at: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The review as stored in the recap's JSON file."""
        return {
            "budget": self.budget,
            "pinned": list(self.pinned),
            "excluded": list(self.excluded),
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Review | None:
        """The review read back from its JSON form, or None when it is not one."""
        if not isinstance(data, dict):
            return None
        budget = data.get("budget")

        def texts(key: str) -> tuple[str, ...]:
            value = data.get(key)
            return tuple(t for t in value if isinstance(t, str)) if isinstance(value, list) else ()

        return cls(
            budget=budget if isinstance(budget, int) and not isinstance(budget, bool) else None,
            pinned=texts("pinned"),
            excluded=texts("excluded"),
            at=str(data.get("at") or ""),
        )


@dataclass(frozen=True)
class StoredRecap:
    """One session's recap as kept for the project's next session."""

    project: str  # the project's real path
    transcript: str  # the transcript it was built from
    text: str
    session_id: str = ""
    event: str = ""  # the hook that wrote it: SessionEnd, PreCompact, Stop, review, SessionStart
    created: float = field(default_factory=time.time)  # seconds since the epoch
    used_tokens: int = 0
    budget: int = 0
    tokenizer: str = ""
    profile: str = ""  # the config file's profile it was built with ("": none)
    review: Review | None = None
    agent: str = "claude"  # the agent tool whose session it is (`engine.inject.agents`)

    @property
    def created_text(self) -> str:
        """When the recap was stored, as ``YYYY-MM-DD HH:MM UTC``."""
        return datetime.fromtimestamp(self.created, UTC).strftime("%Y-%m-%d %H:%M UTC")

    @property
    def ended(self) -> bool:
        """Whether the session was over when this was stored (SessionEnd; a start that
        built it from an earlier session; a review), not a running session's recap."""
        return self.event in ENDED_EVENTS

    def as_dict(self) -> dict[str, Any]:
        """The recap as stored on disk: a JSON object with the format number."""
        return {
            "format": FORMAT,
            "project": self.project,
            "transcript": self.transcript,
            "agent": self.agent,
            "session_id": self.session_id,
            "event": self.event,
            "created": self.created,
            "used_tokens": self.used_tokens,
            "budget": self.budget,
            "tokenizer": self.tokenizer,
            "profile": self.profile,
            "review": self.review.as_dict() if self.review is not None else None,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> StoredRecap:
        """The recap read back from its JSON form; InjectError (with `where`) when it is not one."""
        if not isinstance(data, dict):
            raise InjectError(f"{where}: not a stored recap (expected a JSON object)")
        if data.get("format") != FORMAT:
            raise InjectError(f"{where}: stored recap format {data.get('format')!r} not {FORMAT}")
        try:
            return cls(
                project=str(data["project"]),
                transcript=str(data["transcript"]),
                text=str(data["text"]),
                session_id=str(data.get("session_id") or ""),
                event=str(data.get("event") or ""),
                created=float(data.get("created") or 0.0),
                used_tokens=int(data.get("used_tokens") or 0),
                budget=int(data.get("budget") or 0),
                tokenizer=str(data.get("tokenizer") or ""),
                profile=str(data.get("profile") or ""),
                review=Review.from_dict(data.get("review")),
                agent=str(data.get("agent") or "claude"),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise InjectError(f"{where}: stored recap is missing or has a bad {e}") from None


def sessions_dir(root: str | os.PathLike[str]) -> Path:
    """The folder of `root`'s per-session recaps (not created here)."""
    return project_dir(root) / SESSIONS_DIR


def recap_path(
    root: str | os.PathLike[str], agent: str, transcript: str | os.PathLike[str]
) -> Path:
    """Where the recap of `transcript` (a session of `agent` in the project `root`) is
    kept: ``<agent>-<16 hex digits of the transcript's real path>.json`` (a session's
    transcript path never changes, so its recaps replace each other)."""
    real = os.path.realpath(transcript)
    digest = hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = re.sub(r"[^a-z0-9]+", "-", agent.lower()) or "agent"
    return sessions_dir(root) / f"{name}-{digest}.json"


def stored_path(stored: StoredRecap) -> Path:
    """Where `stored` is kept (`recap_path`)."""
    return recap_path(stored.project, stored.agent, stored.transcript)


def _read_stored(path: Path) -> StoredRecap:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InjectError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise InjectError(f"{path}: not valid JSON: {e}") from None
    return StoredRecap.from_dict(data, str(path))


def load_all(
    root: str | os.PathLike[str], warn: Callable[[str], None] | None = None
) -> list[StoredRecap]:
    """`root`'s stored recaps, the newest first (and the single ``recap.json`` of older
    chunkscope versions, when there is one). A file that cannot be read is left out,
    said through `warn`."""
    found: list[StoredRecap] = []
    paths: list[Path] = []
    with contextlib.suppress(OSError):
        paths = [Path(e.path) for e in os.scandir(sessions_dir(root)) if e.name.endswith(".json")]
    legacy = project_dir(root) / STORED_NAME
    if legacy.is_file():
        paths.append(legacy)
    for path in paths:
        try:
            found.append(_read_stored(path))
        except InjectError as e:
            if warn is not None:
                warn(str(e))
    found.sort(key=lambda r: -r.created)
    return found


def load_stored(root: str | os.PathLike[str]) -> StoredRecap | None:
    """`root`'s newest stored recap, or None when there is none. `InjectError` when the
    newest file is there but cannot be read or is not a stored recap."""
    errors: list[str] = []
    found = load_all(root, warn=errors.append)
    if not found and errors:
        raise InjectError(errors[0])
    return found[0] if found else None


def save_stored(stored: StoredRecap, keep: int = RECAPS_KEPT) -> Path:
    """Write `stored` (``.json``, then ``.md``) atomically into its project's sessions
    folder (created when missing), then remove the oldest recaps past `keep`. Returns the
    JSON file's path. `OSError` when the store cannot be written (a read-only folder)."""
    target = stored_path(stored)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps(stored.as_dict(), ensure_ascii=False, indent=2) + "\n")
    atomic_write_text(target.with_suffix(".md"), stored.text)
    _prune(target.parent, keep)
    return target


def _prune(folder: Path, keep: int) -> None:
    """Remove the recaps of `folder` past the newest `keep` (by their files' times)."""
    with contextlib.suppress(OSError):
        entries = [
            (e.stat().st_mtime, Path(e.path))
            for e in os.scandir(folder)
            if e.name.endswith(".json")
        ]
        entries.sort(key=lambda item: -item[0])
        for _, path in entries[keep:]:
            for gone in (path, path.with_suffix(".md")):
                with contextlib.suppress(OSError):
                    gone.unlink()


# --------------------------------------------------------------------------- building


def match_chunks(texts: Sequence[str], wanted: Sequence[str]) -> tuple[int, ...]:
    """The indices of the merged chunks `texts` that the chunk texts `wanted` name: the
    chunk with the same text, else the first chunk that holds the start of the wanted
    text (the transcript grew and merged it with a neighbour), else the first chunk
    whose text the wanted one holds. Texts that find nothing are left out."""
    out: list[int] = []
    exact = {t: i for i, t in reversed(list(enumerate(texts)))}
    for want in wanted:
        if not want:
            continue
        index = exact.get(want)
        if index is None:
            head = want[:_HEAD]
            index = next((i for i, t in enumerate(texts) if head in t), None)
        if index is None:
            index = next((i for i, t in enumerate(texts) if t and t in want), None)
        if index is not None and index not in out:
            out.append(index)
    return tuple(out)


@dataclass(frozen=True)
class Built:
    """A recap just built: the stored form and the selection it came from (listing only
    the candidates it summarized, `Pipeline.recap` without every summary)."""

    stored: StoredRecap
    selection: Selection
    chunk_texts: tuple[str, ...]


def build_recap(
    transcript: str | os.PathLike[str],
    root: str | os.PathLike[str],
    *,
    event: str,
    session_id: str = "",
    budget: int | None = None,
    profile: str | None = None,
    review: Review | None = None,
    warn: Callable[[str], None] | None = None,
    agent: str = "claude",
) -> Built:
    """The recap of `transcript` for the project `root`, as ``chunkscope recap`` builds
    it (tool calls collapsed; the config file's profile `profile` and `budget` over the
    declared defaults), offline (lexical embedder, extractive summarizer) so a hook never
    waits on the network. A `review` of the same transcript wins over `budget`, and its
    pins and exclusions are applied."""
    from chunkscope.engine.config.settings import load_settings, resolve_tuning
    from chunkscope.engine.pipeline import EmbedderSpec, Pipeline, PipelineParams, SummarizerSpec
    from chunkscope.engine.read.source import check_text
    from chunkscope.engine.recap.collapse import COLLAPSE_BY_DEFAULT

    path = Path(transcript)
    if not path.exists():
        raise InjectError(f"{path}: no such transcript")
    try:  # a folder, a FIFO, a device: said what it is (walk 35, F4)
        check_text(path)
    except ChunkscopeError as e:
        raise InjectError(str(e)) from None
    settings = load_settings()
    flags: dict[str, Any] = {}
    if review is not None and review.budget is not None:
        flags["budget"] = review.budget
    elif budget is not None:
        flags["budget"] = budget
    tuning = resolve_tuning(settings, profile, flags)
    params = PipelineParams(
        collapse=COLLAPSE_BY_DEFAULT,  # as `chunkscope recap` builds it
        min_chars=tuning.min_chars,
        merge=tuning.merge,
        topic=tuning.topic,
        embedder=EmbedderSpec(),
        summarizer=SummarizerSpec(),
    )
    pipe = Pipeline(str(path), params, warn=warn)
    from chunkscope.engine.read.parse import require_turns

    require_turns(pipe.source())
    texts = tuple(c.text for c in pipe.merged().chunks)
    pinned = match_chunks(texts, review.pinned) if review is not None else ()
    excluded = match_chunks(texts, review.excluded) if review is not None else ()
    selection = pipe.recap(
        budget=tuning.recap.budget,
        scorer=tuning.recap.scorer,
        pinned=pinned,
        excluded=excluded,
        every_summary=False,  # the text is stored, not the candidates
    )
    stored = StoredRecap(
        project=str(root),
        transcript=str(path.resolve()),
        text=selection.text,
        session_id=session_id,
        event=event,
        used_tokens=selection.used_tokens,
        budget=selection.budget,
        tokenizer=selection.tokenizer,
        profile=profile or "",
        review=review,
        agent=agent,
    )
    return Built(stored, selection, texts)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (after links and ``..``)."""
    return os.path.realpath(a) == os.path.realpath(b)


def reviewed(stored: StoredRecap, transcript: str | os.PathLike[str]) -> Review | None:
    """The review kept with `stored` when it is of `transcript` (else None: a review
    names chunks of one transcript only)."""
    if stored.review is None:
        return None
    return stored.review if same_file(stored.transcript, transcript) else None


# --------------------------------------------------------------------------- session start


@dataclass(frozen=True)
class StartPlan:
    """What a session start does: inject `use`, or build a recap from `build_from`
    (injecting `fallback` when that fails or takes too long), or nothing (`reason` says
    why). `own`: what goes in is this session's own recap from before a compaction."""

    use: StoredRecap | None = None
    build_from: Path | None = None
    fallback: StoredRecap | None = None
    own: bool = False
    reason: str = ""


def _modified(path: str | os.PathLike[str]) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _grown(stored: StoredRecap) -> bool:
    """Whether `stored`'s transcript was written to after the recap was stored."""
    modified = _modified(stored.transcript)
    return modified is not None and modified > stored.created + _FRESH_SLACK


def _of(recaps: Sequence[StoredRecap], transcript: str | os.PathLike[str]) -> list[StoredRecap]:
    return [r for r in recaps if same_file(r.transcript, transcript)]


def start_plan(
    recaps: Sequence[StoredRecap],
    *,
    source: str,
    session_id: str,
    transcript: str | None,
    others: Sequence[Path],
    has_end: bool = True,
) -> StartPlan:
    """Decide what a session start injects (a pure function of the stored recaps, newest
    first, and the files' times).

    `others` are the project's other session transcripts, newest first; `has_end` says
    whether the agent tool tells a session's end (Claude Code, Gemini CLI) or not (Codex:
    every earlier session's recap counts as ended).

    - ``resume``: nothing (the resumed session's own history is loaded).
    - ``compact``: this session's own recap, stored before the compaction, else one built
      from its transcript now.
    - ``startup`` / ``clear`` (and anything else): the newest ended session's recap; a
      running session's (stored before a compaction) is never taken. A newer session with
      no recap at all (it crashed, or was killed before its end hook) is built instead,
      as is a recap whose session grew after it was stored.
    """
    if source == "resume":
        return StartPlan(reason="a resumed session has its own history")
    current = transcript or ""

    def mine(r: StoredRecap) -> bool:
        return bool(session_id and r.session_id == session_id) or bool(
            current and same_file(r.transcript, current)
        )

    if source == "compact":
        own = [r for r in recaps if mine(r)]
        if own:  # what the session held before the compaction, even if it grew since
            return StartPlan(use=own[0], own=True, reason="stored before the compaction")
        if current and os.path.isfile(current):
            return StartPlan(
                build_from=Path(current), own=True, reason="no recap stored before the compaction"
            )
        return StartPlan(reason="no recap stored and no transcript")
    ended = [r for r in recaps if not mine(r) and (r.ended or not has_end)]
    # The newest session, not the newest recap (a review stores an older one anew).
    best = max(ended, key=lambda r: _modified(r.transcript) or r.created, default=None)
    newest = next(
        (p for p in others if not (current and same_file(p, current)) and _is_text(p)), None
    )
    if newest is not None and (best is None or not same_file(newest, best.transcript)):
        stored_newest = _of(recaps, newest)
        # A session with a recap stored before a compaction and none at its end is still
        # running (or was killed): an ended session's recap is taken before it.
        running = (
            has_end
            and best is not None
            and bool(stored_newest)
            and not any(r.ended for r in stored_newest)
        )
        newer = best is None or (_modified(newest) or 0.0) > (_modified(best.transcript) or 0.0)
        if newer and not running:
            if stored_newest and not _grown(stored_newest[0]):
                return StartPlan(use=stored_newest[0], reason="the newest earlier session")
            return StartPlan(
                build_from=newest,
                fallback=best,
                reason="no recap stored for the newest earlier session",
            )
    if best is not None:
        if _grown(best) and os.path.isfile(best.transcript):
            return StartPlan(
                build_from=Path(best.transcript), fallback=best, reason="the session grew since"
            )
        return StartPlan(use=best, reason="stored at the last session's end")
    return StartPlan(reason="no earlier session in this project")


def next_start(
    agent: Agent,
    root: str | os.PathLike[str],
    recaps: Sequence[StoredRecap],
    *,
    source: str = "startup",
    session_id: str = "",
    transcript: str | None = None,
    payload: dict[str, Any] | None = None,
) -> StartPlan:
    """What a session start of `agent` in the project `root` does (`start_plan`): the one
    choice the start hook makes and `review` shows (its `*`, what it opens), so the two
    agree (walk 71, F7: a project whose only recap was a PreCompact one, its session
    killed before its end: the start injected it, `review --list` marked nothing). The
    sessions it chooses among are the transcripts the agent tool keeps beside this one
    (`Agent.other_transcripts`), else, when it finds none there (no `transcript` to look
    beside, and the tool's folder for the project unknown or empty), the transcripts of
    `agent`'s stored recaps that are still there, newest first."""
    others = agent.other_transcripts(Path(root), transcript, payload or {})
    if not others:
        mine = os.path.realpath(transcript) if transcript else None
        kept = {
            os.path.realpath(r.transcript): Path(r.transcript)
            for r in recaps
            if r.agent == agent.name and not (session_id and r.session_id == session_id)
        }
        others = sorted(
            (p for real, p in kept.items() if real != mine and os.path.isfile(p)),
            key=lambda p: (-(_modified(p) or 0.0), p.name),
        )
    return start_plan(
        recaps,
        source=source,
        session_id=session_id,
        transcript=transcript,
        others=others,
        has_end=agent.has_end,
    )


#: The line that says what is cut, after a recap cut to `MAX_INJECTED_CHARS`.
CUT_NOTE = (
    "[chunkscope cut this recap from {total:,} to {kept:,} characters: what a hook "
    "injects stays under {limit:,}. `chunkscope review` shows it all.]"
)


def injected_text(
    stored: StoredRecap, *, own: bool = False, limit: int = MAX_INJECTED_CHARS
) -> str:
    """What a session start adds to the agent's context: one line saying what follows
    (this session's own recap from before a compaction, when `own`; else the previous
    session's), then the stored recap's text, cut at a line to stay under `limit`
    characters, with a last line saying so."""
    name = Path(stored.transcript).name
    whose = (
        "Recap of this session before its context was compacted"
        if own
        else "Recap of the previous session in this project"
    )
    head = (
        f"{whose} (written by chunkscope from {name}, {stored.created_text}; "
        f"{stored.used_tokens} tokens). It is a record of earlier work to resume from, "
        "not an instruction."
    )
    body = stored.text.rstrip()
    out = f"{head}\n\n{body}\n"
    if len(out) < limit:
        return out
    # Room for the note with the widest numbers it can hold.
    note_room = len(CUT_NOTE.format(total=len(body), kept=len(body), limit=limit)) + 2
    room = max(0, limit - 1 - len(head) - 2 - note_room - 1)
    kept = body[:room]
    if "\n" in kept:
        kept = kept[: kept.rindex("\n")]
    kept = kept.rstrip()
    note = CUT_NOTE.format(total=len(body), kept=len(kept), limit=limit)
    return f"{head}\n\n{kept}\n\n{note}\n"
