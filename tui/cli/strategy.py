"""The chunking-strategy options of `chunkscope chunk` and their JSON output.

`add_strategy_args(parser)` adds ``--strategy NAME`` and one flag per strategy
parameter (the flags come from the parameters' metadata in
`engine.chunk.strategies`; a flag the parser already has, such as ``--max-tokens``,
is shared rather than added twice). `strategy_choice(args)` gives the
chosen strategy and its parameters for the pipeline; `strategy_json(...)`
adds each chunk's metadata and cut reason, and the strategy's document-level
information, to the JSON document. Without ``--strategy`` nothing changes.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from chunkscope.engine.chunk.strategies import DEFAULT_STRATEGY, STRATEGIES, ParamSpec, param_specs
from chunkscope.engine.chunk.strategies.dedup import COSINE_THRESHOLD, DEDUP_THRESHOLD
from chunkscope.engine.params import number_text
from chunkscope.engine.runjson import add_strategy
from chunkscope.tui.cli.common import CliError, Parser, knob_value, note

# Flags the `chunk` parser has for its own stages, shared with strategy parameters.
SHARED_FLAGS = frozenset({"--max-tokens", "--min-chars"})


def _flag_dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _all_specs() -> dict[str, list[ParamSpec]]:
    return {name: param_specs(name) for name in STRATEGIES}


class _ListStrategies(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        assert isinstance(parser, Parser)
        parser.print_and_exit(describe_strategies())


def describe_strategies() -> str:
    """Every strategy with its description and parameters (default, flag, range)."""
    lines: list[str] = []
    for name, desc in STRATEGIES.items():
        default = " (default)" if name == DEFAULT_STRATEGY else ""
        lines.append(f"{name}{default}: {desc}")
        for spec in param_specs(name):
            rng = ""
            if spec.minimum is not None or spec.maximum is not None:
                lo = "" if spec.minimum is None else number_text(spec.minimum)
                hi = "" if spec.maximum is None else number_text(spec.maximum)
                rng = f" [{lo}..{hi}]"
            flag = f" {spec.flag}" if spec.flag else ""
            lines.append(f"    {spec.name} = {spec.default!r}{rng}{flag}: {spec.help}")
    return "\n".join(lines) + "\n"


def add_strategy_args(p: argparse.ArgumentParser) -> None:
    """``--strategy`` and the strategies' parameter flags, in their own group."""
    g = p.add_argument_group("chunking strategy (see --list-strategies)")
    g.add_argument(
        "--strategy",
        choices=list(STRATEGIES),
        default=None,
        metavar="NAME",
        help=f"how to split: {', '.join(STRATEGIES)} (default {DEFAULT_STRATEGY})",
    )
    g.add_argument(
        "--list-strategies",
        action=_ListStrategies,
        help="list the strategies and their parameters, then exit",
    )
    existing = set(p._option_string_actions)  # flags the parser already has (shared)
    added: dict[str, ParamSpec] = {}
    all_specs = _all_specs()
    for specs in all_specs.values():
        for spec in specs:
            flag = spec.flag
            if flag is None or flag in existing or flag in added:
                continue
            added[flag] = spec
            users = [n for n, ss in all_specs.items() if any(s.flag == flag for s in ss)]
            helptext = f"{spec.help} ({', '.join(users)})"
            if flag.startswith("--no-"):
                # The parameter is on by default; the flag switches it off.
                helptext = f"switch off (on by default): {spec.help} ({', '.join(users)})"
            if spec.type == "bool":
                g.add_argument(flag, action="store_true", default=None, help=helptext)
            else:
                kind: Any = {"int": int, "float": float}.get(spec.type.rstrip("?"), str)
                g.add_argument(flag, type=kind, default=None, metavar="X", help=helptext)
    g.add_argument(
        "--dedup",
        action="store_true",
        help=f"report near-duplicate chunks (cosine >= {COSINE_THRESHOLD:g} or a high "
        "character ratio)",
    )
    g.add_argument(
        str(DEDUP_THRESHOLD.flag),
        type=knob_value(DEDUP_THRESHOLD),
        default=DEDUP_THRESHOLD.default,
        metavar="X",
        help=f"{DEDUP_THRESHOLD.help}, 0 to 1 ({DEDUP_THRESHOLD.default:g})",
    )


def strategy_params_from_args(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """The parameters of strategy `name` that flags set (the others keep their defaults)."""
    out: dict[str, Any] = {}
    for spec in param_specs(name):
        if spec.flag is None or (name == "blank-line" and spec.name == "min_chars"):
            continue  # blank-line's minimum is the pipeline's own --min-chars
        value = getattr(args, _flag_dest(spec.flag), None)
        if value is None:
            continue
        if spec.type == "bool":
            if not value:
                continue
            value = not spec.flag.startswith("--no-")
        out[spec.name] = value
    return out


def check_token_cap(args: argparse.Namespace, name: str) -> None:
    """``--max-tokens`` without ``--embed`` caps the strategy's chunks; one without a size
    in tokens (blank-line, the default) would ignore it: refused, in one line."""
    own = {spec.flag for spec in param_specs(name)}
    if "--max-tokens" not in own and getattr(args, "max_tokens", None) and not args.embed:
        raise CliError(
            f"--max-tokens: the {name} strategy has no size cap in tokens; "
            "add --embed to cap the merged chunks, or choose a --strategy with one"
        )


def strategy_choice(args: argparse.Namespace) -> tuple[str, tuple[tuple[str, Any], ...]] | None:
    """``--strategy`` and its flags as (name, parameter pairs) for the pipeline; None
    without ``--strategy``. Flags of other strategies are noted as not applying."""
    from chunkscope.engine.chunk.strategies import make_params, params_key

    name = getattr(args, "strategy", None)
    if name is None:
        return None
    values = strategy_params_from_args(name, args)
    try:
        make_params(name, values)  # validate now: one readable line, not a traceback
    except (TypeError, ValueError) as e:
        # the parameters by the flags that set them ('overlap ... must be below
        # max_tokens' reads '--overlap ... must be below --max-tokens'; walk 15)
        said = str(e)
        for spec in param_specs(name):
            if spec.flag:
                said = re.sub(rf"(?<![\w-]){re.escape(spec.name)}\b", spec.flag, said)
        raise CliError(f"--strategy {name}: {said}") from None
    check_token_cap(args, name)
    own = {spec.flag for spec in param_specs(name)}
    ignored = sorted(
        {
            spec.flag
            for specs in _all_specs().values()
            for spec in specs
            if spec.flag
            and spec.flag not in own
            and spec.flag not in SHARED_FLAGS
            and getattr(args, _flag_dest(spec.flag), None) not in (None, False)
        }
    )
    if ignored:
        # as another merge mode's knobs are named (`_note_unread_knobs`): what reads them
        owners = sorted(
            {
                other
                for other, specs in _all_specs().items()
                if other != name and any(spec.flag in ignored for spec in specs)
            }
        )
        whose = " or ".join(f"--strategy {o}" for o in owners)
        note(f"{', '.join(ignored)}: not read by --strategy {name} (knobs of {whose})")
    return name, params_key(values)


def note_over_cap(pipe: Any, args: argparse.Namespace) -> None:
    """One line when a strategy's chunks go over its ``--max-tokens``: the strategy keeps
    a unit it cannot split (a message, a fence) or merges by a rule of its own, and
    flags each such chunk ``exceeds_limit`` (its JSON ``meta``): the cap is not silent."""
    name = getattr(args, "strategy", None)
    if name is None or name == DEFAULT_STRATEGY:
        return
    result = pipe.strategy_result()
    over = sum(1 for sc in result.chunks if sc.meta.get("exceeds_limit"))
    cap = result.params.get("max_tokens")
    if over and cap is not None:
        print(
            f"chunkscope: {over} of {len(result.chunks)} {name} chunks are over --max-tokens "
            f"{cap}: units it cannot split, or its own merge rule "
            "(meta.exceeds_limit in --format json)",
            file=sys.stderr,
        )


def strategy_json(pipe: Any, args: argparse.Namespace, doc: dict[str, Any]) -> None:
    """Add the strategy, per-chunk ``meta`` / ``reason`` and duplicates to `doc`."""
    name = getattr(args, "strategy", None)
    if name is None and not getattr(args, "dedup", False):
        return
    info = add_strategy(pipe, doc)
    if info.get("should_wait"):
        print(
            "chunkscope: should_wait: the last episode may still grow (--flush packs it)",
            file=sys.stderr,
        )
    if getattr(args, "dedup", False):
        from chunkscope.engine.chunk.strategies.dedup import find_duplicates

        texts = [c.text for c in pipe.compacted()]
        pairs = find_duplicates(
            texts, embedder=pipe.embedder, cosine_threshold=args.dedup_threshold
        )
        doc["duplicates"] = [d.as_dict() for d in pairs]
