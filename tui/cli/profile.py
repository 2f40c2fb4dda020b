"""`chunkscope profile list|show NAME|delete NAME|path`: the named parameter sets.

`chunk`, `recap` and the workbench use one with ``--profile NAME``; how its values
combine with the flags is `engine.config.settings.resolve_tuning`'s one rule (flags win).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from chunkscope.engine.config.settings import (
    Profile,
    config_path,
    delete_profile,
    get_profile,
    load_settings,
    toml_value,
)
from chunkscope.tui.cli.common import note, write_out

# --------------------------------------------------------------------------- profile command


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _profile_json(profile: Profile) -> dict[str, Any]:
    return {k: _jsonable(v) for k, v in profile.as_dict().items()}


def _show_value(field: str, value: Any) -> str:
    if field == "max_passes" and value == 0:
        return "∞ (to the fixed point)"
    if field == "max_chunk_chars" and value == 0:
        return "no cap"
    return toml_value(value)  # as config.toml has it: false, "topic", 0.5


def _summary(profile: Profile) -> str:
    parts = [f"{k} {_show_value(k, v)}" for k, v in profile.as_dict().items()]
    return " · ".join(parts) if parts else "(all defaults)"


def _out(text: str) -> None:
    write_out(text)


def cmd_profile_list(args: argparse.Namespace) -> int:
    path = config_path()
    profiles = load_settings(path).profiles
    if args.format == "json":
        doc = {
            "config": str(path),
            "profiles": {n: _profile_json(profiles[n]) for n in sorted(profiles)},
        }
        _out(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not profiles:
        note(f"no profiles saved yet ({path})")
        return 0
    width = max(len(n) for n in profiles)
    _out("".join(f"{n:<{width}}  {_summary(profiles[n])}\n" for n in sorted(profiles)))
    return 0


def cmd_profile_show(args: argparse.Namespace) -> int:
    path = config_path()
    profile = get_profile(args.name, path)
    if args.format == "json":
        doc = {"name": args.name, "config": str(path), "profile": _profile_json(profile)}
        _out(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return 0
    values = profile.as_dict()
    lines = [f"profile {args.name}  ({path})"]
    width = max((len(k) for k in values), default=0)
    lines.extend(f"  {k:<{width}}  {_show_value(k, v)}" for k, v in values.items())
    unset = [k for k in Profile.known_keys() if k not in values]
    if unset:
        lines.append(f"  defaults for: {', '.join(unset)}")
    _out("\n".join(lines) + "\n")
    return 0


def cmd_profile_delete(args: argparse.Namespace) -> int:
    path = config_path()
    delete_profile(args.name, path)
    note(f"deleted profile {args.name} from {path}")
    return 0


def cmd_profile_path(args: argparse.Namespace) -> int:
    _out(f"{config_path()}\n")
    return 0


def add_profile_parser(sub: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Add ``profile list|show NAME|delete NAME|path`` to the subcommands `sub`.

    Each action sets ``run`` (a function of the args returning the exit status), like the
    other subcommands. Errors are ``SettingsError`` (``ChunkscopeError``).
    """
    profile: argparse.ArgumentParser = sub.add_parser(
        "profile",
        help="list, show, delete or path: the saved parameter profiles",
        description=(
            "Profiles are named sets of merge and recap parameters saved from the workbench "
            "(or by hand) in the config file; `chunk` and `recap` use one with --profile NAME."
        ),
        examples=(
            "chunkscope profile list",
            "chunkscope profile show tight --format json",
            "chunkscope profile delete tight",
        ),
    )
    actions = profile.add_subparsers(
        dest="profile_action", metavar="ACTION", required=True, parser_class=type(profile)
    )
    lst = actions.add_parser(
        "list",
        help="the saved profiles, one a line",
        examples=("chunkscope profile list", "chunkscope profile list --format json"),
    )
    lst.add_argument("--format", choices=("text", "json"), default="text")
    lst.set_defaults(run=cmd_profile_list)
    show = actions.add_parser(
        "show",
        help="one profile's parameters",
        examples=("chunkscope profile show tight", "chunkscope profile show tight --format json"),
    )
    show.add_argument("name", metavar="NAME")
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(run=cmd_profile_show)
    delete = actions.add_parser(
        "delete",
        help="remove a profile from the config file",
        examples=("chunkscope profile delete tight", "chunkscope profile list"),
    )
    delete.add_argument("name", metavar="NAME")
    delete.set_defaults(run=cmd_profile_delete)
    path = actions.add_parser(
        "path",
        help="print the config file's path",
        examples=("chunkscope profile path", "chunkscope profile list"),
    )
    path.set_defaults(run=cmd_profile_path)
    return profile
