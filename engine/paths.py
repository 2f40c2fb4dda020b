"""Where chunkscope keeps its files: config, data and cache directories.

Each is the platform's user directory for chunkscope unless its environment
variable names another (tests and sandboxes set all three).
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_DIR_ENV = "CHUNKSCOPE_CONFIG_DIR"
DATA_DIR_ENV = "CHUNKSCOPE_DATA_DIR"
CACHE_DIR_ENV = "CHUNKSCOPE_CACHE_DIR"


def config_dir() -> Path:
    """``$CHUNKSCOPE_CONFIG_DIR`` or the platform's user config dir for chunkscope."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_config_path("chunkscope")


def data_dir() -> Path:
    """``$CHUNKSCOPE_DATA_DIR`` or the platform's user data dir for chunkscope (user
    themes, the topic marks of the files opened)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_data_path("chunkscope")


def cache_dir() -> Path:
    """``$CHUNKSCOPE_CACHE_DIR`` or the platform's user cache dir for chunkscope (the
    embedding and summary cache, the token encodings' tables)."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_cache_path("chunkscope")
