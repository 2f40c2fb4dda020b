"""The tunable parameters of a run, and how their layers combine.

A `Tuning` holds the knobs a user tunes (compaction, merge, recap); each part
is a parameters dataclass whose fields are declared once with `engine.params.knob`.
`PROFILE_KNOBS` (every knob by name) is the set of keys a profile may hold, and
`layer` combines values from lowest to highest precedence::

    defaults < config file < profile < flags given on the command line

`engine.config.settings.resolve` does that for the command line and the workbench alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeGuard

from chunkscope.engine.chunk.split import CompactParams
from chunkscope.engine.params import Knob, all_knobs, knob_map, knobs
from chunkscope.engine.recap.core import RecapParams
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.engine.segment.segmenter import TopicParams

__all__ = [
    "CHARS_PER_TOKEN",
    "MODE_PARAMS",
    "PROFILE_CLASSES",
    "PROFILE_KNOBS",
    "RENAMED_KNOBS",
    "RETIRED_KNOBS",
    "SHARED_KNOBS",
    "Tuning",
    "knob_modes",
    "layer",
    "setting_distance",
]

#: The parts of a `Tuning` (its field names) and their parameters dataclasses, whose
#: knobs a profile may set, in the order shown.
_PARTS: dict[str, type[Any]] = {
    "compact": CompactParams,
    "merge": MergeParams,
    "topic": TopicParams,
    "recap": RecapParams,
}
PROFILE_CLASSES: tuple[type[Any], ...] = tuple(_PARTS.values())
#: The parameters each merge mode reads besides ``mode`` itself: the seed loop's and
#: the topic segmenter's.
MODE_PARAMS: dict[str, type[Any]] = {"seed": MergeParams, "topic": TopicParams}
#: The knobs both merge modes read: the one size cap of a merged chunk (the seed loop
#: merges under it; the topic segmenter splits its topics to fit it).
SHARED_KNOBS: frozenset[str] = frozenset(
    k.name for k in knobs(MergeParams) if k.exclusive == "size cap"
)


def knob_modes(name: str) -> tuple[str, ...]:
    """The merge modes that read knob `name` (both for the size cap)."""
    if name in SHARED_KNOBS:
        return tuple(MODE_PARAMS)
    return tuple(mode for mode, cls in MODE_PARAMS.items() if name in knob_map(cls))


#: Profile keys of earlier versions, read and dropped (what replaced each): a saved
#: profile holds every knob, so refusing them would refuse every older config file.
RETIRED_KNOBS: dict[str, str] = {
    "topic_max_chars": "max_chunk_chars, the one size cap of both merge modes",
}

#: Knobs of earlier versions now given in another unit: old name -> (new name, how many
#: of the old unit make one of the new). A profile's value is read into the new knob
#: (`renamed_value`); the old flag is refused with the new one's name.
#: About how many characters make a token (cl100k_base on English prose and code): the
#: one conversion used where a size in chars meets one in tokens.
CHARS_PER_TOKEN = 4

RENAMED_KNOBS: dict[str, tuple[str, int]] = {
    # the merged chunks' size, in chars until the retrieval work, in tokens since (800
    # chars, the old default, are 200 tokens, the new one)
    "topic_chunk_chars": ("topic_chunk_tokens", CHARS_PER_TOKEN),
}


def renamed_value(name: str, value: Any) -> tuple[str, Any]:
    """The knob and value that an old profile key `name` (`RENAMED_KNOBS`) reads as."""
    new, per = RENAMED_KNOBS[name]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return new, round(value / per)
    return new, value  # not a number: the new knob's check says so


#: Every tunable knob by name (the profile keys).
PROFILE_KNOBS: dict[str, Knob] = all_knobs(PROFILE_CLASSES)


@dataclass(frozen=True)
class Tuning:
    """The tunable parameters of one run: one value per knob of `PROFILE_KNOBS`."""

    compact: CompactParams = field(default_factory=CompactParams)
    merge: MergeParams = field(default_factory=MergeParams)
    topic: TopicParams = field(default_factory=TopicParams)
    recap: RecapParams = field(default_factory=RecapParams)

    @property
    def min_chars(self) -> int:
        """The compaction's minimum chunk size (chars)."""
        return self.compact.min_chars

    def cap_in_chars(self) -> int | None:
        """The topic merge's size cap in chars (a cap in tokens at about `CHARS_PER_TOKEN`
        chars a token), or None (no cap, or not the topic merge)."""
        merge = self.merge
        if merge.mode != "topic":
            return None
        if merge.max_chunk_tokens is not None:
            return int(merge.max_chunk_tokens) * CHARS_PER_TOKEN
        return merge.max_chunk_chars

    def cap_words(self) -> str:
        """The size cap as a message says it: ``256 chars``, ``64 tokens (about 256 chars)``."""
        merge = self.merge
        if merge.max_chunk_tokens is not None:
            return f"{merge.max_chunk_tokens} tokens (about {self.cap_in_chars()} chars)"
        return f"{merge.max_chunk_chars} chars"

    def min_over_cap(self) -> int | None:
        """The size cap in chars (`cap_in_chars`) when the topic segmenter's minimum
        segment is larger than it, else None. The cap wins (a topic over it is split,
        below the minimum), so a minimum above it does nothing: a front end says so and
        lowers it."""
        cap = self.cap_in_chars()
        return cap if cap is not None and self.topic.topic_min_chars > cap else None

    def values(self) -> dict[str, Any]:
        """Every knob's value by name."""
        out: dict[str, Any] = {}
        for f in fields(self):
            part = getattr(self, f.name)
            for name in knob_map(type(part)):
                out[name] = getattr(part, name)
        return out

    def with_values(self, values: Mapping[str, Any]) -> Tuning:
        """This tuning with some knobs changed (validated; `ValueError` names the knob)."""
        return layer(self.values(), values)


@dataclass(frozen=True)
class MinSizeFit:
    """What `fit_min_size` decided: the topic min size to put in force (`now`, a step of
    its slider), the user's own value to remember (`chosen`; None: nothing to give back
    later), what to tell the user (without the front end's own prefix) and whether it is
    a warning."""

    now: int
    chosen: int | None
    said: str
    warning: bool


def fit_min_size(tuning: Tuning, chosen: int | None) -> MinSizeFit | None:
    """Keep the topic min size of `tuning` within its size cap, for a front end whose
    user moves both (the merge panel, a compare column): a min size over the cap is
    lowered to its slider's step at or below the cap, the user's own value (`chosen`, the
    one remembered from an earlier lowering, else the one in force) remembered and given
    back as far as the cap allows when it rises again. None: the min size stays."""
    knob = knob_map(TopicParams)["topic_min_chars"]
    grid = knob.slider

    def at_most(value: int) -> int:
        if grid is None:
            return value
        return int(grid.lo + max(0, (value - grid.lo) // grid.step) * grid.step)

    cap = tuning.min_over_cap()
    if cap is not None:
        wanted = tuning.topic.topic_min_chars if chosen is None else chosen
        now = at_most(cap)
        said = (
            f"min size {wanted} is over the size cap of {tuning.cap_words()}, which splits"
            f" any longer topic: min size set to {now} until the cap allows {wanted} again"
        )
        return MinSizeFit(now, wanted, said, True)
    if chosen is None:
        return None
    limit = tuning.cap_in_chars()
    if limit is None or chosen <= limit:
        said = f"the size cap allows min size {chosen} again: your min size is back"
        return MinSizeFit(chosen, None, said, False)
    now = at_most(limit)  # (a cap still below the user's min size, risen above the one shown)
    if now <= tuning.topic.topic_min_chars:
        return None
    said = (
        f"min size set to {now}, as much of your {chosen} as the size cap of"
        f" {tuning.cap_words()} allows; {chosen} comes back when the cap allows it"
    )
    return MinSizeFit(now, chosen, said, False)


def conflict(tuning: Tuning) -> str | None:
    """Why the knobs of `tuning` cannot work together, or None: a compaction minimum
    above the size cap in chars makes every compacted chunk too big for any merged one
    (each knob alone is in its range; together they are not). The minimum is the one in
    force: ``--min-chars`` in the seed's merge, ``--topic-unit-chars`` in the topic
    merge (walk 37, F4: the topic merge was refused for a ``--min-chars`` it never reads,
    and let through a unit minimum over the cap)."""
    cap = tuning.merge.max_chunk_chars
    if tuning.merge.max_chunk_tokens is not None or cap is None:
        return None
    if tuning.merge.mode == "topic":
        knob, least = knob_map(TopicParams)["topic_unit_chars"], tuning.topic.topic_unit_chars
    else:
        knob, least = knob_map(CompactParams)["min_chars"], tuning.min_chars
    if least <= cap:
        return None
    minimum = knob.flag
    maximum = knob_map(MergeParams)["max_chunk_chars"].flag
    return (
        f"{minimum} {least} is above the size cap {maximum} {cap}: compacted chunks of at "
        f"least {least} chars cannot fit a merged chunk of at most {cap}; lower {minimum} "
        f"or raise {maximum}"
    )


def exclusive_group(name: str) -> list[str]:
    """The other knobs of `name`'s exclusive group (the size cap in chars or tokens)."""
    group = PROFILE_KNOBS[name].exclusive
    if group is None:
        return []
    return [k.name for k in PROFILE_KNOBS.values() if k.exclusive == group and k.name != name]


def layer(*layers: Mapping[str, Any]) -> Tuning:
    """The declared defaults overlaid with `layers`, lowest precedence first.

    Each layer maps the knob names it sets to their values (a key left out is not
    set; None is a value: "no cap", "to the fixed point"). A layer
    that sets one knob of an exclusive group (the size cap in chars or in tokens)
    sets the whole group: the group's knobs it leaves unset go back to their
    defaults, so a cap in chars given on the command line keeps a profile's cap in
    tokens out. `ValueError` names an unknown knob or a value out of range.
    """
    values: dict[str, Any] = {name: k.default for name, k in PROFILE_KNOBS.items()}
    for given in layers:
        unknown = sorted(set(given) - set(PROFILE_KNOBS))
        if unknown:
            raise ValueError(f"unknown parameter {', '.join(unknown)}")
        present = dict(given)
        for name in present:
            for other in exclusive_group(name):
                if other not in present:
                    values[other] = PROFILE_KNOBS[other].default
        for name, value in present.items():
            values[name] = PROFILE_KNOBS[name].coerce(value)
    return Tuning(
        **{
            part: cls(**{name: values[name] for name in knob_map(cls)})
            for part, cls in _PARTS.items()
        }
    )


def setting_distance(values: Mapping[str, Any], other: Mapping[str, Any]) -> float:
    """How far apart two settings are: over the knobs of `values`, each numeric one's
    difference as a share of its slider's range, 1 for any other difference."""
    total = 0.0
    for name, value in values.items():
        there = other.get(name)
        if value == there:
            continue
        knob = PROFILE_KNOBS.get(name)
        if knob is not None and knob.slider is not None and _number(value) and _number(there):
            span = (knob.slider.hi - knob.slider.lo) or 1.0
            total += min(1.0, abs(float(value) - float(there)) / span)
        else:
            total += 1.0
    return total


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)
