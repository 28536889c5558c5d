"""Every distributable package is ready to publish: typed (`py.typed`), licensed (Apache-2.0,
the licence file inside the wheel), described (classifiers, readme), and versioned in step
with the packages it needs. The wheel contents themselves are checked where the wheels are
built (`scripts/dev.py wheels`, run by CI before `core-only` and `wheel-check`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

import schemarouter

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = [
    "packages/core",
    "conformance",
    "packages/adapter-openai-agents",
    "packages/adapter-pydantic-ai",
    "packages/adapter-langchain",
]
OURS = {
    "schemarouter-core",
    "schemarouter-conformance",
    "schemarouter-openai-agents",
    "schemarouter-pydantic-ai",
    "schemarouter-langchain",
}


def _pyproject(member: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / member / "pyproject.toml").read_text(encoding="utf-8"))


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_the_workspace_lists_every_member() -> None:
    workspace = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert sorted(workspace["tool"]["hatch"]["envs"]["default"]["workspace"]["members"]) == sorted(MEMBERS)
    assert {_pyproject(member)["project"]["name"] for member in MEMBERS} == OURS


@pytest.mark.parametrize("member", MEMBERS)
def test_every_package_is_marked_typed(member: str) -> None:
    config = _pyproject(member)
    packages = config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert packages, "the wheel names its packages"
    for package in packages:
        assert (ROOT / member / package / "__init__.py").is_file(), package
        assert (ROOT / member / package / "py.typed").is_file(), f"{member}/{package}/py.typed is missing"
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    excluded = " ".join([*wheel.get("exclude", []), *config["tool"]["hatch"]["build"].get("exclude", [])])
    assert "py.typed" not in excluded
    assert "Typing :: Typed" in config["project"]["classifiers"]


@pytest.mark.parametrize("member", MEMBERS)
def test_every_package_carries_the_apache_licence(member: str) -> None:
    project = _pyproject(member)["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / member / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text
    assert "Version 2.0, January 2004" in text
    assert text == (ROOT / "LICENSE").read_text(encoding="utf-8"), "one licence text for the repository"
    # PEP 639: a licence expression replaces the licence classifiers (build backends refuse both)
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


@pytest.mark.parametrize("member", MEMBERS)
def test_every_package_describes_itself(member: str) -> None:
    project = _pyproject(member)["project"]
    assert (ROOT / member / project["readme"]).is_file()
    assert project["description"].endswith(".")
    assert project["requires-python"] == ">=3.11"
    classifiers = project["classifiers"]
    assert classifiers == sorted(classifiers)
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert project["keywords"]
    for name, url in project.get("urls", {}).items():  # none until the project has a public home
        assert url.startswith("https://"), name
        assert not re.search(r"example\.(com|org)|<|TODO", url), f"placeholder URL for {name}: {url}"


def test_every_package_has_one_version_and_needs_its_siblings_at_that_version() -> None:
    versions = {member: _pyproject(member)["project"]["version"] for member in MEMBERS}
    assert len(set(versions.values())) == 1, versions
    version = _version_tuple(next(iter(versions.values())))
    assert schemarouter.__version__ == ".".join(map(str, version)), (
        "schemarouter.__version__ follows pyproject"
    )
    for member in MEMBERS:
        for requirement in _pyproject(member)["project"]["dependencies"]:
            name = re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0]
            if name not in OURS:
                continue
            floor = re.search(r">=\s*([\d.]+)", requirement)
            ceiling = re.search(r"<\s*([\d.]+)", requirement)
            assert floor, f"{member}: {requirement} has no floor"
            assert ceiling, f"{member}: {requirement} has no ceiling"
            assert _version_tuple(floor.group(1)) <= version < _version_tuple(ceiling.group(1)), (
                f"{member}: {requirement} does not admit the workspace's own version"
            )


def test_the_build_backend_reads_licence_files() -> None:
    """`license-files` (PEP 639) needs hatchling 1.27 or later."""
    for member in MEMBERS:
        requires = tomllib.loads((ROOT / member / "pyproject.toml").read_text(encoding="utf-8"))[
            "build-system"
        ]["requires"]
        floor = next(r for r in requires if r.startswith("hatchling"))
        assert _version_tuple(floor.removeprefix("hatchling>=")) >= (1, 27), member
