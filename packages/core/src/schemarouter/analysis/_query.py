"""The request side of the analysis chain: a request's text as the terms the index scores.

The request is tokenised as tool text is (`_text`), a mixed-case word or a pasted tool name read
whole when the catalog knows it whole, two adjacent words also as one ("web site" -> `website`)
when the catalog could hold that word, and the file names it mentions as the words for their
formats (`_paths`). Each distinct word is then matched against the `Vocabulary`: its stem, longer
words it starts, a catalog word it misspells (`_typo`), the parts of a run-together word
(`_segment`), the word an abbreviation stands for, its synonyms (`_synonyms`), a source's name;
and weighed by how specific it is in everyday English (`_commonness`). Every per-word result is
remembered in bounded tables (`_memo`), so a request mostly looks words up.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from dataclasses import replace

from ._abbreviations import ABBREVIATIONS
from ._actions import ActionReader
from ._commonness import english_count, specificity
from ._memo import remember
from ._paths import path_words
from ._segment import segment
from ._spelling import american
from ._stemming import Stemmer
from ._terms import SOURCE_MARK, AnalysisSettings, QueryTerm, TermMatch
from ._text import joined_whole, mixed_case_whole, text_tokens
from ._vocabulary import Vocabulary

__all__ = ["MAX_QUERY_TERMS", "QueryAnalyzer"]

MAX_QUERY_TERMS = 64
"""Distinct words of a request that are weighed; the words after them are not."""
_RESOLVE_CACHE = 50_000


class QueryAnalyzer:
    """Reads requests into `QueryTerm`s against one vocabulary. Thread-safe: its tables only
    remember results (see `_memo`)."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        settings: AnalysisSettings,
        stemmer: Stemmer,
        synonyms: dict[str, tuple[tuple[str, str], ...]],
        actions: ActionReader | None = None,
    ) -> None:
        self.settings = settings
        self._actions = actions if actions is not None else ActionReader()
        self._vocabulary = vocabulary
        self._stemmer = stemmer
        self._synonyms = synonyms
        # the vocabulary's tables, read on every request: bound here, one lookup each
        self._idf = vocabulary.idf
        self._word_terms = vocabulary.word_terms
        self._name_wholes = vocabulary.name_wholes
        self._surface_words = vocabulary.surface_words
        self._corrector = vocabulary.corrector
        self._longest_term = vocabulary.longest_term
        self._joinable_terms = vocabulary.joinable_terms
        self._resolved: dict[str, QueryTerm] = {}
        self._request_words: dict[str, tuple[tuple[str, ...], str | None, bool]] = {}
        """A request's whitespace-separated word -> its tokens, the action it says, and whether it
        names things in the plural (see `_actions`)."""
        self._joined: dict[str, bool] = {}

    @property
    def vocabulary(self) -> Vocabulary:
        return self._vocabulary

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
            longer = self._vocabulary.longer_terms(word)
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
        # as everyday as its most common form: "writing" as "write" (a stem that is no word counts as rare)
        base = min(specific, specificity(word)) if word != surface and word.isalpha() else specific
        rarity = max((self._vocabulary.rarity(m.term) * m.quality for m in matches), default=0.0)
        return remember(
            self._resolved,
            surface,
            QueryTerm(
                surface,
                word,
                specific,
                rarity * specific,
                tuple(matches),
                corrected,
                frozenset(by_synonym),
                base_specificity=base,
                says_action=self._actions.says_action(surface),
            ),
            _RESOLVE_CACHE,
        )

    def action(self, query: str) -> str | None:
        """The action `query` asks for (`list`, `get`, `create`, ...; see `_actions`), or None."""
        return self._actions.request(query)

    def read(self, query: str) -> tuple[tuple[QueryTerm, ...], str | None]:
        """`query_terms(query)` and `action(query)`, each word of the request read once."""
        return self._terms(query)

    def corrected_text(self, query: str) -> str:
        """`query` with each misspelt word replaced by the catalog word it is read as (the same
        reading ranking and the gate use); `query` itself when no word is corrected. Hybrid mode
        encodes this text, so that the semantic side reads "wheather" as "weather" too."""
        fixes = [(t.surface, t.corrected) for t in self.query_terms(query) if t.corrected]
        for surface, word in fixes:
            query = re.sub(rf"\b{re.escape(surface)}\b", word, query, flags=re.IGNORECASE)
        return query

    def _request_tokens(self, query: str) -> tuple[list[str], str | None]:
        """The request's tokens (see `text_tokens`), a word written in mixed case read whole
        when the catalog indexes it whole (`YouTube` -> `youtube`), and as its parts otherwise
        (`getWeather` -> `get`, `weather`); and the action it asks for (`ActionReader.request`,
        read off the same words)."""
        if not query.isascii():
            query = unicodedata.normalize("NFKC", query)
        out: list[str] = []
        cache = self._request_words
        action: str | None = None
        many = False
        for word in query.split():
            entry = cache.get(word)
            if entry is None:
                entry = remember(
                    cache, word, (self._word_tokens(word), *self._actions.piece(word)), _RESOLVE_CACHE
                )
            out.extend(entry[0])
            if action is None:
                action = entry[1]
            elif action == "show" and entry[1] is None:
                many = many or entry[2]
        if action == "show":  # "show", "what": a list when a later word names things in the plural
            action = "list" if many else "get"
        return out, action

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
        return self._terms(query)[0]

    def _terms(self, query: str) -> tuple[tuple[QueryTerm, ...], str | None]:
        """`query_terms(query)`, and the action the request asks for."""
        seen: set[str] = set()
        words: set[str] = set()
        out: list[QueryTerm] = []
        synonyms = False
        raw, action = self._request_tokens(query)
        tokens = self._with_joined(raw)
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
            if len(out) >= MAX_QUERY_TERMS:
                break
        return (self._synonyms_once(out) if synonyms else tuple(out)), action

    def unweighed_words(self, query: str) -> tuple[str, ...]:
        """The request's distinct words past the first 64 that `query_terms` weighs (empty for
        almost every request): what a long request loses, so that callers can say so."""
        tokens = self._with_joined(self._request_tokens(query)[0])
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
            if len(words) > MAX_QUERY_TERMS:
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
        rarity = max((self._vocabulary.rarity(m.term) * m.quality for m in matches), default=0.0)
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
            term.base_specificity,
            term.says_action,
        )
