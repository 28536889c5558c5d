"""Prototypes of native deferred loading where the adapters have none yet (see prompt_cache.py)."""

from __future__ import annotations

from typing import Any

from schemarouter import Visibility


def langchain_native_middleware(visibility: Visibility, api: str) -> list[Any]:
    raise NotImplementedError
