from __future__ import annotations

import pytest

from schemarouter import RetrievalAbstentionPolicy, RoutingConfig, SchemaRouter, UserError, Visibility


def lookup_weather(city: str) -> str:
    """Look up the current weather for a city."""
    return city


def delete_weather_station(station_id: str) -> str:
    """Delete a weather station record."""
    return station_id


def test_config_builds_an_equivalent_visibility() -> None:
    router = SchemaRouter.from_callables([lookup_weather, delete_weather_station])
    config = RoutingConfig(k=2, abstention=RetrievalAbstentionPolicy(), blocked=["delete_weather_station"])
    visibility = config.visibility(router)
    assert isinstance(visibility, Visibility)
    direct = Visibility(router, k=2, abstention=config.abstention, blocked={"delete_weather_station"})
    for query in ("weather in Paris", "delete the weather station", "tell me a joke"):
        assert visibility.allow_set(query) == direct.allow_set(query)
    assert "delete_weather_station" not in visibility.allow_set("delete weather station").names


def test_rules_are_normalised_so_equal_configs_compare_equal() -> None:
    assert RoutingConfig(blocked=["b", "a", "a"]) == RoutingConfig(blocked=("a", "b"))


@pytest.mark.parametrize("bad", [{"k": 0}, {"blocked": "delete_customer"}])
def test_misuse_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(UserError):
        RoutingConfig(**bad)  # type: ignore[arg-type]
