"""Real public agent sessions with topic starts marked by a person (`bench/realseg/`).

    python bench/realdata.py fetch [--dir DIR] [--mirrors DIR]   # the sessions not committed
    python bench/realdata.py list                # each session, its split and its marks

Each session has a gold file ``bench/realseg/NAME.gold`` in the plain gold format
(`engine.evaluate.gold`): one topic start a line (a 1-based source line), each with a ``#``
comment saying why it starts a topic. The marks were written by reading the session
(the user's prompts, the agent's answers and plan) before any segmenter ran on it.
Sources, commits and licences are in ``bench/realseg/SOURCES.md``.

Sessions committed under ``tests/fixtures/`` are read from there; the others are not
committed (no licence, or too big): `fetch` downloads them at their recorded commit into
``bench/recap_sessions/`` (gitignored, shared with the recap bench), where the bench
looks for them, with the recap bench's sessions (``bench/recap_facts/*.json``). With
``--mirrors DIR`` (bare clones as ``DIR/OWNER+NAME/repo``, e.g. ``/work/.mirror``) a file is
read from its mirror first, for a machine that reaches no GitHub.
``dev`` sessions were looked at while the segmenter was changed;
``heldout`` sessions were only scored; ``heldout2`` sessions were marked later (round 2
of issue 37), before the segmenter ran on them, and scored only once changes were done;
``dev2`` sessions (four mini-swe-agent runs, round 4) were marked before the segmenter ran
on them and then looked at, as ``dev`` is, while the phase cues changed; ``dev3`` sessions
(four more, never used by any bench before) were marked before the segmenter ran on them
and scored once with the round's phase cue as it stood, a fresh check, before any change
was made on them; ``dev4`` sessions (issue 37, second pass: two DeepSeek reasoner runs of
mini-swe-agent, an aider project in architect mode) were marked before any segmenter ran on
them, then looked at as ``dev`` is; ``dev5`` (issue 37, the agent's plan: a Claude Code
session with a TodoWrite plan) likewise. ``heldout3`` (issue 37, third pass) are sessions no
bench had used (an aider project in architect mode working through its own task list,
mini-swe-agent runs of models and folders not used before), marked and committed before
any segmenter ran on them, scored once before the round's changes and once after.
``dev6`` and ``heldout4`` (issue 37, a fifth format) are real Gemini CLI sessions of one
person's public archive (CC0), marked and committed before any segmenter ran on them: two
looked at as ``dev`` is, three held out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD_DIR = ROOT / "bench" / "realseg"
SESSIONS_DIR = ROOT / "bench" / "recap_sessions"


@dataclass(frozen=True)
class RealSession:
    """One marked session: its gold file's name, split, format, and where it lives
    (a committed fixture, or a file `fetch` downloads from ``repo`` at ``commit``)."""

    name: str
    split: str
    fmt: str
    repo: str
    commit: str
    path: str
    fixture: str | None = None  # a path under the repository root, when committed
    local: str | None = None  # the file name under SESSIONS_DIR, when fetched

    def file(self, sessions: Path = SESSIONS_DIR) -> Path:
        if self.fixture is not None:
            return ROOT / self.fixture
        assert self.local is not None
        return sessions / self.local

    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"

    def gold(self) -> Path:
        return GOLD_DIR / f"{self.name}.gold"


#: The splits, in the order the tables show them.
SPLITS = (
    "dev",
    "dev2",
    "dev3",
    "dev4",
    "dev5",
    "dev6",
    "heldout",
    "heldout2",
    "heldout3",
    "heldout4",
)

SPOTTER = ("marot/spotter", "8cc42b0bd39d04e71e509d7d58e6782ab435329f")
MINI = ("SWE-agent/mini-swe-agent", "ec0e8e849fea5b1619deb1753007201000904672")
GEMINI = ("mischa-thisness/M-Gemini", "3bad8d462ef0a93165eb373a44f09a77910e5ecd")

SESSIONS = [
    # dev: looked at while the segmenter changed
    RealSession(
        "spotter-8463c716",
        "dev",
        "claude-code",
        *SPOTTER,
        "test/fixtures/transcripts/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        local="spotter-8463c716.jsonl",
    ),
    RealSession(
        "spotter-ae4a77f8",
        "dev",
        "claude-code",
        *SPOTTER,
        "test/fixtures/transcripts/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        local="spotter-ae4a77f8.jsonl",
    ),
    RealSession(
        "spotter-fa812bfe",
        "dev",
        "claude-code",
        *SPOTTER,
        "test/fixtures/transcripts/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
        local="spotter-fa812bfe.jsonl",
    ),
    RealSession(
        "aider-metadata",
        "dev",
        "aider",
        "AbdulAlkawasmeh/metadata-aider",
        "b7544e2",
        ".aider.chat.history.md",
        fixture="tests/fixtures/aider/metadata-aider.aider.chat.history.md",
    ),
    RealSession(
        "aider-calculator",
        "dev",
        "aider",
        "AndrewJacop/Simple-Calulator",
        "8424ac2df6c180fb363157fbace9b1d71f774161",
        ".aider.chat.history.md",
        local="aider-calculator.md",
    ),
    RealSession(
        "curry-poems",
        "dev",
        "claude-code",
        "moredip/session-share",
        "5bcd6c6fc60fe4a7d3aa8c68315b89103300be65",
        "samples/claude-code-projects/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl",
        fixture="tests/fixtures/hooks_cc_curry_poems.jsonl",
    ),
    RealSession(
        "mini-django-11099",
        "dev",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_test_1-100/django__django-11099/django__django-11099.traj.json",
        local="mini-django-11099.traj.json",
    ),
    # dev, second part (round 4): four more mini-swe-agent runs, marked before any
    # segmenter ran on them, looked at while the segmenter changed (its phase cues)
    RealSession(
        "mini-pydicom-1256",
        "dev2",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev/pydicom__pydicom-1256/pydicom__pydicom-1256.traj.json",
        local="mini-pydicom-1256.traj.json",
    ),
    RealSession(
        "mini-astroid-1978",
        "dev2",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev/pylint-dev__astroid-1978/pylint-dev__astroid-1978.traj.json",
        local="mini-astroid-1978.traj.json",
    ),
    RealSession(
        "mini-django-13447",
        "dev2",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_test_1-100/django__django-13447/django__django-13447.traj.json",
        local="mini-django-13447.traj.json",
    ),
    RealSession(
        "mini-astropy-14182",
        "dev2",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_test_1-100/astropy__astropy-14182/astropy__astropy-14182.traj.json",
        local="mini-astropy-14182.traj.json",
    ),
    # dev, third part (round 4): four more mini-swe-agent runs never used before, marked
    # before any segmenter ran on them and scored once with the round's cue as it stood
    # (a fresh check), then looked at as dev is
    RealSession(
        "mini-pvlib-1072",
        "dev3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json",
        local="mini-pvlib-1072.traj.json",
    ),
    RealSession(
        "mini-sqlfluff-1625",
        "dev3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev/sqlfluff__sqlfluff-1625/sqlfluff__sqlfluff-1625.traj.json",
        local="mini-sqlfluff-1625.traj.json",
    ),
    RealSession(
        "mini-pyvista-4315",
        "dev3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev/pyvista__pyvista-4315/pyvista__pyvista-4315.traj.json",
        local="mini-pyvista-4315.traj.json",
    ),
    RealSession(
        "mini-django-15213",
        "dev3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_test_1-100/django__django-15213/django__django-15213.traj.json",
        local="mini-django-15213.traj.json",
    ),
    # dev, fourth part (round 2 of issue 37's second pass): sessions of the kinds the
    # held-out misses are (a reasoner's run whose words are in thinking turns, an aider
    # project in architect mode), marked before any segmenter ran on them
    RealSession(
        "mini-r-marshmallow-1343",
        "dev4",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_reasoner_dev/marshmallow-code__marshmallow-1343/"
        "marshmallow-code__marshmallow-1343.traj.json",
        local="mini-r-marshmallow-1343.traj.json",
    ),
    RealSession(
        "mini-r-pvlib-1072",
        "dev4",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_reasoner_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json",
        local="mini-r-pvlib-1072.traj.json",
    ),
    RealSession(
        "aider-text2sql",
        "dev4",
        "aider",
        "BjornNordblom/pocketflow-text2sql-gui",
        "fa36619313c0eb9605ca446524c7c0b111af6b59",
        ".aider.chat.history.md",
        local="aider-text2sql.md",
    ),
    # dev, fifth part (issue 37, plan steps): a Claude Code session whose agent keeps a
    # TodoWrite plan, marked before any segmenter ran on it
    RealSession(
        "cc-graph-monitor",
        "dev5",
        "Claude Code",
        "kiliman/claude-transcript",
        "0aadbfaecadf2e4d99522c22fe573c847ed8dffa",
        "test/test2.jsonl",
        local="cc-graph-monitor.jsonl",
    ),
    # dev, sixth part (issue 37, a fifth format): real Gemini CLI sessions of one person's
    # desktop and system work, marked before any segmenter ran on them
    RealSession(
        "gemini-theme-toggle",
        "dev6",
        "gemini-cli",
        *GEMINI,
        "chat_logs/session-2025-12-30T01-31-271ace30.json",
        local="gemini-theme-toggle.json",
    ),
    RealSession(
        "gemini-legion-control",
        "dev6",
        "gemini-cli",
        *GEMINI,
        "chat_logs/session-2026-01-01T03-48-e0af73a9.json",
        local="gemini-legion-control.json",
    ),
    # held out: marked, never tuned on
    RealSession(
        "codex-rtchess",
        "heldout",
        "codex",
        "pinouchon/rtchess",
        "4272a68afdf63f79a34d5956e90413609dbcbeff",
        "dev_history/019aad50-a7e6-7422-b7a8-0b384290624f_rtchess_1.jsonl",
        local="codex-rtchess.jsonl",
    ),
    RealSession(
        "spotter-258c7280",
        "heldout",
        "claude-code",
        *SPOTTER,
        "test/fixtures/transcripts/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        local="spotter-258c7280.jsonl",
    ),
    RealSession(
        "aider-cargame",
        "heldout",
        "aider",
        "BeauCranston/car-game",
        "62288fd46cb451c94de0fd94835ffe221dd3cc75",
        ".aider.chat.history.md",
        local="aider-cargame.md",
    ),
    RealSession(
        "rust-port",
        "heldout",
        "claude-code",
        "DRMacIver/claude-reliability",
        "4e49f16",
        "snapshot-tests/tests/python-to-rust-port/transcript.jsonl",
        fixture="tests/fixtures/heldout/claude-code/python-to-rust-port.jsonl",
    ),
    RealSession(
        "mini-sqlfluff-2419",
        "heldout",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_reasoner_dev/sqlfluff__sqlfluff-2419/sqlfluff__sqlfluff-2419.traj.json",
        local="mini-sqlfluff-2419.traj.json",
    ),
    # held out, second part: marked in round 2 before any segmenter ran on them, and
    # scored only at the end (bench/realseg/SOURCES.md)
    RealSession(
        "aider-health",
        "heldout2",
        "aider",
        "0xf1e/health-analyzer-poc",
        "87686c139eecd296ea3ab9c72b4e0c9197f68668",
        ".aider.chat.history.md",
        local="aider-health.md",
    ),
    RealSession(
        "aider-catalog",
        "heldout2",
        "aider",
        "AndreasDebel/HaaV-CatalogService",
        "05c597791229845186ac91dd9c468f9285637b28",
        ".aider.chat.history.md",
        local="aider-catalog.md",
    ),
    RealSession(
        "spotter-4d5611e5",
        "heldout2",
        "claude-code",
        *SPOTTER,
        "test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
        local="spotter-4d5611e5.jsonl",
    ),
    RealSession(
        "mini-astropy-12907",
        "heldout2",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_test_1-100/astropy__astropy-12907/astropy__astropy-12907.traj.json",
        local="mini-astropy-12907.traj.json",
    ),
    RealSession(
        "mini-marshmallow-1359",
        "heldout2",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev/marshmallow-code__marshmallow-1359/"
        "marshmallow-code__marshmallow-1359.traj.json",
        local="mini-marshmallow-1359.traj.json",
    ),
    # held out, third part (issue 37, third pass): never used by any bench before, marked
    # and committed before any segmenter ran on them; scored once before the round's
    # changes (on dev only) and once after
    RealSession(
        "aider-docproc",
        "heldout3",
        "aider",
        "AndrewJacop/doc_processor",
        "d79684cb10302d4e059691275ca598f53e1166b4",
        ".aider.chat.history.md",
        local="aider-docproc.md",
    ),
    RealSession(
        "mini-lite-pydicom-1139",
        "heldout3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_lite_dev_noparallel/pydicom__pydicom-1139/pydicom__pydicom-1139.traj.json",
        local="mini-lite-pydicom-1139.traj.json",
    ),
    RealSession(
        "mini-r-sqlfluff-1625",
        "heldout3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_reasoner_dev/sqlfluff__sqlfluff-1625/sqlfluff__sqlfluff-1625.traj.json",
        local="mini-r-sqlfluff-1625.traj.json",
    ),
    RealSession(
        "mini-rerun-astroid-1866",
        "heldout3",
        "mini-swe-agent",
        *MINI,
        "output/deepseek_chat_dev_rerun/pylint-dev__astroid-1866/"
        "pylint-dev__astroid-1866.traj.json",
        local="mini-rerun-astroid-1866.traj.json",
    ),
    # held out, fourth part (issue 37, a fifth format): real Gemini CLI sessions no bench had
    # used, marked and committed before any segmenter ran on them
    RealSession(
        "gemini-yubikey-pam",
        "heldout4",
        "gemini-cli",
        *GEMINI,
        "chat_logs/session-2025-12-24T21-37-2ccb51c5.json",
        local="gemini-yubikey-pam.json",
    ),
    RealSession(
        "gemini-m-gemini-repo",
        "heldout4",
        "gemini-cli",
        *GEMINI,
        "chat_logs/session-2026-01-01T06-42-b1fc1c13.json",
        local="gemini-m-gemini-repo.json",
    ),
    RealSession(
        "gemini-slate-router",
        "heldout4",
        "gemini-cli",
        *GEMINI,
        "Archives/session-2026-01-11T00-25-17b4d5e9.json",
        local="gemini-slate-router.json",
    ),
]


def available(sessions: Path = SESSIONS_DIR) -> tuple[list[RealSession], list[RealSession]]:
    """The sessions whose file is here, and those missing (run `fetch`)."""
    here = [s for s in SESSIONS if s.file(sessions).is_file()]
    return here, [s for s in SESSIONS if s not in here]


FACTS_DIR = ROOT / "bench" / "recap_facts"
RETRIEVAL_DIR = ROOT / "bench" / "retrieval_data"


def sources() -> list[tuple[str, str, str, str]]:
    """Every file the real-data benches read that is not committed, once each:
    ``(repository, commit, path in it, file name under SESSIONS_DIR)``, from the marked
    sessions here, the recap bench's ``bench/recap_facts/*.json`` and the retrieval query
    sets ``bench/retrieval_data/*.queries.json`` that name a ``source``."""
    found: dict[str, tuple[str, str, str, str]] = {}
    for s in SESSIONS:
        if s.fixture is None and s.local is not None:
            found.setdefault(s.local, (s.repo, s.commit, s.path, s.local))
    for facts in sorted(FACTS_DIR.glob("*.json")):
        data = json.loads(facts.read_text(encoding="utf-8"))
        src, name = data["source"], data["file"]
        if "/" not in name:  # a committed fixture is named by its path
            found.setdefault(name, (src["repo"], src["commit"], src["path"], name))
    for qset in sorted(RETRIEVAL_DIR.glob("*.queries.json")):
        data = json.loads(qset.read_text(encoding="utf-8"))
        src, rel = data.get("source"), Path(data["file"])
        if src is not None and rel.parent == SESSIONS_DIR.relative_to(ROOT):
            found.setdefault(rel.name, (src["repo"], src["commit"], src["path"], rel.name))
    return list(found.values())


def _from_mirror(mirrors: Path, repo: str, commit: str, path: str) -> bytes | None:
    """The file at ``commit`` in a bare mirror ``MIRRORS/owner+name/repo``, if it is there."""
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        return None
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else None


def fetch(sessions: Path = SESSIONS_DIR, mirrors: Path | None = None) -> None:
    """Bring every file the benches need that is neither committed nor already here: from
    a local mirror of its repository when ``mirrors`` holds one, else from GitHub."""
    sessions.mkdir(parents=True, exist_ok=True)
    for repo, commit, path, name in sources():
        dest = sessions / name
        if dest.is_file():
            continue
        data = _from_mirror(mirrors, repo, commit, path) if mirrors is not None else None
        if data is None:
            url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
            print(f"fetching {url}", file=sys.stderr)
            with urllib.request.urlopen(url, timeout=60) as r:
                data = r.read()
        tmp = dest.with_suffix(".part")
        tmp.write_bytes(data)
        tmp.replace(dest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("fetch", "list"))
    ap.add_argument("--dir", type=Path, default=SESSIONS_DIR)
    ap.add_argument(
        "--mirrors",
        type=Path,
        help="a folder of bare mirrors, OWNER+NAME/repo, read before GitHub (git show COMMIT:PATH)",
    )
    args = ap.parse_args()
    if args.command == "fetch":
        fetch(args.dir, args.mirrors)
        return
    sys.path.insert(0, str(ROOT))
    from chunkscope.engine.evaluate.gold import read_gold

    for s in SESSIONS:
        marks = read_gold(s.gold())
        where = s.file(args.dir)
        state = "" if where.is_file() else "  (missing: run fetch)"
        print(f"{s.name:<22} {s.split:<8} {s.fmt:<15} {len(marks):>3} topics{state}")


if __name__ == "__main__":
    main()
