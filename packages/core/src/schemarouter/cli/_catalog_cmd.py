"""`schemarouter catalog`: list a server's tools with hints, schema bytes and fingerprints."""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..catalog._catalog import Catalog
from ._common import (
    add_source_arguments,
    add_verbose_argument,
    count,
    emit_json,
    keep_routes_whole,
    load_router,
    print_skipped,
    printable,
    stdout,
)

__all__ = ["EXAMPLE", "register"]

EXAMPLE = """example (the fixture server that ships with schemarouter-conformance):
  schemarouter catalog --stdio "python -m schemarouter_conformance.fixture_server" --name fixture"""


def _hint(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def catalog_to_json(catalog: Catalog) -> dict[str, Any]:
    return {
        "version": catalog.version,
        "tool_count": len(catalog),
        "schema_bytes": catalog.total_schema_bytes(),
        "tools": [
            {
                "route": cap.route,
                "source": cap.source,
                "name": cap.name,
                "title": cap.title,
                "description": cap.description,
                "read_only_hint": cap.hint("readOnlyHint"),
                "destructive_hint": cap.hint("destructiveHint"),
                "schema_bytes": cap.schema_bytes,
                "fingerprint": cap.fingerprint,
            }
            for cap in catalog
        ],
        "skipped": [
            {"source": s.source, "name": s.name, "reason": s.reason, "detail": s.detail}
            for s in catalog.skipped
        ],
        "cut_short": [
            {"source": c.source, "reason": c.reason, "pages_read": c.pages_read, "detail": c.detail}
            for c in catalog.cut_short
        ],
    }


async def run(args: argparse.Namespace) -> int:
    router = await load_router(args)
    catalog = router.catalog
    if args.json:
        emit_json(catalog_to_json(catalog))
        return 0
    table = Table(
        title=f"{count(len(catalog), 'tool')} · catalog {catalog.version[:12]}", title_justify="left"
    )
    for column, justify in (
        ("route", "left"),
        ("read-only", "center"),
        ("destructive", "center"),
        ("schema bytes", "right"),
        ("fingerprint", "left"),
    ):
        table.add_column(column, justify=justify)  # pyright: ignore[reportArgumentType]
    keep_routes_whole(table, (cap.route for cap in catalog))
    for cap in catalog:
        table.add_row(
            Text(printable(cap.route)),  # as the server wrote it: never markup, no terminal control
            _hint(cap.hint("readOnlyHint")),
            _hint(cap.hint("destructiveHint")),
            str(cap.schema_bytes),
            cap.short_fingerprint,
        )
    stdout.print(table)
    stdout.print("hints are as the source reports them (untrusted); bytes are compact JSON, not tokens")
    print_skipped(catalog.skipped)
    for cut in catalog.cut_short:  # the listing stopped at a limit: tools are missing
        stdout.print(
            f"[yellow]cut short[/] {escape(printable(cut.source))} — {escape(printable(cut.reason))}: "
            f"{escape(printable(cut.detail))}",
            markup=True,
        )
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "catalog",
        help="list an MCP server's tools with fingerprints and schema bytes",
        description="List the tools of MCP servers or tool-definition files, with their hints, "
        "schema bytes and fingerprints, and the tools that could not be loaded, with why. No tool runs.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser)
    add_verbose_argument(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)
