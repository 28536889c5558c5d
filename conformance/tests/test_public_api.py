"""The package's public names are explicit, complete and importable."""

from __future__ import annotations

import importlib
import subprocess
import sys

import schemarouter.testing
import schemarouter_conformance

INTERNAL = {
    "_boundary_tests": {"BoundaryTests"},
    "_conversation_tests": {"ConversationTests"},
    "_find_tools_tests": {"FindToolsTests"},
    "_expect": {
        "case_where",
        "conversation_fix",
        "difference",
        "fail_if",
        "gated_cases",
        "in_words",
        "mismatch",
        "not_run",
        "outcome",
        "routed_in",
        "summarised",
        "tripping",
    },
    "_fixture": {"main"},
    "_guard": {"GUARD_TEST", "needs", "reason_problem", "required_capabilities", "weakened_standard_tests"},
    "_providers": {"GUEST", "MEMBER", "ChangingVisibility", "PrincipalVisibility"},
    "_visibility_tests": {"VisibilityTests"},
}
MODULES = (
    "_driver",
    "_fixture",
    "_guard",
    "_harness",
    "_providers",
    "_reference",
    "_scenarios",
    "_servers",
    "_expect",
    "_visibility_tests",
    "_boundary_tests",
    "_find_tools_tests",
    "_conversation_tests",
    "errors",
    "suite",
)


def test_every_public_name_resolves() -> None:
    for name in schemarouter_conformance.__all__:
        assert getattr(schemarouter_conformance, name) is not None, name


def test_all_is_complete() -> None:
    exported = set(schemarouter_conformance.__all__)
    for module_name in MODULES:
        module = importlib.import_module(f"schemarouter_conformance.{module_name}")
        missing = set(module.__all__) - exported - INTERNAL.get(module_name, set())
        assert not missing, f"{module_name} defines {sorted(missing)} but the package does not export them"


def test_testing_module_exports_what_it_defines() -> None:
    defined = {
        name
        for name, value in vars(schemarouter.testing).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == "schemarouter.testing"
    }
    assert defined <= set(schemarouter.testing.__all__)


def test_importing_the_package_stays_light() -> None:
    """Starting the fixture server imports the package: it must not pull in pytest or the suite."""
    code = "import sys, schemarouter_conformance; print(sorted(m for m in ('pytest', 'schemarouter', 'schemarouter_conformance.suite') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
