"""The config file: round trip, permissions, atomic writes, errors, profiles, secrets."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from chunkscope.engine.config.settings import (
    EmbedderSettings,
    Profile,
    Settings,
    SettingsError,
    SummarizerSettings,
    config_path,
    delete_profile,
    dumps_settings,
    get_profile,
    list_profiles,
    load_settings,
    save_profile,
    save_settings,
)
from chunkscope.engine.errors import ChunkscopeError
from chunkscope.engine.segment.merge import MergeParams

SECRET = "sk-test-5ecret-Key-0123456789"


pytestmark = pytest.mark.usefixtures("config_dir")


def _full_settings() -> Settings:
    return Settings(
        theme="chunkscope-light",
        embedder=EmbedderSettings(
            name="openai",
            model="text-embedding-3-small",
            base_url="http://localhost:11434/v1",
            api_key=SECRET,
        ),
        summarizer=SummarizerSettings(name="llm", model='qwen "2.5"\\7b\n\ttab'),
        profiles={
            "long-sessions": Profile(
                min_chars=120,
                threshold="adaptive",
                std_k=0.75,
                always_merge=0.85,
                max_chunk_chars=4096,
                max_passes=3,
                budget=1500,
                scorer="recency",
            ),
            "fixed_035": Profile(threshold=0.35, max_chunk_tokens=700, min_similarity=0.05),
        },
    )


def test_config_path_follows_the_environment(config_dir: Path) -> None:
    assert config_path() == config_dir / "config.toml"


def test_missing_file_is_the_defaults() -> None:
    settings = load_settings()
    assert settings == Settings()
    assert settings.theme == "chunkscope-dark"
    assert settings.profiles == {}


def test_round_trip(config_dir: Path) -> None:
    original = _full_settings()
    written = save_settings(original)
    assert written == config_dir / "config.toml"
    loaded = load_settings()
    assert loaded == original
    assert loaded.summarizer.model == 'qwen "2.5"\\7b\n\ttab'
    assert loaded.profiles["fixed_035"].threshold == 0.35
    # None values are left out of the file, not written as strings.
    text = written.read_text(encoding="utf-8")
    assert "None" not in text
    assert "max_chunk_tokens" not in tomllib.loads(text)["profiles"]["long-sessions"]


def test_tricky_strings_and_unknown_tables_survive(config_dir: Path) -> None:
    (config_dir).mkdir(parents=True)
    path = config_dir / "config.toml"
    path.write_text(
        'theme = "x"\nfuture_flag = true\n[recap]\npath = "out/_recap.md"\n'
        "[recap.limits]\nmax = 3\nratio = 1e-05\nnames = ['a', \"b\"]\n",
        encoding="utf-8",
    )
    settings = load_settings()
    assert settings.extra == {
        "future_flag": True,
        "recap": {
            "path": "out/_recap.md",
            "limits": {"max": 3, "ratio": 1e-05, "names": ["a", "b"]},
        },
    }
    settings.theme = "a\u0001b\u007f\\\"é'"
    save_settings(settings)
    again = load_settings()
    assert again.theme == "a\u0001b\u007f\\\"é'"
    assert again.extra == settings.extra


def test_file_mode_is_0600(config_dir: Path) -> None:
    path = save_settings(_full_settings())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Still 0600 after a rewrite of a file whose mode was loosened.
    os.chmod(path, 0o644)
    save_profile("again", Profile(std_k=1.0))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_intact(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save_settings(_full_settings())
    before = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(SettingsError, match=r"cannot write .*No space left on device"):
        save_profile("new-one", Profile(threshold=0.2))
    assert path.read_bytes() == before
    assert sorted(p.name for p in config_dir.iterdir()) == ["config.toml"]  # no temp files
    monkeypatch.undo()
    assert "new-one" not in list_profiles()


def test_malformed_toml_names_the_file_and_line(config_dir: Path) -> None:
    config_dir.mkdir(parents=True)
    path = config_dir / "config.toml"
    path.write_text('theme = "chunkscope-dark"\n[embedder]\nname = openai\n', encoding="utf-8")
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(f"{path}:3: ")
    assert "(at line" not in message
    assert isinstance(info.value, ChunkscopeError)


def test_unterminated_file_reports_its_last_line(config_dir: Path) -> None:
    config_dir.mkdir(parents=True)
    path = config_dir / "config.toml"
    path.write_text('theme = "a"\n[profiles.x]\nstd_k = ', encoding="utf-8")
    with pytest.raises(SettingsError, match=rf"^{path}:3: "):
        load_settings()


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("theme = 3\n", 1, "theme must be a theme name"),
        ('[embedder]\nname = "openai"\nmodle = "x"\n', 3, "unknown key 'modle' in [embedder]"),
        ('theme = "a"\n[profiles.p]\nstd_k = "high"\n', 3, "std_k must be a number"),
        ("[profiles.p]\nmax_passes = -1\n", 2, "max_passes must be a whole number >= 0"),
        ('[profiles."bad name"]\nstd_k = 1\n', 1, "invalid profile name 'bad name'"),
    ],
)
def test_wrong_values_name_the_file_line_and_key(
    config_dir: Path, text: str, line: int, reason: str
) -> None:
    config_dir.mkdir(parents=True)
    path = config_dir / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert reason in str(info.value)


def test_profiles_save_get_list_delete() -> None:
    assert list_profiles() == []
    save_profile("b-profile", Profile(threshold=0.4))
    save_profile("a_profile", Profile(std_k=0.9, budget=800))
    assert list_profiles() == ["a_profile", "b-profile"]
    assert get_profile("a_profile") == Profile(std_k=0.9, budget=800)
    save_profile("a_profile", Profile(std_k=0.1))  # replaces
    assert get_profile("a_profile") == Profile(std_k=0.1)
    delete_profile("b-profile")
    assert list_profiles() == ["a_profile"]
    with pytest.raises(SettingsError, match="no profile named 'b-profile'"):
        delete_profile("b-profile")


def test_saving_a_profile_keeps_the_rest_of_the_file() -> None:
    save_settings(_full_settings())
    save_profile("extra", Profile(max_passes=0))
    loaded = load_settings()
    assert loaded.embedder.api_key == SECRET
    assert loaded.theme == "chunkscope-light"
    assert set(loaded.profiles) == {"long-sessions", "fixed_035", "extra"}


def test_unknown_profile_lists_the_known_names() -> None:
    save_profile("fast", Profile())
    save_profile("careful", Profile())
    with pytest.raises(SettingsError) as info:
        get_profile("slow")
    assert str(info.value) == "no profile named 'slow' (known: careful, fast)"


def test_unknown_profile_with_none_saved() -> None:
    with pytest.raises(SettingsError, match=r"known: none saved yet"):
        get_profile("x")


@pytest.mark.parametrize("name", ["", "has space", "dots.no", "slash/no", "x" * 65, "ünï"])
def test_profile_names_are_validated(name: str) -> None:
    with pytest.raises(SettingsError, match="invalid profile name"):
        save_profile(name, Profile())
    assert not config_path().exists()


def test_to_merge_params_applies_set_fields_over_the_defaults() -> None:
    assert Profile().to_merge_params() == MergeParams()
    params = Profile(threshold=0.3, std_k=1.5, max_chunk_chars=0, max_passes=0).to_merge_params()
    assert params.threshold == 0.3
    assert params.std_k == 1.5
    assert params.max_chunk_chars is None  # 0 = no size cap
    assert params.max_passes is None  # 0 = to the fixed point
    assert params.always_merge == MergeParams().always_merge
    tokens = Profile(max_chunk_tokens=512, max_passes=2).to_merge_params()
    assert (tokens.cap, tokens.cap_unit, tokens.max_passes) == (512, "tokens", 2)


def test_from_params_round_trips_through_the_file() -> None:
    params = MergeParams(
        threshold=0.25, std_k=0.6, always_merge=0.9, max_chunk_chars=None, min_similarity=0.05
    )
    profile = Profile.from_params(params, min_chars=100, budget=1200, scorer="salience")
    save_profile("tuned", profile)
    loaded = get_profile("tuned")
    assert loaded == profile
    assert loaded.to_merge_params() == params
    assert (loaded.min_chars, loaded.budget, loaded.scorer) == (100, 1200, "salience")
    adaptive = Profile.from_params(MergeParams(max_passes=4))
    assert adaptive.to_merge_params() == MergeParams(max_passes=4)


def test_an_invalid_merge_combination_is_a_settings_error() -> None:
    with pytest.raises(SettingsError, match="threshold"):
        Profile(threshold=float("inf")).to_merge_params()
    with pytest.raises(ValueError, match="always_merge must be a number"):
        Profile(always_merge=float("nan"))


def test_the_api_key_never_shows() -> None:
    settings = _full_settings()
    settings.summarizer.api_key = SECRET + "-summary"
    assert SECRET not in repr(settings)
    assert SECRET not in str(settings)
    assert SECRET not in repr(settings.embedder)
    assert SECRET not in repr(settings.redacted())
    assert settings.redacted()["embedder"]["api_key"] == "***"
    assert settings.redacted()["summarizer"]["api_key"] == "***"
    assert EmbedderSettings().redacted()["api_key"] is None
    # ... but it is in the file, which only the user can read.
    assert SECRET in dumps_settings(settings)


def test_with_environment_fills_only_what_is_unset() -> None:
    env = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "env-key"}
    filled = EmbedderSettings(name="openai").with_environment(env)
    assert (filled.base_url, filled.api_key) == ("http://env/v1", "env-key")
    own = EmbedderSettings(base_url="http://mine/v1", api_key="mine").with_environment(env)
    assert (own.base_url, own.api_key) == ("http://mine/v1", "mine")


def test_a_profile_of_an_older_version_still_loads(config_dir: Path) -> None:
    """`topic_max_chars` (the topic mode's own cap before the one size cap of both
    modes) is in every profile saved before: it is dropped, not refused."""
    from chunkscope.engine.config.settings import config_path

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[profiles.old]\nstd_k = 0.7\ntopic_max_chars = 0\nmax_chunk_chars = 4000\n")
    assert get_profile("old") == Profile(std_k=0.7, max_chunk_chars=4000)


@pytest.mark.parametrize(("chars", "tokens"), [(800, 200), (600, 150), (0, 0)])
def test_a_profile_of_chunk_chars_reads_as_chunk_tokens(
    config_dir: Path, chars: int, tokens: int
) -> None:
    """The merged chunks' size was `topic_chunk_chars` before it was counted in tokens
    (`topic_chunk_tokens`): a profile saved then is read in the new unit (about 4 chars a
    token, 800 chars the old default and 200 tokens the new), not refused and not lost."""
    from chunkscope.engine.config.settings import config_path

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[profiles.old]\nstd_k = 0.7\ntopic_chunk_chars = {chars}\n")
    assert get_profile("old") == Profile(std_k=0.7, topic_chunk_tokens=tokens)


def test_the_old_chunk_size_flag_names_the_new_one() -> None:
    """`--topic-chunk-chars 600` (a script of before) is refused in one line naming the
    flag in tokens and the value there, never read in another unit without a word."""
    import subprocess
    import sys

    log = Path(__file__).resolve().parents[1] / "sample_logs" / "cache_refactor.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "chunkscope", "chunk", str(log),
         "--embed", "--topic-chunk-chars", "600"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert "renamed --topic-chunk-tokens" in proc.stderr and "about 150" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
