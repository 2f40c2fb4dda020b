"""`chunkscope cache info|clear`: the on-disk cache of embeddings and summaries."""

from __future__ import annotations

import argparse
import json
from typing import Any

from chunkscope.tui.cli.common import note, write_out

#: The actions of `chunkscope cache`, as typed (the help names these, not synonyms).
ACTIONS = ("info", "clear")


def add_cache_parser(sub: Any) -> argparse.ArgumentParser:
    cache: argparse.ArgumentParser = sub.add_parser(
        "cache",
        help=f"{' or '.join(ACTIONS)}: the on-disk embedding/summary cache",
        examples=(
            "chunkscope cache info",
            "chunkscope cache info --format json",
            "chunkscope cache clear",
        ),
    )
    cache.add_argument("action", choices=ACTIONS)
    cache.add_argument("--format", choices=("text", "json"), default="text")
    cache.set_defaults(run=cmd_cache)
    return cache


def cmd_cache(args: argparse.Namespace) -> int:
    from chunkscope.engine.embed.cache import EmbeddingCache

    with EmbeddingCache(warn=note) as cache:
        if args.action == "clear":
            removed = cache.clear()
            write_out(f"removed {removed} entries from {cache.path}\n")
            return 0
        info = cache.info()
    if args.format == "json":
        write_out(json.dumps(info, indent=2, default=str) + "\n")
        return 0
    lines = [f"cache: {info['path']}" + ("" if info["persistent"] else " (in memory)")]
    lines.append(f"size: {info['size_bytes'] / 1024:.1f} KiB")
    for row in info["vectors"]:
        lines.append(
            f"  {row['count']:>8} vectors  {row['backend']}:{row['model']} ({row['dim']} dims)"
        )
    if not info["vectors"]:  # the "other entries" below are other than these
        lines.append(f"  {0:>8} vectors")
    lines.append(f"  {info['json_entries']:>8} other entries (summaries)")
    write_out("\n".join(lines) + "\n")
    return 0
