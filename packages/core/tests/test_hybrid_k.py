"""Hybrid ranking does not depend on `k`: the allow-set at k is the first k of a longer one.

The catalog has many tools that share words (five verbs times eight nouns), so the lexical gate
keeps more tools than a small k: the case where a gate capped at k once handed its bonus to
different tools at different k.
"""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.retrieval._semantic import semantic_available

pytestmark = pytest.mark.skipif(
    not semantic_available(), reason="schemarouter-core[semantic] (wordllama) is not installed"
)

NOUNS = ("file", "report", "email", "invoice", "calendar event", "customer", "note", "image")
VERBS = {
    "create": "Create a new {}.",
    "delete": "Delete the {} permanently.",
    "search": "Search for a {} by keyword.",
    "send": "Send the {} to someone.",
    "export": "Export the {} as a PDF document.",
}
CATALOG = Catalog.from_specs(
    "app",
    [
        ToolSpec(f"{verb}_{noun.replace(' ', '_')}", description.format(noun))
        for noun in NOUNS
        for verb, description in VERBS.items()
    ],
)
QUERIES = (
    "send the quarterly report to my boss",
    "remove the old invoice file",
    "find the customer note about billing",
    "export my calendar as a pdf",
    "create a report and email it",
    "delete every image",
    "email the customer the invoice",
    "file a report",
)


@pytest.fixture(scope="module")
def hybrid() -> SchemaRouter:
    return SchemaRouter(CATALOG).with_semantic()


@pytest.mark.parametrize("query", QUERIES)
def test_the_top_k_is_a_prefix_of_a_longer_top(hybrid: SchemaRouter, query: str) -> None:
    longest = [c.route for c in hybrid.retrieve(query, 12).candidates]
    for k in range(1, 12):
        top = [c.route for c in hybrid.retrieve(query, k).candidates]
        assert top == longest[:k], k


@pytest.mark.parametrize("query", QUERIES)
def test_blocking_a_tool_outside_the_allow_set_leaves_it_unchanged(hybrid: SchemaRouter, query: str) -> None:
    shown = Visibility(hybrid, k=3).allow_set(query).names
    outside = [c.name for c in hybrid.retrieve(query, 12).candidates if c.name not in shown]
    for name in outside[:4]:
        assert Visibility(hybrid, k=3, blocked={name}).allow_set(query).names == shown, name
