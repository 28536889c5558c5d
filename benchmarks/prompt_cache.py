"""Prompt cache: what routed conversations send to the provider, through three frameworks.

    python benchmarks/prompt_cache.py [--catalogs fixture livemcp] [--frameworks ...] [--modes ...] [--k K] [--json]

Each framework's real OpenAI Responses / Anthropic Messages model class (the OpenAI Agents SDK:
Responses and Chat Completions) runs with the real `openai` / `anthropic` SDK client against the
conformance package's recording fake provider (`FakeProviderServer`, 127.0.0.1; no network, no
key). The model is a scripted stand-in: a conversation is a list of turns (the user's message,
which is also the routing request) and, per turn, the tools it needs in order. At each model
request the stand-in calls the next needed tool when the request makes it callable; otherwise it
searches once (SchemaRouter's `find_tools`, PydanticAI's `search_tools`, or OpenAI's client-run
`tool_search`, whichever the request offers) with the step's search words, and if the tool is
still not callable it gives that step up. After the last step it answers, which ends the turn.

Catalogs: `fixture`, the conformance package's MCP server (15 tools, over stdio); `livemcp`,
65 tools of 9 LiveMCPBench servers (`LIVEMCP_SERVERS`) served as written (less output schemas)
by a local stdio MCP server. Both conversations have five turns whose needed tools change, and
one step whose tool the turn's message does not ask for (reachable only by searching).

Modes: `all` (no routing), `per_request`, `session` (`sessions=SessionLimits()`), `native`
(deferred tools found by a client-executed search SchemaRouter answers: PydanticAI's adapter
`router.native_tools(reveal_routed=False)`; prototypes for LangChain in `_native.py` and the
OpenAI Agents SDK in `_native_agents.py`), `native_routed` (the same, and each turn's allow-set
revealed as if searched for; PydanticAI's `router.native_tools()`). Routing uses
`Visibility(router)` with its defaults, or `Visibility(router, k=K)` with `--k K`.

Per framework x API x mode it reports: model requests; follow-up requests that break the prompt
cache (their loaded tools, system prompt or `tool_choice` differ from the request before, or
that request's conversation is not an exact prefix of theirs: `schemarouter_conformance.cache_break`),
with the reasons; tool-definition bytes per request as sent (the whole `tools` array,
compact sorted-key JSON) and in context (loaded entries plus definitions revealed in the
conversation), also as a share of the same framework and API's no-routing request; and whether
each needed tool was callable when needed (at once, or after one search). `--json` prints the
report as one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import DATA
from _prompt_cache_frameworks import APIS, DRIVERS, NATIVE, Setup

from schemarouter import SchemaRouter
from schemarouter_conformance import (
    FakeProviderServer,
    PromptView,
    RecordedRequest,
    Text,
    ToolCall,
    ToolSearchCall,
    cache_breaks,
    prompt_view,
)
from schemarouter_conformance._provider_replies import Reply

MODES = ("all", "per_request", "session", "native", "native_routed")
SEARCH_TOOLS = ("find_tools", "search_tools")
LIVEMCP_SERVERS = (
    "yahoo-finance",
    "osm-mcp-server",
    "wikipedia",
    "time",
    "calculator",
    "weather",
    "git",
    "filesystem",
    "arxiv-mcp-server",
)
PACKAGES = (
    "openai",
    "anthropic",
    "pydantic-ai-slim",
    "langchain",
    "langchain-core",
    "langgraph",
    "langchain-openai",
    "langchain-anthropic",
    "openai-agents",
    "mcp",
    "schemarouter-core",
)


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: dict[str, Any]
    search: str
    """What the stand-in searches for when the tool is not callable."""


@dataclass(frozen=True)
class Turn:
    request: str
    steps: tuple[Step, ...]


FIXTURE_TURNS = (
    Turn(
        "what is the weather forecast for Paris this week",
        (Step("get_weather_forecast", {"city": "Paris", "days": 7}, "weather forecast"),),
    ),
    Turn(
        "convert 100 USD to EUR",
        (
            Step(
                "convert_currency",
                {"amount": 100, "from_currency": "USD", "to_currency": "EUR"},
                "convert currency",
            ),
        ),
    ),
    Turn(
        "find the customer Ada Lovelace and list her overdue invoices",
        (
            Step("search_customers", {"query": "Ada"}, "search customers"),
            Step("list_invoices", {"customer_id": "c-100", "status": "overdue"}, "list invoices"),
        ),
    ),
    Turn(
        "translate 'thank you for your patience' into French for Ada",
        (
            Step(
                "translate_text",
                {"text": "thank you for your patience", "target_language": "fr"},
                "translate",
            ),
            Step(
                "send_email", {"to": "ada@example.com", "subject": "Merci", "body": "merci"}, "send an email"
            ),
        ),
    ),
    Turn(
        "refund invoice inv-1 in full",
        (Step("refund_invoice", {"invoice_id": "inv-1", "amount": 120.0}, "refund invoice"),),
    ),
)

LIVEMCP_TURNS = (
    Turn(
        "what is Nvidia's current stock price",
        (Step("get_current_stock_price", {"symbol": "NVDA"}, "stock price"),),
    ),
    Turn(
        "find the coordinates of the Eiffel Tower and the weather in Paris",
        (
            Step("geocode_address", {"address": "Eiffel Tower, Paris"}, "geocode address"),
            Step("get_weather_by_city", {"city": "Paris"}, "weather city"),
        ),
    ),
    Turn(
        "give me a short summary of the Wikipedia article on Alan Turing",
        (Step("get_summary", {"title": "Alan Turing"}, "wikipedia summary"),),
    ),
    Turn(
        "show the last five commits of the repository in ./app",
        (Step("git_log", {"repo_path": "./app", "max_count": 5}, "git log"),),
    ),
    Turn(
        "what time is it in Tokyo right now, and how many hours until 18:00 there",
        (
            Step("get_current_time", {"timezone": "Asia/Tokyo"}, "current time"),
            Step("calculate", {"expression": "18 - 14"}, "calculate arithmetic expression"),
        ),
    ),
)


# -- the stand-in model -------------------------------------------------------------------------


@dataclass
class StepRecord:
    turn: int
    tool: str
    callable_at_once: bool
    reached: bool
    searched: bool


@dataclass
class StandIn:
    """The fake provider's script: follows the turns' steps from what each request makes callable."""

    turns: Sequence[Turn]
    records: list[StepRecord] = field(default_factory=list[StepRecord])
    turn: int = -1
    step: int = 0
    searched: bool = False
    first_miss: bool = False

    def start_turn(self, turn: int) -> None:
        self.turn, self.step, self.searched, self.first_miss = turn, 0, False, False

    def _search(self, view: PromptView, step: Step) -> Reply | None:
        for name in SEARCH_TOOLS:
            if name in view.tool_names:
                arguments = {"query": step.search} if name == "find_tools" else {"queries": [step.search]}
                return ToolCall(name, arguments)
        if view.api == "responses" and "tool_search" in view.hosted:
            return ToolSearchCall((step.search,))
        return None

    def __call__(self, request: RecordedRequest) -> Reply:
        view = prompt_view(request)
        steps = self.turns[self.turn].steps if 0 <= self.turn < len(self.turns) else ()
        while self.step < len(steps):
            step = steps[self.step]
            if step.tool in view.callable_names:
                self._record(step, reached=True)
                return ToolCall(step.tool, step.arguments)
            if not self.searched:
                self.searched, self.first_miss = True, True
                search = self._search(view, step)
                if search is not None:
                    return search
            self._record(step, reached=False)
        return Text("done")

    def _record(self, step: Step, *, reached: bool) -> None:
        at_once = reached and not self.first_miss
        self.records.append(StepRecord(self.turn, step.tool, at_once, reached, self.searched))
        self.step, self.searched, self.first_miss = self.step + 1, False, False


# -- one run and its numbers --------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarise(requests: Sequence[RecordedRequest], records: Sequence[StepRecord]) -> dict[str, Any]:
    views = [prompt_view(request) for request in requests]
    breaks = cache_breaks(views)
    reasons = Counter(reason for b in breaks for reason in b.reasons)
    return {
        "requests": len(views),
        "follow_ups": max(0, len(views) - 1),
        "cache_breaks": len(breaks),
        "break_reasons": dict(sorted(reasons.items())),
        "breaks": [f"request {b.index}: {b.detail}" for b in breaks],
        "tools_bytes": round(_mean([v.tools_bytes for v in views])),
        "context_tools_bytes": round(_mean([v.context_tools_bytes for v in views])),
        "loaded_tools": [list(v.tool_names) for v in views],
        "steps": len(records),
        "reached": sum(r.reached for r in records),
        "at_once": sum(r.callable_at_once for r in records),
        "searches": sum(r.searched for r in records),
        "missed": [f"turn {r.turn}: {r.tool}" for r in records if not r.reached],
    }


@dataclass(frozen=True)
class Catalog:
    name: str
    source: str
    command: tuple[str, list[str]]
    turns: tuple[Turn, ...]


def livemcp_tools() -> list[dict[str, Any]]:
    """The MCP tool objects of `LIVEMCP_SERVERS`, as LiveMCPBench lists them, without output
    schemas: the local server answers every call with plain text, which an MCP client refuses
    for a tool that declares structured output (providers are not sent output schemas)."""
    servers: list[dict[str, Any]] = json.loads((DATA / "livemcpbench" / "tools.json").read_text("utf-8"))
    tools: dict[str, dict[str, Any]] = {}
    for server in servers:
        for key, entry in server["tools"].items():
            if key in LIVEMCP_SERVERS:
                for tool in entry["tools"]:
                    tools.setdefault(tool["name"], {k: v for k, v in tool.items() if k != "outputSchema"})
    return list(tools.values())


def catalogs(folder: Path, names: Sequence[str]) -> list[Catalog]:
    out: list[Catalog] = []
    if "fixture" in names:
        command = (sys.executable, ["-m", "schemarouter_conformance.fixture_server"])
        out.append(Catalog("fixture", "fixture", command, FIXTURE_TURNS))
    if "livemcp" in names:
        tools_file = folder / "livemcp_tools.json"
        tools_file.write_text(json.dumps(livemcp_tools()), encoding="utf-8")
        server = str(Path(__file__).resolve().parent / "_listed_tools_server.py")
        out.append(Catalog("livemcp", "livemcp", (sys.executable, [server, str(tools_file)]), LIVEMCP_TURNS))
    return out


async def run_one(
    fake: FakeProviderServer,
    catalog: Catalog,
    router: SchemaRouter,
    framework: str,
    api: str,
    mode: str,
    k: int | None = None,
) -> dict[str, Any]:
    stand_in = StandIn(catalog.turns)
    fake.clear()
    fake.use(stand_in)
    setup = Setup(
        source=catalog.source,
        command=catalog.command,
        router=router,
        api=api,  # pyright: ignore[reportArgumentType]
        mode=mode,
        openai_url=fake.openai_base_url,
        anthropic_url=fake.anthropic_base_url,
        requests=[turn.request for turn in catalog.turns],
        on_turn=stand_in.start_turn,
        k=k,
    )
    error = None
    try:
        await DRIVERS[framework](setup)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc(file=sys.stderr)
    summary = summarise(fake.requests, stand_in.records)
    summary["error"] = error or (fake.errors[0] if fake.errors else None)
    summary["needed_steps"] = sum(len(turn.steps) for turn in catalog.turns)
    return summary


def runs(frameworks: Sequence[str], modes: Sequence[str]) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for framework in frameworks:
        for api in APIS[framework]:
            for mode in modes:
                if mode not in NATIVE or api in NATIVE[mode].get(framework, ()):
                    out.append((framework, api, mode))
    return out


async def run(
    catalog_names: Sequence[str], frameworks: Sequence[str], modes: Sequence[str], k: int | None = None
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "versions": {name: version(name) for name in PACKAGES},
        "k": k,
        "catalogs": {},
    }
    with tempfile.TemporaryDirectory() as folder, FakeProviderServer() as fake:
        for catalog in catalogs(Path(folder), catalog_names):
            router = await SchemaRouter.from_stdio(*catalog.command, name=catalog.source)
            results: dict[str, Any] = {}
            for framework, api, mode in runs(frameworks, modes):
                results[f"{framework}/{api}/{mode}"] = await run_one(
                    fake, catalog, router, framework, api, mode, k
                )
            for key, summary in results.items():
                framework, api, _ = key.split("/")
                reference = results.get(f"{framework}/{api}/all")
                base = reference["tools_bytes"] if reference else 0
                summary["tools_share"] = round(summary["tools_bytes"] / base, 3) if base else None
                summary["context_share"] = round(summary["context_tools_bytes"] / base, 3) if base else None
            report["catalogs"][catalog.name] = {
                "tools": len(router.catalog),
                "catalog_bytes": router.catalog.total_schema_bytes(),
                "turns": len(catalog.turns),
                "runs": results,
            }
    return report


def print_report(report: dict[str, Any]) -> None:
    k = "its default" if report["k"] is None else report["k"]
    print("Prompt cache: scripted 5-turn conversations, real SDK clients against a local fake provider")
    print(f"routing: Visibility(router), k={k}")
    print(
        "columns: model requests; follow-up requests that break the cache (reasons); tool-definition "
        "bytes per request as sent and in context, and as a share of the same API's no-routing request; "
        "needed tools callable at once / after a search / needed; searches"
    )
    for name, info in report["catalogs"].items():
        print(
            f"\n{name}: {info['tools']} tools, catalog {info['catalog_bytes']:,} bytes, {info['turns']} turns"
        )
        print(
            f"  {'framework/api/mode':<36} {'reqs':>4} {'breaks':>7} {'reasons':<22} {'sent B':>7} {'share':>6} "
            f"{'context B':>9} {'share':>6} {'reached':>11} {'searches':>8}"
        )
        for key, s in info["runs"].items():
            reasons = ",".join(f"{r}:{n}" for r, n in s["break_reasons"].items()) or "-"
            share = "-" if s["tools_share"] is None else f"{s['tools_share']:.2f}"
            cshare = "-" if s["context_share"] is None else f"{s['context_share']:.2f}"
            reached = f"{s['at_once']}/{s['reached']}/{s['needed_steps']}"
            print(
                f"  {key:<36} {s['requests']:>4} {str(s['cache_breaks']) + '/' + str(s['follow_ups']):>7} "
                f"{reasons:<22} {s['tools_bytes']:>7,} {share:>6} {s['context_tools_bytes']:>9,} {cshare:>6} "
                f"{reached:>11} {s['searches']:>8}"
            )
            if s["error"]:
                print(f"    error: {s['error'][:200]}")
    print("\nversions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--catalogs", nargs="+", choices=("fixture", "livemcp"), default=["fixture", "livemcp"]
    )
    parser.add_argument("--frameworks", nargs="+", choices=tuple(DRIVERS), default=list(DRIVERS))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--k", type=int, default=None, help="Visibility's k (default: its own default)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    report = asyncio.run(run(args.catalogs, args.frameworks, args.modes, args.k))
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
