"""OpenAIEmbeddingsEncoder against a real HTTP endpoint on 127.0.0.1: the request it sends,
batching, retries with backoff, the timeout, answers that do not fit, and the API key."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schemarouter import EncoderError, RoutingError, SchemaRouter, UserError, Visibility
from schemarouter.retrieval import OpenAIEmbeddingsEncoder

from .conftest import CATALOG, CONCEPTS, EmbeddingServer, Reply, concept_vector

KEY_ENV = "SCHEMAROUTER_TEST_EMBEDDINGS_KEY"
SECRET = "sk-test-0123456789abcdef"


def _encoder(server: EmbeddingServer, **options: object) -> OpenAIEmbeddingsEncoder:
    settings: dict[str, object] = {
        "base_url": server.base_url,
        "api_key_env": None,
        "backoff": 0.01,
        "max_backoff": 0.05,
        **options,
    }
    encoder = OpenAIEmbeddingsEncoder("test-embed", **settings)  # type: ignore[arg-type]
    waits: list[float] = []
    encoder.sleep = waits.append  # the waits are recorded, not slept
    encoder.waits = waits  # type: ignore[attr-defined]
    return encoder


def test_vectors_come_back_in_input_order(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS)
    texts = ["weather forecast", "send my email", "erase"]
    vectors = encoder.encode(texts)  # the endpoint answers in reverse order, with indexes
    assert vectors.dtype == np.float32
    assert np.array_equal(vectors, np.asarray([concept_vector(t) for t in texts], dtype=np.float32))
    (request,) = embedding_server.received
    assert request["path"] == "/v1/embeddings"
    assert request["json"] == {"model": "test-embed", "input": texts, "encoding_format": "float"}


def test_the_dimension_is_read_from_the_first_answer(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server)
    assert encoder.dim == CONCEPTS
    assert len(embedding_server.received) == 1
    assert encoder.dim == CONCEPTS
    assert len(embedding_server.received) == 1  # asked once


def test_dimensions_are_asked_for_and_named(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dimensions=4)
    embedding_server.then(Reply(width=4))
    assert encoder.encode(["weather"]).shape == (1, 4)
    assert embedding_server.received[0]["json"]["dimensions"] == 4
    assert encoder.name.endswith("/test-embed-4")
    assert encoder.name.startswith("openai-embeddings/127.0.0.1:")


def test_texts_are_sent_in_batches_and_cut(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, batch_size=4, max_chars=10)
    texts = [f"weather {'x' * i}" for i in range(10)]
    assert encoder.encode(texts).shape == (10, CONCEPTS)
    sizes = [len(r["json"]["input"]) for r in embedding_server.received]
    assert sizes == [4, 4, 2]
    assert max(len(t) for r in embedding_server.received for t in r["json"]["input"]) == 10


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_rate_limit_or_server_error_is_tried_again(embedding_server: EmbeddingServer, status: int) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, max_retries=3)
    embedding_server.then(
        Reply(status=status, body=b'{"error": {"message": "slow down"}}'), Reply(status=status)
    )
    assert encoder.encode(["weather"]).shape == (1, CONCEPTS)
    assert len(embedding_server.received) == 3
    assert encoder.waits == [0.01, 0.02]  # type: ignore[attr-defined]


def test_retry_after_is_honoured_within_the_bound(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, max_backoff=2.0)
    embedding_server.then(
        Reply(status=429, headers={"Retry-After": "1.5"}), Reply(status=429, headers={"Retry-After": "60"})
    )
    encoder.encode(["weather"])
    assert encoder.waits == [1.5, 2.0]  # type: ignore[attr-defined]


def test_retries_run_out_with_a_typed_error(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, max_retries=2)
    embedding_server.then(*[Reply(status=503, body=b'{"error": {"message": "overloaded"}}')] * 3)
    with pytest.raises(EncoderError) as caught:
        encoder.encode(["weather"])
    assert caught.value.reason == "http_status"
    assert caught.value.status == 503
    assert "overloaded" in str(caught.value)
    assert "after 3 tries" in str(caught.value)
    assert len(embedding_server.received) == 3


def test_a_client_error_is_not_tried_again(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS)
    embedding_server.then(Reply(status=400, body=b'{"error": {"message": "unknown model test-embed"}}'))
    with pytest.raises(EncoderError, match="unknown model") as caught:
        encoder.encode(["weather"])
    assert caught.value.status == 400
    assert len(embedding_server.received) == 1


def test_a_slow_endpoint_times_out(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, timeout=0.2, max_retries=1)
    embedding_server.then(Reply(delay=1.0), Reply(delay=1.0))
    with pytest.raises(EncoderError) as caught:
        encoder.encode(["weather"])
    assert caught.value.reason == "timeout"
    assert len(embedding_server.received) == 2


def test_a_timeout_then_an_answer_succeeds(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, timeout=0.2, max_retries=1)
    embedding_server.then(Reply(delay=1.0))
    assert encoder.encode(["weather"]).shape == (1, CONCEPTS)


def test_no_endpoint_is_a_connection_error(unused_port: int) -> None:
    encoder = OpenAIEmbeddingsEncoder(
        "m", base_url=f"http://127.0.0.1:{unused_port}/v1", api_key_env=None, dim=3, max_retries=0
    )
    with pytest.raises(EncoderError) as caught:
        encoder.encode(["weather"])
    assert caught.value.reason == "connection"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        pytest.param(Reply(body=b"<html>gateway</html>"), "bad_response", id="not-json"),
        pytest.param(Reply(body=b'{"data": "nope"}'), "bad_response", id="no-list"),
        pytest.param(Reply(body=b'{"data": []}'), "bad_response", id="too-few"),
        pytest.param(
            Reply(body=b'{"data": [{"index": 0, "embedding": ["1", 2]}]}'), "bad_response", id="strings"
        ),
        pytest.param(
            Reply(body=b'{"data": [{"index": 0, "embedding": [true, 2]}]}'), "bad_response", id="bools"
        ),
        pytest.param(
            Reply(body=b'{"data": [{"index": 3, "embedding": [1, 2]}]}'), "bad_response", id="bad-index"
        ),
        pytest.param(Reply(width=4), "wrong_dimension", id="wrong-dimension"),
    ],
)
def test_an_answer_that_does_not_fit_is_a_typed_error(
    embedding_server: EmbeddingServer, reply: Reply, reason: str
) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS)
    embedding_server.then(reply)
    with pytest.raises(EncoderError) as caught:
        encoder.encode(["weather"])
    assert caught.value.reason == reason
    assert isinstance(caught.value, RoutingError)


def test_the_key_is_sent_and_never_shown(
    embedding_server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    encoder = _encoder(embedding_server, dim=CONCEPTS, api_key_env=KEY_ENV)
    echo = json.dumps({"error": {"message": f"key {SECRET} is over its quota"}}).encode()
    embedding_server.then(Reply(status=401, body=echo))
    with pytest.raises(EncoderError) as caught:
        encoder.encode(["weather"])
    assert embedding_server.received[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(encoder)
    assert "<api key>" in str(caught.value)


def test_azure_sends_its_key_header_and_api_version(
    embedding_server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    root = embedding_server.base_url.removesuffix("/v1")
    encoder = OpenAIEmbeddingsEncoder.azure(root, "my-deployment", api_key_env=KEY_ENV, dim=CONCEPTS)
    encoder.encode(["weather"])
    (request,) = embedding_server.received
    assert request["path"] == "/openai/deployments/my-deployment/embeddings?api-version=2024-10-21"
    assert request["headers"]["api-key"] == SECRET
    assert "Authorization" not in request["headers"]


def test_a_missing_key_is_a_setup_error(
    embedding_server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    encoder = _encoder(embedding_server, dim=CONCEPTS, api_key_env=KEY_ENV)
    with pytest.raises(UserError, match=KEY_ENV):
        SchemaRouter(CATALOG).with_semantic(encoder)
    assert embedding_server.received == []


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"base_url": "ftp://host/v1"}, id="scheme"),
        pytest.param({"base_url": "http:///v1"}, id="no-host"),
        pytest.param({"batch_size": 0}, id="batch-size"),
        pytest.param({"timeout": float("nan")}, id="timeout"),
        pytest.param({"max_retries": -1}, id="retries"),
        pytest.param({"dimensions": True}, id="dimensions"),
        pytest.param({"api_key_env": ""}, id="key-env"),
    ],
)
def test_bad_settings_are_refused_at_construction(options: dict[str, object]) -> None:
    with pytest.raises(UserError):
        OpenAIEmbeddingsEncoder("m", **options)  # type: ignore[arg-type]


def test_a_router_routes_through_the_endpoint_and_fails_closed(embedding_server: EmbeddingServer) -> None:
    encoder = _encoder(embedding_server, dim=CONCEPTS, max_retries=0)
    router = SchemaRouter(CATALOG).with_semantic(encoder)
    visibility = Visibility(router, k=2)
    assert visibility.allow_set("erase that document").names[0] == "delete_file"
    embedding_server.then(Reply(status=500))
    with pytest.raises(RoutingError):
        visibility.allow_set("erase that document")
