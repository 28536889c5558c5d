"""`schemarouter demo`: one routing configuration, every installed adapter, side by side.

Adapters register an entry point in the `schemarouter.adapters` group naming an async
`run_validation(config, *, artifacts_dir) -> EvidenceReport`. Core imports no framework:
it only loads the adapters that are installed.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

from rich.markup import escape
from rich.table import Table

from ..demo_routing import ROUTING
from ..errors import RuntimeFailure
from ..evidence._report import EvidenceReport
from ..visibility._config import RoutingConfig
from ._common import emit_json, stderr, stdout

__all__ = ["register"]

ENTRY_POINT_GROUP = "schemarouter.adapters"
Runner = Callable[..., Awaitable[EvidenceReport]]


BUNDLED_ADAPTERS = {
    "langchain": "schemarouter-langchain",
    "openai-agents": "schemarouter-openai-agents",
    "pydantic-ai": "schemarouter-pydantic-ai",
}
"""Entry-point name -> distribution of the adapters this project ships."""


def installed_adapters() -> dict[str, Runner]:
    found: dict[str, Runner] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        found[ep.name] = cast(Runner, ep.load())
    return found


def _offered(case: Any) -> str:
    return "no route" if case.no_route else ", ".join(case.offered_tools) or "(none)"


def disagreements(reports: dict[str, EvidenceReport]) -> list[str]:
    """Queries whose allow-sets differ between frameworks (same routing, so they must not)."""
    problems: list[str] = []
    names = list(reports)
    if not names:
        return problems
    reference = {c.query: c.allow_set for c in reports[names[0]].cases}
    for name in names[1:]:
        other = {c.query: c.allow_set for c in reports[name].cases}
        if set(other) != set(reference):
            problems.append(f"{name} ran other queries than {names[0]}")
            continue
        for query, allow in reference.items():
            if other[query] != allow:
                problems.append(f"{query!r}: {names[0]} {list(allow)} != {name} {list(other[query])}")
    return problems


def render(reports: dict[str, EvidenceReport]) -> None:
    frameworks = list(reports)
    first = reports[frameworks[0]]
    per_query = Table(title="What each framework's model was offered, per request", title_justify="left")
    per_query.add_column("request")
    per_query.add_column("expected")
    for name in frameworks:
        per_query.add_column(name)
    cases = {name: {c.query: c for c in report.cases} for name, report in reports.items()}
    for case in first.cases:
        expected = ", ".join(case.required_tools) if case.kind == "supported" else "no route"
        per_query.add_row(case.query, expected, *(_offered(cases[n][case.query]) for n in frameworks))
    stdout.print(per_query)

    summary = Table(title="Per framework", title_justify="left")
    summary.add_column("measure")
    for name in frameworks:
        summary.add_column(name, justify="right")
    rows: list[tuple[str, Callable[[EvidenceReport], str]]] = [
        ("framework version", lambda r: r.framework_version),
        ("tools discovered", lambda r: str(r.discovered_tool_count)),
        ("max tools offered", lambda r: str(r.shortlisted_tool_count_max)),
        ("schema bytes: full catalog", lambda r: str(r.full_schema_bytes)),
        ("schema bytes: offered (mean)", lambda r: f"{r.filtered_schema_bytes_mean:.0f}"),
        ("required-tool recall", lambda r: f"{r.required_tool_recall:.2f}"),
        ("unsupported rejected", lambda r: f"{r.unsupported_query_rejection:.2f}"),
        ("approval kept (destructive tool)", lambda r: "yes" if r.approval_preserved else "NO"),
        ("input guardrail kept", lambda r: "yes" if r.input_guardrail_preserved else "NO"),
        ("output guardrail kept", lambda r: "yes" if r.output_guardrail_preserved else "NO"),
        (
            "routing latency p50 / p95 (ms)",
            lambda r: f"{r.routing_latency.p50_ms:.3f} / {r.routing_latency.p95_ms:.3f}",
        ),
        ("tool bodies run by SchemaRouter", lambda r: str(r.tool_body_calls)),
    ]
    for label, cell in rows:
        summary.add_row(label, *(cell(reports[n]) for n in frameworks))
    stdout.print(summary)
    stdout.print(first.bytes_note)


def _healthy(report: EvidenceReport) -> bool:
    return not report.failures()


async def run_all(
    config: RoutingConfig, artifacts: Path, only: list[str] | None
) -> dict[str, EvidenceReport]:
    adapters = installed_adapters()
    if only:
        missing = sorted(set(only) - set(adapters))
        if missing:
            raise RuntimeFailure(f"adapters not installed: {', '.join(missing)}")
        adapters = {name: adapters[name] for name in only}
    if not adapters:
        raise RuntimeFailure(
            "no adapter installed: pip install schemarouter-openai-agents, schemarouter-pydantic-ai "
            "or schemarouter-langchain"
        )
    if not only:
        for name, dist in BUNDLED_ADAPTERS.items():
            if name not in adapters:
                stderr.print(
                    f"[yellow]skipped[/] {escape(name)}: not installed (pip install {escape(dist)})",
                    markup=True,
                )
    reports: dict[str, EvidenceReport] = {}
    for name, runner in adapters.items():
        started = time.perf_counter()
        with stderr.status(f"{escape(name)}: fixture MCP server, routing, offline model turns ..."):
            reports[name] = await runner(config, artifacts_dir=artifacts)
        stderr.print(f"[green]done[/] {escape(name)} in {time.perf_counter() - started:.1f} s", markup=True)
    return reports


def run(args: argparse.Namespace) -> int:
    artifacts = Path(args.artifacts)
    stderr.print(
        f"routing config (schemarouter.demo_routing): k={ROUTING.k}, blocked={list(ROUTING.blocked)}, "
        f"abstention={ROUTING.abstention}"
    )
    reports = asyncio.run(run_all(ROUTING, artifacts, args.adapter or None))
    if args.json:
        emit_json({name: report.to_dict() for name, report in reports.items()})
    else:
        render(reports)
    problems = disagreements(reports)
    unhealthy = [name for name, report in reports.items() if not _healthy(report)]
    for problem in problems:
        stderr.print(f"[red]DISAGREEMENT[/] {escape(problem)}", markup=True)
    for name in unhealthy:
        stderr.print(
            f"[red]FAILED[/] {escape(name)}: recall, rejection, approvals, guardrails or tool-body calls off",
            markup=True,
        )
    if problems or unhealthy:
        return 1
    stderr.print(f"artifacts written to {artifacts}/ ({len(reports)} evidence files); all frameworks agree")
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo", help="one routing config through every installed adapter, side by side"
    )
    parser.add_argument(
        "--artifacts", default="artifacts", help="where evidence files go (default ./artifacts)"
    )
    parser.add_argument("--adapter", action="append", default=[], help="run only this adapter (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the evidence reports as JSON")
    parser.set_defaults(handler=run)
