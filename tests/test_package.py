"""One installed package: the wheel holds `chunkscope` alone, and it runs from there."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: On one xdist worker (``--dist loadgroup``): the wheel is built once, not once for each
#: worker a test lands on.
pytestmark = pytest.mark.xdist_group("package")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built offline by hatchling itself (as `pip wheel .` would)."""
    builders = pytest.importorskip("hatchling.builders.wheel")
    out = tmp_path_factory.mktemp("wheel")
    built = list(builders.WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"]))
    assert len(built) == 1
    return Path(built[0])


def test_the_wheel_installs_chunkscope_alone(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt")))
    tops = {n.split("/")[0] for n in names}
    assert tops == {"chunkscope", next(t for t in tops if t.endswith(".dist-info"))}
    assert "chunkscope/__init__.py" in names and "chunkscope/__main__.py" in names
    assert "chunkscope/engine/read/parse.py" in names
    assert "chunkscope/tui/cli/__init__.py" in names and "chunkscope/themes/builtin.py" in names
    assert any(n.startswith("chunkscope/tui/sample_logs/") for n in names)
    assert not any("/tests/" in n or n.startswith("tests/") for n in names)
    assert b"chunkscope = chunkscope.tui.cli:main" in entry_points


def test_the_unpacked_wheel_runs_python_m_chunkscope(wheel: Path, tmp_path: Path) -> None:
    """Unpacked where site-packages would be, first on the path: the package found is the
    wheel's (not the checkout's), its sample logs are inside it, and the command runs."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    probe = (
        "import chunkscope, chunkscope.tui.samples as s; "
        "print(chunkscope.__file__); print(s.sample_dir())"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    package, samples = proc.stdout.splitlines()
    assert Path(package).is_relative_to(site)
    assert Path(samples) == site / "chunkscope" / "tui" / "sample_logs"
    proc = subprocess.run(
        [sys.executable, "-m", "chunkscope", "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "chunkscope" in proc.stdout


def test_python_m_chunkscope_in_the_checkout() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "chunkscope", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "chunkscope FILE" in proc.stdout


def test_the_editable_install_points_at_the_checkout(tmp_path: Path) -> None:
    """The editable wheel is a `.pth` file naming the repository root, nothing copied; with
    it (and no site-packages) `chunkscope.engine` is the checkout's engine/ folder."""
    builders = pytest.importorskip("hatchling.builders.wheel")
    built = builders.WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["editable"])
    (editable,) = list(built)
    site = tmp_path / "site"
    with zipfile.ZipFile(editable) as z:
        payload = [n for n in z.namelist() if ".dist-info/" not in n]
        assert payload == ["_chunkscope.pth"]
        assert Path(z.read("_chunkscope.pth").decode().strip()) == ROOT
        z.extractall(site)
    probe = (
        f"import site; site.addsitedir({str(site)!r}); "
        "import chunkscope.engine.errors as e, sys; print(e.__file__); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('engine', 'tui')))"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    path, twice = proc.stdout.splitlines()
    assert Path(path).resolve() == ROOT / "engine" / "errors.py"
    assert twice == "[]"
