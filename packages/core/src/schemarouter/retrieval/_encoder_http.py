"""`OpenAIEmbeddingsEncoder`: vectors from an OpenAI-compatible embeddings endpoint.

One `POST <base_url>/embeddings` per batch of texts, as OpenAI, Azure OpenAI, Ollama, vLLM and
text-embeddings-inference answer it, through the HTTP client core already has (httpx2, loaded
on first use). No SDK, no extra to install. The API key is read from an environment variable
when the first request is made and sent only in its header: never logged, never in an error.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from ..errors import EncoderError, UserError
from ._semantic import latin_script

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["OpenAIEmbeddingsEncoder"]

_WHO = "OpenAIEmbeddingsEncoder"
_RETRIED = frozenset((408, 409, 429, 500, 502, 503, 504))
"""Statuses worth another try: rate limits, timeouts and overloaded or restarting servers."""
_SHOWN_CHARS = 300
"""Characters of an endpoint's error text quoted in an `EncoderError`."""


def _positive_int(value: object, what: str) -> int:
    """`value` if it is an int >= 1 (not a bool); a `UserError` naming `what` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{_WHO} {what} must be an int >= 1, got {value!r}")
    return value


def _seconds(value: object, what: str, *, zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise UserError(f"{_WHO} {what} must be a finite number of seconds, got {value!r}")
    if value < 0 or (value == 0 and not zero):
        raise UserError(f"{_WHO} {what} must be {'>= 0' if zero else '> 0'}, got {value!r}")
    return float(value)


class OpenAIEmbeddingsEncoder:
    """Vectors from an OpenAI-compatible `/embeddings` endpoint.

        OpenAIEmbeddingsEncoder("text-embedding-3-small")                       # OpenAI, OPENAI_API_KEY
        OpenAIEmbeddingsEncoder("nomic-embed-text", base_url="http://127.0.0.1:11434/v1", api_key_env=None)
        OpenAIEmbeddingsEncoder.azure("https://my-res.openai.azure.com", "my-embedding-deployment")

    `base_url` is the API root (`.../v1`); the encoder posts to `<base_url>/embeddings`, with
    `query` added to the URL (Azure's `api-version`). `api_key_env` names the environment
    variable holding the key (None: the endpoint takes none), sent as `Authorization: Bearer
    <key>`, or as the raw key in `key_header` when that is another header (Azure's `api-key`).
    `dimensions` asks the model for shorter vectors (OpenAI's text-embedding-3 models); `dim`
    is the length expected, by default `dimensions`, else read from the endpoint's first answer.

    Each call sends up to `batch_size` texts, each cut to its first `max_chars` characters. A
    429, 408 or 5xx answer, a timeout or a lost connection is tried again up to `max_retries`
    times, after `backoff` seconds doubling each time (or the answer's `Retry-After`), never
    longer than `max_backoff`; `timeout` bounds each attempt. What still fails raises
    `EncoderError` with a machine-readable `reason`, as does an answer that is not an
    embeddings list of the expected length and dimension: callers fail closed on it.

    Every routed request costs one round trip: put the endpoint near the router. Tool vectors
    are computed once per catalog version; wrap the encoder in `CachedEncoder` to keep them on
    disk across processes. `name` is `openai-embeddings/<host>/<model>` (`-<dimensions>` when
    given) unless you pass one: pass your own to tell apart two servers of one host.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key_env: str | None = "OPENAI_API_KEY",
        key_header: str = "Authorization",
        dimensions: int | None = None,
        dim: int | None = None,
        query: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        batch_size: int = 128,
        max_chars: int = 8192,
        timeout: float = 10.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        name: str | None = None,
        latin_script_only: bool = False,
    ) -> None:
        if not isinstance(model, str) or not model:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{_WHO} needs a model name, got {model!r}")
        parts = urlsplit(base_url) if isinstance(base_url, str) else None  # pyright: ignore[reportUnnecessaryIsInstance]
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise UserError(f"{_WHO} base_url must be an http(s) URL with a host, got {base_url!r}")
        if api_key_env is not None and (not isinstance(api_key_env, str) or not api_key_env):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{_WHO} api_key_env must name an environment variable or be None")
        self._model = model
        self._url = base_url.rstrip("/") + "/embeddings"
        self._query = dict(query or {})
        self._headers = dict(headers or {})
        self._api_key_env = api_key_env
        self._key_header = key_header
        self._dimensions = None if dimensions is None else _positive_int(dimensions, "dimensions")
        expected = dim if dim is not None else self._dimensions
        self._dim = 0 if expected is None else _positive_int(expected, "dim")
        self._batch_size = _positive_int(batch_size, "batch_size")
        self._max_chars = _positive_int(max_chars, "max_chars")
        self._timeout = _seconds(timeout, "timeout")
        self._max_retries = _positive_int(max_retries + 1, "max_retries + 1") - 1
        self._backoff = _seconds(backoff, "backoff", zero=True)
        self._max_backoff = _seconds(max_backoff, "max_backoff", zero=True)
        host = parts.netloc.rpartition("@")[2]  # never a user:password part of the URL
        suffix = f"-{self._dimensions}" if self._dimensions else ""
        self._name = name or f"openai-embeddings/{host}/{model}{suffix}"
        self._latin_script_only = latin_script_only
        self._client: Any = None
        self._key = ""
        self._lock = threading.Lock()
        self._client_lock = threading.Lock()
        self.sleep: Callable[[float], None] = time.sleep
        """How the encoder waits between tries (`time.sleep`)."""

    @classmethod
    def azure(
        cls,
        endpoint: str,
        deployment: str,
        *,
        api_version: str = "2024-10-21",
        api_key_env: str | None = "AZURE_OPENAI_API_KEY",
        **options: Any,
    ) -> OpenAIEmbeddingsEncoder:
        """An Azure OpenAI embeddings deployment: `<endpoint>/openai/deployments/<deployment>/
        embeddings?api-version=...`, the key (`api_key_env`) sent in the `api-key` header."""
        return cls(
            deployment,
            base_url=f"{endpoint.rstrip('/')}/openai/deployments/{deployment}",
            api_key_env=api_key_env,
            key_header="api-key",
            query={"api-version": api_version, **dict(options.pop("query", None) or {})},
            **options,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._name!r}, url={self._url!r})"

    @property
    def name(self) -> str:
        """Identifies the endpoint's model (see the class docstring)."""
        return self._name

    @property
    def dim(self) -> int:
        """The vector length: `dim`, `dimensions`, or the length of the endpoint's first answer
        (asked for here, once, when neither was given)."""
        if not self._dim:
            with self._lock:
                if not self._dim:
                    self._dim = int(self._post(["dimension probe"], expect_dim=0).shape[1])
        return self._dim

    def reads(self, text: str) -> bool:
        """True, or, with `latin_script_only`, whether `text` is mostly in Latin script."""
        return latin_script(text) if self._latin_script_only else True

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One vector per text, float32, in `batch_size` requests to the endpoint."""
        import numpy as np

        dim = self.dim
        blocks = [
            self._post(texts[start : start + self._batch_size], expect_dim=dim)
            for start in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(blocks, axis=0) if blocks else np.zeros((0, dim), dtype=np.float32)

    def close(self) -> None:
        """Close the HTTP connections (they reopen on the next call)."""
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    # -- the HTTP exchange ----------------------------------------------------------------------

    def _http(self) -> Any:
        client = self._client
        if client is not None:
            return client
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def _new_client(self) -> Any:
        import httpx2

        headers = {"Content-Type": "application/json", **self._headers}
        if self._api_key_env is not None:
            key = os.environ.get(self._api_key_env, "").strip()
            if not key:
                raise UserError(
                    f"{_WHO}: the environment variable {self._api_key_env} holding the API key is not "
                    "set (pass api_key_env=None for an endpoint that takes no key)"
                )
            self._key = key
            bearer = self._key_header.lower() == "authorization"
            headers[self._key_header] = f"Bearer {key}" if bearer else key
        return httpx2.Client(headers=headers, timeout=self._timeout, follow_redirects=False)

    def _fail(self, reason: str, message: str, status: int | None = None) -> EncoderError:
        if self._key:
            message = message.replace(self._key, "<api key>")
        return EncoderError(self._name, reason, message, status=status)

    def _post(self, texts: Sequence[str], *, expect_dim: int) -> NDArray[np.float32]:
        """One request for `texts`, tried again as the class docstring says."""
        import httpx2

        client = self._http()
        payload: dict[str, Any] = {
            "model": self._model,
            "input": [text[: self._max_chars] for text in texts],
            "encoding_format": "float",
        }
        if self._dimensions is not None:
            payload["dimensions"] = self._dimensions
        attempt = 0
        while True:
            status: int | None = None
            wait = min(self._max_backoff, self._backoff * 2**attempt)
            try:
                answer = client.post(self._url, params=self._query, json=payload)
            except httpx2.TimeoutException:
                reason, message = "timeout", f"no answer within {self._timeout:g} s"
            except httpx2.TransportError as exc:
                reason, message = "connection", f"could not reach the endpoint ({type(exc).__name__})"
            else:
                if answer.status_code == 200:
                    return self._vectors(answer.content, len(texts), expect_dim)
                status = answer.status_code
                reason, message = "http_status", f"HTTP {status}: {_error_text(answer.content)}"
                if status not in _RETRIED:
                    raise self._fail(reason, message, status)
                wait = _retry_after(answer.headers.get("retry-after"), wait, self._max_backoff)
            if attempt >= self._max_retries:
                tries = f" (after {attempt + 1} tries)" if attempt else ""
                raise self._fail(reason, message + tries, status)
            attempt += 1
            self.sleep(wait)

    def _vectors(self, content: bytes, count: int, expect_dim: int) -> NDArray[np.float32]:
        """The embeddings of one answer, in input order; an `EncoderError` for anything else."""
        import json

        import numpy as np

        try:
            body: object = json.loads(content)
        except ValueError:
            raise self._fail("bad_response", "the answer is not JSON") from None
        data = cast("dict[str, Any]", body).get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or len(cast("list[Any]", data)) != count:
            raise self._fail("bad_response", f"the answer has no list of {count} embeddings under 'data'")
        rows: list[Any] = [None] * count
        for position, item in enumerate(cast("list[Any]", data)):
            entry = cast("dict[str, Any]", item) if isinstance(item, dict) else {}
            index, vector = entry.get("index", position), entry.get("embedding")
            if (
                isinstance(index, bool)
                or not isinstance(index, int)
                or not 0 <= index < count
                or rows[index] is not None
            ):
                raise self._fail("bad_response", f"embedding {position} has a missing or repeated index")
            if not isinstance(vector, list) or not all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in cast("list[Any]", vector)
            ):
                raise self._fail("bad_response", f"embedding {position} is not a list of numbers")
            rows[index] = vector
        widths = {len(row) for row in rows}
        if len(widths) != 1 or (expect_dim and widths != {expect_dim}) or widths == {0}:
            raise self._fail(
                "wrong_dimension",
                f"vectors of length {sorted(widths)}, expected {expect_dim or 'one length'}",
            )
        return np.asarray(rows, dtype=np.float32)


def _error_text(content: bytes) -> str:
    """What an endpoint says went wrong: its JSON `error.message` (or `error`, `message`,
    `detail`), else the start of its body, on one line."""
    import json

    text = content[:4096].decode("utf-8", "replace")
    try:
        body: object = json.loads(content)
    except ValueError:
        body = None
    if isinstance(body, dict):
        fields = cast("dict[str, Any]", body)
        error: object = fields.get("error")
        if isinstance(error, dict):
            error = cast("dict[str, Any]", error).get("message")
        for found in (error, fields.get("message"), fields.get("detail")):
            if isinstance(found, str) and found:
                text = found
                break
    return " ".join(text.split())[:_SHOWN_CHARS] or "(empty body)"


def _retry_after(header: str | None, default: float, cap: float) -> float:
    """Seconds to wait from a `Retry-After` header in seconds (an HTTP date counts as absent),
    bounded by `cap`; `default` without one."""
    try:
        seconds = float(header) if header is not None else default
    except ValueError:
        seconds = default
    return min(cap, seconds) if math.isfinite(seconds) and seconds >= 0 else default
