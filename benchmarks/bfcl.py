"""Routing and no-route quality on BFCL, a real dataset no weight or threshold was tuned on.

    python benchmarks/bfcl.py [--json] [--modes lexical hybrid semantic]

The Berkeley Function Calling Leaderboard (v4 data, see data/SOURCES.md) pairs each request
with the functions offered to the model. Its single-call sets (`simple_python`, `multiple`,
`live_simple`, `live_multiple`: 1,911 requests, the `live` ones written by real users) name
the function that answers; in its irrelevance sets (`irrelevance`, `live_irrelevance`: 1,124
requests) no offered function fits. No parameter of SchemaRouter was chosen by looking at
this data: it checks that what was tuned on MetaTool and LiveMCPBench carries over. (One
change was prompted by reading its failures: the abbreviation table of the index.)

Two tasks, per mode (lexical, the default; hybrid and semantic need `schemarouter-core[semantic]`
and are left out, with a note, without it):
- **Routing over one catalog.** Every distinct function name of the single-call sets in one
  catalog (the first definition of a name wins; how many names have other definitions is
  printed). Per set: recall@1 and recall@5 of the ranking, the share whose gold function is
  inside the default allow-set (k=5, no threshold: what an adapter shows), and the share
  that gets no route at all.
- **What the model is offered** over that catalog (`_offers`), per set: the share of requests
  whose gold functions are all in the top five of the ranking, all in the default allow-set
  (`Visibility(router)`), the gap between the two, bytes offered, and the share reached after
  one find-tools call in a `RoutingSession`, per find-tools query stand-in.
- **No route among the offered functions** (BFCL's relevance framing). Each request is routed
  over its own offered functions only, with the default gate and no threshold. For the
  single-call sets: the share routed, and routed with the gold function among the routed
  tools; for the irrelevance sets: the share refused. Also the AUROC of the routing score
  (requests the gate refuses score lowest) between answerable and irrelevant requests, live
  and non-live apart.
"""

from __future__ import annotations

import argparse
import bisect
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import BfclEntry, bfcl
from _offers import DEEP, OfferTally, format_offers, offer_columns
from hybrid import versions

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, ToolSpec, Visibility
from schemarouter.retrieval._semantic import SemanticIndex, TextEncoder

OPEN = RetrievalAbstentionPolicy(min_score=0.0)
"""No score threshold: the gate's structural evidence rules only."""
ANSWERABLE = ("simple_python", "multiple", "live_simple", "live_multiple")
IRRELEVANT = ("irrelevance", "live_irrelevance")
PAIRS = {
    "non-live": (("simple_python", "multiple"), ("irrelevance",)),
    "live": (("live_simple", "live_multiple"), ("live_irrelevance",)),
}
MODES = ("lexical", "hybrid", "semantic")


class Ranker:
    """One mode over one catalog: the ranking, the default allow-set and the routing score."""

    def __init__(self, catalog: Catalog, mode: str, encoder: TextEncoder | None) -> None:
        self.router = SchemaRouter(catalog)
        self.semantic: SemanticIndex | None = None
        if mode != "lexical" and encoder is None:
            raise ValueError(f"the {mode} mode needs an encoder")
        if mode == "hybrid":
            self.router = self.router.with_semantic(encoder)
        elif mode == "semantic" and encoder is not None:
            self.semantic = SemanticIndex(catalog, encoder)
            self._names = [catalog[route].name for route in self.semantic.routes]

    def top(self, query: str, depth: int = 5) -> list[str]:
        if self.semantic is not None:
            sims = self.semantic.similarities(query)
            order = sorted(range(len(self._names)), key=lambda i: (-float(sims[i]), self._names[i]))
            return [self._names[i] for i in order[:depth]]
        retrieval = self.router.retrieve(query, depth, abstention=OPEN, explain=False)
        ranked = sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))
        return [c.name for c in ranked[:depth]]

    def allowed(self, query: str) -> tuple[str, ...] | None:
        """The default allow-set at k=5 (no threshold); None for semantic alone, which has no gate."""
        if self.semantic is not None:
            return None
        return tuple(c.name for c in self.router.retrieve(query, 5, explain=False).offered)

    def confidence(self, query: str) -> float:
        """The best routing score the gate lets through (-inf when it refuses every tool); for
        semantic alone, the best cosine."""
        if self.semantic is not None:
            sims = self.semantic.similarities(query)
            return float(sims.max()) if sims.size else float("-inf")
        retrieval = self.router.retrieve(query, 5, abstention=OPEN, explain=False)
        return max((c.score for c in retrieval.candidates), default=float("-inf"))


def _catalog(specs: Sequence[ToolSpec]) -> Catalog:
    return Catalog.from_specs("bfcl", specs)


def union_catalog(entries: Sequence[BfclEntry]) -> tuple[Catalog, int]:
    """The offered functions of every answerable request, one tool per name (its first
    definition); and how many names have more than one definition."""
    first: dict[str, ToolSpec] = {}
    definitions: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        if entry.set in ANSWERABLE:
            for spec in entry.offered:
                first.setdefault(spec.name, spec)
                definitions[spec.name].add(json.dumps([spec.description, spec.input_schema], sort_keys=True))
    return _catalog(list(first.values())), sum(len(d) > 1 for d in definitions.values())


def routing(
    entries: Sequence[BfclEntry], ranker: Ranker, offers: dict[str, OfferTally] | None = None
) -> dict[str, dict[str, float]]:
    """Per set: recall@1 and @5 of the ranking, gold inside the default allow-set and no route;
    with `offers` (lexical and hybrid), each set's offers tallied there too."""
    tallies: dict[str, list[tuple[bool, bool, bool | None, bool | None]]] = defaultdict(list)
    visibility = Visibility(ranker.router) if offers is not None else None
    for entry in entries:
        if entry.set not in ANSWERABLE:
            continue
        gold = set(entry.gold)
        top = ranker.top(entry.request)
        allowed = ranker.allowed(entry.request)
        if offers is not None and visibility is not None:
            for name in (entry.set, "all"):
                tally = offers.get(name)
                if tally is None:
                    tally = offers[name] = OfferTally()
                tally.add(visibility, entry.request, gold, top, ranker.top(entry.request, DEEP))
        tallies[entry.set].append(
            (
                bool(gold & set(top[:1])),
                bool(gold & set(top)),
                None if allowed is None else bool(gold & set(allowed)),
                None if allowed is None else not allowed,
            )
        )
    out: dict[str, dict[str, float]] = {}
    for name in (*ANSWERABLE, "all"):
        rows = [row for s in ANSWERABLE for row in tallies[s]] if name == "all" else tallies[name]
        n = max(len(rows), 1)
        summary = {
            "requests": float(len(rows)),
            "recall@1": sum(r[0] for r in rows) / n,
            "recall@5": sum(r[1] for r in rows) / n,
        }
        if rows and rows[0][2] is not None:
            summary["gold_in_allow_set"] = sum(bool(r[2]) for r in rows) / n
            summary["no_route"] = sum(bool(r[3]) for r in rows) / n
        out[name] = summary
    return out


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    wins = 0.0
    ordered = sorted(negatives)
    for value in positives:
        below = bisect.bisect_left(ordered, value)
        ties = bisect.bisect_right(ordered, value) - below
        wins += below + ties / 2
    return wins / max(len(positives) * len(negatives), 1)


def relevance(entries: Sequence[BfclEntry], make: Callable[[Catalog], Ranker]) -> dict[str, Any]:
    """Each request routed over its own offered functions only."""
    routed: dict[str, list[bool]] = defaultdict(list)
    to_gold: dict[str, list[bool]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    skipped = 0
    for entry in entries:
        catalog = _catalog(entry.offered)
        skipped += len(catalog.skipped)
        ranker = make(catalog)
        scores[entry.set].append(ranker.confidence(entry.request))
        allowed = ranker.allowed(entry.request)
        if allowed is None:
            continue
        routed[entry.set].append(bool(allowed))
        to_gold[entry.set].append(bool(set(entry.gold) & set(allowed)))
    out: dict[str, Any] = {"skipped_functions": skipped, "sets": {}, "auroc": {}}
    for name in (*ANSWERABLE, *IRRELEVANT):
        if name not in routed:
            continue
        share = statistics.fmean(routed[name]) if routed[name] else 0.0
        row: dict[str, float] = {"requests": float(len(routed[name]))}
        if name in IRRELEVANT:
            row["refused"] = 1.0 - share
        else:
            row["routed"] = share
            row["routed_with_gold"] = statistics.fmean(to_gold[name]) if to_gold[name] else 0.0
        out["sets"][name] = row
    for pair, (positive, negative) in PAIRS.items():
        pos = [v for s in positive for v in scores[s]]
        neg = [v for s in negative for v in scores[s]]
        out["auroc"][pair] = auroc(pos, neg)
    return out


def _encoder() -> TextEncoder | None:
    try:
        from schemarouter.retrieval._semantic import WordLlamaEncoder

        return WordLlamaEncoder().load()
    except Exception as exc:  # the extra is optional: report what is left out and why
        print(f"note: semantic and hybrid modes left out ({type(exc).__name__}: {exc})", file=sys.stderr)
        return None


def run(modes: Sequence[str]) -> dict[str, Any]:
    started = time.perf_counter()
    entries = bfcl()
    needs_model = [m for m in modes if m != "lexical"]
    encoder = _encoder() if needs_model else None
    if encoder is None:
        modes = [m for m in modes if m == "lexical"]
    catalog, redefined = union_catalog(entries)
    report: dict[str, Any] = {
        "versions": versions(),
        "union_catalog": {"tools": len(catalog), "skipped": len(catalog.skipped), "redefined": redefined},
        "modes": {},
    }
    for mode in modes:
        offers: dict[str, OfferTally] | None = {} if mode != "semantic" else None
        report["modes"][mode] = {
            "routing": routing(entries, Ranker(catalog, mode, encoder), offers),
            "relevance": relevance(entries, lambda c, m=mode: Ranker(c, m, encoder)),
        }
        if offers is not None:
            report["modes"][mode]["offers"] = {name: tally.summary() for name, tally in offers.items()}
    report["seconds"] = time.perf_counter() - started
    return report


def print_table(report: dict[str, Any]) -> None:
    union = report["union_catalog"]
    print("SchemaRouter on BFCL v4 (no weight or threshold tuned on it)")
    print()
    print(
        f"Routing over one catalog of {union['tools']} functions "
        f"({union['redefined']} names defined differently by different requests: the first kept; "
        f"{union['skipped']} functions refused by the catalog)"
    )
    print(
        f"{'mode':9} {'set':15} {'requests':>8} {'recall@1':>9} {'recall@5':>9} {'in allow-set':>13} {'no route':>9}"
    )
    for mode, result in report["modes"].items():
        for name, row in result["routing"].items():
            allow = f"{row['gold_in_allow_set']:.3f}" if "gold_in_allow_set" in row else "-"
            none = f"{row['no_route']:.3f}" if "no_route" in row else "-"
            print(
                f"{mode:9} {name:15} {int(row['requests']):>8} {row['recall@1']:>9.3f} "
                f"{row['recall@5']:>9.3f} {allow:>13} {none:>9}"
            )
    print()
    print(f"What the model is offered over that catalog (k=5, default settings): {offer_columns()}")
    for mode, result in report["modes"].items():
        for name, summary in result.get("offers", {}).items():
            print(f"{mode:9} {name:15} {format_offers(summary)}")
    print()
    skipped = {mode: result["relevance"]["skipped_functions"] for mode, result in report["modes"].items()}
    print(
        "No route among each request's own offered functions (default gate, no threshold; "
        f"offered functions the catalog refused: {max(skipped.values(), default=0)})"
    )
    print(f"{'mode':9} {'set':17} {'requests':>8} {'routed':>7} {'with gold':>10} {'refused':>8}")
    for mode, result in report["modes"].items():
        rel = result["relevance"]
        for name, row in rel["sets"].items():
            routed = f"{row['routed']:.3f}" if "routed" in row else "-"
            gold = f"{row['routed_with_gold']:.3f}" if "routed_with_gold" in row else "-"
            refused = f"{row['refused']:.3f}" if "refused" in row else "-"
            print(f"{mode:9} {name:17} {int(row['requests']):>8} {routed:>7} {gold:>10} {refused:>8}")
        aurocs = ", ".join(f"{pair} {value:.3f}" for pair, value in rel["auroc"].items())
        print(f"{mode:9} AUROC of the routing score, answerable vs irrelevant: {aurocs}")
    print()
    print(
        f"ran in {report['seconds']:.1f} s; versions: "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Routing and no-route quality on BFCL.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    args = parser.parse_args()
    report = run(args.modes)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
