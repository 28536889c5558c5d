"""Hybrid fusion never buries the tool a request names: when the lexical side's first tool has
identifier evidence and a clear lead over its runner-up, it is the fused ranking's first tool."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, ToolSpec, UserError
from schemarouter.retrieval import HybridPolicy, semantic_available

pytestmark = pytest.mark.skipif(not semantic_available(), reason="the semantic extra is not installed")

OPEN = RetrievalAbstentionPolicy(min_score=0.0)
SPECS = [
    ToolSpec("kv_put", "Store a value under a key."),
    ToolSpec("cache_set", "Save data such as session tokens to the cache so it can be read back quickly."),
    ToolSpec("pager_alert", "Page the engineer on call."),
    ToolSpec("send_sms", "Send a short text message to a phone number, for alerts or reminders."),
]
NO_LEAD = HybridPolicy(lead_identifier=2.0)


def ranking(request: str, policy: HybridPolicy | None = None) -> list[str]:
    router = SchemaRouter(Catalog.from_specs("tools", SPECS)).with_semantic(hybrid=policy)
    retrieval = router.retrieve(request, len(SPECS), abstention=OPEN, explain=False)
    return [c.name for c in sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))]


def test_the_tool_a_request_names_leads() -> None:
    """The semantic side reads "session token" close to `cache_set`; the request names `kv_put`."""
    assert ranking("kv_put the session token", NO_LEAD)[0] == "cache_set"
    assert ranking("kv_put the session token")[0] == "kv_put"


def test_a_request_that_names_no_tool_keeps_the_fused_order() -> None:
    request = "keep this session token around for later"
    assert ranking(request) == ranking(request, NO_LEAD)


@pytest.mark.parametrize("change", [{"lead_margin": 1.5}, {"lead_margin": -0.1}, {"lead_identifier": -1.0}])
def test_lead_settings_are_checked(change: dict[str, float]) -> None:
    with pytest.raises(UserError):
        HybridPolicy(**change)  # pyright: ignore[reportArgumentType]
