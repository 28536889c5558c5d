"""The no-route gate: which ranked tools may be routed at all, and why the others are not.

A lexical score ranks; it does not say whether any tool fits. The gate reads, for each
competing tool, which query words hit which of its fields, and weighs every hit by how
rare the matched word is in the catalog and how unusual it is in everyday English. Hits on
the tool's identifiers (name, title) count fully; hits elsewhere count less. A tool is kept
only when that evidence clears a floor: a specific word naming the tool, or several
specific words of its description together. Stop-word or everyday-word overlap never
clears it. The calibrated `RetrievalAbstentionPolicy.min_score` applies on top. What each hit
is worth, and the settings of both, are in `_evidence`.

A candidate's `score` (what `min_score` and calibration threshold) blends that evidence with
the tool's BM25F ranking score, read in units of the catalog's highest term weight: evidence
says which specific words the tool explains, the ranking score how strongly and in which
fields, and a request that needs no tool tends to be weak on one of the two.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import NamedTuple

from ..analysis._breadth import CONTENT_MASK
from ..analysis._terms import QueryTerm
from ..catalog._capability import Capability
from ._abstention import DEFAULT_ABSTENTION, RetrievalAbstentionPolicy
from ._evidence import (
    DEFAULT_GATE,
    IDENTIFIER_MASK,
    UNCERTAIN_SPECIFICITY,
    GateSettings,
    hit,
    routing_score,
    term_evidence,
)
from ._index import LexicalIndex, MatchEvidence, Ranked
from ._results import RouteReason

__all__ = [
    "DEFAULT_GATE",
    "UNCERTAIN_SPECIFICITY",
    "UNCERTAIN_WHEN",
    "GateRanking",
    "GateSettings",
    "Verdict",
    "kept_docs",
    "no_route_reason",
    "rank_for_gate",
    "runner_up_count",
    "runner_up_verdicts",
    "uncertain_count",
    "uncertain_verdicts",
    "unrouted_reason",
    "verdicts",
]


def uncertain_count(policy: RetrievalAbstentionPolicy | None) -> int:
    """How many tools an uncertain outcome offers under `policy` (the default policy's without one)."""
    return (policy if policy is not None else DEFAULT_ABSTENTION).uncertain_tools


def runner_up_count(policy: RetrievalAbstentionPolicy | None, k: int, confident: int) -> int:
    """How many weak-evidence tools may follow `confident` confidently routed ones under
    `policy` and `k` (none when nothing is routed: that is the uncertain outcome's case)."""
    if confident <= 0:
        return 0
    ups = (policy if policy is not None else DEFAULT_ABSTENTION).runner_ups
    return max(0, min(ups, k - confident))


def _floors(settings: GateSettings, policy: RetrievalAbstentionPolicy | None) -> tuple[float, float, float]:
    """The evidence floor and the identifier floor (unbounded, as evidence is), and the policy's
    `min_score` (0 without a policy)."""
    min_score = policy.min_score if policy is not None else 0.0
    evidence, identifier = settings.unbounded_floors
    return evidence, identifier, min_score


def _rows(ranked: Ranked) -> Iterator[tuple[int, float, float, float]]:
    """Each ranked tool, best first: (position, ranking score, evidence, identifier evidence)."""
    return zip(ranked.docs, ranked.rank_scores, ranked.support, ranked.named, strict=True)


class Verdict(NamedTuple):
    """The gate's decision on one ranked tool, with the exact floats it was decided on."""

    doc: int
    score: float
    """The routing score in [0, 1) (`Candidate.score` is this, rounded)."""
    identifier: float
    """Evidence that the query names the tool (unbounded; `Candidate.identifier_score` bounds it)."""
    rank_score: float
    kept: bool
    reason: str


class GateRanking(NamedTuple):
    """One request ranked for the gate: its terms and its best-ranked tools with their evidence.

    Holds no reference to the index, so a deferred report (`AllowSet.decisions`) does not
    keep an old catalog version's index alive.
    """

    tools: tuple[Capability, ...]
    """The catalog's tools in the index's (route) order; `ranked.docs` are positions in it."""
    terms: tuple[QueryTerm, ...]
    ranked: Ranked
    preferred_doc: int | None
    unit: float
    """The index's highest term weight: ranking scores are read in units of it."""


def rank_for_gate(
    index: LexicalIndex,
    query: str,
    k: int,
    preferred_route: str | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
    count: bool = True,
) -> GateRanking:
    """Rank `query` deep enough for the gate to keep `k` tools past the `hidden` ones.

    Without `count`, the tools matched are not counted (`Ranked.matched` is None).
    """
    terms, action = index.analyzer.read(query)
    preferred_doc = index.doc_of(preferred_route) if preferred_route is not None else None
    depth = max(settings.min_depth, 4 * k)
    if hidden:
        depth += min(len(hidden), depth)
    ranked = index.rank(
        terms,
        depth,
        settings,
        lambda qt: term_evidence(index, qt, settings),
        preferred_doc,
        count,
        action,
        settings.action_evidence,
    )
    return GateRanking(index.capabilities, terms, ranked, preferred_doc, index.max_idf)


def verdicts(
    ranking: GateRanking,
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
    offered: Collection[int] = (),
) -> tuple[list[Verdict], list[Verdict]]:
    """The gate's verdicts on the ranked tools, in rank order: at most `k` kept, and refusals.

    Refusals are the `hidden` tools (with the rule's reason; they do not use up `k`) and at
    most `settings.reported_dropped` others, best ranked first; tools `offered` in an uncertain
    outcome are left out of them. `kept_docs` gives the kept tools alone, for callers that read
    the refusals later or never.
    """
    ranked = ranking.ranked
    kept: list[Verdict] = []
    dropped: list[Verdict] = []
    if not ranked.docs:
        return kept, dropped
    evidence_floor, identifier_floor, min_score = _floors(settings, policy)
    unit = ranking.unit
    preferred_doc = ranking.preferred_doc
    hidden_left = sum(doc in hidden for doc in ranked.docs) if hidden else 0
    reported = settings.reported_dropped
    for doc, rank_score, total, identifier in _rows(ranked):
        if len(kept) >= k and len(dropped) >= reported and not hidden_left:
            break  # nothing further can be kept or reported
        rule = hidden.get(doc) if hidden else None
        if rule is None and len(dropped) >= reported and len(kept) >= k:
            continue  # could only be refused, and enough refusals are reported
        if offered and doc in offered:
            continue  # offered as uncertain: neither kept nor refused
        score = routing_score(total, rank_score, unit, settings)
        # (`kept_docs` restates this decision for the kept tools alone)
        if rule is not None:
            hidden_left -= 1
            reason = rule
        elif doc == preferred_doc:
            reason = "preferred_route"
        elif total < evidence_floor and identifier < identifier_floor:
            reason = "no_identifier_signal" if identifier == 0.0 else "weak_evidence"
        elif round(score, 6) < min_score:  # the score as reported: a threshold read off one keeps it
            reason = "below_min_score"
        else:
            reason = "routed"
        keep = reason == "routed" or reason == "preferred_route"
        if keep and len(kept) >= k:
            reason, keep = "beyond_k", False
        if not keep and rule is None and len(dropped) >= reported:
            continue
        (kept if keep else dropped).append(Verdict(doc, score, identifier, rank_score, keep, reason))
    return kept, dropped


def kept_docs(
    ranking: GateRanking,
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
) -> list[int]:
    """The tools `verdicts` keeps, best ranked first, without their verdicts or any refusal.

    The walk down the ranking stops at the k-th kept tool. A tool is kept when no static
    rule hides it and it is the preferred route, or its evidence clears a floor and its
    routing score reaches the policy's `min_score` (scored only when there is one).
    """
    evidence_floor, identifier_floor, min_score = _floors(settings, policy)
    preferred_doc = ranking.preferred_doc
    kept: list[int] = []
    for doc, rank_score, total, identifier in _rows(ranking.ranked):
        if hidden and doc in hidden:
            continue
        if doc != preferred_doc:
            if total < evidence_floor and identifier < identifier_floor:
                continue
            if (
                min_score > 0.0
                and round(routing_score(total, rank_score, ranking.unit, settings), 6) < min_score
            ):
                continue
        kept.append(doc)
        if len(kept) >= k:
            break
    return kept


def _names_a_purpose(
    index: LexicalIndex,
    doc: int,
    terms: tuple[QueryTerm, ...],
    settings: GateSettings,
    evidence: dict[int, list[MatchEvidence]],
) -> bool:
    """Does a request word that is specific enough (`settings.uncertain_specificity`, read off the
    word's most common form, and scaled by the tool's `content_factor` when it hits only the
    tool's description or parameters) hit this tool with a match that counts as gate evidence?
    `evidence` holds each term's match evidence once worked out (term position -> row)."""
    floor = settings.uncertain_specificity
    for i, j, mask in index.doc_hits(doc, terms):
        qt = terms[i]
        specific = qt.base_specificity
        if specific < floor:
            continue
        # in a broad tool, a word hitting its description or parameters must be all the more
        # specific (`_breadth`)
        descriptive = mask & CONTENT_MASK and not mask & IDENTIFIER_MASK
        if descriptive and specific * index.content_factor(doc) < floor:
            continue
        row = evidence.get(i)
        if row is None:
            row = evidence[i] = term_evidence(index, qt, settings)
        if hit(mask, row[j]) > 0.0:
            return True
    return False


def uncertain_verdicts(
    index: LexicalIndex,
    ranking: GateRanking,
    count: int,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
    skip: Collection[int] = (),
    min_score: float = 0.0,
) -> list[Verdict]:
    """For a ranking the gate keeps nothing of: the best `count` ranked tools with weak evidence,
    none hidden by a static rule, as `uncertain` verdicts in rank order (the `uncertain` outcome).

    Weak evidence is a request word naming the tool (any identifier evidence: "what time is it"
    for `get_current_time`, though "time" is everyday English), or a word at least
    `settings.uncertain_specificity` specific hitting its other fields. Everyday words in a
    description, or a hit on argument text alone, are not enough. Only the first tools of the
    ranking are examined (the ranking's depth). Tools in `skip` (those routed with confidence,
    for `runner_up_verdicts`) are passed over, and so are tools that do not name the request
    (no identifier evidence) and score under `min_score`.
    """
    out: list[Verdict] = []
    if count <= 0:
        return out
    evidence: dict[int, list[MatchEvidence]] = {}
    for doc, rank_score, total, identifier in _rows(ranking.ranked):
        if total <= 0.0 or (hidden and doc in hidden) or (skip and doc in skip):
            continue
        score = routing_score(total, rank_score, ranking.unit, settings)
        if identifier <= 0.0 and (
            score < min_score or not _names_a_purpose(index, doc, ranking.terms, settings, evidence)
        ):
            continue
        out.append(Verdict(doc, score, identifier, rank_score, False, "uncertain"))
        if len(out) >= count:
            break
    return out


def runner_up_verdicts(
    index: LexicalIndex,
    ranking: GateRanking,
    kept: Sequence[int],
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
) -> list[Verdict]:
    """After the `kept` tools of a confident route: the best ranked tools with weak evidence (as
    `uncertain_verdicts` reads it), at most `RetrievalAbstentionPolicy.runner_ups` and never
    past `k` tools in all, as `uncertain` verdicts in rank order."""
    count = runner_up_count(policy, k, len(kept))
    if count <= 0:
        return []
    skip = frozenset(kept)
    unit = ranking.unit
    best = max(
        (
            routing_score(total, rank, unit, settings)
            for doc, rank, total, _ in _rows(ranking.ranked)
            if doc in skip
        ),
        default=0.0,
    )
    floor = best * settings.runner_up_share
    return uncertain_verdicts(index, ranking, count, settings, hidden, skip=skip, min_score=floor)


UNCERTAIN_WHEN: frozenset[RouteReason] = frozenset({"gate_refused_all", "below_min_score"})
"""The no-route reasons an uncertain offer may replace: some tool matched, none earned a route.
A request whose confident tools static rules hide (`static_rules_hid_all`) offers nothing else."""


def no_route_reason(ranking: GateRanking, kept: list[Verdict], dropped: list[Verdict]) -> RouteReason:
    """Why the request routes or not, from its `verdicts` (static rules aside: see
    `unrouted_reason`)."""
    if kept:
        return "routed"
    if not ranking.terms:
        return "no_content_words"
    if not ranking.ranked.docs:
        return "no_terms_matched"
    if any(v.reason == "below_min_score" for v in dropped):
        return "below_min_score"
    return "gate_refused_all"


def _only_hidden_pass(
    ranking: GateRanking,
    policy: RetrievalAbstentionPolicy | None,
    settings: GateSettings,
    hidden: Mapping[int, str] | None,
) -> bool:
    """For a ranking that keeps nothing past the `hidden` tools: would the gate keep one of them?"""
    return bool(hidden) and bool(kept_docs(ranking, 1, policy, settings))


def unrouted_reason(
    ranking: GateRanking,
    k: int,
    policy: RetrievalAbstentionPolicy | None = None,
    settings: GateSettings = DEFAULT_GATE,
    hidden: Mapping[int, str] | None = None,
) -> tuple[RouteReason, tuple[list[Verdict], list[Verdict]] | None]:
    """Why nothing is routed, for a ranking `kept_docs` keeps nothing of; and the verdicts, when
    saying why took them.

    `static_rules_hid_all` when the gate would keep a tool that a static rule hides. Only a
    policy threshold refuses a tool for its score (`below_min_score`): without one, the
    reason follows from the ranking alone and no verdict is worked out.
    """
    if _only_hidden_pass(ranking, policy, settings, hidden):
        return "static_rules_hid_all", None
    if policy is None or policy.min_score <= 0.0:
        return no_route_reason(ranking, [], []), None
    full = verdicts(ranking, k, policy, settings, hidden)
    return no_route_reason(ranking, *full), full
