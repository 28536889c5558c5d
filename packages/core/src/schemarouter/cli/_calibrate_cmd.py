"""`schemarouter calibrate`: choose the abstention threshold from labelled queries.

The labelled file is JSON: `{"supported": [{"query": ..., "tools": [...]}, ...],
"unsupported": ["query", ...]}`. `tools` holds tool names or routes that answer the query.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, cast

from rich.table import Table

from .._defaults import DEFAULT_K
from ..catalog._json_file import read_json_file
from ..errors import UserError
from ..retrieval._calibrate import CalibrationReport, calibrate
from ._common import (
    add_semantic_argument,
    add_source_arguments,
    add_verbose_argument,
    emit_json,
    encoder_name,
    load_router,
    mode_text,
    require_tools,
    stdout,
)

__all__ = ["EXAMPLE", "load_labelled", "register"]

_FORMAT = """the labelled file (JSON):
  {
    "supported": [
      {"query": "convert 20 euros to yen", "tools": ["convert_currency"]},
      {"query": "email the report to Ada", "tools": ["send_email"]}
    ],
    "unsupported": ["tell me a joke", "who wrote Hamlet"]
  }
"tools" lists the tool names (or source:name routes) that answer the query; every one must
be in the catalog. At least 2 supported and 2 unsupported queries; a few hundred give a
threshold worth using."""

EXAMPLE = """example (the fixture server of schemarouter-conformance, and labelled requests for it from
the repository):
  schemarouter calibrate --stdio "python -m schemarouter_conformance.fixture_server" examples/cli/labelled.json"""


def load_labelled(path: Path) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """Read a labelled-queries file; raises `UserError` with the reason when it is malformed."""
    data: Any = read_json_file(path, "labelled queries")
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected an object with 'supported' and 'unsupported'")
    document = cast(dict[str, Any], data)
    unknown = sorted(set(document) - {"supported", "unsupported"})
    if unknown:
        raise UserError(f"{path}: unknown keys {unknown}; expected 'supported' and 'unsupported'")
    items: Any = document.get("supported", [])
    if not isinstance(items, list):
        raise UserError(f"{path}: 'supported' must be a list")
    supported: list[tuple[str, list[str]]] = []
    for item in cast(list[Any], items):
        if not isinstance(item, dict):
            raise UserError(f"{path}: each supported item needs a 'query' string and a 'tools' list")
        entry = cast(dict[str, Any], item)
        extra = sorted(set(entry) - {"query", "tools"})
        if extra:
            raise UserError(f"{path}: unknown keys {extra} in a supported item; expected 'query' and 'tools'")
        query: Any = entry.get("query")
        tools: Any = entry.get("tools")
        if not isinstance(query, str):
            raise UserError(f"{path}: each supported item needs a 'query' string and a 'tools' list")
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in cast(list[Any], tools)):
            raise UserError(f"{path}: 'tools' must be a list of tool names for {query!r}")
        supported.append((query, [str(t) for t in cast(list[Any], tools)]))
    negatives: Any = document.get("unsupported", [])
    if not isinstance(negatives, list) or not all(isinstance(q, str) for q in cast(list[Any], negatives)):
        raise UserError(f"{path}: 'unsupported' must be a list of query strings")
    return supported, [str(q) for q in cast(list[Any], negatives)]


def _print(report: CalibrationReport, mode: str) -> None:
    """The chosen threshold first, with what it does on the held-out half; then the mode it is
    for, the trade-off curve, and how to use it."""
    tuning = f"{report.tuning_supported} supported / {report.tuning_unsupported} unsupported queries"
    if report.target_met:
        chosen = (
            f"the highest threshold that refuses at most {report.target_over_rejection:.0%} of the "
            f"supported queries it was chosen on ({tuning})"
        )
    else:
        chosen = (
            f"the no-route gate's own decision: the gate alone refuses "
            f"{report.tuning_over_rejection:.1%} of the supported queries it was chosen on ({tuning}), "
            f"over the {report.target_over_rejection:.0%} target, and a threshold can only refuse more"
        )
    stdout.print(f"min_score = {report.threshold}: {chosen}", soft_wrap=True)
    stdout.print(
        f"held-out ({report.heldout_supported} / {report.heldout_unsupported}): "
        f"over-rejection {report.over_rejection:.1%}, false acceptance {report.false_acceptance:.1%}, "
        f"recall@{report.k} {report.recall_at_k:.1%}  (gate alone: over-rejection "
        f"{report.gate_only.over_rejection:.1%}, false acceptance {report.gate_only.false_acceptance:.1%})",
        soft_wrap=True,
    )
    stdout.print(f"mode {mode}: the threshold holds for a router of this mode only", markup=False)
    table = Table(title="held-out trade-off (* the chosen threshold)", title_justify="left")
    for column in ("min_score", "over-rejection", "false acceptance", f"recall@{report.k}"):
        table.add_column(column, justify="right")
    for point in report.curve:
        marker = " *" if point.threshold == report.threshold else ""
        table.add_row(
            f"{point.threshold:.4f}{marker}",
            f"{point.over_rejection:.1%}",
            f"{point.false_acceptance:.1%}",
            f"{point.recall_at_k:.1%}",
        )
    stdout.print(table)
    built = "router" if mode == "lexical" else "router.with_semantic()"
    stdout.print(
        f"use it: Visibility({built}, k={report.k}, "
        f"abstention=RetrievalAbstentionPolicy(min_score={report.threshold}))"
    )
    if not report.target_met:
        hint = (
            "" if mode != "lexical" else "hybrid mode (--semantic) routes requests worded unlike the tools; "
        )
        stdout.print(
            f"to refuse fewer supported queries: {hint}more labelled queries make every figure firmer",
            soft_wrap=True,
        )


async def run(args: argparse.Namespace) -> int:
    supported, unsupported = load_labelled(Path(args.labelled))
    router = await load_router(args)
    require_tools(router.catalog)
    report = calibrate(
        router,
        supported,
        unsupported,
        k=args.k,
        target_over_rejection=args.target_over_rejection,
        seed=args.seed,
    )
    if args.json:
        emit_json(
            {
                **report.to_dict(),
                "policy": {"min_score": report.policy.min_score},
                "mode": router.mode,
                "encoder": encoder_name(router),
            }
        )
    else:
        _print(report, mode_text(router))
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "calibrate",
        help="choose the abstention threshold from labelled queries and report its trade-off",
        description="Choose the abstention threshold (min_score) on half of the labelled queries and "
        "report what it does on the other half.",
        epilog=f"{_FORMAT}\n\n{EXAMPLE}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser)
    add_verbose_argument(parser)
    parser.add_argument("labelled", help="JSON file of supported (query + tools) and unsupported queries")
    parser.add_argument(
        "-k", "--k", type=int, default=DEFAULT_K, help=f"allow-set size (default {DEFAULT_K})"
    )
    parser.add_argument(
        "--target-over-rejection", type=float, default=0.05, help="largest share of supported queries refused"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the tuning / held-out split")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_semantic_argument(parser)
    parser.set_defaults(handler=run)
