"""The adapter core: one spelling of every setting, one reading of a find-tools call, one refusal."""

from __future__ import annotations

import json
import sys

import pytest

from schemarouter import Catalog, SchemaRouter, SessionLimits, ToolSpec, UserError, Visibility
from schemarouter.adapter import (
    AdapterSettings,
    AdapterSetupError,
    MovedValidation,
    adapter_provider,
    find_tools_call,
    refusal_text,
)
from schemarouter.visibility import FIND_TOOLS


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"sessions": {"max_tools": 3}}, "SessionLimits"),
        ({"on_failure": "log"}, "on_failure"),
        ({"cache_size": -1}, "cache_size"),
        ({"cache_size": True}, "cache_size"),
        ({"session_key": "short"}, "at least 16"),
    ],
)
def test_a_bad_setting_is_an_adapter_setup_error(settings: dict[str, object], match: str) -> None:
    with pytest.raises(AdapterSetupError, match=match):
        AdapterSettings(**settings)  # type: ignore[arg-type]
    assert issubclass(AdapterSetupError, UserError)


def test_the_defaults_hide_on_failure_and_route_per_request() -> None:
    settings = AdapterSettings()
    assert (settings.sessions, settings.on_failure, settings.cache_size) == (None, "hide", 256)
    assert AdapterSettings(sessions=SessionLimits(), cache_size=0).cache_size == 0


@pytest.mark.parametrize(
    ("arguments", "query", "problem"),
    [
        ({"query": "convert currency"}, "convert currency", None),
        (json.dumps({"query": "send email"}), "send email", None),
        ({}, None, "needs 'query'"),
        ({"query": "  "}, None, "needs 'query'"),
        ({"query": 7}, None, "needs 'query'"),
        ({"query": "x", "limit": 3}, None, "remove limit"),
        ({"query": "x" * 501}, None, "1 to 500 characters"),
        ("not json", None, "JSON object"),
        (["query"], None, "an object"),
        ("", None, "needs 'query'"),
    ],
)
def test_a_find_tools_call_is_read_strictly(
    arguments: object, query: str | None, problem: str | None
) -> None:
    call = find_tools_call(arguments)  # type: ignore[arg-type]
    assert call.query == query
    if problem is None:
        assert call.problem is None
    else:
        assert call.problem is not None
        assert problem in call.problem
        assert FIND_TOOLS.name in call.problem


def test_a_refusal_names_the_tool_and_why() -> None:
    assert (
        refusal_text("delete_customer", "hidden")
        == "Tool 'delete_customer' is not available for this request."
    )
    assert "routing failed" in refusal_text("x", "routing_failed")
    assert "changed" in refusal_text("x", "contract_changed")


def test_a_moved_validation_without_the_conformance_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "schemarouter_conformance.validate", None)  # the import fails
    moved = MovedValidation("my_adapter.validate", "my-adapter", "validate_my_adapter")
    with pytest.deprecated_call(match="python -m schemarouter_conformance.validate my-adapter"):
        assert moved.main([]) == 2
    assert "pip install ./conformance" in capsys.readouterr().err


def test_a_moved_validation_keeps_old_names_with_a_warning() -> None:
    moved = MovedValidation(
        "my_adapter.validate", "my-adapter", "validate_my_adapter", {"OLD": ("NEW", lambda: 42)}
    )
    with pytest.deprecated_call(match=r"my_adapter\.validate\.OLD is deprecated: use NEW"):
        assert moved.attribute("OLD") == 42
    with pytest.raises(AttributeError, match="has no attribute 'OTHER'"):
        moved.attribute("OTHER")


def test_a_provider_lacking_a_member_is_an_adapter_setup_error() -> None:
    class NoPermits:
        catalog = Catalog.from_specs("app", [ToolSpec("get_weather", "Current weather for a city.")])

        def allow_set(self, query: str, principal: object = None) -> None: ...

        def search(self, query: str, principal: object = None, *, k: int) -> None: ...

    with pytest.raises(AdapterSetupError, match="permits"):
        adapter_provider(NoPermits())
    visibility = Visibility(SchemaRouter(NoPermits.catalog))
    assert adapter_provider(visibility) is visibility
