"""A tool contract: what a model would be shown, plus a stable identity."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ._canonical import canonical_json, sha256_hex

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
        setter(self, "input_schema", _copied(dict(self.input_schema)))
        if self.output_schema is not None:
            setter(self, "output_schema", _copied(dict(self.output_schema)))
        if self.annotations is not None:
            setter(self, "annotations", _copied(dict(self.annotations)))
        self._derive()

    def _derive(self) -> None:
        """Set the route, the fingerprint and the offered bytes from the contract."""
        setter = object.__setattr__
        setter(self, "route", make_route(self.source, self.name))
        # The canonical JSON of the contract and of what a model is offered, from the canonical
        # JSON of each field: keys sorted, so the same text `canonical_json` gives the whole
        # (`offered_bytes`, the tests hold both to it), with the schema serialised once.
        schema = canonical_json(self.input_schema)
        name = canonical_json(self.name)
        description = canonical_json(self.description)
        contract = (
            f'{{"annotations":{canonical_json(self.annotations)},"description":{description},'
            f'"input_schema":{schema},"name":{name},"output_schema":{canonical_json(self.output_schema)},'
            f'"title":{canonical_json(self.title)}}}'
        )
        setter(self, "fingerprint", sha256_hex(contract.encode("utf-8")))
        offered_description = description if self.description else canonical_json("")
        offered = f'{{"description":{offered_description},"input_schema":{schema},"name":{name}}}'
        setter(self, "schema_bytes", len(offered.encode("utf-8")))

    @classmethod
    def adopting(
        cls,
        source: str,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        title: str | None,
        output_schema: dict[str, Any] | None,
        annotations: dict[str, Any] | None,
    ) -> Capability:
        """The capability of these fields, taking the dicts as they are instead of copying them:
        for JSON just parsed, which nothing else holds (a snapshot's contracts). The route,
        fingerprint and offered bytes are computed as the constructor computes them."""
        cap = object.__new__(cls)
        setter = object.__setattr__
        for key, value in (
            ("source", source),
            ("name", name),
            ("description", description),
            ("input_schema", input_schema),
            ("title", title),
            ("output_schema", output_schema),
            ("annotations", annotations),
        ):
            setter(cap, key, value)
        cap._derive()
        return cap

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


def _copied(value: Any) -> Any:
    """A deep copy of `value`: JSON data (dicts, lists, scalars) copied directly, anything else
    by `copy.deepcopy` (which also copes with a value that contains itself)."""
    try:
        return _copied_json(value)
    except RecursionError:
        return copy.deepcopy(value)


def _copied_json(value: object) -> object:
    kind = type(value)
    if kind is dict:
        return {key: _copied_json(item) for key, item in cast("dict[object, object]", value).items()}
    if kind is list:
        return [_copied_json(item) for item in cast("list[object]", value)]
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    return copy.deepcopy(value)
