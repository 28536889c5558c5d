"""Field-aware lexical index (BM25F-style) over one catalog version.

Built once per catalog version: every tool is tokenised, stemmed and weighted here, so a
query only stems its own words and reads the postings of its terms. Ranking uses BM25F
(per-field length normalisation and weights, one saturation per term); the evidence the
no-route gate needs (which query terms hit which fields, and how rare they are) comes from
the same postings. What each query word contributes to either is computed once per word and
cached, so a request mostly sums cached vectors.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..analysis._abbreviations import ABBREVIATIONS
from ._abstention import RetrievalAbstentionPolicy
from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ..analysis._commonness import english_count, specificity
from ..analysis._fields import FIELDS, IDENTIFIER_FIELDS, field_tokens
from ..analysis._memo import remember
from ..analysis._paths import path_words
from ._ranking import DocArray, TermPlan, WeightArray, add_up, best, merged, postings_of
from ._results import Retrieval
from ..analysis._segment import MIN_PART, segment
from ..analysis._spelling import american
from ..analysis._stemming import Stemmer
from ..analysis._synonyms import synonyms_by_stem
from ..analysis._text import joined_whole, mixed_case_whole, text_tokens
from ..analysis._typo import Corrector

__all__ = [
    "EvidenceVector",
    "IndexSettings",
    "LexicalIndex",
    "QueryTerm",
    "Ranked",
    "SOURCE_MARK",
    "TermMatch",
    "WORD_FIELDS",
    "WordVector",
]

_FIELD_BIT = {name: 1 << i for i, name in enumerate(FIELDS)}
_IDENTIFIER_MASK = sum(_FIELD_BIT[f] for f in IDENTIFIER_FIELDS)
WORD_FIELDS = tuple(name for name in FIELDS if name != "source")
"""The fields indexed as the tool's own words; `source` is indexed apart (see `SOURCE_MARK`)."""
SOURCE_MARK = "\x00"
"""Starts the terms of a source's name. A source's words are counted apart from the tools' own
words: in a one-server catalog named `weather` every tool has the source word, and counted as
one term with the descriptions' `weather` it would make that word common to every tool and so
worth nothing. Apart, a source term is as rare as the share of the catalog its server holds, and
the word keeps its own rarity in the tools that use it."""
_MAX_EXPANSIONS = 12
_MAX_QUERY_TERMS = 64
_RESOLVE_CACHE = 50_000
_VECTOR_CACHE_POSTINGS = 4_000_000
_MANY_MATCHED = 4
"""`rank` reads the cutoff off every score when the query words' ranking postings, times this,
outnumber the tools (see `best`)."""


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
    number_specificity: float = 0.2
    """Specificity of an all-digit query word: numbers are argument values far more often than
    they name what a tool does, so `100` matching "c-100" in a parameter description must not
    route on its own."""


@dataclass(frozen=True, slots=True)
class TermMatch:
    """One indexed term a query term matches, and how well (1.0 = same stem)."""

    term: str
    quality: float
    kind: str = "exact"
    """`exact` (same stem), `prefix` (one word starts the other), `part` (of a run-together word),
    `expansion` (the word an abbreviation stands for), `typo` (a catalog word one edit away),
    `synonym` (another word of the request word's group in `_synonyms`) or `source` (a word of
    a source's name, see `SOURCE_MARK`)."""
    read_as: str | None = None
    """The word the request word is read as: for a `typo` match the catalog word it stands for,
    for a `synonym` match the synonym (`fetch` read as `retrieve`)."""


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """A query word: its surface form, its stem, what it matches in the index and its weight.

    `specificity` (in [0, 1]) says how unusual the word is in everyday English; `weight`
    is the evidence a hit on it carries: catalog rarity of the best match times specificity.
    """

    surface: str
    word: str
    specificity: float
    weight: float
    matches: tuple[TermMatch, ...]
    corrected: str | None = None
    """For a misspelt word, the catalog word it is read as (`wheather` -> `weather`)."""
    by_synonym: frozenset[str] = frozenset()
    """The indexed terms among `matches` that it reaches only as a synonym."""
    key: str = ""
    """What its per-word vectors are cached under: `surface`, or for a term whose synonym
    matches a request dropped (see `LexicalIndex.query_terms`), `surface` and what was dropped."""
    named_by: str | None = None
    """For a word a file name in the request stands for (see `_paths`), that file name."""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.surface)


def _count(counts: dict[str, dict[str, float]], term: str, field: str, weight: float) -> None:
    """Add `weight` to the frequency of `term` in `field` of one tool's `counts`."""
    tf = counts.get(term)
    if tf is None:
        tf = counts[term] = {}
    tf[field] = tf.get(field, 0.0) + weight


class LexicalIndex:
    """Built once per catalog version; queries touch only the postings of their terms."""

    def __init__(self, catalog: Catalog, settings: IndexSettings | None = None) -> None:
        self.catalog = catalog
        self.settings = settings = settings or IndexSettings()
        # Tools are numbered in route order: ranking breaks ties by position, which is by route.
        self._caps = tuple(sorted(catalog, key=lambda cap: cap.route))
        self._doc_by_route = {cap.route: doc for doc, cap in enumerate(self._caps)}
        self._stemmer = Stemmer()
        self._synonyms = synonyms_by_stem(self._stemmer.stem)
        stem = self._stemmer.stem
        per_doc = [field_tokens(cap) for cap in self._caps]
        surface_vocabulary = {
            tok
            for fields in per_doc
            for name in ("title", "description", "params", "param_text")
            for tok in fields[name]
            if len(tok) >= MIN_PART and tok.isalpha()
        }
        # Tokens repeat massively across tools: stem and segment each distinct token once.
        terms_of: dict[str, str] = {}
        parts_of: dict[str, tuple[str, ...]] = {}
        segment_weight, abbreviation_weight = settings.segment_weight, settings.abbreviation_weight
        # Per tool: term -> field -> term frequency (segments of run-together names count partially)
        doc_counts: list[dict[str, dict[str, float]]] = []
        lengths: list[dict[str, float]] = []
        # the tool names of several parts written as one word (`get_customer` -> `getcustomer`)
        name_wholes: set[str] = set()
        word_terms: set[str] = set()  # the terms of the tools' words, the names whole aside
        sources_seen: dict[str, list[tuple[str, float]]] = {}
        for cap, fields in zip(self._caps, per_doc, strict=True):
            counts: dict[str, dict[str, float]] = {}
            doc_lengths: dict[str, float] = {}
            for name in WORD_FIELDS:
                tokens = fields[name]
                doc_lengths[name] = float(len(tokens))
                identifier = name in IDENTIFIER_FIELDS
                expand = (identifier or name == "params") and abbreviation_weight > 0.0
                for tok in tokens:
                    term = terms_of.get(tok)
                    if term is None:
                        term = terms_of[tok] = stem(tok)
                    _count(counts, term, name, 1.0)
                    full = ABBREVIATIONS.get(tok) if expand else None
                    if full is not None:
                        spelled = terms_of.get(full)
                        if spelled is None:
                            spelled = terms_of[full] = stem(full)
                        _count(counts, spelled, name, abbreviation_weight)
                    if identifier and tok not in surface_vocabulary and tok.isalpha():
                        parts = parts_of.get(tok)
                        if parts is None:
                            parts = parts_of[tok] = tuple(
                                stem(part) for part in segment(tok, surface_vocabulary)
                            )
                        for part in parts:
                            _count(counts, part, name, segment_weight)
            word_terms.update(counts)
            doc_lengths["source"] = float(len(fields["source"]))
            source_terms = sources_seen.get(cap.source)
            if source_terms is None:
                source_terms = sources_seen[cap.source] = self._source_terms(
                    fields["source"], surface_vocabulary, settings
                )
            for term, weight in source_terms:
                _count(counts, term, "source", weight)
            # A name of several parts also counts whole, once, outside the field's length: a
            # request naming the tool (`get_customer`, `getCustomer`) then names this tool alone.
            # The whole is its own term, unstemmed: a name is matched as written (and stemming ten
            # thousand long joined names took half a second). A camelCase name is already indexed
            # whole among its tokens (`getWeather` -> `getweather`).
            whole = joined_whole(cap.name)
            if whole is not None and whole not in fields["name"]:
                _count(counts, whole, "name", 1.0)
                name_wholes.add(whole)
            doc_counts.append(counts)
            lengths.append(doc_lengths)
        n_docs = max(len(self._caps), 1)
        average = {name: max(sum(d[name] for d in lengths) / n_docs, 1.0) for name in FIELDS}
        weights, b_values, k1 = settings.field_weights, settings.field_b, settings.k1
        # term -> tools and their pseudo term frequencies, in tool order; tool -> term -> fields hit
        raw_docs: dict[str, list[int]] = {}
        raw_tf: dict[str, list[float]] = {}
        raw_named: dict[str, list[bool]] = {}
        self._doc_fields: list[dict[str, int]] = []
        for doc, counts in enumerate(doc_counts):
            doc_lengths = lengths[doc]
            norms = {
                name: 1.0 - b_values[name] + b_values[name] * doc_lengths[name] / average[name]
                for name in FIELDS
            }
            fields_hit: dict[str, int] = {}
            for term, tf_fields in counts.items():
                pseudo_tf = 0.0
                mask = 0
                for name, tf in tf_fields.items():
                    pseudo_tf += weights[name] * tf / norms[name]
                    mask |= _FIELD_BIT[name]
                fields_hit[term] = mask
                named = bool(mask & _IDENTIFIER_MASK)
                docs = raw_docs.get(term)
                if docs is None:
                    raw_docs[term] = [doc]
                    raw_tf[term] = [pseudo_tf]
                    raw_named[term] = [named]
                else:
                    docs.append(doc)
                    raw_tf[term].append(pseudo_tf)
                    raw_named[term].append(named)
            self._doc_fields.append(fields_hit)
        self._idf: dict[str, float] = {}
        # term -> (tools, their BM25F weights): a query only multiplies and adds
        self._postings: dict[str, tuple[DocArray, WeightArray]] = {}
        # term -> per posting: does the term hit that tool's identifiers (name, title)?
        self._named: dict[str, NDArray[np.bool_]] = {}
        max_idf = math.log(1.0 + (n_docs - 0.5) / 1.5)
        self._max_idf = max(max_idf, 1e-9)
        for term in sorted(raw_docs):
            docs = raw_docs[term]
            df = len(docs)
            if df == n_docs and term.startswith(SOURCE_MARK):
                # a source word every tool shares (a one-server catalog) tells no tool apart: not
                # even a near-zero hit is left for it, in ranking or as evidence
                continue
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            self._idf[term] = idf
            self._postings[term] = postings_of(
                docs, [idf * pseudo_tf / (k1 + pseudo_tf) for pseudo_tf in raw_tf[term]]
            )
            self._named[term] = np.array(raw_named[term], dtype=np.bool_)
        self._surface_words = frozenset(surface_vocabulary)
        self._name_wholes = frozenset(name_wholes)
        # typos are corrected towards the tools' own words, each of which is an indexed term
        self._corrector = Corrector(
            {tok for fields in per_doc for name in WORD_FIELDS for tok in fields[name]}
        )
        # Prefix matches and joined request words look among the tools' words only: a name whole
        # is matched as a whole (`recipe` is no prefix of the name `recipe_retrieval`).
        self._word_terms = frozenset(word_terms)
        # sorted: prefix expansion bisects it per query word
        self._sorted_terms = tuple(t for t in self._idf if t in word_terms)
        self._longest_term = max(map(len, self._sorted_terms), default=0)
        # what two request words written as one may match: the tools' words and the sources' words
        source_words = {t[len(SOURCE_MARK) :] for t in self._idf if t.startswith(SOURCE_MARK)}
        self._joinable_terms = tuple(sorted(source_words.union(self._sorted_terms)))
        self._resolved: dict[str, QueryTerm] = {}
        self._request_words: dict[str, tuple[str, ...]] = {}
        self._joined: dict[str, bool] = {}
        self._vectors: dict[Hashable, dict[str, WordVector]] = {}
        self._vectors_size = 0
        self._last_vectors: tuple[Hashable, dict[str, WordVector]] | None = None
        """The cache of the key asked for last: a request finds it by identity, without hashing
        the key (the gate's settings hash field by field)."""

    def _source_terms(
        self, tokens: list[str], surface_vocabulary: set[str], settings: IndexSettings
    ) -> list[tuple[str, float]]:
        """The terms of a source's name and their weights: each token's stem, and the parts of a
        run-together one (`hackernews`), marked apart from the tools' words (see `SOURCE_MARK`)."""
        stem = self._stemmer.stem
        out: list[tuple[str, float]] = []
        for tok in tokens:
            out.append((SOURCE_MARK + stem(tok), 1.0))
            if tok not in surface_vocabulary and tok.isalpha():
                parts = segment(tok, surface_vocabulary)
                out.extend((SOURCE_MARK + stem(part), settings.segment_weight) for part in parts)
        return out

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

    def _longer_terms(self, prefix: str) -> list[str]:
        """The shortest indexed words (at most `_MAX_EXPANSIONS`) that `prefix` starts, shortest first."""
        terms = self._sorted_terms
        longer: list[str] = []
        for position in range(bisect_left(terms, prefix), len(terms)):
            term = terms[position]
            if not term.startswith(prefix):
                break
            if len(term) > len(prefix) and term.isalpha():
                longer.append(term)
        return sorted(longer, key=lambda t: (len(t), t))[:_MAX_EXPANSIONS]

    def _resolve(self, surface: str) -> QueryTerm:
        cached = self._resolved.get(surface)
        if cached is not None:
            return cached
        settings = self.settings
        # a tool's name pasted whole is matched as written (see `joined_whole`), never stemmed
        word = surface if surface in self._name_wholes else self._stemmer.stem(surface)
        matches: list[TermMatch] = []
        # the word the request means, as everyday English knows it: a misspelt word's correction
        # (below), or the American spelling of a word the list knows only in that spelling
        meant = surface
        if surface.isalpha() and not english_count(surface):
            meant = american(surface)
        corrected: str | None = None
        if word in self._idf:
            # a word the list knows only in its other spelling ("resise" / "resize") says so
            matches.append(TermMatch(word, 1.0, read_as=meant if meant != surface else None))
        if word.isalpha() and len(word) >= settings.min_prefix:
            longer = self._longer_terms(word)
            matches.extend(TermMatch(t, settings.prefix_quality, "prefix") for t in longer if t != word)
            # no indexed term is longer than the longest one: a pasted run of letters costs no more
            for end in range(min(len(word) - 1, self._longest_term), settings.min_prefix - 1, -1):
                if word[:end] in self._word_terms:
                    matches.append(TermMatch(word[:end], settings.prefix_quality, "prefix"))
                    break
            # a misspelt word: the catalog words it may stand for (see `_typo`)
            typo_off = settings.typo_quality <= 0.0 or word in self._idf
            corrections = () if typo_off else self._corrector.corrections(surface)
            if corrections:
                # weighed as the word it stands for: "nmber" is as everyday as "number"
                meant = corrected = max(corrections, key=lambda w: (specificity(w), w))
                typos: dict[str, str] = {}  # indexed term -> the catalog word read
                for correction in corrections:
                    typos.setdefault(self._stemmer.stem(correction), correction)
                # the correction replaces a looser prefix match to the same term
                matches = [m for m in matches if m.term not in typos]
                matches.extend(TermMatch(t, settings.typo_quality, "typo", w) for t, w in typos.items())
            if not matches and specificity(surface) >= settings.compound_min_specificity:
                # A word of everyday English is a word in its own right, not a run-together name.
                parts = segment(surface, self._surface_words) or segment(word, self._idf)
                for part in dict.fromkeys(parts):
                    term = self._stemmer.stem(part)
                    if term in self._idf:
                        matches.append(TermMatch(term, settings.compound_quality, "part"))
        full = ABBREVIATIONS.get(surface) if settings.abbreviation_weight > 0.0 else None
        if full is not None:
            spelled = self._stemmer.stem(full)
            if spelled in self._idf and all(m.term != spelled or m.kind == "prefix" for m in matches):
                # `repo` starts `repositori`: the expansion replaces that looser prefix match
                matches = [m for m in matches if m.term != spelled]
                matches.append(TermMatch(spelled, settings.abbreviation_weight, "expansion"))
        by_synonym: set[str] = set()
        if settings.synonym_quality > 0.0:
            for other, synonym in self._synonyms.get(word, ()):
                if other in self._idf and all(m.term != other or m.kind == "prefix" for m in matches):
                    # the synonym replaces a looser prefix match (`photographs` starts with `photo`)
                    matches = [m for m in matches if m.term != other]
                    matches.append(TermMatch(other, settings.synonym_quality, "synonym", synonym))
                    by_synonym.add(other)
        source_term = SOURCE_MARK + word
        if source_term in self._idf:  # the word names a source (an MCP server) of the catalog
            matches.append(TermMatch(source_term, 1.0, "source"))
        if surface.isdigit():
            # Numbers in a request are argument values (amounts, ids, dates), not what the tool does.
            specific = settings.number_specificity
        else:
            specific = specificity(meant) if surface.isalpha() else 1.0
        rarity = max((self.rarity(m.term) * m.quality for m in matches), default=0.0)
        return remember(
            self._resolved,
            surface,
            QueryTerm(
                surface, word, specific, rarity * specific, tuple(matches), corrected, frozenset(by_synonym)
            ),
            _RESOLVE_CACHE,
        )

    def corrected_text(self, query: str) -> str:
        """`query` with each misspelt word replaced by the catalog word it is read as (the same
        reading ranking and the gate use); `query` itself when no word is corrected. Hybrid mode
        encodes this text, so that the semantic side reads "wheather" as "weather" too."""
        fixes = [(t.surface, t.corrected) for t in self.query_terms(query) if t.corrected]
        for surface, word in fixes:
            query = re.sub(rf"\b{re.escape(surface)}\b", word, query, flags=re.IGNORECASE)
        return query

    def _request_tokens(self, query: str) -> list[str]:
        """The request's tokens (see `text_tokens`), a word written in mixed case read whole
        when the catalog indexes it whole (`YouTube` -> `youtube`), and as its parts otherwise
        (`getWeather` -> `get`, `weather`)."""
        if not query.isascii():
            query = unicodedata.normalize("NFKC", query)
        out: list[str] = []
        cache = self._request_words
        for word in query.split():
            tokens = cache.get(word)
            if tokens is None:
                tokens = remember(cache, word, self._word_tokens(word), _RESOLVE_CACHE)
            out.extend(tokens)
        return out

    def _word_tokens(self, word: str) -> tuple[str, ...]:
        parts = text_tokens(word)
        whole = mixed_case_whole(word)
        if whole is not None and self._stemmer.stem(whole) in self._idf:
            return (whole,)
        # a tool's name pasted into the request (`get_customer`): its parts, then the name whole
        joined = joined_whole(word)
        if joined is not None and joined not in parts and joined in self._name_wholes:
            return (*parts, joined)
        return tuple(parts)

    def _with_joined(self, tokens: list[str]) -> list[str]:
        """`tokens`, each pair of adjacent words followed by the pair written as one word when the
        catalog indexes that word ("non profit" -> `nonprofit`, "web site" -> `website`)."""
        out: list[str] = []
        terms = self._joinable_terms
        known = self._joined
        previous = ""
        for tok in tokens:
            out.append(tok)
            if previous and tok.isalpha():
                joined = previous + tok
                indexed = known.get(joined)
                if indexed is None:
                    # A stem keeps the start of the word: skip the stemmer unless some term could match.
                    start = joined[: len(previous) + 1]
                    position = bisect_left(terms, start)
                    indexed = (
                        position < len(terms)
                        and terms[position].startswith(start)
                        and (
                            (stemmed := self._stemmer.stem(joined)) in self._word_terms
                            or SOURCE_MARK + stemmed in self._idf
                        )
                    )
                    remember(known, joined, indexed, _RESOLVE_CACHE)
                if indexed:
                    out.append(joined)
            previous = tok if tok.isalpha() else ""
        return out

    def query_terms(self, query: str) -> tuple[QueryTerm, ...]:
        """The query's distinct terms (stop-words removed), in order of first use.

        At most the first 64 distinct terms count: the words after them are not weighed. That
        bounds the per-word work of a request into which a whole document was pasted. The words
        for the files a request names (see `_paths`) come first, so that a long request's own
        words do not crowd them out.
        """
        seen: set[str] = set()
        words: set[str] = set()
        out: list[QueryTerm] = []
        synonyms = False
        tokens = self._with_joined(self._request_tokens(query))
        files = path_words(query)
        own: set[str] = set()
        if files:
            own = set(tokens)  # words of the request itself
            tokens = [*files, *tokens]  # first, so that a long request's words do not crowd them out
        for surface in tokens:
            if surface in seen:
                continue
            seen.add(surface)
            term = self._resolve(surface)
            if term.word in words:
                continue
            words.add(term.word)
            if files and surface in files and surface not in own:
                term = replace(term, named_by=files[surface])  # a file name's word, not the request's
            out.append(term)
            synonyms = synonyms or bool(term.by_synonym)
            if len(out) >= _MAX_QUERY_TERMS:
                break
        return self._synonyms_once(out) if synonyms else tuple(out)

    def unweighed_words(self, query: str) -> tuple[str, ...]:
        """The request's distinct words past the first 64 that `query_terms` weighs (empty for
        almost every request): what a long request loses, so that callers can say so."""
        tokens = self._with_joined(self._request_tokens(query))
        files = path_words(query)
        seen: set[str] = set()
        words: set[str] = set()
        out: list[str] = []
        for surface in [*files, *tokens]:
            if surface in seen:
                continue
            seen.add(surface)
            cached = self._resolved.get(surface)  # the stem, as `_resolve` finds it, without the rest
            word = cached.word if cached is not None else self._stemmer.stem(surface)
            if word in words:
                continue
            words.add(word)
            if len(words) > _MAX_QUERY_TERMS:
                out.append(surface)
        return tuple(out)

    def _synonyms_once(self, terms: list[QueryTerm]) -> tuple[QueryTerm, ...]:
        """`terms`, with each indexed term reached by synonym counted once per request: not when
        a request word reaches it otherwise (`fetch` adds nothing to `retrieve` in "fetch and
        retrieve"), and only for the first word reaching it as a synonym ("erase ... remove"
        counts `delete` once). A prefix match claims nothing: it brings no gate evidence."""
        claimed = {
            m.term for t in terms for m in t.matches if m.kind != "prefix" and m.term not in t.by_synonym
        }
        out: list[QueryTerm] = []
        for term in terms:
            dropped = term.by_synonym & claimed
            claimed |= term.by_synonym
            if dropped:
                term = self._without(term, dropped)
            out.append(term)
        return tuple(out)

    def _without(self, term: QueryTerm, dropped: frozenset[str]) -> QueryTerm:
        """`term` without its synonym matches to `dropped` (weighed again from what is left)."""
        matches = tuple(m for m in term.matches if m.term not in dropped)
        rarity = max((self.rarity(m.term) * m.quality for m in matches), default=0.0)
        return QueryTerm(
            term.surface,
            term.word,
            term.specificity,
            rarity * term.specificity,
            matches,
            term.corrected,
            term.by_synonym - dropped,
            term.surface + "\x00" + "\x00".join(sorted(dropped)),
            term.named_by,
        )

    def _plan(self, qt: QueryTerm) -> TermPlan:
        scale = qt.specificity**self.settings.specificity_focus
        postings = self._postings
        if len(qt.matches) == 1:
            match = qt.matches[0]
            docs, weights = postings[match.term]
            return docs, weights * (match.quality * scale)
        return merged(postings, [(m.term, m.quality * scale) for m in qt.matches], len(self._caps))

    def term_evidence(self, qt: QueryTerm, weights: Sequence[tuple[float, float]]) -> EvidenceVector | None:
        """The gate evidence one query term brings each tool it hits, and the part naming the tool.

        `weights[j]` is the (identifier hit, other hit) evidence of `qt.matches[j]`. A query
        term counts once per tool, through its best match there: an identifier hit (name,
        title) brings that match's `on_name` evidence, a hit elsewhere its `elsewhere`
        evidence. The identifier part is the `on_name` of the term's first match (in match
        order) hitting the tool, when that hit lands on an identifier; only tools with a
        non-zero identifier part are listed for it. None when the term brings no evidence
        anywhere. Tools are listed at most once, in position order, none with zero evidence.
        """
        matches = qt.matches
        useful = [j for j, (on_name, elsewhere) in enumerate(weights) if on_name or elsewhere]
        if not useful:
            return None
        postings, named_of = self._postings, self._named
        if useful == [0]:
            # Only the first match carries evidence (the usual case: an exact match followed
            # by prefix expansions): it is the best, and the first hit, wherever it hits.
            on_name, elsewhere = weights[0]
            docs, named = postings[matches[0].term][0], named_of[matches[0].term]
            total = np.where(named, on_name, elsewhere)
            named_docs = docs[named] if on_name else docs[:0]
            identifier = np.full(named_docs.size, on_name)
            if not elsewhere or not on_name:
                keep = total != 0.0
                return docs[keep], total[keep], named_docs, identifier
            return docs, total, named_docs, identifier
        size = len(self._caps)
        best = np.zeros(size, dtype=np.float64)
        first_named = np.zeros(size, dtype=np.float64)
        seen = np.zeros(size, dtype=np.bool_)
        # Matches after the last one with evidence add nothing; after the last with identifier
        # evidence, which match hits a tool first no longer matters.
        last = useful[-1]
        last_named = max((j for j in useful if weights[j][0]), default=-1)
        for j, (match, (on_name, elsewhere)) in enumerate(zip(matches[: last + 1], weights, strict=False)):
            docs, named = postings[match.term][0], named_of[match.term]
            if on_name or elsewhere:
                best[docs] = np.maximum(best[docs], np.where(named, on_name, elsewhere))
            if j <= last_named:
                if on_name:
                    first_named[docs[named & ~seen[docs]]] = on_name
                seen[docs] = True
        # a tool with identifier evidence has at least that much evidence, so it is a hit too
        hit = np.flatnonzero(best)
        named_docs = np.flatnonzero(first_named)
        return hit, best[hit], named_docs, first_named[named_docs]

    def _word_vector(self, qt: QueryTerm, weights: Sequence[tuple[float, float]]) -> WordVector:
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
        weights_of: Callable[[QueryTerm], Sequence[tuple[float, float]]],
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
        weights_of: Callable[[QueryTerm], Sequence[tuple[float, float]]],
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

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
    ) -> Retrieval:
        """The gated retrieval of `query` (see `gate`); `explain=False` leaves out the signals."""
        from ._gate import gate

        return gate(self, query, k, policy, preferred_route, explain=explain)
