"""The tool side of the analysis chain: a catalog's tools, field by field, as weighted terms.

Each field's tokens (`_fields`) pass the same filters a request's words do: stemming (with
British spellings and nouns read as `_stemming` reads them), an abbreviation's spelled-out word
beside it (`_abbreviations`), the known words inside a run-together name (`_segment`). A source's
words are marked apart (`SOURCE_MARK`), and a name of several parts also counts whole, unstemmed,
so that a request pasting it names that tool alone. The index only turns these counts into
postings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..catalog._capability import Capability
from ._abbreviations import ABBREVIATIONS
from ._actions import ActionReader, ToolAction
from ._examples import sibling_examples
from ._fields import IDENTIFIER_FIELDS, field_tokens
from ._segment import MIN_PART, segment
from ._stemming import Stemmer
from ._terms import SOURCE_MARK, WORD_FIELDS, AnalysisSettings
from ._text import joined_whole

__all__ = ["AnalyzedTools", "analyze_tools"]

FieldCounts = dict[str, dict[str, float]]
"""One tool's terms: term -> field -> term frequency (parts of run-together names count partially)."""


class AnalyzedTools(NamedTuple):
    """A catalog's tools as terms, in the order they were given, and the words a request's
    terms are matched against."""

    counts: list[FieldCounts]
    actions: list[ToolAction | None]
    """Per tool: what it does, as its contract says (`_actions`), or None."""
    lengths: list[dict[str, float]]
    """Per tool: field -> its length in tokens (a name whole and source parts aside)."""
    word_terms: frozenset[str]
    """The terms of the tools' own words (sources and names whole aside)."""
    name_wholes: frozenset[str]
    """The tool names of several parts written as one word (`get_customer` -> `getcustomer`)."""
    surface_words: frozenset[str]
    """The words (unstemmed, alphabetic, at least `MIN_PART` long) of titles, descriptions and
    parameters: what a run-together word may be split into."""
    own_words: frozenset[str]
    """Every unstemmed token of the tools' own fields: what a misspelt word may stand for."""


def _count(counts: FieldCounts, term: str, field: str, weight: float) -> None:
    """Add `weight` to the frequency of `term` in `field` of one tool's `counts`."""
    tf = counts.get(term)
    if tf is None:
        tf = counts[term] = {}
    tf[field] = tf.get(field, 0.0) + weight


def _source_terms(
    tokens: list[str], surface_vocabulary: set[str], stemmer: Stemmer, settings: AnalysisSettings
) -> list[tuple[str, float]]:
    """The terms of a source's name and their weights: each token's stem, and the parts of a
    run-together one (`hackernews`), marked apart from the tools' words (see `SOURCE_MARK`)."""
    stem = stemmer.stem
    out: list[tuple[str, float]] = []
    for tok in tokens:
        out.append((SOURCE_MARK + stem(tok), 1.0))
        if tok not in surface_vocabulary and tok.isalpha():
            parts = segment(tok, surface_vocabulary)
            out.extend((SOURCE_MARK + stem(part), settings.segment_weight) for part in parts)
    return out


def analyze_tools(
    caps: Sequence[Capability], stemmer: Stemmer, settings: AnalysisSettings, actions: ActionReader
) -> AnalyzedTools:
    """Every tool of `caps` as weighted terms per field, and its action (see the module docstring)."""
    stem = stemmer.stem
    per_doc = [field_tokens(cap) for cap in caps]
    surface_vocabulary = {
        tok
        for fields in per_doc
        for name in ("title", "description", "params", "param_text", "param_examples")
        for tok in fields[name]
        if len(tok) >= MIN_PART and tok.isalpha()
    }
    # Tokens repeat massively across tools: stem and segment each distinct token once.
    terms_of: dict[str, str] = {}
    parts_of: dict[str, tuple[str, ...]] = {}
    segment_weight, abbreviation_weight = settings.segment_weight, settings.abbreviation_weight
    example_weight = settings.example_weight
    doc_counts: list[FieldCounts] = []
    lengths: list[dict[str, float]] = []
    name_wholes: set[str] = set()
    word_terms: set[str] = set()  # the terms of the tools' words, the names whole aside
    sources_seen: dict[str, list[tuple[str, float]]] = {}
    shared = sibling_examples(per_doc)
    for doc, (cap, fields) in enumerate(zip(caps, per_doc, strict=True)):
        counts: FieldCounts = {}
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
                        parts = parts_of[tok] = tuple(stem(part) for part in segment(tok, surface_vocabulary))
                    for part in parts:
                        _count(counts, part, name, segment_weight)
        # example values of parameters (`'Asia/Tokyo'`) are argument text; one given for a kind
        # of value a sibling also takes counts at `example_weight` of a word (`_examples`)
        ambiguous = shared.get(doc, frozenset())
        for tok in fields["param_examples"]:
            weight = example_weight if tok in ambiguous else 1.0
            if weight <= 0.0:
                continue
            doc_lengths["param_text"] += weight
            term = terms_of.get(tok)
            if term is None:
                term = terms_of[tok] = stem(tok)
            _count(counts, term, "param_text", weight)
        word_terms.update(counts)
        doc_lengths["source"] = float(len(fields["source"]))
        source_terms = sources_seen.get(cap.source)
        if source_terms is None:
            source_terms = sources_seen[cap.source] = _source_terms(
                fields["source"], surface_vocabulary, stemmer, settings
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
    own_words = {
        tok for fields in per_doc for name in (*WORD_FIELDS, "param_examples") for tok in fields[name]
    }
    tool_actions = [
        actions.tool(fields["name_words"], cap.title, cap.description, cap.annotations)
        for cap, fields in zip(caps, per_doc, strict=True)
    ]
    return AnalyzedTools(
        doc_counts,
        tool_actions,
        lengths,
        frozenset(word_terms),
        frozenset(name_wholes),
        frozenset(surface_vocabulary),
        frozenset(own_words),
    )
