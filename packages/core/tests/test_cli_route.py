"""`schemarouter route` and `schemarouter calibrate` against the fixture server: over real stdio,
and over streamable HTTP from one server the module shares (the tests only list its tools)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter_conformance import (
    FIXTURE_TOOL_NAMES,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    http_fixture_server,
)
from schemarouter_conformance._fixture import read_call_log, stdio_command

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fixture_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The fixture server over streamable HTTP, started once for the module: the tests below
    only list its tools (the stdio test checks its call log stays empty)."""
    folder = tmp_path_factory.mktemp("fixture-http")
    with http_fixture_server(folder / "calls.jsonl", folder / "server.log") as url:
        yield url


def _server(call_log: Path) -> str:
    command, args = stdio_command(call_log)
    return shlex.join([command, *args])


def _labelled(tmp_path: Path) -> Path:
    """The fixture's supported and unsupported queries as a labelled file for `calibrate`."""
    labelled = tmp_path / "labelled.json"
    labelled.write_text(
        json.dumps(
            {
                "supported": [{"query": c.query, "tools": list(c.required_tools)} for c in SUPPORTED_CASES],
                "unsupported": list(UNSUPPORTED_QUERIES),
            }
        ),
        encoding="utf-8",
    )
    return labelled


def test_route_prints_the_allow_set_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "calls.jsonl"
    code = main(["route", "--stdio", _server(log), "--name", "fixture", "--json", "convert 100 USD to EUR"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["no_route"] is False
    assert out["names"][0] == "convert_currency"
    assert out["routes"][0] == "fixture:convert_currency"
    top = out["candidates"][0]
    assert top["reason"] == "routed"
    assert top["kept"] is True
    assert {s["term"] for s in top["signals"]} >= {"convert"}
    assert read_call_log(log) == []


def test_route_prints_the_no_route_verdict(fixture_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["route", "--url", fixture_url, "tell me a joke about cats"])
    assert code == 0
    out = capsys.readouterr().out
    assert "no route" in out


def test_route_table_shows_scores_and_reasons(fixture_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["route", "--url", fixture_url, "-k", "2", "delete customer c-200"])
    assert code == 0
    out = capsys.readouterr().out
    assert "delete_customer" in out
    assert "routed" in out


def test_calibrate_reads_labelled_queries(
    tmp_path: Path, fixture_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = _labelled(tmp_path)
    code = main(["calibrate", "--url", fixture_url, str(labelled), "--json", "--seed", "3"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["policy"]["min_score"] == out["threshold"]
    assert out["heldout_supported"] + out["tuning_supported"] == len(SUPPORTED_CASES)
    assert out["curve"]
    assert (out["mode"], out["encoder"]) == ("lexical", None)  # a threshold belongs to its mode


def test_calibrate_text_names_the_mode_its_threshold_is_for(
    tmp_path: Path, fixture_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = _labelled(tmp_path)
    assert main(["calibrate", "--url", fixture_url, str(labelled), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "mode lexical" in out
    assert "use it: Visibility(router," in out


EXAMPLE_LABELLED = Path(__file__).resolve().parents[3] / "examples" / "cli" / "labelled.json"


def test_calibrate_on_the_bundled_example_leads_with_its_result(
    fixture_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a newcomer runs first (README): the chosen threshold and what it does come first;
    the example is large enough for a 5 % target to mean something (20+ supported queries per
    half) and holds near-misses, so the held-out curve shows a threshold trading refusals of
    supported queries for fewer unsupported ones accepted."""
    if not EXAMPLE_LABELLED.exists():
        pytest.skip("examples/cli is not next to this test (running from an installed copy)")
    labelled = json.loads(EXAMPLE_LABELLED.read_text(encoding="utf-8"))
    gold = {tool for item in labelled["supported"] for tool in item["tools"]}
    assert gold == set(FIXTURE_TOOL_NAMES), "every fixture tool is asked for, and nothing else"
    assert main(["calibrate", "--url", fixture_url, str(EXAMPLE_LABELLED)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("min_score = ")
    assert "use it: Visibility(router, k=5," in out
    assert main(["calibrate", "--url", fixture_url, str(EXAMPLE_LABELLED), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert min(report["tuning_supported"], report["heldout_supported"]) >= 20
    accepted = [point["false_acceptance"] for point in report["curve"]]
    assert accepted[0] > 0.0, "near-misses the gate accepts"
    assert accepted[-1] < accepted[0], "a higher threshold accepts fewer of them"


def test_calibrate_rejects_a_malformed_file(tmp_path: Path) -> None:
    labelled = tmp_path / "bad.json"
    labelled.write_text('{"supported": [{"query": 3}]}', encoding="utf-8")
    assert main(["calibrate", "--stdio", _server(tmp_path / "c.jsonl"), str(labelled)]) == 2


@pytest.mark.parametrize(
    "document",
    [
        {
            "suported": [{"query": "convert 1 USD", "tools": ["convert_currency"]}],
            "unsupported": ["hi", "yo"],
        },
        {
            "supported": [{"query": "convert 1 USD", "tool": ["convert_currency"]}],
            "unsupported": ["hi", "yo"],
        },
    ],
)
def test_calibrate_names_a_misspelt_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: dict[str, object]
) -> None:
    labelled = tmp_path / "typo.json"
    labelled.write_text(json.dumps(document), encoding="utf-8")
    assert main(["calibrate", "--stdio", _server(tmp_path / "c.jsonl"), str(labelled)]) == 2
    assert "unknown keys" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "soon"])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_misuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["route", "--stdio", _server(tmp_path / "c.jsonl"), "--timeout", value, "convert 1 USD"])
    assert exit_info.value.code == 2
    assert "--timeout" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-0.1"])
def test_a_min_score_that_is_not_a_score_is_misuse(
    fixture_url: str, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code = main(["route", "--url", fixture_url, "--min-score", value, "convert 1 USD"])
    assert code == 2
    assert "min_score" in capsys.readouterr().err


def test_route_says_when_a_long_request_loses_words(
    fixture_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a request's first 64 distinct words are weighed: the output says how many were not,
    so that a caller routing a whole transcript sees why the ask at its end did not count."""
    filler = " ".join(f"wq{chr(97 + i // 26)}{chr(97 + i % 26)}k" for i in range(70))
    server = ["--url", fixture_url]
    assert main(["route", *server, "--json", f"{filler} convert 100 USD to EUR"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unweighed_words"] == 70 + 4 - 64  # convert, 100, usd, eur ('to' is a stop-word)
    assert out["no_route"] is True
    assert main(["route", *server, "--json", "convert 100 USD to EUR"]) == 0
    assert json.loads(capsys.readouterr().out)["unweighed_words"] == 0
    assert main(["route", *server, f"{filler} convert 100 USD to EUR"]) == 0
    assert "10 words after the request's first 64 were not weighed" in capsys.readouterr().out


def test_route_over_an_empty_tools_file_is_misuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text("[]", encoding="utf-8")
    assert main(["route", "--tools", str(tools), "convert 100 USD to EUR"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "the catalog is empty: the sources list no tool" in err


INVALID = {"name": "get_weather", "description": "Weather in a city", "parameters": {"type": "dict"}}
VALID = {"name": "send_email", "description": "Send an email", "parameters": {"type": "object"}}


def test_route_when_every_definition_is_invalid_is_misuse_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "bad.json"
    tools.write_text(json.dumps([INVALID]), encoding="utf-8")
    for argv in (
        ["route", "--tools", str(tools), "weather"],
        ["route", "--json", "--tools", str(tools), "weather"],
    ):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert "the catalog is empty: 1 tool skipped at load, none left to route" in err
        assert "bad:get_weather — invalid_schema: input schema is not a valid JSON Schema" in err


def test_route_lists_the_tools_it_skipped_with_their_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "half.json"
    tools.write_text(json.dumps([INVALID, VALID]), encoding="utf-8")
    assert main(["route", "--tools", str(tools), "send an email"]) == 0
    out = capsys.readouterr().out
    assert "1 offered of 1 tool (k=5)" in out
    assert "1 tool skipped at load:" in out
    assert "skipped half:get_weather — invalid_schema: input schema is not a valid JSON Schema" in out
    many = [{**INVALID, "name": f"tool_{i}"} for i in range(12)]
    tools.write_text(json.dumps([*many, VALID]), encoding="utf-8")
    assert main(["route", "--tools", str(tools), "send an email"]) == 0
    out = capsys.readouterr().out
    assert "12 tools skipped at load:" in out
    assert out.count("skipped half:tool_") == 10
    assert "... and 2 more (`schemarouter catalog` lists them all)" in out


MARKUP_TOOLS = [
    {
        "name": "get_weather",
        "description": "Get the weather forecast for a city",
        "parameters": {"type": "object"},
    },
    {"name": "weather[/]", "description": "Weather report for a city", "parameters": {"type": "object"}},
    {"name": "delete_everything[i][/i]", "description": "Weather wipe", "parameters": {"type": "object"}},
    {"name": "bad:[/]", "description": "A name with the route separator", "parameters": {"type": "object"}},
]


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("weather [/] in Lisbon", id="unbalanced-closing-tag"),
        pytest.param("tell me a joke [/]", id="no-route-verdict"),
        pytest.param("weather [bold red]report[/] :smile: today", id="balanced-tags-and-emoji-code"),
    ],
)
def test_route_prints_queries_and_tool_names_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    """Queries and tool names are text, never Rich markup: `[/]` must not crash the command, and
    `[i][/i]` must not vanish so that the printed name differs from the route."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(MARKUP_TOOLS), encoding="utf-8")
    assert main(["route", "--tools", str(tools), "-k", "5", query]) == 0
    out = capsys.readouterr().out
    assert query in out
    if "joke" not in query:
        assert "tools:weather[/]" in out
        assert "tools:delete_everything[i][/i]" in out


def test_an_unbalanced_quote_in_a_stdio_command_is_misuse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", "--stdio", "python -m 'unclosed", "weather"]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "--stdio" in lines[0]
    assert "No closing quotation" in lines[0]


def test_route_over_a_tools_file_with_a_deeply_nested_schema_routes_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema nested ~100 levels (under 4 KB) is skipped with its reason; the rest routes."""
    deep = '{"type":"object","properties":{"x":' * 98 + '{"type":"string"}' + "}}" * 98
    tools = tmp_path / "deep.json"
    tools.write_text(
        '[{"name":"get_weather","description":"Get the weather","parameters":{"type":"object"}},'
        '{"name":"deep","description":"deep schema","parameters":' + deep + "}]",
        encoding="utf-8",
    )
    assert tools.stat().st_size < 4096
    assert main(["route", "--tools", str(tools), "--json", "weather"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["routes"] == ["deep:get_weather"]
    assert out["skipped_tools"] == 1
    assert main(["catalog", "--tools", str(tools)]) == 0
    assert "skipped deep:deep — invalid_schema: input schema is nested too deeply" in capsys.readouterr().out
