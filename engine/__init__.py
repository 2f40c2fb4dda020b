"""chunkscope's engine: the chunking pipeline as plain functions and one `Pipeline`.

The seed's functions are exported under their own names and signatures, so code
written against the original pipeline runs on this one. Heavier modules (numpy,
tiktoken, openai) load on first use, so ``import chunkscope.engine`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from chunkscope.engine.errors import ChunkscopeError, ParseError, SourceError

if TYPE_CHECKING:
    from chunkscope.engine.chunk.split import chunk_turns, compact_chunks
    from chunkscope.engine.model import Chunk, Turn
    from chunkscope.engine.read.parse import load, parse_turns, parse_turns_md

#: The distribution whose installed metadata holds the version (pyproject.toml declares it).
DISTRIBUTION = "chunkscope"

# Even the readers load on first use: an agent tool's hook that only reads a stored
# recap (`engine.inject.recaps`) never pays for them.
_LAZY = {
    "Chunk": "chunkscope.engine.model",
    "Turn": "chunkscope.engine.model",
    "load": "chunkscope.engine.read.parse",
    "parse_turns": "chunkscope.engine.read.parse",
    "parse_turns_md": "chunkscope.engine.read.parse",
    "chunk_turns": "chunkscope.engine.chunk.split",
    "compact_chunks": "chunkscope.engine.chunk.split",
    "TokenCounter": "chunkscope.engine.tokens",
    "get_counter": "chunkscope.engine.tokens",
    "cosine_similarities": "chunkscope.engine.segment.merge",
    "merge_chunks": "chunkscope.engine.segment.merge",
    "merge": "chunkscope.engine.segment.merge",
    "MergeParams": "chunkscope.engine.segment.merge",
    "collapse_messages": "chunkscope.engine.recap.collapse",
    "summarize_chunks": "chunkscope.engine.summarize",
    "Pipeline": "chunkscope.engine.pipeline",
}

__all__ = [
    "Chunk",
    "ChunkscopeError",
    "ParseError",
    "SourceError",
    "Turn",
    "__version__",
    "chunk_turns",
    "compact_chunks",
    "load",
    "parse_turns",
    "parse_turns_md",
    *_LAZY,
]


def _version() -> str:
    """The installed distribution's version (pyproject.toml's, read from its metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value = globals()[name] = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
