"""`EvidenceReport`: the acceptance bar (`failures()`) and what the validation commands print
(`summary()`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter import RoutingConfig, SchemaRouter, Visibility
from schemarouter.evidence import (
    EvidenceReport,
    LatencySummary,
    RoutingTimer,
    ValidationRunner,
    validation_command,
)
from schemarouter.testing import passing_evidence_report as report


def test_a_passing_report_has_no_failures() -> None:
    assert report().failures() == []


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"required_tool_recall": 0.83}, "recall"),
        ({"unsupported_query_rejection": 0.75}, "rejection"),
        ({"tool_body_calls": 1}, "tool-body calls must be 0"),
        ({"approval_preserved": False}, "approval_preserved"),
        ({"input_guardrail_preserved": False}, "input_guardrail_preserved"),
        ({"output_guardrail_preserved": False}, "output_guardrail_preserved"),
        ({"schema_fidelity_identical": 0}, "schema differs"),
    ],
)
def test_each_shortfall_is_named_once(changes: dict[str, object], needle: str) -> None:
    problems = report(**changes).failures()
    assert len(problems) == 1
    assert needle in problems[0]


def test_summary_states_every_headline_number() -> None:
    text = "\n".join(
        report(
            framework_version="1.2.3",
            filtered_schema_bytes_mean=512.5,
            routing_latency=LatencySummary(0.12, 0.5, 0.75),
        ).summary()
    )
    for needle in (
        "example-framework 1.2.3",
        "schemarouter 0.1.0",
        "15 tools discovered",
        "at most 3 offered",
        "5000 full catalog vs 512.5 offered",
        "bytes, not tokens",
        "recall 1.000",
        "rejection 1.000",
        "task success 1.000",
        "p50 0.12 ms",
        "p95 0.5 ms",
        "approvals kept",
        "input guardrail kept",
        "output guardrail kept",
        "tool-body calls 0",
        "schemas identical 3/3",
    ):
        assert needle in text, needle


def test_summary_shows_shortfalls_without_judging() -> None:
    lines = report(
        required_tool_recall=0.8333, approval_preserved=False, tool_body_calls=2, schema_fidelity_identical=1
    ).summary()
    text = "\n".join(lines)
    assert "recall 0.833" in text
    assert "approvals NOT kept" in text
    assert "tool-body calls 2" in text
    assert "schemas identical 1/3" in text
    assert not any("FAILED" in line for line in lines)
    assert all("\n" not in line for line in lines)


def _runner(changes: dict[str, object], seen: list[tuple[RoutingConfig, Path]]) -> ValidationRunner:
    async def run_validation(config: RoutingConfig, *, artifacts_dir: Path) -> EvidenceReport:
        seen.append((config, artifacts_dir))
        built = report(**changes)
        built.write(artifacts_dir / "external-validation-test.json")
        return built

    return run_validation


def test_validation_command_writes_prints_and_exits_0_when_the_bar_is_met(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[RoutingConfig, Path]] = []
    code = validation_command(
        _runner({}, seen),
        prog="validate",
        artifact_name="external-validation-test.json",
        argv=["--artifacts-dir", str(tmp_path)],
    )
    out = capsys.readouterr()
    assert code == 0
    assert seen == [(RoutingConfig(), tmp_path)]
    assert (tmp_path / "external-validation-test.json").is_file()
    assert f"wrote {tmp_path / 'external-validation-test.json'}" in out.out
    assert "\n".join(report().summary()) in out.out
    assert "FAILED" not in out.err


def test_validation_command_names_each_failure_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = report(tool_body_calls=2, required_tool_recall=0.5)
    code = validation_command(
        _runner({"tool_body_calls": 2, "required_tool_recall": 0.5}, []),
        prog="validate",
        artifact_name="external-validation-test.json",
        argv=["--artifacts-dir", str(tmp_path)],
    )
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines() == [f"FAILED: {problem}" for problem in failing.failures()]
    assert len(failing.failures()) == 2


def test_the_routing_timer_runs_each_request_on_fresh_contexts_and_keeps_every_run() -> None:
    """Each run gets a context of its own (an adapter's per-run memo cannot answer it), the
    request's latency is its median run, and the summary covers every run of every request."""
    router = SchemaRouter.from_callables([_weather, _email])
    visibility = Visibility(router, k=3)
    seen: list[object] = []

    def route(context: dict[str, str]) -> object:
        seen.append(context)
        return visibility.allow_set(context["query"])

    timer = RoutingTimer(runs=5)
    first = timer.measure(route, lambda: {"query": "weather in Lisbon"})
    second = timer.measure(route, lambda: {"query": "send an email to Ada"})
    assert len(seen) == 10
    assert len({id(c) for c in seen}) == 10  # a fresh context each run
    assert len(timer.samples_ms) == 10
    assert first == round(sorted(timer.samples_ms[:5])[2], 4)
    assert second == round(sorted(timer.samples_ms[5:])[2], 4)
    assert timer.summary() == LatencySummary.of(timer.samples_ms)
    assert timer.summary().max_ms == round(max(timer.samples_ms), 4)


def _weather(city: str) -> str:
    """Weather forecast for a city."""
    return city


def _email(to: str) -> str:
    """Send an email to a recipient."""
    return to
