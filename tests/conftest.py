"""Shared fixtures."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import FakeOpenAIServer, summary_reply

# The suite starts hundreds of Python processes (xdist workers, the CLI and hooks run as
# the installed command): with $PYTHONDONTWRITEBYTECODE set (some containers set it) each
# of them compiled the whole package again from source. The test run keeps its bytecode
# (in the gitignored __pycache__ folders); the user's own shell is not touched.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

#: The cyclic collector's youngest generation is collected after this many new objects
#: (Python's default is 700). A workbench test builds a whole Textual app, some 100,000
#: objects, and at 700 the collector ran hundreds of young and several full collections
#: per app started: 21% of 71 workbench tests' CPU, 15% at 10,000 (149 -> 129 s of CPU
#: in all). Only the test processes: what the collector frees, and when the app's own
#: load pauses and freezes it (`loading_heap`), is as before.
GC_YOUNG_THRESHOLD = 10_000
gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def _share_css_parses() -> None:
    """Textual parses the app's CSS and every widget's default CSS again for each app
    (a cache per stylesheet, and a theme's variables make a new stylesheet): ~0.07 s of
    the ~1.3 s of CPU a workbench takes to settle, in every test that starts one. The
    rules parsed depend only on the CSS, where it was read from, its scope and tie
    breaker, and the variables substituted, so the test process keeps one cache by all
    of them; Textual treats the parsed rules as read-only (its own cache shares them
    between parses). Left as it is where Textual's method differs (another version)."""
    import inspect

    from textual.css.stylesheet import Stylesheet

    parse_rules: Any = Stylesheet._parse_rules
    wanted = ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    if list(inspect.signature(parse_rules).parameters) != wanted:
        return
    shared: dict[tuple[object, ...], Any] = {}

    def variables_key(sheet: Any) -> frozenset[tuple[str, str]]:
        variables = sheet._variables
        seen = getattr(sheet, "_shared_variables_key", None)
        if seen is None or seen[0] is not variables:  # set_variables gives a new dict
            seen = (variables, frozenset(variables.items()))
            sheet._shared_variables_key = seen
        key: frozenset[tuple[str, str]] = seen[1]
        return key

    def cached(
        self: Any,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> Any:
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables_key(self))
        rules = shared.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            if len(shared) > 2048:
                shared.clear()
            shared[key] = rules
        return rules

    Stylesheet._parse_rules = cached  # type: ignore[method-assign]


_share_css_parses()


def _share_parameter_counts() -> None:
    """Textual counts a callback's parameters (`inspect.signature`) at every call it
    makes of a callback it has not seen, and most are new: a lambda or a partial made
    for the call (a timer's, a refresh's, a message's). ~2,000 counts in a workbench
    test, 4% of its CPU. A function's count depends only on its code (the same code,
    the same parameters), so the test process keeps the count by the code object, for
    plain functions and methods of them; a function that says its own signature
    (``__wrapped__``, ``__signature__``) and any other callable are counted as before.
    Left as it is where Textual's function differs (another version)."""
    import inspect
    import types

    from textual import _callback

    count: Any = getattr(_callback, "_count_parameters", None)
    if count is None or list(inspect.signature(count).parameters) != ["func"]:
        return
    counts: dict[tuple[types.CodeType, bool], int] = {}
    own = ("__wrapped__", "__signature__", "_partialmethod")

    def shared(func: Any) -> int:
        bound = isinstance(func, types.MethodType)
        plain = func.__func__ if bound else func
        if type(plain) is not types.FunctionType or any(n in plain.__dict__ for n in own):
            return int(count(func))
        key = (plain.__code__, bound)
        known = counts.get(key)
        if known is None:
            known = counts[key] = count(func)
        return known

    _callback._count_parameters = shared


_share_parameter_counts()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the suite's default) starts three workers per core, 6 on 2 cores: a
    workbench test spends about half its time waiting (the app's own debounce, follow-up
    and sweep timers; a CLI subprocess; Chromium: 40 s of wall time for 20 s of CPU for
    test_tui_workbench.py alone), so fewer workers left the cores idle. The whole suite
    on 2 cores: 377 s with 3 workers, 314 s with 4 (one session), then 343 s with 4 and
    272 s with 6 under the same kind of load (the next; 470 and 457 s of CPU: the same
    work, fewer idle cores). $PYTEST_XDIST_AUTO_NUM_WORKERS still decides."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return 3 * cores


@pytest.fixture(scope="session", autouse=True)
def _session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test writes to the user's cache directory: the session has one of its own
    (where the first load of an encoding keeps its table; `isolated` gives a test its own)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path_factory.mktemp("session-cache")))
        yield


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Cache, config and data directories of this test's own, no OpenAI settings from the
    environment, and the working directory in tmp_path (where `w` writes _recap.md)."""
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CHUNKSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CHUNKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config directory of this test's own (not created): `CHUNKSCOPE_CONFIG_DIR`."""
    folder = tmp_path / "config"
    monkeypatch.setenv("CHUNKSCOPE_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`main` opens the workbench as on a terminal (pytest gives it none, and the command
    refuses to start without one): for tests that run it headless or not at all."""
    monkeypatch.setattr("chunkscope.tui.cli.workbench.need_terminal", lambda: None)


@pytest.fixture(autouse=True)
def _unfreeze_the_heap() -> Iterator[None]:
    """The workbench freezes its heap after a load (`tui.workbench.loader.loading_heap`):
    in a long test session that would keep every finished test's app alive."""
    yield
    gc.unfreeze()


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server on 127.0.0.1 (8-dim vectors, summary replies),
    one per test module; `tests.fakeserver.backend_env` resets it per test."""
    with FakeOpenAIServer(dim=8, chat_reply=summary_reply) as s:
        yield s


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The hostile files (`tests/hostile/make_corpus.py`), generated once per session."""
    from tests.hostile.make_corpus import make_corpus, make_special

    root = tmp_path_factory.mktemp("hostile")
    paths = make_corpus(root)
    paths.update(make_special(root))
    return paths


_FOLDER_NAMES = ("engine", "tui", "themes")


def _strays() -> set[str]:
    return {m for m in list(sys.modules) if m.split(".", 1)[0] in _FOLDER_NAMES}


@pytest.fixture(autouse=True)
def _one_package() -> Iterator[None]:
    """Every module is imported as part of the one ``chunkscope`` package: a test that
    imports ``engine``, ``tui`` or ``themes`` by their folder names loads a second copy
    of them, whose monkeypatches and state the app never sees."""
    yield
    strays = _strays()
    if strays:
        pytest.fail(f"imported outside the chunkscope package: {', '.join(sorted(strays)[:5])}")


#: Whether the running test's apps paint their screen updates (`_skip_headless_paint`).
_paint = bool(os.environ.get("CHUNKSCOPE_TEST_PAINT"))


def _skip_headless_paint() -> None:
    """A headless app (every `run_test()`) still renders each screen update into strips
    that its driver then throws away: a third of a workbench test's CPU (40 -> 25 s of
    CPU over the 20 tests of two walk files). What most tests read is rendered when they
    ask (`render_line`, `export_screenshot`), so their apps clear what an update would
    have painted instead of painting it. A test that reads what painting leaves behind
    (the SVG snapshots, the strips and pickers that size themselves as they draw) is
    marked ``paints`` (`snap_compare` tests are, by their fixture), and its apps paint as
    Textual does; CHUNKSCOPE_TEST_PAINT=1 paints in every test."""
    from textual.screen import Screen

    original: Any = Screen._compositor_refresh

    def refresh(self: Any) -> None:
        app = self.app
        if _paint or not app.is_headless or app.is_inline or self is not app.screen:
            original(self)
            return
        self._compositor._dirty_regions.clear()
        self._dirty_widgets.clear()
        app._update_mouse_over(self)

    Screen._compositor_refresh = refresh  # type: ignore[method-assign]


_skip_headless_paint()


@pytest.fixture(autouse=True)
def _paint_when_the_test_reads_it(request: pytest.FixtureRequest) -> Iterator[None]:
    global _paint
    before = _paint
    _paint = (
        before
        or request.node.get_closest_marker("paints") is not None
        or "snap_compare" in request.fixturenames
    )
    yield
    _paint = before
