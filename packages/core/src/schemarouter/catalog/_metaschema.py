"""A fast acceptor for the Draft 2020-12 metaschema check of a tool's schema.

`jsonschema`'s `check_schema` walks its validator machinery over every keyword of a schema
(dynamic references, scope changes, one validator object per step): about 2 ms for a typical
tool schema, most of a catalog's load time. `plainly_valid` answers the same question for the
schemas tools actually send, in a plain walk of the schema, and answers True only when it is
sure: for every keyword it reads, it checks what the 2020-12 metaschema requires of that
keyword's value (the same types, bounds, uniqueness, and the same format checks through the
same `FORMAT_CHECKER`), and it gives up (False) on anything else: a value of a type other
than plain JSON data (a tuple, a mapping that is not a dict, a float where an integer is
required), a rarely used keyword (`$anchor`, `$vocabulary` and their kind), or a nesting
deeper than the catalog accepts. A False is no verdict: the caller then runs the full
metaschema check, which judges the schema and explains what is wrong with it.

So the schemas that load are exactly those `check_schema` accepts: True here implies the
metaschema accepts the schema (the tests hold every keyword the metaschema names to this
table, and compare the two on generated and real schemas), and everything else meets the full
check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import cast

from jsonschema import Draft202012Validator

from ._schema_checks import MAX_SCHEMA_DEPTH

__all__ = ["DEFERRED_KEYWORDS", "JUDGED_KEYWORDS", "plainly_valid"]

_FORMATS = Draft202012Validator.FORMAT_CHECKER
"""The format checker `Draft202012Validator.check_schema` applies to a schema."""
_SIMPLE_TYPES = frozenset(("array", "boolean", "integer", "null", "number", "object", "string"))
_ID_PATTERN = re.compile("^[^#]*#?$")
"""The metaschema's pattern for `$id` (no non-empty fragment), searched as `pattern` is."""


def plainly_valid(schema: object, limit: int = MAX_SCHEMA_DEPTH) -> bool:
    """True when `schema` is certainly a valid Draft 2020-12 schema made of plain JSON data
    (dict, list, str, int, float, bool, None) nested at most `limit` levels; False when this
    walk cannot tell (see the module docstring): False is no verdict."""
    return _schema(schema, 1, limit)


def _as_dict(value: object) -> dict[object, object] | None:
    """`value` when it is exactly a dict (not a subclass, not another mapping), else None."""
    return cast("dict[object, object]", value) if type(value) is dict else None


def _as_list(value: object) -> list[object] | None:
    """`value` when it is exactly a list (a tuple is no JSON array to the metaschema), else None."""
    return cast("list[object]", value) if type(value) is list else None


def _schema(node: object, depth: int, limit: int) -> bool:
    if node is True or node is False:
        return True
    schema = _as_dict(node)
    if schema is None or depth > limit:
        return False
    for key, value in schema.items():
        if type(key) is not str:
            return False
        check = _KEYWORDS.get(key)
        if check is None:
            if key in DEFERRED_KEYWORDS:
                return False
            # a keyword the metaschema does not name: any value passes, its nesting still counts
            if not _data(value, depth + 1, limit):
                return False
        elif not check(value, depth + 1, limit):
            return False
    return True


def _data(value: object, depth: int, limit: int) -> bool:
    """Plain JSON data nested at most `limit` levels (counting from `depth`)."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool:
        return True
    if depth > limit:
        return False
    mapping = _as_dict(value)
    if mapping is not None:
        return all(type(k) is str and _data(v, depth + 1, limit) for k, v in mapping.items())
    items = _as_list(value)
    if items is not None:
        return all(_data(v, depth + 1, limit) for v in items)
    return False


def _schema_map(value: object, depth: int, limit: int) -> bool:
    """An object whose every value is a schema (`properties`, `$defs`, ...)."""
    mapping = _as_dict(value)
    if mapping is None or depth > limit:
        return False
    return all(type(k) is str and _schema(v, depth + 1, limit) for k, v in mapping.items())


def _pattern_map(value: object, depth: int, limit: int) -> bool:
    """`patternProperties`: a schema map whose keys are regular expressions."""
    if not _schema_map(value, depth, limit):
        return False
    return all(_FORMATS.conforms(k, "regex") for k in cast("dict[str, object]", value))


def _schema_array(value: object, depth: int, limit: int) -> bool:
    """A non-empty array of schemas (`allOf`, `anyOf`, `oneOf`, `prefixItems`)."""
    items = _as_list(value)
    if not items or depth > limit:
        return False
    return all(_schema(v, depth + 1, limit) for v in items)


def _distinct_strings(items: list[object], allowed: frozenset[str] | None = None) -> bool:
    strings: set[str] = set()
    for item in items:
        if type(item) is not str or (allowed is not None and item not in allowed):
            return False
        strings.add(item)
    return len(strings) == len(items)


def _string_array(value: object, depth: int, limit: int) -> bool:
    """An array of distinct strings (`required`)."""
    items = _as_list(value)
    return items is not None and depth <= limit and _distinct_strings(items)


def _string_array_map(value: object, depth: int, limit: int) -> bool:
    """`dependentRequired`: an object of string arrays."""
    mapping = _as_dict(value)
    if mapping is None or depth > limit:
        return False
    return all(type(k) is str and _string_array(v, depth + 1, limit) for k, v in mapping.items())


def _dependencies(value: object, depth: int, limit: int) -> bool:
    """`dependencies` (before 2019-09): an object of schemas or string arrays."""
    mapping = _as_dict(value)
    if mapping is None or depth > limit:
        return False
    return all(
        type(k) is str
        and (_string_array(v, depth + 1, limit) if _as_list(v) is not None else _schema(v, depth + 1, limit))
        for k, v in mapping.items()
    )


def _type(value: object, depth: int, limit: int) -> bool:
    """A simple type name, or a non-empty array of distinct ones."""
    if type(value) is str:
        return value in _SIMPLE_TYPES
    items = _as_list(value)
    return bool(items) and depth <= limit and _distinct_strings(items or [], _SIMPLE_TYPES)


def _string(value: object, depth: int, limit: int) -> bool:
    return type(value) is str


def _boolean(value: object, depth: int, limit: int) -> bool:
    return value is True or value is False


def _number(value: object, depth: int, limit: int) -> bool:
    return type(value) is int or type(value) is float


def _positive_number(value: object, depth: int, limit: int) -> bool:
    return (type(value) is int or type(value) is float) and cast("float", value) > 0


def _count(value: object, depth: int, limit: int) -> bool:
    """A non-negative integer written as one (a float such as 2.0 is left to the full check)."""
    return type(value) is int and value >= 0


def _array(value: object, depth: int, limit: int) -> bool:
    """An array of anything (`enum`, `examples`)."""
    return _as_list(value) is not None and _data(value, depth, limit)


def _uri_reference(value: object, depth: int, limit: int) -> bool:
    return type(value) is str and _FORMATS.conforms(value, "uri-reference")


def _uri(value: object, depth: int, limit: int) -> bool:
    return type(value) is str and _FORMATS.conforms(value, "uri")


def _id(value: object, depth: int, limit: int) -> bool:
    return _uri_reference(value, depth, limit) and _ID_PATTERN.search(cast("str", value)) is not None


def _pattern(value: object, depth: int, limit: int) -> bool:
    return type(value) is str and _FORMATS.conforms(value, "regex")


_KEYWORDS: dict[str, Callable[[object, int, int], bool]] = {
    # keyword -> check of its value: (the value, its nesting level if a container, the limit)
    # core
    "$id": _id,
    "$schema": _uri,
    "$ref": _uri_reference,
    "$dynamicRef": _uri_reference,
    "$comment": _string,
    "$defs": _schema_map,
    # applicator
    "prefixItems": _schema_array,
    "items": _schema,
    "contains": _schema,
    "additionalProperties": _schema,
    "properties": _schema_map,
    "patternProperties": _pattern_map,
    "dependentSchemas": _schema_map,
    "propertyNames": _schema,
    "if": _schema,
    "then": _schema,
    "else": _schema,
    "allOf": _schema_array,
    "anyOf": _schema_array,
    "oneOf": _schema_array,
    "not": _schema,
    # unevaluated
    "unevaluatedItems": _schema,
    "unevaluatedProperties": _schema,
    # validation
    "type": _type,
    "const": _data,
    "enum": _array,
    "multipleOf": _positive_number,
    "maximum": _number,
    "exclusiveMaximum": _number,
    "minimum": _number,
    "exclusiveMinimum": _number,
    "maxLength": _count,
    "minLength": _count,
    "pattern": _pattern,
    "maxItems": _count,
    "minItems": _count,
    "uniqueItems": _boolean,
    "maxContains": _count,
    "minContains": _count,
    "maxProperties": _count,
    "minProperties": _count,
    "required": _string_array,
    "dependentRequired": _string_array_map,
    # meta-data
    "title": _string,
    "description": _string,
    "default": _data,
    "deprecated": _boolean,
    "readOnly": _boolean,
    "writeOnly": _boolean,
    "examples": _array,
    # format-annotation
    "format": _string,
    # content
    "contentEncoding": _string,
    "contentMediaType": _string,
    "contentSchema": _schema,
    # kept by the 2020-12 metaschema from earlier drafts
    "definitions": _schema_map,
    "dependencies": _dependencies,
    "$recursiveRef": _uri_reference,
}

JUDGED_KEYWORDS = frozenset(_KEYWORDS)
"""The metaschema's keywords this walk judges itself."""
DEFERRED_KEYWORDS = frozenset(("$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary"))
"""The metaschema's keywords left to the full check: a schema using one is never judged here."""
