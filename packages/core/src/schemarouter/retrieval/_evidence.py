"""The no-route gate's evidence: what each hit of a request word on a tool is worth.

A hit is weighed by how rare the matched word is in the catalog, how unusual it is in everyday
English and which of the tool's fields it lands on: the tool's identifiers (name, title) count
fully, other fields less (`GateSettings.other_field_factor`, specificity squared), argument
text alone (parameter descriptions, enum values) less again, and a descriptive word of a broad
tool by its breadth (`_breadth`). The gate (`_gate`) decides on these numbers; `GateSettings`
holds their weights and the gate's floors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..analysis._arguments import ARGUMENT_FIELDS
from ..analysis._breadth import CONTENT_MASK
from ..analysis._fields import FIELDS, IDENTIFIER_FIELDS
from ..analysis._terms import QueryTerm
from ._index import LexicalIndex, MatchEvidence
from ._results import Signal

__all__ = [
    "ARGUMENT_MASK",
    "DEFAULT_GATE",
    "IDENTIFIER_MASK",
    "UNCERTAIN_SPECIFICITY",
    "GateSettings",
    "hit",
    "match_evidence",
    "routing_score",
    "signals",
    "term_evidence",
]

_FIELD_BIT = {name: 1 << i for i, name in enumerate(FIELDS)}
IDENTIFIER_MASK = sum(_FIELD_BIT[f] for f in IDENTIFIER_FIELDS)
ARGUMENT_MASK = _FIELD_BIT["param_text"]
ARGUMENTS_MASK = sum(_FIELD_BIT[name] for name in ARGUMENT_FIELDS)


UNCERTAIN_SPECIFICITY = 0.45
"""Default `GateSettings.uncertain_specificity` (chosen on the dev halves of the development data)."""


@dataclass(frozen=True, slots=True)
class GateSettings:
    """Floors of the gate. `score` and `identifier_score` are both in [0, 1)."""

    other_field_factor: float = 0.7
    """Evidence of a hit outside the identifiers, relative to an identifier hit."""
    other_field_power: float = 2.0
    """Outside the identifiers, specificity counts this many times: everyday words stuffed into a
    description add up to little."""
    argument_evidence: float = 0.3
    """Evidence of a hit on a tool's argument text alone (parameter descriptions and enum values),
    relative to a hit elsewhere outside the identifiers. Argument text says what a parameter
    holds (`'Asia/Tokyo'`, `'c-100'`) more often than what the tool does: alone, such a hit no
    longer routes ("weather in Tokyo" routed a time-zone converter whose parameter description
    gives `Asia/Tokyo` as an example; it is now at most offered as uncertain). Not 0: in BFCL's
    functions parameter descriptions often carry the purpose (0 cost 4 points of gold tools in
    its allow-sets). Such hits rank in full in lexical mode; hybrid fusion reads this evidence."""
    prefix_evidence: float = 0.0
    """Evidence of a prefix match (`dealer` / `dealership`): it helps ranking, but is too loose to route."""
    synonym_evidence: float = 1.0
    """Evidence of a synonym match (`remove` / `delete`), relative to its ranking credit
    (`IndexSettings.synonym_quality`). Below 1, a request whose only link to a tool is a
    synonym is less likely to route on it (0 = synonyms help ranking only)."""
    action_evidence: float = 0.2
    """Evidence added to a tool the request names by an object word when the request's action
    agrees with the tool's (`IndexSettings.action_weight`), times the agreement and the trust
    in the tool's action: "what time is it" names `get_current_time`'s object and its action."""
    identifier_floor: float = 0.25
    """A tool whose identifier evidence reaches this is kept (the query names it)."""
    evidence_floor: float = 0.3
    """A tool whose total evidence reaches this is kept even without an identifier hit."""
    rank_weight: float = 0.5
    """Share of the routing score taken from the BM25F ranking score (per unit of the catalog's
    highest term weight), geometric with the gate evidence; 0 = evidence alone."""
    uncertain_specificity: float = UNCERTAIN_SPECIFICITY
    """How specific in everyday English (`specificity`) a request word hitting a tool's other
    fields must be for that tool to be offered in an uncertain outcome (see `uncertain_verdicts`);
    a word hitting its name or title counts whatever its specificity. "Search", "song",
    "weather" reach it; "write", "help", "find" do not, so that a description stuffed with
    everyday words is never offered."""
    runner_up_share: float = 0.5
    """A runner-up (see `RetrievalAbstentionPolicy.runner_ups`) needs a routing score of at least
    this share of the best routed tool's: a description that merely lists a request's topic
    among many others scores far below the tool the request names."""
    min_depth: int = 32
    """Ranked tools examined at least (more when k is large)."""
    reported_dropped: int = 10
    """Refused tools reported with their reasons, best ranked first (the rest are counted)."""
    unbounded_floors: tuple[float, float] = field(init=False, repr=False, compare=False)
    """`evidence_floor` and `identifier_floor` on evidence's unbounded scale, worked out once
    (the gate compares against them on every request)."""

    def __post_init__(self) -> None:
        floors = (_unbounded(self.evidence_floor), _unbounded(self.identifier_floor))
        object.__setattr__(self, "unbounded_floors", floors)


def _unbounded(score: float) -> float:
    return -math.log(1.0 - min(score, 0.999999))


DEFAULT_GATE = GateSettings()


def routing_score(total: float, rank_score: float, unit: float, settings: GateSettings) -> float:
    """A tool's routing score in [0, 1) from its gate evidence and its ranking score."""
    weight = settings.rank_weight
    if total > 0.0 and weight > 0.0:
        # evidence blended geometrically with the ranking score (in units of the highest term weight)
        return 1.0 - math.exp(-(total ** (1.0 - weight) * (rank_score / unit) ** weight))
    return 1.0 - math.exp(-total)


def term_evidence(index: LexicalIndex, qt: QueryTerm, settings: GateSettings) -> list[MatchEvidence]:
    """Per match of one query term: the evidence of a hit on an identifier, elsewhere, and on
    argument text alone."""
    row: list[MatchEvidence] = []
    argument_factor = settings.argument_evidence
    for match in qt.matches:
        kind = match.kind
        if kind == "prefix":
            factor = settings.prefix_evidence
        elif kind == "synonym":
            factor = settings.synonym_evidence * match.quality
        else:
            factor = match.quality
        rarity = index.rarity(match.term) * factor
        on_name = rarity * qt.specificity
        elsewhere = rarity * qt.specificity**settings.other_field_power * settings.other_field_factor
        row.append((on_name, elsewhere, elsewhere * argument_factor))
    return row


def match_evidence(
    index: LexicalIndex, terms: tuple[QueryTerm, ...], settings: GateSettings
) -> list[list[MatchEvidence]]:
    """Per query term and match: the evidence of a hit on an identifier, elsewhere, and on
    argument text alone."""
    return [term_evidence(index, qt, settings) for qt in terms]


def hit(mask: int, evidence: MatchEvidence) -> float:
    """The evidence of one hit, by the fields it lands on (a bitmask): on an identifier, on
    argument text alone, or elsewhere."""
    on_name, elsewhere, on_argument = evidence
    if mask & IDENTIFIER_MASK:
        return on_name
    return on_argument if mask == ARGUMENT_MASK else elsewhere


def _fields_of(mask: int) -> tuple[str, ...]:
    return tuple(name for name in FIELDS if mask & _FIELD_BIT[name])


_FIELDS_OF = {mask: _fields_of(mask) for mask in range(1 << len(FIELDS))}
"""Field bitmask -> the names of the fields it sets, in field order."""


def signals(
    index: LexicalIndex,
    doc: int,
    terms: tuple[QueryTerm, ...],
    weights: list[list[MatchEvidence]],
) -> tuple[Signal, ...]:
    """The signals behind one tool's score: which query word hit which field, with what evidence.

    `weights[i][j]` is the (identifier hit, other hit, argument-text hit) evidence of
    `terms[i].matches[j]`.
    """
    signals: list[Signal] = []
    factor = index.content_factor(doc)
    for i, j, mask in index.doc_hits(doc, terms):
        weight = hit(mask, weights[i][j])
        if mask & CONTENT_MASK and not mask & IDENTIFIER_MASK:
            weight *= factor  # a descriptive word of a broad tool is worth less (`_breadth`)
            if not mask & ~ARGUMENTS_MASK:  # a parameter of many tools says little (`_arguments`)
                weight *= index.argument_factor(terms[i].matches[j].term)
        weight = round(weight, 6)
        term = terms[i]
        surface, read_as = term.surface, term.matches[j].read_as
        if term.named_by is not None:  # "report.md" read as markdown
            surface, read_as = term.named_by, read_as or surface
        for name in _FIELDS_OF[mask]:
            signals.append(Signal(surface, name, weight, read_as))
    return tuple(signals)
