"""Routing quality on real development datasets (see data/SOURCES.md).

    python benchmarks/quality.py [--split heldout|dev|all] [--json]

Prints, for the default lexical router:
- MetaTool single-tool routing over its 199 tools: recall@1/3/5 and MRR of the ranking,
  and how often the gold tool is inside the k=5 allow-set the gate lets through;
- MetaTool Task1 abstention (need-a-tool vs need-no-tool): AUROC of the routing score,
  the share of need-no-tool queries refused at <= 5% over-rejection of need-a-tool ones
  (threshold chosen on the dev half, measured on the held-out half), and the same for the
  no-route gate alone, with no threshold;
- LiveMCPBench: recall of each task's gold tool set in the top 5 / 10 over 526 real MCP tools;
- one large server (`_datasets.single_server`: LiveMCPBench's tools merged into one source
  with namespaced names): recall@1 / @5 / @10 and MRR of its annotated step descriptions (one
  tool each) and of its task questions (tool sets), and the gold tools inside the allow-set;
- MetaTool multi-tool queries (two gold tools each, same 199 tools): share with both gold tools
  in the top 5, with at least one, mean per-query recall@5 / @10, and the share with both gold
  tools inside the gated k=5 allow-set;
- misspelt requests: the same MetaTool, LiveMCPBench and Task1 queries with one synthetic typo
  each (`_datasets.with_typo`), routed with and without typo correction;
- what the model is offered (`_offers`), per dataset: the share of requests whose needed tools
  are all in the ranking's top k, all in the default allow-set (`Visibility(router)`), the gap
  between the two (what the gate costs), bytes offered, and the share reached after one
  find-tools call in a `RoutingSession`, for each find-tools query stand-in.

Parameters were tuned on the dev half only; the default reports the held-out half. The
multi-tool set was never used for tuning, so it is always reported in full (all 497 queries,
whatever `--split` says).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import (
    LabelledQuery,
    MultiToolTally,
    Split,
    livemcpbench,
    metatool_catalog,
    metatool_multi_tool,
    metatool_single_tool,
    metatool_task1,
    single_server,
    with_typo,
)
from _offers import DEEP, OfferTally, format_offers, offer_columns

from schemarouter import DEFAULT_K, Retrieval, SchemaRouter, Visibility
from schemarouter.retrieval._gate import GateSettings
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import gate

RANKING_ONLY = GateSettings(identifier_floor=0.0, evidence_floor=0.0)
"""The gate opened fully: every matched tool is a candidate, in ranking order."""


def _ranked(index: LexicalIndex, query: str, k: int) -> Retrieval:
    return gate(index, query, k, settings=RANKING_ONLY)


def ranking_metrics(
    index: LexicalIndex,
    queries: Sequence[LabelledQuery],
    ks: Sequence[int],
    label: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """Mean recall@k of the ranking (the share of a request's gold tools in its top k; at k = 1,
    whether the first tool is a gold one, so that a request with several gold tools can reach 1)
    and MRR of the first gold tool. `label` maps the catalog's names to the names gold tools
    use (`_datasets.SingleServer`)."""
    depth = max(ks)
    hits = {k: 0.0 for k in ks}
    reciprocal = 0.0
    for item in queries:
        names = _ranked(index, item.query, depth).names
        if label is not None:
            names = tuple(label[name] for name in names)
        gold = set(item.gold)
        for k in ks:
            hits[k] += len(gold & set(names[:k])) / (1 if k == 1 else len(gold))
        first = next((i for i, name in enumerate(names) if name in gold), None)
        reciprocal += 0.0 if first is None else 1.0 / (first + 1)
    n = max(len(queries), 1)
    out = {f"recall@{k}": hits[k] / n for k in ks}
    out["mrr"] = reciprocal / n
    return out


def routed_recall(router: SchemaRouter, queries: Sequence[LabelledQuery], k: int) -> float:
    total = 0.0
    for item in queries:
        names = {c.name for c in router.retrieve(item.query, k).offered}  # routed, or uncertain
        total += len(names & set(item.gold)) / len(item.gold)
    return total / max(len(queries), 1)


def multi_tool_metrics(router: SchemaRouter, queries: Sequence[LabelledQuery]) -> dict[str, float]:
    """Multi-tool queries: all / any gold tools in the top 5, mean recall@5 / @10 and MRR of the
    ranking, and the gold tools inside the gated k=5 allow-set (all of them, and the mean share).

    One ranking (depth 10) and one gated retrieval per query.
    """
    index = router.index
    tally = MultiToolTally()
    all_routed = 0
    reciprocal = routed_share = 0.0
    for item in queries:
        gold = set(item.gold)
        names = _ranked(index, item.query, 10).names
        tally.add(gold, set(names[:5]), set(names))
        first = next((i for i, name in enumerate(names) if name in gold), None)
        reciprocal += 0.0 if first is None else 1.0 / (first + 1)
        routed = {c.name for c in router.retrieve(item.query, 5, explain=False).offered}
        all_routed += gold <= routed
        routed_share += len(gold & routed) / len(gold)
    n = max(len(queries), 1)
    return {
        **tally.summary(),
        "mrr": reciprocal / n,
        "routed_all_gold@5": all_routed / n,
        "routed_recall@5": routed_share / n,
    }


def offer_metrics(
    router: SchemaRouter, queries: Sequence[LabelledQuery], label: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """What the default allow-set offers and what one find-tools call reaches (see `_offers`)."""
    tally = OfferTally(label=label)
    visibility = Visibility(router)
    for item in queries:
        ranked = _ranked(router.index, item.query, DEFAULT_K).names
        tally.add(visibility, item.query, item.gold, ranked, _ranked(router.index, item.query, DEEP).names)
    return tally.summary()


def confidence(index: LexicalIndex, query: str) -> float:
    """The routing score of the best candidate (0 when nothing matched)."""
    return max((c.score for c in _ranked(index, query, 5).candidates), default=0.0)


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    pairs = sorted([(v, 1) for v in positives] + [(v, 0) for v in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        rank_sum += (i + j + 1) / 2 * sum(label for _, label in pairs[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def threshold_for(positives: Sequence[float], over_rejection: float) -> float:
    ordered = sorted(positives)
    return ordered[math.floor(over_rejection * len(ordered))]


def abstention(router: SchemaRouter, split: Split) -> dict[str, float]:
    index = router.index
    tune = metatool_task1("dev")
    test = metatool_task1("dev" if split == "dev" else split)
    tune_pos = [confidence(index, q.query) for q in tune if q.gold]
    threshold = threshold_for(tune_pos, 0.05)
    pos = [confidence(index, q.query) for q in test if q.gold]
    neg = [confidence(index, q.query) for q in test if not q.gold]
    gate_pos = [router.retrieve(q.query, 5).no_route for q in test if q.gold]
    gate_neg = [router.retrieve(q.query, 5).no_route for q in test if not q.gold]
    own = threshold_for(pos, 0.05)
    return {
        "queries": len(test),
        "auroc": auroc(pos, neg),
        "rejection_of_no_tool_at_5pct_on_this_half": sum(v < own for v in neg) / len(neg),
        "threshold": threshold,
        "over_rejection": sum(v < threshold for v in pos) / len(pos),
        "rejection_of_no_tool": sum(v < threshold for v in neg) / len(neg),
        "gate_over_rejection": sum(gate_pos) / len(gate_pos),
        "gate_rejection_of_no_tool": sum(gate_neg) / len(gate_neg),
    }


def typo_metrics(
    meta: SchemaRouter,
    live: SchemaRouter,
    single: Sequence[LabelledQuery],
    live_queries: Sequence[LabelledQuery],
    split: Split,
) -> dict[str, dict[str, float]]:
    """Recall@5 (MetaTool, LiveMCPBench) and the gate's Task1 decisions for clean requests, for
    requests with one typo each routed without typo correction, and with it (the default)."""
    task1 = metatool_task1("dev" if split == "dev" else split)
    uncorrected = IndexSettings(typo_quality=0.0)
    out: dict[str, dict[str, float]] = {}
    for label, change, settings in (
        ("clean", False, None),
        ("typo_uncorrected", True, uncorrected),
        ("typo_corrected", True, None),
    ):

        def queries(items: Sequence[LabelledQuery], change: bool = change) -> list[LabelledQuery]:
            return [LabelledQuery(with_typo(q.query), q.gold) if change else q for q in items]

        meta_index = LexicalIndex(meta.catalog, settings)
        live_index = LexicalIndex(live.catalog, settings)
        pos = [gate(meta_index, q.query, 5).no_route for q in queries(task1) if q.gold]
        neg = [gate(meta_index, q.query, 5).no_route for q in queries(task1) if not q.gold]
        out[label] = {
            "metatool_recall@5": ranking_metrics(meta_index, queries(single), (5,))["recall@5"],
            "livemcpbench_recall@5": ranking_metrics(live_index, queries(live_queries), (5,))["recall@5"],
            "task1_gate_over_rejection": sum(pos) / len(pos),
            "task1_gate_rejection_of_no_tool": sum(neg) / len(neg),
        }
    return out


def run(split: Split) -> dict[str, Any]:
    started = time.perf_counter()
    meta_router = SchemaRouter(metatool_catalog())
    single = metatool_single_tool(split)
    single_metrics = ranking_metrics(meta_router.index, single, (1, 3, 5))
    single_metrics["routed_recall@5"] = routed_recall(meta_router, single, 5)
    live_catalog, live_queries = livemcpbench(split)
    live_router = SchemaRouter(live_catalog)
    live_metrics = ranking_metrics(live_router.index, live_queries, (1, 5, 10))
    live_metrics["routed_recall@5"] = routed_recall(live_router, live_queries, 5)
    multi = metatool_multi_tool()
    server = single_server(split)
    server_router = SchemaRouter(server.catalog)
    one_server = {
        name: {
            "queries": len(queries),
            "tools": len(server.catalog),
            **ranking_metrics(server_router.index, queries, (1, 5, 10), server.label),
            "routed_recall@5": offer_metrics(server_router, queries, server.label)["offered_share"],
        }
        for name, queries in (("steps", server.steps), ("tasks", server.tasks))
    }
    return {
        "split": split,
        "metatool_single_tool": {"queries": len(single), "tools": len(meta_router.catalog), **single_metrics},
        "metatool_task1": abstention(meta_router, split),
        "livemcpbench": {"queries": len(live_queries), "tools": len(live_catalog), **live_metrics},
        "metatool_multi_tool": {
            "split": "all (never tuned on)",
            "queries": len(multi),
            "tools": len(meta_router.catalog),
            **multi_tool_metrics(meta_router, multi),
        },
        "single_server": one_server,
        "misspelt": typo_metrics(meta_router, live_router, single, live_queries, split),
        "offers": {
            "metatool_single_tool": offer_metrics(meta_router, single),
            "livemcpbench": offer_metrics(live_router, live_queries),
            "metatool_multi_tool": offer_metrics(meta_router, multi),
            "single_server_steps": offer_metrics(server_router, server.steps, server.label),
            "single_server_tasks": offer_metrics(server_router, server.tasks, server.label),
        },
        "seconds": time.perf_counter() - started,
        "versions": versions(),
    }


def versions() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "schemarouter-core": version("schemarouter-core"),
        "snowballstemmer": version("snowballstemmer"),
        "pyspellchecker": version("pyspellchecker"),
        "machine": f"{platform.machine()} {platform.system()}",
    }


def print_table(result: dict[str, Any]) -> None:
    single, task1, live = result["metatool_single_tool"], result["metatool_task1"], result["livemcpbench"]
    print(f"SchemaRouter lexical routing quality — {result['split']} half")
    print()
    print(f"MetaTool single-tool routing ({single['queries']} queries, {single['tools']} tools)")
    print(f"  recall@1 {single['recall@1']:.3f}   recall@3 {single['recall@3']:.3f}   ", end="")
    print(f"recall@5 {single['recall@5']:.3f}   MRR {single['mrr']:.3f}")
    print(f"  gold tool inside the gated k=5 allow-set: {single['routed_recall@5']:.3f}")
    print()
    print(f"MetaTool Task1 abstention ({task1['queries']} queries, half need no tool)")
    print(f"  AUROC (need-a-tool vs need-no-tool)          {task1['auroc']:.3f}")
    print(
        f"  need-no-tool refused at 5% over-rejection    {task1['rejection_of_no_tool_at_5pct_on_this_half']:.3f}"
    )
    print(f"  threshold chosen on dev for 5% over-rejection {task1['threshold']:.4f}")
    print(f"    over-rejection of need-a-tool              {task1['over_rejection']:.3f}")
    print(f"    need-no-tool queries refused               {task1['rejection_of_no_tool']:.3f}")
    print("  no-route gate alone (no threshold)")
    print(f"    over-rejection of need-a-tool              {task1['gate_over_rejection']:.3f}")
    print(f"    need-no-tool queries refused               {task1['gate_rejection_of_no_tool']:.3f}")
    print()
    print(f"LiveMCPBench gold-set recall ({live['queries']} tasks, {live['tools']} tools)")
    print(
        f"  recall@1 {live['recall@1']:.3f}   recall@5 {live['recall@5']:.3f}   "
        f"recall@10 {live['recall@10']:.3f}   MRR {live['mrr']:.3f}"
    )
    print(f"  gold tools inside the gated k=5 allow-set: {live['routed_recall@5']:.3f}")
    print()
    for name, title in (
        ("steps", "step descriptions, one tool each"),
        ("tasks", "task questions, tool sets"),
    ):
        one = result["single_server"][name]
        print(f"One server of {one['tools']} tools (LiveMCPBench merged), {title}: {one['queries']} requests")
        print(
            f"  recall@1 {one['recall@1']:.3f}   recall@5 {one['recall@5']:.3f}   recall@10 {one['recall@10']:.3f}"
            f"   MRR {one['mrr']:.3f}   gold inside the k=5 allow-set {one['routed_recall@5']:.3f}"
        )
    print()
    multi = result["metatool_multi_tool"]
    print(f"MetaTool multi-tool (never tuned on, all {multi['queries']} queries, {multi['tools']} tools)")
    print(f"  both gold tools in top 5 {multi['all_gold@5']:.3f}   at least one {multi['any_gold@5']:.3f}")
    print(
        f"  mean recall@5 {multi['recall@5']:.3f}   recall@10 {multi['recall@10']:.3f}   MRR {multi['mrr']:.3f}"
    )
    print(f"  both gold tools inside the gated k=5 allow-set: {multi['routed_all_gold@5']:.3f}", end="")
    print(f"   (mean share {multi['routed_recall@5']:.3f})")
    print()
    typo = result["misspelt"]
    print("Misspelt requests: one typo per request (a letter left out, added or replaced, or two")
    print("swapped, anywhere in one word of 5+ letters; the same typo on every run)")
    print("                                        clean   typo, uncorrected   typo, corrected")
    rows = (
        ("MetaTool recall@5", "metatool_recall@5"),
        ("LiveMCPBench recall@5", "livemcpbench_recall@5"),
        ("Task1 gate alone: over-rejection", "task1_gate_over_rejection"),
        ("Task1 gate alone: no-tool refused", "task1_gate_rejection_of_no_tool"),
    )
    for label, key in rows:
        clean, uncorrected, corrected = (
            typo[c][key] for c in ("clean", "typo_uncorrected", "typo_corrected")
        )
        print(f"  {label:<36}  {clean:.3f}   {uncorrected:.3f}               {corrected:.3f}")
    print()
    print(f"What the model is offered (k={DEFAULT_K}, default settings): {offer_columns()}")
    for name, summary in result["offers"].items():
        print(f"  {name:<22} {format_offers(summary)}")
    print()
    print(
        f"ran in {result['seconds']:.1f} s; versions: "
        + ", ".join(f"{k} {v}" for k, v in result["versions"].items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--split", choices=("heldout", "dev", "all"), default="heldout")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    result = run(args.split)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)


if __name__ == "__main__":
    main()
