"""The config file: theme, backends and named profiles of merge / recap parameters.

The file is TOML at ``platformdirs.user_config_path("chunkscope") / "config.toml"``; the
environment variable ``CHUNKSCOPE_CONFIG_DIR`` replaces that directory. It is read with
``tomllib`` and written with ``tomlkit``, atomically with mode 0600 (it may hold an API
key); saving edits the existing file in place, so the user's comments and layout stay::

    theme = "chunkscope-dark"

    [embedder]
    name = "openai"
    model = "text-embedding-3-small"
    base_url = "http://localhost:11434/v1"
    api_key = "sk-..."

    [summarizer]
    name = "extractive"

    [profiles.long-sessions]
    min_chars = 120
    threshold = "adaptive"          # or a fixed similarity such as 0.35
    std_k = 0.75
    always_merge = 0.85
    max_chunk_chars = 8192          # 0 means no size cap
    max_passes = 0                  # 0 means run to the fixed point
    budget = 1500

A profile key left out means "use the default". Keys and tables this module does not
know at the top level are kept as they are when the file is saved again.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.paths import config_dir

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

    from chunkscope.engine.config.tuning import Tuning
    from chunkscope.engine.segment.merge import MergeParams

CONFIG_NAME = "config.toml"
#: The workbench's own themes (`chunkscope.themes.builtin` draws them), the default first.
THEME_NAMES = ("chunkscope-dark", "chunkscope-light", "chunkscope-contrast")
DEFAULT_THEME = THEME_NAMES[0]
REDACTED = "***"

_PROFILE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)$")
_TOML_AT_END = re.compile(r"\s*\(at end of document\)$")


class SettingsError(ChunkscopeError):
    """The config file cannot be read or written, or a profile does not exist."""


# --------------------------------------------------------------------------- schema


def _redact(value: str | None) -> str | None:
    return None if value is None else REDACTED


@dataclass
class _BackendSettings:
    """Which backend a stage uses, and where. `api_key` never shows in repr."""

    name: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, model={self.model!r}, "
            f"base_url={self.base_url!r}, api_key={_redact(self.api_key)!r})"
        )

    def redacted(self) -> dict[str, str | None]:
        """A plain view for printing: the key, if any, is ``***``."""
        return {
            "name": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "api_key": _redact(self.api_key),
        }

    def with_environment(self, environ: Mapping[str, str] | None = None) -> Self:
        """Fill an unset base URL / key from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``."""
        env = os.environ if environ is None else environ
        return replace(
            self,
            base_url=self.base_url or env.get("OPENAI_BASE_URL") or None,
            api_key=self.api_key or env.get("OPENAI_API_KEY") or None,
        )


@dataclass(repr=False)
class EmbedderSettings(_BackendSettings):
    """``[embedder]``: which embedder, and where."""


@dataclass(repr=False)
class SummarizerSettings(_BackendSettings):
    """``[summarizer]``: which summarizer, and where."""


class ProfileError(SettingsError, ValueError):
    """A profile value out of its knob's range (a `SettingsError` and a `ValueError`)."""


class Profile:
    """A named set of tunable parameters: knob name -> value, as the config file writes
    them. A key left out means "not set: use the default".

    The keys and their validation come from the knobs' declarations
    (`engine.config.tuning.PROFILE_KNOBS`): a value a profile accepts is one the engine
    accepts. TOML has no null, so a knob that may be None writes None as its
    ``none_is`` (``max_chunk_chars = 0`` is no size cap, ``max_passes = 0`` runs to
    the fixed point). Read a key as an attribute (``profile.std_k``, None if unset).
    """

    __slots__ = ("_values",)

    def __init__(self, **values: Any) -> None:
        from chunkscope.engine.config.tuning import PROFILE_KNOBS

        unknown = [k for k in values if k not in PROFILE_KNOBS]
        if unknown:
            raise TypeError(
                f"unknown profile key {unknown[0]!r} (known: {', '.join(PROFILE_KNOBS)})"
            )
        checked: dict[str, Any] = {}
        for name, knob in PROFILE_KNOBS.items():
            value = values.get(name)
            if value is None:
                continue
            try:
                knob.from_profile(value)
            except ValueError as e:
                raise ProfileError(str(e)) from None
            checked[name] = value
        self._values = checked

    def __getattr__(self, name: str) -> Any:
        from chunkscope.engine.config.tuning import PROFILE_KNOBS

        if name in PROFILE_KNOBS:
            return self._values.get(name)
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Profile):
            return NotImplemented
        return self._values == other._values

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Profile({inner})"

    @staticmethod
    def known_keys() -> list[str]:
        """Every key a profile may hold, in the order shown."""
        from chunkscope.engine.config.tuning import PROFILE_KNOBS

        return list(PROFILE_KNOBS)

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first value out of range (checked when built)."""
        Profile(**self._values)

    def values(self) -> dict[str, Any]:
        """The knob values this profile sets (``none_is`` read back as None): a layer
        for `engine.config.tuning.layer`."""
        from chunkscope.engine.config.tuning import PROFILE_KNOBS

        return {k: PROFILE_KNOBS[k].from_profile(v) for k, v in self._values.items()}

    def tuning(self, base: Tuning | None = None) -> Tuning:
        """The parameters of this profile over `base` (default: the declared defaults)."""
        from chunkscope.engine.config.tuning import Tuning, layer

        try:
            return layer((base or Tuning()).values(), self.values())
        except ValueError as e:
            raise SettingsError(f"profile: {e}") from None

    def to_merge_params(self, base: MergeParams | None = None) -> MergeParams:
        """The merge parameters of this profile, over `base` (default ``MergeParams()``)."""
        from chunkscope.engine.config.tuning import Tuning

        return self.tuning(Tuning() if base is None else Tuning(merge=base)).merge

    @classmethod
    def from_tuning(cls, tuning: Tuning) -> Profile:
        """A complete profile from the parameters currently in force."""
        from chunkscope.engine.config.tuning import PROFILE_KNOBS

        return cls(
            **{name: PROFILE_KNOBS[name].to_profile(v) for name, v in tuning.values().items()}
        )

    @classmethod
    def from_params(
        cls,
        merge_params: MergeParams,
        min_chars: int | None = None,
        budget: int | None = None,
        scorer: str | None = None,
    ) -> Profile:
        """A profile of the merge parameters in force (every merge knob) and the others given."""
        from chunkscope.engine.params import knobs

        values = {
            k.name: k.to_profile(getattr(merge_params, k.name)) for k in knobs(type(merge_params))
        }
        return cls(**values, min_chars=min_chars, budget=budget, scorer=scorer)

    def as_dict(self) -> dict[str, Any]:
        """The keys that are set, in declaration order (for display and JSON)."""
        return dict(self._values)


@dataclass
class Settings:
    """Everything in the config file. `repr` and `redacted()` never show an API key."""

    theme: str = DEFAULT_THEME
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    summarizer: SummarizerSettings = field(default_factory=SummarizerSettings)
    profiles: dict[str, Profile] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Top-level keys and tables this module does not know; written back unchanged."""

    def redacted(self) -> dict[str, Any]:
        """A plain, printable view (keys shown as ``***``)."""
        return {
            "theme": self.theme,
            "embedder": self.embedder.redacted(),
            "summarizer": self.summarizer.redacted(),
            "profiles": {name: p.as_dict() for name, p in sorted(self.profiles.items())},
        }

    def profile(self, name: str) -> Profile:
        """The profile `name`; ``SettingsError`` listing the known names if there is none."""
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none saved yet"
            raise SettingsError(f"no profile named {name!r} (known: {known})")
        return self.profiles[name]


# --------------------------------------------------------------------------- paths


def config_path() -> Path:
    """The config file's path (it may not exist yet)."""
    return config_dir() / CONFIG_NAME


def check_profile_name(name: str) -> str:
    """Return `name` if it is a valid profile name, else raise ``SettingsError``."""
    if not isinstance(name, str) or not _PROFILE_NAME.match(name):
        raise SettingsError(f"invalid profile name {name!r}: use 1-64 letters, digits, '-' or '_'")
    return name


# --------------------------------------------------------------------------- reading


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _line_of(text: str, table: str | None, key: str | None) -> int | None:
    """Best-effort line number of `key` in `[table]` (or of the table header)."""
    lines = text.splitlines()
    start = 0
    if table is not None:
        parts = r"\s*\.\s*".join(
            "[\"']?" + re.escape(part) + "[\"']?" for part in table.split(".", 1)
        )
        header = re.compile(r"^\s*\[\s*" + parts + r"\s*\]")
        for i, line in enumerate(lines):
            if header.match(line):
                start = i
                if key is None:
                    return i + 1
                break
        else:
            return None
    if key is None:
        return None
    pattern = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
    for i in range(start, len(lines)):
        if i > start and table is None and lines[i].lstrip().startswith("["):
            return None
        if pattern.match(lines[i]):
            return i + 1
    return None


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def fail(self, reason: str, table: str | None = None, key: str | None = None) -> SettingsError:
        line = _line_of(self.text, table, key)
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        return SettingsError(f"{where}: {reason}")

    def optional_str(self, data: Mapping[str, Any], table: str, key: str) -> str | None:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(f"[{table}] {key} must be a string, got {value!r}", table, key)
        return value

    def table(self, data: Mapping[str, Any], key: str) -> dict[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f"{key} must be a table", None, key)
        return value

    def backend(self, data: Mapping[str, Any], table: str) -> dict[str, str | None]:
        section = self.table(data, table)
        known = ("name", "model", "base_url", "api_key")
        for key in section:
            if key not in known:
                raise self.fail(
                    f"unknown key {key!r} in [{table}] (known: {', '.join(known)})", table, key
                )
        return {key: self.optional_str(section, table, key) for key in known}

    def profile(self, name: str, data: Any) -> Profile:
        table = f"profiles.{name}"
        if not isinstance(data, dict):
            raise self.fail(f"profiles.{name} must be a table", "profiles", name)
        from chunkscope.engine.config.tuning import RENAMED_KNOBS, RETIRED_KNOBS, renamed_value

        # a key of an older version (saved with every knob) is dropped, not refused, or
        # read into the knob that took its place, in that knob's unit
        data = {k: v for k, v in data.items() if k not in RETIRED_KNOBS}
        for old in [k for k in data if k in RENAMED_KNOBS]:
            new, value = renamed_value(old, data.pop(old))
            data.setdefault(new, value)
        known = Profile.known_keys()
        for key in data:
            if key not in known:
                raise self.fail(
                    f"unknown key {key!r} in [{table}] (known: {', '.join(known)})", table, key
                )
        try:
            return Profile(**data)
        except (TypeError, ValueError) as e:
            bad = next((k for k in known if str(e).startswith(k) and k in data), None)
            raise self.fail(f"[{table}] {e}", table, bad) from None

    def settings(self, data: dict[str, Any]) -> Settings:
        theme = data.get("theme", DEFAULT_THEME)
        if not isinstance(theme, str) or not theme:
            raise self.fail(f"theme must be a theme name, got {theme!r}", None, "theme")
        embedder = EmbedderSettings(**self.backend(data, "embedder"))
        summarizer = SummarizerSettings(**self.backend(data, "summarizer"))
        profiles: dict[str, Profile] = {}
        for name, table in self.table(data, "profiles").items():
            if not _PROFILE_NAME.match(name):
                raise self.fail(
                    f"invalid profile name {name!r}: use letters, digits, '-' or '_'",
                    f"profiles.{name}",
                    None,
                )
            profiles[name] = self.profile(name, table)
        extra = {
            k: v
            for k, v in data.items()
            if k not in ("theme", "embedder", "summarizer", "profiles")
        }
        return Settings(
            theme=theme, embedder=embedder, summarizer=summarizer, profiles=profiles, extra=extra
        )


def _decode_error(path: Path, text: str, error: tomllib.TOMLDecodeError) -> SettingsError:
    message = str(error)
    m = _TOML_POSITION.search(message)
    if m is not None:
        return SettingsError(f"{path}:{m.group(1)}: {message[: m.start()]}")
    m = _TOML_AT_END.search(message)
    if m is not None:
        last = max(1, len(text.splitlines()))
        return SettingsError(f"{path}:{last}: {message[: m.start()]} at the end of the file")
    return SettingsError(f"{path}: {message}")


def load_settings(path: str | Path | None = None) -> Settings:
    """Read the config file; a missing file is the defaults.

    Raises ``SettingsError`` (``path:line: reason``) when the file cannot be read, is not
    valid TOML, or holds a value of the wrong kind.
    """
    from chunkscope.engine.read.source import located, read_side_file, side_file_text

    target = config_path() if path is None else Path(path)
    try:
        raw = read_side_file(target)
    except FileNotFoundError:
        return Settings()
    except OSError as e:
        raise SettingsError(f"{target}: cannot read: {e.strerror or e}") from None

    try:
        text = side_file_text(raw, "a config file")  # refused as every input is
    except ValueError as e:
        raise SettingsError(f"{target}{located(str(e))}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _decode_error(target, text, e) from None
    return _Reader(target, text).settings(data)


# --------------------------------------------------------------------------- writing


_HEADER = "# chunkscope settings (comments and layout you add are kept)"
_PROFILES_NOTE = "# profiles: max_chunk_chars = 0 is no size cap, max_passes = 0 is no limit"
_KNOWN_TABLES = ("theme", "embedder", "summarizer", "profiles")


def _plain(value: Any) -> Any:
    """A tomlkit item as plain Python (other values as they are)."""
    return value.unwrap() if hasattr(value, "unwrap") else value


def _set_key(table: MutableMapping[str, Any], key: str, value: Any) -> None:
    """Set ``table[key]`` only if it changes; a new key goes after the table's last
    key, before the comments and blank lines that end it (they belong to what follows)."""
    if key in table:
        if _plain(table[key]) != value or type(_plain(table[key])) is not type(value):
            table[key] = value
        return
    container = getattr(table, "value", table)
    body = getattr(container, "body", None)
    keys = [k for k, _ in body if k is not None] if body is not None else []
    if keys and hasattr(container, "_insert_after"):
        import tomlkit

        container._insert_after(keys[-1].key, key, tomlkit.item(value))
    else:
        table[key] = value


def _sync_table(table: MutableMapping[str, Any], values: Mapping[str, Any]) -> None:
    """Make `table` hold exactly `values` (None: key left out), editing in place."""
    for key in [k for k in table if values.get(k) is None]:
        del table[key]
    for key, value in values.items():
        if value is not None:
            _set_key(table, key, value)


def _new_table(values: Mapping[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.table()
    for key, value in values.items():
        if value is not None:
            table[key] = value
    return table


def _document(base: str | None) -> TOMLDocument:
    import tomlkit
    import tomlkit.exceptions

    if base:
        try:
            return tomlkit.parse(base)
        except tomlkit.exceptions.ParseError:
            pass  # unreadable: written afresh (load_settings reports such a file first)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(_HEADER[2:]))
    return doc


def toml_value(value: Any) -> str:
    """`value` as the config file writes it (the TOML writer's own spelling: ``false``,
    ``"topic"``, ``7.0``, ``inf``), for a listing of settings or profiles."""
    import tomlkit

    try:
        return str(tomlkit.item(value).as_string())
    except (ValueError, TypeError):  # not a TOML value (None): as JSON names it
        import json

        return json.dumps(value, default=str)


def dumps_settings(settings: Settings, base: str | None = None) -> str:
    """The TOML text of `settings` (None values are left out).

    With `base` (the file's current text), that document is edited in place: the
    user's comments, key order and blank lines are kept, only changed keys are
    rewritten, new keys and tables are appended, and tables or keys that are gone
    are removed."""
    import tomlkit

    doc = _document(base)
    _set_key(doc, "theme", settings.theme)
    for name, backend in (("embedder", settings.embedder), ("summarizer", settings.summarizer)):
        values = {k: v for k, v in vars(backend).items() if v is not None}
        if name in doc:
            _sync_table(doc[name], values)
            if not doc[name]:
                del doc[name]
        elif values:
            doc[name] = _new_table(values)
    profiles_exist = "profiles" in doc
    if settings.profiles or profiles_exist:
        if not profiles_exist:
            doc.add(tomlkit.nl())
            doc.add(tomlkit.comment(_PROFILES_NOTE[2:]))
            doc["profiles"] = tomlkit.table(is_super_table=True)
        table = doc["profiles"]
        for name in [n for n in table if n not in settings.profiles]:
            del table[name]
        for name in sorted(settings.profiles):
            values = settings.profiles[name].as_dict()
            if name in table:
                _sync_table(table[name], values)
            else:
                table[name] = _new_table(values)
        if not settings.profiles and not table:
            del doc["profiles"]
    for key in [k for k in doc if k not in _KNOWN_TABLES and k not in settings.extra]:
        del doc[key]
    for key, value in settings.extra.items():
        _set_key(doc, key, value)
    try:
        return tomlkit.dumps(doc)
    except (TypeError, ValueError) as e:
        raise SettingsError(f"cannot write the config file: {e}") from None


def save_settings(settings: Settings, path: str | Path | None = None) -> Path:
    """Write `settings` atomically with mode 0600; the old file survives any failure.
    An existing file is edited in place (`dumps_settings`): its comments stay."""
    from chunkscope.engine.fileio import atomic_write_text, cannot_write
    from chunkscope.engine.read.source import read_side_file

    target = config_path() if path is None else Path(path)
    try:
        base: str | None = read_side_file(target).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        base = None
    text = dumps_settings(settings, base)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return atomic_write_text(target, text, mode=0o600)
    except OSError as e:
        raise SettingsError(cannot_write(target, e)) from None


# --------------------------------------------------------------------------- profiles


def list_profiles(path: str | Path | None = None) -> list[str]:
    """The names of the saved profiles, sorted."""
    return sorted(load_settings(path).profiles)


def get_profile(name: str, path: str | Path | None = None) -> Profile:
    """The profile `name`; ``SettingsError`` listing the known names if there is none."""
    return load_settings(path).profile(name)


def save_profile(name: str, profile: Profile, path: str | Path | None = None) -> Path:
    """Add or replace the profile `name` in the config file."""
    check_profile_name(name)
    profile.validate()
    settings = load_settings(path)
    settings.profiles[name] = profile
    return save_settings(settings, path)


def delete_profile(name: str, path: str | Path | None = None) -> None:
    """Remove the profile `name`; ``SettingsError`` if there is none."""
    settings = load_settings(path)
    settings.profile(name)  # raises if there is none
    del settings.profiles[name]
    save_settings(settings, path)


# --------------------------------------------------------------------------- resolving


Kind = Literal["embedder", "summarizer"]
#: The backend a stage uses when neither flags nor the config file name one.
DEFAULT_BACKENDS: dict[str, str] = {"embedder": "lexical", "summarizer": "extractive"}


@dataclass(frozen=True)
class Backend:
    """A stage's backend after flags and the config file are combined. The key never
    shows in repr; an unset URL/key is filled by the client from the environment."""

    name: str
    model: str | None
    base_url: str | None
    api_key: str | None = field(default=None, repr=False)


def resolve_backend(
    kind: Kind,
    name: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    *,
    settings: Settings | None = None,
    default: str | None = None,
) -> Backend:
    """Which backend `kind` uses: flags (`name`, `model`, `base_url`) win; the config
    file's ``[embedder]`` / ``[summarizer]`` fills what they leave; then `default`
    (`DEFAULT_BACKENDS`). The config's model, URL and key apply only while the backend
    is the one it names, so ``--embedder lexical`` never inherits an OpenAI model.
    `settings` defaults to the config file (`load_settings`)."""
    if settings is None:
        settings = load_settings()
    cfg = getattr(settings, kind)
    chosen = name or cfg.name or default or DEFAULT_BACKENDS[kind]
    same = cfg.name is None or cfg.name == chosen
    return Backend(
        name=chosen,
        model=model or (cfg.model if same else None),
        base_url=base_url or (cfg.base_url if same else None),
        api_key=cfg.api_key if same else None,
    )


def resolve_tuning(
    settings: Settings | None,
    profile: str | None = None,
    flags: Mapping[str, Any] | None = None,
    *,
    front: Mapping[str, Any] | None = None,
) -> Tuning:
    """The tunable parameters of a run, layered: the declared defaults < `front` (a
    front end's own defaults) < the config file's profile `profile` < `flags` (knob
    name -> value, only the knobs given on the command line or in the workbench's start
    options).

    The one place both fronts combine parameters. ``SettingsError`` for an unknown
    profile, or a value out of range (naming the knob).
    """
    from chunkscope.engine.config.tuning import layer

    layers: list[Mapping[str, Any]] = [front or {}]
    if profile:
        layers.append(
            (settings if settings is not None else load_settings()).profile(profile).values()
        )
    layers.append(flags or {})
    try:
        return layer(*layers)
    except ValueError as e:
        raise SettingsError(str(e)) from None
