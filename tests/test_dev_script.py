"""`scripts/dev.py`: no silent waits on a first run, a quick test subset, and wheels checked for
what a published package needs before CI installs them."""

from __future__ import annotations

import importlib.util
import tomllib
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("schemarouter_dev_script", ROOT / "scripts" / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_first_run_says_what_it_installs_before_it_waits(
    dev: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The steps that reach the package index (making the venv and its uv, installing) are
    replaced by recorders; what is tested is that each is announced, in order, before it runs."""
    events: list[str] = []

    def make_venv(venv_dir: Path) -> Path:
        events.append("make_venv")
        (venv_dir / "bin").mkdir(parents=True)
        return venv_dir / "bin" / "uv"

    def uv_install(uv: Path, venv_dir: Path, *specs: Any) -> None:
        events.append(f"install:{len(specs)}")
        assert "installing 5 workspace packages" in capsys.readouterr().out, "announced before it starts"

    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(dev, "_make_venv", make_venv)
    monkeypatch.setattr(dev, "_uv_install", uv_install)
    dev.ensure_dev_env()
    assert events == ["make_venv", f"install:{2 * len(dev.MEMBERS) + len(dev._dev_group())}"]
    out = capsys.readouterr().out
    assert "dev.py: .venv is ready; later runs reuse it" in out


def test_the_install_line_says_how_long_a_first_run_takes(
    dev: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(dev, "_make_venv", lambda venv_dir: venv_dir / "uv")
    monkeypatch.setattr(dev, "_uv_install", lambda *args: None)
    (tmp_path / ".venv").mkdir()
    dev.ensure_dev_env()
    lines = capsys.readouterr().out.splitlines()
    install = next(line for line in lines if "installing" in line)
    assert install.startswith("dev.py: installing 5 workspace packages (editable) and ")
    assert "(first run: a minute or two)" in install


def test_an_up_to_date_venv_is_reused_without_a_word(
    dev: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    venv_dir = tmp_path / ".venv"
    monkeypatch.setattr(dev, "VENV", venv_dir)
    monkeypatch.setattr(dev, "_make_venv", lambda venv_dir: venv_dir / "uv")
    monkeypatch.setattr(dev, "_uv_install", lambda *args: None)
    python = dev._bin(venv_dir, "python")
    python.parent.mkdir(parents=True)
    python.touch()
    dev.ensure_dev_env()
    assert "a pyproject.toml changed" in capsys.readouterr().out
    assert dev.ensure_dev_env() == python
    assert capsys.readouterr().out == ""


def test_the_script_installs_every_workspace_member(dev: ModuleType) -> None:
    """dev.py keeps its own list of members: it must be the workspace's (tests/test_packaging.py)."""
    workspace = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert sorted(dev.MEMBERS) == sorted(
        workspace["tool"]["hatch"]["envs"]["default"]["workspace"]["members"]
    )


def test_the_quick_subset_is_core_without_slow_tests(dev: ModuleType) -> None:
    assert "test-quick" in dev.COMMANDS
    assert dev.QUICK_TESTS == ("packages/core/tests", "-m", "not slow")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "python3 scripts/dev.py test-quick" in readme


def test_ci_runs_every_check_and_the_encoder_tests_the_test_command_skips(dev: ModuleType) -> None:
    """`.ci/run` runs the test command and each check step; encoder-check runs a test file that
    exists and that the dev environment skips (no torch there), so nothing else would run it."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/dev.py test\n" in ci
    for step in ("core-only", "wheel-check", "lint", "encoder-check"):
        assert step in dev.COMMANDS
        assert f"launch {step} {step}" in ci
    tests = ROOT / dev.ENCODER_TESTS
    assert tests.is_file()
    source = tests.read_text(encoding="utf-8")
    assert "importorskip(" in source
    assert '"sentence_transformers"' in source
    assert all(not pin.startswith("torch") for pin in dev.ENCODER_PINS)  # torch goes in first, alone


def _wheel(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(name, "")
    return path


def test_a_wheel_without_its_typing_marker_or_licence_is_reported(dev: ModuleType, tmp_path: Path) -> None:
    complete = _wheel(
        tmp_path / "pkg-0.1.0-py3-none-any.whl",
        ["pkg/__init__.py", "pkg/py.typed", "pkg/sub/__init__.py", "pkg-0.1.0.dist-info/licenses/LICENSE"],
    )
    assert dev.wheel_problems(complete) == []
    bare = _wheel(
        tmp_path / "bare-0.1.0-py3-none-any.whl", ["bare/__init__.py", "bare-0.1.0.dist-info/METADATA"]
    )
    assert dev.wheel_problems(bare) == [
        "bare-0.1.0-py3-none-any.whl: no bare/py.typed",
        "bare-0.1.0-py3-none-any.whl: no LICENSE in its .dist-info/licenses/",
    ]
