"""`chunkscope profile ...` and `--profile NAME` (the layering of `tuning_of`)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.engine.config.settings import (
    EmbedderSettings,
    Profile,
    Settings,
    SettingsError,
    list_profiles,
    load_settings,
    save_profile,
    save_settings,
)
from chunkscope.engine.config.tuning import Tuning
from chunkscope.engine.segment.merge import MergeParams
from chunkscope.tui.cli import build_parser, main
from chunkscope.tui.cli.common import Parser, add_profile_option, tuning_of
from chunkscope.tui.cli.profile import add_profile_parser

SECRET = "sk-never-printed-42"
ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "sample_logs" / "cache_refactor.jsonl"


pytestmark = pytest.mark.usefixtures("config_dir")


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="chunkscope")
    sub = parser.add_subparsers(dest="command")
    add_profile_parser(sub)
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    code: int = args.run(args)
    return code


def _chunk_args(*argv: str) -> argparse.Namespace:
    """The real `chunk` parser, so the option names are the real ones."""
    return build_parser().parse_args(["chunk", "log.jsonl", "--embed", *argv])


def _tuning(args: argparse.Namespace) -> Tuning:
    return tuning_of(args, load_settings())


def _tuned() -> Profile:
    return Profile(
        min_chars=120,
        threshold=0.3,
        std_k=0.9,
        always_merge=0.85,
        max_chunk_chars=4096,
        max_passes=3,
        min_similarity=0.05,
        budget=1500,
        scorer="recency",
    )


# --------------------------------------------------------------------------- --profile


def test_the_profile_fills_what_the_command_line_left_out() -> None:
    save_profile("tuned", _tuned())
    args = _chunk_args("--profile", "tuned")
    before = vars(args).copy()
    tuning = _tuning(args)
    assert tuning.min_chars == 120
    m = tuning.merge
    assert (m.threshold, m.std_k, m.always_merge) == (0.3, 0.9, 0.85)
    assert (m.max_chunk_chars, m.max_chunk_tokens) == (4096, None)
    assert (m.max_passes, m.min_similarity) == (3, 0.05)
    assert vars(args) == before  # the profile is not written into the flags


def test_command_line_flags_win_over_the_profile() -> None:
    save_profile("tuned", _tuned())
    args = _chunk_args(
        "--std-k", "0.2", "--threshold", "adaptive", "--min-chars", "0", "--profile", "tuned"
    )
    tuning = _tuning(args)
    assert tuning.merge.std_k == 0.2
    assert tuning.merge.threshold == "adaptive"
    assert tuning.min_chars == 0  # 0 is a value, not "unset"
    assert tuning.merge.always_merge == 0.85  # not given: from the profile


def test_the_profile_reaches_the_merge_parameters() -> None:
    save_profile("tuned", _tuned())
    args = _chunk_args("--always-merge", "0.95", "--profile", "tuned")
    assert _tuning(args).merge == MergeParams(
        threshold=0.3,
        std_k=0.9,
        always_merge=0.95,
        max_chunk_chars=4096,
        max_passes=3,
        min_similarity=0.05,
    )


def test_a_size_cap_on_the_command_line_keeps_the_profile_cap_out() -> None:
    save_profile("tokens", Profile(max_chunk_tokens=600, max_chunk_chars=9000))
    merge = _tuning(_chunk_args("--max-chars", "2000", "--profile", "tokens")).merge
    assert (merge.max_chunk_chars, merge.max_chunk_tokens) == (2000, None)
    plain = _tuning(_chunk_args("--profile", "tokens")).merge
    assert (plain.cap, plain.cap_unit) == (600, "tokens")  # the cap in force


def test_unlimited_passes_and_no_cap() -> None:
    save_profile("open", Profile(max_passes=0, max_chunk_chars=0))
    merge = _tuning(_chunk_args("--profile", "open")).merge
    assert (merge.max_passes, merge.max_chunk_chars, merge.cap) == (None, None, None)


def test_recap_options_budget_and_scorer() -> None:
    save_profile("tuned", _tuned())
    args = build_parser().parse_args(
        ["recap", "log.jsonl", "--scorer", "salience", "--profile", "tuned"]
    )
    tuning = _tuning(args)
    assert tuning.recap.budget == 1500
    assert tuning.recap.scorer == "salience"  # given
    assert tuning.merge.std_k == 0.9


def test_no_profile_is_the_defaults() -> None:
    assert _tuning(_chunk_args()) == Tuning()


def test_unknown_profile_names_the_known_ones() -> None:
    save_profile("alpha", Profile())
    with pytest.raises(SettingsError, match=r"no profile named 'beta' \(known: alpha\)"):
        _tuning(_chunk_args("--profile", "beta"))


def test_add_profile_option() -> None:
    parser = argparse.ArgumentParser()
    add_profile_option(parser)
    assert parser.parse_args(["--profile", "x"]).profile == "x"
    assert parser.parse_args([]).profile is None


# Bugs of the old two-step application (the profile written into the flags, then the
# merge built on the profile again), each reproduced through the real command.


def _chunk_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = main(["chunk", str(LOG), "--format", "json", *argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc: dict[str, object] = json.loads(captured.out)
    return doc


def test_a_profile_token_cap_is_not_the_strategy_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_profile("p", Profile(max_chunk_tokens=600))
    doc = _chunk_json(capsys, "--embed", "--strategy", "sliding-window", "--profile", "p")
    strategy = doc["strategy"]
    assert isinstance(strategy, dict)
    assert strategy["params"]["max_tokens"] == 1000  # the strategy's own default
    params = doc["params"]
    assert isinstance(params, dict)
    assert params["merge"]["max_chunk_tokens"] == 600


def test_merge_max_tokens_over_a_profile_char_cap(capsys: pytest.CaptureFixture[str]) -> None:
    save_profile("p", Profile(max_chunk_chars=4096))
    doc = _chunk_json(capsys, "--embed", "--merge-max-tokens", "500", "--profile", "p")
    params = doc["params"]
    assert isinstance(params, dict)
    assert params["merge"]["max_chunk_tokens"] == 500


def test_a_profile_refuses_what_the_merge_refuses() -> None:
    from chunkscope.engine.params import knobs

    for value in (float("inf"), float("nan"), "fixed"):
        with pytest.raises(SettingsError, match="threshold"):
            Profile(threshold=value)
    # Every merge knob: a value MergeParams refuses, a profile refuses when built.
    bad: dict[str, object] = {
        "mode": "loudest",
        "std_k": -1.0,
        "always_merge": float("nan"),
        "max_chunk_chars": -5,
        "max_chunk_tokens": 0,
        "max_passes": -1,
        "min_similarity": float("nan"),
    }
    for k in knobs(MergeParams):
        if k.name == "threshold":
            continue
        with pytest.raises(ValueError, match=k.name):
            MergeParams(**{k.name: bad[k.name]})  # type: ignore[arg-type]
        with pytest.raises(SettingsError, match=k.name):
            Profile(**{k.name: bad[k.name]})


def test_options_are_never_abbreviated(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["chunk", str(LOG), "--embed", "--merge-max", "5"])
    assert info.value.code == 2  # argparse's usage error: exit status 2
    assert "unrecognized arguments: --merge-max 5" in capsys.readouterr().err


def test_no_keep_blocks_help_says_it_switches_off(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["chunk", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--no-keep-blocks switch off (on by default): keep tables and lists whole" in text


# --------------------------------------------------------------------------- profile command


def test_profile_list_text_and_json(capsys: pytest.CaptureFixture[str], config_dir: Path) -> None:
    save_profile("zeta", Profile(threshold="adaptive", max_passes=0))
    save_profile("alpha", Profile(std_k=0.75, max_chunk_chars=0))
    assert _run(["profile", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == ["alpha", "zeta"]
    assert "std_k 0.75" in out[0] and "max_chunk_chars no cap" in out[0]
    assert "max_passes ∞" in out[1]
    assert _run(["profile", "list", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["config"] == str(config_dir / "config.toml")
    assert doc["profiles"] == {
        "alpha": {"std_k": 0.75, "max_chunk_chars": 0},
        "zeta": {"threshold": "adaptive", "max_passes": 0},
    }


def test_profile_list_when_there_are_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["profile", "list"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no profiles saved yet" in captured.err


def test_profile_show_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    save_profile("inf", Profile(always_merge=float("inf"), threshold=0.25))
    assert _run(["profile", "show", "inf"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("profile inf  (")
    assert "always_merge  inf" in out and "threshold     0.25" in out
    assert "defaults for: min_chars, std_k" in out
    assert _run(["profile", "show", "inf", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)  # strict JSON: no bare Infinity
    assert doc["name"] == "inf"
    assert doc["profile"] == {"threshold": 0.25, "always_merge": "inf"}


def test_profile_list_and_show_print_values_as_the_config_file_has_them(
    capsys: pytest.CaptureFixture[str], config_dir: Path
) -> None:
    """`profile list` and `show` printed ``plain False`` (Python's repr) where config.toml
    holds ``plain = false``: each value now reads as the file writes it."""
    save_profile("walkp", Profile(plain=False, mode="topic", topic_depth=7.5, budget=800))
    toml = (config_dir / "config.toml").read_text()
    assert _run(["profile", "show", "walkp"]) == 0
    shown = capsys.readouterr().out
    assert _run(["profile", "list"]) == 0
    listed = capsys.readouterr().out
    for key, value in (("plain", "false"), ("mode", '"topic"'), ("topic_depth", "7.5")):
        assert f"{key} = {value}" in toml
        assert re.search(rf"^  {key} +{re.escape(value)}$", shown, re.M), (key, shown)
        assert f"{key} {value}" in listed
    assert "False" not in shown + listed and "True" not in shown + listed


def test_profile_show_unknown_raises_a_settings_error() -> None:
    save_profile("one", Profile())
    with pytest.raises(SettingsError, match="known: one"):
        _run(["profile", "show", "two"])


def test_profile_delete(capsys: pytest.CaptureFixture[str]) -> None:
    save_profile("keep", Profile())
    save_profile("drop", Profile())
    assert _run(["profile", "delete", "drop"]) == 0
    assert "deleted profile drop" in capsys.readouterr().err
    assert list_profiles() == ["keep"]
    with pytest.raises(SettingsError, match="no profile named 'drop'"):
        _run(["profile", "delete", "drop"])


def test_profile_path(capsys: pytest.CaptureFixture[str], config_dir: Path) -> None:
    assert _run(["profile", "path"]) == 0
    assert capsys.readouterr().out == f"{config_dir / 'config.toml'}\n"


def test_profile_needs_an_action(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["profile"])
    assert "ACTION" in capsys.readouterr().err


def test_the_api_key_is_never_printed(capsys: pytest.CaptureFixture[str]) -> None:
    save_settings(
        Settings(
            embedder=EmbedderSettings(name="openai", api_key=SECRET),
            profiles={"p": Profile(std_k=1.0)},
        )
    )
    for argv in (["profile", "list"], ["profile", "show", "p", "--format", "json"]):
        assert _run(argv) == 0
        captured = capsys.readouterr()
        assert SECRET not in captured.out + captured.err


def test_a_profile_of_an_earlier_version_loads_and_keeps_the_tool_calls_switch(
    capsys: pytest.CaptureFixture[str], config_dir: Path
) -> None:
    """Issue 35: a profile holds knobs, no collapse setting, so one written before the
    `--collapse` switch (with a retired key) loads as it did; its merge mode is the
    run's, and the switch (`chunk` keeps calls by default) is the same in any mode."""
    config_dir.mkdir()
    (config_dir / "config.toml").write_text(
        '[profiles.old]\nmin_chars = 100\nmode = "seed"\ntopic_max_chars = 2048\n\n'
        "[profiles.topics]\ntopic_depth = 3.0\n"
    )
    small = str(ROOT / "sample_logs" / "markup_injection.jsonl")

    def run(*argv: str) -> dict[str, Any]:
        assert main(["chunk", small, "--format", "json", *argv]) == 0
        doc: dict[str, Any] = json.loads(capsys.readouterr().out)
        return doc

    seed = run("--embed", "--profile", "old")
    params = seed["params"]
    assert params["merge"]["mode"] == "seed" and params["min_chars"] == 100
    assert params["collapse"] is False  # chunk's default: every call a turn of its own
    plain = run("--min-chars", "100")
    assert seed["chunks"] == plain["chunks"]
    given = run("--embed", "--profile", "old", "--collapse")["params"]
    assert given["collapse"] is True  # the flag wins
    topics = run("--embed", "--profile", "topics")["params"]
    assert topics["collapse"] is False
    assert topics["merge"]["topic_depth"] == 3.0
