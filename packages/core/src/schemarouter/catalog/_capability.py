"""A tool contract: what a model would be shown, plus a stable identity."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._canonical import canonical_bytes, offered_bytes, sha256_hex

__all__ = ["FINGERPRINT_FIELDS", "ROUTE_SEPARATOR", "Capability", "make_route"]

ROUTE_SEPARATOR = ":"
"""Separates source and name in a route. MCP tool names cannot contain it."""

FINGERPRINT_FIELDS = ("name", "title", "description", "input_schema", "output_schema", "annotations")
"""The contract fields hashed into `Capability.fingerprint`, in this order of keys.

The fingerprint is SHA-256 over the canonical JSON (sorted keys, compact separators,
UTF-8, no NaN) of an object holding exactly these keys; absent optional fields are
`null`. The `source` is not part of the contract: the same tool served from two
places has the same fingerprint, while its `route` differs.
"""


def make_route(source: str, name: str) -> str:
    """The stable id of a tool: `"<source>:<name>"`."""
    return f"{source}{ROUTE_SEPARATOR}{name}"


@dataclass(frozen=True, slots=True)
class Capability:
    """One tool contract from a catalog source.

    `annotations` are recorded exactly as the remote side reported them and are
    untrusted: they never grant anything, and may only tighten an execution policy.
    Schemas are deep-copied on construction; treat them as read-only.
    """

    source: str
    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] | None = None
    route: str = field(init=False)
    fingerprint: str = field(init=False)
    schema_bytes: int = field(init=False)
    """Size of the canonical JSON of what a model is offered (name, description, input schema)."""

    def __post_init__(self) -> None:
        setter = object.__setattr__
        setter(self, "input_schema", copy.deepcopy(dict(self.input_schema)))
        if self.output_schema is not None:
            setter(self, "output_schema", copy.deepcopy(dict(self.output_schema)))
        if self.annotations is not None:
            setter(self, "annotations", copy.deepcopy(dict(self.annotations)))
        setter(self, "route", make_route(self.source, self.name))
        setter(self, "fingerprint", sha256_hex(canonical_bytes(self.contract())))
        setter(self, "schema_bytes", offered_bytes(self.name, self.description, self.input_schema))

    def contract(self) -> dict[str, Any]:
        """The fingerprinted contract as a plain dict (see `FINGERPRINT_FIELDS`)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations,
        }

    @property
    def short_fingerprint(self) -> str:
        return self.fingerprint[:12]

    def hint(self, key: str) -> bool | None:
        """A boolean annotation as reported (e.g. `destructiveHint`), or None when absent."""
        if self.annotations is None:
            return None
        value = self.annotations.get(key)
        return value if isinstance(value, bool) else None
