"""What a catalog load's span records: one source's tools, the ones skipped and why, a listing
cut short, and how long it took (the span's own duration)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from ._metrics import instruments
from ._span import AttributeValue, Traced, guarded, traced

__all__ = ["catalog_span", "loaded"]


class _Skipped(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def reason(self) -> str: ...


class _Cut(Protocol):
    @property
    def reason(self) -> str: ...


class _Loaded(Protocol):
    def __len__(self) -> int: ...
    @property
    def version(self) -> str: ...
    @property
    def skipped(self) -> Sequence[_Skipped]: ...
    @property
    def cut_short(self) -> Sequence[_Cut]: ...


C = TypeVar("C", bound=_Loaded)


def catalog_span(source: str, kind: str) -> Traced:
    """The span of one source's load (`kind`: `mcp` or `callables`); its source is recorded even
    when the load fails."""

    def opening() -> dict[str, AttributeValue]:
        first: dict[str, AttributeValue] = {"schemarouter.source": source, "schemarouter.source.kind": kind}
        if kind == "mcp":
            first["mcp.method.name"] = "tools/list"
        return first

    return traced("schemarouter.catalog.load", opening, _catalog_metrics)


def loaded(span: Traced, catalog: C) -> C:
    """Record what one source's load gave: tools, skipped ones and why, a listing cut short."""
    if not span.recording:
        return catalog
    with guarded("a source load"):
        skipped = catalog.skipped
        span.attributes.update(
            {
                "schemarouter.catalog.tools": len(catalog),
                "schemarouter.catalog.version": catalog.version,
                "schemarouter.catalog.skipped": len(skipped),
                "schemarouter.catalog.skipped.tools": [f"{tool.name}: {tool.reason}" for tool in skipped],
                "schemarouter.catalog.cut_short": [cut.reason for cut in catalog.cut_short],
            }
        )
    return catalog


def _catalog_metrics(span: Traced, seconds: float, error: BaseException | None) -> None:
    made = instruments()
    source = str(span.attributes.get("schemarouter.source", ""))
    tools = span.attributes.get("schemarouter.catalog.tools")
    if isinstance(tools, int):
        made.catalog_tools.add(tools, {"schemarouter.source": source})
    skipped = span.attributes.get("schemarouter.catalog.skipped.tools", ())
    if isinstance(skipped, Sequence) and not isinstance(skipped, str):
        for entry in skipped:
            reason = str(entry).rsplit(": ", 1)[-1]
            made.catalog_skipped.add(1, {"schemarouter.source": source, "schemarouter.reason": reason})
