"""`schemarouter route` and `schemarouter calibrate` against the fixture server over real stdio."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES
from schemarouter_conformance._fixture import read_call_log, stdio_command

pytestmark = pytest.mark.slow


def _server(call_log: Path) -> str:
    command, args = stdio_command(call_log)
    return shlex.join([command, *args])


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
    assert {s["term"] for s in top["signals"]} >= {"convert"}
    assert read_call_log(log) == []


def test_route_prints_the_no_route_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["route", "--stdio", _server(tmp_path / "c.jsonl"), "tell me a joke about cats"])
    assert code == 0
    out = capsys.readouterr().out
    assert "no route" in out


def test_route_table_shows_scores_and_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["route", "--stdio", _server(tmp_path / "c.jsonl"), "-k", "2", "delete customer c-200"])
    assert code == 0
    out = capsys.readouterr().out
    assert "delete_customer" in out
    assert "routed" in out


def test_calibrate_reads_labelled_queries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
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
    code = main(
        ["calibrate", "--stdio", _server(tmp_path / "c.jsonl"), str(labelled), "--json", "--seed", "3"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["policy"]["min_score"] == out["threshold"]
    assert out["heldout_supported"] + out["tuning_supported"] == len(SUPPORTED_CASES)
    assert out["curve"]


def test_calibrate_rejects_a_malformed_file(tmp_path: Path) -> None:
    labelled = tmp_path / "bad.json"
    labelled.write_text('{"supported": [{"query": 3}]}', encoding="utf-8")
    assert main(["calibrate", "--stdio", _server(tmp_path / "c.jsonl"), str(labelled)]) == 2
