"""`Retrievers` (retrieval/_retrievers.py): each part of a catalog's retrieval is made once."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, UserError
from schemarouter.retrieval._index import LexicalIndex
from schemarouter.retrieval._offer import LexicalGate
from schemarouter.retrieval._retrievers import Retrievers

CATALOG = Catalog.from_specs(
    "docs",
    [
        ToolSpec("read", "Read a stored document from the archive.", {"type": "object"}),
        ToolSpec("write", "Write a new document into the archive.", {"type": "object"}),
    ],
)


def test_nothing_is_built_until_asked_and_then_once() -> None:
    retrievers = Retrievers(CATALOG)
    assert retrievers.built_index is None
    assert retrievers.mode == "lexical"
    gate = retrievers.retriever
    assert isinstance(gate, LexicalGate)
    assert retrievers.retriever is gate
    assert retrievers.index is retrievers.built_index


def test_an_index_of_another_catalog_is_refused() -> None:
    other = Catalog.from_specs("other", [ToolSpec("read", "Read a file.", {"type": "object"})])
    with pytest.raises(UserError, match="another catalog"):
        Retrievers(CATALOG, index=LexicalIndex(other))
    with pytest.raises(UserError, match="another catalog"):
        SchemaRouter(CATALOG, index=LexicalIndex(other))


def test_a_router_hands_its_built_index_on_and_keeps_its_own_mode() -> None:
    router = SchemaRouter(CATALOG)
    index = router.index
    assert SchemaRouter(CATALOG, index=index).index is index
    assert router.mode == "lexical"
    assert isinstance(router.retriever, LexicalGate)
