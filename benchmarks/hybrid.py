"""Lexical vs semantic vs hybrid routing, side by side in one run.

    python benchmarks/hybrid.py [--json] [--limit N] [--repeat N] [--split dev] [--no-latency]

Quality, on the vendored development data (`_datasets.py`; tuned on the `dev` half,
reported on the `heldout` half; `--split dev` reports the `dev` half instead, where the
Task1 threshold is then applied to the half it was chosen on):
- MetaTool single-tool routing: recall@5 of the ranking (is the gold tool among the five
  best-scored tools, whether or not the gate keeps them), and recall@1 (is it the first: the
  tool a plan routes to when none is named).
- MetaTool Task1 abstention: false acceptance (unsupported queries that get a route) at 5%
  over-rejection (supported queries that get none); the threshold is calibrated on `dev`
  and applied to `heldout`, so the reported over-rejection is an honest out-of-sample one.
  Also false acceptance at the same over-rejection for every mode, thresholded on the
  reported half itself: 5%, 10% and 20%, and the over-rejection of the lexical gate alone
  (the lowest the lexical mode can reach); "-" where a mode's gate already refuses more.
  And the default operating point (no calibration).
- One large server (`_datasets.single_server`: LiveMCPBench merged into one source with
  namespaced names): recall@1 and recall@5 of its step descriptions (one tool each) and of
  its task questions (is the first tool a gold one; the share of gold tools in the top five).
- LiveMCPBench: gold-set recall@5 (share of a task's gold tools in the top five, capped at
  five), and recall@1 (is the first tool a gold one), on the `heldout` tasks.
- For MetaTool routing and LiveMCPBench, also the gold tools inside the default allow-set at
  k=5 (the routed tools, the default policy, no threshold: what an adapter shows the model);
  "-" for semantic alone, which has no gate.
- MetaTool multi-tool queries (two gold tools each, never used for tuning, so all 497 are
  reported whatever `--split` says): share with both gold tools in the top five, with at
  least one, and mean per-query recall@5 / @10 of the ranking.
- Two requests in one (`_datasets.two_in_one`): up to 1,000 pairs of the reported half's
  MetaTool single-tool queries with different gold tools, joined as two sentences; share of
  pairs with both gold tools in the top five, and mean recall@5.
- What the model is offered (`_offers`), per dataset, for lexical and hybrid: the share of
  requests whose gold tools are all in the top five of the ranking, all in the default
  allow-set (`Visibility(router)`), the gap between the two, bytes offered, and the share
  reached after one find-tools call in a `RoutingSession` per find-tools query stand-in.

Speed: `Visibility.allow_set` p50 / p95 at 1,000 and 10,000 tools (real tool texts, repeated
with distinct names), tool-vector build time, and model load time in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

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
    two_in_one,
)
from _offers import DEEP, OfferTally, format_offers, offer_columns

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, Visibility
from schemarouter.catalog import Capability
from schemarouter.retrieval._semantic import SemanticIndex, WordLlamaEncoder

MODES = ("lexical", "semantic", "hybrid")
TARGET_OVER_REJECTION = 0.05
OPEN = RetrievalAbstentionPolicy(min_score=0.0)
"""No score threshold: the gate's structural evidence rules only, so calibration sees every score."""


@dataclass(frozen=True, slots=True)
class Ranked:
    """What one mode says about one query: the ranking and the best score the gate lets through."""

    names: tuple[str, ...]
    confidence: float | None
    """None when the gate keeps nothing even with no score threshold."""


class Modes:
    """The three rankers over one catalog."""

    def __init__(
        self, catalog: Catalog, encoder: WordLlamaEncoder, label: Mapping[str, str] | None = None
    ) -> None:
        self.lexical = SchemaRouter(catalog)
        self.hybrid = self.lexical.with_semantic(encoder)
        self.semantic = SemanticIndex(catalog, encoder)
        self.label = label
        """Each tool name -> the name gold tools use (`_datasets.SingleServer.label`), if not its own."""
        self._names = [self._label(catalog[route].name) for route in self.semantic.routes]
        self.visibility = {"lexical": Visibility(self.lexical), "hybrid": Visibility(self.hybrid)}

    def rank(self, mode: str, query: str, depth: int = 5) -> Ranked:
        if mode == "semantic":
            sims = self.semantic.similarities(query)
            order = sorted(range(len(self._names)), key=lambda i: (-float(sims[i]), self._names[i]))
            return Ranked(
                tuple(self._names[i] for i in order[:depth]), float(sims[order[0]]) if order else None
            )
        router = self.hybrid if mode == "hybrid" else self.lexical
        retrieval = router.retrieve(query, depth, abstention=OPEN)
        ranked = sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))
        best = max((c.score for c in retrieval.candidates), default=None)
        return Ranked(tuple(self._label(c.name) for c in ranked[:depth]), best)

    def _label(self, name: str) -> str:
        return name if self.label is None else self.label[name]

    def allowed(self, mode: str, query: str) -> tuple[str, ...]:
        """The tools routed at k=5 with the default policy (what an adapter shows); lexical or
        hybrid (semantic alone has no gate)."""
        router = self.hybrid if mode == "hybrid" else self.lexical
        return tuple(self._label(c.name) for c in router.retrieve(query, 5).offered)  # routed, or uncertain

    def default_routes(self, mode: str, query: str) -> bool:
        return bool(self.allowed(mode, query))


def top_hits(modes: Modes, mode: str, queries: Sequence[LabelledQuery]) -> tuple[list[float], list[float]]:
    """Per query, its recall@5 (the share of its gold tools, at most five, in the top five) and
    whether its first tool is a gold one (what a plan routes to when no route is named)."""
    recall: list[float] = []
    first: list[float] = []
    for item in queries:
        names = modes.rank(mode, item.query).names
        gold = set(item.gold)
        recall.append(len(set(names) & gold) / min(len(gold), 5))
        first.append(float(bool(names) and names[0] in gold))
    return recall, first


def offers(modes: Modes, mode: str, queries: Sequence[LabelledQuery]) -> dict[str, Any] | None:
    """What the default allow-set offers and one find-tools call reaches (`_offers`); None for
    semantic alone, which has no allow-set."""
    if mode == "semantic":
        return None
    tally = OfferTally(label=modes.label)
    for item in queries:
        ranked, deep = modes.rank(mode, item.query).names, modes.rank(mode, item.query, DEEP).names
        tally.add(modes.visibility[mode], item.query, item.gold, ranked, deep)
    return tally.summary()


def paired_interval(a: Sequence[float], b: Sequence[float], resamples: int = 2000) -> tuple[float, float]:
    """95% interval of mean(a - b) by a paired bootstrap over the queries (fixed seed)."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    rng = np.random.default_rng(20240611)
    means = np.concatenate(
        [diff[rng.integers(0, diff.size, (100, diff.size))].mean(axis=1) for _ in range(resamples // 100)]
    )
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def gated_recall(modes: Modes, mode: str, queries: Sequence[LabelledQuery]) -> float | None:
    """Share of gold tools (at most five per query) inside the default allow-set of k=5; None
    for semantic alone, which has no gate."""
    if mode == "semantic":
        return None
    total = 0.0
    for item in queries:
        total += len(set(modes.allowed(mode, item.query)) & set(item.gold)) / min(len(item.gold), 5)
    return total / max(len(queries), 1)


def multi_tool_recall(
    modes: Modes, mode: str, queries: Sequence[LabelledQuery]
) -> tuple[dict[str, float], list[float]]:
    """All / any gold tools in the top 5, and mean per-query recall@5 / @10 of the ranking;
    and per query, 1.0 when all its gold tools are in the top 5.

    Ranked at depth 5 and 10 separately: in hybrid mode the gate's k changes what competes.
    """
    tally = MultiToolTally()
    all_gold: list[float] = []
    for item in queries:
        gold, top5 = set(item.gold), set(modes.rank(mode, item.query, 5).names)
        tally.add(gold, top5, set(modes.rank(mode, item.query, 10).names))
        all_gold.append(float(gold <= top5))
    return tally.summary(), all_gold


def _confidences(
    modes: Modes, mode: str, queries: Sequence[LabelledQuery]
) -> tuple[list[float], list[float]]:
    supported: list[float] = []
    unsupported: list[float] = []
    for item in queries:
        conf = modes.rank(mode, item.query).confidence
        (supported if item.gold else unsupported).append(float("-inf") if conf is None else conf)
    return supported, unsupported


def false_acceptance_at(pos: Sequence[float], neg: Sequence[float], over_rejection: float) -> float | None:
    """False acceptance at the lowest threshold that refuses at most `over_rejection` of `pos`.

    None when that point is out of reach: the gate alone (confidence -inf) already refuses more.
    """
    if not pos:
        return None
    ordered = sorted(pos)
    allowed = min(int(over_rejection * len(ordered) + 1e-9), len(ordered) - 1)
    threshold = ordered[allowed]
    if threshold == float("-inf"):
        return None
    return sum(c >= threshold for c in neg) / max(len(neg), 1)


def gate_only_over_rejection(modes: Modes, mode: str, queries: Sequence[LabelledQuery]) -> float:
    """Share of supported `queries` the mode's gate refuses even with no score threshold."""
    pos, _ = _confidences(modes, mode, queries)
    return sum(c == float("-inf") for c in pos) / max(len(pos), 1)


def abstention(
    modes: Modes,
    mode: str,
    dev: Sequence[LabelledQuery],
    heldout: Sequence[LabelledQuery],
    lexical_gate_rate: float,
) -> dict[str, Any]:
    """Threshold at 5% over-rejection on `dev`; over-rejection and false acceptance on `heldout`.

    Also false acceptance on `heldout` at the same over-rejection for every mode (5%, 10%,
    20%, and `lexical_gate_rate`, the lexical gate's own over-rejection on `heldout`).
    """
    dev_pos, _ = _confidences(modes, mode, dev)
    ordered = sorted(dev_pos)
    threshold = ordered[int(TARGET_OVER_REJECTION * len(ordered))] if ordered else 0.0
    pos, neg = _confidences(modes, mode, heldout)
    out: dict[str, Any] = {
        "threshold": threshold,
        "over_rejection": sum(c < threshold for c in pos) / max(len(pos), 1),
        "false_acceptance": sum(c >= threshold for c in neg) / max(len(neg), 1),
        # Unreachable when the gate alone already refuses more than 5% of supported queries.
        "heldout_false_acceptance_at_5": false_acceptance_at(pos, neg, TARGET_OVER_REJECTION),
        "heldout_false_acceptance_at_10": false_acceptance_at(pos, neg, 0.10),
        "heldout_false_acceptance_at_20": false_acceptance_at(pos, neg, 0.20),
        "heldout_false_acceptance_at_lexical_gate": false_acceptance_at(pos, neg, lexical_gate_rate),
        "gate_only_over_rejection": sum(c == float("-inf") for c in pos) / max(len(pos), 1),
    }
    if mode != "semantic":
        routed_pos = sum(modes.default_routes(mode, q.query) for q in heldout if q.gold)
        routed_neg = sum(modes.default_routes(mode, q.query) for q in heldout if not q.gold)
        out["default_over_rejection"] = 1 - routed_pos / max(len(pos), 1)
        out["default_false_acceptance"] = routed_neg / max(len(neg), 1)
    return out


def scaled_catalog(size: int) -> Catalog:
    """`size` tools from the real MetaTool and LiveMCPBench texts, repeated under distinct names."""
    live, _ = livemcpbench()
    base: list[Capability] = [*metatool_catalog(), *live]
    caps = [
        Capability(
            source=f"{base[i % len(base)].source}-{i // len(base)}",
            name=base[i % len(base)].name,
            description=base[i % len(base)].description,
            input_schema=base[i % len(base)].input_schema,
        )
        for i in range(size)
    ]
    return Catalog(caps)


def _timed(fn: Callable[[], object], repeat: int) -> list[float]:
    samples: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def latency(size: int, queries: Sequence[str], encoder: WordLlamaEncoder, repeat: int) -> dict[str, float]:
    catalog = scaled_catalog(size)
    lexical = SchemaRouter(catalog)
    lexical.index  # noqa: B018 - build outside the timed region
    start = time.perf_counter()
    hybrid = lexical.with_semantic(encoder)
    build_ms = (time.perf_counter() - start) * 1000
    out: dict[str, float] = {"tools": len(catalog), "hybrid_build_ms": build_ms}
    for mode, router in (("lexical", lexical), ("hybrid", hybrid)):
        visibility = Visibility(router, k=5)
        for query in queries[:20]:
            visibility.allow_set(query)
        samples: list[float] = []
        for query in queries:
            samples += _timed(lambda q=query, v=visibility: v.allow_set(q), repeat)
        samples.sort()
        out[f"{mode}_p50_ms"] = statistics.median(samples)
        out[f"{mode}_p95_ms"] = samples[int(0.95 * (len(samples) - 1))]
    return out


def model_load_seconds() -> dict[str, float]:
    """Import + load of the default encoder in a fresh interpreter (what a cold start pays)."""
    code = (
        "import time, json; t0 = time.perf_counter();"
        "from schemarouter.retrieval._semantic import WordLlamaEncoder; e = WordLlamaEncoder();"
        "t1 = time.perf_counter(); e.load(); t2 = time.perf_counter();"
        "import numpy; print(json.dumps({'import_s': t1 - t0, 'load_s': t2 - t1, 'total_s': t2 - t0}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def versions() -> dict[str, str]:
    out = {"python": platform.python_version(), "machine": platform.machine(), "cpus": str(os.cpu_count())}
    for dist in ("schemarouter-core", "wordllama", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def run(limit: int, repeat: int, split: Split = "heldout", speed: bool = True) -> dict[str, Any]:
    encoder = WordLlamaEncoder().load()
    report: dict[str, Any] = {
        "versions": versions(),
        "encoder": encoder.name,
        "model_load": model_load_seconds(),
    }

    meta = Modes(metatool_catalog(), encoder)
    everything = metatool_single_tool(split)
    # The file is grouped by tool: take an even stride so every tool is represented.
    routing = everything[:: max(1, len(everything) // limit)][:limit]
    task_dev, task_heldout = metatool_task1("dev"), metatool_task1(split)
    live_catalog, live_tasks = livemcpbench(split)
    live = Modes(live_catalog, encoder)
    server = single_server(split)
    one = Modes(server.catalog, encoder, server.label)
    multi = metatool_multi_tool()
    pairs = two_in_one(everything)
    lexical_gate_rate = gate_only_over_rejection(meta, "lexical", task_heldout)
    quality: dict[str, dict[str, Any]] = {}
    per_query: dict[str, dict[str, list[float]]] = {}
    for mode in MODES:
        multi_summary, multi_all_gold = multi_tool_recall(meta, mode, multi)
        meta_recall, meta_first = top_hits(meta, mode, routing)
        live_recall, live_first = top_hits(live, mode, live_tasks)
        steps_recall, steps_first = top_hits(one, mode, server.steps)
        tasks_recall, tasks_first = top_hits(one, mode, server.tasks)
        pair_recall = top_hits(meta, mode, pairs)[0]
        per_query[mode] = {
            "metatool_recall@1": meta_first,
            "metatool_recall@5": meta_recall,
            "livemcpbench_recall@1": live_first,
            "livemcpbench_recall@5": live_recall,
            "single_server_steps_recall@1": steps_first,
            "single_server_steps_recall@5": steps_recall,
            "single_server_tasks_recall@1": tasks_first,
            "single_server_tasks_recall@5": tasks_recall,
            "multi_tool_all_gold@5": multi_all_gold,
            "two_in_one_both@5": [float(r == 1.0) for r in pair_recall],
        }
        quality[mode] = {
            "metatool_recall@1": statistics.fmean(per_query[mode]["metatool_recall@1"]),
            "metatool_recall@5": statistics.fmean(per_query[mode]["metatool_recall@5"]),
            "livemcpbench_recall@1": statistics.fmean(per_query[mode]["livemcpbench_recall@1"]),
            "livemcpbench_recall@5": statistics.fmean(per_query[mode]["livemcpbench_recall@5"]),
            "single_server": {
                key.removeprefix("single_server_"): statistics.fmean(values)
                for key, values in per_query[mode].items()
                if key.startswith("single_server_")
            },
            "metatool_gated@5": gated_recall(meta, mode, routing),
            "livemcpbench_gated@5": gated_recall(live, mode, live_tasks),
            "metatool_multi_tool": multi_summary,
            "two_in_one": {
                "recall@5": statistics.fmean(pair_recall),
                "both@5": statistics.fmean(per_query[mode]["two_in_one_both@5"]),
            },
            "task1": abstention(meta, mode, task_dev, task_heldout, lexical_gate_rate),
            "offers": {
                "metatool": offers(meta, mode, routing),
                "livemcpbench": offers(live, mode, live_tasks),
                "metatool_multi_tool": offers(meta, mode, multi),
                "two_in_one": offers(meta, mode, pairs),
                "single_server_steps": offers(one, mode, server.steps),
                "single_server_tasks": offers(one, mode, server.tasks),
            },
        }
    report["quality"] = quality
    report["paired_intervals"] = {
        f"hybrid-{other}": {
            metric: paired_interval(per_query["hybrid"][metric], per_query[other][metric])
            for metric in per_query["hybrid"]
        }
        for other in ("lexical", "semantic")
    }
    report["lexical_gate_over_rejection"] = lexical_gate_rate
    report["split"] = split
    report["sizes"] = {
        "metatool_routing_queries": len(routing),
        "task1_dev": len(task_dev),
        f"task1_{split}": len(task_heldout),
        "livemcpbench_tasks": len(live_tasks),
        "single_server_steps": len(server.steps),
        "single_server_tasks": len(server.tasks),
        "metatool_multi_tool_queries": len(multi),
        "two_in_one_requests": len(pairs),
    }
    speed_queries = [q.query for q in everything[:: max(1, len(everything) // 200)][:200]]
    report["latency"] = (
        [latency(size, speed_queries, encoder, repeat) for size in (1_000, 10_000)] if speed else []
    )
    return report


def _print(report: dict[str, Any]) -> None:
    print("versions:", ", ".join(f"{k} {v}" for k, v in report["versions"].items()))
    load = report["model_load"]
    print(f"encoder: {report['encoder']}; cold import {load['import_s']:.2f} s + load {load['load_s']:.2f} s")
    print("sizes:", report["sizes"], "; reported on the", report["split"], "half")
    q = report["quality"]
    half = report["split"]
    rows = [
        (f"MetaTool recall@1 ({half})", lambda m: q[m]["metatool_recall@1"]),
        (f"MetaTool recall@5 ({half})", lambda m: q[m]["metatool_recall@5"]),
        (f"LiveMCPBench first tool is gold ({half})", lambda m: q[m]["livemcpbench_recall@1"]),
        (f"LiveMCPBench gold recall@5 ({half})", lambda m: q[m]["livemcpbench_recall@5"]),
        (f"One server, steps: recall@1 ({half})", lambda m: q[m]["single_server"]["steps_recall@1"]),
        (f"One server, steps: recall@5 ({half})", lambda m: q[m]["single_server"]["steps_recall@5"]),
        (
            f"One server, tasks: first tool is gold ({half})",
            lambda m: q[m]["single_server"]["tasks_recall@1"],
        ),
        (f"One server, tasks: recall@5 ({half})", lambda m: q[m]["single_server"]["tasks_recall@5"]),
        (f"MetaTool gold in default allow-set, k=5 ({half})", lambda m: q[m]["metatool_gated@5"]),
        (f"LiveMCPBench gold in default allow-set ({half})", lambda m: q[m]["livemcpbench_gated@5"]),
        (f"Task1 over-rejection @ dev 5% ({half})", lambda m: q[m]["task1"]["over_rejection"]),
        (f"Task1 false acceptance @ dev 5% ({half})", lambda m: q[m]["task1"]["false_acceptance"]),
        (f"Task1 false acceptance @ {half} 5%", lambda m: q[m]["task1"]["heldout_false_acceptance_at_5"]),
        (f"Task1 false acceptance @ {half} 10%", lambda m: q[m]["task1"]["heldout_false_acceptance_at_10"]),
        (f"Task1 false acceptance @ {half} 20%", lambda m: q[m]["task1"]["heldout_false_acceptance_at_20"]),
        (
            f"Task1 false acceptance @ {half} {100 * report['lexical_gate_over_rejection']:.1f}% (lex gate)",
            lambda m: q[m]["task1"]["heldout_false_acceptance_at_lexical_gate"],
        ),
        ("Task1 over-rejection of the gate alone", lambda m: q[m]["task1"]["gate_only_over_rejection"]),
        ("Task1 over-rejection, default", lambda m: q[m]["task1"].get("default_over_rejection")),
        ("Task1 false acceptance, default", lambda m: q[m]["task1"].get("default_false_acceptance")),
        (
            "Multi-tool both gold in top 5 (all, never tuned)",
            lambda m: q[m]["metatool_multi_tool"]["all_gold@5"],
        ),
        (
            "Multi-tool any gold in top 5 (all, never tuned)",
            lambda m: q[m]["metatool_multi_tool"]["any_gold@5"],
        ),
        ("Multi-tool mean recall@5 (all, never tuned)", lambda m: q[m]["metatool_multi_tool"]["recall@5"]),
        ("Multi-tool mean recall@10 (all, never tuned)", lambda m: q[m]["metatool_multi_tool"]["recall@10"]),
        (f"Two requests in one: both gold in top 5 ({half})", lambda m: q[m]["two_in_one"]["both@5"]),
        (f"Two requests in one: mean recall@5 ({half})", lambda m: q[m]["two_in_one"]["recall@5"]),
    ]
    print(f"{'':50}" + "".join(f"{m:>10}" for m in MODES))
    for label, get in rows:
        cells = [get(m) for m in MODES]
        print(f"{label:50}" + "".join(f"{'-':>10}" if c is None else f"{c:>10.3f}" for c in cells))
    print(f"What the model is offered (k=5, default settings): {offer_columns()}")
    for mode in MODES:
        for name, summary in q[mode]["offers"].items():
            if summary is not None:
                print(f"  {mode:<8} {name:<20} {format_offers(summary)}")
    for pair, intervals in report["paired_intervals"].items():
        cells = ", ".join(f"{metric} [{low:+.3f}, {high:+.3f}]" for metric, (low, high) in intervals.items())
        print(f"{pair.replace('-', ' minus ')}, paired bootstrap 95% interval: {cells}")
    for lat in report["latency"]:
        print(
            f"allow_set at {lat['tools']:>6} tools: lexical p50 {lat['lexical_p50_ms']:.3f} ms "
            f"(p95 {lat['lexical_p95_ms']:.3f}), hybrid p50 {lat['hybrid_p50_ms']:.3f} ms "
            f"(p95 {lat['hybrid_p95_ms']:.3f}); hybrid tool vectors built in {lat['hybrid_build_ms']:.0f} ms"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--limit", type=int, default=3000, help="MetaTool routing queries to score")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per latency query")
    parser.add_argument(
        "--split", choices=("heldout", "dev"), default="heldout", help="half to report quality on"
    )
    parser.add_argument("--no-latency", action="store_true", help="quality only")
    args = parser.parse_args(argv)
    report = run(args.limit, args.repeat, args.split, not args.no_latency)
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        _print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
