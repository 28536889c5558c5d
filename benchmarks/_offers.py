"""What the model is offered: the needed tools in the default allow-set, and after one find-tools call.

A ranking's recall@k says whether the needed tools are among the k best ranked; what a model can
call is what it is offered. For each supported request this module asks the public API alone:

- `offered`: are all the request's needed tools in `Visibility(router).allow_set(request)`, with
  the default settings (k = `DEFAULT_K`, default gate and rules)? Also the mean share of them
  (at most k counted) and the schema bytes offered (`Capability.schema_bytes` of each tool).
- `reached`: in a `RoutingSession` over that `Visibility` (default `SessionLimits`), are they all
  in the list after the request's turn and at most one find-tools call? The call is made only
  when the list misses a needed tool; its query is one of the stand-ins `Proxies` makes from
  the request alone (never from the needed tool), and the turn's next model step is offered the
  grown list. Bytes are those of that list (find-tools' own definition aside).
- `ranked`: the same "all needed tools" share and mean share for the ranking's first k, which
  the caller passes in from its own ranking. `gap` is ranked minus offered: what the gate and
  the offer rules cost on top of the ranking. `ranked_deep`: the share for the ranking's first
  `DEEP` (a ranking the caller passes as `deep`), what one find-tools call is measured against.

`OfferTally` collects requests one at a time (each with the `Visibility` of its catalog, so a
benchmark with many catalogs shares one tally), and `summary()` gives the numbers. The numbers
follow whatever the offer logic becomes, since nothing here re-implements it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schemarouter import (
    DEFAULT_K,
    Catalog,
    RetrievalAbstentionPolicy,
    RoutingSession,
    SchemaRouter,
    Visibility,
)
from schemarouter.analysis._commonness import specificity
from schemarouter.analysis._stemming import Stemmer
from schemarouter.analysis._text import text_tokens

__all__ = [
    "DEEP",
    "PROXIES",
    "PROXY_WORDS",
    "OfferTally",
    "Proxies",
    "format_offers",
    "offer_columns",
    "ranked_names",
]

PROXIES = ("request", "specific", "uncovered")
"""Stand-ins for a model's find-tools query (see `Proxies`)."""
PROXY_WORDS = 3
"""Words of a `specific` or `uncovered` find-tools query: "a few words", as find-tools asks."""
DEEP = 10
"""The ranking depth "reached" is compared with (recall@10)."""


class Proxies:
    """Stand-ins for the query a model writes to find-tools, made from the request alone.

    `request`: the request as it is. `specific`: its `PROXY_WORDS` most specific words (the
    core's everyday-English `specificity`; ties by position; digits left out), in request order.
    `uncovered`: the same among the request words that no tool already offered mentions (stems
    of its name, title and description); `specific` when every word is covered.
    """

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._stemmer = Stemmer()
        self._tool_stems: dict[str, frozenset[str]] = {}

    @staticmethod
    def _ranked(words: Sequence[str]) -> str:
        """The `PROXY_WORDS` most specific of `words` (first position wins a tie), in request order."""
        first: dict[str, int] = {}
        for at, word in enumerate(words):
            first.setdefault(word, at)
        best = sorted(first, key=lambda word: (-specificity(word), first[word]))[:PROXY_WORDS]
        return " ".join(sorted(best, key=first.__getitem__))

    def _words(self, request: str) -> list[str]:
        return [token for token in text_tokens(request, wholes=True) if not token.isdigit()]

    def _stems(self, route: str) -> frozenset[str]:
        stems = self._tool_stems.get(route)
        if stems is None:
            cap = self._catalog[route]
            text = f"{cap.name} {cap.title or ''} {cap.description or ''}"
            stems = frozenset(self._stemmer.stem_all(text_tokens(text, wholes=True)))
            self._tool_stems[route] = stems
        return stems

    def query(self, proxy: str, request: str, offered: Sequence[str]) -> str:
        """The find-tools query of stand-in `proxy` for `request`, with `offered` routes listed."""
        if proxy == "request":
            return request
        words = self._words(request)
        if proxy == "uncovered":
            covered: set[str] = set()
            for route in offered:
                covered |= self._stems(route)
            rest = [word for word in words if self._stemmer.stem(word) not in covered]
            if rest:
                return self._ranked(rest)
        return self._ranked(words) if words else request


_OPEN = RetrievalAbstentionPolicy(min_score=0.0)


def ranked_names(router: SchemaRouter, request: str, depth: int = DEFAULT_K) -> list[str]:
    """The names of the `depth` best ranked tools for `request` (by `Candidate.rank_score`, ties
    by route), whether or not the gate keeps them: what recall@k reads."""
    retrieval = router.retrieve(request, depth, abstention=_OPEN, explain=False)
    ranked = sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))
    return [c.name for c in ranked[:depth]]


def _all_in(needed: frozenset[str], names: Iterable[str], k: int) -> tuple[bool, float]:
    """Are all `needed` names among `names`, and the share of them that are (at most k counted)."""
    hits = len(needed & set(names))
    return hits == len(needed), hits / min(len(needed), k)


@dataclass
class OfferTally:
    """Offers to supported requests, one request at a time (see the module docstring)."""

    k: int = DEFAULT_K
    proxies: Sequence[str] = PROXIES
    label: Mapping[str, str] | None = None
    """What each tool name counts as against the needed names (`_datasets.SingleServer.label`);
    None: the name itself."""
    requests: int = 0
    ranked_all: int = 0
    ranked_share: float = 0.0
    ranked_requests: int = 0
    deep_all: int = 0
    deep_requests: int = 0
    offered_all: int = 0
    offered_share: float = 0.0
    offered_bytes: int = 0
    offered_tools: int = 0
    outcomes: Counter[str] = field(default_factory=Counter[str])
    reached_all: Counter[str] = field(default_factory=Counter[str])
    reached_bytes: Counter[str] = field(default_factory=Counter[str])
    _proxies: dict[str, Proxies] = field(default_factory=dict[str, Proxies])

    def add(
        self,
        visibility: Visibility,
        request: str,
        needed: Iterable[str],
        ranked: Sequence[str] | None = None,
        deep: Sequence[str] | None = None,
    ) -> bool:
        """Route one supported `request` whose `needed` tool names must all be offered; `ranked`
        is the ranking's best names, best first (its first k count), `deep` its first `DEEP`.
        Returns whether all of the needed tools were offered."""
        gold = frozenset(needed)
        catalog = visibility.router.catalog
        self.requests += 1
        if ranked is not None:
            all_ranked, share = _all_in(gold, self._labelled(ranked[: self.k]), self.k)
            self.ranked_requests += 1
            self.ranked_all += all_ranked
            self.ranked_share += share
        if deep is not None:
            self.deep_requests += 1
            self.deep_all += _all_in(gold, deep[:DEEP], DEEP)[0]
        allow = visibility.allow_set(request)
        all_offered, share = _all_in(gold, self._labelled(allow.names), self.k)
        self.offered_all += all_offered
        self.offered_share += share
        offered_bytes = sum(catalog[route].schema_bytes for route in allow.routes)
        self.offered_bytes += offered_bytes
        self.offered_tools += len(allow.routes)
        self.outcomes[allow.outcome] += 1
        proxies = self._proxies.get(catalog.version)
        if proxies is None:
            proxies = self._proxies[catalog.version] = Proxies(catalog)
        for proxy in self.proxies:
            if all_offered:
                self.reached_all[proxy] += 1
                self.reached_bytes[proxy] += offered_bytes
                continue
            session = RoutingSession(visibility, conversation_id=f"{proxy}:{request[:64]}")
            offer = session.offer(request)
            if not gold <= set(self._labelled(offer.names)):
                session.find_tools(proxies.query(proxy, request, offer.routes))
                offer = session.offer(request)  # the turn's next model step
            self.reached_all[proxy] += gold <= set(self._labelled(offer.names))
            self.reached_bytes[proxy] += offer.schema_bytes
        return all_offered

    def _labelled(self, names: Iterable[str]) -> list[str]:
        label = self.label
        return list(names) if label is None else [label.get(name, name) for name in names]

    def summary(self) -> dict[str, Any]:
        """The shares and means over the requests added (see the module docstring)."""
        n = max(self.requests, 1)
        out: dict[str, Any] = {
            "requests": self.requests,
            "k": self.k,
            "offered": self.offered_all / n,
            "offered_share": self.offered_share / n,
            "offered_bytes": self.offered_bytes / n,
            "offered_tools": self.offered_tools / n,
            "outcomes": {name: self.outcomes[name] / n for name in ("route", "uncertain", "no_route")},
            "reached": {proxy: self.reached_all[proxy] / n for proxy in self.proxies},
            "reached_bytes": {proxy: self.reached_bytes[proxy] / n for proxy in self.proxies},
        }
        if self.ranked_requests:
            ranked = self.ranked_all / self.ranked_requests
            ranked_share = self.ranked_share / self.ranked_requests
            out["ranked"] = ranked
            out["ranked_share"] = ranked_share
            out["gap"] = ranked - out["offered"]
            out["gap_share"] = ranked_share - out["offered_share"]
        if self.deep_requests:
            out["ranked_deep"] = self.deep_all / self.deep_requests
        return out


def offer_columns() -> str:
    """The header of `format_offers`'s line."""
    reach = " / ".join(PROXIES)
    return f"all needed tools: ranked top k -> offered (gap), share offered, bytes offered; reached ({reach})"


def format_offers(summary: dict[str, Any]) -> str:
    """One line for a `OfferTally.summary()`."""
    ranked = summary.get("ranked")
    head = (
        f"{ranked:.3f} -> {summary['offered']:.3f} (gap {summary['gap']:+.3f})"
        if ranked is not None
        else f"offered {summary['offered']:.3f}"
    )
    reached = " / ".join(f"{summary['reached'][p]:.3f}" for p in summary["reached"])
    deep = summary.get("ranked_deep")
    return (
        f"{head}, share {summary['offered_share']:.3f}, {summary['offered_bytes']:,.0f} bytes "
        f"({summary['offered_tools']:.2f} tools); reached {reached}"
        + (f" (ranked top {DEEP}: {deep:.3f})" if deep is not None else "")
    )
