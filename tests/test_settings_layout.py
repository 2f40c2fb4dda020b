"""The config file keeps the user's comments and layout when chunkscope saves it.

Saving edits the document in place (tomlkit): only the keys that change are
rewritten, new keys and tables are appended, a deleted profile goes alone.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.engine.config.settings import (
    Profile,
    Settings,
    config_path,
    delete_profile,
    dumps_settings,
    load_settings,
    save_profile,
    save_settings,
)

pytestmark = pytest.mark.usefixtures("config_dir")

COMMENTED = """\
# my chunkscope config
# (hand-edited, please keep these notes)

theme = "chunkscope-dark"   # the dark one
future_flag = true

# local ollama
[embedder]
name = "openai"            # an OpenAI-compatible server
model = "nomic-embed-text"
base_url = "http://[::1]:11434/v1"

[profiles.short]
# tuned for chat logs
std_k = 0.5
threshold = 0.35   # fixed, not adaptive

# the long one
[profiles.long]
min_chars = 120
budget = 1500

[recap]
path = "out/_recap.md"   # unknown to chunkscope, kept
"""


def write(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_theme_change_rewrites_only_that_value() -> None:
    path = write(COMMENTED)
    s = load_settings()
    s.theme = "chunkscope-light"
    save_settings(s)
    assert path.read_text(encoding="utf-8") == COMMENTED.replace(
        'theme = "chunkscope-dark"', 'theme = "chunkscope-light"'
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_saving_the_same_settings_changes_nothing() -> None:
    path = write(COMMENTED)
    save_settings(load_settings())
    assert path.read_text(encoding="utf-8") == COMMENTED


def test_profile_save_edits_in_place() -> None:
    path = write(COMMENTED)
    save_profile("short", Profile(std_k=0.75, threshold=0.35, budget=900))
    expected = COMMENTED.replace("std_k = 0.5\n", "std_k = 0.75\n").replace(
        "threshold = 0.35   # fixed, not adaptive\n",
        "threshold = 0.35   # fixed, not adaptive\nbudget = 900\n",
    )
    assert path.read_text(encoding="utf-8") == expected
    assert load_settings().profiles["short"] == Profile(std_k=0.75, threshold=0.35, budget=900)


def test_a_key_dropped_from_a_profile_goes_alone() -> None:
    path = write(COMMENTED)
    save_profile("long", Profile(min_chars=120))
    assert path.read_text(encoding="utf-8") == COMMENTED.replace("budget = 1500\n", "")


def test_a_new_profile_is_appended() -> None:
    path = write(COMMENTED)
    save_profile("new-one", Profile(std_k=1.25, max_passes=0))
    text = path.read_text(encoding="utf-8")
    assert text.startswith(COMMENTED.split("[recap]")[0])
    assert "[profiles.new-one]\nstd_k = 1.25\nmax_passes = 0\n" in text
    assert 'path = "out/_recap.md"   # unknown to chunkscope, kept' in text
    assert load_settings().profiles["new-one"] == Profile(std_k=1.25, max_passes=0)


def test_deleting_a_profile_removes_only_it() -> None:
    path = write(COMMENTED)
    delete_profile("long")
    text = path.read_text(encoding="utf-8")
    removed = "[profiles.long]\nmin_chars = 120\nbudget = 1500\n\n"
    assert text == COMMENTED.replace(removed, "")
    assert sorted(load_settings().profiles) == ["short"]


def test_a_fresh_file_reads_back() -> None:
    s = Settings(theme="t", profiles={"p": Profile(std_k=0.5)})
    text = dumps_settings(s)
    assert text.startswith("# chunkscope settings")
    path = save_settings(s)
    assert load_settings(path) == s


_names = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)


@settings(max_examples=25, deadline=None)
@given(
    st.dictionaries(_names, st.floats(0, 5, allow_nan=False), max_size=4),
    st.dictionaries(_names, st.floats(0, 5, allow_nan=False), max_size=4),
)
def test_any_sequence_of_profile_edits_round_trips(
    first: dict[str, float], second: dict[str, float]
) -> None:
    before = load_settings_text(COMMENTED)
    before.profiles = {n: Profile(std_k=v) for n, v in first.items()}
    base = dumps_settings(before, COMMENTED)
    want = load_settings_text(base)
    want.profiles = {n: Profile(std_k=v) for n, v in second.items()}
    text = dumps_settings(want, base)
    assert load_settings_text(text) == want
    assert "# my chunkscope config" in text and "# local ollama" in text
    assert 'path = "out/_recap.md"   # unknown to chunkscope, kept' in text


def load_settings_text(text: str) -> Settings:
    path = write(text)
    return load_settings(path)
