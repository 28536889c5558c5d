"""The no-route gate: which ranked tools may be routed at all, and why the others are not.

A lexical score ranks; it does not say whether any tool fits. The gate reads, for each
competing tool, which query words hit which of its fields, and weighs every hit by how
rare the matched word is in the catalog and how unusual it is in everyday English. Hits on
the tool's identifiers (name, title) count fully; hits elsewhere count less. A tool is kept
only when that evidence clears a floor: a specific word naming the tool, or several
specific words of its description together. Stop-word or everyday-word overlap never
clears it. The calibrated `RetrievalAbstentionPolicy.min_score` applies on top.

A candidate's `score` (what `min_score` and calibration threshold) blends that evidence with
the tool's BM25F ranking score, read in units of the catalog's highest term weight: evidence
says which specific words the tool explains, the ranking score how strongly and in which
fields, and a request that needs no tool tends to be weak on one of the two.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ._abstention import RetrievalAbstentionPolicy
from ._fields import FIELDS, IDENTIFIER_FIELDS
from ._index import LexicalIndex, QueryTerm
from ._results import Candidate, Retrieval, Signal

__all__ = ["GateSettings", "gate"]

_FIELD_BIT = {name: 1 << i for i, name in enumerate(FIELDS)}
_IDENTIFIER_MASK = sum(_FIELD_BIT[f] for f in IDENTIFIER_FIELDS)


@dataclass(frozen=True, slots=True)
class GateSettings:
    """Floors of the gate. `score` and `identifier_score` are both in [0, 1)."""

    other_field_factor: float = 0.7
    """Evidence of a hit outside the identifiers, relative to an identifier hit."""
    other_field_power: float = 2.0
    """Outside the identifiers, specificity counts this many times: everyday words stuffed into a
    description add up to little."""
    prefix_evidence: float = 0.0
    """Evidence of a prefix match (`dealer` / `dealership`): it helps ranking, but is too loose to route."""
    identifier_floor: float = 0.25
    """A tool whose identifier evidence reaches this is kept (the query names it)."""
    evidence_floor: float = 0.3
    """A tool whose total evidence reaches this is kept even without an identifier hit."""
    rank_weight: float = 0.5
    """Share of the routing score taken from the BM25F ranking score (per unit of the catalog's
    highest term weight), geometric with the gate evidence; 0 = evidence alone."""
    min_depth: int = 32
    """Ranked tools examined at least (more when k is large)."""
    reported_dropped: int = 10
    """Refused tools reported with their reasons, best ranked first (the rest are counted)."""


DEFAULT_GATE = GateSettings()


def _bounded(evidence: float) -> float:
    return 1.0 - math.exp(-evidence)


def _unbounded(score: float) -> float:
    return -math.log(1.0 - min(score, 0.999999))


def _blend(total: float, rank_score: float, index: LexicalIndex, weight: float) -> float:
    if weight <= 0.0 or total <= 0.0:
        return total
    ranked = rank_score / index.max_idf
    return total ** (1.0 - weight) * ranked**weight


def _match_evidence(
    index: LexicalIndex, terms: tuple[QueryTerm, ...], settings: GateSettings
) -> list[list[tuple[float, float]]]:
    """Per query term and match: the evidence of a hit on an identifier, and elsewhere."""
    out: list[list[tuple[float, float]]] = []
    for qt in terms:
        row: list[tuple[float, float]] = []
        for match in qt.matches:
            factor = settings.prefix_evidence if match.kind == "prefix" else match.quality
            rarity = index.rarity(match.term) * factor
            on_name = rarity * qt.specificity
            elsewhere = rarity * qt.specificity**settings.other_field_power * settings.other_field_factor
            row.append((on_name, elsewhere))
        out.append(row)
    return out


def _signals(
    index: LexicalIndex,
    doc: int,
    terms: tuple[QueryTerm, ...],
    evidence: list[list[tuple[float, float]]],
) -> tuple[Signal, ...]:
    """The signals behind one tool's score: which query word hit which field, with what evidence."""
    signals: list[Signal] = []
    position = {id(qt): i for i, qt in enumerate(terms)}
    for qt, match, mask in index.doc_hits(doc, terms):
        on_name, elsewhere = evidence[position[id(qt)]][qt.matches.index(match)]
        weight = round(on_name if mask & _IDENTIFIER_MASK else elsewhere, 6)
        for name in FIELDS:
            if mask & _FIELD_BIT[name]:
                signals.append(Signal(qt.surface, name, weight))
    return tuple(signals)


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
    """Rank `query` over `index`, keep at most `k` tools that pass the gate and the policy.

    `hidden` maps tools (by position) that static rules hide to the rule's reason: they
    are reported as dropped with that reason and do not use up `k`. With `explain=False`
    candidates carry no `signals` (scores, reasons and decisions are the same): for callers
    such as `Visibility` that report decisions, not the evidence behind them.
    """
    terms = index.query_terms(query)
    evidence = _match_evidence(index, terms, settings)
    hidden = hidden or {}
    caps = index.capabilities
    preferred_doc = index.doc_of(preferred_route) if preferred_route is not None else None
    depth = max(settings.min_depth, 4 * k)
    depth += min(len(hidden), depth)
    ranked, matched = index.rank(terms, depth, preferred_doc)
    min_score = policy.min_score if policy is not None else 0.0
    evidence_floor = _unbounded(settings.evidence_floor)
    identifier_floor = _unbounded(settings.identifier_floor)
    kept: list[Candidate] = []
    dropped: list[Candidate] = []
    hidden_left = sum(doc in hidden for doc, _ in ranked) if hidden else 0
    support, named = index.evidence_arrays(terms, evidence)
    ranked_docs = [doc for doc, _ in ranked]
    totals: list[float] = support[ranked_docs].tolist()
    identifiers: list[float] = named[ranked_docs].tolist()
    for (doc, rank_score), total, identifier in zip(ranked, totals, identifiers, strict=True):
        if len(kept) >= k and len(dropped) >= settings.reported_dropped and not hidden_left:
            break  # nothing further can be kept or reported
        if doc in hidden:
            hidden_left -= 1
        score = _bounded(_blend(total, rank_score, index, settings.rank_weight))
        if doc in hidden:
            reason = hidden[doc]
        elif doc == preferred_doc:
            reason = "preferred_route"
        elif total < evidence_floor and identifier < identifier_floor:
            reason = "no_identifier_signal" if identifier == 0.0 else "weak_evidence"
        elif score < min_score:
            reason = "below_min_score"
        else:
            reason = "routed"
        if reason in ("routed", "preferred_route") and len(kept) >= k:
            reason = "beyond_k"
        keep = reason in ("routed", "preferred_route")
        if not keep and len(dropped) >= settings.reported_dropped and doc not in hidden:
            continue
        cap = caps[doc]
        candidate = Candidate(
            route=cap.route,
            name=cap.name,
            source=cap.source,
            score=round(score, 6),
            identifier_score=round(_bounded(identifier), 6),
            signals=_signals(index, doc, terms, evidence) if explain else (),
            kept=keep,
            reason=reason,
            rank_score=round(rank_score, 6),
        )
        (kept if keep else dropped).append(candidate)
    if kept:
        reason = "routed"
    elif not terms:
        reason = "no_content_words"
    elif not matched:
        reason = "no_terms_matched"
    elif any(c.reason == "below_min_score" for c in dropped):
        reason = "below_min_score"
    else:
        reason = "gate_refused_all"
    return Retrieval(
        query=query,
        k=k,
        catalog_version=index.catalog.version,
        candidates=tuple(kept),
        dropped=tuple(dropped),
        no_route=not kept,
        reason=reason,
        matched=matched,
    )
