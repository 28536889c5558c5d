"""Abstention where it hurts users: supported requests the default allow-set refuses, and
unsupported requests it accepts, for the default settings of each mode (lexical, hybrid).

    python benchmarks/abstention.py [--split heldout|dev] [--modes lexical hybrid] [--json] [--limit N]

Every request is routed with the defaults only: `SchemaRouter(catalog)` (lexical) or
`SchemaRouter(catalog).with_semantic(encoder)` (hybrid, WordLlama; the encoder is loaded once
and shared by every catalog), `Visibility(router, k=5).allow_set(query)` for what a model is
shown, and `router.retrieve(query, 5)` for the reasons and the scores behind it. No
`min_score`, no threshold, no tuning. Only requests of the chosen half count (`in_split` on
the request text, for supported and unsupported requests alike).

What it measures, per mode and per group:

1. Supported requests refused: the share of requests that a tool of the catalog serves whose
   gold tool is not in the default allow-set (for several gold tools: none of them is in it;
   "all gold in" also reports the share with every gold tool in it, at most k of them
   counted). Each refusal has one cause:
   (a) `no route`: the request routes nothing at all;
   (b) `gate`: others are routed, the gold tool is not: its `Candidate.reason` is a gate
       reason (`weak_evidence`, `no_identifier_signal`, `low_confidence`, `below_min_score`),
       or it is not ranked at all;
   (c) `k`: the gold tool passes the gate but is ranked below the k kept (`beyond_k`).
   A gold tool missing from `Retrieval.dropped` (which reports ten refusals) is looked up
   once more with k = the catalog's size: a tool's gate verdict does not depend on k in
   either mode, so that says whether it passed the gate (then (c), `below_k_unreported`) or
   was refused by it ((b), `<reason>_unreported`). Lexical: read from the gate with every
   refusal reported, so a tool still missing is not ranked at all ((b), `not_ranked`: it
   shares no word with the request). Hybrid: `retrieve` again (every tool competes at that
   depth), so a tool still missing was refused below the ten reported refusals
   ((b), `refused_unreported`). With several gold tools, (c) wins over (b): one of them
   passed the gate and only k hid it.
2. Unsupported requests accepted: the share of requests that need no tool of the catalog
   and still route at least one tool.
3. The supported requests split by wording. A request is `plain` when one of its content
   words shares a stem with a gold tool's name, title or description, `paraphrased`
   otherwise. Content words are the request's `text_tokens` (stop-words and single letters
   out; mixed-case words also whole), minus all-digit tokens and everyday words
   (`specificity` below `PLAIN_MIN_SPECIFICITY` = 0.3: "find", "want", "best", "show", "use"
   are out; "check", "music", "weather" are in). Stems come from the index's `Stemmer`; a
   tool's words are the `text_tokens` of its name, title and description, and a
   run-together one ("airqualityforeast") also gives the parts the index's `segment` finds
   among the catalog's own words.
4. Groups by catalog size:
   - `small`: one catalog per LiveMCPBench server (source) with 1 to 10 tools. Supported: the
     LiveMCPBench tasks whose gold tools include a tool of that server (gold = those tools;
     a gold name held by two servers, such as `search_papers`, counts for both).
     Unsupported: `negative`, the MetaTool Task1 need-no-tool requests; `other_server`, the
     LiveMCPBench tasks that use no tool of that server; `near_miss`, for a server of 2 to
     10 tools, each supported task routed over the server with that task's gold tools
     removed (same topic, not the asked action: it should get no route).
   - `metatool`: MetaTool's 199 tools; supported: the single-tool queries; unsupported: Task1
     need-no-tool requests (`negative`).
   - `livemcpbench`: all 526 LiveMCPBench tools (69 servers); supported: the tasks (gold by
     tool name, as `_datasets.livemcpbench` gives it); unsupported: Task1 negatives.
   Large catalogs are reported one by one, not pooled.
5. Confidence: a request's highest `Candidate.score` over the kept and dropped candidates of
   `router.retrieve(query, 5)` (0 when there is none). AUROC of supported against
   unsupported requests (`quality.auroc`), and false acceptance at 5 % and 10 %
   over-rejection of supported requests, the threshold chosen on the same half
   (`hybrid.false_acceptance_at`). In the small group, requests of all its catalogs share one
   threshold, as one default would.

6. What the model is offered, per group and mode (`_offers`): for supported requests, the share
   whose gold tools are all in the ranking's top k and all in the default allow-set (the gap is
   what the gate costs), bytes offered, and the share reached after one find-tools call in a
   `RoutingSession`, per find-tools query stand-in.

Also listed: the reasons behind the refused supported requests of each group, the
small-catalog supported requests refused most often (by how many (mode, server) pairs refuse
them) with their reasons, and a check that every allow-set
holds exactly the tools `retrieve` keeps. `--json` prints one JSON object with sorted keys
and no timings, so that two runs before and after a change to the gate can be diffed.
`--limit N` caps each request list (MetaTool queries at an even stride) for a quick run.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import (
    LabelledQuery,
    Split,
    livemcpbench,
    metatool_catalog,
    metatool_single_tool,
    metatool_task1,
    run_report_cli,
)
from _offers import DEEP, OfferTally, format_offers, offer_columns, ranked_names
from hybrid import false_acceptance_at, versions
from quality import auroc

from schemarouter import DEFAULT_K, Catalog, Retrieval, SchemaRouter, TextEncoder, Visibility
from schemarouter.analysis._commonness import specificity
from schemarouter.analysis._segment import MIN_PART, segment
from schemarouter.analysis._stemming import Stemmer
from schemarouter.analysis._text import text_tokens
from schemarouter.catalog import Capability
from schemarouter.retrieval import Candidate, RetrievalAbstentionPolicy, WordLlamaEncoder
from schemarouter.retrieval._gate import GateSettings
from schemarouter.retrieval._offer import gate

MODES = ("lexical", "hybrid")
GROUPS = ("small", "metatool", "livemcpbench")
SMALL_MAX_TOOLS = 10
PLAIN_MIN_SPECIFICITY = 0.3
"""Request words less specific than this in everyday English do not make a request `plain`."""
OVER_REJECTIONS = (0.05, 0.10)
KEPT_REASONS = frozenset({"routed", "preferred_route", "lexical_gate", "hybrid_agree", "semantic_match"})
"""`Candidate.reason` of a kept tool, in either mode."""
CAUSES = ("no_route", "gate", "k")
VERDICTS = ("route", "uncertain", "no_route")
TOP_REFUSED = 10
REASONS_SHOWN = 6


@dataclass(frozen=True, slots=True)
class Case:
    """One request over one catalog."""

    group: str
    catalog: str
    """Key of the catalog the request is routed over."""
    query: str
    gold: frozenset[str]
    """Names of the tools that serve the request in this catalog; empty when none does."""
    kind: str
    """`supported`, or why it is not: `negative`, `other_server`, `near_miss`."""
    wording: str = ""
    """`plain` or `paraphrased` for a supported request."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one mode did with one case."""

    routed: bool
    any_gold: bool
    all_gold: bool
    cause: str
    """For a supported request without a gold tool in the allow-set: one of `CAUSES`."""
    detail: str
    """The reason behind the cause (`Retrieval.reason` and the gold tools' reasons)."""
    confidence: float
    consistent: bool
    verdict: str = "no_route"
    """The allow-set's outcome: `route`, `uncertain` (the best few with weak evidence) or `no_route`."""
    shown: int = 0
    """Tools in the allow-set (what the model is shown, and pays for in its prompt)."""


# -- wording ------------------------------------------------------------------------------------


class Wording:
    """Tells `plain` from `paraphrased` requests (see the module docstring), per catalog."""

    def __init__(self) -> None:
        self._stemmer = Stemmer()
        self._tools: dict[tuple[str, str], frozenset[str]] = {}
        self._vocabulary: dict[str, frozenset[str]] = {}

    def _catalog_words(self, catalog: Catalog) -> frozenset[str]:
        words = self._vocabulary.get(catalog.version)
        if words is None:
            words = frozenset(
                token
                for cap in catalog
                for token in text_tokens(f"{cap.name} {cap.title or ''} {cap.description}")
                if len(token) >= MIN_PART
            )
            self._vocabulary[catalog.version] = words
        return words

    def tool_stems(self, catalog: Catalog, cap: Capability) -> frozenset[str]:
        key = (catalog.version, cap.route)
        stems = self._tools.get(key)
        if stems is None:
            vocabulary = self._catalog_words(catalog)
            tokens: list[str] = []
            for token in text_tokens(f"{cap.name} {cap.title or ''} {cap.description}", wholes=True):
                tokens.append(token)
                tokens.extend(segment(token, vocabulary))
            stems = frozenset(self._stemmer.stem_all(tokens))
            self._tools[key] = stems
        return stems

    def request_stems(self, query: str) -> frozenset[str]:
        return frozenset(
            self._stemmer.stem(token)
            for token in text_tokens(query, wholes=True)
            if not token.isdigit() and specificity(token) >= PLAIN_MIN_SPECIFICITY
        )

    def of(self, query: str, catalog: Catalog, gold: Iterable[Capability]) -> str:
        words = self.request_stems(query)
        shared = any(words & self.tool_stems(catalog, cap) for cap in gold)
        return "plain" if shared else "paraphrased"


# -- the cases ------------------------------------------------------------------------------------


def _capped(items: Sequence[LabelledQuery], limit: int | None, stride: bool = False) -> list[LabelledQuery]:
    if limit is None or len(items) <= limit:
        return list(items)
    if stride:  # the file is grouped by tool: an even stride keeps every tool represented
        return list(items[:: max(1, len(items) // limit)][:limit])
    return list(items[:limit])


def build_cases(split: Split, limit: int | None) -> tuple[dict[str, Catalog], list[Case]]:
    """Every catalog (by key) and every request routed over one of them, in a fixed order."""
    wording = Wording()
    catalogs: dict[str, Catalog] = {}
    cases: list[Case] = []
    negatives = _capped([q for q in metatool_task1(split) if not q.gold], limit)

    meta = metatool_catalog()
    catalogs["metatool"] = meta
    meta_by_name = {cap.name: cap for cap in meta}
    for item in _capped(metatool_single_tool(split), limit, stride=True):
        gold = frozenset(item.gold)
        plain = wording.of(item.query, meta, (meta_by_name[name] for name in sorted(gold)))
        cases.append(Case("metatool", "metatool", item.query, gold, "supported", plain))
    cases += [Case("metatool", "metatool", q.query, frozenset(), "negative") for q in negatives]

    live, tasks = livemcpbench(split)
    tasks = _capped(tasks, limit)
    catalogs["livemcpbench"] = live
    for task in tasks:
        gold = frozenset(task.gold)
        gold_caps = sorted((cap for cap in live if cap.name in gold), key=lambda c: c.route)
        plain = wording.of(task.query, live, gold_caps)
        cases.append(Case("livemcpbench", "livemcpbench", task.query, gold, "supported", plain))
    cases += [Case("livemcpbench", "livemcpbench", q.query, frozenset(), "negative") for q in negatives]

    servers: dict[str, list[Capability]] = defaultdict(list)
    for cap in live:
        servers[cap.source].append(cap)
    for server in sorted(servers):
        tools = servers[server]
        if not 1 <= len(tools) <= SMALL_MAX_TOOLS:
            continue
        key = f"small:{server}"
        small = Catalog(tools)
        catalogs[key] = small
        names = {cap.name for cap in tools}
        for task in tasks:
            gold = frozenset(task.gold) & names
            if not gold:
                cases.append(Case("small", key, task.query, frozenset(), "other_server"))
                continue
            gold_caps = [cap for cap in tools if cap.name in gold]
            cases.append(
                Case("small", key, task.query, gold, "supported", wording.of(task.query, small, gold_caps))
            )
            rest = [cap for cap in tools if cap.name not in gold]
            if len(tools) >= 2 and rest:
                near = f"near:{server}:{','.join(sorted(gold))}"
                catalogs.setdefault(near, Catalog(rest))
                cases.append(Case("small", near, task.query, frozenset(), "near_miss"))
        cases += [Case("small", key, q.query, frozenset(), "negative") for q in negatives]
    return catalogs, cases


# -- routing ------------------------------------------------------------------------------------


class Routers:
    """One router and one `Visibility` per (mode, catalog), built on first use."""

    def __init__(
        self,
        catalogs: Mapping[str, Catalog],
        encoder: TextEncoder | None,
        policy: RetrievalAbstentionPolicy | None = None,
    ) -> None:
        self._catalogs = catalogs
        self._encoder = encoder
        self.policy = policy
        self._built: dict[tuple[str, str], tuple[SchemaRouter, Visibility]] = {}

    def get(self, mode: str, key: str) -> tuple[SchemaRouter, Visibility]:
        built = self._built.get((mode, key))
        if built is None:
            router = SchemaRouter(self._catalogs[key])
            if mode == "hybrid":
                if self._encoder is None:
                    raise RuntimeError("hybrid mode needs an encoder")
                router = router.with_semantic(self._encoder)
            built = (router, Visibility(router, k=DEFAULT_K, abstention=self.policy))
            self._built[(mode, key)] = built
        return built


def _gold_reasons(retrieval: Retrieval, gold: frozenset[str]) -> dict[str, str]:
    """Each gold tool's reason in `retrieval` (several tools of one name: the best placed one)."""
    out: dict[str, str] = {}
    for cand in (*retrieval.candidates, *retrieval.dropped):
        if cand.name in gold and cand.name not in out:
            out[cand.name] = cand.reason
    return out


def _unreported(router: SchemaRouter, query: str, names: Sequence[str]) -> dict[str, str]:
    """The gate's verdict on gold tools the default retrieval did not report, read with k = every
    tool (so every tool that passes the gate is kept). Lexical: the gate with every refusal
    reported (`GateSettings.reported_dropped`), so a tool it does not list is not ranked at all.
    Hybrid: the retrieval reports ten refusals; a tool refused further down is
    `refused_unreported` (every tool competes there, so none is unranked)."""
    depth = max(len(router.catalog), DEFAULT_K)
    if router.mode == "lexical":
        settings = GateSettings(reported_dropped=depth)
        deep = gate(router.index, query, depth, settings=settings, explain=False)
        absent = "not_ranked"
    else:
        deep = router.retrieve(query, depth, explain=False)
        absent = "refused_unreported"
    found = _gold_reasons(deep, frozenset(names))
    out: dict[str, str] = {}
    for name in names:
        reason = found.get(name)
        if reason is None:
            out[name] = absent
        elif reason in KEPT_REASONS or reason == "beyond_k":
            out[name] = "below_k_unreported"
        else:
            out[name] = f"{reason}_unreported"
    return out


def _cause(retrieval: Retrieval, reasons: Mapping[str, str]) -> str:
    if retrieval.no_route:
        return "no_route"
    if any(r in ("beyond_k", "below_k_unreported") for r in reasons.values()):
        return "k"
    return "gate"


def judge(router: SchemaRouter, visibility: Visibility, case: Case) -> Outcome:
    retrieval = router.retrieve(case.query, DEFAULT_K, abstention=visibility.abstention, explain=False)
    allowed = visibility.allow_set(case.query)
    scored: list[Candidate] = [*retrieval.candidates, *retrieval.uncertain, *retrieval.dropped]
    confidence = max((c.score for c in scored), default=0.0)
    consistent = allowed.routes == tuple(c.route for c in retrieval.offered)
    shown = set(allowed.names)
    hits = case.gold & shown
    cause = detail = ""
    if case.gold and not hits:
        reasons = _gold_reasons(retrieval, case.gold)
        missing = sorted(case.gold - reasons.keys())
        if missing:
            reasons.update(_unreported(router, case.query, missing))
        cause = _cause(retrieval, reasons)
        gold_part = ",".join(sorted(set(reasons.values())))
        detail = f"{retrieval.reason}: {gold_part}" if retrieval.no_route else gold_part
    return Outcome(
        routed=not allowed.no_route,
        any_gold=bool(hits),
        all_gold=bool(case.gold) and len(hits) >= min(len(case.gold), DEFAULT_K),
        cause=cause,
        detail=detail,
        confidence=confidence,
        consistent=consistent,
        verdict=allowed.outcome,
        shown=len(allowed.names),
    )


# -- the report ----------------------------------------------------------------------------------


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def _refusals(pairs: Sequence[tuple[Case, Outcome]]) -> dict[str, Any]:
    n = len(pairs)
    causes = Counter(o.cause for _, o in pairs if o.cause)
    refused = sum(causes.values())
    out: dict[str, Any] = {
        "requests": n,
        "served": n - refused,
        "served_share": _share(n - refused, n),
        "all_gold_in": sum(o.all_gold for _, o in pairs),
        "all_gold_in_share": _share(sum(o.all_gold for _, o in pairs), n),
        "refused": refused,
        "refused_share": _share(refused, n),
        "details": dict(Counter(o.detail for _, o in pairs if o.cause)),
        "verdicts": _verdicts(pairs),
        "mean_shown": round(sum(o.shown for _, o in pairs) / n, 3) if n else 0.0,
    }
    for cause in CAUSES:
        out[cause] = causes[cause]
        out[f"{cause}_share"] = _share(causes[cause], n)
    out["gate_not_ranked"] = sum(o.cause == "gate" and o.detail == "not_ranked" for _, o in pairs)
    return out


def _verdicts(pairs: Sequence[tuple[Case, Outcome]]) -> dict[str, Any]:
    """How many requests each outcome got (`route`, `uncertain`, `no_route`), and shares."""
    n = len(pairs)
    counts = Counter(o.verdict for _, o in pairs)
    out: dict[str, Any] = {}
    for verdict in VERDICTS:
        out[verdict] = counts[verdict]
        out[f"{verdict}_share"] = _share(counts[verdict], n)
    return out


def _acceptance(pairs: Sequence[tuple[Case, Outcome]]) -> dict[str, Any]:
    accepted = sum(o.routed for _, o in pairs)
    return {
        "requests": len(pairs),
        "accepted": accepted,
        "accepted_share": _share(accepted, len(pairs)),
        "verdicts": _verdicts(pairs),
        "mean_shown": round(sum(o.shown for _, o in pairs) / len(pairs), 3) if pairs else 0.0,
    }


def _separation(pos: Sequence[float], neg: Sequence[float]) -> dict[str, Any]:
    out: dict[str, Any] = {"supported": len(pos), "unsupported": len(neg)}
    # A threshold cannot refuse a supported request of confidence 0 without refusing all of them:
    # above this share of over-rejection, every request is accepted.
    out["supported_at_zero_share"] = _share(sum(c <= 0.0 for c in pos), len(pos))
    out["auroc"] = round(auroc(pos, neg), 6) if pos and neg else None
    for rate in OVER_REJECTIONS:
        value = false_acceptance_at(pos, neg, rate) if neg else None
        out[f"false_acceptance_at_{round(rate * 100)}"] = None if value is None else round(value, 6)
    return out


def summarise(pairs: Sequence[tuple[Case, Outcome]]) -> dict[str, Any]:
    """Sections 1 to 3 and 5 for one mode and one group."""
    supported = [(c, o) for c, o in pairs if c.kind == "supported"]
    unsupported = [(c, o) for c, o in pairs if c.kind != "supported"]
    wordings = {"all": supported} | {
        w: [p for p in supported if p[0].wording == w] for w in ("plain", "paraphrased")
    }
    kinds = sorted({c.kind for c, _ in unsupported})
    by_kind = {"all": unsupported} | {k: [p for p in unsupported if p[0].kind == k] for k in kinds}
    separation: dict[str, Any] = {}
    for wording, sup in wordings.items():
        pos = [o.confidence for _, o in sup]
        for kind, uns in by_kind.items():
            if wording != "all" and kind != "all":
                continue
            separation[f"{wording}_vs_{kind}"] = _separation(pos, [o.confidence for _, o in uns])
    return {
        "supported": {w: _refusals(sup) for w, sup in wordings.items()},
        "unsupported": {k: _acceptance(uns) for k, uns in by_kind.items()},
        "confidence": separation,
    }


def most_refused(outcomes: Mapping[str, Sequence[tuple[Case, Outcome]]]) -> list[dict[str, Any]]:
    """The small-catalog supported requests refused most often, over every mode and server: how
    many (mode, server) pairs refuse each, with the cause and reasons of each refusal."""
    refused: dict[str, list[dict[str, Any]]] = defaultdict(list)
    wording: dict[str, str] = {}
    for mode, pairs in outcomes.items():
        for case, outcome in pairs:
            if case.group == "small" and case.kind == "supported" and outcome.cause:
                wording[case.query] = case.wording
                refused[case.query].append(
                    {
                        "mode": mode,
                        "server": case.catalog.removeprefix("small:"),
                        "gold": sorted(case.gold),
                        "cause": outcome.cause,
                        "detail": outcome.detail,
                    }
                )
    ordered = sorted(refused.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        {"query": query, "refusals": len(on), "wording": wording[query], "on": on}
        for query, on in ordered[:TOP_REFUSED]
    ]


def run(split: Split, modes: Sequence[str], limit: int | None, runner_ups: int = 0) -> dict[str, Any]:
    catalogs, cases = build_cases(split, limit)
    encoder: TextEncoder | None = WordLlamaEncoder().load() if "hybrid" in modes else None
    policy = RetrievalAbstentionPolicy(runner_ups=runner_ups) if runner_ups else None
    routers = Routers(catalogs, encoder, policy)
    sizes: dict[str, Any] = {}
    for group in GROUPS:
        mine = [c for c in cases if c.group == group]
        sizes[group] = {
            "catalogs": len({c.catalog for c in mine if c.kind == "supported" or c.kind == "negative"}),
            "near_miss_catalogs": len({c.catalog for c in mine if c.kind == "near_miss"}),
            "supported": sum(c.kind == "supported" for c in mine),
            "plain": sum(c.wording == "plain" for c in mine),
            "paraphrased": sum(c.wording == "paraphrased" for c in mine),
            "unsupported": dict(Counter(c.kind for c in mine if c.kind != "supported")),
            "distinct_supported_requests": len({c.query for c in mine if c.kind == "supported"}),
        }
    sizes["small"]["tools_per_catalog"] = dict(
        Counter(len(catalogs[key]) for key in {c.catalog for c in cases if c.catalog.startswith("small:")})
    )
    report: dict[str, Any] = {
        "split": split,
        "k": DEFAULT_K,
        "limit": limit,
        "plain_min_specificity": PLAIN_MIN_SPECIFICITY,
        "runner_ups": runner_ups,
        "versions": versions(),
        "encoder": encoder.name if encoder is not None else None,
        "sizes": sizes,
        "modes": {},
        "seconds": {},
    }
    outcomes: dict[str, list[tuple[Case, Outcome]]] = {}
    for mode in modes:
        started = time.perf_counter()
        pairs: list[tuple[Case, Outcome]] = []
        offers = {group: OfferTally() for group in GROUPS}
        for case in cases:
            router, visibility = routers.get(mode, case.catalog)
            pairs.append((case, judge(router, visibility, case)))
            if case.kind == "supported":
                tally = offers[case.group]
                ranked = ranked_names(router, case.query, tally.k)
                tally.add(visibility, case.query, case.gold, ranked, ranked_names(router, case.query, DEEP))
        outcomes[mode] = pairs
        report["modes"][mode] = {
            "groups": {group: summarise([p for p in pairs if p[0].group == group]) for group in GROUPS},
            "offers": {group: tally.summary() for group, tally in offers.items()},
            "allow_set_differs_from_retrieve": sum(not o.consistent for _, o in pairs),
        }
        report["seconds"][mode] = time.perf_counter() - started
    report["most_refused_small"] = most_refused(outcomes)
    return report


# -- printing ------------------------------------------------------------------------------------


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]
    print(
        "  "
        + "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths, strict=True))
        )
    )
    for row in rows:
        print(
            "  "
            + "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )


def _count(n: int, share: float) -> str:
    return f"{n} ({share:.3f})"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


GROUP_TITLES = {
    "small": "small (1-10 tools, one server)",
    "metatool": "MetaTool (199 tools)",
    "livemcpbench": "LiveMCPBench (526 tools)",
}


def print_report(report: dict[str, Any]) -> None:
    modes: list[str] = list(report["modes"])
    settings = "default settings" if not report.get("runner_ups") else f"runner_ups={report['runner_ups']}"
    print(f"SchemaRouter abstention, {settings} (k={report['k']}, no min_score) - {report['split']} half")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()))
    if report["encoder"]:
        print(f"encoder: {report['encoder']}")
    if report["limit"] is not None:
        print(f"limit: {report['limit']} requests per list")
    print()
    print("Groups (supported requests: plain / paraphrased; unsupported by kind)")
    for group in GROUPS:
        s = report["sizes"][group]
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(s["unsupported"].items()))
        near = f", {s['near_miss_catalogs']} near-miss catalogs" if s["near_miss_catalogs"] else ""
        print(
            f"  {GROUP_TITLES[group]}: {s['catalogs']} catalog(s){near}; supported {s['supported']} "
            f"({s['distinct_supported_requests']} distinct requests; plain {s['plain']} / paraphrased "
            f"{s['paraphrased']}); unsupported: {kinds}"
        )
    tools = report["sizes"]["small"].get("tools_per_catalog", {})
    print("  small catalogs by tool count: " + ", ".join(f"{k}: {v}" for k, v in sorted(tools.items())))
    print()
    print("0. Verdicts: route (confident) / uncertain (best few with weak evidence) / no route")
    print("   Supported requests refused = no route; unsupported requests accepted = route or uncertain")
    rows = []
    for group in GROUPS:
        for mode in modes:
            groups = report["modes"][mode]["groups"][group]
            sup = groups["supported"]["all"]["verdicts"]
            cells = [f"{group} / supported", mode, "/".join(f"{sup[v + '_share']:.3f}" for v in VERDICTS)]
            rows.append(cells)
            for kind, acc in groups["unsupported"].items():
                if kind == "all":
                    continue
                v = acc["verdicts"]
                rows.append([f"{group} / {kind}", mode, "/".join(f"{v[x + '_share']:.3f}" for x in VERDICTS)])
    _table(["group / requests", "mode", "route / uncertain / no route"], rows)
    print()
    print("1+3. Supported requests: gold tool not in the default allow-set, by cause")
    print("     (a) no route at all, (b) gate dropped the gold tool (or did not rank it), (c) lost to k")
    head = [
        "group / wording",
        "mode",
        "requests",
        "served",
        "all gold in",
        "refused",
        "(a) no route",
        "(b) gate",
        "of (b) not ranked",
        "(c) k",
        "tools shown",
    ]
    rows: list[list[str]] = []
    for group in GROUPS:
        for wording in ("all", "plain", "paraphrased"):
            for mode in modes:
                r = report["modes"][mode]["groups"][group]["supported"][wording]
                n = r["requests"]
                rows.append(
                    [
                        f"{group} / {wording}",
                        mode,
                        str(n),
                        _count(r["served"], r["served_share"]),
                        _count(r["all_gold_in"], r["all_gold_in_share"]),
                        _count(r["refused"], r["refused_share"]),
                        _count(r["no_route"], r["no_route_share"]),
                        _count(r["gate"], r["gate_share"]),
                        str(r["gate_not_ranked"]),
                        _count(r["k"], r["k_share"]),
                        f"{r['mean_shown']:.2f}",
                    ]
                )
    _table(head, rows)
    print()
    print("2. Unsupported requests accepted (routed at least one tool)")
    rows = []
    for group in GROUPS:
        kinds = list(report["modes"][modes[0]]["groups"][group]["unsupported"])
        for kind in kinds:
            rows.append(
                [
                    f"{group} / {kind}",
                    str(report["modes"][modes[0]]["groups"][group]["unsupported"][kind]["requests"]),
                ]
                + [
                    _count(a["accepted"], a["accepted_share"])
                    for a in (report["modes"][m]["groups"][group]["unsupported"][kind] for m in modes)
                ]
            )
    _table(["group / unsupported", "requests", *modes], rows)
    print()
    print("5. Confidence (best Candidate.score of retrieve(k=5), 0 when none): supported vs unsupported")
    print("   AUROC, false acceptance at 5% / 10% over-rejection (threshold set on this half), and the share")
    print("   of supported requests at confidence 0 (above that over-rejection, a threshold accepts all)")
    rows = []
    for group in GROUPS:
        for pair in report["modes"][modes[0]]["groups"][group]["confidence"]:
            first = report["modes"][modes[0]]["groups"][group]["confidence"][pair]
            row = [f"{group} / {pair}", f"{first['supported']}/{first['unsupported']}"]
            for mode in modes:
                c = report["modes"][mode]["groups"][group]["confidence"][pair]
                row.append(
                    f"{_num(c['auroc'])}  {_num(c['false_acceptance_at_5'])} / "
                    f"{_num(c['false_acceptance_at_10'])}  {_num(c['supported_at_zero_share'])}"
                )
            rows.append(row)
    _table(
        [
            "group / supported vs unsupported",
            "n sup/uns",
            *(f"{m}: AUROC  FA@5 / FA@10  sup@0" for m in modes),
        ],
        rows,
    )
    print()
    print("Why supported requests are refused: `Retrieval.reason: gold tools' reasons` for (a), the gold")
    print("tools' reasons for (b) and (c); `_unreported` = read with k = every tool; most frequent first")
    for group in GROUPS:
        for mode in modes:
            details: Counter[str] = Counter(
                report["modes"][mode]["groups"][group]["supported"]["all"]["details"]
            )
            shown = sorted(details.items(), key=lambda item: (-item[1], item[0]))[:REASONS_SHOWN]
            more = len(details) - len(shown)
            print(
                f"  {group}, {mode}: "
                + "; ".join(f"{n} {detail}" for detail, n in shown)
                + (f"; ({more} more)" if more > 0 else "")
            )
    print()
    print(
        f"Most refused small-catalog supported requests (refusals = (mode, server) pairs refusing it; top {TOP_REFUSED})"
    )
    for item in report["most_refused_small"]:
        text = " ".join(item["query"].split())
        text = text if len(text) <= 110 else text[:107] + "..."
        print(f"  {item['refusals']}x [{item['wording']}] {text}")
        for on in item["on"]:
            print(f"       {on['mode']:<7} {on['server']} {on['gold']}: ({on['cause']}) {on['detail']}")
    print()
    print(f"What the model is offered, supported requests (k={report['k']}): {offer_columns()}")
    for group in GROUPS:
        for mode in modes:
            summary = report["modes"][mode]["offers"][group]
            print(f"  {group:<13} {mode:<8} {format_offers(summary)}")
    print()
    for mode in modes:
        differs = report["modes"][mode]["allow_set_differs_from_retrieve"]
        print(
            f"{mode}: allow-sets differing from retrieve's kept tools: {differs}; ran in {report['seconds'][mode]:.1f} s"
        )


def main(argv: Sequence[str] | None = None) -> int:
    return run_report_cli(
        argv, __doc__, MODES, run, print_report, "cap each request list, for a quick run", runner_ups=True
    )


if __name__ == "__main__":
    raise SystemExit(main())
