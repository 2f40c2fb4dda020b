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


def within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """`path` with every symlink and ``..`` resolved, when that is `root` (a file) or
    inside it (a folder, itself resolved); `SourceError` otherwise. What a server that
    shows one file or folder opens: nothing outside it."""
    from chunkscope.engine.errors import SourceError

    real = Path(os.path.realpath(os.path.expanduser(path)))
    base = Path(os.path.realpath(os.path.expanduser(root)))
    if real == base or (base.is_dir() and base in real.parents):
        return real
    what = "the folder" if base.is_dir() else "the file"
    raise SourceError(os.fspath(path), f"outside {what} this server shows ({base})")


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether `within` keeps `path` (symlinks and ``..`` resolved): what a confined
    picker lists, reads or previews; nothing else."""
    from chunkscope.engine.errors import SourceError

    try:
        within(path, root)
    except SourceError:
        return False
    return True


def served_folder(root: str | os.PathLike[str]) -> Path:
    """The folder a server that shows `root` works in: `root` itself (a folder), or the
    folder of `root` (a file). Its picker starts there, its files are written there, and
    a relative path typed in it (``./_recap.md``, the default of every write) is taken
    there, never in the server's working directory."""
    base = Path(os.path.realpath(os.path.expanduser(root)))
    return base if base.is_dir() else base.parent


def served_path(value: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """`value` (a path typed in a workbench that a server confines to `root`): a relative
    path is taken in `served_folder`. Not checked: `within` does that."""
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else served_folder(root) / path


def served_write(value: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """Where a workbench that a server confines to `root` may write `value` (a typed
    path): inside `served_folder` (`within`), a new file (a served page overwrites
    nothing: not the file shown, not a file of the user's) with a name that is not
    hidden (``.bashrc``, ``.profile`` are read by a shell); `SourceError` otherwise."""
    from chunkscope.engine.errors import SourceError

    path = served_path(value, root)
    real = within(path, served_folder(root))
    if real.name.startswith("."):
        raise SourceError(os.fspath(value), "a served workbench writes no hidden file")
    if os.path.lexists(path) or real.exists():
        raise SourceError(
            os.fspath(value), "exists; a served workbench overwrites nothing: give a new name"
        )
    return path
