"""`schemarouter demo` output: readable in 100 columns, one tool order for every framework, and a
closing line that claims agreement only when there was something to compare."""

from __future__ import annotations

import asyncio
import io
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from schemarouter.cli._demo_cmd import (
    MAX_WIDTH,
    Runner,
    closing_line,
    in_allow_set_order,
    offered_cell,
    render,
    run_all,
)
from schemarouter.demo_routing import ROUTING
from schemarouter.evidence import EvidenceCase, EvidenceReport
from schemarouter.testing import passing_evidence_report

ALLOW = ("search_customers", "create_customer", "get_customer")


def _case(query: str, offered: tuple[str, ...], allow: tuple[str, ...] = ALLOW) -> EvidenceCase:
    return EvidenceCase(
        query=query,
        kind="supported" if allow else "unsupported",
        required_tools=allow[:1],
        allow_set=allow,
        offered_tools=offered,
        no_route=not allow,
        offered_schema_bytes=100,
        routing_latency_ms=0.1,
        passed=True,
    )


def _report(framework: str, *cases: EvidenceCase) -> EvidenceReport:
    return replace(
        passing_evidence_report(cases=cases),
        adapter=f"schemarouter-{framework}",
        framework=framework,
        framework_version="1.5.2 (langchain-core 1.8.3)",
    )


def _reports(*names: str, mcp_order: str = "openai-agents") -> dict[str, EvidenceReport]:
    """Frameworks offering the same tools; `mcp_order` lists them in the server's order."""
    listing = ("get_customer", "create_customer", "search_customers")
    reports: dict[str, EvidenceReport] = {}
    for name in names:
        offered = listing if name == mcp_order else ALLOW
        reports[name] = _report(
            name,
            _case("search the CRM for customers named Ada", offered),
            _case("send an email to ada@example.org with the subject hello and a long tail " * 2, offered),
            _case("tell me a joke about cats", (), allow=()),
        )
    return reports


def _rendered(reports: dict[str, EvidenceReport], width: int = 200) -> str:
    out = io.StringIO()
    render(reports, Console(file=out, width=width, color_system=None, highlight=False, emoji=False))
    return out.getvalue()


def test_the_demo_fits_100_columns_in_a_wide_terminal() -> None:
    text = _rendered(_reports("langchain", "openai-agents", "pydantic-ai"))
    widest = max(len(line.rstrip()) for line in text.splitlines())
    assert widest <= MAX_WIDTH == 100, text


def test_a_narrower_terminal_is_not_overflowed() -> None:
    text = _rendered(_reports("langchain", "openai-agents", "pydantic-ai"), width=80)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80, text


def test_frameworks_listing_the_same_tools_in_another_order_show_one_list() -> None:
    reports = _reports("langchain", "openai-agents", "pydantic-ai")
    first = {name: report.cases[0] for name, report in reports.items()}
    assert first["openai-agents"].offered_tools != ALLOW, "precondition: the SDK's own order"
    assert offered_cell(first) == "search_customers, create_customer, get_customer"


def test_a_framework_that_offers_other_tools_gets_its_own_line() -> None:
    cases = {
        "langchain": _case("q", ALLOW),
        "openai-agents": _case("q", tuple(reversed(ALLOW))),
        "pydantic-ai": _case("q", ("search_customers",)),
    }
    assert offered_cell(cases).splitlines() == [
        "langchain, openai-agents: search_customers, create_customer, get_customer",
        "pydantic-ai: search_customers",
    ]


def test_offered_tools_are_put_in_the_allow_sets_order() -> None:
    case = _case("q", ("get_customer", "zeta_tool", "search_customers", "alpha_tool"))
    assert in_allow_set_order(case) == ("search_customers", "get_customer", "alpha_tool", "zeta_tool")


def test_one_framework_is_not_said_to_agree_with_anything(tmp_path: Path) -> None:
    line = closing_line(_reports("langchain"), tmp_path)
    assert "(1 evidence file)" in line
    assert "agree" not in line
    assert "nothing to compare" in line


def test_several_frameworks_are_counted_and_compared(tmp_path: Path) -> None:
    line = closing_line(_reports("langchain", "openai-agents", "pydantic-ai"), tmp_path)
    assert "(3 evidence files)" in line
    assert "the 3 frameworks offered the same allow-sets" in line


def test_tool_names_from_an_adapter_cannot_drive_the_terminal() -> None:
    reports = {
        "langchain": _report("langchain", _case("q\x1b[2J", ("evil\x1b]0;x\x07",), ("evil\x1b]0;x\x07",)))
    }
    text = _rendered(reports)
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "q\\x1b[2J" in text
    assert "evil\\x1b]0;x\\x07" in text


IMPORT_SECONDS = 0.4
RUN_SECONDS = 0.2


async def test_the_demo_says_what_it_does_before_each_step_and_times_all_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Importing an adapter (its framework) takes seconds: the demo says so before it starts,
    on a line of its own (shown in a log file as it happens), and the time it reports for the
    adapter covers the import as well as the run. A stand-in adapter that takes known times."""
    said_before: list[str] = []

    async def run_validation(config: Any, *, artifacts_dir: Path) -> Any:
        said_before.append(capsys.readouterr().err)
        await asyncio.sleep(RUN_SECONDS)
        return _report("stand-in", _case("q", ALLOW))

    def load() -> Runner:
        said_before.append(capsys.readouterr().err)
        time.sleep(IMPORT_SECONDS)  # what importing a framework costs, in small
        return run_validation

    started = time.perf_counter()
    reports = await run_all(ROUTING, tmp_path, ["stand-in"], adapters={"stand-in": load})
    wall = time.perf_counter() - started
    assert list(reports) == ["stand-in"]
    assert said_before[0] == "stand-in: importing the adapter and its framework ...\n"
    assert said_before[1] == "stand-in: fixture MCP server, routing, offline model turns ...\n"
    done = capsys.readouterr().err
    match = re.fullmatch(r"done stand-in in ([\d.]+) s \(import ([\d.]+) s, run ([\d.]+) s\)\n", done)
    assert match is not None, done
    total, imported, ran = (float(group) for group in match.groups())
    assert imported >= IMPORT_SECONDS - 0.05
    assert ran >= RUN_SECONDS - 0.05
    assert total >= IMPORT_SECONDS + RUN_SECONDS - 0.05
    assert total <= wall + 0.05
