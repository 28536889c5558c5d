"""The evidence report every adapter's external validation writes (one shape for all)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..errors import UserError
from ..visibility._config import RoutingConfig

__all__ = [
    "BYTES_NOTE",
    "EVIDENCE_FIELDS",
    "BoundaryStatement",
    "EvidenceCase",
    "EvidenceReport",
    "LatencySummary",
    "RoutingTimer",
    "ValidationRunner",
    "missing_evidence_fields",
    "validation_command",
]

BYTES_NOTE = (
    "Schema sizes are bytes of compact, sorted-key UTF-8 JSON of what the model is offered "
    "(name, description, input schema). Bytes are not tokens."
)


@dataclass(frozen=True, slots=True)
class EvidenceCase:
    """One validation query and what happened to it."""

    query: str
    kind: str
    """`supported` (a tool should be routed) or `unsupported` (no route expected)."""
    required_tools: tuple[str, ...]
    allow_set: tuple[str, ...]
    offered_tools: tuple[str, ...]
    no_route: bool
    offered_schema_bytes: int
    routing_latency_ms: float
    """The median of the request's timed runs (see `RoutingTimer`)."""
    passed: bool


@dataclass(frozen=True, slots=True)
class LatencySummary:
    p50_ms: float
    p95_ms: float
    max_ms: float

    @classmethod
    def of(cls, samples_ms: Sequence[float]) -> LatencySummary:
        if not samples_ms:
            return cls(0.0, 0.0, 0.0)
        ordered = sorted(samples_ms)

        def pick(q: float) -> float:
            return round(ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))], 4)

        return cls(pick(0.5), pick(0.95), round(ordered[-1], 4))


_Context = TypeVar("_Context")


@dataclass
class RoutingTimer:
    """Routing latency as every adapter's validation measures it, so reports compare.

    Each request runs the adapter's own routing hook `runs` times, each time on a fresh run
    context (so no per-run memo of the adapter answers), timing the hook alone. The first run
    also works out what the request's new words add (see `docs/decisions.md`); the others
    find them cached, as later turns of a conversation do. `summary()` covers every run of
    every request.
    """

    runs: int = 20
    samples_ms: list[float] = field(default_factory=list[float])

    def measure(self, route: Callable[[_Context], object], fresh_context: Callable[[], _Context]) -> float:
        """Time `route(context)` over `runs` fresh contexts; the median run, in milliseconds."""
        clock = time.perf_counter
        runs: list[float] = []
        for _ in range(self.runs):
            context = fresh_context()
            start = clock()
            route(context)
            runs.append((clock() - start) * 1000.0)
        self.samples_ms.extend(runs)
        return round(sorted(runs)[len(runs) // 2], 4)

    def summary(self) -> LatencySummary:
        return LatencySummary.of(self.samples_ms)


@dataclass(frozen=True, slots=True)
class BoundaryStatement:
    """What SchemaRouter did and did not do during the validation."""

    hosted_model_used: bool = False
    api_key_used: bool = False
    schemarouter_executed_tools: bool = False
    did: tuple[str, ...] = (
        "discovered the tool catalog (tools/list only)",
        "computed a per-request allow-set and exposed it through the framework's own hook",
    )
    did_not: tuple[str, ...] = (
        "execute any tool",
        "replace, wrap away or weaken the framework's approvals or guardrails",
        "call a hosted model or use an API key",
        "treat server annotations as authorization",
    )


@dataclass(frozen=True, slots=True)
class EvidenceReport:
    """The validation artifact. Build it, then `write(path)`."""

    adapter: str
    framework: str
    framework_version: str
    schemarouter_version: str
    discovered_tool_count: int
    shortlisted_tool_count_max: int
    full_schema_bytes: int
    filtered_schema_bytes_mean: float
    required_tool_recall: float
    unsupported_query_rejection: float
    shortlist_task_success: float
    routing_latency: LatencySummary
    schema_fidelity_checked: int
    schema_fidelity_identical: int
    approval_preserved: bool
    input_guardrail_preserved: bool
    output_guardrail_preserved: bool
    tool_body_calls: int
    cases: tuple[EvidenceCase, ...]
    boundary: BoundaryStatement = field(default_factory=BoundaryStatement)
    bytes_note: str = BYTES_NOTE
    python_version: str = field(default_factory=platform.python_version)

    def failures(self) -> list[str]:
        """Why this report misses the acceptance bar (empty when it passes).

        The bar every adapter's validation is held to: every required tool routed, every
        unsupported request refused, no tool body run, approvals and both guardrails kept,
        and every offered schema identical to its source.
        """
        problems: list[str] = []
        if self.required_tool_recall < 1.0:
            problems.append(f"required-tool recall is {self.required_tool_recall:.3f}, expected 1.0")
        if self.unsupported_query_rejection < 1.0:
            problems.append(
                f"unsupported-query rejection is {self.unsupported_query_rejection:.3f}, expected 1.0"
            )
        if self.tool_body_calls != 0:
            problems.append(f"{self.tool_body_calls} tool bodies ran (tool-body calls must be 0)")
        for flag, what in (
            ("approval_preserved", "approvals"),
            ("input_guardrail_preserved", "input guardrails"),
            ("output_guardrail_preserved", "output guardrails"),
        ):
            if getattr(self, flag) is not True:
                problems.append(f"{what} were not kept ({flag} is false)")
        if self.schema_fidelity_identical != self.schema_fidelity_checked:
            problems.append(
                f"an offered schema differs from its source ({self.schema_fidelity_identical} of "
                f"{self.schema_fidelity_checked} identical)"
            )
        return problems

    def summary(self) -> list[str]:
        """What a validation command prints about this report: one line per aspect, no verdict.

        Pair it with `failures()`, which says whether the report meets the acceptance bar.
        """

        def kept(flag: bool) -> str:
            return "kept" if flag else "NOT kept"

        latency = self.routing_latency
        return [
            f"{self.framework} {self.framework_version}, schemarouter {self.schemarouter_version}: "
            f"{self.discovered_tool_count} tools discovered, at most {self.shortlisted_tool_count_max} offered",
            f"schema bytes: {self.full_schema_bytes} full catalog vs {self.filtered_schema_bytes_mean:g} "
            "offered (mean; bytes, not tokens)",
            f"required-tool recall {self.required_tool_recall:.3f}, unsupported-query rejection "
            f"{self.unsupported_query_rejection:.3f}, shortlist task success {self.shortlist_task_success:.3f}",
            f"routing latency p50 {latency.p50_ms:g} ms, p95 {latency.p95_ms:g} ms, max {latency.max_ms:g} ms",
            f"approvals {kept(self.approval_preserved)}, input guardrail {kept(self.input_guardrail_preserved)}, "
            f"output guardrail {kept(self.output_guardrail_preserved)}; tool-body calls {self.tool_body_calls}; "
            f"schemas identical {self.schema_fidelity_identical}/{self.schema_fidelity_checked}",
        ]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def write(self, path: str | os.PathLike[str]) -> Path:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return target


EVIDENCE_FIELDS: tuple[str, ...] = tuple(EvidenceReport.__dataclass_fields__)
"""Every top-level field an evidence artifact must carry."""


def missing_evidence_fields(data: Mapping[str, Any]) -> list[str]:
    """Top-level fields (and boundary keys) absent from an evidence JSON object."""
    if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError("evidence must be a JSON object")
    missing = [name for name in EVIDENCE_FIELDS if name not in data]
    boundary = data.get("boundary")
    if isinstance(boundary, Mapping):
        missing += [
            f"boundary.{key}"
            for key in BoundaryStatement.__dataclass_fields__
            if key not in boundary  # pyright: ignore[reportUnknownMemberType]
        ]
    return missing


class ValidationRunner(Protocol):
    """An adapter's `run_validation`: validate with `config`, write the artifact into `artifacts_dir`."""

    def __call__(
        self, config: RoutingConfig, *, artifacts_dir: Path
    ) -> Coroutine[Any, Any, EvidenceReport]: ...


def validation_command(
    run_validation: ValidationRunner,
    *,
    prog: str,
    artifact_name: str,
    argv: Sequence[str] | None = None,
) -> int:
    """The `python -m schemarouter_<adapter>.validate` command, the same for every adapter.

    Runs the adapter's offline validation with `RoutingConfig()` (k=`DEFAULT_K`, 5, and no
    static rules), writes `<artifacts-dir>/<artifact_name>` (default directory `./artifacts`),
    prints the report's `summary()` and every `failures()` line, and returns 1 when the report
    misses the bar.
    """
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run this adapter's offline external validation and write its evidence report.",
    )
    parser.add_argument(
        "--artifacts-dir",
        type=Path,
        default=Path("artifacts"),
        help="directory the report is written to (default: ./artifacts)",
    )
    args = parser.parse_args(argv)
    artifacts_dir: Path = args.artifacts_dir
    report = asyncio.run(run_validation(RoutingConfig(), artifacts_dir=artifacts_dir))
    print(f"wrote {artifacts_dir / artifact_name}")
    print("\n".join(report.summary()))
    problems = report.failures()
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0
