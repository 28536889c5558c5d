"""One default allow-set size: every API that takes `k` and the CLI default to `DEFAULT_K`."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import schemarouter
from schemarouter import (
    DEFAULT_K,
    Catalog,
    RoutingConfig,
    SchemaRouter,
    Visibility,
    ainvoke_selective,
    calibrate,
)
from schemarouter.cli import build_parser, main
from schemarouter.testing import RaisingVisibility


def _routing_config_default() -> object:
    return next(f.default for f in dataclasses.fields(RoutingConfig) if f.name == "k")


def _parameter_default(function: Callable[..., Any]) -> Callable[[], object]:
    return lambda: inspect.signature(function).parameters["k"].default


@pytest.mark.parametrize(
    "default_of",
    [
        pytest.param(_routing_config_default, id="RoutingConfig"),
        pytest.param(_parameter_default(Visibility.__init__), id="Visibility"),
        pytest.param(_parameter_default(SchemaRouter.retrieve), id="SchemaRouter.retrieve"),
        pytest.param(_parameter_default(SchemaRouter.retrieve_executable), id="retrieve_executable"),
        pytest.param(_parameter_default(ainvoke_selective), id="ainvoke_selective"),
        pytest.param(_parameter_default(calibrate), id="calibrate"),
        pytest.param(_parameter_default(RaisingVisibility.__init__), id="testing.RaisingVisibility"),
        pytest.param(lambda: build_parser().parse_args(["route", "q"]).k, id="cli-route"),
        pytest.param(lambda: build_parser().parse_args(["calibrate", "f.json"]).k, id="cli-calibrate"),
    ],
)
def test_every_k_defaults_to_the_one_constant(default_of: Callable[[], object]) -> None:
    assert default_of() == DEFAULT_K == 5


def test_the_constant_is_exported() -> None:
    assert "DEFAULT_K" in schemarouter.__all__


_CLUSTER_TOOLS = ("pods", "nodes", "deployments", "services", "volumes", "secrets", "events", "logs")
_OTHER_TOOLS = ("send_email", "create_invoice", "book_flight", "convert_currency", "play_music", "set_alarm")


def _definitions() -> list[dict[str, object]]:
    """Eight tools a Kubernetes request matches (more than any default shows) and a few others."""
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    cluster = [
        {"name": f"kubernetes_{n}", "description": f"Kubernetes cluster {n}", "parameters": schema}
        for n in _CLUSTER_TOOLS
    ]
    others = [{"name": n, "description": n.replace("_", " "), "parameters": schema} for n in _OTHER_TOOLS]
    return [*cluster, *others]


def test_the_cli_a_default_visibility_and_a_default_config_show_as_many_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "cluster.json"
    tools.write_text(json.dumps(_definitions()), encoding="utf-8")
    query = "show the kubernetes cluster"
    router = SchemaRouter(Catalog.from_file(tools))
    from_visibility = Visibility(router).allow_set(query).names
    from_config = RoutingConfig().visibility(router).allow_set(query).names
    assert main(["route", "--tools", str(tools), "--json", query]) == 0
    from_cli = json.loads(capsys.readouterr().out)["names"]
    assert len(from_visibility) == 5
    assert list(from_config) == list(from_visibility) == from_cli
