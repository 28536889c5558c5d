"""The guard against weakening, known failures and capability skips, run in inner pytest sessions."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter_conformance import STANDARD_TESTS, AdapterConformanceSuite, known_failure
from schemarouter_conformance.errors import ConformanceSetupError

HEADER = """
from typing import Any, ClassVar

from schemarouter_conformance import AdapterConformanceSuite, DriverCapabilities, ReferenceDriver, known_failure


class _Http(AdapterConformanceSuite):
    driver_factory = ReferenceDriver
    transports: ClassVar[tuple[str, ...]] = ("http",)

"""


def _run(inner_run: Any, body: str, *args: str) -> dict[str, pytest.TestReport]:
    return inner_run({"test_subject": HEADER + body}, *args)


def _guard(inner_run: Any, body: str) -> pytest.TestReport:
    return _run(inner_run, body, "-k", "test_no_standard_test_weakened")["test_no_standard_test_weakened"]


def test_the_suite_collects_every_standard_test_per_transport(inner_pytester: pytest.Pytester) -> None:
    inner_pytester.makepyfile(
        test_subject=HEADER
        + "class TestAll(AdapterConformanceSuite):\n    driver_factory = ReferenceDriver\n"
    )
    result = inner_pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    collected = {line.split("::")[-1] for line in result.outlines if "::TestAll::" in line}
    per_transport = {f"{name}[{t}]" for name in STANDARD_TESTS for t in ("stdio", "http")}
    assert collected == per_transport - {
        "test_evidence_report_is_complete[stdio]",
        "test_evidence_report_is_complete[http]",
    } | {
        "test_evidence_report_is_complete",
        "test_no_standard_test_weakened",
    }


def test_an_unmarked_override_fails_the_guard(inner_run: Any) -> None:
    report = _guard(
        inner_run,
        "class TestWeak(_Http):\n"
        "    def test_hidden_tool_call_never_runs(self, conformance: Any) -> None:\n"
        "        pass\n",
    )
    assert report.failed
    assert "test_hidden_tool_call_never_runs is overridden without a marker" in report.longreprtext


def test_a_deleted_test_fails_the_guard(inner_run: Any) -> None:
    report = _guard(inner_run, "class TestWeak(_Http):\n    test_approval_kept_for_routed_tool = None\n")
    assert report.failed
    assert "test_approval_kept_for_routed_tool was deleted" in report.longreprtext


@pytest.mark.parametrize(
    ("known", "message"),
    [
        pytest.param("{'test_input_guardrail_kept': 'flaky'}", "at least 3 words", id="unreasoned"),
        pytest.param("{'test_made_up': 'no such test here'}", "not a standard test", id="unknown-test"),
        pytest.param(
            "{'test_no_standard_test_weakened': 'the guard is in the way'}",
            "not a standard test",
            id="the-guard",
        ),
    ],
)
def test_a_bad_known_failure_fails_the_guard(inner_run: Any, known: str, message: str) -> None:
    report = _guard(
        inner_run, f"class TestWeak(_Http):\n    known_failures: ClassVar[dict[str, str]] = {known}\n"
    )
    assert report.failed
    assert message in report.longreprtext


def test_a_reasoned_override_passes_the_guard(inner_run: Any) -> None:
    report = _guard(
        inner_run,
        "class TestMarked(_Http):\n"
        "    @known_failure('this framework cannot pause MCP tools for approval')\n"
        "    def test_approval_kept_for_routed_tool(self, conformance: Any) -> None:\n"
        "        super().test_approval_kept_for_routed_tool(conformance)\n",
    )
    assert report.passed


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("        pass\n", id="does-nothing"),
        pytest.param("        raise AssertionError('broken on purpose')\n", id="always-fails"),
        pytest.param(
            "        super().test_input_guardrail_kept(conformance)\n", id="calls-another-standard-test"
        ),
    ],
)
def test_a_reasoned_override_that_skips_the_standard_test_fails_the_guard(inner_run: Any, body: str) -> None:
    """Else a permanent xfail: the override fails whatever the adapter does."""
    report = _guard(
        inner_run,
        "class TestMarked(_Http):\n"
        "    @known_failure('this framework cannot pause MCP tools for approval')\n"
        "    def test_approval_kept_for_routed_tool(self, conformance: Any) -> None:\n" + body,
    )
    assert report.failed
    assert (
        "test_approval_kept_for_routed_tool is marked @known_failure but does not call the standard test"
        in report.longreprtext
    )
    assert "call super().test_approval_kept_for_routed_tool(...) from the override" in report.longreprtext


def test_a_reasoned_override_may_call_the_standard_test_from_a_nested_function(inner_run: Any) -> None:
    report = _guard(
        inner_run,
        "class TestMarked(_Http):\n"
        "    @known_failure('this framework cannot pause MCP tools for approval')\n"
        "    def test_approval_kept_for_routed_tool(self, conformance: Any) -> None:\n"
        "        def standard() -> None:\n"
        "            super(TestMarked, self).test_approval_kept_for_routed_tool(conformance)\n"
        "        standard()\n",
    )
    assert report.passed, report.longreprtext


def test_overriding_the_guard_is_refused_at_import(inner_pytester: pytest.Pytester) -> None:
    inner_pytester.makepyfile(
        test_subject=HEADER
        + "class TestSneaky(_Http):\n    def test_no_standard_test_weakened(self) -> None:\n        pass\n"
    )
    result = inner_pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*ConformanceSetupError*must not override test_no_standard_test_weakened*"])
    assert result.ret != 0


def test_known_failures_are_strict(inner_run: Any) -> None:
    """A declared known failure that fails is xfailed; one that passes fails the run."""
    reports = _run(
        inner_run,
        "class NoApprovals(ReferenceDriver):\n"
        "    def approvals_for(self, scenario: Any) -> frozenset[str]:\n"
        "        return frozenset()\n\n\n"
        "class TestKnown(_Http):\n"
        "    driver_factory = NoApprovals\n"
        "    known_failures: ClassVar[dict[str, str]] = {\n"
        "        'test_approval_kept_for_routed_tool': 'approvals are not wired up yet',\n"
        "        'test_static_rules_match_whole_names': 'believed broken but it actually works',\n"
        "    }\n",
        "-k",
        "test_approval_kept_for_routed_tool or test_static_rules_match_whole_names",
    )
    xfailed = reports["test_approval_kept_for_routed_tool"]
    assert xfailed.skipped
    assert "known failure: approvals are not wired up yet" in str(getattr(xfailed, "wasxfail", ""))
    xpassed = reports["test_static_rules_match_whole_names"]
    assert xpassed.failed
    assert "XPASS(strict)" in xpassed.longreprtext


def test_a_missing_capability_skips_visibly(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "class NoApprovalSupport(ReferenceDriver):\n"
        "    capabilities = DriverCapabilities(approvals=False)\n\n\n"
        "class TestSkip(_Http):\n"
        "    driver_factory = NoApprovalSupport\n",
        "-k",
        "test_approval_kept_for_routed_tool",
    )
    skipped = reports["test_approval_kept_for_routed_tool"]
    assert skipped.skipped
    assert "capabilities.approvals=False" in skipped.longreprtext


def test_a_driver_without_conversation_mode_skips_the_conversation_tests_visibly(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "class PerTurnOnly(ReferenceDriver):\n"
        "    capabilities = DriverCapabilities(conversations=False)\n\n\n"
        "class TestSkip(_Http):\n"
        "    driver_factory = PerTurnOnly\n",
        "-k",
        "test_conversation_list_only_grows or test_static_rules_match_whole_names",
    )
    skipped = reports["test_conversation_list_only_grows"]
    assert skipped.skipped
    assert (
        "driver 'reference' declares capabilities.conversations=False; test_conversation_list_only_grows needs it"
        in skipped.longreprtext
    )
    assert reports["test_static_rules_match_whole_names"].passed


def test_a_driver_without_call_find_tools_fails_the_conversation_tests_saying_how_to_fix_it(
    inner_run: Any,
) -> None:
    """A driver written before conversation mode: its conversation tests fail with the way out,
    the others run as before."""
    reports = _run(
        inner_run,
        "class BeforeConversations:\n"
        "    name = 'before-conversations'\n"
        "    capabilities = DriverCapabilities()\n\n"
        "    def __init__(self) -> None:\n"
        "        self.reference = ReferenceDriver()\n\n"
        "    def __getattr__(self, name: str) -> Any:\n"
        "        if name == 'call_find_tools':\n"
        "            raise AttributeError(name)\n"
        "        return getattr(self.reference, name)\n\n\n"
        "class TestOld(_Http):\n"
        "    driver_factory = BeforeConversations\n",
        "-k",
        "test_conversation_list_only_grows or test_static_rules_match_whole_names",
    )
    failed = reports["test_conversation_list_only_grows"]
    assert failed.failed
    assert "driver BeforeConversations has no call_find_tools" in failed.longreprtext
    assert "declare DriverCapabilities(conversations=False)" in failed.longreprtext
    assert reports["test_static_rules_match_whole_names"].passed


def test_a_suite_without_a_driver_says_how_to_fix_it(inner_run: Any) -> None:
    report = _guard(inner_run, "class TestEmpty(AdapterConformanceSuite):\n    pass\n")
    assert report.failed
    assert "set `driver_factory = YourDriver`" in report.longreprtext


def test_known_failure_needs_a_reason() -> None:
    with pytest.raises(ConformanceSetupError, match="at least 3 words"):
        known_failure("todo")


def test_every_standard_test_says_what_it_proves_and_how_to_fix_it() -> None:
    for name in STANDARD_TESTS:
        doc = getattr(AdapterConformanceSuite, name).__doc__ or ""
        assert "Proves:" in doc, name
        assert "Fix a failure:" in doc, name


def _skip_reasons(inner_pytester: pytest.Pytester, body: str, test: str) -> dict[str, str]:
    """`{test id: skip reason}` for the skipped parametrisations of `test`."""
    inner_pytester.makepyfile(test_subject=HEADER + body)
    recorder = inner_pytester.inline_run("-p", "no:cacheprovider", "-k", test)
    return {
        report.nodeid.split("::")[-1]: report.longreprtext
        for report in recorder.getreports("pytest_runtest_logreport")
        if report.skipped
    }


def test_a_transport_left_out_is_skipped_visibly(inner_pytester: pytest.Pytester) -> None:
    """Narrowing `transports` keeps the other transport's tests in the report, as skips with the reason."""
    reasons = _skip_reasons(
        inner_pytester, "class TestNarrowed(_Http):\n    pass\n", "test_static_rules_match_whole_names"
    )
    assert list(reasons) == ["test_static_rules_match_whole_names[stdio]"]
    assert (
        "TestNarrowed.transports = ('http',) leaves out stdio: "
        "test_static_rules_match_whole_names[stdio] is not run"
        in reasons["test_static_rules_match_whole_names[stdio]"]
    )


def test_a_driver_without_http_skips_the_http_tests_by_name(inner_pytester: pytest.Pytester) -> None:
    reasons = _skip_reasons(
        inner_pytester,
        "class NoHttp(ReferenceDriver):\n"
        "    capabilities = DriverCapabilities(http_transport=False)\n\n\n"
        "class TestNoHttp(_Http):\n"
        "    driver_factory = NoHttp\n",
        "test_static_rules_match_whole_names",
    )
    assert (
        "driver 'reference' declares capabilities.http_transport=False; "
        "test_static_rules_match_whole_names[http] needs it"
        in reasons["test_static_rules_match_whole_names[http]"]
    )
