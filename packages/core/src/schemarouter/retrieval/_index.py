"""Field-aware lexical index (BM25F-style) over one catalog version.

Built once per catalog version from the terms the analysis chain gives each tool's fields
(`schemarouter.analysis`): the index stores postings and scores terms, and never reads text
itself. Ranking uses BM25F (per-field length normalisation and weights, one saturation per
term); the evidence the no-route gate needs (which query terms hit which fields, and how rare
they are) comes from the same postings. What each query term contributes to either is computed
once per word and cached, so a request mostly sums cached vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..analysis._analyzer import Analyzer
from ..analysis._breadth import CONTENT_FIELDS, CONTENT_MASK, content_factor, content_factors
from ..analysis._document import AnalyzedTools
from ..analysis._fields import FIELDS, IDENTIFIER_FIELDS
from ..analysis._query import QueryAnalyzer
from ..analysis._terms import SOURCE_MARK, QueryTerm
from ..analysis._vocabulary import Vocabulary
from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ._index_store import WORD_LISTS, DocFields, IndexArrays, restored_tables
from ._ranking import DocArray, TermPlan, WeightArray, add_up, best, merged, postings_of

__all__ = [
    "EvidenceVector",
    "MatchEvidence",
    "IndexSettings",
    "LexicalIndex",
    "Ranked",
    "WordVector",
]

_FIELD_BIT = {name: 1 << i for i, name in enumerate(FIELDS)}
_IDENTIFIER_MASK = sum(_FIELD_BIT[f] for f in IDENTIFIER_FIELDS)
_ARGUMENT_MASK = _FIELD_BIT["param_text"]
"""A hit in this field alone lands on argument text: what a parameter holds, not what the tool does."""
_VECTOR_CACHE_POSTINGS = 4_000_000
_MANY_MATCHED = 4
"""`rank` reads the cutoff off every score when the query words' ranking postings, times this,
outnumber the tools (see `best`)."""


MatchEvidence = tuple[float, float, float]
"""The gate evidence of one match of a query term: on a tool's identifiers, elsewhere, and on its
argument text alone (see `LexicalIndex.term_evidence`)."""

EvidenceVector = tuple[DocArray, WeightArray, DocArray, WeightArray]
"""One query term's gate evidence: the tools it hits and the evidence it brings each; then the
tools among them it names (an identifier hit) and the part of their evidence that names them."""


class WordVector(NamedTuple):
    """What one query word adds to a request, laid out for one `bincount` over three blocks of
    catalog size: a position `p` below n adds to tool `p`'s ranking score, `n + p` to its gate
    evidence and `2n + p` to its identifier evidence."""

    positions: DocArray
    values: WeightArray
    ranking: int
    """The first `ranking` entries are the ranking block: the word's `TermPlan`."""
    positive: bool
    """Every ranking weight is above 0 (a tool it matches then scores above 0)."""


class Ranked(NamedTuple):
    """The best-ranked tools of one request, best first, with what the gate decides on."""

    docs: list[int]
    rank_scores: list[float]
    """BM25F score of each."""
    support: list[float]
    """Gate evidence of each."""
    named: list[float]
    """The part of `support` that comes from hits on each tool's identifiers."""
    matched: int | None
    """Tools that any query word matched (more than `docs` when they ranked lower); None when
    the caller did not ask for the count (`docs` is empty exactly when none matched)."""


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """BM25F parameters and how loosely a query word may match an indexed word."""

    k1: float = 1.2
    field_weights: Mapping[str, float] = field(
        default_factory=lambda: {
            "name": 3.0,
            "title": 2.0,
            "description": 1.0,
            "params": 0.8,
            "param_text": 0.4,
            "source": 2.0,
        }
    )
    field_b: Mapping[str, float] = field(
        default_factory=lambda: {
            "name": 0.3,
            "title": 0.3,
            "description": 0.75,
            "params": 0.5,
            "param_text": 0.75,
            "source": 0.0,
        }
    )
    segment_weight: float = 0.8
    """Weight of a word found inside a run-together name, relative to a whole name token."""
    abbreviation_weight: float = 0.8
    """Weight of the spelled-out word indexed beside an abbreviation in a tool's name, title or
    parameter names (`cmd` -> `command`), relative to the token itself; also the credit for a
    request's abbreviation matching the spelled-out word (see `_abbreviations`). 0 turns both off."""
    prefix_quality: float = 0.7
    """Credit for a match where one word is a prefix of the other (`dealer` / `dealership`)."""
    compound_quality: float = 0.7
    """Credit for a run-together query word matched through its parts (`carpark` -> `car`, `park`)."""
    compound_min_specificity: float = 1.0
    """A query word is split into run-together parts only when at least this specific (rare in
    everyday English): `carpark` is, but `devastated` must not match `dev` and `state`."""
    typo_quality: float = 0.7
    """Credit for a misspelt request word matched through the catalog word one edit away
    (`emial` -> `email`; see `_typo`). Such a match is evidence the gate counts. 0 turns it off."""
    synonym_quality: float = 0.6
    """Credit for a request word matched through another word of its group in `_synonyms`
    (`fetch` -> `retrieve`, `photo` -> `image`). 0 turns it off."""
    min_prefix: int = 4
    """Shortest word that may match another word it is a prefix of."""
    specificity_focus: float = 0.5
    """How much ranking discounts words common in everyday English (0 = not at all)."""
    breadth_reference: float = 256.0
    """Distinct terms a tool's description and parameters may list before each of them counts
    less (see `_breadth`): the longest real tools of the development data list 31 (MetaTool), 82
    (BFCL) and 282 (LiveMCPBench, most under 60); a description stuffed with 16 KiB of everyday
    English lists about 2,000."""
    breadth_power: float = 1.0
    """How fast a broad tool's descriptive words lose weight past `breadth_reference`: 1 keeps
    what all its words can earn together what a focused tool's can (0 turns it off)."""
    number_specificity: float = 0.2
    """Specificity of an all-digit query word: numbers are argument values far more often than
    they name what a tool does, so `100` matching "c-100" in a parameter description must not
    route on its own."""


class LexicalIndex:
    """Built once per catalog version; queries touch only the postings of their terms."""

    def __init__(self, catalog: Catalog, settings: IndexSettings | None = None) -> None:
        self.catalog = catalog
        self.settings = settings = settings or IndexSettings()
        # Tools are numbered in route order: ranking breaks ties by position, which is by route.
        self._caps = tuple(sorted(catalog, key=lambda cap: cap.route))
        self._doc_by_route = {cap.route: doc for doc, cap in enumerate(self._caps)}
        analyzer = Analyzer(settings)
        tools = analyzer.tools(self._caps)
        doc_counts, lengths = tools.counts, tools.lengths
        n_docs = max(len(self._caps), 1)
        average = {name: max(sum(d[name] for d in lengths) / n_docs, 1.0) for name in FIELDS}
        weights, b_values, k1 = settings.field_weights, settings.field_b, settings.k1
        # term -> tools and their pseudo term frequencies, in tool order; tool -> term -> fields hit
        raw_docs: dict[str, list[int]] = {}
        raw_tf: dict[str, list[float]] = {}
        raw_named: dict[str, list[bool]] = {}
        raw_argument: dict[str, list[bool]] = {}
        raw_df: dict[str, float] = {}
        self._doc_fields: Sequence[dict[str, int]] = []
        fields_of_docs: list[dict[str, int]] = self._doc_fields
        factors: list[float] = []
        for doc, counts in enumerate(doc_counts):
            doc_lengths = lengths[doc]
            norms = {
                name: 1.0 - b_values[name] + b_values[name] * doc_lengths[name] / average[name]
                for name in FIELDS
            }
            # what each descriptive word of this tool is worth, by how many it lists (`_breadth`)
            breadth = sum(
                1 for tf_fields in counts.values() if not tf_fields.keys().isdisjoint(CONTENT_FIELDS)
            )
            factor = content_factor(breadth, settings.breadth_reference, settings.breadth_power)
            factors.append(factor)
            fields_hit: dict[str, int] = {}
            for term, tf_fields in counts.items():
                own = content = 0.0
                mask = 0
                for name, tf in tf_fields.items():
                    if name in CONTENT_FIELDS:
                        content += weights[name] * tf / norms[name]
                    else:
                        own += weights[name] * tf / norms[name]
                    mask |= _FIELD_BIT[name]
                pseudo_tf = own + factor * content
                fields_hit[term] = mask
                named = bool(mask & _IDENTIFIER_MASK)
                # a term counts towards its rarity as much as it counts in the tool
                share = factor if mask & ~CONTENT_MASK == 0 else 1.0
                docs = raw_docs.get(term)
                if docs is None:
                    raw_docs[term] = [doc]
                    raw_tf[term] = [pseudo_tf]
                    raw_named[term] = [named]
                    raw_argument[term] = [mask == _ARGUMENT_MASK]
                    raw_df[term] = share
                else:
                    docs.append(doc)
                    raw_tf[term].append(pseudo_tf)
                    raw_named[term].append(named)
                    raw_argument[term].append(mask == _ARGUMENT_MASK)
                    raw_df[term] += share
            fields_of_docs.append(fields_hit)
        self._content_factor: NDArray[np.float64] = np.array(factors, dtype=np.float64)
        """Per tool: what each word of its descriptive fields is worth (see `_breadth`)."""
        self._idf: dict[str, float] = {}
        # term -> (tools, their BM25F weights): a query only multiplies and adds
        self._postings: Mapping[str, tuple[DocArray, WeightArray]] = {}
        postings_of_terms: dict[str, tuple[DocArray, WeightArray]] = self._postings
        # term -> per posting: does the term hit that tool's identifiers (name, title)?
        self._named: Mapping[str, NDArray[np.bool_]] = {}
        named_of_terms: dict[str, NDArray[np.bool_]] = self._named
        # term -> per posting: does the term hit that tool's argument text alone (see `term_evidence`)?
        self._argument: Mapping[str, NDArray[np.bool_]] = {}
        argument_of_terms: dict[str, NDArray[np.bool_]] = self._argument
        max_idf = math.log(1.0 + (n_docs - 0.5) / 1.5)
        self._max_idf = max(max_idf, 1e-9)
        for term in sorted(raw_docs):
            docs = raw_docs[term]
            df = len(docs)
            if df == n_docs and term.startswith(SOURCE_MARK):
                # a source word every tool shares (a one-server catalog) tells no tool apart: not
                # even a near-zero hit is left for it, in ranking or as evidence
                continue
            # broad tools count as a share of a tool each: they do not make an honest word common
            df_eff = max(raw_df[term], 1.0)
            idf = math.log(1.0 + (n_docs - df_eff + 0.5) / (df_eff + 0.5))
            self._idf[term] = idf
            postings_of_terms[term] = postings_of(
                docs, [idf * pseudo_tf / (k1 + pseudo_tf) for pseudo_tf in raw_tf[term]]
            )
            named_of_terms[term] = np.array(raw_named[term], dtype=np.bool_)
            argument_of_terms[term] = np.array(raw_argument[term], dtype=np.bool_)
        self._vocabulary = Vocabulary(self._idf, self._max_idf, tools)
        self._analyzer = analyzer.requests(self._vocabulary)
        self._vectors: dict[Hashable, dict[str, WordVector]] = {}
        self._vectors_size = 0
        self._last_vectors: tuple[Hashable, dict[str, WordVector]] | None = None
        """The cache of the key asked for last: a request finds it by identity, without hashing
        the key (the gate's settings hash field by field)."""
        self._arrays: IndexArrays | None = None
        """What the index was restored from (`from_arrays`), else None."""

    # -- snapshots ------------------------------------------------------------------------------

    def arrays(self) -> IndexArrays:
        """The index as flat arrays (see `IndexArrays`), from which `from_arrays` restores it."""
        if self._arrays is not None:
            return self._arrays
        terms = list(self._postings)  # built in sorted order
        counts = [len(self._postings[term][0]) for term in terms]
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        doc_fields = self._doc_fields
        docs: list[DocArray] = []
        weights: list[WeightArray] = []
        fields: list[int] = []
        for term in terms:
            term_docs, term_weights = self._postings[term]
            docs.append(term_docs)
            weights.append(term_weights)
            doc_ids: list[int] = term_docs.tolist()
            fields.extend(doc_fields[doc][term] for doc in doc_ids)
        vocabulary = self._vocabulary
        return IndexArrays(
            terms=terms,
            idf=np.array([self._idf[term] for term in terms], dtype=np.float64),
            offsets=offsets,
            docs=np.concatenate(docs).astype(np.int32) if docs else np.zeros(0, dtype=np.int32),
            weights=np.concatenate(weights) if weights else np.zeros(0, dtype=np.float64),
            fields=np.array(fields, dtype=np.uint8),
            max_idf=self._max_idf,
            words={name: sorted(getattr(vocabulary, name)) for name in WORD_LISTS},
        )

    @classmethod
    def from_arrays(
        cls, catalog: Catalog, arrays: IndexArrays, settings: IndexSettings | None = None
    ) -> LexicalIndex:
        """The index of `catalog` that `arrays()` gave, without analysing a tool again: it ranks,
        gates and explains every request as the index saved did. `arrays` must come from an
        index of this very catalog built with these settings (a snapshot checks both)."""
        index = cls.__new__(cls)
        index.catalog = catalog
        index.settings = settings = settings or IndexSettings()
        index._caps = tuple(sorted(catalog, key=lambda cap: cap.route))
        index._doc_by_route = {cap.route: doc for doc, cap in enumerate(index._caps)}
        idf, postings, named, argument = restored_tables(arrays, _IDENTIFIER_MASK, _FIELD_BIT["param_text"])
        index._idf, index._postings, index._named, index._argument = idf, postings, named, argument
        index._doc_fields = DocFields(arrays, len(index._caps))
        index._content_factor = content_factors(
            arrays.docs, arrays.fields, len(index._caps), settings.breadth_reference, settings.breadth_power
        )
        index._max_idf = arrays.max_idf
        words = {name: frozenset(arrays.words[name]) for name in WORD_LISTS}
        tools = AnalyzedTools(
            [], [], words["word_terms"], words["name_wholes"], words["surface_words"], words["own_words"]
        )
        index._vocabulary = Vocabulary(idf, arrays.max_idf, tools)
        index._analyzer = Analyzer(settings).requests(index._vocabulary)
        index._vectors = {}
        index._vectors_size = 0
        index._last_vectors = None
        index._arrays = arrays
        return index

    # -- query side -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._caps)

    @property
    def capabilities(self) -> tuple[Capability, ...]:
        """The catalog's tools in route order: tool positions in rankings are positions here."""
        return self._caps

    def doc_of(self, route: str) -> int | None:
        """Position of the tool with this route, or None when the catalog has no such route."""
        return self._doc_by_route.get(route)

    @property
    def max_idf(self) -> float:
        """The idf of a term found in one tool: the unit ranking scores are read in."""
        return self._max_idf

    def rarity(self, term: str) -> float:
        """Rarity of an indexed term in [0, 1]: 1 for a term of one tool, near 0 for one in every tool."""
        idf = self._idf.get(term)
        return 1.0 if idf is None else idf / self._max_idf

    @property
    def analyzer(self) -> QueryAnalyzer:
        """Reads requests into the terms this index scores (the analysis chain it was built with)."""
        return self._analyzer

    @property
    def vocabulary(self) -> Vocabulary:
        """The indexed terms with their idf."""
        return self._vocabulary

    def _plan(self, qt: QueryTerm) -> TermPlan:
        scale = qt.specificity**self.settings.specificity_focus
        postings = self._postings
        if len(qt.matches) == 1:
            match = qt.matches[0]
            docs, weights = postings[match.term]
            return docs, weights * (match.quality * scale)
        return merged(postings, [(m.term, m.quality * scale) for m in qt.matches], len(self._caps))

    def term_evidence(self, qt: QueryTerm, weights: Sequence[MatchEvidence]) -> EvidenceVector | None:
        """The gate evidence one query term brings each tool it hits, and the part naming the tool.

        `weights[j]` is the (identifier hit, other hit, argument-text hit) evidence of
        `qt.matches[j]`. A query term counts once per tool, through its best match there: an
        identifier hit (name, title) brings that match's identifier evidence, a hit on argument
        text alone (parameter descriptions and enum values, what a parameter holds) its argument
        evidence, any other hit its other evidence. The identifier part is the identifier
        evidence of the term's first match (in match order) hitting the tool, when that hit lands
        on an identifier; only tools with a non-zero identifier part are listed for it. None when
        the term brings no evidence anywhere. Tools are listed at most once, in position order,
        none with zero evidence.
        """
        matches = qt.matches
        useful = [j for j, (on_name, elsewhere, _) in enumerate(weights) if on_name or elsewhere]
        if not useful:
            return None
        postings, named_of, argument_of = self._postings, self._named, self._argument
        if useful == [0]:
            # Only the first match carries evidence (the usual case: an exact match followed
            # by prefix expansions): it is the best, and the first hit, wherever it hits.
            on_name, elsewhere, on_argument = weights[0]
            term = matches[0].term
            docs, named = postings[term][0], named_of[term]
            total = np.where(
                named, on_name, self._scaled(term, docs, argument_of[term], on_argument, elsewhere)
            )
            named_docs = docs[named] if on_name else docs[:0]
            identifier = np.full(named_docs.size, on_name)
            keep = total != 0.0
            return docs[keep], total[keep], named_docs, identifier
        size = len(self._caps)
        best = np.zeros(size, dtype=np.float64)
        first_named = np.zeros(size, dtype=np.float64)
        seen = np.zeros(size, dtype=np.bool_)
        # Matches after the last one with evidence add nothing; after the last with identifier
        # evidence, which match hits a tool first no longer matters.
        last = useful[-1]
        last_named = max((j for j in useful if weights[j][0]), default=-1)
        for j, (match, (on_name, elsewhere, on_argument)) in enumerate(
            zip(matches[: last + 1], weights, strict=False)
        ):
            docs, named = postings[match.term][0], named_of[match.term]
            if on_name or elsewhere:
                other = self._scaled(match.term, docs, argument_of[match.term], on_argument, elsewhere)
                hits = np.where(named, on_name, other)
                best[docs] = np.maximum(best[docs], hits)
            if j <= last_named:
                if on_name:
                    first_named[docs[named & ~seen[docs]]] = on_name
                seen[docs] = True
        # a tool with identifier evidence has at least that much evidence, so it is a hit too
        hit = np.flatnonzero(best)
        named_docs = np.flatnonzero(first_named)
        return hit, best[hit], named_docs, first_named[named_docs]

    def _scaled(
        self, term: str, docs: DocArray, argument: NDArray[np.bool_], on_argument: float, elsewhere: float
    ) -> WeightArray:
        """The evidence of `term`'s hits outside the identifiers of `docs`: on argument text
        alone or elsewhere, each worth what the tool's breadth lets a descriptive word be worth
        (a source's words are no descriptive words)."""
        other = np.where(argument, on_argument, elsewhere)
        return other if term.startswith(SOURCE_MARK) else other * self._content_factor[docs]

    def content_factor(self, doc: int) -> float:
        """What each word of this tool's description and parameters is worth (see `_breadth`);
        1.0 for all but the broadest tools."""
        return float(self._content_factor[doc])

    def _word_vector(self, qt: QueryTerm, weights: Sequence[MatchEvidence]) -> WordVector:
        docs, values = self._plan(qt)
        positive = values.size == 0 or float(values.min()) > 0.0
        evidence = self.term_evidence(qt, weights)
        if evidence is None:
            return WordVector(docs, values, len(docs), positive)
        hit, total, named_docs, identifier = evidence
        size = len(self._caps)
        return WordVector(
            np.concatenate((docs, hit + size, named_docs + 2 * size)),
            np.concatenate((values, total, identifier)),
            len(docs),
            positive,
        )

    def word_vectors(
        self,
        terms: tuple[QueryTerm, ...],
        key: Hashable,
        weights_of: Callable[[QueryTerm], Sequence[MatchEvidence]],
    ) -> list[WordVector]:
        """What each query term that matches anything adds to ranking and gate evidence (see
        `WordVector`, `term_evidence`), in query order, computed once per word and cached.

        `weights_of(term)` gives the per-match evidence weights; `key` names how they are
        computed (the gate's settings), so each key has its own cache. The caches together are
        bounded by the entries they hold: when a vector would pass the bound, they start over
        (see `_memo`); a vector larger than the bound itself is computed per request.
        """
        last = self._last_vectors
        if last is not None and last[0] is key:
            cache = last[1]
        else:
            cache = self._vectors.get(key)
            if cache is None:
                cache = self._vectors[key] = {}
            self._last_vectors = (key, cache)
        out: list[WordVector] = []
        for qt in terms:
            if not qt.matches:
                continue
            vector = cache.get(qt.key)
            if vector is None:
                vector = self._word_vector(qt, weights_of(qt))
                entries = len(vector.positions)
                if entries <= _VECTOR_CACHE_POSTINGS:
                    if self._vectors_size + entries > _VECTOR_CACHE_POSTINGS:
                        # a snapshot: another thread may add a settings key meanwhile
                        for table in list(self._vectors.values()):
                            table.clear()
                        self._vectors_size = 0
                    cache[qt.key] = vector
                    self._vectors_size += entries
            out.append(vector)
        return out

    def rank(
        self,
        terms: tuple[QueryTerm, ...],
        depth: int,
        key: Hashable,
        weights_of: Callable[[QueryTerm], Sequence[MatchEvidence]],
        preferred: int | None = None,
        count: bool = True,
    ) -> Ranked:
        """The best `depth` tools by BM25F score (ties by route), with their gate evidence.

        The same ranking as sorting every matched tool by (-score, route), without the sort.
        Scores and evidence are summed in query-term order by one `bincount`, so each is the
        float a scalar walk of each tool gives (the tests hold it to one). `preferred` (a
        tool position) competes even when no term matches it, with score 0. `key` and
        `weights_of` are those of `word_vectors`. Without `count`, `Ranked.matched` is None.
        """
        size = len(self._caps)
        vectors = self.word_vectors(terms, key, weights_of)
        positions: list[DocArray] = []
        values: list[WeightArray] = []
        postings = 0
        positive = True
        for v in vectors:  # one pass: this runs once per request
            positions.append(v.positions)
            values.append(v.values)
            postings += v.ranking
            positive = positive and v.positive
        totals = add_up(positions, values, 3 * size)
        scores = totals[:size]
        hit = None
        if preferred is not None or not positive:
            # zero-weight matches count as matched; so does the preferred tool
            hit = np.zeros(size, dtype=np.bool_)
            for v in vectors:
                hit[v.positions[: v.ranking]] = True
            if preferred is not None:
                hit[preferred] = True
        # the words' postings bound the tools matched: many of them is a large share of the catalog
        many = _MANY_MATCHED * postings > size
        docs = best(scores, depth, hit, many)
        rank_scores, support, named = totals.reshape(3, size).take(docs, axis=1).tolist()
        matched = int(np.count_nonzero(scores if hit is None else hit)) if count else None
        return Ranked(docs.tolist(), rank_scores, support, named, matched)

    def doc_hits(self, doc: int, terms: tuple[QueryTerm, ...]) -> list[tuple[int, int, int]]:
        """For one tool: each query term's best match in it, as (term position, match position,
        bitmask of the fields hit)."""
        fields = self._doc_fields[doc]
        out: list[tuple[int, int, int]] = []
        for i, qt in enumerate(terms):
            for j, match in enumerate(qt.matches):
                mask = fields.get(match.term)
                if mask:
                    out.append((i, j, mask))
                    break
        return out
