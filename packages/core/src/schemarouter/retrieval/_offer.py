"""What a request is offered in lexical mode: the no-route gate's verdicts, filled from the ranking
as the abstention policy says (`RetrievalAbstentionPolicy.offer`), made into a `Retrieval`.

The gate decides two things: whether a request routes at all (no route is left for requests
with no evidence for any tool) and which tools are confident (what the selective execution
boundary may run). It does not decide how many tools a model sees: by default (`top_k`) a
request that is not a no-route is offered the ranking's first k tools with any evidence, the
confident ones marked routed and the rest uncertain. Measured on the development data, the
gate tells a fitting tool from a near miss too poorly to hide one, and five tools cost a few
hundred bytes (see docs/decisions.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ._abstention import DEFAULT_ABSTENTION, RetrievalAbstentionPolicy
from ._evidence import DEFAULT_GATE, GateSettings, match_evidence, routing_score, signals, term_evidence
from ._gate import (
    UNCERTAIN_WHEN,
    GateRanking,
    Verdict,
    _rows,  # pyright: ignore[reportPrivateUsage]
    kept_docs,
    no_route_reason,
    rank_for_gate,
    runner_up_verdicts,
    uncertain_count,
    uncertain_verdicts,
    unrouted_reason,
    verdicts,
)
from ._index import LexicalIndex
from ._offered import Offered, Scored
from ._results import Candidate, Retrieval, RouteReason

__all__ = ["FILL_RANK_SHARE", "LexicalGate", "gate", "offer_verdicts", "refused_verdicts", "top_k_verdicts"]


FILL_RANK_SHARE = 0.4
"""In lexical mode, an offer (`offer="top_k"`) is filled only with tools whose BM25F ranking score
is at least this share of the best ranked tool's, or that a request word names (identifier
evidence): the far tail of the ranking is cut, and a tool whose name or title is a list of
topics stays out of honest allow-sets. Chosen on the dev half of the development data (see
docs/decisions.md, "Offers keep the ranking's top k"). find-tools (`offer="search"`) is not cut."""


def top_k_verdicts(
    ranking: GateRanking,
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
    breadth: Callable[[int], float] | None = None,
) -> list[Verdict]:
    """The offer filled to `k` from the ranking: the tools the gate keeps (`kept_docs`: a
    preferred route, then the confident ones, in rank order), then the best ranked tools with
    any gate evidence for the request, marked `uncertain`, up to `k` in all, each named by a
    request word or ranked at least `FILL_RANK_SHARE` of the best (any, for `offer="search"`); none hidden by a
    static rule. A tool the request matched only through a loose form (a prefix) has no
    evidence and is never offered as uncertain. A broad tool (`breadth(doc)`, its
    `LexicalIndex.content_factor`, under 1: it lists more distinct words than a focused tool)
    fills no offer unless a request word names it: words spread that thin are no evidence of
    fit, and a description stuffed with everyday words would otherwise sit in every offer
    (find-tools' search may still reach it: its ranking counts each of its words less)."""
    confident = kept_docs(ranking, k, policy, settings, hidden)
    out = _kept_verdicts(ranking, confident, settings)
    if len(out) >= k:
        return out
    skip = set(confident)
    rule = policy if policy is not None else DEFAULT_ABSTENTION
    # the best ranked tool with evidence (not one matched through a prefix alone) sets the floor
    best = max((rank for _, rank, total, _ in _rows(ranking.ranked) if total > 0.0), default=0.0)
    searching = rule.offer == "search"
    floor = 0.0 if searching else best * FILL_RANK_SHARE
    broad = None if searching else breadth
    for doc, rank_score, total, identifier in _rows(ranking.ranked):
        if total <= 0.0 or doc in skip or (hidden and doc in hidden):
            continue
        if identifier <= 0.0 and (rank_score < floor or (broad is not None and broad(doc) < 1.0)):
            continue  # far down the ranking, or too broad to judge, and no request word names it
        score = routing_score(total, rank_score, ranking.unit, settings)
        out.append(Verdict(doc, score, identifier, rank_score, False, "uncertain"))
        if len(out) >= k:
            break
    return out


def _kept_verdicts(ranking: GateRanking, docs: list[int], settings: GateSettings) -> list[Verdict]:
    """`kept_docs`'s tools as kept verdicts, in its order."""
    rows = {row[0]: row for row in _rows(ranking.ranked)}
    out: list[Verdict] = []
    for doc in docs:
        _, rank_score, total, identifier = rows[doc]
        score = routing_score(total, rank_score, ranking.unit, settings)
        reason = "preferred_route" if doc == ranking.preferred_doc else "routed"
        out.append(Verdict(doc, score, identifier, rank_score, True, reason))
    return out


def offer_verdicts(
    index: LexicalIndex,
    ranking: GateRanking,
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
) -> tuple[list[Verdict], RouteReason]:
    """What one ranked request is offered under `policy`: the verdicts of the tools offered, in
    the order offered (kept ones routed with confidence, the others `uncertain`), and the
    request's reason. Nothing offered is a no-route, and the reason says why.

    - `offer="top_k"` (the default): the confident tools, then the ranking's best with any
      evidence, k in all (see `top_k_verdicts`), unless the request is a no-route: no tool
      earns a route and none has weak evidence (see `uncertain_verdicts`), or static rules hide
      every tool that would route. With `uncertain_tools=0`, the confident tools alone.
    - `offer="gated"`: the confident tools; when there is none, the best `uncertain_tools` with
      weak evidence; after fewer than k confident ones, up to `runner_ups` of them.
    - `offer="search"`: as `top_k`, whatever the request as a whole comes to.
    """
    rule = policy if policy is not None else DEFAULT_ABSTENTION
    if rule.fills():
        offered = top_k_verdicts(ranking, k, policy, settings, hidden, index.content_factor)
        if any(v.kept for v in offered):
            return offered, "routed"
        if rule.offer == "search":
            return offered, "weak_evidence" if offered else no_route_reason(ranking, [], [])
        unrouted, _ = unrouted_reason(ranking, k, policy, settings, hidden)
        if offered and unrouted in UNCERTAIN_WHEN and uncertain_verdicts(index, ranking, 1, settings, hidden):
            return offered, "weak_evidence"
        return [], unrouted
    confident = kept_docs(ranking, k, policy, settings, hidden)
    if confident:
        ups = runner_up_verdicts(index, ranking, confident, k, policy, settings, hidden)
        return _kept_verdicts(ranking, confident, settings) + ups, "routed"
    unrouted, _ = unrouted_reason(ranking, k, policy, settings, hidden)
    if unrouted in UNCERTAIN_WHEN:
        uncertain = uncertain_verdicts(index, ranking, min(k, uncertain_count(policy)), settings, hidden)
        if uncertain:
            return uncertain, "weak_evidence"
    return [], unrouted


def refused_verdicts(
    ranking: GateRanking,
    offered: list[Verdict],
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
) -> list[Verdict]:
    """The tools not `offered`, best ranked first, with why (at most
    `settings.reported_dropped` besides the hidden ones): a static rule, the gate's reason, or
    `beyond_k` for a tool the gate would keep past the offer; when the offer was filled from the
    ranking, also for a tool with evidence too weak to route (only k hid it). A tool under the
    policy's `min_score` keeps that reason."""
    # k=0: every tool past the offer that the gate would keep is reported `beyond_k`
    _, dropped = verdicts(ranking, 0, policy, settings, hidden, offered={v.doc for v in offered})
    if not offered or not (policy if policy is not None else DEFAULT_ABSTENTION).fills():
        return dropped
    hidden = hidden or {}
    weak = ("weak_evidence", "no_identifier_signal")
    return [
        v._replace(reason="beyond_k") if v.score > 0.0 and v.reason in weak and v.doc not in hidden else v
        for v in dropped
    ]


def gate(
    index: LexicalIndex,
    query: str,
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    preferred_route: str | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
    explain: bool = True,
) -> Retrieval:
    """Rank `query` over `index` and offer what `policy` says (see `offer_verdicts`): at most `k`
    tools, those kept with confidence in `Retrieval.candidates`, the rest in `uncertain`.

    `hidden` maps tools (by position) that static rules hide to the rule's reason: they are
    reported as dropped with that reason and do not use up `k`. At most
    `settings.reported_dropped` other refusals are reported, best ranked first (a tool the gate
    would route, past the ones offered, as `beyond_k`). With `explain=False` candidates carry
    no `signals` (scores, reasons and decisions are the same).
    """
    ranking = rank_for_gate(index, query, k, preferred_route, settings, hidden)
    offered, reason = offer_verdicts(index, ranking, k, policy, settings, hidden)
    kept = [v for v in offered if v.kept]
    uncertain = [v for v in offered if not v.kept]
    dropped = refused_verdicts(ranking, offered, policy, settings, hidden)
    terms = ranking.terms
    evidence = match_evidence(index, terms, settings) if explain else []
    caps = ranking.tools

    def candidate(verdict: Verdict) -> Candidate:
        cap = caps[verdict.doc]
        return Candidate(
            route=cap.route,
            name=cap.name,
            source=cap.source,
            score=round(verdict.score, 6),
            identifier_score=round(1.0 - math.exp(-verdict.identifier), 6),
            signals=signals(index, verdict.doc, terms, evidence) if explain else (),
            kept=verdict.kept,
            reason=verdict.reason,
            rank_score=round(verdict.rank_score, 6),
        )

    return Retrieval(
        query=query,
        k=k,
        catalog_version=index.catalog.version,
        candidates=tuple(candidate(v) for v in kept),
        dropped=tuple(candidate(v) for v in dropped),
        no_route=not offered,
        reason=reason,
        matched=ranking.ranked.matched or 0,
        uncertain=tuple(candidate(v) for v in uncertain),
    )


_NO_HIDDEN: Mapping[int, str] = {}
_RULE_SETS = 64
"""Rule sets whose hidden positions a gate remembers at most."""


def _scored(tools: Sequence[Capability], verdicts: list[Verdict]) -> list[Scored]:
    return [(tools[v.doc], round(v.score, 6), v.reason) for v in verdicts]


class LexicalGate:
    """The lexical index read through the no-route gate: what a router ranks with in lexical
    mode, and the lexical side of hybrid mode (a `LexicalRetriever`)."""

    def __init__(self, index: LexicalIndex, settings: GateSettings = DEFAULT_GATE) -> None:
        self.index = index
        self.settings = settings
        self._hidden: dict[int, tuple[Mapping[str, str], Mapping[int, str]]] = {}

    def offer(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None,
        hidden_routes: Mapping[str, str],
    ) -> Offered:
        """What `query` is offered, the tools of `hidden_routes` (a static rule's) aside: the walk
        stops at the k-th tool kept past them, and the refusals are gathered only when read."""
        hidden = self._hidden_docs(hidden_routes)
        index = self.index
        ranking = rank_for_gate(index, query, k, hidden=hidden, count=False)
        tools = ranking.tools
        offered, reason = offer_verdicts(index, ranking, k, policy, hidden=hidden)

        def report() -> tuple[list[Scored], list[Scored]]:
            dropped = refused_verdicts(ranking, offered, policy, hidden=hidden)
            return _scored(tools, offered), _scored(tools, dropped)

        weak = frozenset(tools[v.doc].route for v in offered if not v.kept)
        return Offered([tools[v.doc] for v in offered], reason, report, weak)

    def _hidden_docs(self, hidden_routes: Mapping[str, str]) -> Mapping[int, str]:
        """`hidden_routes` by position in the index, worked out once per rules object: several
        `Visibility` objects (one per tenant, say) may share this router, each with its own rules.
        The rules object is held with its entry, so its `id` cannot be reused meanwhile."""
        if not hidden_routes:
            return _NO_HIDDEN
        entry = self._hidden.get(id(hidden_routes))
        if entry is not None and entry[0] is hidden_routes:
            return entry[1]
        index = self.index
        hidden = {
            doc: rule for route, rule in hidden_routes.items() if (doc := index.doc_of(route)) is not None
        }
        if len(self._hidden) >= _RULE_SETS:
            self._hidden.clear()  # rules made and dropped over and over: start over, bounded
        self._hidden[id(hidden_routes)] = (hidden_routes, hidden)
        return hidden

    @property
    def catalog(self) -> Catalog:
        return self.index.catalog

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
    ) -> Retrieval:
        """The gated retrieval of `query` (see `gate`); `explain=False` leaves out the signals."""
        return gate(self.index, query, k, policy, preferred_route, self.settings, explain=explain)

    def corrected_text(self, query: str) -> str:
        """`query` with misspelt words replaced by what the index reads them as."""
        return self.index.analyzer.corrected_text(query)

    def action_factors(self, query: str) -> dict[int, float]:
        """How the action `query` asks for scales the ranking score of the tools it names, by
        how well each one's action agrees (tool positions in route order -> factor; see
        `LexicalIndex.rank`); empty when it scales none."""
        index, settings = self.index, self.settings
        boost = index.sibling_factors(query, settings, lambda qt: term_evidence(index, qt, settings))
        if boost is None:
            return {}
        tools: list[int] = boost[0].tolist()
        factors: list[float] = boost[1].tolist()
        return {tool: factor for tool, factor in zip(tools, factors, strict=True) if factor != 1.0}

    def content_factors(self, routes: Sequence[str]) -> list[float]:
        """What each word of each tool's description and parameters is worth (`_breadth`), for
        `routes` in the order given (1.0 for a route the catalog does not have)."""
        index = self.index
        return [
            1.0 if (doc := index.doc_of(route)) is None else index.content_factor(doc) for route in routes
        ]
