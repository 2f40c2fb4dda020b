"""Speed of the markdown strategy against peer splitters, on real markdown, in one process.

    /work/benchvenv/bin/python bench/strategies.py [--tokens 150000] [--repeat 5]

The corpus is the markdown long descriptions (READMEs) in the METADATA of the
installed distributions (this interpreter's site-packages, plus any given with
``--site``), concatenated in name order until about ``--tokens`` tokens: real
markdown written by others, read from disk, no network.

Peers, each skipped with a note when not installed (install them in a bench
environment only, never in the project's dependencies)::

    python -m venv /work/benchvenv
    /work/benchvenv/bin/pip install -e /work/main chonkie langchain-text-splitters

* chonkie ``RecursiveChunker`` (chunk_size 450, cl100k_base tokenizer; it has no overlap)
* LangChain ``RecursiveCharacterTextSplitter`` (450 / 50, the seed's code-aware
  separators, a tiktoken length function)

Also the other chunkscope strategies on the corpus as turns, for reference.
Prints the median wall and CPU time of ``--repeat`` runs and each peer's wall time
relative to ours (ours encodes a text over 0.5 MB on two threads, so its CPU time is
above its wall time).

``--whole`` times whole processes instead (imports, reading, chunking, writing
JSON), best of ``--repeat`` wall-clock runs taken in turn::

    chunkscope chunk DOCS.md --strategy markdown --max-tokens 450 --overlap 50 --format json

against a script running chonkie's ``RecursiveChunker(chunk_size=450)`` with the
same tiktoken encoding and writing its chunks as JSON. DOCS.md (``--mb``, 4.9 by
default, as in issue 15) is the READMEs above repeated, written to a temporary
directory (never committed). ``--docs GLOB --copies N`` builds DOCS.md from other
markdown instead (the files in name order, N times: npm's docs x8 is
``--docs '/usr/lib/node_modules/npm/docs/content/**/*.md' --copies 8``), and
``--against DIR`` also times our command with another checkout's code (before a
change), checks that its JSON is the same, and prints the CPU seconds of each.
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


CHONKIE_SCRIPT = """
import json, sys
from chonkie import RecursiveChunker
from chunkscope.engine.tokens import get_counter  # the same offline cl100k_base encoding as ours
text = open(sys.argv[1], encoding="utf-8").read()
enc = get_counter()._encoding
chunker = RecursiveChunker(tokenizer=enc, chunk_size=int(sys.argv[3]))
chunks = chunker(text)
out = [{"index": i, "text": c.text, "tokens": c.token_count, "start": c.start_index,
        "end": c.end_index} for i, c in enumerate(chunks)]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump({"chunks": out}, f)
"""


def whole_process(args: argparse.Namespace) -> int:
    """Wall time of whole processes: our CLI against a chonkie script, on ``--mb`` MB."""
    import json
    import shutil
    import subprocess
    import tempfile

    if args.docs:  # the files of a glob in name order, `--copies` times
        files = sorted(glob.glob(args.docs, recursive=True))
        if not files:
            print(f"skip: no file matches {args.docs}")
            return 1
        parts = [Path(f).read_text(encoding="utf-8", errors="replace").strip() for f in files]
        text = ("\n\n".join(parts) + "\n\n") * max(1, args.copies)
    else:
        parts = [body.strip() for _, body in readmes(_site_dirs(args.site))]
        one = "\n\n".join(parts) + "\n\n"
        target = int(args.mb * 1_000_000)
        text = (one * (target // len(one.encode()) + 1))[:target]
        text = text[: text.rfind("\n\n")] + "\n"
    cli = shutil.which("chunkscope", path=os.path.dirname(sys.executable)) or shutil.which(
        "chunkscope"
    )
    if cli is None:
        print("skip: no chunkscope command next to this interpreter")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        docs = os.path.join(tmp, "DOCS.md")
        Path(docs).write_text(text, encoding="utf-8")
        what = f"{args.docs} x{max(1, args.copies)}" if args.docs else "READMEs repeated"
        print(
            f"DOCS.md: {len(parts)} files ({what}), {len(text.encode()) / 1e6:.1f} MB, "
            f"{text.count(chr(10)):,} lines"
        )
        ours_out, peer_out = os.path.join(tmp, "ours.json"), os.path.join(tmp, "chonkie.json")
        size, overlap = str(args.size), str(args.overlap)
        cmds: dict[str, list[str]] = {
            "chunkscope": [
                cli, "chunk", docs, "--strategy", "markdown", "--max-tokens", size,
                "--overlap", overlap, "--format", "json",
            ],
        }  # fmt: skip
        try:
            import chonkie  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
        except ImportError:
            print("skip: chonkie is not installed (whole-process comparison)")
        else:
            cmds["chonkie"] = [sys.executable, "-c", CHONKIE_SCRIPT, docs, peer_out, size]
        # Both processes run as after an install: with their modules' bytecode cached (pip
        # compiles a package it installs; an editable install's first run writes it). A
        # PYTHONDONTWRITEBYTECODE in this shell would make every run of ours compile its own
        # sources again while the peer's site-packages stay compiled. One untimed run of each
        # writes the bytecode and the encoding's table cache and warms the file cache.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root  # our code (the peer's script reads our encoding from it)
        codes = {"chunkscope": root, "chonkie": root}
        if args.against:  # the same command with another checkout's code, e.g. before a change
            cmds = {"chunkscope": cmds["chunkscope"], "before": cmds["chunkscope"], **cmds}
            codes["before"] = str(Path(args.against).resolve())
        outs = {"chunkscope": ours_out, "before": os.path.join(tmp, "before.json")}

        def run(name: str, cmd: list[str]) -> tuple[float, float]:
            """Wall and CPU seconds (user + system) of one run."""
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            here = {**env, "PYTHONPATH": codes[name]}
            if name in outs:
                with open(outs[name], "wb") as f:
                    subprocess.run(cmd, stdout=f, check=True, env=here)
            else:
                subprocess.run(cmd, check=True, env=here)
            wall = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

        for name, cmd in cmds.items():
            run(name, cmd)
        times: dict[str, list[float]] = {k: [] for k in cmds}
        cpus: dict[str, list[float]] = {k: [] for k in cmds}
        for _ in range(args.repeat):
            for name, cmd in cmds.items():
                wall, cpu = run(name, cmd)
                times[name].append(wall)
                cpus[name].append(cpu)
        ours = json.loads(Path(ours_out).read_text(encoding="utf-8"))
        n_ours = len(ours["chunks"]) if isinstance(ours, dict) else len(ours)
        if args.against:
            same = Path(outs["before"]).read_bytes() == Path(ours_out).read_bytes()
            print(f"our JSON output before and after: {'identical' if same else 'DIFFERENT'}")
        print(
            f"\n{'process':<62} {'best s':>7} {'median s':>9} {'CPU s':>6} {'chunks':>7} "
            f"{'vs ours':>8}"
        )
        print("-" * 105)
        best_ours = min(times["chunkscope"])
        for name, ts in times.items():
            if name == "chunkscope":
                label, n = f"chunkscope chunk --strategy markdown {size}/{overlap} json", n_ours
            elif name == "before":
                label, n = f"  the same, before ({args.against})", n_ours
            else:
                label = f"chonkie RecursiveChunker({size}) + json.dump"
                n = len(json.loads(Path(peer_out).read_text(encoding="utf-8"))["chunks"])
            print(
                f"{label:<62} {min(ts):>7.2f} {statistics.median(ts):>9.2f} "
                f"{statistics.median(cpus[name]):>6.2f} {n:>7} {min(ts) / best_ours:>7.2f}x"
            )
        if "chonkie" in times:
            ratio = best_ours / min(times["chonkie"])
            cpu_ratio = statistics.median(cpus["chunkscope"]) / statistics.median(cpus["chonkie"])
            verdict = "met" if ratio <= TARGET else "NOT met"
            print(
                f"\ntarget: ours <= {TARGET}x chonkie's time: {verdict} ({ratio:.2f}x best wall, "
                f"{cpu_ratio:.2f}x median CPU)"
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=150_000, help="corpus size (150000)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per splitter (5)")
    ap.add_argument("--site", action="append", default=[], help="another site-packages dir")
    ap.add_argument("--size", type=int, default=450)
    ap.add_argument("--overlap", type=int, default=50)
    ap.add_argument("--whole", action="store_true", help="whole processes on --mb MB instead")
    ap.add_argument("--mb", type=float, default=4.9, help="DOCS.md size for --whole (4.9)")
    ap.add_argument("--docs", metavar="GLOB", help="--whole on these markdown files instead")
    ap.add_argument("--copies", type=int, default=1, help="copies of --docs (1)")
    ap.add_argument("--against", metavar="DIR", help="--whole: also our CLI with DIR's code")
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
