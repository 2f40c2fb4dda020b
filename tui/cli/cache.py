"""`chunkscope cache info|clear`: the on-disk cache of embeddings and summaries."""

from __future__ import annotations

import argparse
import json
from typing import Any

from chunkscope.tui.cli.common import note

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
            print(f"removed {removed} entries from {cache.path}")
            return 0
        info = cache.info()
    if args.format == "json":
        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"cache: {info['path']}" + ("" if info["persistent"] else " (in memory)"))
    print(f"size: {info['size_bytes'] / 1024:.1f} KiB")
    for row in info["vectors"]:
        print(f"  {row['count']:>8} vectors  {row['backend']}:{row['model']} ({row['dim']} dims)")
    if not info["vectors"]:  # the "other entries" below are other than these
        print(f"  {0:>8} vectors")
    print(f"  {info['json_entries']:>8} other entries (summaries)")
    return 0
