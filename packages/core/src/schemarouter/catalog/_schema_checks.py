"""What is checked of a JSON Schema beyond its metaschema, so that nothing done later with an
accepted schema (fingerprinting, copying, validating arguments) fails on its shape.

- Nesting is bounded (`MAX_SCHEMA_DEPTH`): the metaschema check, deep copies and argument
  validation all recurse, several Python frames per level, and a schema of a few KB could
  otherwise exhaust the interpreter's stack.
- A `$ref` into the schema itself must point at something (`dangling_ref`): otherwise the schema
  loads, and every argument check against it fails.
- Arguments are validated with `argument_validator`, which never fetches a remote schema: a
  `$ref` to another document does not resolve, and the boundary refuses the call instead of
  letting an untrusted schema make the host open a URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import InvalidAnchor, NoSuchAnchor, PointerToNowhere, Unresolvable
from referencing.jsonschema import DRAFT202012

__all__ = ["MAX_SCHEMA_DEPTH", "argument_validator", "dangling_ref", "nesting_depth"]

MAX_SCHEMA_DEPTH = 64
"""Deepest nesting of JSON objects and arrays accepted in a tool's schema (a property nested
inside an object is two levels: the schema and its `properties`). Real tool schemas stay far
below it; the metaschema check needs about eight Python frames per level."""

_REF_KEYWORDS = ("$ref", "$dynamicRef")
_NO_RETRIEVAL: Registry[Any] = Registry()
"""Only the schema's own resources (and the metaschemas jsonschema adds): nothing is fetched."""


def nesting_depth(value: object, limit: int = MAX_SCHEMA_DEPTH) -> int:
    """Levels of JSON objects and arrays in `value` (0 for a scalar), counted without recursion;
    counting stops at `limit + 1`, so a value that contains itself ends the walk too."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children: list[object] = list(cast("Mapping[object, object]", item).values())
        elif isinstance(item, list | tuple):
            children = list(cast("list[object] | tuple[object, ...]", item))
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        pending.extend((child, depth + 1) for child in children)
    return deepest


def dangling_ref(schema: Mapping[str, Any]) -> str | None:
    """The first `$ref` (or `$dynamicRef`) of `schema` that points into a document of the schema
    itself (`#/$defs/Missing`, `#anchor`, the `$id` of a subschema) at nothing there, described;
    None when every such reference resolves. References to other documents are not judged here:
    nothing is fetched, so argument checks refuse them (see `argument_validator`)."""
    root: Resource[Any] = DRAFT202012.create_resource(schema)
    pending = [(root, _NO_RETRIEVAL.resolver_with_root(root))]
    while pending:
        resource, resolver = pending.pop()
        contents: Any = resource.contents
        if isinstance(contents, Mapping):
            for keyword in _REF_KEYWORDS:
                ref = cast("Mapping[str, Any]", contents).get(keyword)
                if not isinstance(ref, str):
                    continue
                try:
                    resolver.lookup(ref)
                except (PointerToNowhere, NoSuchAnchor, InvalidAnchor):
                    return f"{keyword} {ref!r} points at nothing in the schema"
                except Unresolvable:
                    continue  # another document
        pending.extend((sub, resolver.in_subresource(sub)) for sub in resource.subresources())
    return None


def argument_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A Draft 2020-12 validator for arguments against `schema` that resolves references within
    the schema (and to the metaschemas) only. Validation raises `referencing.exceptions.
    Unresolvable` for any other reference."""
    return Draft202012Validator(schema, registry=_NO_RETRIEVAL)
