"""A recording fake model provider on 127.0.0.1, for the real OpenAI and Anthropic SDK clients.

    with FakeProviderServer([ToolCall("get_weather_forecast", {"city": "Paris"}), Text("Sunny.")]) as fake:
        client = openai.AsyncOpenAI(base_url=fake.openai_base_url, api_key="unused")
        ...  # a framework's own OpenAI / Anthropic model class, given that client
        bodies = [request.body for request in fake.requests]

It speaks enough of OpenAI Responses (`POST /v1/responses`), OpenAI Chat Completions
(`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`, also with
`?beta=true`) for the frameworks' real model classes, streaming (`"stream": true`, as
server-sent events) or not. Every model request's JSON body is recorded, in order. Each answer
comes from the script: a sequence of model turns (one `Reply`, or several for parallel tool
calls), then `when_done` once the sequence is used up; or a callable that gets the recorded
request and returns the turn, which lets a stand-in model decide from what it was offered
(`schemarouter_conformance.prompt_view`). A script that raises answers HTTP 400 with the error's
text (the SDKs do not retry a 400), and the error is kept in `errors`.

Nothing leaves the machine: the server binds 127.0.0.1 on a free port and answers only these
paths (anything else is a 404). Use it as a context manager; it stops its thread on exit.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast
from urllib.parse import urlsplit

from ._provider_replies import Api, Reply, Text, ToolCall, ToolSearchCall, render, render_events
from .errors import ConformanceSetupError

__all__ = ["FakeProviderServer", "RecordedRequest", "Script"]

_PATHS: tuple[tuple[str, Api], ...] = (
    ("/responses", "responses"),
    ("/chat/completions", "chat"),
    ("/messages", "messages"),
)


@dataclass(frozen=True)
class RecordedRequest:
    """One model request as the provider received it: which API, the path, the JSON body."""

    api: Api
    path: str
    body: dict[str, Any]

    @property
    def stream(self) -> bool:
        return self.body.get("stream") is True


Turn = Reply | Sequence[Reply]
Script = Callable[[RecordedRequest], Turn]
"""Gets each recorded model request and returns the model's turn: one reply or several."""

_REPLY_TYPES = (ToolCall, ToolSearchCall, Text)
_DONE = Text("done")


def _replies(turn: object) -> list[Reply]:
    if isinstance(turn, _REPLY_TYPES):
        return [turn]
    if isinstance(turn, Sequence) and not isinstance(turn, str | bytes):
        items = list(cast("Sequence[object]", turn))
        if items and all(isinstance(item, _REPLY_TYPES) for item in items):
            return cast("list[Reply]", items)
    raise ConformanceSetupError(
        f"a script turn is a ToolCall, ToolSearchCall or Text, or a non-empty list of them; got {turn!r}"
    )


class FakeProviderServer:
    """Serves scripted model turns to real provider SDK clients and records every request."""

    def __init__(
        self,
        script: Script | Sequence[Turn] = (),
        *,
        when_done: Turn = _DONE,
        model: str = "fake-model",
    ) -> None:
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._errors: list[str] = []
        self._script: Script | list[Turn] = []
        self._when_done = _replies(when_done)
        self._model = model
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.use(script)

    # -- set-up ---------------------------------------------------------------------------------

    def use(self, script: Script | Sequence[Turn]) -> None:
        """Answer the next requests from `script` (a callable, or turns used in order)."""
        with self._lock:
            if callable(script):
                self._script = script
            else:
                turns = list(script)
                for turn in turns:
                    _replies(turn)
                self._script = turns

    def clear(self) -> None:
        """Forget the recorded requests and errors."""
        with self._lock:
            self._requests.clear()
            self._errors.clear()

    def start(self) -> FakeProviderServer:
        if self._server is not None:
            raise ConformanceSetupError("the fake provider server is already running")
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-provider", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> FakeProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what clients need and what was recorded ------------------------------------------------

    @property
    def url(self) -> str:
        if self._server is None:
            raise ConformanceSetupError("start the fake provider server first (use it as a context manager)")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """`base_url` for `openai.OpenAI` / `AsyncOpenAI`."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """`base_url` for `anthropic.Anthropic` / `AsyncAnthropic`."""
        return self.url

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every model request so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def errors(self) -> list[str]:
        """Why a request was answered with an error (a script that raised, a body that is not JSON)."""
        with self._lock:
            return list(self._errors)

    # -- answering ------------------------------------------------------------------------------

    def answer(self, api: Api, path: str, raw: bytes) -> tuple[int, str, bytes]:
        """Record one request and return (status, content type, body). Called by the HTTP handler."""
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise TypeError(f"the request body is a JSON {type(body).__name__}, not an object")
        except (ValueError, TypeError) as exc:
            return self._error(f"unreadable request body: {exc}")
        request = RecordedRequest(api, path, cast("dict[str, Any]", body))
        with self._lock:
            self._requests.append(request)
            n = len(self._requests)
            try:
                replies = self._next(request)
                rendered = render(api, replies, n, str(request.body.get("model") or self._model), len(raw))
            except Exception as exc:
                self._errors.append(f"request {n} ({api}): {type(exc).__name__}: {exc}")
                return self._error(
                    f"the fake provider's script failed: {type(exc).__name__}: {exc}", locked=True
                )
        if request.stream:
            return 200, "text/event-stream", render_events(api, rendered)
        return 200, "application/json", json.dumps(rendered).encode()

    def _next(self, request: RecordedRequest) -> list[Reply]:
        script = self._script
        if callable(script):
            return _replies(script(request))
        if script:
            return _replies(script.pop(0))
        return self._when_done

    def _error(self, message: str, *, locked: bool = False) -> tuple[int, str, bytes]:
        if not locked:
            with self._lock:
                self._errors.append(message)
        # One body both SDKs read: OpenAI's {"error": {...}}, Anthropic's {"type": "error", "error": {...}}.
        payload = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
        return 400, "application/json", json.dumps(payload).encode()


def _handler(fake: FakeProviderServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            api: Api | None = next((api for suffix, api in _PATHS if path.endswith(suffix)), None)
            if api is None:
                self._send(404, "application/json", b'{"error": {"message": "not a model endpoint"}}')
                return
            self._send(*fake.answer(api, path, raw))

        def do_GET(self) -> None:
            self._send(404, "application/json", b'{"error": {"message": "not a model endpoint"}}')

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `requests`
            return

    return Handler
