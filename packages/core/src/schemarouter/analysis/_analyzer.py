"""`Analyzer`: the one analysis chain, shared by the tools an index is built from and the
requests read against it.

The chain is a tokenizer followed by filters, as a search engine's analyzer is; its two ends
differ only in what they produce. The tool side (`_document`) gives each field's weighted
terms; the request side (`_query`) gives each word's matches in the index's `Vocabulary`. Both
read words through one `Stemmer` (and the synonym table built with it), so a word is the same
term on either side, and actions through one `ActionReader`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog._capability import Capability
from ._actions import ActionReader
from ._document import AnalyzedTools, analyze_tools
from ._query import QueryAnalyzer
from ._stemming import Stemmer
from ._synonyms import synonyms_by_stem
from ._terms import AnalysisSettings
from ._vocabulary import Vocabulary

__all__ = ["Analyzer"]


class Analyzer:
    """One chain: `tools(caps)` for the index build, `requests(vocabulary)` for the query side."""

    def __init__(self, settings: AnalysisSettings) -> None:
        self.settings = settings
        self.stemmer = Stemmer()
        self.synonyms = synonyms_by_stem(self.stemmer.stem)
        self.actions = ActionReader()

    def tools(self, caps: Sequence[Capability]) -> AnalyzedTools:
        """Each tool's fields as weighted terms, and its action, in the order of `caps`."""
        return analyze_tools(caps, self.stemmer, self.settings, self.actions)

    def requests(self, vocabulary: Vocabulary) -> QueryAnalyzer:
        """The reader of requests against `vocabulary` (what an index built from `tools` holds)."""
        return QueryAnalyzer(vocabulary, self.settings, self.stemmer, self.synonyms, self.actions)
