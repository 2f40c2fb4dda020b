"""Speed of the markdown strategy against peer splitters, on real markdown, in one process.

    /work/benchvenv/bin/python bench/strategies.py [--tokens 150000] [--repeat 5]

The corpus is the markdown long descriptions (READMEs) in the METADATA of the
installed distributions (this interpreter's site-packages, plus any given with
``--site``), concatenated in name order until about ``--tokens`` tokens: real
markdown written by others, read from disk, no network.

Peers, each skipped with a note when not installed (install them in a bench
environment only, never in the project's dependencies)::

    python -m venv /work/benchvenv
    /work/benchvenv/bin/pip install -e /work/main chonkie langchain-text-splitters semchunk

* chonkie ``RecursiveChunker`` (chunk_size 450, cl100k_base tokenizer; it has no overlap)
* LangChain ``RecursiveCharacterTextSplitter`` (450 / 50, the seed's code-aware
  separators, a tiktoken length function)

Also the other chunkscope strategies on the corpus as turns, for reference.
Prints the median wall and CPU time of ``--repeat`` runs and each peer's wall time
relative to ours (ours encodes a text over 0.5 MB on two threads, so its CPU time is
above its wall time).

``--whole`` times whole processes instead (imports, reading, chunking, writing
JSON), every contestant in turn, ``--repeat`` runs after one untimed run each, on
the three corpora of issue 34, one table each and then one side by side::

    chunkscope chunk DOCS.md --strategy markdown --max-tokens 450 --overlap 50 --format json

against scripts that read DOCS.md, chunk it with the same cl100k_base encoding at
the same size and write their chunks as JSON: chonkie's ``RecursiveChunker(450)``
(it has no overlap), semchunk (450, overlap 50) and LangChain's
``RecursiveCharacterTextSplitter`` (450/50, a tiktoken length function; ``--peers``
picks some). The peers run with ``openai`` hidden: chonkie imports it when it is
installed, and in a bench environment it is there only as chunkscope's dependency
(about 1 s of imports; ``--peers-with-openai`` keeps it). The corpora: npm's docs x8
(``/usr/lib/node_modules/npm/docs/content/**/*.md``, the files in name order, 8
times), the READMEs above repeated to ``--mb`` MB (4.9), and the markdown of npm's
dependencies x7; ``--docs GLOB --copies N`` runs one corpus of other files instead.
``--against DIR`` also times our command with another checkout's code (before a
change) and checks that its JSON is the same.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import site
import statistics
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable
from email.parser import Parser
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chunkscope.engine.chunk.strategies import get_strategy, make_params
from chunkscope.engine.chunk.strategies.markdown import MarkdownStrategy
from chunkscope.engine.tokens import get_counter

BEST: dict[str, float] = {}
#: The issue's bar: our whole process at most this share of chonkie's time.
TARGET = 0.7  # the fastest run of each interleaved contestant

SEED_SEPARATORS = ["\n```", "\n## ", "\n### ", "\n\n", "\n", ". ", " ", ""]


def _site_dirs(extra: Iterable[str]) -> list[str]:
    dirs = [sysconfig.get_paths()["purelib"], *site.getsitepackages(), *extra]
    seen: dict[str, None] = {}
    for d in dirs:
        if os.path.isdir(d):
            seen.setdefault(os.path.realpath(d), None)
    return list(seen)


def readmes(site_dirs: Iterable[str]) -> list[tuple[str, str]]:
    """(distribution, markdown long description) of every installed distribution that has one."""
    found: dict[str, str] = {}
    for d in site_dirs:
        for meta in sorted(glob.glob(os.path.join(d, "*.dist-info", "METADATA"))):
            try:
                raw = Path(meta).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            msg = Parser().parsestr(raw)
            if "markdown" not in (msg.get("Description-Content-Type") or "").lower():
                continue
            body = msg.get_payload()
            name = (msg.get("Name") or Path(meta).parent.name).lower()
            if isinstance(body, str) and body.strip() and name not in found:
                found[name] = body
    return sorted(found.items())


def build_corpus(target_tokens: int, site_dirs: Iterable[str]) -> tuple[str, list[str], int]:
    counter = get_counter()
    parts: list[str] = []
    names: list[str] = []
    total = 0
    for name, body in readmes(site_dirs):
        parts.append(body.strip())
        names.append(name)
        total += counter.count(body)
        if total >= target_tokens:
            break
    text = "\n\n".join(parts) + "\n"
    return text, names, counter.count(text)


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of `repeat` runs."""
    wall: list[float] = []
    cpu: list[float] = []
    out: Any = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(wall), statistics.median(cpu), out


def interleaved(
    fns: dict[str, Callable[[], Any]], repeat: int
) -> dict[str, tuple[float, float, Any]]:
    """Median wall and CPU seconds of each function, the runs taken in turn (a, b, c,
    a, b, c...) so that a slow spell of the machine hits every contestant alike.

    Wall time is what a user waits for; CPU time is what other processes on the
    machine do not inflate, and what a splitter that uses more than one thread
    (ours encodes a long text on two) spends in all: both are printed.
    """
    wall: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    outs: dict[str, Any] = {}
    for _ in range(repeat):
        for k, fn in fns.items():
            w0, c0 = time.perf_counter(), time.process_time()
            outs[k] = fn()
            cpu[k].append(time.process_time() - c0)
            wall[k].append(time.perf_counter() - w0)
    BEST.update({k: min(v) for k, v in wall.items()})
    return {k: (statistics.median(wall[k]), statistics.median(cpu[k]), outs[k]) for k in fns}


#: The peers' scripts (``python -c SCRIPT DOCS.md OUT.json SIZE OVERLAP``): each reads the
#: file, chunks it with the same cl100k_base encoding as ours (from chunkscope.engine.tokens,
#: offline) at the same token size, and writes its chunks (text and offsets) as JSON.
PEER_HEAD = """
import json, sys
if sys.argv[5] == "hide-openai":  # as when the peer is installed alone (see --peers-with-openai)
    sys.modules["openai"] = None
"""
PEER_TAIL = """
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump({"chunks": out}, f)
"""
PEER_SCRIPTS: dict[str, tuple[str, str]] = {
    "chonkie": (
        "chonkie RecursiveChunker({size}) (no overlap option)",
        """
from chonkie import RecursiveChunker
from chunkscope.engine.tokens import get_counter
text = open(sys.argv[1], encoding="utf-8").read()
enc = get_counter()._encoding
chunks = RecursiveChunker(tokenizer=enc, chunk_size=int(sys.argv[3]))(text)
out = [{"index": i, "text": c.text, "tokens": c.token_count, "start": c.start_index,
        "end": c.end_index} for i, c in enumerate(chunks)]
""",
    ),
    "semchunk": (
        "semchunk chunkerify({size})(overlap={overlap})",
        """
import semchunk
from chunkscope.engine.tokens import get_counter
text = open(sys.argv[1], encoding="utf-8").read()
enc = get_counter()._encoding
chunker = semchunk.chunkerify(enc, int(sys.argv[3]))
texts, spans = chunker(text, offsets=True, overlap=int(sys.argv[4]))
out = [{"index": i, "text": t, "start": a, "end": b}
       for i, (t, (a, b)) in enumerate(zip(texts, spans))]
""",
    ),
    "langchain": (
        "langchain RecursiveCharacterTextSplitter({size}/{overlap})",
        """
from langchain_text_splitters import RecursiveCharacterTextSplitter
from chunkscope.engine.tokens import get_counter
text = open(sys.argv[1], encoding="utf-8").read()
enc = get_counter()._encoding
splitter = RecursiveCharacterTextSplitter(
    chunk_size=int(sys.argv[3]), chunk_overlap=int(sys.argv[4]), separators=SEPARATORS,
    length_function=lambda s: len(enc.encode(s, disallowed_special=())))
out = [{"index": i, "text": t} for i, t in enumerate(splitter.split_text(text))]
""".replace("SEPARATORS", repr(SEED_SEPARATORS)),
    ),
}
#: The module each peer needs (it is skipped with a note when missing).
PEER_MODULES = {
    "chonkie": "chonkie",
    "semchunk": "semchunk",
    "langchain": "langchain_text_splitters",
}
NPM = "/usr/lib/node_modules/npm"
#: The three corpora of issue 34: (label, --docs glob or None for the READMEs, copies).
CORPORA: tuple[tuple[str, str | None, int], ...] = (
    ("npm's docs x8", f"{NPM}/docs/content/**/*.md", 8),
    ("READMEs repeated", None, 1),
    ("npm's dependencies' markdown x7", f"{NPM}/node_modules/**/*.md", 7),
)


def corpus_text(docs: str | None, copies: int, mb: float, site: Iterable[str]) -> tuple[str, int]:
    """DOCS.md: the files of the glob `docs` in name order, `copies` times, or (None) the
    installed distributions' READMEs repeated to `mb` MB; with how many files."""
    if docs:
        files = sorted(glob.glob(docs, recursive=True))
        parts = [Path(f).read_text(encoding="utf-8", errors="replace").strip() for f in files]
        return ("\n\n".join(parts) + "\n\n") * max(1, copies), len(parts)
    parts = [body.strip() for _, body in readmes(_site_dirs(site))]
    one = "\n\n".join(parts) + "\n\n"
    target = int(mb * 1_000_000)
    text = (one * (target // len(one.encode()) + 1))[:target]
    return text[: text.rfind("\n\n")] + "\n", len(parts)


def whole_process(args: argparse.Namespace) -> int:
    """Wall and CPU time of whole processes: our CLI against the peers' scripts, on the
    three corpora of issue 34 (or on ``--docs``), every contestant in turn."""
    import json
    import shutil
    import subprocess
    import tempfile

    if args.docs:
        if not glob.glob(args.docs, recursive=True):
            print(f"skip: no file matches {args.docs}")
            return 1
        corpora = [(f"{args.docs} x{max(1, args.copies)}", args.docs, args.copies)]
    else:
        corpora = [c for c in CORPORA if c[1] is None or glob.glob(c[1], recursive=True)]
        for label, docs, _ in CORPORA:
            if (label, docs, _) not in corpora:
                print(f"skip: {label}: no file matches {docs}")
    cli = shutil.which("chunkscope", path=os.path.dirname(sys.executable)) or shutil.which(
        "chunkscope"
    )
    if cli is None:
        print("skip: no chunkscope command next to this interpreter")
        return 1
    size, overlap = str(args.size), str(args.overlap)
    peers: list[str] = []
    for name in args.peers.split(","):
        if not name:
            continue
        try:
            __import__(PEER_MODULES[name])
        except ImportError:
            print(f"skip: {name} is not installed")
        else:
            peers.append(name)
    hide = "keep-openai" if args.peers_with_openai else "hide-openai"
    if not args.peers_with_openai:
        print(
            "peers run with openai hidden (chonkie imports it when it is installed, and it is "
            "here only as chunkscope's dependency; --peers-with-openai keeps it)"
        )
    # Every process runs as after an install: with its modules' bytecode cached (pip
    # compiles a package it installs; an editable install's first run writes it). A
    # PYTHONDONTWRITEBYTECODE in this shell would make every run of ours compile its own
    # sources again while the peers' site-packages stay compiled. One untimed run of each
    # writes the bytecode and the encoding's table cache and warms the file cache.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    root = str(Path(__file__).resolve().parent.parent)
    codes = {"chunkscope": root, "before": str(Path(args.against or root).resolve())}
    results: list[tuple[str, dict[str, tuple[float, float, float, int]]]] = []
    for label, docs, copies in corpora:
        text, n_files = corpus_text(docs, copies, args.mb, args.site)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "DOCS.md")
            Path(path).write_text(text, encoding="utf-8")
            print(
                f"\n{label}: DOCS.md of {n_files} files, {len(text.encode()) / 1e6:.1f} MB, "
                f"{text.count(chr(10)):,} lines"
            )
            ours = [cli, "chunk", path, "--strategy", "markdown", "--max-tokens", size,
                    "--overlap", overlap, "--format", "json"]  # fmt: skip
            cmds: dict[str, list[str]] = {"chunkscope": ours}
            if args.against:  # the same command with another checkout's code
                cmds["before"] = ours
            for name in peers:
                script = PEER_HEAD + PEER_SCRIPTS[name][1] + PEER_TAIL
                out = os.path.join(tmp, f"{name}.json")
                cmds[name] = [sys.executable, "-c", script, path, out, size, overlap, hide]
            outs = {k: os.path.join(tmp, f"{k}.json") for k in cmds}

            def run(name: str, cmd: list[str], outs: dict[str, str] = outs) -> tuple[float, float]:
                """Wall and CPU seconds (user + system) of one run."""
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                here = {**env, "PYTHONPATH": codes.get(name, root)}
                if name in ("chunkscope", "before"):
                    with open(outs[name], "wb") as f:
                        subprocess.run(
                            cmd, stdout=f, stderr=subprocess.DEVNULL, check=True, env=here
                        )
                else:
                    subprocess.run(cmd, check=True, env=here)
                wall = time.perf_counter() - t0
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

            for name, cmd in cmds.items():
                run(name, cmd)
            walls: dict[str, list[float]] = {k: [] for k in cmds}
            cpus: dict[str, list[float]] = {k: [] for k in cmds}
            for _ in range(args.repeat):
                for name, cmd in cmds.items():
                    wall, cpu = run(name, cmd)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
            if args.against:
                same = Path(outs["before"]).read_bytes() == Path(outs["chunkscope"]).read_bytes()
                print(f"our JSON output before and after: {'identical' if same else 'DIFFERENT'}")
            row: dict[str, tuple[float, float, float, int]] = {}
            for name in cmds:
                doc = json.loads(Path(outs[name]).read_text(encoding="utf-8"))
                row[name] = (
                    min(walls[name]),
                    statistics.median(walls[name]),
                    statistics.median(cpus[name]),
                    len(doc["chunks"]),
                )
            results.append((label, row))
            _print_corpus(row, size, overlap, args.against)
    _print_side_by_side(results, size, overlap, args.against)
    return 0


def _label(name: str, size: str, overlap: str, against: str | None) -> str:
    if name == "chunkscope":
        return f"chunkscope chunk --strategy markdown {size}/{overlap} json"
    if name == "before":
        return f"  the same, before ({against})"
    return PEER_SCRIPTS[name][0].format(size=size, overlap=overlap) + " + json.dump"


def _print_corpus(
    row: dict[str, tuple[float, float, float, int]], size: str, overlap: str, against: str | None
) -> None:
    head = f"{'best s':>7} {'median s':>9} {'CPU s':>6} {'chunks':>7} {'vs ours':>8}"
    print(f"{'process':<66} {head}")
    print("-" * 108)
    best_ours = row["chunkscope"][0]
    for name, (best, med, cpu, n) in row.items():
        print(
            f"{_label(name, size, overlap, against):<66} {best:>7.2f} {med:>9.2f} {cpu:>6.2f} "
            f"{n:>7} {best / best_ours:>7.2f}x"
        )
    if "chonkie" in row:
        ratio = best_ours / row["chonkie"][0]
        cpu_ratio = row["chunkscope"][2] / row["chonkie"][2]
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(
            f"target: ours <= {TARGET}x chonkie's time: {verdict} ({ratio:.2f}x best wall, "
            f"{cpu_ratio:.2f}x median CPU)"
        )


def _print_side_by_side(
    results: list[tuple[str, dict[str, tuple[float, float, float, int]]]],
    size: str,
    overlap: str,
    against: str | None,
) -> None:
    """One table: a row per contestant, for each corpus its median wall and CPU seconds
    and ours over its time (best wall; median CPU)."""
    if not results:
        return
    names = list(results[0][1])
    width = 27
    print("\nside by side: median wall s / median CPU s; ours / theirs (best wall, median CPU)")
    print(f"{'':<44}" + "".join(f" | {label[:width]:<{width}}" for label, _ in results))
    print("-" * (44 + (width + 3) * len(results)))
    for name in names:
        cells = []
        for _, row in results:
            if name not in row:
                cells.append(" " * width)
                continue
            best, med, cpu, _n = row[name]
            ours = row["chunkscope"]
            rel = "" if name == "chunkscope" else f"{ours[0] / best:.2f}x, {ours[2] / cpu:.2f}x"
            cells.append(f"{med:5.2f} / {cpu:4.2f}  {rel:>13}")
        label = _label(name, size, overlap, against).replace(" + json.dump", "")[:44]
        print(f"{label:<44}" + "".join(f" | {c:<{width}}" for c in cells))
    verdicts = []
    for label, row in results:
        if "chonkie" in row:
            r = row["chunkscope"][0] / row["chonkie"][0]
            verdicts.append(f"{label}: {r:.2f}x ({'met' if r <= TARGET else 'NOT met'})")
    if verdicts:
        print(f"target: ours <= {TARGET}x chonkie's best wall time: " + "; ".join(verdicts))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=150_000, help="corpus size (150000)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per splitter (5)")
    ap.add_argument("--site", action="append", default=[], help="another site-packages dir")
    ap.add_argument("--size", type=int, default=450)
    ap.add_argument("--overlap", type=int, default=50)
    ap.add_argument(
        "--whole",
        action="store_true",
        help="whole processes instead, on the three corpora of issue 34 side by side",
    )
    ap.add_argument("--mb", type=float, default=4.9, help="the READMEs' size for --whole (4.9)")
    ap.add_argument("--docs", metavar="GLOB", help="--whole on these markdown files alone")
    ap.add_argument("--copies", type=int, default=1, help="copies of --docs (1)")
    ap.add_argument("--against", metavar="DIR", help="--whole: also our CLI with DIR's code")
    ap.add_argument(
        "--peers",
        default="chonkie,semchunk,langchain",
        help="--whole: the peers to run, comma-separated (chonkie,semchunk,langchain)",
    )
    ap.add_argument(
        "--peers-with-openai",
        action="store_true",
        help="--whole: let the peers import openai (chunkscope's dependency; chonkie "
        "imports it when installed, about 1 s)",
    )
    args = ap.parse_args(argv)
    if args.whole:
        return whole_process(args)

    text, names, n_tokens = build_corpus(args.tokens, _site_dirs(args.site))
    print(
        f"corpus: {len(names)} READMEs of installed distributions ({names[0]} .. {names[-1]}), "
        f"{len(text):,} chars, {n_tokens:,} tokens (cl100k_base)"
    )
    counter = get_counter()
    counter.count("warm up")
    enc: Any = counter._encoding  # the tiktoken Encoding itself, for the peers

    rows: list[tuple[str, float, float, int, str]] = []

    md = MarkdownStrategy(
        make_params("markdown", {"max_tokens": args.size, "overlap": args.overlap})
    )
    md.split_text(text[:2000], counter)  # builds the token length table once
    contestants: dict[str, Callable[[], Any]] = {"ours": lambda: md.split_text(text, counter)}

    try:
        from chonkie import RecursiveChunker  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        print("skip: chonkie is not installed")
    else:
        chonk = RecursiveChunker(tokenizer=enc, chunk_size=args.size)
        chonk(text[:2000])
        contestants["chonkie"] = lambda: chonk(text)

    try:
        from langchain_text_splitters import (  # type: ignore[import-not-found, unused-ignore]
            RecursiveCharacterTextSplitter,
        )
    except ImportError:
        print("skip: langchain-text-splitters is not installed")
    else:

        def tiktoken_len(s: str) -> int:
            return len(enc.encode(s, disallowed_special=()))

        lc = RecursiveCharacterTextSplitter(
            chunk_size=args.size,
            chunk_overlap=args.overlap,
            length_function=tiktoken_len,
            separators=SEED_SEPARATORS,
        )
        contestants["langchain"] = lambda: lc.split_text(text)

    contestants["floor"] = lambda: enc.encode_ordinary(text)
    results = interleaved(contestants, args.repeat)
    t_ours, c_ours, res = results["ours"]
    over = res.info["oversize_chunks"]
    rows.append(
        (
            f"chunkscope markdown {args.size}/{args.overlap}",
            t_ours,
            c_ours,
            len(res.chunks),
            f"integrity {res.info['integrity_score']:.3f}, {over} oversize (whole fences)",
        )
    )
    if "chonkie" in results:
        t, c, out = results["chonkie"]
        rows.append((f"chonkie RecursiveChunker {args.size}", t, c, len(out), "no overlap option"))
    if "langchain" in results:
        t, c, out = results["langchain"]
        rows.append(
            (
                f"langchain RecursiveCharacterTextSplitter {args.size}/{args.overlap}",
                t,
                c,
                len(out),
                "tiktoken length function, the seed's separators",
            )
        )
    t_enc, c_enc, _ = results["floor"]
    rows.append(("(floor: one tiktoken encode of the corpus)", t_enc, c_enc, 0, "encode_ordinary"))

    # the turn strategies on the same text, one turn per README paragraph block
    from chunkscope.engine.model import Turn

    turns = [Turn(None, "Doc", p, None, i) for i, p in enumerate(text.split("\n\n")) if p.strip()]
    cases: tuple[tuple[str, dict[str, Any]], ...] = (
        ("blank-line", {}),
        ("sliding-window", {"max_tokens": args.size, "overlap": args.overlap}),
        (
            "sliding-window",
            {
                "max_tokens": args.size,
                "overlap": args.overlap,
                "preserve_message_boundaries": False,
            },
        ),
        ("boundary", {"max_tokens": args.size * 4}),
        ("episodic", {}),
    )
    for name, params in cases:
        try:
            strat = get_strategy(name, params)
        except ValueError as e:
            print(f"skip: {name}: {e}")
            continue
        t, c, r = timed(partial(strat.split, turns, counter), max(1, args.repeat // 2))
        label = name + ("" if params.get("preserve_message_boundaries", True) else " (tokens)")
        rows.append((f"chunkscope {label} (reference)", t, c, len(r.chunks), f"{len(turns)} turns"))

    print()
    print(f"{'splitter':<58} {'wall s':>8} {'cpu s':>8} {'chunks':>7} {'vs ours':>8}  note")
    print("-" * 110)
    for label, t, c, n, note in rows:
        print(f"{label:<58} {t:>8.4f} {c:>8.4f} {n:>7} {t / t_ours:>7.2f}x  {note}")
    print("(medians; 'vs ours' compares wall times)")
    best = BEST.get("ours", t_ours)
    print(
        "fastest runs (wall s): "
        + ", ".join(f"{k} {v:.4f} ({v / best:.2f}x)" for k, v in BEST.items())
    )
    print()
    peers = {label.split()[0]: (t, c) for label, t, c, _, _ in rows}
    if "chonkie" in peers:
        t, c = peers["chonkie"]
        print(
            f"target: at least as fast as chonkie: {'met' if t >= t_ours else 'NOT met'} "
            f"({t / t_ours:.2f}x in wall time; {c / c_ours:.2f}x in CPU time)"
        )
    if "langchain" in peers:
        t, c = peers["langchain"]
        print(
            f"target: at least 2x faster than langchain: "
            f"{'met' if t >= 2 * t_ours else 'NOT met'} "
            f"({t / t_ours:.2f}x in wall time; {c / c_ours:.2f}x in CPU time)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
