"""What is checked of a JSON Schema beyond its metaschema, so that nothing done later with an
accepted schema (fingerprinting, copying, validating arguments) fails on its shape.

- Nesting is bounded (`MAX_SCHEMA_DEPTH`): the metaschema check, deep copies and argument
  validation all recurse, several Python frames per level, and a schema of a few KB could
  otherwise exhaust the interpreter's stack.
- A `$ref` into the schema itself must point at something (`dangling_ref`): otherwise the schema
  loads, and every argument check against it fails.
- References may not multiply the schema (`MAX_SCHEMA_EXPANSION`, `too_expansive`): a validator
  follows every `$ref` where it stands, so a few KB of definitions that each refer twice to the
  next one make a check of one argument visit millions of subschemas.
- Arguments are validated with `argument_validator`, which never fetches a remote schema: a
  `$ref` to another document does not resolve, and the boundary refuses the call instead of
  letting an untrusted schema make the host open a URL.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import InvalidAnchor, NoSuchAnchor, PointerToNowhere, Unresolvable
from referencing.jsonschema import DRAFT202012

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_EXPANSION",
    "argument_validator",
    "dangling_ref",
    "expanded_size",
    "nesting_depth",
    "too_expansive",
]

MAX_SCHEMA_DEPTH = 64
"""Deepest nesting of JSON objects and arrays accepted in a tool's schema (a property nested
inside an object is two levels: the schema and its `properties`). Real tool schemas stay far
below it; the metaschema check needs about eight Python frames per level."""

MAX_SCHEMA_EXPANSION = 10_000
"""Most subschemas a schema may reach when every reference in it is followed where it stands
(`expanded_size`). A schema without references counts its own subschemas; real tool schemas,
with their shared definitions, stay in the hundreds. Each level of a chain of definitions that
refer twice to the next doubles the count, and the time an argument check takes with it: 11
such levels pass, 12 do not."""

_REF_KEYWORDS = ("$ref", "$dynamicRef")
_DEFINITION_KEYWORDS = ("$defs", "definitions")
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


@dataclass(slots=True)
class _Walk:
    """One schema object being counted: its children still to visit and its count so far."""

    key: int
    children: Iterator[tuple[Resource[Any], Any]]
    total: int = 1


def _reached(resource: Resource[Any], resolver: Any) -> Iterator[tuple[Resource[Any], Any]]:
    """What a validator may visit from `resource`: its subschemas other than definitions (a
    definition is visited only through a reference to it), then the targets of its own
    references (each with the resolver to read it by). References that do not resolve reach
    nothing."""
    contents: Any = resource.contents
    if not isinstance(contents, Mapping):
        return
    mapping = cast("Mapping[str, Any]", contents)
    definitions = {
        id(definition)
        for keyword in _DEFINITION_KEYWORDS
        if isinstance(found := mapping.get(keyword), Mapping)
        for definition in cast("Mapping[str, Any]", found).values()
    }
    for sub in resource.subresources():
        if id(sub.contents) not in definitions:
            yield sub, resolver.in_subresource(sub)
    for keyword in _REF_KEYWORDS:
        ref = mapping.get(keyword)
        if not isinstance(ref, str):
            continue
        try:
            resolved = resolver.lookup(ref)
        except Unresolvable:
            continue
        yield DRAFT202012.create_resource(resolved.contents), resolved.resolver


def expanded_size(schema: Mapping[str, Any], limit: int = MAX_SCHEMA_EXPANSION) -> int:
    """How many subschemas `schema` reaches when each reference is replaced by what it points
    at, counted without recursion: a schema object counts 1 plus what each of its subschemas and
    each of its references' targets count. A reference back into a schema object that encloses
    it (a recursive schema) counts 1: how often a recursive schema is followed depends on the
    arguments, which the argument check's own budget bounds. Counting stops past `limit`
    (the result is then `limit + 1`); each schema object is walked once."""
    root: Resource[Any] = DRAFT202012.create_resource(schema)
    counted: dict[int, int] = {}
    walks = [_Walk(id(schema), _reached(root, _NO_RETRIEVAL.resolver_with_root(root)))]
    open_keys = {id(schema)}
    while walks:
        walk = walks[-1]
        child = next(walk.children, None)
        if child is None:
            walks.pop()
            open_keys.discard(walk.key)
            counted[walk.key] = walk.total
            if not walks:
                return walk.total
            walks[-1].total += walk.total
        else:
            resource, resolver = child
            contents: object = resource.contents
            key = id(contents)
            if not isinstance(contents, Mapping) or key in open_keys:
                walk.total += 1
            elif key in counted:
                walk.total += counted[key]
            else:
                open_keys.add(key)
                walks.append(_Walk(key, _reached(resource, resolver)))
        if walks and walks[-1].total > limit:
            return limit + 1
    return 1  # unreachable: the root walk returns


def too_expansive(schema: Mapping[str, Any], what: str) -> tuple[Literal["invalid_schema"], str] | None:
    """Why a catalog skips `schema` (`what` names it) for reaching more than
    `MAX_SCHEMA_EXPANSION` subschemas through its references, or None."""
    if expanded_size(schema) <= MAX_SCHEMA_EXPANSION:
        return None
    return (
        "invalid_schema",
        f"{what} reaches more than {MAX_SCHEMA_EXPANSION:,} subschemas when its references are "
        "followed (MAX_SCHEMA_EXPANSION): checking arguments against it would take too long",
    )


def argument_validator(
    schema: Mapping[str, Any], validator_class: type[Validator] | None = None
) -> Validator:
    """A Draft 2020-12 validator for arguments against `schema` that resolves references within
    the schema (and to the metaschemas) only. Validation raises `referencing.exceptions.
    Unresolvable` for any other reference. `validator_class` is `Draft202012Validator` or a
    class extending it."""
    return (validator_class or Draft202012Validator)(schema, registry=_NO_RETRIEVAL)
