"""Models and endpoints the encoder tests build for themselves, offline.

- `tiny_onnx_model`: a BERT-shaped ONNX graph (token ids -> token states: one `Gather` from an
  embedding table) made with the `onnx` helper API, and a WordLevel tokenizer made with
  `tokenizers`, saved as a model folder fastembed loads.
- `embedding_server`: an OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 in a
  thread, whose answers a test can script (a status, a delay, a body) and whose requests it
  can read back.

Both embed words by the same small table of concepts (`WORDS`), so a request's closest tool is
known: "erase" is near "delete", "forecast" near "weather".
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter import Catalog, ToolSpec

CONCEPTS = 6
WORDS: dict[str, tuple[float, ...]] = {
    # weather
    "weather": (1, 0, 0, 0, 0, 0),
    "forecast": (1, 0, 0, 0, 0, 0.1),
    "rain": (0.9, 0, 0, 0, 0, 0),
    "city": (0.5, 0, 0, 0, 0, 0.5),
    # e-mail
    "email": (0, 1, 0, 0, 0, 0),
    "mail": (0, 1, 0, 0, 0, 0.1),
    "message": (0, 0.9, 0, 0, 0, 0),
    "send": (0, 0.6, 0, 0, 0, 0.4),
    "recipient": (0, 0.8, 0, 0, 0, 0),
    # files
    "file": (0, 0, 1, 0, 0, 0),
    "delete": (0, 0, 1, 0, 0, 0.1),
    "erase": (0, 0, 1, 0, 0, 0),
    "disk": (0, 0, 0.8, 0, 0, 0),
    "document": (0, 0, 0.9, 0, 0, 0),
    # calendar
    "meeting": (0, 0, 0, 1, 0, 0),
    "calendar": (0, 0, 0, 1, 0, 0),
    "schedule": (0, 0, 0, 0.9, 0, 0.1),
    # music
    "song": (0, 0, 0, 0, 1, 0),
    "music": (0, 0, 0, 0, 1, 0),
    "play": (0, 0, 0, 0, 0.8, 0.2),
    # common words
    "the": (0, 0, 0, 0, 0, 0.3),
    "a": (0, 0, 0, 0, 0, 0.3),
    "for": (0, 0, 0, 0, 0, 0.3),
    "to": (0, 0, 0, 0, 0, 0.3),
    "from": (0, 0, 0, 0, 0, 0.3),
    "get": (0, 0, 0, 0, 0, 0.5),
    "my": (0, 0, 0, 0, 0, 0.3),
}
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")

CATALOG = Catalog.from_specs(
    "demo",
    [
        ToolSpec("get_weather", "Current weather and forecast for a city."),
        ToolSpec(
            "send_email",
            "Send an email message to a recipient.",
            {"type": "object", "properties": {"to": {}}},
        ),
        ToolSpec("delete_file", "Delete a file from the disk."),
        ToolSpec("create_meeting", "Put a meeting on the calendar."),
        ToolSpec("play_song", "Play a song from the music library."),
    ],
)


def table(words: dict[str, tuple[float, ...]] = WORDS, scale: float = 1.0) -> np.ndarray:
    """The embedding table: the special tokens' rows zero, then each word's concept vector."""
    rows = [[0.0] * CONCEPTS for _ in SPECIAL_TOKENS] + [list(v) for v in words.values()]
    return np.asarray(rows, dtype=np.float32) * np.float32(scale)


def concept_vector(text: str) -> list[float]:
    """What the endpoint answers for `text`: the sum of its known words' concept vectors."""
    out = np.zeros(CONCEPTS, dtype=np.float64)
    for word in re.findall(r"[a-z]+", text.lower()):
        out += np.asarray(WORDS.get(word, (0.0,) * CONCEPTS))
    return [float(x) for x in out]


def build_onnx_model(
    folder: Path,
    weights: np.ndarray,
    words: dict[str, tuple[float, ...]] = WORDS,
    *,
    mask_first: bool = False,
) -> Path:
    """A model folder: `model.onnx` (input_ids -> last_hidden_state by a Gather from `weights`)
    and the tokenizer files fastembed reads (lowercase words, [CLS] a b [SEP]). With
    `mask_first`, the graph's first output is the attention mask as floats (batch, tokens), as
    some exports list another output before the token states."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {token: i for i, token in enumerate((*SPECIAL_TOKENS, *words))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 128, "pad_token": "[PAD]"}))
    (folder / "special_tokens_map.json").write_text(
        json.dumps({"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]"})
    )
    (folder / "config.json").write_text(json.dumps({"pad_token_id": 0}))
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    states = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", int(weights.shape[1])]
    )
    nodes = [helper.make_node("Gather", ["embeddings", "input_ids"], ["last_hidden_state"], axis=0)]
    outputs = [states]
    if mask_first:
        nodes.append(helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT))
        outputs.insert(0, helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "tokens"]))
    graph = helper.make_graph(
        nodes, "tiny-encoder", inputs, outputs, [numpy_helper.from_array(weights, "embeddings")]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # read by every onnxruntime this project supports
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    return folder


@pytest.fixture
def tiny_onnx_model(tmp_path: Path) -> Path:
    """A tiny ONNX sentence encoder's folder (see the module docstring)."""
    pytest.importorskip("onnx", reason="the onnx package builds the test model (dev group)")
    pytest.importorskip("tokenizers", reason="the tokenizers package builds the test tokenizer")
    return build_onnx_model(tmp_path / "tiny-model", table())


# -- the embeddings endpoint -------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted answer: an HTTP status, extra headers, a body (JSON of the vectors when
    None), a delay before answering, and a vector length to cut to."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    body: bytes | None = None
    delay: float = 0.0
    width: int | None = None


@dataclass
class EmbeddingServer:
    """The endpoint's URL (`.../v1`), the replies still scripted, and what it received."""

    base_url: str
    script: list[Reply] = field(default_factory=list[Reply])
    received: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    lock: threading.Lock = field(default_factory=threading.Lock)

    def then(self, *replies: Reply) -> EmbeddingServer:
        with self.lock:
            self.script.extend(replies)
        return self

    def next_reply(self) -> Reply:
        with self.lock:
            return self.script.pop(0) if self.script else Reply()


def _handler(server: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            payload = json.loads(raw)
            with server.lock:
                server.received.append(
                    {"path": self.path, "headers": dict(self.headers.items()), "json": payload}
                )
            reply = server.next_reply()
            if reply.delay:
                time.sleep(reply.delay)
            body = reply.body
            if body is None:
                data = []
                for index, text in enumerate(payload["input"]):
                    vector = concept_vector(text)
                    if reply.width is not None:
                        vector = (vector + [0.0] * reply.width)[: reply.width]
                    data.append({"object": "embedding", "index": index, "embedding": vector})
                data.reverse()  # an endpoint may answer out of order: `index` says where each goes
                body = json.dumps({"object": "list", "data": data, "model": payload["model"]}).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                pass

    return Handler


@pytest.fixture
def embedding_server() -> Iterator[EmbeddingServer]:
    """An OpenAI-compatible embeddings endpoint on 127.0.0.1 (see the module docstring)."""
    state = EmbeddingServer("")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """After it is called, any connection to a host other than 127.0.0.1 fails the test."""
    import socket

    def guard() -> None:
        real_connect = socket.socket.connect

        def connect(self: socket.socket, address: Any) -> Any:
            host = address[0] if isinstance(address, tuple) else address
            if host not in ("127.0.0.1", "::1", "localhost") and not isinstance(address, str | bytes):
                raise AssertionError(f"network access attempted: {address}")
            return real_connect(self, address)

        monkeypatch.setattr(socket.socket, "connect", connect)

    return guard
