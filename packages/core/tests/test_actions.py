"""Siblings over one object: the request's action picks the tool whose action agrees, an object
word in a tool's name outweighs the same word among other tools' parameters, and an example
value in a parameter's text ("Asia/Tokyo") does not decide which tool fits."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, ToolSpec
from schemarouter.analysis._actions import ActionReader, agreement
from schemarouter.analysis._examples import sibling_examples
from schemarouter.analysis._fields import field_tokens, split_examples
from schemarouter.retrieval import semantic_available
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import LexicalGate

MODES = [
    "lexical",
    pytest.param("hybrid", marks=pytest.mark.skipif(not semantic_available(), reason="no semantic extra")),
]
OPEN = RetrievalAbstentionPolicy(min_score=0.0)


def _schema(**described: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in described.items()},
    }


SUBSCRIPTION = "The Azure subscription to use: a subscription ID or a subscription name."
VAULT = "The name of the key vault."
KEY = "The name of the key."
# One server's siblings: most tools take a `subscription`, several share the object "key".
CLOUD = [
    ToolSpec(
        "subscription_list",
        "List all Azure subscriptions the signed-in account can access.",
        _schema(tenant="The tenant ID."),
    ),
    ToolSpec(
        "subscription_get", "Get the details of one Azure subscription.", _schema(subscription=SUBSCRIPTION)
    ),
    ToolSpec("group_list", "List all resource groups in a subscription.", _schema(subscription=SUBSCRIPTION)),
    ToolSpec(
        "storage_account_list",
        "List all storage accounts in a subscription.",
        _schema(subscription=SUBSCRIPTION),
    ),
    ToolSpec(
        "storage_blob_get",
        "Get a blob from a storage container in a subscription.",
        _schema(subscription=SUBSCRIPTION, container="The container."),
    ),
    ToolSpec(
        "monitor_metrics_query",
        "Query metrics of a resource in a subscription.",
        _schema(subscription=SUBSCRIPTION, resource="The resource."),
    ),
    ToolSpec(
        "cosmos_database_list",
        "List Cosmos DB databases in a subscription.",
        _schema(subscription=SUBSCRIPTION, account="The account."),
    ),
    ToolSpec(
        "key_list",
        "Returns every key stored in an Azure Key Vault, with its name, its type and whether it is enabled.",
        _schema(subscription=SUBSCRIPTION, vault=VAULT),
    ),
    ToolSpec(
        "key_create", "Creates a key in a vault.", _schema(subscription=SUBSCRIPTION, vault=VAULT, key=KEY)
    ),
    ToolSpec(
        "settings_get", "Gets the settings of a key vault.", _schema(subscription=SUBSCRIPTION, vault=VAULT)
    ),
]

# The public MCP time server's two tools, as its schema describes them (shortened).
ZONE = "IANA timezone name (e.g., 'America/New_York', 'Europe/London')."
TIME = [
    ToolSpec("get_current_time", "Get current time in a specific timezone", _schema(timezone=ZONE)),
    ToolSpec(
        "convert_time",
        "Convert time between timezones",
        _schema(
            source_timezone="Source " + ZONE,
            time="Time to convert in 24-hour format (HH:MM)",
            target_timezone="Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco').",
        ),
    ),
]


def ranking(specs: list[ToolSpec], mode: str, request: str) -> list[str]:
    """Tool names by rank (`Candidate.rank_score`), best first, whether or not the gate keeps them."""
    router = SchemaRouter(Catalog.from_specs("server", specs))
    if mode == "hybrid":
        router = router.with_semantic()
    retrieval = router.retrieve(request, len(specs), abstention=OPEN, explain=False)
    return [c.name for c in sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))]


@pytest.mark.parametrize("mode", MODES)
def test_the_list_sibling_lists_what_the_request_names(mode: str) -> None:
    assert ranking(CLOUD, mode, "list my subscriptions")[0] == "subscription_list"


def test_showing_subscriptions_lists_them() -> None:
    """Lexical mode only: in hybrid mode the semantic side reads "show me my subscriptions" as
    close to `subscription_get`'s description, and the action's factor does not outweigh it."""
    assert ranking(CLOUD, "lexical", "show me my subscriptions")[0] == "subscription_list"


@pytest.mark.parametrize("mode", MODES)
def test_showing_things_in_the_plural_is_a_list(mode: str) -> None:
    names = ranking(CLOUD, mode, "show the keys in the vault")
    assert names.index("key_list") < names.index("key_create")
    assert names.index("key_list") < names.index("settings_get")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("what time is it in Tokyo", "get_current_time"),
        ("convert 3pm London time to New York", "convert_time"),
    ],
)
def test_the_time_servers_tools(mode: str, request_text: str, tool: str) -> None:
    assert ranking(TIME, mode, request_text)[0] == tool


def test_each_fix_is_needed() -> None:
    """Without the action, "show the keys" ranks `key_create` with `key_list`, and tools that
    merely take a subscription crowd `subscription_list` unless the argument factor is on; with
    examples weighed as prose, Tokyo (an example of `convert_time`'s target) picks it."""

    def lexical(specs: list[ToolSpec], request: str, **changes: float) -> list[str]:
        settings = replace(IndexSettings(), **changes)
        index = LexicalIndex(Catalog.from_specs("server", specs), settings)
        retrieval = LexicalGate(index).retrieve(request, len(specs), OPEN, explain=False)
        return [c.name for c in sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))]

    keys = lexical(CLOUD, "show the keys in the vault", action_weight=0.0)
    assert keys.index("key_create") < keys.index("key_list") or keys.index("settings_get") < keys.index(
        "key_list"
    )
    assert lexical(CLOUD, "list my subscriptions", action_weight=0.0)[0] != "subscription_list"
    # the argument factor, off by default, does it alone too
    assert (
        lexical(CLOUD, "list my subscriptions", argument_power=0.5, action_weight=0.0)[0]
        == "subscription_list"
    )
    assert lexical(TIME, "what time is it in Tokyo", example_weight=1.0)[0] == "convert_time"


@pytest.mark.parametrize(
    ("request_text", "action"),
    [
        ("list my subscriptions", "list"),
        ("show me my subscriptions", "list"),
        ("what are my resource groups", "list"),
        ("show me the details of subscription abc", "get"),
        ("what time is it in Tokyo", "get"),
        ("convert 3pm London time to New York", "convert"),
        ("please delete the old branch", "delete"),
        ("remind me to call Ada", None),
    ],
)
def test_a_request_says_its_action(request_text: str, action: str | None) -> None:
    assert ActionReader().request(request_text) == action


@pytest.mark.parametrize(
    ("words", "title", "description", "annotations", "expected"),
    [
        (["subscription", "list"], None, None, None, ("list", 1.0)),
        (["get", "current", "time"], None, None, None, ("get", 1.0)),
        (["settings", "get"], None, None, None, ("get", 1.0)),  # "settings" is a thing, not "set"
        (["npm", "versions"], None, "Fetches every version of a package.", None, ("get", 0.6)),
        (["cleanup"], None, "Old files go.", {"destructiveHint": True}, ("delete", 0.4)),
        (["status"], None, "Reports.", {"readOnlyHint": True}, ("read", 0.4)),
        (["status"], None, "Reports.", None, None),
    ],
)
def test_a_tool_says_its_action(
    words: list[str],
    title: str | None,
    description: str | None,
    annotations: dict[str, Any] | None,
    expected: Any,
) -> None:
    found = ActionReader().tool(words, title, description, annotations)
    assert (None if found is None else tuple(found)) == expected


def test_agreement() -> None:
    assert agreement("list", "list") == 1.0
    assert agreement("list", "get") == agreement("get", "read") == 0.0
    assert agreement("list", "create") == agreement("get", "delete") == -1.0
    assert agreement("get", "convert") == agreement("delete", "get") == agreement("delete", "create") == -0.5


def test_an_example_of_a_kind_a_sibling_takes_is_ambiguous() -> None:
    """Tokyo is an example of `convert_time`'s `target_timezone`; `get_current_time`, a sibling
    (both names say "time"), takes a `timezone` too: there the example counts less. An example
    no sibling's kind shares keeps its weight."""
    order = ToolSpec("order_food", "Order a dish.", _schema(dish="The dish, e.g. 'pizza'."))
    caps = list(Catalog.from_specs("s", [*TIME, order]))
    ambiguous = {
        caps[doc].name: words for doc, words in sibling_examples([field_tokens(c) for c in caps]).items()
    }
    assert {"asia", "tokyo", "london"} <= ambiguous["convert_time"]
    assert {"america", "london"} <= ambiguous["get_current_time"]
    assert "order_food" not in ambiguous  # no sibling takes a dish: 'pizza' keeps its weight


def test_example_values_are_told_from_the_text_around_them() -> None:
    text, examples = split_examples("IANA timezone name (e.g., 'America/New_York'). Use 'UTC' if none.")
    assert "America" not in text
    assert "UTC" not in text
    assert "timezone" in text
    assert examples == ["'America/New_York'", "UTC"]
    assert split_examples("The user's name")[1] == []
