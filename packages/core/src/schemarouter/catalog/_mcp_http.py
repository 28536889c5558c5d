"""The HTTP client of a streamable-HTTP MCP source: answers read within a byte bound while they
are decoded, and the HTTP status of answers the MCP client cannot read kept for the error.

A compressed answer can decode to thousands of times its size on the wire (a few MB of gzip
became 8 GiB), and the MCP SDK reads a JSON answer whole before anyone can judge it. So every
answer's body is decoded here, chunk by chunk, and counted as it is read: the answers to
`tools/list` of one listing together within `CatalogLimits.max_listing_bytes`, any other answer
except a tool's result within the same number on its own. Past the bound the read stops with
a `ServerProtocolError` naming the limit.

The MCP SDK turns an HTTP error without a JSON-RPC body into a bare "Not Found" or "Server
returned an error response"; the status and reason of the latest such answer are kept here so
the error can say what the endpoint answered.

The hook is an httpx response event hook, so it sees every answer, through a proxy too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import cast

import httpx2

from ..errors import ServerProtocolError

__all__ = ["HttpWatch", "bounded_http_client"]

_READABLE = ("application/json", "text/event-stream")


class HttpWatch:
    """What one MCP session's HTTP client saw, and the bounds its answers are read within."""

    def __init__(self, label: str, answer_limit: int) -> None:
        self.label = label
        self.answer_limit = answer_limit
        """Bytes of one answer at most, once decoded (a tool's result is not bounded here)."""
        self.listing_limit = answer_limit
        self.listing_bytes = 0
        self.refusal: str | None = None
        """'HTTP 404 Not Found' for the latest POST answered with an HTTP error or with a body
        that is neither JSON nor an event stream; None once a POST is answered readably."""
        self.refusal_code = 0
        """The HTTP status of the latest POST answer (`refusal` is for that answer, if not None)."""
        self.failure: ServerProtocolError | None = None
        """The bound that stopped a `tools/list` answer (the SDK may swallow the error itself)."""
        self._listing_body: bytes | None = None

    def start_listing(self, limit: int) -> None:
        """Count the `tools/list` answers from here on against `limit` bytes together."""
        self.listing_limit = limit
        self.listing_bytes = 0
        self.failure = None

    def _charge_listing(self, size: int) -> None:
        self.listing_bytes += size
        if self.listing_bytes > self.listing_limit:
            self.failure = ServerProtocolError(
                self.label,
                f"the tools/list answers passed {self.listing_limit:,} bytes once decoded "
                "(CatalogLimits.max_listing_bytes); the listing was stopped",
            )
            raise self.failure

    def _answer_charge(self, method: str | None) -> Callable[[int], None]:
        read = 0

        def charge(size: int) -> None:
            nonlocal read
            read += size
            if read > self.answer_limit:
                what = f"the answer to {method}" if method else "an answer"
                raise ServerProtocolError(
                    self.label, f"{what} passed {self.answer_limit:,} bytes once decoded; it was not read"
                )

        return charge

    def _note_status(self, response: httpx2.Response, content_type: str) -> None:
        if response.request.method != "POST" or response.status_code == 202:
            return
        status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        if response.status_code >= 400:
            self.refusal = status
        elif response.status_code < 300 and content_type not in _READABLE:
            self.refusal = f"{status} with content type {content_type or '(none)'}"
        elif response.status_code < 300:
            self.refusal = None
        self.refusal_code = response.status_code

    def take_listing_body(self) -> bytes | None:
        """The body of the latest `tools/list` answer sent as JSON, once (for an answer the MCP
        client could not parse: Python's own parser reads deeper)."""
        body, self._listing_body = self._listing_body, None
        return body

    def _keep_listing_body(self, body: bytes) -> None:
        self._listing_body = body

    async def on_response(self, response: httpx2.Response) -> None:
        """The response hook: note the status, and put the body behind its byte bound."""
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        self._note_status(response, content_type)
        method = _method_of(response.request)
        if method == "tools/call":
            return
        keep: Callable[[bytes], None] | None = None
        if method == "tools/list":
            self._listing_body = None
            charge = self._charge_listing
            keep = self._keep_listing_body if content_type == "application/json" else None
        else:
            charge = self._answer_charge(method)
        encoded = httpx2.Response(response.status_code, headers=response.headers, stream=response.stream)
        response.stream = _BoundedBody(encoded, charge, keep)
        for name in ("content-encoding", "content-length"):
            if name in response.headers:
                del response.headers[name]


def _method_of(request: httpx2.Request) -> str | None:
    """The JSON-RPC method a POST carries (None for anything else)."""
    if request.method != "POST":
        return None
    try:
        message: object = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    method = cast("Mapping[str, object]", message).get("method") if isinstance(message, Mapping) else None
    return method if isinstance(method, str) else None


class _BoundedBody(httpx2.AsyncByteStream):
    """A response body, decoded from its content encoding as it is read, each chunk charged;
    handed whole to `keep` once read, when there is a `keep`."""

    def __init__(
        self, encoded: httpx2.Response, charge: Callable[[int], None], keep: Callable[[bytes], None] | None
    ) -> None:
        self._encoded = encoded
        self._charge = charge
        self._keep = keep

    async def __aiter__(self) -> AsyncIterator[bytes]:
        kept: list[bytes] = []
        async for chunk in self._encoded.aiter_bytes():
            self._charge(len(chunk))
            if self._keep is not None:
                kept.append(chunk)
            yield chunk
        if self._keep is not None:
            self._keep(b"".join(kept))

    async def aclose(self) -> None:
        await self._encoded.aclose()


def bounded_http_client(
    watch: HttpWatch, headers: Mapping[str, str] | None, timeout: float
) -> httpx2.AsyncClient:
    """An HTTP client for one MCP session, its answers read through `watch`."""
    return httpx2.AsyncClient(
        headers=dict(headers) if headers else None,
        timeout=httpx2.Timeout(timeout),
        event_hooks={"response": [watch.on_response]},
    )
