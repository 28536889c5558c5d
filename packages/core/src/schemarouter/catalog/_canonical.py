"""Canonical JSON: the one serialisation used for fingerprints and byte counts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["canonical_bytes", "canonical_json", "offered_bytes", "sha256_hex"]


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
"""What `json.dumps` makes anew on every call with these options; it keeps no state between calls."""


def canonical_json(value: Any) -> str:
    """Compact, sorted-key JSON; non-ASCII kept as UTF-8; NaN and Infinity rejected."""
    if value is None:  # absent optional fields: the encoder would set up its machinery for it
        return "null"
    return _ENCODER.encode(value)


def canonical_bytes(value: Any) -> bytes:
    """`canonical_json(value)` encoded as UTF-8: what schema byte counts measure."""
    return canonical_json(value).encode("utf-8")


def offered_bytes(name: str, description: str | None, input_schema: Mapping[str, Any] | None) -> int:
    """Bytes of what a model is offered for one tool: the canonical JSON of its name,
    description and input schema. `Capability.schema_bytes` and every adapter's validation
    measure with it, so their figures compare."""
    return len(
        canonical_bytes({"name": name, "description": description or "", "input_schema": input_schema or {}})
    )


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
