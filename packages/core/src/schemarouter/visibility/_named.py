"""Tools a find-tools query names outright: an exact tool name or route, or a source's name.

A model that knows the tool it wants ("get_forecast", "weather:get_forecast") or the server it
wants ("github") should get that tool or that server's tools first, whatever the ranking makes
of one word. A word names a tool or a source when it equals the name (case aside) and it is the
whole query, or it is written like an identifier (`_`, `-`, `.`, `:`, a digit or an inner
capital letter), or it is rare in everyday English: "search" or "time" in a query are read as
words to rank by, not as the tools or servers of that name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..analysis._commonness import specificity
from ..catalog._catalog import Catalog

__all__ = ["NAME_SPECIFICITY", "ToolNames"]

NAME_SPECIFICITY = 0.8
"""How specific in everyday English (`specificity`) a plain word must be to name a tool or a
source inside a longer query ("github", "slack", "postgres" are; "fetch", "memory", "search" are not)."""

_WORD = re.compile(r"[^\s,;'\"`()\[\]{}<>!?]+")
_IDENTIFIER = re.compile(r"[_\-.:0-9]|[a-z][A-Z]")


def _words(query: str) -> list[str]:
    """The query's words as a model would write a name: punctuation around them left out."""
    text = query.strip()
    words = [text] if text else []
    for match in _WORD.finditer(text):
        word = match.group().strip(".:")
        if word and word != text:
            words.append(word)
    return words


def _names_something(word: str, whole: bool) -> bool:
    return whole or bool(_IDENTIFIER.search(word)) or specificity(word) >= NAME_SPECIFICITY


@dataclass(frozen=True, slots=True)
class ToolNames:
    """The names, routes and sources of one catalog's tools, read case-insensitively."""

    catalog: Catalog
    by_name: Mapping[str, tuple[str, ...]]
    """A tool's name or route, casefolded -> the routes it names, in catalog order."""
    by_source: Mapping[str, tuple[str, ...]]
    """A source's name, casefolded -> its tools' routes, in catalog order."""

    @classmethod
    def of(cls, catalog: Catalog) -> ToolNames:
        by_name: dict[str, list[str]] = {}
        by_source: dict[str, list[str]] = {}
        for cap in catalog:
            by_name.setdefault(cap.name.casefold(), []).append(cap.route)
            by_name.setdefault(cap.route.casefold(), []).append(cap.route)
            by_source.setdefault(cap.source.casefold(), []).append(cap.route)
        return cls(
            catalog,
            {name: tuple(routes) for name, routes in by_name.items()},
            {source: tuple(routes) for source, routes in by_source.items()},
        )

    def named(self, query: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The routes `query` names: tools by exact name or route (in the query's order), and
        the tools of sources it names (each source's in catalog order), without repeats."""
        tools: dict[str, None] = {}
        sources: dict[str, None] = {}
        words = _words(query)
        for i, word in enumerate(words):
            key = word.casefold()
            if not _names_something(word, whole=i == 0):
                continue
            tools.update(dict.fromkeys(self.by_name.get(key, ())))
            sources.update(dict.fromkeys(self.by_source.get(key, ())))
        return tuple(tools), tuple(route for route in sources if route not in tools)
