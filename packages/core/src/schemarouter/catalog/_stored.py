"""A catalog as plain JSON data and back, for router snapshots: each tool's contract with its
fingerprint, the tools skipped with their reasons, the listings cut short.

Reading a catalog back recomputes every fingerprint from the contract read and the catalog
version from them all, and refuses (`SnapshotError`) anything that differs from what was
stored: a contract edited without its fingerprint, a fingerprint edited without its contract, a
tool added or removed. The schemas are not checked against the metaschema again: a stored
contract is one a catalog of this library version accepted (the snapshot records the version,
and loading refuses another), and its fingerprint proves it is that contract. The size limits
(`CatalogLimits`) are another matter: they are the loading process's own, and `within_limits`
applies them to a catalog read back as a listing applies them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast, get_args

from ..errors import SnapshotError
from ._canonical import canonical_bytes
from ._capability import ROUTE_SEPARATOR, Capability
from ._catalog import (
    Catalog,
    CatalogLimits,
    CutReason,
    ListingCut,
    SkippedTool,
    SkipReason,
    name_too_long,
    over_tool_limit,
    schema_too_large,
    text_too_large,
)

__all__ = ["catalog_from_record", "catalog_record", "within_limits"]


def catalog_record(catalog: Catalog) -> dict[str, Any]:
    """The catalog as JSON data: tools in load order, each with its fingerprint."""
    return {
        "version": catalog.version,
        "tools": [
            [
                cap.source,
                cap.name,
                cap.title,
                cap.description,
                cap.input_schema,
                cap.output_schema,
                cap.annotations,
                cap.fingerprint,
            ]
            for cap in catalog
        ],
        "skipped": [[s.source, s.name, s.reason, s.detail] for s in catalog.skipped],
        "cut_short": [
            [c.source, c.reason, c.pages_read, c.tools_listed, c.detail] for c in catalog.cut_short
        ],
    }


def _fail(what: str) -> SnapshotError:
    return SnapshotError(f"the snapshot's catalog {what}")


def _rows(record: Mapping[str, Any], key: str, width: int) -> list[list[Any]]:
    rows: object = record.get(key)
    if not isinstance(rows, list):
        raise _fail(f"has no list of {key}")
    for row in cast("list[object]", rows):
        if not isinstance(row, list) or len(cast("list[object]", row)) != width:
            raise _fail(f"holds a malformed entry in {key}")
    return cast("list[list[Any]]", rows)


def _optional_mapping(value: object, what: str) -> Mapping[str, Any] | None:
    if value is None or isinstance(value, dict):
        return cast("Mapping[str, Any] | None", value)
    raise _fail(f"holds a {what} that is not a JSON object")


def catalog_from_record(record: object) -> Catalog:
    """The catalog `catalog_record` gave, with every fingerprint and the version verified."""
    if not isinstance(record, dict):
        raise _fail("is not a JSON object")
    data = cast("dict[str, Any]", record)
    caps: list[Capability] = []
    for source, name, title, description, input_schema, output_schema, hints, fingerprint in _rows(
        data, "tools", 8
    ):
        if not (isinstance(source, str) and isinstance(name, str) and isinstance(description, str)):
            raise _fail("holds a tool whose source, name or description is not a string")
        if not (source and name.strip()) or ROUTE_SEPARATOR in source or ROUTE_SEPARATOR in name:
            raise _fail(f"holds a tool whose source or name no catalog accepts: {source!r}, {name!r}")
        if title is not None and not isinstance(title, str):
            raise _fail(f"holds tool {name!r} with a title that is not a string")
        schema = _optional_mapping(input_schema, "input schema")
        if schema is None:
            raise _fail(f"holds tool {name!r} without an input schema")
        try:
            cap = Capability.adopting(
                source,
                name,
                description,
                cast("dict[str, Any]", schema),
                title,
                cast("dict[str, Any] | None", _optional_mapping(output_schema, "output schema")),
                cast("dict[str, Any] | None", _optional_mapping(hints, "annotations object")),
            )
        except (TypeError, ValueError, RecursionError) as exc:
            raise _fail(f"holds tool {name!r}, which is not plain JSON data: {exc}") from None
        if cap.fingerprint != fingerprint:
            raise _fail(
                f"holds tool {cap.route!r}, whose contract does not match its fingerprint "
                f"({str(fingerprint)[:12]} stored, {cap.short_fingerprint} computed): it was altered"
            )
        caps.append(cap)
    skip_reasons = get_args(SkipReason)
    skipped: list[SkippedTool] = []
    for source, name, reason, detail in _rows(data, "skipped", 4):
        if not (isinstance(source, str) and isinstance(name, str) and isinstance(detail, str)):
            raise _fail("holds a malformed skipped tool")
        if reason not in skip_reasons:
            raise _fail(f"holds a skipped tool with an unknown reason {reason!r}")
        skipped.append(SkippedTool(source, name, cast("SkipReason", reason), detail))
    cut_reasons = get_args(CutReason)
    cuts: list[ListingCut] = []
    for source, reason, pages, listed, detail in _rows(data, "cut_short", 5):
        counts_ok = all(isinstance(n, int) and not isinstance(n, bool) for n in (pages, listed))
        if not (isinstance(source, str) and isinstance(detail, str) and counts_ok):
            raise _fail("holds a malformed listing cut")
        if reason not in cut_reasons:
            raise _fail(f"holds a listing cut with an unknown reason {reason!r}")
        cuts.append(ListingCut(source, cast("CutReason", reason), pages, listed, detail))
    try:
        catalog = Catalog(caps, skipped, cuts)
    except ValueError as exc:  # two tools with one route
        raise _fail(f"is inconsistent: {exc}") from None
    if catalog.version != data.get("version"):
        raise _fail(
            f"has version {catalog.version[:12]} from its tools, not the {str(data.get('version'))[:12]} it states"
        )
    return catalog


def _over_limits(cap: Capability, limits: CatalogLimits) -> SkippedTool | None:
    """Why a listing under `limits` would skip the accepted tool `cap` for a size limit (its
    name, description or title, input or output schema), checked in the listing's order; None
    when it is within them all."""
    too_long = name_too_long(cap.source, cap.name, limits)
    if too_long is not None:
        return too_long
    text = text_too_large(cap.description, "description", limits) or text_too_large(
        cap.title, "title", limits
    )
    if text is not None:
        return SkippedTool(cap.source, cap.name, "description_too_large", text)
    # what a model is offered holds the input schema's canonical JSON: within the limit, so is it
    if cap.schema_bytes > limits.max_schema_bytes:
        problem = schema_too_large(len(canonical_bytes(cap.input_schema)), "input schema", limits)
        if problem is not None:
            return SkippedTool(cap.source, cap.name, *problem)
    if cap.output_schema is not None:
        problem = schema_too_large(len(canonical_bytes(cap.output_schema)), "output schema", limits)
        if problem is not None:
            return SkippedTool(cap.source, cap.name, *problem)
    return None


def within_limits(catalog: Catalog, limits: CatalogLimits) -> Catalog:
    """`catalog` with each tool over `limits` skipped and reported as `Catalog.from_specs` skips
    it while listing (`name_too_long`, `description_too_large`, `schema_too_large`, and
    `tool_limit` past `limits.max_tools` tools of one source); `catalog` itself when every tool
    is within them. For tools accepted once under other limits (a router snapshot's), checked
    against the limits of the process that loads them."""
    kept: list[Capability] = []
    skipped: list[SkippedTool] = []
    per_source: dict[str, int] = {}
    for cap in catalog:
        if per_source.get(cap.source, 0) >= limits.max_tools:
            skipped.append(over_tool_limit(cap.source, cap.name, limits))
            continue
        over = _over_limits(cap, limits)
        if over is not None:
            skipped.append(over)
            continue
        per_source[cap.source] = per_source.get(cap.source, 0) + 1
        kept.append(cap)
    if not skipped:
        return catalog
    return Catalog(kept, (*catalog.skipped, *skipped), catalog.cut_short)
