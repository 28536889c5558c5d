"""`schemarouter demo`: one routing configuration, every installed adapter, side by side.

Adapters register an entry point in the `schemarouter.adapters` group naming an async
`run_validation(config, *, artifacts_dir) -> EvidenceReport`. Core imports no framework:
it only loads the adapters that are installed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import time
from collections.abc import Awaitable, Callable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .._router import SchemaRouter
from ..demo_routing import ROUTING, load_router
from ..errors import RuntimeFailure
from ..evidence._report import EvidenceCase, EvidenceReport
from ..visibility._config import RoutingConfig
from ._common import add_verbose_argument, count, emit_json, printable, stderr, stdout
from ._demo_conversation import converse, render_conversation
from ._trace import console_trace

__all__ = ["EXAMPLE", "register"]

EXAMPLE = """example (two of the bundled adapters, evidence files into ./artifacts):
  schemarouter demo --adapter langchain --adapter pydantic-ai"""

ENTRY_POINT_GROUP = "schemarouter.adapters"
Runner = Callable[..., Awaitable[EvidenceReport]]


BUNDLED_ADAPTERS = {
    "langchain": "packages/adapter-langchain",
    "openai-agents": "packages/adapter-openai-agents",
    "pydantic-ai": "packages/adapter-pydantic-ai",
}
"""Entry-point name -> the folder of the adapters this project ships, in the repository."""

MAX_WIDTH = 100
"""The widest the demo prints, whatever the terminal: its tables are read side by side."""


def install_hint(folder: str) -> str:
    """How to install a bundled adapter today: from a clone of the repository (the packages are
    not on the public index yet), with the local packages it needs in the same command."""
    return f"from the repository's root: pip install ./packages/core ./conformance ./{folder}"


BUNDLED_MODULES = {
    "langchain": "schemarouter_langchain",
    "openai-agents": "schemarouter_openai_agents",
    "pydantic-ai": "schemarouter_pydantic_ai",
}
"""Entry-point name -> the import name of a bundled adapter. Their validations ship with the
conformance package, which registers all three: one counts as installed only with its adapter."""


def installed_adapters() -> dict[str, Callable[[], Runner]]:
    """The installed adapters by entry-point name, each as the call that imports it and gives its
    `run_validation`: importing an adapter imports its framework, which takes seconds, so the
    demo does it as a step it announces and times."""
    found: dict[str, Callable[[], Runner]] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        module = BUNDLED_MODULES.get(ep.name)
        if module is not None and importlib.util.find_spec(module) is None:
            continue
        found[ep.name] = lambda ep=ep: cast(Runner, ep.load())
    return found


def _step(name: str, doing: str) -> None:
    """Say what the demo starts now, on its own line (stderr flushes each line, so a log file or
    a pipe shows it as it happens)."""
    stderr.print(f"{escape(name)}: {doing} ...", markup=True)


def _done(name: str, seconds: float, parts: str = "") -> None:
    stderr.print(f"[green]done[/] {escape(name)} in {seconds:.1f} s{parts}", markup=True)


def in_allow_set_order(case: EvidenceCase) -> tuple[str, ...]:
    """The tools `case` offered, in one order for every framework: the allow-set's (best first),
    then any tool outside it, sorted. Frameworks list tools their own way (the OpenAI Agents SDK
    keeps the MCP server's order), which is not a difference in what was offered."""
    rank = {name: position for position, name in enumerate(case.allow_set)}
    return tuple(sorted(case.offered_tools, key=lambda name: (rank.get(name, len(rank)), name)))


def _offered(case: EvidenceCase) -> str:
    return "no route" if case.no_route else ", ".join(in_allow_set_order(case)) or "(none)"


def offered_cell(cases: dict[str, EvidenceCase]) -> str:
    """One list when every framework offered the same; otherwise one line per distinct list,
    naming the frameworks that offered it."""
    by_offer: dict[str, list[str]] = {}
    for name, case in cases.items():
        by_offer.setdefault(_offered(case), []).append(name)
    if len(by_offer) == 1:
        return next(iter(by_offer))
    return "\n".join(f"{', '.join(names)}: {offer}" for offer, names in by_offer.items())


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


def _frameworks(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def render(reports: dict[str, EvidenceReport], console: Console = stdout) -> None:
    """The per-request and per-framework tables, at most `MAX_WIDTH` columns wide."""
    width = min(console.width, MAX_WIDTH)
    frameworks = list(reports)
    first = reports[frameworks[0]]
    per_query = Table(
        title="What the model was offered, per request (allow-set order, best first)", title_justify="left"
    )
    per_query.add_column("request", ratio=3)
    per_query.add_column("expected", ratio=2)
    per_query.add_column(f"offered by {printable(_frameworks(frameworks))}", ratio=4)
    cases = {name: {c.query: c for c in report.cases} for name, report in reports.items()}
    for case in first.cases:
        expected = ", ".join(case.required_tools) if case.kind == "supported" else "no route"
        cell = offered_cell(
            {name: cases[name][case.query] for name in frameworks if case.query in cases[name]}
        )
        per_query.add_row(printable(case.query), printable(expected), printable(cell))
    console.print(per_query, width=width)

    summary = Table(title="Per framework", title_justify="left")
    summary.add_column("measure")
    for name in frameworks:
        summary.add_column(printable(name), justify="right")
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
        summary.add_row(label, *(printable(cell(reports[n])) for n in frameworks))
    console.print(summary, width=width)
    console.print(printable(first.bytes_note), width=width)


def closing_line(reports: dict[str, EvidenceReport], artifacts: Path) -> str:
    """What a successful demo ends with: where the evidence went, and what was compared."""
    ran = len(reports)
    if ran == 1:
        verdict = f"only {next(iter(reports))} ran, so there was nothing to compare it with"
    else:
        verdict = f"the {ran} frameworks offered the same allow-sets"
    return f"artifacts written to {artifacts}/ ({count(ran, 'evidence file')}); {verdict}"


def _healthy(report: EvidenceReport) -> bool:
    return not report.failures()


async def run_all(
    config: RoutingConfig,
    artifacts: Path,
    only: list[str] | None,
    adapters: Mapping[str, Callable[[], Runner]] | None = None,
) -> dict[str, EvidenceReport]:
    """Each adapter's validation run, in name order, announced and timed as it goes: the time
    reported for an adapter covers importing it (and its framework) and its run. `adapters`
    defaults to the installed ones (`installed_adapters`)."""
    found = dict(adapters) if adapters is not None else installed_adapters()
    if only:
        missing = sorted(set(only) - set(found))
        if missing:
            raise RuntimeFailure(
                f"adapters not installed: {', '.join(missing)} (installed: {', '.join(found) or 'none'})"
            )
        found = {name: found[name] for name in only}
    if not found:
        raise RuntimeFailure(
            f"no adapter installed; for example, {install_hint(BUNDLED_ADAPTERS['langchain'])}"
        )
    if not only:
        for name, folder in BUNDLED_ADAPTERS.items():
            if name not in found:
                stderr.print(
                    f"[yellow]skipped[/] {escape(name)}: not installed ({escape(install_hint(folder))})",
                    markup=True,
                )
    reports: dict[str, EvidenceReport] = {}
    for name, load in found.items():
        started = time.perf_counter()
        _step(name, "importing the adapter and its framework")
        runner = load()
        imported = time.perf_counter()
        _step(name, "fixture MCP server, routing, offline model turns")
        reports[name] = await runner(config, artifacts_dir=artifacts)
        finished = time.perf_counter()
        _done(
            name, finished - started, f" (import {imported - started:.1f} s, run {finished - imported:.1f} s)"
        )
    return reports


def run(args: argparse.Namespace) -> int:
    stop_trace = console_trace(service="schemarouter-demo") if args.trace else None
    try:
        return _run(args)
    finally:
        if stop_trace is not None:
            stop_trace()


def _run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
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
        stderr.print(f"[red]DISAGREEMENT[/] {escape(printable(problem))}", markup=True)
    for name in unhealthy:
        stderr.print(
            f"[red]FAILED[/] {escape(printable(name))}: recall, rejection, approvals, guardrails or tool-body calls off",
            markup=True,
        )
    if problems or unhealthy:
        return 1
    if not args.json:
        talked = time.perf_counter()
        _step("conversation", "the same routing in a conversation over the fixture MCP server")
        asyncio.run(show_conversation())
        _done("conversation", time.perf_counter() - talked)
    stderr.print(closing_line(reports, artifacts))
    stderr.print(f"the steps above took {time.perf_counter() - started:.1f} s")
    return 0


async def show_conversation(console: Console = stdout, router: SchemaRouter | None = None) -> None:
    """The same routing configuration in a conversation (`RoutingSession`), over the fixture
    server (`router`: one already listed from it; by default the fixture server is listed)."""
    router = router if router is not None else await load_router()
    steps = converse(ROUTING.visibility(router))
    console.print()
    render_conversation(steps, router.catalog.total_schema_bytes(), console, MAX_WIDTH)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo",
        help="one routing config through every installed adapter, side by side",
        description="Run one routing configuration (schemarouter.demo_routing) through every "
        "installed framework adapter against the bundled fixture MCP server, offline, and show "
        "side by side what each model was offered; exit 1 if the frameworks disagree.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_verbose_argument(parser)
    parser.add_argument(
        "--artifacts", default="artifacts", help="where evidence files go (default ./artifacts)"
    )
    parser.add_argument("--adapter", action="append", default=[], help="run only this adapter (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the evidence reports as JSON")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="print SchemaRouter's OpenTelemetry spans on stderr (needs opentelemetry-sdk)",
    )
    parser.set_defaults(handler=run)
