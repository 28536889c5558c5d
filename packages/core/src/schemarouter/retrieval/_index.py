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

import numpy as np
from numpy.typing import NDArray

from ..analysis._analyzer import Analyzer
from ..analysis._arguments import ARGUMENT_FIELDS, argument_factor, argument_factors
from ..analysis._breadth import CONTENT_FIELDS, CONTENT_MASK, content_factor, content_factors
from ..analysis._document import AnalyzedTools
from ..analysis._fields import FIELDS, IDENTIFIER_FIELDS
from ..analysis._query import QueryAnalyzer
from ..analysis._terms import ACTION_MARK, SOURCE_MARK, QueryTerm
from ..analysis._vocabulary import Vocabulary
from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ._action_boost import ActionBoosts, Boost, named_siblings
from ._index_settings import IndexSettings
from ._index_store import WORD_LISTS, DocFields, IndexArrays, restored_tables
from ._ranking import (
    DocArray,
    EvidenceVector,
    MatchEvidence,
    Ranked,
    TermPlan,
    WeightArray,
    WordVector,
    add_up,
    best,
    merged,
    postings_of,
)

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
_ARGUMENTS_MASK = sum(_FIELD_BIT[f] for f in ARGUMENT_FIELDS)
"""Parameter names and parameter text: what a tool takes (`_arguments`)."""
_VECTOR_CACHE_POSTINGS = 4_000_000
_MANY_MATCHED = 4
"""`rank` reads the cutoff off every score when the query words' ranking postings, times this,
outnumber the tools (see `best`)."""


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
        raw_takes: dict[str, list[bool]] = {}
        raw_df: dict[str, float] = {}
        self._doc_fields: Sequence[dict[str, int]] = []
        fields_of_docs: list[dict[str, int]] = self._doc_fields
        factors: list[float] = []
        # what a term says as a parameter, by how many tools take it (`_arguments`)
        argument = argument_factors(doc_counts, n_docs, settings.argument_power)
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
                says = argument.get(term, 1.0)
                for name, tf in tf_fields.items():
                    part = weights[name] * tf / norms[name]
                    if name in ARGUMENT_FIELDS:
                        part *= says
                    if name in CONTENT_FIELDS:
                        content += part
                    else:
                        own += part
                    mask |= _FIELD_BIT[name]
                pseudo_tf = own + factor * content
                fields_hit[term] = mask
                named = bool(mask & _IDENTIFIER_MASK)
                # a term counts towards its rarity as much as it counts in the tool
                share = 1.0
                if mask & ~CONTENT_MASK == 0:
                    share = factor * (says if mask & ~_ARGUMENTS_MASK == 0 else 1.0)
                docs = raw_docs.get(term)
                if docs is None:
                    raw_docs[term] = [doc]
                    raw_tf[term] = [pseudo_tf]
                    raw_named[term] = [named]
                    raw_argument[term] = [mask == _ARGUMENT_MASK]
                    raw_takes[term] = [mask & ~_ARGUMENTS_MASK == 0]
                    raw_df[term] = share
                else:
                    docs.append(doc)
                    raw_tf[term].append(pseudo_tf)
                    raw_named[term].append(named)
                    raw_argument[term].append(mask == _ARGUMENT_MASK)
                    raw_takes[term].append(mask & ~_ARGUMENTS_MASK == 0)
                    raw_df[term] += share
            fields_of_docs.append(fields_hit)
        self._content_factor: NDArray[np.float64] = np.array(factors, dtype=np.float64)
        """Per tool: what each word of its descriptive fields is worth (see `_breadth`)."""
        for doc, action in enumerate(tools.actions):
            if action is not None:  # the tool's action as a posting of its own (`ACTION_MARK`)
                term = ACTION_MARK + action.action
                raw_docs.setdefault(term, []).append(doc)
                raw_tf.setdefault(term, []).append(action.strength)
                fields_of_docs[doc][term] = 0
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
        # term -> per posting: does the term hit that tool's parameters alone (see `_arguments`)?
        self._takes: Mapping[str, NDArray[np.bool_]] = {}
        takes_of_terms: dict[str, NDArray[np.bool_]] = self._takes
        self._taken: Mapping[str, NDArray[np.bool_]] | None = None
        """Restored indexes only: per posting, does the term hit the tool's parameters at all."""
        self._says: dict[str, float] = argument
        """Term -> what it says as a parameter (`_arguments`), where below 1."""
        max_idf = math.log(1.0 + (n_docs - 0.5) / 1.5)
        self._max_idf = max(max_idf, 1e-9)
        for term in sorted(raw_docs):
            docs = raw_docs[term]
            df = len(docs)
            if term.startswith(ACTION_MARK):
                # a tool's action: what the weight holds is how far it is trusted
                self._idf[term] = 0.0
                postings_of_terms[term] = postings_of(docs, raw_tf[term])
                named_of_terms[term] = argument_of_terms[term] = np.zeros(df, dtype=np.bool_)
                takes_of_terms[term] = named_of_terms[term]
                continue
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
            takes_of_terms[term] = np.array(raw_takes[term], dtype=np.bool_)
        self._boosts = ActionBoosts(self._postings, settings.action_weight, len(self._caps))
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
        tables = restored_tables(arrays, _IDENTIFIER_MASK, _ARGUMENT_MASK, _ARGUMENTS_MASK)
        idf, postings = tables.idf, tables.postings
        index._idf, index._postings, index._named, index._argument = (
            idf,
            postings,
            tables.named,
            tables.argument,
        )
        index._takes, index._taken, index._says = tables.takes, tables.taken, {}
        index._doc_fields = DocFields(arrays, len(index._caps))
        index._boosts = ActionBoosts(postings, settings.action_weight, len(index._caps))
        index._content_factor = content_factors(
            arrays.docs, arrays.fields, len(index._caps), settings.breadth_reference, settings.breadth_power
        )
        index._max_idf = arrays.max_idf
        words = {name: frozenset(arrays.words[name]) for name in WORD_LISTS}
        tools = AnalyzedTools(
            [], [], [], words["word_terms"], words["name_wholes"], words["surface_words"], words["own_words"]
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
        (a source's words are no descriptive words), and a hit on a tool's parameters alone what
        the term says as a parameter (`_arguments`)."""
        other = np.where(argument, on_argument, elsewhere)
        if term.startswith(SOURCE_MARK):
            return other
        other = other * self._content_factor[docs]
        says = self.argument_factor(term)
        return np.where(self._takes[term], other * says, other) if says < 1.0 else other

    def argument_factor(self, term: str) -> float:
        """What an indexed term says as a parameter (`_arguments`): 1.0 unless several tools
        take it as one."""
        says = self._says.get(term)
        if says is None:
            taken = self._taken
            count = int(np.count_nonzero(taken[term])) if taken is not None and term in taken else 0
            says = argument_factor(count, len(self._caps), self.settings.argument_power)
            if taken is not None:
                self._says[term] = says  # a restored index works it out when first asked
        return says

    def content_factor(self, doc: int) -> float:
        """What each word of this tool's description and parameters is worth (see `_breadth`);
        1.0 for all but the broadest tools."""
        return float(self._content_factor[doc])

    def _word_vector(self, qt: QueryTerm, weights: Sequence[MatchEvidence]) -> WordVector:
        docs, values = self._plan(qt)
        positive = values.size == 0 or float(values.min()) > 0.0
        evidence = self.term_evidence(qt, weights)
        if evidence is None:
            return WordVector(docs, values, len(docs), positive, docs[:0])
        hit, total, named_docs, identifier = evidence
        size = len(self._caps)
        return WordVector(
            np.concatenate((docs, hit + size, named_docs + 2 * size)),
            np.concatenate((values, total, identifier)),
            len(docs),
            positive,
            named_docs,
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
        action: str | None = None,
        action_evidence: float = 0.0,
    ) -> Ranked:
        """The best `depth` tools by BM25F score (ties by route), with their gate evidence.

        The same ranking as sorting every matched tool by (-score, route), without the sort.
        Scores and evidence are summed in query-term order by one `bincount`, so each is the
        float a scalar walk of each tool gives (the tests hold it to one); with the request's
        `action` (`QueryAnalyzer.action`), the score of each tool the request names (a word of
        it hits the tool's name or title) is then scaled by how well the tool's action agrees
        (see `ActionBoosts`): the action tells apart siblings over the object the request names.
        Where the two actions are the same, `action_evidence` times the trust in the tool's
        action is added to the tool's gate evidence. `preferred` (a tool position) competes even when
        no term matches it, with score 0. `key` and `weights_of` are those of `word_vectors`.
        Without `count`, `Ranked.matched` is None.
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
        boost = self._boosts.of(action) if action is not None else None
        siblings = self._named_siblings(terms, vectors, boost) if boost is not None else None
        if siblings is not None:
            tools, factors, same = siblings
            scores[tools] *= factors  # a view: the scores reported are scaled too
            if action_evidence > 0.0:
                # the same action is evidence too: the request names the tool and what it does
                totals[size + tools] += action_evidence * same
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

    def _named_siblings(
        self, terms: tuple[QueryTerm, ...], vectors: list[WordVector], boost: Boost
    ) -> tuple[DocArray, WeightArray, WeightArray] | None:
        """`boost` among the tools the request names by an object word (see `named_siblings`)."""
        matched = [qt for qt in terms if qt.matches]  # `word_vectors` keeps the terms that match
        return named_siblings(
            boost, [v for qt, v in zip(matched, vectors, strict=True) if not qt.says_action]
        )

    def sibling_factors(
        self,
        query: str,
        key: Hashable,
        weights_of: Callable[[QueryTerm], Sequence[MatchEvidence]],
    ) -> tuple[DocArray, WeightArray, WeightArray] | None:
        """The tools whose ranking score the action of `query` scales (see `rank`), each one's
        factor and trust in the same action; None when it scales none. `key` and `weights_of`
        are `word_vectors`'."""
        terms, action = self._analyzer.read(query)
        boost = self._boosts.of(action) if action is not None else None
        if boost is None:
            return None
        return self._named_siblings(terms, self.word_vectors(terms, key, weights_of), boost)

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
