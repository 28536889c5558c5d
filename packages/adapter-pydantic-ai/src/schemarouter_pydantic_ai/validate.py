"""External validation: `python -m schemarouter_pydantic_ai.validate`.

Starts the bundled fixture MCP server over stdio, routes the shared validation queries
through a real PydanticAI agent (offline `FunctionModel`, the server reached through
`MCPToolset`), and writes `./artifacts/external-validation-pydantic-ai.json` as a
`schemarouter.evidence.EvidenceReport`. The agent keeps PydanticAI's own approval
(`.approval_required()` on the destructive tools) and hooks (`before_tool_execute` as an
input guardrail, `after_tool_execute` as an output guardrail). Exits non-zero when recall or
rejection is below 1.0, any fixture tool body ran, or an approval or hook was lost.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDefinition, ToolDenied
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage

import schemarouter
from schemarouter import RoutingConfig, SchemaRouter
from schemarouter.catalog import canonical_bytes, offered_bytes
from schemarouter.evidence import EvidenceCase, EvidenceReport, RoutingTimer, validation_command
from schemarouter_conformance import (
    DESTRUCTIVE_TOOLS,
    GUARDRAIL_TRIP_VALUE,
    READ_ONLY_TOOLS,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    read_call_log,
    stdio_command,
)

from ._router import PydanticAIRouter
from ._scripted import RunDeps, build_agent, call_turn, find_call_result, fixture_toolset, offer_turn

__all__ = ["ARTIFACT", "failures", "main", "run_validation"]

ARTIFACT = Path("artifacts") / "external-validation-pydantic-ai.json"
SOURCE = "fixture"


def _fresh_run(query: str) -> Callable[[], RunContext[RunDeps]]:
    """A new run context for `query` each call (no run id: nothing the adapter memoises per
    run step is reused). The model is never called: routing reads only the deps."""
    model = TestModel()
    return lambda: RunContext(deps=RunDeps(query), model=model, usage=RunUsage())


def _offered_bytes(tool_defs: Sequence[ToolDefinition]) -> int:
    return sum(offered_bytes(d.name, d.description, d.parameters_json_schema) for d in tool_defs)


def note_for_output_check(text: str) -> str:
    """Echo a note back (a local, side-effect-free tool used to observe the output hook)."""
    return f"note: {text}"


async def _approval_preserved(agent: Agent[RunDeps, Any], call_log: Path) -> bool:
    """A routed-in destructive tool pauses for approval, and a rejection keeps it from running."""
    case = next(c for c in SUPPORTED_CASES if c.required_tools[0] in DESTRUCTIVE_TOOLS)
    tool = case.required_tools[0]
    turn, result = await call_turn(agent, RunDeps(case.query), tool, case.arguments)
    output = result.output
    pending = isinstance(output, DeferredToolRequests) and [c.tool_name for c in output.approvals] == [tool]
    if not pending or read_call_log(call_log):
        return False
    denied = await agent.run(
        deps=RunDeps(case.query),
        model=turn.model(),
        message_history=result.all_messages(),
        deferred_tool_results=DeferredToolResults(
            approvals={turn.call_id: ToolDenied("rejected by validation")}
        ),
    )
    answer = find_call_result(denied.all_messages(), turn.call_id)
    return (
        answer is not None and "rejected by validation" in str(answer.content) and not read_call_log(call_log)
    )


async def _input_guardrail_preserved(agent: Agent[RunDeps, Any], call_log: Path) -> bool:
    """The `before_tool_execute` hook still refuses a routed-in call carrying the trip value."""
    case = next(c for c in SUPPORTED_CASES if c.required_tools[0] in READ_ONLY_TOOLS)
    tool = case.required_tools[0]
    text_arg = next(name for name, value in case.arguments.items() if isinstance(value, str))
    deps = RunDeps(case.query)
    await call_turn(agent, deps, tool, {**case.arguments, text_arg: GUARDRAIL_TRIP_VALUE})
    return deps.input_blocked == [tool] and not read_call_log(call_log)


async def _output_guardrail_preserved(agent: Agent[RunDeps, Any]) -> bool:
    """The `after_tool_execute` hook still sees tool results on the routed agent.

    Observed on a local, side-effect-free function tool added for this run only, so that no
    fixture tool body runs during the validation.
    """
    local = FunctionToolset([note_for_output_check])
    deps = RunDeps("tell me a joke about cats")
    await call_turn(agent, deps, "note_for_output_check", {"text": "hello"}, toolsets=[local])
    return deps.outputs_seen == [("note_for_output_check", "note: hello")]


async def run_validation(
    config: RoutingConfig | None = None, *, artifacts_dir: str | Path = "artifacts"
) -> EvidenceReport:
    """Validate with `config` (default `RoutingConfig()`, the default allow-set size), write the artifact into
    `artifacts_dir` and return the report.

    This is also the `schemarouter.adapters` entry point `schemarouter demo` calls.
    """
    with tempfile.TemporaryDirectory(prefix="schemarouter-validate-") as tmp:
        report = await _validate(config or RoutingConfig(), Path(tmp) / "calls.jsonl")
    report.write(Path(artifacts_dir) / ARTIFACT.name)
    return report


async def _validate(config: RoutingConfig, call_log: Path) -> EvidenceReport:
    """Run every check against a fresh fixture server logging to `call_log`; build the report."""
    command, args = stdio_command(call_log)
    schema_router = await SchemaRouter.from_stdio(command, args, name=SOURCE)
    catalog = schema_router.catalog
    visibility = config.visibility(schema_router)
    visibility.allow_set("warm-up")  # per-catalog structures are built once, outside the timed requests
    router = PydanticAIRouter(visibility)
    timer = RoutingTimer()
    toolset = fixture_toolset(command=command, args=args)
    cases: list[EvidenceCase] = []
    found = required = rejected = successes = checked = identical = 0
    async with toolset:
        agent = build_agent(
            router,
            toolset,
            approval_required=DESTRUCTIVE_TOOLS,
            trip_value=GUARDRAIL_TRIP_VALUE,
            source=SOURCE,
        )
        queries = [(c.query, "supported", c) for c in SUPPORTED_CASES] + [
            (q, "unsupported", None) for q in UNSUPPORTED_QUERIES
        ]
        for query, kind, case in queries:
            latency = timer.measure(router.allow_set, _fresh_run(query))
            offered = await offer_turn(agent, RunDeps(query))
            allow = visibility.allow_set(query)
            names = tuple(d.name for d in offered)
            for tool_def in offered:
                cap = catalog.lookup(SOURCE, tool_def.name)
                checked += 1
                identical += cap is not None and canonical_bytes(
                    tool_def.parameters_json_schema
                ) == canonical_bytes(cap.input_schema)
            if case is not None:
                hits = [t for t in case.required_tools if t in names]
                found += len(hits)
                required += len(case.required_tools)
                passed = len(hits) == len(case.required_tools) and set(names) == set(allow.names)
                schema = next(
                    (d.parameters_json_schema for d in offered if d.name == case.required_tools[0]), None
                )
                if (
                    passed
                    and schema is not None
                    and Draft202012Validator(schema).is_valid(dict[str, Any](case.arguments))
                ):
                    successes += 1
                required_tools = case.required_tools
            else:
                passed = not names
                rejected += passed
                required_tools = ()
            cases.append(
                EvidenceCase(
                    query,
                    kind,
                    required_tools,
                    allow.names,
                    names,
                    not names,
                    _offered_bytes(offered),
                    latency,
                    passed,
                )
            )
        approval = await _approval_preserved(agent, call_log)
        input_guard = await _input_guardrail_preserved(agent, call_log)
        output_guard = await _output_guardrail_preserved(agent)
    supported = [c for c in cases if c.kind == "supported"]
    return EvidenceReport(
        adapter="schemarouter-pydantic-ai",
        framework="pydantic-ai",
        framework_version=version("pydantic-ai-slim"),
        schemarouter_version=schemarouter.__version__,
        discovered_tool_count=len(catalog),
        shortlisted_tool_count_max=max((len(c.offered_tools) for c in cases), default=0),
        full_schema_bytes=catalog.total_schema_bytes(),
        filtered_schema_bytes_mean=round(
            sum(c.offered_schema_bytes for c in cases if c.kind == "supported")
            / max(sum(c.kind == "supported" for c in cases), 1),
            2,
        ),
        required_tool_recall=round(found / required, 4) if required else 0.0,
        unsupported_query_rejection=round(rejected / len(UNSUPPORTED_QUERIES), 4)
        if UNSUPPORTED_QUERIES
        else 0.0,
        shortlist_task_success=round(successes / len(supported), 4) if supported else 0.0,
        routing_latency=timer.summary(),
        schema_fidelity_checked=checked,
        schema_fidelity_identical=identical,
        approval_preserved=approval,
        input_guardrail_preserved=input_guard,
        output_guardrail_preserved=output_guard,
        tool_body_calls=len(read_call_log(call_log)),
        cases=tuple(cases),
    )


def failures(report: EvidenceReport) -> list[str]:
    """Why the report does not meet the acceptance bar (empty when it does)."""
    return report.failures()


def main(argv: Sequence[str] | None = None) -> int:
    return validation_command(
        run_validation,
        prog="python -m schemarouter_pydantic_ai.validate",
        artifact_name=ARTIFACT.name,
        argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
