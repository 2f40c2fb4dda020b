"""`chunkscope profile ...` and `--profile NAME` (apply_profile)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from engine.merge import MergeParams
from engine.settings import (
    EmbedderSettings,
    Profile,
    Settings,
    SettingsError,
    list_profiles,
    save_profile,
    save_settings,
)
from tui.cli import build_parser
from tui.cli_profile import add_profile_option, add_profile_parser, apply_profile

SECRET = "sk-never-printed-42"


pytestmark = pytest.mark.usefixtures("config_dir")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chunkscope")
    sub = parser.add_subparsers(dest="command")
    add_profile_parser(sub)
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    code: int = args.run(args)
    return code


def _chunk_args(*argv: str) -> argparse.Namespace:
    """The real `chunk` parser of tui/cli.py, so the option names are the real ones."""
    return build_parser().parse_args(["chunk", "log.jsonl", "--embed", *argv])


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


# --------------------------------------------------------------------------- apply_profile


def test_apply_profile_fills_what_the_command_line_left_out() -> None:
    save_profile("tuned", _tuned())
    args = _chunk_args()
    args.profile = "tuned"
    apply_profile(args)
    assert args.min_chars == 120
    assert args.threshold == 0.3
    assert args.std_k == 0.9
    assert args.always_merge == 0.85
    assert args.max_chars == 4096
    assert args.max_tokens is None
    assert args.max_passes == 3
    assert args.min_similarity == 0.05
    assert args.loaded_profile == _tuned()
    assert not hasattr(args, "budget")  # chunk has no budget: nothing is invented


def test_command_line_flags_win_over_the_profile() -> None:
    save_profile("tuned", _tuned())
    args = _chunk_args("--std-k", "0.2", "--threshold", "adaptive", "--min-chars", "0")
    args.profile = "tuned"
    apply_profile(args)
    assert args.std_k == 0.2
    assert args.threshold == "adaptive"
    assert args.min_chars == 0  # 0 is a value, not "unset"
    assert args.always_merge == 0.85  # not given: from the profile


def test_the_profile_reaches_the_merge_parameters() -> None:
    from tui.cli import _merge_params

    save_profile("tuned", _tuned())
    args = _chunk_args("--always-merge", "0.95")
    args.profile = "tuned"
    apply_profile(args)
    assert _merge_params(args) == MergeParams(
        threshold=0.3,
        std_k=0.9,
        always_merge=0.95,
        max_chunk_chars=4096,
        max_passes=3,
        min_similarity=0.05,
    )


def test_a_size_cap_on_the_command_line_keeps_the_profile_cap_out() -> None:
    save_profile("tokens", Profile(max_chunk_tokens=600, max_chunk_chars=9000))
    args = _chunk_args("--max-chars", "2000")
    args.profile = "tokens"
    apply_profile(args)
    assert (args.max_chars, args.max_tokens) == (2000, None)
    plain = _chunk_args()
    plain.profile = "tokens"
    apply_profile(plain)
    assert (plain.max_chars, plain.max_tokens) == (None, 600)  # the cap in force


def test_unlimited_passes_and_no_cap_leave_the_flags_unset() -> None:
    save_profile("open", Profile(max_passes=0, max_chunk_chars=0))
    args = _chunk_args()
    args.profile = "open"
    apply_profile(args)
    assert args.max_passes is None
    assert args.max_chars is None
    base = args.loaded_profile.to_merge_params()
    assert (base.max_passes, base.max_chunk_chars) == (None, None)


def test_recap_options_budget_and_scorer() -> None:
    save_profile("tuned", _tuned())
    args = argparse.Namespace(profile="tuned", budget=None, scorer="position", std_k=None)
    apply_profile(args)
    assert args.budget == 1500
    assert args.scorer == "position"  # given
    assert args.std_k == 0.9


def test_no_profile_is_a_no_op() -> None:
    args = _chunk_args()
    args.profile = None
    before = vars(args).copy()
    apply_profile(args)
    assert vars(args) == before


def test_unknown_profile_names_the_known_ones() -> None:
    save_profile("alpha", Profile())
    args = argparse.Namespace(profile="beta")
    with pytest.raises(SettingsError, match=r"no profile named 'beta' \(known: alpha\)"):
        apply_profile(args)


def test_add_profile_option() -> None:
    parser = argparse.ArgumentParser()
    add_profile_option(parser)
    assert parser.parse_args(["--profile", "x"]).profile == "x"
    assert parser.parse_args([]).profile is None


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
