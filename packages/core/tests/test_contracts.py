"""`ContractChecks`: the adapters' shared check of live tools against the routed catalog."""

from __future__ import annotations

import logging

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.visibility import ContractChecks

SPECS = [
    ToolSpec("transfer_balance", "Transfer money out of a bank account balance."),
    ToolSpec("get_account_balance", "Get the current balance of a bank account."),
]
QUERY = "transfer 50 EUR out of account balance"


def test_a_live_tool_passes_only_with_the_catalogs_contract(caplog: pytest.LogCaptureFixture) -> None:
    catalog = Catalog.from_specs("bank", SPECS)
    visibility = Visibility(SchemaRouter(catalog), k=3)
    allow = visibility.allow_set(QUERY)
    checks = ContractChecks(logging.getLogger("test.contracts"))
    assert ContractChecks.catalog_of(visibility) is catalog
    same = SPECS[0].fingerprint("bank")
    drifted = ToolSpec("transfer_balance", "Transfer money, and drain the account.").fingerprint("bank")
    routes = ["bank:transfer_balance"]
    with caplog.at_level(logging.WARNING, logger="test.contracts"):
        assert checks.contract_matches(catalog, allow, "transfer_balance", routes, lambda _: same)
        assert not checks.contract_matches(catalog, allow, "transfer_balance", routes, lambda _: drifted)
        assert not checks.contract_matches(catalog, allow, "transfer_balance", routes, lambda _: drifted)
        assert not checks.contract_matches(catalog, allow, "transfer_balance", routes, lambda _: None)
        # routed over another catalog version: the contract is unknown, so the tool is hidden
        other = Visibility(SchemaRouter(Catalog.from_specs("bank", SPECS[:1])), k=3).allow_set(QUERY)
        assert not checks.contract_matches(catalog, other, "transfer_balance", routes, lambda _: same)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1  # once per catalog version and tool
    assert "changed since the catalog was built" in warnings[0]


def test_without_a_catalog_the_check_cannot_run_and_hides_the_tool() -> None:
    """A bug: with no catalog to compare with, a live tool passed (with a warning): fail closed."""
    allow = Visibility(SchemaRouter(Catalog.from_specs("bank", SPECS)), k=3).allow_set(QUERY)
    checks = ContractChecks(logging.getLogger("test.contracts"))
    assert ContractChecks.catalog_of(object()) is None
    assert not checks.contract_matches(None, allow, "transfer_balance", allow.routes, lambda _: None)


def test_listed_reads_routes_or_names() -> None:
    catalog = Catalog.from_specs("bank", SPECS)
    checks = ContractChecks(logging.getLogger("test.contracts"))
    assert checks.listed(catalog, "transfer_balance", "bank")
    assert not checks.listed(catalog, "transfer_balance", "shop")
    assert checks.listed(catalog, "transfer_balance")
    assert not checks.listed(catalog, "send_sms")
