"""Hybrid retrieval (lexical + local semantic scorer): paraphrases, near-misses, determinism, fail-closed."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from schemarouter import (
    Catalog,
    RetrievalAbstentionPolicy,
    SchemaRouter,
    ToolSpec,
    UserError,
    Visibility,
    calibrate,
)
from schemarouter.analysis._stemming import Stemmer
from schemarouter.analysis._synonyms import synonyms_by_stem
from schemarouter.analysis._text import identifier_tokens, text_tokens
from schemarouter.retrieval._hybrid import SEMANTIC_FIELD, HybridPolicy, HybridRetriever
from schemarouter.retrieval._offer import LexicalGate
from schemarouter.retrieval._semantic import SemanticIndex, WordLlamaEncoder, semantic_available
from schemarouter.testing import unexplained_differences

pytestmark = pytest.mark.skipif(
    not semantic_available(), reason="schemarouter-core[semantic] (wordllama) is not installed"
)


def _params(**described: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": "string", "description": v} for k, v in described.items()},
    }


CATALOG = Catalog.from_specs(
    "ops",
    [
        ToolSpec(
            "send_email",
            "Send an email message to a recipient.",
            _params(to="Recipient address", subject="Subject line", body="Message text"),
        ),
        ToolSpec(
            "get_weather_forecast",
            "Weather forecast for a city for the next days.",
            _params(city="City name"),
        ),
        ToolSpec(
            "convert_currency",
            "Convert an amount of money between currencies at the current exchange rate.",
            _params(amount="Amount", from_currency="ISO code", to_currency="ISO code"),
        ),
        ToolSpec(
            "create_calendar_event",
            "Create a meeting or appointment in the user's calendar.",
            _params(title="Event title", start="Start time"),
        ),
        ToolSpec(
            "translate_text",
            "Translate text from one language into another.",
            _params(text="Text", target_language="Language"),
        ),
        ToolSpec(
            "search_flights",
            "Search airline flights between two airports on a date.",
            _params(origin="Departure airport", destination="Arrival airport", date="Travel date"),
        ),
        ToolSpec(
            "get_stock_quote", "Latest stock market price for a ticker symbol.", _params(symbol="Ticker")
        ),
        ToolSpec("delete_file", "Delete a file from the disk.", _params(path="File path")),
        ToolSpec(
            "resize_image",
            "Resize a picture to a new width and height.",
            _params(path="Image path", width="Width", height="Height"),
        ),
        ToolSpec(
            "query_database",
            "Run a read-only SQL query against the analytics database.",
            _params(sql="SQL text"),
        ),
        ToolSpec(
            "book_restaurant",
            "Reserve a table at a restaurant.",
            _params(restaurant="Name", time="Time", party_size="Guests"),
        ),
        ToolSpec("play_music", "Play a song or playlist on the speaker.", _params(song="Song name")),
    ],
)

# Requests that share no content word (stop-words aside), nor a synonym of one, with the tool
# they need (checked below), routed at the default threshold.
ROUTED_PARAPHRASES = {
    "mail a note to my boss": "send_email",
    "will it rain in Lisbon tomorrow": "get_weather_forecast",
    "how many yen is fifty dollars": "convert_currency",
    "look up a plane ticket from Boston to Denver": "search_flights",
    "shrink this screenshot to half its size": "resize_image",
}
# Also no shared word; ranked first, but below the default threshold (the cost of abstaining).
RANKED_PARAPHRASES = {
    **ROUTED_PARAPHRASES,
    "put a dentist visit on my agenda for friday": "create_calendar_event",
    "say this in Spanish please": "translate_text",
    "what is Apple trading at right now": "get_stock_quote",
    "put on some jazz": "play_music",
    "hold a dinner spot for four at eight": "book_restaurant",
}
# Requests that share no word with their tool but a synonym ("erase" / "delete"): the lexical
# side's evidence then agrees with the semantic side.
SYNONYM_PARAPHRASES = {
    "erase that document": "delete_file",
    "make this photo smaller": "resize_image",
    "find me a plane ticket from Boston to Denver": "search_flights",
}
NEAR_MISSES = (
    "what is the capital of France",
    "tell me a joke about cats",
    "write a haiku about the sea",
    "who painted the Mona Lisa",
    "explain how photosynthesis works",
    "what does the word serendipity mean",
)


@pytest.fixture(scope="module")
def hybrid() -> SchemaRouter:
    return SchemaRouter(CATALOG).with_semantic()


def _tool_words(name: str) -> set[str]:
    cap = CATALOG.by_name(name)[0]
    words = set(identifier_tokens(cap.name)) | set(identifier_tokens(cap.description))
    for param, spec in cap.input_schema["properties"].items():
        words |= set(identifier_tokens(param)) | set(identifier_tokens(spec["description"]))
    return words


def _synonyms_of(words: set[str]) -> set[str]:
    stem = Stemmer().stem
    table = synonyms_by_stem(stem)
    return {synonym for word in words for _, synonym in table.get(stem(word), ())}


@pytest.mark.parametrize(("query", "tool"), sorted(RANKED_PARAPHRASES.items()))
def test_paraphrases_share_no_word_with_their_tool(query: str, tool: str) -> None:
    words = set(text_tokens(query))
    assert not words & _tool_words(tool)
    assert not _synonyms_of(words) & _tool_words(tool)


@pytest.mark.parametrize(("query", "tool"), sorted(SYNONYM_PARAPHRASES.items()))
def test_a_paraphrase_sharing_a_synonym_routes_with_both_signals_agreeing(
    hybrid: SchemaRouter, query: str, tool: str
) -> None:
    words = set(text_tokens(query))
    assert not words & _tool_words(tool)
    assert _synonyms_of(words) & _tool_words(tool)
    allow = Visibility(hybrid, k=3).allow_set(query)
    assert allow.names[0] == tool
    assert next(d for d in allow.decisions if d.name == tool).detail == "hybrid_agree"


@pytest.mark.parametrize(("query", "tool"), sorted(ROUTED_PARAPHRASES.items()))
def test_a_paraphrase_with_no_shared_word_is_routed(hybrid: SchemaRouter, query: str, tool: str) -> None:
    allow = Visibility(hybrid, k=3).allow_set(query)
    assert not allow.no_route
    assert allow.names[0] == tool
    decision = next(d for d in allow.decisions if d.name == tool)
    assert decision.visible
    assert decision.detail == "semantic_match"


@pytest.mark.parametrize(("query", "tool"), sorted(RANKED_PARAPHRASES.items()))
def test_the_right_tool_ranks_first_for_every_paraphrase(hybrid: SchemaRouter, query: str, tool: str) -> None:
    retrieval = hybrid.retrieve(query, 3)
    ranked = sorted(retrieval.reported, key=lambda c: (-c.score, c.route))
    assert ranked[0].name == tool


@pytest.mark.parametrize("query", NEAR_MISSES)
def test_a_near_miss_gets_no_confident_route(hybrid: SchemaRouter, query: str) -> None:
    """No tool is routed with confidence; at most the closest few are offered as uncertain
    ("what does the word serendipity mean" is close enough to translate_text to be offered)."""
    allow = Visibility(hybrid, k=3).allow_set(query)
    assert allow.outcome != "route"
    assert allow.reason != "routed"
    assert len(allow.names) <= 3


def test_most_near_misses_get_no_route_at_all(hybrid: SchemaRouter) -> None:
    outcomes = [Visibility(hybrid, k=3).allow_set(query).outcome for query in NEAR_MISSES]
    assert outcomes.count("no_route") >= len(NEAR_MISSES) - 1, outcomes


def test_hybrid_is_deterministic_across_routers() -> None:
    queries = [*RANKED_PARAPHRASES, *NEAR_MISSES, "send an email about the weather forecast"]
    first = Visibility(SchemaRouter(CATALOG).with_semantic(), k=3)
    second = Visibility(SchemaRouter(CATALOG).with_semantic(WordLlamaEncoder()), k=3)
    for query in queries:
        a, b = first.allow_set(query), second.allow_set(query)
        assert (a.names, a.reason, a.decisions) == (b.names, b.reason, b.decisions)


def test_hybrid_decisions_do_not_depend_on_the_order_sources_were_merged() -> None:
    """Same catalog version, same decisions: ties (an empty request scores every tool alike)
    go by route, as in lexical mode, not by the order the sources were merged in."""

    def source(name: str) -> Catalog:
        return Catalog.from_specs(
            name, [ToolSpec(f"{name}_tool_{i}", f"{name} thing {i}") for i in range(12)]
        )

    alpha, beta = source("alpha"), source("beta")
    one, other = Catalog.merge(alpha, beta), Catalog.merge(beta, alpha)
    assert one.version == other.version
    first = Visibility(SchemaRouter(one).with_semantic(), k=3)
    second = Visibility(SchemaRouter(other).with_semantic(), k=3)
    for query in ("", "beta thing", "a thing"):
        a, b = first.allow_set(query), second.allow_set(query)
        assert (a.routes, a.reason, a.decisions) == (b.routes, b.reason, b.decisions), query


NON_LATIN = Catalog.from_specs(
    "intl",
    [
        ToolSpec("天气预报", "查询城市的天气预报"),
        ToolSpec("메일_보내기", "이메일을 보냅니다"),
        ToolSpec("отправить_письмо", "Отправить электронное письмо"),
        ToolSpec("get_weather", "Get the weather forecast for a city"),
        ToolSpec("delete_customer", "Permanently delete a customer record"),
    ],
)


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("北京天气预报", "天气预报"),
        ("今天天气怎么样", "天气预报"),
        ("отправь письмо маме", "отправить_письмо"),
    ],
)
def test_a_request_the_encoder_does_not_read_routes_as_the_lexical_gate_does(query: str, tool: str) -> None:
    """WordLlama reads Latin script; its cosines for a Chinese or Russian request are noise
    (a Chinese weather request scored a Korean e-mail tool as a semantic match). Such a request
    gets the lexical gate's tools only, still fused and scored."""
    router = SchemaRouter(NON_LATIN)
    lexical = Visibility(router, k=3).allow_set(query)
    hybrid = Visibility(router.with_semantic(), k=3).allow_set(query)
    assert lexical.names == hybrid.names == (tool,)
    assert not WordLlamaEncoder().reads(query)
    assert WordLlamaEncoder().reads("what's the weather in Zürich, Ελλάδα?")


def test_candidates_show_which_signals_decided(hybrid: SchemaRouter) -> None:
    retrieval = hybrid.retrieve("send an email to Ada", 3)
    best = retrieval.candidates[0]
    assert best.name == "send_email"
    assert best.reason in {"lexical_gate", "hybrid_agree"}
    semantic = [s for s in best.signals if s.field == SEMANTIC_FIELD]
    assert len(semantic) == 1
    assert 0 < semantic[0].weight <= 1
    assert any(s.field != SEMANTIC_FIELD for s in best.signals), (
        "lexical evidence is kept next to the semantic one"
    )


def test_unexplained_hybrid_retrieval_decides_exactly_as_the_explained_one(hybrid: SchemaRouter) -> None:
    """`explain=False` (what Visibility asks for) only leaves out signals, on both sides."""
    queries = [*RANKED_PARAPHRASES, *NEAR_MISSES, "send an email about the weather forecast"]
    for query in queries:
        for k in (1, 3):
            explained = hybrid.retrieve(query, k)
            assert any(c.signals for c in (*explained.candidates, *explained.dropped))
            assert unexplained_differences(explained, hybrid.retrieve(query, k, explain=False)) == []


def test_min_score_applies_to_the_fused_score(hybrid: SchemaRouter) -> None:
    query = "mail a note to my boss"
    routed = hybrid.retrieve(query, 3)
    assert routed.names == ("send_email",)
    threshold = routed.candidates[0].score + 0.01
    strict = hybrid.retrieve(
        query, 3, abstention=RetrievalAbstentionPolicy(min_score=threshold, uncertain_tools=0)
    )
    assert strict.no_route
    assert strict.dropped[0].reason == "below_min_score"
    # with the uncertain outcome on, the tool below the threshold is offered, not routed
    offered = hybrid.retrieve(query, 3, abstention=RetrievalAbstentionPolicy(min_score=threshold))
    assert offered.outcome == "uncertain"
    assert offered.uncertain[0].name == "send_email"


def test_calibrate_thresholds_the_fused_decision(hybrid: SchemaRouter) -> None:
    supported = [(query, [tool]) for query, tool in {**RANKED_PARAPHRASES, **SYNONYM_PARAPHRASES}.items()]
    supported += [
        ("send an email to Ada", ["send_email"]),
        ("translate this text into French", ["translate_text"]),
    ]
    unsupported = [*NEAR_MISSES, "how tall is Mount Everest", "recommend a good novel"]
    report = calibrate(hybrid, supported, unsupported, k=3, target_over_rejection=0.4)
    assert report.threshold > 0
    visibility = Visibility(hybrid, k=3, abstention=report.policy)
    for query in [q for q, _ in supported] + unsupported:
        best = max((c.score for c in hybrid.retrieve(query, 12).candidates), default=None)
        expected = best is not None and best >= report.threshold
        assert (visibility.allow_set(query).outcome == "route") == expected, query


def test_blocked_wins_in_hybrid_mode(hybrid: SchemaRouter) -> None:
    allow = Visibility(hybrid, k=3, blocked=["delete_file"]).allow_set("erase that document")
    assert "delete_file" not in allow.names
    assert any(d.name == "delete_file" and d.reason == "blocked" for d in allow.decisions)


def test_no_route_reasons_are_those_of_the_lexical_mode(hybrid: SchemaRouter) -> None:
    lexical = SchemaRouter(CATALOG)
    query = "send an email to Ada"
    for router in (lexical, hybrid):
        assert Visibility(router, k=3).allow_set(query).names[0] == "send_email"
        hidden = Visibility(router, k=3, allowed={"play_music"}).allow_set(query)
        assert (hidden.names, hidden.reason) == ((), "static_rules_hid_all"), router.mode
        best = router.retrieve(query, 3).candidates[0].score
        policy = RetrievalAbstentionPolicy(min_score=best + 0.01, uncertain_tools=0)
        strict = router.retrieve(query, 3, abstention=policy)
        assert (strict.no_route, strict.reason) == (True, "below_min_score"), router.mode
        offered = router.retrieve(query, 3, abstention=RetrievalAbstentionPolicy(min_score=best + 0.01))
        assert (offered.outcome, offered.reason) == ("uncertain", "weak_evidence"), router.mode
        wordless = router.retrieve("is it the one that was?", 3)
        assert (wordless.no_route, wordless.reason) == (True, "no_content_words"), router.mode


def test_preferred_route_survives(hybrid: SchemaRouter) -> None:
    retrieval = hybrid.retrieve("tell me a joke about cats", 3, preferred_route="ops:play_music")
    assert retrieval.names == ("play_music",)
    assert retrieval.candidates[0].reason == "preferred_route"


def test_lexical_mode_is_unchanged_by_the_switch() -> None:
    lexical = SchemaRouter(CATALOG)
    assert lexical.mode == "lexical"
    before = lexical.retrieve("send an email to Ada", 3)
    lexical.with_semantic()
    assert lexical.mode == "lexical"
    assert lexical.retrieve("send an email to Ada", 3) == before


def test_indexes_of_different_catalog_versions_are_refused() -> None:
    other = Catalog.from_specs("ops", [ToolSpec("send_email", "Send an email.")])
    with pytest.raises(UserError, match="catalog versions"):
        HybridRetriever(LexicalGate(SchemaRouter(CATALOG).index), SemanticIndex(other, WordLlamaEncoder()))


@pytest.mark.parametrize(
    "bad",
    [{"lexical_weight": -1.0}, {"rank_weight": -0.1}, {"semantic_floor": 2.0}, {"depth": 0}],
)
def test_bad_hybrid_policies_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        HybridPolicy(**bad)


@pytest.mark.slow
def test_hybrid_over_a_real_mcp_server_runs_no_tool_body(tmp_path: Path) -> None:
    fixture = pytest.importorskip(
        "schemarouter_conformance", reason="the conformance package is not installed"
    )
    call_log = tmp_path / "calls.jsonl"
    command, args = fixture.stdio_command(call_log)
    router = asyncio.run(SchemaRouter.from_stdio(command, args, name="fixture")).with_semantic()
    visibility = Visibility(router, k=3)
    for case in fixture.SUPPORTED_CASES:
        allow = visibility.allow_set(case.query)
        assert case.required_tools[0] in allow.names, case.query
    for query in fixture.UNSUPPORTED_QUERIES:
        assert visibility.allow_set(query).no_route, query
    assert fixture.read_call_log(call_log) == []


@pytest.mark.slow
def test_route_cli_shows_the_mode_and_the_semantic_signal(tmp_path: Path) -> None:
    fixture = pytest.importorskip(
        "schemarouter_conformance", reason="the conformance package is not installed"
    )
    command, args = fixture.stdio_command(tmp_path / "calls.jsonl")
    server = shlex.join([command, *args])
    cli = [sys.executable, "-m", "schemarouter.cli", "route", "--stdio", server, "--name", "fixture"]
    query = "erase the customer record c-200"
    hybrid = subprocess.run([*cli, "--semantic", "--json", query], capture_output=True, text=True, check=True)
    report = json.loads(hybrid.stdout)
    assert report["mode"] == "hybrid"
    assert report["encoder"].startswith("wordllama-")
    assert "delete_customer" in report["names"]
    decision = next(d for d in report["decisions"] if d["route"] == "fixture:delete_customer")
    assert decision["detail"] in {"hybrid_agree", "semantic_match", "lexical_gate"}
    candidate = next(c for c in report["candidates"] if c["route"] == "fixture:delete_customer")
    assert any(s["field"] == SEMANTIC_FIELD for s in candidate["signals"])
    lexical = subprocess.run([*cli, "--json", query], capture_output=True, text=True, check=True)
    lexical_report = json.loads(lexical.stdout)
    assert (lexical_report["mode"], lexical_report["encoder"]) == ("lexical", None)
    assert (report["unencoded_chars"], lexical_report["unencoded_chars"]) == (0, 0)


def test_route_cli_says_how_much_of_a_long_request_the_encoder_did_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = pytest.importorskip(
        "schemarouter_conformance", reason="the conformance package is not installed"
    )
    from schemarouter.cli import main
    from schemarouter.retrieval._hybrid import MAX_ENCODED_CHARS

    command, args = fixture.stdio_command(tmp_path / "calls.jsonl")
    query = "erase the customer record c-200 " + "x" * MAX_ENCODED_CHARS
    cli = ["route", "--stdio", shlex.join([command, *args]), "--name", "fixture", "--semantic"]
    assert main([*cli, "--json", query]) == 0
    assert json.loads(capsys.readouterr().out)["unencoded_chars"] == len(query) - MAX_ENCODED_CHARS
    assert main([*cli, query]) == 0
    assert f"{len(query) - MAX_ENCODED_CHARS} characters after" in capsys.readouterr().out


def test_calibrate_cli_names_the_hybrid_mode_of_its_threshold(tmp_path: Path) -> None:
    fixture = pytest.importorskip(
        "schemarouter_conformance", reason="the conformance package is not installed"
    )
    command, args = fixture.stdio_command(tmp_path / "calls.jsonl")
    labelled = tmp_path / "labelled.json"
    labelled.write_text(
        json.dumps(
            {
                "supported": [
                    {"query": c.query, "tools": list(c.required_tools)} for c in fixture.SUPPORTED_CASES
                ],
                "unsupported": list(fixture.UNSUPPORTED_QUERIES),
            }
        ),
        encoding="utf-8",
    )
    cli = [sys.executable, "-m", "schemarouter.cli", "calibrate", "--stdio", shlex.join([command, *args])]
    text = subprocess.run([*cli, "--semantic", str(labelled)], capture_output=True, text=True, check=True)
    assert "mode hybrid (wordllama-" in text.stdout
    assert "Visibility(router.with_semantic()," in text.stdout  # the threshold is not for a lexical router
    report = json.loads(
        subprocess.run(
            [*cli, "--semantic", "--json", str(labelled)], capture_output=True, text=True, check=True
        ).stdout
    )
    assert report["mode"] == "hybrid"
    assert report["encoder"].startswith("wordllama-")
    assert fixture.read_call_log(tmp_path / "calls.jsonl") == []
