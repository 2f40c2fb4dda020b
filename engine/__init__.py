"""chunkscope's engine: the chunking pipeline as plain functions and one `Pipeline`.

The seed's functions are exported under their own names and signatures, so code
written against the original pipeline runs on this one. Heavier modules (numpy,
tiktoken, openai) load on first use, so ``import engine`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.errors import ChunkscopeError, ParseError, SourceError

if TYPE_CHECKING:
    from engine.model import Chunk, Turn
    from engine.parse import load, parse_turns, parse_turns_md
    from engine.split import chunk_turns, compact_chunks

#: The distribution whose installed metadata holds the version (pyproject.toml declares it).
DISTRIBUTION = "chunkscope"

# Even the readers load on first use: an agent tool's hook that only reads a stored
# recap (`engine.inject`) never pays for them.
_LAZY = {
    "Chunk": "engine.model",
    "Turn": "engine.model",
    "load": "engine.parse",
    "parse_turns": "engine.parse",
    "parse_turns_md": "engine.parse",
    "chunk_turns": "engine.split",
    "compact_chunks": "engine.split",
    "TokenCounter": "engine.tokens",
    "get_counter": "engine.tokens",
    "cosine_similarities": "engine.merge",
    "merge_chunks": "engine.merge",
    "merge": "engine.merge",
    "MergeParams": "engine.merge",
    "collapse_messages": "engine.collapse",
    "summarize_chunks": "engine.summarize",
    "Pipeline": "engine.pipeline",
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
