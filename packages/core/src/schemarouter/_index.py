"""Lexical index over a catalog version (field-weighted, with an identifier gate)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from ._abstention import RetrievalAbstentionPolicy
from ._catalog import Catalog
from ._results import Candidate, Retrieval, Signal
from ._text import identifier_tokens, text_tokens

__all__ = ["LexicalIndex"]

_FIELD_WEIGHTS = {"name": 3.0, "description": 1.0}


@dataclass(frozen=True, slots=True)
class _Posting:
    doc: int
    field: str


class LexicalIndex:
    """Built once per catalog version; queries touch only the postings of their terms."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._caps = tuple(catalog)
        postings: dict[str, dict[tuple[int, str], int]] = defaultdict(dict)
        for doc, cap in enumerate(self._caps):
            fields = {"name": identifier_tokens(cap.name), "description": text_tokens(cap.description)}
            for field, tokens in fields.items():
                for tok in tokens:
                    key = (doc, field)
                    postings[tok][key] = postings[tok].get(key, 0) + 1
        n = max(len(self._caps), 1)
        self._idf = {t: math.log(1 + n / (1 + len({d for d, _ in p}))) for t, p in postings.items()}
        self._postings = dict(postings)

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
    ) -> Retrieval:
        terms = list(dict.fromkeys(text_tokens(query)))
        scores: dict[int, float] = defaultdict(float)
        ident: dict[int, float] = defaultdict(float)
        signals: dict[int, list[Signal]] = defaultdict(list)
        for term in terms:
            idf = self._idf.get(term)
            if idf is None:
                continue
            for (doc, field), tf in self._postings[term].items():
                weight = _FIELD_WEIGHTS[field] * idf * tf / (tf + 1.0)
                scores[doc] += weight
                if field == "name":
                    ident[doc] += idf
                signals[doc].append(Signal(term, field, round(weight, 6)))
        min_score = policy.min_score if policy else 0.0
        ranked = sorted(scores, key=lambda d: (-scores[d], self._caps[d].route))
        kept: list[Candidate] = []
        dropped: list[Candidate] = []
        for doc in ranked:
            cap = self._caps[doc]
            preferred = cap.route == preferred_route
            if preferred:
                reason = "preferred_route"
            elif ident[doc] <= 0:
                reason = "no_identifier_signal"
            elif scores[doc] < min_score:
                reason = "below_min_score"
            else:
                reason = "routed"
            ok = reason in ("routed", "preferred_route") and len(kept) < k
            cand = Candidate(
                route=cap.route,
                name=cap.name,
                source=cap.source,
                score=round(scores[doc], 6),
                identifier_score=min(1.0, ident[doc] / 10.0),
                signals=tuple(signals[doc]),
                kept=ok,
                reason=reason if (ok or reason != "routed") else "beyond_k",
            )
            (kept if ok else dropped).append(cand)
        reason = "routed" if kept else ("no_terms_matched" if not scores else "gate_refused_all")
        return Retrieval(query, k, self.catalog.version, tuple(kept), tuple(dropped), not kept, reason)
