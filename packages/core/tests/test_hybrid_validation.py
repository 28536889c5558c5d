"""Hybrid mode fails closed on misconfiguration and on broken encoders: typed errors at setup, a
`RoutingError` at request time, and nothing runs.

The encoder is a user-supplied one, through the seam (a bag of hashed words, deterministic), so
no semantic extra is needed.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from schemarouter import (
    Catalog,
    ExecutionPolicy,
    PlanRequest,
    RetrievalAbstentionPolicy,
    RoutingError,
    SchemaRouter,
    ToolSpec,
    UserError,
    Visibility,
    ainvoke_selective,
    execute_selective_plan,
)
from schemarouter.retrieval._hybrid import MAX_ENCODED_CHARS, HybridPolicy, HybridRetriever
from schemarouter.retrieval._semantic import WordLlamaEncoder, semantic_available

CATALOG = Catalog.from_specs(
    "ops",
    [
        ToolSpec("send_email", "Send an email message to a recipient."),
        ToolSpec("get_weather", "Current weather conditions and forecast for a city."),
        ToolSpec("delete_file", "Delete a file from the disk."),
    ],
)


class WordsEncoder:
    """Each word of a text adds 1 along the axis its hash picks: texts that share words are close."""

    name = "words-32"
    dim = 32

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        return out


@pytest.mark.parametrize(
    "bad",
    [
        {"min_confidence": float("nan")},
        {"min_confidence": float("inf")},
        {"min_confidence": -0.1},
        {"min_confidence": 1.6},  # above 1 + lexical_weight: no score can reach it
        {"min_confidence": "0.3"},
        {"min_confidence": None},
        {"min_confidence": True},
        {"semantic_floor": "0.2"},
        {"semantic_floor": 0.0},
        {"semantic_floor": -0.5},
        {"agree_cosine": 0.0},
        {"agree_cosine": "0.1"},
        {"rank_weight": float("nan")},
        {"gate_weight": float("inf")},
        {"lexical_weight": None},
        {"semantic_place_weight": "0.8"},
        {"evidence_weight": False},
        {"depth": 2.5},
        {"depth": True},
        {"depth": "20"},
        {"depth": None},
        {"clause_weight": None},
        {"clause_weight": True},
        {"clause_weight": "0.5"},
    ],
)
def test_every_hybrid_policy_field_is_checked_at_setup(bad: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        HybridPolicy(**bad)


def test_a_nan_confidence_floor_cannot_turn_abstention_off() -> None:
    with pytest.raises(UserError, match="min_confidence"):
        SchemaRouter(CATALOG).with_semantic(WordsEncoder(), hybrid=HybridPolicy(min_confidence=float("nan")))


def test_the_confidence_floor_may_reach_the_top_of_the_fused_score_but_not_beyond() -> None:
    assert HybridPolicy(min_confidence=0.0)
    assert HybridPolicy(min_confidence=1.5)
    assert HybridPolicy(lexical_weight=1.0, min_confidence=2.0)
    with pytest.raises(UserError, match=r"\[0, 1.5\]"):
        HybridPolicy(min_confidence=1.5001)


class RaisingEncoder(WordsEncoder):
    """Encodes the tool texts, then fails on requests once `broken` is set."""

    def __init__(self) -> None:
        self.broken = False

    def encode(self, texts: Sequence[str]) -> Any:
        if self.broken:
            raise ValueError("the model went away")
        return super().encode(texts)


class ScriptedEncoder(WordsEncoder):
    """Tool texts as `WordsEncoder` has them; every request as `answer` (whatever it is)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.tools_done = False

    def encode(self, texts: Sequence[str]) -> Any:
        if not self.tools_done:
            self.tools_done = True
            return super().encode(texts)
        return self.answer


class ReadsEncoder(WordsEncoder):
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def reads(self, text: str) -> Any:
        return self.answer


def _lookups() -> tuple[SchemaRouter, list[str]]:
    calls: list[str] = []

    def send_email(to: str) -> str:
        """Send an email message to a recipient."""
        calls.append(to)
        return "sent"

    policy = ExecutionPolicy(classification={"send_email": "read_only"})
    return SchemaRouter.from_callables([send_email], name="py", execution=policy), calls


@pytest.mark.parametrize(
    "answer",
    [
        [[1.0] * 32, [1.0]],  # ragged
        {"vector": [1.0] * 32},
        [["1.0"] * 32],  # numeric strings
        [[True] * 32],
        [[1j] * 32],
    ],
    ids=["ragged", "dict", "strings", "bools", "complex"],
)
def test_a_request_vector_that_is_no_array_of_reals_is_a_routing_error(answer: Any) -> None:
    router = SchemaRouter(CATALOG).with_semantic(ScriptedEncoder(answer))
    with pytest.raises(RoutingError, match="words-32"):
        router.retrieve("send an email", 3)


@pytest.mark.parametrize(
    "make",
    [
        lambda encoder: encoder.__setattr__("dim", "32"),
        lambda encoder: encoder.__setattr__("dim", None),
        lambda encoder: encoder.__setattr__("dim", 0),
        lambda encoder: encoder.__setattr__("dim", True),
        lambda encoder: encoder.__setattr__("name", 7),
        lambda encoder: encoder.__setattr__("name", None),
    ],
    ids=["dim-str", "dim-none", "dim-zero", "dim-bool", "name-int", "name-none"],
)
def test_a_badly_described_encoder_is_a_setup_error(make: Any) -> None:
    encoder = WordsEncoder()
    make(encoder)
    with pytest.raises(UserError, match="encoder"):
        SchemaRouter(CATALOG).with_semantic(encoder)


def test_an_encoder_class_instead_of_an_instance_is_a_setup_error() -> None:
    with pytest.raises(UserError, match=r"WordLlamaEncoder\(\)"):
        SchemaRouter(CATALOG).with_semantic(WordLlamaEncoder)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="instance"):
        SchemaRouter(CATALOG).with_semantic(WordsEncoder)  # type: ignore[arg-type]


@pytest.mark.parametrize("policy", [RetrievalAbstentionPolicy(0.2), {"min_confidence": 0.5}, 0.5])
def test_a_policy_that_is_no_hybrid_policy_is_a_setup_error(policy: Any) -> None:
    with pytest.raises(UserError, match="HybridPolicy"):
        SchemaRouter(CATALOG).with_semantic(WordsEncoder(), hybrid=policy)


def test_an_encoder_failing_on_the_tool_texts_is_a_routing_error() -> None:
    encoder = RaisingEncoder()
    encoder.broken = True
    with pytest.raises(RoutingError, match="went away") as info:
        SchemaRouter(CATALOG).with_semantic(encoder)
    assert isinstance(info.value.__cause__, ValueError)


def test_an_encoder_failing_on_a_request_is_a_routing_error_on_every_path() -> None:
    encoder = RaisingEncoder()
    lexical, calls = _lookups()
    router = lexical.with_semantic(encoder)
    request = PlanRequest("send an email to ann", {"to": "ann"})
    retrieval = router.retrieve_executable(request, 3)
    plan = router.plan_executable(request)
    encoder.broken = True
    with pytest.raises(RoutingError, match="went away") as info:
        router.retrieve("send an email to ann", 3)
    assert isinstance(info.value.__cause__, ValueError)
    with pytest.raises(RoutingError):
        asyncio.run(ainvoke_selective(router, request, k=3))
    with pytest.raises(RoutingError):
        asyncio.run(execute_selective_plan(router, retrieval, plan, k=3))
    with pytest.raises(RoutingError):
        Visibility(router, k=3).allow_set("send an email to ann")
    assert calls == []
    encoder.broken = False
    assert asyncio.run(ainvoke_selective(router, request, k=3)).route == "py:send_email"
    assert calls == ["ann"]


@pytest.mark.parametrize("answer", [None, "yes", 1, "false"])
def test_reads_must_answer_a_bool(answer: Any) -> None:
    router = SchemaRouter(CATALOG).with_semantic(ReadsEncoder(answer))
    with pytest.raises(RoutingError, match="reads"):
        router.retrieve("send an email", 3)


def test_a_zero_request_vector_is_no_semantic_evidence() -> None:
    """Every cosine is 0: no tool is routed, ranked or even considered through the semantic side."""
    router = SchemaRouter(CATALOG).with_semantic(
        ScriptedEncoder([[0.0] * 32]), hybrid=HybridPolicy(semantic_floor=1e-9, agree_cosine=1e-9)
    )
    retrieval = router.retrieve("hello there", 3)
    assert retrieval.no_route
    assert retrieval.candidates == ()
    assert (retrieval.matched, retrieval.dropped, retrieval.reason) == (0, (), "no_terms_matched")
    # the lexical gate still keeps what it keeps
    kept = router.retrieve("send an email", 3).candidates
    assert [c.route for c in kept] == ["ops:send_email"]
    assert [c.reason for c in kept] == ["lexical_gate"]


class ScaledEncoder(WordsEncoder):
    """`WordsEncoder`'s vectors times `scale`, as float64."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        return super().encode(texts).astype(np.float64) * self.scale


@pytest.mark.parametrize("scale", [1e19, 1e30, 1e-25, 1e100])
def test_huge_or_tiny_finite_vectors_give_the_same_cosines(scale: float) -> None:
    def cosines(encoder: WordsEncoder) -> dict[str, float]:
        retrieval = SchemaRouter(CATALOG).with_semantic(encoder).retrieve("send an email message", 3)
        return {
            c.route: next(s.weight for s in c.signals if s.field == "semantic") for c in retrieval.reported
        }

    expected = cosines(WordsEncoder())
    assert max(expected.values()) > 0.5
    assert cosines(ScaledEncoder(scale)) == pytest.approx(expected, abs=1e-6)


class RecordingEncoder(WordsEncoder):
    def __init__(self) -> None:
        self.longest = 0

    def encode(self, texts: Sequence[str]) -> Any:
        self.longest = max(self.longest, *(len(t) for t in texts))
        return super().encode(texts)


def test_the_encoder_reads_a_bounded_head_of_a_long_request() -> None:
    encoder = RecordingEncoder()
    router = SchemaRouter(CATALOG).with_semantic(encoder)
    request = "send an email message to ann " + "word " * 20_000  # 100,029 characters
    kept = router.retrieve(request, 3).candidates
    assert [c.route for c in kept][:1] == ["ops:send_email"]
    assert encoder.longest == MAX_ENCODED_CHARS
    retriever = router.retriever
    assert isinstance(retriever, HybridRetriever)
    assert retriever.unencoded_chars(request) == len(request) - MAX_ENCODED_CHARS
    assert retriever.unencoded_chars("send an email") == 0


def test_with_semantic_on_a_hybrid_router_keeps_what_it_is_not_given() -> None:
    encoder = WordsEncoder()
    strict = HybridPolicy(min_confidence=0.5)
    hybrid = SchemaRouter(CATALOG).with_semantic(encoder, hybrid=HybridPolicy(min_confidence=0.2))
    repoliced = hybrid.with_semantic(hybrid=strict)
    retriever = repoliced.retriever
    assert isinstance(retriever, HybridRetriever)
    assert (retriever.semantic.encoder, retriever.policy) == (encoder, strict)
    first = hybrid.retriever
    assert isinstance(first, HybridRetriever)
    assert retriever.semantic is first.semantic  # the tool vectors are not built again
    again = repoliced.with_semantic()
    assert isinstance(again.retriever, HybridRetriever)
    assert (again.retriever.semantic.encoder, again.retriever.policy) == (encoder, strict)
    other = WordsEncoder()
    swapped = again.with_semantic(other)
    assert isinstance(swapped.retriever, HybridRetriever)
    assert (swapped.retriever.semantic.encoder, swapped.retriever.policy) == (other, strict)


@pytest.mark.skipif(not semantic_available(), reason="the semantic extra is not installed")
@pytest.mark.parametrize("request_text", ["weather \ud800 in Paris", "\udfff", "send an email \ud83d"])
def test_a_lone_surrogate_routes_in_both_modes_alike(request_text: str) -> None:
    """JSON can carry a lone surrogate ("\\ud800"): lexical mode routes such a request, and hybrid
    mode must too (WordLlama's tokenizer raised, which surfaced as a RoutingError)."""
    catalog = Catalog.from_specs(
        "app",
        [ToolSpec("get_weather", "Current weather for a city."), ToolSpec("send_email", "Send an email.")],
    )
    lexical = SchemaRouter(catalog)
    hybrid = lexical.with_semantic()
    for router in (lexical, hybrid):
        retrieval = router.retrieve(request_text, 3)
        allow = Visibility(router, k=3).allow_set(request_text)
        assert allow.names == tuple(c.name for c in retrieval.offered), router.mode
