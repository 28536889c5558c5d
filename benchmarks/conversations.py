"""Conversations: what a model is offered turn after turn, routed per turn or by a `RoutingSession`.

    python benchmarks/conversations.py [--split heldout|dev] [--modes lexical hybrid] [--json] [--limit N]

Multi-step conversations are built from the development data, then replayed over the default
router of each mode: `SchemaRouter(catalog)` (lexical) or
`SchemaRouter(catalog).with_semantic(encoder)` (hybrid, WordLlama, loaded once), behind
`Visibility(router)` (k = `DEFAULT_K`, default rules and gate). Nothing is tuned here.

Conversations (only those of the chosen half, by `in_split` of the task or request text):

- `livemcpbench`: LiveMCPBench tasks (526 tools, 69 servers). One step per tool the annotator
  used, in the annotated order (`Annotator Metadata` -> `Tools`, as `_datasets.livemcpbench`
  reads it: tools missing from the catalog left out, a repeated tool once). The request of
  every step is the task's question: the user asked once and the agent takes several model
  steps, so to a session all steps are one turn (the same request is not routed again).
- `livemcpbench_steps`: the LiveMCPBench tasks whose numbered `Steps` are as many as their
  numbered `Tools` (two or more, every tool in the catalog). Step i is paired with tool i, and
  its request is the annotator's description of step i ("Convert all place names to
  geographic coordinates"), as if the user asked for each step in a message of its own. Those
  descriptions were written beside the tool, so they share more words with it than a user's
  message would.
- `metatool_multi`: MetaTool multi-tool requests (199 tools; each needs two). Two steps, one
  per gold tool (in the file's order), both with the whole request as their text: the
  requests do not split cleanly into one clause per tool (many are one sentence; the order of
  the gold tools does not follow the order of the clauses), and pairing a clause with a tool
  would read the label.
- `metatool_chains`: consecutive MetaTool single-tool requests, each step a different request
  with a different gold tool. Requests are taken in the order of a hash of their text and
  cut into conversations of 3, 4 or 5 (the size from the hash of the first request); a
  request whose gold tool is already in the conversation is left out. The first
  `CHAINS` conversations are replayed. These are the ones that grow a session's list.

Each conversation is replayed five ways:

- `per_turn`: today's routing without a session, `Visibility.allow_set(request)` at each step.
- `session`: a `RoutingSession` with `SessionLimits(find_tools=False)` (otherwise the defaults).
- `find_<proxy>`: a `RoutingSession` with the default `SessionLimits()`, find-tools offered.
  When a step's needed tool is not in the list offered, the model is taken to call find-tools
  once (`session.find_tools(query)`), and the step's next model call gets the list again
  (`session.offer(request)`: the same turn, so it holds what find-tools added).

No language model runs here, so the find-tools query is a stand-in for what a model would
write; it is made from the request alone, never from the needed tool:

- `request`: the step's request text as it is. find-tools searches with the same provider as
  routing, so this finds what routing found: it only shows that repeating the request gains
  nothing.
- `specific`: the request's `PROXY_WORDS` most specific words (the core's everyday-English
  `specificity`; ties by position; digits left out), in request order: a short query, as the
  tool's description asks for.
- `uncovered`: the same, from the request words that no tool already offered mentions (stems
  of its name, title and description): a model that sees its tools and asks for the rest.
  When every word is covered, `specific`.

A real model would phrase its query from what it is missing, which may be better or worse
than these; the reachability after find-tools measures these stand-ins, not a model.

Reported per mode, dataset and way (means over model calls or steps, and over conversations):

- schema bytes offered per model call (`offered_bytes` of each tool; find-tools' own
  definition counted whenever offered), absolute and as a share of the catalog's
  `total_schema_bytes()`. A step is one model call, or two when it calls find-tools.
- prefix kept: the share of consecutive model calls whose tool list starts with the previous
  call's list exactly, for the tools routed (`routes`), and for the list as offered, with
  find-tools first (`as_offered`, `SessionOffer.tool_names`); list resets.
- reachable: the share of steps whose needed tool is in the list offered (`in_list`), and in
  it or in it after one find-tools call (`reachable`).

And per mode and dataset, each step as a request on its own (`_offers`, under `offers`): its
needed tool in the top k of the ranking, in the default allow-set (the gap between the two is
what the gate costs), bytes offered, and reached after one find-tools call in a fresh session
with each stand-in query.

Targets (catalogs of 100+ tools, both are): bytes per call <= 5 % of the catalog, prefix kept on
>= 90 % of consecutive calls, needed tool reachable on >= 95 % of steps. `--json` prints one
JSON object with sorted keys and no timings. `--limit N` caps each dataset's conversations.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import (
    DATA,
    Split,
    in_split,
    livemcpbench,
    metatool_catalog,
    metatool_multi_tool,
    run_report_cli,
)
from _datasets import metatool_single_tool as metatool_single
from _offers import (
    DEEP,
    PROXIES,
    PROXY_WORDS,
    OfferTally,
    Proxies,
    format_offers,
    offer_columns,
    ranked_names,
)
from hybrid import versions

from schemarouter import (
    DEFAULT_K,
    Catalog,
    RoutingSession,
    SchemaRouter,
    SessionLimits,
    TextEncoder,
    Visibility,
)
from schemarouter.catalog import offered_bytes
from schemarouter.retrieval import WordLlamaEncoder
from schemarouter.visibility import FIND_TOOLS, SessionOffer

MODES = ("lexical", "hybrid")
DATASETS = ("livemcpbench", "livemcpbench_steps", "metatool_multi", "metatool_chains")
WAYS = ("per_turn", "session", *(f"find_{proxy}" for proxy in PROXIES))
CHAIN_SIZES = (3, 4, 5)
CHAINS = 400
"""MetaTool chains replayed (the first, in hash order), to keep a run to a few minutes."""
TARGETS = {"bytes_share": 0.05, "prefix_kept": 0.90, "reachable": 0.95}
FIND_TOOLS_BYTES = offered_bytes(FIND_TOOLS.name, FIND_TOOLS.description, FIND_TOOLS.input_schema)

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.*?)\s*$")


@dataclass(frozen=True, slots=True)
class Step:
    request: str
    needed: str
    """Name of the tool this step calls."""


@dataclass(frozen=True, slots=True)
class Conversation:
    key: str
    steps: tuple[Step, ...]


# -- conversations ------------------------------------------------------------------------------


def _numbered(text: str) -> list[str]:
    """The items of a numbered list ("1. ...\\n2. ..."), in order; unnumbered lines are dropped."""
    out: list[str] = []
    for line in text.splitlines():
        match = _NUMBERED.match(line)
        if match:
            out.append(match.group(2))
    return out


def livemcpbench_conversations(split: Split) -> tuple[Catalog, list[Conversation], list[Conversation]]:
    """The task-text conversations and the step-description conversations (module docstring)."""
    catalog, tasks = livemcpbench(split)
    whole = [
        Conversation(f"task-{i}", tuple(Step(task.query, tool) for tool in task.gold))
        for i, task in enumerate(tasks)
    ]
    names = {cap.name for cap in catalog}
    raw: list[dict[str, Any]] = json.loads(
        (DATA / "livemcpbench" / "all_annotations.json").read_text("utf-8")
    )
    stepwise: list[Conversation] = []
    for task in raw:
        question = str(task["Question"]).strip()
        if not in_split(question, split):
            continue
        meta = task["Annotator Metadata"]
        steps, tools = _numbered(str(meta["Steps"])), [t.strip() for t in _numbered(str(meta["Tools"]))]
        if len(steps) < 2 or len(steps) != len(tools) or not all(t in names for t in tools):
            continue
        pairs = tuple(Step(text, tool) for text, tool in zip(steps, tools, strict=True))
        stepwise.append(Conversation(str(task["task_id"]), pairs))
    return catalog, whole, stepwise


def metatool_multi_conversations(split: Split) -> list[Conversation]:
    return [
        Conversation(f"multi-{i}", tuple(Step(item.query, tool) for tool in item.gold))
        for i, item in enumerate(metatool_multi_tool())
        if in_split(item.query, split)
    ]


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def metatool_chain_conversations(split: Split, count: int = CHAINS) -> list[Conversation]:
    """Consecutive single-tool requests in hash order, 3 to 5 to a conversation, each with a
    gold tool of its own (see the module docstring)."""
    ordered = sorted(metatool_single(split), key=lambda item: _digest(item.query))
    out: list[Conversation] = []
    group: list[Step] = []
    size = 0
    for item in ordered:
        if len(out) >= count:
            break
        tool = item.gold[0]
        if not group:
            size = CHAIN_SIZES[_digest(item.query)[1] % len(CHAIN_SIZES)]
        elif any(step.needed == tool for step in group):
            continue
        group.append(Step(item.query, tool))
        if len(group) == size:
            out.append(Conversation(f"chain-{len(out)}", tuple(group)))
            group = []
    return out


# -- replay -------------------------------------------------------------------------------------


@dataclass
class Replayed:
    """One conversation replayed one way."""

    call_bytes: list[int] = field(default_factory=list[int])
    lists: list[tuple[str, ...]] = field(default_factory=list[tuple[str, ...]])
    """Routes offered at each model call."""
    offered: list[tuple[str, ...]] = field(default_factory=list[tuple[str, ...]])
    """The same lists as offered: find-tools first, when it is offered (`SessionOffer.tool_names`)."""
    in_list: list[bool] = field(default_factory=list[bool])
    reached: list[bool] = field(default_factory=list[bool])
    outcomes: list[str] = field(default_factory=list[str])
    resets: int = 0
    find_resets: int = 0
    """Resets a find-tools call caused: the list started over from what it found."""
    find_calls: int = 0
    find_refused: int = 0
    find_added: int = 0


def _names(catalog: Catalog, routes: Sequence[str]) -> set[str]:
    return {catalog[route].name for route in routes}


def replay_per_turn(conversation: Conversation, vis: Visibility, catalog: Catalog) -> Replayed:
    out = Replayed()
    for step in conversation.steps:
        allow = vis.allow_set(step.request)
        out.lists.append(allow.routes)
        out.offered.append(allow.routes)
        out.call_bytes.append(sum(catalog[route].schema_bytes for route in allow.routes))
        hit = step.needed in allow.names
        out.in_list.append(hit)
        out.reached.append(hit)
        out.outcomes.append(allow.outcome)
    return out


def replay_session(
    conversation: Conversation,
    vis: Visibility,
    catalog: Catalog,
    proxy: str | None,
    proxies: Proxies,
) -> Replayed:
    """`proxy` None: no find-tools; else find-tools with that stand-in query."""
    limits = SessionLimits() if proxy is not None else SessionLimits(find_tools=False)
    session = RoutingSession(vis, conversation_id=conversation.key, limits=limits)
    out = Replayed()

    def call(request: str) -> SessionOffer:
        offer = session.offer(request)
        extra = (FIND_TOOLS.name,) if offer.find_tools else ()
        out.lists.append(offer.routes)
        out.offered.append((*extra, *offer.routes))  # as the model receives them: find-tools first
        out.call_bytes.append(offer.schema_bytes + (FIND_TOOLS_BYTES if offer.find_tools else 0))
        return offer

    for step in conversation.steps:
        offer = call(step.request)
        out.outcomes.append(offer.outcome)
        hit = step.needed in _names(catalog, offer.routes)
        out.in_list.append(hit)
        if not hit and proxy is not None:
            before = session.state.resets
            found = session.find_tools(proxies.query(proxy, step.request, offer.routes))
            out.find_resets += session.state.resets - before
            out.find_calls += 1
            out.find_refused += found.refused is not None
            out.find_added += len(found.added)
            hit = step.needed in _names(catalog, call(step.request).routes)
        out.reached.append(hit)
    out.resets = session.state.resets
    return out


# -- summary ------------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _kept(lists: Sequence[tuple[str, ...]]) -> list[bool]:
    return [after[: len(before)] == before for before, after in pairwise(lists)]


def summarise(replays: Sequence[Replayed], catalog_bytes: int) -> dict[str, Any]:
    """Means over model calls / steps / consecutive pairs pooled, and over conversations."""
    calls = [b for r in replays for b in r.call_bytes]
    kept = [_kept(r.lists) for r in replays]
    kept_offered = [_kept(r.offered) for r in replays]
    with_pairs = [i for i, pairs in enumerate(kept) if pairs]
    outcomes = Counter(o for r in replays for o in r.outcomes)

    def pooled(lists: Sequence[Sequence[bool]]) -> float:
        return _mean([float(x) for values in lists for x in values])

    def by_conversation(lists: Sequence[Sequence[bool]]) -> float:
        return _mean([_mean([float(x) for x in values]) for values in lists if values])

    conversation_bytes = [_mean(r.call_bytes) for r in replays]
    return {
        "conversations": len(replays),
        "steps": sum(len(r.in_list) for r in replays),
        "model_calls": len(calls),
        "bytes_per_call": round(_mean(calls), 1),
        "bytes_per_call_by_conversation": round(_mean(conversation_bytes), 1),
        "bytes_per_call_max": max(calls, default=0),
        "bytes_share": round(_mean(calls) / catalog_bytes, 4),
        "bytes_share_by_conversation": round(_mean(conversation_bytes) / catalog_bytes, 4),
        "consecutive_calls": sum(len(pairs) for pairs in kept),
        "prefix_kept": round(pooled(kept), 4),
        "prefix_kept_by_conversation": round(by_conversation([kept[i] for i in with_pairs]), 4),
        "prefix_kept_as_offered": round(pooled(kept_offered), 4),
        "prefix_kept_as_offered_by_conversation": round(
            by_conversation([kept_offered[i] for i in with_pairs]), 4
        ),
        "resets": sum(r.resets for r in replays),
        "conversations_with_a_reset": sum(r.resets > 0 for r in replays),
        "resets_by_find_tools": sum(r.find_resets for r in replays),
        "in_list": round(pooled([r.in_list for r in replays]), 4),
        "in_list_by_conversation": round(by_conversation([r.in_list for r in replays]), 4),
        "reachable": round(pooled([r.reached for r in replays]), 4),
        "reachable_by_conversation": round(by_conversation([r.reached for r in replays]), 4),
        "find_calls": sum(r.find_calls for r in replays),
        "find_refused": sum(r.find_refused for r in replays),
        "find_added": sum(r.find_added for r in replays),
        "outcomes": dict(sorted(outcomes.items())),
    }


def targets(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    reached = {
        "bytes_share": summary["bytes_share"],
        "prefix_kept": summary["prefix_kept"],
        "reachable": summary["reachable"],
    }
    return {
        name: {
            "reached": value,
            "target": TARGETS[name],
            "met": value <= TARGETS[name] if name == "bytes_share" else value >= TARGETS[name],
        }
        for name, value in reached.items()
    }


# -- run ----------------------------------------------------------------------------------------


def datasets(split: Split, limit: int | None) -> dict[str, tuple[Catalog, list[Conversation]]]:
    live, whole, stepwise = livemcpbench_conversations(split)
    meta = metatool_catalog()
    out = {
        "livemcpbench": (live, whole),
        "livemcpbench_steps": (live, stepwise),
        "metatool_multi": (meta, metatool_multi_conversations(split)),
        "metatool_chains": (meta, metatool_chain_conversations(split)),
    }
    if limit is not None:
        out = {name: (catalog, items[:limit]) for name, (catalog, items) in out.items()}
    return out


def step_offers(conversations: Sequence[Conversation], vis: Visibility) -> dict[str, Any]:
    """Each step as a request on its own (`_offers`): its needed tool in the ranking's top k, in
    the default allow-set, and after one find-tools call in a fresh session."""
    tally = OfferTally()
    for conversation in conversations:
        for step in conversation.steps:
            ranked = ranked_names(vis.router, step.request, tally.k)
            tally.add(vis, step.request, (step.needed,), ranked, ranked_names(vis.router, step.request, DEEP))
    return tally.summary()


def run(split: Split, modes: Sequence[str], limit: int | None) -> dict[str, Any]:
    data = datasets(split, limit)
    encoder: TextEncoder | None = WordLlamaEncoder().load() if "hybrid" in modes else None
    report: dict[str, Any] = {
        "split": split,
        "versions": versions(),
        "k": DEFAULT_K,
        "limits": {
            name: getattr(SessionLimits(), name)
            for name in ("max_tools", "max_schema_bytes", "on_full", "find_results", "find_calls_per_turn")
        },
        "find_tools_bytes": FIND_TOOLS_BYTES,
        "proxy_words": PROXY_WORDS,
        "targets": TARGETS,
        "datasets": {
            name: {
                "tools": len(catalog),
                "catalog_bytes": catalog.total_schema_bytes(),
                "conversations": len(items),
                "steps": sum(len(c.steps) for c in items),
            }
            for name, (catalog, items) in data.items()
        },
        "modes": {},
        "offers": {},
        "seconds": {},
    }
    for mode in modes:
        started = time.perf_counter()
        routers: dict[str, Visibility] = {}
        results: dict[str, Any] = {}
        offers: dict[str, Any] = {}
        for name, (catalog, items) in data.items():
            vis = routers.get(catalog.version)
            if vis is None:
                router = SchemaRouter(catalog)
                if mode == "hybrid":
                    assert encoder is not None
                    router = router.with_semantic(encoder)
                vis = routers[catalog.version] = Visibility(router)
            proxies = Proxies(catalog)
            ways: dict[str, Callable[[Conversation], Replayed]] = {
                "per_turn": lambda c, vis=vis, catalog=catalog: replay_per_turn(c, vis, catalog),
                "session": lambda c, vis=vis, catalog=catalog, p=proxies: replay_session(
                    c, vis, catalog, None, p
                ),
            }
            for proxy in PROXIES:
                ways[f"find_{proxy}"] = lambda c, vis=vis, catalog=catalog, p=proxies, q=proxy: (
                    replay_session(c, vis, catalog, q, p)
                )
            summaries = {
                way: summarise([go(c) for c in items], catalog.total_schema_bytes())
                for way, go in ways.items()
            }
            for summary in summaries.values():
                summary["targets"] = targets(summary)
            results[name] = summaries
            offers[name] = step_offers(items, vis)
        report["offers"][mode] = offers
        report["modes"][mode] = results
        report["seconds"][mode] = round(time.perf_counter() - started, 1)
    return report


# -- printing -----------------------------------------------------------------------------------


def print_report(report: dict[str, Any]) -> None:
    print(f"Conversations, {report['split']} half; k={report['k']}, session limits {report['limits']}")
    print(
        f"find-tools definition: {report['find_tools_bytes']} bytes; proxy queries of {report['proxy_words']} words"
    )
    print(
        "columns: bytes per model call, as a share of the catalog; prefix kept (routes / as offered, "
        "find-tools first); resets (all / by find-tools); needed tool in the list / reachable; "
        "find-tools calls, refused, tools added"
    )
    for mode, results in report["modes"].items():
        for name, summaries in results.items():
            info = report["datasets"][name]
            print(
                f"\n{mode} / {name}: {info['conversations']} conversations, {info['steps']} steps, "
                f"{info['tools']} tools, catalog {info['catalog_bytes']:,} bytes"
            )
            print(
                f"  {'way':<16} {'bytes/call':>10} {'share':>7} {'prefix':>7} {'offered':>7} "
                f"{'resets':>7} {'in list':>7} {'reach':>7} {'finds':>6} {'refused':>7} {'added':>6}"
            )
            for way, s in summaries.items():
                print(
                    f"  {way:<16} {s['bytes_per_call']:>10,.0f} {s['bytes_share']:>7.3f} {s['prefix_kept']:>7.3f} "
                    f"{s['prefix_kept_as_offered']:>7.3f} {str(s['resets']) + '/' + str(s['resets_by_find_tools']):>7} "
                    f"{s['in_list']:>7.3f} "
                    f"{s['reachable']:>7.3f} {s['find_calls']:>6} {s['find_refused']:>7} {s['find_added']:>6}"
                )
            print(
                "  by conversation: "
                + "; ".join(
                    f"{way} share {s['bytes_share_by_conversation']:.3f} prefix "
                    f"{s['prefix_kept_by_conversation']:.3f} reach {s['reachable_by_conversation']:.3f}"
                    for way, s in summaries.items()
                )
            )
            print(
                "  targets (reached / target): "
                + "; ".join(
                    f"{way}: "
                    + ", ".join(
                        f"{t} {v['reached']:.3f}/{v['target']:.2f} {'met' if v['met'] else 'NOT met'}"
                        for t, v in s["targets"].items()
                    )
                    for way, s in summaries.items()
                )
            )
    print()
    print(f"Each step as a request on its own (k={report['k']}): {offer_columns()}")
    for mode, offers in report["offers"].items():
        for name, summary in offers.items():
            print(f"  {mode:<8} {name:<20} {format_offers(summary)}")
    print()
    print("versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()))
    for mode, seconds in report["seconds"].items():
        print(f"{mode}: ran in {seconds:.1f} s")


def main(argv: Sequence[str] | None = None) -> int:
    return run_report_cli(argv, __doc__, MODES, run, print_report, "cap each dataset's conversations")


if __name__ == "__main__":
    raise SystemExit(main())
