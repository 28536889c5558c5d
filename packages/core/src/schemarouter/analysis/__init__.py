"""Analysis: turning text into terms, one chain for tools and requests alike.

A tokenizer (identifiers, free text, CJK bigrams, symbols, file paths) followed by filters
(British to American spelling, nouns to the verbs they name, stemming, abbreviations, splitting
run-together words, typo correction, synonyms, everyday-English commonness). The index is built
from the terms this chain gives a tool's fields, and a request is read into terms by the same
chain; the index only stores and scores terms.

Floor 2: imports `schemarouter.catalog` (a tool's fields) and the top-level private modules.
"""

from __future__ import annotations

__all__: list[str] = []
